"""Chocolate Factory saved states (issue 18, item 1): ``from_json`` loads only a
reachable-looking state, refusing every other record with a RecordError that names the
field; every state of played games loads back as itself."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import choco_envs
from choco_envs.bots.chocolate_factory.greedy import greedy_action
from choco_envs.core.errors import RecordError
from choco_envs.games.chocolate_factory import ChocolateFactoryGame, FactoryState
from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE,
    CHOOSE_VARIETY,
    CLOSED,
    DI,
    DM,
    DQ,
    DS,
    EMPTY,
    OVER,
    PACK_BAR,
    PICK,
)

from .factory_helpers import V, fresh, master, pair, set_dice, set_station

Policy = Callable[[ChocolateFactoryGame, FactoryState, random.Random], int]


# ---------------------------------------------------------------- players of games
def random_policy(game: ChocolateFactoryGame, s: FactoryState, rng: random.Random) -> int:
    acts = game.legal_actions(s)
    return acts[int(rng.random() * len(acts))]


def packer_policy(game: ChocolateFactoryGame, s: FactoryState, rng: random.Random) -> int:
    """Greedy picks; refills with the variety of the fullest open package (so packages
    fill, and with few packages the game can end by its last one)."""
    if s.phase != CHOOSE_VARIETY:
        return greedy_action(game, s, rng)
    open_slots = [k for k in range(game.slots) if s.pkg_variety[k] >= 0]
    if open_slots:
        return CHOOSE + s.pkg_variety[max(open_slots, key=lambda k: s.pkg_fill[k])]
    return CHOOSE + int(rng.random() * len(game.varieties))


def mixed_policy(game: ChocolateFactoryGame, s: FactoryState, rng: random.Random) -> int:
    """Half random, half the packer (which also hires the master, packs and refills)."""
    if rng.random() < 0.5:
        return random_policy(game, s, rng)
    return packer_policy(game, s, rng)


def few_packages() -> dict[str, Any]:
    """The authored components with the fewest packages allowed (players + 2)."""
    data = copy.deepcopy(cp.DEFAULT_COMPONENTS)
    for row in data["packages"].values():
        for key in row:
            row[key] = int(key) + 2
    return data


def states(game: ChocolateFactoryGame, policy: Policy, seed: int) -> Iterator[FactoryState]:
    """Every state of one game, its end included."""
    rng = random.Random(seed)
    s = game.new_state(rng)
    while True:
        yield s
        if game.is_over(s):
            return
        game.apply(s, policy(game, s, rng), rng)


def round_trip_games(games: int) -> Counter[str]:
    """Play ``games`` games over 2..6 players, short and long, with and without packages,
    random, mixed and packing players; every state must load back as itself. Returns
    what was seen (phases, endings, stations the master completed at a pack or choose)."""
    seen: Counter[str] = Counter()
    policies: tuple[Policy, ...] = (random_policy, mixed_policy, packer_policy)
    for g in range(games):
        n = 2 + g % 5
        kind = g // 5 % 4  # 0 random, 1 mixed, 2 packer, 3 packer with few packages
        options: dict[str, Any] = {
            "length": ("short", "long")[g // 20 % 2],
            "packages": kind == 3 or g // 40 % 3 != 2,
        }
        if kind == 3:
            options["components"] = few_packages()
        game = ChocolateFactoryGame(num_players=n, **options)
        for s in states(game, policies[min(kind, 2)], seed=g):
            record = json.loads(json.dumps(game.to_json(s)))
            t = game.from_json(record)
            assert t == s, f"game {g}: the record of a played state loaded as another state"
            assert game.to_json(t) == record
            seen[("pick", "pack", "choose", "over")[s.phase]] += 1
            if s.phase == OVER:
                seen["over by time" if s.pick_index == n else "over by packages"] += 1
            elif s.phase != PICK and any(
                v >= 0
                and s.placed[k] == game.machine_mask[v]
                and not any(s.missing[k * 6 : k * 6 + 6])
                for k, v in enumerate(s.variety)
            ):
                seen["completed by the master, pending"] += 1
            if s.phase != PICK and s.resume_pick:
                seen["resume after the master"] += 1
    return seen


def test_every_state_of_played_games_loads_back_as_itself() -> None:
    """40 games (every player count, both lengths, packages on and off, random to
    coordinated players), every state: the strict loader accepts it and gives it back."""
    seen = round_trip_games(40)
    assert seen["over"] == 40 and seen["pack"] and seen["choose"]
    assert seen["over by packages"], "no game ended by its last package: the sample is too narrow"


@pytest.mark.slow
def test_every_state_of_many_played_games_loads_back_as_itself() -> None:
    """The same over 400 games, which also reach stations completed by the master at a
    pack or choose step and the resumed pick after the master."""
    seen = round_trip_games(400)
    assert seen["over"] == 400
    assert seen["over by packages"] and seen["completed by the master, pending"]
    assert seen["resume after the master"]


# ---------------------------------------------------------------- records to corrupt
def record_of(game: ChocolateFactoryGame, s: FactoryState) -> dict[str, Any]:
    return json.loads(json.dumps(game.to_json(s)))


def start(num_players: int = 2, **options: Any) -> tuple[ChocolateFactoryGame, dict[str, Any]]:
    """A fresh game's record (pick phase, a full roll, nothing finished)."""
    game, s = fresh(num_players, seed=1, **options)
    return game, record_of(game, s)


