//! One file of the site as the build serves it: an [`Asset`], its [`Representation`]s (named as
//! edgesite-core names them), its deltas and variants, and what the image stage and the link
//! pass did with it.

use super::{Body, Source};
use crate::hash;
use edgesite_core::ContentCoding;
use serde::{Serialize, Serializer};

/// The folder of the store's objects in Static Assets, from the store's root. Never a URL of the
/// site: the Worker answers every request first (`run_worker_first`) and reads objects only
/// through its binding.
pub const OBJECT_FOLDER: &str = edgesite_core::Store::Assets.folder();

/// The folder of the store's objects in R2, from the store's root (the same names as keys in
/// the bucket). A Worker's build moves it out of what wrangler uploads as Static Assets.
pub const R2_FOLDER: &str = edgesite_core::Store::R2.folder();

/// One file of the site: a resource and everything its responses carry, decided at build.
#[derive(Debug, Clone, Serialize)]
pub struct Asset {
    /// The URL path, e.g. `/docs/index.html`.
    pub path: String,
    /// Where its bytes come from (the source's, unless the build changed them: see
    /// [`Asset::identity_bytes`]).
    pub source: Source,
    /// Content-Type field value.
    pub content_type: &'static str,
    /// Cache-Control field value.
    pub cache_control: String,
    /// Why it got that Cache-Control.
    pub cache_reason: CacheReason,
    /// The configured fields of this file's 2xx and 304 responses: the `[headers]` defaults,
    /// `cdn-cache-control`, and what `_headers` adds or removes.
    #[serde(rename = "headers")]
    pub fields: Vec<(String, String)>,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the bytes served (identity), lower-case hex.
    pub sha256: String,
    /// Its first 10 hex digits, when references to this file get `?v=` (`[fingerprint]`): a
    /// request with `v` equal to it gets [`Manifest::fingerprinted_cache_control`](super::Manifest::fingerprinted_cache_control). Empty when
    /// the file is not fingerprinted.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fingerprint: String,
    /// When the link pass rewrote references in this file (`?v=`): the bytes served, which
    /// `sha256` and `integrity` describe, are not the source file's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewritten: Option<Rewritten>,
    /// Subresource Integrity of the bytes served (`sha384-...`, W3C SRI), for
    /// `<script integrity>`.
    pub integrity: String,
    /// The strong ETag, quoted.
    pub etag: String,
    /// The stored representations: identity first, then the encodings worth keeping.
    pub representations: Vec<Representation>,
    /// Deltas against earlier deploys' versions of this file (RFC 9842), from the deploy
    /// history; empty without one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deltas: Vec<Delta>,
    /// The file in other media types (an image's AVIF and WebP forms), sent to clients whose
    /// Accept names them; empty for most files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    /// What the image stage did with this file, when it is an image it read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageReport>,
    /// Where its representations are kept (the storage stage's choice).
    #[serde(skip_serializing_if = "Tier::is_bundle")]
    pub tier: Tier,
    /// The index among the site's files of its alternate (a page's Markdown twin, the agents
    /// stage's), sent at this file's URLs to a request whose Accept prefers its type
    /// (edgesite-core's `Asset::alternate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alternate: Option<usize>,
}

/// Where a file's representations are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// In the Worker's bundle (blobs beside its module; the native twin's binary).
    #[default]
    Bundle,
    /// In the store, an object per representation named by its bytes
    /// ([`Representation::object_key`]): Workers Static Assets for the Worker, a folder for the
    /// native twin.
    Assets,
    /// In the store, as for [`Tier::Assets`], in an R2 bucket for the Worker: files larger than
    /// Static Assets takes (`[budget] max_file_bytes`), or named by `[storage] r2`.
    R2,
}

impl Tier {
    fn is_bundle(&self) -> bool {
        *self == Tier::Bundle
    }

    /// Whether the files of this tier are in the store (objects, not the bundle's blobs).
    pub fn is_stored(self) -> bool {
        self != Tier::Bundle
    }

    /// The core's name for the store that holds this tier's objects (the bundle's files have
    /// none: Static Assets, the store `auto` would send them to).
    pub fn store(self) -> edgesite_core::Store {
        match self {
            Tier::R2 => edgesite_core::Store::R2,
            Tier::Bundle | Tier::Assets => edgesite_core::Store::Assets,
        }
    }

    /// The folder of this tier's objects under the store's root.
    pub fn object_folder(self) -> &'static str {
        self.store().folder()
    }
}

/// The file in another media type, made by the image stage (stored in the identity coding).
#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    /// Its Content-Type: `image/avif`, `image/webp`.
    pub content_type: &'static str,
    /// Its bytes, size and ETag.
    pub representation: Representation,
    /// Its SSIMULACRA2 score against the original (lossy variants; `None`: lossless, checked
    /// pixel-identical).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

