"""Helpers for the Chocolates tests: build positions from drawings."""

from __future__ import annotations

import random

from choco_envs.games.chocolates import ChocolatesGame, ChocolatesState
from choco_envs.games.chocolates.components import NUM_CARDS
from choco_envs.games.chocolates.render import layout_from_text

#: a complete layout of the shipped 21 chocolates; most drawings in the tests are this one
#: with one or two chocolates swapped. Row 1 is next to the display; the last row is the
#: five chocolates beside the grid. Dk dark, Br brown, Wh white, Gn green, Pk pink,
#: Au gold; o round, ^ triangular, # hexagonal.
STANDARD = """
Dko Br^ Wh# Gn^
Bro Dk# Pko Dk^
Wh^ Gno Br# Dko
Dk^ Who Au# Br^
Dk# Bro Pk^ Wh# Gn#
"""


def state_from(
    game: ChocolatesGame,
    drawing: str = STANDARD,
    display: tuple[int, int, int] = (0, 1, 2),
    seed: int = 0,
) -> ChocolatesState:
    """A fresh game (nothing revealed, nobody holding cards) on the drawn layout, with the
    given display and the other cards shuffled into the pile."""
    state = game.new_state(random.Random(seed))
    state.layout = tuple(layout_from_text(drawing))
    state.display = list(display)
    state.pile = [c for c in range(NUM_CARDS) if c not in display]
    random.Random(seed).shuffle(state.pile)
    return state


def take(slot: int, false_side: bool = False) -> int:
    """The action taking display ``slot`` with the false (True) or true side up."""
    return 2 * slot + int(false_side)


def reveal(pos: int) -> int:
    """The action revealing position ``pos`` (0..15 grid row-major, 16..20 beside)."""
    return 6 + pos


#: the order the scripted turns reveal in: beside the grid first, then the grid row-major
REVEAL_ORDER = [*range(16, 21), *range(16)]


def turns(game: ChocolatesGame, takes: list[int | None]) -> ChocolatesState:
    """The drawn STANDARD table after one turn per entry of ``takes``, in seat order:
    take that display slot (None: take nothing), then reveal the next chocolate of
    ``REVEAL_ORDER``."""
    s = state_from(game)
    rng = random.Random(0)
    for i, slot in enumerate(takes):
        if slot is not None:
            game.apply(s, take(slot), rng)
        game.apply(s, reveal(REVEAL_ORDER[i]), rng)
    return s
