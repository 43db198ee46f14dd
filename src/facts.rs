//! What branches and assignments tell about integer (and pointer) values, for the value-flow
//! pass: `if (rc == SQLITE_OK)`, `if (p->rc) return;`, `owned = 1`, `cnt > 1`.
//!
//! Input: a completed `FnCx` (its DAG and its callee models). Output: `Facts`, the per-function
//! table the passes of `fastcheck` read: which values are followed ("fact keys": a local, an
//! access path below one, `p->rc`, `*pRc`, or a tested scalar global whose address is never
//! taken, `dmax`, keyed by its slot after the locals: `FnCx::global_key_root`) and which branch tests which of them against a
//! constant (or bounds one from below by a comparison with a local that has a floor: `i + 2 >
//! size`, `KeyTest::Bound`); and, built only for a pass that follows facts, `Followed`: what each statement does
//! to them, and where each is live (some later test or return may use it before anything may
//! write it). Also `tested_places`: the memory places branches test and the statements that may
//! write them, by the same rules, for `FnCx`'s reaching definitions.
//! Invariants:
//! - A fact is dropped at every statement that may write its value (`FactStmt::kills`), so a
//!   fact that survives holds. "May write" follows drip's assumption for access paths: distinct
//!   pointer locals name distinct objects unless one is copied from the other (`comp`), a callee
//!   reaches what its pointer arguments point to and everything loaded through them (`below`),
//!   and a store to another object's field of the same name may alias (field-name aliasing);
//!   a store of a pointer through a pointer to pointers writes no plain scalar (`s[2]`, `*rc`).
//!   A global's key is written by stores to it and by calls whose callee may write it
//!   (`FnCx::written_global_slots`), and is unknown past a header copy that jumps to the loop
//!   body's exits (the later iteration may have written it; `Dag::exit_kills` names locals).
//!   An element at a constant index (`s[2]`) is a key of its own, which a write of an element
//!   of unknown index kills. An equality between two keys (`Fact::Same`, from a copy) dies with
//!   either side.
//! - Facts only ever cut paths (`fastcheck::flow`): a test whose outcome contradicts a fact is
//!   not taken on the paths where the fact holds. They never create an event.
//! - Liveness bounds the cost: a fact is carried along an edge only into a node where its key is
//!   live. Only sites' passes use facts, and `fastcheck::check_function` runs them only where a
//!   first check without facts found a verdict they could change.

use crate::cfg::{raw_path, DagNode, FnCx};
use crate::ir::{CmpOp, CondKind, LocalId, Operand, Place, Rvalue, Stmt, StmtId, Terminator};
use crate::libmodel::RetEffect;
use hashbrown::{HashMap, HashSet};

/// What is known of a value: it lies in `[lo, hi]`, it is not one constant, or it equals the
/// value of another key (`Same`: made by a copy `k = q`, `freetemp = match = cond`, and lost when
/// either is written), through which what a test learns of one reaches the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fact {
    In(i64, i64),
    Ne(i64),
    Same(u32),
}

impl Fact {
    /// The fact that the test `v op c` gives on its side that `holds` (or not).
    pub fn learned(op: CmpOp, c: i64, holds: bool) -> Fact {
        let op = if holds { op } else { op.negated() };
        match op {
            CmpOp::Eq => Fact::In(c, c),
            CmpOp::Ne => Fact::Ne(c),
            CmpOp::Lt => Fact::In(i64::MIN, c.saturating_sub(1)),
            CmpOp::Le => Fact::In(i64::MIN, c),
            CmpOp::Gt => Fact::In(c.saturating_add(1), i64::MAX),
            CmpOp::Ge => Fact::In(c, i64::MAX),
        }
    }

    /// Whether `v op c` holds for every value the fact allows (`Some(true)`) or for none
    /// (`Some(false)`).
    pub fn decides(self, op: CmpOp, c: i64) -> Option<bool> {
        match self {
            Fact::Same(_) => None,
            Fact::Ne(k) => match op {
                CmpOp::Eq if c == k => Some(false),
                CmpOp::Ne if c == k => Some(true),
                _ => None,
            },
            Fact::In(lo, hi) => {
                let all = |f: &dyn Fn(i64) -> bool| f(lo) && f(hi);
                let none = |f: &dyn Fn(i64) -> bool| !f(lo) && !f(hi);
                let (yes, no) = match op {
                    CmpOp::Eq => (lo == c && hi == c, c < lo || c > hi),
                    CmpOp::Ne => (c < lo || c > hi, lo == c && hi == c),
                    CmpOp::Lt => (all(&|v| v < c), none(&|v| v < c)),
                    CmpOp::Le => (all(&|v| v <= c), none(&|v| v <= c)),
                    CmpOp::Gt => (all(&|v| v > c), none(&|v| v > c)),
                    CmpOp::Ge => (all(&|v| v >= c), none(&|v| v >= c)),
                };
                if yes {
                    Some(true)
                } else if no {
                    Some(false)
                } else {
                    None
                }
            }
        }
    }

    /// Every value this fact allows, `other` allows too.
    pub fn implies(self, other: Fact) -> bool {
        match (self, other) {
            (a, b) if a == b => true,
            (Fact::In(lo, hi), Fact::In(a, b)) => a <= lo && hi <= b,
            (Fact::In(lo, hi), Fact::Ne(c)) => c < lo || c > hi,
            (Fact::Ne(_) | Fact::Same(_), _) | (_, Fact::Same(_)) => false,
        }
    }

    /// The fact a summary's `Held` value states.
    pub fn held(h: crate::model::Held) -> Fact {
        match h {
            crate::model::Held::Zero => Fact::In(0, 0),
            crate::model::Held::NonZero => Fact::Ne(0),
            crate::model::Held::Positive => Fact::In(1, i64::MAX),
            crate::model::Held::NonNegative => Fact::In(0, i64::MAX),
        }
    }

    /// A fact that holds wherever either does (`= 1` or `= 2` is `1..=2`), if one can say it.
    pub fn hull(self, other: Fact) -> Option<Fact> {
        match (self, other) {
            (Fact::In(a, b), Fact::In(c, d)) => Some(Fact::In(a.min(c), b.max(d))),
            (Fact::Ne(a), Fact::Ne(b)) => (a == b).then_some(Fact::Ne(a)),
            (Fact::In(lo, hi), Fact::Ne(c)) | (Fact::Ne(c), Fact::In(lo, hi)) => {
                (c < lo || c > hi).then_some(Fact::Ne(c))
            }
            (Fact::Same(a), Fact::Same(b)) => (a == b).then_some(Fact::Same(a)),
            (Fact::Same(_), _) | (_, Fact::Same(_)) => None,
        }
    }

    /// The values both facts allow, where one fact can say it (`≠ 0` and `≥ 0` are `≥ 1`);
    /// otherwise `self`, which is still true.
    pub fn meet(self, other: Fact) -> Fact {
        match (self, other) {
            (Fact::In(a, b), Fact::In(c, d)) if a.max(c) <= b.min(d) => Fact::In(a.max(c), b.min(d)),
            (Fact::In(lo, hi), Fact::Ne(c)) | (Fact::Ne(c), Fact::In(lo, hi)) if lo < hi => {
                if c == lo {
                    Fact::In(lo + 1, hi)
                } else if c == hi {
                    Fact::In(lo, hi - 1)
                } else {
                    Fact::In(lo, hi)
                }
            }
            (Fact::Ne(_), f @ Fact::In(..)) => f,
            _ => self,
        }
    }

    /// What is left of the fact after the value is stepped by `d` (`n++`, `n -= 2`): the bound on
    /// the side the step moves away from, moved by `d`, and nothing of the other side. Only that
    /// bound survives because the DAG shows one loop iteration: a counter at 0 before the loop
    /// and incremented in it is 1 on the DAG's paths but any count in the program; "at least
    /// one more than before" holds however often a later iteration increments it again.
    /// Wrap-around is not modelled (a counter does not overflow).
    pub fn stepped(self, d: i64) -> Option<Fact> {
        match self {
            Fact::In(lo, _) if d > 0 && lo != i64::MIN => Some(Fact::In(lo.saturating_add(d), i64::MAX)),
            Fact::In(_, hi) if d < 0 && hi != i64::MAX => Some(Fact::In(i64::MIN, hi.saturating_add(d))),
            f if d == 0 => Some(f),
            _ => None,
        }
    }

    /// What is left of the fact after a step by `d` that runs at most once on any path (in no
    /// loop): both bounds move (`= 1` then `--` is `= 0`). Wrap-around is not modelled.
    pub fn stepped_once(self, d: i64) -> Option<Fact> {
        let move_by = |v: i64| if v == i64::MIN || v == i64::MAX { v } else { v.saturating_add(d) };
        match self {
            Fact::In(lo, hi) => Some(Fact::In(move_by(lo), move_by(hi))),
            Fact::Ne(c) => Some(Fact::Ne(move_by(c))),
            Fact::Same(_) => None,
        }
    }
}

/// The test of a followed key that ends a block: `key op constant` (a branch), or a `switch`
/// on the key, or a comparison with a local bounded below that bounds the key on one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyTest {
    Cmp(u32, CmpOp, i64),
    Switch(u32),
    /// `key >= .1` on the branch's then side (`.2`) or else side, and nothing known of the key
    /// on the other: `i + 2 > size` with `size` at least 16 (`floor_locals`) gives `i >= 15`
    /// where it holds, and `i + 2 <= size` no bound of `i`.
    Bound(u32, i64, bool),
}

impl KeyTest {
    pub fn key(self) -> u32 {
        match self {
            KeyTest::Cmp(k, ..) | KeyTest::Switch(k) | KeyTest::Bound(k, ..) => k,
        }
    }

    /// What the test at the end of `block` says on its edge into `target`.
    pub fn edge(self, block: &crate::ir::Block, target: crate::ir::BlockId) -> EdgeFact {
        let rule = match (self, &block.term) {
            (KeyTest::Cmp(_, op, c), Terminator::Branch { then_, .. }) => EdgeRule::Holds(op, c, target == *then_),
            // The side where the bound holds learns it (and is ruled out where the key is surely
            // below it); the other side is a `default` that rules out no value.
            (KeyTest::Bound(_, b, on_then), Terminator::Branch { then_, .. }) => {
                if (target == *then_) == on_then {
                    EdgeRule::Holds(CmpOp::Ge, b, true)
                } else {
                    EdgeRule::Default(Vec::new())
                }
            }
            (KeyTest::Switch(_), Terminator::Switch { cases, default, .. }) => {
                let into: Vec<i64> = cases.iter().filter(|c| c.1 == target).map(|c| c.0).collect();
                if target == *default {
                    EdgeRule::Default(cases.iter().filter(|c| c.1 != target).map(|c| c.0).collect())
                } else {
                    EdgeRule::Cases(into)
                }
            }
            _ => EdgeRule::Default(Vec::new()),
        };
        EdgeFact { key: self.key(), rule }
    }
}

/// What a test says of its key on one edge (`KeyTest::edge`).
pub struct EdgeFact {
    pub key: u32,
    rule: EdgeRule,
}

enum EdgeRule {
    /// `key op c` holds on this edge (`true`) or not.
    Holds(CmpOp, i64, bool),
    /// The key is one of these case values.
    Cases(Vec<i64>),
    /// The `default` of a switch: the key is none of these values (the cases going elsewhere).
    Default(Vec<i64>),
}

impl EdgeFact {
    /// The fact the edge teaches, where one fact can say it (a range over the case values).
    pub fn learned(&self) -> Option<Fact> {
        match &self.rule {
            EdgeRule::Holds(op, c, holds) => Some(Fact::learned(*op, *c, *holds)),
            EdgeRule::Cases(v) => Some(Fact::In(*v.iter().min()?, *v.iter().max()?)),
            EdgeRule::Default(_) => None,
        }
    }

    /// A value the fact allows never takes this edge.
    pub fn ruled_out(&self, f: Fact) -> bool {
        match &self.rule {
            EdgeRule::Holds(op, c, holds) => f.decides(*op, *c) == Some(!holds),
            EdgeRule::Cases(v) => v.iter().all(|c| f.decides(CmpOp::Eq, *c) == Some(false)),
            EdgeRule::Default(others) => others.iter().any(|c| f.decides(CmpOp::Eq, *c) == Some(true)),
        }
    }
}

/// What one statement does to the fact keys.
#[derive(Clone, Debug, Default)]
pub struct FactStmt {
    /// Keys whose value the statement may change, sorted.
    pub kills: Vec<u32>,
    pub gen: FactGen,
    /// Keys a callee leaves a constant in on every normal return (`Summary::exit_values`:
    /// `hdr::hdr (tmp)` sets `tmp->count = 1`), after the kills.
    pub sets: Vec<(u32, i64)>,
    /// `(k, q)`: a pointer copy `d = s` makes the key `k` below `d` hold what the key `q` at
    /// the same path below `s` holds (`this->p = tmp` after `new hdr`: `this->p->count` is
    /// `tmp->count`).
    pub copies: Vec<(u32, u32)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FactGen {
    #[default]
    None,
    /// `k = c`.
    Const(u32, i64),
    /// `k = "text"`, `k = &object`, `k = function`: an address, never NULL.
    Address(u32),
    /// `k = q`: `k` gets what is known of `q`.
    Copy(u32, u32),
    /// `k = q` where `q` is a local that is never negative (`nonneg_locals`): as `Copy`, and
    /// `k` is at least 0 even where nothing else is known of `q`.
    CopyNonNeg(u32, u32),
    /// `k = e`, a value that is at least `.1`: an expression of unsigned type
    /// (`Function::nonneg`: at least 0, or the constants of an unsigned sum, `l1 + 1 + l2 + 1`
    /// is at least 2), or a never-negative local that is no key itself.
    AtLeast(u32, i64),
    /// `k = k + e` with `e` of unsigned type, `k = k * c` with `c >= 1` (`Function::grows`):
    /// a lower bound of at least 0 on `k` survives, the rest of what is known goes (the
    /// statement is not among the kills of `k`, as for `Step`). Overflow is not modelled.
    Grow(u32),
    /// `k = k + d` for a constant `d` (`n++`, `(*n)++`, `n -= 1`): what is known of `k` moves
    /// (`Fact::stepped`); the statement is not among the kills of `k`. With `.2`, `k` is
    /// unsigned: at least 0 before, so at least `d` after an increment even where nothing was
    /// known (`sb->len++` on a `size_t` is not 0 afterwards; wrap-around is not modelled).
    /// With `.3`, the statement is in no loop of the CFG, so it runs at most once on any path
    /// and moves both bounds (`Fact::stepped_once`): `refs = 1; --refs` is 0 exactly.
    Step(u32, i64, bool, bool),
}

/// The fact table of one function (see the module documentation): which keys are followed and
/// which branch tests which of them. What statements do to them and where they are live is
/// `Followed`, built only for a pass that follows facts.
#[derive(Default)]
pub struct Facts {
    /// (root local, access path text: `""` for the local itself, `*.rc`, `*`, `.len`).
    pub keys: Vec<(LocalId, String)>,
    index: HashMap<(LocalId, String), u32>,
    /// Per block: the branch's test of a key against a constant, or the switch on a key.
    pub tests: Vec<Option<KeyTest>>,
    /// Keys below a pointer parameter (`p->rc`, `*pRc`, `*mustfree`) of a function that returns
    /// a pointer: their value where a fresh cell is returned goes into the summary
    /// (`Summary::ret_values`).
    pub ret_keys: Vec<u32>,
}

/// The part of the fact table only a pass that follows facts reads: per statement what it does
/// to the keys, and per DAG node which keys are live. `fastcheck::check_function` builds it
/// (`Facts::follow`) for its second pass alone: most functions with keys never run one, and
/// this is most of the table's cost.
pub struct Followed {
    /// Per statement: what it does to keys (`None`: nothing).
    stmts: Vec<Option<FactStmt>>,
    /// Per DAG node, the keys live at its entry (`words` bits each).
    live: Vec<u64>,
    words: usize,
}

impl Facts {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key of a root local and path text, if it is followed.
    pub fn key(&self, root: LocalId, path: &str) -> Option<u32> {
        self.index.get(&(root, path.to_string())).copied()
    }

