#!/bin/bash
# Issue 53: a run directory small enough to commit, so that a run spread
# over several sittings survives a machine that loses runs/ (it is outside
# git, and one sitting's run was lost that way). A 4-hour run writes about
# 4 GB of chunks; resuming needs only its newest checkpoint and the chunks
# of its replay window (the newest `train.window` samples): about 2 MB once
# compressed (the records' policy slots are zero in the NNUE family).
#   snapshot.sh pack NAME     # runs/nnue-growth/NAME -> resume/NAME.tar.xz
#   snapshot.sh unpack NAME   # resume/NAME.tar.xz -> runs/nnue-growth/NAME
# Stop the run first (SIGTERM ends it at a generation's end, after its
# checkpoint). Unpacking sets the newest checkpoint's `replay.ingested` to
# the samples of the chunks it restores: reuse tokens are added only for
# samples beyond `ingested`, so with the older chunks left out every step
# would wait until as many new samples had arrived. The tokens, the
# counters and the time trained stay as saved, so the run goes on as it
# would have in its full directory.
set -eu
D=docs/results/nnue-growth
R=runs/nnue-growth
name=${2:?usage: snapshot.sh pack|unpack NAME}
RUN=$R/$name
OUT=$D/resume/$name.tar.xz
# Samples in a chunk: the u32 at byte 16 of its header
# (shashki_selfplay::chunk).
count='import struct, sys
def samples(path):
    with open(path, "rb") as f:
        head = f.read(32)
    assert head[:8] == b"SHZCHNK\0", path
    return struct.unpack_from("<I", head, 16)[0]
'
case ${1:-} in
  pack)
    if pgrep -f -- "--run-dir $RUN( |\$)" >/dev/null; then echo "$RUN is running" >&2; exit 1; fi
    list=$(mktemp)
    python3 -c "$count
import os, tomllib
run = sys.argv[1]
window = tomllib.load(open(f'{run}/config.toml', 'rb'))['train']['window']
ckpts = os.listdir(f'{run}/checkpoints')
newest = max(f for f in ckpts if f.startswith('ckpt-') and f.endswith('.shzk'))[:-5]
files = ['config.toml', 'run.json', f'checkpoints/{newest}.shzk', f'checkpoints/{newest}.state.json']
files += sorted(f'checkpoints/{f}' for f in ckpts if f.startswith('time-'))
held = 0
for c in sorted((f for f in os.listdir(f'{run}/data') if f.startswith('chunk-')), reverse=True):
    if held >= window:
        break
    files.append(f'data/{c}')
    held += samples(f'{run}/data/{c}')
print('\n'.join(files))
" $RUN > $list
    mkdir -p $D/resume
    tar -C $RUN -cJf $OUT.tmp -T $list && mv $OUT.tmp $OUT
    echo "$OUT: $(wc -l < $list) files, $(du -h $OUT | cut -f1)"
    rm -f $list;;
  unpack)
    if [ -e $RUN ]; then echo "$RUN exists" >&2; exit 1; fi
    mkdir -p $RUN
    tar -C $RUN -xJf $OUT
    python3 -c "$count
import json, os
run = sys.argv[1]
state = max(f for f in os.listdir(f'{run}/checkpoints') if f.startswith('ckpt-') and f.endswith('.state.json'))
path = f'{run}/checkpoints/{state}'
saved = json.load(open(path))
held = sum(samples(f'{run}/data/{c}') for c in os.listdir(f'{run}/data'))
print(f'{path}: replay.ingested {saved[\"replay\"][\"ingested\"]} -> {held} (the restored chunks)')
saved['replay']['ingested'] = held
with open(path + '.tmp', 'w') as f:
    json.dump(saved, f, indent=2)
os.replace(path + '.tmp', path)
" $RUN;;
  *) echo "usage: snapshot.sh pack|unpack NAME" >&2; exit 2;;
esac
