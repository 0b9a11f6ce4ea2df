"""The checkpoint format: ONE ``.safetensors`` file holding the network weights (float32,
or float16 in a compact copy: ``choco_envs.train.compact``) and, in its header, JSON metadata under the key ``"choco"``. Nothing is ever unpickled.

Metadata fields (``read_metadata`` returns them as a dict, without importing torch):

| field | meaning |
|---|---|
| ``format`` | ``"choco-checkpoint/2"`` |
| ``env_id``, ``version`` | the env the policy plays and its version |
| ``options`` | the game options it was trained with (``num_players`` and rule options; component data as an object: an option naming a file is refused) |
| ``encoder`` | the observation it reads: ``"flat"`` or ``"planes"`` |
| ``features`` | the feature function it also reads, ``{"name", "version", "size"}``, or null |
| ``observation_shape``, ``num_actions`` | the sizes the network expects |
| ``observation_layout`` | the encoder's fingerprint (``Encoder.fingerprint``): names, positions and bounds of every field, so a reordered observation of the same size is refused too |
| ``network`` | the network config (``NetConfig``) |
| ``steps_trained`` | env steps (all seats and bots) collected while training |
| ``arena`` | evaluation results per opponent: win/draw/loss rates, games, 95% interval |
| ``training`` | the command, its arguments and what the run did (imitation, minutes) |
| ``weights`` | (a float16 copy only) ``{"dtype": "float16", "rounded_from", "arena_before"}``: the sha256 of the float32 file it was rounded from and that file's ``arena``; ``arena`` (and ``arena_tables``) are measured again with the rounded weights |
| ``seats`` | (a policy for many tables) ``{"max_players", "player_counts", "modes"}`` and optionally ``"mode_marks": true`` (its input also marks each mode's value): it reads the seat-padded input of ``max_players`` seats (``choco_envs.policy.seats``) and plays those player counts and, for each option named in ``modes``, those values; ``options`` then has ``num_players`` = ``max_players`` and the shapes are the largest table's |

Loading checks everything before it allocates anything: the file's size, the header's
length and JSON, every tensor's dtype, shape and byte range against the file, the
metadata's fields, the env, its version, sizes, layout and feature function, and the
declared network's sizes (bounded by ``net.LIMITS``) against the tensors in the file.
Every refusal is a :class:`CheckpointError` saying why.

Shipped checkpoints live in ``<checkpoints>/<env_id>/*.safetensors``, where
``<checkpoints>`` is ``$CHOCO_CHECKPOINTS`` when set, else the package's own
``choco_envs/checkpoints/`` (an installed wheel: the build copies the repository's
``checkpoints/`` there, model cards included), else the ``checkpoints/`` folder of the
source checkout this package runs from (a clone, an editable install).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
from pathlib import Path
from typing import Any

from choco_envs.core.errors import CheckpointError, ChocoError, ConfigError

FORMAT = "choco-checkpoint/2"
METADATA_KEY = "choco"
SUFFIX = ".safetensors"
#: the environment variable naming the folder of shipped checkpoints
ENV_VAR = "CHOCO_CHECKPOINTS"
#: the folder inside the package where a wheel carries the shipped checkpoints (the
#: build copies the repository's checkpoints/ there: setup.py)
PACKAGED = "checkpoints"
MAX_FILE_BYTES = 128 * 2**20
MAX_HEADER_BYTES = 2**20
#: the tensor dtypes a checkpoint may hold, with their bytes per element
DTYPE_BYTES = {"F32": 4, "F16": 2}
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


def _corrupt(path: Path, why: str) -> CheckpointError:
    return CheckpointError(
        f"checkpoint {str(path)!r} is corrupt or not a choco_envs checkpoint (a .safetensors "
        f"file with '{METADATA_KEY}' metadata): {why}"
    )


def _json(raw: bytes | str, path: Path, what: str) -> Any:
    try:
        return json.loads(raw)
    except RecursionError:
        raise _corrupt(path, f"{what} is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise _corrupt(path, f"{what} is not JSON ({err})") from None


def read_header(path: str | Path) -> tuple[dict[str, tuple[int, ...]], dict[str, Any]]:
    """(tensor name -> shape, metadata) of the checkpoint at ``path``, every tensor's
    dtype (float32 or float16), shape and byte range checked against the file; torch not
    needed."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist or is not a file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise _corrupt(path, f"{size:,} bytes; a checkpoint has at most {MAX_FILE_BYTES:,}")
    with path.open("rb") as f:
        start = f.read(8)
        if len(start) < 8:
            raise _corrupt(path, f"{size} bytes, shorter than a safetensors header")
        (n,) = struct.unpack("<Q", start)
        if not 2 <= n <= min(MAX_HEADER_BYTES, size - 8):
            raise _corrupt(path, f"header length {n:,} is out of range for a {size:,}-byte file")
        header = _json(f.read(n), path, "the header")
    if not isinstance(header, dict):
        raise _corrupt(path, "the header is not a JSON object")
    extra = header.pop("__metadata__", None)
    if not isinstance(extra, dict) or not isinstance(extra.get(METADATA_KEY), str):
        raise _corrupt(path, f"the header has no '{METADATA_KEY}' metadata")
    meta = _json(extra[METADATA_KEY], path, "the metadata")
    shapes = _tensor_shapes(header, size - 8 - n, path)
    _check_fields(meta, path)
    return shapes, meta


