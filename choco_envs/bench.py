"""Measure every env against its speed and memory budgets, beside PettingZoo's
connect_four_v3 measured in the same run (ratios, not absolute numbers, are what count on a
shared machine). Each game's manifest lists the configurations measured and their speed
budgets (docs/bench.md gives them all).

For each env configuration it reports: random AEC play (steps/s and games/s, with the
observation and mask built every step, as an RL loop does), raw rules playouts (what search
bots run on), the time and size of a state copy, and the memory of one env and of 256 envs;
then random AEC play with every observation encoder the env has (each must reach 1x
connect_four_v3). The random policy is the same for every env: a uniform choice among the
masked actions.

Examples:
    choco bench                       # every env, 3 s per measurement
    choco bench --env chocolates_v0 --seconds 5 --json bench.json --plot bench.png
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np


def bench_cases() -> list[tuple[str, dict[str, Any], float, float]]:
    """(env id, options, AEC budget, raw-playout budget) measured by default: every
    registered game's manifest's ``bench`` (budgets in x connect_four_v3 AEC steps/s)."""
    from choco_envs.registry import manifests

    return [
        (m.env_id, dict(case.options), case.aec, case.raw) for m in manifests() for case in m.bench
    ]


#: every encoder of every env, random AEC play, x connect_four_v3 (issue 21)
ENCODER_BUDGET = 1.0
COPY_BUDGET_US = 20.0
STATE_BUDGET_BYTES = 8 * 1024
ENV_BUDGET_BYTES = 1 * 1024 * 1024
ENVS_256_BUDGET_BYTES = 512 * 1024 * 1024
CHECKPOINT_BUDGET_BYTES = 5 * 1024 * 1024


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", action="append", help="only this env id (repeatable)")
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="time per measurement, > 0 (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random policy and games")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    parser.add_argument("--markdown", type=Path, help="write the table as markdown here")
    parser.add_argument("--plot", type=Path, help="write a bar chart of the ratios (PNG) here")
    parser.add_argument(
        "--no-reference", action="store_true", help="skip connect_four_v3 (ratios then unknown)"
    )


def aec_random_play(env: Any, seconds: float, seed: int) -> tuple[float, float]:
    """(steps/s, games/s) of random play through the AEC API, observing every step."""
    rng = random.Random(seed)
    choice, flat = rng.choice, np.flatnonzero
    steps = games = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
            else:
                env.step(choice(flat(obs["action_mask"]).tolist()))
            steps += 1
        games += 1
        if time.perf_counter() >= deadline:
            break
        env.reset()
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def raw_playouts(game: Any, seconds: float, seed: int) -> float:
    """Steps/s of random playouts on the rules alone (legal_actions + apply)."""
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    legal_actions, apply, is_over, choice = game.legal_actions, game.apply, game.is_over, rng.choice
    while time.perf_counter() < deadline:
        s = game.new_state(rng)
        while not is_over(s):
            apply(s, choice(legal_actions(s)), rng)
            steps += 1
    return steps / (time.perf_counter() - start)


def deep_size(obj: Any, seen: set[int] | None = None) -> int:
    """Bytes held by ``obj`` and everything it references (shared objects counted once;
    interned small ints and strings are shared and cost nothing per state)."""
    seen = seen if seen is not None else set()
    if id(obj) in seen or obj is None or isinstance(obj, (bool, type)):
        return 0
    if isinstance(obj, int) and -5 <= obj <= 256:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        size += sum(deep_size(x, seen) for x in obj)
    elif not isinstance(obj, np.ndarray):  # getsizeof already counts an array's own data
        if hasattr(obj, "__dict__"):
            size += deep_size(vars(obj), seen)
        for slot in getattr(type(obj), "__slots__", ()):
            if hasattr(obj, slot):
                size += deep_size(getattr(obj, slot), seen)
    return size


def copy_cost(game: Any, seed: int) -> tuple[float, int]:
    """(microseconds per copy, bytes) of a mid-game state."""
    rng = random.Random(seed)
    s = game.new_state(rng)
    for _ in range(20):
        if game.is_over(s):
            break
        game.apply(s, rng.choice(game.legal_actions(s)), rng)
    n = 2000
    start = time.perf_counter()
    for _ in range(n):
        game.copy(s)
    us = (time.perf_counter() - start) / n * 1e6
    return us, deep_size(game.copy(s))


def env_memory(env_id: str, options: dict[str, Any], count: int) -> int:
    """Bytes allocated by ``count`` reset envs (tracemalloc)."""
    from choco_envs.registry import make

    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    envs = [make(env_id, **options) for _ in range(count)]
    for i, e in enumerate(envs):
        e.reset(seed=i)
        e.last()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del envs
    return used


def reference_connect_four(seconds: float, seed: int) -> float | None:
    try:
        from pettingzoo.classic import connect_four_v3
    except Exception as err:  # noqa: BLE001 - pygame missing, say so and go on
        print(f"connect_four_v3 unavailable ({err}); install the 'bench' extra", file=sys.stderr)
        return None
    steps, _ = aec_random_play(connect_four_v3.env(), seconds, seed)
    return steps


def checkpoint_sizes() -> list[dict[str, Any]]:
    from choco_envs.policy.checkpoint import checkpoint_dir

    root = checkpoint_dir()
    rows: list[dict[str, Any]] = []
    if root is None or not root.is_dir():
        return rows
    for path in sorted(root.glob("**/*.safetensors")):
        size = path.stat().st_size
        rows.append(
            {
                "checkpoint": str(path.relative_to(root)),
                "bytes": size,
                "ok": size <= CHECKPOINT_BUDGET_BYTES,
            }
        )
    return rows


def measure(
    cases: list[tuple[str, dict[str, Any], float, float]],
    seconds: float,
    seed: int,
    reference: bool,
) -> dict[str, Any]:
    from choco_envs.registry import make, make_game

    ref = reference_connect_four(seconds, seed) if reference else None
    if ref:
        print(f"connect_four_v3 reference: {ref:,.0f} AEC steps/s", file=sys.stderr)
    rows = []
    for env_id, options, aec_budget, raw_budget in cases:
        label = env_id + "".join(f" {k}={v}" for k, v in options.items())
        print(f"measuring {label} ...", file=sys.stderr)
        aec_steps, games = aec_random_play(make(env_id, **options), seconds, seed)
        game = make_game(env_id, **options)
        raw = raw_playouts(game, seconds, seed)
        copy_us, state_bytes = copy_cost(game, seed)
        one = env_memory(env_id, options, 1)
        many = env_memory(env_id, options, 256)
        row: dict[str, Any] = {
            "env": label,
            "aec_steps_per_s": aec_steps,
            "games_per_s": games,
            "raw_steps_per_s": raw,
            "copy_us": copy_us,
            "state_bytes": state_bytes,
            "env_bytes": one,
            "envs256_bytes": many,
            "aec_budget": aec_budget,
            "raw_budget": raw_budget,
        }
        if ref:
            row["aec_ratio"] = aec_steps / ref
            row["raw_ratio"] = raw / ref
        row["ok"] = all(
            [
                row.get("aec_ratio", aec_budget) >= aec_budget,
                row.get("raw_ratio", raw_budget) >= raw_budget,
                copy_us <= COPY_BUDGET_US,
                state_bytes <= STATE_BUDGET_BYTES,
                one <= ENV_BUDGET_BYTES,
                many <= ENVS_256_BUDGET_BYTES,
            ]
        )
        rows.append(row)
    return {
        "reference_connect_four_steps_per_s": ref,
        "seconds": seconds,
        "rows": rows,
        "encoders": measure_encoders(cases, seconds, seed, ref),
        "checkpoints": checkpoint_sizes(),
    }


def measure_encoders(
    cases: list[tuple[str, dict[str, Any], float, float]],
    seconds: float,
    seed: int,
    ref: float | None,
) -> list[dict[str, Any]]:
    """Random AEC play with each encoder of each case, beside the reference."""
    from choco_envs.registry import make, make_game

    rows = []
    for env_id, options, _aec, _raw in cases:
        label = env_id + "".join(f" {k}={v}" for k, v in options.items())
        for name, encoder in make_game(env_id, **options).encoders.items():
            print(f"measuring {label} observation={name} ...", file=sys.stderr)
            steps, _ = aec_random_play(make(env_id, observation=name, **options), seconds, seed)
            row: dict[str, Any] = {
                "env": label,
                "encoder": name,
                "shape": list(encoder.shape),
                "aec_steps_per_s": steps,
            }
            if ref:
                row["ratio"] = steps / ref
            row["ok"] = row.get("ratio", ENCODER_BUDGET) >= ENCODER_BUDGET
            rows.append(row)
    return rows


def to_markdown(result: dict[str, Any]) -> str:
    ref = result["reference_connect_four_steps_per_s"]
    lines = [
        f"connect_four_v3 (reference, same run): {ref:,.0f} random AEC steps/s"
        if ref
        else "connect_four_v3 reference not measured",
        "",
        "| env | AEC steps/s | x c4 (budget) | games/s | raw steps/s | x c4 (budget) | copy us (<=20) | state KB (<=8) | env KB (<=1024) | 256 envs MB (<=512) | ok |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        aec_ratio = f"{r['aec_ratio']:.2f}" if "aec_ratio" in r else "?"
        raw_ratio = f"{r['raw_ratio']:.2f}" if "raw_ratio" in r else "?"
        lines.append(
            f"| {r['env']} | {r['aec_steps_per_s']:,.0f} | {aec_ratio} ({r['aec_budget']:g}) | "
            f"{r['games_per_s']:.1f} | {r['raw_steps_per_s']:,.0f} | {raw_ratio} ({r['raw_budget']:g}) | "
            f"{r['copy_us']:.1f} | {r['state_bytes'] / 1024:.1f} | {r['env_bytes'] / 1024:.0f} | "
            f"{r['envs256_bytes'] / 2**20:.1f} | {'yes' if r['ok'] else 'NO'} |"
        )
    if result.get("encoders"):
        lines += [
            "",
            f"| env | observation | shape | AEC steps/s | x c4 (budget {ENCODER_BUDGET:g}) | ok |",
            "|---|---|---|---|---|---|",
        ]
        for r in result["encoders"]:
            ratio = f"{r['ratio']:.2f}" if "ratio" in r else "?"
            shape = "x".join(map(str, r["shape"]))
            lines.append(
                f"| {r['env']} | `{r['encoder']}` | {shape} | {r['aec_steps_per_s']:,.0f} | "
                f"{ratio} | {'yes' if r['ok'] else 'NO'} |"
            )
    if result["checkpoints"]:
        lines += ["", "| checkpoint | size KB (<= 5120) | ok |", "|---|---|---|"]
        for c in result["checkpoints"]:
            lines.append(
                f"| {c['checkpoint']} | {c['bytes'] / 1024:.0f} | {'yes' if c['ok'] else 'NO'} |"
            )
    return "\n".join(lines)


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in result["rows"] if "aec_ratio" in r]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(9, 4))
    x = np.arange(len(rows))
    ax.bar(x - 0.2, [r["aec_ratio"] for r in rows], 0.4, label="AEC random play")
    ax.bar(x + 0.2, [r["raw_ratio"] for r in rows], 0.4, label="raw rules playouts")
    for i, r in enumerate(rows):
        ax.hlines(r["aec_budget"], i - 0.4, i, colors="k", linestyles="dashed")
        ax.hlines(r["raw_budget"], i, i + 0.4, colors="k", linestyles="dotted")
    ax.axhline(1.0, color="grey", lw=0.5)
    ax.set_xticks(x, [r["env"] for r in rows], rotation=15, fontsize=8)
    ax.set_ylabel("x connect_four_v3 AEC steps/s (same run)")
    ax.set_title("choco bench: speed vs budget (dashed/dotted lines)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def run(args: argparse.Namespace) -> int:
    from choco_envs.registry import list_envs

    present = set(list_envs())
    unknown = [e for e in (args.env or []) if e not in present]
    if unknown:
        print(
            f"choco bench: unknown env(s) {unknown}; available: {sorted(present)}", file=sys.stderr
        )
        return 2
    if not (0 < args.seconds < float("inf")):
        print(
            f"choco bench: --seconds {args.seconds} is not allowed; allowed: a number > 0",
            file=sys.stderr,
        )
        return 2
    for flag in ("json", "markdown", "plot"):
        path = getattr(args, flag)
        if path is not None and not path.resolve().parent.is_dir():
            print(f"choco bench: --{flag} {path}: its folder does not exist", file=sys.stderr)
            return 2
    cases = [c for c in bench_cases() if not args.env or c[0] in args.env]
    result = measure(cases, args.seconds, args.seed, reference=not args.no_reference)
    table = to_markdown(result)
    print(table)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    if args.markdown:
        args.markdown.write_text(table + "\n")
    if args.plot:
        plot(result, args.plot)
    return 0


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    configure(p)
    raise SystemExit(run(p.parse_args()))
