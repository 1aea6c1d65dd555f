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
