// edgesite demo: shows what the edge answered for this page, using the browser's own view of the
// response (Resource Timing and a HEAD request), with no framework.
(function () {
  "use strict";

  function describe(response) {
    var fields = ["content-type", "content-length", "etag", "last-modified", "cache-control"];
    return fields
      .map(function (name) {
        var value = response.headers.get(name);
        return value === null ? null : name + ": " + value;
      })
      .filter(Boolean)
      .join("\n");
  }

  function show(target, text) {
    var node = document.querySelector(target);
    if (node) node.textContent = text;
  }

  function inspect() {
    var path = location.pathname;
    fetch(path, { method: "HEAD", cache: "no-store" })
      .then(function (response) {
        show("#inspect-status", response.status + " " + response.statusText);
        show("#inspect-fields", describe(response));
        return fetch(path, { headers: { "If-None-Match": response.headers.get("etag") || "" }, cache: "no-store" });
      })
      .then(function (again) {
        show("#inspect-revalidate", "Revalidating with If-None-Match gave " + again.status +
          (again.status === 304 ? " Not Modified: no body was sent." : "."));
      })
      .catch(function (error) {
        show("#inspect-status", "Could not inspect: " + error.message);
      });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.querySelector("#inspect");
    if (button) button.addEventListener("click", inspect);
  });
})();
