// Puts the objects a build keeps in R2 (FOLDER/_edgesite/r/<128-bit hex digest>.bin, which
// scripts/build-worker.sh writes to OUT/r2/) into the bucket, each under its key (its path in
// FOLDER), only those not already there: the keys are named by the bytes, so a key the bucket
// holds with the same size holds the same bytes.
//
//   node scripts/r2-put.mjs --bucket NAME --from FOLDER --local PERSIST_DIR
//       wrangler dev's local R2 (`wrangler dev --persist-to PERSIST_DIR`), through miniflare as
//       `wrangler r2 object put --local` does, but in one process for every object;
//   node scripts/r2-put.mjs --bucket NAME --from FOLDER --remote [--dry-run]
//       the account's bucket, through `wrangler r2 object put --remote` per object; the keys put
//       are recorded in .edgesite/r2/NAME.txt (wrangler cannot list a bucket), so a deploy
//       puts only new ones. --dry-run prints the keys it would put.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
	options: {
		bucket: { type: "string" },
		from: { type: "string" },
		local: { type: "string" },
		remote: { type: "boolean" },
		"dry-run": { type: "boolean" },
	},
});
if (!values.bucket || !values.from || !values.local === !values.remote) {
	console.error("usage: r2-put.mjs --bucket NAME --from FOLDER (--local PERSIST_DIR | --remote [--dry-run])");
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
	const mf = new Miniflare(
		convertV4MiniflareOptions({
			modules: true,
			script: "export default { fetch() { return new Response(null, { status: 404 }); } };",
			resourcePersistencePath: join(values.local, "v3"),
			r2Buckets: { BUCKET: values.bucket },
		}),
	);
	try {
		const bucket = await mf.getR2Bucket("BUCKET");
		for (const [key, path, size] of all) {
			if ((await bucket.head(key))?.size === size) continue;
			await bucket.put(key, readFileSync(path));
			put++;
		}
	} finally {
		await mf.dispose();
	}
} else {
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
