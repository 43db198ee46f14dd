//! The constants a function leaves below its parameters on every path that returns normally
//! (`Summary::exit_values`): a constructor's `this->count = 1` (`new T` runs it on the fresh
//! object), a C `obj_init (o)` that sets `o->refs = 1`. A caller's facts take them after the
//! call (`facts`: `FactStmt::sets`), so `if (--o->refs == 0) free (o);` right after the
//! creation frees.
//!
//! Input: a function's IR and its calls' models (a callee's own `exit_values` and
//! `fields_written`). Output: (parameter, access path, constant) triples, the path in `facts`'
//! text form (`*.count`, `*.hdr.refs`).
//!
//! How: a forward must-analysis over the CFG (loops to a fixpoint) of the places below
//! parameters that the function stores a constant into, or that a callee leaves one in. A place
//! is a constant, unknown, or *vacuous* (on the side of a test that finds its parameter NULL,
//! where the caller's object does not exist: `if (!o) return; o->refs = 1;`), which joins as
//! the other side. Invariants, each on the side of saying less:
//! - the parameter is never assigned and its address is never taken;
//! - any store may write the place unless C's typing says it cannot: a store to a field of
//!   another name (field-name aliasing, whatever the pointer); a store through a pointer with
//!   no field (`*q = v`, `a[i] = v`) may write any place; a store to a bare global writes only
//!   a place without a field (`*p` of `init (&g)`);
//! - a call given anything but constants may write every place its callee's `fields_written`
//!   may (a library row: what it writes through the buffers it is given; an unknown callee:
//!   anything), then leaves what its own `exit_values` say below the arguments that are the
//!   parameter itself or the address of a place below it;
//! - a call that never returns ends the path (a path that does not return normally says
//!   nothing); a place must hold one constant at every `return` some path reaches, past a fixed
//!   amount of work nothing is said.

use crate::global_writes::FieldWrites;
use crate::ir::{BlockId, CmpOp, CondKind, Function, LocalId, Operand, Place, Rvalue, Stmt, StmtId, Terminator};
use crate::model::Model;
use std::sync::Arc;

/// At most this many places per function.
const MAX_PLACES: usize = 16;
/// Work allowed per function, in block visits.
const MAX_VISITS: usize = 20_000;

/// What a place holds at a point, on every path reaching it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    /// The parameter is NULL on every path here: the place does not exist.
    Vacuous,
    Const(i64),
    Unknown,
}

fn join(a: Val, b: Val) -> Val {
    match (a, b) {
        (Val::Vacuous, x) | (x, Val::Vacuous) => x,
        (Val::Const(x), Val::Const(y)) if x == y => a,
        _ => Val::Unknown,
    }
}

/// A place below a parameter: the parameter's local and index, the path text, its field names.
struct Cand {
    param: LocalId,
    index: usize,
    text: String,
    fields: Vec<String>,
}

/// The field names on a path text (`*.s.rc`: `s`, `rc`).
fn fields_of(text: &str) -> Vec<String> {
    text.split(['*', '[', ']', '.']).filter(|f| !f.is_empty()).map(str::to_string).collect()
}

/// The fields written by a store to `dst` after its last dereference (`p->s.rc`: `s`, `rc`);
/// empty for a store through a pointer without a field or to a bare global.
fn store_fields(dst: &Place) -> Vec<&str> {
    let mut out = Vec::new();
    let mut p = dst;
    loop {
        match p {
            Place::Field(b, f) => {
                out.push(f.as_str());
                p = b;
            }
            Place::Index(b) => p = b,
            Place::Deref(_) | Place::Global(_) | Place::Local(_) => return out,
        }
    }
}

