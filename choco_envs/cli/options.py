"""Parsing of ``key=value`` option lists given on the command line (``choco play
--option``, ``choco eval --env-option``): one reading of values for every command."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable
from typing import Any

from choco_envs.core.errors import ConfigError

#: the spellings of booleans and of None that a command line accepts (``choco list`` shows
#: options as Python writes them: True, False, None)
WORDS: dict[str, Any] = {
    "true": True,
    "false": False,
    "none": None,
    "null": None,
}


def parse_value(text: str) -> Any:
    """An int, a finite float, true/false (any case), none/null, else the text itself."""
    lowered = text.strip().lower()
    if lowered in WORDS:
        return WORDS[lowered]
    if text.strip().lstrip("+-").isdigit() and text.strip().isascii():
        return int(text)
    with contextlib.suppress(ValueError):
        value = float(text)
        if math.isfinite(value) and text.strip().isascii():
            return value
    return text


def parse_options(items: Iterable[str] | None, flag: str = "--option") -> dict[str, Any]:
    """["edition=classic", "num_players=3"] -> {"edition": "classic", "num_players": 3};
    ConfigError naming the flag for an item without ``=`` or a key given twice."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"{flag} {item!r} is not of the form KEY=VALUE")
        if key in out:
            raise ConfigError(f"{flag} {key} is given twice")
        out[key] = parse_value(value)
    return out


def merge_players(options: dict[str, Any], players: int | None, flag: str) -> dict[str, Any]:
    """``options`` with ``--players`` as num_players; ConfigError when both say it."""
    if players is None:
        return options
    if "num_players" in options:
        raise ConfigError(
            f"num_players is given twice (--players {players} and {flag} "
            f"num_players={options['num_players']!r}); give it once"
        )
    return {**options, "num_players": players}
