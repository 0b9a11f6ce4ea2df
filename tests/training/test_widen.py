"""Widening a flat MLP checkpoint to a longer observation that starts with its own
(``choco_envs/policy/widen.py``, ``training/widen_checkpoint.py``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import torch

from choco_envs.core.errors import ConfigError
from choco_envs.policy.checkpoint import file_sha256, load_policy, save_checkpoint
from choco_envs.policy.net import ActorCritic, NetConfig
from choco_envs.policy.widen import move_inputs, widen_checkpoint
from choco_envs.registry import make_game

OPTIONS = {"num_players": 2, "edition": "classic"}


def flat_checkpoint(path: Path, conv: bool = False) -> Path:
    game = make_game("chocolatiers_v1", **OPTIONS)
    encoder = "planes" if conv else "flat"
    shape = game.encoder(encoder).shape
    torch.manual_seed(0)
    model = ActorCritic(NetConfig(tuple(shape), game.num_actions, (16,), (4,) if conv else ()))
    meta = {
        "env_id": "chocolatiers_v1", "version": 0, "options": OPTIONS, "encoder": encoder,
        "observation_shape": list(shape), "num_actions": game.num_actions,
        "steps_trained": 7, "arena": {"greedy": {"win_rate": 0.25}},
    }  # fmt: skip
    return save_checkpoint(path, model, meta)


def chocolates_checkpoint(path: Path, encoder: str) -> tuple[Path, ActorCritic]:
    """A small random 2-player Chocolates MLP policy on ``encoder``."""
    game = make_game("chocolates_v0", num_players=2)
    torch.manual_seed(0)
    shape = game.encoder(encoder).shape
    model = ActorCritic(NetConfig(tuple(shape), game.num_actions, (16,)))
    meta = {
        "env_id": "chocolates_v0", "version": 0, "options": {"num_players": 2},
        "encoder": encoder, "observation_shape": list(shape), "num_actions": game.num_actions,
        "steps_trained": 0, "arena": {},
    }  # fmt: skip
    return save_checkpoint(path, model, meta), model


def board_checkpoint(path: Path, encoder: str, seed: int) -> Path:
    """A small random Le Chocolat conv policy with a board action head on ``encoder``."""
    game = make_game("le_chocolat_v0")
    enc = game.encoder(encoder)
    index = enc.action_planes.index  # type: ignore[union-attr]
    torch.manual_seed(seed)
    config = NetConfig(tuple(enc.shape), game.num_actions, (16,), (4, 4), 3, index)
    meta = {
        "env_id": "le_chocolat_v0", "version": 0, "options": {"num_players": 2},
        "encoder": encoder, "observation_shape": list(enc.shape),
        "num_actions": game.num_actions, "steps_trained": 1,
    }  # fmt: skip
    return save_checkpoint(path, ActorCritic(config), meta)


def test_widened_policy_plays_exactly_as_before(tmp_path: Path) -> None:
    """New inputs get zero weights: on every position the widened policy's logits and
    value on ``"derived"`` equal the old ones on ``"flat"``; the file says where it came
    from, and the env accepts it for the new observation."""
    src = flat_checkpoint(tmp_path / "flat.safetensors")
    out = widen_checkpoint(src, "derived", tmp_path / "wide.safetensors")
    old, _ = load_policy(src)
    new, meta = load_policy(out, "chocolatiers_v1", OPTIONS)
    game = make_game("chocolatiers_v1", **OPTIONS)
    assert meta["encoder"] == "derived"
    assert meta["observation_shape"] == list(game.encoder("derived").shape)
    assert meta["widened_from"]["sha256"] == file_sha256(src)
    assert meta["steps_trained"] == 7 and meta["arena"] == {"greedy": {"win_rate": 0.25}}
    rng = random.Random(3)
    s = game.new_state(rng)
    checked = 0
    while not game.is_over(s) and checked < 40:
        p = s.player
        mask = torch.tensor(game.legal_mask(s))[None]
        flat = torch.tensor(game.encoder("flat").encode(s, p))[None]
        derived = torch.tensor(game.encoder("derived").encode(s, p))[None]
        assert derived[0, flat.shape[1] :].abs().sum() > 0  # the new fields carry something
        with torch.no_grad():
            (l1, v1), (l2, v2) = old(flat, mask), new(derived, mask)
        assert torch.allclose(l1, l2, atol=1e-6) and torch.allclose(v1, v2, atol=1e-6)
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
        checked += 1
    assert checked == 40


def test_widening_is_refused_when_the_observation_does_not_extend(tmp_path: Path) -> None:
    src = flat_checkpoint(tmp_path / "flat.safetensors")
    with pytest.raises(ConfigError, match="'beliefs' is not an observation of chocolatiers_v1"):
        widen_checkpoint(src, "beliefs", tmp_path / "x.safetensors")
    with pytest.raises(ConfigError, match="not an extension of 'flat'"):
        widen_checkpoint(src, "planes", tmp_path / "x.safetensors")
    with pytest.raises(ConfigError, match="does not start with the fields of 'flat'"):
        widen_checkpoint(src, "flat", tmp_path / "x.safetensors")
    planes = flat_checkpoint(tmp_path / "conv.safetensors", conv=True)
    with pytest.raises(ConfigError, match=r"shape \(979,\), not an extension of 'planes'"):
        widen_checkpoint(planes, "derived", tmp_path / "x.safetensors")
    assert not (tmp_path / "x.safetensors").exists()


def test_widen_script_writes_the_file(tmp_path: Path) -> None:
    import runpy
    import sys

    src = flat_checkpoint(tmp_path / "flat.safetensors")
    script = Path(__file__).resolve().parents[2] / "training" / "widen_checkpoint.py"
    argv = sys.argv
    sys.argv = [
        str(script),
        str(src),
        "--encoder",
        "derived",
        "--out",
        str(tmp_path / "w.safetensors"),
    ]
    try:
        with pytest.raises(SystemExit) as done:
            runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = argv
    assert done.value.code == 0
    assert load_policy(tmp_path / "w.safetensors")[1]["encoder"] == "derived"


def test_resume_with_another_encoder_is_refused(tmp_path: Path) -> None:
    """Resuming a checkpoint on an observation it was not trained on is a ConfigError
    before any game is played (same size or not)."""
    from tests.training.test_smoke import load_training_script

    script = load_training_script()
    src = flat_checkpoint(tmp_path / "flat.safetensors")
    args = script.Args(
        env_id="chocolatiers_v1", options=OPTIONS, encoder="derived", resume=str(src),
        total_timesteps=64, num_envs=2, num_steps=8, eval_every=0, final_eval_games=0,
        track=False, progress=False, save_path=str(tmp_path / "r.safetensors"),
    )  # fmt: skip
    with pytest.raises(
        ConfigError, match="trained on the 'flat' observation, but encoder is 'derived'"
    ):
        script.train(args)
    assert not (tmp_path / "r.safetensors").exists()


def test_a_conv_policy_with_a_board_head_widens_by_its_first_conv(tmp_path: Path) -> None:
    """Le Chocolat: ``"derived"`` is ``"planes"`` plus 3 planes; the first conv layer gets
    zero weights for them, the board action head is kept, and play is unchanged."""
    game = make_game("le_chocolat_v0")
    planes = game.encoder("planes")
    src = board_checkpoint(tmp_path / "p.safetensors", "planes", seed=1)
    out = widen_checkpoint(src, "derived", tmp_path / "d.safetensors")
    old, _ = load_policy(src)
    new, meta = load_policy(out, "le_chocolat_v0")
    assert meta["network"]["action_channels"] == 3 and meta["encoder"] == "derived"
    rng = random.Random(2)
    s = game.new_state(rng)
    while not game.is_over(s):
        p = s.player
        mask = torch.tensor(game.legal_mask(s))[None]
        a = torch.tensor(planes.encode(s, p))[None]
        b = torch.tensor(game.encoder("derived").encode(s, p))[None]
        with torch.no_grad():
            (l1, v1), (l2, v2) = old(a, mask), new(b, mask)
        assert torch.allclose(l1, l2, atol=1e-5) and torch.allclose(v1, v2, atol=1e-5)
        game.apply(s, rng.choice(game.legal_actions(s)), rng)


def test_widening_with_action_features_plays_as_before_and_learns_per_action(
    tmp_path: Path,
) -> None:
    """``--action-features``: the encoder's per-action fields (``action_fields``) are wired
    to their actions' logits with weights 0, so the widened policy plays exactly as
    before; the checkpoint records them and loads again; an encoder without per-action
    fields is refused."""
    src = flat_checkpoint(tmp_path / "flat.safetensors")
    out = widen_checkpoint(src, "contest", tmp_path / "af.safetensors", action_features=True)
    old, _ = load_policy(src)
    new, meta = load_policy(out, "chocolatiers_v1", OPTIONS)
    game = make_game("chocolatiers_v1", **OPTIONS)
    fields = game.encoder("contest").action_fields
    assert len(new.config.action_features) == len(fields) == 6
    assert meta["network"]["action_features"]
    rng = random.Random(4)
    s = game.new_state(rng)
    for _ in range(40):
        mask = torch.tensor(game.legal_mask(s))[None]
        flat = torch.tensor(game.encoder("flat").encode(s, s.player))[None]
        wide = torch.tensor(game.encoder("contest").encode(s, s.player))[None]
        with torch.no_grad():
            (l1, v1), (l2, v2) = old(flat, mask), new(wide, mask)
        assert torch.allclose(l1, l2, atol=1e-6) and torch.allclose(v1, v2, atol=1e-6)
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    # "beliefs" extends "flat" with no such fields
    choc, _ = chocolates_checkpoint(tmp_path / "choc.safetensors", "flat")
    with pytest.raises(ConfigError, match="declares no per-action fields"):
        widen_checkpoint(choc, "beliefs", tmp_path / "x.safetensors", action_features=True)
    assert not (tmp_path / "x.safetensors").exists()


def test_moved_inputs_read_the_new_field_exactly_as_the_old_one(tmp_path: Path) -> None:
    """``move_inputs``: a Le Chocolat policy widened to ``"search"`` reads the search
    planes where it read ``derived``'s greedy value planes; given an observation whose
    search planes hold the old value planes, it computes what the old policy did (whatever
    the old planes now hold). Bad moves are refused naming the allowed."""
    game = make_game("le_chocolat_v0")
    derived = game.encoder("derived")
    src = board_checkpoint(tmp_path / "d.safetensors", "derived", seed=3)
    wide = widen_checkpoint(src, "search", tmp_path / "s.safetensors")
    moves = [
        ("cut_right_value", "cut_right_search"),
        ("cut_below_value", "cut_below_search"),
        ("claim_value", "claim_search"),
    ]
    out = move_inputs(wide, moves, tmp_path / "m.safetensors")
    old, _ = load_policy(src)
    new, new_meta = load_policy(out, "le_chocolat_v0")
    assert new_meta["moved_inputs"]["moves"] == [list(m) for m in moves]
    assert new_meta["moved_inputs"]["sha256"] == file_sha256(wide)
    rng = random.Random(4)
    s = game.new_state(rng)
    checked = 0
    while not game.is_over(s):
        o = torch.tensor(derived.encode(s, s.player))[None]
        noise = torch.rand(1, 3, *o.shape[2:])  # the old planes no longer matter
        moved = torch.cat([o[:, :82], noise, o[:, 82:85]], dim=1)
        mask = torch.tensor(game.legal_mask(s))[None]
        with torch.no_grad():
            (l1, v1), (l2, v2) = old(o, mask), new(moved, mask)
        assert torch.allclose(l1, l2, atol=1e-5) and torch.allclose(v1, v2, atol=1e-5)
        checked += 1
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    assert checked > 10
    with pytest.raises(ConfigError, match="'nope' is not in observation 'search'.*allowed: "):
        move_inputs(wide, [("nope", "claim_search")], tmp_path / "x.safetensors")
    with pytest.raises(ConfigError, match="differ in size; allowed: fields of one size"):
        move_inputs(wide, [("card_each", "claim_search")], tmp_path / "x.safetensors")
    with pytest.raises(ConfigError, match="already reads field 'claim_value'"):
        move_inputs(wide, [("claim_search", "claim_value")], tmp_path / "x.safetensors")
    with pytest.raises(ConfigError, match="give each field once"):
        move_inputs(
            wide,
            [("claim_value", "claim_search"), ("claim_value", "cut_right_search")],
            tmp_path / "x.safetensors",
        )
    assert not (tmp_path / "x.safetensors").exists()


def test_move_inputs_script_writes_the_file(tmp_path: Path) -> None:
    import runpy
    import sys

    src = flat_checkpoint(tmp_path / "f.safetensors")
    wide = widen_checkpoint(src, "derived", tmp_path / "d.safetensors")
    script = Path(__file__).resolve().parents[2] / "training" / "move_inputs.py"
    out = tmp_path / "m.safetensors"
    argv = sys.argv
    codes = []
    try:
        for move in ("cards_0=take_gain", "cards_0"):
            sys.argv = [str(script), str(wide), "--move", move, "--out", str(out)]
            with pytest.raises(SystemExit) as done:
                runpy.run_path(str(script), run_name="__main__")
            codes.append(done.value.code)
    finally:
        sys.argv = argv
    assert codes == [0, 2]  # the second: "--move 'cards_0': allowed: SRC=DST"
    assert load_policy(out)[1]["moved_inputs"]["moves"] == [["cards_0", "take_gain"]]


def test_move_inputs_refuses_a_field_with_per_action_logits(tmp_path: Path) -> None:
    """A field wired straight to its actions' logits (``--action-features``) would keep
    feeding them from its old place: moving its first-layer weights alone would change the
    policy, so it is refused, and nothing is written."""
    src = flat_checkpoint(tmp_path / "f.safetensors")
    wide = widen_checkpoint(src, "derived", tmp_path / "d.safetensors", action_features=True)
    with pytest.raises(ConfigError, match="'take_gain'.*action_features.*allowed: fields without"):
        move_inputs(wide, [("cards_0", "take_gain")], tmp_path / "x.safetensors")
    assert not (tmp_path / "x.safetensors").exists()


def test_feature_weight_starts_the_plan_field_at_the_given_weight(tmp_path: Path) -> None:
    """``--feature-weight W``: the new per-action fields start at weight W, so the policy
    adds W x ACTION_FEATURE_GAIN to the logit of the action each field marks (Chocolates'
    ``plan_action``: a large W makes it play the plan's action from the start). A weight
    without ``action_features``, or one that is not finite, is refused and writes
    nothing."""
    from choco_envs.games.chocolates import plan
    from choco_envs.policy.net import ACTION_FEATURE_GAIN

    game = make_game("chocolates_v0", num_players=2)
    src, model = chocolates_checkpoint(tmp_path / "b.safetensors", "beliefs")
    out = widen_checkpoint(
        src, "plan", tmp_path / "p.safetensors", action_features=True, feature_weight=0.4
    )
    new, _ = load_policy(out, "chocolates_v0", {"num_players": 2})
    assert new.action_feature_weight.tolist() == pytest.approx([0.4])
    rng = random.Random(2)
    s = game.new_state(rng)
    for _ in range(10):
        mask = torch.tensor(game.legal_mask(s))[None]
        small = torch.tensor(game.encoder("beliefs").encode(s, s.current))[None]
        wide = torch.tensor(game.encoder("plan").encode(s, s.current))[None]
        with torch.no_grad():
            (l1, _), (l2, _) = model(small, mask), new(wide, mask)
        want = plan.plan_action(game, s)
        boost = torch.zeros_like(l1)
        boost[0, want] = 0.4 * ACTION_FEATURE_GAIN
        legal = mask[0]
        assert torch.allclose((l1 + boost)[0, legal], l2[0, legal], atol=1e-4)
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    for bad, features in ((0.4, False), (float("nan"), True)):
        with pytest.raises(ConfigError, match="feature_weight=.* is not allowed"):
            widen_checkpoint(src, "plan", tmp_path / "x.safetensors", features, bad)
    assert not (tmp_path / "x.safetensors").exists()
