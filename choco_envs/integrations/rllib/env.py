"""Every choco_envs game as an RLlib ``MultiAgentEnv`` (new API stack), turn-based.

    from choco_envs.integrations.rllib import ChocoMultiAgentEnv
    env = ChocoMultiAgentEnv({"env_id": "chocolates_v0", "options": {"num_players": 3}})
    obs, infos = env.reset(seed=0)      # {"player_1": {"observations": ..., "action_mask": ...}}
    obs, rewards, terminateds, truncateds, infos = env.step({"player_1": 4})

Each step returns the observation of the one agent to act next (several steps in a row for
a turn of several choices), as RLlib's masking RLModule expects it:
``{"observations": float32 array, "action_mask": float32 array of 0/1}``. Planes
observations are flattened (C, H, W in C order), so one MLP serves every encoder. Rewards
arrive when the game ends, for every agent at once, each agent its own seat's reward (the
AEC env's: +1/-1/0 with two players, rank-based with more; never another seat's: the bug
of PettingZoo issue 1147), together with a last observation for every agent that acted.

Seats played by bots: ``set_bots({"player_1": "greedy"})`` before a reset makes those
seats, for that one episode, be played inside the env by ``choco_envs.bots``; RLlib never
sees them. The trainer's league callback calls it from ``on_episode_created`` with the
modules its policy mapping chose (``bot_greedy`` -> ``"greedy"``).

An action the mask forbids ends the episode: -1 for the offender, 0 for the others
(PettingZoo's convention; RLlib's env checker takes random actions).
"""

from __future__ import annotations

import functools
import random
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from choco_envs.core.errors import ConfigError, IllegalActionError

OBS_KEY = "observations"
MASK_KEY = "action_mask"


