//! HTML pages, minified over lol_html's tokenizer: comments out, whitespace in text collapsed,
//! and the CSS and JavaScript written in the page minified as files are ([`super::css`],
//! [`super::js`]). Attributes, tags and everything else stay as written.
//!
//! Not minify-html, the field's HTML minifier: it removes whitespace between elements its
//! tables call "layout" (between `<li>`s, around `<div>`s) with no option to keep it, and CSS
//! can make those inline: on the Python documentation (Debian's `python3.11-doc`), the
//! breadcrumbs "Python » 3.11.2 Documentation » Search" lost their spaces
//! (docs/benchmarks.md, "The corpus"). Here a run of whitespace only becomes a shorter run that
//! CSS renders the same way (CSS Text 3 §4.1): one space, or its line breaks without the spaces
//! around them, so `white-space: normal`, `nowrap` and `pre-line` lay the text out as before.
//! Text whose spaces count (`<pre>`, `<textarea>`, `<listing>`, scripts, styles, SVG and
//! MathML) is left alone, and so is a whole page when its CSS could keep spaces elsewhere.

use super::css;
use super::js::{self, Kind};
use lol_html::html_content::{ContentType, Element, TextChunk, TextType};
use lol_html::{doc_comments, doc_text, element, text, HtmlRewriter, Settings};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// What the minifier may change in a page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Allowed {
    /// Collapse whitespace in text (the page's CSS keeps no spaces outside `<pre>`).
    pub(crate) whitespace: bool,
    /// Remove comments (the page has no script, which might read them).
    pub(crate) comments: bool,
    /// Minify `<style>` elements.
    pub(crate) css: bool,
    /// Minify `<script>` elements of JavaScript.
    pub(crate) js: bool,
}

/// A `<style>` or `<script>` the minifier could not read, kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptInline {
    /// `style` or `script`.
    pub(crate) element: &'static str,
    /// The line of the page it is at (1-based; while rewriting, the byte offset where its
    /// text starts).
    pub(crate) line: usize,
    /// The line within its text.
    within: usize,
    pub(crate) message: String,
}

/// A page minified.
#[derive(Debug, Default)]
pub(crate) struct Minified {
    pub(crate) bytes: Vec<u8>,
    /// The inline styles and scripts kept as written.
    pub(crate) kept: Vec<KeptInline>,
}

/// What a page says about itself before anything in it is changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Survey {
    /// The `src` or `href` of each element with `integrity`, as written: what it loads must
    /// keep its bytes.
    pub(crate) integrity: Vec<String>,
    /// An import map names an `integrity` (of modules by URL): no script keeps its bytes for
    /// sure.
    pub(crate) import_integrity: bool,
    /// It has a `<script>` (which might read its comments and text).
    pub(crate) scripts: bool,
    /// A framework hydrates it from its markup (React, Vue, Svelte, Astro, Angular, Qwik,
    /// Lit, Knockout markers): its comments and whitespace are data.
    pub(crate) hydrated: bool,
    /// It loads a stylesheet from another origin (whose `white-space` the build cannot read).
    pub(crate) foreign_styles: bool,
}

/// State while rewriting: what a style or script element holds so far, and what could not be
/// minified.
#[derive(Default)]
struct Rewrite {
    code: Option<Code>,
    kept: Vec<KeptInline>,
}

/// A `<style>` or `<script>` being read: its kind, where it starts, its text so far.
struct Code {
    kind: CodeKind,
    offset: usize,
    text: String,
}

#[derive(Clone, Copy)]
enum CodeKind {
    Style,
    Script(Kind),
}

/// Elements whose text the minifier never touches: white space is content in them (`pre`,
/// `textarea`, `listing`, `plaintext`), or their text is code or foreign markup (`script` and
/// `style` are minified whole, by their own minifier, or left alone).
/// `code`, `kbd` and `samp` and diagrams' sources (`.mermaid`) too: scripts read their text
/// (highlighters, copy buttons, diagram renderers).
const KEEP_TEXT: &str = "pre, textarea, listing, plaintext, xmp, script, style, svg, math, \
                         code, kbd, samp, .mermaid";

