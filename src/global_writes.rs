//! What a function may write that its callers see: the globals, by name, so that two tests of
//! a global correlate across a call that cannot change it; and the memory below its arguments,
//! by field name, so that two tests of `conv.vc_type` (or `cs->command`) correlate across a call
//! given `&conv` (`cs`) that never stores into a field of that name.
//!
//! Input: the linked `Program` and the final summaries of the callees outside an SCC. Output:
//! `address_taken`, the globals whose address the program takes (once per run), and the
//! `GlobalWrites` and `FieldWrites` of an SCC's members (`summary::written_of_scc`), which the
//! driver writes into each member's summary (`Summary::globals_written`, `fields_written`); a
//! caller's reaching definitions of a tested global or field (`cfg::FnCx`, `facts`) then let
//! through a call whose callee may not write it.
//! Invariants:
//! - Sound for sequential code: a function's set holds every global it stores into (the global
//!   itself or any path below it: `conv.vc_type = ..` writes `conv`), directly or through a
//!   callee; a callee without a summary (defined nowhere, not yet summarised, its check failed)
//!   or an indirect call with no known target may write every global (`All`). Library rows write
//!   no global of the program, and neither do compiler builtins (`is_builtin`) nor the C++
//!   standard library's functions given no code to run (`is_std_library`): what they write
//!   they are handed a pointer to, and taking a global's address counts below.
//! - A global's set holds the globals stored into by name and those whose address is taken
//!   (what is done with the address is not followed: `gettimeofday (&tv, ..)`). An address-taken
//!   global may also be written through a pointer taken elsewhere: a caller asks the fields too,
//!   its test of `conv.vc_type` as the field writes' `*.vc_type` (`cfg::FnCx`).
//! - Fields are told apart by name only, as `facts` tells apart the stores of one function: a
//!   store to `x->f` may write any field `f`; a store of a scalar or pointer through a pointer
//!   (`*q = v`, `a[i] = v`, a library call filling a buffer) may write any object reached through
//!   a pointer (`through`), not a named field; a whole object stored through a pointer to an
//!   unknown type (`*p = *q`), `memset`/`memcpy` of an object that is not the function's own, or
//!   an unknown callee may write anything (`All`). Stores into the function's own locals are not
//!   seen by callers and do not count, nor are stores into a block it allocated itself through a
//!   local whose every definition is a call returning only fresh blocks (`w->next` after `w =
//!   xmalloc (..)`): no object that existed before the call is written.
//! - The members of an SCC share one set (the union of their own), so recursion needs no
//!   fixpoint. A set of more than `MAX_NAMES` names is `All`: summaries stay small.
//! - Names, not declarations: two `static` globals of one name in different files are one
//!   entry, which only makes a set larger.

use crate::ir::{Function, LocalId, Operand, Place, Program, Rvalue, Stmt};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Past this many names a set is `All` (vim: see ARCHITECTURE.md).
pub const MAX_NAMES: usize = 256;

/// The globals a function may write.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GlobalWrites {
    /// Any global: an unknown callee, or more than `MAX_NAMES` names.
    All,
    /// The storage of these globals (by name, sorted, unique): stored into, or address taken.
    Only(Arc<[Arc<str>]>),
}

impl GlobalWrites {
    /// Writes no global (a library row).
    pub fn none() -> GlobalWrites {
        GlobalWrites::Only(Arc::from([]))
    }

    /// Writes no global.
    pub fn is_empty(&self) -> bool {
        matches!(self, GlobalWrites::Only(v) if v.is_empty())
    }

    /// Whether global `g` (a name, not a path) may be written.
    pub fn may_write(&self, g: &str) -> bool {
        match self {
            GlobalWrites::All => true,
            GlobalWrites::Only(v) => v.binary_search_by(|n| (**n).cmp(g)).is_ok(),
        }
    }

    /// The union of `sets`: what a call that may reach any of them may write.
    pub fn union<'s>(sets: impl IntoIterator<Item = &'s GlobalWrites>) -> GlobalWrites {
        let mut names: Vec<Arc<str>> = Vec::new();
        for s in sets {
            match s {
                GlobalWrites::All => return GlobalWrites::All,
                GlobalWrites::Only(v) => names.extend(v.iter().cloned()),
            }
        }
        GlobalWrites::from_names(names)
    }

    pub fn from_names(mut names: Vec<Arc<str>>) -> GlobalWrites {
        names.sort_unstable();
        names.dedup();
        if names.len() > MAX_NAMES {
            return GlobalWrites::All;
        }
        GlobalWrites::Only(names.into())
    }
}

