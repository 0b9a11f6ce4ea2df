"""``python -m choco_envs.integrations.rllib train|export``: the RLlib trainer's command line.

    python -m choco_envs.integrations.rllib train --config configs/chocolates_v0/rllib.yaml
    python -m choco_envs.integrations.rllib train --env-id le_chocolat_v0 --iterations 5 \\
        --num-env-runners 2 --address auto
    python -m choco_envs.integrations.rllib export --checkpoint runs/RUN/rllib --out p.safetensors

``train`` takes a YAML config of Args overrides and one flag per Args field (flags win);
``export`` turns RLlib's own checkpoint of a run (``runs/<run_name>/rllib``) into a
choco_envs checkpoint (``train`` already writes one to ``save_path``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ChocoError, ConfigError


def configure(parser: argparse.ArgumentParser, config_flag: bool = True) -> None:
    """The ``train`` options: ``--config`` (unless ``config_flag`` is false: the parser
    has its own, read as ``ns.config``) and one flag per Args field, by the loader every
    engine uses (``choco_envs.train.config``). ``choco train --engine rllib`` reuses it,
    and ``run``."""
    from choco_envs.integrations.rllib.args import Args
    from choco_envs.train.config import add_config_and_flags, add_flags

    if config_flag:
        add_config_and_flags(parser, Args)
    else:
        add_flags(parser.add_argument_group("Args (each also a config key, in snake_case)"), Args)


def run(args: argparse.Namespace, command: str = "") -> int:
    """Train from parsed ``train`` options (a namespace with ``config`` and the Args
    flags; other attributes are ignored); return an exit status."""
    from choco_envs.integrations.rllib.args import Args
    from choco_envs.integrations.rllib.train import train
    from choco_envs.train.config import args_from_namespace

    train(args_from_namespace(Args, args), command=command)
    return 0


def export_checkpoint(checkpoint: str | Path, out: str | Path) -> Path:
    """The choco_envs checkpoint of ``main`` in an RLlib checkpoint saved by ``train``."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from choco_envs.integrations.rllib.args import Args
    from choco_envs.integrations.rllib.league import MAIN
    from choco_envs.integrations.rllib.train import ARGS_FILE, export_weights
    from choco_envs.train.config import build
    from choco_envs.train.run import RENAMED

    root = Path(checkpoint)
    args_file = root / ARGS_FILE
    module_dir = root / "learner_group" / "learner" / "rl_module" / MAIN
    if not args_file.is_file() or not module_dir.is_dir():
        raise ConfigError(
            f"{str(root)!r} is not an RLlib checkpoint written by this trainer (it needs "
            f"{ARGS_FILE} and learner_group/learner/rl_module/{MAIN})"
        )
    saved = json.loads(args_file.read_text())
    # the file is the trainer's own record, not a config: one written before the
    # settings were renamed (``lr``, ``num_epochs``, ...) is read with the new names
    saved = {RENAMED.get(k, k): v for k, v in saved.items()}
    args = build(Args, saved, source=f"{str(args_file)!r}")
    module = RLModule.from_checkpoint(str(module_dir.resolve()))
    state: dict[str, Any] = module.get_state()
    return export_weights(
        state, out, args, 0, {}, {"exported_from": str(root), "command": shlex.join(sys.argv)}
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        prog="python -m choco_envs.integrations.rllib",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    configure(sub.add_parser("train", help="masked PPO self-play with a league on Ray RLlib"))
    export = sub.add_parser("export", help="RLlib checkpoint -> choco_envs checkpoint")
    export.add_argument("--checkpoint", required=True, help="runs/<run_name>/rllib")
    export.add_argument("--out", required=True, help="the .safetensors file to write")
    ns = parser.parse_args(argv)
    try:
        if ns.command == "train":
            return run(ns, "python -m choco_envs.integrations.rllib " + shlex.join(argv))
        path = export_checkpoint(ns.checkpoint, ns.out)
        print(f"exported {path}")
        return 0
    except ChocoError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
