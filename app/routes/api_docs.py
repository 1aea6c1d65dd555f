"""/docs (Swagger UI) and /redoc, served with their files from the site itself.

FastAPI's own pages load the viewers from a CDN and start them with an inline
script, both of which the site's CSP refuses. The files come from the pinned
``fastapi-offline`` package (which ships Swagger UI 5 and ReDoc 2); a small script
of ours starts them. ReDoc writes its styles into <style> elements at run time, so
its page alone also allows inline styles.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.security import CSP
from app.web import templates

ASSETS = Path(str(files("fastapi_offline") / "static"))
ASSETS_URL = "/static/api-docs"
#: The site's policy, but styles may also be inline and ReDoc's search runs in a blob: worker.
REDOC_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'") + "; worker-src 'self' blob:"

router = APIRouter(include_in_schema=False)


def _page(request: Request, viewer: str) -> Response:
    context = {
        "request": request,
        "viewer": viewer,
        "assets": ASSETS_URL,
        "openapi_url": request.app.openapi_url,
    }
    return templates.TemplateResponse(request, "api_docs.html", context)


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui(request: Request) -> Response:
    return _page(request, "swagger")


@router.get("/redoc", response_class=HTMLResponse)
def redoc(request: Request) -> Response:
    response = _page(request, "redoc")
    response.headers["content-security-policy"] = REDOC_CSP
    return response
