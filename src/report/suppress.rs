//! Suppressions: a `drip: ignore` comment at a finding's allocation, or a `[[suppress]]` entry of
//! `.drip.toml`, silences the finding.
//!
//! Input: the run's findings (sorted), the source files they name, and the `[[suppress]]` entries
//! (`FileRules`, parsed here from the tables `settings` reads). Output: the same findings, those a
//! suppression covers marked with their `Suppression`, and which suppressions matched (`Applied`),
//! from which `stale` lists those that match nothing.
//!
//! Comments (kind `inSource`): on the allocation's line or the line before it, in a `//` or `/* */`
//! comment: `drip: ignore` (every rule), `drip: ignore[leak]`, `drip: ignore[leak, double-free]`,
//! each with an optional reason after `--`.
//! Attributes (kind `inSource`, no justification): clang's `[[clang::suppress]]` on the statement
//! that holds the allocation or on one enclosing it (`report::attribute`); with string arguments,
//! only the rules they name. Unlike comments they are not listed as stale: the same attribute
//! silences clang's own analyser, so one that silences no drip finding may still be doing its
//! job.
//! Entries (kind `external`), for code the user cannot edit (generated or vendored): `rule` (a rule
//! id, or `"*"` for every rule) and `file` (a glob matched against the finding's path relative to
//! the directory holding `.drip.toml`, or against its absolute path when it is outside that
//! directory; `*` stays within one path component, `**` crosses them), and optionally `function`
//! (the function holding the allocation) and `reason`.
//! Invariant: a suppressed finding is never dropped — the text report leaves it out and the exit
//! code ignores it, but it is counted, and JSON and SARIF carry it with its kind and justification
//! (SARIF `suppressions`). A comment is tried before the entries, so a finding both cover carries
//! the comment's reason; an entry still counts as matching it.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use super::SourceCache;
use crate::diag::{Diagnostic, Rule, Suppression, SuppressionKind};

/// The `[[suppress]]` entries of one configuration file.
#[derive(Debug, Default)]
pub struct FileRules {
    pub entries: Vec<FileRule>,
    /// The directory the `file` patterns are relative to: the one holding the configuration file.
    pub base: PathBuf,
    /// The configuration file, for messages.
    pub origin: String,
}

#[derive(Debug)]
pub struct FileRule {
    /// `None`: every rule.
    pub rule: Option<Rule>,
    pub file: String,
    pattern: glob::Pattern,
    pub function: Option<String>,
    pub reason: Option<String>,
}

const KEYS: &str = "rule, file, function, reason";

impl FileRules {
    /// Add the entries of a `[[suppress]]` array. `origin` names the file for messages.
    pub fn add_entries(&mut self, entries: &[toml::Value], origin: &str) -> Result<(), String> {
        for (n, e) in entries.iter().enumerate() {
            let at = format!("{origin}: [[suppress]] entry {}", n + 1);
            let toml::Value::Table(t) = e else {
                return Err(format!("{at}: expected a table with {KEYS}"));
            };
            let text = |key: &str| -> Result<Option<String>, String> {
                match t.get(key) {
                    None => Ok(None),
                    Some(toml::Value::String(v)) if !v.is_empty() => Ok(Some(v.clone())),
                    Some(_) => Err(format!("{at}: '{key}' must be a non-empty string")),
                }
            };
            if let Some(k) = t.keys().find(|k| !KEYS.split(", ").any(|known| known == k.as_str())) {
                return Err(format!("{at}: unknown key '{k}' (known: {KEYS})"));
            }
            let rule =
                text("rule")?.ok_or_else(|| format!("{at}: missing 'rule' (a rule id, or \"*\" for every rule)"))?;
            let rule = match rule.as_str() {
                "*" => None,
                id => Some(Rule::ALL.into_iter().find(|r| r.id() == id).ok_or_else(|| {
                    let known: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
                    format!("{at}: unknown rule '{id}' (known: {}, or \"*\")", known.join(", "))
                })?),
            };
            let file = text("file")?.ok_or_else(|| format!("{at}: missing 'file' (a glob such as \"vendor/**\")"))?;
            let pattern = glob::Pattern::new(&file).map_err(|e| format!("{at}: 'file' is not a valid glob: {e}"))?;
            self.entries.push(FileRule { rule, file, pattern, function: text("function")?, reason: text("reason")? });
        }
        Ok(())
    }

