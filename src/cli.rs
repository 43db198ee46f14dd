//! The command line: the `check` and `dump-ir` commands, exit codes; the arguments are parsed by
//! `args` (clap), and checked here for what clap cannot check.
//!
//! Input: `std::env::args_os` (words need not be UTF-8). Output: rendered findings on stdout (or `-o FILE`), messages and the
//! summary on stderr, and the exit code: 0 clean, 1 findings, 2 usage or input error, 3 internal
//! error (the highest that applies wins).
//! Invariants: this is the only module besides `report` that writes to the terminal; every input
//! problem becomes a message and a count, never a panic.

use crate::args::{self as cmdline, shown, ColorWhen, Command, Format};
use crate::cache::{Cache, ContentDigests, Hasher};
use crate::checkers::{Locator, Policy};
use crate::compdb::{self, CompDb};
use crate::diag::Rule;
use crate::driver::{self, PhaseTimes, Stats};
use crate::frontend::{self, FrontendOptions};
use crate::report::{self, Notification, NotificationLevel, RenderOptions, ToolInfo};
use crate::reuse::{self, SccReuse};
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const EXIT_CLEAN: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_INTERNAL: i32 = 3;

struct Args {
    command: &'static str,
    compdb: Option<PathBuf>,
    files: Vec<PathBuf>,
    flags: Vec<String>,
    format: Format,
    output: Option<PathBuf>,
    jobs: usize,
    stats: bool,
    all_categories: bool,
    exceptions: bool,
    verbose: bool,
    function: Option<String>,
    cache_dir: Option<PathBuf>,
    no_cache: bool,
    config: Option<PathBuf>,
    budgets: Vec<String>,
    /// `--enable`/`--disable` in the order given (`true`: enable).
    rule_switches: Vec<crate::settings::RuleSwitch>,
    baseline: Option<PathBuf>,
    write_baseline: Option<PathBuf>,
    source_root: Option<PathBuf>,
    /// `--fail-on`, which wins over `.drip.toml`'s `[check] fail-on`.
    fail_on: Option<cmdline::FailOn>,
}

/// The options of `drip check` or `dump-ir` as `run` takes them. What clap does not check is
/// checked here, with drip's own messages: the compiler flags, which reach libclang as C strings
/// of our UTF-8 `CompileCommand`, must be text; the rule lists must name rules (now, so that a
/// misspelt rule fails before any work, and before the build of `drip capture --check`); html
/// needs `-o`; an empty cache directory (an unset variable) is not the current directory.
fn check_args(
    command: &'static str,
    c: cmdline::CheckArgs,
    matches: &clap::ArgMatches,
    function: Option<String>,
) -> Result<Args, String> {
    let flags = c.flags.iter().map(|f| text(f, "the compiler flag")).collect::<Result<Vec<_>, _>>()?;
    if c.cache_dir.as_ref().is_some_and(|d| d.as_os_str().is_empty()) {
        return Err("--cache-dir needs a directory, got an empty string".to_string());
    }
    let rule_switches = cmdline::rule_switches(matches);
    for (on, list) in &rule_switches {
        crate::rules::Switches::default().switch(list, *on)?;
    }
    let format = c.format.unwrap_or(Format::Text);
    if format == Format::Html && c.output.is_none() {
        return Err("--format html needs -o DIR: the HTML report is a directory of pages".to_string());
    }
    // More workers than the machine runs at once only cost memory (each reserves a large
    // stack) and thread start-up: `-j 100000` would spend minutes creating threads.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = match c.jobs {
        Some(n) if n > cores => {
            if c.verbose {
                eprintln!("drip: note: -j {n} capped at {cores}, the threads this machine runs at once");
            }
            cores
        }
        Some(n) => n,
        None => cores,
    };
    Ok(Args {
        command,
        compdb: c.compdb,
        files: c.files,
        flags,
        format,
        output: c.output,
        jobs,
        stats: c.stats,
        all_categories: c.all_categories,
        exceptions: c.exceptions,
        verbose: c.verbose,
        function,
        cache_dir: c.cache_dir,
        no_cache: c.no_cache,
        config: c.config,
        budgets: c.budgets,
        rule_switches,
        baseline: c.baseline,
        write_baseline: c.write_baseline,
        source_root: c.source_root,
        fail_on: c.fail_on,
    })
}

/// A word of the command line that must be text, or the usage error naming it.
fn text(word: &OsStr, what: &str) -> Result<String, String> {
    word.to_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{what} '{}' is not UTF-8 (drip needs it as text)", shown(word)))
}

/// A usage error found after clap's parse, in clap's shape: the message, then where to read more.
fn usage_error(command: &str, message: &str) -> i32 {
    eprintln!("drip: error: {message}\n\nFor more information, try 'drip {command} --help'.");
    EXIT_USAGE
}

/// Print clap's error or help and return its exit code: 0 for `--help`, 2 for a usage error.
/// Errors are prefixed like drip's own messages; both go through `anstream`, which drops clap's
/// styles where colour is off (`--color`, `NO_COLOR`, not a terminal).
fn clap_exit(e: &clap::Error) -> i32 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return EXIT_CLEAN;
        }
        // A bare `drip`: the help, on stderr.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return EXIT_USAGE;
        }
        _ => {}
    }
    let _ = write!(anstream::stderr(), "drip: {}", e.render().ansi());
    EXIT_USAGE
}

pub fn main() -> i32 {
    let argv: Vec<OsString> = std::env::args_os().collect();
    // The front end's parse worker (`frontend/isolate.rs`), started by `drip check` itself: not
    // a command of the definition, which completions and man pages offer to users.
    if argv.len() == 2 && argv[1] == frontend::WORKER_COMMAND {
        return frontend::worker_main();
    }
    // Before the parse, so that clap's own help and errors follow it too.
    anstream::ColorChoice::write_global(match cmdline::color_of(&argv) {
        // anstream would colour a dumb terminal when CI is set; a dumb terminal gets none.
        ColorWhen::Auto if std::env::var_os("TERM").is_some_and(|t| t == "dumb") => anstream::ColorChoice::Never,
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    });
    let (cli, matches) = match cmdline::parse(&argv) {
        Ok(x) => x,
        Err(e) => return clap_exit(&e),
    };
    if cli.version {
        print!("{}", version_text());
        return EXIT_CLEAN;
    }
    let sub = |name| matches.subcommand_matches(name).expect("the subcommand parsed");
    let args = match cli.command {
        // `arg_required_else_help` has clap print the help for a bare `drip`; this is
        // `drip --color never` alone.
        None => {
            let _ = write!(anstream::stderr(), "{}", cmdline::command().render_help().ansi());
            return EXIT_USAGE;
        }
        Some(Command::Capture(c)) => return crate::capture::main(c),
        Some(Command::Completions { shell }) => {
            let mut out = std::io::stdout().lock();
            clap_complete::generate(shell, &mut cmdline::command(), "drip", &mut out);
            return EXIT_CLEAN;
        }
        Some(Command::Manpage { dir }) => return manpage(dir.as_deref()),
        Some(Command::Check(c)) => check_args("check", c, sub("check"), None),
        Some(Command::DumpIr(d)) => check_args("dump-ir", d.check, sub("dump-ir"), d.function),
    };
    match args {
        Ok(args) => run(&args),
        Err(e) => usage_error(if matches.subcommand_name() == Some("dump-ir") { "dump-ir" } else { "check" }, &e),
    }
}