/// The memory below its arguments a function may write, by field name (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FieldWrites {
    /// Anything: an unknown callee, a whole object of unknown type stored through a pointer, or
    /// more than `MAX_NAMES` fields.
    All,
    /// Fields of these names (sorted, unique), and, when `through`, scalars and pointers stored
    /// through a pointer (`*n = 0`, `buf[i] = c`).
    Only { fields: Arc<[Arc<str>]>, through: bool },
}

impl FieldWrites {
    /// A library row: it fills the buffers it is handed (`strcpy`, `read`), and the objects it
    /// is handed whole (`memset`, `memcpy`: `whole_object_writer`).
    pub fn of_library(name: &str) -> FieldWrites {
        if whole_object_writer(name) {
            FieldWrites::All
        } else {
            FieldWrites::Only { fields: Arc::from([]), through: true }
        }
    }

    /// Writes nothing below any argument.
    pub fn is_empty(&self) -> bool {
        matches!(self, FieldWrites::Only { fields, through: false } if fields.is_empty())
    }

    /// Whether the value a `facts` key names at path `text` below an argument (`*.vc_type`,
    /// `.f` of a local struct, `*[2]`, `*`, the empty path of a local given by address) may be
    /// written: a field on its path is one of the set's (the field itself, or a pointer on the
    /// way to it), or the set writes through pointers and the key is reached through one (it
    /// ends in one, or a pointer loaded on its way, `**.f` or `*.next*.f`, may have been
    /// replaced), or is the local itself.
    pub fn may_write_path(&self, text: &str) -> bool {
        let (fields, through) = match self {
            FieldWrites::All => return true,
            FieldWrites::Only { fields, through } => (fields, *through),
        };
        let text = text.split_once('&').map_or(text, |t| t.0);
        let via_loaded_pointer = text.get(1..).is_some_and(|rest| rest.contains('*'));
        if through && (text.is_empty() || text.ends_with('*') || text.ends_with(']') || via_loaded_pointer) {
            return true;
        }
        path_fields(text).any(|f| fields.binary_search_by(|n| (**n).cmp(f)).is_ok())
    }

    /// The union of `sets`.
    pub fn union<'s>(sets: impl IntoIterator<Item = &'s FieldWrites>) -> FieldWrites {
        let mut names: Vec<Arc<str>> = Vec::new();
        let mut through = false;
        for s in sets {
            match s {
                FieldWrites::All => return FieldWrites::All,
                FieldWrites::Only { fields, through: t } => {
                    names.extend(fields.iter().cloned());
                    through |= *t;
                }
            }
        }
        FieldWrites::from_parts(names, through)
    }

    pub fn from_parts(mut names: Vec<Arc<str>>, through: bool) -> FieldWrites {
        names.sort_unstable();
        names.dedup();
        if names.len() > MAX_NAMES {
            return FieldWrites::All;
        }
        FieldWrites::Only { fields: names.into(), through }
    }
}

