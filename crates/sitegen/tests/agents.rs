//! The agents stage (issue 35): each page's Markdown twin at its URL with `.md`, its fields and
//! its page's `Link`, `/llms.txt` and `/llms-full.txt`, and what is left out and why.

use edgesite_core::{respond, RequestHead};
use edgesite_sitegen::model::Asset;
use edgesite_sitegen::warning::WarningKind;
use edgesite_sitegen::{compile, Manifest, Options};
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

fn options() -> Options {
    Options::new(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
}

fn write_in(dir: &Path, path: &str, bytes: impl AsRef<[u8]>) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn find<'m>(manifest: &'m Manifest, path: &str) -> Option<&'m Asset> {
    manifest.files.iter().find(|f| f.path == path)
}

fn text(manifest: &Manifest, path: &str) -> String {
    let file = find(manifest, path).unwrap_or_else(|| panic!("no {path}"));
    let bytes = match file.identity_bytes() {
        Some(bytes) => bytes.to_vec(),
        None => file.source.read().unwrap().into_owned(),
    };
    String::from_utf8(bytes).unwrap()
}

fn field(manifest: &Manifest, path: &str, name: &str) -> Vec<String> {
    let file = find(manifest, path).unwrap_or_else(|| panic!("no {path}"));
    (file.fields.iter())
        .filter(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .collect()
}

fn page(title: &str, description: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title>\
         <meta name=description content=\"{description}\"></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/guide/install.html\">Install</a></nav>\
         <main>{body}</main><footer>Footer text</footer></body></html>"
    )
}

/// A small site: a root page, a guide folder (one page links to the other by its file name,
/// which clean URLs redirect), a 404 page, an excluded page.
fn site(dir: &Path) {
    let write = |path: &str, text: String| write_in(dir, path, text);
    write(
        "index.html",
        page("Demo docs", "A site to try.", "<h1>Welcome</h1><p>Start with <a href=\"guide/install.html#setup\">the install</a>.</p>"),
    );
    write(
        "guide/install.html",
        page(
            "Install",
            "How to install.",
            "<h1>Install</h1><h2 id=setup>Setup</h2><pre><code class=\"language-sh\">make setup</code></pre>\
             <p>Then <a href=\"usage.html\">use it</a>; see <img src=\"../shot.png\" alt=\"a shot\">.</p>",
        ),
    );
    write(
        "guide/usage.html",
        page("Usage", "How to use.", "<h1>Usage</h1><table><tr><th>flag</th><th>does</th></tr><tr><td>-v</td><td>more</td></tr></table>"),
    );
    write("404.html", page("Not found", "", "<h1>Not here</h1>"));
    write("drafts/wip.html", page("WIP", "", "<h1>Draft</h1>"));
    write_in(dir, "shot.png", b"not really a png");
}

