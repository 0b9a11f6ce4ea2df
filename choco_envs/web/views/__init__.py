"""What the page shows of a game: the module its manifest names as ``view`` (the contract,
:class:`~choco_envs.core.game.GameView`, is declared in ``choco_envs.core.game``).

A game whose manifest names no view but has a drawn view in this package, in a module named
as the game's package (``chocolatiers``, ``chocolate_factory``; the same two functions),
gets that one. A game with neither (its board is not drawn) gets :mod:`.text`: its seat's
``state_to_string`` cut into labelled blocks, which relies on the game's contract that the
text shows only what the seat may see.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from choco_envs.core.game import GameView
from choco_envs.core.outcomes import places
from choco_envs.registry import REGISTRY, manifest
from choco_envs.web.views import text


def view_module(game: Any) -> GameView:
    """The view ``game``'s manifest names, else this package's module of that game, else
    the text one (also for a game made outside the registry)."""
    env_id = game.spec.env_id
    found = manifest(env_id).view if env_id in REGISTRY else None
    if found is not None:
        return found
    package = sys.modules[type(game).__module__].__package__ or ""
    try:
        module = importlib.import_module(f"{__name__}.{package.rpartition('.')[2]}")
    except ModuleNotFoundError:
        return text
    return module if callable(getattr(module, "view", None)) else text  # type: ignore[return-value]


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
    keys = game.ranking_keys(state)
    return {
        "scores": [float(v) for v in game.scores(state)],
        "breakdown": {k: [float(v) for v in vs] for k, vs in game.score_breakdown(state).items()},
        "places": [1 + place for place in places(keys)],
    }
