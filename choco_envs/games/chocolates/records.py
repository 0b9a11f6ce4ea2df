"""Chocolates state records: complete, human-readable JSON, checked on load.

A record names its game and version in ``"game"`` (the env id, ``chocolates_v0``).
``state_from_json`` refuses, with a RecordError naming the field, every record that is not
a state the rules can reach: a value of the wrong type or out of range; a component not
counted exactly once (the 21 chocolates, the 29 prediction cards across the pile, the
display and the players' hands, the 24 nougat cubes across the supply, the display and
the players); fields that contradict each other (whose turn it is against the number of
reveals, the cards held against the turns played and the card limit, the end flags
against the end conditions, the final-turn counter against who reached the limit); and a
game not over in which the seat to act would have no legal action.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from choco_envs.core.errors import RecordError, shown
from choco_envs.core.game import require
from choco_envs.games.chocolates.components import (
    GRID_CELLS,
    NOUGAT_SUPPLY,
    NUM_CARDS,
    NUM_CHOCOLATES,
    SHAPES,
    TYPES,
    kind_name,
    kind_of,
)
from choco_envs.games.chocolates.rules import (
    DISPLAY_SIZE,
    SIDE_NAMES,
    ChocolatesRules,
    ChocolatesState,
)

WHERE = "chocolates state"
FIELDS = (
    "game",
    "layout",
    "revealed",
    "pile",
    "display",
    "display_nougats",
    "supply",
    "players",
    "current",
    "took_card",
    "final_turns",
    "over",
)
PLAYER_FIELDS = ("cards", "nougats")
CARD_FIELDS = ("card", "side")


def state_to_json(game: ChocolatesRules, s: ChocolatesState) -> dict[str, Any]:
    """The whole state, face-down chocolates and pile order included (a record is for
    the referee, not for a seat)."""
    return {
        "game": game.spec.env_id,
        "layout": [kind_name(k) for k in s.layout],
        "revealed": [bool(flag) for flag in s.revealed],
        "pile": list(s.pile),
        "display": [c if c >= 0 else None for c in s.display],
        "display_nougats": list(s.display_nougats),
        "supply": s.supply,
        "players": [
            {
                "cards": [{"card": code // 2, "side": SIDE_NAMES[code % 2]} for code in held],
                "nougats": n,
            }
            for held, n in zip(s.cards, s.nougats, strict=True)
        ],
        "current": s.current,
        "took_card": s.took_card,
        "final_turns": s.final_turns,
        "over": s.over,
    }


def state_from_json(game: ChocolatesRules, d: Mapping[str, Any]) -> ChocolatesState:
    """Rebuild a state from :func:`state_to_json`; RecordError names the bad field."""
    _check_keys(d, FIELDS, WHERE)
    if require(d, "game", str, WHERE) != game.spec.env_id:
        raise RecordError(f"{WHERE}.game = {shown(d['game'])}; allowed: {game.spec.env_id!r}")
    n = game.num_players
    layout = [_kind(name, i) for i, name in enumerate(_list(d, "layout", NUM_CHOCOLATES))]
    revealed = _list(d, "revealed", NUM_CHOCOLATES)
    for pos, flag in enumerate(revealed):
        if not isinstance(flag, bool):
            raise RecordError(f"{WHERE}.revealed[{pos}] = {shown(flag)}; allowed: true, false")
    pile = [_card(c, f"pile[{i}]") for i, c in enumerate(_list(d, "pile", NUM_CARDS, exact=False))]
    display = [
        -1 if c is None else _card(c, f"display[{i}]")
        for i, c in enumerate(_list(d, "display", DISPLAY_SIZE))
    ]
    s = ChocolatesState(layout, pile, display, n)
    s.revealed = bytearray(revealed)
    s.grid_hidden = GRID_CELLS - sum(revealed[:GRID_CELLS])
    s.display_nougats = [
        _count(v, f"display_nougats[{i}]", NOUGAT_SUPPLY)
        for i, v in enumerate(_list(d, "display_nougats", DISPLAY_SIZE))
    ]
    s.supply = _count(require(d, "supply", int, WHERE), "supply", NOUGAT_SUPPLY)
    for seat, entry in enumerate(_list(d, "players", n)):
        where = f"players[{seat}]"
        _check_keys(entry, PLAYER_FIELDS, f"{WHERE}.{where}")
        s.nougats[seat] = _count(
            require(entry, "nougats", int, f"{WHERE}.{where}"), f"{where}.nougats", NOUGAT_SUPPLY
        )
        held = require(entry, "cards", list, f"{WHERE}.{where}")
        if len(held) > game.card_limit:
            raise RecordError(
                f"{WHERE}.{where}.cards holds {len(held)} cards; allowed: 0..{game.card_limit} "
                f"(the card limit with {n} players)"
            )
        s.cards[seat] = tuple(_held(c, f"{where}.cards[{i}]") for i, c in enumerate(held))
    s.current = require(d, "current", int, WHERE)
    s.took_card = require(d, "took_card", bool, WHERE)
    s.final_turns = require(d, "final_turns", int, WHERE)
    s.over = require(d, "over", bool, WHERE)
    _check_chocolates(game, s)
    _check_cards(s)
    _check_nougats(s)
    if s.over:
        _check_over(game, s)
    else:
        _check_turn(game, s)
        _check_final_round(game, s)
        if not game.legal_actions(s):
            raise RecordError(f"{WHERE}: player_{s.current} to act has no legal action")
    return s


# ---------------------------------------------------------------------- values
def _check_keys(d: Any, allowed: Sequence[str], where: str) -> None:
    if not isinstance(d, Mapping):
        raise RecordError(f"{where}: expected an object, got {type(d).__name__}")
    unknown = [k for k in d if k not in allowed]
    if unknown:
        raise RecordError(
            f"{where}: unknown field(s) [{', '.join(map(shown, unknown[:5]))}"
            f"{', ...' if len(unknown) > 5 else ''}]; allowed: {', '.join(allowed)}"
        )


def _list(d: Mapping[str, Any], key: str, size: int, exact: bool = True) -> list[Any]:
    """A list of exactly (or, not ``exact``, at most) ``size`` entries, refused by its
    length before any entry is read."""
    value = require(d, key, list, WHERE)
    if len(value) > size or (exact and len(value) != size):
        allowed = f"exactly {size}" if exact else f"at most {size}"
        raise RecordError(f"{WHERE}.{key}: {len(value):,} entries; allowed: {allowed}")
    return value


def _kind(name: Any, pos: int) -> int:
    parts = name.split() if isinstance(name, str) else []
    if len(parts) != 2 or parts[0] not in TYPES or parts[1] not in SHAPES:
        raise RecordError(
            f"{WHERE}.layout[{pos}] = {shown(name)}; allowed: '<type> <shape>' with a type of "
            f"{', '.join(TYPES)} and a shape of {', '.join(SHAPES)}"
        )
    return kind_of(parts[0], parts[1])


def _card(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in range(NUM_CARDS):
        raise RecordError(
            f"{WHERE}.{where} = {shown(value)}; allowed: a card id 0..{NUM_CARDS - 1}"
        )
    return value


def _held(entry: Any, where: str) -> int:
    _check_keys(entry, CARD_FIELDS, f"{WHERE}.{where}")
    card = _card(require(entry, "card", int, f"{WHERE}.{where}"), f"{where}.card")
    side = require(entry, "side", str, f"{WHERE}.{where}")
    if side not in SIDE_NAMES:
        raise RecordError(f"{WHERE}.{where}.side = {shown(side)}; allowed: 'true', 'false'")
    return 2 * card + SIDE_NAMES.index(side)


def _count(value: Any, where: str, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in range(most + 1):
        raise RecordError(f"{WHERE}.{where} = {shown(value)}; allowed: 0..{most}")
    return value


# ---------------------------------------------------------------------- components
def _check_chocolates(game: ChocolatesRules, s: ChocolatesState) -> None:
    """The 21 chocolates, each once: the layout holds exactly the game's set."""
    have, want = Counter(s.layout), Counter(game.components.chocolates)
    if have != want:
        extra = sorted(kind_name(k) for k in (have - want).elements())
        missing = sorted(kind_name(k) for k in (want - have).elements())
        raise RecordError(
            f"{WHERE}.layout: not this game's 21 chocolates (extra {extra}, missing {missing})"
        )


