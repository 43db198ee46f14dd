//! `drip capture`: run any build with compiler wrappers ahead of the real compilers, and write
//! what it compiled into `compile_commands.json`; with `--check`, then run `drip check` on it.
//!
//! Input: capture options, optional `--check` options, and the build command after `--`.
//! Output: the build's own run (same streams, same products), the merged database (written
//! atomically), a summary on stderr, and the exit status: the build's when it failed, else
//! `drip check`'s with `--check`, else 0 (2 when the database cannot be written).
//! Invariants:
//! - the build runs with its own environment plus PATH (wrapper directory first), the journal's
//!   path, and CC/CXX only where they name a compiler by path (`wrappers.rs`);
//! - everything the wrappers recorded is either in the database or counted in the summary
//!   (skipped runs by reason, vanished files, unreadable lines, recording failures);
//! - the per-run directory (journal) is private to this run and removed at the end; a run killed
//!   before its end leaves it, and the next capture merges that journal (the build went on
//!   without drip, and its later compiles are recorded nowhere else) before removing it; the wrapper
//!   directory `<database dir>/.drip/wrap` stays, for builds that remembered a wrapper's path.
//!
//! Stages: `wrappers` (set-up), the build (with `background` watching the journal), `merge`.
//! `argv` says what a compiler run did; `record` is the format shared with `wrapper/drip_cc.rs`.

mod argv;
mod background;
pub mod cc;
mod links;
mod merge;
mod record;
mod wrappers;

use crate::cli::{EXIT_INTERNAL, EXIT_USAGE};
use argv::Lang;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

struct Options {
    cdb: PathBuf,
    compilers: Vec<String>,
    jobs: usize,
    verbose: bool,
    /// `drip check`'s options and the build command: words as given, not necessarily UTF-8.
    check: Option<Vec<OsString>>,
    build: Vec<OsString>,
}

/// Capture's options as clap parsed them (`args::CaptureArgs`), checked for what clap cannot
/// check: that there is a build command after `--`, and no empty or path-like names.
fn options(c: crate::args::CaptureArgs) -> Result<Options, String> {
    if !c.separator {
        return Err("missing `--` before the build command".to_string());
    }
    if c.build.is_empty() {
        return Err("no build command after `--`".to_string());
    }
    let cdb = c.cdb.unwrap_or_else(|| PathBuf::from("compile_commands.json"));
    // An unset variable (`--cdb "$DB"`) must not mean the current directory.
    if cdb.as_os_str().is_empty() {
        return Err("--cdb needs a path, got an empty string".to_string());
    }
    if let Some(n) = c.compilers.iter().find(|n| n.is_empty() || n.contains('/')) {
        return Err(format!("--compiler expects a compiler's name, not a path: '{n}' (set CC to a path instead)"));
    }
    Ok(Options {
        cdb,
        compilers: c.compilers,
        jobs: c.jobs.unwrap_or(1),
        verbose: c.verbose,
        check: c.check,
        build: c.build,
    })
}

/// Is this process the compiler wrapper? It is when started as `drip-cc`: the wrapper directory's
/// copy of `drip` (through one of its compiler-named links, which `current_exe` resolves), or
/// argv[0] itself. Checked before anything else `drip` does, so the wrapper's run is the same
/// code as the `drip-cc` binary's (`cc.rs`).
pub fn runs_as_wrapper() -> bool {
    let named = |p: &Path| p.file_name().is_some_and(|n| n == record::WRAPPER_NAME);
    std::env::current_exe().is_ok_and(|e| named(&e))
        || std::env::args_os().next().is_some_and(|a0| named(Path::new(&a0)))
}

