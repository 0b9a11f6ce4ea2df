"""Chocolates' feature functions (extra policy inputs read from a seat's own ``flat``
observation; see :mod:`choco_envs.core.features`)."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from choco_envs.core.encoding import Layout
from choco_envs.core.features import FeatureFunction, Features, layout_slices, require_encoder
from choco_envs.core.game import Game
from choco_envs.games.chocolates.components import (
    GRID_CELLS,
    NUM_CARDS,
    NUM_CHOCOLATES,
    NUM_SHAPES,
    NUM_TYPES,
)
from choco_envs.games.chocolates.encoding import CELL_FEATURES
from choco_envs.games.chocolates.rules import DISPLAY_SIZE, card_truth_matrix, expected_side_points

#: layouts dealt per observation to estimate a card's chance of being true
TRUTH_SAMPLES = 512
#: distinct tables whose estimates one Features instance keeps (in the instance)
TRUTH_CACHE = 4096
#: where each part of a chocolate's cell sits in the ``grid`` and ``beside`` fields
TYPE_AT, SHAPE_AT, FACE_UP_AT = slice(0, NUM_TYPES), slice(NUM_TYPES, NUM_TYPES + NUM_SHAPES), -1


def _truth(game: Game[Any], encoder: str) -> Features:
    """From the ``flat`` observation's face-up chocolates alone, each card's chance of being
    true (the share of deals of the face-down chocolates, in a uniformly random order, on
    which it is true), then for each display slot the chance of its true side and what
    each side is worth on average (the rules' ``expected_side_points``), then each seat's
    expected prediction points from the sides it holds (own first)."""
    where = "chocolates_truth"
    require_encoder(game, encoder, where, "chocolates_v0", "flat")
    players = game.num_players
    at = layout_slices(
        game.encoder("flat").layout,
        where,
        grid=GRID_CELLS * CELL_FEATURES,
        beside=(NUM_CHOCOLATES - GRID_CELLS) * CELL_FEATURES,
        display_cards=DISPLAY_SIZE * NUM_CARDS,
        seat_cards=players * NUM_CARDS * 2,
    )
    full_set = np.bincount(
        np.asarray(game.components.chocolates),  # type: ignore[attr-defined]
        minlength=NUM_TYPES * NUM_SHAPES,
    )
    cache: dict[bytes, np.ndarray] = {}

    def deals(key: bytes, face_up: np.ndarray) -> np.ndarray:
        """(TRUTH_SAMPLES, 21) layouts: the face-up chocolates where they lie, the unseen
        ones dealt to the face-down places in an order seeded by the table (``key``)."""
        up = face_up[:, FACE_UP_AT] > 0.5
        kinds = face_up[:, TYPE_AT].argmax(1) * NUM_SHAPES + face_up[:, SHAPE_AT].argmax(1)
        unseen = full_set - np.bincount(kinds[up], minlength=full_set.size)
        pool = np.repeat(np.arange(full_set.size), np.maximum(unseen, 0))
        hidden = np.flatnonzero(~up)
        layouts = np.tile(np.where(up, kinds, 0), (TRUTH_SAMPLES, 1))
        if hidden.size and pool.size == hidden.size:
            seed = int.from_bytes(hashlib.sha256(key).digest()[:8], "little")
            order = np.random.default_rng(seed).random((TRUTH_SAMPLES, hidden.size)).argsort(1)
            layouts[:, hidden] = pool[order]
        return layouts

    def truths(face_ups: list[np.ndarray]) -> list[np.ndarray]:
        """(29,) chances from each observation's 21 x 10 chocolate block; the tables not
        in the cache are scored together, in one call of the rules' card_truth_matrix
        (a good part of its cost is per call, not per layout)."""
        keys = [face_up.tobytes() for face_up in face_ups]
        found: dict[bytes, np.ndarray] = {}
        missing: dict[bytes, np.ndarray] = {}
        for key, face_up in zip(keys, face_ups, strict=True):
            if key in cache:
                found[key] = cache[key]
            elif key not in missing:
                missing[key] = face_up
        if missing:
            layouts = np.concatenate([deals(k, f) for k, f in missing.items()])
            truth = card_truth_matrix(layouts).reshape(len(missing), TRUTH_SAMPLES, -1)
            if len(cache) + len(missing) > TRUTH_CACHE:
                cache.clear()
            for key, p in zip(missing, truth.mean(axis=1), strict=True):
                cache[key] = found[key] = p
        return [found[key] for key in keys]

    def compute(obs: np.ndarray) -> np.ndarray:
        out = np.zeros((obs.shape[0], NUM_CARDS + 3 * DISPLAY_SIZE + players), dtype=np.float32)
        rows = obs.reshape(obs.shape[0], -1)
        chances = truths(
            [
                np.concatenate([row[at["grid"]], row[at["beside"]]]).reshape(
                    NUM_CHOCOLATES, CELL_FEATURES
                )
                for row in rows
            ]
        )
        for i, (row, p) in enumerate(zip(rows, chances, strict=True)):
            worth = expected_side_points(p)
            out[i, :NUM_CARDS] = p
            display = row[at["display_cards"]].reshape(DISPLAY_SIZE, NUM_CARDS)
            for slot in range(DISPLAY_SIZE):
                if display[slot].max() > 0.5:
                    card = int(display[slot].argmax())
                    base = NUM_CARDS + 3 * slot
                    out[i, base] = p[card]
                    out[i, base + 1 : base + 3] = worth[card] / 10
            held = row[at["seat_cards"]].reshape(players, NUM_CARDS, 2)
            gain = held[:, :, 0] @ worth[:, 0] + held[:, :, 1] @ worth[:, 1]
            out[i, NUM_CARDS + 3 * DISPLAY_SIZE :] = gain / 20
        return out

    names = Layout()
    names.add("card_truth", NUM_CARDS, "each card's chance of being true")
    names.add("display", 3 * DISPLAY_SIZE, "per display slot: its card's chance, worth / 10")
    names.add("held_gain", players, "per seat: expected points of its cards / 20", shape=(players,))
    return Features(names.size, compute, names)


TRUTH = FeatureFunction(
    "chocolates_truth",
    1,
    "Chocolates (flat): each prediction card's chance of being true given the face-up "
    "chocolates (512 deals of the face-down ones, seeded by the table), each display "
    "slot's chance and mean worth per side, each seat's expected prediction points",
    _truth,
)
