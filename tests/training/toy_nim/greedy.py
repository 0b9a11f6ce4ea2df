"""Greedy play of the toy Nim: leave a multiple of 4 when possible, else take 1."""

from __future__ import annotations

from choco_envs.core.game import Rng
from tests.training.toy_nim.rules import NimState, ToyNim


def greedy_action(game: ToyNim, s: NimState, rng: Rng) -> int:
    take = s.stones % 4
    return take - 1 if take else 0
