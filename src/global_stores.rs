//! The globals a function overwrites before anything could read them, and those it leaves
//! holding a cell of its own (`Summary::global_overwrites`, `Summary::global_fresh`): `void
//! set_name (const char *s) { name = xstrdup (s); }` overwrites `name` and leaves a fresh cell
//! there, so `set_name (a); set_name (b);` loses the first block, and a caller's block held only
//! in `name` is lost at the call.
//!
//! Input: a function's IR, its calls' models (a callee's own `global_overwrites`,
//! `global_fresh` and `globals_read`), and the globals whose address the program takes. Output:
//! two sorted lists of global paths (`g`, `cfg.name`: `global_leaks::global_path`), the second a
//! subset of the first.
//!
//! How: per candidate (a global path the function stores into, itself or through a callee that
//! overwrites it), a forward must-analysis over the CFG (loops to a fixpoint) of whether every
//! path has stored into it yet and whether what it holds is still the function's fresh cell.
//! Invariants, each on the side of saying less:
//! - Before the store on a path, nothing may read the global: no statement or test names it
//!   (reading it, its fields, or through the pointer it holds), no call to a function of the
//!   program whose `globals_read` may hold it, no call without a model. A global whose address
//!   is taken anywhere (or when that is not known) is never a candidate: a pointer may read it.
//! - Every path that returns has stored; a path that ends the program does not count.
//! - Fresh: every store on those paths is of an always-fresh allocation's result (the call's own
//!   result, a local holding only such results that nothing else is given, or a callee's
//!   `global_fresh`), and after it nothing hands the global's value on until the return: no
//!   copy of it, no call given it that may keep or free it, no call of a function of the
//!   program that may write the global or hand its value on (`globals_kept`), no `return` of
//!   it. Reads through it (`g->len`, `if (g)`) leave the cell where it is.
//! - At most `MAX_CANDIDATES` globals per function are tried, the first by name.
//!
//! `globals_kept` is the third output (`Summary::globals_kept`): the globals whose value a
//! function may hand on rather than only read, so that a callee that prints or tests a global
//! leaves a caller's block held there in the caller's view.

use std::sync::Arc;

use crate::global_leaks::{global_path, root};
use crate::global_writes::{is_address_taken, stmt_reads, term_reads, GlobalWrites};
use crate::ir::{Function, LocalId, Operand, Place, Rvalue, Stmt, StmtId, Terminator};
use crate::libmodel::RetEffect;
use crate::model::Model;

/// Candidates tried per function: a function that stores into more globals is an
/// initialisation routine, whose stores callers rarely repeat.
const MAX_CANDIDATES: usize = 16;

/// What one statement does to the candidate global.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Nothing the analysis needs.
    None,
    /// It may read the global's value before anything is stored.
    Read,
    /// It stores into the global: a cell of the function's own (`true`) or anything else.
    Store(bool),
    /// It may hand the value the global holds on (or free it); reading it is fine.
    HandOn,
}

/// The path state at a point: whether every path has stored into the global, and whether what
/// it holds on every such path is the function's fresh cell.
#[derive(Clone, Copy, PartialEq, Eq)]
struct State {
    stored: bool,
    fresh: bool,
}

impl State {
    fn meet(self, other: State) -> State {
        State { stored: self.stored && other.stored, fresh: self.fresh && other.fresh }
    }
}

