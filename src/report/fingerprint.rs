//! Fingerprints: the identity of a finding across edits, for baselines and code scanning.
//!
//! Input: the run's findings, sorted, all of them (suppressed ones too: a finding's fingerprint
//! must not depend on which other findings a baseline later hides), the source root and the
//! current directory (for reading the sources the findings name).
//! Output: one [`Fingerprint`] per finding, in the same order.
//!
//! What a fingerprint covers:
//! - the rule, with `leak-on-realloc-failure` hashed as `leak`: it was reported as a `leak`
//!   before it became a rule of its own, and one allocation site has at most one leak finding,
//!   so a baseline written before the split (or a finding whose path changes from one kind of
//!   leak to the other) still matches;
//! - the file, relative to the source root when below it (else its absolute path);
//! - the enclosing function's name and the allocating function's name;
//! - the text of the allocation's line, and for a double free of each free's line, with
//!   comments and all white space removed;
//! - the number of earlier findings in the same run with all of the above equal (two identical
//!   `malloc` lines in one function), counted in output order.
//!
//! Not covered, so not a change: line and column numbers (lines added or removed above the
//! function or inside it above the allocation, the function moved within its file or to
//! another place in the sorted output), white space and comments on those lines (a
//! `drip: ignore` comment added there), the message and the path (which branches the report
//! shows), the category, and where drip runs from. When a line cannot be read, its offset from
//! the function's first line stands in for its text.
//!
//! Invariant: the hash is written out ([`fnv1a`]) and must never change between builds: a
//! changed hash makes every baselined finding new.

use std::collections::HashMap;
use std::path::Path;

use super::SourceCache;
use crate::diag::{Diagnostic, NoteKind, Rule};

/// `partialFingerprints` key of drip's own fingerprint. v1 hashed the allocation's line offset
/// within the function; v2 hashes the statement text.
pub const KEY: &str = "dripFingerprint/v2";

/// `partialFingerprints` key GitHub code scanning matches alerts on.
pub const LINE_HASH_KEY: &str = "primaryLocationLineHash";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// 16 hex digits: the finding's identity ([`KEY`]).
    pub drip: String,
    /// `<16 hex digits>:<occurrence>`, the shape code scanning's own hash has: the hash without
    /// the occurrence number, then the number.
    pub line_hash: String,
}

/// The fingerprint of every finding; `root` and `cwd` are absolute.
pub fn compute(diags: &[Diagnostic], root: &Path, cwd: &Path) -> Vec<Fingerprint> {
    let mut sources = SourceCache::default();
    let mut occurrences: HashMap<u64, u32> = HashMap::new();
    diags
        .iter()
        .map(|d| {
            let file = super::sarif::file_key(root, cwd, &d.loc.file);
            let input = input(d, &file, &mut |line| sources.line(&cwd.join(&d.loc.file), line).map(normalize_code));
            let base = fnv1a(&input);
            let seen = occurrences.entry(base).or_insert(0);
            *seen += 1;
            let mut with_occurrence = input;
            with_occurrence.extend_from_slice(seen.to_string().as_bytes());
            Fingerprint { drip: format!("{:016x}", fnv1a(&with_occurrence)), line_hash: format!("{base:016x}:{seen}") }
        })
        .collect()
}

/// The hashed fields, each NUL-terminated so that no two field lists concatenate alike. `line`
/// gives the normalised text of a line of the finding's file.
fn input(d: &Diagnostic, file: &str, line: &mut dyn FnMut(u32) -> Option<String>) -> Vec<u8> {
    let mut text = |l: u32, fallback: u32| line(l).unwrap_or_else(|| format!("@{fallback}"));
    let rule = if d.rule.is_leak() { Rule::Leak } else { d.rule };
    let mut fields = vec![
        rule.id().to_string(),
        file.to_string(),
        d.function.clone(),
        d.allocator.clone(),
        text(d.loc.line, d.line_in_function),
    ];
    if d.rule == Rule::DoubleFree {
        // The frees tell two double frees of one allocation apart; their offset from the
        // allocation stands in for an unreadable line.
        for n in d.path.iter().filter(|n| n.kind == NoteKind::Free && n.loc.file == d.loc.file) {
            fields.push(text(n.loc.line, n.loc.line.saturating_sub(d.loc.line)));
        }
    }
    if d.rule == Rule::MismatchedDeallocation {
        // Reported at the release: the allocation tells two allocations released at one call
        // apart (an `if` that takes `new` or `new[]`).
        if let Some(n) = d.path.iter().find(|n| n.kind == NoteKind::Alloc && n.loc.file == d.loc.file) {
            fields.push(text(n.loc.line, d.loc.line.saturating_sub(n.loc.line)));
        }
    }
    let mut key = Vec::new();
    for f in fields {
        key.extend_from_slice(f.as_bytes());
        key.push(0);
    }
    key
}

