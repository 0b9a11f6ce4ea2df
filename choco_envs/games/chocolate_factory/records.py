"""Saved Chocolate Factory states: the record (the state's fields by name, the phase by
name) and its strict loader.

The record format is the one written since v1 (no version field): every field of
:class:`~choco_envs.games.chocolate_factory.rules.FactoryState`, lists as they are, the
phase as ``pick`` / ``pack`` / ``choose`` / ``over``. The loader refuses, with a
RecordError naming the field, the bad value and what is allowed (``chocolate_factory
state.time_left = -5; allowed: an int in 0..47``), every record that is not a
reachable-looking state:

* types and ranges: exactly the record's fields, ints that are ints (not bools or floats),
  lists of the right length, every value in its range;
* the clock: the roller against the shift time left (the roll passes one seat per roll),
  pick_index past the last seat only once the game is over by time;
* the dice: no more than one roll holds (quantity and ingredient dice one per player,
  machine and special dice ``special_dice`` each), as many quantity as ingredient dice
  (a pair takes one of each), at most one item taken per pick made from this roll;
* the stations: a variety's missing amounts within its recipe, machines within its
  recipe's machines (none for Bronze), a free station empty;
* the players: applications up to the cap, storage within the finished bars, variety
  points and refinements within what the finished varieties can score, finished bars,
  applications and masters within the rolls played;
* the packages: fill and owners agree, each finished bar counted once (stored, in an
  open package, in a full one, or being packed), each player's package bonus within
  what her bars in full packages can earn, the package total conserved (supply + filled
  + slots not closed), a closed slot only with the supply empty, every package field at
  its start value when the game plays without packages;
* the phase against what is pending: ``pick`` with nothing pending, no free and no
  complete station; ``pack`` and ``choose`` with the bar's variety and the acting
  player's free station (the only free one), ``pack`` only with packages and two or more
  packages to choose from; ``over`` only by one of its two endings; a game not over not
  ended by its own conditions; and a legal action for the agent to act.

So an accepted state plays on by the rules and ends within ``max_steps``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from choco_envs.core.errors import RecordError, shown
from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CLOSED,
    DI,
    DM,
    DQ,
    DS,
    EMPTY,
    OVER,
    PACK_BAR,
    PHASE_NAMES,
    PICK,
    STATIONS,
    ChocolateFactoryRules,
    FactoryState,
)

WHERE = "chocolate_factory state"
#: the record's fields, in the order written
FIELDS = FactoryState.INTS + FactoryState.LISTS
#: the dice in State.dice: (name, first index)
DICE = (("quantity", DQ), ("ingredient", DI), ("machine", DM), ("special", DS))


# ================================================================ writing
def state_to_json(game: ChocolateFactoryRules, s: FactoryState) -> dict[str, Any]:
    """The record of ``s``: its fields by name (JSON types only), the phase by name."""
    record: dict[str, Any] = {name: getattr(s, name) for name in FactoryState.INTS}
    record.update({name: list(getattr(s, name)) for name in FactoryState.LISTS})
    record["phase"] = PHASE_NAMES[s.phase]
    return record


# ================================================================ reading
def refuse(where: str, value: Any, allowed: str) -> RecordError:
    """``chocolate_factory state.<where> = <value>; allowed: <allowed>``."""
    return RecordError(f"{WHERE}.{where} = {shown(value)}; allowed: {allowed}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value: Any, where: str, low: int, high: int | None = None) -> int:
    """An int (not a bool) in ``low..high`` (no upper bound when ``high`` is None)."""
    if not _is_int(value) or value < low or (high is not None and value > high):
        span = f"an int >= {low}" if high is None else f"an int in {low}..{high}"
        raise refuse(where, value, span)
    return int(value)


def _station(k: int) -> str:
    """Who a per-station index belongs to: ``player_1 station 2``."""
    p, st = divmod(k, STATIONS)
    return f"player_{p} station {st}"


def state_from_json(game: ChocolateFactoryRules, d: Any) -> FactoryState:
    """Rebuild a state from its record, refusing (RecordError naming the field) every
    record that is not a reachable-looking state (the module doc lists the checks)."""
    if not isinstance(d, Mapping):
        raise RecordError(f"{WHERE}: expected an object, got {type(d).__name__}")
    missing = [k for k in FIELDS if k not in d]
    extra = [shown(k) for k in [k for k in d if k not in FIELDS][:5]]
    if missing or extra:
        problem = f"missing {missing}" if missing else f"unknown [{', '.join(extra)}]"
        raise RecordError(f"{WHERE}: fields {problem}; allowed: exactly {list(FIELDS)}")
    s = _read_fields(game, d)
    _check_clock(game, s)
    complete = _check_stations(game, s)
    _check_packages(game, s)
    _check_phase(game, s, complete)
    _check_dice(game, s)
    _check_players(game, s)
    if s.phase != OVER and not game.legal_actions(s):
        raise RecordError(
            f"{WHERE}: player_{game.current_player(s)} has no legal action in this position"
        )
    return s


def _read_fields(game: ChocolateFactoryRules, d: Mapping[str, Any]) -> FactoryState:
    """Every field's type, length and range, one by one."""
    n, slots = game.num_players, game.slots
    varieties = len(game.varieties)
    s = FactoryState.__new__(FactoryState)
    phase = d["phase"]
    if not isinstance(phase, str) or phase not in PHASE_NAMES:
        raise refuse("phase", phase, ", ".join(PHASE_NAMES))
    s.phase = PHASE_NAMES.index(phase)
    s.roller = _int(d["roller"], "roller", 0, n - 1)
    s.pick_index = _int(d["pick_index"], "pick_index", 0, n)
    s.time_left = _int(d["time_left"], "time_left", 0, game.total_rolls - 1)
    s.supply_left = _int(d["supply_left"], "supply_left", 0, game.package_total - slots)
    s.packages_filled = _int(d["packages_filled"], "packages_filled", 0, game.package_total)
    s.pending_variety = _int(d["pending_variety"], "pending_variety", -1, varieties - 1)
    s.pending_station = _int(d["pending_station"], "pending_station", -1, STATIONS - 1)
    s.resume_pick = _int(d["resume_pick"], "resume_pick", 0, 1)
    sd = game.special_dice
    dice_high = [n] * 12 + [sd] * 12
    top = game.max_apps
    ranges: dict[str, tuple[int, Sequence[int | None], int]] = {
        # name: (length, upper bound per entry (None: none), lower bound)
        "dice": (24, dice_high, 0),
        "variety": (STATIONS * n, [varieties - 1] * (STATIONS * n), -1),
        "missing": (6 * STATIONS * n, [max(max(q) for q in game.quantities)] * 24 * n, 0),
        "placed": (STATIONS * n, [(1 << 6) - 1] * (STATIONS * n), 0),
        "special": (STATIONS * n, [1] * (STATIONS * n), 0),
        "apps": (n, [top] * n, 0),
        "pkg_variety": (slots, [varieties - 1] * slots, CLOSED),
        "pkg_fill": (slots, [cp.PACKAGE_SIZE - 1] * slots, 0),
        "pkg_owners": (slots * n, [cp.PACKAGE_SIZE - 1] * (slots * n), 0),
    }
    counts = ("variety_points", "refine_points", "bonus_points", "finished", "storage", "masters")
    for name in counts:  # bounded by the checks that follow
        ranges[name] = (n, [None] * n, 0)
    for name in FactoryState.LISTS:
        values = d[name]
        size, highs, low = ranges[name]
        if not isinstance(values, list) or len(values) != size:
            raise refuse(name, values, f"a list of {size} ints")
        ints = [_int(v, f"{name}[{i}]", low, highs[i]) for i, v in enumerate(values)]
        setattr(s, name, bytearray(ints) if name in FactoryState.PACKED else ints)
    return s


