//! Guarded value-flow reachability for one function (FastCheck, PLDI'07, sections 5.3–5.6).
//!
//! Input: `&FnCx` (the loop-bounded CFG of one function) and `&Config`.
//! Output: one `SiteVerdict` per allocation site of the function (a site is a call and one cell
//! it makes: the result, an out-parameter, a field of the result or of an argument), in
//! statement order; and the function's `Summary` (`summarize`, or `summarize_without_flow` from
//! the flow-insensitive prechecks alone).
//! Invariants:
//! - Pure: reads the IR, performs no I/O, and one call owns its guard arena and solver, so
//!   functions are checked in parallel without sharing anything mutable.
//! - For a site `x = malloc(..)`, a forward pass over the DAG from the site computes, for every
//!   point and every tracked slot `y` (a local, or an access path below one: `cfg::Key`), the
//!   guard `H[y]` under which `y` holds the cell, and the path guard `P` under which the point is
//!   reached. Guards of value-flow events come from those:
//!   `free(y)` is a sink with guard `H[y]`; `realloc(y, n)` frees under `H[y] ∧ ok(realloc)`;
//!   `return y`, storing `y` outside the tracked locals and passing it to unknown code end the
//!   function's responsibility; a noreturn call ends the path (guard `P`). This is the paper's
//!   composition of CFG guards along value-flow edges, computed path-exactly on the DAG.
//! - A cell left inside an object the pass stops naming is an `Inside` event; after every site's
//!   pass, `reach` says under which guard those objects are themselves kept (a cycle of the
//!   function's own cells with no way in is not), and that guard stands for the event.
//! - Leak iff `Psrc ∧ ¬⋁ G_k` is satisfiable, where the `G_k` are the guards of all those events and
//!   `Psrc` the guard of reaching the site from the function entry; double free iff
//!   `Psrc ∧ G_i ∧ G_j` is satisfiable for two frees. Switch consistency is added by `sat`.
//! - Tests of the checked allocation's success are constants (5.6.1): the cell exists only if the
//!   allocation succeeded. More generally, paths that cannot happen while the cell exists (the
//!   NULL side of a holder's test, a flag's test contradicting the constant it holds) are cut,
//!   and the cut parts become `Exit` events so the leak query cannot choose them: cuts only ever
//!   remove reports. A budget hit (guard size, SAT conflicts) yields `Category::OverBudget`,
//!   never a silent "no bug".

use crate::cfg::{DagNode, EdgeLabel, FnCx, Key, LaterIteration};
use crate::diag::Category;
use crate::facts::Facts;
use crate::guard::{AtomId, GuardId, Guards};
use crate::ir::{BlockId, Callee, CmpOp, CondKind, Loc, LocalId, Operand, Place, Rvalue, Stmt, StmtId, Terminator};
use crate::libmodel::{ArgEffect, RetEffect};
use crate::sat::{Answer, Model, Solver};
use crate::summary::{AllocOrigin, Held, ParamFate, PathFate, Summary};

/// A function's `FnCx` with what the checker computes of it once and asks again: the values the
/// value-flow pass follows (`facts`), and the flow-insensitive prechecks of its parameters and of
/// the paths below them. `cfg` knows nothing of these; they live here, above it.
pub struct CheckCx<'a> {
    pub cx: FnCx<'a>,
    /// The values the value-flow pass follows through assignments and branches (`owned = 1`,
    /// `if (rc == SQLITE_OK)`, `p->rc`): built by `complete`.
    pub facts: Facts,
    /// `flow_insensitive_params` of this function, computed once: the summary, the prechecks and
    /// `complete` all ask.
    prechecked: std::cell::OnceCell<Vec<Option<ParamFate>>>,
    /// `heap_paths` of this function, computed once: the summary without flow asks, and the
    /// summary after the path-sensitive pass asks again.
    heap_prechecked: std::cell::OnceCell<Option<Vec<HeapPath>>>,
}

impl<'a> std::ops::Deref for CheckCx<'a> {
    type Target = FnCx<'a>;
    fn deref(&self) -> &FnCx<'a> {
        &self.cx
    }
}

impl<'a> std::ops::DerefMut for CheckCx<'a> {
    fn deref_mut(&mut self) -> &mut FnCx<'a> {
        &mut self.cx
    }
}

impl<'a> CheckCx<'a> {
    /// A complete context in one step (the driver prepares first, and completes only when a
    /// path-sensitive pass is needed).
    #[cfg(test)]
    pub fn new(func: &'a crate::ir::Function, models: Vec<Option<crate::model::Model<'a>>>) -> CheckCx<'a> {
        CheckCx::prepare(func, models).complete()
    }

    /// `FnCx::prepare`: enough for the flow-insensitive prechecks (`summarize_without_flow`).
    pub fn prepare(func: &'a crate::ir::Function, models: Vec<Option<crate::model::Model<'a>>>) -> CheckCx<'a> {
        CheckCx {
            cx: FnCx::prepare(func, models),
            facts: Facts::default(),
            prechecked: std::cell::OnceCell::new(),
            heap_prechecked: std::cell::OnceCell::new(),
        }
    }

    /// `FnCx::complete`, then the facts the sites' passes follow.
    pub fn complete(self) -> CheckCx<'a> {
        let CheckCx { cx, facts, prechecked, heap_prechecked } = self;
        let places = crate::facts::tested_places(&cx);
        let cx = cx.complete(places, |cx| {
            prechecked
                .get_or_init(|| flow_insensitive_params(cx.func, |s| cx.model(s), &cx.tracked))
                .iter()
                .any(|f| f.is_none())
        });
        let mut cx = CheckCx { cx, facts, prechecked, heap_prechecked };
        // Facts serve the sites' passes, and the parameters' passes that look for a second free
        // (`param_freed_twice`): the first site, or the entry, bounds which tests they can decide.
        let first_site = sites(&cx).iter().map(|s| cx.dag.order[s.0.index()]).min();
        if let Some(first) = first_site.or_else(|| may_free_a_param_twice(&cx).then_some(0)) {
            cx.facts = Facts::build(&cx, first);
        }
        cx
    }

    /// What the flow-insensitive prechecks say of each parameter (`flow_insensitive_params`).
    pub fn prechecked_params(&self) -> &[Option<ParamFate>] {
        self.prechecked.get_or_init(|| flow_insensitive_params(self.func, |s| self.model(s), &self.tracked))
    }

    /// The paths below parameters that a summary's heap effects state, with their prechecks
    /// (`heap_paths`).
    pub fn heap_paths(&self) -> Option<&[HeapPath]> {
        self.heap_prechecked.get_or_init(|| heap_paths(self)).as_deref()
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    /// Guard nodes one allocation site may create before it is classified over budget.
    pub max_guard_nodes_per_site: usize,
    /// Guard nodes for the entry-to-site path conditions of one function; beyond it they are
    /// dropped (treated as `true`, which only loses precision).
    pub max_guard_nodes_entry: usize,
    /// MiniSat conflict limit per query.
    pub sat_conflicts: u32,
    /// Rounds of the summary fixpoint of one recursive SCC.
    pub max_scc_rounds: usize,
    /// Wall-clock time one function's check (all its sites and its summary) may take; past it,
    /// the sites not yet decided are over budget and the summary is conservative. `None`: no
    /// limit.
    pub max_function_time: Option<std::time::Duration>,
    /// Bytes one function's check may keep in the tables that can grow faster than the
    /// function (reaching definitions, per-local memos: `budget::Budget::grow`); past it, as
    /// past its time. `None`: no limit.
    pub max_function_bytes: Option<u64>,
}

impl Config {
    pub fn standard() -> Config {
        Config {
            max_guard_nodes_per_site: 20_000,
            max_guard_nodes_entry: 50_000,
            sat_conflicts: 100_000,
            max_scc_rounds: 4,
            max_function_time: Some(std::time::Duration::from_secs(60)),
            max_function_bytes: Some(256 << 20),
        }
    }
}

/// Where a cell went that this function no longer answers for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EscapeKind {
    Global,
    /// Stored through a pointer or into a field of pointed-to memory.
    Heap,
    Array,
    /// Stored into a local struct/array or a local whose address is taken.
    LocalStorage,
    /// Passed to a function drip does not see into.
    UnknownCallee(String),
    /// Kept by a library function (`putenv`).
    Retained(String),
    /// Held when `setjmp` (named) returns a second time, after a `longjmp` from calls the path
    /// does not show.
    Longjmp(String),
    /// The result of an allocator that does not always return fresh memory is discarded.
    Discarded,
    /// The callee returns a fresh cell only when a flag argument says so, and drip cannot tell
    /// the flag's value at this call.
    Undecided,
}

/// Where a function hands a fresh cell to its caller besides its result.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum HandTo {
    /// Below parameter `.0` at path `.1` (`*` for `*out`, `*.buf` for `p->buf`).
    Param(usize, std::sync::Arc<str>),
    /// Inside the returned object at this path (`*.name`).
    Result(std::sync::Arc<str>),
}

/// One step of an error path, in execution order.
#[derive(Clone, Debug)]
pub enum Step {
    /// The branch ending `block` goes to its `then_` side (`taken`) or not; `atom` is its
    /// (possibly shared) condition.
    Branch {
        block: BlockId,
        taken: bool,
        loc: Loc,
        atom: AtomId,
    },
    /// The switch ending `block` goes to `target`.
    Case {
        block: BlockId,
        target: BlockId,
        loc: Loc,
        atom: AtomId,
    },
    /// An allocating call (`realloc`) fails and returns NULL, leaving its argument alive.
    CallFails {
        stmt: StmtId,
        loc: Loc,
    },
    Free {
        loc: Loc,
    },
    /// The last reference is lost.
    Lost {
        loc: Loc,
        how: Lost,
    },
}

#[derive(Clone, Debug)]
pub enum Lost {
    /// The slot holding the last reference (`p`, `s->buf`) is assigned something else.
    Overwritten(String),
    /// The object whose field held the last reference is freed (`free(s)` before `s->buf`).
    ContainerFreed(String),
    /// The function returns while only locals hold the cell.
    Return,
    /// The allocating call's result is not stored anywhere.
    Discarded,
    /// The callee stores the cell below argument `args.0`, then stores something else below
    /// argument `args.1` at the same place (`slot`): both arguments name it.
    AliasedInCallee { callee: String, args: (usize, usize), slot: String },
}

#[derive(Clone, Debug)]
pub struct SiteVerdict {
    pub stmt: StmtId,
    pub allocator: String,
    pub category: Category,
    /// The error path of a leak (for the leak categories).
    pub leak: Option<Vec<Step>>,
    /// The error path of a double free: it contains two `Step::Free`.
    pub double_free: Option<Vec<Step>>,
    pub escapes: Vec<EscapeKind>,
    /// Returned to the caller on some path: the function is an allocator (FastCheck 5.6).
    pub returned: bool,
    /// Returned only when parameter `.0` masked by `.1` is non-zero (`.2`) or zero (`!.2`): every
    /// such test (`if (dst == NULL) return src ? copy(src) : NULL;` is under two).
    pub returned_if: Vec<(usize, i64, bool)>,
    /// Handed to the caller below a parameter only when these flag tests hold (as
    /// `returned_if`).
    pub handed_if: Vec<(usize, i64, bool)>,
    /// Returned and also left in a parameter's object: the result is shared, not fresh.
    pub shared: bool,
    /// Never leaked here, and handed to the caller in one place other than the result: through
    /// an out-parameter, or inside the returned object; the return value tells whether it was
    /// (`Success`).
    pub handed: Option<(HandTo, crate::libmodel::Success)>,
    /// SAT queries run for this site.
    pub sat_queries: u32,
    /// For a leak: the other allocations of this function that form, with this one, a cycle of
    /// cells pointing to each other that nothing else reaches (`reach`).
    pub cycle_with: Vec<StmtId>,
    /// Returned: the places below parameters that hold one value wherever it is
    /// (`Summary::ret_values`).
    pub ret_values: Vec<(usize, std::sync::Arc<str>, Held)>,
    /// Handed back below a parameter: the same for wherever it is (`Summary::out_values`).
    pub out_values: Vec<(usize, std::sync::Arc<str>, Held)>,
}

#[derive(Clone, Debug)]
enum EventKind {
    Free,
    Return,
    /// At a return, the cell is in the object parameter `param` points to, at `path` (`*` for
    /// `*out`, `*.buf` for `p->buf`): handed to the caller through it.
    Stored {
        param: usize,
        path: std::sync::Arc<str>,
    },
    /// At a return, the cell is in the returned object at `path` (a constructor's field).
    ReturnedIn(u32),
    /// At a return, a summary's subject is still in the slot it started in (see `flow`).
    Kept,
    Escape(EscapeKind),
    Exit,
    /// From here on the cell is inside an object this pass no longer names (a pointer local
    /// reassigned or going out of scope at a return, a freed object's field that pointed on to
    /// another object): it lives exactly as long as that object does. Everywhere but the
    /// held-by resolution of `check_function` (see `reach`) this is an escape into the heap.
    Inside(Holder),
}

/// The object a cell is left inside (`EventKind::Inside`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// The object local `.0` pointed to just before statement `.2` of node `.1` (the
    /// terminator when `.2` is the statement count).
    Local(LocalId, DagNode, u32),
    /// The object the slot holds a pointer to (`p1->right` for a cell at `p1->right->left`).
    Slot(Key),
}

#[derive(Clone, Debug)]
struct Event {
    kind: EventKind,
    guard: GuardId,
    /// A free of a value loaded from an array element (all elements are one place): it may be
    /// another element's cell, so it takes no part in double-free pairs.
    weak: bool,
}

#[derive(Clone, Default)]
struct State {
    p: GuardId,
    /// Tracked slots (locals and access paths) that may hold the cell, with their guards; sorted
    /// by key, no FALSE.
    h: Vec<(Key, GuardId)>,
    /// Locals whose value came back from a call that returns an argument (`strchr`, `fgets`):
    /// they point into the cell but may be NULL, so their NULL tests are not folded. Sorted.
    maybe_null: Vec<LocalId>,
    /// Locals whose value was loaded from an array element (sorted): see `Event::weak`.
    weak: Vec<LocalId>,
    /// Pairs of pointer locals (smaller first, sorted) that surely hold the same address here,
    /// from copies: freeing one loses what the other's object holds, and returning one returns it.
    alias: Vec<(LocalId, LocalId)>,
    /// Pointer locals holding the value loaded from a slot whose base is unchanged since
    /// (`t = pParse->pNew`), sorted: `t->z` is `pParse->pNew->z`.
    /// The flag says the local holds the slot's *address* (`ci = &L->base_ci`) rather than the
    /// pointer loaded from it.
    derived: Vec<(LocalId, Key, bool)>,
    /// What is known of the values `cx.facts` follows, each with the guard under which it holds
    /// (`facts::Fact`). A branch whose outcome contradicts a fact cuts those paths.
    facts: Vec<(u32, crate::facts::Fact, GuardId)>,
    /// The values the locals that tests of two pointers read may hold (`equal`): a test whose
    /// two locals hold one value is not taken to its "different" side.
    values: crate::equal::Values,
    /// The statement being transferred (DAG node index, statement index), for `Holder::Local`.
    at: (u32, u32),
}

impl Default for GuardId {
    fn default() -> Self {
        GuardId::FALSE
    }
}

