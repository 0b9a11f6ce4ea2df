"""Docs that cannot go stale: every ``choco ...`` command and Python snippet in README.md and
docs/ is extracted and checked.

* A command of a code block must parse as ``choco`` parses it (the subcommand, its flags
  and their values, ``--help`` level), name only registered env ids, and name only files
  of the repository that exist (configs, examples); a mention in the prose or a synopsis
  (with ``[...]``, ``...`` or ``<...>``) names only a subcommand and flags it has, and
  registered env ids. ``choco list`` and ``--help`` commands are run.
* ``python -m MODULE`` names a module that exists; ``python PATH`` a file that exists.
* A Python snippet must compile, and runs (in a fresh interpreter, from a scratch folder)
  unless the line before its fence says ``<!-- not run: why -->``.
* No page points outside the repository (``../shared``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from choco_envs.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
ENV_ID = re.compile(r"(?<![\w/])([a-z][a-z_]*_v\d+)(?![\w])")
#: repository folders whose files a command may read as input
INPUT_FOLDERS = ("configs/", "examples/", "training/", "experiments/", "tests/")


@dataclass(frozen=True)
class Found:
    page: str
    line: int
    text: str
    inline: bool = False  # a code span in the prose: a mention, checked as a synopsis

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def fenced_blocks(text: str) -> list[tuple[int, str, str, str]]:
    """(line, language, body, the line before the fence) of every fenced block."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"\s*```(\w*)\s*$", lines[i])
        if m:
            start, j = i, i + 1
            while j < len(lines) and not lines[j].strip().startswith("```"):
                j += 1
            before = lines[start - 1] if start else ""
            out.append((start + 1, m.group(1), "\n".join(lines[start + 1 : j]), before))
            i = j + 1
        else:
            i += 1
    return out


def commands(prefix: str) -> list[Found]:
    """Every command starting with ``prefix`` in the pages: lines of fenced blocks (with
    their backslash continuations) and inline code spans."""
    out = []
    for page in PAGES:
        text = page.read_text()
        name = str(page.relative_to(ROOT))
        for line, _lang, body, _before in fenced_blocks(text):
            joined = re.sub(r"\\\n\s*", " ", body)
            for k, row in enumerate(joined.splitlines()):
                row = row.strip().removeprefix("$ ")
                said = row.split()[1:2]
                if row.startswith(prefix) and not (said and said[0].endswith(":")):
                    out.append(Found(name, line + 1 + k, row))  # (not an output line)
        for m in re.finditer(r"`(" + re.escape(prefix) + r"[^`]*)`", text):
            at = text.count("\n", 0, m.start()) + 1
            said = m.group(1).split()[1:2]
            if not (said and said[0].endswith(":")):  # not a message the command prints
                out.append(Found(name, at, " ".join(m.group(1).split()), inline=True))
    return out


def words(found: Found) -> list[str]:
    """The command's words without the program and a trailing comment."""
    parts = shlex.split(found.text, comments=True)
    return parts[1:]


CHOCO = commands("choco ")
PYTHON = [f for f in commands("python ") if not f.text.startswith("python -m pytest")]
SNIPPETS = [
    Found(str(page.relative_to(ROOT)), line, body)
    for page in PAGES
    for line, lang, body, before in fenced_blocks(page.read_text())
    if lang == "python" and "not run" not in before
]
FRAGMENTS = [
    Found(str(page.relative_to(ROOT)), line, body)
    for page in PAGES
    for line, lang, body, before in fenced_blocks(page.read_text())
    if lang == "python" and "not run" in before
]


def is_synopsis(found: Found) -> bool:
    return found.inline or any(mark in found.text for mark in ("[", "...", "<", "PATH"))


def test_the_pages_hold_commands_and_snippets() -> None:
    # the extraction must see what it checks
    assert len(CHOCO) > 30 and len(SNIPPETS) >= 3
    assert any(f.text.startswith("choco eval --env") for f in CHOCO)


@pytest.mark.parametrize("found", CHOCO, ids=str)
def test_every_choco_command_parses(found: Found) -> None:
    from choco_envs.cli import COMMANDS, build_parser

    argv = words(found)
    assert argv and argv[0] in [*COMMANDS, "--help"], f"{found}: no such command"
    unknown = [e for e in ENV_ID.findall(found.text) if e not in REGISTRY]
    assert not unknown, f"{found}: unknown env ids {unknown}; registered: {', '.join(REGISTRY)}"
    if argv[0] == "--help":
        return
    parser = build_parser(argv[0], argv)
    if is_synopsis(found):
        sub = next(a for a in parser._actions if a.dest == "command").choices[argv[0]]  # type: ignore[union-attr]
        flags = {s for a in sub._actions for s in a.option_strings}
        missing = [w for w in argv if w.startswith("--") and w not in flags]
        assert not missing, f"{found}: {argv[0]} has no flags {missing}"
        return
    for word in argv:
        path = word.partition("=")[2] or word
        if path.startswith(INPUT_FOLDERS):
            assert (ROOT / path).exists(), f"{found}: {path} does not exist"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args(argv)
        except SystemExit as exit_:
            assert exit_.code == 0, f"{found}: {err.getvalue().strip()}"


SHORT = [f for f in CHOCO if words(f)[:1] == ["list"] or "--help" in words(f)]


@pytest.mark.parametrize("found", SHORT, ids=str)
def test_short_commands_run(found: Found) -> None:
    from choco_envs.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            code = main(words(found))
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    assert code == 0 and out.getvalue().strip(), found


@pytest.mark.parametrize("found", PYTHON, ids=str)
def test_every_python_command_names_what_exists(found: Found) -> None:
    argv = words(found)
    if argv[0] == "-m":
        assert importlib.util.find_spec(argv[1]) is not None, f"{found}: no module {argv[1]}"
    else:
        assert (ROOT / argv[0]).is_file(), f"{found}: no file {argv[0]}"
    unknown = [e for e in ENV_ID.findall(found.text) if e not in REGISTRY]
    assert not unknown, f"{found}: unknown env ids {unknown}"


@pytest.mark.parametrize("found", SNIPPETS + FRAGMENTS, ids=str)
def test_every_snippet_compiles(found: Found) -> None:
    compile(found.text, f"{found.page}:{found.line}", "exec")


@pytest.mark.parametrize("found", SNIPPETS, ids=str)
def test_snippets_run(found: Found, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", found.text],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{found}\n{done.stderr[-2000:]}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_points_outside_the_repository(page: Path) -> None:
    text = page.read_text()
    assert "../shared" not in text
    assert not re.search(r"\b(RULINGS|DESIGN)\.md\b", text), "restate it in the page instead"
