"""The imitation warm start (choco_envs.train.imitation) on the toy Nim, whose greedy
bot plays perfectly (leave a multiple of 4)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from tests.training.conftest import toy_model
from tests.training.toy_nim import ENV_ID

torch = pytest.importorskip("torch")

from choco_envs.train.evaluate import evaluate  # noqa: E402
from choco_envs.train.imitation import Demos, collect, fit  # noqa: E402

OPTIONS = {"stones": 13}


def nim_label(obs_stones: int) -> int:
    """What the toy greedy does with ``obs_stones`` stones: take stones % 4, else 1."""
    take = obs_stones % 4
    return take - 1 if take else 0


def test_round_zero_records_the_teachers_action_at_every_teacher_decision() -> None:
    demos = collect(ENV_ID, OPTIONS, "flat", "greedy", games=6, seed=3)
    # the teacher plays every seat (default opponents: the teacher itself), so every
    # decision is recorded: at least 4 per game (13 stones, at most 3 per move)
    assert len(demos) >= 6 * 4
    for obs, mask, action in zip(demos.obs, demos.mask, demos.action, strict=True):
        stones = int(np.argmax(obs[:22]))  # the toy encodes the pile one-hot first
        assert mask[action], "a label must be legal"
        assert action == nim_label(stones)


def test_demonstrations_store_the_policy_inputs_in_half_precision() -> None:
    """The recorded inputs are kept as float16 (half the bytes of the largest array of an
    imitation run) and equal the network's float32 input where float16 holds it exactly
    (the toy's one-hot pile: fit reads them back as float32)."""
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.registry import make_game
    from choco_envs.train.imitation import DEMO_DTYPE

    demos = collect(ENV_ID, OPTIONS, "flat", "greedy", games=3, seed=3)
    assert DEMO_DTYPE == np.float16 and demos.obs.dtype == np.float16
    game = make_game(ENV_ID, **OPTIONS)
    inputs = PolicyInputs(game, "flat")
    first = inputs.encode(game.new_state(random.Random(3)), 0)  # collect's first deal
    np.testing.assert_array_equal(demos.obs[0].astype(np.float32), first)


def test_an_input_beyond_half_precision_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from choco_envs.policy import features

    real = features.PolicyInputs.encode

    def huge(self: object, state: object, seat: int) -> np.ndarray:
        x = real(self, state, seat).copy()  # type: ignore[arg-type]
        x[0] = 1e6
        return x

    monkeypatch.setattr(features.PolicyInputs, "encode", huge)
    with pytest.raises(ValueError, match="reaches 1000000.0, beyond what demonstrations store"):
        collect(ENV_ID, OPTIONS, "flat", "greedy", games=1, seed=3)


def test_returns_are_the_recorded_seats_final_returns() -> None:
    demos = collect(ENV_ID, OPTIONS, "flat", "greedy", games=4, seed=5)
    assert set(np.unique(demos.ret).tolist()) <= {-1.0, 1.0}
    assert (demos.ret == 1.0).any() and (demos.ret == -1.0).any()


def test_random_opponent_decisions_are_not_recorded() -> None:
    only_teacher = collect(ENV_ID, OPTIONS, "flat", "greedy", games=20, seed=7)
    with_random = collect(
        ENV_ID, OPTIONS, "flat", "greedy", games=20, seed=7, opponents={"random": 1.0}
    )
    assert 0 < len(with_random) < len(only_teacher)


def test_fitting_the_perfect_nim_teacher_learns_its_moves_and_wins() -> None:
    torch.manual_seed(0)
    model = toy_model(stones=13)
    before = evaluate(model, ENV_ID, OPTIONS, "flat", "greedy", 40, seed=11)["win_rate"]
    parts = [collect(ENV_ID, OPTIONS, "flat", "greedy", 60, seed=1, opponents={"random": 1.0})]
    parts.append(
        collect(
            ENV_ID, OPTIONS, "flat", "greedy", 60, seed=2, student=model, opponents={"random": 1.0}
        )
    )
    stats = fit(model, Demos.concat(parts), epochs=60, seed=0, learning_rate=3e-3, batch_size=64)
    assert stats["imitation/holdout_accuracy"] >= 0.9
    vs_random = evaluate(model, ENV_ID, OPTIONS, "flat", "random", 40, seed=11)["win_rate"]
    assert vs_random >= 0.9, (before, vs_random)


def test_dagger_round_labels_the_students_own_states() -> None:
    """With a student that always takes 1 stone, the recorded actions are still the
    teacher's, and the games follow the student's moves (more decisions per game)."""
    model = toy_model(stones=13)
    with torch.no_grad():
        model.actor.weight.zero_()
        model.actor.bias.copy_(torch.tensor([5.0, 0.0, 0.0]))  # always "take 1"
    teacher_only = collect(ENV_ID, OPTIONS, "flat", "greedy", 10, seed=4, opponents={"random": 1.0})
    student = collect(
        ENV_ID, OPTIONS, "flat", "greedy", 10, seed=4, student=model, opponents={"random": 1.0}
    )
    assert len(student) != len(teacher_only)
    assert (student.action != 0).any(), "labels come from the teacher, not the student"


def test_a_round_over_worker_processes_records_what_one_process_records() -> None:
    """The round's tables (here two Nim sizes) collected over 2 forked workers give the
    same demonstrations, in the same order, as one process: each table's games carry
    their own seed, and the student plays its own weights in every worker."""
    from types import SimpleNamespace

    from choco_envs.train.imitation import collect_jobs, round_jobs

    model = toy_model(stones=13)
    args = SimpleNamespace(
        env_id=ENV_ID, encoder="flat", imitate="greedy", imitate_games=9, seed=5,
        imitate_opponents={"random": 1.0}, margin_coef=0.0, feature="", max_players=0,
        mode_marks=None, imitate_soft=False,
    )  # fmt: skip
    tables = [{"stones": 13}, {"stones": 10}, {"stones": 21}]
    jobs = round_jobs(args, tables, 1, student=model)
    assert [j["games"] for j in jobs] == [3, 3, 3]
    assert len({j["seed"] for j in jobs}) == 3
    ticks: list[int] = []
    one = collect_jobs(jobs, 0)
    two = collect_jobs(jobs, 2, tick=ticks.append)
    assert sorted(ticks) == ticks and ticks[-1] == 9  # told as each table's games end
    assert [len(d) for d in one] == [len(d) for d in two] and all(len(d) for d in one)
    for a, b in zip(one, two, strict=True):
        for field in ("obs", "mask", "action", "ret"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


# ---------------------------------------------------------------- soft (policy) labels
def test_a_soft_round_records_the_searchs_improved_policy_at_each_decision(
    toy_checkpoint: Path,
) -> None:
    """``imitate_soft``: each record keeps the teacher's policy over every action, the
    search's improved policy at the legal actions (``AZBot.policy_view``), 0 on the
    illegal ones, all on the move when only one is legal."""
    teacher = f"az:checkpoint={toy_checkpoint},simulations=8"
    demos = collect(ENV_ID, OPTIONS, "flat", teacher, games=4, seed=3, soft=True)
    assert demos.target is not None and demos.target.shape == demos.mask.shape
    np.testing.assert_allclose(demos.target.sum(axis=1), 1.0, atol=1e-5)
    assert not demos.target[~demos.mask].any(), "no probability on an illegal action"
    searched = demos.mask.sum(axis=1) > 1
    assert searched.all()  # 13 stones, every seat wins or loses before one stone is left
    spread = (demos.target > 0).sum(axis=1)
    np.testing.assert_array_equal(spread, demos.mask.sum(axis=1))  # every legal action kept
    again = collect(ENV_ID, OPTIONS, "flat", teacher, games=4, seed=3, soft=True)
    np.testing.assert_array_equal(demos.target, again.target)
    hard = collect(ENV_ID, OPTIONS, "flat", teacher, games=4, seed=3)
    assert hard.target is None
    np.testing.assert_array_equal(hard.action, demos.action)  # the same search, same moves


def test_policy_view_is_the_last_searchs_policy_and_action(toy_checkpoint: Path) -> None:
    from choco_envs import bots
    from choco_envs.bots.base import AgentView
    from choco_envs.registry import make_game

    game = make_game(ENV_ID, **OPTIONS)
    state = game.new_state(__import__("random").Random(1))
    mask = game.legal_mask(state)
    view = AgentView(game, state, 0, game.observe(state, 0), mask)
    bot = bots.make(f"az:checkpoint={toy_checkpoint},simulations=8", env_id=ENV_ID, seed=2)
    action, policy = bot.policy_view(view)
    result = bot.last_result
    assert result is not None and action == result.action
    assert policy.shape == (game.num_actions,)
    np.testing.assert_allclose(policy[result.legal], result.policy, rtol=1e-6)
    assert policy.sum() == pytest.approx(1.0, abs=1e-5)
    # one stone left: the move is forced, played without a search, its policy all on it
    from tests.training.toy_nim.rules import NimState

    last = NimState(1, 1, 1, -1)
    bot.last_result = None
    forced = AgentView(game, last, 1, game.observe(last, 1), game.legal_mask(last))
    action, policy = bot.policy_view(forced)
    assert action == 0 and policy.tolist() == [1.0, 0.0, 0.0] and bot.last_result is None


def test_fitting_soft_targets_learns_the_teachers_distribution_not_its_argmax() -> None:
    """The soft loss pulls the policy to the target distribution (0.6 / 0.3 / 0.1); the
    same decisions with hard labels (the argmax, action 0) pull it towards action 0."""
    base = collect(ENV_ID, OPTIONS, "flat", "greedy", games=8, seed=1, opponents={"random": 1.0})
    keep = base.mask.all(axis=1)  # decisions where all three takes are legal
    obs, mask = base.obs[keep], base.mask[keep]
    n = len(obs)
    assert n >= 10
    target = np.tile(np.array([0.6, 0.3, 0.1], dtype=np.float32), (n, 1))
    ret = np.zeros(n, dtype=np.float32)
    action = np.zeros(n, dtype=np.int64)
    probs = {}
    for name, demos in (
        ("soft", Demos(obs, mask, action, ret, target)),
        ("hard", Demos(obs, mask, action, ret)),
    ):
        torch.manual_seed(0)
        model = toy_model(stones=13)
        stats = fit(model, demos, epochs=300, seed=0, learning_rate=1e-2, batch_size=64)
        with torch.no_grad():
            logits, _ = model(torch.from_numpy(obs).float(), torch.from_numpy(mask))
        probs[name] = torch.softmax(logits, -1).mean(0).numpy()
        assert ("imitation/holdout_soft_ce" in stats) == (name == "soft")
    np.testing.assert_allclose(probs["soft"], [0.6, 0.3, 0.1], atol=0.05)
    assert probs["hard"][0] > 0.9


def test_imitate_soft_needs_a_teacher_that_gives_a_policy(tmp_path: Path) -> None:
    from choco_envs.core.errors import ConfigError
    from choco_envs.train.ppo import Args, prepare

    with pytest.raises(ConfigError, match="imitate='greedy' gives only its action"):
        collect(ENV_ID, OPTIONS, "flat", "greedy", games=1, seed=1, soft=True)
    with pytest.raises(ConfigError, match="imitate='greedy' gives only its action"):
        prepare(Args(env_id=ENV_ID, imitate="greedy", imitate_soft=True, runs_dir=str(tmp_path)))
    with pytest.raises(ConfigError, match="imitate_soft=True is not allowed without a teacher"):
        prepare(Args(env_id=ENV_ID, imitate_soft=True, runs_dir=str(tmp_path)))


def test_soft_and_hard_demonstrations_do_not_mix() -> None:
    hard = collect(ENV_ID, OPTIONS, "flat", "greedy", games=1, seed=1)
    soft = Demos(hard.obs, hard.mask, hard.action, hard.ret, hard.mask.astype(np.float32))
    with pytest.raises(ValueError, match="soft .* and hard"):
        Demos.concat([hard, soft])
    both = Demos.concat([soft, soft])
    assert both.target is not None and len(both.target) == 2 * len(hard)
