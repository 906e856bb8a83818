//! The bytes of a response: slices of the embedded site, sent without copying, and the
//! representations compact storage did not keep (`Content::Decoded`), decoded on demand with
//! edgesite-decode and kept by recency (LRU) up to [`DECODED_CACHE_BYTES`], so a popular one is
//! decoded once. Concurrent requests for one representation that is not kept share one decode
//! (single flight): the first decodes, the others wait for its bytes. The objects of the site's
//! store (`Content::Stored`) are read from its folder (`stored.rs`). The server decodes and
//! reads files on the blocking pool ([`without_decoding`] gives what needs neither).

use bytes::Bytes;
use edgesite_core::{Body, Content, Representation, DECODED_CACHE_BYTES};
use lru::LruCache;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

mod stored;

/// Why a body could not be produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unavailable {
    /// A representation the build made cannot be had (a bug, or a hand-built site that breaks
    /// an invariant): 500.
    Internal,
    /// The store does not hold the object, or holds other bytes than the tables name: 503
    /// (edgesite_core::store_unavailable).
    Store,
}

/// A decoded representation: (site, id).
type Key = (usize, u32);

/// A decode in progress, shared by every request that waits for it.
type Flight = Arc<OnceLock<Option<Bytes>>>;

/// The decoded representations, least recently used first out, and the decodes in progress.
struct Cache {
    entries: LruCache<Key, Bytes>,
    bytes: usize,
    flights: HashMap<Key, Flight>,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn cache() -> MutexGuard<'static, Option<Cache>> {
    CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Cache {
    fn new() -> Cache {
        Cache {
            // Bounded by bytes, not entries (see `keep`).
            entries: LruCache::unbounded(),
            bytes: 0,
            flights: HashMap::new(),
        }
    }

    /// Keeps `bytes` as the most recent, dropping the least recently used past the bound.
    fn keep(&mut self, key: Key, bytes: Bytes) {
        if bytes.len() > DECODED_CACHE_BYTES {
            return;
        }
        self.bytes += bytes.len();
        if let Some(old) = self.entries.put(key, bytes) {
            self.bytes -= old.len();
        }
        while self.bytes > DECODED_CACHE_BYTES {
            let Some((_, gone)) = self.entries.pop_lru() else {
                break;
            };
            self.bytes -= gone.len();
        }
    }
}

/// The content of `body` if it can be produced without decoding (a slice of the site, or a
/// decoded representation the cache holds, taken from it at once): then the server builds the
/// answer on the runtime's thread. `None`: it must be decoded ([`bytes`], on the blocking pool).
pub(crate) fn without_decoding(
    site: usize,
    body: &Body<'static>,
) -> Option<Result<Bytes, Unavailable>> {
    let representation = match *body {
        Body::Empty | Body::Bytes(_) => return Some(bytes(site, body)),
        Body::Representation { representation, .. } => representation,
        Body::Multipart(ref multipart) => multipart.representation(),
    };
    let all = match representation.content {
        Content::Decoded { id, .. } => cache().as_mut()?.entries.get(&(site, id))?.clone(),
        Content::Bytes(_) | Content::External { .. } => return Some(bytes(site, body)),
        // Read from a file: on the blocking pool.
        Content::Stored { .. } => return None,
    };
    Some(Ok(cut(body, all)))
}

/// The content of `body` as a response body. `site` keys the cache (ids are unique per site);
/// `store` is where its stored objects are.
pub(crate) fn body(
    site: usize,
    store: &Path,
    body: &Body<'static>,
) -> Result<crate::Body, Unavailable> {
    match stored::read(store, body) {
        Some(read) => read,
        None => bytes(site, body).map(crate::Body::from),
    }
}

/// The content of `body`, not stored, as hyper bytes.
fn bytes(site: usize, body: &Body<'static>) -> Result<Bytes, Unavailable> {
    let all = match *body {
        Body::Empty => return Ok(Bytes::new()),
        Body::Bytes(bytes) => return Ok(Bytes::from_static(bytes)),
        Body::Representation {
            representation,
            source,
            ..
        } => whole(site, representation, source)?,
        Body::Multipart(ref multipart) => {
            whole(site, multipart.representation(), multipart.source())?
        }
    };
    Ok(cut(body, all))
}

/// What `body` sends of its representation's bytes `all`: a range of them, or the parts of a
/// multipart body around them.
fn cut(body: &Body<'static>, all: Bytes) -> Bytes {
    match *body {
        Body::Representation { range: Some(r), .. } => {
            all.slice(r.first as usize..=r.last as usize)
        }
        Body::Multipart(ref multipart) => {
            let mut assembled = Vec::with_capacity(multipart.byte_len() as usize);
            multipart.for_each_chunk(&all, |chunk| assembled.extend_from_slice(chunk));
            Bytes::from(assembled)
        }
        _ => all,
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
            let key = (site, id);
            let flight = {
                let mut guard = cache();
                let cache = guard.get_or_insert_with(Cache::new);
                if let Some(hit) = cache.entries.get(&key) {
                    return Ok(hit.clone());
                }
                cache.flights.entry(key).or_default().clone()
            };
            // The first request decodes; the others block here until its bytes are there.
            let decoded = flight
                .get_or_init(|| {
                    #[cfg(test)]
                    tests::DECODES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Content::Bytes(stored) = source?.content else {
                        return None;
                    };
                    let coding = source?.coding;
                    edgesite_decode::decode(coding, stored, length as usize)
                        .ok()
                        .map(Bytes::from)
                })
                .clone();
            let mut guard = cache();
            let cache = guard.get_or_insert_with(Cache::new);
            // Whoever comes first after the decode ends the flight and keeps the bytes.
            if cache
                .flights
                .get(&key)
                .is_some_and(|f| Arc::ptr_eq(f, &flight))
            {
                cache.flights.remove(&key);
                if let Some(bytes) = &decoded {
                    cache.keep(key, bytes.clone());
                }
            }
            decoded.ok_or(Unavailable::Internal)
        }
        // A Worker's layout: never built for the native twin; stored objects are read before.
        Content::External { .. } | Content::Stored { .. } => Err(Unavailable::Internal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Decodes run, for the single-flight test.
    pub(super) static DECODES: AtomicUsize = AtomicUsize::new(0);

    #[test]
    fn the_least_recently_used_goes_first_and_the_bound_holds() {
        let mut cache = Cache::new();
        let third = Bytes::from(vec![0u8; DECODED_CACHE_BYTES / 3]);
        cache.keep((1, 1), third.clone());
        cache.keep((1, 2), third.clone());
        cache.keep((1, 3), third.clone());
        // A hit makes 1 the most recent: 2 is the least recently used.
        assert!(cache.entries.get(&(1, 1)).is_some());
        cache.keep((1, 4), third.clone());
        assert!(
            !cache.entries.contains(&(1, 2)),
            "the least recently used went"
        );
        assert!(cache.entries.contains(&(1, 1)) && cache.entries.contains(&(1, 4)));
        assert!(cache.bytes <= DECODED_CACHE_BYTES);
        // Larger than the whole cache: not kept (sitegen stores such a file whole).
        cache.keep((1, 5), Bytes::from(vec![0u8; DECODED_CACHE_BYTES + 1]));
        assert!(!cache.entries.contains(&(1, 5)));
    }

    /// Eight requests at once for a representation that is not decoded yet: one decode, eight
    /// identical bodies; then it is kept.
    #[test]
    fn concurrent_requests_share_one_decode() {
        let dir = std::env::temp_dir().join(format!("edgesite-flight-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = "compact storage keeps gzip and decodes identity on demand\n".repeat(4000);
        std::fs::write(dir.join("big.txt"), &text).unwrap();
        let toml = "[compression]\nstore = \"compact\"\nbrotli_quality = 1\n";
        let config = edgesite_sitegen::Config::parse(toml, std::path::Path::new("t.toml")).unwrap();
        let options = edgesite_sitegen::Options::from_config(config, std::time::UNIX_EPOCH);
        let manifest = edgesite_sitegen::compile(&dir, &options).unwrap();
        let site = manifest.leak_site().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let asset = site
            .route("/big.txt")
            .and_then(|r| match r.target {
                edgesite_core::Target::Asset(a) => Some(a),
                edgesite_core::Target::Redirect(_) => None,
            })
            .unwrap();
        let identity = asset
            .representations
            .iter()
            .find(|r| matches!(r.content, Content::Decoded { .. }))
            .expect("identity decoded on demand");
        let Content::Decoded { from, .. } = identity.content else {
            unreachable!()
        };
        let source = &asset.representations[usize::from(from)];
        let body = Body::Representation {
            representation: identity,
            source: Some(source),
            range: None,
        };
        let key = site as *const _ as usize;
        assert!(without_decoding(key, &body).is_none());
        let before = DECODES.load(Ordering::Relaxed);
        let barrier = std::sync::Barrier::new(8);
        let bodies: Vec<Bytes> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        bytes(key, &body).unwrap()
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert_eq!(DECODES.load(Ordering::Relaxed) - before, 1, "one decode");
        assert!(bodies.iter().all(|b| b == text.as_bytes()));
        let kept = without_decoding(key, &body).expect("kept once decoded");
        assert_eq!(kept.unwrap(), text.as_bytes());
    }
}
