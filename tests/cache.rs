//! The incremental cache, end to end: a warm run (or a run after an edit) must print exactly what
//! a run without the cache prints, and do only the work the edit calls for. Each test writes its
//! own small project (three TUs, one shared header, seven functions in a call chain) into a
//! temporary directory; the cache is the default `.drip/` next to its compile_commands.json.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const UTIL_H: &str = r#"#include <stdlib.h>
struct item { char *name; int n; };
void *xmalloc(size_t n);
char *xstrdup(const char *s);
struct item *item_new(const char *name);
void item_free(struct item *it);
"#;

const ALLOC_C: &str = r#"#include <string.h>
#include "util.h"

void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p)
        exit(1);
    return p;
}

char *xstrdup(const char *s) {
    char *d = xmalloc(strlen(s) + 1);
    strcpy(d, s);
    return d;
}
"#;

const ITEM_C: &str = r#"#include "util.h"

struct item *item_new(const char *name) {
    struct item *it = xmalloc(sizeof *it);
    it->name = xstrdup(name);
    it->n = 0;
    return it;
}

void item_free(struct item *it) {
    free(it->name);
    free(it);
}
"#;

// Declares what it uses itself: it does not include util.h.
const MAIN_C: &str = r#"#include <stdlib.h>
struct item;
struct item *item_new(const char *name);
void item_free(struct item *it);
char *xstrdup(const char *s);

int use_item(const char *s) {
    struct item *it = item_new(s);
    item_free(it);
    return 0;
}

int leaky(const char *s, int fail) {
    char *copy = xstrdup(s);
    if (fail)
        return -1;
    free(copy);
    return 0;
}

int main(int argc, char **argv) {
    use_item(argv[0]);
    return leaky(argv[0], argc > 1);
}
"#;

/// Functions in the project; none is recursive, so each is one SCC.
const FUNCTIONS: usize = 7;

fn project(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cache").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create project dir");
    for (file, text) in [("util.h", UTIL_H), ("alloc.c", ALLOC_C), ("item.c", ITEM_C), ("main.c", MAIN_C)] {
        std::fs::write(dir.join(file), text).expect("write source");
    }
    let entries: Vec<serde_json::Value> = ["alloc.c", "item.c", "main.c"]
        .iter()
        .map(|f| {
            serde_json::json!({
                "directory": dir.display().to_string(),
                "file": f,
                "arguments": ["cc", "-std=gnu11", "-c", f, "-o", format!("{f}.o")],
            })
        })
        .collect();
    let db = serde_json::to_string_pretty(&entries).expect("json");
    std::fs::write(dir.join("compile_commands.json"), db).expect("write compile_commands.json");
    dir
}

/// Replace `from` by `to` in one file of the project (the edit must apply).
fn edit(dir: &Path, file: &str, from: &str, to: &str) {
    let p = dir.join(file);
    let text = std::fs::read_to_string(&p).expect("read source");
    assert!(text.contains(from), "{file} contains {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write source");
}

/// The cache line of `--stats`, as numbers.
#[derive(Debug, PartialEq, Eq, Default)]
struct CacheCounts {
    tus_loaded: usize,
    tus_parsed: usize,
    sccs_reused: usize,
    sccs_checked: usize,
    rejected: usize,
    run_reused: bool,
    used: bool,
}

struct Run {
    code: Option<i32>,
    sarif: String,
    stderr: String,
    cache: CacheCounts,
}

fn drip(dir: &Path, extra: &[&str]) -> Run {
    let out_file = dir.join("out.sarif");
    let _ = std::fs::remove_file(&out_file);
    let out: Output = Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(dir)
        .args(["check", "-p", ".", "--stats", "--format", "sarif", "-o"])
        .arg(&out_file)
        .args(extra)
        .output()
        .expect("run drip");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let sarif = without_invocation_details(&std::fs::read_to_string(&out_file).unwrap_or_default());
    let cache = parse_cache_line(&stderr);
    Run { code: out.status.code(), sarif, stderr, cache }
}

