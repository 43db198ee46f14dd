//! The C and C++ front end: compile commands in, a lowered `ir::Program` out (C++: `cpp.rs`).
//!
//! Input: `compdb::CompileCommand`s (full argv per translation unit).
//! Output: one `ir::Program` (every function *definition* outside system headers, each lowered
//! to a CFG, see `lower.rs`/`expr.rs`; with the address-taken functions and what is stored into
//! function-pointer fields, see `fields.rs`) and a `FrontendReport` (counts, sorted problem
//! lines, timings).
//! Invariants:
//! - This module tree is the only code that knows libclang (`clang.rs` wraps the C API).
//! - One failing translation unit never aborts the run: parse failures are counted and
//!   reported; TUs with errors are still lowered (libclang's KeepGoing); a panic while lowering a
//!   function drops that function and is reported.
//! - With `FrontendOptions::isolation` (as `drip check` runs), TUs are parsed and lowered in
//!   worker processes (`isolate.rs`): a TU whose parse crashes or runs past the `tu-time-ms`
//!   budget is a failed TU like one libclang cannot parse, and the next TU gets a new worker.
//!   Past `FrontendOptions::run_deadline` no TU is parsed and the workers still parsing are
//!   killed: those TUs are `cut` (`FrontendReport::cut`), never stored, never parse failures.
//! - The result does not depend on thread scheduling: TUs are parsed in parallel, their results
//!   collected in compile-command order, then merged sequentially.
//! - A function is in the program once per defining file: definitions of one USR in the same
//!   file merge (the first in compile-command order is kept; `Merger::origins` lists every TU
//!   that defined it), definitions in different files are all kept and `link::resolve` gives
//!   each its own USR and points every call at one of them (by link unit, else by directory).
//!   Internal-linkage functions get the defining file's path appended to their USR (see
//!   `TuCtx::function_usr`), so `static` functions of different files never merge, while a
//!   `static inline` function of a shared header is kept once.
//! - `Program::files` holds only files that some kept location names, deduplicated by path.
//! - With a cache (`build_program_cached`), a TU whose entry is valid is loaded instead of
//!   parsed (`tucache.rs`); what it contributes to the program is the same either way, since the
//!   cache holds the TU's result before merging.
//!
//! For a build's background worker (`drip capture`): `extract_tu(cmd, cache)` parses, lowers and
//! stores one TU unless a valid entry is already there, and says what it did (`Extracted`). It is
//! a plain function: no global state besides `prepare_process` (which sets `LIBCLANG_NOTHREADS`
//! once; a process with threads of its own should call it before starting them), its own libclang
//! index, its own large-stack thread, no panics, safe to call concurrently from threads and
//! processes. Open the cache with `cache::Cache::open(dir)` where `dir` is the directory
//! `drip check` will use (by default `.drip/` next to compile_commands.json), and pass the
//! `CompileCommand` that `compdb` makes of the entry (absolute paths, compiler wrappers
//! stripped): the key is the argv handed to libclang, so anything else is a miss.

#![allow(non_upper_case_globals)]

pub mod args;
mod clang;
pub mod cpp;
mod expr;
mod fields;
mod init;
mod isolate;
mod iterators;
mod lambdas;
mod lower;
mod owner_cycles;
mod stdlib;
#[cfg(test)]
mod tests;
mod tree;
mod tucache;
#[cfg(test)]
mod tucache_tests;
mod virtuals;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clang_sys::*;
use rayon::prelude::*;

use crate::cache::{Cache, ContentDigests, Digest};
use crate::compdb::CompileCommand;
use crate::ir::{CppClass, FileId, Function, Loc, Operand, OwnershipAttr, Program, Rvalue, Stmt};
use args::compile_argv;
pub use isolate::{worker_main, Isolation, WORKER_COMMAND};
use serde::{Deserialize, Serialize};

pub struct FrontendOptions {
    /// Worker threads for parsing and lowering (0: one per core).
    pub jobs: usize,
    /// Also report notes: compiler flags dropped or not understood, per-TU timings.
    pub verbose: bool,
    /// Counts TUs as they are done, for the progress line.
    pub progress: Option<std::sync::Arc<crate::progress::Progress>>,
    /// The programs of the compile database (`drip_links.json`), which decide where a call to a
    /// name defined more than once goes (`link::resolve`).
    pub links: Option<std::sync::Arc<crate::link::Links>>,
    /// Parse in worker processes (`isolate.rs`): a TU that crashes libclang or runs past its
    /// time budget fails alone. `None`: in this process, as the unit tests do.
    pub isolation: Option<Isolation>,
    /// The run's deadline (`run-time-ms`): past it no TU is parsed (one in the cache is still
    /// loaded), and a parse in a worker process is stopped at it.
    pub run_deadline: Option<Instant>,
}

#[derive(Debug, Default)]
pub struct FrontendReport {
    pub tus_total: usize,
    pub tus_parsed: usize,
    /// libclang could not produce any AST for these.
    pub tus_failed: usize,
    /// Parsed, but with error diagnostics (they are still lowered).
    pub tus_with_errors: usize,
    /// Error-severity diagnostics over all TUs.
    pub parse_errors: usize,
    /// One line per problem or note (`path:line:col: error: …`, `path: error: …`, `warning: …`,
    /// dropped flags), sorted and deduplicated (a header error seen from ten TUs is one line);
    /// the command line shows them with `-v`. They depend only on the inputs, so a whole-run
    /// cache record keeps them.
    pub messages: Vec<String>,
    /// The error lines of TUs that could not be parsed at all (also in `messages`): shown even
    /// without `-v`, since their functions are missing from the analysis.
    pub failures: Vec<String>,
    /// The main files of those TUs, as messages show them, in compile-command order.
    pub failed_files: Vec<String>,
    /// The error lines of the TUs the run's deadline left unparsed or stopped while parsed (not
    /// in `messages` nor `failures`: they depend on the machine's speed, not on the inputs), and
    /// their main files, both in compile-command order.
    pub cut: Vec<String>,
    pub cut_files: Vec<String>,
    /// For each TU parsed with errors, in compile-command order, its first error and how many it
    /// had: shown without `-v`, since what clang recovered from may not be the code as written.
    pub first_errors: Vec<String>,
    /// Functions in the program.
    pub functions: usize,
    /// Time spent in libclang parsing, summed over worker threads (so it can exceed wall time).
    pub parse_time: Duration,
    /// Time spent lowering ASTs to IR, summed over worker threads.
    pub lower_time: Duration,
    /// With `-v`: one note per TU, how long it took to parse and lower, or that it was loaded
    /// from the cache (kept apart from `messages`, which depend only on the inputs).
    pub tu_notes: Vec<String>,
    /// Per compile command: the content digest of its valid cache entry (loaded, or stored in
    /// this run), `None` if it has none. The whole-run shortcut keys on these.
    pub tu_digests: Vec<Option<Digest>>,
}

