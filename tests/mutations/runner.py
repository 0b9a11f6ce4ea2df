"""Apply each of a game's mutations to a copy of the project and run its rule tests."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from choco_envs.registry import list_envs, manifest
from tests.mutations import Mutation

ROOT = Path(__file__).resolve().parents[2]
#: every registered game's package name (choco_envs/games/<game>, tests/games/<game>)
GAMES = tuple(manifest(e).game.__module__.split(".")[2] for e in list_envs())
#: what each copy needs: the package and the tests (the shared rulebooks are read in place)
COPIED = ("choco_envs", "tests", "pyproject.toml")


@dataclass(frozen=True)
class Outcome:
    mutation: Mutation
    killed: bool
    detail: str  # the first failing test, or why the mutation could not be applied
    seconds: float


def mutations_of(game: str) -> list[Mutation]:
    if game not in GAMES:
        raise SystemExit(f"unknown game {game!r}; allowed: {', '.join(GAMES)}")
    return list(importlib.import_module(f"tests.games.{game}.mutations").MUTATIONS)


def apply(mutation: Mutation, root: Path) -> None:
    path = root / mutation.path
    text = path.read_text()
    count = text.count(mutation.old)
    if count != 1:
        raise ValueError(f"{mutation.name}: its text occurs {count} times in {mutation.path}")
    path.write_text(text.replace(mutation.old, mutation.new))


def run_one(game: str, mutation: Mutation, timeout: float = 900.0) -> Outcome:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="choco_mutant_") as tmp:
        root = Path(tmp)
        for name in COPIED:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(source, root / name)
        try:
            apply(mutation, root)
        except ValueError as err:
            return Outcome(mutation, False, f"NOT APPLIED: {err}", time.perf_counter() - start)
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
        command = [
            sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
            "-p", "no:randomly", f"tests/games/{game}",
        ]  # fmt: skip
        try:
            done = subprocess.run(
                command, cwd=root, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return Outcome(mutation, True, "killed: the tests timed out", timeout)
        failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
        killed = done.returncode != 0
        detail = failed[0][7:] if failed else done.stdout.strip().splitlines()[-1:]
        return Outcome(mutation, killed, str(detail), time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.mutations", description=__doc__)
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--only", nargs="+", help="names of the mutations to run")
    args = parser.parse_args(argv)
    mutations = mutations_of(args.game)
    if args.only:
        mutations = [m for m in mutations if m.name in args.only]
    survivors = 0
    for i, mutation in enumerate(mutations, 1):
        outcome = run_one(args.game, mutation)
        mark = "killed  " if outcome.killed else "SURVIVED"
        survivors += not outcome.killed
        print(
            f"[{i}/{len(mutations)}] {mark} {mutation.name} ({outcome.seconds:.0f} s): "
            f"{outcome.detail}",
            flush=True,
        )
    print(
        f"{len(mutations) - survivors} of {len(mutations)} mutations killed, {survivors} survived"
    )
    return 1 if survivors else 0
