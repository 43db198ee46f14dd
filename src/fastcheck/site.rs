//! Judging the allocation sites of one function: which cells calls make, one value-flow pass per
//! cell, and the leak and double-free queries on its events.
//!
//! Input: a completed `CheckCx`, the `Config` budgets. Output: one `SiteVerdict` per site, in
//! statement order (`check_function`).
//! Invariants:
//! - Every site's pass runs before any site is judged: whether a cell left inside another of
//!   the function's cells leaks depends on that cell's fate, which the held-by resolution
//!   (`reach`) decides from all the passes.
//! - Facts only ever cut paths: the sites are checked without them first and again with them
//!   only when a verdict could change, so following facts never adds a report.
//! - A budget hit gives `Category::OverBudget` for the site, never a silent "no bug".

use super::flow::{escape_kind, flow, label_guard, m_values, walk, Event, EventKind, Globals, HeldAtReturns, WalkGoal};
use super::{CheckCx, Config, EscapeKind, HandTo, Lost, SiteSlot, SiteVerdict, Step, Timings};
use crate::cfg::{DagNode, Key};
use crate::diag::Category;
use crate::guard::{AtomId, GuardId, Guards};
use crate::ir::{Callee, LocalId, Place, Stmt, StmtId, Terminator};
use crate::libmodel::{ArgEffect, RetEffect};
use crate::sat::{Answer, Model, Solver};

/// The cells calls make: (node, statement index, statement, which cell).
pub fn sites(cx: &CheckCx) -> Vec<(DagNode, usize, StmtId, SiteSlot)> {
    let mut out = Vec::new();
    for b in 0..cx.dag.n_blocks {
        let node = DagNode(b as u32);
        for (i, s) in cx.stmts_of(node).iter().enumerate() {
            let Some(model) = cx.model(*s) else { continue };
            let fresh = matches!(model.ret, RetEffect::Fresh(_));
            if fresh {
                out.push((node, i, *s, SiteSlot::Result));
            }
            if !model.ret_paths.is_empty() {
                let Stmt::Call { dst, .. } = cx.func.stmt(*s) else { continue };
                match dst {
                    Some(d) => {
                        for path in &model.ret_paths {
                            if cx.result_place_slot(d, path).is_some() {
                                out.push((node, i, *s, SiteSlot::ResultPath(path.clone())));
                            }
                        }
                    }
                    // A struct returned by value that nobody stores: its cells are lost with it
                    // (an allocator's result is a site of its own, which says so).
                    None if !fresh => {
                        for path in &model.ret_paths {
                            out.push((node, i, *s, SiteSlot::ResultPath(path.clone())));
                        }
                    }
                    _ => {}
                }
            }
            for (a, e) in &model.args {
                if matches!(e, ArgEffect::OutFresh(_) | ArgEffect::OutRealloc) {
                    out.push((node, i, *s, SiteSlot::Arg(*a)));
                }
            }
            for name in model.global_fresh.iter() {
                out.push((node, i, *s, SiteSlot::Global(name.clone())));
            }
            // Cells a callee leaves where this function cannot follow them stay in the objects
            // it passed in, reachable from its own roots: no site of their own here.
            let Stmt::Call { args, .. } = cx.func.stmt(*s) else { continue };
            for (a, path, _) in &model.out_paths {
                if args.get(*a).and_then(|arg| cx.callee_slot(arg, path)).is_some() {
                    out.push((node, i, *s, SiteSlot::ArgPath(*a, path.clone())));
                }
            }
        }
    }
    out.sort_by(|x, y| (x.2, &x.3).cmp(&(y.2, &y.3)));
    out
}

/// Check every allocation site of one function.
///
/// Facts (`cx.facts`) only ever cut paths, and following them costs guard nodes at every edge:
/// the sites are checked without them first, and again with them only when some verdict is one
/// they could change (`facts_may_matter`).
pub fn check_function(cx: &CheckCx, config: &Config, is_main: bool, timings: &mut Timings) -> Vec<SiteVerdict> {
    let sites = sites(cx);
    if sites.is_empty() {
        return Vec::new();
    }
    let started = std::time::Instant::now();
    // A check's arena ends at a few nodes per DAG node: sized for that, it is not rehashed on
    // the way.
    let mut guards = Guards::with_capacity(config.max_guard_nodes_entry, 4 * cx.dag.len());
    guards.set_budget(cx.budget.clone());
    for g in &cx.groups {
        guards.declare_exactly_one(g[0].0, g);
    }
    let p_entry = entry_guards(cx, &mut guards);
    timings.value_flow += started.elapsed();
    // Both passes start from this arena: a second pass gets a copy of it, which is the arena it
    // would build again node for node (the same guard ids), for much less than rebuilding it.
    let base = (!cx.facts.is_empty()).then(|| (guards.clone(), p_entry.clone()));
    // Where a second pass is possible, the first stops (`None`) at the first verdict facts may
    // change: the second pass is then certain and replaces every verdict, and what the first
    // would still compute is thrown away.
    let plain = check_sites(cx, config, is_main, timings, &sites, guards, p_entry, None, base.is_some());
    match base {
        Some((guards, p_entry)) if plain.as_ref().is_none_or(|p| p.iter().any(facts_may_matter)) => {
            let started = std::time::Instant::now();
            let followed = cx.facts.follow(cx);
            timings.value_flow += started.elapsed();
            check_sites(cx, config, is_main, timings, &sites, guards, p_entry, Some(&followed), false)
                .unwrap_or_default()
        }
        _ => plain.unwrap_or_default(),
    }
}

