"""Reading CHANGELOG.md and pyproject.toml for the packaging tests.

CHANGELOG.md has one ``## X.Y.Z (YYYY-MM-DD)`` section a release, newest first. Each
section ends with what that version ships: a table of the envs (``| env | version |
...``) and a table of the checkpoints (``| file | ... | sha256 |``, one column ``vs
OPPONENT`` for each stored evaluation, written as ``choco ship --table`` writes it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHANGELOG = REPO / "CHANGELOG.md"
HEADING = re.compile(r"^## (\d+\.\d+\.\d+) \((\d{4}-\d{2}-\d{2})\)$", re.M)


@dataclass
class Entry:
    version: str
    date: str
    text: str

    def tables(self) -> list[list[dict[str, str]]]:
        """Every markdown table of the entry, as rows of {header: cell}."""
        found: list[list[dict[str, str]]] = []
        lines = self.text.splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|-"):
                header = cells(lines[i])
                rows = []
                i += 2
                while i < len(lines) and lines[i].startswith("|"):
                    rows.append(dict(zip(header, cells(lines[i]), strict=True)))
                    i += 1
                found.append(rows)
            else:
                i += 1
        return found

    def table_with(self, column: str) -> list[dict[str, str]]:
        """The one table of the entry that has ``column``."""
        matches = [t for t in self.tables() if t and column in t[0]]
        assert len(matches) == 1, f"{self.version}: {len(matches)} tables with a {column!r} column"
        return matches[0]


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def entries(text: str | None = None) -> list[Entry]:
    """The changelog's releases, newest first."""
    text = CHANGELOG.read_text(encoding="utf-8") if text is None else text
    heads = list(HEADING.finditer(text))
    return [
        Entry(h.group(1), h.group(2), text[h.end() : nxt.start() if nxt else len(text)])
        for h, nxt in zip(heads, heads[1:] + [None], strict=True)
    ]


def top_version() -> str:
    return entries()[0].version


def pyproject_version() -> str:
    """[project] version of pyproject.toml (read without tomllib, which 3.10 lacks)."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    found = re.search(r'^version = "([^"]+)"$', project, re.M)
    assert found, "pyproject.toml: no version in [project]"
    return found.group(1)


def current_envs() -> dict[str, int]:
    """Every env of the package (choco_envs/games/*) -> its spec version."""
    from choco_envs.registry import REGISTRY, game_class

    return {
        env_id: game_class(env_id).spec.version
        for env_id, where in REGISTRY.items()
        if where.startswith("choco_envs.games.")
    }


def current_checkpoints(folder: Path | None = None) -> dict[str, tuple[str, dict]]:
    """Every shipped checkpoint ``env_id/name.safetensors`` -> (sha256, stored evaluation)."""
    from choco_envs.policy.checkpoint import file_sha256, read_metadata

    folder = REPO / "checkpoints" if folder is None else folder
    return {
        p.relative_to(folder).as_posix(): (file_sha256(p), read_metadata(p).get("arena", {}))
        for p in sorted(folder.glob("*/*.safetensors"))
    }


def figure(result: dict) -> str:
    """A stored evaluation as the checkpoints table writes it: rate [interval] (games)."""
    from choco_envs.train.ship import _pct

    return f"{_pct(result)} ({result['games']})"


def manifest_problems(
    entry: Entry, envs: dict[str, int], shipped: dict[str, tuple[str, dict]]
) -> list[str]:
    """What the entry's tables say this version ships, against what it does ship; each
    difference one line naming the env or file and what the entry lacks."""
    problems = []
    listed_envs = {r["env"].strip("`"): r["version"] for r in entry.table_with("version")}
    for env_id, version in envs.items():
        if listed_envs.get(env_id) != str(version):
            problems.append(f"env {env_id} (spec version {version}) has no row in {entry.version}")
    problems += [f"{entry.version} lists env {e}, which is not in the package"
                 for e in listed_envs if e not in envs]  # fmt: skip
    rows = {r["file"].strip("`"): r for r in entry.table_with("sha256")}
    for rel, (sha, arena) in shipped.items():
        row = rows.get(rel)
        if row is None or row["sha256"].strip("`") != sha:
            problems.append(f"checkpoint {rel} (sha256 {sha}) has no row in {entry.version}")
            continue
        for opponent, result in sorted(arena.items()):
            cell = row.get(f"vs {opponent}")
            if cell != figure(result):
                problems.append(
                    f"checkpoint {rel}: {entry.version} says {cell!r} vs {opponent}; its "
                    f"stored evaluation is {figure(result)!r}"
                )
    problems += [f"{entry.version} lists checkpoint {f}, which is not shipped"
                 for f in rows if f not in shipped]  # fmt: skip
    return problems
