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
//! check's, and they are exactly what the check would produce (see `reuse`).

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
use std::time::Duration;

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
    pub indirect_calls: usize,
    /// Indirect calls with no possible target (no address-taken function of their type, or a
    /// field given only functions defined nowhere): unknown callees.
    pub unresolved_indirect: usize,
    /// Indirect calls through a function-pointer field whose targets are the functions stored
    /// into it.
    pub field_resolved_indirect: usize,
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
    /// Recursive SCCs whose summaries had not converged when the round budget ran out.
    pub scc_budget_hits: usize,
    /// Called but defined nowhere and not in the library model: unknown callees.
    pub undefined_functions: Vec<String>,
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
}

struct FnResult {
    out: Outcome,
    timings: Timings,
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
    let check = |i: usize, provisional: &HashMap<usize, Summary>| -> Result<FnResult, String> {
        let func = &program.functions[i];
        let heap_needed = graph.called_from_outside[i];
        let run = || {
            if panic_in.as_deref() == Some(func.name.as_str()) {
                panic!("DRIP_DEBUG_PANIC_IN asked for a panic here");
            }
            // One budget for every phase of this function's check, from here on.
            let deadline = config.max_function_time.map(|d| std::time::Instant::now() + d);
            let budget = std::sync::Arc::new(crate::budget::Budget::new(deadline, config.max_function_bytes));
            let models = crate::summary::call_models(i, func, &summaries, provisional);
            // The flow-insensitive prechecks decide most functions: no allocation, and nothing
            // below or in a parameter that only a path-sensitive pass can classify.
            let mut cx = fastcheck::CheckCx::prepare(func, models);
            cx.budget = budget;
            cx.fixed_globals = Some(&summaries.fixed_globals);
            cx.unaliased_globals = Some(&summaries.unaliased_globals);
            cx.address_taken_globals = Some(&summaries.address_taken_globals);
            if let Some(summary) = fastcheck::summarize_without_flow(&cx, heap_needed) {
                return FnResult {
                    out: Outcome {
                        summary,
                        diagnostics: Vec::new(),
                        counts: SiteCounts::default(),
                        irreducible: false,
                        timed_out: false,
                        over_size: false,
                    },
                    timings: Timings::default(),
                };
            }
            let cx = cx.complete();
            let mut timings = Timings::default();
            let verdicts = fastcheck::check_function(&cx, config, func.name == "main", &mut timings);
            let mut diagnostics = checkers::diagnostics(&cx, &verdicts, policy, at, &summaries);
            let started = std::time::Instant::now();
            let (summary, param_double_frees) = fastcheck::summarize(&cx, config, &verdicts, heap_needed);
            timings.value_flow += started.elapsed();
            diagnostics.extend(checkers::param_diagnostics(&cx, &param_double_frees, at));
            let out = Outcome {
                summary,
                diagnostics,
                counts: SiteCounts::of(&verdicts),
                irreducible: cx.dag.dropped_edges > 0,
                timed_out: cx.budget.hit() == Some(crate::budget::Hit::Time),
                over_size: cx.budget.hit() == Some(crate::budget::Hit::Size),
            };
            FnResult { out, timings }
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
        let written =
            crate::summary::globals_written_of_scc(program, &summaries, &scc.members, &summaries.address_taken_globals);
        let check = |i: usize, provisional: &HashMap<usize, Summary>| {
            check(i, provisional).map(|mut fr| {
                fr.out.summary.globals_written = written.clone();
                fr
            })
        };
        let run_all =
            |members: &[usize], provisional: &HashMap<usize, Summary>| -> Vec<(usize, Result<FnResult, String>)> {
                members.par_iter().map(|&i| (i, check(i, provisional))).collect()
            };
        if !scc.recursive {
            return (run_all(&scc.members, &HashMap::new()), false);
        }
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
                (i, without_heap(s))
            })
            .collect();
        presolve_escapes(program, &summaries, &graph.callees, &scc.members, &mut provisional);
        let budget = config.max_scc_rounds.max(1) * scc.members.len();
        let by_index = |i: usize, view: &HashMap<usize, Summary>| check(i, view);
        match solve_cycle(&scc.members, &graph.callees, provisional, budget, &by_index, &without_heap) {
            Some(out) => (out, false),
            None => (run_all(&scc.members, &HashMap::new()), true),
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
        budget_hits: AtomicUsize::new(0),
    };
    pool.install(|| {
        rayon::scope(|s| {
            for k in (0..graph.sccs.len()).filter(|&k| graph.pending[k] == 0) {
                let sched = &sched;
                s.spawn(move |s| run_scc(s, sched, k));
            }
        })
    });
    let scc_budget_hits = sched.budget_hits.load(Ordering::Relaxed);
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
        undefined_functions: graph.undefined.clone(),
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
    for (i, r) in results.into_iter().enumerate() {
        let Some(r) = r else { continue };
        match r {
            Ok(fr) => {
                if fr.out.timed_out || fr.out.over_size {
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
                out.diagnostics.extend(fr.out.diagnostics);
            }
            Err(msg) => out.internal_errors.push(msg),
        }
    }
    out.categories = Category::ALL.iter().map(|c| c.id()).zip(categories).collect();
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
    while !dirty.is_empty() {
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
        crate::ir::Stmt::Call { callee, args, .. } => Some(
            cells[si].get_or_init(|| summaries.model(callee, summaries.direct(index, si), args, func, provisional)),
        ),
        crate::ir::Stmt::Assign { .. } => None,
    }
}

/// The summaries of a recursive SCC, by sweeps: each sweep checks the members whose callees in
/// the SCC changed, in index order as a sequential Gauss–Seidel pass would (a member sees the
/// summaries its callees with a smaller index got in the same sweep, and the earlier ones of the
/// others), and runs members in parallel as soon as those callees are done. What a member sees
/// is fixed by the sweep and the index order alone, so the result does not depend on the number
/// of threads. The next sweep holds the callers that saw an old summary of a member that
/// changed. `None` when the fixpoint needs more than `budget` checks.
fn solve_cycle<F, S>(
    members: &[usize],
    callees: &[Vec<usize>],
    mut provisional: HashMap<usize, Summary>,
    budget: usize,
    check: &F,
    strip: &S,
) -> Option<Vec<(usize, Result<FnResult, String>)>>
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
            return None;
        }
        let swept = sweep(&dirty, &inner, &provisional, check, strip);
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
    Some(out)
}

