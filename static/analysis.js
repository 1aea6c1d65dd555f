// The analysis and record pages: arrow keys and Home/End step through the game (each step
// is the server's page for that ply, ?at=N), the current move is kept in sight in the move
// list, and the review's best move is drawn as an arrow on the board while the board shows
// the reviewed position. It holds no rule: the server names the arrow's points.
(() => {
  "use strict";
  const page = document.querySelector(".analysis-page");
  if (!page) return;
  const at = Number(page.dataset.at);
  const total = Number(page.dataset.total);
  const SVG = "http://www.w3.org/2000/svg";

  function go(ply) {
    const target = Math.max(0, Math.min(total, ply));
    if (target === at) return;
    const url = new URL(window.location.href);
    url.searchParams.set("at", String(target));
    url.hash = "";
    window.location.assign(url.href);
  }

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const t = event.target;
    if (t && t.closest && t.closest("input, select, textarea, [contenteditable], .board")) return;
    const step = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: total }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    go(step);
  });

  function showCurrent() {
    const list = page.querySelector(".analysis-move-list .move-list");
    const current = list && list.querySelector(".current");
    if (!current) return;
    const row = current.closest("li");
    const top = row.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + row.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - (list.clientHeight - row.offsetHeight) / 2);
    }
  }

  function centre(board, name) {
    const point = board.querySelector(`[data-point="${CSS.escape(name)}"]`);
    if (!point) return null;
    const box = (point.querySelector(".hit") || point).getBBox();
    return [box.x + box.width / 2, box.y + box.height / 2];
  }

  function drawBest() {
    const holder = page.querySelector(".analysis-left");
    const section = page.querySelector("#analysis-board");
    const board = section && section.querySelector("svg.board");
    if (!holder || !board) return;
    board.querySelectorAll(".best-arrow").forEach((el) => el.remove());
    // Only on the reviewed position, not on a variation tried from it.
    if (!holder.dataset.bestSteps || section.dataset.position !== holder.dataset.bestPosition) return;
    let steps = [];
    try { steps = JSON.parse(holder.dataset.bestSteps); } catch { return; }
    const group = document.createElementNS(SVG, "g");
    group.setAttribute("class", "best-arrow");
    group.setAttribute("aria-hidden", "true");
    const defs = document.createElementNS(SVG, "defs");
    const marker = document.createElementNS(SVG, "marker");
    marker.setAttribute("id", "best-arrow-head");
    marker.setAttribute("viewBox", "0 0 10 10");
    marker.setAttribute("refX", "5");
    marker.setAttribute("refY", "5");
    marker.setAttribute("markerWidth", "3");
    marker.setAttribute("markerHeight", "3");
    marker.setAttribute("orient", "auto-start-reverse");
    const head = document.createElementNS(SVG, "path");
    head.setAttribute("d", "M 0 0 L 10 5 L 0 10 z");
    marker.append(head);
    defs.append(marker);
    group.append(defs);
    for (const [from, to] of steps) {
      const a = centre(board, from), b = centre(board, to);
      if (!a || !b) continue;
      if (from === to) {
        const dot = document.createElementNS(SVG, "circle");
        dot.setAttribute("cx", a[0]); dot.setAttribute("cy", a[1]); dot.setAttribute("r", "0.22");
        dot.setAttribute("class", "best-dot");
        group.append(dot);
        continue;
      }
      // Stop short of the target's centre, so the head does not hide the piece there.
      const dx = b[0] - a[0], dy = b[1] - a[1], len = Math.hypot(dx, dy) || 1;
      const line = document.createElementNS(SVG, "line");
      line.setAttribute("x1", a[0]); line.setAttribute("y1", a[1]);
      line.setAttribute("x2", b[0] - (dx / len) * 0.25); line.setAttribute("y2", b[1] - (dy / len) * 0.25);
      line.setAttribute("marker-end", "url(#best-arrow-head)");
      group.append(line);
    }
    board.append(group);
    board.dataset.bestDrawn = holder.dataset.best || "";
  }

  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "analysis-board") drawBest();
  });
  showCurrent();
  drawBest();
  window.tableroAnalysis = { drawBest };
})();
