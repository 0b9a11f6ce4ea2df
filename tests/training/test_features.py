"""Feature functions: extra policy inputs computed from the observation alone, named and
versioned in the checkpoint, applied the same way by the trainer, imitation, evaluation
and the policy bot."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from choco_envs.core.errors import CheckpointError, ConfigError
from choco_envs.policy import features
from choco_envs.policy.features import FeatureFunction, Features, PolicyInputs
from choco_envs.registry import make_game
from tests.training.toy_nim import ENV_ID

TINY = dict(
    env_id=ENV_ID, options={"stones": 13}, total_timesteps=300, num_envs=4, num_steps=8,
    hidden=(16,), eval_every=0, final_eval_games=4, track=False, progress=False,
)  # fmt: skip


def _stones_mod_4(game: Any, encoder: str) -> Features:
    """The toy Nim's winning fact: the stones left modulo 4, one-hot (0 means the seat
    to move loses against perfect play), read from the one-hot pile in the observation."""
    if game.spec.env_id != ENV_ID or encoder != "flat":
        raise ConfigError("stones_mod_4 applies to toy_nim_v0's flat observation only")

    def compute(obs: np.ndarray) -> np.ndarray:
        stones = obs[:, :22].argmax(axis=1)
        out = np.zeros((len(obs), 4), dtype=np.float32)
        out[np.arange(len(obs)), stones % 4] = 1.0
        return out

    return Features(4, compute)


MOD4 = FeatureFunction("stones_mod_4", 1, "stones left modulo 4, one-hot", _stones_mod_4)


@pytest.fixture(autouse=True)
def mod4_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(features.FEATURES, MOD4.name, MOD4)
    yield


def mod4_of(x: np.ndarray) -> np.ndarray:
    """What the feature must be for policy inputs ``x`` (observation first)."""
    return _stones_mod_4(make_game(ENV_ID), "flat").compute(np.atleast_2d(x)[:, :26])


def random_states(env_id: str, n: int, seed: int, **options: Any) -> list[tuple[Any, int]]:
    game = make_game(env_id, **options)
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        s = game.new_state(rng)
        while not game.is_over(s) and len(out) < n:
            out.append((game.copy(s), game.current_player(s)))
            game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return out


@pytest.mark.parametrize(
    ("env_id", "encoder"), [("chocolates_v0", "flat"), ("le_chocolat_v0", "planes")]
)
def test_field_totals_sum_each_layout_field(env_id: str, encoder: str) -> None:
    """The shipped feature function: for each field (entries of a flat observation,
    channels of planes), the sum of its values."""
    game = make_game(env_id)
    inputs = PolicyInputs(game, encoder, "field_totals")
    fields = game.encoder(encoder).layout.fields
    assert inputs.extra == len(fields) and inputs.metadata() == {
        "name": "field_totals", "version": 1, "size": len(fields)
    }  # fmt: skip
    for state, seat in random_states(env_id, 20, seed=1):
        obs = game.encoder(encoder).encode(state, seat)
        x = inputs.encode(state, seat)
        np.testing.assert_array_equal(x[: obs.size], obs.ravel())
        expected = [obs[f.start : f.stop].sum() for f in fields]
        np.testing.assert_allclose(x[obs.size :], expected, rtol=1e-6)


def test_unknown_or_inapplicable_feature_functions_are_refused() -> None:
    with pytest.raises(
        ConfigError, match=r"unknown feature function 'nope'; allowed: ''.*field_totals"
    ):
        PolicyInputs(make_game(ENV_ID), "flat", "nope")
    with pytest.raises(ConfigError, match="applies to toy_nim_v0's flat observation only"):
        PolicyInputs(make_game("chocolates_v0"), "flat", "stones_mod_4")
    with pytest.raises(ConfigError, match="already registered"):
        features.register(FeatureFunction("stones_mod_4", 2, "another", _stones_mod_4))


def test_trainer_imitation_evaluation_and_bot_read_the_same_inputs(tmp_path: Path) -> None:
    """One computation everywhere: the trainer's games, imitation's records and the
    policy bot's network input all end with the feature of their own observation."""
    from choco_envs.policy.bot import PolicyBot
    from choco_envs.policy.checkpoint import read_metadata
    from choco_envs.registry import make
    from choco_envs.train.evaluate import evaluate
    from choco_envs.train.games import LEARNER, GameVec
    from choco_envs.train.imitation import collect
    from choco_envs.train.ppo import Args, train

    path = train(Args(**TINY, feature="stones_mod_4", runs_dir=str(tmp_path)))
    meta = read_metadata(path)
    assert meta["features"] == {"name": "stones_mod_4", "version": 1, "size": 4}
    assert meta["network"]["extra_inputs"] == 4

    vec = GameVec(ENV_ID, {"stones": 13}, "flat", 3, 0, lambda n, r: [LEARNER] * n, (),
                  feature="stones_mod_4")  # fmt: skip
    dec = vec.reset()
    for _ in range(3):
        np.testing.assert_array_equal(dec.obs[:, 26:], mod4_of(dec.obs))
        dec = vec.step(np.zeros(3, dtype=np.int64))

    demos = collect(ENV_ID, {"stones": 13}, "flat", "greedy", 5, 0, feature="stones_mod_4")
    assert demos.obs.shape[1] == 30
    np.testing.assert_array_equal(demos.obs[:, 26:], mod4_of(demos.obs))

    bot = PolicyBot(path, env_id=ENV_ID)
    seen: list[np.ndarray] = []
    forward = bot.model.forward
    bot.model.forward = lambda x, mask: (seen.append(x.numpy().copy()), forward(x, mask))[1]  # type: ignore[method-assign]
    env = make(ENV_ID, stones=13)
    env.reset(seed=0)
    while not all(env.terminations.values()):
        env.step(bot.act(env))
    assert len(seen) >= 4
    for x in seen:
        np.testing.assert_array_equal(x[:, 26:], mod4_of(x))

    model = bot.model
    result = evaluate(model, ENV_ID, {"stones": 13}, "flat", "random", 4, 1, feature="stones_mod_4")
    assert result["games"] == 4


