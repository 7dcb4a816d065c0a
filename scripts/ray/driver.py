#!/usr/bin/env python3
"""Self-play on a Ray cluster: the driver of a Shashki Zero training run.

    python scripts/ray/driver.py --config configs/cpu.toml --run-dir runs/ray1 --address auto

The `shashki` binary does all the work; this driver only supervises it:

- N self-play actors (one per `--threads` CPUs of the cluster, or
  `--actors`), each restarted by Ray when it dies (`max_restarts=-1`). An
  actor runs `shashki selfplay --rounds 1 --out-file ...` on its node with
  the newest network and returns the chunk's bytes. Each new network goes
  to the actors once through Ray's object store (`ray.put`); no shared
  filesystem is needed.
- The learner is `shashki learn` on the driver's node, training on the run
  directory's data/, into which the driver writes every returned chunk
  atomically (temporary file, fsync, rename), once.
- Round r of driver start s plays the games of seed mix(seed, s, r): a
  chunk is reproducible from its seed and network (both are in
  <run-dir>/ray-rounds.jsonl), and a restarted driver never repeats a seed.
- A dead actor or node costs the round it was playing; the run goes on with
  the actors it has. The driver killed and started again resumes the run
  from its run directory (the learner resumes from its newest checkpoint).
- Every wait is bounded: --start-timeout for the learner and the actors to
  come up, --round-timeout for a round.
- Below `[run] disk_floor_gb` of free space the learner saves and stops
  (exit status 75), and the driver stops with it, with the same status;
  the same command resumes once there is room. A node without room fails
  its rounds with one message, and three of them end the run.

docs/TRAINING.md ("More than one machine") says how to start a cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

MASK64 = (1 << 64) - 1
CHUNK_MAGIC = b"SHZCHNK\0"
CHUNK_HEADER = 32
CHUNK_RECORD = 296
CHECKPOINT = re.compile(r"^ckpt-(\d+)\.shzk$")
TOTAL_LINE = re.compile(r"total: (\d+) games, (\d+) positions in ([0-9.]+)s")


class DriverError(Exception):
    """A failure the driver reports in one clear message and exits on."""


# `shashki`'s exit status when it stopped, everything saved, because its
# disk's free space fell below `[run] disk_floor_gb` (EX_TEMPFAIL).
LOW_DISK_EXIT = 75


class LowDisk(DriverError):
    """The learner stopped for want of room: the driver stops with it and
    the same exit status; the same command resumes once there is room."""


def mix(a: int, b: int) -> int:
    """SplitMix64-style mixing of two numbers (as `shashki_train::pipeline::mix`)."""
    z = (a + b * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def round_seed(run_seed: int, start: int, round_index: int) -> int:
    """The games' seed of round `round_index` of driver start `start`."""
    return mix(mix(run_seed ^ 0x5241_5953, start), round_index) & ((1 << 63) - 1)


def check_chunk(data: bytes) -> int:
    """Verifies a chunk file's bytes (magic, record size, length, CRC-32) and
    returns its number of records; raises ValueError saying what is wrong."""
    if len(data) < CHUNK_HEADER + 4 or data[:8] != CHUNK_MAGIC:
        raise ValueError("not a Shashki Zero chunk")
    record_size = int.from_bytes(data[12:16], "little")
    count = int.from_bytes(data[16:20], "little")
    if record_size != CHUNK_RECORD:
        raise ValueError(f"record size {record_size}, expected {CHUNK_RECORD}")
    if len(data) != CHUNK_HEADER + 4 + count * CHUNK_RECORD:
        raise ValueError(f"{len(data)} bytes for {count} records: truncated")
    stored = int.from_bytes(data[-4:], "little")
    if zlib.crc32(data[:-4]) != stored:
        raise ValueError("checksum mismatch")
    return count


def chunk_net_step(data: bytes) -> int:
    """The training step of the network that played a chunk's games."""
    return int.from_bytes(data[24:32], "little")