    /// The fact table of a function whose DAG is built.
    pub fn build(cx: &FnCx, first_site: u32) -> Facts {
        let func = cx.func;
        let fact_local = fact_locals(cx);
        // Candidate keys: tested against a constant by some branch.
        // Per key: how many tests, whether one is after a site, whether all test one condition.
        let mut tested: HashMap<(LocalId, String), (u32, bool, bool)> = HashMap::new();
        let mut first_kind: HashMap<(LocalId, String), CondKind> = HashMap::new();
        // Per tracked local key: the reaching definitions of its first test, and whether every
        // test sees the same ones.
        let mut first_defs: HashMap<LocalId, (u32, bool)> = HashMap::new();
        // Tracked locals a test after some site sees several reaching definitions of.
        let mut merged_tests: HashSet<LocalId> = HashSet::new();
        // Per block: the key tested, and how.
        type BlockTest = ((LocalId, String), RawTest);
        let mut block_tests: Vec<Option<BlockTest>> = vec![None; func.blocks.len()];
        let masked = masked_loads(cx);
        // Per local: the least value it ever holds (`floor_locals`), built at the first test of
        // two locals.
        let mut floors: Option<Vec<i64>> = None;
        for (bi, b) in func.blocks.iter().enumerate() {
            if let Terminator::Switch { on: Operand::Place(p), cases, .. } = &b.term {
                let Some(k) = raw_key(cx, &fact_local, p).filter(|_| !cases.is_empty()) else { continue };
                let after_site = cx.dag.order[bi] >= first_site;
                // Not one condition with the branches' tests (they are kept apart by atoms).
                first_kind.entry(k.clone()).or_insert(CondKind::Opaque);
                let n = tested.entry(k.clone()).or_insert((0, false, true));
                n.0 += 1;
                n.1 |= after_site;
                n.2 = false;
                block_tests[bi] = Some((k, RawTest::Switch));
                continue;
            }
            let Terminator::Branch { cond, then_, else_ } = &b.term else { continue };
            if then_ == else_ {
                continue;
            }
            let kind = folded_test(cx, &cond.kind, DagNode(bi as u32));
            // `i + 2 > size`, `size` bounded below: a bound of `i` on one side. Unless the test
            // folded (`size` is 16 at the test) is one of `i` itself, which says more.
            let bound = match &cond.kind {
                CondKind::Cmp(op, Operand::Place(a), Operand::Place(b)) => {
                    let floors = floors.get_or_insert_with(|| floor_locals(cx));
                    bound_test(cx, floors, bi, *op, a, b)
                }
                _ => None,
            };
            let folded_of = |x: LocalId| match &*kind {
                CondKind::Cmp(_, Operand::Place(Place::Local(t)), Operand::Const(_))
                | CondKind::Cmp(_, Operand::Const(_), Operand::Place(Place::Local(t))) => {
                    offset_at(cx, bi, *t).map_or(*t, |o| o.0) == x
                }
                _ => false,
            };
            if let Some((x, bound, on_then)) = bound.filter(|b| !folded_of(b.0)) {
                let Some(k) = raw_key(cx, &fact_local, &Place::Local(x)) else { continue };
                let after_site = cx.dag.order[bi] >= first_site;
                let same = *first_kind.entry(k.clone()).or_insert_with(|| kind.clone().into_owned()) == *kind;
                let n = tested.entry(k.clone()).or_insert((0, false, true));
                n.0 += 1;
                n.1 |= after_site;
                n.2 &= same;
                block_tests[bi] = Some((k, RawTest::Bound(bound, on_then)));
                continue;
            }
            let (place, op, c) = match &*kind {
                CondKind::Truthy(Operand::Place(p)) => (p, CmpOp::Ne, 0),
                CondKind::Cmp(op, Operand::Place(p), Operand::Const(c)) => (p, *op, *c),
                CondKind::Cmp(op, Operand::Const(c), Operand::Place(p)) => (p, op.swapped(), *c),
                _ => continue,
            };
            // `t = i + 2; if (t > 16)`: a test of `i > 14` (`Function::offsets`).
            let shifted;
            let (place, c) = match place {
                Place::Local(t) => match offset_at(cx, bi, *t) {
                    Some((x, k)) => {
                        let Some(c) = c.checked_sub(k) else { continue };
                        shifted = Place::Local(x);
                        (&shifted, c)
                    }
                    None => (place, c),
                },
                _ => (place, c),
            };
            // `t = var->attributes; u = t & F; if (u)`: a test of the masked key `*.attributes&F`.
            let masked_key = match place {
                Place::Local(u) => masked.get(u).and_then(|(from, mask)| {
                    let (root, text) = raw_key(cx, &fact_local, from).filter(|k| k.1.starts_with('*'))?;
                    Some((root, format!("{text}&{mask}")))
                }),
                _ => None,
            };
            let elems = func.tested_elems(crate::ir::BlockId::from_usize(bi));
            let Some(k) = masked_key.or_else(|| match elems {
                Some(e) => elem_key(cx, place, e),
                None => raw_key(cx, &fact_local, place),
            }) else {
                continue;
            };
            // Only a test after some site can be decided by a site's pass; earlier ones can
            // still teach (`must_at_entry`) what a later test of the same key is.
            let after_site = cx.dag.order[bi] >= first_site;
            if k.1.is_empty() && !cx.is_global_slot(k.0) && cx.is_tracked(k.0) {
                let node = DagNode(bi as u32);
                let idx = cx.stmts_of(node).len();
                let set = cx.reaching_set(k.0, node, idx);
                let e = first_defs.entry(k.0).or_insert((set, true));
                e.1 &= e.0 == set;
                if after_site && cx.reaching_defs(k.0, node, idx).len() > 1 {
                    merged_tests.insert(k.0);
                }
            }
            let same = *first_kind.entry(k.clone()).or_insert_with(|| kind.clone().into_owned()) == *kind;
            let n = tested.entry(k.clone()).or_insert((0, false, true));
            n.0 += 1;
            n.1 |= after_site;
            n.2 &= same;
            block_tests[bi] = Some((k, RawTest::Cmp(op, c)));
        }
        let returns_pointer = func.returns_pointer;
        // A count below a parameter that the function steps (`(*n)++`, `sb->len++`) may be what
        // its callers test of a cell it hands back there (`Summary::out_values`).
        // So may one a callee leaves counted where it hands a cell back (`Summary::out_values`):
        // a wrapper of `strbuf_addch` says the same of its own parameter.
        let passes_counts = || {
            func.stmts.iter().enumerate().any(|(si, st)| {
                matches!(st, Stmt::Call { .. })
                    && cx.model(StmtId::from_usize(si)).is_some_and(|m| !m.out_values.is_empty())
            })
        };
        let steps_counts = !returns_pointer && (!func.steps.is_empty() || passes_counts());
        if tested.is_empty() && !returns_pointer && !steps_counts {
            return Facts::default();
        }
        // Worth following: tested twice, or given a value this function can name (a constant, a
        // copy, a callee's error code), or below a parameter of a function that returns a
        // pointer (for its summary). A value tested once and otherwise only computed can never
        // be known at its one test.
        let mut assigned: HashMap<(LocalId, String), Vec<Option<(LocalId, String)>>> = HashMap::new();
        let mut stepped_below_params: Vec<(LocalId, String)> = Vec::new();
        // Places a callee leaves a constant in (`Summary::exit_values`).
        let mut exit_set: Vec<(LocalId, String)> = Vec::new();
        for (si, st) in func.stmts.iter().enumerate() {
            match st {
                Stmt::Assign { dst, src } => {
                    let from = match src {
                        Rvalue::Use(Operand::Place(q)) => match raw_key(cx, &fact_local, q) {
                            Some(q) => Some(q),
                            None => continue,
                        },
                        Rvalue::Use(Operand::Const(_)) => None,
                        Rvalue::Opaque(_) if func.step_of(StmtId::from_usize(si)).is_some() => {
                            if let Some(k) = raw_key(cx, &fact_local, dst).filter(|_| steps_counts) {
                                if cx.param_index(k.0).is_some() && k.1.starts_with('*') {
                                    stepped_below_params.push(k);
                                }
                            }
                            continue;
                        }
                        // `n = strlen (s) + 1`: a value this function can name (at least 1).
                        Rvalue::Opaque(_) if func.nonneg_floor(StmtId::from_usize(si)).is_some_and(|c| c > 0) => None,
                        _ => continue,
                    };
                    let Some(k) = raw_key(cx, &fact_local, dst) else { continue };
                    assigned.entry(k).or_default().push(from);
                }
                Stmt::Call { args, dst, .. } => {
                    let Some(m) = cx.model(StmtId::from_usize(si)) else { continue };
                    // The result of a call whose outcome has an atom (`r = realloc (p, n)`:
                    // non-NULL where it succeeded, `flow::call_status_facts`) is a value this
                    // function can name, when a test of the local also sees another definition
                    // (`m = a->arg != a->direct ? realloc (a->arg, n) : malloc (n); if (m ==
                    // NULL)`, gnulib's printf-parse): no single call's atom is that test.
                    if let Some(l) = dst.as_ref().and_then(|d| d.as_local()) {
                        if merged_tests.contains(&l) && crate::cfg::call_success(m).is_some() && !m.never_null {
                            assigned.entry((l, String::new())).or_default().push(None);
                        }
                    }
                    for (i, path, _) in m.ret_values.iter().chain(m.out_values.iter()) {
                        let Some((root, prefix)) = args.get(*i).and_then(|a| cx.arg_slots(a)) else { continue };
                        let text = format!("{prefix}{}", &path[1..]);
                        if steps_counts && cx.param_index(root).is_some() && text.starts_with('*') {
                            stepped_below_params.push((root, text.clone()));
                        }
                        assigned.entry((root, text)).or_default().push(None);
                    }
                    // A constant the callee leaves below an argument (a constructor's count).
                    for (i, path, _) in &m.exit_values {
                        let Some((root, prefix)) = args.get(*i).and_then(|a| cx.arg_slots(a)) else { continue };
                        let text = format!("{prefix}{}", &path[1..]);
                        if let Some(k) = key_of_path(cx, root, text) {
                            exit_set.push(k);
                        }
                    }
                }
            }
        }
        for (k, from) in exit_links(cx, &fact_local, exit_set, &tested) {
            assigned.entry(k).or_default().push(from);
        }
        // Per key: the tested keys a copy makes equal to it (`flag = *s`: `*s` → `flag`).
        let mut copied_into: HashMap<&(LocalId, String), Vec<&(LocalId, String)>> = HashMap::new();
        for (k, froms) in &assigned {
            for f in froms.iter().flatten().filter(|_| tested.contains_key(k)) {
                copied_into.entry(f).or_default().push(k);
            }
        }
        let mut chosen: Vec<(LocalId, String)> = tested
            .iter()
            .filter(|(k, (n, after_site, one_cond))| {
                // Tests of one condition of a tracked local over the same reaching definitions
                // already share an atom (`FnCx::label_edges`): facts would only repeat it.
                let one_value = k.1.is_empty() && first_defs.get(&k.0).is_some_and(|d| d.1);
                let atoms_suffice = *one_cond && one_value;
                let copied = assigned.contains_key(*k) || copied_into.contains_key(*k);
                (*after_site && (copied || (*n >= 2 && !atoms_suffice)))
                    || (returns_pointer && cx.param_index(k.0).is_some() && k.1.starts_with('*') && !k.1.contains('['))
            })
            .map(|(k, _)| k.clone())
            .collect();
        stepped_below_params.sort();
        stepped_below_params.dedup();
        for k in stepped_below_params {
            if !chosen.contains(&k) {
                chosen.push(k);
            }
        }
        // A place below a pointer parameter that a pointer-returning function gives a value
        // (`*mustfree = TRUE` where it allocates) may be what its callers test of the result.
        if returns_pointer {
            chosen.extend(
                assigned
                    .keys()
                    .filter(|k| cx.param_index(k.0).is_some() && k.1.starts_with('*') && !tested.contains_key(*k))
                    .cloned(),
            );
        }
        // What is copied into a followed key is followed too; so is a tested key copied from a
        // followed one, since its test teaches the source through the equality (`flag = *s;
        // if (flag) ..; p = alloc (); if (*s) ..`).
        let mut i = 0;
        while i < chosen.len() {
            let mut more: Vec<(LocalId, String)> = Vec::new();
            if let Some(froms) = assigned.get(&chosen[i]) {
                more.extend(froms.iter().flatten().cloned());
            }
            if let Some(into) = copied_into.get(&chosen[i]) {
                more.extend(into.iter().map(|k| (*k).clone()));
            }
            for f in more {
                if !chosen.contains(&f) {
                    chosen.push(f);
                }
            }
            i += 1;
        }
        chosen.sort();
        if chosen.is_empty() {
            return Facts::default();
        }
        let index: HashMap<(LocalId, String), u32> =
            chosen.iter().enumerate().map(|(i, k)| (k.clone(), i as u32)).collect();
        let tests = block_tests
            .into_iter()
            .map(|t| {
                let (k, how) = t?;
                let i = *index.get(&k)?;
                Some(match how {
                    RawTest::Cmp(op, c) => KeyTest::Cmp(i, op, c),
                    RawTest::Switch => KeyTest::Switch(i),
                    RawTest::Bound(b, on_then) => KeyTest::Bound(i, b, on_then),
                })
            })
            .collect();
        let ret_keys = if returns_pointer || steps_counts {
            chosen
                .iter()
                .enumerate()
                // Summaries name no element (`Summary::ret_values`, `out_values`).
                .filter(|(_, k)| cx.param_index(k.0).is_some() && k.1.starts_with('*') && !k.1.contains('['))
                .map(|(i, _)| i as u32)
                .collect()
        } else {
            Vec::new()
        };
        Facts { keys: chosen, index, tests, ret_keys }
    }

