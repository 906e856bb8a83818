//! [`Manifest::leak_site`]: a compile served in this process, without generating or compiling
//! Rust. The same `edgesite_core::Site` that `site.rs` describes for [`Bodies::Embedded`]
//! (`codegen`), built from the same manifest in memory and leaked, so it lives as long as
//! the process: what the tests serve a fixture configuration with, and what tools that serve a
//! folder for a while do, where a build per configuration would cost a cargo build each.
//!
//! `tests/embedded_site.rs` holds the two to one shape: the demo's leaked site and its
//! generated `SITE` are the same value, field by field and byte by byte.
//!
//! [`Bodies::Embedded`]: crate::Bodies::Embedded

use super::codegen::Blobs;
use super::objects::Objects;
use super::read;
use crate::model::{Asset, Delta, Manifest, Representation, RuleIndexNode};
use crate::rule::{core_destination, core_pattern, core_route, core_rule};
use base64::prelude::{Engine as _, BASE64_STANDARD};
use edgesite_core as core;
use edgesite_core::{Content, NotFoundPage, RuleNode, Site};
use std::path::Path;

/// Moves `value` to the heap for the rest of the process.
fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

fn leak_str(text: &str) -> &'static str {
    Box::leak(text.to_owned().into_boxed_str())
}

fn leak_slice<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

fn leak_fields<N: AsRef<str>>(fields: &[(N, String)]) -> &'static [(&'static str, &'static str)] {
    leak_slice(
        fields
            .iter()
            .map(|(name, value)| (leak_str(name.as_ref()), leak_str(value)))
            .collect(),
    )
}

impl Manifest {
    /// This compile as an `edgesite_core::Site` with every byte in memory, leaked: it lives as
    /// long as the process, as a generated `SITE` does. Identity bytes are read from the source
    /// files (or taken from the link pass's rewrite); representations compact storage does not
    /// keep are [`Content::Decoded`], as in `site.rs`.
    ///
    /// # Errors
    /// When a source file cannot be read.
    pub fn leak_site(&self) -> std::io::Result<&'static Site<'static>> {
        self.leak_site_with_store(None)
    }

    /// [`Manifest::leak_site`], with the files the storage stage put in the store written as
    /// objects under `store` (stale ones removed) and served from there
    /// ([`Content::Stored`]), as the native twin serves a generated `SITE`'s; `None`: every
    /// byte in memory.
    ///
    /// # Errors
    /// When a source file cannot be read or an object cannot be written.
    pub fn leak_site_with_store(
        &self,
        store: Option<&Path>,
    ) -> std::io::Result<&'static Site<'static>> {
        let mut objects = store.map(Objects::new).transpose()?;
        let site = self.leak_with(Bundle::Memory, objects.as_mut(), true)?;
        if let Some(objects) = objects {
            objects.finish()?;
        }
        Ok(site)
    }

    /// This compile as a leaked `Site`: the bundle's bytes as `bundle` says, the stored files'
    /// objects written into `objects` (when given; else in memory too), and the store's root
    /// named in [`Site::store`] when `name_store` (the native twin reads it; a Worker reads
    /// its bindings and names no path of the machine that built it).
    pub(super) fn leak_with(
        &self,
        mut bundle: Bundle<'_>,
        mut objects: Option<&mut Objects>,
        name_store: bool,
    ) -> std::io::Result<&'static Site<'static>> {
        let mut id = 0;
        let mut assets = Vec::with_capacity(self.files.len());
        for file in &self.files {
            let objects = objects.as_deref_mut().filter(|_| file.tier.is_stored());
            assets.push(asset(self, file, objects, &mut bundle, &mut id)?);
        }
        let any_stored = self.files.iter().any(|f| f.tier.is_stored());
        let stored = match objects {
            Some(objects) if name_store && any_stored => {
                leak_str(&objects.root().display().to_string())
            }
            _ => "",
        };
        link_alternates(&self.files, &mut assets);
        let assets = leak_slice(assets);
        // The routing tables as rule.rs views them for the build's checks, over leaked copies.
        let routes = leak_slice(self.routes.clone())
            .iter()
            .map(|route| core_route(route, assets))
            .collect();
        let rules = leak_slice(self.rules.clone())
            .iter()
            .map(|rule| {
                let pattern = leak_slice(core_pattern(rule));
                core_rule(rule, pattern, leak_slice(core_destination(rule)))
            })
            .collect();
        let not_found = self
            .not_found
            .iter()
            .map(|(folder, i)| NotFoundPage {
                folder: leak_str(folder),
                page: &assets[*i],
            })
            .collect();
        Ok(leak(Site {
            routes: leak_slice(routes),
            not_found: leak_slice(not_found),
            fallback: self.fallback.map(|i| &assets[i]),
            boundary: leak_str(&self.boundary),
            multipart_content_type: leak_str(&format!(
                "multipart/byteranges; boundary={}",
                self.boundary
            )),
            fields: leak_fields(&self.fields),
            rules: leak_slice(rules),
            rule_index: leak_slice(self.rule_index.iter().map(leak_rule_node).collect()),
            fingerprinted_cache_control: leak_str(&self.fingerprinted_cache_control),
            shared_caches: self.shared_caches.core(),
            store: stored,
        }))
    }
}

