"""Masked PPO self-play on Ray RLlib (new API stack), exported to a choco_envs checkpoint.

    python -m choco_envs.integrations.rllib train --config configs/chocolates_v0/rllib.yaml
    python -m choco_envs.integrations.rllib train --env-id le_chocolat_v0 --num-env-runners 2
    python -m choco_envs.integrations.rllib train --config ... --address auto   # on a cluster
    choco eval --env chocolates_v0 --bots policy:runs/chocolates_v0__rllib_ppo__1/final.safetensors greedy

One RLModule, ``main`` (RLlib's ``ActionMaskingTorchRLModule``; its network is the
project's ActorCritic MLP), learns in every seat it is mapped to; the policy mapping
(``league.League``) fills the other seats with ``main`` itself, frozen snapshots of it
taken by win rate, and the baseline bots. Each iteration samples ``train_batch_size``
env steps on ``num_env_runners`` EnvRunners (or in this process), then runs
``update_epochs`` of PPO on the learner. TensorBoard scalars go to ``<runs_dir>/<run_name>``
(``charts/``, ``losses/``, ``eval/``); the arena evaluation (duplicate deals, seats
rotated) plays the exported checkpoint against random and greedy. The final checkpoint
goes to ``save_path``, RLlib's own checkpoint to ``<runs_dir>/<run_name>/rllib``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ConfigError
from choco_envs.integrations.rllib.args import Args

RLLIB_DIR = "rllib"
ARGS_FILE = "choco_args.json"


def run_name(args: Args) -> str:
    return args.run_dir.name


def env_options(args: Args) -> dict[str, Any]:
    """The options of every env the trainer makes (the encoder as ``observation``)."""
    return {**args.options, "observation": args.encoder}


def check_args(args: Args) -> None:
    """ConfigError for settings that cannot train, before Ray starts."""
    from choco_envs.registry import REGISTRY, make_game

    args.check()
    if args.env_id not in REGISTRY:
        raise ConfigError(f"unknown env {args.env_id!r}; known envs: {', '.join(REGISTRY)}")
    if "observation" in args.options:
        raise ConfigError(
            f"options={args.options!r} is not allowed: give the observation as encoder "
            f"(encoder: {args.options['observation']}), not as an option"
        )
    game = make_game(args.env_id, **args.options)
    game.encoder(args.encoder)  # ConfigError naming the encoders
    args.check_outside_shipped(args.final_path, args.run_dir)


def init_ray(args: Args) -> None:
    """Join the cluster at ``args.address``, or start a local Ray of ``num_cpus`` CPUs.
    On a cluster, ``ship_package`` uploads this process's choco_envs package to every
    worker (Ray's ``runtime_env`` ``py_modules``: nodes then need only the dependencies,
    and run exactly this version); locally, workers get this process's PYTHONPATH."""
    import ray

    if ray.is_initialized():
        return
    if args.address:
        runtime_env = {"py_modules": [_package_dir()]} if args.ship_package else None
        ray.init(address=args.address, log_to_driver=False, runtime_env=runtime_env)
        return
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    path = os.pathsep.join(p for p in [os.environ.get("PYTHONPATH", ""), _import_root()] if p)
    ray.init(
        num_cpus=args.num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )


def _package_dir() -> str:
    """The directory of the choco_envs package this process runs."""
    import choco_envs

    return str(Path(choco_envs.__file__).resolve().parent)


def _import_root() -> str:
    """The folder that holds this choco_envs package (what a worker's PYTHONPATH needs to
    import the same one)."""
    return str(Path(_package_dir()).parent)