def _check_cards(s: ChocolatesState) -> None:
    """The 29 prediction cards, each exactly once across the pile, the display and the
    players; a display slot is empty only once the pile has run out."""
    places: dict[int, list[str]] = {}
    for i, card in enumerate(s.pile):
        places.setdefault(card, []).append(f"pile[{i}]")
    for slot, card in enumerate(s.display):
        if card >= 0:
            places.setdefault(card, []).append(f"display[{slot}]")
    for seat, held in enumerate(s.cards):
        for i, code in enumerate(held):
            places.setdefault(code // 2, []).append(f"players[{seat}].cards[{i}]")
    for card, where in sorted(places.items()):
        if len(where) > 1:
            raise RecordError(f"{WHERE}.{where[1]}: card {card} is also at {where[0]}")
    missing = sorted(set(range(NUM_CARDS)) - set(places))
    if missing:
        raise RecordError(
            f"{WHERE}.pile: card(s) {missing} are nowhere; each of the {NUM_CARDS} prediction "
            "cards is in the pile, the display or a player's cards exactly once"
        )
    if s.pile and -1 in s.display:
        raise RecordError(
            f"{WHERE}.display[{s.display.index(-1)}] = None while the pile holds {len(s.pile)} "
            "cards; the display is refilled from the pile while it lasts"
        )


def _check_nougats(s: ChocolatesState) -> None:
    """The 24 nougat cubes, each once, and only where takes put them. A take moves 1 cube
    from the supply onto each other display card while the supply lasts, and the display
    is always full (at most 12 cards are ever held, so the pile of 26 never runs out):
    after T takes (the cards held) the supply holds 24 - 2 T. A cube leaves the display
    only with its card, so a display card holds at most one cube per take, and a player
    holding no card holds no cube."""
    total = s.supply + sum(s.display_nougats) + sum(s.nougats)
    if total != NOUGAT_SUPPLY:
        raise RecordError(
            f"{WHERE}.supply: {total} nougat cubes in the supply, on the display and held; "
            f"allowed: exactly {NOUGAT_SUPPLY}"
        )
    takes = sum(len(held) for held in s.cards)
    expected = max(0, NOUGAT_SUPPLY - 2 * takes)
    if s.supply != expected:
        raise RecordError(
            f"{WHERE}.supply = {s.supply}; allowed: {expected} after {takes} card(s) taken "
            "(each take puts 1 cube from the supply on each other display card)"
        )
    for slot, cubes in enumerate(s.display_nougats):
        if cubes > takes:
            raise RecordError(
                f"{WHERE}.display_nougats[{slot}] = {cubes}; allowed: 0..{takes} (at most one "
                "cube per take)"
            )
    for seat, (held, cubes) in enumerate(zip(s.cards, s.nougats, strict=True)):
        if cubes and not held:
            raise RecordError(
                f"{WHERE}.players[{seat}].nougats = {cubes}; allowed: 0 (cubes come only with "
                "a card, and this player holds none)"
            )


# ---------------------------------------------------------------------- turns and the end
def turns_played(s: ChocolatesState, seat: int, n: int) -> int:
    """Turns ``seat`` has finished: every turn reveals exactly one chocolate, in seat
    order from ``player_0``."""
    reveals = sum(s.revealed)
    return (reveals - seat + n - 1) // n


def _check_turn(game: ChocolatesRules, s: ChocolatesState) -> None:
    """A game not over: a grid chocolate still face down, the seat to act the one whose
    turn the reveals so far give, and no seat holding more cards than its turns."""
    n = game.num_players
    if s.grid_hidden == 0:
        raise RecordError(
            f"{WHERE}.over = false, but all 16 grid chocolates are face up; revealing the 16th "
            "ends the game at once"
        )
    if s.final_turns not in range(-1, n):
        raise RecordError(f"{WHERE}.final_turns = {s.final_turns}; allowed: -1..{n - 1}")
    reveals = sum(s.revealed)
    if s.current != reveals % n:
        raise RecordError(
            f"{WHERE}.current = {s.current}; allowed: {reveals % n} (player_0 began and every "
            f"turn reveals one chocolate: {reveals} face up)"
        )
    if s.took_card and not s.cards[s.current]:
        raise RecordError(f"{WHERE}.took_card = true, but player_{s.current} to act holds no card")
    for seat, held in enumerate(s.cards):
        turns = turns_played(s, seat, n) + (seat == s.current and s.took_card)
        if len(held) > turns:
            raise RecordError(
                f"{WHERE}.players[{seat}].cards holds {len(held)} cards after {turns} turn(s); "
                "allowed: at most one card a turn"
            )


def _check_final_round(game: ChocolatesRules, s: ChocolatesState) -> None:
    """``final_turns`` against who reached the card limit. While nobody holds the limit
    it is -1. Once someone does, the first to reach it triggered the end: during that
    turn ``final_turns`` is ``n - 1`` (the card just taken), and during the ``j``-th
    final turn after it ``n - 1 - j``. So the trigger seat, ``j`` seats before the seat
    to act, holds exactly the limit; a seat that played its final turn (or the seat to
    act, having taken this turn) may hold it too; a seat whose final turn is still to
    come holds less, or it would have triggered the end itself."""
    n, limit = game.num_players, game.card_limit
    at_limit = [seat for seat in range(n) if len(s.cards[seat]) >= limit]
    if s.final_turns < 0:
        if at_limit:
            raise RecordError(
                f"{WHERE}.final_turns = -1, but player_{at_limit[0]} holds the limit of {limit} "
                "cards: reaching it triggers the end"
            )
        return
    j = n - 1 - s.final_turns
    trigger = (s.current - j) % n
    if j == 0 and not s.took_card:
        raise RecordError(
            f"{WHERE}.final_turns = {s.final_turns}: the end is triggered in this turn, but "
            f"player_{s.current} took no card"
        )
    if len(s.cards[trigger]) != limit:
        raise RecordError(
            f"{WHERE}.final_turns = {s.final_turns}: player_{trigger} triggered the end, but "
            f"holds {len(s.cards[trigger])} cards; allowed: exactly {limit}"
        )
    waiting = [(trigger + k) % n for k in range(j + 1, n)]
    if j > 0 and not s.took_card:
        waiting.append(s.current)
    for seat in at_limit:
        if seat in waiting:
            raise RecordError(
                f"{WHERE}.players[{seat}].cards: player_{seat} holds the limit of {limit} "
                f"before playing its final turn, so it, not player_{trigger}, would have "
                "triggered the end"
            )


def _check_over(game: ChocolatesRules, s: ChocolatesState) -> None:
    """A finished game: every chocolate flipped, nobody to act, and an end condition met
    (the 16th grid reveal, or the final turns played after someone reached the limit)."""
    n, limit = game.num_players, game.card_limit
    if s.current != -1:
        raise RecordError(f"{WHERE}.current = {s.current}; allowed: -1 (the game is over)")
    if not all(s.revealed):
        raise RecordError(
            f"{WHERE}.revealed: the game is over, so every chocolate is face up ('Flip all "
            "remaining chocolates face up')"
        )
    if s.took_card:
        raise RecordError(f"{WHERE}.took_card = true; allowed: false (the game is over)")
    if s.final_turns not in range(-1, n):
        raise RecordError(f"{WHERE}.final_turns = {s.final_turns}; allowed: -1..{n - 1}")
    reached = any(len(held) >= limit for held in s.cards)
    if reached != (s.final_turns >= 0):
        detail = "a player holds the limit" if reached else "nobody holds the limit"
        raise RecordError(
            f"{WHERE}.final_turns = {s.final_turns}, but {detail} of {limit} cards; allowed: "
            f"{'0..' + str(n - 1) if reached else '-1'}"
        )
