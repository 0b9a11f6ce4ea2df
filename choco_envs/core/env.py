"""The ONE generic PettingZoo AEC adapter. It routes; the game's rules decide.

Every registered game is served by :class:`ChocoAECEnv`; ``make_env_functions`` gives a
game its PettingZoo-style ``env`` and ``raw_env`` constructors.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from choco_envs.core.errors import ChocoError, ConfigError, IllegalActionError, shown
from choco_envs.core.game import Game
from choco_envs.core.outcomes import margins
from choco_envs.core.record_format import (
    RECORD_FORMAT,
    check_history,
    check_record_header,
    parse_rng,
    rng_to_json,
)

ILLEGAL_ACTION_MODES = ("terminate", "raise")
REWARD_MODES = ("win", "score")
RENDER_MODES = ("ansi", "human")

#: the env's own options, taken by every game (besides the game's, in its spec)
ENV_OPTIONS = ("observation", "illegal_action", "reward_mode", "render_mode", "render_player")

#: keys of every agent's ``infos`` dict, the same at every step (numbers only)
INFO_KEYS = ("final_score", "game_over", "illegal_action")


class ChocoAECEnv(AECEnv):
    """A choco_envs game as a PettingZoo AEC environment.

    Options common to every game (game options go to the game):

    * ``num_players``: seats; agents are ``player_0 .. player_{n-1}``, seat 0 moves first.
    * ``observation``: encoder name, ``"flat"`` (default) or a game's other encoders
      (``"planes"`` for board games).
    * ``illegal_action``: ``"terminate"`` (default: the game ends, the offender gets -1,
      the others 0, and a warning is issued) or ``"raise"`` (IllegalActionError, nothing
      changes).
    * ``reward_mode``: ``"win"`` (rank-based, +1/-1/0 with two players) or ``"score"``
      (own final score minus the best other final score).
    * ``render_mode``: ``"ansi"`` (render returns text) or ``"human"`` (prints it).
    * ``render_player``: the seat whose view ``render`` shows; None shows what a spectator
      sees (public information only).
    """

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "is_parallelizable": False}

    def __init__(
        self,
        game_cls: type[Game[Any]],
        *,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        reward_mode: str = "win",
        observation: str = "flat",
        render_player: int | None = None,
        **game_options: Any,
    ) -> None:
        super().__init__()
        _check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        _check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        _check_choice("reward_mode", reward_mode, REWARD_MODES)
        spec = game_cls.spec
        unknown = [k for k in game_options if k not in spec.option_names()]
        if unknown:
            raise ConfigError(
                f"unknown option(s) {', '.join(map(shown, unknown))} for {spec.env_id}; known "
                f"options: {', '.join(spec.option_names())} (the game's), "
                f"{', '.join(ENV_OPTIONS)} (the env's)"
            )
        self.game: Game[Any] = game_cls(**game_options)
        self.encoder = self.game.encoder(observation)
        n = self.game.num_players
        if render_player is not None and (
            isinstance(render_player, bool) or render_player not in range(n)
        ):
            raise ConfigError(
                f"option render_player={render_player!r} is not allowed; allowed: None or "
                f"a seat in 0..{n - 1}"
            )
        self.metadata = {**self.metadata, "name": spec.env_id}
        self.render_mode = render_mode
        self.render_player = render_player
        self.illegal_action = illegal_action
        self.reward_mode = reward_mode
        self.observation_name = observation
        self.options: dict[str, Any] = {
            **self.game.config,
            "observation": observation,
            "illegal_action": illegal_action,
            "reward_mode": reward_mode,
        }
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=self.encoder.low, high=self.encoder.high, dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, (self.game.num_actions,), dtype=np.int8),
            }
        )
        act_space: spaces.Discrete = spaces.Discrete(self.game.num_actions)
        # one shared space per kind, as every agent's are identical (Tianshou needs that)
        self.observation_spaces: dict[str, spaces.Dict] = {
            a: obs_space for a in self.possible_agents
        }
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.state_: Any = None
        self._rng: random.Random | None = None
        self._seed: int | None = None
        self._mask: np.ndarray | None = None
        self.actions_taken: list[int] = []
        self.illegal_by: int | None = None

    # ------------------------------------------------------------------ spaces
    def __getstate__(self) -> dict[str, Any]:
        """Pickle and deep-copy: the game rebuilds its encoders from its configuration,
        so the env keeps only the name of its own."""
        state = self.__dict__.copy()
        del state["encoder"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.encoder = self.game.encoder(self.observation_name)

    def observation_space(self, agent: str) -> spaces.Dict:
        """Every seat's: {"observation": Box, "action_mask": Box of 0/1 per action}."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game. ``seed`` fixes every random draw; ``options={"state": record}``
        continues a saved game (see :meth:`save`), with the record's own seed and random
        stream. A record that is refused (RecordError) leaves the env as it was."""
        options = dict(options or {})
        saved = options.pop("state", None)
        if options:
            # PettingZoo's api_test passes a dummy reset option; reset options other than
            # "state" change nothing, so they are reported, not refused.
            warnings.warn(
                f"reset option(s) {sorted(options)} ignored; the only reset option is 'state'",
                stacklevel=2,
            )
        if saved is not None:
            if seed is not None:
                raise ConfigError(
                    f"reset(seed={seed!r}, options={{'state': ...}}): a saved game carries "
                    "its own seed and random stream; pass a seed or a state, not both"
                )
            state, rng, record_seed, actions = self._parse_record(saved)
            self._seed, self._rng = record_seed, rng
        else:
            if seed is not None:
                self._seed = _check_seed(seed)
                self._rng = random.Random(self._seed)
            elif self._rng is None:
                self._seed = random.SystemRandom().randrange(2**63)
                self._rng = random.Random(self._seed)
            state, actions = self.game.new_state(self._rng), []
        self.state_ = state
        self.actions_taken = actions
        self.illegal_by = None
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._info(a) for a in self.agents}
        self._mask = None
        if self.game.is_over(self.state_):  # a saved game that had ended
            self.agent_selection = self.agents[0]
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.game.current_player(self.state_)]

    # ------------------------------------------------------------------ step
    def step(self, action: Any) -> None:
        if self.state_ is None:
            self._require_reset("step()")
        if not self.agents:
            raise ChocoError(
                "step() called after the game ended and every agent has stepped out "
                "(with None); call env.reset() for a new game"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game, s, rng = self.game, self.state_, self._rng
        assert rng is not None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        try:
            a = game.check_action_range(s, action)
            mask = self._mask if self._mask is not None else self.legal_mask()
            if not mask[a]:
                raise game.illegal(s, a, "the action mask forbids it")
            game.apply(s, a, rng)
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            self._terminate_illegal(agent, str(err))
            return
        self.actions_taken.append(a)
        self._mask = None
        if game.is_over(s):
            self._finish()
        else:
            self.agent_selection = self.possible_agents[game.current_player(s)]
        self._accumulate_rewards()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """(observation, reward, termination, truncation, info) of the agent to act
        (PettingZoo's ``last``, written out: it runs every step)."""
        if self.state_ is None:
            self._require_reset("last()")
        if not self.agents:
            raise ChocoError(
                "last() called after the game ended and every agent has stepped out; "
                "call env.reset() for a new game"
            )
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        self._require_reset("agent_iter()")
        return super().agent_iter(max_iter)

    def _require_reset(self, what: str) -> None:
        if self.state_ is None:
            raise ChocoError(f"{what} called before reset(); call env.reset(seed=...) first")

    def _terminate_illegal(self, agent: str, message: str) -> None:
        warnings.warn(
            f"illegal move, the game ends with -1 for {agent}: {message}",
            RuntimeWarning,
            stacklevel=3,
        )
        self.illegal_by = self.agent_name_mapping[agent]
        for a in self.agents:
            self.terminations[a] = True
            self.rewards[a] = -1.0 if a == agent else 0.0
            self.infos[a] = self._info(a)
        self._mask = None
        self._accumulate_rewards()

    def _finish(self) -> None:
        s = self.game
        scores = s.scores(self.state_)
        if self.reward_mode == "win":
            values = s.returns(self.state_)
        else:
            values = margins(scores)
        for a in self.agents:
            self.rewards[a] = float(values[self.agent_name_mapping[a]])
            self.terminations[a] = True
            self.infos[a] = self._info(a, scores)
        self._mask = None

    def _info(self, agent: str, scores: list[float] | None = None) -> dict[str, Any]:
        """``scores``: the game's final scores when the caller has them already."""
        over = self.state_ is not None and (
            self.game.is_over(self.state_) or self.illegal_by is not None
        )
        seat = self.agent_name_mapping[agent]
        if over:
            scores = self.game.scores(self.state_) if scores is None else scores
            final = float(scores[seat])
        else:
            final = 0.0
        illegal = int(self.illegal_by == seat)
        return {"final_score": final, "game_over": int(over), "illegal_action": illegal}

    # ------------------------------------------------------------------ observe
    def legal_mask(self) -> np.ndarray:
        """Boolean mask of the agent to act (all False once the game is over)."""
        self._require_reset("legal_mask()")
        if self._mask is None:
            if self.illegal_by is not None:
                self._mask = np.zeros(self.game.num_actions, dtype=bool)
            else:
                self._mask = np.asarray(self.game.legal_mask(self.state_), dtype=bool)
        return self._mask

    def action_masks(self) -> np.ndarray:
        """The acting agent's mask, for trainers that call a method (sb3-contrib)."""
        return self.legal_mask().copy()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.state_ is None:
            self._require_reset("observe()")
        seat = self.agent_name_mapping.get(agent)
        if seat is None:
            raise ChocoError(
                f"observe({agent!r}): no such agent; agents: {', '.join(self.possible_agents)}"
            )
        obs = self.encoder.encode(self.state_, seat)
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            mask = self._mask if self._mask is not None else self.legal_mask()
            action_mask = mask.astype(np.int8)
        else:
            action_mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": action_mask}

    def observation_layout(self) -> list[tuple[str, slice, str]]:
        """(name, slice, meaning) of every part of the observation."""
        return self.encoder.layout.rows()

    # ------------------------------------------------------------------ text
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi' or 'human'"
            )
            return None
        self._require_reset("render()")
        ended = None
        if self.illegal_by is not None:
            offender = self.possible_agents[self.illegal_by]
            ended = f"{offender} made an illegal move (-1 for {offender}, 0 for the others)"
        text = self.game.state_to_string(self.state_, self.render_player, ended)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def action_to_string(self, action: int) -> str:
        self._require_reset("action_to_string()")
        return self.game.action_to_string(self.state_, action)

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    def game_over(self) -> bool:
        """Whether the game has ended (by the rules or by an illegal move)."""
        self._require_reset("game_over()")
        return self.illegal_by is not None or bool(self.game.is_over(self.state_))

    def scores(self) -> list[float]:
        """Every seat's points. Before the end of a game with hidden information they are
        refused (ChocoError): they would read what some seats may not see (a card's truth,
        a tile's hidden side). After any ending (the rules', or an illegal move's) they
        are the game's points of the final position."""
        self._check_scores_public("scores()")
        return list(self.game.scores(self.state_))

    def score_breakdown(self) -> dict[str, list[float]]:
        """Named parts of every seat's score (refused before the end as ``scores``)."""
        self._check_scores_public("score_breakdown()")
        return self.game.score_breakdown(self.state_)

    def _check_scores_public(self, what: str) -> None:
        self._require_reset(what)
        if self.game_over() or self.game.scores_public:
            return
        raise ChocoError(
            f"{what}: {self.game.spec.env_id} has hidden information, and its scores before "
            "the end would reveal it (e.g. whether a card is right); they are given once "
            "the game is over (and then in every agent's infos['final_score'])"
        )

    def close(self) -> None:
        """Nothing to release: the env holds no files, windows or processes."""

    # ------------------------------------------------------------------ records
    def save(self) -> dict[str, Any]:
        """A complete record of the game so far: options, seed, actions, the state and
        the random stream, to continue with ``reset(options={"state": record})``."""
        self._require_reset("save()")
        assert self._rng is not None
        return {
            "format": RECORD_FORMAT,
            "env_id": self.game.spec.env_id,
            "version": self.game.spec.version,
            "options": {k: v for k, v in self.game.config.items() if _jsonable(v)},
            "seed": self._seed,
            "actions": list(self.actions_taken),
            "state": self.game.to_json(self.state_),
            "rng": rng_to_json(self._rng),
        }

    def _parse_record(self, record: Any) -> tuple[Any, random.Random, int | None, list[int]]:
        """(state, random stream, seed, actions) of a saved game, every part checked
        before anything of the env changes (the history against the state too); a
        RecordError naming what is wrong."""
        check_record_header(record, self.game)
        state = self.game.from_json(record["state"])
        rng = parse_rng(record["rng"])
        check_history(self.game, record, state, rng)
        return state, rng, record["seed"], list(record["actions"])


