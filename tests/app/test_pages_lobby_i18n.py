"""The home page's lists, and the pages in both languages: computer names, counts, numbers, refusals."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update

from app import i18n, texts
from app.models import LadderRun, Match
from app.services.errors import Conflict, Invalid
from app.texts import N_
from games.base import IllegalMove
from tests.app.helpers import create, started

EN = {"accept": "text/html", "accept-language": "en"}
ES = {"accept": "text/html", "accept-language": "es"}


def lists_of(page: str) -> dict[str, str]:
    """The lobby's three lists, by heading, as their HTML."""
    found = re.findall(r"<h2>([^<]+)</h2>(.*?)</div>", page.split('class="lists"', 1)[1], re.S)
    return {title: body for title, body in found}


def finish_unjoined(app: FastAPI, match_id: str, reason: str) -> None:
    """What the clean-up job does to a match nobody joined (the shared convention)."""
    with app.state.sessions.begin() as db:
        db.execute(
            update(Match).where(Match.id == match_id).values(status="finished", winner=None, reason=reason)
        )


def test_the_home_page_offers_three_ways_to_start(alice: TestClient) -> None:
    page = alice.get("/", headers=EN).text
    for section, action in (("friend", "/matches"), ("computer", "/matches"), ("ladder", "/ladder/runs")):
        block = page.split(f'id="{section}"', 1)[1].split("</article>", 1)[0]
        assert f'action="{action}"' in block and 'type="submit"' in block
    computer = page.split('id="computer"', 1)[1].split("</article>", 1)[0]
    friend = page.split('id="friend"', 1)[1].split("</article>", 1)[0]
    assert 'name="opponent"' in computer and 'name="opponent"' not in friend
    assert 'name="public"' in friend and 'name="public"' not in computer
    # A rules page's "play" link starts the forms on its game.
    assert '<option value="bobail" selected>' in alice.get("/?game=bobail", headers=EN).text


def test_the_computer_form_starts_a_game_against_the_chosen_strength(alice: TestClient) -> None:
    created = alice.post(
        "/matches", data={"game": "morris", "name": "Ann", "side": "first", "opponent": "hard"}
    )
    assert created.status_code == 200
    state = alice.get(f"/api/matches/{created.url.path.rsplit('/', 1)[1]}").json()
    assert state["status"] == "playing"
    assert {p["name"] for p in state["players"]} == {"Ann", "Computer 3"}  # the API keeps its names
    # ...and says the level, and the name the pages show (issue 34: they disagreed).
    players = {p["side"]: (p.get("level"), p.get("label")) for p in state["players"]}
    assert players == {"w": (None, None), "b": (3, "Computer (hard)")}


def test_the_lobby_lists_only_public_matches_that_were_played(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    private = started(alice, bob)
    public_playing = create(alice, public=True)
    bob.post(f"/api/matches/{public_playing}/join", json={"name": "Bob"})
    public_done = create(alice, public=True)
    bob.post(f"/api/matches/{public_done}/join", json={"name": "Bob"})
    alice.post(f"/api/matches/{public_done}/resign")
    expired = create(alice, "bobail", public=True)
    still_open = create(alice, "bilsang", public=True)
    finish_unjoined(app, expired, "expired")
    lists = lists_of(bob.get("/", headers=EN).text)
    assert still_open in lists["Waiting for an opponent"] and expired not in lists["Waiting for an opponent"]
    assert public_playing in lists["Being played"] and private not in lists["Being played"]
    assert public_done in lists["Recently finished"]
    assert expired not in lists["Recently finished"] and private not in lists["Recently finished"]


def test_an_expired_match_says_so(app: FastAPI, alice: TestClient) -> None:
    match_id = create(alice)
    finish_unjoined(app, match_id, "expired")
    assert "Expired — nobody joined in time" in " ".join(
        alice.get(f"/matches/{match_id}", headers=EN).text.split()
    )
    spanish = " ".join(alice.get(f"/matches/{match_id}", headers=ES).text.split())
    assert "Caducada — nadie se unió a tiempo" in spanish


def test_computer_seats_are_named_in_the_readers_language(alice: TestClient) -> None:
    morris = create(alice, "morris", opponent={"level": 2})
    bashni = create(alice, "bashni", opponent={"level": 7})
    english = alice.get(f"/matches/{morris}", headers=EN).text
    assert "Computer (medium)" in english and "Computer 2" not in english
    spanish = alice.get(f"/matches/{bashni}", headers=ES).text
    title = re.search(r"<title>(.*?)</title>", spanish, re.S).group(1)
    assert "Computadora (nivel 7)" in title
    assert "Computer" not in spanish


def test_counts_use_plural_forms(app: FastAPI, alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice, public=True)
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0})
    assert "1 jugada<" in alice.get("/", headers=ES).text.replace("</li>", "<")
    bob.post(f"/api/matches/{match_id}/moves", json={"move": "a7", "ply": 1})
    assert "2 jugadas" in alice.get("/", headers=ES).text
    assert "2 plies" in alice.get("/", headers=EN).text


