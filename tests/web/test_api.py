"""The JSON API, for every env: whole games against bots through it, every request
validated (a bad token 403, an illegal or malformed move 400/422 with nothing changed), a
token acting only for its seat, the view sent to a seat being that seat's own, records
saved at the end, downloaded, uploaded (verified by replay) and replayed frame by frame."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed")
pytest.importorskip("httpx", reason="the API tests need httpx")

from choco_envs.records import replay  # noqa: E402
from choco_envs.registry import make  # noqa: E402
from choco_envs.web.views import view  # noqa: E402
from tests.web.helpers import (  # noqa: E402
    ENV_IDS,
    make_client,
    new_game,
    play_to_end,
    state,
    wait_for,
)

#: an option set per env that differs from the defaults, so that options are exercised
OPTIONS = {
    "chocolates_v0": {"num_players": 3},
    "le_chocolat_v0": {"scoring_card": "pairs"},
    "chocolatiers_v1": {"num_players": 3, "edition": "classic"},
    "chocolate_factory_v2": {"num_players": 3, "packages": False},
}


def post_move(client: Any, game_id: str, body: Any) -> Any:
    return client.post(f"/api/games/{game_id}/actions", json=body)


def replayed(record: dict[str, Any]) -> Any:
    env = replay(record)
    assert env.game_over()
    return env


# ---------------------------------------------------------------------- whole games
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_whole_game_against_bots(client: Any, env_id: str) -> None:
    """A person plays seat 0 against a random and a greedy bot to the end: final scores
    and breakdown, a record saved that replays to the same scores."""
    options = OPTIONS[env_id]
    players = options.get("num_players", 2)
    seats = ["human"] + ["random", "greedy"][: players - 1]
    seats += ["random"] * (players - len(seats))
    game_id, tokens = new_game(client, env_id, seats, options, seed=11)
    assert tokens[0] is not None and all(t is None for t in tokens[1:])
    end = play_to_end(client, game_id, tokens, random.Random(1))
    assert end["over"] and end["to_act"] is None and end["legal"] == []
    assert len(end["scores"]) == players and set(end["breakdown"])
    assert sorted(end["places"])[0] == 1
    assert [e["step"] for e in end["log"]] == list(range(1, end["step"] + 1))
    record = client.get(f"/api/games/{game_id}/record").json()
    assert record["env_id"] == env_id and record["seed"] == 11
    assert replayed(record).scores() == end["scores"]
    assert end["record_id"] is not None
    saved = client.get(f"/api/records/{end['record_id']}").json()
    assert saved == record


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_bots_play_a_game_among_themselves(client: Any, env_id: str) -> None:
    game_id, tokens = new_game(client, env_id, ["random", "greedy"], seed=2)
    assert tokens == [None, None]
    end = wait_for(client, game_id, None, None)
    assert end["over"] and end["error"] is None and end["seat"] is None


def test_two_people_play_by_their_links(client: Any) -> None:
    game_id, tokens = new_game(client, "le_chocolat_v0", ["human", "human"], seed=4)
    assert None not in tokens and tokens[0] != tokens[1]
    end = play_to_end(client, game_id, tokens, random.Random(2))
    assert end["over"] and {e["seat"] for e in end["log"]} == {0, 1}


# ---------------------------------------------------------------------- refusals
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_illegal_and_malformed_moves_change_nothing(client: Any, env_id: str) -> None:
    game_id, tokens = new_game(client, env_id, ["human", "random"], seed=5)
    token = tokens[0]
    env = make(env_id)
    before = wait_for(client, game_id, token, 0)
    while len(before["legal"]) == env.game.num_actions:  # every move is legal: play one
        post_move(client, game_id, {"token": token, "action": before["legal"][-1]["action"]})
        before = wait_for(client, game_id, token, 0)
    illegal = next(
        a for a in range(env.game.num_actions) if a not in {m["action"] for m in before["legal"]}
    )
    refusals = [
        ({"token": token, "action": illegal}, 400, "is not legal"),
        ({"token": token, "action": env.game.num_actions}, 400, "out of range"),
        ({"token": token, "action": -1}, 400, "out of range"),
        ({"token": token, "action": "3"}, 422, None),
        ({"token": token, "action": 1.5}, 422, None),
        ({"token": token, "action": True}, 422, None),
        ({"token": token, "action": None}, 422, None),
        ({"token": token}, 422, None),
        ({"action": before["legal"][0]["action"]}, 422, None),
        ({"token": token, "action": before["legal"][0]["action"], "seat": 1}, 422, None),
        ({"token": "not-a-token", "action": before["legal"][0]["action"]}, 403, None),
    ]
    for body, status, words in refusals:
        r = post_move(client, game_id, body)
        assert r.status_code == status, (body, r.text)
        if words:
            assert words in r.json()["detail"] and env_id in r.json()["detail"]
    r = client.post(
        f"/api/games/{game_id}/actions",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422
    after = state(client, game_id, token)
    assert after == before


def test_a_bad_token_is_403_and_no_token_is_the_spectator(client: Any) -> None:
    game_id, tokens = new_game(client, "chocolates_v0", ["human", "random"])
    assert client.get(f"/api/games/{game_id}", params={"token": "x" * 24}).status_code == 403
    assert client.get(f"/api/games/{game_id}", params={"token": tokens[0][:-1]}).status_code == 403
    spectator = state(client, game_id)
    assert spectator["seat"] is None and spectator["legal"] == []
    r = post_move(client, game_id, {"token": "", "action": 6})
    assert r.status_code == 422


def test_a_token_acts_only_for_its_own_seat(client: Any) -> None:
    """Seat 1's token cannot move while seat 0 is to act, nor the other way round; each
    token gets its own seat's view and legal moves only on its turn."""
    game_id, (t0, t1) = new_game(client, "le_chocolat_v0", ["human", "human"], seed=8)
    s0, s1 = state(client, game_id, t0), state(client, game_id, t1)
    assert s0["seat"] == 0 and s1["seat"] == 1 and s0["to_act"] == 0
    assert s0["legal"] and s1["legal"] == []
    move = s0["legal"][0]["action"]
    r = post_move(client, game_id, {"token": t1, "action": move})
    assert r.status_code == 400 and "player_0's turn" in r.json()["detail"]
    assert state(client, game_id, t0)["version"] == s0["version"]
    assert post_move(client, game_id, {"token": t0, "action": move}).status_code == 200
    after = state(client, game_id, t1)
    if after["to_act"] == 1:
        r = post_move(
            client,
            game_id,
            {"token": t0, "action": after["legal"][0]["action"] if after["legal"] else 0},
        )
        assert r.status_code == 400


