"""Drives `shashki hub` with pydraughts' HubEngine, the client lidraughts-bot
uses, and checks every answer against pydraughts' own Russian rules.

    hub_client.py SHASHKI_BINARY SCENARIO

Scenarios: handshake_errors, games_ab, game_default_clock, game_mcts,
ponder, stop_infinite, captures, engine_kinds (run from the repository
root: it loads models/). Each prints what it checked and exits 0,
or fails with an AssertionError naming what went wrong. Run by tests/hub.rs.
"""

import logging
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

import draughts
from draughts.engine import HubEngine, Limit

# pydraughts' `info` / `id` field splitting: spaces outside double quotes.
FIELDS = re.compile(r' +(?![^"]*"(?:(?:[^"]*"){2})*[^"]*$)')
START = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww"
MAX_PLIES = 400


class Warnings(logging.Handler):
    """Collects pydraughts' warnings (it logs every unexpected engine line,
    `error` lines included)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


WARNINGS = Warnings()
logging.getLogger("pydraughts").addHandler(WARNINGS)


class TimedHub(HubEngine):
    """HubEngine that notes when each `go` was sent and its `done` came
    back, so the engine's own time is measured without the client's."""

    def __init__(self, command):
        self.sent_go = None
        self.got_done = None
        super().__init__(command)

    def send(self, line):
        if line.startswith("go"):
            self.sent_go = time.monotonic()
        super().send(line)

    def recv(self):
        line = super().recv()
        if line.startswith("done"):
            self.got_done = time.monotonic()
        return line


def start(binary, *engine_args):
    engine = TimedHub([binary, "hub", *engine_args])
    engine.setoption("variant", "russian")
    engine.init()
    return engine


def finish(engine):
    """`quit`, and the process must exit with status 0."""
    engine.quit()
    assert engine.p.wait(timeout=10) == 0, "the engine did not exit cleanly at quit"
    close_pipes(engine)


def close_pipes(engine):
    for pipe in (engine.p.stdin, engine.p.stdout):
        if not pipe.closed:
            pipe.close()


def lines_until(engine, word, timeout=10.0, got=None):
    """The engine's lines up to and including the first that starts with
    `word` (read on a thread, so a silent engine fails instead of hanging),
    appended to `got` as they come when it is given."""
    got = [] if got is None else got

    def read():
        while True:
            line = engine.recv()
            got.append(line)
            if line.split()[0] == word:
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    assert not reader.is_alive(), f"no {word!r} within {timeout} s; got {got}"
    return got


def ping(engine):
    """The engine's lines from now up to its `pong`."""
    engine.send("ping")
    return lines_until(engine, "pong")


def check_fields(line):
    """A line pydraughts can split: every field is `name=value` with one `=`."""
    for item in FIELDS.split(line.split(None, 1)[1]):
        assert item.count("=") == 1, f"pydraughts cannot split {item!r} in {line!r}"
        yield item.split("=")


def legal(board, move):
    """Whether `move` (from the engine) is one of pydraughts' legal moves."""
    return move.board_move in [m.board_move for m in board.legal_moves()]


def engine_player(engine, limit):
    def play(board):
        result = engine.play(board, limit, ponder=False)
        assert legal(board, result.move), f"illegal engine move {result.move.hub_move}"
        return result.move

    return play


def random_player(seed):
    rng = random.Random(seed)
    return lambda board: rng.choice(board.legal_moves())


def play_game(white, black, fen="startpos"):
    """Plays to the end under pydraughts' rules; returns the winner (0: draw)."""
    board = draughts.Board("russian", fen)
    while not board.is_over():
        assert len(board.move_stack) < MAX_PLIES, "the game did not end"
        player = white if board.turn == draughts.WHITE else black
        board.push(player(board))
    return board.winner(), len(board.move_stack)


def no_engine_errors():
    errors = [m for m in WARNINGS.messages if "error" in m]
    assert not errors, f"the engine answered errors: {errors}"


