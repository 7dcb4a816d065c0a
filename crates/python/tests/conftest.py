"""Shared fixtures of the package's tests: the repository, the `shashki`
binary the results are compared with (`$SHASHKI_BIN`, else
target/release/shashki), and a bounded way to run it."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# Every run of the binary is bounded: a hang fails the test, not CI.
TIMEOUT = 300


def binary() -> Path:
    path = Path(os.environ.get("SHASHKI_BIN", ROOT / "target/release/shashki"))
    if not path.is_file():
        pytest.fail(f"no shashki binary at {path} (build it or set SHASHKI_BIN)")
    return path


def run_shashki(*args, stdin=None) -> str:
    """The binary's standard output; a failure shows its error output."""
    done = subprocess.run(
        [str(binary()), *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=ROOT,
    )
    assert done.returncode == 0, f"shashki {' '.join(map(str, args))}: {done.stderr}"
    return done.stdout


def json_lines(text: str) -> list:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def tables(tmp_path_factory) -> Path:
    """Endgame tables up to 3 pieces, made once for the session."""
    out = tmp_path_factory.mktemp("tablebases")
    run_shashki("tb", "generate", "--pieces", "3", "--out", out, "--quiet")
    return out
