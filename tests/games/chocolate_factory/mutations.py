"""Chocolate Factory mutations (a first list; issue 17 asks for every rule): each breaks one
rule of the rulebook (seed 001) or RULINGS.md by an exact text replacement;
``python -m tests.mutations chocolate_factory`` checks that a named rule test in
tests/games/chocolate_factory kills every one."""

from __future__ import annotations

from tests.mutations import mutations_in

RULES = "choco_envs/games/chocolate_factory/rules.py"
rule = mutations_in(RULES)


MUTATIONS = [
    rule(
        "special_dice_count",
        "self.special_dice = 1 if n == 2 else (2 if n <= 4 else 3)",
        "self.special_dice = 1 if n == 2 else 2",
        "RULINGS: machine dice and special dice, 1 each with 2 players, 2 each with 3-4, 3 each with 5-6",
    ),
    rule(
        "application_cap",
        "self.max_apps = 4 if n == 2 else 3",
        "self.max_apps = 3",
        "RULINGS: at most 3 (4 with 2 players) applications",
    ),
    rule(
        "pass_earns_no_application",
        "                s.apps[p] += 1\n",
        "                pass\n",
        "RULINGS: every pass, the roller's or anyone's, earns one application",
    ),
    rule(
        "reroll_costs_nothing",
        "            s.apps[p] -= 1\n            self._roll(s, rng)",
        "            self._roll(s, rng)",
        "RULINGS: the roller may spend an application to reroll all dice",
    ),
    rule(
        "joker_fills_one",
        "s.missing[idx] -= min(cp.JOKER_FILL, s.missing[idx]) if q == 5 else q + 1",
        "s.missing[idx] -= 1 if q == 5 else q + 1",
        "RULINGS: the joker fills up to 6 of what is missing",
    ),
    rule(
        "taken_machine_die_stays",
        "            s.dice[DM + face] -= 1\n",
        "",
        "RULINGS: whatever is picked is placed at once (the die leaves the roll)",
    ),
    rule(
        "taken_special_die_stays",
        "            s.dice[DS + face] -= 1\n",
        "",
        "RULINGS: whatever is picked is placed at once (the die leaves the roll)",
    ),
    rule(
        "master_keeps_applications",
        "        else:  # the master: hired and placed in one step; not a pick\n            s.apps[p] = 0\n",
        "        else:  # the master: hired and placed in one step; not a pick\n",
        "RULINGS: spend them all to place the master",
    ),
    rule(
        "master_uses_the_pick",
        '        if kind != "master":\n            self._next_picker(s, rng)',
        "        self._next_picker(s, rng)",
        "RULINGS: without using their pick",
    ),
    rule(
        "no_refinement_bonus",
        "            s.refine_points[p] += cp.REFINE_BONUS\n",
        "            pass\n",
        "RULINGS: a special die ... +2 when that variety is finished",
    ),
    rule(
        "full_package_pays_no_bonus",
        "            s.bonus_points[owner] += bonus * s.pkg_owners[slot * n + owner]\n",
        "            pass\n",
        "RULINGS: a full package gives every player a bonus on each of their own bars in it",
    ),
    rule(
        "game_goes_on_after_the_last_package",
        "            s.phase = OVER  # every package is full: the game ends at once\n            return\n",
        "            pass\n",
        "RULINGS: when every package is full the game ends at once",
    ),
    rule(
        "shift_never_ends",
        "        if s.time_left == 0:\n            s.phase = OVER  # shift time is out and the round is finished\n            return\n",
        "",
        "RULINGS: when shift time is out the round is finished and the game is scored",
    ),
    rule(
        "roller_does_not_rotate",
        "        s.roller = (s.roller + 1) % self.num_players\n",
        "",
        "RULINGS: the roller picks first, then the others in seat order (the roll passes on)",
    ),
    rule(
        "time_free_rolls",
        "        s.time_left -= 1\n        self._roll(s, rng)",
        "        self._roll(s, rng)",
        "RULINGS: shift time, rolls left; each roll costs one",
    ),
    rule(
        "master_resume_forgotten",
        "        if not s.resume_pick:\n            self._next_picker(s, rng)",
        "        self._next_picker(s, rng)",
        "RULINGS: the master is not a pick; after her variety is finished its owner picks again",
    ),
]
