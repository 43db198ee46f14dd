//! The forward guarded value-flow pass of one cell, and the walk that turns one of its paths into
//! the steps of a message.
//!
//! Input: a `CheckCx`, the caller's guard arena, a start point (DAG node, statement index) and
//! the slot holding the cell there. Output: `flow` gives the cell's `Event`s (freed, returned,
//! stored below a parameter, kept, escaped, left `Inside` an object, path ended: `Exit`), each
//! with the guard under which it happens, plus, when asked, the `return` points reached and what
//! is held there (`HeldAtReturns`); `walk` gives the `Step`s of the path a SAT model picks.
//! Invariants:
//! - Builds guards only: no SAT query is asked here, so the callers (`site`, `summarize`) decide
//!   what is feasible, with the budget check (`Guards::over_budget`) after the pass.
//! - Visits the DAG in topological order with one state per node, merged from its predecessors
//!   (`merge_into`) before the node is visited: a guard says on which paths a slot holds the
//!   cell, never which path was taken first.
//! - Paths that cannot happen while the cell exists are cut and become `Exit` events, so cuts
//!   only ever remove reports.

use super::{CheckCx, EscapeKind, Holder, Lost, Step};
use crate::cfg::{DagNode, Def, EdgeLabel, Key, LaterIteration};
use crate::guard::{AtomId, GuardId, Guards};
use crate::ir::{Callee, CmpOp, Cond, CondKind, Loc, LocalId, Operand, Place, Rvalue, Stmt, StmtId, Terminator};
use crate::libmodel::ArgEffect;
use crate::sat::Model;
use crate::summary::{Held, PathFate};

#[derive(Clone, Debug)]
pub(super) enum EventKind {
    /// Freed; by the call at `.0` as a deallocator of family `.1` when that is known (the
    /// argument's own block passed to a library deallocator or a summarised one), for the
    /// `mismatched-deallocation` rule.
    Free(Option<(StmtId, crate::libmodel::Family)>),
    /// Freed by the iteration the loop runs instead of leaving from a header copy
    /// (`Later::frees_again`): a double free with a free before it on the path, but not with
    /// one after it, since the path goes on from the copy as if that iteration had not run.
    FreedAgain,
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

/// What a pass does with a cell stored into a named global (`flow`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Globals {
    /// The store is an escape at once (a summary's passes over parameters).
    Escape,
    /// The global holds the cell until it is read (`State::globals`); overwriting it loses it.
    Hold,
    /// As `Hold`, and the cell starts in this global, not in the pass's start key (`g =
    /// strdup(s)`: the site's result is stored straight into it).
    HoldFrom(std::sync::Arc<str>),
}

