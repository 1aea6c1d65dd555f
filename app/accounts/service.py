"""AccountService: signing up and in, sessions, claiming a guest's rows, recovery codes,
preferences. Your data (export, closing) is in ``data.py``; passkeys in ``passkeys.py``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.accounts import credentials, limits
from app.accounts.usernames import check_username, username_key
from app.db import reading
from app.models import Account, AccountSession, LadderRun, Passkey, RecoveryCode, Seat
from app.services.errors import Conflict, Forbidden, ServiceError
from app.texts import N_

#: A session row's last_seen_at is written at most this often (not on every request).
SEEN_EVERY = timedelta(minutes=5)
#: A signed-in browser stays signed in this long without being seen.
SESSION_IDLE = timedelta(days=400)
MAX_DEVICE = 200
#: Sign-ups (and passkey sign-up ceremonies) one address may start per hour.
SIGN_UPS = 10
SIGN_UP_WINDOW = timedelta(hours=1)

#: Preferences an account keeps, each with the values it may take.
PREFERENCES: dict[str, tuple[Any, ...]] = {
    "language": ("en", "es"),
    "sound": (True, False),
    "dark": ("system", "dark", "light"),
    "flip": (True, False),
    "large_board": (True, False),
    #: Off: no match page shows its chat (issue 33).
    "chat": (True, False),
}


class Unauthorized(ServiceError):
    status_code = 401


#: One answer for an unknown username and a wrong password (no enumeration).
BAD_CREDENTIALS = N_("the username or the password is wrong")


@dataclass(frozen=True)
class SignedIn:
    """A new session: its id goes in the cookie (only its hash is stored)."""

    account_id: int
    username: str
    session_id: str
    recovery_codes: list[str] | None = None


def aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def claim(db: Session, holder: str, guest_hash: str | None) -> int:
    """Re-point every row the guest token holds to the account (in the caller's
    transaction): seats (a game being played included: its page finds the seat by the
    account's holder from now on), ladder runs and what it has in the chat (issue 33).
    Returns the number of seats moved."""
    if not guest_hash or guest_hash == holder:
        return 0
    moved = db.execute(update(Seat).where(Seat.token_hash == guest_hash).values(token_hash=holder))
    db.execute(update(LadderRun).where(LadderRun.token_hash == guest_hash).values(token_hash=holder))
    from app.chat.data import chat_claim  # here: app.chat imports this module

    chat_claim(db, holder, guest_hash)
    return int(moved.rowcount or 0)  # type: ignore[attr-defined]


class AccountService:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        clock: Callable[[], datetime],
        failure_limit: limits.FailureLimit | None = None,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.failure_limit = failure_limit or limits.FailureLimit()

    # ------------------------------------------------------------ sign up, sign in

    def sign_up(self, username: str, password: str | None, guest_hash: str | None, device: str) -> SignedIn:
        """A new account (with a password, or none yet for a passkey's sign-up), signed in,
        holding the guest's rows, with its first recovery codes."""
        username = check_username(username)
        hashed = credentials.hash_password(credentials.check_password(password)) if password else None
        with self.sessions.begin() as db:
            account = self._new_account(db, username, hashed)
            codes = self._replace_recovery_codes(db, account.id)
            session_id = self._start_session(db, account, guest_hash, device)
        return SignedIn(account.id, account.username, session_id, codes)

    def _new_account(
        self, db: Session, username: str, password_hash: str | None, user_handle: str | None = None
    ) -> Account:
        key = username_key(username)
        if db.scalar(select(Account.id).where(Account.username_key == key)) is not None:
            raise Conflict(N_("this username is taken"))
        account = Account(
            username=username,
            username_key=key,
            holder=credentials.new_holder(),
            password_hash=password_hash,
            user_handle=user_handle or credentials.new_user_handle(),
            preferences="{}",
            created_at=self.clock(),
        )
        try:
            with db.begin_nested():
                db.add(account)
                db.flush()
        except IntegrityError as exc:  # taken between the check and the insert
            raise Conflict(N_("this username is taken")) from exc
        return account

    def sign_in(
        self,
        username: str,
        secret: str,
        client: str,
        guest_hash: str | None,
        device: str,
        recovery: bool = False,
    ) -> SignedIn:
        """Sign in with a password (or a one-time recovery code). Every failure answers
        the same ``Unauthorized`` whether or not the name exists, after the same Argon2
        work; failures are counted per name and per address (429 past the limit)."""
        key = username_key(username if isinstance(username, str) else "")[:20]
        # No username has a character outside printable ASCII; such a name is still
        # counted and refused alike, but never sent to the database raw (PostgreSQL
        # refuses NUL in text: that was a 500).
        key = "".join(c if c.isascii() and c.isprintable() else "?" for c in key)
        limit = self.failure_limit
        counted = {limits.user_key(key): limit.per_user, limits.address_key(client): limit.per_address}
        now = self.clock()
        with self.sessions.begin() as db:
            limits.check(db, counted, now, limit.window)
        with self.sessions() as db:
            account = db.scalar(select(Account).where(Account.username_key == key))
        if recovery:
            ok = account is not None and self._use_recovery_code(account.id, secret)
        else:
            ok = credentials.verify_password(account.password_hash if account else None, secret)
        if not ok or account is None:
            with self.sessions.begin() as db:
                limits.record_failure(db, list(counted), now, limit.window)
            raise Unauthorized(BAD_CREDENTIALS)
        with self.sessions.begin() as db:
            limits.forget(db, [limits.user_key(key)])
            session_id = self._start_session(db, db.get(Account, account.id), guest_hash, device)  # type: ignore[arg-type]
        return SignedIn(account.id, account.username, session_id)

    def sign_in_account(self, account_id: int, guest_hash: str | None, device: str) -> SignedIn:
        """A session for an account whose owner proved themselves otherwise (a passkey)."""
        with self.sessions.begin() as db:
            account = db.get(Account, account_id)
            if account is None:
                raise Unauthorized(BAD_CREDENTIALS)
            session_id = self._start_session(db, account, guest_hash, device)
            return SignedIn(account.id, account.username, session_id)

    def _start_session(self, db: Session, account: Account, guest_hash: str | None, device: str) -> str:
        """A fresh random session id (never one the browser brought: no fixation), and the
        guest's rows claimed in the same transaction."""
        session_id = credentials.random_id()
        now = self.clock()
        db.add(
            AccountSession(
                id_hash=credentials.sha256(session_id),
                account_id=account.id,
                device=device[:MAX_DEVICE],
                created_at=now,
                last_seen_at=now,
            )
        )
        claim(db, account.holder, guest_hash)
        return session_id

    def count_sign_up(self, client: str) -> None:
        """Each sign-up costs an Argon2 hash and a row: at most ``SIGN_UPS`` per address
        per hour (429 past it), counted in the database like the failures."""
        key, now = "signup:" + client[:80], self.clock()
        with self.sessions.begin() as db:
            limits.check(db, {key: SIGN_UPS}, now, SIGN_UP_WINDOW)
            limits.record_failure(db, [key], now, SIGN_UP_WINDOW)

    # --------------------------------------------------------------- sessions

    def account_of_session(self, session_id: str) -> Account | None:
        """The account a session cookie signs in, or None (unknown, ended or idle too long)."""
        id_hash = credentials.sha256(session_id)
        now = self.clock()
        # Read without a lock: every request of a signed-in player asks this. A plain
        # session begins with SQLite's write lock (BEGIN IMMEDIATE, app/db.py), so each
        # request of every signed-in player used to queue behind the moves' writes.
        with reading(self.sessions.kw["bind"]) as conn, self.sessions(bind=conn) as db:
            row = db.execute(
                select(AccountSession, Account)
                .join(Account, Account.id == AccountSession.account_id)
                .where(AccountSession.id_hash == id_hash)
            ).first()
            if row is None:
                return None
            found, account = row
            seen = aware(found.last_seen_at)
            if now - seen > SESSION_IDLE:
                return None
            db.expunge(account)
        if now - seen > SEEN_EVERY:
            with self.sessions.begin() as db:
                db.execute(
                    update(AccountSession).where(AccountSession.id_hash == id_hash).values(last_seen_at=now)
                )
        return account

    def end_session(self, session_id: str) -> None:
        with self.sessions.begin() as db:
            db.execute(delete(AccountSession).where(AccountSession.id_hash == credentials.sha256(session_id)))

    def devices(self, account_id: int, session_id: str) -> list[dict[str, Any]]:
        current = credentials.sha256(session_id)
        with self.sessions() as db:
            rows = db.scalars(
                select(AccountSession)
                .where(AccountSession.account_id == account_id)
                .order_by(AccountSession.last_seen_at.desc())
            ).all()
            return [
                {
                    "id": row.id_hash[:16],
                    "device": row.device,
                    "created_at": aware(row.created_at).isoformat(),
                    "last_seen_at": aware(row.last_seen_at).isoformat(),
                    "current": row.id_hash == current,
                }
                for row in rows
            ]

    def end_other_sessions(self, account_id: int, session_id: str) -> int:
        """Sign out every other browser of the account ("sign out everywhere else")."""
        with self.sessions.begin() as db:
            result = db.execute(
                delete(AccountSession).where(
                    AccountSession.account_id == account_id,
                    AccountSession.id_hash != credentials.sha256(session_id),
                )
            )
            return int(result.rowcount or 0)  # type: ignore[attr-defined]

    # --------------------------------------------------- password, recovery codes

    def set_password(self, account_id: int, password: str, current: str | None) -> None:
        """Set or change the password; changing one needs the current one."""
        password = credentials.check_password(password)
        with self.sessions.begin() as db:
            account = db.get(Account, account_id)
            if account is None:
                raise Unauthorized(BAD_CREDENTIALS)
            if account.password_hash is not None and not credentials.verify_password(
                account.password_hash, current or ""
            ):
                raise Forbidden(N_("the current password is wrong"))
            account.password_hash = credentials.hash_password(password)

    def new_recovery_codes(self, account_id: int) -> list[str]:
        with self.sessions.begin() as db:
            return self._replace_recovery_codes(db, account_id)

    def _replace_recovery_codes(self, db: Session, account_id: int) -> list[str]:
        """New codes replace every earlier one; only their hashes are kept."""
        db.execute(delete(RecoveryCode).where(RecoveryCode.account_id == account_id))
        codes = [credentials.new_recovery_code() for _ in range(credentials.RECOVERY_CODES)]
        for code in codes:
            db.add(RecoveryCode(account_id=account_id, code_hash=credentials.recovery_code_hash(code)))
        return codes

    def _use_recovery_code(self, account_id: int, code: str) -> bool:
        """Spend one unused code: the UPDATE's row count decides, so two requests with the
        same code cannot both use it."""
        with self.sessions.begin() as db:
            result = db.execute(
                update(RecoveryCode)
                .where(
                    RecoveryCode.account_id == account_id,
                    RecoveryCode.code_hash == credentials.recovery_code_hash(code),
                    RecoveryCode.used_at.is_(None),
                )
                .values(used_at=self.clock())
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def recovery_codes_left(self, account_id: int) -> int:
        with self.sessions() as db:
            rows = db.scalars(
                select(RecoveryCode.id).where(
                    RecoveryCode.account_id == account_id, RecoveryCode.used_at.is_(None)
                )
            ).all()
            return len(rows)

    # ------------------------------------------------------------ reading

    def summary(self, account_id: int) -> dict[str, Any]:
        """What ``GET /api/account`` answers."""
        with self.sessions() as db:
            account = db.get(Account, account_id)
            if account is None:
                raise Unauthorized(N_("you are not signed in"))
            passkeys = db.scalars(
                select(Passkey).where(Passkey.account_id == account_id).order_by(Passkey.id)
            ).all()
            return {
                "username": account.username,
                "created_at": aware(account.created_at).isoformat(),
                "passkeys": [
                    {
                        "id": p.id,
                        "name": p.name,
                        "created_at": aware(p.created_at).isoformat(),
                        "last_used_at": aware(p.last_used_at).isoformat() if p.last_used_at else None,
                    }
                    for p in passkeys
                ],
                "has_password": account.password_hash is not None,
                "preferences": preferences_of(account),
            }

    def set_preferences(self, account_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        with self.sessions.begin() as db:
            account = db.get(Account, account_id)
            if account is None:
                raise Unauthorized(N_("you are not signed in"))
            kept = preferences_of(account)
            kept.update({k: v for k, v in changes.items() if k in PREFERENCES and v in PREFERENCES[k]})
            account.preferences = json.dumps(kept, sort_keys=True)
            return kept


def preferences_of(account: Account) -> dict[str, Any]:
    try:
        stored = json.loads(account.preferences or "{}")
    except ValueError:
        stored = {}
    return {k: v for k, v in stored.items() if k in PREFERENCES and v in PREFERENCES[k]}
