//! End-to-end behaviour of the `drip` command line: inputs, exit codes, output formats,
//! determinism. Each test writes its own small project into a temporary directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn drip() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drip"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write file");
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const LEAKY: &str = r#"#include <stdlib.h>
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
"#;

const CLEAN: &str = r#"#include <stdlib.h>
int clean(int n) {
    char *p = malloc(n);
    if (!p)
        return -1;
    free(p);
    return 0;
}
"#;

fn compdb(dir: &Path, files: &[&str]) {
    let entries: Vec<serde_json::Value> = files
        .iter()
        .map(|f| {
            let (cc, std) = if f.ends_with(".cpp") { ("c++", "-std=gnu++17") } else { ("cc", "-std=gnu11") };
            serde_json::json!({
                "directory": dir.display().to_string(),
                "file": f,
                "arguments": [cc, std, "-c", f, "-o", format!("{f}.o")],
            })
        })
        .collect();
    let text = serde_json::to_string_pretty(&entries).expect("json");
    write(dir, "compile_commands.json", &text);
}

#[test]
fn leak_is_reported_in_compiler_form_with_exit_1() {
    let dir = scratch("leak");
    write(&dir, "a.c", LEAKY);
    let out = drip().current_dir(&dir).args(["check", "a.c", "--", "-std=gnu11"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let text = stdout(&out);
    let first = text.lines().next().unwrap_or_default();
    assert!(first.starts_with("a.c:3:"), "warning at the first malloc: {text}");
    assert!(first.contains("warning: memory allocated by 'malloc' leaks when"), "{text}");
    assert!(first.ends_with("[leak,freed-conditional]"), "{text}");
    assert!(text.contains("a.c:7:"), "the decisive branch is named: {text}");
    assert!(text.contains("note:"), "{text}");
}

#[test]
fn clean_code_exits_0() {
    let dir = scratch("clean");
    write(&dir, "a.c", CLEAN);
    let out = drip().current_dir(&dir).args(["check", "a.c"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(0), "stdout: {} stderr: {}", stdout(&out), stderr(&out));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("1 allocation sites") || stderr(&out).contains("1 allocation site"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn compile_database_from_directory_and_default_lookup() {
    let dir = scratch("compdb");
    write(&dir, "a.c", LEAKY);
    write(&dir, "b.c", CLEAN);
    compdb(&dir, &["a.c", "b.c"]);
    let out = drip().args(["check", "-p"]).arg(&dir).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("2 TUs"), "{}", stderr(&out));
    // With no -p, ./compile_commands.json is used.
    let out = drip().current_dir(&dir).args(["check"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn missing_and_malformed_inputs_exit_2_with_a_message() {
    let dir = scratch("bad-input");
    let out = drip().args(["check", "-p"]).arg(dir.join("nope")).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("error"), "{}", stderr(&out));

    write(&dir, "compile_commands.json", "[{\"directory\": 3,");
    let out = drip().args(["check", "-p"]).arg(&dir).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("compile_commands.json"), "{}", stderr(&out));

    let out = drip().current_dir(&dir).args(["check", "missing.c"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.c"), "{}", stderr(&out));

    let out = drip().args(["check", "--frobnicate"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unexpected argument '--frobnicate' found"), "{}", stderr(&out));

    let empty = scratch("empty-dir");
    let out = drip().current_dir(&empty).args(["check"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("compile_commands.json"), "{}", stderr(&out));
}

#[test]
fn parse_errors_do_not_stop_the_rest_of_the_tu() {
    let dir = scratch("parse-error");
    let text = format!("{LEAKY}\nint broken(void) {{ return undeclared_thing + ; }}\n");
    write(&dir, "a.c", &text);
    let out = drip().current_dir(&dir).args(["check", "-v", "a.c"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("[leak,freed-conditional]"));
    assert!(stderr(&out).contains("with parse errors"), "{}", stderr(&out));
}

/// Without `-v`, each TU parsed with errors shows its first error and its count; `--fail-on`
/// (or `.drip.toml`'s `[check] fail-on`, which the option overrides) decides what fails the run:
/// `parse-error` makes those TUs exit 2 (an input problem, above findings' 1), `never` keeps
/// findings from failing it. The same holds when the cache replays the whole run.
#[test]
fn parse_errors_are_shown_without_v_and_fail_on_decides_the_exit_code() {
    let dir = scratch("fail-on");
    write(&dir, "broken.c", "int broken(void) { return undeclared_thing + ; }\nint more(void) { return nope; }\n");
    write(&dir, "leaky.c", LEAKY);
    write(&dir, "clean.c", CLEAN);
    let run = |files: &[&str], opts: &[&str]| {
        drip().current_dir(&dir).args(["check"]).args(files).args(opts).arg("--").output().expect("run drip")
    };
    let out = run(&["broken.c", "clean.c"], &["--no-cache"]);
    assert_eq!(out.status.code(), Some(0), "parse errors alone do not fail by default: {}", stderr(&out));
    let err = stderr(&out);
    let first: Vec<&str> = err.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(first.len(), 1, "one line per TU with errors: {err}");
    assert!(
        first[0].starts_with("broken.c:1:")
            && first[0].contains("undeclared_thing")
            && first[0].ends_with("(first of 3 parse errors in broken.c; -v lists them)"),
        "{err}"
    );
    for cached in ["--no-cache", "--cache-dir=c"] {
        // The cached runs: the first fills the cache, the others replay it.
        for _ in 0..2 {
            let out = run(&["broken.c", "clean.c"], &[cached, "--fail-on", "parse-error"]);
            assert_eq!(out.status.code(), Some(2), "{cached}: {}", stderr(&out));
            assert!(stderr(&out).contains("1 TU parsed with errors, and fail-on is parse-error"), "{}", stderr(&out));
            assert!(stderr(&out).contains("(first of 3 parse errors in broken.c"), "{cached}: {}", stderr(&out));
        }
    }
    // Parse errors outrank findings; a clean program passes `parse-error`.
    assert_eq!(run(&["broken.c", "leaky.c"], &["--fail-on=parse-error"]).status.code(), Some(2));
    assert_eq!(run(&["leaky.c"], &["--fail-on=parse-error"]).status.code(), Some(1));
    assert_eq!(run(&["clean.c"], &["--fail-on=parse-error"]).status.code(), Some(0));
    assert_eq!(run(&["leaky.c"], &["--fail-on=finding"]).status.code(), Some(1));
    let never = run(&["broken.c", "leaky.c"], &["--fail-on=never"]);
    assert_eq!(never.status.code(), Some(0), "{}", stderr(&never));
    assert!(stdout(&never).contains("[leak,freed-conditional]"), "the findings are still reported");
    // The configuration file sets it; the command line wins.
    write(&dir, ".drip.toml", "[check]\nfail-on = \"parse-error\"\n");
    assert_eq!(run(&["broken.c", "clean.c"], &[]).status.code(), Some(2));
    assert_eq!(run(&["broken.c", "leaky.c"], &["--fail-on", "finding"]).status.code(), Some(1));
    write(&dir, ".drip.toml", "[check]\nfail-on = \"never\"\n");
    assert_eq!(run(&["leaky.c"], &[]).status.code(), Some(0));
    write(&dir, ".drip.toml", "[check]\nfail-on = \"sometimes\"\n");
    let bad = run(&["leaky.c"], &[]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("[check] fail-on: unknown value 'sometimes'"), "{}", stderr(&bad));
    std::fs::remove_file(dir.join(".drip.toml")).expect("remove");
    // A TU that cannot be parsed at all fails every run, `never` included: its code is missing.
    let db = r#"[{"directory": ".", "file": "gone.c", "arguments": ["cc", "-c", "gone.c"]},
                 {"directory": ".", "file": "leaky.c", "arguments": ["cc", "-c", "leaky.c"]}]"#;
    write(&dir, "compile_commands.json", db);
    let lost = drip().current_dir(&dir).args(["check", "--fail-on=never"]).output().expect("run drip");
    assert_eq!(lost.status.code(), Some(2), "{}", stderr(&lost));
    let typo = run(&["leaky.c"], &["--fail-on", "parse-errors"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(stderr(&typo).contains("parse-error"), "{}", stderr(&typo));
}

#[test]
fn non_c_entries_are_skipped_and_counted() {
    let dir = scratch("non-c");
    write(&dir, "a.c", CLEAN);
    write(&dir, "b.s", "ret\n");
    compdb(&dir, &["a.c", "b.s"]);
    let out = drip().args(["check", "--stats", "-p"]).arg(&dir).output().expect("run drip");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("1 non-C/C++"), "{}", stderr(&out));
}

/// A database of C and C++ is analysed in one run: a C allocator and deallocator behind
/// `extern "C"`, called from C++, are summarised as in C, and C++'s own `new`/`delete` beside
/// them. The C++ TU counts in `--stats`.
#[test]
fn mixed_c_and_cpp_databases_analyse_both() {
    let dir = scratch("mixed-cpp");
    let c = r#"#include <stdlib.h>
struct buf { char *data; };
struct buf *buf_new(int n) {
    struct buf *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    b->data = malloc(n);
    return b;
}
void buf_free(struct buf *b) {
    if (b)
        free(b->data);
    free(b);
}
void c_leak(void) {
    char *p = malloc(3);
    p[0] = 0;
}
"#;
    // `buf_new` declared inside a namespace's `extern "C"` is C's `buf_new` all the same: its
    // allocation is seen in `use_leak`.
    let cpp = r#"extern "C" {
struct buf;
void buf_free(struct buf *b);
}
namespace app {
extern "C" struct buf *buf_new(int n);
void use_ok() {
    struct buf *b = buf_new(4);
    buf_free(b);
}
void use_leak() {
    struct buf *b = buf_new(4);
    (void)b;
}
int *own_leak() {
    int *n = new int[3];
    return nullptr;
}
}
"#;
    write(&dir, "buf.c", c);
    write(&dir, "app.cpp", cpp);
    compdb(&dir, &["buf.c", "app.cpp"]);
    let out =
        drip().args(["check", "--no-cache", "--stats", "--format", "json", "-p"]).arg(&dir).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut found: Vec<(String, String, u64)> = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let file = d["loc"]["file"].as_str().unwrap_or("").rsplit('/').next().unwrap_or("").to_string();
            (file, d["function"].as_str().unwrap_or("").to_string(), d["loc"]["line"].as_u64().unwrap_or(0))
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("app.cpp".to_string(), "app::own_leak".to_string(), 16),
            ("app.cpp".to_string(), "app::use_leak".to_string(), 12),
            ("buf.c".to_string(), "c_leak".to_string(), 16),
        ],
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr(&out).contains("C++                 1 TUs"), "{}", stderr(&out));
}

/// A global only a function that never returns writes is fixed (`globals.rs`), so a free
/// guarded by it is a free; when another TU of the database writes it (C++ here, analysed with
/// the C), only the `static` global stays fixed.
#[test]
fn a_global_is_fixed_only_when_every_writer_is_seen() {
    let dir = scratch("fixed-global");
    let guarded = r#"#include <stdlib.h>
int exiting = 0;
static int quiet = 0;
void quit(int code) {
    exiting = 1;
    quiet = 1;
    exit(code);
}
void release(void *x) {
    if (x != NULL && !exiting)
        free(x);
}
void release_quietly(void *x) {
    if (x != NULL && !quiet)
        free(x);
}
void twice(void) {
    char *p = malloc(8);
    release(p);
    release(p);
}
void twice_quietly(void) {
    char *q = malloc(8);
    release_quietly(q);
    release_quietly(q);
}
"#;
    write(&dir, "a.c", guarded);
    compdb(&dir, &["a.c"]);
    let out = drip().args(["check", "--no-cache", "-p"]).arg(&dir).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out).matches("[double-free]").count(), 2, "{}", stdout(&out));
    write(&dir, "b.cpp", "extern \"C\" int exiting;\nvoid stop() { exiting = 1; }\n");
    compdb(&dir, &["a.c", "b.cpp"]);
    let out = drip().args(["check", "--no-cache", "-p"]).arg(&dir).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("[double-free]").count(), 1, "{text}");
    assert!(text.contains("twice_quietly") || text.contains(":25:"), "{text}");
}

/// `leak-global`: a block kept in a global that no function frees is reported once per global,
/// counted and switched off like any rule; when a TU of the database is not seen (it fails to
/// parse), only the `static` global is judged, since the unseen code may free an external one.
#[test]
fn a_global_never_freed_is_reported_once_and_only_when_every_user_is_seen() {
    let dir = scratch("leak-global");
    let kept = r#"#include <stdlib.h>
#include <string.h>
char *home;
static char *name;
void init(const char *h, const char *n) {
    home = strdup(h);
    name = strdup(n);
}
void again(const char *h) {
    home = strdup(h);
}
size_t lengths(void) {
    return strlen(home) + strlen(name);
}
"#;
    write(&dir, "a.c", kept);
    compdb(&dir, &["a.c"]);
    let run = |extra: &[&str]| {
        drip().args(["check", "--no-cache", "--stats", "-p"]).arg(&dir).args(extra).output().expect("run drip")
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("[leak-global]").count(), 2, "{text}");
    assert!(
        text.contains("a.c:6:12: warning: memory allocated by 'strdup' is stored into global 'home' and never freed"),
        "{text}"
    );
    assert!(text.contains("a.c:7:12: warning: memory allocated by 'strdup' is stored into global 'name'"), "{text}");
    let err = stderr(&out);
    assert!(err.contains("0 leaks, 0 double frees, 2 globals never freed"), "{err}");
    assert!(err.contains("0 mismatched-deallocation, 2 leak-global;"), "{err}");
    let off = run(&["--disable", "leak-global"]);
    assert_eq!(off.status.code(), Some(0), "{}", stderr(&off));
    assert!(stderr(&off).contains("2 of rules switched off (leak-global)"), "{}", stderr(&off));

    // A TU that is not seen (it fails: no such file) may free the external global.
    compdb(&dir, &["a.c", "gone.c"]);
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("[leak-global]").count(), 1, "{text}");
    assert!(text.contains("global 'name'"), "{text}");
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

#[test]
fn sarif_is_identical_across_thread_counts_and_runs() {
    let dir = scratch("determinism");
    for i in 0..6 {
        let body = if i % 2 == 0 {
            LEAKY.replace("leaky", &format!("leaky{i}"))
        } else {
            CLEAN.replace("clean", &format!("clean{i}"))
        };
        write(&dir, &format!("f{i}.c"), &body);
    }
    let names: Vec<String> = (0..6).map(|i| format!("f{i}.c")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    compdb(&dir, &refs);
    let run = |jobs: &str| {
        // Without the cache, or the later runs would replay the first.
        let out = drip()
            .current_dir(&dir)
            .args(["check", "--no-cache", "--format", "sarif", "-j", jobs])
            .output()
            .expect("run drip");
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        without_invocation_details(&stdout(&out))
    };
    let one = run("1");
    let two = run("2");
    let again = run("2");
    assert_eq!(one, two);
    assert_eq!(two, again);
    let v: serde_json::Value = serde_json::from_str(&one).expect("sarif is json");
    assert_eq!(v["version"], "2.1.0");
    let results = v["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r["ruleId"] == "leak"));
}

#[test]
fn json_output_carries_stats_and_categories() {
    let dir = scratch("json");
    write(&dir, "a.c", LEAKY);
    let out_file = dir.join("out.json");
    let out = drip()
        .current_dir(&dir)
        .args(["check", "--format", "json", "--all-categories", "-o"])
        .arg(&out_file)
        .arg("a.c")
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "-o sends findings to the file");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out_file).expect("read")).expect("json");
    assert_eq!(v["stats"]["sources"], 2);
    assert_eq!(v["stats"]["categories"]["freed-conditional"], 1);
    assert_eq!(v["stats"]["categories"]["freed-always"], 1);
    assert_eq!(v["diagnostics"][0]["category"], "freed-conditional");
}

#[test]
fn a_tu_that_cannot_be_parsed_is_named_counted_and_the_rest_is_checked() {
    let dir = scratch("missing-tu");
    write(&dir, "a.c", LEAKY);
    let db = r#"[{"directory": ".", "file": "gone.c", "arguments": ["cc", "-c", "gone.c"]},
                 {"directory": ".", "file": "a.c", "command": "gcc -fconserve-stack -mindirect-branch=thunk -c a.c"}]"#;
    write(&dir, "compile_commands.json", db);
    let out = drip().current_dir(&dir).args(["check"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2), "an input error outranks findings: {}", stderr(&out));
    assert!(stderr(&out).contains("gone.c: error: no such file"), "{}", stderr(&out));
    assert!(stderr(&out).contains("1 TU failed to parse"), "{}", stderr(&out));
    assert!(stdout(&out).contains("[leak,freed-conditional]"), "the other TU is still analysed");
}

/// A function whose check takes a while: one allocation followed by thousands of branches.
fn slow_function() -> String {
    let mut body = String::from("#include <stdlib.h>\nint slow(const int *a) {\n    int x = 0;\n    char *p = malloc(16);\n    if (!p)\n        return -1;\n");
    for i in 0..3000 {
        body.push_str(&format!("    if (a[{i}] > {i}) x += {i}; else x -= 1;\n"));
    }
    body.push_str("    free(p);\n    return x;\n}\n");
    body
}

#[test]
fn a_function_over_its_time_budget_is_named_counted_and_not_cached() {
    let dir = scratch("time-budget");
    write(&dir, "slow.c", &slow_function());
    write(&dir, "clean.c", CLEAN);
    compdb(&dir, &["slow.c", "clean.c"]);
    // The budget comes from .drip.toml beside the compile database.
    write(&dir, ".drip.toml", "[budgets]\nfunction-time-ms = 1\n");
    let run = || {
        drip()
            .current_dir(&dir)
            .args(["check", "-p", ".", "--format", "json", "-o", "out.json"])
            .output()
            .expect("run drip")
    };
    let out = run();
    assert_eq!(out.status.code(), Some(0), "over budget is not a finding: {}", stderr(&out));
    assert!(stderr(&out).contains("ran out of the time budget (1 ms"), "{}", stderr(&out));
    assert!(stderr(&out).contains(": slow"), "the function is named: {}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).expect("report")).expect("json");
    assert_eq!(report["stats"]["functions_over_time"], 1, "{}", report["stats"]);
    assert_eq!(report["stats"]["budgets"]["function_time_ms"], 1);
    assert_eq!(report["stats"]["categories"]["over-budget"], 1, "{}", report["stats"]);
    // A result that depends on the machine's speed is not reused: the next run checks it again.
    let again = run();
    assert!(stderr(&again).contains("ran out of the time budget"), "{}", stderr(&again));
    // The command line wins over the file; with time enough, the site is decided.
    let roomy = drip()
        .current_dir(&dir)
        .args([
            "check",
            "-p",
            ".",
            "--no-cache",
            "--budget",
            "function-time-ms=600000",
            "--format",
            "json",
            "-o",
            "out.json",
        ])
        .output()
        .expect("run drip");
    assert!(!stderr(&roomy).contains("time budget"), "{}", stderr(&roomy));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).expect("report")).expect("json");
    assert_eq!(report["stats"]["functions_over_time"], 0);
    assert_eq!(report["stats"]["categories"]["freed-always"], 2, "{}", report["stats"]);
}

#[test]
fn budget_mistakes_are_usage_errors() {
    let dir = scratch("budget-mistakes");
    write(&dir, "clean.c", CLEAN);
    compdb(&dir, &["clean.c"]);
    let out =
        drip().current_dir(&dir).args(["check", "-p", ".", "--budget", "scc-round=3"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown budget 'scc-round'"), "{}", stderr(&out));
    write(&dir, ".drip.toml", "[budgets]\nsat-conflicts = \"many\"\n");
    let out = drip().current_dir(&dir).args(["check", "-p", "."]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(".drip.toml: budget 'sat-conflicts' must be a whole number"), "{}", stderr(&out));
}

#[test]
fn a_progress_line_is_drawn_on_a_terminal_only() {
    let dir = scratch("progress");
    // Long enough (about 2 s on one core; the first drawing waits 250 ms) that the line is
    // drawn a few times however fast the machine is: many functions, each with a site to check.
    let mut body = String::from("#include <stdlib.h>\n");
    for f in 0..16000 {
        body.push_str(&format!(
            "int f{f}(const int *a) {{\n    int x = 0;\n    char *p = malloc(16);\n    if (!p)\n        return -1;\n"
        ));
        for i in 0..10 {
            body.push_str(&format!("    if (a[{i}] > {i}) x += {i};\n"));
        }
        body.push_str("    free(p);\n    return x;\n}\n");
    }
    write(&dir, "big.c", &body);
    compdb(&dir, &["big.c"]);
    // Not a terminal: the summary line only.
    let plain = drip().current_dir(&dir).args(["check", "-p", ".", "--no-cache"]).output().expect("run drip");
    assert!(!stderr(&plain).contains('\r'), "{}", stderr(&plain));
    assert!(stderr(&plain).contains("drip: 1 TUs, 16000 functions, 16000 allocation sites"), "{}", stderr(&plain));
    // A terminal, through script(1): the line is redrawn in place, then erased before the summary.
    let exe = env!("CARGO_BIN_EXE_drip");
    let typescript = dir.join("typescript");
    let status = Command::new("script")
        .current_dir(&dir)
        .args(["-qec", &format!("{exe} check -p . --no-cache"), &typescript.to_string_lossy()])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("script(1) from util-linux");
    assert_eq!(status.code(), Some(0));
    let seen = std::fs::read_to_string(&typescript).expect("typescript");
    // indicatif redraws with `\r` and the erase-line sequence.
    assert!(seen.contains("\r\x1b[2Kdrip: 0/1 TUs | ") || seen.contains("\r\x1b[2Kdrip: 1/1 TUs | "), "{seen:?}");
    let summary = seen.find("drip: 1 TUs, 16000 functions").expect("summary line");
    let erased = seen[..summary].rfind('\r').expect("the line is erased before the summary");
    assert!(seen[erased + 1..summary].replace("\x1b[2K", "").trim().is_empty(), "{seen:?}");
}

#[test]
fn a_tu_that_cannot_be_parsed_is_a_notification_in_sarif_and_json() {
    let dir = scratch("notifications");
    write(&dir, "ok.c", CLEAN);
    compdb(&dir, &["ok.c", "missing.c"]);
    let out = drip()
        .current_dir(&dir)
        .args(["check", "-p", ".", "--format", "sarif", "-o", "out.sarif"])
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.sarif")).expect("sarif")).expect("json");
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notes = invocation["toolExecutionNotifications"].as_array().expect("notifications");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["level"], "error");
    assert_eq!(notes[0]["descriptor"]["id"], "tu-failed");
    assert!(notes[0]["message"]["text"].as_str().is_some_and(|t| t.contains("missing.c")), "{notes:?}");
    let out = drip()
        .current_dir(&dir)
        .args(["check", "-p", ".", "--format", "json", "-o", "out.json"])
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).expect("json")).expect("json");
    assert_eq!(doc["notifications"][0]["id"], "tu-failed");
    // A clean run is successful and has nothing to say.
    compdb(&dir, &["ok.c"]);
    let out = drip()
        .current_dir(&dir)
        .args(["check", "-p", ".", "--format", "sarif", "-o", "out.sarif"])
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.sarif")).expect("sarif")).expect("json");
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], true);
    assert_eq!(log["runs"][0]["invocations"][0]["toolExecutionNotifications"], serde_json::json!([]));
}

