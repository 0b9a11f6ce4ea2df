"""What the page shows of a game: each game's render module (``choco_envs.games.<game>.
render``) has

* ``view(game, state, seat: int | None) -> dict``: JSON-ready, built only from what
  ``seat`` may see (None: a spectator, public information only; once the game is over,
  everything). The server sends a seat this, never the state.
* ``target(game, state, action) -> dict | None``: where a legal move of the seat to act is
  made on the drawn board (None: only in the move list).

A game whose render module has no ``view`` has its drawn view here, in a module of this
package named as the game's package (``chocolatiers``, ``chocolate_factory``), with the
same two functions. A game with neither (its board is not drawn) gets :mod:`.text`: its
seat's ``state_to_string`` cut into labelled blocks, which relies on the game's contract
that the text shows only what the seat may see.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

from choco_envs.web.views import text


def view_module(game: Any) -> ModuleType:
    """The render module of ``game``'s package when it draws a view, else this package's
    module of that game, else the text one."""
    package = sys.modules[type(game).__module__].__package__ or ""
    for name in (f"{package}.render", f"{__name__}.{package.rpartition('.')[2]}"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        if callable(getattr(module, "view", None)):
            return module
    return text


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
