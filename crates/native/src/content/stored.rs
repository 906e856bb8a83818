//! Bodies of representations kept in the store ([`Content::Stored`]): objects in a folder (the
//! build's `store/`, or the one `--store` names), read through the page cache, only the bytes
//! a body sends (a range reads its range). An object that is missing, or whose length is not
//! the one the tables name, is never sent: the answer is 503.
//!
//! A body up to [`STREAM_FROM`] bytes is read whole and held in memory until it is sent; a
//! larger one is streamed: read in [`CHUNK`]s on the blocking pool, each once the body has room
//! for it (a channel of one), so one download holds at most three chunks (one being sent, one
//! waiting, one being read) however large the object. Either way the bytes read and not yet
//! sent are counted together and bounded ([`IN_FLIGHT_BYTES`]): a read past the bound waits, on
//! the blocking pool, for earlier bytes to be sent. Many downloads at once, or clients that do
//! not read, then queue instead of taking the process's memory. A read that fails after the
//! status was sent (the file shrank) breaks the transfer: the client never takes a short body
//! for a whole one.

use super::Unavailable;
use crate::Body as Sent;
use bytes::Bytes;
use edgesite_core::{Body, Content, Piece, Representation};
use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Bodies larger than this are streamed.
pub(crate) const STREAM_FROM: u64 = 512 * 1024;

/// The bytes a streamed body reads at a time.
const CHUNK: u64 = 256 * 1024;

/// The most bytes of stored objects held in memory at once, read and not yet sent.
pub(crate) const IN_FLIGHT_BYTES: u64 = 256 * 1024 * 1024;

/// The bytes held now, and the signal that some were sent.
static HELD: Mutex<u64> = Mutex::new(0);
static SENT: Condvar = Condvar::new();

fn held() -> MutexGuard<'static, u64> {
    HELD.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether `more` bytes may be held beside `now`: within the bound, or alone (one body larger
/// than the bound is read when nothing else is held).
fn fits(now: u64, more: u64) -> bool {
    now == 0 || now + more <= IN_FLIGHT_BYTES
}

/// A body's bytes, counted as held from before they are read until they are dropped (sent, or
/// given up on an error).
struct Held {
    bytes: Vec<u8>,
    counted: u64,
}

impl Held {
    /// Room for `counted` bytes, once they may be held (waiting until then).
    fn reserve(counted: u64) -> Held {
        let mut now = held();
        while !fits(*now, counted) {
            now = SENT.wait(now).unwrap_or_else(PoisonError::into_inner);
        }
        *now += counted;
        let capacity = usize::try_from(counted).unwrap_or(0);
        Held {
            bytes: Vec::with_capacity(capacity),
            counted,
        }
    }
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut now = held();
        *now = now.saturating_sub(self.counted);
        SENT.notify_all();
    }
}

/// The content of `body` when its representation is stored; `None` when it is not.
pub(super) fn read(store: &Path, body: &Body<'static>) -> Option<Result<Sent, Unavailable>> {
    let representation = match *body {
        Body::Representation { representation, .. } => representation,
        Body::Multipart(ref multipart) => multipart.representation(),
        Body::Empty | Body::Bytes(_) => return None,
    };
    let (Content::Stored { length, .. }, Some(key)) =
        (representation.content, representation.object_key())
    else {
        return None;
    };
    let key = key.to_string();
    Some(object(store, &key, length.get()).and_then(|file| send(file, body, representation)))
}

/// The object `key`, checked to hold `length` bytes.
fn object(store: &Path, key: &str, length: u64) -> Result<File, Unavailable> {
    let file = File::open(store.join(key)).map_err(|_| Unavailable::Store)?;
    let metadata = file.metadata().map_err(|_| Unavailable::Store)?;
    if !metadata.is_file() || metadata.len() != length {
        return Err(Unavailable::Store);
    }
    Ok(file)
}

/// Bytes `first..=last` of `file`, appended to `out`.
fn range(file: &File, first: u64, last: u64, out: &mut Vec<u8>) -> Result<(), Unavailable> {
    let at = out.len();
    let len = usize::try_from(last - first + 1).map_err(|_| Unavailable::Store)?;
    out.resize(at + len, 0);
    file.read_exact_at(&mut out[at..], first)
        .map_err(|_| Unavailable::Store)
}

