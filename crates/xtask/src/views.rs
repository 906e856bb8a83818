//! The views layer: headless Chromium (Python with selenium, `tests/browser/*.py`, each a check
//! of this layer) on the demo served by the shared native twin and workerd, and on a generated
//! docs-style site served by `serve_site`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use std::sync::Arc;

use testkit::{free_port, Server};

use crate::config;
use crate::layers::{Harness, Workerd};
use crate::run::{run_to, Layer};

/// The checks on the shared servers and the generated docs-style site.
const ON_SERVERS: [&str; 7] = [
    "repeat_views",
    "speculation",
    "preloads docs",
    "preloads photos",
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

    /// The layer's checks in three lanes side by side (the machine has two cores; two lanes
    /// mostly wait): the checks that draw and compare pixels in a lane of their own, the
    /// others (which wait on the network log or on Chromium's timers: its unused-preload
    /// warning, a dictionary stored after its response) in two.
    pub(crate) fn views(&self, l: &mut Layer<'_>) -> Result<(), String> {
        let run = &self.run;
        run.needs(&["host", "server binaries", "worker (deploy bundle)"])?;
        let servers = if l.wants_any(ON_SERVERS) {
            self.views_servers()
                .map_err(|e| l.fail("the checks on the shared servers", &e))
                .ok()
        } else {
            None
        };
        let servers = servers.as_ref();
        l.lanes(vec![
            Box::new(|l| {
                if let Some(s) = servers {
                    self.repeat_views(l, s);
                    self.speculation(l, s);
                    self.preloads_photos(l, s);
                }
                if let Err(e) = self.report(l) {
                    l.fail("report", &e);
                }
            }),
            Box::new(|l| {
                if let Some(s) = servers {
                    self.same_view(l, s);
                }
            }),
            Box::new(|l| {
                if let Some(s) = servers {
                    self.preloads_docs(l, s);
                    self.images(l, s);
                }
                self.transport_checks(l);
                if let Err(e) = self.html_dictionary(l) {
                    l.fail("html_dictionary", &e);
                }
            }),
        ]);
        Ok(())
    }

    /// RFC 9842: Chromium decodes the dcz and dcb streams sitegen builds (each served alone by
    /// the script's loopback server), and two deploys served by the native twin: the second's
    /// script arrives as a delta against the first's, and runs.
    fn transport_checks(&self, l: &mut Layer<'_>) {
        l.check(
            "dictionary_transport",
            self.python("dictionary_transport.py")
                .arg(self.run.root.join("target/test-bin/delta")),
            &[],
        );
        l.check(
            "deltas",
            self.python("deltas_in_browser.py")
                .arg(free_port().to_string()),
            &[],
        );
    }

    /// The site-wide HTML dictionary (RFC 9842 §3.2) on a docs-style site: page B arrives as a
    /// delta.
    fn html_dictionary(&self, l: &mut Layer<'_>) -> Result<(), String> {
        if !l.wants("html_dictionary") {
            return Ok(());
        }
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

    /// The servers of the checks that need them: the shared native twin and workerd, and the
    /// generated docs-style site served by `serve_site`.
    fn views_servers(&self) -> Result<ViewServers, String> {
        let native = self.native()?;
        let workerd = self.workerd()?;
        let site = TempDir::new(&self.run.root, "docs-site")?;
        self.gensite(&site.0)?;
        let docs = self.serve_site(
            "the docs site",
            "serve-site",
            &[Path::new("--site"), &site.0],
        )?;
        Ok(ViewServers {
            native,
            workerd,
            docs,
            site,
            configs: TempDir::new(&self.run.root, "first-view-off")?,
        })
    }

    /// Page A, page B, page A again, and B, A, B: the second view must make exactly one
    /// request (its document's 304); one Chromium session for all of them.
    fn repeat_views(&self, l: &mut Layer<'_>, s: &ViewServers) {
        let (native_url, workerd_url, docs_url) = (s.native.url(), s.workerd_url(), s.docs.url());
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
            &s.all(),
        );
    }

    /// Speculation Rules (issue 23): every URL the rules name is a page; hovering a link
    /// prefetches it, and the click is served from the prefetch.
    fn speculation(&self, l: &mut Layer<'_>, s: &ViewServers) {
        let (native_url, workerd_url, docs_url) = (s.native.url(), s.workerd_url(), s.docs.url());
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
            &s.all(),
        );
    }

    /// The first view (issue 34): what the docs site's stylesheets fetch late is named in each
    /// page's first response, and Chromium requests every hinted URL once and uses it (two
    /// checks, each page waits three seconds for Chromium's unused-preload warning).
    fn preloads_docs(&self, l: &mut Layer<'_>, s: &ViewServers) {
        let docs_url = s.docs.url();
        l.check(
            "preloads docs",
            self.python("preloads_in_browser.py").args([
                &docs_url,
                "/docs/page-0001",
                &docs_url,
                "/",
            ]),
            &[&s.docs],
        );
    }

    /// The same for the demo's /photos, which preloads its likely LCP image, negotiated by
    /// Accept, on the native twin and workerd.
    fn preloads_photos(&self, l: &mut Layer<'_>, s: &ViewServers) {
        l.check(
            "preloads photos",
            self.python("preloads_in_browser.py").args([
                &s.native.url(),
                "/photos",
                &s.workerd_url(),
                "/photos",
            ]),
            &[&s.native, &s.workerd.0],
        );
    }

    /// Image variants (issue 22): the demo's /photos arrives as AVIF and WebP, rendered at the
    /// published size, with at least 30% fewer image bytes than with `Accept: */*`.
    fn images(&self, l: &mut Layer<'_>, s: &ViewServers) {
        l.check(
            "images",
            self.python("images_in_browser.py")
                .args([&s.native.url(), &s.workerd_url()]),
            &[&s.native, &s.workerd.0],
        );
    }

    /// The checks that draw: the same view with the first view's work off and on.
    fn same_view(&self, l: &mut Layer<'_>, s: &ViewServers) {
        if let Err(e) = self.same_view_docs(l, s) {
            l.fail("same_view docs", &e);
        }
        if let Err(e) = self.same_view_demo(l, s) {
            l.fail("same_view demo", &e);
        }
    }

    /// Nothing a visitor sees changes (issue 34): the docs site with the first view's work off
    /// and on, pixel-identical screenshots at two viewports, the same text and console.
    fn same_view_docs(&self, l: &mut Layer<'_>, s: &ViewServers) -> Result<(), String> {
        if !l.wants("same_view docs") {
            return Ok(());
        }
        let off = s.configs.0.join("docs.toml");
        fs::write(&off, config::first_view_off(None)?).map_err(|e| e.to_string())?;
        let docs_off = self.serve_site(
            "the docs site, first view work off",
            "serve-site-off",
            &[Path::new("--site"), &s.site.0, Path::new("--config"), &off],
        )?;
        l.check(
            "same_view docs",
            self.python("same_view.py").args([
                "--save",
                "target/same-view",
                &docs_off.url(),
                &s.docs.url(),
                "/docs/page-0001",
                "/",
            ]),
            &[&docs_off, &s.docs],
        );
        Ok(())
    }

    /// The same for the demo, its pages and its 404s.
    fn same_view_demo(&self, l: &mut Layer<'_>, s: &ViewServers) -> Result<(), String> {
        if !l.wants("same_view demo") {
            return Ok(());
        }
        let root = &self.run.root;
        let off = s.configs.0.join("demo.toml");
        fs::write(
            &off,
            config::first_view_off(Some(&root.join("edgesite.toml")))?,
        )
        .map_err(|e| e.to_string())?;
        let public = root.join("public");
        let demo_off = self.serve_site(
            "the demo, first view work off",
            "serve-site-demo-off",
            &[Path::new("--site"), &public, Path::new("--config"), &off],
        )?;
        let demo = self.serve_site(
            "the demo",
            "serve-site-demo",
            &[
                Path::new("--site"),
                &public,
                Path::new("--config"),
                &root.join("edgesite.toml"),
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
        Ok(())
    }
}

/// The servers of the views layer's checks on servers, and the docs site's folders.
struct ViewServers {
    native: Arc<Server>,
    workerd: Arc<Workerd>,
    /// `serve_site` serving `site`.
    docs: Server,
    site: TempDir,
    /// The configurations with the first view's work off.
    configs: TempDir,
}

impl ViewServers {
    /// The servers, for the logs a failing check prints.
    fn all(&self) -> [&Server; 3] {
        [&self.native, &self.workerd.0, &self.docs]
    }

    fn workerd_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.workerd.1[0])
    }
}
