"""A few turns of alpha-beta lookahead for Le Chocolat, over one seat's beliefs.

The greedy bot (``greedy.py``) looks one turn ahead: its split value is its lead after
its own best claim, less the best chunk the opponent could claim next. This module
searches ``depth`` whole turns (a split and the claim it leads to are one move; forced
claims on turns with no split happen inside the rules) with alpha-beta, the seat to act
maximising and the other minimising the same value, and scores the positions where it
stops the way the greedy bot scores its own: the lead in expected VP (tiles valued by
what the searching seat knows, ``greedy.Beliefs``), a small bonus per tile claimed, plus
the best chunk the player to move could claim on their coming turn (theirs counts
against). Depth 1 is close to the greedy bot; ``greedy:depth=3`` beats it in about two
games of three (docs/games/le_chocolat.md, "Bots").

Nothing hidden enters: the tiles a seat has not seen are valued as the average of all the
tiles it has not seen, and the opponent is assumed to value them the same way. The
values are cached per view (what the seat knows, never what it does not), so the
``"search"`` observation and a bot that searches the same position share one search.
"""

from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING

from choco_envs.games.le_chocolat import grid
from choco_envs.games.le_chocolat.greedy import TILE_BONUS, Beliefs, lead, opponent_threat

if TYPE_CHECKING:
    from choco_envs.games.le_chocolat.rules import LeChocolatGame, LeChocolatState

#: the deepest search a caller may ask for (depth 4 costs about 2 s a game)
MAX_DEPTH = 4
#: values further than this (VP) below the best action's are reported only as "that far
#: or more" (alpha-beta need not find their exact value; a wider window costs more search:
#: 2 VP about 65 ms a decision at depth 3, 10 VP several times that); the "search"
#: observation clips there
VALUE_WINDOW = 2.0
_CACHE_LIMIT = 4096
_RNG = Random(0)  # splits and claims draw nothing; apply wants an rng
_cache: dict[tuple, dict[int, float]] = {}


def check_depth(depth: int) -> int:
    """``depth`` if it is an int in 1..MAX_DEPTH; ValueError naming it otherwise."""
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth={depth!r} is not allowed; allowed: an integer 1..{MAX_DEPTH}")
    return depth


def turn_moves(game: LeChocolatGame, s: LeChocolatState) -> list[tuple[int, LeChocolatState]]:
    """Every move of the player to act: (first action, state after the whole turn). A
    split that leaves two or more small chunks is one move per chunk the claim can take."""
    from choco_envs.games.le_chocolat.rules import CLAIM

    out = []
    player = s.player
    for a in game.legal_actions(s):
        t = s.copy()
        game.apply(t, a, _RNG)
        if t.phase == CLAIM and t.player == player:
            for b in game.legal_actions(t):
                u = t.copy()
                game.apply(u, b, _RNG)
                out.append((a, u))
        else:
            out.append((a, t))
    return out


class Lookahead:
    """Alpha-beta over whole turns, valued for ``seat`` with ``seat``'s beliefs."""

    def __init__(self, game: LeChocolatGame, s: LeChocolatState, seat: int) -> None:
        self.game = game
        self.card = game.card(s)
        self.seat = seat
        self.beliefs = Beliefs(game, s, seat)
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
        from choco_envs.games.le_chocolat.rules import OVER

        seat = self.seat
        mine, theirs = self.beliefs.hand(t, seat), self.beliefs.hand(t, 1 - seat)
        value = lead(self.card, mine, theirs) + TILE_BONUS * (t.claimed[seat] - t.claimed[1 - seat])
        if t.phase != OVER:
            if t.player == seat:
                value += opponent_threat(self.card, self.beliefs, t, mine, theirs)
            else:
                value -= opponent_threat(self.card, self.beliefs, t, theirs, mine)
        return value

    def value(self, t: LeChocolatState, depth: int, alpha: float, beta: float) -> float:
        """Alpha-beta value of ``t`` searched ``depth`` more turns."""
        from choco_envs.games.le_chocolat.rules import OVER

        if depth == 0 or t.phase == OVER:
            return self.static(t)
        moves = turn_moves(self.game, t)
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


def view_key(game: LeChocolatGame, s: LeChocolatState, seat: int, depth: int) -> tuple:
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


def action_values(game: LeChocolatGame, s: LeChocolatState, depth: int) -> dict[int, float]:
    """The value of every legal action of the seat to act, searched ``depth`` turns (the
    action's own turn included). A split's value is that of its best claim. Values more
    than ``VALUE_WINDOW`` below the best are upper bounds (the search proves only that
    they are that far below)."""
    from choco_envs.games.le_chocolat.rules import CLAIM, OVER

    check_depth(depth)
    if s.phase == OVER:
        raise ValueError("action_values: the game is over, nobody is to act")
    seat = s.player
    key = view_key(game, s, seat, depth)
    cached = _cache.get(key)
    if cached is not None:
        return dict(cached)
    search = Lookahead(game, s, seat)
    if s.phase == CLAIM:  # the split is done: each claim ends the turn
        moves = []
        for b in game.legal_actions(s):
            u = s.copy()
            game.apply(u, b, _RNG)
            moves.append((b, u))
    else:
        moves = turn_moves(game, s)
    moves.sort(key=lambda m: search.static(m[1]), reverse=True)
    values: dict[int, float] = {}
    best = -float("inf")
    for action, u in moves:
        v = search.value(u, depth - 1, best - VALUE_WINDOW, float("inf"))
        values[action] = max(values.get(action, -float("inf")), v)
        best = max(best, v)
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[key] = dict(values)
    return values


def clear_cache() -> None:
    """Forget every cached search (tests use it to compute each search afresh)."""
    _cache.clear()