#[test]
fn a_panic_while_checking_one_function_is_reported_and_the_rest_is_checked() {
    let dir = scratch("panic");
    write(&dir, "leaky.c", LEAKY);
    write(&dir, "clean.c", CLEAN);
    compdb(&dir, &["leaky.c", "clean.c"]);
    let out = drip()
        .current_dir(&dir)
        .env("DRIP_DEBUG_PANIC_IN", "clean")
        .args(["check", "-p", ".", "--no-cache", "--format", "sarif", "-o", "out.sarif"])
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(3), "internal error wins over findings: {}", stderr(&out));
    assert!(stderr(&out).contains("internal error while checking 'clean'"), "{}", stderr(&out));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.sarif")).expect("sarif")).expect("json");
    let run = &log["runs"][0];
    assert_eq!(run["results"].as_array().map(|r| r.len()), Some(1), "the leak in the other function is still found");
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    assert_eq!(run["invocations"][0]["toolExecutionNotifications"][0]["descriptor"]["id"], "internal-error");
}

/// Each command's `--help` is its own: the usage line and every option of that command.
#[test]
fn help_after_a_command_prints_usage_and_exits_0() {
    let check_options = [
        "-p <PATH>",
        "--format <FORMAT>",
        "-o, --output <FILE>",
        "--baseline <FILE>",
        "--write-baseline <FILE>",
        "--source-root <DIR>",
        "-j, --jobs <N>",
        "--stats",
        "--all-categories",
        "--cache-dir <DIR>",
        "--no-cache",
        "--config <FILE>",
        "--budget <NAME=N>",
        "--enable <RULES>",
        "--disable <RULES>",
        "-v, --verbose",
        "--color <WHEN>",
        "-V, --version",
        "codeclimate",
    ];
    let capture_options = ["--cdb <PATH>", "--compiler <NAME>", "-j, --jobs <N>", "--check [<CHECK OPTIONS>...]"];
    for (cmd, options) in [
        ("check", &check_options[..]),
        ("dump-ir", &[&check_options[..], &["--function <NAME>"]].concat()[..]),
        ("capture", &capture_options[..]),
    ] {
        for help in ["--help", "-h"] {
            let o = drip().args([cmd, help]).output().expect("run drip");
            assert_eq!(o.status.code(), Some(0), "{cmd} {help}: {}", stderr(&o));
            let text = stdout(&o);
            assert!(text.contains(&format!("Usage: drip {cmd} [OPTIONS]")), "{cmd} {help} printed: {text}");
            for option in options {
                assert!(text.contains(option), "{cmd} {help} lacks {option}: {text}");
            }
            assert!(stderr(&o).is_empty(), "{cmd} {help} wrote to stderr: {}", stderr(&o));
        }
    }
    // `drip help check` is `drip check --help`; the global help lists the commands.
    let o = drip().args(["help", "check"]).output().expect("run drip");
    assert!(stdout(&o).contains("--write-baseline <FILE>"), "{}", stdout(&o));
    let o = drip().arg("--help").output().expect("run drip");
    assert_eq!(o.status.code(), Some(0));
    for cmd in ["check", "dump-ir", "capture"] {
        assert!(stdout(&o).contains(&format!("\n  {cmd} ")), "{cmd}: {}", stdout(&o));
    }
    // A bare `drip` prints the help where errors go, and is a usage error.
    let o = drip().output().expect("run drip");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Usage: drip [OPTIONS] [COMMAND]"), "{}", stderr(&o));
    // Still a usage error when the rest of the line is wrong.
    let o = drip().args(["check", "--bogus", "--help"]).output().expect("run drip");
    assert_eq!(o.status.code(), Some(2));
}

