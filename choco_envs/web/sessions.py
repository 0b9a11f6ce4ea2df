"""Live games: who sits where, the seats' tokens, bots moving one at a time, expiry.

Every game lives in the server's event loop. A person's move is checked and applied at
once (the answer does not wait for any bot); the bots then move in a background task,
at least ``bot_delay`` seconds apart so that a person sees every move. A bot that thinks
(search, a checkpoint) chooses in a worker thread while the loop goes on answering; one
whose last move took under 2 ms chooses on the loop. Only the loop thread changes an
env: while a bot thinks its seat is the one to act, so every other request only reads.

A human seat is reached by its token alone (``secrets.token_urlsafe``: unguessable); a
token acts only for its seat, and a request without a token sees what a spectator sees.
Games untouched for ``idle_seconds`` (no request, no move) are dropped; a finished game's
record is saved before that, the moment it ends.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import random
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from choco_envs.core.errors import ChocoError, IllegalActionError
from choco_envs.registry import make
from choco_envs.web.catalog import MAX_SEATS, check_env, check_options, check_seat, full_config
from choco_envs.web.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    Full,
    Invalid,
    NotFound,
    excerpt,
)
from choco_envs.web.store import RecordStore
from choco_envs.web.views import final_scores, target, view

log = logging.getLogger("choco_envs.web")

HUMAN = "human"
#: the longest a state request waits for a change (``wait``), seconds
MAX_WAIT = 30.0
#: a bot move chosen faster than this (seconds) is cheaper on the event loop than in a
#: worker thread (random and most heuristics); slower ones (search, checkpoints) stay off it
QUICK_MOVE = 0.002


@dataclass
class Seat:
    """One seat: a person (with a token) or a bot (its spec and the bot itself)."""

    player: str
    token: str | None = None
    bot: Any = None
    #: the bot's last move took under QUICK_MOVE: its next one is chosen on the event
    #: loop (a thread hand-off would cost more); else in a worker thread
    quick: bool = False

    @property
    def human(self) -> bool:
        return self.bot is None


@dataclass
class Settings:
    """How the server runs its games (``choco serve`` flags)."""

    records: str | None = None
    policies: list[str] = field(default_factory=list)
    bot_delay: float = 0.6
    idle_seconds: float = 1800.0
    max_games: int = 200
    bot_workers: int = 2
    #: the longest a state request may wait for a change (``wait``), seconds
    max_wait: float = MAX_WAIT


class LiveGame:
    """One game in play and everything the server keeps about it."""

    def __init__(self, game_id: str, env: Any, seats: list[Seat], seed: int) -> None:
        self.id = game_id
        self.env = env
        self.seats = seats
        self.seed = seed
        self.version = 0
        self.log: list[dict[str, Any]] = []
        self.record_id: str | None = None
        self.error: str | None = None
        now = time.monotonic()
        self.last_active = now
        self.last_move_at = now
        self.changed = asyncio.Event()
        self.driver: asyncio.Task[None] | None = None
        self.closed = False

    # ------------------------------------------------------------------ queries
    @property
    def env_id(self) -> str:
        return str(self.env.game.spec.env_id)

    def seat_of(self, token: str | None) -> int | None:
        """The seat of ``token`` (None: no token, a spectator); Forbidden for a token
        that is not one of this game's seats."""
        if token is None:
            return None
        found = None
        for i, seat in enumerate(self.seats):
            if seat.token is not None and hmac.compare_digest(seat.token.encode(), token.encode()):
                found = i
        if found is None:
            raise Forbidden("this token is not a seat of this game")
        return found

    def to_act(self) -> int | None:
        if self.env.game_over():
            return None
        return int(self.env.agent_name_mapping[self.env.agent_selection])

    def touch(self) -> None:
        self.last_active = time.monotonic()

    def bump(self) -> None:
        """Something changed: wake every request waiting for a change."""
        self.version += 1
        self.touch()
        self.changed.set()
        self.changed = asyncio.Event()

    async def wait_change(self, since: int, timeout: float) -> None:
        """Return once ``version`` is past ``since`` or ``timeout`` seconds passed."""
        deadline = time.monotonic() + timeout
        while self.version <= since and not self.closed:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                return

    def snapshot(self, seat: int | None, log_from: int = 0) -> dict[str, Any]:
        """What the page of ``seat`` (None: a spectator) gets: the seat's view, whose
        turn, the seat's legal moves with the rules' names, scores once known."""
        env = self.env
        game, state = env.game, env.state_
        over = env.game_over()
        to_act = self.to_act()
        legal: list[dict[str, Any]] = []
        if seat is not None and seat == to_act and self.error is None:
            legal = [
                {"action": a, "name": env.action_to_string(a), "target": target(game, state, a)}
                for a in env.legal_actions()
            ]
        final = final_scores(game, state) if over else None
        scores = final["scores"] if final else None
        if scores is None and game.scores_public:
            try:
                scores = [float(v) for v in env.scores()]
            except ChocoError:
                scores = None
        return {
            "game_id": self.id,
            "env_id": self.env_id,
            "name": game.spec.name,
            "options": {k: v for k, v in game.config.items() if _jsonable(v)},
            "seed": self.seed,
            "seat": seat,
            "seats": [
                {"seat": i, "player": s.player, "human": s.human} for i, s in enumerate(self.seats)
            ],
            "version": self.version,
            "step": len(env.actions_taken),
            "view": view(game, state, seat),
            "to_act": to_act,
            "legal": legal,
            "over": over,
            "scores": scores,
            "breakdown": final["breakdown"] if final else None,
            "places": final["places"] if final else None,
            "log": self.log[log_from:],
            "log_from": log_from,
            "record_id": self.record_id,
            "error": self.error,
        }


