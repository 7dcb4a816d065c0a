#!/usr/bin/env python3
"""Reference forward pass of a Shashki Zero NNUE model folder, numpy only.

Reads `model.json`, `model.safetensors` (float32) and
`quantized.safetensors` (integers), computes the network on each position
both ways and prints one JSON line per position:

    {"float": logit, "quantized": output_units, "cp": centi_men}

`float` matches the Rust float net within 1e-4; `quantized` and `cp` match
the engine's integer inference exactly. docs/MODEL.md documents the formats.

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
FORMAT_VERSION = 1
LAYOUT = ("stm-piece-square", 1, 128)


def load(model_dir):
    with open(os.path.join(model_dir, "model.json")) as f:
        meta = json.load(f)
    if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        sys.exit(f"not a {FORMAT} v{FORMAT_VERSION} model: {meta.get('format')!r}")
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


def perspectives(fen):
    """(side to move's features, opponent's features)."""
    white, black, kings, white_to_move = parse_fen(fen)
    own = features(white, black, kings, white_to_move)
    opp = features(white, black, kings, not white_to_move)
    return own, opp


def forward_float(w, own, opp):
    def acc(active):
        return w["ft.bias"] + w["ft.weight"][active].sum(axis=0)

    x = np.clip(np.concatenate([acc(own), acc(opp)]), 0.0, 1.0)
    x = np.clip(w["l1.weight"] @ x + w["l1.bias"], 0.0, 1.0)
    x = np.clip(w["l2.weight"] @ x + w["l2.bias"], 0.0, 1.0)
    return float((w["out.weight"] @ x + w["out.bias"])[0])


def forward_quantized(q, quant, own, opp):
    shift, top = quant["dense_shift"], quant["activation_max"]

    def acc(active):
        total = q["ft.bias"].astype(np.int64) + q["ft.weight"][active].astype(np.int64).sum(axis=0)
        return (total + 32768) % 65536 - 32768  # i16 wrap, as the SIMD lanes

    def dense(name, x):
        s = q[name + ".bias"].astype(np.int64) + q[name + ".weight"].astype(np.int64) @ x
        return np.clip(s >> shift, 0, top)

    x = np.clip(np.concatenate([acc(own), acc(opp)]), 0, top)
    x = dense("l1", x)
    x = dense("l2", x)
    out = int((q["out.bias"].astype(np.int64) + q["out.weight"].astype(np.int64) @ x)[0])
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
    for fen in fens:
        own, opp = perspectives(fen)
        out, cp = forward_quantized(ints, meta["quantization"], own, opp)
        print(json.dumps({"float": forward_float(floats, own, opp), "quantized": out, "cp": cp}))


if __name__ == "__main__":
    main()
