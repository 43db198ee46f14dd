//! Functions that are long in ways real code rarely is, generated here: each check must finish
//! within its budget and say what it skipped, and what grew quadratically must not any more.
//!
//! Slow (seconds each, minutes before the budgets covered every phase), so every test is
//! `#[ignore]`: `make test-budgets` runs them (`.ci/run` calls it). `cargo test --release` only
//! builds them.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("budgets").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// One function with one allocation and an `n`-branch `if … else if …` chain freeing it in
/// each branch: `n` frees of one cell, `n²/2` double-free queries.
fn else_if_chain(n: usize) -> String {
    let mut s = String::from("#include <stdlib.h>\nint chain(int x) {\n  char *p = malloc(10);\n");
    for i in 0..n {
        let kw = if i == 0 { "if" } else { "else if" };
        s.push_str(&format!("  {kw} (x == {i}) {{ free(p); return {i}; }}\n"));
    }
    s.push_str("  free(p);\n  return -1;\n}\n");
    s
}

/// `n` sequential `if` statements each assigning one local, which is returned (or, with
/// `tested`, also tested by every `if`): after `k` joins, `k` definitions of it reach.
fn sequential_ifs(n: usize, tested: bool) -> String {
    let mut s = String::from("#include <stdlib.h>\nint seq(int x, int *a) {\n  char *p = malloc(10);\n  int s = 0;\n");
    for i in 0..n {
        let cond = if tested { format!("s > a[{i}]") } else { format!("a[{i}] > x") };
        s.push_str(&format!("  if ({cond}) s += {i};\n"));
    }
    s.push_str("  free(p);\n  return s;\n}\n");
    s
}

/// `n` sequential `for` loops, each with its own index local assigned a constant.
fn sequential_loops(n: usize) -> String {
    let mut s = String::from("#include <stdlib.h>\nint loops(int *a) {\n  char *p = malloc(10);\n");
    for i in 0..n {
        s.push_str(&format!("  for (int i{i} = 0; i{i} < a[{i}]; i{i}++) {{ if (a[i{i}]) break; }}\n"));
    }
    s.push_str("  free(p);\n  return 0;\n}\n");
    s
}

/// `n` labels, each with a `goto` back to the one before: `n` loops, each nested in the one
/// before (the natural loop of `L{i}`'s back edge reaches every later label).
fn nested_goto_loops(n: usize) -> String {
    let mut s = String::from("#include <stdlib.h>\nint gotos(int *a) {\n  char *p = malloc(10);\n  int k = 0;\n");
    for i in 0..n {
        s.push_str(&format!(" L{i}: k++; if (a[{i}] > k) goto L{};\n", i.saturating_sub(1)));
    }
    s.push_str("  free(p);\n  return k;\n}\n");
    s
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    wall: Duration,
    /// Peak resident memory of the process, in KiB.
    max_rss_kib: i64,
}

/// `drip check FILE -- ` with `args` in `dir`, with the peak memory of the process.
// The child is reaped by `wait4`, which also gives its own peak memory (`Child::wait` cannot).
#[allow(clippy::zombie_processes)]
fn check(dir: &Path, file: &str, args: &[&str]) -> Run {
    let out = dir.join("stdout");
    let err = dir.join("stderr");
    let started = Instant::now();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(dir)
        .arg("check")
        .args(args)
        .args([file, "--"])
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"))
        .spawn()
        .expect("run drip");
    let mut status = 0;
    // SAFETY: plain zeroed C struct, filled by wait4 for the child just spawned.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: `pid` is our own child, not yet waited for; `status` and `usage` outlive the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let wall = started.elapsed();
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Run {
        code,
        stdout: std::fs::read_to_string(&out).expect("stdout"),
        stderr: std::fs::read_to_string(&err).expect("stderr"),
        wall,
        max_rss_kib: usage.ru_maxrss,
    }
}

/// A `--stats` time, in ms: `parse` or `ir` or `analysis` from the `time (ms)` line.
fn stat_ms(stderr: &str, what: &str) -> u64 {
    let line = stderr.lines().find(|l| l.trim_start().starts_with("time (ms)")).expect("a time line in --stats");
    let at = line.find(&format!("{what} ")).unwrap_or_else(|| panic!("{what} in {line}"));
    line[at + what.len() + 1..].split_whitespace().next().and_then(|n| n.parse().ok()).expect("a number")
}

fn json(dir: &Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect("report")).expect("json")
}

#[test]
#[ignore = "slow: make test-budgets"]
fn a_long_else_if_chain_stops_at_its_time_budget_and_names_the_function() {
    let dir = scratch("chain");
    std::fs::write(dir.join("chain.c"), else_if_chain(2000)).expect("write");
    // Before every phase was under the budget this took about 300 s (the double-free queries).
    let budget_ms = 2000;
    let run = check(
        &dir,
        "chain.c",
        &["--no-cache", "--stats", "--budget", "function-time-ms=2000", "--format", "json", "-o", "out.json"],
    );
    assert_eq!(run.code, Some(0), "over budget is not a finding: {}", run.stderr);
    let front = stat_ms(&run.stderr, "parse") + stat_ms(&run.stderr, "ir");
    let limit = Duration::from_millis(2 * budget_ms + front + 1000);
    assert!(run.wall <= limit, "{:?} > {limit:?}: {}", run.wall, run.stderr);
    assert!(stat_ms(&run.stderr, "analysis") <= 2 * budget_ms, "{}", run.stderr);
    assert!(run.stderr.contains("ran out of the time budget (2000 ms"), "{}", run.stderr);
    assert!(run.stderr.contains("chain.c:2: chain"), "the function is named: {}", run.stderr);
    let report = json(&dir, "out.json");
    assert_eq!(report["stats"]["functions_over_time"], 1, "{}", report["stats"]);
    assert_eq!(report["stats"]["categories"]["over-budget"], 1, "{}", report["stats"]);
}

