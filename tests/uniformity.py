"""Chi-square checks that seeded draws follow a known distribution (the plain definition
of the sample, e.g. every deal of the hidden cards equally likely, enumerated), for the
tests of search's resampling."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable

#: the normal quantile of the one-sided level (1 in 10,000): with seeded draws the check
#: is deterministic, and a sampler off by a few percent on any outcome fails it
Z = 3.719


def chi_square_limit(df: int) -> float:
    """The chi-square value exceeded with chance about 1e-4 at ``df`` degrees of freedom
    (Wilson-Hilferty)."""
    a = 2 / (9 * df)
    return df * (1 - a + Z * math.sqrt(a)) ** 3


def assert_distributed(draws: Iterable[Hashable], weights: Counter[Hashable]) -> None:
    """Every draw is an outcome of ``weights``, every outcome is drawn, and their counts
    pass the chi-square test of chances proportional to the weights."""
    counts = Counter(draws)
    assert set(counts) <= set(weights), set(counts) - set(weights)
    assert set(counts) == set(weights), f"never drawn: {set(weights) - set(counts)}"
    total, weight = sum(counts.values()), sum(weights.values())
    stat = 0.0
    for outcome, w in weights.items():
        expected = total * w / weight
        stat += (counts[outcome] - expected) ** 2 / expected
    limit = chi_square_limit(len(weights) - 1)
    assert stat < limit, f"chi-square {stat:.1f} >= {limit:.1f} over {len(weights)} outcomes"


def assert_uniform(draws: Iterable[Hashable], outcomes: set[Hashable]) -> None:
    """:func:`assert_distributed` with every outcome equally likely."""
    assert_distributed(draws, Counter(outcomes))
