"""Positions for the Chocolatiers rule tests, laid out the way a player sees the table."""

from __future__ import annotations

import random

from choco_envs.games.chocolatiers import ChocolatiersGame, ChocolatiersState
from choco_envs.games.chocolatiers.components import (
    TYPE_LETTERS,
    TYPES,
    components_to_dict,
    default_components,
)
from choco_envs.games.chocolatiers.rules import (
    BOX,
    CHOOSE,
    DISCARD,
    EMPTY,
    GIVE,
    NO_TILE,
    NT,
    PAY,
    PAY_ONE,
    PLACE,
    PLACE_TILE,
    SLOT_SPACES,
    WILD,
    largest_groups,
    position_of,
    spliced,
)

T, N, R, M, B, V = range(6)


def fresh(edition: str = "standard", players: int = 2, seed: int = 0, **opts) -> tuple:
    """(game, state, rng) of a new game."""
    game = ChocolatiersGame(num_players=players, edition=edition, **opts)
    rng = random.Random(seed)
    return game, game.new_state(rng), rng


def counts(text: str) -> list[int]:
    """``"T2 V2"`` -> [2, 0, 0, 0, 0, 2]."""
    out = [0] * NT
    for part in text.split():
        out[TYPE_LETTERS.index(part[0])] += int(part[1:])
    return out


def set_hand(s: ChocolatiersState, seat: int, text: str, known: bool = True) -> None:
    """Give ``seat`` exactly these cards (seen taken from the tray when ``known``); the
    cards come from nowhere (a rule test that does not need every card counted)."""
    cards = counts(text)
    s.hand[seat * NT : seat * NT + NT] = cards
    s.known[seat * NT : seat * NT + NT] = cards if known else [0] * NT
    s.unknown[seat] = 0 if known else sum(cards)


def hold(s: ChocolatiersState, seat: int, text: str) -> None:
    """Give ``seat`` exactly these cards, every card still counted once: its hand goes to
    the discard pile, the cards come from the deck, else from the discard pile (as if
    taken from the tray: they are known)."""
    base = seat * NT
    for t in range(NT):
        s.discard[t] += s.hand[base + t]
        s.hand[base + t] = s.known[base + t] = 0
    s.unknown[seat] = 0
    for t, want in enumerate(counts(text)):
        for _ in range(want):
            if t in s.deck:
                s.deck.remove(t)
            else:
                assert s.discard[t], f"no {TYPES[t]} left in the deck or the discard pile"
                s.discard[t] -= 1
            s.hand[base + t] += 1
            s.known[base + t] += 1


def cost_text(game: ChocolatiersGame, tile: int) -> str:
    return " ".join(f"{TYPE_LETTERS[t]}{c}" for t, c in enumerate(game.tile_cost[tile]) if c)


def hand(s: ChocolatiersState, seat: int) -> str:
    return " ".join(
        f"{TYPE_LETTERS[t]}{c}" for t, c in enumerate(s.hand[seat * NT : seat * NT + NT]) if c
    )


def components_with(tiles: dict[int, str], edition: str = "standard") -> dict:
    """The authored components with some tiles replaced (``{index: "RBN. 4"}``)."""
    data = components_to_dict(default_components(edition))
    for i, text in tiles.items():
        data["tiles"][i] = text
    return data


def draw_sampler(s: ChocolatiersState, seat: int, rows: list[str]) -> None:
    """Lay out ``seat``'s Sampler from 6 text rows of the anchored 6x6 space grid:
    letters are chocolates, ``*`` wilds, ``.`` empty spaces, blanks no tile. Frame slots
    holding any space count as boxed tiles (of no tile id: a rule test of groups and
    placement only)."""
    assert len(rows) == 6 and all(len(r) == 6 for r in rows), rows
    cells = []
    for ch in "".join(rows):
        if ch == " ":
            cells.append(NO_TILE)
        elif ch == ".":
            cells.append(EMPTY)
        elif ch == "*":
            cells.append(WILD)
        else:
            cells.append(TYPE_LETTERS.index(ch))
    s.cells = spliced(s.cells, seat * 36, cells)
    occ = 0
    for slot, spaces in enumerate(SLOT_SPACES):
        if any(cells[i] != NO_TILE for i in spaces):
            occ |= 1 << slot
            s.slots = spliced(s.slots, seat * 9 + slot, (0,))
    s.occ = spliced(s.occ, seat, (occ,))
    s.ntiles = spliced(s.ntiles, seat, (bin(occ).count("1"),))
    s.groups = spliced(s.groups, seat * NT, largest_groups(s.cells, seat * 36))


