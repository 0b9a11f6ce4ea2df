"""The alpha-beta Le Chocolat player (``alphabeta:depth=N``): a few whole turns of lookahead
over one seat's beliefs.

The greedy bot (``greedy.py``) looks one turn ahead: its split value is its lead after
its own best claim, less the best chunk the opponent could claim next. This bot searches
``depth`` whole turns (a split and the claim it leads to are one move; forced claims on
turns with no split happen inside the rules) with alpha-beta, the seat to act maximising
and the other minimising the same value, and scores the positions where it stops the way
the greedy bot scores its own: the lead in expected VP (tiles valued by what the
searching seat knows, ``greedy.Beliefs``, hands scored by the rules' ``score_hand``), a
small bonus per tile claimed, plus the best chunk the player to move could claim on their
coming turn (theirs counts against). Depth 1 is close to the greedy bot; depth 3 beats it
in about two games of three (docs/games/le_chocolat.md, "Bots").

Nothing hidden enters: the tiles a seat has not seen are valued as the average of all the
tiles it has not seen, and the opponent is assumed to value them the same way. A bot
keeps the values it searched per view (what the seat knows, never what it does not) in
its own instance, never in this module.
"""

from __future__ import annotations

import math
from random import Random
from typing import Any, cast

import numpy as np

from choco_envs.bots.base import AgentView, HeuristicBot
from choco_envs.core.game import Rng
from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.rules import CLAIM, OVER, LeChocolatRules, LeChocolatState

from .greedy import TILE_BONUS, Beliefs, lead, opponent_threat

#: the deepest search a bot may ask for (depth 4 costs about 0.2 s a move)
MAX_DEPTH = 4
#: the depth of ``alphabeta`` without a setting: the strongest for its cost
DEFAULT_DEPTH = 3
#: values further than this (VP) below the best action's are reported only as "that far
#: or more" (alpha-beta need not find their exact value; a wider window costs more search)
VALUE_WINDOW = 2.0
#: views a bot remembers before it forgets them all
CACHE_LIMIT = 4096
#: the VP scale of the policy the bot teaches (``policy_view``); play does not use it
DEFAULT_TEMPERATURE = 0.5


def check_depth(depth: Any) -> int:
    """``depth`` if it is an int in 1..MAX_DEPTH; ValueError naming it otherwise."""
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth={depth!r} is not allowed; allowed: an integer 1..{MAX_DEPTH}")
    return depth


def parse_depth(text: str) -> int:
    """The ``depth=N`` setting of a bot spec (ValueError saying what is allowed)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_DEPTH:
        raise ValueError(f"allowed: an integer 1..{MAX_DEPTH}")
    return value


def parse_temperature(text: str) -> float:
    """The ``temperature=T`` setting of a bot spec: a float > 0 and <= 10 (VP)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0.0 < value <= 10.0:
        raise ValueError("allowed: a number of VP > 0 and <= 10")
    return value


def teaching_policy(values: dict[int, float], num_actions: int, temperature: float) -> np.ndarray:
    """The policy over every action that :func:`action_values` teaches: softmax of the
    values over ``temperature`` among the actions within :data:`VALUE_WINDOW` of the
    best (their values are exact), 0 for the rest (their values only bounds) and for
    illegal actions."""
    top = max(values.values())
    policy = np.zeros(num_actions, dtype=np.float32)
    for action, value in values.items():
        if value > top - VALUE_WINDOW:
            policy[action] = math.exp((value - top) / temperature)
    return policy / policy.sum()


def turn_moves(
    game: LeChocolatRules, s: LeChocolatState, rng: Rng
) -> list[tuple[int, LeChocolatState]]:
    """Every move of the player to act: (first action, state after the whole turn). A
    split that leaves two or more small chunks is one move per chunk the claim can take.
    (Splits and claims draw nothing from ``rng``; ``apply`` takes one.)"""
    out = []
    player = s.player
    for a in game.legal_actions(s):
        t = s.copy()
        game.apply(t, a, rng)
        if t.phase == CLAIM and t.player == player:
            for b in game.legal_actions(t):
                u = t.copy()
                game.apply(u, b, rng)
                out.append((a, u))
        else:
            out.append((a, t))
    return out


class Lookahead:
    """Alpha-beta over whole turns, valued for ``seat`` with ``seat``'s beliefs; one
    search (its cache of position values lives and dies with it)."""

    def __init__(self, game: LeChocolatRules, s: LeChocolatState, seat: int) -> None:
        self.game = game
        self.card = game.card(s)
        self.seat = seat
        self.beliefs = Beliefs(game, s, seat)
        self.rng = Random(0)  # splits and claims draw nothing; apply wants an rng
        # the value of a position depends only on its table, claims and turn: positions
        # reached by moves in another order (and move ordering's look at the children)
        # are valued once
        self._static: dict[tuple, float] = {}

    def static(self, t: LeChocolatState) -> float:
        """The position's value for ``seat``: lead in expected VP, the tile bonus, and the
        best claim the player to move can make on their turn (for or against)."""
        key = (tuple(t.chunk_at), tuple(t.owner), t.player, t.phase)
        value = self._static.get(key)
        if value is None:
            value = self._static[key] = self._evaluate(t)
        return value

    def _evaluate(self, t: LeChocolatState) -> float:
        seat = self.seat
        mine, theirs = self.beliefs.hand(t, seat), self.beliefs.hand(t, 1 - seat)
        value = lead(self.card, mine, theirs) + TILE_BONUS * (t.claimed[seat] - t.claimed[1 - seat])
        if t.phase != OVER:
            if t.player == seat:
                value += opponent_threat(self.card, self.beliefs, t, mine, theirs)
            else:
                value -= opponent_threat(self.card, self.beliefs, t, theirs, mine)
        return value

    def moves(self, t: LeChocolatState) -> list[tuple[int, LeChocolatState]]:
        return turn_moves(self.game, t, self.rng)

    def value(self, t: LeChocolatState, depth: int, alpha: float, beta: float) -> float:
        """Alpha-beta value of ``t`` searched ``depth`` more turns."""
        if depth == 0 or t.phase == OVER:
            return self.static(t)
        moves = self.moves(t)
        maximise = t.player == self.seat
        if depth > 1:  # good moves first, so the window closes sooner
            moves.sort(key=lambda m: self.static(m[1]), reverse=maximise)
        if maximise:
            best = -float("inf")
            for _, u in moves:
                best = max(best, self.value(u, depth - 1, alpha, beta))
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
            return best
        best = float("inf")
        for _, u in moves:
            best = min(best, self.value(u, depth - 1, alpha, beta))
            beta = min(beta, best)
            if alpha >= beta:
                break
        return best


