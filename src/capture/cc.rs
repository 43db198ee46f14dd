//! The compiler wrapper that `drip capture` puts ahead of the real compilers: the whole program
//! of the `drip-cc` binary (`wrapper/drip_cc.rs` includes this file by path), and what `drip`
//! itself runs when it is started as `drip-cc` (`lib.rs`), for an installation without `drip-cc`.
//!
//! Input: one compiler invocation from the build, made under a compiler's name: a symbolic link
//! `gcc`, `clang-19`, `x86_64-linux-gnu-gcc`… in drip's wrapper directory, found through PATH;
//! or `<wrapper dir>/abs/usr/bin/clang-19`, set as CC by `drip capture` for a CC given as a path.
//! Output: the real compiler's run with the same arguments, environment (plus `DRIP_CC_SEEN`),
//! standard streams and exit status (a compiler killed by a signal kills the wrapper with the
//! same signal; SIGINT, SIGQUIT, SIGTERM and SIGHUP sent to the wrapper are passed on to the
//! compiler, whose end the wrapper waits for); and, when `DRIP_CAPTURE_JOURNAL` is set and the compiler succeeded, one journal
//! record (`src/capture/record.rs`). Which invocations are compiles is decided later, by
//! `drip capture`: the wrapper stays small and records every successful run.
//! Invariants:
//! - the real compiler is the next one on PATH that is not a wrapper (any file whose canonical
//!   name is `drip-cc`) and that no outer wrapper already ran; it is never this program;
//! - recording never changes the build: no output on the build's streams, no change of exit
//!   status; a failure goes to the errors file beside the journal, which `drip capture` reports;
//! - nothing heavy (std, serde and libc): it starts once per compile, and without a journal it
//!   `exec`s the compiler directly. Run by `drip` it costs drip's start (the dynamic loader maps
//!   libclang and LLVM), which is why `drip capture` installs `drip-cc` when it has one.

use super::record::{Record, ABS_DIR, ERRORS_FILE, JOURNAL_ENV, SEEN_ENV, WRAPPER_NAME};
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};

/// Exit status for "the real compiler cannot be found", as a shell gives for a missing command.
const EXIT_NOT_FOUND: i32 = 127;
/// Exit status for "found but cannot be run", as a shell gives.
const EXIT_CANNOT_RUN: i32 = 126;
/// More nested wrappers than this is a loop (a launcher that always finds a wrapper again).
const MAX_NESTING: usize = 8;