/// A verdict that following facts may change: a leak, a double free, or a cell handed to the
/// caller (whether the function is an allocator, and `Summary::ret_values`, depend on which paths
/// really return it).
fn facts_may_matter(v: &SiteVerdict) -> bool {
    v.leak.is_some() || v.double_free.is_some() || v.returned || v.handed.is_some()
}

/// `guards`: an arena holding the function's exactly-one groups and the guards of reaching each
/// node from the entry (`p_entry`, `None` when they were over budget), and nothing else.
/// `followed`: the facts' statement effects and liveness, for the pass that follows facts.
/// With `stop_early`, `None` as soon as some site's verdict is one facts may change: as soon as
/// its value flow returns the cell, or its queries are answered.
#[allow(clippy::too_many_arguments)]
fn check_sites(
    cx: &CheckCx,
    config: &Config,
    is_main: bool,
    timings: &mut Timings,
    sites: &[(DagNode, usize, StmtId, SiteSlot)],
    mut guards: Guards,
    p_entry: Option<Vec<GuardId>>,
    followed: Option<&crate::facts::Followed>,
    stop_early: bool,
) -> Option<Vec<SiteVerdict>> {
    let started = std::time::Instant::now();
    // What holds of the followed values on every path to each point, for the sites' start.
    let must = followed.map(|f| (f, f.must_at_entry(&cx.facts, cx)));
    timings.value_flow += started.elapsed();
    // Every site's value flow first: whether a cell left inside another of this function's
    // cells leaks depends on that cell's fate (`reach`).
    let mut prepared: Vec<Prepared> = Vec::with_capacity(sites.len());
    for (node, idx, stmt, slot) in sites {
        let psrc = p_entry.as_ref().map(|p| p[node.index()]).unwrap_or(GuardId::TRUE);
        let must = must.as_ref().map(|(f, m)| (*f, m.as_slice()));
        let p = flow_site(cx, config, &mut guards, psrc, *node, *idx, *stmt, slot.clone(), is_main, must, timings);
        let decided = match &p {
            Prepared::Done(v) => facts_may_matter(v),
            Prepared::Flowed(f) => f.events.iter().any(|e| matches!(e.kind, EventKind::Return)),
        };
        if stop_early && decided {
            cx.note_timeout(guards.timed_out());
            return None;
        }
        prepared.push(p);
    }
    let mut solver = Solver::new(&cx.groups, config.sat_conflicts).with_ors(&cx.ors);
    solver.set_budget(cx.budget.clone());
    let started = std::time::Instant::now();
    let any_inside = prepared
        .iter()
        .any(|p| matches!(p, Prepared::Flowed(f) if f.events.iter().any(|e| matches!(e.kind, EventKind::Inside(_)))));
    let resolved = if any_inside {
        let facts: Vec<Option<crate::reach::SiteFacts>> = prepared
            .iter()
            .map(|p| match p {
                Prepared::Done(_) => None,
                Prepared::Flowed(f) => Some(site_facts(cx, &mut guards, f)),
            })
            .collect();
        guards.allow_more(config.max_guard_nodes_per_site);
        crate::reach::resolve(cx, &mut guards, &facts)
    } else {
        vec![crate::reach::Held::none(); prepared.len()]
    };
    timings.value_flow += started.elapsed();
    let mut verdicts = Vec::with_capacity(prepared.len());
    for (p, held) in prepared.into_iter().zip(resolved) {
        let v = match p {
            Prepared::Done(v) => v,
            Prepared::Flowed(f) => judge_site(cx, config, &mut guards, &mut solver, f, &held, is_main, timings),
        };
        if stop_early && facts_may_matter(&v) {
            cx.note_timeout(guards.timed_out());
            return None;
        }
        verdicts.push(v);
    }
    cx.note_timeout(guards.timed_out());
    Some(verdicts)
}

/// What the held-by resolution needs of a site after its value flow.
fn site_facts(cx: &CheckCx, guards: &mut Guards, f: &Flowed) -> crate::reach::SiteFacts {
    let mut direct = GuardId::FALSE;
    let mut inside = Vec::new();
    for e in &f.events {
        match &e.kind {
            EventKind::Inside(h) => inside.push((*h, e.guard)),
            _ => direct = guards.or(direct, e.guard),
        }
    }
    crate::reach::SiteFacts {
        stmt: f.verdict.stmt,
        is_result: f.slot == SiteSlot::Result,
        ok: cx.success_atom.get(&f.verdict.stmt).copied(),
        direct,
        inside,
    }
}