/// The SARIF log without the parts that say how and when drip ran (its command line and start
/// and end times), which differ between any two runs; everything else must not.
fn without_invocation_details(sarif: &str) -> String {
    let Ok(mut log) = serde_json::from_str::<serde_json::Value>(sarif) else {
        return sarif.to_string();
    };
    if let Some(invocation) = log.pointer_mut("/runs/0/invocations/0").and_then(|i| i.as_object_mut()) {
        for key in ["commandLine", "startTimeUtc", "endTimeUtc"] {
            invocation.remove(key);
        }
    }
    serde_json::to_string_pretty(&log).expect("json") + "\n"
}

fn parse_cache_line(stderr: &str) -> CacheCounts {
    let Some(line) = stderr.lines().find(|l| l.trim_start().starts_with("cache ")) else {
        return CacheCounts::default();
    };
    if line.contains("not used") {
        return CacheCounts::default();
    }
    let n: Vec<usize> =
        line.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).filter_map(|s| s.parse().ok()).collect();
    // TUs loaded, parsed, not cacheable; SCCs reused, re-checked; rejected, not written; times.
    assert!(n.len() >= 7, "unexpected cache line: {line}");
    CacheCounts {
        tus_loaded: n[0],
        tus_parsed: n[1],
        sccs_reused: n[3],
        sccs_checked: n[4],
        rejected: n[5],
        run_reused: line.contains("whole result reused"),
        used: true,
    }
}

/// A run without the cache: the reference every cached run must match byte for byte.
fn reference(dir: &Path) -> Run {
    let r = drip(dir, &["--no-cache"]);
    assert!(!r.cache.used, "{}", r.stderr);
    assert_eq!(r.code, Some(1), "the project has a leak: {}", r.stderr);
    assert!(r.sarif.contains("\"leak\""), "{}", r.sarif);
    r
}

fn assert_same_output(run: &Run, reference: &Run, what: &str) {
    assert_eq!(run.code, reference.code, "{what}: exit code; {}", run.stderr);
    if run.sarif != reference.sarif {
        let first = run.sarif.lines().zip(reference.sarif.lines()).position(|(a, b)| a != b);
        let line = |s: &str, i: Option<usize>| i.and_then(|i| s.lines().nth(i)).unwrap_or("(end)").to_string();
        panic!(
            "{what}: SARIF differs from a run without the cache, first at line {first:?}:\n  cached: {}\n  fresh:  {}\nstderr: {}",
            line(&run.sarif, first),
            line(&reference.sarif, first),
            run.stderr
        );
    }
}

fn remove_run_record(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir.join(".drip").join("run"));
}

fn entries(dir: &Path, kind: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join(".drip").join(kind))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn a_warm_run_replays_the_cold_run_exactly() {
    let dir = project("warm");
    let want = reference(&dir);
    let cold = drip(&dir, &[]);
    assert_same_output(&cold, &want, "cold");
    assert_eq!(
        cold.cache,
        CacheCounts { tus_parsed: 3, sccs_checked: FUNCTIONS, used: true, ..Default::default() },
        "{}",
        cold.stderr
    );
    assert_eq!(entries(&dir, "tu").len(), 3, "one entry per TU");

    let warm = drip(&dir, &[]);
    assert_same_output(&warm, &want, "warm");
    assert_eq!(
        warm.cache,
        CacheCounts { run_reused: true, used: true, ..Default::default() },
        "nothing parsed: {}",
        warm.stderr
    );

    // Without the whole-run record: every TU loaded, every SCC reused.
    remove_run_record(&dir);
    let warm = drip(&dir, &[]);
    assert_same_output(&warm, &want, "warm, per SCC");
    assert_eq!(
        warm.cache,
        CacheCounts { tus_loaded: 3, sccs_reused: FUNCTIONS, used: true, ..Default::default() },
        "{}",
        warm.stderr
    );
    // Other thread counts and verbosity give the same output from the cache.
    let j1 = drip(&dir, &["-j1", "-v"]);
    assert_same_output(&j1, &want, "warm, -j1 -v");
}

#[test]
fn an_edit_that_keeps_the_summary_rechecks_only_its_function() {
    let dir = project("cut-off");
    drip(&dir, &[]);
    // Same length, same lines: only the exit status differs, which no summary records.
    edit(&dir, "alloc.c", "exit(1)", "exit(2)");
    let want = reference(&dir);
    let run = drip(&dir, &[]);
    assert_same_output(&run, &want, "after editing xmalloc");
    assert_eq!(
        run.cache,
        CacheCounts {
            tus_loaded: 2,
            tus_parsed: 1,
            sccs_reused: FUNCTIONS - 1,
            sccs_checked: 1,
            used: true,
            ..Default::default()
        },
        "only alloc.c parsed, only xmalloc checked: {}",
        run.stderr
    );
}

