//! The bundled example must report exactly the bugs `compile_commands/demo/EXPECTED.md` lists.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Rows of the EXPECTED.md table: (rule, category, "file.c:line").
fn expected() -> BTreeSet<(String, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("compile_commands/demo/EXPECTED.md")).expect("EXPECTED.md");
    let mut rows = BTreeSet::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | id | rule | category | alloc | allocator | function | defect | what |
        if cells.len() < 5 || cells[1].len() != 1 || !cells[1].chars().all(|c| c.is_ascii_lowercase()) {
            continue;
        }
        rows.insert((cells[2].to_string(), cells[3].to_string(), cells[4].to_string()));
    }
    rows
}

#[test]
fn demo_reports_exactly_the_expected_bugs() {
    let want = expected();
    assert_eq!(want.len(), 5, "EXPECTED.md lists five bugs: {want:?}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(root)
        // --no-cache: the analysis is under test, and the test leaves nothing in the source tree.
        .args(["check", "-p", "compile_commands/demo", "--format", "json", "--no-cache"])
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut got = BTreeSet::new();
    for d in v["diagnostics"].as_array().expect("diagnostics") {
        let file = d["loc"]["file"].as_str().unwrap_or_default();
        let name = Path::new(file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let rule = d["rule"].as_str().unwrap_or_default().to_string();
        // EXPECTED.md gives a double free the category its site has apart from the double free.
        let category = d["category"].as_str().unwrap_or_default().to_string();
        got.insert((rule, category, format!("{name}:{}", d["loc"]["line"])));
    }
    assert_eq!(got, want);
}
