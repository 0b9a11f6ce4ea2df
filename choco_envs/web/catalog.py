"""What the lobby offers, and the checks of what a client asks for: the envs with the
options a web client may set, and the bots that can be made for a configuration.

A client never names a file: options that take a path (``components``) are refused, and
``policy:PATH`` is accepted only for a checkpoint the server was started with
(``choco serve --policy PATH``). MCTS budgets are capped, so one request cannot hold a
bot worker for long.

What a client may ask for is a finite list, and the API's schema states it exactly
(``choco_envs/web/schema.py`` builds it from the functions here): every configuration of
an env (:func:`configurations`: its options' values and player counts), and for each the
seats (:func:`seat_choices`): ``human``, a bot kind by its plain name where it can be
made for that configuration, a served ``policy:PATH`` that fits it, or an MCTS spec
within the caps (:data:`MCTS_SPEC`). The checks below accept exactly that.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import re
import threading
from collections.abc import Mapping
from typing import Any

from choco_envs.core.errors import ChocoError
from choco_envs.registry import game_class, list_envs
from choco_envs.web.errors import Invalid, excerpt

#: the most seats a request may list (no game has more)
MAX_SEATS = 8
#: caps of an ``mcts`` spec: simulations per move, seconds per move
MAX_SIMULATIONS = 3000
MAX_SECONDS = 10.0
#: the MCTS presets the lobby lists
MCTS_PRESETS = ("mcts:simulations=100", "mcts")
#: kinds the lobby never lists as a bot (a person is "human"; policy needs a path)
NOT_LISTED = ("human", "policy", "mcts")
HUMAN = "human"


def _mcts_spec() -> str:
    """The MCTS specs a client may give: ``mcts`` or ``mcts:`` and comma-separated
    options, each within the caps (simulations 1..3000, time in (0, 10] seconds)."""
    decimals = r"(?:\.[0-9]{1,6})?"
    simulations = r"(?:[1-9][0-9]{0,2}|[12][0-9]{3}|3000)"
    assert MAX_SIMULATIONS == 3000 and MAX_SECONDS == 10.0, "update the pattern"
    seconds = r"(?:0\.[0-9]{0,5}[1-9]|[1-9]" + decimals + r"|10(?:\.0{1,6})?)"
    unit = r"(?:0" + decimals + r"|1(?:\.0{1,6})?)"
    option = (
        f"(?:simulations={simulations}|time={seconds}|c=(?:0|[1-9][0-9]{{0,2}}){decimals}"
        f"|rollout=(?:random|greedy)|epsilon={unit}|margin={unit})"
    )
    return f"^mcts(?::{option}(?:,{option})*)?$"


#: an MCTS spec a client may give (the same pattern is in the API's schema)
MCTS_SPEC = _mcts_spec()


def settable(option: Any) -> bool:
    """Whether a web client may set this game option."""
    return option.allowed is not None or option.choices is not None


def check_env(env_id: Any) -> str:
    envs = list_envs()
    if not isinstance(env_id, str) or env_id not in envs:
        raise Invalid(f"unknown env {excerpt(env_id)}; envs: {', '.join(envs)}")
    return env_id


def same_value(value: Any, choice: Any) -> bool:
    """``value == choice`` as JSON compares them: true is not 1, 2.0 is 2."""
    number = (int, float)
    if isinstance(value, bool) or isinstance(choice, bool):
        return type(value) is type(choice) and value == choice
    if isinstance(value, number) and isinstance(choice, number):
        return bool(value == choice)
    return type(value) is type(choice) and value == choice


def json_int(value: Any) -> Any:
    """A JSON integer as Python's int (``3.0`` is the integer 3 in JSON); anything else
    as it is, for the type check to refuse."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


def check_options(env_id: str, options: Any) -> dict[str, Any]:
    """The game options of a request: names the game has and a client may set, each
    value one of that option's choices (``num_players`` an integer; the game then
    checks the combination)."""
    if not isinstance(options, Mapping):
        raise Invalid(f"options must be an object, got {type(options).__name__}")
    spec = game_class(env_id).spec
    known = {o.name: o for o in spec.options}
    choices = {o["name"]: o["choices"] for o in env_entry(env_id)["options"]}
    allowed = ["num_players", *choices]
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key not in allowed:
            why = (
                "it cannot be set from the web (it may name a file on the server)"
                if key in known
                else "no such option"
            )
            raise Invalid(
                f"option {excerpt(key)} of {env_id}: {why}; options a client may set: "
                f"{', '.join(allowed)}"
            )
        if key == "num_players":
            value = json_int(value)
            if type(value) is not int or not spec.min_players <= value <= spec.max_players:
                raise Invalid(
                    f"option num_players={excerpt(value)} of {env_id}: an integer "
                    f"{spec.min_players}..{spec.max_players}"
                )
        elif not any(same_value(value, c) for c in choices[key]):
            raise Invalid(
                f"option {key}={excerpt(value)} of {env_id}: allowed values: "
                f"{', '.join(json.dumps(c) for c in choices[key])}"
            )
        out[key] = value
    return out


def _key(options: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(options.items()))


@functools.cache
def configurations(env_id: str) -> list[dict[str, Any]]:
    """Every configuration a client may ask for: ``num_players`` and a value of every
    option a client may set, as the game accepts them (found by building it)."""
    cls = game_class(env_id)
    spec = cls.spec
    names = [o["name"] for o in env_entry(env_id)["options"]]
    values = [o["choices"] for o in env_entry(env_id)["options"]]
    found = []
    for combo in itertools.product(*values):
        for n in range(spec.min_players, spec.max_players + 1):
            config = {"num_players": n, **dict(zip(names, combo, strict=True))}
            try:
                cls(**config)
            except ChocoError:
                continue
            found.append(config)
    return found


