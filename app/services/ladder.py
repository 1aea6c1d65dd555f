"""The Bashni ladder: a run of games against opponents 1, 2, … 18, scored on think time.

The player is White in every game. A run moves on inside the transaction that
finishes its current game (a hook of MatchService), so a crash can never leave a
finished game without its consequence.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session, sessionmaker

import games
from app import fairness
from app.matches.lifecycle import build_match
from app.matches.model import computer_name
from app.matches.service import MatchService
from app.models import Account, LadderRun, Match, Seat
from app.services.errors import NotFound
from app.services.names import clean_name
from app.texts import N_

GAME = "bashni"
LAST_OPPONENT = 18
#: From this opponent on, the player starts with (opponent - HANDICAP_FROM + 1) fewer men.
HANDICAP_FROM = 8
PAGE_SIZE = 25
#: Runs in progress shown beside the leaderboard: the best few, not every open run.
IN_PROGRESS_SHOWN = 10


def handicap(opponent: int) -> int:
    return max(0, opponent - (HANDICAP_FROM - 1))


def score(wins: int, think_ms_won: int) -> int:
    """RULES.md: wins × 10000 + max(0, 9999 − T), T the average think time per won game
    in whole tenths of a second, rounded down; 0 wins score 0."""
    if wins <= 0:
        return 0
    tenths = think_ms_won // wins // 100
    return wins * 10000 + max(0, 9999 - tenths)


def _which(status: str, accounts_only: bool) -> list[ColumnElement[bool]]:
    """The filter of a list of runs: their status, and with ``accounts_only`` only the runs
    an account holds (the queries join Account on the run's token)."""
    found: list[ColumnElement[bool]] = [LadderRun.status == status]
    if accounts_only:
        found.append(Account.id.is_not(None))
    return found


def white_think_ms(match: Match) -> int:
    return sum(m.think_ms or 0 for m in match.moves if m.side == "w")


@dataclass
class Standing:
    rank: int
    run: LadderRun
    #: The username of the account holding the run; None for a guest's run.
    account: str | None = None


class LadderService:
    def __init__(self, sessions: sessionmaker[Session], matches: MatchService) -> None:
        self.sessions = sessions
        self.matches = matches
        matches.finish_hooks.append(self._on_finish)

    def start(self, name: str, token_hash: str) -> LadderRun:
        name = clean_name(name)
        run = LadderRun(
            id=secrets.token_urlsafe(9),
            name=name,
            token_hash=token_hash,
            status="playing",
            opponent=1,
            wins=0,
            think_ms_won=0,
            score=0,
        )
        with self.sessions.begin() as db:
            fairness.check_computer_games(db, token_hash)
            db.add(run)
            db.flush()
            run.match_id = self._new_game(db, run)
        return self.get(run.id)

    def get(self, run_id: str) -> LadderRun:
        with self.sessions() as db:
            run = db.get(LadderRun, run_id)
            if run is None:
                raise NotFound(N_("there is no ladder run %(id)s"), id=repr(run_id))
            return run

    def games_of(self, run_id: str) -> list[Match]:
        with self.sessions() as db:
            found = list(
                db.scalars(select(Match).where(Match.ladder_run_id == run_id).order_by(Match.created_at))
            )
            for match in found:
                _ = match.seats, match.moves
            return found

    def leaderboard(self, page: int = 1, accounts_only: bool = False) -> tuple[list[Standing], int]:
        """One page of finished runs, best score first (earlier finish breaks ties); each
        with its account's username when an account holds it (``accounts_only``: only those)."""
        page = max(1, page)
        finished = _which("finished", accounts_only)
        with self.sessions() as db:
            total = db.scalar(
                select(func.count())
                .select_from(LadderRun)
                .outerjoin(Account, Account.holder == LadderRun.token_hash)
                .where(*finished)
            )
            rows = db.execute(
                select(LadderRun, Account.username)
                .outerjoin(Account, Account.holder == LadderRun.token_hash)
                .where(*finished)
                .order_by(LadderRun.score.desc(), LadderRun.finished_at, LadderRun.id)
                .offset((page - 1) * PAGE_SIZE)
                .limit(PAGE_SIZE)
            ).all()
            first = (page - 1) * PAGE_SIZE + 1
            return [Standing(first + i, run, name) for i, (run, name) in enumerate(rows)], int(total or 0)

    def in_progress(self, accounts_only: bool = False) -> list[Standing]:
        """The runs still being played, best score first (the further opponent, then the
        earlier start, break ties), at most IN_PROGRESS_SHOWN: a run with a score is news
        before it ends, and the leaderboard must not look empty while one goes on.
        Their ``rank`` is only their place in this list; the ranking is of finished runs."""
        with self.sessions() as db:
            rows = db.execute(
                select(LadderRun, Account.username)
                .outerjoin(Account, Account.holder == LadderRun.token_hash)
                .where(*_which("playing", accounts_only))
                .order_by(
                    LadderRun.score.desc(), LadderRun.opponent.desc(), LadderRun.created_at, LadderRun.id
                )
                .limit(IN_PROGRESS_SHOWN)
            ).all()
            return [Standing(i + 1, run, name) for i, (run, name) in enumerate(rows)]

    def best_of(self, token_hash: str | None) -> LadderRun | None:
        """This browser's best finished run, to highlight on the leaderboard."""
        if token_hash is None:
            return None
        with self.sessions() as db:
            return db.scalars(
                select(LadderRun)
                .where(LadderRun.status == "finished", LadderRun.token_hash == token_hash)
                .order_by(LadderRun.score.desc(), LadderRun.finished_at)
                .limit(1)
            ).first()

    # -------------------------------------------------------------- inside

    def _new_game(self, db: Session, run: LadderRun) -> str:
        seats = [
            Seat(side="w", name=run.name, token_hash=run.token_hash),
            Seat(side="b", name=computer_name(run.opponent), ai_level=run.opponent),
        ]
        options = {"handicap": handicap(run.opponent)} if handicap(run.opponent) else {}
        match = build_match(games.get(GAME), options, seats, status="playing", started=self.matches.clock())
        match.ladder_run_id = run.id
        db.add(match)
        return match.id

    def _on_finish(self, db: Session, match: Match) -> None:
        if match.ladder_run_id is None:
            return
        run = db.get(LadderRun, match.ladder_run_id, with_for_update=True)
        if run is None or run.status != "playing" or run.match_id != match.id:
            return
        if match.winner == "w":
            run.wins += 1
            run.think_ms_won += white_think_ms(match)
            run.score = score(run.wins, run.think_ms_won)
            if run.opponent < LAST_OPPONENT:
                run.opponent += 1
                run.match_id = self._new_game(db, run)
                return
        self._end(run, self.matches.clock())

    def _end(self, run: LadderRun, moment: datetime) -> None:
        run.status = "finished"
        run.finished_at = moment
        run.score = score(run.wins, run.think_ms_won)
