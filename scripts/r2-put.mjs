// Puts the objects a build keeps in R2 (FOLDER/_edgesite/r/<128-bit hex digest>.bin, which
// scripts/build-worker.sh writes to OUT/r2/) into the bucket, each under its key (its path in
// FOLDER), only those not already there: the keys are named by the bytes, so a key the bucket
// holds with the same size holds the same bytes.
//
//   node scripts/r2-put.mjs --bucket NAME --from FOLDER --local PERSIST_DIR
//       wrangler dev's local R2 (`wrangler dev --persist-to PERSIST_DIR`), through miniflare as
//       `wrangler r2 object put --local` does, but in one process for every object;
//   node scripts/r2-put.mjs --bucket NAME --from FOLDER --remote [--dry-run] [--part-bytes N]
//       the account's bucket. With R2's S3 credentials in the environment (R2_ACCESS_KEY_ID,
//       R2_SECRET_ACCESS_KEY, and CLOUDFLARE_ACCOUNT_ID or R2_ENDPOINT, e.g. a jurisdiction's
//       endpoint), through R2's S3 API: a HEAD per key tells which are there, and an object
//       larger than --part-bytes (default 64 MiB; S3 takes 5 MiB to 5 GiB) goes up in parts of
//       that size (multipart upload; larger parts past S3's 10,000), so objects of any size the
//       build keeps go up (R2's largest, 5 GiB less than 5 TiB, in parts of 524 MiB). Without
//       them, through `wrangler r2 object put --remote` per object, which takes files up to
//       300 MiB (a larger one is refused before anything is put, naming it and the
//       credentials); the keys put are recorded in .edgesite/r2/NAME.txt (wrangler cannot list
//       a bucket), so a deploy puts only new ones. --dry-run prints the keys it would put.
import { spawnSync } from "node:child_process";
import { appendFileSync, closeSync, createReadStream, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { dirname, join, relative, sep } from "node:path";
import { parseArgs } from "node:util";

const MIB = 1024 * 1024;
// The largest file `wrangler r2 object put` uploads.
const WRANGLER_MAX_BYTES = 300 * MIB;
const MAX_PARTS = 10_000;
// R2's largest single put: 5 GiB less 5 MiB (developers.cloudflare.com/r2/reference/limits);
// past it, local R2's parts are of LOCAL_PART bytes.
const SINGLE_PUT_MAX = 5 * 1024 * MIB - 5 * MIB;
const LOCAL_PART = 1024 * MIB;

const { values } = parseArgs({
	options: {
		bucket: { type: "string" },
		from: { type: "string" },
		local: { type: "string" },
		remote: { type: "boolean" },
		"dry-run": { type: "boolean" },
		"part-bytes": { type: "string", default: String(64 * MIB) },
	},
});
if (!values.bucket || !values.from || !values.local === !values.remote) {
	console.error("usage: r2-put.mjs --bucket NAME --from FOLDER (--local PERSIST_DIR | --remote [--dry-run] [--part-bytes N])");
	process.exit(2);
}
const partBytes = Number(values["part-bytes"]);
if (!Number.isInteger(partBytes) || partBytes < 5 * MIB || partBytes > 5 * 1024 * MIB) {
	console.error(`r2-put: --part-bytes ${values["part-bytes"]}: S3 takes parts of 5 MiB to 5 GiB`);
	process.exit(2);
}

// Every file under `folder`, as [key, path, size].
function objects(folder) {
	if (!existsSync(folder)) return [];
	const out = [];
	for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
		if (!entry.isFile()) continue;
		const path = join(entry.parentPath ?? entry.path, entry.name);
		out.push([relative(folder, path).split(sep).join("/"), path, statSync(path).size]);
	}
	return out.sort();
}