/// `drip manpage [DIR]`: drip(1) on standard output, or every command's page written into DIR.
fn manpage(dir: Option<&Path>) -> i32 {
    let written = match dir {
        Some(dir) => clap_mangen::generate_to(cmdline::command(), dir),
        None => clap_mangen::Man::new(cmdline::command()).render(&mut std::io::stdout().lock()),
    };
    match written {
        Ok(()) => EXIT_CLEAN,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_CLEAN,
        Err(e) => {
            let to = dir.map_or_else(|| "standard output".to_string(), |d| d.display().to_string());
            eprintln!("drip: error: cannot write the man page to {to}: {e}");
            EXIT_USAGE
        }
    }
}

/// Parse TUs in worker processes started from this executable, each within the `tu-time-ms`
/// budget; `None` (parse in this process, unbounded) when the executable cannot be found.
fn isolation(budgets: &crate::settings::Budgets) -> Option<frontend::Isolation> {
    match std::env::current_exe() {
        Ok(exe) => Some(frontend::Isolation { exe, budget: budgets.tu_time() }),
        Err(e) => {
            eprintln!("drip: warning: cannot find drip's own executable ({e}): TUs are parsed in this process, so one that crashes libclang ends the run, and tu-time-ms is not enforced");
            None
        }
    }
}

/// `drip --version`: the crate's version, the commit it was built from (`build.rs`) and the
/// libclang this process loaded, which decides how C is parsed (and keys the cache).
fn version_text() -> String {
    format!(
        "drip {} (commit {})\nlibclang: {}\n",
        env!("CARGO_PKG_VERSION"),
        env!("DRIP_GIT_COMMIT"),
        frontend::libclang_version()
    )
}

/// `drip check`'s options given to `drip capture --check`, which supplies `-p`: parsed, or the
/// exit code of the usage error printed.
fn capture_check_args(opts: &[OsString]) -> Result<Args, i32> {
    let (c, m) = cmdline::parse_check(opts).map_err(|e| {
        let _ = write!(anstream::stderr(), "drip: in the options of --check: ");
        clap_exit(&e)
    })?;
    let a = check_args("check", c, &m, None)
        .map_err(|e| usage_error("capture", &format!("in the options of --check: {e}")))?;
    if a.compdb.is_some() || !a.files.is_empty() {
        return Err(usage_error(
            "capture",
            "in the options of --check: -p and source files are not allowed: the captured database is checked",
        ));
    }
    Ok(a)
}

/// Are these valid `drip check` options for `drip capture --check`? `Err`: the exit code of the
/// usage error printed.
pub fn check_options(opts: &[OsString]) -> Result<(), i32> {
    capture_check_args(opts).map(|_| ())
}

/// `drip check` with these options on the database `cdb` (for `drip capture --check`).
pub fn check_database(opts: &[OsString], cdb: &Path) -> i32 {
    match capture_check_args(opts) {
        Ok(mut a) => {
            a.compdb = Some(cdb.to_path_buf());
            run(&a)
        }
        Err(code) => code,
    }
}

/// The compile database, where it came from (for messages), and the default cache directory:
/// `.drip/` next to compile_commands.json, or in the current directory for files given on the
/// command line.
fn load_compdb(args: &Args) -> Result<(CompDb, String, PathBuf), String> {
    if !args.files.is_empty() {
        if args.compdb.is_some() {
            return Err("give either -p or source files, not both".to_string());
        }
        let missing: Vec<String> = args.files.iter().filter(|f| !f.exists()).map(|f| f.display().to_string()).collect();
        if !missing.is_empty() {
            return Err(format!("no such file: {}", missing.join(", ")));
        }
        // libclang takes the file's name, and the reports give it, as UTF-8 text.
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let not_text: Vec<String> = args
            .files
            .iter()
            .filter(|f| compdb::absolute(f, &cwd).to_str().is_none())
            .map(|f| shown(f.as_os_str()))
            .collect();
        if !not_text.is_empty() {
            return Err(format!(
                "file names that are not UTF-8 are not supported (libclang and the reports take them as text): {}",
                not_text.join(", ")
            ));
        }
        return Ok((
            compdb::from_files(&args.files, &args.flags),
            "the command line".to_string(),
            PathBuf::from(".drip"),
        ));
    }
    let path = match &args.compdb {
        Some(p) => p.clone(),
        None => {
            let candidates = [PathBuf::from("compile_commands.json"), PathBuf::from("build/compile_commands.json")];
            match candidates.iter().find(|c| c.exists()) {
                Some(c) => c.clone(),
                None => {
                    return Err("no compile_commands.json in . or build/; pass -p <dir> or source files".to_string());
                }
            }
        }
    };
    let cache_dir =
        if path.is_dir() { path.join(".drip") } else { path.parent().unwrap_or(Path::new("")).join(".drip") };
    compdb::load(&path).map(|db| (db, path.display().to_string(), cache_dir)).map_err(|e| e.to_string())
}

