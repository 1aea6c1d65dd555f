"""Records through the API: export any match, import (all or nothing), the board as SVG."""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

from fastapi.testclient import TestClient

from games import records
from tests.app.helpers import BASHNI_WIN, BOBAIL_WIN, MORRIS_WIN, bilsang_quiet_game, play, started

WINS = {"bashni": BASHNI_WIN, "morris": MORRIS_WIN, "bobail": BOBAIL_WIN, "bilsang": bilsang_quiet_game()}


def finished_match(alice: TestClient, bob: TestClient, game: str) -> str:
    # Bilsang's line is a free-pairs game: its match is played without options.
    match_id = started(alice, bob, game, **({"options": {}} if game == "bilsang" else {}))
    for i, move in enumerate(WINS[game]):
        play(alice if i % 2 == 0 else bob, match_id, move)
    return match_id


def test_every_games_record_exports_and_imports_back(alice: TestClient, bob: TestClient) -> None:
    for game in WINS:
        match_id = finished_match(alice, bob, game)
        state = alice.get(f"/api/matches/{match_id}").json()
        response = alice.get(f"/api/matches/{match_id}/record")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain")
        disposition = response.headers["content-disposition"]
        extension = "pdn" if game == "bashni" else "txt"
        assert disposition.startswith("attachment; filename=") and f"tablero-{game}-" in disposition
        assert disposition.endswith(f'{match_id}.{extension}"')
        text = response.text
        assert '[White "Alice"]' in text and '[Black "Bob"]' in text
        # The configured origin (PUBLIC_URL, unset: http://localhost:PORT), never the request's Host.
        assert f'[Site "http://localhost:8000/matches/{match_id}"]' in text
        imported = bob.post("/api/records", content=text.encode(), headers={"content-type": "text/plain"})
        assert imported.status_code == 201, imported.text
        body = imported.json()
        assert body["game"] == game and body["moves"] == state["moves"]
        assert body["position"] == state["position"] and body["result"] == state["result"]
        assert body["status"] == "finished" and body["ply"] == state["ply"]
        assert [p["name"] for p in body["players"]] == ["Alice", "Bob"]
        again = bob.get(f"/api/records/{body['id']}")
        assert again.json() == body
        written_back = bob.get(f"/api/records/{body['id']}/record").text
        assert records.parse(written_back).moves == tuple(state["moves"])


def test_a_match_in_play_exports_as_unfinished(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob, "bashni")
    play(alice, match_id, "c3-d4")
    text = alice.get(f"/api/matches/{match_id}/record").text
    assert '[Result "*"]' in text and text.rstrip().endswith("1. c3-d4 *")
    resigned = alice.post(f"/api/matches/{match_id}/resign").json()
    assert resigned["result"] == {"winner": "b", "reason": "resignation"}
    text = alice.get(f"/api/matches/{match_id}/record").text
    assert '[Result "0-2"]' in text and '[Termination "resignation"]' in text
    body = bob.post("/api/records", content=text, headers={"content-type": "text/plain"}).json()
    assert body["result"] == {"winner": "b", "reason": "resignation"}


def test_a_bare_move_list_with_the_game_in_the_query(alice: TestClient) -> None:
    response = alice.post("/api/records?game=morris", content=" ".join(MORRIS_WIN[:6]))
    assert response.status_code == 201
    assert response.json()["status"] == "unfinished" and response.json()["result"] is None
    refused = alice.post("/api/records", content="d1 d2", headers={"content-type": "text/plain"})
    assert refused.status_code == 422 and "which game" in refused.json()["detail"]


def test_a_bad_record_names_its_first_bad_line_and_stores_nothing(alice: TestClient) -> None:
    text = '[Variant "Bashni"]\n[Result "*"]\n\n1. c3-d4 f6-g5\n2. d4-e5 d6-c5 *\n'
    response = alice.post("/api/records", content=text, headers={"content-type": "text/plain"})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("line 5: ply 4, d6-c5:")
    from app.models import ImportedRecord

    with alice.app.state.sessions() as db:  # type: ignore[attr-defined]
        assert db.query(ImportedRecord).count() == 0


def test_the_27_byte_record_that_hung_the_server_is_refused_with_its_line(alice: TestClient) -> None:
    text = '[Variant "Morris"]\n\n1. a1 }'
    response = alice.post("/api/records", content=text, headers={"content-type": "text/plain"})
    assert response.status_code == 422
    assert response.json()["detail"] == "line 3: a } closes a comment that was never opened"
    assert alice.get("/healthz").status_code == 200


def test_size_limit_encoding_and_content_type(alice: TestClient) -> None:
    huge = b"1. c3-d4 f6-g5 " * 5000
    assert alice.post("/api/records", content=huge, headers={"content-type": "text/plain"}).status_code == 413
    just_over = b" " * (records.MAX_BYTES + 1)
    assert alice.post("/api/records", content=just_over).status_code == 413
    latin = '[Event "café"]\n[Variant "Bashni"]\n\n*\n'.encode("latin-1")
    response = alice.post("/api/records", content=latin, headers={"content-type": "text/plain"})
    assert response.status_code == 422 and "UTF-8" in response.json()["detail"]
    as_json = alice.post("/api/records", json={"record": "1. c3-d4"})
    assert as_json.status_code == 415


