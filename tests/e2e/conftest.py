"""A real server in a subprocess and headless Chromium driven by Playwright."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import ROOT
from tests.app.conftest import database_url
from tests.live import LiveServer

CHROMIUM = "/usr/bin/chromium"
# As root in a container Chromium needs --no-sandbox; the network here is closed, so
# background traffic is switched off rather than left to fail.
CHROMIUM_ARGS = [
    "--mute-audio",
    "--autoplay-policy=no-user-gesture-required",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
OUTPUT = ROOT / "test-output"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    url = database_url(tmp_path)  # a copy of the migrated template, not a migration
    live = LiveServer(url)
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(f"{CHROMIUM} is missing; .ci/run installs it (apt-get install chromium)")
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Path:
    folder = OUTPUT / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    return folder
