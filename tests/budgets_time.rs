//! The time budgets above one function: a recursive call cycle's fixpoint (`scc-time-ms`) and
//! the whole run (`run-time-ms`). Each must stop the work it bounds, say what it cut short (on
//! stderr, in `--stats`, the JSON and SARIF reports, the exit code for a partial run) and never
//! let the cache replay what a deadline cut.
//!
//! Inputs are generated here. The tests with a tiny budget are quick (the budget runs out for
//! sure); those that time a slow cycle are `#[ignore]` and run by `make test-budgets`.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("budgets_time").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// A cycle of `n` functions, `f{i}` calling `f{i+1}` and the last calling `f0`, each with an
/// allocation freed in every branch of a `branches`-long `else if` chain (its double-free
/// queries make each check cost about the square of `branches`), and no bug.
fn cycle(n: usize, branches: usize) -> String {
    let mut s = String::from("#include <stdlib.h>\n");
    for i in 0..n {
        s.push_str(&format!("int f{i}(char *p, int x);\n"));
    }
    for i in 0..n {
        s.push_str(&format!("int f{i}(char *p, int x) {{\n  char *q = malloc(10);\n"));
        for k in 0..branches {
            let kw = if k == 0 { "if" } else { "else if" };
            s.push_str(&format!("  {kw} (x == {k}) {{ free(q); return f{}(p, x - 1); }}\n", (i + 1) % n));
        }
        s.push_str("  free(q);\n  return 0;\n}\n");
    }
    s
}

/// One leak outside the cycle, so a run that did not check it says less than one that did.
const LEAK: &str =
    "#include <stdlib.h>\nint leaky(int x) {\n  char *p = malloc(4);\n  if (x) return 1;\n  free(p);\n  return 0;\n}\n";

fn drip(dir: &Path, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(dir)
        .arg("check")
        .args(args)
        .output()
        .expect("run drip");
    (out, started.elapsed())
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(dir: &Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect("report")).expect("json")
}