/// Comment texts frameworks hydrate from: React's `$`, `/$`, `$?`, `$!` and empty text
/// separators, Vue's and Svelte's `[`, `]`, `[!` and `v-if`, Solid's `#` and `/`, Vue's
/// teleports; Lit's `?lit$`, Knockout's `ko`, Qwik's `q:` and Angular's `ngh` by prefix.
/// (Internet Explorer's `[if ...]` is not one.)
fn hydration_comment(text: &str) -> bool {
    let t = text.trim();
    matches!(
        t,
        "" | "$"
            | "/$"
            | "$?"
            | "$!"
            | "["
            | "]"
            | "[!"
            | "v-if"
            | "#"
            | "/"
            | "teleport start"
            | "teleport end"
    ) || ["?lit$", "lit-part", "ko ", "/ko", "q:", "ngh"]
        .iter()
        .any(|marker| t.starts_with(marker))
}

/// Elements and attributes frameworks hydrate from.
const HYDRATED: &str = "astro-island, [data-reactroot], [data-server-rendered], [ng-version], \
                        [ngh], [q\\:container], [data-svelte-h], #__next, #__nuxt, #___gatsby, \
                        script#__NEXT_DATA__, script#__NUXT_DATA__";

/// What `html` says about itself ([`Survey`]); any text (read as UTF-8 where it can be).
pub(crate) fn survey(html: &str) -> Survey {
    let survey = RefCell::new(Survey::default());
    let importmap = Cell::new(false);
    let settings = Settings::new()
        .append_element_content_handler(element!("[integrity]", |el| {
            let loads = el.get_attribute("src").or_else(|| el.get_attribute("href"));
            survey.borrow_mut().integrity.extend(loads);
            Ok(())
        }))
        .append_element_content_handler(element!("script", |el| {
            survey.borrow_mut().scripts = true;
            let kind = el.get_attribute("type").unwrap_or_default();
            importmap.set(kind.trim().eq_ignore_ascii_case("importmap"));
            Ok(())
        }))
        .append_element_content_handler(text!("script", |chunk| {
            if importmap.get() && chunk.as_str().contains("integrity") {
                survey.borrow_mut().import_integrity = true;
            }
            Ok(())
        }))
        .append_element_content_handler(element!(HYDRATED, |_| {
            survey.borrow_mut().hydrated = true;
            Ok(())
        }))
        .append_element_content_handler(element!("link[rel][href]", |el| {
            let rel = el
                .get_attribute("rel")
                .unwrap_or_default()
                .to_ascii_lowercase();
            let href = el.get_attribute("href").unwrap_or_default();
            let href = href.trim_start().to_ascii_lowercase();
            let foreign = href.starts_with("//") || href.contains(':');
            if foreign && rel.split_ascii_whitespace().any(|r| r == "stylesheet") {
                survey.borrow_mut().foreign_styles = true;
            }
            Ok(())
        }))
        .append_document_content_handler(doc_comments!(|comment| {
            if hydration_comment(&comment.text()) {
                survey.borrow_mut().hydrated = true;
            }
            Ok(())
        }))
        .with_strict(false);
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    // The tokenizer does not give up in non-strict mode; if it did, the page would look
    // hydrated (left as written) and its integrity references unread: every script kept.
    let read = rewriter
        .write(html.as_bytes())
        .and_then(|()| rewriter.end());
    let mut survey = survey.into_inner();
    if read.is_err() {
        survey.hydrated = true;
        survey.import_integrity = true;
    }
    survey
}

