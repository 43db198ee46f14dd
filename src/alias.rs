//! Alias-dependent instantiation of summaries: what a callee's stores below its parameters do
//! when the caller's arguments name the same place.
//!
//! Input: a function and its callee models (`FnCx`, prepared is enough) for the summary side;
//! a call, its arguments and the caller's knowledge of which locals hold the same address for
//! the call side. Output: `Summary::writes`, the stores a function makes below its parameters
//! in its statement order (fresh cells handed back, and pointer parameters stored whole below
//! another parameter, also dangling after the function freed them); and, at a call, whether a fresh cell the callee hands back is
//! overwritten inside it by a later store to the same caller slot.
//! Invariants:
//! - A summary is computed once, for distinct arguments, as before; only the order of its
//!   stores is added (Dillig et al.'s update order ≺), and the caller instantiates the stores in
//!   that order with strong updates. Where two arguments name one place (`&x, &x`, `p, p`, or
//!   two locals known to hold the same address) the later store wins: the modular result is
//!   the inlined one for these shapes (their Lemma 4), without a summary per alias pattern.
//! - A store enters `writes` only when it happens on every path that returns and its order is
//!   known; otherwise the call is instantiated as before (distinct arguments). Nothing here
//!   can turn an escape into a report except an overwrite that the order makes certain.
//! - Reports about aliasing go to the callers that pass aliases, never to the callee: a function
//!   with two out-parameters is correct for distinct arguments, which is how it is meant.

use crate::cfg::{DagNode, FnCx};
use crate::ir::{Function, LocalId, Operand, Place, Rvalue, Stmt, StmtId, Terminator};
pub use crate::model::{Write, WriteFrom};
use std::sync::Arc;

/// The function's stores below its parameters, in statement order: the fresh cells it hands
/// back at `fresh` (parameter, path), and pointer parameters whose only use besides reading is
/// to be stored, on every path, below other parameters. A parameter in `freed` (one the
/// function frees on every path) may also be passed to the calls that free it: it is stored
/// dangling (`free(p); *out = p;`), and the caller's `*out` then names the freed block.
pub fn writes(cx: &FnCx, fresh: &[(usize, Arc<str>)], freed: &[usize]) -> Vec<Write> {
    let func = cx.func;
    let mut out: Vec<(StmtId, Write)> = Vec::new();
    for (param, path) in fresh {
        let Some(p) = func.params().nth(*param) else { continue };
        if let Some(s) = last_store(cx, p, path) {
            out.push((s, Write { param: *param, path: path.clone(), from: WriteFrom::Fresh }));
        }
    }
    // Candidates first, in one pass: a pointer parameter stored as such through another one
    // (`q->f = p`, `*q = p`). Most functions have none, and pay nothing more.
    let is_ptr_param = |l: LocalId| l.index() < func.n_params as usize && func.local(l).is_pointer;
    let mut candidates: Vec<LocalId> = func
        .stmts
        .iter()
        .filter_map(|st| match st {
            Stmt::Assign { dst, src: Rvalue::Use(Operand::Place(Place::Local(p))) }
                if is_ptr_param(*p)
                    && !matches!(dst, Place::Local(_))
                    && dst.root_local().is_some_and(|r| r != *p && is_ptr_param(r)) =>
            {
                Some(*p)
            }
            _ => None,
        })
        .collect();
    candidates.sort();
    candidates.dedup();
    if !candidates.is_empty() {
        let mut doms: Option<Vec<bool>> = None;
        let names: Vec<Vec<LocalId>> = func.params().map(|q| cx.copies_of(q)).collect();
        for p in candidates {
            let i = p.index();
            for (s, j, path) in stored_whole(cx, p, &names, freed.contains(&i)) {
                let b = block_of(func, s);
                let every_path = doms.get_or_insert_with(|| on_every_return(func));
                if b.is_some_and(|b| every_path[b]) {
                    out.push((s, Write { param: j, path, from: WriteFrom::Param(i) }));
                }
            }
        }
    }
    out.sort_by_key(|w| w.0);
    out.into_iter().map(|w| w.1).collect()
}

