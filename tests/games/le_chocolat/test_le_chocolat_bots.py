"""Le Chocolat bots (``choco_envs/bots/le_chocolat``): ``greedy``, the beginner baseline,
and ``alphabeta:depth=N``. They score hands by the rules' ``score_hand``, see only their
seat's view, and the search keeps its caches in the bot."""

from __future__ import annotations

import random

import numpy as np
import pytest

import choco_envs
from choco_envs import bots
from choco_envs.bots.base import AgentView, HeuristicBot
from choco_envs.bots.le_chocolat import BOTS, alphabeta
from choco_envs.bots.le_chocolat.alphabeta import (
    MAX_DEPTH,
    VALUE_WINDOW,
    AlphaBetaBot,
    Lookahead,
    action_values,
    teaching_policy,
    turn_moves,
    view_key,
)
from choco_envs.bots.le_chocolat.greedy import (
    MAJORITY_MARGIN,
    Beliefs,
    card_value,
    greedy_action,
    lead,
    split_value,
)
from choco_envs.core.errors import ConfigError
from choco_envs.games.le_chocolat import LeChocolatGame, LeChocolatState
from choco_envs.games.le_chocolat.rules import CLAIM, OVER, SPLIT, score_hand

from .helpers import claim, fresh, place_face_up, play, split, table, vertical
from .test_le_chocolat_hidden import swap_unseen

ENV_ID = "le_chocolat_v0"


def positions(games: int, seed: int, skip: int = 0):  # type: ignore[no-untyped-def]
    """Positions of games half greedy, half random, from the ``skip``-th decision on."""
    game = LeChocolatGame()
    rng = random.Random(seed)
    for _ in range(games):
        s = game.new_state(rng)
        step = 0
        while not game.is_over(s):
            if step >= skip:
                yield game, s
            legal = game.legal_actions(s)
            a = greedy_action(game, s, rng) if rng.random() < 0.5 else rng.choice(legal)
            game.apply(s, a, rng)
            step += 1


# ---------------------------------------------------------------- the kinds
def test_the_kinds_are_greedy_first_then_alphabeta() -> None:
    """Issue 21: "greedy" first, the beginner baseline; the lookahead is an alpha-beta bot
    named for what it is; a kind that keeps state between moves gives ``make``."""
    assert list(BOTS) == ["greedy", "alphabeta"]
    assert BOTS["greedy"].policy is greedy_action and not BOTS["greedy"].options
    assert BOTS["alphabeta"].make is not None and list(BOTS["alphabeta"].options) == [
        "depth",
        "temperature",
    ]
    assert isinstance(bots.make("greedy", env_id=ENV_ID), HeuristicBot)
    bot = bots.make("alphabeta", env_id=ENV_ID, seed=0)
    assert isinstance(bot, AlphaBetaBot) and bot.depth == 3
    assert bots.make("alphabeta:depth=2", env_id=ENV_ID).depth == 2  # type: ignore[attr-defined]


def test_bad_settings_are_refused_naming_the_allowed_ones() -> None:
    """``greedy`` has no setting any more (its depth setting became ``alphabeta``);
    ``alphabeta:depth`` is an integer 1..4."""
    with pytest.raises(
        ConfigError, match="unknown option 'depth' for greedy.*allowed options: none"
    ):
        bots.make("greedy:depth=3", env_id=ENV_ID)
    for bad in ("0", str(MAX_DEPTH + 1), "two", "1.5"):
        with pytest.raises(ConfigError, match=r"depth=.*allowed: an integer 1\.\.4"):
            bots.make(f"alphabeta:depth={bad}", env_id=ENV_ID)
    with pytest.raises(ConfigError, match="unknown option 'width' for alphabeta"):
        bots.make("alphabeta:width=2", env_id=ENV_ID)
    for bad in ("0", "-1", "11", "warm"):
        with pytest.raises(ConfigError, match=r"temperature=.*allowed: a number of VP > 0"):
            bots.make(f"alphabeta:temperature={bad}", env_id=ENV_ID)
    game = LeChocolatGame()
    with pytest.raises(ValueError, match=r"depth=0 .*allowed: an integer 1\.\.4"):
        action_values(game, game.new_state(random.Random(0)), 0)
    with pytest.raises(ValueError, match="depth=True"):
        AlphaBetaBot(depth=True)  # type: ignore[arg-type]