fn run(args: &Args) -> i32 {
    let started = Instant::now();
    // An output file that cannot be written fails now, not after the analysis. It is opened
    // without truncating: a run that fails later leaves the previous report as it was.
    if let (Some(dir), Format::Html) = (&args.output, args.format) {
        // New, empty, or a report drip wrote: never a directory of someone else's files.
        if let Err(e) = report::html::prepare_dir(dir) {
            eprintln!("drip: error: {e}");
            return EXIT_USAGE;
        }
    } else if let Some(p) = &args.output {
        // The database this run reads (as `load_compdb` finds it), or the files it names.
        let db = match &args.compdb {
            Some(d) if d.is_dir() => Some(d.join("compile_commands.json")),
            Some(d) => Some(d.clone()),
            None => {
                ["compile_commands.json", "build/compile_commands.json"].iter().map(PathBuf::from).find(|c| c.exists())
            }
        };
        let same = |a: &Path, b: &Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y);
        if db.as_deref().is_some_and(|d| same(p, d)) || args.files.iter().any(|f| same(p, f)) {
            eprintln!("drip: error: -o {} names an input of this run; the report would overwrite it", p.display());
            return EXIT_USAGE;
        }
        if let Err(e) = std::fs::OpenOptions::new().append(true).create(true).open(p) {
            eprintln!("drip: error: cannot write the report to {}: {e}", p.display());
            return EXIT_USAGE;
        }
    }
    if let Some(p) = &args.write_baseline {
        if let Err(e) = std::fs::OpenOptions::new().append(true).create(true).open(p) {
            eprintln!("drip: error: cannot write the baseline {}: {e}", p.display());
            return EXIT_USAGE;
        }
    }
    let baseline = match args.baseline.as_deref().map(report::baseline::Baseline::load).transpose() {
        Ok(b) => {
            if let (Some(b), Some(p), true) = (&b, &args.baseline, args.verbose) {
                eprintln!("drip: note: the baseline {} has {} findings", p.display(), b.count());
            }
            b
        }
        Err(e) => {
            eprintln!("drip: error: {e}");
            return EXIT_USAGE;
        }
    };
    let (db, origin, default_cache_dir) = match load_compdb(args) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("drip: error: {e}");
            return EXIT_USAGE;
        }
    };
    // Where SARIF paths and fingerprints are relative to: the project, not wherever drip runs.
    let source_root = match &args.source_root {
        Some(dir) if !dir.is_dir() => {
            eprintln!("drip: error: --source-root {} is not a directory", dir.display());
            return EXIT_USAGE;
        }
        Some(dir) => dir.clone(),
        None => match default_cache_dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    for p in &db.problems {
        eprintln!("drip: warning: {p}");
    }
    if db.commands.is_empty() {
        eprintln!(
            "drip: error: no C or C++ translation units in {origin} ({} other entries skipped)",
            db.skipped_non_c
        );
        return EXIT_USAGE;
    }
    let cache = if args.no_cache {
        Cache::disabled()
    } else {
        Cache::open(args.cache_dir.as_deref().unwrap_or(&default_cache_dir))
    };
    if let Some(w) = cache.warning() {
        eprintln!("drip: warning: {w}");
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let mut ending = Ending {
        cwd: cwd.clone(),
        source_root,
        baseline,
        started: std::time::SystemTime::now(),
        rules: crate::rules::Switches::default(),
    };
    // `.drip.toml` beside the compile database (the cache directory's parent) or above it, unless
    // --config.
    let search_from = match default_cache_dir.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => cwd.clone(),
    };
    let settings = match crate::settings::load(args.config.as_deref(), &search_from, &args.budgets, &args.rule_switches)
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("drip: error: {e}");
            return EXIT_USAGE;
        }
    };
    if args.verbose {
        match (&settings.file, &settings.searched_from) {
            (Some(f), _) => eprintln!("drip: note: configuration from {}", f.display()),
            (None, Some(d)) => eprintln!(
                "drip: note: no {} in {} or above it (up to the repository's root): default settings",
                crate::settings::FILE_NAME,
                d.display()
            ),
            (None, None) => {}
        }
    }
    ending.rules = settings.rules.clone();
    let budgets = settings.budgets.clone();
    // `run-time-ms` counts from the run's start: parsing spends it too.
    let config = crate::fastcheck::Config {
        run_deadline: budgets.run_time().map(|d| started + d),
        exceptions: args.exceptions || settings.exceptions,
        ..budgets.config()
    };
    let policy = Policy { all_categories: args.all_categories };
    let digests = ContentDigests::default();
    // What every analysis result depends on besides the program, and the names of this compile
    // database's entries (one per set of options; see `reuse`).
    let links = crate::link::load_for(args.files.is_empty(), &default_cache_dir, &db.commands);
    // The SCCs' results do not depend on the reporting policy (`reuse::env_digest`), a whole run's
    // do: runs with and without `--all-categories` share one SCC table and keep a record each.
    let env = reuse::env_digest(&config, &settings.declared, &cwd).and_then(|e| crate::link::mix(e, &links));
    let run_env = env.and_then(|e| reuse::run_env(e, &policy));
    let slot = |what: &str, env: Option<crate::cache::Digest>| {
        let mut h = Hasher::new(what);
        h.digest(env?).str(&origin);
        h.finish()
    };
    let (run_slot, scc_slot) = (slot("drip run slot", run_env), slot("drip scc slot", env));
    if args.command == "check" && cache.enabled() {
        // Whole-run shortcut: every TU unchanged and the same options: the previous result.
        let tus = frontend::fingerprint(&db.commands, &cache, &digests);
        let key = run_env.and_then(|env| reuse::run_key(env, &tus));
        if let Some(rec) = run_slot.zip(key).and_then(|(slot, key)| reuse::load_run(&cache, slot, key)) {
            return replay(args, rec, &db, &cache, &ending, &settings, started);
        }
    }
    // The parse workers are children of this process: their CPU time counts once they are waited
    // for, which the front end does before it returns.
    let cpu_started = driver::process_cpu() + driver::children_cpu();
    // The progress line, on a terminal only; stopped before anything else is printed.
    let progress = crate::progress::Progress::new();
    let drawing = crate::progress::draw(&progress);
    let (program, fe) = frontend::build_program_cached(
        &db.commands,
        &FrontendOptions {
            jobs: args.jobs,
            verbose: args.verbose,
            progress: Some(progress.clone()),
            links,
            isolation: isolation(&settings.budgets),
            run_deadline: config.run_deadline,
        },
        &cache,
        &digests,
    );
    // The IR lives until the process exits, and is left to the exit: freeing its millions of
    // small allocations one by one cost 53 M instructions on SQLite (5% of the analysis). clang's
    // own driver does the same with its AST (`-disable-free`).
    let mut program = program;
    if db.skipped_non_c > 0 || fe.tus_failed > 0 || !fe.cut.is_empty() {
        crate::globals::seen_partly(&mut program);
    }
    if fe.tus_failed > 0 || !fe.cut.is_empty() {
        // A class only the TUs not seen define may override any virtual method: the class
        // hierarchy is not whole, so no virtual call is resolved (`frontend/virtuals.rs`).
        program.field_targets.retain(|(k, _)| !k.starts_with(crate::ir::VIRTUAL_KEY));
    }
    if config.exceptions {
        let edges = crate::exceptions::add_edges(&mut program);
        if args.verbose {
            eprintln!("drip: note: --exceptions: {edges} calls that may throw got an exceptional edge");
        }
    }
    let program = std::mem::ManuallyDrop::new(program);
    let cpu_front_end = (driver::process_cpu() + driver::children_cpu()).saturating_sub(cpu_started);
    if let Some(d) = drawing {
        d.finish();
    }
    if args.verbose {
        let cpp_notes = crate::frontend::cpp_not_analysed_notes(&program);
        let mut lines: Vec<&String> = fe.messages.iter().chain(&fe.cut).chain(&fe.tu_notes).chain(&cpp_notes).collect();
        lines.sort();
        for m in lines {
            eprintln!("{}", crate::terminal::escape(m));
        }
    } else {
        for m in fe.failures.iter().chain(&fe.cut).chain(&fe.first_errors) {
            eprintln!("{}", crate::terminal::escape(m));
        }
        crate::link::summary_line(&fe.messages).into_iter().for_each(|l| eprintln!("{l}"));
    }
    let at = Locator::new(&program, &cwd);
    if args.command == "dump-ir" {
        return dump_ir(&program, args);
    }
    // Guard formulas are DAGs whose depth grows with unstructured control flow; the Tseitin
    // encoder recurses on them, so workers get deep stacks (as the front end's do).
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(args.jobs).stack_size(256 << 20).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("drip: error: cannot start worker threads: {e}");
            return EXIT_INTERNAL;
        }
    };
    let analysis_started = Instant::now();
    let cpu_analysis_started = driver::process_cpu();
    // The memory API the program's attributes declare joins the configuration's; what the
    // SCCs' results depend on changes with it (a callee's row is keyed by its name only).
    let config_file = settings.file.as_ref().map_or_else(|| ".drip.toml".to_string(), |f| f.display().to_string());
    let (declared, conflicts) = settings.declared.with_attributes(&program.attributes, &config_file);
    for c in &conflicts {
        eprintln!("drip: warning: {}", crate::terminal::escape(c));
    }
    let scc_env = env.and_then(|e| {
        let mut h = Hasher::new("drip env with attributes");
        h.digest(e).str(&declared.key_text());
        h.finish()
    });
    let reuse = scc_env
        .zip(scc_slot)
        .filter(|_| cache.enabled())
        .map(|(env, slot)| SccReuse::load(&cache, slot, env, &program));
    let drawing = crate::progress::draw(&progress);
    let out = driver::analyze(&program, &config, &policy, &at, &pool, reuse.as_ref(), Some(&progress), &declared);
    if let Some(d) = drawing {
        d.finish();
    }
    if let Some(r) = reuse {
        r.finish();
    }
    let analysis_wall = analysis_started.elapsed();
    let cpu_analysis = driver::process_cpu().saturating_sub(cpu_analysis_started);
    for e in &out.internal_errors {
        eprintln!("{e}");
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let n = out.timed_out_functions.len();
    warn_names(
        &format!(
            "{n} function{} ran out of the time budget ({} ms, budget function-time-ms); their undecided allocation sites are over budget and their summaries conservative",
            plural(n),
            budgets.function_time_ms
        ),
        &out.timed_out_functions,
        args.verbose,
    );
    let n = out.over_size_functions.len();
    warn_names(
        &format!(
            "{n} function{} ran out of the memory budget ({} MiB, budget function-memory-mb); their undecided allocation sites are over budget and their summaries conservative",
            plural(n),
            budgets.function_memory_mb
        ),
        &out.over_size_functions,
        args.verbose,
    );
    let n = out.cycles_over_time.len();
    warn_names(
        &format!(
            "{n} recursive call cycle{} ran out of the time budget ({} ms, budget scc-time-ms) before a fixpoint; every member was checked once more against unknown callees",
            plural(n),
            budgets.scc_time_ms
        ),
        &out.cycles_over_time,
        args.verbose,
    );
    if args.verbose && !out.cycles_over_rounds.is_empty() {
        eprintln!(
            "drip: note: {} recursive call cycles did not reach a fixpoint within {} rounds (budget scc-rounds); every member was checked once more against unknown callees:",
            out.cycles_over_rounds.len(),
            budgets.scc_rounds
        );
        for c in &out.cycles_over_rounds {
            eprintln!("drip:   {}", crate::terminal::escape(c));
        }
    }
    let partial = out.functions_skipped + out.functions_stopped + fe.cut.len() > 0;
    if partial {
        let tus = match fe.cut_files.len() {
            0 => String::new(),
            n => format!("{n} TU{} not analysed ({}), ", plural(n), crate::terminal::escape(&named(&fe.cut_files))),
        };
        eprintln!(
            "drip: warning: the run ran out of its time budget ({} ms, budget run-time-ms): {tus}{} of {} functions were not checked (their callers see unknown callees) and {} were stopped while checked (their undecided sites are over budget); the result is partial",
            budgets.run_time_ms,
            out.functions_skipped,
            program.functions.len(),
            out.functions_stopped
        );
    }
    if args.verbose {
        declaration_notes(&out.library_contracts, &out.declared_defined, &out.declared_unused, &settings);
    }
    if args.verbose {
        unknown_callee_notes(&out.undefined_functions, &out.opaque_cpp);
    }
    let mut out = out;
    let applied = crate::report::suppress::apply(&mut out.diagnostics, &settings.suppress, &cwd);
    if args.verbose {
        for n in crate::report::suppress::stale(&applied, &settings.suppress, &at.display) {
            eprintln!("{n}");
        }
    }
    let mut stats = Stats {
        suppressed: applied.suppressed,
        tus_total: fe.tus_total,
        tus_parsed: fe.tus_parsed,
        tus_failed: fe.tus_failed,
        tus_failed_files: fe.failed_files.clone(),
        tus_with_errors: fe.tus_with_errors,
        parse_errors: fe.parse_errors,
        entries_skipped_non_c: db.skipped_non_c,
        entries_duplicate: db.duplicates,
        functions: program.functions.len(),
        functions_analysed: out.functions_analysed,
        functions_failed: out.internal_errors.len(),
        functions_with_lowering_notes: program.functions.iter().filter(|f| !f.lowering_notes.is_empty()).count(),
        tus_cpp: db
            .commands
            .iter()
            .filter(|c| crate::compdb::language(&c.file, &c.arguments) == Some(crate::compdb::Lang::Cpp))
            .count(),
        cpp_not_analysed: crate::frontend::cpp_not_analysed(&program, &fe.messages),
        sources: out.sources,
        sites_over_budget: out.over_budget,
        functions_over_time: out.timed_out_functions.len(),
        functions_over_size: out.over_size_functions.len(),
        budgets: budgets.clone(),
        sites_unknown_callee: out.sites_unknown_callee,
        functions_irreducible: out.functions_irreducible,
        summaries: out.summaries,
        allocator_wrappers: out.allocator_wrappers,
        deallocator_wrappers: out.deallocator_wrappers,
        noreturn_functions: out.noreturn_functions,
        recursive_sccs: out.recursive_sccs,
        sccs: out.sccs,
        callgraph_depth: out.callgraph_depth,
        scc_budget_hits: out.scc_budget_hits,
        scc_time_hits: out.cycles_over_time.len(),
        functions_skipped: out.functions_skipped,
        functions_stopped: out.functions_stopped,
        tus_cut: fe.cut_files.len(),
        tus_cut_files: fe.cut_files.clone(),
        indirect_calls: out.indirect_calls,
        unresolved_indirect: out.unresolved_indirect,
        field_resolved_indirect: out.field_resolved_indirect,
        var_resolved_indirect: out.var_resolved_indirect,
        virtual_calls: out.virtual_calls,
        virtual_resolved: out.virtual_resolved,
        virtual_opaque_targeted: out.virtual_opaque_targeted,
        undefined_functions: out.undefined_functions.len(),
        library_contracts: out.library_contracts.clone(),
        allocators_library: out.allocators_library,
        allocators_declared: declared.allocators(false),
        allocators_attribute: declared.allocators(true),
        deallocators_library: out.deallocators_library,
        deallocators_declared: declared.deallocators(false),
        deallocators_attribute: declared.deallocators(true),
        declaration_conflicts: conflicts.clone(),
        declared_defined: out.declared_defined.clone(),
        declared_unused: out.declared_unused.clone(),
        categories: out.categories.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        findings_leak: driver::count(&out.diagnostics, Rule::Leak),
        findings_double_free: driver::count(&out.diagnostics, Rule::DoubleFree),
        findings_leak_on_realloc_failure: driver::count(&out.diagnostics, Rule::LeakOnReallocFailure),
        findings_mismatched_deallocation: driver::count(&out.diagnostics, Rule::MismatchedDeallocation),
        findings_leak_global: driver::count(&out.diagnostics, Rule::LeakGlobal),
        // Set at the end (`Ending::finish`), which drops the findings of rules switched off.
        disabled: 0,
        rules_off: Vec::new(),
        sat_queries: out.sat_queries,
        time_ms: PhaseTimes {
            parse: driver::ms(fe.parse_time),
            ir: driver::ms(fe.lower_time),
            value_flow: driver::ms(out.timings.value_flow),
            guards_sat: driver::ms(out.timings.sat),
            analysis: driver::ms(analysis_wall),
            wall: 0,
            cpu_front_end: driver::ms(cpu_front_end),
            cpu_analysis: driver::ms(cpu_analysis),
        },
        // Filled in below, once the run's entries are written.
        cache: crate::cache::CacheStats::default(),
    };
    // The result of a run that completed without internal errors, failed TUs or functions out of
    // time (whose result depends on the machine's speed), all of whose TUs are cached, can be
    // replayed by the next run if nothing changes.
    if out.internal_errors.is_empty()
        && fe.tus_failed == 0
        && out.timed_out_functions.is_empty()
        && out.over_size_functions.is_empty()
        && out.cycles_over_time.is_empty()
        && !partial
    {
        let key = run_env.and_then(|env| reuse::run_key(env, &fe.tu_digests));
        if let Some((slot, key)) = run_slot.zip(key) {
            let rec = reuse::RunRecord {
                stats: stats.clone(),
                diagnostics: out.diagnostics.clone(),
                messages: fe.messages.clone(),
                first_errors: fe.first_errors.clone(),
                undefined_functions: out.undefined_functions.clone(),
                opaque_cpp: out.opaque_cpp.clone(),
                files: at.display.clone(),
            };
            reuse::store_run(&cache, slot, key, &rec);
        }
    }
    sweep(&cache, &db.commands, [run_slot, scc_slot]);
    if args.verbose {
        for n in cache.notes() {
            eprintln!("{n}");
        }
    } else if cache.stats().write_failures > 0 {
        // A disk that filled up during the run: the results are complete, the next run slower.
        eprintln!("drip: warning: {} cache entries could not be written (see -v)", cache.stats().write_failures);
    }
    stats.cache = cache.stats();
    stats.time_ms.wall = driver::ms(started.elapsed());
    let notes = notifications(
        &stats,
        &fe.failures,
        &fe.cut,
        &fe.messages,
        &out.internal_errors,
        [&out.timed_out_functions[..], &out.over_size_functions[..], &out.cycles_over_time[..]],
    );
    let tus_with_errors = stats.tus_with_errors;
    let reported = match ending.finish(args, &out.diagnostics, stats, &notes) {
        Ok(n) => n,
        Err(code) => return code,
    };
    if !out.internal_errors.is_empty() {
        EXIT_INTERNAL
    } else if fe.tus_failed > 0 || partial {
        // Part of the program is missing from the analysis, as for a TU that failed.
        EXIT_USAGE
    } else {
        exit_code(args, &settings, reported, tus_with_errors)
    }
}