def test_a_token_of_another_game_is_refused(client: Any) -> None:
    first, (t_first, _) = new_game(client, "chocolates_v0", ["human", "random"])
    second, _ = new_game(client, "chocolates_v0", ["human", "random"])
    assert client.get(f"/api/games/{second}", params={"token": t_first}).status_code == 403
    assert post_move(client, second, {"token": t_first, "action": 6}).status_code == 403


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_view_sent_is_the_seats_own(client: Any, env_id: str) -> None:
    """What the API sends a seat is ``view(game, state, seat)``, and nothing of the
    state itself."""
    game_id, tokens = new_game(client, env_id, ["human", "human"], seed=9)
    game = client.app.state.manager.get(game_id)
    for _ in range(6):
        for seat, token in [(None, None), (0, tokens[0]), (1, tokens[1])]:
            snap = state(client, game_id, token)
            expected = view(game.env.game, game.env.state_, seat)
            assert snap["view"] == json.loads(json.dumps(expected))
            assert "state" not in snap and "rng" not in json.dumps(snap)
        to_act = snap["to_act"]
        mine = state(client, game_id, tokens[to_act])
        post_move(client, game_id, {"token": tokens[to_act], "action": mine["legal"][0]["action"]})


def test_the_record_is_given_only_once_the_game_is_over(client: Any) -> None:
    game_id, _ = new_game(client, "chocolates_v0", ["human", "random"])
    r = client.get(f"/api/games/{game_id}/record")
    assert r.status_code == 409