/// Add `x` to (or remove it from) a sorted set of locals.
fn mark(set: &mut Vec<LocalId>, x: LocalId, yes: bool) {
    match (set.binary_search(&x), yes) {
        (Ok(i), false) => {
            set.remove(i);
        }
        (Err(i), true) => set.insert(i, x),
        _ => {}
    }
}

impl State {
    fn get(&self, x: LocalId) -> GuardId {
        self.get_key(Key::local(x))
    }
    fn get_key(&self, k: Key) -> GuardId {
        self.h.binary_search_by_key(&k, |e| e.0).map_or(GuardId::FALSE, |i| self.h[i].1)
    }
    fn set(&mut self, x: LocalId, g: GuardId) {
        self.set_key(Key::local(x), g)
    }
    fn derived_from(&self, l: LocalId) -> Option<(Key, bool)> {
        self.derived.binary_search_by_key(&l, |d| d.0).ok().map(|i| (self.derived[i].1, self.derived[i].2))
    }
    /// `l` gets a new value, loaded from slot `from` (or not a load): provenance of `l`, and of
    /// the locals loaded through `l`, changes.
    fn set_derived(&mut self, l: LocalId, from: Option<(Key, bool)>) {
        self.derived.retain(|d| d.0 != l && d.1.root != l);
        if let Some((k, addr)) = from.filter(|(k, _)| k.root != l) {
            let i = self.derived.binary_search_by_key(&l, |d| d.0).unwrap_or_else(|i| i);
            self.derived.insert(i, (l, k, addr));
        }
    }
    /// `y` and the locals known to hold the same address.
    fn names_of(&self, y: LocalId) -> Vec<LocalId> {
        let mut v = vec![y];
        v.extend(self.alias.iter().filter_map(|&(a, b)| {
            if a == y {
                Some(b)
            } else if b == y {
                Some(a)
            } else {
                None
            }
        }));
        v
    }
    /// `l` gets a new value: a copy of `from` (its aliases become `l`'s), or anything else.
    fn rebind(&mut self, l: LocalId, from: Option<LocalId>) {
        self.alias.retain(|&(a, b)| a != l && b != l);
        if let Some(y) = from.filter(|y| *y != l) {
            let mut add: Vec<(LocalId, LocalId)> = self.names_of(y).into_iter().map(|z| (l.min(z), l.max(z))).collect();
            self.alias.append(&mut add);
            self.alias.sort_unstable();
            self.alias.dedup();
        }
    }
    /// The access paths below local `y` that hold the cell.
    fn contents(&self, y: LocalId) -> Vec<(Key, GuardId)> {
        self.h.iter().filter(|e| e.0.root == y && !e.0.is_local()).copied().collect()
    }
    fn set_key(&mut self, x: Key, g: GuardId) {
        match self.h.binary_search_by_key(&x, |e| e.0) {
            Ok(i) if g == GuardId::FALSE => {
                self.h.remove(i);
            }
            Ok(i) => self.h[i].1 = g,
            Err(_) if g == GuardId::FALSE => {}
            Err(i) => self.h.insert(i, (x, g)),
        }
    }
    fn set_maybe_null(&mut self, x: LocalId, yes: bool) {
        mark(&mut self.maybe_null, x, yes)
    }
    fn set_weak(&mut self, x: LocalId, yes: bool) {
        mark(&mut self.weak, x, yes)
    }
    fn is_weak(&self, op: &Operand) -> bool {
        op.local().is_some_and(|y| self.weak.binary_search(&y).is_ok())
    }
    fn is_maybe_null(&self, op: &Operand) -> bool {
        op.local().is_some_and(|y| self.maybe_null.binary_search(&y).is_ok())
    }
}

/// Allocation sites of a function: (node, statement index, statement).
/// Which cell of an allocating call a site is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SiteSlot {
    /// The returned cell.
    Result,
    /// The cell stored through out-parameter `.0` (`*out`).
    Arg(usize),
    /// The cell a summarised callee leaves below argument `.0` at path `.1` (`obj->buf`).
    ArgPath(usize, std::sync::Arc<str>),
    /// The cell inside the returned object at this path (a constructor's field).
    ResultPath(std::sync::Arc<str>),
}

