#!/usr/bin/env python3
"""The preload hints of a page's `Link` field (RFC 8288; `[links] preload`) in headless Chromium.

    tests/browser/preloads_in_browser.py BASE_URL PAGE [BASE_URL PAGE]...

The build names in each page's first response what its render-blocking stylesheets make a
browser fetch only once it has them (issue 34: their imports, the fonts of the body text and
headings, the body's background image; crates/sitegen/src/links/sheet.rs). A hint that names
another URL than the one the page then asks for, or a font without `crossorigin`, costs a second
download; a hint for something the page never uses costs bytes on the first view. So, for each
page, from a cold cache: every URL the field names is requested exactly once (the preload, which
the page's own request then takes), and Chromium's console has no "preloaded ... but not used"
warning (it logs one for each preload unused a few seconds after the load event). Fails too if
the field names none of the fonts, images or imported stylesheets the check is meant for.
"""
import argparse
import http.client
import os
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repeat_views import close_browser, fresh_tab, open_browser, script  # noqa: E402


def link_field(base, page):
    """The page's preload hints over HTTP: [(absolute URL, destination)]."""
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request("GET", page)
        reply = connection.getresponse()
        reply.read()
        field = reply.getheader("link") or ""
    finally:
        connection.close()
    hints = []
    for hint in field.split(", <"):
        target, _, params = hint.lstrip("<").partition(">")
        destination = next((p.split("=", 1)[1] for p in params.split(";")
                            if p.strip().startswith("as=")), None)
        if "rel=preload" in params and destination:
            hints.append((urllib.parse.urljoin(base + page, target), destination))
    return hints


def check(driver, base, page):
    """What is wrong with `page`'s hints in the browser, and what they named."""
    hints = link_field(base, page)
    problems = []
    if not any(d in ("font", "image") for _, d in hints):
        problems.append(f"no font or image hint in the Link field: {hints}")
    fresh_tab(driver)
    driver.network_log()
    driver.call("POST", f"/session/{driver.session}/se/log", {"type": "browser"})
    driver.navigate(base + page)
    script(driver, "return document.fonts.ready.then(() => true)")
    # Chromium warns of a preload unused 3 s after the load event.
    time.sleep(3.5)
    requested = {}
    for event in driver.network_log():
        if event.get("method") == "Network.requestWillBeSent":
            url = event["params"]["request"]["url"]
            requested[url] = requested.get(url, 0) + 1
    for url, destination in hints:
        if requested.get(url, 0) != 1:
            problems.append(f"{url} (as={destination}) requested {requested.get(url, 0)} times")
    console = driver.call("POST", f"/session/{driver.session}/se/log", {"type": "browser"})
    for entry in console:
        if "preload" in entry.get("message", "") and "not used" in entry.get("message", ""):
            problems.append(f"console: {entry['message']}")
    return problems, hints


def main():
    ap = argparse.ArgumentParser(description="Preload hints taken, none unused, in Chromium.")
    ap.add_argument("checks", nargs="+", metavar="BASE PAGE")
    args = ap.parse_args()
    if len(args.checks) % 2:
        ap.error("checks come in pairs: BASE PAGE")
    failed = False
    with tempfile.TemporaryDirectory() as profile:
        driver = open_browser(profile)
        try:
            for i in range(0, len(args.checks), 2):
                base, page = args.checks[i], args.checks[i + 1]
                problems, hints = check(driver, base, page)
                named = ", ".join(f"{urllib.parse.urlsplit(u).path} as={d}" for u, d in hints)
                print(f"{base}{page}: {len(hints)} hints: {named}")
                for problem in problems:
                    print(f"  FAIL: {problem}")
                failed |= bool(problems)
        finally:
            close_browser(driver)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