    /// What each statement does to the keys, and where each key is live (see `Followed`). Only
    /// for a table with keys.
    pub fn follow(&self, cx: &FnCx) -> Followed {
        let fact_local = fact_locals(cx);
        let groups = Groups::new(cx);
        let mut ix = KeyIndex::new(&self.keys, &groups);
        ix.fresh = fresh_blocks(cx);
        ix.origin = param_origins(cx);
        ix.counts = vec![false; self.keys.len()];
        ix.nonneg = nonneg_locals(cx);
        ix.contained = contained_locals(cx);
        ix.once = steps_outside_loops(cx.func);
        ix.globals = self.keys.iter().any(|k| cx.is_global_slot(k.0));
        for &(sid, _, _) in &cx.func.steps {
            if let Stmt::Assign { dst, .. } = cx.func.stmt(sid) {
                if let Some(k) = raw_key(cx, &fact_local, dst).and_then(|k| self.index.get(&k)) {
                    ix.counts[*k as usize] = true;
                }
            }
        }
        let stmts = (0..cx.func.stmts.len())
            .map(|si| self.stmt_effect(cx, &fact_local, &groups, &ix, StmtId::from_usize(si)))
            .collect();
        let mut followed = Followed { stmts, live: Vec::new(), words: 0 };
        followed.compute_liveness(self, cx);
        followed
    }

    fn stmt_effect(
        &self,
        cx: &FnCx,
        fact_local: &[bool],
        groups: &Groups,
        ix: &KeyIndex,
        sid: StmtId,
    ) -> Option<FactStmt> {
        let mut kills: Vec<u32> = Vec::new();
        let mut gen = FactGen::None;
        let mut sets: Vec<(u32, i64)> = Vec::new();
        let mut copies: Vec<(u32, u32)> = Vec::new();
        // The key a place names, looked up only where its root has keys at all.
        let key_of = |p: &Place| {
            let root = p.root_local().or_else(|| cx.global_key_root(p))?;
            if !ix.by_root.contains_key(&root) {
                return None;
            }
            raw_key(cx, fact_local, p).and_then(|k| self.index.get(&k).copied())
        };
        match cx.func.stmt(sid) {
            Stmt::Assign { dst, src } => {
                // A count this function steps by name (`(*n)++`, `sb->len++`) is a scalar object
                // of its own: not the pointer stored by `*out = p`, nor an element of an array
                // (`v[(*n)++] = x` fills the array the count counts).
                let no_count = matches!(dst, Place::Index(_))
                    || match src {
                        Rvalue::AddrOf(_) | Rvalue::Use(Operand::Str | Operand::Func { .. }) => true,
                        Rvalue::Use(Operand::Place(Place::Local(x))) => cx.func.local(*x).is_pointer,
                        _ => false,
                    };
                let before = kills.len();
                self.store_kills(cx, groups, ix, dst, &mut kills);
                if let Rvalue::Use(Operand::Place(Place::Local(s))) = src {
                    self.pointer_copies(cx, ix, dst, *s, &mut copies);
                }
                if no_count && !matches!(dst, Place::Local(_)) {
                    let mut i = before;
                    while i < kills.len() {
                        if ix.counts.get(kills[i] as usize).copied().unwrap_or(false) {
                            kills.swap_remove(i);
                        } else {
                            i += 1;
                        }
                    }
                }
                if let Some(k) = key_of(dst) {
                    // Only what a summary says of a place below a parameter (`ret_keys`): inside
                    // the function the sign of a local decides no test the atoms do not.
                    let for_summary = self.ret_keys.contains(&k);
                    let never_negative =
                        |q: &Place| for_summary && matches!(q, Place::Local(l) if ix.nonneg[l.index()]);
                    gen = match src {
                        Rvalue::Use(Operand::Const(c)) => FactGen::Const(k, *c),
                        Rvalue::Use(Operand::Str | Operand::Func { .. }) => FactGen::Address(k),
                        Rvalue::AddrOf(p) if p.pointee_of_local().is_none() && p.root_local().is_some() => {
                            FactGen::Address(k)
                        }
                        Rvalue::Use(Operand::Place(q)) => match key_of(q) {
                            Some(kq) if kq != k && never_negative(q) => FactGen::CopyNonNeg(k, kq),
                            Some(kq) if kq != k => FactGen::Copy(k, kq),
                            None if never_negative(q) => FactGen::AtLeast(k, 0),
                            _ => FactGen::None,
                        },
                        Rvalue::Opaque(_) => match cx.func.step_of(sid) {
                            Some((d, unsigned)) => {
                                kills.retain(|x| *x != k);
                                let once = ix.once.get(sid.index()).copied().unwrap_or(false);
                                FactGen::Step(k, d, unsigned, once)
                            }
                            // A floor above 0 decides the function's own `== 0` tests
                            // (`res_size = l1 + 1 + l2 + 1` before `if (res_size == 0)`); the
                            // sign alone only what a summary says.
                            None => match cx.func.nonneg_floor(sid) {
                                Some(c) if c > 0 || for_summary => FactGen::AtLeast(k, c),
                                _ if cx.func.grows_at(sid) => {
                                    kills.retain(|x| *x != k);
                                    FactGen::Grow(k)
                                }
                                _ => FactGen::None,
                            },
                        },
                        _ => FactGen::None,
                    };
                }
            }
            Stmt::Call { dst, args, .. } => {
                if let Some(d) = dst {
                    self.store_kills(cx, groups, ix, d, &mut kills);
                }
                self.call_kills(cx, groups, ix, sid, args, &mut kills);
                // The result of an allocator that never returns NULL (`xmalloc` dies instead)
                // is an address, as `k = "text"` is, whatever the local held on other paths
                // (`a = NULL; if (y) goto out; a = xmalloc (n); .. out: if (a) ..`). Its success
                // atom, when a pass has one, is free: the fact must not depend on it.
                if let Some((m, k)) = cx.model(sid).zip(dst.as_ref().and_then(key_of)) {
                    if m.never_null && crate::cfg::call_success(m) == Some(crate::libmodel::Success::NonNull) {
                        gen = FactGen::Address(k);
                    }
                }
                if let Some(m) = cx.model(sid) {
                    for (i, path, c) in &m.exit_values {
                        let Some((root, prefix)) = args.get(*i).and_then(|a| cx.arg_slots(a)) else { continue };
                        if let Some(k) = self.key(root, &format!("{prefix}{}", &path[1..])) {
                            sets.push((k, *c));
                        }
                    }
                }
            }
        }
        kills.sort_unstable();
        kills.dedup();
        (!kills.is_empty() || gen != FactGen::None || !sets.is_empty() || !copies.is_empty()).then_some(FactStmt {
            kills,
            gen,
            sets,
            copies,
        })
    }

    /// For a pointer copy `dst = s`: each key below `dst` (past a dereference) paired with the
    /// key at the same path below `s` (`FactStmt::copies`).
    fn pointer_copies(&self, cx: &FnCx, ix: &KeyIndex, dst: &Place, s: LocalId, out: &mut Vec<(u32, u32)>) {
        if !cx.func.local(s).is_pointer || !ix.by_root.contains_key(&s) {
            return;
        }
        let (root, text) = match dst {
            Place::Local(l) => (*l, String::new()),
            _ => match raw_path(dst) {
                Some(p) => p,
                None => return,
            },
        };
        // `s = s` is how the front end writes the step of `*s++` (the pointer moved): what was
        // below the old value is not below the new one.
        if root == s {
            return;
        }
        for &k in ix.by_root.get(&root).map_or(&[][..], |v| v.as_slice()) {
            let Some(rest) = self.keys[k as usize].1.strip_prefix(text.as_str()) else { continue };
            if !rest.starts_with('*') {
                continue;
            }
            if let Some(q) = self.key(s, rest) {
                out.push((k, q));
            }
        }
    }

    /// Keys a store to `dst` may change.
    fn store_kills(&self, cx: &FnCx, groups: &Groups, ix: &KeyIndex, dst: &Place, out: &mut Vec<u32>) {
        // A scalar global whose address is never taken is no object a key rooted at a local
        // reaches: `didset = TRUE` changes nothing a pointer leads to, only its own key.
        if let Place::Global(g) = dst {
            if cx.unaliased_global(g) {
                if let Some(ks) = cx.global_key_root(dst).and_then(|r| ix.by_root.get(&r)) {
                    out.extend_from_slice(ks);
                }
                return;
            }
        }
        if let Place::Local(l) = dst {
            // The local and everything named below its old value.
            if let Some(ks) = ix.by_root.get(l) {
                out.extend_from_slice(ks);
            }
            return;
        }
        let (root, text) = match raw_path(dst) {
            Some((r, t)) => (Some(r), t),
            None => (None, String::new()),
        };
        let group = root.map(|r| groups.find_ro(r.0));
        // Keys of the same object: those on the written path or below it.
        if let Some(g) = group.filter(|_| !text.is_empty()) {
            for &i in ix.by_group.get(&g).map_or(&[][..], |v| v.as_slice()) {
                if prefix_related(&self.keys[i as usize].1, &text) {
                    out.push(i);
                }
            }
        }
        // A store into a block this function allocated, which it never stores anywhere, writes
        // nothing another name reaches (`zRet[n] = 0` after `zRet = malloc(..)`).
        if root.is_some_and(|r| ix.fresh.get(r.index()).copied().unwrap_or(false)) {
            return;
        }
        let (others, through): (&[u32], bool) = match last_field(dst) {
            // Another object's field of the same name may be this one.
            Some(f) => (ix.by_field.get(f).map_or(&[][..], |v| v.as_slice()), false),
            // A store through an unknown pointer (`*q = v`, `a[i] = v`) may write any value
            // reached the same way.
            None => (&ix.through_pointer, true),
        };
        // ... unless the pointer and the key lead from two different parameters: distinct
        // parameters name distinct objects (the access-path assumption heap summaries make),
        // so `*used_p = n` leaves `*status_p` alone.
        let from = |l: LocalId| ix.origin.get(l.index()).copied().flatten();
        let store_from = root.filter(|_| through).and_then(from);
        // A store through a pointer to pointers (`v[i] = s`, `*out = NULL` with `char **v`)
        // writes a pointer: no character or integer another pointer to such scalars leads to
        // (`s[2]`, `*rc`), since C writes an object through its own type.
        let pointee_is = |l: LocalId, want: bool| cx.func.local(l).pointee_pointer == Some(want);
        let stores_pointer = through
            && match dst {
                Place::Deref(b) | Place::Index(b) => match &**b {
                    Place::Local(q) => matches!(dst, Place::Deref(_)) && pointee_is(*q, true),
                    Place::Deref(q) => {
                        matches!((dst, &**q), (Place::Index(_), Place::Local(q)) if pointee_is(*q, true))
                    }
                    _ => false,
                },
                _ => false,
            };
        for &i in others {
            if stores_pointer {
                let (kr, kt) = &self.keys[i as usize];
                let one_scalar = kt == "*" || (kt.starts_with("*[") && path_steps(kt).count() == 2);
                if one_scalar && pointee_is(*kr, false) {
                    continue;
                }
            }
            let other_param = match (store_from, from(self.keys[i as usize].0)) {
                (Some(a), Some(b)) => a != b,
                _ => false,
            };
            if (text.is_empty() || group != Some(ix.group[i as usize])) && !other_param {
                out.push(i);
            }
        }
    }

    /// Keys the callee of call `sid` may change through its arguments `args`: those below them
    /// (`arg_kills`) that a summarised callee may write, by the field names and kinds of store it
    /// makes (`Summary::fields_written`): `string_convert (&conv, ..)` reads `conv.vc_type`
    /// but never stores into a `vc_type`, so two tests of it around the call agree.
    fn call_kills(&self, cx: &FnCx, groups: &Groups, ix: &KeyIndex, sid: StmtId, args: &[Operand], out: &mut Vec<u32>) {
        use crate::global_writes::FieldWrites;
        let written = cx.model(sid).filter(|m| !m.lib).map(|m| &m.fields_written);
        // A library function writes nothing through a `const T *` parameter (`memcpy`'s
        // source): what the source points to, and what is grouped with it, keeps its facts.
        let lib_const = match cx.func.stmt(sid) {
            Stmt::Call { callee: crate::ir::Callee::Direct { const_args, .. }, .. }
                if cx.model(sid).is_some_and(|m| m.lib) =>
            {
                *const_args
            }
            _ => 0,
        };
        let param_written = cx.model(sid).filter(|m| !m.lib).map_or(&[][..], |m| &m.param_fields_written[..]);
        // The tested globals the callee may write (the slots `FnCx`'s reaching definitions use).
        if ix.globals {
            let mut slots = Vec::new();
            cx.written_global_slots(sid, &mut slots);
            for r in slots {
                if let Some(ks) = ix.by_root.get(&r) {
                    out.extend_from_slice(ks);
                }
            }
        }
        for (i, a) in args.iter().enumerate() {
            if i < 64 && lib_const & (1 << i) != 0 {
                continue;
            }
            let before = out.len();
            self.arg_kills(cx, groups, ix, a, out);
            // The address of an object of the function's own that only the calls given it
            // reach: what the callee writes below this parameter is all that changes it, even
            // inside a cycle whose members write every field (vim's `string_convert (&conv,
            // ..)` between two tests of `conv.vc_type`).
            if let (Some(pw), Some(t)) = (param_written.get(i), a.local()) {
                if let Some(x) = cx.addr_temps.get(&t).and_then(Place::storage_local) {
                    if ix.contained.get(x.index()).copied().unwrap_or(false) {
                        let mut j = before;
                        while j < out.len() {
                            let (kr, kt) = &self.keys[out[j] as usize];
                            if *kr == x && !kt.contains('*') && !pw.may_write_path(kt) {
                                out.swap_remove(j);
                            } else {
                                j += 1;
                            }
                        }
                    }
                }
            }
            let Some(FieldWrites::Only { through, .. }) = written else { continue };
            // `&x` of a scalar or pointer local: a store through the argument replaces `x`'s
            // value, and with it every object a key below `x` names.
            let whole_local = *through
                && cx.arg_slots(a).is_some_and(|(x, prefix)| prefix.is_empty() && !cx.func.local(x).is_aggregate);
            if whole_local {
                continue;
            }
            let mut i = before;
            while i < out.len() {
                if written.is_some_and(|w| w.may_write_path(&self.keys[out[i] as usize].1)) {
                    i += 1;
                } else {
                    out.swap_remove(i);
                }
            }
        }
    }

