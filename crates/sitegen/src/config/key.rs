//! A key of `edgesite.toml` and its line (what a build error names), and the checks the
//! sections share: a configured field value, a URL path glob.

use crate::field_check::check_value;

/// The 1-based line of byte `offset` of `text`.
pub(super) fn line_at(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// A key of `edgesite.toml`, for messages and to find its line: `headers.referrer_policy`,
/// `cache.rules[2].cache_control`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key(pub(super) Vec<KeyPart>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyPart {
    Name(&'static str),
    Index(usize),
}

impl Key {
    pub(super) fn new(names: &[&'static str]) -> Key {
        Key(names.iter().map(|n| KeyPart::Name(n)).collect())
    }

    /// The line of the key's value in `text` (1 when it is not written there, e.g. a default).
    pub(super) fn line_in(&self, text: &str) -> usize {
        let Ok(document) = toml_edit::Document::parse(text) else {
            return 1;
        };
        let mut item = document.as_item();
        for part in &self.0 {
            let next = match *part {
                KeyPart::Name(name) => item.get(name),
                KeyPart::Index(i) => item.get(i),
            };
            match next {
                Some(next) => item = next,
                None => break,
            }
        }
        item.span().map_or(1, |span| line_at(text, span.start))
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, part) in self.0.iter().enumerate() {
            match part {
                KeyPart::Name(name) if i == 0 => write!(f, "{name}")?,
                KeyPart::Name(name) => write!(f, ".{name}")?,
                KeyPart::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A configured field value: the shared check of `field_check.rs`; `required`: empty is refused.
pub(super) fn check_field_value(key: Key, value: &str, required: bool) -> Option<(Key, String)> {
    if required && value.is_empty() {
        return Some((
            key,
            "an empty value; give a policy such as \"no-cache\"".into(),
        ));
    }
    check_value(value).err().map(|message| (key, message))
}

/// The first glob of `table.key` that is not a URL path glob.
pub(super) fn first_invalid_glob(
    table: &'static str,
    key: &'static str,
    globs: &[String],
) -> Option<(Key, String)> {
    globs.iter().enumerate().find_map(|(i, glob)| {
        let stars = glob.bytes().filter(|&b| b == b'*').count();
        let problem = if !glob.starts_with('/') {
            "must start with `/` (a URL path glob)"
        } else if glob.len() > 2048 || stars > 32 {
            // The matcher's depth and work grow with both; no path is longer than 1,023 bytes.
            "is longer than 2,048 bytes or has more than 32 `*`"
        } else {
            return None;
        };
        let key = Key(vec![
            KeyPart::Name(table),
            KeyPart::Name(key),
            KeyPart::Index(i),
        ]);
        Some((key, format!("{} {problem}", crate::error::excerpt(glob))))
    })
}
