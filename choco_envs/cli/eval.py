"""Run an arena: bots play each other with seats rotated and duplicate deals (every deal,
i.e. seed, is played once per rotation of the bots over the seats, so luck cancels).

With more bots than seats every group of bots meets on as many deals; with fewer, the
bots are repeated to fill the seats. The game count is rounded up to whole cycles.
Reports per bot: win rate with a 95% Wilson interval (a shared first place counts 1/k),
mean score, mean margin (own score minus the best other), Elo (a Bradley-Terry fit on all
games) and OpenSkill (when installed), and a head-to-head table.

Bot specs: random, mcts[:simulations=N,time=SECONDS,c=C,rollout=random|greedy],
policy:PATH, ppo (the env's shipped checkpoint), human, and the game's own kinds: greedy
(every game's beginner baseline) and those `choco list` shows for the env.

example:
  choco eval --env chocolates_v0 --bots greedy random --games 40 --seed 1
  choco eval --env le_chocolat_v0 --bots random greedy mcts:time=0.2 mcts:time=1 \\
      --games 48 --seed 1 --workers 2 --markdown ladder.md --plot ladder.png
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from choco_envs.cli.options import merge_players, parse_options
from choco_envs.core.errors import ChocoError, ConfigError


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``choco eval``."""
    parser.add_argument("--env", required=True, help="env id, e.g. chocolates_v0")
    parser.add_argument("--players", type=int, default=None, help="seats (default: the game's)")
    parser.add_argument("--bots", nargs="+", required=True, metavar="SPEC", help="bot specs")
    parser.add_argument("--games", type=int, default=20, help="games to play (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="arena seed (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument(
        "--env-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, e.g. --env-option edition=classic (repeatable)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the full report as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="write the tables as markdown")
    parser.add_argument("--plot", metavar="PATH", help="write a PNG plot (needs matplotlib)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this run."""
    parts = ["choco", "eval", "--env", args.env]
    if args.players is not None:
        parts += ["--players", str(args.players)]
    parts += ["--bots", *args.bots, "--games", str(args.games), "--seed", str(args.seed)]
    for item in args.env_option:
        parts += ["--env-option", item]
    if args.workers != 1:
        parts += ["--workers", str(args.workers)]
    return shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    """Play the arena, print the table, then write the files asked for (their folders are
    checked first, so that a long run is never lost to a bad path). 0 on success, 2 on a
    bad option."""
    from choco_envs.arena import report as reports
    from choco_envs.arena import run_arena

    try:
        check_output_paths(args)
        env_options = merge_players(
            parse_options(args.env_option, "--env-option"), args.players, "--env-option"
        )
        players = env_options.pop("num_players", None)
        workers = args.workers
        if "human" in [spec.partition(":")[0] for spec in args.bots] and workers != 1:
            print(
                "choco eval: a human plays at this terminal, so the games run in this "
                f"process (--workers {workers} ignored)",
                file=sys.stderr,
            )
            workers = 1
        report = run_arena(
            args.env,
            args.bots,
            players=players,
            games=args.games,
            seed=args.seed,
            env_options=env_options,
            workers=workers,
            progress=not args.quiet,
        )
    except ChocoError as err:
        print(f"choco eval: error: {err}", file=sys.stderr)
        return 2
    report["config"]["command"] = command_line(args)
    print(reports.to_text(report), flush=True)
    try:
        if args.json:
            reports.write_json(report, args.json)
        if args.markdown:
            with open(args.markdown, "w") as out:
                out.write(reports.to_markdown(report))
        if args.plot:
            reports.write_plot(report, args.plot)
    except OSError as err:
        print(f"choco eval: error: could not write {err.filename}: {err.strerror}", file=sys.stderr)
        return 1
    return 0


def check_output_paths(args: argparse.Namespace) -> None:
    """ConfigError before any game for an output file whose folder does not exist or is
    not writable, or a plot that is not a .png/.svg/.pdf."""
    from pathlib import Path

    for flag in ("json", "markdown", "plot"):
        value = getattr(args, flag)
        if not value:
            continue
        folder = Path(value).resolve().parent
        if Path(value).is_dir():
            raise ConfigError(f"--{flag} {value}: is a folder; give a file name")
        if not folder.is_dir() or not writable(folder):
            raise ConfigError(
                f"--{flag} {value}: folder {str(folder)!r} does not exist or is not writable"
            )
    if args.plot and Path(args.plot).suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ConfigError(f"--plot {args.plot}: allowed file types: .png, .svg, .pdf")
    if args.workers < 1:
        raise ConfigError(f"--workers {args.workers} is not allowed; allowed: an int >= 1")


def writable(folder: str | os.PathLike[str]) -> bool:
    """Whether a file can be created in ``folder`` (tried, then removed)."""
    import tempfile

    try:
        with tempfile.NamedTemporaryFile(dir=folder):
            return True
    except OSError:
        return False