def midgame(
    num_players: int = 3, phase: int = PICK, seed: int = 2
) -> tuple[ChocolateFactoryGame, dict[str, Any]]:
    """The record of the first state in ``phase`` after some packages hold bars."""
    game = ChocolateFactoryGame(num_players=num_players)
    for s in states(game, mixed_policy, seed):
        if s.phase == phase and any(s.pkg_fill) and s.time_left < game.total_rolls - 10:
            return game, record_of(game, s)
    raise AssertionError(f"no state in phase {phase} found")


def finished_bar(packages: bool = True) -> tuple[ChocolateFactoryGame, FactoryState]:
    """Player 0 finishes milk at station 0 with a pair (packed at once into package 0
    when packages are on); the state is at her choose step for station 0."""
    game, s = fresh(2, seed=0, packages=packages)
    set_station(game, s, 0, 0, "milk", missing={"cocoa": 1, "milk": 0})
    set_dice(
        s, quantity={"1": 2}, ingredient={"cocoa": 2}, machine={"milk": 1}, special={"mint": 1}
    )
    game.apply(s, pair(0, "cocoa", "1"), random.Random(0))
    assert s.phase == CHOOSE_VARIETY and s.pending_station == 0
    return game, s


def changed(rec: dict[str, Any], **fields: Any) -> dict[str, Any]:
    out = copy.deepcopy(rec)
    out.update(fields)
    return out


def at(rec: dict[str, Any], name: str, index: int, value: Any) -> dict[str, Any]:
    """``rec`` with ``rec[name][index] = value``."""
    out = copy.deepcopy(rec)
    out[name][index] = value
    return out


def refused(game: ChocolateFactoryGame, rec: dict[str, Any], match: str) -> None:
    with pytest.raises(RecordError, match=match):
        game.from_json(rec)


def test_the_records_used_below_are_accepted() -> None:
    """Each corrupted record below starts from one the loader accepts (so a refusal is
    the corruption's)."""
    for game, rec in (start(), start(3, packages=False), midgame(3), midgame(4, PACK_BAR)):
        assert game.to_json(game.from_json(rec)) == rec
    game, s = finished_bar()
    assert game.from_json(record_of(game, s)) == s


# ---------------------------------------------------------------- types and ranges
def test_time_left_minus_five_is_refused() -> None:
    """The issue's case: time_left -5 (the game would never end)."""
    game, rec = start()
    refused(game, changed(rec, time_left=-5), r"state\.time_left = -5; allowed: an int in 0\.\.47")


def test_time_left_at_or_past_the_shift_is_refused() -> None:
    game, rec = start()
    refused(game, changed(rec, time_left=48), r"state\.time_left = 48; allowed: an int in 0\.\.47")


def test_pkg_variety_77_is_refused() -> None:
    """The issue's case: pkg_variety[0] = 77 (no such variety)."""
    game, rec = start()
    refused(
        game,
        at(rec, "pkg_variety", 0, 77),
        r"state\.pkg_variety\[0\] = 77; allowed: an int in -2\.\.8",
    )


def test_placed_two_to_the_forty_is_refused() -> None:
    """The issue's case: placed = 2**40."""
    game, rec = start()
    refused(game, at(rec, "placed", 3, 2**40), r"state\.placed\[3\] = 1099511627776")


