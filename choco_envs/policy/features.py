"""Feature functions: extra policy inputs computed from a seat's own observation.

An env's observation is game information (``flat``, and ``planes`` where a board
exists). A policy may read more than the raw observation: *facts* derived from it, such
as counts, what is affordable, or a probability given the visible information. Never a
bot's choice, evaluation or search: those would make the network the bot again.

A :class:`~choco_envs.core.features.FeatureFunction` is named and versioned (see
:mod:`choco_envs.core.features`). ``field_totals`` applies to every env; a game's own
functions live in its package and are listed in its manifest (``features``).

:class:`PolicyInputs` is what every caller uses (the trainer, imitation, evaluation and
the policy bot): the observation flattened, then the feature function's inputs. A
checkpoint stores the feature function's name, version and size (``features`` in its
metadata); loading refuses (CheckpointError) a file whose feature function is not
installed, or is installed at another version or size: change a function's output,
bump its version.

:func:`installed` lists every function: :data:`FEATURES` (``field_totals``, and those
made outside the package, a test or a plug-in, added with :func:`register`), then every
game's manifest's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from choco_envs.core.errors import CheckpointError, ConfigError
from choco_envs.core.features import FeatureFunction, Features
from choco_envs.core.game import Game

__all__ = [
    "FEATURES",
    "FeatureFunction",
    "Features",
    "PolicyInputs",
    "check_features",
    "feature_function",
    "installed",
    "register",
]


# ---------------------------------------------------------------- the functions
def _field_totals(game: Game[Any], encoder: str) -> Features:
    """Per layout field, the sum of its values (for planes, of each channel's cells)."""
    enc = game.encoder(encoder)
    fields = enc.layout.fields
    if not fields:
        raise ConfigError(f"field_totals: {game.spec.env_id}'s {encoder!r} declares no fields")
    starts = np.array([f.start for f in fields])

    def compute(obs: np.ndarray) -> np.ndarray:
        per_entry = obs.reshape(obs.shape[0], obs.shape[1], -1).sum(axis=2)
        return np.add.reduceat(per_entry, starts, axis=1).astype(np.float32)

    return Features(len(fields), compute)


FIELD_TOTALS = FeatureFunction(
    "field_totals",
    1,
    "for each field of the observation's layout, the sum of its entries (planes: of "
    "every cell of its channels): counts such as cards held or tiles placed, handed "
    "to the network ready-made",
    _field_totals,
)

#: the functions that apply to every env, and those registered at run time (a game's own
#: are in its manifest)
FEATURES: dict[str, FeatureFunction] = {FIELD_TOTALS.name: FIELD_TOTALS}


def installed() -> dict[str, FeatureFunction]:
    """Every feature function by name: :data:`FEATURES`, then each game's manifest's."""
    from choco_envs.registry import manifests

    out = dict(FEATURES)
    for found in manifests():
        for function in found.features:
            out.setdefault(function.name, function)
    return out


def register(function: FeatureFunction) -> None:
    """Add a feature function made outside the package (refused if the name is taken by
    another function)."""
    known = installed().get(function.name)
    if known is not None and known is not function:
        raise ConfigError(f"feature function {function.name!r} is already registered")
    FEATURES[function.name] = function


def feature_function(name: str) -> FeatureFunction:
    """The registered function ``name``; ConfigError naming the registered ones."""
    functions = installed()
    if name not in functions:
        raise ConfigError(
            f"unknown feature function {name!r}; allowed: '' (none), "
            + ", ".join(map(repr, functions))
        )
    return functions[name]


# ---------------------------------------------------------------- policy inputs
class PolicyInputs:
    """What a policy network reads for ``game`` with observation ``encoder`` and feature
    function ``feature`` ('' for none): the observation flattened, then the features.

    With ``max_players`` (a policy for every player count), the observation and the
    features are laid onto the input of that many seats and the seats at the table are
    marked (and with ``mode_marks``, the table's value of each of those rule options) (:mod:`choco_envs.policy.seats`): ``obs_shape`` and ``extra`` are then those of
    the largest table, and ``encoder_shape`` is what this game's encoder gives."""

    def __init__(
        self,
        game: Any,
        encoder: str,
        feature: str = "",
        max_players: int = 0,
        mode_marks: dict[str, list[Any]] | None = None,
    ) -> None:
        self.encoder_name = encoder
        self.encoder = game.encoder(encoder)
        self.encoder_shape = tuple(self.encoder.shape)
        self.obs_shape = self.encoder_shape
        self.obs_size = int(np.prod(self.obs_shape))
        self.function = feature_function(feature) if feature else None
        self.features = None if self.function is None else self.function.build(game, encoder)
        self.extra = 0 if self.features is None else int(self.features.size)
        self.feature_size = self.extra
        self.padding = None
        if max_players:
            from choco_envs.policy.seats import SeatPadding

            self.padding = SeatPadding(game, encoder, self, max_players, mode_marks)
            self.obs_shape = self.padding.obs_shape
            self.obs_size = self.padding.obs_size
            self.feature_size = self.padding.extra_size
            self.extra = self.padding.extra
        self.size = self.obs_size + self.extra

    def action_facts(self, width: int) -> tuple[int, ...]:
        """``NetConfig.action_facts`` for a head of ``width`` over the feature function's
        per-action facts (``Features.action_facts``), placed where this input holds them
        (the largest table's block with seat padding); ConfigError where it declares none."""
        name = self.function.name if self.function is not None else ""
        declared = () if self.features is None else self.features.action_facts
        if not declared or self.features is None or self.features.layout is None:
            raise ConfigError(
                f"action_head needs a feature function with per-action facts; {name!r} "
                "declares none"
            )
        layout = self.features.layout
        if self.padding is not None:
            assert self.function is not None
            large = self.function.build(self.padding.large_game, self.encoder_name).layout
            assert large is not None
            layout = large
        fields = {f.name: f for f in layout.fields}
        out: list[int] = []
        for first, count, field_name in declared:
            found = fields[field_name]
            if found.size % count:
                raise ConfigError(f"{name}: field {field_name!r} is not {count} equal blocks")
            out += [first, count, self.obs_size + found.start, found.size // count, width]
        return tuple(out)

    @classmethod
    def of_checkpoint(cls, game: Any, meta: dict[str, Any]) -> PolicyInputs:
        """The inputs a checkpoint (its metadata ``meta``, already checked) reads in
        ``game``: its encoder, its feature function and, for a policy of many table
        sizes, the seat-padded layout."""
        feature = (meta.get("features") or {}).get("name", "")
        seats = meta.get("seats") or {}
        marks = seats["modes"] if seats.get("mode_marks") else None
        return cls(game, meta["encoder"], feature, seats.get("max_players", 0), marks)

    def metadata(self) -> dict[str, Any] | None:
        """What a checkpoint stores of the feature function (None: none); with seat
        padding, its size is the largest table's."""
        return None if self.function is None else self.function.to_json(self.feature_size)

    def from_observations(self, obs: np.ndarray) -> np.ndarray:
        """(B, *encoder_shape) observations -> (B, size) float32 policy inputs."""
        obs = np.asarray(obs, dtype=np.float32)
        extra = None
        if self.features is not None:
            extra = np.asarray(self.features.compute(obs), dtype=np.float32)
            if extra.shape != (obs.shape[0], self.features.size):
                raise ValueError(
                    f"feature function {self.function.name!r} gave shape {extra.shape}, "  # type: ignore[union-attr]
                    f"not {(obs.shape[0], self.features.size)}"
                )
        if self.padding is not None:
            return self.padding.pad(obs, extra)
        flat = obs.reshape(obs.shape[0], self.obs_size)
        if extra is None:
            return flat
        return np.concatenate([flat, extra], axis=1)

    def encode(self, state: Any, player: int) -> np.ndarray:
        """The policy input of ``player`` in ``state`` (a (size,) float32 vector)."""
        return self.from_observations(self.encoder.encode(state, player)[None])[0]


def check_features(stored: Any, game: Any, encoder: str, where: str) -> str:
    """The feature function's name that a checkpoint's ``features`` metadata names ('' for
    none), refused (CheckpointError) unless the same version is installed and gives the
    same number of inputs for ``game`` and ``encoder``."""
    if stored is None:
        return ""
    if not isinstance(stored, dict) or set(stored) != {"name", "version", "size"}:
        raise CheckpointError(f"{where}: metadata 'features' is malformed: {stored!r:.120}")
    name, version = stored["name"], stored["version"]
    functions = installed()
    function = functions.get(name) if isinstance(name, str) else None
    if function is None:
        raise CheckpointError(
            f"{where} reads feature function {name!r}, which is not installed; installed: "
            + (", ".join(map(repr, functions)) or "none")
        )
    if function.version != version:
        raise CheckpointError(
            f"{where} was trained with feature function {name!r} version {version!r}; the "
            f"installed one is version {function.version}: retrain it"
        )
    try:
        size = function.build(game, encoder).size
    except ConfigError as err:
        raise CheckpointError(f"{where}: feature function {name!r}: {err}") from err
    if size != stored["size"]:
        raise CheckpointError(
            f"{where} expects {stored['size']!r} inputs from feature function {name!r}; it "
            f"now gives {size} for this env: retrain it"
        )
    return name
