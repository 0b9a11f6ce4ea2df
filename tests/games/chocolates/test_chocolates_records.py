"""Saved Chocolates states: every reachable state round-trips, and the loader refuses every
record the rules cannot reach, naming the field (issue 18: 'the loader checks every
value's range and the conservation of every component ... and that the agent to act has
a legal action')."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from choco_envs.core.errors import RecordError
from choco_envs.games.chocolates import ChocolatesGame, ChocolatesState

from .helpers import REVEAL_ORDER, reveal, state_from, take, turns

RNG = random.Random(0)


def played(game: ChocolatesGame, actions: list[int]) -> ChocolatesState:
    """The drawn STANDARD table after ``actions``."""
    s = state_from(game)
    for a in actions:
        game.apply(s, a, RNG)
    return s


def give_cards(record: dict[str, Any], seat: int, count: int) -> None:
    """Move ``count`` cards from the pile to ``seat`` in ``record``, with the 2 nougat
    cubes per take that taking them would have moved out of the supply."""
    record["players"][seat]["cards"] += [
        {"card": record["pile"].pop(), "side": "true"} for _ in range(count)
    ]
    record["supply"] -= 2 * count
    record["players"][seat]["nougats"] += 2 * count


def record_of(game: ChocolatesGame, s: ChocolatesState) -> dict[str, Any]:
    return json.loads(json.dumps(game.to_json(s)))


#: 2 players: player_0 takes a card on each of its first 4 turns (triggering the end on
#: the 4th), player_1 only reveals; then player_1 is to play its final turn
FOUR_TAKES = [a for turn in range(4) for a in (take(0), reveal(2 * turn), reveal(2 * turn + 1))]


def refused(game: ChocolatesGame, record: dict[str, Any], message: str) -> None:
    with pytest.raises(RecordError, match=message):
        game.from_json(record)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_reachable_state_round_trips(players: int) -> None:
    """Every state of random games (greedy-ish takes, final rounds in which more than one
    seat reaches the limit, finished games) is accepted and loads equal to itself."""
    game = ChocolatesGame(num_players=players)
    rng = random.Random(players)
    several_at_limit = 0
    for _ in range(60):
        s = game.new_state(rng)
        keen = rng.random()
        while True:
            assert game.from_json(record_of(game, s)) == s
            several_at_limit += sum(len(c) == game.card_limit for c in s.cards) > 1
            if game.is_over(s):
                break
            legal = game.legal_actions(s)
            takes = [a for a in legal if a < 6]
            game.apply(s, rng.choice(takes if takes and rng.random() < keen else legal), rng)
    assert several_at_limit > 0


def test_unknown_and_missing_fields_are_refused() -> None:
    game = ChocolatesGame()
    record = record_of(game, played(game, [take(0), reveal(0)]))
    refused(game, {**record, "extra": 1}, r"chocolates state: unknown field\(s\) \['extra'\]")
    record["players"][0]["colour"] = "red"
    refused(game, record, r"players\[0\]: unknown field\(s\) \['colour'\]")
    record = record_of(game, played(game, []))
    del record["supply"]
    refused(game, record, "missing field 'supply'")
    refused(game, {**record_of(game, played(game, [])), "game": "le_chocolat_v0"}, r"\.game")


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("layout", 0), "dark square", r"layout\[0\] = 'dark square'; allowed: '<type> <shape>'"),
        (("layout", 3), 7, r"layout\[3\] = 7"),
        (("revealed", 3), 1, r"revealed\[3\] = 1; allowed: true, false"),
        (("pile", 0), 99, r"pile\[0\] = 99; allowed: a card id 0\.\.28"),
        (("display", 1), -1, r"display\[1\] = -1; allowed: a card id"),
        (("display_nougats", 2), -1, r"display_nougats\[2\] = -1; allowed: 0\.\.24"),
        (("supply",), 25, r"supply = 25; allowed: 0\.\.24"),
        (("players", 0, "nougats"), 10**9, r"players\[0\]\.nougats = 1000000000"),
        (("players", 0, "cards", 0, "side"), "up", r"cards\[0\]\.side = 'up'"),
        (("players", 0, "cards", 0, "card"), True, r"cards\[0\]\.card"),
        (("current",), 1.5, r"current: expected"),
        (("took_card",), 1, r"took_card: expected"),
        (("final_turns",), 5, r"final_turns = 5; allowed: -1\.\.1"),
        (("over",), "no", r"over: expected"),
    ],
)
def test_values_out_of_type_or_range_are_refused(path: tuple, value: Any, message: str) -> None:
    """Every value's type and range, named in the error with what is allowed."""
    game = ChocolatesGame(num_players=2)
    record = record_of(game, played(game, [take(0), reveal(0), reveal(1)]))
    target: Any = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    refused(game, record, message)


