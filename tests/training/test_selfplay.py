"""Per-seat trajectories: each seat's transitions link to its own next decision, rewards
reach every seat at the end, and GAE follows the seat's own chain."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs.core.errors import ConfigError
from choco_envs.train.games import LEARNER, PAST, GameVec, LeagueRoles
from choco_envs.train.rollout import SeatRollout
from tests.training.toy_nim import ENV_ID


def add(buf: SeatRollout, env: int, seat: int, value: float) -> None:
    buf.add(
        np.array([env]),
        np.array([seat]),
        np.zeros((1, 2), np.float32),
        np.ones((1, 3), bool),
        np.array([0]),
        np.array([0.0], np.float32),
        np.array([value], np.float32),
    )


def test_multi_step_turns_link_each_seat_to_its_own_next_decision() -> None:
    """Seat 0 moves twice in a row, then seat 1, then seat 0 again; the game ends with
    seat 0 winning: seat 0's chain is 0 -> 1 -> 3, seat 1's is 2 alone."""
    buf = SeatRollout(16, 2, 3)
    for seat, value in [(0, 0.1), (0, 0.2), (1, 0.3), (0, 0.4)]:
        add(buf, 0, seat, value)
    buf.end_game(0, [1.0, -1.0])
    assert buf.next[:4].tolist() == [1, 3, -1, -1]
    assert buf.done[:4].tolist() == [False, False, True, True]
    assert buf.reward[:4].tolist() == [0.0, 0.0, -1.0, 1.0]
    idx, adv = buf.advantages(gamma=1.0, gae_lambda=1.0)
    assert idx.tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(adv, [1.0 - 0.1, 1.0 - 0.2, -1.0 - 0.3, 1.0 - 0.4], rtol=1e-6)


def test_gae_with_lambda_follows_the_seat_chain() -> None:
    buf = SeatRollout(8, 2, 3)
    add(buf, 0, 0, 0.5)
    add(buf, 0, 1, 0.0)
    add(buf, 0, 0, 0.25)
    buf.end_game(0, [-1.0, 1.0])
    _, adv = buf.advantages(gamma=1.0, gae_lambda=0.5)
    last = -1.0 - 0.25
    first = (0.25 - 0.5) + 0.5 * last
    np.testing.assert_allclose(adv, [first, 1.0, last], rtol=1e-6)


def test_unfinished_last_transition_is_carried_into_the_next_rollout() -> None:
    buf = SeatRollout(8, 2, 3)
    add(buf, 0, 0, 0.5)
    add(buf, 1, 0, 0.7)
    add(buf, 0, 0, 0.6)
    idx, adv = buf.advantages(gamma=1.0, gae_lambda=0.95)
    assert idx.tolist() == [0]  # env 0's second and env 1's only decision are pending
    np.testing.assert_allclose(adv, [0.6 - 0.5], rtol=1e-6)
    buf.carry_over()
    assert buf.size == 2 and sorted(buf.value[:2].tolist()) == pytest.approx([0.6, 0.7])
    buf.end_game(1, [1.0])
    buf.end_game(0, [-1.0])
    idx, adv = buf.advantages(gamma=1.0, gae_lambda=0.95)
    pairs = sorted(zip(buf.value[idx].tolist(), adv.tolist(), strict=True))
    assert pairs == [pytest.approx((0.6, -1.6)), pytest.approx((0.7, 0.3))]


def test_league_always_has_a_learner_seat_and_follows_the_weights() -> None:
    roles = LeagueRoles(self_play=0.0, past=0.5, bots={"random": 1.0})
    rng = random.Random(0)
    draws = [roles(3, rng) for _ in range(400)]
    assert all(d.count(LEARNER) == 1 for d in draws)
    others = [r for d in draws for r in d if r != LEARNER]
    assert 0.4 < others.count(PAST) / len(others) < 0.6 and set(others) == {PAST, 0}


def test_a_whole_table_league_seats_one_bot_in_every_other_seat() -> None:
    """league_whole_table: the arena's condition (N-1 copies of one bot), which
    independent draws give at 4 seats with chance 0.5^3 at best."""
    roles = LeagueRoles(0.0, 0.3, {"random": 1.0, "greedy": 1.0}, whole_table=0.5)
    rng = random.Random(1)
    draws = [roles(4, rng) for _ in range(2000)]
    assert all(d.count(LEARNER) == 1 for d in draws)

    def one_bot(d: list[int]) -> bool:
        others = [r for r in d if r != LEARNER]
        return len(set(others)) == 1 and others[0] not in (LEARNER, PAST)

    same_bot = [d for d in draws if one_bot(d)]
    # 0.5 whole tables, plus independent draws that happen to agree (0.7^3 / 4 each bot)
    assert 0.5 < len(same_bot) / len(draws) < 0.65
    assert {next(r for r in d if r != LEARNER) for d in same_bot} == {0, 1}
    independent = LeagueRoles(0.0, 0.3, {"random": 1.0, "greedy": 1.0})
    rng = random.Random(1)
    plain = [independent(4, rng) for _ in range(2000)]
    assert sum(map(one_bot, plain)) / len(plain) < 0.15
    with pytest.raises(ConfigError, match="whole_table=1.5 is not in"):
        LeagueRoles(0.2, 0.1, {"random": 1.0}, whole_table=1.5)
    with pytest.raises(ConfigError, match="whole_table > 0 needs"):
        LeagueRoles(1.0, 0.0, {}, whole_table=0.5)


def test_league_refuses_bad_probabilities() -> None:
    with pytest.raises(ConfigError, match="exceeds 1"):
        LeagueRoles(0.8, 0.5, {})
    with pytest.raises(ConfigError, match="needs at least one bot"):
        LeagueRoles(0.5, 0.2, {})


def test_game_vec_plays_bot_seats_itself_and_reports_each_seat_return() -> None:
    """Learner in seat 0 against greedy (perfect Nim) with 10 stones: greedy wins every
    game, and every decision the vector asks for is seat 0's."""
    vec = GameVec(ENV_ID, {"stones": 10}, "flat", 4, 0, lambda n, rng: [LEARNER, 0], ["greedy"])
    dec = vec.reset()
    results = []
    for _ in range(30):
        assert (dec.seat == 0).all() and (dec.role == LEARNER).all()
        dec = vec.step(np.flatnonzero(dec.mask[0])[:1].repeat(4) * 0)  # always take 1
        results += dec.finished
    assert results and all(ret == [-1.0, 1.0] for _, ret, _ in results)
