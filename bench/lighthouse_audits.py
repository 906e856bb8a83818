#!/usr/bin/env python3
"""One Lighthouse report (JSON on stdin) as a line: the performance score, LCP in ms, and each
audit of the first view that issue 34 names, `pass`, `FAIL` or `n/a` (not applicable, or not in
this Lighthouse): bench/pageload.sh prints one line per server and site.

    lighthouse URL --output=json --output-path=stdout ... | bench/lighthouse_audits.py
"""
import json
import sys

# Lighthouse 12's ids (core/audits), in the issue's order.
AUDITS = [
    ("unminified-css", "minified CSS"),
    ("unminified-javascript", "minified JS"),
    ("unsized-images", "sized images"),
    ("lcp-lazy-loaded", "LCP not lazy"),
    ("prioritize-lcp-image", "LCP preloaded"),
    ("render-blocking-resources", "render-blocking"),
    ("uses-text-compression", "text compression"),
    ("uses-long-cache-ttl", "cache lifetimes"),
    ("modern-image-formats", "modern images"),
    ("cumulative-layout-shift", "CLS"),
]


def verdict(audit):
    if audit is None or audit.get("scoreDisplayMode") in ("notApplicable", "manual", "error"):
        return "n/a"
    score = audit.get("score")
    if score is None:
        return "n/a"
    return "pass" if score >= 0.9 else "FAIL"


def main():
    report = json.load(sys.stdin)
    audits = report["audits"]
    score = round(report["categories"]["performance"]["score"] * 100)
    lcp = round(audits["largest-contentful-paint"]["numericValue"])
    cells = [f"{label} {verdict(audits.get(key))}" for key, label in AUDITS]
    print(f"{score} {lcp} | " + ", ".join(cells))


if __name__ == "__main__":
    main()
