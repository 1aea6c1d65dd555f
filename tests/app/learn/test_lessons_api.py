"""The lessons' JSON API and pages (issue 29): the server judges every step."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient

import games
from app import boards, i18n
from games import lessons


def test_list_and_show(alice: TestClient) -> None:
    answer = alice.get("/api/lessons/bashni")
    assert answer.status_code == 200
    listed = answer.json()["lessons"]
    assert [item["id"] for item in listed] == [item.id for item in lessons.lessons("bashni")]
    assert listed[0] == {"id": "men", "title": "Men step forward", "steps": 2}
    shown = alice.get("/api/lessons/bashni/men/1").json()
    assert shown == {
        "position": "w g1:w,c3:w,f8:b 0 0",
        "to_move": "w",
        "goal": "Move your man on c3 one square diagonally forward.",
    }


def test_texts_follow_the_language(alice: TestClient) -> None:
    alice.cookies.set("lang", "es")
    shown = alice.get("/api/lessons/bashni/men/1").json()
    assert shown["goal"] == "Mueve tu peón de c3 una casilla en diagonal hacia delante."
    verdict = alice.post("/api/lessons/bashni/men/1", json={"moves": ["g1-h2"]}).json()
    assert verdict["message"].startswith("Legal, pero no es el objetivo:")


def test_a_step_by_moves_and_hints(alice: TestClient) -> None:
    path = "/api/lessons/morris/reopen/1"
    wrong = alice.post(path, json={"moves": ["d1-d2"]}).json()
    assert wrong == {
        "ok": False,
        "done": False,
        "reply": None,
        "message": "Legal, but not the goal: open the mill with g1 to g4; no black piece can reach g1.",
    }
    illegal = alice.post(path, json={"moves": ["a7"]}).json()
    assert not illegal["ok"] and illegal["message"].startswith("That move is not legal here")
    first = alice.post(f"{path}/hint", json={"moves": []}).json()["move"]
    step = alice.post(path, json={"moves": [first]}).json()
    assert step["ok"] and not step["done"] and step["reply"] == "a7-a4"
    second = alice.post(f"{path}/hint", json={"moves": [first, step["reply"]]}).json()["move"]
    assert second.startswith("g4-g1x")
    end = alice.post(path, json={"moves": [first, step["reply"], second]}).json()
    assert end["ok"] and end["done"] and end["reply"] is None and end["message"]


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/api/lessons/chess", None, 404),
        ("/api/lessons/bashni/nope/1", None, 404),
        ("/api/lessons/bashni/men/3", None, 404),
        ("/api/lessons/bashni/men/0", None, 422),
        ("/api/lessons/chess/men/1", {"moves": ["c3-d4"]}, 404),
        ("/api/lessons/bashni/men/9", {"moves": ["c3-d4"]}, 404),
        ("/api/lessons/bashni/men/1", {"moves": ["zz"]}, 422),
        ("/api/lessons/bashni/men/1", {"moves": []}, 422),
        ("/api/lessons/bashni/men/1", {"moves": "c3-d4"}, 422),
        ("/api/lessons/bashni/men/1", {"moves": ["c3-d4", "f8-e7", "d4-e5"]}, 422),
        ("/api/lessons/morris/reopen/1", {"moves": ["g1-g4", "f6-f4", "g4-g1"]}, 422),
        ("/api/lessons/morris/reopen/1/hint", {"moves": ["g1-g4"]}, 422),
        ("/api/lessons/bashni/men/1", {"moves": ["c3-d4"] * 41}, 422),
    ],
)
def test_refusals(alice: TestClient, path: str, body: object, status: int) -> None:
    answer = alice.get(path) if body is None else alice.post(path, json=body)
    assert answer.status_code == status, answer.text
    assert answer.json()["detail"]


def test_in_the_openapi_document_with_refusals(alice: TestClient) -> None:
    paths = alice.get("/openapi.json").json()["paths"]
    operations = {
        ("/api/lessons/{game}", "get"): {"404", "422"},
        ("/api/lessons/{game}/{lesson}/{step}", "get"): {"404", "422"},
        ("/api/lessons/{game}/{lesson}/{step}", "post"): {"404", "422", "413", "403"},
        ("/api/lessons/{game}/{lesson}/{step}/hint", "post"): {"404", "422"},
    }
    for (path, method), codes in operations.items():
        assert codes <= set(paths[path][method]["responses"]), (path, method)


def test_every_lesson_text_has_its_spanish() -> None:
    translation = i18n.translations("es")
    missing = [text for text in lessons.all_texts() if translation.gettext(text) == text]
    assert missing == []


# ------------------------------------------------------------------ pages


def live_of(html: str) -> dict[str, str]:
    section = re.search(r'<section id="live"[^>]*>', html)
    assert section
    found = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', section.group(0)))
    found.update(re.findall(r"data-([a-z-]+)='([^']*)'", section.group(0)))
    return found


def test_lesson_page_by_taps(alice: TestClient) -> None:
    page = alice.get("/learn/bashni/capture")
    assert page.status_code == 200
    assert 'data-submit="/learn/bashni/capture/1/click"' in page.text
    assert "data-clicks=" in page.text and "Capture the black man on d4." in page.text
    base = "/learn/bashni/capture/1/click"
    wrong = alice.post(base, data={"taps": "g3 e5", "moves": "[]"}, headers={"HX-Request": "true"})
    assert wrong.status_code == 200
    assert "Legal, but not the goal" in wrong.text and live_of(wrong.text)["done"] == "false"
    right = alice.post(base, data={"taps": "c3 e5", "moves": "[]"}, headers={"HX-Request": "true"})
    data = live_of(right.text)
    assert data["done"] == "true" and json.loads(data["moves"]) == ["c3:e5"]
    assert "/learn/bashni/capture?step=2" in right.text
    hint = alice.post("/learn/bashni/capture/2/hint", data={"moves": "[]"}, headers={"HX-Request": "true"})
    assert "Hint: tap d4 → b2, in this order (the move d4:b2)." in hint.text
    assert re.search(r'class="point[^"]* hint"[^>]*data-point="d4"', hint.text)


def test_a_blocked_bilsang_player_is_told_to_remove(alice: TestClient) -> None:
    """A blocked player is not told an axis to keep to, and the quiet count shows the
    position's own limit (300 in the lessons and new matches), not 100."""
    page = alice.get("/learn/bilsang/removal").text
    assert "No move is possible: tap a buoy to remove it" in page
    assert "This turn the buoys move" not in page
    assert "0 / 300" in page and "/ 100" not in page


