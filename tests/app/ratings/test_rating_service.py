"""Ratings in the database (app/ratings/service.py, migration 0011): a finished rated
match updates both ratings with exactly the module's values, in the transaction that
finishes it. The accounts are rows made here, each holding its seats' token hash (as a
signed-in player's seats hold the account's holder): the ratings' foreign keys need them."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

import games
from app.config import Settings
from app.main import create_app
from app.manage import migrate
from app.matches.judge import start_position
from app.matches.lifecycle import build_match
from app.matches.service import MatchService
from app.models import Account, Base, Match, PlayerRating, RatingChange, Seat
from app.ratings.glicko2 import NEW, Rating, Result, rate_game
from app.ratings.rules import damped, damping
from app.ratings.service import apply_result, finish_hook
from app.services.clocks import TimeControl
from tests.app.conftest import database_url
from tests.app.helpers import BOBAIL_WIN

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
BLITZ = TimeControl("realtime", initial_seconds=300, increment_seconds=2)
POSTAL = TimeControl("correspondence", days=3)
ANN, BO, CY = "a" * 64, "b" * 64, "c" * 64
ACCOUNTS = {ANN: 1, BO: 2, CY: 3}


def after_one_move(game_name: str) -> str:
    """A set-up start: the position after the first legal move."""
    game = games.get(game_name)
    start = game.initial()
    return game.format_position(game.apply(start, game.legal_moves(start)[0]))


MORRIS_AFTER_ONE = after_one_move("morris")


class FakeClock:
    def __init__(self) -> None:
        self.moment = T0

    def __call__(self) -> datetime:
        return self.moment


@dataclass
class Site:
    sessions: sessionmaker[Session]
    matches: MatchService
    clock: FakeClock


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    url = database_url(tmp_path)
    migrate(url)
    clock = FakeClock()
    app = create_app(Settings(database_url=url, secret_key="t", rate_limits=False), clock=clock)
    with app.state.sessions.begin() as db:
        for holder, account_id in ACCOUNTS.items():
            name = f"player{account_id}"
            db.add(Account(id=account_id, username=name, username_key=name, holder=holder, user_handle=name))
    yield Site(app.state.sessions, app.state.matches, clock)
    app.state.engine.dispose()


def hand_made(
    db: Session,
    *,
    game: str = "morris",
    winner: str | None = "w",
    ply: int = 30,
    control: TimeControl | None = BLITZ,
    hashes: tuple[str, str] = (ANN, BO),
    computer: bool = False,
    options: dict[str, Any] | None = None,
    position: str | None = None,
    at: datetime = T0,
) -> Match:
    """A finished match row as the service would leave it (built by its build_match)."""
    engine = games.get(game)
    first, second = engine.sides
    seats = [Seat(side=first, name="One", token_hash=hashes[0])]
    if computer:
        seats.append(Seat(side=second, name="Computer 2", ai_level=2))
    else:
        seats.append(Seat(side=second, name="Two", token_hash=hashes[1]))
    initial = None if position is None else start_position(engine, position)
    chosen = dict(engine.new_match_options) if options is None else options
    match = build_match(
        engine, chosen, seats, status="playing", time_control=control, initial=initial, started=at
    )
    match.status, match.ply, match.winner, match.reason, match.finished_at = (
        "finished",
        ply,
        winner,
        "resignation",
        at,
    )
    db.add(match)
    db.flush()
    return match


def accounts(match: Match) -> dict[str, int]:
    return {seat.side: ACCOUNTS[seat.token_hash] for seat in match.seats if seat.token_hash}


def stored(db: Session, account: int, game: str = "morris", category: str = "realtime") -> PlayerRating:
    row = db.scalar(
        select(PlayerRating).where(
            PlayerRating.account_id == account, PlayerRating.game == game, PlayerRating.category == category
        )
    )
    assert row is not None
    return row


def values(row: PlayerRating) -> Rating:
    return Rating(row.rating, row.rd, row.volatility)


def count(db: Session, model: type[Base]) -> int:
    return db.scalar(select(func.count()).select_from(model)) or 0


# ------------------------------------------------------------------ schema


def test_migration_0011_creates_exactly_the_models_tables(site: Site) -> None:
    with site.sessions() as db:
        differences = compare_metadata(MigrationContext.configure(db.connection()), Base.metadata)
    ours = [d for d in differences if "rating" in repr(d)]
    assert ours == []


# ------------------------------------------------------------------ hand-made rows


def test_a_rated_game_stores_exactly_the_module_s_values(site: Site) -> None:
    with site.sessions.begin() as db:
        match = hand_made(db, winner="w")
        changes = apply_result(db, match, accounts(match))
    want_a, want_b = rate_game(NEW, NEW, Result.A_WINS, 0, 0)
    assert changes is not None
    assert changes["w"].rating == want_a and changes["b"].rating == want_b
    with site.sessions() as db:
        ann, bo = stored(db, 1), stored(db, 2)
        assert (values(ann), values(bo)) == (want_a, want_b)
        assert ann.games == bo.games == 1
        assert ann.last_game_at is not None and ann.last_game_at.replace(tzinfo=UTC) == T0
        rows = {row.side: row for row in db.scalars(select(RatingChange))}
        assert rows["w"].match_id == match.id and rows["w"].account_id == 1 and rows["w"].opponent_id == 2
        assert (rows["w"].before, rows["w"].after, rows["w"].delta) == (
            1500.0,
            want_a.rating,
            want_a.rating - 1500,
        )
        assert (rows["b"].before, rows["b"].after, rows["b"].delta) == (
            1500.0,
            want_b.rating,
            want_b.rating - 1500,
        )
        assert rows["w"].damping == rows["b"].damping == 1.0


def test_the_next_game_grows_each_rd_by_that_player_s_idle_days(site: Site) -> None:
    with site.sessions.begin() as db:
        first = hand_made(db, winner="w", hashes=(ANN, BO), at=T0)
        apply_result(db, first, accounts(first))
        later = T0 + timedelta(days=2)
        other = hand_made(db, winner=None, hashes=(CY, BO), at=later)  # Bo draws with Cy
        apply_result(db, other, accounts(other))
        last = T0 + timedelta(days=3, hours=12)
        third = hand_made(db, winner="b", hashes=(BO, ANN), at=last)  # sides swapped, Ann wins
        apply_result(db, third, accounts(third))
    ann_1, bo_1 = rate_game(NEW, NEW, Result.A_WINS, 0, 0)
    cy_2, bo_2 = rate_game(NEW, bo_1, Result.DRAW, 0, 2)
    bo_3, ann_3 = rate_game(bo_2, ann_1, Result.B_WINS, 1.5, 3.5)
    with site.sessions() as db:
        assert values(stored(db, 1)) == ann_3
        assert values(stored(db, 2)) == bo_3
        assert values(stored(db, 3)) == cy_2
        assert stored(db, 2).games == 3


def test_each_game_and_category_has_its_own_rating(site: Site) -> None:
    with site.sessions.begin() as db:
        for match in (
            hand_made(db, winner="w"),
            hand_made(db, winner="w", control=POSTAL, at=T0 + timedelta(days=1)),
            hand_made(db, game="bobail", winner="w", at=T0 + timedelta(days=2)),
        ):
            apply_result(db, match, accounts(match))
    first_win, _ = rate_game(NEW, NEW, Result.A_WINS, 0, 0)
    with site.sessions() as db:
        for game, category in (("morris", "realtime"), ("morris", "correspondence"), ("bobail", "realtime")):
            row = stored(db, 1, game, category)
            assert (values(row), row.games) == (first_win, 1)


@pytest.mark.parametrize(
    "unrated",
    [
        {"control": None},
        {"computer": True},
        {"ply": 1},
        {"ply": 0, "winner": None},
        {"hashes": (ANN, ANN)},
        {"position": MORRIS_AFTER_ONE},
        {"game": "bilsang", "options": {}},
        {"game": "bilsang", "options": {"line": True, "quiet": 1000}},
    ],
)
def test_games_that_are_never_rated_change_nothing(site: Site, unrated: dict[str, Any]) -> None:
    with site.sessions.begin() as db:
        match = hand_made(db, **unrated)
        seats = accounts(match)
        if unrated.get("computer"):
            seats = {"w": 1, "b": 2}  # even if someone claimed an account for the computer's seat
        assert apply_result(db, match, seats) is None
    with site.sessions() as db:
        assert count(db, PlayerRating) == count(db, RatingChange) == 0


def test_applying_twice_changes_nothing_more(site: Site) -> None:
    with site.sessions.begin() as db:
        match = hand_made(db)
        assert apply_result(db, match, accounts(match)) is not None
    with site.sessions.begin() as db:
        again = db.get(Match, match.id)
        assert again is not None
        assert apply_result(db, again, accounts(again)) is None
    with site.sessions() as db:
        assert stored(db, 1).games == 1
        assert count(db, RatingChange) == 2


def test_a_match_not_finished_or_without_both_accounts_is_refused(site: Site) -> None:
    with site.sessions.begin() as db:
        match = hand_made(db)
        with pytest.raises(ValueError):
            apply_result(db, match, {"w": 1})
        match.status = "playing"
        with pytest.raises(ValueError):
            apply_result(db, match, {"w": 1, "b": 2})


def test_a_pair_s_repeated_games_are_damped_in_a_sliding_day(site: Site) -> None:
    """Ann beats Bo at hours 0-4 (the 4th and 5th damped by 1/2 and 1/4), Cy at 4.5
    (another pair: whole), Bo again at 25 (three of their games in the day before:
    1/2) and at 30.5 (one: whole)."""
    schedule = [(ANN, BO, h) for h in (0, 1, 2, 3, 4)] + [(ANN, CY, 4.5), (ANN, BO, 25), (ANN, BO, 30.5)]
    factors = []
    with site.sessions.begin() as db:
        for white, black, hours in schedule:
            match = hand_made(db, hashes=(white, black), at=T0 + timedelta(hours=hours))
            changes = apply_result(db, match, accounts(match))
            assert changes is not None
            factors.append(changes["w"].damping)
    assert factors == [1, 1, 1, 0.5, 0.25, 1, 0.5, 1]
    assert factors[:5] == [damping(n) for n in range(5)]
    # The same chain through the pure functions.
    ratings: dict[str, Rating] = {ANN: NEW, BO: NEW, CY: NEW}
    last: dict[str, float] = {}
    for (white, black, hours), factor in zip(schedule, factors, strict=True):
        days = [(hours - last[p]) / 24 if p in last else 0 for p in (white, black)]
        after_w, after_b = rate_game(ratings[white], ratings[black], Result.A_WINS, days[0], days[1])
        ratings[white] = damped(ratings[white], after_w, factor)
        ratings[black] = damped(ratings[black], after_b, factor)
        last[white] = last[black] = hours
    with site.sessions() as db:
        for token, account in ACCOUNTS.items():
            assert close(values(stored(db, account)), ratings[token]), token


def close(got: Rating, want: Rating) -> bool:
    """Equal to 1e-12 relatively: the idle days are computed from stored times."""
    pairs = zip((got.rating, got.rd, got.volatility), (want.rating, want.rd, want.volatility), strict=True)
    return all(x == pytest.approx(y, rel=1e-12) for x, y in pairs)


# ------------------------------------------------------------------ in the finishing transaction


def rated(site: Site) -> None:
    def accounts_of(_db: Session, match: Match) -> Mapping[str, int] | None:
        if not all(seat.token_hash in ACCOUNTS for seat in match.seats):
            return None
        return accounts(match)

    site.matches.finish_hooks.append(finish_hook(accounts_of))


def started(site: Site, game: str = "morris", control: dict[str, Any] | None = None) -> str:
    control = control or {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 2}
    match_id = site.matches.create(game, "Ann", "first", ANN, time_control=control).match.id
    site.matches.join(match_id, "Bo", BO)
    return match_id


def move(site: Site, match_id: str, token: str, text: str | None = None) -> None:
    legal = site.matches.legal(match_id)
    site.matches.move(match_id, token, text or legal["moves"][0], legal["ply"])


def test_a_resignation_rates_the_game(site: Site) -> None:
    rated(site)
    match_id = started(site)
    move(site, match_id, ANN)
    move(site, match_id, BO)
    site.matches.resign(match_id, BO)
    ann, bo = rate_game(NEW, NEW, Result.A_WINS, 0, 0)
    with site.sessions() as db:
        assert (values(stored(db, 1)), values(stored(db, 2))) == (ann, bo)


def test_a_game_won_by_its_last_move_is_rated(site: Site) -> None:
    """The move path (plain connections) runs the finish hooks on the same transaction."""
    rated(site)
    match_id = started(site, game="bobail")
    move(site, match_id, ANN, BOBAIL_WIN[0])
    move(site, match_id, BO, BOBAIL_WIN[1])
    with site.sessions() as db:
        match = db.get(Match, match_id)
        assert match is not None and match.status == "finished" and match.winner == "w"
        ann, bo = rate_game(NEW, NEW, Result.A_WINS, 0, 0)
        assert (values(stored(db, 1, "bobail")), values(stored(db, 2, "bobail"))) == (ann, bo)


def test_a_loss_on_time_is_rated(site: Site) -> None:
    rated(site)
    match_id = started(site)
    move(site, match_id, ANN)
    move(site, match_id, BO)
    site.clock.moment += timedelta(minutes=10)
    assert site.matches.expire(match_id)
    with site.sessions() as db:
        match = db.get(Match, match_id)
        assert match is not None and match.reason == "timeout" and match.winner == "b"
        ann, bo = rate_game(NEW, NEW, Result.B_WINS, 0, 0)
        assert (values(stored(db, 1)), values(stored(db, 2))) == (ann, bo)


def test_an_aborted_game_changes_nothing(site: Site) -> None:
    rated(site)
    match_id = started(site)
    move(site, match_id, ANN)
    site.matches.abort(match_id, BO)
    with site.sessions() as db:
        assert count(db, PlayerRating) == count(db, RatingChange) == 0


def test_the_finish_and_the_ratings_commit_together_or_not_at_all(site: Site) -> None:
    """A failure after the ratings are written, still inside the finishing transaction,
    leaves the match playing and no rating: the two cannot be separated."""
    rated(site)

    def crash(_db: Session, _match: Match) -> None:
        raise RuntimeError("the process dies before the commit")

    site.matches.finish_hooks.append(crash)
    match_id = started(site)
    move(site, match_id, ANN)
    move(site, match_id, BO)
    with pytest.raises(RuntimeError):
        site.matches.resign(match_id, BO)
    with site.sessions() as db:
        match = db.get(Match, match_id)
        assert match is not None and match.status == "playing"
        assert count(db, PlayerRating) == count(db, RatingChange) == 0
    site.matches.finish_hooks.remove(crash)
    site.matches.resign(match_id, BO)
    with site.sessions() as db:
        assert count(db, RatingChange) == 2


def test_two_games_of_the_same_players_finishing_at_once_are_applied_one_after_the_other(site: Site) -> None:
    """The second finish waits for the first one's locks (the rows it created and
    updated) and then rates from its values: as if they had finished in turn."""
    with site.sessions.begin() as db:
        first = hand_made(db, winner="w", at=T0).id
        second = hand_made(db, winner="b", at=T0 + timedelta(minutes=1)).id
    holding, done = threading.Event(), threading.Event()
    release = threading.Event()

    def finish(match_id: str, hold: bool) -> None:
        with site.sessions.begin() as db:
            match = db.get(Match, match_id)
            assert match is not None
            apply_result(db, match, accounts(match))
            if hold:
                holding.set()
                assert release.wait(10)
        if not hold:
            done.set()

    one = threading.Thread(target=finish, args=(first, True))
    one.start()
    assert holding.wait(10)
    two = threading.Thread(target=finish, args=(second, False))
    two.start()
    assert not done.wait(0.5)  # blocked behind the first transaction
    release.set()
    one.join(10)
    two.join(10)
    assert done.is_set()
    ann_1, bo_1 = rate_game(NEW, NEW, Result.A_WINS, 0, 0)
    ann_2, bo_2 = rate_game(ann_1, bo_1, Result.B_WINS, 1 / 1440, 1 / 1440)
    with site.sessions() as db:
        assert close(values(stored(db, 1)), ann_2) and close(values(stored(db, 2)), bo_2)
        assert stored(db, 1).games == 2
