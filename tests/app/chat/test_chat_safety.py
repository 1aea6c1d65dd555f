"""Link scrubbing, blocks and reports (issue 33), through the API."""

from __future__ import annotations

from sqlalchemy import select

from app.chat.models import ChatReport
from app.services.tokens import new_token
from tests.app.accounts.test_accounts_api import sign_up
from tests.app.chat.conftest import Chat, established, lines, say
from tests.app.helpers import started


def test_the_private_parts_of_links_are_removed(chat: Chat) -> None:
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    match_id = started(chat.alice, chat.bob)
    token = new_token()
    link = f"https://tablero.example/matches/{match_id}/continue/12/1767225600/{'ab12' * 8}"
    said = say(chat.alice, match_id, text=f"play on {link} ok")
    assert said.status_code == 201, said.text
    assert said.json()["text"] == f"play on https://tablero.example/matches/{match_id} ok"
    said = say(chat.alice, match_id, text=f"my token is {token}, and the code {'f00d' * 8}.")
    assert said.json()["text"] == "my token is …, and the code …."
    stored = [x["text"] for x in lines(chat.bob, match_id)]
    assert token not in " ".join(stored) and "continue" not in " ".join(stored)
    # An ordinary long word, or a number, is left alone.
    plain = say(chat.alice, match_id, text="Supercalifragilisticexpialidocious 1234567890")
    assert plain.json()["text"] == "Supercalifragilisticexpialidocious 1234567890"


def test_a_blocked_accounts_lines_are_hidden_from_the_blocker(chat: Chat) -> None:
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    match_id = started(chat.alice, chat.bob)
    say(chat.alice, match_id, text="rude words")
    say(chat.bob, match_id, phrase="hello")
    assert chat.bob.post("/api/users/ANA/block").status_code == 204
    assert [x["from"] for x in lines(chat.bob, match_id)] == ["bo"]
    chat.clock.advance(seconds=11)
    say(chat.alice, match_id, text="more rude words")
    assert [x["from"] for x in lines(chat.bob, match_id)] == ["bo"]
    assert len(lines(chat.alice, match_id)) == 3  # the blocked one still sees its own
    assert chat.bob.post("/api/users/ana/block").status_code == 204  # again: no change
    assert chat.bob.delete("/api/users/ana/block").status_code == 204
    assert [x["from"] for x in lines(chat.bob, match_id)] == ["ana", "bo", "ana"]


def test_block_refusals(chat: Chat) -> None:
    sign_up(chat.alice, "ana")
    missing = chat.alice.post("/api/users/nobody/block")
    # Profiles are public (GET /api/users/{name} says 404 too): nothing new is revealed.
    assert missing.status_code == 404 and "no player named nobody" in missing.json()["detail"]
    assert chat.alice.post("/api/users/ana/block").status_code == 422
    assert chat.alice.delete("/api/users/nobody/block").status_code == 404


def test_a_guest_can_block_an_account(chat: Chat) -> None:
    sign_up(chat.bob, "bo")
    match_id = started(chat.alice, chat.bob)
    say(chat.bob, match_id, phrase="hello")
    assert chat.alice.post("/api/users/bo/block").status_code == 204
    assert lines(chat.alice, match_id) == []


def test_a_line_is_reported_with_the_lines_around_it(chat: Chat) -> None:
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    match_id = started(chat.alice, chat.bob)
    say(chat.bob, match_id, phrase="hello")
    bad = say(chat.alice, match_id, text="<b>you are bad</b>").json()
    filed = chat.bob.post("/api/reports", json={"username": "ana", "reason": "insults", "line_id": bad["id"]})
    assert filed.status_code == 201, filed.text
    assert filed.json() | {"id": 0} == {"id": 0, "username": "ana", "status": "open"}
    with chat.app.state.sessions() as db:
        report = db.scalar(select(ChatReport))
        assert report is not None and report.reason == "insults" and report.line_id == bad["id"]
        assert report.match_id == match_id and '"<b>you are bad</b>"' in report.context
        assert "Hello" in report.context
    # An account without a line; then refusals.
    assert chat.bob.post("/api/reports", json={"username": "ana", "reason": "spam"}).status_code == 201
    nobody = chat.bob.post("/api/reports", json={"username": "nobody", "reason": "x"})
    assert nobody.status_code == 404
    not_hers = chat.bob.post("/api/reports", json={"username": "bo", "reason": "x", "line_id": bad["id"]})
    assert not_hers.status_code == 422  # oneself
    carol = chat.carol
    sign_up(carol, "carol")
    unreadable = carol.post("/api/reports", json={"username": "ana", "reason": "x", "line_id": bad["id"]})
    assert unreadable.status_code == 404  # the players' room is not hers to read
    assert chat.bob.post("/api/reports", json={"username": "ana", "reason": " "}).status_code == 422


def test_reports_are_limited_per_reporter(chat: Chat) -> None:
    sign_up(chat.alice, "ana")
    for n in range(5):
        assert chat.bob.post("/api/reports", json={"username": "ana", "reason": f"r{n}"}).status_code == 403
    match_id = started(chat.alice, chat.bob)  # a seat gives bob a player token
    assert match_id
    for n in range(5):
        assert chat.bob.post("/api/reports", json={"username": "ana", "reason": f"r{n}"}).status_code == 201
    too_many = chat.bob.post("/api/reports", json={"username": "ana", "reason": "again"})
    assert too_many.status_code == 429 and too_many.headers["retry-after"]
    chat.clock.advance(minutes=11)
    assert chat.bob.post("/api/reports", json={"username": "ana", "reason": "later"}).status_code == 201
