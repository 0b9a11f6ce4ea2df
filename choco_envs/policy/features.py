"""Feature functions: extra policy inputs computed from a seat's own observation.

An env's observation is game information (``flat``, and ``planes`` where a board
exists). A policy may read more than the raw observation: *facts* derived from it, such
as counts, what is affordable, or a probability given the visible information. Never a
bot's choice, evaluation or search: those would make the network the bot again.

A :class:`FeatureFunction` is named and versioned. ``build(game, encoder)`` returns a
:class:`Features` for one env configuration: ``size`` extra inputs and
``compute(obs)`` mapping a batch of that encoder's observations (B, *shape) to (B, size)
float32 values. It reads only the observation (and static facts of the game: its layout,
its components), so every caller computes the same thing from what the seat may see.

:class:`PolicyInputs` is what every caller uses (the trainer, imitation, evaluation and
the policy bot): the observation flattened, then the feature function's inputs. A
checkpoint stores the feature function's name, version and size (``features`` in its
metadata); loading refuses (CheckpointError) a file whose feature function is not
installed, or is installed at another version or size: change a function's output,
bump its version.

The registry lists every function explicitly (:data:`FEATURES`); a function made outside
the package (a test, a plug-in) is added with :func:`register`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from choco_envs.core.errors import CheckpointError, ConfigError


@dataclass(frozen=True)
class Features:
    """A feature function built for one env configuration and encoder."""

    size: int
    compute: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class FeatureFunction:
    """A named, versioned way to compute extra inputs from an observation.

    ``build(game, encoder_name)`` returns :class:`Features`, or raises ConfigError when
    the function does not apply to that env or encoder (say why, and where it does)."""

    name: str
    version: int
    doc: str
    build: Callable[[Any, str], Features]

    def to_json(self, size: int) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "size": size}


# ---------------------------------------------------------------- the functions
def _field_totals(game: Any, encoder: str) -> Features:
    """Per layout field, the sum of its values (for planes, of each channel's cells)."""
    enc = game.encoder(encoder)
    fields = enc.layout.fields
    if not fields:
        raise ConfigError(f"field_totals: {game.spec.env_id}'s {encoder!r} declares no fields")
    starts = np.array([f.start for f in fields])

    def compute(obs: np.ndarray) -> np.ndarray:
        per_entry = obs.reshape(obs.shape[0], obs.shape[1], -1).sum(axis=2)
        return np.add.reduceat(per_entry, starts, axis=1).astype(np.float32)

    return Features(len(fields), compute)


FIELD_TOTALS = FeatureFunction(
    "field_totals",
    1,
    "for each field of the observation's layout, the sum of its entries (planes: of "
    "every cell of its channels): counts such as cards held or tiles placed, handed "
    "to the network ready-made",
    _field_totals,
)

#: layouts dealt per observation to estimate a card's chance of being true
TRUTH_SAMPLES = 512
#: distinct tables whose estimates one Features instance keeps (in the instance)
TRUTH_CACHE = 4096


def _chocolates_truth(game: Any, encoder: str) -> Features:
    """Chocolates: from the ``flat`` observation's face-up chocolates alone, each card's
    chance of being true (the share of deals of the face-down chocolates, in a uniformly
    random order, on which it is true), then for each display slot the chance of its
    true side and what each side is worth on average (points x (2p - 1)), then each
    seat's expected prediction points from the sides it holds (own first)."""
    from choco_envs.games.chocolates.components import (
        NUM_CHOCOLATES,
        NUM_SHAPES,
        PREDICTION_CARDS,
    )
    from choco_envs.games.chocolates.rules import card_truth_matrix

    if game.spec.env_id != "chocolates_v0" or encoder != "flat":
        raise ConfigError(
            "chocolates_truth reads chocolates_v0's 'flat' observation "
            f"(not {game.spec.env_id}'s {encoder!r})"
        )
    lay = game.encoder("flat").layout
    cells = np.concatenate(
        [
            np.arange(lay["grid"].start, lay["grid"].stop),
            np.arange(lay["beside"].start, lay["beside"].stop),
        ]
    ).reshape(NUM_CHOCOLATES, 10)
    display0, seats0 = lay["display_cards"].start, lay["seat_cards"].start
    num_cards, players = len(PREDICTION_CARDS), game.num_players
    true_pts = np.array([c.true_points for c in PREDICTION_CARDS], dtype=np.float64)
    false_pts = np.array([c.false_points for c in PREDICTION_CARDS], dtype=np.float64)
    full_set = np.bincount(np.asarray(game.components.chocolates), minlength=6 * NUM_SHAPES)
    cache: dict[bytes, np.ndarray] = {}

    def truth(face_up: np.ndarray) -> np.ndarray:
        """(29,) chances from one observation's 21 x 10 chocolate block."""
        key = face_up.tobytes()
        if key in cache:
            return cache[key]
        up = face_up[:, 9] > 0.5
        kinds = face_up[:, :6].argmax(1) * NUM_SHAPES + face_up[:, 6:9].argmax(1)
        unseen = full_set - np.bincount(kinds[up], minlength=full_set.size)
        pool = np.repeat(np.arange(full_set.size), np.maximum(unseen, 0))
        hidden = np.flatnonzero(~up)
        layouts = np.tile(np.where(up, kinds, 0), (TRUTH_SAMPLES, 1))
        if hidden.size and pool.size == hidden.size:
            seed = int.from_bytes(hashlib.sha256(key).digest()[:8], "little")
            order = np.random.default_rng(seed).random((TRUTH_SAMPLES, hidden.size)).argsort(1)
            layouts[:, hidden] = pool[order]
        p = card_truth_matrix(layouts).mean(axis=0)
        if len(cache) >= TRUTH_CACHE:
            cache.clear()
        cache[key] = p
        return p

    def compute(obs: np.ndarray) -> np.ndarray:
        out = np.zeros((obs.shape[0], num_cards + 9 + players), dtype=np.float32)
        for i, row in enumerate(obs.reshape(obs.shape[0], -1)):
            p = truth(row[cells])
            out[i, :num_cards] = p
            display = row[display0 : display0 + 3 * num_cards].reshape(3, num_cards)
            for slot in range(3):
                if display[slot].max() > 0.5:
                    card = int(display[slot].argmax())
                    base = num_cards + 3 * slot
                    out[i, base] = p[card]
                    out[i, base + 1] = true_pts[card] * (2 * p[card] - 1) / 10
                    out[i, base + 2] = false_pts[card] * (1 - 2 * p[card]) / 10
            held = row[seats0 : seats0 + players * num_cards * 2].reshape(players, num_cards, 2)
            gain = held[:, :, 0] @ (true_pts * (2 * p - 1)) + held[:, :, 1] @ (
                false_pts * (1 - 2 * p)
            )
            out[i, num_cards + 9 :] = gain / 20
        return out

    return Features(num_cards + 9 + players, compute)


CHOCOLATES_TRUTH = FeatureFunction(
    "chocolates_truth",
    1,
    "Chocolates (flat): each prediction card's chance of being true given the face-up "
    "chocolates (512 deals of the face-down ones, seeded by the table), each display "
    "slot's chance and mean worth per side, each seat's expected prediction points",
    _chocolates_truth,
)


def _chocolatiers_affordable(game: Any, encoder: str) -> Features:
    """Chocolatiers: for each tile row of the ``flat`` observation (the line or stack
    tops, the tile being boxed, each seat's reserved tile), what the seat's own hand can
    do about it by the rules' cheapest payment: payable now, the chocolates it cannot pay
    (/ 4) and the cards the cheapest payment uses (/ 8); 0s where the row is empty."""
    from choco_envs.games.chocolatiers.rules import NT, cheapest_payment

    if game.spec.env_id != "chocolatiers_v1" or encoder != "flat":
        raise ConfigError(
            "chocolatiers_affordable reads chocolatiers_v1's 'flat' observation "
            f"(not {game.spec.env_id}'s {encoder!r})"
        )
    lay = game.encoder("flat").layout
    per_type = float(max(game.components.card_counts))
    hand0 = lay["cards_0"].start
    tiles = lay["tiles"]
    row_size = 2 + NT + 4 * (NT + 1)
    rows = (tiles.stop - tiles.start) // row_size

    def compute(obs: np.ndarray) -> np.ndarray:
        out = np.zeros((obs.shape[0], 3 * rows), dtype=np.float32)
        for i, row in enumerate(obs.reshape(obs.shape[0], -1)):
            hand = [int(round(v * per_type)) for v in row[hand0 : hand0 + NT]]
            for r in range(rows):
                at = tiles.start + r * row_size
                if row[at] < 0.5:
                    continue
                cost = [int(round(v * 4)) for v in row[at + 2 : at + 2 + NT]]
                used, missing = cheapest_payment(hand, 0, cost)
                out[i, 3 * r : 3 * r + 3] = (missing == 0, missing / 4, used / 8)
        return out

    return Features(3 * rows, compute)


CHOCOLATIERS_AFFORDABLE = FeatureFunction(
    "chocolatiers_affordable",
    1,
    "Chocolatiers (flat): for each tile on offer, being boxed or reserved, whether the "
    "seat's own hand pays it now, the chocolates it cannot pay and the cards the cheapest "
    "payment uses (the rules' cheapest_payment)",
    _chocolatiers_affordable,
)

#: every feature function, by name (listed explicitly)
FEATURES: dict[str, FeatureFunction] = {
    FIELD_TOTALS.name: FIELD_TOTALS,
    CHOCOLATES_TRUTH.name: CHOCOLATES_TRUTH,
    CHOCOLATIERS_AFFORDABLE.name: CHOCOLATIERS_AFFORDABLE,
}


def register(function: FeatureFunction) -> None:
    """Add a feature function made outside the package (refused if the name is taken by
    another function)."""
    known = FEATURES.get(function.name)
    if known is not None and known is not function:
        raise ConfigError(f"feature function {function.name!r} is already registered")
    FEATURES[function.name] = function


def feature_function(name: str) -> FeatureFunction:
    """The registered function ``name``; ConfigError naming the registered ones."""
    if name not in FEATURES:
        raise ConfigError(
            f"unknown feature function {name!r}; allowed: '' (none), "
            + ", ".join(map(repr, FEATURES))
        )
    return FEATURES[name]


# ---------------------------------------------------------------- policy inputs
class PolicyInputs:
    """What a policy network reads for ``game`` with observation ``encoder`` and feature
    function ``feature`` ('' for none): the observation flattened, then the features."""

    def __init__(self, game: Any, encoder: str, feature: str = "") -> None:
        self.encoder_name = encoder
        self.encoder = game.encoder(encoder)
        self.obs_shape = tuple(self.encoder.shape)
        self.obs_size = int(np.prod(self.obs_shape))
        self.function = feature_function(feature) if feature else None
        self.features = None if self.function is None else self.function.build(game, encoder)
        self.extra = 0 if self.features is None else int(self.features.size)
        self.size = self.obs_size + self.extra

    def metadata(self) -> dict[str, Any] | None:
        """What a checkpoint stores of the feature function (None: none)."""
        return None if self.function is None else self.function.to_json(self.extra)

    def from_observations(self, obs: np.ndarray) -> np.ndarray:
        """(B, *obs_shape) observations -> (B, size) float32 policy inputs."""
        obs = np.asarray(obs, dtype=np.float32)
        flat = obs.reshape(obs.shape[0], self.obs_size)
        if self.features is None:
            return flat
        extra = np.asarray(self.features.compute(obs), dtype=np.float32)
        if extra.shape != (obs.shape[0], self.extra):
            raise ValueError(
                f"feature function {self.function.name!r} gave shape {extra.shape}, "  # type: ignore[union-attr]
                f"not {(obs.shape[0], self.extra)}"
            )
        return np.concatenate([flat, extra], axis=1)

    def encode(self, state: Any, player: int) -> np.ndarray:
        """The policy input of ``player`` in ``state`` (a (size,) float32 vector)."""
        return self.from_observations(self.encoder.encode(state, player)[None])[0]


def check_features(stored: Any, game: Any, encoder: str, where: str) -> str:
    """The feature function's name that a checkpoint's ``features`` metadata names ('' for
    none), refused (CheckpointError) unless the same version is installed and gives the
    same number of inputs for ``game`` and ``encoder``."""
    if stored is None:
        return ""
    if not isinstance(stored, dict) or set(stored) != {"name", "version", "size"}:
        raise CheckpointError(f"{where}: metadata 'features' is malformed: {stored!r:.120}")
    name, version = stored["name"], stored["version"]
    installed = FEATURES.get(name) if isinstance(name, str) else None
    if installed is None:
        raise CheckpointError(
            f"{where} reads feature function {name!r}, which is not installed; installed: "
            + (", ".join(map(repr, FEATURES)) or "none")
        )
    if installed.version != version:
        raise CheckpointError(
            f"{where} was trained with feature function {name!r} version {version!r}; the "
            f"installed one is version {installed.version}: retrain it"
        )
    try:
        size = installed.build(game, encoder).size
    except ConfigError as err:
        raise CheckpointError(f"{where}: feature function {name!r}: {err}") from err
    if size != stored["size"]:
        raise CheckpointError(
            f"{where} expects {stored['size']!r} inputs from feature function {name!r}; it "
            f"now gives {size} for this env: retrain it"
        )
    return name
