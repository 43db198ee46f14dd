//! Inline suppressions: a `drip: ignore` comment on the line of a finding's allocation, or on the
//! line before it, silences the finding.
//!
//! Input: the run's findings (sorted) and the source files they name. Output: the same findings,
//! those a comment covers marked with their `Suppression`. Forms, in a `//` or `/* */` comment:
//! `drip: ignore` (every rule), `drip: ignore[leak]`, `drip: ignore[leak, double-free]`, each with
//! an optional reason after `--`. Invariant: a suppressed finding is never dropped — the text
//! report leaves it out and the exit code ignores it, but it is counted, and JSON and SARIF carry
//! it with its justification (SARIF `suppressions`, kind `inSource`).

use std::path::Path;

use super::SourceCache;
use crate::diag::{Diagnostic, Suppression};

/// Mark the findings a comment covers; returns how many it marked.
pub fn apply(diags: &mut [Diagnostic]) -> usize {
    let mut sources = SourceCache::default();
    let mut n = 0;
    for d in diags.iter_mut() {
        let path = Path::new(&d.loc.file);
        let lines = [d.loc.line, d.loc.line.saturating_sub(1)];
        for line in lines.into_iter().filter(|l| *l > 0) {
            let Some(text) = sources.line(path, line) else { continue };
            if let Some(s) = parse(&String::from_utf8_lossy(text), d.rule.id()) {
                d.suppression = Some(s);
                n += 1;
                break;
            }
        }
    }
    n
}

/// The suppression a source line holds for rule `rule`, if any.
fn parse(line: &str, rule: &str) -> Option<Suppression> {
    let at = line.find("drip: ignore")?;
    // Only inside a comment.
    let before = &line[..at];
    if !before.contains("//") && !before.contains("/*") {
        return None;
    }
    let rest = &line[at + "drip: ignore".len()..];
    let rest = rest.trim_end().trim_end_matches("*/").trim_end();
    let (rules, rest) = match rest.strip_prefix('[') {
        Some(r) => {
            let end = r.find(']')?;
            (Some(&r[..end]), &r[end + 1..])
        }
        None => (None, rest),
    };
    if let Some(rules) = rules {
        if !rules.split(',').any(|r| r.trim() == rule) {
            return None;
        }
    }
    let rest = rest.trim();
    let justification = match rest.strip_prefix("--") {
        Some(reason) => Some(reason.trim().to_string()).filter(|r| !r.is_empty()),
        // Anything else after the marker is not this syntax (`drip: ignored`, prose).
        None if rest.is_empty() => None,
        None => return None,
    };
    Some(Suppression { justification })
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn comment_forms() {
        let j = |l: &str, r: &str| parse(l, r).map(|s| s.justification);
        assert_eq!(j("char *p = malloc(n); // drip: ignore", "leak"), Some(None));
        assert_eq!(
            j("  /* drip: ignore[leak] -- freed by the pool */", "leak"),
            Some(Some("freed by the pool".into()))
        );
        assert_eq!(j("// drip: ignore[leak, double-free]", "double-free"), Some(None));
        assert_eq!(j("// drip: ignore[leak]", "double-free"), None, "another rule");
        assert_eq!(j("char *s = \"drip: ignore\";", "leak"), None, "not a comment");
        assert_eq!(j("// drip: ignored for now", "leak"), None, "not the syntax");
        assert_eq!(j("// drip: ignore --", "leak"), Some(None));
    }
}
