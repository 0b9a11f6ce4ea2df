"""The shipped checkpoints and how `ppo` finds them: every shipped file loads for its env,
reads game information, is small and carries its 400-game evaluation; where none is
shipped, or the install has no checkpoints folder, `ppo` says so and how to point at one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from choco_envs import bots
from choco_envs.core.errors import CheckpointError
from choco_envs.policy.checkpoint import (
    ENV_VAR,
    SHIPPED_BUDGET_BYTES,
    checkpoint_dir,
    load_policy,
    read_metadata,
    shipped_checkpoint,
)
from tests.training.toy_nim import ENV_ID

REPO = Path(__file__).resolve().parents[2]


def test_every_shipped_file_loads_reads_game_information_and_is_small() -> None:
    folder = checkpoint_dir()
    assert folder == REPO / "checkpoints"
    for path in sorted(folder.rglob("*")):
        if path.is_dir() or path == folder / "README.md":
            continue
        assert path.suffix == ".safetensors" and path.parent.parent == folder, path
        model, meta = load_policy(path, path.parent.name)
        assert meta["encoder"] in ("flat", "planes")
        assert path.stat().st_size <= SHIPPED_BUDGET_BYTES  # what choco ship allows
        assert min(meta["arena"][o]["games"] for o in ("random", "greedy")) >= 400
        # the file the bots find for its table: `ppo` a PPO file, `az` a search-and-learn one
        prefix = "az" if meta["training"].get("engine") == "az" else "ppo"
        assert shipped_checkpoint(meta["env_id"], meta["options"], prefix=prefix) == path


def test_ppo_says_when_no_checkpoint_is_shipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    with pytest.raises(CheckpointError, match=r"no checkpoint is shipped for chocolates_v0 with "
                       r"options \{'num_players': 2\} in .*; shipped there: none"):  # fmt: skip
        bots.make("ppo", env_id="chocolates_v0")


def test_choco_checkpoints_points_at_a_folder_of_checkpoints(
    toy_checkpoint: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "mine"
    (folder / ENV_ID).mkdir(parents=True)
    shutil.copy(toy_checkpoint, folder / ENV_ID / "ppo.safetensors")
    (folder / ENV_ID / "ppo_old.safetensors").write_bytes(b"not a checkpoint")
    monkeypatch.setenv(ENV_VAR, str(folder))
    bot = bots.make("ppo", env_id=ENV_ID, seed=0)
    assert bot.meta["env_id"] == ENV_ID  # type: ignore[attr-defined]
    with pytest.raises(
        CheckpointError,
        match=r"shipped there: ppo.safetensors .*, ppo_old.safetensors \(unreadable",
    ):
        bots.make("ppo", env_id=ENV_ID, env_options={"num_players": 3})
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(CheckpointError, match="CHOCO_CHECKPOINTS=.*is not a folder"):
        bots.make("ppo", env_id=ENV_ID)
    assert read_metadata(folder / ENV_ID / "ppo.safetensors")["env_id"] == ENV_ID


def test_an_installed_copy_runs_no_file_of_the_current_folder_and_finds_no_checkpoints(
    tmp_path: Path,
) -> None:
    """A non-editable copy of the package without checkpoints (copied alone), run from
    a folder with a planted training/ppo_selfplay.py and checkpoints/: `choco train
    --help` and a run work and never execute the planted file; `ppo` says the install
    has no checkpoints folder and names CHOCO_CHECKPOINTS."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "choco_envs", site / "choco_envs",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    work = tmp_path / "work"
    (work / "training").mkdir(parents=True)
    marker = tmp_path / "planted_ran"
    planted = f"open({str(marker)!r}, 'w').write('ran')\nraise SystemExit(0)\n"
    (work / "training" / "ppo_selfplay.py").write_text(planted)
    (work / "training" / "__init__.py").write_text(planted)
    (work / "checkpoints" / "chocolates_v0").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    env["PYTHONPATH"] = str(site)
    code = (
        "import choco_envs, sys\n"
        "print(choco_envs.__file__)\n"
        "from choco_envs.cli import main\n"
        "try:\n"
        "    main(['train', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "code = main(['train', '--env-id', 'chocolates_v0', '--total-timesteps', '200',\n"
        "             '--num-envs', '4', '--num-steps', '8', '--hidden', '8', '--eval-every',\n"
        "             '0', '--final-eval-games', '0', '--track', 'false', '--progress', 'false'])\n"
        "print('train exit', code)\n"
        "from choco_envs import bots\n"
        "try:\n"
        "    bots.make('ppo', env_id='chocolates_v0')\n"
        "except Exception as err:\n"
        "    print('ppo:', type(err).__name__, err)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(str(site / "choco_envs"))
    assert "--total-timesteps" in done.stdout and "train exit 0" in done.stdout
    assert (work / "runs" / "chocolates_v0__ppo__1" / "final.safetensors").is_file()
    assert not marker.exists()
    assert (
        "ppo: CheckpointError no shipped checkpoint for chocolates_v0: this install has no "
        "checkpoints folder" in done.stdout
    )
    assert "set CHOCO_CHECKPOINTS=DIR" in done.stdout
