//! Memory kept only in a global that nothing in the whole program frees (rule `leak-global`).
//!
//! Input: the candidates `checkers::global_candidates` made of each function's allocation sites
//! (a site whose cell goes nowhere but into one named global: a pointer global, a function's
//! `static`, a field of a global struct, an element of a global array, directly or through a
//! callee that keeps its argument there; keyed by that global's store path, `g`, `cfg.name`,
//! `names[]`), the
//! linked `Program`, and the final `Summaries` (every function's, after the analysis).
//! Output: the findings kept, at most one per global: the candidate that sorts first.
//! Invariants:
//! - A global is *handed on* when some function does with a value loaded from it anything but
//!   read it: passes it to a callee that frees, reallocates or keeps that argument (a summary's
//!   `Frees`/`Escapes`, a library deallocator or keeper, an unknown callee), stores it anywhere
//!   but a local of that function, or returns it; a value is followed through the function's
//!   locals flow-insensitively (copies, pointer arithmetic, a callee returning its argument,
//!   `&v->f`). A global whose address is taken (`&g`, `&cfg` passed to a cleanup), or whose
//!   enclosing struct is copied whole, is handed on too. Only a global never handed on is
//!   reported: a program that frees it anywhere, at exit or in a cleanup function, gets nothing.
//! - Only globals the program itself defines, seen whole: a name the front end saw defined as a
//!   pointer global (`Program::scalar_globals`) or a function's `static` (`f::v`), or a field of
//!   a global struct or an element of a global array (these two only when every TU was seen);
//!   when the database was not seen whole (`Program::seen_partly`) only `static` pointer
//!   globals, since code not seen may free an external one.
//! - Deterministic: the decision reads the IR and the summaries only; the finding of a global
//!   is its first candidate in `diag::sort` order.

use std::collections::{HashMap, HashSet};

use crate::diag::Diagnostic;
use crate::ir::{Function, LocalId, Operand, Place, Program, Rvalue, Stmt, Terminator};
use crate::summary::Summaries;

/// The path of a global place, `g` or `cfg.name` (fields of a global struct, not through a
/// pointer or an array element); `None` for any other place.
pub fn global_path(place: &Place) -> Option<String> {
    match place {
        Place::Global(g) => Some(g.clone()),
        Place::Field(inner, f) => Some(format!("{}.{f}", global_path(inner)?)),
        _ => None,
    }
}

/// The global storage a place is in, as `global_path` names it, where an element of a global
/// array is `[]` (`names[]` for `names[i]`, `cfg.paths[]`, `tab[].name`): any element, since
/// the index is not known. `None` for a place not in a global (through a pointer, a local).
pub fn global_store_path(place: &Place) -> Option<String> {
    match place {
        Place::Global(g) => Some(g.clone()),
        Place::Field(inner, f) => Some(format!("{}.{f}", global_store_path(inner)?)),
        Place::Index(inner) => Some(format!("{}[]", global_store_path(inner)?)),
        _ => None,
    }
}

/// The global variable a global path is in (`cfg` for `cfg.name`, `names` for `names[]`).
pub fn root(path: &str) -> &str {
    path.split(['.', '[']).next().unwrap_or(path)
}

/// Whether global path `inner` is a struct or array that holds `path` (`cfg` holds
/// `cfg.name`, `names` holds `names[]`).
fn holds(inner: &str, path: &str) -> bool {
    path.len() > inner.len() && path.starts_with(inner) && matches!(path.as_bytes()[inner.len()], b'.' | b'[')
}

/// Whether the program's own definition of the global at `path` was seen whole (see the
/// module's invariants).
fn defined_whole(program: &Program, path: &str) -> bool {
    let r = root(path);
    let scalar =
        program.scalar_globals.binary_search_by(|g| g.0.as_str().cmp(r)).ok().map(|i| &program.scalar_globals[i]);
    match scalar {
        // A pointer global: the front end saw it defined (after `seen_partly`, only statics).
        Some(_) => r == path,
        // A field of a global struct, an element of a global array or a function's static:
        // known to be defined here only when every TU was seen.
        None => !program.seen_partly && (path.contains(['.', '[']) || r.contains("::")),
    }
}

