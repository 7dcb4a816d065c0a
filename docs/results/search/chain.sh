#!/bin/bash
# Issue 52: the selectivity techniques one at a time, each a GSPRT
# (sprt.sh) against the set kept so far, kept when H1 is accepted.
# Usage: docs/results/search/chain.sh KEPT TECHNIQUE...
#   e.g. docs/results/search/chain.sh prune lmr threat single
# (KEPT: `none` or techniques joined by `+`). Prints the set kept at the end.
set -u
D=docs/results/search
kept=$1; shift
for technique in "$@"; do
  if [ "$kept" = none ]; then new=$technique; else new=$kept+$technique; fi
  $D/sprt.sh "$technique" "$new" "$kept"
  if grep -q "H1 accepted" $D/logs/$technique.log; then kept=$new; fi
  echo "after $technique: kept $kept"
done
