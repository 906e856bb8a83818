#!/usr/bin/env python3
"""RFC 9842 in a real browser: does headless Chromium decode the deltas sitegen builds?

    tests/browser/dictionary_transport.py DELTA_TOOL

DELTA_TOOL is sitegen's `delta` example (crates/sitegen/examples/delta.rs), which writes a dcz
or dcb stream exactly as the build does. A loopback server (this script) serves page 1, which
runs script version 1 (`/app.js?v=1`, fresh for an hour and offered as a dictionary with
`Use-As-Dictionary: match="/app.js"`, RFC 9842 §2.1), then page 2, which loads version 2. When
the request for version 2 carries `Available-Dictionary` (§2.2) with the SHA-256 of version 1
and `Accept-Encoding` lists the coding, the server answers with the delta (`Content-Encoding:
dcz` or `dcb`, `Vary: accept-encoding, available-dictionary`, §6); version 2 then sets the page
title, which the test reads: it runs only if the browser decoded the delta to its exact bytes.
Each coding gets its own browser profile. Exit status 0 when both codings were sent and ran.
"""
import base64
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repeat_views import close_browser, free_port, open_browser  # noqa: E402


def script(version):
    """A script of ~60 KB whose versions differ in a few lines; it sets the title when run."""
    lines = [f"function handler{i}(x) {{ return x * {i * 7919 % 1009} + {i % 97}; }}"
             for i in range(1500)]
    lines[100 * version % 1500] = f"function handler_v{version}(x) {{ return x + {version}; }}"
    lines.append(f"document.title = 'script ' + {version} + ' ran: ' + handler7(1);")
    return ("\n".join(lines) + "\n").encode()


PAGE = """<!DOCTYPE html><html><head><title>waiting</title>
<script src="/app.js?v={version}"></script></head><body>page {version}</body></html>
"""


class Server(http.server.ThreadingHTTPServer):
    def __init__(self, coding, delta):
        super().__init__(("127.0.0.1", free_port()), Handler)
        self.coding, self.delta, self.seen = coding, delta, []


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        server = self.server
        path, _, query = self.path.partition("?")
        fields = {"cache-control": "public, max-age=3600"}
        if path.startswith("/page"):
            version = path[len("/page"):].split(".")[0]
            body, fields["content-type"] = PAGE.format(version=version).encode(), "text/html"
        elif path == "/app.js":
            version = int(query.split("=")[1])
            body, fields["content-type"] = script(version), "text/javascript"
            fields["use-as-dictionary"] = 'match="/app.js"'
            fields["vary"] = "accept-encoding, available-dictionary"
            available = self.headers.get("available-dictionary", "")
            accepted = [c.strip() for c in self.headers.get("accept-encoding", "").split(",")]
            wanted = ":" + base64.b64encode(hashlib.sha256(script(1)).digest()).decode() + ":"
            server.seen.append({"version": version, "available_dictionary": available,
                                "accept_encoding": accepted})
            if version == 2 and available == wanted and server.coding in accepted:
                body = server.delta
                fields["content-encoding"] = server.coding
        else:
            self.send_error(404)
            return
        self.send_response(200)
        for name, value in fields.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def run(coding, delta):
    server = Server(coding, delta)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    profile = tempfile.mkdtemp(prefix="edgesite-dict-")
    try:
        driver = open_browser(profile)
        try:
            driver.navigate(base + "/page1.html")
            first = driver.call("GET", f"/session/{driver.session}/title")
            time.sleep(1.0)  # the dictionary is stored after the response completes
            driver.navigate(base + "/page2.html")
            second = driver.call("GET", f"/session/{driver.session}/title")
        finally:
            close_browser(driver)
    finally:
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    request = next((s for s in server.seen if s["version"] == 2), {})
    sent = bool(request) and request["available_dictionary"] != "" and coding in request.get(
        "accept_encoding", [])
    return {"coding": coding, "delta_bytes": len(delta), "page1_title": first,
            "page2_title": second, "request_for_version_2": request,
            "delta_sent": sent, "ran": second.startswith("script 2 ran")}


def main():
    tool = sys.argv[1]
    work = tempfile.mkdtemp(prefix="edgesite-delta-")
    old, new = os.path.join(work, "v1.js"), os.path.join(work, "v2.js")
    with open(old, "wb") as f:
        f.write(script(1))
    with open(new, "wb") as f:
        f.write(script(2))
    ok = True
    for coding in ("dcz", "dcb"):
        out = os.path.join(work, f"v2.js.{coding}")
        subprocess.run([tool, coding, new, old, out], check=True)
        with open(out, "rb") as f:
            result = run(coding, f.read())
        result["identity_bytes"] = len(script(2))
        print(json.dumps(result))
        ok = ok and result["delta_sent"] and result["ran"]
    shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