#[test]
fn an_edit_that_changes_a_summary_rechecks_the_sccs_above_it() {
    let dir = project("above");
    let before = drip(&dir, &[]);
    // item_free no longer frees the item: its summary changes, so use_item (its only caller) is
    // checked again and now leaks; main calls use_item, whose own summary does not change.
    edit(&dir, "item.c", "    free(it);\n", "    (void)it;\n");
    let want = reference(&dir);
    assert_ne!(want.sarif, before.sarif, "the edit changes the findings");
    let run = drip(&dir, &[]);
    assert_same_output(&run, &want, "after editing item_free");
    assert_eq!(
        run.cache,
        CacheCounts {
            tus_loaded: 2,
            tus_parsed: 1,
            sccs_reused: FUNCTIONS - 2,
            sccs_checked: 2,
            used: true,
            ..Default::default()
        },
        "item.c parsed; item_free and use_item checked: {}",
        run.stderr
    );
    // And the new state is cached in turn.
    let again = drip(&dir, &[]);
    assert_same_output(&again, &want, "warm after the edit");
    assert!(again.cache.run_reused, "{}", again.stderr);
}

#[test]
fn a_callee_that_starts_writing_a_tested_global_rechecks_its_caller() {
    // `modal` tests `mode` before and after calling `refresh`, in another TU: while `refresh`
    // writes only `other`, the two tests go the same way and nothing leaks. Once it writes
    // `mode`, its summary's globals change, and `modal` must be checked again.
    let dir = project("global-writes");
    edit(
        &dir,
        "item.c",
        "void item_free(",
        "int mode;\nint other;\n\nvoid set_mode(int m) {\n    mode = m;\n    other = m;\n}\n\nvoid refresh(void) {\n    other = 1;\n}\n\nvoid item_free(",
    );
    edit(
        &dir,
        "main.c",
        "int leaky(",
        "extern int mode;\nvoid refresh(void);\n\nint modal(void) {\n    char *saved = 0;\n    if (mode)\n        saved = xstrdup(\"x\");\n    refresh();\n    if (mode)\n        free(saved);\n    return 0;\n}\n\nint leaky(",
    );
    let before = drip(&dir, &[]);
    assert!(!before.sarif.contains("modal"), "no leak in modal yet: {}", before.sarif);
    edit(&dir, "item.c", "    other = 1;\n", "    mode = 0;\n");
    let want = reference(&dir);
    assert!(want.sarif.contains("modal"), "the fresh run reports modal: {}", want.sarif);
    let run = drip(&dir, &[]);
    assert_same_output(&run, &want, "after refresh starts writing mode");
    assert_eq!(
        (run.cache.tus_parsed, run.cache.sccs_checked, run.cache.sccs_reused),
        (1, 2, FUNCTIONS + 1),
        "item.c parsed; refresh and modal checked: {}",
        run.stderr
    );
}

#[test]
fn a_function_that_gains_its_first_caller_is_summarised_again() {
    // Nobody calls item_drop_name at first, so its summary leaves out heap effects (no caller
    // would read them). Once main.c calls it, the double free below is only seen through the
    // effect "frees it->name": item.c is unchanged and loaded from the cache, but its SCC must
    // not be reused.
    let dir = project("first-caller");
    edit(
        &dir,
        "item.c",
        "void item_free(",
        "void item_drop_name(struct item *it) {\n    free(it->name);\n}\n\nvoid item_free(",
    );
    let before = drip(&dir, &[]);
    assert!(!before.sarif.contains("\"ruleId\": \"double-free\""), "{}", before.sarif);
    edit(
        &dir,
        "main.c",
        "int leaky(",
        "void item_drop_name(struct item *it);\n\nint twice(const char *s) {\n    struct item *it = item_new(s);\n    item_drop_name(it);\n    item_free(it);\n    return 0;\n}\n\nint leaky(",
    );
    let want = reference(&dir);
    assert!(want.sarif.contains("\"ruleId\": \"double-free\""), "the fresh run sees the double free: {}", want.sarif);
    let run = drip(&dir, &[]);
    assert_same_output(&run, &want, "after adding the first caller");
    assert_eq!((run.cache.tus_loaded, run.cache.tus_parsed), (2, 1), "only main.c parsed: {}", run.stderr);
}

