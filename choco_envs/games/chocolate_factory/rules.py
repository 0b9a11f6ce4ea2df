"""Rules of Chocolate Factory (seed 001, German rulebook; English reading in the rulings in docs/games/chocolate_factory.md).

A roll: the roller's dice are rolled (one unit of shift time); the roller decides first
(pick, pass, reroll while nobody has picked, hire the master), then every other player in
seat order picks one item from what is left or passes. A pick that finishes a variety is
followed at once, by the same player, by packing the bar (when more than one package
accepts it) and choosing the freed station's new variety. Dice are rolled with the ``rng``
passed to :meth:`ChocolateFactoryRules.apply`; the state never holds future dice, so
``determinize`` is a copy (all information is public).

The action ids are defined below (the action table), as every game's rules define theirs;
:mod:`choco_envs.games.chocolate_factory.encoding` documents them in a table. The text is in
:mod:`choco_envs.games.chocolate_factory.render`.
"""

from __future__ import annotations

import functools
import math
import random
from typing import Any

import numpy as np

from choco_envs.core.game import Game
from choco_envs.core.spec import GameSpec, Option
from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.components import Components, load_components

# ---------------------------------------------------------------- action table
STATIONS = 4
FACES = 6  # every die has six faces
PAIR = 0  # + (station * 6 + ingredient) * 6 + quantity face (5 = joker)
MACHINE = PAIR + STATIONS * FACES * FACES  # 144: + station * 6 + machine
SPECIAL = MACHINE + STATIONS * FACES  # 168: + station * 6 + special
MASTER = SPECIAL + STATIONS * FACES  # 192: + station * 6 + ingredient
PASS = MASTER + STATIONS * FACES  # 216
REROLL = PASS + 1  # 217
MAX_SLOTS = cp.MAX_PLAYERS + 2
PACK = REROLL + 1  # 218: + package slot (0..7)
CHOOSE = PACK + MAX_SLOTS  # 226: + variety (0..8)
NUM_ACTIONS = CHOOSE + len(cp.VARIETY_NAMES)  # 235

# dice layout in State.dice: counts per face
DQ, DI, DM, DS = 0, 6, 12, 18  # quantity, ingredient, machine, special

# phases
PICK, PACK_BAR, CHOOSE_VARIETY, OVER = 0, 1, 2, 3
PHASE_NAMES = ("pick", "pack", "choose", "over")
EMPTY, CLOSED = -1, -2  # package slot variety when empty / when full with no supply left

SPEC = GameSpec(
    env_id="chocolate_factory_v2",
    name="Chocolate Factory",
    version=2,
    min_players=cp.MIN_PLAYERS,
    max_players=cp.MAX_PLAYERS,
    hidden_information=False,
    seed_file="001_826b2ee0b7489964.txt",
    default_players=2,
    options=(
        Option("length", "short", "shift time: 'short' 48 or 'long' 72 rolls, rounded up "
               "to whole rounds", allowed=cp.LENGTHS),
        Option("packages", True, "False plays 'Ohne Pakete': nothing is packed, only "
               "variety points (with refinements) count", allowed=(True, False)),
        Option("components", None, "component data: None (the authored set), a dict or a "
               "JSON file path", check=cp.check_components, rule=False,
               json_file=True),
    ),
)  # fmt: skip


