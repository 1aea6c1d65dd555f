// Playing without a mouse and without seeing the board. The board is one tab stop with a
// cursor the arrow keys move along the map the server sent (data-nav); Enter or Space taps
// through play.js's own walker; the live region speaks the words the server wrote
// (partials/said.html). Typed moves and commands go to the server, which answers them.
// Nothing here knows a rule of any game.
(() => {
  "use strict";
  const page = document.querySelector(".match-page");
  if (!page) return;
  const matchId = page.dataset.match;
  const play = () => window.tableroPlay;
  const board = () => document.querySelector("#live svg.board");
  const pointEl = (name) => {
    const b = board();
    return b && name !== null ? b.querySelector(`[data-point="${CSS.escape(name)}"]`) : null;
  };

  let cursor = null;        // the point the cursor is on
  let boardFocused = false;  // put focus back on the board after a refresh
  let byKeys = false;        // and show its ring only if the player got there by the keyboard
  let navCache = { text: null, nav: {} };

  function nav() {
    const b = board();
    const text = b ? b.dataset.nav || "{}" : "{}";
    if (navCache.text !== text) navCache = { text, nav: JSON.parse(text) };
    return navCache.nav;
  }

  // ------------------------------------------------------------------ speaking

  const announcer = () => document.getElementById("announcer");
  let speakTimer = null;
  function speak(text) {
    const region = announcer();
    if (!region || !text) return;
    // Emptied first so the same words said twice are spoken twice.
    region.textContent = "";
    clearTimeout(speakTimer);
    speakTimer = setTimeout(() => { region.textContent = text; }, 60);
  }
  // For other parts of the page (a clock running low, say) to speak through the same region.
  window.tableroAnnounce = speak;

  function said() {
    const el = document.querySelector("#live .said");
    return el ? { ...el.dataset } : {};
  }

  // ------------------------------------------------------------------ the cursor

  function labelOf(el) {
    const b = board();
    const parts = [el.dataset.label || el.dataset.point];
    if (el.classList.contains("chosen")) parts.push(b.dataset.saidChosen);
    else if (el.classList.contains("target")) parts.push(b.dataset.saidTarget);
    if (el.classList.contains("last")) parts.push(b.dataset.saidLast);
    return parts.filter(Boolean).join(", ");
  }

  function sync() {
    const b = board();
    if (!b) return;
    const points = [...b.querySelectorAll("[data-point]")];
    if (!points.length) return;
    if (!pointEl(cursor)) {
      const first = b.querySelector(".point.chosen") || b.querySelector(".point.target") || b.querySelector(".point.last") || points[0];
      cursor = first.dataset.point;
    }
    for (const el of points) {
      const here = el.dataset.point === cursor;
      el.setAttribute("tabindex", here ? "0" : "-1");
      el.classList.toggle("cursor", here);
      el.setAttribute("aria-label", labelOf(el));
    }
    const el = pointEl(cursor);
    if (boardFocused && el && document.activeElement !== el) el.focus({ preventScroll: true, focusVisible: byKeys });
  }

  function moveCursor(direction) {
    const el = pointEl(cursor);
    if (!el) return;
    // A board turned over by the flip button shows up where the map says down.
    const flipped = page.classList.contains("flipped");
    const order = ["up", "right", "down", "left"];
    let index = order.indexOf(direction);
    if (flipped) index = (index + 2) % 4;
    const next = (nav()[cursor] || [])[index];
    if (!next || !pointEl(next)) return;
    cursor = next;
    boardFocused = true;
    sync();
  }

  // Before the board's own key handler, which stops the event.
  document.addEventListener("keydown", () => { byKeys = true; }, true);
  document.addEventListener("keydown", (event) => {
    const el = event.target.closest && event.target.closest("svg.board [data-point]");
    if (!el || event.altKey || event.ctrlKey || event.metaKey) return;
    const direction = { ArrowUp: "up", ArrowRight: "right", ArrowDown: "down", ArrowLeft: "left" }[event.key];
    if (direction) {
      moveCursor(direction);
    } else if (event.key === "Enter" || event.key === " ") {
      cursor = el.dataset.point;
      const api = play();
      if (api && api.hasTree()) {
        api.tap(cursor);
        const now = pointEl(cursor);
        if (now && now.classList.contains("chosen")) speak(labelOf(now));
      } else {
        speak(labelOf(el));
      }
    } else if (event.key === "Escape") {
      const api = play();
      if (api) api.clear();
    } else {
      return;
    }
    // Ours: play.js's arrow keys browse the move list, but not from the board.
    event.preventDefault();
    event.stopImmediatePropagation();
  }, true);

  document.addEventListener("focusin", (event) => {
    const el = event.target.closest && event.target.closest("svg.board [data-point]");
    if (el) { boardFocused = true; cursor = el.dataset.point; sync(); }
    else if (event.target !== document.body) boardFocused = false;
  });
  // A click elsewhere means the player is somewhere else: refreshes must not pull focus back.
  document.addEventListener("pointerdown", (event) => {
    byKeys = false;
    if (!(event.target.closest && event.target.closest("svg.board"))) boardFocused = false;
  });

  // ------------------------------------------------------------------ what changed

  let heard = said();
  let seen = live() ? { ...live().dataset } : {};
  function live() { return document.getElementById("live"); }

  function onSettle() {
    const now = live() ? { ...live().dataset } : {};
    const words = said();
    const parts = [];
    const moved = now.ply !== seen.ply || now.shownPly !== seen.shownPly;
    if (moved && words.last) parts.push(words.last);
    if (words.end && words.end !== heard.end) parts.push(words.end);
    if (words.offers && words.offers !== heard.offers) parts.push(words.offers);
    if (moved || now.status !== seen.status) { if (words.turn) parts.push(words.turn); }
    seen = now;
    heard = words;
    if (parts.length) speak(parts.join(" "));
    sync();
  }
  document.addEventListener("tablero:render", sync);
  document.addEventListener("tablero:settle", onSettle);

  // ------------------------------------------------------------------ typed moves and commands

  const typed = document.querySelector("section.typed");
  const answer = (text) => {
    const el = document.getElementById("typed-answer");
    if (el) el.textContent = text;
  };

  async function send(text) {
    const ply = live() ? live().dataset.ply : "-1";
    const body = new URLSearchParams({ text, ply });
    const response = await fetch(`/matches/${matchId}/typed`, { method: "POST", body, credentials: "same-origin" });
    const reply = await response.json();
    if (reply.answer !== undefined) { answer(reply.answer); return; }
    // A move: played through the page's one door for moves, which answers the live part
    // as it is after the move (a refusal says why in it).
    const played = await fetch(`/matches/${matchId}/moves`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "HX-Request": "true" },
      body: new URLSearchParams({ move: reply.move, ply }),
    });
    answer("");
    const api = play();
    if (api) api.swapLive(await played.text());
  }

  if (typed) {
    typed.hidden = false;
    typed.querySelector("form").addEventListener("submit", (event) => {
      event.preventDefault();
      const input = typed.querySelector("input[name=text]");
      const text = input.value.trim();
      if (!text) return;
      input.value = "";
      send(text).catch(() => answer(typed.dataset.failed || ""));
    });
  }

  // ------------------------------------------------------------------ the large board

  const largeKey = "tablero-large-board";
  function applyLarge() {
    let on = false;
    try { on = localStorage.getItem(largeKey) === "1"; } catch { /* private mode */ }
    page.classList.toggle("large-board", on);
    for (const b of document.querySelectorAll("[data-tool=large-board]")) b.setAttribute("aria-pressed", on ? "true" : "false");
  }
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-tool=large-board]");
    if (!button) return;
    try { localStorage.setItem(largeKey, page.classList.contains("large-board") ? "0" : "1"); } catch { /* private mode */ }
    applyLarge();
  });

  applyLarge();
  sync();
})();
