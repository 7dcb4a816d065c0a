#!/usr/bin/env python3
"""Distinct positions an arm's self-play produced, from its train log.

Each generation line of an alpha-beta run says its games a minute, its
samples a second and its new distinct positions an hour of self-play
(`new pos/h`: positions no earlier sample of the same process had); this
sums them over the run.
Usage: distinct.py docs/results/nnue-data/logs/ARM.log [...] (or runs/nnue-data/ARM.log)
"""
import re
import sys

LINE = re.compile(
    r"^(\d+) gen +(\d+) \| step +(\d+) \| (\d+) games ([\d.]+)/min, (\d+) pos/s,.* ([\d.]+) new pos/h"
)

print(f"{'log':32} {'gens':>5} {'steps':>6} {'games':>7} {'samples':>9} {'distinct':>9} "
      f"{'share':>6} {'selfplay h':>10} {'run h':>6} {'distinct/run h':>14}")
for path in sys.argv[1:]:
    gens = steps = games = 0
    samples = distinct = selfplay = 0.0
    first = last = None
    for line in open(path):
        m = LINE.match(line)
        if not m:
            if first is None and line[:10].isdigit():
                first = int(line.split()[0])
            continue
        t, gen, step, n, per_min, pos_s, new_h = m.groups()
        seconds = int(n) / float(per_min) * 60.0
        gens, steps, last = int(gen), int(step), int(t)
        games += int(n)
        selfplay += seconds
        samples += int(pos_s) * seconds
        distinct += float(new_h) * seconds / 3600.0
    run_h = (last - first) / 3600.0 if first and last else float("nan")
    print(f"{path:32} {gens:5} {steps:6} {games:7} {samples:9.0f} {distinct:9.0f} "
          f"{distinct / max(samples, 1):6.2f} {selfplay / 3600:10.2f} {run_h:6.2f} {distinct / run_h:14.0f}")
