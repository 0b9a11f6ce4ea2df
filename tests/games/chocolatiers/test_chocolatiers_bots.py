"""The Chocolatiers bots (``choco_envs/bots/chocolatiers``): ``greedy`` and its settings
(declared, checked, off in the baseline, each doing what it says on played positions),
``tuned``, the tuned settings, which beats the baseline, and ``expert``, which also
exchanges and beats ``tuned``.

Exchanging, the other way to take: "Take 1 card, or discard 1 card then take 2" (the
standard rulebook's take action; classic: lay 1 card on the tray, then take any 2), the
rules' ``K_EXCHANGE`` (``GIVE + type``).

Score tiles, the rule the ``contest`` settings weigh: "A Score tile for a type goes to the
single player with the largest connected group of that type (wilds included); a tie for
the largest means nobody gets it" (the rulings in docs/games/chocolatiers.md)."""

from __future__ import annotations

import random

import pytest

from choco_envs import bots
from choco_envs.arena import run_arena
from choco_envs.bots.chocolatiers import BOTS
from choco_envs.bots.chocolatiers.greedy import (
    BASELINE,
    EXPERT,
    TUNED,
    Weights,
    cards_used,
    expert_action,
    greedy_action,
    groups_after_placing,
    hand_value,
    score_tile_lead,
    tuned_action,
)
from choco_envs.core.errors import ConfigError
from choco_envs.games.chocolatiers import ChocolatiersGame
from choco_envs.games.chocolatiers.rules import (
    BOX,
    BOX_RESERVED,
    CHOOSE,
    GIVE,
    NT,
    PLACE_TILE,
    PLACE_WILD,
    WILD,
    largest_groups,
)

EDITIONS = ("classic", "standard")


def positions(edition: str, games: int = 10, seed: int = 0, players: int = 2):
    """(game, state) along games of mixed baseline, tuned and random moves."""
    game = ChocolatiersGame(edition=edition, num_players=players)
    rng = random.Random(seed)
    for _ in range(games):
        s = game.new_state(rng)
        while not game.is_over(s):
            yield game, s
            r = rng.random()
            if r < 0.4:
                a = greedy_action(game, s, rng)
            elif r < 0.8:
                a = tuned_action(game, s, rng)
            else:
                a = rng.choice(game.legal_actions(s))
            game.apply(s, a, rng)


def placed_lead(game: ChocolatiersGame, s, action: int) -> float:
    """The placing seat's Score tile lead once the pending tile is put by ``action``."""
    return score_tile_lead(game, s, s.player, groups_after_placing(game, s, action))


def placement_score(game: ChocolatiersGame, s, action: int) -> int:
    """The baseline's placement measure: the sum of squared largest groups after it."""
    return sum(g * g for g in groups_after_placing(game, s, action))


def wild_lead_and_growth(game: ChocolatiersGame, s, space: int) -> tuple[float, int]:
    """(Score tile lead, growth of the most-grown group) with a wild on ``space``."""
    cells = s.cells[s.player * 36 : s.player * 36 + 36]
    trial = list(cells)
    trial[space] = WILD
    groups = largest_groups(trial)
    growth = max(g - n for g, n in zip(groups, largest_groups(cells), strict=True))
    return score_tile_lead(game, s, s.player, groups), growth


def used(game: ChocolatiersGame, s, action: int) -> int:
    """Cards a cheapest payment of the tile boxed by ``action`` uses."""
    tile = s.reserved[s.player] if action == BOX_RESERVED else s.display[action - BOX]
    return cards_used(game, s, tile)


def test_settings_are_declared_and_checked() -> None:
    bot = bots.make("greedy:used_cost=1.2,contest=10", env_id="chocolatiers_v1")
    assert bot.options == {"used_cost": 1.2, "contest": 10.0}
    with pytest.raises(ConfigError, match="unknown option 'depth'.*allowed options: used_cost"):
        bots.make("greedy:depth=2", env_id="chocolatiers_v1")
    with pytest.raises(ConfigError, match=r"used_cost='-1' is not allowed.*>= 0"):
        bots.make("greedy:used_cost=-1", env_id="chocolatiers_v1")
    with pytest.raises(ConfigError, match=r"contest='lots' is not allowed.*a number >= 0"):
        bots.make("greedy:contest=lots", env_id="chocolatiers_v1")
    game = ChocolatiersGame(num_players=2)
    s = game.new_state(random.Random(0))
    with pytest.raises(ValueError, match="wild_contest=-0.5 is not allowed"):
        greedy_action(game, s, random.Random(0), wild_contest=-0.5)


@pytest.mark.parametrize("edition", EDITIONS)
def test_baseline_settings_are_the_plain_bot(edition: str) -> None:
    """``greedy`` with the BASELINE values spelled out plays the plain bot's moves."""
    for game, s in positions(edition, games=4):
        seed = s.turn * 100 + len(game.legal_actions(s))
        plain = greedy_action(game, s, random.Random(seed))
        assert greedy_action(game, s, random.Random(seed), **BASELINE) == plain


