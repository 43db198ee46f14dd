//! Summarising one function for its callers: what it does to its parameters and to the paths
//! below them, what it returns, and whether it returns at all.
//!
//! Input: a `CheckCx` and, for `summarize`, the function's own `SiteVerdict`s. Output: the
//! function's `Summary` (and the parameters it may free twice), or, from the flow-insensitive
//! prechecks alone, `summarize_without_flow`'s `Summary` or `None` when a pass is needed.
//! Invariants:
//! - The flow-insensitive prechecks (`flow_insensitive_params*`, `param_use`, `path_precheck`)
//!   only answer where no path-sensitive pass could answer better; otherwise they say "needs
//!   flow" and a pass from the entry (`flow`) decides.
//! - A fate is never more hopeful than the code: where the analysis cannot tell whether a
//!   parameter is freed, it says `Escapes`, never "freed".
//! - A pass over its budget gives `Escapes` for that parameter or path: the caller then assumes
//!   nothing, and the next pass starts with the budget reset.

use super::flow::{copied_slots, flow, m_values, walk, Event, EventKind, Globals, WalkGoal};
use super::{CheckCx, Config, HandTo, HeapPath, ParamDoubleFree, SiteVerdict, Step};
use crate::cfg::{DagNode, EdgeLabel, Key};
use crate::guard::{AtomId, GuardId, Guards};
use crate::ir::{Callee, CondKind, Function, LocalId, Operand, Place, Rvalue, Stmt, StmtId, Terminator};
use crate::libmodel::{ArgEffect, Family};
use crate::sat::{Answer, Solver};
use crate::summary::{AllocOrigin, Held, ParamFate, PathFate, Summary};

