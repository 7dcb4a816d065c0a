#!/bin/bash
# Issue 36, the run: configs/nnue.toml (arms 1 and 3 on both cores; the
# recipe this run made the default, then named combined-2h.toml) from zero
# for two hours of its own time, alone on the machine; then its curve, the
# GSPRT against models/nnue-2h at 100 ms and the 1 s matches.
# Usage, from the repository root after `cargo build --release -p shashki`
# and `target/release/shashki tb generate --pieces 5 --out tablebases`:
#   docs/results/nnue-data/run2h.sh train [SECONDS=7200]  # runs/nnue-data/run2h; rerun to resume
#   docs/results/nnue-data/run2h.sh curve                 # checkpoints every 15 min vs nnue-2h, 40 games each
#   docs/results/nnue-data/run2h.sh sprt                  # GSPRT [0, 15] logistic against nnue-2h, 100 ms
#   docs/results/nnue-data/run2h.sh 1s                    # 100 games vs nnue-2h, 40 vs ab, 40 vs diag-fast-2h
# Every match resumes from its PDN (--resume). The run's last net is
# runs/nnue-data/run2h/model, or models/nnue-data-2h where it was shipped
# (`net` in lib.sh; other names keep a copy in nets/NAME);
# the curve's checkpoints are kept in nets/run2h-curve. RUN_NAME=run2h-b
# names a second run of the same recipe (its own folders, logs and files).
set -u
. docs/results/nnue-data/lib.sh
NAME=${RUN_NAME:-run2h}
RUN=$R/$NAME
# match NAME GAMES ME_OPTIONS OPPONENT [EXTRA...]: one match, its PDN, JSON and log here.
match() {
  local name=$1 games=$2 me=$3 opponent=$4; shift 4
  $S match "nnue:$(net $NAME)@$me" "$opponent" --games $games --concurrency 2 --tablebase tablebases \
    --seed 36 --pdn $D/$NAME-$name.pdn --resume --json $D/$NAME-$name.json "$@" 2>&1 \
    | tee $D/logs/$NAME-$name.log | tail -12
}
# curve_players DIR: the curve's players file, checkpoints under DIR/checkpoints.
curve_players() {
  python3 $D/curve_players.py $D/logs/$NAME.log $1 15 "nnue:models/nnue-2h@movetime=100" "nnue-2h, 100 ms"
}
case ${1:-} in
  train)
    secs=${2:-7200}
    timeout -s TERM $secs $S train --config configs/nnue.toml --run-dir $RUN --plain 2>&1 | stamp >> $R/$NAME.log
    mkdir -p $D/nets/$NAME-curve/checkpoints && cp $R/$NAME.log $D/logs/
    [ $NAME = run2h ] || { mkdir -p $D/nets/$NAME && cp $RUN/model/* $D/nets/$NAME/; }
    # The curve's checkpoints (~300 kB each with the optimizer state) outlive the machine's runs/ here.
    curve_players $RUN | sed -n 's#^spec = "nnue:\(.*/checkpoints/[^@]*\)@.*#\1#p' \
      | xargs -r cp -t $D/nets/$NAME-curve/checkpoints;;
  curve)
    dir=$RUN; [ -d $RUN/checkpoints ] || dir=$D/nets/$NAME-curve
    curve_players $dir > $D/$NAME-curve.toml
    $S rate --players-file $D/$NAME-curve.toml --gauntlet "nnue-2h, 100 ms" --games 40 --concurrency 2 \
      --tablebase tablebases --seed 36 --anchor "nnue-2h, 100 ms=0" --pdn $D/$NAME-curve.pdn --resume \
      --json $D/$NAME-curve.json --plot $D/$NAME-curve.png 2>&1 | tee $D/logs/$NAME-curve.log | tail -15;;
  sprt)
    match sprt-nnue2h 3000 movetime=100 "nnue:models/nnue-2h@movetime=100" --sprt 0,15;;
  1s)
    match 1s-nnue2h 100 movetime=1000 "nnue:models/nnue-2h@movetime=1000"
    match 1s-ab 40 movetime=1000 "ab:movetime=1000"
    match 1s-fast2h 40 movetime=1000 "net:models/diag-fast-2h@movetime=1000,threads=1";;
  *) echo "usage: run2h.sh train [SECONDS] | curve | sprt | 1s" >&2; exit 2;;
esac
