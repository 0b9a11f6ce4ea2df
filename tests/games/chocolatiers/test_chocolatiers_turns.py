"""Chocolatiers: the turn structure of both editions, the end of the game, the reserve,
the classic tray exchange and stacks, the round-40 cap and passing."""

from __future__ import annotations

import random

import pytest

from choco_envs.core.errors import ConfigError, IllegalActionError
from choco_envs.games.chocolatiers import ChocolatiersGame
from choco_envs.games.chocolatiers.rules import (
    BOX,
    BOX_RESERVED,
    CHOOSE,
    DISCARD,
    DISCARD_DOWN,
    GIVE,
    PASS,
    PLACE_WILD,
    RESERVE,
    TAKE,
    TAKE_MORE,
)

from .helpers import (
    M,
    R,
    T,
    V,
    box,
    cost_text,
    draw_sampler,
    fresh,
    hand,
    hold,
    play_until_turn_of,
    put_in_line,
    set_hand,
)

FIVE_TILES = ["TTNNRR", "TTNNRR", "MMBB  ", "MMBB  ", "      ", "      "]


def take_any(game: ChocolatiersGame, s, rng: random.Random) -> None:
    game.apply(s, next(t for t in range(6) if s.tray[t]), rng)


def test_standard_turn_is_exactly_two_actions_the_same_one_allowed_twice() -> None:
    """Rulebook 000: "On your turn, you must choose and perform 2 actions ... You may take
    the same action twice in one turn." """
    game, s, rng = fresh()
    take_any(game, s, rng)
    assert s.player == 0 and s.actions_left == 1
    take_any(game, s, rng)
    assert s.player == 1 and s.actions_left == 2 and sum(s.hand[0:6]) == 5


def test_standard_exchange_refills_the_tray_after_the_action_not_between_takes() -> None:
    """Rulebook 000: "Discard 1 Chocolate card from your hand to the discard pile, then
    take 2 Chocolate cards from the Chocolate Tray ... Refill the Chocolate Tray back to
    6 cards from the deck." Rulings: "the tray is refilled to 6 after the action, not
    between the two takes"."""
    game, s, rng = fresh()
    set_hand(s, 0, "M1")
    discard = sum(s.discard)
    game.apply(s, GIVE + M, rng)
    assert sum(s.discard) == discard + 1 and s.phase == TAKE_MORE
    take_any(game, s, rng)
    assert sum(s.tray) == 5  # not refilled between the takes
    take_any(game, s, rng)
    assert sum(s.tray) == 6 and sum(s.hand[0:6]) == 2 and s.phase == CHOOSE


def test_deck_is_reshuffled_from_discards_and_tray_may_stay_short() -> None:
    """Rulebook 000: "If the deck is empty, shuffle the discard pile to create a new
    Chocolate deck." Rulings: "if both are empty the tray stays short"."""
    game, s, rng = fresh()
    s.deck = []
    s.discard = [2, 0, 0, 0, 0, 0]
    take_any(game, s, rng)
    assert sum(s.tray) == 6 and s.discard == [0] * 6 and len(s.deck) == 1 and s.reshuffled
    s.deck, s.discard = [], [0] * 6
    take_any(game, s, rng)
    assert sum(s.tray) == 5


def test_hand_limit_player_chooses_the_discards_at_the_end_of_the_turn() -> None:
    """Rulebook 000: "At the end of your turn, you may only have 6 Chocolate cards in your
    hand. Discard excess Chocolate cards of your choice to the discard pile." """
    game, s, rng = fresh()
    set_hand(s, 0, "T3 R3")
    take_any(game, s, rng)
    take_any(game, s, rng)
    assert s.phase == DISCARD_DOWN and s.player == 0
    legal = game.legal_actions(s)
    held = [t for t in range(6) if s.hand[t]]
    assert len(held) >= 2 and legal == [DISCARD + t for t in held]  # any card held
    game.apply(s, DISCARD + R, rng)
    assert s.phase == DISCARD_DOWN
    game.apply(s, DISCARD + R, rng)
    assert s.player == 1 and sum(s.hand[0:6]) == 6


