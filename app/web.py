"""Request helpers shared by the page, API and event routes."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from babel.dates import format_date, format_time
from babel.numbers import format_decimal
from fastapi import Request, Response
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context

import games
from app import board_markup, fragments, i18n, template_env, texts
from app.accounts.identity import signed_in
from app.config import ROOT, Settings
from app.services import clocks
from app.services.tokens import PLAYER_COOKIE, new_token, token_hash
from app.static_files import static_url

COOKIE_MAX_AGE = 400 * 24 * 3600  # browsers cap cookie lifetimes near 400 days


def settings(request: Request) -> Settings:
    return request.app.state.settings


def player_token(request: Request) -> str | None:
    token = request.cookies.get(PLAYER_COOKIE)
    if token is None or not 20 <= len(token) <= 100:
        return None
    return token


def viewer_hash(request: Request) -> str | None:
    """Who this request is for the seats and runs: the signed-in account's holder hash,
    else the browser's guest token hash (issue 30; app/accounts/identity.py)."""
    account = signed_in(request)
    if account is not None:
        return account.holder
    token = player_token(request)
    return token_hash(token) if token else None


def ensure_player(request: Request, response: Response) -> str:
    """This browser's player token hash, giving it a new token cookie if it has none;
    signed in, the account's holder hash (a seat created now belongs to the account)."""
    account = signed_in(request)
    if account is not None:
        return account.holder
    token = player_token(request)
    if token is None:
        token = new_token()
        set_player_cookie(request, response, token)
        # Later code in this request must see the new token too.
        request.state.new_player_token = token
    return token_hash(token)


def set_player_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        PLAYER_COOKIE,
        token,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=settings(request).secure_cookies,
        path="/",
    )


def language(request: Request) -> str:
    return i18n.negotiate(request.cookies.get(i18n.LANG_COOKIE), request.headers.get("accept-language"))


def localized(request: Request, error: object) -> str:
    """A refusal as a sentence in this request's language (the JSON API keeps ``str(error)``)."""
    return texts.localize(error, i18n.translations(language(request)).gettext)


# Numbers and dates in the reader's language (Babel): "20.9 s" in English, "20,9 s" in Spanish.


@pass_context
def tenths(context: Any, ms: float) -> str:
    """Milliseconds as seconds with one decimal, without grouping: "20.9" or "20,9"."""
    return format_decimal(ms / 1000, format="0.0", locale=context.get("lang", i18n.DEFAULT))


@pass_context
def seconds(context: Any, ms: float | None) -> str:
    """Like ``tenths`` with the unit after a no-break space; a dash when there is no time."""
    return "—" if ms is None else tenths(context, ms) + "\u00a0s"


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


@pass_context
def day(context: Any, moment: datetime | None) -> str:
    if moment is None:
        return ""
    return format_date(_aware(moment), format="medium", locale=context.get("lang", i18n.DEFAULT))


@pass_context
def moment_text(context: Any, moment: datetime | None) -> str:
    if moment is None:
        return ""
    # Date and 24-hour time (UTC) in the order and words of the language.
    lang = context.get("lang", i18n.DEFAULT)
    at = _aware(moment)
    return (
        format_date(at, format="medium", locale=lang)
        + ", "
        + format_time(at, "HH:mm", tzinfo=UTC, locale=lang)
        + " UTC"
    )


@pass_context
def seat_name(context: Any, seat: Any, game_name: str) -> str:
    """A seat's name for people: a computer seat by its level, in the page's language."""
    return texts.seat_name(game_name, seat, context["_"])


templates = Jinja2Templates(env=template_env.environment(str(ROOT / "templates")))
# Templates are read once per process, like the static files (``make run`` does not reload
# either): with Jinja's default, every render looked up the modification time of each
# template it used, a file system call per include, 8 % of the server's time in a page move.
templates.env.auto_reload = False
templates.env.globals["LANGUAGES"] = i18n.LANGUAGES
templates.env.globals["static_url"] = static_url
templates.env.globals["computer_level_name"] = texts.computer_name
fragments.register(templates.env.globals)
board_markup.register(templates.env.globals)


@pass_context
def rule_figure(context: Any, key: str) -> Any:
    """A rules page's figure (app/rule_figures.py) in the page's language."""
    from app.rule_figures import figure_html  # it renders board templates: after they exist

    return figure_html(key, context["_"])


