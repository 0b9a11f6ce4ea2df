"""Chocolatiers, standard (seed 000) and classic (seed 003) editions: see
docs/games/chocolatiers.md."""

from choco_envs.games.chocolatiers.rules import ChocolatiersGame, State

__all__ = ["ChocolatiersGame", "State"]
