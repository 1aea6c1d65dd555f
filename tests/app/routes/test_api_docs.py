"""/docs and /redoc are served with their viewer files from the site itself, under a strict CSP."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.security import CSP
from app.static_files import static_url


def assets_of(page: str) -> list[str]:
    return re.findall(r'(?:src|href)="(/static/[^"]+)"', page)


def test_swagger_ui_page_loads_only_site_files_under_the_site_policy(alice: TestClient) -> None:
    page = alice.get("/docs")
    assert page.status_code == 200
    assert page.headers["content-security-policy"] == CSP
    assert "<script>" not in page.text and "https://" not in page.text
    assets = assets_of(page.text)
    assert "/static/api-docs/swagger-ui-bundle.js" in assets and static_url("api-docs.js") in assets
    for path in assets:
        assert alice.get(path).status_code == 200, path


def test_redoc_page_has_its_own_policy_that_still_allows_only_site_scripts(alice: TestClient) -> None:
    page = alice.get("/redoc")
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "style-src 'self' 'unsafe-inline'" in policy
    assert "/static/api-docs/redoc.standalone.js" in assets_of(page.text)
    assert "https://" not in page.text
    # Every other page keeps the strict policy.
    assert alice.get("/").headers["content-security-policy"] == CSP
