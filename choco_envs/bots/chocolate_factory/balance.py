"""The tier balance check of Chocolate Factory: fixed-tier strategies head to head.

the rulings in docs/games/chocolate_factory.md: "Recipes must keep the tiers honest: points per pick needed should be
comparable across tiers, so that always choosing Bronze is not dominant; check it with
bots, head to head (always-Bronze against always-Silver, always-Gold and the free greedy
bot), at every player count and both lengths, not only in a mixed table."

Four strategies: the greedy heuristic refilling freed stations only with Bronze, only with
Silver, only with Gold (the ``tier`` bot kind), and the free greedy bot. A *pair* plays
duplicate deals: each deal once with strategy A on the even seats and B on the odd ones,
once the other way round (so with an odd number of players each has the extra seat on
half the games). The figure of a pair is A's mean rank return per seat minus B's (rank
returns in [-1, 1], see ``Game.returns``), with a 95% interval over deals. A fixed-tier
strategy **dominates** a setting (player count and length) when it beats each of the
other three strategies with its interval above zero; the check passes when no fixed-tier
strategy dominates any setting.

    python -m choco_envs.bots.chocolate_factory.balance            # the full grid, 800 a pair
    python -m choco_envs.bots.chocolate_factory.balance --games 200 --players 2 --length short
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from choco_envs.games.chocolate_factory import ChocolateFactoryGame
from choco_envs.games.chocolate_factory import components as cp
from choco_envs.games.chocolate_factory.rules import (
    CHOOSE,
    PASS,
    ChocolateFactoryRules,
    FactoryState,
    decode_station_action,
)

from .greedy import greedy_action

Policy = Callable[[ChocolateFactoryRules, FactoryState, random.Random], int]
STRATEGIES = ("bronze", "silver", "gold", "greedy")
FIXED = STRATEGIES[:3]
#: games a pair by default (the rulings asks head to head with at least 800)
GAMES = 800
Z95 = 1.96


def strategy(name: str) -> Policy:
    """The policy of a strategy name: a fixed tier or the free greedy bot."""
    if name == "greedy":
        return greedy_action
    if name not in FIXED:
        raise ValueError(f"strategy {name!r} is unknown; allowed: {', '.join(STRATEGIES)}")
    tier = FIXED.index(name)
    return lambda game, s, rng: greedy_action(game, s, rng, tier=tier)


@dataclass(frozen=True)
class PairResult:
    """A against B in one setting: per-seat mean return difference and its interval."""

    players: int
    length: str
    a: str
    b: str
    games: int
    diff: float
    low: float
    high: float
    score_a: float
    score_b: float

    @property
    def winner(self) -> str | None:
        """The strategy whose interval lies wholly on its side of zero, else None."""
        if self.low > 0:
            return self.a
        if self.high < 0:
            return self.b
        return None


def play(
    game: ChocolateFactoryRules, by_seat: Sequence[Policy], rng: random.Random
) -> FactoryState:
    """One game with ``by_seat[p]`` acting for seat p; dice and ties from ``rng``. A game
    longer than the rules' ``max_steps`` is an engine fault and raises."""
    s = game.new_state(rng)
    for _ in range(game.max_steps):
        if game.is_over(s):
            return s
        game.apply(s, by_seat[game.current_player(s)](game, s, rng), rng)
    if not game.is_over(s):
        raise RuntimeError(f"a game ran past max_steps={game.max_steps} without ending")
    return s


