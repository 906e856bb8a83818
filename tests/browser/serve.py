"""A folder served as edgesite-native would serve it after a build with it, without the build:
`serve_site` (crates/native/examples/serve_site.rs, built by `cargo test`) compiles the folder
with sitegen when it starts and serves it from memory."""
import os
import subprocess
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVE_SITE = os.path.join(TARGET, "debug", "examples", "serve_site")


def serve_site(port, site=None, config=None, record_deploy=False):
    """Serves SITE (EDGESITE_SITE) with CONFIG (EDGESITE_CONFIG) on 127.0.0.1:PORT, recording the
    compile in the deploy history first with record_deploy (EDGESITE_RECORD_DEPLOY=1); returns
    the process once it answers."""
    command = [SERVE_SITE, "--listen", f"127.0.0.1:{port}"]
    if site:
        command += ["--site", site]
    if config:
        command += ["--config", config]
    if record_deploy:
        command.append("--record-deploy")
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    for _ in range(600):
        if server.poll() is not None:
            raise SystemExit(f"serve_site exited with {server.returncode}: {command}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
            return server
        except urllib.error.HTTPError:
            return server
        except OSError:
            time.sleep(0.1)
    server.terminate()
    raise SystemExit(f"serve_site did not answer on port {port}")
