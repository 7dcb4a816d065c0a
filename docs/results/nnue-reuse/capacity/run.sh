#!/bin/bash
# Capacity at the run's scale (issue 24, fourth sitting): a fresh net of each
# layout fitted to a fixed set of the runs' own samples, written out so that
# it can be played. Run from the repository root after the three runs of
# docs/results/nnue-reuse/ (runs/exp24/{base,reuse16,depth9}).
#   docs/results/nnue-reuse/capacity/run.sh
set -euo pipefail
B=${SHASHKI:-target/release/shashki}
SET=docs/results/nnue-reuse/pdn-d11-nnue-2000.json
mkdir -p runs/exp24/cap
fit() { # NAME SAMPLES EPOCHS FT STACKS CHUNK-FOLDERS...
  local name=$1 samples=$2 epochs=$3 ft=$4 stacks=$5; shift 5
  timeout 1800 "$B" nnue-diagnose capacity --chunks "$@" --samples "$samples" --epochs "$epochs" \
    --ft "$ft" --stacks "$stacks" --set "$SET" --out "runs/exp24/cap/$name" > "runs/exp24/cap/$name.txt"
}
# The base run's window: its newest 300,000 samples.
for layout in "128 single" "128 phase4" "256 single" "256 phase4"; do
  read -r ft stacks <<< "$layout"
  fit "ft$ft-$stacks" 300000 12 "$ft" "$stacks" runs/exp24/base/data
done
# Every sample of the three runs (1,044,896).
for ft in 128 256; do
  fit "all-ft$ft-single" 5000000 10 "$ft" single runs/exp24/base/data runs/exp24/reuse16/data runs/exp24/depth9/data
done
# Each fitted net against the base run's plateau (generation 36), 300 games at depth 6.
for net in runs/exp24/cap/*/; do
  "$B" match "nnue:${net%/}@depth=6" "nnue:runs/exp24/base/checkpoints/ckpt-000001760.shzk@depth=6" \
    --games 300 --openings docs/results/nnue-reuse/openings8.txt --tablebase tablebases --concurrency 2
done
