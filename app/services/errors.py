"""Refusals a service gives; the web layer maps each to its HTTP status.

A refusal keeps its English message as a catalogue id with ``%(name)s`` placeholders
and the values apart, so a page can show it in the reader's language
(``app.texts.localize``) while ``str(exc)`` stays the English text the JSON API sends.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A request the server refuses; ``str(exc)`` is a message for a person."""

    status_code = 400

    def __init__(self, message: str, **params: object) -> None:
        self.message = message
        self.params = params
        super().__init__(message % {k: str(v) for k, v in params.items()} if params else message)


class NotFound(ServiceError):
    status_code = 404


class Forbidden(ServiceError):
    status_code = 403


class Conflict(ServiceError):
    status_code = 409


class Invalid(ServiceError, ValueError):
    status_code = 422
