"""The analysis panel's server side (``choco_envs.web.analysis``): computed from the seat's
own information only (the answer is the same for every determinization of that seat's
view, as for the board views), off for a game a seat forbade it in, only for the seat to
act, and at any step of a replay."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from choco_envs.registry import make
from choco_envs.web.analysis import ANALYSTS, analyse, position

#: one configuration per env, and the editions / player counts the boards are drawn for
GREEDY_CONFIGS = [
    ("chocolates_v0", {}),
    ("le_chocolat_v0", {}),
    ("chocolatiers_v1", {"edition": "standard"}),
    ("chocolatiers_v1", {"edition": "classic", "num_players": 3}),
    ("chocolate_factory_v2", {"num_players": 3}),
]
#: the configurations a checkpoint is shipped for (2 players)
PPO_CONFIGS = [
    ("chocolates_v0", {}),
    ("le_chocolat_v0", {}),
    ("chocolatiers_v1", {"edition": "standard"}),
    ("chocolatiers_v1", {"edition": "classic"}),
    ("chocolate_factory_v2", {}),
]
CASES = [("greedy", e, c) for e, c in GREEDY_CONFIGS] + [("ppo", e, c) for e, c in PPO_CONFIGS]
IDS = ["-".join([k, e, *(f"{o}={v}" for o, v in c.items())]) for k, e, c in CASES]
#: positions checked per game, determinizations per position
POSITIONS = 6
SAMPLES = 2


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, allow_nan=False)


def spread_positions(env_id: str, options: dict[str, Any], seed: int, count: int) -> Any:
    """(env, step) at ``count`` positions spread over one random game (not the end)."""
    env = make(env_id, illegal_action="raise", **options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    actions = []
    while not env.game_over():
        a = rng.choice(env.legal_actions())
        actions.append(a)
        env.step(a)
    every = max(1, len(actions) // count)
    env.reset(seed=seed)
    for step, a in enumerate(actions):
        if step % every == 0:
            yield env, step
        env.step(a)


@pytest.mark.parametrize(("kind", "env_id", "options"), CASES, ids=IDS)
def test_analysis_is_the_same_for_every_determinization_of_the_seat(
    kind: str, env_id: str, options: dict[str, Any]
) -> None:
    """What the panel gets (numbers, best move, names, places, value) depends only on what
    the seat to act may see: resampling everything it cannot see changes nothing."""
    if kind == "ppo":
        pytest.importorskip("torch", reason="the ppo analysis needs the train extra")
    config = {k: v for k, v in make(env_id, **options).game.config.items() if k != "components"}
    assert ANALYSTS[kind].available(env_id, config) is None
    for env, step in spread_positions(env_id, options, 11, POSITIONS):
        game, s = env.game, env.state_
        seat = game.current_player(s)
        shown = dumps(analyse(kind, position(game, s, seat), env_id, config))
        for k in range(SAMPLES):
            other = game.determinize(s, seat, random.Random(100 * step + k))
            again = dumps(analyse(kind, position(game, other, seat), env_id, config))
            assert again == shown, f"{env_id} step {step}: {kind}'s analysis changes"
        answer = json.loads(shown)
        legal = sorted(env.legal_actions())
        assert sorted(m["action"] for m in answer["moves"]) == legal
        assert answer["best"] in legal and answer["seat"] == seat
        if kind == "ppo":
            assert sum(m["p"] for m in answer["moves"]) == pytest.approx(1.0, abs=1e-3)
            # the critic's estimate of its training return: rank (-1..+1) plus margin shaping
            assert math.isfinite(answer["value"]) and "rank" in answer["value_note"]


def _game(client: Any, env_id: str, seats: list[str], options: dict[str, Any] | None = None) -> Any:
    from tests.web.helpers import new_game

    return new_game(client, env_id, seats, options, seed=2)


def test_a_seat_gets_the_analysis_of_its_own_turn_only(client: Any) -> None:
    from tests.web.helpers import state

    game_id, tokens = _game(client, "chocolatiers_v1", ["human", "human"])
    url = f"/api/games/{game_id}/analysis"
    r = client.get(url, params={"token": tokens[0], "kind": "greedy"})
    assert r.status_code == 200, r.text
    body = r.json()
    legal = state(client, game_id, tokens[0])["legal"]
    assert [m["action"] for m in body["moves"]] != [] and body["seat"] == 0
    assert {m["action"] for m in body["moves"]} == {m["action"] for m in legal}
    by_action = {m["action"]: m for m in legal}
    assert all(m["name"] == by_action[m["action"]]["name"] for m in body["moves"])
    assert all(m["target"] == by_action[m["action"]]["target"] for m in body["moves"])
    shares = [m["share"] for m in body["moves"]]
    assert shares == sorted(shares, reverse=True) and sum(shares) == pytest.approx(1.0)
    # not player_1's turn; a spectator has no moves; unknown kinds are named
    r = client.get(url, params={"token": tokens[1], "kind": "greedy"})
    assert r.status_code == 409 and "player_0's turn" in r.json()["detail"]
    assert client.get(url, params={"kind": "greedy"}).status_code == 403
    r = client.get(url, params={"token": tokens[0], "kind": "alphazero"})
    assert r.status_code == 422 and "allowed: ppo, greedy" in r.json()["detail"]
    assert client.get(url, params={"token": "nope", "kind": "greedy"}).status_code == 403
    kinds = client.get(f"{url}/kinds", params={"token": tokens[0]}).json()
    assert kinds["allowed"] and [k["kind"] for k in kinds["kinds"]] == list(ANALYSTS)


def test_a_seat_can_forbid_the_analysis_for_the_whole_game(client: Any) -> None:
    game_id, tokens = _game(client, "le_chocolat_v0", ["human", "human"])
    url = f"/api/games/{game_id}/analysis"
    assert client.get(url, params={"token": tokens[0], "kind": "greedy"}).status_code == 200
    r = client.post(f"{url}/forbid", json={"token": "not-a-seat"})
    assert r.status_code == 403
    assert client.get(f"{url}/kinds", params={"token": tokens[0]}).json()["allowed"]
    r = client.post(f"{url}/forbid", json={"token": tokens[1]})
    assert r.status_code == 200 and r.json() == {"allowed": False}
    for token in tokens:
        assert client.get(f"{url}/kinds", params={"token": token}).json()["allowed"] is False
        r = client.get(url, params={"token": token, "kind": "greedy"})
        assert r.status_code == 403 and "switched off" in r.json()["detail"]


def test_a_replay_analyses_the_seat_to_act_at_every_step(client: Any) -> None:
    from tests.web.helpers import play_to_end

    game_id, tokens = _game(
        client, "chocolate_factory_v2", ["human", "random", "random"], {"num_players": 3}
    )
    end = play_to_end(client, game_id, tokens, random.Random(1))
    record_id = end["record_id"]
    actions = client.get(f"/api/records/{record_id}").json()["actions"]
    url = f"/api/records/{record_id}/analysis"
    for step in (0, 1, len(actions) // 2):
        r = client.get(url, params={"step": step, "kind": "greedy"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["step"] == step and body["played"] == actions[step]
        assert body["played"] in {m["action"] for m in body["moves"]}
    r = client.get(url, params={"step": len(actions), "kind": "greedy"})
    assert r.status_code == 409
    r = client.get(url, params={"step": len(actions) + 1, "kind": "greedy"})
    assert r.status_code == 422 and f"0..{len(actions)}" in r.json()["detail"]
    assert client.get(f"{url}/kinds").json()["allowed"] is True


@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("chocolates_v0", {}),
        ("chocolatiers_v1", {"edition": "standard"}),
        ("chocolate_factory_v2", {}),
    ],
)
def test_the_search_analysis_sees_only_the_seat_and_counts_visits(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, env_id: str, options: dict[str, Any]
) -> None:
    """``az``: the shipped search-and-learn file's search from the seat's view (every
    simulation on a determinization of it): the same answer for every resampling of what
    the seat cannot see, visits adding up to the simulations, the best move the most
    visited one searched."""
    pytest.importorskip("torch", reason="the az analysis needs the train extra")
    import shutil

    from choco_envs.web import analysis
    from tests.training.test_az import save_az

    root = tmp_path / "shipped" / env_id
    root.mkdir(parents=True)
    shutil.copy(save_az(tmp_path, env_id, **options), root / "az.safetensors")
    monkeypatch.setenv("CHOCO_CHECKPOINTS", str(tmp_path / "shipped"))
    monkeypatch.setattr(analysis, "AZ_SIMULATIONS", 16)
    monkeypatch.setattr(analysis, "_AZ_BOTS", {})
    config = {k: v for k, v in make(env_id, **options).game.config.items() if k != "components"}
    assert ANALYSTS["az"].available(env_id, config) is None
    assert ANALYSTS["az"].available(env_id, {**config, "num_players": 3}) is not None
    for env, step in spread_positions(env_id, options, 5, 3):
        game, s = env.game, env.state_
        seat = game.current_player(s)
        shown = dumps(analyse("az", position(game, s, seat), env_id, config))
        other = game.determinize(s, seat, random.Random(step))
        assert dumps(analyse("az", position(game, other, seat), env_id, config)) == shown
        answer = json.loads(shown)
        if len(answer["moves"]) > 1:
            assert sum(m["visits"] for m in answer["moves"]) == 16
            assert answer["moves"][0]["visits"] >= answer["moves"][-1]["visits"]
        assert -1.0 <= answer["value"] <= 1.0 and "-1 last" in answer["value_note"]