def test_score_tile_lead_follows_the_single_largest_group_rule() -> None:
    """Own largest group bigger than every other: + that type's Score tile; a single
    other seat bigger: -; a tie for the largest: nobody, 0."""
    game = ChocolatiersGame(num_players=3)
    s = game.new_state(random.Random(0))
    s.groups = [0] * (3 * NT)
    s.groups[1 * NT + 0] = 3  # seat 1: type 0 group of 3
    s.groups[1 * NT + 1], s.groups[2 * NT + 1] = 4, 4  # type 1: seats 1 and 2 tie at 4
    s.groups[2 * NT + 2] = 2  # type 2: seat 2 alone at 2
    mine = [4, 2, 2, 0, 0, 1]
    # type 0: 4 > 3 wins; type 1: 2 < 4 but the 4s tie, nobody; type 2: 2 = 2 tie, nobody;
    # type 5: 1 > 0 wins
    assert score_tile_lead(game, s, 0, mine) == game.type_score[0] + game.type_score[5]
    mine = [2, 0, 1, 0, 0, 0]
    # type 0: seat 1 alone ahead; type 2: seat 2 alone ahead
    assert score_tile_lead(game, s, 0, mine) == -game.type_score[0] - game.type_score[2]


@pytest.mark.parametrize("edition", EDITIONS)
def test_contest_places_tiles_for_score_tiles(edition: str) -> None:
    """With ``contest`` far above the group measure the tile goes where the seat's Score
    tile lead is largest; the baseline ignores it, and does worse somewhere."""
    seen = differ = 0
    for game, s in positions(edition):
        if s.phase != PLACE_TILE or len(game.legal_actions(s)) < 2:
            continue
        legal = game.legal_actions(s)
        best = max(placed_lead(game, s, a) for a in legal)
        pick = greedy_action(game, s, random.Random(0), contest=1e6)
        plain = greedy_action(game, s, random.Random(0))
        assert placed_lead(game, s, pick) == best
        assert placement_score(game, s, plain) == max(placement_score(game, s, a) for a in legal)
        seen += 1
        differ += placed_lead(game, s, plain) < best
    assert seen > 20 and differ > 0


@pytest.mark.parametrize("edition", EDITIONS)
def test_wild_contest_chooses_the_wild_space_for_score_tiles(edition: str) -> None:
    """With a huge ``wild_contest``, a wild the bot places goes, among the spaces that
    grow a group, where its Score tile lead is largest."""
    seen = 0
    for game, s in positions(edition, games=16):
        if s.phase != CHOOSE:
            continue
        pick = greedy_action(game, s, random.Random(0), wild_contest=1e6)
        if not PLACE_WILD <= pick < PLACE_WILD + 36:
            continue
        spaces = [
            a - PLACE_WILD for a in game.legal_actions(s) if PLACE_WILD <= a < PLACE_WILD + 36
        ]
        growing = [i for i in spaces if wild_lead_and_growth(game, s, i)[1] > 0]
        best = max(wild_lead_and_growth(game, s, i)[0] for i in growing)
        assert wild_lead_and_growth(game, s, pick - PLACE_WILD)[0] == best
        seen += 1
    assert seen > 5


@pytest.mark.parametrize("edition", EDITIONS)
def test_used_cost_boxes_the_tile_worth_most_after_its_cards(edition: str) -> None:
    """The bot boxes the tile with the most "points - used_cost x cards a cheapest
    payment uses": with a huge ``used_cost``, the tile that uses fewest cards."""
    seen = 0
    for game, s in positions(edition, games=16):
        legal = game.legal_actions(s)
        boxes = [a for a in legal if BOX <= a <= BOX_RESERVED]
        if s.phase != CHOOSE or len(boxes) < 2:
            continue
        pick = greedy_action(game, s, random.Random(0), used_cost=1e3)
        assert used(game, s, pick) == min(used(game, s, a) for a in boxes)
        seen += 1
    assert seen > 3


def test_the_kinds_are_greedy_then_tuned_then_expert() -> None:
    """Issue 21: "greedy" first, the beginner baseline; the tuned and the expert settings
    are their own kinds, ``tuned`` and ``expert``, which take no settings."""
    assert list(BOTS) == ["greedy", "tuned", "expert"]
    assert sorted(BOTS["greedy"].options) == sorted(BASELINE)
    for kind in ("tuned", "expert"):
        with pytest.raises(ConfigError, match=f"unknown option 'contest' for {kind}"):
            bots.make(f"{kind}:contest=1", env_id="chocolatiers_v1")
    assert EXPERT == {**TUNED, "missing_cost": 4.0, "exchange": 1.0}
    for game, s in positions("standard", games=2, players=3):
        seed = len(game.legal_actions(s))
        assert tuned_action(game, s, random.Random(seed)) == greedy_action(
            game, s, random.Random(seed), **TUNED
        )
        assert expert_action(game, s, random.Random(seed)) == greedy_action(
            game, s, random.Random(seed), **EXPERT
        )


