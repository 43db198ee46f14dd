//! What a function returns when one of its parameters holds a given constant: the preconditioned
//! summaries of Dillig et al. (`../shared/papers/modular-heap-summaries.txt`), for two facts.
//!
//! git's `do_xmalloc(size, gentle)` returns NULL only when `gentle` is non-zero (its
//! `memory_limit_check(size, gentle)` fails only then, and a failed `malloc` dies unless gentle),
//! and `xmalloc(n)` is `do_xmalloc(n, 0)`: so `xmalloc` never returns NULL, and neither does
//! `xrealloc`, whose size-0 branch returns `xmalloc(0)`. A summary that says only "may be NULL"
//! loses that, and a caller's `if (!tmp) free(p)` after `tmp = xrealloc(p, n)` becomes a double
//! free.
//!
//! Input: a function's IR and its calls' models (`Model`, including the raw `never_null_when` and
//! `ret_const_when` of summarised callees). Output: `never_null` (every reachable `return` hands
//! back a pointer that is not NULL, a fresh block or one taken off a free list, with no
//! precondition), `never_null_when` (the same when
//! parameter `i` is the constant `c`), `ret_const_when` (every reachable `return` returns one
//! constant when parameter `i` is `c`), an allocator's `null_when` (every reachable `return`
//! returns NULL then) and `noreturn_when` (no `return` is reachable then, of a function that may
//! end the program and returns without a precondition), and `ret_const` (every reachable
//! `return` returns one constant given only what every caller passes: libgit2's argument checks
//! of `&m->pool`) and `ret_const_checked` (the same when the pointer parameters it tests for
//! NULL are not, for the calls whose arguments pass those checks).
//!
//! How: a forward constant propagation over the CFG (loops to a fixpoint), whose values per local
//! are a constant, "not zero", "a fresh block, maybe NULL" and "a fresh block, not NULL"; branches
//! on those values take only the side they allow and refine the tested local on each side, and a
//! call with a `*_when` row whose argument holds its constant gives the callee's preconditioned
//! answer. The parameters every caller passes non-NULL (`nonnull`) start as "not zero", and no
//! precondition makes one of them 0. Invariants: a local whose address is taken is never given
//! a value (a store through a pointer could change it); the analysis gives up (answers nothing)
//! past a fixed amount of work; without a precondition an unreachable `return` is one no path
//! reaches at all.

use crate::ir::{BlockId, CmpOp, CondKind, Function, LocalId, Operand, Place, Rvalue, Stmt, StmtId, Terminator};
use crate::libmodel::{RetEffect, Success};
use crate::model::Model;

/// What a local holds at a point, for every path reaching it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Const(i64),
    NonZero,
    /// The result of an allocation, or NULL.
    MaybeFresh,
    /// The result of an allocation that is not NULL.
    Fresh,
}

impl Val {
    /// The value on every path of two, `None` for "anything".
    fn join(a: Val, b: Val) -> Option<Val> {
        use Val::*;
        match (a, b) {
            _ if a == b => Some(a),
            (Const(0) | Fresh | MaybeFresh, Const(0) | Fresh | MaybeFresh) => Some(MaybeFresh),
            (Const(_) | NonZero | Fresh, Const(_) | NonZero | Fresh) if a != Const(0) && b != Const(0) => Some(NonZero),
            _ => None,
        }
    }

    fn truth(self) -> Option<bool> {
        match self {
            Val::Const(k) => Some(k != 0),
            Val::NonZero | Val::Fresh => Some(true),
            Val::MaybeFresh => None,
        }
    }
}

/// The known values of the locals at a point, sorted by local; a local not listed may hold
/// anything.
type State = Vec<(LocalId, Val)>;

fn get(s: &State, x: LocalId) -> Option<Val> {
    s.binary_search_by_key(&x, |e| e.0).ok().map(|i| s[i].1)
}

fn set(s: &mut State, x: LocalId, v: Option<Val>) {
    match (s.binary_search_by_key(&x, |e| e.0), v) {
        (Ok(i), Some(v)) => s[i].1 = v,
        (Ok(i), None) => {
            s.remove(i);
        }
        (Err(i), Some(v)) => s.insert(i, (x, v)),
        (Err(_), None) => {}
    }
}

