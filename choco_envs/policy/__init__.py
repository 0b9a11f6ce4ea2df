"""Policies trained by PPO self-play: the network, the checkpoint format, the policy bot,
and the library code of ``training/ppo_selfplay.py``.

Importing this package does not import torch; the modules that need it
(``net``, ``bot``, ``selfplay``) do, and torch is the optional ``train`` extra.
``checkpoint.read_metadata`` reads a checkpoint's metadata without torch.
"""

from choco_envs.policy.checkpoint import CheckpointError, read_metadata, shipped_checkpoint

__all__ = ["CheckpointError", "read_metadata", "shipped_checkpoint"]
