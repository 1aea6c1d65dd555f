"""The deployment files: docker-compose.yml, the Dockerfile and deploy/nginx.conf.

No Docker engine runs here, so the compose file is checked against the Compose
Specification's JSON schema (check-jsonschema ships it) and for what the deployment
promises; nginx, when installed (.ci/run installs it), runs our config in front of a real
server to show event streams pass through.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from ruamel.yaml import YAML

from app.config import ROOT
from tests.app.conftest import database_url
from tests.live import LiveServer, free_port

COMPOSE = ROOT / "docker-compose.yml"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def compose() -> dict:
    return YAML(typ="safe").load(COMPOSE.read_text())


def test_compose_file_follows_the_compose_specification() -> None:
    checker = Path(sys.executable).with_name("check-jsonschema")
    result = subprocess.run(
        [str(checker), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_runs_migrations_once_then_three_replicas_behind_a_proxy() -> None:
    services = compose()["services"]
    assert set(services) >= {"postgres", "migrate", "app", "proxy"}

    migrate_service, app = services["migrate"], services["app"]
    assert migrate_service["command"] == ["python", "-m", "app.manage", "migrate"]
    assert app["deploy"]["replicas"] == 3
    assert app["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert migrate_service["depends_on"]["postgres"] == {"condition": "service_healthy"}

    # Every replica and the migration use one database and one secret key.
    for service in (migrate_service, app):
        env = service["environment"]
        assert env["DATABASE_URL"].startswith("postgresql+psycopg://")
        assert "@postgres:5432/" in env["DATABASE_URL"]
        assert env["SECRET_KEY"].startswith("${SECRET_KEY:?")
        assert "SECURE_COOKIES" in env
    assert migrate_service["environment"]["DATABASE_URL"] == app["environment"]["DATABASE_URL"]

    proxy = services["proxy"]
    assert any(v.startswith("./deploy/nginx.conf:") for v in proxy["volumes"])
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"


def test_compose_trusts_forwarded_headers_from_the_proxy_only() -> None:
    services = compose()["services"]
    app, proxy = services["app"], services["proxy"]
    # Not "*": a client that reaches a replica directly must not choose its own address.
    assert app["environment"]["FORWARDED_ALLOW_IPS"] == proxy["networks"]["default"]["ipv4_address"]
    assert app["ulimits"]["nofile"]["soft"] >= 65536
    assert app["environment"]["PUBLIC_URL"].startswith("${PUBLIC_URL")
    assert "SERVER_NAME" in proxy["environment"]


def test_dockerfile_installs_pinned_and_serves_the_factory() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert dockerfile.startswith("#") and "FROM python:3.11-slim" in dockerfile
    assert "pip install -c constraints.txt ." in dockerfile
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD "))
    assert json.loads(cmd[4:]) == [
        "uvicorn",
        "--factory",
        "app.main:create_app",
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
        "--proxy-headers",
        "--timeout-keep-alive",
        "75",
        "--limit-concurrency",
        "4096",
    ]
    # What the app reads from disk at run time is in the image.
    for needed in ("alembic.ini", "migrations", "templates", "static", "app", "games"):
        assert f"COPY {needed} " in dockerfile


def test_nginx_config_keeps_event_streams_unbuffered() -> None:
    conf = NGINX_CONF.read_text()
    events = conf[conf.index("location ~ ^/matches/[^/]+/events$") :]
    events = events[: events.index("}")]
    for directive in ("proxy_buffering off;", "proxy_cache off;", "proxy_read_timeout 1h;"):
        assert directive in events
    assert "proxy_http_version 1.1;" in conf
    assert 'proxy_set_header Connection "";' in conf


# ----------------------------------------------------------- nginx for real


def nginx_main_config(prefix: Path, server_conf: Path) -> Path:
    """A minimal nginx.conf around ``server_conf``, as the nginx image's main config does."""
    main = prefix / "nginx.conf"
    main.write_text(
        f"""
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {server_conf};
}}
"""
    )
    return main


