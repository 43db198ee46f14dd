//! The C front end: compile commands in, a lowered `ir::Program` out.
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
//! - The result does not depend on thread scheduling: TUs are parsed in parallel, their results
//!   collected in compile-command order, then merged sequentially.
//! - A function is in the program once: definitions are deduplicated by USR (the first in
//!   compile-command order wins). Internal-linkage functions get the defining file's path
//!   appended to their USR (see `TuCtx::function_usr`), so `static` functions of different
//!   files never merge, while a `static inline` function of a shared header is kept once.
//! - `Program::files` holds only files that some kept location names, deduplicated by path.

#![allow(non_upper_case_globals)]

mod clang;
mod expr;
mod fields;
mod init;
mod lower;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clang_sys::*;
use rayon::prelude::*;

use crate::compdb::CompileCommand;
use crate::ir::{FileId, Function, Loc, Operand, Program, Rvalue, Stmt};

pub struct FrontendOptions {
    /// Worker threads for parsing and lowering (0: one per core).
    pub jobs: usize,
    /// Also report notes: compiler flags dropped or not understood, per-TU timings.
    pub verbose: bool,
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
    /// One line per problem (`path:line:col: error: …`, `path: error: …`, `warning: …`), sorted
    /// and deduplicated (a header error seen from ten TUs is one line).
    pub messages: Vec<String>,
    /// The error lines of TUs that could not be parsed at all (also in `messages`): shown even
    /// without `-v`, since their functions are missing from the analysis.
    pub failures: Vec<String>,
    /// Functions in the program.
    pub functions: usize,
    /// Time spent in libclang parsing, summed over worker threads (so it can exceed wall time).
    pub parse_time: Duration,
    /// Time spent lowering ASTs to IR, summed over worker threads.
    pub lower_time: Duration,
}

/// Errors shown per TU before the rest are only counted.
const MAX_ERRORS_SHOWN_PER_TU: usize = 10;

/// Parse and lower every command, in parallel, and merge the results.
pub fn build_program(cmds: &[CompileCommand], opts: &FrontendOptions) -> (Program, FrontendReport) {
    // libclang parses on a thread of its own with an 8 MiB stack, which deeply nested code (a
    // 10,000-branch `else if` chain) overflows, killing the process. LIBCLANG_NOTHREADS makes it
    // parse on the calling worker, whose stack we size below. Set once, before any worker runs.
    static NO_CLANG_THREADS: std::sync::Once = std::sync::Once::new();
    NO_CLANG_THREADS.call_once(|| {
        if std::env::var_os("LIBCLANG_NOTHREADS").is_none() {
            std::env::set_var("LIBCLANG_NOTHREADS", "1");
        }
    });
    let work = |c: &CompileCommand| process_tu(c, opts);
    // Parsing and lowering both recurse over the AST (an `else if` chain is as deep as it is
    // long): give workers a large stack (address space only; pages are touched on demand).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .stack_size(256 << 20)
        .build();
    let results: Vec<TuResult> = match pool {
        Ok(pool) => pool.install(|| cmds.par_iter().map(work).collect()),
        // Cannot spawn threads: do the same work on this one.
        Err(_) => cmds.iter().map(work).collect(),
    };
    merge(results)
}

/// What one translation unit contributes, with TU-local `FileId`s.
struct TuResult {
    files: Vec<PathBuf>,
    functions: Vec<Function>,
    address_taken: Vec<String>,
    cast_targets: Vec<(String, String)>,
    field_targets: Vec<(String, String)>,
    open_fields: Vec<String>,
    failed: bool,
    errors: usize,
    messages: Vec<String>,
    parse_time: Duration,
    lower_time: Duration,
}

