"""The adaptive plan for Chocolates (the ``plan`` bot): patient against a reckless
opponent, quick against a careful one.

The baseline greedy bot waits for cards it is 85% sure of. Against a player that takes
cards at random that is both too bold (one wrong card in four loses many games) and too
slow (the 16th grid reveal often ends the game with two or three cards held). Against the
patient greedy bot itself the opposite holds: it races for the same sure cards, so taking
likely cards early wins. The plan therefore first reads the other seats:

* **Reckless** (some other seat holds a card whose face-up side the table now thinks
  right less than ``RECKLESS_CONFIDENCE`` of the time), or nobody else holds a card yet:
  play **patient with a deadline**. The chance a take must reach falls as the seat's
  remaining turns run short of the cards it still needs (``deadline_confidence``), and
  reveals are chosen to inform: the face-down chocolate whose reveal most raises the
  expected worth of the display cards one could then take with ``INFO_CONFIDENCE``
  (``Plan.info_values``).
* **Careful** (every card another seat holds looks right): take the greedy bot's best
  card at ``RUSH_CONFIDENCE``, before the other seat does, and reveal the least
  informative chocolate, so the careful seat stays unsure.

On the seat's last turn (``last_turn``) either way it takes the card and side, or
nothing, that wins on the most arrangements of the face-down chocolates
(``Plan.last_turn_action``), scoring them with the rules' own ``held_points``.

Everything here reads public facts only (the face-up chocolates, the display, the cards
and nougats held): Chocolates has no private information, and the sampling is seeded from
those facts, so the plan is a deterministic function of the public table: the same for
every seat, every determinization and every run. Its estimates are cached in the
:class:`Plan` of each bot instance.
"""

from __future__ import annotations

import math
import random
from collections import OrderedDict
from typing import Any

import numpy as np

from choco_envs.bots.base import AgentView, Bot
from choco_envs.bots.chocolates.beliefs import TruthEstimator, public_key, seed_of, side_value
from choco_envs.bots.chocolates.greedy import best_take, ends_behind
from choco_envs.games.chocolates.components import GRID_CELLS, NUM_CHOCOLATES
from choco_envs.games.chocolates.rules import (
    REVEAL_BASE,
    ChocolatesRules,
    ChocolatesState,
    card_truth_matrix,
    held_points,
)

#: arrangements sampled for the plan's truth estimates (standard error <= 0.022)
TRUTH_SAMPLES = 512
#: arrangements sampled to value each reveal
INFO_SAMPLES = 256
#: a display side counts as takeable after a reveal when this sure
INFO_CONFIDENCE = 0.9
#: another seat holding a side the table thinks right less often than this is reckless
RECKLESS_CONFIDENCE = 0.75
#: the greedy bot's min_confidence against careful opponents
RUSH_CONFIDENCE = 0.7
#: (least slack, confidence): the chance a patient take needs, by the seat's slack (its
#: expected remaining turns minus the cards it still needs); below the last, LATE
DEADLINE = ((3, 0.95), (1, 0.85))
LATE_CONFIDENCE = 0.7
#: while another seat is one card from the limit, at most this
NEAR_END_CONFIDENCE = 0.7
#: once the end is triggered (the seat's last turn)
FINAL_CONFIDENCE = 0.5
#: arrangements sampled for the last-turn choice
FINAL_SAMPLES = 1024
#: the share of face-down chocolates beside the grid counted as turns still to come
BESIDE_WEIGHT = 0.5
#: tables whose reveal values a plan keeps
INFO_CACHE_SIZE = 2048


def table_key(state: ChocolatesState) -> bytes:
    """Every public fact a decision reads: face-up chocolates, display, nougats, cards."""
    cards = b"/".join(bytes(c) for c in state.cards)
    facts = [*state.display, *state.display_nougats, *state.nougats, state.final_turns + 1]
    return public_key(state) + b"|" + cards + b"|" + bytes(f + 1 for f in facts)


