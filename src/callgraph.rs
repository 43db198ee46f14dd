//! The call graph of the linked program, split into strongly connected components and
//! scheduled bottom-up.
//!
//! Input: `&Program` (one function per USR: the front end and `link::resolve` see to it) and the USR index of
//! `Summaries`. Output: `CallGraph::sccs` in bottom-up order (every SCC's callee SCCs come
//! before it), with each SCC's callers (`dependents`) and number of callee SCCs (`pending`), so a
//! scheduler can start an SCC as soon as its callees are done; and the names of functions called
//! but defined nowhere.
//! Invariants: an indirect call through a function-pointer field that is only ever given
//! functions reaches exactly those (`Summaries::targets`); any other indirect call may reach every
//! address-taken function of a compatible type (callbacks, dispatch tables, function-pointer
//! fields given other values); SCCs and their member lists are sorted, so the graph never depends
//! on hashing or threads.

use crate::ir::{Callee, Program, Stmt};
use crate::summary::{Direct, Summaries};
use std::collections::BTreeSet;

pub struct CallGraph {
    /// SCCs, callees first: every callee SCC of `sccs[k]` has an index below `k`.
    pub sccs: Vec<Scc>,
    /// For each SCC, the SCCs that call into it (sorted, unique).
    pub dependents: Vec<Vec<usize>>,
    /// For each SCC, how many distinct other SCCs it calls: it can be analysed once that many
    /// have finished.
    pub pending: Vec<usize>,
    /// The length of the longest chain of SCC calls (the number of waves a level-synchronous
    /// schedule would need), for statistics.
    pub depth: usize,
    /// Callees (defined functions, direct and possible indirect targets) of every function.
    pub callees: Vec<Vec<usize>>,
    /// SCCs with more than one function or a self call.
    pub recursive_sccs: usize,
    /// For each function, whether a function of another SCC calls it: only those callers read
    /// its heap effects (a recursive SCC's members see each other without them), so a function
    /// nobody else calls — a program's entry points, a library's API — need not compute them.
    pub called_from_outside: Vec<bool>,
    /// Called, not defined in the program, and not in the library model (sorted).
    pub undefined: Vec<String>,
    /// C++ calls the lowering leaves opaque (`ir::OPAQUE_CPP_USR`, and the escape of a local at
    /// its scope's end), sorted: unknown callees too, though most are defined in the program.
    pub opaque_cpp: Vec<String>,
    /// Calls through function pointers, and those with no possible target (unknown callees).
    pub indirect_calls: usize,
    pub unresolved_indirect: usize,
    /// Indirect calls whose targets are the functions stored into their field.
    pub field_resolved_indirect: usize,
    /// Those through a global or local variable (`ir::VAR_KEY`), counted apart.
    pub var_resolved_indirect: usize,
    /// C++ virtual calls (`ir::VIRTUAL_KEY`, not in `indirect_calls`), and those the class
    /// hierarchy resolves; the method of each other one is in `opaque_cpp`.
    pub virtual_calls: usize,
    pub virtual_resolved: usize,
    /// Opaque virtual calls (`ir::OPAQUE_VIRTUAL_KEY`) the hierarchy gives targets: ordered
    /// after them for what they write.
    pub virtual_opaque_targeted: usize,
}

/// Functions that call each other (directly or through function pointers), summarised together.
#[derive(Clone, Debug)]
pub struct Scc {
    /// Function indices, sorted.
    pub members: Vec<usize>,
    /// More than one function, or a function that calls itself.
    pub recursive: bool,
}

pub fn build(program: &Program, summaries: &Summaries) -> CallGraph {
    let n = program.functions.len();
    let mut callees: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut undefined = BTreeSet::new();
    let mut opaque_cpp = BTreeSet::new();
    let mut indirect_calls = 0;
    let mut unresolved_indirect = 0;
    let mut field_resolved_indirect = 0;
    let mut var_resolved_indirect = 0;
    let mut virtual_calls = 0;
    let mut virtual_resolved = 0;
    let mut virtual_opaque_targeted = 0;
    for (i, f) in program.functions.iter().enumerate() {
        for (si, s) in f.stmts.iter().enumerate() {
            match s {
                Stmt::Call { callee: Callee::Direct { name, usr, .. }, .. } => {
                    match summaries.direct_callee(i, si, name, usr) {
                        Direct::Defined(j) => callees[i].push(j),
                        // Its summary is read for the globals it writes: summarised first.
                        Direct::Opaque(j) => {
                            callees[i].push(j);
                            opaque_cpp.insert(name.clone());
                        }
                        Direct::Undefined if usr.starts_with(crate::ir::CPP_RESERVED_USR) => {
                            opaque_cpp.insert(name.clone());
                        }
                        Direct::Undefined => {
                            undefined.insert(name.clone());
                        }
                        Direct::Library(_) => {}
                    }
                }
                Stmt::Call { callee: Callee::Indirect { sig, field: Some(k), .. }, .. }
                    if k.starts_with(crate::ir::VIRTUAL_KEY) =>
                {
                    virtual_calls += 1;
                    let resolved = summaries.resolved_by_field(Some(k));
                    if resolved {
                        callees[i].extend_from_slice(summaries.targets(sig, Some(k)));
                    }
                    // An opaque one is ordered after its targets only for what they write.
                    let opaque = k.starts_with(crate::ir::OPAQUE_VIRTUAL_KEY);
                    if resolved && !opaque {
                        virtual_resolved += 1;
                    } else {
                        virtual_opaque_targeted += usize::from(resolved);
                        opaque_cpp.insert(sig[crate::ir::VIRTUAL_KEY.len()..].to_string());
                    }
                }
                Stmt::Call { callee: Callee::Indirect { sig, field, .. }, .. } => {
                    indirect_calls += 1;
                    if summaries.resolved_by_field(field.as_deref()) {
                        if field.as_deref().is_some_and(|k| k.starts_with(crate::ir::VAR_KEY)) {
                            var_resolved_indirect += 1;
                        } else {
                            field_resolved_indirect += 1;
                        }
                    }
                    let targets = summaries.targets(sig, field.as_deref());
                    if targets.is_empty() && summaries.library_targets(sig, field.as_deref()).is_empty() {
                        unresolved_indirect += 1;
                    }
                    callees[i].extend_from_slice(targets);
                }
                Stmt::Assign { .. } => {}
            }
        }
        callees[i].sort_unstable();
        callees[i].dedup();
    }
    let c = condense(&callees);
    CallGraph {
        sccs: c.sccs,
        dependents: c.dependents,
        pending: c.pending,
        depth: c.depth,
        callees,
        recursive_sccs: c.recursive_sccs,
        called_from_outside: c.called_from_outside,
        undefined: undefined.into_iter().collect(),
        opaque_cpp: opaque_cpp.into_iter().collect(),
        indirect_calls,
        unresolved_indirect,
        field_resolved_indirect,
        var_resolved_indirect,
        virtual_calls,
        virtual_resolved,
        virtual_opaque_targeted,
    }
}

