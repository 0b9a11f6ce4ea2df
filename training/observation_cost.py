"""What an observation and a greedy move cost, per step, on positions from random play
(or, with ``--play greedy``, from games the greedy bot plays).

    python training/observation_cost.py --env le_chocolat_v0 --encoder derived
    python training/observation_cost.py --env chocolatiers_v1 --encoder derived flat --games 50

Plays ``--games`` games with uniformly random moves (seeded; ``--play greedy``: the greedy
bot's moves) and, at every step, times
the observation of the seat to act for each ``--encoder`` and one greedy move on a
determinization of its view (what the greedy bot does). Prints the mean milliseconds per
step of each; the figures in the game docs come from here. Shared machines are noisy:
compare numbers from one run.
"""

from __future__ import annotations

import argparse
import random
import time


def measure(
    env_id: str, encoders: list[str], games: int, seed: int, play: str = "random"
) -> dict[str, float]:
    """Mean milliseconds per step: ``encoder:<name>`` for each encoder, and ``greedy``,
    on the positions of games played by uniformly random moves (``play="random"``) or by
    the greedy bot's (``"greedy"``: positions like those of games against it)."""
    from choco_envs.bots.game_kinds import game_policy
    from choco_envs.registry import make_game

    game = make_game(env_id)
    coders = {name: game.encoder(name) for name in encoders}
    rng = random.Random(seed)
    total = {f"encoder:{name}": 0.0 for name in encoders} | {"greedy": 0.0}
    steps = 0
    for _ in range(games):
        s = game.new_state(rng)
        while not game.is_over(s):
            p = game.current_player(s)
            for name, coder in coders.items():
                t = time.perf_counter()
                coder.encode(s, p)
                total[f"encoder:{name}"] += time.perf_counter() - t
            view = game.determinize(s, p, rng)
            t = time.perf_counter()
            move = game_policy(game.spec.env_id)(game, view, rng)
            total["greedy"] += time.perf_counter() - t
            game.apply(s, move if play == "greedy" else rng.choice(game.legal_actions(s)), rng)
            steps += 1
    return {key: 1000 * value / max(1, steps) for key, value in total.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, help="env id, e.g. le_chocolat_v0")
    parser.add_argument("--encoder", nargs="+", default=["flat"], help="observation names")
    parser.add_argument("--games", type=int, default=30, help="random games to time over")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--play",
        choices=("random", "greedy"),
        default="random",
        help="who plays the games timed over: random moves (default) or the greedy bot",
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games {args.games} is not allowed; allowed: an int >= 1")
    from choco_envs.core.errors import ConfigError

    try:
        result = measure(args.env, args.encoder, args.games, args.seed, args.play)
    except ConfigError as err:
        parser.error(str(err))
    for key, ms in result.items():
        print(f"{args.env} {key}: {ms:.3f} ms a step ({args.play} play)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
