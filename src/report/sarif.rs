//! SARIF 2.1.0 (OASIS), for code-scanning services and IDE viewers.
//!
//! One run. `tool.driver.rules` always lists every rule, switched off or not (`leak` at index 0,
//! `double-free` at 1, `leak-on-realloc-failure` at 2, `mismatched-deallocation` at 3:
//! `Rule::ALL`'s order) so `ruleIndex` means
//! the same in every log, each with the metadata GitHub code scanning reads
//! (`defaultConfiguration.level`, `helpUri`, `help.markdown`, and `properties` `precision`,
//! `problem.severity`, `security-severity` and `tags` with the CWE). Each diagnostic becomes one
//! result:
//! - `level`: `error` for a double free or a mismatched deallocation, `warning` for a leak of either rule; a site `--all-categories` lists that
//!   the default policy does not report (`checkers::Policy`) is `kind: informational` with level
//!   `none`, since SARIF (§3.27.10) allows no other level beside a kind other than `fail`;
//! - `locations`: the allocation site, with the enclosing function as a logical location; regions
//!   end where the call at the location ends (`endLine`/`endColumn`, read from the source: see
//!   `span::call_end`), and have a start only when that cannot be read;
//! - `relatedLocations`: the frees and the loss point (notes of kind free/lost), ids 1, 2, … in
//!   path order, then any other location of the path the message names;
//! - `message`: `file:line` references to the path's locations become embedded links to those
//!   related locations, with the path relative to the source root (see [`linked_message`]);
//! - `codeFlows`: one thread flow visiting every note of the path in order. `kinds` use the
//!   spec's well-known values (§3.38.8): alloc → `acquire`+`memory`, free → `release`+`memory`,
//!   branch → `branch`, lost → `danger`+`memory` (the point where the leak happens; it is not
//!   always a scope exit, the reference may be overwritten), info → no kinds;
//! - `partialFingerprints`: drip's own (`dripFingerprint/v2`) and `primaryLocationLineHash`,
//!   which code scanning matches alerts on, both from `report::fingerprint`;
//! - `properties.category`: the `Category` id.
//!
//! `invocations[0]`: whether the run lost work (`executionSuccessful`), its notifications, and,
//! when `ToolInfo::invocation` is given, the command line, working directory and start and end
//! times: the only parts of the log that depend on how and when drip ran.
//!
//! Paths: a relative `SrcLoc.file` is relative to the current directory (diag.rs). It is made
//! absolute against it, then expressed relative to `ToolInfo::root` with `uriBaseId` `%SRCROOT%`
//! when below the root, else as an absolute `file://` URI. `..` is resolved lexically; if that
//! finds the file outside the root, symlinks are resolved (when both exist) before giving up, so a
//! root reached through a symlink still works. URIs percent-encode every byte except ASCII
//! letters, digits, `-._~` and `/` (and `:` in absolute URIs, for Windows drive letters).
//!
//! Columns: SARIF only knows `utf16CodeUnits` and `unicodeCodePoints`, clang gives bytes. We
//! declare `unicodeCodePoints` and convert by reading the source line; when the file cannot be
//! read, the byte column is kept, which is still exact for ASCII lines (nearly all C code).

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use serde_json::{json, Map, Value};

use super::fingerprint::{self, Fingerprint};
use super::{span, NotificationLevel, SourceCache, ToolInfo};
use crate::checkers::Policy;
use crate::diag::{Diagnostic, Note, NoteKind, Rule, SrcLoc};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const SRCROOT: &str = "%SRCROOT%";

/// `tool.driver.rules`, in `ruleIndex` order.
const RULES: [Rule; 5] = Rule::ALL;

/// Writes one SARIF log for `diags`, whose fingerprints (`report::fingerprint::compute`, over
/// the whole run's findings, so that leaving some out changes no other's) are `fingerprints`.
/// Fails only if `out` does.
pub fn render_sarif(
    diags: &[Diagnostic],
    fingerprints: &[Fingerprint],
    tool: &ToolInfo,
    out: &mut dyn Write,
) -> io::Result<()> {
    // Without a current directory relative paths can only be guessed; the root is the best guess.
    let cwd = std::env::current_dir().unwrap_or_else(|_| tool.root.clone());
    let log = build_log(diags, fingerprints, tool, &cwd);
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

/// The whole log as a JSON value; `cwd` is explicit so tests do not depend on the process's.
fn build_log(diags: &[Diagnostic], fingerprints: &[Fingerprint], tool: &ToolInfo, cwd: &Path) -> Value {
    assert_eq!(diags.len(), fingerprints.len(), "one fingerprint per finding");
    let mut files = Files::new(&normalize(&cwd.join(&tool.root)), cwd);
    let results: Vec<Value> = diags.iter().zip(fingerprints).map(|(d, fp)| result(d, &mut files, fp)).collect();
    // Every file drip reports on was parsed as part of a C translation unit, headers included.
    let artifacts: Vec<Value> =
        files.list.iter().map(|a| json!({ "location": a.uri_json(None), "sourceLanguage": "c" })).collect();
    // The run's own problems: execution failed if part of the input was not analysed.
    let notifications: Vec<Value> = tool
        .notifications
        .iter()
        .map(|n| {
            let level = match n.level {
                NotificationLevel::Error => "error",
                NotificationLevel::Warning => "warning",
            };
            json!({ "level": level, "message": { "text": n.message }, "descriptor": { "id": n.id } })
        })
        .collect();
    let successful = !tool.notifications.iter().any(|n| n.level == NotificationLevel::Error);
    let mut invocation = json!({
        "executionSuccessful": successful,
        "toolExecutionNotifications": notifications,
    });
    if !tool.disabled_rules.is_empty() {
        let overrides: Vec<Value> = tool
            .disabled_rules
            .iter()
            .map(|r| {
                let index = RULES.iter().position(|x| x == r).unwrap_or(0);
                json!({
                    "descriptor": { "id": r.id(), "index": index },
                    "configuration": { "enabled": false },
                })
            })
            .collect();
        invocation["ruleConfigurationOverrides"] = overrides.into();
    }
    if let Some(run) = &tool.invocation {
        invocation["commandLine"] = shell_words::join(&run.arguments).into();
        invocation["workingDirectory"] = json!({ "uri": directory_uri(&normalize(&cwd.join(&run.working_directory))) });
        invocation["startTimeUtc"] = humantime::format_rfc3339_millis(run.start).to_string().into();
        invocation["endTimeUtc"] = humantime::format_rfc3339_millis(run.end).to_string().into();
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "drip",
                "version": tool.version,
                "rules": RULES.iter().map(|&r| rule_descriptor(r)).collect::<Vec<_>>(),
            }},
            "invocations": [invocation],
            "originalUriBaseIds": { SRCROOT: { "uri": directory_uri(&files.root) } },
            "artifacts": artifacts,
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// The level a finding of `rule` has: a double free corrupts the allocator's state, a leak
/// wastes memory.
fn rule_level(rule: Rule) -> &'static str {
    match rule {
        Rule::Leak | Rule::LeakOnReallocFailure | Rule::LeakGlobal => "warning",
        Rule::DoubleFree | Rule::MismatchedDeallocation => "error",
    }
}