def test_sixth_tile_gives_first_and_each_other_player_one_more_turn() -> None:
    """Rulebook 000: "When a player places their 6th Box tile in their Sampler the end of
    the game is triggered. That player takes the "First" Score tile and finishes their
    turn. Then, every other player gets 1 more full turn." Rulings: only the first to do
    so takes First. Seats 0, 1, 2; seat 1 boxes its 6th tile with its first action."""
    game, s, rng = fresh(players=3)
    take_any(game, s, rng)
    take_any(game, s, rng)
    draw_sampler(s, 1, FIVE_TILES)
    draw_sampler(s, 2, FIVE_TILES)
    put_in_line(s, 0, 18)  # "TVTV 5"
    set_hand(s, 1, "T2 V2")
    box(game, s, rng, BOX + 0, 1, 2)
    assert s.first == 1 and not s.over
    assert s.player == 1 and s.actions_left == 1  # finishes the turn
    take_any(game, s, rng)
    assert s.player == 2
    put_in_line(s, 1, 14)  # "BBBB 4"
    set_hand(s, 2, "B4")
    box(game, s, rng, BOX + 1, 1, 2)
    assert s.first == 1  # a later 6th tile does not take First
    take_any(game, s, rng)
    assert s.player == 0 and not s.over
    set_hand(s, 0, "")  # no hand-limit discards in this last turn
    take_any(game, s, rng)
    take_any(game, s, rng)
    assert s.over and game.current_player(s) == -1 and not game.legal_mask(s).any()


def test_reserve_rules() -> None:
    """Rulebook 000, Reserve a Box Tile: "place 1 of your Wild Chocolates on that Box
    tile ... You may only have 1 reserved Box tile at any time. Only you may add this Box
    tile to your Sampler ... You may not perform this action if you have no Wild
    Chocolate tokens." Rulings: "when boxed, that wild returns to its owner's supply"."""
    game, s, rng = fresh()
    tile = s.display[2]
    game.apply(s, RESERVE + 2, rng)
    assert s.reserved[0] == tile and s.wilds[0] == 2 and s.display[2] != tile
    assert not any(RESERVE <= a < RESERVE + 5 for a in game.legal_actions(s))
    with pytest.raises(IllegalActionError):
        game.apply(s, RESERVE + 0, rng)
    take_any(game, s, rng)
    # seat 1 cannot box seat 0's reserved tile: BOX_RESERVED is about its own
    set_hand(s, 1, "T2 N2 R2")
    assert BOX_RESERVED not in game.legal_actions(s)
    s.wilds[1] = 0
    assert not any(RESERVE <= a < RESERVE + 5 for a in game.legal_actions(s))
    set_hand(s, 1, "")
    take_any(game, s, rng)
    take_any(game, s, rng)
    set_hand(s, 0, " ".join(f"{'TNRMBV'[t]}{c}" for t, c in enumerate(game.tile_cost[tile])))
    box(game, s, rng, BOX_RESERVED)
    assert s.reserved[0] == -1 and s.wilds[0] == 3 and s.ntiles[0] == 1


def test_classic_stacks_are_sized_by_player_count_and_only_tops_are_boxed() -> None:
    """Rulebook 003, Preparar 4: "use 5 fichas en un juego de 4 jugadores, 4 fichas en un
    juego de 3 jugadores y 3 fichas en un juego de 2 jugadores. Vuelva a colocar las
    fichas de caja no utilizadas en la caja". Rulings: "Only the top tile of each stack
    can be boxed." """
    for players, size in ((2, 3), (3, 4), (4, 5)):
        game, s, rng = fresh("classic", players=players)
        assert [len(st) + 1 for st in s.stacks] == [size] * 5
        assert len(s.unused) == 30 - 5 * size
    game, s, rng = fresh("classic")
    top, below = s.display[3], s.stacks[3][-1]
    set_hand(s, 0, " ".join(f"{'TNRMBV'[t]}{c}" for t, c in enumerate(game.tile_cost[top])))
    take_any(game, s, rng)  # action phase
    box(game, s, rng, BOX + 3)  # bonus phase
    assert s.display[3] == below and len(s.stacks[3]) == 1