class ChocoMultiAgentEnv(MultiAgentEnv):
    """One choco_envs game for RLlib; ``config``: ``env_id`` and ``options`` (game
    options, ``observation`` and ``reward_mode``)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        from choco_envs.registry import make_raw

        config = dict(config or {})
        unknown = set(config) - {"env_id", "options"}
        if unknown or "env_id" not in config:
            raise ConfigError(
                f"ChocoMultiAgentEnv config {config!r}: give env_id and options "
                f"(unknown keys: {sorted(unknown)})"
            )
        options = dict(config.get("options") or {})
        if "illegal_action" in options:
            raise ConfigError("ChocoMultiAgentEnv ends the game on an illegal action itself")
        self.env_id = str(config["env_id"])
        self.aec = make_raw(self.env_id, illegal_action="raise", **options)
        self.num_actions = int(self.aec.game.num_actions)
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        inner = self.aec.observation_space(str(self.possible_agents[0]))["observation"]
        assert isinstance(inner, gym.spaces.Box)
        space = gym.spaces.Dict(
            {
                OBS_KEY: gym.spaces.Box(
                    inner.low.reshape(-1), inner.high.reshape(-1), dtype=np.float32
                ),
                MASK_KEY: gym.spaces.Box(0.0, 1.0, (self.num_actions,), dtype=np.float32),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {
            a: gym.spaces.Discrete(self.num_actions) for a in self.possible_agents
        }
        self._rng = random.Random()
        self._next_bots: dict[str, str] = {}
        self._bots: dict[str, Any] = {}  # agent -> Bot, this episode
        self._bot_cache: dict[str, Any] = {}  # spec -> Bot
        self._seen: list[str] = []  # network agents that got an observation this episode
        self._over = True
        #: actions applied to the game this env's lifetime: network seats' and bots'
        self.game_steps = 0
        #: the last finished game: each agent's reward, and which seats bots played
        self.last_rewards: dict[str, float] = {}
        self.last_bots: dict[str, str] = {}
        self.last_game_steps = 0
        self._steps_at_reset = 0

    # ------------------------------------------------------------------ league
    def set_bots(self, bots: dict[str, str]) -> None:
        """Bot specs of the seats that bots play in the next episode (agent -> spec)."""
        unknown = set(bots) - set(self.possible_agents)
        if unknown:
            raise ConfigError(f"set_bots: no such agents {sorted(unknown)}")
        if len(bots) >= len(self.possible_agents):
            raise ConfigError("set_bots: at least one seat must be left to the network")
        self._next_bots = dict(bots)

    def _bot(self, spec: str) -> Any:
        if spec not in self._bot_cache:
            from choco_envs.bots import make

            self._bot_cache[spec] = make(spec, env_id=self.env_id, seed=self._rng.randrange(2**31))
        return self._bot_cache[spec]

    # ------------------------------------------------------------------ gymnasium
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """The first observation: ``({agent: obs}, {agent: {}})`` of the agent to act."""
        if seed is not None:
            self._rng = random.Random(seed)
        specs, self._next_bots = self._next_bots, {}
        self._bots = {agent: self._bot(spec) for agent, spec in specs.items()}
        for bot in self._bots.values():
            bot.reset(self._rng.randrange(2**31))
        for _ in range(100):  # a game the bots end before any network seat moves is redealt
            self.aec.reset(seed=self._rng.randrange(2**63))
            self._over, self._seen = False, []
            self._steps_at_reset = self.game_steps
            self._play_bots()
            if not self._over:
                agent = self.aec.agent_selection
                return {agent: self._observe(agent)}, {agent: {}}
        raise RuntimeError(f"{self.env_id}: 100 games ended before a network seat moved")

    def step(self, action_dict: Any) -> Any:
        """``(obs, rewards, terminateds, truncateds, infos)``, dicts by agent."""
        if self._over:
            raise RuntimeError("step() after the episode ended; call reset()")
        agent = self.aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"step({sorted(action_dict)}): {agent} is to act")
        try:
            self.aec.step(_integer(action_dict[agent]))
            self.game_steps += 1
        except IllegalActionError:
            return self._end({str(a): -1.0 if a == agent else 0.0 for a in self.possible_agents})
        if not self._game_over():
            self._play_bots()
        if self._over:
            return self._end({str(a): float(self.aec.rewards[a]) for a in self.possible_agents})
        nxt = self.aec.agent_selection
        return (
            {nxt: self._observe(nxt)},
            {agent: 0.0},
            {"__all__": False},
            {"__all__": False},
            {nxt: {}},
        )

    # ------------------------------------------------------------------ internals
    def _game_over(self) -> bool:
        self._over = all(self.aec.terminations.values())
        return self._over

    def _play_bots(self) -> None:
        """Bots move until a network seat is to act or the game is over."""
        while not self._game_over() and self.aec.agent_selection in self._bots:
            bot = self._bots[self.aec.agent_selection]
            self.aec.step(int(bot.act(self.aec)))
            self.game_steps += 1

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        if agent not in self._seen:
            self._seen.append(agent)
        obs = self.aec.observe(agent)
        return {
            OBS_KEY: obs["observation"].reshape(-1),
            MASK_KEY: obs["action_mask"].astype(np.float32),
        }

    def _end(self, rewards: dict[str, float]) -> tuple[Any, Any, Any, Any, Any]:
        """The last step: every network agent that acted gets its own reward and a last
        observation (mask all zeros)."""
        self._over = True
        self.last_rewards = dict(rewards)
        self.last_game_steps = self.game_steps - self._steps_at_reset
        self.last_bots = {a: getattr(b, "name", "bot") for a, b in self._bots.items()}
        agents = list(self._seen)
        last = {a: self._observe(a) for a in agents}
        for a in agents:
            last[a][MASK_KEY] = np.zeros(self.num_actions, dtype=np.float32)
        done = {a: True for a in agents}
        return (
            last,
            {a: rewards[a] for a in agents},
            {**done, "__all__": True},
            {**{a: False for a in agents}, "__all__": False},
            {a: {} for a in agents},
        )

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def _integer(action: Any) -> int:
    """An RLlib action (a Python or numpy integer, or a one-element array) as an int;
    IllegalActionError for anything else."""
    value = np.asarray(action)
    if value.size != 1 or value.dtype.kind not in "iu":
        raise IllegalActionError(f"action {action!r} is not an integer action")
    return int(value.reshape(()))


def rllib_env_name(env_id: str) -> str:
    """The name under which ``env_id`` is registered with RLlib: ``choco/chocolates_v0``
    (its ``env_config`` is the env's options)."""
    return f"choco/{env_id}"


def register_envs() -> list[str]:
    """Register every choco_envs env with RLlib (``ray.tune.registry.register_env``);
    ``config.environment("choco/chocolates_v0", env_config={"num_players": 3})``."""
    from ray.tune.registry import register_env

    from choco_envs.registry import REGISTRY

    names = []
    for env_id in REGISTRY:
        register_env(rllib_env_name(env_id), functools.partial(_make, env_id))
        names.append(rllib_env_name(env_id))
    return names


def _make(env_id: str, env_config: dict[str, Any] | None = None) -> ChocoMultiAgentEnv:
    return ChocoMultiAgentEnv({"env_id": env_id, "options": dict(env_config or {})})