fn join_states(a: &State, b: &State) -> State {
    a.iter().filter_map(|&(x, va)| Some((x, Val::join(va, get(b, x)?)?))).collect()
}

/// Work allowed per analysis, in block visits: a function that needs more gets no answer.
const MAX_VISITS: usize = 20_000;

/// The analysis of one function: its IR, its calls' models and the locals it may follow.
struct Cx<'f, M> {
    func: &'f Function,
    model: M,
    addressed: Vec<bool>,
    /// Parameters every caller passes non-NULL (bit `i`: `cfg::FnCx::nonnull_params`).
    nonnull: u64,
}

impl<'f, 'm: 'f, M: Fn(StmtId) -> Option<&'f Model<'m>>> Cx<'f, M> {
    fn new(func: &'f Function, model: M, nonnull: u64) -> Self {
        let mut addressed = vec![false; func.locals.len()];
        for s in &func.stmts {
            if let Stmt::Assign { src: Rvalue::AddrOf(p), .. } = s {
                if let Some(l) = p.storage_local() {
                    addressed[l.index()] = true;
                }
            }
        }
        Cx { func, model, addressed, nonnull }
    }

    fn value(&self, s: &State, op: &Operand) -> Option<Val> {
        match op {
            Operand::Const(k) => Some(Val::Const(*k)),
            Operand::Str | Operand::Func { .. } => Some(Val::NonZero),
            Operand::Place(Place::Local(x)) => get(s, *x),
            _ => None,
        }
    }

    fn assign(&self, s: &mut State, dst: &Place, v: Option<Val>) {
        match dst {
            Place::Local(x) if !self.addressed[x.index()] => set(s, *x, v),
            // A store into part of a local's own storage (a field, an element): its whole value is
            // no longer the one followed.
            other => {
                if let Some(x) = other.storage_local() {
                    set(s, x, None);
                }
            }
        }
    }

    /// The value a call's result holds, `Err(())` when the call ends the path.
    fn call_value(&self, s: &State, sid: StmtId, args: &[Operand]) -> Result<Option<Val>, ()> {
        let Some(m) = (self.model)(sid) else { return Ok(None) };
        if m.noreturn {
            return Err(());
        }
        let holds = |i: usize, c: i64| args.get(i).and_then(|a| self.value(s, a)) == Some(Val::Const(c));
        if let Some(k) = m.ret_const.or_else(|| m.ret_const_when.filter(|w| holds(w.0, w.1)).map(|w| w.2)) {
            return Ok(Some(Val::Const(k)));
        }
        if m.null_when.iter().any(|w| holds(w.0, w.1)) {
            return Ok(Some(Val::Const(0)));
        }
        Ok(match m.ret {
            RetEffect::Fresh(Success::NonNull) if m.fresh_if_arg.is_none() => {
                if m.never_null || m.never_null_when.is_some_and(|w| holds(w.0, w.1)) {
                    Some(Val::Fresh)
                } else {
                    Some(Val::MaybeFresh)
                }
            }
            // `strcpy (xmalloc (n), s)` is not NULL when its first argument is not.
            RetEffect::ArgAlias(i) if m.ret_is_arg => {
                args.get(i).and_then(|a| self.value(s, a)).filter(|v| matches!(v, Val::NonZero | Val::Fresh))
            }
            _ => None,
        })
    }

    /// The state at the end of block `b`'s statements, `None` when a call ends the path there.
    fn through_block(&self, b: BlockId, mut s: State) -> Option<State> {
        for &sid in &self.func.block(b).stmts {
            self.dereferenced(&mut s, self.func.stmt(sid));
            match self.func.stmt(sid) {
                Stmt::Assign { dst, src } => {
                    let v = match src {
                        Rvalue::Use(op) => self.value(&s, op),
                        Rvalue::AddrOf(_) => Some(Val::NonZero),
                        Rvalue::Opaque(_) => None,
                    };
                    self.assign(&mut s, dst, v);
                }
                Stmt::Call { dst, args, .. } => {
                    let v = self.call_value(&s, sid, args).ok()?;
                    if let Some(d) = dst {
                        self.assign(&mut s, d, v);
                    }
                }
            }
        }
        Some(s)
    }

