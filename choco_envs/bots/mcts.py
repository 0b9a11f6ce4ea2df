"""Determinized MCTS: single-observer information-set MCTS (SO-ISMCTS), open loop.

Every iteration samples a fresh determinization of the root from the bot's view
(``AgentView.determinize``), so the search never sees hidden information. One tree is
shared by all determinizations: a node is a sequence of actions, its children are the
actions tried after it, and a child is scored by UCB with *availability* counts (how often
it was legal when its parent was visited), which handles actions that exist in some
determinizations and not others. Chance (dice, draws) is sampled by ``apply`` with the
bot's own rng, so the tree is open loop. Rollouts play random (or epsilon-greedy) moves to
the end; each node keeps the returns (``game.returns``, rank-based, any number of players)
of the seat that chose the action leading to it. Budget: ``simulations`` iterations and/or
``time`` seconds per move, whichever runs out first. The search runs on the raw rules API
(``copy``/``determinize``, ``legal_actions``, ``apply``, ``is_over``, ``returns``).
"""

from __future__ import annotations

import math
import time
from typing import Any

from choco_envs.bots.base import AgentView, Bot
from choco_envs.bots.game_kinds import game_policy
from choco_envs.core.outcomes import margins

ROLLOUTS = ("random", "greedy")


class _Node:
    """Statistics of one action sequence, from the view of the seat that moved into it."""

    __slots__ = ("children", "visits", "value", "avail", "player")

    def __init__(self, player: int) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.value = 0.0  # sum of the mover's outcomes, each in [0, 1]
        self.avail = 1
        self.player = player


class MCTSBot(Bot):
    """IS-MCTS with UCT selection and random or epsilon-greedy rollouts.

    ``simulations``: iterations per move (None: no limit); ``seconds``: time per move
    (None: no limit); at least one must be set. ``c``: the UCB exploration constant on
    outcomes scaled to [0, 1]. ``rollout``: ``"random"`` or ``"greedy"`` (the game's
    greedy move with probability 1 - ``epsilon``, else a random one). ``margin``: weight
    in [0, 1] of the score margin in the value of a playout (0: wins and losses only).
    """

    name = "mcts"

    def __init__(
        self,
        simulations: int | None = 400,
        seconds: float | None = None,
        c: float = 0.7,
        rollout: str = "random",
        epsilon: float = 0.2,
        margin: float = 0.0,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        if simulations is None and seconds is None:
            raise ValueError("MCTSBot needs a budget: simulations and/or seconds")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout={rollout!r} is not allowed; allowed values: {ROLLOUTS}")
        self.simulations = simulations
        self.seconds = seconds
        self.c = c
        self.rollout = rollout
        self.epsilon = epsilon
        self.margin = margin
        self.last_iterations = 0
        self._margin_scale, self._margins_seen = 1.0, 0

    def act_view(self, view: AgentView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        root = _Node(-1)
        self._margin_scale, self._margins_seen = 1.0, 0
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        limit = self.simulations if self.simulations is not None else math.inf
        done = 0
        while done < limit and (deadline is None or time.perf_counter() < deadline):
            self._iterate(view, root)
            done += 1
        self.last_iterations = done
        return self._best_root_action(root, legal)

    def _best_root_action(self, root: _Node, legal: list[int]) -> int:
        def key(a: int) -> tuple[int, float]:
            child = root.children.get(a)
            if child is None:
                return (0, 0.0)
            return (child.visits, child.value / max(child.visits, 1))

        return max(legal, key=key)

    def _iterate(self, view: AgentView, root: _Node) -> None:
        game, rng = view.game, self.rng
        state = view.determinize(rng)
        path = self._select_and_expand(game, state, root)
        self._play_out(game, state)
        values = self._values(game, state)
        for node in path:
            node.visits += 1
            node.value += values[node.player]
        root.visits += 1

    def _values(self, game: Any, state: Any) -> list[float]:
        """Each seat's outcome in [0, 1]: the rank-based return, blended with weight
        ``margin`` with its score margin (own minus best other), squashed by tanh over the
        mean absolute margin seen so far in this search."""
        wins = [(r + 1.0) * 0.5 for r in game.returns(state)]
        if not self.margin:
            return wins
        seat_margins = margins(game.scores(state))
        self._margins_seen += 1
        spread = sum(abs(m) for m in seat_margins) / len(seat_margins)
        self._margin_scale += (max(spread, 1.0) - self._margin_scale) / self._margins_seen
        w = self.margin
        return [
            (1 - w) * v + w * 0.5 * (1.0 + math.tanh(m / self._margin_scale))
            for v, m in zip(wins, seat_margins, strict=True)
        ]

    def _select_and_expand(self, game: Any, state: Any, root: _Node) -> list[_Node]:
        """Walk down by UCB until a new node is added (or the game ends); the path below
        the root, in order."""
        rng, c, log = self.rng, self.c, math.log
        node, path = root, []
        while not game.is_over(state):
            legal = game.legal_actions(state)
            player = game.current_player(state)
            children = node.children
            untried = [a for a in legal if a not in children]
            for a in legal:
                if a in children:
                    children[a].avail += 1
            if untried:
                action = untried[rng.randrange(len(untried))]
                child = children[action] = _Node(player)
                game.apply(state, action, rng)
                path.append(child)
                return path
            best_score, action = -math.inf, legal[0]
            for a in legal:
                ch = children[a]
                score = ch.value / ch.visits + c * math.sqrt(log(ch.avail) / ch.visits)
                if score > best_score:
                    best_score, action = score, a
            node = children[action]
            game.apply(state, action, rng)
            path.append(node)
        return path

    def _play_out(self, game: Any, state: Any) -> None:
        rng = self.rng
        greedy = game_policy(game.spec.env_id) if self.rollout == "greedy" else None
        while not game.is_over(state):
            if greedy is not None and rng.random() >= self.epsilon:
                action = int(greedy(game, state, rng))
            else:
                legal = game.legal_actions(state)
                action = legal[rng.randrange(len(legal))]
            game.apply(state, action, rng)
