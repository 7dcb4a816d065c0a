"""What the environments show: the board and whose move it is."""

from __future__ import annotations

from typing import Optional


def check_render_mode(mode: Optional[str], modes: list) -> None:
    """Refuses a render mode the environment does not have."""
    if mode is not None and mode not in modes:
        raise ValueError(f"render_mode {mode!r}: expected one of {modes}")


def render(game, mode: Optional[str]) -> Optional[str]:
    """The board as text (`ansi`), printed (`human`), or nothing."""
    if mode is None:
        return None
    text = f"{game}\n{game.side_to_move} to move, ply {game.ply}"
    if mode == "ansi":
        return text
    print(text)
    return None
