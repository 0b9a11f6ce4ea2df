"""Chocolatiers: Score tiles and final scoring, as the rulebooks and the rulings in docs/games/chocolatiers.md state."""

from __future__ import annotations

from choco_envs.games.chocolatiers.rules import (
    BOX,
    EMPTY,
    PLACE_WILD,
    RESERVE,
    WILD,
    largest_groups,
)

from .helpers import N, V, box, box_tile, draw_sampler, fresh, grid, groups, put_in_line, set_hand

KIRA = ["MNMMVB", "*NMMTV", "TNMBVB", "TNN*V.", "      ", "      "]
DAVID = ["TBVTVR", "BBVTNT", "TVBTRV", ".B.T.V", "      ", "      "]
#: (tile, position (row, col) relative to the Sampler as it stands, rotation) in the
#: order boxed. Kira starts at what ends as the bottom-right corner and builds left, then
#: up (every placement order is allowed), so her first tile ends at an end of a long side.
KIRA_TILES = [
    (3, 0, 0, 1),
    (32, 0, -1, 1),
    (16, 0, -1, 0),
    (20, -1, 0, 2),
    (13, 0, 1, 2),
    (30, 0, 2, 2),
]
DAVID_TILES = [
    (23, 0, 0, 1),
    (18, 0, 1, 2),
    (34, 0, 2, 1),
    (11, 1, 0, 0),
    (4, 1, 1, 0),
    (5, 1, 2, 1),
]
#: Kira's wilds: after her 2nd tile (space 7 then, row 3 col 3 at the end), after her 5th
KIRA_WILDS = {1: 7, 4: 6}


def test_kira_scores_43_with_all_three_wilds_accounted_for() -> None:
    """Rulebook 000, Final Scoring: "Kira was awarded 3 Score tiles. One for most
    connected Nut Cluster chocolates with 7, worth 5 points. One for most connected Mint
    chocolates with 5, worth 4 points. And one for most connected Violet chocolates with
    3, worth 3 points. She also has 1 Wild Chocolate token that she did not place ...
    Kira's final score is 5 + 4 + 3 + 1 + 30 Box tile points = 43 points."

    Played through the rules with every card counted: David (seat 0) and Kira (seat 1)
    box a tile each turn; Kira places 2 of her 3 wilds (the 3rd is the 1 point). David
    places his 6th tile first and takes First; Kira then has her last turn.

        Kira: 30 tile points    David: 27 tile points
        MNMMVB                  TBVTVR
        *NMMTV                  BBVTNT
        TNMBVB                  TVBTRV
        TNN*V.                  .B.T.V

    Kira's nut cluster 7 is 5 nut clusters and both wilds, her violet 3 is 2 violets and
    a wild, against David's 2: the rulings, "wilds count in the size of the groups they
    join" (without the wild, violet would tie 2 to 2 and go to nobody)."""
    game, s, rng = fresh()
    for turn in range(6):
        for seat, tiles in ((0, DAVID_TILES), (1, KIRA_TILES)):
            assert s.player == seat and s.actions_left == 2 and not s.over
            tile, row, col, rotation = tiles[turn]
            box_tile(game, s, rng, tile, row, col, rotation)
            if seat == 1 and turn in KIRA_WILDS:
                game.apply(s, PLACE_WILD + KIRA_WILDS[turn], rng)
            else:
                game.apply(s, next(t for t in range(6) if s.tray[t]), rng)
    assert s.over and s.first == 0
    assert grid(s, 1) == KIRA and grid(s, 0) == DAVID
    assert s.wilds == [3, 1] and s.points == (27, 30)
    kira = sorted(name for name, seat in game.score_tile_winners(s).items() if seat == 1)
    assert kira == ["mint", "nut_cluster", "violet"]
    assert (groups(s, 1)["nut_cluster"], groups(s, 1)["mint"], groups(s, 1)["violet"]) == (7, 5, 3)
    assert groups(s, 0)["violet"] == 2
    without_wilds = [EMPTY if v == WILD else v for v in s.cells[36:72]]
    assert largest_groups(without_wilds)[V] == 2 and largest_groups(without_wilds)[N] == 5
    b = game.score_breakdown(s)
    assert b["score_tiles"][1] == 5 + 4 + 3 and b["wilds"][1] == 1
    assert b["total"][1] == 43 and game.scores(s)[1] == 43
    assert game.to_json(game.from_json(game.to_json(s))) == game.to_json(s)  # a real state


def test_score_tile_tie_goes_to_nobody() -> None:
    """Rulebook 000: "If there is a tie for the largest number of connected chocolates of
    a given type, then no player is awarded the Score tile." Both have raspberry 4."""
    game, s, rng = fresh()
    draw_sampler(s, 0, ["RRRR..", "TT....", "      ", "      ", "      ", "      "])
    draw_sampler(s, 1, ["RR....", "RR.T..", "      ", "      ", "      ", "      "])
    winners = game.score_tile_winners(s)
    assert winners["raspberry"] == -1
    assert winners["truffle"] == 0  # 2 against 1