def test_a_checkpoint_is_refused_when_its_feature_function_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Name, version and size are stored; another installed version, a function no
    longer installed, or another size is a CheckpointError."""
    from choco_envs.policy.checkpoint import load_policy, save_checkpoint
    from tests.training.conftest import toy_meta, toy_model

    meta = {**toy_meta(), "features": MOD4.to_json(4)}
    path = save_checkpoint(tmp_path / "f.safetensors", toy_model(extra_inputs=4), meta)
    load_policy(path, ENV_ID)  # as installed: loads
    bumped = FeatureFunction("stones_mod_4", 2, "changed", _stones_mod_4)
    monkeypatch.setitem(features.FEATURES, "stones_mod_4", bumped)
    with pytest.raises(CheckpointError, match="version 1; the installed one is version 2"):
        load_policy(path, ENV_ID)

    def wider(game: Any, encoder: str) -> Features:
        return Features(5, lambda obs: np.zeros((len(obs), 5), np.float32))

    monkeypatch.setitem(
        features.FEATURES, "stones_mod_4", FeatureFunction("stones_mod_4", 1, "", wider)
    )
    with pytest.raises(CheckpointError, match="expects 4 inputs from feature function"):
        load_policy(path, ENV_ID)
    monkeypatch.delitem(features.FEATURES, "stones_mod_4")
    with pytest.raises(CheckpointError, match="'stones_mod_4', which is not installed"):
        load_policy(path, ENV_ID)


def test_args_refuse_an_unknown_feature_before_anything_runs(tmp_path: Path) -> None:
    from choco_envs.train.ppo import Args, train

    with pytest.raises(ConfigError, match="unknown feature function 'nope'"):
        train(Args(**{**TINY, "runs_dir": str(tmp_path)}, feature="nope"))
    assert not list(tmp_path.iterdir())


def test_chocolates_truth_is_the_chance_given_the_face_up_chocolates() -> None:
    """The card chances read the observation alone (the same on every determinization of
    the seat) and agree with the rules' own deals of the face-down chocolates."""
    import random

    import numpy as np

    import choco_envs
    from choco_envs.games.chocolates.rules import card_truth_matrix
    from choco_envs.policy.features import PolicyInputs

    env = choco_envs.make("chocolates_v0")
    env.reset(seed=4)
    rng = random.Random(1)
    for _ in range(9):
        env.step(rng.choice(env.unwrapped.legal_actions()))
    game, s = env.unwrapped.game, env.unwrapped.state_
    inputs = PolicyInputs(game, "flat", "chocolates_truth")
    mine = inputs.encode(s, 0)
    for _ in range(5):
        assert np.array_equal(inputs.encode(game.determinize(s, 0, rng), 0), mine)
    exact = card_truth_matrix(game.deal_layouts(s, 40_000, np.random.default_rng(0))).mean(0)
    chances = mine[inputs.obs_size : inputs.obs_size + 29]
    assert np.abs(chances - exact).max() < 0.08
    assert inputs.metadata() == {"name": "chocolates_truth", "version": 1, "size": 29 + 9 + 2}