/// The exit code of a run whose result is complete (no internal error, no TU that failed to
/// parse), by `--fail-on` (else `.drip.toml`'s `[check] fail-on`, else `finding`). Parse errors
/// are an input problem (2), which a CI job can tell apart from findings (1).
fn exit_code(args: &Args, settings: &crate::settings::Settings, reported: usize, tus_with_errors: usize) -> i32 {
    use cmdline::FailOn;
    let fail_on = args.fail_on.or(settings.fail_on).unwrap_or(FailOn::Finding);
    if fail_on >= FailOn::ParseError && tus_with_errors > 0 {
        eprintln!(
            "drip: error: {tus_with_errors} TU{} parsed with errors, and fail-on is parse-error",
            if tus_with_errors == 1 { "" } else { "s" }
        );
        EXIT_USAGE
    } else if fail_on >= FailOn::Finding && reported > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

/// The `-v` notes on functions whose callers see a contract instead of their definition's
/// summary, and on declarations that name nothing.
fn declaration_notes(
    contracts: &[String],
    defined: &[String],
    unused: &[String],
    settings: &crate::settings::Settings,
) {
    if !contracts.is_empty() {
        eprintln!(
            "drip: note: the program defines {}: callers see the C library's contract, and the definitions are checked as functions of their own",
            contracts.join(", ")
        );
    }
    let file = settings.file.as_ref().map_or_else(String::new, |f| f.display().to_string());
    if !defined.is_empty() {
        eprintln!(
            "drip: note: {file} declares {}, which the program also defines: callers see the declaration, and the definitions are checked as functions of their own",
            defined.join(", ")
        );
    }
    if !unused.is_empty() {
        eprintln!(
            "drip: note: {file} declares {}, which the program neither calls directly nor defines (misspelt?)",
            unused.join(", ")
        );
    }
}

/// Finish a run from the previous run's record: nothing it depends on changed.
fn replay(
    args: &Args,
    mut rec: reuse::RunRecord,
    db: &CompDb,
    cache: &Cache,
    ending: &Ending,
    settings: &crate::settings::Settings,
    started: Instant,
) -> i32 {
    cache.run_reused.store(true, std::sync::atomic::Ordering::Relaxed);
    // Only runs without failed TUs are recorded, so there are no failures to show without -v.
    if args.verbose {
        for m in &rec.messages {
            eprintln!("{}", crate::terminal::escape(m));
        }
        eprintln!("drip: note: no translation unit and no option changed since the last run: its result is reused from the cache");
        let s = &rec.stats;
        declaration_notes(&s.library_contracts, &s.declared_defined, &s.declared_unused, settings);
        unknown_callee_notes(&rec.undefined_functions, &rec.opaque_cpp);
        for n in cache.notes() {
            eprintln!("{n}");
        }
    } else {
        for m in &rec.first_errors {
            eprintln!("{}", crate::terminal::escape(m));
        }
        crate::link::summary_line(&rec.messages).into_iter().for_each(|l| eprintln!("{l}"));
    }
    // Suppressions are not in the run key (a `[[suppress]]` entry changes no analysis): mark the
    // findings again under this run's comments and entries.
    let applied = crate::report::suppress::apply(&mut rec.diagnostics, &settings.suppress, &ending.cwd);
    if args.verbose {
        for n in crate::report::suppress::stale(&applied, &settings.suppress, &rec.files) {
            eprintln!("{n}");
        }
    }
    for c in &rec.stats.declaration_conflicts {
        eprintln!("drip: warning: {}", crate::terminal::escape(c));
    }
    let mut stats = rec.stats;
    // Not in the run key: it bounds parsing, and a replayed run parses nothing.
    stats.budgets.tu_time_ms = settings.budgets.tu_time_ms;
    stats.suppressed = applied.suppressed;
    stats.findings_leak = driver::count(&rec.diagnostics, Rule::Leak);
    stats.findings_double_free = driver::count(&rec.diagnostics, Rule::DoubleFree);
    stats.findings_leak_on_realloc_failure = driver::count(&rec.diagnostics, Rule::LeakOnReallocFailure);
    stats.findings_mismatched_deallocation = driver::count(&rec.diagnostics, Rule::MismatchedDeallocation);
    stats.findings_leak_global = driver::count(&rec.diagnostics, Rule::LeakGlobal);
    // Entries that are not TUs are not in the run key: count them now.
    stats.entries_skipped_non_c = db.skipped_non_c;
    stats.entries_duplicate = db.duplicates;
    stats.tus_cpp = db
        .commands
        .iter()
        .filter(|c| crate::compdb::language(&c.file, &c.arguments) == Some(crate::compdb::Lang::Cpp))
        .count();
    // Nothing was parsed or analysed in this run.
    stats.time_ms = PhaseTimes { wall: 0, ..PhaseTimes::default() };
    stats.cache = cache.stats();
    stats.time_ms.wall = driver::ms(started.elapsed());
    // Only runs without failed TUs, internal errors or functions out of time are recorded.
    let notes = notifications(&stats, &[], &[], &rec.messages, &[], [&[], &[], &[]]);
    let tus_with_errors = stats.tus_with_errors;
    match ending.finish(args, &rec.diagnostics, stats, &notes) {
        Ok(reported) => exit_code(args, settings, reported, tus_with_errors),
        Err(code) => code,
    }
}

/// What a run does last, whether it analysed or replayed the previous result: fingerprint the
/// findings, write the baseline, hide what the baseline already has, write the report and the
/// summary.
struct Ending {
    cwd: PathBuf,
    /// `--source-root`, or the directory of the compile database; may be relative to `cwd`.
    source_root: PathBuf,
    baseline: Option<report::baseline::Baseline>,
    /// When the run started, for SARIF's `invocations[0]`.
    started: std::time::SystemTime,
    /// The rules switched off: their findings are dropped here, after the analysis (or its
    /// replay), so switching rules never invalidates the cache.
    rules: crate::rules::Switches,
}

impl Ending {
    /// Returns how many findings were reported (neither suppressed nor in the baseline), or the
    /// exit code of a failure to write.
    fn finish(
        &self,
        args: &Args,
        diags: &[crate::diag::Diagnostic],
        mut stats: Stats,
        notes: &[Notification],
    ) -> Result<usize, i32> {
        // Over every finding, so that the baseline written and the one read number alike, and
        // switching a rule off renumbers no other finding.
        let fingerprints = report::fingerprint::compute(diags, &self.source_root, &self.cwd);
        // Findings of rules switched off are no findings of this run: not in any report, not in
        // the baseline written, not counted but in `disabled`.
        let all = diags.len();
        let (diags, fingerprints): (Vec<crate::diag::Diagnostic>, Vec<report::fingerprint::Fingerprint>) =
            diags.iter().cloned().zip(fingerprints).filter(|(d, _)| self.rules.enabled(d.rule)).unzip();
        stats.disabled = all - diags.len();
        stats.rules_off = self.rules.disabled().iter().map(|r| r.id().to_string()).collect();
        stats.suppressed = diags.iter().filter(|d| d.suppression.is_some()).count();
        if let Some(path) = &args.write_baseline {
            let written = std::fs::File::create(path).map(std::io::BufWriter::new).and_then(|mut w| {
                report::render_sarif(&diags, &fingerprints, &self.tool_info(notes), &mut w)?;
                w.flush()
            });
            if let Err(e) = written {
                eprintln!("drip: error: cannot write the baseline {}: {e}", path.display());
                return Err(EXIT_USAGE);
            }
        }
        // A suppressed finding stays as it is: the report marks it, the baseline does not hide it.
        let (mut shown, mut shown_fps) = (Vec::new(), Vec::new());
        for (d, fp) in diags.iter().zip(fingerprints) {
            if d.suppression.is_none() && self.baseline.as_ref().is_some_and(|b| b.contains(&fp)) {
                continue;
            }
            shown.push(d.clone());
            shown_fps.push(fp);
        }
        let hidden = diags.len() - shown.len();
        stats.findings_leak = driver::count(&shown, Rule::Leak);
        stats.findings_double_free = driver::count(&shown, Rule::DoubleFree);
        stats.findings_leak_on_realloc_failure = driver::count(&shown, Rule::LeakOnReallocFailure);
        stats.findings_mismatched_deallocation = driver::count(&shown, Rule::MismatchedDeallocation);
        stats.findings_leak_global = driver::count(&shown, Rule::LeakGlobal);
        let mut line = summary(&stats);
        if self.baseline.is_some() {
            line.push_str(&format!(", {hidden} hidden by the baseline"));
        }
        let html = report::html::HtmlInfo {
            summary: &line,
            hidden_by_baseline: self.baseline.is_some().then_some(hidden),
            notifications: notes,
        };
        report_output(args, self.write_output(args, &shown, &shown_fps, &stats, notes, &html))?;
        if args.stats {
            print_stats(&stats);
        }
        eprintln!("{line}");
        Ok(shown.iter().filter(|d| d.suppression.is_none()).count())
    }

    fn tool_info(&self, notes: &[Notification]) -> ToolInfo {
        ToolInfo {
            disabled_rules: self.rules.disabled(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            root: self.source_root.clone(),
            notifications: notes.to_vec(),
            invocation: Some(report::Invocation {
                arguments: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect(),
                working_directory: self.cwd.clone(),
                start: self.started,
                end: std::time::SystemTime::now(),
            }),
        }
    }
}

/// Remove cache entries this compile database no longer uses (see `cache::Cache::sweep`).
fn sweep(cache: &Cache, cmds: &[crate::compdb::CompileCommand], slots: [Option<crate::cache::Digest>; 2]) {
    if !cache.enabled() {
        return;
    }
    cache.sweep(crate::cache::Kind::Tu, &frontend::cache_names(cmds));
    let [run, scc] = slots;
    cache.sweep(crate::cache::Kind::Run, &run.into_iter().collect());
    cache.sweep(crate::cache::Kind::Scc, &scc.into_iter().collect());
}

/// The run's own problems, for the JSON and SARIF reports (the text report has them on stderr).
fn notifications(
    stats: &Stats,
    failures: &[String],
    cut: &[String],
    messages: &[String],
    internal_errors: &[String],
    [timed_out, over_size, cycles_over_time]: [&[String]; 3],
) -> Vec<Notification> {
    let mut out = Vec::new();
    let mut add = |level, id, message: String| out.push(Notification { level, id, message });
    for f in failures {
        add(NotificationLevel::Error, "tu-failed", f.clone());
    }
    // Errors in TUs that were parsed: clang recovered, and drip analysed what it recovered.
    for m in messages.iter().filter(|m| m.contains(": error: ") && !failures.contains(m)) {
        add(NotificationLevel::Warning, "parse-error", m.clone());
    }
    for m in messages.iter().filter(|m| m.contains(crate::link::DUPLICATE)) {
        add(NotificationLevel::Warning, "duplicate-definition", m.clone());
    }
    for e in internal_errors {
        add(NotificationLevel::Error, "internal-error", e.clone());
    }
    for c in &stats.declaration_conflicts {
        add(NotificationLevel::Warning, "declaration-conflict", c.clone());
    }
    for f in over_size {
        add(
            NotificationLevel::Warning,
            "memory-budget",
            format!(
                "{f}: ran out of the memory budget ({} MiB); its undecided allocation sites are over budget",
                stats.budgets.function_memory_mb
            ),
        );
    }
    for f in timed_out {
        add(
            NotificationLevel::Warning,
            "time-budget",
            format!(
                "{f}: ran out of the time budget ({} ms); its undecided allocation sites are over budget",
                stats.budgets.function_time_ms
            ),
        );
    }
    if stats.sites_over_budget > 0 {
        add(
            NotificationLevel::Warning,
            "site-budget",
            format!(
                "{} allocation sites are over budget (formula size, SAT conflicts or time): the analysis concluded nothing about them",
                stats.sites_over_budget
            ),
        );
    }
    for c in cycles_over_time {
        add(
            NotificationLevel::Warning,
            "scc-time",
            format!(
                "{c}: ran out of the time budget ({} ms) before a fixpoint: its members were checked against unknown callees",
                stats.budgets.scc_time_ms
            ),
        );
    }
    for c in cut {
        add(NotificationLevel::Error, "run-time", c.clone());
    }
    if stats.functions_skipped + stats.functions_stopped + stats.tus_cut > 0 {
        add(
            NotificationLevel::Error,
            "run-time",
            format!(
                "the run ran out of its time budget ({} ms): {} TUs were not analysed, {} of {} functions were not checked and {} were stopped while checked; the result is partial",
                stats.budgets.run_time_ms, stats.tus_cut, stats.functions_skipped, stats.functions, stats.functions_stopped
            ),
        );
    }
    if stats.scc_budget_hits > 0 {
        add(
            NotificationLevel::Warning,
            "scc-rounds",
            format!(
                "{} recursive call cycles did not reach a fixpoint within {} rounds: their members were checked against unknown callees",
                stats.scc_budget_hits, stats.budgets.scc_rounds
            ),
        );
    }
    out
}

/// What a failed report write means: a reader that went away (`drip check | head`) is not an
/// error, anything else is (exit 2), named with the file.
fn report_output(args: &Args, r: std::io::Result<()>) -> Result<(), i32> {
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            let to = args.output.as_ref().map_or_else(|| "standard output".to_string(), |p| p.display().to_string());
            eprintln!("drip: error: cannot write the report to {to}: {e}");
            Err(EXIT_USAGE)
        }
    }
}

