"""Chocolates encoders: ``"flat"`` (one vector), ``"planes"`` (C, 4, 4) and ``"beliefs"``
(``flat`` plus what the table can work out about every prediction card: the chance that it
is true, estimated from the face-up chocolates only; see ``beliefs.py``).

Action codec (27 actions):

| id | meaning |
|---|---|
| 0, 1 | take display slot 0 with the true / false side face up |
| 2, 3 | take display slot 1, true / false |
| 4, 5 | take display slot 2, true / false |
| 6..21 | reveal grid cell ``id - 6`` (row-major, row 0 next to the display, column 0 left) |
| 22..26 | reveal chocolate ``id - 22`` of the five next to the grid |

Every value is normalised into [0, 1]. Seats are relative: index 0 is the observing seat,
then the others in seat order after it. Only face-up chocolates are shown (the face-down
ones and the pile order are unknown to everyone).
"""

from __future__ import annotations

from itertools import compress
from operator import mul
from typing import TYPE_CHECKING

import numpy as np

from choco_envs.core.encoding import Encoder, Layout
from choco_envs.games.chocolates.components import (
    GRID_CELLS,
    NOUGAT_SUPPLY,
    NUM_CARDS,
    NUM_CHOCOLATES,
    NUM_KINDS,
    NUM_SHAPES,
    NUM_TYPES,
    PREDICTION_CARDS,
)
from choco_envs.games.chocolates.predictions import CORNERS, LEFT, MAIN_DIAGONALS, OUTER, RIGHT

if TYPE_CHECKING:
    from choco_envs.games.chocolates.rules import ChocolatesGame, ChocolatesState

CELL_FEATURES = NUM_TYPES + NUM_SHAPES + 1  # type one-hot, shape one-hot, face-up flag
DISPLAY_SIZE = 3
PILE_SIZE = NUM_CARDS - DISPLAY_SIZE
NUM_ACTIONS = 2 * DISPLAY_SIZE + NUM_CHOCOLATES  # the action codec above
INV_SUPPLY = 1.0 / NOUGAT_SUPPLY
INV_PILE = 1.0 / PILE_SIZE
INV_GRID = 1.0 / GRID_CELLS
REGIONS = (
    ("outer", OUTER),
    ("left", LEFT),
    ("right", RIGHT),
    ("corners", CORNERS),
    ("diagonals", MAIN_DIAGONALS[0] + MAIN_DIAGONALS[1]),
)


def flat_layout(num_players: int) -> Layout:
    """The named slices of the ``flat`` observation."""
    n = num_players
    lay = Layout()
    cell = "type one-hot (dark, brown, white, green, pink, gold), shape one-hot (round, "
    cell += "triangular, hexagonal), face-up flag; all 0 while face down"
    lay.add("grid", GRID_CELLS * CELL_FEATURES, f"16 grid cells row-major x 10: {cell}")
    lay.add("beside", 5 * CELL_FEATURES, f"the 5 chocolates next to the grid x 10: {cell}")
    lay.add("display_cards", DISPLAY_SIZE * NUM_CARDS, "3 display slots x card id one-hot (29)")
    lay.add("seat_cards", n * NUM_CARDS * 2, "per seat (own first) x card x (true up, false up)")
    lay.add("display_points", DISPLAY_SIZE * 2, "3 slots x (true points, false points) / 10")
    lay.add("display_nougats", DISPLAY_SIZE, "nougat cubes on each display card / 24")
    lay.add("seat_card_count", n, "cards held per seat / card limit")
    lay.add("seat_nougats", n, "nougat cubes per seat / 24")
    lay.add("acting_seat", n, "one-hot of the seat to act (relative)")
    lay.add("supply", 1, "nougat cubes left in the supply / 24")
    lay.add("pile", 1, "prediction cards left in the pile / 26")
    lay.add(
        "unseen_kinds",
        NUM_KINDS,
        "face-down chocolates by type x shape (dark round, dark triangular, ..., gold "
        "hexagonal) / that kind's total (0 if the set has none)",
    )
    lay.add("grid_hidden", 1, "face-down grid chocolates / 16")
    lay.add("took_card", 1, "1 if the seat to act took a card this turn (must reveal now)")
    lay.add("end_triggered", 1, "1 once a player reached the card limit")
    lay.add("final_turns_left", 1, "turns still to play after the current one / (players - 1)")
    return lay


