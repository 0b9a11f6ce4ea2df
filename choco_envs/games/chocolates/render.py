"""Chocolates as text: the table as one seat sees it, and layouts drawn as text (cell codes
such as ``Dk^``) for tests and examples."""

from __future__ import annotations

from typing import Any

from choco_envs.games.chocolates.components import (
    BESIDE_CELLS,
    GRID_CELLS,
    NUM_CHOCOLATES,
    NUM_SHAPES,
    PREDICTION_CARDS,
    SHAPES,
    TYPES,
)
from choco_envs.games.chocolates.rules import (
    CORNERS,
    LEFT,
    MAIN_DIAGONALS,
    NUM_TAKE_ACTIONS,
    OUTER,
    PREDICATES,
    REVEAL_BASE,
    RIGHT,
    SIDE_NAMES,
    ChocolatesRules,
    ChocolatesState,
    position_name,
    split_layout,
)

#: the key shown by `?` at the terminal prompt
HELP = """Chocolates board codes
  a chocolate is a type code and a shape mark:
    Dk dark  Br brown  Wh white  Gn green  Pk pink  Au gold
    o round  ^ triangular  # hexagonal        (e.g. 'Pk^' a pink triangular chocolate)
  ???            a face-down chocolate (nobody knows it)
  r1c3           row 1 (next to the display), column 3, as seen from the display
  beside 2       the second of the 5 chocolates next to the grid
  '#8 (6/4)'     prediction card 8: 6 points on its true side, 4 on its false side
  'nougats 2'    nougat cubes on a display card or held by a player (1 point each)
  'cards: #8 true'   a held card and the side its player chose"""

TYPE_CODES = ("Dk", "Br", "Wh", "Gn", "Pk", "Au")
SHAPE_CODES = ("o", "^", "#")


def state_to_string(
    game: ChocolatesRules, s: ChocolatesState, player: int | None, ended: str | None = None
) -> str:
    """The table as ``player`` sees it: face-down chocolates as ``???`` (everyone sees the
    same; ``player`` only marks "you"). Scores are shown once the game is over; ``ended``
    (an illegal move ended it) is said in place of who is to act."""
    lines = [f"Chocolates: game over: {ended}" if ended else _header(s)]
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


def _header(s: ChocolatesState) -> str:
    if s.over:
        return "Chocolates: game over"
    phase = "took a card, now reveals" if s.took_card else "may take a card, then reveals"
    end = ""
    if s.final_turns >= 0:
        end = f"; end triggered, {s.final_turns} more turn(s) after this one"
    return f"Chocolates: player_{s.current} to act ({phase}){end}"


