"""Chocolatiers' feature functions (extra policy inputs read from a seat's own ``flat``
observation; see :mod:`choco_envs.core.features`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from choco_envs.core.encoding import Layout
from choco_envs.core.features import FeatureFunction, Features, layout_slices, require_encoder
from choco_envs.core.game import Game
from choco_envs.games.chocolatiers.encoding import (
    COST_SCALE,
    NT,
    TILE_COST,
    TILE_FEATURES,
    TILE_PRESENT,
    tile_rows,
)
from choco_envs.games.chocolatiers.rules import ChocolatiersRules
from choco_envs.games.chocolatiers.sampler import cheapest_payment_batch


def _affordable(game: Game[Any], encoder: str) -> Features:
    """For each tile row of the ``flat`` observation (the line or stack tops, the tile
    being boxed, each seat's reserved tile), what the seat's own hand can do about it by
    the rules' cheapest payment (its vectorised form, ``cheapest_payment_batch``): payable
    now, the chocolates it cannot pay (/ 4) and the cards the cheapest payment uses (/ 8);
    0s where the row is empty."""
    where = "chocolatiers_affordable"
    require_encoder(game, encoder, where, "chocolatiers_v1", "flat")
    lay = game.encoder("flat").layout
    assert isinstance(game, ChocolatiersRules)
    rows = tile_rows(game)
    at = layout_slices(lay, where, cards_0=NT, tiles=rows * TILE_FEATURES)
    per_type = float(max(game.components.card_counts))

    def compute(obs: np.ndarray) -> np.ndarray:
        b = obs.shape[0]
        flat = obs.reshape(b, -1)
        tiles = flat[:, at["tiles"]].reshape(b, rows, TILE_FEATURES)
        hand = np.rint(flat[:, at["cards_0"]].astype(np.float64) * per_type).astype(np.int64)
        cost = np.rint(tiles[:, :, TILE_COST : TILE_COST + NT].astype(np.float64) * COST_SCALE)
        used, missing = cheapest_payment_batch(hand[:, None, :], cost.astype(np.int64))
        out = np.zeros((b, rows, 3), dtype=np.float32)
        out[:, :, 0] = missing == 0
        out[:, :, 1] = missing / 4
        out[:, :, 2] = used / 8
        out[tiles[:, :, TILE_PRESENT] < 0.5] = 0.0  # 0s where the row is empty
        return out.reshape(b, 3 * rows)

    names = Layout()
    names.add("rows", 3 * rows, "per tile row: payable, missing / 4, used / 8", shape=(rows, 3))
    return Features(names.size, compute, names)


AFFORDABLE = FeatureFunction(
    "chocolatiers_affordable",
    1,
    "Chocolatiers (flat): for each tile on offer, being boxed or reserved, whether the "
    "seat's own hand pays it now, the chocolates it cannot pay and the cards the cheapest "
    "payment uses (the rules' cheapest_payment)",
    _affordable,
)
