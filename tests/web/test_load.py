"""The load test, bounded: 50 concurrent games against bots on loopback
(``choco_envs.web.loadtest``: a ``choco serve`` child process, simulated people who wait
for their turn, think and move). No request may fail; a person's move is answered within
100 ms at the 95th percentile (bot thinking excluded: the answer comes before any bot
moves); the memory per live game is reported.

Both the latency seen by the simulated person (from sending the request to its answer) and
the app's own time (its server-timing header) are judged. (Measured with a general HTTP
client the people's own CPU dominated the figure on a busy machine; they use one
keep-alive connection each, written for this.)"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed")

from choco_envs.web.loadtest import P95_BUDGET_MS, run_load  # noqa: E402

GAMES = 50


def test_fifty_concurrent_games_against_bots() -> None:
    figures = run_load(games=GAMES, moves=10, seconds=90.0, think=(0.5, 1.5), seed=1)
    print("\n" + figures.text())
    assert not figures.errors, figures.errors[:5]
    assert figures.moves_requested >= GAMES * 5
    assert figures.live_games >= GAMES
    assert figures.per_game_kb < 2048, "a live game should cost well under 2 MB"
    assert figures.server_p95_ms < P95_BUDGET_MS, figures.text()
    assert figures.p95_ms < P95_BUDGET_MS, figures.text()