struct Condensed {
    sccs: Vec<Scc>,
    dependents: Vec<Vec<usize>>,
    pending: Vec<usize>,
    depth: usize,
    recursive_sccs: usize,
    called_from_outside: Vec<bool>,
}

/// The SCC graph of `callees`, bottom-up, with the counts a dependency-driven scheduler needs.
fn condense(callees: &[Vec<usize>]) -> Condensed {
    let (scc_of, n_sccs) = tarjan(callees);
    // Tarjan numbers SCCs in reverse topological order: callees get lower numbers, so the
    // numbering itself is a bottom-up order.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n_sccs];
    for (f, c) in scc_of.iter().enumerate() {
        members[*c].push(f);
    }
    // Functions are pushed in index order, so every member list is sorted.
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n_sccs];
    let mut pending = vec![0usize; n_sccs];
    let mut level = vec![0usize; n_sccs];
    let mut sccs = Vec::with_capacity(n_sccs);
    let mut recursive_sccs = 0;
    let mut called_from_outside = vec![false; callees.len()];
    for (c, m) in members.into_iter().enumerate() {
        let mut recursive = m.len() > 1;
        let mut deps: Vec<usize> = Vec::new();
        for f in &m {
            for g in &callees[*f] {
                let cg = scc_of[*g];
                if cg == c {
                    recursive = true;
                } else {
                    deps.push(cg);
                    called_from_outside[*g] = true;
                }
            }
        }
        deps.sort_unstable();
        deps.dedup();
        pending[c] = deps.len();
        for d in deps {
            level[c] = level[c].max(level[d] + 1);
            dependents[d].push(c);
        }
        recursive_sccs += usize::from(recursive);
        sccs.push(Scc { members: m, recursive });
    }
    let depth = level.iter().copied().max().map_or(0, |m| m + 1);
    Condensed { sccs, dependents, pending, depth, recursive_sccs, called_from_outside }
}

/// Iterative Tarjan: SCC id of every node, numbered so that an SCC's callees come first.
fn tarjan(succ: &[Vec<usize>]) -> (Vec<usize>, usize) {
    let n = succ.len();
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut scc = vec![NONE; n];
    let mut next_index = 0;
    let mut n_sccs = 0;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if *i < succ[v].len() {
                let w = succ[v][*i];
                *i += 1;
                if index[w] == NONE {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        scc[w] = n_sccs;
                        if w == v {
                            break;
                        }
                    }
                    n_sccs += 1;
                }
            }
        }
    }
    (scc, n_sccs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sccs_come_callees_first() {
        // 0 → 1 → 2 → 1 (1 and 2 recursive), 3 alone.
        let succ = vec![vec![1], vec![2], vec![1], vec![]];
        let (scc, n) = tarjan(&succ);
        assert_eq!(n, 3);
        assert_eq!(scc[1], scc[2]);
        assert!(scc[1] < scc[0], "callee SCC numbered first");
    }

    #[test]
    fn dependents_and_pending_counts() {
        // 0 → {1, 3}, 1 ⇄ 2, 4 → 3: SCCs {3}, {1,2}, {0}, {4} in some bottom-up order.
        let succ = vec![vec![1, 3], vec![2], vec![1], vec![], vec![3]];
        let c = condense(&succ);
        assert_eq!(c.sccs.len(), 4);
        assert_eq!(c.recursive_sccs, 1);
        let at = |f: usize| c.sccs.iter().position(|s| s.members.contains(&f)).unwrap();
        assert_eq!(c.sccs[at(1)].members, vec![1, 2]);
        assert!(c.sccs[at(1)].recursive && !c.sccs[at(0)].recursive);
        for (k, s) in c.sccs.iter().enumerate() {
            for f in &s.members {
                for g in &succ[*f] {
                    assert!(at(*g) <= k, "callee SCC {} after caller SCC {k}", at(*g));
                }
            }
        }
        assert_eq!(c.pending[at(0)], 2, "0 waits for {{1,2}} and {{3}}");
        assert_eq!(c.pending[at(4)], 1);
        assert_eq!(c.pending[at(3)], 0);
        assert_eq!(c.dependents[at(3)], {
            let mut v = vec![at(0), at(4)];
            v.sort();
            v
        });
        assert_eq!(c.depth, 2);
        // 1 is called by 0 (another SCC); 2 only by 1, inside its own SCC; 0 and 4 by nobody.
        assert_eq!(c.called_from_outside, vec![false, true, false, true, false]);
    }
}
