"""Positions for Chocolate Factory tests: stations, dice and packages set by name."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from choco_envs.core.errors import IllegalActionError
from choco_envs.games.chocolate_factory import ChocolateFactoryGame, FactoryState
from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE,
    DI,
    DM,
    DQ,
    DS,
    MACHINE,
    MASTER,
    PACK,
    PAIR,
    SPECIAL,
)

V = {name: i for i, name in enumerate(cp.VARIETY_NAMES)}
I = {name: i for i, name in enumerate(cp.INGREDIENTS)}  # noqa: E741
S = {name: i for i, name in enumerate(cp.SPECIALS)}


def fresh(
    num_players: int = 2, seed: int = 0, **options: Any
) -> tuple[ChocolateFactoryGame, FactoryState]:
    game = ChocolateFactoryGame(num_players=num_players, **options)
    return game, game.new_state(random.Random(seed))


def set_station(
    game: ChocolateFactoryGame,
    s: FactoryState,
    player: int,
    station: int,
    variety: str,
    missing: dict[str, int] | None = None,
    machines: tuple[str, ...] = (),
    special: bool = False,
) -> None:
    """Put ``variety`` at a station; ``missing`` overrides the amounts still missing
    (default: the whole recipe); ``machines`` are ingredients whose machine is placed."""
    k = player * 4 + station
    v = V[variety]
    s.variety[k] = v
    amounts = list(game.quantities[v])
    for name, amount in (missing or {}).items():
        amounts[I[name]] = amount
    s.missing[k * 6 : k * 6 + 6] = amounts
    s.placed[k] = sum(1 << I[m] for m in machines)
    s.special[k] = int(special)


def set_dice(
    s: FactoryState,
    quantity: dict[str, int] | None = None,
    ingredient: dict[str, int] | None = None,
    machine: dict[str, int] | None = None,
    special: dict[str, int] | None = None,
) -> None:
    """The dice left in the roll, by face name (quantity faces '1'..'5', 'joker';
    machines by ingredient name)."""
    d = [0] * 24
    for face, count in (quantity or {}).items():
        d[DQ + cp.QUANTITY_FACES.index(face)] = count
    for name, count in (ingredient or {}).items():
        d[DI + I[name]] = count
    for name, count in (machine or {}).items():
        d[DM + I[name]] = count
    for name, count in (special or {}).items():
        d[DS + S[name]] = count
    s.dice = bytearray(d)


def pair(station: int, ingredient: str, face: str) -> int:
    return PAIR + (station * 6 + I[ingredient]) * 6 + cp.QUANTITY_FACES.index(face)


def machine(station: int, ingredient: str) -> int:
    return MACHINE + station * 6 + I[ingredient]


def special(station: int, name: str) -> int:
    return SPECIAL + station * 6 + S[name]


def master(station: int, ingredient: str) -> int:
    return MASTER + station * 6 + I[ingredient]


def pack(slot: int) -> int:
    return PACK + slot


def choose(variety: str) -> int:
    return CHOOSE + V[variety]


def missing(s: FactoryState, player: int, station: int, ingredient: str) -> int:
    return s.missing[(player * 4 + station) * 6 + I[ingredient]]


def ingredients_of(game: ChocolateFactoryGame, variety: str) -> list[str]:
    """The ingredients of ``variety``'s recipe in this game's component data (recipes are
    authored and may be re-authored: tests read them, never assume them)."""
    return [cp.INGREDIENTS[i] for i, q in enumerate(game.quantities[V[variety]]) if q]


def special_of(game: ChocolateFactoryGame, variety: str) -> str:
    """The special ingredient ``variety`` names in this game's component data."""
    return cp.SPECIALS[game.variety_special[V[variety]]]


def refused(game: ChocolateFactoryGame, s: FactoryState, action: int) -> None:
    """The mask forbids ``action`` and apply refuses it without changing anything."""
    assert action not in game.legal_actions(s)
    before = game.to_json(s)
    with pytest.raises(IllegalActionError):
        game.apply(s, action, random.Random(0))
    assert game.to_json(s) == before


def until_over(game: ChocolateFactoryGame, s: FactoryState) -> Iterator[int]:
    """Step numbers while the game is not over, for ``for step in until_over(game, s)``;
    fails, rather than hangs, once ``game.max_steps`` are played (a game that never ends
    is a broken end rule, and a mutant's tests must fail, not time out)."""
    for step in range(game.max_steps + 1):
        if game.is_over(s):
            return
        yield step
    raise AssertionError(f"the game did not end within max_steps={game.max_steps} steps")
