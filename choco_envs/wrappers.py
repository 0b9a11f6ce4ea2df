"""``SingleAgentEnv``: one seat of a choco_envs game as a Gymnasium env, for libraries
that train a single agent (Stable-Baselines3, sb3-contrib's MaskablePPO, ...).

    env = SingleAgentEnv("chocolates_v0", opponents="greedy", num_players=2)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_masks().argmax())

The learner takes a seat (``learner_seat``: a fixed seat, or ``None`` for a random one
each episode); the other seats are played by ``opponents``: a bot spec
(``"random"``, ``"greedy"``, ``"policy:PATH"``, ...), a :class:`~choco_envs.bots.base.Bot`,
a callable ``f(aec_env) -> action``, or a list of these from which each opponent seat draws
one per episode. Each step returns the learner's own reward: 0 until the game ends, then
the learner's final reward (a loss included, even when an opponent's move ended it).

Observations are the flat ``"observation"`` array; the mask is ``action_masks()`` (what
MaskablePPO calls). An action the mask forbids ends the
episode with ``illegal_penalty`` as the reward (what SB3's ``check_env`` needs: it takes
random actions), never a crash.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from choco_envs.bots.base import Bot
from choco_envs.core.errors import ChocoError, ConfigError, IllegalActionError

Opponent = str | Bot | Callable[[Any], int]


class SingleAgentEnv(gymnasium.Env):
    """One seat of ``env_id`` against bots; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env_id: str,
        opponents: Opponent | Sequence[Opponent] = "greedy",
        learner_seat: int | None = None,
        illegal_penalty: float = -1.0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        from choco_envs.registry import make_raw

        if "illegal_action" in options:
            raise ConfigError(
                "SingleAgentEnv handles illegal actions itself; drop option illegal_action"
            )
        self.env_id = env_id
        self.aec = make_raw(env_id, illegal_action="raise", render_mode=render_mode, **options)
        self.render_mode = render_mode
        n = self.aec.game.num_players
        if learner_seat is not None and (
            isinstance(learner_seat, bool) or learner_seat not in range(n)
        ):
            raise ConfigError(
                f"learner_seat={learner_seat!r} is not allowed; allowed: None (random) or 0..{n - 1}"
            )
        self.learner_seat_option = learner_seat
        self.illegal_penalty = float(illegal_penalty)
        choices: list[Any] = (
            list(opponents) if isinstance(opponents, (list, tuple)) else [opponents]
        )
        if not choices:
            raise ConfigError(
                "opponents is an empty list; give at least one bot spec, Bot or callable"
            )
        self._players = [self._player(o) for o in choices]
        agent = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent)["observation"]
        self.action_space = self.aec.action_space(agent)
        self.learner_seat = 0
        self._seat_players: list[Any] = []
        self._rng = random.Random()
        self._done = True
        #: actions applied to the game, the learner's and the opponents' (for benchmarks)
        self.env_steps = 0

    def _player(self, opponent: Opponent) -> Any:
        if isinstance(opponent, str):
            from choco_envs.bots import make

            return make(opponent, env_id=self.env_id, seed=None)
        if isinstance(opponent, Bot) or callable(opponent):
            return opponent
        raise ConfigError(
            f"opponent {opponent!r} is not allowed; allowed: a bot spec string, a Bot, a "
            "callable(aec_env) -> action, or a list of these"
        )

    # ------------------------------------------------------------------ gymnasium
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        n = self.aec.game.num_players
        seat = self.learner_seat_option
        self.learner_seat = self._rng.randrange(n) if seat is None else seat
        self._seat_players = [self._rng.choice(self._players) for _ in range(n)]
        for p in self._seat_players:
            if isinstance(p, Bot):
                p.reset(self._rng.randrange(2**31))
        for _ in range(100):  # a game the opponents end before the learner moves is redealt
            self.aec.reset(seed=self._rng.randrange(2**63), options=options)
            self._done = False
            self._play_opponents()
            if not self._done:
                return self._obs(), self._info()
        raise RuntimeError(f"{self.env_id}: 100 games ended before seat {self.learner_seat} moved")

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise ChocoError("step() after the episode ended; call reset()")
        a = integer_action(action, self.aec.game.num_actions)
        mask = self.aec.legal_mask()
        if not 0 <= a < len(mask) or not mask[a]:
            self._done = True
            info = self._info()
            info["illegal_action"] = 1
            return self._obs(), self.illegal_penalty, True, False, info
        self.aec.step(a)
        self.env_steps += 1
        reward = self._reward_if_over()
        if not self._done:
            reward = self._play_opponents()
        return self._obs(), reward, self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all False once the episode is over)."""
        if self._done:
            return np.zeros(self.aec.game.num_actions, dtype=bool)
        return self.aec.legal_mask().copy()

    def render(self) -> Any:  # the ansi text (gymnasium types it as a frame)
        return self.aec.render()

    # ------------------------------------------------------------------ internals
    @property
    def learner_agent(self) -> str:
        return self.aec.possible_agents[self.learner_seat]

    def _reward_if_over(self) -> float:
        if all(self.aec.terminations.values()):
            self._done = True
            return float(self.aec.rewards[self.learner_agent])
        return 0.0

    def _play_opponents(self) -> float:
        """Let the other seats move until the learner is to act or the game is over."""
        while self.aec.agent_selection != self.learner_agent:
            seat = self.aec.agent_name_mapping[self.aec.agent_selection]
            player = self._seat_players[seat]
            action = player.act(self.aec) if isinstance(player, Bot) else player(self.aec)
            self.aec.step(int(action))
            self.env_steps += 1
            reward = self._reward_if_over()
            if self._done:
                return reward
        return 0.0

    def _obs(self) -> np.ndarray:
        return self.aec.observe(self.learner_agent)["observation"]

    def _info(self) -> dict[str, Any]:
        info = dict(self.aec.infos[self.learner_agent])
        info["learner_seat"] = self.learner_seat
        info["illegal_action"] = 0
        return info


def integer_action(action: Any, num_actions: int) -> int:
    """An action as an int: Python and numpy integers, and 0-d or one-element integer
    arrays (what SB3 passes); IllegalActionError, changing nothing, for anything else
    (0.7 is not action 0)."""
    value = action
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item() if value.dtype.kind in "iu" else value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise IllegalActionError(
            f"action {action!r} is not allowed; actions are ints in 0..{num_actions - 1}"
        )
    return int(value)