def _tensor_shapes(header: dict[str, Any], data_bytes: int, path: Path) -> dict[str, tuple]:
    """Every tensor entry checked: float32 or float16, a shape, a byte range of the right
    length; together the ranges tile the data exactly (a truncated file fails here)."""
    shapes: dict[str, tuple[int, ...]] = {}
    ranges = []
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise _corrupt(path, f"tensor {name!r:.60} has a malformed entry")
        width = DTYPE_BYTES.get(entry["dtype"]) if isinstance(entry["dtype"], str) else None
        if width is None:
            raise _corrupt(
                path, f"tensor {name!r} has dtype {entry['dtype']!r:.20}, not F32 or F16"
            )
        shape, offsets = entry["shape"], entry["data_offsets"]
        if not (
            isinstance(shape, list)
            and len(shape) <= 8
            and all(type(s) is int and s >= 0 for s in shape)
            and isinstance(offsets, list)
            and len(offsets) == 2
            and all(type(o) is int for o in offsets)
        ):
            raise _corrupt(path, f"tensor {name!r} has a malformed shape or data_offsets")
        begin, end = offsets
        if not 0 <= begin <= end <= data_bytes or end - begin != width * math.prod(shape):
            raise _corrupt(
                path,
                f"tensor {name!r} of shape {shape} does not fit bytes {begin}..{end} of the "
                f"{data_bytes:,} bytes of data (a truncated or altered file)",
            )
        shapes[name] = tuple(shape)
        ranges.append((begin, end))
    position = 0
    for begin, end in sorted(ranges):
        if begin != position:
            raise _corrupt(path, f"tensor data overlaps or has gaps at byte {begin}")
        position = end
    if position != data_bytes:
        raise _corrupt(path, f"{data_bytes - position:,} bytes of data belong to no tensor")
    return shapes


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of the checkpoint at ``path``, checked for shape; torch not needed."""
    return read_header(path)[1]


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a checkpoint file (what a model card names)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _split(path: Path) -> tuple[dict[str, Any], bytes]:
    """(the header as JSON, the tensor bytes) of a checked safetensors file."""
    read_header(path)  # every check of a checkpoint first
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8 : 8 + n]), raw[8 + n :]


def weights_sha256(path: str | Path) -> str:
    """The SHA-256 of a checkpoint's tensor bytes alone: the same after its metadata is
    rewritten (:func:`rewrite_metadata`), so an arena report names the network it played
    by this, and ``choco ship --record`` finds the shipped file that plays it."""
    return hashlib.sha256(_split(Path(path))[1]).hexdigest()


def rewrite_metadata(path: str | Path, meta: dict[str, Any]) -> Path:
    """Replace the metadata of the checkpoint at ``path`` with ``meta`` (checked as
    :func:`save_checkpoint` checks it), its tensors' bytes unchanged; written to a
    temporary file and moved over ``path``."""
    path = Path(path)
    header, data = _split(path)
    _check_fields(meta, path)
    header["__metadata__"] = {METADATA_KEY: json.dumps(meta, sort_keys=True)}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # safetensors pads the header to 8 bytes
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(struct.pack("<Q", len(text)) + text + data)
    try:
        read_header(tmp)
    except CheckpointError:
        tmp.unlink()
        raise
    tmp.chmod(0o644)
    tmp.replace(path)
    return path


def _check_fields(meta: Any, path: Path) -> None:
    if not isinstance(meta, dict):
        raise CheckpointError(f"checkpoint {str(path)!r}: metadata is not a JSON object")
    if "format" in meta and meta["format"] != FORMAT:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has format {meta['format']!r:.40}; this version of "
            f"choco_envs reads {FORMAT!r} (older files read observations or networks that "
            "no longer exist: retrain)"
        )
    for key, kind in _REQUIRED.items():
        if key not in meta:
            raise CheckpointError(f"checkpoint {str(path)!r}: metadata lacks field {key!r}")
        if not isinstance(meta[key], kind) or isinstance(meta[key], bool):
            raise CheckpointError(
                f"checkpoint {str(path)!r}: metadata field {key!r} should be a "
                f"{kind.__name__}, got {meta[key]!r:.80}"
            )


def seat_coverage(meta: dict[str, Any], path: str | Path) -> dict[str, Any] | None:
    """The ``seats`` metadata of a policy for many tables (None for one table), checked."""
    seats = meta.get("seats")
    if seats is None:
        return None
    where = f"checkpoint {str(path)!r}"
    ok = (
        isinstance(seats, dict)
        and set(seats) - {"mode_marks"} == {"max_players", "player_counts", "modes"}
        and isinstance(seats.get("mode_marks", False), bool)
        and isinstance(seats["max_players"], int)
        and isinstance(seats["player_counts"], list)
        and all(
            isinstance(n, int) and 1 <= n <= seats["max_players"] for n in seats["player_counts"]
        )
        and isinstance(seats["modes"], dict)
        and all(isinstance(v, list) for v in seats["modes"].values())
        and meta["options"].get("num_players") == seats["max_players"]
    )
    if not ok:
        raise CheckpointError(f"{where}: metadata 'seats' is malformed: {seats!r:.120}")
    return seats


def _table_options(
    meta: dict[str, Any], seats: dict[str, Any], options: dict[str, Any], where: str
) -> dict[str, Any]:
    """The largest table's options for a game played with ``options`` by a policy for
    many tables: refused (one line) when the count or a mode is not one it was trained
    on."""
    n = options.get("num_players", 2)
    if n not in seats["player_counts"]:
        raise CheckpointError(
            f"{where} plays {meta['env_id']} at {seats['player_counts']} players, not {n}"
        )
    from choco_envs.registry import game_class

    drawn = {o.name for o in game_class(meta["env_id"]).spec.options if o.drawn}
    for key, value in options.items():
        if key in ("num_players", "components") or meta["options"].get(key) == value:
            continue
        if key in drawn and meta["options"].get(key) is None:
            continue  # trained with the value drawn every game: it met this one
        allowed = seats["modes"].get(key)
        if allowed is None or value not in allowed:
            trained = allowed if allowed is not None else [meta["options"].get(key)]
            raise CheckpointError(f"{where} was trained with {key}={trained}, not {key}={value!r}")
    return {**options, "num_players": seats["max_players"]}


def expected_sizes(env_id: str, options: dict[str, Any], encoder: str) -> tuple[list[int], int]:
    """(observation shape, number of actions) of ``env_id`` with these options."""
    from choco_envs.registry import make_game

    game = make_game(env_id, **options)
    return list(game.encoder(encoder).shape), int(game.num_actions)


def check_compatible(
    meta: dict[str, Any],
    path: str | Path,
    env_id: str | None = None,
    options: dict[str, Any] | None = None,
) -> Any:
    """Refuse (CheckpointError) a checkpoint that cannot play ``env_id`` with ``options``
    (the options it was trained with when None): another env, another version of the
    env, other observation or action sizes, another observation layout, or a feature
    function that is not installed as it was. Returns the game it plays."""
    from choco_envs.policy.features import check_features
    from choco_envs.registry import REGISTRY, game_class, make_game

    where = f"checkpoint {str(path)!r}"
    if env_id is not None and meta["env_id"] != env_id:
        raise CheckpointError(f"{where} was trained for {meta['env_id']!r}, not {env_id!r}")
    if meta["env_id"] not in REGISTRY:
        raise CheckpointError(
            f"{where} is for unknown env {meta['env_id']!r:.60}; known envs: " + ", ".join(REGISTRY)
        )
    version = game_class(meta["env_id"]).spec.version
    if meta["version"] != version:
        raise CheckpointError(
            f"{where} was trained for {meta['env_id']} version {meta['version']}, but the "
            f"installed env is version {version}; retrain it for this version"
        )
    files = game_class(meta["env_id"]).spec.named_files(meta["options"])
    if files:
        raise CheckpointError(
            f"{where}: its option {files[0]} names a file; a checkpoint carries its "
            "component data (an object), never a path"
        )
    play_options = meta["options"] if options is None else options
    seats = seat_coverage(meta, path)
    try:
        game = make_game(meta["env_id"], **play_options)
    except ChocoError as err:
        raise CheckpointError(f"{where}: its options do not make a valid env: {err}") from err
    table_options = None
    if seats is not None:  # refused in one line when the count or a mode is not its own
        table_options = _table_options(meta, seats, {**game.config, **play_options}, where)
    try:
        table = game if table_options is None else make_game(meta["env_id"], **table_options)
        encoder = table.encoder(meta["encoder"])
    except ChocoError as err:
        raise CheckpointError(f"{where}: its options do not make a valid env: {err}") from err
    shape, actions = list(encoder.shape), int(game.num_actions)
    if shape != list(meta["observation_shape"]) or actions != meta["num_actions"]:
        raise CheckpointError(
            f"{where} expects observations of shape {meta['observation_shape']} and "
            f"{meta['num_actions']} actions, but {meta['env_id']} with options "
            f"{play_options} has shape {shape} and {actions} actions"
        )
    trained_on = meta.get("observation_layout")
    if trained_on is not None and trained_on != encoder.fingerprint():
        raise CheckpointError(
            f"{where} was trained on observation layout {trained_on!r:.40}, but "
            f"{meta['env_id']} now lays its {meta['encoder']!r} observation out as "
            f"{encoder.fingerprint()} (same size, different meaning: fields moved or "
            "changed bounds); retrain it"
        )
    check_features(meta.get("features"), table, meta["encoder"], where)
    return game


def _check_action_facts(config: Any, meta: dict[str, Any], game: Any, where: str) -> None:
    """A head over per-action facts must read them where the feature function puts them
    for this env (the same actions, the same inputs): else CheckpointError."""
    from choco_envs.policy.features import PolicyInputs

    try:
        expected = PolicyInputs.of_checkpoint(game, meta).action_facts(config.action_facts[-1])
    except ConfigError as err:
        raise CheckpointError(f"{where}: action_facts: {err}") from None
    if tuple(config.action_facts) != expected:
        raise CheckpointError(
            f"{where}: its action head reads {list(config.action_facts)} (first action, "
            f"count, start, block, width); the feature function gives {list(expected)} here"
        )


def save_checkpoint(
    path: str | Path, model: Any, meta: dict[str, Any], float16: bool = False
) -> Path:
    """Write the weights of ``model`` (an ActorCritic) and ``meta`` to ``path`` (as
    float16 with ``float16``: half the bytes; loading widens them to float32)."""
    from safetensors.torch import save_file

    path = Path(path)
    if path.suffix != SUFFIX:
        raise CheckpointError(f"checkpoint path {str(path)!r} must end in {SUFFIX!r}")
    meta = {"format": FORMAT, "features": None, **meta, "network": model.config.to_json()}
    _check_fields(meta, path)
    from choco_envs.registry import REGISTRY, make_game

    if meta["env_id"] in REGISTRY:
        game = make_game(meta["env_id"], **meta["options"])
        meta["observation_layout"] = game.encoder(meta["encoder"]).fingerprint()
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().cpu().float().contiguous() for k, v in model.state_dict().items()}
    if float16:
        tensors = {k: v.half() for k, v in tensors.items()}
    tmp = path.with_suffix(".tmp")
    save_file(tensors, str(tmp), metadata={METADATA_KEY: json.dumps(meta, sort_keys=True)})
    tmp.chmod(0o644)
    tmp.replace(path)
    return path


def load_policy(
    path: str | Path, env_id: str | None = None, options: dict[str, Any] | None = None
) -> tuple[Any, dict[str, Any]]:
    """(ActorCritic in eval mode on CPU, metadata), refused with CheckpointError when the
    file is corrupt, made for another env, version, size or feature function, or declares
    a network other than its tensors. Everything is checked before the network is built."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    from choco_envs.policy.net import ActorCritic, NetConfig, check_config, parameter_shapes

    where = f"checkpoint {str(path)!r}"
    shapes, meta = read_header(path)
    game = check_compatible(meta, path, env_id, options)
    config = NetConfig.from_json(meta["network"])
    try:
        check_config(config)
    except ValueError as err:
        raise CheckpointError(f"{where}: malformed 'network': {err}") from None
    features = meta.get("features") or {}
    declared = (list(config.obs_shape), config.num_actions, config.extra_inputs)
    seats = meta.get("seats") or {}
    marks = seats.get("max_players", 0)  # the seats-present inputs, then the modes marked
    if seats.get("mode_marks"):
        marks += sum(len(v) for v in seats["modes"].values())
    wanted = (meta["observation_shape"], meta["num_actions"], features.get("size", 0) + marks)
    if declared != wanted:
        raise CheckpointError(
            f"{where}: network (observation {declared[0]}, {declared[1]} actions, "
            f"{declared[2]} extra inputs) differs from the metadata's {wanted}"
        )
    if config.action_channels:
        _check_action_planes(config, meta, game, where)
    if config.action_facts:
        _check_action_facts(config, meta, game, where)
    expected = parameter_shapes(config)
    if expected != shapes:
        missing = sorted(set(expected) - set(shapes))
        unexpected = sorted(set(shapes) - set(expected))
        wrong = sorted(k for k in set(expected) & set(shapes) if expected[k] != shapes[k])
        raise CheckpointError(
            f"{where}: its tensors do not match the network it declares (missing "
            f"{missing[:5]}, unexpected {unexpected[:5]}, other shapes "
            f"{[(k, list(shapes[k]), list(expected[k])) for k in wrong[:3]]})"
        )
    model = ActorCritic(config, initialise=False)  # every weight is loaded next
    try:
        model.load_state_dict(load_file(str(path), device="cpu"), strict=True)
    except (SafetensorError, RuntimeError, OSError, ValueError) as err:
        raise CheckpointError(f"{where}: weights do not load: {err}") from err
    model.eval()
    return model, meta


