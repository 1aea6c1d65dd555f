"""Passkeys (WebAuthn, through the ``webauthn`` package): each ceremony is two calls,
options then verification. The challenge waits in ``webauthn_ceremonies`` (any process
may verify it), is used once and lives a few minutes; nothing the browser sends is
trusted beyond what the library checks against that challenge, the origin and the RP id.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session, sessionmaker
from webauthn import (
    base64url_to_bytes,
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from app.accounts.service import AccountService, SignedIn, Unauthorized, aware
from app.accounts.usernames import check_username, username_key
from app.models import Account, Passkey, WebAuthnCeremony
from app.services.errors import Conflict, Invalid, NotFound
from app.texts import N_

#: How long the browser has between the options and the verification.
CEREMONY_LIFETIME = timedelta(minutes=5)
RP_NAME = "Tablero"
MAX_PASSKEYS = 20
NOT_ACCEPTED = N_("the passkey was not accepted")


@dataclass(frozen=True)
class RelyingParty:
    """Who the passkeys are for: the site's host name and its origin."""

    id: str
    origin: str


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


CEREMONY_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _options(ceremony_id: str, options: Any) -> dict[str, Any]:
    return {"ceremony": ceremony_id, "options": json.loads(options_to_json(options))}


class PasskeyService:
    def __init__(
        self, sessions: sessionmaker[Session], accounts: AccountService, clock: Callable[[], datetime]
    ) -> None:
        self.sessions = sessions
        self.accounts = accounts
        self.clock = clock

    # ------------------------------------------------------------ ceremonies

    def _begin(self, db: Session, purpose: str, challenge: bytes, **fields: Any) -> str:
        now = self.clock()
        db.execute(delete(WebAuthnCeremony).where(WebAuthnCeremony.expires_at < now))
        ceremony_id = secrets.token_urlsafe(32)
        db.add(
            WebAuthnCeremony(
                id=ceremony_id,
                purpose=purpose,
                challenge=b64url(challenge),
                expires_at=now + CEREMONY_LIFETIME,
                **fields,
            )
        )
        return ceremony_id

    def _take(self, db: Session, ceremony_id: object, purpose: str) -> WebAuthnCeremony:
        """The ceremony, deleted as it is read (used once); refused if unknown or expired."""
        # Ours are token_urlsafe: anything else is unknown without asking the database
        # (PostgreSQL refuses NUL in text, which was a 500).
        if not isinstance(ceremony_id, str) or not CEREMONY_ID.fullmatch(ceremony_id):
            raise Invalid(N_("this passkey request is unknown or expired; please try again"))
        row = db.get(WebAuthnCeremony, ceremony_id)
        gone = db.execute(delete(WebAuthnCeremony).where(WebAuthnCeremony.id == ceremony_id)).rowcount  # type: ignore[attr-defined]
        if row is None or not gone or row.purpose != purpose or aware(row.expires_at) < self.clock():
            raise Invalid(N_("this passkey request is unknown or expired; please try again"))
        return row

    def _registration(self, rp: RelyingParty, name: str, handle: str, exclude: list[str]) -> Any:
        challenge = secrets.token_bytes(32)
        options = generate_registration_options(
            rp_id=rp.id,
            rp_name=RP_NAME,
            user_name=name,
            user_id=base64url_to_bytes(handle),
            user_display_name=name,
            challenge=challenge,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in exclude],
        )
        return challenge, options

    def _verify_registration(self, rp: RelyingParty, row: WebAuthnCeremony, credential: object) -> Any:
        try:
            return verify_registration_response(
                credential=credential,  # type: ignore[arg-type]
                expected_challenge=base64url_to_bytes(row.challenge),
                expected_rp_id=rp.id,
                expected_origin=rp.origin,
            )
        except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
            raise Invalid(NOT_ACCEPTED) from exc

    # ------------------------------------------------------------ sign up

    def signup_options(self, rp: RelyingParty, username: str) -> dict[str, Any]:
        username = check_username(username)
        with self.sessions.begin() as db:
            if db.scalar(select(Account.id).where(Account.username_key == username_key(username))):
                raise Conflict(N_("this username is taken"))
            handle = b64url(secrets.token_bytes(32))
            challenge, options = self._registration(rp, username, handle, [])
            ceremony = self._begin(db, "signup", challenge, username=username, user_handle=handle)
        return _options(ceremony, options)

    def signup_verify(
        self, rp: RelyingParty, ceremony_id: object, credential: object, guest_hash: str | None, device: str
    ) -> SignedIn:
        """The account, created with this passkey, signed in, holding the guest's rows."""
        with self.sessions.begin() as db:
            row = self._take(db, ceremony_id, "signup")
        verified = self._verify_registration(rp, row, credential)
        accounts = self.accounts
        with self.sessions.begin() as db:
            account = accounts._new_account(db, row.username or "", None, user_handle=row.user_handle)
            self._store(db, account.id, verified)
            codes = accounts._replace_recovery_codes(db, account.id)
            session_id = accounts._start_session(db, account, guest_hash, device)
        return SignedIn(account.id, account.username, session_id, codes)

    # ------------------------------------------------------------ adding one

    def add_options(self, rp: RelyingParty, account_id: int) -> dict[str, Any]:
        with self.sessions.begin() as db:
            account = db.get(Account, account_id)
            if account is None:
                raise Unauthorized(N_("you are not signed in"))
            have = db.scalars(select(Passkey.credential_id).where(Passkey.account_id == account_id)).all()
            if len(have) >= MAX_PASSKEYS:
                raise Conflict(N_("an account holds at most %(n)s passkeys"), n=MAX_PASSKEYS)
            challenge, options = self._registration(rp, account.username, account.user_handle, list(have))
            ceremony = self._begin(db, "add", challenge, account_id=account_id)
        return _options(ceremony, options)

    def add_verify(self, rp: RelyingParty, account_id: int, ceremony_id: object, credential: object) -> None:
        with self.sessions.begin() as db:
            row = self._take(db, ceremony_id, "add")
        if row.account_id != account_id:
            raise Invalid(N_("this passkey request is unknown or expired; please try again"))
        verified = self._verify_registration(rp, row, credential)
        with self.sessions.begin() as db:
            self._store(db, account_id, verified)

    def _store(self, db: Session, account_id: int, verified: Any) -> None:
        credential_id = b64url(verified.credential_id)
        if db.scalar(select(Passkey.id).where(Passkey.credential_id == credential_id)) is not None:
            raise Conflict(N_("this passkey is already registered"))
        count = len(db.scalars(select(Passkey.id).where(Passkey.account_id == account_id)).all())
        db.add(
            Passkey(
                account_id=account_id,
                credential_id=credential_id,
                public_key=verified.credential_public_key,
                sign_count=verified.sign_count,
                name=f"Passkey {count + 1}",
                created_at=self.clock(),
            )
        )

    def remove(self, account_id: int, passkey_id: int) -> None:
        """Remove a passkey, unless it is the account's last way in (no password either)."""
        with self.sessions.begin() as db:
            account = db.get(Account, account_id)
            key = db.get(Passkey, passkey_id)
            if account is None or key is None or key.account_id != account_id:
                raise NotFound(N_("there is no such passkey"))
            count = len(db.scalars(select(Passkey.id).where(Passkey.account_id == account_id)).all())
            if count == 1 and account.password_hash is None:
                raise Conflict(N_("this is your only way to sign in: set a password or add a passkey first"))
            db.delete(key)

    # ------------------------------------------------------------ signing in

    def signin_options(self, rp: RelyingParty) -> dict[str, Any]:
        """Options for a discoverable passkey: no username asked, no credential listed."""
        challenge = secrets.token_bytes(32)
        options = generate_authentication_options(
            rp_id=rp.id, challenge=challenge, user_verification=UserVerificationRequirement.PREFERRED
        )
        with self.sessions.begin() as db:
            ceremony = self._begin(db, "signin", challenge)
        return _options(ceremony, options)

    def signin_verify(self, rp: RelyingParty, ceremony_id: object, credential: object) -> int:
        """The account whose passkey signed the challenge; ``Unauthorized`` otherwise."""
        with self.sessions.begin() as db:
            try:
                row = self._take(db, ceremony_id, "signin")
            except Invalid as exc:
                raise Unauthorized(NOT_ACCEPTED) from exc
        raw_id = credential.get("id") if isinstance(credential, dict) else None
        if not isinstance(raw_id, str) or len(raw_id) > 1400:
            raise Unauthorized(NOT_ACCEPTED)
        with self.sessions.begin() as db:
            key = db.scalar(select(Passkey).where(Passkey.credential_id == raw_id))
            if key is None:
                raise Unauthorized(NOT_ACCEPTED)
            account = db.get(Account, key.account_id)
            response = credential.get("response") if isinstance(credential, dict) else None
            handle = response.get("userHandle") if isinstance(response, dict) else None
            if account is None or (handle and handle != account.user_handle):
                raise Unauthorized(NOT_ACCEPTED)
            try:
                verified = verify_authentication_response(
                    credential=credential,  # type: ignore[arg-type]
                    expected_challenge=base64url_to_bytes(row.challenge),
                    expected_rp_id=rp.id,
                    expected_origin=rp.origin,
                    credential_public_key=key.public_key,
                    credential_current_sign_count=key.sign_count,
                )
            except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
                raise Unauthorized(NOT_ACCEPTED) from exc
            key.sign_count = verified.new_sign_count
            key.last_used_at = self.clock()
            return account.id