def head_to_head(
    players: int, length: str, a: str, b: str, games: int = GAMES, seed: int = 0, **options: Any
) -> PairResult:
    """``games`` games (rounded up to even) of A against B on duplicate deals."""
    game = ChocolateFactoryGame(num_players=players, length=length, **options)
    pa, pb = strategy(a), strategy(b)
    deals = math.ceil(games / 2)
    diffs: list[float] = []
    score_a = score_b = 0.0
    for deal in range(deals):
        per_deal = 0.0
        for swap in (False, True):
            on_a = [(p % 2 == 0) != swap for p in range(players)]
            s = play(game, [pa if x else pb for x in on_a], random.Random(f"{seed}/{deal}"))
            ret, sc = game.returns(s), game.scores(s)
            seats_a = [p for p in range(players) if on_a[p]]
            seats_b = [p for p in range(players) if not on_a[p]]
            per_deal += sum(ret[p] for p in seats_a) / len(seats_a)
            per_deal -= sum(ret[p] for p in seats_b) / len(seats_b)
            score_a += sum(sc[p] for p in seats_a) / len(seats_a)
            score_b += sum(sc[p] for p in seats_b) / len(seats_b)
        diffs.append(per_deal / 2)
    mean = sum(diffs) / deals
    var = sum((d - mean) ** 2 for d in diffs) / max(deals - 1, 1)
    half = Z95 * math.sqrt(var / deals)
    return PairResult(
        players, length, a, b, 2 * deals, mean, mean - half, mean + half,
        score_a / (2 * deals), score_b / (2 * deals),
    )  # fmt: skip


def dominant(results: Sequence[PairResult]) -> list[tuple[int, str, str]]:
    """(players, length, strategy) of every fixed tier that beats all three others."""
    out = []
    settings = sorted({(r.players, r.length) for r in results})
    for players, length in settings:
        here = [r for r in results if (r.players, r.length) == (players, length)]
        for name in FIXED:
            mine = [r for r in here if name in (r.a, r.b)]
            others = {r.b if r.a == name else r.a for r in mine}
            if len(others) == len(STRATEGIES) - 1 and all(r.winner == name for r in mine):
                out.append((players, length, name))
    return out


def grid(
    players: Sequence[int] = tuple(range(cp.MIN_PLAYERS, cp.MAX_PLAYERS + 1)),
    lengths: Sequence[str] = cp.LENGTHS,
    games: int = GAMES,
    seed: int = 0,
    progress: Callable[[PairResult, int, int], None] | None = None,
    **options: Any,
) -> list[PairResult]:
    """Every pair of strategies at every setting."""
    jobs = [
        (n, length, a, b)
        for n in players
        for length in lengths
        for a, b in itertools.combinations(STRATEGIES, 2)
    ]
    results = []
    for i, (n, length, a, b) in enumerate(jobs):
        results.append(head_to_head(n, length, a, b, games, seed, **options))
        if progress is not None:
            progress(results[-1], i + 1, len(jobs))
    return results


def tier_shares(players: int, length: str, games: int = 100, seed: int = 0) -> list[float]:
    """How the free greedy bot refills its stations: the share of its variety choices
    of each tier (Bronze, Silver, Gold) in greedy self-play."""
    game = ChocolateFactoryGame(num_players=players, length=length)
    counts = [0, 0, 0]
    for g in range(games):
        rng = random.Random(f"{seed}/shares/{g}")
        s = game.new_state(rng)
        for _ in range(game.max_steps):
            if game.is_over(s):
                break
            a = greedy_action(game, s, rng)
            if a >= CHOOSE:
                counts[game.tier[a - CHOOSE]] += 1
            game.apply(s, a, rng)
    total = max(sum(counts), 1)
    return [c / total for c in counts]


def points_per_pick(
    players: int, length: str, games: int = 100, seed: int = 0
) -> dict[str, tuple[int, float, float]]:
    """Free greedy self-play, per tier: (bars finished, picks spent per bar, points per
    pick, refinements included, package bonus excluded). A station's picks are counted
    from its variety's start to its finish."""
    game = ChocolateFactoryGame(num_players=players, length=length)
    totals = {t: [0, 0, 0.0] for t in range(3)}
    for g in range(games):
        rng = random.Random(f"{seed}/picks/{g}")
        s = game.new_state(rng)
        spent = [0] * (4 * players)
        for _ in range(game.max_steps):
            if game.is_over(s):
                break
            p = game.current_player(s)
            a = greedy_action(game, s, rng)
            k = None
            if a < PASS:
                k = p * 4 + decode_station_action(a)[1]
                spent[k] += 1
                variety = s.variety[k]
            before = s.variety_points[p] + s.refine_points[p]
            finished = s.finished[p]
            game.apply(s, a, rng)
            if k is not None and s.finished[p] > finished:
                row = totals[game.tier[variety]]
                row[0] += 1
                row[1] += spent[k]
                row[2] += s.variety_points[p] + s.refine_points[p] - before
                spent[k] = 0
    return {FIXED[t]: (int(c), pk / c, pt / pk) for t, (c, pk, pt) in totals.items() if c}


