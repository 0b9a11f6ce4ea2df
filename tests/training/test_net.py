"""The masked actor-critic's action distribution."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torch.distributions import Categorical  # noqa: E402

from choco_envs.policy.net import ActorCritic, NetConfig  # noqa: E402


def test_log_probs_and_entropy_are_those_of_the_masked_categorical() -> None:
    torch.manual_seed(0)
    model = ActorCritic(NetConfig((10,), 7, (32,)))
    obs = torch.randn(200, 10)
    mask = torch.rand(200, 7) > 0.5
    mask[:, 3] = True
    action, logp, entropy, _ = model.get_action_and_value(obs, mask)
    logits, _ = model(obs, mask)
    dist = Categorical(logits=logits)
    assert torch.allclose(logp, dist.log_prob(action), atol=1e-5)
    assert torch.allclose(entropy, dist.entropy(), atol=1e-5)
    assert mask.gather(1, action[:, None]).all(), "an illegal action was sampled"


def test_only_legal_actions_are_sampled_and_greedy_takes_the_best_legal_one() -> None:
    torch.manual_seed(1)
    model = ActorCritic(NetConfig((4,), 5, (8,)))
    with torch.no_grad():
        model.actor.bias.copy_(torch.tensor([9.0, 0.0, 0.0, 0.0, 1.0]))
    obs = torch.zeros(500, 4)
    mask = torch.tensor([[False, True, True, False, True]]).repeat(500, 1)
    sampled, *_ = model.get_action_and_value(obs, mask)
    assert set(sampled.tolist()) == {1, 2, 4}
    best, *_ = model.get_action_and_value(obs, mask, greedy=True)
    assert set(best.tolist()) == {4}


def test_board_head_adds_each_actions_board_logit_at_its_position() -> None:
    """With ``action_channels`` the logit of action a is the MLP's plus the 1x1 conv's
    output at ``action_index[a]`` (0 for -1, an action off the board)."""
    torch.manual_seed(2)
    index = (0, 7, 11, -1, 5)
    config = NetConfig((3, 2, 3), 5, (8,), (4,), action_channels=2, action_index=index)
    model = ActorCritic(config)
    obs = torch.randn(6, 3, 2, 3)
    mask = torch.ones(6, 5, dtype=torch.bool)
    with torch.no_grad():
        logits, _ = model(obs, mask)
        h = model.torso(obs)
        board = model.action_conv(model.torso[:2](obs)).flatten(1)
        expected = model.actor(h) + torch.stack(
            [board[:, i] if i >= 0 else torch.zeros(6) for i in index], dim=1
        )
    assert torch.allclose(logits, expected, atol=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"conv_channels": ()}, "needs a conv network"),
        ({"action_index": (0, 1)}, "not one per action"),
        ({"action_index": (0, 1, 12)}, "off the 12-logit board"),
    ],
)
def test_board_head_that_does_not_fit_is_refused(kwargs: dict, message: str) -> None:
    config = {"conv_channels": (4,), "action_channels": 2, "action_index": (0, 1, 2), **kwargs}
    with pytest.raises(ValueError, match=message):
        ActorCritic(NetConfig((3, 2, 3), 3, (8,), **config))


def test_action_features_add_each_entry_to_its_action_logit() -> None:
    """``action_features`` (obs start, first action, size): entry i of a field is added to
    action first+i's logit, times the field's weight (0 at first: no change) and
    ``ACTION_FEATURE_GAIN``; other actions and the value are untouched."""
    from choco_envs.policy.net import ACTION_FEATURE_GAIN

    torch.manual_seed(2)
    plain = ActorCritic(NetConfig((10,), 7, (16,)))
    config = NetConfig((10,), 7, (16,), action_features=((2, 1, 3), (8, 5, 2)))
    model = ActorCritic(config)
    state = plain.state_dict()
    state["action_feature_weight"] = torch.zeros(2)
    model.load_state_dict(state, strict=True)
    obs, mask = torch.randn(5, 10), torch.ones(5, 7, dtype=torch.bool)
    (l0, v0), (l1, v1) = plain(obs, mask), model(obs, mask)
    assert torch.allclose(l0, l1) and torch.allclose(v0, v1)
    with torch.no_grad():
        model.action_feature_weight.copy_(torch.tensor([0.5, -2.0]))
    l2, v2 = model(obs, mask)
    expected = l0.clone()
    expected[:, 1:4] += ACTION_FEATURE_GAIN * 0.5 * obs[:, 2:5]
    expected[:, 5:7] += ACTION_FEATURE_GAIN * -2.0 * obs[:, 8:10]
    assert torch.allclose(l2, expected, atol=1e-5) and torch.allclose(v2, v0)
    assert NetConfig.from_json(config.to_json()) == config
    assert "action_features" not in NetConfig((10,), 7).to_json()  # older files read as before


@pytest.mark.parametrize(
    ("features", "shape", "conv", "match"),
    [
        (((8, 0, 3),), (10,), (), "runs past the observation"),
        (((0, 5, 3),), (10,), (), "runs past the observation .* or the actions"),
        (((0, 0, 0),), (10,), (), "malformed"),
        (((0, 0, 2),), (2, 3, 3), (4,), "needs a flat observation"),
    ],
)
def test_bad_action_features_are_refused(features, shape, conv, match) -> None:
    with pytest.raises(ValueError, match=match):
        ActorCritic(NetConfig(shape, 7, (8,), conv, action_features=features))
