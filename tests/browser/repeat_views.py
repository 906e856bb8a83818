#!/usr/bin/env python3
"""Repeat views in a real browser: headless Chromium through chromedriver (WebDriver over HTTP,
the standard library only), reading the DevTools network log (`goog:loggingPrefs` performance).

    tests/browser/repeat_views.py [--both-ways] [--expect-requests N] [--json]
                                  BASE_URL PAGE_A PAGE_B [BASE_URL PAGE_A PAGE_B]...

Loads PAGE_A, then PAGE_B, then PAGE_A again, and reports each view's requests: those that went
to the network (URL, status) and those the browser served from its cache. With
--expect-requests N it fails unless the second view of PAGE_A made exactly N network requests,
and, for N = 1, unless that one is the document answered 304 (RFC 9110 §15.4.5): every
subresource was fresh in the cache (RFC 9111 §4.2), so it cost no round trip. Several triples
(and, with --both-ways, each also as PAGE_B, PAGE_A, PAGE_B) are checked in turn in one browser
session, each from an empty cache in a new tab.
"""
import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriver:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.session = None

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as reply:
            return json.loads(reply.read())["value"]

    def start(self, binary, profile):
        options = {
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--disable-background-networking",
                     f"--user-data-dir={profile}"],
            "perfLoggingPrefs": {"enableNetwork": True, "enablePage": False},
        }
        if binary:
            options["binary"] = binary
        capabilities = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": options,
            "goog:loggingPrefs": {"performance": "ALL", "browser": "ALL"},
        }}}
        self.session = self.call("POST", "/session", capabilities)["sessionId"]

    def navigate(self, url):
        self.call("POST", f"/session/{self.session}/url", {"url": url})

    def network_log(self):
        entries = self.call("POST", f"/session/{self.session}/se/log", {"type": "performance"})
        return [json.loads(e["message"])["message"] for e in entries]

    def quit(self):
        if self.session:
            try:
                self.call("DELETE", f"/session/{self.session}")
            except OSError:
                pass


