"""Fixtures of the training tests: the toy Nim registered as ``toy_nim_v0`` and a small
checkpoint of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.training.toy_nim import ENV_ID, REGISTRY_ENTRY


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from choco_envs import registry

    monkeypatch.setitem(registry.REGISTRY, ENV_ID, REGISTRY_ENTRY)
    yield


def toy_meta(**options: Any) -> dict[str, Any]:
    from choco_envs.registry import make_game

    game = make_game(ENV_ID, **options)
    return {
        "env_id": ENV_ID,
        "version": game.spec.version,
        "options": dict(game.config),
        "encoder": "flat",
        "observation_shape": list(game.encoder("flat").shape),
        "num_actions": game.num_actions,
        "steps_trained": 123,
        "arena": {"random": {"win_rate": 0.5, "games": 4}},
        "training": {"command": "test"},
    }


def toy_model(extra_inputs: int = 0, **options: Any) -> Any:
    import torch

    from choco_envs.policy.net import ActorCritic, NetConfig

    meta = toy_meta(**options)
    torch.manual_seed(0)
    config = NetConfig(
        tuple(meta["observation_shape"]), meta["num_actions"], (16,), extra_inputs=extra_inputs
    )
    return ActorCritic(config)


@pytest.fixture
def toy_checkpoint(tmp_path: Path) -> Path:
    from choco_envs.policy.checkpoint import save_checkpoint

    return save_checkpoint(tmp_path / "toy.safetensors", toy_model(), toy_meta())
