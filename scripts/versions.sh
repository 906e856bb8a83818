# Pinned tool versions (change them together; docs/testing.md, "What `make setup` installs",
# says why each). The wasm-bindgen CLI version is not here: it is read from Cargo.lock, so it
# always equals the library's.
WASM_PACK_VERSION=0.15.1
# `make fuzz` only (installed on first use, not by `make setup`).
CARGO_FUZZ_VERSION=0.13.2
