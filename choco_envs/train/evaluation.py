"""The PPO trainer's evaluations of the network against random and greedy.

* **Periodic** (:class:`PeriodicEvaluation`): every ``eval_every`` updates,
  ``eval_games`` games per opponent on fresh deals; with ``keep_best``, the weights of
  the evaluation with the best weighted win rate (``keep_best_weights``) are kept and
  restored at the end, the run's file then holding them rather than the last update's.
  With ``keep_best_tables`` a seat-padded run's periodic evaluations play every player
  count it trains, and the kept weights are those with the best mean, over the counts,
  of each count's weighted ratio of win rate to target (:func:`table_target`, each
  ratio capped at 1), so a run aimed at 3-5 players keeps its best large-table weights.
* **Final** (:func:`final_evaluation`): ``final_eval_games`` per opponent at ``options``'
  table (the file's ``arena``, what ``choco ship`` reads) and at each other player count
  of a seat-padded run (``arena_tables``), on the run's own deals.

Each is ``choco_envs.train.evaluate`` (duplicate deals, seats rotated, the network's most
likely legal move).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from choco_envs.train.ppo import Args


def run_eval(
    model: Any, args: Args, games: int, seed: int, options: dict[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """The evaluation against random and greedy (``choco_envs.train.evaluate``) at the
    run's options (or ``options``: another table of a seat-padded run)."""
    from choco_envs.train.evaluate import evaluate
    from choco_envs.train.imitation import ticker
    from choco_envs.train.outputs import progress_bar

    out = {}
    table = args.options if options is None else options
    for opponent in ("random", "greedy"):
        where = "" if options is None else f" at {table.get('num_players')} players"
        bar = progress_bar(args, games, f"evaluation vs {opponent}{where}", "game")
        out[opponent] = evaluate(
            model,
            args.env_id,
            table,
            args.encoder,
            opponent,
            games,
            seed,
            feature=args.feature,
            progress=ticker(bar),
            max_players=args.max_players,
            mode_marks=args.mode_marks,
        )
        if bar is not None:
            bar.close()
    return out


def best_score(arena: dict[str, Any], weights: dict[str, float]) -> float:
    """The keep_best criterion: the weighted mean of the evaluation win rates."""
    total = sum(weights.get(opp, 0.0) for opp in arena)
    return sum(weights.get(opp, 0.0) * res["win_rate"] for opp, res in arena.items()) / total


def table_target(opponent: str, players: int) -> float:
    """The win rate a bot for many tables aims at against ``players`` - 1 copies of
    ``opponent``: 90% against random at every count; against any other bot 60% at 2
    players and 1.5 / N beyond (50, 37.5, 30, 25% at 3-6; par is 1 / N)."""
    if opponent == "random":
        return 0.9
    return 0.6 if players <= 2 else 1.5 / players


def tables_score(
    arenas: dict[int, dict[str, Any]], weights: dict[str, float]
) -> tuple[float, float]:
    """The keep_best criterion of ``keep_best_tables``: for each player count (the keys
    of ``arenas``), the weighted mean over its opponents of win rate /
    :func:`table_target`, each ratio capped at 1; then the mean over the counts (each
    count weighs alike). Capped, a surplus at one table (80% against greedy at 2 players)
    does not pay for a shortfall at another, so weights that meet every target score 1.
    Returns (that mean, the same mean uncapped): compared in that order, the uncapped
    mean only breaks ties."""

    def mean(cap: float) -> float:
        ratios = [
            best_score(
                {opp: {"win_rate": min(cap, res["win_rate"] / table_target(opp, players))}
                 for opp, res in arena.items()},
                weights,
            )
            for players, arena in arenas.items()
        ]  # fmt: skip
        return sum(ratios) / len(ratios)

    return mean(1.0), mean(float("inf"))


def final_evaluation(model: Any, args: Args) -> tuple[dict[str, Any], dict[str, Any]]:
    """The evaluation a run stores: ``final_eval_games`` against random and greedy at
    ``options``' table (``arena``) and at each other player count (``arena_tables``),
    on the run's own deals (so a rounded copy of the file meets the same ones)."""
    arena = run_eval(model, args, args.final_eval_games, args.seed + 99_991)
    tables: dict[str, Any] = {}
    for table in args.other_tables():
        key = str(table["num_players"])
        tables[key] = run_eval(model, args, args.final_eval_games, args.seed + 99_991, table)
    return arena, tables