def test_chocolates_truth_of_a_batch_is_each_observations_own(monkeypatch) -> None:
    """The tables a batch does not find in the cache are dealt and scored together; each
    row is bit for bit what the observation alone gives, also when the cache fills and is
    cleared in the middle of a batch (a fresh function every time: nothing cached)."""
    import random

    import numpy as np

    import choco_envs.games.chocolates.features as chocolates_features
    from choco_envs.registry import make_game

    game = make_game("chocolates_v0", num_players=3)
    flat = game.encoder("flat")
    rng = random.Random(2)
    rows = []
    for _ in range(4):
        s = game.new_state(rng)
        while not game.is_over(s):
            rows.append(flat.encode(s, game.current_player(s)))
            game.apply(s, rng.choice(game.legal_actions(s)), rng)
    obs = np.stack(rows + rows[:7])  # repeated tables too
    alone = np.concatenate(
        [chocolates_features.TRUTH.build(game, "flat").compute(row[None]) for row in obs]
    )
    monkeypatch.setattr(chocolates_features, "TRUTH_CACHE", 5)
    compute = chocolates_features.TRUTH.build(game, "flat").compute
    # batches of 4 overlapping the last: each holds cached tables and new ones
    batched = [compute(obs[max(0, i - 1) : i + 3])[min(i, 1) :] for i in range(0, len(obs), 3)]
    assert np.array_equal(np.concatenate(batched)[: len(obs)], alone)
    assert len({row.tobytes() for row in obs}) > 5  # the cache was cleared on the way


