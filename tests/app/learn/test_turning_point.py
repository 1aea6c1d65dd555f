"""Your turning point (issue 29): the loser's worst marked move, offered as a puzzle on a
page and in the JSON API, to that player only, judged by the server."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

import games
from app.learn.turning_point import TurningPoint, is_better, turning_point
from app.review import first_to_move, positions_of
from app.services.clicks import follow
from tests.app.helpers import MORRIS_WIN, started
from tests.app.reviewed import store_results

GAME = games.get("morris")
INITIAL = GAME.format_position(GAME.initial())
HTML = {"accept": "text/html"}
HTMX = {"hx-request": "true"}


def other_move(position: str, played: str) -> str:
    """A legal move of the position that is not the one played: the review's 'best' here."""
    state = GAME.parse_position(position)
    return next(t for t in (GAME.format_move(m) for m in GAME.legal_moves(state)) if t != played)


def results_for(moves: tuple[str, ...], drops: dict[int, tuple[float, bool]]) -> list[dict[str, Any] | None]:
    """Review results of the line: ``drops[ply] = (how much the mover's chance fell with
    moves[ply], whether the review's best move is the one played)``; other moves change nothing."""
    positions = positions_of("morris", INITIAL, moves)
    chance = 50.0
    out: list[dict[str, Any] | None] = []
    for ply, position in enumerate(positions):
        first = first_to_move("morris", position)
        best = None
        if ply < len(moves):
            fell, same = drops.get(ply, (0.0, True))
            best = moves[ply] if same else other_move(position, moves[ply])
        out.append(
            {"score": 0, "win_in": None, "chance": chance, "best": best, "depth": 2, "first_to_move": first}
        )
        if ply < len(moves):
            # The chance is the first player's: a fall of the first player's lowers it.
            chance += -fell if first else fell
    return out


LINE = tuple(MORRIS_WIN[:20])
# White moves at even plies, Black at odd ones.
DROPS = {
    2: (40.0, False),  # White's, the biggest: not Black's to learn from
    5: (15.0, False),
    9: (30.0, True),  # Black's biggest fall, but it was the search's own move: no mistake
    13: (20.0, False),  # Black's turning point
    17: (5.0, False),  # under the inaccuracy threshold
}


def test_the_loser_s_biggest_marked_fall_is_the_turning_point() -> None:
    results = results_for(LINE, DROPS)
    point = turning_point("morris", INITIAL, LINE, results, "b")
    assert point is not None
    assert point.ply == 13 and point.played == LINE[13] and point.drop == 20.0
    assert point.best == results[13]["best"] != LINE[13]  # type: ignore[index]
    assert point.position == positions_of("morris", INITIAL, LINE)[13] and point.to_move == "b"
    white = turning_point("morris", INITIAL, LINE, results, "w")
    assert white is not None and white.ply == 2 and white.drop == 40.0


def test_no_turning_point_under_the_threshold_or_where_the_review_has_a_gap() -> None:
    results = results_for(LINE, {3: (9.9, False), 7: (50.0, False)})
    results[8] = None  # a long review samples positions: no result after ply 7's move
    assert turning_point("morris", INITIAL, LINE, results, "b") is None


def test_a_morris_mill_counts_whatever_it_removes_unless_the_removal_was_the_mistake() -> None:
    position = positions_of("morris", INITIAL, tuple(MORRIS_WIN[:8]))[8]
    point = TurningPoint(ply=8, position=position, to_move="w", played="c3", best="f6xe5", drop=20.0)
    assert is_better("morris", point, "f6xe5") and is_better("morris", point, "f6xa7")
    assert not is_better("morris", point, "c3")
    removal = TurningPoint(ply=8, position=position, to_move="w", played="f6xd7", best="f6xe5", drop=20.0)
    assert is_better("morris", removal, "f6xe5") and not is_better("morris", removal, "f6xa7")


# ------------------------------------------------------------------ with a match

#: Alice (White) resigns after these plies; her fall at ply 4 is her turning point.
PLAYED = tuple(MORRIS_WIN[:10])


def lost_by_alice(alice: TestClient, bob: TestClient, review: bool = True) -> tuple[str, str]:
    match_id = started(alice, bob)
    for ply, move in enumerate(PLAYED):
        player = alice if ply % 2 == 0 else bob
        answer = player.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
        assert answer.status_code == 200, answer.text
    assert alice.post(f"/api/matches/{match_id}/resign").status_code == 200
    results = results_for(PLAYED, {4: (22.0, False), 5: (30.0, False)})
    if review:
        store_results(alice.app.state.settings.database_url, "morris", INITIAL, PLAYED, results)  # type: ignore[attr-defined]
    return match_id, results[4]["best"]  # type: ignore[index]


