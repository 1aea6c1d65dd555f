"""A hard time bound for one fuzz example: a parse that hangs fails the test, it does not stall the suite.

Hypothesis's ``deadline`` only judges an example after it returns; a parser that never
returns (the 27-byte record of issue 27 looped forever) would never be judged. Here the
example runs under ``SIGALRM``: at the bound the signal handler raises ``Hang`` inside the
looping Python code, so the example fails with the input that hung it. A loop inside C
code (a regular expression backtracking) only sees the signal when C returns; every parser
fuzzed here reads its input with linear expressions or Python loops.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, settings

#: A hung example is cut here; every input fuzzed parses in milliseconds.
HARD_BOUND_SECONDS = 2.0
#: Hypothesis's own judgement of a slow example (a slow one is a defect too, but a busy
#: two-core machine must not make the suite flaky: well above the usual milliseconds).
DEADLINE = timedelta(seconds=1)

T = TypeVar("T")


class Hang(AssertionError):
    """A parse ran past the hard bound."""


@contextmanager
def time_bound(seconds: float = HARD_BOUND_SECONDS) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("the fuzz guard needs the main thread (SIGALRM)")

    def on_alarm(signum: int, frame: Any) -> None:
        raise Hang(f"the parse ran over {seconds} s: it hangs")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    # Again every 50 ms after the bound: a signal that lands in a garbage-collector
    # callback (Hypothesis installs one) raises there, and Python drops that exception.
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def bounded(call: Callable[..., T], *args: Any, seconds: float = HARD_BOUND_SECONDS) -> T:
    with time_bound(seconds):
        return call(*args)


def fuzz_settings(examples: int, deadline: timedelta = DEADLINE) -> settings:
    """CI's bounded run; bench/fuzz_parsers.py runs the same tests with FUZZ_SCALE much higher.

    Random each run (no example database): a fuzz suite that always tried the same inputs
    would find nothing new; a failure prints the input to add as an ``@example``.

    No shrinking: every attempt to shrink a hanging input hangs until the bound again,
    and Hypothesis shrinks for up to five minutes; the input as generated is reported,
    so a hang fails the test within the bound of the example that found it."""
    import os

    scale = float(os.environ.get("FUZZ_SCALE", "1"))
    return settings(
        max_examples=max(1, int(examples * scale)),
        deadline=deadline,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        database=None,
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target),
    )
