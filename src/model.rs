//! What a call does, as the checker sees it: the callee model of one call statement, and the
//! data a summary hands its callers that the model carries (heap effects, values held, ordered
//! stores).
//!
//! Input: a library row (`libmodel`) or nothing (an unknown callee); `summary` builds the model of
//! a summarised callee (`Model::from_summary`). Output: `Model`, which `cfg` and everything above
//! it read.
//! Invariants:
//! - This module sits below the analysis core: it imports only `ir`, `libmodel` and
//!   `global_writes`, so that `cfg` can know callees without knowing how summaries are made.

use crate::global_writes::{FieldWrites, GlobalWrites};
use crate::ir::Operand;
use crate::libmodel::{self, ArgEffect, RetEffect, Success};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The text of the path of "any field of `*p` this function does not name" (`cfg::OTHER_PATH`),
/// which no C access path can spell.
pub const OTHER_PATH_TEXT: &str = "*?";

/// What a function does to a cell the caller keeps in the object a parameter points to, at one
/// access path below it (`*p`, `p->buf`, or `cfg::OTHER_PATH_TEXT` for fields it never names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum PathFate {
    /// Left where it was.
    Reads,
    /// Freed on every path, and the caller's pointer is left dangling in its slot.
    Frees,
    /// Freed on every path, and the slot overwritten (`free(sb->buf); sb->buf = NULL;`).
    FreesCleared,
    /// No longer reachable, and not freed: the object holding it was freed or the field
    /// overwritten (`free(o)` without `free(o->name)`).
    Lost,
    /// Left where it was on some returns, lost (overwritten) on others, never freed or kept
    /// elsewhere: an out-parameter allocator that leaves `*out` alone when it fails. Callers
    /// that cannot tie it to the result treat it as `Escapes`.
    KeptOrLost,
    /// Returned on every path that returns, and gone from the slot (`strbuf_detach`, `char *r
    /// = *pp; *pp = NULL; return r;`): the caller's cell moves into the call's result.
    Returned,
    /// Anything else: stored elsewhere, passed on, freed on some paths only.
    Escapes,
}

/// A value an allocator leaves in a place below a parameter wherever it returns a fresh cell
/// (`Summary::ret_values`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Held {
    Zero,
    NonZero,
    /// Greater than 0: a kind set to 1 or 2 with the cell (bash's `estatep->subtype`).
    Positive,
    /// 0 or more.
    NonNegative,
}

impl Held {
    /// Every value a summary may state, weakest last; a place may hold several of them.
    pub const ALL: [Held; 4] = [Held::Zero, Held::Positive, Held::NonZero, Held::NonNegative];
}

/// One store a function makes below a parameter on every path that returns.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Write {
    /// Below parameter `param` at `path` (`*` is `*out`, `*.buf` is `p->buf`).
    pub param: usize,
    pub path: Arc<str>,
    pub from: WriteFrom,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum WriteFrom {
    /// A fresh cell the function hands back there (`Summary::out_fresh`).
    Fresh,
    /// The value parameter `.0` had on entry (`*a = p`).
    Param(usize),
}

/// Whether heap entry path `entry` is a `P*?` entry ("the fields nobody names of the object at
/// `P`", not `OTHER_PATH_TEXT` itself) whose object holds `path` (`*.in*.data` for `*.in*?`).
pub fn inside_freed_whole(entry: &str, path: &str) -> bool {
    entry.len() > OTHER_PATH_TEXT.len()
        && entry.ends_with(OTHER_PATH_TEXT)
        && path.starts_with(&entry[..entry.len() - 1])
}

