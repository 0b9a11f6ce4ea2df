"""A pip install plays against the trained bots: the sdist and the wheel are built from a
copy of this checkout (`python -m build`: the sdist first, the wheel from the sdist), the
wheel is installed into a fresh virtual environment and used from a folder outside the
repository, as a new user would: every shipped checkpoint is there and makes its bot,
`choco serve` serves the lobby and a game page with every static file and plays a game
against each shipped bot through its API, and `choco eval` plays a shipped bot.

The environment sees the system's site-packages (torch, fastapi... without downloads);
`pip install --no-index WHEEL[train,web]` checks that the wheel's declared dependencies
are met there, and the checks assert the choco_envs imported is the venv's, not this
checkout's."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.packaging.changelog import REPO, pyproject_version, top_version

STATIC = REPO / "choco_envs" / "web" / "static"
#: left out of the copy the build starts from (what .gitignore keeps out of a checkout)
NOT_SOURCES = shutil.ignore_patterns(
    ".git", "runs", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".venv", "out",
    ".pytest_cache", ".mypy_cache", ".ruff_cache",
)  # fmt: skip


def repo_checkpoints() -> dict[str, str]:
    """Every file under checkpoints/ -> its sha256."""
    folder = REPO / "checkpoints"
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def clean_env() -> dict[str, str]:
    """The environment of a new user's shell: nothing puts this checkout on the path or
    names a checkpoints folder."""
    drop = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CHOCO_CHECKPOINTS", "PYTHONSTARTUP"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def run(cmd: list[str], cwd: Path, timeout: float, **kw: Any) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, cwd=cwd, env=clean_env(), capture_output=True, text=True,
                          timeout=timeout, **kw)  # fmt: skip
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(sdist, wheel), built once per test run (shared by xdist workers under a lock)."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = root / "choco_dists"
    with FileLock(str(root / "choco_dists.lock")):
        if not (out / "done").is_file():
            shutil.rmtree(out, ignore_errors=True)
            source = out / "source"
            shutil.copytree(REPO, source, ignore=NOT_SOURCES)
            run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out / "dist"),
                 str(source)], cwd=out, timeout=600)  # fmt: skip
            (out / "done").write_text("built")
    (sdist,) = (out / "dist").glob("*.tar.gz")
    (wheel,) = (out / "dist").glob("*.whl")
    return sdist, wheel


def test_the_sdist_carries_the_package_the_checkpoints_and_what_users_read(
    dists: tuple[Path, Path],
) -> None:
    sdist, _ = dists
    version = top_version()
    assert sdist.name == f"choco_envs-{version}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for rel in repo_checkpoints():
        assert f"checkpoints/{rel}" in names, rel
    for rel in ("README.md", "LICENSE", "CHANGELOG.md", "pyproject.toml", "setup.py",
                "choco_envs/__init__.py", "choco_envs/web/static/index.html"):  # fmt: skip
        assert rel in names, rel
    assert not [n for n in names if "__pycache__" in n or n.startswith(("runs/", "build/"))]


def test_the_wheel_carries_every_shipped_file_and_its_card_and_the_license(
    dists: tuple[Path, Path],
) -> None:
    _, wheel = dists
    version = top_version()
    assert wheel.name == f"choco_envs-{version}-py3-none-any.whl"
    shipped = repo_checkpoints()
    assert any(rel.endswith(".safetensors") for rel in shipped)
    assert "README.md" in shipped  # the model cards
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
        carried = {
            n.removeprefix("choco_envs/checkpoints/"): hashlib.sha256(whl.read(n)).hexdigest()
            for n in names
            if n.startswith("choco_envs/checkpoints/")
        }
        assert carried == shipped
        assert (
            whl.read(f"choco_envs-{version}.dist-info/licenses/LICENSE")
            == (REPO / "LICENSE").read_bytes()
        )
        static = {n for n in names if n.startswith("choco_envs/web/static/")}
    assert static == {
        "choco_envs/web/static/" + p.relative_to(STATIC).as_posix()
        for p in STATIC.rglob("*")
        if p.is_file()
    }


#: a markdown link or image target, a reference definition's, or an HTML src/href
LINK = re.compile(r"(?:\]\(|^\[[^\]]+\]:\s*|(?:src|href)=\")([^)\s\"]+)", re.M)


def test_the_wheel_metadata_users_look_for(dists: tuple[Path, Path]) -> None:
    """Version, license, project URLs, valid classifiers; the README as the long
    description with every relative link made absolute, each to a file of this checkout."""
    from email.parser import Parser

    from trove_classifiers import classifiers as known

    _, wheel = dists
    version = top_version()
    with zipfile.ZipFile(wheel) as whl:
        meta = Parser().parsestr(whl.read(f"choco_envs-{version}.dist-info/METADATA").decode())
    assert meta["Name"] == "choco-envs" and meta["Version"] == version == pyproject_version()
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert set(urls) >= {"Homepage", "Source", "Documentation", "Changelog", "Issues"}
    assert all(u.startswith("https://") for u in urls.values()), urls
    source = urls["Source"].rstrip("/")
    assert urls["Changelog"] == f"{source}/blob/main/CHANGELOG.md"
    classifiers = meta.get_all("Classifier")
    assert "Topic :: Games/Entertainment :: Board Games" in classifiers
    assert not set(classifiers) - known, set(classifiers) - known
    assert meta["Description-Content-Type"] == "text/markdown"
    description = meta.get_payload()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    relative = [t for t in LINK.findall(readme) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]
    assert relative, "README.md has relative links: this test checks their rewriting"
    for target in LINK.findall(description):
        assert target.startswith(("https://", "http://", "mailto:")), target
        if target.startswith(source + "/"):
            rel = re.sub(r"^(blob|raw)/main/", "", target[len(source) + 1 :]).split("#")[0]
            assert rel == "" or (REPO / rel).exists(), f"{target}: no {rel} in the checkout"
    assert len(LINK.findall(description)) == len(LINK.findall(readme))
    assert LINK.sub("", description).strip() == LINK.sub("", readme).strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def venv(dists: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh virtual environment with the wheel installed (its python's bin folder)."""
    _, wheel = dists
    home = tmp_path_factory.mktemp("user")
    run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
         str(home / "venv")], cwd=home, timeout=120)  # fmt: skip
    bin_dir = home / "venv" / ("Scripts" if os.name == "nt" else "bin")
    run([str(bin_dir / "python"), "-m", "pip", "install", "--no-index", "--quiet",
         "--disable-pip-version-check", f"{wheel}[train,web]"], cwd=home, timeout=300)  # fmt: skip
    yield bin_dir


