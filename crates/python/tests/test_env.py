"""The environments pass PettingZoo's and Gymnasium's own checks, and play
whole games by the rules."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from shashki.gymnasium_env import ShashkiEnv
from shashki.pettingzoo_env import env, raw_env


def test_pettingzoo_api_test_passes():
    api_test(env(), num_cycles=1000, verbose_progress=False)
    api_test(env(max_plies=40), num_cycles=200, verbose_progress=False)
    seed_test(env, num_cycles=200)


def test_pettingzoo_games_end_by_the_rules():
    e = env()
    rng = np.random.default_rng(3)
    outcomes = set()
    for _ in range(5):
        e.reset(seed=1)
        total = {a: 0.0 for a in e.possible_agents}
        for agent in e.agent_iter(max_iter=2000):
            obs, reward, terminated, truncated, info = e.last()
            total[agent] += reward
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert len(legal) > 0
            e.step(int(rng.choice(legal)))
        assert total["white"] == -total["black"]
        outcomes.add(total["white"])
    assert outcomes <= {-1.0, 0.0, 1.0}


def test_pettingzoo_illegal_action_loses():
    e = env()
    e.reset()
    e.step(0)  # a1 -> a1 is never legal
    assert e.terminations["white"] and e.rewards["white"] == -1


def test_gymnasium_check_env_passes():
    # Made by gymnasium.make, it has a spec: check_env then also tries the
    # other render modes.
    check_env(gymnasium.make("shashki/Shashki-v0", render_mode="ansi").unwrapped)
    check_env(
        gymnasium.make(
            "shashki/Shashki-v0", opponent="ab:depth=1", agent_color="random", max_plies=60
        ).unwrapped
    )
    made = gymnasium.make("shashki/Shashki-v0", opponent="ab:depth=1")
    obs, info = made.reset(seed=2)
    assert obs.shape == (7, 8, 8) and info["action_mask"].sum() > 0


def test_gymnasium_episode_against_an_engine():
    game_env = ShashkiEnv(opponent="ab:depth=2", agent_color="black")
    obs, info = game_env.reset(seed=5)
    assert game_env.game.ply == 1  # the engine opened as White
    rng = np.random.default_rng(5)
    for _ in range(500):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = game_env.step(action)
        if terminated or truncated:
            break
    assert terminated and reward in (-1.0, 0.0, 1.0) and "result" in info
    with pytest.raises(RuntimeError, match="reset"):
        game_env.step(0)
    obs, info = game_env.reset(seed=5)
    obs, reward, terminated, truncated, info = game_env.step(0)
    assert terminated and reward == -1.0 and info["illegal_action"] == 0
    assert raw_env().metadata["name"] == "shashki_v0"
