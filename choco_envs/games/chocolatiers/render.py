"""Text view of a Chocolatiers game, showing only what one seat (or a spectator) may see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from choco_envs.games.chocolatiers.components import TYPE_LETTERS, TYPES
from choco_envs.games.chocolatiers.rules import (
    EMPTY,
    FROM_RESERVE,
    NO_TILE,
    PHASE_NAMES,
    ROUND_CAP,
    WILD,
    ChocolatiersState,
)

if TYPE_CHECKING:
    from choco_envs.games.chocolatiers.rules import ChocolatiersRules

NT = len(TYPES)
LEGEND = (
    "Legend: T truffle, N nut cluster, R raspberry, M mint, B blueberry, V violet; "
    "* wild, . empty space; a tile is 'TL TR BL BR points'"
)
#: the longer key shown by `?` at the terminal prompt
HELP = """Chocolatiers board codes
  T truffle  N nut cluster  R raspberry  M mint  B blueberry  V violet
  'T0 N1 R1 M3 B1 V0'   cards by type (tray, discard, a player's known cards)
  '+ 3 unseen'          cards a player was dealt that nobody else has seen
  '[2] .TNR 4'          line position 2 (classic: stack 2): a box tile's four spaces
                        top-left, top-right, bottom-left, bottom-right ('.' empty), then
                        its points; '(hidden: 25)' tiles still face down
  Sampler grid          each tile is 2x2 letters, anchored at the top-left corner;
                        '*' a wild chocolate, '.' an empty space, blank: no tile
  'reserved T.RR 3'     the player's reserved tile (a wild locked on it)
  'wilds 2'             wild chocolates still in the player's supply (1 point each at the end)"""


def counts_text(counts: list[int]) -> str:
    """``T2 N0 R1 M0 B0 V3``."""
    return " ".join(f"{TYPE_LETTERS[t]}{c}" for t, c in enumerate(counts))


def cell_letter(v: int) -> str:
    """One character for a Sampler cell: a type letter, '*' wild, '.' empty, ' ' none."""
    if v == NO_TILE:
        return " "
    if v == EMPTY:
        return "."
    if v == WILD:
        return "*"
    return TYPE_LETTERS[v]


def sampler_lines(cells: Sequence[int]) -> list[str]:
    """The anchored 6x6 grid: letters for chocolates, * wilds, . empty spaces, blank
    where there is no tile."""
    return ["|" + "".join(cell_letter(v) for v in cells[r * 6 : r * 6 + 6]) + "|" for r in range(6)]


def state_to_string(
    game: ChocolatiersRules, s: ChocolatiersState, player: int | None, ended: str | None = None
) -> str:
    """What ``player`` may see: own hand in full, the others' known cards and unknown
    count, everything face up. ``None``: a spectator's view. ``ended`` (an illegal move
    ended the game) is said in place of who is to act."""
    n = game.num_players
    head = f"Chocolatiers ({game.edition}), round {min(s.turn // n + 1, ROUND_CAP)}/{ROUND_CAP}"
    if ended:
        head += f", game over: {ended}"
    elif s.over:
        head += ", game over"
    else:
        head += f", player_{s.player} to act: {PHASE_NAMES[s.phase]}"
        head += f" (actions left {s.actions_left})"
    lines = [head]
    lines.append(
        f"Tray: {counts_text(s.tray)} | deck {len(s.deck)} | discard {counts_text(s.discard)}"
    )
    if s.reshuffled:
        lines.append(
            f"Deck (rebuilt from the discards): {counts_text([s.deck.count(t) for t in range(NT)])}"
        )
    line = ", ".join(f"[{i}] {_tile(game, t)}" for i, t in enumerate(s.display))
    hidden = "/".join(str(len(st)) for st in s.stacks)
    lines.append(f"{'Stack tops' if game.classic else 'Line'}: {line} (hidden: {hidden})")
    if s.pending >= 0:
        where = "reserve" if s.box_from == FROM_RESERVE else f"line {s.box_from}"
        lines.append(
            f"Boxing {_tile(game, s.pending)} (from the {where}), still to pay {counts_text(s.to_pay)}"
        )
    for q in range(n):
        b = q * NT
        if player == q:
            hand = f"hand {counts_text(s.hand[b : b + NT])}"
        else:
            hand = f"known {counts_text(s.known[b : b + NT])} + {s.unknown[q]} unseen"
        extra = " First" if s.first == q else ""
        res = f" reserved {_tile(game, s.reserved[q])}" if s.reserved[q] >= 0 else ""
        lines.append(
            f"player_{q}: {hand}; wilds {s.wilds[q]}; {s.ntiles[q]} tiles "
            f"({s.points[q]} pts){res}{extra}"
        )
        if s.ntiles[q]:
            lines += ["   " + row for row in sampler_lines(s.cells[q * 36 : q * 36 + 36])]
    lines.append(LEGEND)
    return "\n".join(lines)


def _tile(game: ChocolatiersRules, tile: int) -> str:
    return "-" if tile < 0 else game.tile_text[tile]
