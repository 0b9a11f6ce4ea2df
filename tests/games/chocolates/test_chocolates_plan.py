"""The adaptive plan for Chocolates (plan.py, ``greedy:adaptive=1``, the ``plan``
observation)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs.bots import make
from choco_envs.core.errors import ConfigError
from choco_envs.games.chocolates import ChocolatesGame, greedy, plan

from .helpers import reveal, state_from


def _sure_card(game: ChocolatesGame, s, want_true: bool) -> int:
    """A card the face-up chocolates of ``s`` settle (true or false) for certain."""
    truth = plan.truth_of(game, s)
    return next(c for c in range(29) if truth[c] == (1.0 if want_true else 0.0))


def _revealed(game: ChocolatesGame, n: int, seed: int = 0):
    s = state_from(game, seed=seed)
    for pos in range(n):
        s.revealed[pos] = True
    s.grid_hidden = sum(not r for r in s.revealed[:16])
    return s


def test_adaptive_setting_is_checked() -> None:
    """``adaptive`` is 0 or 1 and takes no other setting, refused when the bot is made
    (before any game) and by ``greedy_action``; bad values name what is allowed."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    with pytest.raises(ValueError, match="allowed: 0 or 1"):
        greedy.OPTIONS["adaptive"][0]("2")
    with pytest.raises(ValueError, match="adaptive=1 takes no other setting"):
        greedy.greedy_action(game, s, random.Random(0), min_confidence=0.7, adaptive=True)
    with pytest.raises(ConfigError, match=r"got final_confidence, min_confidence"):
        make("greedy:adaptive=1,min_confidence=0.7,final_confidence=0.5", env_id="chocolates_v0")
    make("greedy:adaptive=0,min_confidence=0.7", env_id="chocolates_v0")  # off: any setting
    assert greedy.greedy_action(game, s, random.Random(0), adaptive=True) == plan.plan_action(
        game, s
    )


def test_plan_reads_public_facts_only() -> None:
    """Re-dealing the face-down chocolates (any determinization) never changes the plan's
    action, its mode or the ``plan`` observation: Chocolates has no private information
    and the plan's sampling is seeded from the face-up table."""
    game = ChocolatesGame(num_players=2)
    enc = game.encoders["plan"]
    for seed in range(6):
        rng = random.Random(seed)
        s = game.new_state(rng)
        while not game.is_over(s):
            seat = game.current_player(s)
            want = plan.plan_action(game, s)
            obs = np.zeros(enc.shape, np.float32)
            enc.fill(s, seat, obs)
            for _ in range(2):
                other = game.determinize(s, seat, rng)
                assert plan.plan_action(game, other) == want
                again = np.zeros(enc.shape, np.float32)
                enc.fill(other, seat, again)
                assert np.array_equal(obs, again)
            assert want in game.legal_actions(s)
            game.apply(s, want if rng.random() < 0.5 else rng.choice(game.legal_actions(s)), rng)


def test_a_wrong_card_held_by_another_seat_makes_the_plan_patient() -> None:
    """Another seat holding a side the table already knows is wrong is reckless: the plan
    plays patient; holding only sure-right sides it plays quick (greedy at 0.6)."""
    game = ChocolatesGame(num_players=2)
    s = _revealed(game, 14)
    truth = plan.truth_of(game, s)
    s.current = 0
    assert plan.patient(game, s, 0, truth)  # nobody holds a card yet
    s.cards[1] = [2 * _sure_card(game, s, want_true=True)]  # true side up: right
    assert not plan.reckless(game, s, 0, truth)
    assert not plan.patient(game, s, 0, truth)
    s.cards[1].append(2 * _sure_card(game, s, want_true=False))  # true side up: wrong
    assert plan.reckless(game, s, 0, truth)
    assert plan.patient(game, s, 0, truth)


def test_quick_mode_takes_greedys_best_card_at_its_rush_confidence() -> None:
    """Against a careful seat the plan takes greedy's best take at RUSH_CONFIDENCE, and
    with none it reveals a least informative chocolate (the careful seat stays unsure)."""
    game = ChocolatesGame(num_players=2)
    took = revealed = 0
    for seed in range(40):
        s = _revealed(game, 6 + seed % 8, seed)
        s.display = random.Random(seed).sample(range(29), 3)
        s.current = 0
        s.cards[1] = [2 * _sure_card(game, s, want_true=True)]
        assert not plan.patient(game, s, 0, plan.truth_of(game, s))
        rates = [float(t) for t in plan.truth_of(game, s)]
        take = greedy.best_take(s, rates, plan.RUSH_CONFIDENCE)
        action = plan.plan_action(game, s)
        if take is not None and not greedy.ends_behind(game, s, 0, rates, take):
            assert action == take
            took += 1
        else:
            values = plan.info_values(game, s)
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
    s.cards[0] = [0, 2]  # 2 cards still needed
    assert plan.slack(game, s, 0) == 2
    assert plan.deadline_confidence(game, s, 0) == 0.85
    s.cards[0] = []
    assert plan.deadline_confidence(game, s, 0) == 0.7
    s.cards[0] = [0, 2, 4]
    s.cards[1] = [6, 8, 10]
    assert plan.deadline_confidence(game, s, 0) == 0.7  # 0.95 by slack, capped near the end
    s.final_turns = 0
    assert plan.deadline_confidence(game, s, 0) == 0.5