def confidence(truth: np.ndarray, code: int) -> float:
    """The chance that a held card (``card * 2 + side``) has its right side up."""
    card, side = divmod(code, 2)
    return float(1.0 - truth[card]) if side else float(truth[card])


def reckless(game: ChocolatesRules, state: ChocolatesState, seat: int, truth: np.ndarray) -> bool:
    """Whether another seat holds a card whose face-up side now looks wrong more often
    than ``1 - RECKLESS_CONFIDENCE``."""
    return any(
        confidence(truth, code) < RECKLESS_CONFIDENCE
        for p in range(game.num_players)
        if p != seat
        for code in state.cards[p]
    )


def patient(game: ChocolatesRules, state: ChocolatesState, seat: int, truth: np.ndarray) -> bool:
    """Whether the plan plays patient: another seat is reckless, or none holds a card
    (nothing to tell them by yet)."""
    others = [p for p in range(game.num_players) if p != seat]
    return reckless(game, state, seat, truth) or not any(state.cards[p] for p in others)


def slack(game: ChocolatesRules, state: ChocolatesState, seat: int) -> int:
    """The seat's expected remaining turns (its share of the reveals left before the grid
    is full, beside-the-grid ones counted at ``BESIDE_WEIGHT``) minus the cards it still
    needs to reach the limit."""
    grid = state.grid_hidden
    beside = sum(not r for r in state.revealed[GRID_CELLS:])
    turns = math.ceil((grid + BESIDE_WEIGHT * beside) / game.num_players)
    return turns - (game.card_limit - len(state.cards[seat]))


def deadline_confidence(game: ChocolatesRules, state: ChocolatesState, seat: int) -> float:
    """The chance a patient take must reach now (see ``DEADLINE``)."""
    if state.final_turns >= 0:
        return FINAL_CONFIDENCE
    left = slack(game, state, seat)
    needed = next((c for least, c in DEADLINE if left >= least), LATE_CONFIDENCE)
    if any(
        len(state.cards[p]) + 1 >= game.card_limit for p in range(game.num_players) if p != seat
    ):
        needed = min(needed, NEAR_END_CONFIDENCE)
    return needed


def display_worth(rates: np.ndarray, state: ChocolatesState) -> float:
    """The summed worth of the display cards one could take with ``INFO_CONFIDENCE``
    (each card's best such side plus its nougats, 0 when none)."""
    total = 0.0
    for slot, card in enumerate(state.display):
        if card < 0:
            continue
        best = 0.0
        p = float(rates[card])
        for side, conf in ((0, p), (1, 1.0 - p)):
            if conf >= INFO_CONFIDENCE:
                best = max(best, side_value(card, side, p) + state.display_nougats[slot])
        total += best
    return total


def last_turn(state: ChocolatesState) -> bool:
    """Whether the game ends after the current turn whatever is done: the end was
    triggered and this is the last turn, or the only face-down chocolate is in the grid."""
    beside = any(not r for r in state.revealed[GRID_CELLS:])
    return state.final_turns == 0 or (state.grid_hidden == 1 and not beside)


