// Starts Swagger UI or ReDoc on /docs and /redoc (kept out of the page: the CSP allows no inline script).
const box = document.getElementById("api-docs");
if (box.dataset.viewer === "swagger") {
  window.SwaggerUIBundle({ url: box.dataset.openapiUrl, domNode: box, deepLinking: true, validatorUrl: null });
} else {
  window.Redoc.init(box.dataset.openapiUrl, { hideDownloadButton: false }, box);
}
