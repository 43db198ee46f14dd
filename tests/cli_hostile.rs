//! The command line against hostile and unusual input: control characters in file names and
//! sources, arguments that are not UTF-8, compile databases whose flags would write files.
//! Each test writes its own inputs into a temporary directory.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn drip() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_drip"));
    // As from a shell: not the variables of a `make test` that runs the tests.
    for v in ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"] {
        c.env_remove(v);
    }
    c
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-hostile").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    std::fs::canonicalize(&dir).expect("canonical scratch dir")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A name with bytes that are not UTF-8 (as a Latin-1 file system would have them).
fn latin1(prefix: &str, suffix: &str) -> OsString {
    let mut b = prefix.as_bytes().to_vec();
    b.extend_from_slice(b"\xe9t\xe9");
    b.extend_from_slice(suffix.as_bytes());
    OsString::from_vec(b)
}

const LEAKY: &str = "#include <stdlib.h>\n\
    int leaky(int n) {\n\
    \x20   char *p = malloc(n); /* \x1b[2J\x1b]0;owned\x07 */\n\
    \x20   if (!p) return -1;\n\
    \x20   if (n > 3) return -1;\n\
    \x20   free(p);\n\
    \x20   return 0;\n\
    }\n";

/// A file name with an escape sequence and a newline, and a source line with escape sequences:
/// the text report and the messages show them as escapes, so nothing reaches the terminal as a
/// command and no line is forged.
#[test]
fn control_characters_in_names_and_sources_are_escaped() {
    let dir = scratch("escapes");
    let name = "esc\x1b]0;owned\x07\nforged.c";
    std::fs::write(dir.join(name), LEAKY).expect("source");
    let out = drip().current_dir(&dir).args(["check", "--no-cache", "-v", name, "--"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let (text, messages) = (stdout(&out), stderr(&out));
    for s in [&text, &messages] {
        assert!(!s.chars().any(|c| c.is_control() && c != '\n'), "a control character is printed: {s:?}");
    }
    let shown = "esc\\x1b]0;owned\\x07\\nforged.c";
    assert!(text.starts_with(&format!("{shown}:3:15: warning: ")), "{text}");
    assert!(text.contains("/* \\x1b[2J\\x1b]0;owned\\x07 */"), "the quoted line: {text}");
    for line in text.lines() {
        assert!(line.starts_with(shown) || line.starts_with(' '), "a line not of the report: {line:?}\n{text}");
    }
    assert!(messages.contains(shown), "-v names the TU: {messages}");
}

/// Arguments that are not UTF-8 never panic: paths (`-p`, `-o`, `--cache-dir`) are used as they
/// are; what drip hands to libclang as text (a source file's name, a compiler flag) or compares
/// with names (`--function`) is a usage error that says so.
#[test]
fn arguments_that_are_not_utf8_are_paths_or_usage_errors() {
    let dir = scratch("not-utf8");
    std::fs::write(dir.join("leaky.c"), LEAKY).expect("source");
    // The database in a folder whose name is not UTF-8; the report and cache likewise.
    let db_dir = dir.join(latin1("db-", ""));
    std::fs::create_dir_all(&db_dir).expect("db dir");
    let entry = serde_json::json!([{ "directory": dir.display().to_string(), "file": "leaky.c",
        "arguments": ["cc", "-c", "leaky.c"] }]);
    std::fs::write(db_dir.join("compile_commands.json"), entry.to_string()).expect("database");
    let report = dir.join(latin1("report-", ".txt"));
    let cache = dir.join(latin1("cache-", ""));
    let out = drip()
        .current_dir(&dir)
        .arg("check")
        .arg("-p")
        .arg(&db_dir)
        .arg("-o")
        .arg(&report)
        .arg("--cache-dir")
        .arg(&cache)
        .output()
        .expect("run drip");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&report).expect("the report").contains("leaky.c:3:15: warning:"));
    assert!(cache.is_dir(), "the cache is where --cache-dir says");
    let mut cache_eq = OsString::from("--cache-dir=");
    cache_eq.push(dir.join(latin1("other-", "")));
    let out = drip().current_dir(&dir).arg("check").arg(&cache_eq).args(["leaky.c", "--"]).output().expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(dir.join(latin1("other-", "")).is_dir(), "--cache-dir=DIR too");

    let usage_error = |args: &[&OsStr], says: &str| {
        let out = drip().current_dir(&dir).args(args).output().expect("run drip");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    };
    let source = latin1("src-", ".c");
    std::fs::write(dir.join(&source), LEAKY).expect("source");
    let o = OsStr::new;
    usage_error(&[o("check"), &source, o("--")], "file names that are not UTF-8");
    usage_error(&[o("check"), o("leaky.c"), o("--"), &latin1("-DX=", "")], "not UTF-8");
    usage_error(&[o("dump-ir"), o("--function"), &latin1("f", ""), o("leaky.c"), o("--")], "not UTF-8");
    usage_error(&[o("check"), o("--format"), &latin1("", "")], "not UTF-8");
    usage_error(&[o("check"), &latin1("--", "")], "unexpected argument");
    usage_error(&[&latin1("", "")], "unrecognized subcommand");
    usage_error(&[o("check"), o("--config"), &latin1("missing-", ".toml"), o("leaky.c"), o("--")], "missing-");
}

