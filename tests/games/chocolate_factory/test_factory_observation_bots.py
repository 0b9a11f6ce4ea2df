"""Chocolate Factory: observation, records, determinize, greedy bot."""

from __future__ import annotations

import random

import numpy as np
import pytest

from choco_envs.bots.chocolate_factory.greedy import greedy_action
from choco_envs.core.errors import RecordError
from choco_envs.games.chocolate_factory import ChocolateFactoryGame
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE_VARIETY,
    MACHINE,
    MASTER,
    PACK_BAR,
    PASS,
)

from .factory_helpers import V, fresh, set_dice, set_station, until_over


def station_block(game: ChocolateFactoryGame, obs: np.ndarray, rel: int, station: int):
    part = obs[game.encoders["flat"].layout[f"p{rel}_stations"]]
    return part[station * 28 : station * 28 + 28]


def test_observation_is_relative_to_the_observer() -> None:
    """Observations put the observer's own block first, then the others in seat order."""
    game, s = fresh(3)
    set_station(game, s, 1, 2, "gold_bar", missing={"nuts": 1}, machines=("milk",),
                special=True)  # fmt: skip
    obs = game.observe(s, 1)
    block = station_block(game, obs, 0, 2)
    assert block[V["gold_bar"]] == 1 and block[:9].sum() == 1
    assert list(block[9:15]) == [1, 1, 1, 1, 1, 0]  # machines needed
    assert list(block[15:21]) == [0, 1, 0, 0, 0, 0] and block[21] == 1  # placed, special
    assert block[22 + 3] == pytest.approx(1 / 6)  # nuts missing 1
    cocoa = game.quantities[V["gold_bar"]][0]
    assert block[22 + 0] == pytest.approx(cocoa / 6)  # cocoa: the whole recipe
    from_0 = game.observe(s, 0)
    assert np.array_equal(station_block(game, from_0, 1, 2), block)
    lay = game.encoders["flat"].layout
    assert list(from_0[lay["to_act"]]) == [1, 0, 0] and list(obs[lay["to_act"]]) == [0, 0, 1]


def test_observation_shows_dice_scores_time_and_stays_in_bounds() -> None:
    game, s = fresh(4)
    set_dice(s, quantity={"joker": 4}, ingredient={"fruit": 4}, machine={"nuts": 2})
    enc = game.encoders["flat"]
    rng = random.Random(2)
    obs = game.observe(s, 0)
    assert obs[enc.layout["dice_quantity"]][5] == 1 and obs[enc.layout["dice_machine"]][3] == 1
    for _ in until_over(game, s):
        for p in range(4):
            o = game.observe(s, p)
            assert ((o >= enc.low) & (o <= enc.high)).all()
        acts = game.legal_actions(s)
        game.apply(s, acts[int(rng.random() * len(acts))], rng)
    assert game.observe(s, 0)[enc.layout["p0_status"]][2] == min(game.scores(s)[0] / 200, 1)


def test_determinize_is_an_independent_equal_copy() -> None:
    """All information is public; the future dice come from the caller's rng, so a copy
    is a determinization (Rulings: 'All information is public; only future dice are
    unknown.')."""
    game, s = fresh(3)
    d = game.determinize(s, 1, random.Random(9))
    assert d == s and d is not s
    game.apply(d, PASS, random.Random(0))
    assert d != s and s.pick_index == 0


def test_json_round_trip_and_bad_records() -> None:
    game, s = fresh(4, seed=3)
    rng = random.Random(4)
    for _ in range(60):
        acts = game.legal_actions(s)
        game.apply(s, acts[int(rng.random() * len(acts))], rng)
    record = game.to_json(s)
    assert game.from_json(record) == s
    bad = dict(record, missing=record["missing"][:-1])
    with pytest.raises(RecordError, match="missing"):
        game.from_json(bad)
    with pytest.raises(RecordError, match="phase"):
        game.from_json(dict(record, phase="lunch"))


