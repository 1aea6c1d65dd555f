"""The service worker in Chromium: a push delivered through the DevTools protocol
(``ServiceWorker.deliverPushMessage``) fires its push event and the notification is shown
with the server's title, body, tag and match URL; the "Notify me" switch asks nothing on load."""

from __future__ import annotations

import json
import time

import pytest

from tests.live import LiveServer

pytestmark = pytest.mark.browser


def test_a_pushed_message_is_shown_as_a_notification(server: LiveServer, browser) -> None:
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=server.url)
    page = context.new_page()
    prompts: list[str] = []
    page.on("dialog", lambda d: prompts.append(d.message))
    page.goto(server.url + "/")
    assert page.locator("[data-notify-switch]").get_attribute("aria-pressed") == "false"
    assert (
        page.evaluate("navigator.serviceWorker.getRegistrations().then(r => r.length)") == 0
    )  # nothing on load

    cdp = context.new_cdp_session(page)
    registrations: list[dict] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")
    page.evaluate(
        "navigator.serviceWorker.register('/sw.js', {scope: '/'}).then(() => navigator.serviceWorker.ready)"
        ".then(() => true)"
    )
    deadline = time.monotonic() + 10
    while not [r for r in registrations if not r.get("isDeleted")] and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    registration = next(r for r in registrations if not r.get("isDeleted"))
    assert registration["scopeURL"] == server.url + "/"

    payload = {
        "title": "Your move",
        "body": "Ana moved in Bobail.",
        "url": "/matches/abc123",
        "tag": "abc123",
    }
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": server.url, "registrationId": registration["registrationId"], "data": json.dumps(payload)},
    )
    shown: list[dict] = []
    deadline = time.monotonic() + 10
    while not shown and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        shown = page.evaluate(
            "navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.map(n => "
            "({title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url})))"
        )
    assert shown == [
        {"title": "Your move", "body": "Ana moved in Bobail.", "tag": "abc123", "url": "/matches/abc123"}
    ]
    assert prompts == []
    context.close()