/// A site after its value-flow pass, before its queries.
struct Flowed {
    verdict: SiteVerdict,
    events: Vec<Event>,
    rets: Vec<(DagNode, GuardId, Option<i64>)>,
    /// Per `cx.facts.ret_keys` key and value: the guard of returning the cell where the key is
    /// not known to hold that value.
    unknown_held: HeldAtReturns,
    psrc: GuardId,
    x: Key,
    /// The global the cell starts in instead of `x` (`Globals::HoldFrom`).
    start_global: Option<std::sync::Arc<str>>,
    fold: Option<(AtomId, bool)>,
    node0: DagNode,
    idx0: usize,
    slot: SiteSlot,
}

enum Prepared {
    /// Decided without queries (no holder, over budget, a discarded result).
    Done(SiteVerdict),
    Flowed(Flowed),
}

/// Guards of reaching each node from the function entry (for correlated tests before the
/// site), or `None` when they exceed their budget.
fn entry_guards(cx: &CheckCx, guards: &mut Guards) -> Option<Vec<GuardId>> {
    let n = cx.dag.len();
    let mut p = vec![GuardId::FALSE; n];
    p[cx.func.entry.index()] = GuardId::TRUE;
    for nd in &cx.dag.topo {
        guards.tick();
        let here = p[nd.index()];
        if here == GuardId::FALSE {
            continue;
        }
        for (t, label) in &cx.dag.succs[nd.index()] {
            let l = label_guard(guards, label, None);
            let g = guards.and(here, l);
            p[t.index()] = guards.or(p[t.index()], g);
        }
        if guards.over_budget() {
            guards.reset_budget();
            return None;
        }
    }
    Some(p)
}