/// Issue 35, items 1-3: every page (not the 404 page, not an excluded one) gets a twin at its
/// URL with `.md`: front matter, the main content without navigation, links to the site's
/// canonical URLs; `x-markdown-tokens`, `Content-Signal`, the page's `Link: rel=alternate`;
/// llms.txt lists the twins by folder, llms-full.txt holds them.
#[test]
fn every_page_gets_a_twin_and_llms_txt_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    site(dir.path());
    let mut options = options();
    options.config.agents.exclude = vec!["/drafts/**".into()];
    options.config.agents.content_signal = "ai-train=no, search=yes".into();
    let m = compile(dir.path(), &options).unwrap();
    let twin = text(&m, "/guide/install.md");
    assert_eq!(
        twin,
        "---\ntitle: \"Install\"\nurl: \"/guide/install\"\ndescription: \"How to install.\"\n\
         last_modified: \"Tue, 14 Nov 2023 22:13:20 GMT\"\ntokens: 25\n---\n\n\
         # Install\n\n## Setup\n\n```sh\nmake setup\n```\n\n\
         Then [use it](/guide/usage); see ![a shot](/shot.png).\n"
    );
    let tokens = field(&m, "/guide/install.md", "x-markdown-tokens");
    // The body's 97 characters over four, rounded up.
    assert_eq!(tokens, ["25"]);
    assert_eq!(
        field(&m, "/guide/install.md", "content-signal"),
        ["ai-train=no, search=yes"]
    );
    assert_eq!(
        find(&m, "/guide/install.md").unwrap().content_type,
        "text/markdown; charset=utf-8"
    );
    assert!(field(&m, "/guide/install.html", "link")
        .contains(&"</guide/install.md>; rel=\"alternate\"; type=\"text/markdown\"".to_string()));
    // The root page's twin, its link past the clean URL's redirect with its fragment.
    assert!(text(&m, "/index.md").contains("Start with [the install](/guide/install#setup)."));
    for absent in ["/404.md", "/drafts/wip.md"] {
        assert!(find(&m, absent).is_none(), "{absent}");
    }
    assert!(!text(&m, "/guide/usage.md").contains("Footer"));
    assert!(text(&m, "/guide/usage.md").contains("| flag | does |"));
    assert_eq!(
        text(&m, "/llms.txt"),
        "# Demo docs\n\n> A site to try.\n\n## Pages\n\n- [Demo docs](/index.md): A site to try.\n\n\
         ## guide\n\n- [Install](/guide/install.md): How to install.\n\
         - [Usage](/guide/usage.md): How to use.\n"
    );
    let full = text(&m, "/llms-full.txt");
    assert_eq!(
        full,
        [
            text(&m, "/index.md"),
            text(&m, "/guide/install.md"),
            text(&m, "/guide/usage.md")
        ]
        .join("\n")
    );
    let stats = &m.stats.agents;
    assert_eq!(
        (stats.twins, stats.skipped.len(), stats.full_pages),
        (3, 0, 3)
    );
    assert!(stats.markdown_tokens * 2 < stats.html_tokens, "{stats:?}");
    // Each page names its twin as its alternate: the twin at the page's URL for a request
    // that prefers Markdown, the page for a browser.
    let index = |path: &str| m.files.iter().position(|f| f.path == path);
    assert_eq!(
        find(&m, "/guide/install.html").unwrap().alternate,
        index("/guide/install.md")
    );
    assert_eq!(find(&m, "/404.html").unwrap().alternate, None);
    let served = m.leak_site().unwrap();
    let answer = |accept: &str| {
        let mut head = RequestHead::new("GET", "/guide/install");
        head.set_field("accept", accept.as_bytes());
        let response = respond(served, &head);
        response.field("content-type").unwrap().to_string()
    };
    assert_eq!(answer("text/markdown"), "text/markdown; charset=utf-8");
    assert_eq!(answer("text/html,*/*;q=0.8"), "text/html; charset=utf-8");

    // With `origin`: every URL an agent reads is absolute (not the page's `Link`).
    options.config.agents.origin = "https://docs.example.com".into();
    let m = compile(dir.path(), &options).unwrap();
    let twin = text(&m, "/guide/install.md");
    let site = "https://docs.example.com";
    assert!(
        twin.contains(&format!("\nurl: \"{site}/guide/install\"\n")),
        "{twin}"
    );
    assert!(
        twin.contains(&format!("[use it]({site}/guide/usage)")),
        "{twin}"
    );
    assert!(
        twin.contains(&format!("![a shot]({site}/shot.png)")),
        "{twin}"
    );
    let llms = text(&m, "/llms.txt");
    assert!(
        llms.contains(&format!("[Install]({site}/guide/install.md)")),
        "{llms}"
    );
    assert!(field(&m, "/guide/install.html", "link")
        .contains(&"</guide/install.md>; rel=\"alternate\"; type=\"text/markdown\"".to_string()));
}

/// The author's own `/llms.txt` and `.md` files win, each with a note; a site of one page gets
/// no twin unless `enabled = true`; `enabled = false` makes none.
#[test]
fn the_authors_files_win_and_one_page_needs_asking() {
    let dir = tempfile::tempdir().unwrap();
    site(dir.path());
    write_in(dir.path(), "llms.txt", "# Mine\n");
    write_in(dir.path(), "guide/usage.md", "my own notes\n");
    let m = compile(dir.path(), &options()).unwrap();
    assert_eq!(text(&m, "/llms.txt"), "# Mine\n");
    assert_eq!(text(&m, "/guide/usage.md"), "my own notes\n");
    assert!(find(&m, "/llms-full.txt").is_some());
    let notes: Vec<&str> = (m.warnings.iter())
        .filter(|w| w.kind == WarningKind::AgentsSkipped)
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes
        .iter()
        .any(|n| n.contains("/guide/usage has no Markdown twin")));
    assert!(notes
        .iter()
        .any(|n| n.starts_with("/llms.txt: the site's own file")));
    // The author's own `.md` is theirs: served at its URL, not in place of the page.
    assert_eq!(find(&m, "/guide/usage.html").unwrap().alternate, None);
    let skipped = &m.stats.agents.skipped;
    assert_eq!(
        skipped,
        &[(
            "/guide/usage".to_string(),
            "the site's own /guide/usage.md is served there".to_string()
        )]
    );

    let one = tempfile::tempdir().unwrap();
    write_in(one.path(), "index.html", page("One", "", "<h1>One</h1>"));
    let m = compile(one.path(), &options()).unwrap();
    assert!(find(&m, "/index.md").is_none() && find(&m, "/llms.txt").is_none());
    let mut on = options();
    on.config.agents.enabled = Some(true);
    let m = compile(one.path(), &on).unwrap();
    assert!(text(&m, "/index.md").ends_with("# One\n"));
    let mut off = options();
    off.config.agents.enabled = Some(false);
    let m = compile(dir.path(), &off).unwrap();
    assert!(find(&m, "/index.md").is_none());
    assert_eq!(m.stats.agents.twins, 0);
}

