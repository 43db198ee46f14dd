//! Cycles of `std::shared_ptr` owners: blocks a function creates, links into a ring through
//! their `shared_ptr` members and then loses, so that no reference count ever drops to zero.
//!
//! Input: one C++ function body (cursors of the TU's tree). Output: the function's
//! `ir::OwnerCycle`s, in source order of the block each is reported at. The IR does not count
//! references (`stdlib.rs`: a `shared_ptr` operation is an opaque call, what it is given
//! escapes), so the owners are followed here, where their operations are visible, and the
//! checkers only render what is found.
//!
//! The walk follows the paths of the body in source order, each over its own abstract heap:
//! - a *block* for each `std::make_shared<T>(..)` and `std::shared_ptr<T>(new T(..))` whose
//!   result goes into a local `shared_ptr`, a `shared_ptr` member of a block, or a container of
//!   `shared_ptr`s that is a member of a block (each run of the allocation on a path is a block
//!   of its own);
//! - what each local `shared_ptr` holds: a block, nothing, or something unknown;
//! - the blocks each local container of `shared_ptr`s (`std::vector<std::shared_ptr<T>> v`)
//!   was given: an owner that dies with the function, so giving it a block is no escape;
//! - the owning links, (block, member) to the blocks a `shared_ptr` member, a container member,
//!   or a `std::function` member holding a lambda that copied `shared_ptr`s holds, and the weak
//!   links of `weak_ptr` members;
//! - the escaped blocks, which something outside the function may own.
//!
//! When a path ends (at the end of the function or at a `return`) its locals are gone; the
//! blocks reachable from an escaped one over owning and weak links (whoever holds a block can
//! lock its weak members) are alive; a cycle of owning links among the others is a leak.
//!
//! Paths: an `if` forks the heap in two, a loop is taken 0, 1 or 2 times (a `do` 1 or 2) with
//! its `break`s and `continue`s, a `return` ends its path. A ring found on any path is reported
//! (once per allocation, at the first path that finds it). A `switch`, a `try` or a label is a
//! *conditional part* (a `?:`, `&&` or `||` inside an expression is a use of what it names),
//! walked as one path that links nothing: an owning store of a block there escapes the block, a
//! local assigned or reset there escapes what it held and holds something unknown after; what
//! breaks a link (`reset()`, `= nullptr`, another value, `clear()`) breaks it there too, and a
//! weak link made there counts. So a conditional part may hide a ring, never make one. A path
//! that would take a loop a third time is not followed: it may hide a ring, not make one.
//!
//! A path is only as good as its conditions, so the walk forks only on conditions it can take
//! as independent of the path so far, and treats any other `if` or loop as a conditional part:
//! - a condition that reads a variable the function writes (assigns, steps, takes the address
//!   of, binds to a reference, calls a non-`const` method on, names in a lambda) is not forked
//!   on: a flag set beside a link (`linked = true`) says what the path did;
//! - a condition met again on the path (the same text, `!` and parentheses aside) follows the
//!   outcome taken before when it reads only such unwritten locals and parameters through
//!   operators; one that reads memory, globals or calls is not forked on the second time;
//! - a condition that reads a variable an earlier condition of the path read with another
//!   text (`k > 0`, then `k == 0`) is not forked on;
//! - a loop is unrolled only when its trip count is the caller's (its test reads parameters the
//!   function does not write, and otherwise only counters its header declares; a range `for`
//!   over such a parameter), or when its test is constant (`for (;;)`, `do .. while (0)`).
//!   Other loops (a constant count, a test on the loop's own state, parameters an earlier
//!   condition of the path read) are conditional parts: the walk cannot tell which trip counts
//!   are possible. Later conditions on the parameters a loop's test read are not forked on.
//!
//! Conditions that differ in text but not in value (`if (a->ready())`, then `if (b->ready())`
//! on a shared flag) are taken as independent: such a pair can make a ring on a path that does
//! not run.
//!
//! Calls: a call made as a statement of a function or method whose body is in this TU does what
//! the callee's *summary* says (`summary`, kept per callee in `TuCtx::owner_summaries`). The
//! summary is the same walk over the callee's body, with a symbolic block for what each
//! `shared_ptr` parameter (by value or by reference) and `this` hold (a method's members
//! named without `this->` are `this`'s; libclang shows no cursor for that `this`): for each
//! owning member of a symbolic block some path sets, the symbolic blocks it holds when every
//! path ends with the same ones, else *not known* with the symbolic blocks it may hold; for
//! each weak member, the symbolic blocks it may refer to. The call site evaluates the arguments
//! and the object, and puts the links between the blocks they hold (the same block given twice
//! gets the links of both parameters; two that set one member differently leave it not known).
//! A member left not known escapes what it held and may hold, as a conditional part's link
//! would; in a conditional part every member the call sets is so; weak links only add. A
//! member given to an object the walk does not follow escapes what it is given. A call falls
//! back to unknown code (what it is given escapes) when the callee has no summary: its body is
//! not in this TU (the front end runs per TU: other TUs' bodies are not visible here), it is
//! virtual, a template's pattern or specialization, an operator, in a system header; a path of
//! its walk lets a symbolic block escape, reads a member of one that it did not set (the caller
//! knows what it holds, the summary cannot say it), adds to a container member of one it did
//! not clear, or rebinds a reference parameter; it has a `goto` or runs past `MAX_STEPS`; or it
//! is already being summarised (recursion), `MAX_DEPTH` summaries are open, or the TU spent
//! `MAX_SUMMARIES` walks. A summary that read a link it made is not used when the call gives
//! one block for two parameters (it may have read the other's). A summary refused for
//! recursion, depth or the TU's budget is not kept, nor any summary being computed around it,
//! so a kept summary depends on the callee's and its callees' bodies only.
//!
//! Invariants (no finding without a cycle built on a path that reaches its end):
//! - A use of a block the walk does not recognise (passed to a call that is not followed, stored into a parameter's
//!   object, a global or a local container used otherwise than by `push_back` and the like,
//!   returned, captured by a lambda that is not stored in a block's member, a method called on
//!   it, `get()`) escapes it with everything it reaches then and at the end. A read of a
//!   scalar, pointer or string member of a block is no use of the block.
//! - A local holding something unknown holds only escaped blocks or blocks the walk did not
//!   create, so forgetting what it holds loses no owner.
//! - A call of a function that does not return ends its path without a finding (the process
//!   ends with the blocks still owned); inside a conditional part it is not followed.
//! - A function with a `goto` is not looked at (a jump may skip what the walk takes as done).
//!   Templates' patterns and lambda bodies are not looked at (`lower.rs` calls this only for
//!   the other functions).
//! - At most `MAX_STATES` paths are live: an `if` or a loop that would leave more is walked
//!   again as a conditional part (the paths that ended inside it keep their findings); a
//!   function whose walk takes more than `MAX_STEPS` statement visits is not looked at.
//! - Each cycle (a strongly connected set of blocks) is reported once, at its block created
//!   first in source order; links are kept in ordered maps and paths in walk order, so the
//!   result depends on the body and the TU's bodies of its callees only (and, past
//!   `MAX_SUMMARIES`, on the order the TU's functions are lowered in).

#![allow(non_upper_case_globals)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;

use clang_sys::*;

use super::clang::{self, Cursor, TypeClass};
use super::lambdas;
use super::lower::TuCtx;
use super::stdlib::{self, Shared};
use crate::ir::{FileId, Loc, OwnerCycle};

/// The most paths followed at once.
const MAX_STATES: usize = 64;
/// How many times a loop is taken on a path, at most.
const MAX_TRIPS: usize = 2;
/// The most statement visits (summed over paths) for one function.
const MAX_STEPS: usize = 200_000;
/// The most summaries being computed at once (a callee's walk meeting a call of its own).
const MAX_DEPTH: usize = 4;
/// The most summary walks for one TU.
const MAX_SUMMARIES: usize = 2_000;
/// The key `State::tested` gives the variables a loop's test reads: no condition's text.
const LOOP_TEST: &str = "";

/// What a local `shared_ptr` holds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Val {
    Empty,
    Block(usize),
    /// Escaped blocks or blocks the walk did not create.
    Unknown,
}

struct Block {
    at: Loc,
    allocator: &'static str,
    /// How the function first names it (`a`, `a->next`).
    name: Option<String>,
}

/// A (block, member) key of the links.
type Slot = (usize, String);

