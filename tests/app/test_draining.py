"""A stopping process ends its event streams at once (app/draining.py): the browsers
reconnect elsewhere, and uvicorn does not wait out its graceful-shutdown timeout and
then cancel each stream with an error in the log."""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from pathlib import Path
from types import FrameType

import httpx

from app.draining import streams_end_on_exit
from app.events import WATCHERS, Broker
from tests.app.conftest import database_url
from tests.live import LiveServer


def test_a_stopped_server_ends_its_streams_at_once_and_logs_no_error(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = LiveServer(database_url(tmp_path), log=log)  # its own uvicorn process
    server.start()
    try:
        body = {"game": "morris", "name": "A", "side": "first"}
        created = httpx.post(f"{server.url}/api/matches", json=body)
        assert created.status_code == 201, created.text
        connected, ended = threading.Event(), threading.Event()
        lines: list[str] = []

        def read() -> None:
            url = f"{server.url}/matches/{created.json()['id']}/events"
            with httpx.stream("GET", url, timeout=30) as response:
                for line in response.iter_lines():
                    lines.append(line)
                    connected.set()
            ended.set()  # the answer ended as answers do, no error

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert connected.wait(10), lines
        assert server.process is not None
        stopped_at = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        # uvicorn here waits up to 3 s (--timeout-graceful-shutdown) before it cancels.
        assert ended.wait(10), "the stream did not end"
        took = time.monotonic() - stopped_at
        # uvicorn raises the signal again once it has stopped, as it was told to end.
        assert server.process.wait(10) in (0, -signal.SIGTERM)
        server.process = None
        assert took < 2.0, f"the stream ended {took:.1f} s after SIGTERM"
    finally:
        server.stop(kill=True)
    said = log.read_text(errors="replace")
    assert "timeout graceful shutdown exceeded" not in said, said[-3000:]
    assert "Exception in ASGI application" not in said, said[-3000:]


def test_closing_wakes_every_stream_of_the_process() -> None:
    broker = Broker()

    async def listen() -> list[int]:
        async with broker.subscribe("m1") as one, broker.subscribe("m2", spectator=True) as two:
            assert not broker.closing
            broker.close_streams()
            heard = [await asyncio.wait_for(one.get(), 2), await asyncio.wait_for(two.get(), 2)]
        return heard

    assert asyncio.run(listen()) == [WATCHERS, WATCHERS]
    assert broker.closing


def test_the_signal_ends_the_streams_then_goes_to_the_handler_that_was_there() -> None:
    heard: list[str] = []

    def before(sig: int, _frame: FrameType | None) -> None:
        heard.append(f"handler {sig}")

    original = signal.signal(signal.SIGTERM, before)
    try:
        with streams_end_on_exit(lambda: heard.append("closed")):
            signal.raise_signal(signal.SIGTERM)
        assert heard == ["closed", f"handler {signal.SIGTERM}"]
        assert signal.getsignal(signal.SIGTERM) is before  # given back as it was
    finally:
        signal.signal(signal.SIGTERM, original)
