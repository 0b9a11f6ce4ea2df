"""Checkpoints: one safetensors file with JSON metadata; round trip and every refusal."""

from __future__ import annotations

import json
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest
import torch

from choco_envs.core.errors import CheckpointError
from choco_envs.policy.checkpoint import load_policy, read_metadata, save_checkpoint
from tests.training.conftest import toy_meta, toy_model
from tests.training.toy_nim import ENV_ID


def _rewrite_metadata(src: Path, dst: Path, **changes: object) -> Path:
    """A copy of ``src`` whose metadata has ``changes`` (weights unchanged)."""
    data = src.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    meta = json.loads(header["__metadata__"]["choco"])
    meta.update(changes)
    header["__metadata__"]["choco"] = json.dumps(meta)
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    dst.write_bytes(struct.pack("<Q", len(raw)) + raw + data[8 + n :])
    return dst


def test_round_trip_keeps_weights_and_metadata(toy_checkpoint: Path) -> None:
    model, meta = load_policy(toy_checkpoint, ENV_ID)
    original = toy_model()
    obs = torch.rand(5, *meta["observation_shape"])
    mask = torch.tensor([[True, True, False]] * 5)
    with torch.no_grad():
        assert torch.equal(model(obs, mask)[0], original(obs, mask)[0])
        assert torch.equal(model(obs, mask)[1], original(obs, mask)[1])
    assert meta["steps_trained"] == 123
    assert meta["arena"] == {"random": {"win_rate": 0.5}}
    assert meta["network"]["hidden"] == [16]
    assert read_metadata(toy_checkpoint) == meta


def test_file_is_plain_safetensors_readable_without_torch(toy_checkpoint: Path) -> None:
    from safetensors.numpy import load_file

    tensors = load_file(str(toy_checkpoint))
    assert "actor.weight" in tensors and tensors["actor.weight"].shape == (3, 16)


def test_wrong_env_is_refused(toy_checkpoint: Path) -> None:
    with pytest.raises(CheckpointError, match="trained for 'toy_nim_v0', not 'chocolates_v0'"):
        load_policy(toy_checkpoint, "chocolates_v0")


def test_wrong_version_is_refused(toy_checkpoint: Path, tmp_path: Path) -> None:
    old = _rewrite_metadata(toy_checkpoint, tmp_path / "old.safetensors", version=7)
    with pytest.raises(CheckpointError, match="version 7, but the installed env is version 0"):
        load_policy(old, ENV_ID)


def test_wrong_sizes_are_refused(toy_checkpoint: Path) -> None:
    """Trained for 2 players (observation of 26): 3 players observe 27 entries."""
    with pytest.raises(CheckpointError, match=r"shape \[26\].*has shape \[27\]"):
        load_policy(toy_checkpoint, ENV_ID, {"num_players": 3})


def test_metadata_sizes_that_lie_are_refused(toy_checkpoint: Path, tmp_path: Path) -> None:
    bad = _rewrite_metadata(toy_checkpoint, tmp_path / "bad.safetensors", num_actions=9)
    with pytest.raises(CheckpointError, match="9 actions"):
        load_policy(bad, ENV_ID)


@pytest.mark.parametrize(
    "content",
    [b"", b"garbage that is not a checkpoint", pickle.dumps({"weights": [1, 2]})],
    ids=["empty", "garbage", "pickle"],
)
def test_corrupt_files_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "corrupt.safetensors"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match="corrupt or not a choco_envs checkpoint"):
        load_policy(path, ENV_ID)


def test_truncated_weights_are_refused(toy_checkpoint: Path, tmp_path: Path) -> None:
    data = toy_checkpoint.read_bytes()
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(data[: len(data) - 100])
    with pytest.raises(CheckpointError, match="weights do not load"):
        load_policy(cut, ENV_ID)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="does not exist"):
        load_policy(tmp_path / "nowhere.safetensors")


