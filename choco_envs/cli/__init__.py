"""`choco`: play, eval, train, bench and list, each explained by `--help`."""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys

#: subcommand -> (module with configure(parser) and run(args) -> int, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("choco_envs.cli.listing", "list the envs, their options and player counts"),
    "play": ("choco_envs.cli.play", "play a game in the terminal against bots"),
    "eval": (
        "choco_envs.cli.eval",
        "run an arena: bots play each other, seats rotated, duplicate deals",
    ),
    "train": (
        "choco_envs.cli.train",
        "train a policy with PPO self-play from a config file",
    ),
    "ship": (
        "choco_envs.cli.ship",
        "put a trained file into checkpoints/, only if it is measurably better",
    ),
    "bench": ("choco_envs.cli.bench", "measure speed and memory of every env against the budgets"),
    "serve": ("choco_envs.cli.serve", "play in the browser: lobby, boards, bots, friends, replays"),
}


def build_parser(only: str | None = None, argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The `choco` parser. Only the chosen subcommand's module is imported (``only``), so
    that `choco play` never pays for torch and `choco --help` starts at once."""
    parser = argparse.ArgumentParser(
        prog="choco",
        description="choco_envs: PettingZoo environments for chocolate-themed tabletop games. "
        "Run `choco COMMAND --help` for each command's options.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        p = sub.add_parser(
            name,
            help=help_text,
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if "argv" in inspect.signature(module.configure).parameters:
            module.configure(p, argv=argv or [])  # its options depend on the command line
        else:
            module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(chosen if chosen in COMMANDS else "", argv)
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