# ---------------------------------------------------------------- one scoring rule
def test_the_bots_score_hands_by_the_rules() -> None:
    """Issue 21: "one scoring function in rules.py that every caller uses". On whole
    counts (every tile known) the bots' card value is the rules' ``score_hand`` total on
    every card, and their lead is the difference of the two seats' rules totals; the
    majority margin matters only for expected counts."""
    game = LeChocolatGame()
    rng = random.Random(0)
    n = len(game.components.flavors)
    for card in game.components.cards:
        for _ in range(200):
            mine = [rng.randrange(0, 5) for _ in range(n)]
            theirs = [rng.randrange(0, 5) for _ in range(n)]
            rules_mine = sum(score_hand(card, mine, theirs))
            rules_theirs = sum(score_hand(card, theirs, mine))
            assert card_value(card, mine, theirs) == rules_mine
            assert lead(card, mine, theirs) == rules_mine - rules_theirs
    example = game.components.cards[0]  # raspberry majority 5 VP
    r = game.components.flavors.index("raspberry")
    near_tie = [0.0] * n
    near_tie[r] = 2.1
    behind = [0.0] * n
    behind[r] = 2.0
    assert score_hand(example, near_tie, behind).majority == 5  # the rule: strictly more
    assert 2.1 <= 2.0 + MAJORITY_MARGIN and card_value(example, near_tie, behind) == 0


def test_the_bots_value_of_a_finished_game_is_its_score() -> None:
    """At the end every tile is known to both seats: the bots' lead for each seat is the
    difference of the game's own scores, blank/blank tiles discarded."""
    for g in range(20):
        game = LeChocolatGame()
        rng = random.Random(g)
        s = game.new_state(rng)
        while not game.is_over(s):
            game.apply(s, rng.choice(game.legal_actions(s)), rng)
        scores = game.scores(s)
        for seat in (0, 1):
            beliefs = Beliefs(game, s, seat)
            mine, theirs = beliefs.hand(s, seat), beliefs.hand(s, 1 - seat)
            assert mine == [float(k) for k in game.hand_counts(s, seat)]
            assert lead(game.card(s), mine, theirs) == scores[seat] - scores[1 - seat]


def test_beliefs_value_unseen_tiles_as_the_average_of_the_unseen() -> None:
    """A tile the seat has not seen counts as the average of the tiles it has not seen
    (``rules.unseen``: blank faces on the table and in the opponent's hand, and the boxed
    tile when it shows a blank face); a seen tile as its flavor, a known blank/blank as 0."""
    game = LeChocolatGame(scoring_card=0)
    for _, s in positions(games=2, seed=8, skip=10):
        seat = s.player
        beliefs = Beliefs(game, s, seat)
        cells, pool = game.unseen(s, seat)
        for c in range(35):
            vec = beliefs.cell[c]
            if c in cells:
                want = [pool.count(f) / len(pool) for f in range(6)]
                assert vec == pytest.approx(want)
            elif s.flavor[c] >= 0:
                assert vec == [float(f == s.flavor[c]) for f in range(6)]
            else:
                assert vec == [0.0] * 6


# ---------------------------------------------------------------- greedy
def test_greedy_claims_the_best_chunk_by_the_card() -> None:
    """The greedy bot "claims the chunk that most raises its lead": with three small
    chunks, of face-up pistachios (-2 each), cashews (+2 each) and almonds (+1 each), it
    takes the cashews."""
    game = LeChocolatGame(scoring_card=0)
    s = table(game, [("a1", 1, 4), ("a2", 1, 2)])
    tiles = {"a1": "pistachio", "b1": "pistachio", "c1": "cashew", "d1": "cashew"}
    place_face_up(game, s, {**tiles, "a2": "almond", "b2": "almond"})
    play(game, s, split("a1", vertical("b")))
    choice = greedy_action(game, game.determinize(s, 0, random.Random(0)), random.Random(0))
    assert choice == claim("c1")


def test_greedy_ignores_what_its_seat_cannot_see() -> None:
    """Bots never see hidden information: determinizations from the bot's own view give
    the same choice under the same random stream."""
    game = LeChocolatGame(scoring_card=0)
    rng = random.Random(3)
    s = fresh(game, 3)
    for _ in range(12):
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    seat = s.player
    choices = {
        greedy_action(game, game.determinize(s, seat, random.Random(k)), random.Random(0))
        for k in range(5)
    }
    assert len(choices) == 1 and choices <= set(game.legal_actions(s))


