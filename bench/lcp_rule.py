#!/usr/bin/env python3
"""The build's rule for a page's likely LCP image and its lazy images (`[links]
prioritize_images`, crates/sitegen/src/links/priority.rs), measured against the Largest
Contentful Paint element headless Chromium reports (issue 34):

    bench/lcp_rule.py OFF_BASE ON_BASE PAGE [PAGE...]

OFF serves the site as the author wrote it (`prioritize_images = false`), ON with the rule.
Each page's `<img>` elements are read from both servers' HTML (Python's html.parser, in
document order): those that have `fetchpriority="high"` or `loading="lazy"` on ON and not on
OFF are the rule's. Then OFF's page is loaded at a desktop's 1280x900 and a phone's 390x844
(a new tab, an empty cache), and after its load event the last `largest-contentful-paint`
entry names the LCP element (an `<img>` by its place in `document.images`, or text or another
element) and each image's box at the top of the page says whether it is in the first screen.
Per view:
  hit       the rule's image is the LCP element
  wrong     the rule picked an image, the LCP is another element (the hint cost a little)
  missed    the LCP is an <img> the rule did not pick
  lazy-bad  an image the rule made lazy is the LCP or shows in the first screen (must be 0)
Prints one line per view, then the totals; exits 1 if any lazy-bad.
"""
import argparse
import os
import sys
import tempfile
import urllib.request
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "browser"))
from repeat_views import cdp, close_browser, fresh_tab, open_browser  # noqa: E402

VIEWPORTS = {"desktop": (1280, 900, False), "phone": (390, 844, True)}

LCP = """
const done = arguments[arguments.length - 1];
const settle = () => new Promise((resolve) => {
  const loaded = document.readyState === "complete"
    ? Promise.resolve() : new Promise((r) => addEventListener("load", r, {once: true}));
  loaded.then(() => setTimeout(resolve, 500));
});
let last = null;
new PerformanceObserver((list) => { const e = list.getEntries(); last = e[e.length - 1]; })
  .observe({type: "largest-contentful-paint", buffered: true});
settle().then(() => {
  const images = [...document.images];
  const boxes = images.map((i) => { const r = i.getBoundingClientRect();
    return [r.top + scrollY, r.bottom + scrollY, r.width, r.height]; });
  const el = last && last.element;
  done({
    lcp: el ? (el.tagName === "IMG" ? images.indexOf(el) : el.tagName.toLowerCase()) : null,
    url: last ? last.url : "", size: last ? last.size : 0,
    boxes, height: innerHeight,
  });
});
"""


class Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs))

    handle_startendtag = handle_starttag


def images_of(url):
    parser = Images()
    with urllib.request.urlopen(url) as response:
        parser.feed(response.read().decode("utf-8", "replace"))
    return parser.images


def added(off, on, name, value):
    """Indices of the images that have name=value on ON and not on OFF."""
    return {i for i, (a, b) in enumerate(zip(off, on))
            if (b.get(name) or "").lower() == value and (a.get(name) or "").lower() != value}


def main():
    ap = argparse.ArgumentParser(description="The LCP rule against Chromium's LCP element.")
    ap.add_argument("off")
    ap.add_argument("on")
    ap.add_argument("pages", nargs="+")
    args = ap.parse_args()
    totals = dict(views=0, image_lcp=0, hit=0, wrong=0, missed=0, lazy=0, lazy_bad=0,
                  unmatched=0)
    with tempfile.TemporaryDirectory() as profile:
        driver = open_browser(profile)
        try:
            for page in args.pages:
                off, on = images_of(args.off + page), images_of(args.on + page)
                if len(off) != len(on):
                    print(f"{page}: {len(off)} and {len(on)} images: not compared")
                    totals["unmatched"] += 1
                    continue
                hero = added(off, on, "fetchpriority", "high")
                lazy = added(off, on, "loading", "lazy")
                for viewport, (width, height, mobile) in VIEWPORTS.items():
                    fresh_tab(driver)
                    cdp(driver, "Emulation.setDeviceMetricsOverride",
                        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
                    driver.navigate(args.off + page)
                    seen = driver.call("POST", f"/session/{driver.session}/execute/async",
                                       {"script": LCP, "args": []})
                    if len(seen["boxes"]) != len(off):
                        print(f"{page} at {viewport}: the DOM has {len(seen['boxes'])} images, "
                              f"the HTML {len(off)}: not compared")
                        totals["unmatched"] += 1
                        continue
                    lcp = seen["lcp"]
                    totals["views"] += 1
                    is_image = isinstance(lcp, int) and lcp >= 0
                    totals["image_lcp"] += is_image
                    verdict = []
                    if hero and is_image and lcp in hero:
                        verdict.append("hit")
                    elif hero:
                        verdict.append("wrong")
                    elif is_image:
                        verdict.append("missed")
                    first_screen = {i for i, (top, bottom, w, h) in enumerate(seen["boxes"])
                                    if top < seen["height"] and w * h > 0}
                    bad = sorted(i for i in lazy if i == lcp or i in first_screen)
                    totals["lazy"] += len(lazy)
                    totals["lazy_bad"] += len(bad)
                    for word in ("hit", "wrong", "missed"):
                        totals[word] += word in verdict
                    shown = f"<img> #{lcp} {seen['url'].rsplit('/', 1)[-1][:40]}" if is_image else lcp
                    tops = [int(seen["boxes"][i][0]) for i in sorted(lazy)]
                    print(f"{page} at {viewport}: LCP {shown} ({int(seen['size'])} px²); "
                          f"rule: LCP image {sorted(hero) or 'none'}, lazy {len(lazy)} "
                          f"(tops {tops[:3]}{'...' if len(tops) > 3 else ''}); "
                          f"{' '.join(verdict) or 'text, none picked'}"
                          + (f"; LAZY-BAD {bad}" if bad else ""))
        finally:
            close_browser(driver)
    print("totals: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    sys.exit(1 if totals["lazy_bad"] else 0)


if __name__ == "__main__":
    main()
