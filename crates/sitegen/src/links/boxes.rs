//! What CSS may set of an `<img>`'s box, so that [`super::sizes`] knows, image by image,
//! whether `width` and `height` attributes (the image's own size) can change how it is laid
//! out.
//!
//! The attributes are presentational hints (HTML §15.4.3, "Attributes for embedded content
//! and images": `width` and `height` map to the `width` and `height` properties, and together
//! to `aspect-ratio: auto W / H`), below every author rule. An image without them, whose CSS
//! leaves both `width` and `height` auto, is laid out at its natural size and ratio, which the
//! hints repeat. The hints change the layout only where CSS sets one dimension and not the
//! other: `max-width: 100%` on a narrow screen would then keep the `height` hint and squeeze
//! the image. So per image: a rule that may set its width (or min/max width, its inline size)
//! but none its height means the attributes come with `style="height:auto"` (which only
//! repeats what every rule that may apply says), and the other way round with `width:auto`;
//! rules that may set both, an `aspect-ratio` or size containment, or border-box sizing with a
//! border or padding (the hint would then size the border box, not the image) leave the image
//! as it is.
//!
//! "May set" is read without the document tree: a rule applies to an image unless the last
//! compound of each of its selectors (the element it styles) names another element type, a
//! class or id the image lacks, or a pseudo-element. Rules in `@media`, `@supports` and layer
//! blocks count as applying.

/// A style rule that may apply to an `<img>` and sets something of its box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BoxRule {
    /// The last compound of each selector that may match an `<img>`.
    subjects: Vec<Subject>,
    sets: Sets,
    /// At the top level, with the selector `img` (it applies to every image, unconditionally).
    every_image: bool,
}

/// What declarations set of a box ([`BoxRule`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sets {
    /// A width, minimum or maximum width other than the initial one.
    pub width: bool,
    pub height: bool,
    /// `width: auto` or `height: auto`.
    pub width_auto: bool,
    pub height_auto: bool,
    /// An `aspect-ratio` other than `auto`, or size containment.
    pub ratio: bool,
    /// `box-sizing` other than `content-box`.
    pub border_box: bool,
    /// A border or a padding that may not be zero.
    pub padded: bool,
}

impl std::ops::BitOrAssign for Sets {
    fn bitor_assign(&mut self, other: Sets) {
        self.width |= other.width;
        self.height |= other.height;
        self.width_auto |= other.width_auto;
        self.height_auto |= other.height_auto;
        self.ratio |= other.ratio;
        self.border_box |= other.border_box;
        self.padded |= other.padded;
    }
}

/// The compound selector of the element a selector styles, as far as it can exclude an `<img>`:
/// the classes and id it requires (lower-case: class names compare case-sensitively in
/// standards mode, so comparing them folded only makes more rules apply).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Subject {
    classes: Vec<String>,
    id: Option<String>,
}

/// An `<img>` as selectors see it: its id and classes, lower-case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Names {
    pub id: Option<String>,
    pub classes: Vec<String>,
}

