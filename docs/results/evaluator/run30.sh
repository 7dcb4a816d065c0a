#!/bin/bash
# Issue 54: the concurrent loop with its evaluator, measured. configs/cpu-concurrent.toml
# (MCTS) from zero for 30 minutes with the evaluator on (its default: each
# published net against ab:depth=4, 40 games, from the unbalanced book, one
# thread), then the same config without it for 10 minutes: steps and
# positions an hour of each over their first 10 minutes (same windows).
# Alone on the machine. From the repository root after `cargo build --release -p shashki`:
#   docs/results/evaluator/run30.sh with      # runs/evaluator/with (30 min)
#   docs/results/evaluator/run30.sh without   # runs/evaluator/without (10 min)
set -u
S=${SHASHKI:-$PWD/target/release/shashki}
D=docs/results/evaluator
R=runs/evaluator
mkdir -p $R $D/logs
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s)" "$line"; done; }
case ${1:-} in
  with)
    $S train --config configs/cpu-concurrent.toml --run-dir $R/with --seconds 1800 --plain 2>&1 | stamp > $R/with.log
    cp $R/with.log $R/with/ratings.jsonl $D/logs/ 2>/dev/null;;
  without)
    { cat configs/cpu-concurrent.toml; printf '\n[evaluator]\nenabled = false\n'; } > $R/without.toml
    $S train --config $R/without.toml --run-dir $R/without --seconds 600 --plain 2>&1 | stamp > $R/without.log
    cp $R/without.log $D/logs/;;
  *) echo "usage: run30.sh with | without" >&2; exit 2;;
esac
