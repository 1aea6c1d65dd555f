// Passkeys on the sign-up, sign-in and account pages: the two calls of each ceremony
// (options from the server, the browser's credential back to it). The server checks
// everything; this file only converts between JSON (base64url) and ArrayBuffers.
(() => {
  "use strict";
  const root = document.querySelector("[data-passkeys]");
  if (!root) return;
  const status = root.querySelector("[data-passkey-status]");
  const supported = !!(window.PublicKeyCredential && navigator.credentials);
  root.classList.toggle("passkeys-on", supported);
  root.classList.toggle("passkeys-off", !supported);
  if (!supported) return;

  const toBytes = (text) => {
    const b64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
  };
  const toText = (buffer) => {
    let s = "";
    for (const byte of new Uint8Array(buffer)) s += String.fromCharCode(byte);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  const creationOptions = (o) => ({
    ...o,
    challenge: toBytes(o.challenge),
    user: { ...o.user, id: toBytes(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
  });
  const requestOptions = (o) => ({
    ...o,
    challenge: toBytes(o.challenge),
    allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
  });
  const asJSON = (cred) => {
    const r = cred.response;
    const response = { clientDataJSON: toText(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toText(r.attestationObject);
      if (r.getTransports) response.transports = r.getTransports();
    } else {
      response.authenticatorData = toText(r.authenticatorData);
      response.signature = toText(r.signature);
      if (r.userHandle) response.userHandle = toText(r.userHandle);
    }
    return {
      id: cred.id, rawId: toText(cred.rawId), type: cred.type, response,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
    };
  };
  const post = async (url, body) => {
    const answer = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body || {}),
    });
    const data = await answer.json().catch(() => ({}));
    if (!answer.ok) throw new Error(data.detail || String(answer.status));
    return data;
  };
  const say = (text) => { if (status) status.textContent = text; };
  const failed = (err) => say(`${root.dataset.failed} ${err && err.message ? err.message : ""}`.trim());

  const ceremonies = {
    async signup(button) {
      const username = root.querySelector("input[name=username]").value;
      const start = await post("/api/account/passkey/options", { username });
      const cred = await navigator.credentials.create({ publicKey: creationOptions(start.options) });
      const done = await post("/api/account/passkey", { ceremony: start.ceremony, credential: asJSON(cred) });
      const list = document.querySelector("[data-new-codes]");
      if (list) {
        list.replaceChildren(...done.recovery_codes.map((code) => {
          const li = document.createElement("li"); li.textContent = code; return li;
        }));
        document.querySelector("[data-codes-panel]").hidden = false;
        if (window.tableroWho) window.tableroWho.told(done.username || username);
        const header = document.querySelector("header .whoami");
        if (header && window.htmx) window.htmx.trigger(header, "tablero:who");
        root.querySelector("[data-signup-forms]").hidden = true;
        say(button.dataset.done);
      }
    },
    async signin() {
      const start = await post("/api/session/passkey/options", {});
      const cred = await navigator.credentials.get({ publicKey: requestOptions(start.options) });
      await post("/api/session/passkey", { ceremony: start.ceremony, credential: asJSON(cred) });
      window.location.assign(root.dataset.next || "/games");
    },
    async add() {
      const start = await post("/api/account/passkeys/options", {});
      const cred = await navigator.credentials.create({ publicKey: creationOptions(start.options) });
      await post("/api/account/passkeys", { ceremony: start.ceremony, credential: asJSON(cred) });
      window.location.reload();
    },
    async close() {
      const start = await post("/api/session/passkey/options", {});
      const cred = await navigator.credentials.get({ publicKey: requestOptions(start.options) });
      const answer = await fetch("/api/account", {
        method: "DELETE", credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ ceremony: start.ceremony, credential: asJSON(cred) }),
      });
      if (!answer.ok) throw new Error((await answer.json().catch(() => ({}))).detail || String(answer.status));
      window.location.assign("/");
    },
    async remove(button) {
      const answer = await fetch(`/api/account/passkeys/${button.dataset.id}`, { method: "DELETE", credentials: "same-origin" });
      if (!answer.ok) throw new Error((await answer.json().catch(() => ({}))).detail || String(answer.status));
      window.location.reload();
    },
  };

  root.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-passkey]");
    if (!button) return;
    event.preventDefault();
    button.disabled = true;
    say(button.dataset.working || "");
    try {
      await ceremonies[button.dataset.passkey](button);
    } catch (err) {
      failed(err);
    } finally {
      button.disabled = false;
    }
  });
})();