/// The abstract heap of one path, and what the path learnt from its conditions.
#[derive(Clone, Default, PartialEq, Eq)]
struct State {
    /// Local `shared_ptr`s by declaration key: what each holds.
    vars: BTreeMap<usize, Val>,
    /// Local containers of `shared_ptr`s by declaration key: the blocks each was given.
    lists: BTreeMap<usize, Vec<usize>>,
    /// Owning links; a slot absent holds something unknown (escaped or not created here).
    owns: BTreeMap<Slot, Vec<usize>>,
    weak: BTreeMap<Slot, Vec<usize>>,
    escaped: BTreeSet<usize>,
    /// The outcome of each condition forked on, by text (`Test::key`).
    decided: BTreeMap<String, bool>,
    /// The variables the conditions forked on read, each with the condition's text.
    tested: BTreeMap<usize, String>,
    /// A call that does not return ended the path.
    dead: bool,
}

impl State {
    fn same_heap(&self, o: &State) -> bool {
        self.vars == o.vars
            && self.lists == o.lists
            && self.owns == o.owns
            && self.weak == o.weak
            && self.escaped == o.escaped
    }

    /// Take `o`, a path with the same heap, into this one: what either path did not learn is
    /// not known.
    fn join(&mut self, o: State) {
        self.decided.retain(|k, v| o.decided.get(k) == Some(v));
        for (v, key) in o.tested {
            let mine = self.tested.entry(v).or_insert_with(|| key.clone());
            if *mine != key {
                *mine = LOOP_TEST.to_string();
            }
        }
    }

    /// Take the branch `taken` of the `if` tested by `t`.
    fn learn(&mut self, t: &Test, taken: bool) {
        self.decided.insert(t.key.clone(), taken != t.negated);
        for &v in &t.vars {
            self.tested.insert(v, t.key.clone());
        }
    }
}

/// Paths with the same heap joined into one, in walk order.
fn merge(states: Vec<State>) -> Vec<State> {
    let mut out: Vec<State> = Vec::new();
    for s in states {
        match out.iter_mut().find(|o| o.same_heap(&s)) {
            Some(o) => o.join(s),
            None => out.push(s),
        }
    }
    out
}

/// A condition the walk may fork on.
struct Test {
    /// Its text without `!`s and parentheses, and whether those negate it.
    key: String,
    negated: bool,
    /// The variables it reads (declaration keys).
    vars: BTreeSet<usize>,
    /// It reads only locals and parameters the function never writes, through operators: the
    /// same text has the same value wherever the path meets it.
    stable: bool,
}

/// What a path does at an `if` whose condition is `t`.
enum Decision {
    Take(bool),
    Fork,
    /// The outcome may depend on the path so far: a conditional part.
    Unsure,
}

fn decide(st: &State, t: &Test) -> Decision {
    if let Some(&v) = st.decided.get(&t.key) {
        return if t.stable { Decision::Take(v != t.negated) } else { Decision::Unsure };
    }
    if t.vars.iter().any(|v| st.tested.get(v).is_some_and(|k| *k != t.key)) {
        return Decision::Unsure;
    }
    Decision::Fork
}

/// The test at the head of a loop the walk unrolls.
enum Header {
    /// Constant true (or absent): the loop is left only by `break` or `return`.
    Always,
    /// Constant false.
    Never,
    /// Reads the caller's parameters (these).
    Params(BTreeSet<usize>),
}

/// The parts of a loop the walk unrolls.
struct Loop {
    body: Cursor,
    /// What runs once before the first test: a `for`'s init, a range `for`'s range.
    init: Vec<Cursor>,
    test: Option<Cursor>,
    /// A `for`'s increment.
    step: Option<Cursor>,
    /// A range `for`'s variable.
    var: Option<Cursor>,
    /// A `do`: the first trip is taken without a test.
    first_trip_free: bool,
}

/// The paths that leave a loop by `break`, and that go on by `continue`.
#[derive(Default)]
struct Exits {
    breaks: Vec<State>,
    conts: Vec<State>,
}

struct Walk<'a, 't, 'i> {
    cx: &'a mut TuCtx<'t, 'i>,
    blocks: Vec<Block>,
    /// Names of the local `shared_ptr`s by declaration key.
    names: HashMap<usize, String>,
    /// Variables the function writes (`written`).
    written: HashSet<usize>,
    /// The path being walked.
    st: State,
    /// How many conditional parts are around the cursor being walked.
    cond: u32,
    /// The loops around, innermost last, each with the paths that left it or went on.
    loops: Vec<Exits>,
    /// The cycles found, by the place they are reported at.
    found: BTreeMap<(FileId, u32, u32), OwnerCycle>,
    steps: usize,
    /// A `goto`, or too long a walk: no finding.
    given_up: bool,
    /// Summary walks (`summarize`): blocks `0..syms` stand for the blocks the caller gives.
    syms: usize,
    /// The block standing for `this` in a summary walk of a method.
    this: Option<usize>,
    /// Summary walks: the states the paths end with, instead of their findings.
    ends: Option<Vec<State>>,
    /// A summary walk read a link of a given block that it made itself: it may have read
    /// another one, had two of the given blocks been the same.
    read_links: bool,
    /// Summary walks: the owning members of given blocks some path sets (`touch`).
    touched: BTreeSet<Slot>,
}

/// The cycles of `shared_ptr` owners `body` builds and loses; `end`: its closing brace.
pub(super) fn find(cx: &mut TuCtx, body: Cursor, end: Loc) -> Vec<OwnerCycle> {
    // A cycle is built through a local `shared_ptr`; most functions have none (the tree holds
    // the whole top-level declaration, which is enough to say no).
    let owner = |d: Cursor| d.kind() == CXCursor_VarDecl && stdlib::shared(d.ty()) == Some(Shared::Owner);
    let mut any = cx.tree.descendants().iter().any(|&d| owner(d));
    if cx.tree.descendants().is_empty() {
        // The tree gave up on the declaration (`Tree::rebuild`): ask libclang.
        body.visit_descendants(&mut |d| any |= owner(d));
    }
    if !any {
        return Vec::new();
    }
    let mut w = Walk::new(cx, body, None);
    let left = w.paths(body, vec![State::default()]);
    for st in left {
        w.st = st;
        w.report(end);
    }
    if w.given_up {
        return Vec::new();
    }
    w.found.into_values().collect()
}

/// What a member of a given block holds after a call (`Summary::owns`).
#[derive(Clone, PartialEq, Eq, Debug)]
enum After {
    /// These given blocks (their parameters' indices), on every path of the callee.
    Holds(Vec<usize>),
    /// Not known: what it held, these given blocks or something else.
    Unknown(BTreeSet<usize>),
}

/// What a call of a function of the TU does to the owners it is given, from the function's
/// body: parameters `0..params` are its declared ones, `params` is `this`. A parameter that
/// is no `shared_ptr` (and `this` of a function that is no method) gives no block.
#[derive(Debug)]
pub(super) struct Summary {
    params: usize,
    /// The `shared_ptr` parameters, by value or by reference.
    owners: Vec<bool>,
    /// A method's: the object it is called on gives `this`.
    this: bool,
    /// The owning members of given blocks the call sets.
    owns: BTreeMap<(usize, String), After>,
    /// The given blocks the call may make weak members of given blocks refer to.
    weak: BTreeMap<(usize, String), BTreeSet<usize>>,
    /// The callee read a link it made between given blocks (see `Walk::read_links`).
    read_links: bool,
}

/// The summaries of a TU's functions, by their definition (`Cursor::decl_key`); `None` when a
/// call of the function escapes what it is given.
#[derive(Default)]
pub(super) struct Summaries {
    done: BTreeMap<usize, Option<Rc<Summary>>>,
    /// The functions whose summary is being computed, outermost first.
    open: Vec<usize>,
    /// A summary was refused for recursion or depth while the open ones were computed: theirs
    /// depend on where the walk came from, so they are not kept.
    cut: bool,
    walks: usize,
}

