"""Text view of a Chocolatiers game, showing only what one seat (or a spectator) may see."""

from __future__ import annotations

from typing import TYPE_CHECKING

from choco_envs.games.chocolatiers.components import TYPE_LETTERS, TYPES

if TYPE_CHECKING:
    from choco_envs.games.chocolatiers.rules import ChocolatiersGame, State

NT = len(TYPES)


def counts_text(counts: list[int]) -> str:
    """``T2 N0 R1 M0 B0 V3``."""
    return " ".join(f"{TYPE_LETTERS[t]}{c}" for t, c in enumerate(counts))


def sampler_lines(cells: list[int]) -> list[str]:
    """The 6x6 grid, letters for chocolates, * wilds, . empty spaces, blank without tile."""
    from choco_envs.games.chocolatiers.rules import cell_letter

    return ["|" + "".join(cell_letter(v) for v in cells[r * 6 : r * 6 + 6]) + "|" for r in range(6)]


def render_state(game: ChocolatiersGame, s: State, player: int | None) -> str:
    """What ``player`` may see: own hand in full, the others' known cards and unknown
    count, everything face up. ``None``: a spectator's view."""
    from choco_envs.games.chocolatiers.rules import PHASE_NAMES

    n = game.num_players
    head = f"Chocolatiers ({game.edition}), round {s.turn // n + 1}/40"
    if s.over:
        head += ", game over"
    else:
        head += f", player_{s.player} to act: {PHASE_NAMES[s.phase]}"
        head += f" (actions left {s.actions_left})"
    lines = [head]
    lines.append(
        f"Tray: {counts_text(s.tray)} | deck {len(s.deck)} | discard {counts_text(s.discard)}"
    )
    line = ", ".join(f"[{i}] {_tile(game, t)}" for i, t in enumerate(s.display))
    hidden = "/".join(str(len(st)) for st in s.stacks)
    lines.append(f"{'Stack tops' if game.classic else 'Line'}: {line} (hidden: {hidden})")
    if s.pending >= 0:
        lines.append(f"Boxing {_tile(game, s.pending)}, still to pay {counts_text(s.to_pay)}")
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
    return "\n".join(lines)


def _tile(game: ChocolatiersGame, tile: int) -> str:
    return "-" if tile < 0 else game.tile_text[tile]
