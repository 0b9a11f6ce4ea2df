"""Masked PPO self-play: a launcher of ``choco_envs.train.ppo`` (the trainer, CleanRL
style, lives in the package so that `choco train` works from any install).

    python training/ppo_selfplay.py --config configs/chocolates_v0/ppo.yaml
    python training/ppo_selfplay.py --config configs/chocolates_v0/ppo.yaml --total-timesteps 300000
    choco train --config configs/chocolates_v0/ppo.yaml     # the same run

Read ``choco_envs/train/ppo.py``: the ``Args`` dataclass (a docstring per field), the
PPO update and the loop top to bottom; its pieces in ``rollout``, ``league``,
``evaluation``, ``start`` and ``outputs`` beside it.
"""

from choco_envs.train.ppo import main

if __name__ == "__main__":
    raise SystemExit(main(prog="python training/ppo_selfplay.py"))
