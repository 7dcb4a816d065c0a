#!/usr/bin/env python3
"""Carries a training run to another machine in one small archive.

A run directory keeps every self-play chunk it ever wrote (gigabytes over
hours), yet resuming needs only the replay window. `pack` writes an
archive with the run's configuration and starts (`config.toml`,
`run.json`), its tensorboard events, the newest checkpoint with its state,
the checkpoints named with --keep, and the newest chunks that fill the
window (`[train] window` samples). Unpack it with `tar -xf ARCHIVE -C DIR`
and resume with `shashki train --run-dir DIR/NAME`.

The replay accounting counts samples over the whole run (samples played,
samples drawn, reuse tokens), so the newest checkpoint's state is rewritten
in the archive to count only the chunks carried: samples played become the
chunks' total and samples drawn are scaled by the same factor, which keeps
the replay ratio the concurrent learner is held to, and the tokens stay.
The games and samples the run reports (`games`, `samples`) are kept.
Chunks written after the newest checkpoint (seconds of self-play in a
concurrent run) are carried and counted as already played, so their reuse
tokens are not added again; the kept older checkpoints travel without
their state files (they are for rating, not for resuming).

Usage:
    carry_run.py pack RUN_DIR ARCHIVE.tar.zst [--keep STEP,STEP,...]
    carry_run.py steps RUN_DIR        # checkpoint steps and file times

Needs: python3 (standard library), tar and zstd.
"""

import argparse
import io
import json
import os
import struct
import subprocess
import sys
import tarfile
import tempfile
import tomllib

CHUNK_HEADER = 32


def chunk_count(path):
    """Records in a chunk file, read from its header."""
    with open(path, "rb") as f:
        head = f.read(CHUNK_HEADER)
    if len(head) < CHUNK_HEADER or head[:8] != b"SHZCHNK\0":
        raise SystemExit(f"{path}: not a chunk file")
    return struct.unpack_from("<I", head, 16)[0]


def window_chunks(data_dir, window):
    """The newest chunks holding at least `window` samples, oldest first,
    and the samples in them."""
    names = sorted(
        n for n in os.listdir(data_dir) if n.startswith("chunk-") and n.endswith(".shzc")
    )
    chosen, samples = [], 0
    for name in reversed(names):
        if samples >= window:
            break
        chosen.append(name)
        samples += chunk_count(os.path.join(data_dir, name))
    return list(reversed(chosen)), samples


def checkpoints(ckpt_dir):
    """Regular checkpoints as (step, file name), oldest first."""
    found = []
    for name in os.listdir(ckpt_dir):
        if name.startswith("ckpt-") and name.endswith(".shzk"):
            found.append((int(name[5:-5]), name))
    return sorted(found)


def carried_state(state, carried_samples):
    """The newest checkpoint's state, its replay accounting counting only
    the carried chunks."""
    replay = state["replay"]
    ingested = replay["ingested"]
    if ingested > 0 and carried_samples < ingested:
        replay["drawn"] = round(replay["drawn"] * carried_samples / ingested)
        replay["ingested"] = carried_samples
    return state


def pack(run_dir, archive, keep):
    run_dir = os.path.normpath(run_dir)
    name = os.path.basename(run_dir)
    with open(os.path.join(run_dir, "config.toml"), "rb") as f:
        window = tomllib.load(f)["train"]["window"]
    ckpt_dir = os.path.join(run_dir, "checkpoints")
    ckpts = checkpoints(ckpt_dir)
    if not ckpts:
        raise SystemExit(f"{ckpt_dir}: no checkpoint to carry")
    newest_step, newest = ckpts[-1]
    steps = dict(ckpts)
    missing = [s for s in keep if s not in steps]
    if missing:
        raise SystemExit(f"{ckpt_dir}: no checkpoint at step(s) {missing}")
    chunks, samples = window_chunks(os.path.join(run_dir, "data"), window)
    state_name = f"ckpt-{newest_step:09}.state.json"
    with open(os.path.join(ckpt_dir, state_name)) as f:
        state = carried_state(json.load(f), samples)
    partial = archive + ".partial"
    with tempfile.TemporaryDirectory() as tmp:
        plain = os.path.join(tmp, "run.tar")
        with tarfile.open(plain, "w") as tar:
            for entry in ("config.toml", "run.json", "tb"):
                path = os.path.join(run_dir, entry)
                if os.path.exists(path):
                    tar.add(path, arcname=f"{name}/{entry}")
            for step in sorted(set(keep) | {newest_step}):
                tar.add(os.path.join(ckpt_dir, steps[step]), arcname=f"{name}/checkpoints/{steps[step]}")
            body = json.dumps(state, indent=2).encode()
            info = tarfile.TarInfo(f"{name}/checkpoints/{state_name}")
            info.size, info.mtime = len(body), int(os.path.getmtime(os.path.join(ckpt_dir, newest)))
            tar.addfile(info, io.BytesIO(body))
            for chunk in chunks:
                tar.add(os.path.join(run_dir, "data", chunk), arcname=f"{name}/data/{chunk}")
        subprocess.run(["zstd", "-q", "-19", "-T0", "-f", plain, "-o", partial], check=True)
    os.replace(partial, archive)
    print(
        f"{archive}: step {newest_step}, {len(keep)} kept checkpoints, "
        f"{len(chunks)} chunks ({samples} samples, window {window}), "
        f"{os.path.getsize(archive) / 1e6:.1f} MB"
    )


def list_steps(run_dir):
    for step, name in checkpoints(os.path.join(run_dir, "checkpoints")):
        mtime = os.path.getmtime(os.path.join(run_dir, "checkpoints", name))
        print(step, int(mtime))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack")
    p.add_argument("run_dir")
    p.add_argument("archive")
    p.add_argument("--keep", default="", help="checkpoint steps to carry besides the newest")
    s = sub.add_parser("steps")
    s.add_argument("run_dir")
    args = parser.parse_args()
    if args.command == "pack":
        keep = [int(x) for x in args.keep.split(",") if x.strip()]
        pack(args.run_dir, args.archive, keep)
    else:
        list_steps(args.run_dir)


if __name__ == "__main__":
    sys.exit(main())
