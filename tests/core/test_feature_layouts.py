"""Feature functions read the observation through the layout's named slices and refuse, by
name, a layout they were not written for (an encoder change cannot compute wrong features
silently)."""

from __future__ import annotations

import numpy as np
import pytest

from choco_envs.core.encoding import Encoder, Layout
from choco_envs.core.errors import ConfigError
from choco_envs.core.features import layout_slices
from choco_envs.games.chocolates.features import TRUTH
from choco_envs.games.chocolatiers.features import AFFORDABLE, TAKES
from choco_envs.games.le_chocolat.features import PIECES
from choco_envs.registry import make_game


def test_layout_slices_are_the_named_fields() -> None:
    lay = Layout()
    lay.add("a", 3, "first")
    lay.add("b", 4, "second")
    assert layout_slices(lay, "f", b=4, a=3) == {"b": slice(3, 7), "a": slice(0, 3)}


def test_a_field_of_another_size_or_a_missing_field_is_refused_by_name() -> None:
    lay = Layout()
    lay.add("grid", 150, "cells")
    with pytest.raises(ConfigError, match=r"f was written for layout field 'grid' of size 160"):
        layout_slices(lay, "f", grid=160)
    with pytest.raises(ConfigError, match=r"f reads layout field 'hand'.*fields: grid"):
        layout_slices(lay, "f", hand=6)


def changed_layout(game, field: str) -> None:
    """Give ``game`` a ``flat`` encoder whose ``field`` is one entry shorter."""
    old = game.encoder("flat").layout
    lay = Layout()
    for f in old.fields:
        lay.add(f.name, f.size - (f.name == field), f.meaning, f.low, f.high)
    game.encoders["flat"] = Encoder("flat", (lay.size,), lay, lambda s, p, out: None)


@pytest.mark.parametrize(
    ("env_id", "function", "field"),
    [
        ("chocolates_v0", TRUTH, "grid"),
        ("chocolates_v0", TRUTH, "seat_cards"),
        ("chocolatiers_v1", AFFORDABLE, "tiles"),
        ("chocolatiers_v1", AFFORDABLE, "cards_0"),
        ("chocolatiers_v1", TAKES, "tiles"),
        ("chocolatiers_v1", TAKES, "cards_0"),
        ("le_chocolat_v0", PIECES, "chunk_size"),
        ("le_chocolat_v0", PIECES, "own_flavors"),
        ("le_chocolat_v0", PIECES, "card_majority"),
    ],
)
def test_a_games_feature_function_refuses_a_changed_layout(env_id, function, field) -> None:
    game = make_game(env_id)
    assert function.build(game, "flat").size > 0
    changed_layout(game, field)
    with pytest.raises(ConfigError, match=f"layout field '{field}'"):
        function.build(game, "flat")


def test_the_features_read_the_slices_they_name() -> None:
    """chocolates_truth's held-points part reads seat_cards: a held true side of card 0
    changes only the own seat's expected points."""
    game = make_game("chocolates_v0")
    features = TRUTH.build(game, "flat")
    lay = game.encoder("flat").layout
    obs = np.zeros((2, lay.size), dtype=np.float32)
    obs[1, lay["seat_cards"].start] = 1.0  # own seat holds card 0, true side up
    out = features.compute(obs)
    differs = np.flatnonzero(out[0] != out[1])
    assert differs.tolist() == [features.size - game.num_players]
