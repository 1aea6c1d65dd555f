"""Web Push end to end against a local push service (an HTTP server on 127.0.0.1 in the
test): it checks the VAPID JWT's signature and claims and decrypts the payload with the
subscription's private key; a 410 deletes the subscription; a 429 is retried; endpoints off
the allowlist are refused and never sent to."""

from __future__ import annotations

import base64
import json
import os
import secrets
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete

from app.config import Settings
from app.main import create_app
from app.manage import migrate
from tests.app.conftest import database_url
from tests.app.helpers import play, started

THREE_DAYS = {"kind": "correspondence", "days": 3}
FIVE_THREE = {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 3}


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PushService:
    """A push service on 127.0.0.1: records each request; answers with ``answers`` in turn, then 201."""

    def __init__(self) -> None:
        self.received: list[dict] = []
        self.answers: list[int] = []
        self.arrived = threading.Condition()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with service.arrived:
                    status = service.answers.pop(0) if service.answers else 201
                    service.received.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body, "status": status}
                    )
                    service.arrived.notify_all()
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "1")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, seconds: float = 10.0) -> list[dict]:
        deadline = time.monotonic() + seconds
        with self.arrived:
            while len(self.received) < count and time.monotonic() < deadline:
                self.arrived.wait(timeout=0.1)
            return list(self.received)


class Browser:
    """A subscription's keys, as a browser makes them; it can decrypt what is sent to it."""

    def __init__(self, endpoint: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = secrets.token_bytes(16)
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.subscription = {"endpoint": endpoint, "keys": {"p256dh": b64(point), "auth": b64(self.auth)}}

    def decrypt(self, body: bytes) -> dict:
        return json.loads(
            http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        )


def verified_claims(authorization: str, server_key: str) -> dict:
    """The VAPID JWT's claims once its ES256 signature checks out against ``k`` (RFC 8292)."""
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid"
    fields = dict(part.split("=", 1) for part in params.split(","))
    assert fields["k"] == server_key
    header, claims, signature = fields["t"].split(".")
    assert json.loads(unb64(header)) == {"typ": "JWT", "alg": "ES256"}
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(fields["k"]))
    raw = unb64(signature)
    der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    return json.loads(unb64(claims))


@pytest.fixture
def pusher() -> Iterator[PushService]:
    service = PushService()
    yield service
    service.server.shutdown()


@pytest.fixture
def push_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pusher: PushService) -> FastAPI:
    monkeypatch.setenv("PUSH_HOSTS", "127.0.0.1")
    monkeypatch.setenv("VAPID_SUBJECT", "mailto:ops@tablero.test")
    url = database_url(tmp_path)
    migrate(url)
    return create_app(Settings(database_url=url, secret_key="t", rate_limits=False))


def test_a_correspondence_move_is_pushed_signed_and_encrypted(push_app: FastAPI, pusher: PushService) -> None:
    with TestClient(push_app) as alice:
        bob = TestClient(push_app)
        match_id = started(alice, bob, "morris", time_control=THREE_DAYS)
        phone = Browser(pusher.origin + "/push/bob-1")
        subscribed = bob.post(
            "/api/push/subscriptions", json=phone.subscription, headers={"Accept-Language": "es"}
        )
        assert subscribed.status_code == 201, subscribed.text
        assert bob.get("/api/push/subscriptions").json()["subscriptions"][0]["lang"] == "es"
        server_key = alice.get("/api/push/key").json()["key"]

        moved_at = time.time()
        play(alice, match_id, "d2")
        [push] = pusher.wait_for(1)
        headers = {k.lower(): v for k, v in push["headers"].items()}
        assert push["path"] == "/push/bob-1"
        assert headers["content-encoding"] == "aes128gcm"
        assert headers["ttl"] == str(24 * 3600) and headers["urgency"] == "normal"
        assert headers["topic"] == match_id
        claims = verified_claims(headers["authorization"], server_key)
        assert claims["aud"] == pusher.origin and claims["sub"] == "mailto:ops@tablero.test"
        assert moved_at < claims["exp"] <= moved_at + 24 * 3600
        assert phone.decrypt(push["body"]) == {
            "title": "Te toca",
            "body": "Alice movió en Molino.",
            "url": f"/matches/{match_id}",
            "tag": match_id,
        }
        # Alice has no subscription: Bob's move pushes nothing.
        play(bob, match_id, "a1")
        time.sleep(0.5)
        assert len(pusher.received) == 1


