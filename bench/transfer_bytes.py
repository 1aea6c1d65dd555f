"""Bytes a browser receives for the match page: before and after compression and caching.

Serves two checkouts in turn with the benchmark harness (the app as it is, and the one at
``--before``, exported with ``git archive`` into a temporary folder), opens a Bashni match
page as its creator and fetches every stylesheet, script and icon the page links, as a
browser does on a first visit, with a browser's ``Accept-Encoding``. A repeat visit is the
page again with what a browser keeps: a file sent with ``immutable`` is not asked for
again; any other file is asked again with ``If-None-Match`` (a 304: headers only).

Counted: the response's status line, headers and body as sent (the body's raw, encoded
bytes), not TCP/TLS framing.

    nice -n 5 .venv/bin/python bench/transfer_bytes.py --before 0849e61
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import ROOT, served

BROWSER_ENCODINGS = {"br": "gzip, deflate, br, zstd", "gzip": "gzip, deflate", "none": "identity"}


def wire_size(response: httpx.Response, body: bytes) -> int:
    status = len(f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n")
    headers = sum(len(k) + len(v) + 4 for k, v in response.headers.raw)
    return status + headers + 2 + len(body)


def fetch(client: httpx.Client, url: str, headers: dict[str, str]) -> tuple[httpx.Response, bytes]:
    with client.stream("GET", url, headers=headers) as response:
        return response, b"".join(response.iter_raw())


def visit(base: str, accept_encoding: str) -> dict[str, int]:
    with httpx.Client(base_url=base, timeout=30) as client:
        created = client.post("/api/matches", json={"game": "bashni", "name": "Ana", "side": "first"})
        created.raise_for_status()
        path = "/matches/" + created.json()["id"]
        html_headers = {"Accept": "text/html", "Accept-Encoding": accept_encoding}
        page, page_body = fetch(client, path, html_headers)
        with client.stream("GET", path, headers={"Accept": "text/html"}) as decoded:
            html = decoded.read().decode()
        assets = sorted(set(re.findall(r'(?:src|href)="(/static/[^"]+)"', html)))
        first = wire_size(page, page_body)
        repeat = first
        asset_bytes = 0
        for asset in assets:
            response, body = fetch(client, asset, {"Accept-Encoding": accept_encoding})
            size = wire_size(response, body)
            first += size
            asset_bytes += size
            if "immutable" in response.headers.get("cache-control", ""):
                continue
            etag = response.headers.get("etag", "")
            conditional = {"Accept-Encoding": accept_encoding, "If-None-Match": etag}
            again, again_body = fetch(client, asset, conditional)
            repeat += wire_size(again, again_body)
        return {
            "html": wire_size(page, page_body),
            "assets": asset_bytes,
            "files": len(assets),
            "first": first,
            "repeat": repeat,
        }


def measure(app_dir: Path, label: str) -> None:
    with served(app_dir=app_dir) as server:
        for name, header in BROWSER_ENCODINGS.items():
            got = visit(server.url, header)
            print(
                f"| {label} | {name} | {got['html']:,} | {got['files']} files, {got['assets']:,} "
                f"| {got['first']:,} | {got['repeat']:,} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="a commit to measure too (exported with git archive)")
    args = parser.parse_args()
    print("| app | Accept-Encoding | page | linked files | first visit | repeat visit |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    if args.before:
        with tempfile.TemporaryDirectory(prefix="tablero-before-") as folder:
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", args.before], check=True, capture_output=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
            measure(Path(folder), args.before)
    measure(ROOT, "this checkout")


if __name__ == "__main__":
    main()