def to_markdown(results: Sequence[PairResult]) -> str:
    """One row per setting and pair: the difference, its interval, the mean scores."""
    lines = [
        "| players | length | A | B | games | A - B (return a seat) | 95% interval | "
        "score A | score B | better |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.players} | {r.length} | {r.a} | {r.b} | {r.games} | {r.diff:+.3f} | "
            f"[{r.low:+.3f}, {r.high:+.3f}] | {r.score_a:.1f} | {r.score_b:.1f} | "
            f"{r.winner or 'neither'} |"
        )
    return "\n".join(lines)


def write_plot(results: Sequence[PairResult], path: str) -> None:
    """A heat map of the table: one row per setting, one column per pair, the cell A - B
    (red: A better, blue: B better), hatched where the interval includes zero."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    settings = sorted(
        {(r.players, r.length) for r in results}, key=lambda x: (x[0], x[1] != "short")
    )
    pairs = list(dict.fromkeys((r.a, r.b) for r in results))
    cell = {(r.players, r.length, r.a, r.b): r for r in results}
    grid_values = [[cell[(n, ln, a, b)].diff for a, b in pairs] for n, ln in settings]
    fig, ax = plt.subplots(figsize=(1.3 * len(pairs) + 2, 0.45 * len(settings) + 1.5))
    image = ax.imshow(grid_values, cmap="coolwarm", vmin=-1, vmax=1, aspect="auto")
    for i, (n, ln) in enumerate(settings):
        for j, (a, b) in enumerate(pairs):
            r = cell[(n, ln, a, b)]
            ax.text(j, i, f"{r.diff:+.2f}" + ("" if r.winner else " ~"), ha="center",
                    va="center", fontsize=8)  # fmt: skip
    ax.set_xticks(range(len(pairs)), [f"{a}\n- {b}" for a, b in pairs], fontsize=8)
    ax.set_yticks(range(len(settings)), [f"{n}p {ln}" for n, ln in settings], fontsize=8)
    games = results[0].games if results else 0
    ax.set_title(
        f"Chocolate Factory tiers head to head ({games} games a pair; ~ = no clear winner)"
    )
    fig.colorbar(image, ax=ax, label="A - B, mean rank return a seat")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m choco_envs.bots.chocolate_factory.balance",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=GAMES, help="games a pair (default 800)")
    parser.add_argument("--players", type=int, nargs="*", default=None, help="player counts")
    parser.add_argument("--length", nargs="*", default=None, choices=cp.LENGTHS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default=None, help="write the table to this file")
    parser.add_argument("--plot", default=None, help="write a PNG heat map (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error(f"--games {args.games}: allowed: 2 or more")
    players = args.players or list(range(cp.MIN_PLAYERS, cp.MAX_PLAYERS + 1))
    bad = [n for n in players if not cp.MIN_PLAYERS <= n <= cp.MAX_PLAYERS]
    if bad:
        parser.error(f"--players {bad}: allowed: {cp.MIN_PLAYERS}..{cp.MAX_PLAYERS}")
    start = time.perf_counter()

    def progress(r: PairResult, done: int, total: int) -> None:
        print(
            f"[{done}/{total} {time.perf_counter() - start:.0f}s] {r.players}p {r.length}: "
            f"{r.a} - {r.b} {r.diff:+.3f} [{r.low:+.3f}, {r.high:+.3f}] -> {r.winner or 'neither'}",
            file=sys.stderr,
            flush=True,
        )

    results = grid(players, args.length or cp.LENGTHS, args.games, args.seed, progress)
    table = to_markdown(results)
    print(table)
    found = dominant(results)
    print(
        "dominant fixed tiers: "
        + (", ".join(f"{name} at {n}p {length}" for n, length, name in found) or "none")
    )
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    if args.plot:
        write_plot(results, args.plot)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
