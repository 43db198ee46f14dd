//! End-to-end fixture tests: run `drip check` over `tests/fixtures/**/*.c` and `*.cpp` and
//! compare its JSON output with the `// expect:` annotations in the fixtures. C++ fixtures run
//! apart from the C ones (one database of their own), so adding them changes nothing for C.
//!
//! The fixture format (function naming, `// expect:`, `// FN:`/`// FP:`, the `// drip-flags:` and
//! `// drip-args:` headers, and the layout constraints of the function scanner) is described in
//! `tests/fixtures/README.md`. Set `DRIP_FIXTURES=<substring>` to run only the fixture files whose
//! name contains the substring.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const RULES: [&str; 5] = ["leak", "double-free", "leak-on-realloc-failure", "mismatched-deallocation", "leak-global"];

/// What a fixture function's name says about the diagnostics it should get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `*_bad`: at least one `// expect:`, and every expectation must be met.
    Bad,
    /// `*_ok`: no expectation, and no diagnostic at all.
    Ok,
    /// `FP_*`: no expectation; diagnostics here are known false positives.
    KnownFp,
    /// `FN_*`: expectations that drip may miss (known false negatives).
    KnownFn,
    /// `main`: behaves as `Bad` when it has expectations and as `Ok` otherwise.
    Main,
    /// Anything else: a helper, which must not allocate (so must get no diagnostic).
    Helper,
}

impl Kind {
    fn of(name: &str) -> Kind {
        if name == "main" {
            Kind::Main
        } else if name.starts_with("FP_") {
            Kind::KnownFp
        } else if name.starts_with("FN_") {
            Kind::KnownFn
        } else if name.ends_with("_bad") {
            Kind::Bad
        } else if name.ends_with("_ok") {
            Kind::Ok
        } else {
            Kind::Helper
        }
    }

    fn label(self) -> &'static str {
        match self {
            Kind::Bad => "_bad",
            Kind::Ok => "_ok",
            Kind::KnownFp => "FP_",
            Kind::KnownFn => "FN_",
            Kind::Main => "main",
            Kind::Helper => "helper",
        }
    }
}

#[derive(Debug, Clone)]
struct Func {
    name: String,
    kind: Kind,
    /// 1-based line of the definition's first line.
    start: u32,
    /// 1-based line of the closing `}` at column 0.
    end: u32,
    /// Text after `FN:` / `FP:` in the function or in the comment block right above it.
    reason: Option<String>,
    /// Lines carrying `// expect:` inside this function.
    expect_lines: Vec<u32>,
}

#[derive(Debug, Default)]
struct Fixture {
    /// Canonical absolute path (empty for inline fixtures in unit tests).
    path: PathBuf,
    /// File name relative to the fixtures directory, for reports.
    name: String,
    flags: Vec<String>,
    args: Vec<String>,
    funcs: Vec<Func>,
    /// line -> expected rules on that line.
    expects: BTreeMap<u32, BTreeSet<String>>,
    /// Structural problems found while scanning.
    errors: Vec<String>,
}

impl Fixture {
    fn func_at(&self, line: u32) -> Option<&Func> {
        self.funcs.iter().find(|f| f.start <= line && line <= f.end)
    }

    fn has_expectations(&self, f: &Func) -> bool {
        !f.expect_lines.is_empty()
    }
}

