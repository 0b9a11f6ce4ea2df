"""Gumbel information-set MCTS guided by a policy-value network, batched over many roots.

This is the search of the ``az`` bot and of the search-and-learn trainer
(``choco_envs.train.az``). What it reads and never reads:

* Every simulation starts from a fresh ``determinize`` of the searching seat's view (a
  state that seat cannot tell from the real one), so no node ever sees hidden
  information; chance (dice, draws) is sampled by the rules' ``apply`` with the search's
  own rng (open loop). One tree per root is shared by all determinizations: a node is a
  sequence of actions; actions legal in some determinizations and not others are scored
  only where they are legal.
* Priors and leaf values come from the network; there are no random rollouts. The value
  head gives every seat's expected outcome (own seat first), turned into absolute seats,
  and every node keeps a value sum per seat (max-n backups), so the same search serves
  2-6 players. A finished game is valued by the rules' rank-based ``returns``.

Root selection is Gumbel (Danihelka et al., "Policy improvement by planning with Gumbel",
ICLR 2022): ``m`` actions are sampled without replacement by logits + Gumbel noise, the
simulation budget is split among them by sequential halving on
logits + noise + sigma(q), and the action played is the best survivor. The improved policy
(the trainer's policy target) is softmax(logits + sigma(completed q)), unvisited actions
completed with the mixed value. Below the root the action is chosen deterministically to
bring the visit counts towards that improved policy (the paper's non-root rule). With
``sigma(q) = (c_visit + max visits) * c_scale * q``, q rescaled to [0, 1] at each node.

Batching: :meth:`GumbelSearch.run` advances every root by the simulations that may run
together (the distinct root actions left in the current phase of sequential halving: up
to ``m`` at first, then half as many each phase; their subtrees are disjoint, so the
choices are those of one simulation at a time); each simulation walks to a leaf, the
leaves of every root are evaluated in one call of the evaluator (one forward pass of the
network), then backed up. ``leaf_batch`` K > 1 (the bot's ``az:batch=K``) also runs up
to K walks of one root action together: below the root each counts the walks still
waiting for their leaf as visits (virtual visits, no value) in the non-root rule, so they
spread over the subtree; a walk that reaches a leaf another walk of the batch waits for is
not run (given back to the plan). That changes the choices a little for fewer forward
passes. ``evaluate(states, players)`` is any
callable returning (logits (B, A), values (B, N) in the observing seat's order).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from choco_envs.core.outcomes import finished_values

#: ``evaluate(states, players) -> (logits (B, A), values (B, N), own seat first, in [-1, 1])``
Evaluate = Callable[[Sequence[Any], Sequence[int]], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class SearchConfig:
    """The search's settings (the trainer's and the bot's)."""

    #: simulations per decision
    simulations: int = 32
    #: actions the root considers (sampled without replacement by logits + Gumbel noise)
    max_considered: int = 16
    #: scale of the root's Gumbel noise (1: the paper's sampling; 0: the top logits, for play)
    gumbel_scale: float = 1.0
    #: sigma(q) = (c_visit + max visits) * c_scale * q
    c_visit: float = 50.0
    c_scale: float = 1.0
    #: run a phase's simulations of distinct root actions together, their leaves in one
    #: forward pass (False: one simulation a root at a time; the same choices, slower)
    together: bool = True
    #: simulations of one root action run together (with ``together``): each walk below
    #: the root counts the walks still waiting for their leaf as visits of the nodes they
    #: passed (virtual visits, no value), so the next one takes another path where the
    #: non-root rule says so; a leaf two walks reach is evaluated once. 1: one walk an
    #: action at a time (the choices of one simulation at a time)
    leaf_batch: int = 1
    #: a finished game's value blends in the score margin: ``(1 - margin_weight) x`` the
    #: rank return ``+ margin_weight x tanh(margin / margin_scale)``
    #: (``choco_envs.core.outcomes.margin_values``), as the network's value was trained
    #: (the ``az`` engine's ``value_margin``); 0: the rank returns
    margin_weight: float = 0.0
    margin_scale: float = 5.0

    def check(self) -> None:
        if self.simulations < 1:
            raise ValueError(f"simulations={self.simulations}; allowed: an int >= 1")
        if self.leaf_batch < 1:
            raise ValueError(f"leaf_batch={self.leaf_batch}; allowed: an int >= 1")
        if self.max_considered < 1:
            raise ValueError(f"max_considered={self.max_considered}; allowed: an int >= 1")
        for name in ("gumbel_scale", "c_visit", "c_scale"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ValueError(f"{name}={value}; allowed: a finite float >= 0")
        if not 0 <= self.margin_weight <= 1:
            raise ValueError(f"margin_weight={self.margin_weight}; allowed: a number in [0, 1]")
        if not (self.margin_scale > 0 and math.isfinite(self.margin_scale)):
            raise ValueError(f"margin_scale={self.margin_scale}; allowed: a finite float > 0")


class Node:
    """Statistics of one action sequence. ``value_sum[p]`` sums seat ``p``'s outcomes of
    the simulations through it; ``logits``/``value`` are the network's at its first
    evaluation (None until then); ``player`` the seat to act there; ``pending`` the walks
    through it still waiting for their leaf (``SearchConfig.leaf_batch``)."""

    __slots__ = ("player", "logits", "value", "children", "visits", "value_sum", "pending")

    def __init__(self, num_players: int) -> None:
        self.player = -1
        self.logits: np.ndarray | None = None
        self.value: list[float] | None = None
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.value_sum = [0.0] * num_players
        self.pending = 0

    def child(self, action: int) -> Node:
        node = self.children.get(action)
        if node is None:
            node = self.children[action] = Node(len(self.value_sum))
        return node


@dataclass
class Root:
    """One decision to search: ``draw(rng)`` returns a fresh determinization of the
    acting seat's view; ``legal`` its legal actions (the same in every draw)."""

    draw: Callable[[random.Random], Any]
    player: int
    legal: list[int]


@dataclass
class SearchResult:
    """What the search found for one root: the action to play, the improved policy over
    the legal actions (``policy[i]`` for ``legal[i]``), the network's value of the root for
    every seat, the search's value of the chosen action for the acting seat, and the visits
    and q of each legal action (0 and nan when unvisited)."""

    action: int
    legal: list[int]
    policy: np.ndarray
    root_value: list[float]
    search_value: float
    visits: np.ndarray
    q: np.ndarray


def _softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max())
    return z / z.sum()