def test_classic_exchange_card_on_tray_may_be_taken_back_and_tray_refills_at_end() -> None:
    """Rulebook 003: "Coloque 1 carta de chocolate de su mano boca arriba en la bandeja
    para compartir, luego tome 2 cartas de chocolate de su elección" and, in the end
    phase, "Si hay menos de 6 cartas ... extraiga del mazo". Rulings: "the card laid on
    the tray may be taken back; the tray holds up to 7 cards during the action and is
    refilled to 6 only in the end phase"."""
    game, s, rng = fresh("classic")
    set_hand(s, 0, "V1")
    s.tray = [2, 2, 2, 0, 0, 0]
    game.apply(s, GIVE + V, rng)
    assert sum(s.tray) == 7 and s.tray[V] == 1 and s.discard == [0] * 6
    assert TAKE + V in game.legal_actions(s)
    game.apply(s, TAKE + V, rng)
    game.apply(s, TAKE + T, rng)
    assert sum(s.tray) == 5  # not refilled during the turn
    assert game.legal_actions(s)[-1] == PASS  # optional bonus phase: skip it
    game.apply(s, PASS, rng)
    assert s.player == 1 and sum(s.tray) == 6 and hand(s, 0) == "T1 V1"


def test_classic_turn_is_action_then_optional_bonus_and_has_no_reserve() -> None:
    """Rulebook 003: "1. Fase de acción (obligatorio) 2. Fase de bonificación (opcional)
    3. Fase final (obligatorio)"; the action phase is take or exchange, the bonus phase
    box or place a wild. Rulings: "No reserve"."""
    game, s, rng = fresh("classic")
    hold(s, 0, cost_text(game, s.display[0]) + " T1")  # it could pay the first top
    first = game.legal_actions(s)
    assert all(a < BOX for a in first) and PASS not in first
    take_any(game, s, rng)
    assert BOX + 0 in game.legal_actions(s)  # boxing is a bonus action
    draw_sampler(s, 0, ["TT    ", "RR    ", "      ", "      ", "      ", "      "])
    bonus = game.legal_actions(s)
    assert all(PLACE_WILD <= a < PLACE_WILD + 36 or a == PASS or BOX <= a < BOX + 5 for a in bonus)
    assert not any(TAKE <= a < BOX for a in bonus)
    assert not any(RESERVE <= a < RESERVE + 5 for a in bonus)


@pytest.mark.parametrize("players", [1, 5, 6])
def test_classic_allows_2_to_4_players_and_says_so(players: int) -> None:
    """Rulings: "Players: standard 2 to 5 (15 wilds, 3 each), classic 2 to 4 (12 wilds)".
    The error names the classic edition's own range (issue 17, item 5)."""
    with pytest.raises(ConfigError, match=r"edition='classic'; allowed values: 2, 3, 4$"):
        ChocolatiersGame(num_players=players, edition="classic")
    if players != 5:
        with pytest.raises(ConfigError, match=r"edition='standard'; allowed values: 2, 3, 4, 5$"):
            ChocolatiersGame(num_players=players)
    for n in (2, 3, 4):
        ChocolatiersGame(num_players=n, edition="classic")
    ChocolatiersGame(num_players=5, edition="standard")


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_game_ends_at_the_end_of_round_40(edition: str) -> None:
    """Rulings: "the end is also triggered at the end of round 40 (declared as the
    maximum game length, and scored as usual)". Nobody ever boxes here."""
    game, s, rng = fresh(edition, players=3)
    steps = 0
    while not s.over:
        legal = [a for a in game.legal_actions(s) if not BOX <= a < PLACE_WILD + 36]
        game.apply(s, rng.choice(legal or [PASS]), rng)
        steps += 1
        if s.turn == 40 * 3 - 1:
            assert not s.over
    assert s.turn == 40 * 3 and steps <= game.max_steps
    assert game.scores(s) == [3.0, 3.0, 3.0]


def test_pass_is_offered_only_when_nothing_else_is_legal() -> None:
    """Rulings: "Passing is legal only when no other action is." With an empty tray,
    deck and discard pile, no cards, no wilds and no tile to afford, the standard player
    can only pass, and passing ends the turn."""
    game, s, rng = fresh()
    assert PASS not in game.legal_actions(s)
    with pytest.raises(IllegalActionError):
        game.apply(s, PASS, rng)
    s.tray, s.deck, s.discard = [0] * 6, [], [0] * 6
    set_hand(s, 0, "")
    s.wilds[0] = 0
    assert game.legal_actions(s) == [PASS]
    game.apply(s, PASS, rng)
    assert s.player == 1
    for edition in ("standard", "classic"):
        game, s, rng = fresh(edition, seed=3)
        while not s.over:
            legal = game.legal_actions(s)
            assert legal, "never an empty mask"
            bonus = game.classic and s.actions_left == 1 and s.phase == CHOOSE
            assert PASS not in legal or bonus or legal == [PASS]
            game.apply(s, rng.choice(legal), rng)


