//! The arena IR: one `Program` of lowered C functions.
//!
//! Input: built by `frontend` (the only module that knows libclang).
//! Output: a frozen `Program` that every later stage reads through `&Program`.
//! Invariants:
//! - After `frontend` returns, nothing mutates a `Program`; it is `Sync` and shared across threads.
//! - Every `BlockId`, `StmtId`, `LocalId` stored in a `Function` indexes that function's own vectors.
//! - Every statement has exactly one source location, in `Function::stmt_locs` (the side table).
//! - Expressions are canonical: operands are side-effect free; calls, assignments and control flow
//!   (`&&`, `||`, `?:`, statement expressions) have been turned into statements and blocks.
//! - Pointer arithmetic keeps the pointer operand and forgets the offset (FastCheck 5.6.2), and casts
//!   are transparent, so `free(y - 4)` frees the cell `y` points into.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
            pub fn from_usize(i: usize) -> Self {
                // u32 is enough: a single C function or program with 4 billion blocks, statements or
                // files would not fit in memory as an AST in the first place.
                $name(u32::try_from(i).expect(concat!(stringify!($name), " overflow")))
            }
        }
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }
    };
}

id_type!(
    /// A source file, index into `Program::files`.
    FileId
);
id_type!(
    /// A basic block, index into `Function::blocks`.
    BlockId
);
id_type!(
    /// A statement, index into `Function::stmts` (and `Function::stmt_locs`).
    StmtId
);
id_type!(
    /// A parameter, local variable or lowering temporary, index into `Function::locals`.
    LocalId
);

/// A source position (expansion location: macro uses point at the use, not the header).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Serialize, Deserialize)]
pub struct Loc {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}

impl Loc {
    pub const NONE: Loc = Loc { file: FileId(u32::MAX), line: 0, col: 0 };
}

/// The start of the key of a function-pointer variable in `Callee::Indirect::field` and the
/// program's field tables (`frontend/fields.rs`); a field key starts with a type's spelling,
/// never followed by a space before its `::`.
pub const VAR_KEY: &str = "variable ";

/// The start of the key of a virtual call in `Callee::Indirect::field` and of its targets in
/// `Program::field_targets`: `virtual STATIC-CLASS-USR METHOD-USR` (`~` for the destructor that
/// `delete` runs). The call's `sig` is this prefix and the method's qualified name, which no
/// function's type spelling starts with, so a call the hierarchy does not resolve has no target.
pub const VIRTUAL_KEY: &str = "virtual ";

/// The start of the key of a virtual call through a class whose death drip does not follow:
/// `virtual (opaque) STATIC-CLASS-USR METHOD-USR`, a `VIRTUAL_KEY` too, so that what holds for
/// virtual calls holds for it (a failed TU drops its targets, `--stats` counts it). Its targets
/// are the overriders over the program's classes whatever their death (`virtuals.rs`); the call
/// stays unknown to the heap and writes the globals and fields they write (`summary::model`).
pub const OPAQUE_VIRTUAL_KEY: &str = "virtual (opaque) ";

/// The start of the `sig` of a call through a C++ `std::function` field or variable
/// (`frontend/lambdas.rs`, `std_function_call`), followed by the `std::function`'s type: no
/// function's type spelling starts with it, so an open field has no target by signature.
pub const STD_FUNCTION_SIG: &str = "call through ";

/// How messages name the callee of an indirect call with signature `sig`: the method of a
/// virtual call, the `std::function` of a call through one, else "a function pointer".
pub fn indirect_name(sig: &str) -> &str {
    sig.strip_prefix(VIRTUAL_KEY).or_else(|| sig.strip_prefix(STD_FUNCTION_SIG)).unwrap_or("a function pointer")
}

/// A C++ class definition of the program, or a class template (which drip does not analyse), as
/// the virtual calls through it need it (`frontend/virtuals.rs`). One per USR, merged over TUs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CppClass {
    pub usr: String,
    /// The USRs of its direct bases (those whose declaration libclang names).
    pub bases: Vec<String>,
    /// drip sees all of its code: a class outside system headers, no template nor a template's
    /// instantiation, whose death drip knows (`frontend/cpp.rs`, `destruction`). A call through
    /// a class with a subclass that is not known stays opaque.
    pub known: bool,
    /// drip sees all of its code, whatever its death: outside system headers, no template nor
    /// a template's instantiation. The targets of an opaque virtual call (`OPAQUE_VIRTUAL_KEY`)
    /// need only this.
    #[serde(default)]
    pub visible: bool,
    /// No object is of exactly this class (a pure virtual method not overridden).
    pub is_abstract: bool,
    /// The function that destroys an object of exactly this class (its destructor, or the one drip
    /// writes for it), when the class has a virtual destructor and drip knows its death.
    pub destructor: Option<String>,
    /// Its virtual methods declared in it: (USR, the USRs of the methods each overrides directly).
    pub virtuals: Vec<(String, Vec<String>)>,
}

