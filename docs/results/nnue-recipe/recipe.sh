#!/bin/bash
# Issue 69: the base the levers branch from, the levers, and their ratings.
#   recipe.sh base                  # configs/nnue.toml (seed 3: base.toml) from zero to
#                                   # generation 706 (run4h-c's count at 2 hours: 181,184
#                                   # games), every chunk kept; byte-reproducible from its
#                                   # seed, so a lost runs/ can be remade exactly
#   recipe.sh make NAME KEY=VALUE.. # runs/nnue-recipe/NAME: the base at its end (net,
#                                   # optimizer, counters; its chunks hard-linked) with
#                                   # the config edited (edit_config.py)
#   recipe.sh train NAME            # NAME for one hour of the run's own time past the base
#   recipe.sh rate NAME [BASE]      # NAME's last net against BASE's (default plain), 400
#                                   # games at 100 ms, builtin:unbalanced, 5-piece tables,
#                                   # colours swapped, seed 69
# Run each alone on the machine. SHASHKI=BINARY runs another build (a copy).
set -eu
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/nnue-recipe
R=runs/nnue-recipe
BASE=$R/base
mkdir -p $R $D/logs
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s)" "$line"; done; }
newest() { ls $1/checkpoints/ckpt-*.shzk | tail -1; }
case ${1:-} in
  base)
    { date -u; uptime; grep -m1 "model name" /proc/cpuinfo; echo "binary $S ($($S --version)), checkout $(git rev-parse --short HEAD)"; } >> $R/base.log
    $S train --config $D/base.toml --run-dir $BASE --generations 706 --plain 2>&1 | stamp >> $R/base.log
    cp $R/base.log $D/logs/;;
  make)
    name=${2:?NAME}; B=$R/$name
    [ -e $B ] && { echo "$B exists" >&2; exit 1; }
    mkdir -p $B/checkpoints $B/data
    ckpt=$(newest $BASE); state=${ckpt%.shzk}.state.json
    cp $ckpt $state $B/checkpoints/
    ln $BASE/data/chunk-* $B/data/
    shift 2
    python3 $D/edit_config.py $BASE/config.toml $B/config.toml "$@"
    echo "$B: from $ckpt, $(ls $B/data | wc -l) chunks; edits: $*"
    diff $BASE/config.toml $B/config.toml || true;;
  train)
    name=${2:?NAME}; B=$R/$name
    seconds=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['seconds']) + 3600)" $(newest $BASE | sed 's/shzk$/state.json/'))
    { date -u; uptime; grep -m1 "model name" /proc/cpuinfo; echo "binary $S ($($S --version)), checkout $(git rev-parse --short HEAD), to $seconds s"; } >> $B.log
    $S train --config $B/config.toml --run-dir $B --seconds $seconds --plain 2>&1 | stamp >> $B.log
    cp $B.log $D/logs/$name-train.log
    # A run stopped inside its hour keeps no net here (it resumes next time).
    python3 -c "import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s['seconds'] >= $seconds or s.get('refit_mark', 0) >= $seconds else 1)" \
      $(newest $B | sed 's/shzk$/state.json/') || { echo "$name stopped before its hour" >&2; exit 1; }
    mkdir -p $D/nets/$name
    last=$(newest $B); cp $last ${last%.shzk}.state.json $D/nets/$name/;;
  rate)
    name=${2:?NAME}; base=${3:-plain}
    net=$(ls $D/nets/$name/ckpt-*.shzk | tail -1); other=$(ls $D/nets/$base/ckpt-*.shzk | tail -1)
    log=$D/logs/$name-vs-$base.log
    echo "binary: $S ($($S --version)), checkout $(git rev-parse --short HEAD); $net vs $other" >> $log
    $S match "nnue:$net@movetime=100" "nnue:$other@movetime=100" --games 400 \
      --concurrency 2 --tablebase tablebases --seed 69 --pdn $D/$name-vs-$base.pdn --resume \
      --json $D/$name-vs-$base.json 2>&1 | tee -a $log | tail -12;;
  *) echo "usage: recipe.sh base | make NAME KEY=VALUE... | train NAME | rate NAME [BASE]" >&2; exit 2;;
esac
