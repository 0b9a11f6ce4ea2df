"""How a finished game's result reads, once for every layer (env, trainer, search, arena,
play, web): places and rank returns from the ranking keys, score margins from the scores.

A ranking key is a tuple (score first, then the game's tie-breaks; higher is better);
equal keys share a place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def places(keys: Sequence[tuple[float, ...]]) -> list[int]:
    """0-based places (0 = first) from ranking keys; tied seats share the better place."""
    return [sum(1 for other in keys if other > key) for key in keys]


def shared_with(keys: Sequence[tuple[float, ...]], seat: int) -> int:
    """How many other seats share ``seat``'s place."""
    return sum(1 for k in keys if k == keys[seat]) - 1


def rank_returns(keys: Sequence[tuple[float, ...]]) -> list[float]:
    """Rank-based returns in [-1, 1]: with N players, place k (0 = best) is worth
    1 - 2k/(N-1); tied players share the average of the places they span. For two
    players this is +1 win, -1 loss, 0 draw."""
    n = len(keys)
    if n == 1:
        return [0.0]
    out = []
    for k in keys:
        better = sum(1 for o in keys if o > k)
        equal = sum(1 for o in keys if o == k)  # includes self
        first, last = better, better + equal - 1
        mean_place = (first + last) / 2
        out.append(1.0 - 2.0 * mean_place / (n - 1))
    return out


def margin(scores: Sequence[float], seat: int) -> float:
    """``seat``'s score minus the best score of the other seats (0 with no other seat)."""
    others = [s for i, s in enumerate(scores) if i != seat]
    return float(scores[seat] - max(others)) if others else 0.0


def margins(scores: Sequence[float]) -> list[float]:
    """:func:`margin` of every seat."""
    return [margin(scores, seat) for seat in range(len(scores))]


def margin_values(
    returns: Sequence[float], scores: Sequence[float], weight: float, scale: float
) -> list[float]:
    """Every seat's value of a finished game with its score margin blended in:
    ``(1 - weight) x`` its rank return ``+ weight x tanh(margin / scale)`` (margin in the
    game's points, :func:`margin`), in [-1, 1]. ``weight`` 0 gives the rank returns: a
    search and its training targets read a finished game the same way (the ``az``
    engine's ``value_margin``)."""
    if not weight:
        return [float(r) for r in returns]
    import math

    return [
        (1.0 - weight) * float(r) + weight * math.tanh(m / scale)
        for r, m in zip(returns, margins(scores), strict=True)
    ]


def finished_values(game: Any, state: Any, weight: float, scale: float) -> list[float]:
    """Every seat's value of the finished game ``state`` of ``game`` (the rules' ``returns``
    and ``scores``): :func:`margin_values`, the scores read only when ``weight`` > 0."""
    returns = game.returns(state)
    if not weight:
        return [float(r) for r in returns]
    return margin_values(returns, game.scores(state), weight, scale)