class GameManager:
    """Every live game of one server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = RecordStore(settings.records) if settings.records else None
        self.games: dict[str, LiveGame] = {}
        self.pool = ThreadPoolExecutor(
            max_workers=max(1, settings.bot_workers), thread_name_prefix="choco-bot"
        )
        #: other blocking work (making bots, records, replays), apart from the bots' moves
        self.work = ThreadPoolExecutor(max_workers=2, thread_name_prefix="choco-work")
        self._sweeper: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        for game in list(self.games.values()):
            self._close(game)
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.work.shutdown(wait=False, cancel_futures=True)

    async def _sweep_forever(self) -> None:
        interval = max(0.5, min(60.0, self.settings.idle_seconds / 4))
        while True:
            await asyncio.sleep(interval)
            self.sweep()

    def sweep(self, now: float | None = None) -> int:
        """Drop the games idle for longer than ``idle_seconds``; how many."""
        now = time.monotonic() if now is None else now
        idle = [g for g in self.games.values() if now - g.last_active > self.settings.idle_seconds]
        for game in idle:
            self._close(game)
        return len(idle)

    def _close(self, game: LiveGame) -> None:
        game.closed = True
        if game.driver is not None:
            game.driver.cancel()
        self.games.pop(game.id, None)
        game.changed.set()

    # ------------------------------------------------------------------ games
    def get(self, game_id: str) -> LiveGame:
        game = self.games.get(game_id)
        if game is None:
            raise NotFound(f"no game {excerpt(game_id)} (it may have ended long ago and expired)")
        return game

    async def create(
        self, env_id: Any, options: Any, seats: Any, seed: int | None
    ) -> tuple[LiveGame, list[str | None]]:
        """A new game; its seats' tokens (None for a bot's seat)."""
        env_id = check_env(env_id)
        options = check_options(env_id, options)
        if not isinstance(seats, list) or not 1 <= len(seats) <= MAX_SEATS:
            raise Invalid(f"seats: a list of 1..{MAX_SEATS} entries, 'human' or a bot spec")
        players = options.setdefault("num_players", len(seats))
        if players != len(seats):
            raise Invalid(f"num_players={players!r} but {len(seats)} seats are listed")
        try:
            env = make(env_id, illegal_action="raise", **options)
        except ChocoError as err:
            raise Invalid(str(err)) from None
        config = full_config(env_id, options, len(seats))
        specs = [check_seat(s, env_id, config, self.settings.policies) for s in seats]
        if len(self.games) >= self.settings.max_games:
            self.sweep()
            if len(self.games) >= self.settings.max_games:
                raise Full(f"this server holds {len(self.games)} live games, its limit; try later")
        seed = secrets.randbelow(2**31) if seed is None else seed
        loop = asyncio.get_running_loop()
        made = await loop.run_in_executor(self.work, _make_seats, specs, env_id, options, seed)
        if len(self.games) >= self.settings.max_games:  # others were made meanwhile
            raise Full(f"this server holds {len(self.games)} live games, its limit; try later")
        env.reset(seed=seed)
        game_id = secrets.token_urlsafe(9)
        while game_id in self.games:
            game_id = secrets.token_urlsafe(9)
        game = LiveGame(game_id, env, made, seed)
        self.games[game_id] = game
        self._kick(game)
        return game, [s.token for s in made]

    def move(self, game: LiveGame, seat: int | None, action: int) -> None:
        """A person's move for ``seat``: checked against the rules first; a refusal
        (BadRequest with the rules' message) changes nothing."""
        if seat is None:
            raise Forbidden("a spectator cannot move; open a seat's link to play")
        if game.error is not None:
            raise Conflict(f"the game stopped: {game.error}")
        env = game.env
        if env.game_over():
            raise BadRequest(f"{game.env_id}: the game is over; no move is legal")
        to_act = game.to_act()
        if seat != to_act:
            raise BadRequest(
                f"{game.env_id}: it is player_{to_act}'s turn, not player_{seat}'s (yours)"
            )
        check_legal(env, action)
        self._play(game, seat, action)
        self._kick(game)

    def _play(self, game: LiveGame, seat: int, action: int) -> None:
        env = game.env
        name = env.action_to_string(action)
        where = target(env.game, env.state_, action)
        env.step(action)
        game.log.append(
            {
                "step": len(game.log) + 1,
                "seat": seat,
                "player": game.seats[seat].player,
                "action": action,
                "name": name,
                "target": where,
            }
        )
        game.last_move_at = time.monotonic()
        if env.game_over():
            self._finish(game)
        game.bump()

    def _finish(self, game: LiveGame) -> None:
        if self.store is None:
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        try:
            game.record_id = self.store.save(
                game.env.save(),
                f"{game.env_id}-{stamp}-{game.id}",
                players=[seat.player for seat in game.seats],
            )
        except OSError as err:
            log.error("could not save the record of game %s: %s", game.id, err)

    # ------------------------------------------------------------------ bots
    def _kick(self, game: LiveGame) -> None:
        """Let the bots move, if one is to act and none is moving yet."""
        if game.driver is None or game.driver.done():
            to_act = game.to_act()
            if to_act is not None and not game.seats[to_act].human and game.error is None:
                game.driver = asyncio.get_running_loop().create_task(self._drive(game))

    async def _drive(self, game: LiveGame) -> None:
        loop = asyncio.get_running_loop()
        seat = None
        try:
            while not game.closed and game.error is None:
                seat = game.to_act()
                if seat is None or game.seats[seat].human:
                    return
                info = game.seats[seat]
                if info.quick:
                    started = time.perf_counter()
                    action = int(info.bot.act(game.env))
                else:
                    started = time.perf_counter()
                    action = int(await loop.run_in_executor(self.pool, info.bot.act, game.env))
                info.quick = time.perf_counter() - started < QUICK_MOVE
                wait = game.last_move_at + self.settings.bot_delay - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if game.closed:
                    return
                self._play(game, seat, action)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001 - a failing bot stops its game, not the server
            who = f"player_{seat} ({game.seats[seat].player})" if seat is not None else "a bot"
            game.error = f"{who} could not move: {type(err).__name__}: {err}"
            log.exception("game %s: %s", game.id, game.error)
            game.bump()


def check_legal(env: Any, action: int) -> None:
    """BadRequest with the rules' own message unless ``action`` is legal now."""
    game, state = env.game, env.state_
    try:
        a = game.check_action_range(state, action)
        if not env.legal_mask()[a]:
            # the rules say why, on a copy (they refuse before changing anything)
            game.apply(game.copy(state), a, random.Random(0))
            raise game.illegal(state, a, "the action mask forbids it")
    except IllegalActionError as err:
        raise BadRequest(str(err)) from None


def _make_seats(specs: list[str], env_id: str, options: dict[str, Any], seed: int) -> list[Seat]:
    """The seats of a new game, each bot made and seeded (``seed + seat``, as ``choco
    play`` does); runs in a worker (a checkpoint loads torch)."""
    from choco_envs.bots import make as make_bot

    seats = []
    for i, spec in enumerate(specs):
        if spec == HUMAN:
            seats.append(Seat(HUMAN, token=secrets.token_urlsafe(18)))
            continue
        try:
            bot = make_bot(spec, env_id=env_id, seed=seed + i, env_options=options)
        except ChocoError as err:
            raise Invalid(f"seat {i} ({spec!r}): {err}") from None
        seats.append(Seat(spec, bot=bot))
    return seats


def _jsonable(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))