def test_a_score_tile_everyone_would_win_with_0_goes_to_nobody() -> None:
    """Rulings: "A Score tile that every player would win with 0 goes to nobody." With
    one player on 0 and the others on nothing, nobody has mint."""
    game, s, rng = fresh(players=3)
    draw_sampler(s, 0, ["RR....", "      ", "      ", "      ", "      ", "      "])
    winners = game.score_tile_winners(s)
    assert winners["mint"] == -1 and winners["three_or_four"] == -1
    assert winners["raspberry"] == 0


def test_three_or_four_tile_majority() -> None:
    """Rulebook 000: "There is 1 Score tile that is awarded to the player who has the
    most Box tiles that have point values of "3" and "4" in their Sampler. ... If there is
    a tie for most, then no player is awarded the Score tile." Classic has no such tile."""
    game, s, rng = fresh()
    put_in_line(s, 0, 2)  # "T.RR 3"
    set_hand(s, 0, "T1 R2")
    box(game, s, rng, BOX + 0)
    put_in_line(s, 1, 17)  # "TNNN 5": not a 3 or 4
    set_hand(s, 0, "T1 N3")
    box(game, s, rng, BOX + 1, 0, 1)
    assert s.n34 == (1, 0)
    assert game.score_tile_winners(s)["three_or_four"] == 0
    s.n34 = (1, 1)
    assert game.score_tile_winners(s)["three_or_four"] == -1
    classic, cs, _ = fresh("classic")
    assert "three_or_four" not in classic.score_tile_winners(cs)


def test_unplaced_wilds_score_1_but_not_placed_or_locked_ones() -> None:
    """Rulebook 000: "Add 1 point for every Wild Chocolate token that was not placed in
    your Sampler or currently on a reserved Box tile." Rulings: "A reserved tile still
    unboxed at the end scores nothing, nor does its wild." """
    game, s, rng = fresh()
    assert game.score_breakdown(s)["wilds"] == [3, 3]
    game.apply(s, RESERVE + 0, rng)
    b = game.score_breakdown(s)
    assert b["wilds"][0] == 2 and b["box_tiles"][0] == 0


def test_tie_on_points_most_score_tiles_wins_then_shared() -> None:
    """Rulebook 000: "In the event of a tie, the tied player with the most Score tiles
    wins. If still tied, all tied players share the victory!" Seat 0: tiles 10 + truffle
    3 + First 3 = 16 with 2 Score tiles; seat 1: 16 tile points and none."""
    game, s, rng = fresh()
    draw_sampler(s, 0, ["TT....", "      ", "      ", "      ", "      ", "      "])
    s.points = [10, 16]
    s.wilds = [0, 0]
    s.first = 0
    assert game.scores(s) == [16, 16]
    assert game.returns(s) == [1.0, -1.0]
    s.first = -1
    s.points = [13, 16]
    draw_sampler(s, 1, ["MM....", "      ", "      ", "      ", "      ", "      "])
    assert game.scores(s) == [16, 20]
    s.points = [17, 13]
    assert game.scores(s) == [20, 17]
    s.points = [13, 12]  # 16 each, one Score tile each
    assert game.scores(s) == [16, 16]
    assert game.returns(s) == [0.0, 0.0]


def test_classic_score_cards_are_first_and_the_six_types() -> None:
    """the rulings (classic): "7 Score cards (First and the six types). No reserve, no
    3-or-4 card." """
    game, s, rng = fresh("classic")
    assert [name for name, _ in game.components.score_tiles] == [
        "truffle",
        "nut_cluster",
        "raspberry",
        "mint",
        "blueberry",
        "violet",
        "first",
    ]
    assert game.majority_score is None


def test_scores_read_only_public_information_so_the_env_shows_them_mid_game() -> None:
    """Rulings: only the dealt cards and the stack orders are private; the Samplers, wilds
    and Score tiles are public, so a score is the same on every seat's determinization."""
    import random

    import choco_envs

    env = choco_envs.make("chocolatiers_v1")
    env.reset(seed=2)
    rng = random.Random(1)
    for _ in range(60):
        env.step(rng.choice(env.unwrapped.legal_actions()))
    raw = env.unwrapped
    assert raw.game.scores_public
    for seat in range(raw.game.num_players):
        for _ in range(5):
            other = raw.game.determinize(raw.state_, seat, rng)
            assert raw.game.scores(other) == raw.game.scores(raw.state_)
    assert raw.scores() == raw.game.scores(raw.state_)
