// The example's JS entry, a template that scripts/build-worker.sh fills in ($SNIPPET_* become
// the imports of wasm-bindgen's inline JS snippets): what worker-build's shim does for a
// workers-rs Worker, without its panic-recovery proxies. The module's `fetch` export (made by
// #[event(fetch)]) is called with the request, the Worker's bindings and its context.
import * as imports from "./index_bg.js";
import wasmModule from "./index.wasm";
$SNIPPET_JS_IMPORTS

let instance;

// A fresh instance, at start and after a trap (a panic aborts: its state is then unknown).
function instantiate() {
	// The old memory's buffer detached first (grow(0) detaches it): wasm-bindgen's glue keeps a
	// view of wasm memory until its buffer is detached, and would read and write the old one.
	instance?.exports.memory.grow(0);
	instance = new WebAssembly.Instance(wasmModule, {
		"./index_bg.js": imports,
		$SNIPPET_WASM_IMPORTS
	});
	imports.__wbg_set_wasm(instance.exports);
	instance.exports.__wbindgen_start?.();
}
instantiate();

export default {
	async fetch(request, env, ctx) {
		try {
			return await imports.fetch(request, env, ctx);
		} catch (error) {
			if (error instanceof WebAssembly.RuntimeError) instantiate();
			throw error;
		}
	},
};
