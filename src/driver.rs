//! The analysis driver: checks every function of a frozen `Program` in parallel.
//!
//! Input: `&Program`, the check `Config`, the reporting `Policy`, a thread count, and optionally
//! the previous run's SCC results (`reuse::SccReuse`).
//! Output: sorted `Diagnostic`s, per-run `Stats`, and internal errors (one per function whose
//! check panicked).
//! Invariants: functions are checked bottom-up over the call graph's SCCs, each once, inside
//! `catch_unwind`, so one bad function becomes a message and the run goes on; results are
//! collected in function order and then sorted, so output never depends on the thread count. An
//! SCC whose key matches the previous run's is not checked: its stored outcomes stand in for the
//! check's, and they are exactly what the check would produce (see `reuse`). Output depends on
//! time only where a time budget is hit (a function's, a cycle's `scc-time-ms`, the run's
//! `run-time-ms`), which is always reported and never stored in the cache.

use crate::callgraph::{self, CallGraph, Scc};
use crate::cfg;
use crate::checkers::{self, Locator, Policy};
use crate::diag::{self, Category, Diagnostic, Rule};
use crate::fastcheck::{self, Config, Timings};
use crate::ir::Program;
use crate::reuse::{Outcome, SccReuse, SiteCounts};
use crate::summary::{Summaries, Summary};
use hashbrown::HashMap;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Stats {
    pub tus_total: usize,
    pub tus_parsed: usize,
    pub tus_failed: usize,
    /// The main files of the TUs that failed, as messages show them, in compile-command order
    /// (for the summary line; not in the JSON `stats`, whose `notifications` name them).
    #[serde(skip)]
    pub tus_failed_files: Vec<String>,
    pub tus_with_errors: usize,
    pub parse_errors: usize,
    pub entries_skipped_non_c: usize,
    pub entries_duplicate: usize,
    pub functions: usize,
    pub functions_analysed: usize,
    pub functions_failed: usize,
    pub functions_with_lowering_notes: usize,
    /// C++ translation units among those of the database. For `--stats` only: not in the JSON
    /// statistics (which stay as they were for C) nor in the run record (counted anew).
    #[serde(skip)]
    pub tus_cpp: usize,
    /// The C++ constructs the lowering did not analyse (`frontend::cpp::NOT_ANALYSED` notes),
    /// by what they are, with how many places have them; sorted. For `--stats` only, and not
    /// known in a run replayed from the cache.
    #[serde(skip)]
    pub cpp_not_analysed: Vec<(String, usize)>,
    /// Allocation sources (malloc-like call sites), FastCheck's "Sources" column.
    pub sources: usize,
    pub sites_over_budget: usize,
    /// Functions whose check ran out of its time budget.
    pub functions_over_time: usize,
    /// Functions whose check ran out of its memory budget (`function-memory-mb`).
    pub functions_over_size: usize,
    /// The budgets this run used.
    pub budgets: crate::settings::Budgets,
    /// Sites whose cell is passed to a callee that is neither modelled nor analysed, which gets
    /// the conservative default `libmodel::UNKNOWN_CALLEE_DEFAULT`.
    pub sites_unknown_callee: usize,
    /// Functions whose CFG is irreducible: an edge was dropped to bound their loops.
    pub functions_irreducible: usize,
    pub summaries: usize,
    /// Functions whose summary says they may return a fresh cell (FastCheck's allocators), or
    /// hand one back through an out-parameter.
    pub allocator_wrappers: usize,
    /// Functions that free a parameter on every path.
    pub deallocator_wrappers: usize,
    pub noreturn_functions: usize,
    pub recursive_sccs: usize,
    /// SCCs of the call graph, and its longest chain of SCC calls.
    pub sccs: usize,
    pub callgraph_depth: usize,
    /// Recursive SCCs whose fixpoint hit `max_scc_rounds`: their last round's summaries are used.
    pub scc_budget_hits: usize,
    /// Recursive SCCs whose fixpoint ran out of `scc-time-ms`.
    #[serde(default)]
    pub scc_time_hits: usize,
    /// Functions the run's time budget (`run-time-ms`) left unchecked, and those it stopped.
    #[serde(default)]
    pub functions_skipped: usize,
    #[serde(default)]
    pub functions_stopped: usize,
    /// TUs the run's time budget left unparsed or stopped while parsed (they are not analysed),
    /// and their main files as messages show them (for the summary line; the notifications name
    /// them in the reports).
    #[serde(default)]
    pub tus_cut: usize,
    #[serde(skip)]
    pub tus_cut_files: Vec<String>,
    pub indirect_calls: usize,
    /// Indirect calls with no possible target (no address-taken function of their type, or a
    /// field given only functions defined nowhere): unknown callees.
    pub unresolved_indirect: usize,
    /// Indirect calls through a function-pointer field whose targets are the functions stored
    /// into it.
    pub field_resolved_indirect: usize,
    /// Indirect calls through a global or local function-pointer variable whose targets are
    /// the functions stored into it.
    #[serde(default)]
    pub var_resolved_indirect: usize,
    /// C++ virtual calls (not counted in `indirect_calls`), and those whose targets the
    /// program's class hierarchy gives (`frontend/virtuals.rs`); the others are opaque. Left
    /// out of the JSON report when there are none (C: `cli.rs`).
    #[serde(default)]
    pub virtual_calls: usize,
    #[serde(default)]
    pub virtual_resolved: usize,
    /// Opaque virtual calls whose possible targets the hierarchy still names
    /// (`ir::OPAQUE_VIRTUAL_KEY`): unknown to the heap, they write what those write.
    #[serde(default)]
    pub virtual_opaque_targeted: usize,
    /// Called but defined nowhere and not in the library model.
    pub undefined_functions: usize,
    /// Functions the program defines whose callers see the C library's contract instead
    /// (its own `malloc`, `free`, ...: `libmodel::CONTRACT_KEPT_WHEN_DEFINED`), sorted.
    pub library_contracts: Vec<String>,
    /// Allocators by origin: library-model rows the program calls, those declared in
    /// `.drip.toml` and those the program's ownership attributes declare (all of them, sorted);
    /// `allocator_wrappers` are the inferred ones.
    #[serde(default)]
    pub allocators_library: usize,
    #[serde(default)]
    pub allocators_declared: Vec<String>,
    #[serde(default)]
    pub allocators_attribute: Vec<String>,
    /// Deallocators (functions that free an argument on every call) by origin, as the
    /// allocators; `deallocator_wrappers` are the inferred ones.
    #[serde(default)]
    pub deallocators_library: usize,
    #[serde(default)]
    pub deallocators_declared: Vec<String>,
    #[serde(default)]
    pub deallocators_attribute: Vec<String>,
    /// Functions `.drip.toml` declares otherwise than their attributes do, one message each
    /// (`declare::Declarations::with_attributes`): the configuration wins.
    #[serde(default)]
    pub declaration_conflicts: Vec<String>,
    /// Declared in `.drip.toml` and defined by the program: callers see the declaration, sorted.
    #[serde(default)]
    pub declared_defined: Vec<String>,
    /// Declared in `.drip.toml` but neither called directly nor defined (a misspelt name?).
    #[serde(default)]
    pub declared_unused: Vec<String>,
    /// Allocation sites per category (FastCheck Table 1, "messages by category").
    pub categories: BTreeMap<String, usize>,
    pub findings_leak: usize,
    pub findings_double_free: usize,
    #[serde(default)]
    pub findings_leak_on_realloc_failure: usize,
    #[serde(default)]
    pub findings_mismatched_deallocation: usize,
    /// `leak-global`: memory kept in a global nothing frees.
    #[serde(default)]
    pub findings_leak_global: usize,
    /// Findings a `drip: ignore` comment silences (`report::suppress`), not in the four above.
    pub suppressed: usize,
    /// Findings of rules switched off (`--disable`, `[rules]`): not reported anywhere, not in
    /// the counts above.
    #[serde(default)]
    pub disabled: usize,
    /// The rules switched off, by id.
    #[serde(default)]
    pub rules_off: Vec<String>,
    pub sat_queries: u64,
    pub time_ms: PhaseTimes,
    /// The incremental cache: what was reused, rejected, and what loading and storing cost.
    #[serde(default)]
    pub cache: crate::cache::CacheStats,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct PhaseTimes {
    /// libclang parsing, summed over worker threads.
    pub parse: u64,
    /// Lowering ASTs into the IR, summed over worker threads.
    pub ir: u64,
    /// Loop-bounded CFGs and guarded value flow, summed over worker threads.
    pub value_flow: u64,
    /// Solver queries, summed over worker threads.
    pub guards_sat: u64,
    /// Wall-clock time of the analysis after parsing and lowering: call graph, summaries, checks.
    pub analysis: u64,
    /// Wall-clock time of the whole run.
    pub wall: u64,
    /// CPU time of the whole process (all threads) while the front end ran (parsing and
    /// lowering) and while the analysis ran. Unlike wall time it hardly moves when other
    /// programs load the machine, so it is what ratios between the phases are best taken from.
    pub cpu_front_end: u64,
    pub cpu_analysis: u64,
}

/// CPU time of this process's children that were waited for (the front end's parse workers).
pub fn children_cpu() -> Duration {
    // SAFETY: `getrusage` writes only the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, (t.tv_usec as u32) * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// CPU time used so far by the whole process, all threads.
pub fn process_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `clock_gettime` writes only the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

pub struct AnalysisOutput {
    pub diagnostics: Vec<Diagnostic>,
    pub internal_errors: Vec<String>,
    pub sources: usize,
    pub over_budget: usize,
    pub categories: BTreeMap<&'static str, usize>,
    pub sat_queries: u64,
    pub timings: Timings,
    pub functions_analysed: usize,
    pub functions_irreducible: usize,
    pub sites_unknown_callee: usize,
    pub allocator_wrappers: usize,
    pub deallocator_wrappers: usize,
    pub noreturn_functions: usize,
    pub summaries: usize,
    pub recursive_sccs: usize,
    pub sccs: usize,
    pub callgraph_depth: usize,
    pub indirect_calls: usize,
    pub unresolved_indirect: usize,
    pub field_resolved_indirect: usize,
    pub var_resolved_indirect: usize,
    pub virtual_calls: usize,
    pub virtual_resolved: usize,
    pub virtual_opaque_targeted: usize,
    /// Recursive SCCs whose summaries had not converged when the round budget ran out.
    pub scc_budget_hits: usize,
    /// Called but defined nowhere and not in the library model: unknown callees.
    pub undefined_functions: Vec<String>,
    /// C++ methods called opaquely (`CallGraph::opaque_cpp`).
    pub opaque_cpp: Vec<String>,
    /// `Stats::library_contracts`.
    pub library_contracts: Vec<String>,
    /// `Stats::allocators_library`, `Stats::deallocators_library`, `Stats::declared_defined`,
    /// `Stats::declared_unused`.
    pub allocators_library: usize,
    pub deallocators_library: usize,
    pub declared_defined: Vec<String>,
    pub declared_unused: Vec<String>,
    /// Functions whose check ran out of time (`file:line: name`), sorted.
    pub timed_out_functions: Vec<String>,
    /// Functions whose check ran out of its memory budget (`file:line: name`), sorted.
    pub over_size_functions: Vec<String>,
    /// Recursive SCCs whose fixpoint ran out of rounds, and of time (`scc-time-ms`, with how
    /// long it ran), named by their first member (`file:line: the cycle of 'f' and N other
    /// functions`), in SCC order.
    pub cycles_over_rounds: Vec<String>,
    pub cycles_over_time: Vec<String>,
    /// Functions the run's deadline left unchecked (no summary, no findings), and those it
    /// stopped while they were checked (undecided sites over budget, conservative summaries).
    pub functions_skipped: usize,
    pub functions_stopped: usize,
}

struct FnResult {
    out: Outcome,
    timings: Timings,
    cut: Cut,
}

/// What the run's time budget (`Config::run_deadline`) did to one function's check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Cut {
    #[default]
    No,
    /// Started, and stopped by the run's deadline: its undecided sites are over budget and its
    /// summary conservative, as past its own time budget.
    Stopped,
    /// Stopped by its cycle's time budget (`scc-time-ms`) in the last pass: as `Stopped`, and
    /// named with its cycle.
    Cycle,
    /// Not checked: the run's deadline had passed. It has no summary (its callers see an unknown
    /// callee) and no findings.
    Skipped,
}

impl FnResult {
    fn skipped() -> FnResult {
        FnResult {
            out: Outcome {
                summary: Summary::plain(0, false),
                diagnostics: Vec::new(),
                kept_in_globals: Vec::new(),
                counts: SiteCounts::default(),
                irreducible: false,
                timed_out: true,
                over_size: false,
            },
            timings: Timings::default(),
            cut: Cut::Skipped,
        }
    }
}

/// How a recursive SCC's fixpoint ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SccEnd {
    /// Not recursive, or a fixpoint reached.
    Done,
    /// Out of `max_scc_rounds`: every member checked against unknown callees.
    Rounds,
    /// Out of `max_scc_time` after `fixpoint`: the same, the last pass within that budget again.
    Time { fixpoint: Duration, total: Duration },
}

