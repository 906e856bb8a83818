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
// Per representation: [fields, manual] for its 200 (key 2*id) and its 304 (key 2*id+1).
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

const lengths = new Int32Array(10);

// Writes the request into the input buffer; false if it does not fit.
function write(request) {
	if (memory !== wasm.memory.buffer) {
		memory = wasm.memory.buffer;
		bytes = new Uint8Array(memory, input, capacity);
		words = new Uint32Array(memory, output, 3);
	}
	const url = request.url;
	const path = url.indexOf("/", url.indexOf("//") + 2);
	let at = put(path < 0 ? "/" : url.slice(path), 0, 0);
	if (at < 0) return false;
	const headers = request.headers;
	const cf = request.cf;
	// Cloudflare rewrites Accept-Encoding at the edge; the client's own is in cf.
	const client = cf == null ? null : cf.clientAcceptEncoding;
	for (let i = 0; i < names.length; i++) {
		const value = i === 0 && client != null ? client : headers.get(names[i]);
		if (value === null) {
			lengths[i + 1] = -1;
		} else {
			at = put(value, at, i + 1);
			if (at < 0) return false;
		}
	}
	return true;
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

// Date (RFC 9110 §6.6.1), formatted once a second.
let second = -1;
let date = "";
function now() {
	const s = Math.floor(Date.now() / 1000);
	if (s !== second) {
		second = s;
		date = new Date(s * 1000).toUTCString();
	}
	return date;
}

function answer(request) {
	const code = methodCode(request.method);
	if (!write(request)) return imports.edgesite_fetch(request);
	const l = lengths;
	const compact = wasm.edgesite_decide(code, l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8], l[9]);
	if (compact < 0) return imports.edgesite_general(code, lengths);
	// Kinds (edgesite_worker::entry::Fast): 1 = 200, 2 = 200 to HEAD, 3 = 304.
	const kind = compact & 3;
	const key = (compact >> 2) * 2 + (kind === 3 ? 1 : 0);
	let fields = kept.get(key);
	if (fields === undefined) {
		const list = imports.edgesite_fields(code, lengths).split("\0");
		const pairs = [];
		let manual = false;
		for (let i = 0; i + 1 < list.length; i += 2) {
			pairs.push([list[i], list[i + 1]]);
			manual ||= list[i] === "content-encoding";
		}
		fields = [pairs, manual];
		kept.set(key, fields);
	}
	const headers = fields[0].slice();
	headers.push(["date", now()]);
	const init = { status: kind === 3 ? 304 : 200, headers };
	// A precompressed body is sent as it is (the runtime would compress it again).
	if (fields[1]) init.encodeBody = "manual";
	const body = kind === 1 ? new Uint8Array(BLOBS[words[0]], words[1], words[2]) : null;
	return new Response(body, init);
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
