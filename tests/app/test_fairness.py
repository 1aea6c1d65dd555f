"""The computer serves players in turn, not oldest first (issue 17, defect 4)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from fastapi.testclient import TestClient

from app.computer import first_legal
from app.config import Settings
from app.main import create_app
from tests.app.conftest import database_url

ATTACK = {"game": "morris", "name": "A", "side": "second", "opponent": {"level": 1}}


def computer_app(tmp_path: Path) -> object:
    url = database_url(tmp_path)
    return create_app(
        Settings(database_url=url, rate_limits=False, computer_thinker="first-legal", computer_processes=1)
    )


def test_a_player_with_many_waiting_turns_does_not_go_first(tmp_path: Path) -> None:
    app = computer_app(tmp_path)
    attacker, other = TestClient(app), TestClient(app)  # no lifespan: the worker is idle
    attacks = [attacker.post("/api/matches", json=ATTACK).json()["id"] for _ in range(5)]
    mine = other.post("/api/matches", json={**ATTACK, "name": "B"}).json()["id"]
    worker = app.state.computer
    order = []
    for _ in range(6):
        job = worker.claim()
        order.append(job.match_id)
    # Oldest first would serve the five attacks before "mine"; in turn, it is second.
    assert order.index(mine) == 1, order
    assert set(order) == {*attacks, mine}


def test_the_other_player_s_wait_under_attack(tmp_path: Path) -> None:
    """The attacker keeps five games against the computer busy, replying at once; the
    other player's reply waits for at most the turn in progress and their own."""
    app = computer_app(tmp_path)
    think = 1.0  # long against the overhead of a loaded machine

    def slow(*args: object) -> str:
        time.sleep(think)
        return first_legal(*args)  # type: ignore[arg-type]

    with TestClient(app) as attacker:
        app.state.computer.thinker = slow
        attacks = [attacker.post("/api/matches", json=ATTACK).json()["id"] for _ in range(5)]
        stop = threading.Event()

        def keep_busy() -> None:
            client = TestClient(app, cookies=attacker.cookies)
            while not stop.is_set():
                for match_id in attacks:
                    state = client.get(f"/api/matches/{match_id}").json()
                    legal = client.get(f"/api/matches/{match_id}/legal").json()
                    if state["to_move"] == "b" and legal["moves"]:
                        client.post(
                            f"/api/matches/{match_id}/moves",
                            json={"move": legal["moves"][0], "ply": state["ply"]},
                        )
                time.sleep(0.02)

        busy = threading.Thread(target=keep_busy, daemon=True)
        busy.start()
        try:
            time.sleep(2 * think)  # the attack is in full swing
            other = TestClient(app)
            started = time.monotonic()
            mine = other.post("/api/matches", json={**ATTACK, "name": "B"}).json()["id"]
            while other.get(f"/api/matches/{mine}").json()["ply"] == 0:
                assert time.monotonic() - started < 30
                time.sleep(0.02)
            waited = time.monotonic() - started
        finally:
            stop.set()
            busy.join(timeout=10)
    # Oldest first, the five queued attack turns (5 s) would come first; in turn, at most
    # the turn in progress and our own, with room for a slow machine.
    assert waited < 4 * think, waited


def test_one_address_with_many_cookies_gets_one_turn_a_round(tmp_path: Path) -> None:
    """Issue 27 (item 5): twenty fresh cookies from one address used to be twenty players
    to the round robin, and pushed another player's level-1 replies from under a second
    to 4.5-17.6 s. Address first, then player: the other address is served second."""
    app = computer_app(tmp_path)
    flood = [TestClient(app, client=("203.0.113.7", 40000 + n)) for n in range(20)]
    attacks = [client.post("/api/matches", json=ATTACK).json()["id"] for client in flood]
    other = TestClient(app, client=("198.51.100.9", 50000))
    mine = other.post("/api/matches", json={**ATTACK, "name": "B"}).json()["id"]
    worker = app.state.computer  # no lifespan: the worker is idle, the test claims
    first = [worker.claim() for _ in range(2)]
    assert mine in [job.match_id for job in first], [job.match_id for job in first]
    # With both in progress, the flooding address waits for its own turn to finish
    # before its next, as does the other one.
    for job in first:
        worker.fair.finished(job.turn)
    rest = [worker.claim().match_id for _ in range(19)]
    assert set(rest) | {job.match_id for job in first} == {*attacks, mine}


def test_the_other_address_s_wait_under_a_cookie_flood(tmp_path: Path) -> None:
    """One address keeps twenty games (twenty cookies) against the computer busy, each
    replying at once; another address's reply waits for at most the turn in progress and
    its own (stated bound: 4 think times, as for one player's flood above)."""
    app = computer_app(tmp_path)
    think = 1.0

    def slow(*args: object) -> str:
        time.sleep(think)
        return first_legal(*args)  # type: ignore[arg-type]

    with TestClient(app) as lifespan:
        app.state.computer.thinker = slow
        flood = [TestClient(app, client=("203.0.113.7", 40000 + n)) for n in range(20)]
        attacks = [(c, c.post("/api/matches", json=ATTACK).json()["id"]) for c in flood]
        stop = threading.Event()

        def keep_busy() -> None:
            while not stop.is_set():
                for client, match_id in attacks:
                    state = client.get(f"/api/matches/{match_id}").json()
                    if state["to_move"] != "b" or state["status"] != "playing":
                        continue
                    legal = client.get(f"/api/matches/{match_id}/legal").json()
                    if legal["moves"]:
                        client.post(
                            f"/api/matches/{match_id}/moves",
                            json={"move": legal["moves"][0], "ply": state["ply"]},
                        )
                time.sleep(0.02)

        busy = threading.Thread(target=keep_busy, daemon=True)
        busy.start()
        try:
            time.sleep(2 * think)
            other = TestClient(app, client=("198.51.100.9", 50000))
            started = time.monotonic()
            mine = other.post("/api/matches", json={**ATTACK, "name": "B"}).json()["id"]
            while lifespan.get(f"/api/matches/{mine}").json()["ply"] == 0:
                assert time.monotonic() - started < 30
                time.sleep(0.02)
            waited = time.monotonic() - started
        finally:
            stop.set()
            busy.join(timeout=10)
    print(f"\nthe other address waited {waited:.2f} s")
    # Per player only, the twenty flooding "players" each came before us (20.0 s measured).
    assert waited < 4 * think, waited