def test_a_player_holding_more_than_the_card_limit_is_refused() -> None:
    """'A player may hold at most 4 cards (2 or 3 players) or 3 (4 players)' (the rulings in docs/games/chocolates.md):
    a record of a player holding 10 cards with a limit of 4 is refused."""
    game = ChocolatesGame(num_players=2)
    record = record_of(game, played(game, []))
    cards = record["pile"][:10]
    record["pile"] = record["pile"][10:]
    record["players"][1]["cards"] = [{"card": c, "side": "true"} for c in cards]
    refused(game, record, r"players\[1\]\.cards holds 10 cards; allowed: 0\.\.4")
    four = ChocolatesGame(num_players=4)
    record = record_of(four, played(four, []))
    record["players"][2]["cards"] = [{"card": c, "side": "false"} for c in record["pile"][:4]]
    record["pile"] = record["pile"][4:]
    refused(four, record, r"players\[2\]\.cards holds 4 cards; allowed: 0\.\.3")


def test_the_21_chocolates_are_conserved() -> None:
    """'21 "chocolate" tiles': the layout holds exactly the game's set, each once."""
    game = ChocolatesGame()
    record = record_of(game, played(game, []))
    assert record["layout"][0] == "dark round"
    record["layout"][0] = "gold hexagonal"  # a second gold, and a dark round fewer
    refused(
        game,
        record,
        r"layout: not this game's 21 chocolates \(extra \['gold hexagonal'\], missing "
        r"\['dark round'\]\)",
    )


def test_the_29_cards_are_each_in_one_place() -> None:
    """'29 Prediction cards': each is in the pile, the display or a player's cards
    exactly once."""
    game = ChocolatesGame(num_players=2)
    base = record_of(game, played(game, [take(0), reveal(0)]))
    held = base["players"][0]["cards"][0]["card"]
    record = json.loads(json.dumps(base))
    record["pile"].append(held)
    refused(game, record, rf"players\[0\]\.cards\[0\]: card {held} is also at pile\[25\]")
    record = json.loads(json.dumps(base))
    record["display"][2] = record["display"][1]
    refused(game, record, r"display\[2\]: card \d+ is also at display\[1\]")
    record = json.loads(json.dumps(base))
    lost = record["pile"].pop()
    refused(game, record, rf"card\(s\) \[{lost}\] are nowhere")


def test_an_empty_display_slot_needs_an_empty_pile() -> None:
    """the rulings in docs/games/chocolates.md: 'the display is refilled from the pile while it lasts'."""
    game = ChocolatesGame(num_players=2)
    record = record_of(game, played(game, []))
    record["pile"].append(record["display"][1])
    record["display"][1] = None
    refused(game, record, r"display\[1\] = None while the pile holds 27 cards")


def test_the_24_nougats_are_conserved_and_placed_by_takes() -> None:
    """'24 "Nougat cube" tiles'; 'place 1 Nougat cube from the common supply onto each of
    the remaining Prediction cards in the display': after T takes the supply holds
    24 - 2T, a display card holds at most one cube per take, and cubes come only with a
    card."""
    game = ChocolatesGame(num_players=2)
    base = record_of(game, played(game, [take(0), reveal(0), take(1), reveal(1)]))
    assert base["supply"] == 20
    record = json.loads(json.dumps(base))
    record["supply"] = 21
    refused(game, record, r"supply: 25 nougat cubes .*allowed: exactly 24")
    record = json.loads(json.dumps(base))
    record["supply"], record["players"][1]["nougats"] = 21, 0
    refused(game, record, r"supply = 21; allowed: 20 after 2 card\(s\) taken")
    record = json.loads(json.dumps(base))
    moved = record["display_nougats"]
    record["display_nougats"] = [0, 0, 0]
    record["display_nougats"][0] = sum(moved)  # 3 cubes on one card after 2 takes
    refused(game, record, r"display_nougats\[0\] = 3; allowed: 0\.\.2")
    record = record_of(game, played(game, [take(0), reveal(0)]))
    record["display_nougats"] = [0, 1, 0]
    record["players"][1]["nougats"] = 1
    refused(game, record, r"players\[1\]\.nougats = 1; allowed: 0 \(cubes come only with a card")


def test_an_all_revealed_grid_that_is_not_over_is_refused() -> None:
    """'The game ends when all 16 chocolates in the grid are revealed. When this happens,
    the game ends immediately': a record of a game going on with all 16 face up is
    refused."""
    game = ChocolatesGame(num_players=2)
    record = record_of(game, played(game, [reveal(p) for p in range(15)]))
    record["revealed"][15], record["current"] = True, 0
    refused(game, record, "over = false, but all 16 grid chocolates are face up")


def test_the_seat_to_act_follows_the_reveals() -> None:
    """'The game is played in clockwise order' from player_0, and every turn reveals
    exactly one chocolate, so the seat to act is the number of reveals modulo the players."""
    game = ChocolatesGame(num_players=3)
    record = record_of(game, played(game, [reveal(0), take(1), reveal(1)]))
    assert record["current"] == 2
    record["current"] = 1
    refused(game, record, r"current = 1; allowed: 2 \(player_0 began")


