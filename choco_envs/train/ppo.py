"""Masked PPO self-play for any choco_envs env and player count (CleanRL style).

    choco train --config configs/chocolates_v0/ppo.yaml
    choco train --config configs/chocolates_v0/ppo.yaml --total-timesteps 300000 --seed 2
    python -m choco_envs.train.ppo --env-id le_chocolat_v0 --encoder planes --conv-channels 32 32

**Per-seat trajectories** (:class:`SeatRollout`). Every network decision of a learner
seat is one transition of *that seat's* trajectory: its own policy input, mask, action,
log-prob and value. The transition that follows it is the same seat's next decision in
the same game, however many steps the other seats (or the seat itself, in a multi-step
turn) took in between. Rewards come only at the end: when a game ends, the last
transition of every learner seat gets that seat's own return and ``done``. A seat's last
transition whose successor is not known yet when a rollout ends is carried into the next
rollout (its advantage is computed once its successor exists), so nothing is guessed.

**League.** In every game one seat is the learner; each other seat is the learner too
(``league_self_play``), a frozen past snapshot (``league_past``), or a baseline bot drawn
by ``league_bots`` weight. Games run in this process (``num_workers: 0``) or in worker
processes (``choco_envs.train.games``).

**Policy input.** The network reads the ``encoder``'s observation (``flat`` or
``planes``), then the inputs of the feature function ``feature`` (none by default;
``choco_envs.policy.features``); the checkpoint records both.

**Budget.** ``total_timesteps`` counts env steps: every action applied to a game, the
learner's, past snapshots' and bots' alike (a resumed run counts the steps of the file it
resumes). The run stops at the first batch of moves (one per game, with the bot moves
that follow) that reaches it, learns from that last, shorter rollout, and stops: it ends
at most about ``num_envs`` x (1 + bot moves in a turn) steps past the budget, never a
whole rollout. ``max_minutes`` stops it in time the same way. The progress bar counts
these steps and stops at 100%.

**Outputs**, under ``runs_dir/run_name`` (default ``runs/<env_id>__ppo__<seed>``):
TensorBoard scalars (``charts/``, ``losses/``, ``eval/``, ``imitation/``), ``args.yaml``
(the run's Args as a config), ``imitation.safetensors`` (after an imitation warm start),
``latest.safetensors`` (each periodic evaluation), ``best.safetensors`` (``keep_best``),
and ``final.safetensors`` (or ``save_path``), whose metadata holds the final evaluation
against random and greedy (``final_eval_games`` games each). Nothing is written into the
shipped ``checkpoints/`` folder: ``choco ship`` does that.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import random
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from choco_envs.core.errors import ChocoError, ConfigError
from choco_envs.train.run import PPOLoss


@dataclass
class Args(PPOLoss):
    """The ``ppo`` engine's settings: the shared run description (``RunSpec``, with the
    PPO loss settings of ``PPOLoss``), then this trainer's own."""

    num_envs: int = 64
    """games played in parallel"""
    num_workers: int = 0
    """worker processes running the games (0: all games in this process)"""
    num_steps: int = 32
    """network decisions per game per rollout"""
    anneal_lr: bool = True
    """anneal the learning rate linearly to 0 over the step budget (or the time budget,
    whichever ends first)"""
    margin_coef: float = 0.0
    """reward shaping: add this times (own final score - best other score) to the rank
    return (evaluation always counts wins)"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    norm_adv: bool = True
    """normalize advantages per minibatch"""
    clip_vloss: bool = True
    """clip the value loss too"""
    target_kl: float | None = None
    """stop an update's epochs early above this approximate KL (None: never)"""
    action_head: int = 0
    """width of a head that scores each action from facts of its own, shared by those
    actions (a feature function that declares per-action facts, e.g.
    chocolatiers_takes; 0: none)"""
    action_head_only: bool = False
    """the per-action facts go to that head only, not into the shared torso (for facts of
    hundreds of actions, e.g. le_chocolat_pieces)"""
    league_whole_table: float = 0.0
    """probability that a game's other seats are all one bot drawn by league_bots weight
    (the arena's N-1 copies of a bot; at 4+ seats independent draws almost never are)"""
    pool_every: int = 10
    """updates between snapshots added to the pool (0: none)"""
    keep_best: bool = False
    """end with the weights of the periodic evaluation with the best weighted win rate
    (keep_best_weights), not the last update's; the final evaluation, on other deals,
    then measures them"""
    keep_best_weights: dict[str, float] = field(
        default_factory=lambda: {"random": 1.0, "greedy": 1.0}
    )
    """weights of the opponents' win rates in keep_best's mean (keys: random, greedy)"""
    imitate: str = ""
    """teacher bot spec for an imitation warm start before PPO (e.g. greedy; '' for
    none): behaviour cloning then DAgger rounds, choco_envs.train.imitation"""
    imitate_rounds: int = 4
    """imitation rounds: in round 0 the teacher plays; in later rounds (DAgger) the
    network plays its seat and the teacher labels every decision it meets"""
    imitate_games: int = 1000
    """games per imitation round (one seat rotates as the network's seat)"""
    imitate_epochs: int = 6
    """epochs over all imitation data after each round"""
    imitate_opponents: dict[str, float] = field(
        default_factory=lambda: {"greedy": 0.7, "random": 0.3}
    )
    """bot specs in the other seats of imitation games, with their relative weights"""
    imitate_lr: float = 1e-3
    """Adam learning rate of imitation (annealed to 0 over each round's epochs)"""
    table_weights: dict[str, dict[Any, int]] = field(default_factory=dict)
    """how many games play each table, relative to 1 (e.g. {length: {long: 3},
    num_players: {6: 2}}: a table's share is the product of its values' weights); keys
    are num_players and the modes' names, values theirs"""
    mark_modes: bool = True
    """with modes: the network's input also marks each mode's value at the table (the
    rules are public; an observation may state them only relatively)"""

    ENGINE: ClassVar[str] = "ppo"

    def engine_rules(self) -> list[tuple[str, bool, str]]:
        """The ppo engine's own settings' ranges (``check`` reads them after the shared
        ones)."""
        rules: list[tuple[str, bool, str]] = [
            ("num_envs", 1 <= self.num_envs <= 4096, "1..4096"),
            ("num_workers", 0 <= self.num_workers <= 64, "0..64"),
            ("num_steps", 1 <= self.num_steps <= 100_000, "1..100000"),
            ("margin_coef", self.margin_coef >= 0, ">= 0"),
            ("num_minibatches", 1 <= self.num_minibatches <= 10_000, "1..10000"),
            ("target_kl", self.target_kl is None or self.target_kl > 0, "None or > 0"),
            ("action_head", 0 <= self.action_head <= 8192, "0..8192"),
            (
                "action_head_only",
                not self.action_head_only or self.action_head > 0,
                "true only with action_head > 0",
            ),
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
            ("league_whole_table", 0 <= self.league_whole_table <= 1, "in [0, 1]"),
            ("pool_every", self.pool_every >= 0, ">= 0"),
            (
                "keep_best",
                not self.keep_best or self.eval_every > 0,
                "true only with eval_every > 0 (it chooses among periodic evaluations)",
            ),  # fmt: skip
            (
                "keep_best_weights",
                set(self.keep_best_weights) <= {"random", "greedy"}
                and all(w >= 0 for w in self.keep_best_weights.values())
                and sum(self.keep_best_weights.values()) > 0,
                "weights >= 0, not all 0, for random and greedy",
            ),  # fmt: skip
            ("imitate_rounds", 1 <= self.imitate_rounds <= 1000, "1..1000"),
            ("imitate_games", 1 <= self.imitate_games <= 10_000_000, "1..10000000"),
            ("imitate_epochs", 1 <= self.imitate_epochs <= 10_000, "1..10000"),
            ("imitate_lr", 0 < self.imitate_lr <= 1, "in (0, 1]"),
            (
                "imitate_opponents",
                all(w >= 0 for w in self.imitate_opponents.values()),
                "weights >= 0",
            ),
            (
                "imitate_opponents",
                not self.imitate_opponents or sum(self.imitate_opponents.values()) > 0,
                "weights >= 0, not all 0 ({} plays the teacher in every seat)",
            ),
        ]
        if self.num_workers:
            rules.append(("num_envs", self.num_envs % self.num_workers == 0,
                          f"a multiple of num_workers={self.num_workers}"))  # fmt: skip
        return rules

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

    def env_tables(self) -> list[dict[str, Any]]:
        """The tables the games play, each repeated by its ``table_weights`` (env ``i``
        plays entry ``i % len``); every table at least once."""
        out = []
        for table in self.tables():
            weight = 1
            for key, weights in self.table_weights.items():
                by_text = {str(k): w for k, w in weights.items()}
                weight *= by_text.get(str(table.get(key)), 1)
            out.extend([table] * weight)
        return out