/// The summary of a checked function: allocator if some site's cell is returned; for each
/// pointer parameter, what the function does with a cell passed there (a forward pass from the
/// entry with the parameter holding the cell); noreturn if no path returns.
/// `heap_needed`: whether any caller will read the heap effects (`CallGraph::called_from_outside`);
/// without one they are left unknown (every path below a parameter escapes), which is what a
/// caller would assume, and the most expensive part of a summary is not computed for nobody.
/// Also returns the parameters freed twice on one of its paths (`ParamDoubleFree`).
pub fn summarize(
    cx: &CheckCx,
    config: &Config,
    verdicts: &[SiteVerdict],
    heap_needed: bool,
) -> (Summary, Vec<ParamDoubleFree>) {
    let func = cx.func;
    let mut params = Vec::with_capacity(func.n_params as usize);
    let mut param_double_frees = Vec::new();
    // The facts' statement effects, built for the first parameter that needs them.
    let mut followed: Option<crate::facts::Followed> = None;
    let mut returns_param = None;
    let mut ret_success = None;
    let mut freed_and_stored: Vec<usize> = Vec::new();
    // The arena and solver of the parameters' passes, made for the first parameter the prechecks
    // leave undecided (most functions have none).
    let mut pass: Option<(Guards, Solver)> = None;
    // The families of the deallocators the parameters' passes reach (`Summary::free_family`).
    let mut free_families: Vec<Option<crate::libmodel::Family>> = Vec::new();
    let ret_addr = crate::interior::returned_address(func, &cx.addr_temps);
    for ((i, p), pre) in func.params().enumerate().zip(cx.prechecked_params()) {
        if let Some(fate) = *pre {
            params.push(fate);
            continue;
        }
        let (guards, solver) = pass.get_or_insert_with(|| new_pass(cx, config));
        let mut rets = Vec::new();
        let events = flow(
            cx,
            guards,
            DagNode(func.entry.0),
            0,
            Key::local(p),
            None,
            Some(&mut rets),
            false,
            None,
            None,
            Globals::Escape,
        );
        if guards.over_budget() {
            guards.reset_budget();
            params.push(ParamFate::Escapes);
            continue;
        }
        if let Some(steps) = param_freed_twice(cx, guards, solver, &mut followed, p, &events) {
            param_double_frees.push(ParamDoubleFree { param: p, steps });
        }
        let mut freed = GuardId::FALSE;
        let mut freed_or_ended = GuardId::FALSE;
        let mut escaped = GuardId::FALSE;
        // Escapes other than stores below parameters.
        let mut escaped_else = GuardId::FALSE;
        let mut returned = false;
        for e in &events {
            match e.kind {
                // Stored into the caller's `*out`: the caller no longer owns it as `p`.
                EventKind::Stored { .. } => escaped = guards.or(escaped, e.guard),
                EventKind::Escape(_) | EventKind::Inside(_) | EventKind::ReturnedIn(_) => {
                    escaped = guards.or(escaped, e.guard);
                    escaped_else = guards.or(escaped_else, e.guard);
                }
                EventKind::FreedAgain => {
                    freed = guards.or(freed, e.guard);
                    freed_or_ended = guards.or(freed_or_ended, e.guard);
                }
                EventKind::Free(by) => {
                    free_families.push(by.map(|b| b.1));
                    freed = guards.or(freed, e.guard);
                    freed_or_ended = guards.or(freed_or_ended, e.guard);
                }
                EventKind::Exit => freed_or_ended = guards.or(freed_or_ended, e.guard),
                EventKind::Return => returned = true,
                EventKind::Kept => {}
            }
        }
        let fate = if guards.over_budget() {
            guards.reset_budget();
            ParamFate::Escapes
        } else if freed != GuardId::FALSE
            && escaped != GuardId::FALSE
            && escaped_else == GuardId::FALSE
            && !returned
            && matches!(solver.check(guards, &[(freed_or_ended, false)]), Answer::Unsat)
        {
            // Freed on every path and stored below another parameter, dangling (`free(p); *out
            // = p;`): freed for the caller, whose `*out` names the freed block if the store is a
            // move (`alias::writes`, checked below).
            freed_and_stored.push(i);
            ParamFate::Frees
        } else if freed != GuardId::FALSE {
            free_fate(cx, guards, solver, p, freed, freed_or_ended, escaped, &rets, &mut ret_success)
        } else if escaped != GuardId::FALSE {
            ParamFate::Escapes
        } else {
            ParamFate::Reads
        };
        // The summary names one returned parameter. Another one that may be returned too
        // (`return x ? x : y`) is handed back in a way callers cannot follow: it escapes. A
        // parameter that is kept is not also an alias the caller gets back; one freed on every
        // path is, dangling (`q = consume (p); free (q);` frees it twice).
        let fate = match (returned, fate) {
            // Handed back as an address inside its object on some path (`return &o->one;`)
            // and as something else on others (`return o->many;`): no single `ret_addr` says
            // where the result points, and it is not the object itself (freeing it is not
            // freeing the object): the object escapes.
            (true, _) if ret_addr.is_none() && returns_interior(func, &cx.addr_temps, p) => ParamFate::Escapes,
            (true, ParamFate::Reads | ParamFate::Frees) if returns_param.is_none() => {
                returns_param = Some(i);
                fate
            }
            // Returned only where it is reallocated in place (`realloc_fate`): the caller sees
            // a realloc, which may hand back the same block too.
            (true, ParamFate::Reallocs { .. }) => fate,
            (true, _) => ParamFate::Escapes,
            (false, f) => f,
        };
        params.push(fate);
    }
    cx.note_timeout(pass.as_ref().is_some_and(|(g, _)| g.timed_out()));
    // A returned cell that is also stored somewhere (linked into a parent, registered in a
    // table) is shared, not handed over: the function is not an allocator for its callers.
    let fresh_returns: Vec<&SiteVerdict> =
        verdicts.iter().filter(|v| v.returned && !v.shared && v.escapes.is_empty()).collect();
    let allocator = !fresh_returns.is_empty();
    let origin = fresh_returns.first().and_then(|v| match func.stmt(v.stmt) {
        Stmt::Call { callee: Callee::Direct { usr, .. }, .. } => {
            Some(AllocOrigin { loc: func.stmt_loc(v.stmt), allocator: v.allocator.clone(), usr: usr.clone() })
        }
        _ => None,
    });
    // Hands fresh cells back through out-parameters or inside its result: one success notion
    // per place, and one for the whole call (the return value is one value).
    // By place (a function filling a large structure hands over thousands): `None` where
    // two sites disagree.
    let mut by_place: std::collections::BTreeMap<HandTo, Option<crate::libmodel::Success>> =
        std::collections::BTreeMap::new();
    for (to, s) in verdicts.iter().filter_map(|v| v.handed.clone()) {
        let agreed = by_place.entry(to).or_insert(Some(s));
        if *agreed != Some(s) {
            *agreed = None;
        }
    }
    let mut handed: Vec<(HandTo, crate::libmodel::Success)> =
        by_place.into_iter().filter_map(|(to, s)| Some((to, s?))).collect();
    let out_success: Vec<crate::libmodel::Success> =
        handed.iter().filter(|h| matches!(h.0, HandTo::Param(..))).map(|h| h.1).collect();
    if out_success.windows(2).any(|w| w[0] != w[1]) || out_success.iter().any(|o| ret_success.is_some_and(|r| r != *o))
    {
        handed.retain(|h| !matches!(h.0, HandTo::Param(..)));
    }
    let out_fresh: Vec<(usize, std::sync::Arc<str>, crate::libmodel::Success)> = handed
        .iter()
        .filter_map(|(to, s)| match to {
            HandTo::Param(i, path) => Some((*i, path.clone(), *s)),
            HandTo::Result(_) => None,
        })
        .collect();
    // Fields of the result only mean something when the function is an allocator. Each holds
    // its cell always, or only under one flag test all the sites stored there share
    // (`SiteVerdict::handed_if`): a field two sites fill under different tests is left out.
    let mut ret_cond: std::collections::BTreeMap<std::sync::Arc<str>, Option<Option<(usize, i64, bool)>>> =
        std::collections::BTreeMap::new();
    for v in verdicts {
        let Some((HandTo::Result(path), _)) = &v.handed else { continue };
        let cond = v.handed_if.first().copied();
        let agreed = ret_cond.entry(path.clone()).or_insert(Some(cond));
        if *agreed != Some(cond) {
            *agreed = None;
        }
    }
    let ret_fresh: Vec<std::sync::Arc<str>> = handed
        .iter()
        .filter_map(|(to, _)| match to {
            HandTo::Result(path) if ret_cond.get(path) == Some(&Some(None)) => Some(path.clone()),
            _ => None,
        })
        .collect();
    let ret_fresh_if: Vec<(std::sync::Arc<str>, usize, i64, bool)> = ret_cond
        .iter()
        .filter_map(|(path, cond)| cond.flatten().map(|(i, m, w)| (path.clone(), i, m, w)))
        .filter(|(path, ..)| handed.iter().any(|(to, _)| matches!(to, HandTo::Result(p) if p == path)))
        .collect();
    let fresh_places: Vec<(usize, std::sync::Arc<str>)> = out_fresh.iter().map(|o| (o.0, o.1.clone())).collect();
    // Hands cells out only under a flag: every handed site is stored only under the same test.
    let handed_sites: Vec<&SiteVerdict> =
        verdicts.iter().filter(|v| matches!(v.handed, Some((HandTo::Param(..), _)))).collect();
    let out_fresh_if = match handed_sites.split_first() {
        Some((first, rest)) if !out_fresh.is_empty() => {
            first.handed_if.iter().copied().find(|f| rest.iter().all(|w| w.handed_if.contains(f)))
        }
        _ => None,
    };
    let writes: Vec<crate::model::Write> = crate::alias::writes(cx, &fresh_places, &freed_and_stored);
    // A parameter taken as freed and stored dangling must be a move the caller follows; else
    // the store is an escape, as before.
    for &i in &freed_and_stored {
        if !writes.iter().any(|w| w.from == crate::model::WriteFrom::Param(i)) {
            params[i] = ParamFate::Escapes;
        }
    }
    let writes = writes.into();
    // Allocates only under a flag: every site it returns is returned only under the same test.
    // Of several such tests, the one of the returned parameter: `if (dst == NULL) return
    // src ? copy(src) : NULL; ... return dst;` is fresh when `dst` is NULL, else `dst` itself.
    let common: Vec<(usize, i64, bool)> = fresh_returns.first().map_or(Vec::new(), |v| {
        v.returned_if.iter().copied().filter(|f| fresh_returns.iter().all(|w| w.returned_if.contains(f))).collect()
    });
    let alloc_if = common.iter().find(|f| Some(f.0) == returns_param).or(common.first()).copied();
    let ret_const = returned_constant(func);
    let fresh_only = allocator && alloc_if.is_none();
    let sure_never_null = fresh_only && returns_only_fresh(cx) && returns_never_null(cx);
    // What constant propagation over the CFG adds (`precond`): a result tested after each of
    // its allocations, and answers under a constant parameter.
    let pre = if sure_never_null {
        crate::precond::Returns {
            ret_const: None,
            ret_const_checked: None,
            never_null: true,
            never_null_when: None,
            ret_const_when: None,
            null_when: Vec::new(),
            noreturn_when: Vec::new(),
        }
    } else {
        crate::precond::returns(func, |s| cx.model(s), fresh_only, ret_const.is_some(), cx.nonnull_params)
    };
    // Over every site that may be left below a parameter, handed or not: the caller cannot tell
    // which one it finds there.
    let stored_sites: Vec<&SiteVerdict> = verdicts.iter().filter(|v| v.stored_out).collect();
    let out_values = if out_fresh.is_empty() { Vec::new() } else { common_values(&stored_sites, |v| &v.out_values) };
    let (heap, heap_families) =
        if heap_needed { heap_effects(cx, Some(config)).unwrap_or_default() } else { (Vec::new(), Vec::new()) };
    let summary = Summary {
        allocator,
        always_fresh: allocator && alloc_if.is_none() && returns_only_fresh(cx),
        origin,
        params,
        returns_param,
        returns_param_itself: returns_param.is_some_and(|i| returns_param_itself(cx, i)),
        noreturn: never_returns(func, |s| cx.ends_path(s)),
        ret_success,
        alloc_if,
        out_fresh,
        out_fresh_if,
        // An allocator's are below the pointer it returns (`*.buf`); a function returning a
        // struct by value hands over the cells in the struct itself (`.data`).
        ret_fresh: if allocator { ret_fresh } else { ret_fresh.into_iter().filter(|p| !p.starts_with('*')).collect() },
        ret_fresh_if: if allocator {
            ret_fresh_if
        } else {
            ret_fresh_if.into_iter().filter(|p| !p.0.starts_with('*')).collect()
        },
        heap: heap.into(),
        heap_families: heap_families.into(),
        ret_values: if allocator { common_values(&fresh_returns, |v| &v.ret_values) } else { Vec::new() },
        out_values,
        exit_values: crate::exits::exit_values(func, |s| cx.model(s)),
        heap_pure: touches_no_heap(func, |s| cx.model(s)),
        writes,
        ret_const: ret_const.or(pre.ret_const.filter(|_| !allocator)),
        never_null: fresh_only && pre.never_null,
        never_null_when: pre.never_null_when.filter(|_| fresh_only),
        ret_const_when: pre.ret_const_when.filter(|_| !allocator),
        ret_const_checked: pre.ret_const_checked.filter(|_| !allocator),
        null_when: if fresh_only { pre.null_when } else { Vec::new() },
        noreturn_when: pre.noreturn_when,
        // The driver writes the SCC's set (`global_writes::of_scc`).
        globals_written: crate::global_writes::GlobalWrites::All,
        fields_written: crate::global_writes::FieldWrites::All,
        param_fields_written: std::sync::Arc::from([]),
        globals_read: crate::global_writes::GlobalWrites::All,
        globals_kept: crate::global_writes::GlobalWrites::All,
        global_overwrites: std::sync::Arc::from([]),
        global_fresh: std::sync::Arc::from([]),
        ret_addr: ret_addr.map(|(i, p)| (i, p.into())),
        pure_value: !allocator && pure_value(func, |s| cx.model(s)),
        reads_only: !allocator && reads_only(func, |s| cx.model(s)),
        alloc_family: crate::libmodel::Family::meet(fresh_returns.iter().map(|v| v.family)),
        free_family: crate::libmodel::Family::meet(free_families.into_iter()),
        param_globals: std::sync::Arc::from([]),
        va_reads: 0,
        varargs_read: false,
    };
    let va = crate::varargs::va_reads(func, |s| cx.model(s));
    let (global_overwrites, global_fresh) =
        crate::global_stores::global_stores(func, |s| cx.model(s), cx.address_taken_globals);
    let summary = Summary {
        global_overwrites,
        global_fresh,
        globals_kept: globals_kept(cx),
        param_globals: param_globals(cx, &summary.params),
        va_reads: va.params,
        varargs_read: va.extras,
        ..summary
    };
    (summary, param_double_frees)
}

/// Two statements free a parameter or a copy of one (flow-insensitively, any parameter): the
/// only functions without allocation sites whose parameters' passes need facts.
pub(super) fn may_free_a_param_twice(cx: &CheckCx) -> bool {
    let func = cx.func;
    let mut from_param: Vec<bool> = vec![false; func.locals.len()];
    for p in func.params() {
        from_param[p.index()] = true;
    }
    let mut frees = 0;
    for (si, s) in func.stmts.iter().enumerate() {
        match s {
            Stmt::Assign { dst: Place::Local(l), src: Rvalue::Use(op) }
                if op.local().is_some_and(|y| from_param[y.index()]) =>
            {
                from_param[l.index()] = true;
            }
            Stmt::Call { args, .. } => {
                let Some(m) = cx.model(StmtId::from_usize(si)) else { continue };
                for (i, a) in args.iter().enumerate() {
                    let frees_it = matches!(m.arg_effect(i), Some(ArgEffect::Frees | ArgEffect::FreesWhen { .. }));
                    if frees_it && a.local().is_some_and(|y| from_param[y.index()]) {
                        frees += 1;
                    }
                }
            }
            _ => {}
        }
    }
    frees >= 2
}

