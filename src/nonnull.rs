//! Pointers that are surely not NULL where they are passed to a call: `f (buf)` with `buf` an
//! array, `f (p)` after `if (p == NULL) fatal (..)` or after `p->n` was read, and `f (ssh)` in a
//! function every one of whose callers passes a non-NULL `ssh`.
//!
//! Input: the frozen `Program` and the resolution of its direct calls (`summary::Direct`).
//! Output: `NonNull`, per function the parameters that are non-NULL at every call and, per call
//! statement, the arguments that are non-NULL there. `summary::Model::from_summary` reads the
//! latter: a callee that allocates only when a pointer parameter is NULL (`if (ssh == NULL) ssh
//! = alloc ();`, `realpath`'s `resolved`) allocates nothing at such a call. `cfg` reads the
//! former for parameters the function never changes: its own tests of them take one side.
//! Invariants:
//! - Per function, a forward must-analysis over the CFG: a pointer local is non-NULL after a
//!   store of an object's address, a string literal or a function, after the non-NULL side of
//!   a test of it, and after a statement that dereferences it (reading `p->n` when `p` is NULL
//!   is undefined, so the program does not); any other store forgets it. A local whose address
//!   is taken, or a `static` one, is never followed (a store through a pointer may change it).
//!   A parameter not written since the entry carries its own entry value (`Value::Param`).
//! - Top-down over the whole program, a greatest fixpoint: a pointer parameter is non-NULL at
//!   entry when the function is not `main`, is never called through a pointer (its address is
//!   not taken), has at least one direct call, is reached by direct calls from a function that
//!   has no such precondition (a cycle nothing outside it calls keeps none), and every direct
//!   call passes a non-NULL value or its own caller's unchanged parameter that is itself
//!   non-NULL. This takes the program
//!   to be whole: an external function of a library that only outside code calls with NULL
//!   is not seen. A recursive call passing the parameter on keeps it.
//! - Bounded: the per-function pass follows at most `MAX_TRACKED` locals and visits each block
//!   a bounded number of times; what it does not follow is unknown, which only costs precision.

use crate::ir::{BlockId, CondKind, Function, LocalId, Operand, Place, Program, Rvalue, Stmt, Terminator};
use crate::summary::Direct;
use hashbrown::HashMap;

/// Locals followed per function: more are unknown (a cost bound for generated giants).
const MAX_TRACKED: usize = 512;

/// Arguments past the 64th are never known (masks are `u64`).
const MAX_ARGS: usize = 64;

#[derive(Debug, Default)]
pub struct NonNull {
    /// Per function: bit `i` set when parameter `i` is non-NULL at every call.
    params: Vec<u64>,
    /// Per function: (statement, bit `k` set when argument `k` of that call is non-NULL), sorted.
    args: Vec<Box<[(u32, u64)]>>,
    /// Per function: the parameters of `params` that the function never writes and whose
    /// address it never takes, so that they hold their non-NULL value throughout.
    fixed: Vec<u64>,
}

impl NonNull {
    pub fn params(&self, func: usize) -> u64 {
        self.params.get(func).copied().unwrap_or(0)
    }

    /// The parameters of function `func` that are non-NULL wherever it tests them: every
    /// caller passes non-NULL and the function never changes them (`if (s == NULL)` inside
    /// is dead).
    pub fn fixed_params(&self, func: usize) -> u64 {
        self.fixed.get(func).copied().unwrap_or(0)
    }

    /// The arguments of call statement `stmt` of function `func` that are non-NULL, as a mask.
    pub fn args(&self, func: usize, stmt: usize) -> u64 {
        let Some(calls) = self.args.get(func) else { return 0 };
        match calls.binary_search_by_key(&(stmt as u32), |c| c.0) {
            Ok(k) => calls[k].1,
            Err(_) => 0,
        }
    }
}

/// What one local holds at a point, for the must-analysis: non-NULL on every path, the value
/// the function's parameter `.0` had at entry (non-NULL if that parameter is), or anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Unknown,
    Param(u8),
    NonNull,
}

