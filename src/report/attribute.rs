//! `[[clang::suppress]]` (also spelt `__attribute__((suppress))`), clang's attribute for
//! silencing static analysers, on the statement that holds a finding's allocation.
//!
//! Input: the bytes of a source file, where to start reading (the enclosing function's first
//! line, so that a finding costs a scan of its function, not of its file) and the byte offset
//! of the allocation. Output: the attribute that covers the allocation, if any, with the rules it
//! names.
//! What covers: an attribute among the tokens of the statement that holds the allocation (`[[clang::suppress]] char *p = malloc(n);`, the attribute on the line before, or
//! after a label), or of a statement that encloses it (`[[clang::suppress]] { … }`,
//! `[[clang::suppress]] if (c) { … } else { … }`), as clang applies it to the whole statement.
//! Without arguments it silences every rule; with arguments (`[[clang::suppress("leak")]]`) only
//! the rules named: the strings are free-form identifiers meant for each tool, so those that
//! are no drip rule are another tool's and silence nothing here.
//! How: a small C lexer (comments, string and character literals, preprocessor lines skipped)
//! splits the function into statements at `;`, `{` and `}` outside parentheses. The source is
//! read, not libclang's tree, so suppressions apply at report time like the comments do, also
//! on a run replayed from the cache. Limit: an attribute written through a macro
//! (`#define NO_ANALYZE [[clang::suppress]]`) is not seen.

/// A token: its kind and its bytes' range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Str,
    Punct(u8),
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

/// The tokens of `text[from..to]`: comments, white space and preprocessor lines skipped, each
/// literal one token, a word (identifier or number) one token, any other byte one token.
fn tokens(text: &[u8], from: usize, to: usize) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = from;
    // At the start of a line (only white space before): a `#` there is a directive.
    let mut line_start = true;
    while i < to {
        let b = text[i];
        match b {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            _ if b.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'#' if line_start => {
                // To the end of the line, with its continuations.
                while i < to && text[i] != b'\n' {
                    if text[i] == b'\\' && text.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    i += 1;
                }
                continue;
            }
            b'/' if text.get(i + 1) == Some(&b'/') => {
                while i < to && text[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if text.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].windows(2).position(|w| w == b"*/").map_or(to, |p| i + 2 + p + 2);
                continue;
            }
            _ => {}
        }
        line_start = false;
        let start = i;
        let kind = match b {
            b'"' | b'\'' => {
                i += 1;
                while i < to && text[i] != b && text[i] != b'\n' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                Kind::Str
            }
            _ if b.is_ascii_alphanumeric() || b == b'_' => {
                while i < to && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                    i += 1;
                }
                Kind::Word
            }
            _ => {
                i += 1;
                Kind::Punct(b)
            }
        };
        out.push(Token { kind, start, end: i.min(to) });
    }
    out
}

/// The suppression attribute among `toks` outside parentheses, if any: `None` when there is
/// none, `Some(names)` with the strings it lists (empty: no arguments).
fn attribute(text: &[u8], toks: &[Token]) -> Option<Vec<String>> {
    let word = |t: &Token, w: &str| t.kind == Kind::Word && &text[t.start..t.end] == w.as_bytes();
    let punct = |t: &Token, p: u8| t.kind == Kind::Punct(p);
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            Kind::Punct(b'(') => depth += 1,
            Kind::Punct(b')') => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > 0 && !word(t, "__attribute__") {
            continue;
        }
        let rest = &toks[i..];
        // `[[clang::suppress`, then `(` and its strings or nothing.
        let args_at = match rest {
            [a, b, c, d, e, f, ..]
                if punct(a, b'[')
                    && punct(b, b'[')
                    && word(c, "clang")
                    && punct(d, b':')
                    && punct(e, b':')
                    && word(f, "suppress") =>
            {
                6
            }
            [a, b, c, d, ..] if word(a, "__attribute__") && punct(b, b'(') && punct(c, b'(') && word(d, "suppress") => {
                4
            }
            _ => continue,
        };
        let mut names = Vec::new();
        if rest.get(args_at).is_some_and(|t| punct(t, b'(')) {
            for t in rest[args_at + 1..].iter().take_while(|t| !punct(t, b')')) {
                if t.kind == Kind::Str && t.end >= t.start + 2 {
                    names.push(String::from_utf8_lossy(&text[t.start + 1..t.end - 1]).into_owned());
                }
            }
        }
        return Some(names);
    }
    None
}

