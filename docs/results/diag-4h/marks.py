#!/usr/bin/env python3
"""Steps of a training run at marks of its own time, across sittings.

Each argument is one sitting's log (lines `EPOCH gen N | step S | ...`, as
`shashki train --plain` prints them with a time stamp in front) and its
start, `LOG@START_EPOCH[@END_EPOCH]` (the end: when the sitting's process
stopped; without it, its last line); the sittings' times add up, the gaps
between them do not count.

    marks.py part1.log@1796295160@1796304160 part2.log@1796400000 [--every 1800]
"""
import argparse
import re

LINE = re.compile(r"^(\d+(?:\.\d+)?) gen +(\d+) \| step +(\d+)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("parts", nargs="+", help="LOG@START_EPOCH[@END_EPOCH], one per sitting, in order")
    ap.add_argument("--every", type=float, default=1800.0, help="seconds between marks")
    args = ap.parse_args()
    offset, mark = 0.0, args.every
    last = None
    for part in args.parts:
        path, *times = part.split("@")
        start, end = float(times[0]), (float(times[1]) if len(times) > 1 else None)
        for line in open(path):
            m = LINE.match(line)
            if not m:
                continue
            own = offset + float(m.group(1)) - start
            while own >= mark and last:
                print(f"{mark / 60:6.0f} min  step {last[2]:>7}  gen {last[1]:>5}  (line at {last[0] / 60:.1f} min)")
                mark += args.every
            last = (own, int(m.group(2)), int(m.group(3)))
        if end is not None:
            offset += end - start
        elif last:
            offset = last[0]
    if last:
        print(f"{last[0] / 60:6.1f} min  step {last[2]:>7}  gen {last[1]:>5}  (the end)")


if __name__ == "__main__":
    main()