def _check_seed(seed: Any) -> int:
    """A reset seed: an int (numpy ints too); ConfigError for anything else."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ConfigError(f"reset(seed={seed!r}): a seed is an int or None")
    return int(seed)


def _jsonable(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str, list, dict))


def _check_choice(name: str, value: Any, allowed: tuple[Any, ...]) -> None:
    if value not in allowed:
        raise ConfigError(
            f"option {name}={value!r} is not allowed; allowed values: "
            f"{', '.join(repr(v) for v in allowed)}"
        )


def make_env_functions(
    game_cls: type[Game[Any]],
) -> tuple[Callable[..., ChocoAECEnv], Callable[..., ChocoAECEnv]]:
    """PettingZoo-style ``env`` and ``raw_env``.

    PettingZoo's classic ``env()`` stacks wrappers (order enforcing, out-of-bounds and
    illegal-action termination); the adapter does all three itself (it refuses step and
    observe before reset, and ends the game on an illegal or out-of-range action), so
    ``env`` returns the adapter unwrapped and saves the wrappers' attribute forwarding on
    every step."""

    def raw_env(**options: Any) -> ChocoAECEnv:
        return ChocoAECEnv(game_cls, **options)

    def env(**options: Any) -> ChocoAECEnv:
        return ChocoAECEnv(game_cls, **options)

    raw_env.__doc__ = f"The {game_cls.spec.env_id} AEC env. {ChocoAECEnv.__doc__}"
    env.__doc__ = raw_env.__doc__
    return env, raw_env