/// `drip capture …`, with its options as the command line gave them.
pub fn main(args: crate::args::CaptureArgs) -> i32 {
    let opts = match options(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("drip: error: {e}\n\nFor more information, try 'drip capture --help'.");
            return EXIT_USAGE;
        }
    };
    if let Some(check) = &opts.check {
        if let Err(code) = crate::cli::check_options(check) {
            return code;
        }
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let mut cdb = crate::compdb::absolute(&opts.cdb, &cwd);
    if cdb.is_dir() {
        cdb.push("compile_commands.json");
    }
    // A database linked from elsewhere (`ln -s build/compile_commands.json .`) is updated where
    // it lives; renaming over the link would replace it with a copy.
    if std::fs::symlink_metadata(&cdb).is_ok_and(|m| m.file_type().is_symlink()) {
        match std::fs::canonicalize(&cdb) {
            Ok(target) => cdb = target,
            Err(e) => {
                eprintln!("drip: error: {} is a symbolic link to a missing file: {e}", cdb.display());
                return EXIT_USAGE;
            }
        }
    }
    let Some(db_dir) = cdb.parent().map(Path::to_path_buf) else {
        eprintln!("drip: error: {} is not a file path", cdb.display());
        return EXIT_USAGE;
    };
    if !db_dir.is_dir() {
        eprintln!("drip: error: the directory of {} does not exist", cdb.display());
        return EXIT_USAGE;
    }
    // `drip-cc` beside drip (built and installed with it) when there is one: it starts in about
    // a millisecond, against drip's several (the dynamic loader maps libclang and LLVM) once per
    // compile. Without it, drip itself is the wrapper (`runs_as_wrapper`): one binary suffices.
    let wrapper_exe = match std::env::current_exe() {
        Ok(e) if e.with_file_name(record::WRAPPER_NAME).is_file() => e.with_file_name(record::WRAPPER_NAME),
        Ok(e) => {
            if opts.verbose {
                eprintln!(
                    "drip capture: no {} beside {}: drip itself is the compiler wrapper (slower to start per compile)",
                    record::WRAPPER_NAME,
                    e.display()
                );
            }
            e
        }
        Err(e) => {
            eprintln!("drip: error: cannot find drip's own executable: {e}");
            return EXIT_INTERNAL;
        }
    };
    let state = db_dir.join(".drip");
    let installed = match wrappers::install(&state, &wrapper_exe, &opts.compilers, &wrappers::BuildEnv::from_process())
    {
        Ok(i) => i,
        Err(e) => {
            eprintln!("drip: error: cannot set up the compiler wrappers in {}: {e}", state.join("wrap").display());
            return EXIT_USAGE;
        }
    };
    for n in &installed.notes {
        eprintln!("drip capture: warning: {n}");
    }
    if opts.verbose {
        eprintln!("drip capture: wrappers in {}: {}", installed.dir.display(), installed.names.join(" "));
    }
    let mut env_remove: Vec<&str> = vec![record::SEEN_ENV];
    let run_dir = state.join(format!("capture-{}", std::process::id()));
    let journal = run_dir.join("journal.jsonl");
    let orphans = orphaned_runs(&state);
    if let Err(e) = make_run_dir(&run_dir, &journal) {
        eprintln!("drip: error: cannot create {}: {e}", run_dir.display());
        return EXIT_USAGE;
    }

    // The cache `drip check` opens by default: `.drip/` beside the database.
    let cache = std::sync::Arc::new(crate::cache::Cache::open(&state));
    let watcher = if cache.enabled() {
        // libclang must parse on the workers' large stacks (LIBCLANG_NOTHREADS), set before
        // any thread starts; the build must not inherit it.
        let had_nothreads = std::env::var_os("LIBCLANG_NOTHREADS").is_some();
        crate::frontend::prepare_process();
        if !had_nothreads {
            env_remove.push("LIBCLANG_NOTHREADS");
        }
        let c = std::sync::Arc::clone(&cache);
        let prepare: background::PrepareFn = std::sync::Arc::new(move |cmd| background::prepare_tu(cmd, &c));
        Some(background::Watcher::start(journal.clone(), opts.jobs, prepare, Duration::from_millis(200)))
    } else {
        if let Some(w) = cache.warning() {
            eprintln!("drip capture: warning: {w}");
        }
        None
    };
    let started = Instant::now();
    let build_status = run_build(&opts.build, &installed.env, &env_remove, &journal);
    let build_time = started.elapsed();
    let watched = watcher.map(background::Watcher::finish);

    let journal_text = std::fs::read_to_string(&journal).unwrap_or_else(|e| {
        eprintln!(
            "drip capture: warning: cannot read the journal {}: {e}; nothing recorded can be kept",
            journal.display()
        );
        String::new()
    });
    let mut errors_text = String::new();
    // The journals of runs killed before their end come first: the compiles they record
    // happened earlier than this run's.
    let mut all_text = String::new();
    for o in &orphans {
        all_text.push_str(&o.journal);
        if !all_text.is_empty() && !all_text.ends_with('\n') {
            all_text.push('\n');
        }
        errors_text.push_str(&o.errors);
    }
    if opts.verbose && !orphans.is_empty() {
        let n = orphans.len();
        eprintln!(
            "drip capture: merged the journal of {n} earlier {} killed before {} end",
            if n == 1 { "capture" } else { "captures" },
            if n == 1 { "its" } else { "their" }
        );
    }
    all_text.push_str(&journal_text);
    errors_text.push_str(&std::fs::read_to_string(run_dir.join(record::ERRORS_FILE)).unwrap_or_default());
    let mut captured = merge::read_journal(&all_text);
    let written = write_database(&cdb, &state, &captured);
    if written.is_ok() {
        for o in &orphans {
            let _ = std::fs::remove_dir_all(&o.dir);
        }
    }
    match links::write(&cdb, std::mem::take(&mut captured.links)) {
        Ok(n) if opts.verbose && n > 0 => eprintln!("drip capture: {n} link steps in {}", crate::link::FILE_NAME),
        Ok(_) => {}
        Err(e) => eprintln!("drip capture: warning: {e}; duplicate definitions will be resolved without it"),
    }
    let _ = std::fs::remove_dir_all(&run_dir);

    let recording_failures: Vec<&str> = errors_text.lines().filter(|l| !l.is_empty()).collect();
    report(&opts, &cdb, &captured, written.as_ref().ok(), &recording_failures, watched.as_ref(), build_time);
    if let Err(e) = &written {
        eprintln!("drip: error: {e}");
    }
    match build_status {
        Ok(0) => {}
        Ok(code) => {
            if written.is_ok() {
                eprintln!(
                    "drip capture: the build failed (exit status {code}); {} has the compiles that succeeded",
                    cdb.display()
                );
            } else {
                eprintln!("drip capture: the build failed (exit status {code})");
            }
            return code;
        }
        Err((code, msg)) => {
            eprintln!("drip: error: {msg}");
            return code;
        }
    }
    if written.is_err() {
        return EXIT_USAGE;
    }
    match &opts.check {
        Some(check) => crate::cli::check_database(check, &cdb),
        None => 0,
    }
}