def handshake_errors(binary):
    engine = TimedHub([binary, "hub", "--engine", "ab"])
    assert "Shashki Zero" in engine.id.get("name", ""), engine.id
    assert {"variant", "move-overhead"} <= engine.options, engine.options
    assert engine.variants == {"russian"}, engine.variants
    engine.setoption("variant", "russian")
    engine.setoption("move-overhead", 100)
    engine.init()
    engine.ping()
    refused = [
        "fly away",
        "set-param name=variant value=normal",
        "set-param name=move-overhead value=1",
        "level depth=deep",
        "pos pos=Wbbb",
        f'pos pos={START} moves="9-13 22-18 13-17"',
    ]
    for command in refused:
        engine.send(command)
        got = ping(engine)
        assert got[0].startswith("error message="), f"{command}: {got}"
        assert got[1:] == ["pong"], f"{command}: {got}"
    # After a refused `pos` there is nothing to search: an error and a bare done.
    engine.send("go think")
    got = lines_until(engine, "done")
    assert got[0].startswith("error") and got[-1] == "done", got
    # During a search only ping, ponder-hit and stop are read.
    engine.send(f"pos pos={START}")
    engine.send("level infinite")
    engine.send("go analyze")
    engine.send(f"pos pos={START}")
    engine.send("ping")
    got = [line for line in lines_until(engine, "pong") if not line.startswith("info")]
    assert got[0].startswith("error") and "during a search" in got[0], got
    engine.stop()
    done = lines_until(engine, "done")[-1]
    assert done.startswith("done move="), done
    # It still plays after all that.
    board = draughts.Board("russian")
    move = engine.play(board, Limit(movetime=0.05), ponder=False).move
    assert legal(board, move), move.hub_move
    finish(engine)

    # The end of input ends the session cleanly, even during an infinite search.
    for during_search in (False, True):
        engine = start(binary, "--engine", "ab")
        if during_search:
            engine.send(f"pos pos={START}")
            engine.send("go analyze")
            time.sleep(0.2)
        engine.p.stdin.close()
        code = engine.p.wait(timeout=10)
        assert code == 0, f"exit status {code} at the end of input"
        close_pipes(engine)
    print("ok handshake_errors: id, params, refused lines, busy, quit, end of input")


def games_ab(binary):
    engine = start(binary, "--engine", "ab", "--threads", "1")
    ab = engine_player(engine, Limit(depth=4))
    results = [
        play_game(ab, ab),
        play_game(ab, random_player(1)),
        play_game(random_player(2), engine_player(engine, Limit(nodes=3000))),
    ]
    no_engine_errors()
    finish(engine)
    # Against a random mover the engine must not lose.
    assert results[1][0] == draughts.WHITE, f"ab lost or drew as White: {results[1]}"
    assert results[2][0] == draughts.BLACK, f"ab lost or drew as Black: {results[2]}"
    print(f"ok games_ab: (winner, plies) {results}")


def game_default_clock(binary):
    """The built-in engine against a random mover on a 3 s + 0.05 s clock:
    every move legal, the clock never overrun; and one move of an x/y
    control (the last move before the control) stays inside its time."""
    engine = start(binary)
    clock, inc = 3.0, 0.05
    spent = []

    def clocked(board):
        nonlocal clock
        result = engine.play(board, Limit(time=clock, inc=inc), ponder=False)
        used = engine.got_done - engine.sent_go
        assert used < clock, f"overran its clock: {used:.3f} s with {clock:.3f} s left"
        clock = clock - used + inc
        spent.append(used)
        assert legal(board, result.move), result.move.hub_move
        return result.move

    winner, plies = play_game(clocked, random_player(3))
    assert winner != draughts.BLACK, "the built-in engine lost to a random mover"
    engine.go(START, my_time=0.5, moves_left=1)
    used = engine.got_done - engine.sent_go
    assert used < 0.5, f"moves=1 time=0.5: used {used:.3f} s"
    no_engine_errors()
    finish(engine)
    print(
        f"ok game_default_clock: won in {plies} plies, {len(spent)} moves, "
        f"longest {max(spent):.3f} s, clock left {clock:.3f} s"
    )


def game_mcts(binary):
    engine = start(binary, "--engine", "mcts", "--threads", "1")
    winner, plies = play_game(random_player(4), engine_player(engine, Limit(nodes=200)))
    assert winner is not None
    no_engine_errors()
    finish(engine)
    print(f"ok game_mcts: winner {winner} after {plies} plies")


def ponder(binary):
    engine = start(binary, "--engine", "ab")
    limit = Limit(time=5.0, inc=0.1)
    board = draughts.Board("russian")
    first = engine.play(board, limit, ponder=False)
    assert legal(board, first.move)
    board.push(first.move)
    reply = first.ponder or board.legal_moves()[0]
    assert legal(board, reply), f"illegal ponder move {reply.hub_move}"
    board.push(reply)

    def ponder_search():
        holder = {}
        thread = threading.Thread(
            target=lambda: holder.update(result=engine.play(board, limit, ponder=True)),
            daemon=True,
        )
        thread.start()
        time.sleep(0.5)
        assert thread.is_alive(), "the ponder search ended before ponder-hit"
        return thread, holder

    # Hit: the clock starts at ponder-hit and the answer comes on time.
    thread, holder = ponder_search()
    hit = time.monotonic()
    engine.ponderhit()
    thread.join(5)
    assert not thread.is_alive(), "no done after ponder-hit"
    waited = engine.got_done - hit
    assert waited < 2.0, f"done {waited:.3f} s after ponder-hit"
    assert legal(board, holder["result"].move)

    # Miss: stop, then an ordinary search of another position.
    thread, holder = ponder_search()
    stopped = time.monotonic()
    engine.stop()
    thread.join(5)
    assert not thread.is_alive(), "no done after stop"
    assert engine.got_done - stopped < 1.0
    board.pop()
    other = [m for m in board.legal_moves() if m.hub_move != reply.hub_move][0]
    board.push(other)
    move = engine.play(board, Limit(movetime=0.1), ponder=False).move
    assert legal(board, move)

    # A ponder search may end by itself; a late ponder-hit is then ignored.
    engine.play(board, Limit(depth=2), ponder=True)
    engine.ponderhit()
    got = ping(engine)
    assert got == ["pong"], got
    no_engine_errors()
    finish(engine)
    print(f"ok ponder: hit answered {waited:.3f} s after ponder-hit; miss stopped")


