"""Play in the browser: a lobby, boards you click, bots, links for friends, replays.

Starts a web server (FastAPI on uvicorn), bound to this machine only unless --host says
otherwise, and prints the address to open. Everything it serves comes from the package:
it works offline. Finished games are saved as JSON records in --records.

Examples:
    choco serve
    choco serve --port 8080 --records ./my_games
    choco serve --policy runs/chocolates/final.safetensors

Needs the web extra: pip install 'choco-envs[web]'.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens "
        "it to your network, and anyone who reaches it can start games)",
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--records",
        metavar="DIR",
        help="folder of finished games' records (default "
        "$XDG_DATA_HOME/choco_envs/records, i.e. ~/.local/share/choco_envs/records)",
    )
    parser.add_argument(
        "--policy",
        action="append",
        default=[],
        metavar="PATH",
        help="a checkpoint to offer as the bot policy:PATH (repeatable)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.6,
        metavar="SECONDS",
        help="at least this long between two moves of bots, so that each is seen (default 0.6)",
    )
    parser.add_argument(
        "--idle-minutes",
        type=float,
        default=30.0,
        help="drop a game nobody has touched for this long (default 30)",
    )
    parser.add_argument(
        "--max-games", type=int, default=200, help="live games at most (default 200)"
    )
    parser.add_argument("--access-log", action="store_true", help="log every request")


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from choco_envs.web.app import create_app
        from choco_envs.web.sessions import Settings
        from choco_envs.web.store import default_folder
    except ModuleNotFoundError as err:
        print(
            f"choco serve: {err.name} is not installed; install the web extra: "
            "pip install 'choco-envs[web]'",
            file=sys.stderr,
        )
        return 2
    problems = [p for p in args.policy if not Path(p).is_file()]
    if problems:
        print(f"choco serve: --policy {problems[0]}: no such file", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"choco serve: --port {args.port} is not a port (0..65535)", file=sys.stderr)
        return 2
    if args.bot_delay < 0 or args.idle_minutes <= 0 or args.max_games < 1:
        print(
            "choco serve: --bot-delay must be >= 0, --idle-minutes > 0, --max-games >= 1",
            file=sys.stderr,
        )
        return 2
    records = Path(args.records) if args.records else default_folder()
    settings = Settings(
        records=str(records),
        policies=list(args.policy),
        bot_delay=args.bot_delay,
        idle_seconds=args.idle_minutes * 60,
        max_games=args.max_games,
    )
    try:
        app = create_app(settings)
    except OSError as err:
        print(f"choco serve: records folder {records}: {err}", file=sys.stderr)
        return 2
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"choco serve: open http://{shown}:{args.port}/  (records in {records}; Ctrl-C stops)")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"choco serve: listening on {args.host}: anyone who can reach this address can "
            "start games here",
            file=sys.stderr,
        )
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=args.access_log,
        # a page's long poll would hold a stop for up to 20 s
        timeout_graceful_shutdown=2,
        # longer than a page's long poll and a person's thinking between requests
        timeout_keep_alive=30,
    )
    return 0
