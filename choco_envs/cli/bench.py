"""Measure every env against its speed targets and memory budgets, beside PettingZoo's
connect_four_v3 measured in the same run (ratios, not absolute numbers, are what count on a
shared machine) and, where ``pyspiel`` is installed (the ``bench`` extra), OpenSpiel's C++
connect four as the native ceiling. Each game's manifest lists the configurations measured
and their targets (docs/bench.md gives them all).

For each env configuration it reports: random AEC play (steps/s and games/s, with the
observation and mask built every step, as an RL loop does), raw rules playouts (what search
bots run on), the memory of one env and of 256 envs; what a search spends its time on, each
on a pool of states met in random play: ``determinize`` and ``copy`` (us a call),
``legal_actions``, ``legal_mask`` and ``apply`` (calls/s); then for every observation
encoder: random AEC play with it, and its observations/s one at a time (``encode``) and
for a batch of 256 states (``encode_batch``). The random policy is the same for every env:
a uniform choice among the masked actions. Every rate is the best of a few rounds
(``--rounds``), which keeps the figures steadier on a loaded machine, and every ratio to
connect_four_v3 is the median of the rounds' ratios, each round of a row measured just
after a round of the reference, so a load that comes or goes during the run moves both
sides of a ratio alike and a burst that hits one round does not move the median (the
rounds of ``encode`` and ``encode_batch`` are paired the same way, for the batch ratio).

Examples:
    choco bench                       # every env, 3 s per measurement
    choco bench --env chocolates_v0 --seconds 5 --json bench.json --plot bench.png
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np


def bench_cases() -> list[tuple[str, dict[str, Any], float, float]]:
    """(env id, options, AEC target, raw-playout target) measured by default: every
    registered game's manifest's ``bench`` (targets in x connect_four_v3 AEC steps/s)."""
    from choco_envs.registry import manifests

    return [
        (m.env_id, dict(case.options), case.aec, case.raw) for m in manifests() for case in m.bench
    ]


#: every encoder of every env, random AEC play, x connect_four_v3
ENCODER_BUDGET = 1.5
#: encode_batch at BATCH states / encode one at a time, observations/s
BATCH = 256
BATCH_BUDGET = 3.0
#: determinize + copy of one state, us
SEARCH_COPY_BUDGET_US = 10.0
#: rounds each rate is measured in (the best rate counts; a ratio is the median of the
#: rounds' ratios)
ROUNDS = 5
COPY_BUDGET_US = 20.0
STATE_BUDGET_BYTES = 8 * 1024
ENV_BUDGET_BYTES = 1 * 1024 * 1024
ENVS_256_BUDGET_BYTES = 512 * 1024 * 1024


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", action="append", help="only this env id (repeatable)")
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="time per measurement, > 0 (default 3)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=ROUNDS,
        help=f"rounds a measurement's seconds are split into, >= 1 (default {ROUNDS}): a rate "
        "is the best round, a ratio the median of the rounds' ratios",
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


def best_of_rounds(measure_once: Any, seconds: float, rounds: int = ROUNDS) -> Any:
    """The best result of ``measure_once(seconds / rounds)`` over ``rounds`` rounds
    (results compare as tuples: the first number decides)."""
    return max(measure_once(seconds / rounds) for _ in range(rounds))


class Beside(NamedTuple):
    """A rate measured beside a reference (:func:`beside`)."""

    #: the best of the rounds' results (a rate, or a tuple whose first number is one)
    best: Any
    #: the best of the reference's rounds (None: no reference)
    ref: float | None
    #: the median over the rounds of (the round's rate / the reference's rate measured
    #: just before it); None without a reference
    ratio: float | None
    #: each round's ratio, in order
    ratios: list[float]


def _first(result: Any) -> float:
    return float(result[0] if isinstance(result, tuple) else result)


def beside(
    measure_once: Any, reference_once: Any | None, seconds: float, rounds: int = ROUNDS
) -> Beside:
    """``rounds`` rounds of ``measure_once(seconds / rounds)``, each just after a round
    of the reference when one is given: a ratio of two rates measured in the same second
    moves little when the machine's load changes during a run, and the median of the
    rounds' ratios is not moved by one round that a burst of load hit on one side only
    (the best of each side, divided, is)."""
    best: Any = None
    ref: float | None = None
    ratios: list[float] = []
    for _ in range(rounds):
        ref_now = reference_once(seconds / rounds) if reference_once is not None else None
        result = measure_once(seconds / rounds)
        best = result if best is None else max(best, result)
        if ref_now is not None:
            ref = ref_now if ref is None else max(ref, ref_now)
            ratios.append(_first(result) / ref_now)
    return Beside(best, ref, statistics.median(ratios) if ratios else None, ratios)


def call_rate(fn: Any, args: list[tuple[Any, ...]], seconds: float) -> float:
    """Calls/s of ``fn(*a)`` for ``a`` in ``args``, cycled until ``seconds`` pass."""
    calls = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for a in args:
            fn(*a)
        calls += len(args)
        if time.perf_counter() >= deadline:
            break
    return calls / (time.perf_counter() - start)


def sample_states(game: Any, count: int, seed: int) -> list[Any]:
    """``count`` states where someone is to act, drawn evenly from random games (the
    positions a search meets), each with the seat to act: ``[(state, seat), ...]``."""
    rng = random.Random(seed)
    seen: list[Any] = []
    while len(seen) < 4 * count:
        s = game.new_state(rng)
        while not game.is_over(s):
            seen.append((game.copy(s), game.current_player(s)))
            game.apply(s, rng.choice(game.legal_actions(s)), rng)
    return rng.sample(seen, count)


def apply_rate(game: Any, seconds: float, seed: int) -> float:
    """Calls/s of ``apply`` alone: random games are recorded first (actions and the
    random stream), then replayed, timing nothing but the replay."""
    rng, chooser = random.Random(seed), random.Random(seed + 1)
    games = []
    for _ in range(8):
        s = game.new_state(rng)
        start, stream, actions = game.copy(s), rng.getstate(), []
        while not game.is_over(s):
            actions.append(chooser.choice(game.legal_actions(s)))
            game.apply(s, actions[-1], rng)
        games.append((start, stream, actions))
    replay_rng = random.Random()
    apply, copy, setstate = game.apply, game.copy, replay_rng.setstate
    steps, spent = 0, 0.0
    while spent < seconds:
        for start, stream, actions in games:
            s = copy(start)
            setstate(stream)
            t0 = time.perf_counter()
            for a in actions:
                apply(s, a, replay_rng)
            spent += time.perf_counter() - t0
            steps += len(actions)
    return steps / spent


def measure_search_ops(
    game: Any, seconds: float, seed: int, rounds: int = ROUNDS
) -> dict[str, float]:
    """What a search spends its time on, on a pool of states met in random play."""
    pool = sample_states(game, BATCH, seed)
    states = [(s,) for s, _ in pool]
    rng = random.Random(seed)
    per = seconds / 5
    det = [(s, p, rng) for s, p in pool]
    out = {
        "determinize_per_s": best_of_rounds(
            lambda t: call_rate(game.determinize, det, t), per, rounds
        ),
        "copy_per_s": best_of_rounds(lambda t: call_rate(game.copy, states, t), per, rounds),
        "legal_actions_per_s": best_of_rounds(
            lambda t: call_rate(game.legal_actions, states, t), per, rounds
        ),
        "legal_mask_per_s": best_of_rounds(
            lambda t: call_rate(game.legal_mask, states, t), per, rounds
        ),
        "apply_per_s": best_of_rounds(lambda t: apply_rate(game, t, seed), per, rounds),
    }
    out["determinize_us"] = 1e6 / out["determinize_per_s"]
    out["copy_us"] = 1e6 / out["copy_per_s"]
    out["determinize_copy_us"] = out["determinize_us"] + out["copy_us"]
    return out


def encode_rates(
    encoder: Any, pool: list[Any], seconds: float, rounds: int = ROUNDS
) -> tuple[float, float, float]:
    """(observations/s one at a time, observations/s by ``encode_batch`` of the whole
    pool, the batch ratio) of one encoder, their rounds interleaved (:func:`beside`): the
    ratio is the median of the rounds' ratios, each of two rates measured in the same
    second."""
    args = [(s, p) for s, p in pool]
    states, players = [s for s, _ in pool], [p for _, p in pool]
    size = len(pool)
    paired = beside(
        lambda t: size * call_rate(encoder.encode_batch, [(states, players)], t),
        lambda t: call_rate(encoder.encode, args, t),
        seconds / 2,
        rounds,
    )
    assert paired.ref is not None and paired.ratio is not None
    return paired.ref, paired.best, paired.ratio


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


def connect_four_round(seed: int) -> Any | None:
    """One round of connect_four_v3's random AEC play, ``round(seconds) -> steps/s``, or
    None (said on stderr) where PettingZoo's classic games are not importable."""
    try:
        from pettingzoo.classic import connect_four_v3
    except Exception as err:  # noqa: BLE001 - pygame missing, say so and go on
        print(f"connect_four_v3 unavailable ({err}); install the 'bench' extra", file=sys.stderr)
        return None
    env = connect_four_v3.env()
    return lambda t: float(aec_random_play(env, t, seed)[0])