# ---------------------------------------------------------------- the run's setup
@dataclass
class Setup:
    """What the checked Args make: the game, the policy inputs, the network's config,
    the league's role sampler and the file to resume (all built before any side effect)."""

    game: Any
    inputs: Any
    net: Any
    roles: Any
    resume_meta: dict[str, Any] | None
    save_path: Path


def prepare(args: Args) -> Setup:
    """Check everything that needs the env (options, encoder, feature function, bot
    specs, network sizes, the resumed file, the output paths): ConfigError (or
    CheckpointError for the resumed file) before anything runs or is written."""
    from choco_envs import bots
    from choco_envs.policy.checkpoint import read_metadata
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.policy.net import NetConfig, check_config
    from choco_envs.registry import make_game
    from choco_envs.train.games import LeagueRoles

    args.check()
    if args.max_players:
        for table in args.tables():
            make_game(args.env_id, **table)  # ConfigError for a count or mode not allowed
        game = make_game(args.env_id, **{**args.options, "num_players": args.max_players})
        if args.num_envs < len(args.env_tables()):
            raise ConfigError(
                f"num_envs={args.num_envs} is not allowed; allowed: at least one game per "
                f"table ({len(args.env_tables())} tables, table_weights counted)"
            )
    else:
        game = make_game(args.env_id, **args.options)
    if args.encoder not in game.encoders:
        raise ConfigError(
            f"encoder={args.encoder!r} is not allowed for {args.env_id}; allowed: "
            + ", ".join(game.encoders)
        )
    inputs = PolicyInputs(game, args.encoder, args.feature, args.max_players, args.mode_marks)
    planes = inputs.encoder.action_planes
    if args.board_actions and planes is None:
        raise ConfigError(
            f"board_actions: {args.env_id}'s {args.encoder!r} observation places no "
            "actions on a board (use encoder planes of an env that has action planes)"
        )
    net = NetConfig(
        inputs.obs_shape,
        game.num_actions,
        tuple(args.hidden),
        tuple(args.conv_channels),
        len(planes.channels) if args.board_actions and planes else 0,
        tuple(planes.index) if args.board_actions and planes else (),
        inputs.extra,
        action_facts=inputs.action_facts(args.action_head) if args.action_head else (),
        facts_head_only=args.action_head_only,
    )
    try:
        check_config(net)
    except ValueError as err:
        raise ConfigError(f"the network of these Args is not allowed: {err}") from None
    for name in ("league_bots", "imitate_opponents"):
        for spec in getattr(args, name):
            bots.make(spec, env_id=args.env_id, seed=0)  # ConfigError for a bad spec
    if args.imitate:
        bots.make(args.imitate, env_id=args.env_id, seed=0)
    roles = LeagueRoles(
        args.league_self_play, args.league_past, args.league_bots, args.league_whole_table
    )
    resume_meta = None
    if args.resume:
        resume_meta = read_metadata(args.resume)
        stored = (resume_meta.get("features") or {}).get("name", "")
        if (resume_meta["encoder"], stored) != (args.encoder, args.feature):
            raise ConfigError(
                f"resume: {args.resume!r} reads encoder {resume_meta['encoder']!r} and "
                f"feature {stored!r}; set encoder and feature to those"
            )
    save_path = args.final_path
    args.check_outside_shipped(save_path, args.run_dir)
    return Setup(game, inputs, net, roles, resume_meta, save_path)