/// Whether `deadline` has passed.
fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// The earlier of two deadlines.
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        _ => a.or(b),
    }
}

/// Check every function. With `reuse`, an SCC whose key matches the previous run's takes its
/// stored outcomes instead of being checked, and every checked SCC is recorded for the next run.
pub fn analyze(
    program: &Program,
    config: &Config,
    policy: &Policy,
    at: &Locator,
    pool: &rayon::ThreadPool,
    reuse: Option<&SccReuse>,
    progress: Option<&crate::progress::Progress>,
    declared: &crate::declare::Declarations,
) -> AnalysisOutput {
    let summaries = Summaries::new(program, declared);
    if let Some(p) = progress {
        p.start_functions(program.functions.len());
    }
    let graph = callgraph::build(program, &summaries);
    // A test hook for the recovery path: the check of the function named here panics, as a bug
    // in the analysis would (tests/cli.rs). Read once, here, like the rest of the run's input.
    let panic_in = std::env::var("DRIP_DEBUG_PANIC_IN").ok();
    // `until`: a deadline besides the function's own and the run's (its cycle's time budget).
    let check = |i: usize, provisional: &HashMap<usize, Summary>, until: Option<Instant>| -> Result<FnResult, String> {
        let func = &program.functions[i];
        let heap_needed = graph.called_from_outside[i];
        if past(config.run_deadline) {
            return Ok(FnResult::skipped());
        }
        let run = || {
            if panic_in.as_deref() == Some(func.name.as_str()) {
                panic!("DRIP_DEBUG_PANIC_IN asked for a panic here");
            }
            // One budget for every phase of this function's check, from here on: its own time,
            // and the run's and its cycle's deadlines when they come first.
            let own = config.max_function_time.map(|d| Instant::now() + d);
            let deadline = earliest(own, earliest(config.run_deadline, until));
            let budget = std::sync::Arc::new(crate::budget::Budget::new(deadline, config.max_function_bytes));
            let models = crate::summary::call_models(i, func, &summaries, provisional);
            // The flow-insensitive prechecks decide most functions: no allocation, and nothing
            // below or in a parameter that only a path-sensitive pass can classify.
            let mut cx = fastcheck::CheckCx::prepare(func, models);
            cx.budget = budget;
            cx.fixed_globals = Some(&summaries.fixed_globals);
            cx.unaliased_globals = Some(&summaries.unaliased_globals);
            cx.address_taken_globals = Some(&summaries.address_taken_globals);
            cx.nonnull_params = summaries.nonnull.fixed_params(i);
            // Found by the front end; a function without allocation sites has them too.
            let cycles = checkers::owner_cycles(func, at);
            if let Some(summary) = fastcheck::summarize_without_flow(&cx, heap_needed) {
                return FnResult {
                    out: Outcome {
                        summary,
                        diagnostics: cycles,
                        kept_in_globals: Vec::new(),
                        counts: SiteCounts::default(),
                        irreducible: false,
                        timed_out: false,
                        over_size: false,
                    },
                    timings: Timings::default(),
                    cut: Cut::No,
                };
            }
            let cx = cx.complete();
            let mut timings = Timings::default();
            let verdicts = fastcheck::check_function(&cx, config, func.name == "main", &mut timings);
            // Every category's: the outcome is cached and shared by runs with other policies.
            let mut diagnostics = checkers::diagnostics(&cx, &verdicts, &Policy::EVERY, at, &summaries);
            let kept_in_globals = checkers::global_candidates(&cx, &verdicts, at);
            let started = std::time::Instant::now();
            let (summary, param_double_frees) = fastcheck::summarize(&cx, config, &verdicts, heap_needed);
            timings.value_flow += started.elapsed();
            diagnostics.extend(checkers::param_diagnostics(&cx, &param_double_frees, at));
            diagnostics.extend(cycles);
            let out = Outcome {
                summary,
                diagnostics,
                kept_in_globals,
                counts: SiteCounts::of(&verdicts),
                irreducible: cx.dag.dropped_edges > 0,
                timed_out: cx.budget.hit() == Some(crate::budget::Hit::Time),
                over_size: cx.budget.hit() == Some(crate::budget::Hit::Size),
            };
            // Out of time before its own deadline: the run's (or its cycle's) came first.
            let cut = match out.timed_out && !past(own) {
                false => Cut::No,
                true if past(config.run_deadline) => Cut::Stopped,
                true => Cut::Cycle,
            };
            FnResult { out, timings, cut }
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).map_err(|e| {
            let what = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".to_string());
            let loc = at.src(func.loc);
            format!("{}:{}: internal error while checking '{}': {what}", loc.file, loc.line, func.name)
        })
    };
    // Bottom-up: an SCC only calls functions of SCCs finished before it starts, and itself.
    // A recursive SCC is solved to a fixpoint from an optimistic start (members only read their
    // arguments and allocate nothing), in sweeps (`solve_cycle`). If the budget
    // (`max_scc_rounds` checks per member) runs out first, a last pass checks every member
    // against unknown callees instead, so an unfinished fixpoint costs precision, never a false
    // "freed".
    let check_scc = |scc: &Scc| -> SccResult {
        // The globals the members may write, one set for the SCC, in every summary it makes
        // (provisional ones too: a member's call to another member may write what either does).
        let (written, fields_written, read) =
            crate::summary::written_of_scc(program, &summaries, &scc.members, &summaries.address_taken_globals);
        let param_written = crate::summary::param_writes_of_scc(program, &summaries, &scc.members);
        let param_written_of = |i: usize| {
            scc.members.binary_search(&i).map_or_else(|_| std::sync::Arc::from([]), |at| param_written[at].clone())
        };
        let check = |i: usize, provisional: &HashMap<usize, Summary>, until: Option<Instant>| {
            check(i, provisional, until).map(|mut fr| {
                fr.out.summary.globals_written = written.clone();
                fr.out.summary.fields_written = fields_written.clone();
                fr.out.summary.param_fields_written = param_written_of(i);
                fr.out.summary.globals_read = read.clone();
                fr
            })
        };
        let run_all = |members: &[usize], until: Option<Instant>| -> Vec<(usize, Result<FnResult, String>)> {
            members.par_iter().map(|&i| (i, check(i, &HashMap::new(), until))).collect()
        };
        if !scc.recursive {
            return (run_all(&scc.members, None), SccEnd::Done);
        }
        // The cycle's time budget covers the pre-pass and every sweep; a member's check running
        // at the deadline stops there too.
        let started = Instant::now();
        let deadline = earliest(config.max_scc_time.map(|d| started + d), config.run_deadline);
        // Heap effects inside a recursive SCC are taken as unknown (they would need a fixpoint
        // of their own, which large SCCs do not reach): members see each other's parameter
        // fates, allocators and returns, and every path below a member's argument escapes.
        let without_heap = |mut s: Summary| {
            s.heap = std::sync::Arc::from([]);
            s.heap_pure = false;
            s
        };
        let mut provisional: HashMap<usize, Summary> = scc
            .members
            .iter()
            .map(|&i| {
                let mut s = Summary::plain(program.functions[i].n_params as usize, false);
                s.globals_written = written.clone();
                s.fields_written = fields_written.clone();
                s.param_fields_written = param_written_of(i);
                s.globals_read = read.clone();
                (i, without_heap(s))
            })
            .collect();
        presolve_escapes(program, &summaries, &graph.callees, &scc.members, &mut provisional, deadline);
        let budget = config.max_scc_rounds.max(1) * scc.members.len();
        let by_index = |i: usize, view: &HashMap<usize, Summary>| check(i, view, deadline);
        match solve_cycle(&scc.members, &graph.callees, provisional, budget, deadline, &by_index, &without_heap) {
            Ok(out) => (out, SccEnd::Done),
            Err(Stop::Rounds) => (run_all(&scc.members, None), SccEnd::Rounds),
            // The run's deadline: its members are counted as the run's (`Cut`).
            Err(Stop::Time) if past(config.run_deadline) => (run_all(&scc.members, None), SccEnd::Done),
            Err(Stop::Time) => {
                // The last pass gets the cycle's budget once more, so the cycle ends within
                // about twice it: a member still running then stops, one not started yet
                // stops at once (their undecided sites are over budget, as past their own
                // time).
                let fixpoint = started.elapsed();
                let out = run_all(&scc.members, config.max_scc_time.map(|d| Instant::now() + d));
                (out, SccEnd::Time { fixpoint, total: started.elapsed() })
            }
        }
    };
    // Dependency-driven: an SCC starts as soon as the last SCC it calls has its summaries, not
    // when a whole level of the call graph is done. Each function's result depends only on the
    // summaries of its callees, which are final before it starts, so the output does not depend
    // on the order in which independent SCCs happen to run.
    let sched = Sched {
        graph: &graph,
        summaries: &summaries,
        check_scc: &check_scc,
        reuse,
        progress,
        pending: graph.pending.iter().map(|&n| AtomicUsize::new(n)).collect(),
        results: Mutex::new((0..program.functions.len()).map(|_| None).collect()),
        hits: Mutex::new(Vec::new()),
        run_deadline: config.run_deadline,
    };
    pool.install(|| {
        rayon::scope(|s| {
            for k in (0..graph.sccs.len()).filter(|&k| graph.pending[k] == 0) {
                let sched = &sched;
                s.spawn(move |s| run_scc(s, sched, k));
            }
        })
    });
    let mut hits = sched.hits.into_inner().unwrap_or_else(|e| e.into_inner());
    hits.sort_by_key(|h| h.0);
    let scc_budget_hits = hits.iter().filter(|h| h.1 == SccEnd::Rounds).count();
    // A cycle named by its first member, as `-v` and the notifications show it.
    let cycle = |k: usize, cost: Option<(Duration, Duration)>| {
        let members = &graph.sccs[k].members;
        let f = &program.functions[members[0]];
        let loc = at.src(f.loc);
        let others = match members.len() - 1 {
            0 => String::new(),
            1 => " and 1 other function".to_string(),
            n => format!(" and {n} other functions"),
        };
        let cost = cost.map_or(String::new(), |(fixpoint, total)| {
            format!(", stopped after {} ms ({} ms with the last pass)", ms(fixpoint), ms(total))
        });
        format!("{}:{}: the cycle of '{}'{others}{cost}", loc.file, loc.line, f.name)
    };
    let cycles_over_rounds: Vec<String> =
        hits.iter().filter(|h| h.1 == SccEnd::Rounds).map(|h| cycle(h.0, None)).collect();
    let cycles_over_time: Vec<String> = hits
        .iter()
        .filter_map(|h| match h.1 {
            SccEnd::Time { fixpoint, total } => Some(cycle(h.0, Some((fixpoint, total)))),
            _ => None,
        })
        .collect();
    let results = sched.results.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut out = AnalysisOutput {
        diagnostics: Vec::new(),
        internal_errors: Vec::new(),
        sources: 0,
        over_budget: 0,
        categories: BTreeMap::new(),
        sat_queries: 0,
        timings: Timings::default(),
        functions_analysed: 0,
        functions_irreducible: 0,
        sites_unknown_callee: 0,
        allocator_wrappers: summaries.iter().filter(|s| s.allocator || !s.out_fresh.is_empty()).count(),
        deallocator_wrappers: summaries.iter().filter(|s| s.is_deallocator()).count(),
        noreturn_functions: summaries.iter().filter(|s| s.noreturn).count(),
        summaries: summaries.iter().count(),
        recursive_sccs: graph.recursive_sccs,
        sccs: graph.sccs.len(),
        callgraph_depth: graph.depth,
        indirect_calls: graph.indirect_calls,
        unresolved_indirect: graph.unresolved_indirect,
        field_resolved_indirect: graph.field_resolved_indirect,
        var_resolved_indirect: graph.var_resolved_indirect,
        virtual_calls: graph.virtual_calls,
        virtual_resolved: graph.virtual_resolved,
        virtual_opaque_targeted: graph.virtual_opaque_targeted,
        undefined_functions: graph.undefined.clone(),
        opaque_cpp: graph.opaque_cpp.clone(),
        library_contracts: summaries.contract_kept(),
        allocators_library: 0,
        deallocators_library: 0,
        // Those of the configuration file: attributes describe the functions they are written
        // on, defined or not.
        declared_defined: summaries.declared_defined().into_iter().filter(|n| declared.in_config(n)).collect(),
        declared_unused: Vec::new(),
        timed_out_functions: Vec::new(),
        over_size_functions: Vec::new(),
        scc_budget_hits,
        cycles_over_rounds,
        cycles_over_time,
        functions_skipped: 0,
        functions_stopped: 0,
    };
    // Allocators by origin, and declarations that name nothing the program calls or defines.
    let called = summaries.library_rows_called();
    let is_declared = |l: &crate::libmodel::LibFn| declared.lookup(l.name).is_some_and(|d| std::ptr::eq(d, l));
    let allocates = |l: &crate::libmodel::LibFn| {
        matches!(l.ret, crate::libmodel::RetEffect::Fresh(_))
            || l.args.iter().any(|a| {
                matches!(a.1, crate::libmodel::ArgEffect::OutFresh(_) | crate::libmodel::ArgEffect::OutRealloc)
            })
    };
    out.allocators_library = called.iter().filter(|l| allocates(l) && !is_declared(l)).count();
    let frees = |l: &crate::libmodel::LibFn| l.args.iter().any(|a| a.1 == crate::libmodel::ArgEffect::Frees);
    out.deallocators_library = called.iter().filter(|l| frees(l) && !is_declared(l)).count();
    out.declared_unused = declared
        .names()
        .filter(|n| declared.in_config(n))
        .filter(|n| {
            !called.iter().any(|l| l.name == *n)
                && out.declared_defined.binary_search_by(|d| d.as_str().cmp(n)).is_err()
        })
        .map(str::to_string)
        .collect();
    // Per category, in `Category::ALL` order: summed here rather than in the map, which every
    // function would look each category up in.
    let mut categories = [0; Category::ALL.len()];
    let mut kept_in_globals: Vec<(String, Diagnostic)> = Vec::new();
    for (i, r) in results.into_iter().enumerate() {
        let Some(r) = r else { continue };
        match r {
            Ok(fr) if fr.cut == Cut::Skipped => out.functions_skipped += 1,
            Ok(fr) => {
                out.functions_stopped += usize::from(fr.cut == Cut::Stopped);
                if (fr.out.timed_out && fr.cut == Cut::No) || fr.out.over_size {
                    let f = &program.functions[i];
                    let loc = at.src(f.loc);
                    let named = format!("{}:{}: {}", loc.file, loc.line, f.name);
                    if fr.out.timed_out {
                        out.timed_out_functions.push(named);
                    } else {
                        out.over_size_functions.push(named);
                    }
                }
                let c = &fr.out.counts;
                out.functions_analysed += 1;
                out.functions_irreducible += usize::from(fr.out.irreducible);
                out.sources += c.sources;
                for (sum, n) in categories.iter_mut().zip(c.categories) {
                    *sum += n;
                }
                out.over_budget += c.over_budget;
                out.sat_queries += c.sat_queries;
                out.sites_unknown_callee += c.unknown_callee;
                out.timings.value_flow += fr.timings.value_flow;
                out.timings.sat += fr.timings.sat;
                out.diagnostics.extend(fr.out.diagnostics.into_iter().filter(|d| policy.shows(d)));
                kept_in_globals.extend(fr.out.kept_in_globals);
            }
            Err(msg) => out.internal_errors.push(msg),
        }
    }
    out.categories = Category::ALL.iter().map(|c| c.id()).zip(categories).collect();
    // Whole-program: only once every function's candidates and summaries are in.
    out.diagnostics.extend(crate::global_leaks::never_freed(program, &summaries, kept_in_globals));
    diag::sort(&mut out.diagnostics);
    // A function analysed once per group of programs (`link::resolve`) may find the same bug in
    // each: it is reported once.
    diag::dedup(&mut out.diagnostics);
    out.timed_out_functions.sort();
    out.over_size_functions.sort();
    out
}

