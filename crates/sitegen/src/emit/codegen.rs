//! `site.rs`: the compiled site as Rust data.
//!
//! Only `static` items built from `edgesite-core` struct literals, and either `include_bytes!`
//! of each file by absolute path (so Cargo tracks every byte), or, for a Worker, the offsets of
//! its bytes in blobs written beside it ([`Bodies`]). Strings are written with `{:?}`, which
//! always yields a valid Rust string literal; core's enums (codings, redirect statuses) with
//! `{:?}`, which is the variant's name, so a variant sitegen has is one core has.

use super::objects::Objects;
use super::read;
use crate::model::{
    Asset, DestinationPart, Manifest, PatternSegment, RedirectRule, Representation, RouteTarget,
    RuleAction, RuleIndexNode, Source, Tier,
};
use base64::prelude::{Engine as _, BASE64_STANDARD};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const CORE: &str = "::edgesite_core";

/// The most bytes packed into one blob (a file larger than this gets a blob of its own).
const BLOB_BYTES: u64 = 8 * 1024 * 1024;

/// Where the generated site keeps its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bodies {
    /// In the module: `include_bytes!` of each file and encoding, as
    /// [`edgesite_core::Content::Bytes`] (the native twin, library mode).
    Embedded,
    /// Outside the module: packed into blobs (`worker/site-N.bin` in the output folder, listed
    /// in `worker/blobs.txt`) that a Worker imports as data modules, as
    /// [`edgesite_core::Content::External`]; identical bytes are stored once.
    External,
    /// The tables as data (`tables.bin`, edgesite-tables' format, decoded once at the first
    /// request), not as Rust: no rustc work grows with the site. The bytes are in blobs as for
    /// [`Bodies::External`]: outside the module (a Worker's data modules), or, `in_binary`,
    /// embedded with `include_bytes!` (the native twin).
    Tables {
        /// Whether the blobs are embedded in the binary.
        in_binary: bool,
    },
}

/// Blobs being packed: where each stored representation's bytes went.
pub(super) struct Blobs {
    dir: PathBuf,
    sizes: Vec<u64>,
    placed: HashMap<String, (u32, u32)>,
}

impl Blobs {
    /// Blobs written into `out_dir/worker/`, emptied first (an earlier build's blobs go).
    pub(super) fn fresh(out_dir: &Path) -> std::io::Result<Blobs> {
        let dir = out_dir.join("worker");
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        Ok(Blobs {
            dir,
            sizes: Vec::new(),
            placed: HashMap::new(),
        })
    }

    fn name(index: usize) -> String {
        format!("site-{index}.bin")
    }

    /// Places `bytes` (whose SHA-256 is `sha256`) in a blob; returns (blob, offset).
    pub(super) fn place(&mut self, sha256: &str, bytes: &[u8]) -> std::io::Result<(u32, u32)> {
        if let Some(&at) = self.placed.get(sha256) {
            return Ok(at);
        }
        let len = bytes.len() as u64;
        if self
            .sizes
            .last()
            .is_none_or(|&used| used > 0 && used + len > BLOB_BYTES)
        {
            self.sizes.push(0);
            std::fs::write(self.dir.join(Blobs::name(self.sizes.len() - 1)), b"")?;
        }
        let blob = self.sizes.len() - 1;
        let offset = self.sizes[blob];
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(self.dir.join(Blobs::name(blob)))?;
        std::io::Write::write_all(&mut file, bytes)?;
        self.sizes[blob] += len;
        let at = (blob as u32, offset as u32);
        self.placed.insert(sha256.to_string(), at);
        Ok(at)
    }