/// Removes `__attribute__((...))` groups so that `static __attribute__((cold)) int f(void)` still
/// yields `f` as the name.
fn strip_attributes(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(pos) = rest.find("__attribute__") {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + "__attribute__".len()..];
        let Some(open) = after.find('(') else {
            rest = after;
            continue;
        };
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// If `line` starts a function definition (see README: column 0, starts with a letter, contains
/// `NAME(`, does not end with `;`), returns NAME.
fn definition_name(line: &str) -> Option<String> {
    let first = line.chars().next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    let trimmed = line.trim_end();
    if trimmed.ends_with(';') || trimmed.starts_with("typedef") {
        return None;
    }
    let stripped = strip_attributes(trimmed);
    let paren = stripped.find('(')?;
    let before = stripped[..paren].trim_end();
    let ident_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
        .last()
        .map(|(i, _)| i)?;
    let name = &before[ident_start..];
    if name.is_empty() || name.chars().next().unwrap().is_ascii_digit() {
        return None;
    }
    const NOT_NAMES: [&str; 8] = ["if", "while", "for", "switch", "return", "sizeof", "do", "else"];
    if NOT_NAMES.contains(&name) {
        return None;
    }
    Some(name.to_string())
}

/// Parses the rules of a `// expect: leak, double-free` comment on `line`, if any.
fn parse_expect(line: &str) -> Option<Result<BTreeSet<String>, String>> {
    let pos = line.find("// expect:")?;
    let rest = &line[pos + "// expect:".len()..];
    let mut rules = BTreeSet::new();
    for tok in rest.split(',') {
        let tok = tok.trim();
        if tok.is_empty() {
            continue;
        }
        if !RULES.contains(&tok) {
            return Some(Err(format!("unknown rule `{tok}` (expected one of {RULES:?})")));
        }
        rules.insert(tok.to_string());
    }
    if rules.is_empty() {
        return Some(Err("empty `// expect:`".to_string()));
    }
    Some(Ok(rules))
}

/// Finds the text of a `// FN:` or `// FP:` (or `/* FN: ... */`) comment on a line.
fn parse_reason(line: &str, tag: &str) -> Option<String> {
    for opener in ["// ", "/* ", "//", "/*"] {
        let pat = format!("{opener}{tag}:");
        if let Some(pos) = line.find(&pat) {
            let text = line[pos + pat.len()..].trim().trim_end_matches("*/").trim();
            return Some(text.to_string());
        }
    }
    None
}

/// Scans one fixture's text: header lines, function definitions, expectations, reasons.
fn parse_fixture(name: &str, text: &str) -> Fixture {
    let lines: Vec<&str> = text.lines().collect();
    let mut fx = Fixture { name: name.to_string(), ..Fixture::default() };

    // Header: leading `// drip-flags:` / `// drip-args:` lines.
    for line in &lines {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("// drip-flags:") {
            fx.flags.extend(rest.split_whitespace().map(str::to_string));
        } else if let Some(rest) = t.strip_prefix("// drip-args:") {
            fx.args.extend(rest.split_whitespace().map(str::to_string));
        } else {
            break;
        }
    }
    for (i, line) in lines.iter().enumerate().skip(1) {
        if line.contains("// drip-flags:") || line.contains("// drip-args:") {
            let before_is_header =
                lines[..i].iter().all(|l| l.starts_with("// drip-flags:") || l.starts_with("// drip-args:"));
            if !before_is_header {
                fx.errors.push(format!("line {}: drip-flags/drip-args header must be at the top of the file", i + 1));
            }
        }
    }

    // Function definitions (skipping lines inside block comments).
    let mut in_comment = false;
    let mut open: Option<(String, u32)> = None;
    for (i, line) in lines.iter().enumerate() {
        let lno = i as u32 + 1;
        if in_comment {
            if line.contains("*/") {
                in_comment = false;
            }
            continue;
        }
        let t = line.trim_start();
        if t.starts_with("/*") && !t.contains("*/") {
            in_comment = true;
            continue;
        }
        if *line == "}" {
            if let Some((name, start)) = open.take() {
                fx.funcs.push(Func {
                    kind: Kind::of(&name),
                    name,
                    start,
                    end: lno,
                    reason: None,
                    expect_lines: Vec::new(),
                });
            }
            continue;
        }
        if let Some(name) = definition_name(line) {
            if let Some((prev, pstart)) = open.take() {
                fx.errors.push(format!(
                    "line {pstart}: `{prev}` has no closing `}}` alone at column 0 before the \
                     next definition `{name}` at line {lno} (multi-line prototype?)"
                ));
            }
            open = Some((name, lno));
        }
    }
    if let Some((name, start)) = open {
        fx.errors.push(format!("line {start}: `{name}` has no closing `}}` alone at column 0"));
    }

    // Expectations.
    for (i, line) in lines.iter().enumerate() {
        let lno = i as u32 + 1;
        match parse_expect(line) {
            None => {}
            Some(Err(e)) => fx.errors.push(format!("line {lno}: {e}")),
            Some(Ok(rules)) => {
                match fx.funcs.iter_mut().find(|f| f.start <= lno && lno <= f.end) {
                    Some(f) => f.expect_lines.push(lno),
                    None => fx.errors.push(format!("line {lno}: `// expect:` outside any function")),
                }
                fx.expects.insert(lno, rules);
            }
        }
    }

    // Reasons: inside the function, or in the comment block directly above it.
    for f in &mut fx.funcs {
        let tag = match f.kind {
            Kind::KnownFn => "FN",
            Kind::KnownFp => "FP",
            _ => continue,
        };
        let mut first = f.start as usize - 1; // 0-based index of the definition line
        while first > 0 {
            let t = lines[first - 1].trim_start();
            if t.starts_with("//") || t.starts_with("/*") || t.starts_with('*') {
                first -= 1;
            } else {
                break;
            }
        }
        f.reason = lines[first..f.end as usize].iter().find_map(|l| parse_reason(l, tag));
    }

    // Naming rules.
    for f in &fx.funcs {
        let has = !f.expect_lines.is_empty();
        let at = format!("line {}: `{}`", f.start, f.name);
        match f.kind {
            Kind::Bad if !has => fx.errors.push(format!("{at}: a _bad function needs an `// expect:`")),
            Kind::Ok if has => fx.errors.push(format!("{at}: an _ok function must not have `// expect:`")),
            Kind::KnownFp if has => fx.errors.push(format!("{at}: an FP_ function must not have `// expect:`")),
            Kind::KnownFp if f.reason.is_none() => {
                fx.errors.push(format!("{at}: an FP_ function needs a `// FP: <reason>` comment"))
            }
            Kind::KnownFn if !has => {
                fx.errors.push(format!("{at}: an FN_ function needs the `// expect:` drip should produce"))
            }
            Kind::KnownFn if f.reason.is_none() => {
                fx.errors.push(format!("{at}: an FN_ function needs a `// FN: <reason>` comment"))
            }
            Kind::Helper if has => fx
                .errors
                .push(format!("{at}: helper functions (neither _bad, _ok, FP_ nor FN_) must not carry expectations")),
            _ => {}
        }
    }
    fx
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures")
}

fn collect_c_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_c_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "c" || x == "cpp") {
            out.push(p);
        }
    }
}