/// Markdown's headings (ATX), fenced code blocks and tables (by their delimiter rows), outside
/// code blocks.
fn markdown_counts(markdown: &str) -> (usize, usize, usize) {
    let (mut headings, mut blocks, mut tables, mut in_code) = (0, 0, 0, false);
    for line in markdown.lines() {
        if line.starts_with("```") {
            blocks += usize::from(!in_code);
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            headings += 1;
        } else if !in_code && line.starts_with("| ---") {
            tables += 1;
        }
    }
    (headings, blocks, tables)
}

/// How many elements `selector` matches in `html`, by lol_html (another parser than the
/// stage's html5ever).
fn count_in(html: &str, selector: &str) -> usize {
    let count = std::cell::Cell::new(0);
    let handler = lol_html::element!(selector, |_| {
        count.set(count.get() + 1);
        Ok(())
    });
    let settings = lol_html::Settings::new().append_element_content_handler(handler);
    lol_html::rewrite_str(html, settings).unwrap();
    count.get()
}

/// Issue 35, item 5: a real Sphinx page (tests/fixtures/agents: the Python docs' `venv`, as
/// Debian ships it): its twin keeps every heading, code block and table of its main content
/// (`div[role=main]`, counted in the page by another parser), each code block in the language
/// Sphinx named, and none of the text of the page's navigation, sidebar and footer.
#[test]
fn a_sphinx_page_keeps_its_headings_code_and_tables_and_drops_its_navigation() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/agents");
    let mut options = options();
    options.config.agents.enabled = Some(true);
    let m = compile(Path::new(fixture), &options).unwrap();
    let html = std::fs::read_to_string(format!("{fixture}/library/venv.html")).unwrap();
    let main = "div[role=main]";
    let headings: usize = (1..=6)
        .map(|n| count_in(&html, &format!("{main} h{n}")))
        .sum();
    let expected = (
        headings,
        count_in(&html, &format!("{main} pre")),
        count_in(&html, &format!("{main} table")),
    );
    assert_eq!(expected, (5, 6, 1), "the fixture's own counts");
    let twin = text(&m, "/library/venv.md");
    assert_eq!(markdown_counts(&twin), expected, "{twin}");
    // Sphinx's `highlight-python3` and `highlight-python` name the language; `highlight-none`
    // names none.
    assert_eq!(twin.matches("```python3\n").count(), 1);
    assert_eq!(twin.matches("```python\n").count(), 2);
    for navigation in [
        "Previous topic",
        "Next topic",
        "Report a Bug",
        "Show Source",
        "Quick search",
        "Theme",
        "modules |",
        "Last updated on",
        "¶",
    ] {
        assert!(!twin.contains(navigation), "{navigation:?} in the twin");
    }
    assert!(m.stats.agents.markdown_tokens * 2 < m.stats.agents.html_tokens);
}

/// Issue 35, item 5: on the demo, every link of every twin to the site leads to a page or
/// file the site serves (the demo's one link to a missing page on purpose, `links.ignore`,
/// aside), and llms.txt names every twin.
#[test]
fn the_demos_twins_link_to_what_the_site_serves() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let config =
        edgesite_sitegen::config::Config::load(&Path::new(root).join("edgesite.toml")).unwrap();
    let options = Options::from_config(config, UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    let m = compile(&Path::new(root).join("public"), &options).unwrap();
    let twins: Vec<&Asset> = (m.files.iter())
        .filter(|f| f.content_type.starts_with("text/markdown"))
        .collect();
    assert!(twins.len() >= 4, "{}", twins.len());
    let llms = text(&m, "/llms.txt");
    let routed = |path: &str| m.routes.iter().any(|r| r.path == path);
    let mut links = 0;
    for twin in &twins {
        assert!(llms.contains(&format!("]({})", twin.path)), "{}", twin.path);
        let markdown = text(&m, &twin.path);
        for (at, _) in markdown.match_indices("](/") {
            let target = &markdown[at + 2..];
            let target = &target[..target.find([')', ' ']).unwrap()];
            let path = target.split(['#', '?']).next().unwrap();
            if options.config.links.ignore.iter().any(|i| i == path) {
                continue;
            }
            assert!(
                routed(path),
                "{} links to {target}, which the site does not serve",
                twin.path
            );
            links += 1;
        }
    }
    assert!(links >= 5, "{links}");
}

