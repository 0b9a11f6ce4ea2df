"""Turns, nougats, the card limit and both end conditions of Chocolates (seed 004)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs.core.errors import IllegalActionError
from choco_envs.games.chocolates import ChocolatesGame
from choco_envs.games.chocolates.rules import CARD_LIMIT

from .helpers import REVEAL_ORDER, reveal, state_from, take, turns

RNG = random.Random(0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup(players: int) -> None:
    """'Shuffle all the chocolates and place 16 of them face down in a 4x4 grid ... the
    remaining 5 chocolates face down next to the grid. Shuffle all the Prediction cards
    ... Draw 3 cards from the pile and place them to form the display ... Set the Nougat
    cubes aside as a common supply'; player_0 goes first (the rulings in docs/games/chocolates.md: the project seats
    the first player as player_0)."""
    game = ChocolatesGame(num_players=players)
    s = game.new_state(random.Random(players))
    assert sorted(s.layout) == list(game.components.chocolates) and len(s.layout) == 21
    assert not any(s.revealed) and s.grid_hidden == 16
    assert len(s.display) == 3 and len(s.pile) == 26
    assert sorted(s.display + s.pile) == list(range(29))
    assert s.supply == 24 and s.display_nougats == [0, 0, 0]
    assert s.cards == [()] * players and s.nougats == [0] * players
    assert game.current_player(s) == 0 and not s.took_card and s.final_turns == -1


def test_setup_shuffles_the_chocolates_and_the_cards() -> None:
    """'Shuffle all the chocolates' and 'Shuffle all the Prediction cards': over many
    deals every kind lies at a given place about as often as its share of the 21, and
    every card opens the display about as often as any other."""
    game = ChocolatesGame(num_players=2)
    rng = random.Random(4)
    deals = [game.new_state(rng) for _ in range(3000)]
    chocolates = list(game.components.chocolates)
    for pos in (0, 15, 20):
        at = [s.layout[pos] for s in deals]
        for kind in set(chocolates):
            share = chocolates.count(kind) / 21
            assert at.count(kind) / 3000 == pytest.approx(share, abs=0.03), (pos, kind)
    first = [s.display[0] for s in deals]
    assert all(first.count(card) / 3000 == pytest.approx(1 / 29, abs=0.017) for card in range(29))


def test_turns_pass_clockwise() -> None:
    """'The game is played in clockwise order': seat order, player_0 first, one reveal a
    turn."""
    game = ChocolatesGame(num_players=4)
    s = state_from(game)
    seats = []
    for pos in range(9):
        seats.append(game.current_player(s))
        game.apply(s, reveal(pos), RNG)
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3, 0]


def test_the_mask_is_the_legal_actions() -> None:
    """The mask offered to an agent is exactly the list of legal actions, at every step of
    random games (takes while allowed, reveals of face-down chocolates)."""
    for players in (2, 4):
        game = ChocolatesGame(num_players=players)
        rng = random.Random(players)
        for _ in range(20):
            s = game.new_state(rng)
            while not game.is_over(s):
                legal = game.legal_actions(s)
                assert np.flatnonzero(game.legal_mask(s)).tolist() == legal
                game.apply(s, rng.choice(legal), rng)
            assert not game.legal_mask(s).any() and game.legal_actions(s) == []


def test_taking_is_optional() -> None:
    """'A. Take 1 Prediction card (optional). Important: This action is optional!' -
    revealing at once is legal and ends the turn."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    assert set(range(6)) <= set(game.legal_actions(s))
    game.apply(s, reveal(0), RNG)
    assert s.current == 1 and s.cards == [(), ()] and s.display == [0, 1, 2]


