#!/usr/bin/env python3
"""Reference forward pass of a Shashki Zero NNUE model folder, numpy only.

Reads `model.json`, `model.safetensors` (float32) and
`quantized.safetensors` (integers), computes the network on each position
both ways and prints one JSON line per position:

    {"float": logit, "quantized": output_units, "cp": centi_men}

`float` matches the Rust float net within 1e-4; `quantized` and `cp` match
the engine's integer inference exactly. docs/MODEL.md documents the formats
(format version 2 adds output stacks: the dense layers in one copy per
bucket, stored bucket after bucket, chosen by the position's phase).

Usage:
    nnue_reference.py --model DIR --fen FEN
    nnue_reference.py --model DIR --fens-file FILE

Needs: python3, numpy, safetensors (`pip install numpy safetensors`).
"""

import argparse
import hashlib
import json
import os
import sys

import numpy as np
from safetensors.numpy import load_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_forward import bits, parse_fen  # noqa: E402

FORMAT = "shashki-nnue"
FORMAT_VERSIONS = (1, 2)
LAYOUT = ("stm-piece-square", 1, 128)


def load(model_dir):
    with open(os.path.join(model_dir, "model.json")) as f:
        meta = json.load(f)
    if meta.get("format") != FORMAT or meta.get("format_version") not in FORMAT_VERSIONS:
        sys.exit(f"not a {FORMAT} v1/v2 model: {meta.get('format')!r}")
    layout = meta["feature_layout"]
    if (layout["name"], layout["version"], layout["features"]) != LAYOUT:
        sys.exit(f"feature layout {layout} is not {LAYOUT}")
    for spec in meta["files"]:
        path = os.path.join(model_dir, spec["name"])
        with open(path, "rb") as f:
            data = f.read()
        if len(data) != spec["bytes"] or hashlib.sha256(data).hexdigest() != spec["sha256"]:
            sys.exit(f"{path}: size or checksum does not match model.json")
    floats = load_file(os.path.join(model_dir, "model.safetensors"))
    ints = load_file(os.path.join(model_dir, "quantized.safetensors"))
    return meta, floats, ints


def features(white, black, kings, perspective_white):
    """Active features seen from one side: 32 * kind + square, kind 0/1 own
    men/kings, 2/3 the opponent's; Black's view rotates the board."""
    own, opp = (white, black) if perspective_white else (black, white)
    out = []
    for kind, mask in enumerate((own & ~kings, own & kings, opp & ~kings, opp & kings)):
        for s in bits(mask):
            out.append(32 * kind + (s if perspective_white else 31 - s))
    return out


def bucket(stacks, white, black, kings):
    """The output stack of a position (crates/nnue/src/stacks.rs)."""
    pieces = bin(white | black).count("1")
    if stacks == "single":
        return 0
    if stacks == "phase4":
        if pieces <= 8:
            return 3
        if kings:
            return 2
        return 0 if pieces > 16 else 1
    if stacks == "pieces8":
        return (max(pieces, 1) - 1) // 3
    sys.exit(f"unknown output stacks {stacks!r}")


def perspectives(fen, stacks="single"):
    """(side to move's features, opponent's features, output bucket)."""
    white, black, kings, white_to_move = parse_fen(fen)
    own = features(white, black, kings, white_to_move)
    opp = features(white, black, kings, not white_to_move)
    return own, opp, bucket(stacks, white, black, kings)


def rows(w, name, b):
    """Bucket b's rows of a stacked tensor (buckets stored one after another)."""
    t = w[name]
    n = t.shape[0] // w["out.bias"].shape[0]
    return t[b * n:(b + 1) * n]


def forward_float(w, own, opp, b=0):
    def acc(active):
        return w["ft.bias"] + w["ft.weight"][active].sum(axis=0)

    x = np.clip(np.concatenate([acc(own), acc(opp)]), 0.0, 1.0)
    x = np.clip(rows(w, "l1.weight", b) @ x + rows(w, "l1.bias", b), 0.0, 1.0)
    x = np.clip(rows(w, "l2.weight", b) @ x + rows(w, "l2.bias", b), 0.0, 1.0)
    return float((rows(w, "out.weight", b) @ x + rows(w, "out.bias", b))[0])


def forward_quantized(q, quant, own, opp, b=0):
    shift, top = quant["dense_shift"], quant["activation_max"]

    def acc(active):
        total = q["ft.bias"].astype(np.int64) + q["ft.weight"][active].astype(np.int64).sum(axis=0)
        return (total + 32768) % 65536 - 32768  # i16 wrap, as the SIMD lanes

    def dense(name, x):
        weight = rows(q, name + ".weight", b).astype(np.int64)
        s = rows(q, name + ".bias", b).astype(np.int64) + weight @ x
        return np.clip(s >> shift, 0, top)

    x = np.clip(np.concatenate([acc(own), acc(opp)]), 0, top)
    x = dense("l1", x)
    x = dense("l2", x)
    weight = rows(q, "out.weight", b).astype(np.int64)
    out = int((rows(q, "out.bias", b).astype(np.int64) + weight @ x)[0])
    cp = out * quant["eval_cp_per_unit"] // quant["output_scale"]
    return out, cp


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--fen")
    group.add_argument("--fens-file")
    args = parser.parse_args()
    meta, floats, ints = load(args.model)
    if args.fen:
        fens = [args.fen]
    else:
        with open(args.fens_file) as f:
            fens = [line for line in f.read().splitlines() if line.strip()]
    stacks = meta["architecture"].get("stacks", "single")
    for fen in fens:
        own, opp, b = perspectives(fen, stacks)
        out, cp = forward_quantized(ints, meta["quantization"], own, opp, b)
        logit = forward_float(floats, own, opp, b)
        print(json.dumps({"float": logit, "quantized": out, "cp": cp}))


if __name__ == "__main__":
    main()
