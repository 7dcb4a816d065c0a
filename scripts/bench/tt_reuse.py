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


def search_nodes(engine, moves, go, every):
    """Sends every `every`-th position of one game (2: one side's moves, as
    in a match); returns the nodes of each search."""
    send = lambda line: (engine.stdin.write(line + "\n"), engine.stdin.flush())
    send("newgame")
    nodes = []
    for ply in range(0, len(moves), every):
        send("position startpos" + (" moves " + " ".join(moves[:ply]) if ply else ""))
        send(go)
        last = 0
        while True:
            line = engine.stdout.readline()
            if not line:
                sys.exit("the engine exited")
            words = line.split()
            if words and words[0] == "info" and "nodes" in words:
                last = int(words[words.index("nodes") + 1])
            if words and words[0] == "bestmove":
                break
        nodes.append(last)
    return nodes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--engine", default="builtin")
    parser.add_argument("--pdn", required=True)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--every", type=int, default=2,
                        help="search every N-th position: 2 is one side's moves, as in a match")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds for the whole run")
    args = parser.parse_args()
    totals = {}
    for label, go in [("fresh", f"go depth {args.depth}"),
                      ("kept", f"go depth {args.depth} movetime 100000000")]:
        engine = subprocess.Popen([args.binary, "engine", "--engine", args.engine],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            per_game = [sum(search_nodes(engine, moves, go, args.every)) for moves in games(args.pdn, args.games)]
        finally:
            engine.stdin.close()
            engine.wait(timeout=args.timeout)
        totals[label] = per_game
        print(f"{label}: {sum(per_game):,} nodes over {len(per_game)} games", flush=True)
    ratios = [k / f for k, f in zip(totals["kept"], totals["fresh"]) if f]
    print("kept / fresh per game: " + " ".join(f"{r:.2f}" for r in ratios))
    print(f"kept / fresh overall: {sum(totals['kept']) / sum(totals['fresh']):.3f}")


if __name__ == "__main__":
    main()
