#!/bin/bash
# Issue 69, item 1: how close each self-play search's labels come to a
# depth-13 search: issue 53's held-out set (2,000 quiet positions of rated
# games, labelled by nnue-data-2h's full-width depth-13 search and the
# 5-piece tables) labelled again by SEARCH at DEPTH with the same net, so
# that only the search differs; with the nodes and time of a label.
#   docs/results/nnue-recipe/agreement.sh "none:7 prune+lmr:9 ..."
# Output: logs/agreement.log.
set -eu
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/nnue-recipe
SET=docs/results/nnue-growth/diagnose/games-d13.json
mkdir -p $D/logs
{ date -u; uptime; grep -m1 "model name" /proc/cpuinfo; } | tee -a $D/logs/agreement.log
for arm in ${1:?'"SEARCH:DEPTH ..."'}; do
  $S nnue-diagnose agreement --set $SET --depth ${arm#*:} --search ${arm%:*} \
    --eval models/nnue-data-2h --tablebase tablebases --threads 2 2>&1 | tee -a $D/logs/agreement.log
done
