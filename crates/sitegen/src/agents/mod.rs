//! The agents stage (`[agents]`, issue 35): pages for agents, made at build.
//!
//! - **A Markdown twin of every page** ([`markdown`]): each of the site's own HTML pages at
//!   its canonical URL (not a 404 page, an `[agents] exclude` or `[links] ignore` path, nor a
//!   redirect), as the optimize stage left it, converted from its main content, with a YAML
//!   front matter (title, URL, description, last modified, token estimate). Served at the
//!   page's URL with `.md` appended (`/guide/install.md`; a folder's page `/guide/index.md`),
//!   as `text/markdown; charset=utf-8` with `x-markdown-tokens` (the body's estimate) and the
//!   configured `Content-Signal`; the page itself gets `Link: <...md>; rel="alternate";
//!   type="text/markdown"`. The twin is also the page's alternate: sent at the page's own URL
//!   to a request whose Accept weighs `text/markdown` above `text/html` (the core decides),
//!   with `Content-Location` naming its own URL. A twin is a file the build made: encoded,
//!   precompressed and given its strong ETag like any other, never scanned by the link pass
//!   nor named by the speculation rules (they read the site's own files only).
//! - **`/llms.txt`** (the llms.txt convention: the site's title, its description, then a
//!   Markdown link to every twin with the page's description, grouped by top folder) and
//!   **`/llms-full.txt`** (the twins, concatenated in that order up to `[agents] full_bytes`) —
//!   unless the site has its own file at either path, which wins (a build note says so).
//!
//! A twin's links and images name the site's own URLs from its root (`/docs/next`): relative
//! ones resolved against the page's URL, then through edgesite-core's answer over the routes,
//! so a link to `next.html` that the site redirects to `/docs/next` names the latter.
//!
//! Twins are kept in the build's cache (`cache_dir/agents/`, [`StageCache`]) under the page's
//! bytes, its URL, the content selector and the routes and rules its links resolve through: a
//! rebuild converts only the pages that changed, unless the routes did.

mod llms;
mod markdown;

use crate::config::{AgentsConfig, Config};
use crate::error::Error;
use crate::hash;
use crate::model::{AgentStats, PageDates, Source, TwinFigures};
use crate::resolve::{self, Resolved};
use crate::routing::Routing;
use crate::rule::indexed_assets;
use crate::selector::Selector;
use crate::sources::Sources;
use crate::speculation::{site_pages, SitePage};
use crate::stage_cache::StageCache;
use crate::url;
use crate::warning::{Notes, Warning, WarningKind};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

/// The stage's own text, which names its entries in the build's cache ([`Converter`]): a change
/// of the conversion, of the content selector's or URL resolution's code (sitegen's, and the
/// core's lookup it runs), or of a crate's version (the lockfile names the versions resolved)
/// misses every twin it could have changed.
const STAGE: [&str; 12] = [
    include_str!("mod.rs"),
    include_str!("markdown.rs"),
    include_str!("../selector.rs"),
    include_str!("../url.rs"),
    include_str!("../resolve.rs"),
    include_str!("../rule.rs"),
    include_str!("../../../core/src/lookup.rs"),
    include_str!("../../../core/src/rule.rs"),
    include_str!("../../../core/src/path.rs"),
    include_str!("../../../core/src/location.rs"),
    include_str!("../../Cargo.toml"),
    include_str!("../../../../Cargo.lock"),
];

/// Where llms.txt and llms-full.txt are served.
pub(crate) const LLMS_PATH: &str = "/llms.txt";
pub(crate) const LLMS_FULL_PATH: &str = "/llms-full.txt";

/// What the stage made: the fields of the files it concerns (by file index: a page's
/// `Link`, a twin's `x-markdown-tokens` and `Content-Signal`), its figures and its notes.
#[derive(Debug, Default)]
pub(crate) struct Agents {
    pub fields: Vec<Vec<(String, String)>>,
    /// By file index, a page's twin's index: the page's alternate, sent at its URL to a
    /// request whose Accept prefers `text/markdown` (edgesite-core's `prefers_alternate`).
    pub alternates: Vec<Option<usize>>,
    pub stats: AgentStats,
    pub notes: Notes,
    /// The twins made, in the pages' order (llms.txt's entries).
    twins: Vec<llms::Entry>,
}