/// The findings of the candidates whose global the program never hands on, one per global.
pub fn never_freed(
    program: &Program,
    summaries: &Summaries,
    mut candidates: Vec<(String, Diagnostic)>,
) -> Vec<Diagnostic> {
    candidates.retain(|(g, _)| {
        defined_whole(program, g) && !crate::global_writes::is_address_taken(&summaries.address_taken_globals, root(g))
    });
    if candidates.is_empty() {
        return Vec::new();
    }
    let wanted: HashSet<String> = candidates.iter().map(|(g, _)| g.clone()).collect();
    let handed = handed_on(program, summaries, &wanted);
    let mut by_global: HashMap<String, Diagnostic> = HashMap::new();
    for (g, d) in candidates {
        if handed.contains(g.as_str()) {
            continue;
        }
        match by_global.get_mut(&g) {
            Some(first) if first.sort_key() <= d.sort_key() => {}
            Some(first) => *first = d,
            None => {
                by_global.insert(g, d);
            }
        }
    }
    let mut out: Vec<Diagnostic> = by_global.into_values().collect();
    crate::diag::sort(&mut out);
    out
}

/// The globals of `wanted` some function hands on.
fn handed_on<'a>(program: &Program, summaries: &Summaries, wanted: &'a HashSet<String>) -> HashSet<&'a str> {
    let mut handed: HashSet<&'a str> = HashSet::new();
    let no_provisional: hashbrown::HashMap<usize, crate::summary::Summary> = hashbrown::HashMap::new();
    // Each wanted path under itself and under every struct or array it is in (`cfg` and
    // `cfg.name` for `cfg.name`, `names` and `names[]` for `names[]`): a place's path is looked
    // up once.
    let mut by_prefix: HashMap<&str, Vec<&'a str>> = HashMap::new();
    for w in wanted {
        for (i, c) in w.char_indices() {
            if c == '.' || c == '[' {
                by_prefix.entry(&w[..i]).or_default().push(w);
            }
        }
        by_prefix.entry(w).or_default().push(w);
    }
    for (i, f) in program.functions.iter().enumerate() {
        let mentioned = mentioned(f, &by_prefix);
        if mentioned.is_empty() {
            continue;
        }
        let models = crate::summary::call_models(i, f, summaries, &no_provisional);
        for g in mentioned {
            if !handed.contains(g) && hands_on(f, &models, g) {
                handed.insert(g);
            }
        }
    }
    handed
}

/// The globals of `wanted` whose value (or enclosing struct) `f` names, in first-use order.
fn mentioned<'a>(f: &Function, by_prefix: &HashMap<&str, Vec<&'a str>>) -> Vec<&'a str> {
    let mut found: Vec<&'a str> = Vec::new();
    let mut see = |p: &Place| {
        visit_places(p, &mut |q| {
            if let Some(ws) = global_store_path(q).and_then(|path| by_prefix.get(path.as_str())) {
                for w in ws {
                    if !found.contains(w) {
                        found.push(w);
                    }
                }
            }
        })
    };
    for s in &f.stmts {
        match s {
            Stmt::Assign { dst, src } => {
                see(dst);
                match src {
                    Rvalue::Use(op) => op_place(op).into_iter().for_each(&mut see),
                    Rvalue::AddrOf(p) => see(p),
                    Rvalue::Opaque(ops) => ops.iter().filter_map(op_place).for_each(&mut see),
                }
            }
            Stmt::Call { dst, args, callee } => {
                dst.iter().for_each(&mut see);
                args.iter().filter_map(op_place).for_each(&mut see);
                if let crate::ir::Callee::Indirect { target, .. } = callee {
                    op_place(target).into_iter().for_each(&mut see);
                }
            }
        }
    }
    for b in &f.blocks {
        if let Terminator::Return(Some(op)) = &b.term {
            op_place(op).into_iter().for_each(&mut see);
        }
    }
    found
}

fn op_place(op: &Operand) -> Option<&Place> {
    match op {
        Operand::Place(p) => Some(p),
        _ => None,
    }
}

