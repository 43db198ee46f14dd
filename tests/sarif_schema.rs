//! drip's SARIF against the SARIF 2.1.0 JSON schema: a real run with every shape of result (a
//! leak, a double free, a suppressed finding, sites `--all-categories` lists, a TU that fails to
//! parse and one parsed with errors) and the renderer's golden file.
//!
//! The schema is not in the repository (its licence does not clearly allow that): it is fetched
//! once into the target directory, from json.schemastore.org or, where only crates.io is
//! reachable (as on CI machines that fetch crates and nothing else), from the `serde-sarif`
//! crate, which ships the OASIS schema file; or it is read from the file `DRIP_SARIF_SCHEMA`
//! names. Without any of them the test says so and passes, since it cannot check anything.

use std::path::{Path, PathBuf};
use std::process::Command;

const SCHEMA_URL: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// A crate that carries the schema as `src/schema.json`, pinned.
const CRATE_URL: &str = "https://static.crates.io/crates/serde-sarif/serde-sarif-0.8.0.crate";
const CRATE_SCHEMA: &str = "serde-sarif-0.8.0/src/schema.json";

/// Fetch `url` to `to` with curl; false when that fails (offline, no curl).
fn fetch(url: &str, to: &Path) -> bool {
    Command::new("curl").args(["-fsSL", "--max-time", "30", "-o"]).arg(to).arg(url).status().is_ok_and(|s| s.success())
}

/// The schema file from the crate archive, written to `to`.
fn fetch_from_crate(dir: &Path, to: &Path) -> bool {
    let archive = dir.join("serde-sarif.crate");
    if !fetch(CRATE_URL, &archive) {
        return false;
    }
    let extracted = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(dir)
        .arg(CRATE_SCHEMA)
        .status()
        .is_ok_and(|s| s.success());
    extracted && std::fs::copy(dir.join(CRATE_SCHEMA), to).is_ok()
}

/// The schema, or `None` (with a message) when it cannot be had.
fn schema() -> Option<serde_json::Value> {
    let path = match std::env::var_os("DRIP_SARIF_SCHEMA") {
        Some(p) => PathBuf::from(p),
        None => {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
            let cached = dir.join("sarif-schema-2.1.0.json");
            if !cached.is_file() {
                let partial = cached.with_extension("part");
                let fetched = fetch(SCHEMA_URL, &partial) || fetch_from_crate(dir, &partial);
                if !fetched || std::fs::rename(&partial, &cached).is_err() {
                    eprintln!(
                        "sarif_schema: skipped: cannot fetch {SCHEMA_URL} or {CRATE_URL} (offline, or no \
                         curl); set DRIP_SARIF_SCHEMA to a copy of the schema to run it"
                    );
                    return None;
                }
            }
            cached
        }
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display())))
}

fn assert_valid(validator: &jsonschema::Validator, log: &serde_json::Value, what: &str) {
    let errors: Vec<String> = validator.iter_errors(log).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "{what} is not valid SARIF 2.1.0:\n{}", errors.join("\n"));
}

const SOURCE: &str = r#"#include <stdlib.h>
#include <string.h>
char *keep;
int leaky(int n) {
    char *p = malloc(n);
    if (!p)
        return -1;
    char *q = malloc(n);
    if (q == NULL)
        return -1;
    free(p);
    free(q);
    return 0;
}
void twice(const char *s) {
    char *c = strdup(s);
    free(c);
    free(c);
}
void ignored(int n) {
    char *r = malloc(n); // drip: ignore[leak] -- kept for the process's lifetime
    r[0] = 0;
}
void stored(int n) {
    keep = malloc(n);
}
int main(void) {
    char *m = malloc(4);
    return m == 0;
}
"#;

#[test]
fn sarif_output_is_valid_against_the_schema() {
    let Some(schema) = schema() else { return };
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sarif_schema");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    std::fs::write(dir.join("a.c"), SOURCE).expect("write");
    std::fs::write(dir.join("broken.c"), "int f(void) { return 0 }\nint g(void) { return 1; }\n").expect("write");
    let entries: Vec<serde_json::Value> = ["a.c", "broken.c", "missing.c"]
        .iter()
        .map(|f| serde_json::json!({ "directory": dir.display().to_string(), "file": f, "arguments": ["cc", "-c", f] }))
        .collect();
    std::fs::write(dir.join("compile_commands.json"), serde_json::to_string(&entries).expect("json")).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(&dir)
        .args(["check", "--no-cache", "--all-categories", "--format", "sarif"])
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(2), "a TU failed: {}", String::from_utf8_lossy(&out.stderr));
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");

    // Every shape this test means to cover is there.
    let run = &log["runs"][0];
    let results = run["results"].as_array().expect("results");
    let has = |pred: &dyn Fn(&serde_json::Value) -> bool| results.iter().any(pred);
    assert!(has(&|r| r["ruleId"] == "leak" && r["level"] == "warning"), "{results:#?}");
    assert!(has(&|r| r["ruleId"] == "double-free" && r["level"] == "error"));
    assert!(has(&|r| r.get("suppressions").is_some()));
    assert!(has(&|r| r["kind"] == "informational"));
    assert!(has(&|r| r["locations"][0]["physicalLocation"]["region"].get("endColumn").is_some()));
    assert!(has(&|r| r["message"]["text"].as_str().is_some_and(|t| t.contains("](1)") || t.contains("](2)"))));
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert!(invocation["commandLine"].as_str().is_some_and(|c| c.contains("--all-categories")));
    let notes = invocation["toolExecutionNotifications"].as_array().expect("notifications");
    assert!(notes.iter().any(|n| n["descriptor"]["id"] == "tu-failed"), "{notes:#?}");
    assert!(notes.iter().any(|n| n["descriptor"]["id"] == "parse-error"), "{notes:#?}");
    assert_valid(&validator, &log, "drip check --format sarif");

    // A rule switched off is a configuration override of the invocation, in the schema's shape.
    let out = Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(&dir)
        .args(["check", "--no-cache", "--disable", "double-free", "--format", "sarif"])
        .output()
        .expect("run drip");
    let off: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let overrides = &off["runs"][0]["invocations"][0]["ruleConfigurationOverrides"];
    assert_eq!(overrides[0]["descriptor"]["id"], "double-free", "{overrides:#?}");
    assert_eq!(overrides[0]["configuration"]["enabled"], false);
    assert!(off["runs"][0]["results"].as_array().expect("results").iter().all(|r| r["ruleId"] != "double-free"));
    assert_valid(&validator, &off, "drip check --disable double-free --format sarif");

    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/report/golden.sarif");
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(golden).expect("golden file")).expect("json");
    assert_valid(&validator, &golden, "tests/report/golden.sarif");

    // The validator is not vacuous: a result without its message is refused.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0].as_object_mut().expect("result").remove("message");
    assert!(!validator.is_valid(&broken), "the schema requires a result's message");
}
