"""Self-play speed alone, under `shashki train` and under the Ray driver, in
one sitting (the figures of docs/BENCHMARKS.md, "Self-play on every core and
on Ray"):

    .venv/bin/python scripts/ray/bench.py --binary target/release/shashki --config configs/cpu.toml

1. `shashki selfplay --threads T --rounds 1` at 1 and 2 threads (pos/s of
   its total line), interleaved, each `--repeat` times;
2. `shashki train --generations G` on all cores: the self-play pos/s of
   each generation line;
3. the Ray driver with 2 actors of 1 thread on a local 2-node cluster, its
   learner idle (min_samples out of reach, so it takes no CPU from the
   actors): positions of all rounds over the wall time from the first
   round to the last, and the resident memory of the Ray processes
   (raylets, GCS, agents, driver, actors; not the shashki processes).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOTAL = re.compile(r"total: (\d+) games, (\d+) positions in ([0-9.]+)s: [0-9.]+ games/s, ([0-9.]+) pos/s")
GEN = re.compile(r"gen +\d+ \| step +\d+ \| \d+ games [0-9.]+/min, (\d+) pos/s")


def selfplay_rate(binary: str, config: Path, threads: int, games: int, cwd: Path) -> float:
    out = subprocess.run(
        [binary, "selfplay", "--plain", "--config", str(config), "--rounds", "1", "--seed", "3",
         "--threads", str(threads), "--games", str(games), "--out-file", str(cwd / "bench.shzc")],
        capture_output=True, text=True, timeout=1800, cwd=cwd, check=True,
    )  # fmt: skip
    return float(TOTAL.search(out.stdout).group(4))


def train_rates(binary: str, config: Path, generations: int, cwd: Path) -> list[float]:
    out = subprocess.run(
        [binary, "train", "--plain", "--config", str(config), "--run-dir", str(cwd / "train-run"),
         "--generations", str(generations)],
        capture_output=True, text=True, timeout=3600, cwd=cwd, check=True,
    )  # fmt: skip
    return [float(m.group(1)) for m in GEN.finditer(out.stdout)]


def ray_rss_mb(venv: str) -> float:
    """Resident memory of every Ray process (not the shashki ones), in MB."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            program = cmd.split(" ")[0]
            if int(pid) == os.getpid() or program.endswith("shashki") or not ("ray::" in cmd or venv in cmd):
                continue
            status = Path(f"/proc/{pid}/status").read_text()
            total += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
        except (OSError, AttributeError):
            continue
    return total / 1024


def ray_run(binary: str, config: Path, rounds: int, games: int, cwd: Path) -> dict:
    from ray.cluster_utils import Cluster

    text = re.sub(r"(?m)^min_samples = .*$", "min_samples = 200000", config.read_text())
    idle = cwd / "ray-config.toml"
    idle.write_text(text)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    run_dir = cwd / "ray-run"
    peak = [0.0]
    done = threading.Event()

    def sample():
        while not done.wait(1.0):
            peak[0] = max(peak[0], ray_rss_mb(sys.prefix))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out = subprocess.run(
            [sys.executable, str(HERE / "driver.py"), "--address", cluster.address, "--binary", binary,
             "--config", str(idle), "--run-dir", str(run_dir), "--actors", "2", "--threads", "1",
             "--rounds", str(rounds), "--games-per-round", str(games), "--node-dir", str(cwd / "nodes")],
            capture_output=True, text=True, timeout=3600, cwd=cwd,
        )  # fmt: skip
    finally:
        done.set()
        sampler.join()
        cluster.shutdown()
    if out.returncode != 0:
        raise SystemExit(f"driver failed:\n{out.stderr[-3000:]}")
    rows = [json.loads(line) for line in (run_dir / "ray-rounds.jsonl").read_text().splitlines()]
    positions = sum(r["positions"] for r in rows)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("ray: ")][-1]
    wall_rate = float(re.search(r"pos/s (\d+)", line).group(1))
    per_actor = sum(r["positions"] / r["seconds"] for r in rows) / len(rows)
    return {
        "rounds": len(rows),
        "positions": positions,
        "pos_per_s_wall": wall_rate,
        "pos_per_s_per_round_x2": 2 * per_actor,
        "ray_rss_peak_mb": round(peak[0]),
        "line": line,
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--binary", default="target/release/shashki")
    p.add_argument("--config", default="configs/cpu.toml")
    p.add_argument("--games", type=int, default=128, help="games per self-play round")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--generations", type=int, default=3)
    p.add_argument("--ray-rounds", type=int, default=6)
    args = p.parse_args()
    binary = str(Path(args.binary).resolve())
    config = Path(args.config).resolve()
    with tempfile.TemporaryDirectory(prefix="shashki-bench-") as tmp:
        cwd = Path(tmp)
        selfplay_rate(binary, config, 2, 8, cwd)  # warm-up: tablebases, page cache
        rates = {1: [], 2: []}
        for _ in range(args.repeat):
            for threads in (1, 2):
                rates[threads].append(selfplay_rate(binary, config, threads, args.games, cwd))
        print("selfplay pos/s:", {t: [round(r) for r in v] for t, v in rates.items()}, flush=True)
        train = train_rates(binary, config, args.generations, cwd)
        print("train self-play pos/s per generation:", [round(r) for r in train], flush=True)
        ray = ray_run(binary, config, args.ray_rounds, args.games, cwd)
        print("ray:", json.dumps(ray), flush=True)
        one, two = statistics.mean(rates[1]), statistics.mean(rates[2])
        print(f"summary: 1 thread {one:.0f} pos/s, 2 threads {two:.0f} pos/s ({two / one:.2f}x); "
              f"train {statistics.mean(train):.0f}; ray 2 actors {ray['pos_per_s_wall']:.0f} wall "
              f"({ray['pos_per_s_wall'] / statistics.mean(train):.2f}x train), "
              f"Ray processes {ray['ray_rss_peak_mb']} MB at peak")  # fmt: skip


if __name__ == "__main__":
    main()