def test_patient_reveals_are_the_most_informative() -> None:
    """With no take it will make, the patient plan reveals a chocolate of highest
    information value, and the value is the expected worth of the display after it."""
    game = ChocolatesGame(num_players=2)
    seen = 0
    for seed in range(30):
        s = _revealed(game, 3 + seed % 8, seed)
        s.current = 0
        action = plan.plan_action(game, s)
        if action < 6:
            continue
        values = plan.info_values(game, s)
        assert set(values) == {p for p in range(21) if not s.revealed[p]}
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
    values = plan.info_values(game, s)
    assert list(values) == [20]
    final = s.layout[:]
    truth = plan.truth_matrix(np.array([final]))[0]
    want = sum(
        max(greedy.side_value(c, 0, float(truth[c])), greedy.side_value(c, 1, float(truth[c])))
        + s.display_nougats[slot]
        for slot, c in enumerate(s.display)
    )
    assert values[20] == pytest.approx(want)
    assert reveal(20) == plan.REVEAL_BASE + 20


def test_plan_observation_holds_the_plan_action_for_the_seat_to_act() -> None:
    """``plan`` = ``beliefs``, then a one-hot of the plan's action for the observing seat
    when it is to act (zeros for a seat that waits), then the plan's mode."""
    game = ChocolatesGame(num_players=2)
    enc, beliefs = game.encoders["plan"], game.encoders["beliefs"]
    lay = enc.layout
    assert enc.action_fields == {"plan_action": 0}
    rng = random.Random(3)
    s = game.new_state(rng)
    for _ in range(8):
        seat = game.current_player(s)
        for player in (0, 1):
            obs = np.zeros(enc.shape, np.float32)
            enc.fill(s, player, obs)
            base = np.zeros(beliefs.shape, np.float32)
            beliefs.fill(s, player, base)
            assert np.array_equal(obs[: beliefs.shape[0]], base)
            onehot = obs[lay["plan_action"]]
            if player == seat:
                assert onehot.sum() == 1 and onehot.argmax() == plan.plan_action(game, s)
            else:
                assert onehot.sum() == 0
            truth = plan.truth_of(game, s)
            assert obs[lay["plan_patient"]][0] == float(plan.patient(game, s, player, truth))
        game.apply(s, rng.choice(game.legal_actions(s)), rng)


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
    s = _settled_last_turn(game, (0, 1, 2))
    s.nougats = [0, 3]
    assert plan.last_turn(s)
    assert plan.truth_of(game, s)[1] == 1.0
    assert plan.last_turn_action(game, s, 0) == 2  # display slot 1, true side up
    assert plan.plan_action(game, s) == 2


def test_last_turn_takes_nothing_when_no_take_wins_more() -> None:
    """Already ahead on every arrangement, the plan's last turn takes nothing (ties
    between choices go to no take) and reveals."""
    game = ChocolatesGame(num_players=2)
    s = _settled_last_turn(game, (0, 1, 2))
    s.nougats = [10, 0]
    assert plan.last_turn_action(game, s, 0) is None
    assert plan.plan_action(game, s) >= plan.REVEAL_BASE


def test_held_points_score_as_the_rules_do() -> None:
    """``held_points`` (the last-turn choice's scorer, over many layouts at once) gives
    every seat the prediction points ``ChocolatesGame.prediction_points`` gives on each
    complete layout: "+ the points of the side up if that side is right, - those points if
    it is wrong"."""
    game = ChocolatesGame(num_players=2)
    rng = random.Random(8)
    for _ in range(20):
        s = game.new_state(rng)
        s.cards = [
            [2 * c + rng.randrange(2) for c in rng.sample(range(29), 4)],
            [2 * c + rng.randrange(2) for c in rng.sample(range(29), 3)],
        ]
        layouts = np.array([game.determinize(s, 0, rng).layout for _ in range(5)])
        truth = plan.truth_matrix(layouts)
        for row, layout in enumerate(layouts):
            s.layout = list(layout)
            want = game.prediction_points(s)
            got = [plan.held_points(truth, s.cards[p])[row] for p in (0, 1)]
            assert got == want
