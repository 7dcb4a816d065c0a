#!/bin/bash
# The resolution table of issue 34 (docs/RESULTS.md, "Telling stronger from weaker").
# Usage, from the repository root after `cargo build --release`:
#   docs/results/resolution/table.sh SEED [BOOK ...]    (BOOK: builtin openings8 40..80 80..140 140..400)
# Cells are written to runs/resolution/ and skipped when their JSON exists (resumable);
# then: (cd runs/resolution && python3 ../../docs/results/resolution/summarize.py SEED).
set -u
S=$PWD/target/release/shashki
M=$PWD
SEED=$1; shift
BOOKS=${@:-builtin openings8 40..80 80..140 140..400}
declare -A A B
A[a]="nnue:$M/models/nnue-2h@nodes=100000"; B[a]="nnue:$M/models/nnue-2h@nodes=50000"
A[b]="nnue:$M/models/nnue-2h@depth=11";     B[b]="nnue:$M/models/nnue-2h@depth=10"
A[c]="nnue:$M/models/nnue-2h@nodes=50000";  B[c]="nnue:$M/docs/results/resolution/nnue-early-step200.shzk@nodes=50000"
mkdir -p runs/resolution && cd runs/resolution
for book in $BOOKS; do
  case $book in
    builtin) open=(--openings builtin:usual); games=34;;
    openings8) open=(--openings $M/docs/results/nnue-reuse/openings8.txt); games=300;;
    *) [ -f book-$book.txt ] || $S book select --pool $M/books/pool.jsonl --band $book --part test --out book-$book.txt
       open=(--openings book-$book.txt); games=300;;
  esac
  for p in a b c; do
    out=cell-s$SEED-$p-$book
    [ -f $out.json ] && continue
    $S match "${A[$p]}" "${B[$p]}" --games $games "${open[@]}" --concurrency 2 \
      --tablebase $M/tablebases --seed $SEED --json $out.tmp.json --pdn $out.pdn > $out.log 2>&1 \
      && mv $out.tmp.json $out.json
    echo "$(date +%T) $out done rc=$?"
  done
done
