// A fingerprinted asset: its name carries the first 10 hex digits of the SHA-256 of these bytes,
// which the site compiler verifies, so it is served with `Cache-Control: public,
// max-age=31536000, immutable` and never revalidated. Change a byte and the name must change.
(function () {
  "use strict";
  var stamp = document.querySelector("[data-build-stamp]");
  if (stamp) stamp.textContent = "This line was written by a fingerprinted, immutable script.";
})();
