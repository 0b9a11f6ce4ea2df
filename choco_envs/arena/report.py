"""Arena reports: the terminal table, markdown, JSON and a PNG plot (matplotlib is
imported only when a plot is asked for)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

COLUMNS = (
    "bot",
    "games",
    "win rate",
    "95% CI",
    "mean score",
    "mean margin",
    "Elo",
    "OpenSkill",
    "s/move",
)


def ranked(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The bots, strongest first by Elo: the Bradley-Terry fit does not depend on the
    order of the games, unlike OpenSkill's game-by-game updates."""
    return sorted(report["bots"], key=lambda row: float(row["elo"]), reverse=True)


def table_rows(report: dict[str, Any]) -> list[list[str]]:
    """One row of formatted cells per bot, strongest first."""
    rows = []
    for row in ranked(report):
        low, high = row["win_rate_ci95"]
        skill = row.get("openskill")
        rows.append(
            [
                row["name"],
                str(row["games"]),
                f"{row['win_rate']:.3f}",
                f"[{low:.3f}, {high:.3f}]",
                f"{row['mean_score']:.2f}",
                f"{row['mean_margin']:+.2f}",
                f"{row['elo']:.0f}",
                f"{skill['mu']:.1f} +- {skill['sigma']:.1f}" if skill else "-",
                f"{row['seconds_per_move']:.3f}",
            ]
        )
    return rows


def headline(report: dict[str, Any]) -> str:
    c = report["config"]
    return (
        f"{c['env']}, {c['players']} players, {report['games_played']} games "
        f"({c['deals']} deals x every seat rotation), seed {c['seed']}"
    )


def to_text(report: dict[str, Any]) -> str:
    """An aligned plain-text table for the terminal."""
    rows = [list(COLUMNS), *table_rows(report)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    lines = [headline(report)]
    for k, r in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines += ["", "head to head (row's win rate against column):", *_head_to_head_text(report)]
    return "\n".join(lines)


def _head_to_head_text(report: dict[str, Any]) -> list[str]:
    names = [r["name"] for r in ranked(report)]
    h2h = report["head_to_head"]
    width = max(len(n) for n in names)
    lines = [" " * width + "  " + "  ".join(n.rjust(max(len(n), 5)) for n in names)]
    for a in names:
        cells = [_rate(h2h[a].get(b)) if a != b else "-" for b in names]
        padded = [c.rjust(max(len(b), 5)) for c, b in zip(cells, names, strict=True)]
        lines.append(a.ljust(width) + "  " + "  ".join(padded))
    return lines


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def to_markdown(report: dict[str, Any]) -> str:
    """The same table, and the head-to-head table, as markdown."""
    lines = [f"**{headline(report)}**", ""]
    lines.append("| " + " | ".join(COLUMNS) + " |")
    lines.append("|" + "---|" * len(COLUMNS))
    lines += ["| " + " | ".join(r) + " |" for r in table_rows(report)]
    names = [r["name"] for r in ranked(report)]
    h2h = report["head_to_head"]
    lines += ["", "Head to head (row's win rate against column):", ""]
    lines.append("| | " + " | ".join(f"`{n}`" for n in names) + " |")
    lines.append("|---|" + "---|" * len(names))
    for a in names:
        cells = [_rate(h2h[a].get(b)) if a != b else "-" for b in names]
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    if report["config"].get("command"):
        lines += ["", f"Command: `{report['config']['command']}`"]
    return "\n".join(lines) + "\n"


def write_json(report: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(report, indent=2) + "\n")


def write_plot(report: dict[str, Any], path: str | Path) -> None:
    """Win rates with their 95% intervals, and Elo ratings, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(reversed(ranked(report)))
    names = [r["name"] for r in rows]
    rates = [r["win_rate"] for r in rows]
    errors = [
        [max(0.0, r["win_rate"] - r["win_rate_ci95"][0]) for r in rows],
        [max(0.0, r["win_rate_ci95"][1] - r["win_rate"]) for r in rows],
    ]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 1.2 + 0.5 * len(rows)), sharey=True)
    left.barh(names, rates, xerr=errors, color="#8b5a2b", capsize=4)
    left.set_xlim(0, 1)
    left.axvline(1 / report["config"]["players"], color="grey", linestyle=":")
    left.set_xlabel("win rate (95% Wilson interval)")
    right.barh(names, [r["elo"] for r in rows], color="#d2a679")
    right.set_xlabel("Elo (Bradley-Terry fit, mean 1500)")
    right.set_xlim(min(r["elo"] for r in rows) - 100, max(r["elo"] for r in rows) + 100)
    fig.suptitle(headline(report), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