class FactoryState:
    """Plain lists and ints; per-station data flat, index ``k = player * 4 + station``.

    ``dice``: counts per face of the dice left in the roll (quantity 0..5, ingredient
    6..11, machine 12..17, special 18..23). ``variety[k]`` (-1 while free), ``missing[k *
    6 + i]`` amount of ingredient i still missing, ``placed[k]`` bitmask of machines
    placed, ``special[k]`` 0/1. Per player: ``apps``, score parts, ``finished`` varieties,
    bars in ``storage``, ``masters`` hired. Per package slot: ``pkg_variety`` (EMPTY,
    CLOSED or a variety), ``pkg_fill``, ``pkg_owners[slot * n + player]``. ``time_left``:
    rolls after the current one. ``pending_*`` and ``resume_pick`` carry a finished bar
    through the pack and choose steps.

    ``PACKED`` lists (``missing``, the largest: every value 0..6) are ``bytearray``: they
    index, assign and copy as lists do, and ``encode_batch`` joins their bytes rather than
    reading them an int at a time. (Reading one is a little slower than reading a list,
    which the legal moves do often: the dice and the machines stay lists.)
    """

    __slots__ = (
        "roller", "pick_index", "phase", "time_left", "dice", "variety", "missing",
        "placed", "special", "apps", "variety_points", "refine_points", "bonus_points",
        "finished", "storage", "masters", "pkg_variety", "pkg_fill", "pkg_owners",
        "supply_left", "packages_filled", "pending_variety", "pending_station", "resume_pick",
    )  # fmt: skip

    roller: int
    pick_index: int
    phase: int
    time_left: int
    dice: list[int]
    variety: list[int]
    missing: bytearray
    placed: list[int]
    special: list[int]
    apps: list[int]
    variety_points: list[int]
    refine_points: list[int]
    bonus_points: list[int]
    finished: list[int]
    storage: list[int]
    masters: list[int]
    pkg_variety: list[int]
    pkg_fill: list[int]
    pkg_owners: list[int]
    supply_left: int
    packages_filled: int
    pending_variety: int
    pending_station: int
    resume_pick: int

    LISTS = (
        "dice", "variety", "missing", "placed", "special", "apps", "variety_points",
        "refine_points", "bonus_points", "finished", "storage", "masters", "pkg_variety",
        "pkg_fill", "pkg_owners",
    )  # fmt: skip
    PACKED = ("missing",)
    INTS = (
        "roller", "pick_index", "phase", "time_left", "supply_left", "packages_filled",
        "pending_variety", "pending_station", "resume_pick",
    )  # fmt: skip

    def copy(self) -> FactoryState:
        """Every list copied, every int shared (written out: the hot path of search; a
        test checks that it covers ``INTS`` and ``LISTS``)."""
        c = FactoryState.__new__(FactoryState)
        c.roller, c.pick_index, c.phase = self.roller, self.pick_index, self.phase
        c.time_left, c.supply_left = self.time_left, self.supply_left
        c.packages_filled, c.resume_pick = self.packages_filled, self.resume_pick
        c.pending_variety, c.pending_station = self.pending_variety, self.pending_station
        c.dice, c.variety, c.missing = self.dice[:], self.variety[:], self.missing[:]
        c.placed, c.special, c.apps = self.placed[:], self.special[:], self.apps[:]
        c.variety_points, c.refine_points = self.variety_points[:], self.refine_points[:]
        c.bonus_points, c.finished = self.bonus_points[:], self.finished[:]
        c.storage, c.masters = self.storage[:], self.masters[:]
        c.pkg_variety, c.pkg_fill = self.pkg_variety[:], self.pkg_fill[:]
        c.pkg_owners = self.pkg_owners[:]
        return c

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FactoryState):
            return NotImplemented
        # by value: a packed list (``bytearray``) equals a list of the same ints
        return all(getattr(self, n) == getattr(other, n) for n in self.INTS) and all(
            list(getattr(self, n)) == list(getattr(other, n)) for n in self.LISTS
        )

    __hash__ = None  # type: ignore[assignment]


