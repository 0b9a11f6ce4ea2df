"""The adaptive plan for Chocolates (the ``plan`` bot, choco_envs/bots/chocolates/plan.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs import bots, chocolates_v0
from choco_envs.bots.chocolates import plan
from choco_envs.bots.chocolates.greedy import best_take, ends_behind, side_value
from choco_envs.bots.chocolates.plan import Plan, PlanBot
from choco_envs.core.errors import ConfigError
from choco_envs.games.chocolates import ChocolatesGame
from choco_envs.games.chocolates.rules import card_truths

from .helpers import reveal, state_from


def _sure_card(p: Plan, s, want_true: bool) -> int:
    """A card the face-up chocolates of ``s`` settle (true or false) for certain."""
    truth = p.truth(s)
    return next(c for c in range(29) if truth[c] == (1.0 if want_true else 0.0))


def _revealed(game: ChocolatesGame, n: int, seed: int = 0):
    s = state_from(game, seed=seed)
    for pos in range(n):
        s.revealed[pos] = True
    s.grid_hidden = sum(not r for r in s.revealed[:16])
    return s


def test_plan_is_its_own_kind_with_its_caches_in_the_bot() -> None:
    """``plan`` is made by name and takes no settings; each bot keeps its own estimates
    (no cache is shared through the module), and plays legal moves in the env."""
    with pytest.raises(
        ConfigError, match="unknown option 'adaptive' for plan.*allowed options: none"
    ):
        bots.make("plan:adaptive=1", env_id="chocolates_v0")
    a, b = (
        bots.make("plan", env_id="chocolates_v0", seed=1),
        bots.make("plan", env_id="chocolates_v0"),
    )
    assert isinstance(a, PlanBot) and isinstance(b, PlanBot)
    env = chocolates_v0.env(num_players=2)
    env.reset(seed=3)
    seats = {"player_0": a, "player_1": b}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = seats[agent].act(env)
        assert obs["action_mask"][action]
        env.step(action)
    assert a.plan is not None and b.plan is not None and a.plan is not b.plan
    assert a.plan.estimator._cache and a.plan.estimator._cache is not b.plan.estimator._cache


def test_plan_reads_public_facts_only() -> None:
    """Re-dealing the face-down chocolates (any determinization) never changes the plan's
    action: Chocolates has no private information and the plan's sampling is seeded from
    the face-up table."""
    game = ChocolatesGame(num_players=2)
    p = Plan(game)
    for seed in range(4):
        rng = random.Random(seed)
        s = game.new_state(rng)
        while not game.is_over(s):
            seat = game.current_player(s)
            want = p.action(s)
            other = game.determinize(s, seat, rng)
            assert Plan(game).action(other) == want
            assert want in game.legal_actions(s)
            game.apply(s, want if rng.random() < 0.5 else rng.choice(game.legal_actions(s)), rng)


def test_a_wrong_card_held_by_another_seat_makes_the_plan_patient() -> None:
    """Another seat holding a side the table already knows is wrong is reckless: the plan
    plays patient; holding only sure-right sides it plays quick."""
    game = ChocolatesGame(num_players=2)
    p = Plan(game)
    s = _revealed(game, 14)
    truth = p.truth(s)
    s.current = 0
    assert plan.patient(game, s, 0, truth)  # nobody holds a card yet
    s.cards[1] = (2 * _sure_card(p, s, want_true=True),)  # true side up: right
    assert not plan.reckless(game, s, 0, truth)
    assert not plan.patient(game, s, 0, truth)
    s.cards[1] += (2 * _sure_card(p, s, want_true=False),)  # true side up: wrong
    assert plan.reckless(game, s, 0, truth)
    assert plan.patient(game, s, 0, truth)


def test_quick_mode_takes_greedys_best_card_at_its_rush_confidence() -> None:
    """Against a careful seat the plan takes greedy's best take at RUSH_CONFIDENCE, and
    with none it reveals a least informative chocolate (the careful seat stays unsure)."""
    game = ChocolatesGame(num_players=2)
    p = Plan(game)
    took = revealed = 0
    for seed in range(40):
        s = _revealed(game, 6 + seed % 8, seed)
        s.display = random.Random(seed).sample(range(29), 3)
        s.current = 0
        s.cards[1] = (2 * _sure_card(p, s, want_true=True),)
        assert not plan.patient(game, s, 0, p.truth(s))
        rates = [float(t) for t in p.truth(s)]
        take = best_take(s, rates, plan.RUSH_CONFIDENCE)
        action = p.action(s)
        if take is not None and not ends_behind(game, s, 0, rates, take):
            assert action == take
            took += 1
        else:
            values = p.info_values(s)
            assert values[action - plan.REVEAL_BASE] == pytest.approx(min(values.values()))
            revealed += 1
    assert took >= 5 and revealed >= 3


def test_the_needed_confidence_falls_as_the_turns_run_short() -> None:
    """Patient takes need 0.95 with 3+ turns to spare, 0.85 with 1-2, 0.7 with none; 0.7
    at most while another seat is one card from the limit; 0.5 once the end is
    triggered."""
    game = ChocolatesGame(num_players=2)
    s = _revealed(game, 0)
    assert plan.slack(game, s, 0) == 10 - 4  # ceil((16 + 0.5 * 5) / 2) turns, 4 cards
    assert plan.deadline_confidence(game, s, 0) == 0.95
    s = _revealed(game, 12)  # 4 grid + 5 beside left: ceil(6.5 / 2) = 4 turns
    s.cards[0] = (0, 2)  # 2 cards still needed
    assert plan.slack(game, s, 0) == 2
    assert plan.deadline_confidence(game, s, 0) == 0.85
    s.cards[0] = ()
    assert plan.deadline_confidence(game, s, 0) == 0.7
    s.cards[0] = (0, 2, 4)
    s.cards[1] = (6, 8, 10)
    assert plan.deadline_confidence(game, s, 0) == 0.7  # 0.95 by slack, capped near the end
    s.final_turns = 0
    assert plan.deadline_confidence(game, s, 0) == 0.5


def test_patient_reveals_are_the_most_informative() -> None:
    """With no take it will make, the patient plan reveals a chocolate of highest
    information value, and the value is the expected worth of the display after it."""
    game = ChocolatesGame(num_players=2)
    p = Plan(game)
    seen = 0
    for seed in range(30):
        s = _revealed(game, 3 + seed % 8, seed)
        s.current = 0
        action = p.action(s)
        if action < 6:
            continue
        values = p.info_values(s)
        assert set(values) == {pos for pos in range(21) if not s.revealed[pos]}
        assert values[action - 6] == pytest.approx(max(values.values()))
        assert all(v >= 0 for v in values.values())
        seen += 1
    assert seen >= 10


def test_info_value_of_a_settling_reveal() -> None:
    """A reveal that settles a display card at once is worth its best side: with the 21st
    chocolate the only one face down, revealing it settles every card, so its value is the
    summed best side of each display card (plus nougats) on the true layout."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game, display=(0, 1, 28))
    for pos in range(20):
        s.revealed[pos] = True
    s.grid_hidden = 0
    s.display_nougats = [0, 1, 0]
    values = Plan(game).info_values(s)
    assert list(values) == [20]
    truth = card_truths(s.layout)
    want = sum(
        max(side_value(c, 0, float(truth[c])), side_value(c, 1, float(truth[c])))
        + s.display_nougats[slot]
        for slot, c in enumerate(s.display)
    )
    assert values[20] == pytest.approx(want)
    assert reveal(20) == plan.REVEAL_BASE + 20


