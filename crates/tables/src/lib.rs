//! # edgesite-tables
//!
//! The compiled site's tables ([`edgesite_core::Site`]) as data: [`encode`] writes them at build
//! time (edgesite-sitegen), [`decode`] reads them back once, at the first request (the Worker's
//! wasm and the native twin), into leaked allocations that live as long as the process, as a
//! `static` would. This replaces a generated Rust source of the tables, which rustc took 3.1 GB
//! and most of a minute to compile at 20,000 files (docs/benchmarks.md, "Many files"): the
//! tables are now a file that `include_bytes!` embeds, whatever the site's size.
//!
//! The format (version [`VERSION`]): little-endian `u32`s after a magic and the version, in
//! sections, each a count and its items: every string of the site once (a string is an offset
//! and a length in that section, which is valid UTF-8 as a whole), the shared pools (numbers,
//! field pairs, representations, deltas, variants, rule segments and destination parts, rule
//! index children), then the assets (each naming ranges of the pools), routes, 404 pages,
//! rules, the rule index and the site's own values. An asset is named by its index, so a route,
//! a 404 page and the fallback share one. Bytes in memory ([`Content::Bytes`]) are not tables:
//! a site to encode keeps its bytes in blobs ([`Content::External`]), which [`decode`] turns
//! into slices of the blobs it is given (the native twin's, in its binary), or keeps as they are
//! (the Worker's, outside wasm).
//!
//! Decoding checks every count, offset and index against the bytes it has: a corrupt or
//! truncated file is an [`Error`], never a panic or a read out of bounds.

use edgesite_core::{
    Action, Asset, Content, ContentCoding, Delta, NotFoundPage, Part, Redirect, RedirectStatus,
    Representation, Route, Rule, RuleNode, Segment, SharedCaches, Site, Store, Target, Variant,
};
use std::collections::HashMap;

/// The first bytes of every tables file.
pub const MAGIC: &[u8; 4] = b"EDGT";
/// The format's version: a file of another is refused.
pub const VERSION: u32 = 1;

/// Why tables could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn error(message: impl Into<String>) -> Error {
    Error(message.into())
}

const NONE: u32 = u32::MAX;

// ---- encoding -------------------------------------------------------------------------------

/// The writer: the strings section apart, everything else in order.
struct Writer<'s> {
    strings: String,
    placed: HashMap<&'s str, (u32, u32)>,
    out: Vec<u8>,
}

impl<'s> Writer<'s> {
    fn u32(&mut self, value: u32) {
        self.out.extend_from_slice(&value.to_le_bytes());
    }

    fn len(&mut self, value: usize) -> Result<(), Error> {
        self.u32(u32::try_from(value).map_err(|_| error("more than 2^32 items"))?);
        Ok(())
    }

    fn str(&mut self, text: &'s str) -> Result<(), Error> {
        let (at, len) = match self.placed.get(text) {
            Some(&place) => place,
            None => {
                let at = u32::try_from(self.strings.len()).map_err(|_| error("4 GiB of text"))?;
                let len = u32::try_from(text.len()).map_err(|_| error("a 4 GiB string"))?;
                self.strings.push_str(text);
                self.placed.insert(text, (at, len));
                (at, len)
            }
        };
        self.u32(at);
        self.u32(len);
        Ok(())
    }

    fn option(&mut self, value: Option<usize>) -> Result<(), Error> {
        match value {
            Some(v) => self.len(v),
            None => {
                self.u32(NONE);
                Ok(())
            }
        }
    }
}

/// Where the slices an asset (or the site) names are, in the pools.
#[derive(Default)]
struct Ranges {
    fields: Vec<(usize, usize)>,
    representations: Vec<(usize, usize)>,
    deltas: Vec<(usize, usize)>,
    variants: Vec<(usize, usize)>,
}

