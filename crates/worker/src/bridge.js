// The JS half of edgesite-worker (a wasm-bindgen snippet): the one reader of a request, the
// site's bytes held in JS, and the Response built from the core's answer. The protocol it
// speaks with wasm is defined in protocol.rs and handed over by bridge_start: nothing here
// repeats a field name, an address or a number of it.

const encoder = new TextEncoder();

// The protocol (bridge_start): wasm memory, where the input buffer, the lengths and the output
// area are, the fields the core reads and the methods by code.
let memory = null;
let input = 0, capacity = 0, lengthsAt = 0, slots = 0, outputAt = 0;
let names = [];
let methods = [];
let acceptEncodingAt = -1;
// Views of wasm memory, made again when it grows (its buffer is then another).
let buffer = null, bytes, lengths, output;
// The bytes the last request that did not fit would need.
let needed = 0;

export function bridge_start(wasmMemory, layout, joinedNames, joinedMethods) {
	memory = wasmMemory;
	[input, capacity, lengthsAt, slots, outputAt] = layout;
	const [kindBits, ok, okHead, notModified, general, storedSigned, partial] = layout.slice(5);
	const stored = storedSigned >>> 0;
	names = joinedNames.split("\0");
	methods = joinedMethods.split("\0");
	// The arity: one length for the target, one per field.
	if (names.length + 1 !== slots) {
		throw new Error(`edgesite: ${names.length} request fields for ${slots} slots`);
	}
	acceptEncodingAt = names.indexOf("accept-encoding");
	buffer = null;
	const read = bridge_read;
	return { read, output: outputOf, range: rangeOf, fieldPairs, object, part, storeTimeout, kindBits, ok, okHead, notModified, partial, general, stored };
}

function views() {
	if (buffer !== memory.buffer) {
		buffer = memory.buffer;
		bytes = new Uint8Array(buffer, input, capacity);
		lengths = new Int32Array(buffer, lengthsAt, slots);
		output = new Uint32Array(buffer, outputAt, 5);
	}
}

// The blob, offset and length of the last fast answer's representation.
function outputOf() {
	views();
	return Array.from(output.subarray(0, 3));
}

// The first and last bytes of the last fast 206's range.
function rangeOf() {
	views();
	return [output[3], output[4]];
}

// Cloudflare's edge replaces the client's Accept-Encoding with its own list (documented as
// "br, gzip") and keeps the client's in request.cf.clientAcceptEncoding. Reading request.cf has
// a measurable cost per request under workerd (docs/benchmarks.md, the Worker's load), so it is
// read only when the field is one the edge could have written; any other value (or none) is the
// client's.
const EDGE_ACCEPT_ENCODING = /^(?:br|gzip|zstd)(?: *, *(?:br|gzip|zstd))*$/;

function field(request, headers, i) {
	const value = headers.get(names[i]);
	if (i !== acceptEncodingAt || value === null || !EDGE_ACCEPT_ENCODING.test(value)) return value;
	const cf = request.cf;
	const client = cf == null ? null : cf.clientAcceptEncoding;
	return client == null ? value : client;
}

// Writes the request's target and fields into the input buffer and their lengths (-1: absent);
// returns its method's code, or -1 if it does not fit. The target and the values are joined and
// encoded at once: they are ASCII (a parsed URL; field values a client sends as visible ASCII),
// so each one's length in bytes is its length in characters. Anything else is written one value
// at a time. Headers.get joins several field lines with ", " (Fetch), as RFC 9110 §5.3 reads them.
export function bridge_read(request) {
	views();
	const url = request.url;
	const path = url.indexOf("/", url.indexOf("//") + 2);
	const target = path < 0 ? "/" : url.slice(path);
	const headers = request.headers;
	let joined = target;
	lengths[0] = target.length;
	for (let i = 0; i < names.length; i++) {
		const value = field(request, headers, i);
		if (value === null) {
			lengths[i + 1] = -1;
		} else {
			joined += value;
			lengths[i + 1] = value.length;
		}
	}
	const { read, written } = encoder.encodeInto(joined, bytes);
	const fits =
		read === joined.length && (written === joined.length || readEach(request, target, headers));
	if (!fits) {
		needed = 3 * joined.length;
		return -1;
	}
	const method = request.method;
	for (let i = 0; i < methods.length; i++) if (method === methods[i]) return i;
	return methods.length;
}