    /// Keys a callee given argument `a` may change.
    fn arg_kills(&self, cx: &FnCx, groups: &Groups, ix: &KeyIndex, a: &Operand, out: &mut Vec<u32>) {
        let Operand::Place(place) = a else { return };
        let (root, prefix) = match place {
            Place::Local(t) if !cx.addr_temps.contains_key(t) => {
                if !cx.func.local(*t).is_pointer {
                    return;
                }
                (*t, std::borrow::Cow::Borrowed("*"))
            }
            _ => match cx.arg_slots(a) {
                Some(s) => s,
                None => match place {
                    Place::Local(t) if cx.func.local(*t).is_pointer => (*t, std::borrow::Cow::Borrowed("*")),
                    Place::Local(_) => return,
                    // A pointer loaded from an object: what it points to is reachable from that
                    // object, not the object itself; so are the places of its group below the
                    // loaded pointer (`this->p` given: `this->p->count`).
                    _ => {
                        let Some(r) = place.root_local() else { return };
                        let g = groups.find_ro(r.0);
                        if let Some((_, text)) = raw_path(place) {
                            for &i in ix.by_group.get(&g).map_or(&[][..], |v| v.as_slice()) {
                                let kt = &self.keys[i as usize].1;
                                if kt.strip_prefix(text.as_str()).is_some_and(|rest| rest.starts_with('*')) {
                                    out.push(i);
                                }
                            }
                        }
                        ix.below_into(groups, g, out);
                        return;
                    }
                },
            },
        };
        if prefix.is_empty() {
            // `&x`: the local itself and all below it.
            if let Some(ks) = ix.by_root.get(&root) {
                out.extend_from_slice(ks);
            }
        }
        let g = groups.find_ro(root.0);
        for &i in ix.by_group.get(&g).map_or(&[][..], |v| v.as_slice()) {
            let (kr, kt) = &self.keys[i as usize];
            if prefix.is_empty() || starts_at_boundary(kt, &prefix) || (prefix.starts_with('.') && *kr != root) {
                out.push(i);
            }
        }
        ix.below_into(groups, g, out);
    }
}

impl Followed {
    /// Key `k` is live at the entry of node `n`.
    pub fn live(&self, n: DagNode, k: u32) -> bool {
        let w = k as usize / 64;
        self.live.get(n.index() * self.words + w).is_some_and(|x| x & (1 << (k % 64)) != 0)
    }

    /// Backward over the DAG: a key is live where some branch test, return (for `ret_keys`) or
    /// copy into a live key can read it before anything may write it.
    fn compute_liveness(&mut self, facts: &Facts, cx: &FnCx) {
        let n = cx.dag.len();
        let words = facts.keys.len().div_ceil(64);
        // Nodes × keys bits: past the function's budget nothing is live, so no fact is carried
        // (facts only cut paths: fewer of them is never a missed report).
        if cx.budget.grow(n * words * 8) {
            return;
        }
        self.words = words;
        self.live = vec![0u64; n * words];
        let mut cur = vec![0u64; words];
        for nd in cx.dag.topo.iter().rev() {
            // Nodes not reached yet keep nothing live.
            if cx.budget.tick() {
                return;
            }
            cur.iter_mut().for_each(|w| *w = 0);
            for (t, _) in &cx.dag.succs[nd.index()] {
                let base = t.index() * words;
                for (w, c) in cur.iter_mut().enumerate() {
                    *c |= self.live[base + w];
                }
            }
            let set = |cur: &mut Vec<u64>, k: u32| cur[k as usize / 64] |= 1 << (k % 64);
            let block = cx.func.block(cx.dag.block[nd.index()]);
            if !cx.dag.is_copy(*nd) {
                if let Some(t) = facts.tests[cx.dag.block[nd.index()].index()] {
                    set(&mut cur, t.key());
                }
            }
            if matches!(block.term, Terminator::Return(_)) {
                for k in &facts.ret_keys {
                    set(&mut cur, *k);
                }
            }
            for sid in cx.stmts_of(*nd).iter().rev() {
                let Some(fs) = &self.stmts[sid.index()] else { continue };
                let get = |cur: &Vec<u64>, k: u32| cur[k as usize / 64] & (1 << (k % 64)) != 0;
                let copy_live = match fs.gen {
                    FactGen::Copy(k, q) | FactGen::CopyNonNeg(k, q) if get(&cur, k) => Some(q),
                    _ => None,
                };
                let below_live: Vec<u32> = fs.copies.iter().filter(|c| get(&cur, c.0)).map(|c| c.1).collect();
                for k in fs.kills.iter().chain(fs.sets.iter().map(|s| &s.0)) {
                    cur[*k as usize / 64] &= !(1 << (k % 64));
                }
                for q in copy_live.into_iter().chain(below_live) {
                    set(&mut cur, q);
                }
            }
            let base = nd.index() * words;
            self.live[base..base + words].copy_from_slice(&cur);
        }
    }

    /// The facts of `state` after statement `sid`, in place (`state`: (key, fact) pairs with a
    /// payload carried along, such as a guard).
    pub fn apply<G: Copy + PartialEq>(&self, sid: StmtId, state: &mut Vec<(u32, Fact, G)>, here: G) {
        let Some(fs) = self.stmts.get(sid.index()).and_then(|s| s.as_ref()) else { return };
        let copied: Vec<(Fact, G)> = match fs.gen {
            FactGen::Copy(_, q) | FactGen::CopyNonNeg(_, q) => {
                state.iter().filter(|f| f.0 == q).map(|f| (f.1, f.2)).collect()
            }
            _ => Vec::new(),
        };
        // What a pointer copy carries below it, read before the store kills it.
        let below: Vec<(u32, Fact, G)> = fs
            .copies
            .iter()
            .flat_map(|&(k, q)| {
                state.iter().filter(move |f| f.0 == q && !matches!(f.1, Fact::Same(_))).map(move |f| (k, f.1, f.2))
            })
            .collect();
        if !fs.kills.is_empty() {
            // An equality dies with either side.
            state.retain(|f| {
                fs.kills.binary_search(&f.0).is_err()
                    && !matches!(f.1, Fact::Same(q) if fs.kills.binary_search(&q).is_ok())
            });
        }
        match fs.gen {
            FactGen::Const(k, c) => state.push((k, Fact::In(c, c), here)),
            FactGen::Address(k) => state.push((k, Fact::Ne(0), here)),
            FactGen::AtLeast(k, c) => state.push((k, Fact::In(c, i64::MAX), here)),
            FactGen::Grow(k) => {
                // Each lower bound of at least 0 survives under its guard, raised past a `!= c`
                // of the same guard (`>= 0` and `!= 0` is `>= 1`).
                let mut kept: Vec<(u32, Fact, G)> = Vec::new();
                for f in state.iter().filter(|f| f.0 == k) {
                    let Fact::In(mut l, _) = f.1 else { continue };
                    while l < i64::MAX && state.iter().any(|e| e.0 == k && e.1 == Fact::Ne(l) && e.2 == f.2) {
                        l += 1;
                    }
                    if l >= 0 {
                        kept.push((k, Fact::In(l, i64::MAX), f.2));
                    }
                }
                state.retain(|f| f.0 != k && f.1 != Fact::Same(k));
                state.extend(kept);
            }
            FactGen::Copy(k, q) | FactGen::CopyNonNeg(k, q) => {
                if matches!(fs.gen, FactGen::CopyNonNeg(..)) {
                    state.push((k, Fact::In(0, i64::MAX), here));
                }
                state.extend(copied.into_iter().filter(|(f, _)| *f != Fact::Same(k)).map(|(f, g)| (k, f, g)));
                state.push((k, Fact::Same(q), here));
            }
            FactGen::Step(k, d, unsigned, once) => {
                state.retain_mut(|f| {
                    if f.1 == Fact::Same(k) {
                        return false;
                    }
                    if f.0 != k {
                        return true;
                    }
                    match if once { f.1.stepped_once(d) } else { f.1.stepped(d) } {
                        Some(moved) => {
                            f.1 = moved;
                            true
                        }
                        None => false,
                    }
                });
                if unsigned && d > 0 && !state.iter().any(|f| f.0 == k) {
                    state.push((k, Fact::In(d, i64::MAX), here));
                }
            }
            FactGen::None => {}
        }
        for &(k, c) in &fs.sets {
            state.retain(|f| f.0 != k && f.1 != Fact::Same(k));
            state.push((k, Fact::In(c, c), here));
        }
        state.extend(below);
    }

    /// Facts that hold on every path from the entry to the start of each node (`None`:
    /// unreachable), for the start of a pass in the middle of the function. At a join a key keeps
    /// what holds on both sides (`Fact::hull`: `t = c ? 1 : 2` is between 1 and 2). A place below
    /// a pointer parameter does not exist on the side of a test that finds the parameter NULL
    /// (`if (es) es->subtype = 1;`): there it is vacuous, and a join takes the other side's fact.
    /// A join also keeps what each side knows under a branch literal the other side's paths never
    /// take (`Conditional`): after `if (p) *existed = 1; else *existed = 0;`, a second test of
    /// `p` (the same atom) knows `*existed` on each of its edges.
    pub fn must_at_entry(&self, facts: &Facts, cx: &FnCx) -> Vec<Option<Vec<(u32, Fact)>>> {
        let n = cx.dag.len();
        let mut at: Vec<Option<MustAt>> = vec![None; n];
        at[cx.func.entry.index()] = Some(MustAt::default());
        for nd in &cx.dag.topo {
            // Past the budget, nothing is known anywhere: a node whose predecessors were not
            // all seen would keep facts that do not hold on every path.
            if cx.budget.tick() {
                return vec![None; n];
            }
            let Some(MustAt { facts: st, mut vacuous, lits, cond }) = at[nd.index()].clone() else { continue };
            let tag =
                |v: Vec<(u32, Fact)>| -> Vec<(u32, Fact, ())> { v.into_iter().map(|(k, f)| (k, f, ())).collect() };
            let mut tagged = tag(st);
            let mut cond: Vec<(Lit, Vec<(u32, Fact, ())>)> = cond.into_iter().map(|(l, v)| (l, tag(v))).collect();
            for sid in cx.stmts_of(*nd) {
                if let Some(fs) = self.stmts.get(sid.index()).and_then(|s| s.as_ref()) {
                    vacuous.retain(|k| fs.kills.binary_search(k).is_err());
                }
                self.apply(*sid, &mut tagged, ());
                for (_, c) in &mut cond {
                    self.apply(*sid, c, ());
                }
            }
            let copy = cx.dag.is_copy(*nd);
            let test = if copy { None } else { facts.tests[cx.dag.block[nd.index()].index()] };
            let null_side = match &cx.func.block(cx.dag.block[nd.index()]).term {
                Terminator::Branch { then_, else_, cond } if !copy => {
                    self.null_param_side(facts, cx, *nd, cond, *then_, *else_)
                }
                _ => None,
            };
            for (t, label) in &cx.dag.succs[nd.index()] {
                // Locals a later loop iteration redefined (`Dag::kills`) lose their facts.
                let kills = cx.dag.kills(*nd, *t);
                // A copy that jumps to the body's exits skips what the later iteration it stands
                // for wrote on the way: `Dag::exit_kills` names the locals it surely defines, and
                // any tested global may have been written (`FnCx::global_key_root`).
                let later = cx.dag.later.contains_key(&nd.0);
                let killed = |k: u32| {
                    kills.contains(&facts.keys[k as usize].0) || (later && cx.is_global_slot(facts.keys[k as usize].0))
                };
                let keep = |f: &&(u32, Fact, ())| match f.1 {
                    Fact::Same(q) => (self.live(*t, f.0) || self.live(*t, q)) && !killed(f.0) && !killed(q),
                    _ => self.live(*t, f.0) && !killed(f.0),
                };
                let mut out: Vec<(u32, Fact)> = tagged.iter().filter(keep).map(|f| (f.0, f.1)).collect();
                let lit = match label {
                    crate::cfg::EdgeLabel::Lit { atom, positive } => Some((*atom, *positive)),
                    _ => None,
                };
                // What the paths that take this edge's literal knew besides.
                if let Some((_, known)) = lit.and_then(|l| cond.iter().find(|c| c.0 == l)) {
                    for f in known.iter().filter(keep) {
                        match out.iter_mut().find(|o| o.0 == f.0 && !matches!(o.1, Fact::Same(_))) {
                            Some(o) if !matches!(f.1, Fact::Same(_)) => o.1 = o.1.meet(f.1),
                            _ => out.push((f.0, f.1)),
                        }
                    }
                }
                if let Some(test) = test {
                    let edge = test.edge(cx.func.block(cx.dag.block[nd.index()]), cx.dag.block[t.index()]);
                    if let Some(f) = edge.learned() {
                        let pairs: Vec<(u32, Fact, ())> = out.iter().map(|e| (e.0, e.1, ())).collect();
                        let equal: Vec<u32> = equal_keys(&pairs, edge.key).map(|(o, _)| o).collect();
                        out.extend(equal.into_iter().chain([edge.key]).filter(|o| self.live(*t, *o)).map(|o| (o, f)));
                    }
                }
                out.sort_unstable();
                out.dedup();
                let mut vac: Vec<u32> = vacuous.iter().copied().filter(|k| !killed(*k)).collect();
                if let Some((block, below)) = &null_side {
                    if cx.dag.block[t.index()] == *block {
                        vac.extend(below.iter().copied());
                        vac.sort_unstable();
                        vac.dedup();
                    }
                }
                let mut t_lits = lits.clone();
                if let Some(l) = lit {
                    t_lits.retain(|x| x.0 != l.0);
                    t_lits.push(l);
                    if t_lits.len() > MUST_LITS {
                        t_lits.remove(0);
                    }
                }
                let t_cond: Vec<(Lit, Vec<(u32, Fact)>)> = cond
                    .iter()
                    .map(|(l, v)| (*l, v.iter().filter(keep).map(|f| (f.0, f.1)).collect::<Vec<_>>()))
                    .filter(|(_, v)| !v.is_empty())
                    .collect();
                if cx.budget.grow(std::mem::size_of_val(&out[..])) {
                    return vec![None; n];
                }
                let arriving = MustAt { facts: out, vacuous: vac, lits: t_lits, cond: t_cond };
                match &mut at[t.index()] {
                    slot @ None => *slot = Some(arriving),
                    Some(cur) => *cur = cur.join(arriving),
                }
            }
        }
        at.into_iter().map(|a| a.map(|a| a.facts)).collect()
    }