/// One page's twin, made.
struct Made {
    page: SitePage,
    url: String,
    title: String,
    description: Option<String>,
    document: String,
    tokens: usize,
    html_bytes: usize,
    html_tokens: usize,
}

/// Makes the twins and llms.txt of the site (as `[agents]` says), adds them to `sources` and
/// `routing`.
///
/// # Errors
/// A page that cannot be read.
pub(crate) fn make(
    sources: &mut Sources,
    routing: &mut Routing,
    config: &Config,
    (last_modified, page_dates, site_dir): (SystemTime, PageDates, &Path),
    cache_dir: Option<&Path>,
) -> Result<Agents, Error> {
    let (links, config) = (&config.links, &config.agents);
    let started = Instant::now();
    let mut agents = Agents::default();
    let excluded = |path: &str| {
        config.excludes(path) || links.ignore.iter().any(|g| crate::glob::matches(g, path))
    };
    let mut pages = site_pages(sources, routing, &excluded);
    // A page served at two URLs without a redirect (a folder's index with `clean_urls` off):
    // one twin, at the first (the folder's).
    let mut seen = std::collections::HashSet::new();
    pages.retain(|page| seen.insert(page.index));
    if !config.enabled.unwrap_or(pages.len() > 1) {
        return Ok(agents);
    }
    // Refused when the configuration was read (`AgentsConfig::first_invalid`).
    let selector = (config.content.as_deref()).and_then(|text| Selector::parse(text).ok());
    let (todo, skipped): (Vec<SitePage>, Vec<SitePage>) = pages
        .into_iter()
        .partition(|page| !routing.routes_path(&twin_path(&page.path)));
    for page in skipped {
        let twin = twin_path(&page.path);
        let why = format!("the site's own {twin} is served there");
        agents.warn(format!("{} has no Markdown twin: {why}", page.path));
        agents.skip(&page.path, why);
    }
    let converter = Converter {
        origin: &config.origin,
        selector: selector.as_ref(),
        modified: Dates::of_pages(&todo, sources, (last_modified, page_dates, site_dir)),
        cache: StageCache::new(cache_dir, "agents", &STAGE),
        context: context(routing, config),
    };
    if page_dates == PageDates::Own {
        agents
            .notes
            .tracked
            .extend(crate::modified::history_file(site_dir));
    }
    let made = convert_all(sources, routing, &todo, &converter)?;
    agents.fields = vec![Vec::new(); sources.files.len()];
    let mut routes = Vec::new();
    for result in made {
        match result {
            Ok(made) => routes.push(agents.add_twin(sources, made, config)),
            Err((path, why)) => agents.skip(&path, why.to_string()),
        }
    }
    routing.add_files(&routes);
    agents.add_llms(sources, routing, config);
    agents.stats.wall_time_ms = started.elapsed().as_millis() as u64;
    Ok(agents)
}

/// The URL path of the twin of the page at `path`.
fn twin_path(path: &str) -> String {
    match path.ends_with('/') {
        true => format!("{path}index.md"),
        false => format!("{path}.md"),
    }
}

/// A page's twin, or its path and why it has none.
type Converted = Result<Made, (String, &'static str)>;

/// How pages are converted: the content selector, the dates they name, and the build's cache of
/// twins. A twin is kept under the page's bytes, its URL and the [`context`]: a page
/// unchanged in a site whose routes did not change converts to the same twin.
struct Converter<'a> {
    /// `[agents] origin`: what the twin's URLs start with (empty: the site's root).
    origin: &'a str,
    selector: Option<&'a Selector>,
    modified: Dates,
    cache: StageCache,
    context: [u8; 32],
}

