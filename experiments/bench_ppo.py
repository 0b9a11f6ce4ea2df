"""Speed of masked PPO self-play (choco_envs.train.ppo) against sb3-contrib's
MaskablePPO through SingleAgentEnv, on the same env and machine, in one run.

    python experiments/bench_ppo.py --env-id chocolates_v0 --steps 100000

Both collect and learn (the same MLP sizes, 2048 learner steps per rollout, 4 epochs of
4 minibatches, one torch thread). Timed: self-play's whole ``train`` call (env and network setup included),
MaskablePPO's ``learn`` call; module imports (torch's lazy optimizer imports included)
are done before, for both.
Env steps count every action applied to a game, whoever took it (the learner's or a
bot's); learner steps count the decisions trained on. Self-play runs pure self-play (every
seat is the learner); MaskablePPO plays against random bots (the cheapest opponent).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TRAINING = Path(__file__).resolve().parents[1] / "training"


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"choco_bench_{name}", TRAINING / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def bench_selfplay(env_id: str, steps: int, num_envs: int, tmp: Path) -> dict[str, float]:
    from choco_envs.train import ppo

    args = ppo.Args(
        env_id=env_id,
        total_timesteps=steps,
        num_envs=num_envs,
        num_steps=32,
        league_self_play=1.0,
        league_past=0.0,
        league_bots={},
        eval_every=0,
        final_eval_games=0,
        track=False,
        progress=False,
        save_path=str(tmp / "bench.safetensors"),
    )
    start = time.perf_counter()
    path = ppo.train(args, command="bench")
    elapsed = time.perf_counter() - start
    from choco_envs.policy.checkpoint import read_metadata

    env_steps = read_metadata(path)["steps_trained"]
    return {"env_steps": env_steps, "learner_steps": env_steps, "seconds": elapsed}


def bench_sb3(env_id: str, steps: int, num_envs: int, defaults: bool) -> dict[str, float]:
    sb3 = _load("sb3_maskable_ppo")
    if defaults:  # MaskablePPO's own defaults: 2048 steps, minibatches of 64, 10 epochs, 64x64
        args = sb3.Args(
            env_id=env_id,
            opponents=("random",),
            total_timesteps=steps,
            num_envs=num_envs,
            n_steps=2048 // num_envs,
            batch_size=64,
            n_epochs=10,
            hidden=(64, 64),
            eval_games=0,
        )
    else:
        args = sb3.Args(
            env_id=env_id,
            opponents=("random",),
            total_timesteps=steps,
            num_envs=num_envs,
            n_steps=max(32, 2048 // num_envs),
            eval_games=0,
        )
    model = sb3.make_model(args)
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    elapsed = time.perf_counter() - start
    env_steps = sum(env.env_steps for env in model.get_env().envs)
    return {"env_steps": env_steps, "learner_steps": model.num_timesteps, "seconds": elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env-id", default="chocolates_v0")
    parser.add_argument(
        "--steps",
        type=int,
        default=100_000,
        help="env steps for self-play; learner steps for SB3 are half of it",
    )
    parser.add_argument("--num-envs", type=int, default=64, help="self-play games in parallel")
    parser.add_argument("--sb3-envs", type=int, default=8, help="MaskablePPO DummyVecEnv size")
    parser.add_argument(
        "--sb3-defaults",
        action="store_true",
        help="run MaskablePPO with its own defaults instead of matched settings",
    )
    a = parser.parse_args(argv)
    import sb3_contrib  # noqa: F401  (imports are not timed, for either trainer)
    import torch

    # The first optimizer built in a process imports torch._dynamo (seconds). MaskablePPO
    # builds its optimizer before learn() (untimed); build one here so that self-play's
    # timed train() does not pay that import either: imports are untimed for both.
    torch.optim.Adam([torch.zeros(1, requires_grad=True)])
    torch.set_num_threads(1)  # self-play's default (torch_threads=1), for MaskablePPO too

    with tempfile.TemporaryDirectory() as tmp:
        ours = bench_selfplay(a.env_id, a.steps, a.num_envs, Path(tmp))
    theirs = bench_sb3(a.env_id, a.steps // 2, a.sb3_envs, a.sb3_defaults)
    print(f"{'trainer':<28} {'env steps/s':>12} {'learner steps/s':>16}")
    for name, r in (("ppo_selfplay", ours), ("sb3-contrib MaskablePPO", theirs)):
        print(
            f"{name:<28} {r['env_steps'] / r['seconds']:>12.0f} {r['learner_steps'] / r['seconds']:>16.0f}"
        )
    env_ratio = (ours["env_steps"] / ours["seconds"]) / (theirs["env_steps"] / theirs["seconds"])
    learner_ratio = (ours["learner_steps"] / ours["seconds"]) / (
        theirs["learner_steps"] / theirs["seconds"]
    )
    print(
        f"ratio (self-play / MaskablePPO): env steps/s {env_ratio:.2f}x, learner steps/s {learner_ratio:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