/// `p` and every place inside it (`g` in `g->next`).
fn visit_places(p: &Place, f: &mut impl FnMut(&Place)) {
    f(p);
    match p {
        Place::Deref(q) | Place::Field(q, _) | Place::Index(q) => visit_places(q, f),
        Place::Local(_) | Place::Global(_) => {}
    }
}

/// Whether `f` hands on the value of the global at `g` (see the module's invariants).
fn hands_on(f: &Function, models: &[Option<crate::model::Model>], g: &str) -> bool {
    // A place whose value is the global's, or a local holding (a pointer into) it.
    let mut held: Vec<bool> = vec![false; f.locals.len()];
    let is_global = |p: &Place| global_store_path(p).as_deref() == Some(g);
    // A copy of the struct the global is a field of (or of the array it is an element of)
    // carries it away.
    let encloses = |p: &Place| global_store_path(p).is_some_and(|path| holds(&path, g));
    // `&g`, `&cfg.name`, `&cfg`, `names` (`&names`): the global itself can now be freed or
    // rewritten through it.
    let address_of_global =
        |p: &Place| global_store_path(p).is_some_and(|path| path == g || holds(&path, g) || holds(g, &path));
    // A place inside the global's block (`g->buf`, `t->name` with `t` holding it): its address
    // points into that block.
    fn inside(p: &Place, held: &[bool], is_global: &dyn Fn(&Place) -> bool) -> bool {
        match p {
            Place::Deref(q) => carries_place(q, held, is_global),
            Place::Field(q, _) | Place::Index(q) => inside(q, held, is_global),
            _ => false,
        }
    }
    fn carries_place(p: &Place, held: &[bool], is_global: &dyn Fn(&Place) -> bool) -> bool {
        match p {
            Place::Local(l) => held[l.index()],
            _ => is_global(p),
        }
    }
    let carries = |op: &Operand, held: &[bool]| match op {
        Operand::Place(p) => carries_place(p, held, &is_global),
        _ => false,
    };
    let mark = |held: &mut Vec<bool>, l: LocalId| -> bool { !std::mem::replace(&mut held[l.index()], true) };
    // Flow-insensitive: to a fixpoint over the statements, since a copy may come after its use
    // in statement order (loops).
    loop {
        let mut changed = false;
        for (sid, s) in f.stmts.iter().enumerate() {
            match s {
                Stmt::Assign { dst, src } => {
                    let value = match src {
                        Rvalue::Use(op) => {
                            if let Operand::Place(p) = op {
                                if encloses(p) {
                                    return true;
                                }
                            }
                            carries(op, &held)
                        }
                        Rvalue::AddrOf(p) => {
                            if address_of_global(p) {
                                return true;
                            }
                            inside(p, &held, &is_global)
                        }
                        // Pointer arithmetic the front end kept whole.
                        Rvalue::Opaque(ops) => {
                            dst.as_local().is_some_and(|l| f.local(l).is_pointer)
                                && ops.iter().any(|o| carries(o, &held))
                        }
                    };
                    if !value {
                        continue;
                    }
                    match dst {
                        Place::Local(l) if !f.local(*l).is_aggregate => changed |= mark(&mut held, *l),
                        // Put back where it came from.
                        p if is_global(p) => {}
                        _ => return true,
                    }
                }
                Stmt::Call { dst, args, .. } => {
                    let model = models.get(sid).and_then(|m| m.as_ref());
                    for (i, a) in args.iter().enumerate() {
                        if let Operand::Place(p) = a {
                            if encloses(p) {
                                return true;
                            }
                        }
                        if !carries(a, &held) {
                            continue;
                        }
                        match model {
                            // Only read there: the pointer itself is neither freed nor kept.
                            Some(m) if m.arg_effect(i).is_none() => {
                                if m.ret_alias() == Some(i) {
                                    match dst {
                                        Some(Place::Local(l)) if !f.local(*l).is_aggregate => {
                                            changed |= mark(&mut held, *l)
                                        }
                                        Some(p) if is_global(p) => {}
                                        Some(_) => return true,
                                        None => {}
                                    }
                                }
                            }
                            _ => return true,
                        }
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    f.blocks.iter().any(|b| matches!(&b.term, Terminator::Return(Some(op)) if carries(op, &held)))
}
