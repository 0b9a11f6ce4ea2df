"""Mutation runs: break one rule at a time in a game's rules and see a named test fail.

Each game lists its mutations in ``tests/games/<game>/mutations.py`` (``MUTATIONS``, a list
of :class:`Mutation`): an exact piece of source text, what it becomes, and the rule that
the change breaks. The runner applies each to a fresh copy of the project and runs that
game's own rule tests (``tests/games/<game>``; the golden playthroughs, a net, not the
guard, are not run). A mutation that no test kills is a *survivor*: a rule without a guard.

    python -m tests.mutations chocolates            # every mutation of one game
    python -m tests.mutations chocolates --only NAME
    python -m pytest -m slow tests/mutations        # every game, asserting no survivor
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Mutation:
    """``old`` (exactly once in ``path``) becomes ``new``; ``rule`` names what breaks."""

    name: str
    path: str
    old: str
    new: str
    rule: str


def mutations_in(path: str) -> Callable[[str, str, str, str], Mutation]:
    """A maker of :class:`Mutation` for one file: ``rule(name, old, new, what)``."""

    def rule(name: str, old: str, new: str, what: str) -> Mutation:
        return Mutation(name, path, old, new, what)

    return rule