/// The wrapper's run: the exit status to exit with (when it did not `exec` the compiler).
pub fn run() -> i32 {
    let args: Vec<OsString> = std::env::args_os().collect();
    let Some(argv0) = args.first() else {
        eprintln!("{WRAPPER_NAME}: no argv[0]");
        return EXIT_NOT_FOUND;
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let own_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    let seen: Vec<PathBuf> = std::env::var_os(SEEN_ENV)
        .map(|v| {
            v.as_bytes()
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| PathBuf::from(OsStr::from_bytes(l)))
                .collect()
        })
        .unwrap_or_default();
    if seen.len() >= MAX_NESTING {
        eprintln!("{WRAPPER_NAME}: {} wrappers nested: a launcher keeps calling a wrapper; giving up", seen.len());
        return EXIT_NOT_FOUND;
    }
    let real = match find_real(Path::new(argv0), own_dir.as_deref(), &seen, &cwd, std::env::var_os("PATH").as_deref()) {
        Ok(r) => r,
        Err(Lookup::NotACompiler) => {
            eprintln!(
                "{WRAPPER_NAME}: drip capture runs this wrapper under a compiler's name (`drip capture -- make`); it is not a command of its own"
            );
            return 2;
        }
        Err(Lookup::NotFound(msg)) => {
            eprintln!("{WRAPPER_NAME}: {msg}");
            return EXIT_NOT_FOUND;
        }
    };
    let mut seen_now = OsString::new();
    for s in &seen {
        seen_now.push(s);
        seen_now.push("\n");
    }
    seen_now.push(std::fs::canonicalize(&real).unwrap_or_else(|_| real.clone()));

    let mut cmd = Command::new(&real);
    // The compiler sees its own path as argv[0], as if the build had named it by path: GCC looks
    // for its helper programs relative to argv[0], which must not lead back to the wrapper.
    cmd.arg0(&real).args(&args[1..]).env(SEEN_ENV, &seen_now);
    let journal = std::env::var_os(JOURNAL_ENV).filter(|j| !j.is_empty());
    // Below another wrapper, the outer one records.
    let Some(journal) = journal.filter(|_| seen.is_empty()) else {
        let err = cmd.exec();
        eprintln!("{WRAPPER_NAME}: cannot run {}: {err}", real.display());
        return EXIT_CANNOT_RUN;
    };
    // A signal meant for the compile (make passes SIGTERM on to its jobs; `kill` names the
    // wrapper) is passed on to the compiler, and the wrapper waits for it: had the wrapper died
    // alone, the compiler would go on to write an object no journal line records, and the next
    // build would find it up to date and never compile it under capture again.
    let forwarded = [libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGHUP];
    let handler = forward_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for s in forwarded {
        // SAFETY: a handler that only reads and writes atomics and calls kill(2).
        unsafe { libc::signal(s, handler) };
    }
    let status = match cmd.spawn() {
        Ok(mut child) => {
            COMPILER_PID.store(child.id() as i32, Ordering::SeqCst);
            let status = child.wait();
            COMPILER_PID.store(0, Ordering::SeqCst);
            match status {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("{WRAPPER_NAME}: lost the compiler {}: {e}", real.display());
                    return EXIT_CANNOT_RUN;
                }
            }
        }
        Err(e) => {
            eprintln!("{WRAPPER_NAME}: cannot run {}: {e}", real.display());
            return EXIT_CANNOT_RUN;
        }
    };
    if status.success() {
        if let Err(e) = record(Path::new(&journal), &real, &args[1..], &cwd) {
            note_failure(Path::new(&journal), &real, &cwd, &e);
        }
    }
    // The compiler finished before the signal reached it: it is recorded, and the wrapper still
    // ends the way the build asked it to.
    let received = RECEIVED.load(Ordering::SeqCst);
    let died_of = status.signal().or((received != 0).then_some(received));
    if let Some(sig) = died_of {
        // Die the way the compiler died, so make reports it the same way.
        // SAFETY: resetting a disposition and raising a signal in a single-threaded program.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        return 128 + sig;
    }
    status.code().unwrap_or(1)
}