/// The attribute covering the statement that holds byte `at` of `text`, reading from byte
/// `from` (a function's first line): the rules it names (empty: every rule).
pub fn covering(text: &[u8], from: usize, at: usize) -> Option<Vec<String>> {
    if from > at || at > text.len() {
        return None;
    }
    let toks = tokens(text, from, at);
    // Per open brace: where the statement being read at that level starts, and the depth of
    // parentheses within it. The statements of the outer levels hold the inner ones.
    struct Level {
        /// The `{` that opened it (the outermost level: none, 0).
        open: usize,
        start: usize,
        parens: usize,
    }
    let mut levels = vec![Level { open: 0, start: 0, parens: 0 }];
    // A `}` just closed a block: an `else` continues the statement, anything else starts one.
    let mut after_block = false;
    for (i, t) in toks.iter().enumerate() {
        let top = levels.last_mut().expect("the outermost level is never popped");
        if after_block {
            after_block = false;
            if !(t.kind == Kind::Word && &text[t.start..t.end] == b"else") {
                top.start = i;
            }
        }
        match t.kind {
            Kind::Punct(b'(') => top.parens += 1,
            Kind::Punct(b')') => top.parens = top.parens.saturating_sub(1),
            Kind::Punct(b';') if top.parens == 0 => top.start = i + 1,
            Kind::Punct(b'{') => levels.push(Level { open: i, start: i + 1, parens: 0 }),
            Kind::Punct(b'}') => {
                if levels.len() > 1 {
                    levels.pop();
                }
                // Outside parentheses a block ends its statement, unless `else` follows.
                after_block = levels.last().is_some_and(|l| l.parens == 0);
            }
            _ => {}
        }
    }
    if after_block {
        // The allocation is the first token after a block: a statement of its own.
        levels.last_mut().expect("the outermost level").start = toks.len();
    }
    // The innermost statement first; then each enclosing one, up to its `{`.
    let mut end = toks.len();
    for level in levels.iter().rev() {
        let stmt = &toks[level.start.min(end)..end];
        if let Some(names) = attribute(text, stmt) {
            return Some(names);
        }
        // The enclosing level's statement ends at the `{` that opened this one.
        end = level.open;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the allocation marked `@` in `src` is covered, and the names.
    fn at(src: &str) -> Option<Vec<String>> {
        let at = src.find('@').expect("a marker");
        let text = src.replace('@', "");
        covering(text.as_bytes(), 0, at)
    }

    #[test]
    fn the_statement_holding_the_allocation() {
        assert_eq!(at("void f(void) {\n    [[clang::suppress]] char *p = @malloc(1);\n}"), Some(vec![]));
        assert_eq!(at("void f(void) {\n    [[clang::suppress]]\n    char *p = @malloc(1);\n}"), Some(vec![]));
        assert_eq!(at("void f(void) {\n    [[ clang :: suppress ]] p = @malloc(1);\n}"), Some(vec![]));
        assert_eq!(at("void f(void) {\n    __attribute__((suppress)) char *p = @malloc(1);\n}"), Some(vec![]));
        assert_eq!(
            at("void f(void) {\n    [[clang::suppress(\"leak\", \"unix.Malloc\")]] char *p = @malloc(1);\n}"),
            Some(vec!["leak".to_string(), "unix.Malloc".to_string()])
        );
        assert_eq!(
            at("void f(void) {\n  switch (k) {\n  case 1: [[clang::suppress]] p = @malloc(1);\n  }\n}"),
            Some(vec![])
        );
    }

    #[test]
    fn enclosing_statements_and_blocks() {
        assert_eq!(
            at("void f(void) {\n    [[clang::suppress]] {\n        q = 0;\n        p = @malloc(1);\n    }\n}"),
            Some(vec![])
        );
        assert_eq!(
            at("void f(int c) {\n    [[clang::suppress]] if (c) { g(); } else { p = @malloc(1); }\n}"),
            Some(vec![])
        );
        assert_eq!(
            at("void f(int c) {\n    [[clang::suppress]] for (;;) {\n        p = @malloc(1);\n    }\n}"),
            Some(vec![])
        );
    }

    #[test]
    fn other_statements_do_not_cover() {
        assert_eq!(at("void f(void) {\n    [[clang::suppress]] g();\n    char *p = @malloc(1);\n}"), None);
        assert_eq!(at("void f(void) {\n    [[clang::suppress]] { g(); }\n    char *p = @malloc(1);\n}"), None);
        assert_eq!(at("void f(void) {\n    // [[clang::suppress]]\n    char *p = @malloc(1);\n}"), None, "a comment");
        assert_eq!(at("void f(void) {\n    puts(\"[[clang::suppress]]\");\n    char *p = @malloc(1);\n}"), None);
        assert_eq!(
            at("#define S [[clang::suppress]]\nvoid f(void) {\n    char *p = @malloc(1);\n}"),
            None,
            "a directive"
        );
        assert_eq!(at("void f(void) {\n    [[clang::suppressed]] char *p = @malloc(1);\n}"), None, "another name");
        assert_eq!(
            at("void f(void) {\n    for (i = 0; i < n; i++) [[clang::suppress]] g();\n    p = @malloc(1);\n}"),
            None
        );
        assert_eq!(at("void f(void) {\n    [[clang::suppress]] { g(); }\n    @malloc(1);\n}"), None);
        assert_eq!(covering(b"abc", 2, 1), None, "a start past the allocation");
    }
}