    /// A statement that reads or writes through a local pointer (`b->wds`, `*p = c`) runs only
    /// where it is not NULL: from there on it is not (dtoa's `multadd (b, ..)` hands back the
    /// `b` it dereferenced, or a fresh block). Before the statement's own assignment, which may
    /// give the local another value (`p = p->next`).
    fn dereferenced(&self, s: &mut State, stmt: &Stmt) {
        let mut places: Vec<&Place> = Vec::new();
        match stmt {
            Stmt::Assign { dst, src } => {
                places.push(dst);
                match src {
                    Rvalue::Use(Operand::Place(p)) => places.push(p),
                    Rvalue::Opaque(ops) => places.extend(ops.iter().filter_map(|o| match o {
                        Operand::Place(p) => Some(p),
                        _ => None,
                    })),
                    // `&p->f` computes an address: it reads nothing through `p`.
                    Rvalue::Use(_) | Rvalue::AddrOf(_) => {}
                }
            }
            Stmt::Call { dst, args, .. } => {
                places.extend(dst.iter());
                places.extend(args.iter().filter_map(|o| match o {
                    Operand::Place(p) => Some(p),
                    _ => None,
                }));
            }
        }
        for p in places {
            let mut q = p;
            let x = loop {
                match q {
                    Place::Deref(inner) if inner.as_local().is_some() => break inner.as_local(),
                    Place::Deref(inner) | Place::Field(inner, _) | Place::Index(inner) => q = inner,
                    Place::Local(_) | Place::Global(_) => break None,
                }
            };
            let Some(x) = x.filter(|x| !self.addressed[x.index()]) else { continue };
            match get(s, x) {
                None => set(s, x, Some(Val::NonZero)),
                Some(Val::MaybeFresh) => set(s, x, Some(Val::Fresh)),
                Some(_) => {}
            }
        }
    }

    /// `s` on the edge where the local `x` (or the constant test) compares as `op` with `k` is
    /// `holds`; `None` when that edge is not taken.
    fn refine_cmp(&self, mut s: State, x: Option<LocalId>, op: CmpOp, k: i64, holds: bool) -> Option<State> {
        let op = if holds { op } else { op.negated() };
        let Some(x) = x.filter(|x| !self.addressed[x.index()]) else { return Some(s) };
        let v = get(&s, x);
        match (op, v) {
            (CmpOp::Eq, Some(Val::Const(j))) if j != k => None,
            (CmpOp::Eq, Some(Val::NonZero | Val::Fresh)) if k == 0 => None,
            (CmpOp::Eq, Some(Val::MaybeFresh)) if k != 0 => Some(s),
            (CmpOp::Eq, _) => {
                set(&mut s, x, Some(Val::Const(k)));
                Some(s)
            }
            (CmpOp::Ne, Some(Val::Const(j))) if j == k => None,
            (CmpOp::Ne, Some(Val::MaybeFresh)) if k == 0 => {
                set(&mut s, x, Some(Val::Fresh));
                Some(s)
            }
            (CmpOp::Ne, None) if k == 0 => {
                set(&mut s, x, Some(Val::NonZero));
                Some(s)
            }
            _ => Some(s),
        }
    }

