# Pinned tool versions (change them together; docs/testing.md, "What `make setup` installs",
# says why each). The wasm-bindgen CLI version is not here: it is read from Cargo.lock, so it
# always equals the library's.
WASM_PACK_VERSION=0.15.1
# `make fuzz` only (installed on first use, not by `make setup`).
CARGO_FUZZ_VERSION=0.13.2
# An S3 server for tests/r2_deploy.rs (scripts/r2-put.mjs through R2's S3 API): moto's, in a
# Python venv of the tools folder (`moto_server` on PATH).
MOTO_VERSION=5.2.5
FLASK_VERSION=3.1.3
FLASK_CORS_VERSION=6.0.5