#[derive(Debug, Default)]
pub struct Program {
    /// Absolute (or as given) paths of every file a location can name.
    pub files: Vec<PathBuf>,
    pub functions: Vec<Function>,
    /// USRs of functions whose address is taken (used as a value in a body or in the initializer
    /// of a global or static variable): the candidates of indirect calls. Sorted, unique.
    pub address_taken: Vec<String>,
    /// (USR, canonical function type) for every function cast to a pointer to a different
    /// function type (`(cmp_fn)compare_names`): indirect calls through that type may reach it
    /// too. Sorted, unique.
    pub cast_targets: Vec<(String, String)>,
    /// (USR, name, canonical function type) of every library function the program uses as a
    /// value (`cleanup = free`, `{ .alloc = malloc }`, `set_hook(malloc)`): indirect calls may
    /// reach the library row as well as the program's functions. Sorted, unique.
    pub library_taken: Vec<(String, String, String)>,
    /// (field key, USR) for every function stored into a function-pointer field anywhere: by an
    /// initializer (`{ my_alloc, my_free }`, `.alloc = my_alloc`) or an assignment
    /// (`p->alloc = my_alloc`). Keys as in `Callee::Indirect::field`. Sorted, unique.
    pub field_targets: Vec<(String, String)>,
    /// Function-pointer fields that are also given a value no store names (a parameter, a
    /// local, another field, a call result), or whose address is taken: calls through them fall
    /// back to the signature-based targets. Whole-struct copies do not open a field. Sorted,
    /// unique.
    pub open_fields: Vec<String>,
    /// The stores into function-pointer fields made together: by one initializer list, or by one
    /// function body's assignments, split by the struct that declares the field. Each group is
    /// (field key, USR), sorted, unique; the groups are sorted. A *configuration* of a table, as
    /// libgit2's allocator is one: `{ fail_malloc, fail_realloc, fail_free }`, or the three
    /// stores of `stdalloc_init(a)` (`summary::idle_field_targets`).
    pub field_groups: Vec<Vec<(String, String)>>,
    /// (field or variable key, USR of a function, parameter index): the function stores that
    /// parameter into the function-pointer field or variable (`hook = m` in `set_allocator (m)`,
    /// `g->frealloc = f` in `lua_newstate (f, ud)`), so it holds what the function's callers pass
    /// there (`summary::param_stores`). Variable keys
    /// (`variable c:@hook`) are in `field_targets` and `open_fields` beside field keys: a
    /// global or local function-pointer variable is resolved as a field is. Sorted, unique.
    pub param_stores: Vec<(String, String, u32)>,
    /// (name, initial value, internal linkage) of every scalar global the program defines
    /// (`None`: not an integer constant, or definitions of the name disagree; internal: every
    /// definition of the name is `static`). By name: two `static`s of one name in different
    /// files are one entry, which only makes it less often fixed. Sorted, unique.
    pub scalar_globals: Vec<(String, Option<i64>, bool)>,
    /// Globals whose address is taken somewhere (`&g`, or named in a global's initializer).
    /// Sorted, unique.
    pub global_addrs: Vec<String>,
    /// Some code of the database was not seen (a TU failed, was cut, or was not C):
    /// `globals::seen_partly` narrowed the program-wide facts about globals to `static`s.
    pub seen_partly: bool,
    /// The ownership attributes written on the program's own function declarations (system
    /// headers are the library model's), each once. Sorted, unique.
    pub attributes: Vec<OwnershipAttr>,
    /// The C++ class hierarchy: every class definition of the program's C++ files, sorted by
    /// USR, one per USR. The targets of virtual calls are derived from it into `field_targets`
    /// (keys starting with `VIRTUAL_KEY`) when the program is assembled.
    pub classes: Vec<CppClass>,
}

