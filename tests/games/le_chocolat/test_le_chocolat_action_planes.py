"""Where the ``planes`` encoder puts each action on the board (for convolutional policy
heads): a cut beside its line inside the chunk it cuts, a claim at the chunk's top-left
tile, and never two legal actions at one position."""

from __future__ import annotations

import random

from choco_envs.games.le_chocolat import LeChocolatGame, grid
from choco_envs.games.le_chocolat.rules import NUM_SPLIT_ACTIONS
from tests.games.le_chocolat.helpers import claim, fresh, horizontal, split, vertical

N = grid.CELLS


def board_position(game: LeChocolatGame, action: int) -> tuple[int, int]:
    """(channel, cell) of ``action`` on the board."""
    planes = game.encoder("planes").action_planes
    assert planes is not None
    return divmod(planes.index[action], N)


def chunk_of(s, top_left: int) -> tuple[int, ...]:  # type: ignore[no-untyped-def]
    return grid.RECT_CELLS[s.chunk_at[top_left]]


def test_the_first_cuts_sit_beside_their_line() -> None:
    """ "The first player starts by splitting the chocolate tiles into 2 chunks. They may
    split along any straight line between tiles." Cutting the whole grid right of column
    c is scored at c1 (channel 0); below row 2, at a2 (channel 1)."""
    game = LeChocolatGame()
    assert board_position(game, split("a1", vertical("c"))) == (0, 2)
    assert board_position(game, split("a1", horizontal(2))) == (1, 7)
    assert game.encoder("planes").action_planes.channels[2] == "claim_chunk_at_cell"  # type: ignore[union-attr]
    assert board_position(game, claim("d4")) == (2, 3 * 7 + 3)


def test_legal_actions_never_share_a_position_and_sit_in_their_chunk() -> None:
    """ "The second player chooses a chunk and splits it along any straight line": over
    whole random games, every legal action has its own position, inside the chunk it
    names; a claim ("they must claim all tiles in that chunk") sits at its top-left tile."""
    game = LeChocolatGame()
    rng = random.Random(3)
    checked = 0
    for seed in range(30):
        s = fresh(game, seed)
        while not game.is_over(s):
            legal = game.legal_actions(s)
            positions = [board_position(game, a) for a in legal]
            assert len(set(positions)) == len(legal), "two legal actions share a position"
            for a, (channel, cell) in zip(legal, positions, strict=True):
                if a >= NUM_SPLIT_ACTIONS:
                    assert (channel, cell) == (2, a - NUM_SPLIT_ACTIONS)
                    continue
                top_left, line = divmod(a, grid.LINES)
                assert cell in chunk_of(s, top_left)
                row, col = divmod(cell, grid.WIDTH)
                if line < grid.VERTICAL_LINES:  # the tile just left of the line
                    assert (channel, col) == (0, line)
                else:  # the tile just above the line
                    assert (channel, row) == (1, line - grid.VERTICAL_LINES)
                checked += 1
            game.apply(s, rng.choice(legal), rng)
    assert checked > 1000
