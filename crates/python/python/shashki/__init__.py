"""Russian checkers (русские шашки) from Shashki Zero, for Python.

- Rules: :class:`Game` (a game under the official draw rules; moves in
  notation and as indices of the policy layout; pickling), :func:`perft`.
- Engines: :class:`Engine` (any player spec of ``shashki rate``:
  ``builtin``, ``ab:depth=6``, ``nnue:PATH``, ``mcts``, ``net:PATH``),
  :class:`Analysis`.
- Networks: :class:`Network` (W/D/L and move priors), :class:`Nnue` (the
  alpha-beta engine's score), :func:`encode` (input planes).
- Data: :func:`read_chunk`, :func:`read_chunks` (self-play samples as
  numpy arrays).
- Tablebases: :class:`Tablebase`.
- Environments: :mod:`shashki.pettingzoo_env` (two agents, AEC) and
  :mod:`shashki.gymnasium_env` (one agent against an engine); they need the
  ``env`` extra (PettingZoo, Gymnasium).
"""

from ._shashki import (
    FLAG_ADJUDICATED,
    FLAG_EXACT,
    FLAG_FULL_SEARCH,
    FLAG_RELABELLED,
    FLAG_RESIGNED,
    FLAG_TABLEBASE,
    FLAG_TREE,
    INPUT_PLANES,
    PLANE_NAMES,
    POLICY_SIZE,
    START_FEN,
    Analysis,
    Engine,
    Game,
    Network,
    Nnue,
    Tablebase,
    __version__,
    encode,
    perft,
    read_chunk,
    read_chunks,
)

__all__ = [
    "FLAG_ADJUDICATED",
    "FLAG_EXACT",
    "FLAG_FULL_SEARCH",
    "FLAG_RELABELLED",
    "FLAG_RESIGNED",
    "FLAG_TABLEBASE",
    "FLAG_TREE",
    "INPUT_PLANES",
    "PLANE_NAMES",
    "POLICY_SIZE",
    "START_FEN",
    "Analysis",
    "Engine",
    "Game",
    "Network",
    "Nnue",
    "Tablebase",
    "__version__",
    "encode",
    "perft",
    "read_chunk",
    "read_chunks",
]
