"""`choco eval`: a smoke test of the command and its files, and its errors."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from choco_envs.cli import eval as cli

ENV = "chocolates_v0"


def run_eval(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    return cli.run(parser.parse_args(argv))


def test_eval_writes_table_json_markdown_and_plot(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["--env", ENV, "--bots", "greedy", "random", "--games", "4", "--seed", "1"]
    argv += ["--json", f"{out}.json", "--markdown", f"{out}.md", "--plot", f"{out}.png", "--quiet"]
    assert run_eval(argv) == 0
    table = capsys.readouterr().out
    assert "chocolates_v0, 2 players, 4 games (2 deals x every seat rotation), seed 1" in table
    assert "greedy" in table and "95% CI" in table
    report = json.loads((tmp_path / "out.json").read_text())
    assert [b["name"] for b in report["bots"]] == ["greedy", "random"]
    assert report["games_played"] == 4 and len(report["games"]) == 4
    markdown = (tmp_path / "out.md").read_text()
    assert "| bot | games | win rate | 95% CI |" in markdown
    assert "`choco eval --env chocolates_v0 --bots greedy random --games 4 --seed 1`" in markdown
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--env", ENV, "--bots", "alphazero"], "allowed kinds for chocolates_v0: random, mcts"),
        (["--env", "chess_v0", "--bots", "random"], "known envs: chocolates_v0"),
        (["--env", ENV, "--bots", "random", "--players", "9"], "num_players=9"),
        (["--env", ENV, "--bots", "random", "--env-option", "colour=red"], "'colour'"),
        (
            ["--env", ENV, "--bots", "random", "--env-option", "oops"],
            "is not of the form KEY=VALUE",
        ),
        (["--env", ENV, "--bots", "random", "--games", "0"], "games=0"),
        (["--env", ENV, "--bots", "random", "--workers", "0"], "--workers 0 is not allowed"),
    ],
)
def test_bad_options_exit_2_naming_what_is_allowed(argv, named, capsys):
    assert run_eval(argv) == 2
    assert named in capsys.readouterr().err


def test_choco_eval_runs_as_a_command():
    command = [sys.executable, "-m", "choco_envs.cli", "eval", "--env", ENV]
    command += ["--bots", "random", "mcts:simulations=5", "--games", "2", "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "mcts:simulations=5" in done.stdout
