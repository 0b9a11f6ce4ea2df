"""training/mcts_table.py and training/checkpoint_table.py: the MCTS arena of a
checkpoint, and its column shown only for the very file it was measured on."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from choco_envs.policy.checkpoint import file_sha256

REPO = Path(__file__).resolve().parents[2]


def load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        f"choco_test_{name}", REPO / "training" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_mcts_table_plays_the_checkpoint_against_mcts(toy_checkpoint: Path) -> None:
    pytest.importorskip("torch")
    table = load("mcts_table")
    res = table.evaluate(toy_checkpoint, "mcts:simulations=5", games=4, seed=1, workers=1)
    assert res["opponent"] == "mcts:simulations=5" and res["games"] == 4
    assert 0.0 <= res["win_rate"] <= 1.0
    low, high = res["win_rate_ci95"]
    assert low <= res["win_rate"] <= high
    assert res["checkpoint_sha256"] == file_sha256(toy_checkpoint)


def test_checkpoint_table_shows_mcts_results_only_for_the_file_measured(
    toy_checkpoint: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    path = repo / "checkpoints" / "toy_nim_v0" / "ppo.safetensors"
    path.parent.mkdir(parents=True)
    path.write_bytes(toy_checkpoint.read_bytes())
    table = load("checkpoint_table")
    monkeypatch.setattr(table, "REPO", repo)
    measured = {"win_rate": 0.25, "games": 8, "opponent": "mcts:simulations=9"}
    digest = file_sha256(path)
    key = "toy_nim_v0/ppo.safetensors"
    monkeypatch.setattr(table, "MCTS_RESULTS", {key: {**measured, "checkpoint_sha256": digest}})
    assert "25.0% (8 games) `mcts:simulations=9`" in table.row(path)
    # the same name, another file (retrained since): the stale result is not shown
    monkeypatch.setattr(table, "MCTS_RESULTS", {key: {**measured, "checkpoint_sha256": "0" * 64}})
    assert "mcts:simulations=9" not in table.row(path)


def test_checkpoints_readme_table_is_the_shipped_files_own() -> None:
    """Every figure in checkpoints/README.md's table comes from the file it names: each
    shipped checkpoint's row, as ``training/checkpoint_table.py`` prints it from the
    file's metadata and checkpoints/mcts_arena.json (for that very file), is in the
    README verbatim, so a retrained file without a rerun table fails here."""
    table = load("checkpoint_table")
    readme = (REPO / "checkpoints" / "README.md").read_text()
    shipped = sorted((REPO / "checkpoints").glob("*/*.safetensors"))
    assert len(shipped) >= 5
    for path in shipped:
        row = table.row(path.resolve())
        assert "(20 games)" in row, f"{path}: no MCTS result for this file; run mcts_table.py"
        assert row in readme, f"{path}: rerun training/checkpoint_table.py into the README"