/// Parameters of a recursive SCC's members that the flow-insensitive precheck finds escaping,
/// propagated through the members' calls to each other until nothing changes, written into their
/// provisional summaries. A full check finds the same (it runs the same precheck against the same
/// callee models, and "escapes" only grows as callees' parameters escape), so the fixpoint starts
/// from them instead of discovering them one caller per round: on SQLite's 923-function cycle
/// most re-checks were exactly that (4,335 checks of 3,771 functions before, 3,854 after).
/// Each round looks again only at the members that call one whose summary the last round
/// changed: the others would find what they found before, which is already written. What a
/// member's look needs besides its callee models is computed at its first look and kept (see
/// `Presolve`).
fn presolve_escapes(
    program: &Program,
    summaries: &Summaries,
    callees: &[Vec<usize>],
    members: &[usize],
    provisional: &mut HashMap<usize, Summary>,
    deadline: Option<Instant>,
) {
    let mut callers: HashMap<usize, Vec<usize>> = HashMap::new();
    for &i in members {
        for &c in callees[i].iter().filter(|c| members.binary_search(c).is_ok()) {
            callers.entry(c).or_default().push(i);
        }
    }
    let kept: Vec<std::sync::OnceLock<Presolve>> = members.iter().map(|_| std::sync::OnceLock::new()).collect();
    // "Escapes" only grows, so rounds that look at one snapshot of the provisional summaries (in
    // parallel) reach the same fixpoint as any sequential order.
    let mut dirty: Vec<usize> = members.to_vec();
    // Past the cycle's deadline the fixpoint is given up anyway (`solve_cycle`).
    while !dirty.is_empty() && !past(deadline) {
        let escaping: Vec<(usize, Vec<usize>)> = dirty
            .par_iter()
            .map(|&i| {
                let func = &program.functions[i];
                let pos = members.binary_search(&i).unwrap_or_default();
                let mut first = false;
                let kept = kept[pos].get_or_init(|| {
                    first = true;
                    Presolve::new(i, func, summaries, members, provisional)
                });
                let mut models = kept.models.lock().unwrap_or_else(|e| e.into_inner());
                if !first {
                    // Only calls that may reach a member can see another summary than last time.
                    for &s in &kept.inner {
                        models[s].take();
                    }
                }
                let model_of = |s: crate::ir::StmtId| model_at(&models, s.index(), i, func, summaries, provisional);
                let fates = fastcheck::flow_insensitive_params_reading(func, model_of, &kept.tracked, &kept.reading);
                let new: Vec<usize> = fates
                    .into_iter()
                    .enumerate()
                    .filter(|(k, f)| {
                        *f == Some(crate::summary::ParamFate::Escapes)
                            && provisional
                                .get(&i)
                                .is_some_and(|s| s.params.get(*k) == Some(&crate::summary::ParamFate::Reads))
                    })
                    .map(|(k, _)| k)
                    .collect();
                (i, new)
            })
            .collect();
        let mut next = Vec::new();
        for (i, params) in escaping {
            if let Some(summary) = provisional.get_mut(&i) {
                if !params.is_empty() {
                    next.extend(callers.get(&i).into_iter().flatten().copied());
                }
                for k in params {
                    summary.params[k] = crate::summary::ParamFate::Escapes;
                }
            }
        }
        next.sort_unstable();
        next.dedup();
        dirty = next;
    }
}

