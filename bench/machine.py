"""What the benchmarks print about the machine they ran on."""

from __future__ import annotations

import contextlib
import os
import platform


def cpu_model() -> str:
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as info:
        for line in info:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as the benchmarks print them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def machine_line() -> str:
    """The line a strength or speed run starts with: the machine and its load now."""
    return (
        f"machine: {platform.machine()}, {cpu_model()}, {os.cpu_count()} cores, load average {load_average()}"
    )
