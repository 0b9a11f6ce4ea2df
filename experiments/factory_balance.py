"""Tier balance check with bots: ``python experiments/factory_balance.py``.

RULINGS.md asks that recipes keep the tiers honest (points per pick comparable; always
choosing Bronze not dominant). This plays greedy bots that refill freed stations only
with one tier against each other and against the free greedy bot, and measures the
points per pick each tier earns. The numbers are reported in the docs.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from choco_envs.bots.chocolate_factory.greedy import greedy_action
from choco_envs.games.chocolate_factory import ChocolateFactoryGame
from choco_envs.games.chocolate_factory.rules import PASS, ChocolateFactoryRules, FactoryState

Policy = Callable[[ChocolateFactoryRules, FactoryState, random.Random], int]


def tier_bot(tier: int) -> Policy:
    """Greedy play that refills freed stations only with varieties of ``tier``."""
    return lambda game, s, rng: greedy_action(game, s, rng, tier=tier)


def match(
    game: ChocolateFactoryRules, policies: list[Policy], games: int, seed: int = 0
) -> tuple[list[float], list[float]]:
    """Mean return and mean score of each policy, seats rotated every game."""
    rng = random.Random(seed)
    n = len(policies)
    returns, scores = [0.0] * n, [0.0] * n
    for g in range(games):
        seat_of = [(i + g) % n for i in range(n)]  # policy i sits at seat_of[i]
        by_seat = {seat_of[i]: policies[i] for i in range(n)}
        s = game.new_state(rng)
        while not game.is_over(s):
            game.apply(s, by_seat[game.current_player(s)](game, s, rng), rng)
        r, sc = game.returns(s), game.scores(s)
        for i in range(n):
            returns[i] += r[seat_of[i]] / games
            scores[i] += sc[seat_of[i]] / games
    return returns, scores


def points_per_pick(
    game: ChocolateFactoryRules, games: int, seed: int = 1
) -> dict[int, tuple[float, ...]]:
    """Free greedy self-play: per tier, (bars, picks spent per bar, points per bar with
    refinements, points per pick). Picks at a station are counted until it finishes."""
    rng = random.Random(seed)
    totals: dict[int, list[float]] = {t: [0, 0, 0] for t in range(3)}
    for _ in range(games):
        s = game.new_state(rng)
        spent = [0] * (4 * game.num_players)
        while not game.is_over(s):
            p = game.current_player(s)
            a = greedy_action(game, s, rng)
            k = None
            if a < PASS:
                st = a // 36 if a < 144 else ((a - 144) % 24) // 6
                k = p * 4 + st
                spent[k] += 1
                variety = s.variety[k]
            before = game.scores(s)[p] - s.bonus_points[p]
            finished = s.finished[p]
            game.apply(s, a, rng)
            if k is not None and s.finished[p] > finished:
                row = totals[game.tier[variety]]
                row[0] += 1
                row[1] += spent[k]
                row[2] += game.scores(s)[p] - s.bonus_points[p] - before
                spent[k] = 0
    return {
        t: (c, round(pk / c, 2), round(pt / c, 2), round(pt / pk, 2))
        for t, (c, pk, pt) in totals.items()
        if c
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args(argv)
    names = ("bronze-only", "silver-only", "gold-only")
    game3 = ChocolateFactoryGame(num_players=3)
    r, sc = match(game3, [tier_bot(0), tier_bot(1), tier_bot(2)], args.games)
    for name, ret, score in zip(names, r, sc, strict=True):
        print(f"3 players, tier bots together: {name:12s} return {ret:+.2f} score {score:.1f}")
    for n in (2, 4):
        game = ChocolateFactoryGame(num_players=n)
        for tier, name in enumerate(names):
            r, sc = match(game, [tier_bot(tier)] + [greedy_action] * (n - 1), args.games)
            print(
                f"{n} players, {name} vs greedy: return {r[0]:+.2f} (greedy "
                f"{sum(r[1:]) / (n - 1):+.2f}), score {sc[0]:.1f} (greedy "
                f"{sum(sc[1:]) / (n - 1):.1f})"
            )
        print(f"{n} players, greedy per tier (bars, picks/bar, points/bar, points/pick):")
        print("   ", points_per_pick(game, args.games // 3))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