def grid(s: ChocolatiersState, seat: int) -> list[str]:
    """``seat``'s anchored 6x6 grid as 6 text rows (the inverse of ``draw_sampler``)."""
    out = []
    for r in range(6):
        row = ""
        for v in s.cells[seat * 36 + 6 * r : seat * 36 + 6 * r + 6]:
            row += (
                " "
                if v == NO_TILE
                else "."
                if v == EMPTY
                else "*"
                if v == WILD
                else TYPE_LETTERS[v]
            )
        out.append(row)
    return out


def groups(s: ChocolatiersState, seat: int) -> dict[str, int]:
    return dict(zip(TYPES, s.groups[seat * NT : seat * NT + NT], strict=True))


def pay_all_singly(game: ChocolatiersGame, s: ChocolatiersState, rng: random.Random) -> list[int]:
    """Pay the tile being boxed, one matching card where possible; returns the actions."""
    done = []
    while s.phase == PAY:
        legal = game.legal_actions(s)
        a = PAY_ONE if PAY_ONE in legal else legal[0]
        game.apply(s, a, rng)
        done.append(a)
    return done


def place(row: int = 0, col: int = 0, rotation: int = 0) -> int:
    """The action putting the tile being boxed at (row, col) relative to the Sampler's
    top-left tile, turned ``rotation`` quarter turns clockwise."""
    return PLACE + 4 * position_of(row, col) + rotation


def box(
    game: ChocolatiersGame,
    s: ChocolatiersState,
    rng: random.Random,
    action: int,
    row: int = 0,
    col: int = 0,
    rotation: int = 0,
) -> None:
    """Box with ``action``, paying singly, at (row, col) with ``rotation``."""
    game.apply(s, action, rng)
    pay_all_singly(game, s, rng)
    assert s.phase == PLACE_TILE
    game.apply(s, place(row, col, rotation), rng)


def box_tile(
    game: ChocolatiersGame,
    s: ChocolatiersState,
    rng: random.Random,
    tile: int,
    row: int = 0,
    col: int = 0,
    rotation: int = 0,
) -> None:
    """The seat to act holds exactly the cost of ``tile`` (every card counted), finds it
    at line position 0 and boxes it at (row, col) with ``rotation``."""
    put_in_line(s, 0, tile)
    hold(s, s.player, cost_text(game, tile))
    box(game, s, rng, BOX + 0, row, col, rotation)


def play_until_turn_of(
    game: ChocolatiersGame, s: ChocolatiersState, rng: random.Random, seat: int
) -> None:
    """Play on (the first legal take or discard of every other step) until ``seat``
    starts its turn."""
    while not (s.player == seat and s.actions_left == 2 and s.phase == CHOOSE):
        legal = game.legal_actions(s)
        takes = [a for a in legal if a < GIVE or DISCARD <= a < DISCARD + NT]
        game.apply(s, (takes or legal)[0], rng)


def put_in_line(s: ChocolatiersState, position: int, tile: int) -> None:
    """Lay ``tile`` face up at line position (classic: stack top) ``position``: it swaps
    places with the tile there (in the line, a stack or the box)."""
    here = s.display[position]
    for pile in [*s.stacks, s.unused]:
        if tile in pile:
            pile[pile.index(tile)] = here
    if tile in s.display:
        s.display[s.display.index(tile)] = here
    s.display[position] = tile
