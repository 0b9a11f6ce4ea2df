"""Le Chocolat's fast forms, each tied to its plain form: ``unseen``'s cells are the
cells ``LeChocolatState.knows`` says the seat does not know, and the encoder's chunk
stamps add up to the chunk planes written chunk by chunk."""

from __future__ import annotations

from typing import Any

from choco_envs.games.le_chocolat import LeChocolatGame, grid
from choco_envs.games.le_chocolat.encoding import ObservationWriter
from choco_envs.games.le_chocolat.rules import CLAIM_LIMIT
from tests.games.random_play import random_states

N = grid.CELLS


def states(game: Any, count: int, seed: int) -> list[Any]:
    """States met in random play, every game's end included."""
    return random_states(game, count, seed)


def test_unseen_cells_are_those_the_seat_does_not_know() -> None:
    game = LeChocolatGame()
    pool = states(game, 600, seed=1)
    assert any(game.is_over(s) for s in pool)
    for s in pool:
        for seat in (0, 1):
            cells, flavors = game.unseen(s, seat)
            assert cells == [c for c in range(N) if not s.knows(c, seat)]
            box = [] if s.box_up else [s.box_flavor]
            assert flavors == [s.flavor[c] for c in cells] + box


def test_chunk_stamps_add_up_to_the_chunk_planes() -> None:
    """chunk_size (a count), chunk_top_left and claimable, written chunk by chunk."""
    game = LeChocolatGame()
    writer = ObservationWriter(game)
    for s in states(game, 300, seed=2):
        want = bytearray(3 * N)
        for cell, r in enumerate(s.chunk_at):
            if r >= 0:
                want[N + cell] = 1
                for c in grid.RECT_CELLS[r]:
                    want[c] = grid.SIZE[r]
                    want[2 * N + c] = grid.SIZE[r] <= CLAIM_LIMIT
        assert writer.chunk_planes(s) == bytes(want)