def write_atomic(path: Path, data: bytes) -> None:
    """Writes `path` whole or not at all: a temporary file named as the
    binary names its own (`.NAME.tmpPID.EXT`, which the learner removes
    when its writer is gone), fsync, rename, fsync of the directory."""
    tmp = path.with_name(f".{path.stem}.tmp{os.getpid()}{path.suffix}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def newest_checkpoint(checkpoints: Path) -> tuple[int, Path] | None:
    """The newest `ckpt-<step>.shzk` of a learner's checkpoint folder."""
    try:
        names = os.listdir(checkpoints)
    except FileNotFoundError:
        return None
    steps = [(int(m.group(1)), checkpoints / n) for n in names if (m := CHECKPOINT.match(n))]
    return max(steps) if steps else None


def node_name() -> str:
    """A short name of the node an actor runs on."""
    node_id = ray.get_runtime_context().get_node_id()
    return f"{socket.gethostname()}/{node_id[:6]}"


@ray.remote(max_restarts=-1, max_task_retries=0)
class SelfPlayActor:
    """Runs `shashki selfplay` for one round at a time on its node."""

    def __init__(self, binary: str, config_text: str, threads: int, games: int, node_dir: str, timeout: float):
        self.binary = binary
        self.threads = threads
        self.games = games
        self.timeout = timeout
        # Relative paths of the config (tablebase_dir) resolve in a folder
        # the actors of a node share, so tables are made once per node.
        self.node_dir = Path(node_dir)
        self.node_dir.mkdir(parents=True, exist_ok=True)
        os.chdir(self.node_dir)  # a relative --binary means a path on this node
        self.work = Path(tempfile.mkdtemp(prefix="actor-", dir=self.node_dir))
        self.config = self.work / "config.toml"
        self.config.write_text(config_text)
        self.net = self.work / "net.shzk"
        self.net_step = None

    def check(self) -> dict:
        """Says which node and binary this actor runs; fails clearly when the
        binary is missing or does not run there."""
        where = f"node {node_name()}"
        if shutil.which(self.binary) is None:
            raise RuntimeError(f"{where}: the shashki binary {self.binary!r} is not there (or not executable)")
        try:
            out = subprocess.run([self.binary, "--version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise RuntimeError(f"{where}: {self.binary} --version failed: {e}") from None
        if out.returncode != 0:
            raise RuntimeError(f"{where}: {self.binary} --version exited {out.returncode}: {out.stderr.strip()}")
        return {"node": node_name(), "pid": os.getpid(), "version": out.stdout.strip()}

    def play(self, round_index: int, seed: int, net_step: int, net: bytes) -> dict:
        """Plays one round with `net` (a checkpoint's bytes) and returns the
        chunk's bytes with the round's counters."""
        if self.net_step != net_step:
            self.net.write_bytes(net)
            self.net_step = net_step
        chunk = self.work / f"round-{round_index}.shzc"
        command = [
            self.binary, "selfplay", "--plain", "--progress-every", "3600",
            "--config", str(self.config), "--model", str(self.net),
            "--rounds", "1", "--seed", str(seed), "--threads", str(self.threads),
            "--out-file", str(chunk),
        ]  # fmt: skip
        if self.games:
            command += ["--games", str(self.games)]
        started = time.monotonic()
        try:
            out = subprocess.run(
                command,
                cwd=self.node_dir,
                capture_output=True,
                text=True,
                timeout=self.timeout,
                preexec_fn=stop_with_parent,
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"node {node_name()}: round {round_index} took over {self.timeout:.0f}s") from None
        seconds = time.monotonic() - started
        if out.returncode == LOW_DISK_EXIT:
            # One message whatever the free bytes, so the driver's rule of
            # three equal failures ends a run whose nodes have no room.
            raise RuntimeError(f"node {node_name()}: no room for a round (its disk is below [run] disk_floor_gb)")
        if out.returncode != 0:
            tail = "\n".join(out.stderr.strip().splitlines()[-5:])
            raise RuntimeError(f"node {node_name()}: shashki selfplay exited {out.returncode}: {tail}")
        data = chunk.read_bytes()
        chunk.unlink()
        totals = TOTAL_LINE.search(out.stdout)
        games = int(totals.group(1)) if totals else 0
        return {
            "chunk": data,
            "games": games,
            "positions": check_chunk(data),
            "seconds": seconds,
            "node": node_name(),
        }


@dataclass
class Slot:
    """One actor and what it is doing: starting (a check pending) or
    playing a round."""

    actor: object
    index: int
    ref: object = None
    kind: str = "check"  # "check" or "play"
    round_index: int = -1
    seed: int = 0
    net_step: int = 0
    since: float = field(default_factory=time.monotonic)
    ready: bool = False


@dataclass
class Totals:
    rounds: int = 0
    games: int = 0
    positions: int = 0
    lost: int = 0
    by_node: dict = field(default_factory=dict)


class Driver:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.run_dir = Path(args.run_dir).resolve()
        self.data = self.run_dir / "data"
        self.checkpoints = self.run_dir / "checkpoints"
        self.stop = False
        self.learner = None
        self.slots: list[Slot] = []
        self.totals = Totals()
        self.net = None  # (step, ObjectRef)
        self.started = time.monotonic()
        self.failures: dict[str, int] = {}

    # --- set-up -----------------------------------------------------------

    def config_text(self) -> str:
        """The run's configuration: the saved one when resuming."""
        saved = self.run_dir / "config.toml"
        path = saved if saved.is_file() else Path(self.args.config)
        try:
            return path.read_text()
        except OSError as e:
            raise DriverError(f"{path}: {e}") from None

    def begin(self) -> None:
        binary = shutil.which(self.args.binary)
        if binary is None:
            raise DriverError(f"the shashki binary {self.args.binary!r} is not on this node (give --binary PATH)")
        self.binary = binary  # the learner's; each actor resolves --binary on its own node
        text = self.config_text()
        config = tomllib.loads(text)
        self.seed = int(config.get("run", {}).get("seed", 1))
        self.start_number = self.count_start()
        global LOG_FILE
        LOG_FILE = self.run_dir / "ray.log"
        log(f"start {self.start_number} of run {self.run_dir}")
        self.data.mkdir(parents=True, exist_ok=True)
        self.start_learner()
        self.wait_for_learner()
        self.refresh_net()
        self.start_actors(self.config_text())

    def count_start(self) -> int:
        """Counts this driver start in <run-dir>/ray.json (seeds of each start differ)."""
        path = self.run_dir / "ray.json"
        info = json.loads(path.read_text()) if path.is_file() else {}
        start = int(info.get("starts", 0))
        info["starts"] = start + 1
        self.run_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(info, indent=2).encode())
        return start

    def start_learner(self) -> None:
        command = [
            self.binary, "learn", "--plain", "--config", str(Path(self.args.config).resolve()),
            "--data", str(self.data), "--run-dir", str(self.run_dir),
            "--progress-every", str(self.args.progress_every), "--device", self.args.device,
            "--poll", "1",
        ]  # fmt: skip
        if self.args.steps:
            command += ["--steps", str(self.args.steps)]
        self.learner_log = open(self.run_dir / "learn.log", "ab")
        self.learner = subprocess.Popen(
            command, stdout=self.learner_log, stderr=subprocess.STDOUT, preexec_fn=stop_with_parent
        )
        log(f"learner: pid {self.learner.pid}, log {self.run_dir / 'learn.log'}")

    def learner_tail(self) -> str:
        try:
            lines = (self.run_dir / "learn.log").read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-8:])

    def wait_for_learner(self) -> None:
        """Waits (bounded) until the learner holds the run's lock and a
        checkpoint exists; fails with its log when it exits first."""
        deadline = time.monotonic() + self.args.start_timeout
        lock = self.run_dir / "lock"
        while time.monotonic() < deadline:
            if self.learner.poll() is not None:
                if self.learner.returncode == LOW_DISK_EXIT:
                    raise LowDisk(f"the learner stopped at start for want of room:\n{self.learner_tail()}")
                raise DriverError(f"the learner exited ({self.learner.returncode}) at start:\n{self.learner_tail()}")
            try:
                holder = lock.read_text()
            except OSError:
                holder = ""
            if f"pid {self.learner.pid} " in holder and newest_checkpoint(self.checkpoints):
                return
            time.sleep(0.1)
        raise DriverError(f"the learner did not start within {self.args.start_timeout:.0f}s:\n{self.learner_tail()}")

    def actor_count(self) -> int:
        if self.args.actors:
            return self.args.actors
        cpus = int(ray.cluster_resources().get("CPU", 1))
        return max(1, cpus // self.args.threads)

    def start_actors(self, config_text: str) -> None:
        count = self.actor_count()
        for i in range(count):
            actor = SelfPlayActor.options(num_cpus=self.args.threads).remote(
                self.args.binary,
                config_text,
                self.args.threads,
                self.args.games_per_round,
                self.args.node_dir,
                self.args.round_timeout,
            )
            slot = Slot(actor=actor, index=i)
            slot.ref = actor.check.remote()
            self.slots.append(slot)
        # At least one actor must come up; binary errors stop the run.
        deadline = time.monotonic() + self.args.start_timeout
        while not any(s.ready for s in self.slots):
            if time.monotonic() > deadline:
                raise DriverError(
                    f"no self-play actor started within {self.args.start_timeout:.0f}s "
                    f"({count} actors of {self.args.threads} CPUs asked; cluster: {ray.cluster_resources()})"
                )
            self.poll(timeout=0.5, fatal_checks=True)
        log(f"{count} self-play actors of {self.args.threads} thread(s); round seeds of start {self.start_number}")

    # --- the loop ---------------------------------------------------------

    def refresh_net(self) -> None:
        """Puts the learner's newest checkpoint into the object store when it
        is newer than the one the actors have."""
        newest = newest_checkpoint(self.checkpoints)
        if newest is None or (self.net and newest[0] <= self.net[0]):
            return
        step, path = newest
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return  # pruned meanwhile; the next look finds a newer one
        self.net = (step, ray.put(data))

    def submit(self, slot: Slot) -> None:
        step, ref = self.net
        slot.round_index = self.next_round
        slot.seed = round_seed(self.seed, self.start_number, self.next_round)
        slot.net_step = step
        self.next_round += 1
        slot.kind = "play"
        slot.since = time.monotonic()
        slot.ref = slot.actor.play.remote(slot.round_index, slot.seed, step, ref)

    def poll(self, timeout: float, fatal_checks: bool = False) -> None:
        refs = [s.ref for s in self.slots if s.ref is not None]
        if not refs:
            time.sleep(timeout)
            return
        done, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout)
        done = set(done)
        for slot in self.slots:
            if slot.ref in done:
                self.finish(slot, fatal_checks)
            elif slot.kind == "play" and time.monotonic() - slot.since > self.args.round_timeout + 30:
                # The actor does not answer (its node gone without notice):
                # restart it and give its round up.
                log(f"actor {slot.index}: round {slot.round_index} timed out; restarting the actor")
                ray.kill(slot.actor, no_restart=False)
                slot.since = time.monotonic()

    def finish(self, slot: Slot, fatal_checks: bool) -> None:
        ref, kind = slot.ref, slot.kind
        slot.ref = None
        try:
            result = ray.get(ref, timeout=self.args.round_timeout)
        except (RayActorError, GetTimeoutError) as e:
            # The actor (or its node) died: its round is lost; Ray restarts
            # it where there is room, and a check says when it is back.
            if kind == "play":
                self.totals.lost += 1
                log(f"actor {slot.index}: lost round {slot.round_index} ({type(e).__name__}); waiting for its restart")
            slot.ready = False
            slot.kind = "check"
            slot.ref = slot.actor.check.remote()
            return
        except RayTaskError as e:
            message = str(e.cause) if e.cause is not None else str(e)
            if kind == "check" or fatal_checks:
                raise DriverError(message.strip()) from None
            self.totals.lost += 1
            self.failures[message] = self.failures.get(message, 0) + 1
            log(f"actor {slot.index}: round {slot.round_index} failed: {message.strip()}")
            if self.failures[message] >= 3:
                raise DriverError(f"the same failure three times: {message.strip()}")
            slot.kind = "check"
            slot.ref = slot.actor.check.remote()
            return
        if kind == "check":
            if not slot.ready:
                log(f"actor {slot.index}: on {result['node']} (pid {result['pid']}), {result['version']}")
            slot.ready = True
            return
        self.write_round(slot, result)

    def write_round(self, slot: Slot, result: dict) -> None:
        data = result["chunk"]
        check_chunk(data)  # never a half chunk in data/
        nanos = time.time_ns()
        name = f"chunk-{nanos:020d}-{os.getpid()}-{slot.round_index:06d}-{slot.seed & 0xFFFFFFFF:08x}.shzc"
        write_atomic(self.data / name, data)
        ledger = {
            "start": self.start_number,
            "round": slot.round_index,
            "seed": slot.seed,
            "net_step": chunk_net_step(data),
            "chunk": name,
            "node": result["node"],
            "games": result["games"],
            "positions": result["positions"],
            "seconds": round(result["seconds"], 3),
        }
        with open(self.run_dir / "ray-rounds.jsonl", "a") as f:
            f.write(json.dumps(ledger) + "\n")
        t = self.totals
        t.rounds += 1
        t.games += result["games"]
        t.positions += result["positions"]
        node = t.by_node.setdefault(result["node"], [0, 0.0])
        node[0] += result["positions"]
        node[1] += result["seconds"]

    def progress(self) -> None:
        t = self.totals
        elapsed = max(time.monotonic() - self.started, 1e-9)
        nodes = ", ".join(
            f"{name} {positions / elapsed:.0f}" for name, (positions, _) in sorted(t.by_node.items())
        )
        ready = sum(s.ready for s in self.slots)
        print(
            f"ray: {t.rounds} rounds, {t.games} games, {t.positions} positions | pos/s {t.positions / elapsed:.0f} "
            f"(per node: {nodes or '-'}) | net step {self.net[0]} | actors {ready}/{len(self.slots)}, "
            f"lost rounds {t.lost} | {elapsed:.0f}s",
            flush=True,
        )

    def finished(self) -> str | None:
        """Why the run should end now, if it should."""
        if self.stop:
            return "stop requested"
        if self.learner.poll() is not None:
            if self.learner.returncode == 0 and self.args.steps:
                return f"the learner reached step {self.args.steps}"
            if self.learner.returncode == LOW_DISK_EXIT:
                raise LowDisk(f"the learner saved and stopped for want of room:\n{self.learner_tail()}")
            raise DriverError(f"the learner exited ({self.learner.returncode}):\n{self.learner_tail()}")
        if self.args.rounds and self.totals.rounds >= self.args.rounds:
            return f"{self.totals.rounds} rounds played"
        if self.args.minutes and time.monotonic() - self.started > 60 * self.args.minutes:
            return f"{self.args.minutes} minutes played"
        return None

    def run(self) -> None:
        self.next_round = 0
        self.begin()
        # Rates count from here: the learner and the first actor are up.
        self.started = last_line = time.monotonic()
        while (why := self.finished()) is None:
            self.refresh_net()
            for slot in self.slots:
                playing = sum(s.kind == "play" and s.ref is not None for s in self.slots)
                rounds_left = not self.args.rounds or self.totals.rounds + playing < self.args.rounds
                if slot.ready and slot.ref is None and rounds_left:
                    self.submit(slot)
            self.poll(timeout=0.5)
            if time.monotonic() - last_line >= self.args.progress_every:
                self.progress()
                last_line = time.monotonic()
        self.progress()
        log(f"stopping: {why}")

    def shutdown(self) -> None:
        """Kills the actors (their rounds in flight are lost, nothing is
        half-written) and stops the learner, which saves its step."""
        for slot in self.slots:
            try:
                ray.kill(slot.actor, no_restart=True)
            except Exception:  # noqa: BLE001 - already gone is fine
                pass
        if self.learner is not None and self.learner.poll() is None:
            self.learner.send_signal(signal.SIGINT)
            try:
                self.learner.wait(timeout=self.args.stop_timeout)
            except subprocess.TimeoutExpired:
                log(f"the learner did not stop within {self.args.stop_timeout:.0f}s; killing it")
                self.learner.kill()
                self.learner.wait(timeout=30)
        if self.learner is not None:
            log(f"learner exited ({self.learner.returncode}); resume with the same command")


