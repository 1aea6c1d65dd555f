"""The rules pages' figures (issue 34, item 6): every figure's position is reached by the
engine, its move is one the engine allows or refuses as the figure says, and every rules
page shows its figures, drawn and captioned, in both languages."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from fastapi.testclient import TestClient

import games
from app.rule_figures import FIGURES, position_of
from games.base import IllegalMove

HTML = {"accept": "text/html"}


@pytest.mark.parametrize("key", sorted(FIGURES))
def test_the_engine_agrees_with_each_figure(key: str) -> None:
    figure = FIGURES[key]
    game = games.get(figure.game)
    state = position_of(figure)
    if figure.allowed:
        move = game.parse_move(state, figure.move)
        assert move in game.legal_moves(state)
    else:
        with pytest.raises(IllegalMove):
            game.parse_move(state, figure.move)
        assert figure.slides, "a forbidden move names its slides"


def test_every_game_has_allowed_and_forbidden_figures() -> None:
    per_game = Counter(f.game for f in FIGURES.values())
    assert set(per_game) == set(games.names())
    assert all(count >= 2 for count in per_game.values()), per_game
    for name in ("bashni", "bobail", "bilsang"):
        assert any(not f.allowed for f in FIGURES.values() if f.game == name)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_rules_pages_show_their_figures(alice: TestClient, lang: str) -> None:
    for name in games.names():
        page = alice.get(f"/rules/{name}", headers={**HTML, "accept-language": lang}).text
        keys = re.findall(r'<figure class="rule-figure (?:allowed|forbidden)" data-figure="([^"]+)"', page)
        assert sorted(keys) == sorted(k for k, f in FIGURES.items() if f.game == name)
        for key in keys:
            figure = page[page.index(f'data-figure="{key}"') :]
            figure = figure[: figure.index("</figure>")]
            assert f'<svg role="img" aria-labelledby="fig-{key}"' in figure
            assert "<line" in figure or 'class="dot"' in figure  # the move is drawn
            caption = re.search(r"<figcaption[^>]*>(.*?)</figcaption>", figure)
            assert caption and caption.group(1).strip()
        ids = re.findall(r' id="([^"]+)"', page)
        assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    bilsang = alice.get("/rules/bilsang", headers={**HTML, "accept-language": lang}).text
    expected = {"en": "A pair move: two buoys", "es": "Una jugada de pareja: dos boyas"}[lang]
    assert expected in bilsang
