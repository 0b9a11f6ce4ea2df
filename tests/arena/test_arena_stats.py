"""The arena's statistics on cases with known answers."""

from __future__ import annotations

import math

import pytest

from choco_envs.arena import Entrant, run_arena
from choco_envs.arena.stats import (
    GameResult,
    bradley_terry_elo,
    openskill_ratings,
    wilson_interval,
)
from choco_envs.core.outcomes import places
from tests.bots.choco_toy import ToyRaceGame
from tests.bots.choco_toy.bots import make_max, make_min

MAX, MIN = Entrant("max", make_max), Entrant("min", make_min)


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        (5, 10, 0.236593, 0.763407),
        (0, 10, 0.0, 0.277533),
        (10, 10, 0.722467, 1.0),
        (40, 40, 0.912378, 1.0),
        (81, 100, 0.722211, 0.874852),
    ],
)
def test_wilson_interval_values(successes, trials, low, high):
    """Wilson score interval, z = 1.96, against (2np + z^2 +- z sqrt(z^2 + 4np(1-p))) / 2(n + z^2)
    worked by hand."""
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((low, high), abs=1e-6)


def test_wilson_interval_without_games_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_always_winner_against_always_loser():
    """max (+3 every turn) beats min (+1) from either seat on every deal: win rate 1 and
    0, Wilson bounds of n/n and 0/n, and a mean margin of exactly 2 per round, because
    each deal is played from both seats so the hidden bonuses cancel."""
    report = run_arena(ToyRaceGame, [MAX, MIN], games=20, seed=3, progress=False)
    by_name = {row["name"]: row for row in report["bots"]}
    n = report["games_played"]
    assert n == 20 and by_name["max"]["games"] == by_name["min"]["games"] == 20
    assert by_name["max"]["win_rate"] == 1.0 and by_name["min"]["win_rate"] == 0.0
    assert by_name["max"]["win_rate_ci95"] == pytest.approx(list(wilson_interval(20, 20)))
    assert by_name["min"]["win_rate_ci95"] == pytest.approx(list(wilson_interval(0, 20)))
    assert by_name["max"]["mean_margin"] == pytest.approx(6.0)
    assert by_name["min"]["mean_margin"] == pytest.approx(-6.0)
    assert by_name["max"]["elo"] - by_name["min"]["elo"] == pytest.approx(400 * math.log10(41))
    assert report["head_to_head"] == {"max": {"min": 1.0}, "min": {"max": 0.0}}


def test_every_deal_is_played_from_every_seat():
    report = run_arena(ToyRaceGame, [MAX, MIN], players=2, games=6, seed=1, progress=False)
    by_deal: dict[int, list[list[int]]] = {}
    for game in report["games"]:
        by_deal.setdefault(game["deal"], []).append(game["seats"])
    assert sorted(by_deal.values()) == [[[0, 1], [1, 0]]] * 3
    assert len({g["env_seed"] for g in report["games"]}) == 3


def test_more_bots_than_seats_meet_in_every_pair_with_both_seatings():
    report = run_arena(
        ToyRaceGame, [MAX, MIN, "random"], players=2, games=5, seed=1, progress=False
    )
    seatings = sorted(tuple(g["seats"]) for g in report["games"])
    assert report["games_played"] == 6  # rounded up to a whole cycle: 3 pairs x 2 seats
    assert seatings == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]


def test_fewer_bots_than_seats_are_repeated():
    report = run_arena(ToyRaceGame, [MAX, MIN], players=4, games=4, seed=1, progress=False)
    assert sorted(tuple(g["seats"]) for g in report["games"]) == [
        (0, 1, 0, 1),
        (0, 1, 0, 1),
        (1, 0, 1, 0),
        (1, 0, 1, 0),
    ]
    by_name = {row["name"]: row for row in report["bots"]}
    assert by_name["max"]["games"] == 8  # one row per seat held
    assert by_name["max"]["win_rate"] == pytest.approx(0.5)  # two max seats share first


def test_places_share_ties():
    assert places([(3.0,), (5.0,), (3.0,), (1.0,)]) == [1, 0, 1, 3]


def test_shared_first_place_counts_one_over_k():
    game = GameResult(0, 0, 0, 1, [0, 1, 2], [5.0, 5.0, 1.0], [0, 0, 2], 3, 0.0)
    assert [game.win_share(s) for s in range(3)] == [0.5, 0.5, 0.0]
    assert [game.margin(s) for s in range(3)] == [0.0, 0.0, -4.0]


def test_bradley_terry_of_equal_bots_is_equal():
    wins = [[0, 5, 5], [5, 0, 5], [5, 5, 0]]
    played = [[0, 10, 10], [10, 0, 10], [10, 10, 0]]
    assert bradley_terry_elo(wins, played) == pytest.approx([1500.0] * 3)


def test_bradley_terry_recovers_known_odds():
    """A wins 3 of 4 against B: odds 3:1 after the prior draw, 400 log10(3) Elo apart."""
    elo = bradley_terry_elo([[0, 2.5], [0.5, 0]], [[0, 2], [2, 0]])
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(3))
    assert sum(elo) / 2 == pytest.approx(1500.0)


def test_openskill_ranks_the_winner_higher():
    games = [GameResult(i, i, 0, i, [0, 1], [2.0, 1.0], [0, 1], 1, 0.0) for i in range(5)]
    skill = openskill_ratings(games, 2)
    assert skill is not None
    assert skill[0]["mu"] > 25.0 > skill[1]["mu"]


def test_workers_give_the_same_results_as_one_process():
    bots = [MAX, "random", "mcts:simulations=10"]
    one = run_arena(ToyRaceGame, bots, games=6, seed=2, progress=False)
    two = run_arena(ToyRaceGame, bots, games=6, seed=2, workers=2, progress=False)
    strip = [
        {k: v for k, v in g.items() if k not in ("seconds", "think_seconds")} for g in one["games"]
    ]
    assert strip == [
        {k: v for k, v in g.items() if k not in ("seconds", "think_seconds")} for g in two["games"]
    ]


def test_the_report_names_the_file_each_checkpoint_bot_played():
    """A report says which network played: the path and the SHA-256 of the tensors of
    the file behind ``ppo`` (the shipped file) and ``policy:PATH``, nothing for a bot
    without a file."""
    from choco_envs.policy.checkpoint import shipped_checkpoint, weights_sha256

    shipped = shipped_checkpoint("chocolate_factory_v2", {"num_players": 2})
    report = run_arena(
        "chocolate_factory_v2", ["ppo", f"policy:{shipped}", "random"], games=3, seed=1,
        progress=False,
    )  # fmt: skip
    files = report["config"]["checkpoints"]
    assert set(files) == {"ppo", f"policy:{shipped}"}
    for entry in files.values():
        assert entry == {"path": str(shipped), "weights_sha256": weights_sha256(shipped)}
