"""Errors raised by choco_envs. Every one names the bad value and what is allowed."""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from typing import Any


class ChocoError(Exception):
    """Base class of every choco_envs error."""


class IllegalActionError(ChocoError, ValueError):
    """An action that the rules do not allow now. The state is left unchanged.

    The message may be given as a function (``describe``) that is called only when the
    message is read: search and the exact-mask checks try many refused actions and never
    read why, and naming the action and the legal ones is the costly part."""

    def __init__(self, message: str = "", describe: Callable[[], str] | None = None) -> None:
        super().__init__(message)
        self._message = message
        self._describe = describe

    def __str__(self) -> str:
        if self._describe is not None:
            self._message, self._describe = self._describe(), None
            self.args = (self._message,)
        return self._message


class ConfigError(ChocoError, ValueError):
    """An unknown option, or an option value outside the allowed ones."""


class RecordError(ChocoError, ValueError):
    """A malformed or mismatched saved game, state or game record."""


class CheckpointError(ChocoError, ValueError):
    """A corrupt checkpoint, or one made for another env, version or size."""


def _short_repr() -> reprlib.Repr:
    r = reprlib.Repr()
    r.maxlevel, r.maxlist, r.maxtuple, r.maxdict, r.maxset = 3, 6, 6, 4, 6
    r.maxstring, r.maxother, r.maxlong = 50, 50, 40
    return r


_SHORT = _short_repr()


def shown(value: Any, most: int = 80) -> str:
    """A short excerpt of ``repr(value)`` for an error message, in time bounded by its
    length: a refused value is named, never echoed whole (a record may hold a list of a
    million entries, or a megabyte string). Short values read as their ``repr``."""
    try:
        text = _SHORT.repr(value)
    except ValueError:  # an int of more digits than Python writes out
        text = f"<an int of about {value.bit_length() * 0.30103:,.0f} digits>"
    if isinstance(value, str) and len(value) > _SHORT.maxstring:
        text = f"{text} ({len(value):,} characters)"
    elif isinstance(value, (list, tuple, dict)) and len(value) > _SHORT.maxlist:
        text = f"{text} ({len(value):,} entries)"
    return text if len(text) <= most else text[: most - 3] + "..."