def test_unknown_games_and_records_are_404(client: Any) -> None:
    assert client.get("/api/games/nope").status_code == 404
    assert post_move(client, "nope", {"token": "t", "action": 1}).status_code == 404
    assert client.get("/api/games/nope/record").status_code == 404
    assert client.get("/api/records/nope").status_code == 404
    assert client.get("/api/records/..%2F..%2Fetc%2Fpasswd").status_code == 404
    assert client.get("/api/records/.hidden").status_code == 404


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"env_id": "nope_v0", "seats": ["human", "random"]}, "unknown env"),
        (
            {
                "env_id": "chocolates_v0",
                "seats": ["human", "random", "random"],
                "options": {"num_players": 2},
            },
            "num_players=2 but 3 seats",
        ),
        ({"env_id": "chocolates_v0", "seats": ["human"] * 5}, "num_players"),
        (
            {
                "env_id": "chocolates_v0",
                "seats": ["human", "random"],
                "options": {"components": "/etc/passwd"},
            },
            "cannot be set from the web",
        ),
        (
            {
                "env_id": "chocolates_v0",
                "seats": ["human", "random"],
                "options": {"observation": "planes"},
            },
            "no such option",
        ),
        ({"env_id": "chocolates_v0", "seats": ["human", "policy:/etc/passwd"]}, "started with"),
        ({"env_id": "chocolates_v0", "seats": ["human", "mcts:simulations=99999"]}, "at most"),
        ({"env_id": "chocolates_v0", "seats": ["human", "mcts:time=60"]}, "at most"),
        ({"env_id": "chocolates_v0", "seats": ["human", "nobody"]}, "unknown bot kind"),
        ({"env_id": "chocolates_v0", "seats": ["human", "greedy:nope=1"]}, "by its kind alone"),
        ({"env_id": "chocolates_v0", "seats": ["human", "mcts:nope=1"]}, "unknown option"),
        (
            {
                "env_id": "chocolatiers_v1",
                "seats": ["human"] * 5,
                "options": {"edition": "classic"},
            },
            "num_players",
        ),
        (
            {
                "env_id": "le_chocolat_v0",
                "seats": ["human", "random"],
                "options": {"scoring_card": "no such card"},
            },
            "scoring_card",
        ),
    ],
)
def test_games_that_cannot_be_made_are_refused(client: Any, body: Any, words: str) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 422, r.text
    assert words in r.json()["detail"]
    assert client.app.state.manager.games == {}


@pytest.mark.parametrize(
    "body",
    [
        {"env_id": "chocolates_v0"},
        {"env_id": "chocolates_v0", "seats": []},
        {"env_id": "chocolates_v0", "seats": "human"},
        {"env_id": "chocolates_v0", "seats": ["human", 3]},
        {"env_id": "chocolates_v0", "seats": ["human", "random"], "seed": -1},
        {"env_id": "chocolates_v0", "seats": ["human", "random"], "seed": "1"},
        {"env_id": "chocolates_v0", "seats": ["human", "random"], "options": {"x": [1]}},
        {"env_id": "chocolates_v0", "seats": ["human", "random"], "extra": 1},
        {"env_id": 5, "seats": ["human", "random"]},
    ],
)
def test_malformed_new_games_are_422(client: Any, body: Any) -> None:
    assert client.post("/api/games", json=body).status_code == 422


# ---------------------------------------------------------------------- lobby
def test_the_catalog_lists_every_env_and_only_settable_options(client: Any) -> None:
    envs = {e["env_id"]: e for e in client.get("/api/catalog").json()["envs"]}
    assert set(envs) == set(ENV_IDS)
    for entry in envs.values():
        assert all(o["name"] != "components" for o in entry["options"])
    cards = next(o for o in envs["le_chocolat_v0"]["options"] if o["name"] == "scoring_card")
    assert cards["choices"][0] is None and "pairs" in cards["choices"]
    chocolatiers = envs["chocolatiers_v1"]["players_for"]
    assert {"options": {"edition": "classic"}, "min": 2, "max": 4} in chocolatiers


