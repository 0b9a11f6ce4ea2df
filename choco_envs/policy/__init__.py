"""Trained policies as the rest of the package uses them: the network (``net``), the
checkpoint format and its safe loading (``checkpoint``), feature functions and the
policy input (``features``), and the policy bot (``bot``). The trainers that make
checkpoints are in ``choco_envs.train``.

Importing this package does not import torch; ``net`` and ``bot`` do, and torch is the
optional ``train`` extra. ``read_metadata`` reads a checkpoint's metadata without torch.
"""

from choco_envs.policy.checkpoint import (
    CheckpointError,
    checkpoint_dir,
    read_metadata,
    search_checkpoint,
    shipped_checkpoint,
)

__all__ = [
    "CheckpointError",
    "checkpoint_dir",
    "read_metadata",
    "search_checkpoint",
    "shipped_checkpoint",
]
