//! Interior addresses handed back by callees: a function that returns the address of a place
//! inside the object a parameter points to (`return &rec->u;`), and the place a call's result
//! then names in the caller.
//!
//! Input: a function's IR, its address temporaries (`t = &x`, `cfg::FnCx::addr_temps`) and its
//! callees' models. Output: `returned_address`, the `(parameter, path)` of `Summary::ret_addr`;
//! `call_addr_temps`, the caller's temporaries defined by such a call, each with the place it
//! points to, which join the address temporaries: passing one to a callee lets that callee
//! reach the caller's slots below that place, as `&rec->u` written out would.
//! Invariants: a path is in `cfg`'s access-path spelling (`*.u`, `*.a.b`), starts with `*` and
//! names at least one step below it (returning the parameter itself is `returns_param`); the
//! parameter is never assigned in the function, so the path is below its entry value; a call
//! temporary is defined once and only passed to calls or returned, so nothing writes the
//! caller's slots through it unseen.

use crate::ir::{Function, LocalId, LocalKind, Operand, Place, Rvalue, Stmt, Terminator};
use crate::model::Model;
use hashbrown::HashMap;

/// Access paths longer than this are not followed (`cfg`'s bound).
const MAX_STEPS: usize = 6;

/// The (parameter, path) whose address every `return` of `func` returns, if they all agree and
/// there is at least one: `return &rec->u.ref;` is `(0, "*.u.ref")`. `addr`: the function's
/// address temporaries (call temporaries included).
pub fn returned_address(func: &Function, addr: &HashMap<LocalId, Place>) -> Option<(usize, String)> {
    let mut found: Option<(usize, String)> = None;
    for b in &func.blocks {
        let Terminator::Return(value) = &b.term else { continue };
        let place = value.as_ref().and_then(|v| v.local()).and_then(|t| addr.get(&t))?;
        let (root, path) = path_below(place)?;
        let param = (root.index() < func.n_params as usize).then_some(root.index())?;
        match &found {
            Some(f) if f.0 != param || f.1 != path => return None,
            Some(_) => {}
            None => found = Some((param, path)),
        }
    }
    let (param, _) = found.as_ref()?;
    (!assigned(func, LocalId::from_usize(*param))).then_some(())?;
    found
}

/// The caller's temporaries that hold a callee's `ret_addr` (`t = rec_data(r)` with
/// `rec_data` returning `&rec->u`): each with the place it points to (`r->u`), for temporaries
/// defined once and only passed to calls or returned. `addr`: the address temporaries so far
/// (`t = &x`), which an argument may be; `model_of`: the callee model of a call statement.
pub fn call_addr_temps<'m>(
    func: &Function,
    addr: &HashMap<LocalId, Place>,
    model_of: impl Fn(usize) -> Option<&'m Model<'m>>,
) -> Vec<(LocalId, Place)> {
    let mut calls: Vec<(usize, LocalId)> = Vec::new();
    for (si, s) in func.stmts.iter().enumerate() {
        if let Stmt::Call { dst: Some(Place::Local(t)), .. } = s {
            if func.local(*t).kind == LocalKind::Temp && !addr.contains_key(t) {
                calls.push((si, *t));
            }
        }
    }
    if calls.is_empty() {
        return Vec::new();
    }
    let uses = only_passed_or_returned(func);
    let mut out: Vec<(LocalId, Place)> = Vec::new();
    for (si, t) in calls {
        if !uses[t.index()] {
            continue;
        }
        let Some((k, path)) = model_of(si).and_then(|m| m.ret_addr.as_ref()) else { continue };
        let Stmt::Call { args, .. } = &func.stmts[si] else { continue };
        let Some(arg) = args.get(*k).and_then(|a| a.local()) else { continue };
        // `*` of the argument: the place an address temporary points to, or the object a
        // pointer local points to (not reassigned: its value is the one passed).
        let known = out.iter().find(|o| o.0 == arg).map(|o| &o.1).or_else(|| addr.get(&arg));
        let base = match known {
            Some(p) => p.clone(),
            None if func.local(arg).is_pointer && !assigned_twice(func, arg) => {
                Place::Deref(Box::new(Place::Local(arg)))
            }
            None => continue,
        };
        if let Some(place) = place_at(base, path) {
            out.push((t, place));
        }
    }
    out
}

