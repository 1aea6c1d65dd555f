// Move confirmation in correspondence games: a complete move waits, shown on the board,
// for a "Confirm" tap; "Take back" (or Escape) puts it back and nothing is sent. A
// preference, on by default, kept in this browser (localStorage "tablero-confirm-moves";
// the bar's check box turns it off). Hook: play.js asks window.tableroConfirm before it
// posts a move; the live partial's data-time-kind says correspondence.
(() => {
  "use strict";
  const KEY = "tablero-confirm-moves";
  const texts = document.getElementById("premove-texts");
  const say = (key, values = {}) => {
    let text = (texts && texts.dataset[key]) || key;
    for (const [k, v] of Object.entries(values)) text = text.replace(`%(${k})s`, v);
    return text;
  };
  const store = {
    get: () => { try { return localStorage.getItem(KEY); } catch { return null; } },
    set: (v) => { try { localStorage.setItem(KEY, v); } catch { /* private mode */ } },
  };
  let pending = null;

  function wanted() {
    const live = document.getElementById("live");
    return !!live && live.dataset.timeKind === "correspondence" && store.get() !== "0";
  }

  function bar() {
    let el = document.getElementById("confirm-bar");
    if (el) return el;
    el = document.createElement("div");
    el.id = "confirm-bar";
    el.setAttribute("role", "alertdialog");
    el.setAttribute("aria-labelledby", "confirm-text");
    el.hidden = true;
    el.innerHTML = "";
    const text = document.createElement("span");
    text.id = "confirm-text";
    const yes = document.createElement("button");
    yes.type = "button"; yes.dataset.action = "confirm-move"; yes.textContent = say("confirm");
    const no = document.createElement("button");
    no.type = "button"; no.className = "quiet"; no.dataset.action = "takeback-move"; no.textContent = say("takeBack");
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox"; box.checked = true; box.dataset.pref = "confirm";
    box.addEventListener("change", () => store.set(box.checked ? "1" : "0"));
    label.append(box, document.createTextNode(say("always")));
    yes.addEventListener("click", () => answer(true));
    no.addEventListener("click", () => answer(false));
    el.append(text, yes, no, label);
    document.body.append(el);
    return el;
  }

  function answer(ok) {
    if (!pending) return;
    const resolve = pending;
    pending = null;
    bar().hidden = true;
    resolve(ok);
  }

  function ask(move) {
    const el = bar();
    el.querySelector("#confirm-text").textContent = say("confirmText", { move });
    el.querySelector("[data-pref]").checked = store.get() !== "0";
    el.hidden = false;
    el.querySelector("[data-action=confirm-move]").focus();
    return new Promise((resolve) => { pending = resolve; });
  }

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && pending) answer(false);
  });
  window.tableroConfirm = { wanted, ask };
})();
