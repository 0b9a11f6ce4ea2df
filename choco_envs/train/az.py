"""Search-and-learn (expert iteration, AlphaZero family) with Gumbel IS-MCTS.

    choco train --engine az --config configs/chocolates_v0/az.yaml
    choco train --engine az --env-id chocolates_v0 --max-minutes 5 --simulations 16

The loop, top to bottom:

1. **Self-play.** ``num_games`` games advance in lockstep. At every decision of every
   game the search (``choco_envs.policy.search``) runs from a fresh determinization of the
   acting seat's view, ``simulations`` times, all games' leaves evaluated in one forward
   pass of the network. The game plays the search's action (its Gumbel noise is the
   exploration); the decision is stored with the seat's policy input, its legal mask and
   the search's improved policy.
2. **Targets.** When a game ends, each stored decision gets the rules' rank-based returns
   of every seat, in the deciding seat's order (own first): the value head's target.
3. **Learning.** A replay buffer of the last ``replay_size`` decisions; Adam on
   cross-entropy to the improved policy plus ``value_coef`` x squared error of
   tanh(value) to the returns, ``reuse`` passes over each new decision on average.
4. **Evaluation** every ``eval_every_minutes``: the network alone against fixed bots on
   duplicate deals (``choco_envs.train.evaluate``), as TensorBoard scalars
   (``eval/<opponent>``, ``eval/elo_vs_<opponent>``) and a learning curve (``curve.json``,
   ``curve.png``, and in every file the run writes: ``training.curve``); the latest
   weights and the optimizer are saved for ``--resume``.
5. **The final file** (``final.safetensors``): the network, its search settings
   (``search`` metadata: the ``az`` bot's default) and ``final_eval_games`` evaluations of
   the network alone against random and greedy (what ``choco ship`` requires), plus the
   search bot against ``search_eval_opponents`` (``arena_search``).

The network (``choco_envs.policy.net.ActorCritic`` with one value output per seat) reads
only the seat's policy input; ``init_from`` starts it from a trained policy file of the
same inputs (its policy; the value head starts fresh where the file's has another number
of outputs). With ``player_counts`` (and ``modes``) one network plays every table: it
reads the seat-padded input of the largest (``choco_envs.policy.seats``) and has one value
output, the reading seat's (the search asks it once per seat of a leaf); the lockstep
games share the tables by ``table_weights``, each table's leaves in one forward pass, and
the final evaluation also plays each other player count (``arena_tables``). Such a run
starts from a seat-padded file of the same tables (a shipped ``ppo_tables`` file: its
policy and its value). A run writes under
``runs/<run_name>/``; ``choco ship`` is the only way into ``checkpoints/``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from choco_envs.core.errors import ChocoError, ConfigError
from choco_envs.train.curves import Curve, elo
from choco_envs.train.run import RunSpec


@dataclass
class Args(RunSpec):
    """The ``az`` engine's settings: the shared run description (``RunSpec``), then this
    engine's own (the search, the replay buffer, its budget in games and minutes)."""

    value_warmup_games: int = 0
    """with init_from: games of the starting policy (against itself, or with bot_seats
    against self-play's bots) whose outcomes fit the value head (the policy held by a KL
    term) before the search uses it (0: none)"""
    value_warmup_keep: int = 0
    """decisions kept of each warm-up game, drawn at random (0: every one): many games'
    worth of positions in bounded memory, and fewer of one game's correlated positions"""
    value_warmup_holdout: float = 0.0
    """share of the warm-up games held out (played after the others): the fit checks
    their squared error every 250 steps and keeps its best weights (0: none, the fixed
    step count's last weights)"""
    value_warmup_lr: float = 3e-4
    """Adam's learning rate of the value warm-up"""
    value_warmup_workers: int = 1
    """processes that play the warm-up games (1: this one; more: each a process of one
    torch thread playing chunks of 250 games; the games then differ from one process's)"""
    num_workers: int = 0
    """processes that play the self-play games (0: this one; N: N processes of one torch
    thread each, the ``num_games`` games dealt among them, the network's weights sent to
    them before every ``moves_per_iteration`` decisions; this one learns and evaluates)"""
    num_games: int = 64
    """games played in lockstep (their leaves are evaluated in one forward pass)"""
    simulations: int = 32
    """search simulations per decision in self-play"""
    max_considered: int = 16
    """actions the Gumbel root considers"""
    c_visit: float = 50.0
    """sigma(q) = (c_visit + max visits) * c_scale * q"""
    c_scale: float = 1.0
    """scale of q against the logits in the improved policy"""
    play_simulations: int = 64
    """the az bot's default simulations, stored in the file"""
    play_c_scale: float = 0.0
    """the az bot's default c_scale, stored in the file (0: c_scale, the self-play one);
    a longer search at play time can weigh its q values more than self-play's few visits"""
    weight_decay: float = 1e-4
    """Adam's L2 weight decay"""
    batch_size: int = 256
    """decisions per gradient step"""
    replay_size: int = 100_000
    """decisions kept in the replay buffer"""
    reuse: float = 4.0
    """gradient passes over each new decision, on average"""
    value_coef: float = 1.0
    """weight of the value loss"""
    value_mix: float = 0.0
    """weight of the search's value in the value target: the deciding seat's target is
    (1 - value_mix) x its outcome + value_mix x the searched value of the action it played
    (in a two-seat game of zero-sum outcomes the other seat's is its negation; other
    seats keep their outcomes); 0: the outcomes alone"""
    value_margin: float = 0.0
    """weight of the score margin in the outcomes the value learns (and the search values
    a finished game by): (1 - value_margin) x the rank return + value_margin x
    tanh(margin / value_margin_scale), the margin a seat's score minus the best other's;
    stored in the file's search settings so that the az bot reads a finished game the same
    way (0: the rank returns)"""
    value_margin_scale: float = 5.0
    """the game's points that make tanh(margin / scale) 0.76 (with value_margin)"""
    bot_seats: float = 0.0
    """probability that a seat of a self-play game, other than one searched seat drawn at
    random, is played by a bot drawn from league_bots by weight (0: every seat searched);
    only searched seats' decisions are learned from, their outcomes against those bots"""
    moves_per_iteration: int = 8
    """lockstep decisions of every game between learning phases"""
    total_games: int = 0
    """stop after this many self-play games (0: no limit; max_minutes or this must be
    set, unless the run is a value warm-up alone: both 0 with value_warmup_games, the
    started policy with its value head fitted, no self-play)"""
    eval_every_minutes: float = 5.0
    """minutes of self-play and learning between evaluations of the network alone"""
    eval_opponents: tuple[str, ...] = ("random", "greedy")
    """bots the network alone meets in evaluations (bot specs)"""
    search_eval_opponents: tuple[str, ...] = ("greedy",)
    """bots the search bot (play_simulations) meets in the final evaluation"""
    search_eval_games: int = 0
    """games per search-bot opponent in the final evaluation (0: none)"""

    ENGINE: ClassVar[str] = "az"
    NOT_READ: ClassVar[dict[str, str]] = {
        "total_timesteps": "its budget is max_minutes and total_games",
        "update_epochs": "reuse sets the gradient passes over each decision",
        "league_self_play": "every seat is the searched network",
        "league_past": "every seat is the searched network",
        "pool_size": "every seat is the searched network",
        "eval_every": "eval_every_minutes",
    }

    def engine_rules(self) -> list[tuple[str, bool, str]]:
        """The az engine's own settings' ranges (``check`` reads them after the shared
        ones)."""
        positive = (
            "num_games", "simulations", "max_considered", "play_simulations",
            "batch_size", "replay_size", "moves_per_iteration",
        )  # fmt: skip
        rules = [(name, getattr(self, name) >= 1, "an int >= 1") for name in positive]
        for name in ("eval_every_minutes", "reuse"):
            value = getattr(self, name)
            rules.append((name, value > 0, "a number > 0"))
        for name in ("weight_decay", "value_coef", "c_visit", "c_scale", "play_c_scale"):
            rules.append((name, getattr(self, name) >= 0, "a number >= 0"))
        rules.append(("value_mix", 0 <= self.value_mix <= 1, "a number in [0, 1]"))
        rules.append(("value_margin", 0 <= self.value_margin <= 1, "a number in [0, 1]"))
        rules.append(("value_margin_scale", self.value_margin_scale > 0, "a number > 0"))
        rules.append(("value_warmup_keep", self.value_warmup_keep >= 0, "an int >= 0"))
        rules.append(
            ("value_warmup_holdout", 0 <= self.value_warmup_holdout <= 0.5, "a number in [0, 0.5]")
        )
        rules.append(("value_warmup_lr", self.value_warmup_lr > 0, "a number > 0"))
        rules.append(("bot_seats", 0 <= self.bot_seats <= 1, "a number in [0, 1]"))
        rules.append(
            (
                "league_bots",
                not self.bot_seats or any(w > 0 for w in self.league_bots.values()),
                "at least one bot with weight > 0 when bot_seats > 0",
            )
        )
        default_bots = type(self)().league_bots  # type: ignore[call-arg]
        rules.append(
            (
                "league_bots",
                self.bot_seats > 0 or self.league_bots == default_bots,
                f"its default {default_bots!r} unless bot_seats > 0 (they play self-play's "
                "bot seats)",
            )
        )
        rules += [
            (
                "num_games",
                self.num_games >= len(self.env_tables()),
                f"at least one game per table ({len(self.env_tables())} tables, "
                "table_weights counted)",
            ),
            ("search_eval_games", self.search_eval_games >= 0, ">= 0"),
            ("total_games", self.total_games >= 0, ">= 0"),
            (
                "max_minutes",
                self.max_minutes > 0 or self.total_games > 0 or self.value_warmup_games > 0,
                "> 0, or 0 (no limit) with total_games > 0, or 0 with total_games 0 and "
                "value_warmup_games > 0 (a value warm-up alone): a run needs a budget",
            ),
            ("value_warmup_workers", self.value_warmup_workers >= 1, "an int >= 1"),
            (
                "num_workers",
                0 <= self.num_workers <= min(64, self.num_games),
                f"an int in 0..{min(64, self.num_games)} (at most num_games, each plays some)",
            ),
            (
                "value_warmup_games",
                self.value_warmup_games == 0
                or (self.value_warmup_games > 0 and bool(self.init_from)),
                "0, or a number of games >= 1 with init_from (it fits a started policy's "
                "value head)",
            ),
        ]
        return rules


