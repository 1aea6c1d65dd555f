// Tablero's service worker (served as /sw.js, scope "/"): shows a push's notification and,
// on a click, focuses a tab already on the match or opens it. The payload is the server's
// JSON {"title", "body", "url", "tag"}; the tag replaces an older notification of the same match.
"use strict";

self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = {};
  }
  var url = typeof data.url === "string" && data.url.charAt(0) === "/" && data.url.charAt(1) !== "/" ? data.url : "/";
  event.waitUntil(
    self.registration.showNotification(String(data.title || "Tablero"), {
      body: String(data.body || ""),
      tag: String(data.tag || "tablero"),
      renotify: true,
      icon: "/static/favicon.svg",
      data: { url: url },
    })
  );
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var target = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
      for (var i = 0; i < windows.length; i++) {
        if (windows[i].url.split("?")[0] === target.split("?")[0] && "focus" in windows[i]) return windows[i].focus();
      }
      return self.clients.openWindow(target);
    })
  );
});