def test_the_api_gives_the_loser_the_position_without_the_answer(
    alice: TestClient, bob: TestClient, carol: TestClient
) -> None:
    match_id, _best = lost_by_alice(alice, bob)
    shown = alice.get(f"/api/matches/{match_id}/turning-point")
    assert shown.status_code == 200, shown.text
    position = positions_of("morris", INITIAL, PLAYED)[4]
    assert shown.json() == {"ply": 4, "position": position, "to_move": "w", "played": PLAYED[4], "drop": 22.0}
    # The winner (whose own fall was at ply 5): 409, the match's state; a spectator: 403.
    # Not 404: the match exists (Schemathesis's stateful run read "created, then not found").
    for stranger, status in ((bob, 409), (carol, 403)):
        refused = stranger.get(f"/api/matches/{match_id}/turning-point")
        assert refused.status_code == status and refused.json()["detail"]


def test_the_attempt_accepts_the_best_move_and_refuses_the_played_one(
    alice: TestClient, bob: TestClient
) -> None:
    match_id, best = lost_by_alice(alice, bob)
    url = f"/api/matches/{match_id}/turning-point/attempt"
    assert alice.post(url, json={"move": best}).json() == {"correct": True, "best": best}
    assert alice.post(url, json={"move": PLAYED[4]}).json() == {"correct": False, "best": None}
    assert alice.post(url, json={"move": "zz9"}).status_code == 422
    assert bob.post(url, json={"move": best}).status_code == 409


def test_nothing_before_the_review_nor_while_the_match_goes_on(alice: TestClient, bob: TestClient) -> None:
    match_id, _best = lost_by_alice(alice, bob, review=False)
    answer = alice.get(f"/api/matches/{match_id}/turning-point")
    assert answer.status_code == 409 and "review" in answer.json()["detail"]
    playing = started(alice, bob)
    assert "not over" in alice.get(f"/api/matches/{playing}/turning-point").json()["detail"]


def taps_for(move: str) -> str:
    state = GAME.parse_position(positions_of("morris", INITIAL, PLAYED)[4])
    taps = GAME.clicks(GAME.parse_move(state, move))
    assert follow(GAME, state, taps).complete == move
    return " ".join(taps)


def test_the_page_judges_taps(alice: TestClient, bob: TestClient) -> None:
    match_id, best = lost_by_alice(alice, bob)
    page = alice.get(f"/matches/{match_id}/turning-point", headers=HTML)
    assert page.status_code == 200
    assert "Your turning point: find a better move than the one you played (move 3)." in page.text
    assert f'data-submit="/matches/{match_id}/turning-point/click"' in page.text
    click = f"/matches/{match_id}/turning-point/click"
    wrong = alice.post(click, data={"taps": taps_for(PLAYED[4])}, headers=HTMX).text
    assert "Not the move. Try again. That is the move you played." in wrong and 'data-my-turn="true"' in wrong
    state = GAME.parse_position(positions_of("morris", INITIAL, PLAYED)[4])
    other = next(t for t in map(GAME.format_move, GAME.legal_moves(state)) if t not in (best, PLAYED[4]))
    elsewhere = alice.post(click, data={"taps": taps_for(other)}, headers=HTMX).text
    assert "Not the move. Try again.</p>" in elsewhere and "That is the move" not in elsewhere
    right = alice.post(click, data={"taps": taps_for(best)}, headers=HTMX).text
    assert "Solved!" in right and 'data-my-turn="false"' in right
    hint = alice.post(f"/matches/{match_id}/turning-point/hint", headers=HTMX).text
    assert f"Hint: the move starts on {taps_for(best).split()[0]}." in hint
    solution = alice.post(f"/matches/{match_id}/turning-point/solution", headers=HTMX).text
    assert f"The solution: {best}." in solution
    assert bob.post(click, data={"taps": taps_for(best)}, headers=HTMX).status_code == 409


def test_offered_to_the_loser_only_and_refused_in_her_language(
    alice: TestClient, bob: TestClient, carol: TestClient
) -> None:
    match_id, _best = lost_by_alice(alice, bob)
    link = f'href="/matches/{match_id}/turning-point"'
    panel = f"/matches/{match_id}/review/panel"
    assert link in alice.get(panel, headers=HTMX).text
    assert "Your turning point: try it as a puzzle" in alice.get(f"/matches/{match_id}", headers=HTML).text
    for other in (bob, carol):
        assert link not in other.get(panel, headers=HTMX).text
        assert link not in other.get(f"/matches/{match_id}", headers=HTML).text
    spanish = carol.get(f"/matches/{match_id}/turning-point", headers={**HTML, "accept-language": "es"})
    assert spanish.status_code == 403 and "solo un jugador de esta partida" in spanish.text
    assert (
        "Tu momento decisivo"
        in alice.get(f"/matches/{match_id}/turning-point", headers={**HTML, "accept-language": "es"}).text
    )


def test_in_the_openapi_document_with_refusals(alice: TestClient) -> None:
    paths = alice.get("/openapi.json").json()["paths"]
    shown = paths["/api/matches/{match_id}/turning-point"]["get"]
    assert {"403", "404", "409", "429", "503"} <= set(shown["responses"])
    tried = paths["/api/matches/{match_id}/turning-point/attempt"]["post"]
    assert {"400", "403", "404", "409", "413", "422", "429", "503"} <= set(tried["responses"])
