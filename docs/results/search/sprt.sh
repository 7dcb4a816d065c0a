#!/bin/bash
# Issue 52: each selectivity technique against the search without it, one
# GSPRT on logistic Elo [0, 10] (alpha = beta = 0.05), at most 2,000 games:
# the built-in net (models/nnue-data-2h) on both sides at 100 ms a move, one
# thread each, two games at once, the unbalanced book, colours swapped,
# 5-piece tables, seed 52. Alone on the machine.
# Usage, from the repository root after `cargo build --release -p shashki`
# and `target/release/shashki tb generate --pieces 5 --out tablebases`:
#   docs/results/search/sprt.sh NAME NEW_SEL BASE_SEL
#   e.g. docs/results/search/sprt.sh prune prune none
# SHASHKI=BINARY runs another build (a copy, so a rebuild cannot swap it
# under a running match). Resumes from its PDN (--resume); writes NAME.pdn, NAME.json and
# logs/NAME.log (appended to, so a resumed match keeps its earlier reports).
set -u
[ $# -eq 3 ] || { echo "usage: sprt.sh NAME NEW_SEL BASE_SEL" >&2; exit 2; }
name=$1 new=$2 base=$3
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/search
$S match "builtin:movetime=100,sel=$new" "builtin:movetime=100,sel=$base" --games 2000 \
  --concurrency 2 --tablebase tablebases --seed 52 --sprt 0,10 \
  --pdn $D/$name.pdn --resume --json $D/$name.json 2>&1 | tee -a $D/logs/$name.log | tail -14
