"""The settings read from the environment (app/config.py, pydantic-settings): each
variable by its field's name in capitals, the old spellings kept, a wrong value refused
with a message naming it instead of a traceback later."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.config import DEFAULT_DATABASE_URL, Settings


def test_the_environment_sets_every_documented_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "DATABASE_URL": "sqlite:////tmp/x.db",
        "SECRET_KEY": "k",
        "SECURE_COOKIES": "1",
        "RATE_LIMITS": "off",
        "COMPRESSION": "off",
        "COMPUTER_PROCESSES": "2",
        "TABLERO_TEST_OPPONENT": "first-legal",
        "STREAMS_PER_CLIENT": "5",
        "PUBLIC_URL": " https://tablero.example/ ",
        "ALLOWED_HOSTS": "Second.example, ,third.example",
        "SMTP_URL": "smtp://127.0.0.1:2525",
        "MAIL_FROM": "Tablero <t@tablero.example>",
    }.items():
        monkeypatch.setenv(name, value)
    s = Settings.from_env()
    assert (s.database_url, s.secret_key, s.secure_cookies, s.rate_limits, s.compression) == (
        "sqlite:////tmp/x.db",
        "k",
        True,
        False,
        False,
    )
    assert (s.computer_processes, s.computer_thinker, s.streams_per_client) == (2, "first-legal", 5)
    assert s.public_url == "https://tablero.example"
    assert s.allowed_hosts == {"tablero.example", "second.example", "third.example"}
    assert (s.smtp_url, s.sender) == ("smtp://127.0.0.1:2525", "Tablero <t@tablero.example>")


def test_blank_means_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATABASE_URL", "PUBLIC_URL", "SMTP_URL", "MAIL_FROM", "ALLOWED_HOSTS"):
        monkeypatch.setenv(name, "  ")
    s = Settings.from_env()
    assert s.database_url == DEFAULT_DATABASE_URL and s.public_url is None and s.smtp_url is None
    assert s.allowed_hosts == {"localhost", "127.0.0.1", "[::1]"}


def test_fields_passed_by_name_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATE_LIMITS", "off")
    monkeypatch.setenv("DATABASE_URL", "sqlite:////tmp/env.db")
    s = Settings(database_url="sqlite:////tmp/given.db", rate_limits=True, computer_thinker="first-legal")
    assert (s.database_url, s.rate_limits, s.computer_thinker) == (
        "sqlite:////tmp/given.db",
        True,
        "first-legal",
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("COMPUTER_PROCESSES", "0"),
        ("COMPUTER_PROCESSES", "many"),
        ("STREAMS_PER_CLIENT", "-1"),
        ("RATE_LIMITS", "sometimes"),
        ("TABLERO_TEST_OPPONENT", "random"),
    ],
)
def test_a_wrong_value_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    """Before, COMPUTER_PROCESSES=many was an int() traceback, RATE_LIMITS=sometimes was
    silently on, and an unknown opponent name was taken as given."""
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as refused:
        Settings.from_env()
    field = {"TABLERO_TEST_OPPONENT": "computer_thinker"}.get(name, name.lower())
    assert field in str(refused.value) or name.lower() in str(refused.value)