fn process_tu(cmd: &CompileCommand, opts: &FrontendOptions) -> TuResult {
    let mut r = TuResult {
        files: Vec::new(),
        functions: Vec::new(),
        address_taken: Vec::new(),
        cast_targets: Vec::new(),
        field_targets: Vec::new(),
        open_fields: Vec::new(),
        failed: false,
        errors: 0,
        messages: Vec::new(),
        parse_time: Duration::ZERO,
        lower_time: Duration::ZERO,
    };
    let path = shown_path(&cmd.file);
    let (argv, dropped) = compile_argv(cmd);
    if opts.verbose && !dropped.is_empty() {
        r.messages.push(format!(
            "{path}: note: dropped compiler flags libclang rejects: {}",
            dropped.join(" ")
        ));
    }
    let Some(index) = clang::Index::new() else {
        r.failed = true;
        r.messages
            .push(format!("{path}: error: cannot create a libclang index"));
        return r;
    };
    let t0 = Instant::now();
    let flags = CXTranslationUnit_KeepGoing | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles;
    let tu = clang::Tu::parse(&index, &argv, flags);
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
            r.messages.push(format!("{path}: error: {msg}"));
            return r;
        }
    };

    let mut shown = 0usize;
    for d in tu.diagnostics() {
        if d.severity < CXDiagnostic_Error {
            continue;
        }
        // Driver complaints about flags have no location and do not affect the AST.
        let flag_problem = d.file.is_none()
            && [
                "unknown argument",
                "unsupported option",
                "unknown warning option",
                "argument unused",
            ]
            .iter()
            .any(|p| d.text.starts_with(p));
        if flag_problem {
            if opts.verbose {
                r.messages.push(format!("{path}: warning: {}", d.text));
            }
            continue;
        }
        r.errors += 1;
        if shown < MAX_ERRORS_SHOWN_PER_TU {
            shown += 1;
            let line = match &d.file {
                Some(f) => format!(
                    "{}:{}:{}: error: {}",
                    shown_path(&clang::absolute_path(&cmd.directory, &f.to_string_lossy())),
                    d.line,
                    d.col,
                    d.text
                ),
                None => format!("{path}: error: {}", d.text),
            };
            r.messages.push(line);
        }
    }
    if r.errors > shown {
        r.messages.push(format!(
            "{path}: error: … and {} more errors in this translation unit",
            r.errors - shown
        ));
    }

    let t1 = Instant::now();
    let mut cx = lower::TuCtx::new(&tu, &cmd.directory);
    for c in tu.cursor().children() {
        if c.kind() == CXCursor_VarDecl && !c.is_in_system_header() {
            cx.collect_function_refs(c);
            cx.collect_field_stores(c);
            continue;
        }
        if c.kind() != CXCursor_FunctionDecl || !c.is_definition() || c.is_in_system_header() {
            continue;
        }
        // A separate walk: it must see the initializers of `static` locals, which are not
        // lowered, and it does not depend on the lowering of the body succeeding.
        cx.collect_field_stores(c);
        // A bug in the lowering must cost one function, not the run.
        let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lower::lower_function(&mut cx, c)
        }));
        match lowered {
            Ok(f) => r.functions.push(f),
            Err(_) => r.messages.push(format!(
                "{path}: error: internal error while lowering function `{}`; it is skipped",
                c.spelling()
            )),
        }
    }
    r.files = std::mem::take(&mut cx.files);
    r.address_taken = std::mem::take(&mut cx.address_taken);
    r.cast_targets = std::mem::take(&mut cx.cast_targets);
    r.field_targets = std::mem::take(&mut cx.field_targets);
    r.open_fields = std::mem::take(&mut cx.open_fields);
    r.lower_time = t1.elapsed();
    if opts.verbose {
        r.messages.push(format!(
            "{path}: note: parsed in {} ms, lowered {} functions in {} ms",
            r.parse_time.as_millis(),
            r.functions.len(),
            r.lower_time.as_millis()
        ));
    }
    r
}

fn error_name(code: CXErrorCode) -> &'static str {
    match code {
        CXError_Crashed => "libclang crashed",
        CXError_InvalidArguments => "invalid arguments",
        CXError_ASTReadError => "AST read error",
        _ => "failure",
    }
}

/// GCC-only flags clang rejects with an error, and flags that would make libclang write files
/// (dependency output) or turn warnings into errors. Exact spellings.
const DROP_EXACT: &[&str] = &[
    "-fconserve-stack",
    "-fno-allow-store-data-races",
    "-mno-fp-ret-in-387",
    "-fno-var-tracking-assignments",
    "-mindirect-branch-register",
    "-mskip-rax-setup",
    "-mrecord-mcount",
    "-fno-ipa-sra",
    "-fsched-pressure",
    "-fanalyzer",
    "-Werror",
    "-pedantic-errors",
    "-save-temps",
    "-M",
    "-MM",
    "-MD",
    "-MMD",
    "-MG",
    "-MP",
];

/// Same, by prefix.
const DROP_PREFIX: &[&str] = &[
    "-mindirect-branch=",
    "-mfunction-return=",
    "-mpreferred-stack-boundary=",
    "-mharden-sls=",
    "-Werror=",
    "-fplugin=",
    "-fplugin-arg-",
    "-Wp,-MD",
    "-Wp,-MMD",
    "-save-temps=",
];

/// Flags taking the next argument that must be dropped with it.
const DROP_WITH_ARG: &[&str] = &["-MF", "-MT", "-MQ"];

