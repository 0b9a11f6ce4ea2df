"""The API's OpenAPI schema, exactly what the server does (``/api/openapi.json``).

Every answer has its model here, and every refusal the one :class:`Error` model. The
request bodies of ``POST /api/games`` and ``POST /api/bots`` are stated exactly: one
branch per set of configurations that allow the same seats (``catalog.configurations``
and ``catalog.seat_choices``, the functions the server checks requests with), so a
request the schema allows is one the server accepts. An upload is a record (the env's
JSON record, at most ``MAX_UPLOAD_BYTES``); whether it replays is for the server to
find (400 when it does not). :func:`api_table` renders docs/web.md's table of routes
from the same schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from choco_envs.core.record_format import RECORD_FORMAT
from choco_envs.registry import list_envs
from choco_envs.web.catalog import (
    MCTS_SPEC,
    configurations,
    env_entry,
    same_value,
    seat_choices,
)

Scalar = bool | int | float | str | None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Error(_Model):
    """Every refusal: one line saying why (quoting at most a short excerpt of what was
    refused)."""

    detail: str


class NewGameAnswer(_Model):
    game_id: str
    seat_urls: list[str | None]


class BotEntry(_Model):
    spec: str
    ok: bool
    reason: str | None


class Bots(_Model):
    env_id: str
    bots: list[BotEntry]


class OptionEntry(_Model):
    name: str
    default: Scalar
    doc: str
    choices: list[Scalar]


class PlayersFor(_Model):
    options: dict[str, Scalar]
    min: int
    max: int


class EnvEntry(_Model):
    env_id: str
    name: str
    min_players: int
    max_players: int
    default_players: int
    players_for: list[PlayersFor]
    hidden_information: bool
    options: list[OptionEntry]


class Catalog(_Model):
    envs: list[EnvEntry]
    policies: list[str]


class SeatEntry(_Model):
    seat: int
    player: str
    human: bool


class LegalMove(_Model):
    action: int
    name: str
    target: dict[str, Any] | None


class LogEntry(_Model):
    step: int
    seat: int
    player: str
    action: int
    name: str
    target: dict[str, Any] | None


class GameState(_Model):
    """What a seat (or a spectator) sees of a live game."""

    game_id: str
    env_id: str
    name: str
    options: dict[str, Scalar]
    seed: int
    seat: int | None
    seats: list[SeatEntry]
    version: int
    step: int
    view: dict[str, Any]
    to_act: int | None
    legal: list[LegalMove]
    over: bool
    scores: list[float] | None
    breakdown: dict[str, list[float]] | None
    places: list[int] | None
    log: list[LogEntry]
    log_from: int
    record_id: str | None
    error: str | None


class Record(BaseModel):
    """The env's JSON record (``env.save()``); ``choco_envs.records`` reads it."""

    model_config = ConfigDict(extra="allow")
    format: str
    env_id: str
    version: int
    options: dict[str, Any]
    seed: int
    actions: list[int]
    state: dict[str, Any]


class RecordSummary(_Model):
    id: str
    saved: float
    players: list[str] | None
    env_id: str | None = None
    name: str | None = None
    options: dict[str, Any] | None = None
    moves: int | None = None
    over: bool | None = None
    scores: list[float] | None = None
    error: str | None = None


class RecordList(_Model):
    records: list[RecordSummary]


class Uploaded(_Model):
    record_id: str


class FrameMove(_Model):
    seat: int
    action: int
    name: str
    target: dict[str, Any] | None


class Frame(_Model):
    step: int
    move: FrameMove | None
    to_act: int | None
    view: dict[str, Any]


class Final(_Model):
    scores: list[float]
    breakdown: dict[str, list[float]]
    places: list[int]


class Frames(_Model):
    record_id: str
    env_id: str
    name: str
    options: dict[str, Any]
    seed: int | None
    num_players: int
    players: list[str] | None
    seat: int | None
    steps: int
    frames: list[Frame]
    final: Final | None


#: what each refusal status means (the descriptions in the schema)
REFUSALS = {
    400: "an illegal move (the rules' own message), or a request that cannot be carried out",
    403: "a token that is not a seat of this game",
    404: "no such game (or it expired) or record",
    409: "the game is not in a state for this request",
    413: "the request body is larger than this route takes",
    422: "a malformed request (wrong types, unknown fields, JSON nested too deeply) or "
    "values the server does not allow",
    503: "the server holds as many live games as it allows; try later",
}


