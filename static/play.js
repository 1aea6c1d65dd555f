// The match page in the browser. It walks the click tree the server put on the board
// (data-clicks: which points may come next, and which taps make a whole move), shows the
// previews and hints the server attached to its nodes, and posts a complete move once.
// It knows no rule of any game: the tree is data, and the server judges every move.
(() => {
  "use strict";
  const page = document.querySelector(".match-page");
  if (!page) return;
  const matchId = page.dataset.match;
  const store = {
    get: (key) => { try { return localStorage.getItem(key); } catch { return null; } },
    set: (key, value) => { try { localStorage.setItem(key, value); } catch { /* private mode */ } },
  };

  let taps = [];
  let posting = false;
  let treeCache = { text: null, tree: null };

  const live = () => document.getElementById("live");
  // The ply shown while the viewer browses an earlier one; null when the latest is shown.
  const browsedPly = () => {
    const el = live();
    return el && Number(el.dataset.shownPly) < Number(el.dataset.ply) ? el.dataset.shownPly : null;
  };
  // The match's changing part as this browser sees it: at a ply, or the latest (null).
  const fetchView = (at) => fetch(`/matches/${matchId}/live${at === null ? "" : `?at=${at}`}`, { headers: { "HX-Request": "true" } })
    .then((response) => response.text());
  const board = () => { const el = live(); return el ? el.querySelector("svg.board") : null; };
  const pointEl = (name) => { const b = board(); return b ? b.querySelector(`[data-point="${CSS.escape(name)}"]`) : null; };

  function tree() {
    const b = board();
    const text = b ? b.dataset.clicks || "" : "";
    if (!text) return null;
    if (treeCache.text !== text) treeCache = { text, tree: JSON.parse(text) };
    return treeCache.tree;
  }

  function nodeAt(path) {
    let node = tree();
    for (const point of path) node = node && node.next ? node.next[point] : undefined;
    return node || null;
  }

  // ------------------------------------------------------------------ drawing a selection

  function pieces(group) {
    return [...group.children].filter((el) => !el.matches(".hit, .spot, .ghost, title"));
  }

  function clearPreview(b) {
    for (const el of b.querySelectorAll(".preview")) el.remove();
    for (const el of b.querySelectorAll(".lifted, .placed")) el.classList.remove("lifted", "placed");
  }

  // A "move" preview shows the pieces of one point at another; chained moves (a capture
  // sequence) keep following the same pieces.
  function drawPreview(b, draws) {
    const shownFrom = new Map();
    for (const [kind, a, c] of draws) {
      if (kind === "place") { const el = pointEl(a); if (el) el.classList.add("placed"); continue; }
      if (kind !== "move") continue;
      const source = shownFrom.get(a) || a;
      shownFrom.delete(a);
      for (const el of b.querySelectorAll(`.preview[data-of="${CSS.escape(source)}"]`)) el.remove();
      const from = pointEl(source), to = pointEl(c);
      if (!from || !to) continue;
      from.classList.add("lifted");
      const ghost = document.createElementNS("http://www.w3.org/2000/svg", "g");
      ghost.classList.add("preview");
      ghost.dataset.of = source;
      ghost.dataset.at = c;
      ghost.setAttribute("transform", `translate(${to.dataset.x - from.dataset.x} ${to.dataset.y - from.dataset.y})`);
      for (const el of pieces(from)) ghost.appendChild(el.cloneNode(true));
      b.appendChild(ghost);
      shownFrom.set(c, source);
    }
  }

  function render() {
    const b = board();
    const root = tree();
    if (!b || !root) return;
    clearPreview(b);
    for (const el of b.querySelectorAll(".point.target, .point.chosen")) el.classList.remove("target", "chosen");
    let node = root;
    const draws = [];
    for (const point of taps) {
      node = node.next[point];
      for (const d of node.draw || []) draws.push(d);
      const el = pointEl(point);
      if (el) el.classList.add("chosen");
    }
    drawPreview(b, draws);
    for (const point of Object.keys(posting ? {} : node.next || {})) {
      const el = pointEl(point);
      if (!el) continue;
      el.classList.add("target");
    }
    const hint = taps.length ? node.hint || "" : "";
    for (const el of live().querySelectorAll("[data-hint]")) el.hidden = el.dataset.hint !== hint;
    // static/a11y.js keeps the keyboard cursor, the tab stop and the spoken labels.
    document.dispatchEvent(new CustomEvent("tablero:render", { detail: { taps: [...taps], posting } }));
  }

  function tap(point) {
    const root = tree();
    if (!root || posting) return;
    const node = nodeAt(taps);
    if (taps.length && taps[taps.length - 1] === point) taps = [];  // tapped again: put it down
    else if (node && node.next && node.next[point]) taps = [...taps, point];
    else if (root.next && root.next[point]) taps = [point];  // another piece of yours: choose it instead
    else taps = [];
    const reached = nodeAt(taps);
    if (reached && reached.move && !reached.next) {
      posting = true;
      render();
      // Hook: static/confirm.js may hold the move for a "Confirm" tap (correspondence).
      const confirm = window.tableroConfirm;
      if (confirm && confirm.wanted()) {
        confirm.ask(reached.move).then((ok) => {
          if (ok) { submit(reached.move); return; }
          posting = false;
          taps = [];
          render();
        });
        return;
      }
      submit(reached.move);
      return;
    }
    render();
  }

  // The move the tree's leaf names, posted once to the page's one door for moves; the
  // answer is the live part as it is after the move (no second request for it). A lesson
  // or puzzle page (data-submit) sends the taps to its own judge, with the line so far.
  async function submit(move) {
    const judge = page.dataset.submit;
    const body = judge
      ? new URLSearchParams({ taps: taps.join(" "), ply: live().dataset.ply })
      : new URLSearchParams({ move, ply: live().dataset.ply });
    if (judge && live().dataset.moves !== undefined) body.set("moves", live().dataset.moves);
    try {
      const response = await fetch(judge || `/matches/${matchId}/moves`, {
        method: "POST", body, headers: { "HX-Request": "true" }, credentials: "same-origin",
      });
      const html = await response.text();
      posting = false;
      taps = [];
      swapLive(html);
    } catch {
      posting = false;
      taps = [];
      render();
    }
  }

  // ------------------------------------------------------------------ taps, drags, keys

  // A drag is a press on a shown piece, a move of the pointer, and a release: the press is
  // the tap on the piece (made once the pointer has moved), the release the tap on the
  // lit point under it. A press that is not a drag stays a plain tap (the click below).
  let drag = null;
  let swallowClick = false;

  document.addEventListener("click", (event) => {
    const point = event.target.closest && event.target.closest("svg.board [data-point]");
    if (!point || !tree()) return;
    // Ours, not htmx's: the fallback attributes on the points must not post every tap.
    event.preventDefault();
    event.stopPropagation();
    if (swallowClick) { swallowClick = false; return; }
    tap(point.dataset.point);
  }, true);

  function svgPoint(svg, event) {
    const p = svg.createSVGPoint();
    p.x = event.clientX; p.y = event.clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  }

  // What a press on a point would pick up: the pieces drawn there (its own, or the preview
  // of a piece that got there by the taps so far), if the tree goes on from that tap.
  function pickUp(point) {
    const root = tree();
    const name = point.dataset.point;
    const b = board();
    if (taps.length && taps[taps.length - 1] === name) {
      // The piece being moved, shown here by the taps so far: a further drag goes on from it.
      const node = nodeAt(taps);
      const shown = b.querySelector(`.preview[data-at="${CSS.escape(name)}"]`);
      const drawn = shown ? [shown] : pieces(point);
      return node && node.next && drawn.length ? { drawn, again: false } : null;
    }
    const node = nodeAt(taps);
    const after = (node && node.next && node.next[name]) || (root.next && root.next[name]);
    // A tap that ends a move (a Morris removal, say) is no piece to carry anywhere.
    if (!after || !after.next || !pieces(point).length) return null;
    return { drawn: pieces(point), again: true };
  }

  document.addEventListener("pointerdown", (event) => {
    if (!event.isPrimary) return;  // a second finger carries nothing
    if (drag) dropDrag();  // a release this page never saw (outside the window, say)
    if (event.button !== 0 || posting || !tree()) return;
    const point = event.target.closest && event.target.closest("svg.board [data-point]");
    if (!point) return;
    const picked = pickUp(point);
    if (!picked) return;
    drag = { name: point.dataset.point, start: svgPoint(board(), event), moved: false, ghost: null, id: event.pointerId, ...picked };
  });

  function startDrag() {
    drag.moved = true;
    if (drag.again) tap(drag.name);
    const b = board();
    drag.ghost = document.createElementNS("http://www.w3.org/2000/svg", "g");
    drag.ghost.classList.add("drag-ghost");
    for (const el of drag.drawn) {
      if (el.classList.contains("preview")) {
        const copy = el.cloneNode(true);
        copy.classList.remove("preview");
        drag.ghost.appendChild(copy);
      } else {
        drag.ghost.appendChild(el.cloneNode(true));
      }
    }
    b.appendChild(drag.ghost);
    lift(true);
  }

  // The piece being carried is drawn faint where it was until it is dropped.
  function lift(on) {
    const b = board();
    if (!b || !drag) return;
    const shown = b.querySelector(`.preview[data-at="${CSS.escape(drag.name)}"]`);
    if (shown) shown.classList.toggle("carried", on);
    else { const el = pointEl(drag.name); if (el) el.classList.toggle("lifted", on); }
  }

  document.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    const b = board();
    if (!b) return;
    const at = svgPoint(b, event);
    const dx = at.x - drag.start.x, dy = at.y - drag.start.y;
    if (!drag.moved) {
      if (Math.hypot(dx, dy) < 0.2) return;
      startDrag();
    }
    // A refresh may have replaced the board under the drag: carry the piece on the new one.
    if (!drag.ghost.isConnected) { b.appendChild(drag.ghost); lift(true); }
    drag.ghost.setAttribute("transform", `translate(${dx} ${dy})`);
  });

  // Whatever a drag drew goes; the taps stay as they are. Whether the pointer had moved.
  function letGo() {
    const moved = drag.moved;
    if (drag.ghost) drag.ghost.remove();
    lift(false);
    drag = null;
    return moved;
  }
  function dropDrag() { if (letGo()) render(); }

  function endDrag(event) {
    if (!drag || event.pointerId !== drag.id) return;
    if (!letGo()) return;  // a press and a release in place: the click that follows is the tap
    // The click that ends a drag (a mouse dropped back on the same point) is not a tap of its own.
    swallowClick = true;
    setTimeout(() => { swallowClick = false; }, 0);
    const under = event.type === "pointerup" ? document.elementFromPoint(event.clientX, event.clientY) : null;
    const target = under && under.closest("svg.board [data-point]");
    // Dropped on a lit point: that tap. Anywhere else, or a drag the browser cancelled: the
    // piece goes back and stays selected.
    if (target && target.classList.contains("target")) tap(target.dataset.point);
    else render();
  }
  document.addEventListener("pointerup", endDrag);
  document.addEventListener("pointercancel", endDrag);

  document.addEventListener("keydown", (event) => {
    if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable]")) return;
    const point = event.target.closest && event.target.closest("svg.board [data-point].target");
    if (point && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      if (tree()) tap(point.dataset.point);
      else point.dispatchEvent(new MouseEvent("click", { bubbles: true }));  // the analysis board's htmx
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey || page.dataset.submit) return;  // a lesson has no move list to browse
    const el = live();
    if (!el) return;
    // Keys pressed faster than the positions arrive go on from the one asked for last.
    const shown = wanted !== null ? wanted : Number(el.dataset.shownPly), total = Number(el.dataset.ply);
    const to = { ArrowLeft: shown - 1, ArrowRight: shown + 1, Home: 0, End: total }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    browse(to);
  });

  // ------------------------------------------------------------------ browsing

  let wanted = null;
  let browsing = 0;

  async function browse(ply) {
    const el = live();
    const total = Number(el.dataset.ply);
    const to = Math.max(0, Math.min(total, ply));
    if (to === (wanted !== null ? wanted : Number(el.dataset.shownPly))) return;
    wanted = to;
    const ticket = ++browsing;
    try {
      const html = await fetchView(to < total ? to : null);
      if (ticket !== browsing) return;  // a later step was asked for: show that one
      swapLive(html, true);
    } finally {
      if (ticket === browsing) wanted = null;
    }
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("#live a[data-at]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    browse(Number(link.dataset.at));
  });

  // Every page's view arrives inside the event (a player's rendered for its browser, a
  // spectator's once for all): shown through the same swap as the move's answer, which
  // ignores a version the page already shows (the mover's own move), or, while browsing
  // an earlier ply, taken as the cue to re-fetch that ply.
  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    if (!event.target.classList || !event.target.classList.contains("live-push")) return;
    event.preventDefault();
    const at = browsedPly();
    if (at !== null) {
      fetchView(at).then((html) => swapLive(html, true));
      return;
    }
    swapLive(event.detail.data);
  });

  // A sign-up, sign-in or sign-out (in this tab or another: site.js) changes who this
  // browser is. The open stream renders each view for the cookies it connected with, so
  // after that change it would send this seat's player a view without the seat. It is
  // reopened (htmx.swap cleans the old one up, which closes its EventSource) from the
  // version shown, and the view is fetched again as the new identity sees it.
  document.addEventListener("tablero:who", () => {
    const stream = page.querySelector("[sse-connect]");
    const el = live();
    if (!stream || !el || !window.htmx) return;
    const address = new URL(stream.getAttribute("sse-connect"), window.location.href);
    address.searchParams.set("since", el.dataset.version);
    const fresh = stream.cloneNode(true);
    fresh.setAttribute("sse-connect", address.pathname + address.search);
    window.htmx.swap(stream, fresh.outerHTML, { swapStyle: "outerHTML" });
    fetchView(browsedPly()).then((html) => swapLive(html, true));
  });

  // ------------------------------------------------------------------ after every swap

  let previous = live() ? { ...live().dataset } : null;
  let lapsed = [];
  let lapsedAt = null;

  function swapLive(html, browsed = false) {
    const holder = document.createElement("template");
    holder.innerHTML = html.trim();
    const incoming = holder.content.querySelector("#live");
    const current = live();
    if (!incoming || !current) { render(); return; }
    const older = Number(incoming.dataset.version) < Number(current.dataset.version);
    // An answer about a change the event stream has already shown changes nothing.
    const same = !browsed && incoming.dataset.version === current.dataset.version
      && incoming.dataset.shownPly === current.dataset.shownPly && !incoming.querySelector(".error");
    if (older || same) { render(); return; }
    current.replaceWith(incoming);
    if (window.htmx) window.htmx.process(incoming);
    settle();
  }
  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "live") settle();
  });

  function settle() {
    const el = live();
    if (!el) return;
    const now = { ...el.dataset };
    const before = previous || now;
    previous = now;
    if (!nodeAt(taps)) taps = [];
    render();
    const sameView = before.shownPly === now.shownPly && before.ply === now.ply;
    if (!sameView && Number(now.shownPly) === Number(before.shownPly) + 1) animate();
    feedback(before, now);
    if (now.rematch && !before.rematch) { window.location.assign(`/matches/${now.rematch}`); return; }
    const url = new URL(window.location.href);
    if (Number(now.shownPly) < Number(now.ply)) url.searchParams.set("at", now.shownPly);
    else url.searchParams.delete("at");
    if (url.href !== window.location.href) history.replaceState(null, "", url);
    showLatestMove();
    updateTitle();
    applyTools();  // the new view's tool buttons say the page's state (muted, flipped)
    document.dispatchEvent(new CustomEvent("tablero:settle", { detail: { before, now } }));
  }

  function animate() {
    const b = board();
    if (!b || window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    let steps = [];
    try { steps = JSON.parse(b.dataset.steps || "[]"); } catch { return; }
    for (const [from, to] of steps) {
      const a = pointEl(from), c = pointEl(to);
      if (!a || !c) continue;
      const moving = pieces(c);
      for (const el of moving) {
        el.style.transition = "none";
        el.style.transform = `translate(${a.dataset.x - c.dataset.x}px, ${a.dataset.y - c.dataset.y}px)`;
      }
      requestAnimationFrame(() => requestAnimationFrame(() => {
        for (const el of moving) { el.style.transition = ""; el.style.transform = ""; }
      }));
    }
  }

  function feedback(before, now) {
    const progressed = Number(now.ply) > Number(before.ply);
    if (progressed) {
      lapsed = [];
      if (before.drawOffer && !now.drawOffer) lapsed.push("draw");
      if (before.takebackOffer && !now.takebackOffer) lapsed.push("takeback");
      lapsedAt = now.ply;
    }
    // The note stays until the next move, whatever refreshes come in between.
    for (const note of live().querySelectorAll("[data-note]")) {
      note.hidden = !(now.status === "playing" && now.ply === lapsedAt && lapsed.includes(note.dataset.note));
    }
    if (now.status === "finished" && before.status !== "finished") sound("end");
    else if (progressed && now.shownPly === now.ply) {
      if (now.lastKind === "capture") sound("capture");
      else sound(now.myTurn === "true" ? "turn" : "move");
    }
  }

  function sound(name) {
    if (store.get("tablero-mute") === "1") return;
    const audio = new Audio(`/static/sounds/${name}.wav`);
    audio.volume = 0.6;
    audio.play().catch(() => { /* no sound device, or the browser wants a tap first */ });
  }

  function showLatestMove() {
    const list = live().querySelector(".move-list");
    if (!list) return;
    const current = list.querySelector(".current") || list.lastElementChild;
    if (!current) return;
    const row = current.closest("li") || current;
    const top = row.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + row.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top - list.clientHeight + row.offsetHeight + 4;
    }
  }

  function updateTitle() {
    const el = live();
    const mine = el.dataset.myTurn === "true";
    document.title = (mine ? `${el.dataset.yourMove} ` : "") + el.dataset.title;
  }

  // ------------------------------------------------------------------ the tool buttons

  // A match remembers its own flip; one never flipped here follows the account's "board
  // flip" preference (static/prefs.js keeps it as tablero-flip-default).
  const flipKey = `tablero-flip:${matchId}`;
  const flipped = () => (store.get(flipKey) ?? store.get("tablero-flip-default")) === "1";
  function applyTools() {
    page.classList.toggle("flipped", flipped());
    const muted = store.get("tablero-mute") === "1";
    for (const b of document.querySelectorAll("[data-tool=sound]")) {
      b.setAttribute("aria-pressed", muted ? "false" : "true");
      b.classList.toggle("muted", muted);
    }
    for (const b of document.querySelectorAll("[data-tool=flip]")) b.setAttribute("aria-pressed", page.classList.contains("flipped") ? "true" : "false");
  }
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-tool]");
    if (!button) return;
    const tool = button.dataset.tool;
    if (tool === "flip") store.set(flipKey, flipped() ? "0" : "1");
    if (tool === "sound") store.set("tablero-mute", store.get("tablero-mute") === "1" ? "0" : "1");
    if (tool === "theme" && window.tableroTheme) window.tableroTheme.toggle();
    applyTools();
  });
  document.addEventListener("htmx:afterSwap", applyTools);

  // What static/a11y.js drives: the same taps as a pointer, and the same swap.
  window.tableroPlay = {
    tap: (point) => tap(point),
    clear: () => { if (!posting) { taps = []; render(); } },
    hasTree: () => tree() !== null,
    swapLive,
  };

  applyTools();
  render();
  showLatestMove();
  updateTitle();
})();