def _settled_last_turn(game: ChocolatesGame, display: tuple[int, int, int]):
    """Player 0 on its last turn (the end triggered by player 1), with every chocolate
    but the last one beside the grid face up, so every card but card 28 is settled."""
    s = state_from(game, display=display)
    for pos in range(20):
        s.revealed[pos] = True
    s.grid_hidden = 0
    s.current = 0
    s.final_turns = 0
    return s


def test_last_turn_takes_what_wins_most_often() -> None:
    """On its last turn the plan takes the card and side that win on the most
    arrangements of the face-down chocolates: behind by 3, it takes the right (true) side
    of card 1 ('Exactly 2 green chocolates in the grid', 5 points; the drawing has two
    greens in the grid), never its wrong side and never nothing."""
    game = ChocolatesGame(num_players=2)
    p = Plan(game)
    s = _settled_last_turn(game, (0, 1, 2))
    s.nougats = [0, 3]
    assert plan.last_turn(s)
    assert p.truth(s)[1] == 1.0
    assert p.last_turn_action(s, 0) == 2  # display slot 1, true side up
    assert p.action(s) == 2


def test_last_turn_scores_the_cards_already_held() -> None:
    """The last-turn choice scores every seat's held cards as the rules do: seat 0 holds
    card 2 true side up ('Exactly 3 white chocolates in the grid', true on the drawing:
    +5) and trails by 7 nougats, so the right side of card 1 (+5) wins it the game; held
    false side up (-5), nothing wins, and ties between choices go to no take."""
    game = ChocolatesGame(num_players=2)
    s = _settled_last_turn(game, (0, 1, 3))
    s.cards = [(2 * 2,), ()]
    s.nougats = [0, 7]
    assert Plan(game).last_turn_action(s, 0) == 2
    s.cards = [(2 * 2 + 1,), ()]
    assert Plan(game).last_turn_action(s, 0) is None


def test_last_turn_takes_nothing_when_no_take_wins_more() -> None:
    """Already ahead on every arrangement, the plan's last turn takes nothing (ties
    between choices go to no take) and reveals."""
    game = ChocolatesGame(num_players=2)
    p = Plan(game)
    s = _settled_last_turn(game, (0, 1, 2))
    s.nougats = [10, 0]
    assert p.last_turn_action(s, 0) is None
    assert p.action(s) >= plan.REVEAL_BASE


def test_the_plan_refuses_a_finished_game() -> None:
    game = ChocolatesGame(num_players=2)
    s = _settled_last_turn(game, (0, 1, 2))
    s.over, s.current = True, -1
    with pytest.raises(ValueError, match="over"):
        Plan(game).action(s)
    assert np.isfinite(Plan(game).truth(s)).all()
