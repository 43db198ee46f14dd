//! `drip check --format codeclimate`: GitLab Code Quality JSON, end to end. Each test writes its
//! project into a temporary directory.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn drip() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_drip"));
    for v in ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"] {
        c.env_remove(v);
    }
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Two leaks, one silenced by a comment, and a double free, in `src/a.c` below the project.
const SOURCE: &str = "#include <stdlib.h>\n\
int first(int n) {\n\
    char *p = malloc(n);\n\
    if (!p)\n\
        return -1;\n\
    if (n > 3)\n\
        return -1;\n\
    free(p);\n\
    return 0;\n\
}\n\
void twice(int n) {\n\
    char *q = malloc(n);\n\
    free(q);\n\
    free(q);\n\
}\n\
int known(int n) {\n\
    char *r = malloc(n); // drip: ignore[leak] -- freed by the caller's pool\n\
    if (!r)\n\
        return -1;\n\
    if (n > 5)\n\
        return -1;\n\
    free(r);\n\
    return 0;\n\
}\n";

fn project(root: &Path, source: &str) {
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    std::fs::write(root.join("src/a.c"), source).expect("source");
    let db = serde_json::json!([{ "directory": root.display().to_string(), "file": "src/a.c",
        "arguments": ["cc", "-c", "src/a.c", "-o", "a.o"] }]);
    std::fs::write(root.join("compile_commands.json"), db.to_string()).expect("database");
}

/// `drip check -p ROOT --format codeclimate ARGS`, run from elsewhere: the exit code and report.
fn codeclimate(root: &Path, args: &[&str]) -> (Option<i32>, Vec<u8>) {
    let out = drip()
        .current_dir(std::env::temp_dir())
        .arg("check")
        .arg("-p")
        .arg(root)
        .args(["--no-cache", "--format", "codeclimate"])
        .args(args)
        .output()
        .expect("run drip");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    (out.status.code(), out.stdout)
}

fn issues(report: &[u8]) -> Vec<Value> {
    let doc: Value = serde_json::from_slice(report).expect("valid JSON");
    doc.as_array().expect("an array of issues").clone()
}

#[test]
fn code_quality_report_names_each_finding_once() {
    let tmp = tempfile::tempdir().expect("scratch");
    let root = tmp.path();
    project(root, SOURCE);
    let (code, one) = codeclimate(root, &["-j", "1"]);
    assert_eq!(code, Some(1));
    let (_, two) = codeclimate(root, &["-j", "2"]);
    assert_eq!(one, two, "the same bytes at -j1 and -j2");
    let found = issues(&one);
    let summary: Vec<(&str, u64, &str)> = found
        .iter()
        .map(|i| {
            (
                i["check_name"].as_str().expect("check_name"),
                i["location"]["lines"]["begin"].as_u64().expect("lines.begin"),
                i["severity"].as_str().expect("severity"),
            )
        })
        .collect();
    // The suppressed leak in `known` (line 17) is not an issue.
    assert_eq!(summary, [("leak", 3, "major"), ("double-free", 12, "critical")], "{found:?}");
    for i in &found {
        assert_eq!(i["type"], "issue");
        assert_eq!(i["location"]["path"], "src/a.c", "relative to the directory of compile_commands.json");
        assert!(i["description"].as_str().is_some_and(|d| d.contains("'malloc'")), "{i}");
        let fp = i["fingerprint"].as_str().expect("fingerprint");
        assert!(fp.len() == 16 && fp.bytes().all(|b| b.is_ascii_hexdigit()), "{fp}");
    }
    assert_ne!(found[0]["fingerprint"], found[1]["fingerprint"]);

    // The fingerprint is the baseline's: after lines are added above, a baselined finding keeps
    // it and is hidden, and only the new finding is an issue.
    let baseline = root.join("base.sarif");
    let (_, before) = codeclimate(root, &["--write-baseline", baseline.to_str().expect("utf-8")]);
    let added = "void fresh(void) {\n    char *s = malloc(8);\n    s[0] = 0;\n}\n";
    project(root, &SOURCE.replacen("int first", &format!("/* moved down */\n{added}int first"), 1));
    let (code, after) = codeclimate(root, &["--baseline", baseline.to_str().expect("utf-8")]);
    assert_eq!(code, Some(1));
    let after = issues(&after);
    assert_eq!(after.len(), 1, "{after:?}");
    assert_eq!(after[0]["location"]["lines"]["begin"], 4);
    assert!(after[0]["description"].as_str().is_some_and(|d| d.contains("leak")), "{after:?}");
    let before: Vec<Value> = issues(&before).iter().map(|i| i["fingerprint"].clone()).collect();
    assert!(!before.contains(&after[0]["fingerprint"]), "a new finding has a new fingerprint");
    // Without the baseline the old findings are back, with the fingerprints they had.
    let (_, all) = codeclimate(root, &[]);
    let all = issues(&all);
    assert_eq!(all.len(), 3);
    for old in &before {
        assert!(all.iter().any(|i| &i["fingerprint"] == old), "{old} lost its fingerprint");
    }

    // A clean program: an empty array, exit 0.
    project(root, "int nothing(void) { return 0; }\n");
    let (code, clean) = codeclimate(root, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(String::from_utf8_lossy(&clean), "[]\n");
}
