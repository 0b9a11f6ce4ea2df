"""Checkpoints: one safetensors file with JSON metadata; the round trip, and every bad
file refused with a CheckpointError within a second or two, before anything is built."""

from __future__ import annotations

import json
import pickle
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from choco_envs.core.errors import CheckpointError
from choco_envs.policy.checkpoint import load_policy, read_metadata, save_checkpoint
from tests.training.conftest import toy_meta, toy_model
from tests.training.toy_nim import ENV_ID

#: a bad file must be refused this fast (generous, for a loaded 2-core machine)
BOUND_S = 2.0


def parts(path: Path) -> tuple[dict[str, Any], dict[str, Any], bytes]:
    """(tensor entries, choco metadata, data bytes) of a safetensors file."""
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    meta = json.loads(header.pop("__metadata__")["choco"])
    return header, meta, raw[8 + n :]


def write(path: Path, header: Any, data: bytes, meta: Any = None, raw_meta: str = "") -> Path:
    """A safetensors file from parts (the header is written as given when not a dict)."""
    if isinstance(header, dict):
        header = {**header, "__metadata__": {"choco": raw_meta or json.dumps(meta)}}
        text = json.dumps(header)
    else:
        text = header
    blob = text.encode()
    blob += b" " * (-len(blob) % 8)
    path.write_bytes(struct.pack("<Q", len(blob)) + blob + data)
    return path


def rewritten(src: Path, dst: Path, **changes: Any) -> Path:
    """A copy of ``src`` whose metadata has ``changes`` (tensors unchanged)."""
    header, meta, data = parts(src)
    return write(dst, header, data, {**meta, **changes})


def refused_quickly(load: Callable[[], Any], match: str) -> None:
    start = time.perf_counter()
    with pytest.raises(CheckpointError, match=match):
        load()
    assert time.perf_counter() - start < BOUND_S


def test_round_trip_keeps_weights_and_metadata(toy_checkpoint: Path) -> None:
    model, meta = load_policy(toy_checkpoint, ENV_ID)
    original = toy_model()
    obs = torch.rand(5, *meta["observation_shape"])
    mask = torch.tensor([[True, True, False]] * 5)
    with torch.no_grad():
        assert torch.equal(model(obs, mask)[0], original(obs, mask)[0])
        assert torch.equal(model(obs, mask)[1], original(obs, mask)[1])
    assert meta["steps_trained"] == 123 and meta["features"] is None
    assert meta["format"] == "choco-checkpoint/2"
    assert meta["network"]["hidden"] == [16]
    assert read_metadata(toy_checkpoint) == meta


def test_file_is_plain_float32_safetensors_readable_without_torch(toy_checkpoint: Path) -> None:
    from safetensors.numpy import load_file

    tensors = load_file(str(toy_checkpoint))
    assert tensors["actor.weight"].shape == (3, 16)
    assert {t.dtype for t in tensors.values()} == {np.dtype("float32")}


def test_wrong_env_version_and_sizes_are_refused(toy_checkpoint: Path, tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="trained for 'toy_nim_v0', not 'chocolates_v0'"):
        load_policy(toy_checkpoint, "chocolates_v0")
    old = rewritten(toy_checkpoint, tmp_path / "old.safetensors", version=7)
    with pytest.raises(CheckpointError, match="version 7, but the installed env is version 0"):
        load_policy(old, ENV_ID)
    # trained for 2 players (observation of 26): 3 players observe 27 entries
    with pytest.raises(CheckpointError, match=r"shape \[26\].*has shape \[27\]"):
        load_policy(toy_checkpoint, ENV_ID, {"num_players": 3})
    lying = rewritten(toy_checkpoint, tmp_path / "lie.safetensors", num_actions=9)
    with pytest.raises(CheckpointError, match="9 actions"):
        load_policy(lying, ENV_ID)


def test_an_older_format_is_refused_saying_why(toy_checkpoint: Path, tmp_path: Path) -> None:
    """The retired files (format 1) read observations or networks that no longer exist."""
    old = rewritten(toy_checkpoint, tmp_path / "v1.safetensors", format="choco-checkpoint/1")
    with pytest.raises(CheckpointError, match="format 'choco-checkpoint/1'.*retrain"):
        load_policy(old)


