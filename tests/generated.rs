//! Random C programs (`tests/cgen`) through `drip check`: for each, drip must not panic, die of a
//! signal, exit with anything but 0 or 1 (the programs are valid C, so never 2, and never 3), or
//! run past an outer timeout; and its JSON report must be the same at `-j1` and `-j2`, and the
//! same from a cold cache, from that cache after an edit of one TU, and from the cache unchanged.
//!
//! `generated_programs_survive_drip` is `#[ignore]`d (minutes): `make test-generated` runs it, and
//! `.ci/run` calls that. Environment:
//! - `DRIP_GEN_COUNT` (default 100): how many programs; `DRIP_GEN_SEED` (default 1): the seed
//!   of the first, the others following it. `DRIP_GEN_COUNT=1 DRIP_GEN_SEED=S` replays seed S.
//! - `DRIP_GEN_FAILURES` (default `target/generated-failures`): where a failing program is saved,
//!   in `SEED/` with the outputs of each run and `SYMPTOM.txt`, ready to become a fixture.
//! - `DRIP_GEN_CLANG` (default `clang-19`, else `clang`): the compiler that checks each program is
//!   valid C; a program it rejects is a bug of the generator and fails the test too.
//! - `DRIP_GEN_DRIP` (default: this build's `drip`): the binary under test, for a long run from a
//!   copy while the build changes; `DRIP_GEN_TIMEOUT_S` (default 120): the outer timeout per run.
//!
//! Reports are compared without `stats.time_ms` and `stats.cache` (times, and what the cache
//! did, differ between runs by design); everything before `stats`, the findings, byte for byte.

mod cgen;

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn env_num(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v}: not a whole number")),
        Err(_) => default,
    }
}

fn clang() -> String {
    if let Ok(c) = std::env::var("DRIP_GEN_CLANG") {
        return c;
    }
    for c in ["clang-19", "clang"] {
        if Command::new(c).arg("--version").stdout(Stdio::null()).status().is_ok_and(|s| s.success()) {
            return c.to_string();
        }
    }
    panic!("no clang-19 or clang on PATH (set DRIP_GEN_CLANG): it checks that generated programs are valid C");
}

/// Writes `program` and its compile database into `dir` (emptied first).
fn write_program(dir: &Path, program: &cgen::Program) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("create program dir");
    for (name, text) in &program.files {
        std::fs::write(dir.join(name), text).expect("write source");
    }
    let entries: Vec<serde_json::Value> = program
        .units()
        .map(|u| serde_json::json!({"directory": dir, "file": u, "arguments": ["cc", "-c", u]}))
        .collect();
    let db = serde_json::to_string_pretty(&entries).expect("json");
    std::fs::write(dir.join("compile_commands.json"), db).expect("write database");
}

/// `clang -fsyntax-only` over every TU: the error text when one is not valid C.
fn syntax_errors(clang: &str, dir: &Path, program: &cgen::Program) -> Option<String> {
    let out = Command::new(clang)
        .current_dir(dir)
        .args(["-fsyntax-only", "-w"])
        .args(program.units())
        .output()
        .expect("run clang");
    (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned())
}

struct Run {
    label: &'static str,
    /// Exit code, or the signal that ended it, or a timeout.
    end: End,
    wall: Duration,
    json: String,
    stderr: String,
}

#[derive(Debug, PartialEq)]
enum End {
    Code(i32),
    Signal(i32),
    TimedOut,
}