/// The constants `func` leaves below its parameters on every normal return (see the module
/// documentation).
pub fn exit_values<'f, 'm: 'f>(
    func: &'f Function,
    model: impl Fn(StmtId) -> Option<&'f Model<'m>>,
) -> Vec<(usize, Arc<str>, i64)> {
    let n_params = func.n_params as usize;
    if n_params == 0 {
        return Vec::new();
    }
    // Parameters that keep their value: never assigned, address never taken.
    let mut fixed: Vec<bool> = (0..func.locals.len()).map(|i| i < n_params && func.locals[i].is_pointer).collect();
    // Locals that hold the address of a place below a fixed parameter (`t = &this->cl`, given
    // to the member's constructor), defined once.
    let mut addr_of: Vec<Option<&Place>> = vec![None; func.locals.len()];
    let mut defs = vec![0u32; func.locals.len()];
    for st in &func.stmts {
        let dst = match st {
            Stmt::Assign { dst, src } => {
                if let Rvalue::AddrOf(p) = src {
                    if let Some(l) = p.storage_local() {
                        fixed[l.index()] = false;
                    }
                    if let Place::Local(t) = dst {
                        addr_of[t.index()] = Some(p);
                    }
                }
                Some(dst)
            }
            Stmt::Call { dst, .. } => dst.as_ref(),
        };
        if let Some(Place::Local(l)) = dst {
            fixed[l.index()] = false;
            defs[l.index()] += 1;
        }
    }
    let below_param = |p: &Place| -> Option<(LocalId, String)> {
        let (root, text) = crate::cfg::raw_path(p)?;
        (fixed[root.index()] && text.starts_with('*') && !text.contains('[')).then_some((root, text))
    };
    // The caller's place an argument's callee path names: `(root, text)`.
    let arg_place = |a: &Operand, path: &str| -> Option<(LocalId, String)> {
        let t = a.local()?;
        let (root, prefix) = if fixed[t.index()] {
            (t, "*".to_string())
        } else {
            let p = addr_of[t.index()].filter(|_| defs[t.index()] == 1)?;
            below_param(p)?
        };
        Some((root, format!("{prefix}{}", path.get(1..)?)))
    };
    let mut cands: Vec<Cand> = Vec::new();
    let add = |cands: &mut Vec<Cand>, (root, text): (LocalId, String)| {
        if cands.len() < MAX_PLACES && !cands.iter().any(|c| c.param == root && c.text == text) {
            cands.push(Cand { param: root, index: root.index(), fields: fields_of(&text), text });
        }
    };
    for (si, st) in func.stmts.iter().enumerate() {
        match st {
            Stmt::Assign { dst, src: Rvalue::Use(Operand::Const(_)) } => {
                if let Some(k) = below_param(dst) {
                    add(&mut cands, k);
                }
            }
            Stmt::Call { args, .. } => {
                let Some(m) = model(StmtId::from_usize(si)) else { continue };
                for (i, path, _) in &m.exit_values {
                    if let Some(k) = args.get(*i).and_then(|a| arg_place(a, path)) {
                        add(&mut cands, k);
                    }
                }
            }
            _ => {}
        }
    }
    if cands.is_empty() {
        return Vec::new();
    }
    let cx = Cx { func, cands: &cands, below_param: &below_param, arg_place: &arg_place };
    let Some(at_returns) = cx.run(&model) else { return Vec::new() };
    let mut out = Vec::new();
    for (ci, c) in cands.iter().enumerate() {
        let mut v = Val::Vacuous;
        for s in &at_returns {
            v = join(v, s[ci]);
        }
        if let Val::Const(k) = v {
            out.push((c.index, Arc::from(c.text.as_str()), k));
        }
    }
    out.sort();
    out
}

type State = Vec<Val>;

struct Cx<'a, 'f> {
    func: &'f Function,
    cands: &'a [Cand],
    below_param: &'a dyn Fn(&Place) -> Option<(LocalId, String)>,
    arg_place: &'a dyn Fn(&Operand, &str) -> Option<(LocalId, String)>,
}

