"""Typed moves and blind-mode commands on the match page (partials/typed_move.html).

The browser sends what was typed; a command is answered here in words, and a move is
checked and put in canonical notation so the page can play it through the JSON move
route like any other client. Every answer is in the viewer's language.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from pydantic import BaseModel

import games
from app import boards
from app.match_view import think_clock
from app.matches.clock import clock_state
from app.matches.model import Viewed, seat_of
from app.routes.api import WRITES as ERRORS
from app.routes.pages import service
from app.services import clock_words, describe, typed_commands
from app.texts import N_
from app.web import page_context, viewer_hash

router = APIRouter(tags=["match page"], responses=ERRORS)


class TypedAnswer(BaseModel):
    """Either ``answer`` (words to show and speak) or ``move`` (canonical notation to play)."""

    answer: str | None = None
    move: str | None = None


def clock_answer(
    request: Request, viewed: Viewed, tr: describe.Tr, ngettext: clock_words.Ngettext, to_move: str
) -> str:
    """What the "clocks" command says: both sides' time left, as the server measures it now
    (the page's figures are the same ones counted down); a ladder game says White's think
    time; a match without clocks says so (typed_commands.answer)."""
    match = viewed.match
    timed = clock_words.clocks_answer(
        tr=tr,
        ngettext=ngettext,
        game=games.get(match.game),
        timing=clock_state(match, to_move, service(request).clock(), away=False),
        status=match.status,
        to_move=to_move,
        names={s.side: s.name for s in match.seats},
        computer={s.side for s in match.seats if s.ai_level is not None},
    )
    if timed is not None:
        return timed
    if match.ladder_run_id is None:
        return ""
    clock = think_clock(match, request.app.state.matches.clock(), viewed.white_think_ms)
    seconds = (clock["done_ms"] + clock["turn_ms"]) / 1000
    return tr(N_("White's think time in this game: %(seconds).1f seconds.")) % {"seconds": seconds}


@router.post(
    "/matches/{match_id}/typed",
    response_model=TypedAnswer,
    response_model_exclude_none=True,
    summary="Answer a typed command, or check a typed move",
)
def typed(
    request: Request,
    match_id: str,
    text: Annotated[str, Form(max_length=200)],
    ply: Annotated[int, Form()] = -1,
) -> dict[str, Any]:
    viewed = service(request).view(match_id)
    match = viewed.match
    context = page_context(request)
    tr = context["_"]
    game = games.get(match.game)
    positions = viewed.positions()
    state = positions[-1]
    seat = seat_of(match, viewer_hash(request))
    my_turn = seat is not None and match.status == "playing" and game.to_move(state) == seat.side
    command = typed_commands.parse_command(text)
    if command is None:
        if seat is None:
            return {"answer": tr(N_("Only a player of this match can move."))}
        if match.status != "playing":
            return {"answer": tr(N_("The game is not being played now."))}
        if not my_turn:
            return {"answer": tr(N_("It is not your move."))}
        if ply not in (-1, match.ply):
            return {"answer": tr(N_("The position changed; please look again."))}
        try:
            # Every game's notation is lower case; phones and screen readers like capitals.
            move = game.parse_move(state, text.strip().lower())
        except games.GameError:
            return {
                "answer": tr(N_("%(text)s is not a legal move here; type “moves” to hear them."))
                % {"text": text}
            }
        return {"move": game.format_move(move)}
    view = boards.BoardView(game=game.name, state=state, flipped=False)
    words = describe.page_words(
        tr=tr,
        game=game,
        match=match,
        board=boards.board_data(view),
        positions=positions,
        last_move=viewed.moves.get(len(positions) - 1),
        shown_ply=len(positions) - 1,
        viewer_side=seat.side if seat is not None else None,
        my_turn=my_turn,
    )
    names = {s.side: s.name for s in match.seats}
    return {
        "answer": typed_commands.answer(
            command[0],
            command[1],
            tr=tr,
            game=game,
            board=boards.board_data(view),
            viewer_side=seat.side if seat is not None else None,
            to_move=game.to_move(state),
            status=match.status,
            last=words["said_last"],
            legal=sorted(game.format_move(m) for m in game.legal_moves(state)) if my_turn else [],
            clocks=clock_answer(request, viewed, tr, context["ngettext"], game.to_move(state)),
            names=names,
            computer={s.side for s in match.seats if s.ai_level is not None},
        )
    }
