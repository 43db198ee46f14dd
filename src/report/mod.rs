//! Output renderers: compiler-style text, JSON, SARIF 2.1.0, GitLab Code Quality (`codeclimate`),
//! and an HTML site (`html`).
//!
//! Input: a slice of [`Diagnostic`]s, already sorted with `diag::sort` (renderers keep the order
//! they are given, so output never depends on thread count), plus per-format context
//! ([`RenderOptions`], the stats value, [`ToolInfo`]).
//! Output: bytes written to a `dyn Write`; nothing else (the CLI prints the summary line). The
//! HTML report is a directory of pages instead: `html::render_html` makes them, `html::write_site`
//! writes them.
//! Invariants:
//! - Rendering never fails because a source file is unreadable: source files are only read for
//!   optional decoration (the text snippet, SARIF column conversion), and a missing file just
//!   drops that decoration. The only errors returned are the writer's.
//! - Output is a pure function of the inputs, the source files and (SARIF, for relative paths) the
//!   current directory: no hash-map iteration order. The one exception is SARIF's
//!   `invocations[0]` when `ToolInfo::invocation` is given: command line, working directory,
//!   start and end times.
//! - `SrcLoc` columns are clang's: 1-based *byte* offsets within the line; 0 means "unknown".
//!   Text keeps bytes (what editors' quickfix expects); SARIF converts to code points.

mod attribute;
pub mod baseline;
mod codeclimate;
pub mod fingerprint;
pub mod html;
mod json;
mod sarif;
mod span;
pub mod suppress;
mod text;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use codeclimate::render_codeclimate;
pub use json::render_json;
pub use sarif::render_sarif;
pub use text::render_text;

#[cfg(test)]
use crate::diag::Diagnostic;
use crate::lines;

/// How to render text diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    /// ANSI colors, as clang uses on a terminal; false when writing to a file or pipe.
    pub color: bool,
    /// Print the source line and a caret under each warning, like clang.
    pub show_source: bool,
}

/// What SARIF needs to know about this run of the tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInfo {
    /// `tool.driver.version`.
    pub version: String,
    /// `%SRCROOT%`: files below it get URIs relative to it. Relative roots are taken relative to
    /// the current directory.
    pub root: PathBuf,
    /// Problems of the run itself (SARIF's tool execution notifications).
    pub notifications: Vec<Notification>,
    /// How and when drip ran, for `invocations[0]`; `None` leaves it out (tests, golden files).
    pub invocation: Option<Invocation>,
    /// Rules switched off for this run (`--disable`, `[rules]`): SARIF says so in
    /// `ruleConfigurationOverrides`, so a consumer can tell "no finding" from "not looked for".
    pub disabled_rules: Vec<crate::diag::Rule>,
}

/// How and when this run of drip happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The command line, program name first.
    pub arguments: Vec<String>,
    pub working_directory: PathBuf,
    pub start: std::time::SystemTime,
    pub end: std::time::SystemTime,
}

/// A problem of the run itself, not of the analysed code: a TU that could not be parsed, a
/// function whose check failed or ran out of time or memory, budgets hit. The text format
/// prints these on stderr; JSON lists them under `notifications`, SARIF under the invocation's
/// `toolExecutionNotifications`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Notification {
    pub level: NotificationLevel,
    /// A stable kebab-case id: `tu-failed`, `internal-error`, `time-budget`, `memory-budget`,
    /// `site-budget`, `scc-rounds`, `scc-time`, `run-time`.
    pub id: &'static str,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NotificationLevel {
    /// Work was lost: part of the input was not analysed.
    Error,
    /// The input was analysed, but some conclusions were not reached.
    Warning,
}

/// Source files read on demand, each at most once per render. An unreadable file is remembered as
/// such, so a missing file costs one failed open rather than one per diagnostic.
#[derive(Default)]
struct SourceCache {
    /// Contents and the offset of each line start, so a line is found without rescanning.
    files: HashMap<PathBuf, Option<(Vec<u8>, Vec<u32>)>>,
}

impl SourceCache {
    /// Line `line` (1-based) of `path` without its line terminator, or `None` when the file cannot
    /// be read or is shorter. Lines are counted as clang counts them (see `crate::lines`), so the
    /// line quoted is the one the location names.
    fn line(&mut self, path: &Path, line: u32) -> Option<&[u8]> {
        let (content, starts) = self.file(path)?;
        lines::line(content, starts, line)
    }

