"""Compact copies of trained files: the weights rounded to float16 (half the bytes), the
file's stored evaluation measured again with the rounded weights.

A shipped file has a size budget (``SHIPPED_BUDGET_BYTES``: the wheel carries every
one). A network whose float32 file is over it usually fits in float16, and rounding the
weights to 11 significant bits rarely changes a move; but "rarely" is not a figure, so
the copy's ``arena`` (and ``arena_tables``) are not carried over: the run's own final
evaluation (``choco_envs.train.evaluation.final_evaluation``, the same deals and games) is
played again by the rounded network, the float32 file's figures kept beside them
(``weights.arena_before``), by the engine that trained it (the ``ppo`` engine's
evaluation, or the ``az`` engine's: the network alone against its ``eval_opponents``).
A file's search results (``arena_search``) are not played again: they move to
``weights.arena_search_before``, and ``choco ship --record`` stores the copy's own. ``choco ship FILE --float16`` makes the copy and ships it.

    python -m choco_envs.train.compact runs/NAME/final.safetensors   # writes final.float16.safetensors
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path
from typing import Any

from choco_envs.core.errors import ChocoError, ConfigError

#: the largest magnitude float16 holds (a weight past it would round to infinity)
FLOAT16_MAX = 65504.0


def float16_path(run_file: Path) -> Path:
    """Where the compact copy of ``run_file`` goes: beside it, ``NAME.float16.safetensors``."""
    return run_file.with_name(f"{run_file.stem}.float16{run_file.suffix}")


def float16_copy(run_file: Path, out: Path | None = None, progress: bool = False) -> Path:
    """Write ``run_file``'s network with float16 weights to ``out`` (default
    ``float16_path``), its evaluation measured again with those weights; returns ``out``.
    ConfigError for a file that is float16 already, has no stored evaluation to measure
    again, or has a weight float16 cannot hold."""
    import torch

    from choco_envs.policy.checkpoint import file_sha256, load_policy, read_header, save_checkpoint
    from choco_envs.train import az, evaluation, ppo
    from choco_envs.train.config import build

    run_file = Path(run_file)
    model, meta = load_policy(run_file)
    engine = (meta.get("training") or {}).get("engine")
    Args: Any = az.Args if engine == "az" else ppo.Args
    final_evaluation = az.final_evaluation if engine == "az" else evaluation.final_evaluation
    if "weights" in meta:
        raise ConfigError(f"{str(run_file)!r} holds {meta['weights'].get('dtype')} weights already")
    stored = (meta.get("training") or {}).get("args")
    if not isinstance(stored, dict):
        raise ConfigError(f"{str(run_file)!r} has no training arguments to evaluate it again by")
    fields = {k: v for k, v in stored.items() if k not in ("progress", "track")}
    args: Any = build(Args, fields, source=f"{run_file}: training args")
    if not args.final_eval_games:
        raise ConfigError(
            f"{str(run_file)!r} was trained with final_eval_games=0: it has no stored "
            "evaluation to measure again"
        )
    args.progress = progress
    half = copy.deepcopy(model)
    with torch.no_grad():
        for name, tensor in half.state_dict().items():
            if not bool(torch.all(tensor.abs() <= FLOAT16_MAX)):
                raise ConfigError(
                    f"{str(run_file)!r}: weight {name!r} exceeds float16's range "
                    f"(|w| <= {FLOAT16_MAX:g}); ship it as float32"
                )
            tensor.copy_(tensor.half().float())  # the network plays exactly what is stored
    half.eval()
    arena, tables = final_evaluation(half, args)
    new = {k: v for k, v in meta.items() if k not in ("arena", "arena_tables")}
    new["arena"] = arena
    if tables:
        new["arena_tables"] = tables
    new["weights"] = {
        "dtype": "float16",
        "rounded_from": file_sha256(run_file),
        "arena_before": meta.get("arena"),
    }
    if meta.get("arena_search"):  # the search's figures were the float32 network's
        new["arena_search"] = {}
        new["weights"]["arena_search_before"] = meta["arena_search"]
    out = float16_path(run_file) if out is None else Path(out)
    save_checkpoint(out, half, new, float16=True)
    shapes, _ = read_header(out)  # the copy reads back (its byte ranges checked)
    assert set(shapes) == set(half.state_dict())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m choco_envs.train.compact",
        description="Write a float16 copy of a trained file, its evaluation measured again.",
    )
    parser.add_argument("run_file", help="the .safetensors file of a run")
    parser.add_argument("--out", help="where to write it (default: NAME.float16.safetensors)")
    parser.add_argument("--progress", choices=("true", "false"), default="true")
    ns = parser.parse_args(argv)
    try:
        out = float16_copy(Path(ns.run_file), ns.out and Path(ns.out), ns.progress == "true")
    except ChocoError as err:
        print(f"compact: error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({out.stat().st_size / 1024:,.0f} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