/// What `presolve_escapes` keeps of a member between its rounds. The rounds change only which
/// parameters of the members escape: which locals are tracked depends on the callees'
/// out-parameter allocations alone (the provisional summaries have none), which statements read
/// a local on the function alone, and only the models of calls that may reach a member can
/// change (every other callee's summary was final before the SCC started).
struct Presolve<'a> {
    tracked: Vec<bool>,
    reading: Vec<Vec<u32>>,
    /// The callee models the member's looks asked for, by statement, each made when first asked:
    /// a look asks only about the calls that its parameters' values reach, and those given an
    /// address.
    models: Mutex<Vec<std::cell::OnceCell<crate::summary::Model<'a>>>>,
    /// The call statements whose callee may be a member of the SCC.
    inner: Vec<usize>,
}

impl<'a> Presolve<'a> {
    fn new(
        index: usize,
        func: &'a crate::ir::Function,
        summaries: &'a Summaries,
        members: &[usize],
        provisional: &HashMap<usize, Summary>,
    ) -> Presolve<'a> {
        let models: Vec<std::cell::OnceCell<crate::summary::Model<'a>>> =
            func.stmts.iter().map(|_| std::cell::OnceCell::new()).collect();
        let tracked = cfg::tracked_locals(func, |si| model_at(&models, si, index, func, summaries, provisional));
        let inner = func
            .stmts
            .iter()
            .enumerate()
            .filter(|(si, s)| match s {
                crate::ir::Stmt::Call { callee, .. } => summaries
                    .possible_callees(callee, summaries.direct(index, *si))
                    .iter()
                    .any(|c| members.binary_search(c).is_ok()),
                crate::ir::Stmt::Assign { .. } => false,
            })
            .map(|(si, _)| si)
            .collect();
        Presolve { tracked, reading: fastcheck::statements_reading(func), models: Mutex::new(models), inner }
    }
}

