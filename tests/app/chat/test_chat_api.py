"""Match chat through the JSON API (issue 33): rooms, phrases and free text, limits."""

from __future__ import annotations

from tests.app.accounts.test_accounts_api import sign_up
from tests.app.chat.conftest import Chat, established, lines, say
from tests.app.helpers import create, started


def test_the_phrases_are_listed_by_key_in_the_readers_language(chat: Chat) -> None:
    english = chat.alice.get("/api/chat/phrases").json()["phrases"]
    assert {"key": "good-game", "text": "Good game"} in english
    assert {"key": "one-more", "text": "One more?"} in english
    spanish = chat.alice.get("/api/chat/phrases", headers={"accept-language": "es"}).json()["phrases"]
    assert {"key": "good-game", "text": "Buena partida"} in spanish
    assert [p["key"] for p in spanish] == [p["key"] for p in english]


def test_two_guests_exchange_phrases_each_in_their_own_language(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    said = say(chat.alice, match_id, phrase="good-luck")
    assert said.status_code == 201, said.text
    line = said.json()
    assert line["phrase"] == "good-luck" and line["text"] == "Good luck"
    assert line["from"] == "Alice" and line["account"] is None and line["side"] == "w"
    chat.bob.cookies.set("lang", "es")
    assert say(chat.bob, match_id, phrase="thanks").status_code == 201
    seen_by_bob = lines(chat.bob, match_id)
    assert [(x["phrase"], x["text"], x["from"]) for x in seen_by_bob] == [
        ("good-luck", "Buena suerte", "Alice"),
        ("thanks", "Gracias", "Bob"),
    ]
    assert [x["text"] for x in lines(chat.alice, match_id)] == ["Good luck", "Thanks"]


def test_the_players_room_is_the_two_seats(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    say(chat.alice, match_id, phrase="hello")
    carol = chat.carol
    assert carol.get(f"/api/matches/{match_id}/chat?room=players").status_code == 403
    refused = say(carol, match_id, phrase="hello")
    assert refused.status_code == 403 and "may not write" in refused.json()["detail"]
    sign_up(carol, "carol")  # an account is still not a seat
    assert say(carol, match_id, phrase="hello").status_code == 403
    assert carol.get(f"/api/matches/{match_id}/chat?room=players").status_code == 403


def test_the_spectators_room_is_signed_in_spectators_players_read_it_after_the_game(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    guest = chat.carol
    assert lines(guest, match_id, "spectators") == []
    refused = say(guest, match_id, "spectators", phrase="hello")
    assert refused.status_code == 403  # a spectator without an account cannot write
    dave = chat.client()
    sign_up(dave, "dave")
    assert say(dave, match_id, "spectators", phrase="nice-move").status_code == 201
    assert [x["from"] for x in lines(guest, match_id, "spectators")] == ["dave"]
    # The players neither read nor write it while they play...
    assert chat.alice.get(f"/api/matches/{match_id}/chat?room=spectators").status_code == 403
    assert say(chat.alice, match_id, "spectators", phrase="hello").status_code == 403
    # ...and read it once the game is over; the spectators never read the players'.
    assert chat.alice.post(f"/api/matches/{match_id}/resign").status_code == 200
    assert [x["phrase"] for x in lines(chat.alice, match_id, "spectators")] == ["nice-move"]
    assert dave.get(f"/api/matches/{match_id}/chat?room=players").status_code == 403


def test_free_text_needs_an_account_a_day_old_with_three_finished_games(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    guest = say(chat.alice, match_id, text="hi there")
    assert guest.status_code == 422 and "phrase" in guest.json()["detail"]
    sign_up(chat.alice, "ana")
    assert say(chat.alice, match_id, text="hi there").status_code == 422  # new, no games
    sign_up(chat.bob, "bo")
    from tests.app.chat.conftest import finish_games

    finish_games(chat.alice, chat.bob, 2)
    chat.clock.advance(days=1, minutes=1)
    assert say(chat.alice, match_id, text="hi there").status_code == 422  # two games only
    finish_games(chat.alice, chat.bob, 1)
    said = say(chat.alice, match_id, text="hi there")
    assert said.status_code == 201, said.text
    assert said.json() | {"id": 0, "at": ""} == {
        "id": 0,
        "from": "ana",
        "account": "ana",
        "side": "w",
        "phrase": None,
        "text": "hi there",
        "at": "",
    }


def test_a_day_is_needed_even_with_the_games(chat: Chat) -> None:
    sign_up(chat.alice, "ana")
    sign_up(chat.bob, "bo")
    from tests.app.chat.conftest import finish_games

    finish_games(chat.alice, chat.bob, 3)
    match_id = started(chat.alice, chat.bob)
    chat.clock.advance(hours=23, minutes=59)
    assert say(chat.alice, match_id, text="hello").status_code == 422
    chat.clock.advance(minutes=2)
    assert say(chat.alice, match_id, text="hello").status_code == 201


def test_at_most_four_lines_in_ten_seconds(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    for key in ("hello", "good-luck", "have-fun", "oops"):
        assert say(chat.alice, match_id, phrase=key).status_code == 201
        chat.clock.advance(seconds=1)
    flood = say(chat.alice, match_id, phrase="sorry")
    assert flood.status_code == 429
    assert "4 lines in 10 seconds" in flood.json()["detail"]
    assert 1 <= int(flood.headers["retry-after"]) <= 7
    assert say(chat.bob, match_id, phrase="sorry").status_code == 201  # per sender
    chat.clock.advance(seconds=7)  # the first line is now 11 s old
    assert say(chat.alice, match_id, phrase="sorry").status_code == 201
    assert len(lines(chat.alice, match_id)) == 6  # nothing stored by the refusal


def test_the_same_line_again_within_a_minute_is_refused(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    assert say(chat.alice, match_id, phrase="oops").status_code == 201
    chat.clock.advance(seconds=30)
    again = say(chat.alice, match_id, phrase="oops")
    assert again.status_code == 429 and "less than a minute ago" in again.json()["detail"]
    assert 25 <= int(again.headers["retry-after"]) <= 31
    assert say(chat.bob, match_id, phrase="oops").status_code == 201  # another sender
    chat.clock.advance(seconds=31)
    assert say(chat.alice, match_id, phrase="oops").status_code == 201


def test_the_same_text_in_other_case_is_the_same_line(chat: Chat) -> None:
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    match_id = started(chat.alice, chat.bob)
    assert say(chat.alice, match_id, text="Nice one").status_code == 201
    assert say(chat.alice, match_id, text="nice ONE").status_code == 429


def test_the_room_keeps_its_last_hundred_lines(chat: Chat) -> None:
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    match_id = started(chat.alice, chat.bob)
    for n in range(105):
        assert say(chat.alice, match_id, text=f"line {n}").status_code == 201
        chat.clock.advance(seconds=3)
    kept = lines(chat.bob, match_id)
    assert len(kept) == 100
    assert kept[0]["text"] == "line 5" and kept[-1]["text"] == "line 104"


def test_a_bad_line_is_a_422_naming_why_and_changes_nothing(chat: Chat) -> None:
    match_id = started(chat.alice, chat.bob)
    cases = [
        ({"room": "players"}, "either a phrase or a text"),
        ({"room": "players", "phrase": "hello", "text": "hi"}, "either a phrase or a text"),
        ({"room": "players", "phrase": "kill"}, "no phrase"),
        ({"room": "kitchen", "phrase": "hello"}, "room"),
    ]
    for body, why in cases:
        refused = chat.alice.post(f"/api/matches/{match_id}/chat", json=body)
        assert refused.status_code == 422, body
        assert why in refused.json()["detail"], refused.json()
    assert (
        chat.alice.post("/api/matches/nosuch/chat", json={"room": "players", "phrase": "hello"}).status_code
        == 404
    )
    assert chat.alice.get("/api/matches/nosuch/chat").status_code == 404
    assert lines(chat.alice, match_id) == []


def test_a_seat_waiting_for_its_opponent_can_already_talk(chat: Chat) -> None:
    match_id = create(chat.alice)
    assert say(chat.alice, match_id, phrase="hello").status_code == 201
    assert say(chat.bob, match_id, phrase="hello").status_code == 403  # not seated yet
