//! `.drip.toml` end to end: where drip finds it, the memory API a project declares in it
//! (`[allocators]`, `[deallocators]`, `[noreturn]`), `[[suppress]]` entries, stale suppressions,
//! and mistakes. Each test builds a project as CMake lays one out: sources in `src/`, the compile
//! database in `build/`, the configuration at the repository's root.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn drip() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drip"))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("create dir");
    std::fs::write(&p, text).expect("write file");
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A repository at `root` with the compile database in `build/` naming `files` (in `src/`).
fn project(files: &[(&str, &str)], in_db: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    std::fs::create_dir_all(root.join(".git")).expect("git dir");
    for (name, text) in files {
        write(root, &format!("src/{name}"), text);
    }
    let build = root.join("build");
    let entries: Vec<serde_json::Value> = in_db
        .iter()
        .map(|f| {
            serde_json::json!({
                "directory": build.display().to_string(),
                "file": format!("../src/{f}"),
                "arguments": ["cc", "-std=gnu11", "-c", format!("../src/{f}")],
            })
        })
        .collect();
    write(&build, "compile_commands.json", &serde_json::to_string_pretty(&entries).expect("json"));
    tmp
}

/// `drip check -p build` from `root`, as JSON; (findings as (file name, line, rule), stderr, exit code).
fn check(root: &Path, extra: &[&str]) -> (Vec<(String, u64, String)>, String, Option<i32>) {
    let out = drip()
        .current_dir(root)
        .args(["check", "-p", "build", "--format", "json", "-v", "--stats"])
        .args(extra)
        .output()
        .expect("run drip");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    let mut found: Vec<(String, u64, String)> = json["diagnostics"]
        .as_array()
        .map(|a| a.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|d| d["suppression"].is_null())
        .map(|d| {
            let file = d["loc"]["file"].as_str().unwrap_or_default();
            let name = Path::new(file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (name, d["loc"]["line"].as_u64().unwrap_or(0), d["rule"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    found.sort();
    (found, stderr(&out), out.status.code())
}

const POOL_H: &str = "#include <stddef.h>\n\
void *pool_alloc(size_t n);\n\
void *pool_grow(void *old, size_t n);\n\
void pool_release(void *p);\n\
void fatal(const char *msg);\n";

/// Line numbers matter: the assertions name them.
const USER_C: &str = r#"#include <stdlib.h>
#include <string.h>
#include "pool.h"
int leaks(size_t n) {
    char *p = pool_alloc(n);
    if (!p)
        return -1;
    memset(p, 0, n);
    return 0;
}
int grows(size_t n) {
    char *p = pool_alloc(n);
    if (!p)
        return -1;
    p = pool_grow(p, 2 * n);
    if (!p)
        return -1;
    pool_release(p);
    return 0;
}
void twice(size_t n) {
    char *p = malloc(n);
    pool_release(p);
    pool_release(p);
}
int by_kind(int kind, size_t n) {
    char *p = malloc(n);
    if (!p)
        return -1;
    switch (kind) {
    case 1:
        memset(p, 1, n);
        free(p);
        return 1;
    default:
        fatal("unknown kind");
    }
    return 0;
}
"#;

/// The pool's implementation: not in the compile database (a prebuilt library, say).
const POOL_C: &str = "#include <stdlib.h>\n#include \"pool.h\"\nvoid *pool_alloc(size_t n) { return malloc(n); }\n";

const DECLARATIONS: &str = r#"[allocators]
pool_alloc = "malloc"
pool_grow = "realloc"     # argument 0 is the old block

[deallocators]
pool_release = 0

[noreturn]
fatal = true
"#;

#[test]
fn declared_memory_api_reaches_the_analysis() {
    let tmp = project(&[("pool.h", POOL_H), ("user.c", USER_C), ("pool.c", POOL_C)], &["user.c"]);
    let root = tmp.path();
    // Without the declarations: `pool_alloc` is an unknown callee (no site), `pool_release` lets
    // its argument escape (no double free), and `fatal` returns (a leak on the default case).
    let (found, err, code) = check(root, &["--no-cache"]);
    assert_eq!(found, [("user.c".to_string(), 27, "leak".to_string())], "{err}");
    assert_eq!(code, Some(1));
    assert!(err.contains("no .drip.toml in"), "{err}");

    write(root, ".drip.toml", DECLARATIONS);
    let (found, err, code) = check(root, &["--no-cache"]);
    let want: Vec<(String, u64, String)> = [
        (5, "leak"),                     // an allocator whose body is in no TU of the database
        (12, "leak-on-realloc-failure"), // the old block when the realloc-like `pool_grow` fails
        (22, "double-free"),             // a declared free-like function
    ]
    .iter()
    .map(|(l, r)| ("user.c".to_string(), *l, r.to_string()))
    .collect();
    assert_eq!(found, want, "the noreturn `fatal` cuts the false path of line 27: {err}");
    assert_eq!(code, Some(1));
    // Found from build/ upward, at the repository's root.
    let file = root.join(".drip.toml");
    assert!(err.contains(&format!("configuration from {}", file.display())), "{err}");
    assert!(
        err.contains("allocators          1 from the library model (called), 2 declared in .drip.toml (pool_alloc, pool_grow), 0 by attributes, 0 inferred wrappers"),
        "{err}"
    );

    // The same with the cache: the declarations are part of what results are keyed on.
    let cache = tempfile::tempdir().expect("cache dir");
    let cache_dir = cache.path().to_str().expect("utf-8 path");
    assert_eq!(check(root, &["--cache-dir", cache_dir]).0, want);
    write(root, ".drip.toml", "[allocators]\npool_alloc = \"malloc\"\n");
    let (found, err, _) = check(root, &["--cache-dir", cache_dir]);
    assert_eq!(
        found,
        [("user.c".to_string(), 5, "leak".to_string()), ("user.c".to_string(), 27, "leak".to_string())],
        "a changed declaration is not served from the cache: {err}"
    );
}

/// `my_alloc`'s body hands out blocks of a static arena, which no summary can call fresh; the
/// declaration says what its callers see, and `-v` says so.
#[test]
fn a_declaration_wins_over_the_definition() {
    let alloc_c = r#"#include <stddef.h>
static char arena[1 << 16];
static size_t used;
void *my_alloc(size_t n) {
    if (used + n > sizeof arena)
        return NULL;
    used += n;
    return arena + used - n;
}
"#;
    let user_c = "#include <string.h>\nvoid *my_alloc(size_t n);\nvoid f(size_t n) {\n    char *p = my_alloc(n);\n    if (p)\n        memset(p, 0, n);\n}\n";
    let tmp = project(&[("alloc.c", alloc_c), ("user.c", user_c)], &["alloc.c", "user.c"]);
    let root = tmp.path();
    let (found, err, code) = check(root, &["--no-cache"]);
    assert!(found.is_empty() && code == Some(0), "{found:?} {err}");
    write(root, ".drip.toml", "[allocators]\nmy_alloc = \"malloc\"\nmy_aloc = \"malloc\"\n");
    let (found, err, _) = check(root, &["--no-cache"]);
    assert_eq!(found, [("user.c".to_string(), 4, "leak".to_string())], "{err}");
    assert!(err.contains("declares my_alloc, which the program also defines: callers see the declaration"), "{err}");
    assert!(err.contains("declares my_aloc, which the program neither calls directly nor defines"), "{err}");
}

/// A header that states the memory API with attributes: GCC's `malloc(dealloc)` (written through
/// a macro, as glibc's `__attr_dealloc`), clang's `ownership_returns`/`ownership_takes`.
const ATTR_H: &str = "#include <stddef.h>\n\
#define RELEASED_BY(f) __attribute__((malloc, malloc(f)))\n\
void vec_free(void *v);\n\
void *vec_new(size_t n) RELEASED_BY(vec_free);\n\
void *tok_get(size_t n) __attribute__((ownership_returns(tok)));\n\
void tok_put(void *t) __attribute__((ownership_takes(tok, 1)));\n";

/// Line numbers matter: the assertions name them.
const ATTR_USER_C: &str = r#"#include <string.h>
#include "attr.h"
int vec_leak(size_t n) {
    char *v = vec_new(n);
    if (!v)
        return -1;
    memset(v, 0, n);
    return 0;
}
void vec_twice(size_t n) {
    char *v = vec_new(n);
    vec_free(v);
    vec_free(v);
}
int tok_once(size_t n) {
    char *t = tok_get(n);
    if (!t)
        return -1;
    tok_put(t);
    return 0;
}
void tok_twice(size_t n) {
    char *t = tok_get(n);
    tok_put(t);
    tok_put(t);
}
"#;

/// The attributes of a header declare allocators and deallocators whose bodies are in no TU;
/// `--stats` says where each came from; a `.drip.toml` that declares one of them otherwise wins,
/// and the disagreement is a warning on stderr and a notification in JSON and SARIF.
#[test]
fn attributes_declare_the_memory_api_and_the_configuration_wins() {
    let tmp = project(&[("attr.h", ATTR_H), ("user.c", ATTR_USER_C)], &["user.c"]);
    let root = tmp.path();
    let (found, err, code) = check(root, &["--no-cache"]);
    let at = |l: u64, r: &str| ("user.c".to_string(), l, r.to_string());
    assert_eq!(found, [at(4, "leak"), at(11, "double-free"), at(23, "double-free")], "{err}");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("allocators          0 from the library model (called), 0 declared in .drip.toml, 2 by attributes (tok_get, vec_new), 0 inferred wrappers"),
        "{err}"
    );
    assert!(
        err.contains("deallocators        0 from the library model (called), 0 declared in .drip.toml, 2 by attributes (tok_put, vec_free), 0 inferred wrappers"),
        "{err}"
    );
    assert!(err.contains("0 with errors"), "clang's error on malloc(dealloc) is no parse error: {err}");
    assert!(!err.contains("declaration-conflict") && !err.contains("the configuration wins"), "{err}");

    // The configuration counts `vec_free`'s argument from 1 by mistake: it wins (`vec_free`
    // frees no argument it is given: the double free becomes a leak), and the disagreement is named;
    // `tok_put`'s declaration agrees with its attribute.
    write(root, ".drip.toml", "[deallocators]\nvec_free = 1\ntok_put = 0\n");
    let (found, err, _) = check(root, &["--no-cache"]);
    let conflict = "declares 'vec_free' frees its second argument, but the attributes at ";
    assert!(err.contains(&format!("drip: warning: {}", root.join(".drip.toml").display())), "{err}");
    assert!(err.contains(conflict), "{err}");
    assert!(err.contains("attr.h:4 say it frees its first argument: the configuration wins"), "{err}");
    assert!(!err.contains("'tok_put'"), "that one agrees: {err}");
    assert!(
        err.contains("deallocators        0 from the library model (called), 2 declared in .drip.toml (tok_put, vec_free), 0 by attributes, 0 inferred wrappers"),
        "{err}"
    );
    assert_eq!(found, [at(4, "leak"), at(11, "leak"), at(23, "double-free")], "{err}");
    for (format, key) in [("json", "notifications"), ("sarif", "toolExecutionNotifications")] {
        let out = drip()
            .current_dir(root)
            .args(["check", "-p", "build", "--no-cache", "--format", format])
            .output()
            .expect("run drip");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(key) && text.contains("declaration-conflict") && text.contains(conflict),
            "{format}: {text}"
        );
    }
    // With the cache: an attribute that changes what a function does (`tok_put` keeps its
    // argument instead of freeing it) changes the results, though no caller changed.
    std::fs::remove_file(root.join(".drip.toml")).expect("remove config");
    let cache = tempfile::tempdir().expect("cache dir");
    let cache_dir = cache.path().to_str().expect("utf-8 path");
    assert_eq!(
        check(root, &["--cache-dir", cache_dir]).0,
        [at(4, "leak"), at(11, "double-free"), at(23, "double-free")]
    );
    write(root, "src/attr.h", &ATTR_H.replace("ownership_takes(tok, 1)", "ownership_holds(tok, 1)"));
    let (found, err, _) = check(root, &["--cache-dir", cache_dir]);
    assert_eq!(found, [at(4, "leak"), at(11, "double-free")], "{err}");
}

const VENDOR_C: &str =
    "#include <stdlib.h>\nvoid vendored(int n) {\n    char *p = malloc(n);\n    if (p)\n        p[0] = 0;\n}\n";
const OWN_C: &str = "#include <stdlib.h>\n\
void mine(int n) {\n\
    // drip: ignore[double-free] -- a stale comment: the finding here is a leak\n\
    char *p = malloc(n);\n\
    if (p)\n\
        p[0] = 0;\n\
}\n";

#[test]
fn suppress_entries_and_stale_suppressions() {
    let tmp = project(&[("vendor/zz.c", VENDOR_C), ("own.c", OWN_C)], &["vendor/zz.c", "own.c"]);
    let root = tmp.path();
    let cache = tempfile::tempdir().expect("cache dir");
    let cache_dir = cache.path().to_str().expect("utf-8 path");
    let run = |fmt: &str| {
        drip()
            .current_dir(root)
            .args(["check", "-p", "build", "-v", "--cache-dir", cache_dir, "--format", fmt])
            .output()
            .expect("run drip")
    };
    let first = run("text");
    assert_eq!(first.status.code(), Some(1));
    assert!(stderr(&first).contains("2 leaks, 0 double frees"), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("own.c:3: the comment matches no finding on its line or the next"),
        "a stale inline suppression: {}",
        stderr(&first)
    );
    write(
        root,
        ".drip.toml",
        "[[suppress]]\nrule = \"leak\"\nfile = \"src/vendor/**\"\nreason = \"vendored; reported upstream\"\n\n\
         [[suppress]]\nrule = \"*\"\nfile = \"src/generated/*.c\"\nfunction = \"yyparse\"\n",
    );
    // The analysis is served from the cache (nothing it depends on changed); the suppressions
    // are applied again.
    let text = run("text");
    let (out, err) = (String::from_utf8_lossy(&text.stdout).into_owned(), stderr(&text));
    assert_eq!(text.status.code(), Some(1), "{err}");
    assert!(out.contains("own.c:4:") && !out.contains("zz.c"), "{out}");
    assert!(err.contains("1 leak, 0 double frees, 1 suppressed"), "{err}");
    assert!(err.contains("its result is reused from the cache"), "{err}");
    assert!(
        err.contains("stale suppression: ") && err.contains("[[suppress]] entry 2 (rule = \"*\", file = \"src/generated/*.c\", function = \"yyparse\") matches no finding"),
        "{err}"
    );
    assert!(!err.contains("entry 1 ("), "entry 1 matched: {err}");
    let sarif: serde_json::Value = serde_json::from_slice(&run("sarif").stdout).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let suppressed: Vec<&serde_json::Value> = results.iter().filter_map(|r| r.get("suppressions")).collect();
    assert_eq!(results.len(), 2);
    assert_eq!(suppressed.len(), 1);
    assert_eq!(suppressed[0][0]["kind"], "external");
    assert_eq!(suppressed[0][0]["justification"], "vendored; reported upstream");
    let json: serde_json::Value = serde_json::from_slice(&run("json").stdout).expect("json");
    let kinds: Vec<&serde_json::Value> =
        json["diagnostics"].as_array().expect("diagnostics").iter().map(|d| &d["suppression"]["kind"]).collect();
    assert_eq!(kinds, [&serde_json::Value::Null, &serde_json::json!("external")]);
}

#[test]
fn configuration_mistakes_are_usage_errors_naming_the_key() {
    let tmp = project(&[("own.c", OWN_C)], &["own.c"]);
    let root = tmp.path();
    for (text, says) in [
        ("[allocators]\nxmalloc = { kind = \"malloc\", size = 1 }\n", "[allocators] xmalloc: unknown key 'size'"),
        ("[allocators]\nxmalloc = \"alloca\"\n", "unknown allocator kind 'alloca'"),
        ("[deallocator]\nxfree = 0\n", "unknown section 'deallocator'"),
        ("[[suppress]]\nrule = \"leak\"\nfiles = \"a.c\"\n", "[[suppress]] entry 1: unknown key 'files'"),
    ] {
        write(root, ".drip.toml", text);
        let out = drip().current_dir(root).args(["check", "-p", "build", "--no-cache"]).output().expect("run drip");
        assert_eq!(out.status.code(), Some(2), "{text:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{text:?}: {}", stderr(&out));
    }
}

/// For `drip check FILES -- FLAGS` the search starts in the current directory; `--config` names
/// a file anywhere instead.
#[test]
fn files_on_the_command_line_find_the_configuration_upward() {
    let tmp = project(&[("pool.h", POOL_H), ("user.c", USER_C)], &["user.c"]);
    let root = tmp.path();
    write(root, ".drip.toml", DECLARATIONS);
    let src = root.join("src");
    let out = drip().current_dir(&src).args(["check", "--no-cache", "-v", "user.c", "--"]).output().expect("run drip");
    let err = stderr(&out);
    assert!(err.contains(&format!("configuration from {}", root.join(".drip.toml").display())), "{err}");
    assert!(err.contains("2 leaks, 1 double free"), "{err}");
    let other = tempfile::tempdir().expect("tempdir");
    let empty = write(other.path(), "empty.toml", "");
    let out = drip()
        .current_dir(&src)
        .args(["check", "--no-cache", "-v", "--config"])
        .arg(&empty)
        .args(["user.c", "--"])
        .output()
        .expect("run drip");
    let err = stderr(&out);
    assert!(err.contains(&format!("configuration from {}", empty.display())), "{err}");
    assert!(err.contains("1 leak, 0 double frees"), "only the false leak of line 27: {err}");
}

/// `[rules]` and `--enable`/`--disable`: a rule switched off is left out of every report, the
/// counts and the exit code, and `--stats` counts it; the command line wins over the file, the
/// last switch wins, and switching needs no new analysis (the cached result is filtered).
#[test]
fn rules_switched_off_in_the_file_and_on_the_command_line() {
    let tmp = project(&[("pool.h", POOL_H), ("user.c", USER_C)], &["user.c"]);
    let root = tmp.path();
    let cache = tempfile::tempdir().expect("cache dir");
    let cache_dir = cache.path().to_str().expect("utf-8 path");
    let f = |l: u64, r: &str| ("user.c".to_string(), l, r.to_string());
    let all = [f(5, "leak"), f(12, "leak-on-realloc-failure"), f(22, "double-free")];
    write(root, ".drip.toml", DECLARATIONS);
    let (found, err, code) = check(root, &["--cache-dir", cache_dir]);
    assert_eq!((found, code), (all.to_vec(), Some(1)), "{err}");
    assert!(err.contains("2 leaks, 1 double free"), "both kinds of leak are leaks: {err}");
    assert!(
        err.contains("findings            1 leak, 1 leak-on-realloc-failure, 1 double-free, 0 mismatched-deallocation, 0 leak-global; 0 suppressed"),
        "{err}"
    );
    assert!(err.contains("; 0 of rules switched off\n"), "{err}");

    write(root, ".drip.toml", &format!("{DECLARATIONS}\n[rules]\nleak-on-realloc-failure = false\n"));
    let (found, err, code) = check(root, &["--cache-dir", cache_dir]);
    assert_eq!((found, code), (vec![all[0].clone(), all[2].clone()], Some(1)), "{err}");
    assert!(err.contains("its result is reused from the cache"), "switching a rule changes no analysis: {err}");
    assert!(err.contains("1 leak, 1 double free"), "{err}");
    assert!(err.contains("; 1 of rules switched off (leak-on-realloc-failure)"), "{err}");

    // The command line wins over the file; the last switch on a rule wins.
    let (found, err, _) = check(root, &["--cache-dir", cache_dir, "--enable", "leak-on-realloc-failure"]);
    assert_eq!(found, all.to_vec(), "{err}");
    let (found, err, code) =
        check(root, &["--no-cache", "--disable", "leak,double-free", "--disable=leak-on-realloc-failure"]);
    assert_eq!((found.len(), code), (0, Some(0)), "nothing is reported, so nothing is found: {err}");
    assert!(err.contains("0 leaks, 0 double frees") && err.contains("; 3 of rules switched off"), "{err}");
    let (found, err, _) =
        check(root, &["--no-cache", "--disable", "double-free", "--enable", "double-free,leak-on-realloc-failure"]);
    assert_eq!(found, all.to_vec(), "{err}");

    // JSON counts the findings left out; SARIF still describes every rule, and has no result of
    // one switched off.
    let out = drip()
        .current_dir(root)
        .args(["check", "-p", "build", "--no-cache", "--format", "json", "--disable", "double-free"])
        .output()
        .expect("run drip");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["stats"]["disabled"], 2, "double-free and the file's leak-on-realloc-failure");
    assert_eq!(json["stats"]["rules_off"], serde_json::json!(["double-free", "leak-on-realloc-failure"]));
    let out = drip()
        .current_dir(root)
        .args(["check", "-p", "build", "--no-cache", "--format", "sarif", "--enable", "leak-on-realloc-failure"])
        .args(["--disable", "leak"])
        .output()
        .expect("run drip");
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).expect("sarif");
    let ids: Vec<&str> = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, ["leak", "double-free", "leak-on-realloc-failure", "mismatched-deallocation", "leak-global"]);
    let results: Vec<(&str, u64)> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (r["ruleId"].as_str().unwrap_or_default(), r["ruleIndex"].as_u64().unwrap_or(9)))
        .collect();
    assert_eq!(results, [("leak-on-realloc-failure", 2), ("double-free", 1)]);
}