#[test]
fn an_edited_header_reparses_every_tu_that_includes_it() {
    let dir = project("header");
    drip(&dir, &[]);
    // Appended: no location of an existing declaration moves.
    edit(
        &dir,
        "util.h",
        "void item_free(struct item *it);\n",
        "void item_free(struct item *it);\nint item_count(void);\n",
    );
    let want = reference(&dir);
    let run = drip(&dir, &[]);
    assert_same_output(&run, &want, "after editing util.h");
    assert_eq!(
        (run.cache.tus_parsed, run.cache.tus_loaded),
        (2, 1),
        "alloc.c and item.c include util.h: {}",
        run.stderr
    );
    assert!(!run.cache.run_reused);
}

/// Damage every entry of `kind` with `damage`, run, and check that the damage was detected,
/// counted, rebuilt, and changed nothing in the output; then that the next run trusts the cache.
fn damaged(name: &str, kind: &str, damage: fn(&mut Vec<u8>), keep_run_record: bool, expect: CacheCounts) {
    let dir = project(name);
    let want = reference(&dir);
    drip(&dir, &[]);
    if !keep_run_record {
        remove_run_record(&dir);
    }
    let files = entries(&dir, kind);
    assert!(!files.is_empty(), "{name}: entries of kind {kind}");
    for f in &files {
        let mut bytes = std::fs::read(f).expect("read entry");
        damage(&mut bytes);
        std::fs::write(f, bytes).expect("write entry");
    }
    let run = drip(&dir, &["-v"]);
    assert_same_output(&run, &want, name);
    assert_eq!(run.cache, expect, "{name}: {}", run.stderr);
    assert!(run.stderr.contains("rejected"), "{name}: -v says why: {}", run.stderr);
    let next = drip(&dir, &[]);
    assert_same_output(&next, &want, name);
    assert_eq!(
        next.cache,
        CacheCounts { run_reused: true, used: true, ..Default::default() },
        "{name}: rebuilt: {}",
        next.stderr
    );
}

#[test]
fn truncated_tu_entries_are_rejected_and_rebuilt() {
    damaged(
        "truncated-tu",
        "tu",
        |b| b.truncate(b.len() / 2),
        true,
        // The TUs are parsed again; their SCCs are unchanged, so reused.
        CacheCounts { tus_parsed: 3, sccs_reused: FUNCTIONS, rejected: 3, used: true, ..Default::default() },
    );
}

#[test]
fn a_flipped_byte_in_the_scc_table_is_rejected_and_rebuilt() {
    damaged(
        "flipped-scc",
        "scc",
        |b| {
            let i = b.len() / 2;
            b[i] ^= 0x10;
        },
        false,
        CacheCounts { tus_loaded: 3, sccs_checked: FUNCTIONS, rejected: 1, used: true, ..Default::default() },
    );
}

#[test]
fn a_run_record_of_another_version_is_rejected_and_rebuilt() {
    damaged(
        "version-run",
        "run",
        // The format version, right after the magic.
        |b| b[8] ^= 0xff,
        true,
        CacheCounts { tus_loaded: 3, sccs_reused: FUNCTIONS, rejected: 1, used: true, ..Default::default() },
    );
}

#[test]
fn an_unusable_cache_directory_warns_once_and_changes_nothing_else() {
    let dir = project("unusable");
    let want = reference(&dir);
    std::fs::write(dir.join("not-a-dir"), "x").expect("write");
    // Below a regular file: cannot be created, whoever runs the test (root included).
    let run = drip(&dir, &["--cache-dir", "not-a-dir/cache"]);
    assert_same_output(&run, &want, "unusable cache dir");
    assert_eq!(run.stderr.matches("running without the cache").count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("drip: warning: cannot use the cache directory"), "{}", run.stderr);
    assert!(!run.cache.used, "{}", run.stderr);
    assert!(!dir.join(".drip").exists(), "nothing written elsewhere");
}

