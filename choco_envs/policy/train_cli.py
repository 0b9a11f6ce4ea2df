"""Train a policy with masked PPO self-play (training/ppo_selfplay.py) from a config file.

    choco train --config configs/chocolates_v0/ppo.yaml
    choco train --config configs/chocolates_v0/ppo.yaml --total-timesteps 200000 --seed 2
    choco train --config configs/chocolates_v0/ppo.yaml --options num_players=3

A config holds only overrides of the Args defaults of training/ppo_selfplay.py; flags
override the config (``--hidden 128,128``, ``--league-bots greedy=1``, ``--track
false``). Needs the ``train`` extra (torch) and a source checkout (an editable install):
the script is training/ppo_selfplay.py of the repository (or $CHOCO_TRAIN_SCRIPT).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import sys
from pathlib import Path
from types import ModuleType

from choco_envs.core.errors import ConfigError

SCRIPT = Path("training") / "ppo_selfplay.py"


def configure(parser: argparse.ArgumentParser) -> None:
    """``--config`` plus one flag per field of the script's Args (when it is found)."""
    parser.add_argument("--config", help="YAML file of Args overrides (configs/<env_id>/ppo.yaml)")
    try:
        script = load_script(find_script())
    except ConfigError as err:
        parser.epilog = f"(Args flags unavailable: {err})"
        return
    from choco_envs.policy.args import add_arguments

    add_arguments(parser.add_argument_group("Args of training/ppo_selfplay.py"), script.Args)


def find_script() -> Path:
    """The training script: $CHOCO_TRAIN_SCRIPT, else the repository's, else ./training."""
    explicit = os.environ.get("CHOCO_TRAIN_SCRIPT")
    candidates = (
        [Path(explicit)]
        if explicit
        else [
            Path(__file__).resolve().parents[2] / SCRIPT,
            Path.cwd() / SCRIPT,
        ]
    )
    for path in candidates:
        if path.is_file():
            return path
    raise ConfigError(
        f"training script not found (looked for {', '.join(map(str, candidates))}); "
        "`choco train` runs from a source checkout (pip install -e .) or with "
        "CHOCO_TRAIN_SCRIPT=PATH"
    )


def load_script(path: Path) -> ModuleType:
    """The training script as a module (imported once; it imports torch lazily)."""
    name = "choco_ppo_selfplay"
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"cannot load training script {str(path)!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run(args: argparse.Namespace) -> int:
    from choco_envs.policy.args import build, load_config

    script = load_script(find_script())
    config = load_config(args.config) if args.config else {}
    train_args = build(script.Args, config, args)
    command = "choco train " + shlex.join(sys.argv[2:] if sys.argv[1:2] == ["train"] else [])
    script.train(train_args, command=command)
    return 0
