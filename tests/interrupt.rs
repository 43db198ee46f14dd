//! Runs cut short: `drip check` and `drip capture` killed at any point (SIGINT from a terminal
//! to the whole process group, SIGTERM or SIGKILL to drip alone) must leave nothing behind that
//! the next run trips over. After each kill: no process of the run outlives it (parse workers
//! die with drip), the next `drip check` on the same cache reports exactly what a run without
//! a cache reports, and the next `drip capture` of the same build writes a database with every
//! compile, also those that finished after drip itself was killed. Two `drip check` runs on one
//! cache at the same time both give the uninterrupted run's report.
//!
//! The project is Lua 5.4 (32 TUs, fetched through cargo like `capture_lua.rs`): big enough
//! that a kill lands in the parse, the analysis or the cache writes depending on its delay,
//! which is a fraction of the uninterrupted run's time. Where exactly a kill lands varies with
//! the machine's load; what is asserted holds wherever it lands.

mod real;

use real::*;
use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LUA_FLAGS: &[&str] = &["-std=gnu99", "-O0", "-DLUA_COMPAT_5_3", "-DLUA_USE_LINUX"];

fn lua_src() -> PathBuf {
    crate_source(LUA_CRATE).join("lua-5.4.9")
}

fn lua_files(src: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(src)
        .expect("lua sources")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    v.sort();
    assert!(v.len() >= 30, "{} C files in {}", v.len(), src.display());
    v
}

/// How a run is cut short.
#[derive(Clone, Copy, Debug)]
enum Cut {
    /// Ctrl-C at a terminal: SIGINT to the whole foreground process group.
    InterruptGroup,
    /// `kill PID`: SIGTERM to drip alone.
    Terminate,
    /// The OOM killer or `kill -9 PID`: SIGKILL to drip alone.
    Kill,
}

impl Cut {
    const ALL: [Cut; 3] = [Cut::InterruptGroup, Cut::Terminate, Cut::Kill];

    fn send(self, child: &Child) {
        let pid = child.id() as libc::pid_t;
        // SAFETY: plain kill(2) of a process (group) this test started in its own group.
        unsafe {
            match self {
                Cut::InterruptGroup => libc::kill(-pid, libc::SIGINT),
                Cut::Terminate => libc::kill(pid, libc::SIGTERM),
                Cut::Kill => libc::kill(pid, libc::SIGKILL),
            };
        }
    }
}

/// Is any process of process group `pgid` still alive?
fn group_alive(pgid: u32) -> bool {
    // SAFETY: signal 0 only asks whether a process of the group exists.
    unsafe { libc::kill(-(pgid as libc::pid_t), 0) == 0 }
}

/// Wait for `child` (at most `limit`), then for every other process of its group to end (at most
/// `limit` again): false if one is still there.
fn wait_group(child: &mut Child, limit: Duration) -> bool {
    let t = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        assert!(t.elapsed() < limit, "drip did not end within {limit:?} of the signal");
        std::thread::sleep(Duration::from_millis(10));
    }
    let t = Instant::now();
    while group_alive(child.id()) {
        if t.elapsed() > limit {
            // SAFETY: as above; clean up before failing.
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// A compile database for Lua's sources, written in `dir`.
fn lua_database(dir: &Path, src: &Path) {
    let entries: Vec<serde_json::Value> = lua_files(src)
        .iter()
        .map(|f| {
            let mut args = vec!["cc".to_string()];
            args.extend(LUA_FLAGS.iter().map(|s| s.to_string()));
            args.extend(["-c".to_string(), f.display().to_string()]);
            serde_json::json!({"directory": src, "file": f, "arguments": args})
        })
        .collect();
    std::fs::write(dir.join("compile_commands.json"), serde_json::to_string_pretty(&entries).expect("json"))
        .expect("write database");
}

fn check_cmd(dir: &Path, out: &str, cache: Option<&Path>) -> Command {
    let mut c = drip();
    c.current_dir(dir)
        .args(["check", "-p", "compile_commands.json", "--all-categories", "-j2", "--format", "json", "-o", out])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    match cache {
        Some(p) => c.arg("--cache-dir").arg(p),
        None => c.arg("--no-cache"),
    };
    c
}

/// The report without what differs between runs by design (times, what the cache did).
fn comparable(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("the report is JSON");
    if let Some(stats) = v["stats"].as_object_mut() {
        stats.remove("time_ms");
        stats.remove("cache");
    }
    v
}

fn finish(mut c: Command, what: &str) -> Option<i32> {
    let out = c.output().expect("run drip");
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{what}: {:?}: {}", out.status, tail(&err, 20));
    out.status.code()
}

#[test]
fn check_killed_anywhere_leaves_a_cache_the_next_run_trusts() {
    let src = lua_src();
    let dir = scratch("interrupt-check");
    lua_database(&dir, &src);

    let t = Instant::now();
    let code = finish(check_cmd(&dir, "reference.json", None), "the run without a cache");
    let full = t.elapsed();
    let reference = comparable(&dir.join("reference.json"));
    assert!(reference["stats"]["tus_parsed"].as_u64() >= Some(30), "{}", reference["stats"]);

    let cache = dir.join("cache");
    let mut landed = Vec::new();
    for cut in Cut::ALL {
        for pct in [10u32, 50, 90] {
            let mut c = check_cmd(&dir, "cut.json", Some(&cache));
            let mut child = c.stderr(Stdio::null()).process_group(0).spawn().expect("run drip");
            std::thread::sleep(full * pct / 100);
            let ran_out = child.try_wait().expect("wait").is_some();
            cut.send(&child);
            assert!(
                wait_group(&mut child, Duration::from_secs(10)),
                "{cut:?} at {pct}%: a process of the run (a parse worker?) outlived drip"
            );
            landed.push(format!("{cut:?} at {pct}%: {}", if ran_out { "after the end" } else { "during the run" }));
            let what = format!("the run after {cut:?} at {pct}%");
            assert_eq!(finish(check_cmd(&dir, "next.json", Some(&cache)), &what), code, "{what}");
            assert_eq!(comparable(&dir.join("next.json")), reference, "{what} reports what a run without a cache does");
        }
    }
    eprintln!("{}", landed.join("\n"));

    // Two runs at once on one empty cache: each gives the whole report, and so does a third
    // that reads what both stored.
    let shared = dir.join("shared-cache");
    let a = check_cmd(&dir, "a.json", Some(&shared)).spawn().expect("run a");
    let b = check_cmd(&dir, "b.json", Some(&shared)).spawn().expect("run b");
    for (child, name) in [(a, "a.json"), (b, "b.json")] {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), code, "{name}: {}", tail(&stderr(&out), 20));
        assert_eq!(comparable(&dir.join(name)), reference, "{name}, run beside another on one cache");
    }
    assert_eq!(finish(check_cmd(&dir, "c.json", Some(&shared)), "after the pair"), code);
    assert_eq!(comparable(&dir.join("c.json")), reference, "the run after the pair");
}