fn push<'s, T>(pool: &mut Vec<&'s T>, items: &'s [T]) -> (usize, usize) {
    let start = pool.len();
    pool.extend(items.iter());
    (start, items.len())
}

/// The assets a site references, numbered in order of first mention.
struct Numbered<'a> {
    assets: Vec<&'a Asset<'a>>,
    index: HashMap<*const Asset<'a>, usize>,
}

impl<'a> Numbered<'a> {
    fn number(&mut self, asset: &'a Asset<'a>) -> usize {
        let next = self.assets.len();
        let i = *self.index.entry(std::ptr::from_ref(asset)).or_insert(next);
        if i == next {
            self.assets.push(asset);
        }
        i
    }
}

/// The tables of `site`, as [`decode`] reads them.
///
/// # Errors
/// When a representation's bytes are in memory ([`Content::Bytes`]: a site to encode keeps
/// them in blobs), or a count or string does not fit 32 bits.
pub fn encode<'a>(site: &Site<'a>) -> Result<Vec<u8>, Error> {
    let mut numbered = Numbered {
        assets: Vec::new(),
        index: HashMap::new(),
    };
    let route_assets: Vec<Option<usize>> = site
        .routes
        .iter()
        .map(|r| match r.target {
            Target::Asset(asset) => Some(numbered.number(asset)),
            Target::Redirect(_) => None,
        })
        .collect();
    let not_found: Vec<usize> = site
        .not_found
        .iter()
        .map(|p| numbered.number(p.page))
        .collect();
    let fallback = site.fallback.map(|a| numbered.number(a));
    encode_assets(site, &numbered.assets, &route_assets, &not_found, fallback)
}

