// The lesson pages: progress kept in this browser, and the server's verdict spoken.
// Moves are walked and posted by play.js, judged by the server; nothing here knows a rule.
(() => {
  "use strict";
  const KEY = "tablero-learn";
  function load() {
    try { return JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { return {}; }
  }
  function save(progress) {
    try { localStorage.setItem(KEY, JSON.stringify(progress)); } catch { /* private mode */ }
  }
  // progress[game][lesson] is the list of step numbers done.
  function markDone(game, lesson, step) {
    const progress = load();
    const lessons = progress[game] = progress[game] || {};
    const steps = new Set(lessons[lesson] || []);
    steps.add(Number(step));
    lessons[lesson] = [...steps].sort((a, b) => a - b);
    save(progress);
  }

  // The index: a tick beside each lesson whose every step is done.
  const progress = load();
  for (const item of document.querySelectorAll(".lesson-list li[data-lesson]")) {
    const steps = ((progress[item.dataset.game] || {})[item.dataset.lesson] || []).length;
    const tick = item.querySelector(".lesson-done");
    if (tick) tick.hidden = steps < Number(item.dataset.steps);
  }

  // After every new board: record a completed step and say the verdict.
  let said = null;
  function settle() {
    const live = document.getElementById("live");
    if (!live || !live.classList.contains("learn-live")) return;
    const data = live.dataset;
    if (data.done === "true") markDone(data.game, data.lesson, data.step);
    const words = data.said || "";
    if (words && words !== said && window.tableroAnnounce) window.tableroAnnounce(words);
    said = words;
    const next = live.querySelector("[data-action=next]");
    if (next && data.done === "true" && document.activeElement === document.body) next.focus({ preventScroll: true });
  }
  document.addEventListener("tablero:settle", () => { said = null; settle(); });
  settle();
})();