fn rule_descriptor(rule: Rule) -> Value {
    let (name, short, full, help, cwe) = match rule {
        Rule::Leak => (
            "MemoryLeak",
            "Memory leak",
            "Memory obtained from an allocator becomes unreachable on some path without being \
             freed, returned to the caller or stored where other code can reach it.",
            "Free the memory on every path that abandons it, error paths included, or hand its \
             ownership on (return it, or store it in a structure that is freed later). The code \
             flow shows the allocation, the branches taken and the point where the last \
             reference to the memory is lost.",
            "external/cwe/cwe-401",
        ),
        Rule::LeakOnReallocFailure => (
            "MemoryLeakOnReallocFailure",
            "Memory leak when realloc fails",
            "The result of a realloc-like call is assigned to the only pointer to the block it \
             resizes. When the call fails it returns NULL and leaves the old block allocated, \
             and the assignment loses the last reference to it.",
            "Assign the result to a temporary, and on failure free (or keep using) the old \
             block before replacing the pointer. The code flow shows the allocation of the old \
             block and the failing call whose NULL result overwrites the pointer.",
            "external/cwe/cwe-401",
        ),
        Rule::DoubleFree => (
            "DoubleFree",
            "Double free",
            "The same allocation is freed twice on some path. Freeing memory that is already \
             free is undefined behavior and typically corrupts the allocator's state.",
            "Make every path free the memory exactly once, for example by setting the pointer \
             to NULL after freeing it or by moving the cleanup to a single exit. The code flow \
             shows the allocation, the branches taken and both frees.",
            "external/cwe/cwe-415",
        ),
        Rule::MismatchedDeallocation => (
            "MismatchedDeallocation",
            "Mismatched memory management routines",
            "Memory is released by a deallocator of another family than the allocator that \
             obtained it: memory from new[] released by delete, from new by delete[] or free, \
             from malloc, calloc, realloc or strdup by delete, or from new passed to realloc. \
             The behavior is undefined: destructors are skipped or run on garbage, and the \
             allocator's state may be corrupted.",
            "Release memory with the deallocator of its allocator: delete for new, delete[] for \
             new[], free for the C allocator (through the program's wrappers too). The code \
             flow shows the allocation, the branches taken and the mismatched release.",
            "external/cwe/cwe-762",
        ),
        Rule::LeakGlobal => (
            "MemoryLeakGlobal",
            "Memory kept in a global and never freed",
            "Memory obtained from an allocator is stored into a global variable (or a static, or \
             a field of a global struct), and no function of the program ever frees a value \
             loaded from that global or hands it on: the memory stays allocated until the \
             process exits (\"still reachable\").",
            "Free the global's memory in a cleanup function, or switch this rule off \
             (--disable leak-global) if the program keeps such memory until exit on purpose. \
             The code flow shows the allocation and the store into the global.",
            "external/cwe/cwe-401",
        ),
    };
    // code scanning's scale: security-severity above 7.0 is "high", 4.0 to 6.9 "medium", below
    // that "low". A double free can be turned into a write through a corrupted free list (high);
    // a leak costs memory, and most drip finds are on error paths that run rarely (low).
    // Precision: on large real code most reports of either rule are still false positives of a
    // few known shapes (bench/README.md, "Findings"), so neither is `high` or `very-high`.
    let (security_severity, precision, cwe_number, example) = match rule {
        Rule::Leak => ("3.0", "medium", 401, LEAK_EXAMPLE),
        // Its shape is the bug itself, so precision is high; the cost is a leak's, on a path that
        // runs only when memory runs out.
        Rule::LeakOnReallocFailure => ("3.0", "high", 401, REALLOC_EXAMPLE),
        Rule::DoubleFree => ("7.5", "medium", 415, DOUBLE_FREE_EXAMPLE),
        // Both ends are known calls of known families, so precision is high; the damage is a
        // corrupted heap, as for a double free.
        Rule::MismatchedDeallocation => ("7.5", "high", 762, MISMATCH_EXAMPLE),
        // Memory kept until exit costs the least of any leak.
        Rule::LeakGlobal => ("2.0", "medium", 401, GLOBAL_EXAMPLE),
    };
    let (language, reported) =
        if rule == Rule::MismatchedDeallocation { ("cpp", "deallocation's") } else { ("c", "allocation's") };
    let cwe_uri = format!("https://cwe.mitre.org/data/definitions/{cwe_number}.html");
    let markdown = format!(
        "# {short}\n\n{full}\n\n{help}\n\n## Example\n\n```{language}\n{example}```\n\n\
         To silence a report that is wrong, put `// drip: ignore[{id}] -- reason` on the \
         {reported} line or the line before it.\n\n\
         See [CWE-{cwe_number}]({cwe_uri}).\n",
        id = rule.id()
    );
    json!({
        "id": rule.id(),
        "name": name,
        "shortDescription": { "text": short },
        "fullDescription": { "text": full },
        "defaultConfiguration": { "level": rule_level(rule) },
        "helpUri": cwe_uri,
        "help": { "text": help, "markdown": markdown },
        "properties": {
            "precision": precision,
            "problem.severity": rule_level(rule),
            "security-severity": security_severity,
            "tags": ["security", "memory", cwe],
        },
    })
}