    /// For a branch that tests a pointer parameter's entry value against NULL: the block of the
    /// side where it is NULL, and the keys below the parameter (sorted).
    fn null_param_side(
        &self,
        facts: &Facts,
        cx: &FnCx,
        nd: DagNode,
        cond: &crate::ir::Cond,
        then_: crate::ir::BlockId,
        else_: crate::ir::BlockId,
    ) -> Option<(crate::ir::BlockId, Vec<u32>)> {
        let (p, null_block) = match &cond.kind {
            CondKind::Truthy(Operand::Place(Place::Local(p))) => (*p, else_),
            CondKind::Cmp(CmpOp::Eq, Operand::Place(Place::Local(p)), Operand::Const(0))
            | CondKind::Cmp(CmpOp::Eq, Operand::Const(0), Operand::Place(Place::Local(p))) => (*p, then_),
            CondKind::Cmp(CmpOp::Ne, Operand::Place(Place::Local(p)), Operand::Const(0))
            | CondKind::Cmp(CmpOp::Ne, Operand::Const(0), Operand::Place(Place::Local(p))) => (*p, else_),
            _ => return None,
        };
        if cx.param_index(p).is_none() || !cx.func.local(p).is_pointer {
            return None;
        }
        let end = cx.stmts_of(nd).len();
        if !cx.reaching_defs(p, nd, end).iter().all(|d| *d == crate::cfg::Def::Entry) {
            return None;
        }
        let below: Vec<u32> = facts
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.0 == p && k.1.starts_with('*'))
            .map(|(i, _)| i as u32)
            .collect();
        (!below.is_empty()).then_some((null_block, below))
    }
}

/// The keys `state` says equal `k` (`Fact::Same`, either way round), each with the payload of
/// that equality: what a test learns of `k` holds of them where the equality does.
pub fn equal_keys<G: Copy>(state: &[(u32, Fact, G)], k: u32) -> impl Iterator<Item = (u32, G)> + '_ {
    state.iter().filter_map(move |e| match e.1 {
        Fact::Same(q) if e.0 == k && q != k => Some((q, e.2)),
        Fact::Same(q) if q == k && e.0 != k => Some((e.0, e.2)),
        _ => None,
    })
}

/// A branch's condition with a local that surely holds a constant at the branch replaced by the
/// constant, when the other side is a place: the first test of `for (i = 0; i < n; i++)` is
/// `0 < n`, which a counter fact on `n` decides (the loop that frees `n` stored blocks runs at
/// least once). Only the first visit of the block is a branch facts decide (the header copy's test
/// is no test).
fn folded_test<'k>(cx: &FnCx, kind: &'k CondKind, node: DagNode) -> std::borrow::Cow<'k, CondKind> {
    let CondKind::Cmp(op, a @ Operand::Place(_), b @ Operand::Place(_)) = kind else {
        return std::borrow::Cow::Borrowed(kind);
    };
    let end = cx.stmts_of(node).len();
    match (cx.constant_at(a, node, end), cx.constant_at(b, node, end)) {
        (Some(k), None) => std::borrow::Cow::Owned(CondKind::Cmp(*op, Operand::Const(k), b.clone())),
        (None, Some(k)) => std::borrow::Cow::Owned(CondKind::Cmp(*op, a.clone(), Operand::Const(k))),
        _ => std::borrow::Cow::Borrowed(kind),
    }
}

/// Temporaries that hold bits of a memory place and nothing else (`t = var->attributes;
/// u = t & F`): `(u, the place, F)`. A test of `u` is a test of the masked key `*.attributes&F`,
/// a value of its own that every write of the place changes (`starts_at_boundary` takes `&` as
/// a step of the path), so that two bit tests of one field correlate where facts follow it:
/// across a join whose other side wrote the field (`assoc_p (var)` in bash), which shares no
/// atom.
fn masked_loads<'f>(cx: &FnCx<'f>) -> HashMap<LocalId, (&'f Place, i64)> {
    let func = cx.func;
    if func.bits.is_empty() {
        return HashMap::new();
    }
    // Per local: its one definition when that loads a memory place (`None` once it has another).
    let mut loads: Vec<Option<Option<&Place>>> = vec![None; func.locals.len()];
    for st in &func.stmts {
        if let Stmt::Assign { dst: Place::Local(d), src } = st {
            let slot = &mut loads[d.index()];
            *slot = match (&*slot, src) {
                (None, Rvalue::Use(Operand::Place(p))) if !matches!(p, Place::Local(_)) => Some(Some(p)),
                _ => Some(None),
            };
        }
    }
    let is_temp = |l: LocalId| func.local(l).kind == crate::ir::LocalKind::Temp;
    func.bits
        .iter()
        .filter(|(_, b)| b.ones == 0 && b.from_base != 0 && b.from_base != -1)
        .filter_map(|(sid, b)| {
            let Stmt::Assign { dst: Place::Local(u), .. } = func.stmt(*sid) else { return None };
            let base = b.base.filter(|base| is_temp(*base) && is_temp(*u))?;
            Some((*u, (loads[base.index()].flatten()?, b.from_base)))
        })
        .collect()
}

/// Locals whose value facts may be about: scalars (tracked or not) whose address, if taken, only
/// goes straight into call arguments (`f(&rc)`), where the call's kills cover it.
/// Per local: it holds a value of at least 0 wherever it is read (`floor_locals` at least 0).
/// Parameters are left out: their entry value is the caller's.
pub fn nonneg_locals(cx: &FnCx) -> Vec<bool> {
    floor_locals(cx).into_iter().map(|f| f >= 0).collect()
}

/// Per local: the least value it holds wherever it is read (`i64::MIN`: none known; `i64::MAX`:
/// nothing defines it but steps up). A scalar integer variable whose address is never taken, and
/// whose every definition is a constant, an expression of unsigned type (`Function::nonneg`, at
/// least its floor), an increment, a growth (`Function::grows`: `size *= 2`, which never makes
/// it smaller while it is at least 0, so only where the floor is), or a copy of another such
/// local, is at least the least of those values (`cnt = 0; for (..) cnt = (cnt << 8) +
/// (unsigned)c;` is at least 0; `size = 16; .. size = 32; .. size *= 2` at least 16).
/// Flow-insensitive, so it holds in every loop iteration without following the loop.
/// Wrap-around and overflow are not modelled, as for counters. Parameters are left out: their
/// entry value is the caller's.
pub fn floor_locals(cx: &FnCx) -> Vec<i64> {
    let func = cx.func;
    let mut floor: Vec<i64> = func
        .locals
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i >= func.n_params as usize && !l.is_pointer && !l.is_aggregate && !l.is_static {
                i64::MAX
            } else {
                i64::MIN
            }
        })
        .collect();
    // Copies between candidates: (into, from), settled below; and the locals some statement grows.
    let mut copies: Vec<(LocalId, LocalId)> = Vec::new();
    let mut grown: Vec<LocalId> = Vec::new();
    for (si, st) in func.stmts.iter().enumerate() {
        match st {
            Stmt::Assign { dst, src } => {
                if let Rvalue::AddrOf(p) = src {
                    if let Some(r) = p.root_local() {
                        floor[r.index()] = i64::MIN;
                    }
                }
                let Place::Local(l) = dst else { continue };
                if floor[l.index()] == i64::MIN {
                    continue;
                }
                let sid = StmtId::from_usize(si);
                let least = match src {
                    Rvalue::Use(Operand::Const(c)) => *c,
                    Rvalue::Use(Operand::Place(Place::Local(q))) => {
                        copies.push((*l, *q));
                        continue;
                    }
                    Rvalue::Opaque(_) => match func.step_of(sid) {
                        Some((d, _)) if d > 0 => continue,
                        Some(_) => i64::MIN,
                        None => match func.nonneg_floor(sid) {
                            Some(f) => f,
                            None if func.grows_at(sid) => {
                                grown.push(*l);
                                continue;
                            }
                            None => i64::MIN,
                        },
                    },
                    _ => i64::MIN,
                };
                floor[l.index()] = floor[l.index()].min(least);
            }
            Stmt::Call { dst: Some(Place::Local(l)), .. } => floor[l.index()] = i64::MIN,
            Stmt::Call { .. } => {}
        }
    }
    loop {
        let mut changed = false;
        for &(l, q) in &copies {
            if floor[q.index()] < floor[l.index()] {
                floor[l.index()] = floor[q.index()];
                changed = true;
            }
        }
        for &l in &grown {
            if floor[l.index()] < 0 && floor[l.index()] != i64::MIN {
                floor[l.index()] = i64::MIN;
                changed = true;
            }
        }
        if !changed {
            return floor;
        }
    }
}

/// How a branch tests its key, before keys are numbered (`KeyTest`).
#[derive(Clone, Copy)]
enum RawTest {
    Cmp(CmpOp, i64),
    Switch,
    Bound(i64, bool),
}

/// The local and constant that temporary `t` holds at the branch ending block `bi`, when the
/// block assigns it `x + k` (`Function::offsets`) and nothing after that in the block may
/// change `x` (no assignment of it, no call).
fn offset_at(cx: &FnCx, bi: usize, t: LocalId) -> Option<(LocalId, i64)> {
    let func = cx.func;
    if func.offsets.is_empty() || func.local(t).kind != crate::ir::LocalKind::Temp {
        return None;
    }
    let mut written: Vec<LocalId> = Vec::new();
    for sid in func.blocks[bi].stmts.iter().rev() {
        match func.stmt(*sid) {
            Stmt::Assign { dst: Place::Local(d), src: Rvalue::Opaque(ops) } if *d == t => {
                let k = func.offset_of(*sid)?;
                let x = ops.iter().find_map(|o| match o {
                    Operand::Place(Place::Local(x)) => Some(*x),
                    _ => None,
                })?;
                return (!written.contains(&x) && !func.local(x).is_pointer).then_some((x, k));
            }
            Stmt::Assign { dst: Place::Local(d), .. } if *d == t => return None,
            Stmt::Assign { dst: Place::Local(d), .. } => written.push(*d),
            Stmt::Assign { .. } => {}
            Stmt::Call { .. } => return None,
        }
    }
    None
}

/// What the branch ending block `bi`, `a op b` of two locals, says of one of them: `x + k op y`
/// (`x` itself, or a temporary holding `x + k`: `offset_at`) with `y` at least `L`
/// (`floor_locals`; `y` may be a temporary holding a local at least `L - j` plus `j`) gives `x >= L - k` (`+ 1` where strict) on the side where `x + k` is the
/// greater, and nothing on the other (`y` has no upper bound). `(x, bound, on the then side)`,
/// where the bound says more than `x`'s own floor.
fn bound_test(cx: &FnCx, floors: &[i64], bi: usize, op: CmpOp, a: &Place, b: &Place) -> Option<(LocalId, i64, bool)> {
    let side = |p: &Place| match p {
        Place::Local(t) => offset_at(cx, bi, *t).or(Some((*t, 0))),
        _ => None,
    };
    // `size - 1` is at least `size`'s floor less 1.
    let floor_of = |p: &Place| {
        let (y, k) = side(p)?;
        Some(floors[y.index()]).filter(|f| *f != i64::MIN && *f != i64::MAX)?.checked_add(k)
    };
    for (xp, yp, op) in [(a, b, op), (b, a, op.swapped())] {
        let (Some((x, k)), Some(l)) = (side(xp), floor_of(yp)) else { continue };
        if side(yp).is_some_and(|(y, _)| y == x) || cx.func.local(x).is_pointer {
            continue;
        }
        let (at_least, on_then) = match op {
            CmpOp::Gt => (l.checked_add(1), true),
            CmpOp::Ge | CmpOp::Eq => (Some(l), true),
            CmpOp::Lt | CmpOp::Ne => (Some(l), false),
            CmpOp::Le => (l.checked_add(1), false),
        };
        let Some(bound) = at_least.and_then(|v| v.checked_sub(k)) else { continue };
        if bound > floors[x.index()] || floors[x.index()] == i64::MAX {
            return Some((x, bound, on_then));
        }
    }
    None
}

fn fact_locals(cx: &FnCx) -> Vec<bool> {
    let func = cx.func;
    let mut ok: Vec<bool> = func.locals.iter().map(|l| !l.is_aggregate && !l.is_static).collect();
    let mut other_use: Vec<bool> = vec![false; func.locals.len()];
    let note = |op: &Operand, other_use: &mut Vec<bool>| {
        if let Some(t) = op.local().filter(|t| cx.addr_temps.contains_key(t)) {
            other_use[t.index()] = true;
        }
    };
    for st in &func.stmts {
        match st {
            Stmt::Assign { src: Rvalue::Use(op), .. } => note(op, &mut other_use),
            Stmt::Assign { src: Rvalue::Opaque(ops), .. } => ops.iter().for_each(|o| note(o, &mut other_use)),
            Stmt::Assign { .. } => {}
            Stmt::Call { callee: crate::ir::Callee::Indirect { target, .. }, .. } => note(target, &mut other_use),
            Stmt::Call { .. } => {}
        }
    }
    for b in &func.blocks {
        match &b.term {
            Terminator::Return(Some(op)) | Terminator::Switch { on: op, .. } => note(op, &mut other_use),
            Terminator::Branch { cond, .. } => match &cond.kind {
                CondKind::Truthy(op) => note(op, &mut other_use),
                CondKind::Cmp(_, a, b2) => {
                    note(a, &mut other_use);
                    note(b2, &mut other_use);
                }
                CondKind::Opaque => {}
            },
            _ => {}
        }
    }
    for st in &func.stmts {
        if let Stmt::Assign { dst, src: Rvalue::AddrOf(p) } = st {
            if let Some(x) = p.storage_local() {
                let via_call = dst.as_local().is_some_and(|t| cx.addr_temps.contains_key(&t) && !other_use[t.index()]);
                if !via_call || !matches!(p, Place::Local(_)) {
                    ok[x.index()] = false;
                }
            }
        }
    }
    ok
}

