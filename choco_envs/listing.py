"""List the registered envs with their player counts, options, action/observation sizes and
the bot kinds each offers."""

from __future__ import annotations

import argparse

from choco_envs.bots.registry import kinds
from choco_envs.registry import REGISTRY, available, game_class


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")


def run(args: argparse.Namespace) -> int:
    rows = []
    for env_id in REGISTRY:
        if not available(env_id):
            rows.append((env_id, "-", "(not built yet)", "-", "-", "-"))
            continue
        cls = game_class(env_id)
        spec = cls.spec
        game = cls()
        options = ", ".join(
            f"{o.name}={o.default!r}"
            + (f" ({'|'.join(map(repr, o.allowed))})" if o.allowed and len(o.allowed) <= 4 else "")
            for o in spec.options
        )
        shapes = ", ".join(f"{n} {e.shape}" for n, e in game.encoders.items())
        rows.append(
            (
                env_id,
                f"{spec.min_players}-{spec.max_players}",
                options or "-",
                str(game.num_actions),
                shapes,
                ", ".join(kinds(env_id)),
            )
        )
    if args.markdown:
        print("| env id | players | options | actions | observations | bots |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for env_id, players, options, actions, shapes, bots in rows:
            print(f"{env_id:24s} players {players:5s} actions {actions:5s} obs {shapes}")
            print(f"{'':24s} options: {options}")
            print(f"{'':24s} bots: {bots}")
    return 0
