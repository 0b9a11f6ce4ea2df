"""`choco train --engine rllib` reaches the RLlib trainer's own options."""

from __future__ import annotations

import pytest

from choco_envs.cli import main


def test_engine_rllib_help_lists_the_rllib_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["train", "--engine", "rllib", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--num-env-runners NUM_ENV_RUNNERS" in out and "--address" in out


def test_the_default_engine_keeps_the_ppo_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    assert "--engine {ppo,az,rllib}" in out and "--league-self-play" in out
    assert "--num-env-runners NUM_ENV_RUNNERS" not in out


def test_engine_rllib_reads_its_config_from_the_configs_folder(monkeypatch, tmp_path) -> None:
    """``choco train --engine rllib --config configs/chocolates_v0/rllib.yaml``: the one
    loader reads it (flags over it) and the RLlib trainer gets those Args."""
    from pathlib import Path

    pytest.importorskip("ray.rllib")
    from choco_envs.integrations.rllib import train as train_module

    trained = []
    monkeypatch.setattr(
        train_module, "train", lambda args, command="": trained.append((args, command))
    )
    config = Path(__file__).resolve().parents[2] / "configs" / "chocolates_v0" / "rllib.yaml"
    assert main(["train", "--engine", "rllib", "--config", str(config), "--iterations", "1"]) == 0
    ((args, _command),) = trained
    assert args.env_id == "chocolates_v0" and args.iterations == 1
    assert args.update_epochs == 4 and args.pool_size == 5 and args.final_eval_games == 200
