"""Where the edgesite Worker's CPU per request goes, against the workerd floor's: reads two
`perf report` symbol listings (samples per symbol, from `perf record -F HZ -p <workerd>` while
wrk ran) and the request counts of the two runs, and prints the CPU per request of each part of
the work, then the symbols that differ most. Run by `PART=profile bench/loadtest.sh`.

Usage: perfdiff.py HZ EDGESITE_SYMBOLS EDGESITE_REQUESTS FLOOR_SYMBOLS FLOOR_REQUESTS"""
import re
import sys

# What each part of a request's work is made of, by symbol (first match wins). V8's JIT symbols
# (workerd's v8Flags --perf-basic-prof) name the JS functions and the wasm functions.
PARTS = [
    (
        "reading the request's fields (Headers.get)",
        re.compile(
            r"getHeaderKeyFor|strcaseeq|api::Headers::get|Headers15registerMembers"
            r"|unwrap<kj::String>|String::ValueView|api7Request"
        ),
    ),
    ("writing them into wasm memory (encodeInto)", re.compile(r"WriteUtf8|validate_ascii|EncodeInto|TextEncoder")),
    ("edgesite-core's decision (wasm)", re.compile(r"^JS:wasm-function")),
    ("the JS entry (answer, write, keep)", re.compile(r"^JS:")),
    # The Response's copy of its fields, and the request's Headers (only edgesite reads them).
    ("Headers objects made and freed", re.compile(r"Headers::shallowCopyTo|Headers::Header|~Headers")),
    ("memory (tcmalloc, V8's and cppgc's heaps)", re.compile(r"tcmalloc|cppgc|Heap|GlobalHandles|Scavenge|memmove")),
    ("the kernel (TCP on loopback, scheduling)", re.compile(r"^[a-z_0-9.]+$")),
]
OTHER = "the rest of workerd and V8"


def load(path):
    samples = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        count, _, symbol = line.partition("\t")
        if count.strip().isdigit():
            symbol = symbol.strip()
            samples[symbol] = samples.get(symbol, 0) + int(count)
    return samples


def part_of(symbol):
    return next((name for name, pattern in PARTS if pattern.search(symbol)), OTHER)


def main():
    hz = float(sys.argv[1])
    edgesite, floor = load(sys.argv[2]), load(sys.argv[4])
    e_requests, f_requests = float(sys.argv[3]), float(sys.argv[5])

    def micros(samples, requests):
        return samples / hz / requests * 1e6

    parts = {}
    for symbol in set(edgesite) | set(floor):
        part = part_of(symbol)
        e, f = parts.get(part, (0, 0))
        parts[part] = (e + edgesite.get(symbol, 0), f + floor.get(symbol, 0))
    print("| part of the work | edgesite Worker | floor | difference |\n|---|---|---|---|")
    for name in [p for p, _ in PARTS] + [OTHER]:
        e, f = parts.get(name, (0, 0))
        e, f = micros(e, e_requests), micros(f, f_requests)
        print(f"| {name} | {e:.2f} µs | {f:.2f} µs | {e - f:+.2f} µs |")
    e, f = micros(sum(edgesite.values()), e_requests), micros(sum(floor.values()), f_requests)
    print(f"| all (CPU per request while profiled) | {e:.2f} µs | {f:.2f} µs | {e - f:+.2f} µs |")
    rows = sorted(
        ((micros(edgesite.get(s, 0), e_requests) - micros(floor.get(s, 0), f_requests), s) for s in set(edgesite) | set(floor)),
        reverse=True,
    )
    print("\nThe symbols edgesite spends most more on (µs per request):")
    for difference, symbol in rows[:12]:
        print(f"  {difference:+.2f}  {symbol[:110]}")


main()
