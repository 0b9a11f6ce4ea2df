"""Saved games: a record (to continue a game with ``env.reset(options={"state": record})``
and to replay it with ``choco_envs.records.replay``): the format, its checks, reading JSON
files. docs/records.md describes the format.

A record is data from elsewhere. Its checks refuse by size first (a list longer than the
game allows is refused before its items are read) and then run in linear time; a record
never makes this machine read a file (an option naming one is refused: a record carries
its component data itself); and its history (``seed`` and ``actions``) must replay to its
``state`` and random stream, or be absent (``seed`` null, ``actions`` empty: a position
set up by hand)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ChocoError, RecordError, shown
from choco_envs.core.files import parse_json_text, read_json_file
from choco_envs.core.game import Game
from choco_envs.core.spec import GameSpec

RECORD_FORMAT = "choco_envs.game_record/1"
#: every field of a record, in the order ``env.save()`` writes them; no other is allowed
RECORD_FIELDS = ("format", "env_id", "version", "options", "seed", "actions", "state", "rng")
#: the largest game record read, in bytes: over 20 times a whole game's record at the
#: most players (docs/records.md)
MAX_RECORD_BYTES = 2**20
#: ``random.Random.getstate()[1]``: 624 words of state and a position
RNG_WORDS = 625


def check_record_fields(record: Any) -> None:
    """A JSON object with exactly the record's fields (an unknown one, a typo or an
    addition, is refused rather than carried into the next save)."""
    if not isinstance(record, dict):
        raise RecordError(f"game record: expected a JSON object, got {type(record).__name__}")
    missing = [k for k in RECORD_FIELDS if k not in record]
    unknown = [shown(k) for k in [k for k in record if k not in RECORD_FIELDS][:5]]
    if missing or unknown:
        problem = (
            f"missing field(s) {missing}" if missing else f"unknown field(s) {', '.join(unknown)}"
        )
        raise RecordError(f"game record: {problem}; allowed: exactly {list(RECORD_FIELDS)}")


def check_record_options(spec: GameSpec, options: Any) -> None:
    """Options that are the game's own (no env option such as render_mode) and name no
    file (a record carries its component data itself)."""
    if not isinstance(options, dict):
        raise RecordError("game record: field 'options' must be an object")
    names = spec.option_names()
    foreign = [shown(k) for k in [k for k in options if k not in names][:5]]
    if foreign:
        raise RecordError(
            f"game record: options {', '.join(foreign)} are not game options of "
            f"{spec.env_id}; allowed: {', '.join(spec.option_names())}"
        )
    files = spec.named_files(options)
    if files:
        raise RecordError(
            f"game record: option {files[0]} names a file; a record carries its component "
            "data (an object), never a path"
        )


def check_record_header(record: Any, game: Game[Any]) -> None:
    """Refuse a record that is not a dict of our format, was made for another env,
    version or configuration, or has a malformed seed or action list (refused by length
    before its items are read)."""
    check_record_fields(record)
    if record["format"] != RECORD_FORMAT:
        raise RecordError(f"game record: format {shown(record['format'])} is not {RECORD_FORMAT!r}")
    spec = game.spec
    if record["env_id"] != spec.env_id:
        raise RecordError(f"game record is for env {shown(record['env_id'])}, not {spec.env_id!r}")
    if record["version"] != spec.version:
        raise RecordError(
            f"game record is for {spec.env_id} version {shown(record['version'])}; "
            f"this is version {spec.version}"
        )
    options = record["options"]
    check_record_options(spec, options)
    for key, value in options.items():
        if game.config[key] != value:
            raise RecordError(
                f"game record was played with {key}={shown(value)}; this env has "
                f"{key}={shown(game.config[key])}. Make the env with the record's options."
            )
    seed = record["seed"]
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RecordError(f"game record: field 'seed' = {shown(seed)}; allowed: an int or null")
    actions = record["actions"]
    if not isinstance(actions, list):
        raise RecordError(
            f"game record: field 'actions' = {shown(actions)}; allowed: a list of ints"
        )
    if len(actions) > game.max_steps:
        raise RecordError(
            f"game record: {len(actions):,} actions; a game of {spec.env_id} with these "
            f"options ends within {game.max_steps} steps"
        )
    for step, a in enumerate(actions):
        if isinstance(a, bool) or not isinstance(a, int):
            raise RecordError(
                f"game record: actions[{step}] = {shown(a)}; allowed: an int (an action number)"
            )
    if seed is None and actions:
        raise RecordError(
            f"game record: {len(actions)} actions but seed null; actions are replayed from "
            "their seed (a position set up by hand has seed null and actions [])"
        )


def parse_rng(value: Any) -> random.Random:
    """The random stream of a record's ``rng`` field (``[version, [625 ints], gauss]``)."""
    try:
        version, internal, gauss = value
        if not isinstance(internal, list) or len(internal) != RNG_WORDS:
            raise ValueError(f"its state is {RNG_WORDS} ints")
        rng = random.Random()
        rng.setstate((version, tuple(internal), gauss))
    except (TypeError, ValueError, IndexError, OverflowError) as err:
        raise RecordError(f"game record: field 'rng' is malformed ({str(err)[:100]})") from None
    return rng