# ---------------------------------------------------------------- setup
@dataclass
class Setup:
    game: Any  # the largest table's game (the file's options)
    inputs: Any  # its policy inputs (seat-padded with player_counts or modes)
    net: Any
    start: Path | None  # a policy file whose policy starts the network
    resume: Path | None  # a latest.safetensors to continue
    tables: list[tuple[Any, Any]]  # every table's (game, policy inputs), as args.tables()


def prepare(args: Args) -> Setup:
    """Everything checked before anything runs or is written (ConfigError/CheckpointError)."""
    from choco_envs import bots
    from choco_envs.policy.checkpoint import check_compatible, read_metadata
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.policy.net import NetConfig, check_config
    from choco_envs.registry import make_game

    args.check()
    table_games = [make_game(args.env_id, **t) for t in args.tables()]  # ConfigError
    if args.max_players:
        game = make_game(args.env_id, **{**args.options, "num_players": args.max_players})
    else:
        game = table_games[0]
    if args.encoder not in game.encoders:
        raise ConfigError(
            f"encoder={args.encoder!r} is not allowed for {args.env_id}; allowed: "
            + ", ".join(game.encoders)
        )
    inputs = PolicyInputs(game, args.encoder, args.feature, args.max_players, args.mode_marks)
    tables = [
        (g, PolicyInputs(g, args.encoder, args.feature, args.max_players, args.mode_marks))
        for g in table_games
    ]
    planes = inputs.encoder.action_planes if args.board_actions else None
    if args.board_actions and planes is None:
        raise ConfigError(
            f"board_actions: {args.env_id}'s {args.encoder!r} observation places no actions "
            "on a board (use encoder planes of an env that has action planes)"
        )
    net = NetConfig(
        inputs.obs_shape,
        game.num_actions,
        tuple(args.hidden),
        tuple(args.conv_channels),
        len(planes.channels) if planes else 0,
        tuple(planes.index) if planes else (),
        extra_inputs=inputs.extra,
        value_outputs=value_outputs(args, game),
        action_facts=inputs.action_facts(args.action_head) if args.action_head else (),
        facts_head_only=args.action_head_only,
        facts_context=args.action_head_context,
        facts_pool=args.action_head_pool,
    )
    try:
        check_config(net)
    except ValueError as err:
        raise ConfigError(f"the network of these Args is not allowed: {err}") from None
    league = tuple(args.league_bots) if args.bot_seats else ()
    for spec in (*args.eval_opponents, *args.search_eval_opponents, *league):
        bots.make(spec, env_id=args.env_id, seed=0, env_options=args.options)
    start = Path(args.init_from) if args.init_from else None
    if start is not None:
        meta = read_metadata(start)
        check_compatible(meta, start, args.env_id, dict(game.config))
        stored = (meta.get("features") or {}).get("name", "")
        network = meta["network"]
        theirs = (
            meta["encoder"],
            stored,
            tuple(network.get("hidden", ())),
            tuple(network.get("conv_channels", ())),
            int(network.get("action_channels", 0)),
            tuple(network.get("action_facts", ())),
            bool(network.get("facts_head_only", False)),
            bool(network.get("facts_context", False)),
            int((meta.get("seats") or {}).get("max_players", 0)),
            bool((meta.get("seats") or {}).get("mode_marks", False)),
            bool(network.get("facts_pool", False)),
        )
        ours = (
            args.encoder, args.feature, net.hidden, net.conv_channels, net.action_channels,
            tuple(net.action_facts), net.facts_head_only, net.facts_context,
            args.max_players, bool(args.mode_marks), net.facts_pool,
        )  # fmt: skip
        # a file without the pooled maps starts a network with them (they start at 0)
        widened = theirs[:-1] == ours[:-1] and (theirs[-1], ours[-1]) == (False, True)
        if theirs != ours and not widened:
            raise ConfigError(
                f"init_from: {args.init_from!r} reads (encoder, feature, hidden, conv_channels, "
                f"action_channels, action_facts, facts_head_only, facts_context, max_players, "
                f"mode_marks, facts_pool) {theirs}; this run's network is {ours}"
            )
    resume = None
    if args.resume:
        resume = Path(args.resume)
        if resume.is_dir():
            resume = resume / "latest.safetensors"
        check_compatible(read_metadata(resume), resume, args.env_id, dict(game.config))
    args.check_outside_shipped(args.final_path, args.run_dir)
    return Setup(game, inputs, net, start, resume, tables)


