"""The Bashni ladder: start a run, play it, and the public leaderboard (pages and JSON)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app.models import LadderRun
from app.routes.api import READS
from app.schemas import (
    WRITE_REFUSALS,
    Leaderboard,
    RunCreate,
    RunCreated,
    RunPublic,
    refusals_with_computer_games,
)
from app.services.ladder import LAST_OPPONENT, PAGE_SIZE, LadderService, handicap
from app.web import ensure_player, name_for_form, page_context, remember_name, templates, viewer_hash

router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api/ladder", tags=["ladder"])


def ladder(request: Request) -> LadderService:
    return request.app.state.ladder


def run_public(run: LadderRun) -> dict[str, Any]:
    return {
        "id": run.id,
        "name": run.name,
        "status": run.status,
        "opponent": run.opponent,
        "wins": run.wins,
        "think_ms_won": run.think_ms_won,
        "score": run.score,
        "match_id": run.match_id,
    }


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


# ------------------------------------------------------------------ JSON API


@api_router.post(
    "/runs",
    responses=refusals_with_computer_games(*WRITE_REFUSALS),
    status_code=201,
    response_model=RunCreated,
)
def start_run(body: RunCreate, request: Request, response: Response) -> dict[str, Any]:
    run = ladder(request).start(body.name, ensure_player(request, response))
    return {"id": run.id, "opponent": run.opponent, "match_id": run.match_id}


@api_router.get("/runs/{run_id}", responses=READS, response_model=RunPublic)
def get_run(run_id: str, request: Request) -> dict[str, Any]:
    return run_public(ladder(request).get(run_id))


@api_router.get("/leaderboard", responses=READS, response_model=Leaderboard)
def leaderboard(
    request: Request,
    page: Annotated[int, Query(ge=1, le=100000)] = 1,
    accounts: Annotated[bool, Query(description="only runs that belong to accounts")] = False,
) -> dict[str, Any]:
    service = ladder(request)
    standings, total = service.leaderboard(page, accounts_only=accounts)
    return {
        "entries": [
            {
                "rank": s.rank,
                "name": s.run.name,
                "wins": s.run.wins,
                "avg_think_ms": s.run.think_ms_won // s.run.wins if s.run.wins else None,
                "score": s.run.score,
                "finished_at": _iso(s.run.finished_at),
                "run_id": s.run.id,
                "account": s.account,
            }
            for s in standings
        ],
        "page": page,
        "pages": max(1, -(-total // PAGE_SIZE)),
        "in_progress": [
            {
                "name": s.run.name,
                "opponent": s.run.opponent,
                "wins": s.run.wins,
                "avg_think_ms": s.run.think_ms_won // s.run.wins if s.run.wins else None,
                "score": s.run.score,
                "started_at": _iso(s.run.created_at),
                "run_id": s.run.id,
                "account": s.account,
            }
            for s in service.in_progress(accounts_only=accounts)
        ],
    }


# --------------------------------------------------------------------- pages


@router.get("/ladder", response_class=HTMLResponse)
def ladder_home(request: Request) -> Response:
    standings, _total = ladder(request).leaderboard(1)
    context = page_context(
        request,
        top=standings[:10],
        last_opponent=LAST_OPPONENT,
        handicaps=[(n, handicap(n)) for n in range(8, LAST_OPPONENT + 1)],
        my_name=name_for_form(request),  # "Start a run" works at the first click
    )
    return templates.TemplateResponse(request, "ladder.html", context)


@router.post("/ladder/runs")
def start_run_page(request: Request, name: Annotated[str, Form()]) -> Response:
    response = RedirectResponse("/ladder", status_code=303)
    owner = ensure_player(request, response)
    remember_name(response, name)  # before the commit: see pages.create_match
    run = ladder(request).start(name, owner)
    response.headers["location"] = f"/ladder/runs/{run.id}"
    return response


@router.get("/ladder/runs/{run_id}", response_class=HTMLResponse)
def run_page(request: Request, run_id: str) -> Response:
    service = ladder(request)
    run = service.get(run_id)
    if run.status == "playing" and run.match_id is not None:
        return RedirectResponse(f"/matches/{run.match_id}", status_code=303)
    context = page_context(
        request, run=run, games=service.games_of(run.id), mine=run.token_hash == viewer_hash(request)
    )
    return templates.TemplateResponse(request, "run.html", context)


@router.get("/ladder/leaderboard", response_class=HTMLResponse)
def leaderboard_page(
    request: Request, page: Annotated[int, Query(ge=1, le=100000)] = 1, accounts: bool = False
) -> Response:
    service = ladder(request)
    standings, total = service.leaderboard(page, accounts_only=accounts)
    best = service.best_of(viewer_hash(request))
    context = page_context(
        request,
        standings=standings,
        # The first page also shows the runs still going, so the board is never "empty"
        # while someone is climbing.
        going=service.in_progress(accounts_only=accounts) if page == 1 else [],
        viewer=viewer_hash(request),
        page=page,
        pages=max(1, -(-total // PAGE_SIZE)),
        best_id=best.id if best else None,
        accounts_only=accounts,
        last_opponent=LAST_OPPONENT,
    )
    return templates.TemplateResponse(request, "leaderboard.html", context)
