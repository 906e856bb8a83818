//! The views layer: headless Chromium (Python with selenium, `tests/browser/*.py`, each a check
//! of this layer) on the demo served by the shared native twin and workerd, and on a generated
//! docs-style site served by `serve_site`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use testkit::{free_port, Server};

use crate::config;
use crate::layers::Harness;
use crate::run::{run_to, Layer};

/// The checks on the shared servers and the generated docs-style site.
const ON_SERVERS: [&str; 6] = [
    "repeat_views",
    "speculation",
    "preloads",
    "same_view docs",
    "images",
    "same_view demo",
];

/// A temporary folder removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(root: &Path, name: &str) -> Result<TempDir, String> {
        let dir = root.join("target/test-logs/tmp").join(name);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

impl Harness {
    /// `serve_site --listen 127.0.0.1:PORT ARGS...` (a folder compiled when it starts, served
    /// from memory), started as `name`.
    fn serve_site(&self, title: &str, name: &str, args: &[&Path]) -> Result<Server, String> {
        let port = free_port();
        let mut command = self
            .run
            .command(self.run.root.join("target/test-bin/serve_site"));
        command
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(args);
        self.start_server(
            &format!("serve_site ({title})"),
            name,
            port,
            120,
            &mut command,
        )
    }

    fn python(&self, script: &str) -> Command {
        let mut command = self.run.command("python3");
        command.arg(format!("tests/browser/{script}"));
        command
    }

    pub(crate) fn views(&self, l: &mut Layer<'_>) -> Result<(), String> {
        let run = &self.run;
        run.needs(&["host", "server binaries", "worker (deploy bundle)"])?;
        if l.wants_any(ON_SERVERS) {
            if let Err(e) = self.views_on_servers(l) {
                l.fail("the checks on the shared servers", &e);
            }
        }
        if l.wants("html_dictionary") {
            if let Err(e) = self.html_dictionary(l) {
                l.fail("html_dictionary", &e);
            }
        }
        // RFC 9842: Chromium decodes the dcz and dcb streams sitegen builds (each served alone
        // by the script's loopback server), and two deploys served by the native twin: the
        // second's script arrives as a delta against the first's, and runs.
        l.check(
            "dictionary_transport",
            self.python("dictionary_transport.py")
                .arg(run.root.join("target/test-bin/delta")),
            &[],
        );
        l.check(
            "deltas",
            self.python("deltas_in_browser.py")
                .arg(free_port().to_string()),
            &[],
        );
        self.report(l)
    }

    /// The site-wide HTML dictionary (RFC 9842 §3.2) on a docs-style site: page B arrives as a
    /// delta.
    fn html_dictionary(&self, l: &mut Layer<'_>) -> Result<(), String> {
        let site = TempDir::new(&self.run.root, "html-dictionary")?;
        self.gensite(&site.0)?;
        let mut command = self.python("html_dictionary.py");
        command.arg(&site.0).arg(free_port().to_string());
        l.check(
            "html_dictionary",
            command.args(["/docs/page-0001", "/docs/page-0002"]),
            &[],
        );
        Ok(())
    }

    /// report.html (issue 24): `make report`'s build names it; Chromium opens it from file://.
    fn report(&self, l: &mut Layer<'_>) -> Result<(), String> {
        if l.wants("report") {
            let run = &self.run;
            let report = run.step("cargo xtask report", || {
                crate::layers::demo_report(&run.root)
            })?;
            let dir = report.parent().unwrap_or(&run.root);
            l.check("report", self.python("report_in_browser.py").arg(dir), &[]);
        }
        Ok(())
    }

    /// The docs-style site: 24 pages of 20 KB whose last images are far enough down to be made
    /// lazy, from a generator that does not fingerprint.
    fn gensite(&self, dir: &Path) -> Result<(), String> {
        run_to(
            self.run
                .command("python3")
                .arg("bench/gensite.py")
                .arg(dir)
                .args([
                    "--pages",
                    "24",
                    "--page-kb",
                    "20",
                    "--images",
                    "6",
                    "--image-kb",
                    "4",
                    "--style",
                    "docs",
                ]),
            Some(&self.run.logs.join("gensite.log")),
        )
    }