/// Errors shown per TU before the rest are only counted.
const MAX_ERRORS_SHOWN_PER_TU: usize = 10;

/// Parse and lower every command, in parallel, and merge the results (no cache).
#[cfg(test)]
pub fn build_program(cmds: &[CompileCommand], opts: &FrontendOptions) -> (Program, FrontendReport) {
    build_program_cached(cmds, opts, &Cache::disabled(), &ContentDigests::default())
}

/// Parse and lower every command, in parallel, and merge the results. A TU whose cache entry is
/// valid (same argv, every file it read unchanged) is loaded instead of parsed, and every TU
/// parsed here that can be cached is stored. `digests` memoises the files' contents for this run.
pub fn build_program_cached(
    cmds: &[CompileCommand],
    opts: &FrontendOptions,
    cache: &Cache,
    digests: &ContentDigests,
) -> (Program, FrontendReport) {
    prepare_process();
    if let Some(p) = &opts.progress {
        p.start_tus(cmds.len());
    }
    let work = |c: &CompileCommand, parser: &mut isolate::Parser| {
        let r = process_tu(c, cache, digests, parser);
        if let Some(p) = &opts.progress {
            p.tu_done();
        }
        r
    };
    // Parsing and lowering both recurse over the AST (an `else if` chain is as deep as it is
    // long): give workers a large stack (address space only; pages are touched on demand).
    let pool = rayon::ThreadPoolBuilder::new().num_threads(opts.jobs).stack_size(256 << 20).build();
    let mut merger = Merger::new(cmds.len(), opts.verbose, opts.links.clone());
    let mut digests_out = Vec::with_capacity(cmds.len());
    match pool {
        Ok(pool) => {
            // TUs are merged in compile-command order as soon as they are done, so that only the
            // functions that survive the merge stay in memory: every TU lowers its own copy of
            // each `static inline` function of the headers it includes (OpenSSL: 537,000
            // functions lowered, 21,000 kept), and holding every TU's result until a merge at
            // the end cost more than a GiB. TU `i` is handed to a worker only once TU
            // `i - window` is merged, so a slow TU holds back at most `window` results.
            let threads = pool.current_num_threads();
            let window = 2 * threads;
            pool.in_place_scope(|s| {
                let (job_tx, job_rx) = crossbeam_channel::unbounded::<usize>();
                let (res_tx, res_rx) = crossbeam_channel::unbounded();
                for _ in 0..threads {
                    let (job_rx, res_tx, work) = (job_rx.clone(), res_tx.clone(), &work);
                    let isolation = opts.isolation.as_ref();
                    s.spawn(move |_| {
                        // One worker process per thread at most, reused for its TUs.
                        let mut parser = isolate::Parser::new(isolation, opts.run_deadline);
                        for i in job_rx {
                            // A panic is re-raised on this thread, in order, so it cannot leave
                            // the merge waiting for a result that never comes.
                            let r =
                                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&cmds[i], &mut parser)));
                            if res_tx.send((i, r)).is_err() {
                                break;
                            }
                        }
                    });
                }
                drop(res_tx);
                let mut handed = 0;
                while handed < cmds.len().min(window) {
                    let _ = job_tx.send(handed);
                    handed += 1;
                }
                let mut waiting = std::collections::BTreeMap::new();
                while digests_out.len() < cmds.len() {
                    let (i, r) = res_rx.recv().expect("workers keep their sender while TUs are handed out");
                    waiting.insert(i, r);
                    while let Some(r) = waiting.remove(&digests_out.len()) {
                        let (r, d) = r.unwrap_or_else(|p| std::panic::resume_unwind(p));
                        merger.add(r);
                        digests_out.push(d);
                        if handed < cmds.len() {
                            let _ = job_tx.send(handed);
                            handed += 1;
                        }
                    }
                }
                // Dropping `job_tx` here ends the workers' loops.
            });
        }
        // Cannot spawn threads: do the same work on this one.
        Err(_) => {
            let mut parser = isolate::Parser::new(opts.isolation.as_ref(), opts.run_deadline);
            for c in cmds {
                let (r, d) = work(c, &mut parser);
                merger.add(r);
                digests_out.push(d);
            }
        }
    }
    let (program, mut rep) = merger.finish();
    rep.tu_digests = digests_out;
    (program, rep)
}

/// The content digest of every command's cache entry when it is valid (same argv, every file it
/// read unchanged), without loading any IR: the whole-run shortcut needs all of them to match
/// the previous run's. `None` for a TU that must be parsed.
pub fn fingerprint(cmds: &[CompileCommand], cache: &Cache, digests: &ContentDigests) -> Vec<Option<Digest>> {
    if !cache.enabled() {
        return vec![None; cmds.len()];
    }
    let version = clang::clang_version();
    cmds.par_iter()
        .map(|c| {
            let (argv, _) = compile_argv(c);
            let key = tucache::tu_key(&argv, &c.file, &version)?;
            tucache::probe(cache, digests, key).map(|(d, _)| d)
        })
        .collect()
}

/// The version string of the libclang this process loaded (`drip --version`).
pub fn libclang_version() -> String {
    clang::clang_version()
}

