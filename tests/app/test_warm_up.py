"""A fresh process compiles its templates and loads its catalogues at start-up, so that no
visitor's page (and no move's render for a thousand spectators) waits for them."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import i18n
from app.web import templates
from tests.app.helpers import started


def test_after_start_up_no_page_compiles_a_template_or_reads_a_catalogue(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    templates.env.cache.clear()  # as in a new process: the template cache is per process
    i18n.translations.cache_clear()
    with TestClient(app) as alice:
        compiled: list[str | None] = []
        real = templates.env.compile

        def counted(source: str, name: str | None = None, *args: object, **kwargs: object) -> object:
            compiled.append(name)
            return real(source, name, *args, **kwargs)

        monkeypatch.setattr(templates.env, "compile", counted)
        loaded = i18n.translations.cache_info().currsize
        match_id = started(alice, TestClient(app))
        assert alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0}).status_code == 200
        for lang in i18n.LANGUAGES:
            watcher = TestClient(app, headers={"Accept-Language": lang})
            assert watcher.get(f"/matches/{match_id}").status_code == 200
            assert watcher.get(f"/matches/{match_id}/live").status_code == 200
            assert watcher.get("/").status_code == 200
        assert compiled == []
        assert loaded == len(i18n.LANGUAGES)
        assert i18n.translations.cache_info().misses == len(i18n.LANGUAGES)
