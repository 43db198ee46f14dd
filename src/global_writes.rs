//! The globals a function may write, so that two tests of a global correlate across a call
//! that cannot change it.
//!
//! Input: the linked `Program` and the final summaries of the callees outside an SCC. Output:
//! `address_taken`, the globals whose address the program takes (once per run), and `of_scc`,
//! the `GlobalWrites` of an SCC's members, which the driver writes into each member's summary
//! (`Summary::globals_written`); a caller's reaching definitions of a tested global
//! (`cfg::FnCx`) then let through a call whose callee may not write it.
//! Invariants:
//! - Sound for sequential code: a function's set holds every global it stores into (the global
//!   itself or any path below it: `conv.vc_type = ..` writes `conv`), directly or through a
//!   callee; a callee without a summary (defined nowhere, not yet summarised, its check failed)
//!   or an indirect call with no known target may write every global (`All`). Library rows write
//!   no global of the program, and neither do compiler builtins (`is_builtin`): what they write
//!   they are handed a pointer to, and taking a global's address counts below.
//! - Address-taken globals are left out of the sets: anything that writes through a pointer may
//!   write them, so a caller takes every call to the program's functions as a write of them
//!   (`is_address_taken`), as before the summaries existed.
//! - The members of an SCC share one set (the union of their own), so recursion needs no
//!   fixpoint. A set of more than `MAX_NAMES` globals is `All`: summaries stay small.
//! - Names, not declarations: two `static` globals of one name in different files are one
//!   entry, which only makes a set larger.

use crate::ir::{Place, Program, Rvalue, Stmt};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Past this many names a set is `All` (vim: see ARCHITECTURE.md).
pub const MAX_NAMES: usize = 256;

/// The globals a function may write.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GlobalWrites {
    /// Any global: an unknown callee, or more than `MAX_NAMES` names.
    All,
    /// The storage of these globals (by name, sorted, unique), address-taken ones left out.
    Only(Arc<[Arc<str>]>),
}

impl GlobalWrites {
    /// Writes no global (a library row).
    pub fn none() -> GlobalWrites {
        GlobalWrites::Only(Arc::from([]))
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

/// A compiler builtin (`__builtin_constant_p`, `__builtin_expect`): it calls no code of the
/// program, so it writes no global but through a pointer it is handed, as a library row.
pub fn is_builtin(name: &str) -> bool {
    name.starts_with("__builtin_")
}

/// The global a place is part of (`g`, `g.f`, `g[i]`), not through a pointer it holds.
pub fn global_root(p: &Place) -> Option<&str> {
    match p {
        Place::Global(g) => Some(g),
        Place::Field(b, _) | Place::Index(b) => global_root(b),
        Place::Local(_) | Place::Deref(_) => None,
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