fn send(
    file: File,
    body: &Body<'static>,
    representation: &Representation<'_>,
) -> Result<Sent, Unavailable> {
    if body.is_empty() {
        return Ok(Sent::from(Bytes::new()));
    }
    // Streamed from a runtime's task; a caller outside one (a program calling respond_with
    // itself) gets the body whole.
    let parts = pieces(body, representation);
    if let (true, Ok(runtime)) = (
        body.len() > STREAM_FROM,
        tokio::runtime::Handle::try_current(),
    ) {
        return Ok(stream(&runtime, file, parts, body.len()));
    }
    // Counted from here: an early return gives the bytes back as `out` drops.
    let mut out = Held::reserve(body.len());
    for part in &parts {
        match *part {
            Part::Text(ref text) => out.bytes.extend_from_slice(text),
            Part::Range(first, last) => range(&file, first, last, &mut out.bytes)?,
        }
    }
    Ok(Sent::from(Bytes::from_owner(out)))
}

/// A piece of a body, read whole or streamed: text (a multipart boundary and part fields) or
/// bytes `first..=last` of the object.
enum Part {
    Text(Bytes),
    Range(u64, u64),
}

/// What `body` sends, in order.
fn pieces(body: &Body<'static>, representation: &Representation<'_>) -> Vec<Part> {
    match *body {
        Body::Representation { range: Some(r), .. } => vec![Part::Range(r.first, r.last)],
        Body::Multipart(ref multipart) => {
            let mut parts = Vec::new();
            multipart.for_each_piece(|piece| match piece {
                Piece::Text(text) => parts.push(Part::Text(Bytes::copy_from_slice(text))),
                Piece::Range(r) => parts.push(Part::Range(r.first, r.last)),
            });
            parts
        }
        _ => vec![Part::Range(0, representation.length() - 1)],
    }
}

/// A body of `length` bytes streamed from `file`: a task on `runtime` reads each chunk on the
/// blocking pool once the body has room for it, and stops when the body is dropped (the
/// client went away) or a read fails (sent as the body's error).
fn stream(runtime: &tokio::runtime::Handle, file: File, parts: Vec<Part>, length: u64) -> Sent {
    let (chunks, taken) = tokio::sync::mpsc::channel(1);
    let file = Arc::new(file);
    runtime.spawn(async move {
        for part in parts {
            let (mut at, last) = match part {
                Part::Text(text) => {
                    if chunks.send(Ok(text)).await.is_err() {
                        return;
                    }
                    continue;
                }
                Part::Range(first, last) => (first, last),
            };
            while at <= last {
                let len = CHUNK.min(last - at + 1);
                let file = Arc::clone(&file);
                let read = tokio::task::spawn_blocking(move || {
                    // Counted until the chunk is sent (or dropped with the body).
                    let mut chunk = Held::reserve(len);
                    range(&file, at, at + len - 1, &mut chunk.bytes)
                        .map(|()| Bytes::from_owner(chunk))
                        .map_err(|_| std::io::Error::other("a stored object could not be read"))
                })
                .await
                .unwrap_or_else(|e| Err(std::io::Error::other(e)));
                let failed = read.is_err();
                if chunks.send(read).await.is_err() || failed {
                    return;
                }
                at += len;
            }
        }
    });
    Sent::streamed(taken, length)
}

#[cfg(test)]
mod tests {
    //! A store that fails: a missing object, one of another length (truncated) and one that
    //! grew are 503 with Retry-After, never a body; the object as built is 200.
    use edgesite_core::{Asset, ContentCoding, Representation, Route, Site, Target};

    /// A site whose one file, `/f.bin`, is an object of `length` bytes in `store`: object `n`
    /// (below 64), named by its ETag ([`Representation::object_key`]); see [`object`].
    fn site(store: &str, n: usize, length: u64) -> &'static Site<'static> {
        const DIGITS: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let etag = format!("\"{}{}A\"", "A".repeat(20), char::from(DIGITS[n]));
        let representations = Box::leak(Box::new([Representation {
            coding: ContentCoding::Identity,
            etag: Box::leak(etag.into_boxed_str()),
            content_length: Box::leak(length.to_string().into_boxed_str()),
            content: edgesite_core::Content::Stored {
                id: 0,
                store: edgesite_core::Store::Assets,
                length: edgesite_core::ObjectLength::new(length),
            },
        }]));
        let asset = Box::leak(Box::new(Asset {
            content_type: "application/octet-stream",
            last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
            last_modified_unix: 1_700_000_000,
            cache_control: "no-cache",
            fingerprint: "",
            fields: &[],
            representations: &representations[..],
            deltas: &[],
            variants: &[],
            alternate: None,
        }));
        let routes = Box::leak(Box::new([Route {
            path: "/f.bin",
            target: Target::Asset(asset),
        }]));
        Box::leak(Box::new(Site {
            routes: &routes[..],
            store: Box::leak(store.to_string().into_boxed_str()),
            ..Site::EMPTY
        }))
    }

