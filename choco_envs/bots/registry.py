"""Bots made by name: ``make("mcts:simulations=400", env_id="chocolates_v0", seed=1)``.

A spec is a kind, optionally followed by ``:`` and comma-separated ``key=value`` options:

| spec | bot |
|---|---|
| ``random`` | a uniformly random legal move |
| ``greedy[:key=value...]`` | the game's beginner heuristic (``<game package>.greedy``), with the settings that game declares (``OPTIONS`` of that module; Chocolates, Chocolatiers and Le Chocolat have some) |
| ``mcts[:simulations=N,time=S,c=C,rollout=random/greedy,epsilon=E]`` | determinized MCTS |
| ``policy:PATH[,key=value...]`` | a trained checkpoint (``choco_envs.policy.bot.PolicyBot``) |
| ``ppo[:key=value...]`` | the env's shipped checkpoint (from ``choco_envs.policy``) |
| ``human`` | a person at the terminal |

A bad spec or option raises ConfigError naming the bad value and the allowed ones.
"""

from __future__ import annotations

import contextlib
import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choco_envs.bots.base import Bot
from choco_envs.bots.greedy import GreedyBot, greedy_options, greedy_settings_check
from choco_envs.bots.human import HumanBot
from choco_envs.bots.mcts import ROLLOUTS, MCTSBot
from choco_envs.bots.random_bot import RandomBot
from choco_envs.core.errors import ConfigError

KINDS = ("random", "greedy", "mcts", "policy", "ppo", "human")
#: the MCTS budget when a spec names none
DEFAULT_SIMULATIONS = 400


@dataclass(frozen=True)
class BotOption:
    """One ``key=value`` option of a bot kind: its parser (which raises ValueError with
    the allowed values) and what it means."""

    name: str
    parse: Callable[[str], Any]
    doc: str


def _number(kind: type, low: float, high: float = math.inf, low_open: bool = False) -> Any:
    def parse(text: str) -> Any:
        value = kind(text)
        too_low = value <= low if low_open else value < low
        if too_low or value > high or (isinstance(value, float) and math.isnan(value)):
            bracket = "(" if low_open else "["
            raise ValueError(f"allowed: {kind.__name__} in {bracket}{low:g}, {high:g}]")
        return value

    return parse


