#!/usr/bin/env python3
"""What a visitor waits for: page loads in headless Chromium, on throttled networks.

    bench/pageload.py [--runs N] [--presets slow-4g,fast-4g,none] [--json FILE]
                      SITE PAGE NAME=BASE_URL [NAME=BASE_URL...] [:: SITE PAGE NAME=BASE_URL...]

For each site, each server (NAME=BASE_URL, all serving the same site), each network preset
(Chrome DevTools' "Slow 4G" and "Fast 4G" presets through the DevTools protocol's
Network.emulateNetworkConditions, and no throttling) and each of RUNS runs, three views, each
from a new tab with an empty HTTP cache:

* first view: PAGE from a cold cache;
* repeat view: PAGE again, in the same tab (a visitor coming back);
* navigation: on PAGE, the pointer rests on its first link to another page of the site (the
  link whose page is named by the server's speculation rules, if it sends any), for as long as
  the prefetch takes and at most DWELL seconds (the same dwell for every server), then clicks.

Each view records LCP (the last `largest-contentful-paint` entry, from the navigation's start:
for the navigation, the click), CLS (web-vitals' definition, up to the moment of reading: the
load event and 0.6 s more), the load event (`loadEventEnd`), and the requests that reached
the network and their bytes (DevTools `encodedDataLength`). Prints the medians, and the ratios of
the first server to each other one, measured side by side in one run.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "browser"))
from repeat_views import cdp, close_browser, fresh_tab, open_browser, script  # noqa: E402

# Chrome DevTools' presets (front_end/core/sdk/NetworkManager.ts): latency in ms, throughput
# in bytes per second.
PRESETS = {
    "slow-4g": {"latency": 562.5, "downloadThroughput": 1.6e6 * 0.9 / 8,
                "uploadThroughput": 750e3 * 0.9 / 8},
    "fast-4g": {"latency": 165, "downloadThroughput": 9e6 * 0.9 / 8,
                "uploadThroughput": 1.5e6 * 0.9 / 8},
    "none": None,
}
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
LCP = """
window.__lcp = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__lcp = entry.startTime;
}).observe({type: 'largest-contentful-paint', buffered: true});
// CLS as web-vitals counts it: layout shifts not caused by input, in session windows (shifts
// less than 1 s apart, a window at most 5 s long); the largest window's sum.
window.__cls = 0;
let windowSum = 0, windowFirst = 0, windowLast = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    if (windowSum && entry.startTime - windowLast < 1000 && entry.startTime - windowFirst < 5000) {
      windowSum += entry.value;
    } else {
      windowSum = entry.value;
      windowFirst = entry.startTime;
    }
    windowLast = entry.startTime;
    window.__cls = Math.max(window.__cls, windowSum);
  }
}).observe({type: 'layout-shift', buffered: true});
"""
# A prerendered page's times start when it was prerendered: what the visitor waited for starts
# at its activation (the click), as web-vitals counts it.
READ = """
const n = performance.getEntriesByType('navigation')[0];
const from = (n && n.activationStart) || 0;
const since = (t) => t ? Math.max(0, t - from) : null;
return {lcp: since(window.__lcp), cls: window.__cls || 0, load: n ? since(n.loadEventEnd) : null,
        delivery: n ? n.deliveryType : null, activated: from > 0};
"""


def network(driver, origin, events=None):
    """Requests to `origin` since the last call (or in `events`, to which the new ones are
    added) that reached the network: (count, bytes, the finished prefetches among them)."""
    urls, kinds, cached, sizes = {}, {}, set(), {}
    events = events if events is not None else []
    events += driver.network_log()
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        rid = params.get("requestId")
        if method == "Network.requestWillBeSent":
            urls[rid] = params["request"]["url"]
            kinds[rid] = params.get("type")
        elif method == "Network.requestServedFromCache":
            cached.add(rid)
        elif method == "Network.responseReceived":
            response = params["response"]
            if (response.get("fromDiskCache") or response.get("fromPrefetchCache")
                    or response.get("fromMemoryCache")):
                cached.add(rid)
        elif method == "Network.loadingFinished":
            sizes[rid] = params.get("encodedDataLength", 0)
    ours = [r for r, u in urls.items() if u.startswith(origin) and r not in cached]
    # A prerender's document is a Document request of another frame tree: count the page's
    # own speculative fetches as prefetches either way.
    prefetches = [r for r in ours if kinds.get(r) in ("Prefetch", "Document") and r in sizes]
    return len(ours), sum(sizes.get(r, 0) for r in ours), prefetches


def settle(driver, seconds=0.6):
    """After the load event: late paints (LCP) and the network log's last events."""
    for _ in range(100):
        if script(driver, "return document.readyState") == "complete":
            break
        time.sleep(0.05)
    time.sleep(seconds)


def tab(driver, preset):
    """A new tab, empty cache, the preset's throttling, LCP observed on every document."""
    fresh_tab(driver)
    cdp(driver, "Network.enable", {})
    conditions = PRESETS[preset]
    if conditions:
        cdp(driver, "Network.emulateNetworkConditions", {"offline": False, **conditions})
    cdp(driver, "Page.addScriptToEvaluateOnNewDocument", {"source": LCP})
    driver.network_log()


def view(driver, url, origin):
    driver.navigate(url)
    settle(driver)
    figures = script(driver, READ)
    count, size, _ = network(driver, origin)
    return {**figures, "requests": count, "bytes": size}


