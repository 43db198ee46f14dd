//! Function summaries and the callee models the checker sees at call sites.
//!
//! Input: a function's site verdicts and parameter flows (computed by `fastcheck`), and the
//! summaries of its callees. Output: a `Summary` per defined function, written once into
//! `Summaries`, and `Model`s: one description of a callee, whether it comes from the library
//! table, a summary, or the unknown-callee default.
//! Invariants: a summary is written once, after all summaries it depends on (the driver walks the
//! call graph bottom-up), and never changes; a callee without a summary yet (a recursive call
//! inside its own SCC) gets the conservative unknown-callee model.

use crate::global_writes::{
    global_root, is_address_taken, is_builtin, store_field_writes, whole_object_writer, FieldWrites, GlobalWrites,
};
use crate::ir::{Callee, CondKind, Function, LocalId, Operand, Place, Program, Rvalue, Stmt, Terminator};
use crate::libmodel::{self, ArgEffect, RetEffect, Success};
use crate::model::heap_fate;
pub use crate::model::{Held, Model, PathFate};
use hashbrown::{HashMap, HashSet};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};

/// What a function does with the cell passed in one of its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ParamFate {
    /// Only read (or not a pointer): the caller keeps ownership.
    Reads,
    /// Freed on every path that returns (or ends the program).
    Frees,
    /// Freed exactly when parameter `flag` is non-zero (`when`) or zero (`!when`), and only read
    /// otherwise: `if (owned) free(p)`. A call with a constant flag frees or only reads; a call with
    /// any other flag is treated as an escape.
    FreesIf { flag: usize, when: bool },
    /// Freed exactly when the function succeeds (`on_success`) or fails, as its return value
    /// tells by `Summary::ret_success`, and only read (or kept: `else_keeps`) otherwise:
    /// `if (parse(buf) < 0) { free(buf); return -1; } ... return 0;`.
    FreesWhen { on_success: bool, else_keeps: bool },
    /// Reallocated as `realloc` does it: freed exactly when the result is a fresh non-NULL block,
    /// left alone when the result is NULL. With `size`, a size parameter of zero frees the block
    /// (`l_alloc(ud, p, osize, 0)`, Lua's `lua_Alloc` contract): a call with a constant zero
    /// size is a free; any other call is seen as `realloc`, whose size-zero case drip's library
    /// row ignores too (code that frees with size zero says so with a constant).
    Reallocs { size: Option<usize> },
    /// Stored somewhere, passed to unknown code, or freed only on some paths: ownership is no
    /// longer the caller's to reason about.
    Escapes,
}

/// Serialisable for the incremental cache (`reuse`), which stores it with `origin`'s file as a
/// path, never as a `FileId`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The function may return a fresh heap cell (FastCheck 5.6: an allocator wrapper).
    pub allocator: bool,
    /// For an allocator: the first allocating call whose cell it returns, so reports can show the
    /// chain of wrappers down to `malloc`.
    pub origin: Option<AllocOrigin>,
    /// Every `return` hands back a fresh cell (or the program ends): a discarded result is surely
    /// a leak. Allocators that return NULL or a non-fresh value on some inputs (`realloc`-style
    /// wrappers called with size 0) are not trusted with that.
    pub always_fresh: bool,
    pub params: Vec<ParamFate>,
    /// The function returns (an alias of) this parameter.
    pub returns_param: Option<usize>,
    /// ... and the alias is the parameter itself on every path (`strcpy`, `memcpy`): NULL only
    /// when the parameter is, not a pointer into it (`strchr`) or NULL on failure (`fgets`).
    pub returns_param_itself: bool,
    /// No path returns to the caller.
    pub noreturn: bool,
    /// How the return value tells success from failure, when a `FreesWhen` parameter depends on
    /// it: every return is a constant of one class or the other.
    pub ret_success: Option<Success>,
    /// An allocator that returns a fresh cell only when parameter `.0` masked by `.1` is non-zero
    /// (`.2`) or zero (`!.2`): `return copy ? strdup(s) : (char *)s;` (mask -1, the whole value),
    /// `return (flags & NOALLOC) ? NULL : substring(s, i, j);` (mask `NOALLOC`).
    pub alloc_if: Option<(usize, i64, bool)>,
    /// Places below parameters where it hands back a fresh cell (`*out = p` is path `*`,
    /// `obj->buf = p` is `*.buf`), with how the return value tells that it did (the same for all
    /// of them).
    pub out_fresh: Vec<(usize, Arc<str>, Success)>,
    /// Hands those cells out only when parameter `.0` masked by `.1` is non-zero (`.2`) or zero
    /// (`!.2`), as `alloc_if` for the result: git's `strbuf_init(sb, hint)` grows `sb->buf`
    /// only `if (hint)`, so `strbuf_init(sb, 0)` allocates nothing.
    pub out_fresh_if: Option<(usize, i64, bool)>,
    /// Paths inside the returned object that hold fresh cells (a constructor's fields).
    pub ret_fresh: Vec<Arc<str>>,
    /// Paths inside the returned object that hold a fresh cell only when parameter `.1` masked
    /// by `.2` is non-zero (`.3`) or zero (`!.3`): an optional field, `if (tip) w->tooltip =
    /// strdup (tip);`. Sorted, none of them in `ret_fresh`.
    pub ret_fresh_if: Vec<(Arc<str>, usize, i64, bool)>,
    /// Heap effects: (parameter, access path below it, fate), sorted. A path not listed takes the
    /// parameter's `OTHER_PATH_TEXT` entry, and without one `heap_pure` decides.
    /// Shared, because every call site's `Model` carries it.
    pub heap: Arc<[(usize, Arc<str>, PathFate)]>,
    /// The function frees, keeps and overwrites nothing reachable from its parameters.
    pub heap_pure: bool,
    /// The family of the deallocator that frees the cell at (parameter, access path) of `heap`
    /// where every free of it there is of one family (`std::unique_ptr<T>`'s destructor deletes
    /// `this->(owned)` with `delete`), so that a caller's `new T[n]` handed to it is a
    /// `mismatched-deallocation`. Sorted.
    pub heap_families: Arc<[(usize, Arc<str>, libmodel::Family)]>,
    /// For an allocator: places below parameters (`*pRc`, `p->rc`, `*mustfree`) that hold one
    /// value on every path that returns a fresh cell: 0 for an error code, as
    /// `sqlite3Fts5MallocZero(&rc, n)` and `fts5DataRead(p, ..)` leave it, non-zero for a flag
    /// that says the result was allocated, as vim's `vim_getenv(name, &mustfree)` sets it. A
    /// caller's test of that place after the call then goes one way wherever the cell exists.
    pub ret_values: Vec<(usize, Arc<str>, Held)>,
    /// For a function that hands fresh cells back below its parameters (`out_fresh`): places
    /// below parameters that hold one value wherever it does, as `ret_values` for the result. A
    /// count stepped with the store is not 0: `v[(*n)++] = p` (tmux's `expand_paths`), git's
    /// `strbuf_addch` growing `sb->buf` and incrementing the `size_t` `sb->len`.
    pub out_values: Vec<(usize, Arc<str>, Held)>,
    /// Places below parameters that hold one constant wherever the function returns normally,
    /// whatever else it does (`exits`): a constructor's `this->count = 1`, a C `obj_init (o)`
    /// setting `o->refs = 1`. A caller's facts take them after the call (`facts`), so the
    /// count a `new T` starts with decides the `--count <= 0` test that releases it.
    pub exit_values: Vec<(usize, Arc<str>, i64)>,
    /// Stores below parameters, in the function's statement order (`alias::Write`): at a call
    /// whose arguments name the same place, the later store wins (Dillig et al.'s update order).
    pub writes: Arc<[crate::model::Write]>,
    /// Every `return` returns this constant (`static int enabled(void) { return 1; }`): callers
    /// fold their tests of the result, in whichever file the function is defined.
    pub ret_const: Option<i64>,
    /// An allocator whose result is never NULL (`xmalloc` ends the program when `malloc` fails):
    /// a caller's test of the result for NULL takes the non-NULL side only.
    pub never_null: bool,
    /// An allocator whose result is never NULL when parameter `.0` is the constant `.1`
    /// (`precond`): git's `do_xmalloc(size, gentle)` with `gentle` 0 dies rather than return
    /// NULL. A call whose argument there is that literal sees `never_null`.
    pub never_null_when: Option<(usize, i64)>,
    /// Every `return` a path reaches returns `.2` when parameter `.0` is the constant `.1`
    /// (`precond`): `memory_limit_check(size, gentle)` returns -1 only when `gentle` is set. A
    /// call whose argument there is that literal sees `ret_const`.
    pub ret_const_when: Option<(usize, i64, i64)>,
    /// Every `return` a path reaches returns `.2` when the pointer parameters of `.0` (bit `i`)
    /// are not NULL and, with `.1`, parameter `.1.0` is the constant `.1.1` (`precond`): the
    /// answer of a function whose only failures are its argument checks (libgit2's
    /// `git_pool_init (&m->pool, 1)`), for a call whose arguments are known to pass them
    /// (`nonnull`'s per-call arguments, a literal).
    pub ret_const_checked: Option<(u64, Option<(usize, i64)>, i64)>,
    /// An allocator that returns NULL on every path when parameter `.0` is the constant `.1`
    /// (`precond`): vim's `ExpandOne_start (mode, ..)` allocates only when `mode` is not
    /// `WILD_LONGEST` (or two other modes). A call passing that literal allocates nothing; at
    /// any other call the allocation's success says the argument was not that constant, which
    /// the caller's later tests of the argument see (`fastcheck::flow`).
    pub null_when: Vec<(usize, i64)>,
    /// Preconditions (parameter `.0` is the constant `.1`) under which no path of the function
    /// returns (`precond`): a call passing that literal ends the caller's path, as `exit` does
    /// (groff's `do_assert (0, ..)`).
    pub noreturn_when: Vec<(usize, i64)>,
    /// The globals the function may write, through its callees too (`global_writes`): set by
    /// the driver for its whole SCC; `All` in any summary made elsewhere.
    pub globals_written: GlobalWrites,
    /// The fields below its arguments the function may write, through its callees too
    /// (`global_writes::FieldWrites`): set by the driver for its whole SCC; `All` in any summary
    /// made elsewhere.
    pub fields_written: FieldWrites,
    /// Per parameter, what of `fields_written` may be written below it (through what it points
    /// to, or what is loaded from there), through callees too (`param_writes_of_scc`): set by
    /// the driver, empty (ask `fields_written`) in any summary made elsewhere. Inside a recursive
    /// SCC every member's `fields_written` is the SCC's; these still tell its members apart.
    pub param_fields_written: Arc<[FieldWrites]>,
    /// The globals the function may read, through its callees too (`global_writes::stmt_reads`):
    /// set by the driver for its whole SCC, as `globals_written`; `All` in any summary made
    /// elsewhere. A caller's block held only in a global stays there across a call that cannot
    /// read it (`fastcheck::flow`).
    pub globals_read: GlobalWrites,
    /// The globals whose value (the pointer a global holds, not what it points to) the function
    /// may hand on, itself or through its callees: copy anywhere but into a local that is only
    /// read, give to a callee that may keep or free it, return it
    /// (`global_stores::globals_kept`). A callee that only prints or tests a global leaves a
    /// caller's block held there where it is (`fastcheck::flow`). `All` where not computed.
    pub globals_kept: GlobalWrites,
    /// Globals (`global_leaks::global_path`s, sorted) whose value on entry the function
    /// overwrites on every path that returns, before anything could read it
    /// (`fastcheck::global_stores`): `void set (const char *s) { name = xstrdup (s); }`. A
    /// caller's block held only there is lost at the call.
    pub global_overwrites: Arc<[Arc<str>]>,
    /// Of `global_overwrites`, those that hold a fresh cell of the function's on every path
    /// that returns (NULL where its allocation failed), handed on to nothing: each call is an
    /// allocation site of the caller's, whose cell starts in that global.
    pub global_fresh: Arc<[Arc<str>]>,
    /// Every `return` returns the address of the place at this path below parameter `.0`
    /// (`return &rec->u;` is `(0, "*.u")`; `interior`): a caller that passes the result on lets
    /// the next callee reach its own slots there.
    pub ret_addr: Option<(usize, Arc<str>)>,
    /// The result is a function of the argument values alone: the function reads no memory
    /// and no global, writes nothing but its locals, and calls only such functions
    /// (`is_fixup (command)`: `command == FIXUP || command == SQUASH`). Two calls with the same
    /// arguments give the same result, so the caller's two tests of them agree (`cfg`).
    pub pure_value: bool,
    /// The result is a function of the argument values and the memory: the function writes
    /// nothing but its locals and calls only such functions and library readers
    /// (`libmodel::reads_only`): `longer_than (s, n)` returning `strlen (s) > n`. Two calls with
    /// the same arguments and no store to memory in between give the same result (`cfg`).
    /// Implied by `pure_value`.
    pub reads_only: bool,
    /// For an allocator: the family of every fresh cell it returns (`xmalloc` wrapping `malloc`
    /// is `Malloc`), `None` when its sites disagree or one is unknown.
    pub alloc_family: Option<libmodel::Family>,
    /// For a deallocator: the family of every free of its parameters (`my_free` calling `free`
    /// is `Malloc`), `None` when they disagree or one is unknown.
    pub free_family: Option<libmodel::Family>,
    /// Parameters that escape (`ParamFate::Escapes`) only into one global, by its store path
    /// (`void remember(char *p) { last = p; }` is `(0, "last")`; `fastcheck::param_global`):
    /// a caller's block passed there is in that global (`EscapeKind::Global`), which
    /// `global_leaks` asks the whole program about. Sorted by parameter.
    pub param_globals: Arc<[(usize, Arc<str>)]>,
    /// Parameters (a bit each, below 64) the function only hands, as they are, to callees that
    /// only read them: a `va_list` given to `vfprintf` (`varargs::va_reads`).
    pub va_reads: u64,
    /// The variadic arguments are only read (`varargs::va_reads`): a call's extras do not
    /// escape (`printf`-like wrappers).
    pub varargs_read: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocOrigin {
    pub loc: crate::ir::Loc,
    /// The allocating callee there (`malloc`, or the next wrapper).
    pub allocator: String,
    /// Its USR, to follow the chain into the next wrapper's summary.
    pub usr: String,
}