/// The last statement that stores into the slot at `path` below parameter `p` (or a copy).
fn last_store(cx: &FnCx, p: LocalId, path: &str) -> Option<StmtId> {
    let names = cx.copies_of(p);
    let mut last = None;
    for (si, st) in cx.func.stmts.iter().enumerate() {
        let dst = match st {
            Stmt::Assign { dst, .. } => Some(dst),
            Stmt::Call { dst, .. } => dst.as_ref(),
        };
        if dst.and_then(|d| cx.key_of(d)).is_some_and(|k| names.contains(&k.root) && cx.path_text(k.path) == path) {
            last = Some(StmtId::from_usize(si));
        }
    }
    last
}

/// Where pointer parameter `p` is stored whole below another parameter: (statement, that
/// parameter, path). Empty unless every other use of `p` (and of the locals that copy it) only
/// reads it (or, with `may_free`, frees it), no copy is ever given another value, and nothing
/// else stores into those slots.
fn stored_whole(cx: &FnCx, p: LocalId, param_names: &[Vec<LocalId>], may_free: bool) -> Vec<(StmtId, usize, Arc<str>)> {
    let func = cx.func;
    if !func.local(p).is_pointer || !cx.is_tracked(p) {
        return Vec::new();
    }
    let names = &param_names[p.index()];
    let param_of = |root: LocalId| -> Option<usize> {
        func.params().position(|q| q != p && func.local(q).is_pointer && param_names[q.index()].contains(&root))
    };
    let holds = |op: &Operand| op.local().is_some_and(|l| names.contains(&l));
    let mut stores = Vec::new();
    for (si, st) in func.stmts.iter().enumerate() {
        let sid = StmtId::from_usize(si);
        match st {
            Stmt::Assign { dst: Place::Local(l), src } if names.contains(l) => {
                // A copy of p, or p itself given another value.
                if *l == p || !matches!(src, Rvalue::Use(op) if holds(op)) {
                    return Vec::new();
                }
            }
            Stmt::Assign { dst, src: Rvalue::Use(op) } if holds(op) => {
                let Some(k) = cx.key_of(dst).filter(|k| !k.is_local()) else { return Vec::new() };
                let Some(j) = param_of(k.root) else { return Vec::new() };
                stores.push((sid, j, Arc::from(cx.path_text(k.path))));
            }
            Stmt::Assign { src: Rvalue::Opaque(ops), .. } if ops.iter().any(holds) => return Vec::new(),
            Stmt::Assign { src: Rvalue::AddrOf(place), .. }
                if place.root_local().is_some_and(|l| names.contains(&l)) =>
            {
                return Vec::new()
            }
            Stmt::Assign { .. } => {}
            Stmt::Call { dst, args, .. } => {
                if dst.as_ref().is_some_and(|d| d.as_local().is_some_and(|l| names.contains(&l))) {
                    return Vec::new();
                }
                let model = cx.model(sid);
                for (i, a) in args.iter().enumerate() {
                    let effect = model.map(|m| m.arg_effect(i));
                    let frees = may_free && effect == Some(Some(crate::libmodel::ArgEffect::Frees));
                    if holds(a) && !frees && effect.is_none_or(|e| e.is_some()) {
                        return Vec::new();
                    }
                }
            }
        }
    }
    if func.blocks.iter().any(|b| matches!(&b.term, Terminator::Return(Some(op)) if holds(op))) {
        return Vec::new();
    }
    // Nothing but these stores writes their slots.
    for (sid, j, path) in &stores {
        let q = func.params().nth(*j).expect("a parameter");
        if last_store(cx, q, path) != Some(*sid) || stores.iter().filter(|s| s.1 == *j && s.2 == *path).count() > 1 {
            return Vec::new();
        }
    }
    stores
}

