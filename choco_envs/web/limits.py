"""Bounds on what a request may send, applied before the app reads it.

Every request body has a cap: an uploaded record ``MAX_UPLOAD_BYTES``, any other body
``MAX_BODY_BYTES`` (the lobby's requests are under 1 KB). A larger body is refused with
413 as soon as its declared length or its bytes so far pass the cap, before it is read
whole or parsed. The JSON body of every other ``POST /api/...`` is then parsed once here,
so that JSON nested too deeply or with a number too long to read is a 422 like any other
malformed body (the JSON parser raises RecursionError or ValueError there, which FastAPI
would answer with 400).
"""

from __future__ import annotations

import json
from typing import Any

from choco_envs.web.store import MAX_UPLOAD_BYTES

#: the largest body of any request but an upload
MAX_BODY_BYTES = 64 * 2**10
UPLOAD = ("POST", "/api/records")


def cap(method: str, path: str) -> int:
    """The largest body ``method path`` takes, in bytes."""
    return MAX_UPLOAD_BYTES if (method, path.rstrip("/")) == UPLOAD else MAX_BODY_BYTES


def json_problem(body: bytes) -> str | None:
    """Why ``body`` cannot be read as JSON for a reason other than its syntax (nesting,
    a number too long), or None (FastAPI then reports bad syntax itself)."""
    try:
        json.loads(body)
    except json.JSONDecodeError:
        return None
    except RecursionError:
        return "body: JSON nested too deeply"
    except ValueError as err:  # a number past Python's digit limit, bytes not in UTF-8
        return f"body: not readable as JSON ({str(err)[:80]})"
    return None


class BodyLimit:
    """ASGI middleware: the caps above, then the body handed on as read."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        limit = cap(method, path)
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await _refuse(send, 413, _too_large(method, path, limit))
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                await self.app(scope, _replay([], message, receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _refuse(send, 413, _too_large(method, path, limit))
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if (
            body
            and method == "POST"
            and path.startswith("/api/")
            and cap(method, path) != MAX_UPLOAD_BYTES
        ):
            problem = json_problem(body)
            if problem is not None:
                await _refuse(send, 422, problem)
                return
        final = {"type": "http.request", "body": body, "more_body": False}
        await self.app(scope, _replay([final], None, receive), send)


def _too_large(method: str, path: str, limit: int) -> str:
    what = "a record" if limit == MAX_UPLOAD_BYTES else f"the body of {method} {path[:40]}"
    return f"request body too large: {what} is at most {limit:,} bytes"


def _replay(messages: list[dict[str, Any]], last: Any, receive: Any) -> Any:
    queue = [*messages, *([last] if last is not None else [])]

    async def replay() -> Any:
        if queue:
            return queue.pop(0)
        return await receive()

    return replay


async def _refuse(send: Any, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
