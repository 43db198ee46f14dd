//! The HTML report: a directory of static pages, an index and one page per finding, each
//! finding's path drawn on its source as numbered steps (as scan-build's report pages do).
//!
//! Input: the findings every renderer gets (sorted with `diag::sort`; suppressed ones included
//! and marked), their fingerprints in the same order, and [`HtmlInfo`] (the summary line as
//! stderr has it, how many findings the baseline hid, the run's notifications). The source files
//! the findings name are read while the pages are made (paths as the findings give them, so
//! relative to the current directory, as the text report reads them); a file that cannot be read
//! is named on the page with the reason, and a step past a file's end is listed as such.
//! Output: a [`Site`] (page names and contents), and [`write_site`] to put it in a directory.
//!
//! Invariants:
//! - Every value from the input (file names, messages, which quote source, source lines,
//!   function names, suppression reasons) is inserted through maud, which escapes it; only
//!   drip's own markup and style sheet are raw. Control characters and bidirectional overrides
//!   are shown as escapes (`crate::terminal`), so a "Trojan Source" line reads as the compiler
//!   read it. As a second line of defence every page carries a Content-Security-Policy that
//!   allows its inline style sheet and nothing else: no script runs, nothing is fetched.
//! - Self-contained: no JavaScript, no external style sheet, font or image; links are relative
//!   (`index.html`, `f-<fingerprint>.html`, `#s3`), so the directory can be moved or served.
//! - Deterministic: the pages are a function of the inputs and the source files alone (no
//!   times, no hash-map order). A finding's page is named by its fingerprint, so it keeps its
//!   name across runs and across edits above it.
//! - The output directory ([`prepare_dir`], checked before the analysis): drip writes only into
//!   a directory that does not exist yet, is empty, or holds drip's marker [`MARKER`] (a report
//!   drip wrote before). Pages are written to a temporary file and renamed, so a link planted at
//!   a page's name is replaced, never written through. A rewrite deletes only the pages the
//!   previous marker lists that have a page name drip gives and are plain files; anything else
//!   in the directory stays.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::fingerprint::Fingerprint;
use super::{Notification, NotificationLevel};
use crate::diag::{Category, Diagnostic, Note, NoteKind, Rule, SuppressionKind};
use crate::terminal::{escape, escape_lines};

/// The file that marks a directory as a report drip wrote: a first line [`MAGIC`], then the
/// name of every page written, one per line.
pub const MARKER: &str = ".drip-html";
const MAGIC: &str = "drip html report, v1";
pub const INDEX: &str = "index.html";
/// A finding's own file is on its page whole up to this many lines (the part away from the path
/// folded); a longer one (an amalgamation) only around the path, so that a thousand findings in
/// it do not make a thousand copies of it.
const FULL_FILE_LINES: u32 = 3000;
/// Lines shown unfolded before the first and after the last step in the finding's own file.
const CONTEXT: u32 = 12;
/// Fewer lines than this before or after the unfolded part are not folded.
const MIN_FOLD: u32 = 6;
/// Lines shown before the first and after the last step of a file longer than FULL_FILE_LINES.
const WINDOW: u32 = 40;
/// Lines shown around a step in another file (an allocator wrapper's body).
const EXCERPT: u32 = 3;
/// How far above the path's first step the finding's function may start and still be shown
/// from its first line.
const HEAD_REACH: u32 = 200;
/// Tabs in source are shown at this width (`tab-size` in the style sheet), as clang counts them.
const TAB_STOP: usize = 8;
/// A step's marker is indented to its column, up to this many columns.
const MAX_INDENT: usize = 100;

/// What the index says about the run besides the findings.
pub struct HtmlInfo<'a> {
    /// The summary line, as drip prints it on stderr.
    pub summary: &'a str,
    /// Findings the baseline hid (`--baseline`), which are on no page; `None` without one.
    pub hidden_by_baseline: Option<usize>,
    pub notifications: &'a [Notification],
}

/// The pages of a report: the index first, then one page per finding in the findings' order.
pub struct Site {
    pub pages: Vec<(String, String)>,
}

/// Renders every page. Never fails: an unreadable source is said on its page.
pub fn render_html(diags: &[Diagnostic], fingerprints: &[Fingerprint], info: &HtmlInfo) -> Site {
    let names = page_names(diags, fingerprints);
    let mut sources = Sources::default();
    let mut pages = vec![(INDEX.to_string(), index_page(diags, &names, info).into_string())];
    for (i, d) in diags.iter().enumerate() {
        let page = finding_page(d, i, &names, &mut sources);
        pages.push((names[i].clone(), page.into_string()));
    }
    Site { pages }
}

/// `f-<fingerprint>.html`; a second finding with the same fingerprint (a hash collision) gets
/// `-2`, and so on, in output order.
fn page_names(diags: &[Diagnostic], fingerprints: &[Fingerprint]) -> Vec<String> {
    let mut used = HashSet::new();
    (0..diags.len())
        .map(|i| {
            let base = fingerprints.get(i).map_or_else(|| format!("{i:016x}"), |f| f.drip.clone());
            let mut name = format!("f-{base}.html");
            let mut k = 1;
            while !used.insert(name.clone()) {
                k += 1;
                name = format!("f-{base}-{k}.html");
            }
            name
        })
        .collect()
}

/// Whether `name` is a name drip gives a page: the only names a rewrite may delete.
fn is_page_name(name: &str) -> bool {
    name == INDEX
        || name.strip_prefix("f-").and_then(|n| n.strip_suffix(".html")).is_some_and(|n| {
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-')
        })
}