/// The examples of `help.markdown`.
const GLOBAL_EXAMPLE: &str = "\
static char *home;
void init(void) {
    home = strdup(getenv(\"HOME\"));   /* never freed by any function */
}
const char *home_dir(void) {
    return home;                      /* returned: another file may free it (no report) */
}
";
const LEAK_EXAMPLE: &str = "\
char *copy_name(const char *name) {
    char *buf = malloc(strlen(name) + 1);
    if (!buf)
        return NULL;
    if (!valid(name))
        return NULL;      /* leak: buf is lost; free(buf) first */
    return strcpy(buf, name);
}
";
const REALLOC_EXAMPLE: &str = "\
int grow(struct vec *v, size_t cap) {
    v->items = realloc(v->items, cap * sizeof *v->items);
    if (!v->items)        /* leak: the old v->items is lost when realloc fails */
        return -1;        /* use: void *tmp = realloc(...); if (!tmp) return -1; v->items = tmp; */
    v->cap = cap;
    return 0;
}
";
const DOUBLE_FREE_EXAMPLE: &str = "\
void reset(struct conn *c) {
    free(c->buf);         /* c->buf still points to the freed memory */
    if (c->error)
        free(c->buf);     /* double free: set c->buf = NULL after the first free */
}
";

const MISMATCH_EXAMPLE: &str = "\
void fill(size_t n) {
    int *v = new int[n];
    char *name = (char *)malloc(16);
    use(v, name);
    delete v;             /* mismatch: memory from new[] is released by delete[] */
    delete name;          /* mismatch: memory from malloc is released by free */
}
";

fn result(d: &Diagnostic, files: &mut Files, fp: &Fingerprint) -> Value {
    let rule_index = RULES.iter().position(|&r| r == d.rule).expect("every rule is in RULES");
    let mut result = json!({
        "ruleId": d.rule.id(),
        "ruleIndex": rule_index,
        "level": rule_level(d.rule),
        "message": { "text": d.message },
        "locations": [{
            "physicalLocation": files.physical(&d.loc),
            "logicalLocations": [{ "name": d.function, "kind": "function" }],
        }],
        "partialFingerprints": {
            fingerprint::KEY: fp.drip,
            fingerprint::LINE_HASH_KEY: fp.line_hash,
        },
        "properties": { "category": d.category.id() },
    });
    let obj = result.as_object_mut().expect("built as an object");
    // A site only `--all-categories` lists: information about the program, not a finding.
    if d.rule.is_leak() && !(Policy { all_categories: false }).reports(d.category) {
        obj.insert("kind".into(), "informational".into());
        obj.insert("level".into(), "none".into());
    }

    let mut related: Vec<&Note> = d.path.iter().filter(|n| matches!(n.kind, NoteKind::Free | NoteKind::Lost)).collect();
    let text = linked_message(d, files, &mut related);
    obj.insert("message".into(), json!({ "text": text }));
    let related: Vec<Value> = related
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            json!({
                "id": i + 1,
                "physicalLocation": files.physical(&n.loc),
                "message": { "text": n.message },
            })
        })
        .collect();
    if !related.is_empty() {
        obj.insert("relatedLocations".into(), related.into());
    }
    // Silenced in the source or by .drip.toml: still a result, as code scanning expects, marked as such.
    if let Some(s) = &d.suppression {
        let kind = match s.kind {
            crate::diag::SuppressionKind::InSource => "inSource",
            crate::diag::SuppressionKind::External => "external",
        };
        let mut sup = json!({ "kind": kind });
        if let Some(j) = &s.justification {
            sup["justification"] = j.clone().into();
        }
        obj.insert("suppressions".into(), json!([sup]));
    }

    // The schema requires at least one location per thread flow, so no path, no code flow.
    if !d.path.is_empty() {
        let steps: Vec<Value> = d
            .path
            .iter()
            .map(|n| {
                let mut step = Map::new();
                step.insert(
                    "location".into(),
                    json!({
                        "physicalLocation": files.physical(&n.loc),
                        "message": { "text": n.message },
                    }),
                );
                let kinds: &[&str] = match n.kind {
                    NoteKind::Alloc => &["acquire", "memory"],
                    NoteKind::Free => &["release", "memory"],
                    NoteKind::Branch => &["branch"],
                    NoteKind::Lost => &["danger", "memory"],
                };
                step.insert("kinds".into(), json!(kinds));
                Value::Object(step)
            })
            .collect();
        obj.insert("codeFlows".into(), json!([{ "threadFlows": [{ "locations": steps }] }]));
    }
    result
}

