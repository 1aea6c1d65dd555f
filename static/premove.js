// Premoves in real-time games: while the opponent is to move, a move tapped from your
// pieces is queued (shown on the board and in a note, one at a time; a tap on the board,
// Escape or the note's Cancel drops it) and played the moment your turn comes, through
// play.js's own taps, so the server judges it like any move. The paths offered come from
// the server (GET /matches/{id}/premoves: every move you could have after any reply);
// when the turn comes, a premove that is not a move in the new position is dropped, and
// the note says so. Hooks: play.js's "tablero:settle" event and window.tableroPlay.tap;
// the live partial's data-time-kind and data-seat.
(() => {
  "use strict";
  const page = document.querySelector(".match-page");
  if (!page) return;
  const matchId = page.dataset.match;
  const texts = document.getElementById("premove-texts");
  const say = (key, values = {}) => {
    let text = (texts && texts.dataset[key]) || key;
    for (const [k, v] of Object.entries(values)) text = text.replace(`%(${k})s`, v);
    return text;
  };
  let tree = null; // for treePly
  let treePly = null;
  let taps = [];
  let queued = null; // the taps of the queued premove
  let note = null;

  const live = () => document.getElementById("live");
  const board = () => document.querySelector("#live svg.board");
  const pointEl = (name) => board() && board().querySelector(`[data-point="${CSS.escape(name)}"]`);

  function waiting() {
    const el = live();
    return !!el && el.dataset.seat !== "" && el.dataset.timeKind === "realtime"
      && el.dataset.status === "playing" && el.dataset.myTurn === "false"
      && el.dataset.shownPly === el.dataset.ply;
  }

  async function loadTree() {
    const el = live();
    if (!waiting()) { tree = null; treePly = null; return; }
    if (treePly === el.dataset.ply) return;
    const ply = el.dataset.ply;
    treePly = ply;
    try {
      const response = await fetch(`/matches/${matchId}/premoves`, { credentials: "same-origin" });
      if (!response.ok) { tree = null; return; }
      const data = await response.json();
      if (String(data.ply) === ply) tree = data.tree;
    } catch { tree = null; }
    show();
  }

  function nodeAt(path) {
    let node = tree;
    for (const p of path) { node = node && node.next && node.next[p]; }
    return node || null;
  }

  function show() {
    const b = board();
    if (b) {
      for (const el of b.querySelectorAll(".premove-chosen, .premove-next, .premove-queued")) {
        el.classList.remove("premove-chosen", "premove-next", "premove-queued");
      }
      const path = queued || taps;
      for (const p of path) { const el = pointEl(p); if (el) el.classList.add(queued ? "premove-queued" : "premove-chosen"); }
      const node = !queued && taps.length ? nodeAt(taps) : null;
      for (const p of Object.keys((node && node.next) || {})) { const el = pointEl(p); if (el) el.classList.add("premove-next"); }
    }
    if (queued) tell(say("queued", { move: queued.join(" → ") }), true);
  }

  function tell(text, cancellable = false) {
    if (!note) {
      note = document.createElement("div");
      note.id = "premove-note";
      note.setAttribute("role", "status");
      document.body.append(note);
    }
    note.replaceChildren();
    const p = document.createElement("span");
    p.textContent = text;
    note.append(p);
    if (cancellable) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "quiet";
      button.dataset.action = "premove-cancel";
      button.textContent = say("cancel");
      button.addEventListener("click", () => cancel());
      note.append(button);
    }
    note.hidden = !text;
    clearTimeout(note.timer);
    // A note that asks nothing goes after a while; the queued premove's stays.
    if (text && !cancellable) note.timer = setTimeout(() => { note.hidden = true; }, 6000);
  }

  function cancel(text = say("cancelled")) {
    queued = null;
    taps = [];
    show();
    tell(text);
  }

  document.addEventListener("click", (event) => {
    const point = event.target.closest && event.target.closest("#live svg.board [data-point]");
    if (!point || !waiting()) return;
    event.preventDefault();
    event.stopPropagation();
    if (queued) { cancel(); return; } // one at a time: a tap drops the queued one
    if (!tree) return;
    const name = point.dataset.point;
    const node = nodeAt(taps);
    if (taps.length && taps[taps.length - 1] === name) taps = [];
    else if (node && node.next && node.next[name]) taps = [...taps, name];
    else if (tree.next && tree.next[name]) taps = [name];
    else taps = [];
    const reached = nodeAt(taps);
    if (reached && reached.end && !reached.next) { queued = taps; taps = []; }
    show();
  }, true);

  // On the window, capturing: the board's keyboard cursor (a11y.js) captures keys on the
  // document and stops them; a premove's Escape comes first (and a11y.js's still runs).
  window.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && (queued || taps.length)) { cancel(); }
  }, true);

  function play() {
    const path = queued;
    queued = null;
    taps = [];
    // The new position's own tree (the server's data) says whether these taps are a move now.
    const b = board();
    let node = null;
    try { node = JSON.parse(b.dataset.clicks || "null"); } catch { node = null; }
    for (const p of path) node = node && node.next && node.next[p];
    if (!node || !node.move || node.next) {
      show();
      tell(say("dropped", { move: path.join(" → ") }));
      return;
    }
    tell(say("sent", { move: node.move }));
    for (const p of path) window.tableroPlay.tap(p);
  }

  document.addEventListener("tablero:settle", (event) => {
    const { before, now } = event.detail;
    if (queued && now.myTurn === "true" && now.status === "playing" && now.shownPly === now.ply
        && Number(now.ply) > Number(before.ply)) {
      play();
      return;
    }
    if (now.status !== "playing" && queued) cancel("");
    loadTree();
    show();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", loadTree);
  else loadTree();
  window.tableroPremove = { state: () => ({ queued, taps, ready: !!tree }) };
})();