# ---------------------------------------------------------------- per-seat trajectories
class SeatRollout:
    """Transitions of every learner seat of every env, linked seat by seat."""

    def __init__(self, capacity: int, input_size: int, num_actions: int) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, input_size), dtype=np.float32)
        self.mask = np.zeros((capacity, num_actions), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.logprob = np.zeros(capacity, dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.done = np.zeros(capacity, dtype=bool)
        self.next = np.full(capacity, -1, dtype=np.int64)
        self.size = 0
        self.pending: dict[tuple[int, int], int] = {}  # (env, seat) -> its last transition

    def add(
        self,
        envs: np.ndarray,
        seats: np.ndarray,
        obs: np.ndarray,
        mask: np.ndarray,
        action: np.ndarray,
        logprob: np.ndarray,
        value: np.ndarray,
    ) -> None:
        """Append one decision per row; link each to its seat's previous transition."""
        k0, n = self.size, len(envs)
        if k0 + n > self.capacity:
            raise RuntimeError(f"SeatRollout is full ({self.capacity} transitions)")
        sl = slice(k0, k0 + n)
        self.obs[sl], self.mask[sl], self.action[sl] = obs, mask, action
        self.logprob[sl], self.value[sl] = logprob, value
        self.reward[sl], self.done[sl], self.next[sl] = 0.0, False, -1
        for j, (e, p) in enumerate(zip(envs.tolist(), seats.tolist(), strict=True)):
            prev = self.pending.get((e, p))
            if prev is not None:
                self.next[prev] = k0 + j
            self.pending[(e, p)] = k0 + j
        self.size += n

    def end_game(self, env: int, returns: Sequence[float]) -> None:
        """Give every learner seat of ``env`` its own final return."""
        for seat, ret in enumerate(returns):
            k = self.pending.pop((env, seat), None)
            if k is not None:
                self.reward[k] = ret
                self.done[k] = True

    def advantages(self, gamma: float, gae_lambda: float) -> tuple[np.ndarray, np.ndarray]:
        """(indices of complete transitions, their GAE advantages); returns = adv + value."""
        n = self.size
        adv = np.zeros(n + 1, dtype=np.float32)
        is_pending = np.zeros(n, dtype=bool)
        is_pending[list(self.pending.values())] = True
        nxt, done, value, reward = self.next, self.done, self.value, self.reward
        for k in range(n - 1, -1, -1):
            if is_pending[k]:
                continue
            if done[k]:
                adv[k] = reward[k] - value[k]
            else:
                j = nxt[k]
                delta = reward[k] + gamma * value[j] - value[k]
                adv[k] = delta + gamma * gae_lambda * adv[j]
        idx = np.flatnonzero(~is_pending)
        return idx, adv[idx]

    def carry_over(self) -> None:
        """Keep only the pending transitions, moved to the front, for the next rollout."""
        keys = list(self.pending)
        old = np.array([self.pending[k] for k in keys], dtype=np.int64)
        m = len(old)
        for arr in (self.obs, self.mask, self.action, self.logprob, self.value):
            arr[:m] = arr[old]
        self.reward[:m], self.done[:m], self.next[:m] = 0.0, False, -1
        self.pending = {key: i for i, key in enumerate(keys)}
        self.size = m


class SnapshotPool:
    """Frozen past versions of the learner, the league's ``PAST`` opponents."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.models: list[Any] = []
        self.rng = random.Random(seed)

    def add(self, model: Any) -> None:
        from choco_envs.policy.net import ActorCritic

        frozen = ActorCritic(model.config)
        frozen.load_state_dict(model.state_dict())
        frozen.eval()
        self.models.append(frozen)
        if len(self.models) > self.size:
            self.models.pop(0)

    def pick(self) -> int:
        """A random snapshot index (-1 when the pool is empty)."""
        return self.rng.randrange(len(self.models)) if self.models else -1


# ---------------------------------------------------------------- pieces of the loop
def make_vec(args: Args, roles: Any) -> Any:
    from choco_envs.train.games import GameVec, ProcVec

    kwargs = dict(
        env_id=args.env_id,
        options=args.env_tables(),
        max_players=args.max_players,
        mode_marks=args.mode_marks,
        encoder=args.encoder,
        roles=roles,
        bot_specs=roles.bot_specs,
        margin_coef=args.margin_coef,
        feature=args.feature,
    )
    if args.num_workers > 0:
        return ProcVec(args.num_workers, args.num_envs, args.seed, **kwargs)
    return GameVec(num_envs=args.num_envs, seed=args.seed, **kwargs)


def progress_bar(args: Args, total: int, desc: str, unit: str) -> Any:
    """A tqdm progress bar when ``args.progress`` (else None)."""
    if not args.progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True, leave=False)


def run_eval(
    model: Any, args: Args, games: int, seed: int, options: dict[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """The evaluation against random and greedy (``choco_envs.train.evaluate``) at the
    run's options (or ``options``: another table of a seat-padded run)."""
    from choco_envs.train.evaluate import evaluate
    from choco_envs.train.imitation import ticker

    out = {}
    table = args.options if options is None else options
    for opponent in ("random", "greedy"):
        where = "" if options is None else f" at {table.get('num_players')} players"
        bar = progress_bar(args, games, f"evaluation vs {opponent}{where}", "game")
        out[opponent] = evaluate(
            model,
            args.env_id,
            table,
            args.encoder,
            opponent,
            games,
            seed,
            feature=args.feature,
            progress=ticker(bar),
            max_players=args.max_players,
            mode_marks=args.mode_marks,
        )
        if bar is not None:
            bar.close()
    return out


def best_score(arena: dict[str, Any], weights: dict[str, float]) -> float:
    """The keep_best criterion: the weighted mean of the evaluation win rates."""
    total = sum(weights.get(opp, 0.0) for opp in arena)
    return sum(weights.get(opp, 0.0) * res["win_rate"] for opp, res in arena.items()) / total


def final_evaluation(model: Any, args: Args) -> tuple[dict[str, Any], dict[str, Any]]:
    """The evaluation a run stores: ``final_eval_games`` against random and greedy at
    ``options``' table (``arena``) and at each other player count (``arena_tables``),
    on the run's own deals (so a rounded copy of the file meets the same ones)."""
    arena = run_eval(model, args, args.final_eval_games, args.seed + 99_991)
    tables: dict[str, Any] = {}
    counts = {t["num_players"] for t in args.tables()} if args.max_players else set()
    for n in sorted(counts - {args.options.get("num_players", 2)}):
        table = {**args.options, "num_players": n}
        tables[str(n)] = run_eval(model, args, args.final_eval_games, args.seed + 99_991, table)
    return arena, tables


def start_from(model: Any, setup: Setup, args: Args) -> None:
    """Load ``args.init_from``'s weights into ``model``: the same network as they are, or
    a file of one table size into a seat-padded MLP (its first layer's columns placed at
    the padded positions of its inputs, the rest zero: it plays as before), or a
    seat-padded file without mode marks into the same network with them (the marks'
    columns zero)."""
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.policy.seats import add_mode_marks, widen_first_layer

    old, meta = load_policy(args.init_from, args.env_id)
    stored = (meta.get("features") or {}).get("name", "")
    if not stored and args.feature and model.config.facts_head_only:
        return start_with_a_fact_head(model, old, meta, args)
    if meta["encoder"] == args.encoder and stored and args.feature and stored != args.feature:
        return start_from_other_features(model, old, meta, args)
    if (meta["encoder"], stored) != (args.encoder, args.feature):
        raise ConfigError(
            f"init_from: {args.init_from!r} reads encoder {meta['encoder']!r} and feature "
            f"{stored!r}; set encoder and feature to those"
        )
    if old.config == model.config:
        model.load_state_dict(old.state_dict())
        return
    seats = meta.get("seats")
    if seats is not None and args.mode_marks and not seats.get("mode_marks"):
        if seats.get("max_players") == args.max_players:
            marks = sum(len(v) for v in args.mode_marks.values())
            add_mode_marks(model, old, marks)
            return
    if seats is not None or not args.max_players:
        raise ConfigError(
            f"init_from: {args.init_from!r} holds another network ({old.config}) than this "
            f"run's ({model.config})"
        )
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.registry import make_game

    table = make_game(args.env_id, **meta["options"])
    padded = PolicyInputs(table, args.encoder, args.feature, args.max_players, args.mode_marks)
    assert padded.padding is not None
    widen_first_layer(model, old, padded.padding)


def start_with_a_fact_head(model: Any, old: Any, meta: dict[str, Any], args: Args) -> None:
    """``start_from`` for a file without features into the same network plus a head that
    alone reads the new per-action facts (``action_head_only``): the torso's weights load
    as they are and the head's output starts at 0, so the network plays as before."""
    import dataclasses

    same = dataclasses.replace(model.config, extra_inputs=0, action_facts=(), facts_head_only=False)
    if meta["encoder"] != args.encoder or old.config != same:
        raise ConfigError(
            f"init_from: {args.init_from!r} holds another network ({old.config}) than this "
            f"run's torso ({same})"
        )
    missing, unexpected = model.load_state_dict(old.state_dict(), strict=False)
    if unexpected or any(not k.startswith("fact_head.") for k in missing):
        raise ConfigError(
            f"init_from: {args.init_from!r}: weights {missing + unexpected} do not fit"
        )


def start_from_other_features(model: Any, old: Any, meta: dict[str, Any], args: Args) -> None:
    """``start_from`` for a file of the same encoder and tables whose feature function's
    outputs are fields (by name) of this run's: each old input's first-layer column moved
    to that input's place, the new inputs' columns zero, so the network plays as before
    and learns to use them (and a new per-action head starts at 0)."""
    import numpy as np

    from choco_envs.policy.features import PolicyInputs
    from choco_envs.policy.seats import _layout_index, place_first_layer
    from choco_envs.registry import make_game

    seats = meta.get("seats") or {}
    if seats.get("max_players", 0) != args.max_players or bool(seats.get("mode_marks")) != bool(
        args.mode_marks
    ):
        raise ConfigError(
            f"init_from: {args.init_from!r} reads another table layout (seats {seats}) than "
            f"this run (max_players {args.max_players}, mode marks {args.mode_marks})"
        )
    n = args.max_players or meta["options"].get("num_players", 2)
    table = make_game(args.env_id, **{**args.options, "num_players": n})
    before = PolicyInputs.of_checkpoint(table, meta)
    after = PolicyInputs(table, args.encoder, args.feature, args.max_players, args.mode_marks)
    if before.obs_size != after.obs_size or before.features is None or after.features is None:
        raise ConfigError(f"init_from: {args.init_from!r} reads another observation")
    old_layout, new_layout = before.features.layout, after.features.layout
    if old_layout is None or new_layout is None:
        raise ConfigError(
            f"init_from: {args.init_from!r}: feature functions {meta['features']['name']!r} "
            f"and {args.feature!r} name no layouts to place their outputs by"
        )
    where = f"init_from {args.init_from!r} into feature {args.feature!r}"
    moved = _layout_index(old_layout, new_layout, where)
    rest = before.size - before.obs_size - before.feature_size  # seat and mode marks
    columns = np.concatenate(
        [
            np.arange(before.obs_size),
            after.obs_size + moved,
            after.obs_size + after.feature_size + np.arange(rest),
        ]
    )
    place_first_layer(model, old, columns)


def ppo_update(model: Any, optimizer: Any, batch: dict[str, Any], args: Args) -> dict[str, float]:
    """CleanRL's PPO update on one rollout of complete transitions."""
    import torch
    from torch import nn

    n = len(batch["act"])
    mb_size = max(1, n // args.num_minibatches)
    clipfracs = []
    for _epoch in range(args.update_epochs):
        perm = torch.randperm(n).numpy()
        for start in range(0, n, mb_size):
            mb = perm[start : start + mb_size]
            _, newlogprob, entropy, newvalue = model.get_action_and_value(
                batch["obs"][mb], batch["mask"][mb], batch["act"][mb]
            )
            logratio = newlogprob - batch["logp"][mb]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
            mb_adv = batch["adv"][mb]
            if args.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(
                -mb_adv * ratio,
                -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef),
            ).mean()
            v_unclipped = (newvalue - batch["ret"][mb]) ** 2
            if args.clip_vloss:
                v_clipped = batch["val"][mb] + torch.clamp(
                    newvalue - batch["val"][mb], -args.clip_coef, args.clip_coef
                )
                v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - batch["ret"][mb]) ** 2).mean()
            else:
                v_loss = 0.5 * v_unclipped.mean()
            entropy_loss = entropy.mean()
            loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
        if args.target_kl is not None and approx_kl > args.target_kl:
            break
    y_pred, y_true = batch["val"].numpy(), batch["ret"].numpy()
    var_y = np.var(y_true)
    return {
        "losses/value_loss": v_loss.item(),
        "losses/policy_loss": pg_loss.item(),
        "losses/entropy": entropy_loss.item(),
        "losses/approx_kl": approx_kl.item(),
        "losses/clipfrac": float(np.mean(clipfracs)),
        "losses/explained_variance": float("nan")
        if var_y == 0
        else float(1 - np.var(y_true - y_pred) / var_y),
    }