/// The message with every `file:line` it names (`checkers` writes the file's name without its
/// directory) that is a location of the path turned into an embedded link, `[src/a.c:8](2)`,
/// to that location in `relatedLocations` (appended to `related` if not there yet); the link text
/// names the file relative to the source root. A reference to another line of the finding's own
/// file gets that path without a link. Brackets that are not links are escaped, as SARIF
/// (§3.11.6) requires of message text that has links.
fn linked_message<'a>(d: &'a Diagnostic, files: &Files, related: &mut Vec<&'a Note>) -> String {
    let base = |file: &str| Path::new(file).file_name().map(|n| n.to_string_lossy().into_owned());
    let msg = d.message.as_str();
    // (start, end, replacement) of every reference, in message order.
    let mut refs: Vec<(usize, usize, String)> = Vec::new();
    let candidates: Vec<(String, &'a Note)> =
        d.path.iter().filter_map(|n| Some((format!("{}:{}", base(&n.loc.file)?, n.loc.line), n))).collect();
    let own = base(&d.loc.file);
    for (at, _) in msg.match_indices(':') {
        // The name before the colon and the number after it, as whole tokens.
        let name_start = msg[..at]
            .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+')))
            .map_or(0, |i| i + 1);
        let digits = msg[at + 1..].find(|c: char| !c.is_ascii_digit()).unwrap_or(msg.len() - at - 1);
        if name_start == at || digits == 0 || msg[..name_start].ends_with('/') {
            continue;
        }
        let end = at + 1 + digits;
        let token = &msg[name_start..end];
        let Ok(line) = msg[at + 1..end].parse::<u32>() else { continue };
        let note = candidates.iter().find(|c| c.0 == token).map(|c| c.1);
        let replacement = match note {
            Some(n) => {
                let id = match related.iter().position(|r| std::ptr::eq(*r, n)) {
                    Some(i) => i + 1,
                    None => {
                        related.push(n);
                        related.len()
                    }
                };
                format!("[{}:{line}]({id})", files.key(&n.loc.file))
            }
            None if own.as_deref() == Some(&msg[name_start..at]) => format!("{}:{line}", files.key(&d.loc.file)),
            None => continue,
        };
        refs.push((name_start, end, replacement));
    }
    let escape = |s: &str| s.replace('[', "\\[").replace(']', "\\]");
    let mut out = String::with_capacity(msg.len() + 16);
    let mut done = 0;
    for (start, end, replacement) in refs {
        out.push_str(&escape(&msg[done..start]));
        out.push_str(&replacement);
        done = end;
    }
    out.push_str(&escape(&msg[done..]));
    out
}

/// How a file is named in fingerprints: '/'-separated, relative to `root` when below it, else
/// absolute; `root` and a relative `file` are taken relative to `cwd`. The same key `Files`
/// gives an artifact.
pub(super) fn file_key(root: &Path, cwd: &Path, file: &str) -> String {
    let abs = normalize(&cwd.join(file));
    match relative_to(&normalize(&cwd.join(root)), &abs) {
        Some(rel) => slash_path(&rel),
        None => slash_path(&abs),
    }
}

/// One entry of `run.artifacts`: a distinct file, in order of first mention.
struct Artifact {
    index: usize,
    /// Percent-encoded; relative to `%SRCROOT%` when `under_root`, else absolute `file://`.
    uri: String,
    under_root: bool,
    /// Where to read the file for column conversion.
    abs: PathBuf,
}

impl Artifact {
    /// An `artifactLocation`, with the index into `run.artifacts` when given.
    fn uri_json(&self, index: Option<usize>) -> Value {
        let mut loc = Map::new();
        loc.insert("uri".into(), self.uri.clone().into());
        if self.under_root {
            loc.insert("uriBaseId".into(), SRCROOT.into());
        }
        if let Some(index) = index {
            loc.insert("index".into(), index.into());
        }
        Value::Object(loc)
    }
}

/// Resolves `SrcLoc.file` names to artifacts (each once) and reads lines for column conversion.
struct Files {
    /// Absolute, lexically normalized.
    root: PathBuf,
    cwd: PathBuf,
    by_name: HashMap<String, usize>,
    list: Vec<Artifact>,
    sources: SourceCache,
}

impl Files {
    fn new(root: &Path, cwd: &Path) -> Files {
        Files {
            root: root.to_path_buf(),
            cwd: cwd.to_path_buf(),
            by_name: HashMap::new(),
            list: Vec::new(),
            sources: SourceCache::default(),
        }
    }

    /// `file`'s path relative to the root when below it, else absolute ('/'-separated).
    fn key(&self, file: &str) -> String {
        file_key(&self.root, &self.cwd, file)
    }

    fn artifact(&mut self, file: &str) -> &Artifact {
        if let Some(&i) = self.by_name.get(file) {
            return &self.list[i];
        }
        let abs = normalize(&self.cwd.join(file));
        let index = self.list.len();
        let artifact = match relative_to(&self.root, &abs) {
            Some(rel) => {
                let key = slash_path(&rel);
                Artifact { index, uri: percent_encode(&key, false), under_root: true, abs }
            }
            None => {
                let key = slash_path(&abs);
                Artifact { index, uri: file_uri(&key), under_root: false, abs }
            }
        };
        self.by_name.insert(file.to_string(), index);
        self.list.push(artifact);
        &self.list[index]
    }

