"""Evaluation of a network against a bot: duplicate deals, seats rotated, the network
playing its most likely legal move (argmax) on the policy input it was trained on.

Each deal is played once with the network in every seat and the bot in all the others
(so ``games`` is rounded down to a multiple of the player count). A win is a sole first
place. The result, stored in a checkpoint's ``arena`` metadata per opponent:

| key | meaning |
|---|---|
| ``win_rate``, ``draw_rate``, ``loss_rate`` | shares of the games (a draw: two players tied) |
| ``win_rate_ci95`` | the 95% Wilson interval of the win rate |
| ``mean_return`` | the mean rank-based return of the network's seat |
| ``games`` | games played |
| ``opponent``, ``seed`` | what it played, and the seed of the deals |

The opponent is any bot spec of ``choco_envs.bots.make``, another checkpoint included
(``policy:PATH``: a head-to-head).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from choco_envs.arena.stats import wilson_interval
from choco_envs.train.games import LEARNER, GameVec

#: at most this many games are played at once (memory); more are played in turn
MAX_PARALLEL = 512


def greedy_actions(model: Any, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The most likely legal action of every row of policy inputs ``x``."""
    import torch

    with torch.no_grad():
        logits, _ = model(torch.from_numpy(x), torch.from_numpy(mask))
    return logits.argmax(-1).numpy()


def evaluate(
    model: Any,
    env_id: str,
    options: dict[str, Any],
    encoder: str,
    opponent: str,
    games: int,
    seed: int,
    feature: str = "",
    progress: Callable[[int], None] | None = None,
    max_players: int = 0,
    mode_marks: dict[str, list[Any]] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games of ``model`` against ``opponent`` in every other seat (see
    the module docstring); ``progress`` is called with the number of games finished;
    ``max_players``: the model reads the seat-padded input of that many seats (and
    ``mode_marks``: the table's value of those options)."""
    from choco_envs.registry import make_game

    n = make_game(env_id, **options).num_players
    games = max(n, games - games % n)
    seat_of = [g % n for g in range(games)]
    results: dict[int, float] = {}
    chunk = n * max(1, MAX_PARALLEL // n)  # games in play at once
    for first in range(0, games, chunk):
        block = list(range(first, min(games, first + chunk)))
        order = iter(block)

        def roles(
            num_players: int, rng: random.Random, order: Any = order, again: int = first
        ) -> list[int]:
            g = next(order, again)  # a game started after the block's own replays a deal
            return [LEARNER if p == seat_of[g] else 0 for p in range(num_players)]

        deal_seeds = [seed + g // n for g in block]
        vec = GameVec(
            env_id, options, encoder, len(block), seed + first, roles, [opponent], deal_seeds,
            0.0, feature, max_players, mode_marks,
        )  # fmt: skip
        dec = vec.reset()
        while not all(g in results for g in block):
            dec = vec.step(greedy_actions(model, dec.obs, dec.mask))
            before = len(results)
            for i, ret, _ in dec.finished:
                results.setdefault(block[i], ret[seat_of[block[i]]])
            if progress is not None and len(results) > before:
                progress(len(results))
    values = np.array([results[i] for i in range(games)])
    return summary(values, n, opponent, seed)


def summary(values: np.ndarray, num_players: int, opponent: str, seed: int) -> dict[str, Any]:
    """The stored result (module docstring) of the returns ``values`` of one seat over
    its games: a win is a sole first place."""
    games = len(values)
    wins = int(np.sum(values >= 1.0 - 1e-9))
    low, high = wilson_interval(wins, games)
    return {
        "win_rate": wins / games,
        "win_rate_ci95": [round(low, 4), round(high, 4)],
        "draw_rate": float(np.mean(np.abs(values) < 1e-9)) if num_players == 2 else 0.0,
        "loss_rate": float(np.mean(values <= -1.0 + 1e-9)),
        "mean_return": float(values.mean()),
        "games": games,
        "opponent": opponent,
        "seed": seed,
    }


# ---------------------------------------------------------------- every table of a file
def evaluate_tables(
    path: str,
    games: int,
    seed: int,
    opponents: tuple[str, ...] = ("random", "greedy"),
    counts: tuple[int, ...] = (),
    progress: bool = False,
) -> list[dict[str, Any]]:
    """A policy file for many tables (``seats`` in its metadata) against each opponent
    in every other seat, at each player count and mode combination it covers (or only
    ``counts``): one row per table and opponent, each with its par (1 / players)."""
    import itertools

    from choco_envs.core.errors import ConfigError
    from choco_envs.policy.checkpoint import load_policy

    model, meta = load_policy(path)
    seats = meta.get("seats")
    if not isinstance(seats, dict):
        raise ConfigError(
            f"{path!r} plays one table ({meta['options']}); evaluate it with choco eval"
        )
    feature = (meta.get("features") or {}).get("name", "")
    keys = sorted(seats["modes"])
    rows = []
    for n in counts or tuple(seats["player_counts"]):
        for combo in itertools.product(*(seats["modes"][k] for k in keys)):
            table = {**meta["options"], "num_players": n, **dict(zip(keys, combo, strict=True))}
            for opponent in opponents:
                result = evaluate(
                    model, meta["env_id"], table, meta["encoder"], opponent, games, seed,
                    feature=feature, max_players=seats["max_players"],
                    mode_marks=seats["modes"] if seats.get("mode_marks") else None,
                )  # fmt: skip
                row = {"table": table, "par": 1.0 / n, **result}
                rows.append(row)
                if progress:
                    print(table_row(row), flush=True)
    return rows


def table_row(row: dict[str, Any]) -> str:
    """One markdown row: players, modes, opponent, win rate [95%], games, par."""
    table = row["table"]
    modes = ", ".join(f"{k}={v}" for k, v in sorted(table.items()) if k != "num_players")
    low, high = row["win_rate_ci95"]
    return (
        f"| {table['num_players']} | {modes} | {table['num_players'] - 1} x {row['opponent']} | "
        f"{row['win_rate']:.1%} [{low:.1%}, {high:.1%}] | {row['games']} | {row['par']:.1%} |"
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m choco_envs.train.evaluate FILE``: a file for many tables at each of
    them (markdown rows on stdout; ``--json PATH`` keeps them)."""
    import argparse
    import json
    import sys

    from choco_envs.core.errors import ChocoError

    parser = argparse.ArgumentParser(prog="python -m choco_envs.train.evaluate",
                                     description=main.__doc__)  # fmt: skip
    parser.add_argument("file", help="a policy file trained on many tables (player_counts)")
    parser.add_argument("--games", type=int, default=400, help="games per table and opponent")
    parser.add_argument("--seed", type=int, default=424_242, help="seed of the deals")
    parser.add_argument("--opponents", nargs="+", default=["random", "greedy"])
    parser.add_argument("--counts", nargs="*", type=int, default=[], help="only these counts")
    parser.add_argument("--json", help="write the rows as JSON here")
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    print("| players | modes | opponents | win rate [95%] | games | par |")
    print("|---|---|---|---|---|---|")
    try:
        rows = evaluate_tables(
            ns.file, ns.games, ns.seed, tuple(ns.opponents), tuple(ns.counts), progress=True
        )
    except ChocoError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