def test_chocolates_truth_refuses_other_envs() -> None:
    import pytest

    import choco_envs
    from choco_envs.core.errors import ConfigError
    from choco_envs.policy.features import PolicyInputs

    with pytest.raises(ConfigError, match="chocolates_v0's 'flat'"):
        PolicyInputs(choco_envs.make("le_chocolat_v0").unwrapped.game, "flat", "chocolates_truth")


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_chocolatiers_affordable_is_the_rules_payment_of_the_own_hand(edition: str) -> None:
    """What the feature says a line tile costs the seat is what the rules' payable and
    cheapest_payment say of the seat's real hand, at every step of a random game."""
    import random

    import choco_envs
    from choco_envs.games.chocolatiers.rules import NT, cheapest_payment
    from choco_envs.policy.features import PolicyInputs

    env = choco_envs.make("chocolatiers_v1", edition=edition)
    env.reset(seed=1)
    game = env.unwrapped.game
    inputs = PolicyInputs(game, "flat", "chocolatiers_affordable")
    rng = random.Random(3)
    checked = 0
    while not env.unwrapped.game_over() and checked < 400:
        s = env.unwrapped.state_
        extra = inputs.encode(s, s.player)[inputs.obs_size :]
        for slot, tile in enumerate(s.display):
            if tile >= 0:
                used, missing = cheapest_payment(s.hand, s.player * NT, game.tile_cost[tile])
                assert extra[3 * slot] == (missing == 0)
                assert extra[3 * slot + 1] == pytest.approx(missing / 4)
                assert extra[3 * slot + 2] == pytest.approx(used / 8)
                checked += 1
        env.step(rng.choice(env.unwrapped.legal_actions()))
    assert checked >= 100


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_chocolatiers_takes_is_the_rules_payment_of_the_hand_after_each_take(edition: str) -> None:
    """For each card type, the feature's facts of a line tile are what the rules'
    cheapest_payment says of the seat's real hand with one card of that type added ("Take:
    cards come only from the tray", docs/games/chocolatiers.md), and its first part is
    chocolatiers_affordable's, at every step of a random game."""
    import random

    import choco_envs
    from choco_envs.games.chocolatiers.rules import NT, cheapest_payment
    from choco_envs.policy.features import PolicyInputs

    env = choco_envs.make("chocolatiers_v1", edition=edition, num_players=3)
    env.reset(seed=2)
    game = env.unwrapped.game
    takes = PolicyInputs(game, "flat", "chocolatiers_takes")
    affordable = PolicyInputs(game, "flat", "chocolatiers_affordable")
    assert takes.features is not None and takes.features.layout is not None
    rows = {f.name: f for f in takes.features.layout.fields}["rows"].shape[0]
    rng = random.Random(4)
    checked = 0
    while not env.unwrapped.game_over() and checked < 600:
        s = env.unwrapped.state_
        extra = takes.encode(s, s.player)[takes.obs_size :]
        head = affordable.encode(s, s.player)[affordable.obs_size :]
        np.testing.assert_array_equal(extra[: len(head)], head)
        facts = extra[len(head) :].reshape(NT, rows, 6)
        for slot, tile in enumerate(s.display):
            if tile < 0:
                assert not facts[:, slot].any()
                continue
            _, before = cheapest_payment(s.hand, s.player * NT, game.tile_cost[tile])
            for t in range(NT):
                hand = list(s.hand[s.player * NT : s.player * NT + NT])
                hand[t] += 1
                used, missing = cheapest_payment(hand, 0, game.tile_cost[tile])
                assert facts[t, slot, 0] == (missing == 0)
                assert facts[t, slot, 1] == pytest.approx(missing / 4)
                assert facts[t, slot, 2] == pytest.approx(used / 8)
                assert facts[t, slot, 3] == before - missing
                assert facts[t, slot, 4] == pytest.approx(game.tile_points[tile] / 8)
                assert facts[t, slot, 5] == 1.0
                checked += 1
        env.step(rng.choice(env.unwrapped.legal_actions()))
    assert checked >= 300


def test_chocolatiers_takes_declares_one_block_per_take_action() -> None:
    """The take head reads, for take action TAKE + t, the facts of card type t: the
    declared block of each action is that type's slice of the ``takes`` field, at every
    table of the seat-padded input."""
    import choco_envs
    from choco_envs.games.chocolatiers.rules import NT, TAKE
    from choco_envs.policy.features import PolicyInputs

    for n in (2, 5):
        game = choco_envs.make("chocolatiers_v1", num_players=n).unwrapped.game
        inputs = PolicyInputs(game, "flat", "chocolatiers_takes", max_players=5)
        first, count, start, block, width = inputs.action_facts(32)
        assert (first, count, width) == (TAKE, NT, 32)
        assert block == (5 + 1 + 5) * 6  # the largest table's rows, 6 facts each
        assert start + count * block <= inputs.size
    plain = PolicyInputs(game, "flat", "chocolatiers_affordable")
    with pytest.raises(ConfigError, match="declares none"):
        plain.action_facts(32)


