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
import sys
import time

from tt_reuse import games


def timed_searches(engine, moves, depth, every):
    """Wall seconds of each `go depth` search over every `every`-th position
    of one game."""
    send = lambda line: (engine.stdin.write(line + "\n"), engine.stdin.flush())
    send("newgame")
    seconds = []
    for ply in range(0, len(moves), every):
        send("position startpos" + (" moves " + " ".join(moves[:ply]) if ply else ""))
        start = time.perf_counter()
        send(f"go depth {depth}")
        while True:
            line = engine.stdout.readline()
            if not line:
                sys.exit("the engine exited")
            if line.startswith("bestmove"):
                break
        seconds.append(time.perf_counter() - start)
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("entries", nargs="+", help="BINARY:THREADS")
    parser.add_argument("--engine", default="builtin")
    parser.add_argument("--pdn", required=True)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--every", type=int, default=6, help="search every N-th position")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds for each engine to exit")
    args = parser.parse_args()
    engines = []
    for entry in args.entries:
        binary, threads = entry.rsplit(":", 1)
        engines.append(subprocess.Popen(
            [binary, "engine", "--engine", args.engine, "--threads", threads],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    totals = [0.0] * len(engines)
    try:
        for moves in games(args.pdn, args.games):
            for i, engine in enumerate(engines):
                totals[i] += sum(timed_searches(engine, moves, args.depth, args.every))
    finally:
        for engine in engines:
            engine.stdin.close()
            engine.wait(timeout=args.timeout)
    for entry, total in zip(args.entries, totals):
        print(f"{entry}: {total:.2f} s to depth {args.depth}, "
              f"speed-up {totals[0] / total:.2f}x against {args.entries[0]}")


if __name__ == "__main__":
    main()