/// The path on which the block parameter `p` points to on entry is freed twice, if one is
/// feasible: `events` are those of the parameter's pass from the entry. A pair found without
/// facts is asked again on a pass that follows them (values known from assignments and earlier
/// tests), as a site's is, so that a parameter is held to what an allocation would be.
fn param_freed_twice(
    cx: &CheckCx,
    guards: &mut Guards,
    solver: &mut Solver,
    followed: &mut Option<crate::facts::Followed>,
    p: LocalId,
    events: &[Event],
) -> Option<Vec<Step>> {
    let entry = DagNode(cx.func.entry.0);
    let first_pair = |guards: &Guards, solver: &mut Solver, events: &[Event]| {
        // A later iteration's free pairs only with the frees before it (`EventKind::FreedAgain`).
        let frees: Vec<(GuardId, bool)> = events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Free(_) | EventKind::FreedAgain) && !e.weak)
            .map(|e| (e.guard, matches!(e.kind, EventKind::FreedAgain)))
            .collect();
        for i in (0..frees.len()).filter(|&i| !frees[i].1) {
            for j in i + 1..frees.len() {
                match solver.check(guards, &[(frees[i].0, true), (frees[j].0, true)]) {
                    Answer::Sat(m) => return Some((m, frees[i].0, frees[j].0)),
                    Answer::Unsat => {}
                    // Out of budget: no report rather than a guess.
                    Answer::Unknown => return None,
                }
            }
        }
        None
    };
    let mut found = first_pair(guards, solver, events)?;
    if !cx.facts.is_empty() {
        let followed = followed.get_or_insert_with(|| cx.facts.follow(cx));
        let with_facts =
            flow(cx, guards, entry, 0, Key::local(p), None, None, false, Some((followed, &[])), None, Globals::Escape);
        if guards.over_budget() {
            guards.reset_budget();
            return None;
        }
        found = first_pair(guards, solver, &with_facts)?;
    }
    let (m, a, b) = found;
    let support = guards.support(&[a, b]);
    let steps = walk(cx, &m_values(&m), &support, None, entry, 0, (Key::local(p), None), WalkGoal::SecondFree);
    // The walk replays the model: it must meet both frees, or the path it would print is not
    // the one the solver found.
    (steps.iter().filter(|s| matches!(s, Step::Free { .. })).count() >= 2).then_some(steps)
}

/// Every `return` hands back a cell whose allocation surely succeeded: the callee's own result
/// is never NULL, or no path from the allocation reaches a `return` other than through the
/// success side of a test of it (`if (p == NULL) fatal(..)`). The caller checks
/// `returns_only_fresh`.
fn returns_never_null(cx: &CheckCx) -> bool {
    let mut sites: Vec<StmtId> = Vec::new();
    for b in 0..cx.dag.n_blocks {
        let node = DagNode(b as u32);
        if let Terminator::Return(Some(op)) = &cx.func.block(cx.dag.block[b]).term {
            let Some(x) = op.local() else { return false };
            let Some((s, _)) = cx.alloc_origin(x, node, cx.stmts_of(node).len()) else { return false };
            if !sites.contains(&s) {
                sites.push(s);
            }
        }
    }
    sites.iter().all(|&s| cx.model(s).is_some_and(|m| m.never_null) || failure_never_returns(cx, s))
}

/// No path from allocation `s` reaches a `return` other than through the success side of a
/// test of its result.
fn failure_never_returns(cx: &CheckCx, s: StmtId) -> bool {
    let Some(&atom) = cx.success_atom.get(&s) else { return false };
    let found = (0..cx.dag.n_blocks).find_map(|b| {
        let node = DagNode(b as u32);
        cx.stmts_of(node).iter().position(|x| *x == s).map(|i| (node, i))
    });
    let Some((start, at)) = found else { return false };
    let mut seen = vec![false; cx.dag.len()];
    let mut work = vec![(start, at + 1)];
    while let Some((node, from)) = work.pop() {
        if std::mem::replace(&mut seen[node.index()], true) {
            continue;
        }
        let stmts = cx.stmts_of(node);
        if stmts[from.min(stmts.len())..].iter().any(|x| cx.ends_path(*x)) {
            continue;
        }
        if matches!(cx.func.block(cx.dag.block[node.index()]).term, Terminator::Return(_)) {
            return false;
        }
        for (next, label) in &cx.dag.succs[node.index()] {
            if !matches!(label, EdgeLabel::Lit { atom: a, positive: true } if *a == atom) {
                work.push((*next, 0));
            }
        }
    }
    true
}

/// The constant every `return` of `func` returns, if they all return the same one (and there
/// is at least one): `static int enabled(void) { return 1; }`.
pub fn returned_constant(func: &crate::ir::Function) -> Option<i64> {
    let mut value = None;
    for b in &func.blocks {
        match &b.term {
            Terminator::Return(Some(Operand::Const(k))) if value.is_none_or(|v| v == *k) => value = Some(*k),
            Terminator::Return(_) => return None,
            _ => {}
        }
    }
    value
}

/// A fresh guard arena (with the function's time budget, sized for a pass over the DAG) and
/// solver for a summary's passes.
fn new_pass<'c>(cx: &'c CheckCx, config: &Config) -> (Guards, Solver<'c>) {
    let mut guards = Guards::with_capacity(config.max_guard_nodes_per_site, 2 * cx.dag.len());
    guards.set_budget(cx.budget.clone());
    let mut solver = Solver::new(&cx.groups, config.sat_conflicts).with_ors(&cx.ors);
    solver.set_budget(cx.budget.clone());
    (guards, solver)
}

/// The summary of a function that allocates nothing, decided by the flow-insensitive prechecks
/// alone (every parameter only read or escaping, every path below a parameter only read or
/// escaping): most functions. `None` when a path-sensitive pass is needed. `cx` may be only
/// prepared (`FnCx::prepare`).
pub fn summarize_without_flow(cx: &CheckCx, heap_needed: bool) -> Option<Summary> {
    let func = cx.func;
    let allocates = (0..func.stmts.len()).any(|s| {
        cx.model(StmtId::from_usize(s)).is_some_and(|m| {
            crate::cfg::source_success(m).is_some()
                || !m.out_paths.is_empty()
                || !m.ret_paths.is_empty()
                || !m.global_fresh.is_empty()
        })
    });
    if allocates {
        return None;
    }
    let params = cx.prechecked_params().iter().copied().collect::<Option<Vec<_>>>()?;
    let pure = touches_no_heap(func, |s| cx.model(s));
    let heap = if heap_needed { heap_effects(cx, None)?.0 } else { Vec::new() };
    let noreturn = never_returns(func, |s| cx.ends_path(s));
    let writes = crate::alias::writes(cx, &[], &[]).into();
    let ret_const = returned_constant(func);
    let pre = crate::precond::returns(func, |s| cx.model(s), false, ret_const.is_some(), cx.nonnull_params);
    let va = crate::varargs::va_reads(func, |s| cx.model(s));
    // Nothing fresh: a global it stores into holds no cell of its own.
    let (global_overwrites, _) = crate::global_stores::global_stores(func, |s| cx.model(s), cx.address_taken_globals);
    Some(Summary {
        global_overwrites,
        globals_kept: globals_kept(cx),
        heap: heap.into(),
        heap_pure: pure,
        writes,
        exit_values: crate::exits::exit_values(func, |s| cx.model(s)),
        ret_const,
        ret_const_when: pre.ret_const_when,
        ret_const_checked: pre.ret_const_checked,
        noreturn_when: pre.noreturn_when,
        ret_addr: crate::interior::returned_address(func, &cx.addr_temps).map(|(i, p)| (i, p.into())),
        pure_value: pure_value(func, |s| cx.model(s)),
        reads_only: reads_only(func, |s| cx.model(s)),
        param_globals: param_globals(cx, &params),
        va_reads: va.params,
        varargs_read: va.extras,
        params,
        ..Summary::plain(func.n_params as usize, noreturn)
    })
}

/// `Summary::globals_kept` (`global_stores::globals_kept`): a local that a global's value is
/// copied into hands it on unless `param_use` finds it only read (asked once per local: a local
/// may be assigned thousands of times).
fn globals_kept(cx: &CheckCx) -> crate::global_writes::GlobalWrites {
    let func = cx.func;
    let reading = std::cell::OnceCell::new();
    let answers: std::cell::RefCell<Vec<Option<bool>>> = std::cell::RefCell::new(vec![None; func.locals.len()]);
    crate::global_stores::globals_kept(
        func,
        |s| cx.model(s),
        |l| {
            if let Some(known) = answers.borrow()[l.index()] {
                return known;
            }
            let only_read = cx.tracked[l.index()]
                && matches!(
                    param_use(func, |s| cx.model(s), &cx.tracked, reading.get_or_init(|| statements_reading(func)), l),
                    ParamUse::ReadOnly
                );
            answers.borrow_mut()[l.index()] = Some(only_read);
            only_read
        },
    )
}