@pytest.mark.parametrize(
    "name,index",
    [
        ("dice", 0),
        ("dice", DM + 2),
        ("variety", 1),
        ("missing", 4),
        ("placed", 0),
        ("special", 2),
        ("apps", 1),
        ("variety_points", 0),
        ("refine_points", 1),
        ("bonus_points", 0),
        ("finished", 1),
        ("storage", 0),
        ("masters", 1),
        ("pkg_variety", 2),
        ("pkg_fill", 0),
        ("pkg_owners", 3),
    ],
)
def test_negative_counts_are_refused(name: str, index: int) -> None:
    """The issue's case: negative counts (variety -2 and pkg_variety -3: below the
    'free' / 'closed' markers)."""
    game, rec = start()
    low = {"variety": -1, "pkg_variety": -2}.get(name, 0)
    refused(game, at(rec, name, index, low - 1), rf"state\.{name}\[{index}\] = {low - 1}; allowed")


@pytest.mark.parametrize(
    "name", ["roller", "pick_index", "supply_left", "packages_filled", "resume_pick"]
)
def test_negative_ints_are_refused(name: str) -> None:
    game, rec = start()
    refused(game, changed(rec, **{name: -1}), rf"state\.{name} = -1; allowed")


@pytest.mark.parametrize(
    "name,value",
    [("pending_variety", -2), ("pending_station", 4), ("resume_pick", 2), ("roller", 2)],
)
def test_ints_out_of_range_are_refused(name: str, value: int) -> None:
    game, rec = start()
    refused(game, changed(rec, **{name: value}), rf"state\.{name} = {value}; allowed")


@pytest.mark.parametrize("value", [True, 1.0, "3", None])
def test_an_int_field_holding_no_int_is_refused(value: Any) -> None:
    game, rec = start()
    refused(game, changed(rec, pick_index=value), r"state\.pick_index = .*; allowed: an int")
    refused(game, at(rec, "apps", 0, value), r"state\.apps\[0\] = .*; allowed: an int")


@pytest.mark.parametrize("value", ["lunch", 1, None, "PICK"])
def test_a_phase_not_named_is_refused(value: Any) -> None:
    game, rec = start()
    refused(
        game, changed(rec, phase=value), r"state\.phase = .*; allowed: pick, pack, choose, over"
    )


@pytest.mark.parametrize("name", ["dice", "variety", "missing", "pkg_owners", "apps"])
def test_lists_of_the_wrong_length_are_refused(name: str) -> None:
    game, rec = start()
    refused(
        game, changed(rec, **{name: rec[name][:-1]}), rf"state\.{name} = .*; allowed: a list of"
    )
    refused(game, changed(rec, **{name: None}), rf"state\.{name} = None; allowed: a list of")


def test_missing_and_unknown_fields_are_refused() -> None:
    game, rec = start()
    without = {k: v for k, v in rec.items() if k != "supply_left"}
    refused(game, without, r"fields missing \['supply_left'\]")
    refused(game, changed(rec, version=2), r"fields unknown \['version'\]")
    refused(game, [], "expected an object")


# ---------------------------------------------------------------- the clock and the dice
def test_roller_inconsistent_with_the_shift_time_is_refused() -> None:
    """The roll passes one seat per roll: with 47 rolls left player_0 rolls."""
    game, rec = start()
    refused(game, changed(rec, time_left=46), r"state\.roller = 0; allowed: 1 \(time_left 46")
    assert game.from_json(changed(rec, time_left=46, roller=1)).roller == 1


def test_pick_index_past_the_last_seat_before_the_end_is_refused() -> None:
    game, rec = start()
    refused(game, changed(rec, pick_index=2), r"state\.pick_index = 2; allowed: 0\.\.1")


def test_dice_beyond_a_roll_are_refused() -> None:
    """Two players roll 2 quantity, 2 ingredient, 1 machine and 1 special die."""
    game, rec = start()
    more_quantity = copy.deepcopy(rec)
    more_quantity["dice"][DQ:DI] = [2, 1, 0, 0, 0, 0]
    refused(
        game,
        more_quantity,
        r"state\.dice\[0:6\] \(quantity dice\) holds 3 dice; allowed: at most 2",
    )
    machines = copy.deepcopy(rec)
    machines["dice"][DM : DM + 6] = [1, 1, 0, 0, 0, 0]
    refused(
        game, machines, r"state\.dice\[12:18\] \(machine dice\) holds 2 dice; allowed: at most 1"
    )
    specials = copy.deepcopy(rec)
    specials["dice"][DS : DS + 6] = [1, 0, 0, 0, 0, 1]
    refused(game, specials, r"state\.dice\[18:24\] \(special dice\) holds 2 dice")