fn encode_assets(
    site: &Site<'_>,
    assets: &[&Asset<'_>],
    route_assets: &[Option<usize>],
    not_found: &[usize],
    fallback: Option<usize>,
) -> Result<Vec<u8>, Error> {
    let mut fields: Vec<&(&str, &str)> = Vec::new();
    let mut representations: Vec<&Representation<'_>> = Vec::new();
    let mut deltas: Vec<&Delta<'_>> = Vec::new();
    let mut variants: Vec<&Variant<'_>> = Vec::new();
    let mut ranges = Ranges::default();
    let site_fields = push(&mut fields, site.fields);
    for asset in assets {
        ranges.fields.push(push(&mut fields, asset.fields));
        ranges
            .representations
            .push(push(&mut representations, asset.representations));
        ranges.deltas.push(push(&mut deltas, asset.deltas));
        ranges.variants.push(push(&mut variants, asset.variants));
    }
    let mut segments: Vec<&Segment<'_>> = Vec::new();
    let mut parts: Vec<&Part<'_>> = Vec::new();
    let mut numbers: Vec<u32> = Vec::new();
    let mut children: Vec<&(&str, u32)> = Vec::new();

    let mut w = Writer {
        strings: String::new(),
        placed: HashMap::new(),
        out: Vec::new(),
    };
    w.len(fields.len())?;
    for (name, value) in &fields {
        w.str(name)?;
        w.str(value)?;
    }
    w.len(representations.len())?;
    for r in &representations {
        representation(&mut w, r)?;
    }
    w.len(deltas.len())?;
    for d in &deltas {
        w.str(d.available_dictionary)?;
        representation(&mut w, &d.representation)?;
    }
    w.len(variants.len())?;
    for v in &variants {
        w.str(v.content_type)?;
        representation(&mut w, &v.representation)?;
    }
    w.len(assets.len())?;
    for (i, asset) in assets.iter().enumerate() {
        w.str(asset.content_type)?;
        w.str(asset.last_modified)?;
        w.u32(asset.last_modified_unix as u32);
        w.u32((asset.last_modified_unix >> 32) as u32);
        w.str(asset.cache_control)?;
        w.str(asset.fingerprint)?;
        for (start, len) in [
            ranges.fields[i],
            ranges.representations[i],
            ranges.deltas[i],
            ranges.variants[i],
        ] {
            w.len(start)?;
            w.len(len)?;
        }
    }
    w.len(site.routes.len())?;
    for (route, asset) in site.routes.iter().zip(route_assets) {
        w.str(route.path)?;
        match (&route.target, asset) {
            (Target::Asset(_), Some(i)) => {
                w.u32(0);
                w.len(*i)?;
            }
            (Target::Redirect(redirect), _) => {
                w.u32(1);
                w.u32(u32::from(redirect.status.code()));
                w.str(redirect.location)?;
                w.option(redirect.query_at)?;
            }
            (Target::Asset(_), None) => return Err(error("an asset without a number")),
        }
    }
    w.len(site.not_found.len())?;
    for (page, i) in site.not_found.iter().zip(not_found) {
        w.str(page.folder)?;
        w.len(*i)?;
    }
    w.option(fallback)?;
    w.str(site.boundary)?;
    w.str(site.multipart_content_type)?;
    w.len(site_fields.0)?;
    w.len(site_fields.1)?;
    w.str(site.fingerprinted_cache_control)?;
    w.u32(match site.shared_caches {
        SharedCaches::Private => 0,
        SharedCaches::Vary => 1,
    });
    w.str(site.store)?;
    // The rules and their index, their pools first.
    let mut rule_ranges = Vec::new();
    for rule in site.rules {
        let pattern = push(&mut segments, rule.pattern);
        let destination = match &rule.action {
            Action::Redirect { destination, .. } | Action::Rewrite { destination } => {
                push(&mut parts, destination)
            }
        };
        rule_ranges.push((pattern, destination));
    }
    let mut node_ranges = Vec::new();
    for node in site.rule_index {
        let keys = (numbers.len(), node.keys.len());
        numbers.extend_from_slice(node.keys);
        let rules = (numbers.len(), node.rules.len());
        numbers.extend_from_slice(node.rules);
        node_ranges.push((keys, push(&mut children, node.children), rules));
    }
    w.len(segments.len())?;
    for segment in &segments {
        match segment {
            Segment::Literal(text) => {
                w.u32(0);
                w.str(text)?;
            }
            Segment::Placeholder => w.u32(1),
        }
    }
    w.len(parts.len())?;
    for part in &parts {
        match part {
            Part::Literal(text) => {
                w.u32(0);
                w.str(text)?;
            }
            Part::Capture(n) => {
                w.u32(1);
                w.len(*n)?;
            }
            Part::QueryCapture(n) => {
                w.u32(2);
                w.len(*n)?;
            }
        }
    }
    w.len(numbers.len())?;
    for n in &numbers {
        w.u32(*n);
    }
    w.len(children.len())?;
    for (segment, child) in &children {
        w.str(segment)?;
        w.u32(*child);
    }
    w.len(site.rules.len())?;
    for (rule, (pattern, destination)) in site.rules.iter().zip(rule_ranges) {
        w.len(pattern.0)?;
        w.len(pattern.1)?;
        w.u32(u32::from(rule.splat));
        w.len(destination.0)?;
        w.len(destination.1)?;
        match &rule.action {
            Action::Redirect {
                status, query_at, ..
            } => {
                w.u32(u32::from(status.code()));
                w.option(*query_at)?;
            }
            Action::Rewrite { .. } => w.u32(0),
        }
    }
    w.len(site.rule_index.len())?;
    for (keys, children, rules) in node_ranges {
        for (start, len) in [keys, children, rules] {
            w.len(start)?;
            w.len(len)?;
        }
    }
    let mut out = Vec::with_capacity(12 + w.strings.len() + w.out.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    let strings = u32::try_from(w.strings.len()).map_err(|_| error("4 GiB of text"))?;
    out.extend_from_slice(&strings.to_le_bytes());
    out.extend_from_slice(w.strings.as_bytes());
    out.extend_from_slice(&w.out);
    Ok(out)
}

fn representation<'s>(w: &mut Writer<'s>, r: &'s Representation<'s>) -> Result<(), Error> {
    w.u32(r.coding as u32);
    w.str(r.etag)?;
    w.str(r.content_length)?;
    match r.content {
        Content::Bytes(_) => {
            return Err(error(
                "a representation's bytes are in memory: tables name blobs, not bytes",
            ))
        }
        Content::External {
            id,
            blob,
            offset,
            length,
        } => {
            w.u32(0);
            for n in [id, blob, offset, length] {
                w.u32(n);
            }
        }
        Content::Stored {
            id,
            store,
            key,
            length,
        } => {
            w.u32(1);
            w.u32(id);
            w.u32(match store {
                Store::Assets => 0,
                Store::R2 => 1,
            });
            w.str(key)?;
            w.u32(length);
        }
        Content::Decoded { id, from, length } => {
            w.u32(2);
            w.u32(id);
            w.u32(u32::from(from));
            w.u32(length);
        }
    }
    Ok(())
}

// ---- decoding -------------------------------------------------------------------------------

/// The reader: the bytes after the strings section, and that section as text.
struct Reader {
    bytes: &'static [u8],
    at: usize,
    strings: &'static str,
}

impl Reader {
    fn u32(&mut self) -> Result<u32, Error> {
        let end = self.at.checked_add(4).ok_or_else(truncated)?;
        let word = self.bytes.get(self.at..end).ok_or_else(truncated)?;
        self.at = end;
        Ok(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
    }

    fn usize(&mut self) -> Result<usize, Error> {
        Ok(self.u32()? as usize)
    }

    /// A count of items, each at least `min_bytes` long: never more than the bytes left hold,
    /// so a corrupt count cannot ask for a huge allocation.
    fn count(&mut self, min_bytes: usize) -> Result<usize, Error> {
        let n = self.usize()?;
        let left = self.bytes.len() - self.at;
        if n.saturating_mul(min_bytes) > left {
            return Err(error("a count larger than the tables"));
        }
        Ok(n)
    }

    fn str(&mut self) -> Result<&'static str, Error> {
        let at = self.usize()?;
        let len = self.usize()?;
        at.checked_add(len)
            .and_then(|end| self.strings.get(at..end))
            .ok_or_else(|| error("a string outside the strings section"))
    }

    fn option(&mut self) -> Result<Option<usize>, Error> {
        let value = self.u32()?;
        Ok((value != NONE).then_some(value as usize))
    }

    /// `start`, `len` naming a slice of `pool`.
    fn slice<T>(&mut self, pool: &'static [T]) -> Result<&'static [T], Error> {
        let start = self.usize()?;
        let len = self.usize()?;
        start
            .checked_add(len)
            .and_then(|end| pool.get(start..end))
            .ok_or_else(|| error("a slice outside its pool"))
    }
}

fn truncated() -> Error {
    error("the tables end early")
}

fn leak<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

fn status(code: u32) -> Result<RedirectStatus, Error> {
    u16::try_from(code)
        .ok()
        .and_then(RedirectStatus::from_code)
        .ok_or_else(|| error(format!("{code} is not a redirect status")))
}

/// The site in `tables` (as [`encode`] wrote it), its tables leaked: they live as long as the
/// process, as a `static`'s would (the site is for a `static` too: `LazyLock<Site>`). A
/// representation in blob `b` ([`Content::External`]) becomes a slice of `blobs[b]` when blobs
/// are given (the native twin embeds them), and stays as it is when `blobs` is empty (the
/// Worker's blobs are outside wasm memory).
///
/// # Errors
/// When `tables` is not a tables file of this version, or is corrupt or truncated.
pub fn decode(
    tables: &'static [u8],
    blobs: &'static [&'static [u8]],
) -> Result<Site<'static>, Error> {
    if tables.get(..4) != Some(MAGIC.as_slice()) {
        return Err(error("not edgesite tables"));
    }
    let mut head = Reader {
        bytes: tables,
        at: 4,
        strings: "",
    };
    let version = head.u32()?;
    if version != VERSION {
        return Err(error(format!(
            "tables of version {version}, this edgesite reads {VERSION}: build again"
        )));
    }
    let length = head.usize()?;
    let strings = head
        .at
        .checked_add(length)
        .and_then(|end| tables.get(head.at..end))
        .ok_or_else(truncated)?;
    let strings = std::str::from_utf8(strings).map_err(|_| error("strings are not UTF-8"))?;
    let mut r = Reader {
        bytes: tables,
        at: head.at + length,
        strings,
    };
    let n = r.count(16)?;
    let mut fields = Vec::with_capacity(n);
    for _ in 0..n {
        fields.push((r.str()?, r.str()?));
    }
    let fields = leak(fields);
    let n = r.count(24)?;
    let mut representations = Vec::with_capacity(n);
    for _ in 0..n {
        representations.push(decode_representation(&mut r, blobs)?);
    }
    let representations = leak(representations);
    let n = r.count(32)?;
    let mut deltas = Vec::with_capacity(n);
    for _ in 0..n {
        deltas.push(Delta {
            available_dictionary: r.str()?,
            representation: decode_representation(&mut r, blobs)?,
        });
    }
    let deltas = leak(deltas);
    let n = r.count(32)?;
    let mut variants = Vec::with_capacity(n);
    for _ in 0..n {
        variants.push(Variant {
            content_type: r.str()?,
            representation: decode_representation(&mut r, blobs)?,
        });
    }
    let variants = leak(variants);
    let n = r.count(72)?;
    let mut assets = Vec::with_capacity(n);
    for _ in 0..n {
        assets.push(Asset {
            content_type: r.str()?,
            last_modified: r.str()?,
            last_modified_unix: u64::from(r.u32()?) | (u64::from(r.u32()?) << 32),
            cache_control: r.str()?,
            fingerprint: r.str()?,
            fields: r.slice(fields)?,
            representations: r.slice(representations)?,
            deltas: r.slice(deltas)?,
            variants: r.slice(variants)?,
        });
    }
    let assets = leak(assets);
    let asset = |i: usize| assets.get(i).ok_or_else(|| error("no such asset"));
    let n = r.count(12)?;
    let mut routes = Vec::with_capacity(n);
    for _ in 0..n {
        let path = r.str()?;
        let target = match r.u32()? {
            0 => Target::Asset(asset(r.usize()?)?),
            1 => Target::Redirect(Redirect {
                status: status(r.u32()?)?,
                location: r.str()?,
                query_at: r.option()?,
            }),
            tag => return Err(error(format!("a route of kind {tag}"))),
        };
        routes.push(Route { path, target });
    }
    let n = r.count(12)?;
    let mut not_found = Vec::with_capacity(n);
    for _ in 0..n {
        not_found.push(NotFoundPage {
            folder: r.str()?,
            page: asset(r.usize()?)?,
        });
    }
    let fallback = r.option()?.map(asset).transpose()?;
    let boundary = r.str()?;
    let multipart_content_type = r.str()?;
    let site_fields = r.slice(fields)?;
    let fingerprinted_cache_control = r.str()?;
    let shared_caches = match r.u32()? {
        0 => SharedCaches::Private,
        1 => SharedCaches::Vary,
        other => return Err(error(format!("shared caches {other}"))),
    };
    let store = r.str()?;
    let (rules, rule_index) = decode_rules(&mut r)?;
    if r.at != tables.len() {
        return Err(error("bytes after the tables"));
    }
    Ok(Site {
        routes: leak(routes),
        not_found: leak(not_found),
        fallback,
        boundary,
        multipart_content_type,
        fields: site_fields,
        rules,
        rule_index,
        fingerprinted_cache_control,
        shared_caches,
        store,
    })
}

