// The import page's file picker (templates/records_import.html): the browser's own button
// speaks the browser's language, so the page shows its own label for a hidden input; this
// puts the chosen file's name (or "no file chosen", in the page's words) beside it.
(() => {
  "use strict";
  for (const input of document.querySelectorAll("input[type=file][data-file-name]")) {
    const shown = document.getElementById(input.dataset.fileName);
    if (!shown) continue;
    const show = () => {
      shown.textContent = input.files && input.files.length ? input.files[0].name : shown.dataset.none;
    };
    input.addEventListener("change", show);
    show(); // a file the browser kept when the page was opened again (Back)
  }
})();
