// Presentation only: copy buttons. No game rules live here; the server decides everything.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const field = document.querySelector(button.dataset.copy);
  if (!field) return;
  field.select();
  const done = () => { button.dataset.copied = "true"; setTimeout(() => delete button.dataset.copied, 1500); };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, () => document.execCommand("copy"));
  else { document.execCommand("copy"); done(); }
});

// The ladder clock: the server measures think time; this only keeps the shown figure
// moving between updates, starting from what the server rendered.
const tenths = (ms) => (ms / 1000).toLocaleString(document.documentElement.lang, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false });
function tickClocks() {
  for (const clock of document.querySelectorAll(".clock[data-running=true]")) {
    if (!clock.dataset.shownAt) clock.dataset.shownAt = String(Date.now());
    const extra = Date.now() - Number(clock.dataset.shownAt);
    const turn = Number(clock.dataset.turnMs) + extra;
    const total = Number(clock.dataset.doneMs) + turn;
    clock.querySelector(".clock-turn").textContent = tenths(turn);
    clock.querySelector(".clock-total").textContent = tenths(total);
  }
}
setInterval(tickClocks, 100);

// Answers can arrive out of order (a move's answer after its own event's view, or the
// other way round): never let an older view replace a newer one.
function liveVersion(text) {
  const found = /id="live"[^>]*data-version="(\d+)"/.exec(text);
  return found ? Number(found[1]) : null;
}
document.addEventListener("htmx:beforeSwap", (event) => {
  const current = document.getElementById("live");
  const target = event.detail.target;
  if (!current || !target || target.id !== "live") return;
  const incoming = liveVersion(event.detail.serverResponse || "");
  if (incoming === null) return;
  const shown = Number(current.dataset.version);
  if (incoming < shown) event.detail.shouldSwap = false;
});

// Dark or light: the system decides unless the player chose (remembered in this browser).
window.tableroTheme = {
  apply() {
    let chosen = null;
    try { chosen = localStorage.getItem("tablero-theme"); } catch { /* private mode */ }
    if (chosen === "dark" || chosen === "light") document.documentElement.dataset.theme = chosen;
    else delete document.documentElement.dataset.theme;
  },
  toggle() {
    const dark = document.documentElement.dataset.theme
      ? document.documentElement.dataset.theme === "dark"
      : window.matchMedia("(prefers-color-scheme: dark)").matches;
    try { localStorage.setItem("tablero-theme", dark ? "light" : "dark"); } catch { /* private mode */ }
    this.apply();
  },
};
window.tableroTheme.apply();

// The language switch keeps the whole address, so a shared ?at= position survives it.
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest("nav.lang a[hreflang]");
  if (!link) return;
  const next = window.location.pathname + window.location.search;
  link.href = `/lang/${link.hreflang}?next=${encodeURIComponent(next)}`;
});

// Who is signed in, told across this browser's tabs: a page that loads signed in (or
// out) writes the name to localStorage, and every other open tab hears of the change and
// asks the server for its header again (/whoami). A game being played goes on under the
// account it now belongs to, without a reload. The server alone says who you are.
const WHO_KEY = "tablero-who";
window.tableroWho = {
  told(name) { try { if (localStorage.getItem(WHO_KEY) !== name) localStorage.setItem(WHO_KEY, name); } catch { /* private mode */ } },
};
document.addEventListener("DOMContentLoaded", () => {
  const shown = document.querySelector("header .whoami");
  if (shown) window.tableroWho.told(shown.dataset.who || "");
});
window.addEventListener("storage", (event) => {
  if (event.key !== WHO_KEY) return;
  const shown = document.querySelector("header .whoami");
  if (shown && (shown.dataset.who || "") !== (event.newValue || "") && window.htmx) window.htmx.trigger(shown, "tablero:who");
});