    /// The checks on the shared servers and the generated docs-style site.
    fn views_on_servers(&self, l: &mut Layer<'_>) -> Result<(), String> {
        let run = &self.run;
        let native = self.native()?;
        let workerd = self.workerd()?;
        let (native_url, workerd_url) =
            (native.url(), format!("http://127.0.0.1:{}", workerd.1[0]));
        let site = TempDir::new(&run.root, "docs-site")?;
        // The configs with the first view's work off.
        let configs = TempDir::new(&run.root, "first-view-off")?;
        self.gensite(&site.0)?;
        let docs = self.serve_site(
            "the docs site",
            "serve-site",
            &[Path::new("--site"), &site.0],
        )?;
        let docs_url = docs.url();
        let servers = [&*native, &workerd.0, &docs];
        // Page A, page B, page A again, and B, A, B: the second view must make exactly one
        // request (its document's 304); one Chromium session for all of them.
        l.check(
            "repeat_views",
            self.python("repeat_views.py")
                .args(["--both-ways", "--expect-requests", "1"])
                .args([
                    &native_url,
                    "/about",
                    "/guide/",
                    &workerd_url,
                    "/about",
                    "/guide/",
                    &docs_url,
                    "/docs/page-0001",
                    "/docs/page-0002",
                    &docs_url,
                    "/",
                    "/docs/page-0003",
                ]),
            &servers,
        );
        // Speculation Rules (issue 23): every URL the rules name is a page; hovering a link
        // prefetches it, and the click is served from the prefetch.
        l.check(
            "speculation",
            self.python("speculation_in_browser.py").args([
                &native_url,
                "/",
                "/about",
                &workerd_url,
                "/about",
                "/guide/",
                &docs_url,
                "/docs/page-0001",
                "-",
                &docs_url,
                "/",
                "-",
            ]),
            &servers,
        );
        // The first view (issue 34): what the docs site's stylesheets fetch late is named in
        // each page's first response, and Chromium requests every hinted URL once and uses it;
        // the demo's /photos preloads its likely LCP image, negotiated by Accept.
        l.check(
            "preloads",
            self.python("preloads_in_browser.py").args([
                &docs_url,
                "/docs/page-0001",
                &docs_url,
                "/",
                &native_url,
                "/photos",
                &workerd_url,
                "/photos",
            ]),
            &servers,
        );
        // Nothing a visitor sees changes (issue 34): the same site with the first view's work
        // off and on, pixel-identical screenshots at two viewports, the same text and console.
        if l.wants("same_view docs") {
            let off = configs.0.join("docs.toml");
            fs::write(&off, config::first_view_off(None)?).map_err(|e| e.to_string())?;
            let docs_off = self.serve_site(
                "the docs site, first view work off",
                "serve-site-off",
                &[Path::new("--site"), &site.0, Path::new("--config"), &off],
            )?;
            l.check(
                "same_view docs",
                self.python("same_view.py").args([
                    "--save",
                    "target/same-view",
                    &docs_off.url(),
                    &docs_url,
                    "/docs/page-0001",
                    "/",
                ]),
                &[&docs_off, &docs],
            );
        }
        drop(docs);
        if l.wants("same_view demo") {
            let off = configs.0.join("demo.toml");
            fs::write(
                &off,
                config::first_view_off(Some(&run.root.join("edgesite.toml")))?,
            )
            .map_err(|e| e.to_string())?;
            let public = run.root.join("public");
            let demo_off = self.serve_site(
                "the demo, first view work off",
                "serve-site-off",
                &[Path::new("--site"), &public, Path::new("--config"), &off],
            )?;
            let demo = self.serve_site(
                "the demo",
                "serve-site",
                &[
                    Path::new("--site"),
                    &public,
                    Path::new("--config"),
                    &run.root.join("edgesite.toml"),
                ],
            )?;
            l.check(
                "same_view demo",
                self.python("same_view.py")
                    .args(["--save", "target/same-view", &demo_off.url(), &demo.url()])
                    .args([
                        "/",
                        "/about",
                        "/photos",
                        "/guide/",
                        "/nope",
                        "/guide/deeper/nope",
                    ]),
                &[&demo_off, &demo],
            );
        }
        // Image variants (issue 22): the demo's /photos arrives as AVIF and WebP, rendered at
        // the published size, with at least 30% fewer image bytes than with `Accept: */*`.
        l.check(
            "images",
            self.python("images_in_browser.py")
                .args([&native_url, &workerd_url]),
            &[&native, &workerd.0],
        );
        Ok(())
    }
}
