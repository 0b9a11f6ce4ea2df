"""Le Chocolat records: complete JSON, and a loader that refuses every record that is not a
reachable-looking state, naming the field (issue 18, item 1): each value's type and range,
the conservation of the 36 tiles, the chunks against the owners, the card against the
``scoring_card`` option, and the phase against the table (so the seat to act always has a
legal action and a game marked over really is over)."""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from choco_envs.core.errors import RecordError
from choco_envs.games.le_chocolat import LeChocolatGame, LeChocolatState

from .helpers import fresh, play, split, table, vertical

Record = dict[str, Any]
WHERE = "le_chocolat state"


@pytest.fixture
def game() -> LeChocolatGame:
    return LeChocolatGame(scoring_card=0)


def record_of(game: LeChocolatGame, s: LeChocolatState) -> Record:
    return json.loads(json.dumps(game.to_json(s)))


def played(game: LeChocolatGame, seed: int, steps: int) -> LeChocolatState:
    rng = random.Random(seed)
    s = fresh(game, seed)
    for _ in range(steps):
        if game.is_over(s):
            break
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return s


def claim_step(game: LeChocolatGame) -> LeChocolatState:
    """player_1 to claim g1 (2 tiles) or g3 (3 tiles)."""
    return play(game, fresh(game), split("a1", vertical("f")), split("g1", 7))


def refused(game: LeChocolatGame, record: Record, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        game.from_json(record)


def changed(record: Record, change: Callable[[Record], Any]) -> Record:
    out = copy.deepcopy(record)
    change(out)
    return out


# ---------------------------------------------------------------- complete
@pytest.mark.parametrize("steps", [0, 15, 40, 200])
def test_record_round_trip(game: LeChocolatGame, steps: int) -> None:
    """A saved state is plain JSON and loads back equal, hidden sides included, at the
    start, mid-game, late and over; the loaded game goes on with a legal action."""
    s = played(game, 2, steps)
    loaded = game.from_json(record_of(game, s))
    assert loaded == s
    assert game.is_over(loaded) or game.legal_actions(loaded)
    claim = claim_step(game)
    assert game.from_json(record_of(game, claim)) == claim


# ---------------------------------------------------------------- types and ranges
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("box"), f"{WHERE}: missing field 'box'"),
        (lambda r: r.update(player="1"), f"{WHERE}.player: expected <class 'int'>, got str"),
        (lambda r: r.update(player=True), f"{WHERE}.player: expected <class 'int'>, got a bool"),
        (lambda r: r.update(tiles={}), f"{WHERE}.tiles: expected <class 'list'>"),
        (lambda r: r["tiles"].pop(), f"{WHERE}.tiles: expected 35 tiles, got 34"),
        (lambda r: r["tiles"][3].update(flavor="walnut"), r"\.tiles\[3\]\.flavor = 'walnut'"),
        (lambda r: r["tiles"][3].update(face_up="up"), r"\.tiles\[3\]\.face_up = 'up'"),
        (lambda r: r["tiles"][3].update(owner=3), r"\.tiles\[3\]\.owner = 3; allowed: -1"),
        (lambda r: r["tiles"][3].update(owner=-2), r"\.tiles\[3\]\.owner = -2"),
        (lambda r: r["tiles"][3].pop("owner"), r"\.tiles\[3\]: missing field 'owner'"),
        (lambda r: r["box"].update(flavor=7), r"\.box\.flavor: expected <class 'str'>"),
        (lambda r: r.update(card="no such card"), r"\.card = 'no such card'; allowed: "),
        (lambda r: r.update(phase="dessert"), r"\.phase = 'dessert'; allowed: split, claim"),
        (lambda r: r["chunks"][0].update(top_left="h9"), r"\.chunks\[0\]\.top_left = 'h9'"),
        (lambda r: r["chunks"][0].update(rows=9), r"\.chunks\[0\]: a 9x7 chunk at a1 does not"),
        (lambda r: r["chunks"][0].update(cols=0), r"\.chunks\[0\]: a 5x0 chunk at a1 does not"),
        (lambda r: r["chunks"][0].update(rows=2**40), r"\.chunks\[0\]: a 1099511627776x7"),
    ],
)
def test_a_bad_value_is_refused_naming_its_field(
    game: LeChocolatGame, change: Callable[[Record], Any], message: str
) -> None:
    """Every value's type and range is checked, the error naming the field."""
    refused(game, changed(record_of(game, fresh(game, 1)), change), message)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(turn=3), rf"{WHERE}: unknown field\(s\) 'turn'; allowed: card, phase"),
        (lambda r: r["tiles"][4].update(peeked=True), r"tiles\[4\]: unknown field\(s\) 'peeked'"),
        (lambda r: r["box"].update(owner=0), r"\.box: unknown field\(s\) 'owner'; allowed: flavor"),
        (lambda r: r["chunks"][0].update(size=35), r"\.chunks\[0\]: unknown field\(s\) 'size'"),
        (lambda r: r["chunks"].append(7), r"\.chunks\[1\]: expected an object, got int"),
    ],
)
def test_an_unknown_field_is_refused(
    game: LeChocolatGame, change: Callable[[Record], Any], message: str
) -> None:
    """A field the format does not have (a typo, a field of another game) is refused, not
    dropped: the loader reads every field there is."""
    refused(game, changed(record_of(game, fresh(game, 1)), change), message)


