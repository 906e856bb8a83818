//! Step 3d, priority: the image a page's first screen will most likely show largest (its
//! Largest Contentful Paint, LCP) gets `fetchpriority="high"` and a `rel=preload` hint, and
//! images far below the first screen get `loading="lazy" decoding="async"`. `[links]
//! prioritize_images`.
//!
//! A browser finds a page's images as it parses, and fetches them at low priority until layout
//! shows one is in the viewport (Chromium raises it then): the LCP image waits behind scripts
//! and stylesheets for a round trip it need not. Only the build knows each image's pixel size
//! before the page is laid out, so it can name the likely LCP image in the response's first
//! bytes, and leave the images a visitor may never scroll to for later.
//!
//! The rule, from the page's markup and the images' sizes alone (no layout), measured against
//! the LCP element Chromium reports (`bench/lcp_rule.py`; figures in docs/benchmarks.md):
//! - **The likely LCP image** is the page's first *large* `<img>` (shown at least
//!   [`LARGE_WIDTH`] pixels wide and [`LARGE_AREA`] in area: its `width`/`height`, or its
//!   file's size), if fewer than [`HERO_TEXT`] characters of text come before it; none if the
//!   author already set a `fetchpriority` on the page, or the image is `hidden` or lazy.
//! - **Far below the first screen**: an image whose top, estimated from the text and the
//!   images before it (a line of 100 characters, 24 pixels, on a 1280x900 screen; of 40 on a
//!   390x844 phone's; images at most 800 and 358 pixels wide), is more than [`LAZY_SCREENS`]
//!   screens down on both, and that has `width` and `height` (its box is kept while it loads:
//!   no shift when it arrives). Never the likely LCP image, never one with the author's
//!   `loading` or `fetchpriority`. Chromium still fetches a lazy image 1,250 to 2,500 pixels
//!   before it scrolls into view.
//!
//! Text in `<nav>`, `<aside>`, `<details>`, hidden elements and the like is not counted
//! ([`super::html::Image::text_before`]): a sidebar before the content is beside it, not above.

use super::preload::served_url;
use super::rewrite::Hashes;
use super::sizes::file_size;
use super::{html, Rewrite, Scanned};
use crate::images::Images;
use std::ops::Range;

/// The least width, in CSS pixels, of an image that may be the LCP.
pub(crate) const LARGE_WIDTH: f64 = 300.0;
/// The least area, in CSS pixels, of an image that may be the LCP: about a paragraph's of text
/// on a desktop's screen (700 by 86), the block a page's LCP most often is otherwise.
pub(crate) const LARGE_AREA: f64 = 60_000.0;
/// The most characters of text before the likely LCP image: a heading and a few paragraphs (a
/// navigation bar not in `<nav>` included: MkDocs's theme writes one).
pub(crate) const HERO_TEXT: usize = 1_500;
/// How many screens down an image must be, on a desktop's and a phone's screen, to be lazy.
pub(crate) const LAZY_SCREENS: f64 = 4.0;

/// A page's images prioritised: its new bytes, the `Link` hint for its likely LCP image, and
/// how many images were made lazy.
pub(super) struct Prioritised {
    pub at: usize,
    pub bytes: Vec<u8>,
    /// `<URL>; rel=preload; as=image; fetchpriority=high` and its `imagesrcset`/`imagesizes`.
    pub hint: Option<String>,
    pub hero: bool,
    pub lazy: usize,
}

/// Every page whose images the rule changes (pages read on all cores).
pub(super) fn prioritise_all(
    scanned: &[Scanned],
    images: &Images,
    hashes: &mut Hashes<'_>,
    rewrites: &[Option<Rewrite>],
) -> Vec<Prioritised> {
    let planned = crate::parallel::map(scanned.len(), |at| {
        prioritise(&scanned[at], images, rewrites)
    });
    let mut out = Vec::new();
    for (at, planned) in planned.into_iter().enumerate() {
        let Some((bytes, plan, now)) = planned else {
            continue;
        };
        let page = &scanned[at];
        let hint = plan
            .hero
            .and_then(|i| hint(page, &page.images[i], &now[i], hashes, rewrites));
        out.push(Prioritised {
            at,
            bytes,
            hint,
            hero: plan.hero.is_some(),
            lazy: plan.lazy.len(),
        });
    }
    out
}