/// Mistyped options and commands are usage errors that suggest the closest name.
#[test]
fn mistakes_get_a_did_you_mean() {
    for (args, says) in [
        (&["check", "--formt", "json"][..], "a similar argument exists: '--format'"),
        (&["check", "--no-cach"][..], "a similar argument exists: '--no-cache'"),
        (&["chekc"][..], "a similar subcommand exists: 'check'"),
        (&["dump-ri"][..], "a similar subcommand exists: 'dump-ir'"),
        (&["capture", "--compilr", "tcc", "--", "true"][..], "a similar argument exists: '--compiler'"),
        (&["check", "--format", "sarf"][..], "[possible values: text, sarif, json, html, codeclimate]"),
        (&["check", "--color", "sometimes"][..], "[possible values: auto, always, never]"),
        (&["check", "-j", "0"][..], "expects a positive number, got '0'"),
    ] {
        let o = drip().args(args).output().expect("run drip");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("drip: error: "), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
    }
}

/// `-o FILE`, `-oFILE`, `--output FILE` and `--output=FILE` all name the report file.
#[test]
fn every_form_of_the_output_option_writes_the_report() {
    let dir = scratch("output-forms");
    write(&dir, "leaky.c", LEAKY);
    for (i, form) in ["-o {}", "-o{}", "--output {}", "--output={}"].iter().enumerate() {
        let name = format!("report{i}.txt");
        let mut args = vec!["check".to_string(), "--no-cache".to_string()];
        args.extend(form.replace("{}", &name).split(' ').map(str::to_string));
        args.extend(["leaky.c".to_string(), "--".to_string()]);
        let out = drip().current_dir(&dir).args(&args).output().expect("run drip");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{args:?}: the report went to stdout");
        let report = std::fs::read_to_string(dir.join(&name)).expect("the report file");
        assert!(report.contains("leaky.c:3:15: warning:"), "{args:?}: {report}");
    }
}