/// What a run killed before its end (SIGKILL, a crash) left: its build went on without it, and
/// the compiles its journal records after that are nowhere else (the next build finds their
/// objects up to date and does not compile them again).
struct Orphan {
    dir: PathBuf,
    journal: String,
    errors: String,
}

/// The run directories in `state` whose process is gone, oldest first. They are removed once
/// the database that holds their records is written.
fn orphaned_runs(state: &Path) -> Vec<Orphan> {
    let Ok(entries) = std::fs::read_dir(state) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("capture-")).and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let gone =
            unsafe { libc::kill(pid, 0) } != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        // Only directories this user made with the run's private mode (`make_run_dir`).
        let ours = std::fs::symlink_metadata(e.path()).is_ok_and(|m| m.is_dir());
        if gone && ours {
            let dir = e.path();
            let mtime = std::fs::metadata(dir.join("journal.jsonl")).and_then(|m| m.modified()).ok();
            let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap_or_default();
            let errors = std::fs::read_to_string(dir.join(record::ERRORS_FILE)).unwrap_or_default();
            found.push((mtime, Orphan { dir, journal, errors }));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.dir.cmp(&b.1.dir)));
    found.into_iter().map(|(_, o)| o).collect()
}

fn make_run_dir(run_dir: &Path, journal: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::remove_dir_all(run_dir);
    std::fs::create_dir_all(run_dir)?;
    std::fs::set_permissions(run_dir, std::fs::Permissions::from_mode(0o700))?;
    std::fs::write(journal, "")
}

