//! [`decode`]: a site's tables read back, every count, offset and index checked.

use crate::format::{error, Error, MAGIC, NONE, VERSION};
use edgesite_core::{
    Action, Asset, Content, ContentCoding, Delta, NotFoundPage, ObjectLength, Part, Redirect,
    RedirectStatus, Representation, Route, Rule, RuleNode, Segment, SharedCaches, Site, Store,
    Target, Variant,
};

/// The reader: the tables, where it is, the strings section as text, and the bytes a Worker
/// allocates for what it has decoded ([`Held`]).
struct Reader {
    bytes: &'static [u8],
    at: usize,
    strings: &'static str,
    held: u64,
}

/// What a decoded item takes in a Worker's memory: its size on wasm32, where the host's is
/// larger (pointers of eight bytes). Checked where it is true: a Worker's build fails if one
/// is not (the const assertions below), so the build's figure ([`decode_measured`]) is the
/// wasm's own.
trait Held {
    const WASM32: u64;
}

macro_rules! held {
    ($($item:ty => $bytes:literal,)*) => {$(
        impl Held for $item {
            const WASM32: u64 = $bytes;
        }
        #[cfg(target_arch = "wasm32")]
        const _: () = assert!(core::mem::size_of::<$item>() == $bytes);
    )*};
}

held! {
    (&'static str, &'static str) => 16,
    Representation<'static> => 40,
    Delta<'static> => 48,
    Variant<'static> => 48,
    Asset<'static> => 80,
    Route<'static> => 28,
    NotFoundPage<'static> => 12,
    Segment<'static> => 8,
    Part<'static> => 12,
    u32 => 4,
    (&'static str, u32) => 12,
    Rule<'static> => 32,
    RuleNode<'static> => 24,
}

impl Reader {
    /// After the magic, the version and the strings section.
    fn open(tables: &'static [u8]) -> Result<Reader, Error> {
        if tables.get(..4) != Some(MAGIC.as_slice()) {
            return Err(error("not edgesite tables"));
        }
        let mut r = Reader {
            bytes: tables,
            at: 4,
            strings: "",
            held: 0,
        };
        let version = r.fixed_u32()?;
        if version != VERSION {
            return Err(error(format!(
                "tables of version {version}, this edgesite reads {VERSION}: build again"
            )));
        }
        let length = r.fixed_u32()? as usize;
        let strings =
            r.at.checked_add(length)
                .and_then(|end| tables.get(r.at..end))
                .ok_or_else(truncated)?;
        r.strings = std::str::from_utf8(strings).map_err(|_| error("strings are not UTF-8"))?;
        r.at += length;
        Ok(r)
    }

    /// A number of the header: four bytes, little-endian.
    fn fixed_u32(&mut self) -> Result<u32, Error> {
        let end = self.at.checked_add(4).ok_or_else(truncated)?;
        let word = self.bytes.get(self.at..end).ok_or_else(truncated)?;
        self.at = end;
        Ok(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
    }

    /// A number, as an unsigned LEB128 varint of at most five bytes (the encoder's
    /// `Writer::u32`); one past 32 bits, or spelled longer than it needs, is corrupt.
    fn u32(&mut self) -> Result<u32, Error> {
        // Most numbers are under 128: one byte.
        if let Some(&byte) = self.bytes.get(self.at) {
            if byte < 0x80 {
                self.at += 1;
                return Ok(u32::from(byte));
            }
        }
        self.u32_long()
    }

    /// [`Reader::u32`] for a number of more than one byte (or none left).
    #[cold]
    fn u32_long(&mut self) -> Result<u32, Error> {
        let mut value: u64 = 0;
        for i in 0..5 {
            let byte = *self.bytes.get(self.at).ok_or_else(truncated)?;
            self.at += 1;
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                if i > 0 && byte == 0 {
                    return Err(error("a number spelled longer than it needs"));
                }
                return u32::try_from(value).map_err(|_| error("a number past 32 bits"));
            }
        }
        Err(error("a number past 32 bits"))
    }

    fn usize(&mut self) -> Result<usize, Error> {
        Ok(self.u32()? as usize)
    }

    /// A count of items, each at least `min_bytes` long (a byte per number it holds): never
    /// more than the bytes left hold, so a corrupt count cannot ask for a huge allocation.
    fn count(&mut self, min_bytes: usize) -> Result<usize, Error> {
        let n = self.usize()?;
        if n.saturating_mul(min_bytes) > self.bytes.len() - self.at {
            return Err(error("a count larger than the tables"));
        }
        Ok(n)
    }

    /// `count` items read by `item`, leaked.
    fn items<T: Held>(
        &mut self,
        min_bytes: usize,
        mut item: impl FnMut(&mut Reader) -> Result<T, Error>,
    ) -> Result<&'static [T], Error> {
        let n = self.count(min_bytes)?;
        self.held += n as u64 * T::WASM32;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(item(self)?);
        }
        Ok(Box::leak(items.into_boxed_slice()))
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

    /// A start and a length naming a slice of `pool`.
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

fn status(code: u32) -> Result<RedirectStatus, Error> {
    u16::try_from(code)
        .ok()
        .and_then(RedirectStatus::from_code)
        .ok_or_else(|| error(format!("{code} is not a redirect status")))
}

/// The site in `tables` (as [`crate::encode`] wrote it), its tables leaked: they live as long
/// as the process, as a `static`'s would (the site is for a `static` too: `LazyLock<Site>`). A
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
    decode_measured(tables, blobs).map(|(site, _)| site)
}

