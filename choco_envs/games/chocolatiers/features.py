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
    TILE_POINTS,
    TILE_PRESENT,
    tile_rows,
)
from choco_envs.games.chocolatiers.rules import TAKE, ChocolatiersRules
from choco_envs.games.chocolatiers.sampler import cheapest_payment_batch


class _OwnHand:
    """What both Chocolatiers feature functions read of a batch of ``flat`` observations:
    the seat's own hand (counts by type), each tile row's cost, and which rows hold a
    tile; built once per env configuration (the layout's slices checked by name)."""

    def __init__(self, game: Game[Any], encoder: str, where: str) -> None:
        require_encoder(game, encoder, where, "chocolatiers_v1", "flat")
        assert isinstance(game, ChocolatiersRules)
        self.rows = tile_rows(game)
        lay = game.encoder("flat").layout
        self.at = layout_slices(lay, where, cards_0=NT, tiles=self.rows * TILE_FEATURES)
        self.per_type = float(max(game.components.card_counts))

    def read(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(hand (B, NT), tile rows (B, rows, TILE_FEATURES), cost (B, rows, NT), present
        (B, rows)) of (B, ...) observations."""
        b = obs.shape[0]
        flat = obs.reshape(b, -1)
        tiles = flat[:, self.at["tiles"]].reshape(b, self.rows, TILE_FEATURES)
        hand = np.rint(flat[:, self.at["cards_0"]].astype(np.float64) * self.per_type)
        cost = np.rint(tiles[:, :, TILE_COST : TILE_COST + NT].astype(np.float64) * COST_SCALE)
        present = tiles[:, :, TILE_PRESENT] >= 0.5
        return hand.astype(np.int64), tiles, cost.astype(np.int64), present

    def payment_facts(
        self, hand: np.ndarray, cost: np.ndarray, present: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(facts (..., rows, 3): payable, missing / 4, used / 8, 0s where the row is
        empty; missing (..., rows)) of the rules' cheapest payment of each row's cost from
        ``hand`` (its vectorised form, ``cheapest_payment_batch``; shapes broadcast)."""
        used, missing = cheapest_payment_batch(hand, cost)
        out = np.zeros((*missing.shape, 3), dtype=np.float32)
        out[..., 0] = missing == 0
        out[..., 1] = missing / 4
        out[..., 2] = used / 8
        out[~np.broadcast_to(present, missing.shape)] = 0.0
        return out, missing


def _affordable(game: Game[Any], encoder: str) -> Features:
    """For each tile row of the ``flat`` observation (the line or stack tops, the tile
    being boxed, each seat's reserved tile), what the seat's own hand can do about it by
    the rules' cheapest payment (its vectorised form, ``cheapest_payment_batch``): payable
    now, the chocolates it cannot pay (/ 4) and the cards the cheapest payment uses (/ 8);
    0s where the row is empty."""
    own = _OwnHand(game, encoder, "chocolatiers_affordable")
    rows = own.rows

    def compute(obs: np.ndarray) -> np.ndarray:
        hand, _, cost, present = own.read(obs)
        facts, _ = own.payment_facts(hand[:, None, :], cost, present)
        return facts.reshape(obs.shape[0], 3 * rows)

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


#: facts of each (card type to take, tile row): payable then, chocolates still missing / 4,
#: cards the cheapest payment then uses / 8, chocolates the card pays that were missing,
#: the tile's points / 8, the row holds a tile
TAKE_FACTS = 6


def _takes(game: Game[Any], encoder: str) -> Features:
    """The rows of ``chocolatiers_affordable``, then for each card type the seat could take,
    the same facts of every tile row once one card of that type is added to its hand (the
    rules' cheapest payment on that hand), beside the tile's points: what each take does
    for each tile on offer. Facts of the rules, no weights and no choice; the network scores
    them (a head shared by the take actions, ``NetConfig.action_facts``)."""
    own = _OwnHand(game, encoder, "chocolatiers_takes")
    rows = own.rows
    plus_one = np.eye(NT, dtype=np.int64)  # (type taken, type)

    def compute(obs: np.ndarray) -> np.ndarray:
        b = obs.shape[0]
        hand, tiles, cost, present = own.read(obs)
        now, missing = own.payment_facts(hand[:, None, :], cost, present)  # (b, rows, 3)
        hands = hand[:, None, None, :] + plus_one[None, :, None, :]  # (b, NT, 1, NT)
        after, missing_t = own.payment_facts(hands, cost[:, None], present[:, None])
        takes = np.zeros((b, NT, rows, TAKE_FACTS), dtype=np.float32)
        takes[..., :3] = after
        takes[..., 3] = missing[:, None, :] - missing_t
        takes[..., 4] = tiles[:, None, :, TILE_POINTS]
        takes[..., 5] = 1.0
        takes[~np.broadcast_to(present[:, None, :], (b, NT, rows))] = 0.0
        return np.concatenate([now.reshape(b, -1), takes.reshape(b, -1)], axis=1)

    names = Layout()
    names.add("rows", 3 * rows, "per tile row: payable, missing / 4, used / 8", shape=(rows, 3))
    names.add(
        "takes",
        NT * rows * TAKE_FACTS,
        "per card type taken, per tile row: payable, missing / 4, used / 8, chocolates the "
        "card pays, points / 8, a tile is there",
        shape=(NT, rows, TAKE_FACTS),
    )
    return Features(names.size, compute, names, action_facts=(TAKE, NT, "takes"))


TAKES = FeatureFunction(
    "chocolatiers_takes",
    1,
    "Chocolatiers (flat): chocolatiers_affordable's facts of every tile on offer, being "
    "boxed or reserved, and the same facts for each card type the seat could take (its "
    "hand with one card of that type added; the rules' cheapest_payment), with the tile's "
    "points: read by a head shared by the take actions",
    _takes,
)