def test_greedy_beats_random_in_80_percent_of_games() -> None:
    """The greedy bot must beat a uniformly random player in at least 80% of games, seats
    alternating and scoring cards drawn at random."""
    game = LeChocolatGame()
    wins = 0
    for g in range(40):
        rng = random.Random(g)
        s, bot = game.new_state(rng), g % 2
        while not game.is_over(s):
            if s.player == bot:
                action = greedy_action(game, game.determinize(s, bot, rng), rng)
            else:
                action = rng.choice(game.legal_actions(s))
            game.apply(s, action, rng)
        wins += game.returns(s)[bot] > 0
    assert wins >= 32


# ---------------------------------------------------------------- alphabeta
def minimax(search: Lookahead, game: LeChocolatGame, s: LeChocolatState, depth: int) -> float:
    """The plain minimax value (no pruning) the alpha-beta search must reproduce."""
    if depth == 0 or s.phase == OVER:
        return search.static(s)
    values = [minimax(search, game, u, depth - 1) for _, u in search.moves(s)]
    return max(values) if s.player == search.seat else min(values)


def plain_values(game: LeChocolatGame, s: LeChocolatState, depth: int) -> dict[int, float]:
    search = Lookahead(game, s, s.player)
    out: dict[int, float] = {}
    if s.phase == CLAIM:
        moves = []
        for b in game.legal_actions(s):
            u = s.copy()
            game.apply(u, b, random.Random(0))
            moves.append((b, u))
    else:
        moves = turn_moves(game, s, random.Random(0))
    for a, u in moves:
        out[a] = max(out.get(a, -float("inf")), minimax(search, game, u, depth - 1))
    return out


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alpha_beta_values_match_plain_minimax_within_the_window(depth: int) -> None:
    """Every action whose value is within VALUE_WINDOW of the best gets its exact
    minimax value; the others are proved at least that far below the best."""
    checked = 0
    for game, s in positions(games=3, seed=depth, skip=14):
        if depth == 3 and checked >= 6:
            break  # depth 3 without pruning is slow: a few late positions suffice
        fast, plain = action_values(game, s, depth), plain_values(game, s, depth)
        assert fast.keys() == plain.keys() == set(game.legal_actions(s))
        top = max(plain.values())
        assert max(fast.values()) == pytest.approx(top)
        for a, v in plain.items():
            if v >= top - VALUE_WINDOW + 1e-6:
                assert fast[a] == pytest.approx(v), (a, fast[a], v)
            else:
                assert fast[a] <= top - VALUE_WINDOW + 1e-6
        checked += 1
    assert checked >= 6


def test_depth_one_scores_splits_like_the_greedy_bot() -> None:
    """Depth 1 is the greedy bot's own lookahead: for every split that ends the turn (no
    choice of claim), its value differs from ``greedy.split_value`` by one constant (the
    search counts the tile bonus on all tiles claimed so far, greedy on those gained)."""
    rng = random.Random(0)
    tested = 0
    for game, s in positions(games=4, seed=11):
        if s.phase != SPLIT:
            continue
        seat = s.player
        beliefs = Beliefs(game, s, seat)
        mine, theirs = beliefs.hand(s, seat), beliefs.hand(s, 1 - seat)
        values = action_values(game, s, 1)
        offsets = []
        for a in game.legal_actions(s):
            t = s.copy()
            game.apply(t, a, random.Random(0))
            if t.phase == CLAIM and t.player == seat:
                continue
            greedy = split_value(game, game.card(s), beliefs, s, a, mine, theirs, rng)
            offsets.append(values[a] - greedy)
        if offsets:
            assert max(offsets) - min(offsets) < 1e-9
            tested += 1
    assert tested >= 20


@pytest.mark.parametrize("depth", [2, 3])
def test_alphabeta_plays_a_best_searched_action(depth: int) -> None:
    bot = AlphaBetaBot(depth=depth, seed=0)
    for n, (game, s) in enumerate(positions(games=2, seed=20 + depth)):
        if n % 3:
            continue
        values = action_values(game, s, depth)
        a = bot.choose(game, s, random.Random(n))
        assert values[a] == pytest.approx(max(values.values()))