def full_config(env_id: str, options: Mapping[str, Any], players: int | None) -> dict[str, Any]:
    """``options`` with every settable option's default filled in, and ``num_players``
    (``players`` when not given, else the game's default)."""
    entry = env_entry(env_id)
    config = {"num_players": options.get("num_players", players or entry["default_players"])}
    for opt in entry["options"]:
        config[opt["name"]] = options.get(opt["name"], opt["default"])
    return config


def seat_choices(env_id: str, config: Mapping[str, Any], policies: list[str]) -> list[str]:
    """The seats a client may name for this configuration besides MCTS specs:
    ``human``, every bot kind (by its plain name) that can be made for it, and every
    served checkpoint that fits it."""
    return list(_seat_choices(env_id, _key(config), tuple(policies)))


@functools.lru_cache(maxsize=512)
def _seat_choices(
    env_id: str, config: tuple[tuple[str, Any], ...], policies: tuple[str, ...]
) -> tuple[str, ...]:
    from choco_envs.bots.registry import kinds

    options = dict(config)
    found = [HUMAN]
    for kind in kinds(env_id):
        if kind not in NOT_LISTED and _makeable(kind, env_id, options):
            found.append(kind)
    found += [f"policy:{p}" for p in policies if _fits(p, env_id, options)]
    return tuple(found)


def _makeable(kind: str, env_id: str, options: dict[str, Any]) -> bool:
    """Whether the bot ``kind`` can be made for this configuration (``ppo``: a shipped
    checkpoint fits it and torch is installed, without loading it)."""
    from choco_envs.bots import make as make_bot
    from choco_envs.bots.registry import shipped_checkpoint

    try:
        if kind == "ppo":
            shipped_checkpoint(env_id, options)
            return all(importlib.util.find_spec(m) for m in ("torch", "safetensors"))
        make_bot(kind, env_id=env_id, seed=0, env_options=options)
    except (ChocoError, ImportError):
        return False
    return True


def _fits(path: str, env_id: str, options: dict[str, Any]) -> bool:
    """Whether the served checkpoint at ``path`` plays this configuration."""
    return _misfit(path, env_id, options) is None


def _misfit(path: str, env_id: str, options: dict[str, Any]) -> str | None:
    """Why the served checkpoint at ``path`` cannot play this configuration, or None."""
    try:
        from choco_envs.policy.checkpoint import check_compatible, read_metadata

        check_compatible(read_metadata(path), path, env_id, options)
    except (ChocoError, ImportError, OSError) as err:
        return str(err)[-200:]
    return None


def check_seat(spec: Any, env_id: str, config: Mapping[str, Any], policies: list[str]) -> str:
    """A seat as a client may give it for this configuration (:func:`seat_choices` or
    an MCTS spec within the caps); Invalid saying why otherwise."""
    if spec == HUMAN:
        return HUMAN
    if isinstance(spec, str) and spec.startswith("mcts") and re.fullmatch(MCTS_SPEC, spec):
        return spec
    check_bot_spec(spec, env_id, policies)  # says why a bad spec is bad
    offered = seat_choices(env_id, config, policies)
    if spec in offered:
        return str(spec)
    options = ", ".join(f"{k}={v!r}" for k, v in config.items())
    kind, _, path = str(spec).partition(":")
    if kind == "policy":
        why = f"the checkpoint does not play it ({_misfit(path, env_id, dict(config))})"
    elif kind == "mcts":
        why = "an MCTS spec is mcts or mcts:key=value,... (simulations, time, c, rollout, epsilon, margin)"
    elif ":" in str(spec):
        why = "a bot is named by its kind alone here (only MCTS takes options)"
    else:
        why = "it cannot be made for this configuration"
    raise Invalid(
        f"seat {excerpt(spec)} of {env_id} ({options}): {why}; seats here: "
        f"{', '.join(offered)}, or mcts[:options]"
    )


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
        raise Invalid(f"seat {excerpt(spec)}: a seat is 'human' or a bot spec")
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    if kind == "human":
        raise Invalid(f"seat {excerpt(spec)}: a person's seat is just 'human'")
    if kind not in kinds(env_id):
        raise Invalid(
            f"seat {excerpt(spec)}: unknown bot kind {excerpt(kind)}; kinds for {env_id}: "
            f"{', '.join(k for k in kinds(env_id) if k != 'human')}"
        )
    if kind == "policy":
        path = rest.partition(",")[0].strip()
        if path not in policies:
            served = ", ".join(f"policy:{p}" for p in policies) or "none"
            raise Invalid(
                f"seat {excerpt(spec)}: this server plays only the checkpoints it was started "
                f"with (choco serve --policy PATH); served: {served}"
            )
    if kind == "mcts":
        try:
            options = parse_options(spec, "mcts", rest, MCTS_OPTIONS)
        except ChocoError as err:
            raise Invalid(f"seat {excerpt(spec)}: {err}"[:300]) from None
        if options.get("simulations", 0) > MAX_SIMULATIONS:
            raise Invalid(
                f"seat {excerpt(spec)}: at most {MAX_SIMULATIONS} simulations per move here"
            )
        if options.get("time", 0.0) > MAX_SECONDS:
            raise Invalid(f"seat {excerpt(spec)}: at most {MAX_SECONDS:g} seconds per move here")
    return spec


@functools.cache
def env_entry(env_id: str) -> dict[str, Any]:
    """One env in the catalog: its name, players and the options a client may set
    (built once; not to be changed)."""
    cls = game_class(env_id)
    spec = cls.spec
    game = cls()
    options = []
    for opt in spec.options:
        if not settable(opt):
            continue
        choices = list(opt.allowed) if opt.allowed is not None else opt.choices(game)  # type: ignore[misc]
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
