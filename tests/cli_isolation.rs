//! A TU that kills or stalls the parser costs that TU, not the run (`frontend/isolate.rs`): its
//! parse worker is replaced, the TU is named as failed (stderr, summary line, JSON and SARIF
//! notifications, exit code 2), and every other TU's findings are reported.
//!
//! The inputs are generated here. The crash takes a fraction of a second; the parse budget
//! tests wait for a kill, and time themselves, so they are `#[ignore]`d: `make test-budgets`
//! runs them one at a time (`.ci/run` calls it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn drip() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drip"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("isolation").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write file");
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A function whose one leak drip must report: the early return skips the free.
fn leaky(name: &str) -> String {
    format!(
        "void *malloc(unsigned long);\nvoid free(void *);\nint {name}(int n) {{\n    char *p = malloc(n);\n    if (!p)\n        return -1;\n    if (n > 8)\n        return 1;\n    free(p);\n    return 0;\n}}\n"
    )
}

/// 50,000 nested `!`: libclang's parser recurses once per operator and overflows its stack
/// (SIGSEGV, which libclang's own crash recovery does not catch).
fn crashing() -> String {
    format!("int deep(int x) {{ return {}x; }}\n", "!".repeat(50_000))
}

/// An `n`-branch `else if` chain: clang parses it in time that grows faster than n² (20,000
/// branches: about 15 s).
fn slow(n: usize) -> String {
    let mut s = String::from("int chain(int x) {\n    if (x == 0) return 0;\n");
    for i in 1..n {
        s.push_str(&format!("    else if (x == {i}) return {i};\n"));
    }
    s.push_str("    return -1;\n}\n");
    s
}

fn compdb(dir: &Path, files: &[&str]) {
    let entries: Vec<serde_json::Value> =
        files.iter().map(|f| serde_json::json!({"directory": dir, "file": f, "arguments": ["cc", "-c", f]})).collect();
    write(dir, "compile_commands.json", &serde_json::to_string(&entries).expect("json"));
}

fn check(dir: &Path, extra: &[&str]) -> Output {
    drip().current_dir(dir).args(["check", "-p", "."]).args(extra).output().expect("run drip")
}

fn json_report(dir: &Path, extra: &[&str]) -> (Output, serde_json::Value) {
    let mut args = vec!["--format", "json", "-o", "report.json"];
    args.extend_from_slice(extra);
    let out = check(dir, &args);
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report written");
    (out, serde_json::from_str(&text).expect("json"))
}

/// The `tu-failed` notifications of a JSON report.
fn failed_notes(doc: &serde_json::Value) -> Vec<String> {
    doc["notifications"]
        .as_array()
        .expect("notifications")
        .iter()
        .filter(|n| n["id"] == "tu-failed")
        .map(|n| n["message"].as_str().expect("text").to_string())
        .collect()
}

