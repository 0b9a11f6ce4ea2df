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

``--engine az`` trains a policy-value network by search and learning (expert iteration
with Gumbel IS-MCTS, ``choco_envs.train.az``; see ``choco train --engine az --help`` and
configs/<env_id>/az.yaml); its files play as ``az:checkpoint=FILE`` (with search) and
``policy:FILE`` (the network alone).

``--engine rllib`` trains on Ray RLlib instead (``choco_envs.integrations.rllib``, the
``rllib`` extra; its own Args, see ``choco train --engine rllib --help`` and
docs/scale.md): masked PPO self-play with a league, ``--num-env-runners N`` and
``--address`` to join a running Ray cluster; the result is exported to this project's
checkpoint format.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from choco_envs.core.errors import ChocoError

ENGINES = ("ppo", "az", "rllib")
#: ``choco train --engine rllib --help``'s description (the module's doc is the PPO one)
RLLIB_DOC = """Train a policy on Ray RLlib (``choco_envs.integrations.rllib``, the ``rllib``
extra; docs/scale.md): masked PPO self-play with a league, exported to this project's
checkpoint format (``save_path``, default runs/<run_name>/final.safetensors).

    choco train --engine rllib --config examples/configs/rllib/chocolates_v0.yaml
    choco train --engine rllib --env-id le_chocolat_v0 --iterations 5 --num-env-runners 2 \\
        --address auto

A config holds only overrides of the RLlib trainer's Args; flags override the config.
"""


def chosen_engine(argv: list[str]) -> str:
    """The ``--engine`` of a command line (ppo when not given or not understood)."""
    probe = argparse.ArgumentParser(add_help=False)
    probe.add_argument("--engine", default="ppo")
    known, _ = probe.parse_known_args(argv)
    return str(known.engine)


def configure(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> None:
    """``--engine``, ``--config`` and one flag per field of the chosen engine's Args
    (``choco_envs.train.ppo.Args``, or the RLlib trainer's)."""
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="ppo",
        help="ppo: the package's masked PPO (default); az: search and learning (Gumbel "
        "IS-MCTS expert iteration); rllib: Ray RLlib (the rllib extra)",
    )
    if chosen_engine(argv or []) == "rllib":
        parser.description = RLLIB_DOC
        parser.add_argument(
            "--config", metavar="FILE", help="YAML file of the RLlib trainer's Args overrides"
        )
        try:
            from choco_envs.integrations.rllib import __main__ as rllib_cli
        except ImportError as err:
            parser.epilog = f"(the rllib engine is unavailable: {err})"
            return
        rllib_cli.configure(parser, config_flag=False)
        return
    if chosen_engine(argv or []) == "az":
        from choco_envs.train import az

        parser.description = az.__doc__
        az.add_arguments(parser)
        return
    from choco_envs.train.ppo import add_arguments

    add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.engine == "rllib":
        return run_rllib(args)
    if args.engine == "az":
        return run_az(args)
    from choco_envs.train.ppo import args_from, command_line, train

    try:
        train(args_from(args), command=command_line("choco train", args))
    except ChocoError as err:
        print(f"choco train: error: {err}", file=sys.stderr)
        return 2
    return 0


def run_az(args: argparse.Namespace) -> int:
    from choco_envs.train import az

    argv = sys.argv[2:] if sys.argv[1:2] == ["train"] else []
    try:
        az.train(az.args_from(args), command="choco train " + shlex.join(argv))
    except ChocoError as err:
        print(f"choco train: error: {err}", file=sys.stderr)
        return 2
    return 0


def run_rllib(args: argparse.Namespace) -> int:
    try:
        from choco_envs.integrations.rllib import __main__ as rllib_cli
    except ImportError as err:
        print(f"choco train: error: --engine rllib needs the rllib extra: {err}", file=sys.stderr)
        return 2
    argv = sys.argv[2:] if sys.argv[1:2] == ["train"] else []
    try:
        return rllib_cli.run(args, command="choco train " + shlex.join(argv))
    except ChocoError as err:
        print(f"choco train: error: {err}", file=sys.stderr)
        return 2