impl Value {
    /// What is known on both of two joining paths.
    fn meet(self, other: Value) -> Value {
        match (self, other) {
            (a, b) if a == b => a,
            (Value::NonNull, x) | (x, Value::NonNull) => x,
            _ => Value::Unknown,
        }
    }
}

/// One call's arguments as the per-function pass sees them.
struct CallArgs {
    stmt: u32,
    /// Non-NULL whatever the callers pass.
    sure: u64,
    /// (argument, the caller's parameter it still holds).
    from_params: Vec<(u8, u8)>,
}

/// The table for `program`; `direct(f, s)` resolves the direct call at statement `s` of `f`.
pub fn compute(program: &Program, direct: impl Fn(usize, usize) -> Option<Direct>) -> NonNull {
    let n = program.functions.len();
    let calls: Vec<Vec<CallArgs>> = program.functions.iter().map(calls_of).collect();
    // Who may call each function, and whether some call is not a direct one.
    let taken: hashbrown::HashSet<&str> = program
        .address_taken
        .iter()
        .map(String::as_str)
        .chain(program.cast_targets.iter().map(|c| c.0.as_str()))
        .collect();
    let mut called = vec![false; n];
    let mut sites: Vec<(usize, usize, usize)> = Vec::new(); // (caller, index into calls[caller], callee)
    for (f, fcalls) in calls.iter().enumerate() {
        for (k, c) in fcalls.iter().enumerate() {
            if let Some(Direct::Defined(g) | Direct::Opaque(g)) = direct(f, c.stmt as usize) {
                called[g] = true;
                sites.push((f, k, g));
            }
        }
    }
    let pointer_params = |f: &Function| -> u64 {
        f.params().take(MAX_ARGS).filter(|&l| f.local(l).is_pointer).fold(0u64, |m, l| m | 1 << l.index())
    };
    let eligible: Vec<bool> = program
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| called[i] && f.name != "main" && !taken.contains(f.usr.as_str()))
        .collect();
    // Only functions the program's own entries reach: a cycle no function outside it calls
    // (an API's recursion, dead code) has no caller in the program to take a precondition
    // from, and would otherwise keep one vacuously.
    let mut callees_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(f, _, g) in &sites {
        callees_of[f].push(g);
    }
    let mut reached: Vec<bool> = eligible.iter().map(|e| !e).collect();
    let mut stack: Vec<usize> = (0..n).filter(|&i| reached[i]).collect();
    while let Some(f) = stack.pop() {
        for &g in &callees_of[f] {
            if !reached[g] {
                reached[g] = true;
                stack.push(g);
            }
        }
    }
    let mut params: Vec<u64> = program
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| if eligible[i] && reached[i] { pointer_params(f) } else { 0 })
        .collect();
    // A call site passes argument `k` as non-NULL when it is sure there, or it is the caller's
    // parameter that is (still) taken to be non-NULL.
    let passed = |params: &[u64], caller: usize, c: &CallArgs| -> u64 {
        let from =
            c.from_params.iter().filter(|(_, j)| params[caller] >> j & 1 == 1).fold(0u64, |m, (k, _)| m | 1 << k);
        c.sure | from
    };
    // Greatest fixpoint: only ever clears bits, so it ends after at most one round per bit.
    loop {
        let mut changed = false;
        for &(f, k, g) in &sites {
            let keep = params[g] & passed(&params, f, &calls[f][k]);
            if keep != params[g] {
                params[g] = keep;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let args = calls
        .iter()
        .enumerate()
        .map(|(f, fcalls)| {
            fcalls.iter().map(|c| (c.stmt, passed(&params, f, c))).filter(|c| c.1 != 0).collect::<Vec<_>>().into()
        })
        .collect();
    let fixed = program.functions.iter().zip(&params).map(|(f, p)| p & unchanged_params(f)).collect();
    NonNull { params, args, fixed }
}

/// The parameters a function never assigns and whose address it never takes.
fn unchanged_params(func: &Function) -> u64 {
    let mut mask = func.params().take(MAX_ARGS).fold(0u64, |m, l| m | 1 << l.index());
    for s in &func.stmts {
        let written = match s {
            Stmt::Assign { src: Rvalue::AddrOf(p), dst } => {
                p.storage_local().into_iter().chain(dst.as_local()).collect()
            }
            Stmt::Assign { dst, .. } | Stmt::Call { dst: Some(dst), .. } => dst.as_local().into_iter().collect(),
            Stmt::Call { dst: None, .. } => Vec::new(),
        };
        for l in written {
            if l.index() < MAX_ARGS {
                mask &= !(1u64 << l.index());
            }
        }
    }
    mask
}

/// The per-function pass: every call's arguments, where something is known of them.
fn calls_of(func: &Function) -> Vec<CallArgs> {
    // Every call is listed, known or not: a call passing nothing known is what clears a
    // callee's parameters in the top-down fixpoint.
    let unknown = || -> Vec<CallArgs> {
        let calls = func.stmts.iter().enumerate().filter(|(_, s)| matches!(s, Stmt::Call { .. }));
        calls.map(|(i, _)| CallArgs { stmt: i as u32, sure: 0, from_params: Vec::new() }).collect()
    };
    if !func.stmts.iter().any(|s| matches!(s, Stmt::Call { args, .. } if !args.is_empty())) {
        return unknown();
    }
    // The followed locals: pointers whose address is never taken, not `static`.
    let mut addressed = vec![false; func.locals.len()];
    for s in &func.stmts {
        if let Stmt::Assign { src: Rvalue::AddrOf(p), .. } = s {
            if let Some(l) = p.storage_local() {
                addressed[l.index()] = true;
            }
        }
    }
    let mut slot: Vec<u32> = vec![u32::MAX; func.locals.len()];
    let mut tracked = 0usize;
    for (i, d) in func.locals.iter().enumerate() {
        if tracked < MAX_TRACKED && d.is_pointer && !d.is_static && !addressed[i] {
            slot[i] = tracked as u32;
            tracked += 1;
        }
    }
    let mut entry = vec![Value::Unknown; tracked];
    for p in func.params().take(MAX_ARGS) {
        if let Some(s) = slot.get(p.index()).filter(|s| **s != u32::MAX) {
            entry[*s as usize] = Value::Param(p.index() as u8);
        }
    }
    let cx = Pass { func, slot: &slot };
    // Forward, to a fixpoint: a block's state is the meet over the edges into it seen so far
    // (`None`: not reached yet). Each local can only go down a lattice of height three.
    let nb = func.blocks.len();
    let mut state: Vec<Option<Vec<Value>>> = vec![None; nb];
    state[func.entry.index()] = Some(entry);
    let order = reverse_postorder(func);
    let mut out_calls: HashMap<u32, CallArgs> = HashMap::new();
    let max_rounds = 2 + 3 * tracked.min(8);
    for _ in 0..max_rounds {
        let mut changed = false;
        for &b in &order {
            let Some(mut cur) = state[b.index()].clone() else { continue };
            let block = func.block(b);
            for &sid in &block.stmts {
                let stmt = func.stmt(sid);
                cx.derefs(stmt, &mut cur);
                if let Stmt::Call { args, .. } = stmt {
                    out_calls.insert(sid.0, cx.call_args(sid.0, args, &cur));
                }
                cx.assign(stmt, &mut cur);
            }
            cx.term_derefs(&block.term, &mut cur);
            for (succ, learned) in cx.edges(&block.term) {
                let mut next = cur.clone();
                if let Some(s) = learned {
                    next[s] = Value::NonNull;
                }
                let merged = match &state[succ.index()] {
                    None => next,
                    Some(old) => old.iter().zip(&next).map(|(a, b)| a.meet(*b)).collect(),
                };
                if state[succ.index()].as_ref() != Some(&merged) {
                    state[succ.index()] = Some(merged);
                    changed = true;
                }
            }
        }
        if !changed {
            // Calls in blocks no path reaches pass nothing known.
            let mut v: Vec<CallArgs> = unknown();
            for c in &mut v {
                if let Some(known) = out_calls.remove(&c.stmt) {
                    *c = known;
                }
            }
            return v;
        }
    }
    // No fixpoint within the bound (not expected: the lattice is shallow): nothing is known.
    unknown()
}

struct Pass<'a> {
    func: &'a Function,
    slot: &'a [u32],
}

impl Pass<'_> {
    fn slot_of(&self, l: LocalId) -> Option<usize> {
        self.slot.get(l.index()).filter(|s| **s != u32::MAX).map(|s| *s as usize)
    }

    /// What an operand holds, as far as this pass knows.
    fn operand(&self, op: &Operand, cur: &[Value]) -> Value {
        match op {
            Operand::Str | Operand::Func { .. } => Value::NonNull,
            Operand::Place(Place::Local(l)) => self.slot_of(*l).map_or(Value::Unknown, |s| cur[s]),
            Operand::Place(_) | Operand::Const(_) | Operand::Unknown => Value::Unknown,
        }
    }

    fn rvalue(&self, rv: &Rvalue, cur: &[Value]) -> Value {
        match rv {
            Rvalue::Use(op) => self.operand(op, cur),
            // `&*q` is `q`; the address of an object of the function's own (`&buf`, `&s.f`) or
            // a global is never NULL. An address inside what a pointer points to is claimed
            // only where the pointer is known not to be NULL (`&m->pool` after `if (!m)
            // return`): `&p->list` with `p` NULL is common enough in offset tricks.
            Rvalue::AddrOf(Place::Deref(inner)) => match &**inner {
                Place::Local(l) => self.slot_of(*l).map_or(Value::Unknown, |s| cur[s]),
                _ => Value::Unknown,
            },
            Rvalue::AddrOf(p) if field_of_pointee(p).is_some() => {
                field_of_pointee(p).and_then(|l| self.slot_of(l)).map_or(Value::Unknown, |s| cur[s])
            }
            Rvalue::AddrOf(p) if p.pointee_of_local().is_none() && !through_deref(p) => Value::NonNull,
            Rvalue::AddrOf(_) | Rvalue::Opaque(_) => Value::Unknown,
        }
    }

    /// An access through a followed pointer (`p->n`, `*p`, `p[i]`) shows that it is not NULL.
    fn mark(&self, p: &Place, cur: &mut [Value]) {
        let mut at = p;
        loop {
            match at {
                Place::Deref(inner) => {
                    if let Some(s) = inner.as_local().and_then(|l| self.slot_of(l)) {
                        cur[s] = Value::NonNull;
                    }
                    at = inner;
                }
                Place::Field(inner, _) | Place::Index(inner) => at = inner,
                Place::Local(_) | Place::Global(_) => break,
            }
        }
    }

    fn mark_operands<'o>(&self, ops: impl IntoIterator<Item = &'o Operand>, cur: &mut [Value]) {
        for op in ops {
            if let Operand::Place(p) = op {
                self.mark(p, cur);
            }
        }
    }

    /// The accesses of a statement (`&p->n` is no access).
    fn derefs(&self, stmt: &Stmt, cur: &mut [Value]) {
        match stmt {
            Stmt::Assign { dst, src } => {
                match src {
                    Rvalue::Use(op) => self.mark_operands([op], cur),
                    Rvalue::Opaque(ops) => self.mark_operands(ops, cur),
                    Rvalue::AddrOf(_) => {}
                }
                self.mark(dst, cur);
            }
            Stmt::Call { dst, callee, args } => {
                self.mark_operands(args, cur);
                if let crate::ir::Callee::Indirect { target, .. } = callee {
                    self.mark_operands([target], cur);
                }
                if let Some(d) = dst {
                    self.mark(d, cur);
                }
            }
        }
    }

    /// The accesses of a block's end: `if (s->fd == fd)`, `switch (p->kind)`.
    fn term_derefs(&self, term: &Terminator, cur: &mut [Value]) {
        match term {
            Terminator::Branch { cond, .. } => match &cond.kind {
                CondKind::Truthy(a) => self.mark_operands([a], cur),
                CondKind::Cmp(_, a, b) => self.mark_operands([a, b], cur),
                CondKind::Opaque => {}
            },
            Terminator::Switch { on, .. } => self.mark_operands([on], cur),
            Terminator::Return(Some(op)) => self.mark_operands([op], cur),
            Terminator::Return(None) | Terminator::Goto(_) | Terminator::NoReturn => {}
        }
    }

    fn assign(&self, stmt: &Stmt, cur: &mut [Value]) {
        let (dst, value) = match stmt {
            Stmt::Assign { dst, src } => (dst, self.rvalue(src, cur)),
            Stmt::Call { dst: Some(dst), .. } => (dst, Value::Unknown),
            Stmt::Call { dst: None, .. } => return,
        };
        if let Some(s) = dst.as_local().and_then(|l| self.slot_of(l)) {
            cur[s] = value;
        }
    }

    fn call_args(&self, stmt: u32, args: &[Operand], cur: &[Value]) -> CallArgs {
        let mut c = CallArgs { stmt, sure: 0, from_params: Vec::new() };
        for (k, a) in args.iter().enumerate().take(MAX_ARGS) {
            match self.operand(a, cur) {
                Value::NonNull => c.sure |= 1 << k,
                Value::Param(j) => c.from_params.push((k as u8, j)),
                Value::Unknown if self.func.is_object_address(a) => c.sure |= 1 << k,
                Value::Unknown => {}
            }
        }
        c
    }

    /// The successors of a block's end, each with the followed local a test shows non-NULL on
    /// that edge.
    fn edges(&self, term: &Terminator) -> Vec<(BlockId, Option<usize>)> {
        match term {
            Terminator::Branch { cond, then_, else_ } => {
                let learned = match &cond.kind {
                    CondKind::Truthy(Operand::Place(Place::Local(l))) => self.slot_of(*l),
                    _ => None,
                };
                vec![(*then_, learned), (*else_, None)]
            }
            t => t.successors().map(|b| (b, None)).collect(),
        }
    }
}

