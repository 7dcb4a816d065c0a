#!/bin/bash
# Issue 36, re-test of issue 24's 1.04 M-sample fit with the unbalanced book:
# a fresh net (ft 128, single stack) fitted offline for 10 epochs to the
# newest 1,044,896 samples of the three base-recipe arms (base, reuse16,
# ft256: 1.94 M samples in their hours, 3.5x the window), then matched like
# every arm against the base arm's own net (arms.sh match). Given runs
# instead (e.g. run2h-b, a second 2-hour run of the combined recipe), the
# fit takes their newest samples and meets the first named run's last net.
# Usage, from the repository root after those arms (arms.sh train) or runs:
#   docs/results/nnue-data/fit1m.sh [RUN...]
set -u
. docs/results/nnue-data/lib.sh
runs="base reuse16 ft256"; against=base; name=fit1m
if [ $# -gt 0 ]; then runs="$*"; against=$1; name=fit1m-$1; fi
if [ ! -d $R/$name/model ]; then
  chunks=""; for run in $runs; do chunks="$chunks $R/$run/data"; done
  timeout 3600 $S nnue-diagnose capacity --chunks $chunks \
    --samples 1044896 --epochs 10 --set docs/results/nnue-reuse/pdn-d11-nnue-2000.json \
    --out $R/$name/model 2>&1 | stamp | tee $D/logs/$name.log
  mkdir -p $D/nets/$name && cp $R/$name/model/* $D/nets/$name/
fi
$D/arms.sh match $name $against
