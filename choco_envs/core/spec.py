"""Static facts about a game, declared once: its id, players, options and their values."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from choco_envs.core.errors import ConfigError


@dataclass(frozen=True)
class Option:
    """One rule option of a game.

    ``allowed`` lists every legal value when the set is small (the conformance suite then
    runs every one); ``check`` validates open-ended values (a components file, say) and
    returns an error text or None.
    """

    name: str
    default: Any
    doc: str
    allowed: tuple[Any, ...] | None = None
    check: Callable[[Any], str | None] | None = None
    rule: bool = True  # a rule option changes the game; the conformance suite varies it

    def validate(self, value: Any) -> Any:
        if self.allowed is not None and value not in self.allowed:
            raise ConfigError(
                f"option {self.name}={value!r} is not allowed; allowed values: "
                f"{', '.join(repr(v) for v in self.allowed)}"
            )
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise ConfigError(f"option {self.name}={value!r} is not allowed: {problem}")
        return value


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

    def option_names(self) -> list[str]:
        return ["num_players"] + [o.name for o in self.options]

    def validate(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Fill defaults and check every value; raise ConfigError naming what is allowed."""
        known = {o.name: o for o in self.options}
        unknown = [k for k in options if k != "num_players" and k not in known]
        if unknown:
            raise ConfigError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for {self.env_id}; "
                f"known options: {', '.join(self.option_names())}"
            )
        config: dict[str, Any] = {}
        num_players = options.get("num_players", self.default_players)
        allowed_players = range(self.min_players, self.max_players + 1)
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, int)
            or num_players not in allowed_players
        ):
            raise ConfigError(
                f"option num_players={num_players!r} is not allowed for {self.env_id}; "
                f"allowed values: {', '.join(map(str, allowed_players))}"
            )
        config["num_players"] = num_players
        for opt in self.options:
            config[opt.name] = opt.validate(options.get(opt.name, opt.default))
        return config

    def configurations(self) -> Iterator[dict[str, Any]]:
        """Every combination of player count and enumerable rule option (may include
        combinations a game refuses; build the game to find out)."""
        enumerable = [o for o in self.options if o.rule and o.allowed is not None]
        names = [o.name for o in enumerable]
        for players in range(self.min_players, self.max_players + 1):
            for values in itertools.product(*(o.allowed for o in enumerable)):  # type: ignore[arg-type,misc]
                yield {"num_players": players, **dict(zip(names, values, strict=True))}