/// What a summarised callee with heap effects `heap` (`heap_pure`) does to a cell the caller
/// keeps at `path` below argument `i` (`Model::path_fate` for a callee that is no library row).
pub fn heap_fate(heap: &[(usize, Arc<str>, PathFate)], heap_pure: bool, i: usize, path: &str) -> PathFate {
    let find = |p: &str| heap.iter().find(|h| h.0 == i && &*h.1 == p).map(|h| h.2);
    if let Some(fate) = find(path) {
        return fate;
    }
    // Inside an object at `P` the callee frees with everything it holds (`P*?`: the fields
    // nobody names of the object at `P`; the deepest such object): lost with it.
    let whole = heap.iter().filter(|h| h.0 == i && inside_freed_whole(&h.1, path)).max_by_key(|h| h.1.len());
    if let Some(h) = whole {
        return h.2;
    }
    // Below an object the callee frees or hands on (a recursive `tree_free(p)` names
    // `p->next` one level down, not `p->next->next`): what becomes of the deeper cells is
    // not said, so they escape rather than take the fate of the fields the callee ignores.
    let freed_above = heap.iter().any(|h| {
        h.0 == i
            && !matches!(h.2, PathFate::Reads)
            && path.len() > h.1.len()
            && path.starts_with(&*h.1)
            && path[h.1.len()..].starts_with('*')
    });
    if freed_above {
        return PathFate::Escapes;
    }
    find(OTHER_PATH_TEXT).unwrap_or(if heap_pure { PathFate::Reads } else { PathFate::Escapes })
}

