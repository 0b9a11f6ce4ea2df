"""Helpers of the web tests: an app on a records folder of its own, its API client, and
playing seats through the API. Test modules import this after
``pytest.importorskip("fastapi")``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from choco_envs.registry import list_envs
from choco_envs.web.app import create_app
from choco_envs.web.sessions import Settings

ENV_IDS = list_envs()
#: the longest a test waits for a bot to move, seconds
BOT_WAIT = 20.0


def make_client(records: Path, **settings: Any) -> TestClient:
    options = {"records": str(records), "bot_delay": 0.0, **settings}
    return TestClient(create_app(Settings(**options)))


def token_of(url: str | None) -> str:
    assert url is not None and "token=" in url
    return url.split("token=", 1)[1]


def new_game(
    client: TestClient,
    env_id: str,
    seats: list[str],
    options: dict[str, Any] | None = None,
    seed: int = 0,
) -> tuple[str, list[str | None]]:
    """(game id, each seat's token or None for a bot)."""
    r = client.post(
        "/api/games",
        json={"env_id": env_id, "options": options or {}, "seats": seats, "seed": seed},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert set(body) == {"game_id", "seat_urls"}
    tokens = [None if u is None else token_of(u) for u in body["seat_urls"]]
    return body["game_id"], tokens


def state(client: TestClient, game_id: str, token: str | None = None, **params: Any) -> Any:
    query = {k: v for k, v in {"token": token, **params}.items() if v is not None}
    r = client.get(f"/api/games/{game_id}", params=query)
    assert r.status_code == 200, r.text
    return r.json()


def wait_for(client: TestClient, game_id: str, token: str | None, seat: int | None) -> Any:
    """The state once ``seat`` is to act or the game is over (bots move meanwhile)."""
    snap = state(client, game_id, token)
    for _ in range(10_000):
        if snap["over"] or snap["error"] or (seat is not None and snap["to_act"] == seat):
            return snap
        snap = state(client, game_id, token, since=snap["version"], wait=BOT_WAIT)
    raise AssertionError("the game did not move on")


def play_to_end(
    client: TestClient, game_id: str, tokens: list[str | None], rng: random.Random
) -> Any:
    """Play every human seat with random legal moves through the API until the end."""
    humans = {seat: t for seat, t in enumerate(tokens) if t is not None}
    snap = state(client, game_id, next(iter(humans.values()), None))
    for _ in range(10_000):
        if snap["over"]:
            return snap
        assert snap["error"] is None, snap["error"]
        seat = snap["to_act"]
        if seat in humans:
            mine = state(client, game_id, humans[seat])
            assert mine["to_act"] == seat and mine["legal"], mine
            move = rng.choice(mine["legal"])
            r = client.post(
                f"/api/games/{game_id}/actions",
                json={"token": humans[seat], "action": move["action"]},
            )
            assert r.status_code == 200, r.text
            snap = r.json()
        else:
            snap = state(client, game_id, None, since=snap["version"], wait=BOT_WAIT)
    raise AssertionError("the game did not end")