/// The date each twin names as its page's `last_modified`: the page's own where [`PageDates`]
/// asks for it and one is known, else the build's Last-Modified.
struct Dates {
    own: HashMap<PathBuf, SystemTime>,
    build: SystemTime,
}

impl Dates {
    /// The dates of `pages` as `page_dates` asks.
    fn of_pages(
        pages: &[SitePage],
        sources: &Sources,
        (build, page_dates, site_dir): (SystemTime, PageDates, &Path),
    ) -> Dates {
        let own = match page_dates {
            PageDates::Build => HashMap::new(),
            PageDates::Own => {
                let files: Vec<&Path> = (pages.iter())
                    .filter_map(|page| sources.files[page.index].source.path())
                    .collect();
                crate::modified::own_dates(site_dir, &files)
            }
        };
        Dates { own, build }
    }

    /// As the front matter writes it: an IMF-fixdate (RFC 9110 §5.6.7), as Last-Modified is.
    fn of(&self, source: &Source) -> String {
        let own = source.path().and_then(|path| self.own.get(path));
        httpdate::fmt_http_date(*own.unwrap_or(&self.build))
    }
}

/// The URL an agent reads for the site's `path` (from its root): on `origin`
/// (`[agents] origin`), or the path itself when none is configured.
fn on_origin(origin: &str, path: &str) -> String {
    format!("{origin}{path}")
}

/// What else a twin depends on: the configured content selector and origin, and the routes,
/// `_redirects` rules and SPA fallback its links are resolved through.
fn context(routing: &Routing, config: &AgentsConfig) -> [u8; 32] {
    let routes = (&routing.routes, &routing.redirects.rules, routing.fallback);
    let all = (routes, config.content.as_deref(), &config.origin);
    hash::sha256(&serde_json::to_vec(&all).expect("routes serialize"))
}

/// Each page converted, on all cores: its twin, or its path and why it has none.
fn convert_all(
    sources: &Sources,
    routing: &Routing,
    pages: &[SitePage],
    converter: &Converter<'_>,
) -> Result<Vec<Converted>, Error> {
    let assets = indexed_assets(sources.files.len());
    routing.with_core_site(&assets, |site| {
        let results = crate::parallel::map(pages.len(), |i| {
            let page = &pages[i];
            let bytes = match sources.files[page.index].source.read() {
                Ok(bytes) => bytes,
                Err(e) => return Some(Err(e)),
            };
            let html = String::from_utf8_lossy(&bytes);
            let key: [&[u8]; 3] = [&bytes, page.target.as_bytes(), &converter.context];
            let kept = (converter.cache.get(&key)).and_then(|b| serde_json::from_slice(&b).ok());
            let twin = kept.or_else(|| {
                let mut link = |url: &str| {
                    let url = canonical(site, &page.target, url)?;
                    Some(match url.starts_with('/') {
                        true => on_origin(converter.origin, &url),
                        false => url,
                    })
                };
                let twin = markdown::convert(&html, converter.selector, &mut link)?;
                if let Ok(entry) = serde_json::to_vec(&twin) {
                    converter.cache.put(&key, &entry);
                }
                Some(twin)
            });
            let Some(twin) = twin else {
                let why = "no main content, or nested too deep to convert";
                return Some(Ok(Err((page.path.clone(), why))));
            };
            if twin.body.trim().is_empty() {
                return Some(Ok(Err((page.path.clone(), "no text in its main content"))));
            }
            let tokens = markdown::tokens(&twin.body);
            let modified = converter.modified.of(&sources.files[page.index].source);
            let url = on_origin(converter.origin, &page.target);
            let document = front_matter(&twin, &url, &modified, tokens) + &twin.body + "\n";
            Some(Ok(Ok(Made {
                url: twin_path(&page.target),
                page: page.clone(),
                title: twin.title,
                description: twin.description,
                document,
                tokens,
                html_bytes: bytes.len(),
                html_tokens: markdown::tokens(&html),
            })))
        });
        results.into_iter().flatten().collect()
    })
}

