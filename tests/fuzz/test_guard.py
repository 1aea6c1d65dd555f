"""The fuzz guard judges the parse, not the machine around it."""

from __future__ import annotations

import hashlib
import threading
import time

import pytest

from tests.fuzz.guard import DEADLINE_SECONDS, Hang, Slow, bounded


def _burn_cpu_until(stop: threading.Event) -> None:
    # hashlib releases the GIL on large inputs: this thread burns CPU in parallel with
    # the example, as another thread of a test worker can.
    data = b"x" * (1 << 20)
    while not stop.is_set():
        hashlib.sha256(data).digest()


def test_another_threads_cpu_is_not_charged_to_the_parse() -> None:
    stop = threading.Event()
    burner = threading.Thread(target=_burn_cpu_until, args=(stop,))
    burner.start()
    try:
        # A call that waits (no CPU of its own) while the other thread burns more CPU
        # than the deadline; counting the process's CPU failed it as Slow.
        assert bounded(time.sleep, DEADLINE_SECONDS * 1.6) is None
    finally:
        stop.set()
        burner.join()


def test_a_slow_parse_is_slow() -> None:
    def spin() -> None:
        end = time.thread_time() + DEADLINE_SECONDS * 1.2
        while time.thread_time() < end:
            pass

    with pytest.raises(Slow):
        bounded(spin)


def test_a_hang_is_cut() -> None:
    def forever() -> None:
        while True:
            pass

    started = time.monotonic()
    with pytest.raises(Hang):
        bounded(forever, seconds=0.3)
    assert time.monotonic() - started < 30
