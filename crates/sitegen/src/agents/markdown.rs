//! One page's Markdown twin: the page parsed as a browser would (html5ever, through htmd), its
//! main content ([`super::select`]) trimmed of what is not content, its links and images made
//! the site's own absolute URLs, then converted by htmd (turndown's rules: ATX headings, fenced
//! code blocks, pipe tables, inline links).
//!
//! Trimmed: navigation (`<nav>`, `role=navigation`, `role=search`), scripts, styles, forms and
//! their controls, embedded documents, hidden elements (`hidden`, `aria-hidden=true`, an
//! inline `display: none`), and a heading's permalink (an `<a>` to a fragment whose text is
//! `¶`, `#`, `§` or `🔗`, or of class `headerlink`, as Sphinx and MkDocs write them). A `<pre>`
//! becomes a fenced code block in the language its classes name (`language-*`, `lang-*`, or
//! Sphinx's `highlight-*` on an enclosing element).

use crate::selector::{main_content, Selector};
use html5ever::{ns, Attribute, LocalName, QualName};
use markup5ever_rcdom::{Handle, Node, NodeData};
use std::cell::RefCell;
use std::rc::Rc;

/// A page's twin, before its front matter (kept in the build's cache as JSON).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Twin {
    /// The page's `<title>` (else its first heading), whitespace collapsed.
    pub title: String,
    /// Its `<meta name="description">`.
    pub description: Option<String>,
    /// The Markdown of the main content.
    pub body: String,
    /// Headings and code blocks of the main content, as converted.
    pub headings: usize,
    pub code_blocks: usize,
}

/// Elements whose content is not the page's content.
const DROPPED: [&str; 17] = [
    "nav", "script", "style", "noscript", "template", "form", "button", "input", "select",
    "textarea", "iframe", "object", "embed", "canvas", "dialog", "link", "meta",
];

/// The deepest nesting of elements a page may have and get a twin (browsers lay out 512 levels
/// at most: Blink's `kMaximumHTMLParserDOMTreeDepth`).
pub(crate) const MAX_DEPTH: usize = 512;

/// The most work [`parse_work`] lets html5ever do on one page (measured on this machine: 20,000
/// nested elements, 2 x 10^8, took 1.3 s; an ordinary page is under 10^7).
const MAX_PARSE_WORK: u64 = 50_000_000;

/// An upper bound on the open elements html5ever walks for the end tags of `html`: the sum,
/// over end tags, of the elements open before it, read in one pass without a tree. Elements
/// with no end tag (void) or whose end tag the parser implies (`p`, `li`, table cells...) are
/// not counted; raw text (scripts, styles), comments and declarations are skipped.
fn parse_work(html: &str) -> u64 {
    const VOID: [&str; 14] = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr", "param",
    ];
    const IMPLIED: [&str; 16] = [
        "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot",
        "colgroup", "caption", "rt", "rp",
    ];
    const RAW: [&str; 8] = [
        "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
    ];
    let bytes = html.as_bytes();
    let (mut open, mut work, mut at) = (0u64, 0u64, 0);
    while let Some(found) = memchr::memchr(b'<', &bytes[at..]) {
        at += found + 1;
        let rest = &html[at..];
        if let Some(comment) = rest.strip_prefix("!--") {
            at += 3 + comment.find("-->").map_or(comment.len(), |e| e + 3);
            continue;
        }
        let end = rest.starts_with('/');
        let name: String = rest[usize::from(end)..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if name.is_empty() || VOID.contains(&name.as_str()) {
            continue;
        }
        // Every end tag, and the start of an element whose end the parser implies, checks the
        // open elements (an implied one is never counted open: it closes its like).
        if end || IMPLIED.contains(&name.as_str()) {
            work += open;
            if end && !IMPLIED.contains(&name.as_str()) {
                open = open.saturating_sub(1);
            }
        } else if RAW.contains(&name.as_str()) {
            // Open until its end tag, which the loop reads next.
            open += 1;
            at += raw_text_end(&bytes[at..], name.as_bytes());
        } else {
            open += 1;
        }
    }
    work
}

/// Where the raw text starting at `text` ends: its `</name`, compared without case, found in
/// one pass (the end of `text` if there is none).
fn raw_text_end(text: &[u8], name: &[u8]) -> usize {
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'<', &text[at..]) {
        at += found;
        let close = text.get(at + 1..at + 2 + name.len());
        if close.is_some_and(|c| c[0] == b'/' && c[1..].eq_ignore_ascii_case(name)) {
            return at;
        }
        at += 1;
    }
    text.len()
}

