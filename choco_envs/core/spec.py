"""Static facts about a game, declared once: its id, players, options and their values."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from choco_envs.core.errors import ConfigError, shown
from choco_envs.core.files import MAX_COMPONENTS_BYTES, names_a_file, read_json_file


@dataclass(frozen=True)
class Option:
    """One rule option of a game.

    ``allowed`` lists every legal value when the set is small (the conformance suite then
    runs every one); ``check`` validates open-ended values (component data, say) and
    returns an error text or None.

    ``json_file``: a string (or path) value names a JSON file holding the value. It is
    read once, when the option is validated (a regular file of at most
    ``MAX_COMPONENTS_BYTES``), and the data takes the path's place: the game's config,
    its records and its checkpoints hold the data, never the path, so they play the same
    anywhere. A record or a checkpoint that names a file is refused (data from elsewhere
    must not make this machine read its files).
    """

    name: str
    default: Any
    doc: str
    allowed: tuple[Any, ...] | None = None
    check: Callable[[Any], str | None] | None = None
    rule: bool = True  # a rule option changes the game; the conformance suite varies it
    json_file: bool = False
    #: for an open-ended option (no ``allowed``), the values a lobby offers, from the game
    #: built with its defaults (Le Chocolat's scoring cards: None, then each card's name)
    choices: Callable[[Any], list[Any]] | None = None
    #: None draws the value at random at setup (a public draw: every seat sees the
    #: result), so a policy trained with None has met every value, and serves a game
    #: that fixes one (Le Chocolat's scoring card)
    drawn: bool = False

    def names_file(self, value: Any) -> bool:
        """Whether ``value`` is a path this option would read (records refuse it)."""
        return self.json_file and names_a_file(value)

    def validate(self, value: Any) -> Any:
        """The canonical value (numpy scalars become Python ones), or ConfigError naming
        the allowed values. A value matches an allowed one of its own kind only: 0 is
        not False, 1.0 is not 1."""
        value = canonical(value)
        if self.names_file(value):
            value = read_json_file(
                value, f"option {self.name}: file", MAX_COMPONENTS_BYTES, ConfigError
            )
        if self.allowed is not None and not any(same_value(value, a) for a in self.allowed):
            raise ConfigError(
                f"option {self.name}={shown(value)} is not allowed; allowed values: "
                f"{', '.join(repr(v) for v in self.allowed)}"
            )
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise ConfigError(
                    f"option {self.name}={shown(value)} is not allowed: {problem:.300}"
                )
        return value


def canonical(value: Any) -> Any:
    """A numpy scalar as the Python value of its kind; anything else unchanged."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.str_):
        return str(value)
    return value


def same_value(value: Any, allowed: Any) -> bool:
    """Equal and of the same kind (bool, int, float and str are told apart)."""
    kinds = (bool, int, float, str)
    kind_of = next((k for k in kinds if isinstance(allowed, k)), None)
    if kind_of is not None and type(value) is not kind_of:
        return False
    return bool(value == allowed)


@dataclass(frozen=True)
class GameSpec:
    """What a game is, declared once (OpenSpiel's _GAME_TYPE/_GAME_INFO, in one place)."""

    env_id: str
    name: str
    version: int
    min_players: int
    max_players: int
    hidden_information: bool
    seed_file: str
    options: tuple[Option, ...] = field(default_factory=tuple)
    default_players: int = 2
    #: the player counts a configuration allows, when they depend on its other options
    #: (e.g. an edition): ``players_for(options) -> (min, max)``; None: always
    #: ``min_players..max_players``
    players_for: Callable[[Mapping[str, Any]], tuple[int, int]] | None = None

    def option_names(self) -> list[str]:
        return ["num_players"] + [o.name for o in self.options]

    def named_files(self, options: Mapping[str, Any]) -> list[str]:
        """``name=value`` of every option in ``options`` whose value is a file path (what
        a record or a checkpoint may not hold: it carries the data itself)."""
        by_name = {o.name: o for o in self.options}
        return [
            f"{name}={str(value)!r:.80}"
            for name, value in options.items()
            if name in by_name and by_name[name].names_file(value)
        ]

    def validate(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Fill defaults and check every value; raise ConfigError naming what is allowed."""
        known = {o.name: o for o in self.options}
        unknown = [k for k in options if k != "num_players" and k not in known]
        if unknown:
            raise ConfigError(
                f"unknown option(s) {', '.join(map(shown, unknown[:5]))} for {self.env_id}; "
                f"known options: {', '.join(self.option_names())}"
            )
        config: dict[str, Any] = {}
        for opt in self.options:
            config[opt.name] = opt.validate(options.get(opt.name, opt.default))
        num_players = options.get("num_players", self.default_players)
        low, high = (
            (self.min_players, self.max_players)
            if self.players_for is None
            else self.players_for(config)
        )
        allowed_players = range(low, high + 1)
        if isinstance(num_players, np.integer):
            num_players = int(num_players)
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, int)
            or num_players not in allowed_players
        ):
            given = ", ".join(f"{o.name}={config[o.name]!r}" for o in self.options if o.rule)
            where = f" with {given}" if given and self.players_for is not None else ""
            raise ConfigError(
                f"option num_players={shown(num_players)} is not allowed for {self.env_id}{where}; "
                f"allowed values: {', '.join(map(str, allowed_players))}"
            )
        return {"num_players": num_players, **config}

    def configurations(self) -> Iterator[dict[str, Any]]:
        """Every combination of player count and enumerable rule option (may include
        combinations a game refuses; build the game to find out)."""
        enumerable = [o for o in self.options if o.rule and o.allowed is not None]
        names = [o.name for o in enumerable]
        for players in range(self.min_players, self.max_players + 1):
            for values in itertools.product(*(o.allowed for o in enumerable)):  # type: ignore[arg-type,misc]
                yield {"num_players": players, **dict(zip(names, values, strict=True))}
