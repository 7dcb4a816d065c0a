#!/bin/bash
# Issue 36: two arms side by side, one core each, for the same wall-clock time,
# from zero; then each arm's last net against the base arm's at 100 ms a move
# from the unbalanced book (the default of `match`).
# Usage, from the repository root after `cargo build --release -p shashki`:
#   docs/results/nnue-data/arms.sh train ARM ARM [SECONDS=3600]   # runs/nnue-data/ARM, ARM.log
#   docs/results/nnue-data/arms.sh match ARM [BASE=base] [GAMES=400]
# Runs resume (rerun `train`); a match resumes from its PDN (--resume).
# Each finished arm's net is also kept in docs/results/nnue-data/nets/ARM
# (a model folder); a match uses it when runs/nnue-data/ARM is not there.
set -u
. docs/results/nnue-data/lib.sh
case $1 in
  train)
    secs=${4:-3600}
    for arm in $2 $3; do
      ( timeout -s TERM $secs $S train --config $D/$arm.toml --run-dir $R/$arm --plain 2>&1 | stamp >> $R/$arm.log ) &
    done
    wait;;
  match)
    arm=$2; base=${3:-base}; games=${4:-400}
    $S match "nnue:$(net $arm)@movetime=100" "nnue:$(net $base)@movetime=100" --games $games \
      --concurrency 2 --tablebase tablebases --seed 36 --pdn $D/$arm-vs-$base.pdn --resume \
      --json $D/$arm-vs-$base.json 2>&1 | tee $R/$arm-vs-$base.log | tail -25;;
  *) echo "usage: arms.sh train ARM ARM [SECONDS] | match ARM [BASE] [GAMES]" >&2; exit 2;;
esac
