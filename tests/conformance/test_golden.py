"""Golden playthroughs: every step of a seeded game per env (and per edition) is diffed
against tests/golden/. Regenerate after an intended change with
`python -m choco_envs.playthrough --dir tests/golden --update` (and bump the env version
if rules changed)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from choco_envs.playthrough import generate, golden_name, playthrough_configs

from .conftest import ENV_IDS

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
CASES = [(e, c) for e in ENV_IDS for c in playthrough_configs(e)]


@pytest.mark.parametrize("case", CASES, ids=[golden_name(e, c) for e, c in CASES])
def test_playthrough_matches_golden_file(case: tuple[str, dict]) -> None:
    env_id, config = case
    path = GOLDEN_DIR / golden_name(env_id, config)
    assert path.exists(), (
        f"{path} is missing: run python -m choco_envs.playthrough --dir tests/golden --update"
    )
    expected = path.read_text()
    actual = generate(env_id, config)
    if actual != expected:
        diff = "".join(
            list(
                difflib.unified_diff(
                    expected.splitlines(True), actual.splitlines(True), "golden", "now"
                )
            )[:60]
        )
        raise AssertionError(f"{path.name} differs from the rules' behaviour now:\n{diff}")
