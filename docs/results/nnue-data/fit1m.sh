#!/bin/bash
# Issue 36, re-test of issue 24's 1.04 M-sample fit with the unbalanced book:
# a fresh net (ft 128, single stack) fitted offline for 10 epochs to the
# newest 1,044,896 samples of the three base-recipe arms (base, reuse16,
# ft256: 1.94 M samples in their hours, 3.5x the window), then matched like
# every arm against the base arm's own net (arms.sh match).
# Usage, from the repository root after those arms (arms.sh train):
#   docs/results/nnue-data/fit1m.sh
set -u
. docs/results/nnue-data/lib.sh
if [ ! -d $R/fit1m/model ]; then
  timeout 3600 $S nnue-diagnose capacity --chunks $R/base/data $R/reuse16/data $R/ft256/data \
    --samples 1044896 --epochs 10 --set docs/results/nnue-reuse/pdn-d11-nnue-2000.json \
    --out $R/fit1m/model 2>&1 | stamp | tee $D/logs/fit1m.log
  mkdir -p $D/nets/fit1m && cp $R/fit1m/model/* $D/nets/fit1m/
fi
$D/arms.sh match fit1m
