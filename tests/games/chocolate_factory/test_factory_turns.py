"""Chocolate Factory: the roll and the picks, checked sentence by sentence against the
German rulebook (seed 001) and its English reading in the rulings in docs/games/chocolate_factory.md."""

from __future__ import annotations

import random

import pytest

from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE_VARIETY,
    DI,
    DM,
    DQ,
    DS,
    MASTER,
    PACK_BAR,
    PASS,
    PICK,
    REROLL,
)

from .factory_helpers import (
    V,
    choose,
    fresh,
    ingredients_of,
    machine,
    master,
    missing,
    pack,
    pair,
    refused,
    set_dice,
    set_station,
    special,
)


def test_setup_two_bronze_one_silver_one_gold() -> None:
    """'Jeder hat nur vier Stationen (zum Start 2 × Bronze, 1 × Silber, 1 × Gold)'.
    Rulings: 'Each player has 4 stations, at the start 2 Bronze, 1 Silver, 1 Gold (each
    station's variety drawn at random within its tier, independently).'"""
    for seed in range(20):
        game, s = fresh(3, seed=seed)
        for p in range(3):
            tiers = sorted(game.tier[s.variety[p * 4 + st]] for st in range(4))
            assert tiers == [0, 0, 1, 2]
            assert list(s.missing[p * 24 : p * 24 + 24]) == [
                q for st in range(4) for q in game.quantities[s.variety[p * 4 + st]]
            ]


@pytest.mark.parametrize("players,extra", [(2, 1), (3, 2), (4, 2), (5, 3), (6, 3)])
def test_dice_per_roll_by_player_count(players: int, extra: int) -> None:
    """'Mengen-Würfel ... und Zutaten-Würfel ... — je so viele, wie mitspielen. Dazu ...
    Geräte-Würfel und gleich viele Sonderzutaten-Würfel (zu zweit je einer, ab drei
    Chocolatiers je zwei, ab fünf je drei).' Rulings: 'machine dice and special dice, 1
    each with 2 players, 2 each with 3-4, 3 each with 5-6.'"""
    game, s = fresh(players)
    assert sum(s.dice[DQ:DI]) == players and sum(s.dice[DI:DM]) == players
    assert sum(s.dice[DM:DS]) == extra and sum(s.dice[DS:]) == extra


def test_roller_picks_first_then_others_in_seat_order_each_roll_costs_time() -> None:
    """'Die anderen: nehmen danach reihum je ein Paar, ein Gerät oder eine Sonderzutat aus
    dem Rest'; 'Jeder Wurf kostet einen Schritt.' Rulings: 'The roller picks first, then
    the others in seat order'; 'each roll costs one'."""
    game, s = fresh(3)
    rng = random.Random(1)
    time_left = s.time_left
    order = []
    for _ in range(6):
        order.append(game.current_player(s))
        game.apply(s, PASS, rng)
    assert order == [0, 1, 2, 1, 2, 0]
    assert s.roller == 2 and s.time_left == time_left - 2


def test_pair_must_fit_one_station() -> None:
    """'Die ganze Menge muss in EINE deiner Stationen passen.' Rulings: 'the whole
    quantity must fit in the missing amount of that ingredient at ONE of the picker's
    stations'."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "milk", missing={"cocoa": 3})
    set_station(game, s, 0, 1, "dark", missing={"cocoa": 2})
    set_station(game, s, 0, 2, "truffle", missing={"cocoa": 0})
    set_station(game, s, 0, 3, "gold_bar", missing={"cocoa": 0})
    set_dice(s, quantity={"4": 1, "3": 1}, ingredient={"cocoa": 2}, machine={"sugar": 1})
    for station in range(4):  # 3 + 2 missing would take a 4 together, but not in one station
        refused(game, s, pair(station, "cocoa", "4"))
    assert pair(1, "cocoa", "3") not in game.legal_actions(s)
    game.apply(s, pair(0, "cocoa", "3"), random.Random(0))
    assert missing(s, 0, 0, "cocoa") == 0
    assert s.dice[DQ + 2] == 0 and s.dice[DI] == 1  # the pair's two dice are gone


def test_pair_needs_both_dice_in_the_roll() -> None:
    """'Ein Paar nehmen: eine Menge und eine Zutat.' A pair is one quantity die and one
    ingredient die from what is left."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "milk")
    set_dice(s, quantity={"2": 1}, ingredient={"sugar": 2}, machine={"milk": 1})
    refused(game, s, pair(0, "cocoa", "2"))  # no cocoa die
    refused(game, s, pair(0, "milk", "3"))  # no 3 die


