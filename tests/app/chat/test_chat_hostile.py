"""Hostile free text (issue 33): what must be refused is never stored, what is stored
comes back exactly as typed (escaping is the page's job, see test_chat_pages.py)."""

from __future__ import annotations

import json

import pytest

from tests.app.chat.conftest import Chat, established, lines, say
from tests.app.helpers import started


@pytest.fixture
def talking(chat: Chat) -> tuple[Chat, str]:
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    return chat, started(chat.alice, chat.bob)


STORED_AS_TYPED = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "{{ 7*7 }} {% raw %}",
    "&lt;b&gt; &amp;",
    "javascript:alert(1)",
    "🎉" * 140,  # emoji count one character each
    "漢字" * 70,  # and CJK
    "مرحبا بالعالم",  # right-to-left text is fine; only the override characters are refused
]


@pytest.mark.parametrize("text", STORED_AS_TYPED)
def test_text_is_stored_and_answered_as_typed(talking: tuple[Chat, str], text: str) -> None:
    chat, match_id = talking
    said = say(chat.alice, match_id, text=text)
    assert said.status_code == 201, said.text
    assert said.json()["text"] == text
    assert lines(chat.bob, match_id)[-1]["text"] == text


REFUSED = [
    ("a\x00b", "NUL"),
    ("\x00", "NUL"),
    ("abc\u202edcba", "control or invisible"),  # right-to-left override
    ("\u2066isolate\u2069", "control or invisible"),
    ("zero\u200bwidth", "control or invisible"),
    ("private \ue000 use", "control or invisible"),
    ("bell \x07", "control or invisible"),
    ("x" * 10_000, "at most 140 characters"),
    ("🎉" * 141, "at most 140 characters"),
    ("漢" * 141, "at most 140 characters"),
    ("   ", "cannot be empty"),
    ("", "cannot be empty"),
]


@pytest.mark.parametrize(("text", "why"), REFUSED)
def test_hostile_text_is_refused_and_nothing_stored(talking: tuple[Chat, str], text: str, why: str) -> None:
    chat, match_id = talking
    refused = say(chat.alice, match_id, text=text)
    assert refused.status_code == 422, refused.text
    assert why in refused.json()["detail"]
    assert lines(chat.bob, match_id) == []


def test_a_lone_surrogate_is_refused(talking: tuple[Chat, str]) -> None:
    chat, match_id = talking
    body = '{"room": "players", "text": "a\\ud800b"}'
    refused = chat.alice.post(
        f"/api/matches/{match_id}/chat", content=body, headers={"content-type": "application/json"}
    )
    assert refused.status_code == 422
    assert lines(chat.bob, match_id) == []


def test_whitespace_folds_and_trims(talking: tuple[Chat, str]) -> None:
    chat, match_id = talking
    said = say(chat.alice, match_id, text="  two\n\nlines\tand  spaces  ")
    assert said.json()["text"] == "two lines and spaces"
    # Surrounding whitespace does not count towards the 140.
    assert say(chat.alice, match_id, text="   " + "y" * 140 + "\n").status_code == 201


def test_a_nul_in_a_phrase_key_or_a_report_is_a_422(talking: tuple[Chat, str]) -> None:
    chat, match_id = talking
    assert say(chat.alice, match_id, phrase="hel\x00lo").status_code == 422
    report = chat.bob.post("/api/reports", json={"username": "ana", "reason": "bad\x00"})
    assert report.status_code == 422
    assert chat.bob.post("/api/reports", json={"username": "an\x00a", "reason": "bad"}).status_code == 404
    assert chat.bob.post("/api/users/an%00a/block").status_code == 404
    assert chat.bob.get("/api/matches/a%00b/chat").status_code == 404
    assert say(chat.bob, "a%00b", phrase="hello").status_code == 404
    assert json.loads(chat.bob.get(f"/api/matches/{match_id}/chat").text) == {"lines": []}
