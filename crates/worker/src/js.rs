//! The JS half of the adapter (`bridge.js`, a wasm-bindgen snippet), and turning the core's
//! [`Response`] into a `web_sys::Response` through it.
//!
//! Every call across the wasm boundary costs far more than the core's whole decision, so a
//! request is written into wasm memory by the JS half's one reader ([`crate::protocol`]), and
//! a response is built in one call (the fields as one string, the body as a view). The site's
//! bytes live in JS: the blobs a Worker's entry hands over with [`set_blobs`] (its data
//! modules), and the representations compact storage decoded on demand (by the runtime's
//! `DecompressionStream`, so the module carries no decoder), kept in a bounded cache.

use edgesite_core::{Body, Content, Multipart, Piece, Representation, Response};
use std::cell::RefCell;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

#[wasm_bindgen(module = "/src/bridge.js")]
extern "C" {
    /// Hands the JS half the protocol ([`crate::protocol::start`]); returns what the entry
    /// uses of it.
    pub(crate) fn bridge_start(
        memory: &JsValue,
        layout: &[i32],
        names: &str,
        methods: &str,
    ) -> JsValue;
    /// Writes `request` into the input buffer and the lengths; its method's code, or -1 if it
    /// does not fit (then [`bridge_needed`] bytes would).
    pub(crate) fn bridge_read(request: &web_sys::Request) -> i32;
    /// The bytes the last request [`bridge_read`] could not write would need.
    pub(crate) fn bridge_needed() -> usize;
    /// Hands the site's blobs (ArrayBuffers, in the order of the build's `blobs.txt`) to the
    /// adapter.
    #[wasm_bindgen(js_name = "edgesite_set_blobs")]
    pub fn set_blobs(list: &js_sys::Array);
    fn edgesite_external(blob: u32, offset: u32, length: u32) -> Option<js_sys::Uint8Array>;
    fn edgesite_decoded(id: u32) -> Option<js_sys::Uint8Array>;
    /// The Response whose body is compact storage's identity inflated from `source` as it is
    /// sent, held to `length` (see bridge.js).
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(catch)]
    fn edgesite_decoded_response(
        status: u16,
        fields: &str,
        id: u32,
        source: &js_sys::Uint8Array,
        length: u32,
        pieces: &js_sys::Array,
        total: f64,
        limit: usize,
    ) -> Result<web_sys::Response, JsValue>;
    fn edgesite_concat(parts: &js_sys::Array) -> js_sys::Uint8Array;
    /// Hands the stores to the adapter: the Worker's Static Assets binding (a Fetcher) and its
    /// R2 bucket's (an R2Bucket), either of them undefined when the Worker has none.
    #[wasm_bindgen(js_name = "edgesite_set_store")]
    pub fn set_store(fetcher: &JsValue, bucket: &JsValue);
    /// A Promise of the Response whose body is read from the store (see bridge.js).
    #[allow(clippy::too_many_arguments)]
    fn edgesite_stored_response(
        status: u16,
        fields: &str,
        manual: bool,
        key: &str,
        r2: bool,
        length: f64,
        whole: bool,
        pieces: &js_sys::Array,
        total: f64,
        unavailable: &str,
        unavailable_body: &[u8],
    ) -> js_sys::Promise;
    #[wasm_bindgen(catch, js_name = "edgesite_response")]
    fn response_with_wasm_bytes(
        status: u16,
        fields: &str,
        body: Option<&[u8]>,
        manual: bool,
    ) -> Result<web_sys::Response, JsValue>;
    #[wasm_bindgen(catch, js_name = "edgesite_response")]
    fn response_with_js_bytes(
        status: u16,
        fields: &str,
        body: &js_sys::Uint8Array,
        manual: bool,
    ) -> Result<web_sys::Response, JsValue>;
}

/// RFC 6585 §5: the answer to a request whose target and fields the core reads do not fit the
/// input ([`crate::protocol::INPUT_LIMIT`]): 431, stored by no cache.
pub(crate) fn too_large() -> Result<web_sys::Response, JsValue> {
    response_with_wasm_bytes(
        431,
        "content-type\0text/plain; charset=utf-8\0cache-control\0no-store\0",
        Some(b"431 Request Header Fields Too Large\n"),
        false,
    )
}