needs_nginx = pytest.mark.skipif(
    not Path(NGINX).exists(), reason="nginx is not installed (.ci/run installs it)"
)


@needs_nginx
def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    main = nginx_main_config(tmp_path, NGINX_CONF)
    result = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(main)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


@pytest.fixture
def server_env() -> dict[str, str]:
    """Environment of the live server behind nginx (tests override it)."""
    return {}


@pytest.fixture
def proxied(tmp_path: Path, server_env: dict[str, str]) -> Iterator[tuple[str, LiveServer]]:
    """Our nginx config in front of a live server: (the proxy's URL, the server)."""
    url = database_url(tmp_path)
    server = LiveServer(url, env=server_env)
    server.start()
    port = free_port()
    conf = NGINX_CONF.read_text()
    conf = conf.replace("resolver 127.0.0.11 valid=10s ipv6=off;", "")
    # What the nginx image's template step does with SERVER_NAME.
    conf = conf.replace("${SERVER_NAME}", "127.0.0.1")
    conf = conf.replace("http://app:8000", server.url).replace("listen 80", f"listen 127.0.0.1:{port}")
    server_conf = tmp_path / "server.conf"
    server_conf.write_text(conf)
    main = nginx_main_config(tmp_path, server_conf)
    nginx = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(main)], stderr=subprocess.PIPE)
    proxy = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                if httpx.get(proxy + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert nginx.poll() is None, nginx.stderr.read().decode() if nginx.stderr else "nginx exited"
            assert time.monotonic() < deadline, "nginx did not start"
            time.sleep(0.1)
        yield proxy, server
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        server.stop()


@needs_nginx
def test_events_pass_through_nginx_as_they_happen(proxied: tuple[str, LiveServer]) -> None:
    proxy, _server = proxied
    # As browsers do: Origin on every POST, which the app checks against Host.
    alice = httpx.Client(base_url=proxy, headers={"Origin": proxy})
    bob = httpx.Client(base_url=proxy, headers={"Origin": proxy})
    created = alice.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "B"}).status_code == 200
    version = alice.get(f"/api/matches/{match_id}").json()["version"]

    opened, heard = threading.Event(), []

    def listen() -> None:
        headers = {"Last-Event-ID": str(version)}
        with httpx.stream("GET", f"{proxy}/matches/{match_id}/events", headers=headers, timeout=10) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if line.startswith("retry:"):
                    opened.set()
                elif line.startswith("id: "):
                    heard.append((time.monotonic(), int(line[4:])))
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert opened.wait(10), "the first bytes of the stream were held back by the proxy"
    sent = time.monotonic()
    moved = alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0})
    assert moved.status_code == 200, moved.text
    listener.join(timeout=5)
    assert heard and heard[0][1] == moved.json()["version"]
    assert heard[0][0] - sent < 1.0


@needs_nginx
@pytest.mark.parametrize("server_env", [{"RATE_LIMITS": "on"}])
def test_rate_limits_hold_behind_nginx_whatever_x_forwarded_for(proxied: tuple[str, LiveServer]) -> None:
    proxy, _server = proxied
    statuses = []
    for i in range(40):
        client = httpx.Client(base_url=proxy, headers={"X-Forwarded-For": f"198.51.100.{i}"})
        response = client.post("/api/matches", json={"game": "morris", "name": "A"})
        statuses.append(response.status_code)
    # The burst of 20 and what refills meanwhile (0.5 a second), not 40 "different clients".
    assert statuses[:20] == [201] * 20
    assert statuses.count(429) >= 5, statuses


@needs_nginx
def test_nginx_answers_only_for_the_site_s_name(proxied: tuple[str, LiveServer]) -> None:
    proxy, _server = proxied
    with pytest.raises(httpx.RemoteProtocolError):  # 444: the connection closes unanswered
        httpx.get(proxy + "/", headers={"Host": "evil.example"}, timeout=5)
    assert httpx.get(proxy + "/healthz", timeout=5).status_code == 200


