"""Settings of the Chocolatiers greedy bot against the baseline greedy.

    python training/chocolatiers_greedy_tuning.py                  # the table in checkpoints/README.md
    python training/chocolatiers_greedy_tuning.py --edition standard --games 400 \\
        --bots greedy:used_cost=0.8 greedy:contest=10

The greedy bot (``choco_envs/games/chocolatiers/greedy.py``) declares settings: the
points a card used and a card missing cost when it values a tile (``used_cost``,
``missing_cost``), and how much it weighs the Score tiles won or lost when it chooses where
a tile (``contest``) or a wild (``wild_contest``) goes. This script plays each bot spec
against the baseline ``greedy`` in the arena (2 players, seats rotated, duplicate deals)
and prints one row per spec: the search that chose the settings named ``STRONG`` (one
setting at a time, then the best together), whose result is the teacher of
``configs/chocolatiers_v1/ppo_*_strong_imitate.yaml``. Measure a chosen setting again on
other deals (``--seed``): the best of several rows on the same deals is biased upwards.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ENV_ID = "chocolatiers_v1"
DEFAULT_BOTS = [
    "greedy:used_cost=0.8",
    "greedy:used_cost=1.2",
    "greedy:missing_cost=1.5",
    "greedy:missing_cost=4",
    "greedy:contest=10",
    "greedy:wild_contest=1",
    "greedy:wild_contest=1,contest=10",
    "greedy:used_cost=0.8,contest=10,wild_contest=1",
    "greedy:used_cost=1.2,contest=10,wild_contest=1",
    "greedy:used_cost=1.6,contest=10,wild_contest=1",
]


def against_greedy(spec: str, edition: str, games: int, seed: int, workers: int) -> dict[str, Any]:
    """``spec``'s win rate (95% interval) and mean margin against the baseline greedy."""
    from choco_envs.arena import run_arena

    report = run_arena(
        ENV_ID, [spec, "greedy"], players=2, games=games, seed=seed, workers=workers,
        progress=False, env_options={"edition": edition},
    )  # fmt: skip
    row = report["bots"][0]
    return {
        "player": spec,
        "edition": edition,
        "win_rate": row["win_rate"],
        "ci95": row["win_rate_ci95"],
        "mean_margin": row["mean_margin"],
        "games": row["games"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", nargs="+", default=DEFAULT_BOTS, help="bot specs")
    parser.add_argument(
        "--edition", nargs="+", default=["classic", "standard"], choices=["classic", "standard"]
    )
    parser.add_argument("--games", type=int, default=1000, help="games per row")
    parser.add_argument("--seed", type=int, default=0, help="arena seed (the deals)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the rows as JSON")
    args = parser.parse_args(argv)
    from choco_envs.bots import make
    from choco_envs.core.errors import ConfigError

    if args.games < 2:
        parser.error(f"--games {args.games}: allowed: 2 or more (one deal, both seats)")
    for spec in args.bots:  # every spec checked before any game
        try:
            make(spec, env_id=ENV_ID)
        except ConfigError as err:
            parser.error(str(err))
    rows = []
    print("| edition | player | vs greedy | mean margin |\n|---|---|---|---|")
    for edition in args.edition:
        for spec in args.bots:
            row = against_greedy(spec, edition, args.games, args.seed, args.workers)
            rows.append(row)
            lo, hi = row["ci95"]
            print(
                f"| {edition} | `{spec}` | {100 * row['win_rate']:.1f}% "
                f"[{100 * lo:.1f}, {100 * hi:.1f}] | {row['mean_margin']:+.2f} |",
                flush=True,
            )
    print(f"({args.games} games a row, seed {args.seed}: {' '.join(sys.argv)})")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
