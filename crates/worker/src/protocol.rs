//! The Worker's protocol between its JS half and wasm, defined once: here. The JS half (the
//! adapter's `bridge.js`, and the entry of a Worker that keeps the site's bytes outside wasm
//! memory, such as edgesite's `src/entry.js`) learns every name, address and number below at
//! start from [`start`], so a field added to [`REQUEST_FIELDS`] is read, written and decided
//! without a change on the JS side, and a layout the two sides disagree on cannot be built.
//!
//! Per request the JS half's one reader (`read` in `bridge.js`) writes what the core reads, the
//! request target and the fields of [`REQUEST_FIELDS`] (the client's own Accept-Encoding), into
//! the input buffer in wasm memory (`TextEncoder.encodeInto`, no string crosses the boundary)
//! and their lengths into [`SLOTS`] integers, and returns the method's code ([`METHODS`]). Then:
//!
//! - [`decide`] answers with one integer. A 200, a 304 or a 206 of one range of a
//!   representation held outside wasm memory (a blob, or the store) is [`Fast`] packed with the
//!   representation's id and whether the request is fingerprinted, `(id << 1 | fingerprinted)
//!   << KIND_BITS | kind`, with its blob ([`STORED`] for the store), offset and length, and a
//!   206's range, in the output area. A 200's and a 304's fields depend on these alone (the
//!   core renders them from it; the test `fast_answers_have_the_fields_of_their_representation`
//!   holds this), so the entry renders them once per representation with [`fields`], keeps
//!   them, and builds the Response from them, the blob's view (or the object it reads from the
//!   store) and the Date; a 206's are the 200's with its Content-Length and Content-Range
//!   (RFC 9110 §15.3.7; the test `a_fast_206_has_the_fields_the_core_renders` holds this);
//! - anything else is [`GENERAL`]: redirects, 404s, multipart 206s, errors, bytes decoded on
//!   demand, an object in the store past 4 GiB (the output area holds 32 bits), the
//!   SPA fallback's page and a page's Markdown twin at the page's URL (their fields are not
//!   their file's alone), which
//!   [`general`] renders from the same input in full (as library mode does for every request).
//!
//! The JS half makes no HTTP decision: it translates the core's answer.

use crate::js::{
    bridge_needed, bridge_read, bridge_start, joined_fields, to_js, BRIDGE_READ_FAILED,
};
use edgesite_core::{
    decide as core_decide, respond_into, Content, Outcome, RequestHead, Response, Scratch, Site,
    Store, REQUEST_FIELDS,
};
use std::cell::RefCell;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};
use wasm_bindgen::JsValue;

/// The input buffer's first size; a request whose target and fields do not fit makes it grow
/// (see [`with_request`]) and takes the general path that once.
pub const INPUT_CAPACITY: usize = 64 * 1024;

/// The most the input buffer grows to. Far above what a Worker is handed (Cloudflare limits a
/// URL to 16 KB and a request's header fields to 128 KB; field values are Latin-1 strings, at
/// most two bytes each in UTF-8); a larger request (bare workerd reads more) is answered 431.
pub const INPUT_LIMIT: usize = 1024 * 1024;

/// How many lengths the JS half writes per request: the target's, then each of
/// [`REQUEST_FIELDS`]'s in order (negative: the field is absent).
pub const SLOTS: usize = 1 + REQUEST_FIELDS.len();

/// The methods by code (a method's code is its index here); any other method has code
/// `METHODS.len()`, for which the core answers 405 (it needs no more of the method, RFC 9110
/// §9.1). GET first: the JS half tests the codes in this order.
pub const METHODS: [&str; 3] = ["GET", "HEAD", "OPTIONS"];

/// The low bits of [`decide`]'s answer that hold the [`Fast`] kind.
pub const KIND_BITS: u32 = 3;

/// What [`decide`] returns for an answer the entry builds from what it keeps, in the low
/// [`KIND_BITS`]: `(id << 1 | fingerprinted) << KIND_BITS | kind`, where `fingerprinted` is
/// [`edgesite_core::Decision::fingerprinted`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fast {
    /// 200 with the representation's bytes.
    Ok = 1,
    /// 200 to HEAD: the same fields, no content.
    OkHead = 2,
    /// 304 Not Modified.
    NotModified = 3,
    /// 206 with one range of the representation (RFC 9110 §15.3.7): the 200's fields with
    /// Content-Length the range's and its Content-Range, the range in the output area.
    Partial = 4,
}