def test_take_then_reveal_by_the_same_player() -> None:
    """'On your turn, take the following actions in order: A. Take 1 Prediction card
    (optional). B. Reveal 1 chocolate.' After a take only reveals are legal, same seat."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    game.apply(s, take(1, false_side=True), RNG)
    assert game.current_player(s) == 0
    assert game.legal_actions(s) == [reveal(p) for p in range(21)]
    assert s.cards[0] == (2 * 1 + 1,)  # card 1, false side up
    game.apply(s, reveal(20), RNG)
    assert game.current_player(s) == 1 and s.revealed[20]


def test_nougats_go_on_the_other_cards_and_come_with_a_card() -> None:
    """'Then place 1 Nougat cube from the common supply onto each of the remaining
    Prediction cards in the display' and 'You may take 1 Prediction card, and any Nougat
    cubes on it'; 'Then bring the display back up to 3 Prediction cards'."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    top = s.pile[-1]
    game.apply(s, take(0), RNG)
    assert s.display == [top, 1, 2]
    assert s.display_nougats == [0, 1, 1] and s.supply == 22
    game.apply(s, reveal(0), RNG)
    game.apply(s, take(2), RNG)  # player 1 takes card 2 with its nougat
    assert s.nougats == [0, 1]
    assert s.display_nougats == [1, 2, 0] and s.supply == 20


def test_nougat_supply_running_out() -> None:
    """the rulings in docs/games/chocolates.md: '1 nougat from the supply (24 in all; none once it is empty) goes onto
    each other display card' - with 1 left, the first other card (display order) gets it."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    s.supply, s.nougats = 1, [23, 0]
    game.apply(s, take(0), RNG)
    assert s.display_nougats == [0, 1, 0] and s.supply == 0
    game.apply(s, reveal(0), RNG)
    game.apply(s, take(0), RNG)
    assert s.display_nougats == [0, 1, 0] and s.supply == 0


def test_display_stays_short_when_the_pile_is_empty() -> None:
    """the rulings in docs/games/chocolates.md: 'the display is refilled from the pile while it lasts'; an empty slot
    cannot be taken."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    s.pile = []
    game.apply(s, take(1), RNG)
    assert s.display == [0, -1, 2]
    game.apply(s, reveal(0), RNG)
    assert take(1) not in game.legal_actions(s)
    before = game.to_json(s)
    with pytest.raises(IllegalActionError, match="empty"):
        game.apply(s, take(1), RNG)
    assert game.to_json(s) == before
    game.apply(s, take(0), RNG)  # a nougat goes onto each other display *card*
    assert s.display == [-1, -1, 2] and s.display_nougats == [0, 0, 2]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_card_limit_by_player_count(players: int) -> None:
    """'The game ends either when a player places their fourth Prediction card (in a 2 or
    3-player game) or their third Prediction card (in a 4-player game)'."""
    game = ChocolatesGame(num_players=players)
    assert game.card_limit == CARD_LIMIT[players] == (3 if players == 4 else 4)
    s = state_from(game)
    s.cards[0] = tuple(2 * c for c in range(3, 3 + game.card_limit - 1))
    game.apply(s, take(0), RNG)
    assert len(s.cards[0]) == game.card_limit and s.final_turns == players - 1
    s2 = state_from(game)
    s2.cards[0] = tuple(2 * c for c in range(3, 3 + game.card_limit - 2))
    game.apply(s2, take(0), RNG)
    assert s2.final_turns == -1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_card_limit_gives_every_other_player_one_more_turn(players: int) -> None:
    """'When this happens, all other players take one more turn.'"""
    game = ChocolatesGame(num_players=players)
    s = state_from(game)
    s.current = 1
    s.cards[1] = tuple(2 * c for c in range(3, 3 + game.card_limit - 1))
    game.apply(s, take(0), RNG)
    game.apply(s, reveal(16), RNG)  # beside the grid: the game goes on
    seen = []
    for pos in range(players - 1):
        seen.append(game.current_player(s))
        game.apply(s, reveal(pos), RNG)
    assert seen == [(1 + k) % players for k in range(1, players)]
    assert game.is_over(s) and game.current_player(s) == -1
    assert not game.legal_actions(s) and not game.legal_mask(s).any()