    /// The successors of block `b` with the state on each edge, from `s` at its end.
    fn edges(&self, b: BlockId, s: State, out: &mut Vec<(BlockId, State)>) {
        match &self.func.block(b).term {
            Terminator::Goto(t) => out.push((*t, s)),
            Terminator::Branch { cond, then_, else_ } => {
                // The test as "x OP k" when one side is a followed local or both are known.
                let test: Option<(Option<LocalId>, CmpOp, i64, Option<Val>)> = match &cond.kind {
                    CondKind::Truthy(op) => Some((op.local(), CmpOp::Ne, 0, self.value(&s, op))),
                    CondKind::Cmp(op, a, b) => match (self.value(&s, a), self.value(&s, b)) {
                        (va, Some(Val::Const(k))) => Some((a.local(), *op, k, va)),
                        (Some(Val::Const(k)), vb) => Some((b.local(), op.swapped(), k, vb)),
                        _ => None,
                    },
                    CondKind::Opaque => None,
                };
                let Some((x, op, k, v)) = test else {
                    out.push((*then_, s.clone()));
                    out.push((*else_, s));
                    return;
                };
                let decided = match (op, v) {
                    (CmpOp::Ne, Some(v)) if k == 0 => v.truth(),
                    (CmpOp::Eq, Some(v)) if k == 0 => v.truth().map(|t| !t),
                    // Ordered comparisons only of values whose signedness cannot matter.
                    (CmpOp::Eq | CmpOp::Ne, Some(Val::Const(j))) => Some(CmpOp::eval(op, j, k)),
                    (_, Some(Val::Const(j))) if j >= 0 && k >= 0 => Some(CmpOp::eval(op, j, k)),
                    _ => None,
                };
                for (t, holds) in [(*then_, true), (*else_, false)] {
                    if decided.is_some_and(|d| d != holds) {
                        continue;
                    }
                    if let Some(e) = self.refine_cmp(s.clone(), x, op, k, holds) {
                        out.push((t, e));
                    }
                }
            }
            Terminator::Switch { on, cases, default } => match self.value(&s, on) {
                Some(Val::Const(k)) => {
                    out.push((cases.iter().find(|c| c.0 == k).map_or(*default, |c| c.1), s));
                }
                _ => {
                    for &(k, t) in cases {
                        let mut e = s.clone();
                        if let Some(x) = on.local().filter(|x| !self.addressed[x.index()]) {
                            set(&mut e, x, Some(Val::Const(k)));
                        }
                        out.push((t, e));
                    }
                    out.push((*default, s));
                }
            },
            Terminator::Return(_) | Terminator::NoReturn => {}
        }
    }

    /// The value of every `return` some path reaches (`None` inside: anything, or no operand)
    /// when parameter `pre.0` holds `pre.1` on entry; `None` past the work budget.
    fn returns(&self, pre: Option<(usize, i64)>) -> Option<Vec<Option<Val>>> {
        self.returns_assuming(pre, 0)
    }

    /// `returns`, with the parameters of `assume` (bit `i`) non-NULL on entry as well.
    fn returns_assuming(&self, pre: Option<(usize, i64)>, assume: u64) -> Option<Vec<Option<Val>>> {
        let n = self.func.blocks.len();
        let mut at: Vec<Option<State>> = vec![None; n];
        let mut entry = State::new();
        // What every caller passes (libgit2's `GIT_ASSERT_ARG (pool)` of `&m->pool`).
        for (i, p) in self.func.params().enumerate().take(64) {
            if (self.nonnull | assume) >> i & 1 == 1 && !self.addressed[p.index()] {
                set(&mut entry, p, Some(Val::NonZero));
            }
        }
        if let Some((i, c)) = pre {
            let p = self.func.params().nth(i)?;
            if self.addressed[p.index()] {
                return None;
            }
            set(&mut entry, p, Some(Val::Const(c)));
        }
        at[self.func.entry.index()] = Some(entry);
        let mut work: std::collections::BTreeSet<BlockId> = [self.func.entry].into();
        let mut visits = 0;
        let mut edges = Vec::new();
        // Lowest block first, so that a loop's body settles before what follows it.
        while let Some(b) = work.pop_first() {
            visits += 1;
            if visits > MAX_VISITS {
                return None;
            }
            let Some(s) = at[b.index()].clone() else { continue };
            let Some(end) = self.through_block(b, s) else { continue };
            edges.clear();
            self.edges(b, end, &mut edges);
            for (t, e) in edges.drain(..) {
                let next = match &at[t.index()] {
                    None => e,
                    Some(old) => {
                        let j = join_states(old, &e);
                        if j == *old {
                            continue;
                        }
                        j
                    }
                };
                at[t.index()] = Some(next);
                work.insert(t);
            }
        }
        let mut out = Vec::new();
        for (bi, s) in at.iter().enumerate() {
            let b = BlockId::from_usize(bi);
            let (Some(s), Terminator::Return(op)) = (s, &self.func.block(b).term) else { continue };
            let Some(end) = self.through_block(b, s.clone()) else { continue };
            out.push(op.as_ref().and_then(|op| self.value(&end, op)));
        }
        Some(out)
    }

