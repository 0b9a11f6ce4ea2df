"""A bounded load test of ``choco serve`` on loopback: many games at once against bots.

    python -m choco_envs.web.loadtest                 # 50 games, the figures as text
    python -m choco_envs.web.loadtest --games 50 --moves 25 --seconds 120 --json out.json

It starts a server (``choco serve`` in a child process, on 127.0.0.1 and a free port, bots
paced by ``--bot-delay`` as ``choco serve`` paces them), warms it up with one game of each env, then runs ``--games``
simulated people at once, each in its own game (seat 0; the other seats ``random`` bots;
the envs in turn). A person waits for their turn (long polls), thinks a random
``--think`` seconds, and posts a random legal move; each move request is timed from
sending to answer (the answer comes before any bot moves, so bot thinking is not in it).
Every loop is bounded: ``--moves`` moves per person, ``--seconds`` in all; then the
server is stopped. Reported: requests, errors, the move latency (p50, p95, max), and the
server's resident memory per live game ((RSS with every game live - RSS before) / games).
Only loopback is ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from choco_envs.registry import list_envs

#: a person's move request must be answered within this (the issue's bound, p95)
P95_BUDGET_MS = 100.0


@dataclass
class Figures:
    games: int
    envs: list[str]
    moves_requested: int = 0
    errors: list[str] = field(default_factory=list)
    finished: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    server_p95_ms: float = 0.0
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    max_ms: float = 0.0
    rss_before_mb: float = 0.0
    rss_live_mb: float = 0.0
    per_game_kb: float = 0.0
    live_games: int = 0
    seconds: float = 0.0
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    load_average: tuple[float, float] = (0.0, 0.0)
    think_s: tuple[float, float] = (0.0, 0.0)

    def summary(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("latencies_ms")
        out.pop("server_ms")
        out["errors"] = self.errors[:10]
        out["error_count"] = len(self.errors)
        return out

    def text(self) -> str:
        return (
            f"{self.games} concurrent games ({', '.join(self.envs)}) against random bots, "
            f"{self.seconds:.1f} s\n"
            f"  move requests {self.moves_requested}, errors {len(self.errors)}, games "
            f"finished {self.finished}\n"
            f"  move latency p50 {self.p50_ms:.1f} ms, p95 {self.p95_ms:.1f} ms (budget "
            f"{P95_BUDGET_MS:g}), max {self.max_ms:.1f} ms (think time "
            f"{self.think_s[0]:g}-{self.think_s[1]:g} s); inside the server p95 "
            f"{self.server_p95_ms:.1f} ms\n"
            f"  server memory: {self.rss_before_mb:.1f} MB before, {self.rss_live_mb:.1f} MB "
            f"with {self.live_games} games live: {self.per_game_kb:.0f} KB per live game\n"
            f"  CPU: server {self.server_cpu_s:.1f} s in all (bots and every request), the "
            f"simulated people {self.client_cpu_s:.1f} s; machine "
            f"load average {self.load_average[0]:.1f} -> {self.load_average[1]:.1f} on "
            f"{os.cpu_count()} cores"
        )


def server_time(header: str) -> float:
    """The ``app;dur=MS`` of a server-timing header (0 when absent)."""
    for part in header.split(";"):
        if part.strip().startswith("dur="):
            return float(part.strip()[4:])
    return 0.0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` (Linux /proc), MB; 0 where unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (Linux /proc), seconds; 0 where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, records: str, bot_delay: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "choco_envs.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--records",
            records,
            "--bot-delay",
            str(bot_delay),
            "--max-games",
            "1000",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


class Http:
    """One keep-alive HTTP/1.1 connection to the server on loopback, one request at a
    time (a person's page makes one at a time): far lighter than a general client, so
    that the load generator's own CPU weighs little in the latencies it measures."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: Any = None
    ) -> tuple[int, dict[str, str], Any]:
        """(status, headers, JSON body). A request on a kept-alive connection that the
        server had closed is sent once more on a new one (as browsers do)."""
        for attempt in range(2):
            reused = self.writer is not None
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            try:
                return await self._exchange(method, path, body)
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if not reused or attempt:
                    raise
        raise AssertionError("unreachable")

    async def _exchange(self, method: str, path: str, body: Any) -> tuple[int, dict[str, str], Any]:
        assert self.reader is not None and self.writer is not None
        data = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{self.port}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(data)}\r\n\r\n"
        )
        self.writer.write(head.encode() + data)
        await self.writer.drain()
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
        payload = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, json.loads(payload) if payload else None