type Rules = (&'static [Rule<'static>], &'static [RuleNode<'static>]);

fn decode_rules(r: &mut Reader) -> Result<Rules, Error> {
    let n = r.count(4)?;
    let mut segments = Vec::with_capacity(n);
    for _ in 0..n {
        segments.push(match r.u32()? {
            0 => Segment::Literal(r.str()?),
            1 => Segment::Placeholder,
            tag => return Err(error(format!("a segment of kind {tag}"))),
        });
    }
    let segments = leak(segments);
    let n = r.count(8)?;
    let mut parts = Vec::with_capacity(n);
    for _ in 0..n {
        parts.push(match r.u32()? {
            0 => Part::Literal(r.str()?),
            1 => Part::Capture(r.usize()?),
            2 => Part::QueryCapture(r.usize()?),
            tag => return Err(error(format!("a part of kind {tag}"))),
        });
    }
    let parts = leak(parts);
    let n = r.count(4)?;
    let mut numbers = Vec::with_capacity(n);
    for _ in 0..n {
        numbers.push(r.u32()?);
    }
    let numbers = leak(numbers);
    let n = r.count(12)?;
    let mut children = Vec::with_capacity(n);
    for _ in 0..n {
        children.push((r.str()?, r.u32()?));
    }
    let children = leak(children);
    let n = r.count(24)?;
    let mut rules = Vec::with_capacity(n);
    for _ in 0..n {
        let pattern = r.slice(segments)?;
        let splat = r.u32()? != 0;
        let destination = r.slice(parts)?;
        let action = match r.u32()? {
            0 => Action::Rewrite { destination },
            code => Action::Redirect {
                status: status(code)?,
                destination,
                query_at: r.option()?,
            },
        };
        rules.push(Rule {
            pattern,
            splat,
            action,
        });
    }
    let n = r.count(24)?;
    let mut nodes = Vec::with_capacity(n);
    for _ in 0..n {
        nodes.push(RuleNode {
            keys: r.slice(numbers)?,
            children: r.slice(children)?,
            rules: r.slice(numbers)?,
        });
    }
    Ok((leak(rules), leak(nodes)))
}