/// The model of call statement `si` of member `index` (`None` for an assignment), made in `cells`
/// when first asked.
fn model_at<'c, 'a>(
    cells: &'c [std::cell::OnceCell<crate::summary::Model<'a>>],
    si: usize,
    index: usize,
    func: &'a crate::ir::Function,
    summaries: &'a Summaries,
    provisional: &HashMap<usize, Summary>,
) -> Option<&'c crate::summary::Model<'a>> {
    match &func.stmts[si] {
        crate::ir::Stmt::Call { callee, args, .. } => Some(cells[si].get_or_init(|| {
            let nonnull = summaries.nonnull.args(index, si);
            summaries.model(callee, summaries.direct(index, si), args, nonnull, func, provisional)
        })),
        crate::ir::Stmt::Assign { .. } => None,
    }
}

/// The summaries of a recursive SCC, by sweeps: each sweep checks the members whose callees in
/// the SCC changed, in index order as a sequential Gauss–Seidel pass would (a member sees the
/// summaries its callees with a smaller index got in the same sweep, and the earlier ones of the
/// others), and runs members in parallel as soon as those callees are done. What a member sees
/// is fixed by the sweep and the index order alone, so the result does not depend on the number
/// of threads. The next sweep holds the callers that saw an old summary of a member that
/// changed. `Err` when the fixpoint needs more than `budget` checks, or is not reached by
/// `deadline` (looked at before each member's check: no member starts past it).
#[allow(clippy::type_complexity)]
fn solve_cycle<F, S>(
    members: &[usize],
    callees: &[Vec<usize>],
    mut provisional: HashMap<usize, Summary>,
    budget: usize,
    deadline: Option<Instant>,
    check: &F,
    strip: &S,
) -> Result<Vec<(usize, Result<FnResult, String>)>, Stop>
where
    F: Fn(usize, &HashMap<usize, Summary>) -> Result<FnResult, String> + Sync,
    S: Fn(Summary) -> Summary + Sync,
{
    let in_scc = |i: &usize| members.binary_search(i).is_ok();
    let inner: HashMap<usize, Vec<usize>> =
        members.iter().map(|&i| (i, callees[i].iter().copied().filter(in_scc).collect())).collect();
    let mut callers: HashMap<usize, Vec<usize>> = HashMap::new();
    for (&i, cs) in &inner {
        for &c in cs {
            callers.entry(c).or_default().push(i);
        }
    }
    let mut last: HashMap<usize, Result<FnResult, String>> = HashMap::new();
    let mut dirty: Vec<usize> = members.to_vec();
    let mut checks = 0;
    while !dirty.is_empty() {
        checks += dirty.len();
        if checks > budget {
            return Err(Stop::Rounds);
        }
        let swept = sweep(&dirty, &inner, &provisional, deadline, check, strip);
        // A member past the deadline was not checked (and one running then stopped): this sweep
        // concluded nothing.
        if past(deadline) {
            return Err(Stop::Time);
        }
        let mut changed = Vec::new();
        for (i, (r, new)) in dirty.iter().copied().zip(swept) {
            if provisional.get(&i) != new.as_ref() {
                match new {
                    Some(s) => provisional.insert(i, s),
                    None => provisional.remove(&i),
                };
                changed.push(i);
            }
            last.insert(i, r);
        }
        // A caller saw the old summary of `j` if it was not checked in this sweep, or was
        // checked before `j` (or is `j` itself).
        let mut next = std::collections::BTreeSet::new();
        for j in changed {
            for &c in callers.get(&j).map(|v| v.as_slice()).unwrap_or(&[]) {
                if dirty.binary_search(&c).is_err() || c <= j {
                    next.insert(c);
                }
            }
        }
        dirty = next.into_iter().collect();
    }
    let mut out: Vec<(usize, Result<FnResult, String>)> = last.into_iter().collect();
    out.sort_by_key(|x| x.0);
    Ok(out)
}

