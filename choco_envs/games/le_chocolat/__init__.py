"""Le Chocolat (seed 002): two players split a 7x5 grid of two-sided chocolate tiles."""

from choco_envs.games.le_chocolat.rules import LeChocolatGame, LeChocolatState

__all__ = ["LeChocolatGame", "LeChocolatState"]
