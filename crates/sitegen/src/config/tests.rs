//! Reading `edgesite.toml`: every section, and the errors that name file, line and key.

use super::*;
use edgesite_core::ContentCoding;

fn parse(text: &str) -> Result<Config, Error> {
    Config::parse(text, Path::new("edgesite.toml"))
}

#[test]
fn an_empty_file_is_the_defaults() {
    let config = parse("").unwrap();
    assert_eq!(config, Config::default());
    assert_eq!(config.site.dir, Path::new("public"));
    assert!(config.site.clean_urls);
    assert_eq!(config.site.spa_fallback, None);
}

#[test]
fn every_key_is_read() {
    let config =
        parse("[site]\ndir = \"dist\"\nclean_urls = false\nspa_fallback = \"/app.html\"\n")
            .unwrap();
    assert_eq!(config.site.dir, Path::new("dist"));
    assert!(!config.site.clean_urls);
    assert_eq!(config.site.spa_fallback.as_deref(), Some("/app.html"));
}

#[test]
fn an_unknown_key_is_an_error_naming_file_and_line() {
    let err = parse("[site]\ndir = \"dist\"\ncleanurls = true\n").unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("edgesite.toml:3:"), "{text}");
    assert!(text.contains("cleanurls"), "{text}");
    let err = parse("[sites]\n").unwrap_err().to_string();
    assert!(
        err.starts_with("edgesite.toml:1:") && err.contains("sites"),
        "{err}"
    );
}

