// "Notify me": subscribes this browser to Web Push only when the switch is tapped (the
// permission prompt comes from that tap, never on page load); tapped again, unsubscribes.
// The service worker (/sw.js) shows what the server sends.
(function () {
  "use strict";
  var button = document.querySelector("[data-notify-switch]");
  if (!button) return;
  var note = document.querySelector("[data-notify-note]");
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    button.hidden = true;
    if (note) note.textContent = button.dataset.unsupported || "";
    return;
  }

  function say(text) {
    if (note) note.textContent = text || "";
  }

  function set(on) {
    button.setAttribute("aria-pressed", on ? "true" : "false");
  }

  function registration() {
    return navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
      return navigator.serviceWorker.ready;
    });
  }

  function keyBytes(text) {
    var b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    var raw = atob(b64);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function send(method, body) {
    return fetch("/api/push/subscriptions", {
      method: method,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    }).then(function (response) {
      if (!response.ok && response.status !== 404) {
        return response.json().then(function (data) { throw new Error(data.detail || ""); });
      }
    });
  }

  function subscribe() {
    return Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") throw new Error(button.dataset.denied || "");
      return Promise.all([registration(), fetch("/api/push/key").then(function (r) { return r.json(); })]);
    }).then(function (both) {
      return both[0].pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(both[1].key) });
    }).then(function (subscription) {
      return send("POST", subscription.toJSON());
    });
  }

  function unsubscribe() {
    return navigator.serviceWorker.getRegistration("/").then(function (found) {
      return found && found.pushManager.getSubscription();
    }).then(function (subscription) {
      if (!subscription) return null;
      var endpoint = subscription.endpoint;
      return subscription.unsubscribe().then(function () { return send("DELETE", { endpoint: endpoint }); });
    });
  }

  // The switch shows whether this browser is subscribed; no prompt here.
  navigator.serviceWorker.getRegistration("/").then(function (found) {
    return found && found.pushManager.getSubscription();
  }).then(function (subscription) { set(!!subscription); });

  button.addEventListener("click", function () {
    var on = button.getAttribute("aria-pressed") === "true";
    button.disabled = true;
    say("");
    (on ? unsubscribe() : subscribe())
      .then(function () { set(!on); })
      .catch(function (error) { say(error.message); })
      .then(function () { button.disabled = false; });
  });
})();
