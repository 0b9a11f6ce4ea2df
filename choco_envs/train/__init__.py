"""The trainers, inside the package so that `choco train` works from any install.

| module | what it is |
|---|---|
| ``run`` | ``RunSpec``: the one run description every engine's ``Args`` extends (env, tables, network, budget, league, evaluation, outputs) |
| ``ppo`` | masked PPO self-play, CleanRL style: its ``Args``, the checks, the PPO update and the loop, top to bottom |
| ``rollout`` | the PPO trainer's vector games and per-seat trajectories |
| ``league`` | the PPO trainer's league: past snapshots, who plays the other seats |
| ``evaluation`` | the PPO trainer's periodic (``keep_best``) and final evaluations |
| ``start`` | where a PPO run's network starts: ``resume``, ``init_from`` |
| ``outputs`` | what a run leaves: the one checkpoint-metadata writer of every engine, the run folder |
| ``az`` | search and learning (expert iteration with Gumbel IS-MCTS) |
| ``imitation`` | behaviour cloning and DAgger from any teacher bot: PPO's warm start |
| ``games`` | vectorized games on the rules API (in this process or worker processes) |
| ``evaluate`` | a network against a bot on duplicate deals, seats rotated |
| ``config`` | every engine's ``Args`` from a YAML config and flags, every refusal a one-line ConfigError |
| ``cli`` | ``choco train`` |
| ``ship`` | ``choco ship``: a run's file into ``checkpoints/``, only when measurably better |

Importing this package imports neither torch nor any trainer.
"""
