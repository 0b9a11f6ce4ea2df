"""The seat-padded policy input: one network for every player count of a game.

An env's observation grows with the player count (a block per seat, a one-hot over the
seats, package slots that grow with the table). A network has one input size, so a
policy that plays every count reads its seat's observation laid onto the input of the
largest table the game allows (``max_players``):

- a field of the same name and size is copied to its place;
- a field whose size depends on the player count declares its axes (``Field.shape``,
  e.g. ``(players, 58)``); entry (i, j, ...) goes to the same index of the large table's
  field, so seats keep their relative order (own seat first, then the others in turn
  order) and the seats that are not at the table are trailing zeros on their axis;
- a field the large table has and this one lacks (a seat block named ``p4_stations``) is
  all zeros;
- then the feature function's outputs, laid out the same way (``Features.layout``);
- then ``max_players`` entries marking the seats at the table (1, 1, 0, 0 for two
  players of four): absent seats are marked, not guessed;
- last, with ``modes`` (rule options the policy plays in several values, e.g.
  ``{"length": ["short", "long"]}``), a one-hot of each option's value at this table:
  the table's rules are public, and an observation may state them only relatively
  (the Factory's shift clock counts rolls left as a share of the shift).

The mapping is a fixed index array built from the two layouts, so padding is one
scatter: it reads the observation only (hidden information stays hidden exactly as in
the observation), and a field that changes size without declaring its axes is refused
by name, so an encoder change cannot shift a seat's numbers silently.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from choco_envs.core.encoding import Field, Layout
from choco_envs.core.errors import ConfigError

__all__ = ["SeatPadding", "largest_table", "player_counts"]


def player_counts(env_id: str, options: dict[str, Any] | None = None) -> list[int]:
    """Every player count ``env_id`` allows with these (other) options."""
    from choco_envs.registry import game_class

    spec = game_class(env_id).spec
    out = []
    for n in range(1, 13):
        try:
            spec.validate({**(options or {}), "num_players": n})
        except (ConfigError, ValueError):
            continue
        out.append(n)
    return out


def largest_table(env_id: str, options: dict[str, Any] | None = None) -> int:
    """The most players ``env_id`` seats with these (other) options."""
    counts = player_counts(env_id, options)
    if not counts:
        raise ConfigError(f"{env_id} allows no player count with options {options}")
    return max(counts)


def _field_index(small: Field, large: Field, where: str) -> np.ndarray:
    """Positions (within the large field) of the small field's entries, in order."""
    if small.size == large.size and small.shape == large.shape:
        return np.arange(small.size)
    if not small.shape or len(small.shape) != len(large.shape):
        raise ConfigError(
            f"{where}: field {small.name!r} has {small.size} entries here and "
            f"{large.size} at the largest table, and declares no axes (Field.shape) to "
            "place them by: the seat-padded input cannot read it"
        )
    if any(a > b for a, b in zip(small.shape, large.shape, strict=True)):
        raise ConfigError(
            f"{where}: field {small.name!r} has axes {small.shape} here, larger than "
            f"{large.shape} at the largest table"
        )
    grid = np.indices(small.shape).reshape(len(small.shape), -1)
    return np.asarray(np.ravel_multi_index(tuple(grid), large.shape), dtype=np.int64)


def _layout_index(small: Layout, large: Layout, where: str) -> np.ndarray:
    """For each entry of ``small``, its position in ``large`` (fields matched by name)."""
    by_name = {f.name: f for f in large.fields}
    out = np.empty(small.size, dtype=np.int64)
    for f in small.fields:
        big = by_name.get(f.name)
        if big is None:
            raise ConfigError(
                f"{where}: field {f.name!r} is not in the largest table's layout; its "
                f"fields: {', '.join(by_name)}"
            )
        out[f.slice] = big.start + _field_index(f, big, where)
    return out