def test_a_410_deletes_the_subscription_and_a_429_is_retried(push_app: FastAPI, pusher: PushService) -> None:
    with TestClient(push_app) as alice:
        bob = TestClient(push_app)
        match_id = started(alice, bob, "morris", time_control=THREE_DAYS)
        phone = Browser(pusher.origin + "/push/bob")
        assert bob.post("/api/push/subscriptions", json=phone.subscription).status_code == 201
        pusher.answers = [429]
        play(alice, match_id, "d2")
        first, retried = pusher.wait_for(2)
        assert (first["status"], retried["status"]) == (429, 201)
        assert phone.decrypt(retried["body"])["url"] == f"/matches/{match_id}"

        pusher.answers = [410]
        play(bob, match_id, "a1")
        play(alice, match_id, "d6")
        assert pusher.wait_for(3)[2]["status"] == 410
        deadline = time.monotonic() + 5
        while bob.get("/api/push/subscriptions").json()["subscriptions"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert bob.get("/api/push/subscriptions").json()["subscriptions"] == []
        play(bob, match_id, "g1")
        play(alice, match_id, "b4")
        time.sleep(0.5)
        assert len(pusher.received) == 3  # nothing more to the dead endpoint


def test_a_real_time_move_is_pushed_only_when_no_page_of_the_match_is_open(
    push_app: FastAPI, pusher: PushService
) -> None:
    with TestClient(push_app) as alice:
        bob = TestClient(push_app)
        match_id = started(alice, bob, "morris", time_control=FIVE_THREE)
        assert (
            bob.post("/api/push/subscriptions", json=Browser(pusher.origin + "/b").subscription).status_code
            == 201
        )
        # Bob's page is open: its event stream stamps his seat.
        bob_seat = next(s.id for s in push_app.state.matches.get(match_id).seats if s.name == "Bob")
        push_app.state.matches.seen(bob_seat)
        play(alice, match_id, "d2")
        time.sleep(0.7)
        assert pusher.received == []
        play(bob, match_id, "a1")
        # Bob's page closed long ago: the next move reaches him by push, urgently.
        from app.push import notify

        original = notify.AWAY_AFTER
        notify.AWAY_AFTER = timedelta(seconds=0)
        try:
            play(alice, match_id, "d6")
            [push] = pusher.wait_for(1)
        finally:
            notify.AWAY_AFTER = original
        headers = {k.lower(): v for k, v in push["headers"].items()}
        assert headers["urgency"] == "high" and headers["ttl"] == "300"


def test_a_paired_seek_is_pushed_to_the_waiting_player(push_app: FastAPI, pusher: PushService) -> None:
    with TestClient(push_app) as alice:
        bob = TestClient(push_app)
        phone = Browser(pusher.origin + "/a")
        assert alice.post("/api/push/subscriptions", json=phone.subscription).status_code == 201
        body = {"game": "bobail", "time_control": THREE_DAYS}
        assert alice.post("/api/seeks", json={**body, "name": "Ana"}).json()["status"] == "waiting"
        paired = bob.post("/api/seeks", json={**body, "name": "Bo"}).json()
        [push] = pusher.wait_for(1)
        assert phone.decrypt(push["body"]) == {
            "title": "Opponent found",
            "body": "Your Bobail game against Bo has started.",
            "url": f"/matches/{paired['match_id']}",
            "tag": paired["match_id"],
        }


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://evil.example/push",  # not a push service
        "http://fcm.googleapis.com/fcm/send/x",  # http outside loopback
        "https://142.250.1.1/fcm/send/x",  # an address literal
        "https://[::1]/x",  # loopback not listed
        "http://127.0.0.2:9/x",  # another loopback address, not listed
        "https://fcm.googleapis.com:8443/x",  # another port
        "https://user@fcm.googleapis.com/x",  # user info
        "https://fcm.googleapis.com.evil.example/x",
        "ftp://127.0.0.1/x",
    ],
)
def test_endpoints_off_the_allowlist_are_refused_and_never_sent_to(
    push_app: FastAPI, pusher: PushService, endpoint: str
) -> None:
    with TestClient(push_app) as alice:
        refused = alice.post("/api/push/subscriptions", json=Browser(endpoint).subscription)
        assert refused.status_code == 422, refused.text
        assert alice.get("/api/push/subscriptions").json()["subscriptions"] == []
    assert pusher.received == []