/// How deeply elements nest under `root`, counted without recursion.
fn depth(root: &Handle) -> usize {
    let (mut deepest, mut stack) = (0, vec![(root.clone(), 0)]);
    while let Some((node, level)) = stack.pop() {
        deepest = deepest.max(level);
        let children = node.children.borrow();
        let elements = children
            .iter()
            .filter(|c| matches!(c.data, NodeData::Element { .. }));
        stack.extend(elements.map(|c| (c.clone(), level + 1)));
    }
    deepest
}

/// The twin of `html` (`None`: no main content, nested deeper than [`MAX_DEPTH`], or too costly
/// to parse: [`parse_work`]); `link` maps each `href` and `src` of the content to the URL the twin
/// names (`None`: as written).
pub(crate) fn convert(
    html: &str,
    selector: Option<&Selector>,
    link: &mut dyn FnMut(&str) -> Option<String>,
) -> Option<Twin> {
    let converter = htmd::HtmlToMarkdown::builder()
        .options(htmd::options::Options {
            bullet_list_marker: htmd::options::BulletListMarker::Dash,
            ul_bullet_spacing: 1,
            ol_number_spacing: 1,
            ..htmd::options::Options::default()
        })
        .build();
    // html5ever checks an end tag's scope through every open element: a page of 100,000
    // nested elements closed one by one costs minutes. Such a page has no twin.
    if parse_work(html) > MAX_PARSE_WORK {
        return None;
    }
    let document = converter.html_to_tree(html).ok()?;
    // The steps below and htmd's walk recurse once per level: a page nested deeper has no twin
    // (a hostile page could otherwise overflow the stack).
    if depth(&document) > MAX_DEPTH {
        return None;
    }
    // A `<base href>` moves what relative URLs mean: its page's links stay as written.
    let based = find(&document, &|n| is_element(n, "base")).is_some();
    let mut as_written = |_: &str| None;
    let link: &mut dyn FnMut(&str) -> Option<String> = match based {
        true => &mut as_written,
        false => link,
    };
    let title = title(&document);
    let description = meta_description(&document);
    let main = main_content(&document, selector)?;
    trim(&main, link, None);
    let (headings, code_blocks) = count(&main);
    let body = converter.tree_to_markdown(&main);
    Some(Twin {
        title,
        description,
        body,
        headings,
        code_blocks,
    })
}

/// Trims the children of `node` (module docs), rewrites their URLs, and makes each `<pre>` a
/// code block; `language`: the one an enclosing element's class names.
fn trim(node: &Handle, link: &mut dyn FnMut(&str) -> Option<String>, language: Option<&str>) {
    let children: Vec<Handle> = node.children.borrow().clone();
    let mut kept = Vec::with_capacity(children.len());
    for child in children {
        if let NodeData::Element { name, attrs, .. } = &child.data {
            let tag = name.local.to_string().to_ascii_lowercase();
            if DROPPED.contains(&tag.as_str()) || is_hidden(&attrs.borrow()) {
                continue;
            }
            if tag == "a" && is_permalink(&child) {
                continue;
            }
            rewrite_urls(&tag, &mut attrs.borrow_mut(), link);
            let own = language_of(&attrs.borrow());
            let language = own.as_deref().or(language);
            if tag == "pre" {
                as_code_block(&child, language);
            } else {
                trim(&child, link, language);
            }
        }
        kept.push(child);
    }
    *node.children.borrow_mut() = kept;
}

/// `hidden`, `aria-hidden="true"`, a role that is not content, or an inline `display: none`.
fn is_hidden(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let value = a.value.trim().to_ascii_lowercase();
        match &*a.name.local {
            "hidden" => true,
            "aria-hidden" => value == "true",
            "role" => matches!(value.as_str(), "navigation" | "search"),
            "style" => value.replace(' ', "").contains("display:none"),
            _ => false,
        }
    })
}

/// A heading's permalink: a link to a fragment whose text is one symbol, or Sphinx's and
/// MkDocs' `headerlink`.
fn is_permalink(node: &Handle) -> bool {
    let NodeData::Element { attrs, .. } = &node.data else {
        return false;
    };
    let attrs = attrs.borrow();
    let value = |name: &str| {
        attrs
            .iter()
            .find(|a| &*a.name.local == name)
            .map(|a| &a.value)
    };
    if value("class").is_some_and(|c| c.split_ascii_whitespace().any(|c| c == "headerlink")) {
        return true;
    }
    let to_fragment = value("href").is_some_and(|h| h.starts_with('#'));
    to_fragment && matches!(text_of(node).trim(), "¶" | "#" | "§" | "🔗")
}