/// The cache entry names of these commands' TUs: what `Cache::sweep` keeps.
pub fn cache_names(cmds: &[CompileCommand]) -> std::collections::HashSet<Digest> {
    let version = clang::clang_version();
    cmds.iter().filter_map(|c| tucache::tu_key(&compile_argv(c).0, &c.file, &version)).collect()
}

/// What `extract_tu` did with one compile command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extracted {
    /// A valid entry was already there: nothing parsed.
    AlreadyCached,
    /// Parsed, lowered and stored.
    Stored,
    /// Parsed, but not stored: the message says why (a preprocessor error such as a missing
    /// header, which makes the result depend on a file that does not exist; or the cache is
    /// unusable).
    NotStored(String),
    /// libclang could not parse it, or lowering failed: the message says why. Nothing stored;
    /// `drip check` will parse it and report the problem.
    Failed(String),
}

/// Parse and lower one translation unit and store it in `cache`, unless a valid entry is already
/// there: what a build's background worker (`drip capture`) calls for each compile command it
/// sees, so that `drip check` right after the build only loads. A plain function: it creates its
/// own libclang index, runs on a thread of its own with the large stack parsing needs, never
/// panics, and is safe to call from several threads and processes at once (entries are written
/// atomically). `cmd` must be what `compdb` would make of the same compile_commands.json entry
/// (absolute `directory` and `file`, wrappers stripped), since the key is the argv handed to
/// libclang.
pub fn extract_tu(cmd: &CompileCommand, cache: &Cache) -> Extracted {
    if !cache.enabled() {
        return Extracted::NotStored(cache.warning().unwrap_or_else(|| "the cache is disabled".to_string()));
    }
    prepare_process();
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new().stack_size(256 << 20).spawn_scoped(s, || {
            let digests = ContentDigests::default();
            let (argv, _) = compile_argv(cmd);
            let version = clang::clang_version();
            if let Some(key) = tucache::tu_key(&argv, &cmd.file, &version) {
                if tucache::probe(cache, &digests, key).is_some() {
                    return Extracted::AlreadyCached;
                }
            }
            let (r, digest) = process_tu(cmd, cache, &digests, &mut isolate::Parser::new(None, None));
            let first_error =
                || r.messages.iter().find(|m| m.text.starts_with("error: ")).map(|m| m.render()).unwrap_or_default();
            if r.failed {
                Extracted::Failed(first_error())
            } else if digest.is_some() {
                Extracted::Stored
            } else if !r.cacheable {
                Extracted::NotStored(format!(
                    "a preprocessor error may make the result depend on missing files: {}",
                    first_error()
                ))
            } else {
                Extracted::NotStored("the entry could not be written (see Cache::notes)".to_string())
            }
        });
        match worker.map(|w| w.join()) {
            Ok(Ok(e)) => e,
            Ok(Err(_)) => Extracted::Failed(format!("{}: internal error while extracting", cmd.file.display())),
            Err(e) => Extracted::Failed(format!("cannot start a worker thread: {e}")),
        }
    })
}

/// libclang parses on a thread of its own with an 8 MiB stack, which deeply nested code (a
/// 10,000-branch `else if` chain) overflows, killing the process. LIBCLANG_NOTHREADS makes it
/// parse on the calling worker, whose stack we size. Set once, before any worker parses; a
/// long-lived process (a capture daemon) should call `extract_tu` (or this) before it starts
/// threads of its own.
pub fn prepare_process() {
    static NO_CLANG_THREADS: std::sync::Once = std::sync::Once::new();
    NO_CLANG_THREADS.call_once(|| {
        if std::env::var_os("LIBCLANG_NOTHREADS").is_none() {
            std::env::set_var("LIBCLANG_NOTHREADS", "1");
        }
    });
}

/// One problem or note about a TU. The path is kept apart from the text so that a TU loaded from
/// the cache shows paths relative to *this* run's working directory.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TuMessage {
    file: PathBuf,
    /// Line and column, for diagnostics with a location.
    pos: Option<(u32, u32)>,
    /// `error: …`, `warning: …` or `note: …`.
    text: String,
}

impl TuMessage {
    fn new(file: &std::path::Path, text: String) -> TuMessage {
        TuMessage { file: file.to_path_buf(), pos: None, text }
    }
    fn render(&self) -> String {
        match self.pos {
            Some((line, col)) => format!("{}:{line}:{col}: {}", shown_path(&self.file), self.text),
            None => format!("{}: {}", shown_path(&self.file), self.text),
        }
    }
}

/// What one translation unit contributes, with TU-local `FileId`s. This is what the cache stores
/// per TU: merging (where program-wide ids are assigned) always runs on it, cached or not.
#[derive(Serialize, Deserialize)]
struct TuResult {
    main_file: PathBuf,
    files: Vec<PathBuf>,
    functions: Vec<Function>,
    address_taken: Vec<String>,
    cast_targets: Vec<(String, String)>,
    library_taken: Vec<(String, String, String)>,
    field_targets: Vec<(String, String)>,
    open_fields: Vec<String>,
    field_groups: Vec<Vec<(String, String)>>,
    param_stores: Vec<(String, String, u32)>,
    defined_vars: Vec<String>,
    scalar_globals: Vec<(String, Option<i64>, bool)>,
    global_addrs: Vec<String>,
    attributes: Vec<OwnershipAttr>,
    classes: Vec<CppClass>,
    failed: bool,
    /// No preprocessor or fatal error: the result depends only on the files in its manifest (with
    /// a missing header, the result would change once the header exists).
    cacheable: bool,
    errors: usize,
    messages: Vec<TuMessage>,
    parse_time: Duration,
    lower_time: Duration,
    /// Loaded from the cache in this run (then the times are those of the run that parsed it).
    #[serde(skip)]
    from_cache: bool,
    /// Not parsed, or stopped while parsed, because the run ran out of `run-time-ms` (then also
    /// `failed`). Such a result is never stored, so the cache needs no room for it.
    #[serde(skip)]
    cut: bool,
}

