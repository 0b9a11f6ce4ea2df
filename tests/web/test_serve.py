"""`choco serve`: registered in the command line, refuses bad flags, and serves the pages
and every asset they load from the package itself (nothing from outside)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from choco_envs.cli import COMMANDS, build_parser, main

STATIC = Path(__file__).resolve().parents[2] / "choco_envs" / "web" / "static"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_is_a_command_with_the_issue_flags() -> None:
    assert COMMANDS["serve"][0] == "choco_envs.cli.serve"
    args = build_parser("serve").parse_args(["serve"])
    assert (args.host, args.port, args.records, args.policy) == ("127.0.0.1", 8000, None, [])
    args = build_parser("serve").parse_args(
        [
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            "9",
            "--records",
            "d",
            "--policy",
            "a",
            "--policy",
            "b",
        ]
    )
    assert (args.host, args.port, args.records, args.policy) == ("0.0.0.0", 9, "d", ["a", "b"])


def test_serve_refuses_a_missing_policy_and_bad_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("uvicorn")
    assert main(["serve", "--policy", str(tmp_path / "none.safetensors")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["serve", "--bot-delay", "-1", "--records", str(tmp_path)]) == 2
    assert main(["serve", "--port", "70000", "--records", str(tmp_path)]) == 2


def test_static_files_name_nothing_outside() -> None:
    """Offline: no stylesheet, script, font or image from another host."""
    for path in STATIC.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            hosts = set(re.findall(r"https?://[^\s\"')]+", text))
            assert hosts <= {"http://www.w3.org/2000/svg"}, (path, hosts)


def test_the_server_serves_the_pages_and_their_assets(tmp_path: Path) -> None:
    httpx = pytest.importorskip("httpx")
    pytest.importorskip("uvicorn")
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "choco_envs.cli",
            "serve",
            "--port",
            str(port),
            "--records",
            str(tmp_path / "records"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = httpx.get(base + "/", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.communicate()[0]
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.3)
        assert page.status_code == 200 and "choco_envs" in page.text
        assert page.headers["referrer-policy"] == "no-referrer"
        for path in ("/play/someid", "/replay/somerecord"):
            assert httpx.get(base + path).status_code == 200
        assets = {p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*") if p.is_file()}
        for asset in sorted(assets):
            r = httpx.get(f"{base}/static/{asset}")
            assert r.status_code == 200 and r.content == (STATIC / asset).read_bytes()
        html = "".join((STATIC / p).read_text() for p in ("index.html", "play.html", "replay.html"))
        for ref in re.findall(r'(?:src|href)="/static/([^"]+)"', html):
            assert ref in assets, ref
        for js in STATIC.rglob("*.js"):
            for ref in re.findall(r'from "(\.{1,2}/[^"]+)"', js.read_text()):
                assert (js.parent / ref).resolve().is_file(), (js, ref)
        catalog = httpx.get(base + "/api/catalog").json()
        assert {e["env_id"] for e in catalog["envs"]} >= {"chocolates_v0", "le_chocolat_v0"}
        assert httpx.get(base + "/docs").status_code == 404  # its page would load a CDN
    finally:
        server.terminate()
        try:
            out = server.communicate(timeout=20)[0]
        except subprocess.TimeoutExpired:
            server.kill()
            out = server.communicate()[0]
    assert f"http://127.0.0.1:{port}/" in out
