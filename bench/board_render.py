"""Each game's board, rendered by its template now and by the Jinja loops it replaced.

Run with ``.venv/bin/python bench/board_render.py`` (not part of CI; figures in
docs/benchmarks.md, issue 28). For each game it renders ``boards/<game>.html`` and the
template kept in ``tests/app/old_boards/`` (the board before app/board_markup.py wrote its
points and frame) on the positions of seeded random games, the two in turn on each
position, a spectator's view and the mover's (taps made, a click tree), and reports the
CPU median of a render of each, in this process. The two write the same text
(tests/app/test_board_markup.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from harness import ROOT  # bench/ is on sys.path; it puts the checkout there too

from app.web import templates
from tests.app.test_board_markup import GAMES, OLD_BOARDS, board_context, positions, views


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="renders of each template per view")
    args = parser.parse_args(argv)
    for game_name in GAMES:
        old = templates.env.from_string((OLD_BOARDS / f"{game_name}.html").read_text())
        now = templates.get_template(f"boards/{game_name}.html")
        spent: dict[str, list[float]] = {"old": [], "now": []}
        for index, state in enumerate(positions(game_name)):
            for shown, tree, labels in views(game_name, state, index)[:2]:
                context = board_context(shown, tree, labels, "w")
                for _ in range(args.reps):
                    for name, template in (("old", old), ("now", now)):
                        began = time.process_time()
                        template.render(context)
                        spent[name].append((time.process_time() - began) * 1000)
        before, after = (statistics.median(spent[name]) for name in ("old", "now"))
        print(f"{game_name:8} Jinja loops {before:.3f} ms, now {after:.3f} ms (x{after / before:.2f})")
    print(f"checkout: {ROOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
