//! `/llms.txt` and `/llms-full.txt` (the llms.txt proposal, llmstxt.org): an H1 with the
//! site's name, a blockquote with its description, then H2 sections of Markdown links. Here a
//! section per top folder of the site's URLs ("Pages" for the pages at its root, first), each
//! page a link to its twin with the page's description; llms-full.txt is the twins themselves.

use super::markdown::one_line;
use super::{Agents, LLMS_FULL_PATH, LLMS_PATH};
use crate::config::AgentsConfig;
use crate::routing::Routing;
use crate::sources::Sources;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One page's twin, as llms.txt lists it.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// The page's URL path, and its twin's request target.
    pub path: String,
    pub twin: String,
    pub title: String,
    pub description: Option<String>,
    /// The twin (front matter and body).
    pub document: String,
}

/// llms.txt for `entries`: the root page's title and description (else the site's first
/// page's), then the sections.
pub(super) fn index(entries: &[Entry]) -> String {
    let root = entries.iter().find(|e| e.path == "/").or(entries.first());
    let title = root.map_or("", |e| e.title.as_str());
    let mut out = format!(
        "# {}\n",
        one_line(if title.is_empty() { "Site" } else { title })
    );
    if let Some(description) = root.and_then(|e| e.description.as_deref()) {
        out.push_str(&format!("\n> {}\n", one_line(description)));
    }
    for (section, pages) in sections(entries) {
        out.push_str(&format!("\n## {section}\n\n"));
        for entry in pages {
            let title = match entry.title.is_empty() {
                true => entry.path.as_str(),
                false => entry.title.as_str(),
            };
            out.push_str(&format!("- [{}]({})", link_text(title), entry.twin));
            if let Some(description) = &entry.description {
                out.push_str(&format!(": {}", one_line(description)));
            }
            out.push('\n');
        }
    }
    out
}

/// The entries by section: "Pages" (the root's pages) first, then each top folder in order.
fn sections(entries: &[Entry]) -> Vec<(String, Vec<&Entry>)> {
    let mut folders: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    let mut root = Vec::new();
    for entry in entries {
        let inner = entry.path.trim_start_matches('/');
        match inner.split_once('/') {
            Some((folder, _)) if !folder.is_empty() => {
                folders.entry(folder).or_default().push(entry);
            }
            _ => root.push(entry),
        }
    }
    let root = (!root.is_empty()).then(|| ("Pages".to_string(), root));
    root.into_iter()
        .chain(folders.into_iter().map(|(f, e)| (f.to_string(), e)))
        .collect()
}

/// llms-full.txt: the twins in llms.txt's order, whole, while they fit in `cap` bytes; and how
/// many.
pub(super) fn full(entries: &[Entry], cap: u64) -> (String, usize) {
    let mut out = String::new();
    let mut count = 0;
    for (_, pages) in sections(entries) {
        for entry in pages {
            let separator = usize::from(!out.is_empty());
            if (out.len() + separator + entry.document.len()) as u64 > cap {
                return (out, count);
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&entry.document);
            count += 1;
        }
    }
    (out, count)
}

/// `text` as a Markdown link's text: brackets escaped.
fn link_text(text: &str) -> String {
    one_line(text).replace('[', "\\[").replace(']', "\\]")
}

impl Agents {
    /// Adds `/llms.txt` and `/llms-full.txt` unless the site has its own, with a note.
    pub(super) fn add_llms(
        &mut self,
        sources: &mut Sources,
        routing: &mut Routing,
        config: &AgentsConfig,
    ) {
        if self.twins.is_empty() {
            return;
        }
        let (full, pages) = full(&self.twins, config.full_bytes);
        let made = [(LLMS_PATH, index(&self.twins)), (LLMS_FULL_PATH, full)];
        for (path, text) in made {
            let full = path == LLMS_FULL_PATH;
            if routing.routes_path(path) {
                self.warn(format!(
                    "{path}: the site's own file is served, not the one the build would make"
                ));
                continue;
            }
            let index = sources.add_made(path, Arc::from(text.into_bytes()));
            routing.add_file(path, index);
            self.stats.llms.push(path.to_string());
            if full {
                self.stats.full_pages = pages;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, title: &str, description: Option<&str>) -> Entry {
        Entry {
            path: path.into(),
            twin: match path {
                "/" => "/index.md".into(),
                _ => format!("{path}.md"),
            },
            title: title.into(),
            description: description.map(Into::into),
            document: format!("---\ntitle: {title}\n---\n\n# {title}\n"),
        }
    }

    #[test]
    fn the_index_groups_pages_by_top_folder_after_the_root() {
        let entries = [
            entry("/", "Home [site]", Some("What it\n is.")),
            entry("/about", "About", None),
            entry("/docs/a", "A", Some("First.")),
            entry("/blog/x", "X", None),
        ];
        assert_eq!(
            index(&entries),
            "# Home [site]\n\n> What it is.\n\n## Pages\n\n- [Home \\[site\\]](/index.md): What it is.\n\
             - [About](/about.md)\n\n## blog\n\n- [X](/blog/x.md)\n\n## docs\n\n- [A](/docs/a.md): First.\n"
        );
        let (text, count) = full(&entries, 1 << 20);
        assert_eq!(count, 4);
        assert!(text.starts_with("---\ntitle: Home [site]") && text.ends_with("# A\n"));
        // Whole twins only, up to the cap.
        let one = entries[0].document.len() as u64;
        assert_eq!(full(&entries, one).1, 1);
        assert_eq!(full(&entries, one - 1), (String::new(), 0));
    }
}