fn decode_representation(
    r: &mut Reader,
    blobs: &'static [&'static [u8]],
) -> Result<Representation<'static>, Error> {
    let coding = r.u32()?;
    let coding = ContentCoding::ALL
        .into_iter()
        .find(|c| *c as u32 == coding)
        .ok_or_else(|| error(format!("coding {coding}")))?;
    let etag = r.str()?;
    let content_length = r.str()?;
    let content = match r.u32()? {
        0 => {
            let [id, blob, offset, length] = [r.u32()?, r.u32()?, r.u32()?, r.u32()?];
            if blobs.is_empty() {
                Content::External {
                    id,
                    blob,
                    offset,
                    length,
                }
            } else {
                let start = offset as usize;
                let bytes = blobs
                    .get(blob as usize)
                    .and_then(|b| b.get(start..start.checked_add(length as usize)?))
                    .ok_or_else(|| error("a representation outside its blob"))?;
                Content::Bytes(bytes)
            }
        }
        1 => Content::Stored {
            id: r.u32()?,
            store: match r.u32()? {
                0 => Store::Assets,
                1 => Store::R2,
                other => return Err(error(format!("store {other}"))),
            },
            key: r.str()?,
            length: r.u32()?,
        },
        2 => Content::Decoded {
            id: r.u32()?,
            from: u8::try_from(r.u32()?).map_err(|_| error("a representation past 255"))?,
            length: r.u32()?,
        },
        tag => return Err(error(format!("content of kind {tag}"))),
    };
    Ok(Representation {
        coding,
        etag,
        content_length,
        content,
    })
}

#[cfg(test)]
mod tests;