/// `drip check -p DIR --format json` with `args`, killed (its whole process group, parse workers
/// included) if it runs past `timeout`.
fn drip(dir: &Path, label: &'static str, args: &[&str], timeout: Duration) -> Run {
    let json = dir.join(format!("{label}.json"));
    let err = dir.join(format!("{label}.stderr"));
    let _ = std::fs::remove_file(&json);
    let started = Instant::now();
    let mut cmd = Command::new(std::env::var_os("DRIP_GEN_DRIP").unwrap_or(env!("CARGO_BIN_EXE_drip").into()));
    for v in ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"] {
        cmd.env_remove(v);
    }
    let mut child = cmd
        .current_dir(dir)
        .arg("check")
        .arg("-p")
        .arg(dir)
        .args(["--format", "json", "-o"])
        .arg(&json)
        // Modest budgets: a generated function is small, so any it hits is worth a look.
        .args(["--budget", "function-time-ms=2000", "--budget", "tu-time-ms=30000", "--budget", "sat-conflicts=20000"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err).expect("stderr file"))
        .process_group(0)
        .spawn()
        .expect("run drip");
    let end = loop {
        if let Some(status) = child.try_wait().expect("wait for drip") {
            break match (status.code(), status.signal()) {
                (Some(c), _) => End::Code(c),
                (None, Some(s)) => End::Signal(s),
                (None, None) => End::Signal(0),
            };
        }
        if started.elapsed() > timeout {
            // SAFETY: a plain kill(2) of the process group this test just created.
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = child.wait();
            break End::TimedOut;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run {
        label,
        end,
        wall: started.elapsed(),
        json: std::fs::read_to_string(&json).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
    }
}

/// What went wrong with one run on its own, if anything.
fn run_problem(r: &Run) -> Option<String> {
    if r.stderr.contains("panicked") {
        return Some(format!("{}: panic:\n{}", r.label, r.stderr));
    }
    match r.end {
        End::Code(0 | 1) => {}
        ref e => return Some(format!("{}: ended with {e:?} after {:?}:\n{}", r.label, r.wall, r.stderr)),
    }
    let v: serde_json::Value = match serde_json::from_str(&r.json) {
        Ok(v) => v,
        Err(e) => return Some(format!("{}: the report is not JSON ({e})", r.label)),
    };
    let stats = &v["stats"];
    for key in ["tus_failed", "tus_with_errors", "parse_errors", "functions_failed"] {
        if stats[key].as_u64() != Some(0) {
            return Some(format!("{}: stats.{key} = {} for a valid program:\n{}", r.label, stats[key], r.stderr));
        }
    }
    None
}

fn over_time(r: &Run) -> bool {
    serde_json::from_str::<serde_json::Value>(&r.json)
        .is_ok_and(|v| v["stats"]["functions_over_time"].as_u64() != Some(0))
}

/// The report without what differs between runs by design, and its bytes before `stats`.
fn comparable(r: &Run) -> (String, serde_json::Value) {
    let mut v: serde_json::Value = serde_json::from_str(&r.json).expect("checked JSON");
    if let Some(stats) = v["stats"].as_object_mut() {
        stats.remove("time_ms");
        stats.remove("cache");
    }
    let head = r.json.split("\"stats\"").next().unwrap_or_default().to_string();
    (head, v)
}

/// Everything that is wrong with drip on the program written in `dir`.
fn check_program(dir: &Path, timeout: Duration) -> (Vec<String>, bool) {
    let cache = dir.join("cache");
    let cache_arg = cache.to_str().expect("UTF-8 path");
    let mut runs = vec![
        drip(dir, "cold-j1", &["-j1", "--cache-dir", cache_arg], timeout),
        drip(dir, "nocache-j2", &["-j2", "--no-cache"], timeout),
    ];
    // An edit that changes one TU's bytes but not its meaning or any line: that TU is parsed
    // again, the others are loaded, and the findings must not change.
    let tu0 = dir.join("tu0.c");
    let mut text = std::fs::read_to_string(&tu0).expect("read tu0.c");
    text.push_str("/* edited */\n");
    std::fs::write(&tu0, text).expect("edit tu0.c");
    runs.push(drip(dir, "edited-j1", &["-j1", "--cache-dir", cache_arg], timeout));
    runs.push(drip(dir, "warm-j2", &["-j2", "--cache-dir", cache_arg], timeout));
    let mut problems: Vec<String> = runs.iter().filter_map(run_problem).collect();
    let slow = runs.iter().any(over_time);
    // A function over its time budget gets a verdict that depends on the machine's speed, so
    // such a program's runs may differ; it is counted and saved, not compared.
    if problems.is_empty() && !slow {
        let first = comparable(&runs[0]);
        for r in &runs[1..] {
            let other = comparable(r);
            if other.0 != first.0 {
                problems.push(format!(
                    "{} and {}: the findings differ (byte comparison before \"stats\")",
                    runs[0].label, r.label
                ));
            } else if other.1 != first.1 {
                problems.push(format!(
                    "{} and {}: the reports differ (outside stats.time_ms and stats.cache)",
                    runs[0].label, r.label
                ));
            }
        }
    }
    (problems, slow)
}

/// Copies the program and every run's output to `dest`, with the symptom.
fn save(dir: &Path, dest: &Path, seed: u64, symptom: &str) {
    let _ = std::fs::remove_dir_all(dest);
    std::fs::create_dir_all(dest).expect("create failure dir");
    for entry in std::fs::read_dir(dir).expect("read program dir").flatten() {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::copy(entry.path(), dest.join(entry.file_name()));
        }
    }
    let replay = format!("DRIP_GEN_COUNT=1 DRIP_GEN_SEED={seed} make test-generated");
    std::fs::write(dest.join("SYMPTOM.txt"), format!("seed {seed} (replay: {replay})\n\n{symptom}\n"))
        .expect("write symptom");
}

