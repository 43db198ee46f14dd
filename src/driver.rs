//! The analysis driver: checks every function of a frozen `Program` in parallel.
//!
//! Input: `&Program`, the check `Config`, the reporting `Policy`, a thread count.
//! Output: sorted `Diagnostic`s, per-run `Stats`, and internal errors (one per function whose
//! check panicked).
//! Invariants: functions are checked bottom-up over the call graph's SCCs, each once, inside
//! `catch_unwind`, so one bad function becomes a message and the run goes on; results are
//! collected in function order and then sorted, so output never depends on the thread count.

use crate::callgraph::{self, CallGraph, Scc};
use crate::cfg::{self, FnCx};
use crate::summary::{Summaries, Summary};
use crate::checkers::{self, Locator, Policy};
use crate::diag::{self, Category, Diagnostic, Rule};
use crate::fastcheck::{self, Config, SiteVerdict, Timings};
use crate::ir::{Function, Program};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use hashbrown::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

#[derive(Debug, Default, Serialize)]
pub struct Stats {
    pub tus_total: usize,
    pub tus_parsed: usize,
    pub tus_failed: usize,
    pub tus_with_errors: usize,
    pub parse_errors: usize,
    pub entries_skipped_non_c: usize,
    pub entries_duplicate: usize,
    pub functions: usize,
    pub functions_analysed: usize,
    pub functions_failed: usize,
    pub functions_with_lowering_notes: usize,
    /// Allocation sources (malloc-like call sites), FastCheck's "Sources" column.
    pub sources: usize,
    pub sites_over_budget: usize,
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
    /// Allocation sites per category (FastCheck Table 1, "messages by category").
    pub categories: BTreeMap<&'static str, usize>,
    pub findings_leak: usize,
    pub findings_double_free: usize,
    pub sat_queries: u64,
    pub time_ms: PhaseTimes,
}

#[derive(Debug, Default, Serialize)]
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
}

struct FnResult {
    verdicts: Vec<SiteVerdict>,
    diagnostics: Vec<Diagnostic>,
    timings: Timings,
    irreducible: bool,
    summary: Summary,
}