def table_slots(args: Args) -> list[int]:
    """Which table (an index of ``args.tables()``) each of the ``num_games`` lockstep
    games plays: game ``i`` plays ``env_tables()[i % len]``, so ``table_weights`` set
    the tables' shares of the games as in the ppo engine."""
    tables = args.tables()
    weighted = [tables.index(t) for t in args.env_tables()]
    return [weighted[i % len(weighted)] for i in range(args.num_games)]


def play_c_scale(args: Args) -> float:
    """The c_scale the file's search plays with: ``play_c_scale``, else ``c_scale``."""
    return args.play_c_scale or args.c_scale


def value_outputs(args: Args, game: Any) -> int:
    """The network's value outputs: one per seat at one table; one (the value of the
    seat that reads the input) for a network of many tables (player_counts or modes),
    whose input is seat-padded and whose seat counts differ from table to table."""
    return 1 if args.max_players else game.num_players


# ---------------------------------------------------------------- replay buffer
class Replay:
    """The last ``capacity`` decisions: policy input, legal mask, improved policy, and
    the outcome of every seat in the deciding seat's order (filled when the game ends)."""

    def __init__(self, capacity: int, input_size: int, num_actions: int, players: int) -> None:
        self.x = np.zeros((capacity, input_size), np.float32)
        self.mask = np.zeros((capacity, num_actions), bool)
        self.policy = np.zeros((capacity, num_actions), np.float32)
        self.value = np.zeros((capacity, players), np.float32)
        self.capacity, self.size, self.next = capacity, 0, 0
        self.added = 0  # decisions ever added

    def add(self, x: np.ndarray, mask: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        i = self.next
        self.x[i], self.mask[i], self.policy[i], self.value[i] = x, mask, policy, value
        self.next = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)
        self.added += 1

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        idx = rng.integers(0, self.size, n)
        return self.x[idx], self.mask[idx], self.policy[idx], self.value[idx]


# ---------------------------------------------------------------- self-play
@dataclass
class _Decision:
    x: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    seat: int
    searched: float  # the search's value of the action played, for ``seat``, in [-1, 1]


def outcomes(game: Any, s: Any, args: Args) -> list[float]:
    """Every seat's outcome of the finished game ``s``: its rank return, with
    ``value_margin`` of its score margin blended in (``core.outcomes.margin_values``)."""
    from choco_envs.core.outcomes import finished_values

    return finished_values(game, s, args.value_margin, args.value_margin_scale)


def value_target(returns: list[float], seat: int, searched: float, mix: float) -> np.ndarray:
    """Every seat's value target of one decision, in the deciding seat's order (own seat
    first): the outcomes, the deciding seat's mixed with the search's value by ``mix``
    (and, in a two-seat game whose outcomes sum to zero, the other seat's its negation)."""
    n = len(returns)
    target = np.array([returns[(seat + k) % n] for k in range(n)], np.float32)
    if mix:
        target[0] = (1.0 - mix) * target[0] + mix * searched
        if n == 2 and abs(returns[0] + returns[1]) < 1e-9:
            target[1] = -target[0]
    return target


def seat_bots(args: Args, seed: int) -> tuple[Any, list[Any]]:
    """The bots of self-play's bot seats: (the roles' drawer, one bot per spec of
    ``league_bots``), or (None, []) when every seat is searched (``bot_seats`` 0)."""
    if not args.bot_seats:
        return None, []
    from choco_envs.train.games import LeagueRoles, make_bot

    league = LeagueRoles(1.0 - args.bot_seats, 0.0, dict(args.league_bots))
    bots = [
        make_bot(spec, args.env_id, seed + 7919 * (k + 1))
        for k, spec in enumerate(league.bot_specs)
    ]
    return league, bots


def draw_roles(league: Any, num_players: int, rng: random.Random) -> list[int]:
    """A game's seats' roles: ``LEARNER`` (the network) or the index of a bot of
    ``seat_bots``; every seat the network's without a league."""
    from choco_envs.train.games import LEARNER

    if league is None:
        return [LEARNER] * num_players
    return league(num_players, rng)


