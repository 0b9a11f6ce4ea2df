"""Ray RLlib: masked PPO self-play with a league, exported and rated against greedy (any env).

    pip install -e ".[rllib]"
    python examples/rllib_selfplay.py --env-id chocolates_v0 --iterations 20
    python examples/rllib_selfplay.py --env-id le_chocolat_v0 --num-env-runners 2
    python examples/rllib_selfplay.py --env-id chocolatiers_v1 --address auto   # on a Ray cluster

What it runs is the project's RLlib trainer (``python -m choco_envs.integrations.rllib
train``, every flag of which this script passes on): every env is an RLlib
``MultiAgentEnv`` whose observations are ``{"observations", "action_mask"}``; RLlib's
``ActionMaskingTorchRLModule`` ``main`` learns in every seat the policy mapping gives it;
the other seats are ``main`` again, frozen snapshots of it (taken when its win rate
against the league passes ``--win-rate-threshold``) or the baseline bots. Each agent's
reward is its own seat's (PettingZoo issue 1147; the trainer counts mismatches, always 0).
Then the exported checkpoint plays greedy in the arena, as ``choco eval`` would.
"""

from __future__ import annotations

import argparse
import sys

from choco_envs.integrations.rllib.args import Args
from choco_envs.integrations.rllib.train import train
from choco_envs.train.config import add_config_and_flags, args_from_namespace

#: a short run unless the command line says otherwise
DEFAULTS = {
    "iterations": 10,
    "train_batch_size": 2000,
    "minibatch_size": 250,
    "hidden": ["128,128"],
    "final_eval_games": 20,
}


def main(argv: list[str] | None = None) -> str:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_config_and_flags(parser, Args)
    parser.add_argument("--arena-games", type=int, default=20, help="games against greedy")
    ns = parser.parse_args(argv)
    for key, value in DEFAULTS.items():
        if not hasattr(ns, key) and not ns.config:
            setattr(ns, key, value)
    args = args_from_namespace(Args, ns)
    path = train(args, command="python examples/rllib_selfplay.py " + " ".join(argv))

    from choco_envs.cli import main as choco

    options = [f"{k}={v}" for k, v in args.options.items() if k != "num_players"]
    players = args.options.get("num_players")
    command = [
        "eval",
        "--env",
        args.env_id,
        "--bots",
        f"policy:{path}",
        "greedy",
        "--games",
        str(ns.arena_games),
        "--seed",
        "1",
        "--quiet",
    ]
    command += ["--players", str(players)] if players else []
    for option in options:
        command += ["--env-option", option]
    print("choco " + " ".join(command), flush=True)
    choco(command)
    return str(path)


if __name__ == "__main__":
    main()
