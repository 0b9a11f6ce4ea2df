"""Tier balance (the rulings in docs/games/chocolate_factory.md, Chocolate Factory): "Recipes must keep the tiers honest: points
per pick needed should be comparable across tiers, so that always choosing Bronze is not
dominant; check it with bots, head to head (always-Bronze against always-Silver,
always-Gold and the free greedy bot), at every player count and both lengths, not only in
a mixed table."

The full check (800 games a pair, every player count and length) is slow-marked; its table
is in docs/games/chocolate_factory.md (``python -m choco_envs.bots.chocolate_factory.balance``).
The default tests check the yardstick itself: duplicate deals cancel out, and the verdict
names a dominant tier when there is one.
"""

from __future__ import annotations

import itertools

import pytest

from choco_envs.bots.chocolate_factory import balance
from choco_envs.bots.chocolate_factory.balance import PairResult


def _result(players: int, a: str, b: str, diff: float, half: float = 0.05) -> PairResult:
    return PairResult(players, "short", a, b, 800, diff, diff - half, diff + half, 0.0, 0.0)


def test_a_strategy_against_itself_is_exactly_even_on_duplicate_deals() -> None:
    """Each deal is played once with A on the even seats and once on the odd ones, so a
    strategy against itself cancels to exactly zero (an odd player count included)."""
    for players in (2, 3):
        r = balance.head_to_head(players, "short", "bronze", "bronze", games=6)
        assert r.games == 6
        assert r.diff == 0.0 and r.winner is None


def test_head_to_head_is_antisymmetric() -> None:
    """A against B is minus B against A on the same deals."""
    ab = balance.head_to_head(2, "short", "bronze", "gold", games=10, seed=3)
    ba = balance.head_to_head(2, "short", "gold", "bronze", games=10, seed=3)
    assert ab.diff == pytest.approx(-ba.diff)
    assert ab.score_a == pytest.approx(ba.score_b)


def test_a_tier_that_beats_all_three_others_is_named_dominant() -> None:
    """Dominant: a fixed tier beating each of the other three (its interval above zero)."""
    pairs = list(itertools.combinations(balance.STRATEGIES, 2))
    bronze_wins = [
        _result(2, a, b, 0.3 if a == "bronze" else (-0.3 if b == "bronze" else 0.0))
        for a, b in pairs
    ]
    assert balance.dominant(bronze_wins) == [(2, "short", "bronze")]
    # a tie with greedy (interval across zero) is enough to not dominate
    tied = [r if (r.a, r.b) != ("bronze", "greedy") else _result(2, "bronze", "greedy", 0.02)
            for r in bronze_wins]  # fmt: skip
    assert balance.dominant(tied) == []
    # the free greedy bot beating everything is not a fixed tier dominating
    greedy_wins = [_result(2, a, b, -0.3 if b == "greedy" else 0.0) for a, b in pairs]
    assert balance.dominant(greedy_wins) == []


def test_an_unknown_strategy_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'platinum'.*bronze, silver, gold, greedy"):
        balance.strategy("platinum")


@pytest.mark.slow
def test_no_fixed_tier_dominates_at_any_player_count_and_length() -> None:
    """Rulings: always choosing one tier is not dominant, head to head, at every player
    count and both lengths (800 games a pair)."""
    results = balance.grid(games=balance.GAMES)
    assert len(results) == 5 * 2 * 6
    assert balance.dominant(results) == [], balance.to_markdown(results)


def test_the_heat_map_is_written(tmp_path) -> None:
    """``--plot`` draws the table: a PNG file from any set of pair results."""
    pairs = list(itertools.combinations(balance.STRATEGIES, 2))
    results = [_result(n, a, b, 0.1) for n in (2, 3) for a, b in pairs]
    path = tmp_path / "balance.png"
    balance.write_plot(results, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