/// Why `solve_cycle` gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Rounds,
    Time,
}

/// One sweep of `solve_cycle`: `dirty` (sorted) checked in dependency order, in parallel.
/// Returns each member's result and its summary as callers in the SCC see it.
fn sweep<F, S>(
    dirty: &[usize],
    inner: &HashMap<usize, Vec<usize>>,
    provisional: &HashMap<usize, Summary>,
    deadline: Option<Instant>,
    check: &F,
    strip: &S,
) -> Vec<Swept>
where
    F: Fn(usize, &HashMap<usize, Summary>) -> Result<FnResult, String> + Sync,
    S: Fn(Summary) -> Summary + Sync,
{
    let pos = |i: usize| dirty.binary_search(&i).ok();
    let mut pending: Vec<AtomicUsize> = Vec::with_capacity(dirty.len());
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); dirty.len()];
    for (k, &i) in dirty.iter().enumerate() {
        let mut n = 0;
        for &c in &inner[&i] {
            if let Some(pc) = pos(c).filter(|_| c < i) {
                after[pc].push(k);
                n += 1;
            }
        }
        pending.push(AtomicUsize::new(n));
    }
    let sw = Sweep {
        dirty,
        inner,
        provisional,
        deadline,
        check,
        strip,
        pending,
        after,
        results: (0..dirty.len()).map(|_| std::sync::OnceLock::new()).collect(),
    };
    // The members that wait for nobody, decided before the first one starts: once one runs, it
    // counts its callers down, and a caller it brings to zero is started by it; read then, the
    // live count would start that caller a second time, whose own callers would then be counted
    // down twice and start before their other callees are done (seeing no summary for them).
    let ready: Vec<bool> = sw.pending.iter().map(|p| p.load(Ordering::Relaxed) == 0).collect();
    rayon::scope(|s| {
        for (k, &ready) in ready.iter().enumerate() {
            #[cfg(test)]
            tests::BEFORE_START.with(|h| h.borrow().as_ref().map(|h| h(k)));
            if ready {
                let sw = &sw;
                s.spawn(move |s| sweep_member(s, sw, k));
            }
        }
    });
    sw.results.into_iter().map(|r| r.into_inner().unwrap_or_else(|| (Err("not checked".to_string()), None))).collect()
}

