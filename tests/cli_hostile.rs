//! The command line against hostile and unusual input: control characters in file names and
//! sources.
//! Each test writes its own inputs into a temporary directory.

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
