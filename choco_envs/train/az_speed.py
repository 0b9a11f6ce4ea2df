"""Speed of the search-and-learn engine: simulations/s and network evaluations/s of the
Gumbel IS-MCTS with every leaf evaluated one at a time, with one game's simulations of a
phase run together (what the ``az`` bot does), and with many games' leaves batched into
one forward pass (self-play), (issue: "the CPU lever").

    python -m choco_envs.train.az_speed                       # every env, 3 s a row
    python -m choco_envs.train.az_speed --env chocolates_v0 --seconds 5 --batch 64
    python -m choco_envs.train.az_speed --bot        # the az bot's moves, shipped networks

The network is the engine's default (an untrained MLP 256x256 with one value per seat on
the ``flat`` observation); its weights do not change the cost. Rates move with the
machine's load: compare the batched/unbatched ratio measured in one run.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any


def settings() -> list[tuple[str, dict[str, Any]]]:
    """Every game's configurations as its manifest lists them, at 2 players."""
    from choco_envs.registry import manifests

    out = []
    for m in manifests():
        for case in m.bench:
            options = {k: v for k, v in case.options.items() if k != "num_players"}
            if (m.env_id, options) not in out:
                out.append((m.env_id, options))
    return out


def _roots(game: Any, count: int, rng: random.Random) -> list[Any]:
    """Decision points of random games (more than one legal action), as search roots."""
    from choco_envs.policy.search import Root

    roots: list[Any] = []
    while len(roots) < count:
        s = game.new_state(rng)
        while not game.is_over(s) and len(roots) < count:
            legal = game.legal_actions(s)
            if len(legal) > 1 and rng.random() < 0.3:
                seat = game.current_player(s)
                frozen = game.copy(s)

                def draw(r: random.Random, s: Any = frozen, p: int = seat) -> Any:
                    return game.determinize(s, p, r)

                roots.append(Root(draw, seat, legal))
            game.apply(s, rng.choice(legal), rng)
    return roots


def measure(env_id: str, options: dict[str, Any], batch: int, seconds: float, sims: int) -> dict:
    import torch

    from choco_envs.policy.az_bot import NetEvaluator
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.policy.net import ActorCritic, NetConfig
    from choco_envs.policy.search import GumbelSearch, SearchConfig
    from choco_envs.registry import make_game

    torch.set_num_threads(1)
    game = make_game(env_id, **options)
    inputs = PolicyInputs(game, "flat")
    model = ActorCritic(
        NetConfig(inputs.obs_shape, game.num_actions, (256, 256), value_outputs=game.num_players)
    ).eval()
    evaluator = NetEvaluator(model, inputs, game.num_players)
    roots = _roots(game, batch, random.Random(0))
    out: dict[str, Any] = {"env": env_id, "options": options, "batch": batch}
    for label, size, together in (
        ("one_at_a_time", 1, False),
        ("one_game", 1, True),
        ("batched", batch, True),
    ):
        config = SearchConfig(simulations=sims, together=together)
        search = GumbelSearch(game, evaluator, config, seed=1)
        done_sims = done_evals = 0
        forward_calls = evaluator.calls
        start = time.perf_counter()
        i = 0
        while time.perf_counter() - start < seconds:
            group = [roots[(i + k) % len(roots)] for k in range(size)]
            search.run(group)
            done_sims += search.last_simulations
            done_evals += search.last_evaluations
            i += size
        took = time.perf_counter() - start
        out[label] = {
            "simulations_per_s": round(done_sims / took, 1),
            "evaluations_per_s": round(done_evals / took, 1),
            "forward_passes_per_s": round((evaluator.calls - forward_calls) / took, 1),
        }
    one = max(out["one_at_a_time"]["simulations_per_s"], 1e-9)
    out["ratio"] = round(out["batched"]["simulations_per_s"] / one, 2)
    out["one_game_ratio"] = round(out["one_game"]["simulations_per_s"] / one, 2)
    return out