impl Ending {
    fn write_output(
        &self,
        args: &Args,
        diags: &[crate::diag::Diagnostic],
        fingerprints: &[report::fingerprint::Fingerprint],
        stats: &Stats,
        notes: &[Notification],
        html: &report::html::HtmlInfo,
    ) -> std::io::Result<()> {
        if let (Format::Html, Some(dir)) = (args.format, &args.output) {
            return report::html::write_site(&report::html::render_html(diags, fingerprints, html), dir);
        }
        // `--color` (read into anstream's global choice by `main`): `auto` colours standard output
        // on a terminal unless NO_COLOR is set or TERM=dumb; a file only with `always`.
        let color = match anstream::ColorChoice::global() {
            anstream::ColorChoice::Always | anstream::ColorChoice::AlwaysAnsi => true,
            anstream::ColorChoice::Never => false,
            anstream::ColorChoice::Auto => {
                args.output.is_none()
                    && anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
            }
        };
        let mut sink: Box<dyn Write> = match &args.output {
            Some(p) => Box::new(std::io::BufWriter::new(std::fs::File::create(p)?)),
            None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
        };
        match args.format {
            Format::Text => {
                let shown: Vec<crate::diag::Diagnostic> =
                    diags.iter().filter(|d| d.suppression.is_none()).cloned().collect();
                report::render_text(&shown, &RenderOptions { color, show_source: true }, &mut *sink)?
            }
            Format::Json => {
                let mut value = serde_json::to_value(stats).unwrap_or(serde_json::Value::Null);
                if stats.virtual_calls == 0 {
                    // C has none: its report keeps the fields it always had.
                    if let Some(m) = value.as_object_mut() {
                        m.remove("virtual_calls");
                        m.remove("virtual_resolved");
                        m.remove("virtual_opaque_targeted");
                    }
                }
                report::render_json(diags, &value, notes, &mut *sink)?
            }
            Format::Sarif => report::render_sarif(diags, fingerprints, &self.tool_info(notes), &mut *sink)?,
            Format::Codeclimate => {
                report::render_codeclimate(diags, fingerprints, &self.source_root, &self.cwd, &mut *sink)?
            }
            // Written above; `check_args` refuses html without -o.
            Format::Html => {}
        }
        sink.flush()
    }
}