def test_joker_fills_up_to_six_what_is_missing() -> None:
    """'★ Joker — er füllt eine Zutat an einer Station um bis zu 6 auf, so viel, wie dort
    noch fehlt'. Rulings: 'the joker fills up to 6 of what is missing'."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "milk", missing={"cocoa": 6, "milk": 2})
    set_dice(s, quantity={"joker": 1}, ingredient={"cocoa": 1, "milk": 1})
    legal = game.legal_actions(s)
    assert pair(0, "cocoa", "joker") in legal and pair(0, "milk", "joker") in legal
    full, short = s.copy(), s.copy()
    game.apply(full, pair(0, "cocoa", "joker"), random.Random(0))
    assert missing(full, 0, 0, "cocoa") == 0  # all 6
    game.apply(short, pair(0, "milk", "joker"), random.Random(0))
    assert missing(short, 0, 0, "milk") == 0 and missing(short, 0, 0, "cocoa") == 6  # only 2


def test_machine_placed_before_delivery_and_variety_waits_for_the_rest() -> None:
    """'Es verarbeitet an einer deiner Stationen seine Zutat — du kannst es auch schon
    setzen, bevor sie komplett geliefert ist; fertig wird die Sorte erst, wenn alles da
    ist.' Rulings: 'a machine die (placed at a station whose recipe uses that ingredient,
    before or after delivery)'."""
    game, s = fresh(2)
    set_station(game, s, 0, 2, "truffle", machines=("cocoa", "milk"))
    set_dice(s, machine={"butter": 1})
    game.apply(s, machine(2, "butter"), random.Random(0))
    assert s.placed[2] == game.machine_mask[s.variety[2]]
    assert s.variety[2] != -1 and s.finished[0] == 0  # ingredients still missing


def test_machine_placement_rule() -> None:
    """'Silber ... und Gold ... brauchen dazu für jede Zutat ihr Gerät.' Rulings: 'A
    machine only goes to a Silver or Gold station whose recipe uses that ingredient and
    that has no machine for it yet'; 'nobody takes a die only to deny it to others'."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "milk")  # Bronze: no machines
    set_station(game, s, 0, 1, "dark")
    set_station(game, s, 0, 2, "truffle", machines=("cocoa",))  # has the roaster already
    set_station(game, s, 0, 3, "fruit_pralines", machines=("cocoa",))
    set_dice(s, machine={"cocoa": 1, "nuts": 1})
    refused(game, s, machine(0, "cocoa"))  # Bronze
    refused(game, s, machine(2, "cocoa"))  # already placed
    refused(game, s, machine(2, "nuts"))  # recipe does not use nuts
    assert not any(a for a in game.legal_actions(s) if 144 <= a < 168)


def test_silver_finishes_only_with_all_machines() -> None:
    """'Fertig ist eine Bronze-Sorte, sobald alles geliefert ist (2–3 Zutaten, ohne
    Gerät). Silber (3–4 Zutaten) und Gold (4–5) brauchen dazu für jede Zutat ihr Gerät.'
    Rulings: 'A variety is finished when everything is delivered (and, for Silver and
    Gold, every ingredient has its machine).'"""
    game, s = fresh(2)
    set_station(game, s, 0, 2, "truffle", missing={"cocoa": 2, "butter": 0, "milk": 0},
                machines=("cocoa", "milk"))  # fmt: skip
    set_dice(s, quantity={"2": 1}, ingredient={"cocoa": 1}, machine={"butter": 1})
    rng = random.Random(0)
    game.apply(s, pair(2, "cocoa", "2"), rng)  # everything delivered, tempering missing
    assert s.finished[0] == 0 and s.variety[2] == 4
    game.apply(s, PASS, rng)  # player 1; next roll, player 1 rolls
    game.apply(s, PASS, rng)  # player 1 passes, player 0 picks
    set_dice(s, machine={"butter": 1})
    game.apply(s, machine(2, "butter"), rng)
    assert s.finished[0] == 1 and s.variety_points[0] == 7
    assert s.phase == CHOOSE_VARIETY and s.variety[2] == -1