class ChocolateFactoryRules(Game[FactoryState]):
    """Chocolate Factory for 2 to 6 players; see the module docstring. The records
    (``to_json`` / ``from_json``, in ``records.py``) and the encoders are added by
    ``choco_envs.games.chocolate_factory.ChocolateFactoryGame``."""

    spec = SPEC

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        n = self.num_players
        self.components: Components = load_components(self.config["components"])
        self.varieties = self.components.varieties
        self.packages_on: bool = bool(self.config["packages"])
        self.special_dice = 1 if n == 2 else (2 if n <= 4 else 3)
        self.max_apps = 4 if n == 2 else 3
        self.slots = n + 2
        rolls = cp.LENGTH_ROLLS[self.config["length"]]
        self.total_rolls = math.ceil(rolls / n) * n
        self.package_total = self.components.package_total(self.config["length"], n)
        # per-variety tables for the hot path
        self.quantities = [v.quantities for v in self.varieties]
        self.tier = [v.tier for v in self.varieties]
        self.machine_mask = [v.machine_mask for v in self.varieties]
        self.variety_special = [v.special for v in self.varieties]
        self.points = [v.points for v in self.varieties]
        self.by_tier = [[v.index for v in self.varieties if v.tier == t] for t in range(3)]
        self.num_actions = NUM_ACTIONS
        # per roll: rerolls, then per player a master, a pick and two finishings
        self.max_steps = self.total_rolls * (self.max_apps + 6 * n)

    # ------------------------------------------------------------------ setup
    def new_state(self, rng: random.Random) -> FactoryState:
        n = self.num_players
        s = FactoryState.__new__(FactoryState)
        s.roller, s.pick_index, s.phase = 0, 0, PICK
        s.time_left = self.total_rolls - 1  # rolls left after the first one
        s.variety = []
        missing: list[int] = []
        for _ in range(n):
            for tier in (0, 0, 1, 2):  # 2 Bronze, 1 Silver, 1 Gold, each drawn at random
                options = self.by_tier[tier]
                v = options[int(rng.random() * len(options))]
                s.variety.append(v)
                missing.extend(self.quantities[v])
        s.missing = bytearray(missing)
        s.placed = [0] * (4 * n)
        s.special = [0] * (4 * n)
        for name in ("apps", "variety_points", "refine_points", "bonus_points", "finished",
                     "storage", "masters"):  # fmt: skip
            setattr(s, name, [0] * n)
        s.pkg_variety = [EMPTY] * self.slots
        s.pkg_fill = [0] * self.slots
        s.pkg_owners = [0] * (self.slots * n)
        s.supply_left = self.package_total - self.slots
        s.packages_filled = 0
        s.pending_variety = s.pending_station = -1
        s.resume_pick = 0
        self._roll(s, rng)
        return s

    def _roll(self, s: FactoryState, rng: random.Random) -> None:
        """Roll every die anew with ``rng``. Shift time is counted by the caller: a new
        roll costs one unit, a reroll none."""
        d = [0] * 24
        rand = rng.random
        for _ in range(self.num_players):
            d[int(rand() * 6)] += 1
            d[DI + int(rand() * 6)] += 1
        for _ in range(self.special_dice):
            d[DM + int(rand() * 6)] += 1
            d[DS + int(rand() * 6)] += 1
        s.dice = d

    # ------------------------------------------------------------------ queries
    def current_player(self, s: FactoryState) -> int:
        if s.phase == OVER:
            return -1
        return (s.roller + s.pick_index) % self.num_players

    def is_over(self, s: FactoryState) -> bool:
        return s.phase == OVER

    def copy(self, s: FactoryState) -> FactoryState:
        return s.copy()

    def determinize(self, s: FactoryState, player: int, rng: random.Random) -> FactoryState:
        """All information is public; only future dice are unknown, and they come from
        the rng of whoever applies the next action. So a copy is a determinization."""
        return s.copy()

    def scores(self, s: FactoryState) -> list[float]:
        return [
            float(s.variety_points[p] + s.refine_points[p] + s.bonus_points[p])
            for p in range(self.num_players)
        ]

    def ranking_key(self, s: FactoryState, player: int) -> tuple[float, ...]:
        """Most points; tie: more finished varieties; then a draw."""
        return (self.scores(s)[player], float(s.finished[player]))

    def score_breakdown(self, s: FactoryState) -> dict[str, list[float]]:
        return {
            "varieties": [float(x) for x in s.variety_points],
            "refinements": [float(x) for x in s.refine_points],
            "package_bonus": [float(x) for x in s.bonus_points],
            "total": self.scores(s),
        }

    # ------------------------------------------------------------------ legality
    def legal_actions(self, s: FactoryState) -> list[int]:
        if s.phase == PICK:
            return self._pick_actions(s)
        if s.phase == PACK_BAR:
            packs = [PACK + k for k in self._package_options(s, s.pending_variety)]
            return self._master_actions(s) + packs
        if s.phase == CHOOSE_VARIETY:
            chooses = list(range(CHOOSE, CHOOSE + len(self.varieties)))
            return self._master_actions(s) + chooses
        return []

    def _master_actions(self, s: FactoryState) -> list[int]:
        """The master placements open to the player to act ("Du holst sie jederzeit":
        at any of their decision points), under the machine die's placement rule."""
        p = (s.roller + s.pick_index) % self.num_players
        if s.apps[p] != self.max_apps:
            return []
        acts: list[int] = []
        for st in range(STATIONS):
            k = p * 4 + st
            v = s.variety[k]
            if v < 0:
                continue
            open_machines = self.machine_mask[v] & ~s.placed[k]
            acts.extend(MASTER + st * 6 + m for m in range(6) if open_machines >> m & 1)
        return acts

    def legal_mask(self, s: FactoryState) -> np.ndarray:
        """``legal_actions`` as a mask, built in a bytearray and viewed without a copy."""
        mask = bytearray(NUM_ACTIONS)
        for a in self.legal_actions(s):
            mask[a] = 1
        return np.frombuffer(mask, dtype=bool)

    def _pick_actions(self, s: FactoryState) -> list[int]:
        p = (s.roller + s.pick_index) % self.num_players
        d = s.dice
        # by station, ingredient and amount missing, the pairs whose whole quantity fits
        pair_rows = pair_actions(tuple(d[DQ:DI]))
        ingredients = faces_shown(tuple(d[DI:DM]))  # only these can pair
        machine_dice = faces_mask(tuple(d[DM:DS]))  # the machines a die shows
        pairs: list[int] = []
        machines: list[int] = []
        specials: list[int] = []
        masters: list[int] = []
        can_hire = s.apps[p] == self.max_apps
        missing, variety, placed, special = s.missing, s.variety, s.placed, s.special
        machine_mask, variety_special = self.machine_mask, self.variety_special
        k = p * 4
        for st in range(STATIONS):
            v = variety[k]
            rows = pair_rows[st]
            base = k * 6
            for i in ingredients:
                pairs += rows[i][missing[base + i]]
            open_machines = machine_mask[v] & ~placed[k]
            if open_machines:
                machines += MACHINE_ROWS[st][open_machines & machine_dice]
                if can_hire:
                    masters += MASTER_ROWS[st][open_machines]
            sp = variety_special[v]
            if not special[k] and d[DS + sp]:
                specials.append(SPECIAL + st * 6 + sp)
            k += 1
        acts = pairs + machines + specials + masters
        acts.append(PASS)
        if s.pick_index == 0 and s.apps[p] > 0:
            acts.append(REROLL)
        return acts

    def _package_options(self, s: FactoryState, variety: int) -> list[int]:
        """Package slots that accept a bar of ``variety``: every open package of that
        variety with room, and the first empty one (empty packages are interchangeable)."""
        options = [k for k in range(self.slots) if s.pkg_variety[k] == variety]
        for k in range(self.slots):
            if s.pkg_variety[k] == EMPTY:
                options.append(k)
                break
        options.sort()
        return options

    def _refusal(self, s: FactoryState, a: int) -> str | None:
        """Why the rules refuse action ``a`` now, or None if they allow it."""
        if s.phase == PICK and a < PASS:  # a pick from the roll: the common case, first
            return self._station_refusal(s, a)
        if s.phase == OVER:
            return "the game is over"
        if s.phase in (PACK_BAR, CHOOSE_VARIETY) and MASTER <= a < PASS:
            return self._master_refusal(s, a)
        if s.phase == PACK_BAR:
            if PACK <= a < CHOOSE and a - PACK in self._package_options(s, s.pending_variety):
                return None
            return "a finished bar must be packed into a package that accepts it"
        if s.phase == CHOOSE_VARIETY:
            return None if a >= CHOOSE else "the freed station needs its new variety first"
        if a >= PACK:
            return "packing and choosing a variety follow only a finished variety"
        p = self.current_player(s)
        if a == PASS:
            return None
        if a == REROLL:
            if s.pick_index != 0:
                return "only the roller rerolls, before anyone has picked"
            return None if s.apps[p] > 0 else "a reroll costs an application; none left"
        return self._station_refusal(s, a)  # not reached: picks below PASS come first

    def _station_refusal(self, s: FactoryState, a: int) -> str | None:
        """Why the rules refuse the pick ``a`` (a pair, a machine die, a special die or
        the master placed at a station) now, or None if they allow it."""
        p = self.current_player(s)
        kind, st, face = STATION_ACTIONS[a]
        k = p * 4 + st
        v = s.variety[k]
        if kind == "master":
            return self._master_refusal(s, a)
        if kind == "pair":
            ingredient, q = divmod(face, 6)
            return self._pair_refusal(s, k, ingredient, q)
        if kind == "special":
            if not s.dice[DS + face]:
                return "no such special die is left in the roll"
            if self.variety_special[v] != face:
                return "the station's variety does not name that special ingredient"
            return "the station already has its special" if s.special[k] else None
        # machine die or master: same placement rule
        if not self.machine_mask[v] >> face & 1:
            return "machines go only to Silver or Gold stations whose recipe uses them"
        if s.placed[k] >> face & 1:
            return "the station already has a machine for that ingredient"
        return None if s.dice[DM + face] else "no such machine die is left in the roll"

    def _master_refusal(self, s: FactoryState, a: int) -> str | None:
        """The master: the maximum of applications, and the machine placement rule."""
        p = self.current_player(s)
        _, st, face = STATION_ACTIONS[a]
        k = p * 4 + st
        v = s.variety[k]
        if s.apps[p] != self.max_apps:
            return f"the master needs {self.max_apps} applications"
        if v < 0:
            return "the station is free: it has no recipe for a machine yet"
        if not self.machine_mask[v] >> face & 1:
            return "machines go only to Silver or Gold stations whose recipe uses them"
        if s.placed[k] >> face & 1:
            return "the station already has a machine for that ingredient"
        return None

    def _pair_refusal(self, s: FactoryState, k: int, ingredient: int, q: int) -> str | None:
        if not s.dice[DQ + q] or not s.dice[DI + ingredient]:
            return "that quantity or ingredient die is not left in the roll"
        miss = s.missing[k * 6 + ingredient]
        if miss == 0:
            return "the station needs no more of that ingredient"
        if q < 5 and q + 1 > miss:
            return f"the whole quantity must fit; only {miss} missing there"
        return None

    # ------------------------------------------------------------------ apply
    def apply(self, s: FactoryState, action: int, rng: random.Random) -> None:
        a = self.check_action_range(s, action)
        reason = self._refusal(s, a)
        if reason is not None:
            raise self.illegal(s, a, reason)
        p = self.current_player(s)
        if s.phase == PICK and a < PASS:
            self._place(s, p, a, rng)
        elif s.phase != PICK and MASTER <= a < PASS:
            self._hire_between(s, p, a)
        elif s.phase == PACK_BAR:
            self._pack(s, p, a - PACK)
            self._after_pack(s)
        elif s.phase == CHOOSE_VARIETY:
            self._choose(s, p, a - CHOOSE, rng)
        elif a == PASS:
            if s.apps[p] < self.max_apps:
                s.apps[p] += 1
            self._next_picker(s, rng)
        else:  # REROLL
            s.apps[p] -= 1
            self._roll(s, rng)

    def _place(self, s: FactoryState, p: int, a: int, rng: random.Random) -> None:
        kind, st, face = STATION_ACTIONS[a]
        k = p * 4 + st
        if kind == "pair":
            ingredient, q = decode_pair(face)
            s.dice[DQ + q] -= 1
            s.dice[DI + ingredient] -= 1
            idx = k * 6 + ingredient
            s.missing[idx] -= delivered(q, s.missing[idx])
        elif kind == "machine":
            s.dice[DM + face] -= 1
            s.placed[k] |= 1 << face
        elif kind == "special":
            s.dice[DS + face] -= 1
            s.special[k] = 1
        else:  # the master: hired and placed in one step; not a pick
            s.apps[p] = 0
            s.masters[p] += 1
            s.placed[k] |= 1 << face
        s.resume_pick = 1 if kind == "master" else 0
        if self.station_done(s, k):
            self._finish_variety(s, p, st)
            if s.phase != PICK:
                return
        if kind != "master":
            self._next_picker(s, rng)

    def _hire_between(self, s: FactoryState, p: int, a: int) -> None:
        """The master hired at the pack or choose step: placed at once; the player then
        continues the step she interrupted. A variety she completes is finished as soon as
        the pending bar's station has its new variety (see :meth:`_choose`)."""
        _, st, face = STATION_ACTIONS[a]
        s.apps[p] = 0
        s.masters[p] += 1
        s.placed[p * 4 + st] |= 1 << face

    def left_to_finish(self, s: FactoryState, k: int) -> tuple[int, int]:
        """(ingredients still missing, machines still to place) at station k (player * 4
        + station): the variety is finished when both are 0 (:meth:`station_done`)."""
        open_machines = bin(self.machine_mask[s.variety[k]] & ~s.placed[k]).count("1")
        return sum(s.missing[k * 6 : k * 6 + 6]), open_machines

    def station_done(self, s: FactoryState, k: int) -> bool:
        """Station k (player * 4 + station) has everything delivered and, for Silver and
        Gold, every machine placed: the variety is finished."""
        v = s.variety[k]
        if s.placed[k] != self.machine_mask[v]:
            return False
        return not any(s.missing[k * 6 : k * 6 + 6])

    def _finish_variety(self, s: FactoryState, p: int, st: int) -> None:
        """Score the bar, free the station, and pack at once (a choice only when more
        than one package accepts the bar)."""
        k = p * 4 + st
        v = s.variety[k]
        s.variety_points[p] += self.points[v]
        if s.special[k]:
            s.refine_points[p] += cp.REFINE_BONUS
        s.finished[p] += 1
        s.variety[k] = -1
        s.placed[k] = 0
        s.special[k] = 0
        s.pending_station = st
        s.pending_variety = v
        if not self.packages_on:
            s.phase = CHOOSE_VARIETY
            return
        options = self._package_options(s, v)
        if len(options) > 1:
            s.phase = PACK_BAR
            return
        if options:
            self._pack(s, p, options[0])
        else:
            s.storage[p] += 1
        self._after_pack(s)

    def _pack(self, s: FactoryState, p: int, slot: int) -> None:
        n = self.num_players
        v = s.pending_variety
        s.pkg_variety[slot] = v
        s.pkg_fill[slot] += 1
        s.pkg_owners[slot * n + p] += 1
        if s.pkg_fill[slot] < cp.PACKAGE_SIZE:
            return
        bonus = cp.PACKAGE_BONUS[self.tier[v]]
        for owner in range(n):
            s.bonus_points[owner] += bonus * s.pkg_owners[slot * n + owner]
            s.pkg_owners[slot * n + owner] = 0
        s.packages_filled += 1
        s.pkg_fill[slot] = 0
        if s.supply_left > 0:
            s.supply_left -= 1
            s.pkg_variety[slot] = EMPTY
        else:
            s.pkg_variety[slot] = CLOSED

    def _after_pack(self, s: FactoryState) -> None:
        if s.supply_left == 0 and all(v == CLOSED for v in s.pkg_variety):
            s.phase = OVER  # every package is full: the game ends at once
            return
        s.phase = CHOOSE_VARIETY

    def _choose(self, s: FactoryState, p: int, v: int, rng: random.Random) -> None:
        k = p * 4 + s.pending_station
        s.variety[k] = v
        s.missing[k * 6 : k * 6 + 6] = self.quantities[v]
        s.pending_station = s.pending_variety = -1
        s.phase = PICK
        for st in range(STATIONS):  # a variety the master completed meanwhile
            kk = p * 4 + st
            if s.variety[kk] >= 0 and self.station_done(s, kk):
                self._finish_variety(s, p, st)
                if s.phase != PICK:
                    return
        if not s.resume_pick:
            self._next_picker(s, rng)

    def _next_picker(self, s: FactoryState, rng: random.Random) -> None:
        s.pick_index += 1
        self._roll_if_round_done(s, rng)

    def _roll_if_round_done(self, s: FactoryState, rng: random.Random) -> None:
        if s.pick_index < self.num_players:
            return
        if s.time_left == 0:
            s.phase = OVER  # shift time is out and the round is finished
            return
        s.roller = (s.roller + 1) % self.num_players
        s.pick_index = 0
        s.time_left -= 1
        self._roll(s, rng)

    # ------------------------------------------------------------------ text
    def action_to_string(self, s: FactoryState, action: int) -> str:
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            return f"invalid action {a}"
        if a == PASS:
            return "pass (+1 application)"
        if a == REROLL:
            return "reroll all dice (costs 1 application, no shift time)"
        if a >= CHOOSE:
            v = self.varieties[a - CHOOSE]
            return f"new variety {v.name} ({cp.TIERS[v.tier]}, {v.points} points)"
        if a >= PACK:
            return f"pack the bar into package {a - PACK}"
        kind, st, face = decode_station_action(a)
        if kind == "pair":
            ingredient, q = decode_pair(face)
            return f"pair {cp.QUANTITY_FACES[q]} x {cp.INGREDIENTS[ingredient]} -> station {st}"
        if kind == "machine":
            return f"machine {cp.MACHINES[face]} -> station {st}"
        if kind == "special":
            return f"special {cp.SPECIALS[face]} -> station {st}"
        return f"hire the master as {cp.MACHINES[face]} -> station {st}"


