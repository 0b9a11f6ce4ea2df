"""Errors raised by choco_envs. Every one names the bad value and what is allowed."""

from __future__ import annotations


class ChocoError(Exception):
    """Base class of every choco_envs error."""


class IllegalActionError(ChocoError, ValueError):
    """An action that the rules do not allow now. The state is left unchanged."""


class ConfigError(ChocoError, ValueError):
    """An unknown option, or an option value outside the allowed ones."""


class RecordError(ChocoError, ValueError):
    """A malformed or mismatched saved game, state or game record."""


class CheckpointError(ChocoError, ValueError):
    """A corrupt checkpoint, or one made for another env, version or size."""