class PeriodicEvaluation:
    """The periodic evaluations of a run, and ``keep_best``'s choice among them."""

    def __init__(self, args: Args) -> None:
        self.args = args
        self.arena: dict[str, Any] = {}  # the last evaluation
        self.tables: dict[str, Any] = {}  # keep_best_tables: the last one's other counts
        self.last_score: tuple[float, float] | None = None
        # (score, steps, weights); a score is (criterion, tie-break): see tables_score
        self.best: tuple[tuple[float, float], int, dict[str, Any]] | None = None

    def due(self, update: int) -> bool:
        """Whether update ``update`` (counted from 1) ends with an evaluation."""
        return bool(self.args.eval_every) and update % self.args.eval_every == 0

    def run(self, model: Any, update: int, steps: int) -> tuple[dict[str, Any], bool]:
        """Evaluate ``model`` after update ``update`` (``steps`` env steps): (the arena
        result, whether ``keep_best`` keeps these weights as the best so far)."""
        args = self.args
        seed = args.seed + 10_000 + update
        self.arena = run_eval(model, args, args.eval_games, seed)
        if args.keep_best_tables:
            self.tables = {
                str(t["num_players"]): run_eval(model, args, args.eval_games, seed, t)
                for t in args.other_tables()
            }
            here = int(args.options.get("num_players", 2))
            arenas = {here: self.arena, **{int(n): a for n, a in self.tables.items()}}
            score = tables_score(arenas, args.keep_best_weights)
        else:
            score = (best_score(self.arena, args.keep_best_weights), 0.0)
        self.last_score = score
        kept = args.keep_best and (self.best is None or score > self.best[0])
        if kept:
            weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
            self.best = (score, steps, weights)
        return self.arena, kept

    def scalars(self, arena: dict[str, Any]) -> dict[str, float]:
        """The TensorBoard scalars of an evaluation (``eval/``): win rate, the Elo
        difference it implies (``choco_envs.train.curves.elo``), mean return; with
        ``keep_best_tables`` each other count's win rates too (``eval/<N>p/``)."""
        from choco_envs.train.curves import elo

        stats = {}
        for opp, res in arena.items():
            stats[f"eval/win_rate_vs_{opp}"] = res["win_rate"]
            stats[f"eval/elo_vs_{opp}"] = elo(res["win_rate"], res.get("games"))
            stats[f"eval/mean_return_vs_{opp}"] = res["mean_return"]
        for n, table in self.tables.items():
            for opp, res in table.items():
                stats[f"eval/{n}p/win_rate_vs_{opp}"] = res["win_rate"]
        return stats

    def line(self, steps: int, kept: bool) -> str:
        """One printed line of a ``keep_best_tables`` evaluation: each count's win rates,
        the score, whether its weights are kept."""
        here = str(self.args.options.get("num_players", 2))
        parts = [
            f"{n}p " + " ".join(f"{opp} {res['win_rate']:.2f}" for opp, res in arena.items())
            for n, arena in sorted(
                {here: self.arena, **self.tables}.items(), key=lambda t: int(t[0])
            )
        ]
        score = (
            ""
            if self.last_score is None
            else f" | ratio to targets {self.last_score[0]:.3f} (uncapped {self.last_score[1]:.3f})"
        )
        return (
            f"evaluation at step {steps}: "
            + " | ".join(parts)
            + score
            + (" (kept)" if kept else "")
        )

    def restore_best(self, model: Any) -> dict[str, Any] | None:
        """With a kept best, load its weights into ``model`` and return what the file
        records of it (``training.kept_best``); else None."""
        if self.best is None:
            return None
        score, steps, weights = self.best
        model.load_state_dict(weights)
        if self.args.keep_best_tables:
            print(f"keeping the weights of step {steps} (mean ratio to the tables' targets "
                  f"{score[0]:.3f}, each capped at 1; uncapped {score[1]:.3f})")  # fmt: skip
            return {
                "eval_mean_ratio_to_targets": round(score[0], 4),
                "eval_mean_ratio_uncapped": round(score[1], 4),
                "at_step": steps,
            }
        print(f"keeping the weights of step {steps} (weighted evaluation win rate {score[0]:.3f})")
        return {"eval_mean_win_rate": round(score[0], 4), "at_step": steps}

    def final(self, model: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The evaluation the file stores: (``arena``, ``arena_tables``); without
        ``final_eval_games``, the last periodic one (and no tables)."""
        if not self.args.final_eval_games:
            return self.arena, {}
        return final_evaluation(model, self.args)