JOKER = 5  # the quantity die's star face
#: the set bits of every 6-bit mask, lowest first (machines open at a station)
BITS = tuple(tuple(m for m in range(6) if mask >> m & 1) for mask in range(64))


@functools.cache
def fitting_faces(quantity_dice: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """By the amount of an ingredient still missing (0..6; more fits as 6 does), the quantity faces among
    ``quantity_dice`` (counts per face) whose whole quantity fits there: face q shows
    q + 1, the joker fits wherever something is missing. A few hundred rolls at most, so
    cached."""
    return tuple(
        tuple(q for q in range(FACES) if quantity_dice[q] and (q == JOKER or q < miss))
        if miss
        else ()
        for miss in range(7)
    )


@functools.cache
def faces_shown(dice: tuple[int, ...]) -> tuple[int, ...]:
    """The faces among ``dice`` (counts per face) that some die shows."""
    return tuple(face for face, count in enumerate(dice) if count)


@functools.cache
def faces_mask(dice: tuple[int, ...]) -> int:
    """The faces among ``dice`` (counts per face) that some die shows, as a bitmask."""
    return sum(1 << face for face in faces_shown(dice))


@functools.cache
def pair_actions(
    quantity_dice: tuple[int, ...],
) -> tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]:
    """:func:`fitting_faces` as pair action ids: ``[station][ingredient][missing]``, the
    pairs of that ingredient and a fitting quantity face for that station, in increasing
    order (missing is 0..6: recipes ask 1..6 of an ingredient, see ``components``)."""
    fitting = fitting_faces(quantity_dice)
    return tuple(
        tuple(
            tuple(tuple(PAIR + (st * 6 + i) * 6 + q for q in faces) for faces in fitting)
            for i in range(6)
        )
        for st in range(STATIONS)
    )


