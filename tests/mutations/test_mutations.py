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


@pytest.mark.parametrize("game", GAMES)
def test_every_mutation_still_applies(game: str) -> None:
    """Each mutation's text occurs exactly once in the source it breaks (fast, in the
    default suite): a rule rewritten for speed or clarity must bring its mutation along,
    or the slow run above would report it as not applied instead of guarding the rule."""
    from tests.mutations.runner import ROOT

    stale = []
    for m in mutations_of(game):
        count = (ROOT / m.path).read_text().count(m.old)
        if count != 1:
            stale.append(f"{m.name}: {count} occurrences in {m.path}")
    assert not stale, stale
