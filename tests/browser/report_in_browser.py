#!/usr/bin/env python3
"""report.html in headless Chromium, opened from file:// as a user opens it (issue 24).

    tests/browser/report_in_browser.py DIR

DIR holds one build's manifest.json, report.txt and report.html (target/edgesite/). Checks:
the page renders (the treemap has a box of its own and one rectangle per file), no console
error, no request other than the file itself (the DevTools network log), clicking a sortable
column sorts it (its script runs), and a sample of its figures are the numbers of
manifest.json and report.txt: the file count, the bundle estimate and the site's share of it,
the bytes of every encoding and variant, the bytes saved per content type (an image's
variants counted in its own type's row), and each stage's time; the map's toggle colours it by
tier, one colour per tier, where it was by content type.
"""
import json
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repeat_views import close_browser, open_browser  # noqa: E402

READ = """
const figure = (id) => Number(document.getElementById(id).dataset.n);
const rects = [...document.querySelectorAll('#treemap rect[data-path]')];
const box = document.getElementById('treemap').getBoundingClientRect();
const rows = (table, key) => Object.fromEntries([...document.querySelectorAll(table + ' tbody tr')]
  .map(r => [r.dataset[key], Number(r.cells[2].dataset.n)]));
const stages = Object.fromEntries([...document.querySelectorAll('#stages tr')]
  .map(r => [r.dataset.stage, Number(r.cells[1].dataset.n)]));
const cache = [...document.querySelectorAll('#cache summary span')].map(s => Number(s.dataset.n));
const estimate = document.getElementById('bundle-estimate-bytes');
return {files: figure('files'), bundle: figure('bundle-bytes'), site: figure('site-bytes'),
        estimate: estimate ? figure('bundle-estimate-bytes') : null,
        rects: rects.length, rect_bytes: rects.reduce((a, r) => a + Number(r.dataset.n), 0),
        drawn: rects.filter(r => r.getBoundingClientRect().width > 0).length,
        box: [box.width, box.height], coding: rows('#by-coding', 'coding'), stages, cache,
        saved: Object.fromEntries([...document.querySelectorAll('#by-type tbody tr')]
          .map(r => [r.dataset.type, Number(r.cells[5].dataset.n)]))};
"""

# The map's colours by content type, then by tier once its toggle is clicked: the fills of its
# files' rectangles, and each rectangle's tier, as drawn. The demo is all in the bundle: two of
# its rectangles are marked as in Static Assets and in R2 first, so that every tier's colour is
# drawn by the report's own stylesheet.
COLOURS = """
const map = document.getElementById('treemap');
const drawn = map.getAttribute('class');
const rects = [...map.querySelectorAll('rect[data-tier]')];
rects[0].dataset.tier = 'assets';
rects[1].dataset.tier = 'r2';
const fills = () => rects.map(r => getComputedStyle(r).fill);
document.querySelector('input[name=colour][value=type]').click();
const byType = fills();
const typeClass = map.getAttribute('class');
document.querySelector('input[name=colour][value=tier]').click();
return {drawn, typeClass, tierClass: map.getAttribute('class'), byType, byTier: fills(),
        tiers: rects.map(r => r.dataset.tier),
        legend: getComputedStyle(document.querySelector('.legend.by-tier')).display};
"""

SORT = """
const table = document.getElementById('by-type');
const bytes = () => [...table.tBodies[0].rows].map(r => Number(r.cells[2].dataset.n));
table.tHead.rows[0].cells[2].click();
return bytes();
"""


def expected(folder):
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(folder, "report.txt")) as f:
        report = f.read()
    bundle, code = map(int, re.search(r"bundle estimate (\d+) bytes \(site \+ (\d+) bytes",
                                      report).groups())
    # Where the tables are written (the Worker's and the native twin's builds), the bar is the
    # bundle as written, and the estimate is named beside it.
    written = re.search(r"^as written: bundle (\d+) bytes \(tables \d+\)", report, re.M)
    stages = {name: int(ms) for name, ms in
              re.findall(r"([\w-]+) (\d+) ms", re.search(r"^stages: (.*)$", report, re.M).group(1))}
    coding = {}
    for file in manifest["files"]:
        for r in file["representations"]:
            coding[r["coding"]] = coding.get(r["coding"], 0) + r["size"]
        for v in file.get("variants", []):
            key = "variant " + v["content_type"]
            coding[key] = coding.get(key, 0) + v["representation"]["size"]
    # Bytes saved per content type: each file at its smallest (an encoding, or an image variant,
    # counted in the row of the file's own type: issue 33), against its identity bytes.
    by_type = {}
    for file in manifest["files"]:
        sizes = [r["size"] for r in file["representations"]] or [file["size"]]
        sizes += [v["representation"]["size"] for v in file.get("variants", [])]
        row = by_type.setdefault(file["content_type"], [0, 0])
        row[0] += file["size"]
        row[1] += min(sizes)
    saved = {kind: identity - min(best, identity) for kind, (identity, best) in by_type.items()}
    return {"files": len(manifest["files"]),
            "bundle": int(written.group(1)) if written else bundle,
            "estimate": bundle if written else None, "site": bundle - code,
            "coding": coding, "stages": stages, "saved": saved}