def openspiel_connect_four(seconds: float, seed: int, rounds: int = ROUNDS) -> dict[str, Any]:
    """OpenSpiel's C++ connect four through pyspiel, the native ceiling: random playouts
    (``legal_actions`` + ``apply_action``), and the same with the observation tensor of
    the seat to act built every step. ``{"note": why}`` when pyspiel is not importable."""
    try:
        import pyspiel
    except Exception as err:  # noqa: BLE001 - optional: say why and go on
        return {"note": f"pyspiel not importable ({err}); install the 'bench' extra"}
    game = pyspiel.load_game("connect_four")

    def playouts(observe: bool, secs: float) -> float:
        rng = random.Random(seed)
        steps = 0
        start = time.perf_counter()
        deadline = start + secs
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if observe:
                    state.observation_tensor(state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        return steps / (time.perf_counter() - start)

    return {
        "raw_steps_per_s": best_of_rounds(lambda t: playouts(False, t), seconds / 2, rounds),
        "observed_steps_per_s": best_of_rounds(lambda t: playouts(True, t), seconds / 2, rounds),
    }


def checkpoint_sizes() -> list[dict[str, Any]]:
    from choco_envs.policy.checkpoint import SHIPPED_BUDGET_BYTES, checkpoint_dir

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
                "ok": size <= SHIPPED_BUDGET_BYTES,
            }
        )
    return rows


