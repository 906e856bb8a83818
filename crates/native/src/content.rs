//! The bytes of a response: slices of the embedded site, sent without copying, and the
//! representations compact storage did not keep (`Content::Decoded`), decoded on demand with
//! edgesite-decode and kept in a bounded cache, so a popular one is decoded once.

use bytes::Bytes;
use edgesite_core::{Body, Content, Representation};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// The most decoded bytes kept; past it, the oldest entries go.
const CACHE_BYTES: usize = 32 * 1024 * 1024;

/// Why a body could not be produced (the answer is then a 500).
#[derive(Debug)]
pub(crate) struct Unavailable;

/// Decoded representations by (site, id), oldest first in `order`.
#[derive(Default)]
struct Cache {
    entries: HashMap<(usize, u32), Bytes>,
    order: VecDeque<(usize, u32)>,
    bytes: usize,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// The content of `body` as hyper bytes. `site` keys the cache (ids are unique per site).
pub(crate) fn bytes(site: usize, body: &Body<'static>) -> Result<Bytes, Unavailable> {
    match *body {
        Body::Empty => Ok(Bytes::new()),
        Body::Bytes(bytes) => Ok(Bytes::from_static(bytes)),
        Body::Representation {
            representation,
            source,
            range,
        } => {
            let all = whole(site, representation, source)?;
            Ok(match range {
                Some(r) => all.slice(r.first as usize..=r.last as usize),
                None => all,
            })
        }
        Body::Multipart(multipart) => {
            let all = whole(site, multipart.representation(), multipart.source())?;
            let mut assembled = Vec::with_capacity(multipart.byte_len() as usize);
            multipart.for_each_chunk(&all, |chunk| assembled.extend_from_slice(chunk));
            Ok(Bytes::from(assembled))
        }
    }
}

/// All the bytes of `representation`: its slice of the site, or decoded from `source`.
fn whole(
    site: usize,
    representation: &'static Representation<'static>,
    source: Option<&'static Representation<'static>>,
) -> Result<Bytes, Unavailable> {
    match representation.content {
        Content::Bytes(bytes) => Ok(Bytes::from_static(bytes)),
        Content::Decoded { id, length, .. } => {
            if let Some(hit) = cached(site, id) {
                return Ok(hit);
            }
            let source = source.ok_or(Unavailable)?;
            let Content::Bytes(stored) = source.content else {
                return Err(Unavailable);
            };
            let decoded = edgesite_decode::decode(source.coding, stored, length as usize)
                .map_err(|_| Unavailable)?;
            let decoded = Bytes::from(decoded);
            keep(site, id, decoded.clone());
            Ok(decoded)
        }
        // A Worker's layout: never built for the native twin.
        Content::External { .. } => Err(Unavailable),
    }
}

fn cached(site: usize, id: u32) -> Option<Bytes> {
    let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.as_ref()?.entries.get(&(site, id)).cloned()
}

fn keep(site: usize, id: u32, bytes: Bytes) {
    if bytes.len() > CACHE_BYTES {
        return;
    }
    let mut guard = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let cache = guard.get_or_insert_with(Cache::default);
    if let Some(old) = cache.entries.insert((site, id), bytes.clone()) {
        cache.bytes -= old.len();
    } else {
        cache.order.push_back((site, id));
    }
    cache.bytes += bytes.len();
    while cache.bytes > CACHE_BYTES {
        let Some(oldest) = cache.order.pop_front() else {
            break;
        };
        if let Some(gone) = cache.entries.remove(&oldest) {
            cache.bytes -= gone.len();
        }
    }
}
