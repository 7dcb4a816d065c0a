#!/usr/bin/env python3
"""`shashki match` on a Ray cluster: the pairs of one match dealt to every node.

    python scripts/ray/match.py nnue:models/a@movetime=100 nnue:models/b@movetime=100 \
        --games 800 --seed 53 --pdn match.pdn --ship models/a --ship models/b \
        --address auto -- --tablebase /data/tablebases

The `shashki` binary does all the work; this driver only deals it pairs:

- The match is the one `shashki match FIRST SECOND --games N --seed S`
  plays on one machine: the same ballot of openings, pair k with the same
  opening and the same seeds. Tasks of `--pairs-per-task` pairs (one by
  default) go to the cluster's CPUs (`--threads` each); a task runs
  `shashki match ... --pairs LIST` on its node and returns its games.
- Every returned pair is appended to the `--pdn` journal (written
  atomically, on the driver's machine) as it arrives; the journal is what
  `--resume` reads, so the driver killed and started again plays only the
  pairs missing from it.
- A task lost with its node (or its process) costs only its unfinished
  pairs: they are dealt again to the nodes left.
- The report is `shashki match --pairs 1-K --resume` over the journal, so
  it is the local command's report. With `--sprt`, the test runs over the
  pairs in ballot order, the longest run of finished pairs from the first
  (so it decides on the same pair as the local match would); at its
  decision no new task is dealt, the tasks under way are cancelled, and
  pairs played past the decision stay in the journal, uncounted.
- Files the players need (`nnue:models/a`, an opening book) travel with
  `--ship PATH` (a path relative to this folder, recreated at the same
  relative path in each node's working folder, so player names agree);
  other paths (`--tablebase` after `--`) must exist on every node. The
  binary must be at `--binary` (or on PATH) on every node.
- Every wait is bounded (--task-timeout per task).

Arguments after `--` go to every `shashki match` unchanged (--openings,
--tablebase, --max-plies, --tc, ...).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ray
from ray.exceptions import RayError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import driver  # noqa: E402
from driver import DriverError, log, node_name, stop_with_parent, write_atomic  # noqa: E402

# The tasks run on nodes where `driver` is not importable: ship its code.
ray.cloudpickle.register_pickle_by_value(driver)

TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]\s*$')
GAME_START = re.compile(r"\n\s*\n(?=\[)")


def split_games(text: str) -> list[tuple[dict[str, str], str]]:
    """The games of a PDN text, each as its tags and its own text."""
    games = []
    for part in GAME_START.split(text.strip()):
        if not part.strip():
            continue
        tags = {}
        for line in part.splitlines():
            if m := TAG.match(line.strip()):
                tags[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
        games.append((tags, part.strip() + "\n"))
    return games


def game_key(tags: dict[str, str]) -> tuple[str, str, str] | None:
    """A game's identity in the journal: White, Black, Round (`pair.leg`)."""
    try:
        return tags["White"], tags["Black"], tags["Round"]
    except KeyError:
        return None


def pair_keys(first: str, second: str, pair: int) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    """The two games of 0-based pair `pair`: `first` White in leg 1."""
    return (first, second, f"{pair + 1}.1"), (second, first, f"{pair + 1}.2")


def finished_pairs(keys: set, first: str, second: str, pairs: int) -> set[int]:
    """The pairs of the ballot with both games among `keys`."""
    return {p for p in range(pairs) if all(k in keys for k in pair_keys(first, second, p))}


def pair_list(pairs: list[int]) -> str:
    """0-based pairs as `--pairs` reads them: 1-based, runs joined."""
    runs: list[list[int]] = []
    for p in sorted(pairs):
        if runs and runs[-1][1] + 1 == p:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return ",".join(f"{a + 1}" if a == b else f"{a + 1}-{b + 1}" for a, b in runs)


def prefix(done: set[int]) -> int:
    """How many pairs from the first are all finished."""
    k = 0
    while k in done:
        k += 1
    return k


def bundle_of(paths: list[str]) -> tuple[dict[str, bytes], str]:
    """The files of the shipped paths by relative path, and their digest."""
    files: dict[str, bytes] = {}
    for text in paths:
        path = Path(text)
        if path.is_absolute() or ".." in path.parts:
            raise DriverError(f"--ship {text}: give a path inside this folder (it is recreated on the nodes)")
        if path.is_file():
            files[path.as_posix()] = path.read_bytes()
        elif path.is_dir():
            for f in sorted(p for p in path.rglob("*") if p.is_file()):
                files[f.as_posix()] = f.read_bytes()
        else:
            raise DriverError(f"--ship {text}: no such file or folder")
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return files, digest.hexdigest()[:16]


def node_folder(files: dict[str, bytes], digest: str) -> Path:
    """This node's working folder holding the shipped files, made once per
    node and bundle (in a temporary folder renamed into place)."""
    import os

    folder = Path(tempfile.gettempdir()) / f"shashki-match-{digest}"
    if folder.is_dir():
        return folder
    staging = Path(tempfile.mkdtemp(prefix=f".shashki-match-{digest}-"))
    for name, data in files.items():
        target = staging / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    try:
        os.rename(staging, folder)
    except OSError:  # another task on this node was first
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
    return folder


