//! Whatever text a user configures, the build either refuses it or every field value the site
//! will send is one both runtimes accept as it is:
//!
//! * native: `http::HeaderValue` takes it (hyper would otherwise panic in `from_static` or
//!   drop the field);
//! * Workers: the Fetch standard's `Headers` takes it unchanged (no NUL, CR or LF, no leading or
//!   trailing whitespace to be stripped, bytes only, here visible ASCII), so it neither throws
//!   (a 500 on every response) nor sends something else.
//!
//! The text comes from `edgesite.toml` (`[headers]`, `[cache]`, `[[cache.rules]]`) and from
//! `_headers` (names and values, with substitutions).

use edgesite_sitegen::{compile, Config, Manifest, Options};
use proptest::prelude::*;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

/// Fetch's "header value": no leading or trailing HTTP whitespace, no NUL, CR or LF. edgesite
/// sends ASCII only, so a byte is a char.
fn fetch_accepts_unchanged(value: &str) -> bool {
    let whitespace = [' ', '\t', '\n', '\r'];
    value.is_ascii()
        && !value.starts_with(whitespace)
        && !value.ends_with(whitespace)
        && !value.contains(['\0', '\n', '\r'])
}

fn both_runtimes_accept(name: &str, value: &str) -> bool {
    http::HeaderName::from_bytes(name.as_bytes()).is_ok()
        && http::HeaderValue::from_str(value).is_ok()
        && fetch_accepts_unchanged(value)
}

/// Every field the compiled site can send from configuration: the site's, each file's, and
/// each file's Cache-Control.
fn configured_fields(manifest: &Manifest) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = manifest
        .fields
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    for file in &manifest.files {
        fields.extend(file.fields.iter().cloned());
        fields.push(("cache-control".into(), file.cache_control.clone()));
    }
    fields
}

/// A TOML basic string holding `text` exactly.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Compiles a one-page site with `config_text` and `headers_file`; `None` when the build refuses.
fn build(config_text: &str, headers_file: &str) -> Option<Manifest> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "<p>hi</p>").unwrap();
    std::fs::write(dir.path().join("_headers"), headers_file).unwrap();
    let config = Config::parse(config_text, Path::new("edgesite.toml")).ok()?;
    let options = Options::from_config(
        config.clone(),
        UNIX_EPOCH + Duration::from_secs(1_700_000_000),
    );
    compile(dir.path(), &options).ok()
}

/// Text a user might paste: mostly printable, with controls, line breaks, tabs, non-ASCII and
/// edge whitespace mixed in.
fn user_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            8 => proptest::char::range(' ', '~'),
            1 => prop_oneof![Just('\n'), Just('\r'), Just('\t'), Just('\0'), Just('\u{7f}'), Just('\u{e9}'), Just('\u{b}')],
        ],
        0..24,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any `edgesite.toml` value is refused or sendable by both runtimes.
    #[test]
    fn any_configured_text_fails_the_build_or_is_a_valid_field_value(
        key in prop_oneof![
            Just("headers.content_security_policy"),
            Just("headers.referrer_policy"),
            Just("headers.access_control_allow_origin"),
            Just("cache.html"),
            Just("cache.default"),
            Just("cache.cdn"),
            Just("cache.rules"),
        ],
        text in user_text(),
    ) {
        let config = match key.split_once('.').unwrap() {
            ("cache", "rules") => format!("[[cache.rules]]\npattern = \"/**\"\ncache_control = {}\n", toml_string(&text)),
            (table, name) => format!("[{table}]\n{name} = {}\n", toml_string(&text)),
        };
        if let Some(manifest) = build(&config, "") {
            for (name, value) in configured_fields(&manifest) {
                prop_assert!(both_runtimes_accept(&name, &value), "{key} = {text:?} gave {name}: {value:?}");
            }
        }
    }

    /// Any `_headers` field line (name and value, and a value with a substitution) is refused
    /// or sendable by both runtimes.
    #[test]
    fn any_headers_file_line_fails_the_build_or_is_a_valid_field_value(
        name in "[ -~]{0,12}",
        value in user_text(),
    ) {
        let file = format!("/*\n  {name}: {value} :splat\n/:page\n  X-Page: :page {value}\n");
        if let Some(manifest) = build("", &file) {
            for (name, value) in configured_fields(&manifest) {
                prop_assert!(both_runtimes_accept(&name, &value), "{file:?} gave {name}: {value:?}");
            }
        }
    }
}

#[test]
fn the_issues_example_is_refused_naming_the_line_and_key() {
    // A CSP with a line break used to build, then break every response.
    let config = "[headers]\ncontent_security_policy = \"default-src 'self'\\nX-Injected: yes\"\n";
    let err = Config::parse(config, Path::new("edgesite.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "edgesite.toml:2: headers.content_security_policy: the value contains '\\n'"
        ),
        "{err}"
    );
}
