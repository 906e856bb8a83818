//! The report's treemap: the bundle by folder, then file, each a rectangle whose area is its
//! stored bytes, laid out by the squarified algorithm (Bruls, Huizing and van Wijk, "Squarified
//! Treemaps", 2000: rows whose worst aspect ratio stops improving are closed). Written in Rust
//! at build time as SVG, so the report needs no script to draw it.

/// A rectangle: x, y, width, height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// A folder or file of the tree.
#[derive(Debug, Default)]
pub(crate) struct Node {
    pub name: String,
    pub bytes: u64,
    /// For a file: its index among the files given to [`tree`].
    pub file: Option<usize>,
    pub children: Vec<Node>,
    /// A folder's child folders by name: their index in `children` (a folder of 100,000 files
    /// is found in one lookup, not a scan of its children per file).
    folders: std::collections::HashMap<String, usize>,
}

/// The tree of `(path, bytes)` by folder; files with no bytes are left out. Children sorted
/// largest first.
pub(crate) fn tree(files: &[(&str, u64)]) -> Node {
    let mut root = Node::default();
    for (index, (path, bytes)) in files.iter().enumerate().filter(|(_, (_, b))| *b > 0) {
        let mut node = &mut root;
        node.bytes += bytes;
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        for (depth, segment) in segments.iter().enumerate() {
            let last = depth + 1 == segments.len();
            let found = (!last)
                .then(|| node.folders.get(*segment).copied())
                .flatten();
            let at = match found {
                Some(at) => at,
                None => {
                    let at = node.children.len();
                    if !last {
                        node.folders.insert((*segment).to_string(), at);
                    }
                    node.children.push(Node {
                        name: (*segment).to_string(),
                        file: last.then_some(index),
                        ..Node::default()
                    });
                    at
                }
            };
            node = &mut node.children[at];
            node.bytes += bytes;
        }
    }
    sort(&mut root);
    root
}

fn sort(node: &mut Node) {
    // The index names places the sort moves: it was for building only.
    node.folders = std::collections::HashMap::new();
    node.children.sort_by_key(|c| std::cmp::Reverse(c.bytes));
    node.children.iter_mut().for_each(sort);
}

/// Every file's rectangle (with its node) and every folder's, laid out in `area`.
pub(crate) fn layout<'n>(node: &'n Node, area: Rect, out: &mut Vec<(Rect, &'n Node)>) {
    let sizes: Vec<f64> = node.children.iter().map(|c| c.bytes as f64).collect();
    for (child, rect) in node.children.iter().zip(squarify(&sizes, area)) {
        out.push((rect, child));
        if !child.children.is_empty() {
            layout(child, rect, out);
        }
    }
}

/// Rectangles for `sizes` (largest first) filling `area`, each with an area in proportion.
pub(crate) fn squarify(sizes: &[f64], area: Rect) -> Vec<Rect> {
    let total: f64 = sizes.iter().sum();
    if total <= 0.0 || area.w <= 0.0 || area.h <= 0.0 {
        return vec![
            Rect {
                w: 0.0,
                h: 0.0,
                ..area
            };
            sizes.len()
        ];
    }
    let scale = area.w * area.h / total;
    let scaled: Vec<f64> = sizes.iter().map(|s| s * scale).collect();
    let mut out = Vec::with_capacity(sizes.len());
    let mut free = area;
    let mut row: Vec<f64> = Vec::new();
    for &size in &scaled {
        let side = free.w.min(free.h);
        let mut with = row.clone();
        with.push(size);
        if row.is_empty() || worst(&with, side) <= worst(&row, side) {
            row = with;
        } else {
            free = place(&row, free, &mut out);
            row = vec![size];
        }
    }
    place(&row, free, &mut out);
    out
}

/// The worst aspect ratio of a row of areas laid along a side of length `side`.
fn worst(row: &[f64], side: f64) -> f64 {
    let sum: f64 = row.iter().sum();
    let (max, min) = row
        .iter()
        .fold((f64::MIN, f64::MAX), |(hi, lo), &s| (hi.max(s), lo.min(s)));
    let side2 = side * side;
    (side2 * max / (sum * sum)).max(sum * sum / (side2 * min))
}

/// Lays `row` along the short side of `free`; returns what is left.
fn place(row: &[f64], free: Rect, out: &mut Vec<Rect>) -> Rect {
    let sum: f64 = row.iter().sum();
    if free.w >= free.h {
        let width = if free.h > 0.0 { sum / free.h } else { 0.0 };
        let mut y = free.y;
        for &size in row {
            let h = if width > 0.0 { size / width } else { 0.0 };
            out.push(Rect {
                x: free.x,
                y,
                w: width,
                h,
            });
            y += h;
        }
        Rect {
            x: free.x + width,
            w: free.w - width,
            ..free
        }
    } else {
        let height = if free.w > 0.0 { sum / free.w } else { 0.0 };
        let mut x = free.x;
        for &size in row {
            let w = if height > 0.0 { size / height } else { 0.0 };
            out.push(Rect {
                x,
                y: free.y,
                w,
                h: height,
            });
            x += w;
        }
        Rect {
            y: free.y + height,
            h: free.h - height,
            ..free
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AREA: Rect = Rect {
        x: 0.0,
        y: 0.0,
        w: 600.0,
        h: 400.0,
    };

    #[test]
    fn the_papers_example_fills_the_area_in_proportion_without_overlap() {
        // Bruls et al.'s example: 6, 6, 4, 3, 2, 2, 1 in a 6 x 4 rectangle.
        let sizes = [6.0, 6.0, 4.0, 3.0, 2.0, 2.0, 1.0];
        let rects = squarify(&sizes, AREA);
        let scale = AREA.w * AREA.h / 24.0;
        for (rect, size) in rects.iter().zip(sizes) {
            assert!((rect.w * rect.h - size * scale).abs() < 1e-6, "{rect:?}");
            assert!(rect.x >= 0.0 && rect.y >= 0.0);
            assert!(rect.x + rect.w <= AREA.w + 1e-9 && rect.y + rect.h <= AREA.h + 1e-9);
        }
        for (i, a) in rects.iter().enumerate() {
            for b in &rects[i + 1..] {
                let overlap_w = (a.x + a.w).min(b.x + b.w) - a.x.max(b.x);
                let overlap_h = (a.y + a.h).min(b.y + b.h) - a.y.max(b.y);
                assert!(overlap_w <= 1e-9 || overlap_h <= 1e-9, "{a:?} {b:?}");
            }
        }
        // The first row holds the two 6s, side by side down the short side.
        assert!((rects[0].w - rects[1].w).abs() < 1e-9 && rects[0].x == rects[1].x);
    }

    #[test]
    fn folders_hold_their_files_and_the_files_sum_to_the_folder() {
        let files = [
            ("/a/x.css", 30),
            ("/a/y.js", 10),
            ("/b.html", 60),
            ("/empty", 0),
        ];
        let root = tree(&files);
        assert_eq!(root.bytes, 100);
        assert_eq!(root.children[0].name, "b.html");
        assert_eq!(root.children[1].name, "a");
        assert_eq!(root.children[1].bytes, 40);
        let mut rects = Vec::new();
        layout(&root, AREA, &mut rects);
        let file_area: f64 = rects
            .iter()
            .filter(|(_, n)| n.file.is_some())
            .map(|(r, _)| r.w * r.h)
            .sum();
        assert!((file_area - AREA.w * AREA.h).abs() < 1e-6);
        assert_eq!(rects.iter().filter(|(_, n)| n.file.is_some()).count(), 3);
    }
}
