#!/usr/bin/env bash
# Rates a training run the way docs/RESULTS.md does: N checkpoints spread
# evenly over the run (the first and the last included) at 64 simulations,
# plus the fixed ladder (random, ab:depth=1, 2, 4, 6), round robin, GAMES
# games per pair (drawn openings, colours swapped).
#
#   scripts/rate_run.sh RUN_DIR [N=7] [GAMES=40] [OUT=RUN_DIR/rating]
#
# Writes OUT/ratings.json (accumulating: rerun to add games), OUT/table.json,
# OUT/table.csv, OUT/games.pdn and OUT/elo_steps.png.
set -euo pipefail
run=${1:?usage: scripts/rate_run.sh RUN_DIR [N] [GAMES] [OUT]}
n=${2:-7}
games=${3:-40}
out=${4:-$run/rating}
bin=${SHASHKI:-target/release/shashki}
mapfile -t all < <(ls "$run"/checkpoints/ckpt-*.shzk | sort)
total=${#all[@]}
if (( total < n )); then
    echo "only $total checkpoints in $run" >&2
    exit 1
fi
players=""
for ((i = 0; i < n; i++)); do
    pick=${all[$(( i * (total - 1) / (n - 1) ))]}
    players+="net:$pick@sims=64,"
done
mkdir -p "$out"
"$bin" rate --players "${players%,}" --ladder --games "$games" --concurrency "${CONCURRENCY:-0}" \
    --ratings "$out/ratings.json" --json "$out/table.json" --csv "$out/table.csv" \
    --pdn "$out/games.pdn" --plot "$out/elo_steps.png"
