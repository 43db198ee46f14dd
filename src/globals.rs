//! Globals whose value is fixed outside the program's way out.
//!
//! Input: the linked `Program`: its functions' IR, the scalar globals the front end saw defined
//! with their initial values (`Program::scalar_globals`), and the globals whose address is taken
//! (`Program::global_addrs`). Output: `Fixed`, name → the value the global holds.
//! Invariants:
//! - A global is fixed when its address is never taken, every definition of its name has the
//!   same integer constant as initial value (C's zero when there is none, `int n;` included),
//!   and every function that stores to it never returns (`noreturn`) because it ends the program
//!   (some block calls `exit` or a function that never returns) and is not `main` (whose stores
//!   run before the rest of the program: scp's options) — `on_the_way_out`. Then no store can have run on a path that has
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

use crate::ir::{Callee, Function, Place, Program, Stmt, Terminator};

/// Name → the value a fixed global holds.
pub type Fixed = HashMap<String, i64>;

/// The fixed globals of `program`.
pub fn fixed(program: &Program) -> Fixed {
    let candidates: hashbrown::HashMap<&str, i64> = program
        .scalar_globals
        .iter()
        .filter(|(name, _, _)| program.global_addrs.binary_search(name).is_err())
        .filter_map(|(name, init, _)| Some((name.as_str(), (*init)?)))
        .collect();
    if candidates.is_empty() {
        return Fixed::new();
    }
    // The functions that store to each candidate.
    let mut writers: hashbrown::HashMap<&str, Vec<usize>> = hashbrown::HashMap::new();
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
    let by_usr: hashbrown::HashMap<&str, usize> =
        program.functions.iter().enumerate().rev().map(|(i, f)| (f.usr.as_str(), i)).collect();
    candidates
        .into_iter()
        .filter(|(g, _)| writers.get(g).is_none_or(|w| w.iter().all(|i| on_the_way_out(program, &by_usr, &ends, *i))))
        .map(|(g, k)| (g.to_string(), k))
        .collect()
}

/// A store in function `i` runs only once the program has started to end: `i` never returns,
/// and it is not `main` (whose stores run before everything it calls: scp's `iamrecursive = 1`
/// while reading options) nor a function that only loops forever (an event loop's `got_signal =
/// 0`): some block of it ends the program (a call to `exit` or to a function that never
/// returns).
fn on_the_way_out(program: &Program, by_usr: &hashbrown::HashMap<&str, usize>, ends: &[bool], i: usize) -> bool {
    let f = &program.functions[i];
    if !ends[i] || f.name == "main" {
        return false;
    }
    f.blocks.iter().any(|b| {
        matches!(b.term, Terminator::NoReturn)
            || b.stmts.iter().any(|sid| match f.stmt(*sid) {
                Stmt::Call { callee: Callee::Direct { usr, .. }, .. } => {
                    by_usr.get(usr.as_str()).is_some_and(|c| ends[*c])
                }
                _ => false,
            })
    })
}

/// The scalar globals whose address is never taken (`taken`: `global_writes::address_taken`):
/// a store through a pointer cannot write them, and a store to them writes nothing a pointer
/// leads to. Only the scalars the front end saw defined (`Program::scalar_globals`, which
/// `seen_partly` narrows to `static`s when some code was not seen): an array decays to a pointer
/// without `&`, so none is ever in the set.
pub fn unaliased(program: &Program, taken: &[String]) -> HashSet<String> {
    program
        .scalar_globals
        .iter()
        .filter(|(name, _, _)| !crate::global_writes::is_address_taken(taken, name))
        .map(|(name, _, _)| name.clone())
        .collect()
}

/// Only `static` globals stay candidates: some code of the program was not seen, and it may
/// store to the others.
pub fn seen_partly(program: &mut Program) {
    program.scalar_globals.retain(|g| g.2);
    program.seen_partly = true;
}

/// Per function: it never returns (see the module's invariants).
pub fn noreturn(program: &Program) -> Vec<bool> {
    let by_usr: hashbrown::HashMap<&str, usize> =
        program.functions.iter().enumerate().rev().map(|(i, f)| (f.usr.as_str(), i)).collect();
    // The defined functions each function calls directly, with the block of the call, in block
    // order: one list per function (a list per block was most of this pass's allocations).
    let calls: Vec<Vec<(usize, usize)>> = program
        .functions
        .iter()
        .map(|f| {
            let mut calls = Vec::new();
            for (b, block) in f.blocks.iter().enumerate() {
                for sid in &block.stmts {
                    if let Stmt::Call { callee: Callee::Direct { usr, .. }, .. } = f.stmt(*sid) {
                        calls.extend(by_usr.get(usr.as_str()).map(|c| (b, *c)));
                    }
                }
            }
            calls
        })
        .collect();
    // A worklist over callers: a function is looked at again only when one of its callees
    // turned out never to return, so a long chain of such functions costs one pass each.
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); program.functions.len()];
    for (i, calls) in calls.iter().enumerate() {
        for &(_, c) in calls {
            if callers[c].last() != Some(&i) {
                callers[c].push(i);
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
/// returns (`ends`; `calls`: (block, callee)) go nowhere.
fn returns(f: &Function, calls: &[(usize, usize)], ends: &[bool]) -> bool {
    if f.blocks.is_empty() {
        return true;
    }
    let mut stops = vec![false; f.blocks.len()];
    for &(b, c) in calls {
        stops[b] |= ends[c];
    }
    let mut seen = vec![false; f.blocks.len()];
    let mut stack = vec![f.entry.index()];
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut seen[b], true) || stops[b] {
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
