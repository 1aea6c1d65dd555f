"""An account's forms come filled in with its name (found by the rated-game browser
test: a new account's first "Create the match" only brought "fill out this field")."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

PASSWORD = "correct horse battery staple"


def name_field(page: str) -> str:
    found = re.search(r'<input name="name" required maxlength="32" value="([^"]*)"', page)
    assert found, "no name field"
    return found.group(1)


def test_signing_up_fills_the_forms_with_the_accounts_name(alice: TestClient) -> None:
    assert name_field(alice.get("/").text) == "Guest"  # a first visit
    assert name_field(alice.get("/", headers={"accept-language": "es"}).text) == "Invitado"
    created = alice.post("/api/account", json={"username": "ana_b", "password": PASSWORD})
    assert created.status_code == 201, created.text
    assert name_field(alice.get("/").text) == "ana_b"


def test_a_name_already_typed_is_kept_at_sign_up(alice: TestClient) -> None:
    alice.post("/matches", data={"game": "morris", "name": "Ana María", "side": "first"})
    assert name_field(alice.get("/").text) == "Ana María"
    alice.post("/api/account", json={"username": "ana_b", "password": PASSWORD})
    assert name_field(alice.get("/").text) == "Ana María"


def test_signing_up_on_the_page_fills_the_forms_too(alice: TestClient) -> None:
    answer = alice.post("/signup", data={"username": "ana_b", "password": PASSWORD})
    assert answer.status_code == 200
    assert "ana_b" in answer.text
    assert name_field(alice.get("/").text) == "ana_b"


def test_the_ladder_s_first_run_starts_at_the_first_click(alice: TestClient) -> None:
    assert name_field(alice.get("/ladder").text) == "Guest"
    assert name_field(alice.get("/ladder", headers={"accept-language": "es"}).text) == "Invitado"