/// What the image stage did with one image: the report's rows.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ImageReport {
    /// The source file's size.
    pub original_bytes: u64,
    /// Width and height as shown (EXIF orientation applied).
    pub dimensions: (u32, u32),
    /// Why the image is served as it is, with no candidate tried (excluded, animated, too large,
    /// not decodable, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_as_is: Option<String>,
    /// Set with `left_as_is` when the build should warn of it: an image over the stage's bounds
    /// (`max_pixels`, `max_memory_mb`) or one that cannot be decoded, not one left as it is by
    /// design (animated, excluded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Every encoding tried, kept or not.
    pub candidates: Vec<Candidate>,
}

/// One encoding the image stage tried.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Candidate {
    /// What it is: `png (oxipng)`, `webp lossless`, `avif q82`, `webp q85`.
    pub kind: String,
    /// Its bytes (0 when it could not be made).
    pub bytes: u64,
    /// Its SSIMULACRA2 score against the original (lossy only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Whether it is served.
    pub kept: bool,
    /// Why it was kept or dropped.
    pub why: String,
}

/// How the link pass changed a file (see [`Asset::rewritten`]).
#[derive(Debug, Clone, Serialize)]
pub struct Rewritten {
    /// References given a `?v=` (or replaced by a redirect's target).
    pub references: usize,
    /// SHA-256 of the source file's bytes, lower-case hex.
    pub source_sha256: String,
}

/// A delta of a file (RFC 9842): its bytes in `dcb` or `dcz` against an earlier version the
/// deploy history kept.
#[derive(Debug, Clone, Serialize)]
pub struct Delta {
    /// The SHA-256 of the dictionary (the earlier version's bytes): what Available-Dictionary
    /// names.
    #[serde(serialize_with = "serialize_hex")]
    pub dictionary: [u8; 32],
    /// The delta's bytes, size and ETag.
    #[serde(rename = "variant")]
    pub representation: Representation,
}

fn serialize_hex<S: Serializer>(bytes: &[u8; 32], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&hash::hex(bytes))
}

/// One stored representation of a file (RFC 9110 §3.2).
#[derive(Debug, Clone, Serialize)]
pub struct Representation {
    /// The content coding (written as its token: `identity`, `br`, `zstd`, `gzip`).
    #[serde(serialize_with = "serialize_coding")]
    pub coding: ContentCoding,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of these bytes, lower-case hex.
    pub sha256: String,
    /// This representation's own strong ETag (RFC 9110 §8.8.3).
    pub etag: String,
    /// The bytes (`None` for an identity read from the source file).
    #[serde(skip)]
    pub bytes: Option<Vec<u8>>,
    /// Compact storage: not stored, but decoded on demand from the file's representation with
    /// this index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decoded_from: Option<usize>,
}

impl Representation {
    /// A representation of `size` bytes with this SHA-256; `bytes` are kept for encoded ones.
    pub(crate) fn new(
        coding: ContentCoding,
        digest: &[u8; 32],
        size: usize,
        bytes: Option<Vec<u8>>,
    ) -> Representation {
        Representation {
            coding,
            size: size as u64,
            sha256: hash::hex(digest),
            etag: hash::strong_etag(digest),
            bytes,
            decoded_from: None,
        }
    }

    /// The name of this representation's object in the store: a path named by its bytes (the
    /// first 128 bits of their SHA-256, which the ETag carries: the name the core gives the
    /// adapters, [`edgesite_core::Representation::object_key`]), so the objects of every deploy
    /// can live side by side and identical bytes are stored once. Its extension is neutral
    /// (`.bin`): Static Assets would guess a type, or an encoding, from another, and the Worker
    /// sends its own fields anyway.
    pub fn object_key(&self, tier: Tier) -> String {
        let digits = self.sha256.get(..32).unwrap_or(&self.sha256);
        format!("{}/{digits}.bin", tier.object_folder())
    }

    /// The bytes this representation adds to the bundle (none when decoded on demand).
    pub fn stored_size(&self) -> u64 {
        if self.decoded_from.is_some() {
            0
        } else {
            self.size
        }
    }
}

impl Asset {
    /// The bytes served as identity when the build holds them: a file the link pass rewrote,
    /// one the image stage re-encoded, one the build made; `None`: the source file's, read
    /// from it.
    pub fn identity_bytes(&self) -> Option<&[u8]> {
        self.representations
            .iter()
            .find(|r| r.coding == ContentCoding::Identity)
            .and_then(|r| r.bytes.as_deref())
    }

