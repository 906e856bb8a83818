// The Worker's JS entry, a template that worker-build fills in (CUSTOM_SHIM, set in
// wrangler.toml and scripts/workerd.sh): $SNIPPET_* become the imports of wasm-bindgen's inline
// JS snippets (src/worker.rs). It replaces worker-build's default entry, which answers each
// request through a WorkerEntrypoint class wrapped in Proxies and an async wasm export: measured
// under bare workerd, that machinery cost more CPU per request than everything edgesite does.
// Here a request is one synchronous call into wasm.
import * as imports from "./index_bg.js";
import wasmModule from "./index.wasm";
$SNIPPET_JS_IMPORTS

const wasmImports = {
	"./index_bg.js": imports,
	$SNIPPET_WASM_IMPORTS
};

function instantiate() {
	const instance = new WebAssembly.Instance(wasmModule, wasmImports);
	imports.__wbg_set_wasm(instance.exports);
	instance.exports.__wbindgen_start?.();
}
instantiate();

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
			const response = imports.edgesite_fetch(request);
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
