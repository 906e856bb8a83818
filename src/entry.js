// The Worker's fetch handler: its JS entry, a template that scripts/build-worker.sh fills in:
// $SNIPPET_* become the imports of wasm-bindgen's JS snippets, $BLOB_* the site's blobs (data
// modules: ArrayBuffers outside wasm memory), $TABLES_* the site's tables (a data module
// too, copied into wasm memory at start: the wasm module holds no site, so that wasm-bindgen
// and wasm-opt need not run again when only the site changed). It makes no HTTP decision:
// edgesite-core decides, in wasm, and this file translates. The protocol between the two is
// edgesite-worker's (crates/worker/src/protocol.rs), handed over at start: this file repeats
// none of it.
//
// Per request: the adapter's reader (crates/worker/src/bridge.js) writes the request into wasm
// memory (no string crosses the boundary), one call returns a compact answer, and a 200, 304 or
// 206 of one range of a representation is built from its fields (rendered by the core once per
// representation and kept here; a 206 adds its Content-Length and Content-Range), its bytes (a
// view of its blob, or for one in the store the object read through the ASSETS or R2 binding)
// and the Date. Everything else takes the general path, which renders the answer in wasm from
// the same input.
import * as imports from "./index_bg.js";
import wasmModule from "./index.wasm";
$SNIPPET_JS_IMPORTS
$BLOB_IMPORTS
$TABLES_IMPORT

const wasmImports = {
	"./index_bg.js": imports,
	$SNIPPET_WASM_IMPORTS
};
const BLOBS = [$BLOB_LIST];

// Set by instantiate(): the wasm exports and the protocol (the reader, the output area, the
// answer's kinds).
let wasm, protocol, read, kindMask, KIND_BITS, NOT_MODIFIED, OK, PARTIAL, GENERAL, STORED;
// Where the tables are once an instance holds them: its memory and [address, length] there.
// After a trap the fresh instance takes them from there, since the data module's bytes were let
// go; it changes only once another instance holds them, so a fresh instance that failed before
// that leaves them where they were.
let tablesHome;
// Per representation and fingerprinting (r = 2*id + fingerprinted): what its 200 (key 2*r) and
// its 304 (key 2*r+1) are made of (keep()).
let kept = new Map();

function instantiate() {
	// A fresh instance after a trap: the old memory's buffer is detached first (grow(0) detaches
	// it), so that wasm-bindgen's glue, which keeps a view of wasm memory until its buffer is
	// detached, does not write the tables, or read strings, in the old instance's memory. The
	// tables are read from the memory that holds them (a new view of it): nothing writes them
	// once handed over.
	wasm?.memory.grow(0);
	let from = tablesHome
		? new Uint8Array(tablesHome.memory.buffer, tablesHome.at[0], tablesHome.at[1])
		: new Uint8Array(tables);
	const instance = new WebAssembly.Instance(wasmModule, wasmImports);
	imports.__wbg_set_wasm(instance.exports);
	instance.exports.__wbindgen_start?.();
	wasm = instance.exports;
	imports.edgesite_register_blobs(BLOBS);
	const at = imports.edgesite_register_tables(from);
	from = null;
	tablesHome = { memory: instance.exports.memory, at };
	letTablesGo();
	protocol = imports.edgesite_start();
	({ read, kindBits: KIND_BITS, notModified: NOT_MODIFIED, ok: OK, partial: PARTIAL, general: GENERAL, stored: STORED } = protocol);
	kindMask = (1 << KIND_BITS) - 1;
	kept = new Map();
}
// The tables are in wasm memory now: the data module's copy is let go (detached, its bytes
// freed), so that the isolate holds them once (docs/benchmarks.md, "With Markdown twins").
// `transfer(0)` frees them at once (ES2024; workerd has it); else a transfer to a clone that is
// dropped, freed at the next collection. Holding them, if neither can, costs only memory.
function letTablesGo() {
	if (tables.byteLength === 0) return;
	try {
		if (typeof tables.transfer === "function") tables.transfer(0);
		else structuredClone(tables, { transfer: [tables] });
	} catch (error) {
		console.error("edgesite: the tables' data module is held twice:", error);
	}
}

instantiate();

