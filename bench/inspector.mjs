// A session with a Worker isolate through workerd's inspector (CDP over its WebSocket), for
// bench/memory.mjs and bench/isolate-cpu.mjs: `call(method, params)` resolves with the reply;
// `onEvent` sees every message that is not a reply (e.g. Runtime.executionContextCreated).
export async function inspect(port, onEvent = () => {}) {
	const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
	const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
	await new Promise((resolve, reject) => {
		ws.onopen = resolve;
		ws.onerror = reject;
	});
	let next = 0;
	const pending = new Map();
	ws.onmessage = (event) => {
		const message = JSON.parse(event.data);
		if (message.id === undefined) onEvent(message);
		else pending.get(message.id)?.(message);
	};
	function call(method, params = {}) {
		const id = ++next;
		ws.send(JSON.stringify({ id, method, params }));
		return new Promise((resolve) => pending.set(id, resolve));
	}
	return { call, close: () => ws.close() };
}