/// One callee, as the checker sees it.
#[derive(Clone, Debug)]
pub struct Model<'a> {
    pub name: &'a str,
    pub ret: RetEffect,
    pub args: Vec<(usize, ArgEffect)>,
    /// Arguments from this index on that are not in `args` escape instead of being only read:
    /// all of them for unknown callees, the variadic extras for summarised ones.
    pub escape_from: usize,
    pub noreturn: bool,
    /// Modelled by the library table or a summary (else: the unknown-callee default).
    pub known: bool,
    /// A fresh result is returned on every path (library allocators: when they succeed).
    pub always_fresh: bool,
    /// A row of the library table: what it does to an argument's object is what the row says
    /// about the argument (a summarised function may free or keep the fields of an object it
    /// only reads).
    pub lib: bool,
    /// How the return value tells success from failure for `ArgEffect::FreesWhen` arguments of
    /// a summarised callee (library rows use the allocation's own notion).
    pub ret_success: Option<Success>,
    /// The result is fresh only when argument `.0` masked by `.1` is non-zero (`.2`) or zero
    /// (`!.2`), and the argument's bits do not tell at this call (`Function::operand_bits`).
    pub fresh_if_arg: Option<(usize, i64, bool)>,
    /// With `fresh_if_arg`: the result when it is not fresh is (an alias of) this argument
    /// (`Summary::returns_param`). Append-or-create, `list = append(list, x)`, is fresh when
    /// `list` is NULL and is `list` otherwise; `return copy ? strdup(s) : s;` is `s` when the
    /// flag is off. Not the flag argument itself when the result is fresh where it is non-NULL
    /// (`if (!sl) return sl; return filtered_copy(sl);`): the alias is NULL.
    pub else_arg: Option<usize>,
    /// Arguments a summarised callee reallocates (`ParamFate::Reallocs`), as a bit set: what is
    /// below them moves into the block it returns (`path_fate`).
    pub reallocs: u64,
    /// Fresh cells a summarised callee leaves below an argument at a path other than `*`
    /// (`init(obj)` setting `obj->buf`), and inside the object it returns.
    pub out_paths: Vec<(usize, Arc<str>, Success)>,
    pub ret_paths: Vec<Arc<str>>,
    /// Those of `ret_paths` that hold their cell only when argument `.1` masked by `.2` is
    /// non-zero (`.3`) or zero (`!.3`), and the call's arguments do not tell
    /// (`Summary::ret_fresh_if`).
    pub ret_paths_if: Vec<(Arc<str>, (usize, i64, bool))>,
    /// `Summary::ret_values` of a summarised callee whose result is fresh here.
    pub ret_values: Vec<(usize, Arc<str>, Held)>,
    /// `Summary::out_values` of a summarised callee that leaves fresh cells below arguments.
    pub out_values: Vec<(usize, Arc<str>, Held)>,
    /// `Summary::exit_values`: constants a summarised callee leaves below its arguments on every
    /// normal return.
    pub exit_values: Vec<(usize, Arc<str>, i64)>,
    /// A summarised callee's heap effects (`Summary::heap`, `Summary::heap_pure`).
    pub heap: Arc<[(usize, Arc<str>, PathFate)]>,
    pub heap_pure: bool,
    /// `Summary::heap_families`.
    pub heap_families: Arc<[(usize, Arc<str>, libmodel::Family)]>,
    /// A summarised callee's `Summary::writes`.
    pub writes: Arc<[Write]>,
    /// A summarised callee's `Summary::ret_const`.
    pub ret_const: Option<i64>,
    /// The fresh result is never NULL (`Summary::never_null`).
    pub never_null: bool,
    /// A summarised callee's `Summary::never_null_when` and `ret_const_when`, when the call's
    /// arguments did not already decide them (`precond` evaluates them with the values it knows).
    pub never_null_when: Option<(usize, i64)>,
    pub ret_const_when: Option<(usize, i64, i64)>,
    /// A summarised callee's `Summary::null_when`, at a call whose result may be fresh.
    pub null_when: Vec<(usize, i64)>,
    /// An `ArgAlias` result is the argument itself (`Summary::returns_param_itself`).
    pub ret_is_arg: bool,
    /// The globals the call may write (`Summary::globals_written`; none for a library row, all
    /// for an unknown callee).
    pub globals_written: GlobalWrites,
    /// The fields below its arguments the call may write (`Summary::fields_written`); `All` for
    /// a library row or an unknown callee, whose arguments' objects are taken as written whole.
    pub fields_written: FieldWrites,
    /// Per parameter, what of `fields_written` may be written below it
    /// (`Summary::param_fields_written`; empty: ask `fields_written`).
    pub param_fields_written: Arc<[FieldWrites]>,
    /// The globals the call may read (`Summary::globals_read`; none for a library row, which
    /// reads only what it is handed, all for an unknown callee).
    pub globals_read: GlobalWrites,
    /// The globals whose value the call may hand on (`Summary::globals_kept`; none for a library
    /// row, all for an unknown callee).
    pub globals_kept: GlobalWrites,
    /// `Summary::global_overwrites` and `Summary::global_fresh` of a summarised callee.
    pub global_overwrites: Arc<[Arc<str>]>,
    pub global_fresh: Arc<[Arc<str>]>,
    /// The result is the address of the place at this path below an argument
    /// (`Summary::ret_addr`).
    pub ret_addr: Option<(usize, Arc<str>)>,
    /// A library row that returns twice (`libmodel::returns_twice`): its non-zero return comes
    /// after a `longjmp` from calls the path does not show, so the cells held at the call are
    /// not followed on that side.
    pub returns_twice: bool,
    /// The result depends on the argument values alone (`Summary::pure_value`).
    pub pure_value: bool,
    /// The result depends on the argument values and the memory alone, and the call writes no
    /// memory (`Summary::reads_only`, `libmodel::reads_only`).
    pub reads_only: bool,
    /// The allocator family of the fresh result (and, for a library row, of its out-parameter
    /// cells): `None` when unknown (`libmodel::Family`).
    pub alloc_family: Option<libmodel::Family>,
    /// The family of the deallocator the call is for the arguments it frees: `None` when
    /// unknown.
    pub free_family: Option<libmodel::Family>,
    /// `Summary::param_globals`: arguments a summarised callee keeps only in one global.
    pub param_globals: Arc<[(usize, Arc<str>)]>,
    /// `Summary::va_reads`: arguments a summarised callee only hands to readers (a `va_list`).
    pub va_reads: u64,
}

