//! Step 1, scan: every HTML page (an HTML tokenizer: [`super::html`]) and stylesheet (a CSS
//! tokenizer: [`super::css`]) read for references, with their exact byte spans, on all cores.

use super::{css, html, Ref, Role, Scanned};
use crate::error::Error;
use crate::hash;
use crate::mime;
use crate::sources::Found;
use crate::warning::{Warning, WarningKind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One file's scan: skipped (not HTML or CSS), scanned, or a warning why not.
pub(super) type ScanResult = Result<Result<Option<Scanned>, Warning>, Error>;

/// Reads and scans every HTML and CSS file, on all cores, in walk order (text that is not
/// UTF-8 is skipped, with a warning).
pub(super) fn scan_all(
    found: &[Found],
    warnings: &mut Vec<Warning>,
) -> Result<Vec<Scanned>, Error> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<ScanResult>>> = found.iter().map(|_| Mutex::new(None)).collect();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = found.get(index) else { break };
                let result = scan_file(index, file);
                *slots[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            });
        }
    });
    let mut scanned = Vec::new();
    for slot in slots {
        // Every slot was filled: no thread stops early.
        let result = slot.into_inner().unwrap_or_else(|e| e.into_inner());
        match result.transpose()? {
            Some(Ok(Some(file))) => scanned.push(file),
            Some(Err(warning)) => warnings.push(warning),
            Some(Ok(None)) | None => {}
        }
    }
    Ok(scanned)
}

pub(super) fn scan_file(index: usize, file: &Found) -> ScanResult {
    let content_type = mime::content_type(&file.url_path);
    let is_html = content_type.starts_with("text/html");
    if !is_html && !content_type.starts_with("text/css") {
        return Ok(Ok(None));
    }
    let bytes = file.source.read()?.into_owned();
    let not_read = |message: String| {
        let warning = Warning::new(WarningKind::LinksNotRead, message);
        Ok(Err(warning.in_file(&file.source)))
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return not_read("not UTF-8, so its links are not checked or fingerprinted".into());
    };
    let page = if is_html {
        match html::scan(&text) {
            Ok(page) => page,
            Err(why) => return not_read(format!("links not read: {why}")),
        }
    } else {
        html::Page {
            refs: css_file_refs(&text),
            base: None,
            ..html::Page::default()
        }
    };
    Ok(Ok(Some(Scanned {
        index,
        sha256: hash::hex(&hash::sha256(text.as_bytes())),
        text,
        base: page.base,
        refs: page.refs,
        style_links: page.style_links,
        images: page.images,
        box_rules: page.box_rules,
        resolved: Vec::new(),
    })))
}

pub(super) fn css_file_refs(text: &str) -> Vec<Ref> {
    css::urls(text)
        .into_iter()
        .map(|u| Ref {
            span: u.span,
            url: u.url.trim().to_string(),
            // Rewritten in place only when the text is the URL itself: `url(" a.png ")` with
            // `?v=` after its space would name another file.
            verbatim: u.verbatim && u.url.trim() == u.url,
            role: Role::Subresource,
            hint: None,
            integrity: false,
            amp: false,
        })
        .collect()
}