    /// The blob files written, in order.
    pub(super) fn files(&self) -> impl Iterator<Item = PathBuf> + '_ {
        (0..self.sizes.len()).map(|i| self.dir.join(Blobs::name(i)))
    }

    /// Writes `blobs.txt` (the blob names in order) and `blobs.rs` (the blobs as an
    /// `include_bytes!` list, for tests that hand them to a Worker themselves).
    pub(super) fn finish(&self, out_dir: &Path) -> std::io::Result<()> {
        let names: Vec<String> = (0..self.sizes.len()).map(Blobs::name).collect();
        std::fs::write(self.dir.join("blobs.txt"), names.join("\n") + "\n")?;
        let list: Vec<String> = names
            .iter()
            .map(|n| {
                format!(
                    "include_bytes!({:?}) as &[u8]",
                    self.dir.join(n).display().to_string()
                )
            })
            .collect();
        std::fs::write(out_dir.join("blobs.rs"), format!("&[{}]", list.join(", ")))
    }
}

/// Writes `site.rs` into `out_dir` (and, for [`Bodies::External`], the blobs).
pub(crate) fn write(manifest: &Manifest, out_dir: &Path, bodies: Bodies) -> std::io::Result<()> {
    let mut blobs = match bodies {
        Bodies::Embedded => None,
        Bodies::External | Bodies::Tables { .. } => Some(Blobs::fresh(out_dir)?),
    };
    let mut out = format!(
        "// @generated by edgesite-sitegen from {:?}. Do not edit.\n\n",
        manifest.site_dir.display().to_string()
    );
    // The store's objects, in `store/` (written, and stale ones removed, even when none is
    // left, so a Worker's build never uploads an earlier build's).
    let mut objects = Objects::new(&out_dir.join("store"))?;
    let mut id = 0;
    for (i, file) in manifest.files.iter().enumerate() {
        let kept = Kept {
            blobs: blobs.as_mut(),
            objects: file.tier.is_stored().then_some(&mut objects),
            tier: file.tier,
        };
        out.push_str(&asset(manifest, i, file, out_dir, kept, &mut id)?);
    }
    // The folder for the native twin; a Worker reads its binding (and its module names no path
    // of the machine that built it).
    let stored = manifest.files.iter().any(|f| f.tier.is_stored());
    let root = match bodies {
        Bodies::Embedded if stored => objects.root().display().to_string(),
        _ => String::new(),
    };
    out.push_str(&site_static(manifest, &root));
    objects.finish()?;
    if let Some(blobs) = &blobs {
        blobs.finish(out_dir)?;
    }
    std::fs::write(out_dir.join("site.rs"), out)
}

/// Where a file's bytes go: the blobs (a Worker's bundle), the store's objects (a file in the
/// store), or neither (embedded).
struct Kept<'k> {
    blobs: Option<&'k mut Blobs>,
    objects: Option<&'k mut Objects>,
    /// The file's tier (which store its objects are in).
    tier: Tier,
}

/// `static ASSET_i` (and, embedded, `static BODY_i`, the file's bytes).
fn asset(
    manifest: &Manifest,
    i: usize,
    file: &Asset,
    out_dir: &Path,
    mut kept: Kept<'_>,
    id: &mut u32,
) -> std::io::Result<String> {
    let mut out = String::new();
    let blobs = &kept.blobs;
    // A representation without bytes is the source file's: the build keeps the bytes it made
    // or changed (`Asset::identity_bytes`).
    let source = &file.source;
    let identity_stored = file
        .representations
        .iter()
        .any(|v| v.bytes.is_none() && v.decoded_from.is_none());
    if let (None, None, true, Source::File(path)) = (blobs, &kept.objects, identity_stored, source)
    {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let _ = writeln!(
            out,
            "static BODY_{i}: &[u8] = include_bytes!({:?});",
            path.display().to_string()
        );
    }
    let mut representations = Vec::new();
    for variant in &file.representations {
        let content = content(i, variant, source, out_dir, &mut kept, *id)?;
        *id += 1;
        representations.push(representation(variant, &content));
    }
    let mut deltas = Vec::new();
    for delta in &file.deltas {
        let content = content(i, &delta.representation, source, out_dir, &mut kept, *id)?;
        *id += 1;
        // RFC 9842 §2.2: Available-Dictionary's text for the hash (RFC 8941 §3.3.5).
        let field = format!(":{}:", BASE64_STANDARD.encode(delta.dictionary));
        deltas.push(format!(
            "{CORE}::Delta {{ available_dictionary: {field:?}, representation: {} }}",
            representation(&delta.representation, &content)
        ));
    }
    let mut variants = Vec::new();
    for variant in &file.variants {
        let r = &variant.representation;
        let content = content(i, r, source, out_dir, &mut kept, *id)?;
        *id += 1;
        variants.push(format!(
            "{CORE}::Variant {{ content_type: {:?}, representation: {} }}",
            variant.content_type,
            representation(r, &content)
        ));
    }
    let _ = writeln!(
        out,
        "static ASSET_{i}: {CORE}::Asset<'static> = {CORE}::Asset {{ content_type: {:?}, \
         last_modified: {:?}, last_modified_unix: {}, cache_control: {:?}, fingerprint: {:?}, fields: {}, representations: &[{}], deltas: &[{}], variants: &[{}], alternate: {} }};",
        file.content_type,
        manifest.last_modified,
        manifest.last_modified_unix,
        file.cache_control,
        file.fingerprint,
        fields(&file.fields),
        representations.join(", "),
        deltas.join(", "),
        variants.join(", "),
        file.alternate
            .map_or_else(|| "None".to_string(), |j| format!("Some(&ASSET_{j})"))
    );
    Ok(out)
}