def test_quantity_and_ingredient_dice_left_must_match() -> None:
    game, rec = start()
    d = copy.deepcopy(rec)
    i = next(x for x in range(DI, DM) if d["dice"][x])
    d["dice"][i] -= 1  # an ingredient die gone without its quantity die
    refused(game, d, r"state\.dice: 2 quantity dice but 1 ingredient dice left")


def test_dice_taken_before_anyone_picked_are_refused() -> None:
    """At pick_index 0 nobody has picked from the roll: the roll is whole."""
    game, rec = start()
    d = copy.deepcopy(rec)
    d["dice"][next(x for x in range(DM, DS) if d["dice"][x])] -= 1
    refused(game, d, r"state\.dice: 1 item\(s\) .* after 0 pick\(s\)")
    d["pick_index"] = 1  # the roller took the machine die: fine
    assert game.from_json(d).pick_index == 1


# ---------------------------------------------------------------- stations
def test_missing_beyond_the_recipe_is_refused() -> None:
    game, rec = start()
    v = rec["variety"][0]
    i = game.quantities[v].index(0)  # an ingredient the recipe does not use
    refused(
        game,
        at(rec, "missing", i, 1),
        rf"state\.missing\[{i}\] = 1; allowed: 0\.\.0 \(player_0 station 0",
    )


def test_machines_outside_the_recipe_are_refused() -> None:
    game, rec = start()
    refused(game, at(rec, "placed", 0, 1), r"state\.placed\[0\] = 1; allowed: a bitmask within 0")
    v = rec["variety"][3]  # gold
    outside = 63 & ~game.machine_mask[v]
    refused(
        game, at(rec, "placed", 3, outside), r"state\.placed\[3\] = \d+; allowed: a bitmask within"
    )


def test_a_free_station_holding_something_is_refused() -> None:
    game, s = finished_bar()
    rec = record_of(game, s)
    refused(
        game,
        at(rec, "special", 0, 1),
        r"state\.special\[0\] = 1; allowed: 0 \(player_0 station 0 is free",
    )
    refused(game, at(rec, "placed", 0, 1), r"state\.placed\[0\] = 1; allowed: 0")
    refused(game, at(rec, "missing", 1, 2), r"state\.missing\[1\] = 2; allowed: 0")


# ---------------------------------------------------------------- players
def test_storage_above_the_finished_bars_is_refused() -> None:
    game, rec = start()
    refused(game, at(rec, "storage", 0, 1), r"state\.storage\[0\] = 1; allowed: 0\.\.0")


def test_applications_above_the_cap_are_refused() -> None:
    game, rec = start()
    refused(
        game,
        at(rec, "apps", 0, game.max_apps + 1),
        r"state\.apps\[0\] = 5; allowed: an int in 0\.\.4",
    )


def test_scores_finished_bars_and_masters_beyond_the_game_are_refused() -> None:
    game, rec = start()
    refused(
        game, at(rec, "variety_points", 0, 3), r"state\.variety_points\[0\] = 3; allowed: 0\.\.0"
    )
    refused(
        game,
        at(rec, "refine_points", 0, 2),
        r"state\.refine_points\[0\] = 2; allowed: a multiple of 2 in 0\.\.0",
    )
    refused(game, at(rec, "bonus_points", 1, 2), r"state\.bonus_points\[1\] = 2; allowed: 0\.\.0")
    refused(game, at(rec, "finished", 0, 2), r"state\.finished\[0\] = 2; allowed: 0\.\.1")
    refused(game, at(rec, "masters", 0, 1), r"state\.masters\[0\] = 1; allowed: 0\.\.0")