def open_browser(profile):
    """chromedriver on a free port, and a headless Chromium session (profile folder `profile`)
    with the DevTools network log; close it with close_browser."""
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    port = free_port()
    process = subprocess.Popen([chromedriver, f"--port={port}"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    driver = WebDriver(port)
    driver.process = process
    try:
        for _ in range(100):
            try:
                driver.call("GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        driver.start(binary, profile)
    except BaseException:
        close_browser(driver)
        raise
    return driver


def close_browser(driver):
    driver.quit()
    driver.process.terminate()
    driver.process.wait()


def view(driver, url):
    """Navigates to `url`; returns (network requests [(url, status)], cached [url])."""
    driver.network_log()  # what came before
    driver.navigate(url)
    requests, cached, status = {}, set(), {}
    for event in settled_log(driver):
        method, params = event.get("method"), event.get("params", {})
        rid = params.get("requestId")
        if method == "Network.requestWillBeSent":
            requests[rid] = params["request"]["url"]
        elif method == "Network.requestServedFromCache":
            cached.add(rid)
        elif method == "Network.responseReceived":
            response = params["response"]
            if response.get("fromDiskCache") or response.get("fromPrefetchCache"):
                cached.add(rid)
            status.setdefault(rid, response.get("status"))
        elif method == "Network.responseReceivedExtraInfo":
            # The status on the wire: a revalidated response is reported as the cached 200
            # in responseReceived, and as the 304 it was here.
            status[rid] = params.get("statusCode")
    # The site's own requests (not the browser's new-tab page, chrome:// resources, data: URLs).
    origin = url.split("/", 3)[:3]
    ours = {r: u for r, u in requests.items() if u.split("/", 3)[:3] == origin}
    network = [(u, status.get(r)) for r, u in ours.items() if r not in cached]
    from_cache = [u for r, u in ours.items() if r in cached]
    return network, from_cache


def settled_log(driver, quiet=0.25, most=3.0):
    """The network log once it has settled: the load event has fired, so every subresource is
    in, but a response's wire status (`responseReceivedExtraInfo`) or a request started after
    the load may come a moment later. So: the events until every request the log names has
    finished or failed and none came for `quiet` seconds, or `most` passed."""
    events, start = [], time.monotonic()
    last, started, ended = start, set(), set()
    while True:
        new = driver.network_log()
        now = time.monotonic()
        if new:
            events += new
            last = now
        for event in new:
            method, rid = event.get("method"), event.get("params", {}).get("requestId")
            if method == "Network.requestWillBeSent":
                started.add(rid)
            elif method in ("Network.loadingFinished", "Network.loadingFailed"):
                ended.add(rid)
        if (started <= ended and now - last >= quiet) or now - start >= most:
            return events
        time.sleep(0.05)


def cdp(driver, cmd, params):
    """A DevTools protocol command, through chromedriver."""
    return driver.call("POST", f"/session/{driver.session}/goog/cdp/execute",
                       {"cmd": cmd, "params": params})


def script(driver, text, *args):
    """Runs `text` in the page (WebDriver execute/sync) and returns its value."""
    return driver.call("POST", f"/session/{driver.session}/execute/sync",
                       {"script": text, "args": list(args)})


def fresh_tab(driver):
    """A new tab with an empty HTTP cache, the others closed: each check starts as a first visit
    (the disk cache cleared through the DevTools protocol; a new tab, so no renderer's memory
    cache is reused)."""
    old = driver.call("GET", f"/session/{driver.session}/window/handles")
    driver.call("POST", f"/session/{driver.session}/goog/cdp/execute",
                {"cmd": "Network.clearBrowserCache", "params": {}})
    new = driver.call("POST", f"/session/{driver.session}/window/new", {"type": "tab"})["handle"]
    for handle in old:
        driver.call("POST", f"/session/{driver.session}/window", {"handle": handle})
        driver.call("DELETE", f"/session/{driver.session}/window")
    driver.call("POST", f"/session/{driver.session}/window", {"handle": new})


def repeat_view(driver, base, page_a, page_b):
    """Page A, page B, page A again, from a cold cache: the result of one check."""
    fresh_tab(driver)
    first = view(driver, base + page_a)
    other = view(driver, base + page_b)
    again = view(driver, base + page_a)
    return {
        "page": page_a,
        "first_view": {"network": len(first[0]), "from_cache": len(first[1]),
                       "requests": first[0]},
        "other_page": {"network": len(other[0]), "from_cache": len(other[1])},
        "second_view": {"network": len(again[0]), "from_cache": len(again[1]),
                        "requests": again[0], "cached": again[1]},
    }


def failures(result, base, expected):
    """What is wrong with a check's result, if it was to make `expected` requests."""
    first, again = result["first_view"]["requests"], result["second_view"]["requests"]
    if len(again) != expected:
        return [f"expected {expected} requests on the second view, got {len(again)}: {again}"]
    if expected == 1 and (again[0][0] != base + result["page"] or again[0][1] != 304):
        return [f"the one request should be the document answered 304: {again}"]
    if len(first) <= expected:
        return [f"the first view made only {len(first)} requests: nothing to save"]
    return []


def main():
    ap = argparse.ArgumentParser(description="Repeat views: page A, page B, page A again.")
    ap.add_argument("checks", nargs="+", metavar="BASE PAGE_A PAGE_B",
                    help="one or more triples, each checked in turn in one browser session")
    ap.add_argument("--both-ways", action="store_true",
                    help="also B, A, B again for each triple")
    ap.add_argument("--expect-requests", type=int)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if len(args.checks) % 3:
        ap.error("checks come in triples: BASE PAGE_A PAGE_B")
    triples = [args.checks[i:i + 3] for i in range(0, len(args.checks), 3)]
    if args.both_ways:
        triples = [t for base, a, b in triples for t in ([base, a, b], [base, b, a])]
    profile = tempfile.mkdtemp(prefix="edgesite-views-")
    driver = open_browser(profile)
    failed = 0
    try:
        for base, page_a, page_b in triples:
            result = repeat_view(driver, base, page_a, page_b)
            again = result["second_view"]
            if args.json:
                print(json.dumps(result))
            else:
                print(f"{base}{page_a}: first view {result['first_view']['network']} requests; "
                      f"second view {again['network']} requests ({again['from_cache']} from the "
                      "cache): " + ", ".join(f"{u} {s}" for u, s in again["requests"]))
            if args.expect_requests is not None:
                for problem in failures(result, base, args.expect_requests):
                    print(f"FAIL: {base}{page_a}: {problem}", file=sys.stderr)
                    failed += 1
    finally:
        close_browser(driver)
        shutil.rmtree(profile, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