    /// Where the bytes it serves as identity are: [`Asset::identity_bytes`], else its source's.
    pub(crate) fn identity_body(&self) -> Body<'_> {
        self.identity_bytes()
            .map_or_else(|| self.source.body(), Body::Bytes)
    }

    /// The bytes this asset adds to the bundle as it is now.
    pub fn bundle_bytes(&self) -> u64 {
        match self.tier {
            Tier::Bundle => self.stored_bytes(),
            Tier::Assets | Tier::R2 => 0,
        }
    }

    /// An estimate, from above, of the bytes this file's entries take in the tables the Worker
    /// holds (edgesite-tables' format: numbers as varints, each string once): its routes,
    /// its asset, a representation per coding, delta and variant, and their strings; wherever
    /// its bytes are kept, its tables are in the bundle. Measured against the tables of sites of
    /// 5,004 and 20,004 files in docs/benchmarks.md ("Many files").
    pub fn table_bytes(&self) -> u64 {
        // The asset's numbers and string references; a route's (a file has its path and, for a
        // page, a clean URL redirecting or redirected); a representation's, with its ETag and
        // its length's text. Strings are counted as if no other file shared them.
        const ASSET: u64 = 48;
        const ROUTES: u64 = 2 * 16;
        const REPRESENTATION: u64 = 32;
        // Fields: an allowance for what the fields stage adds once the files are placed (the
        // estimate must not grow in between); the fields every file shares are written once
        // (the tables' format), in the allowance. A page's preload hints (its `link` field, set
        // before the storage stage and never lengthened after it) are counted with every
        // file's, each text once ([`crate::storage::code_bytes`]).
        const FIELDS_LATER: u64 = 96;
        let links = 16
            * self
                .fields
                .iter()
                .filter(|(name, _)| name == "link")
                .count();
        let strings = 2 * self.path.len() + self.cache_control.len() + self.fingerprint.len();
        let kept: u64 = self
            .kept()
            .map(|r| REPRESENTATION + r.etag.len() as u64)
            .sum();
        // A delta's Available-Dictionary text (`:<base64 of 32 bytes>:`).
        let deltas = self.deltas.len() as u64 * 48;
        ASSET + ROUTES + FIELDS_LATER + (strings + links) as u64 + kept + deltas
    }

    /// Every representation, delta and variant this file keeps, wherever it is kept.
    pub fn kept(&self) -> impl Iterator<Item = &Representation> + '_ {
        self.representations
            .iter()
            .chain(self.deltas.iter().map(|d| &d.representation))
            .chain(self.variants.iter().map(|v| &v.representation))
    }

    /// The bytes it keeps: its representations (not those decoded on demand), deltas and
    /// variants.
    pub fn stored_bytes(&self) -> u64 {
        let deltas = self.deltas.iter().map(|d| d.representation.size);
        self.representations
            .iter()
            .map(Representation::stored_size)
            .chain(deltas)
            .chain(self.variant_bytes())
            .sum()
    }

    /// The bytes of each variant (stored in every storage mode).
    fn variant_bytes(&self) -> impl Iterator<Item = u64> + '_ {
        self.variants.iter().map(|v| v.representation.size)
    }

    /// The bytes this asset would add in compact storage.
    pub fn compact_bytes(&self) -> u64 {
        match self.compact_source() {
            Some(_) => self
                .representations
                .iter()
                .filter(|r| kept_in_compact(r.coding))
                .map(|r| r.size)
                .chain(self.deltas.iter().map(|d| d.representation.size))
                .chain(self.variant_bytes())
                .sum(),
            None => self.stored_bytes(),
        }
    }

    /// The index of the representation compact storage decodes identity from: gzip; `None`
    /// when the asset has none, or when its identity is larger than half the runtimes' decoded
    /// cache ([`edgesite_core::DECODED_CACHE_BYTES`]), so that any two decoded files fit it at
    /// once and two alternating requests never decode each other out (then it keeps its
    /// identity).
    pub(crate) fn compact_source(&self) -> Option<usize> {
        if self.size > edgesite_core::DECODED_CACHE_BYTES as u64 / 2 {
            return None;
        }
        self.representations
            .iter()
            .position(|r| r.coding == ContentCoding::Gzip)
    }
}

/// The encodings compact storage keeps.
pub(crate) fn kept_in_compact(coding: ContentCoding) -> bool {
    matches!(coding, ContentCoding::Br | ContentCoding::Gzip)
}

/// Writes a coding as its token in `manifest.json`.
fn serialize_coding<S: Serializer>(coding: &ContentCoding, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(coding.token())
}

/// Why a file got its Cache-Control (shown in the build report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheReason {
    /// A `[[cache.rules]]` pattern matched.
    Rule,
    /// The name carries a verified content hash.
    Fingerprinted,
    /// An HTML page.
    Html,
    /// None of the above.
    Default,
}

#[cfg(test)]
mod tests {
    use super::{Representation, Tier};
    use edgesite_core::{Content, ContentCoding, Store};

    /// The objects the build writes are named as the core names them to the adapters: by the
    /// ETag (the first 128 bits of the bytes' SHA-256).
    #[test]
    fn objects_are_written_under_the_name_the_core_reads() {
        for (bytes, tier, store) in [
            (&b"edgesite"[..], Tier::Assets, Store::Assets),
            (&b""[..], Tier::R2, Store::R2),
        ] {
            let digest = crate::hash::sha256(bytes);
            let built = Representation::new(ContentCoding::Identity, &digest, bytes.len(), None);
            let served = edgesite_core::Representation {
                coding: ContentCoding::Identity,
                etag: &built.etag,
                content_length: "0",
                content: Content::Stored {
                    id: 0,
                    store,
                    length: edgesite_core::ObjectLength::new(0),
                },
            };
            let read = served.object_key().expect("a sitegen ETag names an object");
            assert_eq!(built.object_key(tier), read.to_string());
            assert!(built.object_key(tier).contains(&built.sha256[..32]));
        }
    }
}