/// The place at `path` (`*.u.ref`) below `base`, the place `*` names.
fn place_at(base: Place, path: &str) -> Option<Place> {
    let mut rest = path.strip_prefix('*')?;
    let mut place = base;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[]") {
            place = Place::Index(Box::new(place));
            rest = r;
        } else if let Some(r) = rest.strip_prefix('*') {
            place = Place::Deref(Box::new(place));
            rest = r;
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '*', '[']).unwrap_or(r.len());
            place = Place::Field(Box::new(place), r[..end].to_string());
            rest = &r[end..];
        } else {
            return None;
        }
    }
    Some(place)
}

/// (root local, path) of a place inside the object a local points to (`r->u.ref` is
/// `(r, "*.u.ref")`), with at least one step below the pointee and at most `MAX_STEPS`.
fn path_below(place: &Place) -> Option<(LocalId, String)> {
    fn go(p: &Place, out: &mut String, steps: &mut usize) -> Option<LocalId> {
        match p {
            Place::Local(l) => Some(*l),
            Place::Global(_) => None,
            Place::Deref(inner) => {
                let r = go(inner, out, steps)?;
                out.push('*');
                *steps += 1;
                Some(r)
            }
            Place::Field(inner, f) => {
                let r = go(inner, out, steps)?;
                out.push('.');
                out.push_str(f);
                *steps += 1;
                Some(r)
            }
            Place::Index(inner) => {
                let r = go(inner, out, steps)?;
                out.push_str("[]");
                *steps += 1;
                Some(r)
            }
        }
    }
    let mut out = String::new();
    let mut steps = 0;
    let root = go(place, &mut out, &mut steps)?;
    (out.starts_with('*') && out.len() > 1 && steps <= MAX_STEPS).then_some((root, out))
}

/// Some statement assigns local `l` (a parameter keeps its entry value otherwise).
fn assigned(func: &Function, l: LocalId) -> bool {
    defs(func, l) > 0
}

/// Local `l` is assigned more than once.
fn assigned_twice(func: &Function, l: LocalId) -> bool {
    defs(func, l) + usize::from(l.index() < func.n_params as usize) > 1
}

fn defs(func: &Function, l: LocalId) -> usize {
    func.stmts
        .iter()
        .filter(|s| match s {
            Stmt::Assign { dst, .. } | Stmt::Call { dst: Some(dst), .. } => *dst == Place::Local(l),
            Stmt::Call { dst: None, .. } => false,
        })
        .count()
}

/// Per local: every read of it is a call argument or a returned value (no store of it, no
/// test, no place through it), so what it points to is reached only by callees and callers.
fn only_passed_or_returned(func: &Function) -> Vec<bool> {
    let mut ok = vec![true; func.locals.len()];
    // A place rooted at a local reads it (`*t`, `t->f`); the local itself as a place does only
    // where it is read as a value.
    fn place(p: &Place, ok: &mut [bool]) {
        if !matches!(p, Place::Local(_)) {
            if let Some(l) = p.root_local() {
                ok[l.index()] = false;
            }
        }
    }
    fn read(op: &Operand, ok: &mut [bool]) {
        if let Operand::Place(p) = op {
            match p {
                Place::Local(l) => ok[l.index()] = false,
                _ => place(p, ok),
            }
        }
    }
    for s in &func.stmts {
        match s {
            Stmt::Assign { dst, src } => {
                place(dst, &mut ok);
                match src {
                    Rvalue::Use(op) => read(op, &mut ok),
                    Rvalue::Opaque(ops) => ops.iter().for_each(|o| read(o, &mut ok)),
                    Rvalue::AddrOf(p) => place(p, &mut ok),
                }
            }
            Stmt::Call { dst, args, callee } => {
                if let Some(d) = dst {
                    place(d, &mut ok);
                }
                for a in args {
                    if let Operand::Place(p) = a {
                        place(p, &mut ok);
                    }
                }
                if let crate::ir::Callee::Indirect { target, .. } = callee {
                    read(target, &mut ok);
                }
            }
        }
    }
    for b in &func.blocks {
        match &b.term {
            Terminator::Switch { on, .. } => read(on, &mut ok),
            Terminator::Branch { cond, .. } => match &cond.kind {
                crate::ir::CondKind::Truthy(op) => read(op, &mut ok),
                crate::ir::CondKind::Cmp(_, a, c) => {
                    read(a, &mut ok);
                    read(c, &mut ok);
                }
                crate::ir::CondKind::Opaque => {}
            },
            Terminator::Return(Some(Operand::Place(p))) => place(p, &mut ok),
            _ => {}
        }
    }
    ok
}