def _check_action_planes(config: Any, meta: dict[str, Any], game: Any, where: str) -> None:
    """Refuse a board action head whose action positions are not the env's own."""
    planes = game.encoder(meta["encoder"]).action_planes
    now = None if planes is None else (len(planes.channels), tuple(planes.index))
    if now != (config.action_channels, tuple(config.action_index)):
        raise CheckpointError(
            f"{where} scores actions on a board of {config.action_channels} channels that "
            f"{meta['env_id']}'s {meta['encoder']!r} observation no longer lays out the "
            "same way (or at all); retrain it"
        )


# ---------------------------------------------------------------- shipped checkpoints
def checkpoint_dir() -> Path | None:
    """The folder of shipped checkpoints, the one place that decides it: ``$CHOCO_CHECKPOINTS``,
    else the package's own ``checkpoints/`` (an installed wheel carries the shipped files
    there), else the source checkout's ``checkpoints/`` (a clone or an editable install; it
    may not exist yet), else None (a copy of the package without either)."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        folder = Path(explicit)
        if not folder.is_dir():
            raise CheckpointError(f"{ENV_VAR}={explicit!r} is not a folder")
        return folder
    package = Path(__file__).resolve().parents[1]
    if (package / PACKAGED).is_dir():
        return package / PACKAGED
    root = package.parent
    if (root / "pyproject.toml").is_file() and (root / "choco_envs").is_dir():
        return root / "checkpoints"
    return None


#: a shipped checkpoint's size budget (the wheel carries every one): ``choco ship``
#: refuses a larger file and ``choco bench`` reports each file against it
SHIPPED_BUDGET_BYTES = 5 * 1024 * 1024


def shipped_checkpoint(
    env_id: str,
    options: dict[str, Any] | None = None,
    prefix: str = "ppo",
    tables_first: bool = False,
) -> Path:
    """The shipped checkpoint of ``env_id`` trained with these options (defaults filled
    in; env options such as observation, illegal_action, reward_mode and render are
    ignored: the policy bot encodes its own input), among the files whose name starts
    with ``prefix``: a file made for exactly that table first, else one for many tables
    (``seats``) that covers it (``ppo``: the PPO networks; ``az``: the search-and-learn ones);
    with ``tables_first``, a file for many tables that covers it first.
    CheckpointError saying where it looked and what is shipped there when none fits."""
    from choco_envs.registry import game_class

    options = dict(options or {})
    for key in ("observation", "illegal_action", "reward_mode", "render_mode", "render_player"):
        options.pop(key, None)
    wanted = game_class(env_id).spec.validate(options)
    plain = {k: v for k, v in wanted.items() if isinstance(v, (bool, int, float, str))}
    spec = game_class(env_id).spec
    # a file trained with a drawn option left None (drawn every game) met every value
    drawn = {o.name for o in spec.options if o.drawn}
    folder = checkpoint_dir()
    if folder is None:
        raise CheckpointError(
            f"no shipped checkpoint for {env_id}: this install has no checkpoints folder "
            f"(neither choco_envs/{PACKAGED}/ nor a source checkout's checkpoints/); set "
            f"{ENV_VAR}=DIR to a folder holding {env_id}/*.safetensors (a clone's "
            "checkpoints/), or play a file of your own with policy:PATH"
        )
    found = (
        sorted((folder / env_id).glob(f"{prefix}*{SUFFIX}")) if (folder / env_id).is_dir() else []
    )
    seen = []
    covering = None  # a file for many tables serves a table no file is made for alone
    exact = None
    for path in found:
        try:
            meta = read_metadata(path)
        except CheckpointError as err:
            seen.append(f"{path.name} (unreadable: {str(err)[-80:]})")
            continue
        seats = meta.get("seats")
        if isinstance(seats, dict):
            seen.append(f"{path.name} {meta['options']} at {seats.get('player_counts')} players")
            try:
                _table_options(meta, seats, plain, str(path))
            except (CheckpointError, TypeError, AttributeError):
                continue
            covering = covering or path
            continue
        seen.append(f"{path.name} {meta['options']}")
        if all(
            meta["options"].get(k) == v or (k in drawn and meta["options"].get(k) is None)
            for k, v in plain.items()
        ):
            if not tables_first:
                return path
            exact = exact or path
    if covering is not None:
        return covering
    if exact is not None:
        return exact
    raise CheckpointError(
        f"no checkpoint is shipped for {env_id} with options {plain} in {folder} (as "
        f"{prefix}*{SUFFIX}); shipped "
        f"there: {', '.join(seen) or 'none'} (see checkpoints/README.md; play a file of your "
        "own with policy:PATH)"
    )


def search_checkpoint(env_id: str, options: dict[str, Any] | None = None) -> Path:
    """The file the ``az`` bot searches with for ``env_id`` and these options: the shipped
    search-and-learn file (``az*``) that serves the table, or where none does, a shipped
    PPO network (``ppo*``; its one value output is asked once per seat,
    ``choco_envs.policy.az_bot``): the many-table file that covers the table first (at 2
    players every game's many-table file evaluates at least as strong as its 2-player
    file against greedy on the same deals: docs/results.md), else the table's own file.
    CheckpointError naming both searches when neither is shipped."""
    try:
        return shipped_checkpoint(env_id, options, prefix="az")
    except CheckpointError as az_err:
        try:
            return shipped_checkpoint(env_id, options, prefix="ppo", tables_first=True)
        except CheckpointError as ppo_err:
            raise CheckpointError(f"{az_err}; and {ppo_err}") from None
