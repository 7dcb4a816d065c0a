#!/bin/bash
# Issue 53, part 1: configs/nnue.toml from zero for four hours of the run's
# own time (the sequential loop: an NNUE generation spends most of its time
# in self-play, so the concurrent loop's learner core would halve the
# games), alone on the machine, over as many sittings as it takes (SIGTERM
# or Ctrl-C stops it at a safe point; `train` again resumes it, and the time
# already trained counts); the nets at 1, 2, 3 and 4 hours are kept
# (checkpoints/time-<seconds>s.shzk). Then each of them against
# models/nnue-data-2h at 100 ms a move, one thread each, two games at once,
# the unbalanced book, colours swapped, 5-piece tables, seed 53, 200 games.
# Usage, from the repository root after `cargo build --release -p shashki`
# and `target/release/shashki tb generate --pieces 5 --out tablebases`:
#   docs/results/nnue-growth/run4h.sh speed     # self-play games an hour here (before each sitting)
#   docs/results/nnue-growth/run4h.sh train     # runs/nnue-growth/run4h; rerun to resume
#   docs/results/nnue-growth/run4h.sh rate H    # the net at H hours against nnue-data-2h
#   docs/results/nnue-growth/run4h.sh growth    # the 4-hour net against the run's own 2-hour
#                                               # one: 400 games at 100 ms, seed 55
# End each sitting with `snapshot.sh pack NAME` (runs/ is outside git;
# the snapshot resumes the run on a fresh checkout: `snapshot.sh unpack`).
# SHASHKI=BINARY runs another build (a copy, so a rebuild cannot swap it
# under a running match; ratings name its commit in their log).
# RUN_NAME=NAME (default run4h) names another run; CONFIG=FILE (default
# configs/nnue.toml) gives it another recipe or seed (a resumed run keeps
# the config saved in its directory).
set -u
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/nnue-growth
R=runs/nnue-growth
NAME=${RUN_NAME:-run4h}
CONFIG=${CONFIG:-configs/nnue.toml}
RUN=$R/$NAME
mkdir -p $R $D/logs $D/nets/$NAME
# Prefixes each line with the unix time.
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s)" "$line"; done; }
# The net kept at $1 hours: in the run directory, else its copy in git.
hourly_net() {
  local mark=time-$(( $1 * 3600 ))s.shzk
  if [ -f $RUN/checkpoints/$mark ]; then echo $RUN/checkpoints/$mark; else echo $D/nets/$NAME/$mark; fi
}
# Starts a rating log naming the binary.
start_log() { echo "binary: $S ($($S --version)), checkout $(git rev-parse --short HEAD)" > $1; }
case ${1:-} in
  speed)
    out=$(mktemp -d)
    { date -u; uptime; grep -m1 "model name" /proc/cpuinfo; $S selfplay --config $CONFIG --out $out --games 256 --rounds 1 2>&1 | tail -4; } \
      | tee -a $D/logs/$NAME-speed.log
    rm -rf $out;;
  train)
    $S train --config $CONFIG --run-dir $RUN --seconds 14400 --plain 2>&1 | stamp >> $R/$NAME.log
    cp $R/$NAME.log $D/logs/
    # The hourly nets outlive the machine's runs/ here.
    cp $RUN/checkpoints/time-*s.shzk $RUN/checkpoints/time-*s.state.json $D/nets/$NAME/ 2>/dev/null;;
  rate)
    net=$(hourly_net ${2:?hours})
    log=$D/logs/$NAME-${2}h.log
    start_log $log
    $S match "nnue:$net@movetime=100" "nnue:models/nnue-data-2h@movetime=100" --games 200 \
      --concurrency 2 --tablebase tablebases --seed 53 --pdn $D/$NAME-${2}h.pdn --resume \
      --json $D/$NAME-${2}h.json 2>&1 | tee -a $log | tail -12;;
  growth)
    log=$D/logs/$NAME-4h-vs-2h.log
    start_log $log
    $S match "nnue:$(hourly_net 4)@movetime=100" "nnue:$(hourly_net 2)@movetime=100" --games 400 \
      --concurrency 2 --tablebase tablebases --seed 55 --pdn $D/$NAME-4h-vs-2h.pdn --resume \
      --json $D/$NAME-4h-vs-2h.json 2>&1 | tee -a $log | tail -12;;
  *) echo "usage: run4h.sh speed | train | rate HOURS | growth" >&2; exit 2;;
esac