fn load_fixtures() -> Vec<Fixture> {
    let dir = fixtures_dir().canonicalize().expect("tests/fixtures exists");
    let filter = std::env::var("DRIP_FIXTURES").ok();
    let mut files = Vec::new();
    collect_c_files(&dir, &mut files);
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let path = path.canonicalize().unwrap_or(path);
        let name = path.strip_prefix(&dir).unwrap_or(&path).display().to_string();
        if let Some(f) = &filter {
            if !name.contains(f.as_str()) {
                continue;
            }
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {name}: {e}"));
        let mut fx = parse_fixture(&name, &text);
        fx.path = path;
        out.push(fx);
    }
    out
}

/// One diagnostic as read back from drip's JSON.
#[derive(Debug, Clone)]
struct Diag {
    rule: String,
    category: String,
    file: String,
    line: u32,
    function: String,
    message: String,
}

impl Diag {
    fn short(&self) -> String {
        format!(
            "{}:{}: {} [{}] in `{}`: {}",
            self.file, self.line, self.rule, self.category, self.function, self.message
        )
    }
}

fn parse_diagnostics(stdout: &[u8]) -> Result<Vec<Diag>, String> {
    let v: Value = serde_json::from_slice(stdout).map_err(|e| {
        let head: String = String::from_utf8_lossy(stdout).chars().take(400).collect();
        format!("stdout is not JSON ({e}); it starts with: {head:?}")
    })?;
    let arr =
        v.get("diagnostics").and_then(Value::as_array).ok_or_else(|| "JSON has no `diagnostics` array".to_string())?;
    let mut out = Vec::new();
    for d in arr {
        // A finding silenced in the source (`drip: ignore`, `[[clang::suppress]]`) is not
        // reported: the function it is in reads as drip's user sees it.
        if d.get("suppression").is_some_and(|s| !s.is_null()) {
            continue;
        }
        let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
        let loc = d.get("loc");
        let line = loc.and_then(|l| l.get("line")).and_then(Value::as_u64);
        let Some(line) = line else {
            return Err(format!("diagnostic without loc.line: {d}"));
        };
        out.push(Diag {
            rule: s(d.get("rule")),
            category: s(d.get("category")),
            file: s(loc.and_then(|l| l.get("file"))),
            line: line as u32,
            function: s(d.get("function")),
            message: s(d.get("message")),
        });
    }
    Ok(out)
}