def test_greedy_beats_random_two_players() -> None:
    """The greedy beginner wins at least 80% against random play (2 players, seats
    alternating)."""
    game = ChocolateFactoryGame(num_players=2)
    rng = random.Random(7)
    wins = 0
    games = 40
    for g in range(games):
        s = game.new_state(rng)
        greedy_seat = g % 2
        for _ in until_over(game, s):
            if game.current_player(s) == greedy_seat:
                a = greedy_action(game, s, rng)
            else:
                acts = game.legal_actions(s)
                a = acts[int(rng.random() * len(acts))]
            game.apply(s, a, rng)
        wins += game.returns(s)[greedy_seat] > 0
    assert wins >= 0.8 * games


def test_greedy_takes_the_finishing_pair_and_needed_machines() -> None:
    """The greedy bot picks the pair that completes most, finishing a variety first."""
    game, s = fresh(2)
    set_station(game, s, 0, 0, "dark", missing={"cocoa": 0, "sugar": 2})
    set_station(game, s, 0, 1, "milk")
    set_dice(s, quantity={"2": 1, "5": 1}, ingredient={"sugar": 1, "milk": 1})
    a = greedy_action(game, s, random.Random(0))
    assert game.action_to_string(s, a) == "pair 2 x sugar -> station 0"


def test_text_render_names_everything() -> None:
    game, s = fresh(2)
    text = game.state_to_string(s, None)
    assert "shift time left 47" in text and "player_1" in text and "package 3: empty" in text
    assert game.state_to_string(s, 0) == text  # everything is public


def reference_observation(game: ChocolateFactoryGame, s, player: int) -> np.ndarray:
    """The flat observation written field by field from the layout's meanings."""
    n, lay = game.num_players, game.encoders["flat"].layout
    out = np.zeros(lay.size, dtype=np.float32)
    out[lay["dice_quantity"]] = [c / n for c in s.dice[0:6]]
    out[lay["dice_ingredient"]] = [c / n for c in s.dice[6:12]]
    out[lay["dice_machine"]] = [c / game.special_dice for c in s.dice[12:18]]
    out[lay["dice_special"]] = [c / game.special_dice for c in s.dice[18:24]]
    for r in range(n):
        p = (player + r) % n
        block = []
        for k in range(p * 4, p * 4 + 4):
            v = s.variety[k]
            needed = game.machine_mask[v] if v >= 0 else 0
            block += [float(v == w) for w in range(9)]
            block += [float(needed >> i & 1) for i in range(6)]
            block += [float(s.placed[k] >> i & 1) for i in range(6)]
            block += [float(s.special[k])]
            block += [m / 6 for m in s.missing[k * 6 : k * 6 + 6]]
        out[lay[f"p{r}_stations"]] = block
        out[lay[f"p{r}_status"]] = [
            s.apps[p] / game.max_apps,
            float(s.apps[p] == game.max_apps),
            min(game.scores(s)[p] / 200, 1),
            s.finished[p] / 40,
            s.storage[p] / 40,
        ]
    packages = []
    for k in range(game.slots):
        pv = s.pkg_variety[k]
        packages += [float(pv == w) for w in range(9)] + [s.pkg_fill[k] / 4, float(pv != -2)]
        packages += [s.pkg_owners[k * n + (player + r) % n] / 4 for r in range(n)]
    out[lay["packages"]] = packages
    out[lay["supply"]] = s.supply_left / game.package_total
    out[lay["shift_time"]] = s.time_left / game.total_rolls
    if not game.is_over(s):
        out[lay["to_act"].start + (game.current_player(s) - player) % n] = 1
        out[lay["phase"].start + s.phase] = 1
        out[lay["reroll_open"]] = float(s.pick_index == 0)
    out[lay["roller"].start + (s.roller - player) % n] = 1
    if s.pending_variety >= 0:
        out[lay["pending_bar"].start + s.pending_variety] = 1
        out[lay["pending_station"].start + s.pending_station] = 1
    if s.phase in (PACK_BAR, CHOOSE_VARIETY):  # who picks after the step: the same player
        out[lay["resume_pick"]] = float(s.resume_pick)  # after the master, else the next
    return out


