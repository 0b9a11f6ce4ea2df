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
``rllib`` extra; see ``choco train --engine rllib --help`` and docs/scale.md): masked
PPO self-play with a league, ``--num-env-runners N`` and ``--address`` to join a running
Ray cluster; the result is exported to this project's checkpoint format.

Every engine reads the same run description (``choco_envs.train.run.RunSpec``: the env,
its tables, the network's inputs and shape, the budget, the league, the evaluations, the
outputs), each setting under one name with one default, and adds its own settings.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from choco_envs.core.errors import ChocoError

#: every engine reads the one run description (``choco_envs.train.run.RunSpec``) and
#: extends it with its own fields
ENGINES = ("ppo", "az", "rllib")
#: ``choco train --engine rllib --help``'s description (the module's doc is the PPO one)
RLLIB_DOC = """Train a policy on Ray RLlib (``choco_envs.integrations.rllib``, the ``rllib``
extra; docs/scale.md): masked PPO self-play with a league, exported to this project's
checkpoint format (``save_path``, default runs/<run_name>/final.safetensors).

    choco train --engine rllib --config configs/chocolates_v0/rllib.yaml
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
    """``--engine``, ``--config`` and one flag per field of the chosen engine's Args: the
    shared run description (``choco_envs.train.run.RunSpec``) and the engine's own
    fields, read by the one loader (``choco_envs.train.config``)."""
    from choco_envs.train.config import add_config_and_flags

    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="ppo",
        help="ppo: the package's masked PPO (default); az: search and learning (Gumbel "
        "IS-MCTS expert iteration); rllib: Ray RLlib (the rllib extra)",
    )
    engine = chosen_engine(argv or [])
    if engine == "rllib":
        parser.description = RLLIB_DOC
        try:
            from choco_envs.integrations.rllib.args import Args as RllibArgs
        except ImportError as err:
            parser.add_argument("--config", metavar="FILE", help="YAML file of Args overrides")
            parser.epilog = f"(the rllib engine is unavailable: {err})"
            return
        add_config_and_flags(parser, RllibArgs)
        return
    if engine == "az":
        from choco_envs.train import az

        parser.description = az.__doc__
        add_config_and_flags(parser, az.Args)
        return
    from choco_envs.train.ppo import Args

    add_config_and_flags(parser, Args)


def run(args: argparse.Namespace) -> int:
    """Train with the chosen engine: 0 when done, 2 (one line on stderr) on bad input."""
    from choco_envs.train.config import args_from_namespace

    argv = sys.argv[2:] if sys.argv[1:2] == ["train"] else []
    try:
        if args.engine == "rllib":
            try:
                from choco_envs.integrations.rllib.args import Args as RllibArgs
                from choco_envs.integrations.rllib.train import train as train_rllib
            except ImportError as err:
                print(
                    f"choco train: error: --engine rllib needs the rllib extra: {err}",
                    file=sys.stderr,
                )
                return 2
            train_rllib(
                args_from_namespace(RllibArgs, args), command="choco train " + shlex.join(argv)
            )
        elif args.engine == "az":
            from choco_envs.train import az

            az.train(args_from_namespace(az.Args, args), command="choco train " + shlex.join(argv))
        else:
            from choco_envs.train.ppo import Args, command_line, train

            train(args_from_namespace(Args, args), command=command_line("choco train", args))
    except ChocoError as err:
        print(f"choco train: error: {err}", file=sys.stderr)
        return 2
    return 0