/// Per local: an object of the function's own (no pointer, not `static`) whose address goes
/// only into address temporaries (`FnCx::addr_temps`) that are only given to calls, each of
/// which says what it writes below that argument (a library row, or a summary whose
/// `param_fields_written` there is not `All`: a callee that stores the address, or hands it to
/// one that may, leaves it reachable by later calls). Only the calls given its address reach
/// such an object (drip's assumption for every argument, made safe here by the check that no
/// callee keeps it), so `call_kills` may ask each of them what it writes below that parameter.
fn contained_locals(cx: &FnCx) -> Vec<bool> {
    use crate::global_writes::FieldWrites;
    let func = cx.func;
    let mut ok: Vec<bool> = func.locals.iter().map(|l| !l.is_pointer && !l.is_static).collect();
    if cx.addr_temps.is_empty() {
        return ok;
    }
    let target = |t: &LocalId| cx.addr_temps.get(t).and_then(Place::storage_local);
    for (si, st) in func.stmts.iter().enumerate() {
        match st {
            Stmt::Assign { dst, src } => {
                match src {
                    Rvalue::AddrOf(p) => {
                        if let Some(x) = p.storage_local() {
                            if !matches!(dst, Place::Local(t) if cx.addr_temps.contains_key(t)) {
                                ok[x.index()] = false;
                            }
                        }
                    }
                    // An address temporary copied on: other names reach the object.
                    Rvalue::Use(Operand::Place(Place::Local(t))) => {
                        if let Some(x) = target(t) {
                            ok[x.index()] = false;
                        }
                    }
                    _ => {}
                }
            }
            Stmt::Call { args, .. } => {
                let sid = StmtId::from_usize(si);
                for (k, a) in args.iter().enumerate() {
                    let Some(x) = a.local().as_ref().and_then(target) else { continue };
                    let says = match cx.model(sid) {
                        Some(m) if m.lib => true,
                        Some(m) => m.param_fields_written.get(k).is_some_and(|w| !matches!(w, FieldWrites::All)),
                        None => false,
                    };
                    if !says {
                        ok[x.index()] = false;
                    }
                }
            }
        }
    }
    ok
}

/// Pointer locals that only ever hold a block this function allocated (or a constant: NULL) and
/// whose value is never stored into memory: nothing but them (and the calls they are passed to)
/// reaches the block.
fn fresh_blocks(cx: &FnCx) -> Vec<bool> {
    let func = cx.func;
    let mut fresh: Vec<bool> = func.locals.iter().map(|l| l.is_pointer && !l.is_static).collect();
    for p in func.params() {
        fresh[p.index()] = false;
    }
    for (si, st) in func.stmts.iter().enumerate() {
        match st {
            Stmt::Assign { dst, src } => {
                if let Place::Local(l) = dst {
                    if !matches!(src, Rvalue::Use(Operand::Const(_))) {
                        fresh[l.index()] = false;
                    }
                }
                // Copied (to a local that may be stored in turn, or into memory), offset, or
                // its address taken: other names may reach the block.
                match src {
                    Rvalue::Use(Operand::Place(Place::Local(y))) => fresh[y.index()] = false,
                    Rvalue::AddrOf(p) => {
                        if let Some(x) = p.storage_local() {
                            fresh[x.index()] = false;
                        }
                    }
                    Rvalue::Opaque(ops) => {
                        for y in ops.iter().filter_map(|o| o.local()) {
                            fresh[y.index()] = false;
                        }
                    }
                    _ => {}
                }
            }
            Stmt::Call { dst: Some(Place::Local(l)), .. } => {
                if !cx.model(StmtId::from_usize(si)).is_some_and(|m| matches!(m.ret, RetEffect::Fresh(_))) {
                    fresh[l.index()] = false;
                }
            }
            Stmt::Call { .. } => {}
        }
    }
    fresh
}

/// Per local: the pointer parameter whose objects (the one it points to, or one reached by
/// loading through it) the local surely points into, on every definition: the parameter itself
/// (never assigned, its address never taken), copies of such a local, pointer arithmetic on one
/// (`p++`, `p - 2`), and pointers loaded through one (`mesg = value->msg`). Anything else
/// (a call's result, a global, an address, a local of unknown origin, two parameters) has none.
/// Found optimistically: definitions that copy a local not yet known are skipped until it is.
fn param_origins(cx: &FnCx) -> Vec<Option<LocalId>> {
    #[derive(Clone, Copy, PartialEq)]
    enum O {
        Top,
        P(LocalId),
        Bot,
    }
    let meet = |a: O, b: O| match (a, b) {
        (O::Top, x) | (x, O::Top) => x,
        (O::P(x), O::P(y)) if x == y => O::P(x),
        _ => O::Bot,
    };
    let func = cx.func;
    let n = func.locals.len();
    // Locals that have a definition of their own; the others keep what they start with.
    let mut o = vec![O::Bot; n];
    let mut taken = vec![false; n];
    for st in &func.stmts {
        match st {
            Stmt::Assign { dst: Place::Local(l), .. } | Stmt::Call { dst: Some(Place::Local(l)), .. } => {
                o[l.index()] = O::Top;
            }
            _ => {}
        }
        if let Stmt::Assign { src: Rvalue::AddrOf(p), .. } = st {
            if let Some(x) = p.storage_local() {
                taken[x.index()] = true;
            }
        }
    }
    for p in func.params() {
        let d = func.local(p);
        o[p.index()] = if d.is_pointer && o[p.index()] == O::Bot { O::P(p) } else { O::Bot };
    }
    for (l, d) in func.locals.iter().enumerate() {
        if taken[l] || d.is_static || d.is_aggregate || !d.is_pointer {
            o[l] = O::Bot;
        }
    }
    loop {
        let mut changed = false;
        for st in &func.stmts {
            let (l, src) = match st {
                Stmt::Assign { dst: Place::Local(l), src } => (*l, Some(src)),
                Stmt::Call { dst: Some(Place::Local(l)), .. } => (*l, None),
                _ => continue,
            };
            if o[l.index()] == O::Bot {
                continue;
            }
            let s = match src {
                Some(Rvalue::Use(Operand::Place(Place::Local(y)))) => o[y.index()],
                // Loaded through a local: an object reached from the same parameter.
                Some(Rvalue::Use(Operand::Place(p))) => match p.root_local() {
                    Some(r) if matches!(o[r.index()], O::P(_)) => o[r.index()],
                    _ => O::Bot,
                },
                Some(Rvalue::Opaque(ops)) => {
                    let mut s = O::Bot;
                    for (i, y) in
                        ops.iter().filter_map(|op| op.local()).filter(|y| func.local(*y).is_pointer).enumerate()
                    {
                        s = if i == 0 { o[y.index()] } else { meet(s, o[y.index()]) };
                    }
                    s
                }
                _ => O::Bot,
            };
            let new = meet(o[l.index()], s);
            if new != o[l.index()] {
                o[l.index()] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    o.into_iter().map(|x| if let O::P(p) = x { Some(p) } else { None }).collect()
}

/// The key a place names, if facts can be about it: a local that `fact_locals` allows, or an
/// access path below one (not through an array: all its elements are one place).
fn raw_key(cx: &FnCx, fact_local: &[bool], place: &Place) -> Option<(LocalId, String)> {
    match place {
        Place::Local(l) => return fact_local[l.index()].then(|| (*l, String::new())),
        Place::Global(_) => return cx.global_key_root(place).map(|g| (g, String::new())),
        _ => {}
    }
    let (root, text) = raw_path(place)?;
    key_of_path(cx, root, text)
}

/// Per statement: a step (`Function::steps`) whose block is in no cycle of the CFG, so it runs
/// at most once on any path (`FactGen::Step`). Empty when the function has no steps.
fn steps_outside_loops(func: &crate::ir::Function) -> Vec<bool> {
    if func.steps.is_empty() {
        return Vec::new();
    }
    let n = func.blocks.len();
    let mut block_of: Vec<u32> = vec![u32::MAX; func.stmts.len()];
    for (bi, b) in func.blocks.iter().enumerate() {
        for s in &b.stmts {
            block_of[s.index()] = bi as u32;
        }
    }
    let mut out = vec![false; func.stmts.len()];
    // Whether block `b` reaches itself: a search from its successors, memoised per block.
    let mut cyclic: Vec<Option<bool>> = vec![None; n];
    let mut seen: Vec<u32> = vec![u32::MAX; n];
    for &(sid, _, _) in &func.steps {
        let b = block_of.get(sid.index()).copied().unwrap_or(u32::MAX);
        if b == u32::MAX {
            continue;
        }
        let c = *cyclic[b as usize].get_or_insert_with(|| {
            let mut work: Vec<crate::ir::BlockId> = func.blocks[b as usize].term.successors().collect();
            while let Some(x) = work.pop() {
                if x.index() == b as usize {
                    return true;
                }
                if std::mem::replace(&mut seen[x.index()], b) == b {
                    continue;
                }
                work.extend(func.blocks[x.index()].term.successors());
            }
            false
        });
        out[sid.index()] = !c;
    }
    out
}

/// The places a callee leaves a constant in (`exit_set`, `Summary::exit_values`) reach tested
/// places through pointer copies (`tmp = new hdr; hdr::hdr (tmp); this->p = tmp;` before `if
/// (--this->p->count <= 0)`): each (tested place, or one copied on into one) with the place at
/// the same path below the copy's source, for `assigned`, so both are followed.
fn exit_links<V>(
    cx: &FnCx,
    fact_local: &[bool],
    exit_set: Vec<(LocalId, String)>,
    tested: &HashMap<(LocalId, String), V>,
) -> Vec<((LocalId, String), Option<(LocalId, String)>)> {
    let mut out: Vec<((LocalId, String), Option<(LocalId, String)>)> = Vec::new();
    if exit_set.is_empty() {
        return out;
    }
    // Forward from the set places over pointer copies, a few rounds: (place, its source).
    let mut reached: Vec<((LocalId, String), Option<(LocalId, String)>)> =
        exit_set.into_iter().map(|k| (k, None)).collect();
    let copies: Vec<((LocalId, String), LocalId)> = cx
        .func
        .stmts
        .iter()
        .filter_map(|st| match st {
            Stmt::Assign { dst, src: Rvalue::Use(Operand::Place(Place::Local(s))) }
                if cx.func.local(*s).is_pointer && dst.root_local() != Some(*s) =>
            {
                let d = match dst {
                    Place::Local(l) if fact_local[l.index()] => (*l, String::new()),
                    Place::Local(_) => return None,
                    _ => raw_path(dst)?,
                };
                Some((d, *s))
            }
            _ => None,
        })
        .collect();
    let mut from = 0;
    for _ in 0..4 {
        let end = reached.len();
        for i in from..end {
            let (r, t) = reached[i].0.clone();
            for ((dr, dt), s) in &copies {
                if *s != r {
                    continue;
                }
                let Some(k) = key_of_path(cx, *dr, format!("{dt}{t}")) else { continue };
                if reached.len() < 64 && !reached.iter().any(|x| x.0 == k) {
                    reached.push((k, Some((r, t.clone()))));
                }
            }
        }
        if reached.len() == end {
            break;
        }
        from = end;
    }
    // Back from the tested places: the links that lead to one.
    let mut want: Vec<(LocalId, String)> =
        reached.iter().map(|x| x.0.clone()).filter(|k| tested.contains_key(k)).collect();
    let mut i = 0;
    while i < want.len() {
        if let Some((k, src)) = reached.iter().find(|x| x.0 == want[i]) {
            out.push((k.clone(), None));
            if let Some(s) = src {
                out.push((k.clone(), Some(s.clone())));
                if !want.contains(s) {
                    want.push(s.clone());
                }
            }
        }
        i += 1;
    }
    out
}

/// `raw_key` of a path text: not through an element of unknown index, at most six steps.
fn key_of_path(cx: &FnCx, root: LocalId, text: String) -> Option<(LocalId, String)> {
    if text.contains("[]") || text.matches(['*', '.', '[']).count() > 6 {
        return None;
    }
    // Below a pointer the function tracks, or a field of a local struct whose address only goes
    // to calls.
    let ok = if text.starts_with('*') {
        cx.is_tracked(root)
    } else {
        cx.field_aggregates.get(root.index()).copied().unwrap_or(false)
    };
    ok.then_some((root, text))
}

/// The key of an array element the front end saw a constant index of (`s[2]`: `*[2]`, `p->v[1]`:
/// `*.v[1]`), each `[]` of the place's path filled in with its index, root first
/// (`Function::tested_elems`); `p[0]` is `*p`, one key. An element whose index is not a constant
/// leaves `[]`, and then it is no key (all elements are one place).
fn elem_key(cx: &FnCx, place: &Place, elems: &[Option<i64>]) -> Option<(LocalId, String)> {
    let (root, text) = raw_path(place)?;
    let mut filled = String::with_capacity(text.len() + 4);
    let mut rest = text.as_str();
    for k in elems {
        let (before, after) = rest.split_once("[]")?;
        filled.push_str(before);
        match k {
            Some(0) if filled.ends_with('*') => {}
            Some(k) => filled.push_str(&format!("[{k}]")),
            None => filled.push_str("[]"),
        }
        rest = after;
    }
    filled.push_str(rest);
    // Only below a pointer: a local array's elements are written by what is given its address.
    if !filled.starts_with('*') {
        return None;
    }
    key_of_path(cx, root, filled)
}

/// The pointer whose object a place is in: `p` for `p->a[i]`, `p->q` for `p->q->f`; `None` for
/// the storage of a local (`s.f`, `x`).
fn pointee_base(place: &Place) -> Option<&Place> {
    match place {
        Place::Deref(inner) => Some(inner),
        Place::Field(p, _) | Place::Index(p) => pointee_base(p),
        Place::Local(_) | Place::Global(_) => None,
    }
}

/// The field a store writes last (`rc` for `p->rc`, `x->s.rc`), or `None` for `*q`, `a[i]`.
fn last_field(place: &Place) -> Option<&str> {
    match place {
        Place::Field(_, f) => Some(f),
        _ => None,
    }
}

/// `text` starts with `prefix`, and ends there or continues with another step. An element of
/// unknown index (`[]`, every path a statement writes) may be any element (`[2]`).
fn starts_at_boundary(text: &str, prefix: &str) -> bool {
    if !text.contains('[') || !prefix.contains('[') {
        return text.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '*', '[', '&']));
    }
    let (mut t, mut p) = (path_steps(text), path_steps(prefix));
    loop {
        match (p.next(), t.next()) {
            (None, _) => return true,
            (Some(_), None) => return false,
            (Some(a), Some(b)) => {
                let any = |x: &str, y: &str| x == "[]" && y.starts_with('[');
                if a != b && !any(a, b) && !any(b, a) {
                    return false;
                }
            }
        }
    }
}

/// The steps of a path text: `*`, `.field`, `[]`, `[2]`, `&mask`.
fn path_steps(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let len = match first {
            '*' => 1,
            '[' => rest.find(']').map_or(rest.len(), |i| i + 1),
            _ => rest[1..].find(['.', '*', '[', '&']).map_or(rest.len(), |i| i + 1),
        };
        let (step, after) = rest.split_at(len);
        rest = after;
        Some(step)
    })
}