/// A baseline written with a rule switched off does not have its findings: switched on later,
/// they are new. One written before `leak-on-realloc-failure` existed (when such a finding was a
/// `leak`) still matches, since the fingerprint hashes both kinds of leak alike (unit test
/// `fingerprints_survive_unrelated_edits`).
#[test]
fn a_baseline_holds_only_the_rules_switched_on() {
    let tmp = project(&[("pool.h", POOL_H), ("user.c", USER_C)], &["user.c"]);
    let root = tmp.path();
    write(root, ".drip.toml", DECLARATIONS);
    let base = root.join("base.sarif");
    let base_arg = base.to_str().expect("utf-8 path");
    let (_, err, code) =
        check(root, &["--no-cache", "--disable", "leak-on-realloc-failure", "--write-baseline", base_arg]);
    assert_eq!(code, Some(1), "{err}");
    let (found, err, code) = check(root, &["--no-cache", "--baseline", base_arg]);
    assert_eq!(
        (found, code),
        (vec![("user.c".to_string(), 12, "leak-on-realloc-failure".to_string())], Some(1)),
        "{err}"
    );
    assert!(err.contains("2 hidden by the baseline"), "{err}");
}

/// `drip: ignore[RULE]` names the rule exactly: `ignore[leak]` does not silence a
/// `leak-on-realloc-failure`.
#[test]
fn suppression_comments_name_the_new_rule() {
    let run = |marker: &str| {
        let user =
            USER_C.replace("int grows(size_t n) {", &format!("int grows(size_t n) {{ // drip: ignore[{marker}]"));
        let tmp = project(&[("pool.h", POOL_H), ("user.c", &user)], &["user.c"]);
        write(tmp.path(), ".drip.toml", DECLARATIONS);
        check(tmp.path(), &["--no-cache"])
    };
    let (found, err, _) = run("leak-on-realloc-failure");
    assert!(!found.iter().any(|(_, l, _)| *l == 12), "{found:?} {err}");
    assert!(err.contains("1 suppressed"), "{err}");
    let (found, err, _) = run("leak");
    assert!(found.contains(&("user.c".to_string(), 12, "leak-on-realloc-failure".to_string())), "{found:?} {err}");
    assert!(err.contains("the comment matches no finding on its line or the next"), "{err}");
}

#[test]
fn unknown_rules_are_usage_errors_with_a_guess() {
    let tmp = project(&[("own.c", OWN_C)], &["own.c"]);
    let root = tmp.path();
    for (args, says) in [
        (
            &["--disable", "leaks"][..],
            "--disable: unknown rule 'leaks' (known: leak, double-free, leak-on-realloc-failure, mismatched-deallocation, leak-global); did you mean 'leak'?",
        ),
        (&["--enable", "double-free,realloc"][..], "did you mean 'leak-on-realloc-failure'?"),
        (&["--enable"][..], "a value is required for '--enable <RULES>'"),
    ] {
        let out = drip()
            .current_dir(root)
            .args(["check", "-p", "build", "--no-cache"])
            .args(args)
            .output()
            .expect("run drip");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    write(root, ".drip.toml", "[rules]\ndoublefree = false\n");
    let out = drip().current_dir(root).args(["check", "-p", "build", "--no-cache"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("[rules]: unknown rule 'doublefree'")
            && stderr(&out).contains("did you mean 'double-free'?"),
        "{}",
        stderr(&out)
    );
}