/// `Summary::param_globals`: for each parameter that escapes, the one global it goes into
/// (`param_global`), if any.
fn param_globals(cx: &CheckCx, params: &[ParamFate]) -> std::sync::Arc<[(usize, std::sync::Arc<str>)]> {
    if !params.contains(&ParamFate::Escapes) {
        return std::sync::Arc::from([]);
    }
    let func = cx.func;
    let reading = statements_reading(func);
    func.params()
        .zip(params)
        .enumerate()
        .filter(|(_, (p, fate))| **fate == ParamFate::Escapes && cx.tracked[p.index()])
        .filter_map(|(i, (p, _))| Some((i, param_global(func, |s| cx.model(s), &cx.tracked, &reading, p)?)))
        .collect()
}

/// The function's result depends on its argument values alone (`Summary::pure_value`): it
/// reads and writes no memory but its own locals' (whose address it never takes), no global,
/// and calls only functions of which the same holds.
fn pure_value<'m>(func: &Function, model: impl Fn(StmtId) -> Option<&'m crate::model::Model<'m>>) -> bool {
    result_of_inputs(func, |s| model(s).is_some_and(|m| m.pure_value), false)
}

/// The function's result depends on its argument values and the memory alone, and it writes
/// nothing its callers see (`Summary::reads_only`): it stores only into its own locals, and
/// calls only functions of which the same holds (library readers included).
fn reads_only<'m>(func: &Function, model: impl Fn(StmtId) -> Option<&'m crate::model::Model<'m>>) -> bool {
    result_of_inputs(func, |s| model(s).is_some_and(|m| m.pure_value || m.reads_only), true)
}

/// Every statement stores only into the function's locals, every call is to a function
/// `callee_ok` accepts, and, unless `reads_memory`, nothing reads memory or takes an address.
/// What the lowering could not describe may do anything.
fn result_of_inputs(func: &Function, callee_ok: impl Fn(StmtId) -> bool, reads_memory: bool) -> bool {
    let plain = |p: &Place| matches!(p, Place::Local(_));
    let operand = |op: &Operand| match op {
        Operand::Place(p) => reads_memory || plain(p),
        Operand::Const(_) | Operand::Str => true,
        Operand::Func { .. } | Operand::Unknown => false,
    };
    func.stmts.iter().enumerate().all(|(si, st)| match st {
        Stmt::Assign { dst, src } => {
            plain(dst)
                && match src {
                    Rvalue::Use(op) => operand(op),
                    Rvalue::Opaque(ops) => ops.iter().all(operand),
                    Rvalue::AddrOf(_) => reads_memory,
                }
        }
        Stmt::Call { dst, callee: Callee::Direct { .. }, args } => {
            dst.as_ref().is_none_or(plain) && args.iter().all(operand) && callee_ok(StmtId::from_usize(si))
        }
        Stmt::Call { callee: Callee::Indirect { .. }, .. } => false,
    }) && func.blocks.iter().all(|b| match &b.term {
        Terminator::Branch { cond, .. } => match &cond.kind {
            CondKind::Truthy(a) => operand(a),
            CondKind::Cmp(_, a, b) => operand(a) && operand(b),
            CondKind::Opaque => false,
        },
        Terminator::Switch { on, .. } => operand(on),
        Terminator::Return(Some(op)) => operand(op),
        Terminator::Return(None) | Terminator::Goto(_) | Terminator::NoReturn => true,
    })
}

/// Places below parameters with the value they hold (`Summary::ret_values`, `out_values`).
type HeldValues = Vec<(usize, std::sync::Arc<str>, Held)>;

/// The places below parameters that hold one value wherever every one of `sites` is handed
/// back (`values` of each: what its pass found at the returns where it is returned, or where it
/// is stored below a parameter).
fn common_values(sites: &[&SiteVerdict], values: impl Fn(&SiteVerdict) -> &HeldValues) -> HeldValues {
    let Some((first, rest)) = sites.split_first() else { return Vec::new() };
    let mut out = values(first).clone();
    out.retain(|z| rest.iter().all(|v| values(v).contains(z)));
    out.sort();
    out.dedup();
    out
}

/// Paths below one parameter whose fate a summary computes; beyond them the parameter's other
/// fields are not known (`Escapes`).
const MAX_HEAP_PATHS: usize = 24;

/// What the function does to cells its callers keep below its pointer parameters: for each
/// (parameter, access path), the flow-insensitive precheck, and where it cannot tell, one forward
/// pass from the entry with the path holding a cell. Without `flows`, `None` when a pass would
/// be needed.
/// Also the families of the frees (`Summary::heap_families`), which only a pass finds.
type HeapEffects = (Vec<(usize, std::sync::Arc<str>, PathFate)>, Vec<(usize, std::sync::Arc<str>, Family)>);

fn heap_effects(cx: &CheckCx, flows: Option<&Config>) -> Option<HeapEffects> {
    let func = cx.func;
    let mut out = Vec::new();
    let mut families = Vec::new();
    let Some(paths) = cx.heap_paths() else {
        return Some((out, families)); // `heap_pure` says it all
    };
    // One arena and one solver for every pass (its clauses define nodes of the one arena, true
    // whatever the query), made for the first path the prechecks leave undecided.
    let mut pass: Option<(Guards, Solver)> = None;
    for h in paths {
        let fate = match (h.pre, flows) {
            (Some(fate), _) => fate,
            (None, Some(config)) => {
                let (guards, solver) = pass.get_or_insert_with(|| new_pass(cx, config));
                guards.allow_more(config.max_guard_nodes_per_site);
                let x = Key { root: h.local, path: h.path };
                let events =
                    flow(cx, guards, DagNode(func.entry.0), 0, x, None, None, true, None, None, Globals::Escape);
                if guards.over_budget() {
                    guards.reset_budget();
                    PathFate::Escapes
                } else {
                    let fate = path_fate_of(guards, solver, &events);
                    if matches!(fate, PathFate::Frees | PathFate::FreesCleared) {
                        let each = events.iter().filter_map(|e| match e.kind {
                            EventKind::Free(by) => Some(by.map(|b| b.1)),
                            _ => None,
                        });
                        if let Some(f) = Family::meet(each) {
                            families.push((h.param, std::sync::Arc::from(cx.path_text(h.path)), f));
                        }
                    }
                    fate
                }
            }
            (None, None) => return None,
        };
        // Past the cap, the fields not followed are unknown, so "the others" are too.
        let fate = if h.capped && h.path == crate::cfg::OTHER_PATH { PathFate::Escapes } else { fate };
        let text = cx.path_text(h.path);
        if matches!(fate, PathFate::Frees | PathFate::FreesCleared)
            && h.path != crate::cfg::OTHER_PATH
            && !h.capped
            && frees_whole(cx, h.local, h.path)
        {
            let contents = format!("{text}{}", crate::model::OTHER_PATH_TEXT);
            out.push((h.param, std::sync::Arc::from(contents), PathFate::Lost));
        }
        out.push((h.param, std::sync::Arc::from(text), fate));
    }
    cx.note_timeout(pass.as_ref().is_some_and(|(g, _)| g.timed_out()));
    // By text, not by this function's path ids: summaries are compared across fixpoint rounds.
    out.sort();
    families.sort();
    Some((out, families))
}