def stop_with_parent() -> None:
    """In the learner's process before exec: SIGTERM it when the driver dies
    (even by kill -9), so a restarted driver finds the run unlocked. The
    learner saves its step on SIGTERM."""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


LOG_FILE: Path | None = None


def log(line: str) -> None:
    """A driver message on stderr and in <run-dir>/ray.log."""
    text = f"ray: {line}"
    print(text, file=sys.stderr, flush=True)
    if LOG_FILE is not None:
        with open(LOG_FILE, "a") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {text}\n")


def connect(address: str) -> None:
    """Joins the Ray cluster at `address` ('auto', HOST:PORT), or starts
    one on this machine for 'local'."""
    if address == "local":
        ray.init(include_dashboard=False, logging_level="WARNING")
    else:
        ray.init(address=address, logging_level="WARNING")


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/cpu.toml", help="run configuration (a resumed run keeps its saved one)")
    p.add_argument("--run-dir", default="runs/ray", help="run directory: data/, checkpoints/, logs; resumed if it exists")
    p.add_argument(
        "--address", default="local", help="Ray cluster: 'auto', HOST:PORT or ray://..., or 'local' for one here"
    )
    p.add_argument("--binary", default="shashki", help="the shashki binary, at this path (or on PATH) on every node")
    p.add_argument("--actors", type=int, default=0, help="self-play actors (0: the cluster's CPUs / --threads)")
    p.add_argument("--threads", type=int, default=1, help="CPUs (self-play threads) per actor")
    p.add_argument(
        "--games-per-round",
        type=int,
        default=0,
        help="games an actor plays per round, in one chunk (0: the config's games_per_generation)",
    )
    p.add_argument("--steps", type=int, default=0, help="stop when the learner reaches this step (0: never)")
    p.add_argument("--rounds", type=int, default=0, help="stop after this many rounds are written (0: never)")
    p.add_argument("--minutes", type=float, default=0.0, help="stop after this many minutes (0: never)")
    p.add_argument("--device", default="cpu", help="the learner's device (shashki learn --device)")
    p.add_argument("--progress-every", type=float, default=5.0, help="seconds between progress lines")
    p.add_argument("--start-timeout", type=float, default=300.0, help="seconds for the learner and an actor to start")
    p.add_argument("--round-timeout", type=float, default=3600.0, help="seconds one round may take")
    p.add_argument("--stop-timeout", type=float, default=120.0, help="seconds the learner has to save and stop")
    p.add_argument(
        "--node-dir",
        default=os.path.join(tempfile.gettempdir(), "shashki-ray"),
        help="folder on each node where actors work (relative tablebase_dir resolves here)",
    )
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    driver = Driver(args)

    def on_signal(signum, _frame):
        if driver.stop:
            raise KeyboardInterrupt
        driver.stop = True
        log("stopping after this poll (again to quit at once)")

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        connect(args.address)
    except (ConnectionError, RuntimeError, ValueError) as e:
        log(f"cannot reach the Ray cluster at {args.address}: {e}")
        return 2
    try:
        driver.run()
        return 0
    except LowDisk as e:
        log(f"stopped: {e}")
        return LOW_DISK_EXIT
    except DriverError as e:
        log(f"error: {e}")
        return 1
    finally:
        driver.shutdown()
        ray.shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
