"""Playing arena games: the schedule (lineups, seat rotations, duplicate deals), one
game with bots, and a whole run on one or several processes with a progress bar."""

from __future__ import annotations

import hashlib
import itertools
import math
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from choco_envs.arena.stats import GameResult
from choco_envs.bots.base import Bot
from choco_envs.bots.registry import make as make_bot
from choco_envs.core.errors import ConfigError
from choco_envs.core.outcomes import places

#: an env id from the registry, or a Game class (tests use their own games)
EnvSource = Any


@dataclass(frozen=True)
class Entrant:
    """A competitor: a display name, a picklable factory ``seed -> Bot`` and, for a bot
    that plays a checkpoint file, that file (``{"path", "weights_sha256"}``: the report
    says which network played)."""

    name: str
    factory: Callable[[int | None], Bot]
    checkpoint: dict[str, Any] | None = None


def checkpoint_of(bot: Bot) -> dict[str, Any] | None:
    """``{"path", "weights_sha256"}`` of the file ``bot`` plays (its ``path``; the digest
    of its tensors, unchanged when its metadata is rewritten), and for a search bot its
    budget (``search``: simulations, or seconds a move, c_scale, the root actions it
    considers, and ``leaf_batch`` where it is not 1); else None."""
    from pathlib import Path

    from choco_envs.policy.checkpoint import weights_sha256

    path = getattr(bot, "path", None)
    if not isinstance(path, Path) or not path.is_file():
        return None
    out: dict[str, Any] = {"path": str(path), "weights_sha256": weights_sha256(path)}
    config: Any = getattr(bot, "config", None)  # a search bot: the budget it was given
    if config is not None and hasattr(config, "simulations") and hasattr(config, "c_scale"):
        out["search"] = {"simulations": config.simulations, "c_scale": config.c_scale,
                         "seconds": getattr(bot, "seconds", None)}  # fmt: skip
        if hasattr(config, "max_considered"):
            out["search"]["max_considered"] = config.max_considered
        if getattr(config, "leaf_batch", 1) != 1:
            out["search"]["leaf_batch"] = config.leaf_batch
    return out


@dataclass(frozen=True)
class GameJob:
    """One game to play: the deal (env seed) and which entrant sits in each seat."""

    index: int
    deal: int
    rotation: int
    env_seed: int
    seats: tuple[int, ...]


def derive_seed(*parts: object) -> int:
    """A stable 63-bit seed from any parts (the same on every platform and process)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def entrants_from_specs(
    specs: Sequence[str], env_id: str | None, env_options: dict[str, Any] | None = None
) -> list[Entrant]:
    """Entrants made from bot specs, named by their spec. Every spec is built once here so
    that a bad one fails before any game is played."""
    entrants = []
    for spec in specs:
        bot = make_bot(spec, env_id=env_id, seed=0, env_options=env_options)
        factory = partial(_bot_from_spec, spec, env_id, env_options)
        entrants.append(Entrant(spec.strip(), factory, checkpoint_of(bot)))
    return entrants


def _bot_from_spec(
    spec: str, env_id: str | None, env_options: dict[str, Any] | None, seed: int | None
) -> Bot:
    return make_bot(spec, env_id=env_id, seed=seed, env_options=env_options)


def lineups(num_entrants: int, num_players: int) -> list[tuple[int, ...]]:
    """Which entrants meet: every group of ``num_players`` when there are more entrants
    than seats; else one table with the entrants repeated in turn to fill the seats."""
    if num_entrants > num_players:
        return list(itertools.combinations(range(num_entrants), num_players))
    return [tuple(i % num_entrants for i in range(num_players))]


def schedule(num_entrants: int, num_players: int, games: int, seed: int) -> list[GameJob]:
    """At least ``games`` games in whole cycles: each deal is played once per rotation
    of its lineup over the seats (duplicate deals), and every lineup gets as many deals."""
    tables = lineups(num_entrants, num_players)
    cycle = len(tables) * num_players
    deals = math.ceil(max(games, 1) / cycle) * len(tables)
    jobs: list[GameJob] = []
    for deal in range(deals):
        lineup = tables[deal % len(tables)]
        env_seed = derive_seed(seed, "deal", deal)
        for rotation in range(num_players):
            seats = tuple(lineup[(seat + rotation) % num_players] for seat in range(num_players))
            jobs.append(GameJob(len(jobs), deal, rotation, env_seed, seats))
    return jobs


def make_env(source: EnvSource, num_players: int, env_options: dict[str, Any]) -> Any:
    """A raw AEC env that raises on an illegal action (a bot bug must not go unseen)."""
    options = {**env_options, "num_players": num_players, "illegal_action": "raise"}
    if isinstance(source, str):
        from choco_envs.registry import make_raw

        return make_raw(source, **options)
    from choco_envs.core.env import ChocoAECEnv

    return ChocoAECEnv(source, **options)


def play_game(env: Any, bots: Sequence[Bot], job: GameJob, arena_seed: int) -> GameResult:
    """Play one game of ``job`` with ``bots[seat]`` in each seat."""
    started = time.perf_counter()
    env.reset(seed=job.env_seed)
    for seat, bot in enumerate(bots):
        bot.reset(derive_seed(arena_seed, "bot", job.index, seat))
    moves = [0] * len(bots)
    think = [0.0] * len(bots)
    steps = 0
    while not all(env.terminations.values()):
        seat = env.agent_name_mapping[env.agent_selection]
        t0 = time.perf_counter()
        action = bots[seat].act(env)
        think[seat] += time.perf_counter() - t0
        moves[seat] += 1
        env.step(action)
        steps += 1
    game, state = env.game, env.state_
    keys = game.ranking_keys(state)
    return GameResult(
        index=job.index,
        deal=job.deal,
        rotation=job.rotation,
        env_seed=job.env_seed,
        seats=list(job.seats),
        scores=[float(x) for x in game.scores(state)],
        places=places(keys),
        steps=steps,
        seconds=time.perf_counter() - started,
        moves=moves,
        think_seconds=think,
    )


class _Table:
    """One process's env and bots, built once and reused game after game."""

    def __init__(
        self,
        source: EnvSource,
        num_players: int,
        env_options: dict[str, Any],
        entrants: Sequence[Entrant],
        arena_seed: int,
    ) -> None:
        self.env = make_env(source, num_players, env_options)
        self.entrants = entrants
        self.arena_seed = arena_seed
        self.bots: dict[tuple[int, int], Bot] = {}

    def play(self, job: GameJob) -> GameResult:
        bots = []
        for seat, entrant in enumerate(job.seats):
            copy = sum(1 for e in job.seats[:seat] if e == entrant)
            key = (entrant, copy)
            if key not in self.bots:
                self.bots[key] = self.entrants[entrant].factory(None)
            bots.append(self.bots[key])
        return play_game(self.env, bots, job, self.arena_seed)


