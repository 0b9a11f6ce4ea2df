"""How patience trades wins against random for wins against greedy in Chocolates.

    python training/chocolates_tradeoff.py                     # the table in checkpoints/README.md
    python training/chocolates_tradeoff.py --bots greedy:min_confidence=0.6 ppo --games 100 --plot t.png

The Chocolates greedy bot takes a prediction card only when its chosen side is right in
at least ``min_confidence`` of its sampled layouts (0.85 by default), and has settings
that change that need with the situation (docs/games/chocolates.md#bots). This script
plays bots (by default the greedy bot at several settings, and the shipped policy
``ppo``) against ``random`` and against the baseline ``greedy`` in the arena (2 players,
seats rotated, duplicate deals) and prints one row per bot. Low settings rush: they take
cards early, end the game before greedy has collected, and lose more often to random's
lucky cards; high settings wait for near-certain cards, which beats random and loses the
race against greedy. The issue's targets ask for both (>= 95% against random, >= 60%
against greedy); the adaptive plan (``greedy:adaptive=1``) reads which kind of opponent it
faces and plays the side of the trade-off that beats it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ENV_ID = "chocolates_v0"
DEFAULT_BOTS = [
    *(f"greedy:min_confidence={c}" for c in (0.6, 0.7, 0.8, 0.85, 0.9, 0.95)),
    "greedy:min_confidence=0.9,near_end_confidence=0.7,final_confidence=0.5",
    "greedy:min_confidence=0.8,ahead_confidence=0.9,near_end_confidence=0.7,final_confidence=0.5",
    "greedy:adaptive=1",
    "ppo",
]


def rates(entrant: Any, opponent: str, games: int, seed: int, workers: int) -> dict[str, Any]:
    """The win rate (with its 95% interval) of ``entrant`` against ``opponent``."""
    from choco_envs.arena import run_arena

    report = run_arena(
        ENV_ID, [entrant, opponent], players=2, games=games, seed=seed, workers=workers,
        progress=False,
    )  # fmt: skip
    row = report["bots"][0]
    return {"win_rate": row["win_rate"], "ci95": row["win_rate_ci95"], "games": row["games"]}


SHORT = {
    "min_confidence": "min",
    "ahead_confidence": "ahead",
    "ahead_margin": "margin",
    "near_end_confidence": "near",
    "final_confidence": "final",
}


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """Each bot's win rate against random (x) and greedy (y), with the two targets."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5))
    labelled: dict[tuple[float, float], int] = {}  # points already labelled, and how often
    for row in rows:
        x, y = 100 * row["random"]["win_rate"], 100 * row["greedy"]["win_rate"]
        label = row["player"].removeprefix("greedy:")
        for long, short in SHORT.items():
            label = label.replace(long, short)
        ax.scatter(x, y, color="k" if row["player"].startswith("greedy") else "tab:red")
        below = labelled.get((x, y), 0)  # a bot on the same point: its label goes below
        labelled[(x, y)] = below + 1
        ax.annotate(
            label, (x, y), fontsize=7, xytext=(4, 3 - 10 * below), textcoords="offset points"
        )
    ax.axvline(95, ls="--", color="grey", label="targets: 95% vs random, 60% vs greedy")
    ax.axhline(60, ls="--", color="grey")
    ax.set_xlim(right=max(97.0, ax.get_xlim()[1]))
    ax.set_xlabel("win rate vs random (%)")
    ax.set_ylabel("win rate vs greedy (%)")
    ax.set_title("Chocolates, 2 players: greedy settings and the shipped policy (red)")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", nargs="+", default=DEFAULT_BOTS, help="bot specs")
    parser.add_argument("--games", type=int, default=300, help="games per pairing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the rows as JSON")
    parser.add_argument("--plot", type=Path, help="write a PNG of the trade-off")
    args = parser.parse_args(argv)
    from choco_envs.bots import make
    from choco_envs.core.errors import ConfigError

    for spec in args.bots:  # every spec checked before any game
        try:
            make(spec, env_id=ENV_ID)
        except ConfigError as err:
            parser.error(str(err))
    rows = []
    print("| player | vs random | vs greedy |\n|---|---|---|")
    for entrant in args.bots:
        label = f"`{entrant}`"
        row: dict[str, Any] = {"player": entrant}
        for opp in ("random", "greedy"):
            row[opp] = rates(entrant, opp, args.games, args.seed, args.workers)
        rows.append(row)
        cells = [
            f"{100 * row[o]['win_rate']:.1f}% [{100 * row[o]['ci95'][0]:.1f}, "
            f"{100 * row[o]['ci95'][1]:.1f}]"
            for o in ("random", "greedy")
        ]
        print(f"| {label} | {cells[0]} | {cells[1]} |", flush=True)
    print(f"({args.games} games a pairing, seed {args.seed}: {' '.join(sys.argv)})")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    if args.plot:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
