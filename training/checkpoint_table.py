"""Print the markdown table of checkpoints/README.md from the shipped checkpoints'
metadata (no torch needed), and the "vs MCTS" column from checkpoints/mcts_arena.json
(written by training/mcts_table.py).

    python training/checkpoint_table.py            # every checkpoints/*/*.safetensors
    python training/checkpoint_table.py PATH ...   # these checkpoints
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from choco_envs.policy.checkpoint import file_sha256, read_metadata

REPO = Path(__file__).resolve().parents[1]
_MCTS_JSON = REPO / "checkpoints" / "mcts_arena.json"
MCTS_RESULTS = json.loads(_MCTS_JSON.read_text()) if _MCTS_JSON.is_file() else {}


def _rate(arena: dict, opponent: str) -> str:
    result = arena.get(opponent)
    if not result:
        return "-"
    games = result.get("games")
    return f"{result['win_rate']:.1%}" + (f" ({int(games)} games)" if games else "")


def row(path: Path) -> str:
    meta = read_metadata(path)
    options = ", ".join(f"{k}={v}" for k, v in meta["options"].items() if k != "components")
    size = path.stat().st_size / 1e6
    training = meta.get("training", {})
    minutes = training.get("minutes", "?")
    arena = meta.get("arena", {})
    mcts = next((k for k in arena if k.startswith("mcts")), None)
    vs_mcts = "-"
    if mcts:
        vs_mcts = f"{_rate(arena, mcts)} `{mcts}`"
    key = str(path.relative_to(REPO / "checkpoints")) if path.is_relative_to(REPO) else ""
    r = MCTS_RESULTS.get(key)  # written by training/mcts_table.py, for this very file
    if r and r.get("checkpoint_sha256") == file_sha256(path):
        vs_mcts = f"{r['win_rate']:.1%} ({r['games']} games) `{r['opponent']}`"
    imitation = training.get("imitation")
    warm = (
        f" after imitating {imitation['teacher']} ({imitation['decisions']:,} decisions)"
        if imitation
        else ""
    )
    kept = training.get("kept_best")
    if kept:  # keep_best: the file holds the weights of one periodic evaluation
        warm += f", weights kept from step {kept['at_step']:,}"
    shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    return (
        f"| `{shown}` | {meta['env_id']} v{meta['version']} | {options} | "
        f"{_rate(arena, 'random')} | {_rate(arena, 'greedy')} | "
        f"{vs_mcts} | "
        f"{meta['steps_trained']:,} steps, {minutes} min{warm} | {size:.2f} MB | "
        f"`{training.get('command', '?')}` |"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    paths = [Path(p) for p in argv] or sorted((REPO / "checkpoints").glob("*/*.safetensors"))
    print(
        "| checkpoint | env | options | vs random | vs greedy | vs MCTS | trained | size | command |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        print(row(path.resolve()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