/// A page's new bytes, what the rule gave its images, and its images as served; `None` if it
/// changes nothing.
fn prioritise(
    page: &Scanned,
    images: &Images,
    rewrites: &[Option<Rewrite>],
) -> Option<(Vec<u8>, Plan, Vec<html::Image>)> {
    if page.images.is_empty() {
        return None;
    }
    let served = match &rewrites[page.index] {
        Some(rewrite) => String::from_utf8_lossy(&rewrite.bytes),
        None => std::borrow::Cow::Borrowed(&page.text[..]),
    };
    // The page as served (sized, stylesheets inline): the same `<img>`s, in the same order.
    let now = html::scan(&served).ok()?.images;
    if now.len() != page.images.len() {
        return None;
    }
    // Each image's size as shown: its attributes (as served: sized), or its file's.
    let shown: Vec<Option<(f64, f64)>> = page
        .images
        .iter()
        .zip(&now)
        .map(|(was, image)| shown(image, intrinsic(page, was, images)))
        .collect();
    let plan = plan(&now, &shown);
    if plan.hero.is_none() && plan.lazy.is_empty() {
        return None;
    }
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (i, image) in now.iter().enumerate() {
        if plan.hero == Some(i) {
            edits.push((image.tag.clone(), "fetchpriority=\"high\"".into()));
        } else if plan.lazy.contains(&i) {
            let decoding = if image.decoding {
                ""
            } else {
                " decoding=\"async\""
            };
            edits.push((image.tag.clone(), format!("loading=\"lazy\"{decoding}")));
        }
    }
    let bytes = html::with_attributes(&served, &edits)?.into_bytes();
    Some((bytes, plan, now))
}

/// Which images of a page get what (indices in its images).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Plan {
    pub hero: Option<usize>,
    pub lazy: Vec<usize>,
}

/// The rule (see the module's comment), over a page's images and each one's size as shown.
pub(crate) fn plan(images: &[html::Image], shown: &[Option<(f64, f64)>]) -> Plan {
    let mut plan = Plan::default();
    let large = |size: Option<(f64, f64)>| {
        size.is_some_and(|(w, h)| w >= LARGE_WIDTH && w * h >= LARGE_AREA)
    };
    let author_chose = images.iter().any(|i| i.fetchpriority);
    if let Some(first) = (0..images.len()).find(|&i| large(shown[i])) {
        let image = &images[first];
        if !author_chose && !image.hidden && !image.loading && image.text_before < HERO_TEXT {
            plan.hero = Some(first);
        }
    }
    // The estimated top of each image on a desktop's screen and a phone's, in pixels.
    let (mut desktop, mut phone) = (0.0, 0.0);
    for (i, (image, size)) in images.iter().zip(shown).enumerate() {
        let text = image.text_before as f64;
        let (top_desktop, top_phone) = (desktop + text / 100.0 * 24.0, phone + text / 40.0 * 24.0);
        let lazy = top_desktop > LAZY_SCREENS * 900.0
            && top_phone > LAZY_SCREENS * 844.0
            && plan.hero != Some(i)
            && !image.loading
            && !image.fetchpriority
            && image.width.is_some()
            && image.height.is_some();
        if lazy {
            plan.lazy.push(i);
        }
        if let Some((w, h)) = size {
            if *w > 0.0 {
                desktop += h * (800.0 / w).min(1.0);
                phone += h * (358.0 / w).min(1.0);
            }
        }
    }
    plan
}

/// The pixel size of the file an image of `page` shows (`was`: as the page was scanned, whose
/// references were resolved).
fn intrinsic(page: &Scanned, was: &html::Image, images: &Images) -> Option<(u32, u32)> {
    let (_, resolved) = page.resolved.get(was.reference?)?.as_ref()?;
    file_size(images, resolved)
}

/// An image's size as shown without CSS: its `width` and `height`, one of them and its file's
/// aspect ratio, or its file's size.
fn shown(image: &html::Image, file: Option<(u32, u32)>) -> Option<(f64, f64)> {
    let file = file.map(|(w, h)| (f64::from(w), f64::from(h)));
    match (
        image.width.map(f64::from),
        image.height.map(f64::from),
        file,
    ) {
        (Some(w), Some(h), _) => Some((w, h)),
        (Some(w), None, Some((fw, fh))) => Some((w, w * fh / fw)),
        (None, Some(h), Some((fw, fh))) => Some((h * fw / fh, h)),
        (None, None, file) => file,
        _ => None,
    }
}