/// The error of a request the JS half could not write (over [`crate::protocol::INPUT_LIMIT`]),
/// or whose lengths do not describe the input.
pub(crate) const BRIDGE_READ_FAILED: &str =
    "edgesite: the request could not be read from the input";

thread_local! {
    /// The fields of the response being built, reused across requests (wasm is single-threaded).
    static FIELDS: RefCell<String> = RefCell::new(String::with_capacity(1024));
}

/// The fields of `response` as one string (`name NUL value NUL ...`), and whether it is encoded.
pub(crate) fn joined_fields<T>(response: &Response<'_>, f: impl FnOnce(&str, bool) -> T) -> T {
    FIELDS.with(|fields| {
        let mut fields = fields.borrow_mut();
        fields.clear();
        let mut encoded = false;
        for (name, value) in response.fields.iter() {
            encoded |= name == "content-encoding";
            // Names are the core's literals, values visible ASCII: neither holds a NUL.
            fields.push_str(name);
            fields.push('\0');
            fields.push_str(&value);
            fields.push('\0');
        }
        f(&fields, encoded)
    })
}

/// Copies the core's response into a JS Response in one call: the fields as one string, the
/// body as a view the Response constructor copies once, or the site's bytes held in JS.
pub(crate) fn to_web_sys(response: &Response<'_>) -> Result<web_sys::Response, JsValue> {
    joined_fields(response, |fields, encoded| {
        // RFC 9110 §6.6.1: an origin server with a clock MUST send Date; the JS half adds it
        // (toUTCString() is an IMF-fixdate): the core has no clock, bare workerd adds none.
        // An encoded body is precompressed: with the default `encodeBody: "automatic"` the
        // runtime would compress it again per Content-Encoding; "manual" sends it as it is
        // (workers-rs `EncodeBody::Manual`). A null body for 204/304 and HEAD: the Response
        // constructor rejects a body with 204 and 304.
        let status = response.status;
        if let Some(inflating) = inflating(response, fields) {
            return inflating;
        }
        match &response.body {
            Body::Empty => response_with_wasm_bytes(status, fields, None, encoded),
            Body::Bytes(bytes) => response_with_wasm_bytes(status, fields, Some(bytes), encoded),
            Body::Representation {
                representation,
                range,
                ..
            } => {
                let mut bytes = whole(representation)?;
                if let Some(r) = range {
                    bytes = bytes.subarray(r.first as u32, r.last as u32 + 1);
                }
                response_with_js_bytes(status, fields, &bytes, encoded)
            }
            Body::Multipart(multipart) => {
                let body = multipart_body(multipart)?;
                response_with_js_bytes(status, fields, &body, encoded)
            }
        }
    })
}

/// The answer to send for `response`: a Response, or, when its body is read from the store
/// ([`Content::Stored`]), a Promise of one (the store is read asynchronously; a read that fails
/// gets the core's 503, [`edgesite_core::store_unavailable`]).
pub(crate) fn to_js(response: &Response<'_>) -> Result<JsValue, JsValue> {
    let representation = match &response.body {
        Body::Representation { representation, .. } => *representation,
        Body::Multipart(multipart) => multipart.representation(),
        Body::Empty | Body::Bytes(_) => return to_web_sys(response).map(Into::into),
    };
    let (Content::Stored { length, store, .. }, Some(key)) =
        (representation.content, representation.object_key())
    else {
        return to_web_sys(response).map(Into::into);
    };
    let key = key.to_string();
    let pieces = pieces(&response.body);
    let whole = pieces.length() == 0;
    let mut failed = Response::new();
    edgesite_core::store_unavailable(&mut failed);
    let Body::Bytes(unavailable_body) = failed.body else {
        return Err(unavailable());
    };
    let unavailable_fields = joined_fields(&failed, |fields, _| fields.to_string());
    joined_fields(response, |fields, encoded| {
        Ok(edgesite_stored_response(
            response.status,
            fields,
            encoded,
            &key,
            store == edgesite_core::Store::R2,
            // A Number: exact up to 2^53 bytes (8 PiB), past any store's object.
            length.get() as f64,
            whole,
            &pieces,
            response.body.len() as f64,
            &unavailable_fields,
            unavailable_body,
        )
        .into())
    })
}

