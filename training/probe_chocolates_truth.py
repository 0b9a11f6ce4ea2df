"""Can a network learn, from Chocolates' ``flat`` observation, whether the prediction
cards on display are true? The experiment behind the ``beliefs`` observation.

    python training/probe_chocolates_truth.py --games 20000 --epochs 8

Plays random games (2 players), records every decision's ``flat`` observation and the
truth of the 3 display cards (from the full layout: training labels only), fits a
256x256 MLP (binary cross-entropy) on all but the last ``--test-games`` games, and prints
the held-out log-loss of: the base rate (one constant), the MLP after each epoch, and the
``beliefs`` observation's ``display_truth`` (Monte Carlo over the unseen chocolates from the
face-up ones only). Lower is better.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np


def collect(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(flat observations, display-card truth, beliefs' display_truth, game index)."""
    from choco_envs.games.chocolates.predictions import evaluate_all
    from choco_envs.registry import make_game

    game = make_game("chocolates_v0", num_players=2)
    flat, beliefs = game.encoder("flat"), game.encoder("beliefs")
    field = beliefs.layout["display_truth"]
    rng = random.Random(seed)
    obs, truth, estimate, index = [], [], [], []
    for g in range(games):
        s = game.new_state(rng)
        true = evaluate_all(s.layout)
        while not game.is_over(s):
            p = game.current_player(s)
            obs.append(flat.encode(s, p))
            estimate.append(beliefs.encode(s, p)[field])
            truth.append([float(true[c]) if c >= 0 else 0.0 for c in s.display])
            index.append(g)
            game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return (
        np.array(obs),
        np.array(truth, dtype=np.float32),
        np.array(estimate, dtype=np.float32),
        np.array(index),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20_000, help="random games played")
    parser.add_argument("--test-games", type=int, default=1_000, help="held-out games")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args(argv)
    if not 0 < a.test_games < a.games:
        parser.error(f"--test-games={a.test_games} must be between 1 and --games - 1")
    import torch
    from torch.nn.functional import binary_cross_entropy, binary_cross_entropy_with_logits

    torch.manual_seed(a.seed)
    start = time.time()
    obs, truth, estimate, index = collect(a.games, a.seed)
    test = index >= a.games - a.test_games
    x, y = torch.from_numpy(obs), torch.from_numpy(truth)
    x_train, y_train, x_test, y_test = x[~test], y[~test], x[test], y[test]
    print(f"{len(obs)} decisions from {a.games} random games ({time.time() - start:.0f} s)")
    base = float(y_train.mean())
    rows = [("base rate", binary_cross_entropy(torch.full_like(y_test, base), y_test).item())]
    est = torch.from_numpy(estimate[test]).clamp(1e-3, 1 - 1e-3)
    rows.append(("beliefs display_truth", binary_cross_entropy(est, y_test).item()))
    net = torch.nn.Sequential(
        torch.nn.Linear(x.shape[1], 256),
        torch.nn.Tanh(),
        torch.nn.Linear(256, 256),
        torch.nn.Tanh(),
        torch.nn.Linear(256, 3),
    )
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    best = float("inf")
    for epoch in range(1, a.epochs + 1):
        for batch in torch.randperm(len(x_train)).split(512):
            loss = binary_cross_entropy_with_logits(net(x_train[batch]), y_train[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            held_out = binary_cross_entropy_with_logits(net(x_test), y_test).item()
        best = min(best, held_out)
        print(f"epoch {epoch}: MLP held-out log-loss {held_out:.4f}", flush=True)
    rows.append((f"MLP on flat, best of {a.epochs} epochs", best))
    print("\n| predictor of the display cards' truth | held-out log-loss |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
