"""Refusals a service gives; the web layer maps each to its HTTP status."""

from __future__ import annotations


class ServiceError(Exception):
    """A request the server refuses; ``str(exc)`` is a message for a person."""

    status_code = 400


class NotFound(ServiceError):
    status_code = 404


class Forbidden(ServiceError):
    status_code = 403


class Conflict(ServiceError):
    status_code = 409


class Invalid(ServiceError, ValueError):
    status_code = 422
