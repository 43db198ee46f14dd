//! Compiler-style text, one `file:line:col: warning: message [rule,category]` line per diagnostic
//! followed by `note:` lines for its path, so editors' quickfix parsers (Vim, Emacs compile-mode,
//! VS Code problem matchers) pick every step up as a location. The bracket is clang's with
//! `-fdiagnostics-show-category=name` (`[-Wflag,Category]`): the rule, then the allocation site's
//! category (`[leak,freed-conditional]`), except for a double free, whose rule is its category.
//!
//! Layout follows clang: locations as given in `SrcLoc` (byte columns, which is what quickfix
//! parsers expect), an optional source snippet with a line-number gutter and caret, and clang's
//! colors. The allocation note is not repeated as a `note:` when it sits at the warning's own
//! location, since the warning line already points there.
//!
//! File names, messages (which quote source expressions) and source lines come from the input:
//! their control characters are printed as escapes (`crate::terminal`), so an escape sequence in
//! a file name never reaches the terminal and a newline in one never forges a line.

use std::io::{self, Write};
use std::path::Path;

use super::{RenderOptions, SourceCache};
use crate::diag::{Diagnostic, NoteKind, SrcLoc};
use crate::terminal::escape;

// clang's palette (TextDiagnostic.cpp): bold locations and messages, bold magenta "warning:",
// bold cyan "note:", bold green caret.
const BOLD: &str = "\x1b[1m";
const MAGENTA: &str = "\x1b[1;35m";
const CYAN: &str = "\x1b[1;36m";
const GREEN: &str = "\x1b[1;32m";
const RESET: &str = "\x1b[0m";

/// clang expands tabs to this width in snippets (its default `-ftabstop`).
const TAB_STOP: usize = 8;

/// Writes `diags` in order. Fails only if `out` does.
pub fn render_text(diags: &[Diagnostic], opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let mut sources = SourceCache::default();
    let paint = Paint { on: opts.color };
    for d in diags {
        writeln!(
            out,
            "{}{}{} {}warning:{} {}{} [{}]{}",
            paint.start(BOLD),
            location(&d.loc),
            paint.end(),
            paint.start(MAGENTA),
            paint.end(),
            paint.start(BOLD),
            escape(&d.message),
            tag(d),
            paint.end(),
        )?;
        if opts.show_source {
            if let Some(line) = sources.line(Path::new(&d.loc.file), d.loc.line) {
                write_snippet(out, paint, d.loc.line, d.loc.col, line)?;
            }
        }
        for note in &d.path {
            if note.kind == NoteKind::Alloc && note.loc == d.loc {
                continue;
            }
            // Note messages are not bold, as in clang: they are supplementary.
            writeln!(
                out,
                "{}{}{} {}note:{} {}",
                paint.start(BOLD),
                location(&note.loc),
                paint.end(),
                paint.start(CYAN),
                paint.end(),
                escape(&note.message),
            )?;
        }
    }
    Ok(())
}

/// What the headline's bracket holds: the rule and the site's category (`leak,never-freed-local`).
/// A double free's site category only says where else the block is freed (`freed-always`), which
/// its notes show: the rule alone; so does a mismatched deallocation's, and a global never freed
/// (its site's category only says the block escaped into the global).
fn tag(d: &Diagnostic) -> String {
    match d.rule {
        crate::diag::Rule::DoubleFree | crate::diag::Rule::MismatchedDeallocation | crate::diag::Rule::LeakGlobal => {
            d.rule.id().to_string()
        }
        _ => format!("{},{}", d.rule.id(), d.category.id()),
    }
}

/// Emits ANSI escapes only when colors are on, so call sites read the same either way.
#[derive(Clone, Copy)]
struct Paint {
    on: bool,
}

impl Paint {
    fn start(self, code: &'static str) -> &'static str {
        if self.on {
            code
        } else {
            ""
        }
    }
    fn end(self) -> &'static str {
        self.start(RESET)
    }
}

/// `file:line:col:`, dropping the parts that are unknown (0) rather than printing a bogus 0.
fn location(loc: &SrcLoc) -> String {
    let file = escape(&loc.file);
    match (loc.line, loc.col) {
        (0, _) => format!("{file}:"),
        (line, 0) => format!("{file}:{line}:"),
        (line, col) => format!("{file}:{line}:{col}:"),
    }
}

