# edgesite: the two commands are `make dev` (run) and `make test` (test); see README.md and docs/.
SHELL := /bin/bash
ENV := . scripts/env.sh &&
PORT ?= 8787
LISTEN ?= 127.0.0.1:8080

.PHONY: setup dev native example test lint bench loadtest coldstart memory bigsite hugefile manyfiles devloop fuzz soak compact store size views pageload corpus report images dictbench deploy clean

## Install the toolchain and tools (idempotent; seconds when done).
setup:
	@scripts/setup.sh

## Run the Worker under wrangler dev on http://127.0.0.1:$(PORT), rebuilt on every change to the code or the site (EDGESITE_SITE=dir to serve another site).
dev: setup
	@PORT=$(PORT) scripts/dev.sh

## Run examples/api-worker (library mode: an API route beside an embedded site) under wrangler dev on port 8790.
example: setup
	$(ENV) cd examples/api-worker && wrangler dev --ip 127.0.0.1 --port 8790

## Run the native twin on http://$(LISTEN).
native: setup
	$(ENV) cargo run --release -p edgesite-native -- --listen $(LISTEN)

## Every test layer (8): host, browser, native, workerd, wrangler, example, site, views (docs/testing.md).
test: setup
	@$(ENV) cargo xtask test

## Formatting, clippy (host and wasm32) and rustdoc, warnings denied.
lint: setup
	@scripts/lint.sh

## Criterion micro-benchmarks (bounded: ~2-3 s each): decide per scenario, the encoders.
bench: setup
	$(ENV) cargo bench -p edgesite-bench

## Load benchmark on loopback: edgesite-native vs a fixed-response hyper ceiling (wrk, bounded).
loadtest: setup
	@bench/loadtest.sh

## Repeat views in headless Chromium with and without fingerprints, and the link pass's build cost.
views: setup
	@bench/views.sh

## What a visitor waits for: page loads in headless Chromium (Slow 4G, Fast 4G, none), first view,
## repeat view and hover-then-click navigation, edgesite vs nginx vs the JS Worker; Lighthouse.
pageload: setup
	@bench/pageload.sh

## The first view's work proven on real documentation sites (Debian's packages: Sphinx and
## MkDocs with their themes' scripts): identical screenshots, text and console, off and on.
corpus: setup
	@bench/corpus.sh

## Build the site and print where its HTML report is (opened too where a desktop is present).
## (The build `make test` makes, so that after it this builds nothing.)
report: setup
	@$(ENV) cargo xtask report && \
	  { [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ] || ! command -v xdg-open >/dev/null || \
	    xdg-open target/edgesite/report.html >/dev/null 2>&1 & }

## The image stage on real photos and screenshots (COUNT=2000 files): bytes per format, cold build, rebuild.
images: setup
	@bench/images.sh

## RFC 9842 deltas on a replay of 10 deploys: bytes downloaded with br, dcz and dcb (issue 14).
dictbench: setup
	$(ENV) cargo run -q --profile sitegen-bench -p edgesite-sitegen --example dictbench 2>/dev/null

## Cold start under bare workerd: launch to first 200, demo and generated 5/40/70 MB sites, against a JS floor.
coldstart: setup
	@bench/coldstart.sh

## A 1.2 GB generated site (most of it in the store, the largest files in R2): build times, bundle size, every file served byte for byte under wrangler dev and native.
bigsite: setup
	@bench/bigsite.sh

## A 5 GiB file in R2, end to end: its build, and its length, ranges and body under workerd, wrangler dev and native.
hugefile: setup
	@bench/hugefile.sh

## Sites of many tiny files (SIZES, default "5000 20000"): the Worker's cold build, rebuild, module and first 200.
manyfiles: setup
	@bench/manyfiles.sh

## What a Worker isolate holds (inspector: ArrayBuffers, wasm memory, heap), demo and generated sites.
memory: setup
	@bench/memory.sh

## A 100 KB file from the store vs from the bundle under bare workerd: CPU per request, p50/p99, 200 and 304.
store: setup
	@bench/store.sh

## The dev loop: time from editing a site file to wrangler dev serving it.
devloop: setup
	@bench/devloop.sh

## Fuzz every cargo-fuzz target for FUZZ_SECONDS (default 60) each; fails on a crash.
fuzz: setup
	@$(ENV) cargo xtask fuzz

## Soak: SOAK_SECONDS (default 120) of mixed load, 200 connections, against native and the Worker
## under bare workerd; fails on any error, RSS growth or descriptor leak.
soak: setup
	@bench/soak.sh

## Compact storage's cost: two 10 MiB files alternated without Accept-Encoding, full vs compact,
## native and workerd (REV=<commit> adds that commit's build, for before and after).
compact: setup
	@bench/compact.sh

## Bundle sizes against the Worker limits: the demo's deploy bundle, the code alone, generated 5/40/70 MB sites.
size: setup
	@bench/size.sh

## Deploy to Cloudflare (needs CLOUDFLARE_API_TOKEN, or `wrangler login`); the deploy history
## ([history]) records it only once the upload succeeded.
deploy: setup
	@scripts/deploy.sh

clean:
	rm -rf target build dist .wrangler
