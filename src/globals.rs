//! Globals whose value is fixed outside the program's way out.
//!
//! Input: the linked `Program`: its functions' IR, the scalar globals the front end saw defined
//! with their initial values (`Program::scalar_globals`), and the globals whose address is taken
//! (`Program::global_addrs`). Output: `Fixed`, name → the value the global holds.
//! Invariants:
//! - A global is fixed when its address is never taken, every definition of its name has the
//!   same integer constant as initial value (C's zero when there is none), and every function
//!   that stores to it never returns (`noreturn`). Then no store can have run on a path that has
//!   not entered a function that ends the program, so the global holds its initial value there:
//!   a global only written once the program has started to exit (vim's `really_exiting`, set by
//!   `preserve_exit` before it calls `getout`), or never written at all (a configuration
//!   constant), is its initial value in every test drip folds.
//! - What is not said: after such a store, the functions the exiting function still calls see
//!   the other value (vim's `vim_free` stops freeing). Their effects on that way out are judged
//!   as in normal running; leaks there are not reported anyway (the program ends).
//! - A function never returns (`noreturn`) when no `return` is reachable from its entry, a block
//!   that calls a function that never returns ending its path (the front end already ends the
//!   path at calls to `exit`, `abort` and functions declared `noreturn`). Computed as a least
//!   fixpoint over the whole program, so a cycle of calls that may return is not noreturn.
//! - A run that did not see every TU of the database (one failed to parse, or was C++ and
//!   skipped) may miss a writer of an external global: then only `static` globals can be fixed
//!   (`seen_partly`, called by the command line).
//! - Deterministic: independent of thread count and of the order of functions.

use std::collections::{HashMap, HashSet};

use crate::ir::{BlockId, Callee, Function, Place, Program, Stmt, Terminator};

/// Name → the value a fixed global holds.
pub type Fixed = HashMap<String, i64>;

/// The fixed globals of `program`.
pub fn fixed(program: &Program) -> Fixed {
    let candidates: HashMap<&str, i64> = program
        .scalar_globals
        .iter()
        .filter(|(name, _, _)| program.global_addrs.binary_search(name).is_err())
        .filter_map(|(name, init, _)| Some((name.as_str(), (*init)?)))
        .collect();
    if candidates.is_empty() {
        return Fixed::new();
    }
    // The functions that store to each candidate.
    let mut writers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, f) in program.functions.iter().enumerate() {
        for s in &f.stmts {
            let dst = match s {
                Stmt::Assign { dst, .. } => Some(dst),
                Stmt::Call { dst, .. } => dst.as_ref(),
            };
            if let Some(Place::Global(g)) = dst {
                if candidates.contains_key(g.as_str()) {
                    writers.entry(g.as_str()).or_default().push(i);
                }
            }
        }
    }
    let ends = if writers.is_empty() { Vec::new() } else { noreturn(program) };
    candidates
        .into_iter()
        .filter(|(g, _)| writers.get(g).is_none_or(|w| w.iter().all(|i| ends[*i])))
        .map(|(g, k)| (g.to_string(), k))
        .collect()
}

/// Only `static` globals stay candidates: some code of the program was not seen, and it may
/// store to the others.
pub fn seen_partly(program: &mut Program) {
    program.scalar_globals.retain(|g| g.2);
}

/// Per function: it never returns (see the module's invariants).
pub fn noreturn(program: &Program) -> Vec<bool> {
    let by_usr: HashMap<&str, usize> =
        program.functions.iter().enumerate().rev().map(|(i, f)| (f.usr.as_str(), i)).collect();
    // The defined functions each function calls directly, per block.
    let callees = |f: &Function, b: BlockId| -> Vec<usize> {
        f.blocks[b.index()]
            .stmts
            .iter()
            .filter_map(|sid| match f.stmt(*sid) {
                Stmt::Call { callee: Callee::Direct { usr, .. }, .. } => by_usr.get(usr.as_str()).copied(),
                _ => None,
            })
            .collect()
    };
    let calls: Vec<Vec<Vec<usize>>> = program
        .functions
        .iter()
        .map(|f| (0..f.blocks.len()).map(|b| callees(f, BlockId::from_usize(b))).collect())
        .collect();
    // A worklist over callers: a function is looked at again only when one of its callees
    // turned out never to return, so a long chain of such functions costs one pass each.
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); program.functions.len()];
    for (i, blocks) in calls.iter().enumerate() {
        for c in blocks.iter().flatten() {
            if callers[*c].last() != Some(&i) {
                callers[*c].push(i);
            }
        }
    }
    let mut ends = vec![false; program.functions.len()];
    let mut work: Vec<usize> = (0..program.functions.len()).rev().collect();
    while let Some(i) = work.pop() {
        if ends[i] || returns(&program.functions[i], &calls[i], &ends) {
            continue;
        }
        ends[i] = true;
        work.extend(callers[i].iter().copied().filter(|c| !ends[*c]));
    }
    ends
}

/// A `return` of `f` is reachable from its entry, where blocks calling a function that never
/// returns (`ends`) go nowhere.
fn returns(f: &Function, calls: &[Vec<usize>], ends: &[bool]) -> bool {
    if f.blocks.is_empty() {
        return true;
    }
    let mut seen: HashSet<usize> = HashSet::new();
    let mut stack = vec![f.entry.index()];
    while let Some(b) = stack.pop() {
        if !seen.insert(b) {
            continue;
        }
        if calls[b].iter().any(|c| ends[*c]) {
            continue;
        }
        let term = &f.blocks[b].term;
        if matches!(term, Terminator::Return(_)) {
            return true;
        }
        stack.extend(term.successors().map(|s| s.index()));
    }
    false
}