#[test]
fn a_wrong_type_is_an_error_naming_file_and_line() {
    let err = parse("[site]\n\nclean_urls = \"yes\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("edgesite.toml:3:"), "{err}");
}

#[test]
fn cache_and_headers_sections_are_read() {
    let config = parse(
        "[cache]\ndefault = \"public, max-age=60\"\ncdn = \"max-age=600\"\n\n[[cache.rules]]\npattern = \"/fonts/**\"\ncache_control = \"public, max-age=604800\"\n\n[headers]\nnosniff = false\nreferrer_policy = \"\"\naccess_control_allow_origin = \"*\"\n",
    )
    .unwrap();
    assert_eq!(config.cache.default, "public, max-age=60");
    assert_eq!(config.cache.html, "no-cache");
    assert_eq!(config.cache.cdn.as_deref(), Some("max-age=600"));
    assert_eq!(config.cache.rules[0].pattern, "/fonts/**");
    assert_eq!(
        config.headers.fields(),
        [("access-control-allow-origin", "*".to_string())]
    );
}

#[test]
fn security_headers_default_to_nosniff_and_a_referrer_policy() {
    assert_eq!(
        Config::default().headers.fields(),
        [
            ("x-content-type-options", "nosniff".to_string()),
            (
                "referrer-policy",
                "strict-origin-when-cross-origin".to_string()
            )
        ]
    );
}

#[test]
fn an_unknown_key_in_a_rule_is_an_error_naming_its_line() {
    let err = parse("[[cache.rules]]\npattern = \"/a\"\ncache-control = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("edgesite.toml:3:"), "{err}");
}

#[test]
fn compression_and_budget_values_are_checked_naming_key_and_line() {
    let err = parse("[compression]\ncodings = [\"br\", \"lzma\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("edgesite.toml:2: compression.codings: unknown coding \"lzma\""),
        "{err}"
    );
    let err = parse("[compression]\n\nbrotli_quality = 12\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("edgesite.toml:3: compression.brotli_quality"),
        "{err}"
    );
    let config =
        parse("[compression]\ncodings = [\"br\"]\n[budget]\nmax_bundle_bytes = 1000\n").unwrap();
    assert_eq!(config.compression.codings, [ContentCoding::Br]);
    assert_eq!(config.budget.max_bundle_bytes, 1000);
    assert_eq!(config.budget.max_file_bytes, 25 * 1024 * 1024);
}

/// `[links] inline_css_bytes`: at most about an initial congestion window.
#[test]
fn links_values_are_checked_naming_line_and_key() {
    for (toml, line, key) in [
        (
            "[links]\n\ninline_css_bytes = 20000\n",
            3,
            "links.inline_css_bytes: 20000 is over 14336",
        ),
        ("[links]\ninline_css_bytes = -1\n", 2, "invalid value"),
    ] {
        let err = parse(toml).unwrap_err().to_string();
        let at = format!("edgesite.toml:{line}: ");
        assert!(err.starts_with(&at) && err.contains(key), "{toml:?}: {err}");
    }
    assert_eq!(
        parse("[links]\ninline_css_bytes = 14336\n")
            .unwrap()
            .links
            .inline_css_bytes,
        14336
    );
}

/// `[storage]`: the tier by name, globs and the object limit checked, each error naming its
/// line and key.
#[test]
fn storage_values_are_checked_naming_line_and_key() {
    let config = parse("[storage]\ntier = \"assets\"\nassets = [\"/downloads/**\"]\n").unwrap();
    assert_eq!(config.storage.tier, super::StorageTier::Assets);
    assert_eq!(config.storage.max_asset_files, 20_000);
    assert_eq!(config.storage.auto_bundle_bytes, 2 * 1024 * 1024);
    let config = parse("[storage]\nauto_bundle_bytes = 0\n").unwrap();
    assert_eq!(
        config.storage.auto_bundle_bytes, 0,
        "tables only, when the site spills"
    );
    let config = parse("[storage]\nr2_bucket = \"site-media-2\"\ntier = \"r2\"\n").unwrap();
    assert_eq!(config.storage.r2_bucket.as_deref(), Some("site-media-2"));
    assert_eq!(config.storage.required("/a"), Some(super::StorageTier::R2));
    for (toml, line, key) in [
        ("[storage]\ntier = \"r3\"\n", 2, "unknown variant `r3`"),
        (
            "[storage]\n\nmax_asset_files = 100001\n",
            3,
            "storage.max_asset_files",
        ),
        (
            "[storage]\nmax_asset_files = 0\n",
            2,
            "storage.max_asset_files",
        ),
        (
            "[storage]\nassets = [\"downloads/**\"]\n",
            2,
            "storage.assets[0]",
        ),
        (
            "[storage]\nbundle = [\"/ok\", \"nope\"]\n",
            2,
            "storage.bundle[1]",
        ),
        ("[storage]\nbucket = \"x\"\n", 2, "unknown field `bucket`"),
        (
            "[storage]\nr2_bucket = \"My_Bucket\"\n",
            2,
            "storage.r2_bucket",
        ),
        ("[storage]\n\nr2_bucket = \"ab\"\n", 3, "storage.r2_bucket"),
        ("[storage]\nr2_bucket = \"-ab\"\n", 2, "storage.r2_bucket"),
        ("[storage]\ntier = \"r2\"\n", 2, "storage.tier"),
        ("[storage]\nr2 = [\"/media/**\"]\n", 2, "storage.r2"),
        (
            "[storage]\nr2_bucket = \"site-media\"\nr2 = [\"media/**\"]\n",
            3,
            "storage.r2[0]",
        ),
    ] {
        let err = parse(toml).unwrap_err().to_string();
        let at = format!("edgesite.toml:{line}: ");
        assert!(err.starts_with(&at) && err.contains(key), "{toml:?}: {err}");
    }
}

/// `[agents] origin` is an origin: a path in it fails the build naming file, line and key.
#[test]
fn an_agents_origin_with_a_path_is_an_error_naming_line_and_key() {
    let err = parse("[agents]\n\norigin = \"https://example.com/docs\"\n").unwrap_err();
    let err = err.to_string();
    assert!(
        err.starts_with("edgesite.toml:3: ") && err.contains("agents.origin"),
        "{err}"
    );
}

/// Every configured value that reaches a response field is checked: each case fails the
/// build naming the file, the line and the key (issue: a CSP with a line break built, then
/// made every native response panic and every Worker response a 500).
#[test]
fn configured_field_values_are_checked_naming_line_and_key() {
    let cases = [
        ("[headers]\ncontent_security_policy = \"default-src 'self'\\nX-Injected: yes\"\n", 2, "headers.content_security_policy: the value contains '\\n'"),
        ("[headers]\n\nreferrer_policy = \"a\\r\\nb\"\n", 3, "headers.referrer_policy: the value contains '\\r'"),
        ("[headers]\naccess_control_allow_origin = \"caf\u{e9}\"\n", 2, "headers.access_control_allow_origin: the value contains"),
        ("[headers]\nstrict_transport_security = \" max-age=1\"\n", 2, "starts or ends with a space"),
        ("[headers]\nstrict_transport_security = \"a\\u0000\"\n", 2, "the value contains '\\0'"),
        ("[cache]\nhtml = \"\"\n", 2, "cache.html: an empty value"),
        ("[cache]\ndefault = \"max-age=60\\n\"\n", 2, "cache.default: the value contains"),
        ("[cache]\ncdn = \"x\\ty\\u0007\"\n", 2, "cache.cdn: the value contains '\\u{7}'"),
        ("[[cache.rules]]\npattern = \"/a/**\"\ncache_control = \"x\"\n\n[[cache.rules]]\npattern = \"/b\"\ncache_control = \"no\\nstore\"\n", 7, "cache.rules[1].cache_control: the value contains"),
        ("[[cache.rules]]\npattern = \"b/**\"\ncache_control = \"x\"\n", 2, "cache.rules[0].pattern: \"b/**\" must start with `/`"),
        ("[site]\nspa_fallback = \"index.html\"\n", 2, "site.spa_fallback"),
        ("[compression]\nzopfli_iterations = 0\n", 2, "compression.zopfli_iterations: must be at least 1"),
        ("[compression]\nmin_savings_percent = 101\n", 2, "compression.min_savings_percent"),
        ("[history]\nkeep = 0\n", 2, "history.keep: 0 is not in 1..=10"),
        ("[history]\n\nkeep = 11\n", 3, "history.keep: 11 is not in 1..=10"),
        ("[history]\ndir = \"\"\n", 2, "history.dir: an empty folder name"),
        ("[history]\nkept = 2\n", 2, "unknown field `kept`"),
        ("[compression]\ngzip_encoder = \"pigz\"\n", 2, "unknown variant `pigz`, expected `libdeflate` or `zopfli`"),
        ("[compression]\ncodings = [\"identity\"]\n", 2, "compression.codings: unknown coding \"identity\""),
        ("[compression]\ncodings = [\"br\", \"dcz\"]\n", 2, "compression.codings: unknown coding \"dcz\"; use br, zstd, gzip"),
    ];
    for (text, line, needle) in cases {
        let err = parse(text).expect_err(text).to_string();
        assert!(
            err.starts_with(&format!("edgesite.toml:{line}: ")) && err.contains(needle),
            "{text:?}: {err}"
        );
    }
    let long = format!(
        "[headers]\ncontent_security_policy = \"{}\"\n",
        "a".repeat(8193)
    );
    assert!(parse(&long)
        .unwrap_err()
        .to_string()
        .contains("over the limit of 8192"));
    // Tabs and spaces inside a value are fine; so is an empty [headers] value (off).
    parse("[headers]\ncontent_security_policy = \"a\\tb c\"\nreferrer_policy = \"\"\n").unwrap();
}

#[test]
fn pages_limits_are_off_unless_asked_for() {
    assert!(!Config::default().compat.pages_limits);
    assert!(
        parse("[compat]\npages_limits = true\n")
            .unwrap()
            .compat
            .pages_limits
    );
}

#[test]
fn trailing_slash_is_always_or_never() {
    assert_eq!(
        parse("[site]\ntrailing_slash = \"never\"\n")
            .unwrap()
            .site
            .trailing_slash,
        TrailingSlash::Never
    );
    let err = parse("[site]\ntrailing_slash = \"sometimes\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("edgesite.toml:2:") && err.contains("sometimes"),
        "{err}"
    );
}

#[test]
fn a_missing_file_is_the_defaults() {
    assert_eq!(
        Config::load(Path::new("/no/such/edgesite.toml")).unwrap(),
        Config::default()
    );
}