fn summary(s: &Stats) -> String {
    let mut line = format!(
        "drip: {} TUs, {} functions, {} allocation sites: {} leak{}, {} double free{}",
        s.tus_parsed,
        s.functions_analysed,
        s.sources,
        s.findings_leak + s.findings_leak_on_realloc_failure,
        if s.findings_leak + s.findings_leak_on_realloc_failure == 1 { "" } else { "s" },
        s.findings_double_free,
        if s.findings_double_free == 1 { "" } else { "s" },
    );
    // Named only when there are some: the line of a C program is what it always was.
    if s.findings_mismatched_deallocation > 0 {
        let n = s.findings_mismatched_deallocation;
        line.push_str(&format!(", {n} mismatched deallocation{}", if n == 1 { "" } else { "s" }));
    }
    if s.findings_leak_global > 0 {
        let n = s.findings_leak_global;
        line.push_str(&format!(", {n} global{} never freed", if n == 1 { "" } else { "s" }));
    }
    if s.suppressed > 0 {
        line.push_str(&format!(", {} suppressed", s.suppressed));
    }
    let mut problems = Vec::new();
    if s.tus_failed > 0 {
        // Named here too: a TU that is not analysed at all is the first thing to look at.
        let names = named(&s.tus_failed_files);
        let names = if names.is_empty() { names } else { format!(" ({})", crate::terminal::escape(&names)) };
        problems.push(format!(
            "{} TU{} failed to parse{names}",
            s.tus_failed,
            if s.tus_failed == 1 { "" } else { "s" }
        ));
    }
    if s.tus_with_errors > 0 {
        problems.push(format!(
            "{} TU{} with parse errors",
            s.tus_with_errors,
            if s.tus_with_errors == 1 { "" } else { "s" }
        ));
    }
    if s.functions_skipped + s.functions_stopped + s.tus_cut > 0 {
        let tus = match s.tus_cut {
            0 => String::new(),
            n => format!(
                "{n} TU{} not analysed ({}), ",
                if n == 1 { "" } else { "s" },
                crate::terminal::escape(&named(&s.tus_cut_files))
            ),
        };
        problems.push(format!(
            "partial: out of run-time-ms, {tus}{} of {} functions not checked",
            s.functions_skipped, s.functions
        ));
    }
    if s.functions_failed > 0 {
        problems.push(format!(
            "{} function{} failed",
            s.functions_failed,
            if s.functions_failed == 1 { "" } else { "s" }
        ));
    }
    if s.sites_over_budget > 0 {
        problems.push(format!(
            "{} site{} over budget",
            s.sites_over_budget,
            if s.sites_over_budget == 1 { "" } else { "s" }
        ));
    }
    if s.entries_skipped_non_c > 0 {
        problems.push(format!("{} non-C/C++ entries skipped", s.entries_skipped_non_c));
    }
    if !problems.is_empty() {
        line.push_str(&format!(" ({}; see -v)", problems.join(", ")));
    }
    line
}