def test_a_file_without_features_starts_a_fact_head_only_network_that_plays_as_it_did(
    tmp_path: Path,
) -> None:
    """init_from a Le Chocolat file on the bare planes into a run on le_chocolat_pieces
    with action_head_only: the torso loads as it was, the head (reading the facts alone)
    starts at zero, so the new network gives the file's logits and values; a torso of
    another shape is refused by name."""
    import torch

    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.train.ppo import Args, train

    base = dict(
        env_id="le_chocolat_v0", options={"num_players": 2}, encoder="planes",
        conv_channels=(4,), board_actions=True, total_timesteps=64, num_envs=2, num_steps=4,
        hidden=(16,), eval_every=0, final_eval_games=0, track=False, progress=False,
        runs_dir=str(tmp_path),
    )  # fmt: skip
    plain = train(Args(**base, run_name="plain"))
    wide = train(
        Args(
            **{**base, "total_timesteps": 1, "learning_rate": 1e-9},
            feature="le_chocolat_pieces",
            action_head=8,
            action_head_only=True,
            init_from=str(plain),
            run_name="pieces",
        )  # fmt: skip
    )
    old, old_meta = load_policy(plain, "le_chocolat_v0")
    new, new_meta = load_policy(wide, "le_chocolat_v0")
    assert new.config.facts_head_only and new.config.action_facts[:2] == (0, 385)
    assert new.mlp[0].weight.shape == old.mlp[0].weight.shape
    game = make_game("le_chocolat_v0")
    for state, seat in random_states("le_chocolat_v0", 30, seed=3)[::6]:
        x_old = PolicyInputs.of_checkpoint(game, old_meta).encode(state, seat)
        x_new = PolicyInputs.of_checkpoint(game, new_meta).encode(state, seat)
        assert x_new.size > x_old.size
        mask = torch.from_numpy(game.legal_mask(state)[None].astype(bool))
        with torch.no_grad():
            a = old(torch.from_numpy(x_old[None]), mask)
            b = new(torch.from_numpy(x_new[None]), mask)
        torch.testing.assert_close(a[0], b[0], atol=1e-4, rtol=0)
        torch.testing.assert_close(a[1], b[1], atol=1e-4, rtol=0)
    with pytest.raises(ConfigError, match="holds another network"):
        train(
            Args(
                **{**base, "hidden": (8,)},
                feature="le_chocolat_pieces",
                action_head=8,
                action_head_only=True,
                init_from=str(plain),
                run_name="other",
            )  # fmt: skip
        )
    with pytest.raises(ConfigError, match="action_head_only"):
        Args(**base, action_head_only=True).check()


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_chocolatiers_placements_are_the_rules_sampler_after_each_placement_and_wild(
    edition: str,
) -> None:
    """For every legal tile placement and wild, the feature's facts are what the rules make
    of the seat's Sampler once that action is played: its largest group of each type
    (placements: the group itself; wilds: its growth, "wilds count in the size of the
    groups they join") and, per type, who takes the Score tile, which "goes to the single
    player with the largest connected group of it; a tie for the largest means nobody"
    (docs/games/chocolatiers.md). Placements open only while a tile is being placed, and
    the first part is chocolatiers_takes' output; at every step of random games."""
    import random

    import choco_envs
    from choco_envs.games.chocolatiers.rules import NT, PLACE, PLACE_WILD, single_best
    from choco_envs.games.chocolatiers.sampler import largest_groups
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.registry import make_game

    table = make_game("chocolatiers_v1", edition=edition, num_players=3)
    placing = PolicyInputs(table, "flat", "chocolatiers_placements")
    takes = PolicyInputs(table, "flat", "chocolatiers_takes")
    assert placing.features is not None and placing.features.layout is not None
    fields = {f.name: f for f in placing.features.layout.fields}
    rng = random.Random(6)
    checked = {"place": 0, "wild": 0}
    for seed in range(4):
        env = choco_envs.make("chocolatiers_v1", edition=edition, num_players=3)
        env.reset(seed=seed)
        game = env.unwrapped.game
        while not env.unwrapped.game_over():
            s = env.unwrapped.state_
            p = s.player
            extra = placing.encode(s, p)[placing.obs_size :]
            head = takes.encode(s, p)[takes.obs_size :]
            np.testing.assert_array_equal(extra[: len(head)], head)
            places = extra[fields["places"].slice].reshape(64, -1)
            wilds = extra[fields["wilds"].slice].reshape(36, -1)
            legal = game.legal_actions(s)
            placements = [a for a in legal if PLACE <= a < PLACE + 64]
            assert sorted(PLACE + i for i in np.flatnonzero(places[:, 0])) == placements
            for a in legal:
                if not (PLACE <= a < PLACE + 64 or PLACE_WILD <= a < PLACE_WILD + 36):
                    continue
                after = game.copy(s)
                game.apply(after, a, rng)
                own = largest_groups(after.cells[p * 36 : p * 36 + 36])
                if a >= PLACE:
                    row, kind = places[a - PLACE], "place"
                    np.testing.assert_allclose(row[1 : 1 + NT], np.asarray(own) / 12)
                else:
                    row, kind = wilds[a - PLACE_WILD], "wild"
                    grown = np.asarray(own) - np.asarray(s.groups[p * NT : p * NT + NT])
                    np.testing.assert_allclose(row[1 : 1 + NT], grown / 4)
                assert row[0] == 1.0
                for t in range(NT):
                    values = [own[t] if q == p else s.groups[q * NT + t] for q in range(3)]
                    winner = single_best(values)
                    assert row[1 + NT + t] == (1.0 if winner == p else -1.0 if winner >= 0 else 0.0)
                checked[kind] += 1
            env.step(rng.choice(legal))
    assert checked["place"] >= 200 and checked["wild"] >= 200, checked