class SelfPlay:
    """``num_games`` games in lockstep, every decision searched; finished games'
    decisions go to the replay buffer with their outcomes. ``tables``: every table's
    (game, policy inputs, leaf evaluator); game ``i`` plays ``tables[slots[i]]``, each
    table's leaves evaluated in one forward pass. ``value_width``: the value outputs the
    targets fill (every seat's, own first; or the deciding seat's alone)."""

    def __init__(
        self,
        tables: list[tuple[Any, Any, Any]],
        slots: list[int],
        args: Args,
        seed: int,
        value_width: int,
    ) -> None:
        from choco_envs.policy.search import GumbelSearch, SearchConfig

        self.tables, self.slots, self.args = tables, slots, args
        self.value_width = value_width
        config = SearchConfig(
            args.simulations, args.max_considered, 1.0, args.c_visit, args.c_scale,
            margin_weight=args.value_margin, margin_scale=args.value_margin_scale,
        )  # fmt: skip
        self.searches = [
            GumbelSearch(game, evaluator, config, seed=seed + 7919 * t)
            for t, (game, _, evaluator) in enumerate(tables)
        ]
        self.rng = random.Random(seed)
        self.states = [
            tables[t][0].new_state(random.Random(self.rng.randrange(2**62))) for t in slots
        ]
        self.rngs = [random.Random(self.rng.randrange(2**62)) for _ in self.states]
        # seats' roles (LEARNER: searched; else an index of league.bot_specs), per game
        self.league, self.bots = seat_bots(args, seed)
        self.roles = [self._roles(tables[t][0]) for t in slots]
        self.pending: list[list[_Decision]] = [[] for _ in self.states]
        self.games_done = 0
        self.decisions = 0
        self.simulations = 0

    def _roles(self, game: Any) -> list[int]:
        return draw_roles(self.league, game.num_players, self.rng)

    def _finish(self, i: int, replay: Any) -> None:
        game, s = self.tables[self.slots[i]][0], self.states[i]
        returns = outcomes(game, s, self.args)
        for d in self.pending[i]:
            target = value_target(returns, d.seat, d.searched, self.args.value_mix)
            replay.add(d.x, d.mask, d.policy, target[: self.value_width])
        self.pending[i] = []
        self.games_done += 1
        self.states[i] = game.new_state(self.rngs[i])
        self.roles[i] = self._roles(game)

    def round(self, replay: Any, steps: int) -> None:
        """``steps`` searched decisions of every game (``step`` that many times)."""
        for _ in range(steps):
            self.step(replay)

    def step(self, replay: Any) -> None:
        """One searched decision in every game (forced moves are played on the way)."""
        from choco_envs.policy.search import Root
        from choco_envs.train.games import play_bot

        by_table: list[tuple[list[Root], list[int]]] = [([], []) for _ in self.tables]
        for i in range(len(self.states)):
            game = self.tables[self.slots[i]][0]
            s = self.states[i]
            while True:
                if game.is_over(s):
                    self._finish(i, replay)
                    s = self.states[i]
                    continue
                legal = game.legal_actions(s)
                seat = game.current_player(s)
                role = self.roles[i][seat]
                if role >= 0:  # a bot's seat
                    play_bot(game, s, seat, self.bots[role], self.rngs[i])
                    continue
                if len(legal) > 1:
                    break
                game.apply(s, legal[0], self.rngs[i])

            def draw(rng: random.Random, s: Any = s, seat: int = seat, game: Any = game) -> Any:
                return game.determinize(s, seat, rng)

            roots, slots = by_table[self.slots[i]]
            roots.append(Root(draw, seat, legal))
            slots.append(i)
        for t, (roots, slots) in enumerate(by_table):
            if not roots:
                continue
            game, inputs, _ = self.tables[t]
            results = self.searches[t].run(roots)
            self.simulations += self.searches[t].last_simulations
            # the seats' own observations, before the searched actions are played
            obs = [
                inputs.encoder.encode(self.states[i], r.player)
                for i, r in zip(slots, roots, strict=True)
            ]
            xs = inputs.from_observations(np.stack(obs))
            for i, root, result, x in zip(slots, roots, results, xs, strict=True):
                s = self.states[i]
                mask = game.legal_mask(s)
                policy = np.zeros(game.num_actions, np.float32)
                policy[result.legal] = result.policy
                self.pending[i].append(
                    _Decision(x, mask, policy, root.player, float(result.search_value))
                )
                game.apply(s, result.action, self.rngs[i])
                self.decisions += 1


