"""Finished games on disk, and their replay frames.

Each record is one file ``<id>.json`` holding exactly the env's JSON record
(``env.save()``), so ``choco_envs.records.replay`` and ``env.reset(options={"state":
record})`` read it as they read any saved game; who sat where (``human`` or a bot spec)
is kept beside it in ``<id>.players.json``. Uploaded records are verified by replay
before they are kept. Ids are file stems of letters, digits, ``-``, ``_`` and ``.``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ChocoError, RecordError
from choco_envs.records import parse_json, replay
from choco_envs.registry import game_class, make_raw
from choco_envs.web.catalog import check_env, check_record_options
from choco_envs.web.errors import BadRequest, Invalid, NotFound, excerpt
from choco_envs.web.views import final_scores, target, view

RECORD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,150}$")
PLAYERS_SUFFIX = ".players"
#: the largest record accepted by upload
MAX_UPLOAD_BYTES = 4 * 2**20
#: uploads are refused once the folder holds this many records (a bound on its disk use)
MAX_RECORDS = 20_000


def default_folder() -> Path:
    """``$XDG_DATA_HOME/choco_envs/records`` (``~/.local/share/choco_envs/records``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "choco_envs" / "records"


class RecordStore:
    """The records folder: save, list, load."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder).expanduser()
        self.folder.mkdir(parents=True, exist_ok=True)
        self._summaries: dict[tuple[str, float], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def path(self, record_id: str) -> Path:
        if (
            not isinstance(record_id, str)
            or not RECORD_ID.match(record_id)
            or record_id.endswith(PLAYERS_SUFFIX)
        ):
            raise NotFound(f"no record {excerpt(record_id)}")
        return self.folder / f"{record_id}.json"

    def players(self, record_id: str) -> list[str] | None:
        """Who sat where in a game this server played (None if not known)."""
        try:
            path = self.folder / f"{self.path(record_id).stem}{PLAYERS_SUFFIX}.json"
            players = json.loads(path.read_text(encoding="utf-8"))["players"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if isinstance(players, list) and all(isinstance(p, str) for p in players):
            return players
        return None

    def save(self, record: dict[str, Any], stem: str, players: list[str] | None = None) -> str:
        """Write ``record`` as ``<stem>.json`` (a new name if taken), and ``players``
        beside it; its id."""
        record_id = stem
        with self._lock:
            n = 1
            while self.path(record_id).exists():
                n += 1
                record_id = f"{stem}-{n}"
            tmp = self.folder / f".{record_id}.tmp"
            tmp.write_text(json.dumps(record, indent=1))
            tmp.replace(self.path(record_id))
            if players is not None:
                beside = self.folder / f"{record_id}{PLAYERS_SUFFIX}.json"
                beside.write_text(json.dumps({"players": players}))
        return record_id

    def load(self, record_id: str) -> dict[str, Any]:
        path = self.path(record_id)
        try:
            text = path.read_text(encoding="utf-8")
        except (FileNotFoundError, IsADirectoryError):
            raise NotFound(f"no record {record_id!r}") from None
        except (OSError, UnicodeDecodeError) as err:
            raise BadRequest(f"record {record_id!r} cannot be read: {err}") from None
        try:
            return parse_json(text, f"record {record_id}")
        except RecordError as err:
            raise BadRequest(str(err)) from None

    def upload(self, body: bytes) -> str:
        """Keep an uploaded record once it replays; its id (the same record twice keeps
        one file). BadRequest/Invalid naming what is wrong otherwise."""
        if len(body) > MAX_UPLOAD_BYTES:
            raise BadRequest(f"a record is at most {MAX_UPLOAD_BYTES} bytes")
        try:
            record = parse_json(body.decode("utf-8"), "uploaded record")
        except UnicodeDecodeError:
            raise BadRequest("uploaded record: not UTF-8 JSON") from None
        except RecordError as err:
            raise BadRequest(str(err)) from None
        env_id = check_env(record.get("env_id"))
        check_shape(record)
        check_record_options(env_id, record.get("options", {}))
        verify(record)
        if sum(1 for _ in self.folder.glob("*.json")) >= MAX_RECORDS:
            raise BadRequest(f"the records folder holds {MAX_RECORDS} files; no more uploads")
        digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]
        record_id = f"upload-{env_id}-{digest}"
        if not self.path(record_id).exists():
            self.save(record, record_id)
        return record_id

    def listing(self, limit: int = 100) -> list[dict[str, Any]]:
        """The newest records first: id, env, options, moves, saved time, final scores."""
        files = [p for p in self.folder.glob("*.json") if not p.stem.endswith(PLAYERS_SUFFIX)]
        files = sorted(files, key=_mtime, reverse=True)[:limit]
        out = []
        for path in files:
            key = (path.name, _mtime(path))
            summary = self._summaries.get(key)
            if summary is None:
                summary = self._summary(path)
                self._summaries[key] = summary
            out.append({**summary, "players": self.players(path.stem)})
        return out

    @staticmethod
    def _summary(path: Path) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": path.stem, "saved": _mtime(path)}
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            game = game_class(record["env_id"])(**record.get("options", {}))
            state = game.from_json(record["state"])
            final = final_scores(game, state)
            entry.update(
                env_id=record["env_id"],
                name=game.spec.name,
                options=record.get("options", {}),
                moves=len(record.get("actions", [])),
                over=final is not None,
                scores=None if final is None else final["scores"],
            )
        except (OSError, ValueError, KeyError, TypeError, ChocoError) as err:
            entry.update(error=f"unreadable record: {err}")
        return entry


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


#: the fields of a record and their JSON types (the upload's schema states the same)
FIELDS: dict[str, tuple[type, ...]] = {
    "format": (str,),
    "env_id": (str,),
    "version": (int,),
    "options": (dict,),
    "seed": (int,),
    "actions": (list,),
    "state": (dict,),
}


def check_shape(record: dict[str, Any]) -> None:
    """BadRequest unless ``record`` has every field of a record, of its type (what each
    action is, the records loader checks and names)."""
    for key, types in FIELDS.items():
        value = record.get(key)
        if not isinstance(value, types) or isinstance(value, bool):
            kind = "missing" if key not in record else f"a {type(value).__name__}"
            raise BadRequest(f"record: field {key!r} must be a {types[0].__name__} ({kind})")


def verify(record: dict[str, Any]) -> Any:
    """The replayed env of a record, or BadRequest with the replay's message."""
    try:
        return replay(record)
    except RecordError as err:
        raise BadRequest(str(err)) from None


def parse_seat(text: str | None, num_players: int) -> int | None:
    """``None``/``""``/``spectator`` -> None, else a seat number in range."""
    if text is None or text in ("", "spectator"):
        return None
    if not text.isascii() or not text.isdigit() or int(text) >= num_players:
        raise Invalid(f"seat {excerpt(text)}: a seat is 0..{num_players - 1} or 'spectator'")
    return int(text)


def frames(
    record: dict[str, Any], seat_text: str | None, players: list[str] | None = None
) -> dict[str, Any]:
    """Every position of a record as one seat (or a spectator) saw it, with the move that
    led there: what the replay page's slider steps through. The record is verified by
    replay first."""
    env_id = check_env(record.get("env_id"))
    check_shape(record)
    check_record_options(env_id, record.get("options", {}))
    done = verify(record)
    game = done.game
    seat = parse_seat(seat_text, game.num_players)
    env = make_raw(env_id, illegal_action="raise", **record.get("options", {}))
    env.reset(seed=record["seed"])

    def frame(step: int, move: dict[str, Any] | None) -> dict[str, Any]:
        over = env.game_over()
        to_act = None if over else env.agent_name_mapping[env.agent_selection]
        return {
            "step": step,
            "move": move,
            "to_act": to_act,
            "view": view(env.game, env.state_, seat),
        }

    out = [frame(0, None)]
    for step, action in enumerate(record["actions"], start=1):
        mover = env.agent_name_mapping[env.agent_selection]
        name = env.action_to_string(action)
        where = target(env.game, env.state_, action)
        env.step(action)
        out.append(frame(step, {"seat": mover, "action": action, "name": name, "target": where}))
    return {
        "env_id": env_id,
        "name": game.spec.name,
        "options": record.get("options", {}),
        "seed": record.get("seed"),
        "num_players": game.num_players,
        "players": players if players and len(players) == game.num_players else None,
        "seat": seat,
        "steps": len(record["actions"]),
        "frames": out,
        "final": final_scores(env.game, env.state_),
    }
