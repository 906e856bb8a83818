//! `make setup` (`cargo xtask setup`, through `scripts/setup.sh`): installs everything edgesite
//! needs to build, run and test, and nothing by hand. Idempotent: a second run checks versions
//! and stamps and takes about a second.
//!
//! What it installs and why (docs/testing.md, "What `make setup` installs"):
//! 1. a wasm32-unknown-unknown Rust toolchain: rustup's target when it is installed or can be
//!    added, else the fallback: Debian's rustc-web/cargo-web/rust-web-src/lld-22, plus a wasm32
//!    std built once with `RUSTC_BOOTSTRAP=1 -Zbuild-std` into a sysroot of the tools folder
//!    (Debian's rustc runs with `--sysroot` pointing there; nothing under /usr is written);
//! 2. pinned cargo tools: wasm-bindgen-cli (= the wasm-bindgen in Cargo.lock) and wasm-pack,
//!    compiled once at opt-level 0 in one shared target folder (they only orchestrate: the
//!    compile is a third of the optimised one's, and their runs take about a second);
//! 3. Node >= 22 and wrangler, esbuild, binaryen (wasm-opt) from package-lock.json (`npm ci`);
//! 4. Debian's chromium + chromium-driver (browser tests), wrk (load tests), zstd (its CLI
//!    decodes the build's dcz deltas in a test), libavif-bin (avifenc and avifdec: the image
//!    stage makes its AVIFs with one and scores them through the other), webp (cwebp) and
//!    libjpeg-turbo-progs (jpegtran);
//! 5. moto's S3 server (pip, in a venv of the tools folder): the S3 API that scripts/r2-put.mjs
//!    speaks to R2, for tests/r2_deploy.rs.
//!
//! 3, 4 and 5 (downloads) run beside 2 (a compile), and so does `cargo fetch` of the workspace's
//! crates. Each step prints its time (`[setup] time ...`) from a second up.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// Where a step's lines go: printed, or kept for later (the downloads, printed when the
/// compile beside them is done).
struct Say {
    kept: Option<Mutex<String>>,
    log: Option<PathBuf>,
}

impl Say {
    fn line(&self, text: &str) {
        match &self.kept {
            Some(kept) => crate::run::lock(kept).push_str(&format!("[setup] {text}\n")),
            None => println!("[setup] {text}"),
        }
    }

    /// Runs `f`, and says its time when it took a second or more.
    fn timed<T>(&self, name: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        let start = Instant::now();
        let result = f();
        if start.elapsed() >= Duration::from_secs(1) {
            let failed = if result.is_ok() { "" } else { " (failed)" };
            self.line(&format!(
                "time {name}: {} s{failed}",
                crate::run::since(start)
            ));
        }
        result
    }