_WORKER_TABLE: _Table | None = None


def _init_worker(*args: Any) -> None:
    global _WORKER_TABLE
    torch = sys.modules.get("torch")
    if torch is not None:
        # A forked child cannot use the thread pool its parent started (a policy bot's
        # first forward pass would wait on it forever); one thread per worker process.
        torch.set_num_threads(1)
    _WORKER_TABLE = _Table(*args)


def _play_in_worker(job: GameJob) -> GameResult:
    assert _WORKER_TABLE is not None
    return _WORKER_TABLE.play(job)


def play_all(
    source: EnvSource,
    num_players: int,
    env_options: dict[str, Any],
    entrants: Sequence[Entrant],
    jobs: Sequence[GameJob],
    arena_seed: int,
    workers: int = 1,
    progress: bool = True,
) -> list[GameResult]:
    """Play every job (on ``workers`` processes), in index order in the result."""
    if workers < 1:
        raise ConfigError(f"workers={workers!r} is not allowed; allowed: an int >= 1")
    table_args = (source, num_players, env_options, entrants, arena_seed)
    results: list[GameResult] = []
    with ProgressBar(len(jobs), enabled=progress) as bar:
        for result in _results(table_args, jobs, workers):
            results.append(result)
            bar.update(result)
    return sorted(results, key=lambda r: r.index)


def _results(
    table_args: tuple[Any, ...], jobs: Sequence[GameJob], workers: int
) -> Iterator[GameResult]:
    if workers == 1 or len(jobs) <= 1:
        table = _Table(*table_args)
        yield from (table.play(job) for job in jobs)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(min(workers, len(jobs)), _init_worker, table_args) as pool:
        yield from pool.imap_unordered(_play_in_worker, jobs)


class ProgressBar:
    """tqdm when installed, else a plain progress line on stderr."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        self.total = total
        self.enabled = enabled
        self.done = 0
        self.started = time.perf_counter()
        self._tqdm: Any = None
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._tqdm = tqdm(total=total, unit="game", desc="arena", file=sys.stderr)

    def __enter__(self) -> ProgressBar:
        return self

    def update(self, result: GameResult) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self._tqdm is not None:
            self._tqdm.update(1)
            return
        elapsed = time.perf_counter() - self.started
        print(f"\rarena: {self.done}/{self.total} games, {elapsed:.0f} s", end="", file=sys.stderr)

    def __exit__(self, *exc: object) -> None:
        if self._tqdm is not None:
            self._tqdm.close()
        elif self.enabled:
            print(file=sys.stderr)