def measure(
    cases: list[tuple[str, dict[str, Any], float, float]],
    seconds: float,
    seed: int,
    reference: bool,
    rounds: int = ROUNDS,
) -> dict[str, Any]:
    from choco_envs.registry import make, make_game

    c4 = connect_four_round(seed) if reference else None
    ref = best_of_rounds(c4, seconds, rounds) if c4 is not None else None
    if ref:
        print(f"connect_four_v3 reference: {ref:,.0f} AEC steps/s", file=sys.stderr)
    native = (
        openspiel_connect_four(seconds, seed, rounds) if reference else {"note": "not measured"}
    )
    rows = []
    for env_id, options, aec_budget, raw_budget in cases:
        label = env_id + "".join(f" {k}={v}" for k, v in options.items())
        print(f"measuring {label} ...", file=sys.stderr)
        env = make(env_id, **options)
        aec = beside(lambda t, e=env: aec_random_play(e, t, seed), c4, seconds, rounds)
        aec_steps, games = aec.best
        game = make_game(env_id, **options)
        raw = beside(lambda t, g=game: raw_playouts(g, t, seed), c4, seconds, rounds)
        _, state_bytes = copy_cost(game, seed)
        ops = measure_search_ops(game, seconds, seed, rounds)
        copy_us = ops["copy_us"]
        one = env_memory(env_id, options, 1)
        many = env_memory(env_id, options, 256)
        row: dict[str, Any] = {
            "env": label,
            "aec_steps_per_s": aec_steps,
            "games_per_s": games,
            "raw_steps_per_s": raw.best,
            "state_bytes": state_bytes,
            "env_bytes": one,
            "envs256_bytes": many,
            "aec_budget": aec_budget,
            "raw_budget": raw_budget,
            **ops,
        }
        if aec.ratio is not None and raw.ratio is not None:
            row["reference_steps_per_s"] = aec.ref
            row["aec_ratio"], row["aec_round_ratios"] = aec.ratio, aec.ratios
            row["raw_ratio"], row["raw_round_ratios"] = raw.ratio, raw.ratios
        row["ok"] = all(
            [
                row.get("aec_ratio", aec_budget) >= aec_budget,
                row.get("raw_ratio", raw_budget) >= raw_budget,
                copy_us <= COPY_BUDGET_US,
                ops["determinize_copy_us"] <= SEARCH_COPY_BUDGET_US,
                state_bytes <= STATE_BUDGET_BYTES,
                one <= ENV_BUDGET_BYTES,
                many <= ENVS_256_BUDGET_BYTES,
            ]
        )
        rows.append(row)
    return {
        "reference_connect_four_steps_per_s": ref,
        "reference_openspiel_connect_four": native,
        "seconds": seconds,
        "rows": rows,
        "rounds": rounds,
        "encoders": measure_encoders(cases, seconds, seed, c4, rounds),
        "checkpoints": checkpoint_sizes(),
    }