/// `html` (UTF-8) minified as `allowed` says.
///
/// # Errors
/// When the tokenizer gives up (it does not, in non-strict mode, on any input seen so far).
pub(crate) fn minify(html: &str, allowed: Allowed) -> Result<Minified, String> {
    let state = RefCell::new(Rewrite::default());
    let depth = Rc::new(Cell::new(0usize));
    let mut out = Vec::with_capacity(html.len());
    let settings = Settings::new()
        .append_element_content_handler(element!(KEEP_TEXT, |el| { keep_text_within(el, &depth) }))
        .append_element_content_handler(element!("style, script", |el| {
            state.borrow_mut().code = code_kind(el, allowed).map(|kind| Code {
                kind,
                offset: el.source_location().bytes().end,
                text: String::new(),
            });
            Ok(())
        }))
        .append_element_content_handler(text!("style, script", |chunk| {
            code_text(chunk, &mut state.borrow_mut());
            Ok(())
        }))
        .append_document_content_handler(doc_comments!(|comment| {
            if allowed.comments && !kept_comment(&comment.text()) {
                comment.remove();
            }
            Ok(())
        }))
        .append_document_content_handler(doc_text!(|chunk| {
            if allowed.whitespace && depth.get() == 0 && chunk.text_type() == TextType::Data {
                if let Some(collapsed) = collapse(chunk.as_str()) {
                    chunk.replace(&collapsed, ContentType::Html);
                }
            }
            Ok(())
        }))
        .with_strict(false);
    let mut rewriter = HtmlRewriter::new(settings, |bytes: &[u8]| out.extend_from_slice(bytes));
    rewriter.write(html.as_bytes()).map_err(|e| e.to_string())?;
    rewriter.end().map_err(|e| e.to_string())?;
    let mut kept = state.into_inner().kept;
    // Offsets to lines, in one pass over the page.
    let (mut line, mut at) = (1, 0);
    for inline in &mut kept {
        line += html.as_bytes()[at..inline.line.max(at)]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        at = inline.line.max(at);
        inline.line = line + inline.within - 1;
    }
    Ok(Minified { bytes: out, kept })
}

/// Counts `el` as one more element whose text stays, until its end tag. An element whose end
/// tag never comes (closed by an ancestor's) keeps the rest of the page as written: safe.
fn keep_text_within(el: &mut Element<'_, '_>, depth: &Rc<Cell<usize>>) -> lol_html::HandlerResult {
    if !el.can_have_content() {
        return Ok(());
    }
    depth.set(depth.get() + 1);
    let depth = Rc::clone(depth);
    el.on_end_tag(Box::new(move |_| {
        depth.set(depth.get().saturating_sub(1));
        Ok(())
    }))
}

/// What a `<style>` or `<script>` holds, if the minifier may minify it: CSS (a `<style>` of
/// HTML with no `type` or `text/css`), or JavaScript (a `<script>` without `src` whose type
/// is none, a JavaScript MIME type or `module`). JSON, import maps, speculation rules and
/// templates stay as written.
fn code_kind(el: &Element<'_, '_>, allowed: Allowed) -> Option<CodeKind> {
    if el.namespace_uri() != "http://www.w3.org/1999/xhtml" {
        return None;
    }
    // HTML's "prepare the script element": an empty or missing `type` with a `language` is
    // `text/` and the language (`vbscript`: not JavaScript).
    let kind = match (el.get_attribute("type"), el.get_attribute("language")) {
        (Some(t), _) if !t.trim().is_empty() => Some(t.trim().to_ascii_lowercase()),
        (_, Some(language)) if !language.trim().is_empty() => {
            Some(format!("text/{}", language.trim().to_ascii_lowercase()))
        }
        (t, _) => t.map(|t| t.trim().to_ascii_lowercase()),
    };
    match el.tag_name().as_str() {
        "style" if allowed.css && matches!(kind.as_deref(), None | Some("" | "text/css")) => {
            Some(CodeKind::Style)
        }
        "script" if allowed.js && !el.has_attribute("src") => match kind.as_deref() {
            Some("module") => Some(CodeKind::Script(Kind::Module)),
            None | Some("") => Some(CodeKind::Script(Kind::Classic)),
            Some(t) if JAVASCRIPT_TYPES.contains(&t) => Some(CodeKind::Script(Kind::Classic)),
            Some(_) => None,
        },
        _ => None,
    }
}

/// The HTML spec's JavaScript MIME type essence matches (a `<script>` of one of them is a
/// classic script).
const JAVASCRIPT_TYPES: [&str; 16] = [
    "application/ecmascript",
    "application/javascript",
    "application/x-ecmascript",
    "application/x-javascript",
    "text/ecmascript",
    "text/javascript",
    "text/javascript1.0",
    "text/javascript1.1",
    "text/javascript1.2",
    "text/javascript1.3",
    "text/javascript1.4",
    "text/javascript1.5",
    "text/jscript",
    "text/livescript",
    "text/x-ecmascript",
    "text/x-javascript",
];