/// `(global_overwrites, global_fresh)` of `func` (see the module doc).
pub fn global_stores<'f, 'm: 'f>(
    func: &'f Function,
    model: impl Fn(StmtId) -> Option<&'f Model<'m>>,
    taken: Option<&[String]>,
) -> (Arc<[Arc<str>]>, Arc<[Arc<str>]>) {
    let none = || (Arc::from([]), Arc::from([]));
    let Some(taken) = taken else { return none() };
    let mut candidates: Vec<String> = Vec::new();
    for (si, s) in func.stmts.iter().enumerate() {
        let dst = match s {
            Stmt::Assign { dst, .. } => Some(dst),
            Stmt::Call { dst, .. } => dst.as_ref(),
        };
        if let Some(p) = dst.and_then(global_path) {
            candidates.push(p);
        }
        if let Some(m) = model(StmtId::from_usize(si)).filter(|m| !m.lib) {
            candidates.extend(m.global_overwrites.iter().map(|g| g.to_string()));
        }
    }
    candidates.retain(|g| !is_address_taken(taken, root(g)));
    if candidates.is_empty() {
        return none();
    }
    candidates.sort_unstable();
    candidates.dedup();
    candidates.truncate(MAX_CANDIDATES);
    let mut overwrites: Vec<Arc<str>> = Vec::new();
    let mut fresh: Vec<Arc<str>> = Vec::new();
    for g in &candidates {
        if let Some(is_fresh) = overwritten(func, &model, g, root(g)) {
            overwrites.push(Arc::from(g.as_str()));
            if is_fresh {
                fresh.push(Arc::from(g.as_str()));
            }
        }
    }
    (overwrites.into(), fresh.into())
}

/// Whether every path that returns overwrites global path `g` (variable `r`) before anything may
/// read it: `Some(fresh)`, `fresh` when it then holds the function's own fresh cell on all of
/// them; `None` when not.
fn overwritten<'f, 'm: 'f>(
    func: &'f Function,
    model: &impl Fn(StmtId) -> Option<&'f Model<'m>>,
    g: &str,
    r: &str,
) -> Option<bool> {
    let n = func.blocks.len();
    let mut at: Vec<Option<State>> = vec![None; n];
    at[func.entry.index()] = Some(State { stored: false, fresh: false });
    let mut work = vec![func.entry.index()];
    let mut returns_fresh = true;
    let mut returns = false;
    while let Some(b) = work.pop() {
        let Some(mut st) = at[b] else { continue };
        let block = &func.blocks[b];
        for &sid in &block.stmts {
            match effect(func, model, sid, g, r, st.stored) {
                Effect::Read if !st.stored => return None,
                Effect::Store(f) => st = State { stored: true, fresh: f },
                Effect::HandOn => st.fresh = false,
                Effect::Read | Effect::None => {}
            }
        }
        let mut term_read = false;
        term_reads(&block.term, &mut |name| term_read |= name == r);
        match &block.term {
            _ if term_read && !st.stored => return None,
            Terminator::Return(op) => {
                returns = true;
                let hands_on = op.as_ref().is_some_and(|op| names_value(op, g));
                returns_fresh &= st.stored && st.fresh && !hands_on;
                if !st.stored {
                    return None;
                }
                continue;
            }
            Terminator::NoReturn => continue,
            _ => {}
        }
        for succ in block.term.successors() {
            let i = succ.index();
            let next = match at[i] {
                None => st,
                Some(old) => old.meet(st),
            };
            if at[i] != Some(next) {
                at[i] = Some(next);
                work.push(i);
            }
        }
    }
    returns.then_some(returns_fresh)
}

/// The operand is the global's value itself (`g`, not `g->len`).
fn names_value(op: &Operand, g: &str) -> bool {
    matches!(op, Operand::Place(p) if global_path(p).as_deref() == Some(g))
}

/// Whether a store into `dst` stores into global path `g`: the path itself, or a struct holding
/// it (`cfg = other` for `cfg.name`).
fn stores_into(dst: &Place, g: &str) -> bool {
    global_path(dst).is_some_and(|p| p == g || (g.starts_with(&p) && g.as_bytes().get(p.len()) == Some(&b'.')))
}

