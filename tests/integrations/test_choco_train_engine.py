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