    /// The preconditions worth trying: a parameter that a branch tests, or that is passed where
    /// a callee's `*_when` row looks for a constant, with that constant (0 for a truth test).
    fn candidates(&self) -> Vec<(usize, i64)> {
        let param = |op: &Operand| op.local().filter(|l| l.index() < self.func.n_params as usize);
        let mut out: Vec<(usize, i64)> = Vec::new();
        for b in &self.func.blocks {
            match &b.term {
                Terminator::Branch { cond, .. } => match &cond.kind {
                    CondKind::Truthy(op) => out.extend(param(op).map(|p| (p.index(), 0))),
                    CondKind::Cmp(_, a, Operand::Const(k)) | CondKind::Cmp(_, Operand::Const(k), a) => {
                        out.extend(param(a).map(|p| (p.index(), *k)))
                    }
                    _ => {}
                },
                Terminator::Switch { on, cases, .. } => {
                    if let Some(p) = param(on) {
                        out.extend(cases.iter().map(|c| (p.index(), c.0)));
                    }
                }
                _ => {}
            }
            for &sid in &b.stmts {
                let (Stmt::Call { args, .. }, Some(m)) = (self.func.stmt(sid), (self.model)(sid)) else { continue };
                let rows = [m.never_null_when, m.ret_const_when.map(|w| (w.0, w.1))].into_iter().flatten();
                for (i, c) in rows.chain(m.null_when.iter().copied()) {
                    out.extend(args.get(i).and_then(param).map(|p| (p.index(), c)));
                }
            }
        }
        // A parameter every caller passes non-NULL is never 0.
        let never_zero = |p: usize| p < 64 && self.nonnull >> p & 1 == 1;
        let impossible = |p: usize, c: i64| self.addressed[p] || (c == 0 && never_zero(p));
        out.retain(|&(p, c)| !impossible(p, c));
        out.sort_unstable();
        out.dedup();
        out.truncate(MAX_CANDIDATES);
        out
    }
}

/// Some `return` may hand back a constant: it returns one, or a local that a statement sets to
/// one (directly, or by a call whose result can be one). Most functions that return computed
/// values are not worth a propagation per precondition.
fn may_return_constant<'f, 'm: 'f>(func: &'f Function, model: &impl Fn(StmtId) -> Option<&'f Model<'m>>) -> bool {
    let mut returned: Vec<LocalId> = Vec::new();
    for b in &func.blocks {
        match &b.term {
            Terminator::Return(Some(Operand::Const(_))) => return true,
            Terminator::Return(Some(op)) => returned.extend(op.local()),
            _ => {}
        }
    }
    func.stmts.iter().enumerate().any(|(si, st)| match st {
        Stmt::Assign { dst: Place::Local(l), src: Rvalue::Use(Operand::Const(_)) } => returned.contains(l),
        Stmt::Call { dst: Some(Place::Local(l)), .. } if returned.contains(l) => {
            model(StmtId::from_usize(si)).is_some_and(|m| m.ret_const.is_some() || m.ret_const_when.is_some())
        }
        _ => false,
    })
}

/// Preconditions tried per function, at most.
const MAX_CANDIDATES: usize = 8;

/// Every return some path reaches hands back a fresh block that is not NULL (and one does).
fn all_fresh(rets: Option<Vec<Option<Val>>>) -> bool {
    rets.is_some_and(|r| !r.is_empty() && r.iter().all(|v| *v == Some(Val::Fresh)))
}

/// Every return some path reaches hands back a pointer that is not NULL (and one does): a
/// fresh block, or one the function had (a block taken off a free list after a test of it, as
/// dtoa's `Balloc` recycles them), which callers see as the allocator's result all the same.
fn all_non_null(rets: Option<Vec<Option<Val>>>) -> bool {
    rets.is_some_and(|r| !r.is_empty() && r.iter().all(|v| matches!(v, Some(Val::Fresh | Val::NonZero))))
}

