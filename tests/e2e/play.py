"""Driving match pages by clicks, as a person would."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

import games


def open_options(page: Page, form: str = "#friend") -> None:
    """Unfold the new-match form's time control and rules."""
    details = page.locator(f"{form} details.more-options")
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()


def create_match(
    page: Page, base: str, game: str, name: str, side: str = "first", rules: str | None = None
) -> str:
    """Create a match on the lobby form; ``rules`` picks Bilsang's rule set (default: the form's)."""
    page.goto(base + "/")
    page.select_option("select[name=game]", game)
    if rules is not None:
        open_options(page)
        page.select_option("#friend select[name=rules]", rules)
    page.fill("form.stack input[name=name]", name)
    page.check(f"input[name=side][value={side}]")
    page.click("form.stack button[type=submit]")
    expect(page.locator("#invite-url")).to_be_visible()
    return page.input_value("#invite-url")


def join_match(page: Page, invite_url: str, name: str) -> None:
    page.goto(invite_url)
    page.fill("#join input[name=name]", name)
    page.click("#join button[type=submit]")
    expect(page.locator("#live")).to_have_attribute("data-status", "playing")


def wait_for_ply(page: Page, ply: int, timeout: float = 5000) -> None:
    expect(page.locator("#live")).to_have_attribute("data-ply", str(ply), timeout=timeout)


def play_line(
    game_name: str,
    line: list[str],
    players: tuple[Page, Page],
    watchers: list[Page],
    shots: Path | None = None,
    start_at: int = 0,
) -> None:
    """Play ``line`` by clicking each move's points on the page of the side to move.

    ``players`` are the first and second player's pages; with ``start_at`` the first
    moves of ``line`` are taken as already played.
    """
    game = games.get(game_name)
    state = game.initial()
    for text in line[:start_at]:
        state = game.play(state, text)
    for ply, text in enumerate(line[start_at:], start=start_at):
        page = players[ply % 2]
        wait_for_ply(page, ply)
        move = game.parse_move(state, text)
        for point in game.clicks(move):
            target = page.locator(f'#live [data-point="{point}"].target')
            expect(target).to_have_count(1)
            target.click()
        state = game.apply(state, move)
        for other in (*players, *watchers):
            wait_for_ply(other, ply + 1)
        if shots is not None and ply + 1 == len(line) // 2:
            players[0].screenshot(path=str(shots / "mid.png"), full_page=True)
