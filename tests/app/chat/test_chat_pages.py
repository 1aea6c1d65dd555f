"""The match page's chat panel (issue 33): what each reader is offered, escaping, the
panel's forms, mute and the chat-off preference."""

from __future__ import annotations

import html

from tests.app.accounts.test_accounts_api import sign_up
from tests.app.chat.conftest import Chat, established, lines, say
from tests.app.helpers import started

HTML = {"accept": "text/html"}
HTMX = {"accept": "text/html", "hx-request": "true"}


def test_a_player_is_offered_the_phrases_in_the_page_language(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    page = chat.alice.get(f"/matches/{match_id}", headers=HTML).text
    assert 'id="chat"' in page and 'name="phrase" value="good-game"' in page
    assert ">Good game</button>" in page
    assert 'id="chat-text-input"' not in page  # a guest: phrases only
    spanish = chat.bob.get(f"/matches/{match_id}", headers={**HTML, "accept-language": "es"}).text
    assert ">Buena partida</button>" in spanish


def test_the_panel_form_says_a_phrase_and_answers_the_rooms(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    answer = chat.alice.post(
        f"/matches/{match_id}/chat", data={"room": "players", "phrase": "hello"}, headers=HTMX
    )
    assert answer.status_code == 200 and 'id="chat-rooms"' in answer.text and "Hello" in answer.text
    plain = chat.bob.post(
        f"/matches/{match_id}/chat", data={"room": "players", "phrase": "thanks"}, follow_redirects=False
    )
    assert plain.status_code == 303
    rooms = chat.bob.get(f"/matches/{match_id}/chat", headers={**HTMX, "accept-language": "es"}).text
    assert "Hola" in rooms and "Gracias" in rooms
    refused = chat.alice.post(
        f"/matches/{match_id}/chat", data={"room": "players", "text": "hi"}, headers=HTMX
    )
    assert refused.status_code == 200 and 'role="alert"' in refused.text and "choose a phrase" in refused.text


def test_a_guest_spectator_reads_but_is_offered_nothing_to_write(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    page = chat.carol.get(f"/matches/{match_id}", headers=HTML).text
    assert 'id="chat"' in page and 'name="phrase"' not in page
    assert "Spectators with an account can write here." in page
    refused = chat.carol.post(
        f"/matches/{match_id}/chat", data={"room": "spectators", "phrase": "hello"}, headers=HTMX
    )
    assert "may not write in this room" in refused.text


def test_free_text_is_offered_to_established_accounts_and_always_escaped(chat: Chat) -> None:
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    match_id = started(chat.alice, chat.bob)
    page = chat.alice.get(f"/matches/{match_id}", headers=HTML).text
    assert 'id="chat-text-input"' in page and 'maxlength="140"' in page
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    assert say(chat.alice, match_id, text=hostile).status_code == 201
    for client in (chat.alice, chat.bob):
        shown = client.get(f"/matches/{match_id}", headers=HTML).text
        assert hostile not in shown and "<img src=x" not in shown
        assert html.escape(hostile, quote=False) in shown or html.escape(hostile) in shown


def test_muting_a_match_hides_its_lines_for_that_player_only(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    say(chat.alice, match_id, phrase="oops")
    muted = chat.bob.post(f"/matches/{match_id}/chat/mute", data={"muted": "1"}, follow_redirects=False)
    assert muted.status_code == 303
    page = chat.bob.get(f"/matches/{match_id}", headers=HTML).text
    assert "You muted this chat." in page and "Oops" not in page and 'name="phrase"' not in page
    assert "Oops" in chat.alice.get(f"/matches/{match_id}", headers=HTML).text
    chat.bob.post(f"/matches/{match_id}/chat/mute", data={"muted": "0"})
    assert "Oops" in chat.bob.get(f"/matches/{match_id}", headers=HTML).text


def test_the_line_menu_blocks_and_reports(chat: Chat) -> None:
    sign_up(chat.alice, "ana")
    match_id = started(chat.alice, chat.bob)
    line = say(chat.alice, match_id, phrase="oops").json()
    rooms = chat.bob.get(f"/matches/{match_id}/chat", headers=HTMX).text
    assert "Block ana" in rooms and f'name="line_id" value="{line["id"]}"' in rooms
    reported = chat.bob.post(
        f"/matches/{match_id}/chat/report",
        data={"username": "ana", "line_id": line["id"], "reason": "rude"},
        headers=HTMX,
    )
    assert "Reported." in reported.text
    blocked = chat.bob.post(f"/matches/{match_id}/chat/block", data={"username": "ana"}, headers=HTMX)
    assert "Blocked" in blocked.text and "Oops" not in blocked.text
    assert lines(chat.bob, match_id) == []


def test_a_browser_with_nothing_to_report_from_is_offered_block_only(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    sign_up(chat.carol, "dave")
    say(chat.carol, match_id, "spectators", phrase="nice-move")
    watcher = chat.client()  # no cookie at all
    rooms = watcher.get(f"/matches/{match_id}/chat", headers=HTMX).text
    assert "Block dave" in rooms and "/chat/report" not in rooms
    seated = chat.alice.post(f"/api/matches/{match_id}/resign")  # the players now read it
    assert seated.status_code == 200
    assert "/chat/report" in chat.alice.get(f"/matches/{match_id}/chat", headers=HTMX).text