    /// The contents of `path` and the offset of each line's start, or `None` when it cannot be
    /// read.
    fn file(&mut self, path: &Path) -> Option<(&[u8], &[u32])> {
        let (content, starts) = self
            .files
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                // Only a regular file: the source may have been replaced by a FIFO since.
                crate::files::read(path).ok().map(|c| {
                    let starts = lines::line_starts(&c);
                    (c, starts)
                })
            })
            .as_ref()?;
        Some((content, starts))
    }
}

/// Shared inputs for the unit tests of all three renderers: one of each shape of finding, on
/// `tests/report/a.c` (which the text snippet test reads; cargo runs unit tests from the package
/// root, so the relative path resolves).
#[cfg(test)]
mod fixtures {
    use crate::diag::{Category, Diagnostic, Note, NoteKind, Rule, SrcLoc};

    pub const FILE: &str = "tests/report/a.c";

    pub fn loc(line: u32, col: u32) -> SrcLoc {
        SrcLoc { file: FILE.to_string(), line, col }
    }

    pub fn note(kind: NoteKind, line: u32, col: u32, message: &str) -> Note {
        Note { kind, loc: loc(line, col), message: message.to_string() }
    }

    /// `p` leaks in `make` when `q == NULL`.
    pub fn conditional_leak() -> Diagnostic {
        Diagnostic {
            rule: Rule::Leak,
            category: Category::FreedConditional,
            loc: loc(6, 14),
            function: "make".to_string(),
            allocator: "malloc".to_string(),
            message: format!("memory allocated by 'malloc' leaks when the branch 'q == NULL' at {FILE}:8 is taken"),
            path: vec![
                note(NoteKind::Alloc, 6, 14, "memory is allocated here"),
                note(NoteKind::Branch, 8, 9, "branch 'q == NULL' is taken"),
                note(NoteKind::Lost, 9, 9, "last reference to the memory is lost here"),
            ],
            suppression: None,
            line_in_function: 1,
        }
    }

    /// `s` is freed twice in `twice`.
    pub fn double_free() -> Diagnostic {
        Diagnostic {
            rule: Rule::DoubleFree,
            category: Category::FreedAlways,
            loc: loc(16, 15),
            function: "twice".to_string(),
            allocator: "strdup".to_string(),
            message: "memory allocated by 'strdup' is freed twice".to_string(),
            path: vec![
                note(NoteKind::Alloc, 16, 15, "memory is allocated here"),
                note(NoteKind::Free, 17, 5, "memory is freed here"),
                note(NoteKind::Free, 18, 5, "memory is freed again here"),
            ],
            suppression: None,
            line_in_function: 1,
        }
    }

    /// `t` is never freed in `lost`; the line has a tab and a non-ASCII character before the
    /// call, so byte, display and code-point columns all differ.
    pub fn never_freed() -> Diagnostic {
        Diagnostic {
            rule: Rule::Leak,
            category: Category::NeverFreedLocal,
            loc: loc(22, 21),
            function: "lost".to_string(),
            allocator: "strdup".to_string(),
            message: "memory allocated by 'strdup' is never freed".to_string(),
            path: vec![
                note(NoteKind::Alloc, 22, 21, "memory is allocated here"),
                note(NoteKind::Lost, 23, 1, "last reference to the memory is lost here"),
            ],
            suppression: None,
            line_in_function: 1,
        }
    }

    pub fn all() -> Vec<super::Diagnostic> {
        vec![conditional_leak(), double_free(), never_freed()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_cache_reads_lines_and_tolerates_missing_files() {
        let mut cache = SourceCache::default();
        let file = Path::new(fixtures::FILE);
        assert_eq!(cache.line(file, 6), Some(&b"    int *p = malloc(n);"[..]));
        assert_eq!(cache.line(file, 0), None);
        assert_eq!(cache.line(file, 10_000), None);
        assert_eq!(cache.line(Path::new("tests/report/does-not-exist.c"), 1), None);
    }

    #[test]
    fn fixtures_are_sorted_like_the_cli_sorts_them() {
        let diags: Vec<Diagnostic> = fixtures::all();
        let mut sorted = diags.clone();
        crate::diag::sort(&mut sorted);
        assert_eq!(diags, sorted);
    }
}