impl Summary {
    /// A function that allocates nothing and takes no pointers.
    pub fn plain(n_params: usize, noreturn: bool) -> Summary {
        Summary {
            allocator: false,
            origin: None,
            always_fresh: false,
            params: vec![ParamFate::Reads; n_params],
            returns_param: None,
            returns_param_itself: false,
            noreturn,
            ret_success: None,
            alloc_if: None,
            out_fresh: Vec::new(),
            out_fresh_if: None,
            ret_fresh: Vec::new(),
            ret_fresh_if: Vec::new(),
            heap: Arc::from([]),
            heap_pure: true,
            heap_families: Arc::from([]),
            ret_values: Vec::new(),
            out_values: Vec::new(),
            exit_values: Vec::new(),
            writes: Arc::from([]),
            ret_const: None,
            never_null: false,
            never_null_when: None,
            ret_const_when: None,
            ret_const_checked: None,
            null_when: Vec::new(),
            noreturn_when: Vec::new(),
            globals_written: GlobalWrites::All,
            fields_written: FieldWrites::All,
            param_fields_written: Arc::from([]),
            globals_read: GlobalWrites::All,
            globals_kept: GlobalWrites::All,
            global_overwrites: Arc::from([]),
            global_fresh: Arc::from([]),
            ret_addr: None,
            pure_value: false,
            reads_only: false,
            alloc_family: None,
            free_family: None,
            param_globals: Arc::from([]),
            va_reads: 0,
            varargs_read: false,
        }
    }

    /// A library row as the summary of a function with `n_params` parameters, for the meet of
    /// an indirect call's targets; `None` for rows a summary cannot say (out-parameters,
    /// flag-conditioned frees).
    pub fn of_library(lib: &libmodel::LibFn, n_params: usize) -> Option<Summary> {
        let mut s = Summary::plain(n_params, lib.noreturn);
        s.globals_written = GlobalWrites::none();
        s.globals_read = GlobalWrites::none();
        s.globals_kept = GlobalWrites::none();
        s.fields_written = FieldWrites::of_library(lib.name);
        s.alloc_family = libmodel::family(lib);
        s.free_family = libmodel::family(lib);
        match lib.ret {
            RetEffect::Plain => {}
            RetEffect::Fresh(Success::NonNull) => {
                s.allocator = true;
                s.always_fresh = true;
            }
            RetEffect::Fresh(_) => return None,
            RetEffect::ArgAlias(i) => {
                s.returns_param = Some(i);
                s.returns_param_itself = libmodel::returns_argument_itself(lib.name);
            }
        }
        let mut heap: Vec<(usize, Arc<str>, PathFate)> = Vec::new();
        for &(i, effect) in lib.args {
            let fate = match effect {
                ArgEffect::Frees => {
                    // What the freed object held is lost with it, as the row's model says.
                    heap.push((i, Arc::from(crate::model::OTHER_PATH_TEXT), PathFate::Lost));
                    ParamFate::Frees
                }
                libmodel::FREES_ON_SUCCESS => ParamFate::Reallocs { size: None },
                ArgEffect::Keeps => ParamFate::Escapes,
                _ => return None,
            };
            *s.params.get_mut(i)? = fate;
        }
        // What the row does not list, it only reads; nothing else below the arguments is touched.
        s.heap_pure = true;
        s.heap = heap.into();
        Some(s)
    }

    pub fn is_deallocator(&self) -> bool {
        self.params.iter().any(|p| {
            matches!(
                p,
                ParamFate::Frees | ParamFate::FreesIf { .. } | ParamFate::FreesWhen { .. } | ParamFate::Reallocs { .. }
            )
        })
    }
}

