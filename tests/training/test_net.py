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
        conv = model.conv(obs)
        h = model.mlp(conv.flatten(1))
        board = model.action_conv(conv).flatten(1)
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


@pytest.mark.parametrize(
    "config",
    [
        NetConfig((10,), 7, (32, 16)),
        NetConfig((10,), 7, ()),
        NetConfig((10,), 7, (8,), extra_inputs=3),
        NetConfig((3, 2, 3), 5, (8,), (4, 6), action_channels=2, action_index=(0, 7, 11, -1, 5)),
        NetConfig((3, 2, 3), 5, (8,), (4,), extra_inputs=2),
        NetConfig((4,), 6, (8,), extra_inputs=9, action_facts=(2, 3, 4, 3, 5), facts_context=True),
        NetConfig(
            (2, 2, 2),
            6,
            (8,),
            (3,),
            extra_inputs=11,
            action_facts=(2, 3, 10, 3, 5),
            facts_head_only=True,
            facts_context=True,
        ),
        NetConfig(
            (4,),
            9,
            (8,),
            extra_inputs=13,
            action_facts=(2, 3, 4, 3, 5, 6, 2, 13, 2, 5),
            facts_head_only=True,
            facts_context=True,
        ),  # fmt: skip
        NetConfig(
            (4,),
            9,
            (8,),
            extra_inputs=13,
            action_facts=(2, 3, 4, 3, 5, 6, 2, 13, 2, 5),
            facts_head_only=True,
            value_outputs=2,
            facts_pool=True,
        ),  # fmt: skip
    ],
    ids=[
        "mlp",
        "linear",
        "mlp+extra",
        "conv+board",
        "conv+extra",
        "facts+context",
        "conv+facts+context",
        "two-fact-heads+context",
        "two-fact-heads+pool",
    ],
)
def test_parameter_shapes_are_the_state_dict_of_the_network(config: NetConfig) -> None:
    """What the checkpoint loader checks a file against, before building anything."""
    from choco_envs.policy.net import parameter_shapes

    state = ActorCritic(config).state_dict()
    assert {k: tuple(v.shape) for k, v in state.items()} == parameter_shapes(config)
    assert NetConfig.from_json(config.to_json()) == config


def test_extra_inputs_reach_the_mlp_after_the_conv_stack() -> None:
    """The policy input of a conv net is the flattened planes, then the feature inputs:
    changing only the extra inputs changes the output; planes-shaped input is accepted
    without extras."""
    torch.manual_seed(3)
    model = ActorCritic(NetConfig((3, 2, 3), 5, (8,), (4,), extra_inputs=2))
    x = torch.randn(4, 18 + 2)
    mask = torch.ones(4, 5, dtype=torch.bool)
    with torch.no_grad():
        base, _ = model(x, mask)
        x2 = x.clone()
        x2[:, 18:] += 1.0
        moved, _ = model(x2, mask)
    assert not torch.allclose(base, moved)
    plain = ActorCritic(NetConfig((3, 2, 3), 5, (8,), (4,)))
    planes = torch.randn(4, 3, 2, 3)
    with torch.no_grad():
        assert torch.equal(plain(planes, mask)[0], plain(planes.flatten(1), mask)[0])


def test_action_fact_head_scores_each_action_from_its_own_block_with_shared_weights() -> None:
    """NetConfig.action_facts: one head, shared by the actions, adds to each action's logit
    a score of that action's own block of facts; it starts at 0 (a widened file plays as
    before), and swapping two actions' blocks swaps their scores."""
    torch.manual_seed(5)
    base = NetConfig((4,), 6, (8,), extra_inputs=9)
    headed = NetConfig((4,), 6, (8,), extra_inputs=9, action_facts=(2, 3, 4, 3, 5))
    plain, model = ActorCritic(base), ActorCritic(headed)
    model.load_state_dict({**model.state_dict(), **plain.state_dict()})
    x = torch.randn(3, 13)
    mask = torch.ones(3, 6, dtype=torch.bool)
    with torch.no_grad():
        assert torch.equal(model(x, mask)[0], plain(x, mask)[0])  # the head starts at 0
        assert model.fact_head is not None
        torch.nn.init.normal_(model.fact_head[2].weight)
        scores = model(x, mask)[0] - plain(x, mask)[0]
        assert torch.equal(scores[:, [0, 1, 5]], torch.zeros(3, 3))  # other actions untouched
        assert (scores[:, 2:5] != 0).all()
        swapped = x.clone()
        swapped[:, 4:7], swapped[:, 7:10] = x[:, 7:10], x[:, 4:7]  # actions 2 and 3's facts
        moved = model(swapped, mask)[0] - plain(swapped, mask)[0]
    torch.testing.assert_close(moved[:, 2], scores[:, 3])
    torch.testing.assert_close(moved[:, 3], scores[:, 2])
    torch.testing.assert_close(moved[:, 4], scores[:, 4])


