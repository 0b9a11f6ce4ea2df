"""``Args`` of the RLlib trainer: the shared run description (``choco_envs.train.run``:
``RunSpec`` and the PPO loss settings of ``PPOLoss``), then the RLlib trainer's own
fields (CleanRL style: one field, one docstring, one flag). A YAML config and flags are
read by ``choco_envs.train.config``, as for every engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from choco_envs.train.run import PPOLoss


@dataclass
class Args(PPOLoss):
    iterations: int = 100
    """training iterations (each samples train_batch_size env steps, then updates);
    total_timesteps and max_minutes may stop it sooner"""
    address: str = ""
    """Ray cluster to join (`auto` on a cluster node, or `ray://HEAD:10001`); empty: start
    a local Ray with num_cpus CPUs"""
    ship_package: bool = True
    """with address: upload this choco_envs package to the cluster's workers (Ray
    runtime_env py_modules), so that every node runs this version of it"""
    num_cpus: int = 2
    """CPUs of the local Ray (ignored with address)"""
    num_env_runners: int = 0
    """remote EnvRunner actors sampling games (0: sample in the driver process)"""
    num_envs_per_env_runner: int = 8
    """games each EnvRunner steps together (one batched forward pass)"""
    num_learners: int = 0
    """remote Learner actors (0: learn in the driver process)"""
    num_gpus_per_learner: float = 0.0
    """GPUs per Learner (0: CPU)"""
    train_batch_size: int = 4000
    """env steps per training iteration (per learner)"""
    minibatch_size: int = 500
    """SGD minibatch size"""
    win_rate_threshold: float = 0.6
    """snapshot main when its win rate over the last 100 games against the league (bots
    and snapshots) exceeds this"""
    snapshot_gap: int = 5
    """iterations at least between two snapshots"""
    rllib_checkpoint: bool = True
    """also save RLlib's own checkpoint to <runs_dir>/<run_name>/rllib (export reads it)"""

    ENGINE: ClassVar[str] = "rllib"
    RUN_TAG: ClassVar[str] = "rllib_ppo"
    NOT_READ: ClassVar[dict[str, str]] = {
        "player_counts": "it plays the one table of options",
        "modes": "it plays the one table of options",
        "table_weights": "it plays the one table of options",
        "mark_modes": "it plays the one table of options",
        "feature": "the network reads the encoder's observation alone",
        "conv_channels": "its network is an MLP: hidden",
        "board_actions": "its network is an MLP: hidden",
        "action_head": "its network is an MLP: hidden",
        "action_head_only": "its network is an MLP: hidden",
        "action_head_context": "its network is an MLP: hidden",
        "action_head_pool": "its network is an MLP: hidden",
        "init_from": "a run starts from a fresh network",
        "resume": "a run starts from a fresh network",
    }

    def engine_rules(self) -> list[tuple[str, bool, str]]:
        """The RLlib trainer's own settings' ranges (``check`` reads them after the
        shared ones)."""
        return [
            ("total_timesteps", self.total_timesteps >= 1, ">= 1 (the rllib engine's budget)"),
            ("hidden", bool(self.hidden), "at least one layer size"),
            ("iterations", self.iterations >= 1, ">= 1"),
            ("num_env_runners", self.num_env_runners >= 0, ">= 0"),
            ("num_envs_per_env_runner", self.num_envs_per_env_runner >= 1, ">= 1"),
            ("num_learners", self.num_learners >= 0, ">= 0"),
            ("num_gpus_per_learner", self.num_gpus_per_learner >= 0, ">= 0"),
            ("num_cpus", self.num_cpus >= 1, ">= 1"),
            ("train_batch_size", self.train_batch_size >= 1, ">= 1"),
            ("minibatch_size", self.minibatch_size >= 1, ">= 1"),
            (
                "minibatch_size",
                self.minibatch_size <= self.train_batch_size,
                f"at most train_batch_size={self.train_batch_size}",
            ),
            ("snapshot_gap", self.snapshot_gap >= 0, ">= 0"),
        ]
