"""The trainers, inside the package so that `choco train` works from any install.

| module | what it is |
|---|---|
| ``ppo`` | masked PPO self-play, CleanRL style: the ``Args`` dataclass, per-seat trajectories, the league, the PPO update and the loop, in one file |
| ``imitation`` | behaviour cloning and DAgger from any teacher bot: PPO's warm start |
| ``games`` | vectorized games on the rules API (in this process or worker processes) |
| ``evaluate`` | a network against a bot on duplicate deals, seats rotated |
| ``config`` | ``Args`` from a YAML config and flags, every refusal a one-line ConfigError |
| ``cli`` | ``choco train`` |
| ``ship`` | ``choco ship``: a run's file into ``checkpoints/``, only when measurably better |

Importing this package imports neither torch nor any trainer.
"""
