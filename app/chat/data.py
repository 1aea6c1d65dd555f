"""The chat's part of "your data" (issue 30's export and closing, app/accounts/data.py).

Exported: the lines the account said (still kept: a room keeps its last 100), the
accounts it blocked, the matches it muted, the reports it filed (not who reported it:
that would expose the reporter), and its standing (moderator, timed out, muted).
Closing deletes all of it, and the reports that name it; the moderators' log keeps its
entries with the names as text (who did what stays known) but loses the link.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, exists, or_, select, update
from sqlalchemy.orm import Session

from app.accounts.service import aware
from app.chat.models import ChatBlock, ChatLine, ChatMute, ChatReport, ChatSanction, ChatSend, Moderator
from app.models import Account


def _iso(moment: Any) -> str | None:
    return aware(moment).isoformat() if moment else None


def chat_export(db: Session, account: Account) -> dict[str, Any]:
    said = db.scalars(
        select(ChatLine)
        .where(or_(ChatLine.account_id == account.id, ChatLine.sender == account.holder))
        .order_by(ChatLine.id)
    )
    blocked = db.execute(
        select(Account.username, ChatBlock.created_at)
        .join(ChatBlock, ChatBlock.blocked_id == Account.id)
        .where(ChatBlock.blocker == account.holder)
        .order_by(Account.username_key)
    )
    muted = db.scalars(select(ChatMute.match_id).where(ChatMute.viewer == account.holder))
    filed = db.execute(
        select(ChatReport, Account.username)
        .join(Account, Account.id == ChatReport.reported_id)
        .where(ChatReport.reporter == account.holder)
        .order_by(ChatReport.id)
    )
    sanction = db.get(ChatSanction, account.id)
    return {
        "chat": {
            "lines": [
                {
                    "match_id": line.match_id,
                    "room": line.room,
                    "side": line.side,
                    "phrase": line.phrase,
                    "text": line.text,
                    "shown_to_others": not line.hidden,
                    "at": _iso(line.created_at),
                }
                for line in said
            ],
            "blocked": [{"username": name, "at": _iso(at)} for name, at in blocked],
            "muted_matches": list(muted),
            "reports_filed": [
                {
                    "username": name,
                    "reason": report.reason,
                    "line_id": report.line_id,
                    "status": report.status,
                    "at": _iso(report.created_at),
                }
                for report, name in filed
            ],
            "moderator": db.get(Moderator, account.id) is not None,
            "timed_out_until": _iso(sanction.timeout_until) if sanction else None,
            "muted_by_moderator": bool(sanction and sanction.muted),
        }
    }


def chat_forget(db: Session, account_id: int, holder: str) -> None:
    """Everything of the account's in the chat's tables (called while closing it; the
    foreign keys' CASCADE would take most of it, but SQLite enforces them only with the
    pragma, and rows keyed by the holder hash have no key to cascade from)."""
    db.execute(delete(ChatLine).where(or_(ChatLine.account_id == account_id, ChatLine.sender == holder)))
    db.execute(delete(ChatBlock).where(or_(ChatBlock.blocker == holder, ChatBlock.blocked_id == account_id)))
    db.execute(delete(ChatMute).where(ChatMute.viewer == holder))
    db.execute(delete(ChatSend).where(ChatSend.sender == holder))
    db.execute(
        delete(ChatReport).where(or_(ChatReport.reporter == holder, ChatReport.reported_id == account_id))
    )
    db.execute(delete(ChatSanction).where(ChatSanction.account_id == account_id))
    db.execute(delete(Moderator).where(Moderator.account_id == account_id))


def chat_claim(db: Session, holder: str, guest_hash: str) -> None:
    """Signing up or in (``accounts.service.claim``): what the browser's guest token held
    in the chat becomes the account's — its lines (so the export has them), the reports it
    filed, its recent sends (so signing in does not reset the flood and repeat limits),
    its blocks and mutes (one the account already has is kept once)."""
    db.execute(update(ChatLine).where(ChatLine.sender == guest_hash).values(sender=holder))
    db.execute(update(ChatReport).where(ChatReport.reporter == guest_hash).values(reporter=holder))
    db.execute(update(ChatSend).where(ChatSend.sender == guest_hash).values(sender=holder))
    mine = ChatBlock.__table__.alias("mine")
    db.execute(
        delete(ChatBlock).where(
            ChatBlock.blocker == guest_hash,
            exists().where(mine.c.blocker == holder, mine.c.blocked_id == ChatBlock.blocked_id),
        )
    )
    db.execute(update(ChatBlock).where(ChatBlock.blocker == guest_hash).values(blocker=holder))
    muted = ChatMute.__table__.alias("muted")
    db.execute(
        delete(ChatMute).where(
            ChatMute.viewer == guest_hash,
            exists().where(muted.c.viewer == holder, muted.c.match_id == ChatMute.match_id),
        )
    )
    db.execute(update(ChatMute).where(ChatMute.viewer == guest_hash).values(viewer=holder))
