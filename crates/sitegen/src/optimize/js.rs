//! JavaScript, minified by oxc (its parser, minifier and code generator: the fastest of the
//! field's minifiers, written in Rust, tested against test262 and the minifiers' own corpora).

use super::guard;
use oxc_allocator::Allocator;
use oxc_ast::AstKind;
use oxc_ast_visit::Visit;
use oxc_codegen::{Codegen, CodegenOptions};
use oxc_compat::EngineTargets;
use oxc_minifier::{
    CompressOptions, MangleOptions, MangleOptionsKeepNames, Minifier, MinifierOptions,
};
use oxc_parser::Parser;
use oxc_span::SourceType;

/// How a script is run: a classic script (its top-level names are globals other scripts
/// share) or a module (`<script type=module>`, an `.mjs` file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Classic,
    Module,
    /// A file whose loader the build does not know: a module when it imports or exports, else
    /// a classic script.
    Either,
}

/// Why a script could not be minified: what the parser said, and at which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotParsed {
    pub(crate) line: usize,
    pub(crate) message: String,
}

/// `text` minified as oxc's safest compression allows (no code dropped as unused, no
/// `debugger` removed), names local to a function or block shortened; top-level names (a
/// classic script's globals, a module's exports' bindings) and function and class names (a
/// program may read `.name`) kept.
pub(crate) fn minify(text: &str, kind: Kind) -> Result<String, NotParsed> {
    let nesting = guard::js_nesting(text);
    if nesting > guard::MAX_JS_NESTING {
        return Err(NotParsed {
            line: 1,
            message: format!(
                "{nesting} tokens that may nest, past the {} the minifier is given",
                guard::MAX_JS_NESTING
            ),
        });
    }
    let source_type = match kind {
        Kind::Classic => SourceType::script(),
        Kind::Module => SourceType::mjs(),
        // A module when it has `import` or `export`, else a classic script.
        Kind::Either => SourceType::unambiguous(),
    };
    guard::isolated(|| minify_as(text, source_type))
        .unwrap_or_else(|message| Err(NotParsed { line: 1, message }))
}

fn minify_as(text: &str, source_type: SourceType) -> Result<String, NotParsed> {
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, text, source_type).parse();
    if let Some(error) = parsed.diagnostics.first() {
        let start = error.labels.first().map_or(0, |label| label.offset());
        return Err(NotParsed {
            line: crate::warning::line_of(text.as_bytes(), start as usize),
            message: error.message.to_string(),
        });
    }
    if parsed.panicked {
        return Err(NotParsed {
            line: 1,
            message: "the parser gave up".into(),
        });
    }
    let mut program = parsed.program;
    let mut depth = Depth::default();
    depth.visit_program(&program);
    let compress = depth.deepest <= guard::MAX_COMPRESSED_DEPTH;
    let mangle = !reads_names(text);
    let options = MinifierOptions {
        // A module's top-level names are its own (oxc shortens them); a classic script's are
        // globals (kept).
        mangle: mangle.then(|| MangleOptions {
            keep_names: MangleOptionsKeepNames::all_true(),
            ..MangleOptions::default()
        }),
        mangle_properties: None,
        compress: compress.then(|| CompressOptions {
            target: targets(),
            ..CompressOptions::safest()
        }),
    };
    let minified = Minifier::new(options).minify(&allocator, &mut program);
    Ok(Codegen::new()
        .with_options(CodegenOptions::minify())
        .with_scoping(minified.scoping)
        .build(&program)
        .code)
}

/// Whether a program may read its local names as text, so that shortening them would change
/// what it does: a `with` statement (a name may be an object's property), or AngularJS
/// (whose implicit dependency injection reads a function's parameter names: `$scope`).
fn reads_names(text: &str) -> bool {
    let with = text.match_indices("with").any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + 4..].trim_start().starts_with('(');
        after && !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.')
    });
    with || text.contains("angular") || text.contains("$scope")
}

/// How deep a syntax tree is.
#[derive(Default)]
struct Depth {
    now: usize,
    deepest: usize,
}

impl<'a> Visit<'a> for Depth {
    fn enter_node(&mut self, _: AstKind<'a>) {
        self.now += 1;
        self.deepest = self.deepest.max(self.now);
    }