def test_a_penalised_bilsang_player_is_not_warned_of_the_forbidden_pair() -> None:
    """A single move has no forbidden pair: the warning would only mislead."""
    bilsang = games.get("bilsang")
    after_switch = bilsang.play(
        bilsang.parse_position(lessons.step("bilsang", "switch", 1).position), "h 1,1+ 0,1-"
    )
    assert after_switch.penalised and after_switch.forbidden
    assert boards.bilsang_hints(after_switch) == [
        "This turn the buoys move vertically.",
        "Penalty: you may move only one buoy this turn.",
    ]


def test_lesson_pages_refuse_bad_input(alice: TestClient) -> None:
    assert alice.get("/learn/chess/men").status_code == 404
    assert alice.get("/learn/bashni/men?step=7").status_code == 404
    bad = alice.post("/learn/bashni/men/1/click", data={"taps": "c3", "moves": "not json"})
    assert bad.status_code == 422
    bad = alice.post("/learn/bashni/men/1/click", data={"taps": "c3", "moves": '["h2-g3"]'})
    assert bad.status_code == 422


def test_index_and_links(alice: TestClient) -> None:
    index = alice.get("/learn")
    for name in games.names():
        for item in lessons.lessons(name):
            assert f'href="/learn/{name}/{item.id}"' in index.text
    assert 'href="/learn"' in alice.get("/").text
    for name in games.names():
        rules = alice.get(f"/rules/{name}").text
        for item in lessons.lessons(name):
            assert f'href="/learn/{name}/{item.id}"' in rules, (name, item.id)
