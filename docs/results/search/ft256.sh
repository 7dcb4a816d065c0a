#!/bin/bash
# Issue 52, item 2: the ft 256 net of issue 36 (one hour, one core) against
# that base net again, with this search and evaluation: 100 ms a
# move, one thread each, two games at once, the unbalanced book, colours
# swapped, 5-piece tables, seed 36 (the openings of the first match), 400
# games. Alone on the machine; resumes from its PDN.
# Usage, from the repository root after `cargo build --release -p shashki`
# and `target/release/shashki tb generate --pieces 5 --out tablebases`:
#   docs/results/search/ft256.sh
# SHASHKI=BINARY runs another build (a copy, so a rebuild cannot swap it).
set -u
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/search
N=docs/results/nnue-data/nets
$S match "nnue:$N/ft256@movetime=100" "nnue:$N/base@movetime=100" --games 400 \
  --concurrency 2 --tablebase tablebases --seed 36 --pdn $D/ft256-vs-base.pdn --resume \
  --json $D/ft256-vs-base.json 2>&1 | tee $D/logs/ft256-vs-base.log | tail -25
