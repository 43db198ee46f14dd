//! Per-function views of the CFG that the guarded value-flow check needs.
//!
//! Input: one frozen `ir::Function`.
//! Output: `FnCx` — the loop-bounded acyclic CFG (`Dag`), which locals are trackable, the
//! function's access paths (`Key`, built on first use), reaching definitions on demand, and the
//! branch atoms with their source descriptions. `FnCx::prepare` gives everything but the DAG and
//! its atoms; `complete` adds them.
//! Invariants:
//! - The DAG bounds every loop to one iteration, as FastCheck does (section 5.4): a back edge
//!   `u → h` is redirected to a copy `h*` of the loop header whose only successors are the loop's
//!   exits, reached with guard `true` (the exit test of the second visit is dropped, because the
//!   analysis cannot tell two dynamic instances of one test apart). For a header with no exit
//!   of its own, the copy's edges go to the body's exits, and `Dag::later` describes the later
//!   iteration those edges skip (its nodes and which of its tests the loop cannot change), which
//!   `fastcheck` follows for the cell (ARCHITECTURE.md, `src/cfg.rs`). For a header with exits,
//!   `Dag::again` describes the iteration the loop may run instead of leaving. Both have an
//!   atom of their own (`runs_again`), for `fastcheck` to ask whether one more iteration
//!   overwrites or frees again a local holding the cell.
//! - Every DAG node is either an original block (`DagNode(b)` = `BlockId(b)`) or a header copy
//!   (index ≥ number of blocks). `topo` lists all nodes so that every edge goes forward.
//! - Atoms are created here, site-independently; `fastcheck` only folds the success atom of the
//!   allocation it is checking.

use crate::global_writes::global_root;
use crate::guard::AtomId;
use crate::ir::{
    BlockId, Callee, CmpOp, Cond, CondKind, Function, LocalId, LocalKind, Operand, Place, Rvalue, Stmt, StmtId,
    Terminator,
};
use crate::libmodel::{ArgEffect, RetEffect, Success};
use crate::model::{Model, OTHER_PATH_TEXT};
use hashbrown::{HashMap, HashSet};
use std::cell::RefCell;

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct DagNode(pub u32);

impl DagNode {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The guard on one DAG edge, before site-specific folding.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum EdgeLabel {
    True,
    Lit {
        atom: AtomId,
        positive: bool,
    },
    /// At least one of these atoms holds (a switch target reached by several case values).
    Any(Box<[AtomId]>),
}

pub struct Dag {
    /// DAG node → the block whose statements it executes.
    pub block: Vec<BlockId>,
    pub succs: Vec<Vec<(DagNode, EdgeLabel)>>,
    pub preds: Vec<Vec<DagNode>>,
    /// Position of each node in `topo`.
    pub order: Vec<u32>,
    pub topo: Vec<DagNode>,
    /// Edges dropped because the CFG is irreducible (a jump into the middle of a loop); the
    /// driver counts functions where this happened.
    pub dropped_edges: usize,
    /// Nodes below this index are original blocks; the rest are loop-header copies.
    pub n_blocks: usize,
    /// (header copy, target) → the locals every path of the later iteration defines between
    /// the header and the exit the copy's edge to `target` stands for: the copy jumps there
    /// without those statements, so the locals hold that iteration's (unknown) values, not what
    /// the first iteration left in them. Only loops whose header has no exit of its own.
    pub exit_kills: HashMap<(u32, u32), Box<[LocalId]>>,
    /// Header copy → the later iteration it stands for, for loops whose header has no exit of
    /// its own (the copy then jumps to the body's exits): `LaterIteration`.
    pub later: HashMap<u32, LaterIteration>,
    /// Header copy → the later iteration it stands for, for loops whose header has exits of
    /// its own (the copy leaves through them, so no path skips the body's statements): only
    /// asked whether that iteration may redefine a local still holding the cell before it
    /// touches it (`fastcheck::flow::Later::overwrites`), the loop running again.
    pub again: HashMap<u32, LaterIteration>,
}

/// The statements a header copy's exit skips: the nodes of one loop's body (original blocks,
/// and the copies of the loops nested in it) in topological order, the header first. A path
/// that leaves from the copy ran the header again and then some path through these nodes to
/// the exit; which one is not known, except that every test the loop cannot change goes the
/// way the first iteration went (`invariant`: the edges out of that node keep their labels,
/// every other edge is taken either way). `fastcheck` follows the later iteration this far:
/// which exits it can reach, and which locals it surely defines or frees on the way.
pub struct LaterIteration {
    pub nodes: Box<[DagNode]>,
    /// Parallel to `nodes`: the node's branch tests only what no statement of the loop writes.
    pub invariant: Box<[bool]>,
    /// The locals some statement of the body may free, themselves or through a copy the body
    /// makes of them (sorted): only they can be freed on the way to an exit.
    pub freed: Box<[LocalId]>,
    /// The locals some call of the body may free or keep (`Model::releases_arg`), themselves or
    /// through a copy (sorted): only they can be handed off on the way to an exit.
    pub released: Box<[LocalId]>,
    /// The locals some statement of the body (the header included) defines (sorted).
    pub defined: Box<[LocalId]>,
    /// The atom that says the loop runs again from this copy rather than leaving (`again`), or
    /// before the iteration that leaves (`later`): a free choice, how many iterations run is
    /// not known.
    pub runs_again: Option<AtomId>,
}

impl Dag {
    /// No nodes: a `FnCx` that is only prepared.
    fn empty() -> Dag {
        Dag {
            block: Vec::new(),
            succs: Vec::new(),
            preds: Vec::new(),
            order: Vec::new(),
            topo: Vec::new(),
            dropped_edges: 0,
            n_blocks: 0,
            exit_kills: HashMap::new(),
            later: HashMap::new(),
            again: HashMap::new(),
        }
    }

    /// The locals a later iteration defines on the copy's edge `from → to` (`exit_kills`).
    pub fn kills(&self, from: DagNode, to: DagNode) -> &[LocalId] {
        if from.index() < self.n_blocks || self.exit_kills.is_empty() {
            return &[];
        }
        self.exit_kills.get(&(from.0, to.0)).map_or(&[], |k| k)
    }
    pub fn len(&self) -> usize {
        self.block.len()
    }
    pub fn is_copy(&self, n: DagNode) -> bool {
        n.index() >= self.n_blocks
    }
}

/// Where a local gets its value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Def {
    /// The value on entry (parameters) or uninitialised (locals).
    Entry,
    /// Statement `idx` of DAG node `node`.
    At { node: DagNode, idx: u32 },
    /// The value a later iteration of the loop gave it, on a path that leaves the loop from
    /// `copy`, the loop's header copy: the one-iteration bound does not follow that iteration's
    /// statements, only that they define the local (`Dag::exit_kills`).
    Later { copy: DagNode },
}

/// The bytes `more` slots of a node → `V` memo table take (key, value and control byte).
fn memo_bytes<V>(more: usize) -> usize {
    more * (std::mem::size_of::<(u32, V)>() + 1)
}

/// Nodes per page of a `NodeMemo`.
const MEMO_PAGE: usize = 64;

/// DAGs of more nodes than this keep their per-local memos in maps (`NodeMemo::Sparse`): a page
/// table as long as the DAG for each local asked about would cost more than the pages.
const PAGED_MEMO_NODES: usize = 1 << 16;

/// One local's memo, by DAG node. Paged: a search visits only the nodes between a use and the
/// definitions that reach it, mostly close in node order, so a page is allocated where a search
/// went and a lookup is two indexings, not a hash (SQLite's reaching definitions took 132 M
/// instructions with maps only). A vector as long as the DAG for each local asked about took
/// memory locals × nodes (10,000 sequential loops: 14 GB); the very longest DAGs keep maps.
enum NodeMemo<V> {
    Paged(Vec<Option<Box<[Option<V>; MEMO_PAGE]>>>),
    Sparse(HashMap<u32, V>),
}

impl<V: Copy> NodeMemo<V> {
    /// A memo for a DAG of `nodes` nodes; `budget` is charged for the page table.
    fn new(nodes: usize, budget: &crate::budget::Budget) -> Self {
        if nodes <= PAGED_MEMO_NODES {
            let pages = nodes.div_ceil(MEMO_PAGE);
            budget.grow(pages * std::mem::size_of::<usize>());
            NodeMemo::Paged(vec![None; pages])
        } else {
            NodeMemo::Sparse(HashMap::new())
        }
    }

    #[inline]
    fn get(&self, node: u32) -> Option<V> {
        let node = node as usize;
        match self {
            NodeMemo::Paged(pages) => pages[node / MEMO_PAGE].as_ref().and_then(|p| p[node % MEMO_PAGE]),
            NodeMemo::Sparse(m) => m.get(&(node as u32)).copied(),
        }
    }

    #[inline]
    fn contains(&self, node: u32) -> bool {
        self.get(node).is_some()
    }

    /// Record `value` at `node`: true when that puts the function over its size budget (a page
    /// was allocated, or a map grew).
    fn insert(&mut self, node: u32, value: V, budget: &crate::budget::Budget) -> bool {
        match self {
            NodeMemo::Paged(pages) => {
                let node = node as usize;
                let page = &mut pages[node / MEMO_PAGE];
                let over = page.is_none() && budget.grow(std::mem::size_of::<[Option<V>; MEMO_PAGE]>());
                page.get_or_insert_with(|| Box::new([None; MEMO_PAGE]))[node % MEMO_PAGE] = Some(value);
                over
            }
            NodeMemo::Sparse(m) => {
                let capacity = m.capacity();
                m.insert(node, value);
                m.capacity() != capacity && budget.grow(memo_bytes::<V>(m.capacity() - capacity))
            }
        }
    }
}

/// Sets of definitions, interned: within one `FnCx` the same set always has the same id.
#[derive(Default)]
struct DefSets {
    sets: Vec<std::rc::Rc<[Def]>>,
    ids: HashMap<std::rc::Rc<[Def]>, u32>,
    /// The sets of one definition, by that definition in one word: most sets are, and finding
    /// them does not hash a slice.
    singles: HashMap<u64, u32>,
    /// Bytes the sets take (for the function's size budget).
    bytes: usize,
    /// Answers given past the function's budget (`unknown`).
    unknowns: u32,
}

impl DefSets {
    /// `defs` must be sorted and unique.
    fn intern(&mut self, defs: &[Def]) -> u32 {
        let single = match defs {
            [Def::Entry] => Some(u64::MAX),
            [Def::At { node, idx }] => Some(u64::from(node.0) << 32 | u64::from(*idx)),
            [Def::Later { copy }] => Some(u64::MAX - 1 - u64::from(copy.0)),
            _ => None,
        };
        let found = match single {
            Some(word) => self.singles.get(&word),
            None => self.ids.get(defs),
        };
        if let Some(id) = found {
            return *id;
        }
        let id = self.sets.len() as u32;
        // The slice, the `Rc` counts, and a map entry.
        self.bytes += std::mem::size_of_val(defs) + 48;
        let set: std::rc::Rc<[Def]> = std::rc::Rc::from(defs);
        self.sets.push(set.clone());
        match single {
            Some(word) => self.singles.insert(word, id),
            None => self.ids.insert(set, id),
        };
        id
    }

    fn get(&self, id: u32) -> std::rc::Rc<[Def]> {
        self.sets[id as usize].clone()
    }

    /// The answer past the function's budget: a set equal to no other (a definition of its
    /// own, like a later iteration's), so nothing correlates with it and it is no constant.
    fn unknown(&mut self) -> u32 {
        self.unknowns += 1;
        self.intern(&[Def::Later { copy: DagNode(u32::MAX - self.unknowns) }])
    }
}

/// A tracked slot: a local (`path == 0`), or a place reached from a local by an access path
/// (`s.buf`, `p->buf`, `*out`, `v[]`), named by `FnCx::paths`. A path from a pointer local names
/// the object the local points to *now*: reassigning the local retires its paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub root: LocalId,
    pub path: u32,
}

/// The caller's slots a call's callee leaves fresh cells in (`FnCx::out_path_keys`): whole
/// locals, and access paths below locals; each sorted, unique.
#[derive(Default)]
pub struct OutKeys {
    pub locals: Vec<LocalId>,
    pub paths: Vec<Key>,
}

impl Key {
    pub fn local(l: LocalId) -> Key {
        Key { root: l, path: 0 }
    }
    pub fn is_local(self) -> bool {
        self.path == 0
    }
}

/// The access paths a function names (`FnCx::build_paths`).
struct PathTable {
    /// Access paths of tracked places, by id (`Key::path`); id 0 is the empty path. Each has a
    /// flag: an array element (all indices collapsed), which only gets weak updates.
    paths: Vec<(String, bool)>,
    ids: HashMap<String, u32>,
    /// The path ids named below each local (syntactically, or by a callee's summary), by local;
    /// sorted.
    rooted: Vec<Vec<u32>>,
    /// `key_of` for the places of the function's statements, conditions and returns, and of the
    /// address temporaries' places, by address.
    key_cache: HashMap<usize, Option<Key>>,
}

impl PathTable {
    /// The id of `text` (named below `root`), new if the function did not name it yet.
    fn intern(&mut self, root: LocalId, text: &str, weak: bool) -> u32 {
        let id = match self.ids.entry_ref(text) {
            hashbrown::hash_map::EntryRef::Occupied(e) => *e.get(),
            hashbrown::hash_map::EntryRef::Vacant(e) => {
                let id = self.paths.len() as u32;
                e.insert(id);
                self.paths.push((text.to_string(), weak));
                id
            }
        };
        // Repeats are removed once, at the end of `build_paths`.
        self.rooted[root.index()].push(id);
        id
    }
}

/// Access paths longer than this many steps are not tracked (they escape).
const MAX_PATH_STEPS: usize = 6;

/// The steps of a path text (`*`, `.field`, `[]` each one): the callee's paths below an
/// argument's own prefix can be longer than the caller may track, and a recursive builder of a
/// tree (`make_snapshot_rec(fr->fr_next, &(*frp)->fr_next)`) would otherwise double its paths
/// at every round of its cycle.
fn path_steps(path: &str) -> usize {
    path.bytes().filter(|b| matches!(b, b'*' | b'.' | b'[')).count()
}

/// The path id of "any field of `*p` this function does not name" (`p->…`): what a function
/// does to the parts of an object it never mentions, for its summary.
pub const OTHER_PATH: u32 = 1;
// Its text is `model::OTHER_PATH_TEXT`.

pub struct FnCx<'a> {
    pub func: &'a Function,
    pub dag: Dag,
    /// The work budget of this function's check (time and size), shared by every pass over it.
    pub budget: std::sync::Arc<crate::budget::Budget>,
    /// Locals whose value flow is tracked: scalars whose address is never taken (except to
    /// receive an allocation through a modelled out-parameter, or, for a pointer, by a program
    /// function that holds no pointer to it after the call: `Model::only_during_call`), and
    /// that are not `static`.
    pub tracked: Vec<bool>,
    /// Temporaries defined once as `&x`: temp → x.
    pub addr_temps: HashMap<LocalId, Place>,
    /// Atoms created so far; `AtomId`s are `0..n_atoms`.
    pub n_atoms: u32,
    /// Atom of "call `stmt` succeeded": allocating calls, and calls whose callee frees an
    /// argument depending on its return value.
    pub success_atom: HashMap<StmtId, AtomId>,
    /// (header copy, call) → whether the header's call that the copy runs again succeeded: a
    /// later iteration's call, and the copy leaves the loop only by the side of the header's
    /// test of it that says so (`while ((st = advance(it)) == OK)` leaves when a later call
    /// fails). Only for calls that allocate nothing (`later_success`).
    copy_success: HashMap<(u32, StmtId), bool>,
    /// Atom of "argument `.1` of call `.0` masked by `.2` is non-zero" (mask -1: the whole
    /// value), for callees that free an argument or return a fresh cell depending on a flag
    /// argument. It is the atom a branch on that flag gets at the same point, so
    /// `release(p, owned); if (!owned) free(p);` and `t = scan(s, flags); if (flags & NOALLOC)`
    /// correlate.
    pub flag_atom: HashMap<(StmtId, usize, i64), AtomId>,
    /// Exactly-one groups (switches).
    pub groups: Vec<Vec<AtomId>>,
    /// Atoms that are the disjunction of others: a test of several bits of a word and the
    /// tests of each of those bits (`split_bits`).
    pub ors: Vec<(AtomId, Box<[AtomId]>)>,
    /// Reaching definitions at each node's entry, per local asked about (ids into `DefSets`).
    /// Per local, by node: sparse, because a search visits only the nodes between a use and the
    /// definitions that reach it (a vector as long as the DAG for each local asked about took
    /// memory locals × nodes: 10,000 sequential loops, 14 GB).
    rd_memo: RefCell<(DefSets, HashMap<LocalId, NodeMemo<u32>>)>,
    /// The constant each local asked about holds at each node's entry (`constant_at_entry`).
    const_memo: RefCell<HashMap<LocalId, NodeMemo<Option<i64>>>>,
    /// The caller's slots each call's callee leaves fresh cells in (`out_path_keys`).
    out_keys_memo: RefCell<HashMap<StmtId, std::rc::Rc<OutKeys>>>,
    /// Atoms that test "parameter x masked by m is non-zero" on its entry value (for flag-guarded
    /// frees, mask -1, and allocations).
    pub param_tests: Vec<(AtomId, LocalId, i64)>,
    /// The callee model of every call statement, by `StmtId` (`None` for assignments).
    models: Vec<Option<Model<'a>>>,
    /// The function's access paths and the keys of its places, built on first use: most
    /// functions are summarised by prechecks that never name a path.
    paths: std::cell::OnceCell<PathTable>,
    /// The tests of two pointer locals and the locals they depend on (`equal::Table`), built on
    /// first use.
    equal: std::cell::OnceCell<crate::equal::Table>,
    /// Per local, whether some statement makes it a copy of another local (bit 0: `old = x`, or
    /// the result of a call that returns its argument) and whether some statement copies it (bit
    /// 1), built on first use (`FnCx::is_copy_dst`, `FnCx::is_copy_src`).
    copy_dsts: std::cell::OnceCell<Vec<u8>>,
    /// Local structs and arrays whose address is never taken: their fields are tracked places.
    pub field_aggregates: Vec<bool>,
    /// Pointer locals some statement steps (`p++`, `p += n`, `*++argv = ..`: the IR keeps
    /// pointer arithmetic without its offset, so a step is `p = p`): what they point to is not
    /// one slot from one statement to the next, so slots below them are weak (`is_weak`).
    stepped: Vec<bool>,
    /// Locals that some statement assigns a constant.
    const_assigned: Vec<bool>,
    /// Per block, the (local, statement index) definitions in order.
    block_defs: Grouped<(LocalId, u32)>,
    /// Per local, the blocks that define it, each with the index of its last definition there
    /// (sorted by block): reaching definitions of one local visit only these.
    local_defs: Grouped<(BlockId, u32)>,
    /// Globals and fields of globals some branch or switch tests, directly or in an expression
    /// the front end could not break down (`State & F`), by path (`verbose`, `conv.vc_type`),
    /// sorted. Each has a slot after the locals (`LocalId(locals + i)`) in the reaching
    /// definitions, defined by every statement that may write it: a store into its global or
    /// taking the global's address, a call whose callee may write the global (its summary's
    /// `globals_written`, and for an address-taken global its `fields_written` too: a store
    /// through a pointer to the global names its field, or is a store through a pointer).
    /// Two tests of a global with the same reaching definitions share an atom (`if (verbose)`
    /// twice).
    tested_globals: Vec<String>,
    /// Globals whose value is fixed outside the program's way out (`globals`): tests of them
    /// are constants.
    pub fixed_globals: Option<&'a crate::globals::Fixed>,
    /// Scalar globals whose address is never taken (`globals::unaliased`): no pointer leads to
    /// them. `None`: not known, every global may be reached through a pointer.
    pub unaliased_globals: Option<&'a std::collections::HashSet<String>>,
    /// Globals whose address the program takes (`global_writes::address_taken`); `None`: take
    /// every global as address-taken (any call to the program's functions may write it).
    pub address_taken_globals: Option<&'a [String]>,
    /// Parameters (bit `i` for parameter `i`) that every caller passes non-NULL and the
    /// function never changes (`nonnull::NonNull::fixed_params`): a test of one takes its
    /// non-NULL side.
    pub nonnull_params: u64,
    /// Memory places below tracked pointers that some branch tests (`p->f`, `*p`:
    /// `facts::tested_places`), sorted. Each has a slot after the globals' in the reaching
    /// definitions, defined by every statement that may write it (the pointer reassigned
    /// included): two tests of one place with the same reaching definitions share their atoms,
    /// as two tests of one local do.
    tested_places: Vec<(LocalId, String)>,
    /// The reaching-definition slot after the tested places' that stands for all memory, when
    /// the function calls a library reader (`libmodel::reads_only`): every statement that may
    /// store to memory defines it (`writes_memory`), so two reader calls with the same
    /// arguments and the same definitions of it return the same value.
    memory_slot: Option<LocalId>,
}

