"""Learning curves of a training run: each evaluation against the fixed bots, by wall time
and by how much was trained, kept in the run folder as ``curve.json`` (rewritten after
every point, so a stopped run keeps its curve) and drawn as ``curve.png`` at the end.

Both engines write them: ``az`` a point per evaluation (x: self-play games), ``ppo`` a
point per imitation round's screen, per periodic evaluation and for the final one (x: env
steps). A resumed run continues the curve of its folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class Curve:
    """Points ``{"minutes", <unit>, "win_rate": {opponent: rate}, "phase"}`` in order."""

    def __init__(self, run_dir: Path, unit: str, resume_from: Path | None = None) -> None:
        """Write to ``run_dir``/curve.json; ``resume_from``: a resumed file, whose folder's
        curve (when there is one) this one continues."""
        self.path = Path(run_dir) / "curve.json"
        self.unit = unit
        self.points: list[dict[str, Any]] = []
        before = None if resume_from is None else Path(resume_from).with_name("curve.json")
        if before is not None and before.is_file():
            loaded = json.loads(before.read_text())
            if not isinstance(loaded, list) or not all(isinstance(p, dict) for p in loaded):
                raise ValueError(f"{before}: not a list of curve points; delete it to restart")
            self.points = loaded

    def add(self, minutes: float, amount: int, win_rates: dict[str, float], phase: str) -> None:
        """One evaluation: its win rate against each bot, ``amount`` in the curve's unit."""
        self.points.append(
            {
                "minutes": round(minutes, 2),
                self.unit: int(amount),
                "win_rate": {k: float(v) for k, v in win_rates.items()},
                "phase": phase,
            }
        )
        self.path.write_text(json.dumps(self.points, indent=1))

    def plot(self, path: Path, title: str) -> None:
        """Win rate against each bot over training minutes (a PNG); nothing without points."""
        if not self.points:
            return
        plot_curve(self.points, path, title)


def plot_curve(points: list[dict[str, Any]], path: Path, title: str) -> None:
    """Draw ``points`` (:class:`Curve`'s) as win rate against each bot over minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    opponents = sorted({k for row in points for k in row.get("win_rate", {})})
    for opp in opponents:
        xs = [row["minutes"] for row in points if opp in row.get("win_rate", {})]
        ys = [row["win_rate"][opp] for row in points if opp in row.get("win_rate", {})]
        ax.plot(xs, ys, marker="o", label=f"network alone vs {opp}")
    ax.set_xlabel("training minutes")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