/// Every file below `dir`, relative, sorted (directories too).
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            out.push(p.strip_prefix(dir).expect("below dir").display().to_string());
            if p.is_dir() && !p.is_symlink() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A compile database is untrusted input: its arguments reach libclang's driver, which can write
/// dependency files (`-MJ`, `-MF`), module caches, include logs, traces, and read configuration
/// files (`--config`, `<compiler path>.cfg`) that inject any flag. None of that may happen: the
/// run creates nothing outside its cache, and the injected macro is not defined.
#[test]
fn a_hostile_compile_database_writes_nothing_and_injects_nothing() {
    let dir = scratch("hostile-db");
    let src = "#include <stdlib.h>\n\
        #ifdef EVIL\n\
        void evil(void) { char *p = malloc(4); p[0] = 0; }\n\
        #endif\n\
        void seen(int n) { char *p = malloc(n); if (!p) return; if (n > 3) return; free(p); }\n";
    write(&dir, "a.c", src);
    write(&dir, "evil.cfg", "-DEVIL\n");
    write(&dir, "rsp.txt", "-DEVIL -MJ from-rsp.json\n");
    std::fs::create_dir_all(dir.join("tools")).expect("tools/");
    // Beside the compiler path the entry names: clang would load it as that driver's config.
    write(&dir, "tools/clang.cfg", "-DEVIL\n");
    write(&dir, "tools/cc.cfg", "-DEVIL\n");
    // The compiler the entries name is never run: it would leave a file behind.
    for c in ["tools/clang", "tools/cc"] {
        let p = write(&dir, c, "#!/bin/sh\ntouch \"$(dirname \"$0\")/../executed\"\n");
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    }
    let vectors: Vec<&str> = vec![
        "-MJ",
        "mj.json",
        "-MJmj2.json",
        "-MD",
        "-MF",
        "dep.d",
        "-MMD",
        "-MT",
        "target",
        "-fmodules",
        "-fmodules-cache-path=mcache",
        "-Xclang",
        "-header-include-file",
        "-Xclang",
        "hdr.txt",
        "-H",
        "--config=evil.cfg",
        "--config",
        "evil.cfg",
        "-ftime-trace",
        "-ftime-trace-granularity=0",
        "-save-temps",
        "-save-temps=obj",
        "-fdump-tree-all",
        "--coverage",
        "-fprofile-generate",
        "-fprofile-instr-generate",
        "--serialize-diagnostics",
        "diag.dia",
        "-fplugin=./evil.so",
        "-Xclang",
        "-load",
        "-Xclang",
        "./evil.so",
        "-fproc-stat-report=stats.txt",
        "-fstack-usage",
        "-fpass-plugin=./evil.so",
        "-emit-ast",
        "@rsp.txt",
        "-o",
        "a.o",
    ];
    for compiler in [dir.join("tools/clang").display().to_string(), dir.join("tools/cc").display().to_string()] {
        let mut args: Vec<String> = vec![compiler, "-c".into(), "a.c".into()];
        args.extend(vectors.iter().map(|s| s.to_string()));
        let db = serde_json::json!([{ "directory": dir.display().to_string(), "file": "a.c", "arguments": args }]);
        std::fs::write(dir.join("compile_commands.json"), db.to_string()).expect("database");
        let outside_cache = |t: Vec<String>| -> Vec<String> {
            t.into_iter().filter(|p| p != "cache" && !p.starts_with("cache/")).collect()
        };
        let before = outside_cache(tree(&dir));
        let out = drip()
            .current_dir(&dir)
            .args(["check", "-p", ".", "--cache-dir", "cache", "--format", "json", "-v"])
            .output()
            .expect("run drip");
        let after = outside_cache(tree(&dir));
        assert_eq!(after, before, "the run created or removed files outside its cache\n{}", stderr(&out));
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let functions: Vec<&str> = report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter_map(|d| d["function"].as_str())
            .collect();
        assert_eq!(functions, ["seen"], "EVIL must stay undefined\n{}", stderr(&out));
        assert!(stderr(&out).contains("left out of the arguments handed to libclang"), "{}", stderr(&out));
    }
    // The report may not overwrite the database it came from.
    let out =
        drip().current_dir(&dir).args(["check", "-p", ".", "-o", "compile_commands.json"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("names an input of this run"), "{}", stderr(&out));
    assert!(std::fs::read_to_string(dir.join("compile_commands.json")).expect("db").starts_with('['));
}

/// Budgets at their edges, absurd worker counts and an empty cache directory: each is either
/// honoured or refused with exit 2, never a panic (an internal error, exit 3) or a wrapped value.
#[test]
fn budgets_and_workers_at_their_edges() {
    let dir = scratch("edges");
    write(&dir, "leaky.c", LEAKY);
    let run = |extra: &[&str]| {
        let mut args = vec!["check", "--no-cache", "-v"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["leaky.c", "--"]);
        drip().current_dir(&dir).args(&args).output().expect("run drip")
    };
    // The smallest formula budget: every site over budget, nothing fails.
    let tiny = run(&["--budget", "guard-nodes-per-site=1", "--budget", "guard-nodes-per-function=1"]);
    assert_eq!(tiny.status.code(), Some(0), "{}", stderr(&tiny));
    assert!(!stderr(&tiny).contains("internal error"), "{}", stderr(&tiny));
    assert!(stderr(&tiny).contains("over budget"), "{}", stderr(&tiny));
    // The largest: no limit, the same finding as by default (a wrapped sum would put the site
    // over budget).
    let huge = run(&["--budget", "guard-nodes-per-site=18446744073709551615"]);
    assert_eq!(huge.status.code(), Some(1), "{}", stderr(&huge));
    assert!(!stderr(&huge).contains("over budget"), "{}", stderr(&huge));
    // A hundred thousand workers: capped at the machine's, and said so.
    let many = run(&["-j", "100000"]);
    assert_eq!(many.status.code(), Some(1), "{}", stderr(&many));
    assert!(stderr(&many).contains("-j 100000 capped at"), "{}", stderr(&many));
    // An unset variable as the cache directory is a usage error, not the current directory.
    let empty =
        drip().current_dir(&dir).args(["check", "--cache-dir", "", "leaky.c", "--"]).output().expect("run drip");
    assert_eq!(empty.status.code(), Some(2), "{}", stderr(&empty));
    assert!(stderr(&empty).contains("--cache-dir needs a directory"), "{}", stderr(&empty));
}

/// Unwritable outputs: a full disk behind stderr drops the messages but not the report or the
/// exit code; a reader that goes away (`| head`) ends the run quietly; an `-o` that cannot be
/// written fails before any analysis, naming the file.
#[test]
fn unwritable_outputs_are_not_panics() {
    let dir = scratch("outputs");
    let mut src = String::from("#include <stdlib.h>\n");
    for i in 0..3000 {
        src.push_str(&format!("void leak{i}(int n) {{ char *p = malloc(n); if (!p) return; p[0] = 0; }}\n"));
    }
    write(&dir, "many.c", &src);
    let full = std::fs::File::options().write(true).open("/dev/full").expect("/dev/full");
    let out = drip()
        .current_dir(&dir)
        .args(["check", "--no-cache", "-v", "many.c", "--"])
        .stderr(full)
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("leak2999"), "the report is complete");
    // A reader that takes a few bytes and leaves.
    let mut child = drip()
        .current_dir(&dir)
        .args(["check", "--no-cache", "many.c", "--"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run drip");
    let mut first = [0u8; 16];
    std::io::Read::read_exact(child.stdout.as_mut().expect("stdout"), &mut first).expect("some output");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!stderr(&out).contains("error"), "{}", stderr(&out));
    // `-o` into a directory that does not exist.
    let out = drip()
        .current_dir(&dir)
        .args(["check", "--no-cache", "-o", "missing/report.txt", "many.c", "--"])
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot write the report to missing/report.txt"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("allocation sites"), "no analysis ran: {}", stderr(&out));
}

/// FIFOs, devices and symbolic-link loops are never opened (a FIFO without a writer would block
/// forever): a database that is one is an input error, an entry that is one is a failed TU named
/// with the reason, and the other TUs are still checked.
#[test]
fn fifos_and_link_loops_are_not_opened() {
    let dir = scratch("fifos");
    write(&dir, "leaky.c", LEAKY);
    let mkfifo = |name: &str| {
        let status = Command::new("mkfifo").arg(dir.join(name)).status().expect("mkfifo");
        assert!(status.success());
    };
    mkfifo("pipe.c");
    std::os::unix::fs::symlink("loop_b.c", dir.join("loop_a.c")).expect("symlink");
    std::os::unix::fs::symlink("loop_a.c", dir.join("loop_b.c")).expect("symlink");
    let entry = |f: &str| serde_json::json!({ "directory": dir.display().to_string(), "file": f, "arguments": ["cc", "-c", f] });
    let db = serde_json::json!([entry("pipe.c"), entry("loop_a.c"), entry("leaky.c")]);
    std::fs::write(dir.join("compile_commands.json"), db.to_string()).expect("database");
    let out = drip().current_dir(&dir).args(["check", "-p", ".", "--no-cache"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2), "two TUs failed: {}", stderr(&out));
    assert!(stderr(&out).contains("pipe.c: error: cannot read this file: not a regular file"), "{}", stderr(&out));
    assert!(stderr(&out).contains("loop_a.c: error: cannot read this file"), "{}", stderr(&out));
    assert!(stdout(&out).contains("leaky.c:"), "the readable TU is still checked: {}", stdout(&out));
    // The database itself a FIFO.
    let fifo_db = scratch("fifo-db");
    let status = Command::new("mkfifo").arg(fifo_db.join("compile_commands.json")).status().expect("mkfifo");
    assert!(status.success());
    let out = drip().current_dir(&fifo_db).args(["check", "-p", "."]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not a regular file"), "{}", stderr(&out));
}

/// `drip: ignore` comments silence a finding at its allocation: not in the text report or the
/// exit code, counted in the summary, and kept in JSON and SARIF (SARIF `suppressions`, with the
/// reason written after `--`). A comment for another rule silences nothing.
#[test]
fn inline_suppressions() {
    let dir = scratch("suppress");
    write(
        &dir,
        "s.c",
        "#include <stdlib.h>\n\
         void kept(int n) { char *p = malloc(n); if (p) p[0] = 0; } // drip: ignore[leak] -- owned by the arena\n\
         void above(int n) {\n\
         \x20   // drip: ignore\n\
         \x20   char *p = malloc(n);\n\
         \x20   if (p) p[0] = 0;\n\
         }\n\
         void other_rule(int n) { char *p = malloc(n); if (p) p[0] = 0; } // drip: ignore[double-free]\n",
    );
    let run = |fmt: &str| {
        drip().current_dir(&dir).args(["check", "--no-cache", "--format", fmt, "s.c", "--"]).output().expect("run drip")
    };
    let text = run("text");
    assert_eq!(text.status.code(), Some(1), "{}", stderr(&text));
    assert!(stdout(&text).contains("s.c:8:") && !stdout(&text).contains("s.c:2:") && !stdout(&text).contains("s.c:5:"));
    assert!(stderr(&text).contains("1 leak, 0 double frees, 2 suppressed"), "{}", stderr(&text));
    let sarif: serde_json::Value = serde_json::from_slice(&run("sarif").stdout).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 3);
    let suppressions: Vec<&serde_json::Value> = results.iter().filter_map(|r| r.get("suppressions")).collect();
    assert_eq!(suppressions.len(), 2);
    assert_eq!(suppressions[0][0]["kind"], "inSource");
    assert_eq!(suppressions[0][0]["justification"], "owned by the arena");
    let json: serde_json::Value = serde_json::from_slice(&run("json").stdout).expect("json");
    let silenced = json["diagnostics"].as_array().expect("diagnostics").iter().filter(|d| !d["suppression"].is_null());
    assert_eq!(silenced.count(), 2);
    // With every finding silenced, the run is clean.
    std::fs::write(
        dir.join("s.c"),
        "#include <stdlib.h>\nvoid f(int n) { char *p = malloc(n); if (p) p[0] = 0; } // drip: ignore\n",
    )
    .expect("write");
    assert_eq!(run("text").status.code(), Some(0));
}

/// `[[clang::suppress]]` on the allocation's statement silences its findings as an inline
/// comment does (SARIF kind `inSource`, no justification); its twin without the attribute is
/// reported, and with every finding silenced the run is clean.
#[test]
fn clang_suppress_attribute() {
    let dir = scratch("suppress-attr");
    let source = "#include <stdlib.h>\n\
         void silenced(int n) {\n\
         \x20   [[clang::suppress]] char *p = malloc(n);\n\
         \x20   if (p) p[0] = 0;\n\
         }\n\
         void twin(int n) {\n\
         \x20   char *p = malloc(n);\n\
         \x20   if (p) p[0] = 0;\n\
         }\n";
    write(&dir, "s.c", source);
    let run = |fmt: &str| {
        drip().current_dir(&dir).args(["check", "--no-cache", "--format", fmt, "s.c", "--"]).output().expect("run drip")
    };
    let text = run("text");
    assert_eq!(text.status.code(), Some(1), "{}", stderr(&text));
    assert!(stdout(&text).contains("s.c:7:") && !stdout(&text).contains("s.c:3:"), "{}", stdout(&text));
    assert!(stderr(&text).contains("1 leak, 0 double frees, 1 suppressed"), "{}", stderr(&text));
    let sarif: serde_json::Value = serde_json::from_slice(&run("sarif").stdout).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let suppressions: Vec<&serde_json::Value> = results.iter().filter_map(|r| r.get("suppressions")).collect();
    assert_eq!((results.len(), suppressions.len()), (2, 1));
    assert_eq!(suppressions[0], &serde_json::json!([{ "kind": "inSource" }]));
    write(
        &dir,
        "s.c",
        &source.replace("    char *p = malloc(n);", "    [[clang::suppress(\"leak\")]] char *p = malloc(n);"),
    );
    assert_eq!(run("text").status.code(), Some(0), "{}", stderr(&run("text")));
}

#[test]
fn version_names_the_commit_and_the_libclang_in_use() {
    let o = drip().arg("--version").output().expect("run drip");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    // The commit of this checkout, as git sees it (the test runs from the crate's directory);
    // "unknown" only where there is no git or no checkout.
    let head = Command::new("git")
        .args(["rev-parse", "--verify", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let commit = head.as_deref().unwrap_or("unknown");
    assert_eq!(lines[0], format!("drip {} (commit {commit})", env!("CARGO_PKG_VERSION")));
    // libclang's own string, as clang_getClangVersion returns it: drip is built against 19.
    assert!(lines[1].starts_with("libclang: ") && lines[1].contains("clang version 19."), "{text}");
    // The same from the subcommand, which needs no compile database for it.
    let dir = scratch("version");
    let o = drip().current_dir(&dir).args(["check", "--version"]).output().expect("run drip");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), text);
}

/// Two functions with findings, in the given order, below `preamble`.
fn baseline_project(preamble: &str, first: &str, second: &str) -> String {
    format!("#include <stdlib.h>\n{preamble}\n{first}\n{second}")
}

const LEAK_FN: &str = r#"int leaky(int n) {
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
"#;

const TWICE_FN: &str = r#"void twice(int n) {
    char *s = malloc(n);
    free(s);
    free(s);
}
"#;