/// A member's check in a sweep, and its summary as its callers in the SCC see it.
type Swept = (Result<FnResult, String>, Option<Summary>);

struct Sweep<'a, F, S> {
    dirty: &'a [usize],
    inner: &'a HashMap<usize, Vec<usize>>,
    provisional: &'a HashMap<usize, Summary>,
    deadline: Option<Instant>,
    check: &'a F,
    strip: &'a S,
    pending: Vec<AtomicUsize>,
    after: Vec<Vec<usize>>,
    results: Vec<std::sync::OnceLock<Swept>>,
}

fn sweep_member<'s, F, S>(s: &rayon::Scope<'s>, sw: &'s Sweep<'s, F, S>, k: usize)
where
    F: Fn(usize, &HashMap<usize, Summary>) -> Result<FnResult, String> + Sync,
    S: Fn(Summary) -> Summary + Sync,
{
    let i = sw.dirty[k];
    // What this member sees of its callees in the SCC.
    let mut view: HashMap<usize, Summary> = HashMap::new();
    for &c in &sw.inner[&i] {
        let seen = match sw.dirty.binary_search(&c) {
            Ok(pc) if c < i => sw.results[pc].get().and_then(|r| r.1.clone()),
            _ => sw.provisional.get(&c).cloned(),
        };
        if let Some(summary) = seen {
            view.insert(c, summary);
        }
    }
    // Past the cycle's deadline a member is not checked; `solve_cycle` then gives the sweep up.
    let r = if past(sw.deadline) { Err("past the cycle's time budget".to_string()) } else { (sw.check)(i, &view) };
    let new = r.as_ref().ok().map(|fr| (sw.strip)(fr.out.summary.clone()));
    let _ = sw.results[k].set((r, new));
    // The results are written before the countdown: a member reaching zero sees them.
    for &next in &sw.after[k] {
        if sw.pending[next].fetch_sub(1, Ordering::AcqRel) == 1 {
            s.spawn(move |s| sweep_member(s, sw, next));
        }
    }
}

type SccResult = (Vec<(usize, Result<FnResult, String>)>, SccEnd);

/// What the SCC tasks share: the graph, the write-once summaries, and the countdown of unfinished
/// callee SCCs per SCC.
struct Sched<'a, F> {
    graph: &'a CallGraph,
    summaries: &'a Summaries,
    check_scc: &'a F,
    reuse: Option<&'a SccReuse<'a>>,
    progress: Option<&'a crate::progress::Progress>,
    pending: Vec<AtomicUsize>,
    results: Mutex<Vec<Option<Result<FnResult, String>>>>,
    /// The recursive SCCs whose fixpoint ran out of rounds (`true`) or time, by index, with the
    /// time a time hit took.
    hits: Mutex<Vec<(usize, SccEnd)>>,
    /// `Config::run_deadline`: past it, an SCC that is not reused is not checked.
    run_deadline: Option<Instant>,
}

fn run_scc<'s, F>(s: &rayon::Scope<'s>, sched: &'s Sched<'s, F>, k: usize)
where
    F: Fn(&Scc) -> SccResult + Sync,
{
    let scc = &sched.graph.sccs[k];
    // The cache (`reuse`): every callee summary is final here, so the key is too.
    let key = sched.reuse.and_then(|r| r.key(scc, sched.summaries, &sched.graph.called_from_outside));
    let reused = sched.reuse.zip(key).and_then(|(r, key)| r.lookup(key, scc));
    let (members, end) = match reused {
        Some((outcomes, hit)) => {
            let members = outcomes
                .into_iter()
                .map(|(i, out)| (i, Ok(FnResult { out, timings: Timings::default(), cut: Cut::No })))
                .collect();
            (members, if hit { SccEnd::Rounds } else { SccEnd::Done })
        }
        // Out of the run's time: nobody sees these functions' summaries (unknown callees).
        None if past(sched.run_deadline) => {
            (scc.members.iter().map(|&i| (i, Ok(FnResult::skipped()))).collect(), SccEnd::Done)
        }
        None => {
            let (members, end) = (sched.check_scc)(scc);
            if let Some(r) = sched.reuse {
                let outcomes: Vec<(usize, Option<&Outcome>)> =
                    members.iter().map(|(i, r)| (*i, r.as_ref().ok().map(|fr| &fr.out))).collect();
                // What a deadline cut short depends on the machine's speed: checked again next
                // time (`store` without a key only counts the check).
                let cut = matches!(end, SccEnd::Time { .. })
                    || members.iter().any(|(_, r)| r.as_ref().is_ok_and(|fr| fr.cut != Cut::No));
                r.store(key.filter(|_| !cut), scc, &outcomes, end == SccEnd::Rounds);
            }
            (members, end)
        }
    };
    if end != SccEnd::Done {
        sched.hits.lock().unwrap_or_else(|e| e.into_inner()).push((k, end));
    }
    if let Some(p) = sched.progress {
        let sites = members.iter().map(|(_, r)| r.as_ref().map_or(0, |fr| fr.out.counts.sources)).sum();
        p.functions_done(members.len(), sites);
    }
    {
        let mut results = sched.results.lock().unwrap_or_else(|e| e.into_inner());
        for (i, r) in members {
            if let Some(fr) = r.as_ref().ok().filter(|fr| fr.cut != Cut::Skipped) {
                sched.summaries.set(i, fr.out.summary.clone());
            }
            results[i] = Some(r);
        }
    }
    // The summaries are written before the countdown: a dependent that reaches zero sees them.
    for &d in &sched.graph.dependents[k] {
        if sched.pending[d].fetch_sub(1, Ordering::AcqRel) == 1 {
            s.spawn(move |s| run_scc(s, sched, d));
        }
    }
}

/// Findings of `rule` that are not suppressed.
pub fn count(diags: &[Diagnostic], rule: Rule) -> usize {
    diags.iter().filter(|d| d.rule == rule && d.suppression.is_none()).count()
}

