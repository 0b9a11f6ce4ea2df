"""Errors raised by choco_envs. Every one names the bad value and what is allowed."""

from __future__ import annotations

from collections.abc import Callable


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