/// One sweep of `solve_cycle`: `dirty` (sorted) checked in dependency order, in parallel.
/// Returns each member's result and its summary as callers in the SCC see it.
fn sweep<F, S>(
    dirty: &[usize],
    inner: &HashMap<usize, Vec<usize>>,
    provisional: &HashMap<usize, Summary>,
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
        check,
        strip,
        pending,
        after,
        results: (0..dirty.len()).map(|_| std::sync::OnceLock::new()).collect(),
    };
    rayon::scope(|s| {
        for k in 0..dirty.len() {
            if sw.pending[k].load(Ordering::Relaxed) == 0 {
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
    let r = (sw.check)(i, &view);
    let new = r.as_ref().ok().map(|fr| (sw.strip)(fr.out.summary.clone()));
    let _ = sw.results[k].set((r, new));
    // The results are written before the countdown: a member reaching zero sees them.
    for &next in &sw.after[k] {
        if sw.pending[next].fetch_sub(1, Ordering::AcqRel) == 1 {
            s.spawn(move |s| sweep_member(s, sw, next));
        }
    }
}

type SccResult = (Vec<(usize, Result<FnResult, String>)>, bool);

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
    budget_hits: AtomicUsize,
}

fn run_scc<'s, F>(s: &rayon::Scope<'s>, sched: &'s Sched<'s, F>, k: usize)
where
    F: Fn(&Scc) -> SccResult + Sync,
{
    let scc = &sched.graph.sccs[k];
    // The cache (`reuse`): every callee summary is final here, so the key is too.
    let key = sched.reuse.and_then(|r| r.key(scc, sched.summaries, &sched.graph.called_from_outside));
    let reused = sched.reuse.zip(key).and_then(|(r, key)| r.lookup(key, scc));
    let (members, hit) = match reused {
        Some((outcomes, hit)) => {
            let members =
                outcomes.into_iter().map(|(i, out)| (i, Ok(FnResult { out, timings: Timings::default() }))).collect();
            (members, hit)
        }
        None => {
            let (members, hit) = (sched.check_scc)(scc);
            if let Some(r) = sched.reuse {
                let outcomes: Vec<(usize, Option<&Outcome>)> =
                    members.iter().map(|(i, r)| (*i, r.as_ref().ok().map(|fr| &fr.out))).collect();
                r.store(key, scc, &outcomes, hit);
            }
            (members, hit)
        }
    };
    sched.budget_hits.fetch_add(usize::from(hit), Ordering::Relaxed);
    if let Some(p) = sched.progress {
        let sites = members.iter().map(|(_, r)| r.as_ref().map_or(0, |fr| fr.out.counts.sources)).sum();
        p.functions_done(members.len(), sites);
    }
    {
        let mut results = sched.results.lock().unwrap_or_else(|e| e.into_inner());
        for (i, r) in members {
            if let Ok(fr) = &r {
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
                counts: SiteCounts::default(),
                irreducible: false,
                timed_out: false,
                over_size: false,
            },
            timings: Timings::default(),
        })
    }

    fn solve_with(threads: usize, callees: &[Vec<usize>], budget: usize) -> Option<Vec<(usize, ParamFate)>> {
        let members: Vec<usize> = (0..callees.len()).collect();
        let provisional: HashMap<usize, Summary> = members.iter().map(|&i| (i, Summary::plain(1, false))).collect();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let check = |i: usize, view: &HashMap<usize, Summary>| toy_check(i, view, callees);
        let out = pool.install(|| solve_cycle(&members, callees, provisional, budget, &check, &|s| s))?;
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
}