def test_cards_held_match_the_turns_played() -> None:
    """'Take 1 Prediction card (optional)' once a turn: no seat holds more cards than the
    turns it played (this turn included once it took), and 'took a card' needs one."""
    game = ChocolatesGame(num_players=2)
    record = record_of(game, played(game, [take(0), reveal(0)]))
    record["players"][1]["cards"] = record["players"][0]["cards"]
    record["players"][0]["cards"] = []
    record["players"][1]["nougats"], record["players"][0]["nougats"] = 0, 0
    refused(game, record, r"players\[1\]\.cards holds 1 cards after 0 turn\(s\)")
    record = record_of(game, played(game, [reveal(0)]))
    record["took_card"] = True
    refused(game, record, "took_card = true, but player_1 to act holds no card")


def test_final_turns_follow_who_reached_the_limit() -> None:
    """'The game ends either when a player places their fourth Prediction card ... When
    this happens, all other players take one more turn': ``final_turns`` is -1 until
    someone holds the limit, then counts the turns after the current one from the first
    to reach it, who holds exactly the limit."""
    game = ChocolatesGame(num_players=2)
    final = played(game, FOUR_TAKES[:-2])  # player_0 took its 4th card, must reveal
    assert final.final_turns == 1 and final.took_card
    assert game.from_json(record_of(game, final)) == final
    record = record_of(game, final)
    record["final_turns"] = -1
    refused(game, record, r"final_turns = -1, but player_0 holds the limit of 4 cards")
    last = played(game, FOUR_TAKES[:-1])  # player_1's final turn
    assert last.final_turns == 0 and last.current == 1
    record = record_of(game, last)
    record["final_turns"] = 1  # says player_1 triggered it this turn, taking nothing
    refused(game, record, r"final_turns = 1: the end is triggered in this turn, but player_1")
    three = ChocolatesGame(num_players=3)
    s = turns(three, [0, None, None] * 3 + [0])  # player_0's 4th card on its 4th turn
    assert (s.current, s.final_turns) == (1, 1)
    assert three.from_json(record_of(three, s)) == s
    record = record_of(three, s)
    record["final_turns"] = 0  # would make player_2 the one who triggered the end
    refused(three, record, r"final_turns = 0: player_2 triggered the end, but holds 0 cards")


@pytest.mark.parametrize(
    ("players", "takes", "waiting"),
    [
        # 2 players: player_0 takes on its turns 2-5; player_1, to play its final turn,
        # has had 4 turns
        (2, [None, None] + [0, None] * 3 + [0], 1),
        # 3 players: player_0 takes on its turns 2-5; player_1 is to act, player_2's
        # final turn is still to come
        (3, [None, None, None] + [0, None, None] * 3 + [0], 2),
    ],
)
def test_a_seat_at_the_limit_before_its_final_turn_is_refused(
    players: int, takes: list[int | None], waiting: int
) -> None:
    """Only the first to reach the limit triggers the end: a seat whose final turn is
    still to come (or has begun without a take) cannot already hold the limit, or it
    would have triggered the end itself."""
    game = ChocolatesGame(num_players=players)
    s = turns(game, takes)
    assert s.current == 1 and s.final_turns == players - 2 and not s.took_card
    record = record_of(game, s)
    give_cards(record, waiting, 4)
    refused(
        game,
        record,
        rf"players\[{waiting}\]\.cards: player_{waiting} holds the limit of 4 before playing its "
        "final turn",
    )


def test_a_second_seat_may_reach_the_limit_in_its_final_turn() -> None:
    """A seat that reaches the limit during its final turn does not restart the final
    turns (issue 17): such records are accepted, the trigger seat still counted from
    ``final_turns``."""
    game = ChocolatesGame(num_players=3)
    s = turns(game, [0, 0, None] * 3 + [0])  # player_1 holds 3, player_0 triggers
    assert (s.current, s.final_turns) == (1, 1)
    game.apply(s, take(0), RNG)  # player_1 takes its 4th card in its final turn
    assert [len(c) for c in s.cards] == [4, 4, 0] and s.final_turns == 1
    assert game.from_json(record_of(game, s)) == s
    game.apply(s, reveal(REVEAL_ORDER[10]), RNG)
    assert s.current == 2 and s.final_turns == 0
    assert game.from_json(record_of(game, s)) == s


def test_a_finished_record_is_really_over() -> None:
    """Once over, every chocolate is face up ('Flip all remaining chocolates face up'),
    nobody is to act, no card was taken mid-turn, and the end flag matches the card
    limit."""
    game = ChocolatesGame(num_players=2)
    s = played(game, [reveal(p) for p in range(16)])
    assert game.is_over(s)
    base = record_of(game, s)
    assert game.from_json(base) == s
    for field, value, message in [
        ("current", 0, r"current = 0; allowed: -1 \(the game is over\)"),
        ("took_card", True, r"took_card = true; allowed: false"),
        ("final_turns", 0, r"final_turns = 0, but nobody holds the limit"),
        ("final_turns", 9, r"final_turns = 9; allowed: -1\.\.1"),
    ]:
        record = json.loads(json.dumps(base))
        record[field] = value
        refused(game, record, message)
    record = json.loads(json.dumps(base))
    record["revealed"][18] = False
    refused(game, record, "the game is over, so every chocolate is face up")