/// `drip capture`'s build command reaches the build byte for byte, whatever its encoding.
#[test]
fn a_build_word_that_is_not_utf8_reaches_the_build_untouched() {
    let dir = scratch("capture-word");
    let word = latin1("CFLAGS=-DNAME=", "\x01");
    let out = drip()
        .current_dir(&dir)
        .args(["capture", "--", "sh", "-c", "printf '%s' \"$1\" > word.bin", "sh"])
        .arg(&word)
        .output()
        .expect("run drip capture");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(dir.join("word.bin")).expect("the build ran"), word.as_bytes());
    // Options of capture's own are text: one that is not is an error, not a panic.
    let out = drip()
        .current_dir(&dir)
        .arg("capture")
        .arg("--compiler")
        .arg(latin1("cc", ""))
        .args(["--", "true"])
        .output()
        .expect("run drip capture");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not UTF-8"), "{}", stderr(&out));
}

/// A compile database written for clang-cl (where `/X` words are options: `/showIncludes`
/// prints on drip's standard output, `/FI` includes a file) is read as GCC's driver reads it,
/// with the entry's file as the only input: the report is the only thing on stdout, the forced
/// include does not happen, and nothing is written outside the cache.
#[test]
fn a_database_for_another_driver_mode_is_read_as_gccs() {
    let dir = scratch("driver-mode");
    std::fs::write(
        dir.join("a.c"),
        "#include <stdlib.h>\n#ifdef EVIL\nvoid evil(void) { char *p = malloc(4); p[0] = 0; }\n#endif\n\
         void seen(int n) { char *p = malloc(n); if (!p) return; if (n > 3) return; free(p); }\n",
    )
    .expect("source");
    std::fs::write(dir.join("evil.h"), "#define EVIL 1\n").expect("header");
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("ls")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.retain(|n| n != "cache");
        names.sort();
        names
    };
    for compiler in ["clang-cl", "/opt/llvm/bin/clang-cl-19", "cl.exe", "clang-cpp"] {
        let args =
            [compiler, "/c", "a.c", "/showIncludes", "/FIevil.h", "/sourceDependencies", "deps.json", "/Fo", "a.obj"];
        let db = serde_json::json!([{ "directory": dir.display().to_string(), "file": "a.c", "arguments": args }]);
        std::fs::write(dir.join("compile_commands.json"), db.to_string()).expect("database");
        let before = listing();
        let out = drip()
            .current_dir(&dir)
            .args(["check", "-p", ".", "--cache-dir", "cache", "--format", "json"])
            .output()
            .expect("run drip");
        assert_eq!(listing(), before, "{compiler}: files written outside the cache");
        assert_eq!(out.status.code(), Some(1), "{compiler}: {}", stderr(&out));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("only the report on stdout");
        let functions: Vec<&str> = report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter_map(|d| d["function"].as_str())
            .collect();
        assert_eq!(functions, ["seen"], "{compiler}: EVIL must stay undefined");
    }
}
