"""Where a Chocolatiers policy and a greedy teacher disagree, by kind of decision.

    python training/chocolatiers_agreement.py checkpoints/chocolatiers_v1/ppo_classic.safetensors
    python training/chocolatiers_agreement.py runs/<run>/imitation.safetensors \\
        --teacher greedy:used_cost=1.2,contest=10,wild_contest=1 --games 30

Plays ``--games`` games of the policy (its most likely move) against the baseline greedy
bot, seats alternating, and at each of the policy's decisions with more than one legal
action asks the teacher (a greedy bot spec, on the same position: the greedy bot reads
only its own hand and public facts) what it would do. Prints, per kind of decision (the
teacher's choice: take, box, wild, pass at the start of a step; pay, place, discard), how
often the two differ. Imitation reports one held-out agreement; this says which
decisions carry the disagreement.
"""

from __future__ import annotations

import argparse
import collections
import random


def kind(phase: int, action: int) -> str:
    from choco_envs.games.chocolatiers import rules as r

    names = {r.TAKE_MORE: "take (2nd card)", r.PAY: "pay", r.PLACE_TILE: "place"}
    if phase in names:
        return names[phase]
    if phase == r.DISCARD_DOWN:
        return "discard"
    if action < r.GIVE:
        return "take"
    if action < r.BOX:
        return "exchange"
    if action <= r.BOX_RESERVED:
        return "box"
    if r.PLACE_WILD <= action < r.PLACE_WILD + 36:
        return "wild"
    if action == r.PASS:
        return "pass"
    return "reserve"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="a chocolatiers_v1 policy file")
    parser.add_argument("--teacher", default="greedy", help="greedy bot spec (default: greedy)")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import torch

    from choco_envs.bots import make
    from choco_envs.core.errors import ConfigError
    from choco_envs.games.chocolatiers.greedy import greedy_action
    from choco_envs.policy.checkpoint import load_policy
    from choco_envs.registry import make_game

    model, meta = load_policy(args.checkpoint)
    if meta["env_id"] != "chocolatiers_v1":
        parser.error(f"{args.checkpoint}: a policy for {meta['env_id']}, not chocolatiers_v1")
    if args.teacher.split(":")[0].strip() != "greedy":
        parser.error(f"--teacher {args.teacher!r}: allowed: greedy[:key=value,...]")
    try:
        settings = make(args.teacher, env_id="chocolatiers_v1").options
    except ConfigError as err:
        parser.error(str(err))
    game = make_game("chocolatiers_v1", **meta["options"])
    encoder = game.encoder(meta["encoder"])
    total: collections.Counter[str] = collections.Counter()
    wrong: collections.Counter[str] = collections.Counter()
    rng = random.Random(args.seed)
    for g in range(args.games):
        s = game.new_state(rng)
        me = g % game.num_players
        while not game.is_over(s):
            p = game.current_player(s)
            if p != me:
                game.apply(s, greedy_action(game, s, rng), rng)
                continue
            obs = torch.as_tensor(encoder.encode(s, p))[None]
            mask = torch.as_tensor(game.legal_mask(s))[None]
            with torch.no_grad():
                action = int(model(obs, mask)[0].argmax())
            if len(game.legal_actions(s)) > 1:
                teacher = greedy_action(game, s, random.Random(rng.random()), **settings)
                k = kind(s.phase, teacher)
                total[k] += 1
                wrong[k] += action != teacher
            game.apply(s, action, rng)
    print(f"{args.checkpoint} against teacher {args.teacher!r}, {args.games} games:")
    print("| decision (teacher's) | count | differ |\n|---|---|---|")
    for k in sorted(total):
        print(f"| {k} | {total[k]} | {wrong[k] / total[k]:.2f} |")
    n, w = sum(total.values()), sum(wrong.values())
    print(f"| all | {n} | {w / max(1, n):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
