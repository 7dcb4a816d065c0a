"""Engines from player specs: a search under each kind of limit, the GIL
released while it runs, and clear errors for specs that cannot search."""

import threading
import time

import pytest
import shashki

from conftest import ROOT


def test_alpha_beta_and_builtin_analyse_a_position():
    game = shashki.Game()
    for spec in ("ab", "builtin", f"nnue:{ROOT / 'models/nnue-data-2h'}"):
        engine = shashki.Engine(spec)
        result = engine.analyse(game, depth=4)
        assert result.best_move in game.legal_moves(), spec
        assert result.depth == 4 and result.nodes > 0 and result.score_kind == "cp"
        assert result.pv[0] == result.best_move
    # A forced capture has one answer.
    assert shashki.Engine("ab").best_move("W:Wc3:Bd4", depth=2) == "c3:e5"


def test_limits_nodes_time_and_the_specs_own():
    engine = shashki.Engine("ab:depth=3")
    assert engine.analyse(shashki.START_FEN).depth == 3
    assert engine.analyse(shashki.START_FEN, nodes=2000).nodes <= 2200
    started = time.monotonic()
    engine.analyse(shashki.START_FEN, time=0.2)
    assert time.monotonic() - started < 2.0
    mcts = shashki.Engine("mcts:sims=50")
    assert mcts.analyse(shashki.START_FEN).nodes >= 50
    with pytest.raises(ValueError, match="depth"):
        mcts.analyse(shashki.START_FEN, depth=3)
    with pytest.raises(ValueError, match="time"):
        engine.analyse(shashki.START_FEN, time=-1)


def test_a_search_releases_the_gil():
    engine = shashki.Engine("ab")
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        engine.analyse(shashki.START_FEN, time=0.5)
    finally:
        done.set()
        counter.join()
    # Held GIL: the counter would get at most a switch interval or two.
    assert len(ticks) > 100


def test_specs_that_cannot_search_raise():
    with pytest.raises(ValueError, match="matches only"):
        shashki.Engine("random")
    with pytest.raises(ValueError, match="player spec"):
        shashki.Engine("alphabeta:depth=x")
    with pytest.raises(FileNotFoundError):
        shashki.Engine(f"nnue:{ROOT / 'no-such-net'}")
