"""Matches and relabelling on a real multi-node Ray cluster on this machine
(`ray.cluster_utils.Cluster`, three nodes of 1 CPU each): a match dealt to
the nodes equals the local `shashki match` game for game, the driver killed
and resumed plays only what its journal lacks, `--sprt` stops the cluster
on the local match's decision, a node lost mid-match costs only its
unfinished pairs, and `relabel.py` writes the chunks one machine writes.

Run by `cargo test --release --test ray_jobs` (tests/ray_jobs.rs), which
sets SHASHKI_BIN; by hand, from the repository root:

    SHASHKI_BIN=target/release/shashki .venv/bin/python -m pytest -q scripts/ray/test_match.py
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
from match import finished_pairs, game_key, split_games  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("SHASHKI_BIN", str(REPO / "target/release/shashki"))
MATCH = Path(__file__).parent / "match.py"
RELABEL = Path(__file__).parent / "relabel.py"
RUN_TIMEOUT = 300
# A net shipped to the nodes (a relative path: player names must agree).
FIRST, SECOND = "nnue:models/nnue-data-2h@depth=3", "ab:depth=3"
GAMES, SEED = 24, 7


def games_by_key(path: Path) -> dict:
    """A PDN file's games by (White, Black, Round), without the Date tag."""
    text = path.read_text()
    out = {}
    for tags, game in split_games(text):
        key = game_key(tags)
        assert key not in out, f"{key} twice in {path}"
        out[key] = re.sub(r'(?m)^\[Date "[^"]*"\]\n', "", game)
    return out


def run(command: list, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=REPO, **kw)
    print(out.stdout[-3000:], out.stderr[-4000:], sep="\n")
    return out


def cluster_match(address: str, pdn: Path, *extra: str, games: int = GAMES, first=FIRST, second=SECOND) -> list:
    return [
        sys.executable, str(MATCH), first, second, "--games", str(games), "--seed", str(SEED),
        "--pdn", str(pdn), "--address", address, "--binary", BIN, "--ship", "models/nnue-data-2h",
        "--task-timeout", "120", *extra,
    ]  # fmt: skip


def local_match(pdn: Path, json_out: Path, *extra: str, games: int = GAMES, first=FIRST, second=SECOND) -> list:
    return [
        BIN, "match", first, second, "--games", str(games), "--seed", str(SEED), "--concurrency", "2",
        "--pdn", str(pdn), "--json", str(json_out), *extra,
    ]  # fmt: skip


