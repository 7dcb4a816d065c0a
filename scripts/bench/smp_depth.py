#!/usr/bin/env python3
"""Time to a fixed depth over positions of recorded games, for alpha-beta
engines on one or more threads: how much a second thread buys. Each entry
is BINARY:THREADS; the entries take turns game by game, so a change in the
machine's load hits them alike. Ratios are against the first entry.

    scripts/bench/smp_depth.py --engine nnue:models/nnue-2h \
        --pdn docs/results/equal-time/games.pdn --games 10 --every 6 --depth 13 \
        /work/bin/shashki-old:1 /work/bin/shashki-old:2 target/release/shashki:2

Fixed-depth searches start from an empty table, so each search stands alone.
"""
import argparse
import subprocess

from tt_reuse import bounded, games, searches


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("entries", nargs="+", help="BINARY:THREADS")
    parser.add_argument("--engine", default="builtin")
    parser.add_argument("--pdn", required=True)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--every", type=int, default=6, help="search every N-th position")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds for the whole run")
    args = parser.parse_args()
    engines = []
    for entry in args.entries:
        binary, threads = entry.rsplit(":", 1)
        engines.append(subprocess.Popen(
            [binary, "engine", "--engine", args.engine, "--threads", threads],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    timer = bounded(engines, args.timeout)
    totals = [0.0] * len(engines)
    try:
        for moves in games(args.pdn, args.games):
            for i, engine in enumerate(engines):
                go = f"go depth {args.depth}"
                totals[i] += sum(seconds for _, seconds in searches(engine, moves, go, args.every))
    finally:
        for engine in engines:
            engine.stdin.close()
            engine.wait()
        timer.cancel()
    for entry, total in zip(args.entries, totals):
        print(f"{entry}: {total:.2f} s to depth {args.depth}, "
              f"speed-up {totals[0] / total:.2f}x against {args.entries[0]}")


if __name__ == "__main__":
    main()