def test_bronze_finishes_when_delivered_without_machines() -> None:
    """'Fertig ist eine Bronze-Sorte, sobald alles geliefert ist (2–3 Zutaten, ohne
    Gerät).'"""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "dark", missing={"cocoa": 0, "sugar": 3})
    set_dice(s, quantity={"3": 1}, ingredient={"sugar": 1})
    game.apply(s, pair(0, "sugar", "3"), random.Random(0))
    assert s.finished[0] == 1 and s.variety_points[0] == 3


def test_special_at_a_station_whose_variety_names_it_refines_plus_two() -> None:
    """'Oder eine Sonderzutat: statt eines Paars, an eine Station, deren Sorte sie braucht
    ... Die Sorte ist dann veredelt: +2 Punkte, sobald sie fertig ist.' Rulings: 'a
    special die (at a station whose variety names it: +2 when that variety is finished)';
    'a station takes at most one special'."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "dark", missing={"cocoa": 0, "sugar": 3})  # chili
    set_station(game, s, 0, 1, "milk")  # vanilla
    set_dice(s, special={"chili": 2, "vanilla": 0, "mint": 1})
    refused(game, s, special(1, "chili"))
    refused(game, s, special(0, "mint"))
    rng = random.Random(0)
    game.apply(s, special(0, "chili"), rng)
    assert s.special[0] == 1 and s.refine_points[0] == 0  # only once finished
    game.apply(s, PASS, rng)
    game.apply(s, PASS, rng)  # player 1 rolled and passed; player 0 picks
    set_dice(s, quantity={"3": 1}, ingredient={"sugar": 1}, special={"chili": 1})
    refused(game, s, special(0, "chili"))  # at most one special per station
    game.apply(s, pair(0, "sugar", "3"), rng)
    assert s.variety_points[0] == 3 and s.refine_points[0] == 2
    assert game.scores(s)[0] == 5


def test_special_is_voluntary() -> None:
    """'Vanille, Chili, Meersalz, Karamell, Minze, Kaffee — freiwillig, fertig wird die
    Sorte auch ohne.'"""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "dark", missing={"cocoa": 0, "sugar": 3})
    set_dice(s, quantity={"3": 1}, ingredient={"sugar": 1})
    game.apply(s, pair(0, "sugar", "3"), random.Random(0))
    assert s.finished[0] == 1 and s.refine_points[0] == 0


@pytest.mark.parametrize("players,cap", [(2, 4), (3, 3), (6, 3)])
def test_every_pass_earns_an_application_up_to_the_cap(players: int, cap: int) -> None:
    """'Für jedes Passen — auch „Nichts nehmen" im Zug der anderen — kommt eine Bewerbung
    herein. Mehr als 3 (zu zweit 4) Bewerbungen sammelst du nicht.' Rulings: 'Every pass,
    the roller's or anyone's, earns one application; at most 3 (4 with 2 players).'"""
    game, s = fresh(players)
    rng = random.Random(0)
    for _ in range(players * (cap + 2)):
        game.apply(s, PASS, rng)
    assert s.apps == [cap] * players


