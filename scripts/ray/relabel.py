#!/usr/bin/env python3
"""`shashki relabel` on a Ray cluster: deeper labels for a chunk folder.

    python scripts/ray/relabel.py --chunks runs/nnue/data --out runs/nnue/data-d13 \
        --eval models/nnue-data-2h --depth 13 --margin 100 --address auto -- --tablebase tablebases

The `shashki` binary does all the work; this driver only hands it chunks:

- N actors (one per `--threads` CPUs of the cluster, or `--actors`), each
  restarted by Ray when it dies. An actor receives one input chunk's bytes
  (and the evaluation's model folder once, through Ray's object store: no
  shared filesystem is needed), runs `shashki relabel` on it in a folder of
  its node with `--threads` threads, and returns the output chunk's bytes.
- The driver writes each returned chunk under its own name into --out
  atomically (temporary file, fsync, rename), once. A chunk already in --out
  is done: the driver killed and started again resumes where it was (a
  chunk in flight when it died is relabelled again; at most one chunk per
  actor is lost). Within one machine, `shashki relabel` itself resumes
  position by position from its journal.
- Every wait is bounded (--chunk-timeout per chunk).

Arguments after `--` go to `shashki relabel` unchanged (--screen-depth,
--tablebase PATH on the nodes, ...).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import ray

sys.path.insert(0, str(Path(__file__).resolve().parent))
import driver  # noqa: E402
from driver import check_chunk, log, node_name, stop_with_parent, write_atomic  # noqa: E402

# The actors run on nodes where `driver` is not importable: ship its code.
ray.cloudpickle.register_pickle_by_value(driver)


def folder_bytes(folder: Path) -> dict[str, bytes]:
    """The files of a model folder (or one checkpoint file), by name."""
    if folder.is_file():
        return {folder.name: folder.read_bytes()}
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@ray.remote(max_restarts=-1, max_task_retries=0)
class RelabelActor:
    """Runs `shashki relabel` on one chunk at a time on its node."""

    def __init__(self, binary: str, model: dict[str, bytes] | None, is_file: bool, args: list[str], timeout: float):
        self.binary = binary
        self.args = args
        self.timeout = timeout
        self.work = Path(tempfile.mkdtemp(prefix="relabel-actor-"))
        self.eval = "hand"
        if model is not None:
            target = self.work / "model"
            target.mkdir()
            for name, data in model.items():
                (target / name).write_bytes(data)
            self.eval = str(target / next(iter(model))) if is_file else str(target)

    def relabel(self, name: str, data: bytes) -> dict:
        """Relabels one chunk; returns the output chunk's bytes."""
        import shutil
        import subprocess

        job = self.work / "job"
        shutil.rmtree(job, ignore_errors=True)
        (job / "in").mkdir(parents=True)
        (job / "in" / name).write_bytes(data)
        command = [self.binary, "relabel", "--chunks", str(job / "in"), "--out", str(job / "out")]
        command += ["--eval", self.eval] + self.args
        started = time.monotonic()
        try:
            out = subprocess.run(
                command, capture_output=True, text=True, timeout=self.timeout, preexec_fn=stop_with_parent
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"node {node_name()}: {name} took over {self.timeout:.0f}s") from None
        if out.returncode != 0:
            tail = "\n".join(out.stderr.strip().splitlines()[-5:])
            raise RuntimeError(f"node {node_name()}: shashki relabel exited {out.returncode}: {tail}")
        result = (job / "out" / name).read_bytes()
        return {"chunk": result, "line": out.stdout.strip(), "seconds": time.monotonic() - started}


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--chunks", required=True, help="input chunk folder (on the driver's machine)")
    p.add_argument("--out", required=True, help="output chunk folder (on the driver's machine)")
    p.add_argument("--eval", default="hand", help="hand, or an NNUE model folder or checkpoint file (shipped to actors)")
    p.add_argument("--depth", type=int, default=13, help="depth of the relabelling search")
    p.add_argument("--margin", type=int, default=100, help="screen margin in centi-men")
    p.add_argument("--address", default="local", help="Ray cluster: 'auto', HOST:PORT, or 'local' for one here")
    p.add_argument("--binary", default="shashki", help="the shashki binary, at this path (or on PATH) on every node")
    p.add_argument("--actors", type=int, default=0, help="actors (0: the cluster's CPUs / --threads)")
    p.add_argument("--threads", type=int, default=1, help="CPUs (search threads) per actor")
    p.add_argument("--chunk-timeout", type=float, default=24 * 3600.0, help="seconds one chunk may take")
    args = p.parse_args(argv)
    relabel_args = ["--depth", str(args.depth), "--margin", str(args.margin), "--threads", str(args.threads)]
    return args, relabel_args + extra


def run(args: argparse.Namespace, relabel_args: list[str]) -> int:
    src, out = Path(args.chunks), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = sorted(p.name for p in src.glob("chunk-*.shzc") if not (out / p.name).exists())
    log(f"{len(todo)} chunks to relabel ({len(list(out.glob('chunk-*.shzc')))} done before)")
    model = None if args.eval == "hand" else ray.put(folder_bytes(Path(args.eval)))
    is_file = args.eval != "hand" and Path(args.eval).is_file()
    count = args.actors or max(1, int(ray.cluster_resources().get("CPU", 1)) // args.threads)
    actors = [
        RelabelActor.options(num_cpus=args.threads).remote(
            args.binary, model, is_file, relabel_args, args.chunk_timeout
        )
        for _ in range(count)
    ]
    pending: dict = {}
    free = list(actors)
    failures = 0
    while todo or pending:
        while todo and free:
            actor, name = free.pop(), todo.pop(0)
            pending[actor.relabel.remote(name, (src / name).read_bytes())] = (actor, name)
        done, _ = ray.wait(list(pending), num_returns=1, timeout=args.chunk_timeout)
        if not done:
            log("no chunk finished within --chunk-timeout: stopping (rerun to resume)")
            return 1
        actor, name = pending.pop(done[0])
        free.append(actor)
        try:
            result = ray.get(done[0])
            check_chunk(result["chunk"])
        except Exception as e:  # noqa: BLE001 (an actor's failure is reported, the run goes on)
            failures += 1
            log(f"{name}: {e}")
            if failures > 3 * len(actors):
                log("too many failures: stopping (rerun to resume)")
                return 1
            todo.append(name)
            continue
        write_atomic(out / name, result["chunk"])
        log(f"{name}: {result['line']} ({result['seconds']:.0f} s)")
    log("all chunks relabelled")
    return 0


def main(argv: list[str]) -> int:
    args, relabel_args = parse_args(argv)
    driver.connect(args.address)
    try:
        return run(args, relabel_args)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
