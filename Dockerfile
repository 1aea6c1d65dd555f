# The Tablero app: one uvicorn process per container; run several behind a proxy
# (docker-compose.yml). The code runs from /srv/tablero, where templates, static files
# and migrations live beside it.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/srv/tablero

WORKDIR /srv/tablero

# The board PNG's labels need a font; the slim image has none (app/pictures.py).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*

# Dependencies first, pinned by constraints.txt, so code changes reuse this layer.
COPY pyproject.toml constraints.txt README.md ./
COPY games ./games
COPY app ./app
RUN pip install -c constraints.txt .

COPY alembic.ini ./
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static

RUN useradd --system --no-create-home --uid 10001 tablero
USER tablero

EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
# Keep idle connections longer than clients and proxies keep theirs (httpx 5 s, nginx 60 s),
# so that the client, not the server, closes an idle one: no request races a close.
# --limit-concurrency: past 4096 connections uvicorn answers 503 at once rather than run
# out of descriptors; the app raises its own descriptor limit to the hard limit at start
# (docker-compose.yml sets 65536) and caps event streams well inside it.
CMD ["uvicorn", "--factory", "app.main:create_app", "--host", "0.0.0.0", "--port", "8000", "--proxy-headers", "--timeout-keep-alive", "75", "--limit-concurrency", "4096"]
