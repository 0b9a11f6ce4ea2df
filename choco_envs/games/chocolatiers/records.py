"""Saved Chocolatiers states: a complete, versioned, human-readable record and its strict
loader.

The record holds the facts of the game (cards by type name, tile ids, each Sampler as its
tiles with position and rotation plus the spaces of its wilds); what follows from them
(the Sampler grids, tile counts and points, largest groups) is rebuilt on load. The loader
refuses, with a RecordError naming the field (``chocolatiers state.players[1].hand.truffle
= -2; allowed: 0..9``), every record that is not a reachable-looking state:

* every value's type and range;
* conservation: each card counted exactly once across hands, tray, discard pile and deck;
  each box tile once across the line / stack tops, the stacks, the box (classic), the
  Samplers, the reserved tiles and the tile being boxed; each seat's 3 wilds across its
  supply, its Sampler and its reserved tile; the First tile held by at most one seat;
* consistency: the phase against what is pending (a tile being paid or placed, cards to
  take, a hand over the limit), the chocolates still owed against the tile's cost, the
  hands against what is publicly known, the hand sizes against the hand limit, the tray
  against the deck, the line against its stack, the seat to act against the turn count,
  the end flags against the end conditions, a Sampler against the 3x2 bound;
* that the agent to act has a legal action, and that a game not over is not over (the
  turn count below the 40-round cap, so an accepted game always ends within max_steps).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from choco_envs.core.errors import RecordError, shown
from choco_envs.games.chocolatiers.components import TYPES, components_to_dict
from choco_envs.games.chocolatiers.rules import (
    CHOOSE,
    DISCARD_DOWN,
    FROM_RESERVE,
    HAND_LIMIT,
    LINE_SIZE,
    MAX_TILES,
    NO_TILE,
    NT,
    PAY,
    PHASE_NAMES,
    PLACE_TILE,
    REACHABLE_OCCUPANCIES,
    ROUND_CAP,
    SLOT_SPACES,
    TAKE_MORE,
    TRAY_SIZE,
    WILD,
    WILDS_EACH,
    ChocolatiersState,
    current_chocolate,
    largest_groups,
    payable,
    spliced,
)

if TYPE_CHECKING:
    from choco_envs.games.chocolatiers.rules import ChocolatiersRules

RECORD_VERSION = 1
WHERE = "chocolatiers state"
#: the spaces of a Sampler's 6x6 grid: the most wilds a record may list as placed
SAMPLER_SPACES = 36
#: the top-level fields of a record, in the order written
FIELDS = (
    "version", "edition", "components", "turn", "player", "phase", "actions_left",
    "takes_left", "pending", "box_from", "to_pay", "first", "over", "tray", "discard",
    "deck", "deck_reshuffled", "line", "stacks", "unused", "players",
)  # fmt: skip
PLAYER_FIELDS = ("hand", "known", "unseen", "wilds", "reserved", "sampler", "wilds_placed")
TILE_FIELDS = ("tile", "row", "col", "rotation")


# ================================================================ writing
def state_to_json(game: ChocolatiersRules, s: ChocolatiersState) -> dict[str, Any]:
    """The record of ``s``: JSON types only, readable, complete."""
    n = game.num_players
    players = []
    for q in range(n):
        sampler = [
            {"tile": s.slots[q * 9 + slot], "row": slot // 3, "col": slot % 3,
             "rotation": s.rots[q * 9 + slot]}
            for slot in range(9)
            if s.slots[q * 9 + slot] >= 0
        ]  # fmt: skip
        cells = s.cells[q * 36 : q * 36 + 36]
        players.append(
            {
                "hand": _named(s.hand[q * NT : q * NT + NT]),
                "known": _named(s.known[q * NT : q * NT + NT]),
                "unseen": s.unknown[q],
                "wilds": s.wilds[q],
                "reserved": s.reserved[q],
                "sampler": sampler,
                "wilds_placed": [[i // 6, i % 6] for i in range(36) if cells[i] == WILD],
            }
        )
    return {
        "version": RECORD_VERSION,
        "edition": game.edition,
        "components": components_to_dict(game.components),
        "turn": s.turn,
        "player": s.player,
        "phase": PHASE_NAMES[s.phase],
        "actions_left": s.actions_left,
        "takes_left": s.takes_left,
        "pending": s.pending,
        "box_from": s.box_from,
        "to_pay": _named(s.to_pay),
        "first": s.first,
        "over": s.over,
        "tray": _named(s.tray),
        "discard": _named(s.discard),
        "deck": [TYPES[t] for t in s.deck],
        "deck_reshuffled": s.reshuffled,
        "line": list(s.display),
        "stacks": [list(st) for st in s.stacks],
        "unused": list(s.unused),
        "players": players,
    }


def _named(counts: Sequence[int]) -> dict[str, int]:
    return dict(zip(TYPES, counts, strict=True))


# ================================================================ reading
def refuse(where: str, value: Any, allowed: str) -> RecordError:
    """``chocolatiers state.<where> = <value>; allowed: <allowed>``."""
    return RecordError(f"{WHERE}.{where} = {shown(value)}; allowed: {allowed}")


def refuse_count(where: str, count: int, what: str, allowed: str) -> RecordError:
    """``chocolatiers state.<where> holds <count> <what>; allowed: <allowed>``."""
    return RecordError(f"{WHERE}.{where} holds {count} {what}; allowed: {allowed}")


def _object(value: Any, where: str, keys: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise refuse(where, value, f"an object with the fields {', '.join(keys)}")
    missing = [k for k in keys if k not in value]
    extra = [shown(k) for k in [k for k in value if k not in keys][:5]]
    if missing or extra:
        problem = f"missing {missing}" if missing else f"unknown [{', '.join(extra)}]"
        raise RecordError(f"{WHERE}.{where}: fields {problem}; allowed: exactly {list(keys)}")
    return value


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise refuse(where, value, f"an int in {low}..{high}")
    return value


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise refuse(where, value, "true or false")
    return value


def _list(value: Any, where: str, length: int | None = None, most: int | None = None) -> list[Any]:
    """A list of exactly ``length`` or at most ``most`` entries, refused by its length
    before any entry is read."""
    if not isinstance(value, list) or (length is not None and len(value) != length):
        size = "a list" if length is None else f"a list of {length} entries"
        raise refuse(where, value, size)
    if most is not None and len(value) > most:
        raise refuse_count(where, len(value), "entries", f"at most {most}")
    return value


def _counts(value: Any, where: str, high: int) -> list[int]:
    """Card counts by type name: exactly the six types, each an int in 0..high."""
    d = _object(value, where, TYPES)
    return [_int(d[t], f"{where}.{t}", 0, high) for t in TYPES]


def _tile(value: Any, where: str, tiles: int, none: bool = True) -> int:
    return _int(value, where, -1 if none else 0, tiles - 1)


def state_from_json(game: ChocolatiersRules, d: Any) -> ChocolatiersState:
    """Rebuild a state from its record, refusing (RecordError naming the field) every
    record that is not a reachable-looking state (the module doc lists the checks)."""
    rec = _object(d, "(record)", FIELDS) if isinstance(d, Mapping) else None
    if rec is None:
        raise RecordError(f"{WHERE}: expected an object, got {type(d).__name__}")
    _int(rec["version"], "version", RECORD_VERSION, RECORD_VERSION)
    if rec["edition"] != game.edition:
        raise refuse("edition", rec["edition"], repr(game.edition))
    if rec["components"] != components_to_dict(game.components):
        raise RecordError(
            f"{WHERE}.components: the record was played with other component data than "
            "this game's; make the game with the record's components"
        )
    s = _read_fields(game, rec)
    _check_cards(game, s)
    _check_turn(game, s)
    _check_tiles(game, s)
    _check_end(game, s)
    if not s.over and not game.legal_actions(s):
        raise RecordError(f"{WHERE}: player_{s.player} has no legal action in this position")
    return s


def _read_fields(game: ChocolatiersRules, rec: Mapping[str, Any]) -> ChocolatiersState:
    n, tiles = game.num_players, game.num_tiles
    cards = sum(game.components.card_counts)
    s = ChocolatiersState.__new__(ChocolatiersState)
    s.turn = _int(rec["turn"], "turn", 0, ROUND_CAP * n)
    s.player = _int(rec["player"], "player", 0, n - 1)
    phase = rec["phase"]
    if phase not in PHASE_NAMES:
        raise refuse("phase", phase, ", ".join(PHASE_NAMES))
    s.phase = PHASE_NAMES.index(phase)
    s.actions_left = _int(rec["actions_left"], "actions_left", 0, 2)
    s.takes_left = _int(rec["takes_left"], "takes_left", 0, 2)
    s.pending = _tile(rec["pending"], "pending", tiles)
    s.box_from = _int(rec["box_from"], "box_from", -1, LINE_SIZE - game.classic)
    s.to_pay = _counts(rec["to_pay"], "to_pay", 4)
    s.first = _int(rec["first"], "first", -1, n - 1)
    s.over = _bool(rec["over"], "over")
    s.tray = _counts(rec["tray"], "tray", cards)
    s.discard = _counts(rec["discard"], "discard", cards)
    deck = _list(rec["deck"], "deck", most=cards)
    for i, name in enumerate(deck):
        if name not in TYPES:
            raise refuse(f"deck[{i}]", name, ", ".join(TYPES))
    s.deck = [TYPES.index(name) for name in deck]
    s.reshuffled = _bool(rec["deck_reshuffled"], "deck_reshuffled")
    s.unordered = False  # a saved game holds its deck and tiles in order
    line = _list(rec["line"], "line", LINE_SIZE)
    s.display = [_tile(v, f"line[{i}]", tiles) for i, v in enumerate(line)]
    stacks = _list(rec["stacks"], "stacks", LINE_SIZE if game.classic else 1)
    s.stacks = [
        [
            _tile(v, f"stacks[{i}][{j}]", tiles, none=False)
            for j, v in enumerate(_list(st, f"stacks[{i}]", most=tiles))
        ]
        for i, st in enumerate(stacks)
    ]
    s.unused = [
        _tile(v, f"unused[{i}]", tiles, none=False)
        for i, v in enumerate(_list(rec["unused"], "unused", most=tiles))
    ]
    players = _list(rec["players"], "players", n)
    s.hand, s.known, s.unknown, s.wilds, s.reserved = [], [], [], [], []
    s.cells, s.slots, s.rots = (NO_TILE,) * (n * 36), (-1,) * (n * 9), (0,) * (n * 9)
    s.occ = s.ntiles = s.points = s.n34 = (0,) * n
    s.groups = (0,) * (n * NT)
    for q, value in enumerate(players):
        where = f"players[{q}]"
        p = _object(value, where, PLAYER_FIELDS)
        hand = _counts(p["hand"], f"{where}.hand", cards)
        known = _counts(p["known"], f"{where}.known", cards)
        for t in range(NT):
            if known[t] > hand[t]:
                raise refuse(
                    f"{where}.known.{TYPES[t]}", known[t], f"0..{hand[t]} (the hand's {TYPES[t]})"
                )
        unseen = _int(p["unseen"], f"{where}.unseen", 0, 3)
        if sum(hand) != sum(known) + unseen:
            raise RecordError(
                f"{WHERE}.{where}: the hand holds {sum(hand)} cards, but {sum(known)} known + "
                f"{unseen} unseen = {sum(known) + unseen}; allowed: hand = known + unseen"
            )
        s.hand += hand
        s.known += known
        s.unknown.append(unseen)
        s.wilds.append(_int(p["wilds"], f"{where}.wilds", 0, WILDS_EACH))
        reserved = _tile(p["reserved"], f"{where}.reserved", tiles)
        if game.classic and reserved >= 0:
            raise refuse(f"{where}.reserved", reserved, "-1 (the classic edition has no reserve)")
        s.reserved.append(reserved)
        _read_sampler(game, s, q, p, where)
    return s


def _read_sampler(
    game: ChocolatiersRules, s: ChocolatiersState, q: int, p: Mapping[str, Any], where: str
) -> None:
    """The Sampler of seat ``q``: tiles on distinct slots of an anchored arrangement within
    3x2 or 2x3, wilds on distinct spaces of those tiles; its grid and counts rebuilt."""
    sampler = _list(p["sampler"], f"{where}.sampler")
    if len(sampler) > MAX_TILES:
        raise refuse_count(f"{where}.sampler", len(sampler), "tiles", f"at most {MAX_TILES} tiles")
    occ, points, n34 = 0, 0, 0
    cells, slots, rots = [NO_TILE] * 36, [-1] * 9, [0] * 9
    for i, value in enumerate(sampler):
        at = f"{where}.sampler[{i}]"
        entry = _object(value, at, TILE_FIELDS)
        tile = _tile(entry["tile"], f"{at}.tile", game.num_tiles, none=False)
        row = _int(entry["row"], f"{at}.row", 0, 2)
        col = _int(entry["col"], f"{at}.col", 0, 2)
        rot = _int(entry["rotation"], f"{at}.rotation", 0, 3)
        slot = 3 * row + col
        if occ >> slot & 1:
            raise refuse(f"{at}", entry, "a slot no other tile of this Sampler holds")
        occ |= 1 << slot
        slots[slot], rots[slot] = tile, rot
        for space, v in zip(SLOT_SPACES[slot], game.rotated[tile][rot], strict=True):
            cells[space] = v
        pts = game.tile_points[tile]
        points += pts
        n34 += pts in (3, 4)
    if occ not in REACHABLE_OCCUPANCIES:
        raise RecordError(
            f"{WHERE}.{where}.sampler: tiles at {[divmod(x, 3) for x in range(9) if occ >> x & 1]}; "
            "allowed: tiles joined on full edges, within 3x2 or 2x3, anchored with a tile "
            "in row 0 and one in col 0"
        )
    for i, value in enumerate(
        _list(p["wilds_placed"], f"{where}.wilds_placed", most=SAMPLER_SPACES)
    ):
        at = f"{where}.wilds_placed[{i}]"
        pair = _list(value, at, 2)
        space = 6 * _int(pair[0], f"{at}[0]", 0, 5) + _int(pair[1], f"{at}[1]", 0, 5)
        if cells[space] == NO_TILE:
            raise refuse(at, value, "a space of a tile in this Sampler")
        if cells[space] == WILD:
            raise refuse(at, value, "a space holding no wild yet")
        cells[space] = WILD
    s.cells, s.groups = (
        spliced(s.cells, q * 36, cells),
        spliced(s.groups, q * NT, largest_groups(cells)),
    )
    s.slots, s.rots = spliced(s.slots, q * 9, slots), spliced(s.rots, q * 9, rots)
    s.occ, s.ntiles = spliced(s.occ, q, (occ,)), spliced(s.ntiles, q, (len(sampler),))
    s.points, s.n34 = spliced(s.points, q, (points,)), spliced(s.n34, q, (n34,))


def _check_cards(game: ChocolatiersRules, s: ChocolatiersState) -> None:
    """Each card exactly once; hands within the hand limit; the tray against the deck."""
    n, total = game.num_players, game.components.card_counts
    for t in range(NT):
        held = sum(s.hand[q * NT + t] for q in range(n))
        count = held + s.tray[t] + s.discard[t] + s.deck.count(t)
        if count != total[t]:
            raise RecordError(
                f"{WHERE}: {count} {TYPES[t]} cards in hands ({held}), tray ({s.tray[t]}), "
                f"discard ({s.discard[t]}) and deck ({s.deck.count(t)}); allowed: exactly "
                f"{total[t]}, each card once"
            )
    for q in range(n):
        size = sum(s.hand[q * NT : q * NT + NT])
        high = _hand_bound(game, s) if q == s.player and not s.over else HAND_LIMIT
        if size > high:
            raise refuse_count(
                f"players[{q}].hand", size, "cards", f"at most {high} now (hand limit 6)"
            )
    tray = sum(s.tray)
    low, high = _tray_bounds(game, s)
    if not (low if s.deck else 0) <= tray <= high:
        exact = f"exactly {low}" if low == high else f"{low}..{high}"
        allowed = f"{exact} (the tray is refilled while the deck lasts)" if s.deck else f"0..{high}"
        raise refuse_count("tray", tray, "cards", allowed)


def _hand_bound(game: ChocolatiersRules, s: ChocolatiersState) -> int:
    """The most cards the seat to act can hold now: 6 at the start of its turn, plus the
    cards its completed actions (+1 each at most) and the exchange under way have brought."""
    if game.classic:
        if s.actions_left == 2:
            return HAND_LIMIT + (1 - s.takes_left if s.phase == TAKE_MORE else 0)
        return HAND_LIMIT + 1
    done = 2 - s.actions_left
    return HAND_LIMIT + done + (1 - s.takes_left if s.phase == TAKE_MORE else 0)


def _tray_bounds(game: ChocolatiersRules, s: ChocolatiersState) -> tuple[int, int]:
    """(cards the tray holds while the deck has cards, the most it can hold): 6 after
    every refill; less only by the takes since (standard: within an exchange; classic:
    this turn, refilled in the end phase); 7 in a classic exchange."""
    if s.over:
        return TRAY_SIZE, TRAY_SIZE
    if game.classic:
        if s.actions_left == 2:
            exact = TRAY_SIZE - 1 + s.takes_left if s.phase == TAKE_MORE else TRAY_SIZE
            return exact, exact
        return TRAY_SIZE - 1, TRAY_SIZE - 1
    exact = TRAY_SIZE - 2 + s.takes_left if s.phase == TAKE_MORE else TRAY_SIZE
    return exact, exact


def _check_tiles(game: ChocolatiersRules, s: ChocolatiersState) -> None:
    """Each box tile exactly once; the line against its stack(s); the classic box."""
    n = game.num_players
    places: list[tuple[str, int]] = [(f"line[{i}]", t) for i, t in enumerate(s.display) if t >= 0]
    places += [(f"stacks[{i}]", t) for i, st in enumerate(s.stacks) for t in st]
    places += [("unused", t) for t in s.unused]
    places += [
        (f"players[{q}].sampler", s.slots[q * 9 + k])
        for q in range(n)
        for k in range(9)
        if s.slots[q * 9 + k] >= 0
    ]
    places += [(f"players[{q}].reserved", s.reserved[q]) for q in range(n) if s.reserved[q] >= 0]
    if s.pending >= 0:
        places.append(("pending", s.pending))
    seen: dict[int, str] = {}
    for where, tile in places:
        if tile in seen:
            raise refuse(where, tile, f"each box tile once (tile {tile} is also in {seen[tile]})")
        seen[tile] = where
    missing = sorted(set(range(game.num_tiles)) - set(seen))
    if missing:
        raise RecordError(
            f"{WHERE}: box tiles {missing} are nowhere; allowed: every tile exactly once"
        )
    boxing = s.box_from if s.box_from < LINE_SIZE else -1
    if boxing >= 0 and s.display[boxing] >= 0:
        raise refuse(
            f"line[{boxing}]",
            s.display[boxing],
            f"-1 (its tile is being boxed, box_from = {boxing})",
        )
    if game.classic:
        size = game.stack_size
        if len(s.unused) != game.num_tiles - LINE_SIZE * size:
            raise refuse_count(
                "unused",
                len(s.unused),
                "tiles",
                f"exactly {game.num_tiles - LINE_SIZE * size} ({n} players)",
            )
        for i, st in enumerate(s.stacks):
            if len(st) > size - 1:
                raise refuse_count(
                    f"stacks[{i}]", len(st), "tiles", f"at most {size - 1} under the top"
                )
            if st and s.display[i] < 0 and i != boxing:
                raise refuse(f"line[{i}]", -1, f"a tile: the top of stack {i}, which is not empty")
    else:
        if s.unused:
            raise refuse("unused", s.unused, "[] (the standard edition uses every tile)")
        if s.stacks[0]:
            empty = [i for i, t in enumerate(s.display) if t < 0 and i != boxing]
            if empty:
                raise refuse(
                    f"line[{empty[0]}]",
                    -1,
                    "a tile: the line is refilled to 5 while the stack lasts",
                )


def _check_turn(game: ChocolatiersRules, s: ChocolatiersState) -> None:
    """The step of the turn against what is pending, and the wilds."""
    n, p, phase = game.num_players, s.player, s.phase
    for q in range(n):
        placed = sum(1 for v in s.cells[q * 36 : q * 36 + 36] if v == WILD)
        locked = int(s.reserved[q] >= 0)
        if s.wilds[q] + placed + locked != WILDS_EACH:
            raise RecordError(
                f"{WHERE}.players[{q}]: {s.wilds[q]} wilds in supply + {placed} placed + "
                f"{locked} locked on a reserved tile; allowed: exactly {WILDS_EACH}"
            )
    if s.over:
        if (phase, s.actions_left, s.takes_left, s.pending, s.box_from) != (
            CHOOSE,
            0,
            0,
            -1,
            -1,
        ) or any(s.to_pay):
            raise RecordError(
                f"{WHERE}: a game over is in no step of a turn; allowed: phase 'choose', "
                "actions_left 0, takes_left 0, pending -1, box_from -1, nothing to pay"
            )
        return
    allowed_actions = _actions_left_allowed(game, phase)
    if s.actions_left not in allowed_actions:
        raise refuse(
            "actions_left", s.actions_left, f"{allowed_actions} in phase {PHASE_NAMES[phase]!r}"
        )
    if (phase == TAKE_MORE) != (s.takes_left > 0):
        raise refuse("takes_left", s.takes_left, "1..2 in phase 'take', else 0")
    boxing = phase in (PAY, PLACE_TILE)
    if boxing != (s.pending >= 0) or boxing != (s.box_from >= 0):
        raise RecordError(
            f"{WHERE}: phase {PHASE_NAMES[phase]!r} with pending = {s.pending}, box_from = "
            f"{s.box_from}; allowed: a tile and where it came from exactly in 'pay' and 'place'"
        )
    if (phase == PAY) != any(s.to_pay):
        raise refuse(
            "to_pay",
            dict(zip(TYPES, s.to_pay, strict=True)),
            "something owed exactly in phase 'pay'",
        )
    if boxing:
        _check_boxing(game, s)
    if phase == DISCARD_DOWN and sum(s.hand[p * NT : p * NT + NT]) <= HAND_LIMIT:
        raise refuse(
            "phase", "discard", f"'discard' only with more than {HAND_LIMIT} cards in hand"
        )
    if phase == TAKE_MORE and sum(s.tray) < s.takes_left:
        raise refuse_count(
            "tray", sum(s.tray), "cards", f"at least {s.takes_left} (cards still to take)"
        )


def _actions_left_allowed(game: ChocolatiersRules, phase: int) -> tuple[int, ...]:
    if phase == DISCARD_DOWN:
        return (0,)
    if game.classic:
        return {TAKE_MORE: (2,), PAY: (1,), PLACE_TILE: (1,)}.get(phase, (1, 2))
    return (1, 2)


def _check_boxing(game: ChocolatiersRules, s: ChocolatiersState) -> None:
    """A tile being paid or placed: its Sampler has room, the chocolates owed are the rest
    of its cost paid in type order, and the hand can still pay them."""
    p = s.player
    if s.ntiles[p] >= MAX_TILES:
        raise refuse("pending", s.pending, f"-1: player_{p}'s Sampler is full")
    if s.box_from == FROM_RESERVE and s.reserved[p] >= 0:
        raise refuse(
            f"players[{p}].reserved", s.reserved[p], "-1 (the reserved tile is being boxed)"
        )
    cost = game.tile_cost[s.pending]
    c = current_chocolate(s.to_pay)
    for t in range(NT):
        paid_before = t < c or c < 0
        expected = (0,) if paid_before else (cost[t],) if t > c else tuple(range(1, cost[t] + 1))
        if s.to_pay[t] not in expected:
            raise refuse(
                f"to_pay.{TYPES[t]}",
                s.to_pay[t],
                f"{'/'.join(map(str, expected)) or 'none'} (tile {s.pending} costs "
                f"{dict(zip(TYPES, cost, strict=True))}, paid in type order)",
            )
    if s.phase == PAY and not payable(s.hand, p * NT, s.to_pay):
        raise refuse(
            f"players[{p}].hand",
            dict(zip(TYPES, s.hand[p * NT : p * NT + NT], strict=True)),
            "a hand that can pay what is still owed",
        )


def _check_end(game: ChocolatiersRules, s: ChocolatiersState) -> None:
    """The First tile, the seat to act against the turn count, and the end flag."""
    n = game.num_players
    full = [q for q in range(n) if s.ntiles[q] == MAX_TILES]
    if s.first >= 0 and s.first not in full:
        raise refuse("first", s.first, f"a seat with 6 tiles ({full or 'none'}) or -1")
    if full and s.first < 0:
        raise refuse("first", -1, f"one of {full}: the first to place a 6th tile takes First")
    if s.over:
        ended = s.turn == ROUND_CAP * n or (s.first >= 0 and s.turn % n == s.first)
        if not ended or s.player != (s.turn - 1) % n:
            raise refuse(
                "over",
                True,
                "true only after the turn of the seat before the First holder, or round 40",
            )
        return
    if s.turn >= ROUND_CAP * n:
        raise refuse("turn", s.turn, f"0..{ROUND_CAP * n - 1} in a game not over (40 rounds)")
    if s.player != s.turn % n:
        raise refuse(
            "player", s.player, f"{s.turn % n} (turn {s.turn}: seats play in order from seat 0)"
        )
    if s.first == s.player:
        # the First holder acts only in the turn it placed its 6th tile, after that action
        late = (
            s.phase == DISCARD_DOWN
            if game.classic
            else s.actions_left < 2 and s.phase not in (PAY, PLACE_TILE)
        )
        if not late:
            raise refuse(
                "first",
                s.first,
                f"not player_{s.player}, who has not finished the turn that triggered the end",
            )
