// Reads a Worker isolate's memory through workerd's inspector (CDP over its WebSocket):
// Runtime.getHeapUsage (the JS heap, and the ArrayBuffer backing stores: the site's blobs, its
// tables and wasm memory) and edgesite's own figures (globalThis.edgesiteMemory(): the bytes of
// wasm memory, of blobs, of the tables' data module (0 once wasm memory has them: src/entry.js
// lets it go) and of the tables in wasm memory). Prints one JSON object.  Usage: node bench/memory.mjs INSPECTOR_PORT
import { inspect } from "./inspector.mjs";

const port = process.argv[2];
let context;
const contextCreated = new Promise((resolve) => (context = resolve));
const { call, close } = await inspect(port, (message) => {
	if (message.method === "Runtime.executionContextCreated") context(message.params.context.id);
});
await call("Runtime.enable");
// workerd has no default context: evaluate in the Worker's.
const contextId = await contextCreated;
const heap = (await call("Runtime.getHeapUsage")).result;
const own = await call("Runtime.evaluate", {
	expression: "JSON.stringify(globalThis.edgesiteMemory ? globalThis.edgesiteMemory() : null)",
	contextId,
	returnByValue: true,
});
close();
console.log(JSON.stringify({ heap, edgesite: JSON.parse(own.result?.result?.value ?? "null") }));
