//! Pointer equality made by assignments, followed along paths: after `s = c ? copy(t) : t`,
//! `s == t` holds on the paths where `c` is false, so `if (s != t) free(s); free(t);` frees `t`
//! once (bash's `expand_and_quote_kvpair_word`; `icxt = invalid ? new_ctx() : tcxt` in
//! `maybe_make_export_env`). Reaching definitions alone cannot say it: at the test, `s` has two
//! definitions, and which one reached depends on the path.
//!
//! Input: a completed `FnCx`. Output: `Table`, built once per function (`FnCx::equal_table`): the
//! branches that compare two tracked pointer locals (`a == b`, `a != b`), and the locals whose
//! values those tests read, directly or through copies (the *followed* locals). The value-flow
//! pass (`fastcheck::flow`) carries `Values`: for each followed local, the values it may hold,
//! each an `Origin` with the guard under which the local holds it; at a tested branch, the side
//! that says "different" is cut where both locals hold one origin.
//!
//! Invariants:
//! - An origin is one value: what one statement of one DAG node gave one local (a node is on a
//!   path at most once, so such a statement runs at most once on a path), a local's value on
//!   entry, its value where the pass started when no single definition gave it, or the value a
//!   later loop iteration gave it on a loop's exit edge (`Dag::exit_kills`). Only a plain copy
//!   (`l = y`) hands an origin on; every other definition of a local (a call, arithmetic, a load,
//!   an out-parameter) makes a new one. So two locals holding one origin are equal, and two
//!   different origins say nothing: the "equal" side is never cut.
//! - It only ever cuts paths (as `Exit` events, like the facts of `facts.rs`); it creates no
//!   free, return or hand-off. Dropping an origin anywhere is sound (less is known equal).
//! - A function with no such test follows nothing and pays nothing.

use crate::cfg::{DagNode, Def, FnCx};
use crate::guard::{GuardId, Guards};
use crate::ir::{BlockId, CmpOp, CondKind, LocalId, Operand, Place, Rvalue, Stmt, StmtId, Terminator};

/// More followed locals than this and the rest are not followed (a copy from one of them makes
/// a new origin, which is sound); tests of two locals are rare, and chains of copies short.
const MAX_LOCALS: usize = 64;
/// More origins than this for one local and the rest are dropped (sound: less is known equal).
const MAX_ORIGINS: usize = 16;

/// The tests of one function that compare two pointer locals, and the locals they depend on.
#[derive(Default)]
pub struct Table {
    /// By block, sorted: the two locals compared and whether `then_` is the equal side.
    tests: Vec<(BlockId, LocalId, LocalId, bool)>,
    /// The followed locals, sorted: the compared ones and, through copies, where their values
    /// come from.
    locals: Vec<LocalId>,
    /// The followed locals some copy into another followed local reads, sorted: only their own
    /// definitions make values another name can share. Any other local's definition leaves it
    /// holding nothing known (the same answer, for less work).
    sources: Vec<LocalId>,
    /// By DAG node: some tested branch can still be reached from it. Past the last one, nothing
    /// is followed (what a pass would carry there decides nothing).
    ahead: Vec<bool>,
}