#[allow(clippy::too_many_arguments)]
fn flow_site(
    cx: &CheckCx,
    config: &Config,
    guards: &mut Guards,
    psrc: GuardId,
    node0: DagNode,
    idx0: usize,
    stmt: StmtId,
    slot: SiteSlot,
    is_main: bool,
    must: Option<(&crate::facts::Followed, &[Option<Vec<(u32, crate::facts::Fact)>>])>,
    timings: &mut Timings,
) -> Prepared {
    let started = std::time::Instant::now();
    let slot = &slot;
    let Stmt::Call { dst, callee, args } = cx.func.stmt(stmt) else { unreachable!("sites are calls") };
    let allocator = match callee {
        Callee::Direct { name, .. } => name.clone(),
        Callee::Indirect { sig, .. } => cx.model(stmt).map_or(crate::ir::indirect_name(sig), |m| m.name).to_string(),
    };
    let mut verdict = SiteVerdict {
        stmt,
        allocator,
        category: Category::Unknown,
        leak: None,
        double_free: None,
        escapes: Vec::new(),
        returned: false,
        returned_if: Vec::new(),
        handed_if: Vec::new(),
        shared: false,
        handed: None,
        sat_queries: 0,
        cycle_with: Vec::new(),
        ret_values: Vec::new(),
        out_values: Vec::new(),
        stored_out: false,
        global_borrowed: false,
        // The result's family, or a library out-parameter's; a summarised callee's cells below
        // its arguments have none.
        family: cx.model(stmt).and_then(|m| match slot {
            SiteSlot::Result => m.alloc_family,
            SiteSlot::Arg(_) if m.lib => m.alloc_family,
            _ => None,
        }),
        mismatches: Vec::new(),
    };
    // No path from the entry reaches the site (it sits under a constant or decided test:
    // `if (0)`, a parameter no caller passes NULL): it allocates nothing, and in particular
    // returns nothing, which would make the function an allocator.
    if psrc == GuardId::FALSE {
        verdict.category = Category::FreedAlways;
        return Prepared::Done(verdict);
    }
    // A callee that allocates only under a flag argument (the result, `fresh_if_arg`, or an
    // optional field of it, `ret_paths_if`): the cell exists only when the caller's flag says so.
    let mut psrc = psrc;
    let optional = match slot {
        SiteSlot::ResultPath(path) => {
            cx.model(stmt).and_then(|m| m.ret_paths_if.iter().find(|p| p.0 == *path).map(|p| p.1))
        }
        _ => None,
    };
    for (flag, mask, when) in cx.model(stmt).and_then(|m| m.fresh_if_arg).into_iter().chain(optional) {
        match cx.flag_atom.get(&(stmt, flag, mask)) {
            Some(a) => {
                let l = guards.lit(*a, when);
                psrc = guards.and(psrc, l);
            }
            None => {
                verdict.escapes.push(EscapeKind::Undecided);
                return Prepared::Done(verdict);
            }
        }
    }
    // Where the cell is first stored: the result, or the out-parameter this site is about.
    let holder: Result<Key, Option<EscapeKind>> = match slot {
        SiteSlot::Arg(i) => match args.get(*i) {
            Some(a) => match cx.out_param_place(a) {
                Some(place) => cx.key_of(place).ok_or_else(|| Some(escape_kind(cx, place))),
                // `f(out)` with `out` a pointer this function was given: `*out`.
                None => cx.callee_slot(a, "*").ok_or(Some(EscapeKind::Heap)),
            },
            None => Err(None),
        },
        SiteSlot::ArgPath(i, path) => match args.get(*i) {
            Some(a) => cx.callee_slot(a, path).ok_or(Some(EscapeKind::Heap)),
            None => Err(None),
        },
        SiteSlot::ResultPath(path) => {
            // The field exists only when the object does: the call's own success.
            if let Some(a) = cx.success_atom.get(&stmt) {
                let ok = guards.lit(*a, true);
                psrc = guards.and(psrc, ok);
            }
            match dst {
                Some(d) => cx.result_place_slot(d, path).ok_or(Some(EscapeKind::Heap)),
                None => Err(None),
            }
        }
        SiteSlot::Result => match dst {
            Some(place) => cx.key_of(place).ok_or_else(|| Some(escape_kind(cx, place))),
            None => Err(None),
        },
        SiteSlot::Global(name) => Err(Some(EscapeKind::Global(name.clone()))),
    };
    // Two arguments that name one place: a fresh cell the callee stores there first is
    // overwritten by its later store (`pair_alloc(&x, &x)`).
    let handed_at = match slot {
        SiteSlot::Arg(i) => Some((*i, "*")),
        SiteSlot::ArgPath(i, path) => Some((*i, &**path)),
        _ => None,
    };
    if let Some((i, path)) = handed_at {
        if let Some((other, name)) = crate::alias::overwritten_in_callee(cx, stmt, node0, idx0, i, path) {
            verdict.category = if is_main { Category::NeverFreedMain } else { Category::NeverFreedLocal };
            let loc = cx.func.stmt_loc(stmt);
            let callee = verdict.allocator.clone();
            verdict.leak =
                Some(vec![Step::Lost { loc, how: Lost::AliasedInCallee { callee, args: (i, other), slot: name } }]);
            return Prepared::Done(verdict);
        }
    }
    let (x, globals) = match holder {
        Ok(x) => (x, Globals::Hold),
        // Stored straight into a named global (`g = strdup(s)`): followed there, so that a later
        // store into it that loses the cell is a leak. The start key is no slot of the function.
        // An element of a global array (`names[]`) is not followed: which one a later store
        // overwrites is not known.
        Err(Some(EscapeKind::Global(name)))
            if matches!(slot, SiteSlot::Result | SiteSlot::Global(_)) && !name.contains('[') =>
        {
            (Key { root: LocalId(u32::MAX), path: u32::MAX }, Globals::HoldFrom(name))
        }
        Err(Some(kind)) => {
            verdict.escapes.push(kind);
            verdict.category = Category::Unknown;
            return Prepared::Done(verdict);
        }
        // The cells of a discarded struct (`Summary::ret_fresh`) exist wherever their allocations
        // succeeded.
        Err(None) if !matches!(slot, SiteSlot::ResultPath(_)) && !cx.model(stmt).is_some_and(|m| m.always_fresh) => {
            // A wrapper that does not always return fresh memory (`alloc(p, 0)` frees and
            // returns NULL): a discarded result says nothing.
            verdict.escapes.push(EscapeKind::Discarded);
            verdict.category = Category::Unknown;
            return Prepared::Done(verdict);
        }
        Err(None) => {
            verdict.category = if is_main { Category::NeverFreedMain } else { Category::NeverFreedLocal };
            let loc = cx.func.stmt_loc(stmt);
            let how = match slot {
                SiteSlot::ResultPath(path) => Lost::DiscardedIn(path.clone()),
                _ => Lost::Discarded,
            };
            verdict.leak = Some(vec![Step::Lost { loc, how }]);
            return Prepared::Done(verdict);
        }
    };

    guards.allow_more(config.max_guard_nodes_per_site);
    let site_atom = cx.success_atom.get(&stmt).copied();
    let fold = site_atom.map(|a| (a, true));
    // The flow folds the site's success to true, but a switch on the call's result defines that
    // success from the switch's value atoms (`FnCx::ors`), a relation only the solver knows:
    // every query is asked under it.
    if let Some(a) = site_atom.filter(|a| cx.ors.iter().any(|o| o.0 == *a)) {
        let ok = guards.lit(a, true);
        psrc = guards.and(psrc, ok);
    }

    // What is known of the followed values where the pass starts: what holds on every path to
    // the site, and the places a callee leaves at 0 when its result exists (`p = alloc(&rc, n)`,
    // `d = read(p)` with `p->rc`).
    let mut init: Vec<(u32, crate::facts::Fact, GuardId)> = Vec::new();
    let with_facts = must.is_some();
    if let Some((followed, at)) = must.and_then(|(f, m)| Some((f, m[node0.index()].as_ref()?))) {
        init.extend(at.iter().map(|(k, f)| (*k, *f, GuardId::TRUE)));
        for sid in &cx.stmts_of(node0)[..=idx0] {
            followed.apply(*sid, &mut init, GuardId::TRUE);
        }
    }
    // The site's result exists: an allocator that returns NULL for a constant argument was not
    // given it (`Model::null_when`).
    if let (Some(m), true, SiteSlot::Result, Stmt::Call { args: call_args, .. }) =
        (cx.model(stmt), with_facts, slot, cx.func.stmt(stmt))
    {
        let not_given = super::flow::null_when_facts(cx, m, call_args);
        init.extend(not_given.into_iter().map(|(k, c)| (k, crate::facts::Fact::Ne(c), GuardId::TRUE)));
    }
    if let (Some(m), true) = (cx.model(stmt), with_facts) {
        let values: &[_] = match slot {
            SiteSlot::Result => &m.ret_values,
            SiteSlot::Arg(_) | SiteSlot::ArgPath(..) => &m.out_values,
            SiteSlot::ResultPath(_) | SiteSlot::Global(_) => &[],
        };
        let mut seen: Vec<u32> = Vec::new();
        for (i, path, held) in values {
            let Some((root, prefix)) = args.get(*i).and_then(|a| cx.arg_slots(a)) else { continue };
            // The callee took its pointer parameters to name distinct objects (`facts`: a store
            // through one leaves the others' places alone); a call that passes one object twice
            // (`f(&rc, .., &rc)`) breaks that.
            let twice =
                args.iter().enumerate().any(|(j, a)| j != *i && cx.arg_slots(a).is_some_and(|(r, _)| r == root));
            if twice {
                continue;
            }
            if let Some(k) = cx.facts.key(root, &format!("{prefix}{}", &path[1..])) {
                // A place may hold several values (`> 0` is also `≠ 0`): one fact meets them.
                let mut fact = crate::facts::Fact::held(*held);
                if let Some(f) = init.iter().find(|f| f.0 == k && f.2 == GuardId::TRUE && seen.contains(&k)) {
                    fact = f.1.meet(fact);
                }
                init.retain(|f| f.0 != k);
                init.push((k, fact, GuardId::TRUE));
                seen.push(k);
            }
        }
    }
    // The status an out-parameter allocator returns where its cell exists (`ret = vasprintf
    // (&s, ..)` is at least 0): a later test that finds it failed is not taken on this pass.
    if let (Some(m), true, SiteSlot::Arg(_) | SiteSlot::ArgPath(..)) = (cx.model(stmt), with_facts, &slot) {
        let ok = match crate::cfg::call_success(m) {
            Some(crate::libmodel::Success::RetNonNegative) => Some(crate::facts::Fact::In(0, i64::MAX)),
            Some(crate::libmodel::Success::RetZero) => Some(crate::facts::Fact::In(0, 0)),
            Some(crate::libmodel::Success::Range { ok, .. }) => Some(crate::facts::Fact::In(ok.0, ok.1)),
            _ => None,
        };
        if let (Some(f), Stmt::Call { dst: Some(Place::Local(r)), .. }) = (ok, cx.func.stmt(stmt)) {
            if let Some(k) = cx.facts.key(*r, "") {
                init.retain(|x| x.0 != k);
                init.push((k, f, GuardId::TRUE));
            }
        }
    }
    let mut rets = Vec::new();
    let mut unknown_held = HeldAtReturns::default();
    let events = flow(
        cx,
        guards,
        node0,
        idx0 + 1,
        x,
        fold,
        Some(&mut rets),
        false,
        must.map(|(f, _)| (f, &init[..])),
        Some(&mut unknown_held),
        globals.clone(),
    );
    if guards.over_budget() {
        guards.reset_budget();
        verdict.category = Category::OverBudget;
        return Prepared::Done(verdict);
    }

    timings.value_flow += started.elapsed();
    let start_global = match globals {
        Globals::HoldFrom(name) => Some(name),
        _ => None,
    };
    Prepared::Flowed(Flowed {
        verdict,
        events,
        rets,
        unknown_held,
        psrc,
        x,
        start_global,
        fold,
        node0,
        idx0,
        slot: slot.clone(),
    })
}

