"""The checkpoint format: ONE ``.safetensors`` file holding the network weights and, in
its header, JSON metadata under the key ``"choco"``. Nothing is ever unpickled.

Metadata fields (``read_metadata`` returns them as a dict, without importing torch):

| field | meaning |
|---|---|
| ``format`` | ``"choco-checkpoint/1"`` |
| ``env_id``, ``version`` | the env the policy plays and its version |
| ``options`` | the game options it was trained with (``num_players`` and rule options) |
| ``encoder`` | the observation encoder (``"flat"`` or ``"planes"``) |
| ``observation_shape``, ``num_actions`` | the sizes the network expects |
| ``observation_layout`` | the encoder's fingerprint (``Encoder.fingerprint``): names, positions and bounds of every field, so a reordered observation of the same size is refused too |
| ``network`` | the network config (``NetConfig``) |
| ``steps_trained`` | env steps (all seats) collected while training |
| ``arena`` | evaluation results, e.g. ``{"random": {"win_rate": 0.97, "games": 200}}`` |
| ``training`` | the command and arguments that trained it |

A checkpoint is refused with :class:`CheckpointError` saying why when the file is missing
or corrupt, when it was made for another env or another version of it, or when its
observation or action sizes differ from the env it is asked to play.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path
from typing import Any

from choco_envs.core.errors import CheckpointError, ChocoError

FORMAT = "choco-checkpoint/1"
METADATA_KEY = "choco"
SUFFIX = ".safetensors"
_MAX_HEADER = 10_000_000
#: where the shipped checkpoints live: <repo>/checkpoints/<env_id>/*.safetensors
SHIPPED_DIR = Path(__file__).resolve().parents[2] / "checkpoints"
_REQUIRED = {
    "format": str,
    "env_id": str,
    "version": int,
    "options": dict,
    "encoder": str,
    "observation_shape": list,
    "num_actions": int,
    "network": dict,
    "steps_trained": int,
}


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of the checkpoint at ``path``, checked for shape; torch not needed."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist or is not a file")
    try:
        with path.open("rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            if not 2 <= n <= _MAX_HEADER:
                raise ValueError(f"header length {n} is out of range")
            header = json.loads(f.read(n).decode("utf-8"))
            raw = header["__metadata__"][METADATA_KEY]
        meta = json.loads(raw)
    except (struct.error, ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
        raise CheckpointError(
            f"checkpoint {str(path)!r} is corrupt or not a choco_envs checkpoint "
            f"(a .safetensors file with '{METADATA_KEY}' metadata): {err!r}"
        ) from err
    _check_fields(meta, path)
    return meta


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a checkpoint file: what results measured on one file are keyed by."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _check_fields(meta: Any, path: Path) -> None:
    if not isinstance(meta, dict):
        raise CheckpointError(f"checkpoint {str(path)!r}: metadata is not a JSON object")
    for key, kind in _REQUIRED.items():
        if key not in meta:
            raise CheckpointError(f"checkpoint {str(path)!r}: metadata lacks field {key!r}")
        if not isinstance(meta[key], kind) or isinstance(meta[key], bool):
            raise CheckpointError(
                f"checkpoint {str(path)!r}: metadata field {key!r} should be a "
                f"{kind.__name__}, got {meta[key]!r}"
            )
    if meta["format"] != FORMAT:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has format {meta['format']!r}; this version of "
            f"choco_envs reads {FORMAT!r}"
        )


def expected_sizes(env_id: str, options: dict[str, Any], encoder: str) -> tuple[list[int], int]:
    """(observation shape, number of actions) of ``env_id`` with these options."""
    from choco_envs.registry import make_game

    game = make_game(env_id, **options)
    return list(game.encoder(encoder).shape), int(game.num_actions)


def layout_fingerprint(env_id: str, options: dict[str, Any], encoder: str) -> str:
    """The fingerprint of the observation ``env_id`` gives with these options."""
    from choco_envs.registry import make_game

    return make_game(env_id, **options).encoder(encoder).fingerprint()


def check_compatible(
    meta: dict[str, Any],
    path: str | Path,
    env_id: str | None = None,
    options: dict[str, Any] | None = None,
) -> None:
    """Refuse (CheckpointError) a checkpoint that cannot play ``env_id`` with ``options``
    (the options it was trained with when None): another env, another version of the
    env, or other observation or action sizes."""
    from choco_envs.registry import REGISTRY, game_class

    where = f"checkpoint {str(path)!r}"
    if env_id is not None and meta["env_id"] != env_id:
        raise CheckpointError(f"{where} was trained for {meta['env_id']!r}, not {env_id!r}")
    if meta["env_id"] not in REGISTRY:
        raise CheckpointError(
            f"{where} is for unknown env {meta['env_id']!r}; known envs: {', '.join(REGISTRY)}"
        )
    version = game_class(meta["env_id"]).spec.version
    if meta["version"] != version:
        raise CheckpointError(
            f"{where} was trained for {meta['env_id']} version {meta['version']}, but the "
            f"installed env is version {version}; retrain it for this version"
        )
    play_options = meta["options"] if options is None else options
    try:
        shape, actions = expected_sizes(meta["env_id"], play_options, meta["encoder"])
    except ChocoError as err:
        raise CheckpointError(f"{where}: its options do not make a valid env: {err}") from err
    if shape != list(meta["observation_shape"]) or actions != meta["num_actions"]:
        raise CheckpointError(
            f"{where} expects observations of shape {meta['observation_shape']} and "
            f"{meta['num_actions']} actions, but {meta['env_id']} with options "
            f"{play_options} has shape {shape} and {actions} actions"
        )
    trained_on = meta.get("observation_layout")
    if trained_on is not None:
        now = layout_fingerprint(meta["env_id"], play_options, meta["encoder"])
        if trained_on != now:
            raise CheckpointError(
                f"{where} was trained on observation layout {trained_on}, but "
                f"{meta['env_id']} now lays its {meta['encoder']!r} observation out as {now} "
                "(same size, different meaning: fields moved or changed bounds); retrain it"
            )


def save_checkpoint(path: str | Path, model: Any, meta: dict[str, Any]) -> Path:
    """Write the weights of ``model`` (an ActorCritic) and ``meta`` to ``path``."""
    from safetensors.torch import save_file

    path = Path(path)
    if path.suffix != SUFFIX:
        raise CheckpointError(f"checkpoint path {str(path)!r} must end in {SUFFIX!r}")
    meta = {"format": FORMAT, **meta, "network": model.config.to_json()}
    _check_fields(meta, path)
    if meta["env_id"] in _registered():
        meta["observation_layout"] = layout_fingerprint(
            meta["env_id"], meta["options"], meta["encoder"]
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    tmp = path.with_suffix(".tmp")
    save_file(tensors, str(tmp), metadata={METADATA_KEY: json.dumps(meta, sort_keys=True)})
    tmp.chmod(0o644)
    tmp.replace(path)
    return path


def _registered() -> dict[str, str]:
    from choco_envs.registry import REGISTRY

    return REGISTRY


def load_policy(
    path: str | Path, env_id: str | None = None, options: dict[str, Any] | None = None
) -> tuple[Any, dict[str, Any]]:
    """(ActorCritic in eval mode on CPU, metadata), refused with CheckpointError when the
    file is corrupt or made for another env, version or size."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    from choco_envs.policy.net import ActorCritic, NetConfig

    meta = read_metadata(path)
    check_compatible(meta, path, env_id, options)
    config = NetConfig.from_json(meta["network"])
    if list(config.obs_shape) != list(meta["observation_shape"]):
        raise CheckpointError(
            f"checkpoint {str(path)!r}: network input {list(config.obs_shape)} differs from "
            f"observation_shape {meta['observation_shape']}"
        )
    if config.action_channels:
        _check_action_planes(config, meta, path, options)
    try:
        model = ActorCritic(config)
    except ValueError as err:
        raise CheckpointError(f"checkpoint {str(path)!r}: malformed 'network': {err}") from err
    try:
        tensors = load_file(str(path), device="cpu")
        model.load_state_dict(tensors, strict=True)
    except (SafetensorError, RuntimeError, OSError, ValueError) as err:
        raise CheckpointError(f"checkpoint {str(path)!r}: weights do not load: {err}") from err
    model.eval()
    return model, meta


