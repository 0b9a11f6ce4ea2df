"""The arena: matches with seats rotated and duplicate deals, ratings, tables, plots.

    from choco_envs.arena import run_arena
    report = run_arena("chocolates_v0", ["greedy", "random"], games=40, seed=1)

``report`` is a JSON-ready dict: the config, per-bot statistics (win rate with a 95%
Wilson interval, mean score, mean margin, Elo and OpenSkill ratings), the head-to-head
table, and every game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from choco_envs.arena.match import (
    Entrant,
    EnvSource,
    entrants_from_specs,
    play_all,
    schedule,
)
from choco_envs.arena.stats import summarize
from choco_envs.core.errors import ConfigError

__all__ = ["Entrant", "run_arena"]


def run_arena(
    env: EnvSource,
    bots: Sequence[str | Entrant],
    *,
    players: int | None = None,
    games: int = 20,
    seed: int = 0,
    env_options: dict[str, Any] | None = None,
    workers: int = 1,
    progress: bool = True,
) -> dict[str, Any]:
    """Play an arena run and return its report. ``env`` is an env id (or a Game class);
    ``bots`` are specs for ``choco_envs.bots.make`` or Entrants; ``players`` defaults to
    the game's default player count."""
    env_options = dict(env_options or {})
    env_id = env if isinstance(env, str) else env.spec.env_id
    game_cls = _game_class(env)
    num_players = game_cls.spec.default_players if players is None else players
    game_cls(num_players=num_players, **env_options)  # validates options before any game
    if not bots:
        raise ConfigError("the arena needs at least one bot; e.g. --bots greedy random")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ConfigError(f"games={games!r} is not allowed; allowed: an int >= 1")
    specs = [b for b in bots if isinstance(b, str)]
    bot_options = {**env_options, "num_players": num_players}
    made = iter(entrants_from_specs(specs, env_id, bot_options))
    entrants = [b if isinstance(b, Entrant) else next(made) for b in bots]
    names = _unique_names([e.name for e in entrants])
    jobs = schedule(len(entrants), num_players, games, seed)
    results = play_all(env, num_players, env_options, entrants, jobs, seed, workers, progress)
    report = summarize(results, names)
    report["config"] = {
        "env": env_id,
        "players": num_players,
        "bots": names,
        "games_requested": games,
        "deals": len({j.deal for j in jobs}),
        "seed": seed,
        "env_options": env_options,
        "workers": workers,
        # the file each checkpoint-playing entrant played (``choco ship --record`` checks it)
        "checkpoints": {
            name: e.checkpoint for name, e in zip(names, entrants, strict=True) if e.checkpoint
        },
    }
    report["games_played"] = len(results)
    report["games"] = [asdict(r) for r in results]
    return report


def _game_class(env: EnvSource) -> Any:
    if isinstance(env, str):
        from choco_envs.registry import game_class

        return game_class(env)
    return env


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out