def action_values(game: LeChocolatRules, s: LeChocolatState, depth: int) -> dict[int, float]:
    """The value of every legal action of the seat to act, searched ``depth`` turns (the
    action's own turn included). A split's value is that of its best claim. Values more
    than ``VALUE_WINDOW`` below the best are upper bounds (the search proves only that
    they are that far below)."""
    check_depth(depth)
    if s.phase == OVER:
        raise ValueError("action_values: the game is over, nobody is to act")
    search = Lookahead(game, s, s.player)
    if s.phase == CLAIM:  # the split is done: each claim ends the turn
        moves = []
        for b in game.legal_actions(s):
            u = s.copy()
            game.apply(u, b, search.rng)
            moves.append((b, u))
    else:
        moves = search.moves(s)
    moves.sort(key=lambda m: search.static(m[1]), reverse=True)
    values: dict[int, float] = {}
    best = -float("inf")
    for action, u in moves:
        v = search.value(u, depth - 1, best - VALUE_WINDOW, float("inf"))
        values[action] = max(values.get(action, -float("inf")), v)
        best = max(best, v)
    return values


def view_key(game: LeChocolatRules, s: LeChocolatState, seat: int, depth: int) -> tuple:
    """What the search of ``seat`` depends on: the table, the claims, the card and the
    tiles ``seat`` knows (an unknown tile is -2), never a tile it does not know."""
    known = tuple(s.flavor[c] if s.knows(c, seat) else -2 for c in range(grid.CELLS))
    box = s.box_flavor if s.box_up else -2
    return (
        seat,
        depth,
        s.phase,
        s.player,
        game.card(s),
        game.components.flavor_counts,
        game.components.blank_blank,
        tuple(s.chunk_at),
        tuple(s.owner),
        known,
        box,
    )


class AlphaBetaBot(HeuristicBot):
    """Plays a best action of :func:`action_values` (ties broken at random) on a
    determinization of its view; remembers the values of the views it searched (at most
    :data:`CACHE_LIMIT`, forgotten at each ``reset``). As a teacher (soft imitation,
    ``policy_view``) it also gives :func:`teaching_policy` at ``temperature``."""

    def __init__(
        self,
        depth: int = DEFAULT_DEPTH,
        seed: int | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
    ) -> None:
        super().__init__(self.choose, {}, seed=seed, name="alphabeta")
        self.depth = check_depth(depth)
        self.temperature = float(temperature)
        self.cache: dict[tuple, dict[int, float]] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.cache.clear()

    def values(self, game: LeChocolatRules, s: LeChocolatState) -> dict[int, float]:
        """:func:`action_values` of ``s`` at the bot's depth, from the cache if this view
        was searched before."""
        key = view_key(game, s, s.player, self.depth)
        cached = self.cache.get(key)
        if cached is None:
            if len(self.cache) >= CACHE_LIMIT:
                self.cache.clear()
            cached = self.cache[key] = action_values(game, s, self.depth)
        return dict(cached)

    def choose(self, game: LeChocolatRules, state: LeChocolatState, rng: Rng) -> int:
        values = self.values(game, state)
        top = max(values.values())
        return rng.choice([a for a, v in values.items() if v > top - 1e-9])

    def policy_view(self, view: AgentView) -> tuple[int, np.ndarray]:
        """(the action it plays, :func:`teaching_policy` of its values at its temperature);
        a forced move is played without a search, its policy all on it."""
        legal = view.legal_actions
        if len(legal) == 1:
            policy = np.zeros(len(view.mask), dtype=np.float32)
            policy[legal[0]] = 1.0
            return legal[0], policy
        game, state = cast(LeChocolatRules, view.game), view.determinize(self.rng)
        action = self.choose(game, state, self.rng)
        values = self.values(game, state)  # the view's values: from the cache ``choose`` filled
        return action, teaching_policy(values, len(view.mask), self.temperature)


def make_alphabeta(settings: dict[str, Any], seed: int | None) -> AlphaBetaBot:
    """The ``alphabeta`` kind's bot: ``settings`` may name ``depth`` and ``temperature``."""
    return AlphaBetaBot(
        settings.get("depth", DEFAULT_DEPTH),
        seed=seed,
        temperature=settings.get("temperature", DEFAULT_TEMPERATURE),
    )