/// One ownership attribute on a function declaration: the project's own memory API as its
/// headers state it (`declare::Declarations::with_attributes` makes library rows of them).
/// Argument indices are 0-based here (attributes count from 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct OwnershipAttr {
    /// The function the attribute is written on.
    pub function: String,
    pub kind: AttrKind,
    /// Where it is written (the declaration's file, absolute, and line), for messages.
    pub file: PathBuf,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum AttrKind {
    /// `malloc`, `ownership_returns(kind[, size])`: returns a fresh block, or NULL.
    Returns,
    /// GCC's `malloc(dealloc[, idx])`: returns a fresh block, or NULL, which argument `arg` of
    /// `dealloc` releases.
    ReleasedBy { dealloc: String, arg: u32 },
    /// `ownership_takes(kind, idx)`: frees argument `arg`.
    Takes { arg: u32 },
    /// `ownership_holds(kind, idx)`: keeps argument `arg` beyond the call (the block escapes).
    Holds { arg: u32 },
}

impl Program {
    pub fn file(&self, id: FileId) -> Option<&std::path::Path> {
        self.files.get(id.index()).map(|p| p.as_path())
    }
}

/// Serialisable for the incremental cache, which stores the functions of a translation unit with
/// their TU-local `FileId`s (see `frontend`).
/// The USR prefix of a C++ call the lowering leaves opaque (a virtual method, a method of a class
/// drip does not know how to destroy): no function has it, so the call is an unknown call, but the
/// callee is defined in the program, and `-v` names it apart from the functions defined nowhere.
/// Followed by the USR of the one function the call runs, the call keeps that function's
/// globals and fields written (`summary::Direct::Opaque`): what the heap sees is unknown, but
/// which globals its body may write is not.
pub const OPAQUE_CPP_USR: &str = "drip:c++:opaque:";
/// The USR prefix of an opaque C++ call whose target the object's class chooses at run time (a
/// virtual call, a `delete` through a virtual destructor, of a class drip does not follow): it
/// may run any override, so no definition is named after it.
pub const OPAQUE_DISPATCHED_CPP_USR: &str = "drip:c++:opaque:dispatched:";

/// The field of a standard container of raw pointers (`frontend/stdlib.rs`) whose elements are
/// its cells (`Place::Index` of it). Not a C++ identifier, so no field of the program shares it;
/// the checkers name the container of a block stored there (`checkers::container_of`).
pub const CONTAINER_ELEMENTS: &str = "(elements)";
/// The prefix of every USR the C++ lowering makes up (`new`/`delete` rows, implicit destructors,
/// opaque calls, a local's death at scope exit): no source file spells it.
pub const CPP_RESERVED_USR: &str = "drip:c++:";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    /// Unified Symbol Resolution string from libclang; equal across TUs for external functions.
    pub usr: String,
    pub is_static: bool,
    pub loc: Loc,
    /// Canonical spelling of the function's type (`void *(unsigned long)`), for indirect calls.
    pub sig: String,
    /// Parameters come first: `locals[0..n_params]`.
    pub n_params: u32,
    pub locals: Vec<LocalDecl>,
    pub returns_pointer: bool,
    pub blocks: Vec<Block>,
    pub entry: BlockId,
    pub stmts: Vec<Stmt>,
    /// The side table of statement locations, parallel to `stmts`.
    pub stmt_locs: Vec<Loc>,
    /// Constructs the lowering could not represent faithfully (e.g. `asm goto`, computed goto), one
    /// message each. The function is still analysed; these are shown with `-v`.
    pub lowering_notes: Vec<String>,
    /// Assignments of bitwise expressions (`flags | F`, `flags & ~F`, `x |= c ? F : 0`), by
    /// statement, sorted: what the operators say of the value's bits, which `Rvalue::Opaque`
    /// forgets.
    pub bits: Vec<(StmtId, Bits)>,
    /// Assignments that add a constant to the integer they store into (`n++`, `--n`, `n += 2`,
    /// `(*n)++`: `x = x + k`), by statement, sorted, with `k`: which `Rvalue::Opaque` forgets,
    /// and whether the integer is unsigned (at least 0 before the step, so at least `k` after
    /// an increment: `sb->len++` on a `size_t`). Counter facts (`facts::FactGen::Step`) read them.
    pub steps: Vec<(StmtId, i64, bool)>,
    /// Assignments of an arithmetic expression of unsigned C type (`cnt = (cnt << 8) +
    /// (unsigned)c`, `n = strlen(s) + 1`), sorted, each with a floor: the value stored is at
    /// least 0, and at least the sum of the constants of an unsigned sum (`l1 + 1 + l2 + 1` is
    /// at least 2), which `Rvalue::Opaque` forgets (unsigned wrap-around, and conversion of a
    /// value above the destination's range to a signed integer, are not modelled, as for
    /// counters). Facts read them (`facts::nonneg_locals`, `FactGen::AtLeast`).
    pub nonneg: Vec<(StmtId, i64)>,
    /// Assignments that never make the integer they store into smaller while it is at least 0
    /// (`x = x + e` with `e` of unsigned type: `res_size += l1 + 1`; `x = x * k` with a constant
    /// `k >= 1`: `buf_size *= 2`), sorted; `Rvalue::Opaque` forgets it (overflow is not
    /// modelled). Facts keep a lower bound of at least 0 across them (`FactGen::Grow`).
    pub grows: Vec<StmtId>,
    /// Assignments into a temporary of an integer local plus or minus a constant (`i + 2`,
    /// `n - 1`, `2 + i`), sorted, with the constant added (`-1` for `n - 1`): which
    /// `Rvalue::Opaque` forgets. Facts read a test of the temporary (`i + 2 > size`) as one of
    /// the local (`facts`). Signed sums, and unsigned ones that add; wrap-around is not
    /// modelled, as for counters.
    pub offsets: Vec<(StmtId, i64)>,
    /// The source text of `case` labels that are not plain numbers (`'$'`, `RBRACE`,
    /// `TOK_WORD`), by switch block and value, sorted: how messages name a case.
    pub case_labels: Vec<(BlockId, i64, String)>,
    /// Branches that test an array element at a constant index against a constant (`s[0] ==
    /// '*'`, `if (v[2])`), by block, sorted: the index of each element step of the tested place,
    /// root first (`None`: not a constant), which `Place::Index` forgets. Facts key such an
    /// element on its own (`facts`), so that two tests of `s[2]` agree and `s[1]` is another value.
    pub tested_elems: Vec<(BlockId, Vec<Option<i64>>)>,
    /// C++: the blocks whose `NoReturn` is an exception leaving the function (`throw`, or an
    /// exceptional edge `exceptions::add_edges` made), sorted. Unlike `exit`, the frame dies
    /// there: what only its locals hold is lost (the locals' destructors ran before it).
    pub throws: Vec<BlockId>,
    /// C++: the calls that may throw, by statement, sorted, each with where its exception goes.
    /// Read only with `--exceptions` (`exceptions::add_edges` turns them into edges); the
    /// analysis never looks at them otherwise.
    pub unwinds: Vec<Unwind>,
    /// C++: the cycles of `std::shared_ptr` owners the function builds among blocks it creates
    /// and then loses (`frontend/owner_cycles.rs`), in source order of their reported block.
    /// Found by the front end, where the owners' operations are visible; the checkers turn each
    /// into a `leak`. Empty in C.
    pub owner_cycles: Vec<OwnerCycle>,
}