/// The build's process id while it runs, for the signal handler: a handler gets no context, so
/// this is the one piece of process-wide state in drip.
static BUILD_PID: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // SIGTERM and SIGHUP sent to drip alone are passed on to the build; SIGINT and SIGQUIT come
    // from the terminal, which already sends them to the build's whole process group.
    let pid = BUILD_PID.load(Ordering::SeqCst);
    if pid > 0 && (sig == libc::SIGTERM || sig == libc::SIGHUP) {
        // SAFETY: kill is async-signal-safe.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

/// Run the build and wait for it. `Ok(status)` (128 + N for a build killed by signal N), or
/// the status and message for a build that could not be started, as a shell would give.
fn run_build(
    build: &[OsString],
    env: &[(String, std::ffi::OsString)],
    remove: &[&str],
    journal: &Path,
) -> Result<i32, (i32, String)> {
    let mut cmd = Command::new(&build[0]);
    cmd.args(&build[1..]).env(record::JOURNAL_ENV, journal);
    for k in remove {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    // drip outlives an interrupted build, to record what it compiled. Handlers (unlike an
    // ignored disposition) are reset in the build by exec, so the build sees signals normally.
    let signals = [libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGHUP];
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: installing a handler that only reads an atomic and calls kill.
    let previous: Vec<libc::sighandler_t> = signals.iter().map(|s| unsafe { libc::signal(*s, handler) }).collect();
    let result = match cmd.spawn() {
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 };
            Err((code, format!("cannot run the build command '{}': {e}", build[0].to_string_lossy())))
        }
        Ok(mut child) => {
            BUILD_PID.store(child.id() as i32, Ordering::SeqCst);
            let status = child.wait();
            BUILD_PID.store(0, Ordering::SeqCst);
            match status {
                Ok(s) => {
                    use std::os::unix::process::ExitStatusExt;
                    Ok(s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)))
                }
                Err(e) => Err((EXIT_INTERNAL, format!("lost the build process: {e}"))),
            }
        }
    };
    for (s, h) in signals.iter().zip(previous) {
        // SAFETY: restoring the dispositions saved above.
        unsafe {
            libc::signal(*s, h);
        }
    }
    result
}

/// Merge the captured units into the database under a lock, so two captures writing the same
/// database one after the other both keep their entries.
fn write_database(cdb: &Path, state: &Path, captured: &merge::Captured) -> Result<merge::MergeReport, String> {
    use std::os::unix::io::AsRawFd;
    let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(state.join("capture.lock"));
    if let Ok(l) = &lock {
        // SAFETY: flock on a file descriptor we own; released when it is closed.
        unsafe {
            libc::flock(l.as_raw_fd(), libc::LOCK_EX);
        }
    }
    let existing: Vec<serde_json::Value> = match std::fs::read_to_string(cdb) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", cdb.display())),
        Ok(text) if text.trim().is_empty() => Vec::new(),
        Ok(text) => match serde_json::from_str(&text) {
            Ok(serde_json::Value::Array(a)) => a,
            _ => {
                // Not ours to overwrite: keep it, and put what was captured beside it.
                let aside = cdb.with_extension("json.new");
                let (db, _) =
                    merge::merge(&[], cdb.parent().unwrap_or(Path::new("/")), &captured.entries, &still_there);
                let saved = serialise(&db).and_then(|t| merge::write_atomically(&aside, &t).map_err(|e| e.to_string()));
                return Err(format!(
                    "{} is not a JSON array of compile commands: left untouched; {}",
                    cdb.display(),
                    match saved {
                        Ok(()) => format!("the captured database is in {}", aside.display()),
                        Err(e) => format!("and {} could not be written either: {e}", aside.display()),
                    }
                ));
            }
        },
    };
    let (db, report) = merge::merge(&existing, cdb.parent().unwrap_or(Path::new("/")), &captured.entries, &still_there);
    let text = serialise(&db)?;
    merge::write_atomically(cdb, &text).map_err(|e| format!("cannot write {}: {e}", cdb.display()))?;
    Ok(report)
}