def figures(json_path: Path) -> dict:
    report = json.loads(json_path.read_text())["matches"][0]
    return {k: report[k] for k in ("games", "wdl", "pentanomial", "sprt")}


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The match played here, as `shashki match` plays it."""
    tmp = tmp_path_factory.mktemp("local")
    out = run(local_match(tmp / "local.pdn", tmp / "local.json"))
    assert out.returncode == 0, out.stderr
    (tmp / "local.out").write_text(out.stdout)
    return tmp


def test_a_cluster_match_equals_the_local_match_game_for_game(cluster, local, tmp_path):
    pdn, json_out = tmp_path / "cluster.pdn", tmp_path / "cluster.json"
    out = run(cluster_match(cluster.address, pdn, "--json", str(json_out)))
    assert out.returncode == 0, out.stderr
    assert games_by_key(pdn) == games_by_key(local / "local.pdn")
    assert figures(json_out) == figures(local / "local.json")
    nodes = set(re.findall(r"pairs \S+ on (\S+) in", out.stderr))
    assert len(nodes) >= 2, f"pairs played on several nodes: {nodes}"
    # The report is the local command's, word for word.
    assert out.stdout == (local / "local.out").read_text()


def test_the_driver_killed_and_resumed_plays_only_what_its_journal_lacks(cluster, local, tmp_path):
    pdn = tmp_path / "cluster.pdn"
    first = subprocess.Popen(cluster_match(cluster.address, pdn), cwd=REPO, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        while not (pdn.exists() and len(split_games(pdn.read_text())) >= 4):
            assert time.monotonic() < deadline, "no pairs in the journal"
            time.sleep(0.1)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
    before = set(games_by_key(pdn))
    again = run(cluster_match(cluster.address, pdn))
    assert again.returncode == 1 and "--resume" in again.stderr, "a journal with games needs --resume"
    again = run(cluster_match(cluster.address, pdn, "--resume"))
    assert again.returncode == 0, again.stderr
    played = re.findall(r"pairs (\S+) on \S+ in", again.stderr)
    done_before = finished_pairs(before, FIRST, SECOND, GAMES // 2)
    assert len(played) == GAMES // 2 - len(done_before), "only the missing pairs were played"
    assert games_by_key(pdn) == games_by_key(local / "local.pdn")


def test_sprt_stops_the_cluster_on_the_local_decision(cluster, tmp_path):
    sprt = ["--sprt", "0,100"]
    players = {"first": "ab:depth=3", "second": "random", "games": 400}
    out = run(local_match(tmp_path / "local.pdn", tmp_path / "local.json", *sprt, **players))
    assert out.returncode == 0, out.stderr
    local = figures(tmp_path / "local.json")
    assert local["sprt"]["decision"] == "AcceptH1" and local["games"] < 400
    pdn, json_out = tmp_path / "cluster.pdn", tmp_path / "cluster.json"
    # An SPRT check after every pair that extends the finished run.
    out = run(cluster_match(cluster.address, pdn, "--json", str(json_out), "--report-every", "0", *sprt, **players))
    assert out.returncode == 0, out.stderr
    assert figures(json_out) == local
    assert "SPRT AcceptH1" in out.stderr
    assert len(games_by_key(pdn)) < 400 // 2, "the cluster stopped long before the end"


def _chunks(tmp: Path) -> Path:
    """Three chunks of alpha-beta self-play at depth 2 (configs/nnue-smoke.toml)."""
    folder = tmp / "chunks"
    folder.mkdir()
    for seed in (1, 2, 3):
        out = run(
            [BIN, "selfplay", "--plain", "--config", "configs/nnue-smoke.toml", "--rounds", "1", "--games", "4",
             "--seed", str(seed), "--threads", "1", "--out-file", str(folder / f"chunk-00000{seed}.shzc")]
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
    return folder


def test_relabel_on_the_cluster_writes_the_chunks_one_machine_writes(cluster, tmp_path):
    chunks = _chunks(tmp_path)
    labels = ["--depth", "5", "--margin", "30"]
    single = run([BIN, "relabel", "--chunks", str(chunks), "--out", str(tmp_path / "single"), "--threads", "1", *labels])
    assert single.returncode == 0, single.stderr
    spread = run(
        [sys.executable, str(RELABEL), "--chunks", str(chunks), "--out", str(tmp_path / "cluster"),
         "--address", cluster.address, "--binary", BIN, "--chunk-timeout", "120", *labels]
    )  # fmt: skip
    assert spread.returncode == 0, spread.stderr
    names = sorted(p.name for p in chunks.iterdir())
    for name in names:
        a, b = (tmp_path / "single" / name).read_bytes(), (tmp_path / "cluster" / name).read_bytes()
        assert a == b, f"{name} relabelled on the cluster equals the single machine's"
    assert "all chunks relabelled" in spread.stderr


def busy_worker(cluster, driver_log: Path):
    """A worker node that has finished no pair yet, so one is in flight on it
    (the node that finished the first pair may be between two tasks, and a
    task not yet started there is only scheduled elsewhere, not lost)."""
    finished = set(re.findall(r"pairs \S+ on \S+/(\w+) in", driver_log.read_text()))
    busy = [n for n in cluster.worker_nodes if n.node_id[:6] not in finished]
    assert busy, f"every worker finished a pair already: {finished}"
    return busy[0]


def test_a_node_lost_mid_match_costs_only_its_unfinished_pairs(cluster, tmp_path):
    """Runs last: it removes a node from the module's cluster."""
    pdn = tmp_path / "cluster.pdn"
    # Pairs of about 2.5 s (fixed nodes: deterministic), so each node has
    # one in flight when one goes.
    slow = {"first": "ab:nodes=100000", "second": "ab:nodes=50000", "games": 16}
    with open(tmp_path / "driver.err", "w") as err:
        proc = subprocess.Popen(cluster_match(cluster.address, pdn, **slow), cwd=REPO, stderr=err)
        try:
            deadline = time.monotonic() + RUN_TIMEOUT
            while not re.search(r"pairs \S+ on ", (tmp_path / "driver.err").read_text()):
                assert time.monotonic() < deadline, "no pair finished"
                assert proc.poll() is None, (tmp_path / "driver.err").read_text()[-4000:]
                time.sleep(0.1)
            cluster.remove_node(busy_worker(cluster, tmp_path / "driver.err"), allow_graceful=False)
            proc.wait(timeout=RUN_TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    log = (tmp_path / "driver.err").read_text()
    print(log[-4000:])
    assert proc.returncode == 0, log
    lost = re.findall(r"pairs (\S+) lost", log)
    assert lost, "the removed node's pair in flight was lost"
    assert len(games_by_key(pdn)) == 16, "every pair once, the lost ones played again elsewhere"
    # A lost pair, dealt again, is the pair the local match plays.
    again = tmp_path / "again.pdn"
    out = run(local_match(again, tmp_path / "again.json", "--pairs", lost[0], **slow))
    assert out.returncode == 0, out.stderr
    cluster_games = games_by_key(pdn)
    for key, game in games_by_key(again).items():
        assert cluster_games[key] == game