/// Every return some path reaches hands back NULL (and one does).
fn all_null(rets: &[Option<Val>]) -> bool {
    !rets.is_empty() && rets.iter().all(|v| *v == Some(Val::Const(0)))
}

/// Facts about a function's results, with and without a precondition on a parameter.
pub struct Returns {
    /// Every reachable `return` returns this constant, with no precondition but what every
    /// caller passes (`nonnull`): libgit2's `git_vector_init`-style argument checks that no
    /// caller fails.
    pub ret_const: Option<i64>,
    /// Every reachable `return` returns `.2` when the pointer parameters of `.0` (bit `i`) are
    /// not NULL and, with `.1`, parameter `.1.0` is the constant `.1.1`: an answer for the calls
    /// whose arguments pass the function's argument checks.
    pub ret_const_checked: Option<(u64, Option<(usize, i64)>, i64)>,
    pub never_null: bool,
    pub never_null_when: Option<(usize, i64)>,
    pub ret_const_when: Option<(usize, i64, i64)>,
    /// An allocator's preconditions under which it returns NULL on every path that returns.
    pub null_when: Vec<(usize, i64)>,
    /// Preconditions under which no path returns, of a function that returns on others: groff's
    /// `do_assert (0, ..)`, which ends in `assertion_failed`, behind `assert (0)`.
    pub noreturn_when: Vec<(usize, i64)>,
}

/// The facts of `func` (whose calls have `model`). `allocator`: the function may return a fresh
/// block (only then is "never NULL" asked); `ret_const`: every return is already one constant
/// (then no precondition is asked for it); `nonnull`: the parameters every caller passes
/// non-NULL (bit `i`), taken as such on every path.
pub fn returns<'f, 'm: 'f>(
    func: &'f Function,
    model: impl Fn(StmtId) -> Option<&'f Model<'m>>,
    allocator: bool,
    ret_const: bool,
    nonnull: u64,
) -> Returns {
    let mut out = Returns {
        ret_const: None,
        ret_const_checked: None,
        never_null: false,
        never_null_when: None,
        ret_const_when: None,
        null_when: Vec::new(),
        noreturn_when: Vec::new(),
    };
    // Only a function with a way not to return (a call that never returns, or a block the
    // lowering ended so) is asked whether a precondition leaves it no other.
    let may_end =
        func.blocks.iter().any(|b| matches!(b.term, Terminator::NoReturn))
            || func.stmts.iter().enumerate().any(|(i, s)| {
                matches!(s, Stmt::Call { .. }) && model(StmtId::from_usize(i)).is_some_and(|m| m.noreturn)
            });
    let has_return = func.blocks.iter().any(|b| matches!(b.term, Terminator::Return(Some(_))));
    if !has_return && !may_end {
        return out;
    }
    let cx = Cx::new(func, model, nonnull);
    if may_end && cx.returns(None).is_some_and(|r| !r.is_empty()) {
        for (p, c) in cx.candidates() {
            if cx.returns(Some((p, c))).is_some_and(|r| r.is_empty()) {
                out.noreturn_when.push((p, c));
            }
        }
    }
    if !has_return {
        return out;
    }
    if allocator {
        out.never_null = all_non_null(cx.returns(None));
    }
    let want_null = allocator && !out.never_null;
    // An allocator's result is a block or NULL, never a constant its callers would fold; but
    // one that allocates only for some values of a parameter returns NULL for the others
    // (vim's `ExpandOne_start (mode, ..)` with `mode == WILD_LONGEST`), which its callers use.
    let want_const = !allocator && !ret_const && may_return_constant(func, &cx.model);
    if !want_null && !want_const {
        return out;
    }
    // Only worth a propagation when a test of a parameter every caller passes non-NULL
    // returns early: otherwise `ret_const` already said all there is.
    if want_const && nonnull != 0 {
        if let Some(rets) = cx.returns(None) {
            if let Some(Some(Val::Const(k))) = rets.first() {
                if rets.iter().all(|v| *v == Some(Val::Const(*k))) {
                    out.ret_const = Some(*k);
                    return out;
                }
            }
        }
    }
    for (p, c) in cx.candidates() {
        let Some(rets) = cx.returns(Some((p, c))) else { continue };
        if want_null && all_null(&rets) {
            out.null_when.push((p, c));
            continue;
        }
        if want_null && out.never_null_when.is_none() && all_fresh(Some(rets.clone())) {
            out.never_null_when = Some((p, c));
        }
        if want_const && out.ret_const_when.is_none() {
            if let Some(Some(Val::Const(k))) = rets.first() {
                if rets.iter().all(|v| *v == Some(Val::Const(*k))) {
                    out.ret_const_when = Some((p, c, *k));
                }
            }
        }
        // Every candidate may add a NULL precondition; the others need only one answer.
        if !want_null && (!want_const || out.ret_const_when.is_some()) {
            break;
        }
    }
    if want_const {
        out.ret_const_checked = checked_answer(&cx);
    }
    out
}

