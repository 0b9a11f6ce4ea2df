"""Refusals of the web layer, each with its HTTP status; the app answers them as
``{"detail": message}``. A message quotes what it refuses only as a short excerpt
(:func:`excerpt`): a 40 MB token or env id never comes back."""

from __future__ import annotations

from typing import Any

#: the most characters of a refused value an error message quotes
EXCERPT = 80


class WebError(Exception):
    """A request refused; ``status`` is the HTTP status, the message says why."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def excerpt(value: Any, limit: int = EXCERPT) -> str:
    """``repr(value)`` cut to ``limit`` characters (with how long it was when cut)."""
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        return f"an integer of {value.bit_length():,} bits"
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value):,} characters)"
    text = repr(value)
    if len(text) > limit:
        return f"{text[:limit]}... ({len(text):,} characters)"
    return text


class BadRequest(WebError):
    """An illegal move, or a request that cannot be carried out as asked (400)."""

    status = 400


class Forbidden(WebError):
    """A token that is not a seat's of this game (403)."""

    status = 403


class NotFound(WebError):
    """No such game (it may have expired) or record (404)."""

    status = 404


class Conflict(WebError):
    """The game is not in a state for this request (the record of a game in play) (409)."""

    status = 409


class TooLarge(WebError):
    """A request body larger than the route takes (413)."""

    status = 413


class Invalid(WebError):
    """A well-formed request whose values are not allowed (an unknown env, an option or
    bot the server does not offer) (422)."""

    status = 422


class Full(WebError):
    """The server holds as many live games as it allows (503)."""

    status = 503