def test_same_size_but_reordered_observation_is_refused(
    toy_checkpoint: Path, tmp_path: Path
) -> None:
    """The metadata holds the encoder's fingerprint; another layout of the same size is
    refused, naming both."""
    from choco_envs.registry import make_game

    meta = read_metadata(toy_checkpoint)
    assert meta["observation_layout"] == make_game(ENV_ID).encoder("flat").fingerprint()
    moved = rewritten(
        toy_checkpoint, tmp_path / "moved.safetensors", observation_layout="0123456789abcdef-4"
    )
    with pytest.raises(CheckpointError, match="observation layout '0123456789abcdef-4'"):
        load_policy(moved, ENV_ID)


def test_save_refuses_another_suffix_and_a_missing_field(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="must end in '.safetensors'"):
        save_checkpoint(tmp_path / "model.pt", toy_model(), toy_meta())
    meta = toy_meta()
    del meta["steps_trained"]
    with pytest.raises(CheckpointError, match="lacks field 'steps_trained'"):
        save_checkpoint(tmp_path / "x.safetensors", toy_model(), meta)


def test_masked_actions_are_never_chosen(toy_checkpoint: Path) -> None:
    model, _ = load_policy(toy_checkpoint, ENV_ID)
    obs = torch.rand(200, 26)
    mask = torch.zeros(200, 3, dtype=torch.bool)
    mask[np.arange(200), np.arange(200) % 3] = True
    action, logp, entropy, _ = model.get_action_and_value(obs, mask)
    assert torch.equal(action, torch.arange(200) % 3)
    assert torch.allclose(logp, torch.zeros(200)) and torch.allclose(entropy, torch.zeros(200))


# ---------------------------------------------------------------- hostile files
@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"", "shorter than a safetensors header"),
        (b"garbage that is not a checkpoint", "header length"),
        (pickle.dumps({"weights": [1, 2]}), "corrupt"),
        (struct.pack("<Q", 2**40) + b"{}", "header length 1,099,511,627,776 is out of range"),
        (struct.pack("<Q", 4) + b"[1] ", "not a JSON object"),
        (struct.pack("<Q", 8) + b"\xff\xfe\x00\x01abcd", "not JSON"),
    ],
    ids=["empty", "garbage", "pickle", "huge-length", "not-an-object", "binary"],
)
def test_corrupt_files_are_refused(tmp_path: Path, content: bytes, match: str) -> None:
    path = tmp_path / "corrupt.safetensors"
    path.write_bytes(content)
    refused_quickly(lambda: load_policy(path, ENV_ID), match)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    refused_quickly(lambda: load_policy(tmp_path / "nowhere.safetensors"), "does not exist")


def test_nested_json_header_or_metadata_is_refused(toy_checkpoint: Path, tmp_path: Path) -> None:
    """A header (or the metadata string inside it) nested 100,000 deep: no RecursionError."""
    deep = "[" * 100_000 + "]" * 100_000
    path = write(tmp_path / "deep.safetensors", deep, b"")
    refused_quickly(lambda: load_policy(path), "nested too deeply")
    header, _, data = parts(toy_checkpoint)
    inner = write(tmp_path / "inner.safetensors", header, data, raw_meta=deep)
    refused_quickly(lambda: load_policy(inner), "nested too deeply")


@pytest.mark.parametrize(
    ("hidden", "match"),
    [
        ([12000, 12000], r"sizes in 1\.\.8192"),
        ([8000, 8000], "at most 25,000,000"),
        ([200000, 200000], r"sizes in 1\.\.8192"),
        ([-5], r"sizes in 1\.\.8192"),
        ([0], r"sizes in 1\.\.8192"),
        ([16, 16], "missing .*mlp.2.weight"),
        ([17], r"other shapes .*\(.actor.weight., \[3, 16\], \[3, 17\]\)"),
        ("big", "not a list of ints"),
        ([True], "not an int"),
    ],
)
def test_declared_network_is_checked_before_anything_is_built(
    toy_checkpoint: Path, tmp_path: Path, hidden: Any, match: str
) -> None:
    """The 2.5 KB file declares a network; its sizes are bounded and must be those of the
    tensors in the file, before any layer is allocated."""
    network = {**read_metadata(toy_checkpoint)["network"], "hidden": hidden}
    path = rewritten(toy_checkpoint, tmp_path / "big.safetensors", network=network)
    assert path.stat().st_size < 5000
    refused_quickly(lambda: load_policy(path), match)


