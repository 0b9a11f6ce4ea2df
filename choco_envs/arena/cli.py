"""Run an arena: bots play each other with seats rotated and duplicate deals (every deal,
i.e. seed, is played once per rotation of the bots over the seats, so luck cancels).

With more bots than seats every group of bots meets on as many deals; with fewer, the
bots are repeated to fill the seats. The game count is rounded up to whole cycles.
Reports per bot: win rate with a 95% Wilson interval (a shared first place counts 1/k),
mean score, mean margin (own score minus the best other), Elo (a Bradley-Terry fit on all
games) and OpenSkill (when installed), and a head-to-head table.

Bot specs: random, greedy[:SETTING=V,...] (settings a game's heuristic declares, e.g.
Chocolates' min_confidence), mcts[:simulations=N,time=SECONDS,c=C,rollout=random|greedy],
policy:PATH, ppo (the env's shipped checkpoint), human.

example:
  choco eval --env chocolates_v0 --bots greedy random --games 40 --seed 1
  choco eval --env le_chocolat_v0 --bots random greedy mcts:time=0.2 mcts:time=1 \\
      --games 48 --seed 1 --workers 2 --markdown ladder.md --plot ladder.png
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

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


def parse_env_options(items: list[str]) -> dict[str, Any]:
    """``["k=v", ...]`` -> {k: value}, values read as int, float, bool, none or text."""
    from choco_envs.bots.registry import parse_literal

    options: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"--env-option {item!r} is not allowed; use KEY=VALUE")
        options[key.strip()] = parse_literal(value.strip())
    return options


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
    """Play the arena, print the table, write the files asked for. 0 on success, 2 on a
    bad option."""
    from choco_envs.arena import report as reports
    from choco_envs.arena import run_arena

    try:
        report = run_arena(
            args.env,
            args.bots,
            players=args.players,
            games=args.games,
            seed=args.seed,
            env_options=parse_env_options(args.env_option),
            workers=args.workers,
            progress=not args.quiet,
        )
    except ChocoError as err:
        print(f"choco eval: error: {err}", file=sys.stderr)
        return 2
    report["config"]["command"] = command_line(args)
    if args.json:
        reports.write_json(report, args.json)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(reports.to_markdown(report))
    if args.plot:
        reports.write_plot(report, args.plot)
    print(reports.to_text(report))
    return 0