/// The queries of one site, once the held-by resolution has said when the objects its cell
/// was left inside are themselves kept (`held`).
#[allow(clippy::too_many_arguments)]
fn judge_site(
    cx: &CheckCx,
    config: &Config,
    guards: &mut Guards,
    solver: &mut Solver,
    f: Flowed,
    held: &crate::reach::Held,
    is_main: bool,
    timings: &mut Timings,
) -> SiteVerdict {
    let started = std::time::Instant::now();
    let Flowed { mut verdict, events, rets, unknown_held, psrc, x, start_global, fold, node0, idx0, slot: _ } = f;
    let start = (x, start_global.as_deref());
    guards.allow_more(config.max_guard_nodes_per_site);
    let mut has_free = false;
    let mut has_ret = false;
    let mut has_escape = false;
    // Escapes other than into another object of this function (for the category of a leak).
    let mut has_outer_escape = false;
    // Where the cell is handed to the caller other than as the result, and the guard of that.
    let mut stored_in: Vec<HandTo> = Vec::new();
    let mut stored_any = GuardId::FALSE;
    for e in &events {
        match &e.kind {
            EventKind::Free(_) | EventKind::FreedAgain => has_free = true,
            EventKind::Return => has_ret = true,
            EventKind::Stored { param, path } => {
                has_ret = true;
                let to = HandTo::Param(*param, path.clone());
                if !stored_in.contains(&to) {
                    stored_in.push(to);
                }
                stored_any = guards.or(stored_any, e.guard);
            }
            EventKind::ReturnedIn(path) => {
                has_ret = true;
                let to = HandTo::Result(cx.path_text(*path).into());
                if !stored_in.contains(&to) {
                    stored_in.push(to);
                }
                stored_any = guards.or(stored_any, e.guard);
            }
            EventKind::Escape(k) => {
                has_escape = true;
                has_outer_escape = true;
                if !verdict.escapes.contains(k) {
                    verdict.escapes.push(k.clone());
                }
            }
            // Where the object it is inside is not kept, neither is the cell; as a category it
            // stays what it was before the resolution: stored into the heap.
            EventKind::Inside(_) => {
                has_escape = true;
                if !verdict.escapes.contains(&EscapeKind::Heap) {
                    verdict.escapes.push(EscapeKind::Heap);
                }
            }
            EventKind::Exit | EventKind::Kept => {}
        }
    }
    verdict.returned = events.iter().any(|e| matches!(e.kind, EventKind::Return));
    // Returned and also left in a parameter's object (linked into a parent list): owned by a
    // structure the caller can reach, so no leak here; but the caller does not own the result.
    verdict.shared = verdict.returned && !stored_in.is_empty();
    verdict.escapes.sort();
    // Every event ends the function's responsibility, except that a cell inside another object
    // is kept only when that object is (`held.inside_fine`).
    let mut any = held.inside_fine;
    for e in events.iter().filter(|e| !matches!(e.kind, EventKind::Inside(_))) {
        any = guards.or(any, e.guard);
    }
    // The other cells' fates are computed with their own success as given: here this cell exists.
    let own = match held.assume {
        Some(a) => guards.lit(a, true),
        None => GuardId::TRUE,
    };
    if guards.over_budget() {
        guards.reset_budget();
        verdict.category = Category::OverBudget;
        return verdict;
    }
    // For "allocates only under a flag" summaries: the flag literals to test the returns against.
    let mut returned_any = GuardId::FALSE;
    let mut flag_lits = Vec::new();
    if has_ret {
        for e in events.iter().filter(|e| matches!(e.kind, EventKind::Return)) {
            returned_any = guards.or(returned_any, e.guard);
        }
    }
    // Into a named global on these paths, freed on those (`SiteVerdict::global_borrowed`).
    let mut into_global = GuardId::FALSE;
    let mut freed_any = GuardId::FALSE;
    for e in &events {
        match e.kind {
            EventKind::Escape(EscapeKind::Global(_)) => into_global = guards.or(into_global, e.guard),
            EventKind::Free(_) | EventKind::FreedAgain => freed_any = guards.or(freed_any, e.guard),
            _ => {}
        }
    }
    if has_ret || stored_any != GuardId::FALSE {
        for (atom, flag, mask) in &cx.param_tests {
            let Some(index) = cx.func.params().position(|q| q == *flag) else { continue };
            for when in [true, false] {
                flag_lits.push((index, *mask, when, guards.lit(*atom, when), *atom));
            }
        }
    }
    if guards.over_budget() {
        guards.reset_budget();
        verdict.category = Category::OverBudget;
        return verdict;
    }
    let frees: Vec<&Event> =
        events.iter().filter(|e| matches!(e.kind, EventKind::Free(_) | EventKind::FreedAgain) && !e.weak).collect();
    // Pairs in order, made as they are asked: n frees are n²/2 pairs, too many to list first.
    // A later iteration's free pairs only with the frees before it (`EventKind::FreedAgain`).
    let pair_guards = (0..frees.len())
        .filter(|&i| !matches!(frees[i].kind, EventKind::FreedAgain))
        .flat_map(|i| (i + 1..frees.len()).map(move |j| (i, j)));

    let sat_started = std::time::Instant::now();
    timings.value_flow += sat_started - started;
    let guards_ro: &Guards = guards;
    // One solver for all the sites of the function: its clauses are definitions of guard nodes
    // (and switch constraints), true whatever the query, so they are shared.
    let queries_before = solver.queries;
    let leak = solver.check(guards_ro, &[(psrc, true), (own, true), (any, false)]);
    if into_global != GuardId::FALSE && freed_any != GuardId::FALSE {
        verdict.global_borrowed =
            matches!(solver.check(guards_ro, &[(psrc, true), (into_global, true), (freed_any, false)]), Answer::Unsat);
    }
    let mut unknown = false;
    let mut leak_model = match leak {
        Answer::Sat(m) => Some(m),
        Answer::Unsat => None,
        Answer::Unknown => {
            unknown = true;
            None
        }
    };
    // A lost structure is reported at its roots: a cell lost only where another lost cell (out
    // of its own cycle) still points to it is that cell's leak, not one of its own.
    if leak_model.is_some() && held.held_out != GuardId::FALSE {
        match solver.check(guards_ro, &[(psrc, true), (own, true), (any, false), (held.held_out, false)]) {
            Answer::Sat(m) => leak_model = Some(m),
            Answer::Unsat => leak_model = None,
            Answer::Unknown => unknown = true,
        }
    }
    let mut df: Option<(Model, usize, usize)> = None;
    for (i, j) in pair_guards {
        match solver.check(guards_ro, &[(psrc, true), (frees[i].guard, true), (frees[j].guard, true)]) {
            Answer::Sat(m) => {
                df = Some((m, i, j));
                break;
            }
            Answer::Unsat => {}
            Answer::Unknown => {
                unknown = true;
                // Out of budget, every later pair is unknown too.
                if cx.budget.over() {
                    break;
                }
            }
        }
    }
    for &(index, mask, when, lit, _) in flag_lits.iter().filter(|_| has_ret) {
        // Returned only when the flag test holds. A site no feasible path returns is returned
        // only under every test, so the summary's choice is left to the other sites.
        if let Answer::Unsat = solver.check(guards_ro, &[(psrc, true), (returned_any, true), (lit, false)]) {
            verdict.returned_if.push((index, mask, when));
        }
    }
    // Returned: which places below parameters (error codes, flags) hold one value wherever it is.
    // A place below a parameter exists only where the parameter is not NULL: a caller that tests
    // it passed an object (`if (es) es->subtype = 1;` then `&es` in the caller).
    let holds_below = |solver: &mut Solver, root: LocalId, bad: GuardId| {
        if bad == GuardId::FALSE {
            return true;
        }
        let mut q = vec![(psrc, true), (bad, true)];
        if let Some(i) = cx.param_index(root) {
            q.extend(flag_lits.iter().filter(|l| l.0 == i && l.1 == -1 && l.2).map(|l| (l.3, true)));
        }
        matches!(solver.check(guards_ro, &q), Answer::Unsat)
    };
    if verdict.returned {
        for (k, held, bad) in &unknown_held.returned {
            let (root, path) = &cx.facts.keys[*k as usize];
            if holds_below(solver, *root, *bad) {
                if let Some(i) = cx.param_index(*root) {
                    verdict.ret_values.push((i, path.as_str().into(), *held));
                }
            }
        }
    }
    if let ([to], None, false) = (stored_in.as_slice(), &leak_model, has_escape) {
        verdict.handed = match to {
            // Inside the returned object: it exists whenever the object is returned, if nothing
            // but allocation successes decide whether the allocation runs (not `if (tooltip)`).
            // Or if allocation successes and one test of a flag parameter decide it, and the
            // flag holds wherever it exists: an optional field (`if (tip) w->tooltip =
            // strdup (tip);`) exists where the caller's flag argument says so (`handed_if`).
            HandTo::Result(_) => {
                let support = guards_ro.support(&[psrc]);
                let is_success = |a: &AtomId| cx.success_atom.values().any(|s| s == a);
                if support.iter().all(is_success) {
                    Some((to.clone(), crate::libmodel::Success::Always))
                } else {
                    let flag = flag_lits.iter().find(|&&(_, _, _, lit, atom)| {
                        support.iter().all(|a| *a == atom || is_success(a))
                            && matches!(solver.check(guards_ro, &[(psrc, true), (lit, false)]), Answer::Unsat)
                    });
                    flag.map(|&(index, mask, when, _, _)| {
                        verdict.handed_if.push((index, mask, when));
                        (to.clone(), crate::libmodel::Success::Always)
                    })
                }
            }
            HandTo::Param(..) => out_success(cx, solver, guards_ro, psrc, stored_any, &rets).map(|s| (to.clone(), s)),
        };
        // Stored for the caller only under a flag: `if (hint) grow(sb, hint);` in git's
        // `strbuf_init (sb, 0)`, which allocates nothing.
        if let Some((HandTo::Param(..), _)) = &verdict.handed {
            for &(index, mask, when, lit, _) in &flag_lits {
                if let Answer::Unsat = solver.check(guards_ro, &[(psrc, true), (stored_any, true), (lit, false)]) {
                    verdict.handed_if.push((index, mask, when));
                }
            }
        }
    }
    // Which places below parameters hold one value wherever it is left below one: a count
    // stepped with the store (`v[(*n)++] = p`, `sb->len++`). Also for a cell that is not
    // handed back (it escapes on other paths): the caller may find it where it finds a handed
    // one (`sb_grow(sb, n); if (c) sb_addch(sb, ch);` leaves the first cell with `sb->len` 0).
    verdict.stored_out = stored_in.iter().any(|t| matches!(t, HandTo::Param(..)));
    if verdict.stored_out {
        let handed = verdict.handed.is_some();
        for (k, held, bad) in &unknown_held.stored {
            if !handed && !unknown_held.stored_known.contains(&(*k, *held)) {
                continue;
            }
            let (root, path) = &cx.facts.keys[*k as usize];
            if holds_below(solver, *root, *bad) {
                if let Some(i) = cx.param_index(*root) {
                    verdict.out_values.push((i, path.as_str().into(), *held));
                }
            }
        }
    }
    verdict.sat_queries = solver.queries - queries_before;
    timings.sat += sat_started.elapsed();
    if unknown && leak_model.is_none() && df.is_none() {
        verdict.category = Category::OverBudget;
        return verdict;
    }

    verdict.category = match &leak_model {
        Some(_) if !has_free && !has_ret && !has_outer_escape => {
            if is_main {
                Category::NeverFreedMain
            } else {
                Category::NeverFreedLocal
            }
        }
        Some(_) => Category::FreedConditional,
        None if has_escape && !has_free && !has_ret => Category::NeverFreedNotLocal,
        None if has_escape => Category::Unknown,
        None if has_free => Category::FreedAlways,
        None if has_ret => Category::Returned,
        None => Category::FreedAlways,
    };
    let support_of = |roots: &[GuardId]| guards_ro.support(roots);
    if let Some(m) = &leak_model {
        verdict.cycle_with = held.cycle_with.clone();
        let support = support_of(&[psrc, any]);
        verdict.leak = Some(walk(cx, &m_values(m), &support, fold, node0, idx0 + 1, start, WalkGoal::Leak));
    }
    if let Some((m, i, j)) = &df {
        let support = support_of(&[psrc, frees[*i].guard, frees[*j].guard]);
        verdict.double_free =
            Some(walk(cx, &m_values(m), &support, fold, node0, idx0 + 1, start, WalkGoal::SecondFree));
    }
    // Released by a deallocator of another family on some path: once per deallocating call.
    if let Some(family) = verdict.family {
        let started = std::time::Instant::now();
        let queries_before = solver.queries;
        for e in events.iter().filter(|e| !e.weak) {
            let EventKind::Free(Some((at, other))) = e.kind else { continue };
            if other == family || verdict.mismatches.iter().any(|m| m.at == at) {
                continue;
            }
            if let Answer::Sat(m) = solver.check(guards_ro, &[(psrc, true), (e.guard, true)]) {
                let support = support_of(&[psrc, e.guard]);
                let steps = walk(cx, &m_values(&m), &support, fold, node0, idx0 + 1, start, WalkGoal::FreeAt(at));
                verdict.mismatches.push(crate::fastcheck::Mismatch { at, family: other, steps });
            }
        }
        verdict.sat_queries += solver.queries - queries_before;
        timings.sat += started.elapsed();
    }
    verdict
}

