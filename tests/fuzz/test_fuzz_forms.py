"""Every form field of the pages fuzzed through the real app: any value, any field, never a 5xx.

Each case posts (or gets) one form with some of its fields replaced by fuzzed text: the
grammar's punctuation, numbers Python reads oddly (``inf``, ``nan``, ``1e309``, Arabic
digits), CJK, control characters. The answer must be under 500, a refusal must say why,
and every cookie the answer sets must come back to the next request intact (issue 27:
``initial_minutes=inf`` and a CJK ``initial_minutes`` were 500s).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import example, given
from hypothesis import strategies as st

from app.config import Settings
from app.main import create_app
from app.manage import migrate
from tests.app.conftest import database_url
from tests.fuzz import strategies as fs
from tests.fuzz.guard import fuzz_settings, time_bound

HTML = {"accept": "text/html"}
#: Values people or programs send that numbers and cookies trip over.
ODD = [
    "inf",
    "-inf",
    "nan",
    "1e309",
    "-0",
    "٣٠",
    "１５",
    "十五",
    "0x10",
    "1_000",
    " 15 ",
    "",
    "\x00",
    "中文",
    "a|b|c",
    '"',
    ";",
    "\r\n",
    "%ff",
    "9" * 40,
]
VALUE = st.one_of(st.sampled_from(ODD), st.text(fs.CHARS, max_size=24), fs.NUMBERS)

#: Each form: (method, path, its valid fields). A case replaces some of them.
FORMS: dict[str, tuple[str, str, dict[str, str]]] = {
    "new match": (
        "POST",
        "/matches",
        {
            "game": "morris",
            "name": "Alice",
            "side": "first",
            "public": "on",
            "opponent": "",
            "rules": "line",
            "time_control": "rt:custom",
            "initial_minutes": "15",
            "increment_seconds": "10",
        },
    ),
    "join": ("POST", "/matches/{match}/join", {"name": "Bob"}),
    "click": ("POST", "/matches/{match}/click", {"taps": "a7", "ply": "0"}),
    "act": ("POST", "/matches/{match}/act", {"action": "offer-draw"}),
    "typed": ("POST", "/matches/{match}/typed", {"text": "moves", "ply": "0"}),
    "import": ("POST", "/records/import", {"text": "1. a7 d7 *", "game": "morris"}),
    "play from a position": (
        "POST",
        "/positions/play",
        {"game": "morris", "position": "w ........................ 9 9 0", "name": "A", "side": "first"},
    ),
    "ladder": ("POST", "/ladder/runs", {"name": "Alice"}),
    "analysis board": (
        "GET",
        "/analysis/morris/board",
        {"base": "w ........................ 9 9 0", "line": "a7|d7", "taps": "g7"},
    ),
    "language": ("GET", "/lang/es", {"next": "/"}),
    "match page": ("GET", "/matches/{match}", {"at": "1"}),
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp: Path = tmp_path_factory.mktemp("fuzz-forms")
    url = database_url(tmp)
    migrate(url)
    app = create_app(Settings(database_url=url, secret_key="fuzz", rate_limits=False))
    with TestClient(app) as alice:
        yield alice


@pytest.fixture(scope="module")
def match_id(client: TestClient) -> str:
    made = client.post("/api/matches", json={"game": "morris", "name": "Alice", "side": "first"})
    return made.json()["id"]


def send(client: TestClient, form: str, fields: dict[str, str], match_id: str) -> Any:
    method, path, _valid = FORMS[form]
    path = path.format(match=match_id)
    with time_bound(10):
        if method == "GET":
            return client.get(path, params=fields, headers=HTML, follow_redirects=False)
        return client.post(path, data=fields, headers=HTML, follow_redirects=False)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_field_answers_below_500(client: TestClient, match_id: str, form: str) -> None:
    valid = FORMS[form][2]

    @fuzz_settings(40)
    @given(changes=st.dictionaries(st.sampled_from(sorted(valid)), VALUE, min_size=1))
    @example(changes={"initial_minutes": "inf"})  # issue 27: OverflowError in round()
    @example(changes={"initial_minutes": "中文", "time_control": ""})  # issue 27: cookie not Latin-1
    def check(changes: dict[str, str]) -> None:
        fields = {**valid, **{k: v for k, v in changes.items() if k in valid}}
        answer = send(client, form, fields, match_id)
        assert answer.status_code < 500, answer.text[:500]
        if 400 <= answer.status_code < 500:
            assert answer.text.strip(), "a refusal must say why"
        # Whatever cookies were set come back on the next page, which still answers.
        assert client.get("/", headers=HTML).status_code == 200

    check()
