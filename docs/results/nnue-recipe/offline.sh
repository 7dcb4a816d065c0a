#!/bin/bash
# Issue 69, item 2, first offline: a net fitted to every sample the base run
# wrote (its 706 generations, about 7.9 M samples), for several passes with
# a falling learning rate, against the base run's own last net.
#   offline.sh fit NAME EPOCHS [capacity options...]  # e.g. fit fresh 4, or
#                                   # fit tuned 2 --init BASE_NET --learning-rate 0.0003
#   offline.sh rate NAME [OTHER]    # 400 games at 100 ms against the base's last net,
#                                   # or against offline-OTHER
# RUN=plain fits to the chunks of runs/nnue-recipe/plain (the base's and its
# third hour's) instead of the base's. Run each alone on the machine.
# SHASHKI=BINARY as in recipe.sh.
set -eu
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/nnue-recipe
R=runs/nnue-recipe
SET=docs/results/nnue-growth/diagnose/games-d13.json
mkdir -p $D/logs $D/nets
case ${1:-} in
  fit)
    name=${2:?NAME}; epochs=${3:?EPOCHS}; shift 3
    $S nnue-diagnose capacity --chunks $R/${RUN:-base}/data --samples 1000000000 --epochs $epochs \
      --set $SET --out $D/nets/offline-$name "$@" 2>&1 | tee $D/logs/offline-$name.log;;
  rate)
    name=${2:?NAME}; other=${3:-}
    if [ -n "$other" ]; then opponent=$D/nets/offline-$other; vs=offline-$other
    else opponent=$(ls $R/base/checkpoints/ckpt-*.shzk | tail -1); vs=base; fi
    log=$D/logs/offline-$name-vs-$vs.log
    echo "binary: $S ($($S --version)), checkout $(git rev-parse --short HEAD); offline-$name vs $opponent" >> $log
    $S match "nnue:$D/nets/offline-$name@movetime=100" "nnue:$opponent@movetime=100" --games 400 \
      --concurrency 2 --tablebase tablebases --seed 69 --pdn $D/offline-$name-vs-$vs.pdn --resume \
      --json $D/offline-$name-vs-$vs.json 2>&1 | tee -a $log | tail -12;;
  *) echo "usage: [RUN=plain] offline.sh fit NAME EPOCHS [options] | rate NAME [OTHER]" >&2; exit 2;;
esac
