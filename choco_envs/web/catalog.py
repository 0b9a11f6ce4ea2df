"""What the lobby offers, and the checks of what a client asks for: the envs with the
options a web client may set, and the bots that can be made for a configuration.

A client never names a file: options that take a path (``components``) are refused, and
``policy:PATH`` is accepted only for a checkpoint the server was started with
(``choco serve --policy PATH``). MCTS budgets are capped, so one request cannot hold a
bot worker for long.
"""

from __future__ import annotations

import functools
import json
import math
import threading
from collections.abc import Callable, Mapping
from typing import Any

from choco_envs.core.errors import ChocoError
from choco_envs.registry import game_class, list_envs
from choco_envs.web.errors import Invalid

#: options without a short list of allowed values that a client may still set, with the
#: choices the lobby offers (from the game built with its defaults)
FREE_OPTIONS: dict[str, Callable[[Any], list[Any]]] = {
    "scoring_card": lambda game: [None, *game.components.card_names],
}
#: the most seats a request may list (no game has more)
MAX_SEATS = 8
#: caps of an ``mcts`` spec: simulations per move, seconds per move
MAX_SIMULATIONS = 3000
MAX_SECONDS = 10.0
#: the MCTS presets the lobby lists
MCTS_PRESETS = ("mcts:simulations=100", "mcts")
#: kinds the lobby never lists as a bot (a person is "human"; policy needs a path)
NOT_LISTED = ("human", "policy", "mcts")


def settable(option: Any) -> bool:
    """Whether a web client may set this game option."""
    return option.allowed is not None or option.name in FREE_OPTIONS


def check_env(env_id: Any) -> str:
    envs = list_envs()
    if not isinstance(env_id, str) or env_id not in envs:
        raise Invalid(f"unknown env {env_id!r}; envs: {', '.join(envs)}")
    return env_id


def check_options(env_id: str, options: Any) -> dict[str, Any]:
    """The game options of a request: names the game has and a client may set, values
    JSON scalars (the game then checks each value)."""
    if not isinstance(options, Mapping):
        raise Invalid(f"options must be an object, got {type(options).__name__}")
    spec = game_class(env_id).spec
    known = {o.name: o for o in spec.options}
    allowed = ["num_players", *(o.name for o in spec.options if settable(o))]
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key not in allowed:
            why = (
                "it cannot be set from the web (it may name a file on the server)"
                if key in known
                else "no such option"
            )
            raise Invalid(
                f"option {key!r} of {env_id}: {why}; options a client may set: {', '.join(allowed)}"
            )
        if value is not None and not isinstance(value, (bool, int, float, str)):
            raise Invalid(f"option {key}={value!r}: a value is a string, number, bool or null")
        if isinstance(value, float) and not math.isfinite(value):
            raise Invalid(f"option {key}={value!r}: not a finite number")
        out[key] = value
    return out


def check_record_options(env_id: str, options: Any) -> None:
    """An uploaded record's options: those a client may set, any others at their
    defaults (a record never makes the server read a file)."""
    if not isinstance(options, Mapping):
        raise Invalid("record: field 'options' must be an object")
    spec = game_class(env_id).spec
    for opt in spec.options:
        if opt.name in options and not settable(opt) and options[opt.name] != opt.default:
            raise Invalid(
                f"record: option {opt.name}={options[opt.name]!r} cannot be served from the "
                f"web; only its default {opt.default!r}"
            )


def check_bot_spec(spec: Any, env_id: str, policies: list[str]) -> str:
    """A seat's bot spec as a client may give it (the registry then checks it fully)."""
    from choco_envs.bots.registry import MCTS_OPTIONS, kinds, parse_options

    if not isinstance(spec, str) or not spec.strip():
        raise Invalid(f"seat {spec!r}: a seat is 'human' or a bot spec")
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    if kind == "human":
        raise Invalid(f"seat {spec!r}: a person's seat is just 'human'")
    if kind not in kinds(env_id):
        raise Invalid(
            f"seat {spec!r}: unknown bot kind {kind!r}; kinds for {env_id}: "
            f"{', '.join(k for k in kinds(env_id) if k != 'human')}"
        )
    if kind == "policy":
        path = rest.partition(",")[0].strip()
        if path not in policies:
            served = ", ".join(f"policy:{p}" for p in policies) or "none"
            raise Invalid(
                f"seat {spec!r}: this server plays only the checkpoints it was started with "
                f"(choco serve --policy PATH); served: {served}"
            )
    if kind == "mcts":
        try:
            options = parse_options(spec, "mcts", rest, MCTS_OPTIONS)
        except ChocoError as err:
            raise Invalid(str(err)) from None
        if options.get("simulations", 0) > MAX_SIMULATIONS:
            raise Invalid(f"seat {spec!r}: at most {MAX_SIMULATIONS} simulations per move here")
        if options.get("time", 0.0) > MAX_SECONDS:
            raise Invalid(f"seat {spec!r}: at most {MAX_SECONDS:g} seconds per move here")
    return spec