def completed_q(logits: np.ndarray, visits: np.ndarray, q: np.ndarray, value: float) -> np.ndarray:
    """Each action's q in [0, 1], unvisited ones completed by the mixed value (the
    network's value with the prior-weighted mean q of the visited actions), then rescaled
    to [0, 1] over the node's actions (as mctx does)."""
    prior = _softmax(logits)
    seen = visits > 0
    total = visits.sum()
    if seen.any():
        weight = prior[seen].sum()
        mixed = (value + total / weight * float((prior[seen] * q[seen]).sum())) / (1 + total)
    else:
        mixed = value
    done = np.where(seen, q, mixed)
    low, high = done.min(), done.max()
    return (done - low) / (high - low) if high > low else np.zeros_like(done)


def sigma(config: SearchConfig, visits: np.ndarray, q: np.ndarray) -> np.ndarray:
    return (config.c_visit + visits.max()) * config.c_scale * q


class _RootSearch:
    """Sequential halving over the root's considered actions."""

    def __init__(self, root: Root, node: Node, config: SearchConfig, gen: np.random.Generator):
        self.root, self.node, self.config = root, node, config
        legal = np.asarray(root.legal)
        assert node.logits is not None
        self.logits = node.logits[legal].astype(np.float64)
        self.noise = config.gumbel_scale * gen.gumbel(size=len(legal))
        m = min(config.max_considered, len(legal), config.simulations)
        self.remaining = list(np.argsort(-(self.noise + self.logits), kind="stable")[:m])
        self.phases = max(1, math.ceil(math.log2(m))) if m > 1 else 1
        self.plan: list[int] = []
        self.phase = 0

    def _stats(self) -> tuple[np.ndarray, np.ndarray]:
        p = self.root.player
        visits = np.zeros(len(self.root.legal))
        q = np.zeros(len(self.root.legal))
        for i, a in enumerate(self.root.legal):
            child = self.node.children.get(a)
            if child is not None and child.visits:
                visits[i] = child.visits
                q[i] = (child.value_sum[p] / child.visits + 1.0) * 0.5
        return visits, q

    def _scores(self) -> np.ndarray:
        visits, q = self._stats()
        assert self.node.value is not None
        value = (self.node.value[self.root.player] + 1.0) * 0.5
        done = completed_q(self.logits, visits, q, value)
        return self.noise + self.logits + sigma(self.config, visits, done)

    def next_action(self) -> int:
        if not self.plan:
            if self.phase > 0 and len(self.remaining) > 1:
                scores = self._scores()
                keep = math.ceil(len(self.remaining) / 2)
                self.remaining = sorted(self.remaining, key=lambda i: -scores[i])[:keep]
            budget = max(1, self.config.simulations // self.phases)
            per = max(1, budget // len(self.remaining))
            self.plan = [i for _ in range(per) for i in self.remaining]
            self.phase += 1
        return self.root.legal[self.plan.pop(0)]

    def give_back(self, action: int) -> None:
        """Put a simulation of ``action`` that was not run back at the front of the plan."""
        self.plan.insert(0, self.root.legal.index(action))

    def next_actions(self, limit: int, per_action: int = 1) -> list[int]:
        """The root actions of the next simulations, as many as may run before any is
        backed up (at most ``limit``): distinct actions of the current phase's plan. Their
        subtrees are disjoint and nothing below the root reads the root's statistics, so
        running them together and backing them up after changes no choice, and with one
        root draws the random stream in the same order as one at a time. A new phase
        starts only at the first of a batch: its halving reads every earlier simulation."""
        batch = [self.next_action()]
        while (
            len(batch) < limit
            and self.plan
            and batch.count(self.root.legal[self.plan[0]]) < per_action
        ):
            batch.append(self.next_action())
        return batch

    def result(self) -> SearchResult:
        visits, q = self._stats()
        assert self.node.value is not None
        player = self.root.player
        value = (self.node.value[player] + 1.0) * 0.5
        done = completed_q(self.logits, visits, q, value)
        policy = _softmax(self.logits + sigma(self.config, visits, done))
        scores = self.noise + self.logits + sigma(self.config, visits, done)
        best = max(self.remaining, key=lambda i: scores[i])
        raw_q = np.where(visits > 0, q * 2.0 - 1.0, np.nan)
        search_value = raw_q[best] if visits[best] else self.node.value[player]
        return SearchResult(
            action=self.root.legal[best],
            legal=list(self.root.legal),
            policy=policy,
            root_value=list(self.node.value),
            search_value=float(search_value),
            visits=visits,
            q=raw_q,
        )


class GumbelSearch:
    """Batched Gumbel IS-MCTS for one game (one configuration: its player count)."""

    def __init__(
        self, game: Any, evaluate: Evaluate, config: SearchConfig, seed: int | None = None
    ):
        config.check()
        self.game, self.evaluate, self.config = game, evaluate, config
        self.rng = random.Random(seed)
        self.gen = np.random.default_rng(seed)
        self.num_players = int(game.num_players)
        #: simulations and leaf evaluations of the last ``run`` (for speed figures)
        self.last_simulations = 0
        self.last_evaluations = 0

    # ------------------------------------------------------------------ values
    def _absolute(self, values: np.ndarray, player: int) -> list[float]:
        """Values in the observing seat's order (own first) -> values per seat."""
        n = self.num_players
        out = [0.0] * n
        for k in range(n):
            out[(player + k) % n] = float(values[k])
        return out

    def _evaluate(self, states: list[Any], players: list[int], nodes: list[Node]) -> None:
        logits, values = self.evaluate(states, players)
        self.last_evaluations += len(states)
        for node, player, row, value in zip(nodes, players, logits, values, strict=True):
            node.player = player
            node.logits = np.asarray(row, dtype=np.float64)
            node.value = self._absolute(value, player)

    # ------------------------------------------------------------------ search
    def run(self, roots: Sequence[Root]) -> list[SearchResult]:
        """Search every root with the configured budget; one result per root."""
        rng = self.rng
        self.last_simulations = self.last_evaluations = 0
        nodes = [Node(self.num_players) for _ in roots]
        first = [root.draw(rng) for root in roots]
        self._evaluate(first, [r.player for r in roots], nodes)
        searches = [
            _RootSearch(r, n, self.config, self.gen) for r, n in zip(roots, nodes, strict=True)
        ]
        budget = self.config.simulations
        done = [0] * len(searches)
        while any(d < budget for d in done):
            pending: list[Generator[Any, Any, None]] = []
            leaves: list[Node] = []
            waiting: set[int] = set()  # ids of the leaves in this batch
            states, players = [], []
            for i, search in enumerate(searches):
                if done[i] >= budget:
                    continue
                # every root's simulations that may run together: one forward pass for
                # all their leaves (the phases of sequential halving: 16 at once, then 8..)
                limit = budget - done[i] if self.config.together else 1
                per_action = self.config.leaf_batch if self.config.together else 1
                for action in search.next_actions(limit, per_action):
                    walk = self._simulate(search.root, search.node, action)
                    leaf = next(walk, None)
                    done[i] += 1
                    self.last_simulations += 1
                    if leaf is not None:
                        state, player, node = leaf
                        if id(node) in waiting:
                            # a leaf another walk of this batch waits for: this walk is
                            # not run (nothing backed up), its simulation goes back
                            walk.close()
                            search.give_back(action)
                            done[i] -= 1
                            self.last_simulations -= 1
                            continue
                        leaves.append(node)
                        waiting.add(id(node))
                        states.append(state)
                        players.append(player)
                        pending.append(walk)
            if pending:
                self._evaluate(states, players, leaves)
                for walk in pending:
                    next(walk, None)
        return [search.result() for search in searches]

    def _simulate(self, root: Root, node: Node, action: int) -> Generator[Any, None, None]:
        """One simulation from a fresh determinization, first playing ``action`` at the
        root. Yields (state, player, node) when it reaches a node the network has not seen
        (resumed once that node is evaluated), then backs the values up the path."""
        game, rng = self.game, self.rng
        state = root.draw(rng)
        path = [node]
        game.apply(state, action, rng)
        node = node.child(action)
        path.append(node)
        while True:
            if game.is_over(state):
                values = self._finished(state)
                break
            if node.value is None:
                for visited in path:
                    visited.pending += 1
                try:
                    yield state, game.current_player(state), node
                finally:  # evaluated, or the walk closed unrun
                    for visited in path:
                        visited.pending -= 1
                assert node.value is not None
                values = node.value
                break
            action = self._select(node, game.legal_actions(state))
            game.apply(state, action, rng)
            node = node.child(action)
            path.append(node)
        for visited in path:
            visited.visits += 1
            sums = visited.value_sum
            for p, v in enumerate(values):
                sums[p] += v

    def _finished(self, state: Any) -> list[float]:
        """Every seat's value of a finished game (``SearchConfig.margin_weight``)."""
        config = self.config
        return finished_values(self.game, state, config.margin_weight, config.margin_scale)

    def _select(self, node: Node, legal: list[int]) -> int:
        """Below the root: the action whose share of visits most lags the improved policy
        (the numbers of :func:`completed_q` and :func:`sigma`, in plain Python: a node has
        a handful of legal actions, where numpy's per-call cost dominates)."""
        if len(legal) == 1:
            return legal[0]
        assert node.logits is not None and node.value is not None
        return legal[select_index(node, legal, self.config)]


def select_index(node: Node, legal: list[int], config: SearchConfig) -> int:
    """Index into ``legal`` of the non-root rule's choice: argmax of improved policy minus
    visit share (Danihelka et al. 2022, section 5)."""
    player = node.player
    assert node.logits is not None and node.value is not None
    row = node.logits
    logits = [float(row[a]) for a in legal]
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    z = sum(weights)
    prior = [w / z for w in weights]
    children = node.children
    visits: list[int] = []
    q: list[float] = []
    waiting = 0  # walks below still waiting for their leaf (SearchConfig.leaf_batch)
    virtual: list[int] = []
    for a in legal:
        child = children.get(a)
        if child is not None and child.visits:
            visits.append(child.visits)
            q.append((child.value_sum[player] / child.visits + 1.0) * 0.5)
        else:
            visits.append(0)
            q.append(0.0)
        virtual.append(child.pending if child is not None else 0)
        waiting += virtual[-1]
    total = sum(visits)
    mixed = (node.value[player] + 1.0) * 0.5
    if total:
        weight = sum(p for p, n in zip(prior, visits, strict=True) if n)
        seen = sum(p * v for p, v, n in zip(prior, q, visits, strict=True) if n)
        mixed = (mixed + total / weight * seen) / (1 + total)
    done = [v if n else mixed for v, n in zip(q, visits, strict=True)]
    low, high = min(done), max(done)
    if high > low:
        scale = (config.c_visit + max(visits)) * config.c_scale / (high - low)
        scores = [x + scale * (d - low) for x, d in zip(logits, done, strict=True)]
    else:
        scores = logits
    top = max(scores)
    weights = [math.exp(x - top) for x in scores]
    z = sum(weights)
    best, best_score = 0, -math.inf
    share = 1.0 + total + waiting
    for i, (w, n) in enumerate(zip(weights, visits, strict=True)):
        score = w / z - (n + virtual[i]) / share
        if score > best_score:
            best, best_score = i, score
    return best