impl<'a> Model<'a> {
    pub fn from_lib(lib: &'static libmodel::LibFn) -> Model<'a> {
        Model {
            name: lib.name,
            ret: lib.ret,
            args: lib.args.to_vec(),
            escape_from: usize::MAX,
            noreturn: lib.noreturn,
            known: true,
            always_fresh: true,
            lib: true,
            ret_success: None,
            fresh_if_arg: None,
            reallocs: 0,
            else_arg: None,
            out_paths: Vec::new(),
            ret_paths: Vec::new(),
            ret_paths_if: Vec::new(),
            ret_values: Vec::new(),
            out_values: Vec::new(),
            exit_values: Vec::new(),
            heap: Arc::from([]),
            heap_pure: false,
            heap_families: Arc::from([]),
            writes: Arc::from([]),
            ret_const: None,
            never_null: libmodel::never_null(lib.name),
            never_null_when: None,
            ret_const_when: None,
            null_when: Vec::new(),
            ret_is_arg: matches!(lib.ret, RetEffect::ArgAlias(_)) && libmodel::returns_argument_itself(lib.name),
            globals_written: GlobalWrites::none(),
            fields_written: FieldWrites::All,
            param_fields_written: Arc::from([]),
            globals_read: GlobalWrites::none(),
            globals_kept: GlobalWrites::none(),
            global_overwrites: Arc::from([]),
            global_fresh: Arc::from([]),
            ret_addr: None,
            returns_twice: libmodel::returns_twice(lib.name),
            pure_value: false,
            reads_only: libmodel::reads_only(lib.name),
            alloc_family: libmodel::family(lib),
            free_family: libmodel::family(lib),
            param_globals: Arc::from([]),
            va_reads: 0,
        }
    }

    /// A library row at a direct call with these arguments: the forms a constant argument selects
    /// (`realloc (p, 0)` frees `p` and returns no block; `realpath (p, NULL)` and `getcwd (NULL,
    /// n)` return a block they allocate instead of the caller's buffer).
    pub fn from_lib_call(lib: &'static libmodel::LibFn, args: &[Operand]) -> Model<'a> {
        let mut m = Model::from_lib(lib);
        let null_at = |i: usize| args.get(i).is_some_and(Operand::is_null_const);
        if libmodel::null_buffer_allocates(lib.name).is_some_and(null_at) {
            m.ret = RetEffect::Fresh(Success::NonNull);
            m.ret_is_arg = false;
        } else if let Some((p, _)) = libmodel::zero_size_frees(lib.name).filter(|(_, size)| null_at(*size)) {
            m.ret = RetEffect::Plain;
            m.args = vec![(p, ArgEffect::Frees)];
        }
        m
    }

    pub fn unknown(name: &'a str) -> Model<'a> {
        Model {
            name,
            ret: RetEffect::Plain,
            args: Vec::new(),
            escape_from: 0,
            noreturn: false,
            known: false,
            always_fresh: false,
            lib: false,
            ret_success: None,
            fresh_if_arg: None,
            reallocs: 0,
            else_arg: None,
            out_paths: Vec::new(),
            ret_paths: Vec::new(),
            ret_paths_if: Vec::new(),
            ret_values: Vec::new(),
            out_values: Vec::new(),
            exit_values: Vec::new(),
            heap: Arc::from([]),
            heap_pure: false,
            heap_families: Arc::from([]),
            writes: Arc::from([]),
            ret_const: None,
            never_null: false,
            never_null_when: None,
            ret_const_when: None,
            null_when: Vec::new(),
            ret_is_arg: false,
            globals_written: GlobalWrites::All,
            fields_written: FieldWrites::All,
            param_fields_written: Arc::from([]),
            globals_read: GlobalWrites::All,
            globals_kept: GlobalWrites::All,
            global_overwrites: Arc::from([]),
            global_fresh: Arc::from([]),
            ret_addr: None,
            returns_twice: false,
            pure_value: false,
            reads_only: false,
            alloc_family: None,
            free_family: None,
            param_globals: Arc::from([]),
            va_reads: 0,
        }
    }

    /// A direct call to a function with no body in the program and no row, with `n_args`
    /// arguments of which those in `const_args` (`ir::Callee::Direct::const_args`) are passed at
    /// a `const T *` parameter of its prototype: the callee only reads the blocks those point to
    /// (the caller still owns them); every other argument escapes, as do the cells below every
    /// argument (`path_fate`: a `const struct s *` does not make `s->buf` const), unless the
    /// function is a known keeper of const pointers (`libmodel::keeps_const_argument`).
    pub fn unknown_call(name: &'a str, const_args: u64, n_args: usize) -> Model<'a> {
        let mut m = Model::unknown(name);
        if const_args == 0 || libmodel::keeps_const_argument(name) {
            return m;
        }
        m.escape_from = usize::MAX;
        m.args =
            (0..n_args).filter(|&i| i >= 64 || const_args & (1 << i) == 0).map(|i| (i, ArgEffect::Keeps)).collect();
        m
    }

    /// What the call does to a cell the caller keeps at `path` below argument `i` (`path` as
    /// the callee sees it: `*`, `*.buf`, ...).
    pub fn path_fate(&self, i: usize, path: &str) -> PathFate {
        if self.lib {
            if libmodel::copies_from(self.name) == Some(i) {
                return PathFate::Escapes;
            }
            // Library functions touch what they are documented to: `free` frees the object (its
            // fields are lost with it), keepers keep it, the rest only read.
            return match self.arg_effect(i) {
                None => PathFate::Reads,
                Some(ArgEffect::Frees) => PathFate::Lost,
                // `realloc` moves the contents into the block it returns, which callers store
                // where the old one was (`v->items = realloc(v->items, n)`): they stay put.
                Some(ArgEffect::FreesWhen { on_success: true, .. } | ArgEffect::OutRealloc) => PathFate::Reads,
                _ => PathFate::Escapes,
            };
        }
        if !self.known || i >= self.escape_from {
            return PathFate::Escapes;
        }
        let fate = heap_fate(&self.heap, self.heap_pure, i, path);
        // A summarised `realloc` (`Summary::params`' `Reallocs`: it frees the block exactly
        // when it returns a fresh one) moves the contents as the library's does, by a copy the
        // pass does not follow (openssh's `recallocarray`: `malloc`, `memcpy`, `free`, or the
        // block itself when it shrinks a little): below the block, cells stay put for callers,
        // who store the result where the old block was.
        let moves_contents = path.len() > 1
            && !matches!(fate, PathFate::Frees | PathFate::FreesCleared)
            && matches!(self.arg_effect(i), Some(ArgEffect::FreesWhen { on_success: true, else_keeps: false }))
            && i < 64
            && self.reallocs & (1 << i) != 0;
        if moves_contents {
            return PathFate::Reads;
        }
        fate
    }

    /// A summarised callee's heap effects speak of `path` below argument `i` itself: an entry of
    /// that path, or a `P*?` entry of an object holding it (not the fields nobody names, `*?`).
    pub fn names_path(&self, i: usize, path: &str) -> bool {
        self.known
            && !self.lib
            && self.heap.iter().any(|h| h.0 == i && (&*h.1 == path || inside_freed_whole(&h.1, path)))
    }

    /// The family of the deallocator that frees the cell below argument `i` at `path`, when
    /// the summary names one (`Summary::heap_families`).
    pub fn heap_family(&self, i: usize, path: &str) -> Option<libmodel::Family> {
        self.heap_families.iter().find(|h| h.0 == i && &*h.1 == path).map(|h| h.2)
    }

    /// The argument the result may be (an alias of): always (`RetEffect::ArgAlias`), or when it
    /// is not fresh (`else_arg`).
    pub fn ret_alias(&self) -> Option<usize> {
        match self.ret {
            RetEffect::ArgAlias(i) => Some(i),
            _ => self.else_arg,
        }
    }

    /// The result is argument `i` itself whenever `i` is not NULL: `strcpy`'s destination, and
    /// append-or-create's list (not fresh exactly when the list is not NULL).
    pub fn ret_is_arg_itself(&self, i: usize) -> bool {
        match self.ret {
            RetEffect::ArgAlias(k) => k == i && self.ret_is_arg,
            _ => self.else_arg == Some(i) && self.fresh_if_arg == Some((i, -1, false)),
        }
    }

    /// A summarised function of the program that neither frees, keeps nor returns argument `i`
    /// itself: given `&x` there (`getnum (&s, ..)`, a cursor it moves), it may read and write
    /// `x` during the call but holds no pointer to it afterwards, so a pointer `x` stays a
    /// tracked local (`cfg::compute_tracked`), and the call is one more definition of it when
    /// the callee may store through that argument (`may_store_through`,
    /// `cfg::FnCx::defined_locals`). What becomes of a cell `x` held is the summary's heap
    /// effect on `*` (`PathFate`), as for any argument; what the summary says `*arg` holds after
    /// it (`ret_values`: `*dirp` NULL only when nothing was returned) reaches the tracked local's
    /// tests as it reached the memory's (`out_counts.c`'s `names_ok`).
    pub fn only_during_call(&self, i: usize) -> bool {
        self.known && !self.lib && self.arg_effect(i).is_none() && self.ret_alias() != Some(i)
    }

    /// The callee may store through argument `i` itself (`*arg = v`, what a caller's `&x` there
    /// makes a write of `x`): `param_fields_written`, or `fields_written` without it.
    pub fn may_store_through(&self, i: usize) -> bool {
        self.param_fields_written.get(i).unwrap_or(&self.fields_written).may_write_path("")
    }

    /// The callee only reads through argument `i` and stores a whole value at `*arg` on every
    /// path that returns (`Summary::writes`): `set(&name, val)` doing `free(*buf); *buf = val;`.
    /// A local whose address is passed there stays a tracked value, written by the call, as for
    /// an out-parameter allocator.
    pub fn stores_through(&self, i: usize) -> bool {
        self.known
            && !self.lib
            && self.arg_effect(i).is_none()
            && self.writes.iter().any(|w| w.param == i && &*w.path == "*")
    }

    /// A block passed as argument `i` itself (`f(p)`) leaves the caller's hands on every path
    /// through the call: the callee frees it, or keeps it (stores it, or may: what the value flow
    /// counts as an escape). Not a `realloc`-like argument, even one whose failure keeps it
    /// (`reftable_realloc`, a wrapper that may call a replaceable hook): which outcome the call
    /// had is what the caller's tests say (`FreesWhen`), and a failed grow that overwrites the
    /// only pointer is a leak to report.
    /// Only a callee drip knows (a summary or a library row): an unknown one "keeps" only
    /// because nothing is known of it (zlib's `compress2 (buf, ..)`), and a release through it
    /// in a loop's later iteration would hide the old block a failed grow loses there.
    pub fn releases_arg(&self, i: usize) -> bool {
        self.known && matches!(self.arg_effect(i), Some(ArgEffect::Frees | ArgEffect::Keeps))
    }

    /// The global a kept argument `i` goes into (`Summary::param_globals`).
    pub fn param_global(&self, i: usize) -> Option<&Arc<str>> {
        self.param_globals.iter().find(|g| g.0 == i).map(|g| &g.1)
    }

    pub fn arg_effect(&self, i: usize) -> Option<ArgEffect> {
        match self.args.iter().find(|a| a.0 == i) {
            Some(a) => Some(a.1),
            None if i >= self.escape_from => Some(ArgEffect::Keeps),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_calls_read_only_their_const_pointer_arguments() {
        // `int f (const char *, char *, const void *, ...)` called with four arguments.
        let m = Model::unknown_call("f", 0b101, 4);
        assert_eq!(
            (0..4).map(|i| m.arg_effect(i)).collect::<Vec<_>>(),
            [None, Some(ArgEffect::Keeps), None, Some(ArgEffect::Keeps)]
        );
        // Only the argument's own block: what it holds may still be kept or freed.
        assert_eq!(m.path_fate(0, "*"), PathFate::Escapes);
        assert!(!m.known && !m.lib);
        // No const parameter, or a keeper of const pointers: everything escapes.
        for m in [Model::unknown_call("f", 0, 2), Model::unknown_call("OPENSSL_sk_push", 0b10, 2)] {
            assert_eq!(m.arg_effect(1), Some(ArgEffect::Keeps));
            assert_eq!(m.arg_effect(5), Some(ArgEffect::Keeps));
        }
    }
}