/// The first few of `files`, and how many more: a summary line names what was not analysed.
fn named(files: &[String]) -> String {
    const NAMED: usize = 3;
    let mut names = files.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", ");
    if files.len() > NAMED {
        names.push_str(&format!(" and {} more", files.len() - NAMED));
    }
    names
}

fn print_stats(s: &Stats) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "drip statistics");
    let _ = writeln!(
        e,
        "  translation units   {} total, {} parsed, {} failed, {} with errors ({} errors), {} non-C/C++ skipped, {} duplicates",
        s.tus_total, s.tus_parsed, s.tus_failed, s.tus_with_errors, s.parse_errors, s.entries_skipped_non_c, s.entries_duplicate
    );
    let _ = writeln!(
        e,
        "  functions           {} lowered, {} analysed, {} failed, {} with lowering notes",
        s.functions, s.functions_analysed, s.functions_failed, s.functions_with_lowering_notes
    );
    if s.tus_cpp > 0 {
        let what: Vec<String> = s.cpp_not_analysed.iter().map(|(w, n)| format!("{w} {n}")).collect();
        let what = match (what.is_empty(), s.cache.run_reused) {
            (true, true) => "not counted in a run replayed from the cache".to_string(),
            (true, false) => "nothing".to_string(),
            (false, _) => what.join(", "),
        };
        let _ = writeln!(e, "  C++                 {} TUs; not analysed (-v names them): {what}", s.tus_cpp);
    }
    let _ = writeln!(
        e,
        "  summaries           {} ({} allocator wrappers, {} deallocator wrappers, {} noreturn); {} SCCs, {} recursive ({} without a fixpoint within {} rounds), call depth {}",
        s.summaries,
        s.allocator_wrappers,
        s.deallocator_wrappers,
        s.noreturn_functions,
        s.sccs,
        s.recursive_sccs,
        s.scc_budget_hits,
        s.budgets.scc_rounds,
        s.callgraph_depth
    );
    let _ = writeln!(e, "  undefined callees   {} (listed with -v)", s.undefined_functions);
    // Names from .drip.toml and the program's headers, printed as text for a terminal.
    let named = |v: &[String]| {
        if v.is_empty() {
            String::new()
        } else {
            format!(" ({})", crate::terminal::escape(&v.join(", ")))
        }
    };
    let _ = writeln!(
        e,
        "  allocators          {} from the library model (called), {} declared in .drip.toml{}, {} by attributes{}, {} inferred wrappers",
        s.allocators_library,
        s.allocators_declared.len(),
        named(&s.allocators_declared),
        s.allocators_attribute.len(),
        named(&s.allocators_attribute),
        s.allocator_wrappers
    );
    let _ = writeln!(
        e,
        "  deallocators        {} from the library model (called), {} declared in .drip.toml{}, {} by attributes{}, {} inferred wrappers",
        s.deallocators_library,
        s.deallocators_declared.len(),
        named(&s.deallocators_declared),
        s.deallocators_attribute.len(),
        named(&s.deallocators_attribute),
        s.deallocator_wrappers
    );
    if !s.library_contracts.is_empty() {
        let _ = writeln!(
            e,
            "  own allocator       {} defined by the program, seen by callers as the C library's: {}",
            s.library_contracts.len(),
            s.library_contracts.join(", ")
        );
    }
    let _ = writeln!(
        e,
        "  indirect calls      {} ({} resolved by the stores into their field, {} into their variable, {} with no possible target)",
        s.indirect_calls, s.field_resolved_indirect, s.var_resolved_indirect, s.unresolved_indirect
    );
    if s.virtual_calls > 0 {
        let _ = writeln!(
            e,
            "  virtual calls       {} ({} resolved over the class hierarchy, {} opaque, {} of them writing only what \
             their possible targets write)",
            s.virtual_calls,
            s.virtual_resolved,
            s.virtual_calls - s.virtual_resolved,
            s.virtual_opaque_targeted
        );
    }
    let _ = writeln!(e, "  irreducible CFGs    {} functions (an edge dropped to bound loops)", s.functions_irreducible);
    let _ = writeln!(e, "  allocation sources  {}", s.sources);
    for (cat, n) in &s.categories {
        let pct = if s.sources > 0 { 100.0 * *n as f64 / s.sources as f64 } else { 0.0 };
        let _ = writeln!(e, "    {cat:<24}{n:>8}  {pct:5.1}%");
    }
    let _ = writeln!(
        e,
        "  unknown callees     {} sites ({})",
        s.sites_unknown_callee,
        crate::libmodel::UNKNOWN_CALLEE_DEFAULT
    );
    let b = &s.budgets;
    let _ = writeln!(
        e,
        "  budgets hit         {} functions over {} ms, {} functions over {} MiB, {} sites over budget ({} formula nodes per site, {} SAT conflicts), {} cycles over {} rounds, {} cycles over {} ms",
        s.functions_over_time, b.function_time_ms, s.functions_over_size, b.function_memory_mb, s.sites_over_budget, b.guard_nodes_per_site, b.sat_conflicts, s.scc_budget_hits, b.scc_rounds, s.scc_time_hits, b.scc_time_ms
    );
    if b.run_time_ms > 0 {
        let _ = writeln!(
            e,
            "  run budget          {} ms (run-time-ms): {} TUs not analysed, {} functions not checked, {} stopped while checked",
            b.run_time_ms, s.tus_cut, s.functions_skipped, s.functions_stopped
        );
    }
    let _ = writeln!(
        e,
        "  findings            {} leak, {} leak-on-realloc-failure, {} double-free, {} mismatched-deallocation, {} leak-global; {} suppressed (comments, attributes and .drip.toml entries); {} of rules switched off{}",
        s.findings_leak,
        s.findings_leak_on_realloc_failure,
        s.findings_double_free,
        s.findings_mismatched_deallocation,
        s.findings_leak_global,
        s.suppressed,
        s.disabled,
        if s.rules_off.is_empty() { String::new() } else { format!(" ({})", s.rules_off.join(", ")) }
    );
    let _ = writeln!(e, "  SAT queries         {}", s.sat_queries);
    let c = &s.cache;
    if c.disabled {
        let _ = writeln!(e, "  cache               not used");
    } else {
        let _ = writeln!(
            e,
            "  cache               TUs {} from cache, {} parsed ({} not cacheable); SCCs {} reused, {} re-checked{}; {} entries rejected, {} not written; load {} ms, store {} ms",
            c.tus_loaded,
            c.tus_parsed,
            c.tus_not_cacheable,
            c.sccs_reused,
            c.sccs_checked,
            if c.run_reused { "; whole result reused" } else { "" },
            c.rejected,
            c.write_failures,
            c.load_ms,
            c.store_ms
        );
    }
    let t = &s.time_ms;
    let _ = writeln!(
        e,
        "  time (ms)           parse {} | ir {} | value-flow {} | guards+sat {} (summed over threads) | analysis {} | wall {}",
        t.parse, t.ir, t.value_flow, t.guards_sat, t.analysis, t.wall
    );
    let _ =
        writeln!(e, "  cpu time (ms)       front end {} | analysis {} (all threads)", t.cpu_front_end, t.cpu_analysis);
}