    /// Runs `command`; its output to the downloads' log when kept, else inherited.
    fn run(&self, command: &mut Command) -> Result<(), String> {
        if let Some(log) = &self.log {
            let out = fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .map_err(|e| e.to_string())?;
            let err = out.try_clone().map_err(|e| e.to_string())?;
            command.stdout(out).stderr(err);
        }
        let status = command
            .status()
            .map_err(|e| format!("cannot run {command:?}: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("{command:?} failed ({status})"))
        }
    }
}

/// The setup's context: the project, the tools folder, the pinned versions.
struct Setup {
    root: PathBuf,
    tools: PathBuf,
    versions: Vec<(String, String)>,
}

/// Whether `apt-get update` ran in this setup (once at most).
static APT_UPDATED: AtomicBool = AtomicBool::new(false);
/// One apt at a time (the downloads and the toolchain may both install).
static APT: Mutex<()> = Mutex::new(());

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

fn on_path(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The Debian packages of `packages` not installed yet, installed.
fn apt_install(say: &Say, packages: &[&str]) -> Result<(), String> {
    let _one = crate::run::lock(&APT);
    let missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|p| {
            Command::new("dpkg-query")
                .args(["-W", "-f=${Status}", p])
                .stderr(Stdio::null())
                .output()
                .map_or(true, |o| o.stdout != b"install ok installed")
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !on_path("apt-get") {
        return Err(format!(
            "please install: {} (no apt-get on this machine)",
            missing.join(" ")
        ));
    }
    let apt = |args: &[&str]| {
        let mut command = if is_root() {
            Command::new("apt-get")
        } else {
            Command::new("sudo")
        };
        if !is_root() {
            command.arg("apt-get");
        }
        command
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(Stdio::null());
        command
    };
    if !APT_UPDATED.swap(true, Ordering::SeqCst) {
        say.run(&mut apt(&["update", "-qq"]))?;
    }
    say.line(&format!("apt-get install {}", missing.join(" ")));
    say.run(apt(&["install", "-y", "-qq", "--no-install-recommends"]).args(&missing))
}

impl Setup {
    fn version(&self, key: &str) -> Result<&str, String> {
        self.versions
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .ok_or_else(|| format!("scripts/versions.sh has no {key}"))
    }

    /// PATH as `scripts/env.sh` makes it: the tools first, and under the Debian fallback its
    /// rustc, rustdoc, cargo and rust-lld before them.
    fn path(&self, debian: bool) -> String {
        let mut path = format!(
            "{}:{}:{}",
            self.tools.join("bin").display(),
            self.root.join("node_modules/.bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        if debian {
            path = format!("{}:{path}", self.tools.join("debian-rust/bin").display());
        }
        path
    }

    // ---- 1. the wasm32 toolchain -----------------------------------------------------------

    fn wasm_via_rustup(&self, say: &Say) -> bool {
        if !on_path("rustup") {
            return false;
        }
        let installed = Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output();
        if installed.is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l == "wasm32-unknown-unknown")
        }) {
            return true;
        }
        // Offline, `rustup target add` hangs instead of failing: bound it.
        say.line("trying: rustup target add wasm32-unknown-unknown (bounded to 60 s)");
        Command::new("timeout")
            .args(["60", "rustup", "target", "add", "wasm32-unknown-unknown"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    fn sysroot(&self) -> PathBuf {
        self.tools.join("debian-sysroot")
    }

    fn rustc_vv() -> String {
        Command::new("/usr/bin/rustc")
            .arg("-vV")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    fn debian_sysroot_ok(&self) -> bool {
        let lib = self
            .sysroot()
            .join("lib/rustlib/wasm32-unknown-unknown/lib");
        Path::new("/usr/bin/rustc").exists()
            && fs::read_to_string(self.tools.join("debian-sysroot.stamp"))
                .is_ok_and(|s| s == Self::rustc_vv())
            && fs::read_dir(lib)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("libstd-"))
    }

    /// `rustc` and `rustdoc` wrappers that run Debian's with the sysroot, a link to Debian's
    /// `cargo`, and `rust-lld` (the name rustc calls the wasm32 linker by) for lld-22, which
    /// ships no such name. Only this folder goes first on PATH, not /usr/bin. The sysroot's
    /// host libraries are links to Debian's own.
    fn link_debian_rust(&self) -> Result<(), String> {
        let bin = self.tools.join("debian-rust/bin");
        let rustlib = self.sysroot().join("lib/rustlib");
        fs::create_dir_all(&bin)
            .and_then(|()| fs::create_dir_all(&rustlib))
            .map_err(|e| e.to_string())?;
        let link = |from: &str, to: PathBuf| -> Result<(), String> {
            let _ = fs::remove_file(&to);
            std::os::unix::fs::symlink(from, &to).map_err(|e| format!("{}: {e}", to.display()))
        };
        link(
            "/usr/lib/rustlib/x86_64-unknown-linux-gnu",
            rustlib.join("x86_64-unknown-linux-gnu"),
        )?;
        if Path::new("/usr/lib/rustlib/src").exists() {
            link("/usr/lib/rustlib/src", rustlib.join("src"))?;
        }
        link("/usr/bin/cargo", bin.join("cargo"))?;
        link("/usr/bin/lld-22", bin.join("rust-lld"))?;
        // bash, not sh: dash leaves out of the environment it passes on the variables whose
        // names are not identifiers, such as cargo's `CARGO_BIN_EXE_edgesite-native` for a
        // package's integration tests (their build failed with the fallback).
        for tool in ["rustc", "rustdoc"] {
            let script = format!(
                "#!/bin/bash\nexec /usr/bin/{tool} --sysroot \"{}\" \"$@\"\n",
                self.sysroot().display()
            );
            fs::write(bin.join(tool), script).map_err(|e| e.to_string())?;
            let chmod = Command::new("chmod").arg("+x").arg(bin.join(tool)).status();
            chmod.map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn build_debian_sysroot(&self, say: &Say) -> Result<(), String> {
        apt_install(say, &["rustc-web", "cargo-web", "rust-web-src", "lld-22"])?;
        self.link_debian_rust()?;
        say.line("building the wasm32 std with -Zbuild-std (once per rustc-web version, ~90 s)");
        let seed = self.tools.join("sysroot-seed");
        let _ = fs::remove_dir_all(&seed);
        fs::create_dir_all(seed.join("src")).map_err(|e| e.to_string())?;
        let manifest = "[package]\nname = \"sysroot-seed\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                        [lib]\ncrate-type = [\"cdylib\", \"rlib\"]\n[profile.release]\nlto = true\n";
        fs::write(seed.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
        fs::write(seed.join("src/lib.rs"), "pub fn seed() {}\n").map_err(|e| e.to_string())?;
        // cdylib+rlib makes cargo build std with object code *and* bitcode, so LTO and non-LTO
        // both link. (Debian's rustc with its own sysroot, /usr, which has the std sources
        // build-std needs.)
        say.run(
            Command::new("/usr/bin/cargo")
                .current_dir(&seed)
                .env_remove("CARGO_TARGET_DIR")
                .env("PATH", self.path(true))
                .env("RUSTC", "/usr/bin/rustc")
                .env("RUSTC_BOOTSTRAP", "1")
                .args([
                    "build",
                    "-q",
                    "--release",
                    "--target",
                    "wasm32-unknown-unknown",
                ])
                .arg("-Zbuild-std=std,panic_abort,test"),
        )?;
        let lib = self
            .sysroot()
            .join("lib/rustlib/wasm32-unknown-unknown/lib");
        let _ = fs::remove_dir_all(&lib);
        fs::create_dir_all(&lib).map_err(|e| e.to_string())?;
        let deps = seed.join("target/wasm32-unknown-unknown/release/deps");
        for entry in fs::read_dir(&deps).map_err(|e| e.to_string())?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("lib")
                && !name.starts_with("libsysroot_seed")
                && (name.ends_with(".rlib") || name.ends_with(".rmeta"))
            {
                fs::copy(entry.path(), lib.join(&name)).map_err(|e| e.to_string())?;
            }
        }
        fs::write(self.tools.join("debian-sysroot.stamp"), Self::rustc_vv())
            .map_err(|e| e.to_string())?;
        let _ = fs::remove_dir_all(&seed);
        Ok(())
    }

    /// Chooses the toolchain (`TOOLS/toolchain`: rustup or debian); whether it is Debian's.
    fn toolchain(&self, say: &Say) -> Result<bool, String> {
        let forced = std::env::var("EDGESITE_TOOLCHAIN").is_ok_and(|t| t == "debian");
        let rustup = !forced
            && say.timed("rustup target add wasm32-unknown-unknown", || {
                Ok(self.wasm_via_rustup(say))
            })?;
        if rustup {
            fs::write(self.tools.join("toolchain"), "rustup\n").map_err(|e| e.to_string())?;
            say.line("wasm32: rustup's target");
            return Ok(false);
        }
        if !self.debian_sysroot_ok() {
            say.timed("Debian wasm32 sysroot", || self.build_debian_sysroot(say))?;
        }
        self.link_debian_rust()?;
        fs::write(self.tools.join("toolchain"), "debian\n").map_err(|e| e.to_string())?;
        let version = Command::new("/usr/bin/rustc")
            .arg("-V")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        let version = version.unwrap_or_default();
        let version = version.split_whitespace().nth(1).unwrap_or("?");
        say.line(&format!(
            "wasm32: Debian rustc-web {version} with a build-std sysroot"
        ));
        Ok(true)
    }

    // ---- 2. pinned cargo tools --------------------------------------------------------------

    /// The `wasm-bindgen` version in Cargo.lock: the CLI must equal the library.
    fn wasm_bindgen_version(&self) -> Result<String, String> {
        let lock = fs::read_to_string(self.root.join("Cargo.lock")).map_err(|e| e.to_string())?;
        let mut lines = lock.lines();
        while let Some(line) = lines.next() {
            if line == "name = \"wasm-bindgen\"" {
                let version = lines.next().unwrap_or("");
                return Ok(version
                    .trim_start_matches("version = ")
                    .trim_matches('"')
                    .to_string());
            }
        }
        Err("Cargo.lock names no wasm-bindgen".into())
    }

    fn cargo_tool(
        &self,
        say: &Say,
        path: &str,
        krate: &str,
        version: &str,
        bin: &str,
        locked: bool,
    ) -> Result<(), String> {
        let current = Command::new(self.tools.join("bin").join(bin))
            .arg("--version")
            .output();
        // `--version` prints "wasm-pack 0.15.1" or a bare "0.8.7".
        let current = current.map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        });
        if current.is_ok_and(|line| line.split_whitespace().any(|w| w == version)) {
            return Ok(());
        }
        say.line(&format!("cargo install {krate}@{version} (once)"));
        // One target folder for both tools (shared dependencies compile once), opt-level 0.
        let mut command = Command::new("cargo");
        command
            .env("PATH", path)
            .env("CARGO_TARGET_DIR", self.tools.join("cargo-target"))
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
            .env("CARGO_PROFILE_RELEASE_LTO", "false")
            .args(["install", "-q", "--root"])
            .arg(&self.tools)
            .arg(format!("{krate}@{version}"))
            .arg("--force");
        if locked {
            command.arg("--locked");
        }
        say.run(&mut command)
    }

    fn cargo_tools(&self, say: &Say, path: &str) -> Result<(), String> {
        let bindgen = self.wasm_bindgen_version()?;
        // wasm-bindgen-cli's own lock pins a crate version the registry no longer serves: no
        // --locked.
        say.timed("cargo install wasm-bindgen-cli", || {
            self.cargo_tool(
                say,
                path,
                "wasm-bindgen-cli",
                &bindgen,
                "wasm-bindgen",
                false,
            )
        })?;
        let pack = self.version("WASM_PACK_VERSION")?;
        say.timed("cargo install wasm-pack", || {
            self.cargo_tool(say, path, "wasm-pack", pack, "wasm-pack", true)
        })
    }

    // ---- 3, 4, 5: the downloads -------------------------------------------------------------

    fn node_tools(&self, say: &Say, path: &str) -> Result<(), String> {
        apt_install(say, &["ca-certificates"])?;
        if !on_path("npm") {
            apt_install(say, &["nodejs", "npm"])?;
        }
        let lock = fs::read(self.root.join("package-lock.json")).map_err(|e| e.to_string())?;
        let sum: String = Sha256::digest(&lock)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let stamp = self.root.join("node_modules/.edgesite-stamp");
        if fs::read_to_string(&stamp).is_ok_and(|s| s.trim() == sum) {
            return Ok(());
        }
        say.line("npm ci (wrangler, node 22, esbuild, binaryen)");
        say.run(
            Command::new("npm")
                .current_dir(&self.root)
                .env("PATH", path)
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]),
        )?;
        fs::write(stamp, format!("{sum}\n")).map_err(|e| e.to_string())
    }

    fn s3_server(&self, say: &Say) -> Result<(), String> {
        let venv = self.tools.join("moto");
        let want = [
            format!("moto[s3]=={}", self.version("MOTO_VERSION")?),
            format!("flask=={}", self.version("FLASK_VERSION")?),
            format!("flask-cors=={}", self.version("FLASK_CORS_VERSION")?),
        ];
        let stamp = venv.join(".edgesite-stamp");
        if !fs::read_to_string(&stamp).is_ok_and(|s| s.trim() == want.join(" ")) {
            say.line(&format!(
                "pip install {} (in {})",
                want.join(" "),
                venv.display()
            ));
            let _ = fs::remove_dir_all(&venv);
            say.run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
            say.run(
                Command::new(venv.join("bin/pip"))
                    .args(["install", "-q", "--disable-pip-version-check"])
                    .args(&want),
            )?;
            fs::write(&stamp, format!("{}\n", want.join(" "))).map_err(|e| e.to_string())?;
        }
        let link = self.tools.join("bin/moto_server");
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink(venv.join("bin/moto_server"), &link).map_err(|e| e.to_string())
    }

    fn downloads(&self, say: &Say, path: &str) -> Result<(), String> {
        let packages = [
            "chromium",
            "chromium-driver",
            "wrk",
            "zstd",
            "libavif-bin",
            "webp",
            "libjpeg-turbo-progs",
        ];
        let mut failed = Vec::new();
        let mut step = |name: &str, result: Result<(), String>| {
            if let Err(e) = result {
                say.line(&format!("{name}: {e}"));
                failed.push(name.to_string());
            }
        };
        step(
            "npm and Node 22",
            say.timed("npm and Node 22", || self.node_tools(say, path)),
        );
        let title = format!("Debian packages ({})", packages.join(", "));
        step(
            "Debian packages",
            say.timed(&title, || apt_install(say, &packages)),
        );
        step(
            "cargo fetch",
            say.timed("cargo fetch (the workspace's crates)", || {
                say.run(
                    Command::new("cargo")
                        .env("PATH", path)
                        .args(["fetch", "-q", "--locked", "--manifest-path"])
                        .arg(self.root.join("Cargo.toml")),
                )
            }),
        );
        step(
            "moto's S3 server",
            say.timed("moto's S3 server (pip)", || self.s3_server(say)),
        );
        if failed.is_empty() {
            Ok(())
        } else {
            Err(format!("failed: {}", failed.join(", ")))
        }
    }
}

/// `KEY=VALUE` lines of scripts/versions.sh (the pins, shared with `make fuzz`).
pub(crate) fn versions(root: &Path) -> Result<Vec<(String, String)>, String> {
    let text = fs::read_to_string(root.join("scripts/versions.sh"))
        .map_err(|e| format!("scripts/versions.sh: {e}"))?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect())
}

/// The tools folder: `EDGESITE_TOOLS`, else `~/.cache/edgesite-tools` (as scripts/env.sh
/// reads it: empty is unset).
pub(crate) fn tools() -> PathBuf {
    match crate::config::var("EDGESITE_TOOLS") {
        Some(tools) => PathBuf::from(tools),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/edgesite-tools"),
    }
}

/// `cargo xtask setup`.
pub(crate) fn main(root: &Path) -> Result<(), String> {
    let tools = tools();
    fs::create_dir_all(tools.join("bin")).map_err(|e| format!("{}: {e}", tools.display()))?;
    let setup = Setup {
        root: root.to_path_buf(),
        versions: versions(root)?,
        tools,
    };
    let say = Say {
        kept: None,
        log: None,
    };
    let debian = setup.toolchain(&say)?;
    // From here on, the toolchain chosen above (as scripts/env.sh puts it first on PATH).
    let path = setup.path(debian);
    let log = setup.tools.join("downloads.log");
    let _ = fs::remove_file(&log);
    let kept = Say {
        kept: Some(Mutex::new(String::new())),
        log: Some(log),
    };
    let (tools_result, downloads_result) = std::thread::scope(|scope| {
        let downloads = scope.spawn(|| setup.downloads(&kept, &path));
        let tools = setup.cargo_tools(&say, &path);
        (
            tools,
            downloads
                .join()
                .unwrap_or_else(|_| Err("the downloads panicked".into())),
        )
    });
    print!(
        "{}",
        kept.kept
            .map(|k| k.into_inner().unwrap_or_else(|e| e.into_inner()))
            .unwrap_or_default()
    );
    let _ = std::io::stdout().flush();
    if let Err(e) = tools_result.and(downloads_result) {
        say.line(&format!(
            "setup failed: {e} (the downloads' output: {})",
            setup.tools.join("downloads.log").display()
        ));
        return Err("setup failed".into());
    }
    let _ = fs::remove_dir_all(setup.tools.join("cargo-target"));
    let last_line = |tool: &str, arg: &str| {
        Command::new(tool)
            .arg(arg)
            .env("PATH", &path)
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .last()
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .unwrap_or_default()
    };
    say.line(&format!(
        "ready: {}, {}, {}, node {}, wrangler {}",
        last_line("rustc", "-V"),
        last_line("wasm-bindgen", "--version"),
        last_line("wasm-pack", "--version"),
        last_line("node", "--version"),
        last_line("wrangler", "--version"),
    ));
    Ok(())
}
