#!/usr/bin/env python3
"""RFC 9842 end to end: two deploys of a site, served by the native twin, in headless Chromium.

    tests/browser/deltas_in_browser.py PORT [--json]

Deploy 1 (a page and a ~60 KB script, recorded in a fresh deploy history) is built and served;
the browser loads the page: the script runs (it sets the title) and, requested as
`/app.js?v=<hash>` (immutable) with `Use-As-Dictionary`, is kept as a dictionary. Deploy 2
changes a few lines of the script; the build reads the history and makes deltas of it against
deploy 1's bytes. Served on the same origin, the page is loaded again: the DevTools network log
must show the new script requested with `Available-Dictionary` and `dcb`/`dcz` accepted,
answered with `Content-Encoding: dcb` or `dcz` in far fewer bytes than the script, and the
title must say the new script ran (so the browser decoded the delta to its exact bytes).
Builds with cargo into target/site-override (as the site layer does).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repeat_views import close_browser, open_browser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = os.path.join(ROOT, "target", "site-override")
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>waiting</title>
<script src="app.js"></script></head><body><p>A page of the deltas test.</p></body></html>
"""


def script(version):
    lines = [f"function handler{i}(x) {{ return x * {i * 7919 % 1009} + {i % 97}; }}"
             for i in range(1500)]
    lines[100 * version % 1500] = f"function handler_v{version}(x) {{ return x + {version}; }}"
    lines.append(f"document.title = 'deploy ' + {version} + ' ran: ' + handler7(1);")
    return "\n".join(lines) + "\n"


def deploy(site, config, version, port):
    """Writes deploy `version`, builds it (recording it in the history) and serves it."""
    with open(os.path.join(site, "app.js"), "w") as f:
        f.write(script(version))
    env = dict(os.environ, EDGESITE_SITE=site, EDGESITE_CONFIG=config, EDGESITE_RECORD_DEPLOY="1")
    subprocess.run(["cargo", "build", "-q", "-p", "edgesite-native", "--target-dir", TARGET],
                   cwd=ROOT, env=env, check=True)
    server = subprocess.Popen([os.path.join(TARGET, "debug", "edgesite-native"), "--listen",
                               f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL)
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
            return server
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def script_exchange(driver, url):
    """Loads `url`; returns the script request's fields and its response's, from the log."""
    driver.network_log()
    driver.navigate(url)
    time.sleep(0.5)
    sent, received, extra = {}, {}, {}
    for event in driver.network_log():
        method, params = event.get("method"), event.get("params", {})
        rid = params.get("requestId")
        if method == "Network.requestWillBeSent" and "/app.js" in params["request"]["url"]:
            sent[rid] = {"url": params["request"]["url"]}
        elif method == "Network.requestWillBeSentExtraInfo":
            extra[rid] = {k.lower(): v for k, v in params.get("headers", {}).items()}
        elif method == "Network.responseReceived":
            response = params["response"]
            received[rid] = {"status": response.get("status"),
                             "encoded_bytes": response.get("encodedDataLength"),
                             "headers": {k.lower(): v for k, v in response["headers"].items()}}
    rid = next(iter(sent), None)
    return {"request": sent.get(rid), "request_headers": extra.get(rid, {}),
            "response": received.get(rid)}


def main():
    port = int(sys.argv[1])
    work = tempfile.mkdtemp(prefix="edgesite-deltas-")
    site, config = os.path.join(work, "site"), os.path.join(work, "edgesite.toml")
    os.makedirs(site)
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write(PAGE)
    with open(config, "w") as f:
        f.write(f'[history]\ndir = "{os.path.join(work, "history")}"\n')
    base = f"http://127.0.0.1:{port}/"
    driver, server = open_browser(os.path.join(work, "profile")), None
    try:
        server = deploy(site, config, 1, port)
        first = script_exchange(driver, base)
        first["title"] = driver.call("GET", f"/session/{driver.session}/title")
        time.sleep(1.0)  # the dictionary is stored once the response is complete
        server.terminate()
        server.wait()
        server = deploy(site, config, 2, port)
        second = script_exchange(driver, base)
        second["title"] = driver.call("GET", f"/session/{driver.session}/title")
    finally:
        close_browser(driver)
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)
    response = second["response"] or {}
    coding = response.get("headers", {}).get("content-encoding")
    checks = {
        "deploy 1's script ran": first["title"].startswith("deploy 1 ran"),
        "deploy 1's script was offered as a dictionary":
            "use-as-dictionary" in (first["response"] or {}).get("headers", {}),
        "deploy 2's script was requested with Available-Dictionary":
            "available-dictionary" in second["request_headers"],
        "and answered with a delta": response.get("status") == 200 and coding in ("dcb", "dcz"),
        "of a few hundred bytes at most": 0 < (response.get("encoded_bytes") or 0) < 1500,
        "deploy 2's script ran": second["title"].startswith("deploy 2 ran"),
    }
    if not all(checks.values()) or "--json" in sys.argv:
        print(json.dumps({"deploy_1": first, "deploy_2": second}, indent=1))
    print(f"deploy 2's script: {response.get('encoded_bytes')} bytes on the wire, "
          f"Content-Encoding {coding}")
    for what, ok in checks.items():
        print(("ok:   " if ok else "FAIL: ") + what)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
