//! Where a step's source text ends, read from the source file: a call's closing parenthesis, a
//! branch's condition, the word at a column. SARIF's regions and the HTML report's underlines.
//!
//! Input: lines of a source file (through a function, so each renderer keeps its own cache), a
//! location (1-based line, 1-based byte column as clang gives it) and, for a step, its note.
//! Output: byte columns; nothing when the text at the location is not what the step says.
//! Invariants: reading only — a file that changed since the analysis gives a shorter span or
//! none, never one past the line's end; columns are bytes, as the locations' are.

use crate::diag::{Note, NoteKind};

/// Lines a call's arguments may span before the region is left without an end.
const MAX_CALL_LINES: u32 = 64;

/// Where the call that starts at (`line`, byte column `col`) ends: the line and the 1-based byte
/// column just after its closing parenthesis (SARIF's `endColumn` is exclusive). Only a name
/// followed by `(` on the same line is a call; parentheses inside string and character literals
/// and comments do not count. `None` for anything else (a branch's condition, a closing brace)
/// and when a line cannot be read (`line_of` gives `None`).
pub(super) fn call_end<'a>(line_of: impl Fn(u32) -> Option<&'a [u8]>, line: u32, col: u32) -> Option<(u32, u32)> {
    let text = line_of(line)?;
    let mut i = (col as usize).checked_sub(1)?;
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    if !text.get(i).is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_') {
        return None;
    }
    while text.get(i).copied().is_some_and(ident) {
        i += 1;
    }
    while text.get(i).is_some_and(|&b| b == b' ' || b == b'\t') {
        i += 1;
    }
    if text.get(i) != Some(&b'(') {
        return None;
    }
    let mut depth = 0u32;
    let mut in_comment = false;
    for l in line..line.saturating_add(MAX_CALL_LINES) {
        let text = line_of(l)?;
        let mut j = if l == line { i } else { 0 };
        while j < text.len() {
            let b = text[j];
            if in_comment {
                if text[j..].starts_with(b"*/") {
                    in_comment = false;
                    j += 1;
                }
            } else if text[j..].starts_with(b"//") {
                break;
            } else if text[j..].starts_with(b"/*") {
                in_comment = true;
                j += 1;
            } else if b == b'"' || b == b'\'' {
                j += 1;
                while j < text.len() && text[j] != b {
                    j += if text[j] == b'\\' { 2 } else { 1 };
                }
            } else if b == b'(' {
                depth += 1;
            } else if b == b')' {
                depth -= 1;
                if depth == 0 {
                    return Some((l, j as u32 + 2));
                }
            }
            j += 1;
        }
    }
    None
}

/// The byte range (0-based, end exclusive) of `line` that step `note` at byte column `col` is
/// about, to underline: the call that starts there, up to the line's end when its arguments go
/// on; a branch's condition where the line holds the text the note quotes (`'n > 0' is true`);
/// otherwise the word at the column (`return`, a variable), or the one character there.
/// `line_of` gives the following lines, for a call that spans them.
pub(super) fn step_span<'a>(line_of: impl Fn(u32) -> Option<&'a [u8]>, note: &Note) -> Option<(usize, usize)> {
    let line = line_of(note.loc.line)?;
    let start = (note.loc.col as usize).checked_sub(1).filter(|&s| s < line.len())?;
    if let Some((end_line, end_col)) = call_end(&line_of, note.loc.line, note.loc.col) {
        let end = if end_line == note.loc.line { end_col as usize - 1 } else { trimmed_len(line) };
        return Some((start, end.max(start + 1)));
    }
    if note.kind == NoteKind::Branch {
        if let Some(cond) = quoted_condition(&note.message) {
            // The condition starts at the column, or (a location on an operator) once on the line.
            if line[start..].starts_with(cond.as_bytes()) {
                return Some((start, start + cond.len()));
            }
            let mut found = line.windows(cond.len().max(1)).enumerate().filter(|(_, w)| *w == cond.as_bytes());
            if let (Some((at, _)), None) = (found.next(), found.next()) {
                return Some((at, at + cond.len()));
            }
        }
    }
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let end =
        if word(line[start]) { start + line[start..].iter().take_while(|&&b| word(b)).count() } else { start + 1 };
    Some((start, end))
}

/// The condition a branch note quotes: `'flags & F' is true` → `flags & F`.
fn quoted_condition(message: &str) -> Option<&str> {
    let rest = &message[message.find('\'')? + 1..];
    let end = rest.rfind("' is ")?;
    Some(&rest[..end]).filter(|c| !c.is_empty())
}

/// The line's length without trailing blanks.
fn trimmed_len(line: &[u8]) -> usize {
    line.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SrcLoc;

    fn lines(text: &str) -> Vec<&[u8]> {
        text.split('\n').map(str::as_bytes).collect()
    }

    #[test]
    fn call_ends_are_found_across_lines_literals_and_comments() {
        let src = lines(
            "p = malloc(sizeof(*p) +\n   strlen(\")(\") /* ) */ + ')'); // )\nif (x)\nq = f (a, g(b));\nr = h\n(1);\n",
        );
        let at = |l: u32| src.get(l as usize - 1).copied();
        assert_eq!(call_end(at, 1, 5), Some((2, 31)));
        assert_eq!(call_end(at, 3, 4), None, "not a name");
        assert_eq!(call_end(at, 4, 5), Some((4, 16)));
        assert_eq!(call_end(at, 5, 5), None, "the name alone on its line");
        assert_eq!(call_end(at, 1, 0), None);
        assert_eq!(call_end(|_| None, 1, 5), None, "an unreadable file");
    }

    fn note(kind: NoteKind, line: u32, col: u32, message: &str) -> Note {
        Note { kind, loc: SrcLoc { file: "a.c".into(), line, col }, message: message.into() }
    }

    #[test]
    fn steps_underline_their_call_condition_or_word() {
        let src = lines("    p = malloc(n);\n    if (n > 0 && q)\n    return p;\n    s = xstrdup(a,\n        b);\n  x");
        let at = |l: u32| src.get(l as usize - 1).copied();
        let span = |n: Note| step_span(at, &n);
        assert_eq!(span(note(NoteKind::Alloc, 1, 9, "memory is allocated here")), Some((8, 17)));
        assert_eq!(span(note(NoteKind::Branch, 2, 9, "'n > 0' is true")), Some((8, 13)));
        // The location on the operator: the quoted text is found once on the line.
        assert_eq!(span(note(NoteKind::Branch, 2, 11, "'n > 0 && q' is false")), Some((8, 18)));
        assert_eq!(span(note(NoteKind::Branch, 2, 9, "'m' is true")), Some((8, 9)), "not the line's text: a word");
        assert_eq!(span(note(NoteKind::Branch, 2, 9, "branch 'n > 0' is taken")), Some((8, 13)));
        assert_eq!(span(note(NoteKind::Lost, 3, 5, "the function returns here")), Some((4, 10)));
        assert_eq!(span(note(NoteKind::Alloc, 4, 9, "allocated")), Some((8, 18)), "to the end of the line");
        assert_eq!(span(note(NoteKind::Free, 6, 40, "freed")), None, "past the end: the file changed");
        assert_eq!(span(note(NoteKind::Free, 9, 1, "freed")), None, "no such line");
    }
}
