"""Train a policy with masked PPO self-play (``choco_envs.train.ppo``) from a config file.

    choco train --config configs/chocolates_v0/ppo.yaml
    choco train --config configs/chocolates_v0/ppo.yaml --total-timesteps 300000 --seed 2
    choco train --config configs/chocolatiers_v1/ppo_classic.yaml --options num_players=3

A config holds only overrides of the Args defaults below; flags override the config
(``--hidden 128 128``, ``--league-bots greedy=1``, ``--track false``). The run writes
under runs/<run_name>/ (final.safetensors, TensorBoard scalars, args.yaml); nothing goes
into checkpoints/ (that is `choco ship`). The trainer is part of the package: this works
from any install with the ``train`` extra, and never runs a file from the current folder.
A bad config or flag value is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from choco_envs.core.errors import ChocoError


def configure(parser: argparse.ArgumentParser) -> None:
    """``--config`` plus one flag per field of ``choco_envs.train.ppo.Args``."""
    from choco_envs.train.ppo import add_arguments

    add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from choco_envs.train.ppo import args_from, command_line, train

    try:
        train(args_from(args), command=command_line("choco train", args))
    except ChocoError as err:
        print(f"choco train: error: {err}", file=sys.stderr)
        return 2
    return 0