def test_the_lobby_offers_only_bots_that_can_be_made(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from choco_envs.policy.checkpoint import ENV_VAR, checkpoint_dir

    # a checkpoints folder with only the classic Chocolatiers file: no file covers a
    # standard table there (every shipped table is covered today)
    shipped = checkpoint_dir()
    assert shipped is not None
    (tmp_path / "chocolatiers_v1").mkdir()
    shutil.copy(
        shipped / "chocolatiers_v1" / "ppo_tables_classic.safetensors", tmp_path / "chocolatiers_v1"
    )
    shutil.copytree(shipped / "chocolates_v0", tmp_path / "chocolates_v0")
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    found = client.post(
        "/api/bots",
        json={"env_id": "chocolatiers_v1", "options": {"num_players": 3, "edition": "standard"}},
    ).json()["bots"]
    by_spec = {b["spec"]: b for b in found}
    assert by_spec["random"]["ok"] and by_spec["greedy"]["ok"]
    assert not by_spec["ppo"]["ok"] and "no checkpoint is shipped" in by_spec["ppo"]["reason"]
    two = client.post(
        "/api/bots",
        json={"env_id": "chocolatiers_v1", "options": {"num_players": 2, "edition": "classic"}},
    ).json()["bots"]
    assert {b["spec"]: b for b in two}["ppo"]["ok"]
    # a 3-player Chocolates table is covered by ppo_tables
    found = client.post(
        "/api/bots", json={"env_id": "chocolates_v0", "options": {"num_players": 3}}
    ).json()["bots"]
    assert {b["spec"]: b for b in found}["ppo"]["ok"]
    # az searches with the PPO network where no az file is shipped: offered where ppo is
    assert {b["spec"]: b for b in found}["az"]["ok"]
    assert {b["spec"]: b for b in two}["az"]["ok"]
    assert not by_spec["az"]["ok"] and "no checkpoint is shipped" in by_spec["az"]["reason"]
    assert "human" not in by_spec
    for options in ({"components": "x"}, {"num_players": 9}):
        r = client.post("/api/bots", json={"env_id": "chocolates_v0", "options": options})
        assert r.status_code == 422


def small_checkpoint(path: Path, env_id: str) -> Path:
    """An untrained flat-observation policy of ``env_id`` in the checkpoint format."""
    import torch

    from choco_envs.policy.checkpoint import save_checkpoint
    from choco_envs.policy.net import ActorCritic, NetConfig

    game = make(env_id).game
    torch.manual_seed(0)
    shape = game.encoder("flat").shape
    model = ActorCritic(NetConfig(tuple(shape), game.num_actions, (16,)))
    meta = {
        "env_id": env_id,
        "version": game.spec.version,
        "options": dict(game.config),
        "encoder": "flat",
        "observation_shape": list(shape),
        "num_actions": game.num_actions,
        "steps_trained": 0,
        "arena": {},
        "training": {"command": "test"},
    }
    return save_checkpoint(path, model, meta)


def test_a_served_policy_is_offered_and_others_are_not(tmp_path: Path) -> None:
    """`choco serve --policy PATH` offers policy:PATH where it fits; no other path is
    accepted."""
    path = str(small_checkpoint(tmp_path / "le_chocolat.safetensors", "le_chocolat_v0"))
    with make_client(tmp_path / "records", policies=[path]) as client:
        assert client.get("/api/catalog").json()["policies"] == [path]
        found = client.post("/api/bots", json={"env_id": "le_chocolat_v0"}).json()["bots"]
        assert {"spec": f"policy:{path}", "ok": True, "reason": None} in found
        r = client.post(
            "/api/games", json={"env_id": "chocolates_v0", "seats": ["human", f"policy:{path}"]}
        )
        assert r.status_code == 422 and "le_chocolat_v0" in r.json()["detail"]
        game_id, _ = new_game(client, "le_chocolat_v0", [f"policy:{path}", "random"], seed=1)
        assert wait_for(client, game_id, None, None)["over"]


# ---------------------------------------------------------------------- sessions
def test_several_games_at_once_stay_apart(client: Any) -> None:
    games = [
        new_game(client, env_id, ["human", "random"], seed=i)
        for i, env_id in enumerate(["chocolates_v0", "le_chocolat_v0"] * 3)
    ]
    assert len({g for g, _ in games}) == 6 and len({t[0] for _, t in games}) == 6
    rng = random.Random(3)
    ends = [play_to_end(client, g, t, rng) for g, t in games]
    assert all(e["over"] for e in ends)
    assert len({e["record_id"] for e in ends}) == 6


def test_idle_games_expire(tmp_path: Path) -> None:
    with make_client(tmp_path / "records", idle_seconds=0.3) as client:
        game_id, tokens = new_game(client, "chocolates_v0", ["human", "random"])
        assert state(client, game_id, tokens[0])["seat"] == 0
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and client.app.state.manager.games:
            time.sleep(0.1)
        assert client.get(f"/api/games/{game_id}", params={"token": tokens[0]}).status_code == 404


def test_a_full_server_says_so(tmp_path: Path) -> None:
    with make_client(tmp_path / "records", max_games=2) as client:
        new_game(client, "chocolates_v0", ["human", "random"])
        new_game(client, "chocolates_v0", ["human", "random"])
        r = client.post(
            "/api/games", json={"env_id": "chocolates_v0", "seats": ["human", "random"]}
        )
        assert r.status_code == 503


def test_a_state_request_waits_for_the_next_change(client: Any) -> None:
    game_id, tokens = new_game(client, "chocolates_v0", ["human", "human"])
    first = state(client, game_id, tokens[1])
    started = time.monotonic()
    same = state(client, game_id, tokens[1], since=first["version"], wait=0.3)
    assert same["version"] == first["version"] and time.monotonic() - started >= 0.25
    mine = state(client, game_id, tokens[0])
    post_move(client, game_id, {"token": tokens[0], "action": mine["legal"][0]["action"]})
    later = state(client, game_id, tokens[1], since=first["version"], wait=5, log_from=0)
    assert later["version"] > first["version"] and len(later["log"]) == 1
    tail = state(client, game_id, tokens[1], log_from=1)
    assert tail["log"] == [] and tail["log_from"] == 1


def test_a_bot_that_fails_stops_its_game_with_a_message(client: Any) -> None:
    game_id, tokens = new_game(client, "chocolates_v0", ["human", "random"])
    game = client.app.state.manager.get(game_id)

    def broken(env: Any) -> int:
        raise RuntimeError("out of chocolate")

    game.seats[1].bot.act = broken
    mine = state(client, game_id, tokens[0])
    reveal = next(m["action"] for m in mine["legal"] if m["target"]["kind"] == "reveal")
    post_move(client, game_id, {"token": tokens[0], "action": reveal})
    end = wait_for(client, game_id, tokens[0], 0)
    assert "out of chocolate" in end["error"] and end["legal"] == []
    assert post_move(client, game_id, {"token": tokens[0], "action": 6}).status_code == 409


# ---------------------------------------------------------------------- records
def finished_record(client: Any, env_id: str = "le_chocolat_v0") -> tuple[str, dict[str, Any]]:
    game_id, tokens = new_game(client, env_id, ["human", "greedy"], seed=21)
    end = play_to_end(client, game_id, tokens, random.Random(4))
    return end["record_id"], client.get(f"/api/records/{end['record_id']}").json()


def test_records_are_listed_and_downloaded(client: Any) -> None:
    record_id, record = finished_record(client)
    listing = client.get("/api/records").json()["records"]
    assert [r["id"] for r in listing] == [record_id]
    assert listing[0]["over"] and listing[0]["players"] == ["human", "greedy"]
    r = client.get(f"/api/records/{record_id}")
    assert "attachment" in r.headers["content-disposition"]
    assert r.json() == record and replayed(record)


def test_an_uploaded_record_is_verified_by_replay(client: Any) -> None:
    _, record = finished_record(client)
    r = client.post("/api/records", content=json.dumps(record))
    assert r.status_code == 201
    uploaded = r.json()["record_id"]
    assert client.get(f"/api/records/{uploaded}").json() == record
    again = client.post("/api/records", content=json.dumps(record)).json()["record_id"]
    assert again == uploaded
    changed = dict(record, actions=list(record["actions"]))
    changed["actions"][3], changed["actions"][4] = changed["actions"][4], changed["actions"][3]
    for bad, words in [
        (changed, "record"),
        ({**record, "seed": record["seed"] + 1}, "record"),
        ({**record, "options": {**record["options"], "components": "/etc/passwd"}}, "default"),
        ({**record, "env_id": "nope_v0"}, "unknown env"),
    ]:
        r = client.post("/api/records", content=json.dumps(bad))
        assert r.status_code in (400, 422), r.text
        assert words in r.json()["detail"]
    for body in [b"not json", b"[1, 2]", b"\xff\xfe", b"[" * 100_000]:
        assert client.post("/api/records", content=body).status_code == 400
    big = b" " * (5 * 2**20)
    assert client.post("/api/records", content=big).status_code == 413
    assert len(client.get("/api/records").json()["records"]) == 2


@pytest.mark.parametrize("env_id", ["chocolates_v0", "le_chocolat_v0"])
def test_replay_frames_from_every_seat_and_the_spectator(client: Any, env_id: str) -> None:
    record_id, record = finished_record(client, env_id)
    env = make(env_id, illegal_action="raise", **record["options"])
    env.reset(seed=record["seed"])
    for seat in ["spectator", "0", "1"]:
        body = client.get(f"/api/records/{record_id}/frames", params={"seat": seat}).json()
        frames = body["frames"]
        assert body["steps"] == len(record["actions"]) == len(frames) - 1
        assert body["final"]["scores"] == replayed(record).scores()
        assert body["players"] == ["human", "greedy"]
        assert frames[0]["move"] is None
        assert [f["move"]["action"] for f in frames[1:]] == record["actions"]
    viewer = 1
    body = client.get(f"/api/records/{record_id}/frames", params={"seat": viewer}).json()
    for frame, action in zip(body["frames"], [*record["actions"], None], strict=True):
        assert frame["view"] == json.loads(json.dumps(view(env.game, env.state_, viewer)))
        if action is not None:
            env.step(action)
    r = client.get(f"/api/records/{record_id}/frames", params={"seat": "2"})
    assert r.status_code == 422
