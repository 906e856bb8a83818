// The time a Worker's isolate spends working while a command runs: V8's sampling profiler,
// through workerd's inspector (CDP over its WebSocket), started before the command and stopped
// after it. Every sample that is not "(idle)" counts: the Worker's JS and wasm, V8's own work for
// them ("(program)", "(garbage collector)") and the runtime's calls they wait on synchronously,
// a binding's fetch() among them (under bare workerd a disk service standing in for Static
// Assets may do some of its work inside that call). What it does not count is workerd's work
// while the isolate waits (its sockets, other services between the isolate's turns): the
// closest this machine has to the CPU time Cloudflare bills a Worker. Prints the command's
// output, then `isolate busy: MS ms`; with ISOLATE_PROFILE=FILE, writes the profile there too
// (a .cpuprofile Chromium's DevTools opens).
// Usage: node bench/isolate-cpu.mjs INSPECTOR_PORT COMMAND [ARG...]
import { spawnSync } from "node:child_process";
import { inspect } from "./inspector.mjs";

const [port, ...command] = process.argv.slice(2);
const { call, close } = await inspect(port);
await call("Profiler.enable");
// Every 100 µs: a request here costs tens of microseconds, so the sums are of many samples.
await call("Profiler.setSamplingInterval", { interval: 100 });
await call("Profiler.start");
// The command runs while this process waits; the inspector's messages queue on the socket.
const run = spawnSync(command[0], command.slice(1), { stdio: ["ignore", "inherit", "inherit"] });
const { profile } = (await call("Profiler.stop")).result;
close();
if (process.env.ISOLATE_PROFILE) (await import("node:fs")).writeFileSync(process.env.ISOLATE_PROFILE, JSON.stringify(profile));
if (run.status !== 0) process.exit(run.status ?? 1);
const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
let busy = 0;
profile.samples.forEach((node, i) => {
	if (!idle.has(node)) busy += profile.timeDeltas[i] ?? 0;
});
console.log(`isolate busy: ${(busy / 1000).toFixed(1)} ms`);