impl Table {
    pub fn build(cx: &FnCx) -> Table {
        let func = cx.func;
        let mut tests = Vec::new();
        let pointer = |l: LocalId| cx.is_tracked(l) && func.local(l).is_pointer;
        for b in func.block_ids() {
            let Terminator::Branch { cond, .. } = &func.block(b).term else { continue };
            let CondKind::Cmp(
                op @ (CmpOp::Eq | CmpOp::Ne),
                Operand::Place(Place::Local(a)),
                Operand::Place(Place::Local(c)),
            ) = &cond.kind
            else {
                continue;
            };
            if a != c && pointer(*a) && pointer(*c) {
                tests.push((b, *a, *c, *op == CmpOp::Eq));
            }
        }
        if tests.is_empty() {
            return Table::default();
        }
        let mut locals: Vec<LocalId> = tests.iter().flat_map(|t| [t.1, t.2]).collect();
        locals.sort_unstable();
        locals.dedup();
        // Where the compared values come from: the sources of copies into followed locals.
        loop {
            let before = locals.len();
            for s in &func.stmts {
                if let Some((l, y)) = copy_of(s) {
                    if cx.is_tracked(y) && locals.binary_search(&l).is_ok() {
                        if let Err(i) = locals.binary_search(&y) {
                            locals.insert(i, y);
                        }
                    }
                }
            }
            if locals.len() == before || locals.len() >= MAX_LOCALS {
                break;
            }
        }
        locals.truncate(MAX_LOCALS);
        let follows = |l: LocalId| locals.binary_search(&l).is_ok();
        let mut sources: Vec<LocalId> = func
            .stmts
            .iter()
            .filter_map(copy_of)
            .filter(|&(l, y)| l != y && follows(l) && follows(y))
            .map(|c| c.1)
            .collect();
        sources.sort_unstable();
        sources.dedup();
        let dag = &cx.dag;
        let mut ahead = vec![false; dag.len()];
        for n in dag.topo.iter().rev() {
            let tested = !dag.is_copy(*n) && tests.binary_search_by_key(&dag.block[n.index()], |t| t.0).is_ok();
            ahead[n.index()] = tested || dag.succs[n.index()].iter().any(|(s, _)| ahead[s.index()]);
        }
        Table { tests, locals, sources, ahead }
    }

    pub fn is_empty(&self) -> bool {
        self.locals.is_empty()
    }

    fn follows(&self, l: LocalId) -> bool {
        self.locals.binary_search(&l).is_ok()
    }
}

/// `l = y`, a plain copy of one local into another.
fn copy_of(s: &Stmt) -> Option<(LocalId, LocalId)> {
    match s {
        Stmt::Assign { dst: Place::Local(l), src: Rvalue::Use(Operand::Place(Place::Local(y))) } => Some((*l, *y)),
        _ => None,
    }
}

/// One value a local may hold (see the module's invariants).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Origin {
    /// The value definition `.0` gave local `.1`: `Def::At` a statement, `Def::Entry` the value
    /// on entry, `Def::Later` the value a later iteration gave it on the exit edge from that
    /// loop header copy.
    Def(Def, LocalId),
    /// The value the local had where the pass started, not known as one definition's.
    Start(LocalId),
}

/// What the followed locals may hold at a point of one pass: (local, origin, guard), sorted by
/// local and origin, no FALSE guard.
#[derive(Clone, Default)]
pub struct Values(Vec<(LocalId, Origin, GuardId)>);

impl Values {
    /// Where a pass starts, before statement `idx` of `node`, reached on every path of the pass:
    /// each followed local holds the value its reaching definitions give it through copies, when
    /// they agree on one (`FnCx::value_root`), else a value of its own.
    pub fn start(cx: &FnCx, node: DagNode, idx: usize) -> Values {
        let table = cx.equal_table();
        if !table.ahead.get(node.index()).copied().unwrap_or(false) {
            return Values::default();
        }
        let mut v: Vec<(LocalId, Origin, GuardId)> = table
            .locals
            .iter()
            .map(|&x| {
                let origin = cx.value_root(x, node, idx, 8).map_or(Origin::Start(x), |(d, l)| Origin::Def(d, l));
                (x, origin, GuardId::TRUE)
            })
            .collect();
        v.sort_unstable_by_key(|e| (e.0, e.1));
        Values(v)
    }

    fn of(&self, l: LocalId) -> &[(LocalId, Origin, GuardId)] {
        let from = self.0.partition_point(|e| e.0 < l);
        let to = from + self.0[from..].partition_point(|e| e.0 == l);
        &self.0[from..to]
    }

    /// `l` now holds exactly `origins` (sorted by origin).
    fn set(&mut self, l: LocalId, origins: impl IntoIterator<Item = (Origin, GuardId)>) {
        let from = self.0.partition_point(|e| e.0 < l);
        let to = from + self.0[from..].partition_point(|e| e.0 == l);
        let new: Vec<(LocalId, Origin, GuardId)> =
            origins.into_iter().filter(|o| o.1 != GuardId::FALSE).take(MAX_ORIGINS).map(|(o, g)| (l, o, g)).collect();
        self.0.splice(from..to, new);
    }