/// `href` and `src` mapped by `link`; `srcset` and `sizes` dropped (the twin names one image),
/// and a link's `title` (a tooltip, most often the link's own text again: Sphinx titles every
/// cross-reference, which doubles its tokens).
fn rewrite_urls(
    tag: &str,
    attrs: &mut Vec<Attribute>,
    link: &mut dyn FnMut(&str) -> Option<String>,
) {
    let name = match tag {
        "a" | "area" => "href",
        "img" => "src",
        _ => return,
    };
    let dropped: &[&str] = match name {
        "href" => &["title"],
        _ => &["srcset", "sizes"],
    };
    attrs.retain(|a| !dropped.contains(&&*a.name.local));
    for attribute in attrs.iter_mut() {
        if &*attribute.name.local == name {
            if let Some(url) = link(attribute.value.trim()) {
                attribute.value = url.into();
            }
        }
    }
}

/// The language a `class` names: `language-*`, `lang-*` or `highlight-*` (Sphinx; not its
/// `highlight-default` nor the bare `highlight`).
fn language_of(attrs: &[Attribute]) -> Option<String> {
    let class = attrs.iter().find(|a| &*a.name.local == "class")?;
    class.value.split_ascii_whitespace().find_map(|c| {
        let language = c
            .strip_prefix("language-")
            .or_else(|| c.strip_prefix("lang-"))
            .or_else(|| c.strip_prefix("highlight-"))?;
        (!language.is_empty() && !matches!(language, "default" | "none" | "text"))
            .then(|| language.to_ascii_lowercase())
    })
}

/// `pre` as htmd makes a fenced code block of: its content in one `<code>` with the class
/// `language-*` (htmd fences only `<pre><code>`; Sphinx writes `<pre>` with spans).
fn as_code_block(pre: &Handle, language: Option<&str>) {
    let children = pre.children.borrow().clone();
    let language = match children.as_slice() {
        [only] if is_element(only, "code") => {
            let NodeData::Element { attrs, .. } = &only.data else {
                return;
            };
            if language_of(&attrs.borrow()).is_some() {
                return;
            }
            language.map(str::to_string)
        }
        _ => language.map(str::to_string),
    };
    let code_children = match children.as_slice() {
        [only] if is_element(only, "code") => only.children.borrow().clone(),
        _ => children,
    };
    let attrs = language
        .map(|l| Attribute {
            name: QualName::new(None, ns!(), LocalName::from("class")),
            value: format!("language-{l}").into(),
        })
        .into_iter()
        .collect();
    let code = Node::new(NodeData::Element {
        name: QualName::new(None, ns!(html), LocalName::from("code")),
        attrs: RefCell::new(attrs),
        template_contents: RefCell::new(None),
        mathml_annotation_xml_integration_point: false,
    });
    for child in &code_children {
        child.parent.set(Some(Rc::downgrade(&code)));
    }
    *code.children.borrow_mut() = code_children;
    code.parent.set(Some(Rc::downgrade(pre)));
    *pre.children.borrow_mut() = vec![code];
}

fn is_element(node: &Handle, tag: &str) -> bool {
    matches!(&node.data, NodeData::Element { name, .. } if (*name.local).eq_ignore_ascii_case(tag))
}

/// The text of `node` and its descendants.
fn text_of(node: &Handle) -> String {
    let mut out = String::new();
    collect_text(node, &mut out);
    out
}

fn collect_text(node: &Handle, out: &mut String) {
    if let NodeData::Text { contents } = &node.data {
        out.push_str(&contents.borrow());
    }
    for child in node.children.borrow().iter() {
        collect_text(child, out);
    }
}

/// The headings (`h1`-`h6`) and code blocks (`pre`) under `node`.
fn count(node: &Handle) -> (usize, usize) {
    let mut totals = (0, 0);
    for child in node.children.borrow().iter() {
        if let NodeData::Element { name, .. } = &child.data {
            match name.local.to_string().to_ascii_lowercase().as_str() {
                "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => totals.0 += 1,
                "pre" => totals.1 += 1,
                _ => {}
            }
        }
        let (h, c) = count(child);
        totals = (totals.0 + h, totals.1 + c);
    }
    totals
}

/// The document's `<title>` (HTML's, not an SVG's), else its first `<h1>`, whitespace
/// collapsed.
fn title(document: &Handle) -> String {
    let collapsed = |n: Handle| one_line(&text_of(&n));
    let html_title = |n: &Handle| matches!(&n.data, NodeData::Element { name, .. } if name.ns == ns!(html) && &*name.local == "title");
    let title = find(document, &html_title)
        .map(collapsed)
        .unwrap_or_default();
    match title.is_empty() {
        true => find(document, &|n| is_element(n, "h1"))
            .map(collapsed)
            .unwrap_or_default(),
        false => title,
    }
}