/// [`decode`], and the bytes a Worker's wasm memory holds for the decoded site beside the
/// tables it borrows its strings from: every decoded item at its size on wasm32 (the
/// allocator's few bytes an allocation aside). What the build holds a Worker to
/// (edgesite-sitegen's `[budget] max_memory_bytes`).
///
/// # Errors
/// As [`decode`].
pub fn decode_measured(
    tables: &'static [u8],
    blobs: &'static [&'static [u8]],
) -> Result<(Site<'static>, u64), Error> {
    let mut r = Reader::open(tables)?;
    let fields = r.items(4, |r| Ok((r.str()?, r.str()?)))?;
    let representations = r.items(9, |r| representation(r, blobs))?;
    let deltas = r.items(11, |r| {
        Ok(Delta {
            available_dictionary: r.str()?,
            representation: representation(r, blobs)?,
        })
    })?;
    let variants = r.items(11, |r| {
        Ok(Variant {
            content_type: r.str()?,
            representation: representation(r, blobs)?,
        })
    })?;
    let pools = Pools {
        fields,
        representations,
        deltas,
        variants,
    };
    let alternates = r.items(19, |r| asset(r, &pools, &[]))?;
    let others = r.items(19, |r| asset(r, &pools, alternates))?;
    // An asset's number counts the alternates (a twin's route names its alternate), then the
    // others.
    let assets = Numbered { alternates, others };
    let asset = |i: usize| assets.get(i);
    let routes = r.items(4, |r| route(r, &assets))?;
    // The core finds a route by binary search.
    if routes.windows(2).any(|pair| pair[0].path >= pair[1].path) {
        return Err(error("routes out of order"));
    }
    let not_found = r.items(3, |r| {
        Ok(NotFoundPage {
            folder: r.str()?,
            page: asset(r.usize()?)?,
        })
    })?;
    let site = Site {
        routes,
        not_found,
        fallback: r.option()?.map(asset).transpose()?,
        boundary: r.str()?,
        multipart_content_type: r.str()?,
        fields: r.slice(fields)?,
        fingerprinted_cache_control: r.str()?,
        shared_caches: match r.u32()? {
            0 => SharedCaches::Private,
            1 => SharedCaches::Vary,
            other => return Err(error(format!("shared caches {other}"))),
        },
        store: r.str()?,
        ..Site::EMPTY
    };
    let (rules, rule_index) = rules(&mut r)?;
    if r.at != tables.len() {
        return Err(error("bytes after the tables"));
    }
    let site = Site {
        rules,
        rule_index,
        ..site
    };
    Ok((site, r.held))
}

/// The decoded assets, numbered as the encoder does: the alternates, then the others.
struct Numbered {
    alternates: &'static [Asset<'static>],
    others: &'static [Asset<'static>],
}

impl Numbered {
    fn get(&self, i: usize) -> Result<&'static Asset<'static>, Error> {
        match i.checked_sub(self.alternates.len()) {
            None => self.alternates.get(i),
            Some(other) => self.others.get(other),
        }
        .ok_or_else(|| error("no such asset"))
    }
}

/// What assets name slices of.
struct Pools {
    fields: &'static [(&'static str, &'static str)],
    representations: &'static [Representation<'static>],
    deltas: &'static [Delta<'static>],
    variants: &'static [Variant<'static>],
}

