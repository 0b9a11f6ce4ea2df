"""Chocolates' fast forms on the search path, each tied to its plain form: the remembered
face-down positions and their reader, and ``determinize`` itself against the plain
resampling written out here (the same sample from the same stream; the shuffle's own tie
to ``random.Random.shuffle`` is in tests/core/test_speed_paths.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from choco_envs.core.game import shuffle
from choco_envs.games.chocolates import ChocolatesGame, ChocolatesState
from choco_envs.games.chocolates.components import NUM_CHOCOLATES
from choco_envs.games.chocolates.rules import (
    HIDDEN_MEMO,
    hidden_positions,
)
from tests.games.random_play import random_states


def states(game: Any, count: int, seed: int) -> list[Any]:
    """States met in random play, every game's end included."""
    return random_states(game, count, seed)


def test_hidden_positions_are_the_face_down_ones_and_read_their_kinds() -> None:
    rng = random.Random(3)
    for _ in range(500):
        revealed = [rng.random() < rng.random() for _ in range(NUM_CHOCOLATES)]
        layout = [rng.randrange(18) for _ in range(NUM_CHOCOLATES)]
        hidden, read = hidden_positions(revealed)
        want = [pos for pos in range(NUM_CHOCOLATES) if not revealed[pos]]
        assert list(hidden) == want
        assert list(read(layout)) == [layout[pos] for pos in want]
        assert hidden_positions(list(revealed)) is hidden_positions(revealed)  # remembered


def test_hidden_positions_forget_past_the_memo_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from choco_envs.games.chocolates import rules

    monkeypatch.setattr(rules, "_HIDDEN", {})
    for k in range(HIDDEN_MEMO + 5):
        revealed = [bool(k >> i & 1) for i in range(NUM_CHOCOLATES)]
        hidden_positions(revealed)
        assert len(rules._HIDDEN) <= HIDDEN_MEMO


def plain_determinize(s: ChocolatesState, rng: random.Random) -> ChocolatesState:
    """The resampling spelled out with the core shuffle: the face-down kinds, sorted, dealt
    in shuffled order onto the face-down positions; the pile sorted, then shuffled."""
    new = s.copy()
    hidden = [pos for pos in range(NUM_CHOCOLATES) if not s.revealed[pos]]
    kinds = sorted(s.layout[pos] for pos in hidden)
    shuffle(rng, kinds)
    for pos, kind in zip(hidden, kinds, strict=True):
        new.layout[pos] = kind
    new.pile.sort()
    shuffle(rng, new.pile)
    return new


@pytest.mark.parametrize("players", [2, 4])
def test_determinize_is_the_plain_resampling_draw_for_draw(players: int) -> None:
    game = ChocolatesGame(num_players=players)
    a, b = random.Random(11), random.Random(11)
    for s in states(game, 300, seed=players):
        for seat in range(players):
            assert game.determinize(s, seat, a) == plain_determinize(s, b)
    assert a.getstate() == b.getstate()
