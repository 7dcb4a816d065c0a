"""The networks through Python against the Rust commands: the MCTS net's
W/D/L and priors equal `shashki eval`'s within 1e-5, the NNUE's score the
engine's integer evaluation (scripts/nnue_reference.py, exact)."""

import json
import subprocess
import sys

import numpy as np
import pytest
import shashki

from conftest import ROOT, TIMEOUT, json_lines, run_shashki

MODEL = ROOT / "models/diag-2h"
NNUE = ROOT / "models/nnue-data-2h"


def some_games(count: int, plies: int) -> list:
    """Positions along a few games of deterministic play, with their draw
    states (two of them in a repetition)."""
    games = []
    game = shashki.Game()
    for i in range(count * plies):
        moves = game.legal_moves()
        if game.is_over or not moves:
            game = shashki.Game()
            moves = game.legal_moves()
        game.play(moves[(7 * i) % len(moves)])
        if i % plies == plies - 1:
            games.append(game.copy())
    shuffle = shashki.Game("W:WKc1,Kg1:BKb8,Kh8")
    for move in ["c1-d2", "h8-g7", "d2-c1", "g7-h8"]:
        shuffle.play(move)
        games.append(shuffle.copy())
    return games


def test_network_outputs_equal_shashki_evals(tmp_path):
    games = some_games(6, 9)
    lines = [
        json.dumps({"fen": g.fen, **{k: v for k, v in g.draw_state.items() if v is not None}})
        for g in games
    ]
    positions = tmp_path / "positions.jsonl"
    positions.write_text("\n".join(lines) + "\n")
    expected = json_lines(run_shashki("eval", "--model", MODEL, "--positions", positions))
    net = shashki.Network(MODEL)
    wdl, policy = net.evaluate(games)
    assert wdl.shape == (len(games), 3) and policy.shape == (len(games), shashki.POLICY_SIZE)
    for i, (game, theirs) in enumerate(zip(games, expected)):
        assert np.allclose(wdl[i], theirs["wdl"], atol=1e-5, rtol=0), game.fen
        priors = dict(net.move_priors(game))
        assert priors.keys() == theirs["policy"].keys()
        for move, p in theirs["policy"].items():
            assert abs(priors[move] - p) <= 1e-5, (game.fen, move)
        # The layout sums the priors of moves that share an index.
        by_index = np.zeros(shashki.POLICY_SIZE, np.float32)
        for action, move in zip(game.legal_actions(), game.legal_moves()):
            by_index[action] += priors[move]
        assert np.allclose(policy[i], by_index, atol=1e-6)
        assert abs(policy[i].sum() - 1) < 1e-4


def test_nnue_scores_equal_the_engines_integer_evaluation(tmp_path):
    fens = [g.fen for g in some_games(10, 7)] + [shashki.START_FEN]
    fens_file = tmp_path / "fens.txt"
    fens_file.write_text("\n".join(fens) + "\n")
    done = subprocess.run(
        [sys.executable, ROOT / "scripts/nnue_reference.py", "--model", NNUE,
         "--fens-file", fens_file],
        capture_output=True, text=True, timeout=TIMEOUT, check=True,
    )
    reference = [line["cp"] for line in json_lines(done.stdout)]
    scores = shashki.Nnue(NNUE).evaluate(fens)
    assert scores.dtype == np.int32
    assert scores.tolist() == reference
    assert shashki.Nnue("builtin").evaluate(fens).tolist() == reference


def test_missing_and_wrong_model_files_raise():
    with pytest.raises(FileNotFoundError, match="no-such-model"):
        shashki.Network(ROOT / "no-such-model")
    with pytest.raises(FileNotFoundError, match="no-such-model"):
        shashki.Nnue(ROOT / "no-such-model")
    with pytest.raises(ValueError, match="README.md"):
        shashki.Network(ROOT / "README.md")