@ray.remote(max_retries=0)
def play_pairs(binary: str, files: dict, digest: str, match_args: list[str], pairs: str, timeout: float) -> dict:
    """Plays pairs `pairs` (as `--pairs` reads them) on this node; returns
    their PDN text, the node and the seconds taken."""
    import shutil

    work = node_folder(files, digest)
    job = Path(tempfile.mkdtemp(prefix="shashki-match-job-"))
    try:
        command = [binary, "match", *match_args, "--pairs", pairs, "--pdn", str(job / "games.pdn")]
        started = time.monotonic()
        try:
            out = subprocess.run(
                command, cwd=work, capture_output=True, text=True, timeout=timeout, preexec_fn=stop_with_parent
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"node {node_name()}: pairs {pairs} took over {timeout:.0f} s") from None
        except FileNotFoundError:
            raise RuntimeError(f"node {node_name()}: the shashki binary {binary!r} is not there") from None
        if out.returncode != 0:
            tail = "\n".join(out.stderr.strip().splitlines()[-5:])
            raise RuntimeError(f"node {node_name()}: shashki match exited {out.returncode}: {tail}")
        pdn = (job / "games.pdn").read_text()
        return {"pdn": pdn, "node": node_name(), "seconds": time.monotonic() - started}
    finally:
        shutil.rmtree(job, ignore_errors=True)


class Match:
    """One match dealt to the cluster, its journal and its reports."""

    def __init__(self, args: argparse.Namespace, passthrough: list[str]):
        self.args = args
        self.pairs = (args.games + 1) // 2
        self.journal = Path(args.pdn)
        base = [args.first, args.second, "--games", str(args.games), "--seed", str(args.seed)]
        self.node_args = base + ["--concurrency", str(args.threads)] + passthrough
        self.report_args = base + passthrough + sprt_args(args)
        self.text = self.journal.read_text() if self.journal.exists() else ""
        if self.text.strip() and not args.resume:
            raise DriverError(f"{self.journal} holds games already: --resume goes on with them (or remove it)")
        self.keys = {k for tags, _ in split_games(self.text) if (k := game_key(tags))}
        self.done = finished_pairs(self.keys, args.first, args.second, self.pairs)
        self.last_report = 0.0
        self.reported_prefix = 0

    def record(self, pdn: str, pairs: list[int]) -> None:
        """Appends the new games of a task's PDN to the journal, whole or
        not at all; raises ValueError when a pair's game is missing."""
        games = split_games(pdn)
        got = {k for tags, _ in games if (k := game_key(tags))}
        for p in pairs:
            if not all(k in got for k in pair_keys(self.args.first, self.args.second, p)):
                raise ValueError(f"pair {p + 1} came back without both its games")
        new = [(k, text) for tags, text in games if (k := game_key(tags)) and k not in self.keys]
        if new:
            text = self.text.rstrip("\n")
            text = (text + "\n\n" if text else "") + "\n".join(t for _, t in new)
            write_atomic(self.journal, text.encode())
            self.text = text
            self.keys.update(k for k, _ in new)
        self.done.update(pairs)

    def report(self, final: bool) -> dict | None:
        """`shashki match --pairs 1-K --resume` over the journal's finished
        prefix: nothing is played; returns the JSON report (and prints the
        local command's text when `final`)."""
        k = prefix(self.done)
        if k == 0:
            return None
        with tempfile.TemporaryDirectory() as tmp:
            json_out = Path(self.args.json) if final and self.args.json else Path(tmp) / "report.json"
            command = [self.args.binary, "match", *self.report_args, "--pairs", f"1-{k}"]
            command += ["--pdn", str(self.journal), "--resume", "--json", str(json_out)]
            try:
                out = subprocess.run(command, capture_output=True, text=True, timeout=self.args.task_timeout)
            except subprocess.TimeoutExpired:
                raise DriverError(f"the report over {k} pairs took over {self.args.task_timeout:.0f} s") from None
            if out.returncode != 0:
                raise DriverError(f"the report failed: {out.stderr.strip()[-2000:]}")
            if final:
                print(out.stdout, end="", flush=True)
            self.reported_prefix = k
            self.last_report = time.monotonic()
            return json.loads(json_out.read_text())

    def decided(self) -> bool:
        """True when the SPRT over the finished prefix has decided (tested
        at most every --report-every seconds, and only when the prefix grew)."""
        if self.args.sprt is None or prefix(self.done) == self.reported_prefix:
            return False
        if time.monotonic() - self.last_report < self.args.report_every and len(self.done) < self.pairs:
            return False
        report = self.report(final=False)
        status = report and report["matches"] and report["matches"][0].get("sprt")
        if status and status["decision"] != "Continue":
            log(f"SPRT {status['decision']} after {status['games']} games (LLR {status['llr']:.3f})")
            return True
        return False