#[test]
fn the_cache_lives_next_to_the_compile_database_unless_told_otherwise() {
    let dir = project("location");
    drip(&dir, &["--no-cache"]);
    assert!(!dir.join(".drip").exists(), "--no-cache writes nothing");
    let elsewhere = dir.join("elsewhere");
    drip(&dir, &["--cache-dir", "elsewhere"]);
    assert!(elsewhere.join("tu").is_dir() && !dir.join(".drip").exists());
    // Given as `-p <file>` from another directory: still next to the file.
    let out = Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(dir.join("elsewhere"))
        .args(["check", "-p"])
        .arg(dir.join("compile_commands.json"))
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(entries(&dir, "tu").len(), 3);
    // Files on the command line: `.drip/` in the current directory.
    let out = Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(dir.join("elsewhere"))
        .args(["check"])
        .arg(dir.join("main.c"))
        .output()
        .expect("run drip");
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(entries(&dir.join("elsewhere"), "tu").len(), 1);
}

/// Write `compile_commands.json` for `files` of `dir`.
fn compdb(dir: &Path, files: &[String]) {
    let entries: Vec<serde_json::Value> = files
        .iter()
        .map(|f| {
            let (cc, std) = if f.ends_with(".cpp") { ("c++", "-std=gnu++17") } else { ("cc", "-std=gnu11") };
            serde_json::json!({
                "directory": dir.display().to_string(),
                "file": f,
                "arguments": [cc, std, "-c", f],
            })
        })
        .collect();
    std::fs::write(dir.join("compile_commands.json"), serde_json::to_string_pretty(&entries).expect("json"))
        .expect("write");
}

/// Over every multi-file fixture project (wrapper chains, recursion, dispatch through
/// function-pointer fields and tables, heap effects, C++ virtual calls whose overrides are in
/// other files): the cached results equal fresh ones when
/// nothing changed, when any one TU disappears from the program (its functions become unknown
/// callees) and comes back, and when one file stops freeing anything or moves down a line (the
/// summaries of its functions change under callers whose own code does not).
#[test]
fn cached_results_equal_fresh_ones_on_every_fixture_project() {
    let projects = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&projects).expect("projects").flatten().map(|e| e.path()).collect();
    names.sort();
    assert!(names.len() >= 5, "fixture projects: {names:?}");
    for src in names {
        let name = src.file_name().expect("name").to_string_lossy().into_owned();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cache-projects").join(&name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        let mut tus = Vec::new();
        for f in std::fs::read_dir(&src).expect("project").flatten() {
            let fname = f.file_name().to_string_lossy().into_owned();
            std::fs::copy(f.path(), dir.join(&fname)).expect("copy");
            if fname.ends_with(".c") || fname.ends_with(".cpp") {
                tus.push(fname);
            }
        }
        tus.sort();
        let all = ["--all-categories"];
        compdb(&dir, &tus);
        let want = drip(&dir, &["--no-cache", "--all-categories"]);
        assert!(want.code.is_some_and(|c| c <= 1), "{name}: {}", want.stderr);
        assert_same_output(&drip(&dir, &all), &want, &format!("{name}: cold, cached"));
        remove_run_record(&dir);
        let warm = drip(&dir, &all);
        assert_same_output(&warm, &want, &format!("{name}: warm"));
        assert_eq!(warm.cache.sccs_checked, 0, "{name}: {}", warm.stderr);
        for gone in &tus {
            let rest: Vec<String> = tus.iter().filter(|t| *t != gone).cloned().collect();
            compdb(&dir, &rest);
            let want_rest = drip(&dir, &["--no-cache", "--all-categories"]);
            let run = drip(&dir, &all);
            assert_same_output(&run, &want_rest, &format!("{name} without {gone}"));
            assert_eq!(run.cache.tus_parsed, 0, "{name} without {gone}: {}", run.stderr);
        }
        compdb(&dir, &tus);
        assert_same_output(&drip(&dir, &all), &want, &format!("{name}: all TUs again"));
        // One file at a time frees nothing (same lines): the summaries of its deallocators change
        // while their callers in other files do not change at all.
        // Or moves everything in it down a line: the allocation origins that diagnostics in other
        // files show below a wrapper (`'xstrdup' gets the memory from 'xmalloc' at …`) move too.
        type Edit = (&'static str, fn(&str) -> String);
        let edits: [Edit; 2] =
            [("freeing nothing", |t| t.replace("free(", "(void)(")), ("one line down", |t| format!("\n{t}"))];
        for (edited, (how, change)) in tus.iter().flat_map(|t| edits.iter().map(move |e| (t, e))) {
            let path = dir.join(edited);
            let original = std::fs::read_to_string(&path).expect("read");
            let changed = change(&original);
            if changed == original {
                continue;
            }
            std::fs::write(&path, changed).expect("write");
            let want_edit = drip(&dir, &["--no-cache", "--all-categories"]);
            let run = drip(&dir, &all);
            assert_same_output(&run, &want_edit, &format!("{name} with {edited} {how}"));
            assert_eq!(run.cache.tus_parsed, 1, "{name} with {edited} edited: {}", run.stderr);
            std::fs::write(&path, original).expect("restore");
            // One entry per TU: the restored file is parsed again (and the SCCs above it are
            // checked again), and the output is the original one.
            assert_same_output(&drip(&dir, &all), &want, &format!("{name} with {edited} restored"));
        }
    }
}

