// The Worker's JS entry, a template that scripts/build-worker.sh fills in: $SNIPPET_* become
// the imports of wasm-bindgen's inline JS snippets, $BLOB_* the site's blobs (data modules:
// ArrayBuffers outside wasm memory). It makes no HTTP decision: edgesite-core decides, here and
// in wasm, and this file translates (crates/worker/src/entry.rs describes the protocol).
//
// Per request: the target and the fields the core reads are written into wasm memory with
// TextEncoder.encodeInto (no string crosses the boundary), one call returns a compact answer,
// and a 200 or 304 of a representation is built from its fields (rendered by the core once per
// representation and kept here), its bytes (a view of its blob) and the Date. Everything else
// takes the general path, which renders the answer in wasm from the same input.
import * as imports from "./index_bg.js";
import wasmModule from "./index.wasm";
$SNIPPET_JS_IMPORTS
$BLOB_IMPORTS

const wasmImports = {
	"./index_bg.js": imports,
	$SNIPPET_WASM_IMPORTS
};
const BLOBS = [$BLOB_LIST];
const encoder = new TextEncoder();

// Set by instantiate(): the wasm exports, the input buffer, the output area, the field names.
let wasm, input, capacity, output, names, memory, bytes, words;
// Per representation and versioning (r = 2*id + versioned): what its 200 (key 2*r) and its 304
// (key 2*r+1) are made of (keep()).
let kept = new Map();

function instantiate() {
	const instance = new WebAssembly.Instance(wasmModule, wasmImports);
	imports.__wbg_set_wasm(instance.exports);
	instance.exports.__wbindgen_start?.();
	wasm = instance.exports;
	[input, capacity, output] = imports.edgesite_input();
	names = imports.edgesite_request_fields().split("\0");
	imports.edgesite_register_blobs(BLOBS);
	memory = null;
	kept = new Map();
}
instantiate();

const lengths = new Int32Array(11);

// Cloudflare's edge replaces the client's Accept-Encoding with its own list (documented as
// "br, gzip") and keeps the client's in request.cf.clientAcceptEncoding. Reading request.cf costs
// about 5 µs a request under workerd (measured: the cf-free variant of this entry, README "Load"),
// so it is read only when the field is one the edge could have written; any other value (or none)
// is the client's own. The general path's reader (crates/worker/src/js.rs) applies the same
// pattern: keep the two alike.
const EDGE_ACCEPT_ENCODING = /^(?:br|gzip|zstd)(?: *, *(?:br|gzip|zstd))*$/;

// The request's Accept-Encoding as the client sent it (names[0]).
function acceptEncoding(request, headers) {
	const value = headers.get(names[0]);
	if (value === null || !EDGE_ACCEPT_ENCODING.test(value)) return value;
	const cf = request.cf;
	const client = cf == null ? null : cf.clientAcceptEncoding;
	return client == null ? value : client;
}

// Writes the request into the input buffer; false if it does not fit. The target and the field
// values are joined and encoded at once: they are ASCII (a parsed URL; field values a client
// sends as visible ASCII), so each one's length in bytes is its length in characters. Anything
// else takes the slow way, one value at a time.
function write(request) {
	if (memory !== wasm.memory.buffer) {
		memory = wasm.memory.buffer;
		bytes = new Uint8Array(memory, input, capacity);
		words = new Uint32Array(memory, output, 3);
	}
	const url = request.url;
	const path = url.indexOf("/", url.indexOf("//") + 2);
	const target = path < 0 ? "/" : url.slice(path);
	const headers = request.headers;
	let joined = target;
	lengths[0] = target.length;
	for (let i = 0; i < names.length; i++) {
		const value = i === 0 ? acceptEncoding(request, headers) : headers.get(names[i]);
		if (value === null) {
			lengths[i + 1] = -1;
		} else {
			joined += value;
			lengths[i + 1] = value.length;
		}
	}
	const { read, written } = encoder.encodeInto(joined, bytes);
	if (read < joined.length) return false;
	return written === joined.length || writeEach(request, target, headers);
}