/// The field names on a `facts` path text (`*.s.rc` has `s` and `rc`; `*[2]` none).
fn path_fields(text: &str) -> impl Iterator<Item = &str> {
    text.split(['*', '[', ']'])
        .flat_map(|s| s.split('.'))
        .filter(|f| !f.is_empty() && !f.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
}

/// Library functions that write a whole object they are handed, whatever its type.
pub fn whole_object_writer(name: &str) -> bool {
    let name = name.trim_start_matches("__builtin_").trim_start_matches('_');
    ["memset", "memcpy", "memmove", "mempcpy", "bzero", "explicit_bzero", "bcopy"]
        .iter()
        .any(|w| name == *w || name.strip_prefix(w).is_some_and(|rest| rest.starts_with('_')))
}

/// What a store into `dst` of `func` adds to its `FieldWrites` (`fields`, `through`); `false`
/// when it may write anything (`FieldWrites::All`). `scalar`: the stored value is surely no
/// whole object (a constant, an address, arithmetic, a scalar local); `pointee_known`: what a
/// pointer local points to is known to be a scalar or a pointer.
pub fn store_field_writes(
    pointee_known: &dyn Fn(LocalId) -> bool,
    dst: &Place,
    scalar: bool,
    fields: &mut Vec<Arc<str>>,
    through: &mut bool,
) -> bool {
    // The function's own storage: no caller sees it.
    if dst.storage_local().is_some() {
        return true;
    }
    // The fields of the written object: those after the last dereference on the path.
    let mut p = dst;
    let mut named = false;
    loop {
        match p {
            Place::Field(b, f) => {
                fields.push(Arc::from(f.as_str()));
                named = true;
                p = b;
            }
            Place::Index(b) => p = b,
            Place::Deref(_) | Place::Global(_) | Place::Local(_) => break,
        }
    }
    if matches!(dst, Place::Field(..)) {
        return true;
    }
    // A whole object through a pointer to a type the IR does not know (`*p = *q` for a struct
    // pointer `p`) may be any object's every field.
    let pointee_known = match dst {
        Place::Deref(b) => match &**b {
            Place::Local(q) => pointee_known(*q),
            _ => false,
        },
        _ => true,
    };
    if !scalar && !pointee_known && !named {
        return false;
    }
    *through = true;
    true
}

/// Whether the value `src` stores is surely no whole object (`store_field_writes`).
pub fn scalar_value(func: &Function, src: &Rvalue) -> bool {
    match src {
        Rvalue::AddrOf(_) | Rvalue::Opaque(_) => true,
        Rvalue::Use(Operand::Place(Place::Local(l))) => !func.local(*l).is_aggregate,
        Rvalue::Use(Operand::Place(_)) | Rvalue::Use(Operand::Unknown) => false,
        Rvalue::Use(_) => true,
    }
}

/// A compiler builtin (`__builtin_constant_p`, `__builtin_expect`): it calls no code of the
/// program, so it writes no global but through a pointer it is handed, as a library row.
pub fn is_builtin(name: &str) -> bool {
    name.starts_with("__builtin_")
}

/// A function of the C++ standard library (`std::`, libstdc++'s `__gnu_cxx::`), which no
/// program may define: it touches no global of the program by name.
pub fn is_std_library(name: &str) -> bool {
    name.starts_with("std::") || name.starts_with("__gnu_cxx::")
}

/// The global a place is part of (`g`, `g.f`, `g[i]`), not through a pointer it holds.
pub fn global_root(p: &Place) -> Option<&str> {
    match p {
        Place::Global(g) => Some(g),
        Place::Field(b, _) | Place::Index(b) => global_root(b),
        Place::Local(_) | Place::Deref(_) => None,
    }
}

/// The variable at the base of a place (`g` for `g`, `g.f`, `g[i]`, `*g`, `g->f`), when it is a
/// global: reading the place reads that global, or memory reached through the pointer it holds.
pub fn base_global(p: &Place) -> Option<&str> {
    match p {
        Place::Global(g) => Some(g),
        Place::Field(b, _) | Place::Index(b) | Place::Deref(b) => base_global(b),
        Place::Local(_) => None,
    }
}

/// Whether a place is reached through a pointer (`*p`, `p->f`, `g->f`): a store there reads the
/// pointer first.
fn through_pointer(p: &Place) -> bool {
    match p {
        Place::Deref(_) => true,
        Place::Field(b, _) | Place::Index(b) => through_pointer(b),
        Place::Global(_) | Place::Local(_) => false,
    }
}

/// The globals a statement reads, each as `base_global` names it (possibly twice): its operands,
/// a function pointer it calls through, and the pointer a store through a pointer loads. A store
/// into a global itself (`g = v`, `cfg.name = v`) reads nothing of it.
pub fn stmt_reads<'p>(s: &'p Stmt, each: &mut impl FnMut(&'p str)) {
    let operand = |op: &'p Operand, each: &mut dyn FnMut(&'p str)| {
        if let Operand::Place(p) = op {
            if let Some(g) = base_global(p) {
                each(g);
            }
        }
    };
    let dst = match s {
        Stmt::Assign { dst, src } => {
            match src {
                Rvalue::Use(op) => operand(op, each),
                Rvalue::Opaque(ops) => ops.iter().for_each(|op| operand(op, each)),
                Rvalue::AddrOf(p) => {
                    if let Some(g) = base_global(p) {
                        each(g);
                    }
                }
            }
            Some(dst)
        }
        Stmt::Call { dst, callee, args } => {
            args.iter().for_each(|op| operand(op, each));
            if let crate::ir::Callee::Indirect { target, .. } = callee {
                operand(target, each);
            }
            dst.as_ref()
        }
    };
    if let Some(d) = dst.filter(|d| through_pointer(d)) {
        if let Some(g) = base_global(d) {
            each(g);
        }
    }
}