/// Resolves a diagnostic's file (relative to the fixtures dir, or absolute) to a fixture index.
fn resolve_file(fixtures: &[Fixture], dir: &Path, file: &str) -> Option<usize> {
    let p = Path::new(file);
    let joined = if p.is_absolute() { p.to_path_buf() } else { dir.join(p) };
    let canon = joined.canonicalize().unwrap_or(joined);
    if let Some(i) = fixtures.iter().position(|f| f.path == canon) {
        return Some(i);
    }
    // Fall back to a unique file-name match.
    let fname = canon.file_name()?;
    let mut hits = fixtures.iter().enumerate().filter(|(_, f)| f.path.file_name() == Some(fname));
    let first = hits.next()?;
    if hits.next().is_some() {
        return None;
    }
    Some(first.0)
}

#[derive(Default)]
struct Report {
    structure: Vec<String>,
    run_errors: Vec<String>,
    false_positives: Vec<String>,
    false_negatives: Vec<String>,
    bad_without_diag: Vec<String>,
    known_fp: Vec<String>,
    known_fn: Vec<String>,
    fixed: Vec<String>,
    notes: Vec<String>,
}

impl Report {
    fn failed(&self) -> bool {
        !(self.structure.is_empty()
            && self.run_errors.is_empty()
            && self.false_positives.is_empty()
            && self.false_negatives.is_empty()
            && self.bad_without_diag.is_empty())
    }

    fn render(&self) -> String {
        let mut s = String::new();
        let sections: [(&str, &Vec<String>); 9] = [
            ("fixture format errors", &self.structure),
            ("drip run errors", &self.run_errors),
            ("false positives (diagnostic without expectation, outside FP_)", &self.false_positives),
            ("false negatives (expectation without diagnostic, outside FN_)", &self.false_negatives),
            ("_bad functions with no diagnostic at all", &self.bad_without_diag),
            ("known FP (in FP_ functions)", &self.known_fp),
            ("known FN (in FN_ functions)", &self.known_fn),
            ("fixed FN/FP (now passes: rename the function)", &self.fixed),
            ("notes", &self.notes),
        ];
        for (title, items) in sections {
            let _ = writeln!(s, "== {title}: {}", items.len());
            for it in items {
                let _ = writeln!(s, "   {it}");
            }
        }
        s
    }
}

