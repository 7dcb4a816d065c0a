"""Russian checkers as a single-agent Gymnasium environment: the agent
plays one colour against an opponent (uniform random legal moves, or any
engine spec of :class:`shashki.Engine` at a fixed budget).

Observation: the 7 input planes from the agent's side, float32 (7, 8, 8).
Action: an index of the policy layout (``Discrete(1024)``); the legal ones
are ``info["action_mask"]`` and :meth:`ShashkiEnv.action_masks` (int8, the
name MaskablePPO reads). An illegal action loses the game at once
(reward -1), as PettingZoo's ``TerminateIllegalWrapper`` rules. Reward at
the end: +1 win, 0 draw, -1 loss; ``max_plies`` adjudicates a draw,
reported as a truncation. Reproducible from ``reset(seed=...)``: the
colour (when ``agent_color="random"``) and a random opponent draw from the
environment's generator, an engine opponent searches a fixed depth or node
count on one thread.

    import gymnasium as gym
    import shashki.gymnasium_env  # registers "shashki/Shashki-v0"
    env = gym.make("shashki/Shashki-v0", opponent="ab:depth=2")
"""

from __future__ import annotations

from typing import Optional

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ._render import check_render_mode, render
from ._shashki import INPUT_PLANES, POLICY_SIZE, Engine, Game

COLORS = ("white", "black")


class ShashkiEnv(gym.Env):
    """One agent against an opponent; see the module's documentation."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 2}

    def __init__(
        self,
        opponent: Optional[str] = None,
        agent_color: str = "white",
        max_plies: Optional[int] = None,
        fen: Optional[str] = None,
        render_mode: Optional[str] = None,
    ):
        if agent_color not in (*COLORS, "random"):
            raise ValueError(
                f"agent_color {agent_color!r}: expected 'white', 'black' or 'random'"
            )
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.opponent_spec = opponent
        self.engine = Engine(opponent) if opponent is not None else None
        self.agent_color_choice = agent_color
        self.max_plies = max_plies
        self.fen = fen
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (INPUT_PLANES, 8, 8), np.float32)
        self.action_space = spaces.Discrete(POLICY_SIZE)
        self.game = Game(fen, max_plies=max_plies)
        self.agent_color = "white"
        self.done = True

    def action_masks(self) -> np.ndarray:
        """1 at each legal action of the agent, int8 (1024,)."""
        return self.game.action_mask()

    def _observation(self) -> np.ndarray:
        return self.game.planes(self.agent_color)

    def _info(self) -> dict:
        info = {"action_mask": self.action_masks(), "ply": self.game.ply}
        if self.game.is_over:
            info["result"] = self.game.result
            info["end_reason"] = self.game.end_reason
        return info

    def _opponent_moves(self) -> None:
        """The opponent plays until it is the agent's turn or the game ends."""
        while not self.game.is_over and self.game.side_to_move != self.agent_color:
            if self.engine is None:
                moves = self.game.legal_moves()
                self.game.play(moves[int(self.np_random.integers(len(moves)))])
            else:
                self.game.play(self.engine.best_move(self.game))

    def _outcome(self) -> tuple[float, bool, bool]:
        """(reward, terminated, truncated) of the agent now."""
        if not self.game.is_over:
            return 0.0, False, False
        adjudicated = self.game.end_reason == "adjudication"
        return float(self.game.score_for(self.agent_color)), not adjudicated, adjudicated

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self.game = Game(self.fen, max_plies=self.max_plies)
        if self.engine is not None:
            self.engine.new_game()
        if self.agent_color_choice == "random":
            self.agent_color = COLORS[int(self.np_random.integers(2))]
        else:
            self.agent_color = self.agent_color_choice
        self._opponent_moves()
        self.done = self.game.is_over
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        if self.done:
            raise RuntimeError("step() after the episode ended: call reset()")
        action = int(action)
        if not 0 <= action < POLICY_SIZE or self.game.action_mask()[action] == 0:
            self.done = True
            info = self._info()
            info["illegal_action"] = action
            return self._observation(), -1.0, True, False, info
        self.game.play(action)
        self._opponent_moves()
        reward, terminated, truncated = self._outcome()
        self.done = terminated or truncated
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self):
        return render(self.game, self.render_mode)


gym.register(id="shashki/Shashki-v0", entry_point=ShashkiEnv)