const all = objects(values.from);
let put = 0;
if (values.local) {
	const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
	// Each object streamed from its file into a Worker that puts the request's body (a body of
	// known length, as R2's put needs), never read whole: a file may be larger than memory, and
	// Node reads no file over 2 GiB at once (readFileSync: ERR_FS_FILE_TOO_LARGE, measured). An
	// object over R2's largest single put (5 GiB less 5 MiB; miniflare's local R2 refuses more,
	// measured with 5 GiB) goes in parts through R2's multipart API, each its own request.
	const putter = `export default {
		async fetch(request, env) {
			const url = new URL(request.url);
			const key = decodeURIComponent(url.pathname.slice(1));
			const id = url.searchParams.get("upload");
			const json = (value) => new Response(JSON.stringify(value));
			if (url.searchParams.has("create")) return json((await env.BUCKET.createMultipartUpload(key)).uploadId);
			if (id === null) return json(await env.BUCKET.put(key, request.body) !== null);
			const upload = env.BUCKET.resumeMultipartUpload(key, id);
			if (url.searchParams.has("complete")) return json(await upload.complete(await request.json()) !== null);
			return json(await upload.uploadPart(Number(url.searchParams.get("part")), request.body));
		},
	};`;
	const mf = new Miniflare(
		convertV4MiniflareOptions({
			modules: true,
			script: putter,
			resourcePersistencePath: join(values.local, "v3"),
			r2Buckets: { BUCKET: values.bucket },
		}),
	);
	try {
		const bucket = await mf.getR2Bucket("BUCKET");
		const base = await mf.ready;
		for (const [key, path, size] of all) {
			if ((await bucket.head(key))?.size === size) continue;
			await putLocal(base, key, path, size);
			put++;
		}
	} finally {
		await mf.dispose();
	}
} else if (process.env.R2_ACCESS_KEY_ID) {
	put = await putThroughS3(all);
} else {
	const large = all.filter(([, , size]) => size > WRANGLER_MAX_BYTES);
	if (large.length > 0) {
		console.error(
			`r2-put: ${large.map(([key, , size]) => `${key} (${size} bytes)`).join(", ")}: over the ` +
				`300 MiB \`wrangler r2 object put\` takes; set R2's S3 credentials (R2_ACCESS_KEY_ID, ` +
				`R2_SECRET_ACCESS_KEY, CLOUDFLARE_ACCOUNT_ID) to put objects of any size. Nothing was put.`,
		);
		process.exit(1);
	}
	const record = join(".edgesite", "r2", `${values.bucket}.txt`);
	const done = new Set(existsSync(record) ? readFileSync(record, "utf8").split("\n") : []);
	for (const [key, path] of all) {
		if (done.has(key)) continue;
		put++;
		if (values["dry-run"]) {
			console.log(`${values.bucket}/${key}`);
			continue;
		}
		const args = ["r2", "object", "put", `${values.bucket}/${key}`, "--file", path, "--remote"];
		const result = spawnSync("wrangler", args, { stdio: "inherit" });
		if (result.status !== 0) {
			console.error(`r2-put: wrangler failed on ${key}; the keys put so far are recorded in ${record}`);
			process.exit(1);
		}
		mkdirSync(dirname(record), { recursive: true });
		appendFileSync(record, `${key}\n`);
	}
}
console.error(`r2-put: ${values.bucket}: ${put} of ${all.length} objects put${values["dry-run"] ? " (dry run)" : ""}`);

// Puts object `key` (the file at `path`, `size` bytes) through the putter Worker at `base`: in
// one request, or in parts of LOCAL_PART bytes past R2's largest single put (SINGLE_PUT_MAX).
async function putLocal(base, key, path, size) {
	const url = (query) => new URL(`${encodeURIComponent(key)}?${query}`, base);
	if (size <= SINGLE_PUT_MAX) return sendFile(url(""), "PUT", path, 0, size);
	const upload = await sendFile(url("create"), "POST", null, 0, 0);
	const parts = [];
	for (let at = 0, n = 1; at < size; at += LOCAL_PART, n++) {
		const part = await sendFile(url(`upload=${encodeURIComponent(upload)}&part=${n}`), "PUT", path, at, Math.min(LOCAL_PART, size - at));
		parts.push(part);
	}
	const done = new URL(url(`upload=${encodeURIComponent(upload)}&complete`));
	return sendJson(done, parts);
}

// Sends `length` bytes of the file at `path` from `at` (none when `path` is null) to `url`
// through node:http, piped: read as the socket takes it (fetch with a stream body held the whole
// 2.5 GiB object in Node, measured, as did miniflare's dispatchFetch). Resolves with the
// answer's JSON; rejects on any status but 200.
function sendFile(url, method, path, at, length) {
	return new Promise((resolve, reject) => {
		const headers = { "content-length": String(length) };
		const request = httpRequest(url, { method, headers }, (answer) => answered(answer, resolve, reject));
		request.on("error", reject);
		if (path === null || length === 0) return request.end();
		const file = createReadStream(path, { start: at, end: at + length - 1 });
		file.on("error", reject);
		file.pipe(request);
	});
}

function sendJson(url, value) {
	return new Promise((resolve, reject) => {
		const body = JSON.stringify(value);
		const headers = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
		const request = httpRequest(url, { method: "POST", headers }, (answer) => answered(answer, resolve, reject));
		request.on("error", reject);
		request.end(body);
	});
}

