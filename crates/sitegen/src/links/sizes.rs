//! Step 3c, sizes: an `<img>` of one of the site's images with neither `width` nor `height`
//! (and no `srcset`) gets both, the image's intrinsic size as shown (EXIF orientation applied:
//! the image stage's reading; an SVG's `width` and `height` in pixels), so that a browser
//! reserves its box before the bytes arrive instead of moving the page when they do (a layout
//! shift, which page audits flag as unsized images). `[links] size_images`.
//!
//! The attributes give the box the size the image would have had anyway, unless CSS sizes it:
//! [`super::boxes`] reads, image by image, what the CSS that may style the page (its
//! stylesheets, those they import, its `<style>` elements, the image's `style`) may set of its
//! box, and adds `height:auto` (or `width:auto`) to the image's style where CSS sets only the
//! other dimension (`img { max-width: 100% }`), or leaves the image as it is. A page with a
//! stylesheet the build cannot read (another site's, not UTF-8) is left; so is an image in a
//! `<picture>` (its sources may have another shape). The views layer's `same_view.py` checks
//! that pages look the same to the pixel with this off and on.

use super::boxes::{self, BoxRule, Sizing};
use super::{html, positions, Rewrite, Scanned};
use crate::images::Images;
use crate::mime;
use crate::resolve::Resolved;
use crate::sources::Found;
use std::collections::HashMap;

/// A page whose images got their size (its position in the scanned files): its new bytes, and
/// how many.
pub(super) struct Sized {
    pub at: usize,
    pub bytes: Vec<u8>,
    pub images: usize,
}

/// Every page with unsized images that can be sized (`csp`: the site sends a
/// Content-Security-Policy, which may forbid `style` attributes: then, as on a page with a
/// policy of its own, only images that need none).
pub(super) fn size_all(
    found: &[Found],
    scanned: &[Scanned],
    images: &Images,
    csp: bool,
    rewrites: &[Option<Rewrite>],
) -> Vec<Sized> {
    let mut reader = Reader {
        found,
        scanned,
        images,
        csp,
        position: positions(scanned),
        sheets: HashMap::new(),
        svgs: HashMap::new(),
    };
    // The pages to size, and how to size their unsized images.
    let todo: Vec<(usize, Vec<Option<Plan>>)> = (scanned.iter().enumerate())
        .filter_map(|(at, page)| Some((at, reader.plans(page)?)))
        .collect();
    // The pages read again, as served, on all cores.
    let sized = crate::parallel::map(todo.len(), |n| {
        let (at, plans) = &todo[n];
        let served = match &rewrites[scanned[*at].index] {
            Some(rewrite) => String::from_utf8_lossy(&rewrite.bytes),
            None => std::borrow::Cow::Borrowed(&scanned[*at].text[..]),
        };
        let (bytes, images) = with_sizes(&served, plans)?;
        Some(Sized {
            at: *at,
            bytes,
            images,
        })
    });
    sized.into_iter().flatten().collect()
}

/// An image's size, and how it gets it.
type Plan = ((u32, u32), Sizing);

/// What the pages' plans are made from: each stylesheet's rules read once, whatever the number
/// of pages that use it, and each SVG's size.
struct Reader<'a> {
    found: &'a [Found],
    scanned: &'a [Scanned],
    images: &'a Images,
    csp: bool,
    position: HashMap<usize, usize>,
    sheets: HashMap<usize, Vec<BoxRule>>,
    svgs: HashMap<usize, Option<(u32, u32)>>,
}

impl Reader<'_> {
    /// How to size each unsized image of `page`, in order; `None` if none can be.
    fn plans(&mut self, page: &Scanned) -> Option<Vec<Option<Plan>>> {
        let unsized_images = || page.images.iter().filter(|image| image.is_unsized());
        let sizes: Vec<Option<(u32, u32)>> = unsized_images()
            .map(|image| self.size_of(page, image))
            .collect();
        if sizes.iter().all(Option::is_none) {
            return None;
        }
        let styles = stylesheets(self.found, page, self.scanned, &self.position)?;
        for &index in &styles {
            let text = &self.scanned[self.position[&index]].text;
            (self.sheets)
                .entry(index)
                .or_insert_with(|| super::sheet::read(text).boxes);
        }
        // Only a render-blocking stylesheet linked for every medium surely applies; the rest
        // (imported, for some media, the page's own `<style>`, whose `media` is not read) may.
        let certain: Vec<usize> = (page.style_links.iter())
            .filter(|link| {
                link.media
                    .as_deref()
                    .is_none_or(|m| m.trim().eq_ignore_ascii_case("all"))
            })
            .filter_map(|link| match page.resolved.get(link.reference)? {
                Some((_, Resolved::File { index, .. })) => Some(*index),
                _ => None,
            })
            .collect();
        let styles_allowed = !self.csp && !super::inline::sets_policy(page);
        let rules: Vec<(&BoxRule, bool)> = (page.box_rules.iter().map(|rule| (rule, false)))
            .chain(styles.iter().flat_map(|index| {
                let sure = certain.contains(index);
                self.sheets[index].iter().map(move |rule| (rule, sure))
            }))
            .collect();
        let plans: Vec<Option<Plan>> = unsized_images()
            .zip(sizes)
            .map(|(image, size)| {
                let sizing = boxes::sizing(rules.iter().copied(), &image.names, image.own)?;
                (styles_allowed || sizing == Sizing::Attributes).then_some((size?, sizing))
            })
            .collect();
        plans.iter().any(Option::is_some).then_some(plans)
    }

    /// The size of the site's image that `image` of `page` shows.
    fn size_of(&mut self, page: &Scanned, image: &html::Image) -> Option<(u32, u32)> {
        let (_, file) = page.resolved.get(image.reference?)?.as_ref()?;
        let Resolved::File {
            redirected_to: None,
            index,
            ..
        } = file
        else {
            return None;
        };
        file_size(self.images, file).or_else(|| {
            let found = &self.found[*index];
            *self.svgs.entry(*index).or_insert_with(|| svg_size(found))
        })
    }
}