def test_chocolatiers_placements_memo_changes_no_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Sampler facts are kept by the bytes of the slices they are read from (a search
    meets the same Sampler again and again): a batch computed at once, again (every row
    from the memo), and row by row with a memo of one row (cleared at every new row) are
    the same, and rows in the place phase or holding wilds are among them."""
    from choco_envs.games.chocolatiers import features as chocolatiers_features
    from choco_envs.policy.features import PolicyInputs

    table = make_game("chocolatiers_v1", edition="standard", num_players=3)
    encoder = table.encoder("flat")
    states = random_states("chocolatiers_v1", 300, seed=5, edition="standard", num_players=3)
    obs = np.stack([encoder.encode(state, seat) for state, seat in states])
    feature = PolicyInputs(table, "flat", "chocolatiers_trades").features
    assert feature is not None and feature.layout is not None
    first = feature.compute(obs)
    np.testing.assert_array_equal(feature.compute(obs), first)
    places = {f.name: f for f in feature.layout.fields}["places"].slice
    assert (first[:, places] != 0).any(axis=1).sum() >= 10
    monkeypatch.setattr(chocolatiers_features, "MEMO_ROWS", 1)
    fresh = PolicyInputs(table, "flat", "chocolatiers_trades").features
    assert fresh is not None
    rows = np.concatenate([fresh.compute(obs[i : i + 1]) for i in range(len(obs))])
    np.testing.assert_array_equal(rows, first)


def test_chocolatiers_placements_declare_a_head_per_group_of_actions() -> None:
    """Takes, wilds and tile placements each read their own blocks: the declared groups
    are the take actions (one block per card type), the 36 wild spaces and the 64 tile
    placements, at every table of the seat-padded input, one after another in the input."""
    from choco_envs.games.chocolatiers.rules import NT, PLACE, PLACE_WILD, TAKE
    from choco_envs.policy.net import NetConfig, fact_groups
    from choco_envs.registry import make_game

    for n in (2, 5):
        game = make_game("chocolatiers_v1", num_players=n)
        inputs = PolicyInputs(game, "flat", "chocolatiers_placements", max_players=5)
        flat = inputs.action_facts(16)
        groups = fact_groups(NetConfig((inputs.size,), game.num_actions, action_facts=flat))
        assert [(g[0], g[1], g[3], g[4]) for g in groups] == [
            (TAKE, NT, (5 + 1 + 5) * 6, 16), (PLACE_WILD, 36, 13, 16), (PLACE, 64, 13, 16),
        ]  # fmt: skip
        ends = [start + count * block for _, count, start, block, _ in groups]
        # laid out as the feature's fields: takes, then placements, then wilds
        assert groups[2][2] == ends[0] and groups[1][2] == ends[2] and ends[1] <= inputs.size


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_chocolatiers_exchanges_are_the_rules_payment_of_the_hand_after_each_card_given(
    edition: str,
) -> None:
    """For each exchange the seat may make ("Take 1 card, or discard 1 card then take 2";
    classic: lay 1 card on the tray, then take any 2), the feature's facts of a line tile
    are what the rules' cheapest_payment says of the seat's hand once the rules' ``apply``
    has given that card; a type the seat holds no card of has 0s; its first part is
    chocolatiers_placements' output; at every step of a random game."""
    import random

    import choco_envs
    from choco_envs.games.chocolatiers.rules import CHOOSE, GIVE, NT, cheapest_payment

    env = choco_envs.make("chocolatiers_v1", edition=edition, num_players=3)
    env.reset(seed=5)
    game = env.unwrapped.game
    gives = PolicyInputs(game, "flat", "chocolatiers_exchanges")
    placing = PolicyInputs(game, "flat", "chocolatiers_placements")
    assert gives.features is not None and gives.features.layout is not None
    fields = {f.name: f for f in gives.features.layout.fields}
    rows = fields["gives"].shape[1]
    rng = random.Random(8)
    checked = 0
    while not env.unwrapped.game_over() and checked < 600:
        s = env.unwrapped.state_
        p = s.player
        extra = gives.encode(s, p)[gives.obs_size :]
        head = placing.encode(s, p)[placing.obs_size :]
        np.testing.assert_array_equal(extra[: len(head)], head)
        facts = extra[fields["gives"].slice].reshape(NT, rows, 6)
        hand = s.hand[p * NT : p * NT + NT]
        for t in range(NT):
            if not hand[t]:
                assert not facts[t].any()
        legal = game.legal_actions(s)
        for a in legal if s.phase == CHOOSE else []:
            if not GIVE <= a < GIVE + NT:
                continue
            after = game.copy(s)
            game.apply(after, a, rng)
            for slot, tile in enumerate(s.display):
                if tile < 0:
                    assert not facts[a - GIVE, slot].any()
                    continue
                _, before = cheapest_payment(s.hand, p * NT, game.tile_cost[tile])
                used, missing = cheapest_payment(after.hand, p * NT, game.tile_cost[tile])
                row = facts[a - GIVE, slot]
                assert row[0] == (missing == 0)
                assert row[1] == pytest.approx(missing / 4)
                assert row[2] == pytest.approx(used / 8)
                assert row[3] == missing - before
                assert row[4] == pytest.approx(game.tile_points[tile] / 8)
                assert row[5] == 1.0
                checked += 1
        env.step(rng.choice(legal))
    assert checked >= 300


