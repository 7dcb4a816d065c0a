"""The Ray driver on a real multi-node Ray cluster on this machine
(`ray.cluster_utils.Cluster`, nodes of 1 CPU each): smoke runs of both
engine families, faults (an actor killed with kill -9, a node removed, the
driver killed and restarted, a binary missing on the nodes) and the
reproducibility of a round's games from its seed.

Run by `cargo test --release --test ray_cluster` (tests/ray_cluster.rs),
which sets SHASHKI_BIN; by hand:

    SHASHKI_BIN=target/release/shashki .venv/bin/python -m pytest -q scripts/ray/test_cluster.py
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from driver import chunk_net_step, check_chunk  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("SHASHKI_BIN", str(REPO / "target/release/shashki"))
DRIVER = Path(__file__).parent / "driver.py"
# Every run here is bounded; a hang fails the test instead of CI.
RUN_TIMEOUT = 300


def config(tmp: Path, base: str, **replace: str) -> Path:
    """A copy of configs/<base> with some `key = value` lines replaced."""
    text = (REPO / "configs" / base).read_text()
    for key, value in replace.items():
        text, n = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text)
        assert n == 1, f"{key} not in {base}"
    path = tmp / base
    path.write_text(text)
    return path


def driver_command(address: str, cfg: Path, run_dir: Path, *extra: str, binary: str = BIN) -> list[str]:
    return [
        sys.executable, str(DRIVER), "--address", address, "--binary", binary,
        "--config", str(cfg), "--run-dir", str(run_dir), "--threads", "1",
        "--progress-every", "1", "--start-timeout", "120", "--round-timeout", "120",
        "--stop-timeout", "60", "--node-dir", str(run_dir.parent / "nodes"), *extra,
    ]  # fmt: skip


def run_driver(address: str, cfg: Path, run_dir: Path, *extra: str, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(
        driver_command(address, cfg, run_dir, *extra, **kw),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        cwd=run_dir.parent,
    )
    print(out.stdout[-3000:], out.stderr[-6000:], sep="\n")
    return out


def ledger(run_dir: Path) -> list[dict]:
    path = run_dir / "ray-rounds.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def assert_data_whole(run_dir: Path) -> list[Path]:
    """Every chunk in data/ passes its checks, no temporary file is left,
    and every chunk is a round of the ledger, written once."""
    files = sorted((run_dir / "data").iterdir())
    chunks = [f for f in files if f.name.startswith("chunk-")]
    assert chunks and len(chunks) == len(files), f"stray files: {files}"
    for chunk in chunks:
        assert check_chunk(chunk.read_bytes()) > 0, chunk
    rows = ledger(run_dir)
    assert sorted(r["chunk"] for r in rows) == sorted(c.name for c in chunks)
    rounds = [(r["start"], r["round"]) for r in rows]
    assert len(set(rounds)) == len(rounds), "a round written twice"
    assert len({r["seed"] for r in rows}) == len(rows), "a seed used twice"
    return chunks


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def mcts_run(cluster, tmp_path_factory):
    """An MCTS smoke run on three actors for 15 s (shared by tests): its
    rounds take tens of milliseconds, so a count of rounds could end before
    the learner (slower to start) sends out its first net."""
    tmp = tmp_path_factory.mktemp("mcts")
    cfg = config(tmp, "smoke.toml", keep_checkpoints="1000", generations="0")
    run_dir = tmp / "run"
    out = run_driver(cluster.address, cfg, run_dir, "--minutes", "0.25")
    return out, run_dir


def test_mcts_smoke_run_writes_chunks_and_trains(mcts_run):
    out, run_dir = mcts_run
    assert out.returncode == 0, out.stderr
    chunks = assert_data_whole(run_dir)
    assert len(chunks) >= 24
    rows = ledger(run_dir)
    assert len({r["node"] for r in rows}) >= 2, "rounds ran on several nodes"
    assert max(chunk_net_step(c.read_bytes()) for c in chunks) > 0, "a newer net reached the actors"
    steps = [int(m.group(1)) for m in re.finditer(r"ckpt-(\d+)\.shzk", " ".join(os.listdir(run_dir / "checkpoints")))]
    assert max(steps) > 0, "the learner trained"
    assert re.search(r"ray: \d+ rounds, \d+ games, \d+ positions \| pos/s \d+ \(per node: ", out.stdout)
    assert "net step" in out.stdout


def test_rounds_are_reproducible_from_their_seed(mcts_run, tmp_path):
    _, run_dir = mcts_run

    def model(row: dict) -> Path:
        return run_dir / "checkpoints" / f"ckpt-{row['net_step']:09d}.shzk"

    # The rounds whose net is still kept (the learner keeps its newest 1,000).
    rows = [row for row in ledger(run_dir) if model(row).exists()]
    by_node = {}
    for row in rows:
        by_node.setdefault(row["node"], row)
    assert len(by_node) >= 2, "kept rounds from two nodes"
    for row in list(by_node.values())[:2]:
        again = tmp_path / f"again-{row['round']}.shzc"
        subprocess.run(
            [BIN, "selfplay", "--plain", "--config", str(run_dir / "config.toml"), "--model", str(model(row)),
             "--rounds", "1", "--seed", str(row["seed"]), "--threads", "1", "--out-file", str(again)],
            check=True, capture_output=True, timeout=RUN_TIMEOUT,
        )  # fmt: skip
        original = (run_dir / "data" / row["chunk"]).read_bytes()
        assert again.read_bytes() == original, f"round {row['round']} from {row['node']} replays byte for byte"
    first, second = rows[0], rows[1]
    a = (run_dir / "data" / first["chunk"]).read_bytes()
    b = (run_dir / "data" / second["chunk"]).read_bytes()
    assert a != b, "two seeds, two sets of games"


def test_nnue_smoke_run_writes_chunks_and_trains(cluster, tmp_path):
    cfg = config(tmp_path, "nnue-smoke.toml", keep_checkpoints="1000", generations="0")
    run_dir = tmp_path / "run"
    # Alpha-beta at depth 2 plays a round in a blink: run 15 s, so the
    # learner (slower to start) has time to send its nets out.
    out = run_driver(cluster.address, cfg, run_dir, "--minutes", "0.25")
    assert out.returncode == 0, out.stderr
    chunks = assert_data_whole(run_dir)
    assert len(chunks) >= 6
    assert max(chunk_net_step(c.read_bytes()) for c in chunks) > 0, "a newer net reached the actors"
    assert (run_dir / "model").is_dir(), "the NNUE learner exports its model folder"


def test_a_binary_missing_on_the_nodes_is_a_clear_error(cluster, tmp_path):
    cfg = config(tmp_path, "smoke.toml")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    # The driver's node has ./shashki (in its working folder); the actors,
    # working in --node-dir, do not.
    os.symlink(BIN, tmp_path / "shashki")
    started = time.monotonic()
    out = run_driver(cluster.address, cfg, run_dir, "--rounds", "3", binary="./shashki")
    assert out.returncode == 1
    assert "the shashki binary './shashki' is not there" in out.stderr
    assert time.monotonic() - started < 120, "an error at start, not a hang"
    assert not list((run_dir / "data").glob("chunk-*")), "nothing played"


def test_driver_killed_and_restarted_resumes_the_run(cluster, tmp_path):
    cfg = config(tmp_path, "smoke.toml", keep_checkpoints="1000", generations="0")
    run_dir = tmp_path / "run"
    first = subprocess.Popen(
        driver_command(cluster.address, cfg, run_dir, "--rounds", "1000"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    try:
        wait_for(lambda: len(ledger(run_dir)) >= 2, RUN_TIMEOUT, "two rounds")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
    before = len(ledger(run_dir))
    # The learner goes with its driver (SIGTERM on the parent's death).
    wait_for(lambda: "pid" not in _lock_holder(run_dir), 60, "the learner to stop")
    out = run_driver(cluster.address, cfg, run_dir, "--rounds", "3")
    assert out.returncode == 0, out.stderr
    rows = ledger(run_dir)
    assert len(rows) >= before + 3
    assert {r["start"] for r in rows} == {0, 1}
    assert "resuming from" in (run_dir / "learn.log").read_text()
    assert json.loads((run_dir / "ray.json").read_text())["starts"] == 2
    assert_data_whole(run_dir)


def _lock_holder(run_dir: Path) -> str:
    """The lock's holder text, or '' when no process holds the lock."""
    import fcntl

    try:
        with open(run_dir / "lock") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return f.read()
            fcntl.flock(f, fcntl.LOCK_UN)
            return ""
    except FileNotFoundError:
        return ""


