//! The page's main content: the element a Markdown twin is made from. `[agents] content` names
//! it with a selector list of compounds (a type, `#id`, `.class`, `[attr]`, `[attr=value]`;
//! no combinators: the main content is one element, whatever its ancestors); unset, the first
//! `<main>`, else the first `[role=main]`, else the first `<article>`, else the `<body>`.

use markup5ever_rcdom::{Handle, NodeData};

/// A selector list of compounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selector {
    compounds: Vec<Compound>,
}

/// One compound: every part must match (names in lower case; values as written).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Compound {
    element: Option<String>,
    id: Option<String>,
    classes: Vec<String>,
    attributes: Vec<(String, Option<String>)>,
}

impl Selector {
    /// Parses `text`.
    ///
    /// # Errors
    /// A compound this does not read (a combinator, a pseudo-class, an empty selector), named.
    pub(crate) fn parse(text: &str) -> Result<Selector, String> {
        let compounds = text
            .split(',')
            .map(|one| compound(one.trim()).ok_or_else(|| unreadable(one.trim())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Selector { compounds })
    }

    /// Whether `node` is an element that one of the compounds matches.
    pub(crate) fn matches(&self, node: &Handle) -> bool {
        let NodeData::Element { name, attrs, .. } = &node.data else {
            return false;
        };
        let attrs = attrs.borrow();
        let value = |wanted: &str| {
            attrs
                .iter()
                .find(|a| (*a.name.local).eq_ignore_ascii_case(wanted))
                .map(|a| a.value.to_string())
        };
        self.compounds.iter().any(|c| {
            c.element
                .as_ref()
                .is_none_or(|e| (*name.local).eq_ignore_ascii_case(e))
                && c.id
                    .as_ref()
                    .is_none_or(|id| value("id").as_ref() == Some(id))
                && c.classes.iter().all(|class| {
                    value("class").is_some_and(|v| v.split_ascii_whitespace().any(|c| c == class))
                })
                && c.attributes.iter().all(|(name, wanted)| match wanted {
                    None => value(name).is_some(),
                    Some(wanted) => value(name).is_some_and(|v| v.trim() == wanted),
                })
        })
    }
}

fn unreadable(one: &str) -> String {
    format!(
        "{} is not a compound of a type, `#id`, `.class` and `[attr=value]` (no combinators)",
        crate::error::excerpt(one)
    )
}

/// One compound selector, if this reads it.
fn compound(text: &str) -> Option<Compound> {
    let mut out = Compound::default();
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let element_end = text.find(|c: char| !is_name(c)).unwrap_or(text.len());
    if element_end > 0 {
        out.element = Some(text[..element_end].to_ascii_lowercase());
    }
    let mut rest = &text[element_end..];
    while let Some(first) = rest.chars().next() {
        match first {
            '.' | '#' => {
                let end = rest[1..]
                    .find(|c: char| !is_name(c))
                    .map_or(rest.len(), |e| e + 1);
                let name = rest[1..end].to_string();
                if name.is_empty() {
                    return None;
                }
                match first {
                    '.' => out.classes.push(name),
                    _ => out.id = Some(name),
                }
                rest = &rest[end..];
            }
            '[' => {
                let end = rest.find(']')?;
                let inner = &rest[1..end];
                let (name, value) = match inner.split_once('=') {
                    Some((name, value)) => {
                        let value = value.trim().trim_matches(['"', '\'']).to_string();
                        (name.trim(), Some(value))
                    }
                    None => (inner.trim(), None),
                };
                if name.is_empty() || !name.chars().all(is_name) {
                    return None;
                }
                out.attributes.push((name.to_ascii_lowercase(), value));
                rest = &rest[end + 1..];
            }
            _ => return None,
        }
    }
    (out != Compound::default()).then_some(out)
}

/// The main content of the document at `root`: the first element `selector` matches, or with
/// none the defaults (module docs).
pub(crate) fn main_content(root: &Handle, selector: Option<&Selector>) -> Option<Handle> {
    if let Some(selector) = selector {
        return first(root, selector);
    }
    ["main", "[role=main]", "article", "body"]
        .iter()
        .filter_map(|text| Selector::parse(text).ok())
        .find_map(|selector| first(root, &selector))
}

/// The first element in document order that `selector` matches.
fn first(node: &Handle, selector: &Selector) -> Option<Handle> {
    if selector.matches(node) {
        return Some(node.clone());
    }
    node.children
        .borrow()
        .iter()
        .find_map(|child| first(child, selector))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compounds_parse_and_others_are_refused() {
        let parsed = Selector::parse("div.body, #content, [role=main], main[data-x='1']").unwrap();
        assert_eq!(parsed.compounds.len(), 4);
        assert_eq!(parsed.compounds[0].element.as_deref(), Some("div"));
        assert_eq!(parsed.compounds[0].classes, ["body"]);
        assert_eq!(parsed.compounds[1].id.as_deref(), Some("content"));
        assert_eq!(
            parsed.compounds[3].attributes,
            [("data-x".to_string(), Some("1".to_string()))]
        );
        for bad in [
            "",
            "div p",
            "main > article",
            "a:hover",
            ".",
            "[=x]",
            "#a, ",
        ] {
            assert!(Selector::parse(bad).is_err(), "{bad:?}");
        }
    }
}