#[test]
fn a_baseline_hides_known_findings_after_edits_and_reports_new_ones() {
    let dir = scratch("baseline");
    write(&dir, "a.c", &baseline_project("", LEAK_FN, TWICE_FN));
    compdb(&dir, &["a.c"]);
    let check = |extra: &[&str]| {
        let out = drip().current_dir(&dir).args(["check", "-p", "."]).args(extra).output().expect("run drip");
        (out.status.code(), stdout(&out), stderr(&out))
    };
    let (code, text, err) = check(&["--write-baseline", "base.sarif"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(text.matches("warning:").count(), 2, "{text}");
    let base: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("base.sarif")).expect("baseline")).expect("json");
    assert_eq!(base["runs"][0]["results"].as_array().map(Vec::len), Some(2));

    // Unrelated edits: lines (a comment, declarations) added above both functions, the functions
    // swapped, and the leaking function reindented elsewhere than its findings' statements.
    let preamble = "/* a licence header\n   over several lines */\nstruct pair { int a, b; };\nint helper(void);\n";
    let moved = baseline_project(preamble, TWICE_FN, &LEAK_FN.replace("    free(p);\n", "\tfree(p);   /* done */\n"));
    write(&dir, "a.c", &moved);
    let (code, text, err) = check(&["--baseline", "base.sarif"]);
    assert_eq!(code, Some(0), "every finding is in the baseline: {text}{err}");
    assert_eq!(text, "", "no findings");
    assert!(err.contains("0 leaks, 0 double frees, 2 hidden by the baseline"), "{err}");
    // The same from a run that cannot replay the cached result, in SARIF.
    let (code, text, err) = check(&["--baseline", "base.sarif", "--no-cache", "--format", "sarif"]);
    assert_eq!(code, Some(0), "{err}");
    let log: serde_json::Value = serde_json::from_str(&text).expect("sarif");
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));

    // A new leak in the moved function: exactly that one is reported.
    let new_leak = moved.replace(
        "    free(s);\n    free(s);\n",
        "    free(s);\n    free(s);\n    char *t = malloc(n);\n    t[0] = 1;\n",
    );
    write(&dir, "a.c", &new_leak);
    let (code, text, err) = check(&["--baseline", "base.sarif"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(text.matches("warning:").count(), 1, "{text}");
    let t_line = new_leak.lines().position(|l| l.contains("char *t = malloc")).expect("line") + 1;
    assert!(text.starts_with(&format!("a.c:{t_line}:15: warning: memory allocated by 'malloc'")), "{text}");
    assert!(err.contains("1 leak, 0 double frees, 2 hidden by the baseline"), "{err}");

    // A baseline that cannot be used fails before the analysis.
    write(&dir, "other.sarif", r#"{"runs": [{"results": [{"ruleId": "x"}]}]}"#);
    for bad in ["missing.sarif", "other.sarif"] {
        let (code, _, err) = check(&["--baseline", bad]);
        assert_eq!(code, Some(2), "{bad}: {err}");
        assert!(err.contains("cannot read the baseline") && err.contains(bad), "{err}");
    }
}

#[test]
fn sarif_paths_and_fingerprints_do_not_depend_on_where_drip_runs() {
    let dir = scratch("source_root");
    let project = dir.join("project");
    std::fs::create_dir_all(project.join("src")).expect("mkdir");
    write(&project, "src/a.c", LEAKY);
    compdb(&project, &["src/a.c"]);
    let sarif = |cwd: &Path, extra: &[&str]| {
        let out = drip()
            .current_dir(cwd)
            .args(["check", "--no-cache", "--format", "sarif"])
            .args(extra)
            .output()
            .expect("run drip");
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let log: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("sarif");
        log
    };
    // From the project, and from its parent: the root is the database's directory either way.
    let inside = sarif(&project, &["-p", "."]);
    let outside = sarif(&dir, &["-p", "project"]);
    let run = &inside["runs"][0];
    assert_eq!(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], format!("file://{}/", project.display()));
    assert_eq!(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "src/a.c");
    assert_eq!(run["results"], outside["runs"][0]["results"]);
    assert_eq!(run["originalUriBaseIds"], outside["runs"][0]["originalUriBaseIds"]);
    assert_eq!(run["invocations"][0]["workingDirectory"]["uri"], format!("file://{}/", project.display()));
    assert_eq!(outside["runs"][0]["invocations"][0]["workingDirectory"]["uri"], format!("file://{}/", dir.display()));

    // --source-root moves the base; the fingerprint follows the path relative to it.
    let rooted = sarif(&project, &["-p", ".", "--source-root", "src"]);
    let r = &rooted["runs"][0]["results"][0];
    assert_eq!(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "a.c");
    let key = "dripFingerprint/v2";
    assert_ne!(r["partialFingerprints"][key], run["results"][0]["partialFingerprints"][key]);
    let out = drip().current_dir(&project).args(["check", "--source-root", "nowhere"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--source-root nowhere is not a directory"), "{}", stderr(&out));
}

/// Generated code (bison, flex) is reported where its `#line` directives say it comes from, as
/// compilers report it; code after a directive that names no file keeps counting in that file.
#[test]
fn line_directives_move_reports_to_the_grammar_file() {
    let dir = scratch("line_directives");
    write(&dir, "parse.y", "%%\n%%\n/* grammar actions */\n");
    write(
        &dir,
        "parse.c",
        "#include <stdlib.h>\n\
         #line 30 \"parse.y\"\n\
         void action(int c) {\n\
           char *p = malloc(8);\n\
           if (c) return;\n\
           free(p);\n\
         }\n\
         #line 9 \"parse.c\"\n\
         void plain(void) { malloc(4); }\n",
    );
    let out = drip().current_dir(&dir).args(["check", "parse.c"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let text = stdout(&out);
    // `malloc(8)` is on physical line 4: line 31 of parse.y.
    assert!(text.lines().any(|l| l.starts_with("parse.y:31:") && l.contains("warning:")), "{text}");
    assert!(text.contains("parse.y:32:"), "the branch is named in parse.y too: {text}");
    // After `#line 9 "parse.c"`, physical line 9 is line 9 again.
    assert!(text.lines().any(|l| l.starts_with("parse.c:9:") && l.contains("warning:")), "{text}");
}

/// A `#line` naming a file that is not there (a generator run on another machine) leaves the
/// lines in the generated file.
#[test]
fn line_directives_to_missing_files_are_ignored() {
    let dir = scratch("line_directives_missing");
    write(&dir, "gen.c", "#include <stdlib.h>\n#line 300 \"/nowhere/parse.y\"\nvoid f(void) { malloc(4); }\n");
    let out = drip().current_dir(&dir).args(["check", "gen.c"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let text = stdout(&out);
    assert!(text.lines().any(|l| l.starts_with("gen.c:3:") && l.contains("warning:")), "{text}");
}

/// A program's own `malloc` is the C library's for its callers: the wrapper chain below an
/// allocation ends there and never goes into the internal function it calls (whose summary is
/// not ordered before its callers' checks, so following it made the output vary from run to run).
#[test]
fn wrapper_chains_end_at_the_programs_own_malloc() {
    let dir = scratch("own_malloc_chain");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/own_malloc");
    for f in ["mymalloc.c", "users.c"] {
        std::fs::copy(src.join(f), dir.join(f)).expect("copy fixture");
    }
    compdb(&dir, &["mymalloc.c", "users.c"]);
    for jobs in ["1", "2"] {
        let out =
            drip().current_dir(&dir).args(["check", "-p", ".", "--no-cache", "-j", jobs]).output().expect("run drip");
        assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("'save_copy' gets the memory from 'malloc'"), "{text}");
        assert!(!text.contains("'malloc' gets the memory from"), "{text}");
    }
}

/// `mismatched-deallocation`: reported at the release with the allocation as a note, in every
/// format, counted by `--stats` and the summary line, and switched off by `--disable`.
#[test]
fn mismatched_deallocation_is_reported_at_the_release_and_can_be_switched_off() {
    let dir = scratch("mismatch");
    let cpp = r#"#include <stdlib.h>
void *xmalloc(size_t n) { void *p = malloc(n); if (!p) abort(); return p; }
void arrays(int n) {
    int *v = new int[n];
    v[0] = 1;
    delete v;
}
void wrapped(void) {
    char *p = (char *)xmalloc(4);
    delete[] p;
}
void matched(int n) {
    int *v = new int[n];
    delete[] v;
    free(xmalloc(2));
}
"#;
    write(&dir, "m.cpp", cpp);
    compdb(&dir, &["m.cpp"]);
    let run = |extra: &[&str]| {
        drip().current_dir(&dir).args(["check", "--no-cache", "--stats"]).args(extra).output().expect("run drip")
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let first = text.lines().next().unwrap_or_default();
    assert!(first.starts_with("m.cpp:6:5: warning: memory allocated by 'operator new[]' at m.cpp:4"), "{text}");
    assert!(first.ends_with("must be released by delete[] [mismatched-deallocation]"), "{text}");
    assert!(text.contains("m.cpp:4:14: note: memory is allocated here by 'operator new[]'"), "{text}");
    assert!(text.contains("m.cpp:10:5: warning: memory allocated by 'xmalloc' at m.cpp:9"), "{text}");
    assert!(text.contains("note: 'xmalloc' gets the memory from 'malloc' here"), "{text}");
    assert_eq!(text.matches("[mismatched-deallocation]").count(), 2, "{text}");
    let err = stderr(&out);
    assert!(err.contains("0 leaks, 0 double frees, 2 mismatched deallocations"), "{err}");
    assert!(err.contains("0 double-free, 2 mismatched-deallocation, 0 leak-global;"), "{err}");

    let json = run(&["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    let rules: Vec<&str> = doc["diagnostics"].as_array().unwrap().iter().map(|d| d["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["mismatched-deallocation", "mismatched-deallocation"]);
    assert_eq!(doc["stats"]["findings_mismatched_deallocation"], 2);

    let sarif = run(&["--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("sarif");
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "mismatched-deallocation");
    assert_eq!(result["ruleIndex"], 3);
    assert_eq!(result["locations"][0]["physicalLocation"]["region"]["startLine"], 6);
    let rule = &log["runs"][0]["tool"]["driver"]["rules"][3];
    assert!(rule["properties"]["tags"].as_array().unwrap().contains(&serde_json::json!("external/cwe/cwe-762")));

    let off = run(&["--disable", "mismatched-deallocation"]);
    assert_eq!(off.status.code(), Some(0), "{}", stderr(&off));
    assert!(stdout(&off).is_empty());
    assert!(stderr(&off).contains("2 of rules switched off (mismatched-deallocation)"), "{}", stderr(&off));
}

/// `--exceptions` (and `.drip.toml`'s `[check] exceptions`) adds the edges of C++ calls that may
/// throw: the leak between `new` and `delete` appears only with it, and a cached run with one
/// setting is never replayed for the other.
#[test]
fn exceptions_flag_changes_the_result_and_the_cache_keeps_them_apart() {
    let dir = scratch("exceptions");
    write(
        &dir,
        "throwing.cpp",
        "int may_throw(int c);\nvoid between(int c) {\n    int *p = new int;\n    may_throw(c);\n    delete p;\n}\n",
    );
    compdb(&dir, &["throwing.cpp"]);
    let run = |extra: &[&str]| {
        let o = drip().current_dir(&dir).args(["check", "--stats"]).args(extra).output().expect("run drip");
        let reused =
            stderr(&o).lines().any(|l| l.trim_start().starts_with("cache ") && l.contains("whole result reused"));
        (o.status.code(), stdout(&o).contains("throwing.cpp:3:"), reused)
    };
    assert_eq!(run(&[]), (Some(0), false, false), "without the flag the call returns");
    assert_eq!(run(&["--exceptions"]), (Some(1), true, false), "a leak on the exceptional edge, not the cached run");
    assert_eq!(run(&[]), (Some(0), false, true), "the run without the flag, from its own record");
    assert_eq!(run(&["--exceptions"]), (Some(1), true, true), "the run with it, from its own record");
    write(&dir, ".drip.toml", "[check]\nexceptions = true\n");
    let (code, leak, _) = run(&[]);
    assert_eq!((code, leak), (Some(1), true), "the configuration file's switch");
}