/// The likely LCP image's `Link` hint: at the URL the page names (its `v` included), with its
/// `srcset` and `sizes` as `imagesrcset` and `imagesizes`; none for an image of another site,
/// in a `<picture>` (whose source the browser picks by type and media), or with a `srcset` on
/// a page with a `<base>` (the field's URLs resolve against the page's own URL) or text a
/// field cannot carry as a quoted string.
fn hint(
    page: &Scanned,
    was: &html::Image,
    now: &html::Image,
    hashes: &mut Hashes<'_>,
    rewrites: &[Option<Rewrite>],
) -> Option<String> {
    if now.in_picture {
        return None;
    }
    let at = was.reference?;
    let (_, url) = served_url(
        &page.refs[at],
        page.resolved.get(at)?.as_ref()?,
        hashes,
        rewrites,
    )?;
    let url = super::preload::field_url(&url);
    let mut hint = format!("<{url}>; rel=preload; as=image; fetchpriority=high");
    if let Some(srcset) = &now.srcset {
        let quotable = |text: &str| {
            text.bytes()
                .all(|b| (b == b' ' || b.is_ascii_graphic()) && b != b'"' && b != b'\\')
        };
        if page.base.is_some() || !quotable(srcset) {
            return None;
        }
        hint.push_str(&format!("; imagesrcset=\"{}\"", srcset.trim()));
        if let Some(sizes) = now.sizes.as_deref().filter(|s| quotable(s)) {
            hint.push_str(&format!("; imagesizes=\"{}\"", sizes.trim()));
        }
    }
    Some(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(text_before: usize, width: Option<u32>, height: Option<u32>) -> html::Image {
        html::Image {
            reference: Some(0),
            width,
            height,
            text_before,
            ..html::Image::default()
        }
    }

    fn plan_of(images: &[html::Image]) -> Plan {
        let shown: Vec<_> = images.iter().map(|i| shown(i, None)).collect();
        plan(images, &shown)
    }

    #[test]
    fn the_first_large_image_near_the_top_is_the_hero() {
        // A logo, then a photo after a heading and a paragraph.
        let images = [
            image(10, Some(120), Some(32)),
            image(400, Some(600), Some(400)),
        ];
        assert_eq!(plan_of(&images).hero, Some(1));
        // The photo after a page of text: not the first screen's.
        let images = [
            image(10, Some(120), Some(32)),
            image(3000, Some(600), Some(400)),
        ];
        assert_eq!(plan_of(&images).hero, None);
        // Wide but thin (a banner of 50,000 px²): not large.
        assert_eq!(plan_of(&[image(0, Some(1000), Some(50))]).hero, None);
    }

    #[test]
    fn the_author_decides_first() {
        let mut photo = image(0, Some(600), Some(400));
        photo.loading = true;
        assert_eq!(plan_of(&[photo.clone()]).hero, None);
        photo.loading = false;
        photo.hidden = true;
        assert_eq!(plan_of(&[photo.clone()]).hero, None);
        photo.hidden = false;
        let mut logo = image(0, Some(100), Some(100));
        logo.fetchpriority = true;
        assert_eq!(plan_of(&[logo, photo]).hero, None);
    }

    #[test]
    fn only_sized_images_far_down_on_both_screens_are_lazy() {
        // 10,000 characters: 2,400 px down on a desktop, 6,000 on a phone: not lazy.
        let images = [image(10_000, Some(600), Some(400))];
        assert!(plan_of(&images).lazy.is_empty());
        // 20,000: 4,800 and 12,000: lazy, but not without its size.
        assert_eq!(plan_of(&[image(20_000, Some(600), Some(400))]).lazy, [0]);
        assert!(plan_of(&[image(20_000, None, None)]).lazy.is_empty());
        // Images before it push it down: eight 800x1000 screenshots (447 px high on a phone).
        let mut images: Vec<_> = (0..8).map(|_| image(0, Some(800), Some(1000))).collect();
        images.push(image(0, Some(600), Some(400)));
        assert_eq!(plan_of(&images).lazy, [8]);
        // The author's `loading` and `fetchpriority` stand.
        let mut eager = image(20_000, Some(600), Some(400));
        eager.loading = true;
        assert!(plan_of(&[eager]).lazy.is_empty());
        let mut urgent = image(20_000, Some(600), Some(400));
        urgent.fetchpriority = true;
        assert!(plan_of(&[urgent]).lazy.is_empty());
    }

    #[test]
    fn only_text_laid_out_above_an_image_counts() {
        let page = "<html><head><title>A title</title><style>p{}</style></head><body>\
                    <nav>Home About</nav><aside>More</aside><div role=navigation>Menu</div>\
                    <details><summary>S</summary>Hidden</details><div hidden>No</div>\
                    <select><option>v1</option></select><script>let x = 1;</script>\
                    <p>Four  words,\n two  more.</p><picture><img src=a.png></picture>\
                    <nav>left open <img src=b.png>";
        let images = html::scan(page).unwrap().images;
        // "Four words, two more." with its runs of spaces as one, and one more gap.
        assert_eq!(images[0].text_before, "Four words, two more.".len() + 1);
        assert!(images[0].in_picture && !images[1].in_picture);
        assert_eq!(images[1].text_before, images[0].text_before);
    }
}