impl<'f> Cx<'_, 'f> {
    /// The state at every `return` some path reaches; `None` past the work budget.
    fn run<'m: 'f>(&self, model: &impl Fn(StmtId) -> Option<&'f Model<'m>>) -> Option<Vec<State>> {
        let func = self.func;
        let mut at: Vec<Option<State>> = vec![None; func.blocks.len()];
        at[func.entry.index()] = Some(vec![Val::Unknown; self.cands.len()]);
        let mut work: std::collections::BTreeSet<BlockId> = [func.entry].into();
        let mut visits = 0;
        let mut rets = Vec::new();
        while let Some(b) = work.pop_first() {
            visits += 1;
            if visits > MAX_VISITS {
                return None;
            }
            let Some(mut s) = at[b.index()].clone() else { continue };
            if !self.through_block(b, &mut s, model) {
                continue;
            }
            for (t, e) in self.edges(b, s) {
                let next = match &at[t.index()] {
                    None => e,
                    Some(old) => {
                        let j: State = old.iter().zip(&e).map(|(a, b)| join(*a, *b)).collect();
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
        for (bi, s) in at.into_iter().enumerate() {
            let b = BlockId::from_usize(bi);
            let (Some(mut s), Terminator::Return(_)) = (s, &func.block(b).term) else { continue };
            if self.through_block(b, &mut s, model) {
                rets.push(s);
            }
        }
        Some(rets)
    }

    /// A store to `dst` that is not a known constant: what it may write becomes unknown.
    fn store(&self, s: &mut State, dst: &Place, value: Option<i64>) {
        if matches!(dst, Place::Local(_)) {
            return;
        }
        let exact = (self.below_param)(dst);
        let fields = store_fields(dst);
        for (c, v) in self.cands.iter().zip(s.iter_mut()) {
            if exact.as_ref().is_some_and(|(r, t)| *r == c.param && *t == c.text) {
                *v = value.map_or(Val::Unknown, Val::Const);
                continue;
            }
            let may = match dst {
                // A bare global is no place below a pointer but the one it is (`*p`).
                Place::Global(_) => c.fields.is_empty(),
                _ if fields.is_empty() => true,
                _ => fields.iter().any(|f| c.fields.iter().any(|g| g == f)),
            };
            if may {
                *v = Val::Unknown;
            }
        }
    }

    /// Runs block `b`'s statements over `s`; `false` when a call ends the path.
    fn through_block<'m: 'f>(
        &self,
        b: BlockId,
        s: &mut State,
        model: &impl Fn(StmtId) -> Option<&'f Model<'m>>,
    ) -> bool {
        for &sid in &self.func.block(b).stmts {
            match self.func.stmt(sid) {
                Stmt::Assign { dst, src } => {
                    let value = match src {
                        Rvalue::Use(Operand::Const(k)) => Some(*k),
                        _ => None,
                    };
                    self.store(s, dst, value);
                }
                Stmt::Call { dst, args, .. } => {
                    let m = model(sid);
                    if m.is_some_and(|m| m.noreturn) {
                        return false;
                    }
                    if let Some(d) = dst {
                        self.store(s, d, None);
                    }
                    let passes = args.iter().any(|a| matches!(a, Operand::Place(_) | Operand::Unknown));
                    if passes {
                        let lib;
                        let written = match m {
                            Some(m) if m.lib => {
                                lib = FieldWrites::of_library(m.name);
                                &lib
                            }
                            Some(m) if m.known => &m.fields_written,
                            _ => &FieldWrites::All,
                        };
                        for (c, v) in self.cands.iter().zip(s.iter_mut()) {
                            if written.may_write_path(&c.text) {
                                *v = Val::Unknown;
                            }
                        }
                    }
                    for (i, path, k) in m.map_or(&[][..], |m| &m.exit_values) {
                        let Some((root, text)) = args.get(*i).and_then(|a| (self.arg_place)(a, path)) else { continue };
                        for (c, v) in self.cands.iter().zip(s.iter_mut()) {
                            if c.param == root && c.text == text {
                                *v = Val::Const(*k);
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// The successors of `b` with the state on each edge: on the side of a test that finds a
    /// parameter NULL, its places are vacuous.
    fn edges(&self, b: BlockId, s: State) -> Vec<(BlockId, State)> {
        match &self.func.block(b).term {
            Terminator::Goto(t) => vec![(*t, s)],
            Terminator::Branch { cond, then_, else_ } => {
                let null_side = match &cond.kind {
                    CondKind::Truthy(Operand::Place(Place::Local(p))) => Some((*p, *else_)),
                    CondKind::Cmp(CmpOp::Eq, Operand::Place(Place::Local(p)), Operand::Const(0))
                    | CondKind::Cmp(CmpOp::Eq, Operand::Const(0), Operand::Place(Place::Local(p))) => {
                        Some((*p, *then_))
                    }
                    CondKind::Cmp(CmpOp::Ne, Operand::Place(Place::Local(p)), Operand::Const(0))
                    | CondKind::Cmp(CmpOp::Ne, Operand::Const(0), Operand::Place(Place::Local(p))) => {
                        Some((*p, *else_))
                    }
                    _ => None,
                };
                let mut out = Vec::with_capacity(2);
                for t in [*then_, *else_] {
                    let mut e = s.clone();
                    if let Some((p, _)) = null_side.filter(|(_, side)| *side == t && then_ != else_) {
                        for (c, v) in self.cands.iter().zip(e.iter_mut()) {
                            if c.param == p {
                                *v = Val::Vacuous;
                            }
                        }
                    }
                    out.push((t, e));
                }
                out
            }
            Terminator::Switch { cases, default, .. } => {
                let mut out: Vec<(BlockId, State)> = cases.iter().map(|c| (c.1, s.clone())).collect();
                out.push((*default, s));
                out
            }
            Terminator::Return(_) | Terminator::NoReturn => Vec::new(),
        }
    }
}