/// Lists of items for indices `0..n`, all in one vector: building the lists of every block and
/// local of each function checked allocated one vector apiece.
struct Grouped<T> {
    /// The list of index `i` is `items[at[i]..at[i + 1]]`.
    at: Vec<u32>,
    items: Vec<T>,
}

impl<T> Grouped<T> {
    fn empty() -> Grouped<T> {
        Grouped { at: Vec::new(), items: Vec::new() }
    }

    fn of(&self, i: usize) -> &[T] {
        &self.items[self.at[i] as usize..self.at[i + 1] as usize]
    }
}

/// If a call to `model` allocates: the success notion of the allocation it makes.
pub fn source_success(model: &Model) -> Option<Success> {
    if let RetEffect::Fresh(s) = model.ret {
        return Some(s);
    }
    model
        .args
        .iter()
        .find_map(|(_, e)| match *e {
            ArgEffect::OutFresh(s) => Some(s),
            ArgEffect::OutRealloc => Some(Success::Always),
            _ => None,
        })
        .or_else(|| model.out_paths.first().map(|o| o.2))
}

/// The success notion of a call's return value, if anything the checker tracks depends on it:
/// the call allocates, or frees an argument only when it succeeds or fails, or returns twice
/// (`setjmp`'s first return, 0, is its "success": the cells it holds are followed there only).
pub fn call_success(model: &Model) -> Option<Success> {
    if let Some(s) = source_success(model) {
        return Some(s);
    }
    if model.returns_twice {
        return Some(Success::RetZero);
    }
    let conditional = model.args.iter().any(|(_, e)| matches!(e, ArgEffect::FreesWhen { .. }));
    model.ret_success.filter(|_| conditional)
}

/// Flag arguments a call's effect depends on, with the mask of the bits that matter.
fn flag_args<'m>(model: &'m Model<'_>) -> impl Iterator<Item = (usize, i64)> + 'm {
    let frees = model.args.iter().filter_map(|(_, e)| match e {
        ArgEffect::FreesIfArg { flag, .. } => Some((*flag, -1)),
        _ => None,
    });
    let fields = model.ret_paths_if.iter().map(|(_, (flag, mask, _))| (*flag, *mask));
    frees.chain(model.fresh_if_arg.map(|f| (f.0, f.1))).chain(fields)
}

/// Which locals a check can track, from the function and its callee models alone (the first
/// thing `FnCx::prepare` computes), for passes that need nothing more.
/// `model_of`: the callee model of a call statement, by index (asked only of calls given an
/// address temporary).
pub fn tracked_locals<'m>(func: &Function, model_of: impl Fn(usize) -> Option<&'m Model<'m>>) -> Vec<bool> {
    compute_tracked(func, &find_addr_temps(func, &model_of), model_of)
}