/// clang's snippet with line numbers:
/// ```text
///     6 |     int *p = malloc(n);
///       |              ^
/// ```
/// The gutter is at least 4 digits wide, as in clang, so short files line up the same way. The
/// caret line is omitted when the column is unknown.
fn write_snippet(out: &mut dyn Write, paint: Paint, line_no: u32, col: u32, line: &[u8]) -> io::Result<()> {
    let width = line_no.to_string().len().max(4);
    let (shown, caret_at) = expand_line(line, col);
    writeln!(out, " {line_no:>width$} | {shown}")?;
    if let Some(caret_at) = caret_at {
        writeln!(out, " {:width$} | {:caret_at$}{}^{}", "", "", paint.start(GREEN), paint.end(),)?;
    }
    Ok(())
}

/// The line as displayed (invalid UTF-8 replaced, tabs expanded to `TAB_STOP`, other control
/// characters escaped, each escape as wide as it is long) and the 0-based
/// display column of byte column `col` (1-based; 0 = unknown). A column past the end of the line
/// (clang points just past the last character for some end locations) stays past the end.
///
/// Every character counts as one display column; East Asian wide characters will put the caret a
/// little left, which is an accepted approximation without a width table.
fn expand_line(line: &[u8], col: u32) -> (String, Option<usize>) {
    let text = String::from_utf8_lossy(line);
    let mut shown = String::with_capacity(text.len());
    let mut width = 0;
    let mut caret_at = None;
    let target = col as usize; // 1-based byte column
    for (byte, ch) in text.char_indices() {
        // Byte offsets are in the lossy string; they match the source except after invalid bytes,
        // where only the caret position can shift, never the output's well-formedness.
        // The caret goes under the character containing byte `target - 1`.
        if caret_at.is_none() && target != 0 && byte + ch.len_utf8() >= target {
            caret_at = Some(width);
        }
        if ch == '\t' {
            let pad = TAB_STOP - width % TAB_STOP;
            shown.extend(std::iter::repeat_n(' ', pad));
            width += pad;
        } else if let std::borrow::Cow::Owned(e) = escape(ch.encode_utf8(&mut [0; 4])) {
            shown.push_str(&e);
            width += e.len();
        } else {
            shown.push(ch);
            width += 1;
        }
    }
    if caret_at.is_none() && target != 0 {
        caret_at = Some(width + (target - 1).saturating_sub(text.len()));
    }
    (shown, caret_at)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, FILE};
    use super::*;

    fn render(diags: &[Diagnostic], color: bool, show_source: bool) -> String {
        let mut out = Vec::new();
        render_text(diags, &RenderOptions { color, show_source }, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn plain_text_golden() {
        let expected = format!(
            "\
{FILE}:6:14: warning: memory allocated by 'malloc' leaks when the branch 'q == NULL' at {FILE}:8 is taken [leak,freed-conditional]
{FILE}:8:9: note: branch 'q == NULL' is taken
{FILE}:9:9: note: last reference to the memory is lost here
{FILE}:16:15: warning: memory allocated by 'strdup' is freed twice [double-free]
{FILE}:17:5: note: memory is freed here
{FILE}:18:5: note: memory is freed again here
{FILE}:22:21: warning: memory allocated by 'strdup' is never freed [leak,never-freed-local]
{FILE}:23:1: note: last reference to the memory is lost here
"
        );
        assert_eq!(render(&fixtures::all(), false, false), expected);
    }

    #[test]
    fn source_snippet_golden() {
        // Line 22 is "\tchar *t = /* é */ strdup(x);": byte column 21 is 's' of strdup; with the
        // tab expanded to 8 and 'é' one column wide, 's' is displayed at column 27 (26 before it).
        let expected = format!(
            "\
{FILE}:6:14: warning: memory allocated by 'malloc' leaks when the branch 'q == NULL' at {FILE}:8 is taken [leak,freed-conditional]
    6 |     int *p = malloc(n);
      |              ^
{FILE}:8:9: note: branch 'q == NULL' is taken
{FILE}:9:9: note: last reference to the memory is lost here
{FILE}:16:15: warning: memory allocated by 'strdup' is freed twice [double-free]
   16 |     char *s = strdup(name);
      |               ^
{FILE}:17:5: note: memory is freed here
{FILE}:18:5: note: memory is freed again here
{FILE}:22:21: warning: memory allocated by 'strdup' is never freed [leak,never-freed-local]
   22 |         char *t = /* é */ strdup(x);
      |                           ^
{FILE}:23:1: note: last reference to the memory is lost here
"
        );
        assert_eq!(render(&fixtures::all(), false, true), expected);
    }

    #[test]
    fn colored_golden() {
        let d = fixtures::double_free();
        let expected = format!(
            "\
\x1b[1m{FILE}:16:15:\x1b[0m \x1b[1;35mwarning:\x1b[0m \x1b[1mmemory allocated by 'strdup' is freed twice [double-free]\x1b[0m
   16 |     char *s = strdup(name);
      |               \x1b[1;32m^\x1b[0m
\x1b[1m{FILE}:17:5:\x1b[0m \x1b[1;36mnote:\x1b[0m memory is freed here
\x1b[1m{FILE}:18:5:\x1b[0m \x1b[1;36mnote:\x1b[0m memory is freed again here
"
        );
        assert_eq!(render(&[d], true, true), expected);
    }

    #[test]
    fn the_headline_names_the_category_in_the_messages_colour() {
        let mut d = fixtures::never_freed();
        d.path.clear();
        let plain = render(std::slice::from_ref(&d), false, false);
        assert!(plain.ends_with(" is never freed [leak,never-freed-local]\n"), "{plain}");
        d.rule = crate::diag::Rule::LeakOnReallocFailure;
        d.category = crate::diag::Category::FreedConditional;
        let colored = render(&[d], true, false);
        assert!(
            colored.ends_with(" is never freed [leak-on-realloc-failure,freed-conditional]\x1b[0m\n"),
            "{colored:?}"
        );
    }

    #[test]
    fn unreadable_source_and_unknown_positions_are_tolerated() {
        let mut d = fixtures::never_freed();
        d.loc.file = "tests/report/no such file.c".to_string();
        d.path.clear();
        let mut beyond_eof = fixtures::never_freed();
        beyond_eof.loc.line = 1000;
        beyond_eof.path.clear();
        let mut unknown = fixtures::never_freed();
        unknown.loc.line = 0;
        unknown.loc.col = 0;
        unknown.path.clear();
        assert_eq!(
            render(&[d, beyond_eof, unknown], false, true),
            format!(
                "\
tests/report/no such file.c:22:21: warning: memory allocated by 'strdup' is never freed [leak,never-freed-local]
{FILE}:1000:21: warning: memory allocated by 'strdup' is never freed [leak,never-freed-local]
{FILE}: warning: memory allocated by 'strdup' is never freed [leak,never-freed-local]
"
            )
        );
    }

    #[test]
    fn alloc_note_elsewhere_is_printed() {
        let mut d = fixtures::never_freed();
        d.path[0].loc.line = 21;
        let text = render(&[d], false, false);
        assert!(text.contains(&format!("{FILE}:21:21: note: memory is allocated here\n")));
    }

    #[test]
    fn caret_columns() {
        // Known column in the middle, past the end, unknown.
        assert_eq!(expand_line(b"ab\tc", 4), ("ab      c".to_string(), Some(8)));
        assert_eq!(expand_line(b"ab", 5), ("ab".to_string(), Some(4)));
        assert_eq!(expand_line(b"ab", 0), ("ab".to_string(), None));
        assert_eq!(expand_line(b"", 1), (String::new(), Some(0)));
        // An escaped control character is as wide as its escape.
        assert_eq!(expand_line(b"a\x1b[2Jp", 6), ("a\\x1b[2Jp".to_string(), Some(8)));
    }

    #[test]
    fn control_characters_from_the_input_are_escaped() {
        let evil = "evil\x1b]0;owned\x07\nforged.c";
        let mut d = fixtures::double_free();
        d.loc.file = evil.to_string();
        for n in &mut d.path {
            n.loc.file = evil.to_string();
        }
        d.message = "freed when 'c == '\r'' is true".to_string();
        d.path[1].message = "note\u{202e}txt".to_string();
        let text = render(&[d], false, false);
        assert!(!text.chars().any(|c| c.is_control() && c != '\n' || c == '\u{202e}'), "{text:?}");
        assert_eq!(text.lines().count(), 3, "one warning and two notes: {text}");
        let shown = "evil\\x1b]0;owned\\x07\\nforged.c";
        assert!(text.starts_with(&format!("{shown}:16:15: warning: freed when 'c == '\\r'' is true")), "{text}");
        assert!(text.contains(&format!("{shown}:17:5: note: note\\u{{202e}}txt\n")), "{text}");
    }
}