/// Gathers a style's or script's text, then puts it back minified (or as written, when the
/// minifier cannot read it or would not make it smaller).
fn code_text(chunk: &mut TextChunk<'_>, state: &mut Rewrite) {
    let Some(code) = &mut state.code else {
        return;
    };
    code.text.push_str(chunk.as_str());
    chunk.remove();
    if !chunk.last_in_text_node() {
        return;
    }
    let Some(code) = state.code.take() else {
        return;
    };
    let (minified, element) = match code.kind {
        CodeKind::Style => (
            css::minify(&code.text).map_err(|e| (e.line.unwrap_or(1), e.message)),
            "style",
        ),
        CodeKind::Script(kind) => (
            js::minify(&code.text, kind).map_err(|e| (e.line, e.message)),
            "script",
        ),
    };
    let text = match minified {
        // The minified text must end where the original did: no `</style`/`</script` (a
        // string's escape printed plainly), no `<!--` (a script's escaped state).
        Ok(min) if min.len() < code.text.len() && !ends_early(&min, element) => min,
        Ok(_) => code.text,
        Err((line, message)) => {
            state.kept.push(KeptInline {
                element,
                line: code.offset,
                within: line,
                message,
            });
            code.text
        }
    };
    chunk.replace(&text, ContentType::Html);
}

/// Whether `text` would end its `element` early or change how its end is found.
fn ends_early(text: &str, element: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains(&format!("</{element}")) || lower.contains("<!--")
}

/// Comments kept: Internet Explorer's conditional comments (`[if ...]`, `<![endif]`) and
/// server-side includes (`#include`, ...), which some servers still read.
fn kept_comment(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("[if") || text.starts_with("<![endif]") || text.starts_with('#')
}

