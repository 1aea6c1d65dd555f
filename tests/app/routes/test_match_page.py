"""The match page's server side: banner offers, the rematch offer, the move list, browsing,
the invite with its QR code, step hints and the data the page script reads."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

import games
from tests.app.helpers import MORRIS_WIN, bilsang_quiet_game, create, play, started

HTML = {"accept": "text/html"}
HX = {"hx-request": "true"}


def page_of(client: TestClient, match_id: str, query: str = "") -> str:
    return client.get(f"/matches/{match_id}{query}", headers=HTML).text


def finished(alice: TestClient, bob: TestClient) -> str:
    match_id = started(alice, bob)
    bob.post(f"/api/matches/{match_id}/resign")
    return match_id


def test_a_rematch_is_offered_then_accepted(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    match_id = finished(alice, bob)
    url = f"/api/matches/{match_id}/rematch"
    assert carol.post(url, json={"action": "offer"}).status_code == 403
    assert bob.post(url, json={"action": "accept"}).status_code == 409  # nothing to accept yet
    state = alice.post(url, json={"action": "offer"}).json()
    assert state["rematch_offer"] == "w" and state["rematch_id"] is None
    assert alice.post(url, json={"action": "offer"}).status_code == 409  # asked already
    assert alice.post(url, json={"action": "accept"}).status_code == 409  # not your own offer
    assert "Alice offers a rematch" in page_of(bob, match_id)
    assert "Alice offers a rematch" in page_of(carol, match_id)  # spectators see it too
    declined = bob.post(url, json={"action": "decline"}).json()
    assert declined["rematch_offer"] is None and declined["rematch_id"] is None
    bob.post(url, json={"action": "offer"})
    accepted = alice.post(url, json={"action": "accept"}).json()
    assert accepted["rematch_id"] and accepted["rematch_offer"] is None
    fresh = alice.get(f"/api/matches/{accepted['rematch_id']}").json()
    assert fresh["status"] == "playing"
    assert {p["name"]: p["side"] for p in fresh["players"]} == {"Alice": "b", "Bob": "w"}
    assert alice.post(url, json={"action": "offer"}).status_code == 409  # it has started
    # Every page open on the old match learns where the rematch is.
    assert f'data-rematch="{accepted["rematch_id"]}"' in page_of(carol, match_id)


def test_offers_made_at_the_same_time_start_the_rematch(alice: TestClient, bob: TestClient) -> None:
    match_id = finished(alice, bob)
    url = f"/api/matches/{match_id}/rematch"
    alice.post(url, json={"action": "offer"})
    assert bob.post(url, json={"action": "offer"}).json()["rematch_id"] is not None


def test_the_computer_accepts_a_rematch_at_once(alice: TestClient) -> None:
    match_id = create(alice, "morris", opponent={"level": 1})
    alice.post(f"/api/matches/{match_id}/resign")
    state = alice.post(f"/api/matches/{match_id}/rematch", json={"action": "offer"}).json()
    assert state["rematch_id"] is not None


def test_the_rematch_button_on_the_page_asks_first(alice: TestClient, bob: TestClient) -> None:
    match_id = finished(alice, bob)
    assert 'data-action="rematch-offer"' in page_of(alice, match_id)
    answer = alice.post(f"/matches/{match_id}/act", data={"action": "rematch-offer"}, headers=HX)
    assert "You offered a rematch" in answer.text
    declined = bob.post(f"/matches/{match_id}/act", data={"action": "rematch-decline"}, headers=HX)
    assert "offers a rematch" not in declined.text and 'data-action="rematch-offer"' in declined.text
    alice.post(f"/matches/{match_id}/act", data={"action": "rematch-offer"}, headers=HX)
    accepted = bob.post(f"/matches/{match_id}/act", data={"action": "rematch-accept"}, headers=HX)
    assert accepted.status_code == 204 and accepted.headers["hx-redirect"].startswith("/matches/")
    # A late answer is told so in words, not with a 500.
    again = alice.post(f"/matches/{match_id}/act", data={"action": "rematch-accept"}, headers=HX)
    assert again.status_code == 200 and "the rematch has already started" in again.text


def test_an_offer_is_answered_in_the_banner(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    match_id = started(alice, bob)
    alice.post(f"/matches/{match_id}/act", data={"action": "draw-offer"}, headers=HX)
    text = page_of(bob, match_id).split('class="banner-box"')[1].split('<section class="moves"')[0]
    assert "Alice offers a draw." in text
    assert 'data-action="draw-accept"' in text and 'data-action="draw-decline"' in text
    assert "You offered a draw; waiting for the answer." in page_of(alice, match_id)
    assert 'data-action="draw-accept"' not in page_of(carol, match_id)
    assert 'data-draw-offer="w"' in page_of(bob, match_id)  # the script notices when it lapses
    play(alice, match_id, "d1")
    # Moving declines: the offer is gone from the banner and from the data.
    after = page_of(alice, match_id)
    assert 'data-draw-offer=""' in after and "offers a draw." not in after
    assert "The draw offer lapsed" in after  # the note the script reveals


def test_the_move_list_pairs_plies_and_bilsang_lists_each(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    for ply, text in enumerate(MORRIS_WIN[:3]):
        (alice, bob)[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
    page = page_of(alice, match_id)
    rows = re.findall(r"<li><span class=\"num\">(\d+)\.</span>(.*?)</li>", page, re.S)
    assert [(n, re.findall(r">([^<]+)</a>", cells)) for n, cells in rows] == [
        ("1", ["c5", "a7"]),
        ("2", ["d5"]),
    ]
    assert 'data-at="3" class="mv current"' in page
    bilsang = started(alice, bob, "bilsang", options={})  # the line is free pairs
    for ply, text in enumerate(bilsang_quiet_game(1)[:3]):
        (alice, bob)[ply % 2].post(f"/api/matches/{bilsang}/moves", json={"move": text, "ply": ply})
    rows = re.findall(r'<li><span class="num">(\d+)\.</span>', page_of(alice, bilsang))
    assert rows == ["1", "2", "3"]


def test_browsing_shows_an_earlier_position_with_counters_that_agree(
    alice: TestClient, bob: TestClient
) -> None:
    match_id = started(alice, bob)
    for ply, text in enumerate(MORRIS_WIN[:5]):
        (alice, bob)[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
    live = alice.get(f"/matches/{match_id}/live?at=2", headers=HX).text
    assert 'data-shown-ply="2"' in live and 'data-ply="5"' in live
    assert "Showing the position after ply 2 of 5" in live and "Ply 2 of 5" in live
    assert re.search(r"<dt>Plies played</dt><dd>2</dd>", live)
    assert 'data-at="2" class="mv current"' in live
    assert "Back to the game" in live  # the match goes on: a way back to the present
    assert "data-clicks" not in live  # nothing to tap in the past
    present = alice.get(f"/matches/{match_id}/live", headers=HX).text
    assert 'data-shown-ply="5"' in present and "Showing the position" not in present
    # Out-of-range plies show the present, never an error.
    assert alice.get(f"/matches/{match_id}/live?at=99", headers=HX).status_code == 200
    assert alice.get(f"/matches/{match_id}/live?at=x", headers=HX).status_code == 422


def test_the_invite_has_a_qr_code_until_the_seat_is_taken(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice)
    waiting = page_of(alice, match_id)
    assert 'id="invite-url"' in waiting and '<svg viewBox="0 0' in waiting and 'class="qr"' in waiting
    visitor = page_of(bob, match_id)
    assert 'id="join"' in visitor and 'id="invite-url"' not in visitor
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    playing = page_of(alice, match_id)
    assert 'id="invite-url"' not in playing and 'class="qr"' not in playing and 'id="join"' not in playing


def test_step_hints_and_the_turn_hints(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    for ply, text in enumerate(MORRIS_WIN[:8]):
        (alice, bob)[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
    page = page_of(alice, match_id)
    assert "remove one of your opponent&#39;s pieces" in page and 'data-hint="remove" hidden' in page
    assert 'class="ghost side-w"' in page  # a piece to draw where the mill is closed
    bilsang = started(alice, bob, "bilsang", options={})  # the line is free pairs
    line = bilsang_quiet_game(2)
    for ply, text in enumerate(line[:2]):
        (alice, bob)[ply % 2].post(f"/api/matches/{bilsang}/moves", json={"move": text, "ply": ply})
    assert re.search(r"This turn the buoys move (horizontally|vertically)\.", page_of(alice, bilsang))


def test_the_page_says_what_the_last_move_was(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    for ply, text in enumerate(MORRIS_WIN[:9]):  # the ninth is f6xe5, a removal
        (alice, bob)[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
    page = page_of(bob, match_id)
    assert 'data-last-kind="capture"' in page and 'data-my-turn="true"' in page
    assert "<title>(your move) " in page
    assert 'data-last-kind="move"' in page_of(bob, match_id, "?at=8")


def test_a_bilsang_removal_is_shown_and_said(alice: TestClient, bob: TestClient) -> None:
    # A blocked player removes a buoy: the live part described every Bilsang move as pairs
    # of points and answered 500 after the first removal (found playing a whole game).
    blocked = "1 v 0 1 13 0 0,0;0,1;1,2;1,3;2,3;0,4 - line,quiet=300"
    match_id = started(alice, bob, "bilsang", side="first", position=blocked)
    answer = alice.post(f"/api/matches/{match_id}/moves", json={"move": "x 2,3", "ply": 0})
    assert answer.status_code == 200, answer.text
    for client in (alice, bob):
        live = client.get(f"/matches/{match_id}/live", headers=HX)
        assert live.status_code == 200
        assert "removed the buoy on 2,3" in live.text
    assert page_of(bob, match_id).count("removed the buoy on 2,3") >= 1


def test_a_finished_bilsang_game_draws_no_forbidden_pair(alice: TestClient, bob: TestClient) -> None:
    """The ✕ marks say "these two may not move together this turn": once the game is over
    there is no turn (they were still drawn on the final position). Browsing back, the
    position that had a turn still shows them."""
    game = games.get("bilsang")
    match_id = started(alice, bob, game="bilsang")
    state = game.parse_position(alice.get(f"/api/matches/{match_id}").json()["position"])
    opening = next(m for m in game.legal_moves(state) if game.play(state, game.format_move(m)).forbidden)
    play(alice, match_id, game.format_move(opening))
    forbidden = re.compile(r'class="cross"')  # the ✕ drawn on each buoy of the pair
    legend = "the forbidden pair: these two buoys may not move together this turn"
    playing = page_of(bob, match_id)
    assert len(forbidden.findall(playing)) == 2 and legend in playing
    after = game.play(state, game.format_move(opening))
    play(bob, match_id, game.format_move(game.legal_moves(after)[0]))
    alice.post(f"/api/matches/{match_id}/resign")
    for viewer in (alice, bob):
        ended = page_of(viewer, match_id)
        assert not forbidden.findall(ended) and legend not in ended
    browsed = page_of(alice, match_id, "?at=1")  # Bob's turn, before his move
    assert len(forbidden.findall(browsed)) == 2 and legend in browsed
