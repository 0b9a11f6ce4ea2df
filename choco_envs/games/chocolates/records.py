"""Chocolates state records (JSON, validated) and the text rendering."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from choco_envs.core.errors import RecordError
from choco_envs.core.game import require
from choco_envs.games.chocolates.components import (
    GRID_CELLS,
    NOUGAT_SUPPLY,
    NUM_CARDS,
    NUM_CHOCOLATES,
    PREDICTION_CARDS,
    SHAPES,
    TYPES,
    kind_of,
)

if TYPE_CHECKING:
    from choco_envs.games.chocolates.rules import ChocolatesGame, ChocolatesState

WHERE = "chocolates state"


def state_from_json(game: ChocolatesGame, d: Mapping[str, Any]) -> ChocolatesState:
    """Rebuild a state from ``game.to_json``; RecordError names the malformed field."""
    from choco_envs.games.chocolates.rules import DISPLAY_SIZE, ChocolatesState

    if require(d, "game", str, WHERE) != game.spec.env_id:
        raise RecordError(f"{WHERE}.game: {d['game']!r} is not {game.spec.env_id!r}")
    layout = [_kind(name, i) for i, name in enumerate(_list(d, "layout", NUM_CHOCOLATES))]
    if sorted(layout) != sorted(game.chocolates):
        raise RecordError(f"{WHERE}.layout: the chocolates differ from this game's components")
    revealed = _list(d, "revealed", NUM_CHOCOLATES)
    if not all(isinstance(r, bool) for r in revealed):
        raise RecordError(f"{WHERE}.revealed: expected 21 booleans, got {revealed!r}")
    pile = [_card(c, "pile") for c in require(d, "pile", list, WHERE)]
    display = [-1 if c is None else _card(c, "display") for c in _list(d, "display", DISPLAY_SIZE)]
    players = _list(d, "players", game.num_players)
    s = ChocolatesState(layout, pile, display, game.num_players)
    s.revealed = list(revealed)
    s.grid_hidden = GRID_CELLS - sum(revealed[:GRID_CELLS])
    s.display_nougats = [_count(n, "display_nougats") for n in _list(d, "display_nougats", 3)]
    s.supply = _count(require(d, "supply", int, WHERE), "supply")
    for seat, entry in enumerate(players):
        where = f"{WHERE}.players[{seat}]"
        s.nougats[seat] = _count(require(entry, "nougats", int, where), f"players[{seat}].nougats")
        for held in require(entry, "cards", list, where):
            card = _card(require(held, "card", int, where), f"players[{seat}].cards")
            side = require(held, "side", str, where)
            if side not in ("true", "false"):
                raise RecordError(f"{where}: side {side!r} is not 'true' or 'false'")
            s.cards[seat].append(2 * card + (side == "false"))
    _check_cards_and_nougats(s)
    s.took_card = require(d, "took_card", bool, WHERE)
    s.over = require(d, "over", bool, WHERE)
    s.current = require(d, "current", int, WHERE)
    s.final_turns = require(d, "final_turns", int, WHERE)
    allowed_seats = [-1] if s.over else list(range(game.num_players))
    if s.current not in allowed_seats:
        raise RecordError(f"{WHERE}.current: {s.current} is not one of {allowed_seats}")
    if s.final_turns not in range(-1, game.num_players):
        raise RecordError(
            f"{WHERE}.final_turns: {s.final_turns} is not in -1..{game.num_players - 1}"
        )
    return s


def _list(d: Mapping[str, Any], key: str, size: int) -> list[Any]:
    value = require(d, key, list, WHERE)
    if len(value) != size:
        raise RecordError(f"{WHERE}.{key}: expected {size} entries, got {len(value)}")
    return value


def _kind(name: Any, pos: int) -> int:
    parts = name.split() if isinstance(name, str) else []
    if len(parts) != 2 or parts[0] not in TYPES or parts[1] not in SHAPES:
        raise RecordError(
            f"{WHERE}.layout[{pos}]: {name!r} is not '<type> <shape>' with a type of {TYPES} "
            f"and a shape of {SHAPES}"
        )
    return kind_of(parts[0], parts[1])


def _card(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in range(NUM_CARDS):
        raise RecordError(f"{WHERE}.{where}: card {value!r} is not a card id 0..{NUM_CARDS - 1}")
    return value


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RecordError(f"{WHERE}.{where}: {value!r} is not a count >= 0")
    return value


def _check_cards_and_nougats(s: ChocolatesState) -> None:
    ids = s.pile + [c for c in s.display if c >= 0] + [c // 2 for h in s.cards for c in h]
    repeated = sorted(c for c, k in Counter(ids).items() if k > 1)
    if repeated:
        raise RecordError(f"{WHERE}: prediction card(s) {repeated} appear more than once")
    total = s.supply + sum(s.display_nougats) + sum(s.nougats)
    if total != NOUGAT_SUPPLY:
        raise RecordError(f"{WHERE}: {total} nougat cubes in play; the game has {NOUGAT_SUPPLY}")


# ---------------------------------------------------------------------- text
def render(game: ChocolatesGame, s: ChocolatesState, player: int | None) -> str:
    """The table as ``player`` sees it: face-down chocolates as ``??`` (everyone sees the
    same; ``player`` only marks "you"). Scores are shown once the game is over."""
    from choco_envs.games.chocolates.rules import SIDE_NAMES, kind_code

    lines = [_header(game, s)]
    lines.append(f"Display (pile {len(s.pile)}, nougat supply {s.supply}):")
    for slot, card in enumerate(s.display):
        if card < 0:
            lines.append(f"  slot {slot}: empty")
            continue
        c = PREDICTION_CARDS[card]
        lines.append(
            f"  slot {slot}: #{card} ({c.true_points}/{c.false_points}) "
            f"nougats {s.display_nougats[slot]}: {c.text}"
        )

    def cell(pos: int) -> str:
        return kind_code(s.layout[pos]) if s.revealed[pos] else "???"

    lines.append("Grid (display side on top):")
    lines.append("      c1  c2  c3  c4")
    for r in range(4):
        lines.append(f"  r{r + 1}  " + " ".join(cell(r * 4 + c) for c in range(4)))
    lines.append("  beside: " + " ".join(cell(p) for p in range(GRID_CELLS, NUM_CHOCOLATES)))
    scores = game.scores(s) if s.over else None
    for seat, held in enumerate(s.cards):
        you = " (you)" if seat == player else ""
        cards = ", ".join(
            f"#{code // 2} {SIDE_NAMES[code % 2]} ({PREDICTION_CARDS[code // 2].points(code % 2)})"
            for code in held
        )
        score = f"; score {scores[seat]:g}" if scores is not None else ""
        lines.append(f"player_{seat}{you}: nougats {s.nougats[seat]}; cards: {cards or '-'}{score}")
    return "\n".join(lines)


def _header(game: ChocolatesGame, s: ChocolatesState) -> str:
    if s.over:
        return "Chocolates: game over"
    phase = "took a card, now reveals" if s.took_card else "may take a card, then reveals"
    end = ""
    if s.final_turns >= 0:
        end = f"; end triggered, {s.final_turns} more turn(s) after this one"
    return f"Chocolates: player_{s.current} to act ({phase}){end}"