#[test]
fn a_tu_that_crashes_the_parser_is_named_and_the_rest_is_checked() {
    let dir = scratch("crash");
    write(&dir, "first.c", &leaky("first"));
    write(&dir, "crash.c", &crashing());
    write(&dir, "last.c", &leaky("last"));
    // At -j1 one worker parses all three: the TU after the crash needs a new one.
    compdb(&dir, &["first.c", "crash.c", "last.c"]);
    let out = check(&dir, &["-j1", "--no-cache"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "a TU not analysed outranks findings: {err}");
    let report = stdout(&out);
    assert!(report.contains("first.c") && report.contains("last.c"), "both leaks reported: {report}\n{err}");
    assert_eq!(report.matches("[leak,freed-conditional]").count(), 2, "{report}");
    assert!(err.contains("crash.c: error: the parse of this file crashed (SIGSEGV"), "{err}");
    let summary = err.lines().last().expect("summary line");
    assert!(summary.starts_with("drip: 2 TUs,"), "{summary}");
    assert!(summary.contains("1 TU failed to parse (crash.c)"), "{summary}");

    // The same at -j2, byte for byte, in every format.
    let again = check(&dir, &["-j2", "--no-cache"]);
    assert_eq!((again.status.code(), stdout(&again), stderr(&again)), (Some(2), report, err));
    let (_, j1) = json_report(&dir, &["-j1", "--no-cache"]);
    let (out, j2) = json_report(&dir, &["-j2", "--no-cache"]);
    assert_eq!(out.status.code(), Some(2));
    let strip_times = |mut v: serde_json::Value| {
        v["stats"]["time_ms"] = serde_json::Value::Null;
        v
    };
    assert_eq!(strip_times(j1), strip_times(j2.clone()));
    let notes = failed_notes(&j2);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with("crash.c: error:") && notes[0].contains("SIGSEGV"), "{notes:?}");
    assert_eq!(j2["stats"]["tus_failed"], 1);

    let out = check(&dir, &["--no-cache", "--format", "sarif", "-o", "report.sarif"]);
    assert_eq!(out.status.code(), Some(2));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.sarif")).expect("sarif")).expect("json");
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notes = invocation["toolExecutionNotifications"].as_array().expect("notifications");
    assert!(
        notes.iter().any(|n| n["descriptor"]["id"] == "tu-failed"
            && n["message"]["text"].as_str().is_some_and(|t| t.contains("crash.c") && t.contains("SIGSEGV"))),
        "{notes:?}"
    );
    assert_eq!(log["runs"][0]["results"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_crashed_tu_is_neither_cached_nor_replayed() {
    let dir = scratch("crash-cache");
    write(&dir, "ok.c", &leaky("ok"));
    write(&dir, "crash.c", &crashing());
    compdb(&dir, &["crash.c", "ok.c"]);
    for run in 0..2 {
        let out = check(&dir, &["--stats"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "run {run}: {err}");
        assert!(err.contains("crash.c: error: the parse of this file crashed"), "run {run}: {err}");
        assert!(stdout(&out).contains("[leak,freed-conditional]"), "run {run}");
        // The second run loads ok.c and parses crash.c again: a crash is never stored.
        let expected = if run == 0 { "TUs 0 from cache, 2 parsed" } else { "TUs 1 from cache, 1 parsed" };
        assert!(err.contains(expected), "run {run}: {err}");
    }
    // Once the file is fixed, it is parsed and analysed like any other.
    write(&dir, "crash.c", &leaky("fixed"));
    let out = check(&dir, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out).matches("[leak,freed-conditional]").count(), 2);
}

#[test]
fn the_parse_budget_is_a_budget_like_the_others() {
    let dir = scratch("budget-setting");
    write(&dir, "ok.c", &leaky("ok"));
    compdb(&dir, &["ok.c"]);
    let (out, doc) = json_report(&dir, &["--no-cache"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(doc["stats"]["budgets"]["tu_time_ms"], 60000, "the default");
    // 0 is no limit, as for function-time-ms.
    let (out, doc) = json_report(&dir, &["--no-cache", "--budget", "tu-time-ms=0"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(doc["stats"]["budgets"]["tu_time_ms"], 0);
    write(&dir, ".drip.toml", "[budgets]\ntu-time-ms = 45000\n");
    let (_, doc) = json_report(&dir, &["--no-cache"]);
    assert_eq!(doc["stats"]["budgets"]["tu_time_ms"], 45000);
    let out = check(&dir, &["--budget", "tu-time-ms=soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a whole number"), "{}", stderr(&out));
}

#[test]
#[ignore = "waits for a parse to run past its budget: make test-budgets"]
fn a_tu_over_the_parse_budget_is_stopped_named_and_the_rest_is_checked() {
    let dir = scratch("budget");
    write(&dir, "first.c", &leaky("first"));
    write(&dir, "slow.c", &slow(20_000));
    write(&dir, "last.c", &leaky("last"));
    compdb(&dir, &["first.c", "slow.c", "last.c"]);
    for jobs in ["-j1", "-j2"] {
        let started = Instant::now();
        let (out, doc) = json_report(&dir, &[jobs, "--budget", "tu-time-ms=2000"]);
        let took = started.elapsed();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{jobs}: {err}");
        // Stopped at the budget, not after the whole parse (about 15 s here).
        assert!(took < Duration::from_secs(10), "{jobs}: took {took:?}");
        let said = "slow.c: error: parsing this file took longer than the tu-time-ms budget (2000 ms) and was stopped";
        assert!(err.contains(said), "{jobs}: {err}");
        assert!(err.lines().last().is_some_and(|l| l.contains("1 TU failed to parse (slow.c)")), "{jobs}: {err}");
        let notes = failed_notes(&doc);
        assert!(notes.len() == 1 && notes[0].starts_with(said), "{jobs}: {notes:?}");
        let leaks: Vec<&str> =
            doc["diagnostics"].as_array().expect("diagnostics").iter().filter_map(|d| d["function"].as_str()).collect();
        assert_eq!(leaks, ["first", "last"], "{jobs}: {doc}");
    }
}

#[test]
#[ignore = "times parses: make test-budgets"]
fn a_tu_within_the_parse_budget_is_analysed() {
    let dir = scratch("budget-ok");
    // A few hundred milliseconds of parsing, well within a generous budget.
    write(&dir, "chain.c", &format!("{}{}", slow(2_000), leaky("after_chain")));
    compdb(&dir, &["chain.c"]);
    let out = check(&dir, &["--no-cache", "--budget", "tu-time-ms=30000"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("[leak,freed-conditional]"));
}