class Plan:
    """The adaptive plan for one game, with its estimates cached per public table."""

    def __init__(self, game: ChocolatesRules) -> None:
        self.game = game
        self.estimator = TruthEstimator(game, TRUTH_SAMPLES)
        self._info: OrderedDict[bytes, dict[int, float]] = OrderedDict()

    def truth(self, state: ChocolatesState) -> np.ndarray:
        """(29,) the chance that each card is true, from the face-up chocolates only."""
        return self.estimator.truth_rates(state)

    def info_values(self, state: ChocolatesState) -> dict[int, float]:
        """Face-down position -> the expected ``display_worth`` once it is revealed (over
        ``INFO_SAMPLES`` arrangements of the unseen chocolates, grouped by what lies
        there)."""
        key = table_key(state)
        hit = self._info.get(key)
        if hit is not None:
            self._info.move_to_end(key)
            return hit
        hidden = [pos for pos in range(NUM_CHOCOLATES) if not state.revealed[pos]]
        samples = self.estimator.layouts(state, INFO_SAMPLES, b"info")
        truth = card_truth_matrix(samples)
        values: dict[int, float] = {}
        for pos in hidden:
            kinds = samples[:, pos]
            value = 0.0
            for kind in np.unique(kinds):
                sel = kinds == kind
                value += float(sel.mean()) * display_worth(truth[sel].mean(axis=0), state)
            values[pos] = value
        self._info[key] = values
        if len(self._info) > INFO_CACHE_SIZE:
            self._info.popitem(last=False)
        return values

    def last_turn_action(self, state: ChocolatesState, seat: int) -> int | None:
        """On the seat's last turn (the game ends after it): the take, or None for no
        take, that wins most often over ``FINAL_SAMPLES`` arrangements of the face-down
        chocolates (ties count half; no take wins ties between choices)."""
        game = self.game
        truth = card_truth_matrix(self.estimator.layouts(state, FINAL_SAMPLES, b"final")).T
        no_points = np.zeros(FINAL_SAMPLES)

        def score(p: int) -> np.ndarray:
            """Seat ``p``'s final score on each arrangement, as the rules score it."""
            return no_points + state.nougats[p] + held_points(state.cards[p], truth)

        best_other = np.max([score(p) for p in range(game.num_players) if p != seat], axis=0)
        mine = score(seat)

        def share(score: np.ndarray) -> float:
            return float(np.mean((score > best_other) + 0.5 * (score == best_other)))

        best, best_share = None, share(mine)
        if game.can_take(state):
            for slot, card in enumerate(state.display):
                if card < 0:
                    continue
                for side in (0, 1):
                    gain = held_points([2 * card + side], truth) + state.display_nougats[slot]
                    value = share(mine + gain)
                    if value > best_share + 1e-9:
                        best, best_share = 2 * slot + side, value
        return best

    def action(self, state: ChocolatesState) -> int:
        """The plan's action for the seat to act in ``state`` (public facts only)."""
        game = self.game
        seat = game.current_player(state)
        if seat < 0:
            raise ValueError("plan: the game is over, nobody is to act")
        truth = self.truth(state)
        calm = patient(game, state, seat, truth)
        take = None
        if last_turn(state):
            take = self.last_turn_action(state, seat)
        elif game.can_take(state):
            rates = [float(t) for t in truth]
            needed = deadline_confidence(game, state, seat) if calm else RUSH_CONFIDENCE
            best = best_take(state, rates, needed)
            final = state.final_turns >= 0
            if best is not None and (final or not ends_behind(game, state, seat, rates, best)):
                take = best
        if take is not None:
            return take
        # patient: the most informative reveal; quick: the least (the careful seat stays
        # unsure)
        values = self.info_values(state)
        target = max(values.values()) if calm else min(values.values())
        tied = [pos for pos, v in values.items() if abs(v - target) <= 1e-9]
        rng = random.Random(seed_of(table_key(state), bytes([seat])))
        return REVEAL_BASE + rng.choice(tied)


class PlanBot(Bot):
    """Plays :class:`Plan` on a determinization of its view (the plan reads only what is
    public, so any determinization gives the same action). Its plan, and so its caches,
    belong to this bot instance; a new game configuration gets a new plan."""

    name = "plan"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.plan: Plan | None = None

    def plan_for(self, game: ChocolatesRules) -> Plan:
        current = self.plan
        if current is None or (current.game.components, current.game.num_players) != (
            game.components,
            game.num_players,
        ):
            current = self.plan = Plan(game)
        return current

    def act_view(self, view: AgentView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        game = view.game
        if not isinstance(game, ChocolatesRules):
            raise TypeError(f"bot 'plan' plays Chocolates, not {game.spec.env_id}")
        action = self.plan_for(game).action(view.determinize(self.rng))
        if action not in legal:
            raise RuntimeError(f"bot 'plan' chose illegal action {action}; legal: {legal}")
        return action


def make_plan_bot(settings: dict[str, Any], seed: int | None) -> PlanBot:
    """``BotKind.make`` of ``plan`` (it takes no settings)."""
    return PlanBot(seed)
