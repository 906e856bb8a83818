//! [`encode`]: a site's tables as bytes, in the order [`crate::decode`] reads them.

use crate::format::{error, Error, MAGIC, NONE, VERSION};
use edgesite_core::{
    Action, Asset, Content, Delta, Part, Representation, Segment, SharedCaches, Site, Store,
    Target, Variant,
};
use std::collections::HashMap;

/// The writer: the strings section apart (each string once), everything else in order.
struct Writer<'s> {
    strings: String,
    placed: HashMap<&'s str, (u32, u32)>,
    out: Vec<u8>,
}

impl<'s> Writer<'s> {
    /// A number as an unsigned LEB128 varint: seven bits a byte, low first, the high bit set
    /// on every byte but the last. Most numbers in the tables are small (kinds, counts, string
    /// lengths): one or two bytes rather than four.
    fn u32(&mut self, value: u32) {
        let mut value = value;
        while value >= 0x80 {
            self.out.push((value & 0x7f) as u8 | 0x80);
            value >>= 7;
        }
        self.out.push(value as u8);
    }

    fn len(&mut self, value: usize) -> Result<(), Error> {
        self.u32(u32::try_from(value).map_err(|_| error("more than 2^32 items"))?);
        Ok(())
    }

    /// A slice of a pool: where it starts, and its length.
    fn range(&mut self, (start, len): (usize, usize)) -> Result<(), Error> {
        self.len(start)?;
        self.len(len)
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

    /// The file: magic, version, the strings section, the rest.
    fn finish(self) -> Result<Vec<u8>, Error> {
        let strings = u32::try_from(self.strings.len()).map_err(|_| error("4 GiB of text"))?;
        let mut out = Vec::with_capacity(12 + self.strings.len() + self.out.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&strings.to_le_bytes());
        out.extend_from_slice(self.strings.as_bytes());
        out.extend_from_slice(&self.out);
        Ok(out)
    }
}

/// Appends `items` to `pool`; returns their slice of it.
fn push<'s, T>(pool: &mut Vec<&'s T>, items: &'s [T]) -> (usize, usize) {
    let start = pool.len();
    pool.extend(items.iter());
    (start, items.len())
}

/// The assets a site references, numbered in order of first mention (a route, a 404 page and
/// the fallback may name one asset: it is written once).
struct Numbered<'a> {
    assets: Vec<&'a Asset<'a>>,
    index: HashMap<*const Asset<'a>, usize>,
}

impl<'a> Numbered<'a> {
    fn new() -> Numbered<'a> {
        Numbered {
            assets: Vec::new(),
            index: HashMap::new(),
        }
    }

    fn number(&mut self, asset: &'a Asset<'a>) -> usize {
        let next = self.assets.len();
        let i = *self.index.entry(std::ptr::from_ref(asset)).or_insert(next);
        if i == next {
            self.assets.push(asset);
        }
        i
    }
}

/// The pools the assets name slices of, and the slices.
#[derive(Default)]
struct Pools<'a> {
    fields: Vec<&'a (&'a str, &'a str)>,
    representations: Vec<&'a Representation<'a>>,
    deltas: Vec<&'a Delta<'a>>,
    variants: Vec<&'a Variant<'a>>,
    /// Per asset: its fields, representations, deltas and variants.
    ranges: Vec<Ranges>,
}

/// Per asset: its fields, representations, deltas and variants, as ranges of the pools.
type Ranges = [(usize, usize); 4];

/// What an asset names of its own, by address: two assets naming the same are copies.
type Shares<'a> = (
    *const (&'a str, &'a str),
    *const Representation<'a>,
    usize,
    *const Delta<'a>,
    *const Variant<'a>,
);

impl<'a> Pools<'a> {
    fn of(
        assets: &[&'a Asset<'a>],
        site_fields: &'a [(&'a str, &'a str)],
    ) -> (Pools<'a>, (usize, usize)) {
        let mut pools = Pools::default();
        // A list of fields many files share (every page's security fields and preload hints,
        // every image's) is written once.
        let mut lists: HashMap<&'a [(&'a str, &'a str)], (usize, usize)> = HashMap::new();
        let mut fields = |pool: &mut Vec<_>, list: &'a [(&'a str, &'a str)]| {
            *lists.entry(list).or_insert_with(|| push(pool, list))
        };
        let site = fields(&mut pools.fields, site_fields);
        // Assets that name the same slices (copies of one asset) share their ranges: written
        // once.
        let mut written: HashMap<Shares<'a>, Ranges> = HashMap::new();
        for asset in assets {
            let shares = (
                asset.fields.as_ptr(),
                asset.representations.as_ptr(),
                asset.representations.len(),
                asset.deltas.as_ptr(),
                asset.variants.as_ptr(),
            );
            let ranges = *written.entry(shares).or_insert_with(|| {
                [
                    fields(&mut pools.fields, asset.fields),
                    push(&mut pools.representations, asset.representations),
                    push(&mut pools.deltas, asset.deltas),
                    push(&mut pools.variants, asset.variants),
                ]
            });
            pools.ranges.push(ranges);
        }
        (pools, site)
    }

    fn write(&self, w: &mut Writer<'a>) -> Result<(), Error> {
        w.len(self.fields.len())?;
        for (name, value) in &self.fields {
            w.str(name)?;
            w.str(value)?;
        }
        w.len(self.representations.len())?;
        for r in &self.representations {
            representation(w, r)?;
        }
        w.len(self.deltas.len())?;
        for d in &self.deltas {
            w.str(d.available_dictionary)?;
            representation(w, &d.representation)?;
        }
        w.len(self.variants.len())?;
        for v in &self.variants {
            w.str(v.content_type)?;
            representation(w, &v.representation)?;
        }
        Ok(())
    }
}

