"""The API's schema (``/api/openapi.json``) says what the server does, and the server
bounds what it reads.

* schemathesis (its command line, every check, a fixed seed) drives a server on a
  loopback port from the schema: no server error, no disagreement with the schema;
* every answer of a whole game, the catalog, the bots and the records fits its model;
* every request body has a cap (413 past it, before the body is read whole); no
  refusal quotes more than a short excerpt of what it refuses; deeply nested JSON is a
  422, as documented; OPTIONS answers 405 with every method of the path;
* docs/web.md's table of routes lists each route's statuses as the schema does.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed")
httpx = pytest.importorskip("httpx", reason="the API tests need httpx")

from choco_envs.web import schema as api  # noqa: E402
from choco_envs.web.app import create_app  # noqa: E402
from choco_envs.web.errors import EXCERPT  # noqa: E402
from choco_envs.web.limits import MAX_BODY_BYTES  # noqa: E402
from choco_envs.web.sessions import Settings  # noqa: E402
from choco_envs.web.store import MAX_UPLOAD_BYTES  # noqa: E402
from tests.web.helpers import ENV_IDS, make_client, new_game, play_to_end, state  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "web.md"
#: the schemathesis run: seed, examples per operation (a few hundred cases in all)
SEED = 1
MAX_EXAMPLES = 25
#: what a refusal may say at most: its own words and a short excerpt of the input
SHORT = 700


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread on a free loopback port; its base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """A server for the fuzzer: long polls cut short, room for every game it starts, and
    bots that never move (starting games is what is checked; their thinking would only
    load the machine). Its records folder holds one finished game."""
    app = create_app(
        Settings(records=str(tmp_path / "records"), bot_delay=0.0, max_games=100_000, max_wait=0.2)
    )
    with make_client(tmp_path / "records") as client:  # one finished game to list and replay
        game_id, tokens = new_game(client, "le_chocolat_v0", ["human", "random"], seed=3)
        play_to_end(client, game_id, tokens, random.Random(0))
    app.state.manager._kick = lambda game: None
    with serve(app) as url:
        httpx.post(f"{url}/api/bots", json={"env_id": "chocolates_v0"}, timeout=120)  # torch in
        yield url, app


def test_schemathesis_finds_no_disagreement(server: tuple[str, Any], tmp_path: Path) -> None:
    """Every check schemathesis has, on every operation, in its fuzzing and stateful
    phases (about 350 requests; its coverage phase, 1,300 more, takes minutes), with a
    fixed seed: no server error, no status, header or body the schema does not state, no
    schema-valid request refused, no invalid one accepted. One exception, in the config
    file below: an upload the schema allows may still not replay (400), which no schema
    can state."""
    url, _ = server
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        "[[operations]]\n"
        'include-path = "/api/records"\n'
        'include-method = "POST"\n'
        "checks.positive_data_acceptance.expected-statuses = "
        '["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]\n'
    )
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(config),
        "run",
        f"{url}/api/openapi.json",
        "--checks",
        "all",
        "--phases",
        "fuzzing,stateful",
        "--seed",
        str(SEED),
        "--max-examples",
        str(MAX_EXAMPLES),
        "--workers",
        "1",
        # latency is the load test's to judge; a configuration's first bot list makes
        # and tries every bot (torch and checkpoints: seconds on a busy 2-core machine)
        "--max-response-time",
        "60",
        "--request-timeout",
        "120",
        "--no-color",
        "--report",
        "ndjson",
        "--report-dir",
        str(tmp_path / "report"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    out = done.stdout + done.stderr
    cases = re.search(r"(\d+) generated", out)
    print(out[-3000:])
    assert done.returncode == 0, out[-12000:]
    assert cases is not None and int(cases.group(1)) >= 200, out[-3000:]


# ---------------------------------------------------------------------- answers fit models
def test_every_answer_fits_its_model(client: Any) -> None:
    """A whole game, its record, the catalog, the bots, the records and the frames: each
    answer validates against the model the schema gives it (no field more or less)."""
    api.Catalog.model_validate(client.get("/api/catalog").json())
    found = client.post("/api/bots", json={"env_id": "chocolates_v0", "options": {}})
    api.Bots.model_validate(found.json())
    r = client.post("/api/games", json={"env_id": "le_chocolat_v0", "seats": ["human", "random"]})
    api.NewGameAnswer.model_validate(r.json())
    game_id, tokens = new_game(client, "chocolates_v0", ["human", "greedy"], seed=2)
    for token in (None, tokens[0]):
        api.GameState.model_validate(state(client, game_id, token))
    end = play_to_end(client, game_id, tokens, random.Random(5))
    api.GameState.model_validate(end)
    record = client.get(f"/api/games/{game_id}/record").json()
    api.Record.model_validate(record)
    api.RecordList.model_validate(client.get("/api/records").json())
    api.Record.model_validate(client.get(f"/api/records/{end['record_id']}").json())
    frames = client.get(f"/api/records/{end['record_id']}/frames", params={"seat": "0"})
    api.Frames.model_validate(frames.json())
    uploaded = client.post("/api/records", content=json.dumps(record))
    api.Uploaded.model_validate(uploaded.json())
    for refused in (
        client.get("/api/games/nope"),
        client.post("/api/games", json={"env_id": "nope"}),
        client.post("/api/games", json={"env_id": 3}),
        client.options("/api/records"),
    ):
        assert refused.status_code >= 400
        api.Error.model_validate(refused.json())


def test_the_schema_states_every_status_and_one_error_model(client: Any) -> None:
    schema = client.get("/api/openapi.json").json()
    components = schema["components"]["schemas"]
    assert "HTTPValidationError" not in components
    for path, item in schema["paths"].items():
        for method, op in item.items():
            for status, answer in op["responses"].items():
                ref = answer["content"]["application/json"]["schema"].get("$ref", "")
                if status.startswith("2"):
                    assert ref and not ref.endswith("/Error"), (method, path, status)
                else:
                    assert ref == "#/components/schemas/Error", (method, path, status)
    actions = schema["paths"]["/api/games/{game_id}/actions"]["post"]["responses"]
    assert {"400", "403", "404", "409", "413", "422"} <= set(actions)
    assert set(schema["paths"]["/api/games/{game_id}"]["get"]["responses"]) >= {"403", "404"}
    upload = schema["paths"]["/api/records"]["post"]
    assert {"400", "413"} <= set(upload["responses"])
    assert upload["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/RecordUpload"
    )
    envs = {b["properties"]["env_id"]["const"] for b in components["NewGame"]["anyOf"]}
    assert envs == set(ENV_IDS)


# ---------------------------------------------------------------------- body caps
@pytest.mark.parametrize(
    ("path", "limit"),
    [
        ("/api/games", MAX_BODY_BYTES),
        ("/api/bots", MAX_BODY_BYTES),
        ("/api/games/nope/actions", MAX_BODY_BYTES),
        ("/api/records", MAX_UPLOAD_BYTES),
    ],
)
def test_every_body_has_a_cap(client: Any, path: str, limit: int) -> None:
    """One byte past the cap is 413, with a short message; the cap itself is read."""
    over = b'{"x": "' + b"a" * (limit - 8) + b'"}'
    assert len(over) == limit + 1
    r = client.post(path, content=over, headers={"content-type": "application/json"})
    assert r.status_code == 413 and len(r.text) < 200, r.text[:300]
    at_cap = over[:-2] + b"}"
    r = client.post(path, content=at_cap, headers={"content-type": "application/json"})
    assert r.status_code != 413 and len(r.text) < SHORT + 100, r.text[:300]
    assert client.app.state.manager.games == {}


def test_a_huge_body_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A 37 MB options body: answered 413 once its declared length is seen, while the
    client has sent only its first megabyte."""
    app = create_app(Settings(records=str(tmp_path / "records")))
    with serve(app) as url:
        host, port = url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=20)
        head = b'{"env_id": "chocolates_v0", "seats": ["human", "random"], "options": {"x": "'
        conn.putrequest("POST", "/api/games")
        conn.putheader("content-type", "application/json")
        conn.putheader("content-length", str(37 * 2**20))
        conn.endheaders()
        started = time.monotonic()
        sent = True
        try:
            conn.send(head + b"a" * 2**20)
        except (BrokenPipeError, ConnectionResetError):
            sent = False  # the server answered and closed before the megabyte was all sent
        answer = conn.getresponse()
        body = answer.read()
        assert answer.status == 413 and b"at most" in body and len(body) < 200, sent
        assert time.monotonic() - started < 10
        conn.close()
        assert app.state.manager.games == {}


