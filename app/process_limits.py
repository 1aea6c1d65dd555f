"""What one process may hold: open files (every event stream holds a socket), open
event streams, and log records (a storm of identical ones is bounded)."""

from __future__ import annotations

import logging
import resource
import time
from collections import OrderedDict
from collections.abc import Callable


def descriptor_limit() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_descriptor_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit; the new soft limit.

    Every event stream holds a socket: the default soft limit of 1024 is reached by
    one busy page of spectators.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if wanted > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


class StreamCount:
    """At most ``per_client`` open event streams per client and ``total`` in all.

    The total is kept well inside the process's descriptor limit, so streams can never
    take the descriptors the database and new requests need.
    """

    def __init__(self, per_client: int = 32, total: int | None = None) -> None:
        self.per_client = per_client
        self.total = total if total is not None else max(16, descriptor_limit() // 2 - 64)
        self.by_client: dict[str, int] = {}
        self.count = 0

    def open(self, key: str) -> bool:
        """Count one more stream of ``key``; False (nothing counted) when over a cap."""
        if self.by_client.get(key, 0) >= self.per_client or self.count >= self.total:
            return False
        self.by_client[key] = self.by_client.get(key, 0) + 1
        self.count += 1
        return True

    def close(self, key: str) -> None:
        self.count -= 1
        left = self.by_client[key] - 1
        if left:
            self.by_client[key] = left
        else:
            del self.by_client[key]


class RepeatFilter(logging.Filter):
    """Let one record of a kind through per ``seconds``: a storm (accept() failing with
    EMFILE on every loop turn) must not fill the disk with identical tracebacks."""

    def __init__(self, seconds: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.seconds = seconds
        self.clock = clock
        self.last: OrderedDict[tuple[str, int, str], float] = OrderedDict()
        self.suppressed = 0

    def filter(self, record: logging.LogRecord) -> bool:
        kind = (record.name, record.levelno, str(record.msg)[:200])
        now = self.clock()
        seen = self.last.get(kind)
        if seen is not None and now - seen < self.seconds:
            self.suppressed += 1
            return False
        self.last[kind] = now
        self.last.move_to_end(kind)
        while len(self.last) > 1000:
            self.last.popitem(last=False)
        return True


_installed_filters: list[RepeatFilter] = []


def bound_logs() -> None:
    """Install the repeat filter on the loggers that storm when descriptors run out."""
    if _installed_filters:
        return
    for name in ("asyncio", "uvicorn.error", "app.errors"):
        flt = RepeatFilter()
        logging.getLogger(name).addFilter(flt)
        _installed_filters.append(flt)
