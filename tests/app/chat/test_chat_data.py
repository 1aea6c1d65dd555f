"""The chat and the rest of the site (issue 33): your data (export, closing), blocks and
"Play anyone", the chat-off preference, the record page."""

from __future__ import annotations

from sqlalchemy import func, select

from app.chat.models import ChatBlock, ChatLine, ChatReport
from tests.app.accounts.test_accounts_api import PASSWORD, sign_up
from tests.app.chat.conftest import Chat, established, lines, say
from tests.app.helpers import started
from tests.app.seeks.test_seeks import FIVE_THREE

HTML = {"accept": "text/html"}


def test_the_export_holds_the_accounts_chat(chat: Chat) -> None:
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    match_id = started(chat.alice, chat.bob)
    say(chat.alice, match_id, phrase="good-luck")
    line = say(chat.bob, match_id, text="<i>hi</i>").json()
    chat.alice.post("/api/users/bo/block")
    chat.alice.post("/api/reports", json={"username": "bo", "reason": "tags", "line_id": line["id"]})
    exported = chat.alice.get("/api/account/export").json()["chat"]
    assert [(x["match_id"], x["phrase"], x["text"]) for x in exported["lines"]] == [
        (match_id, "good-luck", None)
    ]
    assert [b["username"] for b in exported["blocked"]] == ["bo"]
    assert [(r["username"], r["reason"]) for r in exported["reports_filed"]] == [("bo", "tags")]
    theirs = chat.bob.get("/api/account/export").json()["chat"]
    assert [x["text"] for x in theirs["lines"]] == ["<i>hi</i>"]
    assert theirs["reports_filed"] == [] and "tags" not in str(theirs)  # nobody learns who reported


def test_closing_the_account_deletes_its_chat(chat: Chat) -> None:
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    match_id = started(chat.alice, chat.bob)
    say(chat.alice, match_id, text="bye all")
    say(chat.bob, match_id, phrase="bye")
    chat.alice.post("/api/users/bo/block")
    chat.bob.post("/api/reports", json={"username": "ana", "reason": "spam"})
    assert chat.alice.request("DELETE", "/api/account", json={"password": PASSWORD}).status_code == 204
    assert [x["phrase"] for x in lines(chat.bob, match_id)] == ["bye"]
    with chat.app.state.sessions() as db:
        assert db.scalar(select(func.count()).select_from(ChatLine)) == 1
        assert db.scalar(select(func.count()).select_from(ChatBlock)) == 0
        assert db.scalar(select(func.count()).select_from(ChatReport)) == 0


def seek(client, **extra):  # type: ignore[no-untyped-def]
    body = {"game": "morris", "time_control": FIVE_THREE, "rated": False, **extra}
    response = client.post("/api/seeks", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def test_a_blocked_account_is_never_paired_with_the_blocker(chat: Chat) -> None:
    sign_up(chat.alice, "ana")
    sign_up(chat.bob, "bo")
    assert chat.alice.post("/api/users/bo/block").status_code == 204
    seek(chat.alice)
    chat.clock.advance(seconds=1)  # the test clock stands still: order the seeks by time
    assert seek(chat.bob)["status"] == "waiting"  # bo cannot join ana's seek
    paired = seek(chat.carol)  # anyone else can: the oldest, ana's
    assert paired["status"] == "paired"
    assert [m["id"] for m in chat.alice.get("/api/me/matches").json()["matches"]] == [paired["match_id"]]
    assert chat.bob.get("/api/me/matches").json()["matches"] == []


def test_the_blocked_side_cannot_be_joined_either(chat: Chat) -> None:
    sign_up(chat.alice, "ana")
    sign_up(chat.bob, "bo")
    chat.bob.post("/api/users/ana/block")  # bo blocks ana; ana seeks, then bo
    seek(chat.alice)
    assert seek(chat.bob)["status"] == "waiting"
    chat.bob.delete("/api/users/ana/block")
    assert seek(chat.bob)["status"] == "paired"


def test_chat_can_be_turned_off_for_every_game(chat: Chat) -> None:
    sign_up(chat.alice, "ana")
    match_id = started(chat.alice, chat.bob)
    kept = chat.alice.put("/api/account/preferences", json={"chat": False})
    assert kept.status_code == 200 and kept.json()["chat"] is False
    page = chat.alice.get(f"/matches/{match_id}", headers=HTML).text
    assert "You turned chat off" in page and 'name="phrase"' not in page
    assert 'class="chat-refresh"' not in page  # nothing re-fetched on the stream's events
    chat.alice.post("/account/preferences", data={"language": "en", "chat": "on"})
    assert 'name="phrase"' in chat.alice.get(f"/matches/{match_id}", headers=HTML).text


def test_the_record_page_shows_the_chat_to_its_players_only(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    say(chat.alice, match_id, phrase="good-game")
    chat.alice.post(f"/api/matches/{match_id}/resign")
    for player in (chat.alice, chat.bob):
        page = player.get(f"/matches/{match_id}/analysis", headers=HTML).text
        assert "Chat between the players" in page and "Good game" in page
    other = chat.carol.get(f"/matches/{match_id}/analysis", headers=HTML).text
    assert "Chat between the players" not in other and "Good game" not in other
    record = chat.carol.get(f"/api/matches/{match_id}/record").text
    assert "Good game" not in chat.alice.get(f"/api/matches/{match_id}/record").text and record


def test_signing_up_takes_the_guests_chat_along(chat: Chat) -> None:
    sign_up(chat.carol, "rude")
    match_id = started(chat.alice, chat.bob)
    say(chat.carol, match_id, "spectators", phrase="oops")
    said = say(chat.alice, match_id, phrase="hello").json()
    assert chat.bob.post("/api/users/rude/block").status_code == 204  # as a guest
    chat.bob.post(f"/matches/{match_id}/chat/mute", data={"muted": "1"})
    sign_up(chat.alice, "ana")
    sign_up(chat.bob, "bo")
    exported = chat.alice.get("/api/account/export").json()["chat"]
    assert [(x["match_id"], x["phrase"]) for x in exported["lines"]] == [(match_id, "hello")]
    theirs = chat.bob.get("/api/account/export").json()["chat"]
    assert [b["username"] for b in theirs["blocked"]] == ["rude"] and theirs["muted_matches"] == [match_id]
    # The limits go on counting: the same line again is still refused.
    assert say(chat.alice, match_id, phrase="hello").status_code == 429
    assert said["account"] is None