impl TuResult {
    /// An empty result for `cmd`, with the note on the arguments `dropped` from its command.
    fn new(cmd: &CompileCommand, dropped: &[String]) -> TuResult {
        let mut r = TuResult {
            main_file: cmd.file.clone(),
            files: Vec::new(),
            functions: Vec::new(),
            address_taken: Vec::new(),
            cast_targets: Vec::new(),
            library_taken: Vec::new(),
            field_targets: Vec::new(),
            open_fields: Vec::new(),
            field_groups: Vec::new(),
            param_stores: Vec::new(),
            defined_vars: Vec::new(),
            scalar_globals: Vec::new(),
            global_addrs: Vec::new(),
            attributes: Vec::new(),
            classes: Vec::new(),
            failed: false,
            cacheable: true,
            errors: 0,
            messages: Vec::new(),
            parse_time: Duration::ZERO,
            lower_time: Duration::ZERO,
            from_cache: false,
            cut: false,
        };
        if !dropped.is_empty() {
            r.messages.push(TuMessage::new(
                &cmd.file,
                format!("note: left out of the arguments handed to libclang (not needed to parse, or able to write files, load code or read a configuration): {}", dropped.join(" ")),
            ));
        }
        r
    }
}

/// Load `cmd`'s TU from the cache, or parse and lower it (and store it when it can be cached).
/// Also returns the content digest of its cache entry, when there is a valid one.
fn process_tu(
    cmd: &CompileCommand,
    cache: &Cache,
    digests: &ContentDigests,
    parser: &mut isolate::Parser,
) -> (TuResult, Option<Digest>) {
    let (argv, dropped) = compile_argv(cmd);
    let key = if cache.enabled() { tucache::tu_key(&argv, &cmd.file, &clang::clang_version()) } else { None };
    if let Some(key) = key {
        if let Some((mut r, digest)) = tucache::load(cache, digests, key) {
            r.from_cache = true;
            cache.tus_loaded.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return (r, Some(digest));
        }
    }
    let (r, inputs, encoded) = parser.parse(cmd, &argv, &dropped, key.is_some());
    if r.cut {
        // Counted with the run's budget, not as a parse whose result cannot be cached.
        return (r, None);
    }
    cache.tus_parsed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stored = match (key, inputs) {
        (Some(key), Some(inputs)) if r.cacheable && !r.failed => match encoded {
            Some(body) => tucache::store_encoded(cache, key, inputs, body.bytes()),
            None => tucache::store(cache, key, inputs, &r),
        },
        (Some(_), _) => {
            cache.tus_not_cacheable.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            None
        }
        (None, _) => None,
    };
    (r, stored)
}

