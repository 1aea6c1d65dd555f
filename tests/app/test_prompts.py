"""Questions a player must answer now are the banner's first line (issue 34, item 2):
each carries data-prompt (the key static/prompts.js sounds once) and data-prompt-title
(what the tab's title starts with), and only the player who must answer gets it."""

from __future__ import annotations

import re
from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import update

from app.models import Match, Seat
from tests.app.helpers import MORRIS_WIN, create

HTML = {"accept": "text/html"}
REALTIME = {"kind": "realtime", "initial_seconds": 600, "increment_seconds": 0}


def play(client: TestClient, match_id: str, move: str) -> None:
    state = client.get(f"/api/matches/{match_id}").json()
    moved = client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": state["ply"]})
    assert moved.status_code == 200, moved.text


def banner_box(live: str) -> str:
    return live[
        live.index('<div class="banner-box"') : live.index("</div>\n", live.index('class="banner turn'))
    ]


def prompts(html: str) -> list[str]:
    return re.findall(r'data-prompt="([^"]+)"', html)


def test_the_abort_question_is_asked_of_the_player_who_waits(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice, time_control=REALTIME)
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    # White (Alice) to make the first move: Bob waits, and is asked.
    waiting = bob.get(f"/matches/{match_id}/live", headers=HTML).text
    assert prompts(banner_box(waiting)) == ["abort:0"]
    assert 'data-prompt-title="Abort?"' in waiting and "has not made a first move yet" in waiting
    assert waiting.count('data-action="abort"') == 1  # not a second button under the board
    mover = alice.get(f"/matches/{match_id}/live", headers=HTML).text
    assert prompts(mover) == [] and mover.count('data-action="abort"') == 1  # her own button
    play(alice, match_id, MORRIS_WIN[0])
    assert prompts(alice.get(f"/matches/{match_id}/live", headers=HTML).text) == ["abort:1"]
    play(bob, match_id, MORRIS_WIN[1])
    for client in (alice, bob):
        assert prompts(client.get(f"/matches/{match_id}/live", headers=HTML).text) == []


def test_offers_are_prompts_for_the_one_who_answers(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice)
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    play(alice, match_id, MORRIS_WIN[0])
    play(bob, match_id, MORRIS_WIN[1])
    assert alice.post(f"/api/matches/{match_id}/draw", json={"action": "offer"}).status_code == 200
    asked = bob.get(f"/matches/{match_id}/live", headers=HTML).text
    assert prompts(asked) == ["draw:2"] and 'data-prompt-title="Draw offered"' in asked
    assert prompts(alice.get(f"/matches/{match_id}/live", headers=HTML).text) == []
    es = bob.get(f"/matches/{match_id}/live", headers={**HTML, "accept-language": "es"}).text
    assert 'data-prompt-title="Te ofrecen tablas"' in es
    assert bob.post(f"/api/matches/{match_id}/draw", json={"action": "decline"}).status_code == 200
    assert bob.post(f"/api/matches/{match_id}/takeback", json={"action": "offer"}).status_code == 200
    assert prompts(alice.get(f"/matches/{match_id}/live", headers=HTML).text) == ["takeback:2"]
    assert alice.post(f"/api/matches/{match_id}/resign").status_code == 200
    assert bob.post(f"/api/matches/{match_id}/rematch", json={"action": "offer"}).status_code == 200
    assert prompts(alice.get(f"/matches/{match_id}/live", headers=HTML).text) == ["rematch"]


def test_the_claim_is_asked_once_the_opponent_has_gone(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice, time_control=REALTIME)
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    for i, client in enumerate((alice, bob, alice)):
        play(client, match_id, MORRIS_WIN[i])
    assert prompts(alice.get(f"/matches/{match_id}/claims", headers=HTML).text) == []
    # Bob's turn began two minutes ago and his page has not been open since.
    sessions = alice.app.state.sessions
    with sessions.begin() as db:
        match = db.get(Match, match_id)
        assert match is not None and match.clock_since is not None and match.deadline is not None
        db.execute(
            update(Match)
            .where(Match.id == match_id)
            .values(
                clock_since=match.clock_since - timedelta(minutes=2),
                deadline=match.deadline - timedelta(minutes=2),
            )
        )
        db.execute(update(Seat).where(Seat.match_id == match_id).values(last_seen_at=None))
    claims = alice.get(f"/matches/{match_id}/claims", headers=HTML).text
    assert prompts(claims) == ["claim:3"] and 'data-prompt-title="Your opponent left"' in claims
    page = alice.get(f"/matches/{match_id}", headers=HTML).text
    # Before the banner's turn line, not under the board's actions.
    assert (
        page.index('data-prompt="claim:3"') < page.index('class="banner turn') < page.index('class="actions"')
    )
    assert prompts(bob.get(f"/matches/{match_id}/claims", headers=HTML).text) == []