/// Whether the object at `path` below parameter `p` (`o->b`), which the function frees on every
/// path, goes with everything it holds, so that a cell a caller keeps inside it is lost there
/// (the `P*?` entry of `model::heap_fate`): nothing in the function names a place inside the
/// object (`o->b->x`, through `o` or through a local copy of `o->b`) or takes an address below
/// `o`; the pointer to it is copied only into locals, and given only to calls that read or
/// free it and leave what it holds alone (a summarised callee names no other path of it, but
/// its unnamed fields, which it may lose with it), never stored or returned; and a call given
/// `o` itself leaves what is inside the object alone (its own `P*?` or unnamed fields). What
/// the function cannot place counts against it.
fn frees_whole(cx: &CheckCx, p: LocalId, path: u32) -> bool {
    let func = cx.func;
    let ptext = cx.path_text(path);
    let inside = format!("{ptext}*");
    let contents = format!("{ptext}{}", crate::model::OTHER_PATH_TEXT);
    let names = cx.copies_of(p);
    let at_path = |pl: &Place| cx.key_of(pl).is_some_and(|k| names.contains(&k.root) && k.path == path);
    // The locals that hold the pointer to the object.
    let mut holders: Vec<LocalId> = Vec::new();
    loop {
        let before = holders.len();
        for s in &func.stmts {
            if let Stmt::Assign { dst: Place::Local(l), src: Rvalue::Use(Operand::Place(src)) } = s {
                let loads = at_path(src) || src.as_local().is_some_and(|y| holders.contains(&y));
                if loads && !holders.contains(l) && !names.contains(l) {
                    holders.push(*l);
                }
            }
        }
        if holders.len() == before {
            break;
        }
    }
    let is_value = |op: &Operand| match op {
        Operand::Place(pl) => at_path(pl) || pl.as_local().is_some_and(|l| holders.contains(&l)),
        _ => false,
    };
    let reaches_inside = |pl: &Place| -> bool {
        if pl.as_local().is_some() {
            return false;
        }
        match pl.root_local() {
            Some(r) if holders.contains(&r) => true,
            Some(r) if names.contains(&r) => cx.key_of(pl).is_none_or(|k| cx.path_text(k.path).starts_with(&inside)),
            _ => false,
        }
    };
    let ours = |pl: &Place| pl.root_local().is_some_and(|r| names.contains(&r) || holders.contains(&r));
    for (si, s) in func.stmts.iter().enumerate() {
        match s {
            Stmt::Assign { dst, src } => {
                let bad = reaches_inside(dst)
                    || match src {
                        Rvalue::AddrOf(pl) => ours(pl),
                        Rvalue::Use(op) => {
                            matches!(op, Operand::Place(pl) if reaches_inside(pl))
                                || (is_value(op) && !matches!(dst, Place::Local(l) if holders.contains(l)))
                        }
                        Rvalue::Opaque(ops) => ops.iter().any(|op| {
                            matches!(op, Operand::Place(pl) if reaches_inside(pl))
                                || (is_value(op) && dst.as_local().is_none_or(|l| func.local(l).is_pointer))
                        }),
                    };
                if bad {
                    return false;
                }
            }
            Stmt::Call { dst, callee, args } => {
                if dst.as_ref().is_some_and(|d| {
                    reaches_inside(d) || at_path(d) || d.as_local().is_some_and(|l| holders.contains(&l))
                }) {
                    return false;
                }
                if let Callee::Indirect { target: Operand::Place(t), .. } = callee {
                    if reaches_inside(t) {
                        return false;
                    }
                }
                let model = cx.model(StmtId::from_usize(si));
                for (j, a) in args.iter().enumerate() {
                    if matches!(a, Operand::Place(pl) if reaches_inside(pl)) {
                        return false;
                    }
                    let value = is_value(a);
                    let whole = a.local().is_some_and(|l| names.contains(&l));
                    if !value && !whole {
                        continue;
                    }
                    let Some(m) = model else { return false };
                    let rel = if whole { contents.as_str() } else { crate::model::OTHER_PATH_TEXT };
                    // Given the parameter itself, a summarised callee must speak of the object
                    // at `path` (its own `P*?`, or no heap at all): its `*?` is about the
                    // parameter's own fields, not about what they point to (git's
                    // `free_individual_entries (map)` frees the entries `map->table` leads to
                    // without naming it).
                    let speaks = m.lib
                        || m.heap_pure
                        || m.heap.iter().any(|h| h.0 == j && crate::model::inside_freed_whole(&h.1, &contents));
                    if (whole && !speaks) || !matches!(m.path_fate(j, rel), PathFate::Reads | PathFate::Lost) {
                        return false;
                    }
                    if value {
                        let named_below = !m.lib
                            && m.heap.iter().any(|h| {
                                h.0 == j
                                    && &*h.1 != "*"
                                    && !h.1.ends_with(crate::model::OTHER_PATH_TEXT)
                                    && h.2 != PathFate::Reads
                            });
                        if !matches!(m.arg_effect(j), None | Some(ArgEffect::Frees))
                            || named_below
                            || m.ret_alias() == Some(j)
                        {
                            return false;
                        }
                    }
                }
            }
        }
    }
    !func.blocks.iter().any(|b| matches!(&b.term, Terminator::Return(Some(op)) if is_value(op)))
}

/// The paths below the pointer parameters that `heap_effects` states, in its order, each with
/// its precheck; `None` when the function touches no heap (`heap_pure` says it all). Pure and
/// computed once per `FnCx` (`FnCx::heap_paths`): `summarize_without_flow` asks first, and where
/// some path needs a pass, `summarize` asks again for the same answers.
pub fn heap_paths(cx: &CheckCx) -> Option<Vec<HeapPath>> {
    let func = cx.func;
    if touches_no_heap(func, |s| cx.model(s)) {
        return None;
    }
    let mut out = Vec::new();
    let mentions = statement_mentions(cx);
    for (i, p) in func.params().enumerate() {
        if !cx.is_tracked(p) || !func.local(p).is_pointer {
            continue;
        }
        let mut below = cx.paths_below(p);
        let capped = below.len() > MAX_HEAP_PATHS;
        below.truncate(MAX_HEAP_PATHS);
        below.push(crate::cfg::OTHER_PATH);
        let names = cx.copies_of(p);
        let mut named: Vec<u32> = names.iter().flat_map(|n| mentions[n.index()].iter().copied()).collect();
        named.sort_unstable();
        named.dedup();
        for &id in &below {
            let pre = path_precheck(cx, &mentions, &names, &named, id);
            out.push(HeapPath { param: i, local: p, path: id, capped, pre });
        }
    }
    Some(out)
}

/// For each local, the statements (sorted) that mention it: as an operand, as the root of a
/// place, or through an address temporary (`t = &p->f` counts for `p` wherever `t` is used).
fn statement_mentions(cx: &CheckCx) -> Vec<Vec<u32>> {
    let func = cx.func;
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); func.locals.len()];
    fn operand(op: &Operand) -> Option<&Place> {
        match op {
            Operand::Place(p) => Some(p),
            _ => None,
        }
    }
    for (si, st) in func.stmts.iter().enumerate() {
        let mut note = |place: &Place| {
            let Some(l) = place.root_local() else { return };
            out[l.index()].push(si as u32);
            if let Some(r) = cx.addr_temps.get(&l).and_then(|p| p.root_local()) {
                out[r.index()].push(si as u32);
            }
        };
        match st {
            Stmt::Assign { dst, src } => {
                note(dst);
                match src {
                    Rvalue::Use(op) => operand(op).into_iter().for_each(&mut note),
                    Rvalue::AddrOf(p) => note(p),
                    Rvalue::Opaque(ops) => ops.iter().filter_map(operand).for_each(&mut note),
                }
            }
            Stmt::Call { dst, args, .. } => {
                dst.iter().for_each(&mut note);
                args.iter().filter_map(operand).for_each(&mut note);
            }
        }
    }
    for v in &mut out {
        v.sort_unstable();
        v.dedup();
    }
    out
}