def test_missing_extra_and_misshapen_tensors_are_refused(
    toy_checkpoint: Path, tmp_path: Path
) -> None:
    header, meta, data = parts(toy_checkpoint)
    last = max(header, key=lambda k: header[k]["data_offsets"][1])
    end = header[last]["data_offsets"][0]
    without = {k: v for k, v in header.items() if k != last}
    missing = write(tmp_path / "missing.safetensors", without, data[:end], meta)
    refused_quickly(lambda: load_policy(missing), f"missing \\['{last}'\\]")
    extra_entry = {"dtype": "F32", "shape": [1], "data_offsets": [len(data), len(data) + 4]}
    extra = write(
        tmp_path / "extra.safetensors", {**header, "x": extra_entry}, data + bytes(4), meta
    )
    refused_quickly(lambda: load_policy(extra), r"unexpected \['x'\]")
    entry = header["actor.bias"]
    reshaped = {**header, "actor.bias": {**entry, "shape": [1, 3]}}
    other = write(tmp_path / "shape.safetensors", reshaped, data, meta)
    refused_quickly(lambda: load_policy(other), "other shapes .*actor.bias")


@pytest.mark.parametrize("dtype", ["F64", "I64", "BF16", "BOOL"])
def test_tensors_other_than_float32_or_float16_are_refused(
    toy_checkpoint: Path, tmp_path: Path, dtype: str
) -> None:
    header, meta, data = parts(toy_checkpoint)
    header["actor.bias"] = {**header["actor.bias"], "dtype": dtype}
    path = write(tmp_path / "dtype.safetensors", header, data, meta)
    refused_quickly(lambda: load_policy(path), f"dtype '{dtype}', not F32 or F16")


def test_a_float16_label_on_float32_bytes_is_refused(toy_checkpoint: Path, tmp_path: Path) -> None:
    # float16 is allowed (a compact shipped copy), but its bytes must be float16's: a
    # label that halves a tensor's size no longer tiles the data
    header, meta, data = parts(toy_checkpoint)
    header["actor.bias"] = {**header["actor.bias"], "dtype": "F16"}
    path = write(tmp_path / "dtype.safetensors", header, data, meta)
    refused_quickly(lambda: load_policy(path), "does not fit bytes")


def test_truncated_file_and_overlapping_tensors_are_refused(
    toy_checkpoint: Path, tmp_path: Path
) -> None:
    data = toy_checkpoint.read_bytes()
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(data[: len(data) - 100])
    refused_quickly(lambda: load_policy(cut, ENV_ID), "truncated or altered")
    header, meta, blob = parts(toy_checkpoint)
    first, second = sorted(header, key=lambda k: header[k]["data_offsets"][0])[:2]
    size = header[first]["data_offsets"][1] - header[first]["data_offsets"][0]
    if header[second]["data_offsets"][1] - header[second]["data_offsets"][0] == size:
        header[second] = {**header[second], "data_offsets": header[first]["data_offsets"]}
    else:
        header[first] = {**header[first], "data_offsets": [4, 4 + size]}
    overlap = write(tmp_path / "overlap.safetensors", header, blob, meta)
    refused_quickly(lambda: load_policy(overlap), "overlaps or has gaps|belong to no tensor")


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    from choco_envs.policy.checkpoint import MAX_FILE_BYTES

    path = tmp_path / "huge.safetensors"
    with path.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written
    refused_quickly(lambda: load_policy(path), "a checkpoint has at most")