/// An `edgesite_core::Representation` literal.
fn representation(variant: &Representation, content: &str) -> String {
    format!(
        "{CORE}::Representation {{ coding: {CORE}::ContentCoding::{:?}, etag: {:?}, content_length: {:?}, content: {content} }}",
        variant.coding,
        variant.etag,
        variant.size.to_string()
    )
}

/// The `edgesite_core::Content` of one representation.
fn content(
    i: usize,
    variant: &Representation,
    source: &Source,
    out_dir: &Path,
    kept: &mut Kept<'_>,
    id: u32,
) -> std::io::Result<String> {
    if let Some(from) = variant.decoded_from {
        return Ok(format!(
            "{CORE}::Content::Decoded {{ id: {id}, from: {from}, length: {} }}",
            variant.size
        ));
    }
    if let Some(objects) = kept.objects.as_deref_mut() {
        objects.put(variant, kept.tier, source)?;
        return Ok(format!(
            "{CORE}::Content::Stored {{ id: {id}, store: {CORE}::Store::{:?}, \
             length: {CORE}::ObjectLength::new({}) }}",
            kept.tier.store(),
            variant.size
        ));
    }
    let Some(blobs) = kept.blobs.as_deref_mut() else {
        return Ok(match variant.bytes {
            None => format!("{CORE}::Content::Bytes(BODY_{i})"),
            Some(_) => format!(
                "{CORE}::Content::Bytes(include_bytes!({:?}))",
                out_dir
                    .join("encoded")
                    .join(&variant.sha256)
                    .display()
                    .to_string()
            ),
        });
    };
    let (blob, offset) = match &variant.bytes {
        Some(bytes) => blobs.place(&variant.sha256, bytes)?,
        None => blobs.place(&variant.sha256, &read(source)?)?,
    };
    Ok(format!(
        "{CORE}::Content::External {{ id: {id}, blob: {blob}, offset: {offset}, length: {} }}",
        variant.size
    ))
}

/// A `&[(name, value)]` literal.
fn fields(fields: &[(impl AsRef<str>, String)]) -> String {
    let items: Vec<String> = fields
        .iter()
        .map(|(name, value)| format!("({:?}, {value:?})", name.as_ref()))
        .collect();
    format!("&[{}]", items.join(", "))
}

