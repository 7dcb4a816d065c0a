"""Self-play chunks read in Python equal what the Rust chunk reader reads
(`shashki samples`), sample by sample, for both engine families' data."""

import numpy as np
import pytest
import shashki

from conftest import json_lines, run_shashki


@pytest.fixture(scope="module", params=["configs/nnue.toml", "configs/cpu.toml"])
def chunks(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("chunks")
    run_shashki("selfplay", "--config", request.param, "--out", out, "--games", "4",
                "--threads", "1", "--seed", "7", "--plain")
    return out


def relative(square: int, black: bool) -> int:
    return 31 - square if black else square


def test_chunks_read_in_python_equal_the_rust_readers(chunks):
    data = shashki.read_chunks(chunks)
    rust = json_lines(run_shashki("samples", chunks))
    n = len(rust)
    assert n > 20 and data["result"].shape == (n,)
    assert data["planes"].shape == (n, 7, 8, 8) and data["policy"].shape == (n, 1024)
    for i, theirs in enumerate(rust):
        black = theirs["fen"].startswith("B")
        for key in ("white", "black", "kings", "repetitions", "result", "flags",
                    "plies_left", "ply", "legal_moves", "net_step"):
            assert data[key][i] == theirs[key], (i, key)
        assert data["side_to_move"][i] == int(black)
        assert data["plies_to_draw"][i] == (theirs["plies_to_draw"] if
                                            theirs["plies_to_draw"] is not None else -1)
        assert np.array_equal(data["root_wdl"][i], np.float32(theirs["root_wdl"]))
        # The learner's policy target: the entries on the side's own squares, renormalised.
        expected = np.zeros(1024, np.float32)
        if theirs["flags"] & shashki.FLAG_FULL_SEARCH:
            for frm, to, p in theirs["policy"]:
                expected[relative(frm, black) * 32 + relative(to, black)] += p
            if expected.sum() > 0:
                expected /= expected.sum()
        assert np.allclose(data["policy"][i], expected, atol=1e-6), i
        game = shashki.Game(theirs["fen"])
        assert np.array_equal(data["legal_mask"][i], game.action_mask() != 0), i
        planes = shashki.encode([theirs["fen"]])[0]
        assert np.array_equal(data["planes"][i][[0, 1, 2, 3, 6]], planes[[0, 1, 2, 3, 6]]), i
        repetitions = min(theirs["repetitions"] - 1, 2) / 2
        assert np.all(data["planes"][i][4] == np.float32(repetitions)), i
    single = shashki.read_chunk(sorted(chunks.glob("chunk-*.shzc"))[0])
    assert 0 < len(single["result"]) <= n


def test_missing_or_broken_chunks_raise(tmp_path):
    with pytest.raises(FileNotFoundError):
        shashki.read_chunks(tmp_path / "none")
    broken = tmp_path / "chunk-broken.shzc"
    broken.write_bytes(b"not a chunk at all, just some bytes")
    with pytest.raises(ValueError, match="chunk-broken"):
        shashki.read_chunk(broken)
