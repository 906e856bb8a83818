//! # edgesite-tables
//!
//! The compiled site's tables ([`edgesite_core::Site`]) as data: [`encode`] writes them at build
//! time (edgesite-sitegen), [`decode`] reads them back once, at start (the Worker's wasm and
//! the native twin), into leaked allocations that live as long as the process, as a
//! `static` would. This replaces a generated Rust source of the tables, which rustc took 3.1 GB
//! and most of a minute to compile at 20,000 files (docs/benchmarks.md, "Many files"): the
//! tables are now a file that `include_bytes!` embeds, whatever the site's size.
//!
//! The format (version [`VERSION`]): after a magic, the version and the strings' length (four
//! bytes each, little-endian), numbers as unsigned LEB128 varints (most take a byte or two), in
//! sections, each a count and its items: every string of the site once (a string is an offset
//! and a length in that section, which is valid UTF-8 as a whole), the shared pools (numbers,
//! field pairs, representations, deltas, variants, rule segments and destination parts, rule
//! index children), then the alternates (a page's Markdown twin: an asset another one names
//! as its [`alternate`](edgesite_core::Asset::alternate), written first so that a page can name
//! it by index), then the other assets (each naming ranges of the pools, and its alternate's
//! index or none), routes, 404 pages, rules, the rule index and the site's own values. An asset
//! is named by its index, counting the alternates and then the others, so a route, a 404 page
//! and the fallback share one, and a twin's route names its alternate: one decoded asset, held
//! once. Bytes in memory ([`Content::Bytes`]) are not tables:
//! a site to encode keeps its bytes in blobs ([`Content::External`]), which [`decode`] turns
//! into slices of the blobs it is given (the native twin's, in its binary), or keeps as they
//! are (the Worker's, outside wasm). A stored representation ([`Content::Stored`]) holds no
//! name: its object is named by its ETag ([`edgesite_core::Representation::object_key`]).
//!
//! [`Content::Stored`]: edgesite_core::Content::Stored
//! [`Content::Bytes`]: edgesite_core::Content::Bytes
//! [`Content::External`]: edgesite_core::Content::External
//!
//! Decoding checks every count, offset and index against the bytes it has, and what the core
//! takes for granted (each asset has a representation, one decoded on demand names one of its
//! asset's, a Content-Length is its representation's length, a stored representation's ETag
//! names its object, routes are sorted): a corrupt or
//! truncated file is an [`Error`], never a panic or a read out of bounds.

mod decode;
mod encode;
mod format;

pub use decode::{decode, decode_measured};
pub use encode::encode;
pub use format::{Error, MAGIC, VERSION};

#[cfg(test)]
mod tests;