def env_entry(env_id: str) -> dict[str, Any]:
    """One env in the catalog: its name, players and the options a client may set."""
    cls = game_class(env_id)
    spec = cls.spec
    game = cls()
    options = []
    for opt in spec.options:
        if not settable(opt):
            continue
        choices = list(opt.allowed) if opt.allowed is not None else FREE_OPTIONS[opt.name](game)
        options.append(
            {"name": opt.name, "default": opt.default, "doc": opt.doc, "choices": choices}
        )
    return {
        "env_id": env_id,
        "name": spec.name,
        "min_players": spec.min_players,
        "max_players": spec.max_players,
        "default_players": spec.default_players,
        "players_for": player_counts(cls),
        "hidden_information": spec.hidden_information,
        "options": options,
    }


def player_counts(cls: Any) -> list[dict[str, Any]]:
    """For each combination of the rule options with a short list of values, the player
    counts the game accepts (found by building it): ``{options, min, max}``."""
    spec = cls.spec
    enumerable = [o for o in spec.options if o.rule and o.allowed is not None]
    out: list[dict[str, Any]] = []
    for config in spec.configurations():
        values = {o.name: config[o.name] for o in enumerable}
        try:
            cls(**config)
        except ChocoError:
            continue
        entry = next((e for e in out if e["options"] == values), None)
        n = config["num_players"]
        if entry is None:
            out.append({"options": values, "min": n, "max": n})
        else:
            entry["min"], entry["max"] = min(entry["min"], n), max(entry["max"], n)
    return out


@functools.lru_cache(maxsize=1)
def envs() -> list[dict[str, Any]]:
    return [env_entry(e) for e in list_envs()]


def catalog(policies: list[str]) -> dict[str, Any]:
    return {"envs": envs(), "policies": list(policies)}


class BotCatalog:
    """The bots that can be made for one configuration, tried once and remembered: each
    candidate is made and, unless it searches (MCTS), plays one move of a fresh game, so
    a checkpoint that does not fit these options is not offered."""

    def __init__(self, policies: list[str]) -> None:
        self.policies = list(policies)
        self._cache: dict[str, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def candidates(self, env_id: str) -> list[str]:
        from choco_envs.bots.registry import kinds

        specs = [k for k in kinds(env_id) if k not in NOT_LISTED]
        return [*specs, *MCTS_PRESETS, *(f"policy:{p}" for p in self.policies)]

    def bots(self, env_id: str, options: dict[str, Any]) -> list[dict[str, Any]]:
        """[{spec, ok, reason}] for every candidate (blocking: run it off the event loop)."""
        key = json.dumps([env_id, options], sort_keys=True, default=repr)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
            found = [self._try(spec, env_id, options) for spec in self.candidates(env_id)]
            self._cache[key] = found
            return found

    @staticmethod
    def _try(spec: str, env_id: str, options: dict[str, Any]) -> dict[str, Any]:
        from choco_envs.bots import make as make_bot
        from choco_envs.registry import make

        try:
            bot = make_bot(spec, env_id=env_id, seed=0, env_options=options)
            if not spec.startswith("mcts"):
                env = make(env_id, illegal_action="raise", **options)
                env.reset(seed=0)
                env.step(int(bot.act(env)))
        except Exception as err:  # noqa: BLE001 - any failure means "not offered"
            return {"spec": spec, "ok": False, "reason": f"{type(err).__name__}: {err}"}
        return {"spec": spec, "ok": True, "reason": None}
