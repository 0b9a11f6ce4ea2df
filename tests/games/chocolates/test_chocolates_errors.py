"""Bad input to Chocolates: illegal actions and malformed component data."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from choco_envs.core.errors import ConfigError, IllegalActionError
from choco_envs.games.chocolates import ChocolatesGame, ChocolatesState
from choco_envs.games.chocolates.components import (
    DEFAULT_CHOCOLATES,
    default_kinds,
    load_components,
)

from .helpers import reveal, state_from, take

RNG = random.Random(0)


def played_state(game: ChocolatesGame) -> ChocolatesState:
    """Player 0 took and revealed; player 1 took and must now reveal."""
    s = state_from(game)
    game.apply(s, take(0), RNG)
    game.apply(s, reveal(3), RNG)
    game.apply(s, take(2, false_side=True), RNG)
    return s


@pytest.mark.parametrize(
    ("action", "why"),
    [
        (take(1), "already taken this turn"),  # a second take in one turn
        (reveal(3), "already face up"),
        (27, "out of range"),
        (-1, "out of range"),
        (True, "ints"),
        (2.0, "ints"),
        (np.int64(40), "out of range"),
    ],
)
def test_illegal_action_raises_and_changes_nothing(action: object, why: str) -> None:
    """Team rule: 'Bad input raises a clear error naming the bad value and the allowed
    ones, and changes nothing.'"""
    game = ChocolatesGame(num_players=2)
    s = played_state(game)
    before = game.to_json(s)
    with pytest.raises(IllegalActionError, match=why) as err:
        game.apply(s, action, RNG)  # type: ignore[arg-type]
    assert "Legal actions" in str(err.value)
    assert game.to_json(s) == before


def test_no_action_after_the_end() -> None:
    """Once the 16th grid chocolate is revealed nothing more is legal."""
    game = ChocolatesGame(num_players=2)
    s = state_from(game)
    s.revealed = bytearray([1] * 15 + [0] * 6)
    s.grid_hidden = 1
    game.apply(s, reveal(15), RNG)
    with pytest.raises(IllegalActionError, match="over"):
        game.apply(s, reveal(16), RNG)


def test_default_components_hold_the_printed_counts() -> None:
    """'21 "chocolate" tiles: 7 each in round, triangular, and hexagonal shapes, sorted
    into 6 types: 6 dark, 5 brown, 4 white, 3 green, 2 pink, and 1 gold', crossed as in
    the rulings in docs/games/chocolates.md: dark R2 T2 H2, brown R2 T2 H1, white R1 T1 H2, green R1 T1 H1, pink R1 T1,
    gold H1."""
    kinds = default_kinds()
    assert len(kinds) == 21
    assert [sum(1 for k in kinds if k // 3 == t) for t in range(6)] == [6, 5, 4, 3, 2, 1]
    assert [sum(1 for k in kinds if k % 3 == sh) for sh in range(3)] == [7, 7, 7]
    assert DEFAULT_CHOCOLATES["dark"] == {"round": 2, "triangular": 2, "hexagonal": 2}
    assert DEFAULT_CHOCOLATES["pink"] == {"round": 1, "triangular": 1}
    assert DEFAULT_CHOCOLATES["gold"] == {"hexagonal": 1}


def own_set() -> dict:
    """Another crossing with the printed totals: the gold is round, and one dark round
    chocolate is hexagonal instead (still 7 of each shape)."""
    table = json.loads(json.dumps(DEFAULT_CHOCOLATES))
    table["gold"] = {"round": 1}
    table["dark"] = {"round": 1, "triangular": 2, "hexagonal": 3}
    return {"chocolates": table}


def test_a_users_own_chocolates_by_dict_and_by_file(tmp_path: Path) -> None:
    """the rulings in docs/games/chocolates.md: component data is 'replaceable by a user who owns the physical game
    (a components= option or a data file they can pass)'."""
    game = ChocolatesGame(num_players=2, components=own_set())
    mine = game.components.chocolates
    assert list(mine) != default_kinds() and len(mine) == 21
    assert ChocolatesGame().components.chocolates == tuple(default_kinds())
    path = tmp_path / "my_chocolates.json"
    path.write_text(json.dumps(own_set()))
    assert ChocolatesGame(components=str(path)).components == game.components
    s = game.new_state(random.Random(1))
    assert tuple(sorted(s.layout)) == mine


@pytest.mark.parametrize(
    ("components", "message"),
    [
        ({"chocolates": {"milk": {"round": 1}}}, "type 'milk' is not allowed"),
        ({"chocolates": {"dark": {"square": 1}}}, "shape 'square' of dark is not allowed"),
        ({"chocolates": {"dark": {"round": -1}}}, "count -1 of dark round"),
        ({"chocolates": {"dark": {"round": "2"}}}, "count '2' of dark round"),
        ({"chocolates": {"dark": {"round": 2}}}, "2 dark chocolates is not allowed"),
        ({"chocolates": [1, 2]}, "must map type"),
        ({"chocolates": {"dark": 6}}, "must map shape"),
        ({"tiles": {}}, "the one allowed key is 'chocolates'"),
        (42, "allowed: None, a dict"),
        ("/no/such/file.json", "cannot be read"),
    ],
)
def test_bad_components_are_refused_with_the_allowed_values(
    components: object, message: str
) -> None:
    """Team rule: component data is 'validated on construction with an error that names
    the bad value and the allowed ones'."""
    with pytest.raises(ConfigError, match=message):
        ChocolatesGame(components=components)


def test_shape_totals_must_match_the_printing() -> None:
    """'7 each in round, triangular, and hexagonal shapes'."""
    table = json.loads(json.dumps(DEFAULT_CHOCOLATES))
    table["gold"] = {"round": 1}  # 8 round, 6 hexagonal
    with pytest.raises(ConfigError, match="8 round chocolates is not allowed"):
        load_components({"chocolates": table})


def test_components_file_must_be_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_components(path)


@pytest.mark.parametrize("players", [1, 5, "2", True])
def test_player_count_is_checked(players: object) -> None:
    """'2 to 4 players' (the rulings in docs/games/chocolates.md)."""
    with pytest.raises(ConfigError, match="allowed values: 2, 3, 4"):
        ChocolatesGame(num_players=players)
