"""The web tests' fixtures: an app with a records folder of its own and bots that move at
once, and its API client. Every web test skips when the web extra is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    pytest.importorskip("fastapi", reason="the web extra is not installed")
    pytest.importorskip("httpx", reason="the API tests need httpx")
    from tests.web.helpers import make_client

    with make_client(tmp_path / "records") as c:
        yield c