/// Compares one fixture's expectations with the diagnostics drip produced for it.
fn compare(fx: &Fixture, diags: &[Diag], report: &mut Report) {
    let mut actual: BTreeMap<(u32, String), Vec<&Diag>> = BTreeMap::new();
    for d in diags {
        actual.entry((d.line, d.rule.clone())).or_default().push(d);
    }
    let expected: BTreeSet<(u32, String)> =
        fx.expects.iter().flat_map(|(l, rules)| rules.iter().map(move |r| (*l, r.clone()))).collect();
    let where_ = |line: u32| match fx.func_at(line) {
        Some(f) => format!("{}:{} in {} `{}`", fx.name, line, f.kind.label(), f.name),
        None => format!("{}:{} outside any function", fx.name, line),
    };

    for (line, rule) in &expected {
        if actual.contains_key(&(*line, rule.clone())) {
            continue;
        }
        let msg = format!("{}: expected {rule}", where_(*line));
        match fx.func_at(*line).map(|f| f.kind) {
            Some(Kind::KnownFn) => {
                let reason = fx.func_at(*line).and_then(|f| f.reason.clone()).unwrap_or_default();
                report.known_fn.push(format!("{msg} (FN: {reason})"));
            }
            _ => report.false_negatives.push(msg),
        }
    }
    for ((line, rule), ds) in &actual {
        if expected.contains(&(*line, rule.clone())) {
            continue;
        }
        let detail = ds.iter().map(|d| d.short()).collect::<Vec<_>>().join("; ");
        let msg = format!("{}: unexpected {rule} ({detail})", where_(*line));
        match fx.func_at(*line).map(|f| f.kind) {
            Some(Kind::KnownFp) => {
                let reason = fx.func_at(*line).and_then(|f| f.reason.clone()).unwrap_or_default();
                report.known_fp.push(format!("{msg} (FP: {reason})"));
            }
            _ => report.false_positives.push(msg),
        }
    }
    for d in diags {
        if let Some(f) = fx.func_at(d.line) {
            // drip names a C++ function by its qualified name (`ns::Buf::init`), the scanner
            // by the name before the parenthesis.
            let last = d.function.rsplit("::").next().unwrap_or(&d.function);
            if !d.function.is_empty() && last != f.name {
                report.notes.push(format!(
                    "{}:{}: drip names the function `{}`, the scanner `{}`",
                    fx.name, d.line, d.function, f.name
                ));
            }
        }
    }

    for f in &fx.funcs {
        let in_f = |l: u32| f.start <= l && l <= f.end;
        let got: Vec<&Diag> = diags.iter().filter(|d| in_f(d.line)).collect();
        let must_report = f.kind == Kind::Bad || (f.kind == Kind::Main && fx.has_expectations(f));
        if must_report && got.is_empty() {
            report.bad_without_diag.push(format!("{}:{} `{}`", fx.name, f.start, f.name));
        }
        match f.kind {
            Kind::KnownFn => {
                let all_met =
                    f.expect_lines.iter().all(|l| fx.expects[l].iter().all(|r| actual.contains_key(&(*l, r.clone()))));
                let extra = got.iter().any(|d| !fx.expects.get(&d.line).is_some_and(|rules| rules.contains(&d.rule)));
                if all_met && !extra {
                    report.fixed.push(format!(
                        "{}:{} `{}`: every expectation is met, rename it to *_bad",
                        fx.name, f.start, f.name
                    ));
                }
            }
            Kind::KnownFp if got.is_empty() => report
                .fixed
                .push(format!("{}:{} `{}`: no diagnostic any more, rename it to *_ok", fx.name, f.start, f.name)),
            _ => {}
        }
    }
}

/// A project's `links.txt` (`NAME: FILE...` lines: the programs and their sources, or the
/// libraries of the project they link) as the `drip_links.json` that `drip capture` writes for
/// `cc -o NAME FILE...` (`cc -shared` for a NAME with `.so` in it); none without it.
fn write_links(dir: &Path, project: &Path) -> std::io::Result<()> {
    let out = dir.join("drip_links.json");
    let text = match std::fs::read_to_string(project.join("links.txt")) {
        Ok(t) => t,
        Err(_) => {
            let _ = std::fs::remove_file(&out);
            return Ok(());
        }
    };
    let records: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(name, files)| {
            // A source of the project, else another program's output (a library it links).
            let inputs: Vec<String> = files
                .split_whitespace()
                .map(|f| if project.join(f).exists() { project.join(f) } else { dir.join(f) }.display().to_string())
                .collect();
            let name = name.trim();
            let shared = name.ends_with(".so") || name.contains(".so.");
            serde_json::json!({
                "output": dir.join(name).display().to_string(),
                "kind": if shared { "shared-library" } else { "executable" },
                "directory": project.display().to_string(),
                "inputs": inputs,
            })
        })
        .collect();
    std::fs::write(out, serde_json::to_string_pretty(&records).expect("serialise"))
}

