"""How often a Chocolatiers network plays what the ``expert`` heuristic plays, by kind of
decision, on the positions of games ``expert`` plays against itself at one table.

A network imitating ``expert`` (``choco train ... --imitate expert``) reports one held-out
agreement; this splits it: the exchanges ``expert`` makes (does the network exchange, and
give the same card?), its takes where an exchange was also legal, the second and third
takes of an exchange (phase 1), payments (2), tile placements (3), discards (4).

    python experiments/chocolatiers_agreement.py FILE --edition standard --players 3 --games 15

Results: docs/results.md, "Chocolatiers: the expert heuristic exchanges".
"""

from __future__ import annotations

import argparse
import random
from typing import Any

import torch

from choco_envs.bots.chocolatiers.greedy import (
    EXPERT,
    Weights,
    expert_action,
    hand_value,
    value_after_takes,
)
from choco_envs.games.chocolatiers.rules import CHOOSE, GIVE, NT, PHASE_NAMES, TAKE_MORE
from choco_envs.policy.checkpoint import load_policy
from choco_envs.policy.features import PolicyInputs
from choco_envs.registry import make_game


def kind_of(phase: int, action: int, legal: list[int]) -> str:
    if phase != CHOOSE:
        return PHASE_NAMES[phase]
    if GIVE <= action < GIVE + NT:
        return "choose: exchange"
    if action < GIVE:
        exchange_legal = any(GIVE <= a < GIVE + NT for a in legal)
        return "choose: take (exchange legal)" if exchange_legal else "choose: take"
    return "choose: other"


def option_value(game: Any, s: Any, action: int, w: Weights) -> float | None:
    """``expert``'s own value of a take or an exchange (its hand value after the take, less
    its exchange margin in the choose phase; after an exchange's two best takes), or None
    for any other action: what tells a real disagreement from a tie."""
    base = s.player * NT
    if action < GIVE and s.phase in (CHOOSE, TAKE_MORE):
        hand = s.hand[base : base + NT]
        hand[action] += 1
        margin = w.exchange if s.phase == CHOOSE and w.exchange is not None else 0.0
        return float(hand_value(game, s, hand, w)) - margin
    if GIVE <= action < GIVE + NT and s.phase == CHOOSE:
        after = game.copy(s)
        game.apply(after, action, random.Random(0))
        return value_after_takes(game, after, after.hand[base : base + NT], list(after.tray), 2, w)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--edition", default="standard", choices=["standard", "classic"])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    model, meta = load_policy(args.file, "chocolatiers_v1")
    model.eval()
    game = make_game("chocolatiers_v1", edition=args.edition, num_players=args.players)
    inputs = PolicyInputs.of_checkpoint(game, meta)
    rng = random.Random(args.seed)
    rows: dict[str, list[int]] = {}
    keys = ("used_cost", "missing_cost", "contest", "wild_contest", "exchange")
    w = Weights(*(EXPERT[k] for k in keys))
    for _ in range(args.games):
        s = game.new_state(rng)
        while not game.is_over(s):
            legal = game.legal_actions(s)
            a = expert_action(game, s, rng)
            if len(legal) > 1:
                x = torch.from_numpy(inputs.encode(s, s.player)[None])
                mask = torch.from_numpy(game.legal_mask(s)[None].astype(bool))
                with torch.no_grad():
                    b = int(model(x, mask)[0][0].argmax())
                row = rows.setdefault(kind_of(s.phase, a, legal), [0, 0, 0, 0])
                row[0] += 1
                row[1] += a == b
                row[2] += GIVE <= b < GIVE + NT
                if a == b:
                    row[3] += 1
                else:
                    va, vb = option_value(game, s, a, w), option_value(game, s, b, w)
                    row[3] += va is not None and vb is not None and vb >= va - 1e-9
            game.apply(s, a, rng)
    print(f"{args.file}, {args.edition}, {args.players} players, {args.games} games of expert")
    print(
        f"{'decision':32s} {'n':>6s} {'agreement':>10s} {'network exchanges':>18s}"
        f" {'as good (expert values)':>24s}"
    )
    for kind, (n, same, exchanged, good) in sorted(rows.items()):
        print(f"{kind:32s} {n:6d} {same / n:10.3f} {exchanged / n:18.3f} {good / n:24.3f}")


if __name__ == "__main__":
    main()