    /// Does entry `r` cover finding `d`? `cwd`: what the finding's relative path is relative to.
    fn covers(&self, r: &FileRule, d: &Diagnostic, cwd: &Path) -> bool {
        if r.rule.is_some_and(|rule| rule != d.rule) || r.function.as_ref().is_some_and(|f| *f != d.function) {
            return false;
        }
        let path = normalize(&cwd.join(&d.loc.file));
        let opts = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        match path.strip_prefix(normalize(&self.base)) {
            Ok(rel) => r.pattern.matches_path_with(rel, opts),
            Err(_) => r.pattern.matches_path_with(&path, opts),
        }
    }

    fn describe(&self, i: usize) -> String {
        let r = &self.entries[i];
        let mut s = format!(
            "{}: [[suppress]] entry {} (rule = \"{}\", file = \"{}\"",
            self.origin,
            i + 1,
            r.rule.map_or("*", |r| r.id()),
            r.file
        );
        if let Some(f) = &r.function {
            s.push_str(&format!(", function = \"{f}\""));
        }
        s.push(')');
        s
    }
}

/// `.` and `..` resolved without asking the file system (the paths may name files that are gone).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// What `apply` marked and which suppressions it used.
#[derive(Debug, Default)]
pub struct Applied {
    /// Findings marked.
    pub suppressed: usize,
    /// Comments that covered a finding: (file as the findings name it, line).
    used_comments: HashSet<(String, u32)>,
    /// Per `[[suppress]]` entry: it covered a finding.
    used_entries: Vec<bool>,
}

/// Mark the findings a comment or an entry covers (a mark already there is replaced: a replayed
/// run's findings are marked again under the current comments and entries). `cwd`: what the
/// findings' relative paths are relative to.
pub fn apply(diags: &mut [Diagnostic], rules: &FileRules, cwd: &Path) -> Applied {
    let mut sources = SourceCache::default();
    let mut a = Applied { used_entries: vec![false; rules.entries.len()], ..Applied::default() };
    for d in diags.iter_mut() {
        d.suppression = None;
        let path = Path::new(&d.loc.file);
        let lines = [d.loc.line, d.loc.line.saturating_sub(1)];
        for line in lines.into_iter().filter(|l| *l > 0) {
            let Some(text) = sources.line(path, line) else { continue };
            if let Some(s) = parse(&String::from_utf8_lossy(text)).filter(|c| c.covers(d.rule)) {
                d.suppression = Some(Suppression { kind: SuppressionKind::InSource, justification: s.justification });
                a.used_comments.insert((d.loc.file.clone(), line));
                break;
            }
        }
        if d.suppression.is_none() && attribute_covers(&mut sources, d) {
            d.suppression = Some(Suppression { kind: SuppressionKind::InSource, justification: None });
        }
        for (i, r) in rules.entries.iter().enumerate() {
            if rules.covers(r, d, cwd) {
                a.used_entries[i] = true;
                if d.suppression.is_none() {
                    d.suppression =
                        Some(Suppression { kind: SuppressionKind::External, justification: r.reason.clone() });
                }
            }
        }
        a.suppressed += usize::from(d.suppression.is_some());
    }
    a
}