/// A cycle of `std::shared_ptr` owners (`Function::owner_cycles`): blocks that own each other
/// through `shared_ptr` members and that nothing outside the cycle owns when the function ends,
/// so that no count ever drops to zero.
#[derive(Debug, Clone, Hash, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerCycle {
    /// The allocation reported: the cycle's first block in source order.
    pub at: Loc,
    /// What allocated it: `std::make_shared` or `new`.
    pub allocator: String,
    /// The cycle from that block back to it, one owning member each: (holder, member, held),
    /// holders and held blocks named as the function names them (`a`, `a->next`).
    pub links: Vec<(String, String, String)>,
    /// The allocations of the cycle's other blocks, in the order of `links`.
    pub others: Vec<Loc>,
    /// Where the last owners outside the cycle are gone: the end of the function, or the
    /// `return` that leaves it.
    pub lost: Loc,
}

/// Where an exception thrown by one call goes (`Function::unwinds`).
#[derive(Debug, Clone, Hash, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unwind {
    /// The call that may throw.
    pub call: StmtId,
    /// The destructors that run on the way, in order: the object's local, the callee's name and USR.
    pub cleanups: Vec<(LocalId, String, String)>,
    /// The handlers' dispatch block of the `try` around the call; `None`: the exception leaves
    /// the function.
    pub handler: Option<BlockId>,
}