/// `text` with each run of two or more whitespace characters made shorter where CSS renders
/// the same (CSS Text 3 §4.1.1, §4.1.2): a run with line breaks becomes its line breaks (a CR
/// LF pair one, as the parser reads it), one without becomes a space. `None`: nothing to do.
fn collapse(text: &str) -> Option<String> {
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
    let bytes = text.as_bytes();
    if !bytes.windows(2).any(|w| is_space(w[0]) && is_space(w[1])) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.bytes().position(is_space) {
        out.push_str(&rest[..start]);
        let run = &rest[start..];
        let len = run.bytes().position(|b| !is_space(b)).unwrap_or(run.len());
        let breaks = run[..len].replace("\r\n", "\n").replace('\r', "\n");
        match breaks.matches('\n').count() {
            0 if len > 1 => out.push(' '),
            0 => out.push_str(&run[..len]),
            n => out.extend(std::iter::repeat_n('\n', n)),
        }
        rest = &run[len..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Allowed = Allowed {
        whitespace: true,
        comments: true,
        css: true,
        js: true,
    };

    fn min(html: &str) -> String {
        String::from_utf8(minify(html, ALL).unwrap().bytes).unwrap()
    }

    #[test]
    fn whitespace_runs_keep_their_line_breaks_and_pre_keeps_all() {
        let html = "<p>a   b\n\n    c\t\td</p>\n  <pre>  x\n\n   y  </pre>\n <ul>\n  <li>one</li>\r\n  <li>two</li>\n</ul>";
        assert_eq!(
            min(html),
            "<p>a b\n\nc d</p>\n<pre>  x\n\n   y  </pre>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>"
        );
    }

    #[test]
    fn textarea_svg_and_a_single_space_stay() {
        let html =
            "<textarea>  a\n\n  b</textarea> <svg><text>  x  </text></svg> <b>a</b> <i>b</i>";
        assert_eq!(min(html), html);
    }

    #[test]
    fn comments_go_but_conditional_ones_and_includes_stay() {
        let html = "<p>a<!-- note -->b</p><!--[if IE]><p>old</p><![endif]--><!--#include virtual=\"x\" -->";
        assert_eq!(
            min(html),
            "<p>ab</p><!--[if IE]><p>old</p><![endif]--><!--#include virtual=\"x\" -->"
        );
    }

    #[test]
    fn styles_and_scripts_are_minified_by_kind() {
        let html =
            "<style>\n body { color: #ff0000 }\n</style><script>\n  var total = 1 + 2;\n</script>\
                    <script type=module>\n  const answer = 40 + 2; console.log(answer);\n</script>\
                    <script type=application/ld+json>\n {\"a\": 1}\n</script>";
        let out = min(html);
        assert!(out.contains("<style>body{color:red}</style>"), "{out}");
        assert!(out.contains("<script>var total=3"), "{out}");
        assert!(
            out.contains("<script type=module>const e=42;console.log(42)"),
            "{out}"
        );
        assert!(out.contains("{\"a\": 1}"), "JSON is left as written: {out}");
    }

    #[test]
    fn a_script_that_would_close_early_is_kept() {
        // A CSS escape printed as the character would end the element.
        let html = "<style>\n  a::after { content: \"\\3c/style>\" }\n</style>";
        assert_eq!(min(html), html);
        // oxc escapes what it joins: `"<" + "/script>"` is printed `<\/script>`.
        let html = "<script>\n  var s = \"<\" + \"/script>\";   document.write(s);\n</script>";
        let out = min(html);
        assert!(
            out.starts_with("<script>var s=") && out.matches("</script").count() == 1,
            "{out}"
        );
    }

    #[test]
    fn a_script_that_does_not_parse_is_kept_and_named_by_line() {
        let html = "<p>x</p>\n<script>\nvar a = 1;\nvar b = ;\n</script>";
        let minified = minify(html, ALL).unwrap();
        assert_eq!(String::from_utf8(minified.bytes).unwrap(), html);
        assert_eq!(minified.kept.len(), 1);
        assert_eq!(minified.kept[0].line, 4, "{:?}", minified.kept);
    }

    #[test]
    fn what_is_not_allowed_stays() {
        let html = "<style>\n a { color: #ff0000 }\n</style>\n\n<p>a  b</p><script>\n var x = 1;\n</script>";
        let none = Allowed {
            whitespace: false,
            comments: false,
            css: false,
            js: false,
        };
        assert_eq!(
            String::from_utf8(minify(html, none).unwrap().bytes).unwrap(),
            html
        );
    }

    #[test]
    fn the_survey_tells_integrity_scripts_hydration_and_foreign_styles() {
        let html = "<script src=/a.js integrity=sha384-x></script>\
                    <link rel=stylesheet href=b.css integrity=sha384-y>";
        let told = survey(html);
        assert_eq!(told.integrity, ["/a.js", "b.css"]);
        assert!(told.scripts && !told.hydrated && !told.foreign_styles);
        let map = "<script type=importmap>{\"integrity\": {\"/m.js\": \"sha384-z\"}}</script>";
        assert!(survey(map).import_integrity);
        for hydrated in [
            "<div id=root><p>a<!-- -->b</p></div>",
            "<!--[--><p>vue</p><!--]-->",
            "<astro-island uid=1></astro-island>",
            "<div id=__next></div>",
        ] {
            assert!(survey(hydrated).hydrated, "{hydrated}");
        }
        assert!(!survey("<p>a<!-- a note -->b</p>").hydrated);
        assert!(!survey("<!--[if lt IE 9]><script src=x.js></script><![endif]-->").hydrated);
        let foreign = "<link rel=\"preload stylesheet\" href=https://cdn.example/x.css>";
        assert!(survey(foreign).foreign_styles);
        assert!(!survey("<link rel=stylesheet href=/x.css>").foreign_styles);
    }

    #[test]
    fn code_and_diagrams_keep_their_text_and_vbscript_is_not_javascript() {
        let html = "<p><code>a  b</code>  <span class=mermaid>x\n    y</span></p>\
                    <script language=vbscript>\n  MsgBox   1\n</script>";
        assert_eq!(
            min(html),
            "<p><code>a  b</code> <span class=mermaid>x\n    y</span></p>\
             <script language=vbscript>\n  MsgBox   1\n</script>"
        );
    }
}
