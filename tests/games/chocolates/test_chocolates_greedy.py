"""The Chocolates beginner bot (``greedy``, choco_envs/bots/chocolates/greedy.py)."""

from __future__ import annotations

import random

import pytest

from choco_envs import bots
from choco_envs.bots.base import HeuristicBot
from choco_envs.bots.chocolates import greedy
from choco_envs.bots.chocolates.greedy import best_take, greedy_action
from choco_envs.core.errors import ConfigError
from choco_envs.games.chocolates import ChocolatesGame

from .helpers import reveal, state_from


def test_greedy_is_made_by_name_with_its_settings() -> None:
    """``greedy`` is the game's registered beginner (a stateless policy, also MCTS's
    greedy rollout); its settings are parsed and checked, and ``adaptive`` is no longer
    one of them (the adaptive plan is its own kind, ``plan``)."""
    bot = bots.make("greedy:min_confidence=0.7,final_confidence=0.5", env_id="chocolates_v0")
    assert isinstance(bot, HeuristicBot)
    assert bot.options == {"min_confidence": 0.7, "final_confidence": 0.5}
    with pytest.raises(ConfigError, match=r"min_confidence='2'.*allowed: a number in \[0, 1\]"):
        bots.make("greedy:min_confidence=2", env_id="chocolates_v0")
    with pytest.raises(ConfigError, match="unknown option 'adaptive'.*allowed options: min_conf"):
        bots.make("greedy:adaptive=1", env_id="chocolates_v0")
    with pytest.raises(ConfigError, match="allowed: a finite number of points"):
        bots.make("greedy:ahead_margin=inf", env_id="chocolates_v0")


def test_takes_a_card_it_is_sure_of_and_leaves_doubtful_ones() -> None:
    """It takes the best side when that is very likely right, and passes otherwise."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game, display=(0, 1, 2))
    truth = [0.5] * 29
    assert best_take(s, truth) is None
    truth[1] = 0.0  # 'exactly 2 green' certainly false: back side worth 5
    assert best_take(s, truth) == 3


def test_min_confidence_sets_how_sure_a_take_must_be() -> None:
    """A side right in 70% of the samples is taken at min_confidence 0.7, not at the
    default 0.85; an out-of-range setting is refused with the allowed range."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game, display=(0, 1, 2))
    truth = [0.5] * 29
    truth[1] = 0.3  # false side right with chance 0.7, worth 5 * 0.7 - 5 * 0.3 = 2
    assert best_take(s, truth) is None
    assert best_take(s, truth, 0.7) == 3
    assert best_take(s, truth, 0.71) is None
    with pytest.raises(ValueError, match=r"min_confidence=1\.5 .*allowed: 0\.\.1"):
        greedy_action(game, s, random.Random(0), min_confidence=1.5)


def test_greedy_never_plays_an_illegal_action_and_never_needs_the_truth() -> None:
    """It acts from a determinization of the seat's view, and its action is legal."""
    for players in (2, 3, 4):
        game = ChocolatesGame(num_players=players)
        rng = random.Random(players)
        for _ in range(5):
            s = game.new_state(rng)
            while not game.is_over(s):
                view = game.determinize(s, game.current_player(s), rng)
                action = greedy_action(game, view, rng)
                assert action in game.legal_actions(s)
                game.apply(s, action, rng)


def test_greedy_refuses_a_finished_game() -> None:
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    s.revealed = bytearray([1] * 15 + [0] * 6)
    s.grid_hidden = 1
    game.apply(s, reveal(15), random.Random(0))
    with pytest.raises(ValueError, match="over"):
        greedy_action(game, s, random.Random(0))


def test_greedy_beats_random_in_most_two_player_games() -> None:
    """The task: 'It must beat random in >= 80% of 2-player games' (seats alternate)."""
    game = ChocolatesGame(num_players=2)
    rng = random.Random(2024)
    games, wins = 100, 0
    for i in range(games):
        s = game.new_state(rng)
        seat = i % 2
        while not game.is_over(s):
            if game.current_player(s) == seat:
                view = game.determinize(s, seat, rng)
                action = greedy_action(game, view, rng)
            else:
                action = rng.choice(game.legal_actions(s))
            game.apply(s, action, rng)
        scores = game.scores(s)
        wins += scores[seat] > scores[1 - seat]
    assert wins >= 80, f"greedy won {wins} of {games}"


def _decide(monkeypatch: pytest.MonkeyPatch, state, **settings) -> int:
    """greedy_action with the sampled truth rates fixed: every card even, except card 1
    ('exactly 2 green'), whose false side (5 points) is right with chance 0.7."""
    truth = [0.5] * 29
    truth[1] = 0.3
    monkeypatch.setattr(greedy, "truth_rates", lambda *args: truth)
    return greedy_action(ChocolatesGame(num_players=2), state, random.Random(0), **settings)


def test_ahead_confidence_applies_only_while_leading_by_the_margin(monkeypatch) -> None:
    """'ahead_confidence replaces it while the seat's expected score leads every other by
    more than ahead_margin'."""
    s = state_from(ChocolatesGame(num_players=2), display=(0, 1, 2))
    bold = {"min_confidence": 0.9, "ahead_confidence": 0.7}
    assert _decide(monkeypatch, s, **bold) >= 6  # level: needs 0.9, reveals
    s.nougats = [3, 0]
    assert _decide(monkeypatch, s, **bold) == 3  # 3 ahead: 0.7 is enough, takes
    assert _decide(monkeypatch, s, **bold, ahead_margin=3.0) >= 6  # not more than 3


def test_near_end_confidence_applies_when_another_seat_is_one_card_short(monkeypatch) -> None:
    """'near_end_confidence lowers it while another seat is one card from the limit'
    (2 players: 4 cards)."""
    s = state_from(ChocolatesGame(num_players=2), display=(0, 1, 2))
    s.cards = [(), (20, 22)]
    assert _decide(monkeypatch, s, near_end_confidence=0.7) >= 6  # two short: 0.85
    s.cards = [(), (20, 22, 24)]
    assert _decide(monkeypatch, s, near_end_confidence=0.7) == 3
    assert _decide(monkeypatch, s) >= 6  # the baseline ignores it


def test_final_confidence_applies_on_a_final_turn_even_when_behind(monkeypatch) -> None:
    """'final_confidence replaces it on the seat's last turn once the end is triggered ...
    it is not held back for leaving the seat behind'; the baseline is held back."""
    s = state_from(ChocolatesGame(num_players=2), display=(0, 1, 2))
    s.cards = [(20, 22, 24), (26, 28, 30, 32)]
    s.nougats = [0, 9]
    s.final_turns = 0
    assert _decide(monkeypatch, s, min_confidence=0.7) >= 6  # 4th card, behind: held back
    assert _decide(monkeypatch, s, final_confidence=0.7) == 3
    s.final_turns = -1  # not a final turn: final_confidence does not apply
    assert _decide(monkeypatch, s, final_confidence=0.7) >= 6
