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
//! - Literals carry their polarity; the negation of a compound formula is a node of its own
//!   (`Not`), built in constant time (pushing negations down to the literals rebuilt whole
//!   formulas, and a flow pass negates the guard of every pointer test it cuts). `¬¬f` is `f`, and
//!   `f ∧ ¬f`, `f ∨ ¬f` fold like complementary literals do.
//! - The arena stops growing past its budget: `over_budget()` reports it, and the caller must put
//!   the allocation site into the over-budget category instead of trusting the formulas.

use hashbrown::{HashMap, HashTable};
use smallvec::SmallVec;

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

/// A formula node as callers see it; children borrow the arena.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Node<'a> {
    False,
    True,
    /// `atom` when `positive`, else `¬atom`.
    Lit {
        atom: AtomId,
        positive: bool,
    },
    /// Children sorted and unique.
    And(&'a [GuardId]),
    Or(&'a [GuardId]),
    /// The negation of an `And` or an `Or`.
    Not(GuardId),
}

/// How a node is stored: a tag and two words (the literal, or where its children start in
/// `Guards::kids` and how many there are). Children of all nodes share one vector, so building a
/// node allocates nothing but amortised growth: the analysis builds millions of them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Stored {
    False,
    True,
    Lit(AtomId, bool),
    And(u32, u32),
    Or(u32, u32),
    Not(GuardId),
}

/// Children lists up to this size stay on the stack while a node is being built.
type Kids = SmallVec<[GuardId; 16]>;

#[derive(Clone)]
pub struct Guards {
    nodes: Vec<Stored>,
    kids: Vec<GuardId>,
    /// Results of `and`/`or` on two nodes (smaller id first): a flow pass combines the same
    /// pairs over and over (every slot holding the cell under the same guard meets the same edge
    /// label and the same merge), and simplifying a pair is far dearer than looking it up.
    /// Keyed by `pair_key` (one word hashes faster than two).
    and_memo: HashMap<u64, GuardId>,
    or_memo: HashMap<u64, GuardId>,
    /// Hash-consing: node ids, found by hashing the node's contents (children by value).
    interned: HashTable<GuardId>,
    /// The hash of each node's contents, by id: growing `interned` rehashes every node, and
    /// recomputing the hashes of big conjunctions there was a third of the interning cost.
    hashes: Vec<u64>,
    /// Exactly-one groups (switch statements): atom → (group, size of group).
    group_of: HashMap<AtomId, (u32, u32)>,
    max_nodes: usize,
    over_budget: bool,
    /// The function's work budget (time and size): past it, every new node is refused, for good.
    budget: Option<std::sync::Arc<crate::budget::Budget>>,
    timed_out: bool,
    /// Calls of `tick` since the clock was last read.
    ticks: u32,
    /// Nodes and children already counted against the function's memory budget.
    counted: (usize, usize),
}

/// A node's contents, for hashing and comparing before it is stored.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key<'a> {
    False,
    True,
    Lit(AtomId, bool),
    And(&'a [GuardId]),
    Or(&'a [GuardId]),
    Not(GuardId),
}

impl Key<'_> {
    /// One `u64` per key, folded from the children (multiply-rotate, as FxHash does), instead of
    /// one hasher write per child: interning hashes every new conjunction and disjunction, and the
    /// derived impl made hashing a tenth of the guard work. A folded multiply last spreads every
    /// input bit over both ends of the word (the table's bucket and its tag), in place of a
    /// hasher object per key.
    fn hash(&self) -> u64 {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        const M: u64 = 0x9e37_79b9_7f4a_7c15;
        let fold = |tag: u64, kids: &[GuardId]| {
            kids.iter().fold(tag.wrapping_mul(K), |h, k| (h.rotate_left(5) ^ u64::from(k.0)).wrapping_mul(K))
        };
        let word = match *self {
            Key::False => 0,
            Key::True => 1,
            Key::Lit(a, p) => (2 | u64::from(p) << 2) ^ (u64::from(a.0) << 8),
            Key::Not(g) => 3 ^ (u64::from(g.0) << 8),
            Key::And(c) => fold(4, c),
            Key::Or(c) => fold(5, c),
        };
        let wide = u128::from(word) * u128::from(M);
        (wide as u64) ^ ((wide >> 64) as u64)
    }
}

/// The memo key of an unordered pair of nodes.
fn pair_key(a: GuardId, b: GuardId) -> u64 {
    (u64::from(a.0.min(b.0)) << 32) | u64::from(a.0.max(b.0))
}

