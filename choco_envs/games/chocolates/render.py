"""Chocolates as text: the table as one seat sees it, and layouts drawn as text (cell codes
such as ``Dk^``) for tests and examples."""

from __future__ import annotations

from choco_envs.games.chocolates.components import (
    BESIDE_CELLS,
    GRID_CELLS,
    NUM_CHOCOLATES,
    NUM_SHAPES,
    PREDICTION_CARDS,
)
from choco_envs.games.chocolates.rules import SIDE_NAMES, ChocolatesRules, ChocolatesState

TYPE_CODES = ("Dk", "Br", "Wh", "Gn", "Pk", "Au")
SHAPE_CODES = ("o", "^", "#")


def state_to_string(game: ChocolatesRules, s: ChocolatesState, player: int | None) -> str:
    """The table as ``player`` sees it: face-down chocolates as ``???`` (everyone sees the
    same; ``player`` only marks "you"). Scores are shown once the game is over."""
    lines = [_header(s)]
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