impl Function {
    /// Whether the `NoReturn` ending block `b` is an exception leaving the function
    /// (`Function::throws`).
    pub fn throws_at(&self, b: BlockId) -> bool {
        self.throws.binary_search(&b).is_ok()
    }
    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.index()]
    }
    pub fn stmt(&self, s: StmtId) -> &Stmt {
        &self.stmts[s.index()]
    }
    pub fn stmt_loc(&self, s: StmtId) -> Loc {
        self.stmt_locs[s.index()]
    }
    pub fn local(&self, l: LocalId) -> &LocalDecl {
        &self.locals[l.index()]
    }
    pub fn params(&self) -> impl Iterator<Item = LocalId> {
        (0..self.n_params).map(LocalId)
    }
    pub fn block_ids(&self) -> impl Iterator<Item = BlockId> {
        (0..self.blocks.len()).map(BlockId::from_usize)
    }
    /// What the bitwise expression assignment `s` stores says of the value's bits.
    pub fn bits_of(&self, s: StmtId) -> Option<&Bits> {
        self.bits.binary_search_by_key(&s, |b| b.0).ok().map(|i| &self.bits[i].1)
    }
    /// The constant indices of the element steps of the place the branch ending block `b` tests
    /// (`Function::tested_elems`), root first.
    pub fn tested_elems(&self, b: BlockId) -> Option<&[Option<i64>]> {
        let i = self.tested_elems.binary_search_by_key(&b, |e| e.0).ok()?;
        Some(&self.tested_elems[i].1)
    }
    /// The source text of the `case` label of value `v` in the switch ending block `b`.
    pub fn case_label(&self, b: BlockId, v: i64) -> Option<&str> {
        let i = self.case_labels.binary_search_by(|(cb, cv, _)| (*cb, *cv).cmp(&(b, v))).ok()?;
        Some(&self.case_labels[i].2)
    }
    /// The constant statement `s` adds to the integer it stores into, if it is such a step.
    pub fn step_of(&self, s: StmtId) -> Option<(i64, bool)> {
        self.steps.binary_search_by_key(&s, |b| b.0).ok().map(|i| (self.steps[i].1, self.steps[i].2))
    }
    /// The least value statement `s` stores, when it stores an expression of unsigned type
    /// (`Function::nonneg`): 0, or the constants of an unsigned sum.
    pub fn nonneg_floor(&self, s: StmtId) -> Option<i64> {
        self.nonneg.binary_search_by_key(&s, |n| n.0).ok().map(|i| self.nonneg[i].1)
    }
    /// Statement `s` keeps the integer it stores into at least what it was, if that was at
    /// least 0 (`Function::grows`).
    pub fn grows_at(&self, s: StmtId) -> bool {
        self.grows.binary_search(&s).is_ok()
    }
    /// The constant statement `s` adds to the one local it reads, when it stores `x + k` into a
    /// temporary (`Function::offsets`).
    pub fn offset_of(&self, s: StmtId) -> Option<i64> {
        self.offsets.binary_search_by_key(&s, |o| o.0).ok().map(|i| self.offsets[i].1)
    }
    /// The bits of `op` wherever it is read: a constant's, or those of a temporary the function
    /// assigns once, by a bitwise expression (`f(s, flags | F)`).
    /// The operand is a temporary assigned once the address of an object (`&buf` of a local
    /// array, `&g`, `&s.f`, `p->name` of an array member): never NULL in a program that runs.
    /// Not `&*p`, which is `p`.
    pub fn is_object_address(&self, op: &Operand) -> bool {
        let Operand::Place(Place::Local(t)) = op else { return false };
        if self.local(*t).kind != LocalKind::Temp {
            return false;
        }
        let mut defs = self.stmts.iter().filter(|s| match s {
            Stmt::Assign { dst, .. } | Stmt::Call { dst: Some(dst), .. } => *dst == Place::Local(*t),
            Stmt::Call { dst: None, .. } => false,
        });
        matches!((defs.next(), defs.next()), (Some(Stmt::Assign { src: Rvalue::AddrOf(p), .. }), None) if !matches!(p, Place::Deref(_)))
    }

    pub fn operand_bits(&self, op: &Operand) -> Option<Bits> {
        let t = match op {
            Operand::Const(k) => return Some(Bits::constant(*k)),
            Operand::Place(Place::Local(t)) if self.local(*t).kind == LocalKind::Temp => *t,
            _ => return None,
        };
        let assigns = |s: &Stmt| match s {
            Stmt::Assign { dst, .. } | Stmt::Call { dst: Some(dst), .. } => *dst == Place::Local(t),
            Stmt::Call { dst: None, .. } => false,
        };
        let (s, bits) = self.bits.iter().find(|(s, _)| assigns(self.stmt(*s)))?;
        let once = self.stmts.iter().enumerate().all(|(i, st)| i == s.index() || !assigns(st));
        once.then_some(*bits)
    }
}

/// What bitwise operators say of an integer value: bit `i` is 1 where `ones` has it, 0 where
/// `zeros` has it, bit `i` of local `base` (read where the expression is) where `from_base` has
/// it, and unknown elsewhere. The three masks are disjoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bits {
    pub base: Option<LocalId>,
    pub from_base: i64,
    pub ones: i64,
    pub zeros: i64,
}