impl Names {
    /// From the `id` and `class` attributes' values.
    pub(crate) fn of(id: Option<&str>, class: Option<&str>) -> Names {
        Names {
            id: id.map(str::to_ascii_lowercase),
            classes: class
                .map(|c| {
                    c.split_ascii_whitespace()
                        .map(str::to_ascii_lowercase)
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

/// The attributes an image can get: the image's size alone, or with `height:auto` or
/// `width:auto` in its `style` ([module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sizing {
    Attributes,
    HeightAuto,
    WidthAuto,
}

impl BoxRule {
    /// A rule this cannot read (one with nested rules): it may set anything of any image.
    pub(crate) fn unknown() -> BoxRule {
        BoxRule {
            subjects: vec![Subject::any()],
            sets: Sets {
                width: true,
                height: true,
                ..Sets::default()
            },
            every_image: false,
        }
    }

    /// The rule with `prelude` (its selector list) and declarations (`(name, value)`, names
    /// lower-case, `!important` removed), if it sets something of a box and may match an
    /// `<img>`. `top_level`: not inside a conditional or layer block.
    pub(crate) fn of<'a>(
        prelude: &str,
        declarations: impl IntoIterator<Item = (&'a str, &'a str)>,
        top_level: bool,
    ) -> Option<BoxRule> {
        let sets = sets(declarations);
        if sets == Sets::default() {
            return None;
        }
        let prelude = without_comments(prelude);
        let selectors: Vec<String> = super::css::split_top_level(&prelude)
            .into_iter()
            .map(|s| s.trim().to_ascii_lowercase())
            .collect();
        let subjects: Vec<Subject> = selectors.iter().filter_map(|s| subject(s)).collect();
        (!subjects.is_empty()).then(|| BoxRule {
            subjects,
            sets,
            every_image: top_level && selectors.iter().any(|s| s == "img"),
        })
    }

    fn may_match(&self, image: &Names) -> bool {
        self.subjects.iter().any(|s| {
            s.classes.iter().all(|c| image.classes.contains(c))
                && s.id.as_ref().is_none_or(|id| image.id.as_ref() == Some(id))
        })
    }
}

/// How an image with `names` and the declarations of its own `style` attribute (`own`) can be
/// given its size, under `rules` (every rule of the CSS that may style its page, each with
/// whether its stylesheet surely applies); `None`: it is left as it is.
pub(crate) fn sizing<'r>(
    rules: impl IntoIterator<Item = (&'r BoxRule, bool)>,
    names: &Names,
    own: Sets,
) -> Option<Sizing> {
    let (mut may, mut always) = (own, own);
    for (rule, sure) in rules {
        if rule.may_match(names) {
            may |= rule.sets;
            if sure && rule.every_image {
                always |= rule.sets;
            }
        }
    }
    if may.ratio || (may.border_box && may.padded) {
        return None;
    }
    match (may.width, may.height) {
        (false, false) => Some(Sizing::Attributes),
        (true, false) if always.height_auto => Some(Sizing::Attributes),
        (true, false) => Some(Sizing::HeightAuto),
        (false, true) if always.width_auto => Some(Sizing::Attributes),
        (false, true) => Some(Sizing::WidthAuto),
        (true, true) => None,
    }
}

/// What `declarations` set of a box.
pub(crate) fn sets<'a>(declarations: impl IntoIterator<Item = (&'a str, &'a str)>) -> Sets {
    let mut sets = Sets::default();
    for (name, value) in declarations {
        let value = value.trim().to_ascii_lowercase();
        let v = value.as_str();
        match name {
            "width" | "inline-size" => {
                sets.width_auto |= v == "auto";
                sets.width |= v != "auto";
            }
            "height" | "block-size" => {
                sets.height_auto |= v == "auto";
                sets.height |= v != "auto";
            }
            "min-width" | "min-inline-size" => sets.width |= !(v == "auto" || is_zero(v)),
            "min-height" | "min-block-size" => sets.height |= !(v == "auto" || is_zero(v)),
            "max-width" | "max-inline-size" => sets.width |= v != "none",
            "max-height" | "max-block-size" => sets.height |= v != "none",
            "aspect-ratio" => sets.ratio |= v != "auto",
            // A flex item's size, or its stretch, is the container's to decide.
            "flex" | "flex-basis" | "flex-grow" | "flex-shrink" | "align-self" | "justify-self"
            | "place-self" => {
                sets.width = true;
                sets.height = true;
            }
            "contain" => sets.ratio |= v.contains("size") || v.contains("strict"),
            // `all` resets every property, to what another origin or the parent may say.
            "all" => {
                sets.width = true;
                sets.height = true;
            }
            "box-sizing" => sets.border_box |= v != "content-box",
            _ if name.starts_with("padding") => {
                sets.padded |= !v.split_ascii_whitespace().all(is_zero);
            }
            _ if is_border_width(name) => sets.padded |= !no_border(name, v),
            _ => {}
        }
    }
    sets
}

/// A property that may give a box a border width (not its color, radius, image, or a table's
/// border spacing).
fn is_border_width(name: &str) -> bool {
    name.starts_with("border")
        && !name.ends_with("-color")
        && !name.ends_with("-radius")
        && !name.starts_with("border-image")
        && !matches!(name, "border-collapse" | "border-spacing")
}

/// Whether a border declaration's value leaves no border: a zero width, or a style of `none`
/// or `hidden` (`border-style: solid` alone gives the initial `medium` width).
fn no_border(name: &str, value: &str) -> bool {
    let words: Vec<&str> = value.split_ascii_whitespace().collect();
    let none = |w: &&str| matches!(*w, "none" | "hidden");
    if name.ends_with("-width") {
        words.iter().all(|w| is_zero(w))
    } else if name.ends_with("-style") {
        words.iter().all(none)
    } else {
        words.iter().any(none) || words.iter().any(|w| is_zero(w))
    }
}

/// A length or number that is zero (`0`, `0px`, `0.0em`).
fn is_zero(value: &str) -> bool {
    let number = value.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
    !number.is_empty() && number.parse::<f64>().is_ok_and(|n| n == 0.0)
}

/// The last compound of `selector` (lower-case, trimmed), if it may style an `<img>`: `None`
/// when it names another element type or a pseudo-element. A selector this cannot read
/// (escapes, nesting's `&`) may match any image.
fn subject(selector: &str) -> Option<Subject> {
    if selector.contains(['\\', '&']) {
        return Some(Subject::any());
    }
    let compound = &selector[last_compound_start(selector)..];
    // A type selector (maybe with a namespace) first.
    let type_end = compound
        .find(['.', '#', '[', ':'])
        .unwrap_or(compound.len());
    let element = compound[..type_end].rsplit('|').next().unwrap_or("");
    if !matches!(element, "" | "*" | "img") {
        return None;
    }
    simple_selectors(&compound[type_end..])
}

impl Subject {
    fn any() -> Subject {
        Subject {
            classes: Vec::new(),
            id: None,
        }
    }
}

/// What the simple selectors after a compound's type selector require: `None` for a
/// pseudo-element, any image for something this does not read.
fn simple_selectors(mut rest: &str) -> Option<Subject> {
    let mut subject = Subject::any();
    while let Some(first) = rest.chars().next() {
        let name_end = |from: usize| {
            rest[from..]
                .find(['.', '#', '[', ':', '('])
                .map_or(rest.len(), |e| from + e)
        };
        match first {
            '.' | '#' => {
                let end = name_end(1);
                let name = rest[1..end].to_string();
                if first == '.' {
                    subject.classes.push(name);
                } else if subject.id.replace(name).is_some() {
                    // `#a#b` matches nothing, or the same element twice: may match.
                    subject.id = None;
                }
                rest = &rest[end..];
            }
            '[' => rest = &rest[closing(rest, '[', ']')?..],
            ':' => {
                let end = name_end(1);
                let name = &rest[1..end];
                // `::before`, and the pseudo-elements CSS 2 wrote with one colon.
                if name.is_empty()
                    || matches!(name, "after" | "first-letter" | "before" | "first-line")
                {
                    return None;
                }
                rest = &rest[end..];
                if rest.starts_with('(') {
                    rest = &rest[closing(rest, '(', ')')?..];
                }
            }
            _ => return Some(Subject::any()),
        }
    }
    Some(subject)
}

/// `text` without its CSS comments (`/* ... */`; one left open runs to the end).
fn without_comments(text: &str) -> String {
    let (mut out, mut rest) = (String::with_capacity(text.len()), text);
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        out.push(' ');
        rest = rest[start + 2..]
            .find("*/")
            .map_or("", |end| &rest[start + 2 + end + 2..]);
    }
    out.push_str(rest);
    out
}

/// A double or a single quote.
fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\'')
}