def refusals(*statuses: int, **why: str) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route for these refusal statuses (``why``: a route's own
    description of one, keyed ``s404``)."""
    return {s: {"model": Error, "description": why.get(f"s{s}", REFUSALS[s])} for s in statuses}


# ---------------------------------------------------------------------- exact bodies
def boxes(configs: Iterable[dict[str, Any]]) -> list[dict[str, list[Any]]]:
    """The configurations as a few products (``{key: [values]}``, each a set of whole
    combinations; together exactly ``configs``): boxes that differ in one key merge."""
    out = [{k: [v] for k, v in c.items()} for c in configs]
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                differ = [k for k in a if not _same_values(a[k], b[k])]
                if len(differ) == 1:
                    k = differ[0]
                    a[k] = a[k] + [v for v in b[k] if not any(same_value(v, w) for w in a[k])]
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def _same_values(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(any(same_value(x, y) for y in b) for x in a)


def _one_of(values: list[Any]) -> dict[str, Any]:
    return {"const": values[0]} if len(values) == 1 else {"enum": list(values)}


def _options_schema(
    env_id: str, box: dict[str, list[Any]], players_default: int | None
) -> dict[str, Any]:
    defaults = {o["name"]: o["default"] for o in env_entry(env_id)["options"]}
    if players_default is not None:
        defaults["num_players"] = players_default
    properties = {k: _one_of(v) for k, v in box.items()}
    required = [
        k
        for k, v in box.items()
        if k in defaults and not any(same_value(defaults[k], x) for x in v)
    ]
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
    }
    if required:
        schema["required"] = required
    return schema


SEED = {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 2**63 - 1}, {"type": "null"}]}


def new_game_schema(policies: list[str]) -> dict[str, Any]:
    """The body of ``POST /api/games``: one branch per env, player count and set of
    configurations with the same seats."""
    branches = []
    for env_id in list_envs():
        by_players: dict[int, list[dict[str, Any]]] = {}
        for config in configurations(env_id):
            seats = tuple(seat_choices(env_id, config, policies))
            options = {k: v for k, v in config.items() if k != "num_players"}
            by_players.setdefault(config["num_players"], []).append({**options, "\0seats": seats})
        for n, configs in sorted(by_players.items()):
            for box in boxes(configs):
                (seats,) = box.pop("\0seats")
                options = _options_schema(env_id, {"num_players": [n], **box}, None)
                required = ["env_id", "seats", *(["options"] if "required" in options else [])]
                branches.append(
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": required,
                        "properties": {
                            "env_id": {"const": env_id},
                            "options": options,
                            "seats": {
                                "type": "array",
                                "minItems": n,
                                "maxItems": n,
                                "items": {
                                    "anyOf": [
                                        {"enum": list(seats)},
                                        {"type": "string", "pattern": MCTS_SPEC},
                                    ]
                                },
                            },
                            "seed": SEED,
                        },
                    }
                )
    return {
        "title": "NewGame",
        "description": "A game to start: the env, its options (num_players defaults to the "
        "number of seats), one seat per player ('human', a bot kind that can be made for "
        "these options, a served policy:PATH, or an MCTS spec within the caps) and a seed "
        "(null: random). One branch per configuration with the same seats.",
        "anyOf": branches,
    }


def bot_query_schema() -> dict[str, Any]:
    """The body of ``POST /api/bots``: an env and options that make a game."""
    branches = []
    for env_id in list_envs():
        default = env_entry(env_id)["default_players"]
        for box in boxes(configurations(env_id)):
            options = _options_schema(env_id, box, default)
            branches.append(
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["env_id", *(["options"] if "required" in options else [])],
                    "properties": {"env_id": {"const": env_id}, "options": options},
                }
            )
    return {
        "title": "BotQuery",
        "description": "An env and options (num_players defaults to the game's own).",
        "anyOf": branches,
    }


def upload_schema(max_bytes: int) -> dict[str, Any]:
    """The body of ``POST /api/records``: a record, at most ``max_bytes``."""
    return {
        "title": "RecordUpload",
        "description": f"A game record as env.save() writes it, at most {max_bytes:,} bytes "
        "(413 past that); kept only if it replays from its seed and actions to its state "
        "(400 otherwise), with options a client may set.",
        "type": "object",
        "required": ["format", "env_id", "version", "options", "seed", "actions", "state"],
        "properties": {
            "format": {"const": RECORD_FORMAT},
            "env_id": {"enum": list_envs()},
            "version": {"type": "integer"},
            "options": {"type": "object"},
            "seed": {"type": "integer", "minimum": 0},
            "actions": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "state": {"type": "object"},
        },
    }


def finish(schema: dict[str, Any], policies: list[str], max_upload: int) -> dict[str, Any]:
    """FastAPI's schema with the exact request bodies in, and no model left unused."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["NewGame"] = new_game_schema(policies)
    components["BotQuery"] = bot_query_schema()
    components["RecordUpload"] = upload_schema(max_upload)
    upload = schema["paths"]["/api/records"]["post"]
    upload["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RecordUpload"}}},
    }
    for item in schema["paths"].values():
        for op in item.values():
            for status, answer in list(op["responses"].items()):
                if "HTTPValidationError" in str(answer):  # FastAPI's own 422 of a route
                    del op["responses"][status]  # that cannot refuse its parameters
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    return schema


# ---------------------------------------------------------------------- docs table
def api_table(schema: dict[str, Any]) -> str:
    """docs/web.md's table of routes: each route, its body, and every status it answers."""
    rows = ["| request | answers |", "|---|---|"]
    for path, item in schema["paths"].items():
        for method, op in item.items():
            codes = ", ".join(sorted(op["responses"]))
            rows.append(f"| `{method.upper()} {path}` | {codes} |")
    return "\n".join(rows)