pub fn analyze(program: &Program, config: &Config, policy: &Policy, at: &Locator, pool: &rayon::ThreadPool) -> AnalysisOutput {
    let summaries = Summaries::new(program);
    let graph = callgraph::build(program, &summaries);
    let check = |func: &Function, provisional: &HashMap<usize, Summary>| -> Result<FnResult, String> {
        let run = || {
            let models = cfg::call_models(func, &summaries, provisional);
            // The flow-insensitive prechecks decide most functions: no allocation, and nothing
            // below or in a parameter that only a path-sensitive pass can classify.
            let cx = FnCx::prepare(func, models);
            if let Some(summary) = fastcheck::summarize_without_flow(&cx) {
                return FnResult {
                    verdicts: Vec::new(),
                    diagnostics: Vec::new(),
                    timings: Timings::default(),
                    irreducible: false,
                    summary,
                };
            }
            let cx = cx.complete();
            let mut timings = Timings::default();
            let verdicts = fastcheck::check_function(&cx, config, func.name == "main", &mut timings);
            let diagnostics = checkers::diagnostics(&cx, &verdicts, policy, at, &summaries);
            let started = std::time::Instant::now();
            let summary = fastcheck::summarize(&cx, config, &verdicts);
            timings.value_flow += started.elapsed();
            FnResult { verdicts, diagnostics, timings, irreducible: cx.dag.dropped_edges > 0, summary }
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
    // A recursive SCC is solved with a worklist from an optimistic start (members only read
    // their arguments and allocate nothing): a member whose summary changes puts its callers in the
    // SCC back on the list. If the budget (`max_scc_rounds` checks per member) runs out first, a
    // last pass checks every member against unknown callees instead, so an unfinished fixpoint
    // costs precision, never a false "freed". The worklist is sequential; other SCCs run in
    // parallel.
    let check_scc = |scc: &Scc| -> SccResult {
        let run_all = |members: &[usize], provisional: &HashMap<usize, Summary>| -> Vec<(usize, Result<FnResult, String>)> {
            members.par_iter().map(|&i| (i, check(&program.functions[i], provisional))).collect()
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
            .map(|&i| (i, without_heap(Summary::plain(program.functions[i].n_params as usize, false))))
            .collect();
        presolve_escapes(program, &summaries, &scc.members, &mut provisional);
        let in_scc = |i: &usize| scc.members.binary_search(i).is_ok();
        let mut callers: HashMap<usize, Vec<usize>> = HashMap::new();
        for &i in &scc.members {
            for c in graph.callees[i].iter().filter(|c| in_scc(c)) {
                callers.entry(*c).or_default().push(i);
            }
        }
        let mut last: HashMap<usize, Result<FnResult, String>> = HashMap::new();
        let mut queue: std::collections::VecDeque<usize> = scc.members.iter().copied().collect();
        let mut queued: hashbrown::HashSet<usize> = scc.members.iter().copied().collect();
        let mut budget = config.max_scc_rounds.max(1) * scc.members.len();
        while let Some(i) = queue.pop_front() {
            if budget == 0 {
                return (run_all(&scc.members, &HashMap::new()), true);
            }
            budget -= 1;
            queued.remove(&i);
            let r = check(&program.functions[i], &provisional);
            let new = r.as_ref().ok().map(|fr| without_heap(fr.summary.clone()));
            if provisional.get(&i) != new.as_ref() {
                match new {
                    Some(s) => provisional.insert(i, s),
                    None => provisional.remove(&i),
                };
                for c in callers.get(&i).map(|v| v.as_slice()).unwrap_or(&[]) {
                    if queued.insert(*c) {
                        queue.push_back(*c);
                    }
                }
            }
            last.insert(i, r);
        }
        let mut out: Vec<(usize, Result<FnResult, String>)> = last.into_iter().collect();
        out.sort_by_key(|x| x.0);
        (out, false)
    };
    // Dependency-driven: an SCC starts as soon as the last SCC it calls has its summaries, not
    // when a whole level of the call graph is done. Each function's result depends only on the
    // summaries of its callees, which are final before it starts, so the output does not depend
    // on the order in which independent SCCs happen to run.
    let sched = Sched {
        graph: &graph,
        summaries: &summaries,
        check_scc: &check_scc,
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
        categories: Category::ALL.iter().map(|c| (c.id(), 0)).collect(),
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
        scc_budget_hits,
    };
    for r in results.into_iter().flatten() {
        match r {
            Ok(fr) => {
                out.functions_analysed += 1;
                out.functions_irreducible += usize::from(fr.irreducible);
                for v in &fr.verdicts {
                    out.sources += 1;
                    *out.categories.entry(v.category.id()).or_default() += 1;
                    if v.category == Category::OverBudget {
                        out.over_budget += 1;
                    }
                    out.sat_queries += u64::from(v.sat_queries);
                    if v.escapes.iter().any(|e| matches!(e, crate::fastcheck::EscapeKind::UnknownCallee(_))) {
                        out.sites_unknown_callee += 1;
                    }
                }
                out.timings.value_flow += fr.timings.value_flow;
                out.timings.sat += fr.timings.sat;
                out.diagnostics.extend(fr.diagnostics);
            }
            Err(msg) => out.internal_errors.push(msg),
        }
    }
    diag::sort(&mut out.diagnostics);
    out
}

/// Parameters of a recursive SCC's members that the flow-insensitive precheck finds escaping,
/// propagated through the members' calls to each other until nothing changes, written into their
/// provisional summaries. A full check finds the same (it runs the same precheck against the same
/// callee models, and "escapes" only grows as callees' parameters escape), so the worklist starts
/// from them instead of discovering them one caller per round: on SQLite's 923-function cycle
/// most re-checks were exactly that.
fn presolve_escapes(program: &Program, summaries: &Summaries, members: &[usize], provisional: &mut HashMap<usize, Summary>) {
    loop {
        let mut changed = false;
        for &i in members {
            let func = &program.functions[i];
            let models = cfg::call_models(func, summaries, provisional);
            let tracked = cfg::tracked_locals(func, &models);
            let fates = fastcheck::flow_insensitive_params(func, |s| models.get(s.index()).and_then(|m| m.as_ref()), &tracked);
            let Some(summary) = provisional.get_mut(&i) else { continue };
            for (k, fate) in fates.into_iter().enumerate() {
                if fate == Some(crate::summary::ParamFate::Escapes) && summary.params.get(k) == Some(&crate::summary::ParamFate::Reads) {
                    summary.params[k] = crate::summary::ParamFate::Escapes;
                    changed = true;
                }
            }
        }
        if !changed {
            return;
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
    pending: Vec<AtomicUsize>,
    results: Mutex<Vec<Option<Result<FnResult, String>>>>,
    budget_hits: AtomicUsize,
}

fn run_scc<'s, F>(s: &rayon::Scope<'s>, sched: &'s Sched<'s, F>, k: usize)
where
    F: Fn(&Scc) -> SccResult + Sync,
{
    let (members, hit) = (sched.check_scc)(&sched.graph.sccs[k]);
    sched.budget_hits.fetch_add(usize::from(hit), Ordering::Relaxed);
    {
        let mut results = sched.results.lock().unwrap_or_else(|e| e.into_inner());
        for (i, r) in members {
            if let Ok(fr) = &r {
                sched.summaries.set(i, fr.summary.clone());
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

pub fn count(diags: &[Diagnostic], rule: Rule) -> usize {
    diags.iter().filter(|d| d.rule == rule).count()
}

pub fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}
