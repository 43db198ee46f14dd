//! The SAT back end: the only module that touches the solver (MiniSat through `rustsat-minisat`).
//!
//! Input: a `Guards` arena, its exactly-one groups and atoms defined as disjunctions of others,
//! and queries given as conjunctions of guards that must hold (`true`) or fail (`false`).
//! Output: `Answer::Sat(model)` with a value for every atom, `Answer::Unsat`, or `Answer::Unknown`
//! when the conflict budget ran out.
//! Invariants: a solver is used with one guard arena (passed to each query; node ids are
//! remembered) and never shared across threads; every guard node gets a Tseitin variable whose
//! definition has the side(s) the queries so far needed (see `encode`), and the clauses hold
//! whatever the query — the sites of one function share a solver; clauses reach MiniSat only
//! right before a search, in the order they were made (`Solver::pending`); the policy
//! for an exhausted budget is explicit: `Unknown`, which callers must treat as "not proven" (the
//! site goes to the over-budget category), never as "no bug".

use crate::guard::{AtomId, GuardId, Guards, Node};
use hashbrown::HashMap;
use rustsat::solvers::{LimitConflicts, Solve, SolveIncremental, SolverResult};
use rustsat::types::{Lit, TernaryVal};
use rustsat_minisat::core::Minisat;
use smallvec::SmallVec;

pub enum Answer {
    Sat(Model),
    Unsat,
    Unknown,
}

/// Truth values of the atoms in a satisfying assignment.
pub struct Model {
    values: HashMap<AtomId, bool>,
}

impl Model {
    pub fn value(&self, a: AtomId) -> Option<bool> {
        self.values.get(&a).copied()
    }
}

/// Sides of a guard's definition: the literal implies the formula, the formula implies the
/// literal.
const POS: u8 = 1;
const NEG: u8 = 2;

pub struct Solver<'g> {
    /// Made by the first query that needs a search: most summary passes and many functions
    /// never ask one, and making and dropping a MiniSat instance is not free.
    solver: Option<Minisat>,
    /// Clauses made since the last search, flattened (`pending_ends`: where each one ends), added
    /// to MiniSat right before the next search. Between two searches MiniSat only stores clauses,
    /// so adding them later in the same order leaves it exactly as adding them at once would;
    /// and the clauses after the last search (a query a constant decides, the last site's
    /// formulas) are never added at all.
    pending: Vec<Lit>,
    pending_ends: Vec<usize>,
    /// Tseitin literal per guard node, indexed by `GuardId` (the arena is dense), with the sides
    /// of its definition already added (`POS`, `NEG`).
    node_var: Vec<Option<(Lit, u8)>>,
    atom_var: HashMap<AtomId, Lit>,
    next_var: u32,
    conflict_limit: u32,
    pub queries: u32,
    groups: &'g [Vec<AtomId>],
    group_of: HashMap<AtomId, usize>,
    groups_added: Vec<bool>,
    /// Atoms defined as the disjunction of others (`FnCx::ors`), and for each atom the
    /// definitions it takes part in: added, like groups, when one of their atoms first appears.
    ors: &'g [(AtomId, Box<[AtomId]>)],
    or_of: HashMap<AtomId, SmallVec<[u32; 2]>>,
    ors_added: Vec<bool>,
    /// The function's work budget: past it, every query is `Unknown` without a search.
    budget: Option<std::sync::Arc<crate::budget::Budget>>,
}

