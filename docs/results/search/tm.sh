#!/bin/bash
# Issue 52, item 4: time use under a clock, the adaptive rule (Scan's
# stability factors and a score-drop term, `tm=adaptive`) against the plain
# one (no new iteration past half the planned time), both the built-in
# engine (models/nnue-data-2h, the selective search), one thread each, two
# games at once, a 3 s + 30 ms clock each (about the 100 ms a move of the
# other matches), the unbalanced book, colours swapped, 5-piece tables,
# seed 52; one GSPRT on logistic Elo [0, 10] (alpha = beta = 0.05), at most
# 2,000 games. Alone on the machine; resumes from its PDN.
# Usage, from the repository root after `cargo build --release -p shashki`
# and `target/release/shashki tb generate --pieces 5 --out tablebases`:
#   docs/results/search/tm.sh
# SHASHKI=BINARY runs another build (a copy, so a rebuild cannot swap it).
set -u
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/search
$S match "builtin:tm=adaptive" "builtin:tm=plain" --tc 3+0.03 --games 2000 \
  --concurrency 2 --tablebase tablebases --seed 52 --sprt 0,10 \
  --pdn $D/tm.pdn --resume --json $D/tm.json 2>&1 | tee $D/logs/tm.log | tail -14