/// Parse and lower one TU with libclang. With `manifest`, also returns the manifest of the files
/// it read, with the digests of their contents as parsed (`None` if one cannot be had: then it
/// is not cached). Without a cache nothing would store it, and finding and hashing the contents
/// of every file read is not free (on SQLite, 2% of the lowering).
fn parse_tu(
    cmd: &CompileCommand,
    argv: &[String],
    dropped: &[String],
    manifest: bool,
) -> (TuResult, Option<Vec<(PathBuf, Digest)>>) {
    let mut r = TuResult::new(cmd, dropped);
    let path = cmd.file.as_path();
    // libclang would open a FIFO and wait for a writer forever.
    // A file libclang cannot read is named with the reason (permissions, a symbolic-link loop),
    // not as a parse failure.
    if let Some(e) = crate::files::not_regular(&cmd.file).or_else(|| std::fs::File::open(&cmd.file).err()) {
        r.failed = true;
        let msg = match e.kind() {
            std::io::ErrorKind::NotFound => "error: no such file".to_string(),
            _ => format!("error: cannot read this file: {e}"),
        };
        r.messages.push(TuMessage::new(path, msg));
        return (r, None);
    }
    let Some(index) = clang::Index::new() else {
        r.failed = true;
        r.messages.push(TuMessage::new(path, "error: cannot create a libclang index".to_string()));
        return (r, None);
    };
    let t0 = Instant::now();
    let flags = CXTranslationUnit_KeepGoing | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles;
    let tu = clang::Tu::parse(&index, argv, flags);
    r.parse_time = t0.elapsed();
    let tu = match tu {
        Ok(tu) => tu,
        Err(code) => {
            r.failed = true;
            let msg = if cmd.file.exists() {
                format!("libclang could not parse this file ({})", error_name(code))
            } else {
                "no such file".to_string()
            };
            r.messages.push(TuMessage::new(path, format!("error: {msg}")));
            return (r, None);
        }
    };

    let mut shown = 0usize;
    // GCC's `malloc(dealloc)`, which clang drops (`lower::TuCtx::note_malloc_with_args`): where
    // each is spelled and where it was expanded (inside the declaration it is written on).
    let mut malloc_with_args: Vec<((CXFile, u32), (CXFile, u32))> = Vec::new();
    for d in tu.diagnostics() {
        let dropped = ["takes no arguments", "does not yet support this attribute signature"];
        if d.text.starts_with("'malloc' attribute") && dropped.iter().any(|t| d.text.contains(t)) {
            // Clang ignores the attribute (an error up to clang 20, a warning since), and drip
            // reads it itself: the AST is whole, so this is no parse error.
            if let (Some(spelled), Some(at)) = (d.spelled, d.expanded) {
                malloc_with_args.push((spelled, at));
                continue;
            }
        }
        if d.severity < CXDiagnostic_Error {
            continue;
        }
        // A missing header (fatal in clang, but an error under KeepGoing) makes the result depend
        // on a file the manifest cannot list: any preprocessor error keeps the TU out of the
        // cache, so it is parsed again, and sees the file once it exists.
        if d.severity >= CXDiagnostic_Fatal
            || d.category == "Lexical or Preprocessor Issue"
            || d.text.contains("file not found")
        {
            r.cacheable = false;
        }
        // Driver complaints about flags have no location and do not affect the AST.
        let flag_problem = d.file.is_none()
            && ["unknown argument", "unsupported option", "unknown warning option", "argument unused"]
                .iter()
                .any(|p| d.text.starts_with(p));
        if flag_problem {
            r.messages.push(TuMessage::new(path, format!("warning: {}", d.text)));
            continue;
        }
        r.errors += 1;
        if shown < MAX_ERRORS_SHOWN_PER_TU {
            shown += 1;
            let m = match &d.file {
                Some(f) => TuMessage {
                    pos: Some((d.line, d.col)),
                    ..TuMessage::new(
                        &clang::absolute_path(&cmd.directory, &f.to_string_lossy()),
                        format!("error: {}", d.text),
                    )
                },
                None => TuMessage::new(path, format!("error: {}", d.text)),
            };
            r.messages.push(m);
        }
    }
    if r.errors > shown {
        r.messages.push(TuMessage::new(
            path,
            format!("error: … and {} more errors in this translation unit", r.errors - shown),
        ));
    }

    let t1 = Instant::now();
    let mut cx = lower::TuCtx::new(&tu, &cmd.directory);
    cx.cpp = crate::compdb::language(&cmd.file, &cmd.arguments) == Some(crate::compdb::Lang::Cpp);
    let mut classes = Vec::new();
    let decls = if cx.cpp { cpp_declarations(&tu, &mut r, &mut classes) } else { tu.cursor().children() };
    for c in decls {
        if c.kind() == CXCursor_VarDecl && !c.is_in_system_header() {
            cx.note_scalar_global(c);
            // A global is walked for the functions its initializer names and the stores into
            // function-pointer fields it makes. An initializer of a type without pointers (a TU's
            // large integer and character tables) names a function or a field's address only
            // through a cast to an integer (a GNU extension in a constant) or in a `sizeof`:
            // such a function is not taken as address-taken, nor the field as open.
            if !cx.may_hold_pointer(c.ty()) {
                continue;
            }
            cx.set_root(c);
            cx.collect_function_refs(c);
            cx.collect_field_stores(c);
            cx.collect_global_addrs(true);
            lower_pending_lambdas(&mut cx, &mut r, path);
            continue;
        }
        let function = matches!(
            c.kind(),
            CXCursor_FunctionDecl
                | CXCursor_CXXMethod
                | CXCursor_Constructor
                | CXCursor_Destructor
                | CXCursor_ConversionFunction
                | CXCursor_FunctionTemplate
        );
        if !function || c.is_in_system_header() {
            continue;
        }
        // System headers are left to the library model: glibc marks `fopen` `malloc(fclose)`, and
        // a FILE is no memory block of the program's.
        if c.has_attrs() {
            cx.note_ownership_attrs(c);
        }
        if !malloc_with_args.is_empty() {
            if let Some((file, start, end)) = c.file_span() {
                for &(spelled, (f, at)) in &malloc_with_args {
                    if clang::same_file(f, file) && (start..=end).contains(&at) {
                        cx.note_malloc_with_args(c, spelled, (f, at));
                    }
                }
            }
        }
        if !c.is_definition() {
            continue;
        }
        cx.set_root(c);
        // Not part of the lowering: it must see the initializers of `static` locals, which are
        // not lowered, and it does not depend on the lowering of the body succeeding.
        cx.collect_field_stores(c);
        cx.collect_global_addrs(false);
        // A bug in the lowering must cost one function, not the run.
        let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lower::lower_function(&mut cx, c)));
        match lowered {
            Ok(f) => r.functions.push(f),
            // Cached like any other result: a build of drip that fixes the bug has another build
            // id, which invalidates the entry.
            Err(_) => r.messages.push(TuMessage::new(
                path,
                format!("error: internal error while lowering function `{}`; it is skipped", c.spelling()),
            )),
        }
        lower_pending_lambdas(&mut cx, &mut r, path);
    }
    // The default member initializers of `std::function` members store into them
    // (`fields.rs`), each walked as a root of its own.
    for &c in &classes {
        for f in cx.default_member_stores(c) {
            cx.set_root(f);
            cx.default_member_store(f);
            lower_pending_lambdas(&mut cx, &mut r, path);
        }
    }
    // After the functions, so that the destructors they call are written in the order they call
    // them; the classes may call for more (a class's own, for `delete` through its bases).
    for c in classes {
        cx.record_class(c);
    }
    // The implicit destructors the functions call; writing one may call for more (its members').
    let mut dtors = 0;
    while dtors < cx.pending_dtors.len() {
        let (class, callee) = cx.pending_dtors[dtors].clone();
        dtors += 1;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lower::lower_implicit_dtor(&mut cx, class, &callee)
        })) {
            Ok(f) => r.functions.push(f),
            Err(_) => r.messages.push(TuMessage::new(
                path,
                format!("error: internal error while writing the destructor `{}`; it is skipped", callee.name),
            )),
        }
    }
    r.files = std::mem::take(&mut cx.files);
    r.address_taken = std::mem::take(&mut cx.address_taken);
    r.cast_targets = std::mem::take(&mut cx.cast_targets);
    r.library_taken = std::mem::take(&mut cx.library_taken);
    r.field_targets = std::mem::take(&mut cx.field_targets);
    r.open_fields = std::mem::take(&mut cx.open_fields);
    r.field_groups = std::mem::take(&mut cx.field_groups);
    r.param_stores = std::mem::take(&mut cx.param_stores);
    r.defined_vars = std::mem::take(&mut cx.defined_vars);
    r.scalar_globals = std::mem::take(&mut cx.scalar_globals);
    r.global_addrs = std::mem::take(&mut cx.global_addrs);
    r.attributes = std::mem::take(&mut cx.attributes);
    r.classes = std::mem::take(&mut cx.classes);
    r.lower_time = t1.elapsed();
    let inputs = if manifest { tucache::manifest(&tu, cmd) } else { None };
    (r, inputs)
}

/// The lambdas the last root stored into `std::function` fields and variables
/// (`TuCtx::pending_lambdas`), lowered as functions of their own while the tree is still rooted
/// there.
fn lower_pending_lambdas(cx: &mut lower::TuCtx, r: &mut TuResult, path: &std::path::Path) {
    for (l, usr) in std::mem::take(&mut cx.pending_lambdas) {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lower::lower_lambda(cx, l, usr))) {
            Ok(f) => r.functions.push(f),
            Err(_) => r.messages.push(TuMessage::new(
                path,
                "error: internal error while lowering a lambda stored into a `std::function`; it is skipped"
                    .to_string(),
            )),
        }
    }
}