def test_metadata_without_a_field_is_refused(toy_checkpoint: Path, tmp_path: Path) -> None:
    meta = toy_meta()
    del meta["steps_trained"]
    with pytest.raises(CheckpointError, match="lacks field 'steps_trained'"):
        save_checkpoint(tmp_path / "x.safetensors", toy_model(), meta)


def test_save_refuses_another_suffix(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="must end in '.safetensors'"):
        save_checkpoint(tmp_path / "model.pt", toy_model(), toy_meta())


def test_masked_actions_are_never_chosen(toy_checkpoint: Path) -> None:
    model, _ = load_policy(toy_checkpoint, ENV_ID)
    obs = torch.rand(200, 26)
    mask = torch.zeros(200, 3, dtype=torch.bool)
    mask[np.arange(200), np.arange(200) % 3] = True
    action, logp, entropy, _ = model.get_action_and_value(obs, mask)
    assert torch.equal(action, torch.arange(200) % 3)
    assert torch.allclose(logp, torch.zeros(200)) and torch.allclose(entropy, torch.zeros(200))


def test_checkpoint_records_the_observation_layout(toy_checkpoint: Path) -> None:
    """The metadata holds the encoder's fingerprint (names, positions, bounds)."""
    from choco_envs.registry import make_game

    meta = read_metadata(toy_checkpoint)
    assert (
        meta["observation_layout"]
        == make_game(ENV_ID, **meta["options"]).encoder(meta["encoder"]).fingerprint()
    )


def test_same_size_but_reordered_observation_is_refused(
    toy_checkpoint: Path, tmp_path: Path
) -> None:
    """A checkpoint trained on another layout of the same size is refused, naming both."""
    moved = _rewrite_metadata(
        toy_checkpoint, tmp_path / "moved.safetensors", observation_layout="0123456789abcdef-4"
    )
    with pytest.raises(CheckpointError, match="observation layout 0123456789abcdef-4"):
        load_policy(moved, ENV_ID)


def _board_checkpoint(path: Path) -> Path:
    """A tiny Le Chocolat policy that scores actions on the board."""
    from choco_envs.policy.net import ActorCritic, NetConfig
    from choco_envs.registry import make_game

    game = make_game("le_chocolat_v0")
    encoder = game.encoder("planes")
    planes = encoder.action_planes
    assert planes is not None
    torch.manual_seed(0)
    config = NetConfig(encoder.shape, game.num_actions, (8,), (4,), 3, planes.index)
    meta = {
        "env_id": "le_chocolat_v0",
        "version": game.spec.version,
        "options": dict(game.config),
        "encoder": "planes",
        "observation_shape": list(encoder.shape),
        "num_actions": game.num_actions,
        "steps_trained": 0,
        "arena": {},
        "training": {"command": "test"},
    }
    return save_checkpoint(path, ActorCritic(config), meta)


def test_board_action_head_round_trips(tmp_path: Path) -> None:
    path = _board_checkpoint(tmp_path / "board.safetensors")
    model, meta = load_policy(path, "le_chocolat_v0")
    assert meta["network"]["action_channels"] == 3
    assert model.action_conv is not None
    assert tuple(meta["network"]["action_index"]) == model.config.action_index


def test_board_action_head_laid_out_otherwise_is_refused(tmp_path: Path) -> None:
    """A checkpoint whose action positions are not the env's (the env's action planes
    changed since) would score every move at the wrong place: refused."""
    path = _board_checkpoint(tmp_path / "board.safetensors")
    network = read_metadata(path)["network"]
    shifted = network["action_index"][1:] + network["action_index"][:1]
    moved = _rewrite_metadata(
        path, tmp_path / "moved.safetensors", network={**network, "action_index": shifted}
    )
    with pytest.raises(CheckpointError, match="no longer lays out the same way"):
        load_policy(moved, "le_chocolat_v0")
    broken = _rewrite_metadata(
        path, tmp_path / "broken.safetensors", network={**network, "action_channels": 2}
    )
    with pytest.raises(CheckpointError, match="board of 2 channels"):
        load_policy(broken, "le_chocolat_v0")
