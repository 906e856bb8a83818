//! The wasm half of a Worker entry that answers most requests without a string crossing the
//! boundary (edgesite's own entry, `src/worker-shim.js`, is the JS half).
//!
//! Per request the JS half writes what the core reads (the request target and the fields of
//! [`REQUEST_FIELDS`], the client's own Accept-Encoding first) into the [`input`] buffer in
//! wasm memory (`TextEncoder.encodeInto`, no allocation) and calls [`decide`] with the method
//! and their lengths. [`decide`] answers with a few integers:
//!
//! - a 200 or a 304 of a representation held outside wasm memory: [`Fast`] packed with the
//!   representation's id and whether the request is fingerprinted, and in [`output`] its blob,
//!   offset and length. A 200's and a 304's fields depend on these alone (the core renders them from it; the test
//!   `fast_answers_have_the_fields_of_their_representation` holds this), so the JS half renders
//!   them once per representation with [`fields`], keeps them, and builds the Response from
//!   them, the blob's view and the Date;
//! - anything else ([`GENERAL`]): redirects, 404s, 206s, errors, bytes decoded on demand. The JS
//!   half calls [`general`], which renders the answer from the same input in full.
//!
//! The JS half makes no HTTP decision: it translates the core's answer, as the general path
//! does.

use crate::js::{joined_fields, to_web_sys};
use edgesite_core::{
    decide as core_decide, render, Content, Outcome, RequestHead, Response, Scratch, Site,
    REQUEST_FIELDS,
};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, Ordering};
use wasm_bindgen::JsValue;

/// Room for a request's target and fields; a request that does not fit takes the general path
/// that reads the `Request` itself.
pub const INPUT_CAPACITY: usize = 64 * 1024;

/// What [`decide`] returns for an answer the JS half builds from its cache:
/// `(id << 1 | fingerprinted) << 2 | kind`, where `fingerprinted` is [`edgesite_core::Decision::fingerprinted`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fast {
    /// 200 with the representation's bytes.
    Ok = 1,
    /// 200 to HEAD: the same fields, no content.
    OkHead = 2,
    /// 304 Not Modified.
    NotModified = 3,
}

/// What [`decide`] returns when the answer takes the general path.
pub const GENERAL: i32 = -1;

thread_local! {
    static INPUT: RefCell<Vec<u8>> = RefCell::new(vec![0; INPUT_CAPACITY]);
}

/// The blob, offset and length of the representation of the last fast answer.
static OUTPUT: [AtomicU32; 3] = [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)];

/// Where the JS half writes a request: the address of the input buffer in wasm memory (its
/// length is [`INPUT_CAPACITY`]). The buffer is never reallocated.
pub fn input() -> u32 {
    INPUT.with(|buf| buf.borrow().as_ptr() as u32)
}

/// Where [`decide`] leaves the blob, offset and length of a fast answer's representation.
pub fn output() -> u32 {
    OUTPUT.as_ptr() as u32
}

/// The method: 0 GET, 1 HEAD, 2 OPTIONS, anything else another (the core answers 405; the
/// method is not needed beyond that, RFC 9110 §9.1).
fn method(code: u32) -> &'static str {
    match code {
        0 => "GET",
        1 => "HEAD",
        2 => "OPTIONS",
        _ => "POST",
    }
}

