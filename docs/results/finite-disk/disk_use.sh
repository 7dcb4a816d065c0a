#!/bin/bash
# Issue 71: what each CPU config writes a generation and an hour on this
# machine: each config trained from zero for two generations (or 240 s of
# its own time, whichever comes first), then its chunks and its run folder
# measured. Run alone: the hour follows the pace.
#   docs/results/finite-disk/disk_use.sh [BINARY] > docs/results/finite-disk/disk_use.txt
set -u
S=${1:-target/release/shashki}
T=$(mktemp -d)
trap 'rm -rf $T' EXIT
L=docs/results/finite-disk/logs
mkdir -p $L
echo "# $(date -u), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), checkout $(git rev-parse --short HEAD)"
printf '%-20s %5s %8s %12s %12s %12s %12s\n' config gens s/gen chunks/gen run/gen "chunks/hour" "ckpt each"
for c in cpu cpu-concurrent cpu-diag-wide cpu-resnet nnue nnue-2h smoke nnue-smoke; do
  d=$T/$c
  timeout 300 $S train --config configs/$c.toml --run-dir $d --generations 2 --seconds 240 --plain > $L/$c.log 2>&1
  python3 - "$c" "$d" <<'PY'
import json, os, sys, glob
name, d = sys.argv[1], sys.argv[2]
def du(p):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(p) for f in fs)
states = sorted(glob.glob(f"{d}/checkpoints/ckpt-*.state.json"))
s = json.load(open(states[-1]))
gens, secs = max(s["generation"], 1), s["seconds"]
ckpts = sorted(glob.glob(f"{d}/checkpoints/ckpt-*.shzk"))
chunks = du(f"{d}/data") / gens
print(f"{name:<20} {s['generation']:>5} {secs / gens:>8.1f} {chunks / 1e6:>9.2f} MB {du(d) / gens / 1e6:>9.2f} MB "
      f"{chunks * 3600 / (secs / gens) / 1e9:>9.2f} GB {os.path.getsize(ckpts[-1]) / 1e6:>9.2f} MB")
PY
done