fn prefix_related(a: &str, b: &str) -> bool {
    starts_at_boundary(a, b) || starts_at_boundary(b, a)
}

/// The keys by root local, by group of the root (keys below a local only: a local's own value
/// is written only by a store to it), by field name on their path, and those ending in a store
/// through a pointer (`*`, `[]`), so that a statement's kills are found without scanning them all.
struct KeyIndex {
    by_root: HashMap<LocalId, Vec<u32>>,
    by_group: HashMap<u32, Vec<u32>>,
    by_field: HashMap<String, Vec<u32>>,
    through_pointer: Vec<u32>,
    /// Per key: some statement steps it (`n++`, `(*n)++`): a scalar integer, which a store of a
    /// pointer value or into an array element does not write (C's aliasing rules: an object is
    /// written through its own type; a count is not an element of the array it counts).
    counts: Vec<bool>,
    /// Per key: the group of its root.
    group: Vec<u32>,
    /// Per local: it only ever holds a block this function allocated, or a constant (NULL), and
    /// the block is never stored into memory (`fresh_blocks`).
    fresh: Vec<bool>,
    /// Per local: the one pointer parameter whose objects it surely points into (`param_origins`).
    origin: Vec<Option<LocalId>>,
    /// Per local: it is never negative (`nonneg_locals`).
    nonneg: Vec<bool>,
    /// Per local: only the calls given its address reach it (`contained_locals`); empty when
    /// not computed (none).
    contained: Vec<bool>,
    /// Per statement: a step (`Function::steps`) in no loop of the CFG (`FactGen::Step`).
    once: Vec<bool>,
    /// Some key is a tested global's (`FnCx::global_key_root`): calls may write it.
    globals: bool,
    /// Per group: the keys (below a local) in the groups reachable from it.
    below: std::cell::RefCell<HashMap<u32, Vec<u32>>>,
}