function answered(answer, resolve, reject) {
	let text = "";
	answer.setEncoding("utf8");
	answer.on("data", (chunk) => (text += chunk));
	answer.on("end", () => {
		if (answer.statusCode !== 200) return reject(new Error(`r2-put: local R2 answered ${answer.statusCode}: ${text.slice(0, 300)}`));
		try {
			resolve(JSON.parse(text));
		} catch (error) {
			reject(error);
		}
	});
}

// R2's S3 API (aws4fetch signs each request with SigV4, and retries 5xx and 429 answers):
// HEAD each key, put those missing (or of another size), a few at a time. Returns how many.
async function putThroughS3(objects) {
	const { AwsClient } = await import("aws4fetch");
	const account = process.env.CLOUDFLARE_ACCOUNT_ID;
	const endpoint = process.env.R2_ENDPOINT ?? (account && `https://${account}.r2.cloudflarestorage.com`);
	if (!endpoint || !process.env.R2_SECRET_ACCESS_KEY) {
		console.error("r2-put: R2_ACCESS_KEY_ID is set: R2_SECRET_ACCESS_KEY and CLOUDFLARE_ACCOUNT_ID (or R2_ENDPOINT) are needed too");
		process.exit(2);
	}
	const s3 = new AwsClient({
		accessKeyId: process.env.R2_ACCESS_KEY_ID,
		secretAccessKey: process.env.R2_SECRET_ACCESS_KEY,
		service: "s3",
		region: "auto",
	});
	const base = `${endpoint.replace(/\/+$/, "")}/${encodeURIComponent(values.bucket)}/`;
	const send = async (url, init, what) => {
		const response = await s3.fetch(url, init);
		if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
		return response;
	};
	let put = 0;
	const queue = objects.slice();
	const worker = async () => {
		for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
			const [key, path, size] = next;
			const url = base + key.split("/").map(encodeURIComponent).join("/");
			const head = await s3.fetch(url, { method: "HEAD" });
			if (head.ok && Number(head.headers.get("content-length")) === size) continue;
			put++;
			if (values["dry-run"]) console.log(`${values.bucket}/${key}`);
			else if (size <= partBytes) await send(url, { method: "PUT", body: readFileSync(path) }, `PUT ${key}`);
			else await putInParts(send, url, key, path, size);
		}
	};
	await Promise.all(Array.from({ length: 4 }, worker));
	return put;
}

// Fills `bytes` from `file` at `at` (one read returns at most about 2 GiB on Linux); the bytes
// read, fewer at the file's end.
function readAll(file, bytes, at) {
	let done = 0;
	while (done < bytes.length) {
		const read = readSync(file, bytes, done, bytes.length - done, at + done);
		if (read === 0) break;
		done += read;
	}
	return done;
}

// S3's multipart upload: parts of partBytes, or larger past 10,000 of them (every part but the
// last the same size, as R2 asks), read from the file one at a time; an upload that fails is
// aborted, so that the bucket keeps no parts of it.
async function putInParts(send, url, key, path, size) {
	const created = await send(`${url}?uploads`, { method: "POST" }, `multipart upload of ${key}`);
	const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await created.text())?.[1];
	if (!uploadId) throw new Error(`multipart upload of ${key}: no UploadId`);
	const id = encodeURIComponent(uploadId);
	const file = openSync(path, "r");
	// S3 (and R2) take at most 10,000 parts: a larger object goes up in larger parts, whole
	// MiB (R2's largest object, 5 GiB less than 5 TiB, in parts of 524 MiB, under its 5 GiB).
	const each = Math.max(partBytes, Math.ceil(size / MAX_PARTS / MIB) * MIB);
	try {
		const etags = [];
		for (let at = 0, part = 1; at < size; at += each, part++) {
			const bytes = Buffer.alloc(Math.min(each, size - at));
			if (readAll(file, bytes, at) !== bytes.length) throw new Error(`${path} changed while it was put`);
			const done = await send(`${url}?partNumber=${part}&uploadId=${id}`, { method: "PUT", body: bytes }, `part ${part} of ${key}`);
			etags.push(`<Part><PartNumber>${part}</PartNumber><ETag>${done.headers.get("etag")}</ETag></Part>`);
		}
		const body = `<CompleteMultipartUpload>${etags.join("")}</CompleteMultipartUpload>`;
		await send(`${url}?uploadId=${id}`, { method: "POST", body }, `completing ${key}`);
		console.error(`r2-put: ${key}: ${etags.length} parts`);
	} catch (error) {
		await s3.fetch(`${url}?uploadId=${id}`, { method: "DELETE" }).catch(() => {});
		throw error;
	} finally {
		closeSync(file);
	}
}