/// The pixel size of the site's image a reference leads to, as the image stage read it (EXIF
/// orientation applied).
pub(super) fn file_size(images: &Images, resolved: &Resolved) -> Option<(u32, u32)> {
    let Resolved::File { index, .. } = resolved else {
        return None;
    };
    let (w, h) = images.of(*index)?.report.dimensions;
    (w > 0 && h > 0).then_some((w, h))
}

/// An SVG's natural size, as an `<img>` shows it: its root `<svg>`'s `width` and `height`
/// when both are lengths in pixels (a number, or one with `px`; SVG 2 §8.2: a percentage, a
/// font-relative length or none leaves the size to the box it is in).
fn svg_size(file: &Found) -> Option<(u32, u32)> {
    if !mime::content_type(&file.url_path).starts_with("image/svg+xml") {
        return None;
    }
    let bytes = file.source.read().ok()?;
    let found = std::cell::Cell::new(None);
    let settings = lol_html::Settings::new()
        .append_element_content_handler(lol_html::element!("svg", |el| {
            let pixels = |name: &str| {
                let value = el.get_attribute(name)?;
                let number = value.trim();
                let number = number.strip_suffix("px").unwrap_or(number).trim_end();
                let n: f64 = number.parse().ok()?;
                // Whole pixels only: a fraction would be rounded in the attribute.
                (n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u16::MAX)).then_some(n as u32)
            };
            found.set(Some(pixels("width").zip(pixels("height"))));
            // The root only: stop reading.
            Err("found".into())
        }))
        .with_strict(false);
    let mut rewriter = lol_html::HtmlRewriter::new(settings, |_: &[u8]| {});
    let _ = rewriter.write(&bytes);
    found.get().flatten()
}

/// The stylesheets that may style `page` (those it references and those they import, each
/// once, by file index); `None` when one of them cannot be read: another site's (a stylesheet
/// link of the page, or an `@import` of a stylesheet that references another site), or a file
/// the pass did not read (not UTF-8).
fn stylesheets(
    found: &[Found],
    page: &Scanned,
    scanned: &[Scanned],
    position: &HashMap<usize, usize>,
) -> Option<Vec<usize>> {
    let is_css = |index: usize| mime::content_type(&found[index].url_path).starts_with("text/css");
    // A stylesheet link that does not lead to one of the site's stylesheets.
    let elsewhere = (page.refs.iter().zip(&page.resolved)).any(|(reference, resolved)| {
        reference.hint == Some(super::Hint::Style)
            && !matches!(resolved, Some((_, Resolved::File { index, .. })) if is_css(*index))
    });
    if elsewhere {
        return None;
    }
    let (mut seen, mut queue) = (Vec::new(), vec![page]);
    while let Some(file) = queue.pop() {
        for resolved in file.resolved.iter().flatten() {
            let (_, Resolved::File { index, .. }) = resolved else {
                continue;
            };
            if !is_css(*index) || seen.contains(index) {
                continue;
            }
            seen.push(*index);
            let sheet = &scanned[*position.get(index)?];
            // An `@import` may name another site's stylesheet, which no reference resolves.
            let imports = sheet.text.to_ascii_lowercase().contains("@import");
            if imports && sheet.resolved.iter().any(Option::is_none) {
                return None;
            }
            queue.push(sheet);
        }
    }
    Some(seen)
}

/// `page` with ` width="W" height="H"` added to each unsized `<img>` that `plans` has a size
/// for (in the order of the page's unsized images), and `height:auto` or `width:auto` to its
/// style where the plan says; and how many; `None` if the page's images are not those, or none
/// was sized.
fn with_sizes(page: &str, plans: &[Option<Plan>]) -> Option<(Vec<u8>, usize)> {
    let scanned = html::scan(page).ok()?.images;
    let images: Vec<&html::Image> = scanned.iter().filter(|i| i.is_unsized()).collect();
    if images.len() != plans.len() {
        return None;
    }
    let mut inserts: Vec<(usize, String)> = Vec::new();
    let mut count = 0;
    // In a `<picture>`: left as it is.
    for (image, plan) in images.iter().zip(plans).filter(|(i, _)| !i.in_picture) {
        let Some(((width, height), sizing)) = *plan else {
            continue;
        };
        let style = match sizing {
            Sizing::Attributes => None,
            Sizing::HeightAuto => Some("height:auto"),
            Sizing::WidthAuto => Some("width:auto"),
        };
        let end = html::attributes_end(page, &image.tag)?;
        let mut attributes = format!("width=\"{width}\" height=\"{height}\"");
        match (style, image.style_end) {
            (None, _) => {}
            (Some(style), None) => attributes.push_str(&format!(" style=\"{style}\"")),
            (Some(style), Some(Some(value_end))) => inserts.push((value_end, format!(";{style}"))),
            // `style` without a value: a second `style` would be ignored.
            (Some(_), Some(None)) => continue,
        }
        inserts.push((end, attributes));
        count += 1;
    }
    (count > 0).then(|| Some((html::with_inserted(page, &inserts)?.into_bytes(), count)))?
}
