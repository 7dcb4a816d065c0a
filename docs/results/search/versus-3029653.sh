#!/bin/bash
# Issue 52, done-when: the new built-in search against the search of commit
# 3029653 (built from it), the same net (models/nnue-data-2h, built into
# both binaries), one thread each, both as external engines over the line
# protocol (the same table size, the same process per game), 5-piece tables
# for both, the unbalanced book, colours swapped, two games at once, seed
# 5252 (fixed before the first game). Alone on the machine.
# Usage, from the repository root:
#   git worktree add ../base-3029653 3029653
#   (cd ../base-3029653 && CARGO_TARGET_DIR=../base-target cargo build --release -p shashki)
#   cargo build --release -p shashki
#   docs/results/search/versus-3029653.sh 100ms   # 800 games at 100 ms a move
#   docs/results/search/versus-3029653.sh 1s      # 200 games at 1 s a move
# NEW=BINARY and BASE=BINARY name other builds. Resumes from its PDN.
set -u
NEW=${NEW:-$PWD/target/release/shashki}
BASE=${BASE:-$PWD/../base-target/release/shashki}
D=docs/results/search
case ${1:-} in
  100ms) name=vs3029653-100ms games=800 ms=100;;
  1s) name=vs3029653-1s games=200 ms=1000;;
  *) echo "usage: versus-3029653.sh 100ms|1s" >&2; exit 2;;
esac
engine() { echo "ext:\"$1 engine --engine builtin --tablebase $PWD/tablebases\"@movetime=$ms"; }
$NEW match "$(engine $NEW)" "$(engine $BASE)" --games $games --concurrency 2 \
  --tablebase tablebases --seed 5252 --pdn $D/$name.pdn --resume --json $D/$name.json 2>&1 \
  | tee $D/logs/$name.log | tail -14
