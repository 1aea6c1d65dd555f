"""A move costs the same at any ply: the statements it runs do not grow with the game, and
the incremental repetition counts judge exactly as the engine does from the whole history."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event

import games
from games.base import Game, Outcome
from tests.app.helpers import started


@contextmanager
def statements(app: FastAPI) -> Iterator[list[str]]:
    """Every SQL statement the app sends while the block runs.

    SQLite: an SQLAlchemy event listener on the app's engine. PostgreSQL: psycopg's own
    cursors, which SQLAlchemy's statements go through too, as do those the move path and
    the event loop's reads send without SQLAlchemy (app.matches.statements,
    app.pg_loop.PgLoopPool).
    """
    seen: list[str] = []
    engine = app.state.engine
    if engine.dialect.name == "postgresql":
        with pytest.MonkeyPatch.context() as patch:
            for cursor_class in (psycopg.Cursor, psycopg.AsyncCursor):
                patch.setattr(cursor_class, "execute", recording(cursor_class.execute, seen))
            yield seen
        return

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def recording(execute: Any, seen: list[str]) -> Any:
    def execute_and_record(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(query))
        return execute(cursor, query, *args, **kwargs)

    return execute_and_record


def long_quiet_line(game: Game, plies: int, seed: int) -> list[str]:  # type: ignore[type-arg]
    """A random line of ``plies`` moves after which the game still goes on.

    Moves that end the game are avoided; removals (Morris) only when the quiet count
    nears its limit, so that the game lasts.
    """
    rng = random.Random(seed)
    state, history, line = game.initial(), [game.initial()], []
    while len(line) < plies:
        options = []
        for move in game.legal_moves(state):
            after = game.apply(state, move)
            if game.outcome_after([*history, after]) is None:
                options.append((move, after))
        assert options, "the line ran into a finished game; pick another seed"
        quiet = getattr(state, "quiet", 0)
        calm = [o for o in options if "x" not in game.format_move(o[0])]
        move, after = rng.choice(calm if calm and quiet < 90 else options)
        line.append(game.format_move(move))
        state = after
        history.append(state)
    return line


def test_a_move_runs_as_many_statements_at_ply_150_as_at_ply_2(app: FastAPI) -> None:
    # Clients without the app's lifespan: no computer worker polls the database meanwhile.
    alice, bob = TestClient(app), TestClient(app)
    game = games.get("morris")
    line = long_quiet_line(game, 152, seed=3)
    match_id = started(alice, bob, "morris")
    clients = (alice, bob)
    url = f"/api/matches/{match_id}/moves"
    counted: dict[int, list[str]] = {}
    legal: dict[int, list[str]] = {}
    for ply, move in enumerate(line):
        with statements(app) as reads:
            assert move in clients[ply % 2].get(f"/api/matches/{match_id}/legal").json()["moves"]
        with statements(app) as seen:
            response = clients[ply % 2].post(url, json={"move": move, "ply": ply})
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "playing"
        if ply in (2, 150):
            counted[ply], legal[ply] = seen, reads
    assert len(counted[150]) == len(counted[2])
    # …and they are the same statements: nothing is read move by move.
    assert counted[150] == counted[2]
    # The only read of the moves table is the indexed count of one position's repeats.
    reads_of_moves = [st for st in counted[150] if "FROM moves" in st]
    assert len(reads_of_moves) == 1 and "count(*)" in reads_of_moves[0]
    assert legal[150] == legal[2]
    assert not any("moves" in statement for statement in legal[150])


def judge(game: Game, history: list[Any]) -> Outcome | None:  # type: ignore[type-arg]
    return game.outcome_after(history)


def expected_result(outcome: Outcome | None) -> dict[str, Any] | None:
    return None if outcome is None else {"winner": outcome.winner, "reason": outcome.reason}


def choose(game: Game, state: Any, history: list[Any], rng: random.Random, last: bool) -> Any:  # type: ignore[type-arg]
    """A random legal move, often one that goes back to a position seen before, so that
    repetition draws happen; one that ends the game only when ``last`` (or forced)."""
    moves = game.legal_moves(state)
    if not last:
        moves = [m for m in moves if judge(game, [*history, game.apply(state, m)]) is None] or moves
    else:
        third = [m for m in moves if judge(game, [*history, game.apply(state, m)]) == REPEATED]
        if third and rng.random() < 0.9:
            return rng.choice(third)
    if rng.random() < (0.9 if last else 0.5):
        seen = {game.repetition_key(s) for s in history}
        back = [m for m in moves if game.repetition_key(game.apply(state, m)) in seen]
        if back and game.repetition_key(state) is not None:
            return rng.choice(back)
    return rng.choice(moves)


REPEATED = Outcome(None, "repetition")


@pytest.mark.parametrize(
    ("game_name", "seed", "long"),
    [
        ("morris", 1, 150),
        ("morris", 2, 150),
        ("morris", 3, 40),
        ("bobail", 1, 150),
        ("bobail", 2, 150),
        ("bashni", 1, 150),
        ("bilsang", 1, 150),
    ],
)
def test_long_random_games_with_takebacks_end_as_the_engine_judges_them(
    alice: TestClient, bob: TestClient, game_name: str, seed: int, long: int
) -> None:
    """After every move and takeback the server's result is ``outcome_after`` of the whole
    history (repetition, quiet plies, the rest); for ``long`` plies the line avoids the end.

    Seen with these seeds: Morris to plies 167 and 151, and drawn by repetition at 80 after
    18 takebacks; Bilsang drawn by its quiet rule at 100.
    """
    game = games.get(game_name)
    rng = random.Random(seed)
    match_id = started(alice, bob, game_name)
    seats = {s["side"]: s["name"] for s in alice.get(f"/api/matches/{match_id}").json()["players"]}
    client_of = {game.sides[0]: alice, game.sides[1]: bob}  # Alice created first, Bob joined
    assert seats[game.sides[0]] == "Alice"
    # The match, not the engine's bare defaults, says where it starts (Bilsang: its options).
    state = game.parse_position(alice.get(f"/api/matches/{match_id}").json()["position"])
    history, notations = [state], []
    takebacks = 0
    while True:
        move = choose(game, state, history, rng, last=len(notations) >= long)
        mover = game.to_move(state)
        response = client_of[mover].post(
            f"/api/matches/{match_id}/moves", json={"move": game.format_move(move), "ply": len(notations)}
        )
        assert response.status_code == 200, response.text
        answer = response.json()
        state = game.apply(state, move)
        history.append(state)
        notations.append(game.format_move(move))
        outcome = judge(game, history)
        assert answer["result"] == expected_result(outcome), f"ply {len(notations)}"
        assert answer["status"] == ("finished" if outcome else "playing")
        assert answer["moves"] == notations
        # The answer built from the move's own transaction is what a fresh read shows.
        assert answer == alice.get(f"/api/matches/{match_id}").json()
        if outcome is not None:
            break
        if rng.random() < 0.15:
            other = client_of[game.to_move(state)]
            offered = client_of[mover].post(f"/api/matches/{match_id}/takeback", json={"action": "offer"})
            assert offered.status_code == 200, offered.text
            taken = other.post(f"/api/matches/{match_id}/takeback", json={"action": "accept"})
            assert taken.status_code == 200, taken.text
            history.pop()
            notations.pop()
            state = history[-1]
            takebacks += 1
            assert taken.json()["moves"] == notations
            assert taken.json()["position"] == game.format_position(state)
    assert takebacks > 0
    assert alice.get(f"/api/matches/{match_id}/legal").json() == {"ply": len(notations), "moves": []}


def test_a_repetition_counts_the_start_position(alice: TestClient, bob: TestClient) -> None:
    """Bobail: White and Black shuffle back to the start twice; the third time is a draw."""
    game = games.get("bobail")
    start = game.initial()
    # Find a two-move there-and-back for each side from the start.
    cycle = None
    for first in game.legal_moves(start):
        one = game.apply(start, first)
        for second in game.legal_moves(one):
            two = game.apply(one, second)
            for third in game.legal_moves(two):
                three = game.apply(two, third)
                back = [m for m in game.legal_moves(three) if game.apply(three, m) == start]
                if back and all(game.outcome(s) is None for s in (one, two, three)):
                    cycle = [first, second, third, back[0]]
                    break
            if cycle:
                break
        if cycle:
            break
    assert cycle is not None
    match_id = started(alice, bob, "bobail")
    clients = (alice, bob)
    line = [game.format_move(m) for m in cycle] * 2
    for ply, text in enumerate(line):
        response = clients[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
        answer = response.json()
        expected = "finished" if ply == len(line) - 1 else "playing"
        assert answer["status"] == expected, (ply, answer)
    assert answer["result"] == {"winner": None, "reason": "repetition"}


def test_a_page_view_reads_as_many_move_rows_at_ply_150_as_at_ply_2(app: FastAPI) -> None:
    """Issue 28, item 3: the match page's view is built from the match row (its notations,
    its position) and the move rows around the shown ply, not from every move row."""
    alice, bob = TestClient(app), TestClient(app)
    game = games.get("morris")
    line = long_quiet_line(game, 150, seed=3)
    match_id = started(alice, bob, "morris")
    matches = app.state.matches
    for ply, move in enumerate(line):
        if ply == 2:
            assert sorted(matches.view(match_id).moves) == [1, 2]
        url = f"/api/matches/{match_id}/moves"
        response = (alice, bob)[ply % 2].post(url, json={"move": move, "ply": ply})
        assert response.status_code == 200, response.text
    assert sorted(matches.view(match_id).moves) == [149, 150]
    # Browsing an earlier ply reads that ply's rows too, and the last one (for the clocks).
    assert sorted(matches.view(match_id, at=10).moves) == [9, 10, 149, 150]
    # What the page shows of the whole game comes from the row: every move in the list,
    # the last move said, the position after it.
    live = alice.get(f"/matches/{match_id}/live", headers={"hx-request": "true"}).text
    assert 'data-ply="150"' in live
    for notation in (line[0], line[75], line[-1]):
        assert f">{notation}<" in live
    earlier = alice.get(f"/matches/{match_id}/live?at=10", headers={"hx-request": "true"}).text
    assert 'data-shown-ply="10"' in earlier


def test_a_ply_past_any_game_shows_the_last(alice: TestClient, bob: TestClient) -> None:
    # ?at= is the client's number: one past the integer column's range made the view's
    # statement fail (500 on PostgreSQL, found by the form fuzzer; OverflowError on SQLite).
    match_id = started(alice, bob, "morris")
    for at in (10**30, 2**31, -(10**30)):
        live = alice.get(f"/matches/{match_id}/live?at={at}", headers={"hx-request": "true"})
        assert live.status_code == 200, at
        assert 'data-shown-ply="0"' in live.text
        assert alice.get(f"/matches/{match_id}?at={at}").status_code == 200
