// Bilsang on a phone: the sea is drawn at its own proportions (the square the other boards
// get leaves it a thin strip with space above and below), with at least 46 CSS px a cell
// so a finger can tap one; where the universe is wider than the screen, its frame scrolls
// sideways, and stays where the player left it across refreshes. Hooks: play.js's
// "tablero:settle" event after each swap of #live. Sizes only: no rule here.
(() => {
  "use strict";
  const CELL = 46;
  const phone = window.matchMedia("(max-width: 52rem)");
  const page = document.querySelector(".match-page");
  if (!page) return;
  page.classList.add("game-bilsang");
  let scrolled = null; // the player's own scroll, kept across swaps

  function size() {
    const board = document.querySelector(".board-wrap svg.board.bilsang");
    if (!board) return;
    const wrap = board.closest(".board-wrap");
    if (!phone.matches) {
      board.classList.remove("sized");
      board.style.width = board.style.height = "";
      return;
    }
    const box = board.viewBox.baseVal;
    // The frame is at most the screen wide (less the page's padding); the sea may be wider.
    const avail = document.documentElement.clientWidth - 10;
    const unit = Math.max(CELL, avail / box.width);
    board.classList.add("sized");
    board.style.width = `${box.width * unit}px`;
    board.style.height = `${box.height * unit}px`;
    const room = wrap.scrollWidth - wrap.clientWidth;
    wrap.scrollLeft = scrolled === null ? room / 2 : Math.min(room, scrolled);
    if (!wrap.dataset.watched) {
      wrap.dataset.watched = "1";
      wrap.addEventListener("scroll", () => { scrolled = wrap.scrollLeft; }, { passive: true });
    }
  }

  document.addEventListener("tablero:settle", size);
  phone.addEventListener("change", size);
  window.addEventListener("resize", size);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", size);
  else size();
  window.tableroBilsang = { size };
})();