// ---------------------------------------------------------------------------------------------
// The output directory.

/// Checks, before the analysis, that the report may go to `dir` (see the module's invariants),
/// and creates it when it does not exist, so that a directory that cannot be written fails now.
pub fn prepare_dir(dir: &Path) -> Result<(), String> {
    let shown = dir.display();
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the report directory {shown}: {e}"))?;
        }
        Err(e) => return Err(format!("cannot use {shown} for the HTML report: {e}")),
        Ok(m) if !m.is_dir() => {
            return Err(format!("-o {shown} is not a directory: the HTML report is a directory of pages"));
        }
        Ok(_) => {
            let empty = std::fs::read_dir(dir)
                .map_err(|e| format!("cannot read the report directory {shown}: {e}"))?
                .next()
                .is_none();
            if !empty && marker(dir).is_none() {
                return Err(format!(
                    "-o {shown} holds files drip did not write (it has no {MARKER}): give a new or empty directory, or one drip wrote a report to"
                ));
            }
        }
    }
    // Writable: the pages will be temporary files renamed into place.
    tempfile::Builder::new()
        .prefix(".drip-tmp-")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|e| format!("cannot write the report to {shown}: {e}"))
}

/// The pages the marker of `dir` lists, or `None` when `dir` has no marker (a plain file
/// starting with [`MAGIC`]).
fn marker(dir: &Path) -> Option<Vec<String>> {
    let path = dir.join(MARKER);
    // Not through a link: a marker is a file drip wrote here.
    if !std::fs::symlink_metadata(&path).ok()?.is_file() {
        return None;
    }
    let text = crate::files::read_to_string(&path).ok()?;
    let mut lines = text.lines();
    (lines.next()? == MAGIC).then(|| lines.map(str::to_string).collect())
}