def kind_code(kind: int) -> str:
    """Three-letter cell text: type code + shape mark, e.g. ``Dk^``."""
    return TYPE_CODES[kind // NUM_SHAPES] + SHAPE_CODES[kind % NUM_SHAPES]


def parse_kind(cell: str) -> int:
    """The kind of a cell code such as ``Gn^``."""
    if len(cell) != 3 or cell[:2] not in TYPE_CODES or cell[2] not in SHAPE_CODES:
        raise ValueError(
            f"cell {cell!r} is not a chocolate; allowed: a type code of {TYPE_CODES} "
            f"followed by a shape mark of {SHAPE_CODES}"
        )
    return TYPE_CODES.index(cell[:2]) * NUM_SHAPES + SHAPE_CODES.index(cell[2])


def layout_from_text(text: str) -> list[int]:
    """A complete layout of 21 kinds from a drawing: 4 rows of 4 cell codes (row 0 next
    to the display) then one row of the 5 beside, e.g. ``Dko Br^ Wh# Au#``. Type codes:
    Dk dark, Br brown, Wh white, Gn green, Pk pink, Au gold; shapes: o round, ^ triangular,
    # hexagonal."""
    rows = [line.split() for line in text.strip().splitlines() if line.strip()]
    sizes = [len(r) for r in rows]
    if sizes != [4, 4, 4, 4, BESIDE_CELLS]:
        raise ValueError(f"a layout drawing has rows of 4,4,4,4,5 cells, got {sizes}")
    return [parse_kind(cell) for row in rows for cell in row]


# ---------------------------------------------------------------- the view (web page)
# Chocolates as the page draws it: the display of 3 prediction cards (both sides, the
# nougats on them), the 4x4 grid and the 5 chocolates beside it, the players' cards.
#
# Nothing in Chocolates is private to one seat: every seat and a spectator see the same
# table (face-down chocolates and the pile are hidden from everyone). Once the game is
# over every chocolate is face up and each held card says whether it came true.

GRID_SIDE = 4


def card_area(text: str) -> dict[str, Any]:
    """The area a prediction card's diagram shows in white (the rest grey): ``cells`` of
    the grid (16 booleans), ``beside`` (the 5 next to it), ``split`` (the card compares the
    left and right halves)."""
    lowered = text.lower()
    cells: tuple[int, ...] = tuple(range(GRID_CELLS))
    beside = False
    split = "left" in lowered and "right" in lowered
    if "next to the grid" in lowered:
        cells, beside = (), True
    elif "outer area" in lowered:
        cells = OUTER
    elif "four corners" in lowered:
        cells = CORNERS
    elif "diagonal" in lowered and "4 chocolates" in lowered:
        cells = tuple(sorted({c for d in MAIN_DIAGONALS for c in d}))
    elif "left side" in lowered and not split:
        cells = LEFT
    elif "right side" in lowered and not split:
        cells = RIGHT
    return {
        "cells": [c in cells for c in range(GRID_SIDE * GRID_SIDE)],
        "beside": beside,
        "split": split,
    }


def card_info(card: int) -> dict[str, Any]:
    """A printed card: its text, both sides' points and its diagram."""
    c = PREDICTION_CARDS[card]
    return {
        "id": card,
        "text": c.text,
        "true_points": c.true_points,
        "false_points": c.false_points,
        "area": card_area(c.text),
    }


def chocolate(s: ChocolatesState, pos: int) -> dict[str, Any]:
    """One chocolate: where it lies and, once face up, its type and shape."""
    out: dict[str, Any] = {"pos": pos, "name": position_name(pos), "face_up": bool(s.revealed[pos])}
    if pos < GRID_CELLS:
        out.update(row=pos // GRID_SIDE, col=pos % GRID_SIDE)
    else:
        out.update(index=pos - GRID_CELLS)
    if s.revealed[pos]:
        kind = s.layout[pos]
        out.update(type=TYPES[kind // NUM_SHAPES], shape=SHAPES[kind % NUM_SHAPES])
    return out


def held_cards(s: ChocolatesState, seat: int) -> list[dict[str, Any]]:
    """A seat's prediction cards, the chosen side up; at the end whether each came true."""
    out = []
    truth = None
    if s.over:
        types, shapes, beside = split_layout(s.layout)
        truth = [p(types, shapes, beside) for p in PREDICATES]
    for code in s.cards[seat]:
        card, side = divmod(code, 2)
        points = PREDICTION_CARDS[card].points(side)
        entry: dict[str, Any] = {
            "card": card_info(card),
            "side": SIDE_NAMES[side],
            "points": points,
        }
        if truth is not None:
            right = truth[card] != bool(side)
            entry.update(right=right, value=points if right else -points)
        out.append(entry)
    return out


def view(game: ChocolatesRules, state: ChocolatesState, seat: int | None) -> dict[str, Any]:
    """The table as every seat sees it (``seat`` only marks "you")."""
    s = state
    display = [
        {
            "slot": slot,
            "card": card_info(card) if card >= 0 else None,
            "nougats": s.display_nougats[slot],
        }
        for slot, card in enumerate(s.display)
    ]
    chocolates = [chocolate(s, pos) for pos in range(GRID_CELLS + BESIDE_CELLS)]
    players = [
        {"seat": p, "cards": held_cards(s, p), "nougats": s.nougats[p]}
        for p in range(game.num_players)
    ]
    return {
        "board": "chocolates",
        "env_id": game.spec.env_id,
        "viewer": seat,
        "num_players": game.num_players,
        "over": s.over,
        "to_act": None if s.over else s.current,
        "took_card": s.took_card,
        "final_turns": s.final_turns,
        "card_limit": game.card_limit,
        "pile": len(s.pile),
        "supply": s.supply,
        "display": display,
        "grid": chocolates[:GRID_CELLS],
        "beside": chocolates[GRID_CELLS:],
        "players": players,
    }


def target(game: ChocolatesRules, state: ChocolatesState, action: int) -> dict[str, Any] | None:
    """Take: a display card's true or false half; reveal: a chocolate."""
    if action < NUM_TAKE_ACTIONS:
        slot, side = divmod(action, 2)
        return {"kind": "take", "slot": slot, "side": SIDE_NAMES[side]}
    return {"kind": "reveal", "pos": action - REVEAL_BASE}