/// A flow-insensitive look at one path below a parameter (and the locals that copy it):
/// `Some(Reads)` when nothing can free, keep, overwrite or lose what it holds; `Some(Escapes)`
/// when something may keep it (then no path-sensitive answer can be better); `None` when only
/// the path-sensitive pass can tell (it may be freed or lost, and nothing keeps it).
fn path_precheck(cx: &CheckCx, mentions: &[Vec<u32>], names: &[LocalId], named: &[u32], path: u32) -> Option<PathFate> {
    let func = cx.func;
    let text = cx.path_text(path);
    let other = path == crate::cfg::OTHER_PATH;
    let at_path = |place: &Place| cx.key_of(place).is_some_and(|k| names.contains(&k.root) && k.path == path);
    // Only statements that mention a name of the object or a local holding what the path holds
    // can touch it (see `statement_mentions`): a function with many fields pays for each path
    // with the statements about that object, not with the whole body (`named`: those that mention
    // a name of the object, sorted).
    let mut relevant: Vec<u32> = named.to_vec();
    // Locals that may hold what the path holds.
    let mut holders: Vec<LocalId> = Vec::new();
    loop {
        let before = holders.len();
        for &si in &relevant {
            if let Stmt::Assign { dst: Place::Local(l), src: Rvalue::Use(Operand::Place(src)) } =
                &func.stmts[si as usize]
            {
                let loads = (!other && at_path(src)) || src.as_local().is_some_and(|y| holders.contains(&y));
                if loads && !holders.contains(l) {
                    holders.push(*l);
                }
            }
        }
        if holders.len() == before {
            break;
        }
        relevant.extend(holders[before..].iter().flat_map(|h| mentions[h.index()].iter().copied()));
        relevant.sort_unstable();
        relevant.dedup();
    }
    let held = |op: &Operand| {
        op.local().is_some_and(|y| holders.contains(&y)) || matches!(op, Operand::Place(p) if !other && at_path(p))
    };
    let mut changes = false; // freed or lost somewhere
    for &si in &relevant {
        let si = si as usize;
        match &func.stmts[si] {
            Stmt::Assign { dst, src } => {
                // Overwriting the path, or rebinding a name of the object (what it held escapes).
                if !other && at_path(dst) {
                    changes = true;
                }
                // A copy of one name into another (`struct rec *r = data;`) names the same
                // object still.
                let copy = matches!(src, Rvalue::Use(Operand::Place(Place::Local(y))) if names.contains(y));
                if dst.as_local().is_some_and(|l| names.contains(&l)) && !copy {
                    return Some(PathFate::Escapes);
                }
                let carries = match src {
                    Rvalue::Use(op) => held(op),
                    Rvalue::Opaque(ops) => ops.iter().any(held),
                    Rvalue::AddrOf(place) => {
                        at_path(place) || place.pointee_of_local().is_some_and(|y| holders.contains(&y))
                    }
                };
                if carries && dst.as_local().is_none() {
                    return Some(PathFate::Escapes);
                }
                // A struct copied whole out of the object (`f->ch[n] = *m`) copies the slot:
                // into a local struct the pass follows it, anywhere else it escapes.
                if let Rvalue::Use(Operand::Place(p)) = src {
                    if let Some(ks) = cx.key_of(p).filter(|k| !k.is_local() && names.contains(&k.root)) {
                        let slot = Key { root: ks.root, path };
                        if !copied_slots(cx, std::iter::once(slot), ks.path).is_empty() {
                            let local_struct = dst
                                .as_local()
                                .is_some_and(|l| cx.field_aggregates.get(l.index()).copied().unwrap_or(false));
                            if !local_struct || other {
                                return Some(PathFate::Escapes);
                            }
                            changes = true;
                        }
                    }
                }
            }
            Stmt::Call { dst, args, .. } => {
                if dst.as_ref().is_some_and(|d| d.as_local().is_some_and(|l| names.contains(&l))) {
                    return Some(PathFate::Escapes);
                }
                if dst.as_ref().is_some_and(|d| !other && at_path(d)) {
                    changes = true;
                }
                let model = cx.model(StmtId::from_usize(si));
                for (i, a) in args.iter().enumerate() {
                    let effect = model.map_or(Some(ArgEffect::Keeps), |m| m.arg_effect(i));
                    if held(a) {
                        match effect {
                            None => {}
                            Some(ArgEffect::Frees) => changes = true,
                            Some(_) => return Some(PathFate::Escapes),
                        }
                    }
                    // The object passed on: what the callee does at this path.
                    if a.local().is_some_and(|y| names.contains(&y)) {
                        let callee_path = if other { crate::model::OTHER_PATH_TEXT } else { text };
                        match model.map_or(PathFate::Escapes, |m| m.path_fate(i, callee_path)) {
                            PathFate::Reads => {}
                            PathFate::Escapes | PathFate::KeptOrLost => return Some(PathFate::Escapes),
                            _ => changes = true,
                        }
                    }
                    // `&p` passed: the callee can rebind the name. `&p->f` passed: it can reach
                    // the slots below that field, which the pass from the entry follows
                    // (`reachable_slots`), unless the callee hands fresh cells out there (an
                    // append through `&p->items`, whose overwrites of array elements the pass
                    // does not tell apart).
                    if a.local().is_some_and(|t| cx.addr_temps.contains_key(&t)) {
                        if let Some((root, prefix)) = cx.arg_slots(a) {
                            if names.contains(&root) {
                                let hands_out = model.is_none_or(|m| {
                                    m.out_paths.iter().any(|o| o.0 == i)
                                        || matches!(
                                            m.arg_effect(i),
                                            Some(ArgEffect::OutFresh(_) | ArgEffect::OutRealloc)
                                        )
                                });
                                if !prefix.starts_with('*') || hands_out {
                                    return Some(PathFate::Escapes);
                                }
                                changes = true;
                            }
                        }
                    }
                }
            }
        }
    }
    // Returned: moved out to the caller when the path is also overwritten (`strbuf_detach`),
    // which only the pass can tell (`PathFate::Returned`); shared with the caller otherwise.
    if func.blocks.iter().any(|b| matches!(&b.term, Terminator::Return(Some(op)) if held(op))) {
        return if changes && !other { None } else { Some(PathFate::Escapes) };
    }
    if changes {
        None
    } else {
        Some(PathFate::Reads)
    }
}

/// Classify the events of a summary pass over one slot (see `PathFate`).
fn path_fate_of(guards: &mut Guards, solver: &mut Solver, events: &[Event]) -> PathFate {
    let mut freed = GuardId::FALSE;
    let mut kept = GuardId::FALSE;
    let mut ended = GuardId::FALSE;
    let mut returned = GuardId::FALSE;
    for e in events {
        match e.kind {
            EventKind::Escape(_) | EventKind::Inside(_) | EventKind::Stored { .. } | EventKind::ReturnedIn(_) => {
                return PathFate::Escapes
            }
            EventKind::Return => returned = guards.or(returned, e.guard),
            EventKind::Free(_) | EventKind::FreedAgain => freed = guards.or(freed, e.guard),
            EventKind::Kept => kept = guards.or(kept, e.guard),
            EventKind::Exit => ended = guards.or(ended, e.guard),
        }
    }
    let mut covered = |guards: &mut Guards, g: GuardId| {
        let all = guards.or(g, ended);
        matches!(solver.check(guards, &[(all, false)]), Answer::Unsat)
    };
    if returned != GuardId::FALSE {
        let alone = freed == GuardId::FALSE && kept == GuardId::FALSE;
        return if alone && covered(guards, returned) { PathFate::Returned } else { PathFate::Escapes };
    }
    match (freed != GuardId::FALSE, kept != GuardId::FALSE) {
        (true, false) if covered(guards, freed) => PathFate::FreesCleared,
        (true, true) if covered(guards, freed) && covered(guards, kept) => PathFate::Frees,
        (false, false) => PathFate::Lost,
        (false, true) if covered(guards, kept) => PathFate::Reads,
        (false, true) => PathFate::KeptOrLost,
        _ => PathFate::Escapes,
    }
}

/// The function frees, keeps and overwrites nothing its callers can reach: it stores only into
/// its own locals, and calls only functions that only read their arguments.
pub fn touches_no_heap<'m>(
    func: &crate::ir::Function,
    model_of: impl Fn(StmtId) -> Option<&'m crate::summary::Model<'m>>,
) -> bool {
    let own = |p: &Place| p.storage_local().is_some();
    func.stmts.iter().enumerate().all(|(si, s)| match s {
        Stmt::Assign { dst, .. } => own(dst),
        Stmt::Call { dst, args, .. } => {
            dst.as_ref().is_none_or(own)
                && model_of(StmtId::from_usize(si)).is_some_and(|m| {
                    let reads = (0..args.len()).all(|i| m.arg_effect(i).is_none());
                    reads && (m.lib || m.heap_pure)
                })
        }
    })
}

