"""The fallback view of a game whose board is not drawn yet: the seat's text
(``state_to_string(state, seat)``, which by the game contract shows only what that seat
may see, and everything once the game is over) cut into blocks the page lays out as
panels: a title, then one block per unindented line (``label: text``) with the indented
lines under it (their common indentation removed, the rest kept: some are drawings). A block whose label is ``player_N`` is that seat's panel.

It reads no field of the game's state, so it keeps working while a game's rules change.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

PLAYER_LABEL = re.compile(r"^player_(\d+)\b")


def blocks(text: str) -> tuple[str, list[dict[str, Any]]]:
    """(title, blocks) of a seat's text."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "", []
    out: list[dict[str, Any]] = []
    for line in lines[1:]:
        if line[:1].isspace() and out:
            out[-1]["lines"].append(line)
            continue
        label, sep, rest = line.partition(":")
        if not sep or len(label) > 40:
            label, rest = "", line
        block: dict[str, Any] = {"label": label.strip(), "text": rest.strip(), "lines": []}
        match = PLAYER_LABEL.match(block["label"])
        if match:
            block["seat"] = int(match.group(1))
        out.append(block)
    for block in out:
        block["lines"] = textwrap.dedent("\n".join(block["lines"])).splitlines()
    return lines[0], out


def view(game: Any, state: Any, seat: int | None) -> dict[str, Any]:
    text = game.state_to_string(state, seat)
    title, parts = blocks(text)
    over = bool(game.is_over(state))
    to_act = None if over else int(game.current_player(state))
    return {
        "board": "text",
        "env_id": game.spec.env_id,
        "name": game.spec.name,
        "viewer": seat,
        "num_players": game.num_players,
        "over": over,
        "to_act": to_act,
        "title": title,
        "blocks": parts,
        "text": text,
    }


def target(game: Any, state: Any, action: int) -> dict[str, Any] | None:
    """Not drawn: every move is made from the move list."""
    return None