def test_exchange_setting_is_off_or_a_number() -> None:
    """``exchange`` is ``off`` (the baseline: never exchange) or a number >= 0; anything
    else is refused with what is allowed."""
    assert bots.make("greedy:exchange=off", env_id="chocolatiers_v1").options == {"exchange": None}
    assert bots.make("greedy:exchange=1.5", env_id="chocolatiers_v1").options == {"exchange": 1.5}
    for bad in ("-1", "sometimes", "inf"):
        with pytest.raises(ConfigError, match=rf"exchange='{bad}' is not allowed.*off or"):
            bots.make(f"greedy:exchange={bad}", env_id="chocolatiers_v1")


def exchange_then_takes(game: ChocolatiersGame, s, give: int) -> float:
    """The seat's hand value (``hand_value`` with EXPERT's costs) once it gives by
    ``give`` and then takes twice as the bot itself takes, every step the rules' own
    ``apply`` on a copy."""
    w = Weights(EXPERT["used_cost"], EXPERT["missing_cost"])
    after = game.copy(s)
    rng = random.Random(0)
    game.apply(after, give, rng)
    p = s.player
    for _ in range(2):
        if after.player != p or after.phase == CHOOSE or game.is_over(after):
            break
        game.apply(after, greedy_action(game, after, rng, **EXPERT), rng)
    return hand_value(game, s, after.hand[p * NT : p * NT + NT], w)


@pytest.mark.parametrize("edition", EDITIONS)
def test_exchange_gives_a_card_only_when_its_two_takes_are_worth_it(edition: str) -> None:
    """With ``exchange=off`` the bot never exchanges; with a margin m it exchanges only
    when the hand after the exchange and the two takes it then makes is worth more than
    the hand after its best single take less m (so with a huge m, whenever it would take
    and may exchange)."""
    w = Weights(EXPERT["used_cost"], EXPERT["missing_cost"])
    exchanged = declined = always = 0
    for game, s in positions(edition, games=8, players=3):
        legal = game.legal_actions(s)
        gives = [a for a in legal if GIVE <= a < GIVE + NT]
        if s.phase != CHOOSE or not gives:
            continue
        rng_seed = len(legal)
        off = greedy_action(game, s, random.Random(rng_seed), **{**EXPERT, "exchange": None})
        assert not GIVE <= off < GIVE + NT
        if off >= GIVE:  # it boxes, places a wild or passes: exchanging is not weighed
            continue
        p = s.player
        hand = s.hand[p * NT : p * NT + NT]
        hand[off] += 1
        take_value = hand_value(game, s, hand, w)
        pick = greedy_action(game, s, random.Random(rng_seed), **EXPERT)
        if GIVE <= pick < GIVE + NT:
            assert exchange_then_takes(game, s, pick) > take_value - EXPERT["exchange"]
            exchanged += 1
        else:
            assert pick == off
            assert all(
                exchange_then_takes(game, s, a) <= take_value - EXPERT["exchange"] for a in gives
            )
            declined += 1
        huge = greedy_action(game, s, random.Random(rng_seed), **{**EXPERT, "exchange": 1e6})
        assert GIVE <= huge < GIVE + NT
        always += 1
    assert exchanged > 3 and declined > 3 and always > 6


def test_expert_beats_tuned() -> None:
    """``expert`` wins more than half its games against ``tuned`` over 200 duplicate-deal
    games (docs/games/chocolatiers.md, "Bots", has the figures at every table)."""
    report = run_arena(
        "chocolatiers_v1", ["expert", "tuned"], players=2, games=200, seed=3,
        env_options={"edition": "standard"}, progress=False,
    )  # fmt: skip
    assert report["bots"][0]["win_rate"] > 0.5


def test_tuned_beats_the_baseline() -> None:
    """``tuned`` wins more than half its games against ``greedy`` over 200 duplicate-deal
    games (measured at about 60% over 2,000 games per edition: far from the line)."""
    report = run_arena(
        "chocolatiers_v1", ["tuned", "greedy"], players=2, games=200, seed=3,
        env_options={"edition": "classic"}, progress=False,
    )  # fmt: skip
    assert report["bots"][0]["win_rate"] > 0.5


@pytest.mark.parametrize("edition", EDITIONS)
def test_greedy_beats_random(edition: str) -> None:
    """``greedy``, the beginner baseline, beats random play in 2-player games."""
    report = run_arena(
        "chocolatiers_v1", ["greedy", "random"], players=2, games=20, seed=5,
        env_options={"edition": edition}, progress=False,
    )  # fmt: skip
    assert report["bots"][0]["win_rate"] >= 0.8
