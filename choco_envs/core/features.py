"""Feature functions: extra policy inputs computed from a seat's own observation.

A :class:`FeatureFunction` is named and versioned. ``build(game, encoder)`` returns a
:class:`Features` for one env configuration: ``size`` extra inputs and ``compute(obs)``
mapping a batch of that encoder's observations (B, *shape) to (B, size) float32 values.
It reads only the observation (and static facts of the game: its layout, its
components), so every caller computes the same thing from what the seat may see.

A game's own functions live in its package (``features.py``) and are listed in its
manifest; the policy layer (``choco_envs.policy.features``) finds them there. A function
reads the observation through the layout's named slices (:func:`layout_slices`), which
refuses, naming the field, a layout other than the one the function was written for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from choco_envs.core.encoding import Layout
from choco_envs.core.errors import ConfigError

if TYPE_CHECKING:
    from choco_envs.core.game import Game


@dataclass(frozen=True)
class Features:
    """A feature function built for one env configuration and encoder."""

    size: int
    compute: Callable[[np.ndarray], np.ndarray]
    layout: Layout | None = None
    """names the outputs (optional); a function whose size depends on the player count
    declares the shape of those fields (see ``choco_envs.core.encoding.Field``) so that a
    seat-padded policy input can place them"""
    action_facts: tuple[tuple[int, int, str], ...] = ()
    """Groups of actions with facts of their own, each (first action, count, field): the
    layout field (of shape ``(count, ...)``) holds one block of facts for each of
    ``count`` consecutive actions from the first; a network may score each action from
    its own block with one head its group shares
    (``choco_envs.policy.net.NetConfig.action_facts``). Empty: no such field"""


@dataclass(frozen=True)
class FeatureFunction:
    """A named, versioned way to compute extra inputs from an observation.

    ``build(game, encoder_name)`` returns :class:`Features`, or raises ConfigError when
    the function does not apply to that env or encoder (say why, and where it does)."""

    name: str
    version: int
    doc: str
    build: Callable[[Game[Any], str], Features]

    def to_json(self, size: int) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "size": size}


def layout_slices(layout: Layout, where: str, **sizes: int) -> dict[str, slice]:
    """The slices of the named fields, each checked to have the size the caller was
    written for (``grid=160``); ConfigError naming the field when one is missing or has
    another size (the encoder changed: the feature function must follow)."""
    out: dict[str, slice] = {}
    known = {f.name: f for f in layout.fields}
    for name, size in sizes.items():
        field = known.get(name)
        if field is None:
            raise ConfigError(
                f"{where} reads layout field {name!r}, which this observation does not have; "
                f"fields: {', '.join(known)}"
            )
        if field.size != size:
            raise ConfigError(
                f"{where} was written for layout field {name!r} of size {size}; this "
                f"observation's is {field.size}: update the feature function"
            )
        out[name] = field.slice
    return out


def require_encoder(game: Game[Any], encoder: str, where: str, env_id: str, name: str) -> None:
    """Refuse (ConfigError) any env or encoder but the one a function reads."""
    if game.spec.env_id != env_id or encoder != name:
        raise ConfigError(
            f"{where} reads {env_id}'s {name!r} observation (not {game.spec.env_id}'s {encoder!r})"
        )