/// The globals a terminator reads: the tested, switched or returned operands.
pub fn term_reads<'p>(t: &'p crate::ir::Terminator, each: &mut impl FnMut(&'p str)) {
    use crate::ir::{CondKind, Terminator};
    let mut operand = |op: &'p Operand| {
        if let Operand::Place(p) = op {
            if let Some(g) = base_global(p) {
                each(g);
            }
        }
    };
    match t {
        Terminator::Branch { cond, .. } => match &cond.kind {
            CondKind::Truthy(a) => operand(a),
            CondKind::Cmp(_, a, b) => {
                operand(a);
                operand(b);
            }
            CondKind::Opaque => {}
        },
        Terminator::Switch { on, .. } => operand(on),
        Terminator::Return(Some(op)) => operand(op),
        Terminator::Return(None) | Terminator::Goto(_) | Terminator::NoReturn => {}
    }
}

/// The globals whose address the program takes, sorted, unique: the front end's
/// `Program::global_addrs` (`&g` anywhere, globals named in a global's initializer) and the
/// roots of every `&place` in a body (`&g.f`, an array global used as a pointer).
pub fn address_taken(program: &Program) -> Vec<String> {
    let mut v: Vec<String> = program.global_addrs.clone();
    for f in &program.functions {
        for s in &f.stmts {
            if let Stmt::Assign { src: Rvalue::AddrOf(p), .. } = s {
                if let Some(g) = global_root(p) {
                    v.push(g.to_string());
                }
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Whether global `g` is address-taken (`taken`: `address_taken`). A function-`static` is named
/// `func::var` in the IR but by its own name in the front end's list of initializers.
pub fn is_address_taken(taken: &[String], g: &str) -> bool {
    let found = |n: &str| taken.binary_search_by(|t| t.as_str().cmp(n)).is_ok();
    found(g) || g.rsplit_once("::").is_some_and(|(_, var)| found(var))
}

/// Whether operand `o` of `func` is surely no pointer and no object (a constant, a scalar
/// local): storing it hands no caller's object to anyone (`summary::param_writes_of_scc`).
pub fn scalar_operand(func: &Function, o: &Operand) -> bool {
    match o {
        Operand::Place(Place::Local(l)) => {
            let d = func.local(*l);
            !d.is_pointer && !d.is_aggregate
        }
        Operand::Const(_) | Operand::Str | Operand::Func { .. } => true,
        Operand::Place(_) | Operand::Unknown => false,
    }
}

/// Per local of `func`: the parameters (a bit each, the first 64) whose object its value may
/// point into, flow-insensitively: a parameter itself, copies, arithmetic, addresses below it,
/// pointers loaded from what it points to, and the result of a call given such a value (unless
/// `returns_fresh` says call statement `si` returns only fresh blocks). Only pointers and
/// objects carry it (an `int` read from below a parameter points nowhere).
pub fn derived_from_params(func: &Function, returns_fresh: &dyn Fn(usize) -> bool) -> Vec<u64> {
    let carries = |l: LocalId| {
        let d = func.local(l);
        d.is_pointer || d.is_aggregate
    };
    let mut from = vec![0u64; func.locals.len()];
    for p in func.params().take(64).filter(|&p| carries(p)) {
        from[p.index()] = 1 << p.index();
    }
    if from.iter().all(|&b| b == 0) {
        return from;
    }
    let bits_of = |from: &[u64], o: &Operand| match o {
        Operand::Place(p) => p.root_local().map_or(0, |r| from[r.index()]),
        _ => 0,
    };
    loop {
        let mut changed = false;
        for (si, s) in func.stmts.iter().enumerate() {
            let (dst, bits) = match s {
                Stmt::Assign { dst, src } => {
                    let bits = match src {
                        Rvalue::Use(o) => bits_of(&from, o),
                        Rvalue::AddrOf(p) => p.root_local().map_or(0, |r| from[r.index()]),
                        // Pointer arithmetic the front end could not simplify, into a pointer.
                        Rvalue::Opaque(ops) => ops.iter().fold(0, |b, o| b | bits_of(&from, o)),
                    };
                    (dst, bits)
                }
                Stmt::Call { dst: Some(dst), args, .. } if !returns_fresh(si) => {
                    (dst, args.iter().fold(0, |b, a| b | bits_of(&from, a)))
                }
                Stmt::Call { .. } => continue,
            };
            let Some(l) = dst.storage_local() else { continue };
            if bits != 0 && carries(l) && from[l.index()] | bits != from[l.index()] {
                from[l.index()] |= bits;
                changed = true;
            }
        }
        if !changed {
            return from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(names: &[&str]) -> GlobalWrites {
        GlobalWrites::Only(names.iter().map(|n| Arc::from(*n)).collect())
    }

    #[test]
    fn union_is_sorted_unique_and_all_absorbs() {
        let u = GlobalWrites::union([&only(&["b", "c"]), &only(&["a", "b"])]);
        assert_eq!(u, only(&["a", "b", "c"]));
        assert!(u.may_write("a") && !u.may_write("d"));
        assert_eq!(GlobalWrites::union([&only(&["a"]), &GlobalWrites::All]), GlobalWrites::All);
        assert!(!GlobalWrites::none().may_write("a"));
    }

    fn fields(names: &[&str], through: bool) -> FieldWrites {
        FieldWrites::from_parts(names.iter().map(|n| Arc::from(*n)).collect(), through)
    }

    #[test]
    fn field_writes_match_keys_by_field_name_and_kind_of_store() {
        let w = fields(&["vc_fail", "options"], false);
        assert!(!w.may_write_path("*.vc_type") && !w.may_write_path(".vc_type"));
        assert!(w.may_write_path("*.vc_fail") && w.may_write_path("*.s.options") && w.may_write_path("*.options&4"));
        // Scalars through a pointer: the local itself, `*n`, an element, not a named field.
        assert!(!w.may_write_path("") && !w.may_write_path("*") && !w.may_write_path("*[2]"));
        let t = fields(&[], true);
        assert!(
            t.may_write_path("") && t.may_write_path("*") && t.may_write_path("*[2]") && t.may_write_path("*.buf*")
        );
        assert!(!t.may_write_path("*.command") && !t.may_write_path(".vc_type"));
        // A pointer loaded on the way may have been replaced by a store through a pointer.
        assert!(t.may_write_path("**.f") && t.may_write_path("*.next*.f"));
        assert!(!w.may_write_path("*.next*.f") && w.may_write_path("*.options*.f"));
        assert!(FieldWrites::All.may_write_path("*.command"));
        assert!(!fields(&[], false).may_write_path("*"));
        assert_eq!(FieldWrites::union([&w, &t]), fields(&["options", "vc_fail"], true));
        assert_eq!(FieldWrites::union([&w, &FieldWrites::All]), FieldWrites::All);
    }

    #[test]
    fn whole_object_writers_by_name() {
        for n in ["memset", "memcpy", "__builtin_memcpy", "__builtin___memset_chk", "__memcpy_chk", "bzero"] {
            assert!(whole_object_writer(n), "{n}");
        }
        for n in ["strcpy", "memchr", "memcmp", "read"] {
            assert!(!whole_object_writer(n), "{n}");
        }
    }

    #[test]
    fn too_many_names_are_all() {
        let names: Vec<String> = (0..=MAX_NAMES).map(|i| format!("g{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(GlobalWrites::union([&only(&refs)]), GlobalWrites::All);
        assert!(matches!(GlobalWrites::union([&only(&refs[1..])]), GlobalWrites::Only(_)));
    }

    #[test]
    fn a_static_local_is_address_taken_by_its_own_name() {
        let taken = vec!["counter".to_string(), "table".to_string()];
        assert!(is_address_taken(&taken, "table"));
        assert!(is_address_taken(&taken, "f::counter"));
        assert!(!is_address_taken(&taken, "other"));
    }
}
