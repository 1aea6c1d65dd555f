// Match clocks: counts the server's figures down between updates. The server measured
// each clock (data-ms, at data-at) and alone decides a flag; this only moves the shown
// figure. One short sound when the viewer's own clock first goes under the warning time,
// and words for a screen reader as it passes each limit the server named.
(() => {
  const arrived = new WeakMap();  // clock element -> {t: performance.now(), ms: its figure then}

  // The server's time, without trusting this computer's clock: the page's
  // <meta name="tablero-now"> (the server's ms as it rendered the page) counted on, on the
  // monotonic clock, from when the page's first byte came.
  const sent = Number(document.querySelector('meta[name="tablero-now"]')?.content);
  const navigation = performance.getEntriesByType("navigation")[0];
  const firstByte = navigation ? navigation.responseStart : 0;
  const serverNow = (t) => sent + (t - firstByte);

  // A running figure as it stands when it arrives. A view may be rendered well before it
  // comes (one rendered for a version is sent again to a stream that reconnects later):
  // the time since its data-at has run off that clock too.
  function figureOnArrival(clock, t) {
    const ms = Number(clock.dataset.ms);
    const at = Date.parse(clock.dataset.at || "");
    if (clock.dataset.running !== "true" || !sent || Number.isNaN(at)) return ms;
    return ms - Math.max(0, serverNow(t) - at);
  }
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
  function sayLow(clock, left, atArrival) {
    if (!clock.dataset.lowSaid || !window.tableroAnnounce) return;
    const key = `${clock.dataset.match}:${clock.dataset.side}`;
    const ply = clock.dataset.ply;
    const before = followed.get(key);
    const from = before && before.ply === ply ? before.left : atArrival;
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
      if (!arrived.has(clock)) arrived.set(clock, { t: now, ms: figureOnArrival(clock, now) });
      if (clock.dataset.running !== "true") continue;
      const got = arrived.get(clock);
      const left = got.ms - (now - got.t);
      clock.textContent = text(left);
      sayLow(clock, left, got.ms);
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