/// Writes the pages and the marker into `dir` (checked by [`prepare_dir`]), then deletes the
/// pages of the previous report there that this one no longer has.
pub fn write_site(site: &Site, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let old = marker(dir).unwrap_or_default();
    for (name, text) in &site.pages {
        write_replacing(dir, name, text.as_bytes())?;
    }
    let mut list = format!("{MAGIC}\n");
    for (name, _) in &site.pages {
        list.push_str(name);
        list.push('\n');
    }
    write_replacing(dir, MARKER, list.as_bytes())?;
    let new: HashSet<&str> = site.pages.iter().map(|(n, _)| n.as_str()).collect();
    for name in old.iter().filter(|n| !new.contains(n.as_str()) && is_page_name(n)) {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// `dir/name` with `bytes`: a temporary file renamed over the name, so whatever was there (a
/// link too) is replaced, not written through.
fn write_replacing(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".drip-tmp-")
        .permissions(std::fs::Permissions::from_mode(0o644))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Source files.

/// A source file's bytes and line starts (`crate::lines`, clang's way of counting lines).
struct Text {
    bytes: Vec<u8>,
    starts: Vec<u32>,
}

impl Text {
    fn line_count(&self) -> u32 {
        match self.starts.last() {
            _ if self.bytes.is_empty() => 0,
            // A final line end starts no line.
            Some(&last) if last as usize == self.bytes.len() => self.starts.len() as u32 - 1,
            _ => self.starts.len() as u32,
        }
    }
    fn line(&self, line: u32) -> &[u8] {
        crate::lines::line(&self.bytes, &self.starts, line).unwrap_or_default()
    }
}

/// Each file read at most once per report; an unreadable one keeps the reason.
#[derive(Default)]
struct Sources {
    files: HashMap<String, Result<Text, String>>,
}

impl Sources {
    fn get(&mut self, file: &str) -> &Result<Text, String> {
        self.files.entry(file.to_string()).or_insert_with(|| {
            // Only a regular file: a FIFO at a source's name would block the report.
            crate::files::read(Path::new(file))
                .map(|bytes| Text { starts: crate::lines::line_starts(&bytes), bytes })
                .map_err(|e| e.to_string())
        })
    }
}

/// A source line as shown: invalid UTF-8 replaced, control characters other than tabs escaped.
fn shown_line(line: &[u8]) -> String {
    escape_lines(&String::from_utf8_lossy(line)).into_owned()
}

/// The display column (0-based) of byte column `col` (1-based) of `line`, with tabs at
/// [`TAB_STOP`] and escapes as wide as they are long: where a step's marker starts.
fn display_col(line: &[u8], col: u32) -> usize {
    let text = String::from_utf8_lossy(line);
    let mut width = 0;
    for (byte, ch) in text.char_indices() {
        if byte + 1 >= col as usize {
            break;
        }
        width += match ch {
            '\t' => TAB_STOP - width % TAB_STOP,
            c => escape(c.encode_utf8(&mut [0; 4])).chars().count(),
        };
    }
    width.min(MAX_INDENT)
}

/// Line `l` of `text` with the source each step on it is about underlined in the step's colour
/// (`span::step_span`: the call, the condition, the word). Overlapping spans are drawn as one,
/// in the colour of the step that starts first.
fn underlined(text: &Text, count: u32, l: u32, steps: &[&(usize, &Note)]) -> Markup {
    let line = text.line(l);
    let line_of = |n: u32| (n >= 1 && n <= count).then(|| text.line(n));
    let mut spans: Vec<(usize, usize, NoteKind)> =
        steps.iter().filter_map(|(_, n)| super::span::step_span(line_of, n).map(|(a, b)| (a, b, n.kind))).collect();
    spans.sort_by_key(|s| (s.0, std::cmp::Reverse(s.1)));
    let mut merged: Vec<(usize, usize, NoteKind)> = Vec::new();
    for (a, b, k) in spans {
        match merged.last_mut() {
            Some(last) if a < last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b, k)),
        }
    }
    // The line in pieces: plain text, then each underlined span with the text before it.
    let mut pieces: Vec<(String, Option<NoteKind>)> = Vec::new();
    let mut at = 0;
    for (a, b, k) in merged {
        pieces.push((shown_line(&line[at..a]), None));
        pieces.push((shown_line(&line[a..b]), Some(k)));
        at = b;
    }
    pieces.push((shown_line(&line[at.min(line.len())..]), None));
    html! {
        @for (text, kind) in pieces {
            @if let Some(k) = kind {
                span class=(format!("u u-{}", &kind_class(k)[2..])) { (text) }
            } @else {
                (text)
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pages.

const STYLE: &str = r#"
:root { --alloc: #1d4ed8; --branch: #a16207; --free: #15803d; --lost: #b91c1c; --muted: #6b7280; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #111827; background: #f9fafb; }
header, main { padding: 0 24px; }
main { padding-top: 16px; }
header { background: #1f2937; color: #f9fafb; padding-top: 12px; padding-bottom: 12px; }
header a { color: #bfdbfe; }
header h1 { font-size: 20px; margin: 4px 0; font-weight: 600; }
nav.pages { font-size: 14px; display: flex; gap: 16px; }
h2 { font-size: 17px; margin: 24px 0 8px; }
h2 code, td code { font-size: 14px; }
code, .src, .source .gap { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
table { border-collapse: collapse; }
.counts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.counts table, table.findings, table.facts { background: #fff; border: 1px solid #e5e7eb; }
.counts th, .counts td, table.findings th, table.findings td, table.facts th, table.facts td { padding: 4px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
.counts td.n, table.findings td.n { text-align: right; font-variant-numeric: tabular-nums; }
.counts caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
.counts { max-width: 100%; }
.counts .scroll { max-height: 340px; overflow: auto; }
table.findings { width: 100%; }
table.findings tr.group th { background: #eef2ff; font-weight: 600; }
table.findings tr.suppressed td { color: var(--muted); }
table.findings td.cat, table.findings td.n { white-space: nowrap; }
table.findings th.msg { width: 45%; }
table.findings td code { overflow-wrap: anywhere; }
table.facts th { width: 9em; color: #374151; font-weight: 600; }
.rule { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 13px; color: #fff; white-space: nowrap; }
.rule.leak { background: #c2410c; }
.rule.double-free { background: #7e22ce; }
.rule.mismatched-deallocation { background: #be123c; }
.rule.leak-global { background: #a16207; }
.tag { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 12px; background: #e5e7eb; color: #374151; }
ul.notes li.error { color: var(--lost); }
details.notes summary { cursor: pointer; }
ol.steps { background: #fff; border: 1px solid #e5e7eb; padding: 8px 8px 8px 36px; }
ol.steps li { margin: 2px 0; }
.kind { font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: .03em; margin-right: 4px; }
.k-alloc .kind { color: var(--alloc); }
.k-branch .kind { color: var(--branch); }
.k-free .kind { color: var(--free); }
.k-lost .kind { color: var(--lost); }
.source { background: #fff; border: 1px solid #e5e7eb; overflow-x: auto; }
.src { font-size: 13px; width: 100%; }
.src td { padding: 0 8px; white-space: pre; tab-size: 8; -moz-tab-size: 8; }
.src td.ln { text-align: right; color: var(--muted); user-select: none; width: 7ch; min-width: 7ch; border-right: 1px solid #e5e7eb; }
.src tr.hl td.code { background: #fef9c3; }
.src tr.step td.code { white-space: normal; padding-top: 2px; padding-bottom: 4px; }
.source .gap { color: var(--muted); background: #f3f4f6; padding: 0 8px; font-size: 13px; }
.source .gap span { display: inline-block; width: 7ch; text-align: right; }
.source details summary { cursor: pointer; color: var(--muted); background: #f3f4f6; padding: 1px 8px; font-family: system-ui, sans-serif; font-size: 13px; }
.bubble { display: inline-block; border: 1px solid; border-left-width: 4px; border-radius: 4px; padding: 2px 8px; background: #fff; font-family: system-ui, sans-serif; font-size: 13px; max-width: 90ch; }
.k-alloc .bubble { border-color: var(--alloc); background: #eff6ff; }
.k-branch .bubble { border-color: var(--branch); background: #fefce8; }
.k-free .bubble { border-color: var(--free); background: #f0fdf4; }
.k-lost .bubble { border-color: var(--lost); background: #fef2f2; }
.u { text-decoration-line: underline; text-decoration-style: wavy; text-decoration-thickness: 1.5px; text-underline-offset: 3px; }
.u-alloc { text-decoration-color: var(--alloc); }
.u-branch { text-decoration-color: var(--branch); }
.u-free { text-decoration-color: var(--free); }
.u-lost { text-decoration-color: var(--lost); }
.num { display: inline-block; min-width: 1.6em; padding: 0 4px; margin-right: 6px; border-radius: 9px; text-align: center; color: #fff; font-weight: 700; font-size: 12px; }
.k-alloc .num { background: var(--alloc); }
.k-branch .num { background: var(--branch); }
.k-free .num { background: var(--free); }
.k-lost .num { background: var(--lost); }
.bubble a.arrow { margin-left: 8px; text-decoration: none; }
p.warn { background: #fef2f2; border: 1px solid #fecaca; padding: 6px 10px; }
footer { color: var(--muted); font-size: 13px; padding: 24px; }
"#;

/// No script, no fetch: only the inline style sheet.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'";

fn page(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                (body)
                footer { "drip " (env!("CARGO_PKG_VERSION")) }
            }
        }
    }
}

fn kind_class(kind: NoteKind) -> &'static str {
    match kind {
        NoteKind::Alloc => "k-alloc",
        NoteKind::Branch => "k-branch",
        NoteKind::Free => "k-free",
        NoteKind::Lost => "k-lost",
    }
}

fn kind_label(kind: NoteKind) -> &'static str {
    match kind {
        NoteKind::Alloc => "allocation",
        NoteKind::Branch => "branch",
        NoteKind::Free => "free",
        NoteKind::Lost => "lost",
    }
}

fn location(file: &str, line: u32, col: u32) -> String {
    let file = escape(file);
    match (line, col) {
        (0, _) => file.into_owned(),
        (l, 0) => format!("{file}:{l}"),
        (l, c) => format!("{file}:{l}:{c}"),
    }
}

/// `1 error`, `2 errors`.
fn count_of(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn suppression_text(d: &Diagnostic) -> Option<String> {
    d.suppression.as_ref().map(|s| {
        let by = match s.kind {
            SuppressionKind::InSource => "a drip: ignore comment",
            SuppressionKind::External => "a [[suppress]] entry",
        };
        match &s.justification {
            Some(r) => format!("suppressed by {by}: {}", escape(r)),
            None => format!("suppressed by {by}"),
        }
    })
}

/// Reported and suppressed findings of one kind, for the index's count tables.
#[derive(Default, Clone, Copy)]
struct Count {
    reported: usize,
    suppressed: usize,
}

impl Count {
    fn add(&mut self, d: &Diagnostic) {
        if d.suppression.is_some() {
            self.suppressed += 1;
        } else {
            self.reported += 1;
        }
    }
    fn total(self) -> usize {
        self.reported + self.suppressed
    }
}

/// A count table; `rows` in the order shown, each with an optional link.
fn count_table(caption: &str, what: &str, rows: &[(String, Option<String>, Count)]) -> Markup {
    html! {
        div.scroll {
            table {
                caption { (caption) }
                thead { tr { th { (what) } th { "reported" } th { "suppressed" } } }
                tbody {
                    @for (name, link, c) in rows {
                        tr {
                            td {
                                @if let Some(href) = link { a href=(href) { code { (name) } } } @else { (name) }
                            }
                            td.n { (c.reported) }
                            td.n { (c.suppressed) }
                        }
                    }
                }
            }
        }
    }
}

/// Rows by count, most first, then by name: the hot spots on top, and a fixed order.
fn by_count(map: BTreeMap<String, (Option<String>, Count)>) -> Vec<(String, Option<String>, Count)> {
    let mut rows: Vec<_> = map.into_iter().map(|(k, (link, c))| (k, link, c)).collect();
    rows.sort_by(|a, b| b.2.total().cmp(&a.2.total()).then_with(|| a.0.cmp(&b.0)));
    rows
}

fn index_page(diags: &[Diagnostic], names: &[String], info: &HtmlInfo) -> Markup {
    // Files in the order of the sorted findings, each one group of the table.
    let mut files: Vec<&str> = Vec::new();
    for d in diags {
        if files.last() != Some(&d.loc.file.as_str()) && !files.contains(&d.loc.file.as_str()) {
            files.push(&d.loc.file);
        }
    }
    let group_of = |file: &str| files.iter().position(|f| *f == file).unwrap_or(0);
    let mut by_rule: Vec<(String, Option<String>, Count)> = Vec::new();
    for r in Rule::ALL {
        let mut c = Count::default();
        diags.iter().filter(|d| d.rule == r).for_each(|d| c.add(d));
        by_rule.push((r.id().to_string(), None, c));
    }
    let mut by_category = Vec::new();
    for k in Category::ALL {
        let mut c = Count::default();
        diags.iter().filter(|d| d.category == k).for_each(|d| c.add(d));
        if c.total() > 0 {
            by_category.push((k.id().to_string(), None, c));
        }
    }
    let mut by_file: BTreeMap<String, (Option<String>, Count)> = BTreeMap::new();
    let mut by_function: BTreeMap<String, (Option<String>, Count)> = BTreeMap::new();
    for d in diags {
        let link = Some(format!("#file-{}", group_of(&d.loc.file)));
        by_file.entry(escape(&d.loc.file).into_owned()).or_insert((link.clone(), Count::default())).1.add(d);
        let f = format!("{} ({})", escape(&d.function), escape(&d.loc.file));
        by_function.entry(f).or_insert((link, Count::default())).1.add(d);
    }
    let suppressed = diags.iter().filter(|d| d.suppression.is_some()).count();
    let body = html! {
        header {
            h1 { "drip report" }
            div { (escape(info.summary)) }
        }
        main {
            @if !info.notifications.is_empty() {
                h2 { "Problems of the run" }
                @let errors = info.notifications.iter().filter(|n| n.level == NotificationLevel::Error).count();
                // Open when part of the input was not analysed; warnings alone stay folded, so
                // that a long list does not push the findings down.
                details.notes open[errors > 0] {
                summary { (count_of(errors, "error")) ", " (count_of(info.notifications.len() - errors, "warning")) }
                ul.notes {
                    @for n in info.notifications {
                        li class=(match n.level { NotificationLevel::Error => "error", NotificationLevel::Warning => "warning" }) {
                            span.tag { (n.id) } " " (escape_lines(&n.message))
                        }
                    }
                }
                }
            }
            h2 { "Counts" }
            p {
                (diags.len() - suppressed) " reported, " (suppressed) " suppressed"
                @if let Some(h) = info.hidden_by_baseline { ", " (h) " hidden by the baseline (on no page)" }
                "."
            }
            @if !diags.is_empty() {
                div.counts {
                    (count_table("By rule", "rule", &by_rule))
                    (count_table("By category", "category", &by_category))
                    (count_table("By file", "file", &by_count(by_file)))
                    (count_table("By function", "function", &by_count(by_function)))
                }
            }
            h2 { "Findings" }
            @if diags.is_empty() {
                p { "No findings." }
            } @else {
                table.findings {
                    thead {
                        tr { th { "#" } th { "line" } th { "rule" } th { "category" } th { "function" } th { "allocator" } th.msg { "message" } th { "steps" } }
                    }
                    @for (g, file) in files.iter().enumerate() {
                        tbody {
                            tr.group {
                                th colspan="8" id=(format!("file-{g}")) {
                                    code { (escape(file)) }
                                    " (" (diags.iter().filter(|d| d.loc.file == *file).count()) ")"
                                }
                            }
                            @for (i, d) in diags.iter().enumerate().filter(|(_, d)| d.loc.file == *file) {
                                tr class=[d.suppression.is_some().then_some("suppressed")] {
                                    td.n { a href=(names[i]) { (i + 1) } }
                                    td.n { (location("", d.loc.line, d.loc.col).trim_start_matches(':')) }
                                    td { span class=(format!("rule {}", d.rule.id())) { (d.rule.id()) } }
                                    td.cat { (d.category.id()) }
                                    td { code { (escape(&d.function)) } }
                                    td { code { (escape(&d.allocator)) } }
                                    td.msg {
                                        a href=(names[i]) { (escape(&d.message)) }
                                        @if let Some(s) = suppression_text(d) { " " span.tag { (s) } }
                                    }
                                    td.n { (d.path.len()) }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    page("drip report", body)
}

/// Consecutive lines of a file shown on a finding's page; `folded` ones are away from the path,
/// shown collapsed (`<details>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    lo: u32,
    hi: u32,
    folded: bool,
}

/// The segments of a file of `count` lines whose steps are at `lines`, ascending and not
/// overlapping. The finding's own file (`main`): the lines from CONTEXT before the first step to
/// CONTEXT after the last, and the rest folded, or for a file over FULL_FILE_LINES only WINDOW
/// lines around the path. Another file (a wrapper's body): EXCERPT lines around each step. Steps
/// outside the file (line 0, past the end) are not placed. `head`: the first line of the
/// finding's function in the own file; the open part starts there, so the function's name and
/// parameters are on the page, unless that is more than HEAD_REACH lines above the first step.
fn segments(lines: &[u32], count: u32, main: bool, head: Option<u32>) -> Vec<Segment> {
    let mut placed: Vec<u32> = lines.iter().copied().filter(|&l| l >= 1 && l <= count).collect();
    placed.sort_unstable();
    let (Some(&first), Some(&last)) = (placed.first(), placed.last()) else {
        // Nothing to show around: the whole of a short own file, open; nothing of another.
        return if main && count > 0 && count <= FULL_FILE_LINES {
            vec![Segment { lo: 1, hi: count, folded: false }]
        } else {
            Vec::new()
        };
    };
    let open = |lo: u32, hi: u32| Segment { lo, hi, folded: false };
    if main {
        let head = head.filter(|&h| h >= 1 && h <= first && first - h <= HEAD_REACH);
        let from = |above: u32| head.map_or(u32::MAX, |h| h).min(first.saturating_sub(above).max(1));
        if count > FULL_FILE_LINES {
            return vec![open(from(WINDOW), (last + WINDOW).min(count))];
        }
        let (mut lo, mut hi) = (from(CONTEXT), (last + CONTEXT).min(count));
        // Folding a few lines saves nothing.
        if lo <= MIN_FOLD {
            lo = 1;
        }
        if count - hi < MIN_FOLD {
            hi = count;
        }
        let mut out = Vec::new();
        if lo > 1 {
            out.push(Segment { lo: 1, hi: lo - 1, folded: true });
        }
        out.push(open(lo, hi));
        if hi < count {
            out.push(Segment { lo: hi + 1, hi: count, folded: true });
        }
        return out;
    }
    let mut out: Vec<Segment> = Vec::new();
    for l in placed {
        let (lo, hi) = (l.saturating_sub(EXCERPT).max(1), (l + EXCERPT).min(count));
        match out.last_mut() {
            // Adjacent or overlapping: one excerpt, without a gap of no lines between.
            Some(last) if lo <= last.hi + 1 => last.hi = last.hi.max(hi),
            _ => out.push(open(lo, hi)),
        }
    }
    out
}

/// The segments of `file` on a finding's page and the steps drawn in them (none when the file
/// cannot be read).
fn layout(
    file: &str,
    head: Option<u32>,
    main: bool,
    steps: &[(usize, &Note)],
    sources: &mut Sources,
) -> (Vec<Segment>, Vec<usize>) {
    let Ok(text) = sources.get(file) else { return (Vec::new(), Vec::new()) };
    let lines: Vec<u32> = steps.iter().map(|(_, n)| n.loc.line).collect();
    let segs = segments(&lines, text.line_count(), main, head);
    let inside = |l: u32| segs.iter().any(|s| s.lo <= l && l <= s.hi);
    let drawn = steps.iter().filter(|(_, n)| inside(n.loc.line)).map(|(k, _)| *k).collect();
    (segs, drawn)
}

/// One file of a finding's page: its segments, with the steps drawn under their lines; each
/// marker links to the previous and the next step drawn on the page (`drawn`, sorted).
fn source_view(
    fi: usize,
    file: &str,
    segs: &[Segment],
    steps: &[(usize, &Note)],
    drawn: &[usize],
    sources: &mut Sources,
) -> Markup {
    let text = match sources.get(file) {
        Ok(t) => t,
        Err(reason) => {
            return html! {
                p.warn { "The source file " code { (escape(file)) } " could not be read: " (escape(reason)) ". The steps are listed above." }
            };
        }
    };
    let count = text.line_count();
    let prev = |k: usize| drawn.iter().rev().find(|&&d| d < k).copied();
    let next = |k: usize| drawn.iter().find(|&&d| d > k).copied();
    let lines = |seg: &Segment| {
        html! {
            table.src {
                @for l in seg.lo..=seg.hi {
                    @let here: Vec<&(usize, &Note)> = steps.iter().filter(|(_, n)| n.loc.line == l).collect();
                    tr id=(format!("f{fi}-L{l}")) class=[(!here.is_empty()).then_some("hl")] {
                        td.ln { (l) }
                        td.code { (underlined(text, count, l, &here)) }
                    }
                    @for (k, n) in here {
                        tr class=(format!("step {}", kind_class(n.kind))) id=(format!("s{k}")) {
                            td.ln {}
                            td.code {
                                div style=(format!("padding-left:{}ch", display_col(text.line(l), n.loc.col))) {
                                    div.bubble {
                                        span.num { (k) }
                                        span.kind { (kind_label(n.kind)) }
                                        (escape(&n.message))
                                        @if let Some(p) = prev(*k) { a.arrow href=(format!("#s{p}")) title="previous step" { "←" } }
                                        @if let Some(n) = next(*k) { a.arrow href=(format!("#s{n}")) title="next step" { "→" } }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    let past_end: Vec<&(usize, &Note)> = steps.iter().filter(|(_, n)| n.loc.line > count).collect();
    html! {
        div.source {
            @for (i, seg) in segs.iter().enumerate() {
                // Lines left out between excerpts, or before the first and after the last.
                @if seg.lo > 1 && (i == 0 || segs[i - 1].hi + 1 < seg.lo) { div.gap { span { "⋮" } } }
                @if seg.folded {
                    details {
                        summary { "lines " (seg.lo) "–" (seg.hi) }
                        (lines(seg))
                    }
                } @else {
                    (lines(seg))
                }
                @if i + 1 == segs.len() && seg.hi < count { div.gap { span { "⋮" } } }
            }
        }
        @for (k, n) in past_end {
            p.warn {
                "Step " (k) " is at line " (n.loc.line) ", but " code { (escape(file)) } " has " (count)
                " lines now: the file changed since it was analysed."
            }
        }
    }
}

fn finding_page(d: &Diagnostic, i: usize, names: &[String], sources: &mut Sources) -> Markup {
    let numbered: Vec<(usize, &Note)> = d.path.iter().enumerate().map(|(k, n)| (k + 1, n)).collect();
    // The finding's own file first, then the others (wrappers' bodies) as the path reaches them.
    let mut files: Vec<&str> = vec![&d.loc.file];
    for n in &d.path {
        if !files.contains(&n.loc.file.as_str()) {
            files.push(&n.loc.file);
        }
    }
    // Which lines each file shows decides which steps have a marker to link to.
    let mut plans = Vec::new();
    let mut drawn = Vec::new();
    for (fi, file) in files.iter().enumerate() {
        let steps: Vec<(usize, &Note)> = numbered.iter().filter(|(_, n)| n.loc.file == *file).copied().collect();
        // The function starts `line_in_function` lines above the allocation.
        let head = d.loc.line.checked_sub(d.line_in_function).filter(|_| fi == 0);
        let (segs, here) = layout(file, head, fi == 0, &steps, sources);
        drawn.extend(here);
        plans.push((fi, *file, segs, steps));
    }
    drawn.sort_unstable();
    let mut views = Vec::new();
    for (fi, file, segs, steps) in plans {
        let m = source_view(fi, file, &segs, &steps, &drawn, sources);
        let nums: Vec<String> = steps.iter().map(|(k, _)| k.to_string()).collect();
        views.push((file, fi == 0, nums, m));
    }
    let title = format!("{} in {} — drip", d.rule.id(), escape(&d.function));
    let body = html! {
        header {
            nav.pages {
                a href=(INDEX) { "All findings" }
                @if i > 0 { a href=(names[i - 1]) { "← previous" } }
                @if i + 1 < names.len() { a href=(names[i + 1]) { "next →" } }
                span { "finding " (i + 1) " of " (names.len()) }
            }
            h1 { span class=(format!("rule {}", d.rule.id())) { (d.rule.id()) } " " (escape(&d.message)) }
        }
        main {
            table.facts {
                tr { th { "location" } td { code { (location(&d.loc.file, d.loc.line, d.loc.col)) } } }
                tr { th { "function" } td { code { (escape(&d.function)) } } }
                tr { th { "allocator" } td { code { (escape(&d.allocator)) } } }
                tr { th { "category" } td { (d.category.id()) } }
                @if let Some(s) = suppression_text(d) { tr { th { "suppressed" } td { (s) } } }
            }
            h2 { "Path" }
            ol.steps {
                @for (k, n) in &numbered {
                    li class=(kind_class(n.kind)) {
                        span.kind { (kind_label(n.kind)) }
                        @if drawn.contains(k) {
                            a href=(format!("#s{k}")) { code { (location(&n.loc.file, n.loc.line, n.loc.col)) } }
                        } @else {
                            code { (location(&n.loc.file, n.loc.line, n.loc.col)) }
                        }
                        " " (escape(&n.message))
                    }
                }
            }
            @for (file, main, nums, m) in &views {
                h2 {
                    code { (escape(file)) }
                    @if !main { " (" (if nums.len() == 1 { "step " } else { "steps " }) (nums.join(", ")) ", in another file)" }
                }
                (m)
            }
        }
    };
    page(&title, body)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, FILE};
    use super::*;

    fn fps(n: usize) -> Vec<Fingerprint> {
        (0..n).map(|i| Fingerprint { drip: format!("{:016x}", i * 7 + 1), line_hash: String::new() }).collect()
    }

    fn site(diags: &[Diagnostic]) -> Site {
        let info = HtmlInfo { summary: "drip: 1 TUs", hidden_by_baseline: Some(2), notifications: &[] };
        render_html(diags, &fps(diags.len()), &info)
    }

    /// The row of line `l` in file view `fi`, and what follows it up to the next line's row.
    fn after_line(page: &str, fi: usize, l: u32) -> &str {
        let start = page.find(&format!("<tr id=\"f{fi}-L{l}\"")).unwrap_or_else(|| panic!("line {l} in {page}"));
        let rest = &page[start + 1..];
        let end = rest.find(&format!("<tr id=\"f{fi}-L")).unwrap_or(rest.len());
        &rest[..end]
    }

    #[test]
    fn each_step_is_drawn_under_its_line() {
        let s = site(&fixtures::all());
        assert_eq!(s.pages.len(), 4);
        assert_eq!(s.pages[0].0, INDEX);
        let leak = &s.pages[1].1;
        assert!(after_line(leak, 0, 6).contains("id=\"s1\""), "allocation under line 6");
        assert!(after_line(leak, 0, 8).contains("id=\"s2\""));
        assert!(
            after_line(leak, 0, 8).contains("branch &#39;q == NULL&#39; is taken")
                || after_line(leak, 0, 8).contains("branch 'q == NULL' is taken")
        );
        assert!(after_line(leak, 0, 9).contains("id=\"s3\""));
        assert!(!after_line(leak, 0, 7).contains("class=\"step"), "no step under line 7");
        // The whole (short) file is shown.
        assert!(leak.contains("id=\"f0-L1\""));
        // The marker under line 22 is indented to the display column of `strdup` (tab, é).
        let lost = &s.pages[3].1;
        assert!(after_line(lost, 0, 22).contains("padding-left:26ch"), "{}", after_line(lost, 0, 22));
    }

    #[test]
    fn each_step_underlines_its_source() {
        let s = site(&fixtures::all());
        let leak = &s.pages[1].1;
        let code = |l: u32| {
            let row = after_line(leak, 0, l);
            let at = row.find("<td class=\"code\">").expect("a code cell");
            row[at..].split("</td>").next().unwrap_or_default().to_string()
        };
        assert!(code(6).contains("int *p = <span class=\"u u-alloc\">malloc(n)</span>;"), "{}", code(6));
        assert!(code(8).contains("if (<span class=\"u u-branch\">q == NULL</span>)"), "{}", code(8));
        assert!(code(9).contains("<span class=\"u u-lost\">return</span> NULL;"), "{}", code(9));
        assert!(!code(7).contains("class=\"u"), "no step on line 7");
        // After a tab and a two-byte character, the call is still the underlined text.
        let lost = &s.pages[3].1;
        assert!(after_line(lost, 0, 22).contains("<span class=\"u u-alloc\">strdup(x)</span>"));
    }

    #[test]
    fn an_unreadable_file_and_a_line_past_the_end_are_said() {
        let mut gone = fixtures::never_freed();
        gone.loc.file = "tests/report/no such file.c".to_string();
        for n in &mut gone.path {
            n.loc.file = gone.loc.file.clone();
        }
        let mut past = fixtures::double_free();
        past.path[2].loc.line = 5000;
        let s = site(&[gone, past]);
        assert!(s.pages[1].1.contains("could not be read: No such file or directory"), "{}", s.pages[1].1);
        assert!(s.pages[2].1.contains("Step 3 is at line 5000"));
        // Its entry in the step list is not a link to a marker that does not exist.
        assert!(!s.pages[2].1.contains("href=\"#s3\""));
    }

    #[test]
    fn other_files_are_excerpts() {
        let mut d = fixtures::conditional_leak();
        // A wrapper's allocation in another file, at line 17 of it.
        let mut wrapper = fixtures::note(NoteKind::Alloc, 17, 5, "'xstrdup' gets the memory from 'strdup' here");
        wrapper.loc.file = "tests/report/golden.sarif".to_string();
        d.path.insert(1, wrapper);
        let page = &site(&[d]).pages[1].1;
        assert!(page.contains("(step 2, in another file)"));
        assert!(after_line(page, 1, 17).contains("id=\"s2\""));
        assert!(page.contains("id=\"f1-L14\"") && page.contains("id=\"f1-L20\""));
        assert!(!page.contains("id=\"f1-L13\"") && !page.contains("id=\"f1-L21\""), "three lines around the step");
    }

    #[test]
    fn files_are_cut_and_folded_around_the_path() {
        let seg = |lo, hi, folded| Segment { lo, hi, folded };
        assert_eq!(segments(&[5000, 5010], 9000, true, None), [seg(4960, 5050, false)]);
        assert_eq!(segments(&[50, 40], 100, true, None), [seg(1, 27, true), seg(28, 62, false), seg(63, 100, true)]);
        assert_eq!(segments(&[5], 10, true, None), [seg(1, 10, false)]);
        assert_eq!(segments(&[17, 18], 23, true, None), [seg(1, 23, false)], "folds of 5 lines");
        assert_eq!(segments(&[19, 19], 37, true, None), [seg(1, 6, true), seg(7, 31, false), seg(32, 37, true)]);
        assert_eq!(segments(&[0, 200], 100, true, None), [seg(1, 100, false)]);
        assert_eq!(segments(&[2, 20, 8], 100, false, None), [seg(1, 11, false), seg(17, 23, false)]);
        assert_eq!(segments(&[0, 200], 100, false, None), []);
        assert_eq!(segments(&[1], 0, true, None), []);
        // The function's first line opens the view, within reach of the path.
        assert_eq!(segments(&[50, 60], 100, true, Some(5)), [seg(1, 72, false), seg(73, 100, true)]);
        assert_eq!(
            segments(&[50, 60], 100, true, Some(30)),
            [seg(1, 29, true), seg(30, 72, false), seg(73, 100, true)]
        );
        assert_eq!(segments(&[5000], 9000, true, Some(4900)), [seg(4900, 5040, false)]);
        assert_eq!(segments(&[5000], 9000, true, Some(100)), [seg(4960, 5040, false)], "out of reach");
        assert_eq!(segments(&[50], 100, true, Some(70)), [seg(1, 37, true), seg(38, 62, false), seg(63, 100, true)]);
    }

    #[test]
    fn hostile_text_is_escaped() {
        let mut d = fixtures::double_free();
        d.loc.file = "x<script>\"'.c".to_string();
        d.function = "<img src=x onerror=alert(1)>".to_string();
        d.message = "freed twice </td><script>alert(1)</script>\u{202e}".to_string();
        let s = site(&[d]);
        for (_, p) in &s.pages {
            assert!(!p.contains("<script") && !p.contains("<img"), "{p}");
            assert!(!p.contains('\u{202e}'));
        }
        assert!(s.pages[1].1.contains("<code>x&lt;script&gt;&quot;'.c</code> could not be read"));
        assert!(s.pages[1].1.contains("&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;\\u{202e}"));
    }

    #[test]
    fn page_names_come_from_fingerprints_and_stay_apart() {
        let diags = fixtures::all();
        let mut fp = fps(3);
        fp[2].drip = fp[1].drip.clone();
        let names = page_names(&diags, &fp);
        assert_eq!(names, ["f-0000000000000001.html", "f-0000000000000008.html", "f-0000000000000008-2.html"]);
        assert!(names.iter().all(|n| is_page_name(n)));
        for bad in ["../index.html", "f-.html", "f-x.html", "notes.txt", ".drip-html", "f-1/../a.html"] {
            assert!(!is_page_name(bad), "{bad}");
        }
    }

    #[test]
    fn the_index_counts_and_links() {
        let mut diags = fixtures::all();
        diags[1].suppression = Some(crate::diag::Suppression {
            kind: SuppressionKind::InSource,
            justification: Some("on purpose".into()),
        });
        let s = site(&diags);
        let index = &s.pages[0].1;
        assert!(index.contains("2 reported, 1 suppressed, 2 hidden by the baseline"));
        for (name, _) in &s.pages[1..] {
            assert_eq!(index.matches(&format!("href=\"{name}\"")).count(), 2, "number and message link to {name}");
        }
        assert!(index.contains("suppressed by a drip: ignore comment: on purpose"));
        assert!(index.contains(&format!("<code>{FILE}</code> (3)")));
        assert!(s.pages[1].1.contains("href=\"index.html\""));
    }

    #[test]
    fn problems_of_the_run_are_folded_unless_one_is_an_error() {
        let note = |level, id: &'static str| Notification { level, id, message: format!("<{id}>") };
        let warn = [note(NotificationLevel::Warning, "site-budget")];
        let info = HtmlInfo { summary: "", hidden_by_baseline: None, notifications: &warn };
        let index = render_html(&[], &[], &info).pages.remove(0).1;
        assert!(index.contains("<details class=\"notes\"><summary>0 errors, 1 warning</summary>"), "{index}");
        assert!(index.contains("&lt;site-budget&gt;") && index.contains("No findings."));
        let both = [note(NotificationLevel::Error, "tu-failed"), warn[0].clone()];
        let info = HtmlInfo { notifications: &both, ..info };
        let index = render_html(&[], &[], &info).pages.remove(0).1;
        assert!(index.contains("<details class=\"notes\" open><summary>1 error, 1 warning</summary>"), "{index}");
    }

    #[test]
    fn display_columns() {
        assert_eq!(display_col(b"\tchar *t = /* \xc3\xa9 */ strdup(x);", 21), 26);
        assert_eq!(display_col(b"ab", 0), 0);
        assert_eq!(display_col(b"a\x1bb", 3), 5);
    }
}
