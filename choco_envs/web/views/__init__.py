"""What the page shows of a game: one module per game, each with

* ``view(game, state, seat: int | None) -> dict``: JSON-ready, built only from what
  ``seat`` may see (None: a spectator, public information only; once the game is over,
  everything). The server sends a seat this, never the state.
* ``target(game, state, action) -> dict | None``: where a legal move of the seat to act is
  made on the drawn board (None: only in the move list).

A game without its own module (or whose board is not drawn yet) gets :mod:`.text`: its
seat's ``state_to_string`` cut into labelled blocks, which relies on the game's contract
that the text shows only what the seat may see.

The module is found from the game's folder (``choco_envs.games.<folder>``), so a new
version of a game keeps its view. These functions are meant to move into each game's
``render.py``; nothing else in the package imports them.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

#: game folder -> module with view() and target()
VIEW_MODULES: dict[str, str] = {
    "chocolates": "choco_envs.web.views.chocolates",
    "le_chocolat": "choco_envs.web.views.le_chocolat",
    "chocolatiers": "choco_envs.web.views.chocolatiers",
    "chocolate_factory": "choco_envs.web.views.chocolate_factory",
}
FALLBACK = "choco_envs.web.views.text"


def game_folder(game: Any) -> str:
    """``chocolates`` for a game whose class lives in ``choco_envs.games.chocolates``."""
    parts = type(game).__module__.split(".")
    if len(parts) >= 3 and parts[:2] == ["choco_envs", "games"]:
        return parts[2]
    return ""


_MODULES: dict[type, ModuleType] = {}


def view_module(game: Any) -> ModuleType:
    """The view module of ``game``'s class (looked up once per class)."""
    cls = type(game)
    module = _MODULES.get(cls)
    if module is None:
        module = importlib.import_module(VIEW_MODULES.get(game_folder(game), FALLBACK))
        _MODULES[cls] = module
    return module


def view(game: Any, state: Any, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see of ``state``."""
    out: dict[str, Any] = view_module(game).view(game, state, seat)
    return out


def target(game: Any, state: Any, action: int) -> dict[str, Any] | None:
    """Where ``action`` (legal for the seat to act) is made on the board, if drawn."""
    out: dict[str, Any] | None = view_module(game).target(game, state, action)
    return out


def final_scores(game: Any, state: Any) -> dict[str, Any] | None:
    """Scores, their breakdown and the ranking once the game is over (else None)."""
    if not game.is_over(state):
        return None
    keys = [game.ranking_key(state, p) for p in range(game.num_players)]
    places = [1 + sum(1 for k in keys if k > mine) for mine in keys]
    return {
        "scores": [float(v) for v in game.scores(state)],
        "breakdown": {k: [float(v) for v in vs] for k, vs in game.score_breakdown(state).items()},
        "places": places,
    }
