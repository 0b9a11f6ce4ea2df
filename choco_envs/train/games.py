"""Vectorized games for self-play and evaluation, on the Game protocol directly (no AEC
bookkeeping).

A vector holds ``num_envs`` games. Every seat of every game has a *role*, drawn when the
game starts: ``LEARNER`` (the policy being trained), ``PAST`` (a frozen past snapshot of
it, run by the trainer) or a bot (an index into ``bot_specs``, played inside the vector).
Bot turns are played inside the vector, so the trainer only ever sees decisions of
network seats: after ``reset`` and after every ``step``, every env waits for exactly one
network decision, given as the seat's policy input (``PolicyInputs``: the encoder's
observation, then the feature function's inputs). A finished game is reported with its
returns (rank-based, plus optionally a multiple of the score margin: reward shaping) and
replaced by a new one. Bots see the env's default observation of their seat, as in an env.

``GameVec`` runs its games in this process; ``ProcVec`` splits them over worker
processes (each holding a ``GameVec``) with the same interface.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from choco_envs.bots.base import AgentView, Bot
from choco_envs.core.errors import ConfigError
from choco_envs.core.outcomes import margins

LEARNER = -1
PAST = -2

#: roles of every seat of a new game, from (num_players, rng)
RoleSampler = Callable[[int, random.Random], list[int]]


@dataclass
class Decisions:
    """One pending network decision per env (``obs``: the seat's policy input), and the
    games that ended since the last call: ``finished`` holds (env index, returns per
    seat, roles per seat)."""

    obs: np.ndarray
    mask: np.ndarray
    seat: np.ndarray
    role: np.ndarray
    finished: list[tuple[int, list[float], list[int]]] = field(default_factory=list)


def shaped_returns(game: Any, s: Any, margin_coef: float) -> list[float]:
    """Rank-based returns of a finished game, plus ``margin_coef`` x (own score - best
    other score) for every seat (reward shaping; 0 leaves the rank returns)."""
    returns = [float(r) for r in game.returns(s)]
    if margin_coef:
        for p, own_margin in enumerate(margins(game.scores(s))):
            returns[p] += margin_coef * own_margin
    return returns


def make_bot(spec: str, env_id: str, seed: int | None) -> Bot:
    """A bot from the registry ``choco_envs.bots.make``."""
    from choco_envs.bots import make

    return make(spec, env_id=env_id, seed=seed)


def play_bot(game: Any, s: Any, seat: int, bot: Bot, rng: random.Random) -> None:
    """``bot`` plays ``seat``'s move in state ``s``, seeing its own observation of the
    seat, as in an env."""
    view = AgentView(game, s, seat, game.observe(s, seat), game.legal_mask(s))
    game.apply(s, bot.act_view(view), rng)


class LeagueRoles:
    """Draws seat roles: one seat is always the learner; every other seat is the learner
    itself with probability ``self_play``, a past snapshot with ``past``, else a bot drawn
    from ``bots`` by weight. With probability ``whole_table`` (bots needed) a table's
    other seats are all one bot drawn by weight instead: the arena's N-1 copies of a
    bot, which independent draws almost never give at 4 or more seats."""

    def __init__(
        self, self_play: float, past: float, bots: dict[str, float], whole_table: float = 0.0
    ) -> None:
        for name, p in (("self_play", self_play), ("past", past), ("whole_table", whole_table)):
            if not 0.0 <= p <= 1.0:
                raise ConfigError(f"league probability {name}={p!r} is not in [0, 1]")
        if self_play + past > 1.0 + 1e-9:
            raise ConfigError(f"league self_play + past = {self_play + past} exceeds 1")
        if self_play + past < 1.0 - 1e-9 and not any(w > 0 for w in bots.values()):
            raise ConfigError("league: self_play + past < 1 needs at least one bot with weight")
        if whole_table > 0 and not any(w > 0 for w in bots.values()):
            raise ConfigError("league: whole_table > 0 needs at least one bot with weight")
        self.self_play, self.past, self.whole_table = self_play, past, whole_table
        self.bot_specs = [b for b, w in bots.items() if w > 0]
        self.bot_weights = [bots[b] for b in self.bot_specs]

    def __call__(self, num_players: int, rng: random.Random) -> list[int]:
        learner_seat = rng.randrange(num_players)
        if self.whole_table and rng.random() < self.whole_table:
            bot = rng.choices(range(len(self.bot_specs)), self.bot_weights)[0]
            return [LEARNER if seat == learner_seat else bot for seat in range(num_players)]
        roles = []
        for seat in range(num_players):
            u = rng.random()
            if seat == learner_seat or u < self.self_play:
                roles.append(LEARNER)
            elif u < self.self_play + self.past:
                roles.append(PAST)
            else:
                roles.append(rng.choices(range(len(self.bot_specs)), self.bot_weights)[0])
        return roles


class GameVec:
    """``num_envs`` games of ``env_id`` in this process. ``options`` is one table's game
    options, or a list of them (player counts, modes): env ``i`` plays table
    ``i % len(options)``, and with ``max_players`` every seat's input is seat-padded to
    that many seats (``choco_envs.policy.seats``) so one network reads them all (and with
    ``mode_marks``, the table's value of each of those rule options is marked)."""

    def __init__(
        self,
        env_id: str,
        options: dict[str, Any] | Sequence[dict[str, Any]],
        encoder: str,
        num_envs: int,
        seed: int,
        roles: RoleSampler,
        bot_specs: Sequence[str] = (),
        deal_seeds: Sequence[int] | None = None,
        margin_coef: float = 0.0,
        feature: str = "",
        max_players: int = 0,
        mode_marks: dict[str, list[Any]] | None = None,
    ) -> None:
        from choco_envs.policy.features import PolicyInputs
        from choco_envs.registry import make_game

        self.margin_coef = margin_coef
        tables = [options] if isinstance(options, dict) else list(options)
        self.table_games = [make_game(env_id, **t) for t in tables]
        self.table_inputs = [
            PolicyInputs(g, encoder, feature, max_players, mode_marks) for g in self.table_games
        ]
        if len({i.size for i in self.table_inputs}) > 1:
            raise ConfigError(
                f"tables {tables} give policy inputs of different sizes: mixing player "
                "counts needs max_players (the seat-padded input)"
            )
        self.games = [self.table_games[i % len(tables)] for i in range(num_envs)]
        self.table_of = [i % len(tables) for i in range(num_envs)]
        self.game = self.table_games[0]
        self.inputs = self.table_inputs[0]
        self.num_envs = num_envs
        self.num_players = max(g.num_players for g in self.table_games)
        self.num_actions = self.game.num_actions
        self.input_size = self.inputs.size
        self.sampler = roles
        self.role_rng = random.Random(seed)
        self.bots = [make_bot(b, env_id, seed + 7919 * (i + 1)) for i, b in enumerate(bot_specs)]
        self.deal_seeds = deal_seeds
        self.rngs = [random.Random(seed * 100_003 + i) for i in range(num_envs)]
        self.states: list[Any] = [None] * num_envs
        self.roles: list[list[int]] = [[] for _ in range(num_envs)]
        self.steps = 0  # actions applied, all seats and bots together

    def _new_game(self, i: int) -> None:
        if self.deal_seeds is not None:
            self.rngs[i] = random.Random(self.deal_seeds[i])
        game = self.games[i]
        self.states[i] = game.new_state(self.rngs[i])
        self.roles[i] = self.sampler(game.num_players, self.role_rng)

    def _advance(self, i: int, finished: list[tuple[int, list[float], list[int]]]) -> None:
        """Play bot turns (and start new games) until env ``i`` waits for a network."""
        game = self.games[i]
        while True:
            s = self.states[i]
            if game.is_over(s):
                finished.append((i, shaped_returns(game, s, self.margin_coef), self.roles[i]))
                self._new_game(i)
                continue
            seat = game.current_player(s)
            role = self.roles[i][seat]
            if role < 0:
                return
            play_bot(game, s, seat, self.bots[role], self.rngs[i])
            self.steps += 1

    def _decisions(self, finished: list[tuple[int, list[float], list[int]]]) -> Decisions:
        n = self.num_envs
        x = np.empty((n, self.input_size), dtype=np.float32)
        mask = np.empty((n, self.num_actions), dtype=bool)
        seat = np.empty(n, dtype=np.int64)
        role = np.empty(n, dtype=np.int64)
        for t, inputs in enumerate(self.table_inputs):
            rows = [i for i in range(n) if self.table_of[i] == t]
            if not rows:
                continue
            obs = np.empty((len(rows), *inputs.encoder_shape), dtype=np.float32)
            for k, i in enumerate(rows):
                s, game = self.states[i], self.games[i]
                p = game.current_player(s)
                obs[k] = inputs.encoder.encode(s, p)
                mask[i] = game.legal_mask(s)
                seat[i] = p
                role[i] = self.roles[i][p]
            x[rows] = inputs.from_observations(obs)
        return Decisions(x, mask, seat, role, finished)

    def reset(self) -> Decisions:
        finished: list[tuple[int, list[float], list[int]]] = []
        for i in range(self.num_envs):
            self._new_game(i)
            self._advance(i, finished)
        return self._decisions(finished)

    def step(self, actions: Sequence[int] | np.ndarray) -> Decisions:
        """Apply one network action per env (each legal for its pending decision)."""
        finished: list[tuple[int, list[float], list[int]]] = []
        for i, a in enumerate(actions):
            self.games[i].apply(self.states[i], int(a), self.rngs[i])
            self.steps += 1
            self._advance(i, finished)
        return self._decisions(finished)

    def close(self) -> None:
        """Nothing to release: in-process games hold no workers."""


def _worker(conn: Any, kwargs: dict[str, Any]) -> None:
    vec = GameVec(**kwargs)
    while True:
        cmd, data = conn.recv()
        if cmd == "reset":
            conn.send((vec.reset(), vec.steps))
        elif cmd == "step":
            conn.send((vec.step(data), vec.steps))
        else:
            conn.close()
            return


def start_workers(target: Callable[..., None], jobs: list[tuple[Any, ...]]) -> tuple[list, list]:
    """One daemon process per job, ``target(child_pipe, *job)``, forked where the OS
    allows (so that games registered at run time are seen), else spawned: (this side's
    pipes, the processes)."""
    ctx: Any = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    conns, procs = [], []
    for job in jobs:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=target, args=(child, *job), daemon=True)
        proc.start()
        child.close()
        conns.append(parent)
        procs.append(proc)
    return conns, procs


def stop_workers(conns: list, procs: list, goodbye: Any) -> None:
    """Send each worker ``goodbye`` and wait for it (5 s each, then it is terminated)."""
    for conn in conns:
        # a worker that already exited has closed its pipe: nothing left to tell it
        with contextlib.suppress(BrokenPipeError, OSError):
            conn.send(goodbye)
    for proc in procs:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.terminate()


class ProcVec:
    """The games of a GameVec split over ``num_workers`` processes (forked where the OS allows, so that games registered at run time are seen)."""

    def __init__(self, num_workers: int, num_envs: int, seed: int, **kwargs: Any) -> None:
        if num_envs % num_workers:
            raise ConfigError(f"num_envs={num_envs} is not a multiple of num_workers={num_workers}")
        self.per = num_envs // num_workers
        self.num_envs = num_envs
        self.worker_steps = [0] * num_workers
        self.conns, self.procs = start_workers(
            _worker,
            [({**kwargs, "num_envs": self.per, "seed": seed + 1_000_003 * w},)
             for w in range(num_workers)],
        )  # fmt: skip

    @property
    def steps(self) -> int:
        return sum(self.worker_steps)

    def _gather(self) -> Decisions:
        parts = []
        for w, conn in enumerate(self.conns):
            part, self.worker_steps[w] = conn.recv()
            parts.append(part)
        finished = [
            (i + w * self.per, ret, roles)
            for w, part in enumerate(parts)
            for i, ret, roles in part.finished
        ]
        return Decisions(
            np.concatenate([p.obs for p in parts]),
            np.concatenate([p.mask for p in parts]),
            np.concatenate([p.seat for p in parts]),
            np.concatenate([p.role for p in parts]),
            finished,
        )

    def reset(self) -> Decisions:
        for conn in self.conns:
            conn.send(("reset", None))
        return self._gather()

    def step(self, actions: Sequence[int] | np.ndarray) -> Decisions:
        actions = np.asarray(actions)
        for w, conn in enumerate(self.conns):
            conn.send(("step", actions[w * self.per : (w + 1) * self.per]))
        return self._gather()

    def close(self) -> None:
        stop_workers(self.conns, self.procs, ("close", None))