/// The declarations of a C++ TU that `parse_tu` looks at, in source order: those at the top
/// level and inside namespaces, `extern "C"` blocks and class definitions (methods defined in
/// the class, and friend functions defined there), outside system headers, and function templates (lowered once with their
/// dependent types: libclang shows the instantiations a program uses not at all), and the
/// methods, constructors and destructors of class templates (in the class or outside it), lowered
/// once from the pattern in the same way (`TuCtx::template_member`). Member templates of class
/// templates are not: a note on the TU counts them (`cpp::NOT_ANALYSED`).
/// `classes` receives the class definitions and class templates among them, for the class
/// hierarchy (`TuCtx::record_class`); not the classes nested in a class template.
fn cpp_declarations(tu: &clang::Tu, r: &mut TuResult, classes: &mut Vec<clang::Cursor>) -> Vec<clang::Cursor> {
    let mut out = Vec::new();
    let mut templates = 0usize;
    let mut stack: Vec<clang::Cursor> = tu.cursor().children();
    stack.reverse();
    while let Some(c) = stack.pop() {
        match c.kind() {
            CXCursor_Namespace | CXCursor_LinkageSpec | CXCursor_ClassDecl | CXCursor_StructDecl
            | CXCursor_UnionDecl => {
                if c.is_in_system_header() {
                    continue;
                }
                if matches!(c.kind(), CXCursor_ClassDecl | CXCursor_StructDecl) && c.is_definition() && !in_template(c)
                {
                    classes.push(c);
                }
                let mut kids = c.children();
                kids.reverse();
                stack.extend(kids);
            }
            // A friend function defined in its class (`friend bool operator== (..) { .. }`) is
            // a function of the enclosing namespace, called like any other.
            CXCursor_FriendDecl => {
                if !c.is_in_system_header() && !in_template(c) {
                    let mut kids = c.children();
                    kids.reverse();
                    stack.extend(kids.into_iter().filter(|k| k.kind() == CXCursor_FunctionDecl));
                }
            }
            // A function template's body is lowered once, with its dependent types, and stands
            // for every instantiation (`TuCtx::program_template`).
            CXCursor_FunctionTemplate if !c.is_in_system_header() && !in_template(c) => out.push(c),
            // A class template's methods are lowered once from the pattern, as function
            // templates are, and stand for every implicit instantiation's
            // (`TuCtx::template_member`).
            CXCursor_ClassTemplate | CXCursor_ClassTemplatePartialSpecialization => {
                if !c.is_in_system_header() && c.is_definition() {
                    if !in_template(c) {
                        classes.push(c);
                    }
                    let mut kids = c.children();
                    kids.reverse();
                    stack.extend(kids);
                }
            }
            // A member template of a class template (`template<class T> template<class U> void
            // W<T>::f(U)`): an instantiation's callee is a template of the instantiated class,
            // no pattern drip lowers.
            CXCursor_FunctionTemplate if !c.is_in_system_header() => {
                if c.is_definition() {
                    templates += 1;
                }
            }
            CXCursor_FunctionTemplate => {}
            // A member of a class template defined outside its class (`template<typename T> T
            // W<T>::walk()`) is a method to libclang, lowered as the members defined in the
            // class are.
            _ if in_template(c) && !is_class_template_member(c) => {}
            _ => out.push(c),
        }
    }
    if templates > 0 {
        r.messages.push(TuMessage::new(
            &r.main_file.clone(),
            format!(
                "note: {}{templates} member template{} of class templates (libclang shows no \
                 instantiation's body; they are not lowered)",
                cpp::NOT_ANALYSED,
                if templates == 1 { "" } else { "s" }
            ),
        ));
    }
    out
}

/// Whether `c` is a method, constructor, destructor or conversion of a class template of the
/// program (or of a class nested in one), and not of a function template: lowered once from the
/// pattern (`TuCtx::template_member`).
pub(super) fn is_class_template_member(c: clang::Cursor) -> bool {
    if !matches!(
        c.kind(),
        CXCursor_CXXMethod | CXCursor_Constructor | CXCursor_Destructor | CXCursor_ConversionFunction
    ) || c.is_in_system_header()
    {
        return false;
    }
    let mut class_template = false;
    let mut p = c.semantic_parent();
    while let Some(d) = p {
        match d.kind() {
            CXCursor_ClassTemplate | CXCursor_ClassTemplatePartialSpecialization => class_template = true,
            CXCursor_FunctionTemplate => return false,
            CXCursor_TranslationUnit => break,
            _ => {}
        }
        p = d.semantic_parent();
    }
    class_template
}

/// Whether declaration `c` lies inside a template (a class template, a partial specialization,
/// a function template), whose uninstantiated body drip does not lower.
fn in_template(c: clang::Cursor) -> bool {
    let mut p = c.semantic_parent();
    while let Some(d) = p {
        match d.kind() {
            CXCursor_ClassTemplate | CXCursor_ClassTemplatePartialSpecialization | CXCursor_FunctionTemplate => {
                return true
            }
            CXCursor_TranslationUnit => return false,
            _ => p = d.semantic_parent(),
        }
    }
    false
}

/// What the C++ lowering left out (`cpp::NOT_ANALYSED`), counted by kind: the lowering notes
/// of the functions (the text up to `;`) and the member templates of class templates of the TU notes
/// (`messages`, rendered).
pub fn cpp_not_analysed(program: &Program, messages: &[String]) -> Vec<(String, usize)> {
    let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for f in &program.functions {
        for n in &f.lowering_notes {
            if let Some((_, rest)) = n.split_once(cpp::NOT_ANALYSED) {
                let what = rest.split(';').next().unwrap_or(rest);
                // `lambda at …` and the expression kinds are counted by kind.
                *counts.entry(what.to_string()).or_default() += 1;
            }
        }
    }
    for m in messages {
        let Some((_, rest)) = m.split_once(cpp::NOT_ANALYSED) else { continue };
        if let Some((n, _)) = rest.split_once(" member template") {
            *counts.entry("member template of a class template".to_string()).or_default() +=
                n.parse::<usize>().unwrap_or(0);
        }
    }
    counts.into_iter().collect()
}