impl Bits {
    pub const UNKNOWN: Bits = Bits { base: None, from_base: 0, ones: 0, zeros: 0 };

    pub fn constant(k: i64) -> Bits {
        Bits { base: None, from_base: 0, ones: k, zeros: !k }
    }

    pub fn local(l: LocalId) -> Bits {
        Bits { base: Some(l), from_base: -1, ones: 0, zeros: 0 }
    }

    /// The bits of `a op b` that are a base's: those both sides take from one base, and those one
    /// side takes from its base where the other side's bit is `keep` (0 for `|`, 1 for `&`).
    /// Two different bases: the bits of one of them only (the others become unknown).
    fn through(a: Bits, a_keep: i64, b: Bits, b_keep: i64) -> (Option<LocalId>, i64) {
        let (from_a, from_b) = (a.from_base & b_keep, b.from_base & a_keep);
        match (a.base, b.base) {
            (Some(x), Some(y)) if x == y => (Some(x), from_a | from_b | (a.from_base & b.from_base)),
            (Some(x), _) if from_a != 0 => (Some(x), from_a),
            (_, Some(y)) if from_b != 0 => (Some(y), from_b),
            _ => (None, 0),
        }
    }

    pub fn or(a: Bits, b: Bits) -> Bits {
        let ones = a.ones | b.ones;
        let (base, from_base) = Bits::through(a, a.zeros, b, b.zeros);
        Bits { base, from_base: from_base & !ones, ones, zeros: a.zeros & b.zeros }
    }

    pub fn and(a: Bits, b: Bits) -> Bits {
        let zeros = a.zeros | b.zeros;
        let (base, from_base) = Bits::through(a, a.ones, b, b.ones);
        Bits { base, from_base: from_base & !zeros, ones: a.ones & b.ones, zeros }
    }

    pub fn not(a: Bits) -> Bits {
        Bits { base: None, from_base: 0, ones: a.zeros, zeros: a.ones }
    }

    /// Whether `value & mask` is non-zero, when the known bits decide it.
    pub fn masked(&self, mask: i64) -> Option<bool> {
        if self.ones & mask != 0 {
            Some(true)
        } else if self.zeros & mask == mask {
            Some(false)
        } else {
            None
        }
    }