/// Where the last compound of a complex selector starts: after its last combinator outside
/// brackets, parentheses and strings.
fn last_compound_start(selector: &str) -> usize {
    let combinator = |c| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c' | '>' | '+' | '~');
    super::css::top_level(selector, combinator)
        .last()
        .map_or(0, |at| at + 1)
}

/// The position after the bracket that closes the one `text` starts with; `None` if none does.
fn closing(text: &str, open: char, close: char) -> Option<usize> {
    let (mut depth, mut quote) = (0usize, None);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, q) if is_quote(q) => quote = Some(c),
            (None, _) if c == open => depth += 1,
            (None, _) if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(prelude: &str, declarations: &[(&str, &str)]) -> Option<BoxRule> {
        BoxRule::of(prelude, declarations.iter().copied(), true)
    }

    fn names(id: Option<&str>, class: Option<&str>) -> Names {
        Names::of(id, class)
    }

    #[test]
    fn a_rule_applies_unless_its_subject_excludes_the_image() {
        let logo = names(Some("Top"), Some("logo  Big"));
        let applies = |prelude: &str| {
            rule(prelude, &[("max-width", "100%")]).is_some_and(|r| r.may_match(&logo))
        };
        for prelude in [
            "img",
            "*",
            ".nav-content img",
            "div > IMG.logo",
            "img.big.logo",
            "#top",
            "svg|img",
            "img[src$=\".svg\"]",
            "img:hover",
            "img:not(.logo)",
            ".a img:is(.b, .c)",
            "p, img.logo",
            ".x\\:y",
            "a ~ img",
        ] {
            assert!(applies(prelude), "{prelude}");
        }
        for prelude in [
            "p",
            "img.small",
            "#bottom",
            "img::before",
            "img:after",
            "main img + p",
            "img.logo p",
        ] {
            assert!(!applies(prelude), "{prelude}");
        }
        // A rule that sets nothing of a box is not kept.
        assert_eq!(
            rule("img", &[("color", "red"), ("border-radius", "4px")]),
            None
        );
    }

    #[test]
    fn one_dimension_set_brings_the_other_auto_and_both_leave_the_image() {
        let image = names(None, Some("photo"));
        let size = |css: &[(&str, &[(&str, &str)])], own: &[(&str, &str)]| {
            let rules: Vec<BoxRule> = css.iter().filter_map(|(p, d)| rule(p, d)).collect();
            sizing(
                rules.iter().map(|r| (r, true)),
                &image,
                sets(own.iter().copied()),
            )
        };
        assert_eq!(size(&[], &[]), Some(Sizing::Attributes));
        assert_eq!(
            size(&[("img", &[("max-width", "100%")])], &[]),
            Some(Sizing::HeightAuto)
        );
        // `img { height: auto }` applies to every image: the attributes alone keep the ratio.
        assert_eq!(
            size(
                &[("img", &[("max-width", "100%"), ("height", "auto")])],
                &[]
            ),
            Some(Sizing::Attributes)
        );
        // In a class's rule it may not apply: `height:auto` goes in the image's style.
        assert_eq!(
            size(
                &[
                    (".photo", &[("height", "auto")]),
                    ("img", &[("width", "50%")])
                ],
                &[]
            ),
            Some(Sizing::HeightAuto)
        );
        assert_eq!(
            size(&[(".photo", &[("height", "10em")])], &[]),
            Some(Sizing::WidthAuto)
        );
        assert_eq!(
            size(
                &[(".other", &[("height", "10em")])],
                &[("max-width", "90%")]
            ),
            Some(Sizing::HeightAuto)
        );
        assert_eq!(
            size(&[("img", &[("width", "5em"), ("height", "3em")])], &[]),
            None
        );
        assert_eq!(size(&[], &[("aspect-ratio", "1")]), None);
        assert_eq!(
            size(
                &[
                    ("*", &[("box-sizing", "border-box")]),
                    ("img", &[("padding", "4px")])
                ],
                &[]
            ),
            None
        );
        // Preflight's reset: border-box, but a zero border.
        assert_eq!(
            size(
                &[(
                    "*, ::before, ::after",
                    &[("box-sizing", "border-box"), ("border", "0 solid")]
                )],
                &[]
            ),
            Some(Sizing::Attributes)
        );
        // The initial values set nothing.
        assert_eq!(
            size(
                &[(
                    "img",
                    &[
                        ("min-width", "0"),
                        ("max-height", "none"),
                        ("width", "auto")
                    ]
                )],
                &[]
            ),
            Some(Sizing::Attributes)
        );
    }

    #[test]
    fn borders_and_paddings_that_are_zero_are_none() {
        let padded = |name: &str, value: &str| sets([(name, value)]).padded;
        assert!(!padded("border", "0 solid"));
        assert!(!padded("border", "none"));
        assert!(!padded("border-width", "0 0px 0em 0"));
        assert!(!padded("padding", "0"));
        assert!(!padded("border-color", "red"));
        assert!(padded("border-style", "solid"));
        assert!(padded("border", "1px solid"));
        assert!(padded("border-left", "thin dotted"));
        assert!(padded("padding-top", "0.1em"));
    }
}