/// How a caller tells that an out-parameter received the cell: on every return (`Always`), or
/// on the returns of one range of constants when the others return constants outside it.
/// `None` when the return value cannot tell (the caller then sees no allocation).
pub(super) fn out_success(
    cx: &CheckCx,
    solver: &mut Solver,
    guards: &Guards,
    psrc: GuardId,
    stored: GuardId,
    rets: &[(DagNode, GuardId, Option<i64>)],
) -> Option<crate::libmodel::Success> {
    let mut stored_blocks: Vec<crate::ir::BlockId> = Vec::new();
    let mut ok: Option<(i64, i64)> = None;
    let widen = |r: &mut Option<(i64, i64)>, v: i64| *r = Some(r.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
    let mut void_stored = false;
    for (node, p, value) in rets {
        let yes = matches!(solver.check(guards, &[(psrc, true), (*p, true), (stored, true)]), Answer::Sat(_));
        if !yes {
            continue;
        }
        if !matches!(solver.check(guards, &[(psrc, true), (*p, true), (stored, false)]), Answer::Unsat) {
            return None; // this return is reached with and without the cell stored
        }
        stored_blocks.push(cx.dag.block[node.index()]);
        match value {
            Some(v) => widen(&mut ok, *v),
            None => void_stored = true,
        }
    }
    // A function that returns no value: the caller can only test the pointer itself, and a
    // test of it is the cell's own NULL test.
    let returns_value = cx.func.blocks.iter().any(|b| matches!(b.term, Terminator::Return(Some(_))));
    if !returns_value {
        return Some(crate::libmodel::Success::Always);
    }
    // Every other return of the function (reached without the cell, or before the allocation).
    let mut fail: Option<(i64, i64)> = None;
    for b in cx.func.block_ids() {
        let Terminator::Return(op) = &cx.func.block(b).term else { continue };
        if stored_blocks.contains(&b) {
            continue;
        }
        let node = DagNode(b.0);
        match op.as_ref().and_then(|op| cx.constant_value(op, node)) {
            Some(v) => widen(&mut fail, v),
            None => return None,
        }
    }
    match (ok, fail) {
        // A computed result on the storing side: the caller's tests of it say nothing.
        (_, None) if !void_stored => Some(crate::libmodel::Success::Always),
        // A pointer computed from the cell where it is stored, NULL everywhere else (an aligned
        // view of the block handed back in `*freeptr`): a non-NULL result says the cell is
        // there. (A computed result that were NULL too would only hide the cell from the
        // caller's NULL side.)
        (None, Some((0, 0))) if void_stored && cx.func.returns_pointer => Some(crate::libmodel::Success::NonNull),
        (Some(ok), Some(fail)) if !void_stored && (fail.1 < ok.0 || ok.1 < fail.0) => {
            Some(crate::libmodel::Success::Range { ok, fail })
        }
        _ => None,
    }
}