/// The cells calls make: (node, statement index, statement, which cell).
pub fn sites(cx: &CheckCx) -> Vec<(DagNode, usize, StmtId, SiteSlot)> {
    let mut out = Vec::new();
    for b in 0..cx.dag.n_blocks {
        let node = DagNode(b as u32);
        for (i, s) in cx.stmts_of(node).iter().enumerate() {
            let Some(model) = cx.model(*s) else { continue };
            if matches!(model.ret, RetEffect::Fresh(_)) {
                out.push((node, i, *s, SiteSlot::Result));
                let Stmt::Call { dst, .. } = cx.func.stmt(*s) else { continue };
                if let Some(Place::Local(l)) = dst {
                    for path in &model.ret_paths {
                        if cx.is_tracked(*l) && cx.result_slot(*l, path).is_some() {
                            out.push((node, i, *s, SiteSlot::ResultPath(path.clone())));
                        }
                    }
                }
            }
            for (a, e) in &model.args {
                if matches!(e, ArgEffect::OutFresh(_) | ArgEffect::OutRealloc) {
                    out.push((node, i, *s, SiteSlot::Arg(*a)));
                }
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

/// Time spent per phase while checking (summed over sites).
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    pub value_flow: std::time::Duration,
    pub sat: std::time::Duration,
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

fn label_guard(guards: &mut Guards, label: &EdgeLabel, folded: Option<(AtomId, bool)>) -> GuardId {
    let lit = |guards: &mut Guards, atom: AtomId, positive: bool| match folded {
        Some((a, v)) if a == atom => {
            if v == positive {
                GuardId::TRUE
            } else {
                GuardId::FALSE
            }
        }
        _ => guards.lit(atom, positive),
    };
    match label {
        EdgeLabel::True => GuardId::TRUE,
        EdgeLabel::Lit { atom, positive } => lit(guards, *atom, *positive),
        EdgeLabel::Any(atoms) => {
            let mut g = GuardId::FALSE;
            for a in atoms.iter() {
                let l = lit(guards, *a, true);
                g = guards.or(g, l);
            }
            g
        }
    }
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
        Callee::Indirect { .. } => cx.model(stmt).map_or("a function pointer", |m| m.name).to_string(),
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
    };
    // A callee that allocates only under a flag argument: the cell exists only when the
    // caller's flag says so.
    let mut psrc = psrc;
    if let Some((flag, mask, when)) = cx.model(stmt).and_then(|m| m.fresh_if_arg) {
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
            match dst.as_ref().and_then(|d| d.as_local()) {
                Some(l) if cx.is_tracked(l) => cx.result_slot(l, path).ok_or(Some(EscapeKind::Heap)),
                _ => Err(Some(EscapeKind::Heap)),
            }
        }
        SiteSlot::Result => match dst {
            Some(place) => cx.key_of(place).ok_or_else(|| Some(escape_kind(cx, place))),
            None => Err(None),
        },
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
    let x = match holder {
        Ok(x) => x,
        Err(Some(kind)) => {
            verdict.escapes.push(kind);
            verdict.category = Category::Unknown;
            return Prepared::Done(verdict);
        }
        Err(None) if !cx.model(stmt).is_some_and(|m| m.always_fresh) => {
            // A wrapper that does not always return fresh memory (`alloc(p, 0)` frees and
            // returns NULL): a discarded result says nothing.
            verdict.escapes.push(EscapeKind::Discarded);
            verdict.category = Category::Unknown;
            return Prepared::Done(verdict);
        }
        Err(None) => {
            verdict.category = if is_main { Category::NeverFreedMain } else { Category::NeverFreedLocal };
            let loc = cx.func.stmt_loc(stmt);
            verdict.leak = Some(vec![Step::Lost { loc, how: Lost::Discarded }]);
            return Prepared::Done(verdict);
        }
    };

    guards.allow_more(config.max_guard_nodes_per_site);
    let site_atom = cx.success_atom.get(&stmt).copied();
    let fold = site_atom.map(|a| (a, true));

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
    if let (Some(m), true) = (cx.model(stmt), with_facts) {
        let values: &[_] = match slot {
            SiteSlot::Result => &m.ret_values,
            SiteSlot::Arg(_) | SiteSlot::ArgPath(..) => &m.out_values,
            SiteSlot::ResultPath(_) => &[],
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
    );
    if guards.over_budget() {
        guards.reset_budget();
        verdict.category = Category::OverBudget;
        return Prepared::Done(verdict);
    }

    timings.value_flow += started.elapsed();
    Prepared::Flowed(Flowed { verdict, events, rets, unknown_held, psrc, x, fold, node0, idx0, slot: slot.clone() })
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
    let Flowed { mut verdict, events, rets, unknown_held, psrc, x, fold, node0, idx0, slot: _ } = f;
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
            EventKind::Free => has_free = true,
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
    if has_ret || stored_any != GuardId::FALSE {
        for (atom, flag, mask) in &cx.param_tests {
            let Some(index) = cx.func.params().position(|q| q == *flag) else { continue };
            for when in [true, false] {
                flag_lits.push((index, *mask, when, guards.lit(*atom, when)));
            }
        }
    }
    if guards.over_budget() {
        guards.reset_budget();
        verdict.category = Category::OverBudget;
        return verdict;
    }
    let frees: Vec<&Event> = events.iter().filter(|e| matches!(e.kind, EventKind::Free) && !e.weak).collect();
    // Pairs in order, made as they are asked: n frees are n²/2 pairs, too many to list first.
    let pair_guards = (0..frees.len()).flat_map(|i| (i + 1..frees.len()).map(move |j| (i, j)));

    let sat_started = std::time::Instant::now();
    timings.value_flow += sat_started - started;
    let guards_ro: &Guards = guards;
    // One solver for all the sites of the function: its clauses are definitions of guard nodes
    // (and switch constraints), true whatever the query, so they are shared.
    let queries_before = solver.queries;
    let leak = solver.check(guards_ro, &[(psrc, true), (own, true), (any, false)]);
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
    for &(index, mask, when, lit) in flag_lits.iter().filter(|_| has_ret) {
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
            HandTo::Result(_) => {
                let only_successes =
                    guards_ro.support(&[psrc]).iter().all(|a| cx.success_atom.values().any(|s| s == a));
                only_successes.then(|| (to.clone(), crate::libmodel::Success::Always))
            }
            HandTo::Param(..) => out_success(cx, solver, guards_ro, psrc, stored_any, &rets).map(|s| (to.clone(), s)),
        };
        // Stored for the caller only under a flag: `if (hint) grow(sb, hint);` in git's
        // `strbuf_init (sb, 0)`, which allocates nothing.
        if let Some((HandTo::Param(..), _)) = &verdict.handed {
            for &(index, mask, when, lit) in &flag_lits {
                if let Answer::Unsat = solver.check(guards_ro, &[(psrc, true), (stored_any, true), (lit, false)]) {
                    verdict.handed_if.push((index, mask, when));
                }
            }
            // Which places below parameters hold one value wherever it is handed back: a count
            // stepped with the store (`v[(*n)++] = p`, `sb->len++`).
            for (k, held, bad) in &unknown_held.stored {
                let (root, path) = &cx.facts.keys[*k as usize];
                if holds_below(solver, *root, *bad) {
                    if let Some(i) = cx.param_index(*root) {
                        verdict.out_values.push((i, path.as_str().into(), *held));
                    }
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
        verdict.leak = Some(walk(cx, &m_values(m), &support, fold, node0, idx0 + 1, x, WalkGoal::Leak));
    }
    if let Some((m, i, j)) = &df {
        let support = support_of(&[psrc, frees[*i].guard, frees[*j].guard]);
        verdict.double_free = Some(walk(cx, &m_values(m), &support, fold, node0, idx0 + 1, x, WalkGoal::SecondFree));
    }
    verdict
}

/// For the places below parameters that a summary may say hold one value wherever the cell is
/// handed back (`FnCx::facts`'s `ret_keys`): per place and value, the guard of handing it back
/// at a `return` where that value is not known, as the result (`Summary::ret_values`) and below
/// a parameter (`Summary::out_values`). A place whose guard is unsatisfiable with the site's
/// holds that value wherever the cell is handed back.
#[derive(Default)]
struct HeldAtReturns {
    returned: Vec<(u32, Held, GuardId)>,
    stored: Vec<(u32, Held, GuardId)>,
}

impl HeldAtReturns {
    fn add(
        &mut self,
        cx: &CheckCx,
        guards: &mut Guards,
        facts: &[(u32, crate::facts::Fact, GuardId)],
        returned: GuardId,
        stored: GuardId,
    ) {
        if returned == GuardId::FALSE && stored == GuardId::FALSE {
            return;
        }
        for &k in &cx.facts.ret_keys {
            for held in Held::ALL {
                let mut known = GuardId::FALSE;
                for f in facts.iter().filter(|f| f.0 == k && f.1.implies(crate::facts::Fact::held(held))) {
                    known = guards.or(known, f.2);
                }
                let unknown = guards.not(known);
                for (to, g) in [(&mut self.returned, returned), (&mut self.stored, stored)] {
                    if g == GuardId::FALSE {
                        continue;
                    }
                    let bad = guards.and(g, unknown);
                    match to.iter_mut().find(|u| u.0 == k && u.1 == held) {
                        Some(u) => u.2 = guards.or(u.2, bad),
                        None => to.push((k, held, bad)),
                    }
                }
            }
        }
    }
}

/// The forward guarded value-flow pass: from statement `first_idx` of `node0`, where local `x`
/// holds the cell, to every end of the function. Returns the events; the caller checks
/// `guards.over_budget()`. With `rets`, also collects every `return` point reached: its path
/// guard and the returned constant, if it is one.
fn flow(
    cx: &CheckCx,
    guards: &mut Guards,
    node0: DagNode,
    first_idx: usize,
    x: Key,
    fold: Option<(AtomId, bool)>,
    mut rets: Option<&mut Vec<(DagNode, GuardId, Option<i64>)>>,
    keep_start: bool,
    facts: Option<(&crate::facts::Followed, &[(u32, crate::facts::Fact, GuardId)])>,
    mut unknown_held: Option<&mut HeldAtReturns>,
) -> Vec<Event> {
    let n = cx.dag.len();
    // The state waiting at each node: an index into `waiting` plus one, 0 for none. The node
    // table is zeroed memory, where `vec![None; n]` of `Option<State>` wrote (and dropped) one
    // large element per node: a site in the largest functions (thousands of nodes) reaches only
    // a part of them. `waiting` gets room for every node up front, uninitialised (growing it
    // moved the large states at every reallocation).
    let mut waiting_at: Vec<u32> = vec![0; n];
    let mut waiting: Vec<Option<State>> = Vec::with_capacity(n);
    let mut events: Vec<Event> = Vec::new();
    let start = cx.dag.order[node0.index()] as usize;
    // Facts are followed where the caller asks (a site's pass that may need them).
    let followed = facts.filter(|_| !cx.facts.is_empty()).map(|f| f.0);
    let use_facts = followed.is_some();
    for (pos, nd) in cx.dag.topo.iter().enumerate().skip(start) {
        guards.tick();
        let (mut st, first) = if pos == start {
            let mut st = State {
                p: GuardId::TRUE,
                h: Vec::new(),
                maybe_null: Vec::new(),
                weak: Vec::new(),
                alias: Vec::new(),
                derived: Vec::new(),
                facts: facts.map_or(&[][..], |f| f.1).to_vec(),
                values: crate::equal::Values::start(cx, node0, first_idx),
                at: (node0.0, first_idx as u32),
            };
            st.set_key(x, GuardId::TRUE);
            (st, first_idx)
        } else {
            match waiting_at[nd.index()] {
                0 => continue,
                w => match waiting[w as usize - 1].take() {
                    Some(s) => (s, 0),
                    None => continue,
                },
            }
        };
        let stmts = cx.stmts_of(*nd);
        let mut ended = false;
        for (i, sid) in stmts.iter().enumerate().skip(first.min(stmts.len())) {
            st.at = (nd.0, i as u32);
            transfer(cx, guards, &mut st, *sid, &mut events);
            st.values.transfer(cx, *sid, st.at, st.p);
            if let Some(followed) = followed {
                let p = st.p;
                followed.apply(*sid, &mut st.facts, p);
                call_status_facts(cx, guards, &mut st, *sid);
            }
            if cx.ends_path(*sid) {
                // A callee that never returns (by its summary) ends the path here.
                events.push(Event { kind: EventKind::Exit, guard: st.p, weak: false });
                ended = true;
                break;
            }
        }
        if ended {
            continue;
        }
        let block = cx.func.block(cx.dag.block[nd.index()]);
        if let (Some(rets), Terminator::Return(op)) = (rets.as_deref_mut(), &block.term) {
            rets.push((*nd, st.p, op.as_ref().and_then(|op| cx.constant_value(op, *nd))));
        }
        match &block.term {
            Terminator::Return(op) => {
                // Guards of handing the cell back here: as the result, and below a parameter.
                let mut returned_here = GuardId::FALSE;
                let mut stored_here = GuardId::FALSE;
                if let Some(op) = op {
                    let g = value_guard(cx, &st, op);
                    if g != GuardId::FALSE {
                        events.push(Event { kind: EventKind::Return, guard: g, weak: false });
                        returned_here = g;
                    }
                    // Inside the returned object: the caller gets it with the object.
                    if let Some(y) = op.local() {
                        for z in st.names_of(y) {
                            for (k, g) in st.contents(z) {
                                events.push(Event { kind: EventKind::ReturnedIn(k.path), guard: g, weak: false });
                            }
                        }
                    }
                }
                // Stored into an object a pointer leads to (a parameter's, or one this function
                // does not track): the cell lives on in it. Fields of local structs die here.
                let returned_roots = op.as_ref().and_then(|o| o.local()).map_or_else(Vec::new, |y| st.names_of(y));
                for (k, g) in &st.h {
                    if keep_start && *k == x {
                        // A summary's subject still where it was on entry.
                        events.push(Event { kind: EventKind::Kept, guard: *g, weak: false });
                        continue;
                    }
                    if !k.is_local() && !returned_roots.contains(&k.root) && !cx.dies_with_frame(*k) {
                        // Below a parameter, directly or through a pointer loaded from its object.
                        let below_param = match cx.param_index(k.root) {
                            Some(param) => Some((param, cx.path_text(k.path).to_string())),
                            None => st.derived_from(k.root).and_then(|(base, addr)| {
                                let param = cx.param_index(base.root)?;
                                let rest = cx.path_text(k.path);
                                // `ci = &L->base_ci; ci->f` is `L->base_ci.f`, not `*(L->base_ci)`.
                                let rest = if addr { rest.strip_prefix('*')? } else { rest };
                                Some((param, format!("{}{}", cx.path_text(base.path), rest)))
                            }),
                        };
                        // Below a local pointer of this function: inside its object, which
                        // `check_function` may know (a site of its own).
                        let kind = match below_param {
                            Some((param, path)) => {
                                stored_here = guards.or(stored_here, *g);
                                EventKind::Stored { param, path: path.into() }
                            }
                            None => inside(cx, *k, (nd.0, stmts.len() as u32)),
                        };
                        events.push(Event { kind, guard: *g, weak: false });
                    }
                }
                if let Some(unknown_held) = unknown_held.as_deref_mut() {
                    unknown_held.add(cx, guards, &st.facts, returned_here, stored_here);
                }
            }
            Terminator::NoReturn => events.push(Event { kind: EventKind::Exit, guard: st.p, weak: false }),
            // A path cut by the loop bound (the second visit of a loop with no exit) is not
            // followed further; counting it as a loss would blame the bound, not the code.
            Terminator::Goto(_) | Terminator::Branch { .. } | Terminator::Switch { .. }
                if cx.dag.succs[nd.index()].is_empty() =>
            {
                events.push(Event { kind: EventKind::Exit, guard: st.p, weak: false })
            }
            _ => {}
        }
        // The cell's own NULL test: on paths where a local surely holds it, `y != NULL` holds.
        let sure_then = match &block.term {
            Terminator::Branch { cond, .. } if !cx.dag.is_copy(*nd) => match &cond.kind {
                // An array element tested right where the cell surely is in the array: taken as
                // the cell's own test (`v[i] = strdup(..); if (!v[i])`), though all elements are
                // one place.
                CondKind::Truthy(op) => {
                    !st.is_maybe_null(op) && value_guard(cx, &st, op) == st.p && st.p != GuardId::FALSE
                }
                _ => false,
            },
            _ => false,
        };
        let then_block = match &block.term {
            Terminator::Branch { then_, .. } => Some(*then_),
            _ => None,
        };
        // The NULL side of a pointer's test is not taken where the pointer holds the cell: a
        // cell that exists is not at address 0 (FastCheck 5.6.1, for any holder, not only the
        // allocation's own result).
        let not_held = match &block.term {
            Terminator::Branch { cond, .. } if !sure_then && !cx.dag.is_copy(*nd) => {
                match &cond.kind {
                    CondKind::Truthy(op) if !st.is_maybe_null(op) => {
                        // The pointer holds the cell, or points to an object that holds it.
                        let mut held = value_guard(cx, &st, op);
                        if let Some(y) = op.local() {
                            for z in st.names_of(y) {
                                for (_, g) in st.contents(z) {
                                    held = guards.or(held, g);
                                }
                            }
                        }
                        (held != GuardId::FALSE).then(|| (held, guards.not(held)))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        // `p == q` where one side holds the cell and the other surely does not: a block that
        // exists has an address no other value holds (FastCheck 5.6.1's reasoning for NULL,
        // for any other pointer). A value that may hold it through an untracked route was an
        // escape, which is an event of its own; a dangling copy of the block the cell was
        // reallocated from may compare equal, and then its owner has the cell. The equal side
        // is cut where they are distinct, as below.
        let distinct = match &block.term {
            Terminator::Branch { cond, .. } if !cx.dag.is_copy(*nd) => match &cond.kind {
                CondKind::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), a, b) => {
                    let sep = separated(cx, guards, &st, a, b);
                    (sep != GuardId::FALSE).then_some((sep, *op == CmpOp::Eq))
                }
                _ => None,
            },
            _ => None,
        };
        // `s != t` where an assignment made them one value (`equal`): the "different" side is
        // cut there, as above.
        let same = st.values.equal_at(cx, guards, *nd);
        let fact_test = match &block.term {
            Terminator::Branch { .. } | Terminator::Switch { .. } if use_facts && !cx.dag.is_copy(*nd) => {
                cx.facts.tests.get(cx.dag.block[nd.index()].index()).copied().flatten()
            }
            _ => None,
        };
        let succs = &cx.dag.succs[nd.index()];
        let here = st.p;
        // A header copy that jumps to the body's exits: the later iteration it stands for.
        // (Nothing after the loop concerns a cell nothing holds.)
        let later =
            cx.dag.later.get(&nd.0).filter(|_| !st.h.is_empty()).map(|it| Later::new(cx, guards, &st, *nd, it, fold));
        for (ei, (t, label)) in succs.iter().enumerate() {
            let mut l = label_guard(guards, label, fold);
            if let Some(later) = &later {
                // Only an exit the later iteration can reach, its loop-invariant tests going
                // the way this iteration's went.
                // The paths cut here end, as the other cuts below.
                let reached = later.exit(*t);
                if reached != GuardId::TRUE {
                    let unreached = guards.not(reached);
                    let cut = guards.and_all([st.p, l, unreached]);
                    if cut != GuardId::FALSE {
                        events.push(Event { kind: EventKind::Exit, guard: cut, weak: false });
                    }
                    l = guards.and(l, reached);
                }
            }
            if sure_then {
                l = if Some(cx.dag.block[t.index()]) == then_block { GuardId::TRUE } else { GuardId::FALSE };
            }
            // A test of a value known on some paths (a constant it was assigned, what an earlier
            // test of it said): those paths go one way only. The cut paths become exits, as below.
            let edge_fact = fact_test.map(|kt| kt.edge(block, cx.dag.block[t.index()]));
            if let Some(edge) = &edge_fact {
                for (z, f, g) in &st.facts {
                    if *z == edge.key && edge.ruled_out(*f) {
                        let cut = guards.and_all([st.p, l, *g]);
                        if cut != GuardId::FALSE {
                            events.push(Event { kind: EventKind::Exit, guard: cut, weak: false });
                            if *g == st.p || *g == GuardId::TRUE {
                                // Known on every path here: the edge is not taken at all.
                                l = GuardId::FALSE;
                                break;
                            }
                            let ng = guards.not(*g);
                            l = guards.and(l, ng);
                        }
                    }
                }
                if l == GuardId::FALSE {
                    continue;
                }
            }
            if let Some((sep, eq_is_then)) = distinct {
                let is_then = Some(cx.dag.block[t.index()]) == then_block;
                if is_then == eq_is_then {
                    let cut = guards.and_all([st.p, l, sep]);
                    if cut != GuardId::FALSE {
                        events.push(Event { kind: EventKind::Exit, guard: cut, weak: false });
                        let ns = guards.not(sep);
                        l = guards.and(l, ns);
                    }
                }
            }
            if let Some((eq, eq_is_then)) = same {
                let is_then = Some(cx.dag.block[t.index()]) == then_block;
                if is_then != eq_is_then {
                    let cut = guards.and_all([st.p, l, eq]);
                    if cut != GuardId::FALSE {
                        events.push(Event { kind: EventKind::Exit, guard: cut, weak: false });
                        let ne = guards.not(eq);
                        l = guards.and(l, ne);
                    }
                }
            }
            if let Some((held, not_held)) = not_held {
                if Some(cx.dag.block[t.index()]) != then_block {
                    // The leak query asks for a model that avoids every event, so the paths cut
                    // here must be ruled out explicitly: they end, like a noreturn call.
                    let cut = guards.and_all([st.p, l, held]);
                    events.push(Event { kind: EventKind::Exit, guard: cut, weak: false });
                    l = guards.and(l, not_held);
                }
            }
            if l == GuardId::FALSE {
                continue;
            }
            let p = guards.and(here, l);
            if p == GuardId::FALSE {
                continue;
            }
            // The last edge takes the node's own state: most nodes have one successor, and
            // copying every set for it was most of a pass's allocations.
            let mut out = if ei + 1 == succs.len() {
                State { p, at: (0, 0), ..std::mem::take(&mut st) }
            } else {
                State { p, at: (0, 0), ..st.clone() }
            };
            // Most slots hold the cell on every path reaching here: their guard is `p`.
            out.h.retain_mut(|(_, g)| {
                *g = if *g == here { p } else { guards.and(*g, l) };
                *g != GuardId::FALSE
            });
            // What the test says of its value on this side: it holds wherever the edge is taken,
            // so an earlier fact of the same value that it implies adds nothing.
            // Facts are only ever gathered with `followed`.
            let live = |k: u32| followed.is_some_and(|f| f.live(*t, k));
            let learned = edge_fact.as_ref().and_then(|e| Some((e.key, e.learned()?)));
            out.facts.retain_mut(|(k, f, g)| {
                let live_here = match f {
                    // An equality matters while either side may still be tested.
                    crate::facts::Fact::Same(q) => live(*k) || live(*q),
                    _ => live(*k),
                };
                if !live_here || learned.is_some_and(|(lk, lf)| lk == *k && lf.implies(*f)) {
                    return false;
                }
                // Most facts hold on every path reaching here: their guard is `p`.
                *g = if *g == here { p } else { guards.and(*g, l) };
                // Where an earlier fact of the value holds, the test's holds too (`ret >= 0`
                // from the call, then `ret <= 0`: `ret == 0` there).
                if let Some((_, lf)) = learned.filter(|(lk, _)| *lk == *k) {
                    *f = f.meet(lf);
                }
                *g != GuardId::FALSE
            });
            if let Some((k, f)) = learned {
                // What the test says holds of every key equal to the tested one, where it is.
                let equal: Vec<(u32, GuardId)> =
                    crate::facts::equal_keys(&out.facts, k).filter(|(o, _)| live(*o)).collect();
                for (o, g) in equal {
                    let g = guards.and(p, g);
                    if g != GuardId::FALSE {
                        out.facts.push((o, f, g));
                    }
                }
                if live(k) {
                    out.facts.push((k, f, p));
                }
            }
            out.values.along(cx, guards, here, l, *nd, *t);
            if let Some(later) = &later {
                later.leave(cx, guards, &mut out, *t, &mut events);
            }
            // Leaving a loop from its header copy: the later iteration redefined these locals,
            // so what this iteration left in them is gone (a cell they alone held is lost).
            for &l in cx.dag.kills(*nd, *t) {
                redefine_unknown(cx, guards, &mut out, l, &mut events);
            }
            if waiting_at[t.index()] == 0 {
                waiting.push(None);
                waiting_at[t.index()] = waiting.len() as u32;
            }
            merge_into(guards, &mut waiting[waiting_at[t.index()] as usize - 1], out);
        }
        if guards.over_budget() {
            break;
        }
    }
    events
}

/// The summary of a checked function: allocator if some site's cell is returned; for each
/// pointer parameter, what the function does with a cell passed there (a forward pass from the
/// entry with the parameter holding the cell); noreturn if no path returns.
/// `heap_needed`: whether any caller will read the heap effects (`CallGraph::called_from_outside`);
/// without one they are left unknown (every path below a parameter escapes), which is what a
/// caller would assume, and the most expensive part of a summary is not computed for nobody.
/// A parameter's block freed twice on one path of the function (`summarize`): the caller's
/// memory, so no allocation site of this function reports it.
#[derive(Clone, Debug)]
pub struct ParamDoubleFree {
    pub param: LocalId,
    /// The path from the entry: it contains two `Step::Free`.
    pub steps: Vec<Step>,
}

pub fn summarize(
    cx: &CheckCx,
    config: &Config,
    verdicts: &[SiteVerdict],
    heap_needed: bool,
) -> (Summary, Vec<ParamDoubleFree>) {
    let func = cx.func;
    let mut params = Vec::with_capacity(func.n_params as usize);
    let mut param_double_frees = Vec::new();
    let mut returns_param = None;
    let mut ret_success = None;
    // The arena and solver of the parameters' passes, made for the first parameter the prechecks
    // leave undecided (most functions have none).
    let mut pass: Option<(Guards, Solver)> = None;
    for ((i, p), pre) in func.params().enumerate().zip(cx.prechecked_params()) {
        if let Some(fate) = *pre {
            params.push(fate);
            continue;
        }
        let (guards, solver) = pass.get_or_insert_with(|| new_pass(cx, config));
        let mut rets = Vec::new();
        let events =
            flow(cx, guards, DagNode(func.entry.0), 0, Key::local(p), None, Some(&mut rets), false, None, None);
        if guards.over_budget() {
            guards.reset_budget();
            params.push(ParamFate::Escapes);
            continue;
        }
        if let Some(steps) = param_freed_twice(cx, guards, solver, p, &events) {
            param_double_frees.push(ParamDoubleFree { param: p, steps });
        }
        let mut freed = GuardId::FALSE;
        let mut freed_or_ended = GuardId::FALSE;
        let mut escaped = GuardId::FALSE;
        let mut returned = false;
        for e in &events {
            match e.kind {
                // Stored into the caller's `*out`: the caller no longer owns it as `p`.
                EventKind::Escape(_) | EventKind::Inside(_) | EventKind::Stored { .. } | EventKind::ReturnedIn(_) => {
                    escaped = guards.or(escaped, e.guard)
                }
                EventKind::Free => {
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
        } else if freed != GuardId::FALSE {
            free_fate(cx, guards, solver, freed, freed_or_ended, escaped, &rets, &mut ret_success)
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
            (true, ParamFate::Reads | ParamFate::Frees) if returns_param.is_none() => {
                returns_param = Some(i);
                fate
            }
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
    // Fields of the result only mean something when the function is an allocator.
    let ret_fresh: Vec<std::sync::Arc<str>> = handed
        .iter()
        .filter_map(|(to, _)| match to {
            HandTo::Result(path) => Some(path.clone()),
            HandTo::Param(..) => None,
        })
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
    let writes = crate::alias::writes(cx, &fresh_places).into();
    // Allocates only under a flag: every site it returns is returned only under the same test.
    // Of several such tests, the one of the returned parameter: `if (dst == NULL) return
    // src ? copy(src) : NULL; ... return dst;` is fresh when `dst` is NULL, else `dst` itself.
    let common: Vec<(usize, i64, bool)> = fresh_returns.first().map_or(Vec::new(), |v| {
        v.returned_if.iter().copied().filter(|f| fresh_returns.iter().all(|w| w.returned_if.contains(f))).collect()
    });
    let alloc_if = common.iter().find(|f| Some(f.0) == returns_param).or(common.first()).copied();
    let out_values = if out_fresh.is_empty() { Vec::new() } else { common_values(&handed_sites, |v| &v.out_values) };
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
        ret_fresh: if allocator { ret_fresh } else { Vec::new() },
        heap: if heap_needed {
            heap_effects(cx, Some(config)).unwrap_or_default().into()
        } else {
            std::sync::Arc::from([])
        },
        ret_values: if allocator { common_values(&fresh_returns, |v| &v.ret_values) } else { Vec::new() },
        out_values,
        heap_pure: touches_no_heap(func, |s| cx.model(s)),
        writes,
        ret_const: returned_constant(func),
        never_null: allocator && alloc_if.is_none() && returns_only_fresh(cx) && returns_never_null(cx),
        // The driver writes the SCC's set (`global_writes::of_scc`).
        globals_written: crate::global_writes::GlobalWrites::All,
        ret_addr: crate::interior::returned_address(func, &cx.addr_temps).map(|(i, p)| (i, p.into())),
    };
    (summary, param_double_frees)
}

/// Two statements free a parameter or a copy of one (flow-insensitively, any parameter): the
/// only functions without allocation sites whose parameters' passes need facts.
fn may_free_a_param_twice(cx: &CheckCx) -> bool {
    let func = cx.func;
    let mut from_param: Vec<bool> = vec![false; func.locals.len()];
    for p in func.params() {
        from_param[p.index()] = true;
    }
    let mut frees = 0;
    for (si, s) in func.stmts.iter().enumerate() {
        match s {
            Stmt::Assign { dst: Place::Local(l), src: Rvalue::Use(op) } => {
                if op.local().is_some_and(|y| from_param[y.index()]) {
                    from_param[l.index()] = true;
                }
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
    p: LocalId,
    events: &[Event],
) -> Option<Vec<Step>> {
    let entry = DagNode(cx.func.entry.0);
    let first_pair = |guards: &Guards, solver: &mut Solver, events: &[Event]| {
        let frees: Vec<GuardId> =
            events.iter().filter(|e| matches!(e.kind, EventKind::Free) && !e.weak).map(|e| e.guard).collect();
        for i in 0..frees.len() {
            for j in i + 1..frees.len() {
                match solver.check(guards, &[(frees[i], true), (frees[j], true)]) {
                    Answer::Sat(m) => return Some((m, frees[i], frees[j])),
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
        let followed = cx.facts.follow(cx);
        let with_facts = flow(cx, guards, entry, 0, Key::local(p), None, None, false, Some((&followed, &[])), None);
        if guards.over_budget() {
            guards.reset_budget();
            return None;
        }
        found = first_pair(guards, solver, &with_facts)?;
    }
    let (m, a, b) = found;
    let support = guards.support(&[a, b]);
    let steps = walk(cx, &m_values(&m), &support, None, entry, 0, Key::local(p), WalkGoal::SecondFree);
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
            crate::cfg::source_success(m).is_some() || !m.out_paths.is_empty() || !m.ret_paths.is_empty()
        })
    });
    if allocates {
        return None;
    }
    let params = cx.prechecked_params().iter().copied().collect::<Option<Vec<_>>>()?;
    let pure = touches_no_heap(func, |s| cx.model(s));
    let heap = if heap_needed { heap_effects(cx, None)? } else { Vec::new() };
    let noreturn = never_returns(func, |s| cx.ends_path(s));
    let writes = crate::alias::writes(cx, &[]).into();
    Some(Summary {
        params,
        heap: heap.into(),
        heap_pure: pure,
        writes,
        ret_const: returned_constant(func),
        ret_addr: crate::interior::returned_address(func, &cx.addr_temps).map(|(i, p)| (i, p.into())),
        ..Summary::plain(func.n_params as usize, noreturn)
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
fn heap_effects(cx: &CheckCx, flows: Option<&Config>) -> Option<Vec<(usize, std::sync::Arc<str>, PathFate)>> {
    let func = cx.func;
    let mut out = Vec::new();
    let Some(paths) = cx.heap_paths() else {
        return Some(out); // `heap_pure` says it all
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
                let events = flow(cx, guards, DagNode(func.entry.0), 0, x, None, None, true, None, None);
                if guards.over_budget() {
                    guards.reset_budget();
                    PathFate::Escapes
                } else {
                    path_fate_of(guards, solver, &events)
                }
            }
            (None, None) => return None,
        };
        // Past the cap, the fields not followed are unknown, so "the others" are too.
        let fate = if h.capped && h.path == crate::cfg::OTHER_PATH { PathFate::Escapes } else { fate };
        out.push((h.param, std::sync::Arc::from(cx.path_text(h.path)), fate));
    }
    cx.note_timeout(pass.as_ref().is_some_and(|(g, _)| g.timed_out()));
    // By text, not by this function's path ids: summaries are compared across fixpoint rounds.
    out.sort();
    Some(out)
}

/// One (parameter, access path) whose fate a summary's heap effects state, with what the
/// flow-insensitive precheck says of it (`pre`; `None`: only a pass from the entry can tell).
pub struct HeapPath {
    param: usize,
    local: LocalId,
    path: u32,
    /// The parameter has more paths than `MAX_HEAP_PATHS`: its `OTHER_PATH` is unknown.
    capped: bool,
    pre: Option<PathFate>,
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
    if func.blocks.iter().any(|b| matches!(&b.term, Terminator::Return(Some(op)) if held(op))) {
        return Some(PathFate::Escapes);
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
    for e in events {
        match e.kind {
            EventKind::Escape(_)
            | EventKind::Inside(_)
            | EventKind::Stored { .. }
            | EventKind::ReturnedIn(_)
            | EventKind::Return => return PathFate::Escapes,
            EventKind::Free => freed = guards.or(freed, e.guard),
            EventKind::Kept => kept = guards.or(kept, e.guard),
            EventKind::Exit => ended = guards.or(ended, e.guard),
        }
    }
    let mut covered = |guards: &mut Guards, g: GuardId| {
        let all = guards.or(g, ended);
        matches!(solver.check(guards, &[(all, false)]), Answer::Unsat)
    };
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

/// How a caller tells that an out-parameter received the cell: on every return (`Always`), or
/// on the returns of one range of constants when the others return constants outside it.
/// `None` when the return value cannot tell (the caller then sees no allocation).
fn out_success(
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
        (Some(ok), Some(fail)) if !void_stored && (fail.1 < ok.0 || ok.1 < fail.0) => {
            Some(crate::libmodel::Success::Range { ok, fail })
        }
        _ => None,
    }
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
        if let Some(size) = realloc_fate(cx, guards, solver, freed, freed_or_ended, rets) {
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
/// allocation that succeeded exactly when the block was freed. `Some(Some(size))` when, besides,
/// the block is always freed where parameter `size` is zero (a `lua_Alloc`); `Some(None)` when
/// no size test says so (a wrapper passing its size on).
fn realloc_fate(
    cx: &CheckCx,
    guards: &Guards,
    solver: &mut Solver,
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
                // Aggregates passed by value do not carry a cell we track.
                return Some(if func.local(p).is_aggregate { ParamFate::Reads } else { ParamFate::Escapes });
            }
            match param_use(func, model_of, tracked, reading, p) {
                ParamUse::ReadOnly => Some(ParamFate::Reads),
                ParamUse::Escapes => Some(ParamFate::Escapes),
                ParamUse::NeedsFlow => None,
            }
        })
        .collect()
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
                Stmt::Assign { dst, src: Rvalue::Opaque(ops) } => (Some(dst), ops.iter().any(is_h)),
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
                            Some(ArgEffect::Keeps) => escapes = true,
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
                    Some(_) => escapes = true,
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

fn m_values(m: &Model) -> impl Fn(AtomId) -> Option<bool> + '_ {
    move |a| m.value(a)
}

fn merge_into(guards: &mut Guards, slot: &mut Option<State>, incoming: State) {
    match slot {
        None => *slot = Some(incoming),
        Some(cur) => {
            let (old_p, new_p) = (cur.p, guards.or(cur.p, incoming.p));
            cur.p = new_p;
            for (y, g) in incoming.h {
                let old = cur.get_key(y);
                // Held on every path of both sides: held wherever the merge is reached.
                let merged = if old == old_p && g == incoming.p { new_p } else { guards.or(old, g) };
                cur.set_key(y, merged);
            }
            for y in incoming.maybe_null {
                cur.set_maybe_null(y, true);
            }
            for y in incoming.weak {
                cur.set_weak(y, true);
            }
            // An alias holds after a merge only if it holds on both sides.
            cur.alias.retain(|a| incoming.alias.binary_search(a).is_ok());
            cur.derived.retain(|d| incoming.derived.binary_search(d).is_ok());
            cur.values.merge(guards, incoming.values, old_p, incoming.p, new_p);
            for (k, f, g) in incoming.facts {
                match cur.facts.iter_mut().find(|c| c.0 == k && c.1 == f) {
                    // Known on every path of both sides: known wherever the merge is reached.
                    Some(c) if c.2 == old_p && g == incoming.p => c.2 = new_p,
                    Some(c) => c.2 = guards.or(c.2, g),
                    None => cur.facts.push((k, f, g)),
                }
            }
        }
    }
}

/// The guard under which exactly one of `a`, `b` holds the cell, as a pointer local that surely
/// points to it (not a value that may be NULL or another array element's); the other side is
/// anything that does not hold it (a constant, a load, an array's address).
fn separated(cx: &CheckCx, guards: &mut Guards, st: &State, a: &Operand, b: &Operand) -> GuardId {
    let sure =
        |o: &Operand| o.local().is_some_and(|l| cx.func.local(l).is_pointer) && !st.is_maybe_null(o) && !st.is_weak(o);
    // The address of a named object (`&glob_error_return`, `&local.f`): no block, and not NULL,
    // so any holder of the cell differs from it (bash's `GLOB_FAILED (sl->list)`).
    let names_object = |o: &Operand| {
        o.local().and_then(|t| cx.addr_temps.get(&t)).is_some_and(|p| {
            let mut q = p;
            loop {
                match q {
                    Place::Global(_) | Place::Local(_) => break true,
                    Place::Field(inner, _) | Place::Index(inner) => q = inner,
                    Place::Deref(_) => break false,
                }
            }
        })
    };
    let (ga, gb) = (value_guard(cx, st, a), value_guard(cx, st, b));
    let mut sep = GuardId::FALSE;
    for (g, other, holder) in [(ga, gb, a), (gb, ga, b)] {
        let object = if std::ptr::eq(holder, a) { b } else { a };
        if g != GuardId::FALSE && (sure(holder) || (names_object(object) && !st.is_weak(holder))) {
            let n = guards.not(other);
            let only = guards.and(g, n);
            sep = guards.or(sep, only);
        }
    }
    sep
}

/// The local slot holding the pointer a place is inside the pointee of: `p` for `p->a[i]`,
/// `s.buf` for `&s.buf[1]` (an interior pointer into the cell that slot holds, FastCheck 5.6.2).
/// Only locals and fields of local structs: an interior pointer computed from a pointer kept in
/// the heap (`p->top = &p->stack[n]`) is a second name the owner already covers.
fn pointee_key(cx: &CheckCx, place: &Place) -> Option<Key> {
    match place {
        Place::Deref(inner) => cx.key_of(inner).filter(|k| !cx.path_text(k.path).starts_with('*')),
        Place::Field(p, _) | Place::Index(p) => pointee_key(cx, p),
        Place::Local(_) | Place::Global(_) => None,
    }
}

fn value_guard(cx: &CheckCx, st: &State, op: &Operand) -> GuardId {
    match op {
        Operand::Place(place) => cx.key_of(place).map_or(GuardId::FALSE, |k| st.get_key(k)),
        _ => GuardId::FALSE,
    }
}

fn escape_kind(cx: &CheckCx, place: &Place) -> EscapeKind {
    match place {
        Place::Global(_) => EscapeKind::Global,
        Place::Local(_) => EscapeKind::LocalStorage,
        Place::Index(inner) => match &**inner {
            Place::Local(_) => EscapeKind::Array,
            Place::Global(_) => EscapeKind::Global,
            _ => EscapeKind::Array,
        },
        Place::Field(inner, _) => match inner.root_local() {
            Some(l) if matches!(**inner, Place::Local(_)) && cx.func.local(l).is_aggregate => EscapeKind::LocalStorage,
            _ if matches!(**inner, Place::Global(_)) => EscapeKind::Global,
            _ => EscapeKind::Heap,
        },
        Place::Deref(_) => EscapeKind::Heap,
    }
}

/// Where an argument kept by a call goes.
fn retained(model: Option<&crate::summary::Model>, callee: &Callee) -> EscapeKind {
    match model {
        Some(m) if m.known => EscapeKind::Retained(m.name.to_string()),
        _ => EscapeKind::UnknownCallee(callee_name(callee)),
    }
}

fn callee_name(callee: &Callee) -> String {
    match callee {
        Callee::Direct { name, .. } => name.clone(),
        Callee::Indirect { .. } => "a function pointer".to_string(),
    }
}

fn transfer(cx: &CheckCx, guards: &mut Guards, st: &mut State, sid: StmtId, events: &mut Vec<Event>) {
    match cx.func.stmt(sid) {
        Stmt::Assign { dst, src } => {
            let g = match src {
                Rvalue::Use(op) => value_guard(cx, st, op),
                Rvalue::Opaque(ops) => {
                    // Pointer-valued arithmetic the front end could not simplify keeps the cell.
                    let ptr_dst = dst.as_local().is_some_and(|l| cx.func.local(l).is_pointer);
                    let mut g = GuardId::FALSE;
                    if ptr_dst {
                        for op in ops {
                            let gy = value_guard(cx, st, op);
                            g = guards.or(g, gy);
                        }
                    }
                    g
                }
                // `&p->f`: an interior pointer into the cell `p` points to.
                Rvalue::AddrOf(place) => {
                    // The address of a slot that holds the cell: it can now change behind our
                    // back, so the cell escapes there.
                    if let Some(k) = cx.key_of(place).filter(|k| !k.is_local()) {
                        escape_key(st, k, EscapeKind::LocalStorage, events);
                    }
                    match pointee_key(cx, place) {
                        Some(k) => st.get_key(k),
                        None => GuardId::FALSE,
                    }
                }
            };
            // Loaded from an array element: maybe another element's value.
            let weak = match src {
                Rvalue::Use(op @ Operand::Place(Place::Local(_))) => st.is_weak(op),
                Rvalue::Use(Operand::Place(p)) => cx.key_of(p).is_some_and(|k| cx.is_weak(k)),
                _ => false,
            };
            if let Some(l) = dst.as_local() {
                st.set_weak(l, weak && g != GuardId::FALSE);
            }
            let maybe_null = match src {
                Rvalue::Use(op) => st.is_maybe_null(op),
                // Inside a cell that exists: not NULL.
                Rvalue::AddrOf(place) => {
                    place.pointee_of_local().is_some_and(|y| st.maybe_null.binary_search(&y).is_ok())
                }
                Rvalue::Opaque(_) => g != GuardId::FALSE,
            };
            // Copying a pointer copies what its object holds, as seen through the new name.
            let contents = match src {
                Rvalue::Use(Operand::Place(Place::Local(y))) => st.contents(*y),
                _ => Vec::new(),
            };
            let copied_from = match src {
                Rvalue::Use(Operand::Place(Place::Local(y))) if cx.is_tracked(*y) => Some(*y),
                _ => None,
            };
            let loaded_from = match src {
                Rvalue::Use(Operand::Place(Place::Local(y))) => st.derived_from(*y),
                Rvalue::Use(Operand::Place(p)) => cx.key_of(p).filter(|k| !k.is_local()).map(|k| (k, false)),
                Rvalue::AddrOf(p) => cx.key_of(p).filter(|k| !k.is_local()).map(|k| (k, true)),
                _ => None,
            };
            store(cx, guards, st, dst, g, maybe_null, contents, copied_from, events);
            if let Some(l) = dst.as_local() {
                st.set_derived(l, loaded_from);
            }
        }
        Stmt::Call { dst, callee, args } => {
            let model = cx.model(sid);
            // The callee's stores of whole parameters below other parameters (`*a = p`), with
            // the values they store, read before the call: instantiated in the callee's order
            // after its other effects, so that arguments naming one place get the later store.
            let moves = model.and_then(|m| moves_at(cx, st, m, args));
            let moved = |i: usize| moves.as_ref().is_some_and(|mv| mv.1.contains(&i));
            let mut redefined: Vec<Key> = Vec::new();
            let mut freed_here: Vec<GuardId> = Vec::new();
            // Out-parameter slots whose old cell survives a failed call: restored after the
            // redefinition below.
            let mut kept_on_failure: Vec<(Key, GuardId)> = Vec::new();
            for (i, a) in args.iter().enumerate() {
                // A call the IR could not attach a model to is an unknown callee.
                let effect = model.map_or(Some(ArgEffect::Keeps), |m| m.arg_effect(i));
                if effect == Some(ArgEffect::OutRealloc) {
                    // getline keeps, or reallocates in place of, the buffer it is given: whoever
                    // held it still owns the (possibly moved) block afterwards.
                    continue;
                }
                if let Some(ArgEffect::OutFresh(_)) = effect {
                    let slot = match cx.out_param_place(a) {
                        Some(p) => cx.key_of(p),
                        None => cx.callee_slot(a, "*"),
                    };
                    if let Some(k) = slot {
                        redefined.push(k);
                    }
                    // A library out-parameter allocator overwrites `*out`; a summarised one may
                    // first free or keep what was there (a grow-or-allocate helper), which its
                    // heap effects say.
                    if model.is_some_and(|m| m.lib) {
                        continue;
                    }
                }
                let is_out = matches!(effect, Some(ArgEffect::OutFresh(_)));
                // What the argument lets the callee reach: the callee's summary (or the library
                // row, or the unknown-callee default) says what happens to each slot below it.
                for (k, callee_path) in reachable_slots(cx, st, a, model.is_some_and(|m| m.lib)) {
                    let g = st.get_key(k);
                    match model.map_or(PathFate::Escapes, |m| m.path_fate(i, &callee_path)) {
                        PathFate::Reads => {}
                        fate @ (PathFate::Frees | PathFate::FreesCleared) => {
                            // Two names of one object hold the same cell: one free, not two.
                            if !freed_here.contains(&g) {
                                freed_here.push(g);
                                events.push(Event { kind: EventKind::Free, guard: g, weak: cx.is_weak(k) });
                            }
                            if fate == PathFate::FreesCleared {
                                st.set_key(k, GuardId::FALSE);
                            }
                        }
                        // `free(p1)` while `p1->right->left` holds the cell: the object
                        // `p1->right` points to is not freed, and the cell lives on inside it.
                        PathFate::Lost if model.is_some_and(|m| m.lib) && callee_path.matches('*').count() > 1 => {
                            let kind = inside(cx, k, st.at);
                            events.push(Event { kind, guard: g, weak: false });
                            st.set_key(k, GuardId::FALSE);
                        }
                        PathFate::Lost => st.set_key(k, GuardId::FALSE),
                        // `*out` of an out-parameter allocator: overwritten when the call
                        // succeeds, left alone when it fails.
                        PathFate::KeptOrLost if is_out && k.is_local() && cx.success_atom.contains_key(&sid) => {
                            let failed = guards.lit(cx.success_atom[&sid], false);
                            let kept = guards.and(g, failed);
                            st.set_key(k, kept);
                            kept_on_failure.push((k, kept));
                        }
                        PathFate::KeptOrLost | PathFate::Escapes => escape_key(st, k, retained(model, callee), events),
                    }
                }
                let g = value_guard(cx, st, a);
                if g == GuardId::FALSE {
                    continue;
                }
                let weak =
                    st.is_weak(a) || matches!(a, Operand::Place(p) if cx.key_of(p).is_some_and(|k| cx.is_weak(k)));
                match effect {
                    Some(ArgEffect::Frees) => events.push(Event { kind: EventKind::Free, guard: g, weak }),
                    Some(ArgEffect::FreesWhen { on_success, else_keeps }) => {
                        // In a header copy that leaves by the header's test of this call, the
                        // later call's outcome is known (`FnCx::later_success`).
                        let outcome = match cx.later_success(st.at.0, sid) {
                            Some(ok) => {
                                let (yes, no) = (GuardId::TRUE, GuardId::FALSE);
                                Some(if ok == on_success { (yes, no) } else { (no, yes) })
                            }
                            None => cx
                                .success_atom
                                .get(&sid)
                                .map(|a| (guards.lit(*a, on_success), guards.lit(*a, !on_success))),
                        };
                        match outcome {
                            Some((freed, kept)) => {
                                let gg = guards.and(g, freed);
                                events.push(Event { kind: EventKind::Free, guard: gg, weak });
                                if else_keeps {
                                    let gk = guards.and(g, kept);
                                    events.push(Event {
                                        kind: EventKind::Escape(retained(model, callee)),
                                        guard: gk,
                                        weak: false,
                                    });
                                }
                            }
                            None => events.push(Event {
                                kind: EventKind::Escape(retained(model, callee)),
                                guard: g,
                                weak: false,
                            }),
                        }
                    }
                    Some(ArgEffect::FreesIfArg { flag, when }) => match cx.flag_atom.get(&(sid, flag, -1)) {
                        Some(a) => {
                            let freed = guards.lit(*a, when);
                            let gg = guards.and(g, freed);
                            events.push(Event { kind: EventKind::Free, guard: gg, weak: false });
                        }
                        None => events.push(Event {
                            kind: EventKind::Escape(retained(model, callee)),
                            guard: g,
                            weak: false,
                        }),
                    },
                    Some(ArgEffect::Keeps) if moved(i) => {}
                    Some(ArgEffect::Keeps) => {
                        events.push(Event { kind: EventKind::Escape(retained(model, callee)), guard: g, weak: false })
                    }
                    _ => {}
                }
            }
            // `setjmp` returning a second time resumes after a `longjmp` out of calls this path
            // does not show, which may have freed or kept what is held here (bash hands a
            // command to `parse_and_execute`, which frees it, before an error jumps back): the
            // cells held at the call are followed on its first return only.
            if let (Some(m), Some(a)) = (model.filter(|m| m.returns_twice), cx.success_atom.get(&sid)) {
                let (first, again) = (guards.lit(*a, true), guards.lit(*a, false));
                let name = m.name.to_string();
                for (k, g) in st.h.clone() {
                    let resumed = guards.and(g, again);
                    if resumed != GuardId::FALSE {
                        let kind = EventKind::Escape(EscapeKind::Longjmp(name.clone()));
                        events.push(Event { kind, guard: resumed, weak: false });
                        let kept = guards.and(g, first);
                        st.set_key(k, kept);
                    }
                }
            }
            // A callee that leaves fresh cells below an argument overwrites what was there.
            let out_keys = model.map(|_| cx.out_path_keys(sid, args));
            if let Some(ok) = &out_keys {
                redefined.extend(ok.locals.iter().map(|l| Key::local(*l)));
            }
            // Cleared slots: one by one, or in one sweep of the state when there are more of
            // them than it holds (a callee that fills a large structure names hundreds).
            redefined.retain(|k| {
                if k.is_local() {
                    st.set_maybe_null(k.root, false);
                    retire_contents(cx, st, k.root, events);
                    st.rebind(k.root, None);
                }
                !k.is_local() || st.get_key(*k) != GuardId::FALSE
            });
            if redefined.len() > st.h.len() {
                redefined.sort_unstable();
                st.h.retain(|e| redefined.binary_search(&e.0).is_err());
            } else {
                for k in redefined {
                    st.set_key(k, GuardId::FALSE);
                }
            }
            if let Some(ok) = out_keys.filter(|ok| !ok.paths.is_empty()) {
                st.h.retain(|e| e.0.is_local() || ok.paths.binary_search(&e.0).is_err());
            }
            for (k, g) in kept_on_failure {
                st.set_key(k, g);
            }
            // Keys a move wrote: a later fresh store there overwrites it (other fresh stores
            // were instantiated above, with their failure cases).
            let mut moved_to: Vec<Key> = Vec::new();
            for (keys, g) in moves.map(|m| m.0).unwrap_or_default() {
                let clears = g == GuardId::FALSE;
                for k in keys {
                    if clears && !moved_to.contains(&k) {
                        continue;
                    }
                    moved_to.push(k);
                    if k.is_local() {
                        retire_contents(cx, st, k.root, events);
                        st.rebind(k.root, None);
                        st.set_maybe_null(k.root, false);
                    }
                    if cx.is_weak(k) {
                        let old = st.get_key(k);
                        let merged = guards.or(old, g);
                        st.set_key(k, merged);
                    } else {
                        st.set_key(k, g);
                    }
                }
            }
            let alias = model.and_then(|m| m.ret_alias());
            let (mut ret, arg_maybe_null) = match alias {
                Some(i) => {
                    args.get(i).map(|a| (value_guard(cx, st, a), st.is_maybe_null(a))).unwrap_or((GuardId::FALSE, true))
                }
                None => (GuardId::FALSE, true),
            };
            // Fresh or the argument: the argument only where the call's flag says "not fresh".
            // A list argument holding the cell is not NULL, so `append(list, x)` is the list.
            if let (Some(m), Some(i)) = (model, alias) {
                if let Some((flag, mask, when)) = m.fresh_if_arg.filter(|f| f.0 != i) {
                    ret = match cx.flag_atom.get(&(sid, flag, mask)) {
                        Some(a) => {
                            let off = guards.lit(*a, !when);
                            guards.and(ret, off)
                        }
                        None => GuardId::FALSE,
                    };
                }
            }
            // `strcpy(p, s)` is `p`, NULL only when `p` is; `fgets(p, ..)` may be NULL.
            let itself = model.zip(alias).is_some_and(|(m, i)| m.ret_is_arg_itself(i)) && !arg_maybe_null;
            if let Some(d) = dst {
                store(cx, guards, st, d, ret, ret != GuardId::FALSE && !itself, Vec::new(), None, events);
                if let Some(l) = d.as_local() {
                    st.set_derived(l, None);
                }
            }
        }
    }
}

/// What a call whose outcome has an atom (`FnCx::success_atom`: an allocator, a call that frees
/// an argument only when it succeeds, `setjmp`) leaves in the local it returns into, on each
/// side of that atom: `r = realloc (p, n)` is non-NULL where it succeeded, `r = setjmp (..)` is 0
/// on the first return. A later test of `r` that also sees another definition (`tmp = NULL; if
/// (ok) tmp = realloc (p, n); if (tmp) …`, `r = 0; if (c) r = sigsetjmp (b);`) then goes the way
/// the call's outcome says on the paths through the call.
fn call_status_facts(cx: &CheckCx, guards: &mut Guards, st: &mut State, sid: StmtId) {
    use crate::facts::Fact;
    use crate::libmodel::Success;
    let Stmt::Call { dst: Some(Place::Local(r)), .. } = cx.func.stmt(sid) else { return };
    let (Some(a), Some(k)) = (cx.success_atom.get(&sid), cx.facts.key(*r, "")) else { return };
    let Some(success) = cx.model(sid).and_then(crate::cfg::call_success) else { return };
    let (ok, failed) = match success {
        Success::NonNull => (Fact::Ne(0), Fact::In(0, 0)),
        Success::RetZero => (Fact::In(0, 0), Fact::Ne(0)),
        Success::RetNonNegative => (Fact::In(0, i64::MAX), Fact::In(i64::MIN, -1)),
        Success::Range { ok, fail } => (Fact::In(ok.0, ok.1), Fact::In(fail.0, fail.1)),
        Success::Always => return,
    };
    let (yes, no) = (guards.lit(*a, true), guards.lit(*a, false));
    let (on_ok, on_failed) = (guards.and(st.p, yes), guards.and(st.p, no));
    st.facts.push((k, ok, on_ok));
    st.facts.push((k, failed, on_failed));
}

/// The callee's stores below its parameters (`Summary::writes`) as strong updates of this
/// function's slots, in the callee's order: for each, the slots it writes (with the names of
/// the same object, `State::alias`) and the guard of holding the cell it writes; and the
/// parameters stored whole. `None` when the callee stores no parameter whole, or a store's
/// slot has no name here (the call is then instantiated as for distinct arguments: escapes).
#[allow(clippy::type_complexity)]
fn moves_at(
    cx: &CheckCx,
    st: &State,
    m: &crate::summary::Model,
    args: &[Operand],
) -> Option<(Vec<(Vec<Key>, GuardId)>, Vec<usize>)> {
    use crate::alias::WriteFrom;
    if !m.writes.iter().any(|w| matches!(w.from, WriteFrom::Param(_))) {
        return None;
    }
    let mut out = Vec::with_capacity(m.writes.len());
    let mut sources = Vec::new();
    for w in m.writes.iter() {
        let a = args.get(w.param)?;
        let k = cx.callee_slot(a, &w.path)?;
        let mut keys = vec![k];
        if let Some((root, prefix)) = cx.arg_slots(a) {
            if prefix == "*" && !k.is_local() {
                keys.extend(st.names_of(root).into_iter().skip(1).map(|z| Key { root: z, path: k.path }));
            }
        }
        let g = match w.from {
            WriteFrom::Fresh => GuardId::FALSE,
            WriteFrom::Param(i) => {
                sources.push(i);
                value_guard(cx, st, args.get(i)?)
            }
        };
        out.push((keys, g));
    }
    Some((out, sources))
}

/// The tracked slots (holding the cell) that a call argument lets the callee reach, each with
/// the access path by which the callee sees it (`*`, `*.buf`, `*?` never: that is the callee's
/// name for paths it does not mention, looked up when the path is not listed). A pointer's
/// aliases reach the same object. Out-parameter arguments reach nothing here: their slot is
/// redefined by the call. A library function (`lib`), whose effects are documented, also reaches
/// the object a pointer loaded from a slot points to: `free(s.data)` loses what `s.data[i]` holds.
fn reachable_slots(cx: &CheckCx, st: &State, arg: &Operand, lib: bool) -> Vec<(Key, String)> {
    let loaded = match arg {
        Operand::Place(place @ (Place::Field(..) | Place::Deref(_) | Place::Index(_))) if lib => {
            cx.pointee_prefix(place).map(|(root, prefix)| (root, std::borrow::Cow::Owned(prefix)))
        }
        _ => None,
    };
    let Some((root, prefix)) = loaded.or_else(|| cx.arg_slots(arg)) else { return Vec::new() };
    let roots = if prefix == "*" { st.names_of(root) } else { vec![root] };
    let mut out = Vec::new();
    for (k, _) in &st.h {
        if !roots.contains(&k.root) {
            continue;
        }
        let text = cx.path_text(k.path);
        if text == crate::model::OTHER_PATH_TEXT {
            // What a summary's subject calls "the fields nobody names" is that for the callee too.
            out.push((*k, text.to_string()));
            continue;
        }
        let Some(rest) = text.strip_prefix(&*prefix) else { continue };
        // `*.f` is a prefix of `*.foo` as text, not as a path.
        if !(prefix.is_empty() || rest.is_empty() || rest.starts_with(['.', '*', '['])) {
            continue;
        }
        out.push((*k, format!("*{rest}")));
    }
    out
}

/// The slot `k` may change outside what this pass sees: whatever it holds escapes there, and it
/// is no longer tracked.
fn escape_key(st: &mut State, k: Key, kind: EscapeKind, events: &mut Vec<Event>) {
    let g = st.get_key(k);
    if g != GuardId::FALSE {
        events.push(Event { kind: EventKind::Escape(kind), guard: g, weak: false });
        st.set_key(k, GuardId::FALSE);
    }
}

/// Local `y` gets a new value: the paths below it named its old object. A pointer's object
/// lives on (what it holds escapes with it); a local struct's old field values are gone.
fn retire_contents(cx: &CheckCx, st: &mut State, y: LocalId, events: &mut Vec<Event>) {
    for (k, g) in st.contents(y) {
        // Another name for the same object (`p = head; ...; p = p->next`) still holds it.
        let names = st.names_of(y);
        let alias = names[1..].iter().any(|z| st.get_key(Key { root: *z, path: k.path }) == g);
        if cx.dies_with_frame(k) || alias {
            st.set_key(k, GuardId::FALSE);
        } else {
            // The old object lives on, holding the cell: inside it from here on.
            let kind = inside(cx, k, st.at);
            events.push(Event { kind, guard: g, weak: false });
            st.set_key(k, GuardId::FALSE);
        }
    }
}

/// The event for a cell left at slot `k` below a pointer local when the local stops naming
/// its object just before statement `at` (reassigned, or the function returns): inside the
/// object the local pointed to, or, for a deeper path (`y->a->b`), inside the object its
/// prefix slot points to; an escape into the heap when that slot has no name here.
fn inside(cx: &CheckCx, k: Key, at: (u32, u32)) -> EventKind {
    match holder_of(cx, k, at) {
        Some(h) => EventKind::Inside(h),
        None => EventKind::Escape(EscapeKind::Heap),
    }
}

fn holder_of(cx: &CheckCx, k: Key, at: (u32, u32)) -> Option<Holder> {
    let text = cx.path_text(k.path);
    match text.rfind('*') {
        Some(0) => Some(Holder::Local(k.root, DagNode(at.0), at.1)),
        // `p->a->b`, or `s.data[i]` of a local struct `s`: the object the prefix slot points to.
        Some(i) => cx.path_id(&text[..i]).map(|id| Holder::Slot(Key { root: k.root, path: id })),
        None => None, // a field of a local aggregate: it dies with the function
    }
}

/// `dst = value`, where the value holds the cell under `g` and its object holds it in the
/// `contents` paths (when the value is a local).
#[allow(clippy::too_many_arguments)]
/// `l = <a value this pass does not follow>`: what a later loop iteration's assignment does.
/// The later iteration a header copy stands for (`cfg::LaterIteration`), as guards of one pass:
/// the guard under which the iteration reaches each edge of its body, from the header (which
/// the copy runs itself) on. A loop-invariant test's edges keep their labels, so the later
/// iteration goes the way the first one went there; every other edge may be taken.
struct Later<'c> {
    copy: DagNode,
    it: &'c LaterIteration,
    /// DAG node → its position in `it.nodes`.
    pos: hashbrown::HashMap<u32, usize>,
    /// Per position, its out edges (target, guard that the later iteration takes it, the local
    /// the edge frees: the side of a `realloc`'s test in the same node where it succeeded).
    edges: Vec<Vec<(DagNode, GuardId, Option<LocalId>)>>,
    /// Every edge is taken either way: every exit is reached, and what the iteration surely
    /// defines is `Dag::exit_kills`.
    plain: bool,
    /// Exit (a node outside the body) → the guard under which the iteration reaches it.
    exits: hashbrown::HashMap<u32, GuardId>,
    /// (local, frees) → `surely`'s answer for every exit, computed on first use.
    memo: std::cell::RefCell<hashbrown::HashMap<(LocalId, bool), std::rc::Rc<hashbrown::HashMap<u32, GuardId>>>>,
}

impl<'c> Later<'c> {
    /// `st`: the state at the copy, after the header's statements. A local that holds the
    /// cell there and that the later iteration has not redefined is non-NULL where it holds it:
    /// its NULL test goes that way (`if (buf != NULL) break;` of a two-pass loop whose first
    /// pass allocates `buf`).
    fn new(
        cx: &CheckCx,
        guards: &mut Guards,
        st: &State,
        copy: DagNode,
        it: &'c LaterIteration,
        fold: Option<(AtomId, bool)>,
    ) -> Later<'c> {
        let pos: hashbrown::HashMap<u32, usize> = it.nodes.iter().enumerate().map(|(i, v)| (v.0, i)).collect();
        let mut reach = vec![GuardId::FALSE; it.nodes.len()];
        if let Some(r) = reach.first_mut() {
            *r = GuardId::TRUE;
        }
        let mut edges = Vec::with_capacity(it.nodes.len());
        let mut plain = true;
        let mut exits: hashbrown::HashMap<u32, GuardId> = hashbrown::HashMap::new();
        // Local → the first position after the header whose statements define it.
        let mut first_def: hashbrown::HashMap<LocalId, usize> = hashbrown::HashMap::new();
        for (i, v) in it.nodes.iter().enumerate() {
            guards.tick();
            let mut out = Vec::with_capacity(cx.dag.succs[v.index()].len());
            // A NULL test of a local holding the cell since the header: (guard it holds the
            // cell, the non-NULL side's block).
            let held_test = match &cx.func.block(cx.dag.block[v.index()]).term {
                Terminator::Branch { cond, then_, .. } if !cx.dag.is_copy(*v) && reach[i] != GuardId::FALSE => {
                    match &cond.kind {
                        CondKind::Truthy(Operand::Place(Place::Local(x))) if !st.maybe_null.contains(x) => {
                            let g = st.get(*x);
                            let mut redefined = || {
                                let first = *first_def.entry(*x).or_insert_with(|| {
                                    (1..it.nodes.len())
                                        .find(|&j| later_effect(cx, it.nodes[j], *x, false).is_some())
                                        .unwrap_or(usize::MAX)
                                });
                                first <= i
                            };
                            (g != GuardId::FALSE && !redefined()).then_some((g, *then_))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            // `tmp = realloc(x, n); if (tmp == NULL)`: the call freed `x` on its success side.
            let mut freed_by: Vec<(AtomId, bool, LocalId)> = Vec::new();
            if !cx.dag.is_copy(*v) {
                for sid in cx.stmts_of(*v) {
                    let (Stmt::Call { args, .. }, Some(model), Some(atom)) =
                        (cx.func.stmt(*sid), cx.model(*sid), cx.success_atom.get(sid))
                    else {
                        continue;
                    };
                    for (i, a) in args.iter().enumerate() {
                        if let (Some(ArgEffect::FreesWhen { on_success, .. }), Some(x)) =
                            (model.arg_effect(i), a.local())
                        {
                            freed_by.push((*atom, on_success, x));
                        }
                    }
                }
            }
            for (t, label) in &cx.dag.succs[v.index()] {
                let frees = match label {
                    EdgeLabel::Lit { atom, positive } => {
                        freed_by.iter().find(|f| f.0 == *atom && f.1 == *positive).map(|f| f.2)
                    }
                    _ => None,
                };
                let mut e = if reach[i] == GuardId::FALSE {
                    GuardId::FALSE
                } else if it.invariant[i] {
                    let lab = label_guard(guards, label, fold);
                    guards.and(reach[i], lab)
                } else {
                    reach[i]
                };
                if let Some((held, then_)) = held_test {
                    if cx.dag.block[t.index()] != then_ {
                        let not_held = guards.not(held);
                        e = guards.and(e, not_held);
                    }
                }
                plain &= e == GuardId::TRUE;
                match pos.get(&t.0) {
                    // Forward edges only: a back edge inside the body goes to a copy, which is
                    // in the body only for nested loops (later in the order).
                    Some(&j) if j > i => reach[j] = guards.or(reach[j], e),
                    Some(_) => {}
                    None => {
                        let x = exits.entry(t.0).or_insert(GuardId::FALSE);
                        *x = guards.or(*x, e);
                    }
                }
                out.push((*t, e, frees));
            }
            edges.push(out);
        }
        Later { copy, it, pos, edges, plain, exits, memo: Default::default() }
    }

    /// The guard under which the later iteration reaches exit `t`.
    fn exit(&self, t: DagNode) -> GuardId {
        if self.plain {
            return GuardId::TRUE;
        }
        self.exits.get(&t.0).copied().unwrap_or(GuardId::FALSE)
    }

    /// `surely` for exit `t`, from one pass for every exit.
    fn surely_at(&self, cx: &CheckCx, guards: &mut Guards, t: DagNode, x: LocalId, frees: bool) -> GuardId {
        let memo = self.memo.borrow().get(&(x, frees)).cloned();
        let all = match memo {
            Some(m) => m,
            None => {
                let m = std::rc::Rc::new(self.surely(cx, guards, x, frees));
                self.memo.borrow_mut().insert((x, frees), m.clone());
                m
            }
        };
        // An exit no edge of the body reaches is reached by no path: vacuously true, but the
        // copy's edge to it is cut then anyway.
        all.get(&t.0).copied().unwrap_or(GuardId::FALSE)
    }

    /// The guard under which every path of the later iteration that reaches `t` does something
    /// to local `x` after the header: with `frees`, frees it before any statement defines it;
    /// without, defines it.
    fn surely(&self, cx: &CheckCx, guards: &mut Guards, x: LocalId, frees: bool) -> hashbrown::HashMap<u32, GuardId> {
        // Per position, for the paths into it so far: all of them have done it (`done`), and
        // (`frees` only) none of them defined `x` first (`clean`), as guards; the same per exit.
        let n = self.it.nodes.len();
        let mut into = vec![(GuardId::TRUE, GuardId::TRUE); n];
        let mut at_exit: hashbrown::HashMap<u32, (GuardId, GuardId)> = hashbrown::HashMap::new();
        for (i, v) in self.it.nodes.iter().enumerate() {
            guards.tick();
            let (done, clean) = if i == 0 {
                (GuardId::FALSE, GuardId::TRUE)
            } else {
                let (done, clean) = into[i];
                match (later_effect(cx, *v, x, frees), frees) {
                    (None, _) => (done, clean),
                    (Some(true), true) => (clean, clean),
                    (Some(false), _) => (done, done),
                    (Some(true), false) => (GuardId::TRUE, GuardId::TRUE),
                }
            };
            for (u, e, edge_frees) in &self.edges[i] {
                let (done, clean) = if frees && *edge_frees == Some(x) { (clean, clean) } else { (done, clean) };
                let to = match self.pos.get(&u.0) {
                    Some(&j) if j > i => &mut into[j],
                    Some(_) => continue,
                    None => at_exit.entry(u.0).or_insert((GuardId::TRUE, GuardId::TRUE)),
                };
                let skipped = guards.not(*e);
                let d = guards.or(skipped, done);
                to.0 = guards.and(to.0, d);
                if frees {
                    let c = guards.or(skipped, clean);
                    to.1 = guards.and(to.1, c);
                }
            }
        }
        at_exit.into_iter().map(|(t, g)| (t, g.0)).collect()
    }

    /// Leaving the loop to `t`: a local that still holds the cell and that every path of the
    /// later iteration to `t` frees before it redefines it is freed there; one every such path
    /// redefines no longer holds the cell (the unconditional case is `Dag::exit_kills`, applied
    /// by the caller; this adds the redefinitions under loop-invariant tests).
    fn leave(&self, cx: &CheckCx, guards: &mut Guards, st: &mut State, t: DagNode, events: &mut Vec<Event>) {
        let mut held: Vec<LocalId> = st.h.iter().filter(|(k, _)| k.is_local()).map(|(k, _)| k.root).collect();
        held.retain(|x| cx.is_tracked(*x) && !cx.field_aggregates.get(x.index()).copied().unwrap_or(false));
        if held.is_empty() {
            return;
        }
        for x in held {
            let freed = if self.it.freed.binary_search(&x).is_ok() {
                self.surely_at(cx, guards, t, x, true)
            } else {
                GuardId::FALSE
            };
            if freed != GuardId::FALSE {
                let g = guards.and(st.get(x), freed);
                if g != GuardId::FALSE {
                    events.push(Event { kind: EventKind::Free, guard: g, weak: false });
                }
            }
            // With every edge taken either way, what is surely defined is `exit_kills`, which
            // the caller removes.
            if self.plain || cx.dag.kills(self.copy, t).contains(&x) {
                continue;
            }
            let defined = self.surely_at(cx, guards, t, x, false);
            if defined == GuardId::FALSE {
                continue;
            }
            let kept = guards.not(defined);
            let keys: Vec<(Key, GuardId)> = st.h.iter().filter(|(k, _)| k.root == x).copied().collect();
            for (k, g) in keys {
                let g = guards.and(g, kept);
                st.set_key(k, g);
            }
        }
    }
}

/// What node `v`'s statements do to local `x` first, for `Later::surely`: with `frees`, a free
/// of `x` (`Some(true)`) or a definition (`Some(false)`); without, any definition (`Some(true)`).
fn later_effect(cx: &CheckCx, v: DagNode, x: LocalId, frees: bool) -> Option<bool> {
    // The node's definitions are indexed (`FnCx::first_def`): only a free needs the statements,
    // and only those up to the first definition.
    let def = cx.first_def(v, x);
    if frees {
        let stmts = cx.stmts_of(v);
        let upto = def.map_or(stmts.len(), |i| i as usize + 1);
        for sid in &stmts[..upto] {
            if let Stmt::Call { args, .. } = cx.func.stmt(*sid) {
                let model = cx.model(*sid);
                let freed = args.iter().enumerate().any(|(i, a)| {
                    matches!(a, Operand::Place(Place::Local(y)) if *y == x)
                        && model.is_some_and(|m| m.arg_effect(i) == Some(ArgEffect::Frees))
                });
                if freed {
                    return Some(true);
                }
            }
        }
    }
    def.map(|_| !frees)
}

fn redefine_unknown(cx: &CheckCx, guards: &mut Guards, st: &mut State, l: LocalId, events: &mut Vec<Event>) {
    if !cx.is_tracked(l) || cx.field_aggregates.get(l.index()).copied().unwrap_or(false) {
        return;
    }
    st.set_weak(l, false);
    store(cx, guards, st, &Place::Local(l), GuardId::FALSE, true, Vec::new(), None, events);
    st.set_derived(l, None);
    let rooted_here = |k: u32| cx.facts.keys.get(k as usize).is_some_and(|key| key.0 == l);
    st.facts.retain(|(k, f, _)| !rooted_here(*k) && !matches!(f, crate::facts::Fact::Same(q) if rooted_here(*q)));
}

fn store(
    cx: &CheckCx,
    guards: &mut Guards,
    st: &mut State,
    dst: &Place,
    g: GuardId,
    maybe_null: bool,
    contents: Vec<(Key, GuardId)>,
    copied_from: Option<LocalId>,
    events: &mut Vec<Event>,
) {
    // `saved = cur` for local structs: the fields' values are copied.
    if let Place::Local(l) = dst {
        if cx.field_aggregates.get(l.index()).copied().unwrap_or(false) {
            if contents.first().is_none_or(|c| c.0.root != *l) {
                for (k, _) in st.contents(*l) {
                    st.set_key(k, GuardId::FALSE);
                }
                for (c, gc) in contents {
                    st.set_key(Key { root: *l, path: c.path }, gc);
                }
            }
            return;
        }
    }
    match cx.key_of(dst) {
        Some(k) if k.is_local() => {
            let l = k.root;
            let same_object = contents.first().is_some_and(|c| c.0.root == l);
            if !same_object {
                // Before `l`'s aliases change: they may still hold what its old object holds.
                retire_contents(cx, st, l, events);
                for (c, gc) in contents {
                    st.set_key(Key { root: l, path: c.path }, gc);
                }
            }
            st.rebind(l, copied_from);
            st.set(l, g);
            st.set_maybe_null(l, maybe_null && g != GuardId::FALSE);
        }
        // The cell's address stored into the cell itself (`p->self = &p[1]`): that keeps
        // nothing alive.
        Some(k) if g != GuardId::FALSE && st.get(k.root) == g => {}
        Some(k) => {
            if cx.is_weak(k) {
                // One element of many: the others keep what they held.
                let old = st.get_key(k);
                let merged = guards.or(old, g);
                st.set_key(k, merged);
            } else {
                st.set_key(k, g);
            }
            // The stored object keeps its contents (linking an object into a structure does
            // not change its fields), and they are now also reachable one level deeper through
            // `dst`: named there too when this function names that path (`b->other = a` makes
            // `a->other` also `b->other->other`). Cycles (`a->other = b; b->other = a`) stay
            // visible this way, for the held-by resolution.
            // A local struct stored whole (`*out = s`) copies its fields: they are at `dst`'s
            // path then, and escape when this function does not name that path.
            for (c, gc) in contents {
                let deeper = format!("{}{}", cx.path_text(k.path), cx.path_text(c.path));
                match cx.path_id(&deeper) {
                    Some(id) => st.set_key(Key { root: k.root, path: id }, gc),
                    None if !cx.path_text(c.path).starts_with('*') => escape_key(st, c, EscapeKind::Heap, events),
                    None => {}
                }
            }
        }
        None => {
            if g != GuardId::FALSE {
                events.push(Event { kind: EventKind::Escape(escape_kind(cx, dst)), guard: g, weak: false });
            }
            for (c, _) in contents {
                escape_key(st, c, EscapeKind::Heap, events);
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum WalkGoal {
    Leak,
    SecondFree,
}

/// Follow the path a SAT model describes, concretely tracking which locals hold the cell, and
/// record the branches that matter (those in `support`), frees, and where the cell is lost.
#[allow(clippy::too_many_arguments)]
fn walk(
    cx: &CheckCx,
    value: &impl Fn(AtomId) -> Option<bool>,
    support: &[AtomId],
    fold: Option<(AtomId, bool)>,
    node0: DagNode,
    first: usize,
    x: Key,
    goal: WalkGoal,
) -> Vec<Step> {
    let func = cx.func;
    let mut steps = Vec::new();
    let mut holders: Vec<Key> = vec![x];
    let held = |holders: &[Key], op: &Operand| match op {
        Operand::Place(p) => cx.key_of(p).is_some_and(|k| holders.contains(&k)),
        _ => false,
    };
    // Holders that came back from an argument-returning call: their NULL tests are not folded.
    let mut maybe_null: Vec<LocalId> = Vec::new();
    // Pointer locals holding the same address (from copies), as `State::alias`.
    let mut alias: Vec<(LocalId, LocalId)> = Vec::new();
    let mut node = node0;
    let mut first = first;
    let mut frees_seen = 0;
    let atom_value = |atom: AtomId| match fold {
        Some((a, v)) if a == atom => v,
        _ => value(atom).unwrap_or(false),
    };
    let atom_true = |label: &EdgeLabel| -> bool {
        match label {
            EdgeLabel::True => true,
            EdgeLabel::Lit { atom, positive } => atom_value(*atom) == *positive,
            EdgeLabel::Any(atoms) => atoms.iter().any(|a| atom_value(*a)),
        }
    };
    // The DAG is acyclic, so this loop ends; the bound is a guard against a malformed DAG.
    for _ in 0..=cx.dag.len() {
        let stmts = cx.stmts_of(node);
        for sid in &stmts[first.min(stmts.len())..] {
            let loc = func.stmt_loc(*sid);
            match func.stmt(*sid) {
                Stmt::Assign { dst, src } => {
                    let carries = match src {
                        Rvalue::Use(op) => held(&holders, op),
                        Rvalue::Opaque(ops) => {
                            dst.as_local().is_some_and(|l| func.local(l).is_pointer)
                                && ops.iter().any(|op| held(&holders, op))
                        }
                        Rvalue::AddrOf(place) => pointee_key(cx, place).is_some_and(|k| holders.contains(&k)),
                    };
                    // `q = p` copies what p's object holds, as seen through q.
                    let copied: Vec<Key> = match (dst.as_local(), src) {
                        (Some(l), Rvalue::Use(Operand::Place(Place::Local(y)))) if l != *y => holders
                            .iter()
                            .filter(|k| k.root == *y && !k.is_local())
                            .map(|k| Key { root: l, path: k.path })
                            .collect(),
                        _ => Vec::new(),
                    };
                    if let Some(l) = dst.as_local() {
                        let weak = match src {
                            Rvalue::Use(op) => op.local().is_some_and(|y| maybe_null.contains(&y)),
                            _ => carries,
                        };
                        maybe_null.retain(|m| *m != l);
                        if weak && carries {
                            maybe_null.push(l);
                        }
                    }
                    let lost = assign_holder(cx, &mut holders, dst, carries || !copied.is_empty(), loc);
                    if !carries {
                        if let Some(l) = dst.as_local() {
                            holders.retain(|k| *k != Key::local(l));
                        }
                    }
                    holders.extend(copied);
                    if let Some(l) = dst.as_local() {
                        alias.retain(|&(a, b)| a != l && b != l);
                        if let Rvalue::Use(Operand::Place(Place::Local(y))) = src {
                            if *y != l && cx.is_tracked(*y) {
                                let others: Vec<LocalId> = alias
                                    .iter()
                                    .filter_map(|&(a, b)| (a == *y).then_some(b).or((b == *y).then_some(a)))
                                    .collect();
                                alias.push((l, *y));
                                alias.extend(others.into_iter().map(|z| (l, z)));
                            }
                        }
                    }
                    if let Some(step) = lost {
                        if goal == WalkGoal::Leak {
                            steps.push(step);
                            return steps;
                        }
                    }
                }
                Stmt::Call { dst, args, .. } => {
                    let model = cx.model(*sid);
                    let mut redefined = Vec::new();
                    for (i, a) in args.iter().enumerate() {
                        let effect = model.and_then(|m| m.arg_effect(i));
                        if effect == Some(ArgEffect::OutRealloc) {
                            continue;
                        }
                        if let Some(ArgEffect::OutFresh(_)) = effect {
                            if let Some(k) = cx.out_param_place(a).and_then(|p| cx.key_of(p)) {
                                redefined.push(k);
                            }
                            continue;
                        }
                        // `free(s)` while `s->buf` holds the cell.
                        // Also `free(s.data)` while `s.data[i]` holds it.
                        let container = match a {
                            Operand::Place(Place::Local(y)) => Some((*y, "*".to_string(), Key::local(*y))),
                            Operand::Place(place) => cx
                                .pointee_prefix(place)
                                .zip(cx.key_of(place))
                                .map(|((root, prefix), k)| (root, prefix, k)),
                            _ => None,
                        };
                        if let (Some((root, prefix, name)), Some(ArgEffect::Frees), true) =
                            (container, effect, model.is_some_and(|m| m.lib))
                        {
                            let had = holders.len();
                            holders.retain(|k| {
                                k.root != root || k.is_local() || !cx.path_text(k.path).starts_with(&*prefix)
                            });
                            if holders.is_empty() && had > 0 && goal == WalkGoal::Leak {
                                let what = cx.key_text(name);
                                steps.push(Step::Lost { loc, how: Lost::ContainerFreed(what) });
                                return steps;
                            }
                        }
                        if !held(&holders, a) {
                            continue;
                        }
                        match effect {
                            Some(ArgEffect::Frees) => {
                                steps.push(Step::Free { loc });
                                frees_seen += 1;
                            }
                            Some(ArgEffect::FreesWhen { on_success, .. }) => {
                                let ok = cx.success_atom.get(sid).is_none_or(|a| value(*a).unwrap_or(true));
                                if ok == on_success {
                                    steps.push(Step::Free { loc });
                                    frees_seen += 1;
                                } else if on_success {
                                    steps.push(Step::CallFails { stmt: *sid, loc });
                                }
                            }
                            Some(ArgEffect::FreesIfArg { flag, when }) => {
                                let set = cx.flag_atom.get(&(*sid, flag, -1)).and_then(|a| value(*a));
                                if set == Some(when) {
                                    steps.push(Step::Free { loc });
                                    frees_seen += 1;
                                }
                            }
                            _ => {}
                        }
                    }
                    if goal == WalkGoal::SecondFree && frees_seen >= 2 {
                        return steps;
                    }
                    // Whole parameters the callee stores below other parameters (`moves_at`).
                    if let Some(m) =
                        model.filter(|m| m.writes.iter().any(|w| matches!(w.from, crate::alias::WriteFrom::Param(_))))
                    {
                        let carried: Vec<bool> = m
                            .writes
                            .iter()
                            .map(|w| matches!(w.from, crate::alias::WriteFrom::Param(i) if args.get(i).is_some_and(|a| held(&holders, a))))
                            .collect();
                        for (w, carries) in m.writes.iter().zip(carried) {
                            let Some(k) = args.get(w.param).and_then(|a| cx.callee_slot(a, &w.path)) else { continue };
                            let mut keys = vec![k];
                            if !k.is_local() {
                                keys.extend(alias.iter().filter_map(|&(a, b)| {
                                    let z = if a == k.root {
                                        b
                                    } else if b == k.root {
                                        a
                                    } else {
                                        return None;
                                    };
                                    Some(Key { root: z, path: k.path })
                                }));
                            }
                            for k in keys {
                                holders.retain(|h| *h != k);
                                if carries {
                                    holders.push(k);
                                }
                            }
                        }
                    }
                    for k in redefined {
                        if let Some(step) = drop_holder(cx, &mut holders, k, loc) {
                            if goal == WalkGoal::Leak {
                                steps.push(step);
                                return steps;
                            }
                        }
                    }
                    if cx.ends_path(*sid) {
                        return steps;
                    }
                    let alias = model.and_then(|m| m.ret_alias());
                    let (carries, arg_maybe_null) = match alias {
                        Some(i) => (
                            args.get(i).is_some_and(|a| held(&holders, a)),
                            args.get(i).and_then(|a| a.local()).is_none_or(|y| maybe_null.contains(&y)),
                        ),
                        None => (false, true),
                    };
                    let itself = model.zip(alias).is_some_and(|(m, i)| m.ret_is_arg_itself(i)) && !arg_maybe_null;
                    if let Some(d) = dst {
                        if let Some(l) = d.as_local() {
                            maybe_null.retain(|m| *m != l);
                            if carries && !itself {
                                maybe_null.push(l);
                            }
                        }
                        if let Some(step) = assign_holder(cx, &mut holders, d, carries, loc) {
                            if goal == WalkGoal::Leak {
                                steps.push(step);
                                return steps;
                            }
                        }
                    }
                }
            }
        }
        let block = func.block(cx.dag.block[node.index()]);
        match &block.term {
            Terminator::Return(_) => {
                if goal == WalkGoal::Leak {
                    steps.push(Step::Lost { loc: block.term_loc, how: Lost::Return });
                }
                return steps;
            }
            Terminator::NoReturn => return steps,
            _ => {}
        }
        let succs = &cx.dag.succs[node.index()];
        let sure_then = match &block.term {
            Terminator::Branch { cond: c, .. } if !cx.dag.is_copy(node) => match &c.kind {
                CondKind::Truthy(op) => held(&holders, op) && !op.local().is_some_and(|y| maybe_null.contains(&y)),
                _ => false,
            },
            _ => false,
        };
        let next = succs.iter().find(|(t, label)| match &block.term {
            Terminator::Branch { then_, .. } if sure_then => cx.dag.block[t.index()] == *then_,
            _ => atom_true(label),
        });
        let Some((t, label)) = next.or(succs.first()) else { return steps };
        let label_atoms: Vec<AtomId> = match label {
            EdgeLabel::True => Vec::new(),
            EdgeLabel::Lit { atom, .. } => vec![*atom],
            EdgeLabel::Any(atoms) => atoms.to_vec(),
        };
        if let Some(atom) = label_atoms.iter().copied().find(|a| support.contains(a)) {
            let loc = block.term_loc;
            match &block.term {
                Terminator::Switch { .. } if !cx.dag.is_copy(node) => steps.push(Step::Case {
                    block: cx.dag.block[node.index()],
                    target: cx.dag.block[t.index()],
                    loc,
                    atom,
                }),
                Terminator::Branch { then_, .. } if !cx.dag.is_copy(node) => steps.push(Step::Branch {
                    block: cx.dag.block[node.index()],
                    taken: cx.dag.block[t.index()] == *then_,
                    loc,
                    atom,
                }),
                _ => {}
            }
        }
        node = *t;
        first = 0;
    }
    steps
}

/// Update the holder set for `dst = value`; returns the loss step when the last holder is
/// overwritten.
fn assign_holder(cx: &CheckCx, holders: &mut Vec<Key>, dst: &Place, carries: bool, loc: Loc) -> Option<Step> {
    let k = cx.key_of(dst)?;
    if carries {
        if !holders.contains(&k) {
            holders.push(k);
        }
        return None;
    }
    drop_holder(cx, holders, k, loc)
}

/// Slot `k` no longer holds the cell (nor, for a local, do the paths below its old value).
fn drop_holder(cx: &CheckCx, holders: &mut Vec<Key>, k: Key, loc: Loc) -> Option<Step> {
    let before = holders.len();
    holders.retain(|h| *h != k && !(k.is_local() && h.root == k.root));
    if before > 0 && holders.is_empty() {
        return Some(Step::Lost { loc, how: Lost::Overwritten(cx.key_text(k)) });
    }
    None
}

#[cfg(test)]
mod tests {
    //! Hand-built IR for the paper's examples, so the check is tested without libclang.
    use super::*;
    use crate::ir::{Block, Cond, FileId, Function, LocalDecl, LocalKind};

    struct Build {
        f: Function,
    }

    impl Build {
        fn new() -> Build {
            Build {
                f: Function {
                    name: "f".into(),
                    usr: "c:@F@f".into(),
                    is_static: false,
                    loc: Loc { file: FileId(0), line: 1, col: 1 },
                    sig: String::new(),
                    n_params: 0,
                    locals: Vec::new(),
                    returns_pointer: false,
                    blocks: Vec::new(),
                    entry: BlockId(0),
                    stmts: Vec::new(),
                    stmt_locs: Vec::new(),
                    lowering_notes: Vec::new(),
                    bits: Vec::new(),
                    steps: Vec::new(),
                    case_labels: Vec::new(),
                    tested_elems: Vec::new(),
                },
            }
        }
        fn local(&mut self, name: &str) -> LocalId {
            self.f.locals.push(LocalDecl {
                name: name.into(),
                kind: LocalKind::Var,
                is_pointer: true,
                is_aggregate: false,
                is_static: false,
                pointee_pointer: None,
                loc: Loc::NONE,
            });
            LocalId::from_usize(self.f.locals.len() - 1)
        }
        fn block(&mut self) -> BlockId {
            self.f.blocks.push(Block { stmts: Vec::new(), term: Terminator::Return(None), term_loc: Loc::NONE });
            BlockId::from_usize(self.f.blocks.len() - 1)
        }
        fn stmt(&mut self, b: BlockId, line: u32, s: Stmt) -> StmtId {
            self.f.stmts.push(s);
            self.f.stmt_locs.push(Loc { file: FileId(0), line, col: 1 });
            let id = StmtId::from_usize(self.f.stmts.len() - 1);
            self.f.blocks[b.index()].stmts.push(id);
            id
        }
        fn call(&mut self, b: BlockId, line: u32, dst: Option<LocalId>, name: &str, args: &[LocalId]) -> StmtId {
            let args = args.iter().map(|a| Operand::Place(Place::Local(*a))).collect();
            let callee = Callee::Direct { name: name.into(), usr: format!("c:@F@{name}"), const_args: 0 };
            self.stmt(b, line, Stmt::Call { dst: dst.map(Place::Local), callee, args })
        }
        fn copy(&mut self, b: BlockId, line: u32, dst: LocalId, src: LocalId) {
            self.stmt(
                b,
                line,
                Stmt::Assign { dst: Place::Local(dst), src: Rvalue::Use(Operand::Place(Place::Local(src))) },
            );
        }
        fn term(&mut self, b: BlockId, line: u32, t: Terminator) {
            self.f.blocks[b.index()].term = t;
            self.f.blocks[b.index()].term_loc = Loc { file: FileId(0), line, col: 1 };
        }
        fn branch(&mut self, b: BlockId, line: u32, kind: CondKind, then_: BlockId, else_: BlockId) {
            let cond = Cond { kind, text: "c".into(), text_on_else: false };
            self.term(b, line, Terminator::Branch { cond, then_, else_ });
        }
    }

    fn truthy(l: LocalId) -> CondKind {
        CondKind::Truthy(Operand::Place(Place::Local(l)))
    }

    fn check(f: &Function) -> Vec<SiteVerdict> {
        let sums = crate::summary::Summaries::none();
        let cx = CheckCx::new(f, crate::summary::call_models(0, f, &sums, &Default::default()));
        check_function(&cx, &Config::standard(), false, &mut Timings::default())
    }

    /// FastCheck Figure 1: the second allocation fails and the first leaks.
    #[test]
    fn figure_1_conditional_leak() {
        let mut b = Build::new();
        let (p, q) = (b.local("p"), b.local("q"));
        let [b0, b1, b2, b3, b4] = [b.block(), b.block(), b.block(), b.block(), b.block()];
        b.call(b0, 2, Some(p), "malloc", &[]);
        b.branch(b0, 3, truthy(p), b2, b1);
        b.term(b1, 4, Terminator::Return(None));
        b.call(b2, 6, Some(q), "malloc", &[]);
        b.branch(b2, 7, truthy(q), b4, b3);
        b.term(b3, 8, Terminator::Return(None));
        b.call(b4, 12, None, "free", &[p]);
        b.call(b4, 13, None, "free", &[q]);
        b.term(b4, 14, Terminator::Return(None));
        let v = check(&b.f);
        assert_eq!(v[0].category, Category::FreedConditional);
        let path = v[0].leak.as_ref().expect("leak path");
        assert!(path.iter().any(|s| matches!(s, Step::Branch { taken: false, loc, .. } if loc.line == 7)), "{path:?}");
        assert!(matches!(path.last(), Some(Step::Lost { how: Lost::Return, loc }) if loc.line == 8), "{path:?}");
        assert_eq!(v[1].category, Category::FreedAlways);
        assert!(v.iter().all(|s| s.double_free.is_none()));
    }

    /// FastCheck 3.2: `q = p; if (c) free(p) else free(q)`: no leak, no double free.
    #[test]
    fn aliases_on_both_branches() {
        let mut b = Build::new();
        let (p, q, c) = (b.local("p"), b.local("q"), b.local("c"));
        let [b0, b1, b2, b3] = [b.block(), b.block(), b.block(), b.block()];
        b.call(b0, 1, Some(p), "malloc", &[]);
        b.copy(b0, 2, q, p);
        b.branch(b0, 3, truthy(c), b1, b2);
        b.call(b1, 4, None, "free", &[p]);
        b.term(b1, 4, Terminator::Goto(b3));
        b.call(b2, 5, None, "free", &[q]);
        b.term(b2, 5, Terminator::Goto(b3));
        let v = check(&b.f);
        assert_eq!(v[0].category, Category::FreedAlways);
        assert!(v[0].double_free.is_none());
    }

    #[test]
    fn free_twice_through_an_alias() {
        let mut b = Build::new();
        let (p, q) = (b.local("p"), b.local("q"));
        let b0 = b.block();
        b.call(b0, 1, Some(p), "malloc", &[]);
        b.copy(b0, 2, q, p);
        b.call(b0, 3, None, "free", &[p]);
        b.call(b0, 4, None, "free", &[q]);
        let v = check(&b.f);
        let path = v[0].double_free.as_ref().expect("double free");
        let frees = path.iter().filter(|s| matches!(s, Step::Free { .. })).count();
        assert_eq!(frees, 2);
    }

    /// `while (c) { p = malloc(); }`: overwritten on the next iteration, never freed.
    #[test]
    fn loop_overwrites_and_loses() {
        let mut b = Build::new();
        let (p, c) = (b.local("p"), b.local("c"));
        let [b0, h, body, exit] = [b.block(), b.block(), b.block(), b.block()];
        b.term(b0, 1, Terminator::Goto(h));
        b.branch(h, 2, truthy(c), body, exit);
        b.call(body, 3, Some(p), "malloc", &[]);
        b.term(body, 3, Terminator::Goto(h));
        let v = check(&b.f);
        assert_eq!(v[0].category, Category::NeverFreedLocal);
    }

    /// `q = realloc(p, n); if (!q) { free(p); return; } free(q);`: correct idiom.
    #[test]
    fn realloc_idiom_is_clean() {
        let mut b = Build::new();
        let (p, q) = (b.local("p"), b.local("q"));
        let [b0, fail, ok] = [b.block(), b.block(), b.block()];
        b.call(b0, 1, Some(p), "malloc", &[]);
        b.call(b0, 2, Some(q), "realloc", &[p]);
        b.branch(b0, 3, truthy(q), ok, fail);
        b.call(fail, 4, None, "free", &[p]);
        b.call(ok, 6, None, "free", &[q]);
        let v = check(&b.f);
        assert_eq!(v[0].category, Category::FreedAlways, "{:?}", v[0]);
        assert!(v[0].double_free.is_none());
        assert_eq!(v[1].category, Category::FreedAlways);
    }

    /// `p = realloc(p, n)` loses the old block when realloc fails.
    #[test]
    fn realloc_into_same_pointer_leaks_on_failure() {
        let mut b = Build::new();
        let p = b.local("p");
        let [b0, fail, ok] = [b.block(), b.block(), b.block()];
        b.call(b0, 1, Some(p), "malloc", &[]);
        b.call(b0, 2, Some(p), "realloc", &[p]);
        b.branch(b0, 3, truthy(p), ok, fail);
        b.call(ok, 6, None, "free", &[p]);
        let v = check(&b.f);
        assert_eq!(v[0].category, Category::FreedConditional);
        let path = v[0].leak.as_ref().expect("path");
        assert!(path.iter().any(|s| matches!(s, Step::CallFails { .. })), "{path:?}");
    }

    #[test]
    fn exit_ends_the_path() {
        let mut b = Build::new();
        let (p, c) = (b.local("p"), b.local("c"));
        let [b0, die, ok] = [b.block(), b.block(), b.block()];
        b.call(b0, 1, Some(p), "malloc", &[]);
        b.branch(b0, 2, truthy(c), die, ok);
        b.term(die, 3, Terminator::NoReturn);
        b.call(ok, 4, None, "free", &[p]);
        let v = check(&b.f);
        assert_eq!(v[0].category, Category::FreedAlways);
    }

    #[test]
    fn a_site_over_its_guard_budget_is_classified_not_dropped() {
        // p = malloc(); then 20 tests `c < i`, each returning early on one side.
        let mut b = Build::new();
        let (p, c) = (b.local("p"), b.local("c"));
        let mut head = b.block();
        b.call(head, 1, Some(p), "malloc", &[]);
        for i in 0..20 {
            let (early, next) = (b.block(), b.block());
            let cond = CondKind::Cmp(crate::ir::CmpOp::Lt, Operand::Place(Place::Local(c)), Operand::Const(i));
            b.branch(head, 2, cond, early, next);
            head = next;
        }
        let sums = crate::summary::Summaries::none();
        let cx = CheckCx::new(&b.f, crate::summary::call_models(0, &b.f, &sums, &Default::default()));
        let tight = Config { max_guard_nodes_per_site: 5, max_guard_nodes_entry: 5, ..Config::standard() };
        let v = check_function(&cx, &tight, false, &mut Timings::default());
        assert_eq!(v[0].category, Category::OverBudget);
        let v = check_function(&cx, &Config::standard(), false, &mut Timings::default());
        assert_eq!(v[0].category, Category::NeverFreedLocal);
    }

    fn field_store(b: &mut Build, blk: BlockId, line: u32, obj: LocalId, value: LocalId) {
        let dst = Place::Field(Box::new(Place::Deref(Box::new(Place::Local(obj)))), "other".into());
        b.stmt(blk, line, Stmt::Assign { dst, src: Rvalue::Use(Operand::Place(Place::Local(value))) });
    }

    /// `a->other = b; b->other = a; return;`: each cell is referenced by the other, and neither
    /// is reachable; both are leaks, each naming the other as its cycle (Scholz et al., Fig. 2).
    #[test]
    fn an_unreachable_two_cycle_leaks_at_both_cells() {
        let mut b = Build::new();
        let (a, c) = (b.local("a"), b.local("c"));
        let b0 = b.block();
        let sa = b.call(b0, 1, Some(a), "malloc", &[]);
        let sc = b.call(b0, 2, Some(c), "malloc", &[]);
        field_store(&mut b, b0, 3, a, c);
        field_store(&mut b, b0, 4, c, a);
        let v = check(&b.f);
        assert_eq!(v[0].category, Category::NeverFreedLocal, "{:?}", v[0]);
        assert_eq!(v[1].category, Category::NeverFreedLocal, "{:?}", v[1]);
        assert_eq!(v[0].cycle_with, vec![sc]);
        assert_eq!(v[1].cycle_with, vec![sa]);
    }

    /// The same pair with the first cell returned: the second lives inside it, no leak.
    #[test]
    fn a_cycle_reachable_from_the_result_is_kept() {
        let mut b = Build::new();
        let (a, c) = (b.local("a"), b.local("c"));
        let b0 = b.block();
        b.call(b0, 1, Some(a), "malloc", &[]);
        b.call(b0, 2, Some(c), "malloc", &[]);
        field_store(&mut b, b0, 3, a, c);
        field_store(&mut b, b0, 4, c, a);
        b.term(b0, 5, Terminator::Return(Some(Operand::Place(Place::Local(a)))));
        let v = check(&b.f);
        assert!(v.iter().all(|s| s.leak.is_none()), "{v:?}");
    }

    /// A chain `a -> c` with both lost: only the root `a` is reported.
    #[test]
    fn a_cell_inside_a_lost_cell_is_reported_at_the_root() {
        let mut b = Build::new();
        let (a, c) = (b.local("a"), b.local("c"));
        let b0 = b.block();
        b.call(b0, 1, Some(a), "malloc", &[]);
        b.call(b0, 2, Some(c), "malloc", &[]);
        field_store(&mut b, b0, 3, a, c);
        let v = check(&b.f);
        assert_eq!(v[0].category, Category::NeverFreedLocal);
        assert!(v[1].leak.is_none() && v[1].category == Category::NeverFreedNotLocal, "{:?}", v[1]);
    }

    #[test]
    fn correlated_tests_of_an_unchanged_flag() {
        // if (c) p = malloc(); ...; if (c) free(p);
        let mut b = Build::new();
        let (p, c) = (b.local("p"), b.local("c"));
        b.f.locals[c.index()].kind = LocalKind::Param;
        b.f.n_params = 0;
        let [b0, alloc, mid, fr, end] = [b.block(), b.block(), b.block(), b.block(), b.block()];
        b.branch(b0, 1, truthy(c), alloc, mid);
        b.call(alloc, 2, Some(p), "malloc", &[]);
        b.term(alloc, 2, Terminator::Goto(mid));
        b.branch(mid, 3, truthy(c), fr, end);
        b.call(fr, 4, None, "free", &[p]);
        b.term(fr, 4, Terminator::Goto(end));
        let v = check(&b.f);
        assert_eq!(v[0].category, Category::FreedAlways, "{:?}", v[0]);
    }
}
