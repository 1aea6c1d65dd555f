// Questions a player must answer now (the claim after the opponent left, abort, offers):
// the server puts each in the banner with data-prompt="KIND:PLY" and data-prompt-title;
// this script only makes them noticed: a sound once per question (unless muted), the tab's
// title starting with the question while it stands, and a spoken line for screen readers.
// It decides nothing. Hooks: play.js's "tablero:settle" event (after each swap of #live, once
// play.js has set the title) and the claim the event stream sends (#claims).
(() => {
  "use strict";
  const store = {
    get: (key) => { try { return localStorage.getItem(key); } catch { return null; } },
  };
  const script = document.currentScript;
  const soundUrl = (script && script.dataset.sound) || "/static/sounds/prompt.wav";
  const seen = new Set();
  const timers = new Map();
  let prefix = "";

  function prompts() {
    return [...document.querySelectorAll("[data-prompt]")].filter((el) => el.isConnected);
  }

  function baseTitle() {
    return prefix && document.title.startsWith(prefix) ? document.title.slice(prefix.length) : document.title;
  }

  function sound() {
    if (store.get("tablero-mute") === "1") return;
    const audio = new Audio(soundUrl);
    audio.volume = 0.7;
    audio.play().catch(() => { /* no sound device, or the browser wants a tap first */ });
  }

  function notice(el) {
    const key = el.dataset.prompt;
    if (seen.has(key)) return;
    seen.add(key);
    sound();
    const text = el.querySelector("p");
    if (text && window.tableroAnnounce) window.tableroAnnounce(text.textContent.trim());
  }

  function update() {
    const base = baseTitle();
    const standing = prompts();
    const due = [];
    for (const el of standing) {
      const key = el.dataset.prompt;
      const after = Number(el.dataset.promptAfter || 0) * 1000;
      if (after > 0 && !seen.has(key)) {
        // Not yet: a question that is only worth a sound after a while (abort).
        if (!timers.has(key)) timers.set(key, { at: Date.now() + after, id: setTimeout(update, after) });
        if (Date.now() < timers.get(key).at) continue;
      }
      due.push(el);
    }
    for (const [key, timer] of timers) {
      if (!standing.some((el) => el.dataset.prompt === key)) { clearTimeout(timer.id); timers.delete(key); }
    }
    due.forEach(notice);
    prefix = due.length ? `❗ ${due[0].dataset.promptTitle} · ` : "";
    document.title = prefix + base;
    document.body.classList.toggle("has-prompt", due.length > 0);
  }

  document.addEventListener("tablero:settle", update);
  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "claims") update();
  });
  // The claim pushed by the player's event stream: nothing to swap while an earlier ply
  // is browsed (the banner has no claim slot then; the next view brings it).
  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    if (!event.target.classList || !event.target.classList.contains("claims-push")) return;
    if (!document.getElementById("claims")) event.preventDefault();
  });
  document.addEventListener("htmx:sseMessage", (event) => {
    if (event.target.classList && event.target.classList.contains("claims-push")) update();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", update);
  else update();
  window.tableroPrompts = { update };
})();