/// What [`decide`] returns when the answer takes the general path.
pub const GENERAL: i32 = -1;

thread_local! {
    static INPUT: RefCell<Vec<u8>> = RefCell::new(vec![0; INPUT_CAPACITY]);
}

/// The lengths the JS half writes (see [`SLOTS`]).
static LENGTHS: [AtomicI32; SLOTS] = [const { AtomicI32::new(-1) }; SLOTS];

/// The blob, offset and length of the representation of the last fast answer (for one in the
/// store, [`STORED`] in place of the blob: the entry asks its key once, [`stored_key`]), and
/// for a [`Fast::Partial`] the first and last bytes of its range.
static OUTPUT: [AtomicU32; 5] = [const { AtomicU32::new(0) }; 5];

/// The output's blob for a representation in the store ([`Content::Stored`]).
pub const STORED: u32 = u32::MAX;

/// Where everything is, as the JS half reads it at start (`bridge.js` names each one):
/// the input buffer's address and capacity, the lengths' address and count, the output area's
/// address, [`KIND_BITS`], three of [`Fast`]'s kinds, [`GENERAL`], [`STORED`] (as an i32) and
/// [`Fast::Partial`].
pub fn layout() -> [i32; 12] {
    let (input, capacity) = input();
    [
        input as i32,
        capacity as i32,
        LENGTHS.as_ptr() as i32,
        SLOTS as i32,
        OUTPUT.as_ptr() as i32,
        KIND_BITS as i32,
        Fast::Ok as i32,
        Fast::OkHead as i32,
        Fast::NotModified as i32,
        GENERAL,
        STORED as i32,
        Fast::Partial as i32,
    ]
}

/// Hands the protocol to the JS half (once per instance; the adapter calls it before its first
/// read, and again when the input grows) and returns what the JS half made of it, which a
/// Worker's own entry uses for its fast path: the reader (`read`), the output area (`output()`,
/// and a 206's `range()`), `fieldPairs`, the store's reads (`object` for a 200, `part` for a
/// 206), and the answer's layout (`kindBits`, `ok`, `okHead`, `notModified`, `partial`,
/// `general`, `stored`).
pub fn start() -> JsValue {
    bridge_start(
        &wasm_bindgen::memory(),
        &layout(),
        &REQUEST_FIELDS.join("\0"),
        &METHODS.join("\0"),
    )
}

/// The input buffer's address and capacity. It moves only when it grows ([`reserve`]), which
/// tells the JS half.
fn input() -> (u32, usize) {
    INPUT.with(|buf| {
        let buf = buf.borrow();
        (buf.as_ptr() as u32, buf.len())
    })
}

/// Grows the input buffer to hold `bytes` (up to [`INPUT_LIMIT`]) and hands the JS half the new
/// layout; false if `bytes` is over the limit.
pub(crate) fn reserve(bytes: usize) -> bool {
    if bytes > INPUT_LIMIT {
        return false;
    }
    INPUT.with(|buf| {
        let mut buf = buf.borrow_mut();
        if buf.len() < bytes {
            buf.resize(bytes, 0);
        }
    });
    start();
    true
}

/// Why a request could not be read into wasm memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unread {
    /// Its target and the fields the core reads are more than [`INPUT_LIMIT`] bytes: the
    /// answer is 431 (RFC 6585 §5), as a server that will not read so large a head says.
    TooLarge,
    /// The lengths the JS half wrote do not describe the input (a bug: a 500).
    Malformed,
}

impl From<Unread> for JsValue {
    fn from(_: Unread) -> JsValue {
        JsValue::from_str(BRIDGE_READ_FAILED)
    }
}