    /// `value & mask` is non-zero exactly when `base & m` is: the base and `m`, when every bit of
    /// `mask` is zero or the base's.
    pub fn test_of_base(&self, mask: i64) -> Option<(LocalId, i64)> {
        let m = mask & !self.zeros;
        (m != 0 && self.ones & mask == 0 && m & !self.from_base == 0).then_some((self.base?, m))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LocalKind {
    Param,
    Var,
    /// Introduced by lowering to hold an intermediate value (a call result, a `?:` value).
    Temp,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LocalDecl {
    pub name: String,
    pub kind: LocalKind,
    /// Pointer-typed (after typedefs). Arrays and structs are not pointers.
    pub is_pointer: bool,
    /// Arrays, structs and unions: the variable is storage, not a scalar value.
    pub is_aggregate: bool,
    /// An aggregate through which a library function handed it by value may run code of the
    /// program (`frontend::stdlib::may_run_code`: a lambda, a function object, a class that
    /// copies itself by its own code), so that the call may write any global
    /// (`summary::hands_code`); `false` for an iterator or a `std::string`. An aggregate
    /// temporary whose type the lowering does not give is taken to.
    pub may_run_code: bool,
    /// `static` locals live for the whole program, like globals.
    pub is_static: bool,
    /// For a declared pointer: it points to pointers (`char **`: `Some(true)`) or to plain
    /// scalars (`char *`, `int *`: `Some(false)`); `None` for anything else (`void *`, a
    /// struct, a temporary). Facts take an element stored through a pointer to pointers to be
    /// no element of a string (`facts`: a store's type is the object's).
    pub pointee_pointer: Option<bool>,
    pub loc: Loc,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Block {
    pub stmts: Vec<StmtId>,
    pub term: Terminator,
    pub term_loc: Loc,
}

#[derive(Debug, Clone, Hash, Serialize, Deserialize)]
pub enum Terminator {
    Goto(BlockId),
    /// Two-way branch: `then_` when `cond` holds.
    Branch {
        cond: Cond,
        then_: BlockId,
        else_: BlockId,
    },
    /// `switch` with its case constants (GNU case ranges expanded when small, else `default`).
    Switch {
        on: Operand,
        cases: Vec<(i64, BlockId)>,
        default: BlockId,
    },
    Return(Option<Operand>),
    /// The path ends without returning: a call to a noreturn function (exit, abort, longjmp, …)
    /// or `__builtin_unreachable()`.
    NoReturn,
}

impl Terminator {
    /// The blocks it may jump to, in order (a switch's cases, then its default), without
    /// allocating: the CFG of every checked function is built from them.
    pub fn successors(&self) -> impl Iterator<Item = BlockId> + '_ {
        let (first, cases, last): (Option<BlockId>, &[(i64, BlockId)], Option<BlockId>) = match self {
            Terminator::Goto(b) => (Some(*b), &[], None),
            Terminator::Branch { then_, else_, .. } => (Some(*then_), &[], Some(*else_)),
            Terminator::Switch { cases, default, .. } => (None, cases, Some(*default)),
            Terminator::Return(_) | Terminator::NoReturn => (None, &[], None),
        };
        first.into_iter().chain(cases.iter().map(|c| c.1)).chain(last)
    }
}

/// A branch condition atom. Lowering normalises NULL tests: `p`, `p != NULL`, `p != 0`, `!p`
/// (with the targets swapped), `p == NULL` (swapped), `NULL == p`, `likely(p)` all become
/// `Truthy(p)`.
#[derive(Debug, Clone, Hash, Serialize, Deserialize)]
pub struct Cond {
    pub kind: CondKind,
    /// The source text of the tested expression, for reports (`q == NULL`).
    pub text: String,
    /// The source text holds on the `else_` edge, not the `then_` edge: lowering swapped the
    /// targets when it normalised `q == NULL` / `!q` into `Truthy(q)`.
    pub text_on_else: bool,
}

#[derive(Debug, Clone, PartialEq, Hash, Serialize, Deserialize)]
pub enum CondKind {
    /// The operand is non-zero / non-NULL.
    Truthy(Operand),
    /// A comparison of two operands (neither side is the constant 0 with `==`/`!=`: that is `Truthy`).
    Cmp(CmpOp, Operand, Operand),
    /// Anything else (floating point, calls folded into temporaries are *not* opaque: they are
    /// `Truthy(temp)`).
    Opaque,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The comparison that holds exactly when this one does not (`<` → `>=`).
    pub fn negated(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }

    /// `a OP b` on two known values.
    pub fn eval(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    /// The same comparison with its operands swapped (`a < b` is `b > a`).
    pub fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            o => o,
        }
    }
}

#[derive(Debug, Clone, Hash, Serialize, Deserialize)]
pub enum Stmt {
    Assign { dst: Place, src: Rvalue },
    Call { dst: Option<Place>, callee: Callee, args: Vec<Operand> },
}

#[derive(Debug, Clone, PartialEq, Hash, Serialize, Deserialize)]
pub enum Callee {
    /// A call to a named function (declared or defined). `const_args`: bit `i` set when the
    /// callee's prototype, as the call sees it, declares parameter `i` a pointer to const
    /// (`const T *`, `const T *const`, `const void *`; not `T *const`, not `const T **`): a
    /// promise to read through it, which decides what a callee with no body and no model does
    /// with the block (`model::Model::unknown_call`). None for arguments in a variadic part,
    /// for unprototyped (K&R) callees, and for a call that passes a function pointer or whose
    /// callee takes one (a callback may be the destructor of a block the callee keeps:
    /// `sqlite3_bind_text (st, 1, p, -1, free)`). Arguments past the 64th never have it.
    Direct { name: String, usr: String, const_args: u64 },
    /// A call through a function pointer; `sig` is the canonical spelling of the called function
    /// type, compared with `Function::sig` to find the possible targets. `field` is the key of the
    /// function-pointer field the pointer is loaded from (`struct mem_methods::alloc` for
    /// `cfg.alloc(n)` or `p->alloc(n)`), or of the function-pointer variable it is (`variable
    /// c:@hook` for `hook(n)`, `frontend/fields.rs`), whose stores may name the targets exactly
    /// (`Program::field_targets`); `None` when the callee is neither (a parameter, an array
    /// element, a call's result). A C++ virtual call is one too, with `target` unknown and the
    /// key of its class and method (`VIRTUAL_KEY`), resolved over the class hierarchy.
    Indirect { target: Operand, sig: String, field: Option<String> },
}

#[derive(Debug, Clone, PartialEq, Hash, Serialize, Deserialize)]
pub enum Rvalue {
    /// Copy of an operand: plain copies, casts, and pointer arithmetic with the offset abstracted.
    Use(Operand),
    /// `&place`.
    AddrOf(Place),
    /// A value computed from the operands that does not carry a pointer into their blocks
    /// (integer arithmetic, comparisons, `sizeof`). The operands are kept for future reads.
    Opaque(Vec<Operand>),
}

#[derive(Debug, Clone, PartialEq, Hash, Serialize, Deserialize)]
pub enum Operand {
    Place(Place),
    /// Integer constant (including NULL, character literals and enumerators).
    Const(i64),
    /// Address of a string literal.
    Str,
    /// Address of a function (`&f` or `f` used as a value).
    Func {
        name: String,
        usr: String,
    },
    /// A value the lowering could not describe (floating constants, unsupported expressions).
    Unknown,
}

impl Operand {
    pub fn local(&self) -> Option<LocalId> {
        match self {
            Operand::Place(Place::Local(l)) => Some(*l),
            _ => None,
        }
    }
    pub fn is_null_const(&self) -> bool {
        matches!(self, Operand::Const(0))
    }
}

/// A memory location.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Place {
    Local(LocalId),
    /// A global variable (or a function-`static`, named `func::var`).
    Global(String),
    /// `*p`: the object the pointer value stored in `place` points to.
    Deref(Box<Place>),
    /// `place.field`; `p->f` is `Field(Deref(p), f)`.
    Field(Box<Place>, String),
    /// An element of the array object `place`, all indices collapsed: `a[i]` with `a` an array
    /// is `Index(Local(a))`; `p[i]` with `p` a pointer is `Index(Deref(p))`.
    Index(Box<Place>),
}

impl Place {
    pub fn as_local(&self) -> Option<LocalId> {
        match self {
            Place::Local(l) => Some(*l),
            _ => None,
        }
    }
    /// The local whose own storage this place is part of (`s` in `s.a[i]`), if any: `&` of the
    /// place takes that local's address. `p->a` is in the memory `p` points to, not in `p`.
    pub fn storage_local(&self) -> Option<LocalId> {
        match self {
            Place::Local(l) => Some(*l),
            Place::Global(_) | Place::Deref(_) => None,
            Place::Field(p, _) | Place::Index(p) => p.storage_local(),
        }
    }