# ---------------------------------------------------------------------- short excerpts
BIG = MAX_BODY_BYTES - 200  # under the cap, so the route itself refuses it


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/games/{game}/actions", {"token": "t" * BIG, "action": 1}),
        ("POST", "/api/games/{game}/actions", {"token": "{token}", "action": 10**4000}),
        ("POST", "/api/games", {"env_id": "e" * BIG, "seats": ["human", "random"]}),
        ("POST", "/api/games", {"env_id": "chocolates_v0", "seats": ["human", "r" * BIG]}),
        (
            "POST",
            "/api/games",
            {"env_id": "chocolates_v0", "seats": ["human", "mcts:" + "c" * BIG]},
        ),
        (
            "POST",
            "/api/games",
            {"env_id": "chocolates_v0", "seats": ["human", "random"], "options": {"o" * BIG: 1}},
        ),
        (
            "POST",
            "/api/games",
            {
                "env_id": "chocolates_v0",
                "seats": ["human", "random"],
                "options": {"num_players": 10**4000},
            },
        ),
        ("POST", "/api/games", {"env_id": "chocolates_v0", "seats": ["human"], "x" * BIG: 1}),
        ("POST", "/api/bots", {"env_id": "b" * BIG}),
        ("POST", "/api/bots", {"env_id": "le_chocolat_v0", "options": {"scoring_card": "s" * BIG}}),
        ("POST", "/api/records", {"env_id": "r" * BIG}),
        ("GET", "/api/games/{long}", None),
        ("GET", "/api/records/{long}", None),
        ("GET", "/api/games/{game}?token=" + "k" * 5000, None),
    ],
)
def test_no_refusal_echoes_more_than_an_excerpt(
    client: Any, method: str, path: str, body: Any
) -> None:
    game_id, tokens = new_game(client, "chocolates_v0", ["human", "random"])
    path = path.format(game=game_id, long="g" * 5000)
    if isinstance(body, dict) and body.get("token") == "{token}":
        body = {**body, "token": tokens[0]}
    before = state(client, game_id, tokens[0])
    content = None if body is None else json.dumps(body).encode()
    r = client.request(method, path, content=content)
    assert 400 <= r.status_code < 500 and r.status_code != 413, r.text[:300]
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail
    assert len(detail) < SHORT, detail[:300]
    assert not re.search(r"(.)\1{" + str(EXCERPT + 20) + ",}", detail), detail[:300]
    assert state(client, game_id, tokens[0]) == before
    assert len(client.app.state.manager.games) == 1


