//! The wasm exports of edgesite's Worker: the embedded [`SITE`](crate::SITE) served through
//! edgesite-worker's protocol (`edgesite_worker::protocol`). The Worker's fetch handler is its JS
//! entry, `src/entry.js`, which calls these. Nothing here decides.

use edgesite_worker::protocol;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

/// Starts the protocol: returns the JS half's reader and the protocol's constants, which the
/// entry's fast path uses.
#[wasm_bindgen(js_name = "edgesite_start")]
#[allow(unreachable_pub)] // exported to JS, not to Rust
pub fn start() -> JsValue {
    // The site's tables are decoded here, in the Worker's global scope (the entry instantiates
    // at load): startup time (a 1 s limit) rather than the first request's CPU time (10 ms on
    // the Free plan; a 20,004-file site's tables take tens of milliseconds).
    std::sync::LazyLock::force(&crate::SITE);
    protocol::start()
}

/// The general path for any request: reads the whole `Request` (used when the request's head
/// did not fit the input buffer; past its 1 MiB limit the answer is 431). The entry answers a
/// 500 without details if this fails.
#[wasm_bindgen(js_name = "edgesite_fetch")]
#[allow(unreachable_pub)]
pub fn fetch(request: &web_sys::Request) -> Result<JsValue, JsValue> {
    edgesite_worker::answer(&crate::SITE, request)
}

/// Hands over the site's tables (the build's `tables.bin`, a data module of the entry): copied
/// into wasm memory once per instance, before [`start`] decodes them. Returns where they are in
/// wasm memory, `[address, length]`: the entry lets the data module go and, after a trap, hands
/// a fresh instance the tables from there.
#[wasm_bindgen(js_name = "edgesite_register_tables")]
#[allow(unreachable_pub)]
pub fn register_tables(tables: Box<[u8]>) -> Vec<u32> {
    let tables: &'static [u8] = Box::leak(tables);
    crate::set_tables(tables);
    // wasm32: addresses and lengths are 32 bits.
    vec![tables.as_ptr() as usize as u32, tables.len() as u32]
}

/// Hands the site's blobs (the entry's data modules, ArrayBuffers in the build's order) to the
/// adapter.
#[wasm_bindgen(js_name = "edgesite_register_blobs")]
#[allow(unreachable_pub)]
pub fn register_blobs(blobs: js_sys::Array) {
    edgesite_worker::set_blobs(&blobs);
}

/// Hands the stores (the Worker's Static Assets binding and its R2 bucket's, either absent) to
/// the adapter: where the bodies of the site's stored representations are read.
#[wasm_bindgen(js_name = "edgesite_register_store")]
#[allow(unreachable_pub)]
pub fn register_store(fetcher: JsValue, bucket: JsValue) {
    edgesite_worker::set_store(&fetcher, &bucket);
}

/// The compact answer to the request the reader wrote, whose method has `code`.
#[wasm_bindgen(js_name = "edgesite_decide")]
#[allow(unreachable_pub)]
pub fn decide(code: u32) -> i32 {
    protocol::decide(&crate::SITE, code)
}

/// The fields of the answer to the request the reader wrote (for a 206 of one range, its 200's:
/// the request without its Range), for the entry's cache.
#[wasm_bindgen(js_name = "edgesite_fields")]
#[allow(unreachable_pub)]
pub fn fields(code: u32) -> String {
    protocol::fields(&crate::SITE, code)
}

/// The store's key of the representation the request the reader wrote is answered with, and
/// whether R2 holds it: `[key, inR2]`, which the entry keeps for its fast answers of that
/// representation.
#[wasm_bindgen(js_name = "edgesite_stored_key")]
#[allow(unreachable_pub)]
pub fn stored_key(code: u32) -> js_sys::Array {
    let (key, r2) = protocol::stored_key(&crate::SITE, code);
    js_sys::Array::of2(&key.into(), &r2.into())
}

/// The answer when the store fails to give a body: 503 with Retry-After.
#[wasm_bindgen(js_name = "edgesite_unavailable")]
#[allow(unreachable_pub)]
pub fn unavailable() -> Result<web_sys::Response, JsValue> {
    protocol::unavailable()
}

/// The whole answer to the request the reader wrote (anything but a fast 200, 304 or 206): a
/// Response, or a Promise of one when its body is read from the store.
#[wasm_bindgen(js_name = "edgesite_general")]
#[allow(unreachable_pub)]
pub fn general(code: u32) -> Result<JsValue, JsValue> {
    protocol::general(&crate::SITE, code)
}