/// Calls `f` with the request head the JS half wrote: `lengths` are the target's, then each of
/// [`REQUEST_FIELDS`]'s (negative: absent). `None` if they do not describe the buffer.
fn with_head<T>(code: u32, lengths: &[i32], f: impl FnOnce(&RequestHead<'_>) -> T) -> Option<T> {
    INPUT.with(|buf| {
        let buf = buf.borrow();
        let mut rest: &[u8] = &buf;
        let (&target_len, fields) = lengths.split_first()?;
        let target = take(&mut rest, target_len)?;
        let mut head = RequestHead::new(method(code), std::str::from_utf8(target).ok()?);
        for (name, &len) in REQUEST_FIELDS.iter().zip(fields) {
            if len >= 0 {
                head.set_field(name, take(&mut rest, len)?);
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
pub fn decide(site: &Site<'_>, code: u32, lengths: &[i32]) -> i32 {
    with_head(code, lengths, |head| {
        let mut scratch = Scratch::new();
        let decision = core_decide(site, head, &mut scratch);
        let (kind, representation) = match decision.outcome {
            Outcome::Ok { representation, .. } if decision.head => (Fast::OkHead, representation),
            Outcome::Ok { representation, .. } => (Fast::Ok, representation),
            Outcome::NotModified { representation, .. } => (Fast::NotModified, representation),
            _ => return GENERAL,
        };
        let Content::External {
            id,
            blob,
            offset,
            length,
        } = representation.content
        else {
            return GENERAL;
        };
        for (slot, value) in OUTPUT.iter().zip([blob, offset, length]) {
            slot.store(value, Ordering::Relaxed);
        }
        // A fingerprinted request's fields differ only in Cache-Control: it is another key. Ids past
        // 2^28 do not fit beside that bit and the kind: the general path answers those.
        i32::try_from(id)
            .ok()
            .filter(|&id| id < 1 << 28)
            .map_or(GENERAL, |id| {
                (id << 1 | i32::from(decision.fingerprinted)) << 2 | kind as i32
            })
    })
    .unwrap_or(GENERAL)
}

/// The fields of the answer to the request in the input buffer, as `name NUL value NUL ...`
/// (without Date), and whether its body is encoded: what the JS half keeps per representation
/// for its fast answers.
pub fn fields(site: &Site<'_>, code: u32, lengths: &[i32]) -> String {
    with_head(code, lengths, |head| {
        let mut response = Response::new();
        let mut scratch = Scratch::new();
        render(&core_decide(site, head, &mut scratch), &mut response);
        joined_fields(&response, |fields, _| fields.to_string())
    })
    .unwrap_or_default()
}

/// The whole answer to the request in the input buffer, built in JS from the rendered fields
/// and the body.
pub fn general(site: &Site<'_>, code: u32, lengths: &[i32]) -> Result<web_sys::Response, JsValue> {
    with_head(code, lengths, |head| {
        let mut response = Response::new();
        let mut scratch = Scratch::new();
        render(&core_decide(site, head, &mut scratch), &mut response);
        to_web_sys(&response)
    })
    .unwrap_or_else(|| {
        Err(JsValue::from_str(
            "edgesite: the request input is malformed",
        ))
    })
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

    /// Writes `target` and `fields` (name, value) into the input buffer; the lengths for
    /// [`decide`].
    fn write(target: &str, fields: &[(&str, &str)]) -> Vec<i32> {
        let mut bytes = target.as_bytes().to_vec();
        let mut lengths = vec![target.len() as i32];
        for name in REQUEST_FIELDS {
            match fields.iter().find(|(n, _)| *n == name) {
                Some((_, value)) => {
                    bytes.extend_from_slice(value.as_bytes());
                    lengths.push(value.len() as i32);
                }
                None => lengths.push(-1),
            }
        }
        INPUT.with(|input| input.borrow_mut()[..bytes.len()].copy_from_slice(&bytes));
        lengths
    }

    #[test]
    fn fast_answers_have_the_fields_of_their_representation() {
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
            let lengths = write(target, &fields);
            let compact = decide(&SITE, code, &lengths);
            assert!(
                compact >= 0,
                "{target} {fields:?}: every one is a 200 or 304"
            );
            let kind = compact & 3;
            let key = (compact >> 2) * 2 + i32::from(kind == Fast::NotModified as i32);
            let rendered = self::fields(&SITE, code, &lengths);
            let fingerprinted = rendered.contains("immutable");
            assert_eq!(
                fingerprinted,
                (compact >> 2) & 1 == 1,
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
}