@needs_nginx
def test_nginx_caps_event_streams_per_client(proxied: tuple[str, LiveServer]) -> None:
    import socket

    proxy, _server = proxied
    created = httpx.post(proxy + "/api/matches", json={"game": "morris", "name": "A"})
    match_id = created.json()["id"]
    host, port = proxy.removeprefix("http://").split(":")
    sockets, statuses = [], []
    try:
        for _ in range(25):
            s = socket.create_connection((host, int(port)), timeout=10)
            s.sendall(f"GET /matches/{match_id}/events HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            statuses.append(int(s.recv(64).split()[1]))
            sockets.append(s)
    finally:
        for s in sockets:
            s.close()
    assert statuses.count(200) == 20 and statuses.count(429) == 5


@needs_nginx
def test_nginx_drops_a_connection_that_stalls_in_its_header(proxied: tuple[str, LiveServer]) -> None:
    import select
    import socket

    proxy, _server = proxied
    host, port = proxy.removeprefix("http://").split(":")
    s = socket.create_connection((host, int(port)), timeout=5)
    try:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
        started = time.monotonic()
        # nginx's default waits 60 s; the config's client_header_timeout is 10 s.
        readable, _, _ = select.select([s], [], [], 30)
        waited = time.monotonic() - started
        assert readable, "the connection was still open after 30 s"
        try:
            data = s.recv(1024)
        except ConnectionResetError:
            data = b""
        assert data == b"" or data.startswith(b"HTTP/1.1 408"), data[:100]
        assert waited < 15, waited
    finally:
        s.close()


@needs_nginx
def test_nginx_cuts_a_header_trickled_a_byte_a_second(proxied: tuple[str, LiveServer]) -> None:
    import socket

    proxy, _server = proxied
    host, port = proxy.removeprefix("http://").split(":")
    s = socket.create_connection((host, int(port)), timeout=5)
    started = time.monotonic()
    closed_after = None
    try:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
        # nginx's default would wait 60 s; client_header_timeout bounds the whole header.
        while closed_after is None and time.monotonic() - started < 30:
            time.sleep(1)
            try:
                s.sendall(b"a")
                s.setblocking(False)
                answer = s.recv(1024)
                # Closed (b"") or answered with a 408: either way nginx let go of it.
                assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer[:100]
                closed_after = time.monotonic() - started
            except BlockingIOError:
                pass  # still open: nothing to read yet
            except OSError:
                closed_after = time.monotonic() - started
            finally:
                s.setblocking(True)
    finally:
        s.close()
    assert closed_after is not None, "a trickled header kept its connection for 30 s"
    assert closed_after < 15, closed_after


@needs_nginx
def test_nginx_caps_requests_in_progress_per_client(proxied: tuple[str, LiveServer]) -> None:
    import socket

    proxy, _server = proxied
    host, port = proxy.removeprefix("http://").split(":")
    trickling = []
    try:
        # Bodies sent a byte at a time are held by nginx (its body timeout is per read).
        for _ in range(100):
            s = socket.create_connection((host, int(port)), timeout=10)
            s.sendall(
                b"POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            )
            trickling.append(s)
        time.sleep(0.5)
        refused = httpx.get(proxy + "/healthz", timeout=5)
        assert refused.status_code == 429, refused.text
    finally:
        for s in trickling:
            s.close()
    deadline = time.monotonic() + 5
    while httpx.get(proxy + "/healthz", timeout=5).status_code != 200:
        assert time.monotonic() < deadline, "the cap was not released when the clients left"
        time.sleep(0.1)


# ----------------------------------------------------------- compression and caching


def fetched(url: str, encoding: str) -> httpx.Response:
    """The response with its body as sent on the wire (``.read()`` would decode it)."""
    with httpx.stream(
        "GET", url, headers={"Accept-Encoding": encoding, "Accept": "text/html"}, timeout=10
    ) as r:
        r._content = b"".join(r.iter_raw())  # the encoded bytes, as a cache would store them
    return r


def assets_of(page: str) -> list[str]:
    import re

    return re.findall(r'(?:src|href)="(/static/[^"]+\.(?:css|js))"', page)


def stream_head(proxy: str, match_id: str) -> bytes:
    import socket

    host, port = proxy.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(
            f"GET /matches/{match_id}/events HTTP/1.1\r\nHost: {host}\r\n"
            "Accept-Encoding: gzip, br\r\n\r\n".encode()
        )
        head = b""
        while b"retry:" not in head:
            chunk = s.recv(4096)
            assert chunk, head
            head += chunk
    return head


def test_nginx_config_compresses_and_not_the_event_streams() -> None:
    conf = NGINX_CONF.read_text()
    main = conf[conf.index("server_name ${SERVER_NAME};") :]
    for directive in ("gzip on;", "gzip_vary on;", "gzip_proxied any;"):
        assert directive in main
    types = next(line for line in main.splitlines() if line.strip().startswith("gzip_types"))
    for media in ("text/css", "application/javascript", "application/json"):
        assert media in types
    assert "event-stream" not in types
    events = conf[conf.index("location ~ ^/matches/[^/]+/events$") :]
    assert "gzip off;" in events[: events.index("}")]


@needs_nginx
@pytest.mark.parametrize("server_env", [{"COMPRESSION": "off"}])
def test_nginx_gzips_what_the_app_leaves_uncompressed(proxied: tuple[str, LiveServer]) -> None:
    import gzip

    proxy, server = proxied
    created = httpx.post(
        proxy + "/api/matches", json={"game": "bashni", "name": "A"}, headers={"Origin": proxy}
    )
    match_id = created.json()["id"]
    # The app alone sends it as it is: the gzip below is nginx's.
    direct = fetched(f"{server.url}/matches/{match_id}", "gzip")
    assert direct.headers.get("content-encoding") is None
    page = fetched(f"{proxy}/matches/{match_id}", "gzip")
    assert page.status_code == 200
    assert page.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in page.headers["vary"].lower()
    html = gzip.decompress(page.content).decode()
    assets = assets_of(html)
    assert any(a.endswith(".css") for a in assets) and any(a.endswith(".js") for a in assets)
    for asset in assets:
        got = fetched(proxy + asset, "gzip")
        assert got.status_code == 200, asset
        if int(fetched(proxy + asset, "identity").headers["content-length"]) >= 1024:
            assert got.headers["content-encoding"] == "gzip", asset
            assert "accept-encoding" in got.headers["vary"].lower()
        # The long cache of a hashed name passes through the proxy.
        assert got.headers["cache-control"] == "public, max-age=31536000, immutable"
    api = fetched(proxy + "/openapi.json", "gzip")
    assert api.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in api.headers["vary"].lower()
    head = stream_head(proxy, match_id).split(b"\r\n\r\n", 1)[0].lower()
    assert b"text/event-stream" in head and b"content-encoding" not in head


@needs_nginx
def test_nginx_passes_the_app_s_brotli_through(proxied: tuple[str, LiveServer]) -> None:
    import brotli

    proxy, _server = proxied
    created = httpx.post(
        proxy + "/api/matches", json={"game": "bashni", "name": "A"}, headers={"Origin": proxy}
    )
    match_id = created.json()["id"]
    page = fetched(f"{proxy}/matches/{match_id}", "gzip, deflate, br")
    assert page.headers["content-encoding"] == "br"
    assert page.headers.get_list("vary") and all(
        v.lower().count("accept-encoding") <= 1 for v in page.headers.get_list("vary")
    )
    assert "<!doctype html>" in brotli.decompress(page.content).decode().lower()[:100]
    gzipped = fetched(f"{proxy}/matches/{match_id}", "gzip")
    assert gzipped.headers["content-encoding"] == "gzip"
    head = stream_head(proxy, match_id).split(b"\r\n\r\n", 1)[0].lower()
    assert b"text/event-stream" in head and b"content-encoding" not in head
