"""Issue 26, item 4: an uploaded record with a field the format lacks (``"evil":
"<script>"``) was stored and served back, though docs/web.md says a saved file is exactly
the env's record. The upload goes through the shared record loader, which refuses it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import choco_envs
from choco_envs.web.errors import BadRequest
from choco_envs.web.store import RecordStore


def finished_record() -> dict[str, object]:
    env = choco_envs.make("chocolates_v0")
    env.reset(seed=4)
    rng = random.Random(4)
    while not env.unwrapped.game_over():
        env.step(rng.choice(env.unwrapped.legal_actions()))
    return json.loads(json.dumps(env.unwrapped.save()))


def test_an_upload_with_an_unknown_field_is_refused_and_not_stored(tmp_path: Path) -> None:
    store = RecordStore(tmp_path)
    record = finished_record()
    for bad, words in (
        ({**record, "evil": "<script>"}, "unknown field(s) 'evil'"),
        ({**record, "actions": [True, *record["actions"][1:]]}, "actions[0] = True"),
    ):
        with pytest.raises(BadRequest) as refused:
            store.upload(json.dumps(bad).encode())
        assert words in str(refused.value)
    assert list(tmp_path.glob("*.json")) == []
    record_id = store.upload(json.dumps(record).encode())
    assert json.loads(store.path(record_id).read_text()) == record