/// Write-once summaries of every defined function, looked up by USR.
pub struct Summaries {
    by_usr: HashMap<String, usize>,
    /// Address-taken functions by canonical type spelling (their own, and every function type
    /// they are cast to): the targets of indirect calls.
    by_sig: HashMap<String, Vec<usize>>,
    /// Function-pointer fields with at least one function stored into them and never any other
    /// value (`Program::field_targets` minus `Program::open_fields`): the defined functions
    /// stored there, which are exactly the targets of calls through the field.
    by_field: HashMap<String, Vec<usize>>,
    /// Library functions used as values (`Program::library_taken`), by type and by the fields
    /// they are stored into, as `by_sig` and `by_field` hold the program's own functions: the
    /// library rows an indirect call may reach besides them.
    lib_by_sig: HashMap<String, Vec<&'static libmodel::LibFn>>,
    lib_by_field: HashMap<String, Vec<&'static libmodel::LibFn>>,
    /// Defined functions whose library row is what their callers see
    /// (`libmodel::CONTRACT_KEPT_WHEN_DEFINED`, declared in `.drip.toml`, or the internal
    /// function such a definition only hands its arguments to: `delegate`), with that row, by
    /// index, sorted.
    contract: Vec<(usize, &'static libmodel::LibFn)>,
    /// The rows of the functions declared in `.drip.toml` (`declare`), which win over the
    /// library table and over definitions.
    declared: HashMap<String, &'static libmodel::LibFn>,
    names: Vec<String>,
    /// Globals whose value is fixed outside the program's way out (`globals`).
    pub fixed_globals: crate::globals::Fixed,
    /// Scalar globals whose address is never taken (`globals::unaliased`). In the SCCs' cache key
    /// with the address-taken ones (`reuse`).
    pub unaliased_globals: std::collections::HashSet<String>,
    /// Globals whose address the program takes (`global_writes::address_taken`).
    pub address_taken_globals: Vec<String>,
    slots: Vec<OnceLock<Summary>>,
    /// Per function, per statement: the direct call's callee, resolved once (`None` for other
    /// statements). Every check of a function asks for the model of each of its calls, and
    /// finding a USR among the functions hashes a long string.
    direct: Vec<Box<[Option<Direct>]>>,
    /// Pointers non-NULL at calls, and parameters non-NULL at every call (`nonnull`): a callee
    /// that allocates only for a NULL argument allocates nothing there.
    pub nonnull: crate::nonnull::NonNull,
}

/// What the callee of a direct call is.
#[derive(Clone, Copy, Debug)]
pub enum Direct {
    /// A function of the program (its index), summarised by the analysis.
    Defined(usize),
    /// A row of the library table.
    Library(&'static libmodel::LibFn),
    /// Defined nowhere and not in the library table.
    Undefined,
    /// A C++ call the lowering leaves opaque (`ir::OPAQUE_CPP_USR`) to function `.0` of the
    /// program: an unknown call to the heap, whose globals and fields written are `.0`'s
    /// (the call graph orders `.0` before its callers for it).
    Opaque(usize),
}

impl Summaries {
    pub fn new(program: &Program, declarations: &crate::declare::Declarations) -> Summaries {
        let mut by_usr = HashMap::new();
        for (i, f) in program.functions.iter().enumerate() {
            by_usr.entry(f.usr.clone()).or_insert(i);
        }
        let declared: HashMap<String, &'static libmodel::LibFn> =
            declarations.names().filter_map(|n| Some((n.to_string(), declarations.lookup(n)?))).collect();
        // The row of a name: its declaration, else the library table's.
        let row = |name: &str| declared.get(name).copied().or_else(|| libmodel::lookup(name));
        // The program's own `malloc`, `free`, ...: external definitions of the C allocator; and
        // every definition of a declared name (the declaration says what callers see).
        let mut contract: Vec<(usize, &'static libmodel::LibFn)> = by_usr
            .values()
            .copied()
            .filter(|&i| {
                let f = &program.functions[i];
                declared.contains_key(&f.name)
                    || (!f.is_static && libmodel::CONTRACT_KEPT_WHEN_DEFINED.contains(&f.name.as_str()))
            })
            .filter_map(|i| Some((i, row(&program.functions[i].name)?)))
            .collect();
        // The internal functions those definitions only hand their arguments to implement the
        // same contract, and other entry points call them too (bash's `sh_malloc (n, file,
        // line)` beside `malloc (n)`, both `internal_malloc (n, ..)`): seen as the row, those
        // entry points are wrappers of it, where the internal body (free lists carved from an
        // arena) would make them allocate nothing. One level: a delegate's own body is not
        // a bare hand-off.
        let delegates: Vec<(usize, &'static libmodel::LibFn)> = contract
            .iter()
            .filter(|(i, _)| !declared.contains_key(&program.functions[*i].name))
            .filter_map(|&(i, lib)| Some((*by_usr.get(delegate(&program.functions[i])?)?, lib)))
            .collect();
        for (j, lib) in delegates {
            if !contract.iter().any(|c| c.0 == j) {
                contract.push((j, lib));
            }
        }
        contract.sort_unstable_by_key(|c| c.0);
        let row_of = |i: usize| contract.binary_search_by_key(&i, |c| c.0).ok().map(|k| contract[k].1);
        let mut lib_by_sig: HashMap<String, Vec<&'static libmodel::LibFn>> = HashMap::new();
        let mut by_sig: HashMap<String, Vec<usize>> = HashMap::new();
        for usr in &program.address_taken {
            if let Some(&i) = by_usr.get(usr) {
                match row_of(i) {
                    Some(lib) => lib_by_sig.entry(program.functions[i].sig.clone()).or_default().push(lib),
                    None => by_sig.entry(program.functions[i].sig.clone()).or_default().push(i),
                }
            }
        }
        // A function cast to another function type is reached through that type too.
        for (usr, sig) in &program.cast_targets {
            if let Some(i) = by_usr.get(usr) {
                by_sig.entry(sig.clone()).or_default().push(*i);
            }
        }
        for v in by_sig.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        // A library function the program defines itself is that definition.
        let mut lib_of_usr: HashMap<&str, &'static libmodel::LibFn> = HashMap::new();
        for (usr, name, sig) in &program.library_taken {
            if let Some(&i) = by_usr.get(usr) {
                if let Some(lib) = row_of(i) {
                    lib_of_usr.insert(usr, lib);
                }
                continue;
            }
            if let Some(lib) = row(name) {
                lib_of_usr.insert(usr, lib);
                lib_by_sig.entry(sig.clone()).or_default().push(lib);
            }
        }
        let mut by_field: HashMap<String, Vec<usize>> = HashMap::new();
        let mut lib_by_field: HashMap<String, Vec<&'static libmodel::LibFn>> = HashMap::new();
        let (param_targets, param_open) = param_stores(program, &by_usr);
        let idle = idle_field_targets(program, &by_usr, &param_targets);
        for (key, usr) in program.field_targets.iter().chain(&param_targets) {
            if idle.contains(&(key.as_str(), usr.as_str())) {
                continue;
            }
            if program.open_fields.binary_search(key).is_err() && !param_open.contains(key) {
                // The key is known even when no stored function is defined here (`malloc`).
                let v = by_field.entry(key.clone()).or_default();
                v.extend(by_usr.get(usr).copied().filter(|&i| row_of(i).is_none()));
                if let Some(lib) = lib_of_usr.get(usr.as_str()) {
                    lib_by_field.entry(key.clone()).or_default().push(lib);
                }
            }
        }
        for v in by_field.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        for v in lib_by_sig.values_mut().chain(lib_by_field.values_mut()) {
            v.sort_unstable_by_key(|l| l.name);
            v.dedup_by_key(|l| l.name);
        }
        let address_taken = crate::global_writes::address_taken(program);
        let mut summaries = Summaries {
            by_usr,
            by_sig,
            by_field,
            lib_by_sig,
            lib_by_field,
            contract,
            declared,
            names: program.functions.iter().map(|f| f.name.clone()).collect(),
            fixed_globals: crate::globals::fixed(program),
            unaliased_globals: crate::globals::unaliased(program, &address_taken),
            address_taken_globals: address_taken,
            slots: (0..program.functions.len()).map(|_| OnceLock::new()).collect(),
            direct: Vec::new(),
            nonnull: crate::nonnull::NonNull::default(),
        };
        summaries.direct = program
            .functions
            .iter()
            .map(|f| {
                f.stmts
                    .iter()
                    .map(|s| match s {
                        crate::ir::Stmt::Call { callee: Callee::Direct { name, usr, .. }, .. } => {
                            Some(summaries.resolve(name, usr))
                        }
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        summaries.nonnull = crate::nonnull::compute(program, |f, s| summaries.direct(f, s));
        summaries
    }

    /// What the callee of a direct call to `name` (`usr`) is.
    fn resolve(&self, name: &str, usr: &str) -> Direct {
        // A declaration wins over a definition and over the library table.
        if let Some(lib) = (!self.declared.is_empty()).then(|| self.declared.get(name)).flatten() {
            return Direct::Library(lib);
        }
        match self.index_of(usr) {
            Some(i) => match self.contract.binary_search_by_key(&i, |c| c.0) {
                Ok(k) => Direct::Library(self.contract[k].1),
                Err(_) => Direct::Defined(i),
            },
            None => match usr.strip_prefix(crate::ir::OPAQUE_CPP_USR).and_then(|u| self.index_of(u)) {
                Some(i) => Direct::Opaque(i),
                None => libmodel::lookup(name).map_or(Direct::Undefined, Direct::Library),
            },
        }
    }

    /// The names of the defined functions whose callers see the C library's contract instead
    /// of their summary (`libmodel::CONTRACT_KEPT_WHEN_DEFINED`), sorted.
    pub fn contract_kept(&self) -> Vec<String> {
        self.kept(false)
    }

    /// The names of the defined functions whose callers see their declaration in `.drip.toml`
    /// instead of their summary, sorted.
    pub fn declared_defined(&self) -> Vec<String> {
        self.kept(true)
    }

    fn kept(&self, declared: bool) -> Vec<String> {
        let mut v: Vec<String> = self
            .contract
            .iter()
            .map(|&(i, lib)| (self.name_of(i), lib))
            .filter(|(n, _)| self.declared.contains_key(*n) == declared)
            .map(|(n, lib)| if n == lib.name { n.to_string() } else { format!("{n} (as {})", lib.name) })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// The library rows (built-in or declared) that direct calls of the program reach, each
    /// once, by name.
    pub fn library_rows_called(&self) -> Vec<&'static libmodel::LibFn> {
        let mut v: Vec<&'static libmodel::LibFn> = self
            .direct
            .iter()
            .flat_map(|d| d.iter())
            .filter_map(|d| match d {
                Some(Direct::Library(lib)) => Some(*lib),
                _ => None,
            })
            .collect();
        v.sort_unstable_by_key(|l| l.name);
        v.dedup_by_key(|l| l.name);
        v
    }

    /// No summaries at all: every user function is an unknown callee (used by unit tests).
    #[cfg(test)]
    pub fn none() -> Summaries {
        Summaries {
            by_usr: HashMap::new(),
            by_sig: HashMap::new(),
            by_field: HashMap::new(),
            lib_by_sig: HashMap::new(),
            lib_by_field: HashMap::new(),
            contract: Vec::new(),
            declared: HashMap::new(),
            names: Vec::new(),
            fixed_globals: Default::default(),
            unaliased_globals: Default::default(),
            address_taken_globals: Vec::new(),
            slots: Vec::new(),
            direct: Vec::new(),
            nonnull: Default::default(),
        }
    }

    /// The possible targets of an indirect call: the functions stored into its field when that
    /// field is known and not open, else address-taken functions of the same type.
    pub fn targets(&self, sig: &str, field: Option<&str>) -> &[usize] {
        if let Some(v) = field.and_then(|k| self.by_field.get(k)) {
            return v.as_slice();
        }
        self.by_sig.get(sig).map_or(&[], |v| v.as_slice())
    }

    /// The library functions an indirect call may reach, chosen as `targets` chooses the
    /// program's own: those stored into its field when that field is known and not open, else
    /// those of its type used as values.
    pub fn library_targets(&self, sig: &str, field: Option<&str>) -> &[&'static libmodel::LibFn] {
        if let Some(k) = field.filter(|k| self.by_field.contains_key(*k)) {
            return self.lib_by_field.get(k).map_or(&[], |v| v.as_slice());
        }
        self.lib_by_sig.get(sig).map_or(&[], |v| v.as_slice())
    }

    /// Whether an indirect call through `field` is resolved by the stores into that field.
    pub fn resolved_by_field(&self, field: Option<&str>) -> bool {
        field.is_some_and(|k| self.by_field.contains_key(k))
    }

    /// The callee of statement `stmt` of function `func` (indices into the program these
    /// summaries were made for), if it is a direct call.
    pub fn direct(&self, func: usize, stmt: usize) -> Option<Direct> {
        self.direct.get(func).and_then(|d| d.get(stmt)).copied().flatten()
    }

    /// The callee of statement `stmt` of function `func`, a direct call to `name` (`usr`): from
    /// the table, or resolved here when these summaries were made without one.
    pub fn direct_callee(&self, func: usize, stmt: usize, name: &str, usr: &str) -> Direct {
        self.direct(func, stmt).unwrap_or_else(|| self.resolve(name, usr))
    }

    pub fn index_of(&self, usr: &str) -> Option<usize> {
        self.by_usr.get(usr).copied()
    }

    pub fn set(&self, func: usize, s: Summary) {
        // Each function is summarised once; a second write would be a driver bug and is ignored.
        let _ = self.slots[func].set(s);
    }

    pub fn get(&self, func: usize) -> Option<&Summary> {
        self.slots.get(func).and_then(|s| s.get())
    }

    /// The summary a wrapper chain follows into (`checkers::wrapper_chain`): none for a function
    /// whose callers see a library row (the program's own `malloc`, or the internal function it
    /// hands its arguments to), where the chain ends as at the C library's. Its summary is not
    /// among its callers' callees in the call graph, so reading it would also race with its check.
    pub fn wrapper_by_usr(&self, usr: &str) -> Option<&Summary> {
        let i = self.index_of(usr)?;
        if self.contract.binary_search_by_key(&i, |c| c.0).is_ok() {
            return None;
        }
        self.get(i)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Summary> {
        self.slots.iter().filter_map(|s| s.get())
    }

    /// The defined functions a call to `callee` may reach: the callee of a direct call, the
    /// possible targets of an indirect one (those `model` reads the summaries of).
    /// `direct`: the callee of a direct call (`Summaries::direct`).
    pub fn possible_callees(&self, callee: &Callee, direct: Option<Direct>) -> Vec<usize> {
        match callee {
            Callee::Direct { .. } => match direct {
                Some(Direct::Defined(i) | Direct::Opaque(i)) => vec![i],
                _ => Vec::new(),
            },
            Callee::Indirect { sig, field, .. } => self.targets(sig, field.as_deref()).to_vec(),
        }
    }

    /// What a call to `callee` with `args` in function `caller` does, as the checker needs it.
    /// `nonnull_args`: bit `k` set when argument `k` is surely not NULL there (`nonnull`).
    /// `provisional` holds the summaries of the current SCC's members from the previous round of
    /// its fixpoint.
    /// `direct`: the callee of a direct call as `Summaries::direct` resolved it (`None`: resolve
    /// it here).
    pub fn model<'a>(
        &'a self,
        callee: &'a Callee,
        direct: Option<Direct>,
        args: &[Operand],
        nonnull_args: u64,
        caller: &Function,
        provisional: &HashMap<usize, Summary>,
    ) -> Model<'a> {
        let get = |i: usize| self.get(i).or_else(|| provisional.get(&i));
        match callee {
            Callee::Direct { name, usr, const_args } => {
                let direct = direct.unwrap_or_else(|| self.resolve(name, usr));
                match direct {
                    Direct::Defined(i) => match get(i) {
                        Some(s) => Model::from_summary(name, s, args, nonnull_args, caller),
                        None => Model::unknown(name),
                    },
                    Direct::Library(lib) => Model::from_lib_call(lib, args),
                    Direct::Opaque(i) => opaque_model(name, *const_args, args.len(), get(i).map(|s| vec![s])),
                    Direct::Undefined => {
                        let mut m = Model::unknown_call(name, *const_args, args.len());
                        if crate::global_writes::is_std_library(name) && !hands_code(caller, args) {
                            m.globals_written = GlobalWrites::none();
                            m.globals_read = GlobalWrites::none();
                        }
                        m
                    }
                }
            }
            Callee::Indirect { sig, field: Some(k), .. } if k.starts_with(crate::ir::OPAQUE_VIRTUAL_KEY) => {
                let sums: Option<Vec<&Summary>> = self.targets(sig, Some(k)).iter().map(|i| get(*i)).collect();
                opaque_model(crate::ir::indirect_name(sig), 0, args.len(), sums)
            }
            Callee::Indirect { sig, field, .. } => {
                let targets = self.targets(sig, field.as_deref());
                let libs = self.library_targets(sig, field.as_deref());
                if let ([], [lib]) = (targets, libs) {
                    return Model::from_lib_call(lib, args);
                }
                let lib_sums: Option<Vec<Summary>> = libs.iter().map(|l| Summary::of_library(l, args.len())).collect();
                let sums: Option<Vec<&Summary>> = targets.iter().map(|i| get(*i)).collect();
                match (sums, lib_sums) {
                    (Some(mut sums), Some(lib_sums)) => {
                        sums.extend(lib_sums.iter());
                        if sums.is_empty() {
                            return Model::unknown(crate::ir::indirect_name(sig));
                        }
                        // With one possible target, the call is to it.
                        let name =
                            if sums.len() == 1 { self.name_of(targets[0]) } else { crate::ir::indirect_name(sig) };
                        Model::from_summary(name, &meet(&sums), args, nonnull_args, caller)
                    }
                    _ => Model::unknown(crate::ir::indirect_name(sig)),
                }
            }
        }
    }

    fn name_of(&self, i: usize) -> &str {
        self.names.get(i).map_or("?", |s| s.as_str())
    }
}

/// Does `f` do nothing a caller could see? It calls nothing, stores only into its own locals,
/// and returns nothing or the constant 0 (`(void)ptr;`, `return NULL;`).
fn inert(f: &Function) -> bool {
    f.stmts.iter().all(|s| matches!(s, Stmt::Assign { dst: Place::Local(_), .. }))
        && f.blocks.iter().all(|b| match &b.term {
            Terminator::Return(None) => !f.returns_pointer,
            Terminator::Return(Some(op)) => *op == Operand::Const(0),
            Terminator::Goto(_) | Terminator::Branch { .. } | Terminator::Switch { .. } => true,
            Terminator::NoReturn => false,
        })
}

/// The stores (field key, USR) left out of the field's targets: those of an inert function
/// that returns no pointer (a deallocator that frees nothing, `fail_free`), when every group it
/// is stored in (`Program::field_groups`) also stores an inert function that returns a pointer
/// (an allocator that always fails, `fail_malloc`) and the field has other targets. Such a
/// configuration of the table allocates nothing, so its deallocator is never handed a block:
/// libgit2's `git__allocator` starts as `{ failalloc_malloc, failalloc_realloc, failalloc_free }`
/// until start-up installs the real allocator, and `git__free` frees as `stdalloc__free` does.
/// A no-op stored beside allocating functions (a destructor that keeps what it is given) stays a
/// target, and the meet of the targets decides (disagreeing targets: no free known).
/// `extra`: the targets the callers of setters give variables (`param_stores`), which are in no
/// group.
fn idle_field_targets<'p>(
    program: &'p Program,
    by_usr: &HashMap<String, usize>,
    extra: &[(String, String)],
) -> HashSet<(&'p str, &'p str)> {
    let func = |usr: &str| by_usr.get(usr).map(|&i| &program.functions[i]);
    let fails = |usr: &str| func(usr).is_some_and(|f| f.returns_pointer && inert(f));
    let noop = |usr: &str| func(usr).is_some_and(|f| !f.returns_pointer && inert(f));
    let mut idle: HashSet<(&str, &str)> = HashSet::new();
    let mut busy: HashSet<(&str, &str)> = HashSet::new();
    for g in &program.field_groups {
        let failing = g.iter().any(|(_, u)| fails(u));
        for (k, u) in g.iter().filter(|(_, u)| noop(u)) {
            if failing { &mut idle } else { &mut busy }.insert((k.as_str(), u.as_str()));
        }
    }
    idle.retain(|s| !busy.contains(s));
    // A field whose every target would go keeps them: the configuration is then all there is.
    let others = |key: &str| {
        program.field_targets.iter().any(|(k, u)| k == key && !idle.contains(&(k.as_str(), u.as_str())))
            || extra.iter().any(|(k, _)| k == key)
    };
    let keep: Vec<(&str, &str)> = idle.iter().copied().filter(|(k, _)| !others(k)).collect();
    for s in keep {
        idle.remove(&s);
    }
    idle
}

/// What the functions that store a parameter into a function-pointer variable
/// (`Program::param_stores`, `hook = m` in `set_allocator (m)`) store there, from the direct
/// calls to them: (variable key, USR) for every function a call passes as that argument, and
/// the keys given something else too: some call passes a value that names no function (its own
/// parameter, a load, a call's result), the function's address is taken (calls through pointers
/// pass anything), or it changes the parameter or takes its address before or after the store.
/// NULL passes nothing. A function no code of the program calls adds nothing: the program is
/// the whole world, as for every other store (curl's `curl_global_init_mem (flags, m, f, ..)`,
/// called by no code of libcurl, leaves `Curl_cmalloc` and `Curl_cfree` the C library's).
fn param_stores(program: &Program, by_usr: &HashMap<String, usize>) -> (Vec<(String, String)>, HashSet<String>) {
    let mut targets: Vec<(String, String)> = Vec::new();
    let mut open: HashSet<String> = HashSet::new();
    let mut by_fn: HashMap<&str, Vec<(&str, usize)>> = HashMap::new();
    for (key, usr, i) in &program.param_stores {
        let i = *i as usize;
        let taken =
            program.address_taken.binary_search(usr).is_ok() || program.cast_targets.iter().any(|(u, _)| u == usr);
        let changed = by_usr.get(usr).is_none_or(|&f| param_changed(&program.functions[f], i));
        if taken || changed {
            open.insert(key.clone());
        } else {
            by_fn.entry(usr.as_str()).or_default().push((key.as_str(), i));
        }
    }
    if by_fn.is_empty() {
        return (targets, open);
    }
    for f in &program.functions {
        for s in &f.stmts {
            let Stmt::Call { callee: Callee::Direct { usr, .. }, args, .. } = s else { continue };
            let Some(stores) = by_fn.get(usr.as_str()) else { continue };
            for &(key, i) in stores {
                let Some(arg) = args.get(i) else {
                    open.insert(key.to_string());
                    continue;
                };
                match passed_functions(f, arg) {
                    Some(usrs) => targets.extend(usrs.into_iter().map(|u| (key.to_string(), u.to_string()))),
                    None => {
                        open.insert(key.to_string());
                    }
                }
            }
        }
    }
    targets.sort();
    targets.dedup();
    (targets, open)
}

/// The functions an argument `arg` of a call in `f` names: a function, NULL (none), or a
/// temporary of `f` every assignment of which is one of those (`set (c ? free : NULL)`); `None`
/// for anything else (a parameter, a load, a call's result, a local whose address is taken).
fn passed_functions<'f>(f: &'f Function, arg: &'f Operand) -> Option<Vec<&'f str>> {
    let named = |op: &'f Operand| match op {
        Operand::Func { usr, .. } => Some(Some(usr.as_str())),
        Operand::Const(0) => Some(None),
        _ => None,
    };
    if let Some(n) = named(arg) {
        return Some(n.into_iter().collect());
    }
    let t = arg.local()?;
    if t.index() < f.n_params as usize || local_set_by_call_or_address(f, t) {
        return None;
    }
    let mut usrs = Vec::new();
    for s in &f.stmts {
        if let Stmt::Assign { dst, src } = s {
            if dst.as_local() == Some(t) {
                match src {
                    Rvalue::Use(op) => usrs.extend(named(op)?),
                    _ => return None,
                }
            }
        }
    }
    Some(usrs)
}

/// Is local `l` of `f` given a call's result, or its address taken?
fn local_set_by_call_or_address(f: &Function, l: LocalId) -> bool {
    f.stmts.iter().any(|s| match s {
        Stmt::Assign { src: Rvalue::AddrOf(place), .. } => place.storage_local() == Some(l),
        Stmt::Assign { .. } => false,
        Stmt::Call { dst, .. } => dst.as_ref().and_then(|d| d.as_local()) == Some(l),
    })
}

/// Does `f` assign its parameter `i`, or take its address (then anything may be stored there)?
fn param_changed(f: &Function, i: usize) -> bool {
    let Some(p) = f.params().nth(i) else { return true };
    let addr_of = |r: &Rvalue| matches!(r, Rvalue::AddrOf(place) if place.storage_local() == Some(p));
    f.stmts.iter().any(|s| match s {
        Stmt::Assign { dst, src } => dst.as_local() == Some(p) || addr_of(src),
        Stmt::Call { dst, .. } => dst.as_ref().and_then(|d| d.as_local()) == Some(p),
    })
}

/// The USR of the function `f` only hands its arguments to, when that is all `f` does: one
/// direct call that gets `f`'s parameters as its first arguments, in order, and whose result
/// `f` returns (`malloc (n) { return internal_malloc (n, NULL, 0); }`); a function without a
/// result may test its first parameter for NULL first (`free (p) { if (p) internal_free (p); }`).
fn delegate(f: &Function) -> Option<&str> {
    let [Stmt::Call { dst, callee: Callee::Direct { usr, .. }, args }] = f.stmts.as_slice() else {
        return None;
    };
    let passes_params =
        args.len() >= f.n_params as usize && f.params().all(|p| args[p.index()] == Operand::Place(Place::Local(p)));
    let returned = |op: &Operand| dst.as_ref().is_some_and(|d| *op == Operand::Place(d.clone()));
    let shape_ok = f.blocks.iter().all(|b| match &b.term {
        Terminator::Goto(_) => true,
        Terminator::Return(None) => !f.returns_pointer,
        Terminator::Return(Some(op)) => returned(op),
        Terminator::Branch { cond, .. } => {
            !f.returns_pointer
                && f.n_params > 0
                && matches!(&cond.kind, CondKind::Truthy(Operand::Place(Place::Local(l))) if l.index() == 0)
        }
        Terminator::Switch { .. } | Terminator::NoReturn => false,
    });
    (passes_params && shape_ok).then_some(usr.as_str())
}

/// A target that never hands out a block: it returns NULL on every path and frees, keeps and
/// hands out nothing (libgit2's `git_failalloc_malloc`, the table's value until start-up
/// installs the real allocator). Beside allocators it is one more way for the allocation to fail.
fn fails_always(s: &Summary) -> bool {
    s.ret_const == Some(0)
        && !s.allocator
        && !s.noreturn
        && s.out_fresh.is_empty()
        && s.params.iter().all(|p| *p == ParamFate::Reads)
}

/// What every possible target of an indirect call surely does: an allocator only if all of them
/// allocate, a parameter freed only if all free it (freed by some, kept by others: escapes).
/// Targets that always fail (`fails_always`) beside allocators make the call an allocator that
/// may fail: NULL is an allocator's failure, and a failed allocation, `realloc`'s included,
/// leaves its arguments alone.
fn meet(sums: &[&Summary]) -> Summary {
    let (failing, allocating): (Vec<&Summary>, Vec<&Summary>) = sums.iter().copied().partition(|s| fails_always(s));
    if !failing.is_empty() && !allocating.is_empty() && allocating.iter().all(|s| s.allocator) {
        let mut m = meet_all(&allocating);
        m.always_fresh = false;
        m.never_null = false;
        m.never_null_when = None;
        // The failing targets return.
        m.noreturn_when = Vec::new();
        m.params = m
            .params
            .into_iter()
            .map(|f| match f {
                ParamFate::Reads | ParamFate::Reallocs { size: None } => f,
                _ => ParamFate::Escapes,
            })
            .collect();
        let n = sums.iter().map(|s| s.params.len()).max().unwrap_or(0);
        if !sums.iter().all(|s| s.heap == m.heap) {
            m.heap = meet_heap(sums, n);
        }
        m.heap_pure = sums.iter().all(|s| s.heap_pure && s.heap == m.heap);
        if !sums.iter().all(|s| s.heap_families == m.heap_families) {
            m.heap_families = Arc::from([]);
        }
        if !sums.iter().all(|s| s.writes == m.writes) {
            m.writes = Arc::from([]);
        }
        m.globals_written = GlobalWrites::union(sums.iter().map(|s| &s.globals_written));
        m.globals_read = GlobalWrites::union(sums.iter().map(|s| &s.globals_read));
        m.globals_kept = GlobalWrites::union(sums.iter().map(|s| &s.globals_kept));
        // The failing targets store nothing.
        m.global_overwrites = Arc::from([]);
        m.global_fresh = Arc::from([]);
        return m;
    }
    meet_all(sums)
}

/// The names in every one of `sums`' sorted lists.
fn common(sums: &[&Summary], list: impl Fn(&Summary) -> &Arc<[Arc<str>]>) -> Arc<[Arc<str>]> {
    let first = list(sums[0]);
    first.iter().filter(|n| sums.iter().all(|s| list(s).binary_search(n).is_ok())).cloned().collect()
}

fn meet_all(sums: &[&Summary]) -> Summary {
    let n = sums.iter().map(|s| s.params.len()).max().unwrap_or(0);
    let params: Vec<ParamFate> = (0..n)
        .map(|i| {
            let fates: Vec<ParamFate> =
                sums.iter().map(|s| s.params.get(i).copied().unwrap_or(ParamFate::Escapes)).collect();
            if fates.iter().all(|f| *f == fates[0]) {
                fates[0]
            } else {
                ParamFate::Escapes
            }
        })
        .collect();
    let first = sums[0];
    let allocator = sums.iter().all(|s| s.allocator);
    // A return-conditioned free needs every target to read the return value the same way.
    let same_success = sums.iter().all(|s| s.ret_success == first.ret_success);
    let params = if same_success {
        params
    } else {
        params
            .into_iter()
            .map(|f| if matches!(f, ParamFate::FreesWhen { .. }) { ParamFate::Escapes } else { f })
            .collect()
    };
    Summary {
        allocator,
        origin: if allocator { first.origin.clone() } else { None },
        always_fresh: sums.iter().all(|s| s.always_fresh),
        params,
        returns_param: first.returns_param.filter(|r| sums.iter().all(|s| s.returns_param == Some(*r))),
        returns_param_itself: sums.iter().all(|s| s.returns_param_itself && s.returns_param == first.returns_param),
        noreturn: sums.iter().all(|s| s.noreturn),
        ret_success: first.ret_success.filter(|r| sums.iter().all(|s| s.ret_success == Some(*r))),
        alloc_if: first.alloc_if.filter(|a| sums.iter().all(|s| s.alloc_if == Some(*a))),
        out_fresh: if sums.iter().all(|s| s.out_fresh == first.out_fresh) {
            first.out_fresh.clone()
        } else {
            Vec::new()
        },
        out_fresh_if: first.out_fresh_if.filter(|a| sums.iter().all(|s| s.out_fresh_if == Some(*a))),
        ret_fresh: if sums.iter().all(|s| s.allocator == allocator && s.ret_fresh == first.ret_fresh) {
            first.ret_fresh.clone()
        } else {
            Vec::new()
        },
        ret_fresh_if: if sums.iter().all(|s| s.allocator == allocator && s.ret_fresh_if == first.ret_fresh_if) {
            first.ret_fresh_if.clone()
        } else {
            Vec::new()
        },
        heap: if sums.iter().all(|s| s.heap == first.heap) { first.heap.clone() } else { meet_heap(sums, n) },
        heap_pure: sums.iter().all(|s| s.heap_pure && s.heap == first.heap),
        heap_families: if sums.iter().all(|s| s.heap_families == first.heap_families) {
            first.heap_families.clone()
        } else {
            Arc::from([])
        },
        ret_values: if sums.iter().all(|s| s.ret_values == first.ret_values) {
            first.ret_values.clone()
        } else {
            Vec::new()
        },
        out_values: if sums.iter().all(|s| s.out_values == first.out_values) {
            first.out_values.clone()
        } else {
            Vec::new()
        },
        exit_values: first
            .exit_values
            .iter()
            .filter(|e| sums.iter().all(|s| s.exit_values.contains(e)))
            .cloned()
            .collect(),
        writes: if sums.iter().all(|s| s.writes == first.writes) { first.writes.clone() } else { Arc::from([]) },
        ret_const: first.ret_const.filter(|k| sums.iter().all(|s| s.ret_const == Some(*k))),
        never_null: allocator && sums.iter().all(|s| s.never_null),
        never_null_when: first.never_null_when.filter(|w| sums.iter().all(|s| s.never_null_when == Some(*w))),
        ret_const_when: first.ret_const_when.filter(|w| sums.iter().all(|s| s.ret_const_when == Some(*w))),
        ret_const_checked: first.ret_const_checked.filter(|w| sums.iter().all(|s| s.ret_const_checked == Some(*w))),
        null_when: first.null_when.iter().copied().filter(|w| sums.iter().all(|s| s.null_when.contains(w))).collect(),
        noreturn_when: first
            .noreturn_when
            .iter()
            .copied()
            .filter(|w| sums.iter().all(|s| s.noreturn_when.contains(w)))
            .collect(),
        // Any target may be the one called.
        globals_written: GlobalWrites::union(sums.iter().map(|s| &s.globals_written)),
        fields_written: FieldWrites::union(sums.iter().map(|s| &s.fields_written)),
        // Parameter by parameter, when every target has the same number of parameters.
        param_fields_written: if sums.iter().all(|s| s.param_fields_written.len() == first.param_fields_written.len()) {
            (0..first.param_fields_written.len())
                .map(|k| FieldWrites::union(sums.iter().map(|s| &s.param_fields_written[k])))
                .collect()
        } else {
            Arc::from([])
        },
        globals_read: GlobalWrites::union(sums.iter().map(|s| &s.globals_read)),
        globals_kept: GlobalWrites::union(sums.iter().map(|s| &s.globals_kept)),
        global_overwrites: common(sums, |s| &s.global_overwrites),
        global_fresh: common(sums, |s| &s.global_fresh),
        ret_addr: first.ret_addr.clone().filter(|a| sums.iter().all(|s| s.ret_addr.as_ref() == Some(a))),
        // Which target runs is not known at the call, so two calls may differ.
        pure_value: false,
        reads_only: false,
        // The target called is not known: a family only when every target has it.
        alloc_family: libmodel::Family::meet(sums.iter().map(|s| s.alloc_family)),
        free_family: libmodel::Family::meet(sums.iter().map(|s| s.free_family)),
        param_globals: if sums.iter().all(|s| s.param_globals == first.param_globals) {
            first.param_globals.clone()
        } else {
            first.param_globals.iter().filter(|g| sums.iter().all(|s| s.param_globals.contains(g))).cloned().collect()
        },
        va_reads: sums.iter().fold(u64::MAX, |bits, s| bits & s.va_reads),
        varargs_read: sums.iter().all(|s| s.varargs_read),
    }
}

/// The heap effects of a call that may reach any of `sums` (with `n` parameters at most): at
/// each path some target names, and at the paths none names (`*?`), the fate all of them
/// give it (`heap_fate`), else `Escapes`. Releasing a record through a table of destructors
/// (`vt->release(data)`, each target freeing its own fields) frees the fields they all free
/// and leaves alone those none of them touches.
fn meet_heap(sums: &[&Summary], n: usize) -> Arc<[(usize, Arc<str>, PathFate)]> {
    let other: Arc<str> = Arc::from(crate::model::OTHER_PATH_TEXT);
    let mut paths: Vec<(usize, Arc<str>)> =
        sums.iter().flat_map(|s| s.heap.iter().map(|h| (h.0, h.1.clone()))).collect();
    paths.extend((0..n).map(|i| (i, other.clone())));
    paths.sort();
    paths.dedup();
    let mut out = Vec::with_capacity(paths.len());
    for (i, path) in paths {
        let mut fates = sums.iter().map(|s| heap_fate(&s.heap, s.heap_pure, i, &path));
        let first = fates.next().unwrap_or(PathFate::Escapes);
        let fate = if fates.all(|f| f == first) { first } else { PathFate::Escapes };
        out.push((i, path, fate));
    }
    out.into()
}

impl<'a> Model<'a> {
    /// A summarised callee at a call with these arguments, in function `caller` (a flag-guarded
    /// free or allocation is decided by a flag argument whose bits are known: `NOALLOC`,
    /// `flags | NOALLOC`).
    /// `nonnull_args`: bit `k` set when argument `k` is surely not NULL (`nonnull`).
    pub fn from_summary(
        name: &'a str,
        s: &Summary,
        call_args: &[Operand],
        nonnull_args: u64,
        caller: &Function,
    ) -> Model<'a> {
        // A flag argument masked by `mask`: `Some(true/false)` when its bits tell whether that is
        // zero, `None` when only the caller's tests of it can tell (a local), and the whole effect
        // is unknowable otherwise.
        let flag_value = |flag: usize, mask: i64| -> Result<Option<bool>, ()> {
            let arg = call_args.get(flag).ok_or(())?;
            // A buffer of the caller's own (`realpath(path, resolved)` given a local array), a
            // pointer tested or dereferenced before, a parameter no caller passes NULL in.
            if mask == -1 && (nonnull_args >> flag & 1 == 1 || caller.is_object_address(arg)) {
                return Ok(Some(true));
            }
            match caller.operand_bits(arg).and_then(|b| b.masked(mask)) {
                Some(v) => Ok(Some(v)),
                None if matches!(arg, Operand::Place(crate::ir::Place::Local(_))) => Ok(None),
                None => Err(()),
            }
        };
        let not_fresh = match s.returns_param {
            Some(i) => RetEffect::ArgAlias(i),
            None => RetEffect::Plain,
        };
        let mut fresh_if_arg = None;
        // An allocator given the constant for which it returns NULL (`Summary::null_when`).
        let null_here = s.null_when.iter().any(|w| call_args.get(w.0) == Some(&Operand::Const(w.1)));
        let ret = match (s.allocator, s.alloc_if) {
            (true, _) if null_here => RetEffect::Plain,
            (false, _) => not_fresh,
            (true, None) => RetEffect::Fresh(Success::NonNull),
            (true, Some((flag, mask, when))) => match flag_value(flag, mask) {
                Ok(Some(v)) if v == when => RetEffect::Fresh(Success::NonNull),
                Ok(Some(_)) => not_fresh,
                Ok(None) => {
                    fresh_if_arg = Some((flag, mask, when));
                    RetEffect::Fresh(Success::NonNull)
                }
                // Fresh or not, nobody can tell: not a source (no report either way).
                Err(()) => RetEffect::Plain,
            },
        };
        let fresh_result = ret == RetEffect::Fresh(Success::NonNull);
        // A preconditioned answer (`precond`) holds at a call that passes the constant itself.
        let passes = |i: usize, c: i64| call_args.get(i) == Some(&Operand::Const(c));
        let never_null_when = s.never_null_when.is_some_and(|w| passes(w.0, w.1));
        let ret_const_when = s.ret_const_when.filter(|w| passes(w.0, w.1)).map(|w| w.2);
        let ret_const_checked = s
            .ret_const_checked
            .filter(|(mask, when, _)| nonnull_args & mask == *mask && when.is_none_or(|w| passes(w.0, w.1)))
            .map(|c| c.2);
        // Cells handed out below the arguments: none when the flag argument says so. A flag
        // only the caller's tests can tell is taken as handing them out (as before flags were
        // known here).
        let out_fresh: &[(usize, Arc<str>, Success)] = match s.out_fresh_if.map(|(f, m, w)| (flag_value(f, m), w)) {
            Some((Ok(Some(v)), when)) if v != when => &[],
            _ => &s.out_fresh,
        };
        // Optional fields of the result: there when the flag argument says so, absent when it
        // says not; conditional on the caller's test of it (`None` in `.1`: decided here).
        let ret_paths_if: Vec<(Arc<str>, Option<(usize, i64, bool)>)> = s
            .ret_fresh_if
            .iter()
            .filter_map(|(path, flag, mask, when)| match flag_value(*flag, *mask) {
                Ok(Some(v)) if v == *when => Some((path.clone(), None)),
                Ok(None) => Some((path.clone(), Some((*flag, *mask, *when)))),
                // Not there, or nobody can tell: no cell to follow.
                _ => None,
            })
            .collect();
        let mut args: Vec<(usize, ArgEffect)> = s
            .params
            .iter()
            .enumerate()
            .filter(|(i, _)| !out_fresh.iter().any(|o| o.0 == *i && &*o.1 == "*"))
            .filter_map(|(i, f)| match *f {
                ParamFate::Reads => None,
                ParamFate::Frees => Some((i, ArgEffect::Frees)),
                ParamFate::Escapes => Some((i, ArgEffect::Keeps)),
                ParamFate::FreesIf { flag, when } => match flag_value(flag, -1) {
                    Ok(Some(v)) if v == when => Some((i, ArgEffect::Frees)),
                    Ok(Some(_)) => None,
                    Ok(None) => Some((i, ArgEffect::FreesIfArg { flag, when })),
                    Err(()) => Some((i, ArgEffect::Keeps)),
                },
                ParamFate::FreesWhen { on_success, else_keeps } => match s.ret_success {
                    Some(_) => Some((i, ArgEffect::FreesWhen { on_success, else_keeps })),
                    None => Some((i, ArgEffect::Keeps)),
                },
                // Size zero frees; any other call reallocates, which needs the fresh result's
                // success to say whether the block was freed.
                ParamFate::Reallocs { size } => match size.and_then(|k| call_args.get(k)) {
                    Some(Operand::Const(0)) => Some((i, ArgEffect::Frees)),
                    _ if fresh_result => Some((i, libmodel::FREES_ON_SUCCESS)),
                    _ => Some((i, ArgEffect::Keeps)),
                },
            })
            .collect();
        args.extend(out_fresh.iter().filter(|o| &*o.1 == "*").map(|(i, _, succ)| (*i, ArgEffect::OutFresh(*succ))));
        args.sort_by_key(|a| a.0);
        // A variadic call's extras escape unless the callee only reads them (`varargs`).
        let escape_from = if s.varargs_read { usize::MAX } else { s.params.len() };
        Model {
            name,
            ret,
            args,
            escape_from,
            noreturn: s.noreturn || s.noreturn_when.iter().any(|w| passes(w.0, w.1)),
            known: true,
            always_fresh: s.always_fresh && fresh_if_arg.is_none(),
            lib: false,
            ret_success: s.ret_success,
            fresh_if_arg,
            // Fresh when argument `i` is non-NULL, else `i`: NULL then, holding nothing.
            else_arg: s.returns_param.filter(|&i| fresh_if_arg.is_some_and(|f| !(f.0 == i && f.2))),
            out_paths: out_fresh.iter().filter(|o| &*o.1 != "*").cloned().collect(),
            reallocs: s
                .params
                .iter()
                .enumerate()
                .filter(|(i, f)| *i < 64 && matches!(f, ParamFate::Reallocs { .. }))
                .fold(0, |bits, (i, _)| bits | 1 << i),
            // A struct returned by value (`Summary::ret_fresh` of a function that is no allocator)
            // holds its fresh cells whatever the call returns.
            ret_paths: if matches!(ret, RetEffect::Fresh(_)) || !s.allocator {
                s.ret_fresh.iter().cloned().chain(ret_paths_if.iter().map(|p| p.0.clone())).collect()
            } else {
                Vec::new()
            },
            ret_paths_if: if matches!(ret, RetEffect::Fresh(_)) || !s.allocator {
                ret_paths_if.into_iter().filter_map(|(p, flag)| Some((p, flag?))).collect()
            } else {
                Vec::new()
            },
            ret_values: if matches!(ret, RetEffect::Fresh(_)) { s.ret_values.clone() } else { Vec::new() },
            out_values: if out_fresh.is_empty() { Vec::new() } else { s.out_values.clone() },
            exit_values: s.exit_values.clone(),
            heap: s.heap.clone(),
            heap_pure: s.heap_pure,
            heap_families: s.heap_families.clone(),
            writes: s.writes.clone(),
            ret_const: s.ret_const.or(ret_const_when).or(ret_const_checked).or(null_here.then_some(0)),
            never_null: (s.never_null || never_null_when)
                && fresh_if_arg.is_none()
                && matches!(ret, RetEffect::Fresh(_)),
            never_null_when: s.never_null_when.filter(|_| !never_null_when),
            ret_const_when: s.ret_const_when.filter(|_| ret_const_when.is_none()),
            null_when: if fresh_result { s.null_when.clone() } else { Vec::new() },
            ret_is_arg: s.returns_param_itself && matches!(ret, RetEffect::ArgAlias(_)),
            globals_written: s.globals_written.clone(),
            fields_written: s.fields_written.clone(),
            param_fields_written: s.param_fields_written.clone(),
            globals_read: s.globals_read.clone(),
            globals_kept: s.globals_kept.clone(),
            global_overwrites: s.global_overwrites.clone(),
            global_fresh: s.global_fresh.clone(),
            ret_addr: s.ret_addr.clone(),
            returns_twice: false,
            pure_value: s.pure_value,
            reads_only: s.reads_only,
            alloc_family: if fresh_result { s.alloc_family } else { None },
            free_family: s.free_family,
            param_globals: s.param_globals.clone(),
            va_reads: s.va_reads,
        }
    }
}

/// The callee models of a function's statements. `index`: the function's index in the program
/// the summaries were made for (its direct callees are resolved there).
pub fn call_models<'a>(
    index: usize,
    func: &'a Function,
    summaries: &'a Summaries,
    provisional: &HashMap<usize, Summary>,
) -> Vec<Option<Model<'a>>> {
    func.stmts
        .iter()
        .enumerate()
        .map(|(si, s)| match s {
            Stmt::Call { callee, args, .. } => Some(summaries.model(
                callee,
                summaries.direct(index, si),
                args,
                summaries.nonnull.args(index, si),
                func,
                provisional,
            )),
            Stmt::Assign { .. } => None,
        })
        .collect()
}

/// The globals and the fields below their arguments the members of an SCC (indices, sorted)
/// may write, themselves or through their callees, whose summaries are final (`global_writes`).
/// `taken`: `address_taken`, left out of the globals.
pub fn written_of_scc(
    program: &Program,
    summaries: &Summaries,
    members: &[usize],
    taken: &[String],
) -> (GlobalWrites, FieldWrites, GlobalWrites) {
    let mut names: Vec<Arc<str>> = Vec::new();
    let mut callee_sets: Vec<&GlobalWrites> = Vec::new();
    // The globals read (`Summary::globals_read`), as the writes: own, then the callees'.
    let mut read: Vec<Arc<str>> = Vec::new();
    let mut callee_reads: Vec<&GlobalWrites> = Vec::new();
    let mut read_one = |g: &str| {
        if !is_address_taken(taken, g) && read.last().is_none_or(|l| **l != *g) {
            read.push(Arc::from(g));
        }
    };
    let mut fields: Vec<Arc<str>> = Vec::new();
    let mut through = false;
    // Cleared at the first write of unknown extent; the globals go on.
    let mut fields_known = true;
    let mut callee_fields: Vec<&FieldWrites> = Vec::new();
    let mut globals_all = false;
    let mut reads_all = false;
    // Address-taken globals too: a caller asks the field writes only for what a store through
    // a pointer may reach (`cfg::FnCx::written_global_slots`).
    let direct = |p: &Place, names: &mut Vec<Arc<str>>| {
        if let Some(g) = global_root(p) {
            names.push(Arc::from(g));
        }
    };
    // A store into a global whose address is never taken writes nothing any pointer reaches:
    // its name says it all (a caller's `*p` may be an address-taken global's storage).
    let unreached_global = |p: &Place| global_root(p).is_some_and(|g| !is_address_taken(taken, g));
    for &m in members {
        let func = &program.functions[m];
        // Whether call `si` returns a fresh block (or NULL): `(sometimes, always)`.
        let locals = OwnLocals::new(func, |si| match &func.stmts[si] {
            Stmt::Call { callee: Callee::Direct { name, usr, .. }, .. } => {
                match summaries.direct_callee(m, si, name, usr) {
                    Direct::Library(lib) => {
                        let fresh = matches!(lib.ret, RetEffect::Fresh(_));
                        (fresh, fresh)
                    }
                    Direct::Defined(j) => summaries.get(j).map_or((false, false), |s| {
                        let fresh = s.allocator && s.returns_param.is_none();
                        (fresh, fresh && s.always_fresh && s.alloc_if.is_none())
                    }),
                    Direct::Undefined | Direct::Opaque(_) => (false, false),
                }
            }
            _ => (false, false),
        });
        let pointee_known = |q: LocalId| locals.pointee_known(q);
        for b in &func.blocks {
            crate::global_writes::term_reads(&b.term, &mut read_one);
        }
        for (si, s) in func.stmts.iter().enumerate() {
            crate::global_writes::stmt_reads(s, &mut read_one);
            match s {
                Stmt::Assign { dst, src } => {
                    direct(dst, &mut names);
                    // Taking a global's address may be to write it (`gettimeofday (&tv, ..)`
                    // fills fields no store of the program names).
                    if let Rvalue::AddrOf(p) = src {
                        direct(p, &mut names);
                    }
                    if fields_known && !locals.in_own_object(dst) && !unreached_global(dst) {
                        let scalar = crate::global_writes::scalar_value(func, src);
                        fields_known = store_field_writes(&pointee_known, dst, scalar, &mut fields, &mut through);
                        // A field whose address the function takes may be written through it.
                        if let Rvalue::AddrOf(p) = src {
                            if p.storage_local().is_none() && !locals.in_own_object(p) {
                                store_field_writes(&pointee_known, p, true, &mut fields, &mut through);
                            }
                        }
                    }
                }
                Stmt::Call { dst, callee, args } => {
                    if let Some(d) = dst {
                        direct(d, &mut names);
                        if fields_known && !locals.in_own_object(d) && !unreached_global(d) {
                            fields_known = store_field_writes(&pointee_known, d, false, &mut fields, &mut through);
                        }
                    }
                    let mut callee_set = |j: usize| -> bool {
                        if members.binary_search(&j).is_ok() {
                            return true;
                        }
                        match summaries.get(j) {
                            Some(s) => {
                                callee_sets.push(&s.globals_written);
                                callee_fields.push(&s.fields_written);
                                callee_reads.push(&s.globals_read);
                                true
                            }
                            None => false,
                        }
                    };
                    // A library row fills the buffers it is handed: none when every argument is
                    // a scalar, a constant, `const` or the caller's own object (`strlen ("x")`).
                    let const_args = match callee {
                        Callee::Direct { const_args, .. } => *const_args,
                        Callee::Indirect { .. } => 0,
                    };
                    let is_const = |i: usize| i < 64 && const_args & (1 << i) != 0;
                    let hands_buffer = args.iter().enumerate().any(|(i, a)| {
                        let writes = undefined_arg_writes(func, &locals, a);
                        !is_const(i) && !matches!(writes, FieldWrites::Only { through: false, .. })
                    });
                    let mut library = |name: &str| {
                        if whole_object_writer(name) && !args.first().is_some_and(|a| locals.own_object(a)) {
                            fields_known = false;
                        } else if hands_buffer {
                            through = true;
                        }
                    };
                    let known = match callee {
                        Callee::Direct { name, usr, .. } => match summaries.direct_callee(m, si, name, usr) {
                            // An opaque call runs `j`'s body, whatever the heap sees of it.
                            Direct::Defined(j) | Direct::Opaque(j) => callee_set(j),
                            Direct::Library(lib) => {
                                library(lib.name);
                                true
                            }
                            Direct::Undefined if is_builtin(name) => {
                                library(name);
                                true
                            }
                            // Defined nowhere in the program: it may be the project's own code
                            // left out of the database, so it may write any global; below its
                            // arguments it writes what a system library's function would.
                            Direct::Undefined => {
                                if fields_known {
                                    fields_known = undefined_call_writes(func, &locals, callee, args, &mut through);
                                }
                                // The C++ standard library is no code of the program: it writes
                                // and reads only what it is handed, unless it is handed code.
                                if !crate::global_writes::is_std_library(name) || hands_code(func, args) {
                                    globals_all = true;
                                    reads_all = true;
                                }
                                true
                            }
                        },
                        Callee::Indirect { sig, field, .. } => {
                            let targets = summaries.targets(sig, field.as_deref());
                            let libs = summaries.library_targets(sig, field.as_deref());
                            for lib in libs {
                                library(lib.name);
                            }
                            // No possible target known: anything may be called.
                            !(targets.is_empty() && libs.is_empty()) && targets.iter().all(|&j| callee_set(j))
                        }
                    };
                    if !known {
                        return (GlobalWrites::All, FieldWrites::All, GlobalWrites::All);
                    }
                }
            }
        }
    }
    for set in callee_sets {
        match set {
            GlobalWrites::All => globals_all = true,
            GlobalWrites::Only(v) => names.extend(v.iter().cloned()),
        }
    }
    let globals = if globals_all { GlobalWrites::All } else { GlobalWrites::from_names(names) };
    // A callee defined nowhere may read any global, as it may write any.
    let read = if reads_all {
        GlobalWrites::All
    } else {
        GlobalWrites::union(callee_reads.into_iter().chain([&GlobalWrites::from_names(read)]))
    };
    let written = if fields_known {
        let own = FieldWrites::from_parts(fields, through);
        FieldWrites::union(callee_fields.into_iter().chain([&own]))
    } else {
        FieldWrites::All
    };
    (globals, written, read)
}

/// What each member of an SCC (indices, sorted) may write below each of its parameters,
/// itself or through its callees (`Summary::param_fields_written`): the same rules as
/// `written_of_scc`'s fields, but only for stores through what a parameter points to (or what
/// is loaded from there), so that a recursive cycle's members are told apart (vim's
/// `string_convert` reads `vcp->vc_type`, the cycle's `convert_setup` writes it). A parameter
/// whose value (or anything below it) is stored into memory, returned into a store, or handed
/// to a callee that does so or is unknown, may be written by anyone: `All`.
/// Members' sets are solved together by propagation along the calls between them, from empty
/// sets up (every step only adds, so it ends).
pub fn param_writes_of_scc(program: &Program, summaries: &Summaries, members: &[usize]) -> Vec<Arc<[FieldWrites]>> {
    /// A set being built: fields (sorted, unique), `through`, or everything.
    #[derive(Clone, Default)]
    struct Acc {
        fields: Vec<Arc<str>>,
        through: bool,
        all: bool,
    }
    impl Acc {
        /// Adds `w`; whether anything changed.
        fn absorb(&mut self, w: &FieldWrites) -> bool {
            match w {
                FieldWrites::All => self.absorb_acc(&Acc { all: true, ..Acc::default() }),
                FieldWrites::Only { fields, through } => {
                    self.absorb_acc(&Acc { fields: fields.to_vec(), through: *through, all: false })
                }
            }
        }
        /// Adds `other`; whether anything changed.
        fn absorb_acc(&mut self, other: &Acc) -> bool {
            if self.all {
                return false;
            }
            if other.all {
                self.all = true;
                return true;
            }
            let mut changed = other.through && !self.through;
            self.through |= other.through;
            for f in &other.fields {
                if let Err(at) = self.fields.binary_search(f) {
                    self.fields.insert(at, f.clone());
                    changed = true;
                }
            }
            if self.fields.len() > crate::global_writes::MAX_NAMES {
                self.all = true;
            }
            changed
        }
        fn done(&self) -> FieldWrites {
            if self.all {
                FieldWrites::All
            } else {
                FieldWrites::from_parts(self.fields.clone(), self.through)
            }
        }
    }
    /// Adds `w` to the sets of the parameters in `bits` (the first 64).
    fn add(acc: &mut [Acc], bits: u64, w: &FieldWrites) {
        for (b, a) in acc.iter_mut().enumerate().take(64) {
            if bits & (1 << b) != 0 {
                a.absorb(w);
            }
        }
    }
    let slot = |j: usize| members.binary_search(&j).ok();
    let mut sets: Vec<Vec<Acc>> =
        members.iter().map(|&m| vec![Acc::default(); program.functions[m].n_params as usize]).collect();
    // (member slot, parameter) gets what (member slot, parameter) writes.
    let mut edges: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (mi, &m) in members.iter().enumerate() {
        let func = &program.functions[m];
        let n = (func.n_params as usize).min(64);
        let returns_fresh = |si: usize| match &func.stmts[si] {
            Stmt::Call { callee: Callee::Direct { name, usr, .. }, .. } => {
                match summaries.direct_callee(m, si, name, usr) {
                    Direct::Library(lib) => !matches!(lib.ret, RetEffect::ArgAlias(_)),
                    Direct::Defined(j) if slot(j).is_none() => {
                        summaries.get(j).is_some_and(|s| s.allocator && s.always_fresh && s.returns_param.is_none())
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        let from = crate::global_writes::derived_from_params(func, &returns_fresh);
        let locals = OwnLocals::new(func, |_| (false, false));
        let pointee_known = |q: LocalId| locals.pointee_known(q);
        let bits_of = |o: &Operand| match o {
            Operand::Place(p) => p.root_local().map_or(0, |r| from[r.index()]),
            _ => 0,
        };
        let acc = &mut sets[mi];
        // What a store into `dst` of a value below parameters `value_bits` adds: those
        // parameters are reachable by anyone (unless the store is into the function's own
        // storage), and the fields of `dst` are written below the parameters it is under.
        let store = |acc: &mut [Acc], dst: &Place, scalar: bool, value_bits: u64| {
            if dst.storage_local().is_some() {
                return;
            }
            add(acc, value_bits, &FieldWrites::All);
            let bits = dst.root_local().map_or(0, |r| from[r.index()]);
            if bits != 0 {
                let (mut fields, mut through) = (Vec::new(), false);
                let known = store_field_writes(&pointee_known, dst, scalar, &mut fields, &mut through);
                add(acc, bits, &if known { FieldWrites::from_parts(fields, through) } else { FieldWrites::All });
            }
        };
        for (si, s) in func.stmts.iter().enumerate() {
            match s {
                Stmt::Assign { dst, src } => {
                    let value_bits = match src {
                        Rvalue::Use(o) if !crate::global_writes::scalar_operand(func, o) => bits_of(o),
                        Rvalue::AddrOf(p) => p.root_local().map_or(0, |r| from[r.index()]),
                        _ => 0,
                    };
                    store(acc, dst, crate::global_writes::scalar_value(func, src), value_bits);
                    // A field whose address is taken may be written through it.
                    if let Rvalue::AddrOf(p) = src {
                        if p.storage_local().is_none() {
                            let bits = p.root_local().map_or(0, |r| from[r.index()]);
                            let (mut fields, mut through) = (Vec::new(), false);
                            store_field_writes(&pointee_known, p, true, &mut fields, &mut through);
                            add(acc, bits, &FieldWrites::from_parts(fields, through));
                        }
                    }
                }
                Stmt::Call { dst, callee, args } => {
                    if let Some(d) = dst {
                        let result_bits =
                            if returns_fresh(si) { 0 } else { args.iter().fold(0, |b, a| b | bits_of(a)) };
                        store(acc, d, false, result_bits);
                    }
                    let const_args = match callee {
                        Callee::Direct { const_args, .. } => *const_args,
                        Callee::Indirect { .. } => 0,
                    };
                    for (k, a) in args.iter().enumerate() {
                        let bits = bits_of(a);
                        if bits == 0 || (k < 64 && const_args & (1 << k) != 0) {
                            continue;
                        }
                        // What a callee outside the SCC, a library row or an unknown function
                        // writes below argument `k`; members' parts come by the edges.
                        let mut outside: Vec<FieldWrites> = Vec::new();
                        let mut member = |j: usize, outside: &mut Vec<FieldWrites>| match slot(j) {
                            Some(js) if k < program.functions[j].n_params as usize => {
                                for b in 0..n {
                                    if bits & (1 << b) != 0 {
                                        edges.push((mi, b, js, k));
                                    }
                                }
                            }
                            // A variadic member's extra argument: whatever any member writes.
                            Some(_) => outside.push(FieldWrites::All),
                            None => outside.push(match summaries.get(j) {
                                Some(s) => s.param_fields_written.get(k).unwrap_or(&s.fields_written).clone(),
                                None => FieldWrites::All,
                            }),
                        };
                        match callee {
                            Callee::Direct { name, usr, .. } => match summaries.direct_callee(m, si, name, usr) {
                                Direct::Defined(j) | Direct::Opaque(j) => member(j, &mut outside),
                                Direct::Library(lib) => outside.push(FieldWrites::of_library(lib.name)),
                                Direct::Undefined if is_builtin(name) => outside.push(FieldWrites::of_library(name)),
                                Direct::Undefined => outside.push(undefined_arg_writes(func, &locals, a)),
                            },
                            Callee::Indirect { sig, field, .. } => {
                                let targets = summaries.targets(sig, field.as_deref());
                                let libs = summaries.library_targets(sig, field.as_deref());
                                if targets.is_empty() && libs.is_empty() {
                                    outside.push(FieldWrites::All);
                                }
                                for lib in libs {
                                    outside.push(FieldWrites::of_library(lib.name));
                                }
                                for &j in targets {
                                    member(j, &mut outside);
                                }
                            }
                        }
                        for w in &outside {
                            add(acc, bits, w);
                        }
                    }
                }
            }
        }
        // Parameters past the 64th are not followed.
        for a in acc.iter_mut().skip(n) {
            a.all = true;
        }
    }
    // Propagate along the calls between members until nothing changes.
    let mut changed = !edges.is_empty();
    while changed {
        changed = false;
        for &(mi, b, js, k) in &edges {
            if (mi, b) == (js, k) || sets[mi][b].all {
                continue;
            }
            let from = sets[js][k].clone();
            changed |= sets[mi][b].absorb_acc(&from);
        }
    }
    sets.into_iter().map(|v| v.iter().map(Acc::done).collect()).collect()
}

/// The model of an opaque C++ call (`Direct::Opaque`, `ir::OPAQUE_VIRTUAL_KEY`): an unknown
/// call to the heap, which writes and reads what the bodies it may run (`sums`, when every one
/// is summarised) write and read.
fn opaque_model<'a>(name: &'a str, const_args: u64, n_args: usize, sums: Option<Vec<&Summary>>) -> Model<'a> {
    let mut m = Model::unknown_call(name, const_args, n_args);
    if let Some(sums) = sums.filter(|v| !v.is_empty()) {
        m.globals_written = GlobalWrites::union(sums.iter().map(|s| &s.globals_written));
        m.globals_read = GlobalWrites::union(sums.iter().map(|s| &s.globals_read));
        m.fields_written = FieldWrites::union(sums.iter().map(|s| &s.fields_written));
        if let [s] = sums[..] {
            m.param_fields_written = s.param_fields_written.clone();
        }
    }
    m
}

/// Whether a call of `func` with `args` may hand its callee code of the program to run: a
/// function, an object that may run some (`LocalDecl::may_run_code`: a lambda, a function
/// object), or what the lowering could not describe. A standard library function given none
/// runs none.
pub fn hands_code(func: &Function, args: &[Operand]) -> bool {
    args.iter().any(|a| match a {
        Operand::Func { .. } | Operand::Unknown => true,
        Operand::Place(Place::Local(l)) => func.local(*l).may_run_code,
        _ => false,
    })
}

/// What a call to a function defined nowhere in the program writes below its arguments
/// (`written_of_scc`): nothing through a `const T *` parameter, a scalar, or the caller's own
/// object; scalars (`through`) through a pointer to scalars or a pointer loaded from memory (a
/// buffer or a library handle: `iconv (vcp->vc_fd, ..)`); anything (`false`) through a pointer
/// to an object of unknown type (`stat (path, st)`) or a function given to it.
fn undefined_call_writes(
    func: &Function,
    locals: &OwnLocals,
    callee: &Callee,
    args: &[Operand],
    through: &mut bool,
) -> bool {
    let const_args = match callee {
        Callee::Direct { const_args, .. } => *const_args,
        Callee::Indirect { .. } => 0,
    };
    for (i, a) in args.iter().enumerate() {
        if i < 64 && const_args & (1 << i) != 0 {
            continue;
        }
        match undefined_arg_writes(func, locals, a) {
            FieldWrites::All => return false,
            FieldWrites::Only { through: t, .. } => *through |= t,
        }
    }
    true
}

/// What a function defined nowhere writes below one (non-`const`) argument `a`
/// (`undefined_call_writes`): nothing below a scalar, a constant or the caller's own object;
/// scalars (`through`) below a pointer to scalars or a pointer loaded from memory; anything
/// below a pointer to an object of unknown type or a function.
fn undefined_arg_writes(func: &Function, locals: &OwnLocals, a: &Operand) -> FieldWrites {
    let nothing = FieldWrites::Only { fields: Arc::from([]), through: false };
    match a {
        Operand::Const(_) | Operand::Str | Operand::Unknown => nothing,
        Operand::Func { .. } => FieldWrites::All,
        Operand::Place(Place::Local(l)) => {
            let d = func.local(*l);
            if locals.own_object(a) || (!d.is_pointer && !d.is_aggregate) {
                nothing
            } else if !locals.pointee_known(*l) {
                FieldWrites::All
            } else {
                FieldWrites::Only { fields: Arc::from([]), through: true }
            }
        }
        Operand::Place(_) => FieldWrites::Only { fields: Arc::from([]), through: true },
    }
}

/// What `written_of_scc` asks of one function's locals: which hold only the function's own
/// objects, and what a temporary copied from a declared pointer points to.
struct OwnLocals<'f> {
    func: &'f Function,
    /// Per local: the one value every definition gives it — `Some(Some(src))` for an
    /// assignment, `Some(None)` for a call's result; `None` when it has several or none.
    defs: Vec<Option<Option<&'f Rvalue>>>,
    /// Per local: every definition is an assignment of the address of the function's own
    /// storage (`t = &conv`) or a call to an allocator (`p = alloc (n)`).
    own: Vec<bool>,
    /// Per local: every definition is a call that returns only fresh blocks (or NULL), never
    /// an object that existed before (`w = xmalloc (..)`): a subset of `own`.
    fresh: Vec<bool>,
}

impl<'f> OwnLocals<'f> {
    fn new(func: &'f Function, fresh_call: impl Fn(usize) -> (bool, bool)) -> OwnLocals<'f> {
        let n = func.locals.len();
        let mut defs: Vec<Option<Option<&Rvalue>>> = vec![None; n];
        let mut count = vec![0u32; n];
        let mut own = vec![true; n];
        let mut fresh = vec![true; n];
        for (si, st) in func.stmts.iter().enumerate() {
            match st {
                Stmt::Assign { dst: Place::Local(d), src } => {
                    count[d.index()] += 1;
                    defs[d.index()] = Some(Some(src));
                    if !matches!(src, Rvalue::AddrOf(p) if p.storage_local().is_some()) {
                        own[d.index()] = false;
                    }
                    fresh[d.index()] = false;
                }
                Stmt::Call { dst: Some(Place::Local(d)), .. } => {
                    count[d.index()] += 1;
                    defs[d.index()] = Some(None);
                    let (sometimes, always) = fresh_call(si);
                    own[d.index()] &= sometimes;
                    fresh[d.index()] &= always;
                }
                _ => {}
            }
        }
        for (i, c) in count.iter().enumerate() {
            if *c != 1 {
                defs[i] = None;
            }
            // A parameter holds the caller's value until it is redefined.
            if *c == 0 || i < func.n_params as usize {
                own[i] = false;
                fresh[i] = false;
            }
        }
        OwnLocals { func, defs, own, fresh }
    }

    /// The argument of a call is the calling function's own object: a local array, or a local
    /// holding only the address of (a part of) a local's storage (`memset (&conv, 0, ..)`) or
    /// blocks it allocated itself (`memmove (p, ..)` after `p = alloc (n)`): no object its
    /// caller can name.
    fn own_object(&self, a: &Operand) -> bool {
        let Operand::Place(Place::Local(l)) = a else { return false };
        self.func.local(*l).is_aggregate || self.own[l.index()]
    }

    /// The place is inside an object the function allocated itself (`w->next` after `w =
    /// xmalloc (..)`): a store there writes no object that existed before the call, so no
    /// caller's test of a field it could already read changes.
    fn in_own_object(&self, p: &Place) -> bool {
        let mut p = p;
        loop {
            match p {
                Place::Field(b, _) | Place::Index(b) => p = b,
                Place::Deref(b) => return matches!(&**b, Place::Local(q) if self.fresh[q.index()]),
                Place::Local(_) | Place::Global(_) => return false,
            }
        }
    }

    /// What pointer `q` points to is known to be a scalar or a pointer (`LocalDecl::pointee_pointer`),
    /// also for a temporary copied once from such a pointer (`t = d; *t = c` of `*d++ = c`).
    fn pointee_known(&self, q: LocalId) -> bool {
        if self.func.local(q).pointee_pointer.is_some() {
            return true;
        }
        matches!(self.defs[q.index()], Some(Some(Rvalue::Use(Operand::Place(Place::Local(d)))))
            if self.func.local(*d).pointee_pointer.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failing_targets_beside_allocators_make_an_allocator_that_may_fail() {
        let mut alloc = Summary::plain(2, false);
        alloc.allocator = true;
        alloc.always_fresh = true;
        alloc.never_null = true;
        alloc.params[0] = ParamFate::Reallocs { size: None };
        let mut fail = Summary::plain(2, false);
        fail.ret_const = Some(0);
        let m = meet(&[&alloc, &fail]);
        assert!(m.allocator, "NULL is the allocator's failure");
        assert!(!m.always_fresh && !m.never_null, "the failing target returns NULL");
        assert_eq!(m.params[0], ParamFate::Reallocs { size: None }, "a failed realloc keeps the block");
        // A target that returns no constant NULL is no failing allocator: the call allocates
        // only if every target does.
        assert!(!meet(&[&alloc, &Summary::plain(2, false)]).allocator);
        // Nor does the rule make a free of what only some targets free.
        let mut frees = alloc.clone();
        frees.params[1] = ParamFate::Frees;
        assert_eq!(meet(&[&frees, &fail]).params[1], ParamFate::Escapes);
    }

    #[test]
    fn targets_that_disagree_on_a_free_free_nothing_known() {
        let mut frees = Summary::plain(1, false);
        frees.params[0] = ParamFate::Frees;
        let keeps = Summary::plain(1, false);
        assert_eq!(meet(&[&frees, &frees]).params[0], ParamFate::Frees);
        assert_eq!(meet(&[&frees, &keeps]).params[0], ParamFate::Escapes);
    }
}
