# Shared by arms.sh and run2h.sh (sourced from the repository root).
S=$PWD/target/release/shashki
D=docs/results/nnue-data
R=runs/nnue-data
mkdir -p $R
# net ARM: the run's model folder, or the copy kept in nets/ARM once the run
# is gone; run2h's net was shipped as models/nnue-data-2h and is read there.
net() {
  if [ -d $R/$1/model ]; then echo $R/$1/model
  elif [ $1 = run2h ]; then echo models/nnue-data-2h
  else echo $D/nets/$1; fi
}
# Prefixes each line with the unix time (distinct.py and curve_players.py read it).
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s)" "$line"; done; }