def manifest_files(folder):
    with open(os.path.join(folder, "manifest.json")) as f:
        return json.load(f)["files"]


def main():
    folder = os.path.abspath(sys.argv[1])
    want = expected(folder)
    url = "file://" + os.path.join(folder, "report.html")
    problems = []
    with tempfile.TemporaryDirectory() as profile:
        driver = open_browser(profile)
        try:
            driver.call("POST", f"/session/{driver.session}/goog/cdp/execute",
                        {"cmd": "Network.enable", "params": {}})
            driver.network_log()  # the new tab page's own loads, before the report
            driver.navigate(url)
            time.sleep(0.5)
            got = driver.call("POST", f"/session/{driver.session}/execute/sync",
                              {"script": READ, "args": []})
            sorted_bytes = driver.call("POST", f"/session/{driver.session}/execute/sync",
                                       {"script": SORT, "args": []})
            colours = driver.call("POST", f"/session/{driver.session}/execute/sync",
                                  {"script": COLOURS, "args": []})
            requests = [e["params"]["request"]["url"] for e in driver.network_log()
                        if e.get("method") == "Network.requestWillBeSent"]
            console = driver.call("POST", f"/session/{driver.session}/se/log", {"type": "browser"})
        finally:
            close_browser(driver)
    for request in requests:
        if request != url:
            problems.append(f"a request left the file: {request}")
    for entry in console:
        if entry.get("level") == "SEVERE":
            problems.append(f"console error: {entry.get('message')}")
    for key in ("files", "bundle", "estimate", "site"):
        if got[key] != want[key]:
            problems.append(f"{key}: {got[key]} in report.html, {want[key]} in manifest/report")
    if got["rects"] != want["files"] or got["drawn"] != want["files"]:
        problems.append(f"{got['rects']} rectangles ({got['drawn']} drawn) for {want['files']} files")
    if got["rect_bytes"] != want["site"]:
        problems.append(f"the treemap's rectangles hold {got['rect_bytes']} bytes, not {want['site']}")
    if got["box"][0] < 300 or got["box"][1] < 150:
        problems.append(f"the treemap renders at {got['box']}")
    for coding, size in want["coding"].items():
        if got["coding"].get(coding) != size:
            problems.append(f"{coding}: {got['coding'].get(coding)} bytes shown, {size} in manifest.json")
    if got["saved"] != want["saved"]:
        problems.append(f"bytes saved by type {got['saved']} vs manifest.json {want['saved']}")
    if not any(file.get("variants") for file in manifest_files(folder)):
        problems.append("no image variant in the site: the savings by type are not checked with one")
    if got["stages"] != want["stages"]:
        problems.append(f"stages {got['stages']} vs report.txt {want['stages']}")
    if sum(got["cache"]) != want["files"]:
        problems.append(f"the cache groups hold {sum(got['cache'])} files, not {want['files']}")
    # By type, a site's files take several colours; by tier, one per tier (issue 33). A site all
    # in the bundle is drawn by type first.
    if (colours["drawn"], colours["typeClass"], colours["tierClass"]) != ("by-type", "by-type", "by-tier"):
        problems.append(f"the map's class: drawn {colours['drawn']}, then {colours['typeClass']}, "
                        f"{colours['tierClass']}")
    if len(set(colours["byType"])) < 2:
        problems.append(f"the map by content type has one colour: {set(colours['byType'])}")
    by_tier = {}
    for tier, fill in zip(colours["tiers"], colours["byTier"]):
        by_tier.setdefault(tier, set()).add(fill)
    if set(by_tier) != {"bundle", "assets", "r2"} or \
            any(len(fills) != 1 for fills in by_tier.values()) or \
            len({next(iter(f)) for f in by_tier.values()}) != len(by_tier):
        problems.append(f"the map by tier is not one colour per tier: {by_tier}")
    if colours["legend"] == "none":
        problems.append("the tiers' legend is hidden once the map is coloured by tier")
    if sorted_bytes != sorted(sorted_bytes, reverse=True):
        problems.append(f"a click on 'identity bytes' did not sort the column: {sorted_bytes}")
    print(f"{url}: {got['files']} files, {got['rects']} rectangles in {got['box'][0]:.0f}x"
          f"{got['box'][1]:.0f} px, bundle {got['bundle']} bytes; {len(requests)} request(s), "
          f"{len(console)} console message(s); {len(want['coding'])} encodings and "
          f"{len(want['stages'])} stages as manifest.json and report.txt say")
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