/// A line of C without comments and white space; string and character literals are kept as
/// written (a `//` inside a string is not a comment). A comment left open at the end of the line
/// runs to its end.
pub fn normalize_code(line: &[u8]) -> String {
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        match b {
            b'"' | b'\'' => {
                // Copy the literal through its closing quote, escapes included.
                out.push(b);
                i += 1;
                while i < line.len() {
                    let c = line[i];
                    out.push(c);
                    i += 1;
                    if c == b'\\' && i < line.len() {
                        out.push(line[i]);
                        i += 1;
                    } else if c == b {
                        break;
                    }
                }
                continue;
            }
            b'/' if line.get(i + 1) == Some(&b'/') => break,
            b'/' if line.get(i + 1) == Some(&b'*') => {
                match line[i + 2..].windows(2).position(|w| w == b"*/") {
                    Some(end) => i += 2 + end + 2,
                    None => break,
                }
                continue;
            }
            _ if b.is_ascii_whitespace() => {}
            _ => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// 64-bit FNV-1a. Written out because its output must never change between builds (std's
/// `DefaultHasher` makes no such promise), or every alert would look new after an upgrade.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET_BASIS, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;
    use std::fs;

    #[test]
    fn fnv1a_reference_values() {
        // Published FNV-1a 64 test vectors: the hash must never change.
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn code_is_normalised_without_comments_and_space() {
        assert_eq!(normalize_code(b"\tchar *t = /* \xc3\xa9 */ strdup(x);"), "char*t=strdup(x);");
        assert_eq!(normalize_code(b"  p = malloc(n); // drip: ignore[leak]"), "p=malloc(n);");
        assert_eq!(normalize_code(b"s = strdup(\"a // b\"); /* open"), "s=strdup(\"a // b\");");
        assert_eq!(normalize_code(b"c = '\\''; q = malloc( 1 )"), "c='\\'';q=malloc(1)");
    }

    /// The fixture file rewritten: the same functions after unrelated edits keep their
    /// fingerprints; edits to the finding's own statement change them.
    #[test]
    fn fingerprints_survive_unrelated_edits() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let original = fs::read_to_string(fixtures::FILE).unwrap();
        let diags = fixtures::all();
        let fp = |text: &str, diags: &[Diagnostic]| {
            fs::write(dir.join(fixtures::FILE.rsplit('/').next().unwrap()), text).unwrap();
            let mut diags = diags.to_vec();
            for d in &mut diags {
                d.loc.file = "a.c".to_string();
                for n in &mut d.path {
                    n.loc.file = "a.c".to_string();
                }
            }
            compute(&diags, dir, dir)
        };
        let before = fp(&original, &diags);
        assert_eq!(before.len(), 3);
        assert!(before.iter().all(|f| f.drip.len() == 16 && f.line_hash.ends_with(":1")));

        // Lines added above everything, and the allocation's line reindented with a comment:
        // every line number moves, nothing hashed changes.
        let shift = 7;
        let edited = format!("/* licence\n * text\n */\n\n\n#define X 1\n\n{original}")
            .replace("    int *p = malloc(n);", "        int *p  =  malloc(n);   // drip: ignore -- owned by the pool");
        let moved: Vec<Diagnostic> = diags
            .iter()
            .cloned()
            .map(|mut d| {
                d.loc.line += shift;
                for n in &mut d.path {
                    n.loc.line += shift;
                }
                d
            })
            .collect();
        assert_eq!(fp(&edited, &moved), before);

        // The same file seen from elsewhere: the root decides, not the current directory.
        let sub = dir.join("sub");
        fs::create_dir_all(&sub).unwrap();
        fs::write(dir.join("a.c"), &original).unwrap();
        let mut from_sub = diags.clone();
        for d in &mut from_sub {
            d.loc.file = "../a.c".to_string();
            for n in &mut d.path {
                n.loc.file = "../a.c".to_string();
            }
        }
        assert_eq!(compute(&from_sub, dir, &sub), before);

        // Each covered field changes it.
        let changed_stmt = original.replace("int *p = malloc(n);", "int *p = malloc(n + 1);");
        assert_ne!(fp(&changed_stmt, &diags)[0], before[0]);
        let changed_free = original.replace("    free(s);\n}", "    free((void *)s);\n}");
        assert_ne!(fp(&changed_free, &diags)[1], before[1], "the second free of the double free");
        for change in [
            |d: &mut Diagnostic| d.function = "make2".to_string(),
            |d: &mut Diagnostic| d.allocator = "calloc".to_string(),
            |d: &mut Diagnostic| d.rule = Rule::DoubleFree,
        ] {
            let mut other = diags.clone();
            change(&mut other[0]);
            assert_ne!(fp(&original, &other)[0], before[0]);
        }
        // A leak that became a leak-on-realloc-failure is the finding it was.
        let mut renamed = diags.clone();
        renamed[0].rule = Rule::LeakOnReallocFailure;
        assert_eq!(fp(&original, &renamed)[0], before[0]);

        // Two findings with the same input are numbered, and the first keeps its fingerprint.
        let twins = fp(&original, &[diags[0].clone(), diags[0].clone()]);
        assert_eq!(twins[0], before[0]);
        assert_ne!(twins[1].drip, twins[0].drip);
        assert_eq!(twins[1].line_hash, before[0].line_hash.replace(":1", ":2"));

        // An unreadable file: the offset within the function stands in, so the fingerprint is
        // still stable against edits above the function.
        let gone = dir.join("gone");
        let a = compute(&diags[..1], &gone, &gone);
        let mut shifted = diags[0].clone();
        shifted.loc.line += 40;
        assert_eq!(compute(&[shifted], &gone, &gone), a);
    }
}
