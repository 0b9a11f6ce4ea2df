"""Replaying a game record: its options and seed, then its actions, checked against its
own state. (The record format lives in ``choco_envs.core.record_format``; docs/records.md.)"""

from __future__ import annotations

from typing import Any

from choco_envs.core.errors import ChocoError, RecordError, shown
from choco_envs.core.record_format import (
    check_record_fields,
    check_record_options,
    load_json,
    parse_json,
    save_json,
)
from choco_envs.registry import REGISTRY, game_class, make_raw

__all__ = ["load_json", "parse_json", "replay", "save_json"]


def replay(record: dict[str, Any]) -> Any:
    """Rebuild an env from a record's game options and seed, replay its actions, and check
    that the result is the record's own state and random stream; returns the (unwrapped)
    env. RecordError when the record cannot be replayed: an unknown field, options that
    are not the game's or that name a file, a missing seed, an action the rules refuse
    (naming the step), or an end state other than the record's (a changed or swapped
    action). Nothing is built before the record's fields and options are checked."""
    check_record_fields(record)
    if not isinstance(record["env_id"], str) or record["env_id"] not in REGISTRY:
        raise RecordError(
            f"game record: unknown env {shown(record['env_id'])}; known envs: {', '.join(REGISTRY)}"
        )
    try:
        spec = game_class(record["env_id"]).spec
    except ChocoError as err:
        raise RecordError(f"game record: {err}") from err
    check_record_options(spec, record["options"])
    seed = record["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RecordError(f"game record: field 'seed' = {shown(seed)}; an int is needed to replay")
    try:
        env = make_raw(record["env_id"], illegal_action="raise", **record["options"])
    except ChocoError as err:
        raise RecordError(f"game record: its options do not make a game: {err}") from err
    env.reset(options={"state": record})
    return env