/// Has the JS half's reader write `request` into wasm memory (the input grows once if it does not
/// fit) and calls `f` with its head: library mode's way in, and the general path's for a request
/// the entry could not write.
///
/// # Errors
/// [`Unread`]: a request too large for the input, or lengths that do not describe it.
pub fn with_request<T>(
    request: &web_sys::Request,
    f: impl FnOnce(&RequestHead<'_>) -> T,
) -> Result<T, Unread> {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        start();
    });
    let mut code = bridge_read(request);
    if code < 0 {
        if !reserve(bridge_needed()) {
            return Err(Unread::TooLarge);
        }
        code = bridge_read(request);
    }
    u32::try_from(code)
        .ok()
        .and_then(|code| with_head(code, f))
        .ok_or(Unread::Malformed)
}

/// The method of a code from the JS half.
fn method(code: u32) -> &'static str {
    METHODS.get(code as usize).copied().unwrap_or("POST")
}

/// Calls `f` with the request head the JS half wrote. `None` if the lengths do not describe the
/// buffer.
pub(crate) fn with_head<T>(code: u32, f: impl FnOnce(&RequestHead<'_>) -> T) -> Option<T> {
    head_of(code, true, f)
}

/// [`with_head`], without its Range unless `keep_range` (the fields of a 206's 200).
fn head_of<T>(code: u32, keep_range: bool, f: impl FnOnce(&RequestHead<'_>) -> T) -> Option<T> {
    INPUT.with(|buf| {
        let buf = buf.borrow();
        let mut rest: &[u8] = &buf;
        let length = |slot: &AtomicI32| slot.load(Ordering::Relaxed);
        let (target_slot, field_slots) = LENGTHS.split_first()?;
        let target = take(&mut rest, length(target_slot))?;
        let mut head = RequestHead::new(method(code), std::str::from_utf8(target).ok()?);
        for (name, slot) in REQUEST_FIELDS.iter().zip(field_slots) {
            let len = length(slot);
            if len >= 0 {
                let value = take(&mut rest, len)?;
                if keep_range || *name != "range" {
                    head.set_field(name, value);
                }
            }
        }
        Some(f(&head))
    })
}

/// The next `len` bytes of `rest`.
fn take<'b>(rest: &mut &'b [u8], len: i32) -> Option<&'b [u8]> {
    let len = usize::try_from(len).ok()?;
    let (head, tail) = (rest.get(..len)?, rest.get(len..)?);
    *rest = tail;
    Some(head)
}

/// The compact answer to the request in the input buffer (see the module docs).
pub fn decide(site: &Site<'_>, code: u32) -> i32 {
    with_head(code, |head| {
        let mut scratch = Scratch::new();
        let decision = core_decide(site, head, &mut scratch);
        // The SPA fallback's page has the fields of its file and more (Vary, the shared caches'
        // field): not the representation's alone, so not a fast answer. Nor has a page's
        // Markdown twin at the page's URL (Vary names Accept there, not at the twin's own).
        let twin_at_page = decision.by_accept
            && (decision.outcome.resource()).is_some_and(|asset| asset.alternate.is_none());
        if decision.by_navigation || twin_at_page {
            return GENERAL;
        }
        let (kind, representation, range) = match decision.outcome {
            Outcome::Ok { representation, .. } if decision.head => {
                (Fast::OkHead, representation, None)
            }
            Outcome::Ok { representation, .. } => (Fast::Ok, representation, None),
            Outcome::NotModified { representation, .. } => {
                (Fast::NotModified, representation, None)
            }
            Outcome::PartialContent {
                representation,
                range,
                ..
            } if !decision.head => (Fast::Partial, representation, Some(range)),
            _ => return GENERAL,
        };
        let (id, blob, offset, length) = match representation.content {
            Content::External {
                id,
                blob,
                offset,
                length,
            } => (id, blob, offset, length),
            // The output area holds 32-bit lengths: a larger object takes the general path.
            Content::Stored { id, length, .. } => match u32::try_from(length.get()) {
                Ok(length) => (id, STORED, 0, length),
                Err(_) => return GENERAL,
            },
            Content::Bytes(_) | Content::Decoded { .. } => return GENERAL,
        };
        // A range of a representation that fits the slots fits them too.
        let (first, last) = range.map_or((0, 0), |r| (r.first as u32, r.last as u32));
        for (slot, value) in OUTPUT.iter().zip([blob, offset, length, first, last]) {
            slot.store(value, Ordering::Relaxed);
        }
        // A fingerprinted request's fields differ only in Cache-Control: it is another key. Ids
        // that do not fit beside that bit and the kind are answered by the general path.
        i32::try_from(id)
            .ok()
            .filter(|&id| id < 1 << (30 - KIND_BITS))
            .map_or(GENERAL, |id| {
                (id << 1 | i32::from(decision.fingerprinted)) << KIND_BITS | kind as i32
            })
    })
    .unwrap_or(GENERAL)
}