    fn leave_node(&mut self, _: AstKind<'a>) {
        self.now -= 1;
    }
}

/// The engines whose syntax the compressor keeps to ([`super::BASELINE`], and ES2019): no
/// `||=`, `??` or `?.` made from older code for them.
fn targets() -> EngineTargets {
    let b = super::BASELINE;
    let list = format!(
        "es2019,chrome{},firefox{},safari{}",
        b.chrome, b.firefox, b.safari
    );
    // The list is the build's own: it parses (a test says so).
    EngineTargets::from_target(&list).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locals_shorten_and_globals_stay() {
        let js = "// a comment\nvar counter = 0;\nfunction bump(amount) {\n  var doubled = amount * 2;\n  counter = counter + doubled;\n  return counter;\n}\n";
        let out = minify(js, Kind::Classic).unwrap();
        assert!(out.len() < js.len() * 2 / 3, "{out}");
        assert!(
            out.contains("counter") && out.contains("function bump("),
            "{out}"
        );
        assert!(!out.contains("doubled") && !out.contains("amount"), "{out}");
        assert!(!out.contains("a comment"), "{out}");
    }

    #[test]
    fn a_module_parses_as_one_when_the_loader_is_unknown() {
        let js = "import { a } from './a.js';\nexport const b = a + 1;\n";
        let out = minify(js, Kind::Either).unwrap();
        assert!(out.contains("./a.js") && out.contains("export"), "{out}");
        // A module's own top-level names shorten; a classic script's stay (they are globals).
        let js =
            "import { a } from './a.js';\nconst local_name = a * 2;\nexport { local_name as b };\n";
        assert!(!minify(js, Kind::Either).unwrap().contains("local_name="));
        let js = "var global_name = 1;\nwindow.x = global_name;\n";
        assert!(minify(js, Kind::Either).unwrap().contains("global_name"));
    }

    #[test]
    fn the_baseline_parses_and_keeps_newer_syntax_out() {
        let b = super::super::BASELINE;
        let list = format!(
            "es2019,chrome{},firefox{},safari{}",
            b.chrome, b.firefox, b.safari
        );
        assert!(EngineTargets::from_target(&list).is_ok());
        let out = minify(
            "function f(o) { o.a || (o.a = 1); return o; }",
            Kind::Classic,
        )
        .unwrap();
        assert!(!out.contains("||="), "{out}");
    }

    #[test]
    fn deep_input_is_refused_or_left_uncompressed_never_a_crash() {
        // Past the bound: refused before the parser sees it.
        let deep = format!("var a = {}1{};", "(".repeat(150_000), ")".repeat(150_000));
        assert!(minify(&deep, Kind::Classic)
            .unwrap_err()
            .message
            .contains("150001 tokens"));
        // Within it but deep: shortened and printed, not compressed (quadratic in depth).
        let ternaries = format!("var a = {}1;", "b?1:".repeat(20_000));
        let out = minify(&ternaries, Kind::Classic).unwrap();
        assert!(out.len() < ternaries.len(), "{}", out.len());
        for shape in ["!", "new ", "l:", "typeof ", ".c"] {
            let text = match shape {
                ".c" => format!("var a = b{};", shape.repeat(90_000)),
                "l:" => format!("{}x();", shape.repeat(90_000)),
                _ => format!("var a = {}X;", shape.repeat(90_000)),
            };
            assert!(minify(&text, Kind::Classic).is_ok(), "{shape}");
        }
    }

    #[test]
    fn names_a_program_reads_are_not_shortened() {
        let js = "function f(o) { var value = 1; with (o) { return value; } }";
        assert!(minify(js, Kind::Classic).unwrap().contains("value"));
        let js = "app.controller('C', function ($scope, $http) { $scope.items = $http; });";
        assert!(minify(js, Kind::Classic).unwrap().contains("$http"));
        let js = "function g(withThis) { var longName = withThis(1); return longName; }";
        assert!(!minify(js, Kind::Classic).unwrap().contains("longName"));
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        let err = minify("var a = 1;\nvar b = ;\n", Kind::Either).unwrap_err();
        assert_eq!(err.line, 2, "{err:?}");
    }
}
