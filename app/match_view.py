"""The match page's context: the board, the move list, the click tree, the clocks and
the words a screen reader says, for one viewer of one match (the page, its live part,
and the spectators' shared render in app/routes/events.py)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import segno
from fastapi import Request

import games
from app import boards, i18n, texts
from app.learn.turning_point import offer_url
from app.matches.clock import clock_state
from app.matches.model import Viewed, other_side, seat_of
from app.models import Match
from app.ratings.pages import seat_ratings, signed
from app.services import clock_words, describe
from app.services.clicks import click_tree, follow, tree_points
from app.services.records import line_of_match
from app.services.tokens import CONTINUE_LIFETIME_SECONDS, continue_code, same
from app.web import absolute_url, language, page_context, settings, viewer_hash


def continue_path(request: Request, match: Match, seat_id: int, holder_hash: str | None) -> str:
    # Expiry rounded up to the hour, so the link shown stays the same for a while.
    now = request.app.state.matches.clock().timestamp()
    expires = int(math.ceil((now + CONTINUE_LIFETIME_SECONDS) / 3600) * 3600)
    code = continue_code(settings(request).secret_key, seat_id, holder_hash, expires)
    return f"/matches/{match.id}/continue/{seat_id}/{expires}/{code}"


def match_context(
    request: Request, viewed: Viewed, taps: tuple[str, ...] = (), **extra: Any
) -> dict[str, Any]:
    match = viewed.match
    game = games.get(match.game)
    viewer = viewer_hash(request)
    seat = seat_of(match, viewer)
    positions = viewed.positions()
    notations = viewed.notations
    at = extra.pop("at", None)
    # Browsing: an earlier position is shown while the match goes on (or after it ended).
    replay = at is not None and 0 <= at < len(positions) - 1
    shown_ply = at if replay else len(positions) - 1
    state = positions[shown_ply]
    before = positions[shown_ply - 1] if shown_ply > 0 else None
    last_notation = notations[shown_ply - 1] if shown_ply > 0 else None
    my_turn = (
        not replay and seat is not None and match.status == "playing" and game.to_move(state) == seat.side
    )
    targets: frozenset[str] = frozenset()
    tree: dict[str, Any] | None = None
    if my_turn:
        targets = follow(game, state, taps).next_points
        tree = boards.annotate_tree(game.name, state, click_tree(game, state))
    view = boards.BoardView(
        game=game.name,
        state=state,
        targets=targets,
        chosen=taps if my_turn else (),
        last=boards.last_move_points(game, before, last_notation),
        flipped=seat is not None and seat.side == game.sides[1],
        position_text=game.format_position(state),
        ended=not replay and match.status == "finished",
        extra={"cells": frozenset(tree_points(tree)) if tree else frozenset()},
    )
    translation = i18n.translations(language(request))
    gettext = translation.gettext
    names = {s.side: texts.seat_name(match.game, s, gettext) for s in match.seats}
    # Seats held by accounts: their names are links with a mark (issue 30).
    holders = request.app.state.account_data.usernames(s.token_hash for s in match.seats)
    extra.setdefault(
        "account_names", {s.side: holders[s.token_hash] for s in match.seats if s.token_hash in holders}
    )
    # A rated match's ratings ("1540?") and, once rated, each side's change (issue 31).
    extra.setdefault("seat_ratings", seat_ratings(request.app.state.sessions, match) if match.rated else {})
    extra.setdefault(
        "rating_deltas", {side: signed(c["delta"]) for side, c in (match.rating_changes or {}).items()}
    )
    moment = request.app.state.matches.clock()
    extra.setdefault("timing", clock_state(match, game.to_move(positions[-1]), moment))
    # The words static/clocks.js speaks as the viewer's own clock runs low.
    low_time_said = (
        clock_words.low_time_said(translation.gettext, translation.ngettext, extra["timing"]["time_control"])
        if seat is not None and match.status == "playing"
        else ""
    )
    if match.ladder_run_id is not None:
        extra["run"] = request.app.state.ladder.get(match.ladder_run_id)
        extra["clock"] = think_clock(match, moment, viewed.white_think_ms)
    continue_link = None
    if seat is not None:
        continue_link = absolute_url(request, continue_path(request, match, seat.id, seat.token_hash))
    # The loser's turning point (issue 29): looked up only when the page's record links
    # are drawn, and only for the player who lost (the review panel is on another page).
    lost = seat is not None and match.winner is not None and match.winner != seat.side
    # The whole line is read then (the view read only the moves around the shown ply).
    matches = request.app.state.matches
    extra.setdefault(
        "turning_url", lambda: offer_url(request, line_of_match(matches.get(match.id))) if lost else None
    )
    seat_moved = seat is None and any(same(s.moved_from_hash, viewer) for s in match.seats)
    invite_url = absolute_url(request, f"/matches/{match.id}")
    against_computer = any(s.ai_level is not None for s in match.seats)
    # The top of the board is the viewer's opponent; spectators see the first side at the bottom.
    bottom = seat.side if seat is not None else game.sides[0]
    context = page_context(
        request,
        match=match,
        game=game,
        seat=seat,
        view=view,
        names=names,
        players_title=" – ".join(names.get(side, "…") for side in game.sides),
        my_turn=my_turn,
        to_move=game.to_move(state),
        replay=replay,
        shown_ply=shown_ply,
        counters=boards.counters(game.name, state),
        spectators=request.app.state.broker.spectators(match.id),
        invite_url=invite_url,
        invite_qr=invite_qr(invite_url) if match.status == "waiting" and seat is not None else "",
        continue_link=continue_link,
        seat_moved=seat_moved,
        against_computer=against_computer,
        sides_top_bottom=(other_side(game, bottom), bottom),
        board=boards.board_data(view),
        click_tree=json.dumps(tree, separators=(",", ":")) if tree else "",
        step_hints=boards.STEP_HINTS,
        turn_hints=boards.bilsang_hints(state) if my_turn and game.name == "bilsang" else [],
        move_rows=boards.MoveRows(game, notations),
        last_steps=json.dumps(boards.move_steps(game, before, last_notation)),
        last_kind=boards.move_kind(game.name, before, state, last_notation),
        low_time_said=low_time_said,
        # Who made the last move (a takeback is asked for one's own last move).
        last_mover=viewed.moves[match.ply].side if match.ply else None,
        **extra,
    )
    # Screen-reader words and the keyboard cursor's map (app/services/describe.py).
    context.update(
        describe.page_words(
            tr=context["_"],
            game=game,
            match=match,
            board=context["board"],
            positions=positions,
            last_move=viewed.moves.get(shown_ply),
            shown_ply=shown_ply,
            viewer_side=seat.side if seat is not None else None,
            my_turn=my_turn,
        ),
        legal_moves=sorted(game.format_move(m) for m in game.legal_moves(state)) if my_turn else [],
    )
    return context


def invite_qr(url: str) -> str:
    """The invite link as an inline SVG QR code, drawn by the server (no script, no image request)."""
    code = segno.make(url, error="m")
    return str(
        code.svg_inline(scale=1, border=2, svgclass="qr", lineclass="qr-line", omitsize=True, dark="#000")
    )


def think_clock(match: Match, moment: datetime, done: int) -> dict[str, Any]:
    """White's think time in this game, in ms: what is done (``done``, the moves' sum), and
    the running turn."""
    running = 0
    game = games.get(match.game)
    white_to_move = game.to_move(game.parse_position(match.position)) == "w"
    if match.status == "playing" and white_to_move and match.turn_started_at is not None:
        started = match.turn_started_at
        if started.tzinfo is None:
            started = started.replace(tzinfo=UTC)
        running = max(0, int((moment - started).total_seconds() * 1000))
    return {
        "done_ms": done,
        "turn_ms": running,
        "running": running > 0 or (white_to_move and match.status == "playing"),
    }
