"""Sweep the Chocolatiers greedy heuristic's settings at one table against N-1 baseline greedy.

Each setting plays the same deals (``--seed``), seats rotated, so two rows differ only by
the setting; a row is the swept bot's win share (par 1 / N) with its 95% interval and mean
margin. A setting is given as JSON overrides of ``greedy.TUNED`` (the ``tuned`` kind); with
none, the one-at-a-time variations of each setting around ``TUNED`` are played.

    python experiments/chocolatiers_settings_sweep.py --players 4 --games 800
    python experiments/chocolatiers_settings_sweep.py --players 3 --games 800 \
        '{}' '{"missing_cost": 4}'

Each row is also one ``choco eval`` command (printed beside it). Results: docs/results.md,
"A better setting of the Chocolatiers heuristic".
"""

from __future__ import annotations

import argparse
import json
import time

from choco_envs.arena import run_arena
from choco_envs.bots.chocolatiers.greedy import TUNED

VARIATIONS: list[dict[str, float]] = [
    {},
    *({"used_cost": v} for v in (0.8, 1.6, 2.0)),
    *({"missing_cost": v} for v in (1.5, 4.0, 6.0)),
    *({"contest": v} for v in (5.0, 20.0, 40.0)),
    *({"wild_contest": v} for v in (0.0, 3.0, 10.0)),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--edition", default="standard", choices=["standard", "classic"])
    parser.add_argument(
        "settings", nargs="*", help="JSON overrides of TUNED, e.g. '{\"missing_cost\": 4}'"
    )
    args = parser.parse_args()
    variations = [json.loads(text) for text in args.settings] or VARIATIONS
    for overrides in variations:
        settings = {**TUNED, **overrides}
        spec = "greedy:" + ",".join(f"{k}={v:g}" for k, v in settings.items())
        bots = [spec] + ["greedy"] * (args.players - 1)
        start = time.time()
        report = run_arena(
            "chocolatiers_v1",
            bots,
            players=args.players,
            games=args.games,
            seed=args.seed,
            env_options={"edition": args.edition},
            progress=False,
        )
        row = report["bots"][0]
        low, high = (100 * x for x in row["win_rate_ci95"])
        print(
            f"{args.players}p {args.edition} {overrides or 'tuned'}: {100 * row['win_rate']:.1f}% "
            f"[{low:.1f}, {high:.1f}], margin {row['mean_margin']:+.2f} ({time.time() - start:.0f} s); "
            f"choco eval --env chocolatiers_v1 --env-option edition={args.edition} "
            f"--players {args.players} --bots {' '.join(bots)} --games {args.games} --seed {args.seed}",
            flush=True,
        )


if __name__ == "__main__":
    main()