/// The fate of a parameter that is freed on some path: freed on every path (`Frees`), exactly
/// when a flag parameter says so (`FreesIf`), exactly when the return value is in one range of
/// constants (`FreesWhen`, which sets `ret_success`; another parameter already set it to a
/// different range means `Escapes`), or otherwise `Escapes` — never a false "freed".
#[allow(clippy::too_many_arguments)]
fn free_fate(
    cx: &CheckCx,
    guards: &Guards,
    solver: &mut Solver,
    param: LocalId,
    freed: GuardId,
    freed_or_ended: GuardId,
    escaped: GuardId,
    rets: &[(DagNode, GuardId, Option<i64>)],
    ret_success: &mut Option<crate::libmodel::Success>,
) -> ParamFate {
    let sat = |solver: &mut Solver, q: &[(GuardId, bool)]| match solver.check(guards, q) {
        Answer::Sat(_) => Some(true),
        Answer::Unsat => Some(false),
        Answer::Unknown => None,
    };
    if escaped == GuardId::FALSE {
        if sat(solver, &[(freed_or_ended, false)]) == Some(false) {
            return ParamFate::Frees;
        }
        // Freed exactly when a flag parameter says so: `if (owned) free(p)`.
        for (atom, flag, _) in cx.param_tests.iter().filter(|t| t.2 == -1) {
            let Some(flag_index) = cx.func.params().position(|q| q == *flag) else { continue };
            let (Some(lit), Some(neg)) = (guards.find_lit(*atom, true), guards.find_lit(*atom, false)) else {
                continue;
            };
            for (when, l, not_l) in [(true, lit, neg), (false, neg, lit)] {
                // Freeing implies the flag test, and the flag test implies freeing.
                let only_then = sat(solver, &[(freed_or_ended, true), (not_l, true)]) == Some(false);
                let always_then = sat(solver, &[(l, true), (freed_or_ended, false)]) == Some(false);
                if only_then && always_then {
                    return ParamFate::FreesIf { flag: flag_index, when };
                }
            }
        }
        if let Some(size) = realloc_fate(cx, guards, solver, param, freed, freed_or_ended, rets) {
            return ParamFate::Reallocs { size };
        }
    }
    // Freed exactly on the returns of one range of constants (an error path, usually).
    let mut free_side: Option<(i64, i64)> = None;
    let mut kept_side: Option<(i64, i64)> = None;
    let mut kept_escapes = false;
    let widen = |r: &mut Option<(i64, i64)>, v: i64| *r = Some(r.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
    for (_, p, value) in rets {
        let may_free = sat(solver, &[(*p, true), (freed, true)]);
        let may_keep = sat(solver, &[(*p, true), (freed, false)]);
        let (Some(may_free), Some(may_keep)) = (may_free, may_keep) else { return ParamFate::Escapes };
        if may_free && may_keep {
            return ParamFate::Escapes;
        }
        if !may_free && !may_keep {
            continue; // not reachable
        }
        let Some(v) = *value else { return ParamFate::Escapes };
        if may_free {
            widen(&mut free_side, v);
        } else {
            widen(&mut kept_side, v);
            kept_escapes |= escaped != GuardId::FALSE && sat(solver, &[(*p, true), (escaped, true)]) != Some(false);
        }
    }
    let (Some(fail), Some(ok)) = (free_side, kept_side) else { return ParamFate::Escapes };
    if fail.1 >= ok.0 && ok.1 >= fail.0 {
        return ParamFate::Escapes; // the ranges overlap: a test of the result cannot tell
    }
    let success = crate::libmodel::Success::Range { ok, fail };
    match ret_success {
        Some(s) if *s != success => return ParamFate::Escapes,
        _ => *ret_success = Some(success),
    }
    ParamFate::FreesWhen { on_success: false, else_keeps: kept_escapes }
}

/// Whether the parameter whose guards these are is reallocated (`summary::ParamFate::Reallocs`):
/// on every return either NULL is returned with the block untouched, or the result of one
/// allocation that succeeded exactly when the block was freed, or the block itself, not freed
/// (resized in place, as `realloc` may do: openssh's `recallocarray` keeps a block that shrinks
/// a little), and some return reallocates. `Some(Some(size))` when, besides, the block is
/// always freed where parameter `size` is zero (a `lua_Alloc`); `Some(None)` when no size test
/// says so (a wrapper passing its size on).
fn realloc_fate(
    cx: &CheckCx,
    guards: &Guards,
    solver: &mut Solver,
    param: LocalId,
    freed: GuardId,
    freed_or_ended: GuardId,
    rets: &[(DagNode, GuardId, Option<i64>)],
) -> Option<Option<usize>> {
    let unsat = |solver: &mut Solver, q: &[(GuardId, bool)]| matches!(solver.check(guards, q), Answer::Unsat);
    // Under `sized`, does every return reallocate or return NULL untouched, and some reallocate?
    let reallocates_when = |solver: &mut Solver, sized: GuardId| {
        let mut reallocates = false;
        for (node, p, value) in rets {
            if unsat(solver, &[(*p, true), (sized, true)]) {
                continue;
            }
            if *value == Some(0) {
                if !unsat(solver, &[(*p, true), (sized, true), (freed, true)]) {
                    return false;
                }
                continue;
            }
            if returns_local(cx, *node, param) {
                if !unsat(solver, &[(*p, true), (sized, true), (freed, true)]) {
                    return false;
                }
                continue;
            }
            let Some(ok) = returned_success(cx, *node).and_then(|a| guards.find_lit(a, true)) else { return false };
            let freed_iff_ok = unsat(solver, &[(*p, true), (sized, true), (ok, true), (freed, false)])
                && unsat(solver, &[(*p, true), (sized, true), (ok, false), (freed, true)]);
            if !freed_iff_ok {
                return false;
            }
            reallocates = true;
        }
        reallocates
    };
    for (atom, flag, _) in cx.param_tests.iter().filter(|t| t.2 == -1) {
        let Some(size) = cx.func.params().position(|q| q == *flag) else { continue };
        let (Some(sized), Some(zero)) = (guards.find_lit(*atom, true), guards.find_lit(*atom, false)) else { continue };
        if unsat(solver, &[(zero, true), (freed_or_ended, false)]) && reallocates_when(solver, sized) {
            return Some(Some(size));
        }
    }
    reallocates_when(solver, GuardId::TRUE).then_some(None)
}

/// Whether the `return` ending `node` returns local `x` itself.
fn returns_local(cx: &CheckCx, node: DagNode, x: LocalId) -> bool {
    let block = cx.func.block(cx.dag.block[node.index()]);
    matches!(&block.term, Terminator::Return(Some(Operand::Place(Place::Local(y)))) if *y == x)
}

/// The success atom of the allocation whose result the `return` ending `node` returns, when it
/// returns one allocation's result (through copies) whose success is its non-NULL result.
fn returned_success(cx: &CheckCx, node: DagNode) -> Option<AtomId> {
    let block = cx.func.block(cx.dag.block[node.index()]);
    let Terminator::Return(Some(Operand::Place(Place::Local(x)))) = &block.term else { return None };
    match cx.alloc_origin(*x, node, cx.stmts_of(node).len())? {
        (sid, crate::libmodel::Success::NonNull) => cx.success_atom.get(&sid).copied(),
        _ => None,
    }
}

/// The fate of each parameter as far as the flow-insensitive prechecks decide it: `None` where
/// only the path-sensitive pass can tell (`ParamUse::NeedsFlow`).
pub fn flow_insensitive_params<'m>(
    func: &crate::ir::Function,
    model_of: impl Fn(StmtId) -> Option<&'m crate::summary::Model<'m>> + Copy,
    tracked: &[bool],
) -> Vec<Option<ParamFate>> {
    if func.n_params == 0 {
        return Vec::new();
    }
    flow_insensitive_params_reading(func, model_of, tracked, &statements_reading(func))
}

/// `flow_insensitive_params` with `statements_reading(func)` given, for a caller that asks
/// again with other callee models.
pub fn flow_insensitive_params_reading<'m>(
    func: &crate::ir::Function,
    model_of: impl Fn(StmtId) -> Option<&'m crate::summary::Model<'m>> + Copy,
    tracked: &[bool],
    reading: &[Vec<u32>],
) -> Vec<Option<ParamFate>> {
    func.params()
        .map(|p| {
            // Integer parameters are followed too: C code passes pointers cast to
            // `uintptr_t`-like types (`st_insert(table, (st_data_t)key, ..)`) to callees that
            // keep them.
            if !tracked[p.index()] {
                // An address-taken parameter may be stored through its address: escapes.
                return Some(if func.local(p).is_aggregate {
                    struct_param_use(func, model_of, tracked, reading, p)
                } else {
                    ParamFate::Escapes
                });
            }
            match param_use(func, model_of, tracked, reading, p) {
                ParamUse::ReadOnly => Some(ParamFate::Reads),
                ParamUse::Escapes => Some(ParamFate::Escapes),
                ParamUse::NeedsFlow => None,
            }
        })
        .collect()
}

/// A struct parameter passed by value: `Reads` when its fields' values go nowhere (the struct
/// is not copied whole, passed on or returned, and no field's value is stored,
/// passed to a callee that may keep or free it, or returned), so that the caller's blocks in the
/// fields of the struct it passed are still only its own; `Escapes` otherwise. Where its
/// address is taken (`oidhash(&oid)`) it is not followed. A field is
/// followed as `param_use` follows a pointer; which fields hold pointers is not known, so an
/// integer field stored elsewhere counts too (the caller then loses a leak, never gains one).
fn struct_param_use<'m>(
    func: &crate::ir::Function,
    model_of: impl Fn(StmtId) -> Option<&'m crate::summary::Model<'m>> + Copy,
    tracked: &[bool],
    reading: &[Vec<u32>],
    p: LocalId,
) -> ParamFate {
    let of_p = |op: &Operand| matches!(op, Operand::Place(q) if q.root_local() == Some(p));
    for (si, st) in func.stmts.iter().enumerate() {
        let goes = match st {
            Stmt::Assign { dst, src: Rvalue::Use(op) } if of_p(op) => match (op, dst.as_local()) {
                // A field's value in a local: where that local's value goes.
                (Operand::Place(q), Some(x)) if q.as_local().is_none() && tracked[x.index()] => {
                    param_use(func, model_of, tracked, reading, x) != ParamUse::ReadOnly
                }
                _ => true,
            },
            // Its address (`&oid`) is not followed: as before, the callee's fields stay the
            // caller's (a gap).
            Stmt::Assign { .. } => false,
            Stmt::Call { args, .. } => {
                let model = model_of(StmtId::from_usize(si));
                args.iter()
                    .enumerate()
                    .any(|(i, a)| of_p(a) && model.map_or(Some(ArgEffect::Keeps), |m| m.arg_effect(i)).is_some())
            }
        };
        if goes {
            return ParamFate::Escapes;
        }
    }
    if func.blocks.iter().any(|b| matches!(&b.term, Terminator::Return(Some(op)) if of_p(op))) {
        return ParamFate::Escapes;
    }
    ParamFate::Reads
}

/// What a flow-insensitive look at a parameter's value (through copies and argument-returning
/// calls) finds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParamUse {
    /// Nothing frees, keeps, stores or returns it: the parameter is only read.
    ReadOnly,
    /// Something may keep or store it, and nothing frees or returns it: it escapes. (Flow-
    /// insensitively: a store after the value was overwritten still counts, which only costs
    /// precision, never a false "freed".)
    Escapes,
    /// It may be freed or returned: only the path-sensitive pass can tell.
    NeedsFlow,
}

