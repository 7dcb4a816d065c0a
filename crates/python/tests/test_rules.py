"""The rules through Python: perft counts, legal moves equal to the Rust
core's (`shashki moves`), play and undo, the draw rules, PDN, pickling and
the errors of bad input."""

import copy
import pickle

import numpy as np
import pytest
import shashki

from conftest import run_shashki

# Leaves of the start position's move tree (crates/rules/tests/perft.rs).
START_PERFT = [7, 49, 302, 1469, 7482, 37986]

# Capture positions of crates/rules/tests/capture_rules.rs.
CAPTURE_FENS = [
    "W:Wc1,Ke1:Bb6,e5,e7,g7,Kd2",
    "W:Wa3,c3:Bd4,h8",
    "W:Wc3:Bb4,d4,f6",
    "B:Wd4:Bc3",
    "W:Wa1:Bb2,d4,f6",
    "W:Wb6:Bc7,f6",
    "W:WKb2:Ba5,b8,c7,d4,e7,f2",
    "W:We3:Bd4,d6,f6,f4",
    "W:WKa3:Bb6,c3,c5,d8,e5,f2",
    "W:WKa1:Bc3,f6",
]


def python_perft(game: shashki.Game, depth: int) -> int:
    """Leaves counted move by move through the package's API."""
    if depth == 0:
        return 1
    total = 0
    for move in game.legal_moves():
        game.play(move)
        total += python_perft(game, depth - 1)
        game.undo()
    return total


def test_perft_from_python_to_depth_6_equals_the_known_counts():
    game = shashki.Game(draw_rules=False)
    for depth, expected in enumerate(START_PERFT, start=1):
        assert python_perft(game, depth) == expected, f"depth {depth}"
    assert game.ply == 0 and game.fen == shashki.Game().fen
    assert shashki.perft(6) == START_PERFT[5]
    assert game.perft(5) == START_PERFT[4]


def tree_fens(depth: int) -> list:
    """Every distinct position of the start's move tree to `depth`."""
    seen, frontier = {}, [shashki.Game(draw_rules=False)]
    for _ in range(depth):
        nxt = []
        for game in frontier:
            for move in game.legal_moves():
                child = game.copy()
                child.play(move)
                if child.fen not in seen:
                    seen[child.fen] = True
                    nxt.append(child)
        frontier = nxt
    return list(seen)


def test_legal_moves_equal_the_rust_cores_on_the_perft_and_capture_positions():
    fens = tree_fens(3) + CAPTURE_FENS
    rust = run_shashki("moves", stdin="\n".join(fens) + "\n").splitlines()
    assert len(rust) == len(fens)
    for fen, line in zip(fens, rust):
        assert sorted(shashki.Game(fen).legal_moves()) == sorted(line.split()), fen


def square(name: str) -> int:
    """Square index of a dark square (`c3` -> 9): 4 per rank, a1 = 0."""
    file, rank = ord(name[0]) - ord("a"), int(name[1]) - 1
    return 4 * rank + file // 2


def test_actions_and_mask_follow_the_policy_layout():
    game = shashki.Game()
    # White's squares are the board's: from * 32 + to.
    assert game.legal_actions() == [
        square(m[:2]) * 32 + square(m[3:5]) for m in game.legal_moves()
    ]
    mask = game.action_mask()
    assert mask.dtype == np.int8 and mask.shape == (shashki.POLICY_SIZE,)
    assert set(np.flatnonzero(mask)) == set(game.legal_actions())
    assert game.play(game.legal_actions()[0]) == shashki.Game().legal_moves()[0]
    # Black's are the board turned round: square s is 31 - s.
    assert game.legal_actions() == [
        (31 - square(m[:2])) * 32 + (31 - square(m[3:5])) for m in game.legal_moves()
    ]
    first = game.legal_moves()[0]
    assert game.play(game.legal_actions()[0]) == first


def test_play_undo_and_the_end_of_a_game():
    game = shashki.Game("W:Wc3:Bd4")
    assert game.legal_moves() == ["c3:e5"]
    assert game.play("c3:e5") == "c3:e5"
    assert game.is_over and game.result == "2-0" and game.winner == "white"
    assert game.end_reason == "no legal moves"
    assert game.score_for("white") == 1 and game.score_for("black") == -1
    assert game.legal_moves() == [] and not game.action_mask().any()
    with pytest.raises(ValueError, match="the game is over"):
        game.play("e5-f6")
    assert game.undo() == "c3:e5" and not game.is_over
    assert game.undo() is None


def test_threefold_repetition_ends_in_a_draw_and_the_planes_see_it():
    game = shashki.Game("W:WKc1,Kg1:BKb8,Kh8")
    shuffle = ["c1-d2", "h8-g7", "d2-c1", "g7-h8"]
    for move in shuffle:
        game.play(move)
    assert game.draw_state["repetitions"] == 2
    planes = game.planes()
    assert planes.shape == (7, 8, 8) and np.all(planes[4] == 0.5)
    for move in shuffle:
        game.play(move)
    assert game.is_over and game.result == "1-1"
    assert game.end_reason == "7.2.3 threefold repetition"


def test_planes_from_each_side():
    game = shashki.Game()
    white, black = game.planes("white"), game.planes("black")
    assert white[0].sum() == 12 and white[2].sum() == 12
    # Each side sees its own men on its own first three ranks.
    assert white[0][:3].sum() == 12 and black[0][:3].sum() == 12
    assert np.array_equal(white, game.planes())
    assert np.array_equal(shashki.encode([game, shashki.START_FEN])[0], white)


def test_pdn_round_trip_and_pickle_keep_the_game():
    game = shashki.Game()
    for move in ["c3-d4", "f6-e5", "d4:f6", "g7:e5"]:
        game.play(move)
    again = shashki.Game.from_pdn(game.to_pdn())
    assert again.moves == game.moves and again.fen == game.fen
    for clone in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game), game.copy()):
        assert clone.moves == game.moves and clone.fen == game.fen
        clone.play(clone.legal_moves()[0])
        assert clone.ply == game.ply + 1
    game.resign("black")
    resigned = pickle.loads(pickle.dumps(game))
    assert resigned.is_over and resigned.winner == "white"
    assert resigned.end_reason == "resignation"


def test_bad_input_raises_clear_errors():
    with pytest.raises(ValueError, match="FEN"):
        shashki.Game("X:Wz9")
    game = shashki.Game()
    with pytest.raises(ValueError, match="a1-b2"):
        game.play("a1-b2")
    with pytest.raises(ValueError, match="action 5"):
        game.play(5)
    with pytest.raises(TypeError):
        game.play(1.5)
    with pytest.raises(ValueError, match="colour"):
        game.planes("green")
    with pytest.raises(ValueError, match="PDN"):
        shashki.Game.from_pdn('[GameType "25"]\n1. c3-d4 a1-b2 *')
    with pytest.raises(TypeError, match="sequence"):
        shashki.encode(shashki.START_FEN)
    with pytest.raises(ValueError, match=r"positions\[1\]"):
        shashki.encode([shashki.START_FEN, "nonsense"])