// The slow way, for text that is not all ASCII: each value encoded on its own.
function writeEach(request, target, headers) {
	let at = put(target, 0, 0);
	for (let i = 0; at >= 0 && i < names.length; i++) {
		const value = i === 0 ? acceptEncoding(request, headers) : headers.get(names[i]);
		if (value === null) lengths[i + 1] = -1;
		else at = put(value, at, i + 1);
	}
	return at >= 0;
}

function put(text, at, slot) {
	const { read, written } = encoder.encodeInto(text, bytes.subarray(at));
	if (read < text.length) return -1;
	lengths[slot] = written;
	return at + written;
}

function methodCode(method) {
	return method === "GET" ? 0 : method === "HEAD" ? 1 : method === "OPTIONS" ? 2 : 3;
}

function answer(request) {
	const code = methodCode(request.method);
	if (!write(request)) return imports.edgesite_fetch(request);
	const l = lengths;
	const compact = wasm.edgesite_decide(code, l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8], l[9], l[10]);
	if (compact < 0) return imports.edgesite_general(code, lengths);
	// Kinds (edgesite_worker::entry::Fast): 1 = 200, 2 = 200 to HEAD, 3 = 304. Above them, the
	// representation's id and whether the request is versioned (its own Cache-Control).
	const kind = compact & 3;
	const key = (compact >> 2) * 2 + (kind === 3 ? 1 : 0);
	const entry = kept.get(key) ?? keep(key, code, kind);
	const init = entry.init;
	// The fields with the Date (RFC 9110 §6.6.1), remade once a second. A Headers object, which
	// the Response copies: measured under workerd, far cheaper per response than an array of
	// pairs (each of which the runtime converts and checks again).
	const second = Math.floor(Date.now() / 1000);
	if (entry.second !== second) {
		entry.second = second;
		const headers = new Headers(entry.fields);
		headers.set("date", new Date(second * 1000).toUTCString());
		init.headers = headers;
	}
	return new Response(kind === 1 ? entry.body : null, init);
}

// What a representation's fast answers are made of: its fields (rendered by the core), its
// bytes (a view of its blob), the Response's init.
function keep(key, code, kind) {
	const list = imports.edgesite_fields(code, lengths).split("\0");
	const fields = [];
	let manual = false;
	for (let i = 0; i + 1 < list.length; i += 2) {
		fields.push([list[i], list[i + 1]]);
		manual ||= list[i] === "content-encoding";
	}
	const init = { status: kind === 3 ? 304 : 200, headers: null };
	// A precompressed body is sent as it is (the runtime would compress it again).
	if (manual) init.encodeBody = "manual";
	const body = kind === 3 ? null : new Uint8Array(BLOBS[words[0]], words[1], words[2]);
	const entry = { fields, init, body, second: -1 };
	kept.set(key, entry);
	return entry;
}

const FAILED = "500 Internal Server Error\n";

// With the variable EDGESITE_LOG set (`make dev` sets it; off in production and benchmarks), one
// line per request: method, path, status, content coding, body bytes. (The time is not logged:
// Workers' clocks do not advance while a request runs; wrangler dev logs its own timing.)
function log(request, response) {
	const headers = response.headers;
	console.log(
		`edgesite: ${request.method} ${new URL(request.url).pathname} ${response.status} ` +
			`${headers.get("content-encoding") ?? "identity"} ${headers.get("content-length") ?? "-"}`,
	);
}

export default {
	fetch(request, env) {
		try {
			const response = answer(request);
			if (env?.EDGESITE_LOG) log(request, response);
			return response;
		} catch (error) {
			// Details go to the log, never to the client.
			console.error("edgesite:", error);
			// A trap (edgesite never panics, but memory can run out) leaves the instance in an
			// unknown state: start a fresh one for the next request.
			if (error instanceof WebAssembly.RuntimeError) instantiate();
			return new Response(FAILED, {
				status: 500,
				headers: { "content-type": "text/plain; charset=utf-8" },
			});
		}
	},
};

// For the memory report (bench/memory.mjs reads it through the inspector): the bytes of wasm
// memory and of the site's blobs this isolate holds.
globalThis.edgesiteMemory = () => ({
	wasm: wasm.memory.buffer.byteLength,
	blobs: BLOBS.reduce((n, b) => n + b.byteLength, 0),
});
