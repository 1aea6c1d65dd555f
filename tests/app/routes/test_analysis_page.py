"""The analysis and record pages: the match page's move list, the evaluation bar and the
best move's arrow, all from the review's data (issue 34, item 3)."""

from __future__ import annotations

import json
import re

from fastapi.testclient import TestClient

import games
from app.analysis_view import eval_bar
from tests.app.helpers import BASHNI_WIN, create
from tests.app.reviewed import store_review

HTML = {"accept": "text/html"}
SHORT = BASHNI_WIN[:9]


def finished_bashni(alice: TestClient, bob: TestClient) -> str:
    match_id = create(alice, game="bashni")
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    for ply, move in enumerate(SHORT):
        player = alice if ply % 2 == 0 else bob
        assert (
            player.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply}).status_code == 200
        )
    assert alice.post(f"/api/matches/{match_id}/resign").status_code == 200
    return match_id


def test_moves_in_numbered_pairs_with_the_current_one_marked(alice: TestClient, bob: TestClient) -> None:
    match_id = finished_bashni(alice, bob)
    page = alice.get(f"/matches/{match_id}/analysis?at=4", headers=HTML).text
    rows = re.findall(r'<li><span class="num">(\d+)\.</span>(.*?)</li>', page)
    assert [int(n) for n, _ in rows] == [1, 2, 3, 4, 5]  # nine plies: four pairs and one
    first_row = re.findall(r'data-at="(\d+)"[^>]*>([^<]+)<', rows[0][1])
    assert first_row == [("1", SHORT[0]), ("2", SHORT[1])]
    assert re.search(r'data-at="9"[^>]*>' + re.escape(SHORT[8]), rows[4][1])  # the last move is there
    current = re.findall(r'class="mv current[^"]*" aria-current="step"', page)
    assert len(current) == 1 and 'data-at="4" class="mv current"' in page
    assert "Home and End" in page
    assert (
        "Inicio y Fin"
        in alice.get(f"/matches/{match_id}/analysis", headers={**HTML, "accept-language": "es"}).text
    )


def test_no_bar_and_no_arrow_before_the_review(alice: TestClient, bob: TestClient) -> None:
    match_id = finished_bashni(alice, bob)
    page = alice.get(f"/matches/{match_id}/analysis?at=2", headers=HTML).text
    assert 'class="eval-bar"' not in page and 'data-best-steps=""' in page


def test_the_bar_and_the_best_move_come_from_the_review(alice: TestClient, bob: TestClient) -> None:
    match_id = finished_bashni(alice, bob)
    game = games.get("bashni")
    initial = game.format_position(game.initial())
    results = store_review(alice.app.state.settings.database_url, "bashni", initial, tuple(SHORT))
    for at in (0, 3, 9):
        page = alice.get(f"/matches/{match_id}/analysis?at={at}", headers=HTML).text
        chance = results[at]["chance"]
        assert f'data-chance="{round(chance, 1)}"' in page
        assert f'height="{round(chance, 1)}"' in page  # the first player's share of the bar
        best = results[at]["best"]
        steps = re.search(r'data-best-steps="([^"]*)"', page)
        assert steps is not None
        if best is None:
            assert steps.group(1) == ""
            continue
        pairs = json.loads(steps.group(1).replace("&#34;", '"').replace("&quot;", '"'))
        # Bashni: one arrow from the moving piece's square to where it stops.
        squares = re.split(r"[-:]", best)
        assert pairs == [[squares[0], squares[-1]]], (best, pairs)
        assert f'data-best="{best}"' in page


def test_the_bar_s_figure() -> None:
    assert eval_bar(None) is None
    assert eval_bar({"chance": 73.26, "score": 1.234, "win_in": None}) == {
        "chance": 73.3,
        "first": 73,
        "figure": "+1.2",
    }
    assert eval_bar({"chance": 10, "score": -2.0, "win_in": None})["figure"] == "−2.0"
    assert eval_bar({"chance": 100, "score": None, "win_in": 3})["figure"] == "#3"
    assert eval_bar({"chance": 0, "score": None, "win_in": -4})["figure"] == "−#4"


def name_field(page: str) -> str:
    found = re.search(r'<section class="play-from.*?<input name="name"[^>]*value="([^"]*)"', page, re.S)
    assert found, "no name field in the play-from form"
    return found.group(1)


def test_start_a_match_from_here_works_at_the_first_click(alice: TestClient, carol: TestClient) -> None:
    """Issue 34: a browser that never typed a name found the field empty, so its first click
    brought only the browser's "fill out this field"."""
    record = '[Variant "Bashni"]\n[Result "*"]\n\n1. c3-d4 f6-g5 *\n'
    imported = carol.post("/api/records", content=record.encode(), headers={"content-type": "text/plain"})
    assert imported.status_code == 201, imported.text
    path = f"/records/{imported.json()['id']}"
    assert "tablero_name" not in carol.cookies
    for lang, guest in (("en", "Guest"), ("es", "Invitado")):
        carol.cookies.set("lang", lang)
        assert name_field(carol.get(path, headers=HTML).text) == guest
        assert f'value="{guest}"' in carol.get("/records/import", headers=HTML).text
    # The form as it comes starts the match; the name it used is the next form's.
    page = carol.get(path, headers=HTML).text
    position = re.search(r'name="position" value="([^"]+)"', page)
    assert position
    body = {"game": "bashni", "position": position.group(1), "name": name_field(page), "opponent": "easy"}
    started = carol.post("/positions/play", data=body, follow_redirects=False)
    assert started.status_code == 303 and started.headers["location"].startswith("/matches/")
    carol.cookies.delete("lang")
    # A name typed once here (or anywhere) comes back instead.
    alice.cookies.set("tablero_name", "Alicia")
    assert name_field(alice.get(path, headers=HTML).text) == "Alicia"