    /// For a place inside the object a local points to (`p->a.b`, `p[i]`, `*p`): that local.
    /// `&` of such a place is an interior pointer into the same cell (FastCheck 5.6.2).
    pub fn pointee_of_local(&self) -> Option<LocalId> {
        match self {
            Place::Deref(inner) => inner.as_local(),
            Place::Field(p, _) | Place::Index(p) => p.pointee_of_local(),
            Place::Local(_) | Place::Global(_) => None,
        }
    }

    /// The local at the root of an access path (`p` in `p->a.b`), if any.
    pub fn root_local(&self) -> Option<LocalId> {
        match self {
            Place::Local(l) => Some(*l),
            Place::Global(_) => None,
            Place::Deref(p) | Place::Field(p, _) | Place::Index(p) => p.root_local(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Bits, LocalId};

    #[test]
    fn bits_say_which_flag_tests_are_decided_and_which_are_the_bases() {
        let (x, y) = (Bits::local(LocalId(0)), Bits::local(LocalId(1)));
        // `x | 1`: bit 0 set, the others are x's.
        let set = Bits::or(x, Bits::constant(1));
        assert_eq!(set.masked(1), Some(true));
        assert_eq!(set.masked(2), None);
        assert_eq!(set.test_of_base(2), Some((LocalId(0), 2)));
        assert_eq!(set.test_of_base(3), None, "bit 0 is set whatever x is");
        // `x & ~1`: bit 0 clear.
        let clear = Bits::and(x, Bits::not(Bits::constant(1)));
        assert_eq!(clear.masked(1), Some(false));
        assert_eq!(clear.test_of_base(3), Some((LocalId(0), 2)));
        // `(x & 2) != 0` is the test of bit 1 of x.
        assert_eq!(Bits::and(x, Bits::constant(2)).test_of_base(-1), Some((LocalId(0), 2)));
        // Bits from two locals, or through `~` and `^`, are not one base's.
        let both = Bits::or(Bits::and(x, Bits::constant(1)), Bits::and(y, Bits::constant(2)));
        assert_eq!(both.test_of_base(1), Some((LocalId(0), 1)));
        assert_eq!(both.test_of_base(3), None);
        assert_eq!(Bits::not(x), Bits::UNKNOWN);
        // `c ? 0x40 : 0` ORed in leaves the other bits x's.
        let maybe = Bits::or(x, Bits { base: None, from_base: 0, ones: 0, zeros: !0x40 });
        assert_eq!(maybe.test_of_base(1), Some((LocalId(0), 1)));
        assert_eq!(maybe.masked(0x40), None);
    }
}
