"""CHANGELOG.md keeps up with what the package ships: the newest release lists every env
at its spec version and every shipped checkpoint with its sha256 and stored figures, so
a new env version or a changed file fails here until it has its entry; the package
version is the newest release's. LICENSE is the license pyproject.toml declares."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import choco_envs
from tests.packaging.changelog import (
    REPO,
    current_checkpoints,
    current_envs,
    entries,
    manifest_problems,
    pyproject_version,
)


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_the_package_version_is_the_newest_release_and_releases_run_newest_first() -> None:
    releases = entries()
    assert releases, "CHANGELOG.md has no '## X.Y.Z (YYYY-MM-DD)' release"
    assert pyproject_version() == releases[0].version
    assert choco_envs.__version__ == releases[0].version, "choco_envs.__version__ is stale"
    keys = [version_key(e.version) for e in releases]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys), keys
    dates = [e.date for e in releases]
    assert dates == sorted(dates, reverse=True), dates


def test_the_newest_release_lists_every_env_and_every_shipped_checkpoint() -> None:
    envs, shipped = current_envs(), current_checkpoints()
    assert envs and shipped
    assert manifest_problems(entries()[0], envs, shipped) == []


def test_every_release_says_what_it_shipped() -> None:
    for entry in entries():
        assert entry.table_with("version"), entry.version
        for row in entry.table_with("sha256"):
            assert re.fullmatch(r"`[0-9a-f]{64}`", row["sha256"]), (entry.version, row)
            assert re.fullmatch(r"`\w+_v\d+/\w+\.safetensors`", row["file"]), row
        assert re.search(r"^### Envs$", entry.text, re.M), entry.version


def test_a_change_without_an_entry_is_named() -> None:
    """The check the test above runs fails, naming the change, for a new env version, a
    replaced file, a new file (an `az` one too), a figure that differs and a removed file."""
    newest = entries()[0]
    envs, shipped = current_envs(), current_checkpoints()
    bumped = {**envs, "chocolate_factory_v3": 3}
    bumped.pop("chocolate_factory_v2")
    assert manifest_problems(newest, bumped, shipped) == [
        "env chocolate_factory_v3 (spec version 3) has no row in " + newest.version,
        f"{newest.version} lists env chocolate_factory_v2, which is not in the package",
    ]
    first = next(iter(shipped))
    sha, arena = shipped[first]
    replaced = {**shipped, first: ("0" * 64, arena)}
    assert manifest_problems(newest, envs, replaced) == [
        f"checkpoint {first} (sha256 {'0' * 64}) has no row in {newest.version}"
    ]
    added = {**shipped, "chocolates_v0/az.safetensors": ("1" * 64, arena)}
    assert manifest_problems(newest, envs, added) == [
        f"checkpoint chocolates_v0/az.safetensors (sha256 {'1' * 64}) has no row in "
        + newest.version
    ]
    other = copy.deepcopy(arena)
    other["greedy"]["games"] += 1
    problems = manifest_problems(newest, envs, {**shipped, first: (sha, other)})
    assert len(problems) == 1 and problems[0].startswith(f"checkpoint {first}: ")
    removed = dict(shipped)
    removed.pop(first)
    assert manifest_problems(newest, envs, removed) == [
        f"{newest.version} lists checkpoint {first}, which is not shipped"
    ]


def test_the_license_file_is_the_declared_mit_license() -> None:
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the choco_envs authors" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '\nlicense = "MIT"\n' in pyproject
    assert '\nlicense-files = ["LICENSE"]\n' in pyproject


def test_the_changelog_names_no_file_that_is_missing_from_the_repository() -> None:
    """Paths the changelog points readers at exist (docs, checkpoints' cards, examples)."""
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    for rel in set(re.findall(r"`((?:docs|examples|checkpoints)/[\w./-]+)`", text)):
        assert (REPO / rel).exists(), rel
    assert Path(REPO / "checkpoints" / "README.md").is_file()
