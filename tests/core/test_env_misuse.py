"""The AEC adapter under misuse: calls out of order, loose types, saved games continued,
replayed and tampered with. Every refusal is a clear ChocoError and changes nothing."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import choco_envs
from choco_envs.core.errors import ChocoError, ConfigError, RecordError
from choco_envs.records import load_json, replay

ENV_IDS = choco_envs.list_envs()


def play_random(env, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if env.game_over():
            return
        env.step(rng.choice(env.legal_actions()))


@pytest.mark.parametrize("method", ["last", "render", "legal_actions", "action_masks", "save"])
def test_calls_before_reset_name_reset(method: str) -> None:
    env = choco_envs.make("chocolates_v0", render_mode="ansi")
    with pytest.raises(ChocoError, match=r"before reset\(\)"):
        getattr(env, method)()
    with pytest.raises(ChocoError, match=r"before reset\(\)"):
        next(iter(env.agent_iter()))
    with pytest.raises(ChocoError, match=r"before reset\(\)"):
        env.step(0)


def test_step_and_last_after_every_agent_left_name_reset() -> None:
    env = choco_envs.make("chocolates_v0")
    env.reset(seed=1)
    rng = random.Random(0)
    for _agent in env.agent_iter():
        _obs, _r, term, trunc, _info = env.last()
        env.step(None if term or trunc else rng.choice(env.unwrapped.legal_actions()))
    assert env.agents == []
    with pytest.raises(ChocoError, match=r"every agent has stepped out.*reset\(\)"):
        env.step(None)
    with pytest.raises(ChocoError, match=r"every agent has stepped out.*reset\(\)"):
        env.last()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_scores_before_the_end_only_where_nothing_is_hidden(env_id: str) -> None:
    """RULINGS: Chocolates' and Le Chocolat's scores read face-down chocolates and hidden
    tile sides: before the end they would tell a seat what it may not know."""
    env = choco_envs.make(env_id)
    env.reset(seed=3)
    play_random(env, random.Random(1), 5)
    game = env.unwrapped.game
    if game.scores_public:
        assert len(env.unwrapped.scores()) == game.num_players
        assert sum(env.unwrapped.score_breakdown()["total"]) == sum(env.unwrapped.scores())
    else:
        with pytest.raises(ChocoError, match="hidden information"):
            env.unwrapped.scores()
        with pytest.raises(ChocoError, match="hidden information"):
            env.unwrapped.score_breakdown()
    play_random(env, random.Random(2), 10_000)
    assert len(env.unwrapped.scores()) == game.num_players  # at the end, for everyone


def test_scores_of_a_hidden_game_are_refused_mid_game() -> None:
    """The concrete case: Chocolates hides the face-down chocolates."""
    env = choco_envs.make("chocolates_v0")
    env.reset(seed=3)
    assert not env.unwrapped.game.scores_public
    with pytest.raises(ChocoError, match="hidden information"):
        env.unwrapped.scores()


@pytest.mark.parametrize("seed", [1.7, "abc", True, np.float64(2.0), [1]])
def test_a_seed_is_an_int(seed: object) -> None:
    env = choco_envs.make("chocolates_v0")
    with pytest.raises(ConfigError, match="a seed is an int or None"):
        env.reset(seed=seed)  # type: ignore[arg-type]


def test_numpy_ints_are_seeds_and_player_counts() -> None:
    env = choco_envs.make("chocolates_v0", num_players=np.int64(3))
    assert env.unwrapped.game.config["num_players"] == 3
    assert type(env.unwrapped.game.config["num_players"]) is int
    env.reset(seed=np.int64(5))
    twin = choco_envs.make("chocolates_v0", num_players=3)
    twin.reset(seed=5)
    assert env.unwrapped.save() == twin.unwrapped.save()


@pytest.mark.parametrize("value", [0, 1, 1.0, "False", None])
def test_a_bool_option_takes_a_bool_only(value: object) -> None:
    with pytest.raises(ConfigError, match=r"allowed values: True, False"):
        choco_envs.make("chocolate_factory_v2", packages=value)


def test_numpy_bool_options_are_stored_as_python_bools_and_saved() -> None:
    env = choco_envs.make("chocolate_factory_v2", packages=np.False_)
    assert env.unwrapped.game.config["packages"] is False
    env.reset(seed=2)
    assert env.unwrapped.save()["options"]["packages"] is False
    assert replay(env.unwrapped.save()).game.config["packages"] is False


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_game_continued_many_times_replays_to_its_own_state(env_id: str) -> None:
    """Save, continue in a fresh env, play on, save again, ...: every record replays from
    its seed and actions to its own state."""
    rng = random.Random(7)
    env = choco_envs.make(env_id)
    env.reset(seed=11)
    for _ in range(4):
        play_random(env.unwrapped, rng, 6)
        record = json.loads(json.dumps(env.unwrapped.save()))
        again = replay(record)
        assert again.save()["state"] == record["state"]
        env = choco_envs.make(env_id)
        env.reset(options={"state": record})
        assert env.unwrapped.save()["seed"] == record["seed"]


def finished_record(env_id: str = "chocolates_v0", seed: int = 4) -> dict:
    env = choco_envs.make(env_id)
    env.reset(seed=seed)
    play_random(env.unwrapped, random.Random(3), 10_000)
    return json.loads(json.dumps(env.unwrapped.save()))


def test_replay_refuses_a_record_whose_action_was_swapped_for_another_legal_one() -> None:
    env = choco_envs.make("chocolates_v0", illegal_action="raise")
    env.reset(seed=4)
    play_random(env.unwrapped, random.Random(3), 6)
    legal = env.unwrapped.legal_actions()
    env.step(legal[0])
    record = json.loads(json.dumps(env.unwrapped.save()))
    assert replay(record).save()["state"] == record["state"]
    swapped = {**record, "actions": [*record["actions"][:-1], legal[1]]}
    with pytest.raises(RecordError, match="does not give its state"):
        replay(swapped)


def test_replay_refuses_an_illegal_action_naming_its_step() -> None:
    record = finished_record()
    broken = {**record, "actions": [*record["actions"][:3], 10_000, *record["actions"][4:]]}
    with pytest.raises(RecordError, match=r"action 3 \(10000\) is refused"):
        replay(broken)


def test_replay_takes_only_game_options() -> None:
    record = finished_record()
    for extra in ({"render_mode": "human"}, {"illegal_action": "terminate"}):
        with pytest.raises(RecordError, match="not game options"):
            replay({**record, "options": {**record["options"], **extra}})


def test_continuing_refuses_foreign_options_and_a_seed_with_a_state() -> None:
    record = finished_record()
    env = choco_envs.make("chocolates_v0")
    with pytest.raises(RecordError, match="not game options"):
        env.reset(options={"state": {**record, "options": {"render_mode": "human"}}})
    with pytest.raises(ConfigError, match="not both"):
        env.reset(seed=1, options={"state": record})


def test_load_json_turns_every_bad_file_into_a_record_error(tmp_path: Path) -> None:
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(256)) * 4)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    for path, why in (
        (nested, "nested too deeply"),
        (binary, "not a text file"),
        (listed, "expected a JSON object"),
        (tmp_path / "missing.json", "no such file"),
        (tmp_path, "a folder"),
    ):
        with pytest.raises(RecordError, match=why):
            load_json(path)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_render_after_the_end_never_names_a_seat_to_act(env_id: str) -> None:
    """After an illegal move ends the game, and after the natural end, the board says the
    game is over, not who is to act."""
    env = choco_envs.make(env_id, render_mode="ansi")
    env.reset(seed=2)
    with pytest.warns(RuntimeWarning):
        env.step(10**6)
    text = env.render()
    assert "illegal move" in text and "to act" not in text and "player_-1" not in text
    env.reset(seed=2)
    play_random(env.unwrapped, random.Random(0), 100_000)
    text = env.render()
    assert "over" in text.lower() and "to act" not in text and "player_-1" not in text


def mid_game_with_points(env_id: str) -> Any:
    """An env in a game not over where some seat has points (so a 0.0 is not a score)."""
    for seed in range(50):
        env = choco_envs.make(env_id)
        env.reset(seed=seed)
        raw, rng = env.unwrapped, random.Random(seed)
        while not raw.game_over():
            if any(raw.game.scores(raw.state_)):
                return env
            raw.step(rng.choice(raw.legal_actions()))
    raise AssertionError(f"no {env_id} game with points before its end")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_scores_after_every_kind_of_ending_are_the_games(env_id: str) -> None:
    """Issue 26, item 5: after an illegal move ended a game, Chocolates and Le Chocolat
    refused scores() ("they are given once the game is over") and every seat's
    infos["final_score"] was 0.0. After any ending (an illegal move, the rules' end, a
    finished game continued from its record) scores are the game's, in every seat's
    infos too; the illegal move's rewards stay -1 for the offender, 0 for the others."""
    env = mid_game_with_points(env_id)
    raw = env.unwrapped
    offender = env.agent_selection
    with pytest.warns(RuntimeWarning, match="illegal move"):
        env.step(10**6)
    endings = [("an illegal move", raw)]
    assert raw.rewards == {a: (-1.0 if a == offender else 0.0) for a in raw.possible_agents}
    finished = choco_envs.make(env_id)
    finished.reset(seed=2)
    play_random(finished.unwrapped, random.Random(2), 100_000)
    endings.append(("the rules", finished.unwrapped))
    continued = choco_envs.make(env_id)
    continued.reset(options={"state": json.loads(json.dumps(finished.unwrapped.save()))})
    endings.append(("a finished record", continued.unwrapped))
    for how, ended in endings:
        assert ended.game_over(), how
        scores = ended.game.scores(ended.state_)
        assert ended.scores() == scores, how
        assert ended.score_breakdown() == ended.game.score_breakdown(ended.state_), how
        finals = [ended.infos[a]["final_score"] for a in ended.possible_agents]
        assert finals == scores, how
        assert all(ended.infos[a]["game_over"] == 1 for a in ended.possible_agents), how
    assert any(raw.scores()), "the illegal ending kept the points made before it"
