"""The Chocolatiers rule tests run before its bot tests (the slower ones), so that a
broken rule fails fast (``python -m tests.mutations chocolatiers`` runs them with -x)."""

from __future__ import annotations

import pytest

BOT_TESTS = "test_chocolatiers_bots.py"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name == BOT_TESTS)
