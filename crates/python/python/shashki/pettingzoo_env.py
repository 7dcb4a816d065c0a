"""Russian checkers as a PettingZoo AEC environment (two agents).

Agents ``"white"`` and ``"black"``, White first. Actions are indices of the
policy layout (``POLICY_SIZE`` = 1024: ``from * 32 + to`` in the acting
side's own square numbering, docs/MODEL.md); the observation is a dict of
``observation`` (the 7 input planes, float32 (7, 8, 8), from the observing
agent's side) and ``action_mask`` (int8 (1024,), all zero for the agent not
to move). Captures with the same start and end but different pieces taken
share an index; the action plays the first of them in the generator's order
(``Game.legal_moves`` lists them all).

The official draw rules end the game (repetition, the counting rules
7.2.3-7.2.8); ``max_plies`` adjudicates a draw, reported as a truncation.
Rewards: +1 to the winner, -1 to the loser, 0 each for a draw. ``env()``
wraps the raw environment as PettingZoo's classic games are (an illegal
action loses with reward -1, actions outside the space are an error, the
call order is enforced).

    from shashki.pettingzoo_env import env
    e = env()
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            action = None
        else:
            action = e.action_space(agent).sample(obs["action_mask"])
        e.step(action)
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._render import check_render_mode, render
from ._shashki import INPUT_PLANES, POLICY_SIZE, Game

AGENTS = ("white", "black")


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's usual wrappers for board games."""
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def observation_space() -> spaces.Dict:
    """The observation of one agent: its planes and its action mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (INPUT_PLANES, 8, 8), np.float32),
            "action_mask": spaces.Box(0, 1, (POLICY_SIZE,), np.int8),
        }
    )


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's naming)
    """Russian checkers for two agents; see the module's documentation."""

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "shashki_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        render_mode: Optional[str] = None,
        fen: Optional[str] = None,
        max_plies: Optional[int] = None,
    ):
        super().__init__()
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.fen = fen
        self.max_plies = max_plies
        self.game = Game(fen, max_plies=max_plies)
        self.possible_agents = list(AGENTS)
        self.agents = self.possible_agents[:]
        self.action_spaces = {a: spaces.Discrete(POLICY_SIZE) for a in self.agents}
        self.observation_spaces = {a: observation_space() for a in self.agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        if agent == self.game.side_to_move and not self.game.is_over:
            mask = self.game.action_mask()
        else:
            mask = np.zeros(POLICY_SIZE, np.int8)
        return {"observation": self.game.planes(agent), "action_mask": mask}

    def reset(self, seed=None, options=None):
        self.game = Game(self.fen, max_plies=self.max_plies)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.game.side_to_move
        if self.render_mode == "human":
            self.render()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0
        self.game.play(int(action))
        self.rewards = dict.fromkeys(self.agents, 0)
        if self.game.is_over:
            adjudicated = self.game.end_reason == "adjudication"
            for a in self.agents:
                self.rewards[a] = self.game.score_for(a)
                self.terminations[a] = not adjudicated
                self.truncations[a] = adjudicated
                self.infos[a] = {
                    "result": self.game.result,
                    "end_reason": self.game.end_reason,
                }
        self.agent_selection = self.game.side_to_move
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        return render(self.game, self.render_mode)

    def close(self):
        pass