/// Lua's library built by make from `src` into `dir/obj`, at -O0 so the build is quick.
fn lua_project(name: &str, src: &Path) -> PathBuf {
    let dir = scratch(name);
    let makefile = format!(
        "SRC = {}\n\
         CFLAGS = {}\n\
         OBJS = $(patsubst $(SRC)/%.c,obj/%.o,$(wildcard $(SRC)/*.c))\n\
         all: $(OBJS)\n\
         obj:\n\tmkdir -p obj\n\
         obj/%.o: $(SRC)/%.c | obj\n\t$(CC) $(CFLAGS) -c $< -o $@\n",
        src.display(),
        LUA_FLAGS.join(" ")
    );
    std::fs::write(dir.join("Makefile"), makefile).expect("Makefile");
    dir
}

fn captured_files(dir: &Path) -> BTreeSet<String> {
    db(dir).iter().map(|e| field(e, "file")).collect()
}

fn capture_cmd(dir: &Path) -> Command {
    let mut c = drip();
    c.current_dir(dir).args(["capture", "--", "make", "-j2"]).stdin(Stdio::null()).stdout(Stdio::null());
    c
}

#[test]
fn capture_killed_anywhere_then_run_again_records_every_compile() {
    let src = lua_src();
    let expected: BTreeSet<String> = lua_files(&src).iter().map(|p| p.display().to_string()).collect();

    let plain = lua_project("interrupt-capture-plain", &src);
    let t = Instant::now();
    let out = capture_cmd(&plain).stderr(Stdio::piped()).output().expect("run drip capture");
    let full = t.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", tail(&stderr(&out), 20));
    assert_eq!(captured_files(&plain), expected, "the uninterrupted capture");

    for cut in Cut::ALL {
        for pct in [30u32, 70] {
            let what = format!("{cut:?} at {pct}%");
            let dir = lua_project(&format!("interrupt-capture-{cut:?}-{pct}"), &src);
            let mut child = capture_cmd(&dir).stderr(Stdio::null()).process_group(0).spawn().expect("run capture");
            std::thread::sleep(full * pct / 100);
            cut.send(&child);
            // After SIGKILL the build goes on without drip (make and the compilers are in the
            // group): the wait covers it, and its compiles must not be lost.
            assert!(wait_group(&mut child, Duration::from_secs(60)), "{what}: the build did not end");
            if dir.join("compile_commands.json").exists() {
                let partial = captured_files(&dir);
                assert!(partial.is_subset(&expected), "{what}: {partial:?}");
                let (code, stats, err) = check(&dir);
                assert!(matches!(code, Some(0 | 1)), "{what}: check on the interrupted database: {}", tail(&err, 20));
                assert_eq!(stats["tus_failed"], 0, "{what}: {stats}");
            }
            let out = capture_cmd(&dir).stderr(Stdio::piped()).output().expect("run drip capture again");
            assert_eq!(out.status.code(), Some(0), "{what}, run again: {}", tail(&stderr(&out), 20));
            assert_eq!(captured_files(&dir), expected, "{what}, run again: every compile is in the database");
            let (code, stats, err) = check(&dir);
            assert!(matches!(code, Some(0 | 1)), "{what}: {}", tail(&err, 20));
            assert_eq!(stats["tus_total"].as_u64(), Some(expected.len() as u64), "{what}: {stats}");
            assert_eq!(stats["tus_failed"], 0, "{what}: {stats}");
        }
    }
}