def test_an_installed_wheel_plays_against_the_trained_bots(venv: Path, tmp_path: Path) -> None:
    """From a folder outside the repository, with the venv's python and `choco`."""
    httpx = pytest.importorskip("httpx")
    from tests.web.helpers import new_game, play_to_end

    work = tmp_path / "user"
    work.mkdir()
    script = Path(__file__).with_name("installed_checks.py")
    shutil.copy(script, work / script.name)
    done = run([str(venv / "python"), script.name, str(REPO)], cwd=work, timeout=300)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(found["package"]).is_relative_to(venv.parent)
    assert found["checkpoints"] == repo_checkpoints()
    seats = found["seats"]
    assert {s["env_id"] for s in seats if s["kind"] == "ppo"} == set(found["envs"])

    port = free_port()
    server = subprocess.Popen(
        [str(venv / "choco"), "serve", "--port", str(port), "--records", str(work / "records"),
         "--bot-delay", "0"],
        cwd=work, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            deadline = time.monotonic() + 90
            while True:
                try:
                    lobby = client.get("/")
                    break
                except httpx.TransportError:
                    assert server.poll() is None, server.communicate()[0]
                    assert time.monotonic() < deadline, "choco serve did not start"
                    time.sleep(0.3)
            installed = Path(found["static"])
            assert lobby.status_code == 200
            assert lobby.content == (installed / "index.html").read_bytes()
            assets = sorted(p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*")
                            if p.is_file())  # fmt: skip
            for asset in assets:
                r = client.get(f"/static/{asset}")
                assert r.status_code == 200, asset
                assert (
                    r.content == (STATIC / asset).read_bytes() == (installed / asset).read_bytes()
                ), asset
            html = "".join((STATIC / p).read_text() for p in ("index.html", "play.html"))
            assert set(re.findall(r'(?:src|href)="/static/([^"]+)"', html)) <= set(assets)
            for n, seat in enumerate(seats):
                players = int(seat["options"].get("num_players", 2))
                game_id, tokens = new_game(client, seat["env_id"],
                                           ["human"] + [seat["kind"]] * (players - 1),
                                           seat["options"], seed=n)  # fmt: skip
                page = client.get(f"/play/{game_id}", params={"token": tokens[0]})
                assert page.status_code == 200
                assert page.content == (installed / "play.html").read_bytes()
                end = play_to_end(client, game_id, tokens, random.Random(n))
                assert end["over"] and end["error"] is None, (seat, end["error"])
                bot = {"seat": 1, "player": seat["kind"], "human": False}
                assert end["seats"][1] == bot, end["seats"]
                assert any(e["seat"] == 1 and e["player"] == seat["kind"] for e in end["log"])
    finally:
        server.terminate()
        try:
            server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()

    first = next(s for s in seats if s["kind"] == "ppo")
    done = run([str(venv / "choco"), "eval", "--env", first["env_id"], "--bots", "ppo",
                "random", "--games", "2", "--seed", "1", "--quiet"], cwd=work, timeout=300)  # fmt: skip
    assert "ppo" in done.stdout and "random" in done.stdout, done.stdout
    assert "no shipped checkpoint" not in done.stdout + done.stderr
    assert pyproject_version() == top_version()