export function bridge_needed() {
	return needed;
}

// The slow way, for text that is not all ASCII: each value encoded on its own.
function readEach(request, target, headers) {
	let at = put(target, 0, 0);
	for (let i = 0; at >= 0 && i < names.length; i++) {
		const value = field(request, headers, i);
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

// The site's bytes: the Worker's data modules, as views.
let blobs = [];
export function edgesite_set_blobs(list) {
	blobs = Array.from(list, (b) => new Uint8Array(b));
}
export function edgesite_external(blob, offset, length) {
	const b = blobs[blob];
	return b === undefined || offset + length > b.length ? null : b.subarray(offset, offset + length);
}

// Representations decoded on demand (compact storage), by id, kept by recency: a Map iterates
// in insertion order, so a hit is moved to the end and the least recently used go first once
// `limit` (edgesite_core::DECODED_CACHE_BYTES, which wasm passes) is passed.
const decoded = new Map();
let decodedBytes = 0;
export function edgesite_decoded(id) {
	const hit = decoded.get(id);
	if (hit === undefined) return null;
	decoded.delete(id);
	decoded.set(id, hit);
	return hit;
}
function keepDecoded(id, bytes, limit) {
	if (bytes.length > limit) return;
	const old = decoded.get(id);
	if (old !== undefined) {
		decoded.delete(id);
		decodedBytes -= old.length;
	}
	decoded.set(id, bytes);
	decodedBytes += bytes.length;
	for (const [key, gone] of decoded) {
		if (decodedBytes <= limit) break;
		decoded.delete(key);
		decodedBytes -= gone.length;
	}
}

// Compact storage's identity (edgesite_core's Content::Decoded) inflated from its gzip
// representation `source` (a Uint8Array outside wasm memory) as it is read, by the runtime's
// DecompressionStream (native code: the wasm module carries no decoder). Held to the `length`
// the build recorded: a byte past it, or an end short of it, errors the stream. The last chunk
// is held back until the inflater has closed cleanly (gzip's CRC-32 and length checked), so a
// stream that goes wrong never delivers all `length` bytes: the transfer breaks, and the client
// never takes it for a whole body. Once all of it has been inflated without error, it is kept
// decoded (up to `limit`), so later answers are views of it.
function inflated(id, source, length, limit) {
	const chunks = length <= limit ? [] : null;
	let seen = 0;
	let last = null;
	const held = new TransformStream({
		transform(chunk, controller) {
			seen += chunk.length;
			if (seen > length) throw new Error(`edgesite: decoded more than the ${length} bytes the build recorded`);
			chunks?.push(chunk);
			if (last !== null) controller.enqueue(last);
			last = chunk;
		},
		flush(controller) {
			if (seen !== length) throw new Error(`edgesite: decoded ${seen} bytes where the build recorded ${length}`);
			if (last !== null) controller.enqueue(last);
			if (chunks !== null) keepDecoded(id, edgesite_concat(chunks), limit);
		},
	});
	return new Blob([source]).stream().pipeThrough(new DecompressionStream("gzip")).pipeThrough(held);
}

// The answer whose body is representation `id` inflated (see inflated()): all of it, streamed,
// or the `pieces` of a partial body (as in edgesite_stored_response), `total` bytes in all.
export function edgesite_decoded_response(status, fields, id, source, length, pieces, total, limit) {
	const body = inflated(id, source, length, limit);
	if (pieces.length === 0) return edgesite_response(status, fields, body.pipeThrough(fixedLength(total)), false);
	// Ranges: all of it inflated first (a decoded representation is at most half the cache,
	// 16 MiB: the build keeps a larger file's identity), so that their bytes are sent only from
	// a stream that inflated cleanly to its recorded length; then kept, and sliced.
	const parts = new ReadableStream({
		async start(controller) {
			try {
				const bytes = new Uint8Array(await new Response(body).arrayBuffer());
				for (const piece of pieces) {
					controller.enqueue(Array.isArray(piece) ? bytes.subarray(piece[0], piece[1] + 1) : piece);
				}
				controller.close();
			} catch (error) {
				console.error("edgesite:", error);
				controller.error(error);
			}
		},
	});
	return edgesite_response(status, fields, parts.pipeThrough(fixedLength(total)), false);
}

export function edgesite_concat(parts) {
	let length = 0;
	for (const p of parts) length += p.length;
	const out = new Uint8Array(length);
	let at = 0;
	for (const p of parts) {
		out.set(p, at);
		at += p.length;
	}
	return out;
}

// name NUL value NUL name NUL value... as [name, value] pairs.
function fieldPairs(joined) {
	const list = joined.split("\0");
	const pairs = [];
	for (let i = 0; i + 1 < list.length; i += 2) pairs.push([list[i], list[i + 1]]);
	return pairs;
}

// fields: name NUL value NUL ... ; body: null (204, 304, HEAD), a view of wasm memory (which the
// Response constructor copies before this returns) or a JS Uint8Array.
export function edgesite_response(status, fields, body, manual) {
	const headers = fieldPairs(fields);
	headers.push(["date", new Date().toUTCString()]);
	const init = { status, headers };
	if (manual) init.encodeBody = "manual";
	return new Response(body, init);
}

// The store: representations kept outside the Worker (edgesite_core's Content::Stored), read
// through the Worker's Static Assets binding (a Fetcher; under bare workerd, a disk service
// standing in for it) or, for those the core names Store::R2, its R2 bucket's (an R2Bucket;
// under bare workerd, tests/fixtures/r2-stand-in.js). Set by the entry from its env before the
// first answer that needs them.
let store = null;
let bucket = null;
export function edgesite_set_store(fetcher, r2) {
	store = fetcher ?? null;
	bucket = r2 ?? null;
}

// The origin of the store's URLs: only the path reaches the binding.
const STORE_ORIGIN = "https://store.invalid/";
// How long a store read may take to start answering before the answer is 503, and, for a body
// the Worker cuts from the object as it streams (a range, several), to give its next chunk
// before the transfer breaks (a store that stops mid-way never holds the client for ever). A
// whole object's body goes from the store to the client inside the runtime, with no JS between
// them: its chunks are not watched (that would cost CPU per chunk), the runtime's own limits
// apply. The Worker's EDGESITE_STORE_TIMEOUT_MS replaces it (storeTimeout()).
const STORE_TIMEOUT_MS = 10_000;
let storeTimeoutMs = STORE_TIMEOUT_MS;

// Sets the store's timeout from the Worker's variable (milliseconds; unset, or not a positive
// number: the default).
function storeTimeout(value) {
	const ms = Number(value);
	storeTimeoutMs = value !== undefined && value !== null && Number.isFinite(ms) && ms > 0 ? ms : STORE_TIMEOUT_MS;
}

// A store that states the object's length (Content-Length) is held to it: another length is a
// 503, and the body is streamed as it comes. One that states none (wrangler dev's local Static
// Assets) cannot be checked before the status is sent, so an object up to this size is read
// whole first and checked against its name (the first 128 bits of the SHA-256 of its bytes, in
// hex: edgesite_core's Representation::object_key): other bytes, or fewer,
// get a 503. A larger one is streamed into a FixedLengthStream, so bytes that end short break
// the transfer, and the client never takes a short body for a whole one. (Reading and hashing
// a 100 KB object costs about as much CPU as the rest of its answer: docs/benchmarks.md.)
const VERIFIED_BYTES = 256 * 1024;

function hex(digest) {
	return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const warned = new Set();
function missing(binding, section) {
	if (!warned.has(binding)) {
		console.error(`edgesite: the site keeps files in the store, and the Worker has no ${binding} binding (${section} in wrangler.toml): they are answered 503`);
		warned.add(binding);
	}
	return null;
}

// A Promise of null after the store's timeout, its cancel, and whether it has come.
function deadline() {
	let timer;
	const state = { expired: false };
	state.promise = new Promise((resolve) => {
		timer = setTimeout(() => {
			state.expired = true;
			resolve(null);
		}, storeTimeoutMs);
	});
	state.cancel = () => clearTimeout(timer);
	return state;
}

// Bytes [first, last] of object `key` of `length` bytes in R2: a stream of exactly those bytes
// (a FixedLengthStream, so an object that ends short breaks the transfer), or null when the
// bucket does not hold an object of that length. R2 reads the range itself
// (R2Bucket.get's `range`): a 206 reads only its bytes.
async function fromBucket(key, length, first, last) {
	if (bucket === null) return missing("EDGESITE_R2", "[[r2_buckets]]");
	const timeout = deadline();
	try {
		const whole = first === 0 && last === length - 1;
		const options = whole ? {} : { range: { offset: first, length: last - first + 1 } };
		const reading = bucket.get(key, options);
		// A read that answers after the deadline: its body is not wanted.
		reading.then(
			(late) => {
				if (timeout.expired) late?.body?.cancel().catch(() => {});
			},
			() => {},
		);
		const found = await Promise.race([reading, timeout.promise]);
		if (found === null || found === undefined) return null;
		if (found.size !== length || !found.body) {
			found.body?.cancel().catch(() => {});
			return null;
		}
		const { readable, writable } = fixedLength(last - first + 1);
		found.body.pipeTo(writable).catch(() => {});
		return readable;
	} catch (error) {
		console.error("edgesite: R2 read failed:", error);
		return null;
	} finally {
		timeout.cancel();
	}
}

// Object `key` of `length` bytes, in R2 when `r2`, else in Static Assets: a stream of exactly
// its length, or its bytes (a small one the store sent without a length, checked; an empty
// one), or null when the store does not answer with it. From Static Assets, one GET without
// Range: it ignores Range (workers-sdk #8967; measured: docs/http.md), so ranges are cut here.
async function object(key, length, r2) {
	if (r2) return length === 0 ? fromBucketEmpty(key) : fromBucket(key, length, 0, length - 1);
	if (store === null) return missing("ASSETS", "[assets]");
	const { promise: timeout, cancel } = deadline();
	try {
		const response = await Promise.race([store.fetch(STORE_ORIGIN + key, { redirect: "manual" }), timeout]);
		if (response === null) return null;
		const declared = response.headers.get("content-length");
		if (response.status !== 200 || (declared !== null && Number(declared) !== length)) {
			response.body?.cancel();
			return null;
		}
		// An empty object may come without a body stream at all.
		if (length === 0 && declared !== null) return new Uint8Array(0);
		if (response.body === null) return null;
		if (declared !== null) return response.body;
		if (length <= VERIFIED_BYTES) {
			const bytes = new Uint8Array(await Promise.race([response.arrayBuffer(), timeout]) ?? new ArrayBuffer(0));
			const named = key.slice(key.lastIndexOf("/") + 1, key.lastIndexOf("."));
			const digest = hex(await crypto.subtle.digest("SHA-256", bytes));
			if (bytes.length !== length || named.length !== 32 || !digest.startsWith(named)) return null;
			return bytes;
		}
		const { readable, writable } = fixedLength(length);
		response.body.pipeTo(writable).catch(() => {});
		return readable;
	} catch (error) {
		console.error("edgesite: store read failed:", error);
		return null;
	} finally {
		cancel();
	}
}

// Bytes [first, last] of object `key` of `length` bytes, in R2 when `r2`, else in Static
// Assets (a fast 206): a stream of exactly those bytes, or them, or null when the store does not
// answer with the object. R2 reads the range itself; from Static Assets the object is read and
// the range cut from it as it streams.
async function part(key, length, r2, first, last) {
	if (r2) return fromBucket(key, length, first, last);
	const whole = await object(key, length, false);
	return whole === null ? null : cut(whole, key, length, [[first, last]], last - first + 1);
}

// The body made of `pieces` (as in edgesite_stored_response; `total` bytes in all) of object
// `key` of `length` bytes, read as `read` (its bytes, or its stream): cut from the bytes, or
// from the stream as it comes (a range before where the reading is reads the object again).
function cut(read, key, length, pieces, total) {
	if (read instanceof Uint8Array) {
		const parts = pieces.map((p) => (Array.isArray(p) ? read.subarray(p[0], p[1] + 1) : p));
		return parts.length === 1 ? parts[0] : edgesite_concat(parts);
	}
	const { readable, writable } = fixedLength(total);
	writePieces(writable, pieces, read, () => object(key, length, false));
	return readable;
}

// An empty object in R2: held, with no bytes (null when the bucket does not hold it, or does
// not answer in time).
async function fromBucketEmpty(key) {
	if (bucket === null) return missing("EDGESITE_R2", "[[r2_buckets]]");
	const timeout = deadline();
	try {
		const found = await Promise.race([bucket.head(key), timeout.promise]);
		return found !== null && found !== undefined && found.size === 0 ? new Uint8Array(0) : null;
	} catch (error) {
		console.error("edgesite: R2 read failed:", error);
		return null;
	} finally {
		timeout.cancel();
	}
}

// Watches the reads of one body from the store: a read that waits longer than the store's
// timeout fails (`read` rejects), so that the transfer breaks. Only the time a read waits on the
// store counts, not the time the client takes (a slow client holds the writes, not the reads).
// One timer for the whole body, armed again while it lives: no timer per chunk.
class Watchdog {
	constructor() {
		this.since = -1; // when the pending read began, or -1
		this.stalled = new Promise((_, reject) => {
			this.fail = reject;
		});
		this.stalled.catch(() => {});
		this.timer = setTimeout(() => this.check(), storeTimeoutMs);
	}
	check() {
		const waited = this.since < 0 ? 0 : Date.now() - this.since;
		if (waited >= storeTimeoutMs) {
			this.fail(new Error(`edgesite: the store gave no bytes for ${storeTimeoutMs} ms`));
			return;
		}
		this.timer = setTimeout(() => this.check(), storeTimeoutMs - waited);
	}
	async read(reader) {
		this.since = Date.now();
		try {
			return await Promise.race([reader.read(), this.stalled]);
		} finally {
			this.since = -1;
		}
	}
	stop() {
		clearTimeout(this.timer);
	}
}

// Reads an object's stream forward, range after range: bytes [first, last] are written to
// `writer` as they come; a range that starts before where the reading is cannot be had from it
// (then `at(first)` is false and the caller reads the object again). Its reads are watched.
class Cursor {
	constructor(body, watchdog) {
		this.watchdog = watchdog;
		this.reader = body.getReader();
		this.offset = 0; // of the first byte of `pending`
		this.pending = new Uint8Array(0);
	}
	at(first) {
		return first >= this.offset;
	}
	async copy(writer, first, last) {
		while (this.offset <= last) {
			if (this.pending.length === 0) {
				const { done, value } = await this.watchdog.read(this.reader);
				if (done) throw new Error("edgesite: a stored object ended before its length");
				this.pending = value;
			}
			const end = this.offset + this.pending.length;
			if (end > first) {
				const from = Math.max(first - this.offset, 0);
				const to = Math.min(last + 1 - this.offset, this.pending.length);
				await writer.write(this.pending.subarray(from, to));
				if (to < this.pending.length) {
					// The rest of this chunk may hold the next range.
					this.pending = this.pending.subarray(to);
					this.offset += to;
					return;
				}
			}
			this.offset = end;
			this.pending = new Uint8Array(0);
		}
	}
	cancel() {
		this.reader.cancel().catch(() => {});
	}
}

// A stream of exactly `total` bytes where the runtime has one (workerd's FixedLengthStream keeps
// the Content-Length; a plain TransformStream's answer is sent chunked).
function fixedLength(total) {
	return typeof FixedLengthStream === "function" ? new FixedLengthStream(total) : new TransformStream();
}

// The answer with a body from the store: `pieces` is what the body is made of, in order: text
// (a Uint8Array: multipart boundaries) or [first, last] ranges of object `key` (`length`
// bytes); `whole`: the body is all of it. A Promise of the Response; when the store does not
// answer with the object, the 503 the core rendered (`unavailable`: fields, body), never
// another body. The object is read once for ranges in ascending order (the core keeps the
// request's order, RFC 9110 §14.6), again only for one that goes back.
export async function edgesite_stored_response(status, fields, manual, key, r2, length, whole, pieces, total, unavailable, unavailableBody) {
	// A view of wasm memory, which may grow (and move) while the store is read: copied first.
	const failed = unavailableBody.slice();
	if (r2 && !whole) return rangesFromBucket(status, fields, manual, key, length, pieces, total, () => edgesite_response(503, unavailable, failed, false));
	const first = await object(key, length, r2);
	if (first === null) return edgesite_response(503, unavailable, failed, false);
	if (whole) return edgesite_response(status, fields, first, manual);
	return edgesite_response(status, fields, cut(first, key, length, pieces, total), manual);
}

// Writes `pieces` (text, or [first, last] ranges of the stream `body`, read once for ranges in
// ascending order) to `writable`, and closes it; a range that goes back reads `again()` (a
// Promise of a fresh stream, or of null when there is none). A read that fails aborts the
// stream, which breaks the transfer: never other bytes.
async function writePieces(writable, pieces, body, again) {
	const writer = writable.getWriter();
	const watchdog = new Watchdog();
	let cursor = new Cursor(body, watchdog);
	try {
		for (const piece of pieces) {
			if (!Array.isArray(piece)) {
				await writer.write(piece);
				continue;
			}
			if (!cursor.at(piece[0])) {
				cursor.cancel();
				const fresh = await again();
				if (fresh === null) throw new Error("edgesite: the store stopped answering");
				cursor = new Cursor(fresh, watchdog);
			}
			await cursor.copy(writer, piece[0], piece[1]);
		}
		await writer.close();
	} catch (error) {
		console.error("edgesite:", error);
		await writer.abort(error).catch(() => {});
	} finally {
		watchdog.stop();
		cursor.cancel();
	}
}

// A 206 of an object in R2: each range read on its own (R2 reads ranges), the first before the
// status is sent (a bucket without the object gets `unavailable()`), the others as the body is
// written; a read that fails then breaks the transfer, never sends other bytes.
async function rangesFromBucket(status, fields, manual, key, length, pieces, total, unavailable) {
	const ranges = pieces.filter(Array.isArray);
	const first = await fromBucket(key, length, ranges[0][0], ranges[0][1]);
	if (first === null) return unavailable();
	if (pieces.length === 1) return edgesite_response(status, fields, first, manual);
	const { readable, writable } = fixedLength(total);
	const pump = async () => {
		const writer = writable.getWriter();
		const watchdog = new Watchdog();
		let next = first;
		let reader = null;
		try {
			for (const piece of pieces) {
				if (!Array.isArray(piece)) {
					await writer.write(piece);
					continue;
				}
				const part = next ?? (await fromBucket(key, length, piece[0], piece[1]));
				next = null;
				if (part === null) throw new Error("edgesite: R2 stopped answering");
				reader = part.getReader();
				for (let chunk = await watchdog.read(reader); !chunk.done; chunk = await watchdog.read(reader)) {
					await writer.write(chunk.value);
				}
				reader = null;
			}
			await writer.close();
		} catch (error) {
			console.error("edgesite:", error);
			await writer.abort(error).catch(() => {});
			reader?.cancel().catch(() => {});
			next?.cancel().catch(() => {});
		} finally {
			watchdog.stop();
		}
	};
	pump();
	return edgesite_response(status, fields, readable, manual);
}
