"""Bots made by name: ``make("mcts:simulations=400", env_id="chocolates_v0", seed=1)``.

A spec is a kind, optionally followed by ``:`` and comma-separated ``key=value`` options.
Every env has these kinds:

| spec | bot |
|---|---|
| ``random`` | a uniformly random legal move |
| ``mcts[:simulations=N,time=S,c=C,rollout=random/greedy,epsilon=E,margin=M]`` | determinized MCTS |
| ``policy:PATH[,key=value...]`` | a trained checkpoint (``choco_envs.policy.bot.PolicyBot``) |
| ``ppo[:key=value...]`` | the env's shipped checkpoint (from ``choco_envs.policy``) |
| ``az[:simulations=N,time=S,checkpoint=PATH,noise=G]`` | a policy-value checkpoint guiding Gumbel IS-MCTS (the env's shipped ``az`` file unless ``checkpoint``) |
| ``human`` | a person at the terminal |

and the kinds its game lists in ``BOTS`` of its folder under ``choco_envs/bots/`` (each
game's manifest names its folder; every game has ``greedy``, its beginner baseline; ``choco list`` and ``kinds(env_id)`` show the rest). A game made outside the
package registers its kinds with :func:`register_game_bots`.

A bad spec or option raises ConfigError naming the bad value and the allowed ones.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from choco_envs.bots.base import AgentView, Bot, BotOption, choice_parser, number_parser
from choco_envs.bots.game_kinds import COMMON_KINDS, all_game_kinds, game_bots
from choco_envs.bots.human import HumanBot
from choco_envs.bots.mcts import ROLLOUTS, MCTSBot
from choco_envs.bots.random_bot import RandomBot
from choco_envs.core.errors import ConfigError

#: the kinds every env has
KINDS = COMMON_KINDS
#: the MCTS budget when a spec names none
DEFAULT_SIMULATIONS = 400

__all__ = ["KINDS", "game_bots", "kinds", "make"]


def kinds(env_id: str | None = None) -> list[str]:
    """Every kind a spec may name for ``env_id`` (without an env: the common kinds and
    those of every game in the package)."""
    return [*KINDS, *(game_bots(env_id) if env_id else all_game_kinds())]


MCTS_OPTIONS = {
    o.name: o
    for o in (
        BotOption("simulations", number_parser(int, 1), "iterations per move (int >= 1)"),
        BotOption("time", number_parser(float, 0.0, low_open=True), "seconds per move (float > 0)"),
        BotOption("c", number_parser(float, 0.0), "UCB exploration constant (float >= 0)"),
        BotOption("rollout", choice_parser(ROLLOUTS), "rollout policy: random or greedy"),
        BotOption("epsilon", number_parser(float, 0.0, 1.0), "random-move rate of greedy rollouts"),
        BotOption("margin", number_parser(float, 0.0, 1.0), "weight of the score margin in values"),
    )
}


def parse_spec(spec: str, env_id: str | None = None) -> tuple[str, str]:
    """Split ``kind:rest``; check the kind against those of ``env_id`` (without an env,
    a game's kind is checked when the bot first sees its game)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(
            f"bot spec {spec!r} is not allowed; allowed kinds: {', '.join(kinds(env_id))}"
        )
    kind, _, rest = spec.strip().partition(":")
    allowed = kinds(env_id)
    if kind not in allowed:
        where = f" for {env_id}" if env_id else ""
        raise ConfigError(
            f"unknown bot kind {kind!r} in spec {spec!r}; allowed kinds{where}: "
            f"{', '.join(allowed)}"
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


def make(
    spec: str,
    env_id: str | None = None,
    seed: int | None = None,
    env_options: dict[str, Any] | None = None,
) -> Bot:
    """The bot that ``spec`` names, seeded with ``seed``. ``env_id`` chooses the game's
    own kinds (and, with ``env_options``, e.g. ``num_players``, the checkpoint of
    ``ppo``); policy bots check it against their checkpoint. Without ``env_id`` a game's
    kind (``greedy``) is made for the game it first plays."""
    kind, rest = parse_spec(spec, env_id)
    bot: Bot
    if kind in ("random", "human"):
        parse_options(spec, kind, rest, {})
        bot = {"random": RandomBot, "human": HumanBot}[kind](seed=seed)
    elif kind == "mcts":
        bot = make_mcts(spec, rest, seed)
    elif kind == "policy":
        path, _, opts = rest.partition(",")
        if not path.strip():
            raise ConfigError(f"bot spec {spec!r}: policy needs a checkpoint path: policy:PATH")
        bot = make_policy(spec, path.strip(), opts, env_id, seed)
    elif kind == "ppo":
        checkpoint = shipped_checkpoint(env_id, env_options)
        bot = make_policy(spec, str(checkpoint), rest, env_id, seed)
    elif kind == "az":
        bot = make_az(spec, rest, env_id, env_options, seed)
    elif env_id is None:
        bot = GameBotOnFirstMove(spec, kind, rest, seed)
    else:
        bot = make_game_bot(spec, env_id, kind, rest, seed)
    bot.name = spec.strip()
    return bot


def make_game_bot(spec: str, env_id: str, kind: str, text: str, seed: int | None) -> Bot:
    """A bot of one of ``env_id``'s own kinds, its settings parsed and checked."""
    entry = game_bots(env_id).get(kind)
    if entry is None:
        raise ConfigError(
            f"unknown bot kind {kind!r} in spec {spec!r}; allowed kinds for {env_id}: "
            f"{', '.join(kinds(env_id))}"
        )
    settings = parse_options(spec, f"{kind} of {env_id}", text, dict(entry.options))
    if entry.check is not None:
        try:
            entry.check(settings)
        except ValueError as err:
            raise ConfigError(f"bot spec {spec!r}: {err}") from None
    bot = entry.build(settings, seed)
    bot.name = spec.strip()
    return bot


class GameBotOnFirstMove(Bot):
    """A game's bot kind named without an env (``make("greedy")``): made for the game it
    first plays, and refused then (ConfigError) if that game has no such kind."""

    def __init__(self, spec: str, kind: str, text: str, seed: int | None) -> None:
        super().__init__(seed)
        self.spec, self.kind, self.text, self.seed = spec, kind, text, seed
        self.inner: Bot | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.seed = seed
        if self.inner is not None:
            self.inner.reset(seed)

    def act_view(self, view: AgentView) -> int:
        if self.inner is None:
            env_id = view.game.spec.env_id
            self.inner = make_game_bot(self.spec, env_id, self.kind, self.text, self.seed)
        return self.inner.act_view(view)


def make_mcts(spec: str, text: str, seed: int | None) -> MCTSBot:
    options = parse_options(spec, "mcts", text, MCTS_OPTIONS)
    seconds = options.pop("time", None)
    default = DEFAULT_SIMULATIONS if seconds is None else None
    simulations = options.pop("simulations", default)
    return MCTSBot(simulations=simulations, seconds=seconds, seed=seed, **options)


def _bool(text: str) -> bool:
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise ValueError("allowed values: true, false")


POLICY_OPTIONS = {
    o.name: o
    for o in (
        BotOption(
            "sample", _bool, "draw moves from the policy (true) or play its most likely (false)"
        ),
    )
}


def make_policy(spec: str, path: str, text: str, env_id: str | None, seed: int | None) -> Bot:
    """A checkpoint bot, imported lazily (torch loads only here)."""
    options = parse_options(spec, "policy", text, POLICY_OPTIONS)
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


AZ_OPTIONS = {
    o.name: o
    for o in (
        BotOption("simulations", number_parser(int, 1, 4096), "simulations per move (1..4096)"),
        BotOption("time", number_parser(float, 0.0, 60.0, low_open=True), "seconds per move"),
        BotOption(
            "checkpoint",
            str,
            "a policy-value or policy checkpoint (default: the shipped az file, else the "
            "shipped PPO network)",
        ),
        BotOption("noise", number_parser(float, 0.0, 10.0), "Gumbel noise scale at the root"),
        BotOption(
            "considered",
            number_parser(int, 1, 4096),
            "actions the Gumbel root considers (1..4096; default: the file's, else 16)",
        ),
        BotOption(
            "batch",
            number_parser(int, 1, 64),
            "walks of one root action searched together, steered apart by virtual visits "
            "(1..64; default: the file's, else 1: one at a time)",
        ),
        BotOption(
            "c_scale",
            number_parser(float, 0.0, 100.0),
            "weight of the searched values against the network's priors (0..100; default: "
            "the file's, else 1 for a search-and-learn file, the game's search_c_scale for "
            "a PPO network)",
        ),
    )
}


def make_az(
    spec: str,
    text: str,
    env_id: str | None,
    env_options: dict[str, Any] | None,
    seed: int | None,
) -> Bot:
    """The search bot on a checkpoint (``checkpoint=PATH``, or the env's shipped az file,
    or where no az file serves the table, the env's shipped PPO network: the one ``ppo``
    plays), imported lazily (torch loads only here)."""
    options = parse_options(spec, "az", text, AZ_OPTIONS)
    if "simulations" in options and "time" in options:
        raise ConfigError(f"bot spec {spec!r}: give simulations or time, not both")
    path = options.pop("checkpoint", None)
    if path is None:
        path = str(shipped_checkpoint(env_id, env_options, prefix="az"))
    try:
        module = importlib.import_module("choco_envs.policy.az_bot")
    except ModuleNotFoundError as err:
        raise ConfigError(
            f"bot spec {spec!r}: az bots need choco_envs.policy.az_bot, which cannot be "
            f"imported ({err}); install the 'train' extra"
        ) from err
    bot: Bot = module.AZBot(
        path,
        env_id=env_id,
        simulations=options.get("simulations"),
        seconds=options.get("time"),
        gumbel_scale=options.get("noise", 0.0),
        c_scale=options.get("c_scale"),
        max_considered=options.get("considered"),
        leaf_batch=options.get("batch"),
    )
    bot.reset(seed)
    return bot


def shipped_checkpoint(
    env_id: str | None, env_options: dict[str, Any] | None = None, prefix: str = "ppo"
) -> Path:
    """The checkpoint shipped for ``env_id`` with these options, as
    ``choco_envs.policy.shipped_checkpoint`` finds it (imported lazily)."""
    if env_id is None:
        raise ConfigError(f"bot {prefix!r} needs an env_id to find that env's shipped checkpoint")
    try:
        policy = importlib.import_module("choco_envs.policy")
    except ModuleNotFoundError as err:
        raise ConfigError(
            f"bot 'ppo' needs choco_envs.policy, which cannot be imported ({err})"
        ) from err
    if prefix == "az":  # the az file, else the PPO network with search
        return Path(policy.search_checkpoint(env_id, dict(env_options or {})))
    return Path(policy.shipped_checkpoint(env_id, dict(env_options or {}), prefix))