/// What a partial body is made of, in order, for the JS half: `[first, last]` ranges of the
/// representation and multipart's text (a Uint8Array); empty for all of the representation.
fn pieces(body: &Body<'_>) -> js_sys::Array {
    let pieces = js_sys::Array::new();
    match body {
        Body::Representation { range: Some(r), .. } => {
            pieces.push(&range_pair(r.first, r.last));
        }
        Body::Multipart(multipart) => multipart.for_each_piece(|piece| match piece {
            Piece::Text(text) => {
                pieces.push(&js_sys::Uint8Array::from(text));
            }
            Piece::Range(r) => {
                pieces.push(&range_pair(r.first, r.last));
            }
        }),
        _ => {}
    }
    pieces
}

/// The answer for compact storage's identity ([`Content::Decoded`]) when the JS half has not
/// kept it decoded: inflated from its gzip representation as the body is sent (and kept once
/// all of it was, up to [`edgesite_core::DECODED_CACHE_BYTES`]); `None` for any other body.
fn inflating(response: &Response<'_>, fields: &str) -> Option<Result<web_sys::Response, JsValue>> {
    let (representation, source) = match &response.body {
        Body::Representation {
            representation,
            source,
            ..
        } => (*representation, *source),
        Body::Multipart(multipart) => (multipart.representation(), multipart.source()),
        Body::Empty | Body::Bytes(_) => return None,
    };
    let Content::Decoded { id, length, .. } = representation.content else {
        return None;
    };
    if edgesite_decoded(id).is_some() {
        return None;
    }
    // Only gzip is inflated (the build decodes from nothing else: sitegen's storage/store.rs).
    let source = match source {
        Some(source) if source.coding == edgesite_core::ContentCoding::Gzip => source,
        _ => return Some(Err(unavailable())),
    };
    Some(whole(source).and_then(|stored| {
        edgesite_decoded_response(
            response.status,
            fields,
            id,
            &stored,
            length,
            &pieces(&response.body),
            response.body.len() as f64,
            edgesite_core::DECODED_CACHE_BYTES,
        )
    }))
}

/// `[first, last]` as JS numbers.
fn range_pair(first: u64, last: u64) -> js_sys::Array {
    js_sys::Array::of2(&(first as f64).into(), &(last as f64).into())
}

fn unavailable() -> JsValue {
    JsValue::from_str("edgesite: a representation's bytes are not available")
}

/// All the bytes of `representation`, as JS holds them: a view of a blob, the decoded bytes the
/// JS half keeps ([`inflating`] answers when it has none), or a copy of bytes in wasm memory.
pub(crate) fn whole(representation: &Representation<'_>) -> Result<js_sys::Uint8Array, JsValue> {
    match representation.content {
        Content::Bytes(bytes) => Ok(js_sys::Uint8Array::from(bytes)),
        Content::External {
            blob,
            offset,
            length,
            ..
        } => edgesite_external(blob, offset, length).ok_or_else(unavailable),
        // Read from the store by `to_js`, never here (library mode has no store).
        Content::Stored { .. } => Err(unavailable()),
        Content::Decoded { id, .. } => edgesite_decoded(id).ok_or_else(unavailable),
    }
}

/// A `multipart/byteranges` body assembled in JS from the core's text and the ranges of the
/// representation's bytes.
fn multipart_body(multipart: &Multipart<'_>) -> Result<js_sys::Uint8Array, JsValue> {
    let bytes = whole(multipart.representation())?;
    let parts = js_sys::Array::new();
    multipart.for_each_piece(|piece| match piece {
        Piece::Text(text) => {
            parts.push(&js_sys::Uint8Array::from(text));
        }
        Piece::Range(r) => {
            parts.push(&bytes.subarray(r.first as u32, r.last as u32 + 1));
        }
    });
    Ok(edgesite_concat(&parts))
}