def build_config(args: Args) -> Any:
    """The PPOConfig of this run (RLlib's new API stack)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from choco_envs.integrations.rllib.env import register_envs, rllib_env_name
    from choco_envs.integrations.rllib.league import MAIN, League, LeagueCallback
    from choco_envs.integrations.rllib.module import module_spec
    from choco_envs.registry import make_game

    register_envs()
    num_players = make_game(args.env_id, **args.options).num_players
    league = League(
        num_players,
        args.league_self_play,
        args.league_past,
        dict(args.league_bots),
        seed=args.seed,
    )
    return (
        PPOConfig()
        .environment(rllib_env_name(args.env_id), env_config=env_options(args))
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=args.num_learners, num_gpus_per_learner=args.num_gpus_per_learner)
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.update_epochs,
            lr=args.learning_rate,
            gamma=args.gamma,
            lambda_=args.gae_lambda,
            clip_param=args.clip_coef,
            entropy_coeff=args.ent_coef,
            vf_loss_coeff=args.vf_coef,
            use_kl_loss=False,
            grad_clip=args.max_grad_norm,
            grad_clip_by="global_norm",
        )
        .multi_agent(policies={MAIN}, policy_mapping_fn=league, policies_to_train=[MAIN])
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: module_spec(args.hidden)})
        )
        .callbacks(
            functools.partial(  # type: ignore[arg-type]
                LeagueCallback,
                league=league,
                win_rate_threshold=args.win_rate_threshold,
                pool_size=args.pool_size,
                snapshot_gap=args.snapshot_gap,
            )
        )
        .debugging(seed=args.seed, log_level="ERROR")
    )


def export_algorithm(
    algo: Any,
    path: str | Path,
    args: Args,
    steps: int,
    arena: dict[str, Any] | None = None,
    training: dict[str, Any] | None = None,
) -> Path:
    """Write ``main``'s weights (from the learner) as a choco_envs checkpoint."""
    from choco_envs.integrations.rllib.league import MAIN

    weights = algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    return export_weights(weights, path, args, steps, arena, training)


def export_weights(
    weights: dict[str, Any],
    path: str | Path,
    args: Args,
    steps: int,
    arena: dict[str, Any] | None = None,
    training: dict[str, Any] | None = None,
) -> Path:
    """Write ``main``'s ``weights`` as a choco_envs checkpoint, its metadata made by the
    writer every engine uses (``choco_envs.train.outputs.checkpoint_meta``)."""
    from choco_envs.integrations.rllib.module import to_actor_critic
    from choco_envs.policy.checkpoint import save_checkpoint
    from choco_envs.registry import make_game
    from choco_envs.train.outputs import checkpoint_meta

    game = make_game(args.env_id, **args.options)
    shape = tuple(game.encoder(args.encoder).shape)
    model = to_actor_critic(weights, shape, game.num_actions, tuple(args.hidden))
    summary = dict(training or {})
    command = str(summary.pop("command", ""))
    meta = checkpoint_meta(
        game, args.encoder, args=args, steps=steps, arena=arena, command=command,
        training=summary,
    )  # fmt: skip
    return save_checkpoint(path, model, meta)


def evaluate(path: Path, args: Args, games: int, seed: int) -> dict[str, dict[str, float]]:
    """Arena win rates of the checkpoint at ``path`` against random and greedy (duplicate
    deals, seats rotated)."""
    from choco_envs.arena import run_arena

    options = dict(args.options)
    players = options.pop("num_players", None)
    out = {}
    for opponent in ("random", "greedy"):
        report = run_arena(
            args.env_id,
            [f"policy:{path}", opponent],
            players=players,
            games=games,
            seed=seed,
            env_options=options,
            progress=False,
        )
        row = report["bots"][0]
        out[opponent] = {"win_rate": float(row["win_rate"]), "games": int(row["games"])}
    return out


def scalars(result: dict[str, Any], elapsed: float) -> dict[str, float]:
    """The TensorBoard scalars of one iteration's result (CleanRL's namespaces)."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get("main", {})
    out: dict[str, float] = {}
    for key in ("episode_return_mean", "episode_len_mean", "win_rate", "num_episodes"):
        if isinstance(runners.get(key), (int, float)):
            out[f"charts/{key}"] = float(runners[key])
    for key, value in runners.items():
        if key.startswith("win_rate_vs_") and isinstance(value, (int, float)):
            out[f"charts/{key}"] = float(value)
    sampled = runners.get("num_env_steps_sampled_lifetime")
    if isinstance(sampled, (int, float)) and elapsed > 0:
        out["charts/env_steps_per_s"] = float(sampled) / elapsed
    for key, name in (
        ("policy_loss", "policy_loss"),
        ("vf_loss", "value_loss"),
        ("entropy", "entropy"),
        ("mean_kl_loss", "approx_kl"),
        ("vf_explained_var", "explained_variance"),
        ("default_optimizer_learning_rate", "learning_rate"),
    ):
        if isinstance(learner.get(key), (int, float)):
            out[f"losses/{name}"] = float(learner[key])
    if isinstance(result.get("league_size"), (int, float)):
        out["charts/league_size"] = float(result["league_size"])
    return out


def league_callback(algo: Any) -> Any:
    """The driver's LeagueCallback of ``algo`` (None if it has none)."""
    from choco_envs.integrations.rllib.league import LeagueCallback

    callbacks = getattr(algo, "callbacks", None)
    for cb in callbacks if isinstance(callbacks, list) else [callbacks]:
        if isinstance(cb, LeagueCallback):
            return cb
    return None


