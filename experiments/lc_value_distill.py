"""Le Chocolat: fit a search file's value to depth-3 alpha-beta's values (a study).

The ``az`` search of Le Chocolat's file plays about even with ``alphabeta:depth=3`` and
gets worse when it trusts its values more (docs/results.md): its value, fitted to game
outcomes, explains little. This study distils a lookahead into the value instead: at
positions of games of the file's policy (moves sampled) against ``greedy`` and
``alphabeta:depth=3``, the target of the seat to act is tanh(V / SCALE), V the best of
``alphabeta.action_values(game, state, 3)`` (the seat's lead in expected VP three turns
on, read from what that seat knows), the other seat's its negation. The network still
reads only the seat's policy input; the fit keeps its policy by a KL term. The written
file stores ``margin_weight`` 1 and ``margin_scale`` SCALE in its search settings, so
that its search values a finished game as tanh(margin / SCALE), in the value's units.

    python experiments/lc_value_distill.py --games 1500 --workers 2 --out runs/lc_distill

Then screen its search: ``choco eval --env le_chocolat_v0 --bots
az:checkpoint=runs/lc_distill/final.safetensors alphabeta:depth=3 --games 200 --seed 11
--workers 2``.
"""

from __future__ import annotations

import argparse
import copy
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

ENV = "le_chocolat_v0"


def play(job: tuple[str, int, int, float, int]) -> tuple[np.ndarray, np.ndarray]:
    """(file, games, seed, scale, keep) -> policy inputs and value targets of ``keep``
    positions a game (every decision of either seat, drawn at random)."""
    import torch

    from choco_envs import bots
    from choco_envs.bots.base import AgentView
    from choco_envs.bots.le_chocolat.alphabeta import action_values
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.policy.features import PolicyInputs
    from choco_envs.registry import make_game

    path, games, seed, scale, keep = job
    torch.set_num_threads(1)
    model, meta = load_policy(path, ENV)
    game = make_game(ENV, num_players=2)
    inputs = PolicyInputs.of_checkpoint(game, meta)
    flat = game.encoder("flat")
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    opponents = [bots.make(s, env_id=ENV, seed=seed) for s in ("greedy", "alphabeta:depth=3")]
    xs, zs = [], []
    for g in range(games):
        s = game.new_state(rng)
        net_seat, opponent = g % 2, opponents[(g // 2) % 2]
        positions = []
        while not game.is_over(s):
            p = game.current_player(s)
            legal = game.legal_actions(s)
            if len(legal) > 1:
                positions.append((inputs.encode(s, p), game.copy(s), p))  # p acts at s
            if p == net_seat:
                x = torch.from_numpy(inputs.encode(s, p)[None])
                mask = torch.from_numpy(game.legal_mask(s)[None].astype(bool))
                with torch.no_grad():
                    logits, _ = model(x, mask)
                action = int(torch.multinomial(logits.softmax(-1), 1, generator=gen))
            else:
                view = AgentView(game, s, p, flat.encode(s, p), game.legal_mask(s))
                action = opponent.act_view(view)
            game.apply(s, action, rng)
        for x, t, _seat in rng.sample(positions, min(keep, len(positions))):
            v = max(action_values(game, t, 3).values())
            own = float(np.tanh(v / scale))
            xs.append(x)
            zs.append(np.array([own, -own], np.float32))
    return np.stack(xs), np.stack(zs)


def fit(model: Any, x: np.ndarray, z: np.ndarray, steps: int, lr: float, seed: int) -> None:
    """The az engine's value fit (``choco_envs.train.az.fit_value``: squared error of
    tanh(value), the policy held by KL to its start) on nine tenths of the positions, the
    weights of the lowest error on the other tenth kept."""
    import torch

    from choco_envs.train.az import fit_value

    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    held, used = order[: len(x) // 10], order[len(x) // 10 :]
    xt, zt = torch.from_numpy(x), torch.from_numpy(z)
    error = fit_value(model, (xt[used], zt[used]), (xt[held], zt[held]), steps, lr, seed, True)
    print(f"kept: held-out error {error:.4f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default="checkpoints/le_chocolat_v0/az.safetensors")
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--keep", type=int, default=12, help="positions kept a game")
    parser.add_argument("--scale", type=float, default=5.0, help="VP of tanh(V / scale)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="runs/lc_distill")
    args = parser.parse_args()
    from concurrent.futures import ProcessPoolExecutor

    from choco_envs.policy.checkpoint import load_policy, save_checkpoint

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    chunk = 50
    jobs = [
        (args.checkpoint, min(chunk, args.games - k), args.seed + 7919 * k, args.scale, args.keep)
        for k in range(0, args.games, chunk)
    ]
    parts = []
    with ProcessPoolExecutor(args.workers) as pool:
        for k, part in enumerate(pool.map(play, jobs)):
            parts.append(part)
            print(
                f"games {min((k + 1) * chunk, args.games)}/{args.games}, "
                f"{time.perf_counter() - began:.0f} s",
                flush=True,
            )
    x = np.concatenate([p[0] for p in parts])
    z = np.concatenate([p[1] for p in parts])
    np.savez_compressed(out / "data.npz", x=x, z=z)
    print(f"{len(x)} positions, mean |target| {np.abs(z[:, 0]).mean():.3f}", flush=True)
    model, meta = load_policy(args.checkpoint, ENV)
    fit(model, x, z, args.steps, args.lr, args.seed)
    meta = copy.deepcopy(meta)
    meta["search"] = {**meta.get("search", {}), "margin_weight": 1.0, "margin_scale": args.scale}
    meta.setdefault("training", {})["distilled"] = (
        f"value fitted to tanh(alphabeta depth-3 value / {args.scale}) on {len(x)} positions "
        f"of {args.games} games (experiments/lc_value_distill.py)"
    )
    path = save_checkpoint(out / "final.safetensors", model, meta)
    print(f"wrote {path} in {time.perf_counter() - began:.0f} s", flush=True)


if __name__ == "__main__":
    main()