/// The fields of the answer to the request in the input buffer, as `name NUL value NUL ...`
/// (without Date): what the entry keeps per representation for its fast answers. Those of the
/// 200 for a [`Fast::Partial`] (the request without its Range): the entry keeps the 200's
/// and makes the 206's from them.
pub fn fields(site: &Site<'_>, code: u32) -> String {
    head_of(code, false, |head| {
        let mut response = Response::new();
        respond_into(site, head, &mut response);
        joined_fields(&response, |fields, _| fields.to_string())
    })
    .unwrap_or_default()
}

/// The store's key of the representation the request in the input buffer is answered with,
/// and whether R2 holds it (else Static Assets): the entry keeps both per representation, for
/// the fast answers [`decide`] marks [`STORED`]; an empty key if it is not in the store.
pub fn stored_key(site: &Site<'_>, code: u32) -> (String, bool) {
    with_head(code, |head| {
        let mut scratch = Scratch::new();
        match core_decide(site, head, &mut scratch).outcome {
            Outcome::Ok { representation, .. }
            | Outcome::NotModified { representation, .. }
            | Outcome::PartialContent { representation, .. } => {
                match (representation.content, representation.object_key()) {
                    (Content::Stored { store, .. }, Some(key)) => {
                        (key.to_string(), store == Store::R2)
                    }
                    _ => (String::new(), false),
                }
            }
            _ => (String::new(), false),
        }
    })
    .unwrap_or_default()
}

/// The answer when the store fails (`edgesite_core::store_unavailable`: 503, Retry-After).
pub fn unavailable() -> Result<web_sys::Response, JsValue> {
    let mut response = Response::new();
    edgesite_core::store_unavailable(&mut response);
    crate::js::to_web_sys(&response)
}

/// The whole answer to the request in the input buffer, built in JS from the rendered fields
/// and the body: a Response, or a Promise of one when the body is read from the store.
pub fn general(site: &Site<'_>, code: u32) -> Result<JsValue, JsValue> {
    with_head(code, |head| answer(site, head))
        .unwrap_or_else(|| Err(JsValue::from_str(BRIDGE_READ_FAILED)))
}

/// The core's answer to `head` from `site`: a Response, or a Promise of one when its body is
/// read from the store.
pub(crate) fn answer(site: &Site<'_>, head: &RequestHead<'_>) -> Result<JsValue, JsValue> {
    let mut response = Response::new();
    respond_into(site, head, &mut response);
    to_js(&response)
}

#[cfg(test)]
mod tests {
    //! The fast path's premise: every request [`decide`] answers with the same key gets the same
    //! fields from the core (what the JS half keeps per key and reuses).
    use super::*;
    use edgesite_core::{Asset, ContentCoding, Representation, Route, Target};
    use std::collections::HashMap;

