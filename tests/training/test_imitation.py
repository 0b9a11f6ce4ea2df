"""The imitation warm start (choco_envs.train.imitation) on the toy Nim, whose greedy
bot plays perfectly (leave a multiple of 4)."""

from __future__ import annotations

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
        mode_marks=None,
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
