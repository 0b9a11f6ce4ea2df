"""Arena results of the shipped checkpoints against an MCTS bot, for the "vs MCTS" column
of checkpoints/README.md (``training/checkpoint_table.py`` reads the JSON this writes).

    python training/mcts_table.py                          # every shipped checkpoint
    python training/mcts_table.py --mcts mcts:simulations=200 --games 20 --seed 1

Each checkpoint plays ``--games`` 2-player games against ``--mcts`` in the arena (seats
rotated, duplicate deals; ``choco_envs.arena.run_arena``), with the game options it was
trained with. A fixed simulation budget (not a time budget) keeps the opponent the same
on any machine. Results go to ``checkpoints/mcts_arena.json``, keyed by checkpoint file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "checkpoints" / "mcts_arena.json"


def evaluate(path: Path, mcts: str, games: int, seed: int, workers: int) -> dict[str, Any]:
    from choco_envs.arena import run_arena
    from choco_envs.policy.checkpoint import file_sha256, read_metadata

    meta = read_metadata(path)
    options = {k: v for k, v in meta["options"].items() if k != "num_players"}
    policy = f"policy:{path}"
    report = run_arena(
        meta["env_id"],
        [policy, mcts],
        players=int(meta["options"]["num_players"]),
        games=games,
        seed=seed,
        env_options=options,
        workers=workers,
        progress=False,
    )
    mine = report["bots"][0]  # rows follow the order of the bots given
    return {
        "opponent": mcts,
        "games": report["games_played"],
        "win_rate": mine["win_rate"],
        "win_rate_ci95": mine["win_rate_ci95"],
        "seed": seed,
        "checkpoint_sha256": file_sha256(path),
        "command": "python training/mcts_table.py " + " ".join(sys.argv[1:]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="*", help="checkpoints (default: every shipped one)")
    parser.add_argument("--mcts", default="mcts:simulations=200", help="the MCTS bot spec")
    parser.add_argument("--games", type=int, default=20, help="games per checkpoint")
    parser.add_argument("--seed", type=int, default=1, help="arena seed")
    parser.add_argument("--workers", type=int, default=1, help="arena processes")
    a = parser.parse_args(argv)
    paths = [Path(p).resolve() for p in a.paths] or sorted(
        (REPO / "checkpoints").glob("*/*.safetensors")
    )
    results = json.loads(OUT.read_text()) if OUT.is_file() else {}
    for path in paths:
        key = str(path.relative_to(REPO / "checkpoints"))
        res = evaluate(path, a.mcts, a.games, a.seed, a.workers)
        results[key] = res
        print(f"{key}: {res['win_rate']:.1%} of {res['games']} games vs {a.mcts}", flush=True)
        OUT.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
