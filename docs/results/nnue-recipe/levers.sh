#!/bin/bash
# Issue 69: the levers of docs/RESULTS.md's table, one after another, each
# alone on the machine: made from the base if absent, trained for its hour
# (resumed if a sitting ended inside it), rated against plain if not yet.
#   docs/results/nnue-recipe/levers.sh NAME...      # e.g. levers.sh refit sel9
# Stop it with SIGTERM (the run saves and resumes next time; a match
# resumes from its PDN). SHASHKI=BINARY as in recipe.sh.
set -eu
D=docs/results/nnue-recipe
R=runs/nnue-recipe
edits() {
  case $1 in
    refit) echo "refit.every_seconds=3600";;
    sel9) echo 'nnue.search="prune+lmr" nnue.depth=9';;
    all) echo 'train.replay="all"';;
    surprise) echo "nnue.surprise_weight=0.5";;
    lambda_end) echo "nnue.lambda_end=1.0 nnue.lambda_steps=62000";;
    wdl) echo "nnue.wdl_filter=true";;
    multipv80) echo "nnue.random_multipv_plies=80";;
    tree05) echo "nnue.tree_sample_rate=0.5";;
    blocks) echo "refit.every_seconds=1200 train.learning_rate=0.00001";;
    *) echo "unknown lever $1" >&2; exit 2;;
  esac
}
for name in "$@"; do
  e=$(edits $name)
  [ -e $R/$name ] || $D/recipe.sh make $name $e
  ls $D/nets/$name/ckpt-*.shzk >/dev/null 2>&1 || $D/recipe.sh train $name
  [ -e $D/$name-vs-plain.json ] || $D/recipe.sh rate $name
done