/// `drip check -p . --format json` in `dir` with `extra`, which must find something (exit 1).
fn json_check(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(dir)
        .args(["check", "-p", ".", "--format", "json"])
        .args(extra)
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("json output")
}

#[test]
fn json_statistics_say_what_came_from_the_cache() {
    let dir = project("json");
    let run = |extra: &[&str]| json_check(&dir, extra);
    let cold = run(&[]);
    let warm = run(&[]);
    assert_eq!(cold["stats"]["cache"]["tus_parsed"], 3);
    assert_eq!(warm["stats"]["cache"]["tus_parsed"], 0);
    assert_eq!(warm["stats"]["cache"]["run_reused"], true);
    assert_eq!(cold["diagnostics"], warm["diagnostics"]);
    // Everything but times and the cache's own counts is the same as in the cold run.
    let strip = |v: &serde_json::Value| {
        let mut s = v["stats"].clone();
        s.as_object_mut().map(|o| {
            o.remove("time_ms");
            o.remove("cache")
        });
        s
    };
    assert_eq!(strip(&cold), strip(&warm));
    let uncached = run(&["--no-cache"]);
    assert_eq!(uncached["stats"]["cache"]["disabled"], true);
    assert_eq!(strip(&cold), strip(&uncached));
}

/// Something else at an entry's name — a directory, a FIFO — is rejected (never opened: a FIFO
/// would block), removed, and the entry written again, so the run after is fully cached.
#[test]
fn entries_replaced_by_directories_and_fifos_are_healed() {
    let dir = project("not-files");
    let want = reference(&dir);
    drip(&dir, &[]);
    remove_run_record(&dir);
    let files = entries(&dir, "tu");
    assert_eq!(files.len(), 3);
    for (i, f) in files.iter().enumerate() {
        std::fs::remove_file(f).expect("remove entry");
        if i == 0 {
            let status = std::process::Command::new("mkfifo").arg(f).status().expect("mkfifo");
            assert!(status.success());
        } else {
            std::fs::create_dir_all(f.join("inside")).expect("a directory in its place");
        }
    }
    let run = drip(&dir, &["-v"]);
    assert_same_output(&run, &want, "not-files");
    assert_eq!(
        run.cache,
        CacheCounts { tus_parsed: 3, sccs_reused: FUNCTIONS, rejected: 3, used: true, ..Default::default() },
        "{}",
        run.stderr
    );
    let next = drip(&dir, &[]);
    assert_same_output(&next, &want, "not-files");
    assert_eq!(
        next.cache,
        CacheCounts { run_reused: true, used: true, ..Default::default() },
        "healed: {}",
        next.stderr
    );
}

/// Makes directories immutable (`chattr +i`, which binds root too) and undoes it when dropped,
/// whatever the test does in between.
struct Immutable(Vec<PathBuf>);

impl Immutable {
    fn set(dirs: Vec<PathBuf>) -> Option<Immutable> {
        let ok = Command::new("chattr").arg("+i").args(&dirs).status().is_ok_and(|s| s.success());
        let guard = Immutable(dirs);
        ok.then_some(guard)
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").args(&self.0).status();
    }
}