def _rolls_started(game: ChocolateFactoryRules, s: FactoryState) -> int:
    """Rolls made so far, the current one included."""
    return game.total_rolls - s.time_left


def _acting(game: ChocolateFactoryRules, s: FactoryState) -> int:
    """The seat to act (at a game over: the seat that acted last in an unfinished round)."""
    return (s.roller + s.pick_index) % game.num_players


def _check_clock(game: ChocolateFactoryRules, s: FactoryState) -> None:
    """The roller against the shift time; pick_index past the last seat only at the end."""
    n = game.num_players
    expected = (game.total_rolls - 1 - s.time_left) % n
    if s.roller != expected:
        raise refuse(
            "roller",
            s.roller,
            f"{expected} (time_left {s.time_left} of {game.total_rolls} rolls: the roll "
            "passes one seat per roll, from player_0)",
        )
    if s.pick_index == n and not (s.phase == OVER and s.time_left == 0):
        raise refuse(
            "pick_index",
            s.pick_index,
            f"0..{n - 1} ({n} only in a game over by time: phase 'over', time_left 0)",
        )


def _check_dice(game: ChocolateFactoryRules, s: FactoryState) -> None:
    """No more dice than one roll holds; pairs leave in pairs; one item per pick."""
    n, sd = game.num_players, game.special_dice
    left = {name: sum(s.dice[i : i + 6]) for name, i in DICE}
    full = {"quantity": n, "ingredient": n, "machine": sd, "special": sd}
    for name, i in DICE:
        if left[name] > full[name]:
            raise RecordError(
                f"{WHERE}.dice[{i}:{i + 6}] ({name} dice) holds {left[name]} dice; allowed: "
                f"at most {full[name]}, the {name} dice of a roll with {n} players"
            )
    if left["quantity"] != left["ingredient"]:
        raise RecordError(
            f"{WHERE}.dice: {left['quantity']} quantity dice but {left['ingredient']} "
            "ingredient dice left; allowed: as many of each (a pair takes one of each)"
        )
    taken = sum(full.values()) - sum(left.values()) - (n - left["ingredient"])
    # the seat to act has taken a die too when a pick of hers (not the master) finished
    # the bar being packed or refilled now
    picks = s.pick_index + int(s.phase != PICK and not s.resume_pick)
    if taken > picks:
        raise RecordError(
            f"{WHERE}.dice: {taken} item(s) (a pair, a machine or a special die each) gone "
            f"from this roll after {picks} pick(s); allowed: at most one item per pick "
            f"(a roll: {n} quantity, {n} ingredient, {sd} machine, {sd} special dice)"
        )