/// `stopped after A ms (B ms with the last pass)` of the first cycle named on stderr.
fn cycle_cost(err: &str) -> (u64, u64) {
    let at = err.find("stopped after ").unwrap_or_else(|| panic!("a cycle's cost: {err}"));
    let nums: Vec<u64> = err[at..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(2)
        .filter_map(|w| w.parse().ok())
        .collect();
    (nums[0], nums[1])
}

#[test]
fn a_cycle_past_its_time_budget_is_named_counted_and_checked_again_next_run() {
    let dir = scratch("scc");
    // Each member's check takes milliseconds: a budget of 1 ms runs out in the first sweep.
    std::fs::write(dir.join("cyc.c"), cycle(12, 30)).expect("write");
    let args = ["--budget", "scc-time-ms=1", "--stats", "--format", "json", "-o", "out.json", "cyc.c", "--"];
    let (o, _) = drip(&dir, &args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "no finding, and a cycle over budget is not a failure: {err}");
    assert!(
        err.contains("1 recursive call cycle ran out of the time budget (1 ms, budget scc-time-ms)"),
        "named on stderr: {err}"
    );
    assert!(err.contains("cyc.c:14: the cycle of 'f0' and 11 other functions, stopped after "), "{err}");
    assert!(err.contains("0 cycles over 4 rounds, 1 cycles over 1 ms"), "the --stats line: {err}");
    let report = json(&dir, "out.json");
    assert_eq!(report["stats"]["scc_time_hits"], 1, "{}", report["stats"]);
    assert_eq!(report["stats"]["budgets"]["scc_time_ms"], 1);
    let notes = report["notifications"].as_array().expect("notifications");
    assert!(notes.iter().any(|n| n["id"] == "scc-time" && n["level"] == "warning"), "{notes:?}");
    // What a deadline cut is not stored: the next run with the cache checks the cycle again
    // (and is not the previous run replayed).
    let (o, _) = drip(&dir, &args);
    let err = stderr(&o);
    assert!(err.contains("1 recursive call cycle ran out of the time budget"), "{err}");
    let again = json(&dir, "out.json");
    assert_eq!(again["stats"]["cache"]["run_reused"], false, "{}", again["stats"]);
    assert!(again["stats"]["cache"]["sccs_checked"].as_u64() >= Some(1), "{}", again["stats"]);
    // Within the default budget the fixpoint is reached, the same at -j1 and -j2.
    let run = |j: &str, out: &str| {
        let (o, _) = drip(&dir, &["--no-cache", "-j", j, "--format", "json", "-o", out, "cyc.c", "--"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(!stderr(&o).contains("cycle"), "{}", stderr(&o));
        let mut v = json(&dir, out);
        v["stats"]["time_ms"] = serde_json::Value::Null;
        v
    };
    let one = run("1", "j1.json");
    assert_eq!(one["stats"]["scc_time_hits"], 0);
    assert_eq!(one["stats"]["categories"]["over-budget"], 0, "{}", one["stats"]);
    assert_eq!(one, run("2", "j2.json"));
}

#[test]
fn a_run_past_its_time_budget_checks_nothing_more_and_says_it_is_partial() {
    let dir = scratch("run");
    std::fs::write(dir.join("leak.c"), LEAK).expect("write");
    // Starting a parse worker alone takes longer than 1 ms: the TU is not parsed (or its parse is
    // stopped), so nothing is checked.
    let (o, _) = drip(&dir, &["--budget", "run-time-ms=1", "--stats", "leak.c", "--"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "a partial run exits 2: {err}");
    assert!(o.stdout.is_empty(), "the unchecked leak is not reported");
    assert!(err.contains("leak.c: error: not analysed: the run ran out of its time budget (run-time-ms)"), "{err}");
    assert!(
        err.contains("the run ran out of its time budget (1 ms, budget run-time-ms): 1 TU not analysed (leak.c), 0 of 0 functions were not checked"),
        "{err}"
    );
    assert!(
        err.contains("run budget          1 ms (run-time-ms): 1 TUs not analysed, 0 functions not checked, 0 stopped"),
        "{err}"
    );
    assert!(
        err.contains("(partial: out of run-time-ms, 1 TU not analysed (leak.c), 0 of 0 functions not checked; see -v)"),
        "summary: {err}"
    );
    for (format, file) in [("json", "out.json"), ("sarif", "out.sarif")] {
        let (o, _) = drip(&dir, &["--budget", "run-time-ms=1", "--format", format, "-o", file, "leak.c", "--"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let report = json(&dir, file);
        if format == "json" {
            assert_eq!(report["stats"]["tus_cut"], 1, "{}", report["stats"]);
            assert_eq!(report["stats"]["tus_failed"], 0, "not a parse failure: {}", report["stats"]);
            assert_eq!(report["stats"]["budgets"]["run_time_ms"], 1);
            let notes = report["notifications"].as_array().expect("notifications");
            let cut: Vec<_> = notes.iter().filter(|n| n["id"] == "run-time" && n["level"] == "error").collect();
            assert_eq!(cut.len(), 2, "the TU, then the run: {notes:?}");
            assert!(
                cut[0]["message"].as_str().is_some_and(|m| m.starts_with("leak.c: error: not analysed")),
                "{notes:?}"
            );
            assert!(!notes.iter().any(|n| n["id"] == "tu-failed"), "{notes:?}");
        } else {
            assert_eq!(report["runs"][0]["invocations"][0]["executionSuccessful"], false, "{report}");
        }
    }
    // Nothing of the partial run is replayed: without the budget the leak is found.
    let (o, _) = drip(&dir, &["--stats", "leak.c", "--"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("leak.c:3:"), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(!stderr(&o).contains("partial"), "{}", stderr(&o));
    // A TU in the cache is still loaded past the deadline, and its function is not checked, or
    // stopped while checked when loading it took less than the millisecond (another budget:
    // the previous run's result is not the one to replay). Either way nothing is reported and
    // the run says it is partial.
    let (o, _) =
        drip(&dir, &["--budget", "run-time-ms=1", "--budget", "sat-conflicts=99999", "--stats", "leak.c", "--"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty(), "the unchecked leak is not reported");
    let not_checked = err.contains("(run-time-ms): 0 TUs not analysed, 1 functions not checked, 0 stopped")
        && err.contains("(partial: out of run-time-ms, 1 of 1 functions not checked; see -v)");
    let stopped = err.contains("(run-time-ms): 0 TUs not analysed, 0 functions not checked, 1 stopped")
        && err.contains("(partial: out of run-time-ms, 0 of 1 functions not checked, 1 site over budget; see -v)");
    assert!(not_checked || stopped, "{err}");
    // A roomy budget changes nothing.
    let (o, _) = drip(&dir, &["--budget", "run-time-ms=600000", "leak.c", "--"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
#[ignore = "slow: make test-budgets"]
fn a_slow_cycle_stops_within_about_twice_its_time_budget() {
    let dir = scratch("slow_scc");
    // About 13 s of checks at -j2 without a budget on an idle machine (200 branches took 2 s,
    // too close to the budgets for a run to be surely cut).
    std::fs::write(dir.join("cyc.c"), cycle(20, 400)).expect("write");
    let budget_ms = 1000;
    let (o, wall) = drip(&dir, &["--no-cache", "-j2", "--stats", "--budget", "scc-time-ms=1000", "cyc.c", "--"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let (fixpoint, total) = cycle_cost(&err);
    // A member's check running at the deadline stops within a few thousand steps of it.
    assert!(fixpoint <= budget_ms * 3 / 2, "{fixpoint} ms: {err}");
    assert!(total <= budget_ms * 5 / 2, "the last pass has the budget once more: {total} ms: {err}");
    assert!(wall < Duration::from_millis(budget_ms * 5 / 2 + 2000), "{wall:?}: {err}");
    // Its members' undecided sites are over budget, never "no bug".
    assert!(err.contains("1 cycles over 1000 ms"), "{err}");
}

#[test]
#[ignore = "slow: make test-budgets"]
fn a_run_budget_stops_the_checks_running_at_its_deadline() {
    let dir = scratch("slow_run");
    std::fs::write(dir.join("cyc.c"), cycle(20, 400)).expect("write");
    let budget_ms = 2000;
    let (o, wall) = drip(
        &dir,
        &[
            "--no-cache",
            "-j2",
            "--stats",
            "--budget",
            "run-time-ms=2000",
            "--format",
            "json",
            "-o",
            "out.json",
            "cyc.c",
            "--",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(wall < Duration::from_millis(budget_ms * 2), "{wall:?}: {err}");
    let report = json(&dir, "out.json");
    let s = &report["stats"];
    let cut = s["functions_skipped"].as_u64().unwrap_or(0) + s["functions_stopped"].as_u64().unwrap_or(0);
    assert!(cut > 0, "{s}");
    assert!(err.contains("the result is partial"), "{err}");
}

/// An `n`-branch `else if` chain, which libclang parses in time that grows faster than n²
/// (20,000 branches: 14 s of CPU on the benchmarks' machine).
fn slow_parse(n: usize) -> String {
    let mut s = String::from("int chain(int x) {\n    if (x == 0) return 0;\n");
    for i in 1..n {
        s.push_str(&format!("    else if (x == {i}) return {i};\n"));
    }
    s.push_str("    return -1;\n}\n");
    s
}

#[test]
#[ignore = "slow: make test-budgets"]
fn a_run_budget_stops_a_parse_running_at_its_deadline() {
    let dir = scratch("slow_parse");
    let leaky = |name: &str| LEAK.replace("leaky", name);
    std::fs::write(dir.join("first.c"), leaky("first")).expect("write");
    // Seven times the budget below on an idle machine, more on a loaded one.
    std::fs::write(dir.join("slow.c"), slow_parse(20_000)).expect("write");
    std::fs::write(dir.join("last.c"), leaky("last")).expect("write");
    let entries: Vec<serde_json::Value> = ["first.c", "slow.c", "last.c"]
        .iter()
        .map(|f| serde_json::json!({"directory": dir, "file": f, "arguments": ["cc", "-c", f]}))
        .collect();
    std::fs::write(dir.join("compile_commands.json"), serde_json::to_string(&entries).expect("json")).expect("write");
    let budget_ms = 2000;
    let said = "slow.c: error: not analysed: the run ran out of its time budget (run-time-ms) while this file was parsed, and its parse was stopped";
    let args = ["-p", ".", "--stats", "--budget", "run-time-ms=2000", "--format", "json", "-o", "out.json"];
    for jobs in ["-j1", "-j2"] {
        let (o, wall) = drip(&dir, &[&["--no-cache", jobs], &args[..]].concat());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{jobs}: {err}");
        // Stopped at the deadline, not at the end of the parse (or of tu-time-ms, a minute).
        assert!(wall < Duration::from_millis(budget_ms + 4000), "{jobs}: {wall:?}: {err}");
        assert!(err.contains(said), "named without -v: {jobs}: {err}");
        assert!(err.contains("the result is partial"), "{err}");
        let report = json(&dir, "out.json");
        let s = &report["stats"];
        assert_eq!(s["tus_failed"], 0, "{jobs}: {s}");
        let notes = report["notifications"].as_array().expect("notifications");
        assert!(notes.iter().any(|n| n["id"] == "run-time" && n["message"] == said), "{jobs}: {notes:?}");
        if jobs == "-j1" {
            // In order: first.c parsed, slow.c stopped, last.c never started.
            assert_eq!(s["tus_cut"], 2, "{s}");
            assert!(err.contains("last.c: error: not analysed: the run ran out of its time budget (run-time-ms) before this file was parsed"), "{err}");
            assert!(err.contains("2 TUs not analysed (slow.c, last.c)"), "{err}");
        } else {
            assert!(s["tus_cut"].as_u64() >= Some(1), "{s}");
        }
        assert!(report["diagnostics"].as_array().expect("diagnostics").is_empty(), "nothing was checked: {report}");
    }
    // With the cache: what was parsed in time is stored, the stopped parse is not, and the run
    // is not replayed: the next run parses slow.c again and is stopped again.
    for round in 0..2 {
        let (o, wall) = drip(&dir, &["-j1"].iter().chain(&args).copied().collect::<Vec<_>>());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{round}: {err}");
        assert!(wall < Duration::from_millis(budget_ms + 4000), "{round}: {wall:?}: {err}");
        assert!(err.contains(said), "{round}: {err}");
        let cache = &json(&dir, "out.json")["stats"]["cache"];
        assert_eq!(cache["run_reused"], false, "{round}: {cache}");
        assert_eq!(cache["tus_loaded"], round, "first.c, once stored: {round}: {cache}");
    }
}
