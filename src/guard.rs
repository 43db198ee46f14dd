//! Guards: hash-consed, simplified boolean formulas over branch atoms.
//!
//! Input: atoms (branch outcomes, switch cases, allocation success) created by `fastcheck`.
//! Output: `GuardId`s that `sat` turns into clauses.
//! Invariants:
//! - Structurally equal formulas get the same `GuardId` (hash-consing), so a formula is a DAG and
//!   equality is id equality.
//! - `GuardId::FALSE` and `GuardId::TRUE` are ids 0 and 1; constructors never build a node that a
//!   local rule folds away (`f ∧ true`, `f ∨ false`, `a ∧ ¬a`, `(f ∧ g) ∨ (f ∧ ¬g)` = `f`, a full
//!   exactly-one switch group = `true`), the simplifications of FastCheck 5.6.3.
//! - No negation nodes: only literals carry polarity. The leak query negates a disjunction, which
//!   `sat` does through the Tseitin variable of that disjunction; `not` pushes a negation down to
//!   the literals.
//! - The arena stops growing past its budget: `over_budget()` reports it, and the caller must put
//!   the allocation site into the over-budget category instead of trusting the formulas.

use hashbrown::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct GuardId(pub u32);

/// Conjunctions and disjunctions up to this size are flattened into their parents, so the local
/// simplifications see their parts; bigger ones stay shared subformulas.
const FLATTEN_MAX: usize = 8;

impl GuardId {
    pub const FALSE: GuardId = GuardId(0);
    pub const TRUE: GuardId = GuardId(1);
}

/// A boolean variable: one outcome of a branch, one case of a switch, or "allocation S succeeded".
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct AtomId(pub u32);

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    False,
    True,
    /// `atom` when `positive`, else `¬atom`.
    Lit { atom: AtomId, positive: bool },
    /// Children sorted and unique.
    And(Box<[GuardId]>),
    Or(Box<[GuardId]>),
}

pub struct Guards {
    nodes: Vec<Node>,
    /// `¬g` for formulas already negated (negation is pushed to the literals).
    negated: HashMap<GuardId, GuardId>,
    interned: HashMap<Node, GuardId>,
    /// Exactly-one groups (switch statements): atom → (group, size of group).
    group_of: HashMap<AtomId, (u32, u32)>,
    max_nodes: usize,
    over_budget: bool,
}

impl Guards {
    pub fn new(max_nodes: usize) -> Guards {
        let mut g = Guards {
            nodes: Vec::new(),
            negated: HashMap::new(),
            interned: HashMap::new(),
            group_of: HashMap::new(),
            max_nodes,
            over_budget: false,
        };
        g.intern(Node::False);
        g.intern(Node::True);
        g
    }