#[derive(Clone, Debug)]
pub(super) struct Event {
    pub(super) kind: EventKind,
    pub(super) guard: GuardId,
    /// A free of a value loaded from an array element (all elements are one place): it may be
    /// another element's cell, so it takes no part in double-free pairs.
    pub(super) weak: bool,
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
    /// Pointer locals holding the same value as a slot, from a copy either way (`o.b = b`,
    /// `b = o->b`) with neither changed since, sorted by local (one slot each): a callee that
    /// reaches the slot reaches the object the local points to, so what it frees or loses below
    /// `o->b` is gone below `b` too (`copy_made`, `reachable_slots`).
    copies: Vec<(LocalId, Key)>,
    /// What is known of the values `cx.facts` follows, each with the guard under which it holds
    /// (`facts::Fact`). A branch whose outcome contradicts a fact cuts those paths.
    facts: Vec<(u32, crate::facts::Fact, GuardId)>,
    /// The values the locals that tests of two pointers read may hold (`equal`): a test whose
    /// two locals hold one value is not taken to its "different" side.
    values: crate::equal::Values,
    /// The statement being transferred (DAG node index, statement index), for `Holder::Local`.
    at: (u32, u32),
    /// Named globals (`g`, `cfg.name`) this path stored the cell into and has not read since,
    /// with their guards, sorted by name (`flow`'s `hold_globals`). Storing anything else there
    /// loses the cell (`g = new` while `g` holds the only reference); a read of the global's
    /// value, a call that may read it, or a `return` hands it on: an `Escape(Global)` there.
    globals: Vec<(std::sync::Arc<str>, GuardId)>,
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
        // Every new value of a local passes here: neither the local nor slots below it keep
        // the value a copy saw.
        self.copies.retain(|c| c.0 != l && c.1.root != l);
        self.derived.retain(|d| d.0 != l && d.1.root != l);
        if let Some((k, addr)) = from.filter(|(k, _)| k.root != l) {
            let i = self.derived.binary_search_by_key(&l, |d| d.0).unwrap_or_else(|i| i);
            self.derived.insert(i, (l, k, addr));
        }
    }
    /// A store into slot `k`: the copies of its old value, or of anything below it, no longer
    /// hold its value.
    fn forget_slot(&mut self, cx: &CheckCx, k: Key) {
        if !self.copies.is_empty() {
            let roots = if cx.path_text(k.path).starts_with('*') { self.names_of(k.root) } else { vec![k.root] };
            forget_copies_of(cx, &mut self.copies, &roots, k);
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

pub(super) fn label_guard(guards: &mut Guards, label: &EdgeLabel, folded: Option<(AtomId, bool)>) -> GuardId {
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

/// For the places below parameters that a summary may say hold one value wherever the cell is
/// handed back (`FnCx::facts`'s `ret_keys`): per place and value, the guard of handing it back
/// at a `return` where that value is not known, as the result (`Summary::ret_values`) and below
/// a parameter (`Summary::out_values`). A place whose guard is unsatisfiable with the site's
/// holds that value wherever the cell is handed back.
#[derive(Default)]
pub(super) struct HeldAtReturns {
    pub(super) returned: Vec<(u32, Held, GuardId)>,
    pub(super) stored: Vec<(u32, Held, GuardId)>,
    /// The (place, value) pairs of `stored` known at some return that stores the cell: the
    /// others are not known anywhere, so asking the solver whether they hold everywhere is
    /// wasted on a cell that is not handed back (`SiteVerdict::stored_out`).
    pub(super) stored_known: Vec<(u32, Held)>,
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
                if known != GuardId::FALSE && stored != GuardId::FALSE && !self.stored_known.contains(&(k, held)) {
                    self.stored_known.push((k, held));
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
/// guard and the returned constant, if it is one. With `globals` other than `Escape`, a cell
/// stored into a named global stays followed there until the global is read (`State::globals`),
/// so that overwriting it is a loss; otherwise the store is an escape at once.
#[allow(clippy::too_many_arguments)]
pub(super) fn flow(
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
    globals: Globals,
) -> Vec<Event> {
    let hold_globals = globals != Globals::Escape;
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
                copies: Vec::new(),
                facts: facts.map_or(&[][..], |f| f.1).to_vec(),
                values: crate::equal::Values::start(cx, node0, first_idx),
                at: (node0.0, first_idx as u32),
                globals: Vec::new(),
            };
            match &globals {
                Globals::HoldFrom(name) => st.globals.push((name.clone(), GuardId::TRUE)),
                _ => st.set_key(x, GuardId::TRUE),
            }
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
            if !st.globals.is_empty() {
                release_globals(cx, &mut st, *sid, &mut events);
            }
            transfer(cx, guards, &mut st, *sid, &mut events, hold_globals);
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
        // An exception leaving the function (`Function::throws`) is a return without a result
        // for this frame's locals, and the end of the path for everything else.
        let thrown = matches!(block.term, Terminator::NoReturn) && cx.func.throws_at(cx.dag.block[nd.index()]);
        let no_result: Option<crate::ir::Operand> = None;
        let leaving = match &block.term {
            Terminator::Return(op) => Some(op),
            _ if thrown => Some(&no_result),
            _ => None,
        };
        let events_before = events.len();
        match (&block.term, leaving) {
            (_, Some(op)) => {
                // Still in a global on the way out: kept there, for the rest of the program.
                for (name, g) in std::mem::take(&mut st.globals) {
                    events.push(Event { kind: EventKind::Escape(EscapeKind::Global(name)), guard: g, weak: false });
                }
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
                if let Some(unknown_held) = unknown_held.as_deref_mut().filter(|_| !thrown) {
                    unknown_held.add(cx, guards, &st.facts, returned_here, stored_here);
                }
            }
            (Terminator::NoReturn, _) => events.push(Event { kind: EventKind::Exit, guard: st.p, weak: false }),
            // A path cut by the loop bound (the second visit of a loop with no exit) is not
            // followed further; counting it as a loss would blame the bound, not the code.
            (Terminator::Goto(_) | Terminator::Branch { .. } | Terminator::Switch { .. }, _)
                if cx.dag.succs[nd.index()].is_empty() =>
            {
                events.push(Event { kind: EventKind::Exit, guard: st.p, weak: false })
            }
            _ => {}
        }
        if thrown {
            // Wherever the exception finds the cell besides this frame's locals (a parameter's
            // object, the caller's `*out`, a global, a summary's slot, inside another block),
            // the caller's path ends with this one: it is neither handed back nor an escape (an
            // escape would keep a wrapper's result from being fresh). Only what the locals alone
            // hold, which made no event, is lost.
            for e in &mut events[events_before..] {
                e.kind = EventKind::Exit;
            }
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
        let later = cx
            .dag
            .later
            .get(&nd.0)
            .filter(|_| !st.h.is_empty() || !st.globals.is_empty())
            .map(|it| Later::new(cx, guards, &st, *nd, it, fold, node0));
        // A header copy that leaves through the header's own exits: the loop may instead run
        // again, and overwrite a local that still holds the cell, or free it again.
        let mut overwritten: Vec<(LocalId, GuardId)> = Vec::new();
        let mut overwritten_globals: Vec<(std::sync::Arc<str>, GuardId)> = Vec::new();
        // A loop without exits of its own (`for (;;)`) may run again too, before the later
        // iteration that leaves (one that overwrites `last` on a match, then one that breaks).
        if let Some(later) = &later {
            if st.h.iter().any(|(k, _)| k.is_local() && later.it.defined.binary_search(&k.root).is_ok()) {
                overwritten = later.overwrites(cx, guards, &st);
            }
            overwritten_globals = later.overwrites_globals(cx, guards, &st);
        }
        if let Some(it) = cx.dag.again.get(&nd.0) {
            let holds = |set: &[LocalId]| st.h.iter().any(|(k, _)| k.is_local() && set.binary_search(&k.root).is_ok());
            let (defines, frees) = (holds(&it.defined), holds(&it.freed));
            if defines || frees || !st.globals.is_empty() {
                let again = Later::new(cx, guards, &st, *nd, it, fold, node0);
                if defines {
                    overwritten = again.overwrites(cx, guards, &st);
                }
                overwritten_globals = again.overwrites_globals(cx, guards, &st);
                if frees {
                    for (_, g) in again.frees_again(cx, guards, &st) {
                        events.push(Event { kind: EventKind::FreedAgain, guard: g, weak: false });
                    }
                }
            }
        }
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
            out.globals.retain_mut(|(_, g)| {
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
            // Leaving a copy through the body's exits: the later iteration it stands for may
            // have written any tested global on the way (as `Dag::exit_kills` for locals).
            if cx.dag.later.contains_key(&nd.0) {
                let global = |k: u32| cx.facts.keys.get(k as usize).is_some_and(|key| cx.is_global_slot(key.0));
                out.facts.retain(|(k, f, _)| !global(*k) && !matches!(f, crate::facts::Fact::Same(q) if global(*q)));
            }
            out.values.along(cx, guards, here, l, *nd, *t);
            // Killed locals the later iteration made copies of a local holding the cell, on
            // every path to this exit: they hold it after the kills.
            let mut carried: Vec<(LocalId, LocalId)> = Vec::new();
            let mut restored = Vec::new();
            if let Some(later) = &later {
                later.leave(cx, guards, &mut out, *t, &mut events);
                restored = later.restored(cx, &out, *t);
                let kills = cx.dag.kills(*nd, *t);
                if !kills.is_empty() {
                    carried = later.carried(cx, &out, *t, kills);
                }
            }
            for &(x, y) in &carried {
                redefine_unknown(cx, guards, &mut out, y, &mut events);
                let from = Operand::Place(Place::Local(x));
                let g = value_guard(cx, &out, &from);
                let maybe_null = out.is_maybe_null(&from);
                let weak = out.is_weak(&from);
                let contents = out.contents(x);
                store(cx, guards, &mut out, &Place::Local(y), g, maybe_null, contents, Some(x), &mut events);
                out.set_weak(y, weak && g != GuardId::FALSE);
            }
            // Leaving a loop from its header copy: the later iteration redefined these locals,
            // so what this iteration left in them is gone (a cell they alone held is lost),
            // unless it put back the value they had (`Later::restored`).
            for &l in cx.dag.kills(*nd, *t) {
                if !carried.iter().any(|c| c.1 == l) {
                    redefine_unknown(cx, guards, &mut out, l, &mut events);
                }
            }
            for (l, g) in restored {
                out.set(l, g);
            }
            // Only the local itself: an object it pointed to still holds what was stored in it.
            for &(x, lost) in &overwritten {
                let kept = guards.not(lost);
                let g = out.get(x);
                let g = guards.and(g, kept);
                out.set(x, g);
            }
            for (name, lost) in &overwritten_globals {
                let kept = guards.not(*lost);
                out.globals.retain_mut(|(n, g)| {
                    if n == name {
                        *g = guards.and(*g, kept);
                    }
                    *g != GuardId::FALSE
                });
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

pub(super) fn m_values(m: &Model) -> impl Fn(AtomId) -> Option<bool> + '_ {
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
            for (name, g) in incoming.globals {
                match cur.globals.binary_search_by(|e| e.0.cmp(&name)) {
                    Ok(i) => {
                        let old = cur.globals[i].1;
                        cur.globals[i].1 = if old == old_p && g == incoming.p { new_p } else { guards.or(old, g) };
                    }
                    Err(i) => cur.globals.insert(i, (name, g)),
                }
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
            cur.copies.retain(|c| incoming.copies.binary_search(c).is_ok());
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
/// anything that does not hold it (a constant, a load, an array's address). Also a slot that
/// holds the cell against another place (vim's `buf->b_sfname != buf->b_ffname` with the fresh
/// copy in the first): not against a constant, since what a slot holds may be a pointer into the
/// cell that is NULL (`o->end = strchr (o->buf, c)`), which the pass does not record for slots.
fn separated(cx: &CheckCx, guards: &mut Guards, st: &State, a: &Operand, b: &Operand) -> GuardId {
    let sure = |o: &Operand, other: &Operand| match o {
        Operand::Place(Place::Local(l)) => cx.func.local(*l).is_pointer && !st.is_maybe_null(o) && !st.is_weak(o),
        Operand::Place(p) => {
            matches!(other, Operand::Place(_)) && cx.key_of(p).is_some_and(|k| !k.is_local() && !cx.is_weak(k))
        }
        _ => false,
    };
    let (ga, gb) = (value_guard(cx, st, a), value_guard(cx, st, b));
    let mut sep = GuardId::FALSE;
    for (g, other, holder) in [(ga, gb, a), (gb, ga, b)] {
        let object = if std::ptr::eq(holder, a) { b } else { a };
        if g != GuardId::FALSE && (sure(holder, object) || (names_object(cx, st, object) && !st.is_weak(holder))) {
            let n = guards.not(other);
            let only = guards.and(g, n);
            sep = guards.or(sep, only);
        }
    }
    sep
}

/// The address of a named object (`&glob_error_return`, `&local.f`): no block, and not NULL, so
/// any holder of the cell differs from it (bash's `GLOB_FAILED (sl->list)`). So is the address of
/// a member of the object a parameter the function never changes points to (gnulib's `a->arg !=
/// a->direct_alloc_arg`, an inline buffer in the caller's struct), when the parameter does not
/// hold the cell: that object existed before any block this call allocates.
fn names_object(cx: &CheckCx, st: &State, o: &Operand) -> bool {
    o.local().and_then(|t| cx.addr_temps.get(&t)).is_some_and(|p| {
        let mut q = p;
        loop {
            match q {
                Place::Global(_) | Place::Local(_) => break true,
                Place::Field(inner, _) | Place::Index(inner) => q = inner,
                Place::Deref(base) => {
                    break matches!(&**base, Place::Local(l)
                        if l.index() < cx.func.n_params as usize
                            && value_guard(cx, st, &Operand::Place(Place::Local(*l))) == GuardId::FALSE
                            && param_unchanged(cx.func, *l))
                }
            }
        }
    })
}

/// Whether the function never assigns the parameter `l` nor takes its address.
fn param_unchanged(func: &crate::ir::Function, l: LocalId) -> bool {
    let is_l = |p: &Place| p.as_local() == Some(l);
    func.stmts.iter().all(|s| match s {
        Stmt::Assign { dst, src } => !is_l(dst) && !matches!(src, Rvalue::AddrOf(p) if p.storage_local() == Some(l)),
        Stmt::Call { dst, .. } => !dst.as_ref().is_some_and(is_l),
    })
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
        Operand::Place(place) => match cx.key_of(place) {
            Some(k) => st.get_key(k),
            // A global holding the cell (`State::globals`): what its tests see. A statement that
            // reads it has released it before (`release_globals`), so only tests get here.
            None if !st.globals.is_empty() => crate::global_leaks::global_path(place)
                .and_then(|name| st.globals.iter().find(|e| *e.0 == *name))
                .map_or(GuardId::FALSE, |e| e.1),
            None => GuardId::FALSE,
        },
        _ => GuardId::FALSE,
    }
}

pub(super) fn escape_kind(cx: &CheckCx, place: &Place) -> EscapeKind {
    // A global, a field of a global struct, an element of a global array (`names[]`: any
    // element), however nested: named, so that `global_leaks` can ask who hands it on.
    if let Some(path) = crate::global_leaks::global_store_path(place) {
        return EscapeKind::Global(path.into());
    }
    match place {
        Place::Global(g) => EscapeKind::Global(g.as_str().into()),
        Place::Local(_) => EscapeKind::LocalStorage,
        Place::Index(_) => EscapeKind::Array,
        Place::Field(inner, _) => match inner.root_local() {
            Some(l) if matches!(**inner, Place::Local(_)) && cx.func.local(l).is_aggregate => EscapeKind::LocalStorage,
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
        Callee::Indirect { sig, .. } => crate::ir::indirect_name(sig).to_string(),
    }
}

fn transfer(
    cx: &CheckCx,
    guards: &mut Guards,
    st: &mut State,
    sid: StmtId,
    events: &mut Vec<Event>,
    hold_globals: bool,
) {
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
            // A pointer in memory given a pointer loaded from memory (`*hbot = (*hbot)->next`,
            // also through a local loaded so): paths through it name that other object from here
            // on. Not a call's result, which may be the old object moved (`l = realloc (v->items,
            // n); v->items = l;` keeps what the items hold).
            let loaded = match src {
                Rvalue::Use(Operand::Place(Place::Local(y))) => st.derived_from(*y).is_some_and(|(_, addr)| !addr),
                Rvalue::Use(Operand::Place(_)) => true,
                _ => false,
            };
            if let Some(k) = cx.key_of(dst).filter(|k| loaded && !k.is_local() && !cx.is_weak(*k)) {
                retire_below_slot(cx, st, k, events);
            }
            if hold_globals && hold_in_global(st, dst, g) {
                for (c, _) in contents {
                    escape_key(st, c, EscapeKind::Heap, events);
                }
            } else {
                store(cx, guards, st, dst, g, maybe_null, contents, copied_from, events);
            }
            // Copying an object whole out of a place below a pointer (`f->ch[n] = *m`,
            // `c = *m`) copies the slots of its fields (after `store`, which clears a local
            // struct's old fields).
            if let Rvalue::Use(Operand::Place(p)) = src {
                copy_fields(cx, st, dst, p, events);
            }
            if let Some(k) = cx.key_of(dst).filter(|k| !k.is_local()) {
                st.forget_slot(cx, k);
            }
            if let Some(l) = dst.as_local() {
                st.set_derived(l, loaded_from);
            }
            if let Some(c) = copy_made(cx, dst, src) {
                set_copy(&mut st.copies, c);
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
            // Cells the callee takes out of their slots and returns (`PathFate::Returned`).
            let mut detached = GuardId::FALSE;
            // A C++ standard library function with no row, given no program code to run, reaches
            // only the member whose address it gets (`this->marks_.push_back (v)`), never the
            // object around it (C's `container_of`, which an unknown C callee may do).
            let std_member_only = !model.is_some_and(|m| m.known)
                && matches!(callee, Callee::Direct { name, .. } if crate::global_writes::is_std_library(name))
                && !crate::summary::hands_code(cx.func, args);
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
                let member =
                    model.filter(|m| !m.lib).and_then(|_| cx.arg_slots(a)).filter(|(_, p)| is_member_prefix(p));
                let lib = model.is_some_and(|m| m.lib);
                // The address of one element of many (`init (&s->modes[1])` after `[0]`; indices
                // are one place): what the callee loses below it is one element's, and the
                // others keep what they held.
                let one_element = !lib && cx.arg_slots(a).is_some_and(|(_, p)| p.contains('['));
                for (k, callee_path) in reachable_slots(cx, st, a, lib, std_member_only) {
                    let g = st.get_key(k);
                    let container = member.as_ref().filter(|(root, _)| k.root == *root).map(|_| container_path(cx, k));
                    match model.map_or(PathFate::Escapes, |m| callee_fate(m, i, &callee_path, container.as_deref())) {
                        PathFate::Reads => {}
                        fate @ (PathFate::Frees | PathFate::FreesCleared) => {
                            // Two names of one object hold the same cell: one free, not two.
                            if !freed_here.contains(&g) {
                                freed_here.push(g);
                                let by = model.and_then(|m| m.heap_family(i, &callee_path)).map(|f| (sid, f));
                                events.push(Event { kind: EventKind::Free(by), guard: g, weak: cx.is_weak(k) });
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
                        PathFate::Lost if one_element => {}
                        PathFate::Lost => st.set_key(k, GuardId::FALSE),
                        PathFate::Returned if !cx.is_weak(k) => {
                            detached = guards.or(detached, g);
                            st.set_key(k, GuardId::FALSE);
                        }
                        // `*out` of an out-parameter allocator: overwritten when the call
                        // succeeds, left alone when it fails.
                        PathFate::KeptOrLost if is_out && k.is_local() && cx.success_atom.contains_key(&sid) => {
                            let failed = guards.lit(cx.success_atom[&sid], false);
                            let kept = guards.and(g, failed);
                            st.set_key(k, kept);
                            kept_on_failure.push((k, kept));
                        }
                        PathFate::KeptOrLost | PathFate::Returned | PathFate::Escapes => {
                            escape_key(st, k, retained(model, callee), events)
                        }
                    }
                }
                // A local struct passed by value: the callee gets copies of its fields'
                // pointers, which it may keep or free (`Summary::params` says whether).
                if let Operand::Place(Place::Local(s)) = a {
                    if effect.is_some() && cx.field_aggregates.get(s.index()).copied().unwrap_or(false) {
                        for (k, _) in st.contents(*s) {
                            escape_key(st, k, retained(model, callee), events);
                        }
                    }
                }
                // The same for a struct read from a slot (`jv_free (p->path)`): its fields are the
                // slots one field step below it (`p->path.u.ptr`); a pointer there would be one
                // dereference below (`p->path->x`).
                if let Some(k) = match a {
                    Operand::Place(pl) if effect.is_some() && !matches!(pl, Place::Local(_)) => cx.key_of(pl),
                    _ => None,
                } {
                    let text = cx.path_text(k.path);
                    let fields: Vec<Key> = st
                        .h
                        .iter()
                        .filter(|e| {
                            e.0.root == k.root
                                && cx.path_text(e.0.path).strip_prefix(text).is_some_and(|rest| rest.starts_with('.'))
                        })
                        .map(|e| e.0)
                        .collect();
                    for f in fields {
                        escape_key(st, f, retained(model, callee), events);
                    }
                }
                let g = value_guard(cx, st, a);
                if g == GuardId::FALSE {
                    continue;
                }
                let weak =
                    st.is_weak(a) || matches!(a, Operand::Place(p) if cx.key_of(p).is_some_and(|k| cx.is_weak(k)));
                let dealloc = model.and_then(|m| m.free_family).map(|f| (sid, f));
                match effect {
                    Some(ArgEffect::Frees) => events.push(Event { kind: EventKind::Free(dealloc), guard: g, weak }),
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
                                events.push(Event { kind: EventKind::Free(dealloc), guard: gg, weak });
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
                            events.push(Event { kind: EventKind::Free(dealloc), guard: gg, weak: false });
                        }
                        None => events.push(Event {
                            kind: EventKind::Escape(retained(model, callee)),
                            guard: g,
                            weak: false,
                        }),
                    },
                    Some(ArgEffect::Keeps) if moved(i) => {}
                    Some(ArgEffect::Keeps) => {
                        // Kept in a global (`Summary::param_globals`): named, as a store there.
                        let kind = match model.and_then(|m| m.param_global(i)) {
                            Some(global) => EscapeKind::Global(global.clone()),
                            None => retained(model, callee),
                        };
                        events.push(Event { kind: EventKind::Escape(kind), guard: g, weak: false })
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
            // A slot of one element of many (`init (&s->modes[1])` after `[0]`) is a weak
            // update, as a store there is: the cell an element held stays.
            if let Some(ok) = out_keys.filter(|ok| !ok.paths.is_empty()) {
                st.h.retain(|e| e.0.is_local() || cx.is_weak(e.0) || ok.paths.binary_search(&e.0).is_err());
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
            // The callee may have written any slot its arguments reach.
            if !st.copies.is_empty() {
                for a in args {
                    if let Some((root, _)) = cx.arg_slots(a) {
                        let roots = st.names_of(root);
                        st.copies.retain(|c| !roots.contains(&c.1.root));
                    }
                }
            }
            let maybe_null = ret != GuardId::FALSE && !itself;
            let ret = guards.or(ret, detached);
            if let Some(d) = dst {
                if !(hold_globals && hold_in_global(st, d, ret)) {
                    store(cx, guards, st, d, ret, maybe_null, Vec::new(), None, events);
                }
                if let Some(k) = cx.key_of(d).filter(|k| !k.is_local()) {
                    st.forget_slot(cx, k);
                }
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
///
/// Also, for an allocator that returns NULL whenever an argument is some constant
/// (`Model::null_when`), that the argument is not that constant where the call succeeded.
fn call_status_facts(cx: &CheckCx, guards: &mut Guards, st: &mut State, sid: StmtId) {
    use crate::facts::Fact;
    use crate::libmodel::Success;
    let Stmt::Call { dst, args, .. } = cx.func.stmt(sid) else { return };
    let Some(a) = cx.success_atom.get(&sid) else { return };
    if let Some(m) = cx.model(sid).filter(|m| !m.null_when.is_empty()) {
        let on_ok = guards.lit(*a, true);
        let on_ok = guards.and(st.p, on_ok);
        for (k, c) in null_when_facts(cx, m, args) {
            st.facts.push((k, Fact::Ne(c), on_ok));
        }
    }
    let Some(k) = dst.as_ref().and_then(|d| cx.facts.key(d.as_local()?, "")) else { return };
    let Some(success) = cx.model(sid).and_then(crate::cfg::call_success) else { return };
    let (ok, failed) = match success {
        Success::NonNull => (Fact::Ne(0), Fact::In(0, 0)),
        Success::RetZero => (Fact::In(0, 0), Fact::Ne(0)),
        Success::RetNonNegative => (Fact::In(0, i64::MAX), Fact::In(i64::MIN, -1)),
        Success::Range { ok, fail } => (Fact::In(ok.0, ok.1), Fact::In(fail.0, fail.1)),
        Success::Always => return,
    };
    // An allocator that never returns NULL (`xrealloc` dies instead) has no failure side: its
    // atom is free in the solver, so the fact must not depend on it.
    if cx.model(sid).is_some_and(|m| m.never_null) {
        st.facts.push((k, ok, st.p));
        return;
    }
    let (yes, no) = (guards.lit(*a, true), guards.lit(*a, false));
    let (on_ok, on_failed) = (guards.and(st.p, yes), guards.and(st.p, no));
    st.facts.push((k, ok, on_ok));
    st.facts.push((k, failed, on_failed));
}

/// The followed keys of the arguments an allocator returns NULL for when they hold a constant
/// (`Model::null_when`), with that constant: where the allocation succeeded, the argument is
/// not it. Only a local argument whose address is never taken: passed by value, it keeps the
/// value it had at the call.
pub(crate) fn null_when_facts(cx: &CheckCx, m: &crate::summary::Model, args: &[Operand]) -> Vec<(u32, i64)> {
    let addressed = |x: LocalId| {
        cx.func
            .stmts
            .iter()
            .any(|s| matches!(s, Stmt::Assign { src: Rvalue::AddrOf(p), .. } if p.storage_local() == Some(x)))
    };
    m.null_when
        .iter()
        .filter_map(|&(i, c)| match args.get(i) {
            Some(Operand::Place(Place::Local(x))) if !addressed(*x) => Some((cx.facts.key(*x, "")?, c)),
            _ => None,
        })
        .collect()
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
fn reachable_slots(cx: &CheckCx, st: &State, arg: &Operand, lib: bool, member_only: bool) -> Vec<(Key, String)> {
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
            // What a summary's subject calls "the fields nobody names" is that for the callee too,
            // unless the callee reaches only the member it is given.
            if !(member_only && is_member_prefix(&prefix)) {
                out.push((*k, text.to_string()));
            }
            continue;
        }
        let Some(rest) = text.strip_prefix(&*prefix) else { continue };
        // `*.f` is a prefix of `*.foo` as text, not as a path.
        if !(prefix.is_empty() || rest.is_empty() || rest.starts_with(['.', '*', '['])) {
            continue;
        }
        out.push((*k, format!("*{rest}")));
    }
    // The objects of locals that hold the value of a slot the callee reaches.
    out.extend(copied_reach(cx, &st.copies, st.h.iter().map(|e| e.0), &roots, &prefix));
    out
}

/// Arguments that are the address of a member (`&patch->base`, `&s.f`), whose callee may take
/// its parameter back to the containing object (`(git_patch_parsed *) p`, `container_of`).
fn is_member_prefix(prefix: &str) -> bool {
    prefix.trim_start_matches('*').starts_with('.')
}

/// The path of slot `k` as a callee sees it when its parameter points to the object `k`'s root
/// points to (or is, for a local struct): `*.base.delta` for `patch*.base.delta`.
fn container_path(cx: &CheckCx, k: Key) -> String {
    let text = cx.path_text(k.path);
    if text.starts_with('*') {
        text.to_string()
    } else {
        format!("*{text}")
    }
}

/// What a summarised callee does to a cell at `path` below argument `i` (`Model::path_fate`); for
/// an argument that is the address of a member, at `container` instead when the callee's
/// summary speaks of that path and not of `path`: the callee cast its parameter back to the
/// containing struct (libgit2's `patch_parsed__free (&patch->base)` frees
/// `patch->base.delta`, which it names `*.base.delta`).
fn callee_fate(m: &crate::summary::Model, i: usize, path: &str, container: Option<&str>) -> PathFate {
    match container {
        Some(c) if !m.names_path(i, path) && m.names_path(i, c) => m.path_fate(i, c),
        _ => m.path_fate(i, path),
    }
}

/// A pointer local and a slot that hold one value after `dst = src`, by a copy either way (`o.b =
/// b`, `b = o->b`; not an array element: all elements are one slot), for `State::copies`.
fn copy_made(cx: &CheckCx, dst: &Place, src: &Rvalue) -> Option<(LocalId, Key)> {
    let (l, k) = match (dst, src) {
        (Place::Local(l), Rvalue::Use(Operand::Place(p))) if !matches!(p, Place::Local(_)) => (*l, cx.key_of(p)?),
        (_, Rvalue::Use(Operand::Place(Place::Local(y)))) if dst.as_local().is_none() => (*y, cx.key_of(dst)?),
        _ => return None,
    };
    let pointer = cx.is_tracked(l) && cx.func.local(l).is_pointer;
    (pointer && !k.is_local() && k.root != l && !cx.path_text(k.path).contains('[')).then_some((l, k))
}

/// Record copy `c` in a sorted `State::copies` (one slot per local: the latest copy).
fn set_copy(copies: &mut Vec<(LocalId, Key)>, c: (LocalId, Key)) {
    match copies.binary_search_by_key(&c.0, |e| e.0) {
        Ok(i) => copies[i].1 = c.1,
        Err(i) => copies.insert(i, c),
    }
}

/// A store into slot `k`, whose root may also be named by `roots`: the copies of its old value,
/// or of anything below it, no longer hold its value.
fn forget_copies_of(cx: &CheckCx, copies: &mut Vec<(LocalId, Key)>, roots: &[LocalId], k: Key) {
    let text = cx.path_text(k.path);
    copies.retain(|c| {
        let t = cx.path_text(c.1.path);
        !(roots.contains(&c.1.root)
            && t.strip_prefix(text).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '*', '['])))
    });
}

/// The slots below locals that hold the value of a slot a callee reaches through an argument
/// with slots `(root, prefix)` (`cx.arg_slots`), with the path by which the callee sees each:
/// `o.b = b; drop (&o)` reaches `b->data` as `*.b*.data`.
fn copied_reach<'k>(
    cx: &'k CheckCx,
    copies: &'k [(LocalId, Key)],
    held: impl Iterator<Item = Key> + Clone + 'k,
    roots: &'k [LocalId],
    prefix: &'k str,
) -> impl Iterator<Item = (Key, String)> + 'k {
    copies.iter().filter(|(l, kd)| roots.contains(&kd.root) && !roots.contains(l)).flat_map(move |(l, kd)| {
        let at = cx
            .path_text(kd.path)
            .strip_prefix(prefix)
            .filter(|at| prefix.is_empty() || at.is_empty() || at.starts_with(['.', '*', '[']));
        held.clone().filter(move |k| at.is_some() && k.root == *l).filter_map(move |k| {
            let text = cx.path_text(k.path);
            (text.starts_with('*') && text != crate::model::OTHER_PATH_TEXT)
                .then(|| (k, format!("*{}{text}", at.unwrap_or(""))))
        })
    })
}

/// The slot `k` may change outside what this pass sees: whatever it holds escapes there, and it
/// is no longer tracked.
/// The tracked slots that a copy of the whole object at `src` (a place below a pointer) copies:
/// the object's fields (`*.name` below `*`), and the fields nobody names (`*?`) when `src` is
/// a whole pointee or element, which may be a struct. Each with its path relative to `src`
/// (`.name`; empty for `*?`).
pub(super) fn copied_slots(cx: &CheckCx, slots: impl Iterator<Item = Key>, src_path: u32) -> Vec<(Key, String)> {
    let ptext = cx.path_text(src_path);
    let whole = ptext.ends_with(['*', ']']);
    let mut out = Vec::new();
    for k in slots {
        let text = cx.path_text(k.path);
        if text == crate::model::OTHER_PATH_TEXT {
            if whole {
                out.push((k, String::new()));
            }
        } else if let Some(rest) = text.strip_prefix(ptext).filter(|r| r.starts_with('.')) {
            out.push((k, rest.to_string()));
        }
    }
    out
}

/// `dst = *p` (or `dst = p->sub`, `dst = a[i]`) copies a struct: the tracked slots of its
/// fields are now also `dst`'s. A local struct `dst` gets them at its own fields where this
/// function names them; anywhere else (the heap, a global, a field nobody names) they escape
/// with the copy. The source keeps them: both copies hold the same cells.
fn copy_fields(cx: &CheckCx, st: &mut State, dst: &Place, src: &Place, events: &mut Vec<Event>) {
    if src.as_local().is_some() {
        return;
    }
    let Some(ks) = cx.key_of(src).filter(|k| !k.is_local()) else { return };
    let roots = if cx.path_text(ks.path).starts_with('*') { st.names_of(ks.root) } else { vec![ks.root] };
    let slots = st.h.iter().map(|e| e.0).filter(|k| roots.contains(&k.root));
    let copied = copied_slots(cx, slots, ks.path);
    let local = dst.as_local().filter(|l| cx.field_aggregates.get(l.index()).copied().unwrap_or(false));
    for (k, rest) in copied {
        match (local, cx.path_id(&rest)) {
            (Some(l), Some(id)) if !rest.is_empty() => {
                let g = st.get_key(k);
                st.set_key(Key { root: l, path: id }, g);
            }
            // A field of the local struct that this function never names, nor uses the struct
            // whole: the copy is never read.
            (Some(l), None) if !rest.is_empty() && !used_whole(cx.func, l) => {}
            _ => escape_key(st, k, escape_kind(cx, dst), events),
        }
    }
}

/// Local `l` is read as a whole value somewhere (copied, passed, returned), not only through
/// its fields.
fn used_whole(func: &crate::ir::Function, l: LocalId) -> bool {
    let whole = |op: &Operand| matches!(op, Operand::Place(Place::Local(y)) if *y == l);
    func.stmts.iter().any(|s| match s {
        Stmt::Assign { src: Rvalue::Use(op), .. } => whole(op),
        Stmt::Assign { src: Rvalue::Opaque(ops), .. } => ops.iter().any(whole),
        Stmt::Assign { .. } => false,
        Stmt::Call { args, .. } => args.iter().any(whole),
    }) || func.blocks.iter().any(|b| matches!(&b.term, Terminator::Return(Some(op)) if whole(op)))
}

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

/// Slot `k` (a pointer in memory, not an array element) is overwritten: the paths through it
/// (`hbot**.data` below `*hbot`) named the object it pointed to, which keeps what it holds
/// (`Inside` it from here on, as `retire_contents` does for a local; nano's `update_history`
/// stores into `(*hbot)->data`, moves `*hbot` to a new node and stores into the new node's
/// `data`, which is not the old one).
fn retire_below_slot(cx: &CheckCx, st: &mut State, k: Key, events: &mut Vec<Event>) {
    let text = cx.path_text(k.path);
    let roots = if text.starts_with('*') { st.names_of(k.root) } else { vec![k.root] };
    let below: Vec<(Key, GuardId)> = st
        .h
        .iter()
        .filter(|e| {
            roots.contains(&e.0.root) && cx.path_text(e.0.path).strip_prefix(text).is_some_and(|r| r.starts_with('*'))
        })
        .copied()
        .collect();
    for (b, g) in below {
        if !cx.dies_with_frame(b) {
            let kind = inside(cx, b, st.at);
            events.push(Event { kind, guard: g, weak: false });
        }
        st.set_key(b, GuardId::FALSE);
    }
}

/// The event for a cell left at slot `k` below a pointer local when the local stops naming
/// its object just before statement `at` (reassigned, or the function returns): inside the
/// object the local pointed to, or, for a deeper path (`y->a->b`), inside the object its
/// prefix slot points to; an escape into the heap when that slot has no name here.
pub(super) fn inside(cx: &CheckCx, k: Key, at: (u32, u32)) -> EventKind {
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
    memo: std::cell::RefCell<hashbrown::HashMap<(LocalId, Effect), std::rc::Rc<hashbrown::HashMap<u32, GuardId>>>>,
}

impl<'c> Later<'c> {
    /// `st`: the state at the copy, after the header's statements. A local that holds the
    /// cell there and that the later iteration has not redefined is non-NULL where it holds it:
    /// its NULL test goes that way (`if (buf != NULL) break;` of a two-pass loop whose first
    /// pass allocates `buf`). `origin`: where the pass started (the allocation, for a site),
    /// for `once_edges`.
    fn new(
        cx: &CheckCx,
        guards: &mut Guards,
        st: &State,
        copy: DagNode,
        it: &'c LaterIteration,
        fold: Option<(AtomId, bool)>,
        origin: DagNode,
    ) -> Later<'c> {
        let pos: hashbrown::HashMap<u32, usize> = it.nodes.iter().enumerate().map(|(i, v)| (v.0, i)).collect();
        // Edges the earlier iteration took to reach the allocation and the later one cannot
        // take again (`once_edges`): a path of the later iteration through one is no path.
        let once = once_edges(cx, it, &pos, copy, origin);
        let mut reach = vec![GuardId::FALSE; it.nodes.len()];
        if let Some(r) = reach.first_mut() {
            *r = GuardId::TRUE;
        }
        let mut edges = Vec::with_capacity(it.nodes.len());
        let mut plain = true;
        let mut exits: hashbrown::HashMap<u32, GuardId> = hashbrown::HashMap::new();
        // Local → the first position after the header whose statements define it.
        let mut first_def: hashbrown::HashMap<LocalId, usize> = hashbrown::HashMap::new();
        // Local → the first position after the header whose statements define it in any way.
        let mut first_any_def: hashbrown::HashMap<LocalId, usize> = hashbrown::HashMap::new();
        // Local → the first position after the header whose statements touch it (`touch`).
        let mut first_touch: hashbrown::HashMap<LocalId, usize> = hashbrown::HashMap::new();
        // The locals held at the copy, and those the body has assigned a copy of a local so
        // far (in the nodes before this one, and this one's statements): only they can hold a
        // held local's value from the copy (`held_copy`).
        let held: Vec<LocalId> =
            st.h.iter().filter(|(k, _)| k.is_local() && cx.is_tracked(k.root)).map(|(k, _)| k.root).collect();
        let mut copied: Vec<LocalId> = Vec::new();
        for (i, v) in it.nodes.iter().enumerate() {
            guards.tick();
            let mut out = Vec::with_capacity(cx.dag.succs[v.index()].len());
            if i > 0 && !cx.dag.is_copy(*v) && !held.is_empty() {
                for sid in cx.stmts_of(*v) {
                    if let Stmt::Assign { dst: Place::Local(d), src: Rvalue::Use(Operand::Place(Place::Local(_))) } =
                        cx.func.stmt(*sid)
                    {
                        mark(&mut copied, *d, true);
                    }
                }
            }
            // A test that a local holding the cell, since the header or through a copy the
            // body made of one (`held_copy`), passes one way only: its NULL test, or its
            // comparison with the address of a named object (`if (old != stack_array) free
            // (old)`, as `separated` cuts in the value flow). (Guard it holds the cell, the side
            // it takes.)
            let held_test = match &cx.func.block(cx.dag.block[v.index()]).term {
                Terminator::Branch { cond, then_, else_ } if !cx.dag.is_copy(*v) && reach[i] != GuardId::FALSE => {
                    // (the tested local, the side it takes when it holds the cell, a NULL test)
                    let tested = match &cond.kind {
                        CondKind::Truthy(Operand::Place(Place::Local(y))) => Some((*y, *then_, true)),
                        CondKind::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), a, b) => {
                            let keep = if *op == CmpOp::Ne { *then_ } else { *else_ };
                            // A pointer loaded from memory is not the block while only locals
                            // hold it and the iteration has not touched the local since the
                            // header (`if (best != stored->bitmap) free (best)`).
                            let mut loaded = |o: &Operand, y: LocalId| {
                                matches!(o, Operand::Place(p) if !matches!(p, Place::Local(_)))
                                    && st.h.iter().all(|(k, _)| k.is_local())
                                    && *first_touch.entry(y).or_insert_with(|| {
                                        (1..it.nodes.len())
                                            .find(|&j| touch(cx, it.nodes[j], y) != Touch::None)
                                            .unwrap_or(usize::MAX)
                                    }) > i
                            };
                            // Another pointer local that does not hold the cell at the copy
                            // and keeps that value so far (`if (mlo == mhi)` of two distinct
                            // blocks): not the block either.
                            let mut other = |z: LocalId| {
                                cx.func.local(z).is_pointer
                                    && cx.is_tracked(z)
                                    && st.get(z) == GuardId::FALSE
                                    && copied.binary_search(&z).is_err()
                                    && *first_any_def.entry(z).or_insert_with(|| {
                                        (1..it.nodes.len())
                                            .find(|&j| later_effect(cx, it.nodes[j], z, Effect::Defines).is_some())
                                            .unwrap_or(usize::MAX)
                                    }) > i
                            };
                            match (a.local(), b.local()) {
                                (Some(y), Some(z)) if cx.func.local(y).is_pointer && other(z) => Some((y, keep, false)),
                                (Some(z), Some(y)) if cx.func.local(y).is_pointer && other(z) => Some((y, keep, false)),
                                (Some(y), _) if names_object(cx, st, b) => Some((y, keep, false)),
                                (_, Some(y)) if names_object(cx, st, a) => Some((y, keep, false)),
                                (Some(y), None) if cx.func.local(y).is_pointer && loaded(b, y) => {
                                    Some((y, keep, false))
                                }
                                (None, Some(y)) if cx.func.local(y).is_pointer && loaded(a, y) => {
                                    Some((y, keep, false))
                                }
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    match tested {
                        Some((y, keep, null_test)) if then_ != else_ => {
                            let may_be_null = |x: &LocalId| null_test && st.maybe_null.contains(x);
                            let mut g = GuardId::FALSE;
                            if !may_be_null(&y) && st.get(y) != GuardId::FALSE {
                                let first = *first_def.entry(y).or_insert_with(|| {
                                    (1..it.nodes.len())
                                        .find(|&j| {
                                            later_effect(cx, it.nodes[j], y, Effect::Defines).is_some()
                                                && !harmless_redefinition(cx, it.nodes[j], y)
                                        })
                                        .unwrap_or(usize::MAX)
                                });
                                if first > i {
                                    g = st.get(y);
                                }
                            }
                            if copied.binary_search(&y).is_ok() {
                                let end = cx.stmts_of(*v).len();
                                for x in held.iter().filter(|x| **x != y && !may_be_null(x)) {
                                    if held_copy(cx, &pos, *x, y, *v, end, 4) {
                                        g = guards.or(g, st.get(*x));
                                    }
                                }
                            }
                            (g != GuardId::FALSE).then_some((g, keep))
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
                let mut e = if reach[i] == GuardId::FALSE || once.contains(&(i, *t)) {
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

    /// Leaving the loop to `t`: the locals among `kills` (those every path of the later
    /// iteration to `t` defines) that every such path leaves holding the value a local holding
    /// the cell had at the header, as `(holder, copy)`: `old_res_ptr = res_ptr;` before
    /// `res_ptr = realloc (res_ptr, n); if (res_ptr == NULL) { free (old_res_ptr); break; }`,
    /// whose exit frees the copy. A copy follows `Names`: a copy of a name is one, a definition
    /// of a name ends it; a call that surely frees or keeps a name ends them all (the cell is
    /// gone or handed over; `leave` says so), while a `realloc`-like one that frees it only on
    /// success does not (on the side that leaves here it may have failed).
    fn carried(&self, cx: &CheckCx, st: &State, t: DagNode, kills: &[LocalId]) -> Vec<(LocalId, LocalId)> {
        let mut out = Vec::new();
        // Only a local some statement makes a copy can end up holding one (most loops kill
        // counters and cursors): the walk below is per held local and exit.
        if !kills.iter().any(|y| cx.is_copy_dst(*y)) {
            return out;
        }
        let held: Vec<LocalId> = st.h.iter().filter(|(k, _)| k.is_local()).map(|(k, _)| k.root).collect();
        for x in held {
            // Only a local some statement copies can have a copy.
            if !cx.is_tracked(x) || cx.field_aggregates.get(x.index()).copied().unwrap_or(false) || !cx.is_copy_src(x) {
                continue;
            }
            let n = self.it.nodes.len();
            let mut into: Vec<Option<Names>> = vec![None; n];
            let mut at_exit: Option<Names> = None;
            for (i, v) in self.it.nodes.iter().enumerate() {
                let mut names: Names = if i == 0 {
                    smallvec::smallvec![x]
                } else {
                    match into[i].take() {
                        Some(nm) => nm,
                        None => continue,
                    }
                };
                if i > 0 && !names.is_empty() {
                    later_names(cx, *v, &mut names);
                }
                for (u, e, _) in &self.edges[i] {
                    if *e == GuardId::FALSE {
                        continue;
                    }
                    let slot = match self.pos.get(&u.0) {
                        Some(&j) if j > i => &mut into[j],
                        Some(_) => continue,
                        None if *u == t => &mut at_exit,
                        None => continue,
                    };
                    *slot = Some(match slot.take() {
                        None => names.clone(),
                        Some(mut have) => {
                            have.retain(|l| names.contains(l));
                            have
                        }
                    });
                }
            }
            for y in at_exit.unwrap_or_default() {
                if y != x
                    && kills.contains(&y)
                    && cx.is_tracked(y)
                    && !out.iter().any(|c: &(LocalId, LocalId)| c.1 == y)
                {
                    out.push((x, y));
                }
            }
        }
        out
    }

    /// The guard under which the later iteration reaches exit `t`.
    fn exit(&self, t: DagNode) -> GuardId {
        if self.plain {
            return GuardId::TRUE;
        }
        self.exits.get(&t.0).copied().unwrap_or(GuardId::FALSE)
    }

    /// `surely` for exit `t`, from one pass for every exit.
    fn surely_at(&self, cx: &CheckCx, guards: &mut Guards, t: DagNode, x: LocalId, what: Effect) -> GuardId {
        let memo = self.memo.borrow().get(&(x, what)).cloned();
        let all = match memo {
            Some(m) => m,
            None => {
                let m = std::rc::Rc::new(self.surely(cx, guards, x, what));
                self.memo.borrow_mut().insert((x, what), m.clone());
                m
            }
        };
        // An exit no edge of the body reaches is reached by no path: vacuously true, but the
        // copy's edge to it is cut then anyway.
        all.get(&t.0).copied().unwrap_or(GuardId::FALSE)
    }

    /// The guard under which every path of the later iteration that reaches `t` does something
    /// to local `x` after the header: `what` it does (`Effect`), before any statement defines
    /// it when that is a free or a release.
    fn surely(&self, cx: &CheckCx, guards: &mut Guards, x: LocalId, what: Effect) -> hashbrown::HashMap<u32, GuardId> {
        self.surely_from(cx, guards, x, what, false)
    }

    /// `surely`; with `enters`, only for the paths that enter the body (the header's own exits
    /// are the loop not running again).
    fn surely_from(
        &self,
        cx: &CheckCx,
        guards: &mut Guards,
        x: LocalId,
        what: Effect,
        enters: bool,
    ) -> hashbrown::HashMap<u32, GuardId> {
        let frees = what != Effect::Defines;
        // Per position, for the paths into it so far: all of them have done it (`done`), and
        // (`frees` only) none of them defined `x` first (`clean`), as guards; the same per exit.
        let n = self.it.nodes.len();
        let mut into = vec![(GuardId::TRUE, GuardId::TRUE); n];
        let mut at_exit: hashbrown::HashMap<u32, (GuardId, GuardId)> = hashbrown::HashMap::new();
        for (i, v) in self.it.nodes.iter().enumerate() {
            guards.tick();
            let (done, clean) = if i == 0 {
                (GuardId::FALSE, GuardId::TRUE)
            } else if frees && copy_freed(cx, &self.pos, *v, x, what) {
                // Every path through the node frees the value `x` had at the copy, in a copy
                // of it, whatever became of `x` since.
                (GuardId::TRUE, GuardId::TRUE)
            } else {
                let (done, clean) = into[i];
                match (later_effect(cx, *v, x, what), frees) {
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
                    None if enters && i == 0 => continue,
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

    /// Leaving the loop to `t`: the locals the later iteration surely redefines
    /// (`Dag::exit_kills`) that every path of it to `t` leaves holding the value a local held
    /// at the copy (`held_copy`: `old = buf; buf = grow (..); if (!buf) { buf = old; goto
    /// out; }`), with the guard under which that local holds the cell, for the caller to put
    /// back after the kill.
    fn restored(&self, cx: &CheckCx, st: &State, t: DagNode) -> Vec<(LocalId, GuardId)> {
        let kills = cx.dag.kills(self.copy, t);
        if kills.is_empty() {
            return Vec::new();
        }
        let held: Vec<(LocalId, GuardId)> =
            st.h.iter().filter(|(k, _)| k.is_local() && cx.is_tracked(k.root)).map(|(k, g)| (k.root, *g)).collect();
        let Some(from) = exits_from(cx, self.it, t).filter(|_| !held.is_empty()) else { return Vec::new() };
        let mut back = Vec::new();
        for &k in kills {
            if let Some(&(_, g)) = held.iter().find(|(x, _)| restores(cx, &self.pos, &from, *x, k)) {
                back.push((k, g));
            }
        }
        back
    }

    /// The loop runs again (`Dag::again`): the held locals that a path of the later iteration
    /// redefines before anything reads them, each with the guard under which that happens and
    /// it holds the cell. Such a path loses what this iteration left in the local, whatever the
    /// loop does after: `for (..) if (match) last = strdup (name);` keeps only the last match.
    /// The iteration's tests go as `new` says, except that one the earlier iteration decides
    /// (`decided`: `if (!found)`, `if (i == 0)`, `if (fd == -1)` before a call that sets `fd`)
    /// is followed neither way: the DAG does not show which way that iteration left it.
    fn overwrites(&self, cx: &CheckCx, guards: &mut Guards, st: &State) -> Vec<(LocalId, GuardId)> {
        let held = held_locals(cx, st, &self.it.defined);
        let mut out = Vec::new();
        if held.is_empty() {
            return out;
        }
        let n = self.it.nodes.len();
        // Per position, asked the first time a path reaches it (most of a body is not reached
        // clean, and the question reads reaching definitions).
        let mut decided: Vec<Option<bool>> = vec![None; n];
        for x in held {
            let lost = self.lost_before_touch(
                cx,
                guards,
                &mut decided,
                |v| match touch(cx, v, x) {
                    // Freed first, or only stepped: the cell is not lost there.
                    Touch::Defines if harmless_redefinition(cx, v, x) => Touch::Uses,
                    t => t,
                },
                |i| self.own_test_side(cx, st, i, x),
            );
            let again = self.it.runs_again.map_or(GuardId::TRUE, |a| guards.lit(a, true));
            let g = guards.and_all([lost, st.get(x), again]);
            if g != GuardId::FALSE {
                out.push((x, g));
            }
        }
        out
    }

    /// The guard under which a path of the later iteration reaches, from the header (whose
    /// statements the copy ran), a node `touch` calls `Defines` before any it calls `Uses`: the
    /// walk `overwrites` and `overwrites_globals` share. A test the earlier iteration decides
    /// (`decided`, asked the first time a path reaches its node: most of a body is not reached
    /// clean, and the question reads reaching definitions) is followed neither way, and
    /// neither are the sides `side` rules out (nor, as everywhere in `Later`, `once_edges`).
    fn lost_before_touch(
        &self,
        cx: &CheckCx,
        guards: &mut Guards,
        decided: &mut [Option<bool>],
        touch: impl Fn(DagNode) -> Touch,
        side: impl Fn(usize) -> Option<crate::ir::BlockId>,
    ) -> GuardId {
        let n = self.it.nodes.len();
        let mut clean = vec![GuardId::FALSE; n];
        clean[0] = GuardId::TRUE;
        let mut lost = GuardId::FALSE;
        for (i, v) in self.it.nodes.iter().enumerate() {
            if clean[i] == GuardId::FALSE {
                continue;
            }
            guards.tick();
            if i > 0 {
                match touch(*v) {
                    Touch::Defines => {
                        lost = guards.or(lost, clean[i]);
                        continue;
                    }
                    Touch::Uses => continue,
                    Touch::None => {}
                }
            }
            if *decided[i].get_or_insert_with(|| !self.it.invariant[i] && self.decided(cx, *v)) {
                continue;
            }
            let side = side(i);
            for (t, e, _) in &self.edges[i] {
                if side.is_some_and(|b| cx.dag.block[t.index()] != b) {
                    continue;
                }
                if let Some(&j) = self.pos.get(&t.0).filter(|j| **j > i) {
                    let g = guards.and(clean[i], *e);
                    clean[j] = guards.or(clean[j], g);
                }
            }
        }
        lost
    }

    /// The side node `i`'s test of held local `x` itself takes on a path of the later iteration
    /// that has not touched `x` since the header, where `x` still holds the cell: its NULL test
    /// the non-NULL way (unless the cell came back from a call that returns its argument), and
    /// its comparison with a named object or with another pointer local that did not hold the
    /// cell and that the body has not defined so far (gnulib's `result == resultbuf`) the
    /// "different" way. `new` cuts these only while no path has redefined `x`; this is per path.
    fn own_test_side(&self, cx: &CheckCx, st: &State, i: usize, x: LocalId) -> Option<crate::ir::BlockId> {
        let v = self.it.nodes[i];
        if i == 0 || cx.dag.is_copy(v) {
            return None;
        }
        let Terminator::Branch { cond, then_, else_ } = &cx.func.block(cx.dag.block[v.index()]).term else {
            return None;
        };
        let is_x = |o: &Operand| o.local() == Some(x);
        match &cond.kind {
            CondKind::Truthy(o) if is_x(o) && !st.maybe_null.contains(&x) => Some(*then_),
            CondKind::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), a, b) if is_x(a) || is_x(b) => {
                let o = if is_x(a) { b } else { a };
                let apart = names_object(cx, st, o)
                    || o.local().is_some_and(|z| {
                        z != x
                            && cx.func.local(z).is_pointer
                            && cx.is_tracked(z)
                            && st.get(z) == GuardId::FALSE
                            && (1..i).all(|j| later_effect(cx, self.it.nodes[j], z, Effect::Defines).is_none())
                    });
                apart.then_some(if *op == CmpOp::Ne { *then_ } else { *else_ })
            }
            _ => None,
        }
    }

    /// The loop runs again (`Dag::again`): the held locals that every path of the later
    /// iteration frees before it redefines them, each with the guard under which that happens
    /// and it holds the cell. A cell this iteration freed and left in the local is freed twice
    /// then (`for (..) { ..; free (scratch); }`). Every path, not some: the later iteration's
    /// tests may go either way, so a free under one of them (`if (i == n - 1) free (buf)`) is
    /// no proof; one under a loop-invariant test keeps its atom.
    fn frees_again(&self, cx: &CheckCx, guards: &mut Guards, st: &State) -> Vec<(LocalId, GuardId)> {
        let held = held_locals(cx, st, &self.it.freed);
        let mut out = Vec::new();
        for x in held {
            let mut every: Vec<(u32, GuardId)> =
                self.surely_from(cx, guards, x, Effect::Frees, true).into_iter().collect();
            if every.is_empty() {
                continue;
            }
            every.sort_unstable_by_key(|e| e.0);
            let again = self.it.runs_again.map_or(GuardId::TRUE, |a| guards.lit(a, true));
            let mut g = guards.and(st.get(x), again);
            for (_, done) in every {
                g = guards.and(g, done);
            }
            if g != GuardId::FALSE {
                out.push((x, g));
            }
        }
        out
    }

    /// `overwrites` for the named globals holding the cell (`State::globals`): a path of the
    /// later iteration that stores something else into one before any statement reads it or
    /// calls a function that may (`global_touch`) loses what this iteration left there
    /// (`for (..) cur = strdup (names[i]);`). The global's own NULL test goes the non-NULL way
    /// on such a path, where it still holds the cell (`if (!cur) cur = strdup (..)` runs once).
    fn overwrites_globals(&self, cx: &CheckCx, guards: &mut Guards, st: &State) -> Vec<(std::sync::Arc<str>, GuardId)> {
        let mut out = Vec::new();
        if st.globals.is_empty() {
            return out;
        }
        let n = self.it.nodes.len();
        let mut decided: Vec<Option<bool>> = vec![None; n];
        for (name, held) in &st.globals {
            // The global's own NULL test: it still holds the cell on these paths.
            let side = |i: usize| {
                let v = self.it.nodes[i];
                match &cx.func.block(cx.dag.block[v.index()]).term {
                    Terminator::Branch {
                        cond: Cond { kind: CondKind::Truthy(Operand::Place(p)), .. }, then_, ..
                    } if i > 0
                        && !cx.dag.is_copy(v)
                        && crate::global_leaks::global_path(p).is_some_and(|g| *g == **name) =>
                    {
                        Some(*then_)
                    }
                    _ => None,
                }
            };
            let lost = self.lost_before_touch(cx, guards, &mut decided, |v| global_touch(cx, v, name), side);
            let again = self.it.runs_again.map_or(GuardId::TRUE, |a| guards.lit(a, true));
            let g = guards.and_all([lost, *held, again]);
            if g != GuardId::FALSE {
                out.push((name.clone(), g));
            }
        }
        out
    }

    /// Whether node `v`'s test of a local against a constant (its truth, `== -1`, `< 3`, a
    /// `switch`) reads the value the earlier iteration left: no definition of the local on the
    /// way from the header reaches it (`found = 1` after `if (!found)`, `i++` in the increment,
    /// `fd` set through `&fd` by the call the test guards). Address-taken locals have no
    /// definitions of their own here, so every test of one is such a test.
    fn decided(&self, cx: &CheckCx, v: DagNode) -> bool {
        if cx.dag.is_copy(v) {
            return false;
        }
        let tested = match &cx.func.block(cx.dag.block[v.index()]).term {
            Terminator::Branch { cond, .. } => match &cond.kind {
                CondKind::Truthy(y) => Some(y),
                CondKind::Cmp(_, y, Operand::Const(_)) | CondKind::Cmp(_, Operand::Const(_), y) => Some(y),
                _ => None,
            },
            Terminator::Switch { on, .. } => Some(on),
            _ => None,
        };
        if let Some(Operand::Place(Place::Global(g))) = tested {
            return self.guards_own_global(cx, v, g);
        }
        // A pointer's NULL test is `new`'s to decide where it holds the cell.
        let Some(y) = tested.and_then(|y| y.local()).filter(|y| !cx.func.local(*y).is_pointer) else { return false };
        let in_body = |n: DagNode| self.pos.contains_key(&n.0);
        cx.reaching_defs(y, v, cx.stmts_of(v).len()).iter().all(|d| match *d {
            Def::At { node, .. } | Def::Later { copy: node } => !in_body(node),
            Def::Entry => true,
        })
    }

    /// `decided` for a test of global `g` at node `v`: the body sets `g` itself (a store, or its
    /// address handed to a call: `if (remin == -1) conn = connect (.., &remin)`) only after
    /// the test, on none of the ways from the header to it. Calls that may write it through a
    /// pointer are not asked: a global the loop sets by name is what this is about.
    fn guards_own_global(&self, cx: &CheckCx, v: DagNode, g: &str) -> bool {
        let Some(&at) = self.pos.get(&v.0) else { return false };
        let sets = |u: DagNode| {
            cx.stmts_of(u).iter().any(|sid| {
                let (dst, addr) = match cx.func.stmt(*sid) {
                    Stmt::Assign { dst, src: Rvalue::AddrOf(p) } => (Some(dst), Some(p)),
                    Stmt::Assign { dst, .. } => (Some(dst), None),
                    Stmt::Call { dst, .. } => (dst.as_ref(), None),
                };
                let named = |p: &Place| crate::global_writes::global_root(p) == Some(g);
                dst.is_some_and(named) || addr.is_some_and(named)
            })
        };
        // The nodes from which the header's paths reach `v` (the header included: the copy
        // ran it, so a store there is this iteration's), and those after it.
        let mut before = vec![false; self.it.nodes.len()];
        before[at] = true;
        for i in (0..at).rev() {
            let u = self.it.nodes[i];
            before[i] = self.edges[i].iter().any(|(t, _, _)| self.pos.get(&t.0).is_some_and(|&j| j > i && before[j]));
            if before[i] && sets(u) {
                return false;
            }
        }
        if sets(v) {
            return false;
        }
        self.it.nodes.iter().enumerate().skip(at + 1).any(|(i, u)| !before[i] && sets(*u))
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
                self.surely_at(cx, guards, t, x, Effect::Frees)
            } else {
                GuardId::FALSE
            };
            if freed != GuardId::FALSE {
                let g = guards.and(st.get(x), freed);
                if g != GuardId::FALSE {
                    events.push(Event { kind: EventKind::Free(None), guard: g, weak: false });
                }
            }
            // Released without being freed: handed to a callee that keeps it (pushed onto a
            // list before the next item replaces it), so the cell escapes there as it would
            // had the value flow followed the iteration.
            if self.it.released.binary_search(&x).is_ok() {
                let released = self.surely_at(cx, guards, t, x, Effect::Releases);
                let not_freed = guards.not(freed);
                let handed = guards.and(released, not_freed);
                let g = guards.and(st.get(x), handed);
                if g != GuardId::FALSE {
                    let kind = first_hand_off(cx, &self.it.nodes, x);
                    events.push(Event { kind: EventKind::Escape(kind), guard: g, weak: false });
                    let kept = guards.not(handed);
                    let keys: Vec<(Key, GuardId)> = st.h.iter().filter(|(k, _)| k.root == x).copied().collect();
                    for (k, g) in keys {
                        let g = guards.and(g, kept);
                        st.set_key(k, g);
                    }
                }
            }
            // With every edge taken either way, what is surely defined is `exit_kills`, which
            // the caller removes.
            if self.plain || cx.dag.kills(self.copy, t).contains(&x) {
                continue;
            }
            let defined = self.surely_at(cx, guards, t, x, Effect::Defines);
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

/// The tracked locals (not aggregates of fields) that hold the cell in `st` and are in `set`
/// (sorted), each once.
fn held_locals(cx: &CheckCx, st: &State, set: &[LocalId]) -> Vec<LocalId> {
    let mut held: Vec<LocalId> = st.h.iter().filter(|(k, _)| k.is_local()).map(|(k, _)| k.root).collect();
    held.retain(|x| {
        cx.is_tracked(*x)
            && !cx.field_aggregates.get(x.index()).copied().unwrap_or(false)
            && set.binary_search(x).is_ok()
    });
    held.dedup();
    held
}

/// What the statements of node `v` do to local `x` first, for `Later::overwrites`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Touch {
    /// Nothing: `x` is neither read nor written.
    None,
    /// A plain redefinition that does not read it (`x = strdup (..)`).
    Defines,
    /// Anything else: `x` is read (an argument, a copy, a load through it, a store into its
    /// object), so the cell may be freed, kept or handed on there.
    Uses,
}

fn touch(cx: &CheckCx, v: DagNode, x: LocalId) -> Touch {
    let mentions = |op: &Operand| matches!(op, Operand::Place(p) if p.root_local() == Some(x));
    let place_reads = |p: &Place| !matches!(p, Place::Local(_)) && p.root_local() == Some(x);
    // `x = grow (x, n)`: a redefinition from its own value.
    let mentioned = |s: &Stmt| match s {
        Stmt::Call { args, .. } => args.iter().any(mentions),
        Stmt::Assign { .. } => false,
    };
    for sid in cx.stmts_of(v) {
        let (dst, reads) = match cx.func.stmt(*sid) {
            Stmt::Assign { dst, src } => {
                let reads = match src {
                    Rvalue::Use(op) => mentions(op),
                    Rvalue::AddrOf(p) => p.root_local() == Some(x),
                    Rvalue::Opaque(ops) => ops.iter().any(mentions),
                };
                (Some(dst), reads)
            }
            Stmt::Call { dst, callee, args } => {
                // An argument the callee only reads (`puts (x)`, `strcmp (x, ..)`, a `const`
                // parameter of a function without a body) leaves the cell where it was.
                let model = cx.model(*sid);
                let hands = |i: usize| model.is_none_or(|m| m.arg_effect(i).is_some() || m.ret_is_arg);
                let target = matches!(callee, Callee::Indirect { target, .. } if mentions(target));
                (dst.as_ref(), target || args.iter().enumerate().any(|(i, a)| mentions(a) && hands(i)))
            }
        };
        let defines = dst.is_some_and(|d| *d == Place::Local(x));
        if reads || dst.is_some_and(place_reads) || (defines && mentioned(cx.func.stmt(*sid))) {
            return Touch::Uses;
        }
        if defines {
            return Touch::Defines;
        }
    }
    Touch::None
}

/// The edges (position, target) of the later iteration that the pass's origin, an
/// allocation in the body, lies behind, and that a counter equal to a constant takes: the
/// earlier iteration took such an edge to allocate, and the counter, which every iteration
/// steps up, is past that constant now (bash's `nsemi++; switch (nsemi) { case 1: init =
/// ..; case 2: test = ..; }` fills each only once). Empty unless the origin is in the body.
fn once_edges(
    cx: &CheckCx,
    it: &LaterIteration,
    pos: &hashbrown::HashMap<u32, usize>,
    copy: DagNode,
    origin: DagNode,
) -> Vec<(usize, DagNode)> {
    let mut out = Vec::new();
    let Some(&at) = pos.get(&origin.0).filter(|_| !cx.dag.is_copy(origin)) else { return out };
    for (i, v) in it.nodes.iter().enumerate().take(at) {
        if cx.dag.is_copy(*v) {
            continue;
        }
        // (counter, the block its equality with a constant goes to)
        let taken = match &cx.func.block(cx.dag.block[v.index()]).term {
            Terminator::Switch { on: Operand::Place(Place::Local(n)), cases, default } => {
                let mut once: Vec<crate::ir::BlockId> = cases.iter().map(|c| c.1).filter(|b| b != default).collect();
                once.sort_unstable();
                let mut single = Vec::new();
                for (k, b) in once.iter().enumerate() {
                    if (k == 0 || once[k - 1] != *b) && once.get(k + 1) != Some(b) {
                        single.push((*n, *b));
                    }
                }
                single
            }
            Terminator::Branch { cond, then_, else_ } if then_ != else_ => match &cond.kind {
                CondKind::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), a, b) => {
                    let n = match (a, b) {
                        (Operand::Place(Place::Local(n)), Operand::Const(_))
                        | (Operand::Const(_), Operand::Place(Place::Local(n))) => Some(*n),
                        _ => None,
                    };
                    n.map(|n| vec![(n, if *op == CmpOp::Eq { *then_ } else { *else_ })]).unwrap_or_default()
                }
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        for (n, b) in taken {
            let Some(t) = cx.dag.succs[v.index()].iter().map(|e| e.0).find(|t| cx.dag.block[t.index()] == b) else {
                continue;
            };
            if behind(cx, it, pos, i, t, at) && counter(cx, it, pos, copy, n) {
                out.push((i, t));
            }
        }
    }
    out
}

/// Whether every way from the header to position `at` takes the edge from position `i`
/// to `t`.
fn behind(
    cx: &CheckCx,
    it: &LaterIteration,
    pos: &hashbrown::HashMap<u32, usize>,
    i: usize,
    t: DagNode,
    at: usize,
) -> bool {
    let mut reached = vec![false; it.nodes.len()];
    reached[0] = true;
    for k in 0..at {
        if !reached[k] {
            continue;
        }
        for (u, _) in &cx.dag.succs[it.nodes[k].index()] {
            if k == i && *u == t {
                continue;
            }
            if let Some(&j) = pos.get(&u.0).filter(|j| **j > k) {
                reached[j] = true;
            }
        }
    }
    !reached[at]
}

/// Whether local `n` is a counter of the loop: an integer only stepped up by constants in
/// the body, and stepped on every way round (from the header back to it), so that it is
/// larger in every iteration than in the one before.
fn counter(cx: &CheckCx, it: &LaterIteration, pos: &hashbrown::HashMap<u32, usize>, copy: DagNode, n: LocalId) -> bool {
    if !cx.is_tracked(n) || cx.func.local(n).is_pointer {
        return false;
    }
    // Per node: Some(true) it steps `n` up, Some(false) it defines it otherwise.
    let defines = |v: DagNode| -> Option<bool> {
        let stmts = cx.stmts_of(v);
        let mut defs = cx.block_defs_of(v).iter().filter(|d| d.0 == n).peekable();
        defs.peek()?;
        Some(defs.all(|d| stmts.get(d.1 as usize).and_then(|sid| cx.func.step_of(*sid)).is_some_and(|(k, _)| k > 0)))
    };
    let nodes = &it.nodes;
    if nodes.iter().any(|v| defines(*v) == Some(false)) {
        return false;
    }
    // Per position, whether every way into it from the header has stepped (None: unreached).
    let mut stepped: Vec<Option<bool>> = vec![None; nodes.len()];
    stepped[0] = Some(false);
    for (i, v) in nodes.iter().enumerate() {
        let Some(s) = stepped[i] else { continue };
        let s = s || defines(*v).is_some();
        for (t, _) in &cx.dag.succs[v.index()] {
            match pos.get(&t.0) {
                Some(&j) if j > i => stepped[j] = Some(stepped[j].map_or(s, |x| x && s)),
                Some(_) => {}
                None if *t == copy && !s => return false,
                None => {}
            }
        }
    }
    true
}

/// What the statements of node `v` do first to the named global `name` holding the cell, for
/// `Later::overwrites_globals`: `Defines` for a store of something else into it (or a callee
/// that overwrites it first: `global_effect`), `Uses` for anything that may read it (a call of
/// the program, an argument, a copy, its address) or that names its storage otherwise (a store
/// into the block through it), `None` when the node leaves it alone.
fn global_touch(cx: &CheckCx, v: DagNode, name: &str) -> Touch {
    let root = crate::global_leaks::root(name);
    let names_root = |p: &Place| crate::global_writes::base_global(p) == Some(root);
    let op_names = |o: &Operand| matches!(o, Operand::Place(p) if names_root(p));
    for sid in cx.stmts_of(v) {
        match global_effect(cx, *sid, name) {
            Some(true) => return Touch::Uses,
            Some(false) => return Touch::Defines,
            None => {}
        }
        let (dst, reads) = match cx.func.stmt(*sid) {
            Stmt::Assign { dst, src } => {
                let reads = match src {
                    Rvalue::Use(op) => op_names(op),
                    Rvalue::AddrOf(p) => names_root(p),
                    Rvalue::Opaque(ops) => ops.iter().any(op_names),
                };
                (Some(dst), reads)
            }
            Stmt::Call { dst, args, .. } => (dst.as_ref(), args.iter().any(op_names)),
        };
        if reads {
            return Touch::Uses;
        }
        if let Some(d) = dst {
            if crate::global_leaks::global_path(d).is_some_and(|p| *p == *name) {
                return Touch::Defines;
            }
            if names_root(d) {
                return Touch::Uses;
            }
        }
    }
    Touch::None
}

/// A definition of `x` in node `v` of a later iteration that cannot take the cell from `x`: the
/// node frees `x` first (`vim_free (remain); remain = cpy;`, `VIM_CLEAR (remain)`), or it is
/// entered only from the NULL side of a test of `x` itself (`if (remain == NULL) remain =
/// vim_strsave (..)`), which a local holding the cell never takes; or it only steps `x` (`*p++ =
/// c`), which leaves it inside the block. Either way a later NULL test of `x` still finds the
/// cell in it or finds it freed, as when `x` was not redefined at all.
fn harmless_redefinition(cx: &CheckCx, v: DagNode, x: LocalId) -> bool {
    if later_effect(cx, v, x, Effect::Frees) == Some(true) {
        return true;
    }
    // Only steps of itself (`*p++ = c`: pointer arithmetic is a copy here): still into the
    // block, still not NULL.
    let stmts = cx.stmts_of(v);
    let mut defs = cx.block_defs_of(v).iter().filter(|d| d.0 == x).peekable();
    let steps = defs.peek().is_some()
        && defs.all(|d| {
            matches!(stmts.get(d.1 as usize).map(|sid| cx.func.stmt(*sid)),
            Some(Stmt::Assign { src: Rvalue::Use(Operand::Place(Place::Local(y))), .. }) if *y == x)
        });
    if steps && !cx.dag.is_copy(v) {
        return true;
    }
    let [p] = cx.dag.preds[v.index()][..] else { return false };
    if cx.dag.is_copy(p) || cx.first_def(p, x).is_some() {
        return false;
    }
    match &cx.func.block(cx.dag.block[p.index()]).term {
        Terminator::Branch { cond, then_, else_ } => {
            matches!(&cond.kind, CondKind::Truthy(Operand::Place(Place::Local(y))) if *y == x)
                && *else_ == cx.dag.block[v.index()]
                && then_ != else_
        }
        _ => false,
    }
}

/// In the later iteration a header copy stands for (`pos`: its body's nodes by position, the
/// header at 0), whether local `y` surely holds, before statement `idx` of node `v`, the value
/// local `x` had at the copy: every definition of `y` that reaches there is a copy of `x` (or of
/// such a copy) made by the body before any of its statements redefined `x` (`old = stack;`
/// before `stack = grown;`). The DAG's reaching definitions are the later iteration's inside the
/// body, whose nodes the header reaches by forward edges only; a definition from before the
/// loop, or the header's, is the value at the copy.
fn held_copy(
    cx: &CheckCx,
    pos: &hashbrown::HashMap<u32, usize>,
    x: LocalId,
    y: LocalId,
    v: DagNode,
    idx: usize,
    depth: u32,
) -> bool {
    if depth == 0 || !cx.is_tracked(y) {
        return false;
    }
    let in_body = |n: DagNode| pos.get(&n.0).is_some_and(|&p| p > 0);
    let defs = cx.reaching_defs(y, v, idx);
    !defs.is_empty()
        && defs.iter().all(|d| match *d {
            Def::At { node, idx: k } if in_body(node) && !cx.dag.is_copy(node) => {
                match cx.func.stmt(cx.stmts_of(node)[k as usize]) {
                    Stmt::Assign { src: Rvalue::Use(Operand::Place(Place::Local(z))), .. } if *z == x => {
                        cx.reaching_defs(x, node, k as usize).iter().all(|e| match *e {
                            Def::At { node, .. } | Def::Later { copy: node } => !in_body(node),
                            Def::Entry => true,
                        })
                    }
                    Stmt::Assign { src: Rvalue::Use(Operand::Place(Place::Local(z))), .. } => {
                        held_copy(cx, pos, x, *z, node, k as usize, depth - 1)
                    }
                    _ => false,
                }
            }
            _ => false,
        })
}

/// The nodes of later iteration `it` with an edge to exit `t`; `None` when one is the header or
/// a nested loop's copy (whose statements `held_copy` does not follow).
fn exits_from(cx: &CheckCx, it: &LaterIteration, t: DagNode) -> Option<Vec<DagNode>> {
    let mut from = Vec::new();
    for (i, v) in it.nodes.iter().enumerate() {
        if cx.dag.succs[v.index()].iter().any(|(u, _)| *u == t) {
            if i == 0 || cx.dag.is_copy(*v) {
                return None;
            }
            from.push(*v);
        }
    }
    (!from.is_empty()).then_some(from)
}

/// Whether every path of a later iteration (`pos`: its nodes' positions) that leaves from the
/// nodes `from` (`exits_from`) leaves local `k`, which it redefines, holding the value local `x`
/// had at the copy (`held_copy`, through the body's copies).
fn restores(cx: &CheckCx, pos: &hashbrown::HashMap<u32, usize>, from: &[DagNode], x: LocalId, k: LocalId) -> bool {
    from.iter().all(|v| held_copy(cx, pos, x, k, *v, cx.stmts_of(*v).len(), 4))
}

/// Whether node `v` of a later iteration frees (with `Releases`, also hands off) a local holding
/// the value `x` had at the header copy through a copy the body made (`held_copy`): `if (old !=
/// stack_array) free (old)` after `old = stack; stack = grown;`.
fn copy_freed(cx: &CheckCx, pos: &hashbrown::HashMap<u32, usize>, v: DagNode, x: LocalId, what: Effect) -> bool {
    if cx.dag.is_copy(v) || what == Effect::Defines {
        return false;
    }
    cx.stmts_of(v).iter().enumerate().any(|(k, sid)| {
        let (Stmt::Call { args, dst, .. }, Some(m)) = (cx.func.stmt(*sid), cx.model(*sid)) else {
            return false;
        };
        args.iter().enumerate().any(|(i, a)| {
            let Some(y) = a.local().filter(|y| *y != x) else { return false };
            let frees = m.arg_effect(i) == Some(ArgEffect::Frees);
            let releases = m.releases_arg(i) && !matches!(dst, Some(Place::Local(d)) if *d == y);
            (frees || (what == Effect::Releases && releases)) && held_copy(cx, pos, x, y, v, k, 4)
        })
    })
}

/// What `Later::surely` looks for in a later iteration's statements, for a local.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Effect {
    /// Any definition.
    Defines,
    /// A free of the local's value before the node defines it.
    Frees,
    /// A free or a hand-off of the local's value before the node defines it: a call the value
    /// flow would let the cell escape into (`sk_push (stack, item)`, an unknown callee), or free.
    Releases,
}

/// What node `v`'s statements do to local `x` first, for `Later::surely`: with `Frees` or
/// `Releases`, that (`Some(true)`) or a definition (`Some(false)`); with `Defines`, any
/// definition (`Some(true)`).
fn later_effect(cx: &CheckCx, v: DagNode, x: LocalId, what: Effect) -> Option<bool> {
    // The node's definitions are indexed (`FnCx::first_def`): only a free needs the statements,
    // and only those up to the first definition.
    let def = cx.first_def(v, x);
    if what == Effect::Defines {
        return def.map(|_| true);
    }
    let stmts = cx.stmts_of(v);
    let upto = def.map_or(stmts.len(), |i| i as usize + 1);
    // `x` and the temporaries the node copies it into first: an argument is often a cast or a
    // type-checking inline function of the local (`sk_X509_INFO_push (ret, xi)` passes
    // `ossl_check_X509_INFO_type (xi)`).
    let mut names: smallvec::SmallVec<[LocalId; 4]> = smallvec::smallvec![x];
    for sid in &stmts[..upto] {
        match cx.func.stmt(*sid) {
            Stmt::Call { args, dst, .. } => {
                let model = cx.model(*sid);
                // `x = grow (x, n)` of a callee that keeps its argument (a `realloc` through a
                // replaceable hook) replaces `x` with what may be the same block: not a hand-off.
                let replaces = matches!(dst, Some(Place::Local(d)) if *d == x);
                let done = args.iter().enumerate().any(|(i, a)| {
                    a.local().is_some_and(|y| names.contains(&y))
                        && match what {
                            Effect::Frees => model.is_some_and(|m| m.arg_effect(i) == Some(ArgEffect::Frees)),
                            _ => model.is_some_and(|m| {
                                m.arg_effect(i) == Some(ArgEffect::Frees) || (m.releases_arg(i) && !replaces)
                            }),
                        }
                });
                if done {
                    return Some(true);
                }
                let copied = model.and_then(|m| m.ret_is_arg.then(|| m.ret_alias()).flatten());
                if let (Some(Place::Local(d)), Some(i)) = (dst, copied) {
                    if args.get(i).and_then(|a| a.local()).is_some_and(|y| names.contains(&y)) {
                        names.push(*d);
                    }
                }
            }
            Stmt::Assign { dst: Place::Local(d), src: Rvalue::Use(Operand::Place(Place::Local(y))) }
                if names.contains(y) =>
            {
                names.push(*d);
            }
            _ => {}
        }
    }
    def.map(|_| false)
}

/// The locals holding one value in a later iteration (`Later::carried`).
type Names = smallvec::SmallVec<[LocalId; 4]>;

/// `names` after node `v`'s statements (`Later::carried`): a copy of a name (`old = x`, or a
/// call that returns its argument itself) is one, a definition of a name is no longer one, and
/// a call that frees or keeps a name for sure leaves none.
fn later_names(cx: &CheckCx, v: DagNode, names: &mut Names) {
    let defs = cx.block_defs_of(v);
    for (idx, sid) in cx.stmts_of(v).iter().enumerate() {
        let mut copy: Option<LocalId> = None;
        match cx.func.stmt(*sid) {
            Stmt::Call { args, dst, .. } => {
                let model = cx.model(*sid);
                let gone = args.iter().enumerate().any(|(i, a)| {
                    a.local().is_some_and(|y| names.contains(&y))
                        && model.is_none_or(|m| m.arg_effect(i) == Some(ArgEffect::Frees) || m.releases_arg(i))
                });
                if gone {
                    names.clear();
                    return;
                }
                let copied = model.and_then(|m| m.ret_is_arg.then(|| m.ret_alias()).flatten());
                if let (Some(Place::Local(d)), Some(i)) = (dst, copied) {
                    if args.get(i).and_then(|a| a.local()).is_some_and(|y| names.contains(&y)) {
                        copy = Some(*d);
                    }
                }
            }
            Stmt::Assign { dst: Place::Local(d), src: Rvalue::Use(Operand::Place(Place::Local(y))) }
                if names.contains(y) =>
            {
                copy = Some(*d);
            }
            _ => {}
        }
        names.retain(|l| Some(*l) == copy || !defs.contains(&(*l, idx as u32)));
        if let Some(d) = copy.filter(|d| !names.contains(d)) {
            names.push(d);
        }
        if names.is_empty() {
            return;
        }
    }
}

/// The first call of a later iteration (in `nodes`' order) that releases `x` without freeing
/// it: what a cell held by `x` escapes into when the iteration surely releases it.
fn first_hand_off(cx: &CheckCx, nodes: &[DagNode], x: LocalId) -> EscapeKind {
    for v in nodes.iter().skip(1).filter(|v| !cx.dag.is_copy(**v)) {
        for sid in cx.stmts_of(*v) {
            if let Stmt::Call { args, callee, dst } = cx.func.stmt(*sid) {
                let model = cx.model(*sid);
                if matches!(dst, Some(Place::Local(d)) if *d == x) {
                    continue;
                }
                let hands = args.iter().enumerate().any(|(i, a)| {
                    matches!(a, Operand::Place(Place::Local(y)) if *y == x)
                        && model.is_some_and(|m| m.arg_effect(i) != Some(ArgEffect::Frees) && m.releases_arg(i))
                });
                if hands {
                    return retained(model, callee);
                }
            }
        }
    }
    EscapeKind::Heap
}

/// `l = <a value this pass does not follow>`: what a later loop iteration's assignment does.
fn redefine_unknown(cx: &CheckCx, guards: &mut Guards, st: &mut State, l: LocalId, events: &mut Vec<Event>) {
    // Facts go whether or not the local holds cells: a scalar the later iteration redefined
    // (`flag = *string++`) no longer has the value an earlier test or copy found.
    let rooted_here = |k: u32| cx.facts.keys.get(k as usize).is_some_and(|key| key.0 == l);
    st.facts.retain(|(k, f, _)| !rooted_here(*k) && !matches!(f, crate::facts::Fact::Same(q) if rooted_here(*q)));
    if !cx.is_tracked(l) || cx.field_aggregates.get(l.index()).copied().unwrap_or(false) {
        return;
    }
    st.set_weak(l, false);
    store(cx, guards, st, &Place::Local(l), GuardId::FALSE, true, Vec::new(), None, events);
    st.set_derived(l, None);
}

/// `dst = value` into a global, where the value holds the cell under `g`: every pending global
/// that `dst` overwrites (itself, or a field of it when it is a struct) no longer holds the cell,
/// and a named one now holds it under `g` (`State::globals`). False when `dst` is no global.
fn hold_in_global(st: &mut State, dst: &Place, g: GuardId) -> bool {
    let Some(path) = crate::global_leaks::global_path(dst) else {
        // An element of a global array: an escape (named `g[]` by `escape_kind`), never followed
        // for overwrites.
        return false;
    };
    let field_of =
        |name: &str| name.len() > path.len() && name.starts_with(&path) && name.as_bytes()[path.len()] == b'.';
    st.globals.retain(|(name, _)| **name != *path && !field_of(name));
    if g != GuardId::FALSE {
        let i = st.globals.binary_search_by(|e| (*e.0).cmp(path.as_str())).unwrap_or_else(|i| i);
        st.globals.insert(i, (path.as_str().into(), g));
    }
    true
}

/// Before statement `sid`: the globals of `State::globals` it may read hand the cell on (an
/// `Escape(Global)` under their guards), and those a callee overwrites first lose it
/// (`global_effect`).
fn release_globals(cx: &CheckCx, st: &mut State, sid: StmtId, events: &mut Vec<Event>) {
    let mut kept = Vec::with_capacity(st.globals.len());
    for (name, g) in std::mem::take(&mut st.globals) {
        match global_effect(cx, sid, &name) {
            Some(true) => {
                events.push(Event { kind: EventKind::Escape(EscapeKind::Global(name)), guard: g, weak: false })
            }
            Some(false) => {}
            None => kept.push((name, g)),
        }
    }
    st.globals = kept;
}

/// What statement `sid` does, before anything else, to the cell the named global `name` holds
/// (`State::globals`): `Some(true)` it may read the global and hand its value on, `Some(false)`
/// a callee overwrites the global first, `None` it leaves the cell there. A call to a function
/// of the program may read any global; a library call reads only what it is passed; an
/// assignment reads the global it copies (or the struct it is a field of, copied whole) or
/// whose address it takes. A read through the global (`g->len`) leaves the cell where it is.
fn global_effect(cx: &CheckCx, sid: StmtId, name: &str) -> Option<bool> {
    let reads = |p: &Place| {
        crate::global_leaks::global_path(p).is_some_and(|path| {
            path == name || (name.starts_with(&path) && name.as_bytes().get(path.len()) == Some(&b'.'))
        })
    };
    match cx.func.stmt(sid) {
        Stmt::Call { args, .. } => {
            let model = cx.model(sid);
            // Given to the call as an argument it may keep or free (`printf ("%s", g)` only
            // reads it).
            let given = args.iter().enumerate().any(|(j, a)| {
                matches!(a, Operand::Place(p) if reads(p)) && model.is_none_or(|m| m.arg_effect(j).is_some())
            });
            let root = crate::global_leaks::root(name);
            let taken = cx.address_taken_globals.is_none_or(|t| crate::global_writes::is_address_taken(t, root));
            match model {
                Some(m) if m.lib && !m.returns_twice => given.then_some(true),
                // A function of the program: one that overwrites the global first loses the
                // cell (`Summary::global_overwrites`); one that may write it, or hand its value
                // on (through its callees too: `Summary::globals_kept`), takes it out of this
                // path's view. One that only reads it (tests it, prints it) or does not touch it
                // leaves the cell there.
                Some(m) if m.known && !m.lib && !given && !taken => {
                    if m.global_overwrites.iter().any(|o| **o == *name) {
                        Some(false)
                    } else if m.globals_kept.may_write(root) || m.globals_written.may_write(root) {
                        Some(true)
                    } else {
                        None
                    }
                }
                _ => Some(true),
            }
        }
        Stmt::Assign { src, .. } => {
            let hit = match src {
                Rvalue::Use(Operand::Place(p)) => reads(p),
                // `&g`, `&cfg`, `&cfg.name`, `&g->f`: the global may change behind the path.
                Rvalue::AddrOf(p) => {
                    let mut q = p;
                    loop {
                        match q {
                            Place::Field(inner, _) | Place::Index(inner) | Place::Deref(inner) => q = inner,
                            Place::Global(g) => break name.split('.').next() == Some(g.as_str()),
                            Place::Local(_) => break false,
                        }
                    }
                }
                _ => false,
            };
            hit.then_some(true)
        }
    }
}

/// `dst = value`, where the value holds the cell under `g` and its object holds it in the
/// `contents` paths (when the value is a local).
#[allow(clippy::too_many_arguments)]
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
pub(super) enum WalkGoal {
    Leak,
    SecondFree,
    /// Up to the free by the call at this statement (a mismatched deallocator).
    FreeAt(StmtId),
}

/// Follow the path a SAT model describes, concretely tracking which locals hold the cell, and
/// record the branches that matter (those in `support`), frees, and where the cell is lost.
#[allow(clippy::too_many_arguments)]
pub(super) fn walk(
    cx: &CheckCx,
    value: &impl Fn(AtomId) -> Option<bool>,
    support: &[AtomId],
    fold: Option<(AtomId, bool)>,
    node0: DagNode,
    first: usize,
    start: (Key, Option<&str>),
    goal: WalkGoal,
) -> Vec<Step> {
    let func = cx.func;
    let mut steps = Vec::new();
    // The slots holding the cell, and the named globals (`State::globals`): a loss is the last
    // of either going.
    let (mut holders, mut globals): (Vec<Key>, Vec<String>) = match start.1 {
        Some(g) => (Vec::new(), vec![g.to_string()]),
        None => (vec![start.0], Vec::new()),
    };
    let held = |holders: &[Key], op: &Operand| match op {
        Operand::Place(p) => cx.key_of(p).is_some_and(|k| holders.contains(&k)),
        _ => false,
    };
    // Holders that came back from an argument-returning call: their NULL tests are not folded.
    let mut maybe_null: Vec<LocalId> = Vec::new();
    // Pointer locals holding the same address (from copies), as `State::alias`.
    let mut alias: Vec<(LocalId, LocalId)> = Vec::new();
    // Pointer locals holding the value of a slot, as `State::copies`.
    let mut copies: Vec<(LocalId, Key)> = Vec::new();
    let names = |alias: &[(LocalId, LocalId)], y: LocalId| -> Vec<LocalId> {
        let mut v = vec![y];
        v.extend(alias.iter().filter_map(|&(a, b)| (a == y).then_some(b).or((b == y).then_some(a))));
        v
    };
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
                    let mut lost = assign_holder(cx, &mut holders, dst, carries || !copied.is_empty(), loc);
                    if let Some(name) = crate::global_leaks::global_path(dst) {
                        let had = !globals.is_empty();
                        let field_of = |g: &String| {
                            g.len() > name.len() && g.starts_with(&name) && g.as_bytes()[name.len()] == b'.'
                        };
                        globals.retain(|g| *g != name && !field_of(g));
                        if carries {
                            globals.push(name.clone());
                        } else if had && globals.is_empty() && holders.is_empty() {
                            lost = Some(Step::Lost { loc, how: Lost::Overwritten(name) });
                        }
                    }
                    if !globals.is_empty() {
                        lost = None;
                    }
                    if !carries {
                        if let Some(l) = dst.as_local() {
                            holders.retain(|k| *k != Key::local(l));
                        }
                    }
                    holders.extend(copied);
                    if let Some(k) = cx.key_of(dst).filter(|k| !k.is_local()) {
                        let roots =
                            if cx.path_text(k.path).starts_with('*') { names(&alias, k.root) } else { vec![k.root] };
                        forget_copies_of(cx, &mut copies, &roots, k);
                    }
                    if let Some(l) = dst.as_local() {
                        copies.retain(|c| c.0 != l && c.1.root != l);
                    }
                    if let Some(c) = copy_made(cx, dst, src) {
                        set_copy(&mut copies, c);
                    }
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
                    // A callee that overwrites a global holding the cell (`release_globals`).
                    if let Some(m) = model.filter(|m| !m.lib && !m.global_overwrites.is_empty()) {
                        let overwritten = |g: &String| m.global_overwrites.iter().any(|o| **o == **g);
                        let hit = globals.iter().find(|g| overwritten(g)).cloned();
                        globals.retain(|g| !overwritten(g));
                        if let (Some(global), true, true) =
                            (hit, globals.is_empty() && holders.is_empty(), goal == WalkGoal::Leak)
                        {
                            let callee = m.name.to_string();
                            steps.push(Step::Lost { loc, how: Lost::OverwrittenInCallee { global, callee } });
                            return steps;
                        }
                    }
                    let mut redefined = Vec::new();
                    let frees_before = frees_seen;
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
                            if holders.is_empty() && globals.is_empty() && had > 0 && goal == WalkGoal::Leak {
                                let what = cx.key_text(name);
                                steps.push(Step::Lost { loc, how: Lost::ContainerFreed(what) });
                                return steps;
                            }
                        }
                        // A summarised callee that loses the slots below the argument that hold
                        // the cell (`conn_close (c)` freeing `c->in` with `c->in->data` in it),
                        // as the pass's `PathFate::Lost` does.
                        let summarised = model.filter(|m| !m.lib && goal == WalkGoal::Leak);
                        if let (Some(m), Some((root, prefix))) = (summarised, cx.arg_slots(a)) {
                            let had = holders.len();
                            // Also below locals holding the value of a slot it reaches.
                            let roots = [root];
                            let lost_by_copy: Vec<Key> =
                                copied_reach(cx, &copies, holders.iter().copied(), &roots, &prefix)
                                    .filter(|(_, path)| m.path_fate(i, path) == PathFate::Lost)
                                    .map(|(k, _)| k)
                                    .collect();
                            let member = is_member_prefix(&prefix);
                            holders.retain(|k| {
                                let rest = (k.root == root && !k.is_local())
                                    .then(|| cx.path_text(k.path).strip_prefix(&*prefix))
                                    .flatten()
                                    .filter(|rest| {
                                        prefix.is_empty() || rest.is_empty() || rest.starts_with(['.', '*', '['])
                                    });
                                let container = member.then(|| container_path(cx, *k));
                                prefix.contains('[')
                                    || rest.is_none_or(|rest| {
                                        callee_fate(m, i, &format!("*{rest}"), container.as_deref()) != PathFate::Lost
                                    }) && !lost_by_copy.contains(k)
                            });
                            if holders.is_empty() && globals.is_empty() && had > 0 {
                                steps.push(Step::Lost { loc, how: Lost::InCallee(m.name.to_string()) });
                                return steps;
                            }
                        }
                        if !held(&holders, a) {
                            continue;
                        }
                        match effect {
                            Some(ArgEffect::Frees) => {
                                steps.push(Step::Free { loc, again: false });
                                frees_seen += 1;
                            }
                            Some(ArgEffect::FreesWhen { on_success, .. }) => {
                                let ok = cx.success_atom.get(sid).is_none_or(|a| value(*a).unwrap_or(true));
                                if ok == on_success {
                                    steps.push(Step::Free { loc, again: false });
                                    frees_seen += 1;
                                } else if on_success {
                                    steps.push(Step::CallFails { stmt: *sid, loc });
                                }
                            }
                            Some(ArgEffect::FreesIfArg { flag, when }) => {
                                let set = cx.flag_atom.get(&(*sid, flag, -1)).and_then(|a| value(*a));
                                if set == Some(when) {
                                    steps.push(Step::Free { loc, again: false });
                                    frees_seen += 1;
                                }
                            }
                            _ => {}
                        }
                    }
                    if goal == WalkGoal::SecondFree && frees_seen >= 2 {
                        return steps;
                    }
                    if goal == WalkGoal::FreeAt(*sid) && frees_seen > frees_before {
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
                    // The callee may have written any slot its arguments reach.
                    for a in args {
                        if let Some((root, _)) = cx.arg_slots(a) {
                            let roots = names(&alias, root);
                            copies.retain(|c| !roots.contains(&c.1.root));
                        }
                    }
                    if let Some(d) = dst {
                        if let Some(k) = cx.key_of(d).filter(|k| !k.is_local()) {
                            let roots = if cx.path_text(k.path).starts_with('*') {
                                names(&alias, k.root)
                            } else {
                                vec![k.root]
                            };
                            forget_copies_of(cx, &mut copies, &roots, k);
                        }
                        if let Some(l) = d.as_local() {
                            copies.retain(|c| c.0 != l && c.1.root != l);
                        }
                    }
                    for k in redefined {
                        if let Some(step) = drop_holder(cx, &mut holders, k, loc) {
                            if goal == WalkGoal::Leak && globals.is_empty() {
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
                        let mut lost = assign_holder(cx, &mut holders, d, carries, loc);
                        if let Some(name) = crate::global_leaks::global_path(d) {
                            let had = !globals.is_empty();
                            globals.retain(|g| *g != name);
                            if carries {
                                globals.push(name.clone());
                            } else if had && globals.is_empty() && holders.is_empty() {
                                lost = Some(Step::Lost { loc, how: Lost::Overwritten(name) });
                            }
                        }
                        if let Some(step) = lost.filter(|_| globals.is_empty()) {
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
            Terminator::NoReturn => {
                if goal == WalkGoal::Leak && func.throws_at(cx.dag.block[node.index()]) {
                    steps.push(Step::Lost { loc: block.term_loc, how: Lost::Throw });
                }
                return steps;
            }
            _ => {}
        }
        let succs = &cx.dag.succs[node.index()];
        let sure_then = match &block.term {
            Terminator::Branch { cond: c, .. } if !cx.dag.is_copy(node) => match &c.kind {
                CondKind::Truthy(op) => {
                    let in_global = matches!(op, Operand::Place(p)
                        if crate::global_leaks::global_path(p).is_some_and(|g| globals.contains(&g)));
                    (held(&holders, op) || in_global) && !op.local().is_some_and(|y| maybe_null.contains(&y))
                }
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
        // Leaving from a header's copy: the later iteration assigned these locals on its way
        // out, so they no longer hold this iteration's cell.
        if cx.dag.is_copy(node) {
            let kills = cx.dag.kills(node, *t);
            // The locals the later iteration put back to a holder's value (`Later::restored`).
            let held: Vec<LocalId> = holders.iter().filter(|h| h.is_local()).map(|h| h.root).collect();
            let later = cx.dag.later.get(&node.0).filter(|_| !kills.is_empty() && !held.is_empty());
            let restored: Vec<LocalId> = match later.and_then(|it| Some((it, exits_from(cx, it, *t)?))) {
                Some((it, from)) => {
                    let pos: hashbrown::HashMap<u32, usize> =
                        it.nodes.iter().enumerate().map(|(i, v)| (v.0, i)).collect();
                    kills.iter().copied().filter(|k| held.iter().any(|x| restores(cx, &pos, &from, *x, *k))).collect()
                }
                None => Vec::new(),
            };
            // Only the local itself, as the flow puts it back after the kills.
            for &l in &restored {
                holders.retain(|h| h.root != l || h.is_local());
                if !holders.contains(&Key::local(l)) {
                    holders.push(Key::local(l));
                }
            }
            for &l in kills.iter().filter(|l| !restored.contains(l)) {
                let before = holders.len();
                holders.retain(|h| h.root != l);
                if before > 0 && holders.is_empty() {
                    if goal == WalkGoal::Leak {
                        let loc =
                            cx.dag.later.get(&node.0).and_then(|it| later_def_loc(cx, it, l)).unwrap_or(block.term_loc);
                        steps.push(Step::Lost { loc, how: Lost::NextIteration(cx.key_text(Key::local(l))) });
                    }
                    return steps;
                }
            }
            // The loop runs again and frees a local still holding the freed cell, as the flow
            // decided with `Later::frees_again`, asked again with this model's atoms.
            let again = cx.dag.again.get(&node.0).filter(|it| {
                it.runs_again.is_some_and(atom_value)
                    && holders.iter().any(|h| h.is_local() && it.freed.binary_search(&h.root).is_ok())
            });
            if let Some(it) = again.filter(|_| goal == WalkGoal::SecondFree && frees_seen > 0) {
                let st = walk_state(&holders, &maybe_null);
                let mut guards = Guards::with_capacity(WALK_GUARD_NODES, 0);
                let later = Later::new(cx, &mut guards, &st, node, it, fold, node0);
                for (x, g) in later.frees_again(cx, &mut guards, &st) {
                    if !guards.over_budget() && holds(&guards, g, &atom_value) {
                        let loc = later_free_loc(cx, it, x).unwrap_or(block.term_loc);
                        steps.push(Step::Free { loc, again: true });
                        return steps;
                    }
                }
            }
            // The loop runs again and overwrites a local still holding the cell, as the flow
            // decided with `Later::overwrites`, asked again with this model's atoms.
            let again = cx.dag.again.get(&node.0).or(cx.dag.later.get(&node.0)).filter(|it| {
                it.runs_again.is_some_and(atom_value)
                    && holders.iter().any(|h| h.is_local() && it.defined.binary_search(&h.root).is_ok())
            });
            // The same for the named globals holding the cell (`Later::overwrites_globals`).
            let it_globals = cx
                .dag
                .again
                .get(&node.0)
                .or(cx.dag.later.get(&node.0))
                .filter(|it| it.runs_again.is_some_and(atom_value) && !globals.is_empty());
            if let Some(it) = it_globals {
                let mut st = walk_state(&holders, &maybe_null);
                let mut named: Vec<(std::sync::Arc<str>, GuardId)> =
                    globals.iter().map(|g| (std::sync::Arc::from(g.as_str()), GuardId::TRUE)).collect();
                named.sort();
                named.dedup();
                st.globals = named;
                let mut guards = Guards::with_capacity(WALK_GUARD_NODES, 0);
                let later = Later::new(cx, &mut guards, &st, node, it, fold, node0);
                for (name, g) in later.overwrites_globals(cx, &mut guards, &st) {
                    if !guards.over_budget() && holds(&guards, g, &atom_value) {
                        globals.retain(|n| **n != *name);
                        if globals.is_empty() && holders.is_empty() {
                            if goal == WalkGoal::Leak {
                                let loc = later_global_store_loc(cx, it, &name).unwrap_or(block.term_loc);
                                steps.push(Step::Lost { loc, how: Lost::NextIteration(name.to_string()) });
                            }
                            return steps;
                        }
                    }
                }
            }
            if let Some(it) = again {
                let st = walk_state(&holders, &maybe_null);
                let mut guards = Guards::with_capacity(WALK_GUARD_NODES, 0);
                let later = Later::new(cx, &mut guards, &st, node, it, fold, node0);
                for (x, g) in later.overwrites(cx, &mut guards, &st) {
                    if !guards.over_budget() && holds(&guards, g, &atom_value) {
                        holders.retain(|h| *h != Key::local(x));
                        if holders.is_empty() {
                            if goal == WalkGoal::Leak {
                                let loc = later_def_loc(cx, it, x).unwrap_or(block.term_loc);
                                steps.push(Step::Lost { loc, how: Lost::NextIteration(cx.key_text(Key::local(x))) });
                            }
                            return steps;
                        }
                    }
                }
            }
        }
        node = *t;
        first = 0;
    }
    steps
}

/// The guard nodes `walk` may make to ask `Later::overwrites` again (a loop body's worth).
const WALK_GUARD_NODES: usize = 200_000;

/// The flow's state for the walk's holders (each surely), to ask `Later` again at a copy.
fn walk_state(holders: &[Key], maybe_null: &[LocalId]) -> State {
    let mut h: Vec<(Key, GuardId)> = holders.iter().map(|k| (*k, GuardId::TRUE)).collect();
    h.sort_unstable();
    h.dedup();
    let mut maybe_null = maybe_null.to_vec();
    maybe_null.sort_unstable();
    maybe_null.dedup();
    State { p: GuardId::TRUE, h, maybe_null, ..State::default() }
}

/// Where later iteration `it` of a loop first stores into the named global `name`.
fn later_global_store_loc(cx: &CheckCx, it: &LaterIteration, name: &str) -> Option<Loc> {
    it.nodes.iter().skip(1).filter(|v| !cx.dag.is_copy(**v)).find_map(|v| {
        cx.stmts_of(*v).iter().find_map(|sid| {
            let dst = match cx.func.stmt(*sid) {
                Stmt::Assign { dst, .. } => Some(dst),
                Stmt::Call { dst, .. } => dst.as_ref(),
            };
            dst.and_then(crate::global_leaks::global_path).is_some_and(|p| p == name).then(|| cx.func.stmt_loc(*sid))
        })
    })
}

/// Where later iteration `it` of a loop first frees `l` (in the body's order, after the header
/// the copy ran): the call that passes it to a deallocator.
fn later_free_loc(cx: &CheckCx, it: &LaterIteration, l: LocalId) -> Option<Loc> {
    it.nodes.iter().skip(1).filter(|v| !cx.dag.is_copy(**v)).find_map(|v| {
        cx.stmts_of(*v).iter().find_map(|sid| {
            let Stmt::Call { args, .. } = cx.func.stmt(*sid) else { return None };
            let m = cx.model(*sid)?;
            let frees = args.iter().enumerate().any(|(i, a)| {
                a.local() == Some(l) && matches!(m.arg_effect(i), Some(ArgEffect::Frees | ArgEffect::FreesWhen { .. }))
            });
            frees.then(|| cx.func.stmt_loc(*sid))
        })
    })
}

/// Whether guard `g` holds where the atoms have the values `value` gives (each shared node
/// evaluated once: guards are DAGs).
fn holds(guards: &Guards, g: GuardId, value: &impl Fn(AtomId) -> bool) -> bool {
    fn go(
        guards: &Guards,
        g: GuardId,
        value: &impl Fn(AtomId) -> bool,
        memo: &mut hashbrown::HashMap<GuardId, bool>,
    ) -> bool {
        if let Some(v) = memo.get(&g) {
            return *v;
        }
        let v = match guards.node(g) {
            crate::guard::Node::False => false,
            crate::guard::Node::True => true,
            crate::guard::Node::Lit { atom, positive } => value(atom) == positive,
            crate::guard::Node::And(kids) => kids.iter().all(|k| go(guards, *k, value, memo)),
            crate::guard::Node::Or(kids) => kids.iter().any(|k| go(guards, *k, value, memo)),
            crate::guard::Node::Not(k) => !go(guards, k, value, memo),
        };
        memo.insert(g, v);
        v
    }
    go(guards, g, value, &mut hashbrown::HashMap::new())
}

/// Where later iteration `it` of a loop first assigns `l` (in the body's order), for a path
/// that leaves from the header's copy.
fn later_def_loc(cx: &CheckCx, it: &LaterIteration, l: LocalId) -> Option<Loc> {
    it.nodes.iter().filter(|v| !cx.dag.is_copy(**v)).find_map(|v| {
        let i = cx.first_def(*v, l)?;
        cx.stmts_of(*v).get(i as usize).map(|sid| cx.func.stmt_loc(*sid))
    })
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
