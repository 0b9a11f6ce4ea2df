"""Saved games: a state record (to continue a game) and a game record (to replay it, with
``choco_envs.records.replay``): the format, the header checks, reading JSON files."""

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
    foreign = sorted(set(options) - set(game.config))
    if foreign:
        raise RecordError(
            f"saved game: options {foreign} are not game options of {spec.env_id}; "
            f"allowed: {', '.join(game.config)}"
        )
    for key, value in options.items():
        if game.config[key] != value:
            raise RecordError(
                f"saved game was played with {key}={value!r}; this env has "
                f"{key}={game.config[key]!r}. Make the env with the record's options."
            )
    if "state" not in record:
        raise RecordError("saved game: missing field 'state'")
    actions = record.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, int) for a in actions):
        raise RecordError("saved game: field 'actions' must be a list of ints")


def save_json(record: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1))


#: the largest saved game read (a record of the longest game is far smaller)
MAX_RECORD_BYTES = 64 * 2**20


def load_json(path: str | Path) -> dict[str, Any]:
    """A saved game or game record from a JSON file; RecordError for a missing, unreadable,
    binary, oversized, non-JSON or too deeply nested file."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_RECORD_BYTES:
            raise RecordError(f"{path}: larger than {MAX_RECORD_BYTES} bytes; not a saved game")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise RecordError(f"{path}: no such file") from err
    except IsADirectoryError as err:
        raise RecordError(f"{path}: a folder, not a saved game") from err
    except UnicodeDecodeError as err:
        raise RecordError(f"{path}: not a text file (a saved game is UTF-8 JSON)") from err
    except OSError as err:
        raise RecordError(f"{path}: cannot be read ({err.strerror or err})") from err
    return parse_json(text, str(path))


def parse_json(text: str, where: str = "saved game") -> dict[str, Any]:
    """A JSON object from ``text``; RecordError if it is not one (or nests too deeply)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError(f"{where}: not valid JSON ({err})") from err
    except RecursionError as err:
        raise RecordError(f"{where}: JSON nested too deeply") from err
    if not isinstance(data, dict):
        raise RecordError(f"{where}: expected a JSON object, got {type(data).__name__}")
    return data
