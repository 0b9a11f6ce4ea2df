"""Hostile records, for every env: each field of a saved game corrupted in turn.

A saved game is input from outside (a file, a web upload). Every corruption must either be
refused with a RecordError, leaving the env exactly as it was and still playable, or give
a game that plays to its end by the rules: the agent to act always has a legal action, no
step raises, the game ends within ``max_steps`` and the scores are finite numbers. The
default run corrupts a fixed sample of fields; ``-m slow`` corrupts every field.
"""

from __future__ import annotations

import copy
import json
import math
import multiprocessing
import random
import resource
import traceback
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import choco_envs
from choco_envs.core.errors import RecordError

from .conftest import ENV_IDS

Path = tuple[Any, ...]
#: fields corrupted per record in the default run (all of them with -m slow)
SAMPLED_FIELDS = 60
#: a hostile record that makes the engine allocate or loop without bound must fail the
#: test, not the machine: the cases run in a child process with this much memory and time
CHILD_MEMORY_BYTES = 3 * 2**30
CHILD_SECONDS = {False: 600, True: 3000}


def leaves(obj: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """(path, value) of every scalar and every list or object inside ``obj``."""
    if isinstance(obj, dict):
        yield path, obj
        for k, v in obj.items():
            yield from leaves(v, (*path, k))
    elif isinstance(obj, list):
        yield path, obj
        for i, v in enumerate(obj):
            yield from leaves(v, (*path, i))
    else:
        yield path, obj


def corruptions(value: Any) -> list[Any]:
    """Values a careless or hostile writer might put in place of ``value``."""
    if isinstance(value, bool):
        return [None, 2, "yes"]
    if isinstance(value, int):
        return [-1, -5, value + 1, 7, 99, 999, 10**9, 2**40, 1.5, None, "3", True]
    if isinstance(value, float):
        return [-1.0, 1e18, math.nan, None, "x"]
    if isinstance(value, str):
        return ["", "no_such_thing", 5, None]
    if isinstance(value, list):
        out: list[Any] = [[], None, {"a": 1}]
        if value:
            out += [value[:-1], [*value, value[0]], [value[0]] * len(value), list(reversed(value))]
        return out
    if isinstance(value, dict):
        out = [None, [], {}]
        if value:
            first = next(iter(value))
            out.append({k: v for k, v in value.items() if k != first})
        return out
    return [None, 0]


def replaced(record: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    target: Any = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


def saved_games(env_id: str) -> list[dict[str, Any]]:
    """Records of one game of ``env_id`` at its start, a third of the way and near its end."""
    env = choco_envs.make(env_id, illegal_action="raise")
    env.reset(seed=17)
    rng = random.Random(3)
    states = []
    while not any(env.unwrapped.terminations.values()):
        states.append(json.loads(json.dumps(env.unwrapped.save())))
        env.step(rng.choice(env.unwrapped.legal_actions()))
    return [states[0], states[len(states) // 3], states[-2]]


def plays_to_the_end(env: Any, seed: int, what: str) -> None:
    """Random legal play from the loaded state: no error, a legal action always, an end."""
    raw = env.unwrapped
    rng = random.Random(seed)
    for _ in range(raw.game.max_steps + 1):
        if all(raw.terminations.values()):
            break
        legal = raw.legal_actions()
        assert legal, f"{raw.agent_selection} has no legal action in an accepted record ({what})"
        env.step(rng.choice(legal))
    else:
        pytest.fail(f"an accepted record ({what}) did not end within {raw.game.max_steps} steps")
    assert all(math.isfinite(float(v)) for v in raw.scores()), what


def check_corruption(env_id: str, record: dict[str, Any], path: Path, bad: Any) -> None:
    env = choco_envs.make(env_id, illegal_action="raise")
    env.reset(seed=5)
    env.step(env.unwrapped.legal_actions()[0])
    before = json.dumps(env.unwrapped.save(), sort_keys=True)
    agent = env.agent_selection
    hostile = replaced(record, path, bad)
    try:
        env.reset(options={"state": hostile})
    except RecordError:
        assert json.dumps(env.unwrapped.save(), sort_keys=True) == before, (
            f"a refused record changed the env ({path} = {bad!r})"
        )
        assert env.agent_selection == agent
        env.step(env.unwrapped.legal_actions()[0])  # and it is still playable
        return
    except Exception as err:  # noqa: BLE001 - the point is to name what escaped
        pytest.fail(f"record with {path} = {bad!r} raised {type(err).__name__}: {err}")
    try:
        plays_to_the_end(env, seed=len(path), what=f"{path} = {bad!r}")
    except (AssertionError, pytest.fail.Exception):
        raise
    except Exception as err:  # noqa: BLE001
        pytest.fail(f"record with {path} = {bad!r} was accepted, then {type(err).__name__}: {err}")


def cases(env_id: str, every: bool) -> list[tuple[dict[str, Any], Path, Any]]:
    out = []
    rng = random.Random(env_id)
    for record in saved_games(env_id):
        paths = [p for p, _ in leaves(record) if p]
        if not every:
            paths = rng.sample(paths, min(SAMPLED_FIELDS, len(paths)))
        for path in paths:
            value: Any = record
            for key in path:
                value = value[key]
            out += [(record, path, bad) for bad in corruptions(value)]
    return out


def _child(env_id: str, every: bool, out: Any) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY_BYTES, CHILD_MEMORY_BYTES))
    try:
        for record, path, bad in cases(env_id, every):
            out.send(("case", f"{path} = {bad!r}"))
            check_corruption(env_id, record, path, bad)
    except BaseException as err:  # noqa: BLE001 - reported to the parent
        detail = str(err) if isinstance(err, AssertionError | pytest.fail.Exception) else ""
        out.send(("fail", detail or traceback.format_exc(limit=4)))
        return
    out.send(("done", ""))


def run_hostile_cases(env_id: str, every: bool) -> None:
    """Every case in a forked child limited in memory and time; fail naming the case."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(env_id, every, send), daemon=True)
    child.start()
    send.close()
    last, deadline = "(none)", CHILD_SECONDS[every]
    try:
        while receive.poll(deadline):
            kind, text = receive.recv()
            if kind == "case":
                last = text
            elif kind == "fail":
                pytest.fail(f"{env_id}: {text}")
            else:
                return
        pytest.fail(f"{env_id}: the record with {last} ran past {deadline} s")
    except EOFError:
        pytest.fail(f"{env_id}: the engine died on the record with {last} (memory limit?)")
    finally:
        child.kill()
        child.join()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_hostile_records_are_refused_or_play_by_the_rules(env_id: str) -> None:
    run_hostile_cases(env_id, every=False)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_field_of_a_record_corrupted(env_id: str) -> None:
    run_hostile_cases(env_id, every=True)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_refused_record_leaves_the_env_and_its_random_stream_unchanged(env_id: str) -> None:
    """A failed reset(options={"state": ...}) changes nothing: the same state, the same
    actions so far, and the same random stream (the next draws are the ones it would
    have made)."""
    env = choco_envs.make(env_id, illegal_action="raise")
    env.reset(seed=8)
    record = env.unwrapped.save()
    broken = {**record, "state": {**record["state"], "no_such_field": 1}}
    broken["state"].pop(next(iter(record["state"])))
    twin = choco_envs.make(env_id, illegal_action="raise")
    twin.reset(seed=8)
    with pytest.raises(RecordError):
        env.reset(options={"state": broken})
    rng = np.random.default_rng(0)
    for _ in range(40):
        if all(env.unwrapped.terminations.values()):
            break
        legal = env.unwrapped.legal_actions()
        assert legal == twin.unwrapped.legal_actions()
        action = int(rng.choice(legal))
        env.step(action)
        twin.step(action)
    assert env.unwrapped.save() == twin.unwrapped.save()
