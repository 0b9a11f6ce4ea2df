"""Greedy for Secret race: take the largest sure gain (+3)."""

from __future__ import annotations

import random
from typing import Any

from .rules import ADD_THREE


def greedy_action(game: Any, state: Any, rng: random.Random) -> int:
    """Always +3: the best sure gain."""
    return ADD_THREE
