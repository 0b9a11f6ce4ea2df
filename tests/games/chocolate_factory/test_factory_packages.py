"""Chocolate Factory: finishing, packages, storage, the end and the scoring, checked
against the German rulebook (seed 001) and the rulings in docs/games/chocolate_factory.md."""

from __future__ import annotations

import random

import pytest

from choco_envs.games.chocolate_factory.rules import (
    CHOOSE_VARIETY,
    CLOSED,
    EMPTY,
    OVER,
    PACK_BAR,
    PASS,
    PICK,
)

from .factory_helpers import V, choose, fresh, pack, pair, set_dice, set_station, until_over


def fill_package(game, s, slot: int, variety: str, owners: list[int]) -> None:
    n = game.num_players
    s.pkg_variety[slot] = V[variety]
    s.pkg_fill[slot] = len(owners)
    s.pkg_owners[slot * n : slot * n + n] = [owners.count(p) for p in range(n)]


def finish_dark(game, s, player: int = 0, station: int = 0, into: int | None = None) -> None:
    """Player ``player`` (to act) finishes a Dark bar at ``station`` with one pair, and
    packs it into slot ``into`` when that is a choice."""
    set_station(game, s, player, station, "dark", missing={"cocoa": 0, "sugar": 1})
    set_dice(s, quantity={"1": 1}, ingredient={"sugar": 1})
    game.apply(s, pair(station, "sugar", "1"), random.Random(0))
    if into is not None:
        assert s.phase == PACK_BAR
        game.apply(s, pack(into), random.Random(0))


def test_first_bar_gives_an_empty_package_its_variety() -> None:
    """'In jedes Paket gehören vier gleiche Tafeln; ein leeres Paket bekommt seine Sorte von
    der ersten Tafel.' Rulings: 'an empty open package (which takes that variety)'."""
    game, s = fresh(2)
    finish_dark(game, s)
    assert s.pkg_variety[0] == V["dark"] and s.pkg_fill[0] == 1 and s.pkg_owners[:2] == [1, 0]
    assert s.phase == CHOOSE_VARIETY  # one choice only (empty packages are alike): packed


def test_open_packages_are_players_plus_two() -> None:
    """'Es sind so viele Pakete offen, wie mitspielen, plus zwei'."""
    for n in range(2, 7):
        game, s = fresh(n)
        assert len(s.pkg_variety) == n + 2 and all(v == EMPTY for v in s.pkg_variety)
        assert s.supply_left == game.components.packages["short"][n] - (n + 2)


def test_owner_chooses_between_packages_that_accept_the_bar() -> None:
    """Rulings: 'into an open package of the same variety with room, or an empty open
    package (which takes that variety), chosen by the owner'."""
    game, s = fresh(2)
    fill_package(game, s, 1, "dark", [1, 1])
    fill_package(game, s, 2, "milk", [0])
    finish_dark(game, s)
    assert s.phase == PACK_BAR and game.current_player(s) == 0
    assert game.legal_actions(s) == [pack(0), pack(1)]  # the first empty one, the dark one
    game.apply(s, pack(1), random.Random(0))
    assert s.pkg_fill[1] == 3 and s.pkg_owners[2:4] == [1, 2] and s.phase == CHOOSE_VARIETY


def test_bar_goes_to_storage_when_no_package_accepts_it() -> None:
    """'Nimmt kein offenes Paket die Sorte, kommt die Tafel ins Lager: die Punkte der Sorte
    zählen, ohne Bonus.'"""
    game, s = fresh(2)
    for slot, variety in enumerate(["milk", "truffle", "nougat", "gold_bar"]):
        fill_package(game, s, slot, variety, [1])
    finish_dark(game, s)
    assert s.storage[0] == 1 and s.variety_points[0] == 3 and s.bonus_points[0] == 0
    assert sum(s.pkg_fill) == 4 and s.phase == CHOOSE_VARIETY


def test_full_package_pays_every_owner_of_a_bar_inside() -> None:
    """'Volles Paket: jeder bekommt einen Bonus auf jede EIGENE Tafel darin — +2 (Bronze),
    +3 (Silber), +4 (Gold). Wer ein Paket voll macht, hilft also auch den anderen'; 'ist
    eins voll, kommt ein neues leeres dazu'."""
    game, s = fresh(3)
    fill_package(game, s, 0, "dark", [1, 1, 2])
    supply = s.supply_left
    finish_dark(game, s, into=0)
    assert s.bonus_points == [2, 4, 2]
    assert s.pkg_variety[0] == EMPTY and s.pkg_fill[0] == 0 and s.supply_left == supply - 1
    assert s.packages_filled == 1


