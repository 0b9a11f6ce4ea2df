"""Chocolate Factory (seed 001): dice drafting with stations, machines, shared packages and
a shift clock. See docs/games/chocolate_factory.md."""

from choco_envs.games.chocolate_factory.rules import ChocolateFactoryGame, FactoryState

__all__ = ["ChocolateFactoryGame", "FactoryState"]