fn dump_ir(program: &crate::ir::Program, args: &Args) -> i32 {
    let mut out = std::io::stdout().lock();
    if args.function.is_none() {
        let _ = write!(out, "{}", crate::irdump::dump_program(program));
        return EXIT_CLEAN;
    }
    let mut found = false;
    for f in &program.functions {
        if args.function.as_deref().is_some_and(|n| n != f.name) {
            continue;
        }
        found = true;
        let _ = writeln!(out, "{}", crate::irdump::dump_function(program, f));
    }
    if !found {
        eprintln!("drip: error: no function to dump");
        return EXIT_USAGE;
    }
    EXIT_CLEAN
}

/// A budget warning naming what ran out: the first five names, all of them with `-v`; nothing
/// when `names` is empty.
fn warn_names(what: &str, names: &[String], verbose: bool) {
    if names.is_empty() {
        return;
    }
    eprintln!("drip: warning: {what}:");
    let shown = if verbose { names.len() } else { names.len().min(5) };
    for f in &names[..shown] {
        eprintln!("drip:   {}", crate::terminal::escape(f));
    }
    if shown < names.len() {
        eprintln!("drip:   … and {} more (-v lists them)", names.len() - shown);
    }
}

/// `-v`'s notes on unknown callees: functions defined nowhere, and C++ methods the lowering calls
/// opaquely (most of them defined in the program).
fn unknown_callee_notes(undefined: &[String], opaque_cpp: &[String]) {
    if !undefined.is_empty() {
        eprintln!(
            "drip: note: {} functions are called but defined nowhere and not modelled ({}): {}",
            undefined.len(),
            crate::libmodel::UNKNOWN_CALLEE_DEFAULT,
            undefined.join(", ")
        );
    }
    if !opaque_cpp.is_empty() {
        eprintln!(
            "drip: note: {} C++ methods are called opaquely, as unknown callees (virtual with an override drip cannot see, or of a class drip does not know how to destroy; what they are given escapes, and those whose body drip sees write only the globals it writes): {}",
            opaque_cpp.len(),
            opaque_cpp.join(", ")
        );
    }
}