@pytest.mark.parametrize("path", ["/api/games/{game}/actions", "/api/games", "/api/bots"])
@pytest.mark.parametrize("depth", [30_000, 2_000])
def test_deeply_nested_json_is_422(client: Any, path: str, depth: int) -> None:
    """As docs/web.md and the schema promise: malformed, 422 (was 400)."""
    game_id, _ = new_game(client, "chocolates_v0", ["human", "random"])
    nested = b'{"token": "t", "action": ' + b"[" * depth + b"]" * depth + b"}"
    r = client.post(
        path.format(game=game_id), content=nested, headers={"content-type": "application/json"}
    )
    assert r.status_code == 422, r.text[:300]
    assert len(r.json()["detail"]) < SHORT
    responses = client.get("/api/openapi.json").json()["paths"]["/api/games/{game_id}/actions"]
    assert "422" in responses["post"]["responses"]


def test_options_answers_405_with_every_method_of_the_path(client: Any) -> None:
    r = client.options("/api/records")
    assert r.status_code == 405 and r.headers["allow"] == "GET, POST"
    r = client.request("DELETE", "/api/games/x")
    assert r.status_code == 405 and r.headers["allow"] == "GET"


# ---------------------------------------------------------------------- docs
def test_the_docs_table_states_the_schemas_statuses(tmp_path: Path) -> None:
    """Each row of docs/web.md's API table names a route and, last, the statuses it
    answers: exactly the routes and statuses of the schema."""
    schema = create_app(Settings(records=str(tmp_path))).openapi()
    expected = {
        f"{method.upper()} {_route(path)}": sorted(op["responses"])
        for path, item in schema["paths"].items()
        for method, op in item.items()
    }
    rows = {}
    for line in DOCS.read_text().splitlines():
        route = re.match(r"\| `(GET|POST) (/api/[^` ?]*)[^`]*` ", line)
        if route:
            statuses = re.findall(r"\d{3}", line.rstrip(" |").rsplit("|", 1)[1])
            rows[f"{route.group(1)} {_route(route.group(2))}"] = sorted(statuses)
    assert rows == expected, "update docs/web.md's table:\n" + api.api_table(schema)


def _route(path: str) -> str:
    """A path with its parameters unnamed (the docs say ``{id}``, the schema ``{game_id}``)."""
    return re.sub(r"\{[^}]*\}", "{}", path)
