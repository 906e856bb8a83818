#!/usr/bin/env python3
"""Image variants in headless Chromium: the demo's /photos page, served by each BASE_URL.

    tests/browser/images_in_browser.py [--json] BASE_URL...

For each server, from a cold cache: the page is loaded as Chromium loads it (its own Accept for
images), and the DevTools network log must show the <img> photo and the CSS background photo
arrive as image/avif and the screenshot as image/webp (the Content-Type each response carried),
each rendered at the natural size of the file published (600x400, 451x300, 720x450). Then the
same page is loaded with `Accept: */*` on every request (CDP Network.setExtraHTTPHeaders: what a
client that names no format gets): the originals arrive, and the image bytes of the first load
must be at least 30% below this one's (issue 22's page-view target). Prints the figures.
"""
import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repeat_views import cdp, close_browser, fresh_tab, open_browser  # noqa: E402

PAGE = "/photos"
# URL path: (the media type Chromium must get, the natural size of the file published).
IMAGES = {
    "/images/coffee.jpg": ("image/avif", (600, 400)),
    "/images/chelsea.jpg": ("image/avif", (451, 300)),
    "/images/screenshot.png": ("image/webp", (720, 450)),
}
ORIGINALS = {"/images/coffee.jpg": "image/jpeg", "/images/chelsea.jpg": "image/jpeg",
             "/images/screenshot.png": "image/png"}
# Natural sizes of what the page shows: the <img>s by id, the background through a decode of
# its computed URL (from the memory cache: no second request).
SIZES = """
const done = arguments[arguments.length - 1];
const size = (img) => [img.naturalWidth, img.naturalHeight];
const url = getComputedStyle(document.getElementById('cat')).backgroundImage.slice(5, -2);
const background = new Image();
background.src = url;
background.decode().then(() => done({
  '/images/coffee.jpg': size(document.getElementById('coffee')),
  '/images/screenshot.png': size(document.getElementById('screenshot')),
  '/images/chelsea.jpg': size(background),
}), (e) => done({error: String(e)}));
"""


def load(driver, url):
    """Loads `url`; returns {path: (content type, bytes on the wire)} of the page's images."""
    driver.network_log()
    driver.navigate(url)
    time.sleep(0.5)
    urls, types, sizes = {}, {}, {}
    for event in driver.network_log():
        method, params = event.get("method"), event.get("params", {})
        rid = params.get("requestId")
        if method == "Network.requestWillBeSent":
            urls[rid] = params["request"]["url"]
        elif method == "Network.responseReceived":
            headers = {k.lower(): v for k, v in params["response"]["headers"].items()}
            types[rid] = headers.get("content-type")
        elif method == "Network.loadingFinished":
            sizes[rid] = params.get("encodedDataLength", 0)
    seen = {}
    for rid, full in urls.items():
        path = "/" + full.split("/", 3)[3].split("?")[0] if full.count("/") >= 3 else ""
        if path in IMAGES:
            seen[path] = (types.get(rid), sizes.get(rid, 0))
    return seen


def check(driver, base):
    problems = []
    fresh_tab(driver)
    cdp(driver, "Network.enable", {})
    got = load(driver, base + PAGE)
    sizes = driver.call("POST", f"/session/{driver.session}/execute/async",
                        {"script": SIZES, "args": []})
    for path, (media_type, natural) in IMAGES.items():
        content_type, _ = got.get(path, (None, 0))
        if content_type != media_type:
            problems.append(f"{base}{path}: arrived as {content_type}, not {media_type}")
        if sizes.get(path) != list(natural):
            problems.append(f"{base}{path}: rendered at {sizes.get(path)}, not {list(natural)}")
    fresh_tab(driver)
    cdp(driver, "Network.enable", {})
    cdp(driver, "Network.setExtraHTTPHeaders", {"headers": {"Accept": "*/*"}})
    plain = load(driver, base + PAGE)
    cdp(driver, "Network.setExtraHTTPHeaders", {"headers": {}})
    for path, media_type in ORIGINALS.items():
        if plain.get(path, (None, 0))[0] != media_type:
            problems.append(f"{base}{path} with Accept: */*: arrived as {plain.get(path)}")
    with_variants = sum(size for _, size in got.values())
    without = sum(size for _, size in plain.values())
    saved = 1 - with_variants / without if without else 0
    if saved < 0.30:
        problems.append(f"{base}: image bytes {with_variants} vs {without} without variants: "
                        f"{saved:.0%} less, under 30%")
    return {"base": base, "images": got, "originals": plain, "image_bytes": with_variants,
            "image_bytes_without_variants": without, "saved": round(saved, 3)}, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bases", nargs="+", metavar="BASE_URL")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results, problems = [], []
    with tempfile.TemporaryDirectory() as profile:
        driver = open_browser(profile)
        try:
            for base in args.bases:
                result, wrong = check(driver, base)
                results.append(result)
                problems.extend(wrong)
        finally:
            close_browser(driver)
    if args.json:
        print(json.dumps(results, indent=2))
    for r in results:
        print(f"{r['base']}{PAGE}: image bytes {r['image_bytes']} with variants, "
              f"{r['image_bytes_without_variants']} without ({r['saved']:.1%} less); "
              + ", ".join(f"{p} {t} {n} B" for p, (t, n) in sorted(r["images"].items())))
    for problem in problems:
        print("FAIL:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
