"""The clocks in words: the typed "clocks" command and the low-time warnings (issue 19)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.i18n import translations
from app.main import create_app
from app.services.clock_words import duration, low_time_said
from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN, create, play, started

EN, ES = translations("en"), translations("es")
HTML = {"accept": "text/html"}
START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
FIVE_MINUTES = {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 0}


@pytest.mark.parametrize(
    ("ms", "realtime", "words"),
    [
        (252_999, True, "4 minutes 12 seconds"),
        (60_000, True, "1 minute"),
        (9_400, True, "9 seconds"),
        (999, True, "0 seconds"),
        (-5, True, "0 seconds"),
        (3_725_000, True, "1 hour 2 minutes 5 seconds"),
        (2 * 86_400_000 + 3 * 3_600_000 + 5 * 60_000 + 30_000, False, "2 days 3 hours 5 minutes"),
        (3 * 86_400_000, False, "3 days"),
        (45_000, False, "45 seconds"),
    ],
)
def test_durations_in_words(ms: int, realtime: bool, words: str) -> None:
    assert duration(EN.ngettext, ms, realtime) == words


def test_durations_in_spanish() -> None:
    assert duration(ES.ngettext, 61_000, True) == "1 minuto 1 segundo"
    assert duration(ES.ngettext, 2 * 86_400_000 + 3_600_000, False) == "2 días 1 hora"


@pytest.mark.parametrize(
    ("control", "limits"),
    [
        ({"kind": "realtime", "initial_seconds": 300, "increment_seconds": 3}, ["60000", "20000", "10000"]),
        # A 1+0 game does not begin with "one minute left"; a 0:15 one only hears ten seconds.
        ({"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0}, ["20000", "10000"]),
        ({"kind": "realtime", "initial_seconds": 15, "increment_seconds": 0}, ["10000"]),
        ({"kind": "correspondence", "days": 1}, ["3600000", "600000"]),
    ],
)
def test_the_warnings_are_the_limits_below_the_allowance(control: dict, limits: list[str]) -> None:
    words = json.loads(low_time_said(EN.gettext, EN.ngettext, control))
    assert list(words) == limits
    assert low_time_said(EN.gettext, EN.ngettext, None) == ""


def test_the_warnings_speak_the_viewers_language() -> None:
    control = {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 0}
    assert json.loads(low_time_said(EN.gettext, EN.ngettext, control))["20000"] == (
        "20 seconds left on your clock."
    )
    assert json.loads(low_time_said(ES.gettext, ES.ngettext, control))["60000"] == (
        "Tiempo restante en tu reloj: 1 minuto."
    )
    control = {"kind": "correspondence", "days": 3}
    assert json.loads(low_time_said(EN.gettext, EN.ngettext, control))["3600000"] == (
        "1 hour left on your clock."
    )


# ------------------------------------------------------------------ through the server, at set moments


@pytest.fixture
def moment() -> list[datetime]:
    return [START]


@pytest.fixture
def timed_app(tmp_path: Path, moment: list[datetime]):
    url = database_url(tmp_path)
    settings = Settings(database_url=url, secret_key="test-secret", rate_limits=False)
    return create_app(settings, clock=lambda: moment[0])


@pytest.fixture
def players(timed_app) -> Iterator[tuple[TestClient, TestClient, TestClient]]:
    with TestClient(timed_app) as alice:
        yield alice, TestClient(timed_app), TestClient(timed_app)


def clocks(client: TestClient, match_id: str, command: str = "clocks") -> str:
    response = client.post(f"/matches/{match_id}/typed", data={"text": command})
    assert response.status_code == 200, response.text
    return response.json()["answer"]


def test_the_clocks_command_reads_both_clocks_as_the_server_measures_them(
    players: tuple[TestClient, TestClient, TestClient], moment: list[datetime]
) -> None:
    alice, bob, carol = players
    waiting = create(alice, time_control=FIVE_MINUTES)
    assert clocks(alice, waiting) == "The clocks start when an opponent joins, with 5 minutes each."
    bob.post(f"/api/matches/{waiting}/join", json={"name": "Bob"})
    match_id = waiting
    assert clocks(carol, match_id, "c") == (
        "White (Alice): 5 minutes; Black (Bob): 5 minutes. White (Alice) to move; the clock starts"
        " after the first move, due within 30 seconds."
    )
    play(alice, match_id, MORRIS_WIN[0])
    play(bob, match_id, MORRIS_WIN[1])  # both first moves in their grace: nothing used
    moment[0] += timedelta(seconds=47, milliseconds=500)
    assert clocks(bob, match_id) == (
        "White (Alice): 4 minutes 12 seconds; Black (Bob): 5 minutes. White (Alice) to move."
    )
    bob.cookies.set("lang", "es")
    assert clocks(bob, match_id, "relojes") == (
        "Blancas (Alice): 4 minutos 12 segundos; Negras (Bob): 5 minutos. Le toca a Blancas (Alice)."
    )
    assert alice.post(f"/api/matches/{match_id}/resign").status_code == 200
    moment[0] += timedelta(minutes=1)
    assert clocks(alice, match_id, "clock") == (
        "White (Alice): 4 minutes 12 seconds; Black (Bob): 5 minutes. The game is over."
    )


def test_the_clocks_command_in_correspondence_says_days(
    players: tuple[TestClient, TestClient, TestClient], moment: list[datetime]
) -> None:
    alice, bob, _carol = players
    match_id = started(alice, bob, time_control={"kind": "correspondence", "days": 3})
    moment[0] += timedelta(hours=1, seconds=30)
    assert clocks(alice, match_id) == (
        "White (Alice): 2 days 22 hours 59 minutes; Black (Bob): 3 days. White (Alice) to move."
    )


def test_an_untimed_match_says_it_has_no_clock(players: tuple[TestClient, TestClient, TestClient]) -> None:
    alice, bob, _carol = players
    match_id = started(alice, bob)
    assert clocks(alice, match_id) == "This match has no clocks."
    alice.cookies.set("lang", "es")
    assert clocks(alice, match_id, "reloj") == "Esta partida no tiene relojes."


def low_said(page: str) -> dict[str, dict[str, str]]:
    """side -> the warnings written on that side's clock (none: an empty dict)."""
    found = {}
    for tag in re.findall(r"<span class=\"game-clock[^>]*>", page):
        side = re.search(r'data-side="(\w+)"', tag).group(1)
        words = re.search(r'data-low-said="([^"]*)"', tag)
        found[side] = json.loads(html.unescape(words.group(1))) if words else {}
    return found


def test_only_the_viewers_own_clock_carries_the_warnings(
    players: tuple[TestClient, TestClient, TestClient],
) -> None:
    alice, bob, carol = players
    match_id = started(alice, bob, time_control=FIVE_MINUTES)
    assert low_said(alice.get(f"/matches/{match_id}", headers=HTML).text) == {
        "w": {
            "60000": "1 minute left on your clock.",
            "20000": "20 seconds left on your clock.",
            "10000": "10 seconds left on your clock.",
        },
        "b": {},
    }
    bob.cookies.set("lang", "es")
    seen_by_bob = low_said(bob.get(f"/matches/{match_id}/live", headers=HTML).text)
    assert seen_by_bob["w"] == {} and seen_by_bob["b"]["10000"] == "Tiempo restante en tu reloj: 10 segundos."
    assert low_said(carol.get(f"/matches/{match_id}", headers=HTML).text) == {"w": {}, "b": {}}
    assert alice.post(f"/api/matches/{match_id}/resign").status_code == 200
    assert low_said(alice.get(f"/matches/{match_id}", headers=HTML).text) == {"w": {}, "b": {}}
