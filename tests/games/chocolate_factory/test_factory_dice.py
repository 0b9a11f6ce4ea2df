"""Chocolate Factory: chance — the start varieties and the dice — and the dice leaving the
roll, checked against the German rulebook (seed 001) and the rulings in docs/games/chocolate_factory.md.

Chance is checked over many seeds: every outcome the rule allows must turn up, about as
often as the rule says (within half to one and a half times its fair share), and nothing
else. The samples are sized so that a fair engine misses a bound with a probability below
1e-7 over every check here (exact binomial tails), so a test fails on a broken rule, not
on bad luck, even if the engine's use of the rng changes. Recipes are read from the game
(they are authored and may be re-authored).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from choco_envs.games.chocolate_factory import ChocolateFactoryGame, FactoryState
from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import DI, DM, DQ, DS, PASS, REROLL

from .factory_helpers import (
    I,
    fresh,
    ingredients_of,
    machine,
    pair,
    refused,
    set_dice,
    set_station,
    special,
    special_of,
)

#: the engine's station layout at the start: stations 0 and 1 Bronze, 2 Silver, 3 Gold
START_TIERS = (0, 0, 1, 2)
#: the rulebook's dice per roll: (quantity, ingredient) = players; machine = special =
#: 1 with 2 players, 2 with 3-4, 3 with 5-6
SPECIAL_DICE = {2: 1, 3: 2, 4: 2, 5: 3, 6: 3}
KINDS = {"quantity": DQ, "ingredient": DI, "machine": DM, "special": DS}


def of_tier(tier: int) -> list[int]:
    """The varieties of ``tier`` by the rulebook's list (not the engine's table)."""
    return [v for v, t in enumerate(cp.VARIETY_TIERS) if t == tier]


def dice_of(s: FactoryState, kind: str) -> list[int]:
    """Counts per face of one kind of die left in the roll."""
    return s.dice[KINDS[kind] : KINDS[kind] + 6]


def full_counts(players: int) -> dict[str, int]:
    return {"quantity": players, "ingredient": players, "machine": SPECIAL_DICE[players],
            "special": SPECIAL_DICE[players]}  # fmt: skip


def assert_fair(totals: Counter[int], faces: list[int], what: str) -> None:
    """Every face in ``faces`` and no other turned up, each within half to one and a half
    times its fair share."""
    assert set(totals) == set(faces), f"{what}: faces seen {sorted(totals)}, allowed {faces}"
    share = sum(totals.values()) / len(faces)
    for face in faces:
        assert share / 2 <= totals[face] <= share * 1.5, f"{what}: face {face} {dict(totals)}"


# ---------------------------------------------------------------- start varieties
def test_start_varieties_drawn_at_random_within_each_tier() -> None:
    """'Jeder hat nur vier Stationen (zum Start 2 × Bronze, 1 × Silber, 1 × Gold)'.
    Rulings: 'Each player has 4 stations, at the start 2 Bronze, 1 Silver, 1 Gold (each
    station's variety drawn at random within its tier, independently).' Over many seeds,
    each start station (0-1 Bronze, 2 Silver, 3 Gold) shows every variety of its tier, about
    equally often, and never one of another tier."""
    game = ChocolateFactoryGame(num_players=3)
    seen = [Counter[int]() for _ in START_TIERS]
    for seed in range(200):
        s = game.new_state(random.Random(seed))
        for p in range(3):
            for st in range(4):
                seen[st][s.variety[p * 4 + st]] += 1
    for st, tier in enumerate(START_TIERS):
        assert_fair(seen[st], of_tier(tier), f"station {st} ({cp.TIERS[tier]})")


def test_start_varieties_drawn_independently() -> None:
    """Rulings: 'each station's variety drawn at random within its tier, independently'.
    So a player's two Bronze stations show every ordered pair of Bronze varieties (the
    same one twice included), a player's Bronze and Silver every combination, and two
    players' Silver (or Gold) stations every combination: no draw fixes another."""
    players = 6
    game = ChocolateFactoryGame(num_players=players)
    within: dict[tuple[int, int], Counter[tuple[int, int]]] = {(0, 1): Counter(), (1, 2): Counter()}
    across: dict[int, Counter[tuple[int, int]]] = {2: Counter(), 3: Counter()}
    for seed in range(600):
        s = game.new_state(random.Random(seed))
        for p in range(players):
            for a, b in within:
                within[a, b][s.variety[p * 4 + a], s.variety[p * 4 + b]] += 1
        for st, counts in across.items():
            for p in range(players - 1):
                counts[s.variety[p * 4 + st], s.variety[(p + 1) * 4 + st]] += 1
    for (a, b), counts in within.items():
        combos = [(x, y) for x in of_tier(START_TIERS[a]) for y in of_tier(START_TIERS[b])]
        assert_fair(counts, combos, f"stations {a} and {b} of one player")
    for st, counts in across.items():
        combos = [(x, y) for x in of_tier(START_TIERS[st]) for y in of_tier(START_TIERS[st])]
        assert_fair(counts, combos, f"station {st} of two players")