def test_the_default_allowlist_takes_the_browsers_push_services(app: FastAPI, alice: TestClient) -> None:
    assert "PUSH_HOSTS" not in os.environ
    for endpoint in (
        "https://fcm.googleapis.com/fcm/send/abc",
        "https://updates.push.services.mozilla.com/wpush/v2/x",
        "https://web.push.apple.com/QGx",
        "https://wns2-by3p.notify.windows.com/w/?token=x",
    ):
        assert alice.post("/api/push/subscriptions", json=Browser(endpoint).subscription).status_code == 201
    loopback = alice.post("/api/push/subscriptions", json=Browser("http://127.0.0.1:9/x").subscription)
    assert loopback.status_code == 422  # loopback only when listed explicitly


def test_five_subscriptions_per_browser_bad_keys_and_removal(app: FastAPI, alice: TestClient) -> None:
    endpoints = [f"https://fcm.googleapis.com/fcm/send/{i}" for i in range(6)]
    for endpoint in endpoints[:5]:
        assert alice.post("/api/push/subscriptions", json=Browser(endpoint).subscription).status_code == 201
    again = alice.post("/api/push/subscriptions", json=Browser(endpoints[0]).subscription)
    assert again.status_code == 200  # the same endpoint: updated, not a sixth
    sixth = alice.post("/api/push/subscriptions", json=Browser(endpoints[5]).subscription)
    assert sixth.status_code == 409 and "five push subscriptions" in sixth.json()["detail"]
    bad = Browser(endpoints[5]).subscription
    bad["keys"]["p256dh"] = b64(b"\x04" + b"x" * 10)
    assert alice.post("/api/push/subscriptions", json=bad).status_code == 422
    bad["keys"] = {"p256dh": Browser("x").subscription["keys"]["p256dh"], "auth": "!!"}
    assert alice.post("/api/push/subscriptions", json=bad).status_code == 422
    removed = alice.request("DELETE", "/api/push/subscriptions", json={"endpoint": endpoints[0]})
    assert removed.status_code == 204
    assert (
        alice.request("DELETE", "/api/push/subscriptions", json={"endpoint": endpoints[0]}).status_code == 404
    )
    assert len(alice.get("/api/push/subscriptions").json()["subscriptions"]) == 4


def test_the_vapid_key_is_made_once_and_kept(app: FastAPI, alice: TestClient) -> None:
    key = alice.get("/api/push/key").json()["key"]
    assert len(unb64(key)) == 65 and unb64(key)[0] == 4
    again = create_app(
        Settings(database_url=app.state.settings.database_url, secret_key="t", rate_limits=False)
    )
    with TestClient(again) as other:
        assert other.get("/api/push/key").json()["key"] == key  # kept in the database


def test_the_service_worker_is_served_for_the_whole_site(alice: TestClient) -> None:
    response = alice.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["service-worker-allowed"] == "/"
    assert "showNotification" in response.text and "openWindow" in response.text


def test_a_rematch_offer_is_pushed_to_the_other_player(push_app: FastAPI, pusher: PushService) -> None:
    with TestClient(push_app) as alice:
        bob = TestClient(push_app)
        match_id = started(alice, bob, "morris")
        phone = Browser(pusher.origin + "/bob")
        assert bob.post("/api/push/subscriptions", json=phone.subscription).status_code == 201
        assert alice.post(f"/api/matches/{match_id}/resign").status_code == 200
        offered = alice.post(f"/api/matches/{match_id}/rematch", json={"action": "offer"})
        assert offered.status_code == 200, offered.text
        [push] = pusher.wait_for(1)
        assert phone.decrypt(push["body"]) == {
            "title": "Rematch?",
            "body": "Alice offers a rematch of Nine Men's Morris.",
            "url": f"/matches/{match_id}",
            "tag": match_id,
        }


def test_a_challenge_and_its_acceptance_are_pushed(push_app: FastAPI, pusher: PushService) -> None:
    """Issue 32, item 2: the challenged account's browser is told of the challenge, the
    challenger's of its acceptance (a subscription made while signed in is the account's)."""
    from tests.app.ratings.test_rated_matches import sign_up

    with TestClient(push_app) as ana:
        ben = TestClient(push_app)
        sign_up(ana, "ana")
        sign_up(ben, "ben")
        ana_phone, ben_phone = Browser(pusher.origin + "/a"), Browser(pusher.origin + "/b")
        assert ana.post("/api/push/subscriptions", json=ana_phone.subscription).status_code == 201
        assert ben.post("/api/push/subscriptions", json=ben_phone.subscription).status_code == 201
        body = {"to": "ben", "game": "bobail", "time_control": THREE_DAYS, "side": "first"}
        made = ana.post("/api/challenges", json=body).json()
        [told] = pusher.wait_for(1)
        assert told["path"] == "/b"
        assert ben_phone.decrypt(told["body"]) == {
            "title": "A challenge",
            "body": "ana challenges you to Bobail.",
            "url": "/challenges",
            "tag": "challenges",
        }
        match_id = ben.post(f"/api/challenges/{made['id']}/accept").json()["match_id"]
        pushes = pusher.wait_for(2)
        accepted = next(p for p in pushes if p["path"] == "/a")
        assert ana_phone.decrypt(accepted["body"]) == {
            "title": "Challenge accepted",
            "body": "ben accepted your Bobail challenge.",
            "url": f"/matches/{match_id}",
            "tag": match_id,
        }


