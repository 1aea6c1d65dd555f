"""Your data: the export of everything the account holds, closing the account, and the
public profile. Personal data is exactly the rows that point to the account: the
account itself, its sessions, passkeys and recovery codes, its email address, and the
seats and ladder runs holding its ``holder`` hash."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session, joinedload, sessionmaker

import games
from app.accounts import credentials, limits
from app.accounts.service import AccountService, Unauthorized, aware, preferences_of
from app.challenges.service import challenges_export
from app.chat.data import chat_export, chat_forget
from app.db import read_session
from app.learn.puzzle_ratings import export as puzzle_export
from app.mail import personal as email_data
from app.matches.service import MatchService
from app.models import (
    Account,
    AccountSession,
    LadderRun,
    Match,
    Passkey,
    RecoveryCode,
    Seat,
    WebAuthnCeremony,
)
from app.services.errors import NotFound, ServiceError
from app.texts import N_

#: The fixed name a closed account's seats keep in the games that stay for the opponent.
GHOST_NAME = "deleted player"
#: Finished games whose result says nothing (nobody joined, or ended before both moved).
UNPLAYED = ("expired", "aborted")
RECENT = 10


def _iso(moment: datetime | None) -> str | None:
    return aware(moment).isoformat() if moment else None


def _held_matches(db: Session, holder: str) -> list[Match]:
    stmt = (
        select(Match)
        .join(Seat, Seat.match_id == Match.id)
        .where(Seat.token_hash == holder)
        .options(joinedload(Match.seats))
        .order_by(Match.created_at)
    )
    return list(db.scalars(stmt).unique())


def _result_for(match: Match, side: str) -> str | None:
    if match.status != "finished" or match.reason in UNPLAYED:
        return None
    if match.winner is None:
        return "drawn"
    return "won" if match.winner == side else "lost"


def usernames_for(db: Session, hashes: Iterable[str | None]) -> dict[str, str]:
    """holder hash -> username, for the hashes that belong to accounts (one query)."""
    wanted = {h for h in hashes if h}
    if not wanted:
        return {}
    rows = db.execute(select(Account.holder, Account.username).where(Account.holder.in_(wanted)))
    return {holder: name for holder, name in rows}


#: Entries the process keeps of ``AccountData.usernames`` (then it starts again).
NAME_CACHE = 10_000


class AccountData:
    def __init__(
        self, sessions: sessionmaker[Session], accounts: AccountService, matches: MatchService
    ) -> None:
        self.sessions = sessions
        self.accounts = accounts
        self.matches = matches
        self._names: dict[str, str | None] = {}

    def usernames(self, hashes: Iterable[str | None]) -> dict[str, str]:
        """hash -> username for the seats' hashes that are accounts' (the match page's marks).

        Kept in the process without going stale: a guest's token hash never becomes an
        account's (claiming moves the rows to a fresh ``holder`` instead), a username never
        changes, and a closed account's holder is left on no row.
        """
        wanted = {h for h in hashes if h}
        unknown = [h for h in wanted if h not in self._names]
        if unknown:
            with self.sessions() as db:
                found = usernames_for(db, unknown)
            if len(self._names) > NAME_CACHE:
                self._names.clear()
            for h in unknown:
                self._names[h] = found.get(h)
        return {h: name for h in wanted if (name := self._names.get(h))}

    # ------------------------------------------------------------ the profile

    def profile(self, username: str) -> dict[str, Any]:
        """``GET /api/users/{username}`` and the profile page: member since, games per
        game (played, won, drawn, lost), recent games, the best ladder run."""
        with read_session(self.sessions) as db:
            account = db.scalar(select(Account).where(Account.username_key == username.lower()[:40]))
            if account is None:
                raise NotFound(N_("there is no player named %(name)s"), name=username[:40])
            tally: dict[str, dict[str, int]] = {
                name: {"played": 0, "won": 0, "drawn": 0, "lost": 0} for name in games.names()
            }
            recent: list[dict[str, Any]] = []
            finished = [m for m in _held_matches(db, account.holder) if m.status == "finished"]
            finished.sort(key=lambda m: aware(m.finished_at or m.updated_at), reverse=True)
            owners = usernames_for(db, [s.token_hash for m in finished for s in m.seats])
            for match in finished:
                seat = next(s for s in match.seats if s.token_hash == account.holder)
                result = _result_for(match, seat.side)
                if result is None or match.game not in tally:
                    continue
                tally[match.game]["played"] += 1
                tally[match.game][result] += 1
                if len(recent) < RECENT:
                    others = [s for s in match.seats if s.side != seat.side]
                    recent.append(
                        {
                            "id": match.id,
                            "game": match.game,
                            "result": result,
                            "reason": match.reason,
                            "finished_at": _iso(match.finished_at),
                            "opponent": others[0] if others else None,
                            "opponent_account": owners.get(others[0].token_hash or "") if others else None,
                        }
                    )
            best = db.scalar(
                select(LadderRun)
                .where(LadderRun.token_hash == account.holder, LadderRun.status == "finished")
                .order_by(LadderRun.score.desc(), LadderRun.finished_at)
                .limit(1)
            )
            return {
                "username": account.username,
                "created_at": _iso(account.created_at),
                "games": tally,
                "recent": recent,
                "best_run": best,
            }

    # ------------------------------------------------------------ the export

    def export(self, account_id: int) -> dict[str, Any]:
        """Everything stored about the account, as JSON (``GET /api/account/export``)."""
        with self.sessions() as db:
            account = db.get(Account, account_id)
            if account is None:
                raise Unauthorized(N_("you are not signed in"))
            sessions = db.scalars(select(AccountSession).where(AccountSession.account_id == account_id))
            passkeys = db.scalars(select(Passkey).where(Passkey.account_id == account_id))
            codes = db.scalars(select(RecoveryCode).where(RecoveryCode.account_id == account_id)).all()
            runs = db.scalars(
                select(LadderRun).where(LadderRun.token_hash == account.holder).order_by(LadderRun.created_at)
            )
            seats = []
            for match in _held_matches(db, account.holder):
                for seat in match.seats:
                    if seat.token_hash != account.holder:
                        continue
                    seats.append(
                        {
                            "match_id": match.id,
                            "game": match.game,
                            "side": seat.side,
                            "name": seat.name,
                            "joined_at": _iso(seat.joined_at),
                            "status": match.status,
                            "result": _result_for(match, seat.side),
                            "reason": match.reason,
                            "initial_position": match.initial_position,
                            "moves": match.notations.split("\n") if match.notations else [],
                            "players": [{"side": s.side, "name": s.name} for s in match.seats],
                        }
                    )
            return {
                "account": {
                    "username": account.username,
                    "created_at": _iso(account.created_at),
                    "has_password": account.password_hash is not None,
                    "preferences": preferences_of(account),
                    "recovery_codes": {"total": len(codes), "unused": sum(c.used_at is None for c in codes)},
                },
                # The address (issue 32): kept whether or not the site sends email now.
                "email": email_data.export(db, account_id),
                "sessions": [
                    {
                        "device": s.device,
                        "created_at": _iso(s.created_at),
                        "last_seen_at": _iso(s.last_seen_at),
                    }
                    for s in sessions
                ],
                "passkeys": [
                    {"name": p.name, "created_at": _iso(p.created_at), "last_used_at": _iso(p.last_used_at)}
                    for p in passkeys
                ],
                "seats": seats,
                "ladder_runs": [
                    {
                        "id": r.id,
                        "name": r.name,
                        "status": r.status,
                        "wins": r.wins,
                        "score": r.score,
                        "think_ms_won": r.think_ms_won,
                        "created_at": _iso(r.created_at),
                        "finished_at": _iso(r.finished_at),
                    }
                    for r in runs
                ],
                # Imported records and reviews are not held by anyone (shared by link).
                "records": [],
                **chat_export(db, account),
                # Challenges made and received (issue 32); they go with the account (CASCADE).
                "challenges": challenges_export(db, account_id),
                # Puzzle ratings and rated attempts (issue 29); they go with the account (CASCADE).
                **puzzle_export(db, account_id),
            }

    # ------------------------------------------------------------ closing

    def close(self, account_id: int) -> None:
        """Delete the account's personal data now (the caller has re-authenticated).

        Games being played are resigned first (through the match service, so the
        opponent's page hears of it). Then, in one transaction: games with another person
        in them stay for that person (one still going is left to its clock), the account's
        seats renamed to the ghost name and holding nothing; games with nobody else (the
        computer, an empty seat, the ladder) are deleted with their moves; the ladder runs
        go (and so the leaderboard entries); the account and its sessions, passkeys and
        recovery codes go, and its chat: lines, blocks, mutes, reports it filed or that
        name it, its standing (app/chat/data.py).
        """
        with self.sessions() as db:
            account = db.get(Account, account_id)
            if account is None:
                raise Unauthorized(N_("you are not signed in"))
            holder, key, username = account.holder, account.username_key, account.username
            playing = [m.id for m in _held_matches(db, holder) if m.status == "playing"]
        for match_id in playing:
            # Finished meanwhile (time, the opponent): it is ghosted below all the same.
            with contextlib.suppress(ServiceError):
                self.matches.resign(match_id, holder)
        with self.sessions.begin() as db:
            for match in _held_matches(db, holder):
                others = [s for s in match.seats if s.token_hash != holder]
                someone_else = any(s.ai_level is None and s.token_hash is not None for s in others)
                if someone_else:
                    for seat in match.seats:
                        if seat.token_hash == holder:
                            seat.name, seat.token_hash, seat.moved_from_hash = GHOST_NAME, None, None
                else:
                    db.delete(match)
            db.execute(update(Seat).where(Seat.moved_from_hash == holder).values(moved_from_hash=None))
            db.execute(delete(LadderRun).where(LadderRun.token_hash == holder))
            db.execute(
                delete(WebAuthnCeremony).where(
                    or_(WebAuthnCeremony.account_id == account_id, WebAuthnCeremony.username == username)
                )
            )
            chat_forget(db, account_id, holder)
            email_data.forget(db, account_id)
            for table in (AccountSession, Passkey, RecoveryCode):
                db.execute(delete(table).where(table.account_id == account_id))
            limits.forget(db, [limits.user_key(key)])
            db.execute(delete(Account).where(Account.id == account_id))

    def check_password(self, account_id: int, password: str) -> None:
        """Re-authentication before closing: the account's password (``Unauthorized`` if wrong)."""
        with self.sessions() as db:
            account = db.get(Account, account_id)
            stored = account.password_hash if account else None
        if not credentials.verify_password(stored, password or ""):
            raise Unauthorized(N_("the password is wrong"))