/// Is `d`'s allocation in a statement a `[[clang::suppress]]` covers, for its rule
/// (`report::attribute`)? The source is read from the function's first line on.
fn attribute_covers(sources: &mut SourceCache, d: &Diagnostic) -> bool {
    let Some((text, starts)) = sources.file(Path::new(&d.loc.file)) else { return false };
    let offset = |line: u32| starts.get((line as usize).checked_sub(1)?).map(|s| *s as usize);
    let Some(line_start) = offset(d.loc.line) else { return false };
    let at = line_start + (d.loc.col.max(1) as usize - 1);
    let from = offset(d.loc.line.saturating_sub(d.line_in_function).max(1)).unwrap_or(0);
    super::attribute::covering(text, from, at.min(text.len()))
        .is_some_and(|names| names.is_empty() || names.iter().any(|n| n == d.rule.id()))
}

/// The suppressions that matched no finding, as `-v` notes: the `[[suppress]]` entries, and the
/// comments in `files` (the program's source files, named as the findings name them).
pub fn stale(a: &Applied, rules: &FileRules, files: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, used) in a.used_entries.iter().enumerate() {
        if !used {
            out.push(format!("drip: note: stale suppression: {} matches no finding", rules.describe(i)));
        }
    }
    let mut files: Vec<&String> = files.iter().collect();
    files.sort();
    files.dedup();
    for f in files {
        let Ok(content) = crate::files::read(Path::new(f)) else { continue };
        if !String::from_utf8_lossy(&content).contains(MARKER) {
            continue;
        }
        let starts = crate::lines::line_starts(&content);
        for n in 1..=starts.len() as u32 {
            let Some(text) = crate::lines::line(&content, &starts, n) else { break };
            if parse(&String::from_utf8_lossy(text)).is_some() && !a.used_comments.contains(&(f.clone(), n)) {
                out.push(format!(
                    "drip: note: stale suppression: {f}:{n}: the comment matches no finding on its line or the next"
                ));
            }
        }
    }
    out
}

const MARKER: &str = "drip: ignore";

/// A suppression comment: the rules it names (`None`: every rule) and its reason.
struct Comment {
    rules: Option<Vec<String>>,
    justification: Option<String>,
}

impl Comment {
    fn covers(&self, rule: Rule) -> bool {
        self.rules.as_ref().is_none_or(|rs| rs.iter().any(|r| r == rule.id()))
    }
}