def write_args(args: Args, path: Path) -> None:
    """The run's Args as a config file (``choco train --config`` reruns it)."""
    import yaml

    values = dataclasses.asdict(args)
    values = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(values, sort_keys=False))


# ---------------------------------------------------------------- the run
def train(args: Args, command: str = "") -> Path:
    """Train; return the path of the final checkpoint. ``command`` (what was run) goes
    into the checkpoint's metadata. Everything is checked (``prepare``) before any game
    is played or any file written."""
    import torch

    from choco_envs.policy.checkpoint import load_policy, save_checkpoint
    from choco_envs.policy.net import ActorCritic
    from choco_envs.train.curves import Curve
    from choco_envs.train.games import LEARNER, PAST
    from choco_envs.train.imitation import warm_start
    from choco_envs.train.outputs import checkpoint_meta

    setup = prepare(args)
    command = command or "python -m choco_envs.train.ppo " + shlex.join(sys.argv[1:])
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    game, run_dir = setup.game, args.run_dir
    steps_done = 0
    if args.resume:
        model, meta = load_policy(args.resume, args.env_id, args.options)
        model.train()
        steps_done = int(meta["steps_trained"])
    else:
        model = ActorCritic(setup.net)
        if args.init_from:
            start_from(model, setup, args)
    write_args(args, run_dir / "args.yaml")

    def meta_at(steps: int, arena: dict[str, Any], **more: Any) -> dict[str, Any]:
        return checkpoint_meta(
            game, args.encoder, inputs=setup.inputs, args=args, steps=steps, arena=arena,
            command=command, **more,
        )  # fmt: skip

    curve = Curve(run_dir, "steps", Path(args.resume) if args.resume else None)
    began = time.time()
    minutes_before = curve.points[-1]["minutes"] if curve.points else 0.0

    def on_curve(stats: dict[str, float], prefix: str, steps: int, phase: str) -> None:
        rates = {k[len(prefix) :]: v for k, v in stats.items() if k.startswith(prefix)}
        if rates:
            curve.add(minutes_before + (time.time() - began) / 60, steps, rates, phase)

    writer = None
    if args.track:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir))
        writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n"
            + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items()),
        )

    def log(stats: dict[str, float], step: int) -> None:
        if writer is not None:
            for key, value in stats.items():
                writer.add_scalar(key, value, step)

    def imitation_round(r: int, stats: dict[str, float]) -> None:
        log(stats, r)
        on_curve(stats, "imitation/win_rate_vs_", steps_done, f"imitation round {r}")

    imitation: dict[str, Any] | None = None
    if args.imitate:
        imitation = warm_start(
            model,
            args,
            log=imitation_round,
            bar=lambda total, desc, unit: progress_bar(args, total, desc, unit),
            evaluate_now=lambda games, seed: run_eval(model, args, games, seed),
        )
        save_checkpoint(
            run_dir / "imitation.safetensors",
            model,
            meta_at(steps_done, imitation["arena"]),
        )

    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    pool = SnapshotPool(args.pool_size, args.seed)
    budget = max(0, args.total_timesteps - steps_done)
    bar = progress_bar(args, budget, "PPO", "step")
    n, players = args.num_envs, game.num_players
    buffer = SeatRollout(args.num_steps * n + n * players, setup.inputs.size, game.num_actions)
    env_idx = np.arange(n)
    vec = make_vec(args, setup.roles) if budget else None
    dec = vec.reset() if vec is not None else None
    past_pick = [pool.pick() for _ in range(n)]
    start, update = time.time(), 0
    outcomes: dict[str, list[float]] = {}
    arena: dict[str, Any] = {}
    best: tuple[float, int, dict[str, Any]] | None = None  # (score, steps, weights)

    def out_of_budget() -> bool:
        minutes = (time.time() - start) / 60
        assert vec is not None
        return vec.steps >= budget or bool(args.max_minutes and minutes >= args.max_minutes)

    while vec is not None and dec is not None and not out_of_budget():
        update += 1
        if args.anneal_lr:  # to 0 at the end of the step budget or of the time budget
            done = vec.steps / budget
            if args.max_minutes:
                done = max(done, (time.time() - start) / (60 * args.max_minutes))
            optimizer.param_groups[0]["lr"] = args.learning_rate * max(0.0, 1.0 - done)
        for _ in range(args.num_steps):
            actions = np.zeros(n, dtype=np.int64)
            own = (dec.role == LEARNER) | ((dec.role == PAST) & (np.array(past_pick) < 0))
            obs_t, mask_t = torch.from_numpy(dec.obs), torch.from_numpy(dec.mask)
            with torch.inference_mode():
                rows = np.flatnonzero(own)
                a, logp, _, v = model.get_action_and_value(obs_t[rows], mask_t[rows])
                actions[rows] = a.numpy()
                train_rows = dec.role[rows] == LEARNER
                r = rows[train_rows]
                buffer.add(
                    env_idx[r],
                    dec.seat[r],
                    dec.obs[r],
                    dec.mask[r],
                    a.numpy()[train_rows],
                    logp.numpy()[train_rows],
                    v.numpy()[train_rows],
                )
                past_rows = np.flatnonzero((dec.role == PAST) & (np.array(past_pick) >= 0))
                for k in {past_pick[i] for i in past_rows}:
                    rows = np.array([i for i in past_rows if past_pick[i] == k])
                    actions[rows] = (
                        pool.models[k].get_action_and_value(obs_t[rows], mask_t[rows])[0].numpy()
                    )
            dec = vec.step(actions)
            for i, ret, seat_roles in dec.finished:
                buffer.end_game(i, ret)
                past_pick[i] = pool.pick()
                learner = [p for p, ro in enumerate(seat_roles) if ro == LEARNER]
                others = {ro for ro in seat_roles if ro != LEARNER}
                kind = "self" if not others else ("past" if others == {PAST} else "bots")
                outcomes.setdefault(kind, []).append(float(np.mean([ret[p] for p in learner])))
            if bar is not None:
                bar.update(min(vec.steps, budget) - bar.n)
            if out_of_budget():
                break  # the last, shorter rollout is learnt from below

        idx, adv = buffer.advantages(args.gamma, args.gae_lambda)
        batch = {
            "obs": torch.from_numpy(buffer.obs[idx]),
            "mask": torch.from_numpy(buffer.mask[idx]),
            "act": torch.from_numpy(buffer.action[idx]),
            "logp": torch.from_numpy(buffer.logprob[idx]),
            "val": torch.from_numpy(buffer.value[idx]),
            "adv": torch.from_numpy(adv),
            "ret": torch.from_numpy(adv + buffer.value[idx]),
        }
        stats = ppo_update(model, optimizer, batch, args) if len(idx) else {}
        buffer.carry_over()

        steps = steps_done + vec.steps
        stats["charts/SPS"] = vec.steps / max(1e-9, time.time() - start)
        stats["charts/trained_transitions"] = float(len(idx))
        stats["charts/learning_rate"] = optimizer.param_groups[0]["lr"]
        for kind, values in outcomes.items():
            stats[f"charts/mean_return_vs_{kind}"] = float(np.mean(values))
        outcomes = {}
        if args.pool_every and update % args.pool_every == 0:
            pool.add(model)
        if args.eval_every and update % args.eval_every == 0:
            arena = run_eval(model, args, args.eval_games, args.seed + 10_000 + update)
            for opp, res in arena.items():
                stats[f"eval/win_rate_vs_{opp}"] = res["win_rate"]
                stats[f"eval/mean_return_vs_{opp}"] = res["mean_return"]
            meta = meta_at(steps, arena)
            save_checkpoint(run_dir / "latest.safetensors", model, meta)
            score = best_score(arena, args.keep_best_weights)
            if args.keep_best and (best is None or score > best[0]):
                snapshot = {k: v.detach().clone() for k, v in model.state_dict().items()}
                best = (score, steps, snapshot)
                save_checkpoint(run_dir / "best.safetensors", model, meta)
            if bar is not None:
                bar.set_postfix({opp: f"{res['win_rate']:.2f}" for opp, res in arena.items()})
            on_curve(stats, "eval/win_rate_vs_", steps, "ppo")
        log(stats, steps)

    if vec is not None:
        vec.close()
    if bar is not None:
        bar.close()
    model.eval()
    kept = None
    if best is not None:
        model.load_state_dict(best[2])
        kept = {"eval_mean_win_rate": round(best[0], 4), "at_step": best[1]}
        print(f"keeping the weights of step {best[1]} (weighted evaluation win rate {best[0]:.3f})")
    tables_arena: dict[str, Any] = {}
    if args.final_eval_games:
        arena, tables_arena = final_evaluation(model, args)
    collected = 0 if vec is None else vec.steps
    meta = meta_at(steps_done + collected, arena)
    meta["training"].update(
        {
            "updates": update,
            "minutes": round((time.time() - start) / 60, 2),
            "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
    )
    if imitation is not None:
        meta["training"]["imitation"] = imitation
    if tables_arena:
        meta["arena_tables"] = tables_arena
    if kept is not None:
        meta["training"]["kept_best"] = kept
    save_checkpoint(setup.save_path, model, meta)
    final_rates = {f"eval/win_rate_vs_{opp}": res["win_rate"] for opp, res in arena.items()}
    on_curve(final_rates, "eval/win_rate_vs_", steps_done + collected, "final")
    curve.plot(run_dir / "curve.png", f"{args.env_id} ppo")
    for opp, res in arena.items():
        log({f"eval/win_rate_vs_{opp}": res["win_rate"]}, steps_done + collected)
        low, high = res["win_rate_ci95"]
        print(
            f"final eval vs {opp}: win rate {res['win_rate']:.3f} [{low:.3f}, {high:.3f}] over "
            f"{res['games']} games"
        )
    if writer is not None:
        writer.close()
    print(f"saved {setup.save_path} after {steps_done + collected} env steps")
    return setup.save_path


# ---------------------------------------------------------------- command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config FILE`` and one flag per Args field."""
    from choco_envs.train.config import add_config_and_flags

    add_config_and_flags(parser, Args)


def args_from(ns: argparse.Namespace) -> Args:
    """Args from the defaults, then ``--config``, then the flags given (ConfigError)."""
    from choco_envs.train.config import args_from_namespace

    return args_from_namespace(Args, ns)


def command_line(prog: str, ns: argparse.Namespace) -> str:
    """The command that gives these flags (the ones given, in Args order)."""
    words = ["--config", ns.config] if getattr(ns, "config", None) else []
    for f in dataclasses.fields(Args):
        if hasattr(ns, f.name):
            given = getattr(ns, f.name)
            flag = "--" + f.name.replace("_", "-")
            if isinstance(given, list) and typing_origin(Args, f.name) is dict:
                for item in given:
                    words += [flag, item]
            elif isinstance(given, list):
                words += [flag, *given]
            else:
                words += [flag, given]
    return f"{prog} {shlex.join(words)}".strip()


def typing_origin(cls: type, name: str) -> Any:
    import typing

    return typing.get_origin(typing.get_type_hints(cls)[name])


def main(argv: list[str] | None = None, prog: str = "python -m choco_envs.train.ppo") -> int:
    """Train from the command line: 0 when done, 2 (one line on stderr) on bad input."""
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        train(args_from(ns), command=command_line(prog, ns))
    except ChocoError as err:
        print(f"{prog.split()[-1]}: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