/// The compiler's process id while it runs, and the last signal received: a handler gets no
/// context, so these are the wrapper's only process-wide state.
static COMPILER_PID: AtomicI32 = AtomicI32::new(0);
static RECEIVED: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward_signal(sig: libc::c_int) {
    RECEIVED.store(sig, Ordering::SeqCst);
    let pid = COMPILER_PID.load(Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill is async-signal-safe.
        unsafe { libc::kill(pid, sig) };
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Lookup {
    /// Run as `drip-cc` itself.
    NotACompiler,
    NotFound(String),
}

/// Find the real compiler this invocation stands for.
fn find_real(
    argv0: &Path,
    own_dir: Option<&Path>,
    seen: &[PathBuf],
    cwd: &Path,
    path_env: Option<&OsStr>,
) -> Result<PathBuf, Lookup> {
    let name = argv0
        .file_name()
        .ok_or_else(|| Lookup::NotFound(format!("cannot tell which compiler '{}' is", argv0.display())))?;
    if name == WRAPPER_NAME {
        return Err(Lookup::NotACompiler);
    }
    let usable = |p: &Path| -> bool {
        let Ok(meta) = std::fs::metadata(p) else { return false };
        if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 {
            return false;
        }
        let canonical = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        canonical.file_name() != Some(OsStr::new(WRAPPER_NAME)) && !seen.contains(&canonical)
    };
    // `<wrapper dir>/abs/<path>` stands for `/<path>`.
    if argv0.components().count() > 1 {
        let invoked = cwd.join(argv0);
        if let (Some(own), Some(parent)) = (own_dir, invoked.parent()) {
            let parent = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
            if let Ok(rest) = parent.strip_prefix(own.join(ABS_DIR)) {
                let real = Path::new("/").join(rest).join(name);
                return if usable(&real) {
                    Ok(real)
                } else {
                    Err(Lookup::NotFound(format!("the compiler {} is missing or not executable", real.display())))
                };
            }
        }
    }
    for dir in std::env::split_paths(path_env.unwrap_or(OsStr::new("/usr/local/bin:/usr/bin:/bin"))) {
        let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
        let candidate = dir.join(name);
        if usable(&candidate) {
            return Ok(cwd.join(candidate));
        }
    }
    Err(Lookup::NotFound(format!("no '{}' on PATH besides drip's wrappers", name.to_string_lossy())))
}

/// Append this compile to the journal: one JSON line, one `write` on an `O_APPEND` file.
fn record(journal: &Path, real: &Path, args: &[OsString], cwd: &Path) -> Result<(), String> {
    let directory = cwd.to_str().ok_or("the working directory is not UTF-8")?.to_string();
    let mut arguments = vec![real.to_str().ok_or("the compiler path is not UTF-8")?.to_string()];
    for a in args {
        arguments.push(a.to_str().ok_or_else(|| format!("argument {a:?} is not UTF-8"))?.to_string());
    }
    let arguments = expand_response_files(arguments, cwd);
    let mut line = serde_json::to_string(&Record { directory, arguments }).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(journal)
        .map_err(|e| format!("cannot open the journal {}: {e}", journal.display()))?;
    let written = file.write(line.as_bytes()).map_err(|e| format!("cannot write the journal: {e}"))?;
    if written != line.len() {
        return Err(format!("short write to the journal ({written} of {} bytes)", line.len()));
    }
    Ok(())
}

/// Tell `drip capture` that a compile went unrecorded. If even this fails there is nowhere left
/// to say it without touching the build's output; `drip capture` then finds its directory gone.
fn note_failure(journal: &Path, real: &Path, cwd: &Path, err: &str) {
    let Some(dir) = journal.parent() else { return };
    let line = format!("{} in {}: {err}\n", real.display(), cwd.display());
    if let Ok(mut f) = std::fs::OpenOptions::new().append(true).create(true).open(dir.join(ERRORS_FILE)) {
        let _ = f.write(line.as_bytes());
    }
}

/// Replace each `@file` argument by the arguments in `file`, as GCC and Clang do: whitespace
/// separates, quotes group, a backslash escapes the next character, and a file may name further
/// `@file`s. An unreadable `@file` stays as it is (the compiler then took it literally too).
/// The build may delete the file after the compile, so it is read now.
fn expand_response_files(args: Vec<String>, cwd: &Path) -> Vec<String> {
    // Bounds a file that includes itself.
    const MAX_EXPANSIONS: usize = 100;
    let mut out = Vec::with_capacity(args.len());
    let mut pending: Vec<String> = args.into_iter().rev().collect();
    let mut expansions = 0;
    while let Some(a) = pending.pop() {
        let Some(file) = a.strip_prefix('@').filter(|f| !f.is_empty() && !out.is_empty()) else {
            out.push(a);
            continue;
        };
        if expansions >= MAX_EXPANSIONS {
            out.push(a);
            continue;
        }
        match std::fs::read_to_string(cwd.join(file)) {
            Ok(text) => {
                expansions += 1;
                pending.extend(split_response_file(&text).into_iter().rev());
            }
            Err(_) => out.push(a),
        }
    }
    out
}

fn split_response_file(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut in_arg = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, quote) {
            ('\\', _) => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                in_arg = true;
            }
            (c, Some(q)) if c == q => quote = None,
            (c, Some(_)) => cur.push(c),
            ('\'' | '"', None) => {
                quote = Some(c);
                in_arg = true;
            }
            (c, None) if c.is_whitespace() => {
                if in_arg {
                    args.push(std::mem::take(&mut cur));
                    in_arg = false;
                }
            }
            (c, None) => {
                cur.push(c);
                in_arg = true;
            }
        }
    }
    if in_arg {
        args.push(cur);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("drip-cc-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch dir");
        std::fs::canonicalize(&d).expect("canonical scratch dir")
    }

    fn executable(p: &Path) {
        std::fs::write(p, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn response_files_are_expanded_recursively() {
        let d = scratch("rsp");
        std::fs::write(d.join("a.rsp"), "-DX=\"a b\" 'c d'\n  -I\\ inc @b.rsp\n").expect("write");
        std::fs::write(d.join("b.rsp"), "-c x.c").expect("write");
        std::fs::write(d.join("loop.rsp"), "@loop.rsp -O2").expect("write");
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            expand_response_files(args(&["gcc", "@a.rsp", "-o", "x.o"]), &d),
            args(&["gcc", "-DX=a b", "c d", "-I inc", "-c", "x.c", "-o", "x.o"])
        );
        assert_eq!(expand_response_files(args(&["gcc", "@missing.rsp"]), &d), args(&["gcc", "@missing.rsp"]));
        let looped = expand_response_files(args(&["gcc", "@loop.rsp"]), &d);
        assert_eq!(looped.iter().filter(|a| *a == "-O2").count(), 100, "a self-including file stops");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn the_real_compiler_is_the_next_non_wrapper_on_path() {
        let d = scratch("lookup");
        let wrap = d.join("wrap");
        let bin1 = d.join("bin1");
        let bin2 = d.join("bin2");
        for x in [&wrap, &bin1, &bin2, &wrap.join("abs").join(d.strip_prefix("/").expect("absolute")).join("opt")] {
            std::fs::create_dir_all(x).expect("mkdir");
        }
        executable(&wrap.join(WRAPPER_NAME));
        symlink(WRAPPER_NAME, wrap.join("gcc")).expect("symlink");
        // Another copy of the wrapper further down PATH is skipped as well.
        executable(&bin1.join(WRAPPER_NAME));
        symlink(bin1.join(WRAPPER_NAME), bin1.join("gcc")).expect("symlink");
        executable(&bin2.join("gcc"));
        std::fs::create_dir_all(d.join("opt")).expect("mkdir");
        executable(&d.join("opt").join("cc"));
        let path = std::env::join_paths([&wrap, &bin1, &bin2]).expect("PATH");
        let find = |argv0: &Path, seen: &[PathBuf]| find_real(argv0, Some(&wrap), seen, &d, Some(&path));

        assert_eq!(find(Path::new("gcc"), &[]), Ok(bin2.join("gcc")));
        assert_eq!(find(&wrap.join("gcc"), &[]), Ok(bin2.join("gcc")), "a wrapper named by path looks up PATH too");
        assert!(
            matches!(find(Path::new("gcc"), &[bin2.join("gcc")]), Err(Lookup::NotFound(_))),
            "a compiler an outer wrapper ran is skipped"
        );
        assert!(matches!(find(Path::new("clang"), &[]), Err(Lookup::NotFound(_))));
        assert_eq!(find(Path::new(WRAPPER_NAME), &[]), Err(Lookup::NotACompiler));
        let abs = wrap.join("abs").join(d.strip_prefix("/").expect("absolute")).join("opt").join("cc");
        assert_eq!(find(&abs, &[]), Ok(d.join("opt").join("cc")), "abs/<path> stands for /<path>");
        let _ = std::fs::remove_dir_all(&d);
    }
}
