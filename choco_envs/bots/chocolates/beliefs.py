"""The Chocolates beliefs sampler: the chance that each prediction card is true, worked
out from the face-up chocolates only.

Every chocolate is dealt face down from one shuffled set and nothing is private, so the
face-down chocolates are a uniformly random arrangement of the kinds nobody has seen yet
(``ChocolatesRules.unseen_kinds``) over the face-down places. :class:`TruthEstimator`
estimates, for every card, the share of such arrangements on which it is true: a Monte
Carlo estimate over ``samples`` arrangements (``ChocolatesRules.deal_layouts``), all 29
cards evaluated at once (``card_truth_matrix``).

The estimate depends only on public facts (which positions are face up and what they
show; the set of chocolates) and on a generator seeded from them, so the same table
always gives the same numbers, whoever looks and whatever lies face down. Estimates are
cached per face-up set in the estimator (one per bot instance), never in this module.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np

from choco_envs.games.chocolates.components import NUM_CHOCOLATES
from choco_envs.games.chocolates.rules import (
    ChocolatesRules,
    ChocolatesState,
    card_truth_matrix,
    expected_points,
)

#: arrangements sampled per estimate by default (standard error <= 0.5 / sqrt(128) = 0.044)
SAMPLES = 128
#: face-up sets whose estimates an estimator keeps
CACHE_SIZE = 4096


def public_key(state: ChocolatesState) -> bytes:
    """The face-up chocolates (kind + 1 per position, 0 when face down)."""
    return bytes(
        state.layout[pos] + 1 if state.revealed[pos] else 0 for pos in range(NUM_CHOCOLATES)
    )


def seed_of(*parts: bytes) -> int:
    """A 64-bit seed from public facts."""
    return int.from_bytes(hashlib.blake2b(b"|".join(parts), digest_size=8).digest(), "little")


#: expected points of holding ``card`` with ``side`` up when its prediction is true with
#: chance ``p_true`` (the rules' own ``expected_points``)
side_value = expected_points


class TruthEstimator:
    """``truth_rates`` for one game's set of chocolates, with an LRU cache keyed by the
    face-up chocolates (a turn's decisions share an estimate)."""

    def __init__(
        self, game: ChocolatesRules, samples: int = SAMPLES, cache_size: int = CACHE_SIZE
    ) -> None:
        self.game = game
        self.samples = samples
        self.cache_size = cache_size
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()

    def layouts(self, state: ChocolatesState, count: int, tag: bytes = b"") -> np.ndarray:
        """``count`` complete layouts consistent with the face-up chocolates, from a
        generator seeded with them (and ``tag``, to draw other samples of one table)."""
        parts = (public_key(state), tag) if tag else (public_key(state),)
        generator = np.random.default_rng(seed_of(*parts))
        return self.game.deal_layouts(state, count, generator)

    def truth_rates(self, state: ChocolatesState) -> np.ndarray:
        """(29,) float32, read-only: the estimated chance that each card is true, given
        only the face-up chocolates of ``state``."""
        key = public_key(state)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        settled = all(state.revealed)  # one layout is the truth
        truth = card_truth_matrix(self.layouts(state, 1 if settled else self.samples))
        rates = truth.mean(axis=0, dtype=np.float64).astype(np.float32)
        rates.flags.writeable = False  # shared by every caller of the cache
        self._cache[key] = rates
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return rates
