// A signed-in account's preferences (issue 30) become this browser's remembered choices
// (the keys site.js, play.js and a11y.js read) whenever they differ from the ones last
// applied here: a new device takes the account's, and a choice made on a page stays
// until the account's preferences change again. Loaded before those scripts.
(() => {
  "use strict";
  const script = document.currentScript;
  if (!script) return;
  const text = script.dataset.prefs || "{}";
  const appliedKey = "tablero-account-prefs";
  try {
    if (localStorage.getItem(appliedKey) === text) return;
    const prefs = JSON.parse(text);
    if (prefs.dark === "dark" || prefs.dark === "light") localStorage.setItem("tablero-theme", prefs.dark);
    else if (prefs.dark === "system") localStorage.removeItem("tablero-theme");
    if (typeof prefs.sound === "boolean") localStorage.setItem("tablero-mute", prefs.sound ? "0" : "1");
    if (typeof prefs.flip === "boolean") localStorage.setItem("tablero-flip-default", prefs.flip ? "1" : "0");
    if (typeof prefs.large_board === "boolean") localStorage.setItem("tablero-large-board", prefs.large_board ? "1" : "0");
    localStorage.setItem(appliedKey, text);
  } catch { /* private mode, or not JSON: the page's own defaults stay */ }
})();