/// Hostile pages build, without a twin: 100,000 nested elements closed one by one (html5ever's
/// scope checks would take minutes), 2,000 opened by `<div/>` (which HTML does not close; the
/// stage's steps recurse per level); one nested to the limit, 512 levels, gets its twin (on
/// the build's threads, in a debug build: the deepest stack).
#[test]
fn a_page_nested_too_deep_has_no_twin_and_the_build_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let nested = |levels: usize| {
        format!(
            "<!doctype html><title>t</title><main>{}deep text{}</main>",
            "<div>".repeat(levels),
            "</div>".repeat(levels)
        )
    };
    write_in(dir.path(), "deep.html", nested(100_000));
    let unclosed = "<div/>".repeat(2_000);
    write_in(
        dir.path(),
        "open.html",
        format!("<title>t</title><main>{unclosed}x</main>"),
    );
    // 512 levels in all, as deep as a page may be: `html`, `body`, `main`, 509 `div`s.
    write_in(dir.path(), "fine.html", nested(509));
    let m = compile(dir.path(), &options()).unwrap();
    assert!(find(&m, "/deep.md").is_none() && find(&m, "/open.md").is_none());
    assert!(text(&m, "/fine.md").ends_with("deep text\n"));
    let skipped: Vec<&str> = (m.stats.agents.skipped.iter())
        .map(|(path, why)| {
            assert_eq!(why, "no main content, or nested too deep to convert");
            path.as_str()
        })
        .collect();
    assert_eq!(skipped, ["/deep", "/open"]);
}

/// Twins are kept in the build's cache (`cache_dir/agents/`): a rebuild reads a page's twin
/// there (an entry edited, with its checksum, shows through), and a change of the routes its
/// links are resolved through, or of the page, misses it.
#[test]
fn twins_are_kept_in_the_cache_until_what_they_depend_on_changes() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    site(dir.path());
    let cache = tempfile::tempdir().unwrap();
    let mut options = options();
    options.cache_dir = Some(cache.path().to_path_buf());
    let made = text(&compile(dir.path(), &options).unwrap(), "/index.md");
    let entries: Vec<_> = std::fs::read_dir(cache.path().join("agents"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        entries.len(),
        4,
        "a twin per page (the draft's too: none excluded here)"
    );
    let index = (entries.iter())
        .find(|p| String::from_utf8_lossy(&std::fs::read(p).unwrap()).contains("Start with"))
        .unwrap();
    // An entry: a seal, the SHA-256 of its name, a line feed and its content, then the content
    // (stage_cache.rs). Edited and sealed again, it is what the build reads.
    let entry = std::fs::read(index).unwrap();
    assert_eq!(entry[..16], *b"edgesite-encoded");
    let kept = String::from_utf8(entry[48..].to_vec()).unwrap();
    let edited = kept.replace("Start with", "Begin with");
    let name = index.file_name().unwrap().to_str().unwrap();
    let mut entry = b"edgesite-encoded".to_vec();
    entry.extend_from_slice(&Sha256::digest(format!("{name}\n{edited}").as_bytes()));
    entry.extend_from_slice(edited.as_bytes());
    std::fs::write(index, entry).unwrap();
    let again = text(&compile(dir.path(), &options).unwrap(), "/index.md");
    assert_eq!(
        again,
        made.replace("Start with", "Begin with"),
        "read from the cache"
    );
    // Another route: the entry is not what this build asks for.
    write_in(dir.path(), "_redirects", "/old /guide/usage 301\n");
    let rerouted = text(&compile(dir.path(), &options).unwrap(), "/index.md");
    assert_eq!(rerouted, made);
    // The page changed: converted again.
    std::fs::remove_file(dir.path().join("_redirects")).unwrap();
    let page = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    write_in(
        dir.path(),
        "index.html",
        page.replace("Start with", "Go to"),
    );
    let changed = text(&compile(dir.path(), &options).unwrap(), "/index.md");
    assert!(changed.contains("Go to [the install]"), "{changed}");
}

