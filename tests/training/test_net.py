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