def test_pass_is_always_allowed() -> None:
    """'Willst oder kannst du nichts nehmen, passt du.' Passing is legal even when a pick
    is possible."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "milk")
    set_dice(s, quantity={"1": 2}, ingredient={"milk": 2})
    assert PASS in game.legal_actions(s) and pair(0, "milk", "1") in game.legal_actions(s)


def test_reroll_costs_an_application_not_shift_time() -> None:
    """'Bist du mit Würfeln dran und hat noch niemand gewählt, kannst du eine Bewerbung
    einsetzen und alle Würfel neu werfen — so oft, wie du Bewerbungen hast. Die Uhr läuft
    dabei nicht weiter.' Rulings: 'a reroll does not cost shift time'."""
    game, s = fresh(2)
    s.apps[0] = 2
    time_left = s.time_left
    rng = random.Random(5)
    rolls = []
    for _ in range(2):
        game.apply(s, REROLL, rng)
        rolls.append(s.dice[:])
        assert game.current_player(s) == 0 and s.pick_index == 0
    assert s.apps[0] == 0 and s.time_left == time_left
    assert sum(rolls[-1][DQ:DI]) == 2
    refused(game, s, REROLL)  # no application left


def test_reroll_only_by_the_roller_before_anyone_picked() -> None:
    """'Bist du mit Würfeln dran und hat noch niemand gewählt' — the other players may not
    reroll, and the roller may not once a pick was made."""
    game, s = fresh(3)
    s.apps = [3, 3, 3]
    game.apply(s, PASS, random.Random(0))  # the roller is done
    assert game.current_player(s) == 1
    refused(game, s, REROLL)


def test_master_with_max_applications_is_any_machine_and_costs_no_pick() -> None:
    """'Mit 3 Bewerbungen (zu zweit 4) stellst du die Meisterin ein. Sie passt zu JEDER
    Zutat und verarbeitet sie — auch schon, bevor sie komplett geliefert ist. Du holst sie
    jederzeit, das kostet keine Wahl.' Rulings: 'spend them all to place the master at one
    of their stations as the machine for any one ingredient, under the same placement rule
    as a machine die. Hiring and placing are one step'."""
    game, s = fresh(3)
    set_station(game, s, 1, 3, "gold_bar")
    s.apps = [0, 3, 0]
    game.apply(s, PASS, random.Random(0))  # player 0 (roller) passes; player 1 decides
    set_dice(s)  # no dice at all: the master needs none
    legal = game.legal_actions(s)
    assert master(3, "nuts") in legal and master(3, "fruit") not in legal
    game.apply(s, master(3, "nuts"), random.Random(0))
    assert s.apps[1] == 0 and s.placed[1 * 4 + 3] == 1 << 3
    assert game.current_player(s) == 1 and s.phase == PICK  # the pick is still to make
    refused(game, s, master(3, "milk"))  # applications spent


def test_master_needs_the_maximum_of_applications() -> None:
    """'Mit 3 Bewerbungen (zu zweit 4) stellst du die Meisterin ein.'"""
    game, s = fresh(2)
    set_station(game, s, 0, 2, "truffle")
    s.apps[0] = 3
    refused(game, s, master(2, "cocoa"))
    s.apps[0] = 4
    assert master(2, "cocoa") in game.legal_actions(s)


def test_master_finishing_a_variety_then_the_pick_follows() -> None:
    """The master can be the last machine: the variety is finished, packed, refilled, and
    the player still makes the pick ('das kostet keine Wahl')."""
    game, s = fresh(2, packages=False)
    set_station(game, s, 0, 2, "truffle", missing={"cocoa": 0, "butter": 0, "milk": 0},
                machines=("cocoa", "milk"))  # fmt: skip
    s.apps[0] = 4
    rng = random.Random(0)
    game.apply(s, master(2, "butter"), rng)
    assert s.finished[0] == 1 and s.phase == CHOOSE_VARIETY
    game.apply(s, choose("nougat"), rng)
    assert s.phase == PICK and game.current_player(s) == 0 and s.pick_index == 0
    assert s.variety[2] == 5 and list(s.missing[12:18]) == list(game.quantities[5])


def test_freed_station_owner_chooses_tier_and_variety() -> None:
    """'Wird eine Station frei, wählst du Stufe UND Sorte selbst'. Rulings: 'The station is
    then free and its owner chooses the next tier and variety.'"""
    game, s = fresh(2, packages=False)
    set_station(game, s, 0, 1, "dark", missing={"cocoa": 0, "sugar": 2})
    set_dice(s, quantity={"2": 1}, ingredient={"sugar": 1})
    rng = random.Random(0)
    game.apply(s, pair(1, "sugar", "2"), rng)
    assert s.phase == CHOOSE_VARIETY and game.current_player(s) == 0 and s.variety[1] == -1
    assert game.legal_actions(s) == [
        choose(name) for name in ("milk", "strawberry_milk", "dark", "white_hazelnut",
                                  "truffle", "nougat", "fruit_pralines", "chocolate_cake",
                                  "gold_bar")
    ]  # fmt: skip
    game.apply(s, choose("chocolate_cake"), rng)
    assert s.variety[1] == 7 and game.current_player(s) == 1