def test_a_correspondence_clock_under_an_hour_is_pushed_once_per_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pusher: PushService
) -> None:
    """Issue 32, item 3: the player to move hears when its correspondence clock has less
    than an hour left; once for that turn, however often (and by how many processes)
    the sweep runs."""
    from tests.app.matches.test_time_controls import FakeClock

    monkeypatch.setenv("PUSH_HOSTS", "127.0.0.1")
    clock = FakeClock()
    url = database_url(tmp_path)
    migrate(url)
    settings = Settings(database_url=url, secret_key="t", rate_limits=False)
    first, second = create_app(settings, clock=clock), create_app(settings, clock=clock)
    with TestClient(first) as ana, TestClient(second):
        ben = TestClient(first)
        match_id = started(ana, bob=ben, time_control={"kind": "correspondence", "days": 1})
        play(ana, match_id, "c5")  # Ben to move, a day on his clock
        phone = Browser(pusher.origin + "/ben")
        assert ben.post("/api/push/subscriptions", json=phone.subscription).status_code == 201
        for app in (first, second):
            app.state.push.refresh_anyone()
        clock.advance(hours=22)
        assert first.state.clock_warnings.sweep() == 0  # two hours left
        clock.advance(hours=1, minutes=1)
        assert first.state.clock_warnings.sweep() + second.state.clock_warnings.sweep() == 1
        assert first.state.clock_warnings.sweep() == 0
        [push] = pusher.wait_for(1)
        assert phone.decrypt(push["body"]) == {
            "title": "Under an hour left",
            "body": "Your clock in Nine Men's Morris against Alice has less than an hour left.",
            "url": f"/matches/{match_id}",
            "tag": match_id,
        }
        time.sleep(0.5)
        assert len(pusher.received) == 1


def test_a_late_settle_never_touches_a_new_job_that_got_the_same_id(app: FastAPI) -> None:
    """A sender whose lease ran out settles late: meanwhile another process sent and
    deleted the job, and SQLite gave its id to a new job. Before, the late 201 deleted the
    new job (a push lost) and a late 5xx rescheduled it; now settling matches the lease.
    The app is not started (no lifespan): its own sender would take the jobs meanwhile."""
    from datetime import UTC, datetime, timedelta

    from app.push.models import PushJob, PushSubscription
    from app.push.sender import PushSender

    # A minute from now: the job's due_at is the real time of its insert.
    moment = datetime.now(UTC) + timedelta(minutes=1)
    sessions = app.state.sessions
    with sessions.begin() as db:
        subscription = PushSubscription(
            token_hash="t" * 64, endpoint="https://push.example/x", p256dh="k", auth="a", lang="en"
        )
        db.add(subscription)
        db.flush()
        db.add(PushJob(subscription_id=subscription.id, payload="{}", topic="old", urgency="normal", ttl=60))
    sender = PushSender(
        sessions, vapid=lambda: None, subject="mailto:x", hosts=lambda: (), clock=lambda: moment
    )  # type: ignore[arg-type,return-value]
    claimed = sender.claim()
    assert claimed is not None
    with sessions.begin() as db:  # another process sent it and deleted it; a new job takes the id
        db.execute(delete(PushJob))
        db.add(
            PushJob(
                id=claimed.job_id,
                subscription_id=claimed.subscription_id,
                payload="{}",
                topic="new",
                urgency="normal",
                ttl=60,
            )
        )
    for status in (201, 503, 400):
        sender.settle(claimed, status, None)
    with sessions() as db:
        job = db.get(PushJob, claimed.job_id)
        assert job is not None and job.topic == "new" and job.attempts == 0 and job.claimed_until is None
    # The claim's own job is still settled by it.
    again = sender.claim()
    assert again is not None and again.job_id == claimed.job_id
    sender.settle(again, 201, None)
    with sessions() as db:
        assert db.get(PushJob, claimed.job_id) is None
