#!/usr/bin/env python3
"""Speed of the Python package (issue 55), in one run: random playouts per
second with every ply called from Python through the package's API, against
pydraughts (variant `russian`, the version scripts/hub/requirements.txt
pins) under the same playout rules, and the environments' steps per second.

Playout rules, both libraries: from the start position, a uniformly random
legal move each ply (the same `random.Random` stream), until the side to
move has no legal move or PLIES half-moves are played; no draw rule is
judged (pydraughts' are not the official ones, ours would end games
earlier). The environments run the official draw rules.

    .venv/bin/python scripts/bench/python_playouts.py --seconds 20

Prints one JSON object: plies/s and playouts/s of each library, their
ratio, and the steps/s of the PettingZoo (both agents, random legal
actions) and Gymnasium (against a random opponent) environments.
"""

import argparse
import json
import random
import time

import draughts
import numpy as np
import shashki
from shashki.gymnasium_env import ShashkiEnv
from shashki.pettingzoo_env import env as pettingzoo_env

PLIES = 150


def shashki_playout(rng: random.Random) -> int:
    game = shashki.Game(draw_rules=False)
    for ply in range(PLIES):
        moves = game.legal_moves()
        if not moves:
            return ply
        game.play(moves[rng.randrange(len(moves))])
    return PLIES


def pydraughts_playout(rng: random.Random) -> int:
    board = draughts.Board("russian")
    for ply in range(PLIES):
        moves = board.legal_moves()
        if not moves:
            return ply
        board.push(moves[rng.randrange(len(moves))])
    return PLIES


def rate(playout, seconds: float) -> dict:
    """Playouts and plies per second over at least `seconds`."""
    rng = random.Random(55)
    playouts = plies = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or playouts == 0:
        plies += playout(rng)
        playouts += 1
    elapsed = time.perf_counter() - started
    return {
        "playouts": playouts,
        "plies": plies,
        "seconds": round(elapsed, 2),
        "playouts_per_s": round(playouts / elapsed, 2),
        "plies_per_s": round(plies / elapsed, 1),
    }


def pettingzoo_steps(seconds: float) -> float:
    env = pettingzoo_env()
    rng = np.random.default_rng(55)
    steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        env.reset(seed=int(rng.integers(1 << 30)))
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - started)


def gymnasium_steps(seconds: float) -> float:
    env = ShashkiEnv()
    rng = np.random.default_rng(55)
    steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        _, info = env.reset(seed=int(rng.integers(1 << 30)))
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            steps += 1
    return steps / (time.perf_counter() - started)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="time of each measurement (default 20)")
    args = parser.parse_args()
    ours = rate(shashki_playout, args.seconds)
    theirs = rate(pydraughts_playout, args.seconds)
    print(json.dumps({
        "ply_limit": PLIES,
        "shashki": ours,
        "pydraughts": theirs,
        "pydraughts_version": getattr(draughts, "__version__", "0.6.7 (pinned)"),
        "ratio_plies_per_s": round(ours["plies_per_s"] / theirs["plies_per_s"], 1),
        "pettingzoo_steps_per_s": round(pettingzoo_steps(args.seconds), 1),
        "gymnasium_steps_per_s": round(gymnasium_steps(args.seconds), 1),
    }, indent=2))


if __name__ == "__main__":
    main()
