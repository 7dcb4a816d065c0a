"""Issue 69: the uniform average of a run's checkpoints (stochastic weight
averaging after the fact), written as a checkpoint with no optimiser state.

    .venv/bin/python docs/results/nnue-recipe/average.py OUT.shzk CKPT.shzk...

Reads the checkpoint layout of crates/nnue/src/checkpoint.rs (magic, version,
header JSON, safetensors weights, optimiser bytes, SHA-256) and checks each
file's digest; every input must have the same architecture.
"""

import hashlib
import json
import os
import struct
import sys

import numpy as np
from safetensors.numpy import load, save

MAGIC = b"SHZNNCK\0"


def read(path):
    data = open(path, "rb").read()
    body, digest = data[:-32], data[-32:]
    if data[:8] != MAGIC or hashlib.sha256(body).digest() != digest:
        sys.exit(f"{path}: not a verified NNUE checkpoint")
    version, hlen = struct.unpack("<II", data[8:16])
    header = json.loads(data[16 : 16 + hlen])
    start = 16 + hlen
    weights = load(data[start : start + header["weights_len"]])
    return version, header, weights


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    if not paths:
        sys.exit("usage: average.py OUT.shzk CKPT.shzk...")
    version, header, total = read(paths[0])
    total = {k: v.astype(np.float64) for k, v in total.items()}
    for path in paths[1:]:
        _, h, w = read(path)
        if h["architecture"] != header["architecture"]:
            sys.exit(f"{path}: another architecture")
        for k in total:
            total[k] += w[k]
    weights = save({k: (v / len(paths)).astype(np.float32) for k, v in total.items()})
    header = dict(header, weights_len=len(weights), optimizer_len=0)
    head = json.dumps(header, separators=(",", ":")).encode()
    body = MAGIC + struct.pack("<II", version, len(head)) + head + weights
    # Written whole, then renamed: a stopped run leaves no half checkpoint.
    with open(out + ".tmp", "wb") as f:
        f.write(body + hashlib.sha256(body).digest())
    os.replace(out + ".tmp", out)
    print(f"{out}: the mean of {len(paths)} checkpoints, {paths[0]} .. {paths[-1]}")


if __name__ == "__main__":
    main()