def sprt_args(args: argparse.Namespace) -> list[str]:
    if args.sprt is None:
        return []
    out = ["--sprt", args.sprt, "--sprt-model", args.sprt_model]
    out += ["--sprt-alpha", str(args.sprt_alpha), "--sprt-beta", str(args.sprt_beta)]
    return out + ["--sprt-min-games", str(args.sprt_min_games)]


def run(args: argparse.Namespace, passthrough: list[str]) -> int:
    match = Match(args, passthrough)
    files, digest = bundle_of(args.ship)
    files_ref = ray.put(files)
    todo = [p for p in range(match.pairs) if p not in match.done]
    tasks = [todo[i : i + args.pairs_per_task] for i in range(0, len(todo), args.pairs_per_task)]
    log(f"{match.pairs} pairs, {len(match.done)} in {match.journal} already, {len(tasks)} tasks to deal")
    cpus = int(ray.cluster_resources().get("CPU", 1))
    window = args.window or max(1, 2 * cpus // args.threads)
    pending: dict = {}
    failures = 0
    decided = match.decided()
    while (tasks or pending) and not decided:
        while tasks and len(pending) < window:
            pairs = tasks.pop(0)
            ref = play_pairs.options(num_cpus=args.threads).remote(
                args.binary, files_ref, digest, match.node_args, pair_list(pairs), args.task_timeout
            )
            pending[ref] = pairs
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=args.task_timeout + 60)
        if not ready:
            log("no task finished within --task-timeout: stopping (rerun with --resume)")
            return 1
        pairs = pending.pop(ready[0])
        try:
            result = ray.get(ready[0])
            match.record(result["pdn"], pairs)
        except (RayError, ValueError) as e:
            failures += 1
            cause = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
            log(f"pairs {pair_list(pairs)} lost ({type(e).__name__}: {cause[:300]}): dealt again")
            if "is not there" in str(e) or failures > args.max_failures:
                log("too many lost tasks: stopping (rerun with --resume)")
                return 1
            tasks.insert(0, pairs)
            continue
        log(
            f"pairs {pair_list(pairs)} on {result['node']} in {result['seconds']:.1f} s: "
            f"{len(match.done)}/{match.pairs} pairs"
        )
        decided = match.decided()
    for ref in pending:
        ray.cancel(ref, force=True)
    if pending:
        log(f"{len(pending)} tasks under way cancelled at the decision")
    match.report(final=True)
    return 0


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("first", help="first player (results from its point of view), e.g. ab:depth=4")
    p.add_argument("second", help="second player")
    p.add_argument("--games", type=int, default=20, help="games (rounded up to whole pairs)")
    p.add_argument("--seed", type=int, default=1, help="seed of the ballot and of every player")
    p.add_argument("--pdn", required=True, help="the journal: every game, appended as its pair arrives")
    p.add_argument("--resume", action="store_true", help="go on with the games in --pdn")
    p.add_argument("--json", help="write the report's JSON here")
    p.add_argument("--sprt", metavar="ELO0,ELO1", help="stop at the decision of this GSPRT (as shashki match)")
    p.add_argument("--sprt-model", default="logistic", choices=["logistic", "normalized"])
    p.add_argument("--sprt-alpha", type=float, default=0.05)
    p.add_argument("--sprt-beta", type=float, default=0.05)
    p.add_argument("--sprt-min-games", type=int, default=40)
    p.add_argument("--ship", action="append", default=[], help="a file or folder the players need (repeatable)")
    p.add_argument("--address", default="local", help="Ray cluster: 'auto', HOST:PORT, or 'local' for one here")
    p.add_argument("--binary", default="shashki", help="the shashki binary, at this path (or on PATH) on every node")
    p.add_argument("--threads", type=int, default=1, help="CPUs per task (games it plays at once)")
    p.add_argument("--pairs-per-task", type=int, default=1, help="pairs a task plays (lost with it if its node dies)")
    p.add_argument("--window", type=int, default=0, help="tasks dealt at once (0: twice the cluster's CPUs / --threads)")
    p.add_argument("--task-timeout", type=float, default=3600.0, help="seconds one task may take")
    p.add_argument("--report-every", type=float, default=5.0, help="seconds between SPRT checks")
    p.add_argument("--max-failures", type=int, default=20, help="lost tasks tolerated before stopping")
    args = p.parse_args(argv)
    if args.games < 1 or args.threads < 1 or args.pairs_per_task < 1:
        p.error("--games, --threads and --pairs-per-task must be at least 1")
    for option in ("--pairs", "--pdn", "--resume", "--json", "--concurrency", "--ratings", "--sprt"):
        if any(a == option or a.startswith(option + "=") for a in extra):
            p.error(f"{option} after -- : the driver sets it (give it before --, or not at all)")
    return args, extra


def main(argv: list[str]) -> int:
    args, passthrough = parse_args(argv)
    driver.connect(args.address)
    try:
        return run(args, passthrough)
    except DriverError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        ray.shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
