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

export default {
	fetch(request) {
		try {
			return imports.edgesite_fetch(request);
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