/// A cache restored read-only (a CI job's cache step) is still read: the TUs and SCCs come from
/// it, nothing is stored or swept, the output is the same, and stderr says why nothing is stored.
#[test]
fn a_read_only_cache_is_read() {
    let dir = project("read-only");
    let want = reference(&dir);
    drip(&dir, &[]);
    remove_run_record(&dir);
    let cache = dir.join(".drip");
    let mut dirs = vec![cache.clone()];
    dirs.extend(["tu", "scc", "run"].iter().map(|k| cache.join(k)));
    let Some(_guard) = Immutable::set(dirs) else {
        eprintln!("a_read_only_cache_is_read: chattr +i is not supported here; not checked");
        return;
    };
    let run = drip(&dir, &[]);
    assert_same_output(&run, &want, "read-only");
    assert_eq!(
        run.cache,
        CacheCounts { tus_loaded: 3, sccs_reused: FUNCTIONS, used: true, ..Default::default() },
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("cannot be written"), "{}", run.stderr);
    assert!(!run.stderr.contains("could not be written"), "no store was tried: {}", run.stderr);
}

/// The SCCs' results do not depend on the reporting policy: a run with `--all-categories` after
/// one without (and the other way round) checks no SCC again, and prints what it would print
/// without the cache. Each policy keeps its own whole-run record.
#[test]
fn all_categories_reuses_the_sccs_of_a_run_without() {
    let dir = project("all-categories");
    // A block kept in a global that another function frees: never freed here, reported only
    // with --all-categories (and no `leak-global`, since `forget` frees it).
    edit(
        &dir,
        "main.c",
        "int main(",
        "char *kept;\nvoid remember(void) { kept = malloc(8); }\nvoid forget(void) { free(kept); }\n\nint main(",
    );
    let run = |extra: &[&str]| json_check(&dir, extra);
    let categories = |v: &serde_json::Value| -> Vec<String> {
        let diags = v["diagnostics"].as_array().expect("diagnostics");
        diags.iter().map(|d| d["category"].as_str().expect("category").to_string()).collect()
    };
    let plain = run(&[]);
    assert_eq!(plain["stats"]["cache"]["sccs_checked"], FUNCTIONS + 2, "{}", plain["stats"]["cache"]);
    assert!(!categories(&plain).contains(&"never-freed-not-local".to_string()), "{:?}", categories(&plain));
    let all = run(&["--all-categories"]);
    let cache = &all["stats"]["cache"];
    assert_eq!(cache["run_reused"], false, "another policy's record is not replayed: {cache}");
    assert_eq!(cache["sccs_checked"], 0, "{cache}");
    assert_eq!(cache["sccs_reused"], FUNCTIONS + 2, "{cache}");
    assert!(categories(&all).contains(&"never-freed-not-local".to_string()), "{:?}", categories(&all));
    let fresh = run(&["--all-categories", "--no-cache"]);
    assert_eq!(all["diagnostics"], fresh["diagnostics"]);
    assert_eq!(all["stats"]["categories"], fresh["stats"]["categories"]);
    // Both records are kept: each policy's next run is replayed.
    for (extra, want) in [(&[][..], &plain), (&["--all-categories"][..], &all)] {
        let again = run(extra);
        assert_eq!(again["stats"]["cache"]["run_reused"], true, "{extra:?}: {}", again["stats"]["cache"]);
        assert_eq!(again["diagnostics"], want["diagnostics"], "{extra:?}");
    }
    // After an edit to one function, either policy re-checks that SCC only (and the callers
    // whose key its summary is part of, none here: `remember` is called by no one).
    edit(&dir, "main.c", "malloc(8)", "malloc(16)");
    let all = run(&["--all-categories"]);
    assert_eq!(all["stats"]["cache"]["sccs_checked"], 1, "{}", all["stats"]["cache"]);
    let plain = run(&[]);
    assert_eq!(plain["stats"]["cache"]["sccs_checked"], 0, "{}", plain["stats"]["cache"]);
    assert_eq!(plain["diagnostics"], run(&["--no-cache"])["diagnostics"]);
}
