#!/usr/bin/env python3
"""Nodes an alpha-beta engine needs to reach a fixed depth at every position
of recorded games, with a fresh transposition table per move against one
kept from the game's earlier moves. Counts nodes, not time, so the figure
does not depend on the machine's load.

    scripts/bench/tt_reuse.py --binary target/release/shashki \
        --engine nnue:models/nnue-2h --pdn docs/results/equal-time/games.pdn \
        --games 10 --depth 10 --every 2

`go depth D` starts each search from an empty table; `go depth D movetime
<huge>` is a timed search, which keeps the table (the time never runs out
first, so both reach the same depth).
"""
import argparse
import re
import subprocess
import sys
import threading
import time

MOVE = re.compile(r"^[a-h][1-8](?:[-:x][a-h][1-8])+$")


def games(pdn_path, count):
    text = open(pdn_path, encoding="utf-8").read()
    for block in re.split(r"\n(?=\[Event )", text):
        body = "\n".join(line for line in block.splitlines() if not line.startswith("["))
        body = re.sub(r"\{[^}]*\}", " ", body)
        moves = [tok for tok in body.split() if MOVE.match(tok)]
        if moves:
            yield moves
            count -= 1
            if count == 0:
                return


def searches(engine, moves, go, every):
    """Sends every `every`-th position of one game (2: one side's moves, as
    in a match) with the `go` command; yields the nodes the last `info` line
    reported and the wall seconds from `go` to `bestmove`, per search."""
    send = lambda line: (engine.stdin.write(line + "\n"), engine.stdin.flush())
    send("newgame")
    for ply in range(0, len(moves), every):
        send("position startpos" + (" moves " + " ".join(moves[:ply]) if ply else ""))
        start = time.perf_counter()
        send(go)
        last = 0
        while True:
            line = engine.stdout.readline()
            if not line:
                sys.exit("the engine exited (or the run passed its --timeout)")
            words = line.split()
            if words and words[0] == "info" and "nodes" in words:
                last = int(words[words.index("nodes") + 1])
            if words and words[0] == "bestmove":
                break
        yield last, time.perf_counter() - start


def bounded(engines, seconds):
    """Kills the engines once the run has taken `seconds`, so that a search
    that never answers ends the run instead of hanging it."""
    timer = threading.Timer(seconds, lambda: [e.kill() for e in engines])
    timer.daemon = True
    timer.start()
    return timer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--engine", default="builtin")
    parser.add_argument("--pdn", required=True)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--every", type=int, default=2,
                        help="search every N-th position: 2 is one side's moves, as in a match")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds for each of the two passes")
    args = parser.parse_args()
    totals = {}
    for label, go in [("fresh", f"go depth {args.depth}"),
                      ("kept", f"go depth {args.depth} movetime 100000000")]:
        engine = subprocess.Popen([args.binary, "engine", "--engine", args.engine],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        timer = bounded([engine], args.timeout)
        try:
            per_game = [sum(nodes for nodes, _ in searches(engine, moves, go, args.every))
                        for moves in games(args.pdn, args.games)]
        finally:
            engine.stdin.close()
            engine.wait()
            timer.cancel()
        totals[label] = per_game
        print(f"{label}: {sum(per_game):,} nodes over {len(per_game)} games", flush=True)
    ratios = [k / f for k, f in zip(totals["kept"], totals["fresh"]) if f]
    print("kept / fresh per game: " + " ".join(f"{r:.2f}" for r in ratios))
    print(f"kept / fresh overall: {sum(totals['kept']) / sum(totals['fresh']):.3f}")


if __name__ == "__main__":
    main()
