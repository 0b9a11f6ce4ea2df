"""What a game is, in one object: each game package's ``MANIFEST``.

Every part of the project that needs to know the games reads the manifests, found through
the registry (:mod:`choco_envs.registry`, one line per game): the env functions, the bots,
the policy's feature functions, ``choco bench``, the web app and its load test, and the
docs' tests. A game package follows one template::

    choco_envs/games/<game>/
        __init__.py     the Game class (rules + encoders + records + text) and MANIFEST
        components.py   the printed components, as data
        rules.py        the rules (imports only core and components)
        encoding.py     the observation encoders and the action table
        records.py      state_to_json / state_from_json (strict loader)
        render.py       the text (HELP, state_to_string) and, if drawn, the web view
        features.py     (optional) feature functions read from its observations

and ``tests/conformance/test_manifest.py`` fails when one misses a part. The game's bots
live outside it (games import only ``core``): the manifest names their module by dotted
string, imported when a bot is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from choco_envs.core.features import FeatureFunction
from choco_envs.core.game import Game, GameView
from choco_envs.core.spec import GameSpec


class RecordCodec(Protocol):
    """A game's ``records`` module: the state as JSON and its strict loader."""

    def state_to_json(self, game: Any, s: Any) -> dict[str, Any]: ...

    def state_from_json(self, game: Any, d: Any) -> Any: ...


class TextView(Protocol):
    """A game's ``render`` module, text part: ``HELP`` (the codes' legend) and what a seat
    may see as text."""

    HELP: str

    def state_to_string(
        self, game: Any, s: Any, player: int | None, ended: str | None = None
    ) -> str: ...


@dataclass(frozen=True)
class BenchCase:
    """A configuration ``choco bench`` measures, with its budgets: random AEC play at least
    ``aec`` x PettingZoo's connect_four_v3 steps/s measured in the same run, raw rules
    playouts at least ``raw`` x."""

    options: Mapping[str, Any]
    aec: float
    raw: float


@dataclass(frozen=True)
class GameManifest:
    """One game, declared once.

    ``game``: the Game class (its ``spec`` gives the env id, version, players and options);
    ``encoders``: the names of the observation encoders every configuration has;
    ``bots``: the dotted name of the module whose ``BOTS`` lists the game's own bot kinds
    (``greedy`` among them), imported only when a bot is made;
    ``records``: the module with ``state_to_json`` / ``state_from_json``;
    ``text``: the module with ``HELP`` and ``state_to_string``;
    ``view``: the module the web page draws from (:class:`GameView`), None for text only;
    ``features``: the game's own feature functions (policy inputs);
    ``bench``: the configurations ``choco bench`` measures, with their budgets;
    ``page``: the game's page, relative to the repository root;
    ``search_c_scale``: how much the ``az`` bot's search weighs its values against the
    network's priors when a PPO network (one value output) guides it (``c_scale`` of
    ``choco_envs.policy.search.SearchConfig``; measured per game, the game's page says how);
    ``search_simulations``: the ``az`` bot's default budget with a PPO network (a
    search-and-learn file stores its own), chosen per game within the 1 s a move budget.

    Every game of this package fills every part but ``view`` and ``features`` (the
    template test checks it); a game made outside it (a test, a plug-in) may leave
    ``records``, ``text`` and ``page`` out when its Game class writes them itself.
    """

    game: type[Game[Any]]
    encoders: tuple[str, ...]
    bots: str
    records: RecordCodec | None = None
    text: TextView | None = None
    view: GameView | None = None
    page: str = ""
    features: tuple[FeatureFunction, ...] = ()
    bench: tuple[BenchCase, ...] = field(default_factory=tuple)
    search_c_scale: float = 0.1
    search_simulations: int = 64

    @property
    def spec(self) -> GameSpec:
        return self.game.spec

    @property
    def env_id(self) -> str:
        return self.game.spec.env_id

    @property
    def version(self) -> int:
        return self.game.spec.version