def train(args: Args, command: str = "") -> Path:
    """Train; return the path of the exported checkpoint."""
    import torch

    from choco_envs.train.curves import elo

    check_args(args)
    command = command or "python -m choco_envs.integrations.rllib train " + shlex.join(sys.argv[1:])
    run_dir = args.run_dir
    save_path = args.final_path
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    init_ray(args)
    algo = build_config(args).build_algo()
    writer = None
    if args.track:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir))
        writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n"
            + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items()),
        )
    start = time.time()
    steps = game_steps = 0
    arena: dict[str, Any] = {}
    history: list[dict[str, Any]] = []
    mismatches = 0
    iteration = 0
    for iteration in range(1, args.iterations + 1):
        result = algo.train()
        elapsed = time.time() - start
        runners = result.get("env_runners", {})
        steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
        game_steps += int(runners.get("game_steps", 0) or 0)
        mismatches += int(runners.get("reward_mismatches", 0) or 0)
        stats = scalars(result, elapsed)
        stats["charts/game_steps_per_s"] = game_steps / elapsed
        if args.eval_every and iteration % args.eval_every == 0:
            latest = export_algorithm(algo, run_dir / "latest.safetensors", args, steps)
            arena = evaluate(latest, args, args.eval_games, args.seed + 10_000 + iteration)
            for opponent, res in arena.items():
                stats[f"eval/win_rate_vs_{opponent}"] = res["win_rate"]
                stats[f"eval/elo_vs_{opponent}"] = elo(res["win_rate"], res.get("games"))
        if writer is not None:
            for key, value in stats.items():
                writer.add_scalar(key, value, steps)
        history.append({"iteration": iteration, "env_steps": steps, **stats})
        if args.progress:
            print(
                f"iteration {iteration}: {steps} env steps ({game_steps} game steps), "
                f"{stats.get('charts/env_steps_per_s', 0):.0f} env steps/s, win rate "
                f"{stats.get('charts/win_rate', float('nan')):.3f}, league size "
                f"{int(stats.get('charts/league_size', 1))}",
                flush=True,
            )
        if steps >= args.total_timesteps:
            break
        if args.max_minutes and elapsed > 60 * args.max_minutes:
            break
    minutes = (time.time() - start) / 60
    if args.rllib_checkpoint:
        rllib_dir = (run_dir / RLLIB_DIR).resolve()
        algo.save_to_path(str(rllib_dir))
        (rllib_dir / ARGS_FILE).write_text(json.dumps(dataclasses.asdict(args), indent=1))
    league = league_callback(algo)
    training = {
        "command": command,
        "snapshots": []
        if league is None
        else [{"iteration": i, "module": m, "win_rate": round(w, 4)} for i, m, w in league.history],
        "iterations": iteration,
        "minutes": round(minutes, 2),
        "game_steps": game_steps,
        "reward_mismatches": mismatches,
        "num_env_runners": args.num_env_runners,
    }
    save_path = export_algorithm(algo, save_path, args, steps, {}, training)
    if args.final_eval_games:
        arena = evaluate(save_path, args, args.final_eval_games, args.seed + 99_991)
        save_path = export_algorithm(algo, save_path, args, steps, arena, training)
    for opponent, res in arena.items():
        if writer is not None:
            writer.add_scalar(f"eval/win_rate_vs_{opponent}", res["win_rate"], steps)
            writer.add_scalar(
                f"eval/elo_vs_{opponent}", elo(res["win_rate"], res.get("games")), steps
            )
        print(f"final eval vs {opponent}: win rate {res['win_rate']:.3f} over {res['games']} games")
    if writer is not None:
        writer.close()
    algo.stop()
    print(f"saved {save_path} after {steps} env steps ({game_steps} game steps)", flush=True)
    return save_path