def _choice(allowed: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in allowed:
            raise ValueError(f"allowed values: {', '.join(allowed)}")
        return text

    return parse


MCTS_OPTIONS = {
    o.name: o
    for o in (
        BotOption("simulations", _number(int, 1), "iterations per move (int >= 1)"),
        BotOption("time", _number(float, 0.0, low_open=True), "seconds per move (float > 0)"),
        BotOption("c", _number(float, 0.0), "UCB exploration constant (float >= 0)"),
        BotOption("rollout", _choice(ROLLOUTS), "rollout policy: random or greedy"),
        BotOption("epsilon", _number(float, 0.0, 1.0), "random-move rate of greedy rollouts"),
        BotOption("margin", _number(float, 0.0, 1.0), "weight of the score margin in values"),
    )
}


def parse_spec(spec: str) -> tuple[str, str]:
    """Split ``kind:rest``; check the kind."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"bot spec {spec!r} is not allowed; allowed kinds: {', '.join(KINDS)}")
    kind, _, rest = spec.strip().partition(":")
    if kind not in KINDS:
        raise ConfigError(
            f"unknown bot kind {kind!r} in spec {spec!r}; allowed kinds: {', '.join(KINDS)}"
        )
    return kind, rest


def parse_pairs(spec: str, text: str) -> dict[str, str]:
    """``a=1,b=2`` -> {"a": "1", "b": "2"}; ConfigError on a malformed item."""
    pairs: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise ConfigError(f"bot spec {spec!r}: option {item!r} is not of the form key=value")
        pairs[key.strip()] = value.strip()
    return pairs


def parse_options(spec: str, kind: str, text: str, schema: dict[str, BotOption]) -> dict[str, Any]:
    """Parse and check ``key=value`` options against ``schema``."""
    options: dict[str, Any] = {}
    for key, value in parse_pairs(spec, text).items():
        if key not in schema:
            allowed = ", ".join(schema) if schema else "none"
            raise ConfigError(
                f"bot spec {spec!r}: unknown option {key!r} for {kind}; allowed options: {allowed}"
            )
        try:
            options[key] = schema[key].parse(value)
        except ValueError as err:
            detail = str(err) if str(err).startswith("allowed") else schema[key].doc
            raise ConfigError(
                f"bot spec {spec!r}: option {key}={value!r} is not allowed; {detail}"
            ) from None
    return options


def parse_literal(text: str) -> Any:
    """A policy option value: int, float, true/false, none, else the text itself."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        with contextlib.suppress(ValueError):  # not this kind: try the next, else text
            return kind(text)
    return text


def make(
    spec: str,
    env_id: str | None = None,
    seed: int | None = None,
    env_options: dict[str, Any] | None = None,
) -> Bot:
    """The bot that ``spec`` names, seeded with ``seed``. ``env_id`` (and ``env_options``,
    e.g. ``num_players``) choose the checkpoint of ``ppo``; ``env_id`` is passed to
    policy bots, which check it against their checkpoint."""
    kind, rest = parse_spec(spec)
    bot: Bot
    if kind == "greedy" and rest.strip():
        bot = GreedyBot(seed=seed, options=greedy_settings(spec, rest, env_id))
    elif kind in ("random", "greedy", "human"):
        parse_options(spec, kind, rest, {})
        bot = {"random": RandomBot, "greedy": GreedyBot, "human": HumanBot}[kind](seed=seed)
    elif kind == "mcts":
        bot = make_mcts(spec, rest, seed)
    elif kind == "policy":
        path, _, opts = rest.partition(",")
        if not path.strip():
            raise ConfigError(f"bot spec {spec!r}: policy needs a checkpoint path: policy:PATH")
        bot = make_policy(spec, path.strip(), opts, env_id, seed)
    else:
        checkpoint = shipped_checkpoint(env_id, env_options)
        bot = make_policy(spec, str(checkpoint), rest, env_id, seed)
    bot.name = spec.strip()
    return bot


def greedy_settings(spec: str, text: str, env_id: str | None) -> dict[str, Any]:
    """The ``greedy:key=value`` settings, checked against those the env's heuristic
    declares (``OPTIONS`` in its greedy module)."""
    if env_id is None:
        raise ConfigError(
            f"bot spec {spec!r}: greedy settings need an env_id (they are the game's)"
        )
    from choco_envs.registry import game_class

    declared = greedy_options(game_class(env_id))
    schema = {name: BotOption(name, parse, doc) for name, (parse, doc) in declared.items()}
    settings = parse_options(spec, f"greedy of {env_id}", text, schema)
    check = greedy_settings_check(game_class(env_id))
    if check is not None:
        try:
            check(settings)
        except ValueError as err:
            raise ConfigError(f"bot spec {spec!r}: {err}") from None
    return settings


def make_mcts(spec: str, text: str, seed: int | None) -> MCTSBot:
    options = parse_options(spec, "mcts", text, MCTS_OPTIONS)
    seconds = options.pop("time", None)
    default = DEFAULT_SIMULATIONS if seconds is None else None
    simulations = options.pop("simulations", default)
    return MCTSBot(simulations=simulations, seconds=seconds, seed=seed, **options)


def make_policy(spec: str, path: str, text: str, env_id: str | None, seed: int | None) -> Bot:
    """A checkpoint bot, imported lazily (torch loads only here)."""
    options = {k: parse_literal(v) for k, v in parse_pairs(spec, text).items()}
    try:
        module = importlib.import_module("choco_envs.policy.bot")
    except ModuleNotFoundError as err:
        raise ConfigError(
            f"bot spec {spec!r}: policy bots need choco_envs.policy.bot, which cannot be "
            f"imported ({err}); install the 'train' extra"
        ) from err
    bot: Bot = module.PolicyBot(path, env_id=env_id, **options)
    bot.reset(seed)
    return bot


def shipped_checkpoint(env_id: str | None, env_options: dict[str, Any] | None = None) -> Path:
    """The checkpoint shipped for ``env_id`` with these options, as
    ``choco_envs.policy.shipped_checkpoint`` finds it (imported lazily)."""
    if env_id is None:
        raise ConfigError("bot 'ppo' needs an env_id to find that env's shipped checkpoint")
    try:
        policy = importlib.import_module("choco_envs.policy")
    except ModuleNotFoundError as err:
        raise ConfigError(
            f"bot 'ppo' needs choco_envs.policy, which cannot be imported ({err})"
        ) from err
    return Path(policy.shipped_checkpoint(env_id, dict(env_options or {})))