/// A build that dates each page by its own (the build script's, without `SOURCE_DATE_EPOCH`):
/// each twin names its page's date, so an edit of one page changes that page's twin alone (its
/// bytes, hence its ETag, encodings and stored objects), where the build's one date changed
/// every twin's.
#[test]
fn each_twin_names_its_pages_date_and_an_edit_changes_that_twin_alone() {
    let dir = tempfile::tempdir().unwrap();
    site(dir.path());
    let at = |seconds: u64| UNIX_EPOCH + Duration::from_secs(seconds);
    let date = |path: &str, seconds: u64| {
        let file = std::fs::File::options()
            .write(true)
            .open(dir.path().join(path));
        file.unwrap().set_modified(at(seconds)).unwrap();
    };
    date("index.html", 1_600_000_000);
    date("guide/install.html", 1_650_000_000);
    let mut options = options();
    options.page_dates = edgesite_sitegen::PageDates::Own;
    let before = compile(dir.path(), &options).unwrap();
    let front = |m: &Manifest, path: &str| {
        let text = text(m, path);
        let line = text.lines().find(|l| l.starts_with("last_modified: "));
        line.unwrap_or_else(|| panic!("{path}: {text}")).to_string()
    };
    assert_eq!(
        front(&before, "/index.md"),
        "last_modified: \"Sun, 13 Sep 2020 12:26:40 GMT\""
    );
    assert_eq!(
        front(&before, "/guide/install.md"),
        "last_modified: \"Fri, 15 Apr 2022 05:20:00 GMT\""
    );
    // The HTTP Last-Modified stays the build's, one instant for the site.
    assert_eq!(before.last_modified, "Tue, 14 Nov 2023 22:13:20 GMT");

    let page = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    write_in(
        dir.path(),
        "index.html",
        page.replace("Start with", "Go to"),
    );
    date("index.html", 1_700_000_100);
    let after = compile(dir.path(), &options).unwrap();
    assert_eq!(
        front(&after, "/index.md"),
        "last_modified: \"Tue, 14 Nov 2023 22:15:00 GMT\""
    );
    let etags = |m: &Manifest, path: &str| -> Vec<String> {
        let file = find(m, path).unwrap();
        file.representations
            .iter()
            .map(|r| r.etag.clone())
            .collect()
    };
    assert_eq!(
        text(&after, "/guide/install.md"),
        text(&before, "/guide/install.md")
    );
    assert_eq!(
        etags(&after, "/guide/install.md"),
        etags(&before, "/guide/install.md")
    );
    assert_ne!(etags(&after, "/index.md"), etags(&before, "/index.md"));
    // With the build's date (`SOURCE_DATE_EPOCH`), every twin names that one.
    let one = compile(dir.path(), &self::options()).unwrap();
    assert_eq!(
        front(&one, "/guide/install.md"),
        "last_modified: \"Tue, 14 Nov 2023 22:13:20 GMT\""
    );
}

/// Within git, a build that dates pages by their commits tracks the work tree's history (its
/// `HEAD`'s log, for `cargo:rerun-if-changed`): a commit of an edit already built dates its
/// twin at the next build. A build with the build's one date, or outside git, tracks none.
#[test]
fn a_build_dating_pages_by_their_commits_tracks_the_history() {
    use std::process::Command;
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path().join("site");
    std::fs::create_dir_all(&dir).unwrap();
    site(&dir);
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .current_dir(repo.path())
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .output()
            .unwrap()
            .status;
        assert!(status.success(), "git {args:?}");
    };
    let mut options = options();
    options.page_dates = edgesite_sitegen::PageDates::Own;
    let outside = compile(&dir, &options).unwrap();
    let logs = |m: &Manifest| (m.tracked.iter()).any(|p| p.ends_with(".git/logs/HEAD"));
    assert!(!logs(&outside), "outside git: {:?}", outside.tracked);
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "one"]);
    let history = std::fs::canonicalize(repo.path().join(".git/logs/HEAD")).unwrap();
    let within = compile(&dir, &options).unwrap();
    let tracked: Vec<_> = (within.tracked.iter())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    assert!(tracked.contains(&history), "{:?}", within.tracked);
    options.page_dates = edgesite_sitegen::PageDates::Build;
    let one_date = compile(&dir, &options).unwrap();
    assert!(!logs(&one_date), "{:?}", one_date.tracked);
}
