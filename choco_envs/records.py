"""Replaying a game record: its options and seed, then its actions, checked against its
own state. (The record format lives in ``choco_envs.core.records``.)"""

from __future__ import annotations

import json
from typing import Any

from choco_envs.core.errors import ChocoError, RecordError
from choco_envs.core.records import check_record_header, load_json, parse_json, save_json
from choco_envs.registry import game_class, make_raw

__all__ = ["load_json", "parse_json", "replay", "save_json"]


def replay(record: dict[str, Any]) -> Any:
    """Rebuild an env from a record's game options and seed, replay its actions, and check
    that the result is the record's own state; returns the (unwrapped) env. RecordError
    when the record cannot be replayed: options that are not the game's, a missing seed,
    an action the rules refuse (naming the step), or an end state other than the
    record's (a changed or swapped action)."""
    if not isinstance(record, dict) or not isinstance(record.get("env_id"), str):
        raise RecordError("game record: expected an object with a string 'env_id'")
    try:
        spec = game_class(record["env_id"]).spec
    except ChocoError as err:
        raise RecordError(f"game record: {err}") from err
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise RecordError("game record: field 'options' must be an object")
    foreign = sorted(set(options) - set(spec.option_names()))
    if foreign:
        raise RecordError(
            f"game record: options {foreign} are not game options of {spec.env_id}; "
            f"allowed: {', '.join(spec.option_names())}"
        )
    try:
        env = make_raw(record["env_id"], illegal_action="raise", **options)
    except ChocoError as err:
        raise RecordError(f"game record: its options do not make a game: {err}") from err
    check_record_header(record, env.game)
    seed = record.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RecordError(f"game record: field 'seed' = {seed!r}; an int is needed to replay")
    env.reset(seed=seed)
    for step, action in enumerate(record["actions"]):
        if env.game_over():
            raise RecordError(
                f"game record: the game is over after {step} actions, but the record has "
                f"{len(record['actions'])}"
            )
        try:
            env.step(action)
        except ChocoError as err:
            raise RecordError(f"game record: action {step} ({action!r}) is refused: {err}") from err
    replayed = env.game.to_json(env.state_)
    if json.dumps(replayed, sort_keys=True) != json.dumps(record["state"], sort_keys=True):
        raise RecordError(
            "game record: replaying its seed and actions does not give its state (an "
            "action or the state was changed)"
        )
    return env
