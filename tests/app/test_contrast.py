"""Contrast of the board's pieces, highlights and labels, read from the style sheets (issue 19).

WCAG 2.2: 3:1 for the parts of a picture one needs to see (1.4.11), 4.5:1 for text (1.4.3).
The colours are taken from static/site.css and static/a11y.css, so a change there that
drops below the line fails here.
"""

from __future__ import annotations

import re

import pytest

from app.config import ROOT

SITE = (ROOT / "static" / "site.css").read_text()
A11Y = (ROOT / "static" / "a11y.css").read_text()


def variable(name: str, sheet: str = A11Y) -> str:
    found = re.search(rf"--{name}:\s*(#[0-9a-fA-F]{{6}})", sheet)
    assert found, name
    return found.group(1)


def rule(selector: str, prop: str = "fill") -> str:
    found = re.search(re.escape(selector) + r"\s*\{[^}]*?" + prop + r":\s*(#[0-9a-fA-F]{6})", SITE)
    assert found, selector
    return found.group(1)


def luminance(colour: str) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def ratio(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


WOOD = rule(".board .bg")
BOBAIL_HOMES = [rule(".board.bobail .sq.home-w"), rule(".board.bobail .sq.home-b")]
SEA = rule(".board.bilsang .sea")
BASHNI_DARK = rule(".board.bashni .sq.dark")
BASHNI_LIGHT = rule(".board.bashni .sq.light")
LIGHT_BOARDS = [WOOD, *BOBAIL_HOMES, SEA]


@pytest.mark.parametrize("square", LIGHT_BOARDS)
@pytest.mark.parametrize("mark", ["hl-target", "hl-chosen", "hl-last", "cursor-ring"])
def test_highlights_on_the_light_boards(mark: str, square: str) -> None:
    assert ratio(variable(mark), square) >= 3


@pytest.mark.parametrize("mark", ["hl-target-dark", "hl-chosen-dark", "hl-last-dark", "cursor-ring"])
def test_highlights_on_bashni_squares(mark: str) -> None:
    assert ratio(variable(mark), BASHNI_DARK) >= 3


@pytest.mark.parametrize("square", [WOOD, *BOBAIL_HOMES, BASHNI_DARK, BASHNI_LIGHT])
@pytest.mark.parametrize("side", ["white", "black"])
def test_pieces_stand_out_from_the_squares(side: str, square: str) -> None:
    # A piece is seen by its fill or by its edge, whichever stands out from the square.
    fill, edge = variable(f"{side}-piece", SITE), variable(f"{side}-edge")
    assert max(ratio(fill, square), ratio(edge, square)) >= 3


def test_buoys_and_the_neutron_stand_out() -> None:
    assert ratio(variable("buoy-edge"), SEA) >= 3
    assert ratio(rule(".board .neutron"), WOOD) >= 3


def test_text_on_and_around_the_boards() -> None:
    assert ratio(rule(".board .coord"), WOOD) >= 4.5
    light_paper, dark_paper = re.findall(r"--paper:\s*(#[0-9a-fA-F]{6})", SITE)[:2]
    light_muted, dark_muted = re.findall(r"--muted:\s*(#[0-9a-fA-F]{6})", SITE)[:2]
    assert ratio(light_muted, light_paper) >= 4.5
    assert ratio(dark_muted, dark_paper) >= 4.5
    assert ratio("#ffffff", variable("hl-last")) >= 4.5  # the move list's current move
