"""Arena statistics: Wilson intervals, a Bradley-Terry (Elo-scale) fit for any number of
players, OpenSkill ratings when the package is installed, and per-bot summaries."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from choco_envs.core.outcomes import margin

#: z for a two-sided 95% interval
Z95 = 1.959963984540054
ELO_BASE = 1500.0


@dataclass
class GameResult:
    """One finished game: which entrant sat in each seat and how each seat did."""

    index: int
    deal: int
    rotation: int
    env_seed: int
    seats: list[int]  # entrant index per seat
    scores: list[float]
    places: list[int]  # 0 = first; tied seats share the better place
    steps: int
    seconds: float
    moves: list[int] = field(default_factory=list)  # decisions per seat
    think_seconds: list[float] = field(default_factory=list)  # time spent choosing, per seat

    def win_share(self, seat: int) -> float:
        """1 for a sole winner, 1/k when k seats share first place, else 0."""
        if self.places[seat] != 0:
            return 0.0
        return 1.0 / sum(1 for p in self.places if p == 0)

    def margin(self, seat: int) -> float:
        """Own score minus the best score of the other seats."""
        return margin(self.scores, seat)


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (draws may count as 0.5)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def pairwise_outcomes(
    games: Sequence[GameResult], n: int
) -> tuple[list[list[float]], list[list[int]]]:
    """wins[i][j]: points of entrant i against j (1 per seat of i placed above a seat of j,
    0.5 per tie), over every pair of seats held by different entrants; played[i][j]: how
    many such seat pairs there were."""
    wins = [[0.0] * n for _ in range(n)]
    played = [[0] * n for _ in range(n)]
    for game in games:
        for a, bot_a in enumerate(game.seats):
            for b, bot_b in enumerate(game.seats):
                if a == b or bot_a == bot_b:
                    continue
                played[bot_a][bot_b] += 1
                if game.places[a] < game.places[b]:
                    wins[bot_a][bot_b] += 1.0
                elif game.places[a] == game.places[b]:
                    wins[bot_a][bot_b] += 0.5
    return wins, played


def bradley_terry_elo(
    wins: list[list[float]],
    played: list[list[int]],
    prior_games: float = 1.0,
    iterations: int = 500,
) -> list[float]:
    """Elo-scale ratings (mean 1500; 400 points = 10:1 odds) fitted by Hunter's MM
    algorithm to the pairwise outcomes of every game. ``prior_games`` virtual draws
    between every pair keep the fit finite when a bot wins (or loses) every game."""
    n = len(wins)
    if n == 1:
        return [ELO_BASE]
    w = [[wins[i][j] + prior_games / 2 for j in range(n)] for i in range(n)]
    m = [[played[i][j] + prior_games if i != j else 0.0 for j in range(n)] for i in range(n)]
    strength = [1.0] * n
    for _ in range(iterations):
        new = []
        for i in range(n):
            total_wins = sum(w[i][j] for j in range(n) if j != i)
            denominator = sum(m[i][j] / (strength[i] + strength[j]) for j in range(n) if j != i)
            new.append(total_wins / denominator if denominator > 0 else strength[i])
        log_mean = sum(math.log(s) for s in new) / n
        new = [s / math.exp(log_mean) for s in new]
        converged = max(abs(a - b) for a, b in zip(new, strength, strict=True)) < 1e-10
        strength = new
        if converged:
            break
    return [ELO_BASE + 400.0 * math.log10(s) for s in strength]


def openskill_ratings(games: Sequence[GameResult], n: int) -> list[dict[str, float]] | None:
    """OpenSkill (Plackett-Luce) mu, sigma and ordinal (mu - 3 sigma) per entrant, rated
    game by game in play order; None when openskill is not installed. An entrant in
    several seats of one game counts once, at its best place."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    ratings = [model.rating(name=str(i)) for i in range(n)]
    for game in sorted(games, key=lambda g: g.index):
        best: dict[int, int] = {}
        for seat, bot in enumerate(game.seats):
            best[bot] = min(best.get(bot, game.places[seat]), game.places[seat])
        if len(best) < 2:
            continue
        order = list(best)
        new = model.rate([[ratings[b]] for b in order], ranks=[best[b] for b in order])
        for b, team in zip(order, new, strict=True):
            ratings[b] = team[0]
    return [{"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for r in ratings]


def summarize(games: Sequence[GameResult], names: Sequence[str]) -> dict[str, Any]:
    """Per-entrant statistics, ratings and the head-to-head table of an arena run."""
    n = len(names)
    wins, played = pairwise_outcomes(games, n)
    elo = bradley_terry_elo(wins, played)
    skill = openskill_ratings(games, n)
    bots = []
    for i, name in enumerate(names):
        row = _entrant_row(games, i, name)
        row["elo"] = elo[i]
        if skill is not None:
            row["openskill"] = skill[i]
        bots.append(row)
    head_to_head = {
        names[i]: {
            names[j]: (wins[i][j] / played[i][j] if played[i][j] else None)
            for j in range(n)
            if j != i
        }
        for i in range(n)
    }
    return {
        "bots": bots,
        "head_to_head": head_to_head,
        "rating": "openskill (Plackett-Luce) and Bradley-Terry Elo"
        if skill
        else "Bradley-Terry Elo",
    }


def _entrant_row(games: Sequence[GameResult], bot: int, name: str) -> dict[str, Any]:
    seats = [(g, s) for g in games for s, b in enumerate(g.seats) if b == bot]
    count = len(seats)
    share = sum(g.win_share(s) for g, s in seats)
    low, high = wilson_interval(share, count)
    moves = sum(g.moves[s] for g, s in seats if g.moves)
    think = sum(g.think_seconds[s] for g, s in seats if g.think_seconds)
    return {
        "name": name,
        "games": count,
        "wins": sum(1 for g, s in seats if g.win_share(s) == 1.0),
        "shared_wins": sum(1 for g, s in seats if 0.0 < g.win_share(s) < 1.0),
        "win_rate": share / count if count else 0.0,
        "win_rate_ci95": [low, high],
        "mean_score": _mean([g.scores[s] for g, s in seats]),
        "mean_margin": _mean([g.margin(s) for g, s in seats]),
        "mean_place": _mean([float(g.places[s]) for g, s in seats]),
        "seconds_per_move": think / moves if moves else 0.0,
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
