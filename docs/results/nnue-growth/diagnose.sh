#!/bin/bash
# Issue 53, what stops the curve (after the levers): the nets of both
# 4-hour runs on one held-out set, and how far the run's own window can be
# fitted by today's net and a wider one.
#   docs/results/nnue-growth/diagnose.sh set        # 2,000 quiet positions of the rating games, depth 13
#   docs/results/nnue-growth/diagnose.sh loss       # every hourly net of both runs, and nnue-data-2h
#   docs/results/nnue-growth/diagnose.sh capacity FT  # run4h-c's last 300,000 samples, 100 epochs
# SHASHKI=BINARY as in run4h.sh. Outputs in docs/results/nnue-growth/diagnose/.
set -u
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/nnue-growth
O=$D/diagnose
SET=$O/games-d13.json
mkdir -p $O
case ${1:-} in
  set)
    # The positions the nets meet when rated (the games of this issue and
    # the earlier curves), labelled by nnue-data-2h's depth-13 search and
    # the 5-piece tables: deeper than any self-play label (depth 7).
    $S nnue-diagnose make-set --pdn $D/*.pdn docs/results/*/games.pdn --positions 2000 \
      --depth 13 --eval models/nnue-data-2h --tablebase tablebases --threads 2 --seed 53 \
      --out $SET 2>&1 | tee $O/set.txt;;
  loss)
    $S nnue-diagnose loss --set $SET $D/nets/run4h/time-*.shzk $D/nets/run4h-c/time-*.shzk \
      models/nnue-data-2h 2>&1 | tee $O/loss.txt;;
  capacity)
    ft=${2:?FT}
    $S nnue-diagnose capacity --chunks runs/nnue-growth/run4h-c/data --samples 300000 \
      --epochs 100 --ft $ft --set $SET 2>&1 | tee $O/capacity-ft$ft.txt;;
  *) echo "usage: diagnose.sh set | loss | capacity FT" >&2; exit 2;;
esac