/// Is a compile's file still a regular file, its directory still a directory?
fn still_there(p: &Path) -> bool {
    p.is_file() || p.is_dir()
}

fn serialise(db: &[serde_json::Value]) -> Result<String, String> {
    serde_json::to_string_pretty(db).map(|t| t + "\n").map_err(|e| e.to_string())
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn report(
    opts: &Options,
    cdb: &Path,
    captured: &merge::Captured,
    merged: Option<&merge::MergeReport>,
    failures: &[&str],
    watched: Option<&background::WatchReport>,
    build_time: Duration,
) {
    let by_lang = |l: Lang| captured.entries.iter().filter(|e| e.lang == l).count();
    let c = by_lang(Lang::C);
    let cxx = by_lang(Lang::Cxx);
    let others = captured.entries.len() - c - cxx;
    let skipped: usize = captured.skipped.values().sum();
    let mut line = format!(
        "drip capture: build took {:.1} s, {} recorded: {} ({c} C",
        build_time.as_secs_f64(),
        plural(captured.runs, "compiler run", "compiler runs"),
        plural(captured.entries.len(), "translation unit", "translation units")
    );
    if cxx > 0 {
        line.push_str(&format!(", {cxx} C++"));
    }
    if others > 0 {
        line.push_str(&format!(", {others} Objective-C, which drip check skips"));
    }
    line.push(')');
    if skipped > 0 {
        let reasons: Vec<String> = captured.skipped.iter().map(|(r, n)| format!("{n} {r}")).collect();
        line.push_str(&format!("; not compiles: {}", reasons.join(", ")));
    }
    eprintln!("{line}");
    if let Some(m) = merged {
        let mut parts = vec![format!("{} new", m.added)];
        if m.replaced > 0 {
            parts.push(format!("{} updated", m.replaced));
        }
        if m.unchanged > 0 {
            parts.push(format!("{} unchanged", m.unchanged));
        }
        if m.kept + m.kept_unreadable > 0 {
            parts.push(format!("{} kept from before", m.kept + m.kept_unreadable));
        }
        eprintln!("drip capture: {}: {} ({})", cdb.display(), plural(m.total, "entry", "entries"), parts.join(", "));
        if m.vanished > 0 {
            eprintln!(
                "drip capture: {} left out: the file or its directory no longer exists (configure tests, CMake's scratch folders, temporaries)",
                plural(m.vanished, "compile", "compiles")
            );
        }
        if m.stale > 0 {
            eprintln!(
                "drip capture: {} dropped from the old database: the file or its directory no longer exists",
                plural(m.stale, "entry", "entries")
            );
        }
        if m.kept_unreadable > 0 {
            eprintln!(
                "drip capture: warning: {} of the old database not understood, kept as they were",
                plural(m.kept_unreadable, "entry", "entries")
            );
        }
    }
    if opts.verbose {
        for e in captured.entries.iter().filter(|e| !e.file.is_file()) {
            eprintln!("drip capture: left out (no longer exists): {}", e.file.display());
        }
    }
    if captured.unreadable > 0 {
        eprintln!(
            "drip capture: warning: {} in the journal could not be read (a torn write?)",
            plural(captured.unreadable, "line", "lines")
        );
    }
    if !failures.is_empty() {
        eprintln!(
            "drip capture: warning: {} could not be recorded; first: {}",
            plural(failures.len(), "compile", "compiles"),
            failures[0]
        );
        if opts.verbose {
            for f in &failures[1..] {
                eprintln!("drip capture:   {f}");
            }
        }
    }
    if captured.runs == 0 {
        eprintln!(
            "drip capture: warning: no compiler run was recorded; a build that calls its compiler by absolute path (/usr/bin/gcc) or resets PATH bypasses the wrappers (see README)"
        );
    }
    match watched {
        Some(w) => {
            eprintln!(
                "drip capture: background: {} seen during the build, {} prepared, {} already cached, {} failed, {} left for drip check{}",
                plural(w.tus_seen, "TU", "TUs"),
                w.prepared,
                w.already_cached,
                w.failed.len(),
                w.left,
                if w.gone > 0 { format!(", {} deleted by the build first", w.gone) } else { String::new() }
            );
            for f in w.failed.iter().take(if opts.verbose { usize::MAX } else { 3 }) {
                eprintln!("drip capture:   {f}");
            }
        }
        None => eprintln!("drip capture: note: no background parsing: the cache is disabled"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};

    fn args(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    /// `drip capture WORDS` through the command line's parser, then `options`.
    fn parse(words: &[OsString]) -> Result<Options, String> {
        let mut argv = args("drip capture");
        argv.extend_from_slice(words);
        match crate::args::parse(&argv).map_err(|e| e.to_string())?.0.command {
            Some(crate::args::Command::Capture(c)) => options(c),
            other => panic!("not capture: {other:?}"),
        }
    }

    #[test]
    fn options_before_check_are_capture_s_and_after_are_check_s() {
        let o = parse(&args(
            "--cdb out/db.json -j 2 --compiler tcc --check --format json -o report.json -- make -j8 CC=gcc",
        ))
        .expect("parse");
        assert_eq!(o.cdb, PathBuf::from("out/db.json"));
        assert_eq!(o.jobs, 2);
        assert_eq!(o.compilers, ["tcc"]);
        assert_eq!(o.check, Some(args("--format json -o report.json")));
        assert_eq!(o.build, args("make -j8 CC=gcc"));
        let o = parse(&args("-j3 -o x.json -- make -o foo")).expect("parse");
        assert_eq!(o.jobs, 3);
        assert_eq!(o.cdb, PathBuf::from("x.json"));
        assert_eq!(o.build, args("make -o foo"), "after --, everything is the build's");
        assert_eq!(o.check, None);
    }

    #[test]
    fn bad_capture_options() {
        assert!(parse(&args("--")).is_err_and(|e| e.contains("no build command")));
        assert!(parse(&args("--check --stats")).is_err_and(|e| e.contains("`--`")));
        assert!(parse(&args("-j 0 -- make")).is_err());
        assert!(parse(&args("--compiler /usr/bin/tcc -- make")).is_err_and(|e| e.contains("not a path")));
        assert!(parse(&args("--frob -- make")).is_err_and(|e| e.contains("unexpected argument '--frob'")));
        let e = parse(&args("make")).err().unwrap_or_default();
        assert!(e.contains("unexpected argument 'make'") && e.contains("-- <BUILD>..."), "the usage shows `--`: {e}");
        assert!(parse(&[OsString::from("--cdb="), "--".into(), "make".into()]).is_err_and(|e| e.contains("empty")));
        let latin1 = OsString::from_vec(b"cc\xe9".to_vec());
        assert!(parse(&["--compiler".into(), latin1, "--".into(), "make".into()]).is_err_and(|e| e.contains("UTF-8")));
        let o = parse(&["--".into(), "make".into(), OsString::from_vec(b"CFLAGS=\xe9".to_vec())]).expect("parse");
        assert_eq!(o.build[1].as_bytes(), b"CFLAGS=\xe9", "the build's words as they are");
    }
}