def test_chocolatiers_exchanges_add_a_head_for_the_exchange_actions() -> None:
    """The exchange actions (GIVE + t) read type t's block of the ``gives`` field, after
    the heads chocolatiers_placements declares (takes, wilds, placements), at every table of
    the seat-padded input."""
    from choco_envs.games.chocolatiers.rules import GIVE, NT, PLACE, PLACE_WILD, TAKE
    from choco_envs.policy.net import NetConfig, fact_groups
    from choco_envs.registry import make_game

    for n in (2, 5):
        game = make_game("chocolatiers_v1", num_players=n)
        inputs = PolicyInputs(game, "flat", "chocolatiers_exchanges", max_players=5)
        placing = PolicyInputs(game, "flat", "chocolatiers_placements", max_players=5)
        flat = inputs.action_facts(16)
        groups = fact_groups(NetConfig((inputs.size,), game.num_actions, action_facts=flat))
        assert [(g[0], g[1], g[3], g[4]) for g in groups] == [
            (TAKE, NT, (5 + 1 + 5) * 6, 16), (PLACE_WILD, 36, 13, 16), (PLACE, 64, 13, 16),
            (GIVE, NT, (5 + 1 + 5) * 6, 16),
        ]  # fmt: skip
        assert flat[:15] == placing.action_facts(16)
        _, _, start, block, _ = groups[3]
        assert start + NT * block <= inputs.size