/// The summary of the function a call names (`decl`), if the walk can make one: its body is in
/// this TU, it is neither virtual nor a template's, and its walk ends within the limits.
fn summary(cx: &mut TuCtx, decl: Cursor) -> Option<Rc<Summary>> {
    let def = decl.definition()?;
    let key = def.decl_key();
    if let Some(s) = cx.owner_summaries.done.get(&key) {
        return s.clone();
    }
    let method = def.kind() == CXCursor_CXXMethod;
    if !(def.kind() == CXCursor_FunctionDecl || method)
        || def.is_in_system_header()
        || (method && def.is_virtual_method())
        || def.specialized_template().is_some()
        || super::is_class_template_member(def)
        || def.spelling().starts_with("operator")
    {
        cx.owner_summaries.done.insert(key, None);
        return None;
    }
    let sums = &mut cx.owner_summaries;
    if sums.open.contains(&key) || sums.open.len() >= MAX_DEPTH || sums.walks >= MAX_SUMMARIES {
        sums.cut = true;
        return None;
    }
    sums.walks += 1;
    sums.open.push(key);
    let outer_cut = std::mem::take(&mut sums.cut);
    let s = summarize(cx, def).map(Rc::new);
    let sums = &mut cx.owner_summaries;
    sums.open.pop();
    if !sums.cut {
        sums.done.insert(key, s.clone());
    }
    sums.cut |= outer_cut;
    s
}

/// Walk the body of `def` with a block standing for what each `shared_ptr` parameter and
/// `this` hold: the links its paths end with among those blocks. `None` when a path lets one
/// of them escape, reads a link it did not make, or rebinds a parameter passed by reference.
fn summarize(cx: &mut TuCtx, def: Cursor) -> Option<Summary> {
    let body = cx.kids(def).into_iter().rev().find(|c| c.kind() == CXCursor_CompoundStmt)?;
    let params: Vec<Cursor> = (0..u32::try_from(def.num_args()).ok()?).map(|i| def.arg(i)).collect::<Option<_>>()?;
    // A `shared_ptr` by value, or a reference to the caller's (`pointee` gives what a
    // reference refers to).
    let owner = |t: CXType| stdlib::shared(if clang::is_reference(t) { clang::pointee(t) } else { t });
    let owners: Vec<bool> = params.iter().map(|p| owner(p.ty()) == Some(Shared::Owner)).collect();
    let has_this = def.kind() == CXCursor_CXXMethod && !def.is_static_method();
    let mut w = Walk::new(cx, body, Some(Vec::new()));
    // Block `sym[i]` stands for parameter `i`'s.
    let mut sym_of: Vec<usize> = Vec::new();
    let mut by_ref = Vec::new();
    for (i, p) in params.iter().enumerate() {
        if !owners[i] {
            continue;
        }
        let at = w.loc(*p);
        let Val::Block(b) = w.new_block(at, "a parameter") else { return None };
        sym_of.push(i);
        w.st.vars.insert(p.decl_key(), Val::Block(b));
        if clang::is_reference(p.ty()) {
            by_ref.push((p.decl_key(), b));
        }
    }
    if has_this {
        let at = w.loc(def);
        let Val::Block(b) = w.new_block(at, "this") else { return None };
        sym_of.push(params.len());
        w.this = Some(b);
    }
    w.syms = sym_of.len();
    let left = w.paths(body, vec![w.st.clone()]);
    let end = w.loc(def);
    for st in left {
        w.st = st;
        w.report(end);
    }
    let ends = w.ends.take().unwrap_or_default();
    if w.given_up || ends.is_empty() {
        return None;
    }
    let syms = w.syms;
    let sym = |b: usize| (b < syms).then(|| sym_of[b]);
    for st in &ends {
        if st.escaped.iter().any(|&b| b < syms) {
            return None;
        }
        // A parameter bound to the caller's `shared_ptr` still holds what it was given.
        if by_ref.iter().any(|&(k, b)| st.vars.get(&k) != Some(&Val::Block(b))) {
            return None;
        }
    }
    let mut owns = BTreeMap::new();
    for slot @ (holder, m) in &w.touched {
        // A path that left the member holding something unknown (or, not setting it, what
        // it held) gives `None`.
        let held: Vec<Option<&Vec<usize>>> = ends.iter().map(|st| st.owns.get(slot)).collect();
        let after = match held[..] {
            [Some(first), ..] if held.iter().all(|h| *h == Some(first)) && first.iter().all(|&b| b < syms) => {
                After::Holds(first.iter().map(|&b| sym_of[b]).collect())
            }
            _ => After::Unknown(held.iter().flatten().flat_map(|v| v.iter()).filter_map(|&b| sym(b)).collect()),
        };
        owns.insert((sym_of[*holder], m.clone()), after);
    }
    // A weak member may refer to what it did before and to any given block a path left in it.
    let mut weak: BTreeMap<(usize, String), BTreeSet<usize>> = BTreeMap::new();
    for st in &ends {
        for ((holder, m), held) in st.weak.range((0, String::new())..(syms, String::new())) {
            let given: Vec<usize> = held.iter().filter_map(|&b| sym(b)).collect();
            if !given.is_empty() {
                weak.entry((sym_of[*holder], m.clone())).or_default().extend(given);
            }
        }
    }
    Some(Summary { params: params.len(), owners, this: has_this, owns, weak, read_links: w.read_links })
}

/// The blocks among `vals`.
fn blocks_of(vals: &[Val]) -> Vec<usize> {
    vals.iter().filter_map(|v| if let Val::Block(b) = v { Some(*b) } else { None }).collect()
}

/// Add to `out` the variables `c` (whose parent is `parent`) may write: a variable named other
/// than as a value read (libclang wraps a read in an implicit conversion), through a member
/// access or a `const` method aside; every variable a lambda names.
fn writes(cx: &TuCtx, c: Cursor, parent: Option<Cursor>, in_lambda: bool, out: &mut HashSet<usize>) {
    let in_lambda = in_lambda || c.kind() == CXCursor_LambdaExpr;
    if matches!(c.kind(), CXCursor_DeclRefExpr | CXCursor_VariableRef) {
        if let Some(v) = c.referenced().filter(|v| matches!(v.kind(), CXCursor_VarDecl | CXCursor_ParmDecl)) {
            let read = match parent.map(|p| (p.kind(), p)) {
                _ if in_lambda => false,
                Some((CXCursor_UnexposedExpr, _)) => true,
                Some((CXCursor_MemberRefExpr, p)) => match p.referenced() {
                    Some(m) if m.kind() == CXCursor_CXXMethod => {
                        // SAFETY: plain FFI on a method's cursor.
                        unsafe { clang_CXXMethod_isConst(m.0) != 0 }
                    }
                    _ => true,
                },
                _ => false,
            };
            if !read {
                out.insert(v.decl_key());
            }
        }
    }
    for k in cx.kids(c) {
        writes(cx, k, Some(c), in_lambda, out);
    }
}
impl<'a, 't, 'i> Walk<'a, 't, 'i> {
    /// A walk of `body` from nothing known; `ends`: `Some` for a summary walk (`summarize`).
    fn new(cx: &'a mut TuCtx<'t, 'i>, body: Cursor, ends: Option<Vec<State>>) -> Self {
        let mut written = HashSet::new();
        writes(cx, body, None, false, &mut written);
        Walk {
            cx,
            blocks: Vec::new(),
            names: HashMap::new(),
            written,
            st: State::default(),
            cond: 0,
            loops: Vec::new(),
            found: BTreeMap::new(),
            steps: 0,
            given_up: false,
            syms: 0,
            this: None,
            ends,
            read_links: false,
            touched: BTreeSet::new(),
        }
    }
}