/// What statement `sid` does to global path `g` of variable `r`; `stored`: whether the path has
/// stored into it already (before that, only reads matter).
fn effect<'f, 'm: 'f>(
    func: &'f Function,
    model: &impl Fn(StmtId) -> Option<&'f Model<'m>>,
    sid: StmtId,
    g: &str,
    r: &str,
    stored: bool,
) -> Effect {
    let s = func.stmt(sid);
    let m = model(sid);
    // A call to a function of the program that overwrites the global (a setter called by a
    // setter): a store, unless its arguments read the global first.
    let mut names_r = false;
    stmt_reads(s, &mut |name| names_r |= name == r);
    if let Stmt::Call { .. } = s {
        if let Some(m) = m.filter(|m| !m.lib && m.known) {
            if m.global_overwrites.iter().any(|o| &**o == g) {
                return if names_r { Effect::Read } else { Effect::Store(m.global_fresh.iter().any(|o| &**o == g)) };
            }
        }
    }
    // Whether the statement may run code that reads the global (a callee).
    let callee_reads = match (s, m) {
        (Stmt::Assign { .. }, _) => false,
        (Stmt::Call { .. }, Some(m)) if m.lib => m.returns_twice,
        (Stmt::Call { .. }, Some(m)) if m.known => m.globals_read.may_write(r),
        (Stmt::Call { .. }, _) => true,
    };
    let dst = match s {
        Stmt::Assign { dst, .. } => Some(dst),
        Stmt::Call { dst, .. } => dst.as_ref(),
    };
    if let Some(d) = dst.filter(|d| stores_into(d, g)) {
        if names_r || callee_reads {
            return Effect::Read;
        }
        let own = match s {
            Stmt::Call { .. } => global_path(d).as_deref() == Some(g) && m.is_some_and(always_fresh),
            Stmt::Assign { src: Rvalue::Use(Operand::Place(Place::Local(x))), .. } => {
                global_path(d).as_deref() == Some(g) && fresh_local(func, model, *x, g)
            }
            Stmt::Assign { .. } => false,
        };
        return Effect::Store(own);
    }
    if !stored {
        return if names_r || callee_reads { Effect::Read } else { Effect::None };
    }
    // A callee that may store into the global replaces the cell as well (losing it there); one
    // that only reads the value leaves it.
    let callee_moves = match (s, m) {
        (Stmt::Call { .. }, Some(m)) if m.lib => m.returns_twice,
        (Stmt::Call { .. }, Some(m)) if m.known => m.globals_written.may_write(r) || m.globals_kept.may_write(r),
        (Stmt::Call { .. }, _) => true,
        (Stmt::Assign { .. }, _) => false,
    };
    if callee_moves {
        return Effect::HandOn;
    }
    match s {
        Stmt::Assign { src: Rvalue::Use(op), .. } if names_value(op, g) => Effect::HandOn,
        Stmt::Assign { src: Rvalue::AddrOf(p), .. } if crate::global_writes::base_global(p) == Some(r) => {
            Effect::HandOn
        }
        Stmt::Call { args, .. } => {
            let kept =
                args.iter().enumerate().any(|(i, a)| names_value(a, g) && m.is_none_or(|m| m.arg_effect(i).is_some()));
            if kept {
                Effect::HandOn
            } else {
                Effect::None
            }
        }
        Stmt::Assign { .. } => Effect::None,
    }
}

/// `Summary::globals_kept` of `func`: the globals (by variable) whose value it may hand on,
/// itself or through a callee. A global's value is read where an operand names the global's own
/// storage (`g`, `cfg.name`, `tab[i]`, not `g->len`); that value is handed on when it is stored
/// anywhere but into a local `only_read` says goes nowhere, given to a callee that may keep or
/// free that argument (or one without a model), returned, or its storage's address taken. A
/// callee's own `globals_kept` is added; one without a summary hands on every global.
/// `only_read` is asked only about locals a global's value is copied into.
pub fn globals_kept<'f, 'm: 'f>(
    func: &'f Function,
    model: impl Fn(StmtId) -> Option<&'f Model<'m>>,
    only_read: impl Fn(LocalId) -> bool,
) -> GlobalWrites {
    let mut kept: Vec<Arc<str>> = Vec::new();
    let mut callees: Vec<&GlobalWrites> = Vec::new();
    let mut keep = |g: &str| {
        if kept.last().is_none_or(|l| **l != *g) {
            kept.push(Arc::from(g));
        }
    };
    // A value carried into `dst`: fine in a local that goes nowhere.
    let into = |dst: Option<&Place>| match dst {
        Some(Place::Local(l)) => only_read(*l),
        Some(_) => false,
        None => true,
    };
    for (si, s) in func.stmts.iter().enumerate() {
        let m = model(StmtId::from_usize(si));
        match s {
            Stmt::Assign { dst, src } => match src {
                Rvalue::Use(op) => {
                    if let Some(g) = operand_root(op).filter(|_| !into(Some(dst))) {
                        keep(g);
                    }
                }
                Rvalue::Opaque(ops) => {
                    if ops.iter().any(|op| operand_root(op).is_some()) && !into(Some(dst)) {
                        ops.iter().filter_map(operand_root).for_each(&mut keep);
                    }
                }
                Rvalue::AddrOf(p) => {
                    if let Some(g) = crate::global_writes::global_root(p) {
                        keep(g);
                    }
                }
            },
            Stmt::Call { dst, args, .. } => match m {
                Some(m) if m.known => {
                    if !m.lib {
                        callees.push(&m.globals_kept);
                    }
                    for (i, a) in args.iter().enumerate() {
                        let Some(g) = operand_root(a) else { continue };
                        let returned = m.ret_alias() == Some(i) && !into(dst.as_ref());
                        if m.arg_effect(i).is_some() || returned {
                            keep(g);
                        }
                    }
                }
                _ => return GlobalWrites::All,
            },
        }
    }
    for b in &func.blocks {
        if let Terminator::Return(Some(op)) = &b.term {
            if let Some(g) = operand_root(op) {
                keep(g);
            }
        }
    }
    let own = GlobalWrites::from_names(kept);
    GlobalWrites::union(callees.into_iter().chain([&own]))
}