/// The C++ lowering's notes on what it did not analyse, one line each as `-v` shows them
/// (`FILE:LINE: note: in FUNCTION: C++ not analysed: …`).
pub fn cpp_not_analysed_notes(program: &Program) -> Vec<String> {
    let mut out = Vec::new();
    for f in &program.functions {
        for n in &f.lowering_notes {
            let Some((at, rest)) = n.split_once(cpp::NOT_ANALYSED) else { continue };
            let line = at.trim_start_matches("line ").trim_end_matches(": ");
            let file = program.file(f.loc.file).map(shown_path).unwrap_or_default();
            out.push(format!("{file}:{line}: note: in `{}`: {}{rest}", f.name, cpp::NOT_ANALYSED));
        }
    }
    out
}

fn error_name(code: CXErrorCode) -> &'static str {
    match code {
        CXError_Crashed => "libclang crashed",
        CXError_InvalidArguments => "invalid arguments",
        CXError_ASTReadError => "AST read error",
        _ => "failure",
    }
}

/// A path as messages show it: relative to the current directory when below it (as the rest of
/// drip's output does), absolute otherwise.
pub(crate) fn shown_path(p: &std::path::Path) -> String {
    let rel = std::env::current_dir().ok().and_then(|cwd| p.strip_prefix(cwd).ok().map(|r| r.to_path_buf()));
    rel.unwrap_or_else(|| p.to_path_buf()).display().to_string()
}

/// Merges per-TU results, fed in compile-command order: renumbers files, drops repeated
/// definitions. With `verbose`, also a note per TU on its parse time (`tu_notes`).
struct Merger {
    prog: Program,
    rep: FrontendReport,
    verbose: bool,
    file_ids: HashMap<PathBuf, FileId>,
    /// USR → the kept definitions (their file and function index): a definition of the same
    /// USR in the same file is one function (a header's `static inline`, a file compiled twice),
    /// one in another file is a duplicate that `link::resolve` sorts out.
    kept: HashMap<String, Vec<(Option<PathBuf>, usize)>>,
    /// Per kept function: the compile commands (indices) that defined it, sorted.
    origins: Vec<Vec<u32>>,
    /// The index of the next TU `add` gets.
    next_tu: u32,
    links: Option<std::sync::Arc<crate::link::Links>>,
    /// Rendered messages, and the program-wide name lists, deduplicated as they come: each TU
    /// repeats those of the headers it includes.
    messages: HashSet<String>,
    address_taken: HashSet<String>,
    cast_targets: HashSet<(String, String)>,
    library_taken: HashSet<(String, String, String)>,
    field_targets: HashSet<(String, String)>,
    open_fields: HashSet<String>,
    field_groups: HashSet<Vec<(String, String)>>,
    param_stores: HashSet<(String, String, u32)>,
    defined_vars: HashSet<String>,
    /// Name → initial value of the scalar globals defined (`None` when a definition's value is
    /// no constant, or two definitions of the name disagree), and whether every definition of
    /// the name has internal linkage.
    scalar_globals: HashMap<String, (Option<i64>, bool)>,
    global_addrs: HashSet<String>,
    attributes: HashSet<OwnershipAttr>,
    /// The C++ classes by USR, merged over the TUs that define them (`virtuals::merge_class`).
    classes: HashMap<String, CppClass>,
}

impl Merger {
    fn new(tus_total: usize, verbose: bool, links: Option<std::sync::Arc<crate::link::Links>>) -> Merger {
        Merger {
            prog: Program::default(),
            rep: FrontendReport { tus_total, ..Default::default() },
            verbose,
            file_ids: HashMap::new(),
            kept: HashMap::new(),
            origins: Vec::new(),
            next_tu: 0,
            links,
            messages: HashSet::new(),
            address_taken: HashSet::new(),
            cast_targets: HashSet::new(),
            library_taken: HashSet::new(),
            field_targets: HashSet::new(),
            open_fields: HashSet::new(),
            field_groups: HashSet::new(),
            param_stores: HashSet::new(),
            defined_vars: HashSet::new(),
            scalar_globals: HashMap::new(),
            global_addrs: HashSet::new(),
            attributes: HashSet::new(),
            classes: HashMap::new(),
        }
    }