def rng_to_json(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def replay_history(game: Game[Any], seed: int, actions: list[int]) -> tuple[Any, random.Random]:
    """(state, random stream) after a new game from ``seed`` and ``actions``, played as
    the env plays them; RecordError naming the first action the rules refuse (or one
    after the end). Linear in the number of actions, which the header check bounds by
    ``game.max_steps``."""
    rng = random.Random(seed)
    s = game.new_state(rng)
    for step, action in enumerate(actions):
        if game.is_over(s):
            raise RecordError(
                f"game record: the game is over after {step} actions, but the record has "
                f"{len(actions)}"
            )
        try:
            a = game.check_action_range(s, action)
            if not game.legal_mask(s)[a]:
                raise game.illegal(s, a, "the action mask forbids it")
            game.apply(s, a, rng)
        except ChocoError as err:
            why = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise RecordError(
                f"game record: action {step} ({shown(action)}) is refused: "
                f"{why if len(why) <= 200 else why[:197] + '...'}"
            ) from None
    return s, rng


def check_history(game: Game[Any], record: dict[str, Any], state: Any, rng: random.Random) -> None:
    """A record's seed and actions replay to its state and random stream (or the record
    has no history: seed null, actions empty)."""
    if record["seed"] is None:
        return
    replayed, replayed_rng = replay_history(game, record["seed"], record["actions"])
    if game.to_json(replayed) != game.to_json(state):
        raise RecordError(
            "game record: replaying its seed and actions does not give its state (an "
            "action, the seed or the state was changed; a position set up by hand has "
            "seed null and actions [])"
        )
    if replayed_rng.getstate() != rng.getstate():
        raise RecordError(
            "game record: replaying its seed and actions does not give its random stream "
            "(field 'rng' was changed)"
        )


def save_json(record: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1))


def load_json(path: str | Path) -> dict[str, Any]:
    """A saved game from a JSON file; RecordError for a missing, unreadable, binary,
    oversized, non-JSON or too deeply nested file, or anything but a regular file (a
    device such as /dev/zero is refused, never read)."""
    data = read_json_file(path, "game record", MAX_RECORD_BYTES, RecordError)
    if not isinstance(data, dict):
        raise RecordError(
            f"game record {str(path)!r:.200}: expected a JSON object, got {type(data).__name__}"
        )
    return data


def parse_json(text: str, where: str = "game record") -> dict[str, Any]:
    """A JSON object from ``text``; RecordError if it is not one (or nests too deeply)."""
    data = parse_json_text(text, where, RecordError)
    if not isinstance(data, dict):
        raise RecordError(f"{where}: expected a JSON object, got {type(data).__name__}")
    return data
