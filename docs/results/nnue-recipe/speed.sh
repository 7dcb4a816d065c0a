#!/bin/bash
# Issue 69, item 1: self-play games an hour of configs/nnue.toml's search
# (full width, depth 7) against the selective search of issue 52 at several
# depths, with a trained net (run4h-c's 2-hour net: a fresh net's games
# are shorter and its searches cheaper), alternated so that the machine's
# drift falls on all of them alike.
#   docs/results/nnue-recipe/speed.sh ROUNDS "none:7 prune+lmr:9 ..."
# SHASHKI=BINARY as in the other scripts. Output: logs/speed.log.
set -eu
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/nnue-recipe
NET=${NET:-docs/results/nnue-growth/nets/run4h-c/time-7200s.shzk}
GAMES=${GAMES:-512}
rounds=${1:?ROUNDS}
arms=${2:?'"SEARCH:DEPTH ..."'}
mkdir -p $D/logs
tmp=$(mktemp -d)
trap 'rm -rf $tmp' EXIT
{ date -u; uptime; grep -m1 "model name" /proc/cpuinfo; echo "net $NET, $GAMES games an arm, $rounds rounds"; } | tee -a $D/logs/speed.log
for round in $(seq $rounds); do
  for arm in $arms; do
    search=${arm%:*}; depth=${arm#*:}
    python3 $D/edit_config.py configs/nnue.toml $tmp/c.toml "nnue.search=\"$search\"" nnue.depth=$depth
    line=$($S selfplay --config $tmp/c.toml --model $NET --out $tmp/out --games $GAMES --rounds 1 --seed $round --plain 2>&1 | grep -m1 "^total:" || true)
    rm -rf $tmp/out
    echo "round $round $search depth $depth: $line" | tee -a $D/logs/speed.log
  done
done