    pub fn node(&self, g: GuardId) -> &Node {
        &self.nodes[g.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn over_budget(&self) -> bool {
        self.over_budget
    }

    /// Allow the arena to grow to `max_nodes` in all (a per-site budget on a shared arena).
    pub fn set_cap(&mut self, max_nodes: usize) {
        self.max_nodes = max_nodes;
    }

    /// Forget a budget hit once the caller has recorded it.
    pub fn reset_budget(&mut self) {
        self.over_budget = false;
    }

    /// Declare that exactly one of `atoms` holds (the cases of one switch). Enables folding their
    /// full disjunction to `true`; `sat` adds the matching constraint.
    pub fn declare_exactly_one(&mut self, group: u32, atoms: &[AtomId]) {
        for a in atoms {
            self.group_of.insert(*a, (group, atoms.len() as u32));
        }
    }

    fn intern(&mut self, n: Node) -> GuardId {
        if let Some(id) = self.interned.get(&n) {
            return *id;
        }
        if self.nodes.len() >= self.max_nodes {
            // Keep answering (callers do not need to check every step) but never trust the result.
            self.over_budget = true;
            return GuardId::TRUE;
        }
        let id = GuardId(self.nodes.len() as u32);
        self.nodes.push(n.clone());
        self.interned.insert(n, id);
        id
    }

    /// The literal's node if some formula already uses it (the solver can only be asked about
    /// existing nodes once it borrows the arena).
    pub fn find_lit(&self, atom: AtomId, positive: bool) -> Option<GuardId> {
        self.interned.get(&Node::Lit { atom, positive }).copied()
    }

    pub fn lit(&mut self, atom: AtomId, positive: bool) -> GuardId {
        self.intern(Node::Lit { atom, positive })
    }

    fn as_lit(&self, g: GuardId) -> Option<(AtomId, bool)> {
        match self.node(g) {
            Node::Lit { atom, positive } => Some((*atom, *positive)),
            _ => None,
        }
    }

    /// The conjuncts of `g` (itself when it is not a conjunction, or a large one: flattening big
    /// conjunctions into every new node would make a long chain of branches quadratic).
    fn conjuncts(&self, g: GuardId) -> Vec<GuardId> {
        match self.node(g) {
            Node::And(c) if c.len() <= FLATTEN_MAX => c.to_vec(),
            Node::True => Vec::new(),
            _ => vec![g],
        }
    }

    fn disjuncts(&self, g: GuardId) -> Vec<GuardId> {
        match self.node(g) {
            Node::Or(c) if c.len() <= FLATTEN_MAX => c.to_vec(),
            Node::False => Vec::new(),
            _ => vec![g],
        }
    }

    fn has_complementary_lits(&self, kids: &[GuardId]) -> bool {
        let mut lits: Vec<(AtomId, bool)> = kids.iter().filter_map(|g| self.as_lit(*g)).collect();
        lits.sort_unstable();
        lits.windows(2).any(|w| w[0].0 == w[1].0 && w[0].1 != w[1].1)
    }

    /// `¬g`, with the negation pushed down to the literals (De Morgan); shared subformulas are
    /// negated once.
    pub fn not(&mut self, g: GuardId) -> GuardId {
        if let Some(n) = self.negated.get(&g) {
            return *n;
        }
        let n = match self.node(g).clone() {
            Node::False => GuardId::TRUE,
            Node::True => GuardId::FALSE,
            Node::Lit { atom, positive } => self.lit(atom, !positive),
            Node::And(kids) => {
                let neg: Vec<GuardId> = kids.iter().map(|k| self.not(*k)).collect();
                neg.into_iter().fold(GuardId::FALSE, |acc, k| self.or(acc, k))
            }
            Node::Or(kids) => {
                let neg: Vec<GuardId> = kids.iter().map(|k| self.not(*k)).collect();
                self.and_all(neg)
            }
        };
        self.negated.insert(g, n);
        n
    }

    pub fn and(&mut self, a: GuardId, b: GuardId) -> GuardId {
        if a == GuardId::FALSE || b == GuardId::FALSE {
            return GuardId::FALSE;
        }
        if a == GuardId::TRUE || a == b {
            return b;
        }
        if b == GuardId::TRUE {
            return a;
        }
        let mut kids = self.conjuncts(a);
        kids.extend(self.conjuncts(b));
        self.and_of(kids)
    }

    pub fn and_all(&mut self, items: impl IntoIterator<Item = GuardId>) -> GuardId {
        let mut kids = Vec::new();
        for g in items {
            if g == GuardId::FALSE {
                return GuardId::FALSE;
            }
            kids.extend(self.conjuncts(g));
        }
        self.and_of(kids)
    }

    fn and_of(&mut self, mut kids: Vec<GuardId>) -> GuardId {
        kids.sort_unstable();
        kids.dedup();
        if self.has_complementary_lits(&kids) {
            return GuardId::FALSE;
        }
        // Absorption: a ∧ (a ∨ b) = a.
        let all = kids.clone();
        kids.retain(|k| match self.node(*k) {
            Node::Or(ds) => !ds.iter().any(|d| all.binary_search(d).is_ok()),
            _ => true,
        });
        match kids.len() {
            0 => GuardId::TRUE,
            1 => kids[0],
            _ => self.intern(Node::And(kids.into_boxed_slice())),
        }
    }

    pub fn or(&mut self, a: GuardId, b: GuardId) -> GuardId {
        if a == GuardId::TRUE || b == GuardId::TRUE {
            return GuardId::TRUE;
        }
        if a == GuardId::FALSE || a == b {
            return b;
        }
        if b == GuardId::FALSE {
            return a;
        }
        // (f ∧ g) ∨ (f ∧ h): factor the common conjuncts f, then simplify g ∨ h on its own.
        let ca = self.conjuncts(a);
        let cb = self.conjuncts(b);
        let common: Vec<GuardId> = ca.iter().copied().filter(|x| cb.contains(x)).collect();
        if !common.is_empty() {
            let ra: Vec<GuardId> = ca.iter().copied().filter(|x| !common.contains(x)).collect();
            let rb: Vec<GuardId> = cb.iter().copied().filter(|x| !common.contains(x)).collect();
            if ra.is_empty() || rb.is_empty() {
                // f ∨ (f ∧ h) = f.
                return self.and_of(common);
            }
            let ga = self.and_of(ra);
            let gb = self.and_of(rb);
            let rest = self.or(ga, gb);
            let mut kids = common;
            kids.push(rest);
            return self.and_all(kids);
        }
        let mut kids = self.disjuncts(a);
        kids.extend(self.disjuncts(b));
        self.or_of(kids)
    }

    fn or_of(&mut self, mut kids: Vec<GuardId>) -> GuardId {
        kids.sort_unstable();
        kids.dedup();
        if self.has_complementary_lits(&kids) {
            return GuardId::TRUE;
        }
        if self.covers_exactly_one_group(&kids) {
            return GuardId::TRUE;
        }
        // Absorption: a ∨ (a ∧ b) = a.
        let all = kids.clone();
        kids.retain(|k| match self.node(*k) {
            Node::And(cs) => !cs.iter().any(|c| all.binary_search(c).is_ok()),
            _ => true,
        });
        match kids.len() {
            0 => GuardId::FALSE,
            1 => kids[0],
            _ => self.intern(Node::Or(kids.into_boxed_slice())),
        }
    }

    fn covers_exactly_one_group(&self, kids: &[GuardId]) -> bool {
        let mut counts: HashMap<u32, (u32, u32)> = HashMap::new();
        for k in kids {
            if let Some((atom, true)) = self.as_lit(*k) {
                if let Some((group, size)) = self.group_of.get(&atom) {
                    let e = counts.entry(*group).or_insert((0, *size));
                    e.0 += 1;
                }
            }
        }
        counts.values().any(|(seen, size)| seen == size)
    }

    /// Every atom mentioned by `roots`, sorted.
    pub fn support(&self, roots: &[GuardId]) -> Vec<AtomId> {
        let mut seen = hashbrown::HashSet::new();
        let mut atoms = std::collections::BTreeSet::new();
        let mut stack: Vec<GuardId> = roots.to_vec();
        while let Some(g) = stack.pop() {
            if !seen.insert(g) {
                continue;
            }
            match self.node(g) {
                Node::Lit { atom, .. } => {
                    atoms.insert(*atom);
                }
                Node::And(c) | Node::Or(c) => stack.extend(c.iter().copied()),
                Node::True | Node::False => {}
            }
        }
        atoms.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negation_is_pushed_to_literals() {
        let mut g = Guards::new(1000);
        let a = g.lit(AtomId(0), true);
        let b = g.lit(AtomId(1), true);
        let ab = g.and(a, b);
        let n = g.not(ab);
        let na = g.lit(AtomId(0), false);
        let nb = g.lit(AtomId(1), false);
        let expect = g.or(na, nb);
        assert_eq!(n, expect);
        // ¬¬f = f for these shapes, and f ∧ ¬f folds on literals.
        assert_eq!(g.not(n), ab);
        assert_eq!(g.and(a, na), GuardId::FALSE);
        assert_eq!(g.not(GuardId::TRUE), GuardId::FALSE);
    }

    #[test]
    fn constants_and_identities() {
        let mut g = Guards::new(1000);
        let a = g.lit(AtomId(0), true);
        let na = g.lit(AtomId(0), false);
        assert_eq!(g.and(a, GuardId::TRUE), a);
        assert_eq!(g.and(a, GuardId::FALSE), GuardId::FALSE);
        assert_eq!(g.or(a, GuardId::FALSE), a);
        assert_eq!(g.or(a, GuardId::TRUE), GuardId::TRUE);
        assert_eq!(g.and(a, na), GuardId::FALSE);
        assert_eq!(g.or(a, na), GuardId::TRUE);
    }

    #[test]
    fn branch_merge_folds_away() {
        // (f ∧ g) ∨ (f ∧ ¬g) = f — the merge after an if/else.
        let mut g = Guards::new(1000);
        let f = g.lit(AtomId(0), true);
        let x = g.lit(AtomId(1), true);
        let nx = g.lit(AtomId(1), false);
        let l = g.and(f, x);
        let r = g.and(f, nx);
        assert_eq!(g.or(l, r), f);
    }

    #[test]
    fn hash_consing_shares_nodes() {
        let mut g = Guards::new(1000);
        let a = g.lit(AtomId(0), true);
        let b = g.lit(AtomId(1), true);
        let x = g.and(a, b);
        let y = g.and(b, a);
        assert_eq!(x, y);
    }

    #[test]
    fn full_switch_group_is_true() {
        let mut g = Guards::new(1000);
        let atoms = [AtomId(0), AtomId(1), AtomId(2)];
        g.declare_exactly_one(7, &atoms);
        let l0 = g.lit(atoms[0], true);
        let l1 = g.lit(atoms[1], true);
        let l2 = g.lit(atoms[2], true);
        let two = g.or(l0, l1);
        assert_ne!(two, GuardId::TRUE);
        assert_eq!(g.or(two, l2), GuardId::TRUE);
    }

    #[test]
    fn budget_is_reported() {
        let mut g = Guards::new(4);
        let a = g.lit(AtomId(0), true);
        let b = g.lit(AtomId(1), true);
        let _ = g.and(a, b);
        assert!(g.over_budget());
    }
}
