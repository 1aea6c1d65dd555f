"""From a player's last tap of a move to the opponent's browser showing it (issue 14).

Two headless Chromium pages play Nine Men's Morris (tests/app/helpers.py MORRIS_WIN, 25
plies) against a real uvicorn server on SQLite. For each move the mover's page taps the
move's points in the page (the last tap's wall-clock time is noted in that page) and the
other page notes when its live partial shows the new ply (a MutationObserver). Both pages
run on this machine, so their Date.now() clocks are the same clock.

    .venv/bin/python bench/tap_latency.py [--rounds 2] [--app-dir OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path
from urllib.parse import urlsplit

from harness import ROOT, Server, served  # bench/ is on sys.path; it puts the checkout there too
from playwright.sync_api import sync_playwright

import games
from tests.app.helpers import MORRIS_WIN
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

WATCH = """() => {
  window.__seen = {};
  const note = () => {
    const live = document.getElementById("live");
    if (live && !(live.dataset.ply in window.__seen)) window.__seen[live.dataset.ply] = Date.now();
  };
  new MutationObserver(note).observe(document.querySelector(".match-page"), {subtree: true, childList: true});
  note();
}"""

TAP = """(points) => {
  let at = 0;
  for (const point of points) {
    const el = document.querySelector(`#live [data-point="${point}"]`);
    at = Date.now();
    el.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  }
  return at;
}"""


def one_game(browser, server: Server) -> list[float]:
    pages = [browser.new_context(viewport={"width": 1280, "height": 800}).new_page() for _ in range(2)]
    alice, bob = pages
    alice.goto(server.url + "/")
    alice.select_option("select[name=game]", "morris")
    alice.fill("form.stack input[name=name]", "Alice")
    alice.check("input[name=side][value=first]")
    alice.click("form.stack button[type=submit]")
    # The invite link names PUBLIC_URL (unset here: localhost:8000), not this server's port.
    invite = urlsplit(alice.input_value("#invite-url")).path
    bob.goto(server.url + invite)
    bob.fill("#join input[name=name]", "Bob")
    bob.click("#join button[type=submit]")
    alice.wait_for_selector("#live[data-status=playing]")
    for page in pages:
        page.evaluate(WATCH)
    morris = games.get("morris")
    state = morris.initial()
    delays = []
    for ply, text in enumerate(MORRIS_WIN):
        mover, other = pages[ply % 2], pages[1 - ply % 2]
        mover.wait_for_selector(f"#live[data-ply='{ply}'][data-my-turn=true]")
        move = morris.parse_move(state, text)
        tapped = mover.evaluate(TAP, list(morris.clicks(move)))
        other.wait_for_function(f"() => '{ply + 1}' in window.__seen", timeout=10000)
        delays.append(other.evaluate(f"window.__seen['{ply + 1}']") - tapped)
        state = morris.apply(state, move)
    for page in pages:
        page.context.close()
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="serve the app of another checkout")
    args = parser.parse_args()
    print(f"app: {args.app_dir}")
    with served(app_dir=args.app_dir) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        delays: list[float] = []
        for _ in range(args.rounds):
            delays += one_game(browser, server)
        browser.close()
    delays.sort()
    print(f"moves: {len(delays)}")
    print(f"median ms: {statistics.median(delays):.0f}")
    print(f"p90 ms: {delays[int(len(delays) * 0.9)]:.0f}")
    print(f"min/max ms: {delays[0]:.0f} / {delays[-1]:.0f}")
    print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
