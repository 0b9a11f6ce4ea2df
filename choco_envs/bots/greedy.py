"""The greedy bot: each game's beginner heuristic (``<game package>.greedy``).

A game ships ``greedy_action(game, state, rng) -> int`` in the ``greedy`` module of the
package that defines its Game class. The bot hands it a *determinized* state (hidden
information resampled from the seat's view), never the true one.

A game may also declare settings of its heuristic: ``OPTIONS`` in that module maps a
keyword argument of ``greedy_action`` to ``(parse, doc)``, where ``parse(text)`` returns
the value or raises ValueError saying what is allowed; ``check_settings(settings)``, if
the module has one, refuses settings that do not go together (ValueError). They are
given in the bot spec, ``greedy:key=value,...`` (``choco_envs.bots.make``); without them the bot is the game's
baseline ``greedy``.
"""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Callable
from typing import Any

from choco_envs.bots.base import AgentView, Bot
from choco_envs.core.errors import ConfigError

GreedyFunction = Callable[[Any, Any, random.Random], int]


def game_package(game_cls: type) -> str:
    """The package that holds ``game_cls`` (the module itself when it is a package)."""
    module = sys.modules[game_cls.__module__]
    if hasattr(module, "__path__"):
        return module.__name__
    return module.__package__ or ""


_GREEDY_BY_GAME: dict[type, GreedyFunction] = {}


def greedy_function(game_cls: type) -> GreedyFunction:
    """``greedy_action`` of the game's package; ConfigError if the game has none."""
    if game_cls not in _GREEDY_BY_GAME:
        _GREEDY_BY_GAME[game_cls] = _load_greedy(game_cls)
    return _GREEDY_BY_GAME[game_cls]


def greedy_options(game_cls: type) -> dict[str, tuple[Callable[[str], Any], str]]:
    """The settings a game's greedy heuristic declares (``OPTIONS``; empty if none)."""
    return dict(getattr(_greedy_module(game_cls), "OPTIONS", {}))


def greedy_settings_check(game_cls: type) -> Callable[[dict[str, Any]], None] | None:
    """The game's ``check_settings(settings)`` (raises ValueError for settings that do not
    go together), if its greedy module declares one."""
    check = getattr(_greedy_module(game_cls), "check_settings", None)
    return check if callable(check) else None


def _greedy_module(game_cls: type) -> Any:
    """The game's greedy module (ConfigError, as ``greedy_function``, if it has none)."""
    _load_greedy(game_cls)
    return importlib.import_module(_module_name(game_cls))


def _module_name(game_cls: type) -> str:
    package = game_package(game_cls)
    return f"{package}.greedy" if package else "greedy"


def _load_greedy(game_cls: type) -> GreedyFunction:
    package = game_package(game_cls)
    module_name = _module_name(game_cls)
    env_id = getattr(getattr(game_cls, "spec", None), "env_id", game_cls.__name__)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name not in (module_name, package):
            raise
        raise ConfigError(
            f"bot 'greedy' is not available for {env_id}: module {module_name!r} is missing"
        ) from err
    function = getattr(module, "greedy_action", None)
    if not callable(function):
        raise ConfigError(
            f"bot 'greedy' is not available for {env_id}: {module_name} has no greedy_action"
        )
    return function  # type: ignore[no-any-return]


def greedy_move(game: Any, state: Any, rng: random.Random) -> int:
    """The game's greedy action on a state that the caller may see in full."""
    return int(greedy_function(type(game))(game, state, rng))


class GreedyBot(Bot):
    """Plays the game's greedy heuristic on a determinization of its view; ``options``
    are settings the game's heuristic declares (checked by ``choco_envs.bots.make``)."""

    name = "greedy"

    def __init__(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().__init__(seed)
        self.options = dict(options or {})

    def act_view(self, view: AgentView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        state = view.determinize(self.rng)
        if self.options:
            action = int(
                greedy_function(type(view.game))(view.game, state, self.rng, **self.options)
            )
        else:
            action = greedy_move(view.game, state, self.rng)
        if not 0 <= action < len(view.mask) or not view.mask[action]:
            env_id = view.game.spec.env_id
            raise RuntimeError(
                f"greedy_action of {env_id} chose illegal action {action}; legal: {legal}"
            )
        return action