/// The argv handed to libclang: the command's, minus the flags above, plus
/// `-working-directory` (without it relative paths fail to resolve). Also returns what was
/// dropped, for `-v`.
fn compile_argv(cmd: &CompileCommand) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::with_capacity(cmd.arguments.len() + 1);
    let mut dropped = Vec::new();
    let mut it = cmd.arguments.iter().enumerate();
    while let Some((i, a)) = it.next() {
        if i == 0 {
            out.push(a.clone());
            // Right after the compiler, so a `--` later in the command cannot turn it into an
            // input file name.
            out.push(format!("-working-directory={}", cmd.directory.display()));
            continue;
        }
        if DROP_WITH_ARG.contains(&a.as_str()) {
            dropped.push(a.clone());
            if let Some((_, v)) = it.next() {
                dropped.push(v.clone());
            }
            continue;
        }
        let joined_dep = DROP_WITH_ARG
            .iter()
            .any(|p| a.len() > p.len() && a.starts_with(p));
        if DROP_EXACT.contains(&a.as_str())
            || DROP_PREFIX.iter().any(|p| a.starts_with(p))
            || joined_dep
        {
            dropped.push(a.clone());
            continue;
        }
        out.push(a.clone());
    }
    (out, dropped)
}

/// A path as messages show it: relative to the current directory when below it (as the rest of
/// drip's output does), absolute otherwise.
fn shown_path(p: &std::path::Path) -> String {
    let rel = std::env::current_dir()
        .ok()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(|r| r.to_path_buf()));
    rel.unwrap_or_else(|| p.to_path_buf()).display().to_string()
}

/// Merge per-TU results in compile-command order: renumber files, drop repeated definitions.
fn merge(results: Vec<TuResult>) -> (Program, FrontendReport) {
    let mut prog = Program::default();
    let mut rep = FrontendReport {
        tus_total: results.len(),
        ..Default::default()
    };
    let mut file_ids: HashMap<PathBuf, FileId> = HashMap::new();
    // USR → file of the kept definition, to report clashes between different definitions.
    let mut kept: HashMap<String, Option<PathBuf>> = HashMap::new();
    let mut clash_reported: HashSet<String> = HashSet::new();
    let mut messages = Vec::new();
    let mut prog_taken: Vec<String> = Vec::new();

    for r in results {
        rep.parse_time += r.parse_time;
        rep.lower_time += r.lower_time;
        if r.failed {
            rep.failures.extend(r.messages.iter().filter(|m| m.contains(": error: ")).cloned());
        }
        messages.extend(r.messages);
        if r.failed {
            rep.tus_failed += 1;
            continue;
        }
        rep.tus_parsed += 1;
        if r.errors > 0 {
            rep.tus_with_errors += 1;
            rep.parse_errors += r.errors;
        }
        prog.address_taken.extend(r.address_taken.iter().cloned());
        prog.cast_targets.extend(r.cast_targets.iter().cloned());
        prog.field_targets.extend(r.field_targets.iter().cloned());
        prog.open_fields.extend(r.open_fields.iter().cloned());
        let local_path = |l: Loc| r.files.get(l.file.index()).cloned();
        let mut remap: Vec<Option<FileId>> = vec![None; r.files.len()];
        for mut f in r.functions {
            let def_file = local_path(f.loc);
            let key = if f.usr.is_empty() {
                format!(
                    "{}@{}",
                    f.name,
                    def_file
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                )
            } else {
                f.usr.clone()
            };
            if let Some(first) = kept.get(&key) {
                if *first != def_file && clash_reported.insert(key.clone()) {
                    let show = |p: &Option<PathBuf>| {
                        p.as_deref().map_or_else(|| "?".to_string(), shown_path)
                    };
                    messages.push(format!(
                        "{}: warning: function `{}` is also defined in {}; only the first definition (in compile-command order) is analysed",
                        show(&def_file),
                        f.name,
                        show(first)
                    ));
                }
                continue;
            }
            kept.insert(key, def_file);
            let mut map = |l: Loc| -> Loc {
                let Some(slot) = remap.get_mut(l.file.index()) else {
                    return l;
                };
                let id = *slot.get_or_insert_with(|| {
                    let path = r.files[l.file.index()].clone();
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
            prog.functions.push(f);
        }
    }
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
    prog.address_taken.append(&mut prog_taken);
    prog.address_taken.sort();
    prog.address_taken.dedup();
    prog.cast_targets.sort();
    prog.cast_targets.dedup();
    prog.field_targets.sort();
    prog.field_targets.dedup();
    prog.open_fields.sort();
    prog.open_fields.dedup();
    messages.sort();
    messages.dedup();
    rep.messages = messages;
    rep.functions = prog.functions.len();
    (prog, rep)
}
