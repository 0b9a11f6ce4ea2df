"""Parsing of `key=value` option lists given on the command line."""

from __future__ import annotations

import json
from typing import Any

from choco_envs.core.errors import ConfigError


def parse_value(text: str) -> Any:
    """JSON where it parses (numbers, true/false, null, lists), else the plain string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_options(items: list[str] | None) -> dict[str, Any]:
    """["edition=classic", "num_players=3"] -> {"edition": "classic", "num_players": 3}."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"option {item!r} is not of the form key=value")
        out[key.strip()] = parse_value(value.strip())
    return out