@pytest.mark.parametrize("players", [2, 5])
def test_observation_matches_the_layout_meanings(players: int) -> None:
    """Every field of the flat observation holds what its layout row says, for every seat,
    through whole random games (packages, storage and finished stations included)."""
    game = ChocolateFactoryGame(num_players=players)
    rng = random.Random(players)
    for _ in range(3):
        s = game.new_state(rng)
        for _ in until_over(game, s):
            for p in range(players):
                assert np.allclose(game.observe(s, p), reference_observation(game, s, p))
            acts = game.legal_actions(s)
            game.apply(s, acts[int(rng.random() * len(acts))], rng)
        for p in range(players):  # and the final position
            assert np.allclose(game.observe(s, p), reference_observation(game, s, p))


@pytest.mark.parametrize("tier", ["bronze", "silver", "gold"])
def test_tier_bot_refills_only_with_its_tier(tier: str) -> None:
    """The fixed-tier strategies of the balance check (Rulings: "check it with bots, head to
    head (always-Bronze against always-Silver, always-Gold and the free greedy bot)"):
    `tier:tier=X` chooses a variety of tier X at every free station, and plays whole games."""
    import choco_envs
    from choco_envs import bots
    from choco_envs.games.chocolate_factory.rules import CHOOSE

    env = choco_envs.make("chocolate_factory_v2", num_players=2)
    env.reset(seed=3)
    bot = bots.make(f"tier:tier={tier}", env_id="chocolate_factory_v2", seed=1)
    game, chosen = env.unwrapped.game, []
    # bounded: a game that never ends fails here rather than hangs
    for agent in env.agent_iter(max_iter=game.max_steps + game.num_players + 1):
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        phase = env.unwrapped.state_.phase
        action = bot.act(env)
        if phase == CHOOSE_VARIETY:
            chosen.append(game.tier[action - CHOOSE])
        env.step(action)
    assert game.is_over(env.unwrapped.state_)
    index = ("bronze", "silver", "gold").index(tier)
    assert chosen and set(chosen) == {index}


def test_tier_bot_refuses_an_unknown_tier() -> None:
    from choco_envs import bots
    from choco_envs.core.errors import ConfigError

    with pytest.raises(ConfigError, match="platinum"):
        bots.make("tier:tier=platinum", env_id="chocolate_factory_v2")


def test_observation_says_who_picks_after_the_variety_choice() -> None:
    """Rulings: the master is hired 'without using their pick', so after she finishes a
    variety her owner picks again; after a normal pick the next seat does. Two reachable
    choose-step states differing only in that must be told apart by every encoder."""
    from .factory_helpers import fresh, set_dice, set_station

    game, s = fresh(2)
    set_station(game, s, 0, 0, "truffle", missing={"cocoa": 0, "butter": 0, "milk": 0},
                machines=("cocoa", "butter"))  # fmt: skip
    s.apps[0] = game.max_apps
    set_dice(s)
    by_master = s.copy()
    game.apply(by_master, MASTER + 0 * 6 + 1, random.Random(0))  # master as the kettle
    by_pick = s.copy()
    set_station(game, by_pick, 0, 0, "truffle", missing={"cocoa": 0, "butter": 0, "milk": 0},
                machines=("cocoa", "butter"))  # fmt: skip
    by_pick.dice[12 + 1] = 1  # a kettle die
    game.apply(by_pick, MACHINE + 0 * 6 + 1, random.Random(0))
    by_pick.apps[0] = 0
    by_pick.masters[0] = 1
    by_pick.dice = by_master.dice[:]
    diff = [n for n in by_pick.__slots__ if getattr(by_pick, n) != getattr(by_master, n)]
    assert diff == ["resume_pick"]
    for name, encoder in game.encoders.items():
        for player in range(2):
            a = np.zeros(encoder.shape, dtype=np.float32)
            b = np.zeros(encoder.shape, dtype=np.float32)
            encoder.fill(by_master, player, a)
            encoder.fill(by_pick, player, b)
            assert not np.array_equal(a, b), name
