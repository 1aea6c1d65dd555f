// Presentation only: copy buttons. No game rules live here; the server decides everything.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const field = document.querySelector(button.dataset.copy);
  if (!field) return;
  field.select();
  const done = () => { button.dataset.copied = "true"; setTimeout(() => delete button.dataset.copied, 1500); };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, () => document.execCommand("copy"));
  else { document.execCommand("copy"); done(); }
});

// The ladder clock: the server measures think time; this only keeps the shown figure
// moving between updates, starting from what the server rendered.
function tickClocks() {
  for (const clock of document.querySelectorAll(".clock[data-running=true]")) {
    if (!clock.dataset.shownAt) clock.dataset.shownAt = String(Date.now());
    const extra = Date.now() - Number(clock.dataset.shownAt);
    const turn = Number(clock.dataset.turnMs) + extra;
    const total = Number(clock.dataset.doneMs) + turn;
    clock.querySelector(".clock-turn").textContent = (turn / 1000).toFixed(1);
    clock.querySelector(".clock-total").textContent = (total / 1000).toFixed(1);
  }
}
setInterval(tickClocks, 100);