def test_master_at_the_pack_and_choose_steps_then_the_step_continues() -> None:
    """Rulebook: 'Du holst sie jederzeit, das kostet keine Wahl.' Rulings: 'a player
    holding the maximum of applications may, at any of their decision points and without
    using their pick, spend them all to place the master ... under the same placement rule
    as a machine die.' Here she is hired at the choose step that follows a finished bar;
    the same player then chooses the variety, and the next seat picks."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "milk", missing={"cocoa": 1, "milk": 0})
    set_station(game, s, 0, 1, "truffle", machines=("cocoa",))
    set_station(game, s, 0, 2, "milk")
    set_station(game, s, 0, 3, "gold_bar")
    s.apps[0] = game.max_apps
    set_dice(s, quantity={"1": 2}, ingredient={"cocoa": 2})
    rng = random.Random(0)
    game.apply(s, pair(0, "cocoa", "1"), rng)  # milk finished, packed, choose step
    assert s.phase == CHOOSE_VARIETY and game.current_player(s) == 0
    legal = game.legal_actions(s)
    assert master(1, "milk") in legal and master(1, "cocoa") not in legal  # placed already
    assert master(2, "cocoa") not in legal  # Bronze: no machines
    assert master(0, "cocoa") not in legal  # the freed station has no recipe yet
    game.apply(s, master(1, "milk"), rng)
    assert s.phase == CHOOSE_VARIETY and game.current_player(s) == 0  # the step continues
    assert s.apps[0] == 0 and s.masters[0] == 1
    game.apply(s, choose("dark"), rng)
    assert game.current_player(s) == 1  # a normal pick preceded: the next seat picks


def test_master_at_the_pack_step() -> None:
    """Rulings: the master 'at any of their decision points'; the pack step is one (a
    finished bar with two packages that accept it)."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "milk", missing={"cocoa": 1, "milk": 0})
    set_station(game, s, 0, 1, "truffle")
    s.pkg_variety[0], s.pkg_fill[0], s.pkg_owners[0] = V["milk"], 1, 1
    s.apps[0] = game.max_apps
    set_dice(s, quantity={"1": 2}, ingredient={"cocoa": 2})
    rng = random.Random(0)
    game.apply(s, pair(0, "cocoa", "1"), rng)
    assert s.phase == PACK_BAR
    assert master(1, "butter") in game.legal_actions(s)
    game.apply(s, master(1, "butter"), rng)
    assert s.phase == PACK_BAR and game.current_player(s) == 0
    refused(game, s, master(1, "milk"))  # applications spent


