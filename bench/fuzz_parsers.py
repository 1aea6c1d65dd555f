"""The fuzz suite's long run: tests/fuzz with many times CI's examples per parser.

    .venv/bin/python bench/fuzz_parsers.py [--scale 40] [-- extra pytest arguments]

CI runs tests/fuzz with a bounded number of examples (FUZZ_SCALE=1, about 150-300 per
parser); this runs the same tests, the same per-example deadline and hard time bound, with
``--scale`` times as many, and prints how long it took and the pytest summary. Any
failure prints the input that found it: add it to the test as an ``@example`` with the fix.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=40.0, help="times CI's examples per parser")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args()
    env = {**os.environ, "FUZZ_SCALE": str(args.scale), "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/fuzz", *args.pytest_args],
        cwd=ROOT,
        env=env,
        check=False,
    )
    print(f"fuzz_parsers: scale {args.scale:g}, {time.monotonic() - started:.0f} s, exit {done.returncode}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