impl<'g> Solver<'g> {
    /// `groups`: exactly-one constraints (switch consistency, FastCheck's C_n). A group's
    /// clauses are added when one of its atoms first appears in a query, so a site whose formulas
    /// never mention a big switch does not pay for it.
    pub fn new(groups: &'g [Vec<AtomId>], conflict_limit: u32) -> Solver<'g> {
        let mut group_of = HashMap::new();
        for (i, group) in groups.iter().enumerate() {
            for a in group {
                group_of.insert(*a, i);
            }
        }
        Solver {
            solver: None,
            pending: Vec::new(),
            pending_ends: Vec::new(),
            node_var: Vec::new(),
            atom_var: HashMap::new(),
            next_var: 0,
            conflict_limit,
            queries: 0,
            groups,
            group_of,
            groups_added: vec![false; groups.len()],
            ors: &[],
            or_of: HashMap::new(),
            ors_added: Vec::new(),
            budget: None,
        }
    }

    /// Atoms that stand for the disjunction of others (`a ≡ b₁ ∨ … ∨ bₙ`: a test of several bits
    /// of one word is the disjunction of the tests of each bit). A definition's clauses are added
    /// when one of its atoms first appears in a query, so every query that mentions two related
    /// atoms has the relation.
    pub fn with_ors(mut self, ors: &'g [(AtomId, Box<[AtomId]>)]) -> Solver<'g> {
        for (i, (a, parts)) in ors.iter().enumerate() {
            for x in std::iter::once(a).chain(parts.iter()) {
                self.or_of.entry(*x).or_default().push(i as u32);
            }
        }
        self.ors = ors;
        self.ors_added = vec![false; ors.len()];
        self
    }

    fn add_or(&mut self, i: usize) {
        self.ors_added[i] = true;
        let (a, parts) = &self.ors[i];
        let a = self.atom(*a);
        let parts: Vec<Lit> = parts.iter().map(|b| self.atom(*b)).collect();
        // a → ⋁ bᵢ, and each bᵢ → a.
        let mut clause = vec![!a];
        clause.extend_from_slice(&parts);
        self.add(&clause);
        for b in parts {
            self.add(&[!b, a]);
        }
    }

    /// Answer `Unknown` to every query once the function's `budget` has run out: a query costs
    /// far more than reading the clock, so each one looks.
    pub fn set_budget(&mut self, budget: std::sync::Arc<crate::budget::Budget>) {
        self.budget = Some(budget);
    }

    fn add_group(&mut self, gi: usize) {
        self.groups_added[gi] = true;
        let group = &self.groups[gi];
        let lits: Vec<Lit> = group.iter().map(|a| self.atom(*a)).collect();
        self.add(&lits);
        if lits.len() <= 6 {
            for i in 0..lits.len() {
                for j in i + 1..lits.len() {
                    self.add(&[!lits[i], !lits[j]]);
                }
            }
        } else {
            // Sequential (ladder) at-most-one: linear in the group size, for big switches.
            let mut prev: Option<Lit> = None;
            for (i, x) in lits.iter().enumerate() {
                let seen = self.fresh();
                self.add(&[!*x, seen]);
                if let Some(p) = prev {
                    self.add(&[!p, seen]);
                    self.add(&[!p, !*x]);
                }
                if i + 1 == lits.len() {
                    break;
                }
                prev = Some(seen);
            }
        }
    }

    fn fresh(&mut self) -> Lit {
        let l = Lit::positive(self.next_var);
        self.next_var += 1;
        l
    }

    fn add(&mut self, lits: &[Lit]) {
        self.pending.extend_from_slice(lits);
        self.pending_ends.push(self.pending.len());
    }

    /// Make the MiniSat instance, if there is none yet, and give it every clause made so far.
    fn flush(&mut self) {
        let solver = self.solver.get_or_insert_with(Minisat::default);
        let mut start = 0;
        for &end in &self.pending_ends {
            // MiniSat only fails here when out of memory; the query will then report Unknown.
            let _ = solver.add_clause_ref(&self.pending[start..end]);
            start = end;
        }
        self.pending.clear();
        self.pending_ends.clear();
    }

    fn atom(&mut self, a: AtomId) -> Lit {
        if let Some(l) = self.atom_var.get(&a) {
            return *l;
        }
        let l = self.fresh();
        self.atom_var.insert(a, l);
        if let Some(&gi) = self.group_of.get(&a) {
            if !self.groups_added[gi] {
                self.add_group(gi);
            }
        }
        if let Some(defs) = self.or_of.get(&a).cloned() {
            for i in defs {
                if !self.ors_added[i as usize] {
                    self.add_or(i as usize);
                }
            }
        }
        l
    }

    /// The literal standing for guard `g` of `guards` (always the same arena: node ids are
    /// remembered across queries), with the definition clauses for the sides in `sides`
    /// (`POS`: the literal implies the formula, needed to assume it true; `NEG`: the formula
    /// implies the literal, needed to assume it false). Adding only the sides a query needs
    /// (Plaisted–Greenbaum) halves the clauses of most formulas, which are only ever assumed one
    /// way; a side added later for another query completes the definition. Either side alone is
    /// satisfiable for any atom values, so the clauses constrain nothing but the new variable.
    fn encode(&mut self, guards: &Guards, g: GuardId, sides: u8) -> Lit {
        let (lit, done) = match self.node_var.get(g.0 as usize) {
            Some(Some((l, done))) if done & sides == sides => return *l,
            Some(Some((l, done))) => (Some(*l), *done),
            _ => (None, 0),
        };
        let missing = sides & !done;
        let lit = match guards.node(g) {
            Node::True | Node::False => {
                let l = lit.unwrap_or_else(|| self.fresh());
                let t = matches!(guards.node(g), Node::True);
                self.add(&[if t { l } else { !l }]);
                self.remember(g, l, POS | NEG);
                return l;
            }
            Node::Lit { atom, positive } => {
                let a = self.atom(atom);
                let l = if positive { a } else { !a };
                self.remember(g, l, POS | NEG);
                return l;
            }
            Node::Not(f) => {
                // ¬f needs f's other side: assuming ¬f true is assuming f false.
                let flipped = ((sides & POS) << 1) | ((sides & NEG) >> 1);
                let l = !self.encode(guards, f, flipped);
                self.remember(g, l, done | missing);
                return l;
            }
            Node::And(kids) => {
                let v = lit.unwrap_or_else(|| self.fresh());
                let ks: SmallVec<[Lit; 16]> = kids.iter().map(|k| self.encode(guards, *k, missing)).collect();
                if missing & POS != 0 {
                    // v → k for each k.
                    for k in &ks {
                        self.add(&[!v, *k]);
                    }
                }
                if missing & NEG != 0 {
                    // (∧k) → v.
                    let mut back: SmallVec<[Lit; 17]> = smallvec::smallvec![v];
                    back.extend(ks.iter().map(|k| !*k));
                    self.add(&back);
                }
                v
            }
            Node::Or(kids) => {
                let v = lit.unwrap_or_else(|| self.fresh());
                let ks: SmallVec<[Lit; 16]> = kids.iter().map(|k| self.encode(guards, *k, missing)).collect();
                if missing & POS != 0 {
                    // v → (∨k).
                    let mut fwd: SmallVec<[Lit; 17]> = smallvec::smallvec![!v];
                    fwd.extend(ks.iter().copied());
                    self.add(&fwd);
                }
                if missing & NEG != 0 {
                    // k → v for each k.
                    for k in &ks {
                        self.add(&[!*k, v]);
                    }
                }
                v
            }
        };
        self.remember(g, lit, done | missing);
        lit
    }

    fn remember(&mut self, g: GuardId, lit: Lit, done: u8) {
        if self.node_var.len() <= g.0 as usize {
            self.node_var.resize(g.0 as usize + 1, None);
        }
        self.node_var[g.0 as usize] = Some((lit, done));
    }

    /// Is there an assignment where every `(guard, value)` holds?
    pub fn check(&mut self, guards: &Guards, wanted: &[(GuardId, bool)]) -> Answer {
        if self.budget.as_ref().is_some_and(|b| b.check_clock()) {
            return Answer::Unknown;
        }
        self.queries += 1;
        let mut assumps = Vec::with_capacity(wanted.len());
        for (g, v) in wanted {
            if *g == GuardId::TRUE && *v || *g == GuardId::FALSE && !*v {
                continue;
            }
            if *g == GuardId::TRUE || *g == GuardId::FALSE {
                return Answer::Unsat;
            }
            let l = self.encode(guards, *g, if *v { POS } else { NEG });
            assumps.push(if *v { l } else { !l });
        }
        self.flush();
        let solver = self.solver.get_or_insert_with(Minisat::default);
        let _ = solver.limit_conflicts(Some(self.conflict_limit));
        match solver.solve_assumps(&assumps) {
            Ok(SolverResult::Sat) => {
                let mut values = HashMap::new();
                for (a, l) in &self.atom_var {
                    let v = matches!(solver.lit_val(*l), Ok(TernaryVal::True));
                    values.insert(*a, v);
                }
                Answer::Sat(Model { values })
            }
            Ok(SolverResult::Unsat) => Answer::Unsat,
            _ => Answer::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_example_two_frees_under_c_and_not_c() {
        // FastCheck 3.2: free(p) under c, free(q) under ¬c with q = p.
        let mut g = Guards::new(100);
        let c = g.lit(AtomId(0), true);
        let nc = g.lit(AtomId(0), false);
        let any_free = g.or(c, nc);
        let both = g.and(c, nc);
        let mut s = Solver::new(&[], 10_000);
        assert!(matches!(s.check(&g, &[(any_free, false)]), Answer::Unsat), "no leak");
        assert!(matches!(s.check(&g, &[(both, true)]), Answer::Unsat), "no double free");
    }

    #[test]
    fn a_guard_assumed_both_ways_gets_both_sides_of_its_definition() {
        // g = (a ∧ b) ∨ c, first assumed true (only "g implies its formula" is added), then
        // false: the other side must be added then, or ¬g would not force ¬(a ∧ b).
        let mut g = Guards::new(100);
        let a = g.lit(AtomId(0), true);
        let b = g.lit(AtomId(1), true);
        let c = g.lit(AtomId(2), true);
        let ab = g.and(a, b);
        let f = g.or(ab, c);
        let mut s = Solver::new(&[], 10_000);
        let nc = g.lit(AtomId(2), false);
        match s.check(&g, &[(f, true), (nc, true)]) {
            Answer::Sat(m) => assert_eq!((m.value(AtomId(0)), m.value(AtomId(1))), (Some(true), Some(true))),
            _ => panic!("f holds with a and b"),
        }
        assert!(matches!(s.check(&g, &[(f, false), (ab, true)]), Answer::Unsat), "¬f excludes a ∧ b");
        assert!(matches!(s.check(&g, &[(f, false), (c, true)]), Answer::Unsat), "¬f excludes c");
        assert!(matches!(s.check(&g, &[(f, false)]), Answer::Sat(_)));
    }

    #[test]
    fn a_negated_formula_is_solved_through_the_other_side_of_its_definition() {
        let mut g = Guards::new(100);
        let a = g.lit(AtomId(0), true);
        let b = g.lit(AtomId(1), true);
        let ab = g.and(a, b);
        let n = g.not(ab);
        let mut s = Solver::new(&[], 10_000);
        assert!(matches!(s.check(&g, &[(n, true), (a, true), (b, true)]), Answer::Unsat), "¬(a ∧ b) excludes a, b");
        match s.check(&g, &[(n, true), (a, true)]) {
            Answer::Sat(m) => assert_eq!(m.value(AtomId(1)), Some(false)),
            _ => panic!("¬(a ∧ b) with a needs ¬b"),
        }
        match s.check(&g, &[(n, false)]) {
            Answer::Sat(m) => assert_eq!((m.value(AtomId(0)), m.value(AtomId(1))), (Some(true), Some(true))),
            _ => panic!("¬¬(a ∧ b) is a ∧ b"),
        }
    }

    #[test]
    fn an_atom_defined_as_a_disjunction_agrees_with_its_parts() {
        // Atom 0 is "bit 1 or bit 2", atoms 1 and 2 the bits: a query mentioning only some of
        // them still gets the definition.
        let mut g = Guards::new(100);
        let either = g.lit(AtomId(0), true);
        let neither = g.lit(AtomId(0), false);
        let b1 = g.lit(AtomId(1), true);
        let nb1 = g.lit(AtomId(1), false);
        let nb2 = g.lit(AtomId(2), false);
        let ors = [(AtomId(0), vec![AtomId(1), AtomId(2)].into_boxed_slice())];
        let mut s = Solver::new(&[], 10_000).with_ors(&ors);
        assert!(matches!(s.check(&g, &[(either, true), (nb1, true), (nb2, true)]), Answer::Unsat));
        assert!(matches!(s.check(&g, &[(neither, true), (b1, true)]), Answer::Unsat));
        match s.check(&g, &[(either, true), (nb1, true)]) {
            Answer::Sat(m) => assert_eq!(m.value(AtomId(2)), Some(true)),
            _ => panic!("the other bit is set"),
        }
        let mut fresh = Solver::new(&[], 10_000).with_ors(&ors);
        assert!(matches!(fresh.check(&g, &[(b1, true), (neither, true)]), Answer::Unsat), "a part first");
    }

    #[test]
    fn leak_model_names_the_branch() {
        let mut g = Guards::new(100);
        let q_ok = g.lit(AtomId(3), true);
        let mut s = Solver::new(&[], 10_000);
        match s.check(&g, &[(q_ok, false)]) {
            Answer::Sat(m) => assert_eq!(m.value(AtomId(3)), Some(false)),
            _ => panic!("expected a leak model"),
        }
    }

    #[test]
    fn big_groups_use_the_ladder_encoding() {
        let mut g = Guards::new(100);
        let atoms: Vec<AtomId> = (0..10).map(AtomId).collect();
        let a3 = g.lit(atoms[3], true);
        let a7 = g.lit(atoms[7], true);
        let both = g.and(a3, a7);
        let groups = [atoms.clone()];
        let mut s = Solver::new(&groups, 10_000);
        assert!(matches!(s.check(&g, &[(both, true)]), Answer::Unsat));
        match s.check(&g, &[(a7, true)]) {
            Answer::Sat(m) => assert_eq!(m.value(atoms[3]), Some(false)),
            _ => panic!("a single case is satisfiable"),
        }
        let none = g.or(a3, a7);
        let mut s = Solver::new(&groups, 10_000);
        assert!(matches!(s.check(&g, &[(none, false)]), Answer::Sat(_)), "another case may hold");
    }

    #[test]
    fn exactly_one_groups_constrain_models() {
        let mut g = Guards::new(100);
        let a = g.lit(AtomId(0), true);
        let b = g.lit(AtomId(1), true);
        let both = g.and(a, b);
        let either = g.or(a, b);
        let groups = [vec![AtomId(0), AtomId(1)]];
        let mut s = Solver::new(&groups, 10_000);
        assert!(matches!(s.check(&g, &[(both, true)]), Answer::Unsat));
        assert!(matches!(s.check(&g, &[(either, false)]), Answer::Unsat));
    }
}
