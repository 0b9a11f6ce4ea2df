"""The analysis panel's server side: a chosen bot's view of the legal moves of the seat to
act, in a live game (``/api/games/{id}/analysis``) or at any step of a replay
(``/api/records/{id}/analysis``).

Every analysis is computed from the seat's :class:`~choco_envs.bots.base.AgentView`
alone (its observation, its mask, and determinizations of its view), never from the true
state: what the panel shows could have been worked out by that seat. The kinds of
analysis (:data:`ANALYSTS`) share one answer: ``moves``, one entry per legal move with
the rules' name, its place on the board (``target``) and the kind's numbers, best first;
``best``, the move the kind would play; and, where the kind has one, ``value`` (the
seat's expected return) with ``value_note`` saying what that return is. The numbers a
kind gives:

| kind | per move | value |
|---|---|---|
| ``ppo`` | ``p``: the shipped checkpoint's move probabilities (masked softmax) | the critic's estimate of its training return (rank -1 .. +1, plus the checkpoint's margin shaping) |
| ``greedy`` | ``share``: how often the game's ``greedy`` bot chooses it over :data:`SAMPLES` determinizations of the view | none |
| ``az`` | ``visits`` and ``q``: the shipped search-and-learn file's search (:data:`AZ_SIMULATIONS` simulations, each on a determinization of the view) | the network's value of the position for your seat (-1 last .. +1 first) |

Another kind (say, a search's ``visits``) is one more :class:`Analyst` given to
:func:`register`; the page shows whichever of ``p``, ``share`` and ``visits`` a move has.

The panel is off until a person switches it on. A seat can forbid it for the whole game
(``POST /api/games/{id}/analysis/forbid``: a ranked game against a friend); that cannot be
undone, and from then on every seat's request is refused (403). Replays (finished games)
always allow it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import math
import random
import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from choco_envs.bots.base import AgentView
from choco_envs.core.errors import ChocoError
from choco_envs.registry import make_game
from choco_envs.web import schema as api
from choco_envs.web.catalog import check_env, check_record_options
from choco_envs.web.errors import Conflict, Forbidden, Invalid, NotFound
from choco_envs.web.views import target

#: determinizations the ``greedy`` analysis samples
SAMPLES = 8
#: simulations of the ``az`` analysis (the shipped file's search, without noise)
AZ_SIMULATIONS = 128
#: analyses kept per server (the same position asked again is answered from here)
CACHE_SIZE = 256
TOKEN_LENGTH = 200


@dataclass(frozen=True)
class Analyst:
    """One kind of analysis. ``available(env_id, options)`` is None when it can analyse
    that configuration, else why not; ``analyse(view, env_id, options)`` returns, from
    the view alone, ``{"moves": {action: {"p"/"share"/"visits": number}}, "best": action}``
    and optionally ``"value"`` with ``"value_note"`` (what it estimates)."""

    kind: str
    label: str
    doc: str
    available: Callable[[str, dict[str, Any]], str | None]
    analyse: Callable[[AgentView, str, dict[str, Any]], dict[str, Any]]


ANALYSTS: dict[str, Analyst] = {}


def register(analyst: Analyst) -> None:
    """Offer one more kind of analysis (its ``kind`` must be new)."""
    if analyst.kind in ANALYSTS:
        raise ValueError(f"analysis kind {analyst.kind!r} is registered already")
    ANALYSTS[analyst.kind] = analyst


# ---------------------------------------------------------------- the policy (ppo)
class _Policies:
    """The shipped checkpoints, loaded once per file (thread-safe)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.loaded: dict[str, Any] = {}

    def path(self, env_id: str, options: dict[str, Any]) -> str:
        from choco_envs.policy import shipped_checkpoint

        return str(shipped_checkpoint(env_id, options))

    def get(self, env_id: str, options: dict[str, Any]) -> Any:
        path = self.path(env_id, options)
        with self.lock:
            if path not in self.loaded:
                from choco_envs.policy.checkpoint import check_compatible, load_policy
                from choco_envs.policy.features import PolicyInputs

                model, meta = load_policy(path, env_id)
                check_compatible(meta, path, env_id, options)
                game = make_game(env_id, **options)
                self.loaded[path] = (model, meta, PolicyInputs.of_checkpoint(game, meta))
            return self.loaded[path]


POLICIES = _Policies()


def _policy_available(env_id: str, options: dict[str, Any]) -> str | None:
    if importlib.util.find_spec("torch") is None:  # found, not imported (that is slow)
        return "needs torch (the 'train' extra)"
    try:
        POLICIES.path(env_id, options)
    except ChocoError as err:
        return str(err).split(";")[0]
    return None