def measure_encoders(
    cases: list[tuple[str, dict[str, Any], float, float]],
    seconds: float,
    seed: int,
    c4: Any | None,
    rounds: int = ROUNDS,
) -> list[dict[str, Any]]:
    """Random AEC play with each encoder of each case, beside the reference (``c4``: one
    round of it, see :func:`connect_four_round`; None: not measured)."""
    from choco_envs.registry import make, make_game

    rows = []
    for env_id, options, _aec, _raw in cases:
        label = env_id + "".join(f" {k}={v}" for k, v in options.items())
        game = make_game(env_id, **options)
        pool = sample_states(game, BATCH, seed)
        for name, encoder in game.encoders.items():
            print(f"measuring {label} observation={name} ...", file=sys.stderr)
            env = make(env_id, observation=name, **options)
            aec = beside(lambda t, e=env: aec_random_play(e, t, seed), c4, seconds, rounds)
            steps = aec.best[0]
            one, batch, batch_ratio = encode_rates(encoder, pool, seconds, rounds)
            row: dict[str, Any] = {
                "env": label,
                "encoder": name,
                "shape": list(encoder.shape),
                "aec_steps_per_s": steps,
                "encode_per_s": one,
                "encode_batch_per_s": batch,
                "batch_ratio": batch_ratio,
            }
            if aec.ratio is not None:
                row["reference_steps_per_s"] = aec.ref
                row["ratio"], row["round_ratios"] = aec.ratio, aec.ratios
            row["ok"] = (
                row.get("ratio", ENCODER_BUDGET) >= ENCODER_BUDGET
                and row["batch_ratio"] >= BATCH_BUDGET
            )
            rows.append(row)
    return rows