fn is_cpp(fx: &Fixture) -> bool {
    fx.name.ends_with(".cpp")
}

fn write_compile_commands(dir: &Path, fixtures_dir: &Path, group: &[&Fixture]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let entries: Vec<Value> = group
        .iter()
        .map(|fx| {
            let file = fx.path.display().to_string();
            let (cc, std) = if is_cpp(fx) { ("c++", "-std=gnu++17") } else { ("cc", "-std=gnu11") };
            let mut args = vec![cc.to_string(), std.to_string(), "-c".to_string(), file.clone()];
            args.extend(fx.flags.iter().cloned());
            serde_json::json!({
                "directory": fixtures_dir.display().to_string(),
                "file": file,
                "arguments": args,
            })
        })
        .collect();
    let text = serde_json::to_string_pretty(&Value::Array(entries)).expect("serialise");
    std::fs::write(dir.join("compile_commands.json"), text)
}

#[test]
fn fixtures() {
    let fixtures = load_fixtures();
    assert!(!fixtures.is_empty(), "no fixtures found (DRIP_FIXTURES filter too narrow?)");
    let dir = fixtures_dir().canonicalize().expect("fixtures dir");
    let mut report = Report::default();
    for fx in &fixtures {
        report.structure.extend(fx.errors.iter().map(|e| format!("{}: {e}", fx.name)));
    }

    // Group fixtures by (project, flags, args): one compile database and one drip run per group.
    // A project is a subdirectory (`tests/fixtures/projects/NAME/*.c`): its files form one
    // program of their own, linked across files, apart from every other fixture.
    let mut groups: BTreeMap<(String, Vec<String>, Vec<String>), Vec<usize>> = BTreeMap::new();
    for (i, fx) in fixtures.iter().enumerate() {
        let project = Path::new(&fx.name).parent().map(|p| p.display().to_string()).unwrap_or_default();
        // C++ fixtures outside a project form groups of their own.
        let project = if is_cpp(fx) && project.is_empty() { "(c++)".to_string() } else { project };
        groups.entry((project, fx.flags.clone(), fx.args.clone())).or_default().push(i);
    }

    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("drip-fixtures");
    let mut per_fixture: Vec<Vec<Diag>> = vec![Vec::new(); fixtures.len()];
    let mut ran_ok = vec![false; fixtures.len()];
    for (gi, ((project, _flags, args), members)) in groups.iter().enumerate() {
        let group: Vec<&Fixture> = members.iter().map(|&i| &fixtures[i]).collect();
        let names: Vec<&str> = group.iter().map(|f| f.name.as_str()).collect();
        let gdir = tmp.join(format!("group-{gi}"));
        if let Err(e) = write_compile_commands(&gdir, &dir, &group) {
            report.run_errors.push(format!("group {names:?}: writing compile_commands.json: {e}"));
            continue;
        }
        let project = if project == "(c++)" { "" } else { project.as_str() };
        if let Err(e) = write_links(&gdir, &dir.join(project)) {
            report.run_errors.push(format!("group {names:?}: writing drip_links.json: {e}"));
            continue;
        }
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_drip"));
        // The analysis itself is under test here, so nothing comes from the cache (tests/cache.rs
        // checks that cached results equal fresh ones).
        cmd.arg("check").arg("-p").arg(&gdir).args(["--format", "json", "--no-cache"]).args(args);
        // A project may declare its memory API (`.drip.toml` beside its files); every other
        // group runs with no configuration at all.
        let config = dir.join(project).join(".drip.toml");
        if !project.is_empty() && config.is_file() {
            cmd.arg("--config").arg(config);
        }
        cmd.current_dir(&dir);
        let out = match cmd.output() {
            Ok(o) => o,
            Err(e) => {
                report.run_errors.push(format!("group {names:?}: cannot run drip: {e}"));
                continue;
            }
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stderr_head: String = stderr.chars().take(2000).collect();
        match out.status.code() {
            Some(0) | Some(1) => {}
            Some(c) => {
                report
                    .run_errors
                    .push(format!("group {names:?}: `{cmd:?}` exited with code {c}; stderr:\n{stderr_head}"));
                continue;
            }
            None => {
                report
                    .run_errors
                    .push(format!("group {names:?}: `{cmd:?}` was killed by a signal; stderr:\n{stderr_head}"));
                continue;
            }
        }
        let diags = match parse_diagnostics(&out.stdout) {
            Ok(d) => d,
            Err(e) => {
                report.run_errors.push(format!("group {names:?}: {e}"));
                continue;
            }
        };
        for &i in members {
            ran_ok[i] = true;
        }
        for d in diags {
            match resolve_file(&fixtures, &dir, &d.file) {
                Some(i) if members.contains(&i) => per_fixture[i].push(d),
                _ => {
                    report.false_positives.push(format!("diagnostic outside the fixtures of its group: {}", d.short()))
                }
            }
        }
    }

    for (i, fx) in fixtures.iter().enumerate() {
        if ran_ok[i] {
            compare(fx, &per_fixture[i], &mut report);
        }
    }

    let text = report.render();
    println!("{text}");
    if report.failed() {
        panic!(
            "fixture test failed: {} format errors, {} run errors, {} false positives, \
             {} false negatives, {} _bad functions without diagnostics (report above)",
            report.structure.len(),
            report.run_errors.len(),
            report.false_positives.len(),
            report.false_negatives.len(),
            report.bad_without_diag.len()
        );
    }
}

/// The fixtures follow the format and are numerous enough, independently of the analyzer.
#[test]
fn fixtures_are_well_formed() {
    let fixtures = load_fixtures();
    let mut errors = Vec::new();
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for fx in &fixtures {
        errors.extend(fx.errors.iter().map(|e| format!("{}: {e}", fx.name)));
        for f in &fx.funcs {
            *counts.entry(f.kind.label()).or_default() += 1;
        }
    }
    println!("fixture functions by kind: {counts:?}");
    assert!(errors.is_empty(), "fixture format errors:\n{}", errors.join("\n"));
    if std::env::var("DRIP_FIXTURES").is_err() {
        let checked: usize = counts.iter().filter(|(k, _)| **k != "helper").map(|(_, n)| n).sum();
        assert!(checked >= 100, "expected at least 100 fixture functions, found {checked}");
    }
}

#[test]
fn harness_parses_expectations() {
    let src = r#"// drip-flags: -DFOO=1 -Iinclude
// drip-args: --all-categories
/* A comment that mentions f(x) and starts lines at column 0:
not_a_function(void)
*/
#include <stdlib.h>

int helper(int a);
typedef void (*cb_t)(int);
static __attribute__((noreturn)) void die_now(void)
{
    abort();
}

char *dup_bad(const char *s)
{
    char *p = malloc(4); // expect: leak
    if (!p)
        return 0;
    return s ? p : 0;
}

int twice_bad(void)
{
    char *p = malloc(1); // expect: leak, double-free
    free(p);
    free(p);
    return 0;
}

void fine_ok(void)
{
    free(malloc(1));
}

/* Known false negative. */
// FN: loops are bounded to one iteration
void FN_loop(int n)
{
    char *p = malloc(1); // expect: double-free
    for (int i = 0; i < n; i++)
        free(p);
}

int FP_flag(int c)
{
    // FP: flags are not tracked
    return c;
}

int main(void)
{
    char *keep = malloc(8);
    return keep != 0;
}
"#;
    let fx = parse_fixture("inline.c", src);
    assert!(fx.errors.is_empty(), "unexpected errors: {:?}", fx.errors);
    assert_eq!(fx.flags, vec!["-DFOO=1", "-Iinclude"]);
    assert_eq!(fx.args, vec!["--all-categories"]);

    let names: Vec<(&str, Kind)> = fx.funcs.iter().map(|f| (f.name.as_str(), f.kind)).collect();
    assert_eq!(
        names,
        vec![
            ("die_now", Kind::Helper),
            ("dup_bad", Kind::Bad),
            ("twice_bad", Kind::Bad),
            ("fine_ok", Kind::Ok),
            ("FN_loop", Kind::KnownFn),
            ("FP_flag", Kind::KnownFp),
            ("main", Kind::Main),
        ]
    );
    let dup = &fx.funcs[1];
    assert_eq!((dup.start, dup.end), (15, 21));
    assert_eq!(dup.expect_lines, vec![17]);
    let rules = |l: u32| fx.expects[&l].iter().cloned().collect::<Vec<_>>();
    assert_eq!(rules(17), vec!["leak"]);
    assert_eq!(rules(25), vec!["double-free", "leak"]);
    assert_eq!(fx.funcs[4].reason.as_deref(), Some("loops are bounded to one iteration"));
    assert_eq!(fx.funcs[5].reason.as_deref(), Some("flags are not tracked"));
    assert_eq!(fx.func_at(18).map(|f| f.name.as_str()), Some("dup_bad"));
    assert!(fx.func_at(14).is_none());

    // Matching: a diagnostic on an expected line passes, one in an _ok function is an FP, a
    // missing one in FN_ is known, and a met FN_ is reported as fixed.
    let d = |line: u32, rule: &str| Diag {
        rule: rule.to_string(),
        category: "never-freed-local".to_string(),
        file: "inline.c".to_string(),
        line,
        function: String::new(),
        message: String::new(),
    };
    let mut r = Report::default();
    compare(&fx, &[d(17, "leak"), d(25, "leak"), d(25, "double-free"), d(33, "leak")], &mut r);
    assert_eq!(r.false_positives.len(), 1, "{}", r.render());
    assert!(r.false_positives[0].contains("fine_ok"));
    assert!(r.false_negatives.is_empty(), "{}", r.render());
    assert_eq!(r.known_fn.len(), 1);
    assert_eq!(r.fixed.len(), 1, "the FP_ function without diagnostics is fixed: {}", r.render());
    assert!(r.failed());

    let mut r = Report::default();
    compare(&fx, &[d(17, "leak"), d(40, "double-free"), d(48, "leak")], &mut r);
    assert_eq!(r.false_negatives.len(), 2, "{}", r.render());
    assert_eq!(r.bad_without_diag.len(), 1, "{}", r.render());
    assert_eq!(r.known_fp.len(), 1, "{}", r.render());
    assert!(r.fixed.iter().any(|f| f.contains("FN_loop")), "{}", r.render());

    // Format errors are caught.
    let bad = parse_fixture(
        "broken.c",
        "void x_bad(void)\n{\n}\nvoid y_ok(void)\n{\n    int *p; // expect: leak\n}\n\
         void FN_z(void)\n{\n}\nint w_ok(int a,\n         int b);\nint v_ok(void)\n{\n    return 0;\n}\n\
         // expect: sparkle\n",
    );
    let joined = bad.errors.join("\n");
    assert!(joined.contains("`x_bad`: a _bad function needs"), "{joined}");
    assert!(joined.contains("`y_ok`: an _ok function must not"), "{joined}");
    assert!(joined.contains("`FN_z`: an FN_ function needs the"), "{joined}");
    assert!(joined.contains("`w_ok` has no closing"), "{joined}");
    assert!(joined.contains("unknown rule `sparkle`"), "{joined}");
}