def test_master_completing_a_variety_at_the_choose_step_finishes_it_next() -> None:
    """Rulings: 'A variety is finished when everything is delivered (and ... every
    ingredient has its machine). Its owner packs the bar at once.' The master hired at a
    choose step completes another variety: once the freed station has its variety, that
    one is finished and packed, and its station refilled, by the same player."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "milk", missing={"cocoa": 1, "milk": 0})
    set_station(
        game, s, 0, 1, "truffle", missing={"cocoa": 0, "butter": 0, "milk": 0},
        machines=("cocoa", "butter"),
    )  # fmt: skip
    s.apps[0] = game.max_apps
    set_dice(s, quantity={"1": 2}, ingredient={"cocoa": 2})
    rng = random.Random(0)
    game.apply(s, pair(0, "cocoa", "1"), rng)
    game.apply(s, master(1, "milk"), rng)
    finished = s.finished[0]
    game.apply(s, choose("dark"), rng)
    assert s.finished[0] == finished + 1 and s.phase == CHOOSE_VARIETY
    assert s.pending_station == 1 and game.current_player(s) == 0
    game.apply(s, choose("milk"), rng)
    assert game.current_player(s) == 1


@pytest.mark.parametrize("players", [2, 3, 5])
def test_each_pass_earns_exactly_one_application(players: int) -> None:
    """'Für jedes Passen — auch „Nichts nehmen" im Zug der anderen — kommt eine Bewerbung
    herein. Mehr als 3 (zu zweit 4) Bewerbungen sammelst du nicht.' Rulings: 'Every pass,
    the roller's or anyone's, earns one application; at most 3 (4 with 2 players).' Counted
    pass by pass: after a player's k-th pass they hold min(k, cap), and nobody else's count
    moves."""
    cap = 4 if players == 2 else 3
    game, s = fresh(players)
    rng = random.Random(0)
    passes = [0] * players
    for _ in range(players * (cap + 2)):
        p = game.current_player(s)
        before = s.apps[:]
        game.apply(s, PASS, rng)
        passes[p] += 1
        before[p] = min(passes[p], cap)
        assert s.apps == before, f"after pass {passes[p]} of player {p}"


def open_masters(game, s, player: int) -> set[int]:
    """The master placements the rule allows: at a Silver or Gold station (by the
    rulebook's tiers), for an ingredient of its recipe whose machine is not placed yet."""
    allowed = set()
    for st in range(4):
        v = s.variety[player * 4 + st]
        if v < 0 or cp.VARIETY_TIERS[v] == 0:
            continue
        for i, qty in enumerate(game.quantities[v]):
            if qty and not s.placed[player * 4 + st] >> i & 1:
                allowed.add(MASTER + st * 6 + i)
    return allowed


def check_master_placements(game, s, step: str) -> None:
    """The mask offers the master exactly where the rule allows, apply accepts her there
    (on a copy) and refuses her everywhere else."""
    p = game.current_player(s)
    allowed = open_masters(game, s, p)
    offered = {a for a in game.legal_actions(s) if MASTER <= a < PASS}
    assert allowed and offered == allowed, step
    for a in range(MASTER, PASS):
        if a in allowed:
            game.apply(s.copy(), a, random.Random(0))
        else:
            refused(game, s, a)


def test_master_only_at_open_machines_of_silver_and_gold_at_every_step() -> None:
    """'Silber (3–4 Zutaten) und Gold (4–5) brauchen dazu für jede Zutat ihr Gerät'; 'Die
    Meisterin ... passt zu JEDER Zutat ... Du holst sie jederzeit'. Rulings: 'at any of
    their decision points ... place the master at one of their stations as the machine for
    any one ingredient, under the same placement rule as a machine die'; 'A machine only
    goes to a Silver or Gold station whose recipe uses that ingredient and that has no
    machine for it yet'. At the pick, the pack step and the choose step alike: never at a
    Bronze station, never where that machine already stands, never for an ingredient the
    recipe lacks, never at the freed station."""
    game, s = fresh(2)
    bar = "dark"
    first, *rest = ingredients_of(game, bar)
    set_station(game, s, 0, 0, bar, missing={first: 1, **{i: 0 for i in rest}})
    set_station(game, s, 0, 1, "milk")  # Bronze: no machine, so no master
    silver_first = ingredients_of(game, "truffle")[0]
    set_station(game, s, 0, 2, "truffle", machines=(silver_first,))  # one machine stands
    set_station(game, s, 0, 3, "gold_bar")
    s.apps[0] = 4  # the maximum with 2 players
    s.pkg_variety[0], s.pkg_fill[0], s.pkg_owners[0] = V[bar], 1, 1  # two packages accept
    set_dice(s, quantity={"1": 1}, ingredient={first: 1})
    check_master_placements(game, s, "pick")
    rng = random.Random(0)
    game.apply(s, pair(0, first, "1"), rng)
    assert s.phase == PACK_BAR and game.current_player(s) == 0
    check_master_placements(game, s, "pack")
    game.apply(s, pack(1), rng)
    assert s.phase == CHOOSE_VARIETY and s.variety[0] == -1
    check_master_placements(game, s, "choose")
