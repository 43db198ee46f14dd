//! Line tables of source text, with lines counted as clang counts them: `\n`, `\r\n` and a lone
//! `\r` each end a line.
//!
//! Input: a file's bytes. Output: the byte offset where each line starts, and a line's text.
//! Invariant: the front end (which turns clang's offsets into line numbers) and the reports
//! (which quote the line a finding names) share this one table, so a quoted line is the line
//! clang meant.

/// Offsets where the lines of `text` start (the first is 0).
pub fn line_starts(text: &[u8]) -> Vec<u32> {
    let mut starts = vec![0u32];
    // Almost every file has `\n` line ends only: then the (vectorised) search for the next
    // `\n` does it, which matters for a 9 MB amalgamation.
    if memchr(b'\r', text).is_none() {
        let mut at = 0;
        while let Some(k) = memchr(b'\n', &text[at..]) {
            at += k + 1;
            starts.push(at as u32);
        }
        return starts;
    }
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'\n' => starts.push(i as u32 + 1),
            b'\r' => {
                if text.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                starts.push(i as u32 + 1);
            }
            _ => {}
        }
        i += 1;
    }
    starts
}

/// Line `line` (1-based) of `text`, whose line starts are `starts`, without its line end; `None`
/// past the last line.
pub fn line<'t>(text: &'t [u8], starts: &[u32], line: u32) -> Option<&'t [u8]> {
    let i = (line as usize).checked_sub(1)?;
    let start = *starts.get(i)? as usize;
    let end = starts.get(i + 1).map_or(text.len(), |&s| s as usize);
    let text = text.get(start..end)?;
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    Some(text.strip_suffix(b"\r").unwrap_or(text))
}

/// A `#line` directive (or a preprocessor's `# N "file"` line marker): the line after it, on line
/// `next` of the file, is line `line` of file `file` (the file so far when it names none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMark {
    pub next: u32,
    pub line: u32,
    pub file: Option<Vec<u8>>,
}

/// The line directives of `text` (line starts `starts`), in order: generated code (bison, flex)
/// names the grammar file it came from, and compilers report there. Only a line whose first
/// non-blank character is `#` is looked at.
pub fn line_marks(text: &[u8], starts: &[u32]) -> Vec<LineMark> {
    let mut marks = Vec::new();
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(text.len(), |&e| e as usize);
        let Some(l) = text.get(s as usize..end) else { continue };
        let l = l.trim_ascii_start();
        let Some(rest) = l.strip_prefix(b"#") else { continue };
        let rest = rest.trim_ascii_start();
        let rest = match rest.strip_prefix(b"line") {
            Some(r) if r.first().is_some_and(u8::is_ascii_whitespace) => r.trim_ascii_start(),
            Some(_) => continue,
            None => rest,
        };
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let Some(line) = std::str::from_utf8(&rest[..digits]).ok().and_then(|d| d.parse::<u32>().ok()) else {
            continue;
        };
        let after = rest[digits..].trim_ascii_start();
        let file = after.strip_prefix(b"\"").and_then(|q| {
            let close = q.iter().position(|&b| b == b'"')?;
            let mut name = Vec::with_capacity(close);
            let mut k = 0;
            while k < close {
                // `\\` is one backslash (a Windows path written by the generator).
                if q[k] == b'\\' && q.get(k + 1) == Some(&b'\\') {
                    k += 1;
                }
                name.push(q[k]);
                k += 1;
            }
            Some(name)
        });
        marks.push(LineMark { next: i as u32 + 2, line, file });
    }
    marks
}

/// The position of the first `byte` in `text` (libc's `memchr`, which is vectorised).
fn memchr(byte: u8, text: &[u8]) -> Option<usize> {
    // SAFETY: the pointer and length describe `text`; the result, if not null, points into it.
    let p = unsafe { libc::memchr(text.as_ptr().cast(), i32::from(byte), text.len()) };
    (!p.is_null()).then(|| p as usize - text.as_ptr() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_directives_and_markers() {
        let text =
            b"int a;\n#line 40 \"parse.y\"\nint b;\n  # 7 \"dir\\\\x.h\" 2\n#include <x.h>\n#line 3\n#lineno 9\n";
        let marks = line_marks(text, &line_starts(text));
        assert_eq!(
            marks,
            [
                LineMark { next: 3, line: 40, file: Some(b"parse.y".to_vec()) },
                LineMark { next: 5, line: 7, file: Some(b"dir\\x.h".to_vec()) },
                LineMark { next: 7, line: 3, file: None },
            ]
        );
    }

    fn lines(text: &[u8]) -> Vec<&[u8]> {
        let starts = line_starts(text);
        (1..).map_while(|l| line(text, &starts, l)).collect()
    }

    #[test]
    fn every_line_end_clang_knows_ends_a_line() {
        assert_eq!(lines(b"a\nb\n"), [&b"a"[..], b"b", b""]);
        assert_eq!(lines(b"a\r\nb"), [&b"a"[..], b"b"]);
        assert_eq!(lines(b"a\rb\r\n\nc"), [&b"a"[..], b"b", b"", b"c"]);
        assert_eq!(lines(b""), [&b""[..]]);
    }

    #[test]
    fn line_zero_and_lines_past_the_end_are_none() {
        let starts = line_starts(b"x\n");
        assert_eq!(line(b"x\n", &starts, 0), None);
        assert_eq!(line(b"x\n", &starts, 3), None);
    }
}