#[test]
#[ignore = "slow: make test-budgets"]
fn thousands_of_nested_loops_stop_at_the_time_budget_while_the_dag_is_built() {
    let dir = scratch("nested");
    std::fs::write(dir.join("gotos.c"), nested_goto_loops(20_000)).expect("write");
    let budget_ms = 2000;
    let run = check(&dir, "gotos.c", &["--no-cache", "--stats", "-v", "--budget", "function-time-ms=2000"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let front = stat_ms(&run.stderr, "parse") + stat_ms(&run.stderr, "ir");
    let limit = Duration::from_millis(2 * budget_ms + front + 1000);
    assert!(run.wall <= limit, "{:?} > {limit:?}: {}", run.wall, run.stderr);
    assert!(run.stderr.contains("gotos.c:2: gotos"), "the function is named: {}", run.stderr);
    assert!(run.stderr.contains("1 functions over 2000 ms"), "{}", run.stderr);
}

#[test]
#[ignore = "slow: make test-budgets"]
fn definitions_reaching_through_many_joins_do_not_take_quadratic_memory() {
    let dir = scratch("joins");
    // 20,000 joins: 2.5 GB and 40,000: 9.6 GB before, for the constant `return s` asks about.
    std::fs::write(dir.join("seq.c"), sequential_ifs(20_000, false)).expect("write");
    // 10,000 loops, each local's memo as long as the function: 14 GB before.
    std::fs::write(dir.join("loops.c"), sequential_loops(10_000)).expect("write");
    for file in ["seq.c", "loops.c"] {
        // No budget at all: what is left is linear in the function, not limited.
        let run = check(
            &dir,
            file,
            &["--no-cache", "--stats", "--budget", "function-time-ms=0", "--budget", "function-memory-mb=0"],
        );
        assert_eq!(run.code, Some(0), "{file}: {}", run.stderr);
        assert!(run.stderr.contains("0 functions over 0 ms, 0 functions over 0 MiB"), "{file}: {}", run.stderr);
        assert!(run.max_rss_kib < 400 << 10, "{file}: peak {} KiB", run.max_rss_kib);
    }
}

#[test]
#[ignore = "slow: make test-budgets"]
fn a_function_over_its_memory_budget_is_named_counted_and_the_same_at_any_j() {
    let dir = scratch("memory");
    // Every test of `s` needs the set of its definitions, and after `k` joins there are `k`:
    // quadratic by nature, so the memory budget is what bounds it.
    std::fs::write(dir.join("tested.c"), sequential_ifs(5_000, true)).expect("write");
    let run_j = |j: &str, out: &str| {
        check(
            &dir,
            "tested.c",
            &[
                "--no-cache",
                "--stats",
                "-j",
                j,
                "--budget",
                "function-time-ms=600000",
                "--budget",
                "function-memory-mb=64",
                "--format",
                "json",
                "-o",
                out,
            ],
        )
    };
    let one = run_j("1", "j1.json");
    assert_eq!(one.code, Some(0), "over budget is not a finding: {}", one.stderr);
    assert!(one.stderr.contains("ran out of the memory budget (64 MiB, budget function-memory-mb)"), "{}", one.stderr);
    assert!(one.stderr.contains("tested.c:2: seq"), "the function is named: {}", one.stderr);
    assert!(one.stderr.contains("0 functions over 600000 ms, 1 functions over 64 MiB"), "{}", one.stderr);
    // The budget counts what the tables keep, not the whole process: a margin for the rest.
    assert!(one.max_rss_kib < 300 << 10, "peak {} KiB", one.max_rss_kib);
    let report = json(&dir, "j1.json");
    assert_eq!(report["stats"]["functions_over_size"], 1, "{}", report["stats"]);
    assert_eq!(report["stats"]["budgets"]["function_memory_mb"], 64);
    assert_eq!(report["stats"]["categories"]["over-budget"], 1, "{}", report["stats"]);
    let notes = report.to_string();
    assert!(notes.contains("memory-budget"), "a notification: {notes}");
    // A size budget is counted, not timed: the same hit at every -j.
    let two = run_j("2", "j2.json");
    let strip = |mut v: serde_json::Value| {
        v["stats"]["time_ms"] = serde_json::Value::Null;
        v
    };
    assert_eq!(strip(json(&dir, "j1.json")), strip(json(&dir, "j2.json")), "{}", two.stderr);
    // Not cached: a second run with the cache names it again.
    for _ in 0..2 {
        let cached = check(&dir, "tested.c", &["--budget", "function-memory-mb=64"]);
        assert!(cached.stderr.contains("ran out of the memory budget (64 MiB"), "{}", cached.stderr);
    }
    // Within the default budget, the same function is decided.
    let roomy = check(&dir, "tested.c", &["--no-cache", "--stats", "--budget", "function-time-ms=600000"]);
    assert!(roomy.stderr.contains("0 functions over 256 MiB, 0 sites over budget"), "{}", roomy.stderr);
    assert!(roomy.stdout.is_empty(), "no finding: {}", roomy.stdout);
}
