#!/usr/bin/env python3
"""Runs an exported `model.onnx` with ONNX Runtime on positions and prints
one JSON line per position: for a policy/value net the same JSON as
`shashki eval --json`,

    {"wdl": [w, d, l], "policy": {"c3-d4": p, ...}}

for the NNUE (`shashki-nnue-onnx`) the float logit of the position's
output stack, `{"logit": x}` (times 200: centi-men).

Usage:
    onnx_forward.py --model model.onnx --positions FILE [--batch N]

FILE holds JSON lines `{"fen": FEN, "repetitions": N, "plies_to_draw": N}`
(the counters optional), the format of `shashki eval --positions`. The
positions are run in batches of N (default 64). Encoding, move generation
and the policy read-out are the numpy references' (reference_forward.py,
nnue_reference.py); docs/MODEL.md documents the graphs' inputs and outputs.

Needs: python3, numpy, onnxruntime (and safetensors for the NNUE).
"""

import argparse
import json
import os
import sys

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_forward import (  # noqa: E402
    encode,
    legal_moves,
    notation,
    parse_fen,
    policy_index,
    softmax,
)


def priors(logits, moves, white_to_move):
    """Softmax over the legal moves' logits; a shared index is split."""
    if not moves:
        return {}
    idx = [policy_index(m, white_to_move) for m in moves]
    chosen = logits[idx].astype(np.float64)
    share = np.array([idx.count(j) for j in idx], dtype=np.float64)
    weights = np.exp(chosen - chosen.max()) / share
    probs = weights / weights.sum()
    return {notation(m): float(p) for m, p in zip(moves, probs)}


def run_nnue(session, entries, batch_size):
    """Prints {"logit": x} per position: the logit of its output stack."""
    from nnue_reference import perspectives

    stacks = session.get_modelmeta().custom_metadata_map["stacks"]
    features = np.zeros((len(entries), 2, 128), dtype=np.float32)
    buckets = []
    for i, entry in enumerate(entries):
        own, opp, bucket = perspectives(entry["fen"], stacks)
        features[i, 0, own] = 1.0
        features[i, 1, opp] = 1.0
        buckets.append(bucket)
    for start in range(0, len(entries), batch_size):
        (logits,) = session.run(["logits"], {"features": features[start : start + batch_size]})
        for i, row in enumerate(logits):
            print(json.dumps({"logit": float(row[buckets[start + i]])}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="model.onnx")
    parser.add_argument("--positions", required=True, help="JSON lines file")
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()
    if args.batch < 1:
        parser.error("--batch must be at least 1")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    meta = session.get_modelmeta().custom_metadata_map
    with open(args.positions) as f:
        entries = [json.loads(line) for line in f if line.strip()]
    if meta.get("format") == "shashki-nnue-onnx":
        run_nnue(session, entries, args.batch)
        return
    horizon = float(meta["plies_to_draw_horizon"])
    boards = [parse_fen(e["fen"]) for e in entries]
    planes = np.stack(
        [
            encode(*b, e.get("repetitions", 1), e.get("plies_to_draw"), horizon)
            for b, e in zip(boards, entries)
        ]
    ).astype(np.float32)
    for start in range(0, len(entries), args.batch):
        batch = planes[start : start + args.batch]
        policy, wdl = session.run(["policy_logits", "wdl_logits"], {"planes": batch})
        for i in range(len(batch)):
            board = boards[start + i]
            ranked = priors(policy[i], legal_moves(*board), board[3])
            ordered = dict(sorted(ranked.items(), key=lambda kv: (-kv[1], kv[0])))
            w = softmax(wdl[i].astype(np.float64))
            print(json.dumps({"wdl": [float(v) for v in w], "policy": ordered}))


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)
