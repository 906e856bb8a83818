#!/usr/bin/env python3
"""Speculation Rules in headless Chromium (WICG nav-speculation; `[links] speculation`).

    tests/browser/speculation_in_browser.py [--json] BASE_URL PAGE_A PAGE_B [BASE_URL PAGE_A PAGE_B]...

PAGE_B `-` means the first link on PAGE_A to another page the rules name.

For each triple, over HTTP first: PAGE_A's `Speculation-Rules` field names a rules file served
as `application/speculationrules+json`, and every URL its rules list answers a navigation with
200 and HTML (no redirect): no rule matches a URL the site does not serve as a page. Then in
Chromium, from a cold cache: load PAGE_A, rest the pointer on its link to PAGE_B (WebDriver
actions; the rules' `moderate` eagerness acts on hover), and the DevTools network log must show
PAGE_B fetched as a prefetch (`Sec-Purpose: prefetch`, type Prefetch) before any click. Click the
link: PAGE_B's navigation timing entry must say `deliveryType` "navigational-prefetch", the
document must come from the prefetch cache, and no request for the document may reach the
network after the click. The document must be HTML and no response the browser got, PAGE_A's
and its subresources, the prefetch and after the click, be `text/markdown` (a page with a
Markdown twin answers a browser's Accept with the page: issue 35). Prints each navigation's subresource requests that did (files PAGE_A
did not load).
"""
import argparse
import http.client
import json
import os
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repeat_views import cdp, close_browser, fresh_tab, open_browser, script  # noqa: E402

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def fetch(base, target, headers=None):
    """GET over one connection, redirects not followed: (status, {field: value}, body)."""
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request("GET", target, headers=headers or {})
        reply = connection.getresponse()
        fields = {k.lower(): v for k, v in reply.getheaders()}
        return reply.status, fields, reply.read()
    finally:
        connection.close()


def walk_rules(base, page):
    """The HTTP half (see the docstring): returns (rules URL, the URLs named) or raises."""
    navigate = {"Sec-Fetch-Mode": "navigate", "Accept": "text/html"}
    _, fields, _ = fetch(base, page, navigate)
    field = fields.get("speculation-rules", "")
    if not (field.startswith('"') and field.endswith('"')):
        raise AssertionError(f"{base}{page}: Speculation-Rules is {field!r}")
    url = field[1:-1]
    status, fields, body = fetch(base, url)
    if status != 200 or fields.get("content-type") != "application/speculationrules+json":
        raise AssertionError(f"{base}{url}: {status} {fields.get('content-type')}")
    named = [u for rules in json.loads(body).values() for rule in rules for u in rule["urls"]]
    for target in named:
        status, fields, _ = fetch(base, target, navigate)
        if status != 200 or not fields.get("content-type", "").startswith("text/html"):
            raise AssertionError(f"{base}{target}, named by the rules: {status} "
                                 f"{fields.get('content-type')}")
    return url, named


def responses(driver):
    """The network log since the last call: [(url, type, from prefetch cache, from a cache,
    MIME type)]."""
    out, cached = [], set()
    events = driver.network_log()
    for event in events:
        if event.get("method") == "Network.requestServedFromCache":
            cached.add(event["params"]["requestId"])
    for event in events:
        if event.get("method") == "Network.responseReceived":
            params = event["params"]
            response = params["response"]
            from_cache = (params["requestId"] in cached or response.get("fromDiskCache")
                          or response.get("fromMemoryCache"))
            out.append((response["url"], params.get("type"),
                        bool(response.get("fromPrefetchCache")), bool(from_cache),
                        response.get("mimeType", "")))
    return out


def hover_then_click(driver, base, page_a, page_b, named):
    """The Chromium half: returns the check's result and its problems."""
    problems = []
    fresh_tab(driver)
    cdp(driver, "Network.enable", {})
    driver.navigate(base + page_a)
    time.sleep(0.5)
    first = responses(driver)
    if page_b == "-":
        others = [base + u for u in named if base + u != base + page_a]
        page_b = script(driver, "const to = arguments[0];"
                                "const a = [...document.links].find(a => to.includes(a.href));"
                                "return a ? new URL(a.href).pathname : null", others)
        if not page_b:
            return {}, [f"{base}{page_a} links to no page its rules name"]
    target = base + page_b
    link = script(driver, "return [...document.links].find(a => a.href === arguments[0]) || null",
                  target)
    if not link:
        return {}, [f"{base}{page_a} has no link to {target}"]
    move = {"type": "pointerMove", "duration": 50, "origin": link, "x": 0, "y": 0}
    driver.call("POST", f"/session/{driver.session}/actions", {"actions": [
        {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
         "actions": [move]}]})
    prefetched, seen = [], list(first)
    for _ in range(50):
        fetched = responses(driver)
        seen += fetched
        prefetched += [r for r in fetched if r[0] == target and r[1] == "Prefetch"]
        if prefetched:
            break
        time.sleep(0.1)
    if not prefetched:
        problems.append(f"{base}{page_a}: hovering the link to {page_b} prefetched nothing")
    driver.call("POST", f"/session/{driver.session}/element/{link[ELEMENT]}/click", {})
    for _ in range(50):
        if script(driver, "return location.href") == target:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    after = responses(driver)
    entry = script(driver, "const n = performance.getEntriesByType('navigation')[0];"
                           "return {deliveryType: n.deliveryType, responseStart: n.responseStart,"
                           " loadEventEnd: n.loadEventEnd}")
    documents = [r for r in after if r[0] == target and r[1] == "Document"]
    if entry.get("deliveryType") != "navigational-prefetch":
        problems.append(f"{target}: deliveryType {entry.get('deliveryType')!r}")
    if not documents or any(not from_prefetch for _, _, from_prefetch, _, _ in documents):
        problems.append(f"{target}: the document did not come from the prefetch: {documents}")
    # A page with a Markdown twin (issue 35): the browser's navigation and prefetch Accept get
    # the page, and nothing the browser fetched is a twin.
    kind = script(driver, "return document.contentType")
    if kind != "text/html":
        problems.append(f"{target}: the document is {kind!r}, not text/html")
    twins = [url for url, *_, mime in seen + after if mime == "text/markdown"]
    if twins:
        problems.append(f"{target}: the browser was sent Markdown twins: {twins}")
    network = [url for url, kind, from_prefetch, from_cache, _ in after
               if not from_prefetch and not from_cache and url.startswith(base)]
    return {"page": page_a, "next": page_b, "prefetched_before_click": bool(prefetched),
            "navigation": entry, "document": kind, "network_after_click": network}, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checks", nargs="+", metavar="BASE PAGE_A PAGE_B")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if len(args.checks) % 3:
        ap.error("checks come in triples: BASE PAGE_A PAGE_B")
    triples = [args.checks[i:i + 3] for i in range(0, len(args.checks), 3)]
    problems = []
    with tempfile.TemporaryDirectory() as profile:
        driver = open_browser(profile)
        try:
            for base, page_a, page_b in triples:
                try:
                    url, named = walk_rules(base, page_a)
                except AssertionError as e:
                    problems.append(str(e))
                    continue
                result, wrong = hover_then_click(driver, base, page_a, page_b, named)
                problems += wrong
                result.update({"rules": url, "pages_named": len(named)})
                if args.json:
                    print(json.dumps(result))
                else:
                    print(f"{base}{page_a} -> {result.get('next')}: rules {url} name {len(named)} pages, "
                          f"each served; prefetched on hover: {result.get('prefetched_before_click')}"
                          f"; {result.get('navigation')}; network after the click: "
                          f"{result.get('network_after_click')}")
        finally:
            close_browser(driver)
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
