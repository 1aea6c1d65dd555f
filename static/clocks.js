// Match clocks: counts the server's figures down between updates. The server measured
// each clock (data-ms, at data-at) and alone decides a flag; this only moves the shown
// figure, from the moment the figure arrived, so a wrong clock on this computer does not
// matter. One short sound when the viewer's own clock first goes under the warning time,
// and words for a screen reader as it passes each limit the server named.
(() => {
  const arrived = new WeakMap();
  const warned = new Set(JSON.parse(sessionStorage.getItem("tablero-low-time") || "[]"));

  function text(ms) {
    ms = Math.max(0, ms);
    if (ms < 10000) return `0:${String(Math.floor(ms / 1000)).padStart(2, "0")}.${Math.floor((ms % 1000) / 100)}`;
    let seconds = Math.floor(ms / 1000);
    const days = Math.floor(seconds / 86400); seconds %= 86400;
    const hours = Math.floor(seconds / 3600); seconds %= 3600;
    const minutes = Math.floor(seconds / 60); seconds %= 60;
    const two = (n) => String(n).padStart(2, "0");
    if (days) return `${days}d ${two(hours)}h`;
    if (hours) return `${hours}:${two(minutes)}:${two(seconds)}`;
    return `${minutes}:${two(seconds)}`;
  }

  function beep() {
    try {
      const audio = new (window.AudioContext || window.webkitAudioContext)();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 880;
      gain.gain.value = 0.1;
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.15);
    } catch (_) { /* no sound: the colour still warns */ }
  }

  // Spoken warnings (app/services/clock_words.py): the server wrote on the viewer's own
  // clock the words for each limit; each is said once per move, when the count goes under
  // it. The count is followed across refreshes (a refresh draws a new element) by match,
  // side and ply; a limit already passed when the move's figure arrived is not said.
  const followed = new Map();
  const spoken = new Set();
  function sayLow(clock, left) {
    if (!clock.dataset.lowSaid || !window.tableroAnnounce) return;
    const key = `${clock.dataset.match}:${clock.dataset.side}`;
    const ply = clock.dataset.ply;
    const before = followed.get(key);
    const from = before && before.ply === ply ? before.left : Number(clock.dataset.ms);
    followed.set(key, { ply, left });
    let words = null;
    let lowest = Infinity;
    for (const [limit, text] of Object.entries(JSON.parse(clock.dataset.lowSaid))) {
      const ms = Number(limit);
      const once = `${key}:${ply}:${ms}`;
      if (from >= ms && left < ms && !spoken.has(once)) {
        spoken.add(once);
        // Several passed in one tick (a hidden tab ticks slowly): only the lowest is news.
        if (ms < lowest) { lowest = ms; words = text; }
      }
    }
    if (words) window.tableroAnnounce(words);
  }

  function tick() {
    const now = performance.now();
    for (const clock of document.querySelectorAll("[data-game-clock]")) {
      if (!arrived.has(clock)) arrived.set(clock, now);
      if (clock.dataset.running !== "true") continue;
      const left = Number(clock.dataset.ms) - (now - arrived.get(clock));
      clock.textContent = text(left);
      sayLow(clock, left);
      const low = Number(clock.dataset.lowMs);
      if (low && left < low) {
        clock.classList.add("low");
        const key = `${clock.dataset.match}:${clock.dataset.side}`;
        if (clock.dataset.mine === "true" && !warned.has(key)) {
          warned.add(key);
          sessionStorage.setItem("tablero-low-time", JSON.stringify([...warned]));
          beep();
        }
      }
    }
  }
  // Anchor each figure as soon as it is on the page, not up to a tick later.
  tick();
  setInterval(tick, 100);
  document.addEventListener("htmx:afterSettle", tick);
  document.addEventListener("tablero:settle", tick);  // a view swapped in from an event or a move's answer
})();