/// Each page's alternate (its Markdown twin), named by the page: a copy of the twin's asset
/// (which names none), leaked first, as `files` say.
fn link_alternates(files: &[Asset], assets: &mut [core::Asset<'static>]) {
    let mut alternates = std::collections::HashMap::new();
    for (file, i) in files.iter().zip(0..) {
        if let Some(j) = file.alternate {
            let alternate = *alternates.entry(j).or_insert_with(|| leak(assets[j]));
            assets[i].alternate = Some(alternate);
        }
    }
}

/// A file's asset; `id` numbers its representations, deltas and variants in turn, as `codegen`
/// does.
fn asset(
    manifest: &Manifest,
    file: &Asset,
    mut objects: Option<&mut Objects>,
    bundle: &mut Bundle<'_>,
    id: &mut u32,
) -> std::io::Result<core::Asset<'static>> {
    let mut source: Option<&'static [u8]> = None;
    let mut make = |variant: &Representation| match objects.as_deref_mut() {
        Some(objects) => stored(file, variant, objects, id),
        None => representation(file, variant, &mut source, bundle, id),
    };
    let mut representations = Vec::with_capacity(file.representations.len());
    for variant in &file.representations {
        representations.push(make(variant)?);
    }
    let mut deltas = Vec::with_capacity(file.deltas.len());
    for Delta {
        dictionary,
        representation: variant,
    } in &file.deltas
    {
        deltas.push(edgesite_core::Delta {
            // RFC 9842 §2.2: Available-Dictionary's text for the hash (RFC 8941 §3.3.5).
            available_dictionary: leak_str(&format!(":{}:", BASE64_STANDARD.encode(dictionary))),
            representation: make(variant)?,
        });
    }
    let mut variants = Vec::with_capacity(file.variants.len());
    for variant in &file.variants {
        variants.push(edgesite_core::Variant {
            content_type: variant.content_type,
            representation: make(&variant.representation)?,
        });
    }
    Ok(core::Asset {
        content_type: file.content_type,
        last_modified: leak_str(&manifest.last_modified),
        last_modified_unix: manifest.last_modified_unix,
        cache_control: leak_str(&file.cache_control),
        fingerprint: leak_str(&file.fingerprint),
        fields: leak_fields(&file.fields),
        representations: leak_slice(representations),
        deltas: leak_slice(deltas),
        variants: leak_slice(variants),
        alternate: None,
    })
}

/// Where the bundle's bytes go.
pub(super) enum Bundle<'b> {
    /// In memory ([`Content::Bytes`]).
    Memory,
    /// Into blobs ([`Content::External`]): the tables' way (`tables.rs`).
    Blobs(&'b mut Blobs),
}

/// One representation; the source file is read once, for the first that needs its bytes.
fn representation(
    file: &Asset,
    variant: &Representation,
    source: &mut Option<&'static [u8]>,
    bundle: &mut Bundle<'_>,
    id: &mut u32,
) -> std::io::Result<core::Representation<'static>> {
    let length = u32::try_from(variant.size).map_err(|_| {
        std::io::Error::other(format!(
            "{} is {} bytes: the bundle holds files under 4 GiB; lower [budget] \
             max_file_bytes so that it goes to R2 ([storage] r2_bucket)",
            file.source, variant.size
        ))
    })?;
    if let Some(from) = variant.decoded_from {
        let content = Content::Decoded {
            id: *id,
            from: u8::try_from(from).expect("a file has fewer than 256 representations"),
            length,
        };
        return Ok(numbered(variant, content, id));
    }
    let content = match (bundle, &variant.bytes) {
        (Bundle::Memory, Some(bytes)) => Content::Bytes(leak_slice(bytes.clone())),
        (Bundle::Memory, None) => Content::Bytes(match source {
            Some(bytes) => bytes,
            None => source.insert(leak_slice(read(&file.source)?)),
        }),
        (Bundle::Blobs(blobs), made) => {
            let (blob, offset) = match made {
                Some(bytes) => blobs.place(&variant.sha256, bytes)?,
                None => blobs.place(&variant.sha256, &read(&file.source)?)?,
            };
            Content::External {
                id: *id,
                blob,
                offset,
                length,
            }
        }
    };
    Ok(numbered(variant, content, id))
}

/// One representation kept in the store: its object written, its content [`Content::Stored`].
fn stored(
    file: &Asset,
    variant: &Representation,
    objects: &mut Objects,
    id: &mut u32,
) -> std::io::Result<core::Representation<'static>> {
    objects.put(variant, file.tier, &file.source)?;
    let content = Content::Stored {
        id: *id,
        store: file.tier.store(),
        length: core::ObjectLength::new(variant.size),
    };
    Ok(numbered(variant, content, id))
}

/// `variant` with `content` (which took the id `id` names), and the next id.
fn numbered(
    variant: &Representation,
    content: Content<'static>,
    id: &mut u32,
) -> core::Representation<'static> {
    *id += 1;
    core::Representation {
        coding: variant.coding,
        etag: leak_str(&variant.etag),
        content_length: leak_str(&variant.size.to_string()),
        content,
    }
}

fn leak_rule_node(node: &RuleIndexNode) -> RuleNode<'static> {
    RuleNode {
        keys: leak_slice(node.keys()),
        children: leak_slice(
            node.children
                .iter()
                .map(|(segment, child)| (leak_str(segment), *child))
                .collect(),
        ),
        rules: leak_slice(node.rules.clone()),
    }
}