def seed_run(app: FastAPI, wins: int, think_ms_won: int) -> str:
    with app.state.sessions.begin() as db:
        db.add(
            LadderRun(
                id="seededrun001",
                name="Quique",
                token_hash="0" * 64,
                status="finished",
                opponent=wins + 1,
                wins=wins,
                think_ms_won=think_ms_won,
                score=wins * 10000,
                finished_at=datetime(2026, 12, 1, 9, 30, tzinfo=UTC),
            )
        )
    return "seededrun001"


def test_times_and_dates_follow_the_language(app: FastAPI, alice: TestClient) -> None:
    run = seed_run(app, wins=1, think_ms_won=20900)
    english = alice.get("/ladder/leaderboard", headers=EN).text
    spanish = alice.get("/ladder/leaderboard", headers=ES).text
    assert "20.9\u00a0s" in english and "Dec 1, 2026" in english
    assert "20,9\u00a0s" in spanish and "1 dic 2026" in spanish
    assert "20,9\u00a0s" in alice.get(f"/ladder/runs/{run}", headers=ES).text


def test_refusals_are_told_in_the_readers_language(alice: TestClient, bob: TestClient) -> None:
    # The 404 page, and the JSON API still in English.
    missing = alice.get("/no/such/page", headers=ES)
    assert missing.status_code == 404 and "esta página no existe" in missing.text
    assert alice.get("/api/no/such/thing").json() == {"detail": "there is no such page"}
    nomatch = alice.get("/matches/nosuch", headers=ES).text
    assert "no existe la partida &#39;nosuch&#39;" in nomatch
    # An engine's error reaches a page by its key.
    unknown = alice.post("/matches", data={"game": "chess", "name": "Ann"}, headers=ES)
    assert unknown.status_code == 422 and "no existe ese juego" in unknown.text
    assert "unknown game" not in unknown.text
    api = alice.post("/api/matches", json={"game": "chess", "name": "Ann"})
    assert api.status_code == 422 and api.json()["detail"].startswith("unknown game 'chess'")
    # A service refusal shown on the match page, and the same through the API.
    match_id = started(alice, bob)
    detail = alice.post(f"/api/matches/{match_id}/takeback", json={"action": "accept"}).json()["detail"]
    assert detail == "there is no offer of a takeback from your opponent to answer"
    page = alice.post(
        f"/matches/{match_id}/act", data={"action": "takeback-accept"}, headers={**ES, "hx-request": "true"}
    ).text
    assert "tu rival no ha pedido deshacer una jugada que puedas responder" in page
    # A badly written and an illegal move, through the API in English, with the engine's detail.
    bad = alice.post(f"/api/matches/{match_id}/moves", json={"move": "zz", "ply": 0}).json()["detail"]
    assert bad.startswith("malformed move: 'zz' is not Morris notation")


def test_an_engine_error_inside_a_refusal_is_translated_by_its_key() -> None:
    spanish = i18n.translations("es").gettext
    illegal = Invalid(
        N_("illegal move: %(detail)s"), detail=IllegalMove("'d9' is not legal", key="illegal-move")
    )
    assert str(illegal) == "illegal move: 'd9' is not legal"
    assert texts.localize(illegal, spanish) == "jugada ilegal: esa jugada no está permitida en esta posición"
    over = Conflict(N_("illegal move: %(detail)s"), detail=IllegalMove("over", key="game-over"))
    assert texts.localize(over, spanish) == "jugada ilegal: la partida ha terminado"
    moved = Conflict(N_("the match has moved on: it is at ply %(ply)s, not %(asked)s"), ply=4, asked=3)
    assert texts.localize(moved, spanish) == "la partida ha avanzado: va por la jugada 4, no la 3"
