"""The progress display: tqdm when installed, else a plain line on stderr."""

from __future__ import annotations

import sys

from choco_envs.arena.match import ProgressBar
from choco_envs.arena.stats import GameResult

GAME = GameResult(0, 0, 0, 1, [0, 1], [1.0, 0.0], [0, 1], 2, 0.0)


def test_without_tqdm_a_plain_progress_line_is_written(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # makes `from tqdm import tqdm` fail
    with ProgressBar(2) as bar:
        bar.update(GAME)
        bar.update(GAME)
    err = capsys.readouterr().err
    assert "\rarena: 1/2 games" in err and "\rarena: 2/2 games" in err


def test_with_tqdm_the_bar_counts_games(capsys):
    with ProgressBar(3) as bar:
        for _ in range(3):
            bar.update(GAME)
    assert "3/3" in capsys.readouterr().err


def test_disabled_progress_is_silent(capsys):
    with ProgressBar(1, enabled=False) as bar:
        bar.update(GAME)
    assert capsys.readouterr().err == ""
