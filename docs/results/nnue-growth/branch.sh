#!/bin/bash
# Issue 53, part 2: levers as one-hour continuations of the 4-hour run from
# its 2-hour net, each against the plain continuation (the run's own
# 3-hour net: the same recipe, the same data up to 2 hours).
#   branch.sh make NAME SECTION.KEY=VALUE...  # runs/nnue-growth/from2h-NAME: the run
#                                              # at 2 hours (net, optimizer, counters,
#                                              # its window of chunks) with the config edited;
#                                              # nnue.ft=N widens the net (shashki nnue-widen)
#   branch.sh train NAME                       # trains it to 3 hours of run time (resumable;
#                                              # its log kept as logs/from2h-NAME-train.log)
#   branch.sh rate NAME                        # 400 games at 100 ms against run4h's 3-hour
#                                              # net, seed 54, unbalanced book, 5-piece tables
# SHASHKI=BINARY as in run4h.sh.
set -eu
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/nnue-growth
R=runs/nnue-growth
BASE=$R/run4h
MARK=time-7200s
name=${2:?usage: branch.sh make|train|rate NAME}
B=$R/from2h-$name
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s)" "$line"; done; }
case $1 in
  make)
    [ -e $B ] && { echo "$B exists" >&2; exit 1; }
    mkdir -p $B/checkpoints $B/data
    state=$D/nets/run4h/$MARK.state.json
    step=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['step'])" $state)
    gen=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['generation'])" $state)
    cp $D/nets/run4h/$MARK.shzk $B/checkpoints/$(printf 'ckpt-%09d.shzk' $step)
    cp $state $B/checkpoints/$(printf 'ckpt-%09d.state.json' $step)
    # The chunks written before the mark's net (hard links: chunks are never
    # rewritten). A chunk's name starts with its writing time in ns
    # (chunk-NANOS-PID-COUNTER-SALT); the mark's file in the base run keeps
    # the time it was written. Their games must be the mark's count.
    python3 - $BASE/data $BASE/checkpoints/$MARK.shzk $B/data <<'PY'
import os, sys
data, mark, out = sys.argv[1:]
limit = os.stat(mark).st_mtime_ns
for name in sorted(os.listdir(data)):
    if name.startswith("chunk-") and int(name.split("-")[1]) <= limit:
        os.link(os.path.join(data, name), os.path.join(out, name))
PY
    games=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['games'])" $state)
    per=$(python3 -c "import sys,tomllib; print(tomllib.load(open(sys.argv[1],'rb'))['selfplay']['games_per_chunk'])" $BASE/config.toml)
    chunks=$(ls $B/data | wc -l)
    [ $((chunks * per)) -eq $games ] || { echo "$chunks chunks of $per games for $games games" >&2; exit 1; }
    shift 2
    python3 - $BASE/config.toml $B/config.toml "$@" <<'PY'
import re, sys
src, dst, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(src).read()
for edit in edits:
    path, value = edit.split("=", 1)
    section, key = path.rsplit(".", 1)
    block = re.search(rf"(?ms)^\[{re.escape(section)}\]\n.*?(?=^\[|\Z)", text)
    assert block, f"no [{section}]"
    new, n = re.subn(rf"(?m)^{re.escape(key)} = .*$", f"{key} = {value}", block.group(0))
    assert n == 1, f"no {key} in [{section}]"
    text = text[: block.start()] + new + text[block.end() :]
open(dst, "w").write(text)
PY
    # A wider net (nnue.ft=N): the 2-hour net widened, evaluating as before.
    for edit in "$@"; do case $edit in nnue.ft=*)
      ckpt=$B/checkpoints/$(printf 'ckpt-%09d.shzk' $step)
      $S nnue-widen $ckpt --ft ${edit#nnue.ft=} --out $ckpt;; esac; done
    echo "$B: step $step, generation $gen, $(ls $B/data | wc -l) chunks; edits: $*"
    diff $BASE/config.toml $B/config.toml || true;;
  train)
    $S train --config $B/config.toml --run-dir $B --seconds 10800 --plain 2>&1 | stamp >> $B.log
    cp $B.log $D/logs/from2h-$name-train.log;;
  rate)
    net=$(ls $B/checkpoints/ckpt-*.shzk | tail -1)
    base=$BASE/checkpoints/time-10800s.shzk; [ -f $base ] || base=$D/nets/run4h/time-10800s.shzk
    log=$D/logs/from2h-$name.log
    echo "binary: $S ($($S --version)), checkout $(git rev-parse --short HEAD); $net vs $base" > $log
    $S match "nnue:$net@movetime=100" "nnue:$base@movetime=100" --games 400 \
      --concurrency 2 --tablebase tablebases --seed 54 --pdn $D/from2h-$name.pdn --resume \
      --json $D/from2h-$name.json 2>&1 | tee -a $log | tail -12;;
  *) echo "usage: branch.sh make|train|rate NAME" >&2; exit 2;;
esac
