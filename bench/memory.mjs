// Reads a Worker isolate's memory through workerd's inspector (CDP over its WebSocket):
// Runtime.getHeapUsage (the JS heap, and the ArrayBuffer backing stores: the site's blobs and
// wasm memory) and edgesite's own figures (globalThis.edgesiteMemory(): the bytes of wasm memory
// and of blobs). Prints one JSON object.  Usage: node bench/memory.mjs INSPECTOR_PORT
const port = process.argv[2];
const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
await new Promise((resolve, reject) => {
	ws.onopen = resolve;
	ws.onerror = reject;
});
let next = 0;
const pending = new Map();
let context;
const contextCreated = new Promise((resolve) => (context = resolve));
ws.onmessage = (event) => {
	const message = JSON.parse(event.data);
	if (message.method === "Runtime.executionContextCreated") context(message.params.context.id);
	pending.get(message.id)?.(message);
};
function call(method, params = {}) {
	const id = ++next;
	ws.send(JSON.stringify({ id, method, params }));
	return new Promise((resolve) => pending.set(id, resolve));
}
await call("Runtime.enable");
// workerd has no default context: evaluate in the Worker's.
const contextId = await contextCreated;
const heap = (await call("Runtime.getHeapUsage")).result;
const own = await call("Runtime.evaluate", {
	expression: "JSON.stringify(globalThis.edgesiteMemory ? globalThis.edgesiteMemory() : null)",
	contextId,
	returnByValue: true,
});
ws.close();
console.log(JSON.stringify({ heap, edgesite: JSON.parse(own.result?.result?.value ?? "null") }));