def test_variety_points_use_the_component_data() -> None:
    """One finished variety scores 3..15 with the authored set; 16 is refused, and an odd
    refinement too."""
    game, s = finished_bar()
    rec = record_of(game, s)
    assert rec["variety_points"][0] == 3
    assert game.from_json(at(rec, "variety_points", 0, 15)).variety_points[0] == 15
    refused(
        game, at(rec, "variety_points", 0, 16), r"state\.variety_points\[0\] = 16; allowed: 3\.\.15"
    )
    refused(
        game, at(rec, "variety_points", 0, 2), r"state\.variety_points\[0\] = 2; allowed: 3\.\.15"
    )
    refused(
        game,
        at(rec, "refine_points", 0, 1),
        r"state\.refine_points\[0\] = 1; allowed: a multiple of 2",
    )
    data = copy.deepcopy(cp.DEFAULT_COMPONENTS)
    data["varieties"][V["gold_bar"]]["points"] = 14
    other = ChocolateFactoryGame(num_players=2, components=data)
    refused(
        other,
        at(rec, "variety_points", 0, 15),
        r"state\.variety_points\[0\] = 15; allowed: 3\.\.14",
    )


# ---------------------------------------------------------------- packages
def test_package_non_conservation_is_refused() -> None:
    """The packages of the game: supply + filled + slots not closed."""
    game, rec = start()
    refused(
        game,
        changed(rec, supply_left=rec["supply_left"] - 1),
        r"supply_left 0 \+ packages_filled 0 \+ 4 slots not closed = 4 packages; allowed: exactly 5",
    )
    refused(
        game,
        changed(rec, packages_filled=1),
        r"packages_filled 1 .* = 6 packages; allowed: exactly 5",
    )
    closed = at(rec, "pkg_variety", 0, CLOSED)
    refused(game, closed, r"= 4 packages; allowed: exactly 5")


def test_owners_not_summing_to_the_fill_are_refused() -> None:
    game, s = finished_bar()
    rec = record_of(game, s)
    assert rec["pkg_fill"][0] == 1 and rec["pkg_owners"][0] == 1
    refused(
        game,
        at(rec, "pkg_owners", 1, 1),
        r"state\.pkg_owners\[0:2\] = \[1, 1\] \(package 0\) sums to 2; allowed: owners summing to its pkg_fill\[0\] = 1",
    )
    refused(
        game,
        at(rec, "pkg_owners", 0, 0),
        r"sums to 0; allowed: owners summing to its pkg_fill\[0\] = 1",
    )


def test_fill_against_the_slot_is_refused() -> None:
    game, rec = start()
    refused(
        game,
        at(rec, "pkg_fill", 1, 2),
        r"state\.pkg_fill\[1\] = 2; allowed: 0 \(package 1 is empty\)",
    )
    refused(
        game, at(rec, "pkg_variety", 1, V["dark"]), r"state\.pkg_fill\[1\] = 0; allowed: 1\.\.3"
    )
    refused(game, at(rec, "pkg_fill", 0, 4), r"state\.pkg_fill\[0\] = 4; allowed: an int in 0\.\.3")


def test_bars_counted_twice_or_never_are_refused() -> None:
    """A bar is stored, in an open package, in a full one or being packed: once."""
    game, s = finished_bar()
    rec = record_of(game, s)
    refused(
        game,
        at(rec, "storage", 0, 1),
        r"state\.pkg_owners: player_0 has 1 bars in open packages, 1 in storage",
    )
    lost = copy.deepcopy(rec)
    lost["pkg_variety"][0], lost["pkg_fill"][0], lost["pkg_owners"][0] = EMPTY, 0, 0
    refused(
        game, lost, r"state\.bonus_points\[0\] = 0; allowed: 2\.\.4 \(her 1 bars in full packages"
    )
    lost["bonus_points"][0] = 2
    refused(
        game,
        lost,
        r"state\.packages_filled = 0; allowed: 4 bars per full package, and 1 finished bars",
    )


def test_package_bonus_without_full_packages_is_refused() -> None:
    game, rec = midgame(3)
    p = next(p for p in range(3) if rec["bonus_points"][p] == 0)
    refused(game, at(rec, "bonus_points", p, 3), rf"state\.bonus_points\[{p}\] = 3; allowed: ")


def test_a_closed_slot_with_supply_left_is_refused() -> None:
    """A slot closes only once the supply is empty (conservation kept here)."""
    game, rec = start()
    bad = changed(at(rec, "pkg_variety", 0, CLOSED), packages_filled=1)
    bad["finished"][0], bad["variety_points"][0], bad["bonus_points"][0] = 4, 12, 8
    bad["time_left"], bad["roller"] = 41, 0  # 7 rolls so far: 4 varieties is plausible
    refused(game, bad, r"state\.supply_left = 1; allowed: 0 \(package 0 is closed")