/// An asset, held to what the core takes for granted: it has a representation (its identity),
/// a representation decoded on demand names one of its own, and its alternate is one of
/// `alternates` (which have none of their own: none is given for them).
fn asset(
    r: &mut Reader,
    pools: &Pools,
    alternates: &'static [Asset<'static>],
) -> Result<Asset<'static>, Error> {
    let asset = Asset {
        content_type: r.str()?,
        last_modified: r.str()?,
        last_modified_unix: u64::from(r.u32()?) | (u64::from(r.u32()?) << 32),
        cache_control: r.str()?,
        fingerprint: r.str()?,
        fields: r.slice(pools.fields)?,
        representations: r.slice(pools.representations)?,
        deltas: r.slice(pools.deltas)?,
        variants: r.slice(pools.variants)?,
        alternate: match r.option()? {
            Some(i) => Some(
                alternates
                    .get(i)
                    .ok_or_else(|| error("no such alternate"))?,
            ),
            None => None,
        },
    };
    if asset.representations.is_empty() {
        return Err(error("an asset without representations"));
    }
    let sources = asset.representations.len();
    let all = asset.representations.iter();
    let all = all.chain(asset.deltas.iter().map(|d| &d.representation));
    let mut all = all.chain(asset.variants.iter().map(|v| &v.representation));
    if all
        .any(|r| matches!(r.content, Content::Decoded { from, .. } if usize::from(from) >= sources))
    {
        return Err(error(
            "a representation decoded from one its asset does not have",
        ));
    }
    Ok(asset)
}

fn route(r: &mut Reader, assets: &Numbered) -> Result<Route<'static>, Error> {
    let path = r.str()?;
    let target = match r.u32()? {
        0 => Target::Asset(assets.get(r.usize()?)?),
        1 => Target::Redirect(Redirect {
            status: status(r.u32()?)?,
            location: r.str()?,
            query_at: r.option()?,
        }),
        tag => return Err(error(format!("a route of kind {tag}"))),
    };
    Ok(Route { path, target })
}

type Rules = (&'static [Rule<'static>], &'static [RuleNode<'static>]);

fn rules(r: &mut Reader) -> Result<Rules, Error> {
    let segments = r.items(1, |r| match r.u32()? {
        0 => Ok(Segment::Literal(r.str()?)),
        1 => Ok(Segment::Placeholder),
        tag => Err(error(format!("a segment of kind {tag}"))),
    })?;
    let parts = r.items(2, |r| match r.u32()? {
        0 => Ok(Part::Literal(r.str()?)),
        1 => Ok(Part::Capture(r.usize()?)),
        2 => Ok(Part::QueryCapture(r.usize()?)),
        tag => Err(error(format!("a part of kind {tag}"))),
    })?;
    let numbers = r.items(1, Reader::u32)?;
    let children = r.items(3, |r| Ok((r.str()?, r.u32()?)))?;
    let rules = r.items(6, |r| {
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
        Ok(Rule {
            pattern,
            splat,
            action,
        })
    })?;
    let nodes = r.items(6, |r| {
        Ok(RuleNode {
            keys: r.slice(numbers)?,
            children: r.slice(children)?,
            rules: r.slice(numbers)?,
        })
    })?;
    Ok((rules, nodes))
}

fn representation(
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
        0 => external(r, blobs)?,
        1 => Content::Stored {
            id: r.u32()?,
            store: match r.u32()? {
                0 => Store::Assets,
                1 => Store::R2,
                other => return Err(error(format!("store {other}"))),
            },
            length: stored_length(r)?,
        },
        2 => Content::Decoded {
            id: r.u32()?,
            from: u8::try_from(r.u32()?).map_err(|_| error("a representation past 255"))?,
            length: r.u32()?,
        },
        tag => return Err(error(format!("content of kind {tag}"))),
    };
    let representation = Representation {
        coding,
        etag,
        content_length,
        content,
    };
    // Content-Length is sent as this text: it must be the length.
    if content_length.parse::<u64>().ok() != Some(representation.length()) {
        return Err(error(format!(
            "a Content-Length of {content_length:?} for another length"
        )));
    }
    // A stored object is named by its ETag: the adapters read the name the core gives.
    if matches!(content, Content::Stored { .. }) && representation.object_key().is_none() {
        return Err(error(format!(
            "a stored representation whose ETag {etag} names no object"
        )));
    }
    Ok(representation)
}

/// A stored object's length: its low 32 bits, then its high ones.
fn stored_length(r: &mut Reader) -> Result<ObjectLength, Error> {
    let low = r.u32()?;
    let high = r.u32()?;
    Ok(ObjectLength::new(u64::from(high) << 32 | u64::from(low)))
}

/// Bytes in a blob: a slice of it when the blobs are given, else where they are.
fn external(r: &mut Reader, blobs: &'static [&'static [u8]]) -> Result<Content<'static>, Error> {
    let [id, blob, offset, length] = [r.u32()?, r.u32()?, r.u32()?, r.u32()?];
    if blobs.is_empty() {
        return Ok(Content::External {
            id,
            blob,
            offset,
            length,
        });
    }
    let start = offset as usize;
    blobs
        .get(blob as usize)
        .and_then(|b| b.get(start..start.checked_add(length as usize)?))
        .map(Content::Bytes)
        .ok_or_else(|| error("a representation outside its blob"))
}
