"""Play a game in the terminal against bots.

You see the board as your seat may see it, the legal moves numbered with their names,
and every opponent's move as it is made. Bad input is asked again; "q" or end of input
(Ctrl-D) ends the game (exit code 0); Ctrl-C interrupts it (130).

Examples:
    choco play chocolates_v0
    choco play chocolatiers_v1 --players 3 --option edition=classic --opponents greedy mcts:simulations=200
    choco play le_chocolat_v0 --seat 1 --opponents ppo
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from choco_envs.cli.options import merge_players, parse_options
from choco_envs.core.errors import ChocoError
from choco_envs.core.outcomes import places, shared_with


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", help="env id, e.g. chocolates_v0 (see `choco list`)")
    parser.add_argument("--players", type=int, help="number of players (default: the game's)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 moves first (default 0)")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["greedy"],
        help="bot specs for the other seats, cycled (default greedy): random, greedy, "
        "mcts:simulations=400, ppo, policy:PATH",
    )
    parser.add_argument("--seed", type=int, help="seed of the deal")
    parser.add_argument(
        "--option", action="append", metavar="KEY=VALUE", help="game option (repeatable)"
    )


def play(
    env_id: str,
    options: dict[str, Any],
    seat: int,
    opponents: list[str],
    seed: int | None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> list[float]:
    """Run one game with a human at ``seat``; return the final scores. ``stdin`` and
    ``stdout`` default to the process's streams at call time."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    from choco_envs.bots import make as make_bot
    from choco_envs.bots.human import HumanBot
    from choco_envs.registry import make

    env = make(env_id, illegal_action="raise", **options)
    n = env.unwrapped.game.num_players
    if seat not in range(n):
        raise ChocoError(f"--seat {seat} is not allowed; seats are 0..{n - 1}")
    bots: dict[int, Any] = {}
    others = [p for p in range(n) if p != seat]
    for i, p in enumerate(others):
        bots[p] = make_bot(
            opponents[i % len(opponents)],
            env_id=env_id,
            seed=None if seed is None else seed + p,
            env_options=options,
        )
    human = HumanBot(input_stream=stdin, output_stream=stdout)
    env.reset(seed=seed)
    raw = env.unwrapped
    while not any(raw.terminations.values()):
        p = raw.agent_name_mapping[env.agent_selection]
        if p == seat:
            action = human.act(env)
        else:
            action = bots[p].act(env)
            print(
                f"{env.agent_selection} ({opponents[others.index(p) % len(opponents)]}): "
                f"{raw.action_to_string(action)}",
                file=stdout,
            )
        env.step(action)
    scores = raw.scores()
    print("\n=== game over ===", file=stdout)
    print(raw.game.state_to_string(raw.state_, seat), file=stdout)
    for part, values in raw.score_breakdown().items():
        print(f"{part:>16s}: " + "  ".join(f"{v:g}" for v in values), file=stdout)
    print(f"scores {scores}: {verdict(raw.game, raw.state_, seat)}", file=stdout)
    return scores


def verdict(game: Any, state: Any, seat: int) -> str:
    """Where ``seat`` finished, in words: its place, shared or not (the game's ranking:
    score, then its tie-breaks)."""
    keys = [game.ranking_key(state, p) for p in range(game.num_players)]
    place = 1 + places(keys)[seat]
    shared = shared_with(keys, seat)
    if game.num_players == 2:
        return "a draw" if shared else ("you win" if place == 1 else "you lose")
    text = f"{ordinal(place)} place of {game.num_players}"
    if shared:
        text = f"shared {text} (with {shared} other{'s' if shared > 1 else ''})"
    return f"you win: {text}" if place == 1 and not shared else f"you finish {text}"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def run(args: argparse.Namespace) -> int:
    from choco_envs.bots.human import Quit

    try:
        options = merge_players(parse_options(args.option, "--option"), args.players, "--option")
        play(args.env, options, args.seat, args.opponents, args.seed)
    except ChocoError as err:
        print(f"choco play: {err}", file=sys.stderr)
        return 2
    except Quit:
        print("\ngame abandoned (you quit)", file=sys.stderr)
        return 0
    except KeyboardInterrupt:
        print("\ngame abandoned", file=sys.stderr)
        return 130
    return 0
