"""Adding an address, the verification mail through a real SMTP server, its link."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.mail.models import AccountEmail, MailSent
from tests.app.mail.conftest import FakeClock, Mailbox, link_in, queued

HTML = {"Accept": "text/html"}


def test_the_verification_mail_arrives_and_its_link_verifies(ana: TestClient, mailbox: Mailbox) -> None:
    assert ana.get("/api/account").json()["email"] is None
    added = ana.put("/api/account/email", json={"email": " Ana.Maria+games@Example.COM "})
    assert added.status_code == 202, added.text
    assert added.json() == {"address": "Ana.Maria+games@Example.COM", "verified": False, "digest": False}
    assert ana.get("/api/account").json()["email"] == added.json()

    [message] = mailbox.wait_for(1)
    assert mailbox.envelopes[0] == ("noreply@tablero.test", ["Ana.Maria+games@Example.COM"])
    assert message["From"] == "Tablero <noreply@tablero.test>"
    assert message["To"] == "Ana.Maria+games@Example.COM"
    assert message["Subject"] == "Confirm your email address for Tablero"
    assert message["Auto-Submitted"] == "auto-generated"
    assert "List-Unsubscribe" not in message  # nothing to unsubscribe from yet
    assert "Hello ana," in message.get_content()

    page = ana.get(link_in(message, "/email/verify"), headers=HTML)
    assert page.status_code == 200
    assert "Your email address Ana.Maria+games@Example.COM is confirmed." in page.text
    assert ana.get("/api/account").json()["email"]["verified"] is True
    # The link again (a mail program's preview, a second click): still fine.
    assert ana.get(link_in(message, "/email/verify")).status_code == 200


def test_the_link_works_from_another_browser_signed_out(
    mail_app: FastAPI, ana: TestClient, mailbox: Mailbox
) -> None:
    ana.put("/api/account/email", json={"email": "ana@example.com"})
    [message] = mailbox.wait_for(1)
    phone = TestClient(mail_app)
    assert phone.get(link_in(message, "/email/verify")).status_code == 200
    assert ana.get("/api/account").json()["email"]["verified"] is True


def test_a_tampered_an_expired_and_an_outdated_link_fail_with_a_readable_page(
    ana: TestClient, mailbox: Mailbox, clock: FakeClock
) -> None:
    ana.put("/api/account/email", json={"email": "ana@example.com"})
    [message] = mailbox.wait_for(1)
    link = link_in(message, "/email/verify")
    account, expires, mac = link.split("=", 1)[1].split(".")
    for bad in (
        f"{account}.{expires}.{mac[:-2]}AA",  # another MAC
        f"{account}.{int(expires) + 86400}.{mac}",  # a later expiry
        f"{int(account) + 1}.{expires}.{mac}",  # another account
        "not-a-token",
        "",
        "9" * 5000,
    ):
        page = ana.get(f"/email/verify?token={bad}", headers=HTML)
        assert page.status_code == 400, bad
        assert "this confirmation link is not valid any more" in page.text
    assert ana.get("/api/account").json()["email"]["verified"] is False

    # 24 hours and a second later the genuine link has expired.
    clock.advance(hours=24, seconds=1)
    assert ana.get(link, headers=HTML).status_code == 400
    spanish = ana.get(link, headers={**HTML, "Accept-Language": "es"})
    assert spanish.status_code == 400 and "ya no es válido" in spanish.text
    assert ana.get("/api/account").json()["email"]["verified"] is False

    # A new link for a new address: the old address's link (still in time) dies with it.
    ana.put("/api/account/email", json={"email": "ana@example.org"})
    second = mailbox.wait_for(2)[1]
    ana.put("/api/account/email", json={"email": "ana@example.net"})
    mailbox.wait_for(3)
    assert ana.get(link_in(second, "/email/verify"), headers=HTML).status_code == 400
    assert ana.get("/api/account").json()["email"] == {
        "address": "ana@example.net",
        "verified": False,
        "digest": False,
    }


def test_the_domain_is_compared_without_case_the_local_part_as_typed(
    ana: TestClient, mailbox: Mailbox
) -> None:
    ana.put("/api/account/email", json={"email": "Ana@example.com"})
    [message] = mailbox.wait_for(1)
    assert ana.get(link_in(message, "/email/verify")).status_code == 200
    # The same address with the domain in capitals: still verified, no mail.
    same = ana.put("/api/account/email", json={"email": "Ana@EXAMPLE.com"})
    assert same.status_code == 202 and same.json()["verified"] is True
    # Another local part is another address: unverified, a new link.
    other = ana.put("/api/account/email", json={"email": "ana@example.com"})
    assert other.json()["verified"] is False
    assert len(mailbox.wait_for(2)) == 2


def test_an_address_with_cr_or_lf_or_not_an_address_is_refused_and_changes_nothing(
    mail_app: FastAPI, ana: TestClient, mailbox: Mailbox
) -> None:
    ana.put("/api/account/email", json={"email": "ana@example.com"})
    mailbox.wait_for(1)
    for bad, rule in (
        ("ana@example.com\r\nBcc: all@example.org", "one line"),
        ("ana@example.com\nSubject: hi", "one line"),
        ("ana@example.com\x00", "one line"),
        ("ana@exa mple.com", "looks like name@example.com"),
        ("ana", "looks like name@example.com"),
        ("@example.com", "looks like name@example.com"),
        ("ana@localhost", "looks like name@example.com"),
        ('"ana"@example.com', "looks like name@example.com"),
        ("añá@example.com", "plain ASCII"),
        ("a" * 250 + "@example.com", "at most 254"),
        ("", "type an email address"),
    ):
        refused = ana.put("/api/account/email", json={"email": bad})
        assert refused.status_code == 422, bad
        assert rule in refused.json()["detail"], (bad, refused.json())
    assert ana.put("/api/account/email", json={"email": 5}).status_code == 422
    assert ana.put("/api/account/email", json={}).status_code == 422
    assert ana.get("/api/account").json()["email"]["address"] == "ana@example.com"
    assert len(queued(mail_app)) == 0 and len(mailbox.messages) == 1


def test_adding_another_account_s_address_answers_exactly_as_a_fresh_one(
    mail_app: FastAPI, ana: TestClient, mailbox: Mailbox
) -> None:
    from tests.app.accounts.test_accounts_api import sign_up

    ana.put("/api/account/email", json={"email": "shared@example.com"})
    assert ana.get(link_in(mailbox.wait_for(1)[0], "/email/verify")).status_code == 200
    bo = TestClient(mail_app)
    sign_up(bo, "bo")
    taken = bo.put("/api/account/email", json={"email": "shared@example.com"})
    second = mailbox.wait_for(2)[1]
    fresh = bo.put("/api/account/email", json={"email": "fresh@example.com"})
    third = mailbox.wait_for(3)[2]
    assert taken.status_code == fresh.status_code == 202
    assert taken.json() == {"address": "shared@example.com", "verified": False, "digest": False}
    assert fresh.json() == {"address": "fresh@example.com", "verified": False, "digest": False}
    assert set(taken.headers) == set(fresh.headers)
    # Each got a link of its own, alike; Ana's address stays hers and verified.
    assert (second["To"], third["To"]) == ("shared@example.com", "fresh@example.com")
    assert second["Subject"] == third["Subject"] and "Hello bo," in second.get_content()
    assert ana.get("/api/account").json()["email"]["verified"] is True


def test_verification_mails_are_limited_per_account_and_per_address(
    mail_app: FastAPI, ana: TestClient, mailbox: Mailbox, clock: FakeClock
) -> None:
    from tests.app.accounts.test_accounts_api import sign_up

    for n in range(5):
        assert ana.put("/api/account/email", json={"email": f"ana{n}@example.com"}).status_code == 202
    sixth = ana.put("/api/account/email", json={"email": "ana9@example.com"})
    assert sixth.status_code == 429 and int(sixth.headers["Retry-After"]) > 23 * 3600
    assert ana.get("/api/account").json()["email"]["address"] == "ana4@example.com"  # unchanged
    clock.advance(hours=24, seconds=1)
    assert ana.put("/api/account/email", json={"email": "ana9@example.com"}).status_code == 202

    # Per address: three links a day to one address, whichever accounts ask; the
    # fourth account is answered the same and no mail goes.
    # (A change drops the mail still queued for the address before: count the victim's.)
    for name in ("bo", "cy", "di", "ed"):
        client = TestClient(mail_app)
        sign_up(client, name)
        answer = client.put("/api/account/email", json={"email": "victim@example.com"})
        assert answer.status_code == 202 and answer.json() == {
            "address": "victim@example.com",
            "verified": False,
            "digest": False,
        }
    mailbox.wait_for(len(mailbox.messages) + 99, seconds=1.5)
    assert [m["To"] for m in mailbox.messages].count("victim@example.com") == 3
    with mail_app.state.sessions() as db:
        hashes = set(db.scalars(select(MailSent.address_hash)))
        addresses = set(db.scalars(select(AccountEmail.address)))
    assert "victim@example.com" in addresses
    assert not any("victim" in h or "example" in h for h in hashes)  # kept as an HMAC


def test_removing_the_address(mail_app: FastAPI, ana: TestClient, mailbox: Mailbox) -> None:
    ana.put("/api/account/email", json={"email": "ana@example.com"})
    [message] = mailbox.wait_for(1)
    assert ana.delete("/api/account/email").status_code == 204
    assert ana.get("/api/account").json()["email"] is None
    assert ana.get(link_in(message, "/email/verify")).status_code == 400
    assert ana.delete("/api/account/email").status_code == 204  # none: fine too
    assert queued(mail_app) == []


def test_the_operations_need_a_signed_in_account(mail_app: FastAPI, ana: TestClient) -> None:
    stranger = TestClient(mail_app)
    assert stranger.put("/api/account/email", json={"email": "x@example.com"}).status_code == 401
    assert stranger.delete("/api/account/email").status_code == 401
    assert stranger.put("/api/account/email/digest", json={"digest": True}).status_code == 401