def _check_stations(game: ChocolateFactoryRules, s: FactoryState) -> list[int]:
    """Each station's amounts, machines and special against its variety (a free station
    holds nothing). Returns the complete stations (still to be finished)."""
    complete = []
    for k, v in enumerate(s.variety):
        at = _station(k)
        miss = s.missing[k * 6 : k * 6 + 6]
        if v < 0:
            for i in range(6):
                if miss[i]:
                    raise refuse(f"missing[{k * 6 + i}]", miss[i], f"0 ({at} is free: no recipe)")
            if s.placed[k]:
                raise refuse(f"placed[{k}]", s.placed[k], f"0 ({at} is free: no recipe)")
            if s.special[k]:
                raise refuse(f"special[{k}]", s.special[k], f"0 ({at} is free: no recipe)")
            continue
        name = game.varieties[v].name
        for i in range(6):
            need = game.quantities[v][i]
            if miss[i] > need:
                raise refuse(
                    f"missing[{k * 6 + i}]",
                    miss[i],
                    f"0..{need} ({at}: {name} takes {need} {cp.INGREDIENTS[i]})",
                )
        mask = game.machine_mask[v]
        if s.placed[k] & ~mask:
            machines = [cp.MACHINES[m] for m in range(6) if mask >> m & 1]
            raise refuse(
                f"placed[{k}]",
                s.placed[k],
                f"a bitmask within {mask} ({at}: {name} uses the machines "
                f"{', '.join(machines) or 'none'})",
            )
        if game.station_done(s, k):
            complete.append(k)
    return complete