# ---------------------------------------------------------------- the dice
def first_rolls(players: int, seeds: int) -> list[FactoryState]:
    game = ChocolateFactoryGame(num_players=players)
    return [game.new_state(random.Random(seed)) for seed in range(seeds)]


def test_quantity_dice_show_one_to_five_and_the_joker() -> None:
    """'Mengen-Würfel (1 bis 6; statt der 6 steht der ★ Joker — er füllt eine Zutat an
    einer Station um bis zu 6 auf ...)'. Rulings: 'quantity dice (faces 1-5 and a star
    joker)'. Over many rolls each face 1..5 and the joker turns up, about a sixth of the
    time each."""
    totals = Counter[int]()
    for s in first_rolls(6, 300):
        for face, count in enumerate(dice_of(s, "quantity")):
            totals[face] += count
    assert cp.QUANTITY_FACES[5] == "joker"
    assert_fair(+totals, list(range(6)), "quantity dice (1, 2, 3, 4, 5, joker)")


@pytest.mark.parametrize("kind", ["quantity", "ingredient", "machine", "special"])
def test_every_die_kind_shows_all_six_faces(kind: str) -> None:
    """The dice of a roll: 'Mengen-Würfel (1 bis 6 ...) und Zutaten-Würfel (Kakaobohnen,
    Milch, Zucker, Nüsse, Kakaobutter, Früchte) ... Dazu zwei Sorten Sonderwürfel:
    Geräte-Würfel und gleich viele Sonderzutaten-Würfel'; the six machines 'Röstofen →
    Kakaobohnen, ... Dörrofen → Früchte' and six specials 'Vanille, Chili, Meersalz,
    Karamell, Minze, Kaffee'. Rulings: 'A roll: quantity dice (faces 1-5 and a star joker)
    and ingredient dice ...; machine dice and special dice'. Each kind is a six-sided die:
    over many rolls every face of it turns up, about equally often, and the roll has the
    rulebook's number of that kind."""
    totals = Counter[int]()
    for s in first_rolls(6, 300):
        assert sum(dice_of(s, kind)) == full_counts(6)[kind]
        for face, count in enumerate(dice_of(s, kind)):
            totals[face] += count
    assert_fair(+totals, list(range(6)), f"{kind} dice")


def leftovers(game: ChocolateFactoryGame, s: FactoryState, ingredient: str) -> None:
    """The roll full, every die of a kind on one face (quantity '1', ingredient dice on
    ``ingredient``, machine and special dice on their first face): what a roll keeping its
    leftovers, or not rolled at all, would show again."""
    count = full_counts(game.num_players)
    set_dice(s, quantity={"1": count["quantity"]}, ingredient={ingredient: count["ingredient"]},
             machine={cp.INGREDIENTS[0]: count["machine"]},
             special={cp.SPECIALS[0]: count["special"]})  # fmt: skip


