#!/usr/bin/env python3
"""RFC 9842 end to end: two deploys of a site, served by the native twin, in headless Chromium.

    tests/browser/deltas_in_browser.py PORT [--json]

Deploy 1 (a page, a ~60 KB app.js the link pass names `/app.js?v=<hash>`, and a ~60 KB library
named by its own hash, `lib.<hash>.js`; recorded in a fresh deploy history) is built and
served; the browser loads the page: both scripts run (app.js sets the title) and, immutable
with `Use-As-Dictionary`, are kept as dictionaries. Deploy 2 changes a few lines of each (the
library gets a new name); the build reads the history and makes deltas of them against deploy
1's bytes (the library's by its name pattern). Served on the same origin, the page is loaded
again: the DevTools network log must show both new scripts requested with
`Available-Dictionary` and `dcb`/`dcz` accepted, answered with `Content-Encoding: dcb` or `dcz`,
and the title must say both new scripts ran (so the browser decoded each delta exactly).
Each deploy is served by the native twin serving the folder's compile (serve.py), recorded in
the history as a build with EDGESITE_RECORD_DEPLOY=1 records it.
"""
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repeat_views import close_browser, open_browser  # noqa: E402
from serve import serve_site  # noqa: E402
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>waiting</title>
<script src="{lib}"></script><script src="app.js"></script></head>
<body><p>A page of the deltas test.</p></body></html>
"""


def script(version, name):
    """~60 KB whose versions differ in a line; app.js sets the title (with the library's
    version, so the title says both ran)."""
    lines = [f"function {name}{i}(x) {{ return x * {i * 7919 % 1009} + {i % 97}; }}"
             for i in range(1500)]
    lines[100 * version % 1500] = f"function {name}_v{version}(x) {{ return x + {version}; }}"
    if name == "lib":
        lines.append(f"window.libVersion = {version};")
    else:
        lines.append(f"document.title = 'deploy ' + {version} + ' ran: ' + {name}7(1) + "
                     "' with lib ' + window.libVersion;")
    return "\n".join(lines) + "\n"


def deploy(site, config, version, port):
    """Writes deploy `version` (app.js, referenced with ?v=, and a library named by its hash,
    `lib.<first 10 hex of its SHA-256>.js`, the page naming the current one), builds it
    (recording it in the history) and serves it."""
    lib = script(version, "lib")
    lib_name = f"lib.{hashlib.sha256(lib.encode()).hexdigest()[:10]}.js"
    for name in os.listdir(site):
        if name.startswith("lib."):
            os.remove(os.path.join(site, name))
    for name, text in [("app.js", script(version, "app")), (lib_name, lib),
                       ("index.html", PAGE.format(lib=lib_name))]:
        with open(os.path.join(site, name), "w") as f:
            f.write(text)
    return serve_site(port, site=site, config=config, record_deploy=True)


def script_exchanges(driver, url):
    """Loads `url`; returns, for app.js and the library, the request's fields and the
    response's, from the DevTools network log."""
    driver.network_log()
    driver.navigate(url)
    time.sleep(0.5)
    sent, received, extra = {}, {}, {}
    for event in driver.network_log():
        method, params = event.get("method"), event.get("params", {})
        rid = params.get("requestId")
        if method == "Network.requestWillBeSent":
            for name in ("/app.js", "/lib."):
                if name in params["request"]["url"]:
                    sent[rid] = (name, params["request"]["url"])
        elif method == "Network.requestWillBeSentExtraInfo":
            extra[rid] = {k.lower(): v for k, v in params.get("headers", {}).items()}
        elif method == "Network.responseReceived":
            response = params["response"]
            received[rid] = {"status": response.get("status"),
                             "headers": {k.lower(): v for k, v in response["headers"].items()}}
    return {name: {"url": url, "request_headers": extra.get(rid, {}),
                   "response": received.get(rid) or {}}
            for rid, (name, url) in sent.items()}


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
        first = script_exchanges(driver, base)
        first["title"] = driver.call("GET", f"/session/{driver.session}/title")
        time.sleep(1.0)  # the dictionary is stored once the response is complete
        server.terminate()
        server.wait()
        server = deploy(site, config, 2, port)
        second = script_exchanges(driver, base)
        second["title"] = driver.call("GET", f"/session/{driver.session}/title")
    finally:
        close_browser(driver)
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)
    checks = {"deploy 1's scripts ran": first["title"] == "deploy 1 ran: 954 with lib 1"}
    for name in ("/app.js", "/lib."):
        before, after = first.get(name, {}), second.get(name, {})
        coding = after.get("response", {}).get("headers", {}).get("content-encoding")
        checks[f"deploy 1's {name} was offered as a dictionary"] = \
            "use-as-dictionary" in before.get("response", {}).get("headers", {})
        checks[f"deploy 2's {name} was requested with Available-Dictionary"] = \
            "available-dictionary" in after.get("request_headers", {})
        checks[f"deploy 2's {name} answered with a delta ({coding})"] = \
            after.get("response", {}).get("status") == 200 and coding in ("dcb", "dcz")
    checks["deploy 2's scripts ran"] = second["title"] == "deploy 2 ran: 954 with lib 2"
    if not all(checks.values()) or "--json" in sys.argv:
        print(json.dumps({"deploy_1": first, "deploy_2": second}, indent=1))
    for what, ok in checks.items():
        print(("ok:   " if ok else "FAIL: ") + what)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