@pytest.mark.parametrize(
    "name,value",
    [
        ("pkg_variety", [V["milk"], EMPTY, EMPTY, EMPTY, EMPTY]),
        ("supply_left", 0),
        ("packages_filled", 1),
        ("storage", [1, 0, 0]),
        ("bonus_points", [0, 2, 0]),
    ],
)
def test_without_packages_every_package_field_keeps_its_start(name: str, value: Any) -> None:
    game, rec = start(3, packages=False)
    if name == "storage":
        rec["finished"][0], rec["variety_points"][0] = 1, 3
        rec["time_left"], rec["roller"] = 44, 0
    refused(
        game,
        changed(rec, **{name: value}),
        rf"state\.{name} = .*; allowed: .* \(this game plays without packages\)",
    )


# ---------------------------------------------------------------- the phase
def test_pack_phase_with_nothing_pending_is_refused() -> None:
    """The issue's case: a pack phase with no bar pending (the engine broadcast a
    ValueError)."""
    game, rec = start()
    refused(
        game,
        changed(rec, phase="pack"),
        r"state\.pending_variety = -1; allowed: the finished bar's variety",
    )


def test_pack_phase_with_a_single_package_option_is_refused() -> None:
    """With one package accepting the bar it is packed at once: such a pack step is not
    reachable."""
    game, s = finished_bar()
    rec = record_of(game, s)
    rec["pkg_variety"][0], rec["pkg_fill"][0], rec["pkg_owners"][0] = EMPTY, 0, 0  # not packed yet
    refused(
        game,
        changed(rec, phase="pack"),
        r"state\.phase = 'pack'; allowed: 'pack' only with 2 or more packages accepting the bar \(here \[0\]",
    )


def test_pack_phase_with_two_options_is_accepted_and_without_packages_refused() -> None:
    game, s = finished_bar()
    s.phase = PACK_BAR
    # bar 2 of milk: package 0 (milk, 1 bar) or the first empty one
    s.finished[0], s.variety_points[0] = 2, 6
    s.time_left, s.roller = game.total_rolls - 3, 0
    rec = record_of(game, s)
    assert game.from_json(rec) == s
    game_off, plain = finished_bar(packages=False)
    refused(
        game_off,
        changed(record_of(game_off, plain), phase="pack"),
        r"state\.phase = 'pack'; allowed: pick, choose, over \(this game has no packages\)",
    )


def test_pick_phase_with_a_free_station_is_refused() -> None:
    """The issue's case: a free station in the pick phase (the engine read variety -1 as
    the gold bar)."""
    game, rec = start()
    bad = at(rec, "variety", 2, -1)
    bad["missing"][12:18] = [0] * 6
    refused(game, bad, r"state\.variety\[2\] = -1; allowed: a variety 0\.\.8 in phase 'pick'")


def test_pick_phase_with_a_bar_pending_is_refused() -> None:
    game, s = finished_bar()
    rec = record_of(game, s)
    refused(
        game, changed(rec, phase="pick"), r"state\.pending_variety = 0; allowed: -1 in phase 'pick'"
    )
    refused(
        game,
        changed(rec, pending_variety=-1, phase="pick"),
        r"state\.pending_station = 0; allowed: -1 in phase 'pick'",
    )


def test_complete_station_in_the_pick_phase_is_refused() -> None:
    game, rec = start()
    bad = copy.deepcopy(rec)
    bad["missing"][0:6] = [0] * 6  # station 0 (Bronze: no machines) has everything
    refused(game, bad, r"state\.missing/placed: player_0 station 0 is complete in phase 'pick'")


def test_choose_phase_station_checks() -> None:
    """At the choose step only the pending station of the player to act is free."""
    game, s = finished_bar()
    rec = record_of(game, s)
    other = at(rec, "variety", 5, -1)
    other["missing"][30:36] = [0] * 6
    refused(
        game,
        other,
        r"state\.variety\[5\] = -1; allowed: a variety: only the freed station \(variety\[0\]",
    )
    moved = changed(rec, pending_station=1)
    refused(
        game,
        moved,
        r"state\.variety\[0\] = -1; allowed: a variety: only the freed station \(variety\[1\]",
    )
    refilled = at(rec, "variety", 0, V["dark"])
    refilled["missing"][0:6] = list(game.quantities[V["dark"]])
    refused(
        game,
        refilled,
        r"state\.variety\[0\] = 2; allowed: -1 \(player_0 station 0, pending_station of the player to act",
    )
    refused(
        game,
        changed(rec, pending_variety=-1),
        r"state\.pending_variety = -1; allowed: the finished bar's variety",
    )