def navigation(driver, origin, dwell):
    """Hover the page's first link to another page (one its rules name, if any), then click."""
    rules = script(driver, """
        return [...document.links].map(a => a.href).filter(h => h.startsWith(arguments[0])
          && new URL(h).pathname !== location.pathname && !h.includes('#')
          && !/\\.(png|jpe?g|css|js|txt|json|svg|pdf|zip)(\\?|$)/.test(h));""", origin)
    if not rules:
        return None
    href = rules[0]
    link = script(driver, "return [...document.links].find(a => a.href === arguments[0])", href)
    move = {"type": "pointerMove", "duration": 50, "origin": link, "x": 0, "y": 0}
    driver.call("POST", f"/session/{driver.session}/actions", {"actions": [
        {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
         "actions": [move]}]})
    started, prefetched, events = time.time(), False, []
    while time.time() - started < dwell:
        time.sleep(0.1)
        if network(driver, origin, events)[2]:
            prefetched = True
            break
    driver.call("POST", f"/session/{driver.session}/element/{link[ELEMENT]}/click", {})
    settle(driver)
    figures = script(driver, READ)
    count, size, _ = network(driver, origin)
    return {**figures, "requests": count, "bytes": size, "prefetched": prefetched,
            "to": href[len(origin):]}


def measure(driver, base, page, preset, dwell):
    origin = base.rstrip("/") + "/"
    tab(driver, preset)
    first = view(driver, base + page, origin)
    driver.navigate("about:blank")
    network(driver, origin)
    again = view(driver, base + page, origin)
    tab(driver, preset)
    view(driver, base + page, origin)
    return {"first": first, "repeat": again, "navigation": navigation(driver, origin, dwell)}


def median(runs, kind, key):
    values = [r[kind][key] for r in runs if r.get(kind) and r[kind].get(key) is not None]
    return statistics.median(values) if values else None


def report(site, preset, results):
    """The medians, and the first server's ratios against each other one."""
    names = list(results)
    print(f"\n{site}, {preset}: medians of {len(results[names[0]])} runs")
    print(f"{'server':24} {'view':10} {'LCP ms':>8} {'CLS':>6} {'load ms':>8} {'requests':>8} "
          f"{'bytes':>9}")
    table = {}
    for name in names:
        for kind in ("first", "repeat", "navigation"):
            row = {k: median(results[name], kind, k)
                   for k in ("lcp", "cls", "load", "requests", "bytes")}
            table[(name, kind)] = row
            cells = [f"{row[k]:8.0f}" if row[k] is not None else f"{'-':>8}"
                     for k in ("lcp", "load", "requests")]
            cls = f"{row['cls']:6.3f}" if row["cls"] is not None else f"{'-':>6}"
            size = f"{row['bytes']:9.0f}" if row["bytes"] is not None else f"{'-':>9}"
            print(f"{name:24} {kind:10} {cells[0]} {cls} {' '.join(cells[1:])} {size}")
    ours = names[0]
    for other in names[1:]:
        ratios = []
        for kind in ("first", "repeat", "navigation"):
            for key in ("lcp", "load", "requests", "bytes"):
                a, b = table[(ours, kind)][key], table[(other, kind)][key]
                if a and b:
                    ratios.append(f"{kind} {key} {b / a:.2f}x")
        print(f"  {other} / {ours}: " + ", ".join(ratios))
    return {f"{name}/{kind}": row for (name, kind), row in table.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--presets", default="slow-4g,fast-4g,none")
    ap.add_argument("--dwell", type=float, default=3.0,
                    help="the longest the pointer rests on the link before the click (s)")
    ap.add_argument("--json", help="write every run's figures here")
    ap.add_argument("groups", nargs="+", metavar="SITE PAGE NAME=BASE_URL...")
    args = ap.parse_args()
    groups, current = [], []
    for arg in args.groups + ["::"]:
        if arg == "::":
            if current:
                groups.append(current)
            current = []
        else:
            current.append(arg)
    everything = []
    with tempfile.TemporaryDirectory() as profile:
        driver = open_browser(profile)
        try:
            for site, page, *servers in groups:
                servers = [s.split("=", 1) for s in servers]
                for preset in args.presets.split(","):
                    results = {name: [] for name, _ in servers}
                    for _ in range(args.runs):
                        # Interleaved: each run visits every server, so drift hits all alike.
                        for name, base in servers:
                            results[name].append(measure(driver, base, page, preset, args.dwell))
                    medians = report(site, preset, results)
                    everything.append({"site": site, "preset": preset, "runs": results,
                                       "medians": medians})
        finally:
            close_browser(driver)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(everything, f, indent=1)
    markdown(everything)
    return 0


def markdown(everything):
    """The medians as the Markdown tables of docs/benchmarks.md, one per site and view."""
    cell = lambda v: "-" if v is None else f"{v:,.0f}"  # noqa: E731
    for site in dict.fromkeys(e["site"] for e in everything):
        for kind in ("first", "repeat", "navigation"):
            rows = [e for e in everything if e["site"] == site]
            names = list(rows[0]["runs"])
            print(f"\n{site}, {kind} view: LCP ms / CLS / load ms / requests / bytes (medians)\n")
            print("| server | " + " | ".join(r["preset"] for r in rows) + " |")
            print("| --- |" + " --- |" * len(rows))
            for name in names:
                cells = []
                for r in rows:
                    m = r["medians"][f"{name}/{kind}"]
                    cells.append(" / ".join(
                        f"{m['cls']:.3f}" if k == "cls" and m[k] is not None else cell(m[k])
                        for k in ("lcp", "cls", "load", "requests", "bytes")))
                print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