def _check_action_planes(
    config: Any, meta: dict[str, Any], path: str | Path, options: dict[str, Any] | None
) -> None:
    """Refuse a board action head whose action positions are not the env's own."""
    from choco_envs.registry import make_game

    play_options = meta["options"] if options is None else options
    planes = make_game(meta["env_id"], **play_options).encoder(meta["encoder"]).action_planes
    now = None if planes is None else (len(planes.channels), planes.index)
    if now != (config.action_channels, config.action_index):
        raise CheckpointError(
            f"checkpoint {str(path)!r} scores actions on a board of {config.action_channels} "
            f"channels that {meta['env_id']}'s {meta['encoder']!r} observation no longer "
            "lays out the same way (or at all); retrain it"
        )


def shipped_checkpoint(env_id: str, options: dict[str, Any] | None = None) -> Path:
    """The shipped checkpoint of ``env_id`` trained with these options (defaults filled
    in; observation/illegal_action/reward_mode/render options ignored). CheckpointError
    naming the shipped ones when none fits."""
    from choco_envs.registry import game_class

    options = dict(options or {})
    encoder = options.pop("observation", None)
    for key in ("illegal_action", "reward_mode", "render_mode", "render_player"):
        options.pop(key, None)
    wanted = game_class(env_id).spec.validate(options)
    folder = SHIPPED_DIR / env_id
    found = sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []
    for path in found:
        meta = read_metadata(path)
        same = all(meta["options"].get(k) == v for k, v in wanted.items() if _plain(v))
        if same and (encoder is None or meta["encoder"] == encoder):
            return path
    shipped = ", ".join(f"{p.name} {read_metadata(p)['options']}" for p in found) or "none"
    raise CheckpointError(
        f"no shipped checkpoint of {env_id} for options {wanted}; shipped: {shipped}"
    )


def _plain(v: Any) -> bool:
    return isinstance(v, (bool, int, float, str))