def bot_moves(
    env_id: str, options: dict[str, Any], moves: int, sims: int, leaf_batch: int = 1
) -> dict[str, Any]:
    """Milliseconds a move of ``az:simulations=SIMS`` (the game's shipped network) at 2
    players, a phase's simulations together against one at a time (and, with
    ``leaf_batch`` > 1, up to that many walks of each root action together too,
    ``leaf_batch_ms``): the same ``moves`` positions of one random game (more than two
    legal actions), best of two rounds."""
    import dataclasses

    from choco_envs import bots, registry
    from choco_envs.core.agent import view_of

    table = {"num_players": 2, **options}
    env = registry.make(env_id, **table)
    out: dict[str, Any] = {"env": env_id, "options": options, "simulations": sims}
    runs = [("one_at_a_time_ms", False, 1), ("together_ms", True, 1)]
    if leaf_batch > 1:
        runs.append(("leaf_batch_ms", True, leaf_batch))
    for _ in range(2):
        for label, together, batch in runs:
            bot: Any = bots.make(f"az:simulations={sims}", env_id=env_id, seed=1, env_options=table)
            bot.config = dataclasses.replace(bot.config, together=together, leaf_batch=batch)
            env.reset(seed=3)
            rng = random.Random(0)
            spent, done = 0.0, 0
            while not all(env.terminations.values()) and done < moves:
                view = view_of(env)
                if len(view.legal_actions) > 2:
                    start = time.perf_counter()
                    bot.act_view(view)
                    spent += time.perf_counter() - start
                    done += 1
                env.step(rng.choice(view.legal_actions))
            ms = 1000 * spent / max(1, done)
            out[label] = min(out.get(label, ms), ms)
    out["ratio"] = round(out["one_at_a_time_ms"] / max(out["together_ms"], 1e-9), 2)
    return out


def markdown(rows: list[dict[str, Any]], sims: int) -> str:
    lines = [
        "| env | simulations/s one leaf at a time | one game, a phase's leaves together (x) "
        f"| batched, {rows[0]['batch']} games (x) | network evaluations/s batched |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        name = r["env"] + "".join(f" {k}={v}" for k, v in r["options"].items())
        lines.append(
            f"| {name} | {r['one_at_a_time']['simulations_per_s']:,.0f} | "
            f"{r['one_game']['simulations_per_s']:,.0f} ({r['one_game_ratio']:.1f}x) | "
            f"{r['batched']['simulations_per_s']:,.0f} ({r['ratio']:.1f}x) | "
            f"{r['batched']['evaluations_per_s']:,.0f} |"
        )
    lines.append(f"\n({sims} simulations a decision, one torch thread, 2 players.)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m choco_envs.train.az_speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--env", help="one env id (default: every env and edition)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--batch", type=int, default=64, help="games searched together")
    parser.add_argument("--simulations", type=int, default=32, help="simulations a decision")
    parser.add_argument("--bot", action="store_true", help="time the az bot's moves with the "
                        "shipped networks instead (12 positions, 64 simulations unless given)")  # fmt: skip
    parser.add_argument("--leaf-batch", type=int, default=1, help="with --bot, also time K "
                        "walks of each root action together (virtual visits)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.batch < 1 or args.seconds <= 0 or args.simulations < 1 or args.leaf_batch < 1:
        parser.error("--batch, --simulations and --leaf-batch are >= 1, --seconds > 0")
    chosen = [s for s in settings() if args.env in (None, s[0])]
    if not chosen:
        parser.error(
            f"--env {args.env!r} is not allowed; allowed: {sorted({s[0] for s in settings()})}"
        )
    if args.bot:
        sims = args.simulations if "--simulations" in (argv or sys.argv) else 64
        k = args.leaf_batch
        extra = f" {k} walks an action together | speed-up |" if k > 1 else ""
        print("| env | ms a move, one simulation at a time | a phase's together | speed-up |"
              + extra)  # fmt: skip
        print("|---|---|---|---|" + ("---|---|" if k > 1 else ""))
        for env_id, options in chosen:
            r = bot_moves(env_id, options, 12, sims, k)
            name = env_id + "".join(f" {k}={v}" for k, v in options.items())
            more = ""
            if k > 1:
                speed = r["one_at_a_time_ms"] / max(r["leaf_batch_ms"], 1e-9)
                more = f" {r['leaf_batch_ms']:.0f} | {speed:.2f}x |"
            print(f"| {name} | {r['one_at_a_time_ms']:.0f} | {r['together_ms']:.0f} | "
                  f"{r['ratio']:.2f}x |" + more, flush=True)  # fmt: skip
        print(f"\n(az:simulations={sims}, the shipped network, 2 players.)")
        return 0
    rows = []
    for env_id, options in chosen:
        rows.append(measure(env_id, options, args.batch, args.seconds, args.simulations))
        r = rows[-1]
        print(
            f"{env_id} {options}: one game {r['one_game_ratio']}x, batched {r['ratio']}x one "
            "leaf at a time",
            flush=True,
        )
    print(markdown(rows, args.simulations))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