    /// Statement `sid`, statement `at.1` of DAG node `at.0`, reached under `p`.
    pub fn transfer(&mut self, cx: &FnCx, sid: StmtId, at: (u32, u32), p: GuardId) {
        let table = cx.equal_table();
        if table.is_empty() {
            return;
        }
        let def = |l: LocalId| Origin::Def(Def::At { node: DagNode(at.0), idx: at.1 }, l);
        if let Some((l, y)) = copy_of(cx.func.stmt(sid)) {
            if table.follows(l) {
                if l != y {
                    let from: Vec<(Origin, GuardId)> = self.of(y).iter().map(|e| (e.1, e.2)).collect();
                    if from.is_empty() {
                        // `y` holds nothing known: name its value here, which both now hold.
                        self.set(l, [(def(l), p)]);
                        if table.follows(y) {
                            self.set(y, [(def(l), p)]);
                        }
                    } else {
                        self.set(l, from);
                    }
                }
                return;
            }
        }
        let mut defined = Vec::new();
        cx.defined_locals(sid, &mut defined);
        for l in defined {
            if table.sources.binary_search(&l).is_ok() {
                self.set(l, [(def(l), p)]);
            } else if table.follows(l) {
                self.set(l, []);
            }
        }
    }

    /// Along the edge `from → to` with label guard `label`, `from` reached under `here`. Locals
    /// a later loop iteration redefined on it (`Dag::kills`) hold that iteration's value.
    pub fn along(&mut self, cx: &FnCx, guards: &mut Guards, here: GuardId, label: GuardId, from: DagNode, to: DagNode) {
        if self.0.is_empty() {
            return;
        }
        let table = cx.equal_table();
        if !table.ahead.get(to.index()).copied().unwrap_or(true) {
            self.0.clear();
            return;
        }
        // The pass made this conjunction already: remembered, not rebuilt.
        let p = guards.and(here, label);
        self.0.retain_mut(|(_, _, g)| {
            *g = if *g == here { p } else { guards.and(*g, label) };
            *g != GuardId::FALSE
        });
        for &l in cx.dag.kills(from, to) {
            if table.follows(l) {
                self.set(l, [(Origin::Def(Def::Later { copy: from }, l), p)]);
            }
        }
    }

    /// Merge `incoming` (reached under `in_p`) into `self` (reached under `old_p`); the merge is
    /// reached under `new_p`.
    pub fn merge(&mut self, guards: &mut Guards, incoming: Values, old_p: GuardId, in_p: GuardId, new_p: GuardId) {
        for (l, o, g) in incoming.0 {
            match self.0.binary_search_by_key(&(l, o), |e| (e.0, e.1)) {
                // Held on every path of both sides: held wherever the merge is reached.
                Ok(i) if self.0[i].2 == old_p && g == in_p => self.0[i].2 = new_p,
                Ok(i) => self.0[i].2 = guards.or(self.0[i].2, g),
                Err(i) => self.0.insert(i, (l, o, g)),
            }
        }
    }

    /// At the branch of DAG node `node`: the guard under which its two compared locals hold one
    /// value, and whether `then_` is the equal side. `None` when the node compares no followed
    /// locals or they are never known equal here.
    pub fn equal_at(&self, cx: &FnCx, guards: &mut Guards, node: DagNode) -> Option<(GuardId, bool)> {
        if self.0.is_empty() || cx.dag.is_copy(node) {
            return None;
        }
        let table = cx.equal_table();
        let block = cx.dag.block[node.index()];
        let i = table.tests.binary_search_by_key(&block, |t| t.0).ok()?;
        let (_, a, b, eq_is_then) = table.tests[i];
        let mut eq = GuardId::FALSE;
        for &(_, oa, ga) in self.of(a) {
            if let Some(&(_, _, gb)) = self.of(b).iter().find(|e| e.1 == oa) {
                let both = guards.and(ga, gb);
                eq = guards.or(eq, both);
            }
        }
        (eq != GuardId::FALSE).then_some((eq, eq_is_then))
    }
}