/// The suppression comment a source line holds, if any.
fn parse(line: &str) -> Option<Comment> {
    let at = line.find(MARKER)?;
    // Only inside a comment.
    let before = &line[..at];
    if !before.contains("//") && !before.contains("/*") {
        return None;
    }
    let rest = &line[at + MARKER.len()..];
    let rest = rest.trim_end().trim_end_matches("*/").trim_end();
    let (rules, rest) = match rest.strip_prefix('[') {
        Some(r) => {
            let end = r.find(']')?;
            (Some(r[..end].split(',').map(|r| r.trim().to_string()).collect()), &r[end + 1..])
        }
        None => (None, rest),
    };
    let rest = rest.trim();
    let justification = match rest.strip_prefix("--") {
        Some(reason) => Some(reason.trim().to_string()).filter(|r| !r.is_empty()),
        // Anything else after the marker is not this syntax (`drip: ignored`, prose).
        None if rest.is_empty() => None,
        None => return None,
    };
    Some(Comment { rules, justification })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Category, SrcLoc};

    #[test]
    fn comment_forms() {
        let j = |l: &str, r: Rule| parse(l).filter(|c| c.covers(r)).map(|s| s.justification);
        assert_eq!(j("char *p = malloc(n); // drip: ignore", Rule::Leak), Some(None));
        assert_eq!(
            j("  /* drip: ignore[leak] -- freed by the pool */", Rule::Leak),
            Some(Some("freed by the pool".into()))
        );
        assert_eq!(j("// drip: ignore[leak, double-free]", Rule::DoubleFree), Some(None));
        assert_eq!(j("// drip: ignore[leak]", Rule::DoubleFree), None, "another rule");
        assert_eq!(j("char *s = \"drip: ignore\";", Rule::Leak), None, "not a comment");
        assert_eq!(j("// drip: ignored for now", Rule::Leak), None, "not the syntax");
        assert_eq!(j("// drip: ignore --", Rule::Leak), Some(None));
    }

    fn finding(file: &str, function: &str, rule: Rule) -> Diagnostic {
        Diagnostic {
            rule,
            category: Category::NeverFreedLocal,
            loc: SrcLoc { file: file.to_string(), line: 1, col: 1 },
            function: function.to_string(),
            allocator: "malloc".to_string(),
            message: String::new(),
            path: Vec::new(),
            line_in_function: 1,
            suppression: None,
        }
    }

    fn rules(text: &str, base: &str) -> Result<FileRules, String> {
        let t: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
        let mut r = FileRules { base: PathBuf::from(base), origin: "t.toml".into(), ..FileRules::default() };
        r.add_entries(t["suppress"].as_array().expect("array"), "t.toml")?;
        Ok(r)
    }

    #[test]
    fn entries_match_by_rule_glob_and_function() {
        let r = rules(
            "[[suppress]]\nrule = \"leak\"\nfile = \"vendor/**\"\nreason = \"upstream\"\n\
             [[suppress]]\nrule = \"*\"\nfile = \"gen/*.c\"\nfunction = \"yyparse\"\n\
             [[suppress]]\nrule = \"double-free\"\nfile = \"nothing/*.c\"\n",
            "/src/proj",
        )
        .expect("valid");
        // Findings name files relative to the current directory, here the build directory.
        let cwd = Path::new("/src/proj/build");
        let mut diags = vec![
            finding("../vendor/zlib/inflate.c", "inflate", Rule::Leak),
            finding("/src/proj/vendor/x.c", "f", Rule::DoubleFree),
            finding("../gen/parse.c", "yyparse", Rule::DoubleFree),
            finding("../gen/parse.c", "yylex", Rule::Leak),
            finding("../gen/sub/parse.c", "yyparse", Rule::Leak),
            finding("/elsewhere/vendor/y.c", "g", Rule::Leak),
        ];
        let a = apply(&mut diags, &r, cwd);
        let marked: Vec<bool> = diags.iter().map(|d| d.suppression.is_some()).collect();
        assert_eq!(marked, [true, false, true, false, false, false]);
        assert_eq!(a.suppressed, 2);
        let s = diags[0].suppression.as_ref().expect("suppressed");
        assert_eq!((s.kind, s.justification.as_deref()), (SuppressionKind::External, Some("upstream")));
        let stale = stale(&a, &r, &[]);
        assert_eq!(stale.len(), 1, "{stale:?}");
        assert!(stale[0].contains("entry 3 (rule = \"double-free\", file = \"nothing/*.c\")"), "{stale:?}");
    }

    #[test]
    fn entry_mistakes_name_the_key() {
        for (bad, says) in [
            ("[[suppress]]\nrule = \"leak\"\nfile = \"a.c\"\nfuction = \"f\"\n", "unknown key 'fuction'"),
            ("[[suppress]]\nrule = \"leaks\"\nfile = \"a.c\"\n", "unknown rule 'leaks'"),
            ("[[suppress]]\nfile = \"a.c\"\n", "missing 'rule'"),
            ("[[suppress]]\nrule = \"leak\"\n", "missing 'file'"),
            ("[[suppress]]\nrule = \"leak\"\nfile = \"[a.c\"\n", "not a valid glob"),
            ("[[suppress]]\nrule = \"leak\"\nfile = 3\n", "'file' must be"),
        ] {
            let e = rules(bad, "/").err().unwrap_or_else(|| panic!("{bad:?} must be refused"));
            assert!(e.contains(says) && e.contains("entry 1"), "{bad:?}: {e}");
        }
    }
}