def stop_infinite(binary):
    engine = start(binary, "--engine", "ab")
    board = draughts.Board("russian")
    for level in ("level infinite", None):
        engine.send(f"pos pos={START}")
        if level:
            engine.send(level)
        engine.send("go analyze")
        got = []
        reader = threading.Thread(target=lines_until, args=(engine, "done", 20, got))
        reader.start()
        time.sleep(0.6)
        assert not any(line.startswith("done") for line in got), f"done before stop: {got}"
        stopped = time.monotonic()
        engine.stop()
        reader.join(10)
        assert got and got[-1].startswith("done"), got
        assert engine.got_done - stopped < 1.0, "done came late after stop"
        infos = [dict(check_fields(line)) for line in got if line.startswith("info")]
        assert infos, "no info lines"
        last = infos[-1]
        assert int(last["depth"]) > 0 and int(last["nodes"]) > 0, last
        assert float(last["time"]) >= 0 and abs(float(last["score"])) < 100, last
        assert last["pv"].startswith('"'), last
        best = dict(check_fields(got[-1]))["move"]
        assert legal(board, draughts.Move(board, hub_move=best))
    no_engine_errors()
    finish(engine)
    print(f"ok stop_infinite: {len(infos)} info lines, last {last}")


def captures(binary):
    engine = start(binary, "--engine", "ab")
    # A man takes c7 and promotes on d8, then goes on as a king: 4 pieces.
    board = draughts.Board("russian", "W:Wb6:Bc7,f6,e3,b4,h8")
    (only,) = board.legal_moves()
    result = engine.play(board, Limit(depth=3), ponder=False)
    assert result.move.board_move == only.board_move, result.move.hub_move
    assert len(result.move.captures) == 4, result.move.captures
    # The capture is read back by the engine as part of the game.
    board.push(result.move)
    reply = engine.play(board, Limit(depth=3), ponder=False).move
    assert legal(board, reply), reply.hub_move

    # A king with several capture chains of 5 and 6 pieces.
    fen = "W:WKh2:Bg3,e5,c5,c3,e3,f6,b8"
    board = draughts.Board("russian", fen)
    chains = board.legal_moves()
    assert len(chains) >= 3 and all(len(m.captures) >= 5 for m in chains)
    hub_fen = board._game.initial_hub_fen
    for move in chains:
        engine.send(f'pos pos={hub_fen} moves="{move.hub_move}"')
        assert ping(engine) == ["pong"], move.hub_move
    result = engine.play(board, Limit(depth=4), ponder=False)
    assert legal(board, result.move), result.move.hub_move
    no_engine_errors()
    finish(engine)
    print(
        f"ok captures: {only.hub_move} and {len(chains)} king chains read; "
        f"engine played {result.move.hub_move}"
    )


def engine_kinds(binary):
    """The other engine kinds behind the same session: alpha-beta with an
    NNUE model folder, MCTS with a network, and tablebases."""
    board = draughts.Board("russian")
    for args, limit in (
        (["--engine", "nnue:models/nnue-2h"], Limit(depth=6)),
        (["--engine", "net:models/cpu-2h", "--threads", "1"], Limit(nodes=64)),
    ):
        engine = start(binary, *args)
        result = engine.play(board, limit, ponder=False)
        assert legal(board, result.move), (args, result.move.hub_move)
        assert int(result.info["nodes"]) > 0, (args, result.info)
        finish(engine)
    with tempfile.TemporaryDirectory() as tables:
        generate = [binary, "tb", "generate", "--pieces", "3", "--out", tables]
        subprocess.run(generate, check=True, timeout=120, capture_output=True)
        engine = start(binary, "--engine", "ab", "--tablebase", tables)
        # Two kings against a man: the tables say win, 3 half-moves to the capture.
        board = draughts.Board("russian", "W:WKa1,Kc3:Bh4")
        result = engine.play(board, Limit(depth=6), ponder=False)
        assert result.move.pdn_move == "c3-e5", result.move.pdn_move
        assert (result.info["tb"], result.info["tb-plies"]) == ("win", "3"), result.info
        finish(engine)
    no_engine_errors()
    print("ok engine_kinds: nnue:models/nnue-2h, net:models/cpu-2h, ab with tablebases")


SCENARIOS = {
    f.__name__: f
    for f in (
        handshake_errors,
        games_ab,
        game_default_clock,
        game_mcts,
        ponder,
        stop_infinite,
        captures,
        engine_kinds,
    )
}

if __name__ == "__main__":
    binary, scenario = sys.argv[1], sys.argv[2]
    SCENARIOS[scenario](binary)
