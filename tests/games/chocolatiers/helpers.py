"""Positions for the Chocolatiers rule tests, laid out the way a player sees the table."""

from __future__ import annotations

import random

from choco_envs.games.chocolatiers import ChocolatiersGame, State
from choco_envs.games.chocolatiers.components import (
    TYPE_LETTERS,
    TYPES,
    components_to_dict,
    default_components,
)
from choco_envs.games.chocolatiers.rules import (
    EMPTY,
    NO_TILE,
    NT,
    PAY,
    PAY_ONE,
    PLACE,
    PLACE_TILE,
    SLOT_SPACES,
    WILD,
    largest_groups,
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


def set_hand(s: State, seat: int, text: str, known: bool = True) -> None:
    """Give ``seat`` exactly these cards (seen taken from the tray when ``known``)."""
    cards = counts(text)
    s.hand[seat * NT : seat * NT + NT] = cards
    s.known[seat * NT : seat * NT + NT] = cards if known else [0] * NT
    s.unknown[seat] = 0 if known else sum(cards)


def hand(s: State, seat: int) -> str:
    return " ".join(
        f"{TYPE_LETTERS[t]}{c}" for t, c in enumerate(s.hand[seat * NT : seat * NT + NT]) if c
    )


def components_with(tiles: dict[int, str], edition: str = "standard") -> dict:
    """The authored components with some tiles replaced (``{index: "RBN. 4"}``)."""
    data = components_to_dict(default_components(edition))
    for i, text in tiles.items():
        data["tiles"][i] = text
    return data


def draw_sampler(s: State, seat: int, rows: list[str]) -> None:
    """Lay out ``seat``'s Sampler from 6 text rows of the 6x6 space grid: letters are
    chocolates, ``*`` wilds, ``.`` empty spaces, blanks no tile. Frame slots holding any
    space count as boxed tiles."""
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
    s.cells[seat * 36 : seat * 36 + 36] = cells
    occ = 0
    for slot, spaces in enumerate(SLOT_SPACES):
        if any(cells[i] != NO_TILE for i in spaces):
            occ |= 1 << slot
            s.slots[seat * 9 + slot] = 0
    s.occ[seat] = occ
    s.ntiles[seat] = bin(occ).count("1")
    s.groups[seat * NT : seat * NT + NT] = largest_groups(s.cells, seat * 36)


def groups(s: State, seat: int) -> dict[str, int]:
    return dict(zip(TYPES, s.groups[seat * NT : seat * NT + NT], strict=True))


def pay_all_singly(game: ChocolatiersGame, s: State, rng: random.Random) -> list[int]:
    """Pay the tile being boxed, one matching card where possible; returns the actions."""
    done = []
    while s.phase == PAY:
        legal = game.legal_actions(s)
        a = PAY_ONE if PAY_ONE in legal else legal[0]
        game.apply(s, a, rng)
        done.append(a)
    return done


def place(slot: int, rotation: int = 0) -> int:
    return PLACE + 4 * slot + rotation


def box(game: ChocolatiersGame, s: State, rng: random.Random, action: int, slot: int) -> None:
    """Box with ``action``, paying singly, into frame ``slot`` unrotated."""
    game.apply(s, action, rng)
    pay_all_singly(game, s, rng)
    assert s.phase == PLACE_TILE
    game.apply(s, place(slot), rng)


def put_in_line(s: State, position: int, tile: int) -> None:
    """Lay ``tile`` face up at line position (classic: stack top) ``position``."""
    for st in s.stacks:
        if tile in st:
            st.remove(tile)
            st.append(s.display[position])
    if tile in s.display:
        s.display[s.display.index(tile)] = s.display[position]
    s.display[position] = tile