def test_player_at_the_limit_cannot_take() -> None:
    """the rulings in docs/games/chocolates.md: 'A player may hold at most 4 cards (2 or 3 players)'."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    s.cards[0] = (6, 8, 10, 12)
    assert game.legal_actions(s) == [reveal(p) for p in range(21)]
    with pytest.raises(IllegalActionError, match="limit"):
        game.apply(s, take(0), RNG)


def test_revealing_the_sixteenth_grid_chocolate_ends_at_once() -> None:
    """'The game ends when all 16 chocolates in the grid are revealed. When this happens,
    the game ends immediately.' - mid-round, with chocolates still beside the grid."""
    game = ChocolatesGame(num_players=3)
    s = state_from(game)
    s.revealed = bytearray([1] * 15 + [0] * 6)
    s.grid_hidden = 1
    s.current = 1
    game.apply(s, take(0), RNG)
    game.apply(s, reveal(15), RNG)
    assert game.is_over(s) and game.current_player(s) == -1
    assert all(s.revealed), "'Flip all remaining chocolates face up' for the scoring"


@pytest.mark.parametrize("in_trigger_turn", [False, True])
def test_the_sixteenth_grid_reveal_ends_at_once_in_the_final_round(in_trigger_turn: bool) -> None:
    """'The game ends when all 16 chocolates in the grid are revealed. When this happens,
    the game ends immediately' - also once the card limit has triggered the end: the
    other players' remaining final turns are not played (revealed by the seat that
    triggered it, or by the next seat in its final turn)."""
    game = ChocolatesGame(num_players=3)
    s = state_from(game)
    s.revealed = bytearray([1] * 15 + [0] * 6)
    s.grid_hidden = 1
    s.cards[0] = tuple(2 * c for c in range(3, 6))
    game.apply(s, take(0), RNG)  # player_0's 4th card: two more turns to come
    assert s.final_turns == 2
    if not in_trigger_turn:
        game.apply(s, reveal(16), RNG)  # beside the grid: the game goes on
        assert (s.current, s.final_turns) == (1, 1)
    game.apply(s, reveal(15), RNG)
    assert game.is_over(s) and game.current_player(s) == -1 and not game.legal_actions(s)


@pytest.mark.parametrize("players", [2, 3])
def test_a_second_seat_at_the_limit_does_not_restart_the_final_turns(players: int) -> None:
    """'The game ends either when a player places their fourth Prediction card ... When
    this happens, all other players take one more turn.' Only the first to reach the
    limit triggers the end: another seat reaching it in its final turn ends nothing more
    and adds no turn; every other seat has exactly one more turn, then the game ends."""
    game = ChocolatesGame(num_players=players)
    # player_0 takes on each of its 4 turns, player_1 on its first 3
    pattern = [0, 0] + [None] * (players - 2)
    s = turns(game, pattern * 3 + [0])
    assert [len(c) for c in s.cards][:2] == [4, 3] and s.final_turns == players - 2
    seats = []
    for i in range(1, players):
        seats.append(game.current_player(s))
        if game.current_player(s) == 1:
            game.apply(s, take(0), RNG)  # player_1's 4th card, in its final turn
            assert len(s.cards[1]) == 4
        game.apply(s, reveal(REVEAL_ORDER[9 + i]), RNG)
    assert seats == list(range(1, players))
    assert game.is_over(s), "player_0 must not get another turn"


def test_beside_reveals_do_not_end_the_game() -> None:
    """Only the 16th *grid* chocolate ends the game: revealing all 5 beside does not."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    for pos in range(16, 21):
        game.apply(s, reveal(pos), RNG)
    assert not game.is_over(s) and s.grid_hidden == 16


def test_random_games_end_within_max_steps() -> None:
    """max_steps is a true bound: 21 reveals at most plus at most one take per card place."""
    for players in (2, 3, 4):
        game = ChocolatesGame(num_players=players)
        rng = random.Random(players)
        longest = 0
        for _ in range(300):
            s = game.new_state(rng)
            steps = 0
            while not game.is_over(s):
                game.apply(s, rng.choice(game.legal_actions(s)), rng)
                steps += 1
            longest = max(longest, steps)
        assert longest <= game.max_steps == 21 + min(21, players * game.card_limit)
