"""Every mutation of every game's rules is killed by a named rule test (slow: each mutant
runs that game's whole rule suite)."""

from __future__ import annotations

import pytest

from tests.mutations.runner import GAMES, mutations_of, run_one


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_no_mutant_survives(game: str) -> None:
    mutations = mutations_of(game)
    assert mutations, f"{game} lists no mutations"
    survivors = [(m.name, o.detail) for m in mutations if not (o := run_one(game, m)).killed]
    assert not survivors, f"{game}: mutations no test kills: {survivors}"