impl<'a> FnCx<'a> {
    /// Everything but the loop-bounded DAG, its atoms and what reaching definitions and constants
    /// need: enough for the flow-insensitive prechecks of a summary
    /// (`fastcheck::summarize_without_flow`). `complete` adds the rest.
    pub fn prepare(func: &'a Function, models: Vec<Option<Model<'a>>>) -> FnCx<'a> {
        let addr_temps = find_addr_temps(func, |si| models.get(si).and_then(|m| m.as_ref()));
        let tracked = compute_tracked(func, &addr_temps, |si| models.get(si).and_then(|m| m.as_ref()));
        let dag = Dag::empty();
        let mut cx = FnCx {
            func,
            dag,
            budget: std::sync::Arc::new(crate::budget::Budget::unlimited()),
            tracked,
            addr_temps,
            n_atoms: 0,
            success_atom: HashMap::new(),
            copy_success: HashMap::new(),
            flag_atom: HashMap::new(),
            groups: Vec::new(),
            ors: Vec::new(),
            rd_memo: RefCell::new((DefSets::default(), HashMap::new())),
            const_memo: RefCell::new(HashMap::new()),
            out_keys_memo: RefCell::new(HashMap::new()),
            param_tests: Vec::new(),
            models,
            paths: std::cell::OnceCell::new(),
            equal: std::cell::OnceCell::new(),
            copy_dsts: std::cell::OnceCell::new(),
            field_aggregates: Vec::new(),
            stepped: Vec::new(),
            const_assigned: Vec::new(),
            block_defs: Grouped::empty(),
            local_defs: Grouped::empty(),
            tested_globals: Vec::new(),
            fixed_globals: None,
            unaliased_globals: None,
            address_taken_globals: None,
            nonnull_params: 0,
            tested_places: Vec::new(),
            memory_slot: None,
        };
        cx.field_aggregates = field_aggregates(func, &cx.addr_temps);
        cx.stepped = vec![false; func.locals.len()];
        for st in &func.stmts {
            if let Stmt::Assign { dst: Place::Local(x), src: Rvalue::Use(Operand::Place(Place::Local(y))) } = st {
                if x == y {
                    cx.stepped[x.index()] = true;
                }
            }
        }
        cx
    }

    /// Which statements define each local, per block and per local, and which locals some
    /// statement assigns a constant: what reaching definitions and `constant_at` start from.
    fn index_definitions(&mut self, tested_places: (Vec<(LocalId, String)>, Vec<Vec<u32>>)) {
        let func = self.func;
        self.tested_globals = tested_globals(func);
        let (places, place_writes) = tested_places;
        self.tested_places = places;
        let first_place = func.locals.len() + self.tested_globals.len();
        let readers = (0..func.stmts.len()).any(|si| self.reader_call(StmtId::from_usize(si)));
        let memory = LocalId::from_usize(first_place + self.tested_places.len());
        self.memory_slot = readers.then_some(memory);
        let mut buf = Vec::new();
        let mut defs: Vec<(LocalId, u32)> = Vec::with_capacity(func.stmts.len());
        let mut at: Vec<u32> = Vec::with_capacity(func.blocks.len() + 1);
        for b in &func.blocks {
            at.push(defs.len() as u32);
            for (i, sid) in b.stmts.iter().enumerate() {
                buf.clear();
                self.defined_locals(*sid, &mut buf);
                if !self.tested_globals.is_empty() {
                    self.written_global_slots(*sid, &mut buf);
                }
                if let Some(ks) = place_writes.get(sid.index()) {
                    buf.extend(ks.iter().map(|k| LocalId::from_usize(first_place + *k as usize)));
                }
                if readers && self.writes_memory(*sid) {
                    buf.push(memory);
                }
                defs.extend(buf.iter().map(|l| (*l, i as u32)));
            }
        }
        at.push(defs.len() as u32);
        // One entry per (local, block), counted first, then filled in block order.
        let n = first_place + self.tested_places.len() + usize::from(readers);
        let mut last_block = vec![u32::MAX; n];
        let mut local_at = vec![0u32; n + 1];
        for b in 0..func.blocks.len() {
            for &(l, _) in &defs[at[b] as usize..at[b + 1] as usize] {
                if std::mem::replace(&mut last_block[l.index()], b as u32) != b as u32 {
                    local_at[l.index() + 1] += 1;
                }
            }
        }
        for l in 0..n {
            local_at[l + 1] += local_at[l];
        }
        let mut next: Vec<u32> = local_at[..n].to_vec();
        let mut by_local = vec![(BlockId(0), 0u32); local_at[n] as usize];
        last_block.fill(u32::MAX);
        for b in 0..func.blocks.len() {
            for &(l, i) in &defs[at[b] as usize..at[b + 1] as usize] {
                if std::mem::replace(&mut last_block[l.index()], b as u32) != b as u32 {
                    next[l.index()] += 1;
                }
                by_local[next[l.index()] as usize - 1] = (BlockId::from_usize(b), i);
            }
        }
        self.block_defs = Grouped { at, items: defs };
        self.local_defs = Grouped { at: local_at, items: by_local };
        self.const_assigned = vec![false; func.locals.len()];
        for (si, st) in func.stmts.iter().enumerate() {
            match st {
                Stmt::Assign { dst: Place::Local(l), src: Rvalue::Use(Operand::Const(_)) } => {
                    self.const_assigned[l.index()] = true;
                }
                Stmt::Assign { dst: Place::Local(l), src: Rvalue::Use(Operand::Place(Place::Global(g))) }
                    if self.fixed_global(g).is_some() =>
                {
                    self.const_assigned[l.index()] = true;
                }
                Stmt::Call { dst: Some(Place::Local(l)), .. }
                    if self.models.get(si).and_then(|m| m.as_ref()).is_some_and(|m| m.ret_const.is_some()) =>
                {
                    self.const_assigned[l.index()] = true;
                }
                _ => {}
            }
        }
    }

    /// Build the loop-bounded DAG and give its edges their atoms. `tested_places`: the memory
    /// places branches test and the statements that may write them (`facts::tested_places` of
    /// this prepared context). `may_free_param`: whether a tracked parameter is one only the
    /// path-sensitive pass can classify (`fastcheck::flow_insensitive_params`), asked only when
    /// the function has flag parameters.
    pub fn complete(
        mut self,
        tested_places: (Vec<(LocalId, String)>, Vec<Vec<u32>>),
        may_free_param: impl FnOnce(&FnCx<'a>) -> bool,
    ) -> FnCx<'a> {
        let func = self.func;
        self.index_definitions(tested_places);
        self.dag = build_dag(func, &self.budget);
        let mut cx = self;
        // Success atoms exist before any site is checked, so checking only reads `FnCx`.
        for s in 0..func.stmts.len() {
            let sid = StmtId::from_usize(s);
            if cx.model(sid).and_then(call_success).is_some() {
                cx.success_atom_of(sid);
            }
        }
        // Correlating tests needs reaching definitions, which only pay off where allocation sites
        // are checked; a function that only gets summarised gets one atom per test.
        let has_flag_calls = cx.models.iter().flatten().any(|m| flag_args(m).next().is_some());
        // Flag parameters matter only to a parameter that may be freed (`FreesIf`).
        let flag_params = func.params().any(|p| !func.local(p).is_pointer && cx.tracked[p.index()]);
        // `None`: a tracked parameter only the path-sensitive pass can classify.
        let may_free_param = flag_params && may_free_param(&cx);
        // Sites without a success atom of their own correlate too: the fields of a struct
        // returned by value (`Model::ret_paths`), the cells a callee leaves below an argument.
        let field_sites = cx
            .models
            .iter()
            .flatten()
            .any(|m| !m.ret_paths.is_empty() || !m.out_paths.is_empty() || !m.global_fresh.is_empty());
        let correlate = !cx.success_atom.is_empty() || has_flag_calls || may_free_param || field_sites;
        cx.label_edges(correlate);
        cx
    }

    /// Record that a pass over this function ran out of time.
    pub fn note_timeout(&self, hit: bool) {
        if hit {
            self.budget.note_time();
        }
    }

    pub fn model(&self, sid: StmtId) -> Option<&Model<'a>> {
        self.models.get(sid.index()).and_then(|m| m.as_ref())
    }

    /// The allocation a statement makes, if it is an allocation site.
    pub fn source_success(&self, sid: StmtId) -> Option<Success> {
        self.model(sid).and_then(source_success)
    }

    /// A call after which the path cannot continue (a callee whose summary never returns).
    pub fn ends_path(&self, sid: StmtId) -> bool {
        self.model(sid).is_some_and(|m| m.noreturn)
    }

    pub fn stmts_of(&self, n: DagNode) -> &'a [StmtId] {
        &self.func.block(self.dag.block[n.index()]).stmts
    }

    /// The tests of two pointer locals that `equal` follows.
    pub fn equal_table(&self) -> &crate::equal::Table {
        self.equal.get_or_init(|| crate::equal::Table::build(self))
    }

    pub fn is_tracked(&self, l: LocalId) -> bool {
        self.tracked[l.index()]
    }

    /// The local whose address an out-parameter argument carries, if it is `&local`.
    pub fn out_param_local(&self, arg: &Operand) -> Option<LocalId> {
        let t = arg.local()?;
        match self.addr_temps.get(&t)? {
            Place::Local(x) => Some(*x),
            _ => None,
        }
    }

    /// The place an out-parameter argument points to (`&s->buf` → `s->buf`).
    pub fn out_param_place(&self, arg: &Operand) -> Option<&Place> {
        self.addr_temps.get(&arg.local()?)
    }

    fn new_atom(&mut self) -> AtomId {
        self.n_atoms += 1;
        AtomId(self.n_atoms - 1)
    }

    /// Whether call `stmt`, run again by the header copy `node`, surely succeeded or failed
    /// (`copy_success`); `None` elsewhere (the call's success atom tells).
    pub fn later_success(&self, node: u32, stmt: StmtId) -> Option<bool> {
        if self.copy_success.is_empty() {
            return None;
        }
        self.copy_success.get(&(node, stmt)).copied()
    }

    pub fn success_atom_of(&mut self, stmt: StmtId) -> AtomId {
        if let Some(a) = self.success_atom.get(&stmt) {
            return *a;
        }
        let a = self.new_atom();
        self.success_atom.insert(stmt, a);
        a
    }

    /// Locals written by statement `sid` (plain destinations and `&x` out-parameters).
    pub fn defined_locals(&self, sid: StmtId, out: &mut Vec<LocalId>) {
        match self.func.stmt(sid) {
            Stmt::Assign { dst: Place::Local(l), .. } => out.push(*l),
            Stmt::Assign { .. } => {}
            Stmt::Call { dst, args, .. } => {
                if let Some(Place::Local(l)) = dst {
                    out.push(*l);
                }
                if let Some(model) = self.model(sid) {
                    for (i, e) in &model.args {
                        if matches!(e, ArgEffect::OutFresh(_) | ArgEffect::OutRealloc) {
                            if let Some(x) = args.get(*i).and_then(|a| self.out_param_local(a)) {
                                out.push(x);
                            }
                        }
                    }
                    for w in model.writes.iter().filter(|w| &*w.path == "*" && model.stores_through(w.param)) {
                        if let Some(x) = args.get(w.param).and_then(|a| self.out_param_local(a)) {
                            out.push(x);
                        }
                    }
                    // `&p` of a pointer given to a program function that may move it during
                    // the call (`compute_tracked`); one that never stores through that
                    // argument leaves it as it was.
                    for (i, a) in args.iter().enumerate() {
                        if model.only_during_call(i) && model.may_store_through(i) {
                            let x = self.out_param_local(a).filter(|x| self.func.local(*x).is_pointer);
                            if let Some(x) = x.filter(|x| !out.contains(x)) {
                                out.push(x);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Statement `sid` calls a reader: a library row or a program function whose result
    /// depends on its arguments and the memory alone, and which writes no memory
    /// (`Model::reads_only`).
    fn reader_call(&self, sid: StmtId) -> bool {
        matches!(self.func.stmt(sid), Stmt::Call { callee: Callee::Direct { .. }, .. })
            && self.model(sid).is_some_and(|m| m.reads_only)
    }

    /// Statement `sid` may store to memory a library reader could read (`memory_slot`): any
    /// store but to a tracked local (whose address no pointer holds); a call whose result goes
    /// to memory; a library row handed a pointer it may write through (not a `const T *`
    /// parameter, not a pointer it only frees: reading a freed block is undefined, so a free
    /// changes no value a valid read sees); a program function that writes a global or
    /// through a pointer (`Model::globals_written`, `fields_written`); any other call.
    fn writes_memory(&self, sid: StmtId) -> bool {
        let plain_local = |p: &Place| matches!(p, Place::Local(l) if self.is_tracked(*l));
        match self.func.stmt(sid) {
            Stmt::Assign { dst, .. } => !plain_local(dst),
            Stmt::Call { dst, callee, args } => {
                if dst.as_ref().is_some_and(|d| !plain_local(d)) {
                    return true;
                }
                let (Callee::Direct { const_args, .. }, Some(m)) = (callee, self.model(sid)) else { return true };
                if m.reads_only || m.pure_value || (m.lib && crate::libmodel::writes_only_streams(m.name)) {
                    return false;
                }
                if !m.lib {
                    return !m.globals_written.is_empty() || !m.fields_written.is_empty();
                }
                args.iter().enumerate().any(|(i, a)| {
                    let handed = match a {
                        Operand::Const(_) | Operand::Str | Operand::Unknown => false,
                        Operand::Func { .. } => true,
                        Operand::Place(Place::Local(l)) => {
                            let d = self.func.local(*l);
                            d.is_pointer || d.is_aggregate
                        }
                        Operand::Place(_) => true,
                    };
                    let read_only = i < 64 && const_args >> i & 1 == 1;
                    let frees = m.args.iter().any(|(j, e)| *j == i && matches!(e, ArgEffect::Frees));
                    handed && !read_only && !frees
                })
            }
        }
    }

    /// The index of the first statement of `node` that defines local `x` (`defined_locals`).
    pub fn first_def(&self, node: DagNode, x: LocalId) -> Option<u32> {
        let defs = self.block_defs.of(self.dag.block[node.index()].index());
        defs.iter().find(|d| d.0 == x).map(|d| d.1)
    }

    /// The definitions of `node`'s statements: (local, statement index) (`defined_locals`).
    /// Some statement makes `l` a copy of another local: a plain copy `l = x`, or `l = f(.., x, ..)`
    /// of a callee that returns that argument (`Model::ret_is_arg`).
    pub fn is_copy_dst(&self, l: LocalId) -> bool {
        self.copies().get(l.index()).is_some_and(|b| b & 1 != 0)
    }

    /// Some statement copies local `l` into another (as `is_copy_dst`).
    pub fn is_copy_src(&self, l: LocalId) -> bool {
        self.copies().get(l.index()).is_some_and(|b| b & 2 != 0)
    }

    fn copies(&self) -> &[u8] {
        self.copy_dsts.get_or_init(|| {
            let mut out = vec![0u8; self.func.locals.len()];
            for (i, st) in self.func.stmts.iter().enumerate() {
                let (d, x) = match st {
                    Stmt::Assign { dst: Place::Local(d), src: Rvalue::Use(Operand::Place(Place::Local(x))) } => {
                        (*d, *x)
                    }
                    Stmt::Call { dst: Some(Place::Local(d)), args, .. } => {
                        let arg = self.models[i]
                            .as_ref()
                            .and_then(|m| m.ret_is_arg.then(|| m.ret_alias()).flatten())
                            .and_then(|k| args.get(k)?.local());
                        match arg {
                            Some(x) => (*d, x),
                            None => continue,
                        }
                    }
                    _ => continue,
                };
                out[d.index()] |= 1;
                out[x.index()] |= 2;
            }
            out
        })
    }

    pub fn block_defs_of(&self, node: DagNode) -> &[(LocalId, u32)] {
        self.block_defs.of(self.dag.block[node.index()].index())
    }

    /// Reaching definitions of `x` just before statement `idx` of `node` (idx = len: before the
    /// terminator). Sorted.
    pub fn reaching_defs(&self, x: LocalId, node: DagNode, idx: usize) -> std::rc::Rc<[Def]> {
        let id = self.reaching_set(x, node, idx);
        self.rd_memo.borrow().0.get(id)
    }

    /// The same set as an id: equal ids are equal sets (within this `FnCx`).
    pub fn reaching_set(&self, x: LocalId, node: DagNode, idx: usize) -> u32 {
        if let Some(i) = self.last_def_before(x, node, idx) {
            return self.rd_memo.borrow_mut().0.intern(&[Def::At { node, idx: i }]);
        }
        self.defs_at_entry(x, node)
    }

    /// The index of the last statement of `node` before `idx` that defines `x`.
    fn last_def_before(&self, x: LocalId, node: DagNode, idx: usize) -> Option<u32> {
        let defs = self.block_defs.of(self.dag.block[node.index()].index());
        defs.iter().rev().find(|(l, i)| *l == x && (*i as usize) < idx).map(|d| d.1)
    }

    fn defs_at_entry(&self, x: LocalId, node: DagNode) -> u32 {
        let mut memo = self.rd_memo.borrow_mut();
        let (sets, by_local) = &mut *memo;
        let defined = self.local_defs.of(x.index());
        // A local no statement defines (a parameter only read) holds its entry value everywhere:
        // no later iteration redefines it either (`Dag::exit_kills` are definitions). Only
        // globals and memory slots are not so plain (a later iteration's value is not followed).
        if defined.is_empty() && x.index() < self.func.locals.len() {
            return sets.intern(&[Def::Entry]);
        }
        let at = by_local.entry(x).or_insert_with(|| NodeMemo::new(self.dag.len(), &self.budget));
        if let Some(id) = at.get(node.0) {
            return id;
        }
        // Past the budget, no more search: an answer that says nothing.
        if self.budget.tick() {
            return sets.unknown();
        }
        // Backwards from `node`, on demand: most locals are defined a block or two before they
        // are tested, so the search stops there; whatever it computes on the way is kept. An
        // explicit stack, so deep CFGs cannot overflow the native one.
        let def_in = |v: DagNode| -> Option<u32> {
            defined.binary_search_by_key(&self.dag.block[v.index()], |d| d.0).ok().map(|j| defined[j].1)
        };
        let entry_set = sets.intern(&[Def::Entry]);
        let mut stack = vec![node];
        let mut union: Vec<Def> = Vec::new();
        // The set at the exit of each predecessor of the node at hand.
        let mut exits: Vec<u32> = Vec::new();
        while let Some(&v) = stack.last() {
            if at.contains(v.0) {
                stack.pop();
                continue;
            }
            // What was computed so far is kept: each entry is exact.
            if self.budget.tick() {
                return sets.unknown();
            }
            let preds = &self.dag.preds[v.index()];
            let mut waiting = false;
            for p in preds {
                if def_in(*p).is_none() && !at.contains(p.0) {
                    stack.push(*p);
                    waiting = true;
                }
            }
            if waiting {
                continue;
            }
            let exit = |p: DagNode, sets: &mut DefSets| {
                // A global's later iteration is not followed either: it may have been written.
                let global = x.index() >= self.func.locals.len();
                if self.dag.kills(p, v).contains(&x) || (global && p.index() >= self.dag.n_blocks) {
                    return sets.intern(&[Def::Later { copy: p }]);
                }
                match def_in(p) {
                    Some(i) => sets.intern(&[Def::At { node: p, idx: i }]),
                    None => at.get(p.0).expect("a predecessor's entry is computed first"),
                }
            };
            exits.clear();
            exits.extend(preds.iter().map(|p| exit(*p, sets)));
            let id = match exits.split_first() {
                None => entry_set,
                Some((&e, rest)) => {
                    if rest.iter().all(|id| *id == e) {
                        e
                    } else {
                        union.clear();
                        for id in &exits {
                            union.extend_from_slice(&sets.sets[*id as usize]);
                        }
                        union.sort_unstable();
                        union.dedup();
                        let before = sets.bytes;
                        let id = sets.intern(&union);
                        if self.budget.grow(sets.bytes - before) {
                            return sets.unknown();
                        }
                        id
                    }
                }
            };
            if at.insert(v.0, id, &self.budget) {
                return sets.unknown();
            }
            stack.pop();
        }
        at.get(node.0).expect("the search ends at its start")
    }

    /// The reaching-definition slot of a tested global or field of a global (`tested_globals`).
    fn global_slot(&self, p: &Place) -> Option<LocalId> {
        if self.tested_globals.is_empty() {
            return None;
        }
        let i = match p {
            Place::Global(g) => self.tested_globals.binary_search_by(|t| t.as_str().cmp(g)).ok()?,
            _ => self.tested_globals.binary_search(&global_path(p)?).ok()?,
        };
        Some(LocalId::from_usize(self.func.locals.len() + i))
    }

    /// The fact-key root of a tested scalar global whose address is never taken
    /// (`unaliased_global`): its reaching-definition slot (`global_slot`). Only stores to it and
    /// calls whose callee may write it (`written_global_slots`) change it, so facts can follow
    /// it as they follow a local (`facts::raw_key`): hunspell's `dmax = 1; while (..) dmax++;`
    /// before `for (i = 0; i < dmax; i++) delete pMS[i]`.
    pub fn global_key_root(&self, p: &Place) -> Option<LocalId> {
        match p {
            Place::Global(g) if self.unaliased_global(g) => self.global_slot(p),
            _ => None,
        }
    }

    /// Slot `l` stands for a tested global (`tested_globals`), not a local of the function.
    pub fn is_global_slot(&self, l: LocalId) -> bool {
        let first = self.func.locals.len();
        (first..first + self.tested_globals.len()).contains(&l.index())
    }

    /// The locals and then the tested globals' slots: what per-slot tables over keys' roots
    /// cover (`facts::Groups`).
    pub fn local_and_global_slots(&self) -> usize {
        self.func.locals.len() + self.tested_globals.len()
    }

    /// The reaching-definition slot of a tested memory place (`tested_places`).
    fn place_slot(&self, p: &Place) -> Option<LocalId> {
        if self.tested_places.is_empty() {
            return None;
        }
        let key = raw_path(p)?;
        let i = self.tested_places.binary_search(&key).ok()?;
        Some(LocalId::from_usize(self.func.locals.len() + self.tested_globals.len() + i))
    }

    /// A local whose one reaching definition copies a tested memory place (`t = var->attributes`,
    /// which the front end makes for a bitwise test of memory): that place's slot and its
    /// reaching definitions at the copy, so the bits of two copies of an unchanged place agree.
    fn copied_place(&self, x: LocalId, defs: u32) -> Option<(LocalId, u32)> {
        if self.tested_places.is_empty() || self.func.local(x).kind != LocalKind::Temp {
            return None;
        }
        let set = self.rd_memo.borrow().0.get(defs);
        let [Def::At { node, idx }] = set[..] else { return None };
        let sid = self.stmts_of(node)[idx as usize];
        let Stmt::Assign { src: Rvalue::Use(Operand::Place(p)), .. } = self.func.stmt(sid) else { return None };
        let slot = self.place_slot(p)?;
        Some((slot, self.reaching_set(slot, node, idx as usize)))
    }

    /// The slots of the tested globals statement `sid` may write (`tested_globals`).
    pub fn written_global_slots(&self, sid: StmtId, out: &mut Vec<LocalId>) {
        let first = self.func.locals.len();
        // Every tested path of global `root` (`conv`, `conv.vc_type`).
        let of_root = |root: &str, out: &mut Vec<LocalId>| {
            for (i, t) in self.tested_globals.iter().enumerate() {
                if path_root(t) == root {
                    out.push(LocalId::from_usize(first + i));
                }
            }
        };
        match self.func.stmt(sid) {
            Stmt::Assign { dst, src } => {
                if let Some(g) = global_root(dst) {
                    of_root(g, out);
                }
                if let Rvalue::AddrOf(p) = src {
                    if let Some(g) = global_root(p) {
                        of_root(g, out);
                    }
                }
            }
            Stmt::Call { dst, callee, .. } => {
                if let Some(g) = dst.as_ref().and_then(global_root) {
                    of_root(g, out);
                }
                if matches!(callee, Callee::Direct { name, .. } if crate::global_writes::is_builtin(name)) {
                    return;
                }
                // Library rows write none of the program's globals (an address passed to them
                // was taken first, which counts above); a summarised callee writes those its
                // summary says, and any global whose address is taken (through a pointer); an
                // unknown callee may write any, but for the C++ standard library's, which write
                // what their arguments reach (`summary::hands_code`).
                match self.model(sid) {
                    Some(m) if m.lib => {}
                    Some(m) if m.known || !matches!(m.globals_written, crate::global_writes::GlobalWrites::All) => {
                        for (i, t) in self.tested_globals.iter().enumerate() {
                            let g = path_root(t);
                            let taken = self
                                .address_taken_globals
                                .is_none_or(|taken| crate::global_writes::is_address_taken(taken, g));
                            // An address-taken global is also written by a store through a
                            // pointer to it, which the callee's field writes name as below an
                            // argument: `conv.vc_type` as `*.vc_type`, `verbose` as `*`.
                            let through = || m.fields_written.may_write_path(&format!("*{}", &t[g.len()..]));
                            if m.globals_written.may_write(g) || (taken && through()) {
                                out.push(LocalId::from_usize(first + i));
                            }
                        }
                    }
                    _ => out.extend((0..self.tested_globals.len()).map(|i| LocalId::from_usize(first + i))),
                }
            }
        }
    }

    /// Locals `a` and `b` surely hold the same value before statement `idx` of `node`: their
    /// reaching definitions lead, through copies, to one definition.
    pub fn same_value(&self, a: LocalId, b: LocalId, node: DagNode, idx: usize) -> bool {
        a == b
            || matches!((self.value_root(a, node, idx, 8), self.value_root(b, node, idx, 8)), (Some(x), Some(y)) if x == y)
    }

    /// The one definition a local's value comes from through copies: (definition, local it
    /// defines). A parameter's entry value is its own.
    pub fn value_root(&self, x: LocalId, node: DagNode, idx: usize, depth: u32) -> Option<(Def, LocalId)> {
        if depth == 0 || !self.is_tracked(x) {
            return None;
        }
        let defs = self.reaching_defs(x, node, idx);
        let [d] = defs.as_ref() else { return None };
        match *d {
            Def::Entry => Some((Def::Entry, x)),
            Def::Later { .. } => None,
            Def::At { node: dn, idx: di } => {
                let sid = self.stmts_of(dn)[di as usize];
                match self.func.stmt(sid) {
                    Stmt::Assign { src: Rvalue::Use(Operand::Place(Place::Local(y))), .. } => {
                        self.value_root(*y, dn, di as usize, depth - 1)
                    }
                    _ => Some((*d, x)),
                }
            }
        }
    }

    /// The single allocating statement every reaching definition of `x` comes from (through
    /// copies), with its success notion.
    pub fn alloc_origin(&self, x: LocalId, node: DagNode, idx: usize) -> Option<(StmtId, Success)> {
        self.origin_depth(x, node, idx, 4, false)
    }

    /// Like `alloc_origin`, for any call whose success the checker tracks (`call_success`).
    fn result_origin(&self, x: LocalId, node: DagNode, idx: usize) -> Option<(StmtId, Success)> {
        self.origin_depth(x, node, idx, 4, true)
    }

    fn origin_depth(
        &self,
        x: LocalId,
        node: DagNode,
        idx: usize,
        depth: u32,
        any_call: bool,
    ) -> Option<(StmtId, Success)> {
        if !self.is_tracked(x) || depth == 0 {
            return None;
        }
        let defs = self.reaching_defs(x, node, idx);
        let mut found: Option<(StmtId, Success)> = None;
        for d in defs.iter() {
            let Def::At { node: dn, idx: di } = *d else { return None };
            let sid = self.stmts_of(dn)[di as usize];
            let stmt = self.func.stmt(sid);
            let this = match stmt {
                // `q = strcpy(p, s)`: `q` is `p` (not `fgets`, NULL when `p` is not).
                Stmt::Call { dst: Some(Place::Local(l)), args, .. }
                    if *l == x && self.model(sid).is_some_and(|m| m.ret_is_arg) =>
                {
                    let Some(RetEffect::ArgAlias(k)) = self.model(sid).map(|m| m.ret) else { return None };
                    let y = args.get(k).and_then(|a| a.local())?;
                    self.origin_depth(y, dn, di as usize, depth - 1, any_call)?
                }
                Stmt::Call { dst: Some(Place::Local(l)), .. } if *l == x => {
                    // The result of an out-parameter allocator tells whether it succeeded, too.
                    let success =
                        if any_call { self.model(sid).and_then(call_success) } else { self.source_success(sid) };
                    (sid, success?)
                }
                Stmt::Assign { src: Rvalue::Use(Operand::Place(Place::Local(y))), .. } => {
                    self.origin_depth(*y, dn, di as usize, depth - 1, any_call)?
                }
                _ => return None,
            };
            match found {
                None => found = Some(this),
                Some(f) if f.0 == this.0 => {}
                Some(_) => return None,
            }
        }
        found
    }

    /// Give every branch edge its atom literal.
    fn label_edges(&mut self, correlate: bool) {
        let n_nodes = self.dag.len();
        // Correlated tests share an atom: same condition over the same reaching definitions.
        let mut by_key: HashMap<TestKey, AtomId> = HashMap::new();
        // Switches over the same unchanged local share per-value atoms, so that two `switch (mode)`
        // go the same way, and so do its tests against constants (`if (c != '$')`, `c == '%'`):
        // one value atom per constant, exactly one of which holds. First collect every value each
        // such local is compared with (and classify the branches once).
        let mut switch_universe: HashMap<TestKey, Vec<i64>> = HashMap::new();
        let mut classes: Vec<Option<CondClass>> = Vec::with_capacity(n_nodes);
        // Tests of a variable that keeps another branch's truth (`FnCx::flag_of_branch`): their
        // edges take that branch's labels once it has them.
        let mut flags: Vec<(DagNode, Flag)> = Vec::new();
        for ni in 0..n_nodes {
            let node = DagNode(ni as u32);
            let term = &self.func.block(self.dag.block[ni]).term;
            if let (true, Terminator::Branch { cond, .. }) = (correlate && !self.dag.is_copy(node), term) {
                if let Some(flag) = self.flag_of_branch(cond, node) {
                    flags.push((node, flag));
                    classes.push(None);
                    continue;
                }
            }
            let class = match term {
                _ if self.dag.is_copy(node) => None,
                Terminator::Switch { on, cases, .. } => {
                    let key = self.switch_key(on, node).filter(|_| correlate).unwrap_or(TestKey::SwitchAt(ni));
                    switch_universe.entry(key).or_default().extend(cases.iter().map(|c| c.0));
                    None
                }
                Terminator::Branch { cond, .. } => {
                    let idx = self.stmts_of(node).len();
                    // A test of bits of a local (`flags & F`): the key a flag argument gets.
                    let bits = match &cond.kind {
                        CondKind::Truthy(op) if correlate => self.bit_test(op, node, idx, -1).filter(|t| t.through),
                        _ => None,
                    };
                    // A test of a fixed global (`globals`) is a constant, whatever its text (and
                    // without reaching definitions, so also when tests are not correlated).
                    let fixed = match &cond.kind {
                        CondKind::Truthy(Operand::Place(Place::Global(g))) => self.fixed_global(g).map(|k| k != 0),
                        CondKind::Cmp(op, a, b) => {
                            let global = |o: &Operand| match o {
                                Operand::Place(Place::Global(g)) => self.fixed_global(g),
                                _ => None,
                            };
                            let value = |o: &Operand| match o {
                                Operand::Const(k) => Some(*k),
                                _ => global(o),
                            };
                            // At least one side a fixed global, the other a constant too.
                            match (global(a).or(global(b)), value(a), value(b)) {
                                (Some(_), Some(x), Some(y)) => Some(op.eval(x, y)),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    let text_key = if correlate && bits.is_none() && fixed.is_none() {
                        self.text_key(cond, node, idx)
                    } else {
                        None
                    };
                    let class = match (bits, text_key) {
                        _ if fixed.is_some() => CondClass::Const(fixed == Some(true)),
                        (Some(t), _) => CondClass::Bits(t),
                        (None, Some((key, holds))) => CondClass::Text(key, holds),
                        (None, None) if correlate => self.classify_cond(&cond.kind, node, idx),
                        (None, None) => CondClass::Opaque,
                    };
                    if let CondClass::Pure(key) = &class {
                        if let Some((on, k, _)) = value_test(key) {
                            switch_universe.entry(on).or_default().push(k);
                        }
                    }
                    Some(class)
                }
                _ => None,
            };
            classes.push(class);
        }
        for u in switch_universe.values_mut() {
            u.sort_unstable();
            u.dedup();
        }
        let mut switch_atoms: HashMap<TestKey, (Vec<i64>, Vec<AtomId>)> = HashMap::new();
        // Calls whose success atom is already defined by the value atoms of a switch on the result.
        let mut linked: HashSet<(StmtId, Vec<AtomId>)> = HashSet::new();
        // Loop headers whose branch tests the success of a call in the header itself that
        // allocates nothing (`while ((st = advance(it)) == OK)`, `advance` freeing `it` when it
        // fails): a copy of the header runs that call again.
        let mut header_success: HashMap<BlockId, (StmtId, bool)> = HashMap::new();
        for ni in self.dag.n_blocks..n_nodes {
            let b = self.dag.block[ni];
            let Some(orig) = (0..self.dag.n_blocks).find(|&j| self.dag.block[j] == b) else { continue };
            if let Some(CondClass::Success { stmt, then_on_success }) = &classes[orig] {
                let own = self.func.block(b).stmts.contains(stmt);
                if own && self.model(*stmt).is_some_and(|m| source_success(m).is_none()) {
                    header_success.insert(b, (*stmt, *then_on_success));
                }
            }
        }
        // Flag arguments first: a branch on the same unchanged local later finds the atom.
        for ni in 0..self.dag.n_blocks {
            let node = DagNode(ni as u32);
            for (idx, sid) in self.stmts_of(node).iter().enumerate() {
                let Stmt::Call { args, .. } = self.func.stmt(*sid) else { continue };
                let flags: Vec<(usize, i64)> = self.model(*sid).map(|m| flag_args(m).collect()).unwrap_or_default();
                for (flag, mask) in flags {
                    let Some(arg) = args.get(flag) else { continue };
                    // The bits of the flag, through `flags | OTHER` and `flags |= c ? OTHER : 0`.
                    let (key, tested) = match self.bit_test(arg, node, idx, mask).filter(|_| correlate) {
                        Some(t) => (self.bit_key(t), Some(t)),
                        None if mask == -1 => {
                            let kind = CondKind::Truthy(arg.clone());
                            match if correlate { self.pure_key(&kind, node, idx) } else { CondClass::Opaque } {
                                CondClass::Pure(key) => (key, None),
                                _ => continue,
                            }
                        }
                        None => continue,
                    };
                    let atom = match by_key.get(&key) {
                        Some(a) => *a,
                        None => {
                            let a = self.new_atom();
                            by_key.insert(key, a);
                            match tested {
                                Some(t) => {
                                    self.note_bit_test(a, t);
                                    self.split_bits(a, t, &mut by_key);
                                }
                                None => self.note_param_test(a, arg, node, idx),
                            }
                            a
                        }
                    };
                    self.flag_atom.insert((*sid, flag, mask), atom);
                }
            }
        }
        // Per original node: the locals and slots its branch test reads, when its atoms are
        // keyed by them alone (`None`: a test whose atom is new each time it runs).
        let mut reads: Vec<Option<Vec<LocalId>>> = vec![None; self.dag.n_blocks];
        for ni in 0..n_nodes {
            let node = DagNode(ni as u32);
            if self.dag.is_copy(node) {
                // The copy leaves by the header's own test of its call, on one side only: the
                // later call's outcome is known there, and so is whether it freed what it frees
                // on failure.
                let block = self.dag.block[ni];
                if let (Some(&(stmt, then_on_success)), Terminator::Branch { then_, else_, .. }) =
                    (header_success.get(&block), &self.func.block(block).term)
                {
                    let blocks = &self.dag.block;
                    let sides: Vec<Option<bool>> = self.dag.succs[ni]
                        .iter()
                        .map(|(t, _)| {
                            let b = blocks[t.index()];
                            (b == *then_ || b == *else_).then_some(b == *then_)
                        })
                        .collect();
                    if let Some(Some(goes_then)) = sides.first().copied() {
                        if sides.iter().all(|s| *s == Some(goes_then)) {
                            self.copy_success.insert((ni as u32, stmt), goes_then == then_on_success);
                        }
                    }
                }
                // A loop leaves through one of its exits after the first iteration.
                let n_exits = self.dag.succs[ni].len();
                if n_exits > 1 {
                    let group: Vec<AtomId> = (0..n_exits).map(|_| self.new_atom()).collect();
                    for (i, (_, label)) in self.dag.succs[ni].iter_mut().enumerate() {
                        *label = EdgeLabel::Lit { atom: group[i], positive: true };
                    }
                    self.groups.push(group);
                }
                continue;
            }
            if flags.iter().any(|(m, _)| *m == node) {
                continue;
            }
            let block = self.dag.block[ni];
            let func = self.func;
            match &func.block(block).term {
                Terminator::Branch { cond, then_, else_ } => {
                    let idx = self.stmts_of(node).len();
                    let class = classes[ni].take().unwrap_or(CondClass::Opaque);
                    reads[ni] = class_reads(&class).map(|mut r| {
                        // What holds of the first iteration's locals is folded into the key or
                        // the side (`len == cap` with `len = 0` before the loop, `p == mesg`
                        // after `p = mesg`): the test reads them.
                        if matches!(class, CondClass::Pure(_) | CondClass::Const(_)) {
                            match &cond.kind {
                                CondKind::Cmp(_, a, b) => r.extend(a.local().into_iter().chain(b.local())),
                                CondKind::Truthy(a) => r.extend(a.local()),
                                CondKind::Opaque => {}
                            }
                        }
                        r
                    });
                    let (atom, positive) = match class {
                        CondClass::Const(holds) => {
                            for (target, label) in self.dag.succs[ni].iter_mut() {
                                let goes_then = self.dag.block[target.index()] == *then_;
                                *label =
                                    if goes_then == holds { EdgeLabel::True } else { EdgeLabel::Any(Box::new([])) };
                            }
                            continue;
                        }
                        CondClass::Success { stmt, then_on_success } => (self.success_atom_of(stmt), then_on_success),
                        CondClass::Pure(key) if value_test(&key).is_some() => {
                            let Some((on, k, equal)) = value_test(&key) else { continue };
                            let (universe, group) = self.switch_group(on, &switch_universe, &mut switch_atoms);
                            match universe.binary_search(&k) {
                                Ok(i) => (group[i], equal),
                                Err(_) => (self.new_atom(), true),
                            }
                        }
                        CondClass::Pure(key) => match by_key.get(&key) {
                            Some(a) => (*a, true),
                            None => {
                                let a = self.new_atom();
                                by_key.insert(key, a);
                                if let CondKind::Truthy(op) = &cond.kind {
                                    self.note_param_test(a, op, node, idx);
                                }
                                (a, true)
                            }
                        },
                        // The atom says "the temporary is non-zero"; the branch goes `then_` when it is.
                        CondClass::Text(key, then_when_holds) => match by_key.get(&key) {
                            Some(a) => (*a, then_when_holds),
                            None => {
                                let a = self.new_atom();
                                by_key.insert(key, a);
                                (a, then_when_holds)
                            }
                        },
                        CondClass::Bits(t) => match by_key.get(&self.bit_key(t)) {
                            Some(a) => (*a, true),
                            None => {
                                let a = self.new_atom();
                                by_key.insert(self.bit_key(t), a);
                                self.note_bit_test(a, t);
                                self.split_bits(a, t, &mut by_key);
                                (a, true)
                            }
                        },
                        CondClass::Opaque => (self.new_atom(), true),
                    };
                    for (target, label) in self.dag.succs[ni].iter_mut() {
                        // A copy of a loop header executes the header's block, so comparing
                        // blocks finds the branch side for redirected back edges too.
                        let goes_then = self.dag.block[target.index()] == *then_;
                        *label = EdgeLabel::Lit { atom, positive: if goes_then { positive } else { !positive } };
                    }
                    if then_ == else_ {
                        for (_, label) in self.dag.succs[ni].iter_mut() {
                            *label = EdgeLabel::True;
                        }
                    }
                }
                Terminator::Switch { on, cases, default } => {
                    // A switch on a value known here goes to one target.
                    if let Some(k) = self.invariant_constant(on, node, self.stmts_of(node).len()).filter(|_| correlate)
                    {
                        // A constant the first iteration's local holds is not one of a later
                        // iteration.
                        reads[ni] = Some(on.local().into_iter().collect());
                        let to = cases.iter().find(|c| c.0 == k).map_or(*default, |c| c.1);
                        let Dag { succs, block: blocks, .. } = &mut self.dag;
                        for (target, label) in succs[ni].iter_mut() {
                            *label = if blocks[target.index()] == to {
                                EdgeLabel::True
                            } else {
                                EdgeLabel::Any(Box::new([]))
                            };
                        }
                        continue;
                    }
                    let key = self.switch_key(on, node).filter(|_| correlate).unwrap_or(TestKey::SwitchAt(ni));
                    reads[ni] = key_reads(&key);
                    let (universe, group) = self.switch_group(key, &switch_universe, &mut switch_atoms);
                    if correlate {
                        self.link_switch_success(on, node, &universe, &group, &mut linked);
                    }
                    // Target → the value atoms that lead there; default also takes every value this
                    // switch does not list, and "none of the values". One pass over the universe:
                    // big switches (a parser's reduce actions, an interpreter loop) have hundreds
                    // of cases, and a search per target and value was cubic in that.
                    let listed: HashMap<i64, BlockId> = cases.iter().rev().map(|c| (c.0, c.1)).collect();
                    let mut by_target: HashMap<BlockId, Vec<AtomId>> = HashMap::new();
                    for (i, val) in universe.iter().enumerate() {
                        let t = listed.get(val).copied().unwrap_or(*default);
                        by_target.entry(t).or_default().push(group[i]);
                    }
                    by_target.entry(*default).or_default().push(group[universe.len()]);
                    // Split borrows: labels change, the node → block map is only read.
                    let Dag { succs, block: blocks, .. } = &mut self.dag;
                    for (target, label) in succs[ni].iter_mut() {
                        // A copy of a loop header executes the header's block: compare blocks.
                        let atoms: &[AtomId] = by_target.get(&blocks[target.index()]).map_or(&[], |v| v.as_slice());
                        *label = match atoms {
                            [] => EdgeLabel::Any(Box::new([])),
                            [a] => EdgeLabel::Lit { atom: *a, positive: true },
                            _ if atoms.len() == group.len() => EdgeLabel::True,
                            _ => EdgeLabel::Any(atoms.into()),
                        };
                    }
                }
                _ => {}
            }
        }
        self.label_flag_tests(&mut flags);
        self.mark_invariant(&reads);
    }

    /// A switch on the result of a call whose success is told by return constants
    /// (`Success::Range`, `RetZero`) goes to a case of success exactly when the call succeeded:
    /// tmux's `switch (window_pane_start_input (wp, item, &cause)) { case -1: free (cause); ..
    /// case 0: .. }` frees the message only where it was made. The call's success atom is
    /// defined as the disjunction of the value atoms that mean success (`FnCx::ors`): those of
    /// the success values when the switch's values name them all, or else every value but the
    /// failure ones (and "none of them") when those are all named. A switch that names neither
    /// side whole keeps its atoms apart, as before.
    fn link_switch_success(
        &mut self,
        on: &Operand,
        node: DagNode,
        universe: &[i64],
        group: &[AtomId],
        linked: &mut HashSet<(StmtId, Vec<AtomId>)>,
    ) {
        let Some(x) = on.local() else { return };
        let Some((stmt, success)) = self.result_origin(x, node, self.stmts_of(node).len()) else { return };
        let (ok, fail) = match success {
            Success::Range { ok, fail } => (ok, Some(fail)),
            Success::RetZero => ((0, 0), None),
            _ => return,
        };
        let named = |(lo, hi): (i64, i64)| {
            hi.checked_sub(lo).is_some_and(|n| n < 64) && (lo..=hi).all(|v| universe.binary_search(&v).is_ok())
        };
        let within = |v: i64, (lo, hi): (i64, i64)| lo <= v && v <= hi;
        let parts: Vec<AtomId> = if named(ok) {
            universe.iter().zip(group).filter(|(v, _)| within(**v, ok)).map(|(_, a)| *a).collect()
        } else if let Some(fail) = fail.filter(|f| named(*f)) {
            let listed = universe.iter().zip(group).filter(|(v, _)| !within(**v, fail)).map(|(_, a)| *a);
            listed.chain(group.get(universe.len()).copied()).collect()
        } else {
            return;
        };
        if linked.insert((stmt, parts.clone())) {
            let atom = self.success_atom_of(stmt);
            self.ors.push((atom, parts.into_boxed_slice()));
        }
    }

    /// A branch of `node` that tests a variable whose only reaching definitions are the two
    /// constants the two sides of one earlier branch store (`on_heap = n > 10` lowers so, as
    /// `ok = p && q` does): it goes the way that branch went, as one of the sides says.
    fn flag_of_branch(&self, cond: &Cond, node: DagNode) -> Option<Flag> {
        let (x, op, k) = match &cond.kind {
            CondKind::Truthy(Operand::Place(Place::Local(x))) => (*x, CmpOp::Ne, 0),
            CondKind::Cmp(op, Operand::Place(Place::Local(x)), Operand::Const(k)) => (*x, *op, *k),
            CondKind::Cmp(op, Operand::Const(k), Operand::Place(Place::Local(x))) => (*x, op.swapped(), *k),
            _ => return None,
        };
        if self.func.local(x).kind == LocalKind::Temp || !self.is_tracked(x) || !self.const_assigned[x.index()] {
            return None;
        }
        let defs = self.reaching_defs(x, node, self.stmts_of(node).len());
        let [Def::At { node: d1, idx: i1 }, Def::At { node: d2, idx: i2 }] = defs[..] else { return None };
        let value = |d: DagNode, i: u32| match self.func.stmt(self.stmts_of(d)[i as usize]) {
            Stmt::Assign { src: Rvalue::Use(Operand::Const(c)), .. } => Some(*c),
            _ => None,
        };
        let (v1, v2) = (value(d1, i1)?, value(d2, i2)?);
        // Each side entered only from the branch.
        let [b] = self.dag.preds[d1.index()][..] else { return None };
        if self.dag.preds[d2.index()][..] != [b] || self.dag.is_copy(b) {
            return None;
        }
        let Terminator::Branch { then_, else_, .. } = &self.func.block(self.dag.block[b.index()]).term else {
            return None;
        };
        let (on_then, on_else) = if self.dag.block[d1.index()] == *then_ && self.dag.block[d2.index()] == *else_ {
            (v1, v2)
        } else if self.dag.block[d2.index()] == *then_ && self.dag.block[d1.index()] == *else_ {
            (v2, v1)
        } else {
            return None;
        };
        Some(Flag { branch: b, then_holds: op.eval(on_then, k), else_holds: op.eval(on_else, k) })
    }

    /// Gives each flag test (`flag_of_branch`) the labels of its branch's edges: the `then_`
    /// edge's where the test holds on that side, the `else_` edge's where it holds on the other,
    /// both or neither where it holds on both or neither. A flag of a flag waits for its branch.
    fn label_flag_tests(&mut self, flags: &mut Vec<(DagNode, Flag)>) {
        while !flags.is_empty() {
            let before = flags.len();
            let mut i = 0;
            while i < flags.len() {
                let (m, flag) = flags[i];
                if flags.iter().any(|(n, _)| *n == flag.branch) {
                    i += 1;
                    continue;
                }
                flags.swap_remove(i);
                let b = flag.branch.index();
                let Terminator::Branch { then_, .. } = self.func.block(self.dag.block[b]).term else { continue };
                let side = |goes_then: bool| {
                    self.dag.succs[b]
                        .iter()
                        .find(|(t, _)| (self.dag.block[t.index()] == then_) == goes_then)
                        .map_or(EdgeLabel::True, |e| e.1.clone())
                };
                let (when_then, when_else) = (side(true), side(false));
                let label = |holds_then: bool, holds_else: bool| match (holds_then, holds_else) {
                    (true, true) => EdgeLabel::True,
                    (false, false) => EdgeLabel::Any(Box::new([])),
                    (true, false) => when_then.clone(),
                    (false, true) => when_else.clone(),
                };
                let (test_true, test_false) =
                    (label(flag.then_holds, flag.else_holds), label(!flag.then_holds, !flag.else_holds));
                let Terminator::Branch { then_: m_then, .. } = self.func.block(self.dag.block[m.index()]).term else {
                    continue;
                };
                let Dag { succs, block: blocks, .. } = &mut self.dag;
                for (target, label) in succs[m.index()].iter_mut() {
                    *label = if blocks[target.index()] == m_then { test_true.clone() } else { test_false.clone() };
                }
            }
            if flags.len() == before {
                // A cycle of flags cannot be: each one's branch comes before it.
                break;
            }
        }
    }

    /// Which tests of each loop's later iteration go the way the first iteration's went
    /// (`LaterIteration::invariant`): those whose atom is keyed by locals and slots (globals,
    /// places) that no statement of the loop defines, so the test sees the same definitions,
    /// and gets the same atom, in every iteration.
    fn mark_invariant(&mut self, reads: &[Option<Vec<LocalId>>]) {
        let mut defined: Vec<LocalId> = Vec::new();
        let mut freed: Vec<LocalId> = Vec::new();
        let mut released: Vec<LocalId> = Vec::new();
        let Dag { later, again, n_blocks, .. } = &mut self.dag;
        // Plain copies `d = y` anywhere in the body, (d, y).
        let mut copies: Vec<(LocalId, LocalId)> = Vec::new();
        for it in later.values_mut().chain(again.values_mut()) {
            defined.clear();
            freed.clear();
            released.clear();
            copies.clear();
            // Nested loops make this quadratic in the nesting: past the budget no iteration
            // knows anything (below), and the function is over its budget anyway.
            if self.budget.tick() {
                break;
            }
            let mut cut = false;
            for v in it.nodes.iter().filter(|v| v.index() < *n_blocks) {
                if self.budget.tick() {
                    cut = true;
                    break;
                }
                defined.extend(self.block_defs.of(v.index()).iter().map(|d| d.0));
                // Temporaries of the block → the local they copy (as `later_effect` follows them).
                let mut copy_of: smallvec::SmallVec<[(LocalId, LocalId); 4]> = smallvec::SmallVec::new();
                for sid in &self.func.blocks[v.index()].stmts {
                    let source = |y: LocalId| copy_of.iter().find(|c| c.0 == y).map_or(y, |c| c.1);
                    let (args, dst, model) = match self.func.stmt(*sid) {
                        Stmt::Call { args, dst, .. } => {
                            (args, dst, self.models.get(sid.index()).and_then(|m| m.as_ref()))
                        }
                        Stmt::Assign { dst: Place::Local(d), src: Rvalue::Use(Operand::Place(Place::Local(y))) } => {
                            copies.push((*d, *y));
                            let y = source(*y);
                            copy_of.push((*d, y));
                            continue;
                        }
                        _ => continue,
                    };
                    for (i, a) in args.iter().enumerate() {
                        let Some(m) = model else { continue };
                        if matches!(m.arg_effect(i), Some(ArgEffect::Frees | ArgEffect::FreesWhen { .. })) {
                            freed.extend(a.local().map(source));
                        }
                        if m.releases_arg(i) {
                            released.extend(a.local().map(source));
                        }
                    }
                    let copied = model.and_then(|m| m.ret_is_arg.then(|| m.ret_alias()).flatten());
                    if let (Some(Place::Local(d)), Some(y)) = (dst, copied.and_then(|i| args.get(i)?.local())) {
                        let y = source(y);
                        copy_of.push((*d, y));
                    }
                }
            }
            if cut {
                break;
            }
            // A local copied into one the body frees (`old = stack; .. stack = grown; ..
            // free (old)`, in other nodes) may have its value freed too: `later_effect` decides
            // on the paths (`copy_freed`). A few rounds for copies of copies.
            for set in [&mut freed, &mut released] {
                for _ in 0..3 {
                    let more: Vec<LocalId> =
                        copies.iter().filter(|(d, y)| set.contains(d) && !set.contains(y)).map(|c| c.1).collect();
                    if more.is_empty() {
                        break;
                    }
                    set.extend(more);
                }
            }
            freed.sort_unstable();
            freed.dedup();
            it.freed = freed.as_slice().into();
            released.sort_unstable();
            released.dedup();
            it.released = released.as_slice().into();
            defined.sort_unstable();
            defined.dedup();
            let mut invariant = Vec::with_capacity(it.nodes.len());
            for v in it.nodes.iter() {
                let r = reads.get(v.index()).and_then(|r| r.as_ref());
                invariant.push(r.is_some_and(|r| r.iter().all(|x| defined.binary_search(x).is_err())));
            }
            it.invariant = invariant.into();
            it.defined = defined.as_slice().into();
        }
        if self.budget.over() {
            // All of them, whichever the map's order reached: no invariant test, nothing freed,
            // released or defined, and no `again`.
            for it in self.dag.later.values_mut() {
                it.invariant = vec![false; it.nodes.len()].into();
                (it.freed, it.released, it.defined) = (Box::new([]), Box::new([]), Box::new([]));
            }
            self.dag.again.clear();
        }
        // In the copies' order, so atom numbers do not depend on the maps'.
        let mut copies: Vec<u32> = self.dag.again.keys().chain(self.dag.later.keys()).copied().collect();
        copies.sort_unstable();
        for c in copies {
            let atom = self.new_atom();
            if let Some(it) = self.dag.again.get_mut(&c).or(self.dag.later.get_mut(&c)) {
                it.runs_again = Some(atom);
            }
        }
    }

    /// The values a switch key's local is compared with, and their atoms (one per value and one
    /// for "none of them", exactly one of which holds), made the first time the key is met.
    fn switch_group(
        &mut self,
        key: TestKey,
        universes: &HashMap<TestKey, Vec<i64>>,
        made: &mut HashMap<TestKey, (Vec<i64>, Vec<AtomId>)>,
    ) -> (Vec<i64>, Vec<AtomId>) {
        if let Some(x) = made.get(&key) {
            return x.clone();
        }
        let universe = universes.get(&key).cloned().unwrap_or_default();
        let mut group: Vec<AtomId> = universe.iter().map(|_| self.new_atom()).collect();
        group.push(self.new_atom());
        self.groups.push(group.clone());
        made.insert(key, (universe.clone(), group.clone()));
        (universe, group)
    }

    /// `Some(i)` when local `l` is parameter `i`.
    pub fn param_index(&self, l: LocalId) -> Option<usize> {
        (l.index() < self.func.n_params as usize).then_some(l.index())
    }

    /// The path table, built by the first question about paths.
    fn table(&self) -> &PathTable {
        self.paths.get_or_init(|| self.build_paths())
    }

    /// The text of a path id.
    pub fn path_text(&self, id: u32) -> &str {
        self.table().paths.get(id as usize).map_or("", |p| p.0.as_str())
    }

    /// The id of a path this function names, by its text.
    pub fn path_id(&self, text: &str) -> Option<u32> {
        self.table().ids.get(text).copied()
    }

    /// The caller's slots that an argument lets a callee reach, as (root, prefix): the callee's
    /// `*p` + `rest` is the caller's `(root, prefix + rest)`. A pointer local `y` gives `(y, "*")`;
    /// `&s` of a local struct gives `(s, "")`, `&p` of a pointer local `(p, "")` (the callee's
    /// `*pp` is `p` itself), `&s->f` gives `(s, "*.f")`.
    /// The prefix is borrowed in the common cases (`*`, and `` for `&x`): this is asked at
    /// every call of every pass.
    pub fn arg_slots(&self, arg: &Operand) -> Option<(LocalId, std::borrow::Cow<'static, str>)> {
        let t = arg.local()?;
        match self.addr_temps.get(&t) {
            Some(Place::Local(l)) => Some((*l, std::borrow::Cow::Borrowed(""))),
            Some(place) => {
                let mut prefix = String::new();
                let (root, _) = self.path_into(place, &mut prefix)?;
                Some((root, std::borrow::Cow::Owned(prefix)))
            }
            None => {
                (self.is_tracked(t) && self.func.local(t).is_pointer).then_some((t, std::borrow::Cow::Borrowed("*")))
            }
        }
    }

    /// `arg_slots` with the prefix written into `out` (cleared first), so that building paths
    /// from it allocates nothing in the common cases.
    fn arg_prefix(&self, arg: &Operand, out: &mut String) -> Option<LocalId> {
        out.clear();
        let (root, prefix) = self.arg_slots(arg)?;
        out.push_str(&prefix);
        Some(root)
    }

    /// The caller's slot for what a callee leaves at `callee_path` below argument `arg`.
    pub fn callee_slot(&self, arg: &Operand, callee_path: &str) -> Option<Key> {
        let mut path = String::new();
        let root = self.arg_prefix(arg, &mut path)?;
        path.push_str(callee_path.get(1..)?);
        if path.is_empty() {
            return Some(Key::local(root));
        }
        let id = *self.table().ids.get(path.as_str())?;
        Some(Key { root, path: id })
    }

    /// The caller's slots where the callee of call `sid` leaves fresh cells below its arguments
    /// (`Model::out_paths`, by `callee_slot`). Once per call: every site's pass asks at every
    /// call, and a callee that fills a large structure has thousands of paths (vim), so the
    /// access paths come sorted for a sweep of the state rather than one lookup each.
    /// A path whose cell the callee leaves where it is (`PathFate::Reads` in its heap effects)
    /// is no access path here: the callee stores a fresh cell there only where it finds none,
    /// as a lazy initialisation does (`if (!s->formats) s->formats = create ();`), so a cell
    /// the caller keeps there survives the call.
    pub fn out_path_keys(&self, sid: StmtId, args: &[Operand]) -> std::rc::Rc<OutKeys> {
        if let Some(keys) = self.out_keys_memo.borrow().get(&sid) {
            return keys.clone();
        }
        let mut keys = OutKeys::default();
        if let Some(m) = self.model(sid) {
            for (i, path, _) in &m.out_paths {
                let Some(k) = args.get(*i).and_then(|a| self.callee_slot(a, path)) else { continue };
                if k.is_local() {
                    keys.locals.push(k.root);
                } else if m.path_fate(*i, path) != crate::model::PathFate::Reads {
                    keys.paths.push(k);
                }
            }
        }
        keys.locals.sort_unstable();
        keys.locals.dedup();
        keys.paths.sort_unstable();
        keys.paths.dedup();
        let keys = std::rc::Rc::new(keys);
        self.out_keys_memo.borrow_mut().insert(sid, keys.clone());
        keys
    }

    /// The slot at `path` inside the object local `l` holds (a constructor's result), or in the
    /// struct `l` is (a struct returned by value).
    pub fn result_slot(&self, l: LocalId, path: &str) -> Option<Key> {
        // Below a pointer result (`*.buf`), or in a struct returned by value (`.data`).
        let ok = if path.starts_with('*') { self.is_tracked(l) } else { self.field_aggregates[l.index()] };
        if !ok {
            return None;
        }
        let id = *self.table().ids.get(path)?;
        Some(Key { root: l, path: id })
    }

    /// `result_slot` for a result stored into any place: a local, or a slot below one (`o.b`,
    /// `p->f`), where the cell at `path` inside the result is at the slot's path followed by
    /// `path`.
    pub fn result_place_slot(&self, dst: &Place, path: &str) -> Option<Key> {
        if let Place::Local(l) = dst {
            return self.result_slot(*l, path);
        }
        let mut text = String::new();
        let (root, _) = self.path_into(dst, &mut text)?;
        text.push_str(path);
        let id = *self.table().ids.get(text.as_str())?;
        Some(Key { root, path: id })
    }

    /// The tracked slot a place is, if any.
    pub fn key_of(&self, place: &Place) -> Option<Key> {
        if let Place::Local(l) = place {
            return self.is_tracked(*l).then(|| Key::local(*l));
        }
        // Places of the function's own statements are looked up by address (they never move:
        // the IR is frozen); others are computed.
        let table = self.table();
        if let Some(k) = table.key_cache.get(&(place as *const Place as usize)) {
            return *k;
        }
        let mut path = String::new();
        self.table_key(table, place, &mut path)
    }

    /// The object a pointer read from `place` points to, as the root and the access-path prefix
    /// of the slots inside it (`s.data` → `s`, `.data*`): what a library call given `s.data`
    /// reaches, and what `free(s.data)` releases.
    pub fn pointee_prefix(&self, place: &Place) -> Option<(LocalId, String)> {
        let k = self.key_of(place)?;
        Some((k.root, format!("{}*", self.path_text(k.path))))
    }

    /// The key of a place by its path's text in `table` (`path` is scratch space).
    fn table_key(&self, table: &PathTable, place: &Place, path: &mut String) -> Option<Key> {
        let (root, _) = self.path_into(place, path)?;
        let id = *table.ids.get(path.as_str())?;
        Some(Key { root, path: id })
    }

    /// A path names an array element, or a slot below a pointer the function steps (weak
    /// updates only).
    pub fn is_weak(&self, k: Key) -> bool {
        self.table()
            .paths
            .get(k.path as usize)
            .is_some_and(|p| p.1 || (self.stepped[k.root.index()] && p.0.starts_with('*')))
    }

    /// The slot is a field of a local aggregate (`s.buf`), which dies with the function, rather
    /// than a slot in an object reached through a pointer (`p->buf`, `s.data[i]`: `.data*[]`),
    /// which outlives the local that leads to it.
    pub fn dies_with_frame(&self, k: Key) -> bool {
        self.field_aggregates.get(k.root.index()).copied().unwrap_or(false) && !self.path_text(k.path).contains('*')
    }

    /// The source text of a slot, for messages: `s.buf`, `p->buf`, `*out`, `v[]`.
    pub fn key_text(&self, k: Key) -> String {
        let name = &self.func.local(k.root).name;
        let path = self.path_text(k.path);
        match path.strip_prefix('*') {
            Some("?") => format!("{name}->…"),
            Some(rest) if rest.starts_with('.') => format!("{name}->{}", &rest[1..]),
            Some("") => format!("*{name}"),
            Some(rest) => format!("{name}{rest}"),
            _ => format!("{name}{path}"),
        }
    }

    /// The path text of a place below a local, written into `out` (cleared first), with its root
    /// local and whether it is weak; `None` for locals, globals and places too deep or not
    /// rooted at a trackable local (then `out` holds nothing useful).
    fn path_into(&self, place: &Place, out: &mut String) -> Option<(LocalId, bool)> {
        fn go(p: &Place, out: &mut String, weak: &mut bool, steps: &mut usize) -> Option<LocalId> {
            *steps += 1;
            match p {
                Place::Local(l) => {
                    *steps -= 1;
                    Some(*l)
                }
                Place::Global(_) => None,
                Place::Deref(inner) => {
                    let r = go(inner, out, weak, steps)?;
                    out.push('*');
                    Some(r)
                }
                Place::Field(inner, f) => {
                    let r = go(inner, out, weak, steps)?;
                    out.push('.');
                    out.push_str(f);
                    Some(r)
                }
                Place::Index(inner) => {
                    let r = go(inner, out, weak, steps)?;
                    out.push_str("[]");
                    *weak = true;
                    Some(r)
                }
            }
        }
        out.clear();
        let mut weak = false;
        let mut steps = 0;
        let root = go(place, out, &mut weak, &mut steps)?;
        if out.is_empty() || steps > MAX_PATH_STEPS {
            return None;
        }
        // A pointer local's pointee, or a field of a local aggregate whose address is not taken.
        let ok = if out.starts_with('*') { self.is_tracked(root) } else { self.field_aggregates[root.index()] };
        ok.then_some((root, weak))
    }

    /// Name every path the function's statements and its callees' summaries mention, in a fixed
    /// order (path ids order slots, so they must not depend on anything else): first the paths
    /// callee summaries name below arguments, then the places of the statements; and key the
    /// places of the statements, conditions and returns.
    fn build_paths(&self) -> PathTable {
        let func = self.func;
        let mut t = PathTable {
            paths: vec![(String::new(), false), (OTHER_PATH_TEXT.to_string(), false)],
            ids: HashMap::new(),
            rooted: vec![Vec::new(); func.locals.len()],
            // About one place a statement needs a key: sized once rather than grown.
            key_cache: HashMap::with_capacity(func.stmts.len()),
        };
        let mut buf = String::new();
        for (si, st) in func.stmts.iter().enumerate() {
            let Stmt::Call { dst, args, .. } = st else { continue };
            // The paths a callee's summary names below an argument are slots here too.
            let Some(model) = self.models.get(si).and_then(|m| m.as_ref()) else { continue };
            match dst {
                Some(Place::Local(l)) => {
                    for path in model.ret_paths.iter().filter(|p| path_steps(p) <= MAX_PATH_STEPS) {
                        t.intern(*l, path, path.contains("[]"));
                    }
                }
                // A result stored straight into a slot (`o.b = buf_new ()`, `p->f = make ()`):
                // the cells inside it are at that slot's path followed by theirs.
                Some(d) if !model.ret_paths.is_empty() => {
                    if let Some((root, _)) = self.path_into(d, &mut buf) {
                        let n = buf.len();
                        for path in model.ret_paths.iter() {
                            buf.truncate(n);
                            buf.push_str(path);
                            if path_steps(&buf) <= MAX_PATH_STEPS {
                                t.intern(root, &buf, buf.contains("[]"));
                            }
                        }
                    }
                }
                _ => {}
            }
            // `f(out)` allocating into `*out` for a pointer local `out`.
            for (i, e) in &model.args {
                if matches!(e, ArgEffect::OutFresh(_) | ArgEffect::OutRealloc) {
                    if let Some(root) = args.get(*i).and_then(|a| self.arg_prefix(a, &mut buf)) {
                        if buf == "*" {
                            t.intern(root, &buf, false);
                        }
                    }
                }
            }
            for (i, path, _) in &model.out_paths {
                if let Some(root) = args.get(*i).and_then(|a| self.arg_prefix(a, &mut buf)) {
                    buf.push_str(&path[1..]);
                    if !buf.is_empty() && path_steps(&buf) <= MAX_PATH_STEPS {
                        t.intern(root, &buf, buf.contains("[]"));
                    }
                }
            }
            for (i, a) in args.iter().enumerate() {
                if !model.heap.iter().any(|h| h.0 == i) {
                    continue;
                }
                let Some(root) = self.arg_prefix(a, &mut buf) else { continue };
                let prefix_len = buf.len();
                for (_, callee_path, _) in model.heap.iter().filter(|h| h.0 == i) {
                    // "The fields nobody names", of the argument's object or of one below it
                    // (`*.b*?`: `model::heap_fate`), are no slot of this function's.
                    if callee_path.ends_with(OTHER_PATH_TEXT) {
                        continue;
                    }
                    buf.truncate(prefix_len);
                    buf.push_str(&callee_path[1..]);
                    if !buf.is_empty() && path_steps(&buf) <= MAX_PATH_STEPS {
                        t.intern(root, &buf, buf.contains("[]"));
                    }
                }
            }
        }
        fn operand_place(op: &Operand) -> Option<&Place> {
            match op {
                Operand::Place(p) => Some(p),
                _ => None,
            }
        }
        // The places of the statements: named, and keyed by address for `key_of`.
        let mut note = |t: &mut PathTable, p: &Place| {
            if matches!(p, Place::Local(_)) {
                return;
            }
            let key = self.path_into(p, &mut buf).map(|(root, weak)| Key { root, path: t.intern(root, &buf, weak) });
            t.key_cache.insert(p as *const Place as usize, key);
        };
        for st in &func.stmts {
            match st {
                Stmt::Assign { dst, src } => {
                    note(&mut t, dst);
                    match src {
                        Rvalue::Use(op) => operand_place(op).into_iter().for_each(|p| note(&mut t, p)),
                        Rvalue::AddrOf(p) => note(&mut t, p),
                        Rvalue::Opaque(ops) => ops.iter().filter_map(operand_place).for_each(|p| note(&mut t, p)),
                    }
                }
                Stmt::Call { dst, args, .. } => {
                    dst.iter().for_each(|p| note(&mut t, p));
                    args.iter().filter_map(operand_place).for_each(|p| note(&mut t, p));
                }
            }
        }
        // Conditions, returns and address temporaries name no new paths, only look them up.
        let mut look = |t: &mut PathTable, p: &Place| {
            if !matches!(p, Place::Local(_)) {
                let key = self.table_key(t, p, &mut buf);
                t.key_cache.insert(p as *const Place as usize, key);
            }
        };
        for b in &func.blocks {
            match &b.term {
                Terminator::Branch { cond, .. } => match &cond.kind {
                    CondKind::Truthy(Operand::Place(p)) => look(&mut t, p),
                    CondKind::Cmp(_, a, b2) => {
                        for o in [a, b2] {
                            if let Operand::Place(p) = o {
                                look(&mut t, p);
                            }
                        }
                    }
                    _ => {}
                },
                Terminator::Return(Some(Operand::Place(p))) => look(&mut t, p),
                _ => {}
            }
        }
        for p in self.addr_temps.values() {
            look(&mut t, p);
        }
        for v in &mut t.rooted {
            v.sort_unstable();
            v.dedup();
        }
        t
    }

    /// `p` and the locals that copy it, directly or through other copies (flow-insensitively;
    /// `p` first).
    pub fn copies_of(&self, p: LocalId) -> Vec<LocalId> {
        let mut names = vec![p];
        loop {
            let before = names.len();
            for st in &self.func.stmts {
                if let Stmt::Assign { dst: Place::Local(l), src: Rvalue::Use(Operand::Place(Place::Local(y))) } = st {
                    if names.contains(y) && !names.contains(l) {
                        names.push(*l);
                    }
                }
            }
            if names.len() == before {
                break;
            }
        }
        names
    }

    /// The paths a summary of parameter `p` must follow: those named below `p` or below a local
    /// that copies it (flow-insensitively), sorted; `OTHER_PATH` stands for the rest.
    pub fn paths_below(&self, p: LocalId) -> Vec<u32> {
        let names = self.copies_of(p);
        let mut out: Vec<u32> = names
            .iter()
            .filter_map(|l| self.table().rooted.get(l.index()))
            .flatten()
            .copied()
            .filter(|id| self.path_text(*id).starts_with('*'))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The constant an operand surely holds at the end of `node`: a constant, or a local whose
    /// every reaching definition assigns the same constant.
    pub fn constant_value(&self, op: &Operand, node: DagNode) -> Option<i64> {
        self.constant_at(op, node, self.stmts_of(node).len())
    }

    /// The value of global `g` when it is fixed (`globals`).
    pub fn fixed_global(&self, g: &str) -> Option<i64> {
        self.fixed_globals.and_then(|f| f.get(g)).copied()
    }

    /// Global `g` is a scalar no pointer leads to (`globals::unaliased`).
    pub fn unaliased_global(&self, g: &str) -> bool {
        self.unaliased_globals.is_some_and(|u| u.contains(g))
    }

    /// Like `constant_value`, before statement `idx` of `node`.
    pub fn constant_at(&self, op: &Operand, node: DagNode, idx: usize) -> Option<i64> {
        match op {
            Operand::Const(k) => Some(*k),
            Operand::Place(Place::Global(g)) => self.fixed_global(g),
            // Reaching definitions only for locals that are assigned a constant somewhere.
            Operand::Place(Place::Local(x)) if self.is_tracked(*x) && self.const_assigned[x.index()] => {
                match self.last_def_before(*x, node, idx) {
                    Some(i) => self.defined_constant(node, i),
                    None => self.constant_at_entry(*x, node),
                }
            }
            _ => None,
        }
    }

    /// The constant statement `idx` of `node` assigns (a constant, or a call to a callee whose
    /// every return is this constant: `Summary::ret_const`).
    fn defined_constant(&self, node: DagNode, idx: u32) -> Option<i64> {
        let sid = self.stmts_of(node)[idx as usize];
        match self.func.stmt(sid) {
            Stmt::Assign { src: Rvalue::Use(Operand::Const(k)), .. } => Some(*k),
            Stmt::Assign { src: Rvalue::Use(Operand::Place(Place::Global(g))), .. } => self.fixed_global(g),
            Stmt::Call { .. } => self.model(sid).and_then(|m| m.ret_const),
            _ => None,
        }
    }

    /// The constant `x` holds on entry to `node`: the one value of all its reaching definitions
    /// (`defs_at_entry`), computed as that value directly, backwards on demand like
    /// `defs_at_entry` but without building the sets. Why: after `n` joins a local assigned in
    /// `n` branches (`if (..) s += i;` repeated) reaches with `n` definitions, and the sets of
    /// every join took memory quadratic in the function's length; a constant takes one word.
    fn constant_at_entry(&self, x: LocalId, node: DagNode) -> Option<i64> {
        let mut memo = self.const_memo.borrow_mut();
        let at = memo.entry(x).or_insert_with(|| NodeMemo::new(self.dag.len(), &self.budget));
        if let Some(k) = at.get(node.0) {
            return k;
        }
        // Past the budget: no constant (the branches it would fold stay open).
        if self.budget.tick() {
            return None;
        }
        let defined = self.local_defs.of(x.index());
        let def_in = |v: DagNode| -> Option<u32> {
            defined.binary_search_by_key(&self.dag.block[v.index()], |d| d.0).ok().map(|j| defined[j].1)
        };
        let mut stack = vec![node];
        while let Some(&v) = stack.last() {
            if at.contains(v.0) {
                stack.pop();
                continue;
            }
            if self.budget.tick() {
                return None;
            }
            let preds = &self.dag.preds[v.index()];
            let mut waiting = false;
            for p in preds {
                if def_in(*p).is_none() && !at.contains(p.0) {
                    stack.push(*p);
                    waiting = true;
                }
            }
            if waiting {
                continue;
            }
            // As `defs_at_entry`: the loop's later iteration (`Def::Later`) and the entry value
            // (no predecessors) are no constant.
            let exit = |p: DagNode| -> Option<i64> {
                if self.dag.kills(p, v).contains(&x) {
                    return None;
                }
                match def_in(p) {
                    Some(i) => self.defined_constant(p, i),
                    None => at.get(p.0).expect("a predecessor's entry is computed first"),
                }
            };
            let mut value = None;
            for (i, p) in preds.iter().enumerate() {
                let k = exit(*p);
                if k.is_none() || (i > 0 && k != value) {
                    value = None;
                    break;
                }
                value = k;
            }
            if at.insert(v.0, value, &self.budget) {
                return None;
            }
            stack.pop();
        }
        at.get(node.0).expect("the search ends at its start")
    }

    /// The key of a branch on a temporary the front end computed from locals and constants by an
    /// expression it could not break down (`tmp = opaque(flags, 4); branch tmp`, from
    /// `(flags & 4) != 0`), or by a call whose result depends on its arguments alone
    /// (`Summary::pure_value`), or on them and the memory they point to (a library reader,
    /// `libmodel::reads_only`), tested for truth or compared with a constant or a local
    /// (`strcmp (s, t) == 0`, `strlen (s) > n`): the same source text over locals with the same
    /// reaching definitions (and, for a reader, the same definitions of `memory_slot`) is the same
    /// value, whatever temporary holds it. Also whether the branch goes `then_` when the text's
    /// truth (`text_truth`) holds. Expressions that read memory otherwise, or call anything
    /// else, have no such key.
    fn text_key(&self, cond: &crate::ir::Cond, node: DagNode, idx: usize) -> Option<(TestKey, bool)> {
        let (t, other) = match &cond.kind {
            CondKind::Truthy(Operand::Place(Place::Local(t))) => (*t, None),
            CondKind::Cmp(_, Operand::Place(Place::Local(t)), other) => (*t, Some(other)),
            _ => return None,
        };
        if self.func.local(t).kind != LocalKind::Temp || !self.is_tracked(t) || cond.text.is_empty() {
            return None;
        }
        // A call that returns one constant (`Summary::ret_const`) is that constant: the test
        // takes one side (`classify_cond`), which an atom would not say.
        if self.invariant_constant(&Operand::Place(Place::Local(t)), node, idx).is_some() {
            return None;
        }
        let defs = self.reaching_defs(t, node, idx);
        let [Def::At { node: dn, idx: di }] = defs.as_ref() else { return None };
        let (dn, di) = (*dn, *di as usize);
        let sid = self.stmts_of(dn)[di];
        let (ops, reader) = match self.func.stmt(sid) {
            // An expression's comparisons are the front end's to break down (`facts` reasons
            // about `n > 0`); only its truth is keyed here.
            Stmt::Assign { src: Rvalue::Opaque(ops), .. } if other.is_none() => (ops, false),
            Stmt::Call { callee: Callee::Direct { .. }, args, .. } if self.model(sid).is_some_and(|m| m.pure_value) => {
                (args, false)
            }
            Stmt::Call { args, .. } if self.reader_call(sid) => (args, true),
            _ => return None,
        };
        let mut locals = Vec::with_capacity(ops.len() + 2);
        let read = |op: &Operand, node: DagNode, idx: usize, locals: &mut Vec<(LocalId, u32)>| -> Option<()> {
            match op {
                Operand::Const(_) | Operand::Str => {}
                // A global or a field of one (`State & F`), unchanged where no statement may
                // write it (`tested_globals`).
                Operand::Place(p @ (Place::Global(_) | Place::Field(..))) if self.global_slot(p).is_some() => {
                    let slot = self.global_slot(p)?;
                    locals.push((slot, self.reaching_set(slot, node, idx)));
                }
                Operand::Place(Place::Local(l)) if self.is_tracked(*l) => {
                    let set = self.reaching_set(*l, node, idx);
                    if self.func.local(*l).kind != LocalKind::Param
                        && self.rd_memo.borrow().0.sets[set as usize].contains(&Def::Entry)
                    {
                        return None; // uninitialised: no two reads are known to agree
                    }
                    locals.push((*l, set));
                }
                // A reader's argument loaded from memory (`strcmp (cs->name, "x")`): the
                // memory's definitions below cover the load, the pointer's its own.
                Operand::Place(p) if reader && self.memory_slot.is_some() => {
                    if let Some(r) = p.root_local().filter(|r| self.is_tracked(*r)) {
                        locals.push((r, self.reaching_set(r, node, idx)));
                    }
                }
                _ => return None,
            }
            Some(())
        };
        for op in ops {
            read(op, dn, di, &mut locals)?;
        }
        if reader {
            let memory = self.memory_slot?;
            locals.push((memory, self.reaching_set(memory, dn, di)));
        }
        // The other side of a comparison, where the branch reads it.
        if let Some(o) = other {
            read(o, node, idx, &mut locals)?;
        }
        if locals.is_empty() {
            return None;
        }
        let (text, holds) = text_truth(&cond.text, cond.text_on_else);
        Some((TestKey::Text { text: text.to_string(), locals }, holds))
    }

    /// The value of `op` before statement `idx` of `node` when it is the same in every loop
    /// iteration: a literal, or a local every reaching definition of which is a call to a
    /// function that always returns that constant (`Summary::ret_const`).
    fn invariant_constant(&self, op: &Operand, node: DagNode, idx: usize) -> Option<i64> {
        match op {
            Operand::Const(k) => Some(*k),
            Operand::Place(Place::Global(g)) => self.fixed_global(g),
            Operand::Place(Place::Local(x)) if self.is_tracked(*x) && self.const_assigned[x.index()] => {
                let mut value = None;
                for d in self.reaching_defs(*x, node, idx).iter() {
                    let Def::At { node: dn, idx } = *d else { return None };
                    let sid = self.stmts_of(dn)[idx as usize];
                    let k = match self.func.stmt(sid) {
                        Stmt::Call { .. } => self.model(sid).and_then(|m| m.ret_const)?,
                        Stmt::Assign { src: Rvalue::Use(Operand::Place(Place::Global(g))), .. } => {
                            self.fixed_global(g)?
                        }
                        _ => return None,
                    };
                    if value.is_some_and(|v| v != k) {
                        return None;
                    }
                    value = Some(k);
                }
                value
            }
            _ => None,
        }
    }

    /// Remember that `atom` tests "parameter `op` is non-zero" on its entry value.
    fn note_param_test(&mut self, atom: AtomId, op: &Operand, node: DagNode, idx: usize) {
        if let Some(x) = op.local() {
            let entry = self.reaching_defs(x, node, idx).iter().all(|d| *d == Def::Entry);
            if self.func.local(x).kind == LocalKind::Param && entry {
                self.param_tests.push((atom, x, -1));
            }
        }
    }

    /// Remember that `atom` tests bits of a parameter's entry value.
    fn note_bit_test(&mut self, atom: AtomId, t: BitTest) {
        // A place's slot (`copied_place`) is no parameter.
        if t.on.index() >= self.func.locals.len() {
            return;
        }
        let entry = self.rd_memo.borrow().0.sets[t.defs as usize].iter().all(|d| *d == Def::Entry);
        if self.func.local(t.on).kind == LocalKind::Param && entry {
            self.param_tests.push((atom, t.on, t.mask));
        }
    }

    /// `op & mask` is non-zero (mask -1: `op` is) exactly when `t.on & t.mask` is, the local with
    /// the definitions `t.defs`: through locals whose one reaching definition is a bitwise
    /// expression that keeps those bits of another (`flags | OTHER`, `flags &= ~OTHER`), down to
    /// a local defined otherwise. `None` when the bits are known instead, or come from memory,
    /// or from a local that may be uninitialised (as `pure_key`).
    fn bit_test(&self, op: &Operand, node: DagNode, idx: usize, mask: i64) -> Option<BitTest> {
        let (mut x, mut node, mut idx, mut mask) = (op.local()?, node, idx, mask);
        let mut through = false;
        // Each step is a definition before the last one on a DAG path: the walk ends.
        loop {
            if !self.is_tracked(x) {
                return None;
            }
            let defs = self.reaching_set(x, node, idx);
            let set = self.rd_memo.borrow().0.get(defs);
            if let [Def::At { node: dn, idx: di }] = set[..] {
                let sid = self.stmts_of(dn)[di as usize];
                if let Some(bits) = self.func.bits_of(sid) {
                    let (base, m) = bits.test_of_base(mask)?;
                    (x, node, idx, mask, through) = (base, dn, di as usize, m, true);
                    continue;
                }
            }
            if self.func.local(x).kind != LocalKind::Param && set.contains(&Def::Entry) {
                return None;
            }
            if let Some((slot, slot_defs)) = self.copied_place(x, defs) {
                return Some(BitTest { on: slot, defs: slot_defs, mask, through });
            }
            return Some(BitTest { on: x, defs, mask, through });
        }
    }

    /// `atom`, the test of several bits of a word (`flags & (A|B)`), is the disjunction of the
    /// tests of each bit, with the atoms those tests have or will have (`by_key`): then
    /// `if (flags & (A|B)) p = alloc(); .. if (flags & A) .. else if (flags & B) free(p);` is
    /// exact. Masks of one bit are their own atom; masks of more than `MAX_SPLIT_BITS` bits
    /// (`flags & ~F`) stay one atom of their own, as before.
    fn split_bits(&mut self, atom: AtomId, t: BitTest, by_key: &mut HashMap<TestKey, AtomId>) {
        const MAX_SPLIT_BITS: u32 = 8;
        let n = t.mask.count_ones();
        if t.mask == -1 || !(2..=MAX_SPLIT_BITS).contains(&n) {
            return;
        }
        let mut parts = Vec::with_capacity(n as usize);
        let mut rest = t.mask;
        while rest != 0 {
            let bit = rest & rest.wrapping_neg();
            rest &= !bit;
            let key = TestKey::Bits { on: t.on, defs: t.defs, mask: bit };
            let a = match by_key.get(&key) {
                Some(a) => *a,
                None => {
                    let a = self.new_atom();
                    by_key.insert(key, a);
                    self.note_bit_test(a, BitTest { mask: bit, ..t });
                    a
                }
            };
            parts.push(a);
        }
        self.ors.push((atom, parts.into_boxed_slice()));
    }

    /// The key of a bit test: a mask of -1 is `pure_key`'s test of the local itself.
    fn bit_key(&self, t: BitTest) -> TestKey {
        if t.mask == -1 {
            TestKey::Pure { op: None, args: [PureArg::Local(t.on, t.defs), PureArg::Absent] }
        } else {
            TestKey::Bits { on: t.on, defs: t.defs, mask: t.mask }
        }
    }

    /// A key shared by switches over the same local with the same reaching definitions.
    fn switch_key(&self, on: &Operand, node: DagNode) -> Option<TestKey> {
        let x = on.local()?;
        if !self.is_tracked(x) {
            return None;
        }
        let defs = self.reaching_set(x, node, self.stmts_of(node).len());
        if self.func.local(x).kind != LocalKind::Param
            && self.rd_memo.borrow().0.sets[defs as usize].contains(&Def::Entry)
        {
            return None;
        }
        Some(TestKey::Switch { on: x, defs })
    }

    /// A comparison with locals that surely hold a constant here replaced by the constant, the
    /// remaining local on the left: the first test of a loop `for (i = 0; i < n; ..)` is
    /// `n > 0`, the same test as an `if (n > 0)` before it.
    fn fold_constants<'k>(&self, kind: &'k CondKind, node: DagNode, idx: usize) -> std::borrow::Cow<'k, CondKind> {
        let CondKind::Cmp(op, a, b) = kind else { return std::borrow::Cow::Borrowed(kind) };
        let fold = |o: &Operand| self.constant_at(o, node, idx).map_or_else(|| o.clone(), Operand::Const);
        std::borrow::Cow::Owned(match (fold(a), fold(b)) {
            (Operand::Const(k), other @ Operand::Place(_)) => CondKind::Cmp(op.swapped(), other, Operand::Const(k)),
            (x, y) => CondKind::Cmp(*op, x, y),
        })
    }

    fn classify_cond(&self, kind: &CondKind, node: DagNode, idx: usize) -> CondClass {
        // A condition whose value is the same on every iteration of any loop around it takes
        // one side only. (A local assigned a constant before a loop and changed in it holds the
        // constant only in the first iteration, which is all the DAG shows: it is folded into
        // atoms below, never into a side.)
        let invariant = |op: &Operand| self.invariant_constant(op, node, idx);
        match kind {
            CondKind::Truthy(op) => {
                if let Some(k) = invariant(op) {
                    return CondClass::Const(k != 0);
                }
                if op.local().is_some_and(|x| x.index() < 64 && self.nonnull_params >> x.index() & 1 == 1) {
                    return CondClass::Const(true);
                }
            }
            CondKind::Cmp(op, a, b) => {
                if let (Some(a), Some(b)) = (invariant(a), invariant(b)) {
                    return CondClass::Const(op.eval(a, b));
                }
                // Two names of one value (`t = exp; .. if (t != exp)`).
                if let (CmpOp::Eq | CmpOp::Ne, Operand::Place(Place::Local(a)), Operand::Place(Place::Local(b))) =
                    (op, a, b)
                {
                    if self.same_value(*a, *b, node, idx) {
                        return CondClass::Const(*op == CmpOp::Eq);
                    }
                }
            }
            CondKind::Opaque => {}
        }
        let folded = self.fold_constants(kind, node, idx);
        let kind: &CondKind = &folded;
        // Normalise to (local, op, constant) where possible.
        let (x, op, k) = match kind {
            CondKind::Truthy(op) => match op.local() {
                Some(x) => (x, CmpOp::Ne, 0),
                None => {
                    // `*outp = realloc(..); if (*outp == NULL)`: the test is the call's success,
                    // or a printed path could say the call failed and its result is non-NULL.
                    if let Some(c) = self.stored_result(op, node, idx, CmpOp::Ne, 0) {
                        return c;
                    }
                    return self.pure_key(kind, node, idx);
                }
            },
            CondKind::Cmp(op, a, b) => match (a, b) {
                (a, Operand::Const(k)) if a.local().is_some() => (a.local().unwrap_or(LocalId(0)), *op, *k),
                (Operand::Const(k), b) if b.local().is_some() => (b.local().unwrap_or(LocalId(0)), op.swapped(), *k),
                _ => return self.pure_key(kind, node, idx),
            },
            CondKind::Opaque => return CondClass::Opaque,
        };
        if let Some((stmt, success)) = self.result_origin(x, node, idx) {
            let on_success = success.eval_cmp_on_success(op, k);
            let on_failure = success.eval_cmp_on_failure(op, k);
            if let (Some(s), Some(f)) = (on_success, on_failure) {
                if s != f {
                    // An allocator that is never NULL (`xmalloc`): only the success side.
                    if self.model(stmt).is_some_and(|m| m.never_null) {
                        return CondClass::Const(s);
                    }
                    return CondClass::Success { stmt, then_on_success: s };
                }
            }
        }
        self.pure_key(kind, node, idx)
    }

    /// The success of the call whose result was stored into the non-local place `op` by the
    /// statement just before the test, in the same block with nothing between that could write
    /// memory or the place's root (only assignments to other locals), tested by `op cmp k`.
    fn stored_result(&self, op: &Operand, node: DagNode, idx: usize, cmp: CmpOp, k: i64) -> Option<CondClass> {
        let Operand::Place(place) = op else { return None };
        let root = place.root_local();
        let stmts = self.stmts_of(node);
        for &sid in stmts[..idx.min(stmts.len())].iter().rev() {
            match self.func.stmt(sid) {
                Stmt::Call { dst: Some(d), .. } if d == place => {
                    let success = self.model(sid).and_then(call_success)?;
                    let s = success.eval_cmp_on_success(cmp, k)?;
                    let f = success.eval_cmp_on_failure(cmp, k)?;
                    return (s != f).then_some(CondClass::Success { stmt: sid, then_on_success: s });
                }
                Stmt::Assign { dst: Place::Local(l), .. } if Some(*l) != root => {}
                _ => return None,
            }
        }
        None
    }

    /// A key that identifies a test of locals that have not changed: two tests with the same key
    /// always go the same way.
    fn pure_key(&self, kind: &CondKind, node: DagNode, idx: usize) -> CondClass {
        let (op, operands) = match kind {
            CondKind::Truthy(a) => (None, [Some(a), None]),
            CondKind::Cmp(op, a, b) => (Some(*op), [Some(a), Some(b)]),
            CondKind::Opaque => return CondClass::Opaque,
        };
        let mut args = [PureArg::Absent; 2];
        for (arg, operand) in args.iter_mut().zip(operands) {
            *arg = match operand {
                None => PureArg::Absent,
                Some(Operand::Const(k)) => PureArg::Const(*k),
                Some(Operand::Place(p @ Place::Global(_))) => match self.global_slot(p) {
                    Some(slot) => PureArg::Local(slot, self.reaching_set(slot, node, idx)),
                    None => return CondClass::Opaque,
                },
                // A field of a global (`conv.vc_type`), as the global itself.
                Some(Operand::Place(p @ Place::Field(..))) if global_root(p).is_some() => match self.global_slot(p) {
                    Some(slot) => PureArg::Local(slot, self.reaching_set(slot, node, idx)),
                    None => return CondClass::Opaque,
                },
                // A place in memory with nothing that may write it in between (`tested_places`).
                Some(Operand::Place(p @ (Place::Deref(_) | Place::Field(..)))) => match self.place_slot(p) {
                    Some(slot) => PureArg::Local(slot, self.reaching_set(slot, node, idx)),
                    None => return CondClass::Opaque,
                },
                Some(Operand::Place(Place::Local(l))) if self.is_tracked(*l) => {
                    let set = self.reaching_set(*l, node, idx);
                    if self.func.local(*l).kind != LocalKind::Param
                        && self.rd_memo.borrow().0.sets[set as usize].contains(&Def::Entry)
                    {
                        // An uninitialised local: no two reads are known to agree.
                        return CondClass::Opaque;
                    }
                    // Set ids are canonical within the function, and keys are only compared within it.
                    PureArg::Local(*l, set)
                }
                Some(_) => return CondClass::Opaque,
            };
        }
        CondClass::Pure(TestKey::Pure { op, args })
    }
}

enum CondClass {
    /// The condition's value is known: only that side is taken.
    Const(bool),
    /// A test by its source text (`TestKey::Text`), and whether `then_` is taken when the
    /// tested value is non-zero.
    Text(TestKey, bool),
    /// A test of bits of a local (`TestKey::Bits`, or `Pure` for all of them).
    Bits(BitTest),
    Success {
        stmt: StmtId,
        then_on_success: bool,
    },
    Pure(TestKey),
    Opaque,
}

/// The locals and slots a test's atom is keyed by (`None`: an atom of its own each time).
fn class_reads(class: &CondClass) -> Option<Vec<LocalId>> {
    match class {
        CondClass::Const(_) => Some(Vec::new()),
        CondClass::Text(key, _) | CondClass::Pure(key) => key_reads(key),
        CondClass::Bits(t) => Some(vec![t.on]),
        CondClass::Success { .. } | CondClass::Opaque => None,
    }
}

fn key_reads(key: &TestKey) -> Option<Vec<LocalId>> {
    match key {
        TestKey::Pure { args, .. } => Some(
            args.iter()
                .filter_map(|a| match a {
                    PureArg::Local(x, _) => Some(*x),
                    _ => None,
                })
                .collect(),
        ),
        TestKey::Switch { on, .. } | TestKey::Bits { on, .. } => Some(vec![*on]),
        TestKey::Text { locals, .. } => Some(locals.iter().map(|l| l.0).collect()),
        TestKey::SwitchAt(_) => None,
    }
}

/// A test of a local against a constant (`x == k`, `x != k`) as the switch key of that local,
/// the constant, and whether the test holds when the local equals it.
fn value_test(key: &TestKey) -> Option<(TestKey, i64, bool)> {
    match key {
        TestKey::Pure {
            op: Some(op @ (CmpOp::Eq | CmpOp::Ne)),
            args: [PureArg::Local(x, defs), PureArg::Const(k)],
        } => Some((TestKey::Switch { on: *x, defs: *defs }, *k, *op == CmpOp::Eq)),
        _ => None,
    }
}

/// A test that goes the way an earlier branch went (`FnCx::flag_of_branch`): whether it holds
/// on that branch's `then_` side and on its `else_` side.
#[derive(Clone, Copy)]
struct Flag {
    branch: DagNode,
    then_holds: bool,
    else_holds: bool,
}

/// What makes two tests of one function go the same way, so they share an atom.
#[derive(Clone, PartialEq, Eq, Hash)]
enum TestKey {
    /// The same comparison (`None`: non-zero) of the same constants and unchanged locals, each
    /// with its reaching-definition set.
    Pure { op: Option<CmpOp>, args: [PureArg; 2] },
    /// A switch over an unchanged local.
    Switch { on: LocalId, defs: u32 },
    /// A switch shared with no other (its DAG node).
    SwitchAt(usize),
    /// A test of an expression the front end could not break down (`(flags & 4) != 0`), by its
    /// source text and the reaching definitions of the locals it reads (`FnCx::text_key`).
    Text { text: String, locals: Vec<(LocalId, u32)> },
    /// `on & mask` is non-zero, `on` with the reaching-definition set `defs` (`FnCx::bit_test`).
    Bits { on: LocalId, defs: u32, mask: i64 },
}

/// `on & mask` is non-zero, `on` a local with the reaching-definition set `defs`; `through`: the
/// tested operand was another local, defined by a bitwise expression.
#[derive(Clone, Copy)]
struct BitTest {
    on: LocalId,
    defs: u32,
    mask: i64,
    through: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum PureArg {
    Absent,
    Const(i64),
    Local(LocalId, u32),
}

/// The text of the expression whose truth a branch tests, from the condition's source text, and
/// whether the branch goes `then_` when that truth holds: the text holds on `then_` unless
/// lowering swapped the targets (`text_on_else`); `!X`, `X == 0` and `X == NULL` (or `nullptr`)
/// are `X` on the other side, `X != 0` and `X != NULL` are `X`, and outer parentheses go. So `!(flags & 4)`,
/// `(flags & 4)` and `(flags & 4) != 0` agree, and so do `!strcmp (a, b)` and
/// `strcmp (a, b) == 0`. `X` is stripped only when it is one operand (`postfix_operand`):
/// `a & b != 0` is `a & (b != 0)`, not `a & b`.
fn text_truth(text: &str, on_else: bool) -> (&str, bool) {
    let mut t = text.trim();
    let mut holds = !on_else;
    loop {
        let before = t;
        if let Some(rest) = t.strip_prefix('!').map(str::trim_start) {
            if !rest.starts_with('=') && postfix_operand(rest) {
                t = rest;
                holds = !holds;
            }
        }
        for (suffix, zero) in [
            ("!= 0", false),
            ("== 0", true),
            ("!= NULL", false),
            ("== NULL", true),
            ("!= nullptr", false),
            ("== nullptr", true),
        ] {
            if let Some(rest) = t.strip_suffix(suffix).map(str::trim_end) {
                if postfix_operand(rest) {
                    t = rest;
                    holds ^= zero;
                }
            }
        }
        if t.starts_with('(') && t.ends_with(')') && encloses(t) {
            t = t[1..t.len() - 1].trim();
        }
        if t == before {
            return (t, holds);
        }
    }
}

/// `t` is one operand a unary `!` or a comparison applies to whole: names, member accesses,
/// calls, subscripts and parenthesised groups, with no operator outside the brackets
/// (`strcmp (a, b)`, `p->f[i]`, `(a & 1)`, `(char *) p`).
fn postfix_operand(t: &str) -> bool {
    let b = t.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            // A literal's brackets and operators are not the expression's.
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' => depth += 1,
            b')' | b']' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ if depth > 0 => {}
            b'-' if b.get(i + 1) == Some(&b'>') => i += 1,
            c if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b' ' | b':') => {}
            _ => return false,
        }
        i += 1;
    }
    !t.is_empty() && depth == 0
}

/// `t` starts with `(` and that parenthesis closes at its last character.
fn encloses(t: &str) -> bool {
    let mut depth = 0usize;
    for (i, c) in t.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i == t.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// The path of a global or of a field of one (`g`, `g.f.h`); `None` through an array element
/// (all indices are one place) or a pointer.
fn global_path(p: &Place) -> Option<String> {
    match p {
        Place::Global(g) => Some(g.clone()),
        Place::Field(b, f) => {
            let mut s = global_path(b)?;
            s.push('.');
            s.push_str(f);
            Some(s)
        }
        Place::Local(_) | Place::Deref(_) | Place::Index(_) => None,
    }
}

/// The global a path of `global_path` is in.
fn path_root(path: &str) -> &str {
    path.split_once('.').map_or(path, |(g, _)| g)
}

/// The globals and fields of globals (`global_path`) that a branch or a switch of `func` tests,
/// directly or through a temporary the front end computed from them (`t = opaque(@State, 4);
/// branch t`), sorted, unique.
fn tested_globals(func: &Function) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    let mut tested_temps: Vec<LocalId> = Vec::new();
    let mut note = |op: &Operand, temps: &mut Vec<LocalId>| match op {
        Operand::Place(Place::Local(t)) => temps.push(*t),
        Operand::Place(p) => v.extend(global_path(p)),
        _ => {}
    };
    for b in &func.blocks {
        match &b.term {
            Terminator::Branch { cond, .. } => match &cond.kind {
                CondKind::Truthy(a) => note(a, &mut tested_temps),
                CondKind::Cmp(_, a, c) => {
                    note(a, &mut tested_temps);
                    note(c, &mut tested_temps);
                }
                CondKind::Opaque => {}
            },
            Terminator::Switch { on, .. } => note(on, &mut tested_temps),
            _ => {}
        }
    }
    tested_temps.retain(|t| func.local(*t).kind == LocalKind::Temp);
    if !tested_temps.is_empty() {
        tested_temps.sort_unstable();
        tested_temps.dedup();
        for st in &func.stmts {
            if let Stmt::Assign { dst: Place::Local(t), src: Rvalue::Opaque(ops) } = st {
                if tested_temps.binary_search(t).is_ok() {
                    for op in ops {
                        if let Operand::Place(p) = op {
                            v.extend(global_path(p));
                        }
                    }
                }
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Temporaries that hold the address of a place: `t = &x`, and call results that are the
/// address of a place below an argument (`interior`).
fn find_addr_temps<'m>(func: &Function, model_of: impl Fn(usize) -> Option<&'m Model<'m>>) -> HashMap<LocalId, Place> {
    let mut temps = find_addrof_temps(func);
    let calls = crate::interior::call_addr_temps(func, &temps, model_of);
    temps.extend(calls);
    temps
}

fn find_addrof_temps(func: &Function) -> HashMap<LocalId, Place> {
    // Definitions per local, and the `t = &x` assignments: a temp defined once that way.
    let mut defs: Vec<u32> = vec![0; func.locals.len()];
    let mut addr: Vec<(LocalId, &Place)> = Vec::new();
    for s in &func.stmts {
        match s {
            Stmt::Assign { dst: Place::Local(l), src } => {
                defs[l.index()] += 1;
                if let Rvalue::AddrOf(p) = src {
                    addr.push((*l, p));
                }
            }
            Stmt::Call { dst: Some(Place::Local(l)), .. } => defs[l.index()] += 1,
            _ => {}
        }
    }
    addr.into_iter()
        .filter(|(l, _)| defs[l.index()] == 1 && func.local(*l).kind == LocalKind::Temp)
        .map(|(l, p)| (l, p.clone()))
        .collect()
}

/// Temporary `t` holds the address of a pointer local (`&s` of `char *s`).
fn addr_of_pointer(func: &Function, addr_temps: &HashMap<LocalId, Place>, t: LocalId) -> bool {
    matches!(addr_temps.get(&t), Some(Place::Local(x)) if func.local(*x).is_pointer)
}

/// Which locals are trackable scalars. A local whose address is taken only to receive an
/// allocation through a modelled out-parameter (`getline(&line, ..)`), or a pointer's only by
/// calls that hold no pointer to it afterwards (`Model::only_during_call`: less's `getnum (&s,
/// ..)` moving a cursor), stays trackable; such a call is a definition of it
/// (`FnCx::defined_locals`). Not a count's: what a callee leaves in a count it steps beside a
/// vector it grows (tmux's `cmd_append_argv (&argc, &argv, s)`, freed by a `cmd_free_argv`
/// that returns early on 0) is known only as a fact of memory (`facts`), and a tracked local
/// defined by the call would be any value.
fn compute_tracked<'m>(
    func: &Function,
    addr_temps: &HashMap<LocalId, Place>,
    model_of: impl Fn(usize) -> Option<&'m Model<'m>>,
) -> Vec<bool> {
    let mut tracked: Vec<bool> = func.locals.iter().map(|l| !l.is_aggregate && !l.is_static).collect();
    // Temps holding `&x` that are used anywhere but an out-parameter position, by local. Most
    // functions have no address temporary.
    if !addr_temps.is_empty() {
        let mut escaping_temps: Vec<bool> = vec![false; func.locals.len()];
        let mut out_param_temps: Vec<bool> = vec![false; func.locals.len()];
        for (si, s) in func.stmts.iter().enumerate() {
            match s {
                Stmt::Call { args, .. } => {
                    for (i, a) in args.iter().enumerate() {
                        let Some(t) = a.local() else { continue };
                        if !addr_temps.contains_key(&t) {
                            continue;
                        }
                        let is_out = model_of(si).is_some_and(|m| {
                            m.stores_through(i)
                                || (m.only_during_call(i) && addr_of_pointer(func, addr_temps, t))
                                || m.arg_effect(i)
                                    .is_some_and(|e| matches!(e, ArgEffect::OutFresh(_) | ArgEffect::OutRealloc))
                        });
                        if is_out {
                            out_param_temps[t.index()] = true;
                        } else {
                            escaping_temps[t.index()] = true;
                        }
                    }
                }
                Stmt::Assign { src, .. } => {
                    let mut note = |op: &Operand| {
                        if let Some(t) = op.local() {
                            if addr_temps.contains_key(&t) {
                                escaping_temps[t.index()] = true;
                            }
                        }
                    };
                    match src {
                        Rvalue::Use(op) => note(op),
                        Rvalue::Opaque(ops) => ops.iter().for_each(&mut note),
                        Rvalue::AddrOf(_) => {}
                    }
                }
            }
        }
        // Any other reads of an address temp (in places, conditions, returns) also make it escape.
        for b in &func.blocks {
            match &b.term {
                Terminator::Return(Some(op)) | Terminator::Switch { on: op, .. } => {
                    if let Some(t) = op.local() {
                        escaping_temps[t.index()] = true;
                    }
                }
                _ => {}
            }
        }
        for (t, place) in addr_temps {
            if escaping_temps[t.index()] || !out_param_temps[t.index()] {
                if let Some(x) = place.storage_local() {
                    tracked[x.index()] = false;
                }
            } else if let Place::Local(_) = place {
            } else if let Some(x) = place.storage_local() {
                // `&s.f` of a local aggregate: the aggregate is not a tracked scalar anyway.
                tracked[x.index()] = false;
            }
        }
    }
    // Addresses taken by anything but a temp that feeds an out-parameter.
    for s in &func.stmts {
        if let Stmt::Assign { dst, src: Rvalue::AddrOf(p) } = s {
            let via_temp = dst.as_local().is_some_and(|t| addr_temps.contains_key(&t));
            if !via_temp {
                if let Some(x) = p.storage_local() {
                    tracked[x.index()] = false;
                }
            }
        }
    }
    tracked
}

/// Local structs and arrays whose fields can be tracked: not `static`, and their address (or a
/// field's) is never taken, so nothing else can write them.
fn field_aggregates(func: &Function, addr_temps: &HashMap<LocalId, Place>) -> Vec<bool> {
    let mut ok: Vec<bool> = func.locals.iter().map(|l| l.is_aggregate && !l.is_static).collect();
    // Only taking an address can rule an aggregate out, and most functions have no local
    // aggregate or take no address.
    if !ok.contains(&true) || !func.stmts.iter().any(|s| matches!(s, Stmt::Assign { src: Rvalue::AddrOf(_), .. })) {
        return ok;
    }
    // `&s` is fine where it only goes straight into call arguments (`init(&s)`): the call's
    // model says what the callee does to the fields. Anything else can write them unseen.
    // Uses of each address temporary, by local: as call arguments, and in all.
    let mut arg_uses: Vec<u32> = vec![0; func.locals.len()];
    let mut all_uses: Vec<u32> = vec![0; func.locals.len()];
    let mut count = |op: &Operand, in_call: bool| {
        if let Some(t) = op.local().filter(|t| addr_temps.contains_key(t)) {
            all_uses[t.index()] += 1;
            if in_call {
                arg_uses[t.index()] += 1;
            }
        }
    };
    for s in &func.stmts {
        match s {
            Stmt::Call { args, callee, .. } => {
                args.iter().for_each(|a| count(a, true));
                if let Callee::Indirect { target, .. } = callee {
                    count(target, false);
                }
            }
            Stmt::Assign { src: Rvalue::Use(op), .. } => count(op, false),
            Stmt::Assign { src: Rvalue::Opaque(ops), .. } => ops.iter().for_each(|o| count(o, false)),
            Stmt::Assign { .. } => {}
        }
    }
    for b in &func.blocks {
        match &b.term {
            Terminator::Return(Some(op)) | Terminator::Switch { on: op, .. } => count(op, false),
            Terminator::Branch { cond, .. } => match &cond.kind {
                CondKind::Truthy(op) => count(op, false),
                CondKind::Cmp(_, a, b2) => {
                    count(a, false);
                    count(b2, false);
                }
                CondKind::Opaque => {}
            },
            _ => {}
        }
    }
    for s in &func.stmts {
        if let Stmt::Assign { dst, src: Rvalue::AddrOf(p) } = s {
            if let Some(x) = p.storage_local() {
                let only_args = dst
                    .as_local()
                    .is_some_and(|t| addr_temps.contains_key(&t) && all_uses[t.index()] == arg_uses[t.index()]);
                if !only_args {
                    ok[x.index()] = false;
                }
            }
        }
    }
    ok
}

/// Cuts the body of loop header `h` (the blocks marked `mark`) to those `h` reaches. Called
/// when the walk back from a back edge's source climbed past `h` to the entry (irreducible
/// flow, `build_dag`); a block `h` reaches is reached only through blocks it reaches, so the
/// cut body is still every way from `h` back to the edge's source.
fn restrict_to_reached(
    h: usize,
    mark: usize,
    body: &mut Vec<usize>,
    body_mark: &mut [usize],
    succ: &[usize],
    succ_at: &[usize],
    work: &mut Vec<usize>,
) {
    let mut reached = vec![false; body_mark.len()];
    reached[h] = true;
    work.clear();
    work.push(h);
    while let Some(x) = work.pop() {
        for &s in &succ[succ_at[x]..succ_at[x + 1]] {
            if !reached[s] {
                reached[s] = true;
                work.push(s);
            }
        }
    }
    body.retain(|&b| {
        debug_assert_eq!(body_mark[b], mark);
        if !reached[b] {
            body_mark[b] = 0;
        }
        reached[b]
    });
}

/// Bound loops to one iteration: see the module invariants.
/// For each block of a loop body (sorted, `h` its header), the locals that every path from the
/// end of the header to the end of that block defines as a whole (`x = ..`, `x = f(..)`), the
/// header's own definitions left out: a header copy executes those itself. Forward edges only
/// (`forward_preds`), so inner loops count once. Sorted lists.
fn must_defined<I: Iterator<Item = usize>>(
    func: &Function,
    h: usize,
    body: &[usize],
    forward_preds: impl Fn(usize) -> I,
) -> HashMap<usize, Vec<LocalId>> {
    let defs_of = |b: usize| -> Vec<LocalId> {
        let mut d: Vec<LocalId> = func.blocks[b]
            .stmts
            .iter()
            .filter_map(|sid| match func.stmt(*sid) {
                Stmt::Assign { dst: Place::Local(l), .. } | Stmt::Call { dst: Some(Place::Local(l)), .. } => Some(*l),
                _ => None,
            })
            .collect();
        d.sort_unstable();
        d.dedup();
        d
    };
    // Forward edges form a DAG, so in topological order each block's predecessors are final
    // before it: one pass gives the fixpoint (sweeps in block order took several on big loops).
    // A block no path from the header reaches gets nothing.
    let mut out: HashMap<usize, Vec<LocalId>> = HashMap::new();
    out.insert(h, Vec::new());
    for b in topological(body, &forward_preds) {
        if b == h {
            continue;
        }
        let mut meet: Option<Vec<LocalId>> = None;
        for p in forward_preds(b) {
            let Some(o) = out.get(&p) else { continue };
            meet = Some(match meet {
                None => o.clone(),
                Some(m) => m.into_iter().filter(|l| o.binary_search(l).is_ok()).collect(),
            });
        }
        let Some(mut v) = meet else { continue };
        v.extend(defs_of(b));
        v.sort_unstable();
        v.dedup();
        out.insert(b, v);
    }
    out
}

/// The blocks of `body` (sorted), each after its predecessors in it (`preds`, acyclic): a
/// depth-first search over the predecessors, each block emitted when they all are.
fn topological<I: Iterator<Item = usize>>(body: &[usize], preds: &impl Fn(usize) -> I) -> Vec<usize> {
    let pos = |b: usize| body.binary_search(&b).ok();
    let mut seen = vec![false; body.len()];
    let mut order = Vec::with_capacity(body.len());
    let mut stack: Vec<(usize, I)> = Vec::new();
    for (i, &root) in body.iter().enumerate() {
        if seen[i] {
            continue;
        }
        seen[i] = true;
        stack.push((root, preds(root)));
        while let Some((b, ps)) = stack.last_mut() {
            match ps.next() {
                Some(p) => {
                    if let Some(j) = pos(p).filter(|&j| !seen[j]) {
                        seen[j] = true;
                        stack.push((p, preds(p)));
                    }
                }
                None => {
                    order.push(*b);
                    stack.pop();
                }
            }
        }
    }
    order
}

/// `budget`: past it, the loops not handled yet get no exits from their header copies and the
/// edges closing irreducible cycles are dropped all at once, which still gives a DAG (whose
/// function is over budget, so nothing is concluded from it).
fn build_dag(func: &Function, budget: &crate::budget::Budget) -> Dag {
    let n = func.blocks.len();
    // The successors of block `b` are `succ[succ_at[b]..succ_at[b + 1]]`, in terminator order:
    // one vector, not one per block (every function that gets a path-sensitive pass builds its
    // DAG).
    let mut succ_at: Vec<usize> = Vec::with_capacity(n + 1);
    let mut succ: Vec<usize> = Vec::with_capacity(2 * n);
    for b in &func.blocks {
        succ_at.push(succ.len());
        succ.extend(b.term.successors().map(|s| s.index()));
    }
    succ_at.push(succ.len());
    let succ_of = |b: usize| &succ[succ_at[b]..succ_at[b + 1]];
    // Iterative DFS from the entry classifies back edges (edges to a block still on the stack).
    // Classified per edge (`is_back`, parallel to `succ`), and kept as sorted pairs for the loop
    // exits. Two edges from one block to the same successor get the same class: the first one is
    // a tree edge only if the successor is new, and then it is finished before the second.
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut is_back = vec![false; succ.len()];
    let mut back: Vec<(usize, usize)> = Vec::new();
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut roots: Vec<usize> = vec![func.entry.index()];
    // Unreachable blocks still get a DAG shape (their sites are analysed too).
    roots.extend(0..n);
    for r in roots {
        if r >= n || state[r] != 0 {
            continue;
        }
        state[r] = 1;
        stack.push((r, succ_at[r]));
        while let Some(&mut (b, ref mut e)) = stack.last_mut() {
            if *e < succ_at[b + 1] {
                let s = succ[*e];
                *e += 1;
                match state[s] {
                    0 => {
                        state[s] = 1;
                        stack.push((s, succ_at[s]));
                    }
                    1 => {
                        is_back[*e - 1] = true;
                        back.push((b, s));
                    }
                    _ => {}
                }
            } else {
                state[b] = 2;
                stack.pop();
            }
        }
    }
    back.sort_unstable();
    back.dedup();
    // Natural loop bodies per header, over the predecessors (one vector, like the successors).
    let mut pred_at = vec![0usize; n + 1];
    for &s in &succ {
        pred_at[s + 1] += 1;
    }
    for b in 0..n {
        pred_at[b + 1] += pred_at[b];
    }
    let mut preds = vec![0usize; succ.len()];
    let mut filled = pred_at.clone();
    for b in 0..n {
        for &s in succ_of(b) {
            preds[filled[s]] = b;
            filled[s] += 1;
        }
    }
    let mut headers: Vec<usize> = back.iter().map(|e| e.1).collect();
    headers.sort_unstable();
    headers.dedup();
    // The back edges by header, so each header finds its own without scanning them all
    // (thousands of loops made that quadratic).
    let mut back_by_header = back.clone();
    back_by_header.sort_unstable_by_key(|e| (e.1, e.0));
    // The DAG node of each header's copy (`usize::MAX`: not a header).
    let mut copy_of = vec![usize::MAX; n];
    let mut block: Vec<BlockId> = (0..n).map(BlockId::from_usize).collect();
    for &h in &headers {
        copy_of[h] = block.len();
        block.push(BlockId::from_usize(h));
    }
    let mut succs: Vec<Vec<(DagNode, EdgeLabel)>> = (0..block.len())
        .map(|b| if b < n { Vec::with_capacity(succ_at[b + 1] - succ_at[b]) } else { Vec::new() })
        .collect();
    for b in 0..n {
        for e in succ_at[b]..succ_at[b + 1] {
            let t = if is_back[e] { copy_of[succ[e]] } else { succ[e] };
            succs[b].push((DagNode(t as u32), EdgeLabel::True));
        }
    }
    let mut exit_kills: HashMap<(u32, u32), Box<[LocalId]>> = HashMap::new();
    let mut later: HashMap<u32, Vec<DagNode>> = HashMap::new();
    let mut again: HashMap<u32, Vec<DagNode>> = HashMap::new();
    // Loop bodies are marked with their header's position in `headers`, plus one.
    let mut body_mark = vec![0usize; n];
    let mut body: Vec<usize> = Vec::new();
    let mut work: Vec<usize> = Vec::new();
    for (k, &h) in headers.iter().enumerate() {
        if budget.tick() {
            break;
        }
        let mark = k + 1;
        body.clear();
        body_mark[h] = mark;
        body.push(h);
        let first = back_by_header.partition_point(|e| e.1 < h);
        work.extend(back_by_header[first..].iter().take_while(|e| e.1 == h).map(|e| e.0));
        while let Some(x) = work.pop() {
            if budget.tick() {
                work.clear();
                break;
            }
            if body_mark[x] != mark {
                body_mark[x] = mark;
                body.push(x);
                work.extend_from_slice(&preds[pred_at[x]..pred_at[x + 1]]);
            }
        }
        // A back edge into the middle of a loop (`goto search_line` into one arm of an `if`
        // whose other arm also joins the loop) targets a block that does not dominate its
        // source, and the walk above then climbs past it to the entry: the "loop" would hold
        // the code before it, and its copy would leave through that code's exits (a `return`
        // before the allocation). Such a body is cut to the blocks the header reaches.
        if h != func.entry.index() && body_mark[func.entry.index()] == mark {
            restrict_to_reached(h, mark, &mut body, &mut body_mark, &succ, &succ_at, &mut work);
        }
        let in_body = |b: usize| body_mark[b] == mark;
        let target_of = |from: usize, to: usize| {
            if back.binary_search(&(from, to)).is_ok() {
                copy_of[to]
            } else {
                to
            }
        };
        // The second visit of the header can only leave the loop (FastCheck takes each CFG edge
        // once): through the header's own exits when it has some (a `while`/`for` test), else —
        // `for (;;)`, `while (a || b)` — through any exit of the loop (`break`, a later test, a
        // `goto` out), each then gets an atom in `label_edges`.
        let c = copy_of[h];
        let mut exits: Vec<(usize, usize)> = succ_of(h).iter().filter(|s| !in_body(**s)).map(|s| (h, *s)).collect();
        // Leaving through an exit of the body skips the later iteration's statements from the
        // header to that exit: the locals they surely define are killed on the copy's edge.
        let mut defined_before: Option<HashMap<usize, Vec<LocalId>>> = None;
        if exits.is_empty() {
            body.sort_unstable();
            for &u in &body {
                for &s in succ_of(u) {
                    if !in_body(s) {
                        exits.push((u, s));
                    }
                }
            }
            let (body_mark, back) = (&body_mark, &back);
            let forward_preds = |b: usize| {
                preds[pred_at[b]..pred_at[b + 1]]
                    .iter()
                    .copied()
                    .filter(move |&p| body_mark[p] == mark && back.binary_search(&(p, b)).is_err())
            };
            defined_before = Some(must_defined(func, h, &body, forward_preds));
        }
        // The later iteration: skipped by the copy's exits (`later`), or run instead of
        // leaving through the header's own (`again`).
        let mut nodes: Vec<DagNode> = body.iter().map(|&b| DagNode(b as u32)).collect();
        nodes.extend(body.iter().filter(|&&b| b != h && copy_of[b] != usize::MAX).map(|&b| DagNode(copy_of[b] as u32)));
        if defined_before.is_some() {
            later.insert(c as u32, nodes);
        } else {
            again.insert(c as u32, nodes);
        }
        for (u, s) in exits {
            let t = DagNode(target_of(u, s) as u32);
            let kills = defined_before.as_ref().and_then(|d| d.get(&u)).map_or(&[][..], |k| k.as_slice());
            if !succs[c].iter().any(|e| e.0 == t) {
                succs[c].push((t, EdgeLabel::True));
                if !kills.is_empty() {
                    exit_kills.insert((c as u32, t.0), kills.into());
                }
            } else if let Some(k) = exit_kills.get_mut(&(c as u32, t.0)) {
                // Two exits to one target: only what both define.
                *k = k.iter().copied().filter(|l| kills.contains(l)).collect();
            }
        }
    }
    // Irreducible control flow can still leave cycles: drop the edges that close them.
    let total = block.len();
    let mut dropped = 0;
    let topo = loop {
        let mut indeg = vec![0u32; total];
        for ss in &succs {
            for (t, _) in ss {
                indeg[t.index()] += 1;
            }
        }
        let mut ready: Vec<usize> = (0..total).filter(|i| indeg[*i] == 0).rev().collect();
        let mut topo = Vec::with_capacity(total);
        while let Some(x) = ready.pop() {
            topo.push(DagNode(x as u32));
            for (t, _) in &succs[x] {
                indeg[t.index()] -= 1;
                if indeg[t.index()] == 0 {
                    ready.push(t.index());
                }
            }
        }
        if topo.len() == total {
            break topo;
        }
        // Remove one edge into a node still on a cycle, from a node also left over.
        let left: HashSet<usize> = (0..total).filter(|i| indeg[*i] > 0).collect();
        if budget.tick() {
            // Every such edge at once: one more round, not one per edge.
            for (x, ss) in succs.iter_mut().enumerate() {
                if left.contains(&x) {
                    let before = ss.len();
                    ss.retain(|(t, _)| !left.contains(&t.index()));
                    dropped += before - ss.len();
                }
            }
            continue;
        }
        let mut removed = false;
        for (x, ss) in succs.iter_mut().enumerate() {
            if !left.contains(&x) {
                continue;
            }
            if let Some(pos) = ss.iter().position(|(t, _)| left.contains(&t.index())) {
                ss.remove(pos);
                dropped += 1;
                removed = true;
                break;
            }
        }
        if !removed {
            break topo;
        }
    };
    let mut order = vec![0u32; total];
    for (i, nd) in topo.iter().enumerate() {
        order[nd.index()] = i as u32;
    }
    let mut n_dpreds = vec![0usize; total];
    for (t, _) in succs.iter().flatten() {
        n_dpreds[t.index()] += 1;
    }
    let mut dpreds: Vec<Vec<DagNode>> = n_dpreds.iter().map(|k| Vec::with_capacity(*k)).collect();
    for (x, ss) in succs.iter().enumerate() {
        for (t, _) in ss {
            dpreds[t.index()].push(DagNode(x as u32));
        }
    }
    exit_kills.retain(|_, k| !k.is_empty());
    // In topological order (the header comes first: every other node of the body is reached
    // from it by forward edges); invariance is filled in once the edges have their atoms.
    let iterations = |map: HashMap<u32, Vec<DagNode>>| -> HashMap<u32, LaterIteration> {
        map.into_iter()
            .map(|(c, mut nodes)| {
                nodes.sort_unstable_by_key(|v| order[v.index()]);
                let invariant = vec![false; nodes.len()].into();
                let it = LaterIteration {
                    nodes: nodes.into(),
                    invariant,
                    freed: Box::new([]),
                    released: Box::new([]),
                    defined: Box::new([]),
                    runs_again: None,
                };
                (c, it)
            })
            .collect()
    };
    let later = iterations(later);
    // Sorting each body is quadratic in the nesting of loops: past the budget the loops get no
    // `again` at all (the function is over its budget anyway, and none is the same at any -j).
    let again = if again.keys().any(|_| budget.tick()) { HashMap::new() } else { iterations(again) };
    Dag { block, succs, preds: dpreds, order, topo, dropped_edges: dropped, n_blocks: n, exit_kills, later, again }
}

/// (root local, path text) of a place below a local, whatever the local.
pub fn raw_path(place: &Place) -> Option<(LocalId, String)> {
    fn go(p: &Place, out: &mut String) -> Option<LocalId> {
        match p {
            Place::Local(l) => Some(*l),
            Place::Global(_) => None,
            Place::Deref(inner) => {
                let r = go(inner, out)?;
                out.push('*');
                Some(r)
            }
            Place::Field(inner, f) => {
                let r = go(inner, out)?;
                out.push('.');
                out.push_str(f);
                Some(r)
            }
            Place::Index(inner) => {
                let r = go(inner, out)?;
                out.push_str("[]");
                Some(r)
            }
        }
    }
    let mut text = String::new();
    let root = go(place, &mut text)?;
    Some((root, text))
}

#[cfg(test)]
mod tests {
    use super::text_truth;

    #[test]
    fn spellings_of_one_truth_agree() {
        for (text, on_else, holds) in [
            ("(flags & 4) != 0", false, true),
            ("(flags & 4)", false, true),
            ("!(flags & 4)", true, true),
            ("!(flags & 4)", false, false),
            ("flags & 4", false, true),
            ("(flags & 4) == 0", true, true),
        ] {
            assert_eq!(text_truth(text, on_else), ("flags & 4", holds), "{text} {on_else}");
        }
        for (text, on_else, holds) in [
            ("strcmp (a, b) == 0", true, true),
            ("!strcmp (a, b)", false, false),
            ("strcmp (a, b)", false, true),
            ("strcmp (a, b) != 0", false, true),
        ] {
            assert_eq!(text_truth(text, on_else), ("strcmp (a, b)", holds), "{text} {on_else}");
        }
        assert_eq!(text_truth("strchr (p->s, ')') == NULL", true), ("strchr (p->s, ')')", true));
        assert_eq!(text_truth("s.find (c) != nullptr", false), ("s.find (c)", true));
        // Parentheses that do not enclose the whole text stay, and so does a comparison with
        // zero of more than one operand (`a & (b != 0)`).
        assert_eq!(text_truth("(a & 1) | (b & 2)", false), ("(a & 1) | (b & 2)", true));
        assert_eq!(text_truth("a & b != 0", false), ("a & b != 0", true));
        assert_eq!(text_truth("!a && b", true), ("!a && b", false));
        assert_eq!(text_truth("n > 3", true), ("n > 3", false));
    }
}