class _Rows:
    """What a worker's games finish in one round: the rows ``Replay.add`` would store."""

    def __init__(self) -> None:
        self.rows: list[tuple[np.ndarray, ...]] = []

    def add(self, x: np.ndarray, mask: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        self.rows.append((x, mask, policy, value))


def _selfplay_worker(conn: Any, args: Args, slots: list[int], seed: int, width: int) -> None:
    """A worker process: its share of the lockstep games (``SelfPlay`` over ``slots``)
    with its own copy of the network. Each message (the weights, steps) plays a round and
    answers (the rows finished, games done, decisions, simulations); None ends it."""
    import traceback

    import torch

    from choco_envs.policy.az_bot import NetEvaluator
    from choco_envs.policy.net import ActorCritic

    try:
        torch.set_num_threads(1)
        setup = prepare(args)
        model = ActorCritic(setup.net)
        model.eval()
        tables = [(g, i, NetEvaluator(model, i, g.num_players)) for g, i in setup.tables]
        selfplay = SelfPlay(tables, slots, args, seed, width)
        while (message := conn.recv()) is not None:
            weights, steps = message
            model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
            rows = _Rows()
            selfplay.round(rows, steps)
            counts = (selfplay.games_done, selfplay.decisions, selfplay.simulations)
            conn.send(("rows", rows.rows, counts))
    except Exception:  # the parent raises it with the worker's traceback
        conn.send(("error", traceback.format_exc(), None))
    finally:
        conn.close()


class SelfPlayWorkers:
    """``SelfPlay`` over ``num_workers`` processes: game ``i`` of ``slots`` plays in
    worker ``i % num_workers`` (seeded ``seed + 1_000_003 x worker``), each with its own
    copy of ``model`` refreshed from this process's weights before every round, the rows
    its games finish added to this process's replay buffer in worker order. Processes are
    forked where the OS allows (games registered at run time are seen), else spawned."""

    def __init__(self, model: Any, args: Args, slots: list[int], seed: int, width: int) -> None:
        from choco_envs.train.games import start_workers

        self.model = model
        self.counts = [(0, 0, 0)] * args.num_workers
        n = args.num_workers
        self.conns, self.procs = start_workers(
            _selfplay_worker,
            [(args, slots[w::n], seed + 1_000_003 * w, width) for w in range(n)],
        )

    @property
    def games_done(self) -> int:
        return sum(c[0] for c in self.counts)

    @property
    def decisions(self) -> int:
        return sum(c[1] for c in self.counts)

    @property
    def simulations(self) -> int:
        return sum(c[2] for c in self.counts)

    def round(self, replay: Any, steps: int) -> None:
        """Every worker plays ``steps`` decisions of each of its games with the current
        weights; their finished rows go into ``replay``."""
        weights = {k: v.detach().numpy().copy() for k, v in self.model.state_dict().items()}
        for conn in self.conns:
            conn.send((weights, steps))
        answers = [conn.recv() for conn in self.conns]
        for w, (kind, payload, counts) in enumerate(answers):
            if kind == "error":
                self.close()
                raise RuntimeError(f"self-play worker {w} failed:\n{payload}")
            for row in payload:
                replay.add(*row)
            self.counts[w] = counts

    def close(self) -> None:
        from choco_envs.train.games import stop_workers

        stop_workers(self.conns, self.procs, None)
        self.conns, self.procs = [], []


# ---------------------------------------------------------------- learning
def learn(model: Any, optimizer: Any, replay: Replay, steps: int, args: Args, gen: Any) -> dict:
    import torch

    totals = {"policy": 0.0, "value": 0.0, "entropy_target": 0.0}
    model.train()
    for _ in range(steps):
        x, mask, policy, value = (torch.from_numpy(a) for a in replay.sample(args.batch_size, gen))
        logits, v = model(x, mask)
        logp = logits.log_softmax(-1)
        policy_loss = -(policy * logp.masked_fill(~mask, 0.0)).sum(-1).mean()
        value_loss = ((torch.tanh(v.reshape(value.shape)) - value) ** 2).mean()
        loss = policy_loss + args.value_coef * value_loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        totals["policy"] += float(policy_loss.detach())
        totals["value"] += float(value_loss.detach())
        totals["entropy_target"] += float(-(policy * policy.clamp_min(1e-12).log()).sum(-1).mean())
    model.eval()
    return {k: v / max(1, steps) for k, v in totals.items()}


def warm_value(model: Any, tables: list[tuple[Any, Any]], games: int, args: Args) -> float:
    """Fit the value head to the outcomes of ``games`` games of the network's own policy
    (moves sampled from it; with ``bot_seats`` the bots of self-play sit at those games
    as they will in self-play, and only the network's seats are fitted; the games shared
    among ``tables``, each a (game, policy inputs), by ``table_weights`` as self-play's
    are, ``value_warmup_workers`` processes playing them) before the search trusts its
    values, the policy kept by a KL term to its starting self. ``value_warmup_keep``
    keeps that many decisions a game; ``value_warmup_holdout`` holds out that share of
    the games (played after the others) and keeps the weights of the lowest held-out
    error, checked every 250 steps. Returns the final squared error: the held-out one
    when games are held out, else the last batch's."""
    import torch

    held = int(round(games * args.value_warmup_holdout))
    data = [
        _warmup_decisions(model, tables, warmup_shares(args, part, len(tables)), args, k)
        for k, part in enumerate((games - held, held))
    ]
    check = None
    if len(data[1][0]):
        check = (torch.from_numpy(data[1][0]), torch.from_numpy(data[1][1]))
    x_all, z_all = torch.from_numpy(data[0][0]), torch.from_numpy(data[0][1])
    steps = max(300, 6 * len(x_all) // 256)
    return fit_value(
        model, (x_all, z_all), check, steps, args.value_warmup_lr, args.seed, args.progress
    )


def fit_value(
    model: Any,
    fitted: tuple[Any, Any],
    check: tuple[Any, Any] | None,
    steps: int,
    lr: float,
    seed: int,
    progress: bool = False,
) -> float:
    """Fit the value head of ``model`` to targets: ``steps`` Adam steps (rate ``lr``) of
    256 rows of ``fitted`` (inputs, targets (rows, value outputs), tensors) on the squared
    error of tanh(value), the policy kept by a KL term to its starting self. With
    ``check`` (held-out inputs, targets) the error there is checked every 250 steps and
    the weights of the lowest kept. Returns the final squared error: the held-out one
    with ``check``, else the last batch's."""
    import copy

    import torch

    gen = torch.Generator().manual_seed(seed)
    outputs = model.config.value_outputs
    x_all, z_all = fitted
    full = torch.ones((1, model.config.num_actions), dtype=torch.bool)
    start = copy.deepcopy(model).eval()  # the policy the KL term keeps
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss = torch.tensor(0.0)
    best: tuple[float, dict[str, Any] | None] = (float("inf"), None)
    model.train()
    for step in range(steps + 1):
        if check is not None and (step % 250 == 0 or step == steps):
            error = _value_error(model, check[0], check[1], full, outputs)
            if error < best[0]:
                best = (error, copy.deepcopy(model.state_dict()))
            if progress:
                print(f"  value fit: step {step}/{steps}, held-out error {error:.4f}", flush=True)
        if step == steps:
            break
        idx = torch.randint(0, len(x_all), (256,), generator=gen)
        with torch.no_grad():
            start_logp = start(x_all[idx], full.expand(len(idx), -1))[0].log_softmax(-1)
        logits, v = model(x_all[idx], full.expand(len(idx), -1))
        loss = ((torch.tanh(v.reshape(len(idx), outputs)) - z_all[idx]) ** 2).mean()
        # keep the started policy: KL(start || now) on the same inputs
        keep = (start_logp.exp() * (start_logp - logits.log_softmax(-1))).sum(-1)
        optimizer.zero_grad()
        (loss + keep.mean()).backward()
        optimizer.step()
    model.eval()
    if best[1] is not None:
        model.load_state_dict(best[1])
        return best[0]
    return float(loss.detach())


def warmup_shares(args: Args, games: int, num_tables: int) -> list[int]:
    """How many of ``games`` warm-up games each of the ``num_tables`` tables (as
    ``args.tables()``) plays: shares by ``table_weights``, as self-play's games are
    shared (``env_tables``), the remainder to the first tables."""
    tables = args.tables() if num_tables > 1 else [None]
    weights = [sum(1 for t in args.env_tables() if t == table) for table in tables]
    if num_tables == 1 or len(weights) != num_tables:
        weights = [1] * num_tables
    total = sum(weights)
    shares = [games * w // total for w in weights]
    for k in range(games - sum(shares)):
        shares[k % num_tables] += 1
    return shares


#: games one warm-up process plays at a time (a chunk: one batch of the policy's moves)
WARMUP_CHUNK = 250


def _warmup_decisions(
    model: Any, tables: list[tuple[Any, Any]], shares: list[int], args: Args, part: int
) -> tuple[np.ndarray, np.ndarray]:
    """The policy inputs and outcome targets of the warm-up games of ``shares`` (games
    per table); ``part`` 0 for the fitted games, 1 for the held-out ones. One process:
    every game in this one, from one random stream; ``value_warmup_workers`` > 1: chunks
    of WARMUP_CHUNK games in that many processes, each chunk seeded by its place."""
    import torch

    outputs = model.config.value_outputs
    if args.value_warmup_workers <= 1:
        rng = random.Random(args.seed + 7 + 1_000_003 * part)
        gen = torch.Generator().manual_seed(args.seed + part)
        seats = seat_bots(args, args.seed + 11)
        xs: list[np.ndarray] = []
        targets: list[np.ndarray] = []
        for (game, inputs), share in zip(tables, shares, strict=True):
            _play_own_games(
                model, game, inputs, share, (rng, gen), seats, (xs, targets), outputs, args,
                args.value_warmup_keep,
            )  # fmt: skip
        return _stacked(xs, targets, tables[0][1].size, outputs)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
    jobs: list[tuple[Args, dict[str, Any], int, int, int]] = []
    for t, share in enumerate(shares):
        for start in range(0, share, WARMUP_CHUNK):
            seed = args.seed + 7 + 1_000_003 * part + 7919 * len(jobs)
            jobs.append((args, weights, t, min(WARMUP_CHUNK, share - start), seed))
    results: list[Any] = [None] * len(jobs)
    began, done = time.perf_counter(), 0
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(args.value_warmup_workers, mp_context=context) as pool:
        futures = {pool.submit(_warmup_job, job): k for k, job in enumerate(jobs)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            done += jobs[futures[future]][3]
            if args.progress:
                print(
                    f"  value warm-up ({'held-out' if part else 'fitted'} games): {done}/"
                    f"{sum(shares)} games, {time.perf_counter() - began:.0f} s",
                    flush=True,
                )
    if not results:
        return _stacked([], [], tables[0][1].size, outputs)
    return np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results])


def _stacked(
    xs: list[np.ndarray], targets: list[np.ndarray], size: int, outputs: int
) -> tuple[np.ndarray, np.ndarray]:
    if not xs:
        return np.zeros((0, size), np.float32), np.zeros((0, outputs), np.float32)
    return np.stack(xs), np.stack(targets)


def _warmup_job(job: tuple[Args, dict[str, Any], int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """One warm-up chunk in a worker process: (args, the network's weights, the table's
    index in ``args.tables()``, games, seed) -> its inputs and targets."""
    import torch

    from choco_envs.policy.net import ActorCritic

    args, weights, t, games, seed = job
    torch.set_num_threads(1)
    setup = prepare(args)
    model = ActorCritic(setup.net)
    model.load_state_dict(weights)
    model.eval()
    game, inputs = setup.tables[t]
    xs: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    randomness = (random.Random(seed), torch.Generator().manual_seed(seed))
    outputs = model.config.value_outputs
    _play_own_games(
        model, game, inputs, games, randomness, seat_bots(args, seed + 11), (xs, targets),
        outputs, args, args.value_warmup_keep,
    )  # fmt: skip
    return _stacked(xs, targets, inputs.size, outputs)


def _value_error(model: Any, x: Any, z: Any, full: Any, outputs: int) -> float:
    """Mean squared error of tanh(value) against the outcomes ``z`` of inputs ``x``, in
    slices (evaluation mode for the count, the caller's mode restored)."""
    import torch

    was_training = model.training
    model.eval()
    total = 0.0
    with torch.no_grad():
        for k in range(0, len(x), 4096):
            _, v = model(x[k : k + 4096], full.expand(len(x[k : k + 4096]), -1))
            total += float(((torch.tanh(v.reshape(-1, outputs)) - z[k : k + 4096]) ** 2).sum())
    model.train(was_training)
    return total / (len(x) * outputs)


def _play_own_games(
    model: Any,
    game: Any,
    inputs: Any,
    games: int,
    randomness: tuple[random.Random, Any],
    seats: tuple[Any, list[Any]],
    out: tuple[list[np.ndarray], list[np.ndarray]],
    outputs: int,
    args: Args,
    keep: int = 0,
) -> None:
    """``games`` games of ``game`` with moves sampled from ``model`` in the network's
    seats, the others played by the bots of ``seats`` (``seat_bots``: roles drawn per
    game); each network decision's input to ``out[0]`` and its seat's outcomes (own
    first, the first ``outputs``) to ``out[1]``, game after game; with ``keep`` > 0 only
    that many of a game's decisions, drawn at random (their rows copied, so that a batch's
    array is not kept alive by one row). ``randomness``: (the games' and bots' rng, the
    sampling torch generator)."""
    import torch

    from choco_envs.train.games import play_bot

    (rng, gen), (league, bots), (xs, targets) = randomness, seats, out
    n = game.num_players
    width = min(games, 256)
    played = 0
    while played < games:
        states = [game.new_state(rng) for _ in range(min(width, games - played))]
        roles = [draw_roles(league, n, rng) for _ in states]
        trail: list[list[tuple[np.ndarray, int]]] = [[] for _ in states]
        live = list(range(len(states)))
        while live:
            for i in live:  # the bots' seats move until a network seat's turn
                s = states[i]
                while not game.is_over(s) and roles[i][game.current_player(s)] >= 0:
                    seat = game.current_player(s)
                    play_bot(game, s, seat, bots[roles[i][seat]], rng)
            live = [i for i in live if not game.is_over(states[i])]
            if not live:
                break
            players = [game.current_player(states[i]) for i in live]
            obs = [inputs.encoder.encode(states[i], p) for i, p in zip(live, players, strict=True)]
            x = inputs.from_observations(np.stack(obs))  # one call: features batch
            mask = np.stack([game.legal_mask(states[i]) for i in live])
            with torch.no_grad():
                logits, _ = model(torch.from_numpy(x), torch.from_numpy(mask))
            actions = torch.multinomial(logits.softmax(-1), 1, generator=gen).squeeze(-1)
            for k, i in enumerate(live):
                trail[i].append((x[k], players[k]))
                game.apply(states[i], int(actions[k]), rng)
            live = [i for i in live if not game.is_over(states[i])]
        for i, s in enumerate(states):
            r = outcomes(game, s, args)
            kept = trail[i]
            if 0 < keep < len(kept):
                kept = [
                    (kept[j][0].copy(), kept[j][1])
                    for j in sorted(rng.sample(range(len(kept)), keep))
                ]
            for x_row, p in kept:
                xs.append(x_row)
                targets.append(np.array([r[(p + k) % n] for k in range(outputs)], np.float32))
        played += len(states)


# ---------------------------------------------------------------- evaluation
def evaluate_network(
    model: Any, args: Args, games: int, seed: int, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The network alone against each of ``eval_opponents`` at the options' table (or
    ``options``: another table of a run of many)."""
    from choco_envs.train.evaluate import evaluate

    table = args.options if options is None else options
    return {
        opp: evaluate(
            model,
            args.env_id,
            table,
            args.encoder,
            opp,
            games,
            seed,
            args.feature,
            max_players=args.max_players,
            mode_marks=args.mode_marks,
        )  # fmt: skip
        for opp in args.eval_opponents
    }


def final_evaluation(model: Any, args: Args) -> tuple[dict[str, Any], dict[str, Any]]:
    """The network alone's stored evaluation: ``final_eval_games`` against each of
    ``eval_opponents`` at the options' table (``arena``) and at each other player count
    (``arena_tables``), on the deals of seed 20,000 (so a rounded copy of the file,
    ``choco_envs.train.compact``, meets the same ones)."""
    arena = evaluate_network(model, args, args.final_eval_games, seed=20_000)
    tables = {
        str(t["num_players"]): evaluate_network(model, args, args.final_eval_games, 20_000, t)
        for t in args.other_tables()
    }
    return arena, tables


def evaluate_search(model: Any, args: Args, opponent: str, games: int, seed: int) -> dict[str, Any]:
    """The search bot (``play_simulations``, no root noise) against ``opponent`` in every
    other seat: duplicate deals, seats rotated, every game's search batched together."""
    from choco_envs import bots
    from choco_envs.bots.base import AgentView
    from choco_envs.policy.az_bot import NetEvaluator
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.policy.search import GumbelSearch, Root, SearchConfig
    from choco_envs.registry import make_game
    from choco_envs.train.evaluate import summary

    game = make_game(args.env_id, **args.options)
    inputs = PolicyInputs(game, args.encoder, args.feature, args.max_players, args.mode_marks)
    n = game.num_players
    games = max(n, games - games % n)
    config = SearchConfig(
        args.play_simulations, args.max_considered, 0.0, args.c_visit, play_c_scale(args),
        margin_weight=args.value_margin, margin_scale=args.value_margin_scale,
    )  # fmt: skip
    search = GumbelSearch(game, NetEvaluator(model, inputs, n), config, seed=seed)
    rngs = [random.Random(seed + g // n) for g in range(games)]
    states = [game.new_state(r) for r in rngs]
    seats = [g % n for g in range(games)]
    opponents = [bots.make(opponent, env_id=args.env_id, seed=seed + g) for g in range(games)]
    flat = game.encoder("flat")
    while True:
        roots, slots = [], []
        for g, s in enumerate(states):
            while not game.is_over(s) and game.current_player(s) != seats[g]:
                p = game.current_player(s)
                view = AgentView(game, s, p, flat.encode(s, p), game.legal_mask(s))
                game.apply(s, opponents[g].act_view(view), rngs[g])
            if game.is_over(s):
                continue
            legal = game.legal_actions(s)
            if len(legal) == 1:
                game.apply(s, legal[0], rngs[g])
                continue

            def draw(rng: random.Random, s: Any = s, p: int = seats[g]) -> Any:
                return game.determinize(s, p, rng)

            roots.append(Root(draw, seats[g], legal))
            slots.append(g)
        if not roots:
            if all(game.is_over(s) for s in states):
                break
            continue
        for g, result in zip(slots, search.run(roots), strict=True):
            game.apply(states[g], result.action, rngs[g])
    values = np.array([game.returns(s)[seats[g]] for g, s in enumerate(states)])
    return {**summary(values, n, opponent, seed), "simulations": args.play_simulations}


# ---------------------------------------------------------------- files
def meta_of(
    args: Args, setup: Setup, games: int, arena: dict, command: str, curve: Curve | None = None
) -> dict[str, Any]:
    """The file's metadata (``choco_envs.train.outputs.checkpoint_meta``, every engine's
    writer) with the search settings the az bot plays by and the learning curve so far."""
    from choco_envs.train.outputs import checkpoint_meta

    return checkpoint_meta(
        setup.game, args.encoder, inputs=setup.inputs, args=args, steps=games, arena=arena,
        command=command, search=meta_search(args),
        curve=None if curve is None else curve.stored(),
    )  # fmt: skip


def meta_search(args: Args) -> dict[str, Any]:
    """The search settings a file stores, the ``az`` bot's defaults: its simulations,
    root actions considered, ``c_visit``, ``c_scale`` (``play_c_scale``) and, with
    ``value_margin``, how a finished game is valued (``margin_weight``, ``margin_scale``)."""
    search: dict[str, Any] = {
        "simulations": args.play_simulations,
        "max_considered": args.max_considered,
        "c_visit": args.c_visit,
        "c_scale": play_c_scale(args),
    }
    if args.value_margin:
        search["margin_weight"] = args.value_margin
        search["margin_scale"] = args.value_margin_scale
    return search


# ---------------------------------------------------------------- the loop
def train(args: Args, command: str = "") -> Path:
    import torch

    from choco_envs.policy.az_bot import NetEvaluator
    from choco_envs.policy.checkpoint import load_policy, save_checkpoint
    from choco_envs.policy.net import ActorCritic

    setup = prepare(args)
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    run_dir = args.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    model = ActorCritic(setup.net)
    optimizer = torch.optim.Adam(
        model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay
    )
    games_before, minutes_before = 0, 0.0
    curve = Curve(run_dir, "games", setup.resume)
    if setup.start is not None:
        start, _ = load_policy(setup.start, args.env_id, dict(setup.game.config))
        weights = start.state_dict()
        if start.config.value_outputs != setup.net.value_outputs:  # the value head starts fresh
            weights = {k: v for k, v in weights.items() if not k.startswith("critic.")}
        model.load_state_dict(weights, strict=False)
        if args.value_warmup_games and setup.resume is None:
            model.eval()
            error = warm_value(model, setup.tables, args.value_warmup_games, args)
            print(
                f"value head fitted on {args.value_warmup_games} games of the start policy "
                f"({'held-out ' if args.value_warmup_holdout else ''}squared error {error:.3f})",
                flush=True,
            )
    if setup.resume is not None:
        loaded, meta = load_policy(setup.resume, args.env_id, dict(setup.game.config))
        model.load_state_dict(loaded.state_dict())
        state_file = setup.resume.with_name("latest_state.pt")
        if state_file.is_file():
            saved = torch.load(state_file, weights_only=True)
            optimizer.load_state_dict(saved["optimizer"])
        games_before = int(meta["steps_trained"])
        minutes_before = float(meta["training"].get("minutes", 0.0))
    model.eval()
    writer = None
    if args.track:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir))
    tables = [(g, i, NetEvaluator(model, i, g.num_players)) for g, i in setup.tables]
    slots = table_slots(args)
    width = setup.net.value_outputs
    selfplay: Any
    if args.num_workers:
        selfplay = SelfPlayWorkers(model, args, slots, args.seed + games_before, width)
    else:
        selfplay = SelfPlay(tables, slots, args, args.seed + games_before, width)
    replay = Replay(args.replay_size, setup.inputs.size, setup.game.num_actions, width)
    gen = np.random.default_rng(args.seed)
    began = time.perf_counter()
    spent = 0.0  # seconds of self-play and learning
    next_eval = args.eval_every_minutes * 60
    losses: dict[str, float] = {}

    def minutes() -> float:
        return minutes_before + spent / 60

    def record(arena: dict[str, Any]) -> None:
        games = games_before + selfplay.games_done
        rates = {k: v["win_rate"] for k, v in arena.items()}
        curve.add(minutes(), games, rates, "az", {k: v["games"] for k, v in arena.items()})
        for opp, res in arena.items():
            if writer is not None:
                rating = elo(res["win_rate"], res["games"])
                writer.add_scalar(f"eval/{opp}", res["win_rate"], games)
                writer.add_scalar(f"eval/elo_vs_{opp}", rating, games)
                writer.add_scalar(f"eval_by_minute/{opp}", res["win_rate"], int(minutes()))
                writer.add_scalar(f"eval_by_minute/elo_vs_{opp}", rating, int(minutes()))
        meta = meta_of(args, setup, games, arena, command, curve)
        meta["training"]["minutes"] = round(minutes(), 2)
        save_checkpoint(run_dir / "latest.safetensors", model, meta)
        torch.save({"optimizer": optimizer.state_dict()}, run_dir / "latest_state.pt")
        print(
            f"[{minutes():6.1f} min] games {games:>7}  "
            + "  ".join(f"vs {k}: {v:.3f}" for k, v in rates.items()),
            flush=True,
        )

    def out_of_budget() -> bool:
        if not (args.total_games or args.max_minutes):  # a value warm-up alone
            return True
        if args.total_games and games_before + selfplay.games_done >= args.total_games:
            return True
        return bool(args.max_minutes) and minutes() - minutes_before >= args.max_minutes

    try:
        while not out_of_budget():
            tick = time.perf_counter()
            before = replay.added
            selfplay.round(replay, args.moves_per_iteration)
            new = replay.added - before
            if replay.size >= args.batch_size and new > 0:
                steps = max(1, int(round(new * args.reuse / args.batch_size)))
                losses = learn(model, optimizer, replay, steps, args, gen)
            took = time.perf_counter() - tick
            spent += took
            if writer is not None and losses:
                step = games_before + selfplay.games_done
                for k, v in losses.items():
                    writer.add_scalar(f"losses/{k}", v, step)
                writer.add_scalar(
                    "charts/decisions_per_s", selfplay.decisions / max(spent, 1e-9), step
                )
                writer.add_scalar(
                    "charts/simulations_per_s", selfplay.simulations / max(spent, 1e-9), step
                )
            if args.progress:
                print(
                    f"  {minutes():6.1f} min  games {games_before + selfplay.games_done:>7}  "
                    f"decisions {selfplay.decisions:>8}  sims/s {selfplay.simulations / max(spent, 1e-9):7.0f}"
                    + "".join(f"  {k} {v:.3f}" for k, v in losses.items()),
                    flush=True,
                )
            if spent >= next_eval:
                record(evaluate_network(model, args, args.eval_games, seed=10_000))
                next_eval += args.eval_every_minutes * 60
    finally:
        if isinstance(selfplay, SelfPlayWorkers):
            selfplay.close()
    print(f"self-play and learning took {time.perf_counter() - began:.0f} s; final evaluation")
    arena, arena_tables = final_evaluation(model, args) if args.final_eval_games else ({}, {})
    if args.final_eval_games:
        record(arena)
    for key, results in arena_tables.items():
        print(f"at {key} players: " + "  ".join(
            f"vs {k}: {v['win_rate']:.3f}" for k, v in results.items()))  # fmt: skip
    search_arena = {}
    if args.search_eval_games:
        for opp in args.search_eval_opponents:
            res = evaluate_search(model, args, opp, args.search_eval_games, 30_000)
            search_arena[opp] = res
            print(
                f"az ({args.play_simulations} simulations) vs {opp}: {res['win_rate']:.3f} {res['win_rate_ci95']}"
            )
    meta = meta_of(args, setup, games_before + selfplay.games_done, arena, command, curve)
    meta["arena_search"] = search_arena
    if arena_tables:
        meta["arena_tables"] = arena_tables
    meta["training"]["minutes"] = round(minutes(), 2)
    meta["training"]["simulations_per_s"] = round(selfplay.simulations / max(spent, 1e-9), 1)
    path = save_checkpoint(args.final_path, model, meta)
    curve.plot(run_dir / "curve.png", f"{args.env_id} az")
    if writer is not None:
        writer.close()
    print(f"saved {path} after {games_before + selfplay.games_done} self-play games")
    return path


# ---------------------------------------------------------------- command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config FILE`` and one flag per Args field."""
    from choco_envs.train.config import add_config_and_flags

    add_config_and_flags(parser, Args)


def args_from(ns: argparse.Namespace) -> Args:
    """Args from the defaults, then ``--config``, then the flags given (ConfigError)."""
    from choco_envs.train.config import args_from_namespace

    return args_from_namespace(Args, ns)


def main(argv: list[str] | None = None, prog: str = "python -m choco_envs.train.az") -> int:
    import shlex

    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    argv = sys.argv[1:] if argv is None else argv
    ns = parser.parse_args(argv)
    try:
        train(args_from(ns), command=f"{prog} {shlex.join(argv)}")
    except ChocoError as err:
        print(f"{prog.split()[-1]}: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
