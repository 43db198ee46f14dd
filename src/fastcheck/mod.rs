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
//!
//! Layout: `flow` is the value-flow pass of one cell (and the walk that prints one of its paths);
//! `site` finds the sites and judges each one on its pass's events; `summarize` builds the
//! function's summary from those verdicts, from passes over its parameters, or from the
//! flow-insensitive prechecks alone. This file holds what they share and what the rest of the
//! crate sees: `CheckCx`, `Config` and the verdict types.

mod flow;
mod site;
mod summarize;
#[cfg(test)]
mod tests;

use crate::cfg::{DagNode, FnCx, Key};
use crate::diag::Category;
use crate::facts::Facts;
use crate::guard::AtomId;
use crate::ir::{BlockId, Loc, LocalId, StmtId};
use crate::summary::{Held, ParamFate, PathFate};
use site::sites;
use summarize::{heap_paths, may_free_a_param_twice};

pub use site::check_function;
pub use summarize::{
    flow_insensitive_params, flow_insensitive_params_reading, statements_reading, summarize, summarize_without_flow,
};

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
    /// Wall-clock time the fixpoint of one recursive SCC may take; past it, as past its rounds:
    /// every member is checked once more against unknown callees. `None`: no limit.
    pub max_scc_time: Option<std::time::Duration>,
    /// When the whole run must end (`run-time-ms` from the run's start): no function's check
    /// starts after it, and those running stop at it. `None`: no limit. Not in the cache's
    /// keys (`reuse::env_digest`): a result finished before it does not depend on it.
    pub run_deadline: Option<std::time::Instant>,
    /// `--exceptions`: the C++ calls that may throw got exceptional edges out of the function
    /// (`exceptions::add_edges`, before the check). In the cache's keys: the same IR checks
    /// differently with them.
    pub exceptions: bool,
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
            max_scc_time: Some(std::time::Duration::from_secs(60)),
            run_deadline: None,
            exceptions: false,
        }
    }
}

/// Where a cell went that this function no longer answers for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EscapeKind {
    /// Stored into a global: the one named by its store path (`g`, `g.f` for a field of a
    /// global struct, `g[]` for an element of a global array: `global_leaks::global_store_path`).
    Global(std::sync::Arc<str>),
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
    Branch { block: BlockId, taken: bool, loc: Loc, atom: AtomId },
    /// The switch ending `block` goes to `target`.
    Case { block: BlockId, target: BlockId, loc: Loc, atom: AtomId },
    /// An allocating call (`realloc`) fails and returns NULL, leaving its argument alive.
    CallFails { stmt: StmtId, loc: Loc },
    /// Freed at `loc`; `again`: by the iteration the loop runs instead of leaving (the path's
    /// last step, `EventKind::FreedAgain`).
    Free { loc: Loc, again: bool },
    /// The last reference is lost.
    Lost { loc: Loc, how: Lost },
}

#[derive(Clone, Debug)]
pub enum Lost {
    /// The slot holding the last reference (`p`, `s->buf`) is assigned something else.
    Overwritten(String),
    /// The global holding the last reference is overwritten by a callee
    /// (`Summary::global_overwrites`).
    OverwrittenInCallee { global: String, callee: String },
    /// The object whose field held the last reference is freed (`free(s)` before `s->buf`).
    ContainerFreed(String),
    /// A summarised callee loses the slot holding the last reference: it frees the object
    /// holding it, or overwrites it (`PathFate::Lost`).
    InCallee(String),
    /// The loop runs again and a later iteration assigns the slot holding the last reference
    /// (the path leaves from the header's copy, past the statements of that iteration).
    NextIteration(String),
    /// The function returns while only locals hold the cell.
    Return,
    /// An exception leaves the function (`Function::throws`) while only locals hold the cell.
    Throw,
    /// The allocating call's result is not stored anywhere.
    Discarded,
    /// The struct a call returns by value is not stored anywhere, with the cell in the field at
    /// this path (`.data`).
    DiscardedIn(std::sync::Arc<str>),
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
    /// Left below a parameter at some return (`stored_out`): the places below parameters that
    /// hold one value wherever it is (`Summary::out_values`).
    pub out_values: Vec<(usize, std::sync::Arc<str>, Held)>,
    /// Left below a parameter at some return, whether or not it is `handed` (it may also escape
    /// or be stored in two places): what the summary says of the places its caller finds a cell
    /// in must hold for this one too (`Summary::out_values`).
    pub stored_out: bool,
    /// Every path on which the cell goes into a named global also frees it here: the global
    /// only borrowed it (openssh's progress meter keeps the file name it is shown), so it is
    /// no `leak-global` candidate.
    pub global_borrowed: bool,
    /// The allocator family of the cell, when its allocator's is known (`libmodel::Family`).
    pub family: Option<crate::libmodel::Family>,
    /// Deallocations of another family than the cell's, each once, in event order.
    pub mismatches: Vec<Mismatch>,
}

/// A cell released by a deallocator of another family than its allocator's (`new[]` then
/// `delete`, `malloc` then `delete`, `new` then `free` or `realloc`).
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The deallocating call.
    pub at: StmtId,
    /// Its family.
    pub family: crate::libmodel::Family,
    /// A path from the allocation to that call: it ends with its `Step::Free`.
    pub steps: Vec<Step>,
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
    /// The cell a summarised callee leaves in this global (`Summary::global_fresh`: `set_name
    /// (s)` storing `xstrdup (s)` into `name`).
    Global(std::sync::Arc<str>),
}

/// Time spent per phase while checking (summed over sites).
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    pub value_flow: std::time::Duration,
    pub sat: std::time::Duration,
}

/// A parameter's block freed twice on one path of the function (`summarize`): the caller's
/// memory, so no allocation site of this function reports it.
#[derive(Clone, Debug)]
pub struct ParamDoubleFree {
    pub param: LocalId,
    /// The path from the entry: it contains two `Step::Free`.
    pub steps: Vec<Step>,
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