/// The global whose own storage an operand reads (`g`, `cfg.name`, `tab[i]`; not `g->len`).
fn operand_root(op: &Operand) -> Option<&str> {
    match op {
        Operand::Place(p) => crate::global_writes::global_root(p),
        _ => None,
    }
}

/// A call whose result is a fresh cell wherever it is not NULL, whatever its arguments.
fn always_fresh(m: &Model) -> bool {
    matches!(m.ret, RetEffect::Fresh(_)) && m.always_fresh && m.fresh_if_arg.is_none()
}

/// Local `x` holds only fresh cells from always-fresh calls, and goes nowhere but into global
/// path `g` (`p = xstrdup (s); g = p;`): tests, arithmetic, reads through it and library calls
/// that only read it are fine.
fn fresh_local<'f, 'm: 'f>(
    func: &'f Function,
    model: &impl Fn(StmtId) -> Option<&'f Model<'m>>,
    x: LocalId,
    g: &str,
) -> bool {
    if x.index() < func.n_params as usize {
        return false;
    }
    let is_x = |op: &Operand| matches!(op, Operand::Place(Place::Local(y)) if *y == x);
    for (si, s) in func.stmts.iter().enumerate() {
        let sid = StmtId::from_usize(si);
        match s {
            Stmt::Assign { dst, src } => {
                if dst.as_local() == Some(x) {
                    return false;
                }
                match src {
                    Rvalue::Use(op) if is_x(op) && global_path(dst).as_deref() != Some(g) => return false,
                    Rvalue::AddrOf(Place::Local(y)) if *y == x => return false,
                    _ => {}
                }
            }
            Stmt::Call { dst, args, .. } => {
                let m = model(sid);
                if dst.as_ref().and_then(Place::as_local) == Some(x) && !m.is_some_and(always_fresh) {
                    return false;
                }
                let given = args
                    .iter()
                    .enumerate()
                    .any(|(i, a)| is_x(a) && m.is_none_or(|m| !m.lib || m.arg_effect(i).is_some()));
                if given {
                    return false;
                }
            }
        }
    }
    // Returned: the caller gets it too.
    !func.blocks.iter().any(|b| matches!(&b.term, Terminator::Return(Some(op)) if is_x(op)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_into_a_struct_global_overwrites_its_fields() {
        let cfg = Place::Global("cfg".into());
        assert!(stores_into(&cfg, "cfg.name"));
        assert!(stores_into(&Place::Field(Box::new(cfg.clone()), "name".into()), "cfg.name"));
        assert!(!stores_into(&Place::Field(Box::new(cfg), "names".into()), "cfg.name"));
        assert!(!stores_into(&Place::Global("cfgx".into()), "cfg"));
    }
}
