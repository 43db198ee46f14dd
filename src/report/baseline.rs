//! Baselines: the findings a project already knows about, so that a run reports only new ones.
//!
//! Input: a SARIF log drip wrote (`--write-baseline FILE`, or any `--format sarif` report).
//! Output: the set of its findings' fingerprints (`report::fingerprint`), against which the CLI
//! hides a run's findings.
//! Invariants: a baseline is read completely before the analysis starts, so a missing or
//! malformed one is a usage error (exit 2) that costs no analysis; a log without drip's
//! fingerprints (another tool's, or an older drip's) is refused rather than taken as empty,
//! which would report every finding as new.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::fingerprint::{self, Fingerprint};

#[derive(Debug, Default)]
pub struct Baseline {
    fingerprints: HashSet<String>,
}

impl Baseline {
    /// The fingerprints of every result of every run in the SARIF log at `path`.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let what = |e: &dyn std::fmt::Display| format!("cannot read the baseline {}: {e}", path.display());
        let bytes = crate::files::read(path).map_err(|e| what(&e))?;
        let log: Value = serde_json::from_slice(&bytes).map_err(|e| what(&format!("not JSON ({e})")))?;
        Baseline::from_log(&log).map_err(|e| what(&e))
    }

    fn from_log(log: &Value) -> Result<Baseline, String> {
        let runs = log.get("runs").and_then(Value::as_array).ok_or("not a SARIF log (no runs)")?;
        let mut fingerprints = HashSet::new();
        for run in runs {
            let Some(results) = run.get("results").and_then(Value::as_array) else { continue };
            for (i, r) in results.iter().enumerate() {
                let fp = r.pointer(&format!("/partialFingerprints/{}", fingerprint::KEY.replace('/', "~1")));
                match fp.and_then(Value::as_str) {
                    Some(fp) => fingerprints.insert(fp.to_string()),
                    None => {
                        return Err(format!(
                            "result {} has no '{}' fingerprint: write the baseline with this drip's --write-baseline",
                            i + 1,
                            fingerprint::KEY
                        ))
                    }
                };
            }
        }
        Ok(Baseline { fingerprints })
    }

    pub fn contains(&self, fp: &Fingerprint) -> bool {
        self.fingerprints.contains(&fp.drip)
    }

    pub fn count(&self) -> usize {
        self.fingerprints.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fp(drip: &str) -> Fingerprint {
        Fingerprint { drip: drip.to_string(), line_hash: String::new() }
    }

    #[test]
    fn reads_the_fingerprints_of_every_run() {
        let log = json!({ "version": "2.1.0", "runs": [
            { "results": [ { "partialFingerprints": { "dripFingerprint/v2": "00aa", "primaryLocationLineHash": "x:1" } } ] },
            { "results": [] },
            { "tool": {} },
            { "results": [ { "partialFingerprints": { "dripFingerprint/v2": "00bb" } } ] },
        ]});
        let b = Baseline::from_log(&log).unwrap();
        assert_eq!(b.count(), 2);
        assert!(b.contains(&fp("00aa")) && b.contains(&fp("00bb")));
        assert!(!b.contains(&fp("x:1")), "only drip's own key counts");
    }

    #[test]
    fn refuses_logs_it_cannot_use() {
        let older = json!({ "runs": [ { "results": [ { "partialFingerprints": { "dripLocation/v1": "00aa" } } ] } ] });
        assert!(Baseline::from_log(&older).unwrap_err().contains("dripFingerprint/v2"));
        assert!(Baseline::from_log(&json!({ "diagnostics": [] })).is_err());

        let dir = tempfile::tempdir().unwrap();
        let e = Baseline::load(&dir.path().join("none.sarif")).unwrap_err();
        assert!(e.contains("cannot read the baseline") && e.contains("none.sarif"), "{e}");
        std::fs::write(dir.path().join("bad.sarif"), "{ not json").unwrap();
        assert!(Baseline::load(&dir.path().join("bad.sarif")).unwrap_err().contains("not JSON"));
        assert!(Baseline::load(dir.path()).is_err(), "a directory");
    }
}
