#!/usr/bin/env python3
"""The site-wide HTML dictionary (`[history] html_dictionary`, RFC 9842) in headless Chromium.

    tests/browser/html_dictionary.py SITE PORT PAGE_A PAGE_B

Serves SITE with the HTML dictionary on (the native twin serving the folder's compile: serve.py),
loads PAGE_A (its `Link: rel="compression-dictionary"` makes the browser
fetch the dictionary at idle, §3.2), then PAGE_B: the DevTools network log must show PAGE_B's
navigation requested with Available-Dictionary naming the dictionary and `dcb`/`dcz` accepted,
and answered with one of them (the page then rendered: its title is read back).
"""
import html
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repeat_views import close_browser, open_browser  # noqa: E402
from serve import serve_site  # noqa: E402


def exchanges(log):
    """Per request of the log: URL, the request's fields as sent, status and Content-Encoding."""
    sent, fields, received = {}, {}, {}
    for event in log:
        method, params = event.get("method"), event.get("params", {})
        rid = params.get("requestId")
        if method == "Network.requestWillBeSent":
            sent[rid] = params["request"]["url"]
        elif method == "Network.requestWillBeSentExtraInfo":
            fields[rid] = {k.lower(): v for k, v in params.get("headers", {}).items()}
        elif method == "Network.responseReceived":
            response = params["response"]
            headers = {k.lower(): v for k, v in response["headers"].items()}
            received[rid] = (response.get("status"), headers.get("content-encoding"))
    return [{"url": url, "fields": fields.get(rid, {}), "response": received.get(rid)}
            for rid, url in sent.items()]


def main():
    site, port, page_a, page_b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    work = tempfile.mkdtemp(prefix="edgesite-html-dict-")
    config = os.path.join(work, "edgesite.toml")
    with open(config, "w") as f:
        f.write(f'[history]\ndir = "{os.path.join(work, "history")}"\nhtml_dictionary = true\n')
    server = serve_site(port, site=site, config=config)
    base = f"http://127.0.0.1:{port}"
    driver, expected = None, ""
    try:
        text = urllib.request.urlopen(base + page_b, timeout=5).read().decode()
        if "<title>" in text:
            expected = html.unescape(text.split("<title>", 1)[1].split("</title>", 1)[0])
        driver = open_browser(os.path.join(work, "profile"))
        driver.network_log()
        driver.navigate(base + page_a)
        time.sleep(3.0)  # the dictionary is fetched at idle, then stored
        first = exchanges(driver.network_log())
        driver.navigate(base + page_b)
        time.sleep(0.5)
        second = exchanges(driver.network_log())
        title = driver.call("GET", f"/session/{driver.session}/title")
    finally:
        if driver:
            close_browser(driver)
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    fetched = [e for e in first if "/_edgesite/html.dict?v=" in e["url"]]
    page = next((e for e in second if e["url"] == base + page_b), {})
    coding = (page.get("response") or (None, None))[1]
    checks = {
        "page A's Link made the browser fetch the dictionary": bool(fetched),
        "page B was requested with Available-Dictionary":
            "available-dictionary" in page.get("fields", {}),
        "and dcb, dcz accepted": "dcz" in page.get("fields", {}).get("accept-encoding", ""),
        "and answered with a delta of it": coding in ("dcb", "dcz"),
        "and it rendered (its own title)": bool(expected) and title == expected,
    }
    if not all(checks.values()):
        print(json.dumps({"first": first, "second": second, "title": title}, indent=1))
    print(f"{page_b}: Content-Encoding {coding}, title {title!r}")
    for what, ok in checks.items():
        print(("ok:   " if ok else "FAIL: ") + what)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