@pytest.mark.parametrize("variety,bonus", [("truffle", 3), ("gold_bar", 4)])
def test_package_bonus_by_tier(variety: str, bonus: int) -> None:
    """'+2 (Bronze), +3 (Silber), +4 (Gold)' per own bar in a full package."""
    game, s = fresh(2, packages=True)
    fill_package(game, s, 0, variety, [0, 1, 1])
    set_station(game, s, 0, 3, variety, missing={}, machines=())
    k = 3
    s.missing[k * 6 : k * 6 + 6] = [0] * 6
    s.placed[k] = game.machine_mask[V[variety]]
    ingredient = game.quantities[V[variety]].index(max(game.quantities[V[variety]]))
    s.missing[k * 6 + ingredient] = 1
    set_dice(s, quantity={"1": 1})
    s.dice[6 + ingredient] = 1
    game.apply(s, (3 * 6 + ingredient) * 6 + 0, random.Random(0))
    game.apply(s, pack(0), random.Random(0))
    assert s.bonus_points == [2 * bonus, 2 * bonus]


def test_half_full_package_gives_nothing() -> None:
    """'Halb volles Paket: kein Bonus, aber auch kein Abzug.'"""
    game, s = fresh(2)
    fill_package(game, s, 0, "dark", [1])
    finish_dark(game, s, into=0)
    assert s.bonus_points == [0, 0] and s.variety_points == [3, 0]


def test_last_package_filled_ends_the_game_at_once() -> None:
    """'Jede Partie hat eine feste Zahl an Paketen ... Sind alle voll, endet die Partie
    sofort.' Rulings: 'When every package is full the game ends at once.'"""
    game, s = fresh(2)
    s.supply_left = 0
    s.pkg_variety = [CLOSED, CLOSED, CLOSED, V["dark"]]
    s.pkg_fill = [0, 0, 0, 3]
    s.pkg_owners[6:8] = [1, 2]
    finish_dark(game, s)  # the roller's pick; player 1 has not picked yet
    assert s.phase == OVER and game.is_over(s) and game.current_player(s) == -1
    assert game.legal_actions(s) == [] and not game.legal_mask(s).any()
    assert s.bonus_points == [4, 4]


def test_new_package_only_while_the_supply_lasts() -> None:
    """'ist eins voll, kommt ein neues leeres dazu — aber nur, solange der Vorrat reicht'."""
    game, s = fresh(2)
    s.supply_left = 0
    fill_package(game, s, 0, "dark", [1, 1, 1])
    finish_dark(game, s, into=0)
    assert s.pkg_variety[0] == CLOSED and not game.is_over(s)  # other packages still open
    game.apply(s, choose("milk"), random.Random(0))
    assert game.current_player(s) == 1


def test_shift_time_rounded_up_to_whole_rounds() -> None:
    """'wie viele Würfe noch bleiben (kurz 48, lang 72, auf volle Runden aufgerundet)'."""
    expected = {(2, "short"): 48, (5, "short"): 50, (6, "short"): 48, (4, "long"): 72,
                (5, "long"): 75, (3, "long"): 72}  # fmt: skip
    for (n, length), rolls in expected.items():
        game, s = fresh(n, length=length)
        assert game.total_rolls == rolls and s.time_left == rolls - 1


def test_game_runs_exactly_the_rolls_of_the_shift() -> None:
    """'Jeder Wurf kostet einen Schritt.' With everyone passing, the game has exactly the
    shift's rolls, each followed by every player's pick."""
    game, s = fresh(5)
    steps = 0
    for _ in until_over(game, s):
        game.apply(s, PASS, random.Random(steps))
        steps += 1
    assert steps == 50 * 5


def test_last_round_is_finished_when_shift_time_is_out() -> None:
    """'Ist die Schichtzeit um, wird die Runde zu Ende gespielt.' Rulings: 'When it is out
    the round is finished and the game is scored.'"""
    game, s = fresh(3)
    s.time_left = 0
    s.roller = 2
    rng = random.Random(0)
    for expected in (2, 0, 1):  # the last roll: every player still picks
        assert not game.is_over(s) and game.current_player(s) == expected
        game.apply(s, PASS, rng)
    assert game.is_over(s)


