"""Env steps/s of the RLlib trainer with 0, 1 and 2 EnvRunners beside the home-made
trainer's, in one run (the figures of docs/scale.md).

    pip install -e ".[rllib]"
    python examples/scale_bench.py --env-id chocolates_v0 --seconds 60 --json runs/scale.json

Both trainers get the same work: masked PPO self-play with a league of self-play 0.4,
past snapshots 0.2 and bots random 0.7 / greedy 0.3, 2,048 env steps a rollout, 4 epochs
of 4 minibatches, a 256x256 MLP, one torch thread, no evaluation. "Game steps" are every action applied to a game (the
learner's, the snapshots' and the bots'): what the home-made trainer counts as env
steps. RLlib's own "env steps" count only the network decisions it samples (bot moves
are played inside the env); both are reported. Each RLlib row is measured after its
first iteration (Ray start-up, actor creation and the first sample are shown apart).
The home-made trainer runs through ``choco_envs.cli.main(["train", ...])``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

LEAGUE = {
    "league_self_play": 0.4,
    "league_past": 0.2,
    "league_bots": {"random": 0.7, "greedy": 0.3},
}


def home_made(env_id: str, steps: int, workdir: Path) -> dict[str, Any]:
    """The project's own trainer (``choco train``), one process, on ``steps`` env steps."""
    from choco_envs.cli import main as choco
    from choco_envs.policy.checkpoint import read_metadata

    save = workdir / "home.safetensors"
    command = [
        "train",
        "--env-id",
        env_id,
        "--options",
        "num_players=2",
        "--total-timesteps",
        str(steps),
        "--num-envs",
        "64",
        "--num-steps",
        "32",
        "--num-workers",
        "0",
        "--league-self-play",
        "0.4",
        "--league-past",
        "0.2",
        "--league-bots",
        "random=0.7",
        "--league-bots",
        "greedy=0.3",
        "--eval-every",
        "0",
        "--final-eval-games",
        "0",
        "--track",
        "false",
        "--progress",
        "false",
        "--save-path",
        str(save),
        "--run-name",
        "scale_bench_home",
    ]
    start = time.time()
    choco(command)
    seconds = time.time() - start
    done = int(read_metadata(save)["steps_trained"])
    return {
        "trainer": "home-made (choco train, 1 process)",
        "command": "choco " + " ".join(command),
        "game_steps": done,
        "seconds": round(seconds, 1),
        "game_steps_per_s": round(done / seconds, 1),
    }


def rllib(env_id: str, runners: int, seconds: float) -> dict[str, Any]:
    """The RLlib trainer with ``runners`` EnvRunners for about ``seconds`` after its
    first iteration."""
    import ray

    from choco_envs.integrations.rllib.args import Args
    from choco_envs.integrations.rllib.train import build_config, init_ray

    args = Args(
        env_id=env_id,
        options={"num_players": 2},
        num_env_runners=runners,
        num_envs_per_env_runner=8,
        train_batch_size=2048,
        minibatch_size=512,
        update_epochs=4,
        hidden=(256, 256),
        **LEAGUE,
    )
    t0 = time.time()
    init_ray(args)
    algo = build_config(args).build_algo()
    t_built = time.time()
    result = algo.train()
    t_first = time.time()
    steps0 = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
    game0 = game = int(result["env_runners"].get("game_steps", 0))
    iterations = 1
    while time.time() - t_first < seconds:
        result = algo.train()
        game += int(result["env_runners"].get("game_steps", 0))
        iterations += 1
    elapsed = time.time() - t_first
    steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
    algo.stop()
    ray.shutdown()
    return {
        "trainer": f"RLlib PPO, {runners} EnvRunner{'s' if runners != 1 else ''}",
        "num_env_runners": runners,
        "startup_s": round(t_built - t0, 1),
        "first_iteration_s": round(t_first - t_built, 1),
        "iterations_measured": iterations - 1,
        "seconds": round(elapsed, 1),
        "env_steps_per_s": round((steps - steps0) / elapsed, 1),
        "game_steps_per_s": round((game - game0) / elapsed, 1),
    }


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--env-id", default="chocolates_v0")
    p.add_argument("--seconds", type=float, default=60.0, help="measured time per RLlib row")
    p.add_argument("--home-steps", type=int, default=40_960, help="env steps of the home-made run")
    p.add_argument("--runners", default="0,1,2")
    p.add_argument("--json", default="", help="write the rows here")
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows.append(home_made(args.env_id, args.home_steps, Path(tmp)))
        print(json.dumps(rows[-1]), flush=True)
    for runners in (int(r) for r in args.runners.split(",")):
        rows.append(rllib(args.env_id, runners, args.seconds))
        print(json.dumps(rows[-1]), flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"env_id": args.env_id, "rows": rows}, indent=1))
    return rows


if __name__ == "__main__":
    main()