def test_a_blank_blank_tile_shows_no_flavor_side(game: LeChocolatGame) -> None:
    """the rulings in docs/games/le_chocolat.md: "A tile has one flavor on one side and a blank back, or is blank on
    both sides": a blank/blank tile face up on its flavor side does not exist."""
    record = record_of(game, fresh(game, 1))
    i = next(i for i, t in enumerate(record["tiles"]) if t["flavor"] == "blank")
    bad = changed(record, lambda r: r["tiles"][i].update(face_up="flavor"))
    refused(game, bad, rf"\.tiles\[{i}\]\.face_up = 'flavor' but the tile is blank/blank")
    box = changed(record, lambda r: r["box"].update(flavor="blank", face_up="flavor"))
    refused(game, box, r"\.box\.face_up = 'flavor' but the tile is blank/blank")


def test_the_card_must_be_the_one_the_option_fixes() -> None:
    """Setup 5: one card lies face up; with ``scoring_card`` fixed, a record of another
    card is not a game of this configuration. With the card drawn at random any is fine."""
    fixed = LeChocolatGame(scoring_card="pairs")
    record = record_of(fixed, fresh(fixed, 0))
    assert record["card"] == "pairs"
    other = changed(record, lambda r: r.update(card="trio"))
    refused(fixed, other, rf"{WHERE}\.card = 'trio'; this game's option scoring_card fixes 'pairs'")
    assert LeChocolatGame().from_json(other).card == 3


# ---------------------------------------------------------------- conservation
def test_every_tile_of_the_set_is_there_exactly_once(game: LeChocolatGame) -> None:
    """Components: "36 Chocolate Tiles"; Setup: 35 in the grid and 1 in the box. A record
    with a tile changed for another (in the grid or in the box) is not the set; the error
    names the kinds that are off."""
    record = record_of(game, played(game, 5, 10))
    i = next(i for i, t in enumerate(record["tiles"]) if t["flavor"] == "almond")
    swapped = changed(record, lambda r: r["tiles"][i].update(flavor="cashew", face_up="blank"))
    refused(
        game,
        swapped,
        rf"{WHERE}\.tiles and {WHERE}\.box are not the game's tile set: "
        r"almond 5 \(the set has 6\), cashew 6 \(the set has 5\)",
    )
    box = "cashew" if record["box"]["flavor"] != "cashew" else "almond"
    boxed = changed(record, lambda r: r["box"].update(flavor=box, face_up="blank"))
    refused(game, boxed, rf"{box} \d \(the set has \d\)")


