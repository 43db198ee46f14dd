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

/// The position of the first `byte` in `text` (libc's `memchr`, which is vectorised).
fn memchr(byte: u8, text: &[u8]) -> Option<usize> {
    // SAFETY: the pointer and length describe `text`; the result, if not null, points into it.
    let p = unsafe { libc::memchr(text.as_ptr().cast(), i32::from(byte), text.len()) };
    (!p.is_null()).then(|| p as usize - text.as_ptr() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

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