def test_master_completed_station_at_the_choose_step() -> None:
    """A station the master completed at the choose step waits for the new variety of
    the pending station: accepted; the same station for another seat, or without the
    master's cost paid, is refused."""
    game, s = finished_bar()
    set_station(
        game,
        s,
        0,
        2,
        "truffle",
        missing={"cocoa": 0, "butter": 0, "milk": 0},
        machines=("cocoa", "butter"),
    )
    s.apps[0] = game.max_apps
    s.time_left, s.roller = game.total_rolls - 1 - 2 * game.max_apps, 0
    game.apply(s, master(2, "milk"), random.Random(0))
    assert s.phase == CHOOSE_VARIETY and s.apps[0] == 0 and s.masters[0] == 1
    rec = record_of(game, s)
    assert game.from_json(rec) == s
    refused(
        game,
        changed(rec, apps=[1, 0]),
        r"state\.missing/placed: player_0 station 2 is complete in phase 'choose'",
    )
    theirs = copy.deepcopy(rec)
    k = 4 + 2
    theirs["variety"][k] = V["milk"]
    theirs["missing"][k * 6 : k * 6 + 6] = [0] * 6
    theirs["placed"][k] = 0
    refused(
        game, theirs, r"state\.missing/placed: player_1 station 2 is complete in phase 'choose'"
    )


def test_resume_pick_without_the_master_is_refused() -> None:
    game, s = finished_bar()
    refused(
        game,
        changed(record_of(game, s), resume_pick=1),
        r"state\.resume_pick = 1; allowed: 0: player_0 has not just hired the master",
    )


def test_over_phase_not_by_an_ending_is_refused() -> None:
    game, rec = start()
    refused(
        game,
        changed(rec, phase="over"),
        r"state\.phase = 'over'; allowed: 'over' only after the last pick",
    )


def last_package_record() -> tuple[ChocolateFactoryGame, dict[str, Any]]:
    """A consistent pick-phase record of 2 players in which every package is full and
    the supply empty (20 bars, 10 each, 10 rolls into the shift)."""
    game, rec = start()
    n, total = 2, game.package_total
    rec.update(
        pkg_variety=[CLOSED] * game.slots,
        supply_left=0,
        packages_filled=total,
        finished=[10, 10],
        variety_points=[30, 30],
        bonus_points=[20, 20],
        time_left=game.total_rolls - 11,
        roller=10 % n,
    )
    return game, rec


def test_a_game_ended_by_its_last_package_must_be_over() -> None:
    game, rec = last_package_record()
    refused(game, rec, r"state\.phase = 'pick'; allowed: 'over': every package is full")


def test_an_ending_by_time_needs_the_last_pick_made() -> None:
    game, rec = start()
    last = changed(rec, time_left=0, roller=1, phase="over", pick_index=2)
    assert game.from_json(last).phase == OVER
    refused(
        game,
        changed(last, pick_index=1),
        r"state\.phase = 'over'; allowed: 'over' only after the last pick of the last roll",
    )
    refused(game, changed(last, phase="pick"), r"state\.pick_index = 2; allowed: 0\.\.1")


def test_the_issue_examples_in_the_env_leave_it_unchanged() -> None:
    """A refused reset(options={"state": ...}) changes nothing and the env plays on."""
    env = choco_envs.make("chocolate_factory_v2", illegal_action="raise")
    env.reset(seed=4)
    env.step(env.unwrapped.legal_actions()[0])
    saved = env.unwrapped.save()
    before = json.dumps(saved, sort_keys=True)
    agent = env.agent_selection
    state = saved["state"]
    hostile = [
        changed(state, time_left=-5),
        at(state, "pkg_variety", 0, 77),
        changed(state, phase="pack"),
        at(state, "placed", 0, 2**40),
        at(state, "finished", 1, -1),
        changed(state, supply_left=state["supply_left"] - 1),
    ]
    for bad in hostile:
        with pytest.raises(RecordError, match=r"chocolate_factory state"):
            env.reset(options={"state": {**saved, "state": bad}})
        assert json.dumps(env.unwrapped.save(), sort_keys=True) == before
        assert env.agent_selection == agent
    env.step(env.unwrapped.legal_actions()[0])
