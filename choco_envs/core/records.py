"""Saved games: a state record (to continue a game) and a game record (to replay it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from choco_envs.core.errors import RecordError
from choco_envs.core.game import Game

RECORD_FORMAT = "choco_envs.game_record/1"


def check_record_header(record: Any, game: Game[Any]) -> None:
    """Refuse a record that is not a dict of our format, or was made for another env,
    version or configuration."""
    if not isinstance(record, dict):
        raise RecordError(f"saved game: expected a JSON object, got {type(record).__name__}")
    if record.get("format") != RECORD_FORMAT:
        raise RecordError(f"saved game: format {record.get('format')!r} is not {RECORD_FORMAT!r}")
    spec = game.spec
    if record.get("env_id") != spec.env_id:
        raise RecordError(f"saved game is for env {record.get('env_id')!r}, not {spec.env_id!r}")
    if record.get("version") != spec.version:
        raise RecordError(
            f"saved game is for {spec.env_id} version {record.get('version')!r}; "
            f"this is version {spec.version}"
        )
    options = record.get("options")
    if not isinstance(options, dict):
        raise RecordError("saved game: field 'options' must be an object")
    for key, value in options.items():
        if key in game.config and game.config[key] != value:
            raise RecordError(
                f"saved game was played with {key}={value!r}; this env has "
                f"{key}={game.config[key]!r}. Make the env with the record's options."
            )
    if "state" not in record:
        raise RecordError("saved game: missing field 'state'")
    actions = record.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, int) for a in actions):
        raise RecordError("saved game: field 'actions' must be a list of ints")


def replay(record: dict[str, Any], **env_options: Any) -> Any:
    """Rebuild an env from a record's options and seed and replay its actions; the
    result is the identical game. Returns the (unwrapped) env."""
    from choco_envs.registry import make_raw

    if not isinstance(record, dict) or "env_id" not in record:
        raise RecordError("game record: expected an object with 'env_id'")
    env = make_raw(record["env_id"], **record.get("options", {}), **env_options)
    check_record_header(record, env.game)
    if record.get("seed") is None:
        raise RecordError("game record: field 'seed' is needed to replay")
    env.reset(seed=record["seed"])
    for action in record["actions"]:
        env.step(action)
    return env


def save_json(record: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1))


def load_json(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as err:
        raise RecordError(f"{path}: not valid JSON ({err})") from err
    if not isinstance(data, dict):
        raise RecordError(f"{path}: expected a JSON object")
    return data