@pytest.mark.parametrize("edition", ["standard", "classic"])
def test_chocolatiers_trades_are_the_rules_payment_after_each_exchange_and_its_best_two_takes(
    edition: str,
) -> None:
    """For each exchange the seat may make ("Take 1 card, or discard 1 card then take 2";
    classic: lay 1 card on the tray, then take any 2), the feature's last facts of a line
    tile are the rules' cheapest_payment of the seat's hand after the rules' ``apply`` of
    that exchange and of the two takes (every pair the rules then allow, played on copies)
    that leave the tile the fewest chocolates missing, then the fewest cards used; the
    first facts are chocolatiers_exchanges' of that card, a type the seat holds no card of
    has 0s, the output starts with chocolatiers_placements'; at every step of a random
    game."""
    import random

    import choco_envs
    from choco_envs.games.chocolatiers.rules import CHOOSE, GIVE, NT, cheapest_payment

    env = choco_envs.make("chocolatiers_v1", edition=edition, num_players=3)
    env.reset(seed=6)
    game = env.unwrapped.game
    trades = PolicyInputs(game, "flat", "chocolatiers_trades")
    gives = PolicyInputs(game, "flat", "chocolatiers_exchanges")
    placing = PolicyInputs(game, "flat", "chocolatiers_placements")
    assert trades.features is not None and trades.features.layout is not None
    assert gives.features is not None and gives.features.layout is not None
    fields = {f.name: f for f in trades.features.layout.fields}
    rows = fields["exchanges"].shape[1]
    gives_at = {f.name: f for f in gives.features.layout.fields}["gives"].slice
    rng, moves = random.Random(9), random.Random(0)
    checked = 0
    while not env.unwrapped.game_over() and checked < 400:
        s = env.unwrapped.state_
        p = s.player
        extra = trades.encode(s, p)[trades.obs_size :]
        head = placing.encode(s, p)[placing.obs_size :]
        np.testing.assert_array_equal(extra[: len(head)], head)
        facts = extra[fields["exchanges"].slice].reshape(NT, rows, 10)
        given = gives.encode(s, p)[gives.obs_size :][gives_at].reshape(NT, rows, 6)
        np.testing.assert_array_equal(facts[..., :6], given)
        legal = game.legal_actions(s)
        exchanges = [a - GIVE for a in legal if GIVE <= a < GIVE + NT] if s.phase == CHOOSE else []
        for t in range(NT):
            if not s.hand[p * NT + t]:  # no card of that type to give
                assert not facts[t, :, 6:].any()
        for t in exchanges:
            after = game.copy(s)
            game.apply(after, GIVE + t, moves)
            hands = []
            for first in game.legal_actions(after):
                one = game.copy(after)
                game.apply(one, first, moves)
                for second in game.legal_actions(one):
                    two = game.copy(one)
                    game.apply(two, second, moves)
                    hands.append(two.hand[p * NT : p * NT + NT])
            for slot, tile in enumerate(s.display):
                row = facts[t, slot, 6:]
                if tile < 0:
                    assert not row.any()
                    continue
                cost = game.tile_cost[tile]
                missing, used = min(cheapest_payment(h, 0, cost)[::-1] for h in hands)
                _, before = cheapest_payment(s.hand, p * NT, cost)
                assert row[0] == (missing == 0)
                assert row[1] == pytest.approx(missing / 4)
                assert row[2] == pytest.approx(used / 8)
                assert row[3] == pytest.approx((before - missing) / 4)
                checked += 1
        env.step(rng.choice(legal))
    assert checked >= 200, checked


def test_chocolatiers_trades_add_a_head_for_the_exchange_actions() -> None:
    """The exchange actions (GIVE + t) read type t's block of the ``exchanges`` field (its
    given-card facts and its facts after the two takes), after the heads
    chocolatiers_placements declares, at every table of the seat-padded input."""
    from choco_envs.games.chocolatiers.rules import GIVE, NT, PLACE, PLACE_WILD, TAKE
    from choco_envs.policy.net import NetConfig, fact_groups
    from choco_envs.registry import make_game

    for n in (2, 5):
        game = make_game("chocolatiers_v1", num_players=n)
        inputs = PolicyInputs(game, "flat", "chocolatiers_trades", max_players=5)
        placing = PolicyInputs(game, "flat", "chocolatiers_placements", max_players=5)
        flat = inputs.action_facts(16)
        groups = fact_groups(NetConfig((inputs.size,), game.num_actions, action_facts=flat))
        assert [(g[0], g[1], g[3], g[4]) for g in groups] == [
            (TAKE, NT, (5 + 1 + 5) * 6, 16), (PLACE_WILD, 36, 13, 16), (PLACE, 64, 13, 16),
            (GIVE, NT, (5 + 1 + 5) * 10, 16),
        ]  # fmt: skip
        assert flat[:15] == placing.action_facts(16)
        _, _, start, block, _ = groups[3]
        assert start + NT * block <= inputs.size
