"""Tiny-budget runs of every training script in a subprocess (seconds each)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from choco_envs.policy.checkpoint import read_metadata
from tests.training.toy_nim import ENV_ID, REGISTRY_ENTRY

REPO = Path(__file__).resolve().parents[2]
TINY = [
    "--total-timesteps", "1000", "--num-envs", "8", "--num-steps", "8", "--hidden", "16",
    "--eval-every", "5", "--eval-games", "4", "--final-eval-games", "4", "--progress", "false",
]  # fmt: skip


def run_script(script: str, args: list[str], cwd: Path, register_toy: bool = True) -> str:
    """Run ``training/<script>`` as __main__ with the toy game registered."""
    launcher = (
        "import runpy, sys\n"
        "import choco_envs.registry as r\n"
        f"r.REGISTRY[{ENV_ID!r}] = {REGISTRY_ENTRY!r}\n"
        f"sys.argv = [{script!r}] + {args!r}\n"
        f"runpy.run_path({str(REPO / 'training' / script)!r}, run_name='__main__')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-c", launcher] if register_toy else [sys.executable, *args]
    out = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def load_training_script() -> Any:
    from choco_envs.policy.train_cli import load_script

    return load_script(REPO / "training" / "ppo_selfplay.py")


def test_ppo_selfplay_trains_saves_and_logs(tmp_path: Path) -> None:
    args = [*TINY, "--env-id", ENV_ID, "--options", "moves_per_turn=2", "--run-name", "smoke"]
    out = run_script("ppo_selfplay.py", [*args, "--save-path", "a.safetensors"], tmp_path)
    assert "final eval vs greedy" in out
    meta = read_metadata(tmp_path / "a.safetensors")
    assert meta["env_id"] == ENV_ID and meta["options"]["moves_per_turn"] == 2
    assert set(meta["arena"]) == {"random", "greedy"} and meta["arena"]["random"]["games"] == 4
    assert meta["steps_trained"] >= 1000 and "ppo_selfplay.py" in meta["training"]["command"]
    assert list((tmp_path / "runs" / "smoke").glob("events.out.tfevents.*"))
    assert (tmp_path / "runs" / "smoke" / "latest.safetensors").is_file()  # periodic eval


def test_resume_and_worker_processes_with_three_players(tmp_path: Path) -> None:
    """In-process (the script was smoke-tested above): a 3-player run on 2 worker
    processes, then a run resumed from its checkpoint."""
    script = load_training_script()
    base = dict(
        env_id=ENV_ID,
        options={"num_players": 3, "stones": 21},
        total_timesteps=600,
        num_envs=4,
        num_steps=8,
        hidden=(16,),
        eval_every=0,
        final_eval_games=3,
        track=False,
        progress=False,
    )
    first = script.train(
        script.Args(**base, num_workers=2, save_path=str(tmp_path / "c.safetensors"))
    )
    meta = read_metadata(first)
    assert meta["options"]["num_players"] == 3 and meta["observation_shape"] == [27]
    base["total_timesteps"] = meta["steps_trained"] + 300
    second = script.train(
        script.Args(**base, resume=str(first), save_path=str(tmp_path / "d.safetensors"))
    )
    # total_timesteps counts the resumed steps too: the second run adds what is left
    assert read_metadata(second)["steps_trained"] > meta["steps_trained"]
    done = script.train(
        script.Args(**base, resume=str(second), save_path=str(tmp_path / "e.safetensors"))
    )
    # a budget already spent adds no update (the resumed steps are kept as they were)
    assert read_metadata(done)["steps_trained"] == read_metadata(second)["steps_trained"]


def test_sb3_maskable_ppo_trains_through_the_wrapper(tmp_path: Path) -> None:
    args = ["--env-id", ENV_ID, "--total-timesteps", "256", "--num-envs", "2", "--n-steps", "64",
            "--eval-games", "4", "--hidden", "16", "--save-path", "sb3.zip"]  # fmt: skip
    out = run_script("sb3_maskable_ppo.py", args, tmp_path)
    assert "eval vs random: win rate" in out and (tmp_path / "sb3.zip").is_file()


def test_choco_train_runs_the_shipped_config(tmp_path: Path) -> None:
    config = REPO / "configs" / "chocolates_v0" / "ppo.yaml"
    args = ["-m", "choco_envs.cli", "train", "--config", str(config), *TINY, "--track", "false",
            "--save-path", "choc.safetensors", "--max-minutes", "1"]  # fmt: skip
    run_script("", args, tmp_path, register_toy=False)
    meta = read_metadata(tmp_path / "choc.safetensors")
    assert meta["env_id"] == "chocolates_v0" and meta["training"]["command"].startswith(
        "choco train"
    )
    assert json.loads(json.dumps(meta)) == meta


def test_imitation_warm_start_runs_before_ppo_and_is_recorded(tmp_path: Path) -> None:
    """``imitate: greedy``: DAgger rounds fit the network to the toy's (perfect) greedy
    teacher, the imitation checkpoint is saved, then PPO continues from it."""
    args = [*TINY, "--env-id", ENV_ID, "--options", "stones=13", "--run-name", "imit",
            "--imitate", "greedy", "--imitate-rounds", "2", "--imitate-games", "30",
            "--imitate-epochs", "20", "--imitate-opponents", "random=1",
            "--save-path", "i.safetensors"]  # fmt: skip
    out = run_script("ppo_selfplay.py", args, tmp_path)
    assert "imitation round 0:" in out and "imitation round 1:" in out
    assert (tmp_path / "runs" / "imit" / "imitation.safetensors").is_file()
    imitation = read_metadata(tmp_path / "i.safetensors")["training"]["imitation"]
    assert imitation["teacher"] == "greedy" and imitation["decisions"] > 30
    assert set(imitation["arena"]) == {"random", "greedy"}


def test_imitation_refuses_zero_rounds(tmp_path: Path) -> None:
    import pytest

    script = load_training_script()
    args = script.Args(env_id=ENV_ID, imitate="greedy", imitate_rounds=0, total_timesteps=0,
                       track=False, progress=False, final_eval_games=0,
                       save_path=str(tmp_path / "z.safetensors"))  # fmt: skip
    with pytest.raises(ValueError, match="imitate_rounds=0"):
        script.train(args)


def test_probe_chocolates_truth_prints_its_table(tmp_path: Path) -> None:
    out = run_script(
        "probe_chocolates_truth.py",
        ["--games", "30", "--test-games", "5", "--epochs", "1"],
        tmp_path,
    )
    assert "| base rate |" in out and "| beliefs display_truth |" in out
    assert "| MLP on flat, best of 1 epochs |" in out


def test_chocolates_tradeoff_plays_each_bot_and_refuses_a_bad_spec(tmp_path: Path) -> None:
    bots = ["greedy:min_confidence=0", "greedy:min_confidence=1"]
    args = ["--bots", *bots, "--games", "4", "--json", "t.json", "--plot", "t.png"]
    out = run_script("chocolates_tradeoff.py", args, tmp_path)
    assert (tmp_path / "t.png").read_bytes().startswith(b"\x89PNG")
    assert "| `greedy:min_confidence=0` |" in out and "| `greedy:min_confidence=1` |" in out
    rows = json.loads((tmp_path / "t.json").read_text())
    assert [r["player"] for r in rows] == bots
    assert all(r[o]["games"] == 4 for r in rows for o in ("random", "greedy"))
    bad = subprocess.run(
        [
            sys.executable,
            str(REPO / "training" / "chocolates_tradeoff.py"),
            "--bots",
            "greedy:min_confidence=2",
        ],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "min_confidence='2' is not allowed" in bad.stderr


def test_board_actions_train_and_refuse_an_env_without_action_planes(tmp_path: Path) -> None:
    """``board_actions``: Le Chocolat's conv net scores actions on the board; an
    observation with no action planes is refused before anything runs."""
    script = load_training_script()
    base = dict(
        env_id="le_chocolat_v0", encoder="planes", conv_channels=(4,), hidden=(8,),
        board_actions=True, total_timesteps=256, num_envs=4, num_steps=16, eval_every=0,
        final_eval_games=0, track=False, progress=False,
    )  # fmt: skip
    path = script.train(script.Args(**base, save_path=str(tmp_path / "b.safetensors")))
    assert read_metadata(path)["network"]["action_channels"] == 3
    import pytest

    from choco_envs.core.errors import ConfigError

    flat = {**base, "encoder": "flat", "conv_channels": ()}
    with pytest.raises(ConfigError, match="places no actions on a board"):
        script.train(script.Args(**flat, save_path=str(tmp_path / "f.safetensors")))


def test_keep_best_ends_with_the_best_evaluated_weights(tmp_path: Path) -> None:
    """``keep_best``: the saved weights are those of the periodic evaluation with the best
    mean win rate (saved as runs/<run>/best.safetensors), not the last update's; the
    final evaluation then measures them on other deals."""
    from safetensors.torch import load_file

    args = [*TINY, "--env-id", ENV_ID, "--eval-every", "2", "--run-name", "keep"]
    out = run_script(
        "ppo_selfplay.py", [*args, "--keep-best", "true", "--save-path", "k.safetensors"], tmp_path
    )
    assert "keeping the weights of step" in out
    meta = read_metadata(tmp_path / "k.safetensors")
    best_file = tmp_path / "runs" / "keep" / "best.safetensors"
    best_meta = read_metadata(best_file)
    kept = meta["training"]["kept_best"]
    periodic = np.mean([r["win_rate"] for r in best_meta["arena"].values()])
    assert kept["at_step"] == best_meta["steps_trained"]
    assert kept["eval_mean_win_rate"] == round(float(periodic), 4)
    final, best = load_file(tmp_path / "k.safetensors"), load_file(best_file)
    assert final.keys() == best.keys()
    assert all(torch.equal(final[k], best[k]) for k in final)


def test_a_bad_save_path_is_refused_before_training(tmp_path: Path) -> None:
    """The checkpoint suffix is checked before any step is played, not after the run."""
    from choco_envs.core.errors import ConfigError

    script = load_training_script()
    args = script.Args(env_id=ENV_ID, save_path=str(tmp_path / "model.pt"), track=False)
    with pytest.raises(ConfigError, match=r"model\.pt.*must end in '\.safetensors'"):
        script.train(args)
    assert not list(tmp_path.iterdir())


def test_keep_best_weights_weigh_the_opponents_and_are_checked(tmp_path: Path) -> None:
    """The keep_best criterion is the weighted mean of the evaluation win rates; weights
    for an opponent that is not evaluated, negative or all-zero weights are refused."""
    from choco_envs.core.errors import ConfigError

    script = load_training_script()
    arena = {"random": {"win_rate": 0.9}, "greedy": {"win_rate": 0.5}}
    assert script.best_score(arena, {"random": 1, "greedy": 1}) == pytest.approx(0.7)
    assert script.best_score(arena, {"random": 3, "greedy": 1}) == pytest.approx(0.8)
    assert script.best_score(arena, {"greedy": 1}) == pytest.approx(0.5)
    for bad in ({"mcts": 1.0}, {"random": -1.0}, {"random": 0, "greedy": 0}):
        args = script.Args(env_id=ENV_ID, keep_best_weights=bad, track=False)
        with pytest.raises(ConfigError, match="keep_best_weights .* is not allowed"):
            script.train(args)
    args = script.Args(env_id=ENV_ID, keep_best=True, eval_every=0, track=False)
    with pytest.raises(ConfigError, match="keep_best chooses among periodic evaluations"):
        script.train(args)


def test_observation_cost_times_each_encoder_and_the_greedy_move(tmp_path: Path) -> None:
    args = ["--env", "chocolates_v0", "--encoder", "flat", "beliefs", "--games", "2"]
    out = run_script("observation_cost.py", args, tmp_path)
    for key in ("encoder:flat", "encoder:beliefs", "greedy"):
        assert f"chocolates_v0 {key}: " in out and " ms a step" in out
    bad = subprocess.run(
        [sys.executable, str(REPO / "training" / "observation_cost.py"), "--env",
         "chocolates_v0", "--encoder", "nope"],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and "observation='nope' is not allowed" in bad.stderr
    greedy = run_script("observation_cost.py", [*args[:-1], "1", "--play", "greedy"], tmp_path)
    assert "chocolates_v0 encoder:beliefs: " in greedy and "ms a step (greedy play)" in greedy


def test_chocolatiers_greedy_tuning_plays_each_setting_and_refuses_a_bad_spec(
    tmp_path: Path,
) -> None:
    bots = ["greedy:contest=10", "greedy:used_cost=1.2"]
    args = ["--bots", *bots, "--games", "4", "--edition", "classic", "--workers", "1"]
    out = run_script("chocolatiers_greedy_tuning.py", [*args, "--json", "t.json"], tmp_path)
    assert (
        "| classic | `greedy:contest=10` |" in out and "| classic | `greedy:used_cost=1.2` |" in out
    )
    rows = json.loads((tmp_path / "t.json").read_text())
    assert [r["player"] for r in rows] == bots and all(r["games"] == 4 for r in rows)
    bad = subprocess.run(
        [sys.executable, str(REPO / "training" / "chocolatiers_greedy_tuning.py"), "--bots",
         "greedy:contest=-1"],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and "contest='-1' is not allowed" in bad.stderr


def test_chocolatiers_agreement_counts_disagreement_by_decision(tmp_path: Path) -> None:
    """The shipped classic policy against its teacher: one row per kind of decision and
    an 'all' row; a teacher that is not greedy is refused."""
    path = REPO / "checkpoints" / "chocolatiers_v1" / "ppo_classic.safetensors"
    out = run_script("chocolatiers_agreement.py", [str(path), "--games", "1"], tmp_path)
    assert "| decision (teacher's) | count | differ |" in out and "| all |" in out
    assert "| take |" in out and "| place |" in out
    bad = subprocess.run(
        [sys.executable, str(REPO / "training" / "chocolatiers_agreement.py"), str(path),
         "--teacher", "mcts"],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and "allowed: greedy" in bad.stderr
