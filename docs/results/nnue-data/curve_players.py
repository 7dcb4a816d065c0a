#!/usr/bin/env python3
"""Players file for rating a run's curve: the checkpoint each generation
ended with at every mark of own training time, against one anchor.

The train log's lines carry the unix time `arms.sh`/`run2h.sh` stamped on
them (own time leaves out gaps of over 10 minutes: a stop and a resume); a
generation line names the step its checkpoint (`checkpoints/ckpt-STEP.shzk`)
was saved at.
Usage: curve_players.py LOG RUN_DIR MINUTES_BETWEEN_MARKS ANCHOR_SPEC ANCHOR_NAME
"""
import re
import sys

log, run_dir, every, anchor_spec, anchor_name = sys.argv[1:6]
every = float(every) * 60
GEN = re.compile(r"^(\d+) gen +\d+ \| step +(\d+) \|")
ends = []  # (seconds of own time, step) of each generation
own = 0
last = None
for line in open(log):
    if not line[:10].isdigit():
        continue
    t = int(line.split()[0])
    # A gap of over 10 minutes between lines is a stop and a later resume.
    if last is not None and t - last < 600:
        own += t - last
    last = t
    m = GEN.match(line)
    if m:
        ends.append((own, int(m.group(2))))
if not ends:
    sys.exit(f"{log}: no generation lines")
marks = [(0.0, 0)]
mark = every
while mark <= ends[-1][0] + 60:
    done = [step for t, step in ends if t <= mark]
    if done and done[-1] != marks[-1][1]:
        marks.append((mark, done[-1]))
    mark += every
print(f"# The curve of {run_dir}: its checkpoint at every {every / 60:g} minutes of own")
print(f"# time (from {log}), 100 ms a move, one thread, each against {anchor_name}.")
print(f'[[player]]\nspec = "{anchor_spec}"\nname = "{anchor_name}"')
for t, step in marks:
    print(f'[[player]]\nspec = "nnue:{run_dir}/checkpoints/ckpt-{step:09d}.shzk@movetime=100"')
    print(f'name = "step {step} ({t / 60:.0f} min)"')
