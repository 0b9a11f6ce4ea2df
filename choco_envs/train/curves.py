"""Learning curves of a training run: each evaluation against the fixed bots, by wall time
and by how much was trained, as a win rate and as the Elo difference it implies
(:func:`elo`). Kept in the run folder as ``curve.json`` (rewritten after every point, so
a stopped run keeps its curve), drawn as ``curve.png`` at the end, and stored in the
files a run writes (``training["curve"]``: ``{"unit", "points"}``), so a shipped file
carries its curve (``choco ship --curves DIR`` draws it).

Both engines write them: ``az`` a point per evaluation (x: self-play games), ``ppo`` a
point per imitation round's screen, per periodic evaluation and for the final one (x: env
steps). A resumed run continues the curve of its folder."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

#: the clamp of a win rate whose games count is unknown (so 0% and 100% stay finite)
UNKNOWN_GAMES_CLAMP = 0.01
#: what a curve's unit counts, as the plot names it
UNIT_NAMES = {"games": "self-play games", "steps": "env steps"}


def elo(win_rate: float, games: float | None = None) -> float:
    """The Elo difference to a fixed bot implied by ``win_rate`` against it:
    ``400 * log10(p / (1 - p))``, ``p`` the win rate clamped to ``[0.5/games,
    1 - 0.5/games]`` when the games count is known (else to ``[0.01, 0.99]``) so that 0%
    and 100% stay finite (0.5: 0; 0.75: +190.8; 0 of 400 games: -1,161.0; 0%, games unknown: -798.3). The
    two-player formula: at a table of more players the even share is 1/players, not 0."""
    low = 0.5 / games if games else UNKNOWN_GAMES_CLAMP
    p = min(max(float(win_rate), low), 1.0 - low)
    return 400.0 * math.log10(p / (1.0 - p))


def with_elo(point: dict[str, Any]) -> dict[str, Any]:
    """``point`` with its ``elo`` (computed from its win rates, games count unknown, where
    a point written before Elo was kept has none)."""
    if isinstance(point.get("elo"), dict):
        return point
    rates = point.get("win_rate") or {}
    return {**point, "elo": {k: round(elo(v), 1) for k, v in rates.items()}}


def checked_points(loaded: Any, where: str) -> list[dict[str, Any]]:
    """``loaded`` as curve points (each with its ``elo``); ValueError naming ``where``."""
    ok = isinstance(loaded, list) and all(
        isinstance(p, dict) and isinstance(p.get("minutes"), (int, float))
        and isinstance(p.get("win_rate"), dict)
        for p in loaded
    )  # fmt: skip
    if not ok:
        raise ValueError(f"{where}: not a list of curve points")
    return [with_elo(p) for p in loaded]


def stored_curve(meta: dict[str, Any]) -> dict[str, Any] | None:
    """The curve a policy file stores (``training["curve"]``: ``{"unit", "points"}``,
    each point with its ``elo``), or None for a file without one (trained before curves
    were kept, or with no evaluation)."""
    training = meta.get("training")
    curve = training.get("curve") if isinstance(training, dict) else None
    if not isinstance(curve, dict) or not curve.get("points"):
        return None
    try:
        points = checked_points(curve["points"], "the file's training.curve")
    except ValueError:
        return None
    return {"unit": str(curve.get("unit", "")), "points": points}


class Curve:
    """Points ``{"minutes", <unit>, "win_rate": {opponent: rate}, "elo": {opponent:
    Elo difference}, "phase"}`` in order."""

    def __init__(self, run_dir: Path, unit: str, resume_from: Path | None = None) -> None:
        """Write to ``run_dir``/curve.json; ``resume_from``: a resumed file, whose folder's
        curve (when there is one) this one continues."""
        self.path = Path(run_dir) / "curve.json"
        self.unit = unit
        self.points: list[dict[str, Any]] = []
        before = None if resume_from is None else Path(resume_from).with_name("curve.json")
        if before is not None and before.is_file():
            try:
                self.points = checked_points(json.loads(before.read_text()), str(before))
            except ValueError as err:
                raise ValueError(f"{err}; delete it to restart") from None

    def add(
        self,
        minutes: float,
        amount: int,
        win_rates: dict[str, float],
        phase: str,
        games: int | dict[str, int] | None = None,
    ) -> None:
        """One evaluation: its win rate against each bot, ``amount`` in the curve's unit;
        ``games``: the games played against each bot (one count for all, or per bot),
        which bounds the Elo of 0% and 100% (:func:`elo`)."""
        counts = games if isinstance(games, dict) else {k: games for k in win_rates}
        self.points.append(
            {
                "minutes": round(minutes, 2),
                self.unit: int(amount),
                "win_rate": {k: float(v) for k, v in win_rates.items()},
                "elo": {k: round(elo(v, counts.get(k)), 1) for k, v in win_rates.items()},
                "phase": phase,
            }
        )
        self.path.write_text(json.dumps(self.points, indent=1))

    def stored(self) -> dict[str, Any]:
        """What a file stores of the curve so far (``training["curve"]``)."""
        return {"unit": self.unit, "points": list(self.points)}

    def plot(self, path: Path, title: str) -> None:
        """Win rate and Elo against each bot over training minutes (a PNG); nothing
        without points."""
        if not self.points:
            return
        plot_curve(self.points, path, title, self.unit)


def plot_curve(points: list[dict[str, Any]], path: Path, title: str, unit: str = "") -> None:
    """Draw ``points`` (:class:`Curve`'s; those without ``elo`` get it from their win
    rates) as two panels over training minutes, one line per bot: the win rate against
    it, and the Elo difference to it. ``unit`` (games, steps): the x note names how much
    was trained by the last point. 8 x 3.5 inches at 100 dpi."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = [with_elo(p) for p in points]
    fig, (rate_ax, elo_ax) = plt.subplots(1, 2, figsize=(8, 3.5))
    opponents = sorted({k for row in points for k in row.get("win_rate", {})})
    for opp in opponents:
        rows = [row for row in points if opp in row.get("win_rate", {})]
        xs = [row["minutes"] for row in rows]
        rate_ax.plot(xs, [row["win_rate"][opp] for row in rows], marker="o", label=f"vs {opp}")
        elo_ax.plot(xs, [row["elo"].get(opp, elo(row["win_rate"][opp])) for row in rows],
                    marker="o", label=f"vs {opp}")  # fmt: skip
    last = points[-1].get(unit) if unit else None
    named = UNIT_NAMES.get(unit, unit)
    xlabel = "training minutes" + (f" ({last:,} {named} at the last point)" if last else "")
    rate_ax.set_ylabel("win rate of the network alone")
    rate_ax.set_ylim(0, 1)
    elo_ax.set_ylabel("Elo difference to the bot")
    elo_ax.axhline(0.0, color="grey", linewidth=0.8)
    for ax in (rate_ax, elo_ax):
        ax.set_xlabel(xlabel, fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