def test_choco_eval_refuses_a_bad_checkpoint_without_a_traceback(
    toy_checkpoint: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from choco_envs.cli import main

    network = {**read_metadata(toy_checkpoint)["network"], "hidden": [12000, 12000]}
    path = rewritten(toy_checkpoint, tmp_path / "big.safetensors", network=network)
    code = main(["eval", "--env", ENV_ID, "--bots", f"policy:{path}", "random", "--games", "2",
                 "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "sizes in 1..8192" in err and "Traceback" not in err


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


def test_board_action_head_round_trips_and_a_moved_one_is_refused(tmp_path: Path) -> None:
    """A checkpoint whose action positions are not the env's (the env's action planes
    changed since) would score every move at the wrong place: refused."""
    path = _board_checkpoint(tmp_path / "board.safetensors")
    model, meta = load_policy(path, "le_chocolat_v0")
    assert meta["network"]["action_channels"] == 3 and model.action_conv is not None
    network = meta["network"]
    shifted = network["action_index"][1:] + network["action_index"][:1]
    moved = rewritten(
        path, tmp_path / "moved.safetensors", network={**network, "action_index": shifted}
    )
    with pytest.raises(CheckpointError, match="no longer lays out the same way"):
        load_policy(moved, "le_chocolat_v0")
    broken = rewritten(
        path, tmp_path / "broken.safetensors", network={**network, "action_channels": 2}
    )
    with pytest.raises(CheckpointError, match="board of 2 channels|off the"):
        load_policy(broken, "le_chocolat_v0")


def test_a_checkpoint_whose_options_name_a_file_is_refused_unread(tmp_path: Path) -> None:
    """Issue 26, item 1: a copy of a shipped checkpoint whose metadata options name
    /dev/zero made ``bots.make("policy:F")`` read until memory ran out, and ``choco eval``
    print a traceback. A checkpoint carries component data, never a path: load_policy,
    bots.make and choco eval refuse it at once (one line), in a process held to 1 GiB."""
    import os
    import subprocess
    import sys

    from choco_envs.policy.checkpoint import checkpoint_dir

    folder = checkpoint_dir()
    assert folder is not None
    src = folder / "chocolates_v0" / "ppo_tables.safetensors"
    header, meta, data = parts(src)
    options = {**meta["options"], "components": "/dev/zero"}
    path = write(tmp_path / "named.safetensors", header, data, {**meta, "options": options})
    code = f"""
import contextlib, io, resource, time
resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
import choco_envs.policy.bot, safetensors.torch  # imported before the clock starts (torch loads slowly)
from choco_envs.bots import make
from choco_envs.cli import main
from choco_envs.core.errors import CheckpointError
from choco_envs.policy.checkpoint import load_policy
for load in (lambda: load_policy({str(path)!r}), lambda: make("policy:{path}", "chocolates_v0")):
    start = time.perf_counter()
    try:
        load()
        print("ACCEPTED")
    except CheckpointError as err:
        print(round(time.perf_counter() - start, 3), err)
err = io.StringIO()
with contextlib.redirect_stderr(err):
    code = main(["eval", "--env", "chocolates_v0", "--bots", "policy:{path}", "random",
                 "--games", "2", "--quiet"])
print("eval", code, repr(err.getvalue()))
"""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert len(lines) == 3, done.stdout
    for line in lines[:2]:
        seconds, message = line.split(" ", 1)
        assert float(seconds) < BOUND_S, line
        assert "option components='/dev/zero' names a file" in message, line
    assert lines[2].startswith("eval 2 "), lines[2]
    err = lines[2].split(" ", 2)[2]
    assert "names a file" in err and "Traceback" not in err and err.count("\\n") == 1, err


def test_rewriting_the_metadata_keeps_the_tensors_and_their_digest(toy_checkpoint: Path) -> None:
    """``rewrite_metadata`` changes the metadata only: the tensors' bytes (and so
    ``weights_sha256``, which arena reports name) stay; a metadata the checks refuse
    leaves the file as it was."""
    from choco_envs.policy.checkpoint import file_sha256, rewrite_metadata, weights_sha256

    digest, whole = weights_sha256(toy_checkpoint), file_sha256(toy_checkpoint)
    model, meta = load_policy(toy_checkpoint)
    rewrite_metadata(toy_checkpoint, {**meta, "arena_search": {"random": {"win_rate": 0.9}}})
    assert weights_sha256(toy_checkpoint) == digest and file_sha256(toy_checkpoint) != whole
    again, meta2 = load_policy(toy_checkpoint)
    assert meta2["arena_search"] == {"random": {"win_rate": 0.9}}
    for a, b in zip(model.state_dict().values(), again.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    raw = toy_checkpoint.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert n % 8 == 0, "the header stays padded to 8 bytes"
    bad = {k: v for k, v in meta2.items() if k != "env_id"}
    with pytest.raises(CheckpointError):
        rewrite_metadata(toy_checkpoint, bad)
    assert toy_checkpoint.read_bytes() == raw
    assert not toy_checkpoint.with_suffix(".tmp").exists()


def test_stored_args_name_no_folder_of_the_training_machine(tmp_path: Path) -> None:
    """A file stores its run's args with every absolute path inside the working folder
    made relative to it (``init_from``, ``runs_dir``): a shipped file names no folder of
    the machine it was trained on; a path outside is kept as given, other values as they
    are."""
    from choco_envs.train.outputs import portable_args

    args = {
        "init_from": str(tmp_path / "runs" / "a" / "final.safetensors"),
        "runs_dir": str(tmp_path / "runs"),
        "here": str(tmp_path),
        "elsewhere": "/somewhere/else.yaml",
        "relative": "configs/x.yaml",
        "seed": 3,
    }
    stored = portable_args(args, root=tmp_path)
    assert stored == {
        "init_from": "runs/a/final.safetensors",
        "runs_dir": "runs",
        "here": ".",
        "elsewhere": "/somewhere/else.yaml",
        "relative": "configs/x.yaml",
        "seed": 3,
    }
