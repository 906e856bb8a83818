//! Step 3c, sizes: an `<img>` of one of the site's images with neither `width` nor `height`
//! (and no `srcset`) gets both, the image's intrinsic size as shown (EXIF orientation applied:
//! the image stage's reading), so that a browser reserves its box before the bytes arrive
//! instead of moving the page when they do (a layout shift, which page audits flag as unsized
//! images). `[links] size_images`.
//!
//! The attributes give the box the size the image would have had anyway, unless CSS sizes it:
//! then CSS wins over them, except that a CSS width (`max-width: 100%` is common) with the
//! `height` attribute and no `height: auto` would squeeze the image. So a page is left as it is
//! unless no CSS that may style it (its stylesheets, those they reference, its own `<style>`
//! and `style` attributes) mentions a width, or one of its stylesheets sets `img { height:
//! auto }` (at the top level; then the attributes only reserve the aspect ratio). An image in
//! a `<picture>` is left too (its sources may have another shape). The views layer's
//! `same_view.py` checks that pages look the same to the pixel with this off and on.

use super::{html, positions, Rewrite, Scanned};
use crate::images::Images;
use crate::mime;
use crate::resolve::Resolved;
use crate::sources::Found;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// A page whose images got their size (its position in the scanned files): its new bytes, and
/// how many.
pub(super) struct Sized {
    pub at: usize,
    pub bytes: Vec<u8>,
    pub images: usize,
}

/// Every page with unsized images that can be sized.
pub(super) fn size_all(
    found: &[Found],
    scanned: &[Scanned],
    images: &Images,
    rewrites: &[Option<Rewrite>],
) -> Vec<Sized> {
    let position: HashMap<usize, usize> = positions(scanned);
    let is_css = |index: usize| mime::content_type(&found[index].url_path).starts_with("text/css");
    // Each stylesheet read once, whatever the number of pages that use it: (mentions a width,
    // sets `img { height: auto }`).
    let mut read: HashMap<usize, (bool, bool)> = HashMap::new();
    // The pages to size, and the sizes of their unsized images.
    let mut todo = Vec::new();
    for (at, page) in scanned.iter().enumerate() {
        if !page.images.iter().any(html::Image::is_unsized) {
            continue;
        }
        let sizes: Vec<Option<(u32, u32)>> = page
            .images
            .iter()
            .filter(|image| image.is_unsized())
            .map(|image| match page.resolved.get(image.reference?)? {
                Some((
                    _,
                    file @ Resolved::File {
                        redirected_to: None,
                        ..
                    },
                )) => file_size(images, file),
                _ => None,
            })
            .collect();
        if sizes.iter().all(Option::is_none) {
            continue;
        }
        if css_allows(page, scanned, &position, &is_css, &mut read) {
            todo.push((at, sizes));
        }
    }
    // The pages read again, as served, on all cores.
    let sized = crate::parallel::map(todo.len(), |n| {
        let (at, sizes) = &todo[n];
        let served = match &rewrites[scanned[*at].index] {
            Some(rewrite) => String::from_utf8_lossy(&rewrite.bytes),
            None => std::borrow::Cow::Borrowed(&scanned[*at].text[..]),
        };
        let (bytes, images) = with_sizes(&served, sizes)?;
        Some(Sized {
            at: *at,
            bytes,
            images,
        })
    });
    sized.into_iter().flatten().collect()
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

/// Whether the attributes cannot change how `page`'s images are laid out: no CSS that may style
/// it mentions a width, or a stylesheet of it sets `img { height: auto }`.
fn css_allows(
    page: &Scanned,
    scanned: &[Scanned],
    position: &HashMap<usize, usize>,
    is_css: &dyn Fn(usize) -> bool,
    read: &mut HashMap<usize, (bool, bool)>,
) -> bool {
    // The stylesheets the page references, and those they reference, each once.
    let (mut seen, mut queue) = (HashSet::new(), vec![page]);
    let (mut width, mut height_auto) = (page.styles_width, false);
    while let Some(file) = queue.pop() {
        for resolved in file.resolved.iter().flatten() {
            let (_, Resolved::File { index, .. }) = resolved else {
                continue;
            };
            if !is_css(*index) || !seen.insert(*index) {
                continue;
            }
            let Some(sheet) = position.get(index).map(|&at| &scanned[at]) else {
                // A stylesheet the pass did not read (not UTF-8): anything may be in it.
                return false;
            };
            let (w, h) = *read.entry(*index).or_insert_with(|| {
                let lower = sheet.text.to_ascii_lowercase();
                let auto =
                    lower.contains("height") && super::sheet::read(&sheet.text).img_height_auto;
                (lower.contains("width"), auto)
            });
            width |= w;
            height_auto |= h;
            queue.push(sheet);
        }
    }
    !width || height_auto
}

/// `page` with ` width="W" height="H"` added to each unsized `<img>` that `sizes` has a size
/// for (in the order of the page's unsized images), and how many; `None` if the page's images
/// are not those, or none was sized.
fn with_sizes(page: &str, sizes: &[Option<(u32, u32)>]) -> Option<(Vec<u8>, usize)> {
    let scanned = html::scan(page).ok()?.images;
    let images: Vec<&html::Image> = scanned.iter().filter(|i| i.is_unsized()).collect();
    if images.len() != sizes.len() {
        return None;
    }
    let edits: Vec<(Range<usize>, String)> = images
        .iter()
        .zip(sizes)
        // In a `<picture>`: left as it is.
        .filter(|(image, _)| !image.in_picture)
        .filter_map(|(image, size)| {
            let (width, height) = (*size)?;
            Some((
                image.tag.clone(),
                format!("width=\"{width}\" height=\"{height}\""),
            ))
        })
        .collect();
    let count = edits.len();
    (count > 0).then(|| Some((html::with_attributes(page, &edits)?.into_bytes(), count)))?
}