def test_standard_line_is_refilled_from_the_stack_into_the_same_place() -> None:
    """Rulebook 000, Box Chocolates and Reserve a Box Tile: "Refill the line back to 5 Box
    tiles from the stack of Box tiles. If there are no Box tiles left in the stack, ignore
    this step." The stack's next tile goes where the taken one was; once the stack is
    empty the place stays empty."""
    game, s, rng = fresh()
    nxt = s.stacks[0][-1]
    tile = s.display[3]
    box_tile_at(game, s, rng, 3)
    assert s.display[3] == nxt and nxt not in s.stacks[0] and len(s.stacks[0]) == 30
    nxt = s.stacks[0][-1]
    game.apply(s, RESERVE + 1, rng)  # the second action: reserving refills too
    assert s.display[1] == nxt and len(s.stacks[0]) == 29 and tile not in s.display
    game.apply(s, 0 if s.tray[0] else next(t for t in range(6) if s.tray[t]), rng)
    s.stacks[0] = []  # seat 1 finds the stack empty
    box_tile_at(game, s, rng, 4)
    assert s.display[4] == -1 and sum(x >= 0 for x in s.display) == 4


def box_tile_at(game: ChocolatiersGame, s, rng: random.Random, position: int) -> None:
    """The seat to act boxes the tile at line ``position``, holding exactly its cost."""
    hold(s, s.player, cost_text(game, s.display[position]))
    box(game, s, rng, BOX + position)


def test_classic_end_phase_discards_to_6_before_refilling_the_tray() -> None:
    """Rulebook 003, Fase final: "Solo puede tener 6 cartas ... Descarta cualquier carta
    ... si tienes más de 6. Si hay menos de 6 cartas ... en la bandeja ... extraiga del
    mazo ... Si el mazo de chocolate se acaba, baraja los descartes". Rulings: "End
    (mandatory): discard down to 6 cards, refill the tray to 6 from the deck (reshuffling
    the discards when the deck runs out)". With an empty deck and discard pile, the
    discarded card is the one that refills the tray; the tray stays short while the
    player discards."""
    game, s, rng = fresh("classic")
    s.deck, s.discard, s.tray = [], [0] * 6, [0, 0, 0, 0, 0, 6]
    set_hand(s, 0, "M6")
    game.apply(s, TAKE + V, rng)  # 7 cards in hand, 5 on the tray
    game.apply(s, PASS, rng)  # skip the bonus phase
    assert s.phase == DISCARD_DOWN and s.player == 0
    assert s.tray == [0, 0, 0, 0, 0, 5]  # not refilled before the discards
    game.apply(s, DISCARD + M, rng)
    assert s.player == 1 and hand(s, 0) == "M5 V1"
    assert s.tray == [0, 0, 0, 1, 0, 5]  # the discarded mint, reshuffled, refilled it
    assert s.discard == [0] * 6 and s.deck == [] and s.reshuffled
    # with cards in the deck, the tray stays as the action left it while discarding
    play_until_turn_of(game, s, rng, 0)
    s.deck, s.tray = [T, T], [0, 0, 0, 0, 0, 6]
    set_hand(s, 0, "M6")
    game.apply(s, TAKE + V, rng)
    game.apply(s, PASS, rng)
    assert s.phase == DISCARD_DOWN and s.tray == [0, 0, 0, 0, 0, 5] and s.deck == [T, T]
    game.apply(s, DISCARD + M, rng)
    assert s.tray == [1, 0, 0, 0, 0, 5] and s.deck == [T]


def test_an_exchange_needs_cards_on_the_tray_to_take() -> None:
    """Rulebook 000: "Discard 1 Chocolate card ... then take 2 Chocolate cards from the
    Chocolate Tray" (the tray must hold 2); 003: "Coloque 1 carta ... en la bandeja ...
    luego tome 2 cartas" (the card laid there counts: 1 on the tray is enough)."""
    for edition, needed in (("standard", 2), ("classic", 1)):
        game, s, rng = fresh(edition)
        set_hand(s, 0, "M1")
        s.tray = [0, 0, 0, 0, 0, needed]
        assert GIVE + M in game.legal_actions(s), edition
        s.tray = [0, 0, 0, 0, 0, needed - 1]
        assert GIVE + M not in game.legal_actions(s), edition
        with pytest.raises(IllegalActionError, match="an exchange needs"):
            game.apply(s, GIVE + M, rng)
