//! The analysis driver: checks every function of a frozen `Program` in parallel.
//!
//! Input: `&Program`, the check `Config`, the reporting `Policy`, a thread count.
//! Output: sorted `Diagnostic`s, per-run `Stats`, and internal errors (one per function whose
//! check panicked).
//! Invariants: functions are independent in this version (intraprocedural), each checked once
//! inside `catch_unwind`, so one bad function becomes a message and the run goes on; results are
//! collected in function order and then sorted, so output never depends on the thread count.

use crate::cfg::FnCx;
use crate::checkers::{self, Locator, Policy};
use crate::diag::{self, Category, Diagnostic, Rule};
use crate::fastcheck::{self, Config, SiteVerdict, Timings};
use crate::ir::Program;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
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
    /// Wall-clock time of the whole run.
    pub wall: u64,
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
}

struct FnResult {
    verdicts: Vec<SiteVerdict>,
    diagnostics: Vec<Diagnostic>,
    timings: Timings,
    irreducible: bool,
}

pub fn analyze(program: &Program, config: &Config, policy: &Policy, at: &Locator, pool: &rayon::ThreadPool) -> AnalysisOutput {
    let results: Vec<Result<FnResult, String>> = pool.install(|| {
        program
            .functions
            .par_iter()
            .map(|func| {
                let run = || {
                    // Most functions allocate nothing: skip building their CFG views.
                    if !func.stmts.iter().any(|s| crate::cfg::source_success(s).is_some()) {
                        return FnResult {
                            verdicts: Vec::new(),
                            diagnostics: Vec::new(),
                            timings: Timings::default(),
                            irreducible: false,
                        };
                    }
                    let cx = FnCx::new(func);
                    let mut timings = Timings::default();
                    let verdicts = fastcheck::check_function(&cx, config, func.name == "main", &mut timings);
                    let diagnostics = checkers::diagnostics(&cx, &verdicts, policy, at);
                    FnResult { verdicts, diagnostics, timings, irreducible: cx.dag.dropped_edges > 0 }
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
            })
            .collect()
    });
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
    };
    for r in results {
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

pub fn count(diags: &[Diagnostic], rule: Rule) -> usize {
    diags.iter().filter(|d| d.rule == rule).count()
}

pub fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}
