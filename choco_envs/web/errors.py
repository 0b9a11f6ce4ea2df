"""Refusals of the web layer, each with its HTTP status; the app answers them as
``{"detail": message}``."""

from __future__ import annotations


class WebError(Exception):
    """A request refused; ``status`` is the HTTP status, the message says why."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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


class Invalid(WebError):
    """A well-formed request whose values are not allowed (an unknown env, an option or
    bot the server does not offer) (422)."""

    status = 422


class Full(WebError):
    """The server holds as many live games as it allows (503)."""

    status = 503
