//! Text from the input, made safe to print on a terminal.
//!
//! Input: strings drip did not write itself — file names, lines quoted from sources, compiler
//! messages, command-line words. Output: the same text with every control character written as a
//! visible escape (`\x1b`, `\n`, `\u{202e}`).
//! Invariants: the output holds no C0 or C1 control character, no DEL and no bidirectional
//! override or isolate (which reorder what a reader sees, "Trojan Source"), except the line
//! breaks and tabs `lines` keeps on purpose; text without such characters comes back unchanged
//! and unallocated. An escape sequence in a file name could otherwise retitle or clear the
//! terminal, and a newline in one could forge a report line. JSON and SARIF escape by themselves
//! and do not come here.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal as it is.
fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every control character escaped, line breaks and tabs included: for one field of a
/// line (a file name, a quoted source line, a message).
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_but(s, &[])
}

/// `s` with every control character escaped except line breaks and tabs: for whole messages,
/// which may span lines.
pub fn escape_lines(s: &str) -> Cow<'_, str> {
    escape_but(s, &['\n', '\t'])
}

fn escape_but<'a>(s: &'a str, keep: &[char]) -> Cow<'a, str> {
    if !s.chars().any(|c| unsafe_char(c) && !keep.contains(&c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !unsafe_char(c) || keep.contains(&c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_returned_as_it_is() {
        for s in ["src/a.c", "é – ü 漢字", ""] {
            assert!(matches!(escape(s), Cow::Borrowed(b) if b == s));
        }
    }

    #[test]
    fn control_characters_become_visible() {
        assert_eq!(escape("a\x1b[31mb\x07"), "a\\x1b[31mb\\x07");
        assert_eq!(escape("one\ntwo\r\tthree\x7f"), "one\\ntwo\\r\\tthree\\x7f");
        assert_eq!(escape("x\u{9b}2J\u{202e}cba\u{2066}"), "x\\u{9b}2J\\u{202e}cba\\u{2066}");
    }

    #[test]
    fn whole_messages_keep_their_lines_and_tabs() {
        assert_eq!(escape_lines("a\tb\nc\x1b]0;t\x07\r"), "a\tb\nc\\x1b]0;t\\x07\\r");
    }
}