templates.env.globals["rule_figure"] = rule_figure
templates.env.globals["side_label"] = texts.side_label
templates.env.globals["reason_text"] = texts.reason_text
templates.env.filters["title_of"] = lambda name: games.get(name).title
templates.env.globals["time_control_of"] = clocks.loads
templates.env.globals["clock_text"] = clocks.clock_text
templates.env.globals["LOW_TIME_MS"] = clocks.LOW_TIME_MS
templates.env.globals["ms_between"] = clocks.ms_between
templates.env.filters["seconds"] = seconds
templates.env.filters["tenths"] = tenths
templates.env.filters["day"] = day
templates.env.filters["moment"] = moment_text
templates.env.filters["seat_name"] = seat_name


MATCH_PAGE = re.compile(r"/matches/[^/]+")


def badge_pushed(request: Request) -> bool:
    """Whether this page's header badge comes through the match page's event stream
    (app/routes/stream_notes.py) rather than its own poll: on a match page, and in the
    header that page fetches again (``/whoami``, which htmx tells where it is asked from)."""
    path = request.url.path
    if path == "/whoami":
        path = urlsplit(request.headers.get("hx-current-url", "")).path
    return MATCH_PAGE.fullmatch(path) is not None


templates.env.globals["badge_pushed"] = badge_pushed


def server_now_ms(request: Request) -> int:
    """The server's time as the page is rendered, in ms since the epoch, by the clock the
    match clocks' ``data-at`` is read on: static/clocks.js counts from it how long a view
    it is shown has been on its way (a view rendered once and sent later, on reconnection)."""
    clock = getattr(getattr(request.app.state, "matches", None), "clock", None)
    moment = clock() if clock is not None else datetime.now(UTC)
    return int(moment.timestamp() * 1000)


templates.env.globals["server_now_ms"] = server_now_ms


def page_context(request: Request, **extra: Any) -> dict[str, Any]:
    lang = language(request)
    translation = i18n.translations(lang)
    context: dict[str, Any] = {
        "request": request,
        "lang": lang,
        "_": translation.gettext,
        "ngettext": translation.ngettext,
        "my_name": remembered_name(request),
        # Called by the header only, so partials cost no query.
        "my_move_count": lambda: request.app.state.matches.my_move_count(viewer_hash(request)),
        # The header's "who you are": the signed-in account or None (a guest).
        "me": lambda: signed_in(request),
    }
    context.update(extra)
    return context


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


NAME_COOKIE = "tablero_name"


def remember_name(response: Response, name: str) -> None:
    """Keep the last display name so the next form comes filled in (one-click joins).

    Percent-encoded: a header holds only Latin-1, and names are any Unicode. Call it
    before the change is committed, so a failure here commits nothing.
    """
    value = quote(" ".join(name.split())[:32], safe="")
    response.set_cookie(NAME_COOKIE, value, max_age=COOKIE_MAX_AGE, samesite="lax", httponly=True)


def remembered_name(request: Request) -> str:
    return unquote(request.cookies.get(NAME_COOKIE) or "", errors="replace")[:32]


def name_for_form(request: Request) -> str:
    """The name a form that starts a match comes filled in with: the last one used here,
    else the signed-in account's username, else "Guest" in the page's language. A form
    reached without ever typing a name (the analysis page of an imported game) must start
    its match at the first click, not stop at the browser's "fill out this field"."""
    account = signed_in(request)
    return (
        remembered_name(request)
        or (account.username if account is not None else "")
        or i18n.translations(language(request)).gettext(texts.GUEST)
    )


def absolute_url(request: Request, path: str) -> str:
    """An absolute link to ``path`` for people to copy: from the configured origin
    (PUBLIC_URL, else http://localhost:PORT), never from a header a client sets."""
    return settings(request).origin + path


def warm_up() -> None:
    """Compile every template and load every language's catalogue now, at start-up.

    Otherwise the first render of each page compiles it and every template it includes
    (10-50 ms each, 0.4 s for all of them on the benchmark machine), and the first
    Spanish page reads the catalogue: a fresh process's first move watched by a thousand
    spectators waited 0.3 s for its render.
    """
    for lang in i18n.LANGUAGES:
        i18n.translations(lang)
    for name in templates.env.list_templates(extensions=("html", "svg")):
        templates.env.get_template(name)