/// `<meta name="description" content="...">`.
fn meta_description(document: &Handle) -> Option<String> {
    let meta = find(document, &|n| {
        let NodeData::Element { name, attrs, .. } = &n.data else {
            return false;
        };
        &*name.local == "meta"
            && attrs.borrow().iter().any(|a| {
                &*a.name.local == "name" && a.value.trim().eq_ignore_ascii_case("description")
            })
    })?;
    let NodeData::Element { attrs, .. } = &meta.data else {
        return None;
    };
    let content = attrs
        .borrow()
        .iter()
        .find(|a| &*a.name.local == "content")
        .map(|a| one_line(&a.value))?;
    (!content.is_empty()).then_some(content)
}

/// `text` on one line, each run of whitespace one space, none at the ends.
pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first node in document order that `wanted` accepts.
fn find(node: &Handle, wanted: &dyn Fn(&Handle) -> bool) -> Option<Handle> {
    if wanted(node) {
        return Some(node.clone());
    }
    node.children
        .borrow()
        .iter()
        .find_map(|child| find(child, wanted))
}

/// The token estimate of `text`: its characters divided by four, rounded up (OpenAI's rule of
/// thumb for English text; the field says estimate, and no tokenizer is the agents' own).
pub(crate) fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twin(html: &str) -> Twin {
        let mut link = |url: &str| url.starts_with("x/").then(|| format!("/docs/{url}"));
        convert(html, None, &mut link).unwrap()
    }

    #[test]
    fn the_main_content_without_navigation_with_code_and_links_made_absolute() {
        let html = r##"<!doctype html><html><head><title> The  guide </title>
<meta name="description" content="How to install.">
<script>var x = 1;</script></head><body>
<nav><a href="/">Home</a></nav>
<div role="main">
<h1>Install<a class="headerlink" href="#install">¶</a></h1>
<p>Read <a href="x/next.html" title="Next">the next page</a> and <a href="https://example.org/">this</a>.</p>
<div hidden>secret</div><p aria-hidden="true">also secret</p>
<div class="highlight-python3 notranslate"><div class="highlight"><pre><span class="k">import</span> os
print(os.name)</pre></div></div>
<pre><code class="language-rust">fn main() {}</code></pre>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
<img src="x/p.png" srcset="x/p2.png 2x" alt="A photo">
<form><input name=q><button>Go</button></form>
</div></body></html>"##;
        let twin = twin(html);
        assert_eq!(twin.title, "The guide");
        assert_eq!(twin.description.as_deref(), Some("How to install."));
        assert_eq!((twin.headings, twin.code_blocks), (1, 2));
        let body = &twin.body;
        assert!(body.starts_with("# Install\n"), "{body}");
        for kept in [
            "[the next page](/docs/x/next.html)",
            "[this](https://example.org/)",
            "```python3\nimport os\nprint(os.name)\n```",
            "```rust\nfn main() {}\n```",
            "| a | b |",
            "![A photo](/docs/x/p.png)",
        ] {
            assert!(body.contains(kept), "{kept:?} not in\n{body}");
        }
        for dropped in ["Home", "¶", "secret", "var x", "Go", "p2.png"] {
            assert!(!body.contains(dropped), "{dropped:?} in\n{body}");
        }
    }

    #[test]
    fn parse_work_sums_the_open_elements_at_each_end_tag() {
        assert_eq!(parse_work("<div><div></div></div>"), 2 + 1);
        // Void elements, raw text, comments: not counted; an implied element's start and end
        // check the open ones, and it is never counted open.
        let skipped = "<p>a<br><li>b<img src=x><SCRIPT>if (a<b) '<div>'</script><!-- <div> -->";
        assert_eq!(parse_work(&format!("<div>{skipped}</div>")), 1 + 1 + 2 + 1);
        // End tags of implied elements under deep nesting cost what they walk.
        let deep_ends = format!("{}{}", "<div>".repeat(5_000), "</p>".repeat(20_000));
        assert!(parse_work(&deep_ends) > MAX_PARSE_WORK);
        // Unclosed elements stay open for every later end tag.
        assert_eq!(parse_work("<span><span><div></div><div></div>"), 3 + 3);
        let nested = |n: usize| format!("{}{}", "<div>".repeat(n), "</div>".repeat(n));
        assert!(parse_work(&nested(5_000)) < MAX_PARSE_WORK);
        assert!(parse_work(&nested(20_000)) > MAX_PARSE_WORK);
    }

    #[test]
    fn tokens_are_characters_over_four() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("abcd"), 1);
        assert_eq!(tokens("abcde"), 2);
        assert_eq!(tokens("¶¶¶¶"), 1);
    }
}