def test_a_killed_actor_and_a_dead_node_cost_at_most_their_rounds(cluster, tmp_path):
    """Runs last: it removes a node from the module's cluster."""
    cfg = config(tmp_path, "smoke.toml", keep_checkpoints="1000", generations="0")
    run_dir = tmp_path / "run"
    with open(tmp_path / "driver.out", "w") as out:
        proc = subprocess.Popen(
            driver_command(cluster.address, cfg, run_dir, "--rounds", "30"),
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
        )
        try:
            wait_for(lambda: len(ledger(run_dir)) >= 2, RUN_TIMEOUT, "two rounds")
            # kill -9 one actor's process: Ray restarts it on its node.
            pid = int(re.findall(r"\(pid (\d+)\)", (run_dir / "ray.log").read_text())[0])
            os.kill(pid, signal.SIGKILL)
            wait_for(lambda: len(ledger(run_dir)) >= 5, RUN_TIMEOUT, "five rounds")
            # A whole worker node dies: its actor waits for room, the run goes on.
            cluster.remove_node(cluster.list_all_nodes()[-1], allow_graceful=False)
            proc.wait(timeout=RUN_TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    log = (run_dir / "ray.log").read_text()
    print((tmp_path / "driver.out").read_text()[-6000:])
    assert proc.returncode == 0, log
    chunks = assert_data_whole(run_dir)
    assert len(chunks) == 30, "the run went on to the end with the actors it had"
    assert log.count("lost round") >= 1, "the killed actor's round is given up"
    assert log.count("(pid ") >= 4, "the killed actor came back (three actors, one restart at least)"


def test_a_disk_below_the_floor_stops_the_driver_cleanly(cluster, tmp_path):
    cfg = tmp_path / "floor.toml"
    text = (REPO / "configs" / "nnue-smoke.toml").read_text()
    cfg.write_text(text.replace("[run]\n", "[run]\ndisk_floor_gb = 1000000.0\n", 1))
    run_dir = tmp_path / "run"
    started = time.monotonic()
    out = run_driver(cluster.address, cfg, run_dir, "--minutes", "1")
    assert out.returncode == 75, out.stderr
    assert "for want of room" in out.stderr
    assert "below the floor of" in out.stderr
    assert time.monotonic() - started < 120, "a stop at once, not the minute"