def _policy_analyse(view: AgentView, env_id: str, options: dict[str, Any]) -> dict[str, Any]:
    import torch

    model, meta, inputs = POLICIES.get(env_id, options)
    if meta["encoder"] == "flat" and view.observation.shape == inputs.encoder_shape:
        obs = view.observation
    else:  # every determinization of the view encodes to the seat's same observation
        obs = inputs.encoder.encode(view.determinize(random.Random(0)), view.seat)
    x = torch.from_numpy(inputs.from_observations(np.asarray(obs)[None]))
    mask = torch.from_numpy(np.asarray(view.mask, dtype=bool))[None]
    with torch.no_grad():
        logits, value = model(x, mask)
    legal = view.legal_actions
    z = logits[0].double().numpy()[legal]
    p = np.exp(z - z.max())
    p /= p.sum()
    moves = {a: {"p": round(float(q), 4)} for a, q in zip(legal, p, strict=True)}
    margin = ((meta.get("training") or {}).get("args") or {}).get("margin_coef") or 0.0
    note = "its estimate of the return it was trained on: your rank, -1 last .. +1 first"
    if margin:
        note += f", plus {margin:g} x (your score - the best other score)"
    return {
        "moves": moves,
        "best": int(legal[int(np.argmax(p))]),
        "value": round(float(value[0]), 3),
        "value_note": note,
    }


# ---------------------------------------------------------------- the greedy bot
def _greedy_available(env_id: str, options: dict[str, Any]) -> str | None:
    from choco_envs.bots.game_kinds import game_bots

    kind = game_bots(env_id).get("greedy")
    return None if kind is not None and kind.policy is not None else "this game has no greedy bot"


def _greedy_analyse(view: AgentView, env_id: str, options: dict[str, Any]) -> dict[str, Any]:
    from choco_envs.bots.game_kinds import game_policy

    policy = game_policy(env_id, "greedy")
    legal = view.legal_actions
    chosen: Counter[int] = Counter()
    for k in range(SAMPLES):
        rng = random.Random(k)
        state = view.determinize(rng)
        chosen[legal[0] if len(legal) == 1 else int(policy(view.game, state, rng))] += 1
    moves = {a: {"share": chosen[a] / SAMPLES} for a in legal}
    best = max(legal, key=lambda a: (chosen[a], -a))
    return {"moves": moves, "best": best}


register(
    Analyst(
        "ppo",
        "policy (ppo)",
        "the shipped checkpoint: its probability of each move, and its estimate of how "
        "the game ends for you",
        _policy_available,
        _policy_analyse,
    )
)
register(
    Analyst(
        "greedy",
        "greedy bot",
        f"the game's greedy bot: the share of {SAMPLES} samples of what you cannot see "
        "in which it plays each move",
        _greedy_available,
        _greedy_analyse,
    )
)


# ---------------------------------------------------------------- the search (az)
_AZ_BOTS: dict[str, Any] = {}
_AZ_LOCK = threading.Lock()


def _az_available(env_id: str, options: dict[str, Any]) -> str | None:
    if importlib.util.find_spec("torch") is None:
        return "needs torch (the 'train' extra)"
    from choco_envs.policy.checkpoint import search_checkpoint

    try:
        search_checkpoint(env_id, options)
    except ChocoError as err:
        return str(err).split(";")[0]
    return None


def _az_analyse(view: AgentView, env_id: str, options: dict[str, Any]) -> dict[str, Any]:
    from choco_envs.policy.az_bot import AZBot
    from choco_envs.policy.checkpoint import search_checkpoint

    path = str(search_checkpoint(env_id, options))
    with _AZ_LOCK:  # one search at a time per file: the bot keeps per-game state
        bot = _AZ_BOTS.get(path)
        if bot is None:
            bot = _AZ_BOTS[path] = AZBot(path, env_id, simulations=AZ_SIMULATIONS, seed=0)
        bot.rng.seed(0)  # the same position gets the same answer
        result = bot.search(view)
    moves = {
        a: {"visits": int(v), "q": None if math.isnan(q) else round(float(q), 3)}
        for a, v, q in zip(result.legal, result.visits, result.q, strict=True)
    }
    return {
        "moves": moves,
        "best": int(result.action),
        "value": round(float(result.root_value[0]), 3),
        "value_note": "the network's estimate of how the game ends for you: -1 last .. +1 first",
    }


