"""States met in random play, shared by the games' fast-form tests."""

from __future__ import annotations

import random
from typing import Any


def random_states(game: Any, count: int, seed: int) -> list[Any]:
    """``count`` states met in random play of ``game`` (copies; every game's end
    included), games following one another from ``seed``."""
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < count:
        s = game.new_state(rng)
        while True:
            out.append(game.copy(s))
            if game.is_over(s):
                break
            game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return out[:count]
