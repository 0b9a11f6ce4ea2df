"""Chocolate Factory mutations: each breaks one rule of the rulebook (seed 001) or the rulings in docs/games/chocolate_factory.md
by an exact text replacement of rules.py; ``python -m tests.mutations chocolate_factory``
checks that a test in tests/games/chocolate_factory kills every one. Each is meant to be
killed by a rule test that names the rule (the comment before a group says which), not
only by the observation-layout test, which would notice almost any change of state."""

from __future__ import annotations

from tests.mutations import mutations_in

RULES = "choco_envs/games/chocolate_factory/rules.py"
rule = mutations_in(RULES)


MUTATIONS = [
    rule(
        "special_dice_count",
        "self.special_dice = 1 if n == 2 else (2 if n <= 4 else 3)",
        "self.special_dice = 1 if n == 2 else 2",
        "Rulings: machine dice and special dice, 1 each with 2 players, 2 each with 3-4, 3 each with 5-6",
    ),
    rule(
        "application_cap",
        "self.max_apps = 4 if n == 2 else 3",
        "self.max_apps = 3",
        "Rulings: at most 3 (4 with 2 players) applications",
    ),
    rule(
        "pass_earns_no_application",
        "                s.apps[p] += 1\n",
        "                pass\n",
        "Rulings: every pass, the roller's or anyone's, earns one application",
    ),
    rule(
        "reroll_costs_nothing",
        "            s.apps[p] -= 1\n            self._roll(s, rng)",
        "            self._roll(s, rng)",
        "Rulings: the roller may spend an application to reroll all dice",
    ),
    rule(
        "joker_fills_one",
        "return min(cp.JOKER_FILL, missing) if q == JOKER else q + 1",
        "return 1 if q == JOKER else q + 1",
        "Rulings: the joker fills up to 6 of what is missing",
    ),
    rule(
        "taken_machine_die_stays",
        "            s.dice[DM + face] -= 1\n",
        "",
        "Rulings: whatever is picked is placed at once (the die leaves the roll)",
    ),
    rule(
        "taken_special_die_stays",
        "            s.dice[DS + face] -= 1\n",
        "",
        "Rulings: whatever is picked is placed at once (the die leaves the roll)",
    ),
    rule(
        "master_keeps_applications",
        "        else:  # the master: hired and placed in one step; not a pick\n            s.apps[p] = 0\n",
        "        else:  # the master: hired and placed in one step; not a pick\n",
        "Rulings: spend them all to place the master",
    ),
    rule(
        "master_uses_the_pick",
        '        if kind != "master":\n            self._next_picker(s, rng)',
        "        self._next_picker(s, rng)",
        "Rulings: without using their pick",
    ),
    rule(
        "no_refinement_bonus",
        "            s.refine_points[p] += cp.REFINE_BONUS\n",
        "            pass\n",
        "Rulings: a special die ... +2 when that variety is finished",
    ),
    rule(
        "full_package_pays_no_bonus",
        "            s.bonus_points[owner] += bonus * s.pkg_owners[slot * n + owner]\n",
        "            pass\n",
        "Rulings: a full package gives every player a bonus on each of their own bars in it",
    ),
    rule(
        "game_goes_on_after_the_last_package",
        "            s.phase = OVER  # every package is full: the game ends at once\n            return\n",
        "            pass\n",
        "Rulings: when every package is full the game ends at once",
    ),
    rule(
        "shift_never_ends",
        "        if s.time_left == 0:\n            s.phase = OVER  # shift time is out and the round is finished\n            return\n",
        "",
        "Rulings: when shift time is out the round is finished and the game is scored",
    ),
    rule(
        "roller_does_not_rotate",
        "        s.roller = (s.roller + 1) % self.num_players\n",
        "",
        "Rulings: the roller picks first, then the others in seat order (the roll passes on)",
    ),
    rule(
        "time_free_rolls",
        "        s.time_left -= 1\n        self._roll(s, rng)",
        "        self._roll(s, rng)",
        "Rulings: shift time, rolls left; each roll costs one",
    ),
    rule(
        "master_resume_forgotten",
        "        if not s.resume_pick:\n            self._next_picker(s, rng)",
        "        self._next_picker(s, rng)",
        "Rulings: the master is not a pick; after her variety is finished its owner picks again",
    ),
    # ---- issue 17 item 9: breaks the first list missed (tests named in each comment)
    # start varieties: test_start_varieties_drawn_at_random_within_each_tier,
    # test_start_varieties_drawn_independently (test_factory_dice.py)
    rule(
        "start_variety_first_of_tier",
        "                v = options[int(rng.random() * len(options))]\n",
        "                v = options[0]\n",
        "Rulings: each station's variety drawn at random within its tier",
    ),
    rule(
        "start_variety_never_last_of_tier",
        "                v = options[int(rng.random() * len(options))]\n",
        "                v = options[int(rng.random() * (len(options) - 1))]\n",
        "Rulings: each station's variety drawn at random within its tier (every one of it)",
    ),
    rule(
        "start_silver_drawn_from_bronze",
        "            for tier in (0, 0, 1, 2):",
        "            for tier in (0, 0, 0, 2):",
        "Rulebook: zum Start 2 x Bronze, 1 x Silber, 1 x Gold",
    ),
    rule(
        "start_bronze_stations_alike",
        "                v = options[int(rng.random() * len(options))]\n",
        "                v = options[int(rng.random() * len(options))] if len(s.variety) % 4 != 1 else s.variety[-1]\n",
        "Rulings: each station's variety drawn ... independently (the two Bronze ones too)",
    ),
    rule(
        "start_stations_alike_for_every_player",
        "                v = options[int(rng.random() * len(options))]\n",
        "                v = options[int(rng.random() * len(options))] if len(s.variety) < 4 else s.variety[-4]\n",
        "Rulings: each station's variety drawn ... independently (of other players' too)",
    ),
    # the dice: test_quantity_dice_show_one_to_five_and_the_joker,
    # test_every_die_kind_shows_all_six_faces (test_factory_dice.py)
    rule(
        "quantity_dice_without_joker",
        "            d[int(rand() * 6)] += 1\n",
        "            d[int(rand() * 5)] += 1\n",
        "Rulings: quantity dice (faces 1-5 and a star joker)",
    ),
    rule(
        "quantity_joker_shows_as_five",
        "            d[int(rand() * 6)] += 1\n",
        "            d[min(int(rand() * 6), 4)] += 1\n",
        "Rulings: quantity dice (faces 1-5 and a star joker): six fair faces",
    ),
    rule(
        "quantity_dice_one_face",
        "            d[int(rand() * 6)] += 1\n",
        "            d[0] += 1\n",
        "Rulebook: Mengen-Wuerfel (1 bis 6 ...): a die, not a fixed face",
    ),
    rule(
        "ingredient_dice_one_face",
        "            d[DI + int(rand() * 6)] += 1\n",
        "            d[DI] += 1\n",
        "Rulebook: Zutaten-Wuerfel with the six ingredients",
    ),
    rule(
        "machine_dice_one_face",
        "            d[DM + int(rand() * 6)] += 1\n",
        "            d[DM] += 1\n",
        "Rulebook: Geraete-Wuerfel with the six machines",
    ),
    rule(
        "special_dice_one_face",
        "            d[DS + int(rand() * 6)] += 1\n",
        "            d[DS] += 1\n",
        "Rulebook: Sonderzutaten-Wuerfel with the six specials",
    ),
    rule(
        "special_dice_never_last_face",
        "            d[DS + int(rand() * 6)] += 1\n",
        "            d[DS + int(rand() * 5)] += 1\n",
        "Rulebook: Sonderzutaten-Wuerfel with the six specials (coffee too)",
    ),
    # a new roll: test_new_roll_after_a_round_is_a_full_fresh_roll (test_factory_dice.py)
    rule(
        "new_roll_adds_to_the_leftovers",
        "        d = [0] * 24\n",
        "        d = s.dice[:]\n",
        "Rulings: a roll is n quantity, n ingredient, and the machine and special dice",
    ),
    rule(
        "new_roll_keeps_the_leftovers",
        "        d = [0] * 24\n"
        "        rand = rng.random\n"
        "        for _ in range(self.num_players):\n"
        "            d[int(rand() * 6)] += 1\n"
        "            d[DI + int(rand() * 6)] += 1\n"
        "        for _ in range(self.special_dice):\n"
        "            d[DM + int(rand() * 6)] += 1\n"
        "            d[DS + int(rand() * 6)] += 1\n",
        "        d = s.dice[:]\n"
        "        rand = rng.random\n"
        "        for _ in range(self.num_players - sum(d[DQ:DI])):\n"
        "            d[int(rand() * 6)] += 1\n"
        "            d[DI + int(rand() * 6)] += 1\n"
        "        for _ in range(self.special_dice - sum(d[DM:DS])):\n"
        "            d[DM + int(rand() * 6)] += 1\n"
        "        for _ in range(self.special_dice - sum(d[DS:])):\n"
        "            d[DS + int(rand() * 6)] += 1\n",
        "Rulebook: Wuerfeln ... je so viele, wie mitspielen: every die is rolled, none kept",
    ),
    rule(
        "no_new_roll_after_a_round",
        "        s.time_left -= 1\n        self._roll(s, rng)",
        "        s.time_left -= 1",
        "Rulebook: Jeder Wurf kostet einen Schritt: each round has its own roll",
    ),
    # the reroll: test_reroll_rolls_every_die_anew (test_factory_dice.py)
    rule(
        "reroll_changes_nothing",
        "            s.apps[p] -= 1\n            self._roll(s, rng)",
        "            s.apps[p] -= 1",
        "Rulebook: alle Wuerfel neu werfen",
    ),
    rule(
        "reroll_only_the_quantity_dice",
        "            s.apps[p] -= 1\n            self._roll(s, rng)",
        "            s.apps[p] -= 1\n            kept = s.dice[DI:]\n            self._roll(s, rng)\n"
        "            s.dice[DI:] = kept",
        "Rulings: reroll all dice (ingredient, machine and special too)",
    ),
    # test_reroll_only_by_the_roller_before_anyone_picked (test_factory_turns.py)
    rule(
        "reroll_offered_to_every_picker",
        "        if s.pick_index == 0 and s.apps[p] > 0:\n",
        "        if s.apps[p] > 0:\n",
        "Rulebook: Bist du mit Wuerfeln dran und hat noch niemand gewaehlt (the mask)",
    ),
    rule(
        "reroll_allowed_to_every_picker",
        "            if s.pick_index != 0:\n",
        "            if False:\n",
        "Rulebook: Bist du mit Wuerfeln dran und hat noch niemand gewaehlt (apply)",
    ),
    # applications: test_each_pass_earns_exactly_one_application (test_factory_turns.py)
    rule(
        "pass_earns_two_applications",
        "            if s.apps[p] < self.max_apps:\n                s.apps[p] += 1\n",
        "            s.apps[p] = min(self.max_apps, s.apps[p] + 2)\n",
        "Rulings: every pass ... earns one application (the cap still holds)",
    ),
    # dice leaving the roll: test_a_taken_machine_or_special_die_leaves_the_roll
    # (test_factory_dice.py; kills taken_machine_die_stays, taken_special_die_stays above),
    # test_pair_must_fit_one_station (test_factory_turns.py)
    rule(
        "taken_quantity_die_stays",
        "            s.dice[DQ + q] -= 1\n",
        "",
        "Rulings: a pair (one quantity die and one ingredient die) from what is left",
    ),
    rule(
        "taken_ingredient_die_stays",
        "            s.dice[DI + ingredient] -= 1\n",
        "",
        "Rulings: a pair (one quantity die and one ingredient die) from what is left",
    ),
    # the whole quantity must fit: test_pair_must_fit_one_station (test_factory_turns.py)
    rule(
        "pair_offered_one_too_many",
        "if quantity_dice[q] and (q == JOKER or q < miss))",
        "if quantity_dice[q] and (q == JOKER or q <= miss))",
        "Rulebook: Die ganze Menge muss in EINE deiner Stationen passen (the mask)",
    ),
    rule(
        "pair_accepted_one_too_many",
        "        if q < 5 and q + 1 > miss:\n",
        "        if q < 5 and q > miss:\n",
        "Rulebook: Die ganze Menge muss in EINE deiner Stationen passen (apply)",
    ),
    # the master's placement: test_master_only_at_open_machines_of_silver_and_gold_at_every_step
    # (test_factory_turns.py), at the pick, the pack and the choose step
    rule(
        "master_offered_at_bronze_at_the_pick",
        "        acts = pairs + machines + specials + masters\n",
        "        if can_hire:\n"
        "            masters += [MASTER + st * 6 + m for st in range(STATIONS)"
        " if self.tier[s.variety[p * 4 + st]] == 0"
        " for m in range(6) if self.quantities[s.variety[p * 4 + st]][m]]\n"
        "        acts = pairs + machines + specials + masters\n",
        "Rulings: the master under the same placement rule as a machine die (not at Bronze)",
    ),
    rule(
        "master_offered_on_a_placed_machine_at_the_pick",
        "        acts = pairs + machines + specials + masters\n",
        "        if can_hire:\n"
        "            masters += [MASTER + st * 6 + m for st in range(STATIONS)"
        " for m in range(6) if s.placed[p * 4 + st] >> m & 1]\n"
        "        acts = pairs + machines + specials + masters\n",
        "Rulings: the master under the machine rule: not where that machine stands",
    ),
    rule(
        "master_offered_at_bronze_between",
        "            open_machines = self.machine_mask[v] & ~s.placed[k]\n            acts.extend(",
        "            open_machines = self.varieties[v].ingredient_mask & ~s.placed[k]\n"
        "            acts.extend(",
        "Rulings: the master at any decision point, under the machine rule (not at Bronze)",
    ),
    rule(
        "master_offered_on_a_placed_machine_between",
        "            open_machines = self.machine_mask[v] & ~s.placed[k]\n            acts.extend(",
        "            open_machines = self.machine_mask[v]\n            acts.extend(",
        "Rulings: the master at any decision point, under the machine rule (not twice)",
    ),
    rule(
        "master_accepted_at_bronze",
        '            return "the station is free: it has no recipe for a machine yet"\n'
        "        if not self.machine_mask[v] >> face & 1:\n"
        '            return "machines go only to Silver or Gold stations whose recipe uses them"\n',
        '            return "the station is free: it has no recipe for a machine yet"\n',
        "Rulings: a machine only goes to a Silver or Gold station whose recipe uses it",
    ),
    rule(
        "master_accepted_on_a_placed_machine",
        '            return "machines go only to Silver or Gold stations whose recipe uses them"\n'
        "        if s.placed[k] >> face & 1:\n"
        '            return "the station already has a machine for that ingredient"\n'
        "        return None\n",
        '            return "machines go only to Silver or Gold stations whose recipe uses them"\n'
        "        return None\n",
        "Rulings: ... and that has no machine for it yet (the master too)",
    ),
    rule(
        "master_accepted_at_the_freed_station",
        '        if v < 0:\n            return "the station is free: it has no recipe for a machine yet"\n',
        "        if v < 0:\n            return None\n",
        "Rulings: the master at one of their stations as the machine for an ingredient of it",
    ),
    # machine dice: test_machine_placement_rule (test_factory_turns.py)
    rule(
        "machine_die_accepted_anywhere",
        "        # machine die or master: same placement rule\n"
        "        if not self.machine_mask[v] >> face & 1:\n",
        "        # machine die or master: same placement rule\n        if False:\n",
        "Rulings: a machine only goes to a Silver or Gold station whose recipe uses it",
    ),
    # the legal moves' machine table: test_machine_table_offers_the_machines_apply_accepts
    # (test_factory_speed_paths.py)
    rule(
        "machine_offered_without_its_die",
        "machines += MACHINE_ROWS[st][open_machines & machine_dice]",
        "machines += MACHINE_ROWS[st][open_machines]",
        "Rulebook: a machine die places the machine it shows",
    ),
    # finishing: test_silver_finishes_only_with_all_machines (test_factory_turns.py)
    rule(
        "silver_finishes_without_machines",
        "        if s.placed[k] != self.machine_mask[v]:\n            return False\n",
        "",
        "Rulebook: Silber und Gold brauchen dazu fuer jede Zutat ihr Geraet",
    ),
    # the pick order: test_roller_picks_first_then_others_in_seat_order_each_roll_costs_time
    rule(
        "picks_against_seat_order",
        "        return (s.roller + s.pick_index) % self.num_players\n",
        "        return (s.roller - s.pick_index) % self.num_players\n",
        "Rulings: the roller picks first, then the others in seat order",
    ),
    # a freed station: test_freed_station_owner_chooses_tier_and_variety
    rule(
        "new_variety_only_of_the_same_tier",
        "            chooses = list(range(CHOOSE, CHOOSE + len(self.varieties)))\n",
        "            chooses = [CHOOSE + w for w in range(len(self.varieties))"
        " if self.tier[w] == self.tier[s.pending_variety]]\n",
        "Rulebook: Wird eine Station frei, waehlst du Stufe UND Sorte selbst",
    ),
    # packages (test_factory_packages.py): test_package_bonus_by_tier,
    # test_bar_goes_to_storage_when_no_package_accepts_it,
    # test_owner_chooses_between_packages_that_accept_the_bar,
    # test_packages_not_full_at_the_end_pay_no_bonus
    rule(
        "package_bonus_ignores_the_tier",
        "        bonus = cp.PACKAGE_BONUS[self.tier[v]]\n",
        "        bonus = cp.PACKAGE_BONUS[0]\n",
        "Rulebook: +2 (Bronze), +3 (Silber), +4 (Gold)",
    ),
    rule(
        "stored_bar_loses_its_points",
        "            s.storage[p] += 1\n",
        "            s.storage[p] += 1\n            s.variety_points[p] -= self.points[v]\n",
        "Rulebook: ins Lager: die Punkte der Sorte zaehlen, ohne Bonus",
    ),
    rule(
        "bar_packed_with_another_variety",
        "        options = [k for k in range(self.slots) if s.pkg_variety[k] == variety]\n",
        "        options = [k for k in range(self.slots) if s.pkg_variety[k] >= 0]\n",
        "Rulebook: In jedes Paket gehoeren vier gleiche Tafeln",
    ),
    rule(
        "half_full_packages_pay_at_the_end",
        "            s.phase = OVER  # shift time is out and the round is finished\n",
        "            s.phase = OVER  # shift time is out and the round is finished\n"
        "            for slot in range(self.slots):\n"
        "                if s.pkg_variety[slot] >= 0:\n"
        "                    for owner in range(self.num_players):\n"
        "                        s.bonus_points[owner] += cp.PACKAGE_BONUS["
        "self.tier[s.pkg_variety[slot]]] * s.pkg_owners[slot * self.num_players + owner]\n",
        "Rulings: a package not full at the end gives no bonus",
    ),
    # the end: test_new_package_only_while_the_supply_lasts
    rule(
        "game_ends_when_one_package_is_closed",
        "        if s.supply_left == 0 and all(v == CLOSED for v in s.pkg_variety):\n",
        "        if s.supply_left == 0 and any(v == CLOSED for v in s.pkg_variety):\n",
        "Rulings: when every package is full the game ends at once (not before)",
    ),
]
