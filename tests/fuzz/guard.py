"""A hard time bound for one fuzz example: a parse that hangs fails the test, it does not stall the suite.

Hypothesis's ``deadline`` only judges an example after it returns; a parser that never
returns (the 27-byte record of issue 27 looped forever) would never be judged. Here the
example runs under ``SIGPROF``: at the bound the signal handler raises ``Hang`` inside the
looping Python code, so the example fails with the input that hung it. Both bounds count
CPU time, not the wall clock: on a two-core machine shared by several
test runs an example of microseconds was seen to take 6 s of wall time (a wall-clock
deadline failed it, and passed it when Hypothesis replayed it), while a hang burns CPU
and is cut all the same. ``bounded`` also fails an example that returns after more than
``DEADLINE_SECONDS`` of CPU: slow is a defect too. That deadline counts the CPU of the
calling thread only (``time.thread_time``), with the garbage collector paused: CI once
failed a parse of microseconds at "0.67 s" of the process's CPU, which counted other
threads of the test worker and not the parse (Hypothesis could not reproduce it). The
hard bound (``SIGPROF``) still counts the whole process; nothing else burns 2 s of CPU
during one example. A loop inside C
code (a regular expression backtracking) only sees the signal when C returns; every parser
fuzzed here reads its input with linear expressions or Python loops.
"""

from __future__ import annotations

import gc
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, settings

#: A hung example is cut here (CPU seconds); every input fuzzed parses in milliseconds.
HARD_BOUND_SECONDS = 2.0
#: The per-example deadline (CPU seconds) of an example that returned.
DEADLINE_SECONDS = 0.5

T = TypeVar("T")


class Hang(AssertionError):
    """A parse ran past the hard bound."""


class Slow(AssertionError):
    """A parse returned, past the deadline."""


@contextmanager
def time_bound(seconds: float = HARD_BOUND_SECONDS) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("the fuzz guard needs the main thread (signals)")

    def on_alarm(signum: int, frame: Any) -> None:
        raise Hang(f"the parse ran over {seconds} s: it hangs")

    previous = signal.signal(signal.SIGPROF, on_alarm)
    # Again every 50 ms after the bound: a signal that lands in a garbage-collector
    # callback (Hypothesis installs one) raises there, and Python drops that exception.
    signal.setitimer(signal.ITIMER_PROF, seconds, 0.05)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def bounded(call: Callable[..., T], *args: Any, seconds: float = HARD_BOUND_SECONDS) -> T:
    """``call(*args)`` cut at ``seconds`` of CPU (``Hang``), and failed (``Slow``) when it
    answers or refuses after more than ``DEADLINE_SECONDS``."""
    collecting = gc.isenabled()
    gc.disable()  # a collection of the whole worker's heap is not the parse's cost
    started = time.thread_time()
    try:
        with time_bound(seconds):
            result = call(*args)
    except Hang:
        raise
    except Exception as refusal:
        _check_deadline(started, refusal)
        raise
    finally:
        if collecting:
            gc.enable()
    _check_deadline(started)
    return result


def _check_deadline(started: float, refusal: Exception | None = None) -> None:
    spent = time.thread_time() - started
    if spent > DEADLINE_SECONDS:
        raise Slow(f"the parse took {spent:.2f} s of CPU (deadline {DEADLINE_SECONDS} s)") from refusal


def fuzz_settings(examples: int) -> settings:
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
        # The deadline is bounded()'s, in CPU time (see the module's docstring).
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        database=None,
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target),
    )