    static ASSET: Asset<'static> = Asset {
        deltas: &[],
        variants: &[],
        alternate: None,
        content_type: "text/css; charset=utf-8",
        last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
        last_modified_unix: 1_700_000_000,
        cache_control: "public, max-age=0, must-revalidate",
        fingerprint: "0123abcdef",
        fields: &[("x-frame-options", "DENY")],
        representations: &[
            Representation {
                coding: ContentCoding::Identity,
                etag: "\"identity\"",
                content_length: "100",
                content: Content::External {
                    id: 0,
                    blob: 0,
                    offset: 0,
                    length: 100,
                },
            },
            Representation {
                coding: ContentCoding::Br,
                etag: "\"br\"",
                content_length: "40",
                content: Content::External {
                    id: 1,
                    blob: 0,
                    offset: 100,
                    length: 40,
                },
            },
        ],
    };

    static SITE: Site<'static> = Site {
        routes: &[Route {
            path: "/style.css",
            target: Target::Asset(&ASSET),
        }],
        ..Site::EMPTY
    };

    /// Held by each test that writes requests: the lengths are one static, as in the Worker's
    /// one thread.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Writes `target` and `fields` (name, value) into the input buffer and the lengths, as the
    /// JS half's reader does.
    fn write(target: &str, fields: &[(&str, &str)]) {
        let mut bytes = target.as_bytes().to_vec();
        LENGTHS[0].store(target.len() as i32, Ordering::Relaxed);
        for (name, slot) in REQUEST_FIELDS.iter().zip(&LENGTHS[1..]) {
            match fields.iter().find(|(n, _)| n == name) {
                Some((_, value)) => {
                    bytes.extend_from_slice(value.as_bytes());
                    slot.store(value.len() as i32, Ordering::Relaxed);
                }
                None => slot.store(-1, Ordering::Relaxed),
            }
        }
        INPUT.with(|input| input.borrow_mut()[..bytes.len()].copy_from_slice(&bytes));
    }

    #[test]
    fn fast_answers_have_the_fields_of_their_representation() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let targets = [
            "/style.css",
            "/style.css?v=0123abcdef",
            "/style.css?x=1&v=0123abcdef",
            "/style.css?v=ffffffffff",
        ];
        let encodings = [None, Some("br"), Some("gzip, br;q=0.5"), Some("identity")];
        let validators = [None, Some("\"identity\""), Some("\"br\""), Some("W/\"br\"")];
        let mut kept: HashMap<i32, String> = HashMap::new();
        let mut keys_by_versioning = [0, 0];
        let mut requests = Vec::new();
        for target in targets {
            for encoding in encodings {
                for validator in validators {
                    requests.extend([0, 1].map(|code| (code, target, encoding, validator)));
                }
            }
        }
        for (code, target, encoding, validator) in requests {
            let mut fields = Vec::new();
            fields.extend(encoding.map(|e| ("accept-encoding", e)));
            fields.extend(validator.map(|v| ("if-none-match", v)));
            write(target, &fields);
            let compact = decide(&SITE, code);
            assert!(
                compact >= 0,
                "{target} {fields:?}: every one is a 200 or 304"
            );
            let kind = compact & ((1 << KIND_BITS) - 1);
            let key = (compact >> KIND_BITS) * 2 + i32::from(kind == Fast::NotModified as i32);
            let rendered = self::fields(&SITE, code);
            let fingerprinted = rendered.contains("immutable");
            assert_eq!(
                fingerprinted,
                (compact >> KIND_BITS) & 1 == 1,
                "{target}: the fingerprinted bit"
            );
            match kept.get(&key) {
                Some(first) => assert_eq!(first, &rendered, "{target} {fields:?}"),
                None => {
                    keys_by_versioning[usize::from(fingerprinted)] += 1;
                    kept.insert(key, rendered);
                }
            }
        }
        // 200 and 304 of two representations, each fingerprinted or not (HEAD shares a 200's key).
        assert_eq!(keys_by_versioning, [4, 4]);
    }

    static PAGE_BYTES: [Representation<'static>; 1] = [Representation {
        coding: ContentCoding::Identity,
        etag: "\"page\"",
        content_length: "10",
        content: Content::External {
            id: 2,
            blob: 0,
            offset: 0,
            length: 10,
        },
    }];

    static TWIN_BYTES: [Representation<'static>; 1] = [Representation {
        coding: ContentCoding::Identity,
        etag: "\"twin\"",
        content_length: "5",
        content: Content::External {
            id: 3,
            blob: 0,
            offset: 10,
            length: 5,
        },
    }];

    static TWIN: Asset<'static> = Asset {
        content_type: "text/markdown; charset=utf-8",
        fingerprint: "",
        fields: &[("x-markdown-tokens", "2")],
        representations: &TWIN_BYTES,
        ..ASSET
    };

    static PAGE: Asset<'static> = Asset {
        content_type: "text/html; charset=utf-8",
        fingerprint: "",
        representations: &PAGE_BYTES,
        alternate: Some(&TWIN),
        ..ASSET
    };

    static PAGES: Site<'static> = Site {
        routes: &[
            Route {
                path: "/guide",
                target: Target::Asset(&PAGE),
            },
            Route {
                path: "/guide.md",
                target: Target::Asset(&TWIN),
            },
        ],
        ..Site::EMPTY
    };

    /// `name NUL value NUL ...` as sorted pairs.
    fn pairs(joined: &str) -> Vec<(String, String)> {
        let list: Vec<&str> = joined.split('\0').collect();
        let mut pairs: Vec<(String, String)> = list
            .chunks_exact(2)
            .map(|p| (p[0].to_string(), p[1].to_string()))
            .collect();
        pairs.sort();
        pairs
    }

    /// RFC 9110 §15.3.7: a 206 with one part carries Content-Range and the fields its 200
    /// would. The entry makes a fast 206's fields from the 200's it keeps for the
    /// representation (what [`fields`] renders for it: the request without its Range), with the
    /// range's Content-Length and its Content-Range; they must be the ones the core renders for
    /// the request, with the range in the output area. Several ranges, HEAD and a failed
    /// If-Range are not fast 206s.
    #[test]
    fn a_fast_206_has_the_fields_the_core_renders() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut kept: HashMap<i32, String> = HashMap::new();
        let ranges = [
            "bytes=0-9",
            "bytes=-5",
            "bytes=30-",
            "bytes=0-",
            "bytes=5-5",
        ];
        let encodings = [None, Some("br")];
        let if_ranges = [
            None,
            Some("\"identity\""),
            Some("\"br\""),
            Some("\"other\""),
        ];
        let targets = ["/style.css", "/style.css?v=0123abcdef"];
        let mut partials = 0;
        let mut requests = Vec::new();
        for target in targets {
            for range in ranges {
                for encoding in encodings {
                    requests.extend(if_ranges.map(|i| (target, range, encoding, i)));
                }
            }
        }
        for (target, range, encoding, if_range) in requests {
            let mut fields = vec![("range", range)];
            fields.extend(encoding.map(|e| ("accept-encoding", e)));
            fields.extend(if_range.map(|v| ("if-range", v)));
            write(target, &fields);
            let compact = decide(&SITE, 0);
            let rendered = with_head(0, |head| {
                let mut response = Response::new();
                respond_into(&SITE, head, &mut response);
                let range = match response.body {
                    edgesite_core::Body::Representation { range, .. } => range,
                    _ => None,
                };
                let joined = joined_fields(&response, |f, _| f.to_string());
                (response.status, joined, range.map(|r| (r.first, r.last)))
            })
            .unwrap();
            let (status, full, range) = rendered;
            if compact & ((1 << KIND_BITS) - 1) != Fast::Partial as i32 {
                assert_ne!(status, 206, "{target} {fields:?}: a 206 is fast");
                continue;
            }
            partials += 1;
            let (first, last) = range.expect("a 206 of one range");
            let slots = OUTPUT
                .each_ref()
                .map(|slot| u64::from(slot.load(Ordering::Relaxed)));
            assert_eq!((slots[3], slots[4]), (first, last), "{target} {fields:?}");
            // The 200's fields, as the entry keeps them for this representation's key.
            let ok = self::fields(&SITE, 0);
            let key = (compact >> KIND_BITS) * 2;
            assert_eq!(kept.entry(key).or_insert_with(|| ok.clone()), &ok);
            let mut made: Vec<(String, String)> = pairs(&ok)
                .into_iter()
                .filter(|(name, _)| name != "content-length")
                .collect();
            made.push(("content-length".into(), (last - first + 1).to_string()));
            let complete = slots[2];
            made.push((
                "content-range".into(),
                format!("bytes {first}-{last}/{complete}"),
            ));
            made.sort();
            assert_eq!(made, pairs(&full), "{target} {fields:?}");
        }
        assert!(partials >= 40, "{partials} fast 206s");
        // Several ranges (multipart), HEAD and an If-Range that fails are not.
        for (method, fields) in [
            (0, vec![("range", "bytes=0-1, 5-6")]),
            (1, vec![("range", "bytes=0-9")]),
            (0, vec![("range", "bytes=0-9"), ("if-range", "\"other\"")]),
        ] {
            write("/style.css", &fields);
            let kind = decide(&SITE, method) & ((1 << KIND_BITS) - 1);
            assert_ne!(kind, Fast::Partial as i32, "{method} {fields:?}");
        }
    }

    /// A stored object's length goes in the output area's 32-bit slot: one that fits takes the
    /// fast path with its length, a larger one (R2 keeps objects past 4 GiB) the general path,
    /// which hands its length to the JS half as a Number.
    #[test]
    fn a_stored_object_past_32_bits_takes_the_general_path() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let stored = |length: u64| {
            let representations = Box::leak(Box::new([Representation {
                coding: ContentCoding::Identity,
                etag: "\"AAAAAAAAAAAAAAAAAAAAAA\"",
                content_length: Box::leak(length.to_string().into_boxed_str()),
                content: Content::Stored {
                    id: 5,
                    store: Store::R2,
                    length: edgesite_core::ObjectLength::new(length),
                },
            }]));
            let asset = Box::leak(Box::new(Asset {
                content_type: "video/mp4",
                fingerprint: "",
                representations: &representations[..],
                ..ASSET
            }));
            let routes = Box::leak(Box::new([Route {
                path: "/talk.mp4",
                target: Target::Asset(asset),
            }]));
            &*Box::leak(Box::new(Site {
                routes: &routes[..],
                ..Site::EMPTY
            }))
        };
        for (length, fast) in [
            (u64::from(u32::MAX), true),
            (1 << 32, false),
            (5 << 30, false),
        ] {
            let site = stored(length);
            write("/talk.mp4", &[]);
            let compact = decide(site, 0);
            assert_eq!(compact != GENERAL, fast, "{length}");
            if fast {
                let [blob, _, written, ..] =
                    OUTPUT.each_ref().map(|slot| slot.load(Ordering::Relaxed));
                assert_eq!((blob, u64::from(written)), (STORED, length));
                // The entry asks its key once, for a 200 or a 206 alike.
                write("/talk.mp4", &[("range", "bytes=0-9")]);
                assert_eq!(
                    decide(site, 0) & ((1 << KIND_BITS) - 1),
                    Fast::Partial as i32
                );
                let (key, r2) = stored_key(site, 0);
                assert_eq!(
                    (key.as_str(), r2),
                    ("_edgesite/r/00000000000000000000000000000000.bin", true)
                );
            }
        }
    }

    /// A page's Markdown twin at the page's URL varies by Accept and the same twin at its own
    /// URL does not: the first takes the general path, so what the JS half keeps for the
    /// twin's representation is always its own URL's fields.
    #[test]
    fn a_twin_at_its_pages_url_takes_the_general_path() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut kept: HashMap<i32, String> = HashMap::new();
        let markdown = Some("text/markdown");
        let requests = [
            ("/guide", markdown),
            ("/guide.md", None),
            ("/guide.md", markdown),
            ("/guide", Some("text/html")),
            ("/guide", None),
            ("/guide", markdown),
        ];
        for (target, accept) in requests {
            write(
                target,
                &accept
                    .map(|a| ("accept", a))
                    .into_iter()
                    .collect::<Vec<_>>(),
            );
            let compact = decide(&PAGES, 0);
            let rendered = fields(&PAGES, 0);
            let twin_at_page = target == "/guide" && accept == markdown;
            assert_eq!(compact == GENERAL, twin_at_page, "{target} {accept:?}");
            if compact >= 0 {
                let first = kept.entry(compact).or_insert_with(|| rendered.clone());
                assert_eq!(first, &rendered, "{target} {accept:?}");
            }
            let mut parts = rendered.split('\0');
            let vary = std::iter::from_fn(|| Some((parts.next()?, parts.next()?)))
                .find(|(name, _)| *name == "vary")
                .map(|(_, value)| value);
            assert_eq!(vary == Some("accept"), target == "/guide", "{rendered:?}");
        }
        assert_eq!(kept.len(), 2, "the page's representation and the twin's");
    }
}