/// The tables of `site`, as [`crate::decode`] reads them.
///
/// # Errors
/// When a representation's bytes are in memory ([`Content::Bytes`]: a site to encode keeps
/// them in blobs), or a count or string does not fit 32 bits.
pub fn encode(site: &Site<'_>) -> Result<Vec<u8>, Error> {
    let mut numbered = Numbered::new();
    let routes: Vec<Option<usize>> = site
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
    let (alternates, alternate_of) = alternates(&numbered.assets)?;
    let (number, kept, kept_alternates) = renumbered(&numbered, &alternates, &alternate_of);
    let mut w = Writer {
        strings: String::new(),
        placed: HashMap::new(),
        out: Vec::new(),
    };
    let all: Vec<&Asset<'_>> = alternates.assets.iter().chain(&kept).copied().collect();
    let (pools, site_fields) = Pools::of(&all, site.fields);
    pools.write(&mut w)?;
    let (alternate_ranges, ranges) = pools.ranges.split_at(alternates.assets.len());
    let none = vec![None; alternates.assets.len()];
    write_assets(&mut w, &alternates.assets, alternate_ranges, &none)?;
    write_assets(&mut w, &kept, ranges, &kept_alternates)?;
    let routes: Vec<Option<usize>> = routes.into_iter().map(|r| r.map(|i| number[i])).collect();
    write_routes(&mut w, site, &routes)?;
    w.len(site.not_found.len())?;
    for (page, i) in site.not_found.iter().zip(not_found) {
        w.str(page.folder)?;
        w.len(number[i])?;
    }
    w.option(fallback.map(|i| number[i]))?;
    w.str(site.boundary)?;
    w.str(site.multipart_content_type)?;
    w.range(site_fields)?;
    w.str(site.fingerprinted_cache_control)?;
    w.u32(match site.shared_caches {
        SharedCaches::Private => 0,
        SharedCaches::Vary => 1,
    });
    w.str(site.store)?;
    write_rules(&mut w, site)?;
    w.finish()
}

/// An asset by what it holds: its values, and its pools' slices by address (sitegen's alternate
/// is a copy of its twin's asset, naming the same slices). Two assets with one key are one.
#[derive(PartialEq, Eq, Hash)]
struct AssetKey<'a> {
    text: [&'a str; 4],
    last_modified_unix: u64,
    slices: [(usize, usize); 4],
    has_alternate: bool,
}

impl<'a> AssetKey<'a> {
    fn of(asset: &Asset<'a>) -> AssetKey<'a> {
        AssetKey {
            text: [
                asset.content_type,
                asset.last_modified,
                asset.cache_control,
                asset.fingerprint,
            ],
            last_modified_unix: asset.last_modified_unix,
            slices: [
                (asset.fields.as_ptr() as usize, asset.fields.len()),
                (
                    asset.representations.as_ptr() as usize,
                    asset.representations.len(),
                ),
                (asset.deltas.as_ptr() as usize, asset.deltas.len()),
                (asset.variants.as_ptr() as usize, asset.variants.len()),
            ],
            has_alternate: asset.alternate.is_some(),
        }
    }
}

/// The assets' numbers as written, the assets written after the alternates and each one's
/// alternate: a routed asset that is one of the alternates (a twin, at its own URL) is written
/// once, as the alternate; an asset's number counts the alternates, then the others.
fn renumbered<'a>(
    numbered: &Numbered<'a>,
    alternates: &Numbered<'a>,
    alternate_of: &[Option<usize>],
) -> (Vec<usize>, Vec<&'a Asset<'a>>, Vec<Option<usize>>) {
    let by_value: HashMap<AssetKey<'_>, usize> = (alternates.assets.iter().enumerate())
        .map(|(i, a)| (AssetKey::of(a), i))
        .collect();
    let mut kept = Vec::new();
    let mut kept_alternates = Vec::new();
    let number = (numbered.assets.iter().zip(alternate_of))
        .map(
            |(asset, alternate)| match by_value.get(&AssetKey::of(asset)) {
                Some(&i) => i,
                None => {
                    kept.push(*asset);
                    kept_alternates.push(*alternate);
                    alternates.assets.len() + kept.len() - 1
                }
            },
        )
        .collect();
    (number, kept, kept_alternates)
}

