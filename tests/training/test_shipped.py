"""The shipped checkpoints: they load for their env, are found by ``"ppo"``, are small,
and beat the random bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from choco_envs import bots
from choco_envs.policy.checkpoint import load_policy, read_metadata, shipped_checkpoint
from choco_envs.policy.selfplay import evaluate

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted((REPO / "checkpoints").glob("*/*.safetensors"))
IDS = [f"{p.parent.name}/{p.name}" for p in SHIPPED]


def test_every_env_and_edition_ships_a_checkpoint() -> None:
    found = {
        (read_metadata(p)["env_id"], read_metadata(p)["options"].get("edition")) for p in SHIPPED
    }
    assert {
        ("chocolates_v0", None),
        ("le_chocolat_v0", None),
        ("chocolatiers_v1", "standard"),
        ("chocolatiers_v1", "classic"),
        ("chocolate_factory_v1", None),
    } <= found


@pytest.mark.parametrize("path", SHIPPED, ids=IDS)
def test_shipped_checkpoint_loads_is_small_and_beats_random(path: Path) -> None:
    model, meta = load_policy(path, path.parent.name)
    assert path.stat().st_size < 5_000_000
    assert shipped_checkpoint(meta["env_id"], meta["options"]) == path
    result = evaluate(model, meta["env_id"], meta["options"], meta["encoder"], "random", 20, seed=3)
    assert result["win_rate"] > 0.5, result


@pytest.mark.parametrize("env_id", sorted({p.parent.name for p in SHIPPED}))
def test_ppo_short_name_serves_the_shipped_checkpoint(env_id: str) -> None:
    bot = bots.make("ppo", env_id=env_id, seed=0)
    assert bot.meta["env_id"] == env_id  # type: ignore[attr-defined]