async def wait_up(port: int, server: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        http = Http(port)
        try:
            status, _, _ = await http.request("GET", "/api/catalog")
            if status == 200:
                return
        except OSError:
            pass
        finally:
            await http.close()
        if server.poll() is not None:
            err = server.stderr.read().decode() if server.stderr else ""
            raise RuntimeError(f"the server stopped: {err}")
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        await asyncio.sleep(0.2)


async def create(http: Http, env_id: str, seed: int) -> tuple[str, str]:
    status, _, body = await http.request(
        "POST", "/api/games", {"env_id": env_id, "seats": ["human", "random"], "seed": seed}
    )
    if status != 201:
        raise RuntimeError(f"POST /api/games {status}: {body}")
    return body["game_id"], body["seat_urls"][0].split("token=", 1)[1]


async def person(
    http: Http,
    game_id: str,
    token: str,
    figures: Figures,
    rng: random.Random,
    moves: int,
    deadline: float,
    think: tuple[float, float],
) -> None:
    """Play seat 0 of one game: wait for the turn, think, move; bounded."""
    url = f"/api/games/{game_id}"
    status, _, snap = await http.request("GET", f"{url}?token={token}")
    made = 0
    while status == 200 and not snap["over"] and made < moves and time.monotonic() < deadline:
        if snap.get("error"):
            figures.errors.append(f"{game_id}: {snap['error']}")
            return
        if snap["to_act"] != 0:
            query = f"token={token}&since={snap['version']}&wait=5&log_from=1000000"
            status, _, snap = await http.request("GET", f"{url}?{query}")
            if status != 200:
                figures.errors.append(f"GET {status}: {snap}")
            continue
        await asyncio.sleep(rng.uniform(*think))
        action = rng.choice(snap["legal"])["action"]
        started = time.perf_counter()
        status, headers, answer = await http.request(
            "POST", f"{url}/actions?log_from=1000000", {"token": token, "action": action}
        )
        figures.latencies_ms.append((time.perf_counter() - started) * 1000)
        figures.server_ms.append(server_time(headers.get("server-timing", "")))
        figures.moves_requested += 1
        made += 1
        if status != 200:
            figures.errors.append(f"POST {status}: {answer}")
            return
        snap = answer
    if status == 200 and snap["over"]:
        figures.finished += 1


async def guarded(play: Any, http: Http, figures: Figures) -> None:
    """A person's game; a failed connection is counted as an error, not raised."""
    try:
        await play
    except (OSError, asyncio.IncompleteReadError, ValueError, KeyError) as err:
        figures.errors.append(f"{type(err).__name__}: {err}")
    finally:
        await http.close()


async def load(
    games: int,
    moves: int,
    seconds: float,
    think: tuple[float, float],
    envs: tuple[str, ...],
    seed: int,
    bot_delay: float,
) -> Figures:
    figures = Figures(games=games, envs=list(envs), think_s=think)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="choco-load-") as records:
        server = start_server(port, records, bot_delay)
        try:
            await wait_up(port, server, 60)
            rng = random.Random(seed)
            warm = Http(port)
            for i, env_id in enumerate(envs):  # warm up: imports, caches
                game_id, token = await create(warm, env_id, seed + i)
                await person(
                    warm, game_id, token, Figures(1, []), rng, 3, time.monotonic() + 30, (0, 0)
                )
            await warm.close()
            await asyncio.sleep(0.5)
            figures.rss_before_mb = rss_mb(server.pid)
            cpu_before = cpu_seconds(server.pid)
            client_before = time.process_time()
            load_before = os.getloadavg()[0]
            started = time.monotonic()
            deadline = started + seconds
            connections = [Http(port) for _ in range(games)]
            made = await asyncio.gather(
                *[
                    create(http, envs[i % len(envs)], seed + 100 + i)
                    for i, http in enumerate(connections)
                ]
            )
            await asyncio.gather(
                *[
                    guarded(
                        person(
                            http,
                            game_id,
                            token,
                            figures,
                            random.Random(seed + i),
                            moves,
                            deadline,
                            think,
                        ),
                        http,
                        figures,
                    )
                    for i, (http, (game_id, token)) in enumerate(
                        zip(connections, made, strict=True)
                    )
                ]
            )
            figures.rss_live_mb = rss_mb(server.pid)
            figures.server_cpu_s = cpu_seconds(server.pid) - cpu_before
            figures.client_cpu_s = time.process_time() - client_before
            figures.load_average = (load_before, os.getloadavg()[0])
            figures.live_games = games + len(envs)
            figures.seconds = time.monotonic() - started
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    lat = figures.latencies_ms
    figures.p50_ms, figures.p95_ms = percentile(lat, 0.5), percentile(lat, 0.95)
    figures.max_ms = max(lat, default=0.0)
    figures.server_p95_ms = percentile(figures.server_ms, 0.95)
    if games:
        figures.per_game_kb = max(0.0, figures.rss_live_mb - figures.rss_before_mb) * 1024 / games
    return figures


def run_load(
    games: int = 50,
    moves: int = 25,
    seconds: float = 120.0,
    think: tuple[float, float] = (0.5, 1.5),
    envs: tuple[str, ...] | None = None,
    seed: int = 0,
    bot_delay: float = 0.6,
) -> Figures:
    """Run the load test; its figures (``envs``: default every registered env)."""
    envs = tuple(list_envs()) if envs is None else envs
    return asyncio.run(load(games, moves, seconds, think, envs, seed, bot_delay))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m choco_envs.web.loadtest",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument("--moves", type=int, default=25, help="moves per person at most (25)")
    parser.add_argument("--seconds", type=float, default=120.0, help="time bound (120)")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(0.5, 1.5),
        metavar=("MIN", "MAX"),
        help="a person's thinking time per move, seconds (0.5 1.5)",
    )
    parser.add_argument(
        "--env", action="append", choices=list_envs(), help="envs (default all, in turn)"
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.6,
        help="the server's --bot-delay (default 0.6, as choco serve)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 500 or args.moves < 1 or not 0 < args.seconds <= 600:
        parser.error("--games 1..500, --moves >= 1, --seconds in (0, 600]")
    figures = run_load(
        args.games,
        args.moves,
        args.seconds,
        tuple(args.think),
        tuple(args.env or list_envs()),
        args.seed,
        args.bot_delay,
    )
    print(figures.text())
    if args.json:
        Path(args.json).write_text(json.dumps(figures.summary(), indent=1))
    ok = not figures.errors and figures.p95_ms < P95_BUDGET_MS
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