/// The place is inside memory reached through a pointer (`p->a`, `(*q).b[2]`).
fn through_deref(p: &Place) -> bool {
    match p {
        Place::Deref(_) => true,
        Place::Field(inner, _) | Place::Index(inner) => through_deref(inner),
        Place::Local(_) | Place::Global(_) => false,
    }
}

/// The blocks reachable from the entry, in reverse postorder (so a forward pass sees most
/// predecessors before a block).
fn reverse_postorder(func: &Function) -> Vec<BlockId> {
    let nb = func.blocks.len();
    let mut seen = vec![false; nb];
    let mut post = Vec::with_capacity(nb);
    let mut stack: Vec<(BlockId, usize)> = vec![(func.entry, 0)];
    seen[func.entry.index()] = true;
    while let Some((b, k)) = stack.pop() {
        let succ = func.block(b).term.successors().nth(k);
        match succ {
            Some(s) => {
                stack.push((b, k + 1));
                if !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push((s, 0));
                }
            }
            None => post.push(b),
        }
    }
    post.reverse();
    post
}

/// The pointer local whose pointee a field place is in (`p` of `&p->f`, `&p->s.f`).
fn field_of_pointee(p: &Place) -> Option<LocalId> {
    let mut at = p;
    while let Place::Field(inner, _) = at {
        at = inner;
    }
    match at {
        Place::Deref(inner) if !std::ptr::eq(at, p) => inner.as_local(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::Value;

    #[test]
    fn the_meet_keeps_what_both_paths_know() {
        assert_eq!(Value::NonNull.meet(Value::NonNull), Value::NonNull);
        assert_eq!(Value::NonNull.meet(Value::Param(1)), Value::Param(1), "non-NULL when the parameter is");
        assert_eq!(Value::Param(1).meet(Value::Param(2)), Value::Unknown);
        assert_eq!(Value::Unknown.meet(Value::NonNull), Value::Unknown);
    }
}
