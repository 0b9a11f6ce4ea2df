"""List the registered envs with their player counts, options (the game's, then the env's
own, which every game takes), action/observation sizes and the bot kinds each offers."""

from __future__ import annotations

import argparse
from typing import Any

from choco_envs.bots.registry import kinds
from choco_envs.core.env import ILLEGAL_ACTION_MODES, RENDER_MODES, REWARD_MODES
from choco_envs.registry import REGISTRY, available, game_class


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")


def env_options(game: Any) -> str:
    """The env's own options (``ENV_OPTIONS``) for ``game``: default (allowed values)."""
    choices = {
        "observation": ("'flat'", [repr(e) for e in game.encoders]),
        "illegal_action": ("'terminate'", [repr(m) for m in ILLEGAL_ACTION_MODES]),
        "reward_mode": ("'win'", [repr(m) for m in REWARD_MODES]),
        "render_mode": ("None", ["None", *(repr(m) for m in RENDER_MODES)]),
        "render_player": ("None", ["None", "a seat"]),
    }
    return ", ".join(f"{k}={d} ({'|'.join(a)})" for k, (d, a) in choices.items())


def run(args: argparse.Namespace) -> int:
    rows = []
    for env_id in REGISTRY:
        if not available(env_id):
            rows.append((env_id, "-", "(not built yet)", "-", "-", "-", "-"))
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
                env_options(game),
                str(game.num_actions),
                shapes,
                ", ".join(kinds(env_id)),
            )
        )
    if args.markdown:
        print("| env id | players | options | env options | actions | observations | bots |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for env_id, players, options, env_opts, actions, shapes, bots in rows:
            print(f"{env_id:24s} players {players:5s} actions {actions:5s} obs {shapes}")
            print(f"{'':24s} options: {options}")
            print(f"{'':24s} env options: {env_opts}")
            print(f"{'':24s} bots: {bots}")
    return 0
