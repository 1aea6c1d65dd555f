// "Play anyone" on the home page: makes a seek through the JSON API and, while it waits,
// keeps its event stream open (which keeps a real-time seek alive) until it pairs; then
// goes to the match. It decides nothing: the server pairs.
(function () {
  "use strict";
  var form = document.querySelector("[data-seek-form]");
  if (!form) return;
  var status = form.querySelector("[data-seek-status]");
  var error = form.querySelector("[data-seek-error]");
  var submit = form.querySelector("button[type=submit]");
  var current = null; // {id, stream}

  function timeControl(choice) {
    var parts = (choice || "").split(":");
    if (parts[0] === "rt") return { kind: "realtime", initial_seconds: +parts[1], increment_seconds: +parts[2] };
    if (parts[0] === "cd") return { kind: "correspondence", days: +parts[1] };
    return null;
  }

  function show(waiting) {
    status.hidden = !waiting;
    submit.disabled = waiting;
  }

  function fail(text) {
    error.textContent = text;
    error.hidden = !text;
  }

  function go(matchId) {
    window.location.href = "/matches/" + encodeURIComponent(matchId);
  }

  function listen(id) {
    var stream = new EventSource("/api/seeks/" + encodeURIComponent(id) + "/events");
    current = { id: id, stream: stream };
    stream.addEventListener("paired", function (event) {
      stream.close();
      go(JSON.parse(event.data).match_id);
    });
    stream.addEventListener("gone", function () {
      stream.close();
      current = null;
      show(false);
    });
  }

  // The optional range, as typed: the server checks it (and refuses it on a casual seek).
  function range(rated) {
    var low = form.querySelector("[name=range_min]");
    var high = form.querySelector("[name=range_max]");
    if (!rated || !low || !high || (!low.value && !high.value)) return null;
    return [low.value ? +low.value : 0, high.value ? +high.value : 10000];
  }

  function seek(game, choice, rated, withRange) {
    fail("");
    var name = form.querySelector("[name=name]").value;
    var body = { game: game, time_control: timeControl(choice), rated: rated, rating_range: withRange ? range(rated) : null };
    if (name.trim()) body.name = name;
    fetch("/api/seeks", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    })
      .then(function (response) {
        return response.json().then(function (data) { return { ok: response.ok, data: data }; });
      })
      .then(function (answer) {
        if (!answer.ok) return fail(answer.data.detail || "");
        if (answer.data.status === "paired") return go(answer.data.match_id);
        show(true);
        listen(answer.data.id);
        if (window.htmx) window.htmx.trigger(".seek-panel", "load");
      })
      .catch(function () { fail(form.dataset.offline || ""); });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (current) return;
    var ratedBox = form.querySelector("[data-seek-rated]");
    seek(form.querySelector("[name=game]").value, form.querySelector("[name=time_control]").value,
      !!(ratedBox && ratedBox.checked), true);
  });

  form.querySelector("[data-seek-cancel]").addEventListener("click", function () {
    if (!current) return;
    var id = current.id;
    current.stream.close();
    current = null;
    show(false);
    fetch("/api/seeks/" + encodeURIComponent(id), { method: "DELETE", credentials: "same-origin" });
  });

  // "Play" on someone's open seek: the same game and time control pair with the oldest such seek.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-seek-answer]");
    if (!button || current) return;
    seek(button.dataset.game, button.dataset.timeControl, button.dataset.rated === "true", false);
  });
})();