/// The alternates `assets` name, numbered, and each asset's alternate's number.
fn alternates<'a>(assets: &[&'a Asset<'a>]) -> Result<(Numbered<'a>, Vec<Option<usize>>), Error> {
    let mut alternates = Numbered::new();
    let alternate_of = (assets.iter())
        .map(|asset| asset.alternate.map(|a| alternates.number(a)))
        .collect();
    if alternates.assets.iter().any(|a| a.alternate.is_some()) {
        return Err(error("an alternate with an alternate of its own"));
    }
    Ok((alternates, alternate_of))
}

/// `assets`, each with its ranges of the pools and its alternate's index among the alternates.
fn write_assets<'a>(
    w: &mut Writer<'a>,
    assets: &[&'a Asset<'a>],
    ranges: &[Ranges],
    alternates: &[Option<usize>],
) -> Result<(), Error> {
    w.len(assets.len())?;
    for ((asset, ranges), alternate) in assets.iter().zip(ranges).zip(alternates) {
        w.str(asset.content_type)?;
        w.str(asset.last_modified)?;
        w.u32(asset.last_modified_unix as u32);
        w.u32((asset.last_modified_unix >> 32) as u32);
        w.str(asset.cache_control)?;
        w.str(asset.fingerprint)?;
        for range in ranges {
            w.range(*range)?;
        }
        w.option(*alternate)?;
    }
    Ok(())
}

fn write_routes<'a>(
    w: &mut Writer<'a>,
    site: &Site<'a>,
    assets: &[Option<usize>],
) -> Result<(), Error> {
    w.len(site.routes.len())?;
    for (route, asset) in site.routes.iter().zip(assets) {
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
    Ok(())
}

/// The rules and their index: their pools (segments, destination parts, numbers, children),
/// then the rules and the nodes naming slices of them.
fn write_rules<'a>(w: &mut Writer<'a>, site: &Site<'a>) -> Result<(), Error> {
    let (mut segments, mut parts) = (Vec::new(), Vec::new());
    let mut rules = Vec::new();
    for rule in site.rules {
        let (Action::Redirect { destination, .. } | Action::Rewrite { destination }) = &rule.action;
        rules.push((
            push(&mut segments, rule.pattern),
            push(&mut parts, destination),
        ));
    }
    let (mut numbers, mut children) = (Vec::new(), Vec::new());
    let mut nodes = Vec::new();
    for node in site.rule_index {
        let keys = (numbers.len(), node.keys.len());
        numbers.extend_from_slice(node.keys);
        let matching = (numbers.len(), node.rules.len());
        numbers.extend_from_slice(node.rules);
        nodes.push([keys, push(&mut children, node.children), matching]);
    }
    write_rule_pools(w, &segments, &parts, &numbers, &children)?;
    w.len(site.rules.len())?;
    for (rule, (pattern, destination)) in site.rules.iter().zip(rules) {
        w.range(pattern)?;
        w.u32(u32::from(rule.splat));
        w.range(destination)?;
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
    w.len(nodes.len())?;
    for ranges in nodes {
        for range in ranges {
            w.range(range)?;
        }
    }
    Ok(())
}

fn write_rule_pools<'a>(
    w: &mut Writer<'a>,
    segments: &[&'a Segment<'a>],
    parts: &[&'a Part<'a>],
    numbers: &[u32],
    children: &[&'a (&'a str, u32)],
) -> Result<(), Error> {
    w.len(segments.len())?;
    for segment in segments {
        match segment {
            Segment::Literal(text) => {
                w.u32(0);
                w.str(text)?;
            }
            Segment::Placeholder => w.u32(1),
        }
    }
    w.len(parts.len())?;
    for part in parts {
        let (tag, n) = match part {
            Part::Literal(text) => {
                w.u32(0);
                w.str(text)?;
                continue;
            }
            Part::Capture(n) => (1, n),
            Part::QueryCapture(n) => (2, n),
        };
        w.u32(tag);
        w.len(*n)?;
    }
    w.len(numbers.len())?;
    for n in numbers {
        w.u32(*n);
    }
    w.len(children.len())?;
    for (segment, child) in children {
        w.str(segment)?;
        w.u32(*child);
    }
    Ok(())
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
            for n in [0, id, blob, offset, length] {
                w.u32(n);
            }
        }
        Content::Stored { id, store, length } => {
            w.u32(1);
            w.u32(id);
            w.u32(match store {
                Store::Assets => 0,
                Store::R2 => 1,
            });
            // Low then high 32 bits: the high half is 0, one byte, below 4 GiB.
            let length = length.get();
            w.u32(length as u32);
            w.u32((length >> 32) as u32);
        }
        Content::Decoded { id, from, length } => {
            for n in [2, id, u32::from(from), length] {
                w.u32(n);
            }
        }
    }
    Ok(())
}
