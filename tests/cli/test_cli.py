"""The `choco` command line: every subcommand explains itself, `choco play` survives bad
input and announces the opponents' moves, `choco list` and `choco bench` run."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from choco_envs.cli import COMMANDS, main
from choco_envs.play import play


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_subcommand_explains_itself(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert f"usage: choco {command}" in out and len(out.splitlines()) > 3


def test_top_level_help_lists_the_commands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "choco_envs.cli", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for command in ("play", "eval", "train", "bench", "list"):
        assert command in out


def test_play_reasks_bad_input_and_finishes_the_game() -> None:
    """Bad input is asked again; opponents' moves are announced; the game ends cleanly."""
    answers = "banana\n0\n999\n" + "1\n" * 60
    out = io.StringIO()
    scores = play("chocolates_v0", {"num_players": 2}, 0, ["random"], 5, io.StringIO(answers), out)
    text = out.getvalue()
    assert len(scores) == 2
    assert "'banana' is not a move" in text and "'999' is not a move" in text
    assert "player_1 (random): " in text
    assert "=== game over ===" in text


def test_play_refuses_a_bad_seat_and_an_unknown_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "chocolates_v0", "--seat", "5"]) == 2
    assert "--seat 5 is not allowed" in capsys.readouterr().err
    assert main(["play", "no_such_env_v0"]) == 2
    assert "unknown env 'no_such_env_v0'" in capsys.readouterr().err


def test_list_names_every_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--markdown"]) == 0
    out = capsys.readouterr().out
    for env_id in ("chocolates_v0", "le_chocolat_v0", "chocolatiers_v1", "chocolate_factory_v1"):
        assert f"| {env_id} |" in out


def test_bench_reports_ratios_against_connect_four(tmp_path: Path) -> None:
    """A short `choco bench` run writes every column, the reference and the verdicts."""
    out = tmp_path / "bench.json"
    assert main(["bench", "--env", "chocolates_v0", "--seconds", "0.3", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["reference_connect_four_steps_per_s"] > 0
    row = result["rows"][0]
    assert row["env"].startswith("chocolates_v0") and row["aec_ratio"] > 0 and row["raw_ratio"] > 0
    assert row["copy_us"] > 0 and row["state_bytes"] > 0