@pytest.mark.parametrize(
    ("facts", "message"),
    [
        ((2, 3, 4), "first action, count, start, block, width"),
        ((4, 3, 4, 3, 5), "not within the 6 actions"),
        ((2, 3, 6, 3, 5), "not within the 13 inputs"),
        ((2, 3, 4, 3, 0), "width 0"),
        ((2, 3, 4, 3, 5, 4, 1, 4, 3), "per group of actions"),
        ((2, 3, 4, 3, 5, 4, 1, 4, 3, 5), "overlap"),
    ],
)
def test_action_fact_head_that_does_not_fit_is_refused(facts: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ActorCritic(NetConfig((4,), 6, (8,), extra_inputs=9, action_facts=facts))


def test_action_fact_head_parameters_are_declared() -> None:
    from choco_envs.policy.net import parameter_shapes

    config = NetConfig((4,), 6, (8,), extra_inputs=9, action_facts=(2, 3, 4, 3, 5))
    state = ActorCritic(config).state_dict()
    assert {k: tuple(v.shape) for k, v in state.items()} == parameter_shapes(config)
    assert NetConfig.from_json(config.to_json()) == config


@pytest.mark.parametrize(
    "config",
    [
        NetConfig((4,), 6, (8,), extra_inputs=11, action_facts=(2, 3, 4, 3, 5), facts_head_only=True),
        NetConfig((2, 2, 2), 6, (8,), (3,), extra_inputs=11, action_facts=(2, 3, 10, 3, 5),
                  facts_head_only=True),
    ],
    ids=["mlp", "conv"],
)  # fmt: skip
def test_facts_head_only_keeps_the_facts_out_of_the_torso(config: NetConfig) -> None:
    """NetConfig.facts_head_only: the torso's first layer is narrower by the fact inputs
    (declared as such: the loader checks a file against it), the value and every action
    outside the fact head ignore the facts, and the head still reads them."""
    from choco_envs.policy.net import parameter_shapes

    torch.manual_seed(2)
    model = ActorCritic(config)
    state = model.state_dict()
    assert {k: tuple(v.shape) for k, v in state.items()} == parameter_shapes(config)
    assert NetConfig.from_json(config.to_json()) == config
    wide = ActorCritic(NetConfig(**{**config.__dict__, "facts_head_only": False}))
    assert wide.mlp[0].weight.shape[1] - model.mlp[0].weight.shape[1] == 9  # 3 blocks of 3
    _, count, start, block, _ = config.action_facts
    x = torch.randn(3, config.input_size)
    moved = x.clone()
    moved[:, start : start + count * block] += 1.0
    mask = torch.ones(3, 6, dtype=torch.bool)
    with torch.no_grad():
        logits, value = model(x, mask)
        logits2, value2 = model(moved, mask)
        assert torch.equal(value, value2)
        assert torch.equal(logits[:, [0, 1, 5]], logits2[:, [0, 1, 5]])
        assert model.fact_head is not None
        torch.nn.init.normal_(model.fact_head[2].weight)
        assert not torch.equal(model(x, mask)[0][:, 2:5], model(moved, mask)[0][:, 2:5])


def test_facts_head_only_without_facts_or_as_a_non_bool_is_refused() -> None:
    from choco_envs.core.errors import CheckpointError

    with pytest.raises(ValueError, match="facts_head_only needs action_facts"):
        ActorCritic(NetConfig((4,), 6, (8,), facts_head_only=True))
    data = NetConfig((4,), 6, (8,), extra_inputs=9, action_facts=(2, 3, 4, 3, 5)).to_json()
    with pytest.raises(CheckpointError, match="facts_head_only is not a bool: 'yes'"):
        NetConfig.from_json({**data, "facts_head_only": "yes"})


def test_the_fact_heads_context_weighs_each_actions_facts_against_the_position() -> None:
    """NetConfig.facts_context: the head's first layer also reads the torso's last
    hidden layer h (one map shared by the actions): score(a) = w2 . tanh(W1 facts(a) + b1
    + Wc h) + b2. Wc starts at 0 (the network plays as the one without context), and the
    same facts score differently in two positions once it is not."""
    torch.manual_seed(7)
    plain_config = NetConfig((4,), 6, (8,), extra_inputs=9, action_facts=(2, 3, 4, 3, 5))
    plain = ActorCritic(plain_config)
    model = ActorCritic(NetConfig(**{**plain_config.__dict__, "facts_context": True}))
    missing, unexpected = model.load_state_dict(plain.state_dict(), strict=False)
    assert missing == ["fact_context.weight"] and not unexpected
    assert model.fact_head is not None and model.fact_context is not None
    x = torch.randn(4, 13)
    mask = torch.ones(4, 6, dtype=torch.bool)
    with torch.no_grad():
        torch.nn.init.normal_(model.fact_head[2].weight)
        plain.fact_head[2].weight.copy_(model.fact_head[2].weight)  # type: ignore[index]
        assert torch.equal(model(x, mask)[0], plain(x, mask)[0])  # the context starts at 0
        torch.nn.init.normal_(model.fact_context.weight)
        logits = model(x, mask)[0]
        h = model.mlp(x)  # no facts_head_only: the torso reads every input
        facts = x[:, 4:13].reshape(4, 3, 3)
        first, _, out = model.fact_head
        pre = first(facts) + (h @ model.fact_context.weight.T).unsqueeze(1)
        expected = out(torch.tanh(pre)).squeeze(-1)
        torch.testing.assert_close(logits[:, 2:5], model.actor(h)[:, 2:5] + expected)
        torch.testing.assert_close(logits[:, [0, 1, 5]], model.actor(h)[:, [0, 1, 5]])
        # the same facts in another position (other torso inputs) score differently
        other = x.clone()
        other[:, :4] = torch.randn(4, 4)
        moved = model(other, mask)[0] - model.actor(model.mlp(other))
        assert not torch.allclose(moved[:, 2:5], expected)


def test_the_fact_heads_pool_reads_what_the_legal_actions_offer_together() -> None:
    """NetConfig.facts_pool: each action's head also reads, through one map P, the largest
    over the group's legal actions of each squashed first-layer unit, u = max_legal
    tanh(W1 facts(b) + b1), and the values add V u: score(a) = w2 . tanh(W1 facts(a) + b1
    + P u) + b2. P and V start at 0 (the network plays as the one without the pool); once
    they are not, an action's score moves with another legal action's facts, never with an
    illegal one's."""
    torch.manual_seed(11)
    plain_config = NetConfig((4,), 6, (8,), extra_inputs=9, action_facts=(2, 3, 4, 3, 5),
                             facts_head_only=True, value_outputs=2)  # fmt: skip
    plain = ActorCritic(plain_config)
    model = ActorCritic(NetConfig(**{**plain_config.__dict__, "facts_pool": True}))
    missing, unexpected = model.load_state_dict(plain.state_dict(), strict=False)
    assert sorted(missing) == ["fact_pool_values.0.weight", "fact_pools.0.weight"]
    assert not unexpected and model.fact_head is not None
    x = torch.randn(4, 13)
    mask = torch.ones(4, 6, dtype=torch.bool)
    mask[:, 4] = False  # the group's third action (action 4) is illegal
    with torch.no_grad():
        torch.nn.init.normal_(model.fact_head[2].weight)
        plain.fact_head[2].weight.copy_(model.fact_head[2].weight)  # type: ignore[index]
        for a, b in zip(model(x, mask), plain(x, mask), strict=True):
            assert torch.equal(a, b)  # the pool starts at 0
        torch.nn.init.normal_(model.fact_pools[0].weight)
        torch.nn.init.normal_(model.fact_pool_values[0].weight)
        logits, values = model(x, mask)
        h = model.mlp(x[:, :4])
        facts = x[:, 4:13].reshape(4, 3, 3)
        first, _, out = model.fact_head
        units = torch.tanh(first(facts))
        pooled = units[:, :2].amax(dim=1)  # over actions 2 and 3, the legal ones
        pre = first(facts) + (pooled @ model.fact_pools[0].weight.T).unsqueeze(1)
        expected = out(torch.tanh(pre)).squeeze(-1)
        torch.testing.assert_close(logits[:, 2:4], model.actor(h)[:, 2:4] + expected[:, :2])
        torch.testing.assert_close(
            values, model.critic(h) + pooled @ model.fact_pool_values[0].weight.T
        )
        # another legal action's facts move action 2's score; the illegal one's do not
        other = x.clone()
        other[:, 7:10] = torch.randn(4, 3)  # action 3's facts
        assert not torch.allclose(model(other, mask)[0][:, 2], logits[:, 2])
        hidden = x.clone()
        hidden[:, 10:13] = torch.randn(4, 3)  # action 4's facts (illegal)
        torch.testing.assert_close(model(hidden, mask)[0][:, 2], logits[:, 2])
        torch.testing.assert_close(model(hidden, mask)[1], values)
        # a row with no legal action in the group pools nothing (0), not -inf
        none = mask.clone()
        none[:, 2:5] = False
        assert torch.isfinite(model(x, none)[1]).all()


@pytest.mark.parametrize("field", ["facts_context", "facts_pool"])
def test_a_head_map_without_facts_or_as_a_non_bool_is_refused(field: str) -> None:
    from choco_envs.core.errors import CheckpointError

    with pytest.raises(ValueError, match=f"{field} needs action_facts"):
        ActorCritic(NetConfig((4,), 6, (8,), **{field: True}))
    data = NetConfig((4,), 6, (8,), extra_inputs=9, action_facts=(2, 3, 4, 3, 5)).to_json()
    assert NetConfig.from_json({k: v for k, v in data.items() if k != field}) == (
        NetConfig.from_json(data)
    )  # a file written before the field reads as without it
    with pytest.raises(CheckpointError, match=f"{field} is not a bool"):
        NetConfig.from_json({**data, field: 1})


def test_each_group_of_actions_is_scored_by_its_own_head() -> None:
    """NetConfig.action_facts with two groups: each group's head adds its scores to its own
    actions only, from its own blocks; both start at 0 (a file widened into them plays as
    before); with facts_head_only the torso reads neither group's facts."""
    torch.manual_seed(7)
    # actions 0..1 (blocks of 3 at inputs 4..9), actions 5..7 (blocks of 2 at 10..15)
    facts = (0, 2, 4, 3, 5, 5, 3, 10, 2, 5)
    plain = ActorCritic(NetConfig((4,), 9, (8,), extra_inputs=12))
    model = ActorCritic(NetConfig((4,), 9, (8,), extra_inputs=12, action_facts=facts))
    model.load_state_dict({**model.state_dict(), **plain.state_dict()})
    x = torch.randn(3, 16)
    mask = torch.ones(3, 9, dtype=torch.bool)
    with torch.no_grad():
        assert torch.equal(model(x, mask)[0], plain(x, mask)[0])
        assert model.fact_head is not None and len(model.fact_heads) == 1
        torch.nn.init.normal_(model.fact_heads[0][2].weight)  # the second group's head only
        scores = model(x, mask)[0] - plain(x, mask)[0]
        assert torch.equal(scores[:, [0, 1, 2, 3, 4, 8]], torch.zeros(3, 6))
        assert (scores[:, 5:8] != 0).all()
        other = x.clone()
        other[:, 4:10] += 1.0  # the first group's facts move nothing while its head is 0
        assert torch.equal(model(other, mask)[0] - plain(other, mask)[0], scores)
    only = ActorCritic(NetConfig((4,), 9, (8,), extra_inputs=12, action_facts=facts,
                                 facts_head_only=True))  # fmt: skip
    assert only.mlp[0].weight.shape[1] == 16 - 6 - 6