def to_markdown(result: dict[str, Any]) -> str:
    ref = result["reference_connect_four_steps_per_s"]
    native = result.get("reference_openspiel_connect_four") or {}
    lines = [
        f"`choco bench`, {result['seconds']:g} s a measurement in "
        f"{result.get('rounds', ROUNDS)} rounds, every rate the best round. Ratios within one "
        "run are what count: absolute rates move with the machine's load.",
        "",
        f"connect_four_v3 (reference, same run): {ref:,.0f} random AEC steps/s at the start; "
        "every x c4 ratio is the median over the rounds of a round's rate divided by "
        "connect_four_v3 measured just before it (each round's ratio is in the JSON), so a "
        "load that changes during the run moves both sides of a ratio alike and one round "
        "hit by a burst does not move the median (the batch x one ratios pair their two "
        "rates' rounds the same way)"
        if ref
        else "connect_four_v3 reference not measured",
        "",
    ]
    if "raw_steps_per_s" in native:
        lines += [
            "OpenSpiel connect_four (C++ through pyspiel, the native ceiling, same run): "
            f"{native['raw_steps_per_s']:,.0f} random playout steps/s, "
            f"{native['observed_steps_per_s']:,.0f} with the observation tensor every step",
            "",
        ]
    else:
        lines += [f"OpenSpiel connect_four: {native.get('note', 'not measured')}", ""]
    lines += [
        "| env | AEC steps/s | x c4 (target) | games/s | raw steps/s | x c4 (target) | raw x OpenSpiel | state KB (<=8) | env KB (<=1024) | 256 envs MB (<=512) | ok |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        aec_ratio = f"{r['aec_ratio']:.2f}" if "aec_ratio" in r else "?"
        raw_ratio = f"{r['raw_ratio']:.2f}" if "raw_ratio" in r else "?"
        ceiling = (
            f"{r['raw_steps_per_s'] / native['raw_steps_per_s']:.2f}"
            if "raw_steps_per_s" in native
            else "?"
        )
        lines.append(
            f"| {r['env']} | {r['aec_steps_per_s']:,.0f} | {aec_ratio} ({r['aec_budget']:g}) | "
            f"{r['games_per_s']:.1f} | {r['raw_steps_per_s']:,.0f} | {raw_ratio} ({r['raw_budget']:g}) | "
            f"{ceiling} | {r['state_bytes'] / 1024:.1f} | {r['env_bytes'] / 1024:.0f} | "
            f"{r['envs256_bytes'] / 2**20:.1f} | {'yes' if r['ok'] else 'NO'} |"
        )
    lines += [
        "",
        f"| env | determinize us | copy us | determinize + copy us (<={SEARCH_COPY_BUDGET_US:g}) | legal_actions /s | legal_mask /s | apply /s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['env']} | {r['determinize_us']:.1f} | {r['copy_us']:.1f} | "
            f"{r['determinize_copy_us']:.1f} | {r['legal_actions_per_s']:,.0f} | "
            f"{r['legal_mask_per_s']:,.0f} | {r['apply_per_s']:,.0f} |"
        )
    if result.get("encoders"):
        lines += [
            "",
            f"| env | observation | shape | AEC steps/s | x c4 (target {ENCODER_BUDGET:g}) | "
            f"encode obs/s | encode_batch obs/s ({BATCH}) | batch x one (target {BATCH_BUDGET:g}) | ok |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in result["encoders"]:
            ratio = f"{r['ratio']:.2f}" if "ratio" in r else "?"
            shape = "x".join(map(str, r["shape"]))
            lines.append(
                f"| {r['env']} | `{r['encoder']}` | {shape} | {r['aec_steps_per_s']:,.0f} | "
                f"{ratio} | {r['encode_per_s']:,.0f} | {r['encode_batch_per_s']:,.0f} | "
                f"{r['batch_ratio']:.2f} | {'yes' if r['ok'] else 'NO'} |"
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
    if args.rounds < 1:
        print(
            f"choco bench: --rounds {args.rounds} is not allowed; allowed: an integer >= 1",
            file=sys.stderr,
        )
        return 2
    for flag in ("json", "markdown", "plot"):
        path = getattr(args, flag)
        if path is not None and not path.resolve().parent.is_dir():
            print(f"choco bench: --{flag} {path}: its folder does not exist", file=sys.stderr)
            return 2
    cases = [c for c in bench_cases() if not args.env or c[0] in args.env]
    result = measure(
        cases, args.seconds, args.seed, reference=not args.no_reference, rounds=args.rounds
    )
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
