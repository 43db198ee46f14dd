//! The command line's terminal side: `--color` with `NO_COLOR` and `TERM=dumb`, and the shell
//! completions and man pages generated from the same definition as `--help`. Terminals are real
//! ones, through script(1).

use std::path::Path;
use std::process::{Command, Output};

fn drip() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_drip"));
    for v in ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        c.env_remove(v);
    }
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const LEAKY: &str =
    "#include <stdlib.h>\nint leaky(int n) {\n    char *p = malloc(n);\n    if (!p)\n        return -1;\n    \
                     if (n > 3)\n        return -1;\n    free(p);\n    return 0;\n}\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("scratch dir");
    std::fs::write(dir.path().join("leaky.c"), LEAKY).expect("source");
    dir
}

const ESC: char = '\x1b';

/// `drip ARGS` in a terminal of its own (script(1)), with `env` set: what the terminal received.
fn on_a_terminal(dir: &Path, args: &str, env: &[(&str, &str)]) -> String {
    let typescript = dir.join("typescript");
    let mut script = Command::new("script");
    script.current_dir(dir).env("TERM", "xterm-256color");
    for v in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        script.env_remove(v);
    }
    for (k, v) in env {
        script.env(k, v);
    }
    let status = script
        .args(["-qec", &format!("{} {args}", env!("CARGO_BIN_EXE_drip")), &typescript.to_string_lossy()])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("script(1) from util-linux");
    assert_eq!(status.code(), Some(1), "drip {args} found the leak");
    let seen = std::fs::read_to_string(&typescript).expect("typescript");
    assert!(seen.contains("leaky.c:3:15:"), "{seen}");
    // script(1) writes a header and footer line of its own without -q; with it, only the run.
    seen
}

#[test]
fn color_follows_the_option_the_terminal_and_no_color() {
    let tmp = project();
    let dir = tmp.path();
    let check = |args: &[&str]| {
        let out = drip().current_dir(dir).args(["check", "--no-cache"]).args(args).args(["leaky.c", "--"]).output();
        let out = out.expect("run drip");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    // Not a terminal: colour only when asked for.
    let always = check(&["--color", "always"]);
    assert!(always.contains("\x1b[1;35mwarning:\x1b[0m"), "{always:?}");
    assert!(always.contains("\x1b[1mleaky.c:3:15:\x1b[0m"), "the location is bold: {always:?}");
    for args in [&["--color", "never"][..], &["--color=auto"][..], &[][..]] {
        assert!(!check(args).contains(ESC), "{args:?}");
    }
    // An explicit `always` wins over NO_COLOR, as the convention has it.
    let out = drip()
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(["check", "--no-cache", "--color", "always", "leaky.c", "--"])
        .output()
        .expect("run drip");
    assert!(stdout(&out).contains(ESC));
    // A file gets colour only with `always`; JSON never (escapes would be data).
    for (args, coloured) in [(&["-o", "r.txt"][..], false), (&["-o", "r.txt", "--color", "always"][..], true)] {
        check(args);
        assert_eq!(std::fs::read_to_string(dir.join("r.txt")).expect("report").contains(ESC), coloured, "{args:?}");
    }
    let json = check(&["--format", "json", "--color", "always"]);
    assert!(!json.contains(ESC));
    serde_json::from_str::<serde_json::Value>(&json).expect("JSON");

    // A terminal: colour by default, none with NO_COLOR, TERM=dumb or --color never.
    let cmd = "check --no-cache leaky.c --";
    assert!(on_a_terminal(dir, cmd, &[]).contains("\x1b[1;35mwarning:"), "auto on a terminal colours");
    for (args, env) in [
        (cmd, &[("NO_COLOR", "1")][..]),
        (cmd, &[("TERM", "dumb")][..]),
        (cmd, &[("TERM", "dumb"), ("CI", "true")][..]),
        ("check --no-cache --color never leaky.c --", &[][..]),
    ] {
        let seen = on_a_terminal(dir, args, env);
        assert!(!seen.contains("\x1b[1;35m") && !seen.contains("\x1b[1m"), "{args} {env:?}: {seen:?}");
    }
}

/// clap's own messages follow `--color` too: an error has no escapes with `never`, and has them
/// with `always`.
#[test]
fn usage_errors_follow_color() {
    let run = |color: &str| drip().args(["check", "--color", color, "--formt", "json"]).output().expect("run drip");
    let (never, always) = (run("never"), run("always"));
    assert_eq!(never.status.code(), Some(2));
    assert!(!stderr(&never).contains(ESC), "{}", stderr(&never));
    assert!(stderr(&always).contains(ESC), "{}", stderr(&always));
    assert!(stderr(&always).contains("--format"), "{}", stderr(&always));
}

#[test]
fn completions_name_every_command_and_option() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = drip().args(["completions", shell]).output().expect("run drip");
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        for word in
            ["check", "dump-ir", "capture", "completions", "write-baseline", "source-root", "all-categories", "cdb"]
        {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
        assert!(!script.contains("parse-worker"), "{shell}: the internal worker is not offered");
    }
    // bash accepts the script as it is.
    let out = drip().args(["completions", "bash"]).output().expect("run drip");
    let tmp = tempfile::tempdir().expect("scratch");
    let file = tmp.path().join("drip.bash");
    std::fs::write(&file, &out.stdout).expect("write");
    let bash = Command::new("bash").arg("-n").arg(&file).output().expect("bash");
    assert!(bash.status.success(), "{}", stderr(&bash));
    // An unknown shell is a usage error naming the known ones.
    let out = drip().args(["completions", "tcsh"]).output().expect("run drip");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("possible values: bash, elvish, fish, powershell, zsh"), "{}", stderr(&out));
}

#[test]
fn man_pages_document_every_command_and_option() {
    let out = drip().arg("manpage").output().expect("run drip");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let page = stdout(&out);
    assert!(page.starts_with(".ie \\n(.g .ds Aq") || page.contains(".TH drip 1"), "roff: {page}");
    for word in ["drip\\-check(1)", "drip\\-capture(1)", "\\-\\-color"] {
        assert!(page.contains(word), "drip(1) lacks {word}: {page}");
    }
    let tmp = tempfile::tempdir().expect("scratch");
    let out = drip().arg("manpage").arg(tmp.path()).output().expect("run drip");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut pages: Vec<String> = std::fs::read_dir(tmp.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    let want = ["drip-capture.1", "drip-check.1", "drip-completions.1", "drip-dump-ir.1", "drip-manpage.1", "drip.1"];
    assert_eq!(pages, want);
    let check = std::fs::read_to_string(tmp.path().join("drip-check.1")).expect("drip-check.1");
    for option in ["\\-\\-write\\-baseline", "\\-\\-source\\-root", "\\-\\-budget", "\\-\\-output", "codeclimate"] {
        assert!(check.contains(option), "drip-check(1) lacks {option}");
    }
    // man(1), where installed, renders it without warnings.
    if let Ok(o) = Command::new("man").arg("-l").arg(tmp.path().join("drip-check.1")).env("MANWIDTH", "80").output() {
        if o.status.success() {
            assert!(stdout(&o).contains("write-baseline"), "{}", stdout(&o));
        }
    }
}