    /// Adds the next TU's result (in compile-command order).
    fn add(&mut self, r: TuResult) {
        let Merger {
            prog,
            rep,
            verbose,
            file_ids,
            kept,
            origins,
            next_tu,
            links: _,
            messages,
            address_taken,
            cast_targets,
            library_taken,
            field_targets,
            open_fields,
            field_groups,
            param_stores,
            defined_vars,
            scalar_globals,
            global_addrs,
            attributes,
            classes,
        } = self;
        let verbose = *verbose;
        for (name, init, internal) in r.scalar_globals {
            let value = scalar_globals.entry(name).or_insert((init, internal));
            if value.0 != init {
                value.0 = None;
            }
            value.1 &= internal;
        }
        global_addrs.extend(r.global_addrs);
        let tu = *next_tu;
        *next_tu += 1;
        if r.cut {
            rep.cut.extend(r.messages.iter().filter(|m| m.text.starts_with("error: ")).map(TuMessage::render));
            rep.cut_files.push(shown_path(&r.main_file));
            return;
        }
        if r.from_cache {
            if verbose {
                rep.tu_notes.push(format!(
                    "{}: note: loaded from the cache ({} functions)",
                    shown_path(&r.main_file),
                    r.functions.len()
                ));
            }
        } else {
            rep.parse_time += r.parse_time;
            rep.lower_time += r.lower_time;
            if verbose {
                rep.tu_notes.push(format!(
                    "{}: note: parsed in {} ms, lowered {} functions in {} ms",
                    shown_path(&r.main_file),
                    r.parse_time.as_millis(),
                    r.functions.len(),
                    r.lower_time.as_millis()
                ));
            }
        }
        if r.failed {
            rep.failures.extend(r.messages.iter().filter(|m| m.text.starts_with("error: ")).map(TuMessage::render));
        }
        messages.extend(r.messages.iter().map(TuMessage::render));
        if r.failed {
            rep.tus_failed += 1;
            rep.failed_files.push(shown_path(&r.main_file));
            return;
        }
        rep.tus_parsed += 1;
        if r.errors > 0 {
            rep.tus_with_errors += 1;
            rep.parse_errors += r.errors;
            if let Some(first) = r.messages.iter().find(|m| m.text.starts_with("error: ")) {
                let (n, plural) = (r.errors, if r.errors == 1 { "" } else { "s" });
                rep.first_errors.push(format!(
                    "{} (first of {n} parse error{plural} in {}; -v lists them)",
                    first.render(),
                    shown_path(&r.main_file)
                ));
            }
        }
        address_taken.extend(r.address_taken);
        attributes.extend(r.attributes);
        for c in r.classes {
            virtuals::merge_class(classes, c);
        }
        cast_targets.extend(r.cast_targets);
        library_taken.extend(r.library_taken);
        field_targets.extend(r.field_targets);
        open_fields.extend(r.open_fields);
        field_groups.extend(r.field_groups);
        param_stores.extend(r.param_stores);
        defined_vars.extend(r.defined_vars);
        let files = r.files;
        let local_path = |l: Loc| files.get(l.file.index()).cloned();
        let mut remap: Vec<Option<FileId>> = vec![None; files.len()];
        for mut f in r.functions {
            let def_file = local_path(f.loc);
            let key = if f.usr.is_empty() {
                format!("{}@{}", f.name, def_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default())
            } else {
                f.usr.clone()
            };
            let defs = kept.entry(key).or_default();
            if let Some(&(_, i)) = defs.iter().find(|d| d.0 == def_file) {
                if origins[i].last() != Some(&tu) {
                    origins[i].push(tu);
                }
                continue;
            }
            defs.push((def_file, prog.functions.len()));
            origins.push(vec![tu]);
            let mut map = |l: Loc| -> Loc {
                let Some(slot) = remap.get_mut(l.file.index()) else { return l };
                let id = *slot.get_or_insert_with(|| {
                    let path = files[l.file.index()].clone();
                    *file_ids.entry(path.clone()).or_insert_with(|| {
                        prog.files.push(path);
                        FileId::from_usize(prog.files.len() - 1)
                    })
                });
                Loc { file: id, ..l }
            };
            f.loc = map(f.loc);
            for l in f.stmt_locs.iter_mut() {
                *l = map(*l);
            }
            for b in f.blocks.iter_mut() {
                b.term_loc = map(b.term_loc);
            }
            for d in f.locals.iter_mut() {
                d.loc = map(d.loc);
            }
            for c in f.owner_cycles.iter_mut() {
                c.at = map(c.at);
                c.lost = map(c.lost);
                for l in c.others.iter_mut() {
                    *l = map(*l);
                }
            }
            prog.functions.push(f);
        }
    }

    fn finish(self) -> (Program, FrontendReport) {
        let Merger {
            mut prog,
            mut rep,
            messages,
            address_taken,
            cast_targets,
            library_taken,
            field_targets,
            open_fields,
            field_groups,
            param_stores,
            defined_vars,
            scalar_globals,
            global_addrs,
            attributes,
            classes,
            mut origins,
            links,
            ..
        } = self;
        prog.attributes = attributes.into_iter().collect();
        prog.attributes.sort();
        prog.scalar_globals =
            scalar_globals.into_iter().map(|(name, (init, internal))| (name, init, internal)).collect();
        prog.scalar_globals.sort();
        prog.global_addrs = global_addrs.into_iter().collect();
        prog.global_addrs.sort();
        let mut prog_taken: Vec<String> = address_taken.into_iter().collect();
        // Functions used as values in bodies are address-taken too.
        for f in &prog.functions {
            for s in &f.stmts {
                let mut note = |op: &Operand| {
                    if let Operand::Func { usr, .. } = op {
                        prog_taken.push(usr.clone());
                    }
                };
                match s {
                    Stmt::Assign { src: Rvalue::Use(op), .. } => note(op),
                    Stmt::Assign { src: Rvalue::Opaque(ops), .. } => ops.iter().for_each(&mut note),
                    Stmt::Assign { .. } => {}
                    Stmt::Call { args, .. } => args.iter().for_each(&mut note),
                }
            }
        }
        prog_taken.sort();
        prog_taken.dedup();
        prog.address_taken = prog_taken;
        prog.cast_targets = cast_targets.into_iter().collect();
        prog.cast_targets.sort();
        prog.library_taken = library_taken.into_iter().collect();
        prog.library_taken.sort();
        prog.field_targets = field_targets.into_iter().collect();
        prog.field_targets.sort();
        // A variable no TU defines (declared `extern`, defined in code outside the database or
        // in a library) may hold what that code stores: it is open.
        let mut open_fields = open_fields;
        let undefined = |k: &String| k.starts_with(crate::ir::VAR_KEY) && !defined_vars.contains(k);
        open_fields
            .extend(prog.field_targets.iter().map(|(k, _)| k).filter(|k| undefined(k)).cloned().collect::<Vec<_>>());
        open_fields
            .extend(param_stores.iter().map(|(k, _, _)| k).filter(|k| undefined(k)).cloned().collect::<Vec<_>>());
        prog.open_fields = open_fields.into_iter().collect();
        prog.open_fields.sort();
        prog.param_stores = param_stores.into_iter().collect();
        prog.param_stores.sort();
        prog.field_groups = field_groups.into_iter().collect();
        prog.field_groups.sort();
        let mut messages: Vec<String> = messages.into_iter().collect();
        messages.extend(crate::link::resolve(&mut prog, &mut origins, links.as_deref()));
        prog.classes = classes.into_values().collect();
        prog.classes.sort();
        virtuals::resolve(&mut prog);
        messages.sort();
        messages.dedup();
        rep.messages = messages;
        rep.tu_notes.sort();
        rep.functions = prog.functions.len();
        (prog, rep)
    }
}