impl Walk<'_, '_, '_> {
    fn kids(&self, c: Cursor) -> Vec<Cursor> {
        self.cx.kids(c).into_iter().collect()
    }

    fn loc(&mut self, c: Cursor) -> Loc {
        self.cx.loc(c.location())
    }

    // ---- paths ----

    /// Walk `s` from each of `states` along its paths: the paths that come out at its end.
    fn paths(&mut self, s: Cursor, states: Vec<State>) -> Vec<State> {
        if states.is_empty() || self.given_up {
            return states;
        }
        match s.kind() {
            CXCursor_CompoundStmt => {
                let mut states = states;
                for k in self.kids(s) {
                    states = self.paths(k, states);
                }
                states
            }
            CXCursor_IfStmt => self.if_paths(s, states),
            CXCursor_WhileStmt | CXCursor_DoStmt | CXCursor_ForStmt | CXCursor_CXXForRangeStmt => {
                self.loop_paths(s, states)
            }
            CXCursor_ReturnStmt => {
                let kids = self.kids(s);
                let at = self.loc(s);
                for st in self.each(states, |w| kids.iter().for_each(|&k| w.scan(k))) {
                    self.st = st;
                    self.report(at);
                }
                Vec::new()
            }
            CXCursor_BreakStmt | CXCursor_ContinueStmt => match self.loops.last_mut() {
                Some(exits) if s.kind() == CXCursor_BreakStmt => {
                    exits.breaks.extend(states);
                    Vec::new()
                }
                Some(exits) => {
                    exits.conts.extend(states);
                    Vec::new()
                }
                None => states,
            },
            _ => self.each(states, |w| w.stmt(s)),
        }
    }

    /// Run `f` on each of `states` as the path walked: the paths that go on after it.
    fn each(&mut self, states: Vec<State>, mut f: impl FnMut(&mut Self)) -> Vec<State> {
        self.steps += states.len();
        if self.steps > MAX_STEPS {
            self.given_up = true;
        }
        let mut out = Vec::with_capacity(states.len());
        for st in states {
            self.st = st;
            f(self);
            let st = std::mem::take(&mut self.st);
            if !st.dead {
                out.push(st);
            }
        }
        out
    }

    /// Walk `parts` of a statement as a conditional part.
    fn conditional(&mut self, parts: &[Cursor]) {
        self.cond += 1;
        for &p in parts {
            self.stmt(p);
        }
        self.cond -= 1;
    }

    /// The loops' paths that left or went on so far, to walk a part again.
    fn exits_mark(&self) -> Vec<(usize, usize)> {
        self.loops.iter().map(|l| (l.breaks.len(), l.conts.len())).collect()
    }

    fn exits_reset(&mut self, mark: &[(usize, usize)]) {
        for (l, &(b, c)) in self.loops.iter_mut().zip(mark) {
            l.breaks.truncate(b);
            l.conts.truncate(c);
        }
    }

    fn if_paths(&mut self, s: Cursor, states: Vec<State>) -> Vec<State> {
        let kids = self.kids(s);
        let (c, then_s, else_s) = match kids[..] {
            [c, t] => (c, t, None),
            [c, t, e] => (c, t, Some(e)),
            _ => return self.each(states, |w| w.stmt(s)),
        };
        // An `if` with an initializer or a condition variable.
        if !c.is_expression() {
            return self.each(states, |w| w.stmt(s));
        }
        let states = self.each(states, |w| w.scan(c));
        let test = self.test(c);
        let branches: Vec<Cursor> = [then_s].into_iter().chain(else_s).collect();
        let before = (states.clone(), self.exits_mark());
        let (mut yes, mut no, mut unsure) = (Vec::new(), Vec::new(), Vec::new());
        for mut st in states {
            match test.as_ref().map_or(Decision::Unsure, |t| decide(&st, t)) {
                Decision::Take(true) => yes.push(st),
                Decision::Take(false) => no.push(st),
                Decision::Fork => {
                    let Some(t) = test.as_ref() else { continue };
                    let mut other = st.clone();
                    other.learn(t, true);
                    st.learn(t, false);
                    yes.push(other);
                    no.push(st);
                }
                Decision::Unsure => unsure.push(st),
            }
        }
        if yes.len() + no.len() + unsure.len() <= MAX_STATES {
            let mut out = self.each(unsure, |w| w.conditional(&branches));
            out.extend(self.paths(then_s, yes));
            out.extend(match else_s {
                Some(e) => self.paths(e, no),
                None => no,
            });
            let out = merge(out);
            if out.len() <= MAX_STATES {
                return out;
            }
        }
        let (states, mark) = before;
        self.exits_reset(&mark);
        self.each(states, |w| w.conditional(&branches))
    }

    fn loop_paths(&mut self, s: Cursor, states: Vec<State>) -> Vec<State> {
        let kids = self.kids(s);
        let mut lp = Loop { body: s, init: Vec::new(), test: None, step: None, var: None, first_trip_free: false };
        let mut counters = BTreeSet::new();
        let header = match (s.kind(), &kids[..]) {
            (CXCursor_WhileStmt, [t, body]) => {
                lp.body = *body;
                lp.test = Some(*t);
                self.header(lp.test, &counters)
            }
            (CXCursor_DoStmt, [body, t]) => {
                lp.body = *body;
                lp.test = Some(*t);
                lp.first_trip_free = true;
                self.header(lp.test, &counters)
            }
            (CXCursor_ForStmt, [parts @ .., body]) => {
                lp.body = *body;
                let (i, t, step) = match parts {
                    [] => (None, None, None),
                    [a, b, c] => (Some(*a), Some(*b), Some(*c)),
                    _ => self.cx.for_header(s, parts, *body).unwrap_or((None, None, None)),
                };
                if parts.len() != usize::from(i.is_some()) + usize::from(t.is_some()) + usize::from(step.is_some()) {
                    None
                } else {
                    if let Some(i) = i {
                        for d in self.kids(i) {
                            if d.kind() == CXCursor_VarDecl {
                                counters.insert(d.decl_key());
                            }
                        }
                        lp.init.push(i);
                    }
                    lp.test = t;
                    lp.step = step;
                    self.header(lp.test, &counters)
                }
            }
            // A range `for`: the loop variable, the range, the body.
            (CXCursor_CXXForRangeStmt, [v, r, body]) if v.kind() == CXCursor_VarDecl && r.is_expression() => {
                lp.body = *body;
                lp.var = Some(*v);
                lp.init.push(*r);
                self.params_only(*r, &counters)
            }
            _ => None,
        };
        match header {
            Some(h) => self.unroll(s, lp, h, states),
            None => self.each(states, |w| w.stmt(s)),
        }
    }

    /// Take the loop `s` (its parts `lp`) 0 to `MAX_TRIPS` times from each of `states`, as a
    /// conditional part when too many paths come out.
    fn unroll(&mut self, s: Cursor, lp: Loop, header: Header, states: Vec<State>) -> Vec<State> {
        let Loop { body, init, test, step, var, first_trip_free } = lp;
        // The caller's parameters the test reads: a path that tested them already may know
        // something of the trip count.
        let params = match &header {
            Header::Params(p) => p.clone(),
            _ => BTreeSet::new(),
        };
        if states.iter().any(|st| params.iter().any(|p| st.tested.contains_key(p))) {
            return self.each(states, |w| w.stmt(s));
        }
        let before = (states.clone(), self.exits_mark());
        let mut cur = states;
        for &i in &init {
            cur = self.each(cur, |w| w.stmt(i));
        }
        let (may_leave, may_enter) = match header {
            Header::Always => (false, true),
            Header::Never => (true, false),
            Header::Params(_) => (true, true),
        };
        let mut left = Vec::new();
        let mut trips = 0;
        loop {
            if !(first_trip_free && trips == 0) {
                if let Some(t) = test {
                    cur = self.each(cur, |w| w.scan(t));
                }
                if may_leave {
                    left.extend(cur.iter().cloned());
                }
                if !may_enter || trips == MAX_TRIPS {
                    // The paths that would take the loop once more are not followed.
                    break;
                }
            }
            if let Some(v) = var {
                let key = v.decl_key();
                let name = v.spelling();
                cur = self.each(cur, |w| {
                    if stdlib::shared(v.ty()) == Some(Shared::Owner) {
                        // An element of the caller's range.
                        w.names.insert(key, name.clone());
                        w.st.vars.insert(key, Val::Unknown);
                    }
                });
            }
            self.loops.push(Exits::default());
            cur = self.paths(body, cur);
            let exits = self.loops.pop().unwrap_or_default();
            left.extend(exits.breaks);
            cur.extend(exits.conts);
            if let Some(t) = step {
                cur = self.each(cur, |w| w.stmt(t));
            }
            cur = merge(cur);
            trips += 1;
            if cur.len() + left.len() > MAX_STATES {
                break;
            }
        }
        let mut out = merge(left);
        if cur.len() + out.len() <= MAX_STATES {
            for st in out.iter_mut() {
                for &p in &params {
                    st.tested.insert(p, LOOP_TEST.to_string());
                }
            }
            return out;
        }
        let (states, mark) = before;
        self.exits_reset(&mark);
        out = self.each(states, |w| w.stmt(s));
        out
    }

    // ---- conditions ----

    /// `c` as a condition to fork on; `None` when it reads what the function writes (or is too
    /// long to be told from another by its text).
    fn test(&mut self, c: Cursor) -> Option<Test> {
        let mut c = self.cx.strip(c);
        let mut negated = false;
        while c.kind() == CXCursor_UnaryOperator && c.unop() == CXUnaryOperator_LNot {
            let operand = self.kids(c).into_iter().find(|k| k.is_expression())?;
            c = self.cx.strip(operand);
            negated = !negated;
        }
        let key = self.cx.text_of(c).filter(|t| !t.ends_with('…'))?;
        let mut vars = BTreeSet::new();
        let mut plain = true;
        self.reads(c, &mut vars, &mut plain);
        if vars.iter().any(|v| self.written.contains(v)) {
            return None;
        }
        Some(Test { key, negated, vars, stable: plain })
    }

    /// Add to `vars` the variables `e` reads; clear `plain` if it reads anything but unwritten
    /// locals and parameters (not references) through operators.
    fn reads(&self, e: Cursor, vars: &mut BTreeSet<usize>, plain: &mut bool) {
        match e.kind() {
            CXCursor_DeclRefExpr => match e.referenced() {
                Some(v) if matches!(v.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) => {
                    vars.insert(v.decl_key());
                    if v.has_global_storage() || clang::is_reference(v.ty()) {
                        *plain = false;
                    }
                }
                Some(k) if k.kind() == CXCursor_EnumConstantDecl => {}
                _ => *plain = false,
            },
            CXCursor_UnaryOperator => {
                if !matches!(
                    e.unop(),
                    CXUnaryOperator_LNot | CXUnaryOperator_Minus | CXUnaryOperator_Not | CXUnaryOperator_Plus
                ) {
                    *plain = false;
                }
            }
            CXCursor_IntegerLiteral
            | CXCursor_CharacterLiteral
            | CXCursor_CXXBoolLiteralExpr
            | CXCursor_CXXNullPtrLiteralExpr
            | CXCursor_UnexposedExpr
            | CXCursor_ParenExpr
            | CXCursor_BinaryOperator
            | CXCursor_CStyleCastExpr => {}
            _ => *plain = false,
        }
        for k in self.kids(e) {
            self.reads(k, vars, plain);
        }
    }

    /// The head of a `while`, `do` or `for` whose test is `t` and whose header declares
    /// `counters`; `None` when the walk cannot tell which trip counts are possible.
    fn header(&mut self, t: Option<Cursor>, counters: &BTreeSet<usize>) -> Option<Header> {
        let Some(t) = t else { return Some(Header::Always) };
        if !t.is_expression() {
            return None;
        }
        if let Some(v) = self.cx.strip(t).eval_int() {
            return Some(if v != 0 { Header::Always } else { Header::Never });
        }
        self.params_only(t, counters)
    }

    /// `Header::Params` when `e` reads the caller's parameters (at least one, none the function
    /// writes), besides `counters` only.
    fn params_only(&mut self, e: Cursor, counters: &BTreeSet<usize>) -> Option<Header> {
        let mut params = BTreeSet::new();
        let mut cursors = Vec::new();
        self.var_refs(e, &mut cursors);
        for v in cursors {
            let key = v.decl_key();
            if counters.contains(&key) {
                continue;
            }
            if v.kind() != CXCursor_ParmDecl || self.written.contains(&key) {
                return None;
            }
            params.insert(key);
        }
        (!params.is_empty()).then_some(Header::Params(params))
    }

    /// The declarations of the variables `e` names.
    fn var_refs(&self, e: Cursor, out: &mut Vec<Cursor>) {
        if e.kind() == CXCursor_DeclRefExpr {
            if let Some(v) = e.referenced().filter(|v| matches!(v.kind(), CXCursor_VarDecl | CXCursor_ParmDecl)) {
                out.push(v);
            }
        }
        for k in self.kids(e) {
            self.var_refs(k, out);
        }
    }

    /// The path ends at `lost`: its lost cycles are found (a summary walk keeps its state).
    fn report(&mut self, lost: Loc) {
        if let Some(ends) = self.ends.as_mut() {
            ends.push(self.st.clone());
            return;
        }
        for c in self.cycles(lost) {
            self.found.entry((c.at.file, c.at.line, c.at.col)).or_insert(c);
        }
    }

    // ---- statements of one path ----

    fn stmt(&mut self, s: Cursor) {
        if self.given_up || self.st.dead {
            return;
        }
        match s.kind() {
            CXCursor_CompoundStmt | CXCursor_DeclStmt => {
                for k in self.kids(s) {
                    self.stmt(k);
                }
            }
            CXCursor_VarDecl => self.var_decl(s),
            CXCursor_NullStmt => {}
            // Inside a conditional part: the path may go on after it.
            CXCursor_ReturnStmt => {
                for k in self.kids(s) {
                    self.scan(k);
                }
            }
            CXCursor_GotoStmt | CXCursor_IndirectGotoStmt => self.given_up = true,
            _ if s.is_expression() => self.effect(s),
            // `if`, loops, `switch`, `try`, labels: what runs inside may not run, or run again.
            _ => {
                self.cond += 1;
                for k in self.kids(s) {
                    self.stmt(k);
                }
                self.cond -= 1;
            }
        }
    }
    fn var_decl(&mut self, v: Cursor) {
        let init = v.var_initializer().map(|i| self.cx.tree.among_kids(v, i));
        let shared = if v.has_global_storage() { None } else { stdlib::shared(v.ty()) };
        if shared == Some(Shared::Owners) {
            // What it starts with escapes: only what it is given later is followed.
            if let Some(i) = init {
                self.scan(i);
            }
            self.st.lists.insert(v.decl_key(), Vec::new());
            return;
        }
        if shared != Some(Shared::Owner) {
            if let Some(i) = init {
                self.scan(i);
            }
            return;
        }
        // A local declared in a conditional part is a new local each time: it may hold what
        // it is given, as one declared outside.
        let name = v.spelling();
        let val = match init {
            Some(i) => self.value(i),
            None => Val::Empty,
        };
        self.name(val, || name.clone());
        self.st.vars.insert(v.decl_key(), val);
        self.names.insert(v.decl_key(), name);
    }

    /// An expression statement.
    fn effect(&mut self, e: Cursor) {
        let e = self.peel(e);
        if e.kind() == CXCursor_CallExpr {
            if let Some(decl) = e.referenced().filter(|d| d.kind() == CXCursor_CXXMethod) {
                let name = decl.spelling();
                let handled = match (name.as_str(), e.arg(0), e.arg(1)) {
                    ("operator=", Some(l), Some(r)) if e.num_args() == 2 => {
                        let (l, r) = (self.cx.tree.among_kids(e, l), self.cx.tree.among_kids(e, r));
                        self.assign(l, r)
                    }
                    _ => match self.method_object(e) {
                        Some(obj) => self.method(&name, obj, e),
                        None => false,
                    },
                };
                if handled {
                    return;
                }
            }
            if self.call(e) {
                return;
            }
        }
        self.scan(e);
    }

    /// A call of a function of the TU whose summary is known: the links it makes and breaks
    /// among the blocks it is given, put between the blocks its arguments (and the object of a
    /// method) hold; false when the walk does not follow it (what it is given then escapes).
    fn call(&mut self, e: Cursor) -> bool {
        let Some(decl) = e.referenced() else { return false };
        if !matches!(decl.kind(), CXCursor_FunctionDecl | CXCursor_CXXMethod) {
            return false;
        }
        let Ok(n) = u32::try_from(e.num_args()) else { return false };
        let Some(args) = (0..n).map(|i| e.arg(i).map(|a| self.cx.tree.among_kids(e, a))).collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        let Some(sum) = summary(self.cx, decl) else { return false };
        if args.len() < sum.params {
            return false;
        }
        // What each parameter (then `this`) is given.
        let mut given = Vec::with_capacity(sum.params + 1);
        for (i, &a) in args.iter().enumerate() {
            if i < sum.params && sum.owners[i] {
                given.push(self.value(a));
            } else {
                self.scan(a);
                if i < sum.params {
                    given.push(Val::Unknown);
                }
            }
        }
        given.push(match self.object_block(e) {
            Some(b) if sum.this => Val::Block(b),
            _ => {
                if let Some(callee) = self.kids(e).first().copied() {
                    self.scan(callee);
                }
                Val::Unknown
            }
        });
        let blocks: Vec<usize> =
            given.iter().filter_map(|v| if let Val::Block(b) = v { Some(*b) } else { None }).collect();
        if sum.read_links && blocks.iter().collect::<BTreeSet<_>>().len() < blocks.len() {
            // The callee read a link it made: had it been given one block twice, it may have
            // read another. As an unknown call.
            for b in blocks {
                self.escape(b);
            }
            return true;
        }
        // What each member of a given block holds after the call: `None` when not known, with
        // the blocks it may hold. Two parameters given one block that say different things of
        // one member leave it not known.
        let mut sets: BTreeMap<Slot, (Option<Vec<usize>>, Vec<usize>)> = BTreeMap::new();
        let mut lost: Vec<usize> = Vec::new();
        for ((p, m), after) in &sum.owns {
            let (held, may) = match after {
                After::Holds(ps) => {
                    let vals: Vec<Val> = ps.iter().map(|&q| given[q]).collect();
                    let held: Option<Vec<usize>> = vals
                        .iter()
                        .filter(|v| **v != Val::Empty)
                        .map(|v| if let Val::Block(b) = v { Some(*b) } else { None })
                        .collect();
                    (held, blocks_of(&vals))
                }
                After::Unknown(ps) => (None, blocks_of(&ps.iter().map(|&q| given[q]).collect::<Vec<_>>())),
            };
            let Val::Block(a) = given[*p] else {
                // Stored into an object the walk does not follow.
                lost.extend(may);
                continue;
            };
            match sets.get_mut(&(a, m.clone())) {
                Some(set) => {
                    if set.0 != held {
                        set.0 = None;
                    }
                    set.1.extend(may);
                }
                None => {
                    sets.insert((a, m.clone()), (held, may));
                }
            }
        }
        for b in lost {
            self.escape(b);
        }
        for (slot, (held, may)) in sets {
            self.touch(slot.0, &slot.1);
            match held {
                Some(held) if self.cond == 0 => {
                    self.st.owns.insert(slot, held);
                }
                // In a conditional part the call may not run: the member may hold what it did
                // or what the call left, as a member holding something unknown.
                _ => {
                    for b in self.st.owns.remove(&slot).unwrap_or_default().into_iter().chain(may) {
                        self.escape(b);
                    }
                }
            }
        }
        for ((p, m), refs) in &sum.weak {
            let refs = blocks_of(&refs.iter().map(|&q| given[q]).collect::<Vec<_>>());
            match given[*p] {
                Val::Block(a) => self.st.weak.entry((a, m.clone())).or_default().extend(refs),
                _ => refs.into_iter().for_each(|b| self.escape(b)),
            }
        }
        true
    }

    /// The block the object of the method call `e` is, when the walk knows it: `x->f()` with
    /// `x` holding it, `this->f()` and `f()` in a summary walk of a method. Looked at only.
    fn object_block(&mut self, e: Cursor) -> Option<usize> {
        match self.method_object(e) {
            Some(obj) => {
                let obj = self.peel(obj);
                if obj.kind() == CXCursor_CXXThisExpr {
                    return self.this;
                }
                let x = self.arrow_base(obj)?;
                self.resolve(x)
            }
            None => {
                let callee = self.kids(e).first().map(|k| self.cx.strip(*k))?;
                if self.implicit_this(callee) {
                    self.this
                } else {
                    None
                }
            }
        }
    }

    /// A member `m` of a method's own object, named without `this->` (libclang shows no cursor
    /// for the implicit `this`).
    fn implicit_this(&self, e: Cursor) -> bool {
        e.kind() == CXCursor_MemberRefExpr
            && !self.kids(e).iter().any(|c| c.is_expression())
            && e.referenced().is_some_and(|d| match d.kind() {
                CXCursor_FieldDecl | CXCursor_FunctionTemplate | CXCursor_ConversionFunction => true,
                CXCursor_CXXMethod => !d.is_static_method(),
                _ => false,
            })
    }

    /// Record that a path sets the owning member `m` of `a` (a summary walk's `touched`).
    fn touch(&mut self, a: usize, m: &str) {
        if a < self.syms {
            self.touched.insert((a, m.to_string()));
        }
    }

    /// `l = r`; false when `l` is nothing the walk follows.
    fn assign(&mut self, l: Cursor, r: Cursor) -> bool {
        let l = self.peel(l);
        if let Some(k) = self.var_key(l) {
            if self.cond == 0 {
                let val = self.value(r);
                let name = self.names.get(&k).cloned().unwrap_or_default();
                self.name(val, || name);
                self.st.vars.insert(k, val);
            } else {
                self.scan(r);
                self.forget(k);
            }
            return true;
        }
        let Some((a, m, ty)) = self.arrow_member(l) else { return false };
        if lambdas::is_std_function(self.cx, ty) {
            return self.store_callable(a, m, r);
        }
        match stdlib::shared(ty) {
            Some(Shared::Owner) if self.cond == 0 => {
                match self.value(r) {
                    Val::Block(b) => {
                        let holder = self.display(a);
                        self.name(Val::Block(b), || format!("{holder}->{m}"));
                        self.touch(a, &m);
                        self.st.owns.insert((a, m), vec![b]);
                    }
                    Val::Empty => {
                        self.touch(a, &m);
                        self.st.owns.insert((a, m), Vec::new());
                    }
                    Val::Unknown => {
                        self.touch(a, &m);
                        self.st.owns.remove(&(a, m));
                    }
                }
                true
            }
            Some(Shared::Owner) => {
                self.scan(r);
                self.touch(a, &m);
                self.st.owns.remove(&(a, m));
                true
            }
            Some(Shared::Weak) => {
                let val = self.value(r);
                let links = self.st.weak.entry((a, m)).or_default();
                if self.cond == 0 {
                    links.clear();
                }
                if let Val::Block(b) = val {
                    links.push(b);
                }
                true
            }
            _ => false,
        }
    }

    /// A call of method `name` on `obj`; false when it is nothing the walk follows.
    fn method(&mut self, name: &str, obj: Cursor, e: Cursor) -> bool {
        let obj = self.peel(obj);
        let args = e.num_args();
        if let Some(k) = self.list_key(obj) {
            return self.list_method(k, name, e);
        }
        if let Some(k) = self.var_key(obj) {
            if name != "reset" || args != 0 {
                return false;
            }
            match self.cond {
                0 => {
                    self.st.vars.insert(k, Val::Empty);
                }
                _ => self.forget(k),
            }
            return true;
        }
        let Some((a, m, ty)) = self.arrow_member(obj) else { return false };
        match (stdlib::shared(ty), name, args) {
            (Some(Shared::Owner), "reset", 0) => {
                self.touch(a, &m);
                self.st.owns.insert((a, m), Vec::new());
                true
            }
            (Some(Shared::Weak), "reset", 0) => {
                self.st.weak.insert((a, m), Vec::new());
                true
            }
            (Some(Shared::Owners), "clear", 0) => {
                self.touch(a, &m);
                self.st.owns.insert((a, m), Vec::new());
                true
            }
            (Some(Shared::Owners), "size" | "empty", 0) => true,
            (
                Some(Shared::Owners),
                "push_back" | "emplace_back" | "push_front" | "emplace_front" | "insert" | "emplace",
                1,
            ) => {
                let Some(r) = e.arg(0).map(|r| self.cx.tree.among_kids(e, r)) else { return false };
                if self.cond > 0 {
                    self.scan(r);
                    return true;
                }
                if a < self.syms && !self.st.owns.contains_key(&(a, m.clone())) {
                    // A summary walk: one more element of a container the caller filled is
                    // no link a summary says.
                    self.escape(a);
                    self.scan(r);
                    return true;
                }
                if let Val::Block(b) = self.value(r) {
                    let holder = self.display(a);
                    self.name(Val::Block(b), || format!("an element of {holder}->{m}"));
                    // A slot holding something unknown keeps it: the new link is one more.
                    self.st.owns.entry((a, m)).or_default().push(b);
                }
                true
            }
            _ => false,
        }
    }

    /// A call of method `name` on the local container `k`; false when it is nothing the walk
    /// follows.
    fn list_method(&mut self, k: usize, name: &str, e: Cursor) -> bool {
        match (name, e.num_args()) {
            ("size" | "empty", 0) => true,
            // In a conditional part it may not run, and what the container held may escape
            // through a later use.
            ("clear", 0) => {
                if self.cond == 0 {
                    self.st.lists.insert(k, Vec::new());
                }
                true
            }
            ("push_back" | "emplace_back" | "push_front" | "emplace_front" | "insert" | "emplace", 1) => {
                let Some(r) = e.arg(0).map(|r| self.cx.tree.among_kids(e, r)) else { return false };
                if let Val::Block(b) = self.value(r) {
                    self.st.lists.entry(k).or_default().push(b);
                }
                true
            }
            _ => false,
        }
    }

    /// `a->m = r` into a `std::function` member: the lambda `r` owns the blocks of the
    /// `shared_ptr`s it copies, and the member owns the lambda. Anything else stored there
    /// (`nullptr`, another function, a lambda whose captures the walk does not read) replaces
    /// what the member held with something unknown, what `r` names escaping.
    fn store_callable(&mut self, a: usize, m: String, r: Cursor) -> bool {
        self.touch(a, &m);
        match self.captured(r) {
            Some(held) if self.cond == 0 => {
                self.st.owns.insert((a, m), held);
            }
            _ => {
                self.scan(r);
                self.st.owns.remove(&(a, m));
            }
        }
        true
    }

    /// The blocks the lambda `r` (converted to a `std::function`) holds through its captures:
    /// those of the local `shared_ptr`s it copies. `None` unless it names each capture, by
    /// copy, and copies no local container the walk follows.
    fn captured(&mut self, r: Cursor) -> Option<Vec<usize>> {
        let l = self.lambda_of(r)?;
        if l.in_macro() {
            return None;
        }
        let (file, start, end) = l.file_span()?;
        let text = self.cx.file_text(file)?.get(start as usize..end as usize)?;
        let intro = lambdas::parse_intro(text)?;
        if intro.default.is_some() || intro.named.iter().any(|&(_, by_ref)| by_ref) {
            return None;
        }
        let mut held = Vec::new();
        for k in self.kids(l) {
            if k.kind() != CXCursor_VariableRef {
                continue;
            }
            let key = k.referenced()?.decl_key();
            if self.st.lists.contains_key(&key) {
                return None;
            }
            if let Some(&Val::Block(b)) = self.st.vars.get(&key) {
                held.push(b);
            }
        }
        Some(held)
    }

    /// The lambda `e` is, through conversions and the `std::function` built from it.
    fn lambda_of(&mut self, mut e: Cursor) -> Option<Cursor> {
        loop {
            e = self.cx.strip(e);
            e = match e.kind() {
                CXCursor_LambdaExpr => return Some(e),
                CXCursor_UnexposedExpr => {
                    let kids: Vec<Cursor> = self.kids(e).into_iter().filter(|c| c.is_expression()).collect();
                    match kids[..] {
                        [only] => only,
                        _ => return None,
                    }
                }
                CXCursor_CallExpr
                    if e.num_args() == 1 && e.referenced().is_some_and(|d| d.kind() == CXCursor_Constructor) =>
                {
                    self.cx.tree.among_kids(e, e.arg(0)?)
                }
                _ => return None,
            };
        }
    }

    /// The local container of `shared_ptr`s `e` names, if the walk follows it.
    fn list_key(&self, e: Cursor) -> Option<usize> {
        if e.kind() != CXCursor_DeclRefExpr {
            return None;
        }
        let k = e.referenced()?.decl_key();
        self.st.lists.contains_key(&k).then_some(k)
    }

    // ---- expressions ----

    /// What the `shared_ptr` expression `r` gives, creating the block a `make_shared` or a
    /// construction from `new` allocates; whatever else `r` uses escapes.
    fn value(&mut self, r: Cursor) -> Val {
        let r = self.peel(r);
        match r.kind() {
            CXCursor_CXXNullPtrLiteralExpr | CXCursor_GNUNullExpr => return Val::Empty,
            CXCursor_DeclRefExpr => {
                if let Some(k) = self.var_key(r) {
                    return self.st.vars.get(&k).copied().unwrap_or(Val::Unknown);
                }
            }
            CXCursor_MemberRefExpr => {
                if let Some((a, m, ty)) = self.arrow_member(r) {
                    if stdlib::shared(ty) == Some(Shared::Owner) {
                        if a < self.syms {
                            if !self.st.owns.contains_key(&(a, m.clone())) {
                                // A summary walk reads what the caller left in a given block:
                                // what it does with it is no link a summary says.
                                self.escape(a);
                                return Val::Unknown;
                            }
                            self.read_links = true;
                        }
                        return match self.st.owns.get(&(a, m)).map(Vec::as_slice) {
                            Some([]) => Val::Empty,
                            Some(&[b]) => Val::Block(b),
                            // Set by the block's constructor or by unknown code: not a block of
                            // the walk's, or an escaped one.
                            _ => Val::Unknown,
                        };
                    }
                }
            }
            CXCursor_CallExpr => {
                if let Some(v) = self.call_value(r) {
                    return v;
                }
            }
            _ => {}
        }
        self.scan(r);
        Val::Unknown
    }

    /// `value` of a call, when it is one the walk knows.
    fn call_value(&mut self, r: Cursor) -> Option<Val> {
        let decl = r.referenced()?;
        match decl.kind() {
            CXCursor_FunctionDecl if stdlib::std_function(decl).as_deref() == Some("make_shared") => {
                for k in self.kids(r) {
                    self.scan(k);
                }
                let at = self.loc(r);
                Some(self.new_block(at, "std::make_shared"))
            }
            CXCursor_Constructor if stdlib::shared(r.ty()) == Some(Shared::Owner) => match r.num_args() {
                0 => Some(Val::Empty),
                1 => {
                    let a = self.peel(self.cx.tree.among_kids(r, r.arg(0)?));
                    match a.kind() {
                        CXCursor_CXXNullPtrLiteralExpr => Some(Val::Empty),
                        CXCursor_CXXNewExpr => {
                            for k in self.kids(a) {
                                self.scan(k);
                            }
                            let at = self.loc(a);
                            Some(self.new_block(at, "new"))
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
            // `x->shared_from_this()`: another owner of the block `x` holds.
            CXCursor_CXXMethod if decl.spelling() == "shared_from_this" && r.num_args() == 0 => {
                self.object_block(r).map(Val::Block)
            }
            _ => None,
        }
    }

    /// The block the `shared_ptr` expression `x` holds, when the walk knows it; `x` is only
    /// looked at, never used.
    fn resolve(&mut self, x: Cursor) -> Option<usize> {
        let x = self.peel(x);
        if let Some(k) = self.var_key(x) {
            return match self.st.vars.get(&k).copied().unwrap_or(Val::Unknown) {
                Val::Block(b) => Some(b),
                _ => None,
            };
        }
        let (a, m, ty) = self.arrow_member(x)?;
        if stdlib::shared(ty) != Some(Shared::Owner) {
            return None;
        }
        match self.st.owns.get(&(a, m)).map(Vec::as_slice) {
            Some(&[b]) => {
                self.read_links |= a < self.syms;
                Some(b)
            }
            _ => None,
        }
    }

    /// `x->m` with `x` a `shared_ptr` whose block the walk knows: that block, the member's
    /// name and its type.
    fn arrow_member(&mut self, e: Cursor) -> Option<(usize, String, CXType)> {
        if e.kind() != CXCursor_MemberRefExpr {
            return None;
        }
        let field = e.referenced().filter(|f| f.kind() == CXCursor_FieldDecl)?;
        let a = match self.kids(e).into_iter().find(|c| c.is_expression()) {
            Some(base) => {
                let base = self.cx.strip(base);
                if base.kind() == CXCursor_CXXThisExpr {
                    self.this?
                } else {
                    let x = self.arrow_base(base)?;
                    self.resolve(x)?
                }
            }
            // `m` in a method: `this->m`.
            None => self.this?,
        };
        Some((a, field.spelling(), field.ty()))
    }

    /// The `shared_ptr` `x` of a call `x.operator->()`.
    fn arrow_base(&mut self, call: Cursor) -> Option<Cursor> {
        if call.kind() != CXCursor_CallExpr {
            return None;
        }
        let decl = call.referenced().filter(|d| d.kind() == CXCursor_CXXMethod)?;
        if decl.spelling() != "operator->" {
            return None;
        }
        // The operand is converted to the library's base class that declares `operator->`.
        let x = self.peel(self.cx.tree.among_kids(call, call.arg(0)?));
        (stdlib::shared(x.ty()) == Some(Shared::Owner)).then_some(x)
    }

    /// The object a method call `e` is made on: `obj` of `obj.f(..)`, the operand of an
    /// operator's call.
    fn method_object(&mut self, e: Cursor) -> Option<Cursor> {
        let callee = self.kids(e).first().map(|k| self.cx.strip(*k))?;
        if callee.kind() == CXCursor_MemberRefExpr
            && callee.referenced().is_some_and(|r| matches!(r.kind(), CXCursor_CXXMethod | CXCursor_FunctionTemplate))
        {
            return self.kids(callee).into_iter().find(|c| c.is_expression());
        }
        None
    }

    /// `e` without parentheses, implicit conversions, casts, copies and moves of a
    /// `shared_ptr` (`std::move(b)` and the copy constructor give what `b` holds).
    fn peel(&mut self, mut e: Cursor) -> Cursor {
        loop {
            e = self.cx.strip(e);
            let next = match e.kind() {
                CXCursor_UnexposedExpr => {
                    let kids: Vec<Cursor> = self.kids(e).into_iter().filter(|c| c.is_expression()).collect();
                    match kids[..] {
                        [only] => Some(only),
                        _ => None,
                    }
                }
                CXCursor_CallExpr if e.num_args() == 1 => {
                    let decl = e.referenced();
                    let copy = decl.is_some_and(|d| {
                        d.kind() == CXCursor_Constructor && stdlib::shared(e.ty()) == Some(Shared::Owner)
                    }) || decl.and_then(stdlib::std_function).is_some_and(|n| n == "move" || n == "forward");
                    match e.arg(0).map(|a| self.cx.tree.among_kids(e, a)) {
                        Some(a) if copy && stdlib::shared(a.ty()) == Some(Shared::Owner) => Some(a),
                        _ => None,
                    }
                }
                _ => None,
            };
            match next {
                Some(n) => e = n,
                None => return e,
            }
        }
    }

    /// The local `shared_ptr` `e` names, if the walk follows it.
    fn var_key(&self, e: Cursor) -> Option<usize> {
        if e.kind() != CXCursor_DeclRefExpr {
            return None;
        }
        let k = e.referenced()?.decl_key();
        self.st.vars.contains_key(&k).then_some(k)
    }

    /// Any use of what `e` names that the walk does not follow: the blocks it names escape.
    fn scan(&mut self, e: Cursor) {
        match e.kind() {
            CXCursor_DeclRefExpr | CXCursor_VariableRef => {
                if let Some(k) = e.referenced().map(|d| d.decl_key()) {
                    if let Some(&Val::Block(b)) = self.st.vars.get(&k) {
                        self.escape(b);
                    }
                    for b in self.st.lists.get(&k).cloned().unwrap_or_default() {
                        self.escape(b);
                    }
                }
            }
            CXCursor_MemberRefExpr => {
                if let Some((_, _, ty)) = self.arrow_member(e) {
                    let plain = match clang::classify(ty) {
                        TypeClass::Record | TypeClass::Array => stdlib::string(ty),
                        _ => !clang::is_reference(ty),
                    };
                    if plain {
                        return;
                    }
                }
                if let Some(t) = self.this.filter(|_| self.implicit_this(e)) {
                    self.escape(t);
                }
            }
            CXCursor_CXXThisExpr => {
                if let Some(t) = self.this {
                    self.escape(t);
                }
            }
            CXCursor_GotoStmt | CXCursor_IndirectGotoStmt => self.given_up = true,
            CXCursor_CallExpr if self.cond == 0 => {
                let noreturn = e
                    .referenced()
                    .filter(|d| d.kind() == CXCursor_FunctionDecl)
                    .is_some_and(|d| self.cx.callee_info(d).noreturn);
                if noreturn {
                    self.st.dead = true;
                }
            }
            _ => {}
        }
        for k in self.kids(e) {
            self.scan(k);
        }
    }

    // ---- the heap ----

    fn new_block(&mut self, at: Loc, allocator: &'static str) -> Val {
        self.blocks.push(Block { at, allocator, name: None });
        Val::Block(self.blocks.len() - 1)
    }

    /// Name the block `v` holds by `name` if it has none yet.
    fn name(&mut self, v: Val, name: impl FnOnce() -> String) {
        if let Val::Block(b) = v {
            if self.blocks[b].name.is_none() {
                self.blocks[b].name = Some(name());
            }
        }
    }

    fn display(&self, b: usize) -> String {
        let block = &self.blocks[b];
        block.name.clone().unwrap_or_else(|| format!("the block allocated at line {}", block.at.line))
    }

    /// A conditional part changed the local `k`: what it held escapes, since it may still hold
    /// it after.
    fn forget(&mut self, k: usize) {
        if let Some(&Val::Block(b)) = self.st.vars.get(&k) {
            self.escape(b);
        }
        self.st.vars.insert(k, Val::Unknown);
    }

    /// Something outside may own `b` now: so it may own everything `b` reaches now.
    fn escape(&mut self, b: usize) {
        let mut seen = vec![false; self.blocks.len()];
        self.reach(&mut seen, [b]);
        self.st.escaped.extend((0..seen.len()).filter(|&c| seen[c]));
    }

    /// Mark in `seen` every block reachable from `from` over owning and weak links.
    fn reach(&self, seen: &mut [bool], from: impl IntoIterator<Item = usize>) {
        let mut work: Vec<usize> = from.into_iter().collect();
        for &b in &work {
            seen[b] = true;
        }
        while let Some(b) = work.pop() {
            for links in [&self.st.owns, &self.st.weak] {
                for (_, held) in links.range((b, String::new())..).take_while(|((h, _), _)| *h == b) {
                    for &c in held {
                        if !seen[c] {
                            seen[c] = true;
                            work.push(c);
                        }
                    }
                }
            }
        }
    }

    /// The link `holder->m` holds `held`, as a message names it: a block made right into the
    /// member is named by it, which the link need not say twice.
    fn link(&self, holder: usize, m: &str, held: usize) -> (String, String, String) {
        let (holder, held) = (self.display(holder), self.display(held));
        let held = if held == format!("{holder}->{m}") { "the block made for it".to_string() } else { held };
        (holder, m.to_string(), held)
    }

    /// The owning links from `b` to blocks `keep` accepts: (member, held).
    fn links_from(&self, b: usize, keep: &[bool]) -> Vec<(&str, usize)> {
        self.st
            .owns
            .range((b, String::new())..)
            .take_while(|((h, _), _)| *h == b)
            .flat_map(|((_, m), held)| held.iter().filter(|&&c| keep[c]).map(move |&c| (m.as_str(), c)))
            .collect()
    }

    /// The cycles of owning links among the blocks nothing alive reaches.
    fn cycles(&self, lost: Loc) -> Vec<OwnerCycle> {
        let n = self.blocks.len();
        let mut alive = vec![false; n];
        let escaped: Vec<usize> = self.st.escaped.iter().copied().collect();
        self.reach(&mut alive, escaped);
        let dead: Vec<bool> = alive.iter().map(|a| !a).collect();
        // Blocks reachable from `b` over owning links among the dead ones (`b` itself only
        // through a cycle).
        let reachable = |b: usize| -> Vec<bool> {
            let mut seen = vec![false; n];
            let mut work = vec![b];
            while let Some(x) = work.pop() {
                for (_, c) in self.links_from(x, &dead) {
                    if !seen[c] {
                        seen[c] = true;
                        work.push(c);
                    }
                }
            }
            seen
        };
        let reach: Vec<Vec<bool>> = (0..n).map(|b| if dead[b] { reachable(b) } else { vec![false; n] }).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&b| (self.blocks[b].at.file, self.blocks[b].at.line, self.blocks[b].at.col, b));
        let mut reported = vec![false; n];
        let mut out = Vec::new();
        for &b in &order {
            if !dead[b] || reported[b] || !reach[b][b] {
                continue;
            }
            let members: Vec<bool> = (0..n).map(|c| reach[b][c] && reach[c][b]).collect();
            for c in 0..n {
                reported[c] |= members[c];
            }
            // The shortest way around from `b`, over the cycle's own blocks.
            let mut back: Vec<Option<(usize, &str)>> = vec![None; n];
            let mut queue = VecDeque::from([b]);
            let mut last = None;
            'search: while let Some(x) = queue.pop_front() {
                for (m, c) in self.links_from(x, &members) {
                    if c == b {
                        last = Some((x, m));
                        break 'search;
                    }
                    if back[c].is_none() {
                        back[c] = Some((x, m));
                        queue.push_back(c);
                    }
                }
            }
            let Some((mut x, m)) = last else { continue };
            let mut links = vec![self.link(x, m, b)];
            let mut others = Vec::new();
            while x != b {
                let Some((prev, m)) = back[x] else { break };
                others.push(self.blocks[x].at);
                links.push(self.link(prev, m, x));
                x = prev;
            }
            links.reverse();
            others.reverse();
            out.push(OwnerCycle {
                at: self.blocks[b].at,
                allocator: self.blocks[b].allocator.to_string(),
                links,
                others,
                lost,
            });
        }
        out
    }
}