@pytest.mark.parametrize("temperature", [0.25, 1.0])
def test_the_teaching_policy_is_a_softmax_of_the_exact_values(temperature: float) -> None:
    """What ``alphabeta`` teaches (soft imitation): softmax of its action values over
    ``temperature`` among the actions within VALUE_WINDOW of the best (the values the
    search makes exact), nothing on the others, nothing on illegal actions; its play is
    the same as without the setting, and the action it names is one it plays."""
    bot = bots.make(f"alphabeta:depth=2,temperature={temperature}", env_id=ENV_ID, seed=5)
    plain = bots.make("alphabeta:depth=2", env_id=ENV_ID, seed=5)
    checked = 0
    for n, (game, s) in enumerate(positions(games=2, seed=40)):
        if n % 4 or len(game.legal_actions(s)) < 3:
            continue
        view = AgentView(game, s, s.player, game.observe(s, s.player), game.legal_mask(s))
        values = action_values(game, s, 2)
        top = max(values.values())
        action, policy = bot.policy_view(view)  # type: ignore[attr-defined]
        assert values[action] == pytest.approx(top)
        assert policy.sum() == pytest.approx(1.0)
        assert not policy[~game.legal_mask(s)].any()
        near = [a for a, v in values.items() if v > top - VALUE_WINDOW]
        far = [a for a, v in values.items() if v <= top - VALUE_WINDOW]
        assert not policy[far].any() and (policy[near] > 0).all()
        for a in near:  # the ratio to the best action's weight is exp(value gap / T)
            best = max(near, key=lambda b: values[b])
            assert policy[a] / policy[best] == pytest.approx(
                np.exp((values[a] - values[best]) / temperature), rel=1e-5
            )
        assert plain.act_view(view) in [a for a in near if values[a] == pytest.approx(top)]
        checked += 1
    assert checked >= 4
    forced = {7: 1.5}
    np.testing.assert_array_equal(teaching_policy(forced, 9, 0.5), np.eye(9)[7])


def test_search_never_reads_a_tile_the_seat_has_not_seen() -> None:
    """the rulings in docs/games/le_chocolat.md: a player never sees "the opponent's hidden sides nor those still on the
    table". Swapping two such tiles changes neither the view the bot caches under nor any
    searched value."""
    checked = 0
    for game, s in positions(games=4, seed=31, skip=16):
        if checked >= 6:
            break
        seat = s.player
        try:
            t = swap_unseen(s, seat)
        except AssertionError:
            continue
        assert view_key(game, s, seat, 3) == view_key(game, t, seat, 3)
        assert view_key(game, s, seat, 3) != view_key(game, s, 1 - seat, 3)
        assert action_values(game, t, 2) == action_values(game, s, 2)
        checked += 1
    assert checked >= 4


def test_the_search_cache_lives_in_the_bot() -> None:
    """Issue 21: "the search's caches live in the bot instance" (no module-level mutable
    cache): a bot fills its own cache, another bot's stays empty, a reset forgets it, and
    the module holds no dict, list or set."""
    env = choco_envs.make(ENV_ID, scoring_card=0)
    env.reset(seed=4)
    first, second = AlphaBetaBot(depth=2, seed=1), AlphaBetaBot(depth=2, seed=1)
    action = first.act(env)
    assert len(first.cache) == 1 and not second.cache
    assert second.act(env) == action
    first.reset(seed=1)
    assert not first.cache
    mutable = [
        k
        for k, v in vars(alphabeta).items()
        if not k.startswith("__") and isinstance(v, (dict, list, set))
    ]
    assert not mutable, mutable


def test_alphabeta_plays_whole_games_in_the_env() -> None:
    """Through the registry and the env: legal moves only, to the end."""
    env = choco_envs.make(ENV_ID)
    env.reset(seed=9)
    players = [bots.make("alphabeta:depth=2", env_id=ENV_ID, seed=2), bots.make("greedy", seed=3)]
    steps = 0
    while not any(env.unwrapped.terminations.values()):
        seat = env.unwrapped.agent_name_mapping[env.agent_selection]
        env.step(players[seat].act(env))
        steps += 1
    assert steps <= env.unwrapped.game.max_steps
    assert np.isfinite(env.unwrapped.scores()).all()
