//! GitLab Code Quality (the Code Climate issue format): a JSON array with one object per
//! finding, for GitLab's merge-request widget (`artifacts: reports: codequality`).
//!
//! Input: the findings to show (sorted; those a baseline hides already removed), one
//! fingerprint per finding (`fingerprint::compute`), the source root and the current directory.
//! Output: the array, pretty printed, ending in a newline. Each issue has `type: "issue"`,
//! `check_name` (the rule id), `description` (the message), `categories`, `severity`,
//! `fingerprint` (drip's own, `fingerprint::KEY`: GitLab compares reports of two pipelines by
//! it, so it survives the edits a baseline survives), `location.path` (relative to the source
//! root, as GitLab links it to the repository) and `location.lines.begin`.
//! Invariants: suppressed findings are left out (the format has no way to mark them, and
//! GitLab would show them as new); the order is the input's, so the output is the same at any
//! `-j`; a site only `--all-categories` lists is severity `info`.

use std::io::{self, Write};
use std::path::Path;

use serde_json::{json, Value};

use super::fingerprint::Fingerprint;
use crate::checkers::Policy;
use crate::diag::{Diagnostic, Rule};

/// Code Climate's severities: info, minor, major, critical, blocker.
fn severity(d: &Diagnostic) -> &'static str {
    if d.rule.is_leak() && !(Policy { all_categories: false }).reports(d.category) {
        return "info";
    }
    match d.rule {
        // Undefined behaviour, usually a heap corruption.
        Rule::DoubleFree | Rule::MismatchedDeallocation => "critical",
        Rule::Leak | Rule::LeakOnReallocFailure => "major",
        // Kept until exit.
        Rule::LeakGlobal => "minor",
    }
}

/// One issue.
fn issue(d: &Diagnostic, fp: &Fingerprint, root: &Path, cwd: &Path) -> Value {
    json!({
        "type": "issue",
        "check_name": d.rule.id(),
        "description": format!("{} [{}]", d.message, d.rule.id()),
        "categories": ["Bug Risk"],
        "severity": severity(d),
        "fingerprint": fp.drip,
        "location": {
            "path": super::sarif::file_key(root, cwd, &d.loc.file),
            "lines": { "begin": d.loc.line },
        },
    })
}

/// Writes the issues of `diags` that are not suppressed. `root` may be relative to `cwd`.
/// Fails only if `out` does.
pub fn render_codeclimate(
    diags: &[Diagnostic],
    fingerprints: &[Fingerprint],
    root: &Path,
    cwd: &Path,
    out: &mut dyn Write,
) -> io::Result<()> {
    let issues: Vec<Value> = diags
        .iter()
        .zip(fingerprints)
        .filter(|(d, _)| d.suppression.is_none())
        .map(|(d, fp)| issue(d, fp, root, cwd))
        .collect();
    serde_json::to_writer_pretty(&mut *out, &issues)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;
    use crate::diag::{Suppression, SuppressionKind};

    fn render(diags: &[Diagnostic]) -> Vec<Value> {
        let cwd = std::env::current_dir().expect("cwd");
        let fps = super::super::fingerprint::compute(diags, &cwd, &cwd);
        let mut out = Vec::new();
        render_codeclimate(diags, &fps, &cwd, &cwd, &mut out).expect("render");
        assert!(out.ends_with(b"]\n"));
        serde_json::from_slice(&out).expect("JSON")
    }

    #[test]
    fn every_finding_is_an_issue_with_its_location_and_fingerprint() {
        let diags = fixtures::all();
        let issues = render(&diags);
        assert_eq!(issues.len(), diags.len());
        for (i, d) in issues.iter().zip(&diags) {
            assert_eq!(i["type"], "issue");
            assert_eq!(i["check_name"], d.rule.id());
            assert_eq!(i["location"]["path"], fixtures::FILE, "relative to the root");
            assert_eq!(i["location"]["lines"]["begin"], d.loc.line);
            assert_eq!(i["fingerprint"].as_str().map(str::len), Some(16));
            assert!(i["description"].as_str().is_some_and(|s| s.starts_with(&d.message)));
        }
        let severities: Vec<&str> = issues.iter().filter_map(|i| i["severity"].as_str()).collect();
        let want: Vec<&str> =
            diags.iter().map(|d| if d.rule == Rule::DoubleFree { "critical" } else { severity(d) }).collect();
        assert_eq!(severities, want);
        assert!(severities.contains(&"critical") && severities.contains(&"major"), "{severities:?}");
    }

    #[test]
    fn suppressed_findings_are_left_out() {
        let mut diags = fixtures::all();
        let kept = diags.len() - 1;
        diags[0].suppression = Some(Suppression { kind: SuppressionKind::InSource, justification: None });
        let issues = render(&diags);
        assert_eq!(issues.len(), kept);
        assert_eq!(render(&[]), Vec::<Value>::new());
    }
}