fn failures_dir() -> PathBuf {
    match std::env::var_os("DRIP_GEN_FAILURES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target dir").join("generated-failures"),
    }
}

#[test]
fn the_generator_is_deterministic_and_writes_valid_c() {
    let clang = clang();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("generated").join(format!("valid-{}", std::process::id()));
    let mut shapes = std::collections::BTreeSet::new();
    for seed in 0..25 {
        let p = cgen::generate(seed);
        let again = cgen::generate(seed);
        assert_eq!(p.files, again.files, "seed {seed}: two different programs");
        write_program(&dir, &p);
        if let Some(errors) = syntax_errors(&clang, &dir, &p) {
            panic!("seed {seed}: the generator wrote invalid C:\n{errors}");
        }
        let all: String = p.files.iter().map(|(_, t)| t.as_str()).collect();
        for shape in [
            "malloc(",
            "calloc(",
            "realloc(",
            "strdup(",
            "free(",
            "goto cleanup",
            "switch (",
            "while (",
            "for (",
            "do {",
            "->items[",
            "g_table[",
            "free_fn ",
            "[(unsigned)",
        ] {
            if all.contains(shape) {
                shapes.insert(shape);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_ne!(cgen::generate(1).files, cgen::generate(2).files, "different seeds, one program");
    assert_eq!(shapes.len(), 14, "25 programs should show every shape; seen only {shapes:?}");
}

#[test]
#[ignore = "minutes: make test-generated"]
fn generated_programs_survive_drip() {
    let count = env_num("DRIP_GEN_COUNT", 100);
    let first = env_num("DRIP_GEN_SEED", 1);
    let timeout = Duration::from_secs(env_num("DRIP_GEN_TIMEOUT_S", 120));
    let clang = clang();
    let failures = failures_dir();
    // One folder per process, so that two harnesses (a long run and `make test`) can share a target.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("generated").join(format!("work-{}", std::process::id()));
    eprintln!("generated: {count} programs from seed {first}; failing programs go to {}", failures.display());
    let started = Instant::now();
    let (mut failed, mut slow, mut tus, mut lines) = (Vec::new(), Vec::new(), 0, 0);
    for seed in first..first + count {
        let program = cgen::generate(seed);
        write_program(&dir, &program);
        tus += program.units().count();
        lines += program.files.iter().map(|(_, t)| t.lines().count()).sum::<usize>();
        let (problems, over) = match syntax_errors(&clang, &dir, &program) {
            Some(errors) => (vec![format!("generator bug: not valid C:\n{errors}")], false),
            None => check_program(&dir, timeout),
        };
        if !problems.is_empty() {
            let dest = failures.join(seed.to_string());
            let symptom = problems.join("\n\n");
            save(&dir, &dest, seed, &symptom);
            eprintln!("generated: seed {seed} FAILED (saved in {}):\n{symptom}", dest.display());
            failed.push(seed);
        } else if over {
            save(
                &dir,
                &failures.join("over-time").join(seed.to_string()),
                seed,
                "a function over function-time-ms=2000",
            );
            slow.push(seed);
        }
        let done = seed - first + 1;
        if done % 100 == 0 {
            eprintln!("generated: {done}/{count} in {:.0?}, {} failed", started.elapsed(), failed.len());
        }
        if failed.len() >= 20 {
            eprintln!("generated: stopping after 20 failures");
            break;
        }
    }
    eprintln!(
        "generated: {count} programs ({tus} TUs, {lines} lines) from seed {first} in {:.1?}: {} failed {failed:?}, {} over a time budget {slow:?}",
        started.elapsed(),
        failed.len(),
        slow.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failed.is_empty(),
        "seeds {failed:?} failed: see {} (replay: DRIP_GEN_COUNT=1 DRIP_GEN_SEED=<seed> make test-generated)",
        failures.display()
    );
}