class SeatPadding:
    """Lays a seat's policy input at ``game``'s player count onto the input of
    ``max_players`` seats (see the module docstring). ``size`` is the padded length;
    ``pad(obs, extra)`` maps a batch."""

    def __init__(
        self,
        game: Any,
        encoder: str,
        features: Any,
        max_players: int,
        modes: dict[str, list[Any]] | None = None,
    ) -> None:
        """``features``: the game's PolicyInputs (its feature function, if any);
        ``modes``: the rule options to mark, with their values (None: none)."""
        from choco_envs.registry import make_game

        env_id = game.spec.env_id
        n = game.num_players
        where = f"seat-padded input of {env_id} ({n} players onto {max_players})"
        if n > max_players:
            raise ConfigError(
                f"{where}: this table has {n} players, more than the {max_players} the policy reads"
            )
        options = {k: v for k, v in game.config.items() if v is not None}
        large_game = make_game(env_id, **{**options, "num_players": max_players})
        small_enc, large_enc = game.encoder(encoder), large_game.encoder(encoder)
        self.num_players, self.max_players = n, max_players
        self.large_game = large_game
        unit_small = int(np.prod(small_enc.shape[1:])) if len(small_enc.shape) > 1 else 1
        unit_large = int(np.prod(large_enc.shape[1:])) if len(large_enc.shape) > 1 else 1
        if unit_small != unit_large:
            raise ConfigError(f"{where}: the board planes change size with the player count")
        index = _layout_index(small_enc.layout, large_enc.layout, where)
        if unit_small > 1:  # planes: a layout entry is a channel of unit cells
            index = (index[:, None] * unit_small + np.arange(unit_small)[None, :]).reshape(-1)
        self.obs_shape = tuple(large_enc.shape)
        self.obs_size = int(np.prod(self.obs_shape))
        self.obs_index = index
        self.extra_index = np.zeros(0, dtype=np.int64)
        self.extra_size = 0
        if features is not None and features.features is not None:
            large_features = features.function.build(large_game, encoder)
            self.extra_size = int(large_features.size)
            if features.features.size == large_features.size:
                self.extra_index = np.arange(self.extra_size)
            elif features.features.layout is None or large_features.layout is None:
                raise ConfigError(
                    f"{where}: feature function {features.function.name!r} changes size "
                    "with the player count and names no layout to place its outputs by"
                )
            else:
                self.extra_index = _layout_index(
                    features.features.layout, large_features.layout, where
                )
        self.mode_marks = np.zeros(0, dtype=np.float32)
        for key, values in sorted((modes or {}).items()):
            value = game.config.get(key)
            if not any(value == v and type(value) is type(v) for v in values):
                raise ConfigError(f"{where}: option {key}={value!r} is not one of {values}")
            one_hot = np.array([value == v and type(value) is type(v) for v in values])
            self.mode_marks = np.concatenate([self.mode_marks, one_hot.astype(np.float32)])
        # the features, then the seats marked, then the modes marked
        self.extra = self.extra_size + max_players + len(self.mode_marks)
        self.size = self.obs_size + self.extra

    def pad(self, obs: np.ndarray, extra: np.ndarray | None) -> np.ndarray:
        """(B, *obs shape) observations and (B, features) outputs at this table ->
        (B, size) padded inputs (float32)."""
        b = obs.shape[0]
        out = np.zeros((b, self.size), dtype=np.float32)
        out[:, self.obs_index] = obs.reshape(b, -1)
        if extra is not None and self.extra_size:
            out[:, self.obs_size + self.extra_index] = extra
        seats = self.obs_size + self.extra_size
        out[:, seats : seats + self.num_players] = 1.0
        if len(self.mode_marks):
            out[:, seats + self.max_players :] = self.mode_marks
        return out


def widen_first_layer(model: Any, old: Any, padding: SeatPadding) -> None:
    """Start the seat-padded MLP ``model`` from ``old``, a network of one table size
    whose inputs ``padding`` places: every layer copied, the first layer's column of
    each old input moved to that input's padded position, the other columns zero; the
    new network then computes exactly what ``old`` did at that table."""
    columns = np.concatenate([padding.obs_index, padding.obs_size + padding.extra_index])
    if len(columns) != old.config.input_size:
        raise ConfigError(
            f"the file reads {old.config.input_size} inputs; this table gives {len(columns)}"
        )
    place_first_layer(model, old, columns)


def add_mode_marks(model: Any, old: Any, marks: int) -> None:
    """Start ``model`` from ``old``, a seat-padded network without mode marks: the same
    inputs, then ``marks`` mode-mark inputs whose first-layer columns start at zero (the
    new network computes exactly what ``old`` did, and learns to use the marks)."""
    if model.config.input_size != old.config.input_size + marks:
        raise ConfigError(
            f"adding {marks} mode marks to a file of {old.config.input_size} inputs gives "
            f"{old.config.input_size + marks}, not this network's {model.config.input_size}"
        )
    place_first_layer(model, old, np.arange(old.config.input_size))


def place_first_layer(model: Any, old: Any, columns: np.ndarray) -> None:
    """Copy ``old``'s weights into ``model``, the first layer's input column i moved to
    ``columns[i]`` and the other columns zero (every other layer the same shape)."""
    import torch

    new_cfg, old_cfg = model.config, old.config
    same = (
        new_cfg.hidden == old_cfg.hidden
        and new_cfg.num_actions == old_cfg.num_actions
        and new_cfg.value_outputs == old_cfg.value_outputs
        and not new_cfg.conv_channels
        and not old_cfg.conv_channels
    )
    if not same:
        raise ConfigError(
            "a network widens only into an MLP of the same hidden layers, actions and "
            f"value outputs (got {old_cfg} into {new_cfg})"
        )
    state = old.state_dict()
    target = model.state_dict()
    widened = False
    for name, tensor in state.items():
        if target[name].shape == tensor.shape:
            target[name] = tensor.clone()
        elif tensor.dim() == 2 and tensor.shape[1] == old_cfg.input_size and not widened:
            wide = torch.zeros_like(target[name])
            wide[:, torch.from_numpy(columns)] = tensor
            target[name] = wide
            widened = True
        else:
            raise ConfigError(f"cannot place weight {name!r} of shape {list(tensor.shape)}")
    model.load_state_dict(target)
