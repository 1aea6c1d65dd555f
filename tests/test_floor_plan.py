"""The floor plan's two rules (docs/ARCHITECTURE.md): small modules in ``app/`` (none
over 400 lines), and the rules engines on their own (``games`` never imports ``app``)."""

from __future__ import annotations

import ast

from app.config import ROOT

LIMIT = 400


def test_no_module_in_app_is_over_400_lines() -> None:
    modules = (ROOT / "app").rglob("*.py")
    sizes = {path.relative_to(ROOT): len(path.read_text().splitlines()) for path in modules}
    assert len(sizes) > 100  # the package was found
    assert {path: n for path, n in sizes.items() if n > LIMIT} == {}


def test_games_never_imports_app() -> None:
    found = []
    for path in (ROOT / "games").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            found += [f"{path.relative_to(ROOT)}: {name}" for name in names if name.split(".")[0] == "app"]
    assert found == []
