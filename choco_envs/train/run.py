"""The one run description that every engine of ``choco train`` reads.

    choco train --engine ppo   --config configs/chocolates_v0/ppo.yaml
    choco train --engine az    --config configs/chocolates_v0/az.yaml
    choco train --engine rllib --config configs/chocolates_v0/rllib.yaml

:class:`RunSpec` holds the settings common to every engine: the env and its tables, what
the network reads and its shape, the budget, the learning rate, the league, the
evaluations and the outputs. Each engine's ``Args`` extends it with its own fields only
(``choco_envs.train.ppo.Args``, ``choco_envs.train.az.Args``,
``choco_envs.integrations.rllib.args.Args``), so a setting has one name, one default and
one docstring (its flag's help) everywhere. :class:`PPOLoss` adds the PPO loss settings
that the two PPO engines (``ppo``, ``rllib``) share.

A shared setting an engine does not read (``ENGINE``'s ``NOT_READ``) is refused when it
differs from its default, in one line naming what that engine reads instead. The names
the RLlib trainer used before (``RENAMED``: ``lr``, ``num_epochs``, ...) are refused in a
config or a flag, in one line naming the new name. Configs and flags are read by
``choco_envs.train.config`` for every engine.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

from choco_envs.core.errors import ConfigError

#: old setting names (the RLlib trainer's) -> the one name every engine uses
RENAMED: dict[str, str] = {
    "lr": "learning_rate",
    "num_epochs": "update_epochs",
    "clip_param": "clip_coef",
    "entropy_coeff": "ent_coef",
    "vf_loss_coeff": "vf_coef",
    "grad_clip": "max_grad_norm",
}


@dataclass
class RunSpec:
    # ------------------------------------------------------------ the game and its tables
    env_id: str = "chocolates_v0"
    """the env to train on (see `choco list`)"""
    options: dict[str, Any] = field(default_factory=lambda: {"num_players": 2})
    """game options (num_players and rule options, e.g. edition)"""
    player_counts: tuple[int, ...] = ()
    """one network for all these player counts (the seat-padded input of the largest,
    choco_envs.policy.seats; env i plays table i % tables); () for options' count only"""
    modes: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    """rule options drawn with the counts, every combination a table of its own (e.g.
    {length: [short, long]}); the file then plays each of them"""
    table_weights: dict[str, dict[Any, int]] = field(default_factory=dict)
    """how many games play each table, relative to 1 (e.g. {length: {long: 3},
    num_players: {6: 2}}: a table's share is the product of its values' weights); keys
    are num_players and the modes' names, values theirs"""
    mark_modes: bool = True
    """with modes: the network's input also marks each mode's value at the table (the
    rules are public; an observation may state them only relatively)"""
    # ------------------------------------------------------------ what the network reads, its shape
    encoder: str = "flat"
    """observation the network reads: flat, or planes (with conv_channels)"""
    feature: str = ""
    """feature function whose inputs the network also reads ('' for none;
    choco_envs.policy.features.FEATURES)"""
    hidden: tuple[int, ...] = (256, 256)
    """sizes of the MLP hidden layers"""
    conv_channels: tuple[int, ...] = ()
    """channels of 3x3 conv layers before the MLP (planes encoder only)"""
    board_actions: bool = False
    """also score actions with a 1x1 conv over the last conv layer, at the board
    positions the encoder's action planes give them (planes, conv_channels; Le Chocolat)"""
    action_head: int = 0
    """width of a head that scores each action from facts of its own, shared by those
    actions (a feature function that declares per-action facts, e.g.
    chocolatiers_takes; 0: none)"""
    action_head_only: bool = False
    """the per-action facts go to that head only, not into the shared torso (for facts of
    hundreds of actions, e.g. le_chocolat_pieces)"""
    action_head_context: bool = False
    """that head also reads the torso's last hidden layer, so each action's facts are
    weighed against the whole position (it starts at 0: a file widened into it plays as
    before)"""
    action_head_pool: bool = False
    """that head also reads what the legal actions offer together (the best of each of its
    first layer's units over them: e.g. the best claim on the table), into every action's
    score and the values (it starts at 0: a file widened into it plays as before)"""
    # ------------------------------------------------------------ budget and learning
    seed: int = 1
    """seed of the games, the league, the search and torch"""
    total_timesteps: int = 500_000
    """env steps to collect (ppo: every seat's and bot's moves counted, 0: no PPO after
    an imitation warm start; rllib: RLlib's sampled steps)"""
    max_minutes: float = 0.0
    """stop training after this many minutes, whatever the other budgets say (0: no
    limit)"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    update_epochs: int = 4
    """epochs over each rollout (rllib: over each train batch)"""
    # ------------------------------------------------------------ opponents: the league
    league_self_play: float = 0.6
    """probability that a non-learner seat is also played (and trained) by the learner"""
    league_past: float = 0.2
    """probability that a non-learner seat is a past snapshot of the learner"""
    league_bots: dict[str, float] = field(default_factory=lambda: {"random": 0.5, "greedy": 0.5})
    """bot specs for the remaining seats, with their relative weights"""
    pool_size: int = 10
    """past snapshots kept in the league pool"""
    # ------------------------------------------------------------ evaluation
    eval_every: int = 25
    """updates (rllib: iterations) between evaluations against random and greedy (0:
    only at the end)"""
    eval_games: int = 100
    """games per opponent in periodic evaluations (and after each imitation round)"""
    final_eval_games: int = 400
    """games per opponent in the final evaluation stored in the checkpoint (choco ship
    needs >= 400; 0: none)"""
    # ------------------------------------------------------------ start and outputs
    init_from: str = ""
    """a policy file whose weights start the network ('' for none); a file of one table
    size starts a seat-padded network too (its first layer placed at the padded inputs)"""
    resume: str = ""
    """checkpoint to continue from (weights and step count; total_timesteps counts its
    steps too; the optimizer and the league pool start afresh; az: a run folder or its
    latest.safetensors, the optimizer too)"""
    run_name: str = ""
    """name of the run's folder under runs_dir (default: <env_id>__<engine>__<seed>)"""
    runs_dir: str = "runs"
    """folder of the runs' folders"""
    save_path: str = ""
    """final checkpoint, a .safetensors path outside checkpoints/ (default:
    <runs_dir>/<run_name>/final.safetensors)"""
    track: bool = True
    """write TensorBoard scalars to the run's folder"""
    progress: bool = True
    """show progress (ppo: bars of imitation, PPO steps and evaluations; az and rllib: a
    line per iteration)"""
    torch_threads: int = 1
    """torch CPU threads"""

    #: the engine these Args run (``choco train --engine``)
    ENGINE: ClassVar[str] = ""
    #: the run folder's default name is ``<env_id>__<RUN_TAG>__<seed>``
    RUN_TAG: ClassVar[str] = ""
    #: shared settings this engine does not read -> what it reads instead (refused when
    #: not at their default)
    NOT_READ: ClassVar[dict[str, str]] = {}
    #: old names, refused by the loader with the new name
    RENAMED: ClassVar[dict[str, str]] = RENAMED

    # ------------------------------------------------------------ checks
    def shared_rules(self) -> list[tuple[str, bool, str]]:
        """(field, ok, what is allowed) of the shared settings."""
        return [
            ("player_counts", all(1 <= n <= 12 for n in self.player_counts), "counts 1..12"),
            (
                "modes",
                all(isinstance(v, tuple) and v for v in self.modes.values()),
                "a list of values per option",
            ),  # fmt: skip
            (
                "table_weights",
                set(self.table_weights) <= {"num_players", *self.modes}
                and all(
                    {str(v) for v in ws} <= {str(v) for v in self._table_values(key)}
                    for key, ws in self.table_weights.items()
                )
                and all(
                    isinstance(w, int) and 1 <= w <= 100
                    for ws in self.table_weights.values()
                    for w in ws.values()
                ),
                "keys num_players or a mode's name, each value one its tables play, "
                "weights integers 1..100",
            ),  # fmt: skip
            ("hidden", all(1 <= h <= 8192 for h in self.hidden), "sizes in 1..8192"),
            ("hidden", len(self.hidden) <= 8, "at most 8 layers"),
            ("conv_channels", all(1 <= c <= 1024 for c in self.conv_channels), "1..1024"),
            ("conv_channels", len(self.conv_channels) <= 8, "at most 8 layers"),
            (
                "board_actions",
                not self.board_actions or bool(self.conv_channels),
                "true only with conv_channels",
            ),  # fmt: skip
            ("action_head", 0 <= self.action_head <= 8192, "0..8192"),
            (
                "action_head_only",
                not self.action_head_only or self.action_head > 0,
                "true only with action_head > 0",
            ),
            (
                "action_head_context",
                not self.action_head_context or self.action_head > 0,
                "true only with action_head > 0",
            ),
            (
                "action_head_pool",
                not self.action_head_pool or self.action_head > 0,
                "true only with action_head > 0",
            ),
            ("total_timesteps", self.total_timesteps >= 0, ">= 0"),
            ("max_minutes", self.max_minutes >= 0, ">= 0"),
            ("learning_rate", 0 < self.learning_rate <= 1, "in (0, 1]"),
            ("update_epochs", 1 <= self.update_epochs <= 1000, "1..1000"),
            ("league_self_play", 0 <= self.league_self_play <= 1, "in [0, 1]"),
            ("league_past", 0 <= self.league_past <= 1, "in [0, 1]"),
            (
                "league_past",
                self.league_self_play + self.league_past <= 1 + 1e-9,
                "at most 1 - league_self_play",
            ),  # fmt: skip
            ("league_bots", all(w >= 0 for w in self.league_bots.values()), "weights >= 0"),
            ("pool_size", 1 <= self.pool_size <= 1000, "1..1000"),
            ("eval_every", self.eval_every >= 0, ">= 0"),
            ("eval_games", 1 <= self.eval_games <= 100_000, "1..100000"),
            ("final_eval_games", 0 <= self.final_eval_games <= 100_000, "0..100000"),
            ("torch_threads", 1 <= self.torch_threads <= 256, "1..256"),
            (
                "run_name",
                "/" not in self.run_name and self.run_name not in (".", ".."),
                "a folder name (no '/')",
            ),  # fmt: skip
            (
                "save_path",
                not self.save_path or self.save_path.endswith(".safetensors"),
                "'' or a path ending in '.safetensors'",
            ),  # fmt: skip
        ]

    def engine_rules(self) -> list[tuple[str, bool, str]]:
        """(field, ok, what is allowed) of the engine's own settings (its Args add them)."""
        return []

    def check(self) -> None:
        """ConfigError naming the first setting out of range, or a shared setting this
        engine does not read set to another value than its default (no env is built)."""
        defaults = type(self)()  # type: ignore[call-arg]
        for name, instead in self.NOT_READ.items():
            value = getattr(self, name)
            if value != getattr(defaults, name):
                raise ConfigError(
                    f"{name}={value!r} is not allowed: the {self.ENGINE} engine does not read "
                    f"{name} ({instead}); allowed: its default {getattr(defaults, name)!r}"
                )
        for name, ok, allowed in [*self.shared_rules(), *self.engine_rules()]:
            if not ok:
                value = getattr(self, name)
                raise ConfigError(f"{name}={value!r} is not allowed; allowed: {allowed}")

    def check_outside_shipped(self, *paths: Path) -> None:
        """ConfigError when one of ``paths`` lies inside the shipped checkpoints folder
        (``choco ship`` is the only way in)."""
        from choco_envs.policy.checkpoint import checkpoint_dir

        shipped = checkpoint_dir()
        for path in paths:
            if shipped is not None and path.resolve().is_relative_to(shipped.resolve()):
                raise ConfigError(
                    f"{str(path)!r} is inside the shipped checkpoints folder {str(shipped)!r}; "
                    "a run writes under runs_dir, and `choco ship FILE` puts a file there"
                )

    # ------------------------------------------------------------ derived
    @property
    def run_dir(self) -> Path:
        """The run's folder: ``runs_dir/run_name`` (default name
        ``<env_id>__<engine>__<seed>``)."""
        tag = self.RUN_TAG or self.ENGINE
        return Path(self.runs_dir) / (self.run_name or f"{self.env_id}__{tag}__{self.seed}")

    @property
    def final_path(self) -> Path:
        """The final checkpoint: ``save_path``, else ``run_dir/final.safetensors``."""
        return Path(self.save_path) if self.save_path else self.run_dir / "final.safetensors"

    @property
    def max_players(self) -> int:
        """The seat-padded input's table size (0: one table size, no padding)."""
        return max(self.player_counts) if self.player_counts or self.modes else 0

    def tables(self) -> list[dict[str, Any]]:
        """The game options of every table the run plays: each player count with each
        combination of modes (just ``options`` without either)."""
        if not self.max_players:
            return [dict(self.options)]
        counts = self.player_counts or (self.options.get("num_players", 2),)
        keys = list(self.modes)
        out = []
        for n in counts:
            for combo in itertools.product(*(self.modes[k] for k in keys)):
                out.append(
                    {**self.options, "num_players": n, **dict(zip(keys, combo, strict=True))}
                )
        return out

    @property
    def mode_marks(self) -> dict[str, list[Any]] | None:
        """The modes the input marks (None: none)."""
        if not (self.mark_modes and self.modes):
            return None
        return {k: list(v) for k, v in self.modes.items()}

    def _table_values(self, key: str) -> tuple[Any, ...]:
        if key == "num_players":
            return self.player_counts or (self.options.get("num_players", 2),)
        return self.modes.get(key, ())

    def other_tables(self) -> list[dict[str, Any]]:
        """One table of each player count the run plays other than the options' own, at
        the options' modes (what a final evaluation adds as ``arena_tables``); [] for a
        run of one table size."""
        counts = {t["num_players"] for t in self.tables()} if self.max_players else set()
        here = self.options.get("num_players", 2)
        return [{**self.options, "num_players": n} for n in sorted(counts - {here})]

    def env_tables(self) -> list[dict[str, Any]]:
        """The tables the games play, each repeated by its ``table_weights`` (game ``i``
        plays entry ``i % len``); every table at least once."""
        out = []
        for table in self.tables():
            weight = 1
            for key, weights in self.table_weights.items():
                by_text = {str(k): w for k, w in weights.items()}
                weight *= by_text.get(str(table.get(key)), 1)
            out.extend([table] * weight)
        return out


@dataclass
class PPOLoss(RunSpec):
    """The PPO loss settings of the two PPO engines (``ppo`` and ``rllib``)."""

    gamma: float = 1.0
    """discount factor (rewards come only at the end of a game)"""
    gae_lambda: float = 0.95
    """lambda of generalized advantage estimation"""
    clip_coef: float = 0.2
    """PPO clipping coefficient"""
    ent_coef: float = 0.01
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping (global norm)"""

    def shared_rules(self) -> list[tuple[str, bool, str]]:
        return [
            *super().shared_rules(),
            ("gamma", 0 < self.gamma <= 1, "in (0, 1]"),
            ("gae_lambda", 0 <= self.gae_lambda <= 1, "in [0, 1]"),
            ("clip_coef", self.clip_coef > 0, "> 0"),
            ("ent_coef", self.ent_coef >= 0, ">= 0"),
            ("vf_coef", self.vf_coef >= 0, ">= 0"),
            ("max_grad_norm", self.max_grad_norm > 0, "> 0"),
        ]


def shared_fields() -> list[str]:
    """The names of RunSpec's settings, in order."""
    return [f.name for f in fields(RunSpec)]