def test_no_packages_mode_counts_only_variety_points_with_refinements() -> None:
    """'Wer „Ohne Pakete" wählt, packt nichts — dann zählen nur die Punkte der Sorten (mit
    Veredeln).' Rulings: 'Option "no packages": nothing is packed; only variety points
    (with the +2 refinements) count.'"""
    game, s = fresh(2, packages=False)
    set_station(game, s, 0, 0, "dark", missing={"cocoa": 0, "sugar": 1}, special=True)
    set_dice(s, quantity={"1": 1}, ingredient={"sugar": 1})
    game.apply(s, pair(0, "sugar", "1"), random.Random(0))
    assert s.phase == CHOOSE_VARIETY  # nothing to pack
    assert s.pkg_fill == [0] * 4 and s.storage == [0, 0]
    assert game.scores(s) == [5.0, 0.0]
    assert game.score_breakdown(s)["package_bonus"] == [0.0, 0.0]


def test_no_packages_mode_never_ends_by_packages() -> None:
    """Without packages the game ends only by shift time."""
    game, s = fresh(2, packages=False)
    rng = random.Random(3)
    for _ in until_over(game, s):
        acts = game.legal_actions(s)
        assert not any(218 <= a < 226 for a in acts)
        game.apply(s, acts[int(rng.random() * len(acts))], rng)
    assert s.time_left == 0 and s.pick_index == 2


def test_tie_break_more_finished_varieties() -> None:
    """'Die meisten Punkte gewinnen, bei Gleichstand mehr fertige Sorten'."""
    game, s = fresh(2)
    s.variety_points = [8, 6]
    s.bonus_points = [0, 2]
    s.finished = [1, 2]
    s.phase = OVER
    assert game.scores(s) == [8.0, 8.0]
    assert game.returns(s) == [-1.0, 1.0]


def test_tie_on_points_and_varieties_is_a_draw() -> None:
    """'ist auch das gleich, ist es unentschieden.'"""
    game, s = fresh(3)
    s.variety_points = [7, 7, 3]
    s.finished = [1, 1, 1]
    s.phase = OVER
    assert game.returns(s) == [0.5, 0.5, -1.0]


def test_most_points_win() -> None:
    """'Die meisten Punkte gewinnen'."""
    game, s = fresh(2)
    s.variety_points = [3, 7]
    s.finished = [5, 1]
    s.phase = OVER
    assert game.returns(s) == [-1.0, 1.0]


def test_bars_are_packed_at_once_so_nothing_is_left_at_the_end() -> None:
    """'Wer dann noch fertige Tafeln hat, packt sie in Ruhe ein'. Rulings: 'Because bars
    are packed at once, the rulebook's closing "pack the bars you still have" has nothing
    left to do.' After any finishing pick the bar is in a package or in storage."""
    game, s = fresh(2)
    rng = random.Random(11)
    for _ in until_over(game, s):
        acts = game.legal_actions(s)
        game.apply(s, acts[int(rng.random() * len(acts))], rng)
        if s.phase in (PICK, CHOOSE_VARIETY):
            in_packages = sum(s.pkg_owners) + 4 * s.packages_filled
            assert in_packages + sum(s.storage) == sum(s.finished)


def test_packages_not_full_at_the_end_pay_no_bonus() -> None:
    """'Halb volles Paket: kein Bonus, aber auch kein Abzug.' Rulings: 'A package not full
    at the end gives no bonus.' The shift runs out with a Bronze, a Silver and a Gold
    package part-filled by both players: the bonus points earned before stay as they are,
    nothing is added or taken, and each score is varieties + refinements + those bonuses."""
    game, s = fresh(2)
    fill_package(game, s, 0, "dark", [0, 0, 1])
    fill_package(game, s, 1, "truffle", [1, 0])
    fill_package(game, s, 2, "gold_bar", [0])
    s.variety_points = [20, 11]
    s.refine_points = [2, 0]
    s.bonus_points = [4, 6]  # from packages filled earlier
    s.time_left = 0  # the last roll
    rng = random.Random(0)
    game.apply(s, PASS, rng)
    game.apply(s, PASS, rng)
    assert game.is_over(s)
    assert s.bonus_points == [4, 6] and s.pkg_fill[:3] == [3, 2, 1]
    assert game.scores(s) == [26.0, 17.0]
    assert game.score_breakdown(s)["package_bonus"] == [4.0, 6.0]