    /// A `physicalLocation` for `loc`; the region is left out when the line is unknown (0), the
    /// column when the column is.
    fn physical(&mut self, loc: &SrcLoc) -> Value {
        let artifact = self.artifact(&loc.file);
        let artifact_location = artifact.uri_json(Some(artifact.index));
        let abs = artifact.abs.clone();
        let mut physical = Map::new();
        physical.insert("artifactLocation".into(), artifact_location);
        if loc.line != 0 {
            let mut region = Map::new();
            region.insert("startLine".into(), loc.line.into());
            if loc.col != 0 {
                let col = match self.sources.line(&abs, loc.line) {
                    Some(text) => code_point_column(text, loc.col),
                    None => loc.col,
                };
                region.insert("startColumn".into(), col.into());
                let end = self.sources.file(&abs).and_then(|(content, starts)| {
                    span::call_end(|l| crate::lines::line(content, starts, l), loc.line, loc.col)
                });
                if let Some((end_line, end_col)) = end {
                    let text = self.sources.line(&abs, end_line).unwrap_or_default();
                    region.insert("endLine".into(), end_line.into());
                    region.insert("endColumn".into(), code_point_column(text, end_col).into());
                }
            }
            physical.insert("region".into(), Value::Object(region));
        }
        Value::Object(physical)
    }
}

/// 1-based code-point column of 1-based byte column `col` in `line`: one plus the number of
/// characters before the byte. Counting the bytes that do not continue a UTF-8 sequence is exact
/// for valid UTF-8 and degrades gracefully otherwise. Past the end, each missing byte counts one.
fn code_point_column(line: &[u8], col: u32) -> u32 {
    let before = (col as usize).saturating_sub(1);
    let in_line = before.min(line.len());
    let chars = line[..in_line].iter().filter(|&&b| !(0x80..0xC0).contains(&b)).count();
    (chars + (before - in_line) + 1) as u32
}

/// `path` relative to `root` (both absolute), or `None` when it is not below it.
fn relative_to(root: &Path, path: &Path) -> Option<PathBuf> {
    let below = |root: &Path, path: &Path| {
        path.strip_prefix(root).ok().filter(|r| !r.as_os_str().is_empty()).map(Path::to_path_buf)
    };
    below(root, path).or_else(|| {
        let (root, path) = (fs::canonicalize(root).ok()?, fs::canonicalize(path).ok()?);
        below(&root, &path)
    })
}

/// Drops `.` and resolves `..` without touching the file system (a file may no longer exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // "/.." is "/".
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The path with '/' separators, as URIs need. Non-UTF-8 names are converted lossily.
fn slash_path(path: &Path) -> String {
    let s = path.to_string_lossy();
    if cfg!(windows) {
        s.replace('\\', "/")
    } else {
        s.into_owned()
    }
}

/// `file://` URI of an absolute '/'-separated path (`C:/x` on Windows becomes `file:///C:/x`).
fn file_uri(abs: &str) -> String {
    let sep = if abs.starts_with('/') { "" } else { "/" };
    format!("file://{sep}{}", percent_encode(abs, true))
}

/// `file://` URI of a directory; it must end in '/' to serve as a base for relative URIs.
fn directory_uri(dir: &Path) -> String {
    let uri = file_uri(&slash_path(dir));
    if uri.ends_with('/') {
        uri
    } else {
        uri + "/"
    }
}