impl KeyIndex {
    fn new(keys: &[(LocalId, String)], groups: &Groups) -> KeyIndex {
        let mut ix = KeyIndex {
            by_root: HashMap::new(),
            by_group: HashMap::new(),
            by_field: HashMap::new(),
            through_pointer: Vec::new(),
            counts: Vec::new(),
            group: Vec::with_capacity(keys.len()),
            fresh: Vec::new(),
            origin: Vec::new(),
            nonneg: Vec::new(),
            contained: Vec::new(),
            once: Vec::new(),
            globals: false,
            below: Default::default(),
        };
        for (i, (root, text)) in keys.iter().enumerate() {
            let i = i as u32;
            let g = groups.find_ro(root.0);
            ix.group.push(g);
            ix.by_root.entry(*root).or_default().push(i);
            if text.is_empty() {
                continue;
            }
            ix.by_group.entry(g).or_default().push(i);
            // A masked key (`*.attributes&64`) is written by what writes its place.
            let text = text.split_once('&').map_or(text.as_str(), |t| t.0);
            let mut fields: Vec<&str> = text
                .split(['*', '[', ']'])
                .flat_map(|s| s.split('.'))
                .filter(|f| !f.is_empty() && !f.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
                .collect();
            fields.sort_unstable();
            fields.dedup();
            for f in fields {
                ix.by_field.entry(f.to_string()).or_default().push(i);
            }
            if text.ends_with('*') || text.ends_with(']') {
                ix.through_pointer.push(i);
            }
        }
        ix
    }

    /// Add the keys (below a local) whose objects may be reached from group `g`'s.
    fn below_into(&self, groups: &Groups, g: u32, out: &mut Vec<u32>) {
        let mut memo = self.below.borrow_mut();
        let ks = memo.entry(g).or_insert_with(|| {
            groups
                .reach(g)
                .iter()
                .flat_map(|h| self.by_group.get(h).map_or(&[][..], |v| v.as_slice()))
                .copied()
                .collect()
        });
        out.extend_from_slice(ks);
    }
}

/// Memory places below a pointer the function tracks (`p->f`, `*p`, `p->s.f`; never through an
/// array, whose indices are one place) that a branch tests or that a temporary copies for a
/// bitwise test (`t = var->attributes; t & F`), sorted and unique, at most `MAX_TESTED_PLACES`;
/// and per statement the indices (into that list) of the places it may write, by the rules facts
/// are killed by (`Facts::stmt_effect`: a store to the place, to an overlapping path of an object
/// of the same group, through an unknown pointer, to a field of the same name; the root
/// reassigned; a call given a pointer from which the object may be reached), except that a
/// callee whose summary touches no memory but its own locals (`Summary::heap_pure`) writes
/// nothing. `FnCx` gives each place a reaching-definition slot, so two tests of one place with
/// nothing in between that may write it share their atoms.
pub fn tested_places(cx: &FnCx) -> (Vec<(LocalId, String)>, Vec<Vec<u32>>) {
    const MAX_TESTED_PLACES: usize = 64;
    let func = cx.func;
    let mut places: Vec<&Place> = Vec::new();
    for b in &func.blocks {
        let Terminator::Branch { cond, .. } = &b.term else { continue };
        let ops: [Option<&Operand>; 2] = match &cond.kind {
            CondKind::Truthy(a) => [Some(a), None],
            CondKind::Cmp(_, a, c) => [Some(a), Some(c)],
            CondKind::Opaque => [None, None],
        };
        for op in ops.into_iter().flatten() {
            if let Operand::Place(p @ (Place::Deref(_) | Place::Field(..))) = op {
                places.push(p);
            }
        }
    }
    // Temporaries some bitwise expression takes bits from.
    let bases: Vec<LocalId> = {
        let mut v: Vec<LocalId> = func.bits.iter().filter_map(|(_, b)| b.base).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for st in &func.stmts {
        if let Stmt::Assign {
            dst: Place::Local(t),
            src: Rvalue::Use(Operand::Place(p @ (Place::Deref(_) | Place::Field(..)))),
        } = st
        {
            if func.local(*t).kind == crate::ir::LocalKind::Temp && bases.binary_search(t).is_ok() {
                places.push(p);
            }
        }
    }
    if places.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let fact_local = fact_locals(cx);
    let mut keys: Vec<(LocalId, String)> =
        places.into_iter().filter_map(|p| raw_key(cx, &fact_local, p)).filter(|k| k.1.starts_with('*')).collect();
    keys.sort();
    keys.dedup();
    keys.truncate(MAX_TESTED_PLACES);
    if keys.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let index: HashMap<(LocalId, String), u32> = keys.iter().enumerate().map(|(i, k)| (k.clone(), i as u32)).collect();
    let table = Facts { keys, index, tests: Vec::new(), ret_keys: Vec::new() };
    let groups = Groups::new(cx);
    let mut ix = KeyIndex::new(&table.keys, &groups);
    ix.fresh = fresh_blocks(cx);
    ix.origin = param_origins(cx);
    let writes = (0..func.stmts.len())
        .map(|si| {
            let sid = StmtId::from_usize(si);
            let pure_call = cx.model(sid).is_some_and(|m| !m.lib && m.heap_pure);
            let mut kills: Vec<u32> = Vec::new();
            match func.stmt(sid) {
                Stmt::Assign { dst, .. } => table.store_kills(cx, &groups, &ix, dst, &mut kills),
                Stmt::Call { dst, args, .. } => {
                    if let Some(d) = dst {
                        table.store_kills(cx, &groups, &ix, d, &mut kills);
                    }
                    if !pure_call {
                        table.call_kills(cx, &groups, &ix, sid, args, &mut kills);
                    }
                }
            }
            kills.sort_unstable();
            kills.dedup();
            kills
        })
        .collect();
    (table.keys, writes)
}

/// Which locals may name the same object (copies of each other: one group), and which objects
/// are reachable from which (a local loaded through another's object is below it).
struct Groups {
    parent: Vec<u32>,
    /// Group → groups directly below it.
    edges: HashMap<u32, Vec<u32>>,
}

impl Groups {
    fn new(cx: &FnCx) -> Groups {
        let func = cx.func;
        // Tested globals' slots follow the locals, each a group of its own: no local names them.
        let n = cx.local_and_global_slots();
        let mut g = Groups { parent: (0..n as u32).collect(), edges: HashMap::new() };
        let mut below: Vec<(LocalId, LocalId)> = Vec::new();
        // Temporaries holding the address of a local (`&t`): as a call's argument, the slot the
        // callee stores a second result into (`var = find (s, &t, &len)`), not an object the
        // result is loaded from. An edge from it would put the result below `t`, and every
        // later call given `t` would then reach (and kill what is known of) `var->attributes`.
        let out_slots: Vec<LocalId> = {
            let mut v: Vec<LocalId> = func
                .stmts
                .iter()
                .filter_map(|st| match st {
                    Stmt::Assign { dst: Place::Local(t), src: Rvalue::AddrOf(Place::Local(_)) }
                        if func.local(*t).kind == crate::ir::LocalKind::Temp =>
                    {
                        Some(*t)
                    }
                    _ => None,
                })
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        for (si, st) in func.stmts.iter().enumerate() {
            match st {
                Stmt::Assign { dst: Place::Local(l), src } => match src {
                    Rvalue::Use(Operand::Place(Place::Local(y))) => g.union(*l, *y),
                    Rvalue::Use(Operand::Place(p)) => {
                        if let Some(r) = p.root_local() {
                            below.push((r, *l));
                        }
                    }
                    // `t = &p->f`, `t = &x`, `t = &s.f`: into the same object; `t = &p->q->f`:
                    // into an object reached through it.
                    Rvalue::AddrOf(p) => match pointee_base(p) {
                        Some(Place::Local(r)) => g.union(*l, *r),
                        Some(inner) => {
                            if let Some(r) = inner.root_local() {
                                below.push((r, *l));
                            }
                        }
                        None => {
                            if let Some(r) = p.storage_local() {
                                g.union(*l, r);
                            }
                        }
                    },
                    // Pointer arithmetic the front end could not simplify.
                    Rvalue::Opaque(ops) if func.local(*l).is_pointer => {
                        for y in ops.iter().filter_map(|o| o.local()) {
                            g.union(*l, y);
                        }
                    }
                    _ => {}
                },
                Stmt::Call { dst: Some(Place::Local(l)), args, .. } if func.local(*l).is_pointer => {
                    let alias = match cx.model(StmtId::from_usize(si)).map(|m| m.ret) {
                        Some(RetEffect::ArgAlias(i)) => args.get(i).and_then(|a| a.local()),
                        _ => None,
                    };
                    match alias {
                        Some(y) => g.union(*l, y),
                        None => {
                            for a in args {
                                if let Some(r) = match a {
                                    Operand::Place(Place::Local(t)) if out_slots.binary_search(t).is_ok() => None,
                                    Operand::Place(p) => p.root_local(),
                                    _ => None,
                                } {
                                    below.push((r, *l));
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        for (r, l) in below {
            let (a, b) = (g.find(r.0), g.find(l.0));
            if a != b {
                g.edges.entry(a).or_default().push(b);
            }
        }
        g
    }

    fn find(&mut self, x: u32) -> u32 {
        let mut r = x;
        while self.parent[r as usize] != r {
            r = self.parent[r as usize];
        }
        let mut y = x;
        while self.parent[y as usize] != r {
            let next = self.parent[y as usize];
            self.parent[y as usize] = r;
            y = next;
        }
        r
    }

    fn find_ro(&self, x: u32) -> u32 {
        let mut r = x;
        while self.parent[r as usize] != r {
            r = self.parent[r as usize];
        }
        r
    }

    fn union(&mut self, a: LocalId, b: LocalId) {
        let (x, y) = (self.find(a.0), self.find(b.0));
        if x != y {
            self.parent[x as usize] = y;
        }
    }

    /// The groups whose objects may be reached from group `g`'s (loaded through it, directly
    /// or not), `g` excluded.
    fn reach(&self, g: u32) -> Vec<u32> {
        let mut seen: Vec<u32> = Vec::new();
        let mut work = vec![g];
        while let Some(x) = work.pop() {
            for y in self.edges.get(&x).map_or(&[][..], |v| v.as_slice()) {
                let y = self.find_ro(*y);
                if y != g && !seen.contains(&y) {
                    seen.push(y);
                    work.push(y);
                }
            }
        }
        seen
    }
}

/// A branch literal: an atom and the side taken.
type Lit = (crate::guard::AtomId, bool);

/// At most this many literals are remembered per node (the latest branches on the way): the
/// set only ever says less than every path knows.
const MUST_LITS: usize = 8;

/// What `Followed::must_at_entry` knows at the start of a node: the facts of every path in, the
/// keys vacuous on every path in, the branch literals every path in takes, and per literal, the
/// facts of the paths in that take it (beside `facts`).
#[derive(Clone, Default)]
struct MustAt {
    facts: Vec<(u32, Fact)>,
    vacuous: Vec<u32>,
    lits: Vec<Lit>,
    cond: Vec<(Lit, Vec<(u32, Fact)>)>,
}

impl MustAt {
    /// The paths of `self` and of `other` together.
    fn join(&self, other: MustAt) -> MustAt {
        let (cur, cur_vac, out, vac) = (&self.facts, &self.vacuous, &other.facts, &other.vacuous);
        let mut joined: Vec<(u32, Fact)> = Vec::new();
        for a in cur.iter() {
            if vac.binary_search(&a.0).is_ok() {
                joined.push(*a);
            }
            for b in out.iter().filter(|b| b.0 == a.0) {
                if let Some(h) = a.1.hull(b.1) {
                    joined.push((a.0, h));
                }
            }
        }
        joined.extend(out.iter().filter(|b| cur_vac.binary_search(&b.0).is_ok()));
        joined.sort_unstable();
        joined.dedup();
        let vacuous: Vec<u32> = cur_vac.iter().copied().filter(|k| vac.binary_search(k).is_ok()).collect();
        let lits: Vec<Lit> = self.lits.iter().copied().filter(|l| other.lits.contains(l)).collect();
        // Per literal either side's paths may take: what they know where they take it (`None`:
        // no path of that side takes it).
        let side = |s: &MustAt, l: Lit| -> Option<Vec<(u32, Fact)>> {
            if s.lits.contains(&(l.0, !l.1)) {
                return None;
            }
            let mut v = s.facts.clone();
            if let Some((_, c)) = s.cond.iter().find(|c| c.0 == l) {
                v.extend(c.iter().copied());
            }
            Some(v)
        };
        let mut universe: Vec<Lit> = Vec::new();
        for l in self
            .lits
            .iter()
            .chain(&other.lits)
            .chain(self.cond.iter().map(|c| &c.0))
            .chain(other.cond.iter().map(|c| &c.0))
        {
            universe.push(*l);
            universe.push((l.0, !l.1));
        }
        universe.sort_unstable();
        universe.dedup();
        let mut cond: Vec<(Lit, Vec<(u32, Fact)>)> = Vec::new();
        for l in universe {
            let known = match (side(self, l), side(&other, l)) {
                (None, None) => continue,
                (Some(a), None) | (None, Some(a)) => a,
                (Some(a), Some(b)) => {
                    let mut h = Vec::new();
                    for x in &a {
                        for y in b.iter().filter(|y| y.0 == x.0) {
                            if let Some(f) = x.1.hull(y.1) {
                                h.push((x.0, f));
                            }
                        }
                    }
                    h
                }
            };
            let mut extra: Vec<(u32, Fact)> = known.into_iter().filter(|f| !joined.contains(f)).collect();
            extra.sort_unstable();
            extra.dedup();
            if !extra.is_empty() && cond.len() < MUST_LITS {
                cond.push((l, extra));
            }
        }
        MustAt { facts: joined, vacuous, lits, cond }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Block, BlockId, Loc};

    #[test]
    fn switch_edges_learn_and_are_ruled_out() {
        let (b1, b2, b3) = (BlockId::from_usize(1), BlockId::from_usize(2), BlockId::from_usize(3));
        let block = Block {
            stmts: Vec::new(),
            // case '}': b1; case '%': case '#': b2; default: b3.
            term: Terminator::Switch { on: Operand::Const(0), cases: vec![(125, b1), (37, b2), (35, b2)], default: b3 },
            term_loc: Loc { file: crate::ir::FileId(0), line: 1, col: 1 },
        };
        let test = KeyTest::Switch(0);
        let (brace, pct, other) = (test.edge(&block, b1), test.edge(&block, b2), test.edge(&block, b3));
        assert_eq!(brace.learned(), Some(Fact::In(125, 125)));
        assert_eq!(pct.learned(), Some(Fact::In(35, 37)));
        assert_eq!(other.learned(), None);
        // `c != '}'` rules out the case of '}', and only that one.
        let ne = Fact::learned(CmpOp::Ne, 125, true);
        assert!(brace.ruled_out(ne));
        assert!(!pct.ruled_out(ne) && !other.ruled_out(ne));
        // `c == '%'` rules out every edge but the one of its case, the default included.
        let pinned = Fact::In(37, 37);
        assert!(brace.ruled_out(pinned) && other.ruled_out(pinned));
        assert!(!pct.ruled_out(pinned));
        // A value no case names takes the default only.
        let unnamed = Fact::In(1, 1);
        assert!(brace.ruled_out(unnamed) && pct.ruled_out(unnamed) && !other.ruled_out(unnamed));
    }

    #[test]
    fn a_bound_holds_on_one_side_and_says_nothing_on_the_other() {
        let (b1, b2) = (BlockId::from_usize(1), BlockId::from_usize(2));
        let block = Block {
            stmts: Vec::new(),
            // `i + 2 > size` with `size >= 16`: `i >= 15` on the then side.
            term: Terminator::Branch {
                cond: crate::ir::Cond { kind: CondKind::Opaque, text: String::new(), text_on_else: false },
                then_: b1,
                else_: b2,
            },
            term_loc: Loc { file: crate::ir::FileId(0), line: 1, col: 1 },
        };
        let test = KeyTest::Bound(0, 15, true);
        let (grow, fits) = (test.edge(&block, b1), test.edge(&block, b2));
        assert_eq!(grow.learned(), Some(Fact::In(15, i64::MAX)));
        assert_eq!(fits.learned(), None);
        // `i == 0` (the first iteration) never grows; nothing rules out the other side.
        assert!(grow.ruled_out(Fact::In(0, 0)));
        assert!(!grow.ruled_out(Fact::In(0, 20)) && !fits.ruled_out(Fact::In(0, 0)));
        assert!(!fits.ruled_out(Fact::In(100, i64::MAX)));
        // The else side's bound (`i + 2 <= size` false is `i + 2 > size`) is learnt there.
        let other = KeyTest::Bound(0, 15, false);
        assert_eq!(other.edge(&block, b2).learned(), Some(Fact::In(15, i64::MAX)));
        assert_eq!(other.edge(&block, b1).learned(), None);
    }

    #[test]
    fn learned_facts_decide_later_tests() {
        let ne0 = Fact::learned(CmpOp::Ne, 0, true);
        assert_eq!(ne0, Fact::Ne(0));
        assert_eq!(ne0.decides(CmpOp::Eq, 0), Some(false));
        assert_eq!(ne0.decides(CmpOp::Eq, 3), None);
        let zero = Fact::learned(CmpOp::Ne, 0, false);
        assert!(zero.implies(Fact::held(crate::model::Held::Zero)));
        assert_eq!(zero.decides(CmpOp::Ne, 0), Some(false));
        let gt1 = Fact::learned(CmpOp::Gt, 1, true);
        assert_eq!(gt1.decides(CmpOp::Eq, 0), Some(false));
        assert_eq!(gt1.decides(CmpOp::Ge, 2), Some(true));
        assert_eq!(gt1.decides(CmpOp::Lt, 5), None);
        let le1 = Fact::learned(CmpOp::Gt, 1, false);
        assert_eq!(le1, Fact::In(i64::MIN, 1));
        assert_eq!(le1.decides(CmpOp::Gt, 1), Some(false));
    }

    #[test]
    fn a_step_outside_loops_moves_both_bounds() {
        // `refs = 1; --refs`: in a loop only the upper bound survives, outside one it is 0.
        let one = Fact::In(1, 1);
        assert_eq!(one.stepped(-1), Some(Fact::In(i64::MIN, 0)));
        assert_eq!(one.stepped(-1).unwrap().decides(CmpOp::Eq, 0), None);
        assert_eq!(one.stepped_once(-1), Some(Fact::In(0, 0)));
        assert_eq!(one.stepped_once(-1).unwrap().decides(CmpOp::Eq, 0), Some(true));
        assert_eq!(Fact::In(2, 2).stepped_once(-1).unwrap().decides(CmpOp::Le, 0), Some(false));
        assert_eq!(Fact::In(0, i64::MAX).stepped_once(1), Some(Fact::In(1, i64::MAX)));
        assert_eq!(Fact::Ne(0).stepped_once(1), Some(Fact::Ne(1)));
        assert_eq!(Fact::Same(3).stepped_once(1), None);
    }

    #[test]
    fn steps_keep_the_bound_they_move_away_from() {
        // `n = 0; n++`: at least 1, not exactly 1 (a later iteration may increment it again).
        let up = Fact::In(0, 0).stepped(1);
        assert_eq!(up, Some(Fact::In(1, i64::MAX)));
        assert_eq!(up.and_then(|f| f.decides(CmpOp::Eq, 0)), Some(false));
        assert_eq!(up.and_then(|f| f.decides(CmpOp::Gt, 0)), Some(true));
        assert_eq!(up.and_then(|f| f.decides(CmpOp::Eq, 1)), None);
        // `n--` after `n <= 3`: at most 2; after `n >= 1` nothing is left.
        assert_eq!(Fact::In(i64::MIN, 3).stepped(-1), Some(Fact::In(i64::MIN, 2)));
        assert_eq!(Fact::In(1, i64::MAX).stepped(-1), None);
        // No lower bound to move, or only `!= c`: nothing.
        assert_eq!(Fact::In(i64::MIN, 5).stepped(1), None);
        assert_eq!(Fact::Ne(0).stepped(1), None);
        assert_eq!(Fact::In(i64::MAX - 1, i64::MAX).stepped(5), Some(Fact::In(i64::MAX, i64::MAX)));
    }

    #[test]
    fn equalities_come_from_copies_and_die_with_either_side() {
        let stmt = |kills: Vec<u32>, gen: FactGen| Some(FactStmt { kills, gen, ..Default::default() });
        let followed = Followed {
            stmts: vec![
                // 0: `keep = match` (key 0 = key 1), 1: `match = ..`, 2: `keep++`, 3: `match = keep`.
                stmt(vec![0], FactGen::Copy(0, 1)),
                stmt(vec![1], FactGen::None),
                stmt(Vec::new(), FactGen::Step(0, 1, false, false)),
                stmt(vec![1], FactGen::Copy(1, 0)),
            ],
            live: Vec::new(),
            words: 0,
        };
        let sid = StmtId::from_usize;
        let mut state: Vec<(u32, Fact, u8)> = vec![(1, Fact::Ne(0), 7)];
        followed.apply(sid(0), &mut state, 9);
        // What was known of `match` is known of `keep`, and so is the equality.
        assert!(state.contains(&(0, Fact::Ne(0), 7)));
        assert!(state.contains(&(0, Fact::Same(1), 9)));
        assert_eq!(equal_keys(&state, 1).collect::<Vec<_>>(), vec![(0, 9)]);
        assert_eq!(equal_keys(&state, 0).collect::<Vec<_>>(), vec![(1, 9)]);
        // Writing `match` ends the equality, not what `keep` holds.
        let mut written = state.clone();
        followed.apply(sid(1), &mut written, 9);
        assert_eq!(written, vec![(0, Fact::Ne(0), 7)]);
        // Stepping `keep` ends it too.
        let mut stepped = state.clone();
        followed.apply(sid(2), &mut stepped, 9);
        assert_eq!(equal_keys(&stepped, 1).count(), 0);
        // The copy back makes no equality of a key with itself.
        followed.apply(sid(3), &mut state, 9);
        assert!(state.iter().all(|f| f.1 != Fact::Same(f.0)));
        assert_eq!(equal_keys(&state, 0).collect::<Vec<_>>(), vec![(1, 9)]);
        // An equality decides no test and joins only with itself.
        assert_eq!(Fact::Same(1).decides(CmpOp::Eq, 0), None);
        assert_eq!(Fact::Same(1).hull(Fact::Same(1)), Some(Fact::Same(1)));
        assert_eq!(Fact::Same(1).hull(Fact::Same(2)), None);
        assert_eq!(Fact::Same(1).hull(Fact::Ne(0)), None);
        assert!(!Fact::Same(1).implies(Fact::Ne(0)) && !Fact::In(1, 1).implies(Fact::Same(1)));
    }

    #[test]
    fn never_negative_values_bound_the_key_they_are_stored_into() {
        let stmt = |kills: Vec<u32>, gen: FactGen| Some(FactStmt { kills, gen, ..Default::default() });
        let followed = Followed {
            stmts: vec![
                // 0: `*cntp = cnt` with `cnt` never negative (key 0 <- key 1), 1: `*lenp = n + 1`
                // on a `size_t` (key 0).
                stmt(vec![0], FactGen::CopyNonNeg(0, 1)),
                stmt(vec![0], FactGen::AtLeast(0, 0)),
            ],
            live: Vec::new(),
            words: 0,
        };
        let sid = StmtId::from_usize;
        // Nothing known of `cnt` (its loop redefined it): `*cntp` is still at least 0, so a test
        // `*cntp < 0` is decided.
        let mut state: Vec<(u32, Fact, u8)> = vec![(0, Fact::In(-3, -3), 1)];
        followed.apply(sid(0), &mut state, 9);
        assert_eq!(state, vec![(0, Fact::In(0, i64::MAX), 9), (0, Fact::Same(1), 9)]);
        assert_eq!(state[0].1.decides(CmpOp::Lt, 0), Some(false));
        assert!(state[0].1.implies(Fact::held(crate::model::Held::NonNegative)));
        // What is known of `cnt` comes along, beside the bound.
        let mut state: Vec<(u32, Fact, u8)> = vec![(1, Fact::Ne(0), 7)];
        followed.apply(sid(0), &mut state, 9);
        assert!(state.contains(&(0, Fact::Ne(0), 7)) && state.contains(&(0, Fact::In(0, i64::MAX), 9)));
        let mut state: Vec<(u32, Fact, u8)> = vec![(0, Fact::In(-1, -1), 1)];
        followed.apply(sid(1), &mut state, 9);
        assert_eq!(state, vec![(0, Fact::In(0, i64::MAX), 9)]);
    }

    #[test]
    fn sums_are_at_least_their_constants_and_growth_keeps_the_bound() {
        let stmt = |kills: Vec<u32>, gen: FactGen| Some(FactStmt { kills, gen, ..Default::default() });
        let followed = Followed {
            stmts: vec![
                // 0: `size = l1 + 1 + l2 + 1` on a `size_t` (key 0), 1: `size += l1 + 1`.
                stmt(vec![0], FactGen::AtLeast(0, 2)),
                stmt(Vec::new(), FactGen::Grow(0)),
            ],
            live: Vec::new(),
            words: 0,
        };
        let sid = StmtId::from_usize;
        let mut state: Vec<(u32, Fact, u8)> = vec![(0, Fact::In(0, 0), 1)];
        followed.apply(sid(0), &mut state, 9);
        assert_eq!(state, vec![(0, Fact::In(2, i64::MAX), 9)]);
        assert_eq!(state[0].1.decides(CmpOp::Eq, 0), Some(false));
        // Growth keeps a lower bound of at least 0 (raised past a `!= c` of the same guard),
        // drops an upper bound, a negative bound and an equality.
        let mut state: Vec<(u32, Fact, u8)> =
            vec![(0, Fact::In(0, 5), 1), (0, Fact::Ne(0), 1), (0, Fact::Ne(1), 2), (1, Fact::Same(0), 3)];
        followed.apply(sid(1), &mut state, 9);
        assert_eq!(state, vec![(0, Fact::In(1, i64::MAX), 1)]);
        let mut state: Vec<(u32, Fact, u8)> = vec![(0, Fact::In(-4, 5), 1), (0, Fact::Ne(0), 1)];
        followed.apply(sid(1), &mut state, 9);
        assert!(state.is_empty());
    }

    #[test]
    fn paths_and_fields() {
        assert!(starts_at_boundary("*.rc", "*"));
        assert!(!starts_at_boundary("*.rcx", "*.rc"));
        assert!(prefix_related("*.s", "*.s.rc"));
        // Elements: a write of an unknown element may be any of them, a known one only itself.
        assert_eq!(path_steps("*.v[2]*.f&4").collect::<Vec<_>>(), ["*", ".v", "[2]", "*", ".f", "&4"]);
        assert!(prefix_related("*[2]", "*[]") && prefix_related("*[]", "*[2]"));
        assert!(!prefix_related("*[2]", "*[1]") && prefix_related("*[2]", "*[2]"));
        assert!(starts_at_boundary("*[2]", "*") && starts_at_boundary("*.v[1].x", "*.v[]"));
        assert!(!starts_at_boundary("*.v[1].x", "*.v[2]") && !starts_at_boundary("*.w[1]", "*.v[]"));
    }
}
