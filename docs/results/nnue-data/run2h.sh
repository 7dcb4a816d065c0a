#!/bin/bash
# Issue 36, the run: combined-2h.toml (arms 1 and 3 on both cores) from zero
# for two hours of its own time, alone on the machine; then its curve, the
# GSPRT against models/nnue-2h at 100 ms and the 1 s matches.
# Usage, from the repository root after `cargo build --release -p shashki`
# and `target/release/shashki tb generate --pieces 5 --out tablebases`:
#   docs/results/nnue-data/run2h.sh train [SECONDS=7200]  # runs/nnue-data/run2h; rerun to resume
#   docs/results/nnue-data/run2h.sh curve                 # checkpoints every 15 min vs nnue-2h, 40 games each
#   docs/results/nnue-data/run2h.sh sprt                  # GSPRT [0, 15] logistic against nnue-2h, 100 ms
#   docs/results/nnue-data/run2h.sh 1s                    # 100 games vs nnue-2h, 40 vs ab, 40 vs diag-fast-2h
# Every match resumes from its PDN (--resume). The run's last net is
# runs/nnue-data/run2h/model, or the kept copy nets/run2h (`net` in lib.sh).
set -u
. docs/results/nnue-data/lib.sh
RUN=$R/run2h
# match NAME GAMES ME_OPTIONS OPPONENT [EXTRA...]: one match, its PDN, JSON and log here.
match() {
  local name=$1 games=$2 me=$3 opponent=$4; shift 4
  $S match "nnue:$(net run2h)@$me" "$opponent" --games $games --concurrency 2 --tablebase tablebases \
    --seed 36 --pdn $D/run2h-$name.pdn --resume --json $D/run2h-$name.json "$@" 2>&1 \
    | tee $D/logs/run2h-$name.log | tail -12
}
case ${1:-} in
  train)
    secs=${2:-7200}
    timeout -s TERM $secs $S train --config $D/combined-2h.toml --run-dir $RUN --plain 2>&1 | stamp >> $R/run2h.log
    mkdir -p $D/nets/run2h && cp $RUN/model/* $D/nets/run2h/ && cp $R/run2h.log $D/logs/;;
  curve)
    python3 $D/curve_players.py $R/run2h.log $RUN 15 "nnue:models/nnue-2h@movetime=100" "nnue-2h, 100 ms" > $D/run2h-curve.toml
    $S rate --players-file $D/run2h-curve.toml --gauntlet "nnue-2h, 100 ms" --games 40 --concurrency 2 \
      --tablebase tablebases --seed 36 --anchor "nnue-2h, 100 ms=0" --pdn $D/run2h-curve.pdn --resume \
      --json $D/run2h-curve.json --plot $D/run2h-curve.png 2>&1 | tee $D/logs/run2h-curve.log | tail -15;;
  sprt)
    match sprt-nnue2h 3000 movetime=100 "nnue:models/nnue-2h@movetime=100" --sprt 0,15;;
  1s)
    match 1s-nnue2h 100 movetime=1000 "nnue:models/nnue-2h@movetime=1000"
    match 1s-ab 40 movetime=1000 "ab:movetime=1000"
    match 1s-fast2h 40 movetime=1000 "net:models/diag-fast-2h@movetime=1000,threads=1";;
  *) echo "usage: run2h.sh train [SECONDS] | curve | sprt | 1s" >&2; exit 2;;
esac