register(
    Analyst(
        "az",
        "search (az)",
        f"the az bot's search (the shipped search-and-learn file, else the shipped PPO "
        f"network): {AZ_SIMULATIONS} simulations, each on a sample of what you cannot see, "
        "and how often it visits each move",
        _az_available,
        _az_analyse,
    )
)


# ---------------------------------------------------------------- one analysis
@dataclass(frozen=True)
class Position:
    """What an analysis starts from: the seat's view (on a private copy of the state) and
    where each of its legal moves is made on the board."""

    view: AgentView
    places: dict[int, Any]


def position(game: Any, state: Any, seat: int, encoding: str = "flat") -> Position:
    """The position of ``seat`` (to act) in ``state``, on a copy taken now."""
    copy = game.copy(state)
    obs = game.observe(copy, seat, encoding)
    view = AgentView(game, copy, seat, obs, np.asarray(game.legal_mask(copy), dtype=bool))
    # the places of the seat's own legal moves, as its page shows them
    return Position(view, {a: target(game, copy, a) for a in view.legal_actions})


def analyse(kind: str, pos: Position, env_id: str, options: dict[str, Any]) -> dict[str, Any]:
    """The analysis of ``kind`` of the legal moves in ``pos``, from the seat's view only:
    the page's answer (names, places on the board, the kind's numbers, best first)."""
    analyst = ANALYSTS[kind]
    view = pos.view
    raw = analyst.analyse(view, env_id, options)
    numbers: dict[int, dict[str, Any]] = raw["moves"]

    def rank(a: int) -> tuple[float, int]:
        m = numbers[a]
        return (-float(m.get("visits", m.get("p", m.get("share", 0.0)))), a)

    moves = []
    for a in sorted(view.legal_actions, key=rank):
        move = {"action": a, "name": view.action_name(a), "target": pos.places[a]}
        move.update(numbers[a])
        moves.append(move)
    out: dict[str, Any] = {
        "kind": kind,
        "label": analyst.label,
        "doc": analyst.doc,
        "seat": view.seat,
        "moves": moves,
        "best": int(raw["best"]),
    }
    if raw.get("value") is not None and math.isfinite(raw["value"]):
        out["value"] = raw["value"]
        out["value_note"] = raw.get("value_note", "")
    return out