# ---------------------------------------------------------------- chunks against owners
def test_chunks_cover_exactly_the_unclaimed_tiles_each_once(game: LeChocolatGame) -> None:
    """the rulings in docs/games/le_chocolat.md: "A chunk is always a rectangle"; the chunks are the table, so they
    cover every tile with owner -1, each once, and no claimed tile."""
    start = record_of(game, fresh(game, 1))
    overlap = changed(start, lambda r: r["chunks"].append({"top_left": "b1", "rows": 1, "cols": 1}))
    refused(game, overlap, rf"{WHERE}\.chunks must cover .* covered twice \['b1'\]")
    bare = changed(start, lambda r: r["chunks"][0].update(rows=4))
    refused(game, bare, r"unclaimed but in no chunk \['a5', 'b5', 'c5', 'd5', 'e5', 'f5', 'g5'\]")
    s = table(game, [("a1", 1, 4)])
    late = record_of(game, s)
    claimed = changed(late, lambda r: r["chunks"].append({"top_left": "a2", "rows": 1, "cols": 1}))
    refused(game, claimed, r"claimed but in a chunk \['a2'\]")
    freed = changed(late, lambda r: r["tiles"][7].update(owner=-1))
    refused(game, freed, r"unclaimed but in no chunk \['a2'\]")


# ---------------------------------------------------------------- phase against table
def test_a_game_marked_over_is_over_and_a_live_one_is_not(game: LeChocolatGame) -> None:
    """Game End: "When all chocolate tiles have been claimed": phase 'over' exactly when
    no tile is on the table, with player -1; a live game has a seat 0 or 1 to act."""
    over = record_of(game, played(game, 3, 200))
    assert over["phase"] == "over" and over["player"] == -1
    refused(game, changed(over, lambda r: r.update(player=0)), rf"{WHERE}\.player = 0; a game over")
    for phase in ("split", "claim"):
        live = changed(over, lambda r, p=phase: r.update(phase=p, player=1))
        refused(game, live, rf"{WHERE}\.phase = '{phase}' but every tile is claimed")
    start = record_of(game, fresh(game, 1))
    early = changed(start, lambda r: r.update(phase="over", player=-1))
    refused(game, early, rf"{WHERE}\.phase = 'over' but 35 tile\(s\) are unclaimed")
    for player in (-1, 2, 99):
        bad = changed(start, lambda r, p=player: r.update(player=p))
        refused(game, bad, rf"{WHERE}\.player = {player}; allowed in a live game: 0, 1")


def test_split_needs_a_chunk_of_two_or_more_tiles(game: LeChocolatGame) -> None:
    """the rulings in docs/games/le_chocolat.md: "Every turn begins with exactly one split while some chunk has 2 or
    more tiles; when none has, the turn is only the claim": a split step with only single
    tiles on the table has no legal action and is refused."""
    singles = record_of(game, table(game, [("a1", 1, 1), ("b1", 1, 1)]))
    assert singles["phase"] == "split"
    refused(game, singles, rf"{WHERE}\.phase = 'split' but no chunk in {WHERE}\.chunks has 2\+")


def test_claim_needs_two_or_more_small_chunks(game: LeChocolatGame) -> None:
    """the rulings in docs/games/le_chocolat.md: "if any chunk has 3 or fewer tiles the player must claim exactly one of
    them, choosing which"; a single one is claimed with the split, so a claim step needs
    a choice of 2 or more chunks of 3 or fewer tiles."""
    record = record_of(game, claim_step(game))
    assert record["phase"] == "claim" and game.from_json(record).phase == 1
    one = record_of(game, table(game, [("a1", 1, 3), ("a2", 2, 7)]))
    refused(game, changed(one, lambda r: r.update(phase="claim")), r"'claim' needs 2 .* found 1")
    none = record_of(game, fresh(game, 1))
    refused(game, changed(none, lambda r: r.update(phase="claim")), r"'claim' needs 2 .* found 0")


def test_every_error_names_a_field_of_the_record(game: LeChocolatGame) -> None:
    """The refusals above all start with the path of the field they name."""
    record = record_of(game, fresh(game, 1))
    for change in (
        lambda r: r.update(player=5),
        lambda r: r["tiles"][0].update(owner=4),
        lambda r: r["chunks"].clear(),
    ):
        with pytest.raises(RecordError) as err:
            game.from_json(changed(record, change))
        assert re.match(rf"{WHERE}(\.|:)", str(err.value)), str(err.value)