/// The constant every reachable `return` of `cx`'s function returns when the pointer parameters
/// it tests for NULL are not (`Summary::ret_const_checked`), alone or with one constant
/// parameter: libgit2's `git_pool_init (pool, item_size)` fails only on its argument checks.
fn checked_answer<'f, 'm: 'f, M: Fn(StmtId) -> Option<&'f Model<'m>>>(
    cx: &Cx<'f, M>,
) -> Option<(u64, Option<(usize, i64)>, i64)> {
    let pointer = |p: usize| cx.func.params().nth(p).is_some_and(|l| cx.func.local(l).is_pointer);
    let candidates = cx.candidates();
    let checked =
        candidates.iter().filter(|&&(p, c)| c == 0 && p < 64 && pointer(p)).fold(0u64, |m, &(p, _)| m | 1 << p);
    if checked == 0 {
        return None;
    }
    let one = |rets: Option<Vec<Option<Val>>>| match rets?.as_slice() {
        [Some(Val::Const(k)), rest @ ..] if rest.iter().all(|v| *v == Some(Val::Const(*k))) => Some(*k),
        _ => None,
    };
    if let Some(k) = one(cx.returns_assuming(None, checked)) {
        return Some((checked, None, k));
    }
    candidates
        .into_iter()
        .filter(|&(p, c)| !(c == 0 && p < 64 && checked >> p & 1 == 1))
        .find_map(|(p, c)| one(cx.returns_assuming(Some((p, c)), checked)).map(|k| (checked, Some((p, c)), k)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{build_program, FrontendOptions};
    use crate::ir::{Callee, Program};

    fn lower(src: &str) -> Program {
        let dir = tempfile::tempdir().expect("create temp dir");
        let file = dir.path().join("t.c");
        std::fs::write(&file, src).expect("write file");
        let db = crate::compdb::from_files(&[file], &[]);
        let opts = FrontendOptions {
            progress: None,
            jobs: 1,
            verbose: false,
            links: None,
            isolation: None,
            run_deadline: None,
        };
        build_program(&db.commands, &opts).0
    }

    /// `returns` of function `name`, whose calls are the library's rows, or `check`, which
    /// returns 0 when its second argument is 0 (when `check_when`).
    fn facts(src: &str, name: &str, check_when: bool) -> Returns {
        let program = lower(src);
        let f = program.functions.iter().find(|f| f.name == name).expect("function");
        let models: Vec<Option<Model>> = f
            .stmts
            .iter()
            .map(|s| match s {
                Stmt::Call { callee: Callee::Direct { name, .. }, .. } => Some(match crate::libmodel::lookup(name) {
                    Some(lib) => Model::from_lib(lib),
                    None => {
                        let mut m = Model::unknown("check");
                        m.ret_const_when = check_when.then_some((1, 0, 0));
                        m
                    }
                }),
                _ => None,
            })
            .collect();
        returns(f, |s| models[s.index()].as_ref(), true, false, 0)
    }

    const HEAD: &str =
        "#include <stdlib.h>\n__attribute__((noreturn)) void die(void);\nint check(unsigned long n, int g);\n";

    #[test]
    fn every_allocation_tested_before_the_return_is_never_null() {
        let src = format!(
            "{HEAD}void *f(unsigned long n) {{ void *r = malloc(n); if (!r && !n) r = malloc(1); if (!r) die(); return r; }}"
        );
        assert!(facts(&src, "f", false).never_null);
        let late = format!(
            "{HEAD}void *f(unsigned long n) {{ void *r = malloc(n); if (!r) die(); if (!n) r = malloc(1); return r; }}"
        );
        assert!(!facts(&late, "f", false).never_null, "the second allocation is not tested");
    }

    #[test]
    fn a_flag_parameter_decides_never_null() {
        let src = format!(
            "{HEAD}void *f(unsigned long n, int gentle) {{ void *r; if (check(n, gentle)) return NULL; \
             r = malloc(n); if (!r) {{ if (!gentle) die(); return NULL; }} return r; }}"
        );
        let with = facts(&src, "f", true);
        assert!(!with.never_null);
        assert_eq!(with.never_null_when, Some((1, 0)));
        // Without knowing that `check (n, 0)` passes, the NULL return stays reachable.
        assert_eq!(facts(&src, "f", false).never_null_when, None);
    }

    #[test]
    fn a_flag_parameter_decides_the_returned_constant() {
        let src = format!(
            "{HEAD}static unsigned long lim;\nint g(unsigned long n, int gentle) {{ if (n > lim) {{ \
             if (gentle) return -1; die(); }} return 0; }}"
        );
        let program = lower(&src);
        let f = program.functions.iter().find(|f| f.name == "g").expect("g");
        let none = |_: StmtId| -> Option<&Model> { None };
        assert_eq!(returns(f, none, false, false, 0).ret_const_when, Some((1, 0, 0)));
    }

    #[test]
    fn an_allocator_null_for_some_modes_says_which() {
        let src = format!(
            "{HEAD}void *f(int mode, unsigned long n) {{ void *r = NULL; if (n == 0) return NULL; \
             if (mode != 3 && mode != 5) r = malloc(n); return r; }}"
        );
        let mut got = facts(&src, "f", false).null_when;
        got.sort_unstable();
        assert_eq!(got, vec![(0, 3), (0, 5), (1, 0)], "and `n == 0` returns NULL too");
        let always =
            format!("{HEAD}void *f(int mode, unsigned long n) {{ if (mode == 3) return NULL; return malloc(n); }}");
        assert_eq!(facts(&always, "f", false).null_when, vec![(0, 3)]);
        let never = format!("{HEAD}void *f(int mode, unsigned long n) {{ if (mode == 3) n++; return malloc(n); }}");
        assert!(facts(&never, "f", false).null_when.is_empty(), "every mode may allocate");
    }

    #[test]
    fn a_check_that_aborts_on_zero_never_returns_given_zero() {
        let src = format!(
            "{HEAD}void check(int ok, int line) {{ if (!ok) abort(); (void)line; }}\n\
             void check_twice(int ok) {{ if (ok == 2) abort(); if (ok == 3) return; abort(); }}"
        );
        assert_eq!(facts(&src, "check", false).noreturn_when, vec![(0, 0)]);
        // Returns only when `ok` is 3: every other tested value ends it.
        assert_eq!(facts(&src, "check_twice", false).noreturn_when, vec![(0, 2)]);
        let always = format!("{HEAD}void f(int ok) {{ if (ok) abort(); abort(); }}");
        assert!(facts(&always, "f", false).noreturn_when.is_empty(), "never returns: nothing to add");
    }

    #[test]
    fn joins_are_symmetric_and_keep_null_apart_from_non_zero() {
        let vals = [Val::Const(0), Val::Const(3), Val::NonZero, Val::MaybeFresh, Val::Fresh];
        for a in vals {
            for b in vals {
                assert_eq!(Val::join(a, b), Val::join(b, a));
            }
        }
        assert_eq!(Val::join(Val::Const(0), Val::Fresh), Some(Val::MaybeFresh));
        assert_eq!(Val::join(Val::Const(3), Val::Fresh), Some(Val::NonZero));
        assert_eq!(Val::join(Val::Const(0), Val::NonZero), None);
    }
}