    /// Where the object of `site`'s one file is.
    fn object(site: &Site<'_>) -> std::path::PathBuf {
        let Target::Asset(asset) = site.routes[0].target else {
            unreachable!("an asset")
        };
        let key = asset
            .identity()
            .object_key()
            .expect("a stored representation");
        std::path::Path::new(site.store).join(key.to_string())
    }

    fn get(site: &'static Site<'static>, range: Option<&str>) -> crate::Response {
        // (Called inside a runtime, it answers as the server does: a large body streamed.)
        let mut request = hyper::Request::get("/f.bin").header("host", "localhost");
        if let Some(range) = range {
            request = request.header("range", range);
        }
        crate::respond_with(site, &request.body(()).unwrap())
    }

    /// The tests that read stored bodies, one at a time: the count of held bytes is the
    /// process's.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn bodies_held_at_once_stay_within_the_bound() {
        use super::{fits, held, Held, IN_FLIGHT_BYTES};
        let _alone = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        assert!(
            fits(0, IN_FLIGHT_BYTES * 2),
            "one body alone, however large"
        );
        assert!(fits(IN_FLIGHT_BYTES - 10, 10));
        assert!(!fits(IN_FLIGHT_BYTES - 10, 11), "past the bound: it waits");
        // Reserving counts, dropping (the body sent) gives back; other tests may hold bytes
        // at the same time, so the check is on the difference this one makes.
        let body = bytes::Bytes::from_owner(Held::reserve(1000));
        let with = *held();
        assert!(with >= 1000);
        drop(body);
        assert!(*held() <= with - 1000, "sent: given back");
    }

    #[test]
    fn a_missing_or_changed_object_is_503_with_retry_after_never_a_body() {
        let _alone = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = std::env::temp_dir().join(format!("edgesite-store-{}", std::process::id()));
        let store = dir.to_str().unwrap();
        let [whole, missing, short, long] = [0, 1, 2, 3].map(|n| site(store, n, 10));
        std::fs::create_dir_all(object(whole).parent().unwrap()).unwrap();
        std::fs::write(object(whole), b"0123456789").unwrap();
        std::fs::write(object(short), b"01234").unwrap();
        std::fs::write(object(long), b"0123456789+").unwrap();
        assert!(!object(missing).exists());

        assert_eq!(get(whole, None).status(), 200);
        let range = get(whole, Some("bytes=2-4"));
        assert_eq!(range.status(), 206);
        assert_eq!(range.headers()["content-length"], "3");
        for (name, site) in [("missing", missing), ("short", short), ("long", long)] {
            for range in [None, Some("bytes=2-4"), Some("bytes=0-1,5-6")] {
                let answer = get(site, range);
                assert_eq!(answer.status(), 503, "{name} {range:?}");
                assert_eq!(
                    answer.headers()["retry-after"],
                    edgesite_core::STORE_RETRY_AFTER
                );
                assert_eq!(answer.headers()["cache-control"], "no-store");
                assert!(
                    answer.headers().get("etag").is_none(),
                    "no field of the file"
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An object past 4 GiB (R2 keeps them; here a sparse file): ranges near its end are its
    /// bytes there, and one past it is 416 with its whole length (RFC 9110 §14.4, §15.5.17).
    #[test]
    fn an_object_past_4_gib_is_read_where_its_ranges_are() {
        use std::os::unix::fs::FileExt as _;
        let _alone = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = std::env::temp_dir().join(format!("edgesite-huge-{}", std::process::id()));
        let length: u64 = 5 << 30;
        let huge = site(dir.to_str().unwrap(), 5, length);
        std::fs::create_dir_all(object(huge).parent().unwrap()).unwrap();
        let file = std::fs::File::create(object(huge)).unwrap();
        file.set_len(length).unwrap();
        file.write_all_at(b"0123456789", length - 10).unwrap();
        file.write_all_at(b"past 4 GiB", 1 << 32).unwrap();
        let body = |range: &str| {
            let answer = get(huge, Some(range));
            let status = answer.status();
            let content_range = answer.headers()["content-range"]
                .to_str()
                .unwrap()
                .to_string();
            let runtime = tokio::runtime::Runtime::new().unwrap();
            let bytes = runtime.block_on(collected(answer)).unwrap();
            (status.as_u16(), content_range, bytes)
        };
        assert_eq!(
            body("bytes=-10"),
            (
                206,
                "bytes 5368709110-5368709119/5368709120".into(),
                b"0123456789".to_vec()
            )
        );
        assert_eq!(
            body("bytes=4294967296-4294967305"),
            (
                206,
                "bytes 4294967296-4294967305/5368709120".into(),
                b"past 4 GiB".to_vec()
            )
        );
        let (status, content_range, _) = body("bytes=5368709120-");
        assert_eq!(
            (status, content_range.as_str()),
            (416, "bytes */5368709120")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The body of `response`, all of it, or the error it ended with.
    async fn collected(response: crate::Response) -> std::io::Result<Vec<u8>> {
        use http_body_util::BodyExt as _;
        let body = response.into_body().collect().await?;
        Ok(body.to_bytes().to_vec())
    }

    /// A body larger than STREAM_FROM is streamed in chunks, whole or in ranges, byte for byte;
    /// one whose file shrinks after the status was sent ends with an error (the transfer
    /// breaks), never short; outside a runtime the same body is read whole.
    #[test]
    fn a_large_body_is_streamed_and_one_that_ends_short_is_an_error() {
        use super::{CHUNK, STREAM_FROM};
        use http_body::Body as _;
        let _alone = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = std::env::temp_dir().join(format!("edgesite-stream-{}", std::process::id()));
        let store = dir.to_str().unwrap();
        let length = 4 * CHUNK + 123;
        let bytes: Vec<u8> = (0..length).map(|i| (i * 7 % 251) as u8).collect();
        let large = site(store, 4, length);
        std::fs::create_dir_all(object(large).parent().unwrap()).unwrap();
        std::fs::write(object(large), &bytes).unwrap();
        let runtime = tokio::runtime::Runtime::new().unwrap();

        let whole = runtime.block_on(async { get(large, None) });
        // A chunk read and not yet sent counts in the bound, as a whole body does.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while *super::held() < CHUNK && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(*super::held() >= CHUNK, "the chunk read ahead is counted");
        assert!(!whole.body().is_end_stream());
        assert_eq!(whole.body().size_hint().exact(), Some(length));
        assert!(
            format!("{:?}", whole.body()).contains("Streamed"),
            "larger than {STREAM_FROM}: streamed"
        );
        assert!(runtime.block_on(collected(whole)).unwrap() == bytes);

        // A range across chunks, and two ranges (multipart) across them.
        let (first, last) = (CHUNK - 10, 3 * CHUNK + 10);
        let range = runtime.block_on(async { get(large, Some(&format!("bytes={first}-{last}"))) });
        assert_eq!(range.status(), 206);
        let body = runtime.block_on(collected(range)).unwrap();
        assert!(body == bytes[first as usize..=last as usize]);
        let multipart = runtime.block_on(async {
            get(
                large,
                Some(&format!("bytes=0-{},{first}-{last}", CHUNK + 5)),
            )
        });
        assert_eq!(multipart.status(), 206);
        let length_field: usize = multipart.headers()["content-length"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let body = runtime.block_on(collected(multipart)).unwrap();
        assert_eq!(body.len(), length_field);
        let needle = &bytes[first as usize..=last as usize];
        assert!(body.windows(needle.len()).any(|w| w == needle));

        // Outside a runtime: whole, in memory.
        let outside = get(large, None);
        assert!(format!("{:?}", outside.body()).contains("Full"));

        // The file shrinks once the status is sent: the body ends with an error.
        let shrinking = runtime.block_on(async { get(large, None) });
        assert_eq!(shrinking.status(), 200);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(object(large))
            .unwrap();
        file.set_len(100).unwrap();
        let ended = runtime.block_on(collected(shrinking));
        assert!(ended.is_err(), "an error, not a short body");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