class ChocolatesEncoders:
    """Precomputed index tables and the two fill functions.

    The flat layout puts every one-hot field first (``grid`` .. ``seat_cards``) and every
    other value after them (``display_points`` .. ``final_turns_left``), so that a fill is
    two numpy writes: ``put`` of the one-hot indices and one slice of values.
    """

    def __init__(self, game: ChocolatesGame) -> None:
        self.n = n = game.num_players
        self.layout = lay = flat_layout(n)
        self.size = lay.size
        grid0 = lay["grid"].start
        # hot[pos * 18 + kind] = the three indices set to 1 for a face-up chocolate
        self.hot = [
            (
                grid0 + pos * CELL_FEATURES + kind // NUM_SHAPES,
                grid0 + pos * CELL_FEATURES + NUM_TYPES + kind % NUM_SHAPES,
                grid0 + pos * CELL_FEATURES + CELL_FEATURES - 1,
            )
            for pos in range(NUM_CHOCOLATES)
            for kind in range(NUM_KINDS)
        ]
        self.positions = range(NUM_CHOCOLATES)
        display0 = lay["display_cards"].start
        self.display_starts = tuple(display0 + slot * NUM_CARDS for slot in range(DISPLAY_SIZE))
        # card_points[-1] (an empty slot) is the appended (0, 0)
        self.card_points = [(c.true_points / 10, c.false_points / 10) for c in PREDICTION_CARDS]
        self.card_points.append((0.0, 0.0))
        self.seat_cards0 = lay["seat_cards"].start
        self.values0 = lay["display_points"].start
        if lay["seat_cards"].stop != self.values0 or lay["final_turns_left"].stop != lay.size:
            raise AssertionError("flat layout: one-hot fields first, then the values")
        self.inv_limit = 1.0 / game.card_limit
        self.inv_others = 1.0 / (n - 1)
        totals = [0] * NUM_KINDS
        for kind in game.chocolates:
            totals[kind] += 1
        self.kind_totals = totals
        self.inv_kind = [1.0 / t if t else 0.0 for t in totals]
        self.rest0 = lay["beside"].start  # planes: everything after the grid
        self.rest = self.size - self.rest0
        self.feature_planes = -(-self.rest // GRID_CELLS)
        self.regions = np.zeros((len(REGIONS), 4, 4), dtype=np.float32)
        for i, (_, cells) in enumerate(REGIONS):
            for c in cells:
                self.regions[i, c // 4, c % 4] = 1.0

    # ------------------------------------------------------------------ flat
    def fill_flat(self, s: ChocolatesState, player: int, out: np.ndarray) -> None:
        """Write the ``flat`` observation of ``player`` into the zeroed ``out``."""
        ones: list[int] = []
        unseen = self.kind_totals[:]
        hot, layout = self.hot, s.layout
        for pos in compress(self.positions, s.revealed):
            kind = layout[pos]
            ones += hot[pos * NUM_KINDS + kind]
            unseen[kind] -= 1
        d0, d1, d2 = s.display
        for slot_start, card in zip(self.display_starts, s.display, strict=True):
            if card >= 0:
                ones.append(slot_start + card)
        n = self.n
        seats = [(player + rel) % n for rel in range(n)] if player else range(n)
        base = self.seat_cards0
        for seat in seats:
            ones += [base + code for code in s.cards[seat]]
            base += 2 * NUM_CARDS
        acting = [0.0] * n
        if s.current >= 0:
            acting[(s.current - player) % n] = 1.0
        points = self.card_points
        triggered = s.final_turns >= 0
        n0, n1, n2 = s.display_nougats
        values = [
            *points[d0],
            *points[d1],
            *points[d2],
            n0 * INV_SUPPLY,
            n1 * INV_SUPPLY,
            n2 * INV_SUPPLY,
            *[len(s.cards[p]) * self.inv_limit for p in seats],
            *[s.nougats[p] * INV_SUPPLY for p in seats],
            *acting,
            s.supply * INV_SUPPLY,
            len(s.pile) * INV_PILE,
            *map(mul, unseen, self.inv_kind),
            s.grid_hidden * INV_GRID,
            float(s.took_card),
            float(triggered),
            s.final_turns * self.inv_others if triggered else 0.0,
        ]
        out.put(ones, 1.0)
        out[self.values0 :] = values

    # ------------------------------------------------------------------ planes
    def planes_layout(self) -> Layout:
        lay = Layout()
        lay.add("grid_type", NUM_TYPES, "type one-hot of face-up grid chocolates")
        lay.add("grid_shape", NUM_SHAPES, "shape one-hot of face-up grid chocolates")
        lay.add("grid_face_up", 1, "1 where the grid chocolate is face up")
        names = ", ".join(name for name, _ in REGIONS)
        lay.add("regions", len(REGIONS), f"constant masks of the card areas: {names}")
        lay.add(
            "features",
            self.feature_planes,
            f"the flat fields from `beside` on ({self.rest} values), 16 per plane row-major, "
            "zero padded",
        )
        return lay

    def fill_planes(self, s: ChocolatesState, player: int, out: np.ndarray) -> None:
        """Write the ``planes`` observation of ``player`` into the zeroed ``out``."""
        flat = np.zeros(self.size, dtype=np.float32)
        self.fill_flat(s, player, flat)
        grid = flat[: self.rest0].reshape(GRID_CELLS, CELL_FEATURES).T.reshape(-1, 4, 4)
        out[:CELL_FEATURES] = grid
        out[CELL_FEATURES : CELL_FEATURES + len(REGIONS)] = self.regions
        first = (CELL_FEATURES + len(REGIONS)) * GRID_CELLS
        out.reshape(-1)[first : first + self.rest] = flat[self.rest0 :]


def _starting_with(base: Layout) -> Layout:
    """A new layout holding the fields of ``base``, to add more after them."""
    lay = Layout()
    for f in base.fields:
        lay.add(f.name, f.size, f.meaning, f.low, f.high)
    return lay


def beliefs_layout(num_players: int) -> Layout:
    """The ``flat`` layout followed by the belief fields."""
    lay = _starting_with(flat_layout(num_players))
    lay.add(
        "card_truth",
        NUM_CARDS,
        "per card id: estimated chance that its prediction is true, from the face-up "
        "chocolates only (the share of random arrangements of the unseen ones)",
    )
    lay.add(
        "display_truth", DISPLAY_SIZE, "card_truth of the card in each display slot (0 if empty)"
    )
    lay.add(
        "display_side_value",
        DISPLAY_SIZE * 2,
        "3 slots x (true side, false side): expected points of the card with that side up "
        "(points x (2 x chance right - 1)) / 10",
        -1.0,
        1.0,
    )
    lay.add(
        "seat_expected_points",
        num_players,
        "per seat (own first): expected points of its prediction cards / 40",
        -1.0,
        1.0,
    )
    return lay


class BeliefsEncoder:
    """Fills the ``beliefs`` observation: ``flat``, then the belief fields."""

    def __init__(self, game: ChocolatesGame, enc: ChocolatesEncoders) -> None:
        from choco_envs.games.chocolates.beliefs import TruthEstimator, side_value

        self.side_value = side_value

        self.enc = enc
        self.n = game.num_players
        self.layout = beliefs_layout(self.n)
        self.estimator = TruthEstimator(game.chocolates)
        self.truth0 = self.layout["card_truth"].start

    def fill(self, s: ChocolatesState, player: int, out: np.ndarray) -> None:
        self.enc.fill_flat(s, player, out[: self.truth0])
        truth = self.estimator.truth_rates(s.layout, s.revealed)
        display = [truth[c] if c >= 0 else 0.0 for c in s.display]
        sides = [
            self.side_value(c, side, float(truth[c])) if c >= 0 else 0.0
            for c in s.display
            for side in (0, 1)
        ]
        seats = [(player + rel) % self.n for rel in range(self.n)]
        held = [
            sum(
                self.side_value(code // 2, code % 2, float(truth[code // 2])) for code in s.cards[p]
            )
            for p in seats
        ]
        i = self.truth0
        out[i : i + NUM_CARDS] = truth
        i += NUM_CARDS
        out[i : i + DISPLAY_SIZE] = display
        i += DISPLAY_SIZE
        out[i : i + 2 * DISPLAY_SIZE] = np.asarray(sides, dtype=np.float32) / 10.0
        i += 2 * DISPLAY_SIZE
        out[i : i + self.n] = np.clip(np.asarray(held, dtype=np.float32) / 40.0, -1.0, 1.0)


def plan_layout(num_players: int) -> Layout:
    """The ``beliefs`` layout followed by the adaptive plan's fields."""
    lay = _starting_with(beliefs_layout(num_players))
    lay.add(
        "plan_action",
        NUM_ACTIONS,
        "per action: 1 for the action the adaptive plan (plan.py, greedy:adaptive=1) "
        "chooses for the observing seat when it is to act, else 0",
    )
    lay.add(
        "plan_patient",
        1,
        "1 while the plan plays patient for the observing seat (another seat reckless, or "
        "none holding a card), 0 while it plays quick",
    )
    return lay


class PlanEncoder:
    """Fills the ``plan`` observation: ``beliefs``, then the adaptive plan's choice."""

    def __init__(self, game: ChocolatesGame, beliefs: BeliefsEncoder) -> None:
        self.game = game
        self.beliefs = beliefs
        self.layout = plan_layout(game.num_players)
        self.action0 = self.layout["plan_action"].start
        self.patient = self.layout["plan_patient"].start

    def fill(self, s: ChocolatesState, player: int, out: np.ndarray) -> None:
        from choco_envs.games.chocolates import plan

        self.beliefs.fill(s, player, out[: self.action0])
        if self.game.current_player(s) == player:
            out[self.action0 + plan.plan_action(self.game, s)] = 1.0
        truth = plan.truth_of(self.game, s)
        out[self.patient] = float(plan.patient(self.game, s, player, truth))


def build_encoders(game: ChocolatesGame) -> dict[str, Encoder[ChocolatesState]]:
    """The ``flat``, ``planes``, ``beliefs`` and ``plan`` encoders for one configuration
    of ``game``."""
    enc = ChocolatesEncoders(game)
    planes = enc.planes_layout()
    beliefs = BeliefsEncoder(game, enc)
    planned = PlanEncoder(game, beliefs)
    return {
        "flat": Encoder(
            "flat",
            (enc.size,),
            enc.layout,
            enc.fill_flat,
            "face-up chocolates, display, every seat's cards and nougats, public counts",
        ),
        "planes": Encoder(
            "planes",
            (planes.size, 4, 4),
            planes,
            enc.fill_planes,
            "grid one-hots and region masks as 4x4 planes, the other features packed",
        ),
        "beliefs": Encoder(
            "beliefs",
            (beliefs.layout.size,),
            beliefs.layout,
            beliefs.fill,
            "flat, then each card's estimated chance of being true and what it is worth",
        ),
        "plan": Encoder(
            "plan",
            (planned.layout.size,),
            planned.layout,
            planned.fill,
            "beliefs, then the adaptive plan's action (greedy:adaptive=1) and its mode",
            action_fields={"plan_action": 0},
        ),
    }
