"""Tablebase probes through Python equal `shashki tb probe`'s."""

import json

import pytest
import shashki

from conftest import run_shashki

FENS = [
    "W:WKc1,e3:Bh6",
    "W:WKc1:Bh6,Kb8",
    "B:WKc1,e3:Bh6",
    "W:Wa1:Bh8",
    "W:Wc3:Bd4",
]


def test_probes_equal_the_commands(tables):
    tb = shashki.Tablebase(tables)
    assert tb.max_pieces == 3
    for fen in FENS:
        theirs = json.loads(run_shashki("tb", "probe", "--fen", fen, "--dir", tables, "--json"))
        ours = tb.probe(fen)
        assert ours is not None, fen
        assert ours["wdl"] == theirs["wdl"] and ours["dtz"] == theirs["dtz"], fen
        assert sorted(ours["best_moves"]) == sorted(theirs["best_moves"]), fen
    assert tb.probe(shashki.START_FEN) is None


def test_a_game_brings_its_counters(tables):
    tb = shashki.Tablebase(tables)
    game = shashki.Game("W:WKc1:Bh6,Kb8")
    game.play("c1-b2")
    theirs = json.loads(
        run_shashki("tb", "probe", "--fen", "W:WKc1:Bh6,Kb8", "--moves", "c1-b2",
                    "--dir", tables, "--json")
    )
    assert tb.probe(game)["wdl"] == theirs["wdl"]
    with pytest.raises(ValueError, match="official draw rules"):
        tb.probe(shashki.Game("W:WKc1:Bh6,Kb8", draw_rules=False))


def test_a_missing_folder_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        shashki.Tablebase(tmp_path / "none")
    with pytest.raises(ValueError, match="no tablebase file"):
        shashki.Tablebase(tmp_path)