impl Guards {
    #[cfg(test)]
    pub fn new(max_nodes: usize) -> Guards {
        Guards::with_capacity(max_nodes, 0)
    }

    /// An arena with room for about `nodes` nodes before its tables grow (at least a small
    /// function's formulas: growing the tables from nothing rehashed them several times over in
    /// every arena).
    pub fn with_capacity(max_nodes: usize, nodes: usize) -> Guards {
        let start = nodes.max(64);
        let mut g = Guards {
            nodes: Vec::with_capacity(start),
            kids: Vec::with_capacity(2 * start),
            and_memo: HashMap::with_capacity(start),
            or_memo: HashMap::with_capacity(start),
            interned: HashTable::with_capacity(start),
            hashes: Vec::with_capacity(start),
            group_of: HashMap::new(),
            // FALSE and TRUE exist whatever the budget: every formula may name them.
            max_nodes: usize::MAX,
            over_budget: false,
            budget: None,
            timed_out: false,
            ticks: 0,
            counted: (0, 0),
        };
        g.intern(Key::False);
        g.intern(Key::True);
        g.max_nodes = max_nodes;
        g
    }

    pub fn node(&self, g: GuardId) -> Node<'_> {
        match self.nodes[g.0 as usize] {
            Stored::False => Node::False,
            Stored::True => Node::True,
            Stored::Lit(atom, positive) => Node::Lit { atom, positive },
            Stored::And(start, len) => Node::And(&self.kids[start as usize..(start + len) as usize]),
            Stored::Or(start, len) => Node::Or(&self.kids[start as usize..(start + len) as usize]),
            Stored::Not(g) => Node::Not(g),
        }
    }

    fn key(&self, g: GuardId) -> Key<'_> {
        match self.node(g) {
            Node::False => Key::False,
            Node::True => Key::True,
            Node::Lit { atom, positive } => Key::Lit(atom, positive),
            Node::And(k) => Key::And(k),
            Node::Or(k) => Key::Or(k),
            Node::Not(g) => Key::Not(g),
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn over_budget(&self) -> bool {
        self.over_budget || self.budget.as_ref().is_some_and(|b| b.over())
    }

    /// Allow the arena `more` nodes beyond those it has (a per-site budget on a shared arena);
    /// a budget too large to add means no limit.
    pub fn allow_more(&mut self, more: usize) {
        self.max_nodes = self.nodes.len().saturating_add(more);
    }

    /// Forget a budget hit once the caller has recorded it (a time budget stays hit).
    pub fn reset_budget(&mut self) {
        self.over_budget = self.timed_out;
    }

    /// Stop building formulas when the function's `budget` runs out (in this arena or in any
    /// other pass over the function): from then on the arena behaves as over budget, so every
    /// site and summary pass still running concludes nothing (and says so).
    pub fn set_budget(&mut self, budget: std::sync::Arc<crate::budget::Budget>) {
        self.budget = Some(budget);
    }

    /// The function's budget (time or size) ran out.
    pub fn timed_out(&self) -> bool {
        self.timed_out || self.budget.as_ref().is_some_and(|b| b.over())
    }

    /// Look at the clock now and then (a flow pass calls this once per node it visits; new
    /// nodes call it too). Reading the clock costs tens of nanoseconds, so one call in 64 does.
    pub fn tick(&mut self) {
        self.ticks += 1;
        if self.ticks < 64 {
            return;
        }
        self.ticks = 0;
        // What the arena keeps per node (the node, its hash, its table slot, its memo entry)
        // and per child, counted against the function's memory budget as it grows.
        const NODE_BYTES: usize = 40;
        let grown = (self.nodes.len() - self.counted.0.min(self.nodes.len())) * NODE_BYTES
            + (self.kids.len() - self.counted.1.min(self.kids.len())) * std::mem::size_of::<GuardId>();
        self.counted = (self.nodes.len(), self.kids.len());
        if self.budget.as_ref().is_some_and(|b| b.grow(grown) || b.check_clock()) {
            self.timed_out = true;
            self.over_budget = true;
        }
    }

    /// Declare that exactly one of `atoms` holds (the cases of one switch). Enables folding their
    /// full disjunction to `true`; `sat` adds the matching constraint.
    pub fn declare_exactly_one(&mut self, group: u32, atoms: &[AtomId]) {
        for a in atoms {
            self.group_of.insert(*a, (group, atoms.len() as u32));
        }
    }

    fn lookup(&self, k: &Key) -> Option<GuardId> {
        let hash = k.hash();
        self.interned.find(hash, |id| self.key(*id) == *k).copied()
    }

    fn intern(&mut self, k: Key) -> GuardId {
        let hash = k.hash();
        if let Some(id) = self.interned.find(hash, |id| self.key(*id) == k) {
            return *id;
        }
        self.tick();
        if self.nodes.len() >= self.max_nodes || self.timed_out {
            // Keep answering (callers do not need to check every step) but never trust the result.
            self.over_budget = true;
            return GuardId::TRUE;
        }
        let id = GuardId(self.nodes.len() as u32);
        let stored = match k {
            Key::False => Stored::False,
            Key::True => Stored::True,
            Key::Lit(a, p) => Stored::Lit(a, p),
            Key::Not(g) => Stored::Not(g),
            Key::And(c) | Key::Or(c) => {
                let start = self.kids.len() as u32;
                self.kids.extend_from_slice(c);
                if matches!(k, Key::And(_)) {
                    Stored::And(start, c.len() as u32)
                } else {
                    Stored::Or(start, c.len() as u32)
                }
            }
        };
        self.nodes.push(stored);
        self.hashes.push(hash);
        let Guards { interned, hashes, .. } = self;
        let rehash = |id: &GuardId| hashes[id.0 as usize];
        interned.insert_unique(hash, id, rehash);
        id
    }

    /// The literal's node if some formula already uses it (the solver can only be asked about
    /// existing nodes once it borrows the arena).
    pub fn find_lit(&self, atom: AtomId, positive: bool) -> Option<GuardId> {
        self.lookup(&Key::Lit(atom, positive))
    }

    pub fn lit(&mut self, atom: AtomId, positive: bool) -> GuardId {
        self.intern(Key::Lit(atom, positive))
    }

    fn as_lit(&self, g: GuardId) -> Option<(AtomId, bool)> {
        match self.nodes[g.0 as usize] {
            Stored::Lit(atom, positive) => Some((atom, positive)),
            _ => None,
        }
    }

    /// Append the conjuncts of `g` (itself when it is not a conjunction, or a large one:
    /// flattening big conjunctions into every new node would make a long chain of branches
    /// quadratic).
    fn push_conjuncts(&self, g: GuardId, out: &mut Kids) {
        match self.small_conjuncts(g) {
            Some(c) => out.extend_from_slice(c),
            None => out.push(g),
        }
    }

    fn push_disjuncts(&self, g: GuardId, out: &mut Kids) {
        match self.node(g) {
            Node::Or(c) if c.len() <= FLATTEN_MAX => out.extend_from_slice(c),
            Node::False => {}
            _ => out.push(g),
        }
    }

    /// Some kid is the negation of the others: two literals of one atom, or `f` and `¬f` — where
    /// `f` may have been flattened into its parts (`¬(a ∧ b)` beside `a` and `b` in a
    /// conjunction, `¬(a ∨ b)` beside them in a disjunction). `kids` is sorted; `conjunction`
    /// says which kind of node they are for.
    fn has_complementary_lits(&self, kids: &[GuardId], conjunction: bool) -> bool {
        let mut lits: SmallVec<[(AtomId, bool); 16]> = SmallVec::new();
        for g in kids {
            match self.nodes[g.0 as usize] {
                Stored::Lit(atom, positive) => lits.push((atom, positive)),
                Stored::Not(f) => {
                    let parts_present = match (self.node(f), conjunction) {
                        (Node::And(c), true) | (Node::Or(c), false) => c.iter().all(|k| kids.binary_search(k).is_ok()),
                        _ => false,
                    };
                    if parts_present || kids.binary_search(&f).is_ok() {
                        return true;
                    }
                }
                _ => {}
            }
        }
        if lits.len() < 2 {
            return false;
        }
        lits.sort_unstable();
        lits.windows(2).any(|w| w[0].0 == w[1].0 && w[0].1 != w[1].1)
    }

    /// `¬g`: a literal flips, `¬¬f` is `f`, and a compound formula gets a `Not` node.
    pub fn not(&mut self, g: GuardId) -> GuardId {
        match self.nodes[g.0 as usize] {
            Stored::False => GuardId::TRUE,
            Stored::True => GuardId::FALSE,
            Stored::Lit(atom, positive) => self.lit(atom, !positive),
            Stored::Not(f) => f,
            Stored::And(..) | Stored::Or(..) => self.intern(Key::Not(g)),
        }
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
        let pair = pair_key(a, b);
        if let Some(g) = self.and_memo.get(&pair) {
            return *g;
        }
        let g = match (self.nodes[a.0 as usize], self.nodes[b.0 as usize]) {
            (Stored::And(_, n), Stored::Lit(atom, positive)) if n as usize <= FLATTEN_MAX => {
                self.and_lit(a, b, atom, positive)
            }
            (Stored::Lit(atom, positive), Stored::And(_, n)) if n as usize <= FLATTEN_MAX => {
                self.and_lit(b, a, atom, positive)
            }
            _ => {
                let mut kids = Kids::new();
                self.push_conjuncts(a, &mut kids);
                self.push_conjuncts(b, &mut kids);
                self.and_of(kids)
            }
        };
        // A node refused by the budget stands for nothing: do not remember it.
        if !self.over_budget {
            self.and_memo.insert(pair, g);
        }
        g
    }

    pub fn and_all(&mut self, items: impl IntoIterator<Item = GuardId>) -> GuardId {
        let mut kids = Kids::new();
        for g in items {
            if g == GuardId::FALSE {
                return GuardId::FALSE;
            }
            self.push_conjuncts(g, &mut kids);
        }
        self.and_of(kids)
    }

    /// `a ∧ b` for a conjunction `a` and a literal `b`: the commonest step of the value flow (a
    /// path condition meets a branch). The same node `and_of` would build from `a`'s children and
    /// `b`, in one pass over children that are already sorted, unique, free of complementary
    /// literals and absorbed: only what involves `b` can change.
    fn and_lit(&mut self, a: GuardId, b: GuardId, atom: AtomId, positive: bool) -> GuardId {
        let Stored::And(start, len) = self.nodes[a.0 as usize] else { unreachable!("and_lit on a non-conjunction") };
        let (start, len) = (start as usize, len as usize);
        let ks = &self.kids[start..start + len];
        let at = match ks.binary_search(&b) {
            Ok(_) => return a,
            Err(at) => at,
        };
        let present = |k: &GuardId| *k == b || ks.binary_search(k).is_ok();
        let mut absorbed: SmallVec<[usize; 4]> = SmallVec::new();
        for (i, k) in ks.iter().enumerate() {
            match self.nodes[k.0 as usize] {
                Stored::Lit(x, p) if x == atom && p != positive => return GuardId::FALSE,
                // ¬(f ∧ g) with f and g now all present.
                Stored::Not(f) => {
                    if let Node::And(c) = self.node(f) {
                        if c.contains(&b) && c.iter().all(present) {
                            return GuardId::FALSE;
                        }
                    }
                }
                // b ∧ (b ∨ c) = b.
                Stored::Or(..) => {
                    if let Node::Or(ds) = self.node(*k) {
                        if ds.binary_search(&b).is_ok() {
                            absorbed.push(i);
                        }
                    }
                }
                _ => {}
            }
        }
        let mut kids = Kids::with_capacity(len + 1);
        for (i, k) in ks.iter().enumerate() {
            if i == at {
                kids.push(b);
            }
            if !absorbed.contains(&i) {
                kids.push(*k);
            }
        }
        if at == len {
            kids.push(b);
        }
        match kids.len() {
            1 => kids[0],
            _ => self.intern(Key::And(&kids)),
        }
    }

    fn and_of(&mut self, mut kids: Kids) -> GuardId {
        kids.sort_unstable();
        kids.dedup();
        if self.has_complementary_lits(&kids, true) {
            return GuardId::FALSE;
        }
        // Absorption: a ∧ (a ∨ b) = a.
        self.absorb(&mut kids, false);
        match kids.len() {
            0 => GuardId::TRUE,
            1 => kids[0],
            _ => self.intern(Key::And(&kids)),
        }
    }

    /// `and_of` of some of the conjuncts of one node (in their order): the node's children are
    /// sorted, unique, free of complementary literals and absorbed, and so is any part of them
    /// (a witness of either in the part would be one in the whole), so only the size decides.
    /// A node that is no conjunction is its own only conjunct, and `and_of` of it is itself.
    fn and_of_part(&mut self, kids: Kids) -> GuardId {
        match kids.len() {
            0 => GuardId::TRUE,
            1 => kids[0],
            _ => self.intern(Key::And(&kids)),
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
        let pair = pair_key(a, b);
        if let Some(g) = self.or_memo.get(&pair) {
            return *g;
        }
        let g = self.or_uncached(a, b);
        if !self.over_budget {
            self.or_memo.insert(pair, g);
        }
        g
    }

    fn or_uncached(&mut self, a: GuardId, b: GuardId) -> GuardId {
        // (f ∧ g) ∨ (f ∧ h): factor the common conjuncts f, then simplify g ∨ h on its own.
        // Both lists of conjuncts are sorted, so one merge splits them.
        let (one_a, one_b) = ([a], [b]);
        let ca = self.small_conjuncts(a).unwrap_or(&one_a);
        let cb = self.small_conjuncts(b).unwrap_or(&one_b);
        let (mut common, mut ra, mut rb) = (Kids::new(), Kids::new(), Kids::new());
        let (mut i, mut j) = (0, 0);
        while i < ca.len() && j < cb.len() {
            match ca[i].cmp(&cb[j]) {
                std::cmp::Ordering::Less => {
                    ra.push(ca[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    rb.push(cb[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    common.push(ca[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        if !common.is_empty() {
            ra.extend_from_slice(&ca[i..]);
            rb.extend_from_slice(&cb[j..]);
            if ra.is_empty() || rb.is_empty() {
                // f ∨ (f ∧ h) = f.
                return self.and_of_part(common);
            }
            let ga = self.and_of_part(ra);
            let gb = self.and_of_part(rb);
            let rest = self.or(ga, gb);
            let mut kids = common;
            kids.push(rest);
            return self.and_all(kids);
        }
        let mut kids = Kids::new();
        self.push_disjuncts(a, &mut kids);
        self.push_disjuncts(b, &mut kids);
        self.or_of(kids)
    }

    /// The children of a conjunction `push_conjuncts` flattens (none for `true`), or `None` for
    /// a node that is its own only conjunct.
    fn small_conjuncts(&self, g: GuardId) -> Option<&[GuardId]> {
        match self.nodes[g.0 as usize] {
            Stored::And(start, len) if len as usize <= FLATTEN_MAX => {
                Some(&self.kids[start as usize..(start + len) as usize])
            }
            Stored::True => Some(&[]),
            _ => None,
        }
    }

    fn or_of(&mut self, mut kids: Kids) -> GuardId {
        kids.sort_unstable();
        kids.dedup();
        if self.has_complementary_lits(&kids, false) {
            return GuardId::TRUE;
        }
        if self.covers_exactly_one_group(&kids) {
            return GuardId::TRUE;
        }
        // Absorption: a ∨ (a ∧ b) = a.
        self.absorb(&mut kids, true);
        match kids.len() {
            0 => GuardId::FALSE,
            1 => kids[0],
            _ => self.intern(Key::Or(&kids)),
        }
    }

    /// Drop from the sorted children of a conjunction (`in_or` false) or a disjunction (`in_or`
    /// true) each child of the dual kind that shares a member with them. A member is older than
    /// its node, so only the children before a dual one can be its members: those (a few) are
    /// looked up among its members, not each member (often many) among them.
    fn absorb(&self, kids: &mut Kids, in_or: bool) {
        let members = |k: GuardId| match self.nodes[k.0 as usize] {
            Stored::And(start, len) if in_or => Some(&self.kids[start as usize..(start + len) as usize]),
            Stored::Or(start, len) if !in_or => Some(&self.kids[start as usize..(start + len) as usize]),
            _ => None,
        };
        // From the end, so that the children a test looks at are all still there.
        for i in (1..kids.len()).rev() {
            if members(kids[i]).is_some_and(|ms| kids[..i].iter().any(|k| ms.binary_search(k).is_ok())) {
                kids.remove(i);
            }
        }
    }

    fn covers_exactly_one_group(&self, kids: &[GuardId]) -> bool {
        if self.group_of.is_empty() {
            return false;
        }
        let mut counts: SmallVec<[(u32, u32, u32); 8]> = SmallVec::new();
        for k in kids {
            if let Some((atom, true)) = self.as_lit(*k) {
                if let Some((group, size)) = self.group_of.get(&atom) {
                    match counts.iter_mut().find(|c| c.0 == *group) {
                        Some(c) => c.1 += 1,
                        None => counts.push((*group, 1, *size)),
                    }
                }
            }
        }
        counts.iter().any(|(_, seen, size)| seen == size)
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
                    atoms.insert(atom);
                }
                Node::And(c) | Node::Or(c) => stack.extend(c.iter().copied()),
                Node::Not(f) => stack.push(f),
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
    fn negation_flips_literals_and_wraps_compound_formulas_once() {
        let mut g = Guards::new(1000);
        let a = g.lit(AtomId(0), true);
        let b = g.lit(AtomId(1), true);
        let ab = g.and(a, b);
        let n = g.not(ab);
        assert!(matches!(g.node(n), Node::Not(f) if f == ab));
        assert_eq!(g.not(n), ab, "¬¬f = f");
        assert_eq!(g.not(ab), n, "one node per negated formula");
        assert_eq!(g.and(ab, n), GuardId::FALSE, "f ∧ ¬f");
        assert_eq!(g.or(ab, n), GuardId::TRUE, "f ∨ ¬f");
        let na = g.lit(AtomId(0), false);
        assert_eq!(g.not(a), na);
        assert_eq!(g.and(a, na), GuardId::FALSE);
        assert_eq!(g.not(GuardId::TRUE), GuardId::FALSE);
        // The merge after a cut: (P ∧ ¬H) ∨ (P ∧ H) = P.
        let p = g.lit(AtomId(2), true);
        let cut = g.and(p, n);
        let kept = g.and(p, ab);
        assert_eq!(g.or(cut, kept), p);
    }

    #[test]
    fn a_conjunction_meets_a_literal_exactly_as_the_general_path_builds_it() {
        // Formulas over four atoms, built at random (a fixed xorshift seed), then every
        // conjunction ∧ literal through `and` (the one-pass `and_lit`) against `and_of` on the
        // flattened children: the same node, or the same constant.
        let mut g = Guards::new(1 << 20);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let lits: Vec<GuardId> = (0..8).map(|i| g.lit(AtomId(i / 2), i % 2 == 0)).collect();
        let mut pool = lits.clone();
        for _ in 0..400 {
            let (x, y) = (pool[next(pool.len())], pool[next(pool.len())]);
            let f = match next(3) {
                0 => g.and(x, y),
                1 => g.or(x, y),
                _ => g.not(x),
            };
            pool.push(f);
        }
        let mut checked = 0;
        for &a in &pool {
            if !matches!(g.node(a), Node::And(c) if c.len() <= FLATTEN_MAX) {
                continue;
            }
            for &l in &lits {
                let mut kids = Kids::new();
                g.push_conjuncts(a, &mut kids);
                g.push_conjuncts(l, &mut kids);
                let slow = g.and_of(kids);
                let Stored::Lit(atom, positive) = g.nodes[l.0 as usize] else { unreachable!() };
                assert_eq!(g.and_lit(a, l, atom, positive), slow, "{a:?} ∧ {l:?}");
                checked += 1;
            }
        }
        assert!(checked > 100, "only {checked} conjunctions met a literal");
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
    fn a_result_refused_by_the_budget_is_not_remembered() {
        let mut g = Guards::new(4);
        let a = g.lit(AtomId(0), true);
        let b = g.lit(AtomId(1), true);
        assert_eq!(g.and(a, b), GuardId::TRUE, "over budget: a placeholder");
        assert!(g.over_budget());
        g.reset_budget();
        g.allow_more(100 - g.len());
        let ab = g.and(a, b);
        assert!(matches!(g.node(ab), Node::And(k) if k == [a, b]), "computed again once there is room");
        assert_eq!(g.and(b, a), ab, "and remembered now, in either order");
        let a_or_b = g.or(a, b);
        assert_eq!(g.or(b, a), a_or_b);
    }

    #[test]
    fn a_deadline_in_the_past_refuses_new_nodes_for_good() {
        let mut g = Guards::new(1_000_000);
        let a = g.lit(AtomId(0), true);
        g.set_budget(std::sync::Arc::new(crate::budget::Budget::new(Some(std::time::Instant::now()), None)));
        let mut n = 1;
        while !g.over_budget() {
            g.lit(AtomId(n), true);
            n += 1;
            assert!(n < 1000, "the clock is read every 64 new nodes");
        }
        assert!(g.timed_out());
        g.reset_budget();
        assert!(g.over_budget(), "a time budget stays hit");
        let b = g.lit(AtomId(5000), true);
        assert_eq!(b, GuardId::TRUE, "a placeholder, not a node");
        assert_eq!(g.lit(AtomId(0), true), a, "existing nodes are still found");
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
