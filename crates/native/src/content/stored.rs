//! Bodies of representations kept in the store ([`Content::Stored`]): objects in a folder (the
//! build's `store/`, or the one `--store` names), read through the page cache, only the bytes
//! a body sends (a range reads its range). An object that is missing, or whose length is not
//! the one the tables name, is never sent: the answer is 503.

use super::Unavailable;
use bytes::Bytes;
use edgesite_core::{Body, Content, Piece, Representation};
use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::Path;

/// The content of `body` when its representation is stored; `None` when it is not.
pub(super) fn read(store: &Path, body: &Body<'static>) -> Option<Result<Bytes, Unavailable>> {
    let representation = match *body {
        Body::Representation { representation, .. } => representation,
        Body::Multipart(ref multipart) => multipart.representation(),
        Body::Empty | Body::Bytes(_) => return None,
    };
    let Content::Stored { key, length, .. } = representation.content else {
        return None;
    };
    Some(object(store, key, length).and_then(|file| send(&file, body, representation)))
}

/// The object `key`, checked to hold `length` bytes.
fn object(store: &Path, key: &str, length: u32) -> Result<File, Unavailable> {
    let file = File::open(store.join(key)).map_err(|_| Unavailable::Store)?;
    let metadata = file.metadata().map_err(|_| Unavailable::Store)?;
    if !metadata.is_file() || metadata.len() != u64::from(length) {
        return Err(Unavailable::Store);
    }
    Ok(file)
}

/// Bytes `first..=last` of `file`.
fn range(file: &File, first: u64, last: u64) -> Result<Vec<u8>, Unavailable> {
    let mut bytes = vec![0; usize::try_from(last - first + 1).map_err(|_| Unavailable::Store)?];
    file.read_exact_at(&mut bytes, first)
        .map_err(|_| Unavailable::Store)?;
    Ok(bytes)
}

fn send(
    file: &File,
    body: &Body<'static>,
    representation: &Representation<'_>,
) -> Result<Bytes, Unavailable> {
    match *body {
        Body::Representation { range: Some(r), .. } => {
            range(file, r.first, r.last).map(Bytes::from)
        }
        Body::Multipart(ref multipart) => {
            let mut assembled = Vec::with_capacity(multipart.byte_len() as usize);
            let mut failed = None;
            multipart.for_each_piece(|piece| match piece {
                Piece::Text(text) => assembled.extend_from_slice(text),
                Piece::Range(r) => match range(file, r.first, r.last) {
                    Ok(bytes) => assembled.extend_from_slice(&bytes),
                    Err(e) => failed = Some(e),
                },
            });
            failed.map_or(Ok(Bytes::from(assembled)), Err)
        }
        _ => match representation.length() {
            0 => Ok(Bytes::new()),
            length => range(file, 0, length - 1).map(Bytes::from),
        },
    }
}

#[cfg(test)]
mod tests {
    //! A store that fails: a missing object, one of another length (truncated) and one that
    //! grew are 503 with Retry-After, never a body; the object as built is 200.
    use edgesite_core::{Asset, ContentCoding, Representation, Route, Site, Target};

    fn site(store: &str, key: &'static str, length: u32) -> &'static Site<'static> {
        let representations = Box::leak(Box::new([Representation {
            coding: ContentCoding::Identity,
            etag: "\"object\"",
            content_length: Box::leak(length.to_string().into_boxed_str()),
            content: edgesite_core::Content::Stored { id: 0, key, length },
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

    fn get(site: &'static Site<'static>, range: Option<&str>) -> crate::Response {
        let mut request = hyper::Request::get("/f.bin").header("host", "localhost");
        if let Some(range) = range {
            request = request.header("range", range);
        }
        crate::respond_with(site, &request.body(()).unwrap())
    }

    #[test]
    fn a_missing_or_changed_object_is_503_with_retry_after_never_a_body() {
        let dir = std::env::temp_dir().join(format!("edgesite-store-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("o")).unwrap();
        let store = dir.to_str().unwrap();
        std::fs::write(dir.join("o/whole.bin"), b"0123456789").unwrap();
        std::fs::write(dir.join("o/short.bin"), b"01234").unwrap();
        std::fs::write(dir.join("o/long.bin"), b"0123456789+").unwrap();

        let whole = get(site(store, "o/whole.bin", 10), None);
        assert_eq!(whole.status(), 200);
        let range = get(site(store, "o/whole.bin", 10), Some("bytes=2-4"));
        assert_eq!(range.status(), 206);
        assert_eq!(range.headers()["content-length"], "3");
        for key in ["o/missing.bin", "o/short.bin", "o/long.bin"] {
            for range in [None, Some("bytes=2-4"), Some("bytes=0-1,5-6")] {
                let answer = get(site(store, key, 10), range);
                assert_eq!(answer.status(), 503, "{key} {range:?}");
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
}