def kinds_for(env_id: str, options: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for a in ANALYSTS.values():
        reason = a.available(env_id, options)
        out.append(
            {"kind": a.kind, "label": a.label, "doc": a.doc, "ok": reason is None, "reason": reason}
        )
    return out


def check_kind(kind: str, env_id: str, options: dict[str, Any]) -> None:
    if kind not in ANALYSTS:
        raise Invalid(f"analysis kind {kind!r} is not allowed; allowed: {', '.join(ANALYSTS)}")
    reason = ANALYSTS[kind].available(env_id, options)
    if reason is not None:
        raise Conflict(f"analysis {kind!r} is not available for {env_id}: {reason}")


# ---------------------------------------------------------------- the routes
class Forbid(BaseModel):
    """``POST /api/games/{id}/analysis/forbid``."""

    model_config = ConfigDict(extra="forbid")
    token: StrictStr = Field(min_length=1, max_length=TOKEN_LENGTH)


def game_options(game: Any) -> dict[str, Any]:
    return {
        k: v for k, v in game.config.items() if v is None or isinstance(v, (bool, int, float, str))
    }


class AnalysisKinds(BaseModel):
    """Whether the game allows the analysis, and which kinds can run for it."""

    model_config = ConfigDict(extra="allow")
    allowed: bool
    kinds: list[dict[str, Any]]


class Analysis(BaseModel):
    """A bot's view of the seat's legal moves, best first (see docs/web.md)."""

    model_config = ConfigDict(extra="allow")
    kind: str
    moves: list[dict[str, Any]]


class Allowed(BaseModel):
    allowed: bool


def analysis_router(manager: Any) -> APIRouter:
    """The analysis routes of one server (``manager``: its GameManager)."""
    router = APIRouter()
    forbidden: weakref.WeakSet[Any] = weakref.WeakSet()
    cache: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
    cache_lock = threading.Lock()

    async def blocking(fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(manager.work, fn, *args)

    def cached(key: tuple[Any, ...], compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        with cache_lock:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
        out = compute()
        with cache_lock:
            cache[key] = out
            while len(cache) > CACHE_SIZE:
                cache.popitem(last=False)
        return out

    def live(game_id: str, token: str | None) -> tuple[Any, int | None]:
        game = manager.get(game_id)
        seat = game.seat_of(token)
        game.touch()
        return game, seat

    @router.get(
        "/api/games/{game_id}/analysis/kinds",
        response_model=AnalysisKinds,
        responses=api.refusals(403, 404, 422),
    )
    async def game_kinds(
        game_id: str, token: str | None = Query(None, min_length=1, max_length=TOKEN_LENGTH)
    ) -> JSONResponse:
        game, _ = live(game_id, token)
        g = game.env.game
        kinds = await blocking(kinds_for, game.env_id, game_options(g))
        return JSONResponse({"allowed": game not in forbidden, "kinds": kinds})

    @router.post(
        "/api/games/{game_id}/analysis/forbid",
        response_model=Allowed,
        responses=api.refusals(400, 403, 404, 413, 422),
    )
    async def forbid(game_id: str, body: Forbid) -> JSONResponse:
        game, seat = live(game_id, body.token)
        assert seat is not None
        forbidden.add(game)
        return JSONResponse({"allowed": False})

    @router.get(
        "/api/games/{game_id}/analysis",
        response_model=Analysis,
        responses=api.refusals(403, 404, 409, 422),
    )
    async def game_analysis(
        game_id: str,
        kind: str = Query(..., min_length=1, max_length=40),
        token: str | None = Query(None, min_length=1, max_length=TOKEN_LENGTH),
    ) -> JSONResponse:
        game, seat = live(game_id, token)
        if game in forbidden:
            raise Forbidden("the analysis is switched off for this game (a seat forbade it)")
        if seat is None:
            raise Forbidden("the analysis is of a seat's own moves: open your seat's link")
        env = game.env
        options = game_options(env.game)
        check_kind(kind, game.env_id, options)
        to_act = game.to_act()
        if to_act != seat:
            who = "nobody (the game is over)" if to_act is None else f"player_{to_act}"
            raise Conflict(f"the analysis is of your own moves on your turn; it is {who}'s turn")
        # the seat's view on a copy, taken here on the loop, which alone changes the env
        pos = position(env.game, env.state_, seat)
        key = ("game", game.id, game.version, kind)
        out = await blocking(cached, key, lambda: analyse(kind, pos, game.env_id, options))
        return JSONResponse({**out, "step": len(env.actions_taken), "version": game.version})

    @router.get(
        "/api/records/{record_id}/analysis/kinds",
        response_model=AnalysisKinds,
        responses=api.refusals(400, 404, 409, 422),
    )
    async def record_kinds(record_id: str) -> JSONResponse:
        record = await blocking(_store(manager).load, record_id)
        env_id = check_env(record.get("env_id"))
        check_record_options(env_id, record.get("options", {}))
        options = game_options(make_game(env_id, **record.get("options", {})))
        kinds = await blocking(kinds_for, env_id, options)
        return JSONResponse({"allowed": True, "kinds": kinds})

    @router.get(
        "/api/records/{record_id}/analysis",
        response_model=Analysis,
        responses=api.refusals(400, 404, 409, 422),
    )
    async def record_analysis(
        record_id: str,
        step: int = Query(..., ge=0),
        kind: str = Query(..., min_length=1, max_length=40),
    ) -> JSONResponse:
        store = _store(manager)

        def compute() -> dict[str, Any]:
            return cached(
                ("record", record_id, step, kind),
                lambda: replay_analysis(store.load(record_id), step, kind),
            )

        return JSONResponse(await blocking(compute))

    return router


def _store(manager: Any) -> Any:
    if manager.store is None:
        raise NotFound("this server keeps no records (started without a records folder)")
    return manager.store


def replay_analysis(record: dict[str, Any], step: int, kind: str) -> dict[str, Any]:
    """The analysis of the seat to act at ``step`` of a finished game's record, from that
    seat's information at that step; ``played`` is the move it made there."""
    from choco_envs.registry import make_raw

    env_id = check_env(record.get("env_id"))
    check_record_options(env_id, record.get("options", {}))
    actions = record["actions"]
    if step > len(actions):
        raise Invalid(f"step={step} is not allowed; allowed: 0..{len(actions)}")
    env = make_raw(env_id, illegal_action="raise", **record.get("options", {}))
    env.reset(seed=record["seed"])
    options = game_options(env.game)
    check_kind(kind, env_id, options)
    for action in actions[:step]:
        env.step(action)
    if env.game_over():
        raise Conflict(f"step {step}: the game is over, nobody is to move")
    seat = int(env.agent_name_mapping[env.agent_selection])
    out = analyse(kind, position(env.game, env.state_, seat), env_id, options)
    played = actions[step] if step < len(actions) else None
    return {**out, "step": step, "played": played}