def test_the_board_picture_is_a_standalone_svg_of_the_asked_ply(alice: TestClient, bob: TestClient) -> None:
    match_id = finished_match(alice, bob, "bobail")
    response = alice.get(f"/api/matches/{match_id}/board.svg?at=1")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert response.headers["content-disposition"].endswith('-ply1.svg"')
    svg = response.text
    assert svg.startswith("<?xml") and 'xmlns="http://www.w3.org/2000/svg"' in svg
    assert "<style>" in svg and "var(--" not in svg and "color-mix" not in svg  # plain colours for any viewer
    from xml.etree import ElementTree

    root = ElementTree.fromstring(svg.split("\n", 1)[1])
    after_one = records.parse("1. c3-c4 c1-e3", "bobail").positions[1]
    assert root.get("data-position") == after_one
    assert alice.get(f"/api/matches/{match_id}/board.svg?at=9").status_code == 422


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk, which must come first."""
    assert data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_the_board_picture_as_png(alice: TestClient, bob: TestClient) -> None:
    match_id = finished_match(alice, bob, "bashni")
    response = alice.get(f"/api/matches/{match_id}/board.png?at=3")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.headers["content-disposition"].startswith("attachment; filename=")
    assert response.headers["content-disposition"].endswith(f'{match_id}-ply3.png"')
    svg = alice.get(f"/api/matches/{match_id}/board.svg?at=3").text
    width, height = (int(re.search(f'{name}="(\\d+)"', svg).group(1)) for name in ("width", "height"))
    assert png_size(response.content) == (width, height) == (480, height)
    start = alice.get(f"/api/matches/{match_id}/board.png?at=0").content
    assert png_size(start) == (width, height) and start != response.content
    # An imported game has the same picture at the same ply.
    record = bob.post("/api/records", content=alice.get(f"/api/matches/{match_id}/record").text).json()
    copy = bob.get(f"/api/records/{record['id']}/board.png?at=3")
    assert copy.status_code == 200 and copy.content == response.content
    assert copy.headers["content-disposition"].endswith(f'{record["id"]}-ply3.png"')

    assert alice.get(f"/api/matches/{match_id}/board.png?at=999").status_code == 422
    missing = alice.get("/api/matches/nosuchmatch/board.png")
    assert missing.status_code == 404 and "detail" in missing.json()
    assert alice.get("/api/records/nosuchrecord/board.png").status_code == 404


def test_a_timed_matchs_record_names_its_time_control(alice: TestClient, bob: TestClient) -> None:
    control = {"kind": "realtime", "initial_seconds": 180, "increment_seconds": 2}
    match_id = started(alice, bob, "bashni", time_control=control)
    play(alice, match_id, "c3-d4")
    text = alice.get(f"/api/matches/{match_id}/record").text
    assert '[TimeControl "180+2"]' in text
    body = bob.post("/api/records", content=text).json()
    assert ["TimeControl", "180+2"] in body["tags"]
    assert (
        '[TimeControl "-"]' in alice.get(f"/api/matches/{finished_match(alice, bob, 'bobail')}/record").text
    )


def test_an_imported_aborted_game_says_so(alice: TestClient) -> None:
    text = '[Variant "Morris"]\n[Result "*"]\n[Termination "aborted"]\n\n1. d1 *\n'
    body = alice.post("/api/records", content=text).json()
    assert body["status"] == "finished" and body["result"] == {"winner": None, "reason": "aborted"}
    page = alice.get(f"/records/{body['id']}").text
    assert "Aborted — aborted before both sides had moved" in page and "Draw" not in page


def test_moves_of_any_position_for_the_analysis_board(alice: TestClient) -> None:
    response = alice.get("/api/positions/bobail", params={"position": "w bbbbb.......n.......wwwww"})
    assert response.status_code == 200
    body = response.json()
    assert body["to_move"] == "w" and body["result"] is None
    first = body["moves"][0]
    assert first["clicks"] and first["after"].startswith("b ")
    bad = alice.get("/api/positions/bobail", params={"position": "w bbbbb"})
    assert bad.status_code == 422 and bad.json()["detail"].startswith("position: ")
    assert alice.get("/api/positions/chess", params={"position": "x"}).status_code == 404


def test_every_refusal_sentence_is_in_the_catalogue_list() -> None:
    """RECORD_MESSAGES must list each template of games.records, so Spanish pages can say it."""
    source = Path(records.__file__).read_text(encoding="utf-8")
    templates = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("RecordError", "super"):
            strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if len(strings) >= 2:
                templates.add(strings[1])
    from app.services.records import RECORD_MESSAGES

    assert len(templates) > 20 and templates <= set(RECORD_MESSAGES), templates - set(RECORD_MESSAGES)


def test_a_match_from_a_position_string(alice: TestClient, bob: TestClient) -> None:
    after_two = records.parse("c3-d4 f6-g5", "bashni").positions[2]
    response = alice.post(
        "/api/matches", json={"game": "bashni", "name": "Alice", "side": "first", "position": after_two}
    )
    assert response.status_code == 201
    match_id = response.json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    state = alice.get(f"/api/matches/{match_id}").json()
    assert state["position"] == after_two and state["ply"] == 0 and state["to_move"] == "w"
    play(alice, match_id, "d4-e5")  # the rules judge from the given position
    text = alice.get(f"/api/matches/{match_id}/record").text
    assert f'[Position "{after_two}"]' in text and "1. d4-e5 *" in text

    bad = alice.post("/api/matches", json={"game": "morris", "name": "A", "position": "w ..... 9 9 0"})
    assert bad.status_code == 422 and bad.json()["detail"].startswith("position: ")
    over = records.parse("1. c3-c4 c1-e3 c4-c1", "bobail").positions[-1]
    finished = alice.post("/api/matches", json={"game": "bobail", "name": "A", "position": over})
    assert finished.status_code == 422 and "over" in finished.json()["detail"]


def test_black_to_move_against_the_computer_starts_with_the_computer(alice: TestClient) -> None:
    after_one = records.parse("c3-c2 a1-a4", "bobail").positions[1]  # Black to move
    created = alice.post(
        "/api/matches",
        json={
            "game": "bobail",
            "name": "A",
            "side": "first",
            "position": after_one,
            "opponent": {"level": 1},
        },
    )
    assert created.status_code == 201
    match_id = created.json()["id"]
    deadline = time.monotonic() + 60
    state = alice.get(f"/api/matches/{match_id}").json()
    while state["ply"] == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
        state = alice.get(f"/api/matches/{match_id}").json()
    assert state["ply"] == 1 and state["moves"][0].startswith("c2-")


def test_the_match_page_links_and_the_pages_in_spanish(alice: TestClient, bob: TestClient) -> None:
    match_id = finished_match(alice, bob, "bobail")
    page = alice.get(f"/matches/{match_id}")
    assert f"/api/matches/{match_id}/record" in page.text and f"/matches/{match_id}/analysis" in page.text
    assert f"/api/matches/{match_id}/board.png?at=" in page.text
    assert f"/api/matches/{match_id}/board.svg?at=" in page.text
    alice.cookies.set("lang", "es")
    analysis = alice.get(f"/matches/{match_id}/analysis?at=1")
    assert analysis.status_code == 200 and "Tras la jugada 1 de 2" in analysis.text
    assert "Pedir a la computadora que revise esta partida" in analysis.text
    assert f'href="/api/matches/{match_id}/board.png?at=1"' in analysis.text
    assert "Este tablero como imagen (PNG)" in analysis.text
    refused = alice.post("/records/import", data={"text": "1. c3-d4 f6-zz", "game": "bashni"})
    assert refused.status_code == 422 and "línea 1: jugada 2, f6-zz" in refused.text
    bare = alice.post("/records/import", data={"text": "1. c3-d4", "game": "bashni"}, follow_redirects=False)
    assert bare.status_code == 303 and bare.headers["location"].startswith("/records/")


def test_a_png_costs_like_a_create_and_the_same_picture_is_drawn_once() -> None:
    from app import pictures
    from app.rate_limits import classify

    assert (
        classify("GET", "/api/matches/x/board.png") == classify("GET", "/api/records/x/board.png") == "create"
    )
    assert classify("GET", "/api/matches/x/board.svg") is None
    line = records.parse("1. c3-d4 f6-g5", "bashni")
    svg = pictures.board_svg(pictures.view_at("bashni", line.positions, line.moves, 2), lambda s: s)
    pictures.board_png.cache_clear()
    first = pictures.board_png(svg)
    assert pictures.board_png(svg) is first and pictures.board_png.cache_info().hits == 1


def test_the_import_page_s_file_picker_speaks_the_page_s_language(alice: TestClient) -> None:
    """Issue 34: the file button showed the browser's own "Choose File / No file chosen" on a
    Spanish page. Now our label stands for a hidden input and the words are the catalogue's."""
    for lang, choose, none in (
        ("en", "Choose a file", "No file chosen"),
        ("es", "Elegir un archivo", "Ningún archivo elegido"),
    ):
        alice.cookies.set("lang", lang)
        page = alice.get("/records/import").text
        picker = re.search(r'<div class="file-pick">(.*?)</div>', page, re.S)
        assert picker, "no file picker of our own"
        assert re.search(
            r'<input type="file" name="file" id="record-file" class="file-input"', picker.group(1)
        )
        assert re.search(
            rf'<label for="record-file" class="[^"]*" id="file-pick-button">{choose}</label>', picker.group(1)
        )
        assert f">{none}</span>" in picker.group(1)
    alice.cookies.delete("lang")
    # The hidden input still sends its file with the form.
    record = b'[Variant "Bashni"]\n[Result "*"]\n\n1. c3-d4 f6-g5 *\n'
    sent = alice.post(
        "/records/import", files={"file": ("game.pdn", record, "text/plain")}, follow_redirects=False
    )
    assert sent.status_code == 303 and sent.headers["location"].startswith("/records/")
