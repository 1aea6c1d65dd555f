// The match page's chat (issue 33): says new lines from the others through the page's
// live region (window.tableroAnnounce, static/a11y.js) unless the reader turned that off
// (remembered in this browser), and keeps the newest line in sight. It holds no rule:
// what may be read or written is decided by the server, which renders #chat-rooms.
(function () {
  "use strict";
  var KEY = "tablero-chat-speak";
  var last = 0;

  function remembered() {
    try { return localStorage.getItem(KEY) !== "off"; } catch (e) { return true; }
  }

  function remember(on) {
    try { localStorage.setItem(KEY, on ? "on" : "off"); } catch (e) { /* private mode */ }
  }

  function lines() {
    var rooms = document.getElementById("chat-rooms");
    return rooms ? Array.prototype.slice.call(rooms.querySelectorAll("li[data-id]")) : [];
  }

  function highest() {
    return lines().reduce(function (top, li) { return Math.max(top, Number(li.dataset.id) || 0); }, 0);
  }

  function scrollDown() {
    document.querySelectorAll(".chat-lines").forEach(function (list) { list.scrollTop = list.scrollHeight; });
  }

  function settle() {
    var fresh = lines().filter(function (li) { return Number(li.dataset.id) > last; });
    last = Math.max(last, highest());
    scrollDown();
    var box = document.getElementById("chat-speak");
    if (!fresh.length || !box || !box.checked || !window.tableroAnnounce) return;
    var words = fresh.filter(function (li) { return li.dataset.mine === "0"; }).map(function (li) {
      var from = li.querySelector(".chat-from");
      var said = li.querySelector(".chat-said");
      return (from ? from.textContent : "") + ": " + (said ? said.textContent : "");
    });
    if (words.length) window.tableroAnnounce(words.join(". "));
  }

  function start() {
    var box = document.getElementById("chat-speak");
    if (box) {
      box.checked = remembered();
      box.addEventListener("change", function () { remember(box.checked); });
    }
    last = highest();
    scrollDown();
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "chat-rooms") settle();
  });
  // The server says a line was taken (HX-Trigger): the box is emptied for the next one.
  document.addEventListener("tablero-chat-said", function () {
    var form = document.querySelector("form.chat-text");
    if (form) form.reset();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