/// The URL a twin names for `reference` on the page at `page` (a request target): another
/// site's and a fragment alone as written; one of this site's from its root, where the site
/// answers it (past its permanent redirects), its fragment kept.
fn canonical(site: &edgesite_core::Site<'_>, page: &str, reference: &str) -> Option<String> {
    if !url::is_local(reference) || reference.starts_with('#') {
        return None;
    }
    let (path, query, fragment) = url::split(reference);
    let mut target = url::as_target(&url::resolve(page, path));
    if let Some(query) = query {
        target.push('?');
        target.push_str(&url::as_target(query));
    }
    let mut out = match resolve::resolve(site, &target, true) {
        Resolved::File {
            redirected_to: Some(to),
            permanent: true,
            ..
        } => to,
        _ => target,
    };
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    Some(out)
}

/// The twin's YAML front matter (strings as JSON strings, which YAML 1.2 reads as they are).
fn front_matter(twin: &markdown::Twin, url: &str, modified: &str, tokens: usize) -> String {
    let quoted = |s: &str| serde_json::to_string(s).expect("a string serializes");
    let mut out = format!(
        "---\ntitle: {}\nurl: {}\n",
        quoted(&twin.title),
        quoted(url)
    );
    if let Some(description) = &twin.description {
        out.push_str(&format!("description: {}\n", quoted(description)));
    }
    out.push_str(&format!(
        "last_modified: {}\ntokens: {tokens}\n---\n\n",
        quoted(modified)
    ));
    out
}

impl Agents {
    /// A build note (the author's file wins over the build's).
    fn warn(&mut self, message: String) {
        let warning = Warning::new(WarningKind::AgentsSkipped, message);
        self.notes.warnings.push(warning);
    }

    /// A page without a twin, and why (the report lists them).
    fn skip(&mut self, path: &str, why: String) {
        self.stats.skipped.push((path.to_string(), why));
    }

    /// Adds a twin as a file of the site, its fields and its page's `Link`; returns its route
    /// (its path and file), which the caller adds with the others ([`Routing::add_files`]).
    fn add_twin(
        &mut self,
        sources: &mut Sources,
        made: Made,
        config: &AgentsConfig,
    ) -> (String, usize) {
        let bytes: Arc<[u8]> = made.document.as_bytes().into();
        let path = twin_path(&made.page.path);
        let index = sources.add_made(&path, bytes);
        // RFC 9110 §8.7: at the page's URL, where the twin is one of two representations, the
        // URL that names it alone (at that URL itself, what the request named).
        let mut fields = vec![
            ("x-markdown-tokens".to_string(), made.tokens.to_string()),
            ("content-location".to_string(), made.url.clone()),
        ];
        if !config.content_signal.is_empty() {
            fields.push(("content-signal".to_string(), config.content_signal.clone()));
        }
        self.fields.resize(sources.files.len(), Vec::new());
        self.fields[index] = fields;
        self.alternates.resize(sources.files.len(), None);
        self.alternates[made.page.index] = Some(index);
        self.fields[made.page.index].push((
            "link".to_string(),
            format!("<{}>; rel=\"alternate\"; type=\"text/markdown\"", made.url),
        ));
        let figures = TwinFigures {
            path: made.page.path.clone(),
            html_bytes: made.html_bytes as u64,
            markdown_bytes: made.document.len() as u64,
            html_tokens: made.html_tokens as u64,
            markdown_tokens: made.tokens as u64,
        };
        self.stats.twins += 1;
        self.stats.html_bytes += figures.html_bytes;
        self.stats.markdown_bytes += figures.markdown_bytes;
        self.stats.html_tokens += figures.html_tokens;
        self.stats.markdown_tokens += figures.markdown_tokens;
        self.stats.pages.push(figures);
        self.twins.push(llms::Entry {
            path: made.page.path,
            twin: on_origin(&config.origin, &made.url),
            title: made.title,
            description: made.description,
            document: made.document,
        });
        (path, index)
    }
}