function answer(request) {
	const code = read(request);
	// A request that does not fit the input: the general path reads it again, with room.
	if (code < 0) return imports.edgesite_fetch(request);
	const compact = wasm.edgesite_decide(code);
	if (compact === GENERAL) return imports.edgesite_general(code);
	// A kind (200, 200 to HEAD, 304, 206 of one range), and above it the representation's id
	// and whether the request is fingerprinted (its own Cache-Control). A 206 is made from the
	// representation's 200 (its key).
	const kind = compact & kindMask;
	const key = (compact >> KIND_BITS) * 2 + (kind === NOT_MODIFIED ? 1 : 0);
	const entry = kept.get(key) ?? keep(key, code, kind === PARTIAL ? OK : kind);
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
	if (kind === PARTIAL) return partial(entry, init);
	if (kind === OK && entry.object !== null) return fromStore(entry, init);
	return new Response(kind === OK ? entry.body : null, init);
}

// A 206 of one range (RFC 9110 §15.3.7): the 200's fields (with its Date) with the range's
// Content-Length and its Content-Range, and the range's bytes: a view of the blob, or read from
// the store (one subrequest).
function partial(entry, ok) {
	const [first, last] = protocol.range();
	const headers = new Headers(ok.headers);
	headers.set("content-length", String(last - first + 1));
	headers.set("content-range", `bytes ${first}-${last}/${entry.length}`);
	const init = { status: 206, headers };
	if (ok.encodeBody !== undefined) init.encodeBody = ok.encodeBody;
	if (entry.object !== null) return partFromStore(entry, init, first, last);
	return new Response(entry.body.subarray(first, last + 1), init);
}

async function partFromStore(entry, init, first, last) {
	const body = await protocol.part(entry.object, entry.length, entry.r2, first, last);
	if (body === null) return imports.edgesite_unavailable();
	return new Response(body, init);
}

// A 200 whose bytes are in the store: read (one subrequest), or the 503 when the store fails.
async function fromStore(entry, init) {
	const { status, headers, encodeBody } = init;
	const body = await protocol.object(entry.object, entry.length, entry.r2);
	if (body === null) return imports.edgesite_unavailable();
	return new Response(body, { status, headers, encodeBody });
}

// What a representation's fast answers are made of: its fields (rendered by the core), its
// bytes (a view of its blob), the Response's init.
function keep(key, code, kind) {
	const fields = protocol.fieldPairs(imports.edgesite_fields(code));
	const init = { status: kind === NOT_MODIFIED ? 304 : 200, headers: null };
	// A precompressed body is sent as it is (the runtime would compress it again).
	if (fields.some(([name]) => name === "content-encoding")) init.encodeBody = "manual";
	const [blob, offset, length] = protocol.output();
	// In the store: its key and which store (R2, else Static Assets), asked once; the body is
	// read per answer (fromStore).
	const [object, r2] = blob === STORED ? imports.edgesite_stored_key(code) : [null, false];
	const body = kind === NOT_MODIFIED || object !== null ? null : new Uint8Array(BLOBS[blob], offset, length);
	const entry = { fields, init, body, object, r2, length, second: -1 };
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

function failed(error) {
	// Details go to the log, never to the client.
	console.error("edgesite:", error);
	// A trap (edgesite never panics, but memory can run out) leaves the instance in an
	// unknown state: start a fresh one for the next request.
	if (error instanceof WebAssembly.RuntimeError) instantiate();
	return new Response(FAILED, {
		status: 500,
		headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
	});
}

// The stores of the site's stored representations: the Static Assets binding (wrangler.toml's
// [assets]; under bare workerd, a disk service standing in for it) and the R2 bucket's
// (EDGESITE_R2, wrangler.toml's [[r2_buckets]]). Handed over once.
let storeSet = false;

export default {
	fetch(request, env) {
		if (!storeSet) {
			imports.edgesite_register_store(env?.ASSETS, env?.EDGESITE_R2);
			protocol.storeTimeout(env?.EDGESITE_STORE_TIMEOUT_MS);
			storeSet = true;
		}
		try {
			const response = answer(request);
			// A body read from the store: a Promise of the Response.
			if (response instanceof Promise) {
				return response.then((r) => {
					if (env?.EDGESITE_LOG) log(request, r);
					return r;
				}, failed);
			}
			if (env?.EDGESITE_LOG) log(request, response);
			return response;
		} catch (error) {
			return failed(error);
		}
	},
};

// For the memory report (bench/memory.mjs reads it through the inspector): the bytes of wasm
// memory, of the site's blobs, of its tables' data module this isolate holds (none once they
// are copied into wasm memory, where they are decoded) and of the tables in wasm memory.
globalThis.edgesiteMemory = () => ({
	wasm: wasm.memory.buffer.byteLength,
	blobs: BLOBS.reduce((n, b) => n + b.byteLength, 0),
	tables: tables.byteLength,
	tablesInWasm: tablesHome.at[1],
});
