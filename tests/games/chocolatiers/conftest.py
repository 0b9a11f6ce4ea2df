"""Order of the Chocolatiers tests: the rule tests first, then the observation, hidden
information and records tests (which also catch many broken rules, less directly), then
the slower bot tests; so that a broken rule fails fast and first in its own rule test
(``python -m tests.mutations chocolatiers`` runs them with -x)."""

from __future__ import annotations

import pytest

LATER = (
    "test_chocolatiers_observation.py",
    "test_chocolatiers_hidden.py",
    "test_chocolatiers_records.py",
    "test_chocolatiers_fast_forms.py",
    "test_chocolatiers_bots.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: LATER.index(item.path.name) + 1 if item.path.name in LATER else 0)