def test_new_roll_after_a_round_is_a_full_fresh_roll() -> None:
    """'Würfeln: Mengen-Würfel ... und Zutaten-Würfel ... — je so viele, wie mitspielen.
    Dazu ... Geräte-Würfel und gleich viele Sonderzutaten-Würfel'; 'Jeder Wurf kostet
    einen Schritt.' Rulings: 'A roll: quantity dice ... and ingredient dice, as many of each
    as players; machine dice and special dice, 1 each with 2 players, 2 each with 3-4'. The
    next roller rolls all the dice: after a round (one pair taken, the rest left), the new
    roll has n quantity, n ingredient and the full machine and special dice, and none of
    what was left over is kept: across seeds every face of every kind turns up."""
    totals = {kind: Counter[int]() for kind in KINDS}
    for seed in range(100):
        game, s = fresh(3, seed=seed)
        set_station(game, s, 0, 0, "milk")  # Bronze, nothing delivered yet
        ingredient = ingredients_of(game, "milk")[0]
        leftovers(game, s, ingredient)
        rng = random.Random(seed)
        time_left = s.time_left
        game.apply(s, pair(0, ingredient, "1"), rng)  # the roller takes one pair
        game.apply(s, PASS, rng)
        game.apply(s, PASS, rng)
        assert s.roller == 1 and s.pick_index == 0 and s.time_left == time_left - 1
        for kind, want in full_counts(3).items():
            assert sum(dice_of(s, kind)) == want, kind
            totals[kind].update({f: c for f, c in enumerate(dice_of(s, kind)) if c})
    for kind, counts in totals.items():
        assert set(counts) == set(range(6)), f"{kind} dice after a new roll: {dict(counts)}"


def test_reroll_rolls_every_die_anew() -> None:
    """'Bist du mit Würfeln dran und hat noch niemand gewählt, kannst du eine Bewerbung
    einsetzen und alle Würfel neu werfen'. Rulings: 'may spend an application to reroll
    all dice'. Across seeds a reroll changes every kind of die — quantity, ingredient,
    machine and special alike — and the roll stays full."""
    totals = {kind: Counter[int]() for kind in KINDS}
    for seed in range(100):
        game, s = fresh(3, seed=seed)
        leftovers(game, s, cp.INGREDIENTS[0])
        s.apps[0] = 1
        game.apply(s, REROLL, random.Random(seed))
        assert s.apps[0] == 0 and s.pick_index == 0
        for kind, want in full_counts(3).items():
            assert sum(dice_of(s, kind)) == want, kind
            totals[kind].update({f: c for f, c in enumerate(dice_of(s, kind)) if c})
    for kind, counts in totals.items():
        assert set(counts) == set(range(6)), f"{kind} dice after a reroll: {dict(counts)}"


# ---------------------------------------------------------------- dice leave the roll
@pytest.mark.parametrize("kind", ["machine", "special"])
def test_a_taken_machine_or_special_die_leaves_the_roll(kind: str) -> None:
    """'Die anderen: nehmen danach reihum je ein Paar, ein Gerät oder eine Sonderzutat aus
    dem Rest'. Rulings: 'then the others in seat order, each one item from what is left
    ... Whatever is picked is placed legally at once'. A pick takes that one die out of
    the roll (its count drops by one, nothing else changes); when the last one is gone the
    next player cannot take it."""
    game, s = fresh(3)
    variety = "chocolate_cake"  # Gold: a machine per ingredient, and one special
    for p in range(3):
        set_station(game, s, p, 3, variety)
    ingredient, spice = ingredients_of(game, variety)[0], special_of(game, variety)
    set_dice(s, quantity={"1": 3}, ingredient={ingredient: 3}, machine={ingredient: 2},
             special={spice: 2})  # fmt: skip
    if kind == "machine":
        action, index = machine(3, ingredient), DM + I[ingredient]
    else:
        action, index = special(3, spice), DS + cp.SPECIALS.index(spice)
    rng = random.Random(0)
    before = s.dice[:]
    game.apply(s, action, rng)  # player 0, the roller
    expected = before[:]
    expected[index] -= 1
    assert s.dice == expected
    game.apply(s, action, rng)  # player 1 takes the last one
    expected[index] -= 1
    assert s.dice == expected and game.current_player(s) == 2
    refused(game, s, action)  # player 2: none is left
