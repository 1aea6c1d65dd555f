"""Writes the match page's short sounds (static/sounds/*.wav): made here, no samples from anywhere.

python bench/make_sounds.py   # rewrites the five files
"""

from __future__ import annotations

import math
import struct
import wave
from pathlib import Path

RATE = 16000
OUT = Path(__file__).resolve().parent.parent / "static" / "sounds"


def tone(freq: float, ms: int, volume: float = 0.5, decay: float = 30.0) -> list[float]:
    count = RATE * ms // 1000
    return [
        volume * math.sin(2 * math.pi * freq * i / RATE) * math.exp(-decay * i / RATE) * min(1, i / 40)
        for i in range(count)
    ]


def knock(ms: int = 70) -> list[float]:
    """A wooden click: a low tone with a fast decay and a little noise-like overtone."""
    low = tone(180, ms, 0.7, 60)
    high = tone(1230, ms, 0.25, 120)
    return [a + b for a, b in zip(low, high, strict=True)]


def write(name: str, samples: list[float]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with wave.open(str(OUT / f"{name}.wav"), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(b"".join(struct.pack("<h", int(max(-1, min(1, s)) * 32000)) for s in samples))


def main() -> None:
    write("move", knock())
    write("capture", knock() + knock(90))
    write("turn", tone(660, 120, 0.35, 12) + tone(880, 160, 0.35, 12))
    write("end", tone(523, 150, 0.4, 8) + tone(659, 150, 0.4, 8) + tone(784, 300, 0.4, 6))
    # A question to answer (static/prompts.js): a call, high-low-high, unlike the others.
    write("prompt", tone(988, 110, 0.4, 10) + tone(740, 110, 0.4, 10) + tone(988, 180, 0.4, 8))


if __name__ == "__main__":
    main()