#: by station and machines (a 6-bit mask: open there and shown by a die), the machine
#: placements there, increasing
MACHINE_ROWS = tuple(
    tuple(tuple(MACHINE + st * 6 + m for m in BITS[mask]) for mask in range(64))
    for st in range(STATIONS)
)
#: by station and open machines (a 6-bit mask), the master placements there, increasing
MASTER_ROWS = tuple(
    tuple(tuple(MASTER + st * 6 + m for m in BITS[mask]) for mask in range(64))
    for st in range(STATIONS)
)


def decode_pair(face: int) -> tuple[int, int]:
    """(ingredient, quantity face) of a pair's face, ``ingredient * 6 + quantity face``."""
    ingredient, q = divmod(face, FACES)
    return ingredient, q


def delivered(q: int, missing: int) -> int:
    """What quantity face ``q`` delivers where ``missing`` of the ingredient is missing:
    its number (faces 0..4 show 1..5), the star joker fills up to JOKER_FILL of it."""
    return min(cp.JOKER_FILL, missing) if q == JOKER else q + 1


def decode_station_action(a: int) -> tuple[str, int, int]:
    """(kind, station, face) of an action below PASS (kind: ``pair``, ``machine``,
    ``special`` or ``master``); for a pair, face is ``ingredient * 6 + quantity face``.
    Pure arithmetic on the action table, for bots and tools that read actions."""
    if a < MACHINE:
        st, face = divmod(a - PAIR, 36)
        return "pair", st, face
    if a < SPECIAL:
        st, face = divmod(a - MACHINE, 6)
        return "machine", st, face
    if a < MASTER:
        st, face = divmod(a - SPECIAL, 6)
        return "special", st, face
    st, face = divmod(a - MASTER, 6)
    return "master", st, face


#: ``decode_station_action`` of every action below PASS, looked up on the hot path of apply
STATION_ACTIONS = tuple(decode_station_action(a) for a in range(PASS))