def _check_packages(game: ChocolateFactoryRules, s: FactoryState) -> None:
    """Each slot's fill against its variety and owners; the package total conserved."""
    n = game.num_players
    if not game.packages_on:
        start = {
            "pkg_variety": [EMPTY] * game.slots,
            "pkg_fill": [0] * game.slots,
            "pkg_owners": [0] * (game.slots * n),
            "supply_left": game.package_total - game.slots,
            "packages_filled": 0,
            "storage": [0] * n,
            "bonus_points": [0] * n,
        }
        for name, value in start.items():
            if getattr(s, name) != value:
                raise refuse(
                    name, getattr(s, name), f"{value!r} (this game plays without packages)"
                )
        return
    for k in range(game.slots):
        v, fill = s.pkg_variety[k], s.pkg_fill[k]
        if v in (EMPTY, CLOSED):
            if fill:
                what = "empty" if v == EMPTY else "closed"
                raise refuse(f"pkg_fill[{k}]", fill, f"0 (package {k} is {what})")
        elif not fill:
            raise refuse(
                f"pkg_fill[{k}]", fill, f"1..{cp.PACKAGE_SIZE - 1} (package {k} holds a variety)"
            )
        owners = s.pkg_owners[k * n : k * n + n]
        if sum(owners) != fill:
            raise RecordError(
                f"{WHERE}.pkg_owners[{k * n}:{k * n + n}] = {owners} (package {k}) sums to "
                f"{sum(owners)}; allowed: owners summing to its pkg_fill[{k}] = {fill}"
            )
    open_slots = sum(v != CLOSED for v in s.pkg_variety)
    counted = s.supply_left + s.packages_filled + open_slots
    if counted != game.package_total:
        raise RecordError(
            f"{WHERE}: supply_left {s.supply_left} + packages_filled {s.packages_filled} + "
            f"{open_slots} slots not closed = {counted} packages; allowed: exactly "
            f"{game.package_total}, the packages of this game"
        )
    if CLOSED in s.pkg_variety and s.supply_left:
        raise refuse(
            "supply_left",
            s.supply_left,
            f"0 (package {s.pkg_variety.index(CLOSED)} is closed: a slot closes only once "
            "the supply is empty)",
        )


def _check_players(game: ChocolateFactoryRules, s: FactoryState) -> None:
    """Scores, bars and applications against the finished varieties and the rolls played."""
    n, rolls = game.num_players, _rolls_started(game, s)
    low, high = min(game.points), max(game.points)
    packing = _acting(game, s) if s.phase == PACK_BAR else -1
    bars_in_full = 0
    for p in range(n):
        done = s.finished[p]
        if done > rolls:
            raise refuse(
                f"finished[{p}]",
                done,
                f"0..{rolls} (a variety takes at least one pick; {rolls} rolls so far)",
            )
        if s.storage[p] > done:
            raise refuse(f"storage[{p}]", s.storage[p], f"0..{done} (finished[{p}])")
        if not low * done <= s.variety_points[p] <= high * done:
            raise refuse(
                f"variety_points[{p}]",
                s.variety_points[p],
                f"{low * done}..{high * done} ({done} varieties of {low}..{high} points)",
            )
        refine = s.refine_points[p]
        if refine % cp.REFINE_BONUS or refine > cp.REFINE_BONUS * done:
            raise refuse(
                f"refine_points[{p}]",
                refine,
                f"a multiple of {cp.REFINE_BONUS} in 0..{cp.REFINE_BONUS * done} "
                f"(+{cp.REFINE_BONUS} per refined variety, {done} finished)",
            )
        earned = s.apps[p] + game.max_apps * s.masters[p]
        if earned > rolls:
            raise refuse(
                f"masters[{p}]",
                s.masters[p],
                f"0..{(rolls - s.apps[p]) // game.max_apps} (each master costs "
                f"{game.max_apps} applications, one per pass, one pass per roll; {rolls} "
                f"rolls so far, {s.apps[p]} applications held)",
            )
        if not game.packages_on:
            continue
        in_open = sum(s.pkg_owners[k * n + p] for k in range(game.slots))
        in_full = done - s.storage[p] - in_open - int(p == packing)
        if in_full < 0:
            raise RecordError(
                f"{WHERE}.pkg_owners: player_{p} has {in_open} bars in open packages, "
                f"{s.storage[p]} in storage{' and one being packed' if p == packing else ''}"
                f"; allowed: at most her {done} finished bars"
            )
        bonus_low, bonus_high = min(cp.PACKAGE_BONUS) * in_full, max(cp.PACKAGE_BONUS) * in_full
        if not bonus_low <= s.bonus_points[p] <= bonus_high:
            raise refuse(
                f"bonus_points[{p}]",
                s.bonus_points[p],
                f"{bonus_low}..{bonus_high} (her {in_full} bars in full packages, "
                f"{min(cp.PACKAGE_BONUS)}..{max(cp.PACKAGE_BONUS)} each)",
            )
        bars_in_full += in_full
    if game.packages_on and bars_in_full != cp.PACKAGE_SIZE * s.packages_filled:
        raise refuse(
            "packages_filled",
            s.packages_filled,
            f"{cp.PACKAGE_SIZE} bars per full package, and {bars_in_full} finished bars are "
            "neither stored, in an open package nor being packed",
        )


