"""Observation encoders: one flat float32 vector (or planes) laid out by named slices."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

S = TypeVar("S")


@dataclass(frozen=True)
class Field:
    """A named slice of the observation vector."""

    name: str
    start: int
    stop: int
    meaning: str
    low: float = 0.0
    high: float = 1.0
    shape: tuple[int, ...] = ()
    """the field's axes where its size depends on the player count (seats, or slots that
    grow with it), e.g. ``(players, 58)``; () for a field of one axis. The seat-padded
    policy input (``choco_envs.policy.seats``) places entry (i, j, ...) at the same index
    of the largest table's field, so absent seats are trailing zeros on their axis."""

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)

    @property
    def size(self) -> int:
        return self.stop - self.start


class Layout:
    """Allocates named, contiguous slices of a flat vector, in order.

    >>> lay = Layout(); hand = lay.add("hand", 6, "own cards by type"); lay.size
    6
    """

    def __init__(self) -> None:
        self.fields: list[Field] = []
        self.size = 0
        self._by_name: dict[str, Field] = {}

    def add(
        self,
        name: str,
        size: int,
        meaning: str,
        low: float = 0.0,
        high: float = 1.0,
        shape: tuple[int, ...] = (),
    ) -> slice:
        """Declare the next ``size`` entries; values stay within [low, high]. ``shape``
        (optional) gives the field's axes, e.g. ``(players, 58)`` (see :class:`Field`)."""
        if name in self._by_name:
            raise ValueError(f"layout field {name!r} is declared twice")
        if shape and int(np.prod(shape)) != size:
            raise ValueError(f"layout field {name!r}: shape {shape} does not hold {size} entries")
        f = Field(name, self.size, self.size + size, meaning, float(low), float(high), tuple(shape))
        self.fields.append(f)
        self._by_name[name] = f
        self.size += size
        return f.slice

    def __getitem__(self, name: str) -> slice:
        return self._by_name[name].slice

    def rows(self) -> list[tuple[str, slice, str]]:
        """(name, slice, meaning) for every field, in order."""
        return [(f.name, f.slice, f.meaning) for f in self.fields]

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-entry lower and upper bounds, for the observation Box."""
        low = np.empty(self.size, dtype=np.float32)
        high = np.empty(self.size, dtype=np.float32)
        for f in self.fields:
            low[f.slice] = f.low
            high[f.slice] = f.high
        return low, high

    def fingerprint(self) -> str:
        """A short hash of every field's name, position and bounds: a checkpoint stores it
        and is refused when the observation it was trained on has changed meaning, even
        at the same size."""
        text = ";".join(f"{f.name}:{f.start}:{f.stop}:{f.low:g}:{f.high:g}" for f in self.fields)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_markdown(self) -> str:
        lines = ["| name | index | size | range | meaning |", "|---|---|---|---|---|"]
        for f in self.fields:
            idx = f"{f.start}" if f.size == 1 else f"{f.start}:{f.stop}"
            rng = f"{f.low:g}..{f.high:g}"
            lines.append(f"| `{f.name}` | {idx} | {f.size} | {rng} | {f.meaning} |")
        return "\n".join(lines)


@dataclass(frozen=True)
class ActionPlanes:
    """Where each action sits on the board of a ``(C, H, W)`` observation, for networks
    that score actions with a convolution (one logit per board cell and channel).

    ``index[a]`` is the flat position ``channel * H * W + row * W + col`` of action ``a``'s
    logit, or -1 for an action that has no place on the board. Two actions may share a
    position only if they are never legal together. ``channels`` names each channel.
    """

    channels: tuple[str, ...]
    index: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.channels:
            raise ValueError("ActionPlanes needs at least one channel")
        if any(not -1 <= i for i in self.index):
            raise ValueError("ActionPlanes index entries must be -1 or a flat board position")


class Encoder(Generic[S]):
    """Turns a state into what one seat may see.

    ``shape`` is the observation shape; ``layout`` names its parts along the first axis
    (for a flat vector, entries; for planes of shape (C, H, W), channels).
    ``fill(state, player, out)`` writes into a zeroed float32 array of that shape, and
    every value stays within the bounds its layout field declares. ``action_planes``
    (planes encoders only, optional) places the actions on the board.

    ``fill_batch(states, players, out)`` (optional) is the vectorised form of ``fill`` for
    many states at once, writing into a zeroed ``(len(states), *shape)`` array; it must
    give exactly the numbers ``fill`` gives, state by state (a test ties the two for every
    encoder). Without it, :meth:`encode_batch` calls ``fill`` once per state. With
    ``batch_writes_all`` it writes every entry, so ``out`` is not zeroed first.
    """

    def __init__(
        self,
        name: str,
        shape: tuple[int, ...],
        layout: Layout,
        fill: Callable[[S, int, np.ndarray], None],
        description: str = "",
        action_planes: ActionPlanes | None = None,
        fill_batch: Callable[[Sequence[S], Sequence[int], np.ndarray], None] | None = None,
        batch_writes_all: bool = False,
    ) -> None:
        self.name = name
        self._fill_batch = fill_batch
        self._batch_writes_all = batch_writes_all and fill_batch is not None
        self.action_planes = action_planes
        self.shape = shape
        self.layout = layout
        self._fill = fill
        self.description = description
        if layout.size != shape[0]:
            raise ValueError(
                f"encoder {name!r}: layout covers {layout.size} entries, shape is {shape}"
            )
        if action_planes is not None:
            if len(shape) != 3:
                raise ValueError(f"encoder {name!r}: action planes need (C, H, W), got {shape}")
            board = len(action_planes.channels) * shape[1] * shape[2]
            if max(action_planes.index, default=-1) >= board:
                raise ValueError(f"encoder {name!r}: an action plane index is off the board")
        low, high = layout.bounds()
        extra = (1,) * (len(shape) - 1)
        self.low = np.broadcast_to(low.reshape((-1, *extra)), shape).copy()
        self.high = np.broadcast_to(high.reshape((-1, *extra)), shape).copy()

    def fingerprint(self) -> str:
        """The layout's fingerprint together with the shape."""
        return f"{self.layout.fingerprint()}-{'x'.join(map(str, self.shape))}"

    def encode(self, state: S, player: int) -> np.ndarray:
        out = np.zeros(self.shape, dtype=np.float32)
        self._fill(state, player, out)
        return out

    def encode_batch(
        self, states: Sequence[S], players: Sequence[int], out: np.ndarray | None = None
    ) -> np.ndarray:
        """The observations of ``players[i]`` in ``states[i]``, in one float32 array of
        shape ``(len(states), *shape)``: ``out`` when given (it is overwritten), else a new
        one. Row ``i`` equals ``encode(states[i], players[i])``."""
        count = len(states)
        if len(players) != count:
            raise ValueError(
                f"encode_batch: {count} states but {len(players)} players; give one player "
                "per state"
            )
        shape = (count, *self.shape)
        if out is None:
            out = (np.empty if self._batch_writes_all else np.zeros)(shape, dtype=np.float32)
        else:
            if out.shape != shape or out.dtype != np.float32:
                raise ValueError(
                    f"encode_batch: out has shape {out.shape} and dtype {out.dtype}; allowed: "
                    f"shape {shape}, float32"
                )
            if not self._batch_writes_all:
                out.fill(0.0)
        if count == 0:
            return out
        if self._fill_batch is not None:
            self._fill_batch(states, players, out)
        else:
            fill = self._fill
            for i, (state, player) in enumerate(zip(states, players, strict=True)):
                fill(state, player, out[i])
        return out

    def fill(self, state: S, player: int, out: np.ndarray) -> None:
        """Write ``player``'s observation into ``out``, a zeroed float32 array of this
        shape (or a view of one: an encoder that extends another fills its prefix)."""
        self._fill(state, player, out)

    def __repr__(self) -> str:
        return f"Encoder({self.name!r}, shape={self.shape})"