/// Percent-encodes everything but unreserved characters and '/'. A ':' is legal in the path of
/// an absolute URI but would make the first segment of a relative one look like a scheme, so it
/// is kept only when `absolute`.
fn percent_encode(path: &str, absolute: bool) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        let keep =
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') || (absolute && b == b':');
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;
    use std::collections::HashSet;

    const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

    /// Renders through the public function's code path with a fixed current directory.
    fn sarif(diags: &[Diagnostic], root: &str, cwd: &str) -> Value {
        let tool = tool(root);
        let fps = fingerprint::compute(diags, Path::new(root), Path::new(cwd));
        let log = build_log(diags, &fps, &tool, Path::new(cwd));
        // Round-trip through text, as consumers see it.
        serde_json::from_str(&serde_json::to_string_pretty(&log).unwrap()).unwrap()
    }

    fn tool(root: &str) -> ToolInfo {
        ToolInfo {
            disabled_rules: Vec::new(),
            version: "0.1.0".to_string(),
            root: PathBuf::from(root),
            notifications: Vec::new(),
            invocation: None,
        }
    }

    fn results(log: &Value) -> &Vec<Value> {
        log["runs"][0]["results"].as_array().unwrap()
    }

    #[test]
    fn public_function_writes_parseable_json() {
        let diags = fixtures::all();
        let cwd = std::env::current_dir().unwrap();
        let mut out = Vec::new();
        render_sarif(&diags, &fingerprint::compute(&diags, &cwd, &cwd), &tool("."), &mut out).unwrap();
        assert_eq!(out.last(), Some(&b'\n'));
        let log: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(results(&log).len(), 3);
    }

    #[test]
    fn log_structure() {
        let diags = fixtures::all();
        let log = sarif(&diags, MANIFEST, MANIFEST);
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(log["$schema"], SCHEMA);
        let runs = log["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run["columnKind"], "unicodeCodePoints");
        assert_eq!(run["originalUriBaseIds"][SRCROOT]["uri"], format!("file://{MANIFEST}/"));

        let driver = &run["tool"]["driver"];
        assert_eq!(driver["name"], "drip");
        assert_eq!(driver["version"], "0.1.0");
        assert!(driver.get("informationUri").is_none());
        let rules = driver["rules"].as_array().unwrap();
        let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["leak", "double-free", "leak-on-realloc-failure", "mismatched-deallocation", "leak-global"]);
        let expected = [
            ("warning", "cwe-401", "medium"),
            ("error", "cwe-415", "medium"),
            ("warning", "cwe-401", "high"),
            ("error", "cwe-762", "high"),
            ("warning", "cwe-401", "medium"),
        ];
        for (rule, (level, cwe, precision)) in rules.iter().zip(expected) {
            for field in ["shortDescription", "fullDescription", "help"] {
                assert!(!rule[field]["text"].as_str().unwrap().is_empty(), "{field}");
            }
            let markdown = rule["help"]["markdown"].as_str().unwrap();
            assert!(markdown.starts_with("# ") && markdown.contains("```c"), "{markdown}");
            assert_eq!(rule["defaultConfiguration"]["level"], level);
            assert!(rule["helpUri"].as_str().unwrap().starts_with("https://cwe.mitre.org/"));
            let props = &rule["properties"];
            assert_eq!(props["problem.severity"], level);
            let severity: f64 = props["security-severity"].as_str().unwrap().parse().unwrap();
            assert!((0.0..=10.0).contains(&severity));
            assert_eq!(props["precision"], precision);
            assert!(markdown.contains(&format!("drip: ignore[{}]", rule["id"].as_str().unwrap())), "{markdown}");
            let tags = props["tags"].as_array().unwrap();
            assert!(tags.contains(&json!("security")) && tags.contains(&json!(format!("external/cwe/{cwe}"))));
        }
        // No invocation details were given: none are made up.
        assert_eq!(run["invocations"], json!([{ "executionSuccessful": true, "toolExecutionNotifications": [] }]));

        // One artifact for the one file, referenced by index everywhere.
        assert_eq!(
            run["artifacts"],
            json!([{
                "location": { "uri": fixtures::FILE, "uriBaseId": SRCROOT },
                "sourceLanguage": "c",
            }])
        );

        let results = results(&log);
        assert_eq!(results.len(), diags.len());
        for (d, r) in diags.iter().zip(results) {
            assert_eq!(r["ruleId"], d.rule.id());
            let index = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], r["ruleId"], "ruleIndex points at ruleId");
            assert_eq!(r["level"], if d.rule.is_leak() { "warning" } else { "error" });
            assert!(r.get("kind").is_none(), "a finding is of the default kind, fail");
            assert_eq!(r["message"]["text"], d.message.as_str());
            assert_eq!(r["properties"]["category"], d.category.id());

            let primary = &r["locations"].as_array().unwrap()[..];
            assert_eq!(primary.len(), 1);
            let physical = &primary[0]["physicalLocation"];
            assert_eq!(
                physical["artifactLocation"],
                json!({ "uri": fixtures::FILE, "uriBaseId": SRCROOT, "index": 0 })
            );
            assert_eq!(physical["region"]["startLine"], d.loc.line);
            assert_eq!(primary[0]["logicalLocations"][0]["name"], d.function.as_str());

            // The thread flow visits every note, in order.
            let flows = r["codeFlows"].as_array().unwrap();
            assert_eq!(flows.len(), 1);
            let threads = flows[0]["threadFlows"].as_array().unwrap();
            assert_eq!(threads.len(), 1);
            let steps = threads[0]["locations"].as_array().unwrap();
            assert_eq!(steps.len(), d.path.len());
            for (note, step) in d.path.iter().zip(steps) {
                assert_eq!(step["location"]["message"]["text"], note.message.as_str());
                let region = &step["location"]["physicalLocation"]["region"];
                assert_eq!(region["startLine"], note.loc.line);
            }
            assert_eq!(steps[0]["kinds"], json!(["acquire", "memory"]));

            // Related locations: the frees and the loss point, with unique ids.
            let related = r["relatedLocations"].as_array().unwrap();
            let expected: Vec<&str> = d
                .path
                .iter()
                .filter(|n| matches!(n.kind, NoteKind::Free | NoteKind::Lost))
                .map(|n| n.message.as_str())
                .collect();
            let got: Vec<&str> = related.iter().map(|l| l["message"]["text"].as_str().unwrap()).collect();
            assert_eq!(got, expected);
            let ids: HashSet<u64> = related.iter().map(|l| l["id"].as_u64().unwrap()).collect();
            assert_eq!(ids.len(), related.len(), "relatedLocations ids are unique");

            let fp = r["partialFingerprints"][fingerprint::KEY].as_str().unwrap();
            assert_eq!(fp.len(), 16);
            assert!(fp.bytes().all(|b| b.is_ascii_hexdigit()));
            let line_hash = r["partialFingerprints"][fingerprint::LINE_HASH_KEY].as_str().unwrap();
            assert!(line_hash.ends_with(":1") && line_hash.len() == 18, "{line_hash}");
        }

        // Specific kinds and the double free's two frees.
        let leak_steps = &results[0]["codeFlows"][0]["threadFlows"][0]["locations"];
        assert_eq!(leak_steps[1]["kinds"], json!(["branch"]));
        assert_eq!(leak_steps[2]["kinds"], json!(["danger", "memory"]));
        let df_related = results[1]["relatedLocations"].as_array().unwrap();
        assert_eq!(df_related.len(), 2);
        assert_eq!(df_related[0]["physicalLocation"]["region"]["startLine"], 17);
        assert_eq!(df_related[1]["physicalLocation"]["region"]["startLine"], 18);
        assert_eq!(results[1]["codeFlows"][0]["threadFlows"][0]["locations"][2]["kinds"], json!(["release", "memory"]));
    }

    #[test]
    fn columns_are_code_points() {
        let log = sarif(&fixtures::all(), MANIFEST, MANIFEST);
        // "\tchar *t = /* é */ strdup(x);": byte 21, but 'é' is two bytes, so code point 20.
        // The call `strdup(x)` ends before byte 30, code point 29.
        let region = &results(&log)[2]["locations"][0]["physicalLocation"]["region"];
        assert_eq!(*region, json!({ "startLine": 22, "startColumn": 20, "endLine": 22, "endColumn": 29 }));
        // ASCII lines are unchanged: `malloc(n)` is columns 14 to 22.
        let region = &results(&log)[0]["locations"][0]["physicalLocation"]["region"];
        assert_eq!(*region, json!({ "startLine": 6, "startColumn": 14, "endLine": 6, "endColumn": 23 }));
        // A branch's condition is not a call: no end.
        let branch = &results(&log)[0]["codeFlows"][0]["threadFlows"][0]["locations"][1]["location"];
        assert_eq!(branch["physicalLocation"]["region"], json!({ "startLine": 8, "startColumn": 9 }));

        assert_eq!(code_point_column("a\u{e9}b".as_bytes(), 4), 3);
        assert_eq!(code_point_column(b"ab", 5), 5);
        assert_eq!(code_point_column(b"ab", 1), 1);
    }

    #[test]
    fn unreadable_file_keeps_byte_columns() {
        let mut d = fixtures::never_freed();
        d.loc.file = "gone/a.c".to_string();
        d.path.clear();
        let log = sarif(&[d], MANIFEST, MANIFEST);
        let r = &results(&log)[0];
        assert_eq!(r["locations"][0]["physicalLocation"]["region"], json!({ "startLine": 22, "startColumn": 21 }));
        // No path: no code flow (the schema wants at least one step) and no related locations.
        assert!(r.get("codeFlows").is_none());
        assert!(r.get("relatedLocations").is_none());
    }

    #[test]
    fn uris_inside_and_outside_the_root() {
        let mut inside_from_subdir = fixtures::never_freed();
        inside_from_subdir.loc.file = "report/a.c".to_string(); // cwd is <root>/tests
        let mut outside = fixtures::never_freed();
        outside.loc.file = "/tmp/my dir/b+c é.c".to_string();
        let mut dotdot = fixtures::never_freed();
        dotdot.loc.file = "../../elsewhere/./x.c".to_string();
        let mut spaced = fixtures::never_freed();
        spaced.loc.file = "sub dir/100%.c".to_string();
        let mut diags = [inside_from_subdir, outside, dotdot, spaced];
        for d in &mut diags {
            d.path.clear(); // only the primary locations matter here
        }

        let root = "/work/proj";
        let log = sarif(&diags, root, "/work/proj/tests");
        let uri = |i: usize| results(&log)[i]["locations"][0]["physicalLocation"]["artifactLocation"].clone();
        assert_eq!(uri(0), json!({ "uri": "tests/report/a.c", "uriBaseId": SRCROOT, "index": 0 }));
        assert_eq!(uri(1), json!({ "uri": "file:///tmp/my%20dir/b%2Bc%20%C3%A9.c", "index": 1 }));
        assert_eq!(uri(2), json!({ "uri": "file:///work/elsewhere/x.c", "index": 2 }));
        assert_eq!(uri(3), json!({ "uri": "tests/sub%20dir/100%25.c", "uriBaseId": SRCROOT, "index": 3 }));
        assert_eq!(log["runs"][0]["artifacts"].as_array().unwrap().len(), 4);

        // A relative root is relative to the current directory; a trailing slash is added once.
        let log = sarif(&diags[..1], "..", "/work/proj/tests");
        assert_eq!(log["runs"][0]["originalUriBaseIds"][SRCROOT]["uri"], "file:///work/proj/");
        let log = sarif(&diags[..1], "/", "/work/proj/tests");
        assert_eq!(log["runs"][0]["originalUriBaseIds"][SRCROOT]["uri"], "file:///");
        assert_eq!(
            results(&log)[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "work/proj/tests/report/a.c"
        );
    }

    #[test]
    fn fingerprints_are_the_given_ones_under_both_keys() {
        let diags = fixtures::all();
        let fps: Vec<Fingerprint> = (0..diags.len())
            .map(|i| Fingerprint { drip: format!("{i:016x}"), line_hash: format!("{:016x}:1", i + 100) })
            .collect();
        let log = build_log(&diags, &fps, &tool(MANIFEST), Path::new(MANIFEST));
        for (r, fp) in results(&log).iter().zip(&fps) {
            assert_eq!(
                r["partialFingerprints"],
                json!({ fingerprint::KEY: fp.drip, fingerprint::LINE_HASH_KEY: fp.line_hash })
            );
        }
    }

    #[test]
    fn sites_that_are_not_findings_are_informational() {
        let mut listed = fixtures::never_freed();
        listed.category = crate::diag::Category::NeverFreedMain;
        let mut over = fixtures::conditional_leak();
        over.category = crate::diag::Category::OverBudget;
        // A double free is a finding whatever its site's leak category.
        let mut df = fixtures::double_free();
        df.category = crate::diag::Category::FreedAlways;
        let log = sarif(&[listed, over, df], MANIFEST, MANIFEST);
        let r = results(&log);
        for informational in &r[..2] {
            assert_eq!(informational["kind"], "informational");
            assert_eq!(informational["level"], "none", "SARIF allows only none beside a kind other than fail");
        }
        assert!(r[2].get("kind").is_none());
        assert_eq!(r[2]["level"], "error");
    }

    #[test]
    fn messages_link_the_locations_they_name() {
        let mut d = fixtures::conditional_leak();
        d.message = "leaks when 'buf[0] == 0' at a.c:8 is taken (a.c:9, a.c:12, b.c:3, xa.c:8, a.c:8)".to_string();
        let log = sarif(&[d], MANIFEST, MANIFEST);
        let r = &results(&log)[0];
        // The loss point (line 9) is related location 1 already; the branch (line 8) is added
        // as 2 because the message names it; line 12 is no location of the path.
        assert_eq!(
            r["message"]["text"],
            "leaks when 'buf\\[0\\] == 0' at [tests/report/a.c:8](2) is taken ([tests/report/a.c:9](1), \
             tests/report/a.c:12, b.c:3, xa.c:8, [tests/report/a.c:8](2))"
        );
        let related = r["relatedLocations"].as_array().unwrap();
        assert_eq!(related.len(), 2);
        assert_eq!(related[1]["id"], 2);
        assert_eq!(related[1]["physicalLocation"]["region"]["startLine"], 8);
        assert_eq!(related[1]["message"]["text"], "branch 'q == NULL' is taken");
    }

    #[test]
    fn rules_switched_off_are_configuration_overrides() {
        let mut tool = tool("/nonexistent/root");
        tool.disabled_rules = vec![Rule::LeakOnReallocFailure];
        let log = build_log(&[], &[], &tool, Path::new("/nonexistent/cwd"));
        let inv = &log["runs"][0]["invocations"][0];
        let index = RULES.iter().position(|r| *r == Rule::LeakOnReallocFailure).unwrap();
        assert_eq!(
            inv["ruleConfigurationOverrides"],
            json!([{
                "descriptor": { "id": "leak-on-realloc-failure", "index": index },
                "configuration": { "enabled": false },
            }])
        );
        assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][index]["id"], "leak-on-realloc-failure");
        // All rules on: no overrides at all.
        let log = build_log(&[], &[], &self::tool("/nonexistent/root"), Path::new("/nonexistent/cwd"));
        assert!(log["runs"][0]["invocations"][0].get("ruleConfigurationOverrides").is_none());
    }

    #[test]
    fn invocation_says_how_and_when_drip_ran() {
        let mut tool = tool("/nonexistent/root");
        let start = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_764_000_000_123);
        tool.invocation = Some(super::super::Invocation {
            arguments: vec!["drip".into(), "check".into(), "-p".into(), "my build".into()],
            working_directory: PathBuf::from("sub dir"),
            start,
            end: start + std::time::Duration::from_millis(2_500),
        });
        let log = build_log(&[], &[], &tool, Path::new("/nonexistent/cwd"));
        assert_eq!(
            log["runs"][0]["invocations"],
            json!([{
                "executionSuccessful": true,
                "toolExecutionNotifications": [],
                "commandLine": "drip check -p 'my build'",
                "workingDirectory": { "uri": "file:///nonexistent/cwd/sub%20dir/" },
                "startTimeUtc": "2025-11-24T16:00:00.123Z",
                "endTimeUtc": "2025-11-24T16:00:02.623Z",
            }])
        );
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../a")), PathBuf::from("/a"));
        assert_eq!(normalize(Path::new("../a/../../b")), PathBuf::from("../../b"));
    }

    /// `tests/report/golden.sarif`: the fixtures rendered with a fictitious root, so the file is
    /// the same on every machine (no source is readable there, so columns stay bytes). It is the
    /// file that was checked against the OASIS schema. Regenerate with `DRIP_BLESS=1`.
    #[cfg(unix)]
    #[test]
    fn golden_log() {
        let mut diags = fixtures::all();
        let mut outside = fixtures::double_free();
        outside.loc.file = "/usr/include/my lib.h".to_string();
        for n in &mut outside.path {
            n.loc.file = outside.loc.file.clone();
        }
        diags.push(outside);
        let tool = ToolInfo {
            disabled_rules: Vec::new(),
            invocation: None,
            version: "0.1.0".to_string(),
            root: PathBuf::from("/nonexistent/drip-golden"),
            notifications: vec![
                super::super::Notification {
                    level: NotificationLevel::Error,
                    id: "tu-failed",
                    message: "src/broken.c: error: libclang could not parse this file (failure)".to_string(),
                },
                super::super::Notification {
                    level: NotificationLevel::Warning,
                    id: "time-budget",
                    message: "src/parse.c:40: parse_all ran out of the time budget (60000 ms)".to_string(),
                },
            ],
        };
        let cwd = Path::new("/nonexistent/drip-golden");
        let log = build_log(&diags, &fingerprint::compute(&diags, cwd, cwd), &tool, cwd);
        let text = serde_json::to_string_pretty(&log).unwrap() + "\n";
        let path = Path::new(MANIFEST).join("tests/report/golden.sarif");
        if std::env::var_os("DRIP_BLESS").is_some() {
            fs::write(&path, &text).unwrap();
        }
        let expected = fs::read_to_string(&path).expect("golden file; create it with DRIP_BLESS=1");
        assert_eq!(text, expected);
    }
}