fn block_of(func: &Function, s: StmtId) -> Option<usize> {
    func.blocks.iter().position(|b| b.stmts.contains(&s))
}

/// Per block: every path from the entry to a `return` goes through it (it dominates every
/// reachable return block).
fn on_every_return(func: &Function) -> Vec<bool> {
    let n = func.blocks.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut reachable = vec![false; n];
    let mut work = vec![func.entry.index()];
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut reachable[b], true) {
            continue;
        }
        for t in func.blocks[b].term.successors() {
            preds[t.index()].push(b);
            work.push(t.index());
        }
    }
    // Iterative dominators over bit vectors; the functions are small.
    let all = vec![true; n];
    let mut dom: Vec<Vec<bool>> = (0..n).map(|_| all.clone()).collect();
    dom[func.entry.index()] = (0..n).map(|i| i == func.entry.index()).collect();
    loop {
        let mut changed = false;
        for b in (0..n).filter(|b| reachable[*b] && *b != func.entry.index()) {
            let mut d = all.clone();
            for p in preds[b].iter().filter(|p| reachable[**p]) {
                for i in 0..n {
                    d[i] &= dom[*p][i];
                }
            }
            d[b] = true;
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let returns: Vec<usize> =
        (0..n).filter(|b| reachable[*b] && matches!(func.blocks[*b].term, Terminator::Return(_))).collect();
    (0..n).map(|b| reachable[b] && !returns.is_empty() && returns.iter().all(|r| dom[*r][b])).collect()
}

/// At call `stmt` (statement `idx` of `node`), the fresh cell the callee hands back below
/// argument `param` at `path` is overwritten inside the callee by a later store to the same
/// caller slot: the other argument's index and the slot's name.
pub fn overwritten_in_callee(
    cx: &FnCx,
    stmt: StmtId,
    node: DagNode,
    idx: usize,
    param: usize,
    path: &str,
) -> Option<(usize, String)> {
    let model = cx.model(stmt)?;
    let Stmt::Call { args, .. } = cx.func.stmt(stmt) else { return None };
    let pos = model.writes.iter().position(|w| w.param == param && &*w.path == path && w.from == WriteFrom::Fresh)?;
    let mine = args.get(param)?;
    for w in &model.writes[pos + 1..] {
        // The same argument twice is one name, not two: where the callee's own stores to that
        // place leave its fresh cell is already in its summary (a fresh cell from a nested call
        // is placed at the callee's last direct store, which may come before it).
        if w.param == param {
            continue;
        }
        let other = args.get(w.param)?;
        if same_slot(cx, mine, path, other, &w.path, node, idx) {
            let k = cx.callee_slot(mine, path);
            let name = k.map(|k| cx.key_text(k)).unwrap_or_else(|| "the same object".to_string());
            return Some((w.param, name));
        }
    }
    None
}

/// Two (argument, callee path) pairs name the same caller slot at this call, for certain. A slot
/// below an array element (`[]`: the indices are collapsed) is one name for all the elements,
/// so `&a[i]` and `&a[i + 1]` share it without being one place: such a pair is not the same.
pub fn same_slot(cx: &FnCx, a: &Operand, pa: &str, b: &Operand, pb: &str, node: DagNode, idx: usize) -> bool {
    if let (Some(ka), Some(kb)) = (cx.callee_slot(a, pa), cx.callee_slot(b, pb)) {
        if ka == kb {
            return !cx.is_weak(ka);
        }
    }
    // Two pointer locals holding the same address: the same object, the same path.
    match (cx.arg_slots(a), cx.arg_slots(b)) {
        (Some((ra, pre_a)), Some((rb, pre_b))) if pre_a == "*" && pre_b == "*" && pa == pb && !pa.contains("[]") => {
            cx.same_value(ra, rb, node, idx)
        }
        _ => false,
    }
}