/// For each local, the statements that read it (as an operand, an argument, or the pointer
/// below `&p->f`), in order, each once.
pub fn statements_reading(func: &crate::ir::Function) -> Vec<Vec<u32>> {
    let mut uses: Vec<Vec<u32>> = vec![Vec::new(); func.locals.len()];
    let mut note = |l: Option<LocalId>, si: u32| {
        if let Some(l) = l {
            let v = &mut uses[l.index()];
            if v.last() != Some(&si) {
                v.push(si);
            }
        }
    };
    for (si, s) in func.stmts.iter().enumerate() {
        let si = si as u32;
        match s {
            Stmt::Assign { src: Rvalue::Use(op), .. } => note(op.local(), si),
            Stmt::Assign { src: Rvalue::AddrOf(place), .. } => note(place.pointee_of_local(), si),
            Stmt::Assign { src: Rvalue::Opaque(ops), .. } => ops.iter().for_each(|o| note(o.local(), si)),
            Stmt::Call { args, .. } => args.iter().for_each(|a| note(a.local(), si)),
        }
    }
    uses
}

/// The flow-insensitive pre-check for parameter summaries; see `ParamUse`. `reading` is
/// `statements_reading(func)`: each local that comes to hold the parameter's value is followed
/// through the statements that read it, once.
fn param_use<'m>(
    func: &crate::ir::Function,
    model_of: impl Fn(StmtId) -> Option<&'m crate::summary::Model<'m>>,
    tracked: &[bool],
    reading: &[Vec<u32>],
    p: LocalId,
) -> ParamUse {
    param_use_with(func, model_of, tracked, reading, p, &mut |_| {})
}

/// The global a parameter that escapes goes into, when every escape `param_use` finds is a
/// store into that one global (its `global_leaks::global_store_path`: `g`, `cfg.name`,
/// `names[]`) or a call that keeps the argument in it (`Summary::param_globals`):
/// `void remember(char *p) { last = p; }`. The caller's block passed there is then in that
/// global, which `global_leaks` asks the whole program about. `None` when it may go anywhere
/// else too, or is freed or returned on some path.
pub fn param_global<'m>(
    func: &crate::ir::Function,
    model_of: impl Fn(StmtId) -> Option<&'m crate::summary::Model<'m>>,
    tracked: &[bool],
    reading: &[Vec<u32>],
    p: LocalId,
) -> Option<std::sync::Arc<str>> {
    let mut into: Option<Option<std::sync::Arc<str>>> = None;
    let mut agreed = true;
    let usage = param_use_with(func, model_of, tracked, reading, p, &mut |g| match &into {
        None => into = Some(g),
        Some(first) => agreed &= *first == g && g.is_some(),
    });
    match (usage, agreed) {
        (ParamUse::Escapes, true) => into.flatten(),
        _ => None,
    }
}

/// `param_use`, telling `escape` where each escape goes: `Some(global)` for a store into a
/// global or a callee that keeps the argument in one, `None` for anywhere else.
fn param_use_with<'m>(
    func: &crate::ir::Function,
    model_of: impl Fn(StmtId) -> Option<&'m crate::summary::Model<'m>>,
    tracked: &[bool],
    reading: &[Vec<u32>],
    p: LocalId,
    escape: &mut dyn FnMut(Option<std::sync::Arc<str>>),
) -> ParamUse {
    let mut holders = vec![p];
    let mut is_holder = vec![false; func.locals.len()];
    is_holder[p.index()] = true;
    let mut escapes = false;
    let mut next = 0;
    while let Some(&h) = holders.get(next) {
        next += 1;
        let is_h = |op: &Operand| op.local() == Some(h);
        for &si in &reading[h.index()] {
            let sid = StmtId::from_usize(si as usize);
            let (dst, carries) = match &func.stmts[si as usize] {
                Stmt::Assign { dst, src: Rvalue::Use(op) } => (Some(dst), is_h(op)),
                Stmt::Assign { dst, src: Rvalue::AddrOf(place) } => (Some(dst), place.pointee_of_local() == Some(h)),
                // Arithmetic keeps a pointer (`(uintptr_t) p`, `p & ~7`), but not a difference or
                // comparison of two pointers (nano's `till_x = text - origin`): an integer.
                Stmt::Assign { dst, src: Rvalue::Opaque(ops) } => {
                    let pointers = ops.iter().filter(|o| o.local().is_some_and(|l| func.local(l).is_pointer)).count();
                    (Some(dst), ops.iter().any(is_h) && pointers < 2)
                }
                Stmt::Call { dst, args, .. } => {
                    let model = model_of(sid);
                    for (i, a) in args.iter().enumerate() {
                        if !is_h(a) {
                            continue;
                        }
                        match model.map_or(Some(ArgEffect::Keeps), |m| m.arg_effect(i)) {
                            Some(ArgEffect::Frees | ArgEffect::FreesWhen { .. } | ArgEffect::FreesIfArg { .. }) => {
                                return ParamUse::NeedsFlow
                            }
                            Some(ArgEffect::Keeps) => {
                                escapes = true;
                                escape(model.and_then(|m| m.param_global(i)).cloned());
                            }
                            _ => {}
                        }
                    }
                    let carries = model.and_then(|m| m.ret_alias()).and_then(|i| args.get(i)).is_some_and(is_h);
                    (dst.as_ref(), carries)
                }
            };
            if carries {
                match dst {
                    Some(Place::Local(l)) if tracked[l.index()] && !is_holder[l.index()] => {
                        is_holder[l.index()] = true;
                        holders.push(*l);
                    }
                    Some(Place::Local(l)) if tracked[l.index()] => {}
                    Some(d) => {
                        escapes = true;
                        escape(crate::global_leaks::global_store_path(d).map(Into::into));
                    }
                    None => {}
                }
            }
        }
    }
    let held = |op: &Operand| op.local().is_some_and(|l| is_holder[l.index()]);
    if func.blocks.iter().any(|b| matches!(&b.term, Terminator::Return(Some(op)) if held(op))) {
        ParamUse::NeedsFlow
    } else if escapes {
        ParamUse::Escapes
    } else {
        ParamUse::ReadOnly
    }
}

/// Every `return` with a value returns a local whose definitions all come from one allocating
/// call (through copies).
fn returns_only_fresh(cx: &CheckCx) -> bool {
    (0..cx.dag.n_blocks).all(|b| {
        let node = DagNode(b as u32);
        match &cx.func.block(cx.dag.block[b]).term {
            Terminator::Return(Some(op)) => match op.local() {
                Some(x) => cx.alloc_origin(x, node, cx.stmts_of(node).len()).is_some(),
                None => false,
            },
            _ => true,
        }
    })
}

/// Every `return` returns parameter `i` as it came in (`if (!sl) return sl; ...; return sl;`,
/// a function that edits a list in place and hands it back): the result is the argument itself,
/// NULL exactly when the argument is. The parameter is never assigned and its address is never
/// taken, so no path can hand back another pointer or NULL.
fn returns_param_itself(cx: &CheckCx, i: usize) -> bool {
    let func = cx.func;
    let Some(p) = func.params().nth(i) else { return false };
    if !cx.is_tracked(p) {
        return false;
    }
    let assigned = func.stmts.iter().any(|s| match s {
        Stmt::Assign { dst, .. } => dst.as_local() == Some(p),
        Stmt::Call { dst, .. } => dst.as_ref().and_then(|d| d.as_local()) == Some(p),
    });
    let mut returns = func.blocks.iter().filter_map(|b| match &b.term {
        Terminator::Return(op) => Some(op),
        _ => None,
    });
    !assigned && returns.all(|op| op.as_ref().and_then(|o| o.local()) == Some(p))
}

/// Some `return` returns the address of a member of the object parameter `p` points to
/// (`&p->f`, `&p->a.b[i]`: a place with a field step below `*p`), an address temporary.
fn returns_interior(func: &Function, addr: &hashbrown::HashMap<LocalId, Place>, p: LocalId) -> bool {
    fn has_field(pl: &Place) -> bool {
        match pl {
            Place::Field(..) => true,
            Place::Index(inner) => has_field(inner),
            Place::Deref(_) | Place::Local(_) | Place::Global(_) => false,
        }
    }
    func.blocks.iter().any(|b| match &b.term {
        Terminator::Return(Some(op)) => {
            op.local().and_then(|t| addr.get(&t)).is_some_and(|pl| pl.pointee_of_local() == Some(p) && has_field(pl))
        }
        _ => false,
    })
}

/// No `return` is reachable from the entry (paths end in noreturn calls or loop forever).
pub fn never_returns(func: &crate::ir::Function, ends_path: impl Fn(StmtId) -> bool) -> bool {
    let mut seen = vec![false; func.blocks.len()];
    let mut work = vec![func.entry];
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut seen[b.index()], true) {
            continue;
        }
        let block = func.block(b);
        if block.stmts.iter().any(|s| ends_path(*s)) {
            continue;
        }
        match &block.term {
            Terminator::Return(_) => return false,
            t => work.extend(t.successors()),
        }
    }
    true
}