pub fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::ParamFate;

    thread_local! {
        /// Called by `sweep` on the thread that starts a sweep's members, before it decides
        /// whether to start member `k` (position in the sweep): lets a test hold that decision
        /// back until other members have run.
        pub static BEFORE_START: std::cell::RefCell<Option<Box<dyn Fn(usize)>>> =
            const { std::cell::RefCell::new(None) };
    }

    /// A toy cycle: member 0 escapes its parameter by itself; every other member escapes it when
    /// a callee in the cycle does. The fixpoint has every member escaping.
    fn toy_check(i: usize, view: &HashMap<usize, Summary>, callees: &[Vec<usize>]) -> Result<FnResult, String> {
        let escapes =
            i == 0 || callees[i].iter().any(|c| view.get(c).is_some_and(|s| s.params[0] == ParamFate::Escapes));
        let mut summary = Summary::plain(1, false);
        if escapes {
            summary.params[0] = ParamFate::Escapes;
        }
        Ok(FnResult {
            out: Outcome {
                summary,
                diagnostics: Vec::new(),
                kept_in_globals: Vec::new(),
                counts: SiteCounts::default(),
                irreducible: false,
                timed_out: false,
                over_size: false,
            },
            timings: Timings::default(),
            cut: Cut::No,
        })
    }

    fn solve_with(threads: usize, callees: &[Vec<usize>], budget: usize) -> Option<Vec<(usize, ParamFate)>> {
        let members: Vec<usize> = (0..callees.len()).collect();
        let provisional: HashMap<usize, Summary> = members.iter().map(|&i| (i, Summary::plain(1, false))).collect();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let check = |i: usize, view: &HashMap<usize, Summary>| toy_check(i, view, callees);
        let out = pool.install(|| solve_cycle(&members, callees, provisional, budget, None, &check, &|s| s)).ok()?;
        Some(out.into_iter().map(|(i, r)| (i, r.expect("checked").out.summary.params[0])).collect())
    }

    #[test]
    fn a_cycle_reaches_the_same_fixpoint_whatever_the_thread_count() {
        // Each member calls the next lower one (and 0 calls 5), so "escapes" travels in index
        // order: members wait for their callees within the one sweep.
        let callees: Vec<Vec<usize>> = vec![vec![5], vec![0], vec![1], vec![2, 0], vec![3], vec![4]];
        let one = solve_with(1, &callees, 100).expect("converges");
        let four = solve_with(4, &callees, 100).expect("converges");
        assert_eq!(one, four);
        assert!(one.iter().all(|(_, f)| *f == ParamFate::Escapes), "{one:?}");
    }

    #[test]
    fn a_cycle_that_needs_more_checks_than_the_budget_gives_up() {
        // Callers come before callees in index order: each sweep moves "escapes" up by one.
        let callees: Vec<Vec<usize>> = vec![vec![5], vec![2], vec![3], vec![4], vec![5], vec![0, 1]];
        assert!(solve_with(2, &callees, 6).is_none(), "six members, one sweep of budget");
        assert!(solve_with(2, &callees, 100).is_some());
    }

    #[test]
    fn a_sweep_starts_each_member_once_after_its_callees_whatever_the_timing() {
        // 1 calls 0, 3 calls 1 and 2. The start of the sweep is held back before member 1 until
        // 1 has begun (its callee 0 done, which started it): the adverse order two threads can
        // take by chance, forced here. Member 1 must still run once, and 3 see both 1 and 2.
        let inner: HashMap<usize, Vec<usize>> = [(0, vec![]), (1, vec![0]), (2, vec![]), (3, vec![1, 2])].into();
        let dirty = [0, 1, 2, 3];
        let provisional: HashMap<usize, Summary> = dirty.iter().map(|&i| (i, Summary::plain(1, false))).collect();
        let runs: Vec<AtomicUsize> = dirty.iter().map(|_| AtomicUsize::new(0)).collect();
        let seen: Mutex<Vec<Vec<usize>>> = Mutex::new(vec![Vec::new(); dirty.len()]);
        let (started, wait) = std::sync::mpsc::channel::<usize>();
        let started = Mutex::new(started);
        let check = |i: usize, view: &HashMap<usize, Summary>| {
            runs[i].fetch_add(1, Ordering::SeqCst);
            let mut keys: Vec<usize> = view.keys().copied().collect();
            keys.sort_unstable();
            seen.lock().unwrap()[i] = keys;
            let _ = started.lock().unwrap().send(i);
            toy_check(i, view, &[vec![], vec![0], vec![], vec![1, 2]])
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
        let wait = std::sync::Arc::new(Mutex::new(wait));
        let out = pool.install(|| {
            let wait = wait.clone();
            BEFORE_START.with(|h| {
                *h.borrow_mut() = Some(Box::new(move |k| {
                    if k == 1 {
                        // Bounded, so a scheduler that never starts 1 fails below instead of hanging.
                        let deadline = std::time::Instant::now() + Duration::from_secs(20);
                        let rx = wait.lock().unwrap();
                        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
                            if rx.recv_timeout(left) == Ok(1) {
                                break;
                            }
                        }
                    }
                }))
            });
            let out = sweep(&dirty, &inner, &provisional, None, &check, &|s| s);
            BEFORE_START.with(|h| *h.borrow_mut() = None);
            out
        });
        let runs: Vec<usize> = runs.iter().map(|r| r.load(Ordering::SeqCst)).collect();
        assert_eq!(runs, vec![1, 1, 1, 1], "each member checked once in the sweep");
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen[3], vec![1, 2], "member 3 started before one of its callees was done");
        assert_eq!(seen[1], vec![0]);
        assert!(out.iter().all(|(r, s)| r.is_ok() && s.is_some()));
    }

    #[test]
    fn a_cycle_past_its_deadline_gives_up_without_starting_a_member() {
        let callees: Vec<Vec<usize>> = vec![vec![1], vec![0]];
        let members = [0, 1];
        let provisional: HashMap<usize, Summary> = members.iter().map(|&i| (i, Summary::plain(1, false))).collect();
        let checked = AtomicUsize::new(0);
        let check = |i: usize, view: &HashMap<usize, Summary>| {
            checked.fetch_add(1, Ordering::SeqCst);
            toy_check(i, view, &callees)
        };
        let now = Some(Instant::now());
        let r = solve_cycle(&members, &callees, provisional.clone(), 100, now, &check, &|s| s);
        assert_eq!(r.err(), Some(Stop::Time));
        assert_eq!(checked.load(Ordering::SeqCst), 0);
        let later = Some(Instant::now() + Duration::from_secs(600));
        assert!(solve_cycle(&members, &callees, provisional, 100, later, &check, &|s| s).is_ok());
    }
}