def _check_phase(game: ChocolateFactoryRules, s: FactoryState, complete: list[int]) -> None:
    """The phase against what is pending, the free and complete stations and the end."""
    n = game.num_players
    p = _acting(game, s)
    free = [k for k, v in enumerate(s.variety) if v < 0]
    packages_done = (
        game.packages_on and s.supply_left == 0 and all(v == CLOSED for v in s.pkg_variety)
    )
    phase = PHASE_NAMES[s.phase]
    by_time = s.phase == OVER and s.time_left == 0 and s.pick_index == n
    if by_time and packages_done:
        raise refuse(
            "pick_index",
            n,
            f"0..{n - 1}: the last package ended the game at once, before the round was over",
        )
    if s.phase == PICK or by_time:
        if (s.pending_variety, s.pending_station) != (-1, -1):
            raise refuse(
                "pending_variety" if s.pending_variety != -1 else "pending_station",
                s.pending_variety if s.pending_variety != -1 else s.pending_station,
                f"-1 in phase {phase!r} (no bar is pending)",
            )
        if free:
            raise refuse(
                f"variety[{free[0]}]",
                -1,
                f"a variety 0..{len(game.varieties) - 1} in phase {phase!r} "
                f"({_station(free[0])}: a freed station gets its variety at once)",
            )
        if complete:
            raise RecordError(
                f"{WHERE}.missing/placed: {_station(complete[0])} is complete in phase "
                f"{phase!r}; allowed: a complete variety is finished at once (something "
                "missing or a machine to place)"
            )
    else:
        if s.phase == OVER and not packages_done:
            raise refuse(
                "phase",
                "over",
                "'over' only after the last pick of the last roll (time_left 0, pick_index "
                f"{n}) or once every package is full (supply_left 0, every slot closed)",
            )
        _check_pending(game, s, p, free, complete, phase)
    if s.phase == PACK_BAR:
        if not game.packages_on:
            raise refuse("phase", "pack", "pick, choose, over (this game has no packages)")
        options = game._package_options(s, s.pending_variety)
        if len(options) < 2:
            raise refuse(
                "phase",
                "pack",
                f"'pack' only with 2 or more packages accepting the bar (here {options}: "
                "one is packed at once, none goes to storage)",
            )
    if s.phase != OVER and packages_done:
        raise refuse(
            "phase",
            phase,
            "'over': every package is full and the supply empty, so the game has ended",
        )


def _check_pending(
    game: ChocolateFactoryRules,
    s: FactoryState,
    p: int,
    free: list[int],
    complete: list[int],
    phase: str,
) -> None:
    """A bar pending (phases pack and choose, and a game ended by its last package): its
    variety and the acting seat's freed station, the only free one; a station the master
    completed meanwhile (at most one, hers, with her applications spent)."""
    if s.pending_variety < 0:
        raise refuse(
            "pending_variety",
            -1,
            f"the finished bar's variety 0..{len(game.varieties) - 1} in phase {phase!r}",
        )
    if s.pending_station < 0:
        raise refuse("pending_station", -1, f"the freed station 0..3 in phase {phase!r}")
    k = p * STATIONS + s.pending_station
    if free != [k]:
        others = [x for x in free if x != k]
        if others:
            raise refuse(
                f"variety[{others[0]}]",
                -1,
                f"a variety: only the freed station (variety[{k}], player_{p} station "
                f"{s.pending_station}) is free in phase {phase!r}",
            )
        raise refuse(
            f"variety[{k}]",
            s.variety[k],
            f"-1 ({_station(k)}, pending_station of the player to act, is free in phase {phase!r})",
        )
    mastered = s.apps[p] == 0 and s.masters[p] > 0
    if s.resume_pick and not mastered:
        raise refuse(
            "resume_pick",
            1,
            f"0: player_{p} has not just hired the master (applications {s.apps[p]}, "
            f"masters {s.masters[p]})",
        )
    for x in sorted(complete, key=lambda x: x // STATIONS == p):
        if x // STATIONS != p or len(complete) > 1 or not mastered:
            raise RecordError(
                f"{WHERE}.missing/placed: {_station(x)} is complete in phase {phase!r}; "
                f"allowed: only one station of player_{p}, completed by the master she has "
                "just hired (then her applications are 0)"
            )