fn site_static(manifest: &Manifest, store: &str) -> String {
    let mut out = String::from(
        "\n/// The compiled site: routes sorted by path, 404 pages, fallback, multipart boundary.\n\
         pub static SITE: ::edgesite_core::Site<'static> = ::edgesite_core::Site {\n    routes: &[\n",
    );
    for route in &manifest.routes {
        let target = match &route.target {
            RouteTarget::Asset(i) => format!("{CORE}::Target::Asset(&ASSET_{i})"),
            RouteTarget::Redirect {
                status,
                location,
                query_at,
            } => format!(
                "{CORE}::Target::Redirect({CORE}::Redirect {{ status: {CORE}::RedirectStatus::{status:?}, location: {location:?}, query_at: {query_at:?} }})"
            ),
        };
        let _ = writeln!(
            out,
            "        {CORE}::Route {{ path: {:?}, target: {target} }},",
            route.path
        );
    }
    out.push_str("    ],\n    not_found: &[\n");
    for (folder, i) in &manifest.not_found {
        let _ = writeln!(
            out,
            "        {CORE}::NotFoundPage {{ folder: {folder:?}, page: &ASSET_{i} }},"
        );
    }
    let fallback = match manifest.fallback {
        Some(i) => format!("Some(&ASSET_{i})"),
        None => "None".to_string(),
    };
    let _ = writeln!(
        out,
        "    ],\n    fallback: {fallback},\n    boundary: {:?},\n    multipart_content_type: {:?},\n    fields: {},\n    rules: &[{}],\n    rule_index: &[{}],\n    fingerprinted_cache_control: {:?},\n    shared_caches: ::edgesite_core::SharedCaches::{:?},\n    store: {store:?},\n}};",
        manifest.boundary,
        format!("multipart/byteranges; boundary={}", manifest.boundary),
        fields(&manifest.fields),
        manifest.rules.iter().map(rule).collect::<Vec<_>>().join(", "),
        manifest.rule_index.iter().map(rule_node).collect::<Vec<_>>().join(", "),
        manifest.fingerprinted_cache_control,
        manifest.shared_caches.core()
    );
    out
}

/// A node of the rules' trie as an `edgesite_core::RuleNode` literal.
fn rule_node(node: &RuleIndexNode) -> String {
    let children: Vec<String> = node
        .children
        .iter()
        .map(|(segment, child)| format!("({segment:?}, {child})"))
        .collect();
    format!(
        "{CORE}::RuleNode {{ keys: &{:?}, children: &[{}], rules: &{:?} }}",
        node.keys(),
        children.join(", "),
        node.rules
    )
}

/// A `_redirects` rule as an `edgesite_core::Rule` literal.
fn rule(rule: &RedirectRule) -> String {
    let pattern: Vec<String> = rule
        .pattern
        .iter()
        .map(|s| match s {
            PatternSegment::Literal(text) => format!("{CORE}::Segment::Literal({text:?})"),
            PatternSegment::Placeholder(_) => format!("{CORE}::Segment::Placeholder"),
        })
        .collect();
    let parts = |parts: &[DestinationPart]| -> String {
        let parts: Vec<String> = parts
            .iter()
            .map(|p| match p {
                DestinationPart::Literal(text) => format!("{CORE}::Part::Literal({text:?})"),
                DestinationPart::Capture(n) => format!("{CORE}::Part::Capture({n})"),
                DestinationPart::QueryCapture(n) => format!("{CORE}::Part::QueryCapture({n})"),
            })
            .collect();
        format!("&[{}]", parts.join(", "))
    };
    let action = match &rule.action {
        RuleAction::Redirect {
            status,
            destination,
            query_at,
        } => format!(
            "{CORE}::Action::Redirect {{ status: {CORE}::RedirectStatus::{status:?}, destination: {}, query_at: {query_at:?} }}",
            parts(destination)
        ),
        RuleAction::Rewrite { destination } => format!(
            "{CORE}::Action::Rewrite {{ destination: {} }}",
            parts(destination)
        ),
    };
    format!(
        "\n        // _redirects:{}: {}\n        {CORE}::Rule {{ pattern: &[{}], splat: {}, action: {action} }}",
        rule.line,
        rule.source.replace('\n', " "),
        pattern.join(", "),
        rule.splat
    )
}
