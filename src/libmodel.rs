//! The library model: what C library and POSIX functions do to the pointers they are given.
//!
//! Input: a callee name. Output: a `&'static LibFn` describing allocation, deallocation,
//! reallocation, retention and aliasing of its arguments and result, or `None` when the function is
//! not modelled.
//! Invariants: this is data, not code paths — adding a function is adding a row. Arguments not
//! listed in a row are only read (no escape, no free). A callee that is neither modelled nor
//! analysed gets the conservative default documented on `UNKNOWN_CALLEE_DEFAULT`.

/// The C library's own allocator entry points. A program that defines one of them (its own
/// `malloc`, as bash's lib/malloc, or a debugging allocator) still gives every caller the C
/// library's contract: the definition implements the contract, and its body (free lists,
/// arenas, an `sbrk`) would otherwise be summarised as allocating and freeing nothing.
pub const CONTRACT_KEPT_WHEN_DEFINED: &[&str] = &[
    "aligned_alloc",
    "calloc",
    "cfree",
    "free",
    "malloc",
    "memalign",
    "posix_memalign",
    "pvalloc",
    "realloc",
    "reallocarray",
    "valloc",
];

/// The allocator family of a block: which deallocator releases it. Memory from `new` must be
/// released by `delete`, from `new[]` by `delete[]`, from the C allocator (`malloc`, `strdup`,
/// `realloc`, the out-parameter allocators) by `free` or `realloc`; any other pairing is a
/// `mismatched-deallocation` (CWE-762).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub enum Family {
    Malloc,
    New,
    NewArray,
}

impl Family {
    /// How a report names the allocation side (`new[]`).
    pub fn allocation(self) -> &'static str {
        match self {
            Family::Malloc => "malloc",
            Family::New => "new",
            Family::NewArray => "new[]",
        }
    }
    /// How a report names the deallocator the family wants (`delete[]`).
    pub fn release(self) -> &'static str {
        match self {
            Family::Malloc => "free",
            Family::New => "delete",
            Family::NewArray => "delete[]",
        }
    }

    /// One family for several blocks or frees: `None` unless all of them agree (an unknown one
    /// among them makes it unknown).
    pub fn meet(mut each: impl Iterator<Item = Option<Family>>) -> Option<Family> {
        let first = each.next()??;
        each.all(|f| f == Some(first)).then_some(first)
    }
}

/// The family of a row of the built-in table that allocates or frees (`None` for other rows, and
/// for rows made from the program's declarations, whose deallocator drip does not know).
pub fn family(lib: &LibFn) -> Option<Family> {
    if !TABLE.as_ptr_range().contains(&(lib as *const LibFn)) {
        return None;
    }
    let row = lib;
    if let Some(op) = row.name.strip_prefix("operator ") {
        return Some(if op.contains("[]") { Family::NewArray } else { Family::New });
    }
    let allocates = matches!(row.ret, RetEffect::Fresh(_))
        || null_buffer_allocates(row.name).is_some()
        || row.args.iter().any(|a| matches!(a.1, ArgEffect::OutFresh(_) | ArgEffect::OutRealloc));
    let frees = row.args.iter().any(|a| matches!(a.1, ArgEffect::Frees | ArgEffect::FreesWhen { .. }));
    (allocates || frees).then_some(Family::Malloc)
}

/// When an allocator succeeded, seen from its return value. Used to fold NULL/error tests of
/// the tracked allocation (FastCheck 5.6.1) and to correlate tests of other allocations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub enum Success {
    /// Success iff the returned pointer is non-NULL (malloc, strdup, realloc).
    NonNull,
    /// Success iff the returned int is >= 0; failure returns -1 (asprintf).
    RetNonNegative,
    /// Success iff the returned int is 0; failure returns an error number (posix_memalign).
    RetZero,
    /// The out-parameter is allocated whatever the result says (getline allocates even when it
    /// returns -1).
    Always,
    /// A summarised function whose every `return` is a constant: those in `ok` on one side,
    /// those in `fail` on the other (inclusive ranges, disjoint).
    Range { ok: (i64, i64), fail: (i64, i64) },
}

/// `v OP k` for every `v` in `lo..=hi`: `Some(b)` when it is the same for all of them.
fn eval_range(lo: i64, hi: i64, op: crate::ir::CmpOp, k: i64) -> Option<bool> {
    use crate::ir::CmpOp::*;
    let all_or_none = |all: bool, none: bool| {
        if all {
            Some(true)
        } else if none {
            Some(false)
        } else {
            None
        }
    };
    match op {
        Eq => all_or_none(lo == k && hi == k, k < lo || k > hi),
        Ne => all_or_none(k < lo || k > hi, lo == k && hi == k),
        Lt => all_or_none(hi < k, lo >= k),
        Le => all_or_none(hi <= k, lo > k),
        Gt => all_or_none(lo > k, hi <= k),
        Ge => all_or_none(lo >= k, hi < k),
    }
}

impl Success {
    /// A representative value of the return on failure, `None` when failure is not observable.
    pub fn failure_value(self) -> Option<i64> {
        match self {
            Success::NonNull => Some(0),
            Success::RetNonNegative => Some(-1),
            Success::RetZero => Some(12),
            Success::Always => None,
            Success::Range { fail, .. } => Some(fail.0),
        }
    }
    /// Evaluate `ret OP k` for every successful return value: `Some(b)` when the answer is the
    /// same for all of them.
    pub fn eval_cmp_on_success(self, op: crate::ir::CmpOp, k: i64) -> Option<bool> {
        use crate::ir::CmpOp::*;
        // Success ranges: NonNull = {≠0}, RetNonNegative = [0, ∞), RetZero = {0}.
        match self {
            Success::Always => None,
            Success::Range { ok, .. } => eval_range(ok.0, ok.1, op, k),
            Success::RetZero => Some(match op {
                Eq => k == 0,
                Ne => k != 0,
                Lt => 0 < k,
                Le => 0 <= k,
                Gt => 0 > k,
                Ge => 0 >= k,
            }),
            Success::RetNonNegative => match op {
                Eq if k < 0 => Some(false),
                Ne if k < 0 => Some(true),
                Lt if k <= 0 => Some(false),
                Le if k < 0 => Some(false),
                Gt if k < 0 => Some(true),
                Ge if k <= 0 => Some(true),
                _ => None,
            },
            Success::NonNull => match (op, k) {
                (Eq, 0) => Some(false),
                (Ne, 0) => Some(true),
                _ => None,
            },
        }
    }
    pub fn eval_cmp_on_failure(self, op: crate::ir::CmpOp, k: i64) -> Option<bool> {
        use crate::ir::CmpOp::*;
        if let Success::Range { fail, .. } = self {
            return eval_range(fail.0, fail.1, op, k);
        }
        let v = self.failure_value()?;
        if self == Success::RetZero && (op == Eq || op == Ne) && k != 0 {
            // Failure is "some error number": only comparisons with 0 are decided.
            return None;
        }
        Some(match op {
            Eq => v == k,
            Ne => v != k,
            Lt => v < k,
            Le => v <= k,
            Gt => v > k,
            Ge => v >= k,
        })
    }
}

/// What a call does with one of its pointer arguments.
/// `realloc`'s effect on its first argument.
pub const FREES_ON_SUCCESS: ArgEffect = ArgEffect::FreesWhen { on_success: true, else_keeps: false };

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgEffect {
    /// `free(p)`.
    Frees,
    /// Frees the argument when the call succeeds (`on_success`) or when it fails, as its return
    /// value tells (the callee's `Success` notion); otherwise only reads it, or keeps it
    /// (`else_keeps`). `realloc(p, n)` frees `p` when it succeeds and leaves it alone when it
    /// fails; `int add(list *l, char *item)` may free `item` when it fails and keep it otherwise.
    FreesWhen { on_success: bool, else_keeps: bool },
    /// Frees the argument exactly when argument `flag` is non-zero (`when`) or zero (`!when`);
    /// otherwise only reads it: `release(p, owned)` called with a variable flag.
    FreesIfArg { flag: usize, when: bool },
    /// `asprintf(&s, ..)`: stores a fresh cell into `*arg`.
    OutFresh(Success),
    /// `getline(&line, ..)`: allocates into `*arg` when it is NULL, otherwise keeps or reallocates
    /// the buffer, which stays owned by whoever held it.
    OutRealloc,
    /// The function keeps the pointer beyond the call (`putenv`, `setvbuf`): ownership escapes.
    Keeps,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetEffect {
    /// Nothing to track.
    Plain,
    /// A fresh heap cell.
    Fresh(Success),
    /// An alias of argument `i` (`strcpy` returns its destination).
    ArgAlias(usize),
}

#[derive(Debug)]
pub struct LibFn {
    pub name: &'static str,
    pub ret: RetEffect,
    pub args: &'static [(usize, ArgEffect)],
    pub noreturn: bool,
}

impl LibFn {
    #[cfg(test)]
    pub fn arg_effect(&self, i: usize) -> Option<ArgEffect> {
        self.args.iter().find(|a| a.0 == i).map(|a| a.1)
    }
}

/// Rows whose result is never NULL: C++'s `operator new` and `operator new[]` throw instead of
/// failing (`std::bad_alloc`), so a NULL test of their result is always false.
pub fn never_null(name: &str) -> bool {
    matches!(name, "operator new" | "operator new[]")
}

/// Rows that copy memory from one argument into another (`memcpy (dst, src, n)`): the index of
/// the source. Pointers stored in the source object are then also in the destination, which may
/// be anywhere (openssh's `memcpy (options.identity_files, identity_files, ..)` hands a local
/// array's strings to a global): cells below the source escape (`Model::path_fate`), while the
/// source block itself is only read.
pub fn copies_from(name: &str) -> Option<usize> {
    let base = name.trim_start_matches("__builtin_").trim_start_matches('_');
    let base = base.strip_suffix("_chk").unwrap_or(base);
    match base {
        "memcpy" | "memmove" | "mempcpy" | "wmemcpy" | "wmemmove" => Some(1),
        "bcopy" => Some(0),
        _ => None,
    }
}

/// Rows whose result depends only on their argument values and the memory those arguments
/// point to, and which write nothing (`strcmp`, `strlen`, `strchr`): two calls with the same
/// arguments and no store to memory between them give the same result, so two tests of
/// `strcmp (s, t) == 0` go the same way (`cfg::FnCx::text_key`). Not the functions that read
/// other state (`getenv`, the locale of `strcoll`, `errno` and the end pointer of `strtol`;
/// `atoi` sets neither).
pub fn reads_only(name: &str) -> bool {
    let base = name.strip_prefix("__builtin_").unwrap_or(name);
    matches!(
        base,
        "atoi"
            | "atol"
            | "atoll"
            | "memchr"
            | "memcmp"
            | "memrchr"
            | "rawmemchr"
            | "strcasecmp"
            | "strcasestr"
            | "strchr"
            | "strchrnul"
            | "strcmp"
            | "strcspn"
            | "strlen"
            | "strncasecmp"
            | "strncmp"
            | "strnlen"
            | "strpbrk"
            | "strrchr"
            | "strspn"
            | "strstr"
            | "wcschr"
            | "wcscmp"
            | "wcslen"
            | "wcsncmp"
            | "wcsrchr"
            | "wcsstr"
            | "wmemchr"
            | "wmemcmp"
    )
}

/// Rows that write only to a stream (`printf`, `fputs`, `fwrite`, `write`): the stream's
/// buffer is no object the program reads through a pointer of its own, so for the program's
/// memory (`cfg::FnCx::writes_memory`) they write nothing. `%n` is left out.
pub fn writes_only_streams(name: &str) -> bool {
    let base = name.trim_start_matches('_');
    let base = base.strip_suffix("_chk").unwrap_or(base);
    let base = base.strip_suffix("_unlocked").unwrap_or(base);
    matches!(
        base,
        "dprintf"
            | "fflush"
            | "fprintf"
            | "fputc"
            | "fputs"
            | "fwrite"
            | "perror"
            | "printf"
            | "putc"
            | "putchar"
            | "puts"
            | "vdprintf"
            | "vfprintf"
            | "vprintf"
            | "write"
    )
}

/// Rows that return twice (`setjmp` and its spellings): 0 when called, non-zero when a later
/// `longjmp` comes back to them. The second return resumes after calls this function made in
/// between, which the path through it does not show.
pub fn returns_twice(name: &str) -> bool {
    matches!(name, "setjmp" | "_setjmp" | "sigsetjmp" | "__sigsetjmp" | "__builtin_setjmp")
}

/// Rows whose call with a NULL buffer argument allocates the buffer it returns
/// (`realpath (p, NULL)`, `getcwd (NULL, n)`): the index of that argument. The row is the buffer
/// form (an alias of the buffer); `summary::Model::from_lib_call` makes the NULL form a fresh
/// result.
pub fn null_buffer_allocates(name: &str) -> Option<usize> {
    match name {
        "realpath" | "__realpath_chk" => Some(1),
        "getcwd" | "__getcwd_chk" => Some(0),
        _ => None,
    }
}

/// Rows that free their pointer argument and return no block when the size argument is a
/// constant 0 (`realloc (p, 0)`, as glibc does it): (pointer index, size index).
pub fn zero_size_frees(name: &str) -> Option<(usize, usize)> {
    match name {
        "realloc" | "__builtin_realloc" | "reallocf" => Some((0, 1)),
        _ => None,
    }
}

/// The `ArgAlias` rows whose result is the argument itself on every call: the copy and fill
/// functions (`strcpy(d, s)` returns `d`). The others return a pointer into the argument or NULL
/// (`strchr`, `fgets`), so a test of their result says nothing of the argument.
pub fn returns_argument_itself(name: &str) -> bool {
    let base = name.strip_prefix("__builtin_").unwrap_or(name);
    let base = base.strip_prefix("__").and_then(|b| b.strip_suffix("_chk")).unwrap_or(base);
    const ITSELF: [&str; 14] = [
        "memcpy", "memmove", "memset", "strcat", "strcpy", "strncat", "strncpy", "wcscat", "wcscpy", "wcsncat",
        "wcsncpy", "wmemcpy", "wmemmove", "wmemset",
    ];
    ITSELF.contains(&base)
}

/// Calls to functions neither modelled here nor analysed: every pointer argument escapes (the
/// callee may store or free it) except one the callee's prototype takes as `const T *`, which it
/// only reads (`model::Model::unknown_call` says when that is trusted); the result is an
/// untracked value, and the call returns.
pub const UNKNOWN_CALLEE_DEFAULT: &str =
    "pointer arguments escape unless the prototype declares them `const T *`; the result is not tracked; the call returns";

/// Functions outside this table that keep a pointer they take as `const T *`: the
/// unknown-callee default does not trust their prototype's `const` (`model::Model::unknown_call`)
/// and lets every argument escape. Library keepers with a row (`pthread_setspecific`, `tsearch`,
/// `openlog`, `putenv`) say so in the row. Sorted, byte order (checked by a test).
const KEEPS_CONST_ARGUMENT: &[&str] = &[
    // OpenSSL's stacks hold the pointers pushed into them (`sk_X509_push` and the other typed
    // wrappers take a non-const element; the untyped entry points take `const void *`).
    "OPENSSL_sk_insert",
    "OPENSSL_sk_push",
    "OPENSSL_sk_set",
    "OPENSSL_sk_unshift",
    // Python keeps the string (documented: it must stay valid for the interpreter's lifetime).
    "Py_SetProgramName",
    "Py_SetPythonHome",
    // GLib interns the string without copying it.
    "g_intern_static_string",
    "g_quark_from_static_string",
    // OpenSSL 1.0's names of the stack functions.
    "sk_insert",
    "sk_push",
    "sk_set",
    "sk_unshift",
];

/// A function with no body and no row that keeps a pointer its prototype declares `const`.
pub fn keeps_const_argument(name: &str) -> bool {
    KEEPS_CONST_ARGUMENT.binary_search(&name).is_ok()
}

use ArgEffect::*;
use RetEffect::*;
use Success::*;

const fn f(name: &'static str, ret: RetEffect, args: &'static [(usize, ArgEffect)]) -> LibFn {
    LibFn { name, ret, args, noreturn: false }
}
const fn ro(name: &'static str) -> LibFn {
    LibFn { name, ret: Plain, args: &[], noreturn: false }
}
const fn alias0(name: &'static str) -> LibFn {
    LibFn { name, ret: ArgAlias(0), args: &[], noreturn: false }
}
const fn nr(name: &'static str) -> LibFn {
    LibFn { name, ret: Plain, args: &[], noreturn: true }
}

/// Sorted by name, byte order (checked by a test), for binary search.
///
/// Conventions beyond the row helpers:
/// - `ArgAlias(i)` also covers functions that return a pointer *into* argument `i` (`strchr`,
///   `stpcpy`) and those that return argument `i` or NULL (`fgets`): for leak tracking a pointer
///   into a block holds that block.
/// - A function whose result is freshly allocated only for some arguments (`realpath(p, NULL)`,
///   `getcwd(NULL, 0)`) is modelled by its buffer form: listing it as `Fresh` would report every
///   call with a caller-supplied buffer as a leak. A call whose buffer argument is a NULL
///   constant is the allocating form (`null_buffer_allocates`), as `realloc(p, 0)` is a free
///   (`zero_size_frees`); `summary::Model::from_lib_call` applies both.
/// - `alloca`-based functions return stack memory: they are listed as read-only, never as
///   allocators.
/// - `_FORTIFY_SOURCE` (`__*_chk`), `__builtin_*` and old-glibc internal names (`__strdup`,
///   `__getdelim`) share the model of the function they stand for.
/// - Deliberately absent (the unknown-callee default applies): `open_memstream` (the buffer is
///   written into `*arg` at fflush/fclose, not at the call) and `scandir` (returns 0 with a NULL
///   array, so an `OutFresh` model would report `if (n <= 0) return` as a leak).
static TABLE: &[LibFn] = &[
    nr("_Exit"),
    f("__asprintf_chk", Plain, &[(0, OutFresh(RetNonNegative))]),
    // glibc/BSD; declared noreturn
    nr("__assert"),
    // Bionic's assert
    nr("__assert2"),
    nr("__assert_fail"),
    // newlib's assert
    nr("__assert_func"),
    nr("__assert_perror_fail"),
    nr("__assert_rtn"),
    ro("__bswap_16"),
    ro("__bswap_32"),
    ro("__bswap_64"),
    ro("__builtin___fprintf_chk"),
    alias0("__builtin___memcpy_chk"),
    alias0("__builtin___memmove_chk"),
    alias0("__builtin___mempcpy_chk"),
    alias0("__builtin___memset_chk"),
    ro("__builtin___printf_chk"),
    ro("__builtin___snprintf_chk"),
    ro("__builtin___sprintf_chk"),
    alias0("__builtin___stpcpy_chk"),
    alias0("__builtin___stpncpy_chk"),
    alias0("__builtin___strcat_chk"),
    alias0("__builtin___strcpy_chk"),
    alias0("__builtin___strncat_chk"),
    alias0("__builtin___strncpy_chk"),
    ro("__builtin___vfprintf_chk"),
    ro("__builtin___vprintf_chk"),
    ro("__builtin___vsnprintf_chk"),
    ro("__builtin___vsprintf_chk"),
    nr("__builtin_abort"),
    // stack memory: never freed, not an allocator
    ro("__builtin_alloca"),
    // stack memory: never freed, not an allocator
    ro("__builtin_alloca_with_align"),
    f("__builtin_calloc", Fresh(NonNull), &[]),
    // fortify wrappers pass their destination to it: it only reads
    ro("__builtin_dynamic_object_size"),
    ro("__builtin_fprintf"),
    ro("__builtin_fputs"),
    f("__builtin_free", Plain, &[(0, Frees)]),
    ro("__builtin_fwrite"),
    nr("__builtin_longjmp"),
    f("__builtin_malloc", Fresh(NonNull), &[]),
    alias0("__builtin_memchr"),
    ro("__builtin_memcmp"),
    alias0("__builtin_memcpy"),
    alias0("__builtin_memmove"),
    alias0("__builtin_mempcpy"),
    alias0("__builtin_memset"),
    // fortify wrappers pass their destination to it: it only reads
    ro("__builtin_object_size"),
    ro("__builtin_printf"),
    ro("__builtin_putchar"),
    ro("__builtin_puts"),
    f("__builtin_realloc", Fresh(NonNull), &[(0, FREES_ON_SUCCESS)]),
    ro("__builtin_setjmp"),
    ro("__builtin_snprintf"),
    ro("__builtin_sprintf"),
    alias0("__builtin_stpcpy"),
    alias0("__builtin_stpncpy"),
    alias0("__builtin_strcat"),
    alias0("__builtin_strchr"),
    ro("__builtin_strcmp"),
    alias0("__builtin_strcpy"),
    ro("__builtin_strcspn"),
    f("__builtin_strdup", Fresh(NonNull), &[]),
    ro("__builtin_strlen"),
    alias0("__builtin_strncat"),
    ro("__builtin_strncmp"),
    alias0("__builtin_strncpy"),
    f("__builtin_strndup", Fresh(NonNull), &[]),
    alias0("__builtin_strpbrk"),
    alias0("__builtin_strrchr"),
    ro("__builtin_strspn"),
    alias0("__builtin_strstr"),
    nr("__builtin_trap"),
    nr("__builtin_unreachable"),
    // `va_start(ap, last)` names the last fixed parameter; `va_copy`/`va_end` take the list.
    ro("__builtin_va_copy"),
    ro("__builtin_va_end"),
    ro("__builtin_va_start"),
    nr("__chk_fail"),
    ro("__ctype_b_loc"),
    ro("__ctype_get_mb_cur_max"),
    ro("__ctype_tolower_loc"),
    ro("__ctype_toupper_loc"),
    ro("__dprintf_chk"),
    ro("__errno_location"),
    ro("__explicit_bzero_chk"),
    ro("__fdelt_chk"),
    ro("__fdelt_warn"),
    alias0("__fgets_chk"),
    alias0("__fgets_unlocked_chk"),
    alias0("__fgetws_chk"),
    nr("__fortify_fail"),
    ro("__fprintf_chk"),
    ro("__fpurge"),
    ro("__fread_chk"),
    ro("__fread_unlocked_chk"),
    ro("__fxstat"),
    // fortify uses it only with a buffer of known size: always the buffer form
    alias0("__getcwd_chk"),
    // old glibc's inline getline calls it
    f("__getdelim", Plain, &[(0, OutRealloc)]),
    ro("__isoc99_fscanf"),
    ro("__isoc99_scanf"),
    ro("__isoc99_sscanf"),
    f("__libc_calloc", Fresh(NonNull), &[]),
    f("__libc_free", Plain, &[(0, Frees)]),
    f("__libc_malloc", Fresh(NonNull), &[]),
    f("__libc_memalign", Fresh(NonNull), &[]),
    f("__libc_realloc", Fresh(NonNull), &[(0, FREES_ON_SUCCESS)]),
    nr("__longjmp_chk"),
    ro("__lxstat"),
    ro("__mbstowcs_chk"),
    alias0("__memcpy_chk"),
    alias0("__memmove_chk"),
    alias0("__mempcpy_chk"),
    alias0("__memset_chk"),
    ro("__open64_2"),
    ro("__open_2"),
    ro("__openat_2"),
    ro("__poll_chk"),
    ro("__pread64_chk"),
    ro("__pread_chk"),
    ro("__printf_chk"),
    ro("__read_chk"),
    ro("__readlink_chk"),
    // fortify uses it only with a buffer of known size: always the buffer form
    f("__realpath_chk", ArgAlias(1), &[]),
    ro("__recv_chk"),
    ro("__recvfrom_chk"),
    ro("__sigsetjmp"),
    ro("__snprintf_chk"),
    ro("__sprintf_chk"),
    nr("__stack_chk_fail"),
    alias0("__stpcpy_chk"),
    alias0("__stpncpy_chk"),
    alias0("__strcat_chk"),
    alias0("__strcpy_chk"),
    // old glibc's bits/string2.h: `#define strdup __strdup`
    f("__strdup", Fresh(NonNull), &[]),
    alias0("__strncat_chk"),
    alias0("__strncpy_chk"),
    f("__strndup", Fresh(NonNull), &[]),
    ro("__syslog_chk"),
    f("__vasprintf_chk", Plain, &[(0, OutFresh(RetNonNegative))]),
    ro("__vdprintf_chk"),
    ro("__vfprintf_chk"),
    ro("__vprintf_chk"),
    ro("__vsnprintf_chk"),
    ro("__vsprintf_chk"),
    ro("__vsyslog_chk"),
    alias0("__wcscat_chk"),
    alias0("__wcscpy_chk"),
    alias0("__wcsncpy_chk"),
    ro("__wcstombs_chk"),
    alias0("__wmemcpy_chk"),
    alias0("__wmemmove_chk"),
    alias0("__wmemset_chk"),
    // glibc's POSIX basename (libgen.h): as basename
    alias0("__xpg_basename"),
    ro("__xstat"),
    nr("_exit"),
    nr("_longjmp"),
    ro("_setjmp"),
    // Windows (MSVC) and MinGW names of strdup/strndup/wcsdup, in code built for both
    f("_strdup", Fresh(NonNull), &[]),
    f("_strndup", Fresh(NonNull), &[]),
    f("_wcsdup", Fresh(NonNull), &[]),
    nr("abort"),
    ro("abs"),
    ro("accept"),
    ro("accept4"),
    ro("access"),
    ro("acos"),
    ro("alarm"),
    f("aligned_alloc", Fresh(NonNull), &[]),
    // stack memory: never freed, not an allocator
    ro("alloca"),
    ro("arc4random"),
    ro("arc4random_buf"),
    ro("arc4random_uniform"),
    ro("asctime"),
    // returns its buffer argument
    f("asctime_r", ArgAlias(1), &[]),
    ro("asin"),
    f("asprintf", Plain, &[(0, OutFresh(RetNonNegative))]),
    ro("at_quick_exit"),
    ro("atan"),
    ro("atan2"),
    ro("atexit"),
    ro("atof"),
    ro("atoi"),
    ro("atol"),
    ro("atoll"),
    ro("backtrace"),
    // one block: the strings live inside the array
    f("backtrace_symbols", Fresh(NonNull), &[]),
    ro("backtrace_symbols_fd"),
    // argument 0, a pointer into it, or a static string: aliasing is the conservative choice
    alias0("basename"),
    ro("bcmp"),
    ro("bcopy"),
    ro("bind"),
    ro("bsearch"),
    ro("bzero"),
    f("calloc", Fresh(NonNull), &[]),
    f("canonicalize_file_name", Fresh(NonNull), &[]),
    ro("ceil"),
    ro("cfgetispeed"),
    ro("cfgetospeed"),
    ro("cfmakeraw"),
    ro("cfsetispeed"),
    ro("cfsetospeed"),
    ro("chdir"),
    ro("chmod"),
    ro("chown"),
    ro("chroot"),
    ro("clearerr"),
    ro("clock"),
    ro("clock_gettime"),
    ro("close"),
    ro("closedir"),
    ro("closefrom"),
    ro("closelog"),
    ro("confstr"),
    ro("connect"),
    ro("cos"),
    ro("cosh"),
    ro("creat"),
    ro("ctime"),
    // returns its buffer argument
    f("ctime_r", ArgAlias(1), &[]),
    ro("difftime"),
    ro("dirfd"),
    // argument 0 or a static ".": aliasing is the conservative choice
    alias0("dirname"),
    ro("dlclose"),
    ro("dlerror"),
    ro("dlopen"),
    ro("dlsym"),
    ro("dprintf"),
    ro("dup"),
    ro("dup2"),
    ro("dup3"),
    ro("endgrent"),
    ro("endpwent"),
    ro("endservent"),
    ro("epoll_create1"),
    ro("epoll_ctl"),
    ro("epoll_wait"),
    nr("err"),
    // GNU error() returns when its status is 0: not noreturn
    ro("error"),
    // returns when its status is 0: not noreturn
    ro("error_at_line"),
    nr("errx"),
    ro("execl"),
    ro("execle"),
    ro("execlp"),
    ro("execv"),
    ro("execve"),
    ro("execvp"),
    ro("execvpe"),
    nr("exit"),
    ro("exp"),
    ro("explicit_bzero"),
    ro("fabs"),
    ro("faccessat"),
    ro("fchdir"),
    ro("fchmod"),
    ro("fchmodat"),
    ro("fchown"),
    ro("fchownat"),
    ro("fclose"),
    ro("fcntl"),
    ro("fdatasync"),
    ro("fdopen"),
    ro("fdopendir"),
    ro("feof"),
    ro("ferror"),
    ro("fflush"),
    ro("fgetc"),
    ro("fgetpos"),
    alias0("fgets"),
    alias0("fgets_unlocked"),
    alias0("fgetws"),
    ro("fileno"),
    ro("flock"),
    ro("flockfile"),
    ro("floor"),
    // the stream uses the buffer until fclose
    f("fmemopen", Plain, &[(0, Keeps)]),
    ro("fmod"),
    ro("fnmatch"),
    ro("fopen"),
    ro("fopen64"),
    // the stream keeps the cookie until fclose
    f("fopencookie", Plain, &[(0, Keeps)]),
    ro("fork"),
    ro("fprintf"),
    ro("fputc"),
    ro("fputs"),
    ro("fputws"),
    ro("fread"),
    f("free", Plain, &[(0, Frees)]),
    // C23
    f("free_aligned_sized", Plain, &[(0, Frees)]),
    // C23
    f("free_sized", Plain, &[(0, Frees)]),
    ro("freeaddrinfo"),
    ro("freopen"),
    ro("fscanf"),
    ro("fseek"),
    ro("fseeko"),
    ro("fsetpos"),
    ro("fstat"),
    ro("fstat64"),
    ro("fstatat"),
    ro("fstatvfs"),
    ro("fsync"),
    ro("ftell"),
    ro("ftello"),
    ro("ftruncate"),
    ro("funlockfile"),
    // BSD fopencookie
    f("funopen", Plain, &[(0, Keeps)]),
    ro("futimes"),
    ro("fwprintf"),
    ro("fwrite"),
    ro("gai_strerror"),
    f("get_current_dir_name", Fresh(NonNull), &[]),
    ro("getaddrinfo"),
    ro("getc"),
    ro("getc_unlocked"),
    ro("getchar"),
    // the buffer, or NULL; getcwd(NULL, n) allocates (`null_buffer_allocates`)
    alias0("getcwd"),
    f("getdelim", Plain, &[(0, OutRealloc)]),
    ro("getdtablesize"),
    ro("getegid"),
    ro("getenv"),
    ro("geteuid"),
    ro("getgid"),
    ro("getgrent"),
    ro("getgrgid"),
    ro("getgrnam"),
    ro("getgrouplist"),
    ro("getgroups"),
    ro("gethostname"),
    f("getline", Plain, &[(0, OutRealloc)]),
    ro("getnameinfo"),
    ro("getopt"),
    ro("getopt_long"),
    ro("getopt_long_only"),
    ro("getpagesize"),
    ro("getpeername"),
    ro("getpgid"),
    ro("getpgrp"),
    ro("getpid"),
    ro("getppid"),
    ro("getpwent"),
    ro("getpwnam"),
    ro("getpwuid"),
    ro("getrandom"),
    ro("getrlimit"),
    ro("getrusage"),
    ro("getservbyname"),
    ro("getservent"),
    ro("getsid"),
    ro("getsockname"),
    ro("getsockopt"),
    ro("gettimeofday"),
    ro("getuid"),
    ro("glob"),
    ro("globfree"),
    ro("gmtime"),
    // returns its buffer argument
    f("gmtime_r", ArgAlias(1), &[]),
    ro("grantpt"),
    ro("htonl"),
    ro("htons"),
    ro("iconv"),
    ro("iconv_close"),
    ro("iconv_open"),
    // returns its buffer argument
    f("if_indextoname", ArgAlias(1), &[]),
    ro("imaxdiv"),
    alias0("index"),
    ro("inet_addr"),
    ro("inet_ntoa"),
    // returns its buffer argument
    f("inet_ntop", ArgAlias(2), &[]),
    ro("inet_pton"),
    ro("initgroups"),
    // links the element into the caller's list
    f("insque", Plain, &[(0, Keeps)]),
    ro("ioctl"),
    ro("isalnum"),
    ro("isalpha"),
    ro("isascii"),
    ro("isatty"),
    ro("isblank"),
    ro("iscntrl"),
    ro("isdigit"),
    ro("isgraph"),
    ro("islower"),
    ro("isprint"),
    ro("ispunct"),
    ro("isspace"),
    ro("isupper"),
    ro("iswalnum"),
    ro("iswalpha"),
    ro("iswctype"),
    ro("iswdigit"),
    ro("iswlower"),
    ro("iswprint"),
    ro("iswspace"),
    ro("iswupper"),
    ro("isxdigit"),
    ro("kill"),
    ro("killpg"),
    ro("labs"),
    ro("lchown"),
    ro("link"),
    ro("listen"),
    ro("llabs"),
    ro("localeconv"),
    ro("localtime"),
    // returns its buffer argument
    f("localtime_r", ArgAlias(1), &[]),
    ro("log"),
    ro("log10"),
    nr("longjmp"),
    ro("lseek"),
    ro("lseek64"),
    ro("lstat"),
    ro("lstat64"),
    ro("madvise"),
    f("malloc", Fresh(NonNull), &[]),
    ro("mblen"),
    ro("mbrlen"),
    ro("mbrtowc"),
    ro("mbsinit"),
    ro("mbsnrtowcs"),
    ro("mbsrtowcs"),
    ro("mbstowcs"),
    ro("mbtowc"),
    f("memalign", Fresh(NonNull), &[]),
    alias0("memccpy"),
    alias0("memchr"),
    ro("memcmp"),
    alias0("memcpy"),
    alias0("memmem"),
    alias0("memmove"),
    alias0("mempcpy"),
    alias0("memrchr"),
    alias0("memset"),
    ro("mkdir"),
    ro("mkdirat"),
    alias0("mkdtemp"),
    ro("mkostemp"),
    ro("mkstemp"),
    ro("mktime"),
    ro("mmap"),
    ro("mprotect"),
    ro("msync"),
    ro("munmap"),
    ro("nanosleep"),
    ro("nl_langinfo"),
    ro("ntohl"),
    ro("ntohs"),
    // the argument is passed to the handler at exit
    f("on_exit", Plain, &[(1, Keeps)]),
    ro("open"),
    ro("open64"),
    ro("openat"),
    ro("opendir"),
    // glibc keeps the ident pointer, it does not copy it
    f("openlog", Plain, &[(0, Keeps)]),
    // C++ `delete p`, `delete[] p`, `new`, `new[]` (never NULL: they throw) and their
    // `std::nothrow` forms (NULL on failure), as `frontend/cpp.rs` lowers the expressions.
    f("operator delete", Plain, &[(0, Frees)]),
    f("operator delete[]", Plain, &[(0, Frees)]),
    f("operator new", Fresh(NonNull), &[]),
    f("operator new(std::nothrow)", Fresh(NonNull), &[]),
    f("operator new[]", Fresh(NonNull), &[]),
    f("operator new[](std::nothrow)", Fresh(NonNull), &[]),
    ro("pathconf"),
    ro("pause"),
    ro("pclose"),
    ro("perror"),
    ro("pipe"),
    ro("pipe2"),
    ro("poll"),
    ro("popen"),
    f("posix_memalign", Plain, &[(0, OutFresh(RetZero))]),
    ro("posix_openpt"),
    ro("pow"),
    ro("ppoll"),
    ro("prctl"),
    ro("pread"),
    ro("pread64"),
    ro("printf"),
    ro("pselect"),
    ro("pthread_attr_destroy"),
    ro("pthread_attr_init"),
    ro("pthread_attr_setdetachstate"),
    ro("pthread_attr_setstacksize"),
    ro("pthread_cancel"),
    ro("pthread_cond_broadcast"),
    ro("pthread_cond_destroy"),
    ro("pthread_cond_init"),
    ro("pthread_cond_signal"),
    ro("pthread_cond_timedwait"),
    ro("pthread_cond_wait"),
    // the new thread owns its argument
    f("pthread_create", Plain, &[(3, Keeps)]),
    ro("pthread_detach"),
    ro("pthread_equal"),
    nr("pthread_exit"),
    ro("pthread_getspecific"),
    ro("pthread_join"),
    ro("pthread_key_create"),
    ro("pthread_key_delete"),
    ro("pthread_kill"),
    ro("pthread_mutex_destroy"),
    ro("pthread_mutex_init"),
    ro("pthread_mutex_lock"),
    ro("pthread_mutex_trylock"),
    ro("pthread_mutex_unlock"),
    ro("pthread_once"),
    ro("pthread_rwlock_destroy"),
    ro("pthread_rwlock_init"),
    ro("pthread_rwlock_rdlock"),
    ro("pthread_rwlock_unlock"),
    ro("pthread_rwlock_wrlock"),
    ro("pthread_self"),
    f("pthread_setspecific", Plain, &[(1, Keeps)]),
    ro("pthread_sigmask"),
    ro("ptsname"),
    ro("putc"),
    ro("putchar"),
    // the string becomes part of the environment
    f("putenv", Plain, &[(0, Keeps)]),
    ro("puts"),
    f("pvalloc", Fresh(NonNull), &[]),
    ro("pwrite"),
    ro("pwrite64"),
    ro("qsort"),
    ro("qsort_r"),
    nr("quick_exit"),
    ro("raise"),
    ro("rand"),
    ro("rand_r"),
    ro("random"),
    alias0("rawmemchr"),
    ro("read"),
    ro("readdir"),
    ro("readdir64"),
    ro("readlink"),
    ro("readv"),
    f("realloc", Fresh(NonNull), &[(0, FREES_ON_SUCCESS)]),
    f("reallocarray", Fresh(NonNull), &[(0, FREES_ON_SUCCESS)]),
    // BSD: frees the old block on failure too
    f("reallocf", Fresh(NonNull), &[(0, Frees)]),
    // returns the buffer (argument 1), or NULL; realpath(p, NULL) allocates (`null_buffer_allocates`)
    f("realpath", ArgAlias(1), &[]),
    f("recallocarray", Fresh(NonNull), &[(0, FREES_ON_SUCCESS)]),
    ro("recv"),
    ro("recvfrom"),
    ro("recvmsg"),
    ro("regcomp"),
    ro("regerror"),
    ro("regexec"),
    ro("regfree"),
    ro("remove"),
    ro("rename"),
    ro("renameat"),
    ro("rewind"),
    alias0("rindex"),
    ro("rmdir"),
    ro("round"),
    ro("scanf"),
    ro("secure_getenv"),
    ro("select"),
    ro("sem_destroy"),
    ro("sem_init"),
    ro("sem_post"),
    ro("sem_wait"),
    ro("send"),
    ro("sendmsg"),
    ro("sendto"),
    // the stream uses the buffer until fclose
    f("setbuf", Plain, &[(1, Keeps)]),
    // the stream uses the buffer until fclose
    f("setbuffer", Plain, &[(1, Keeps)]),
    ro("setegid"),
    ro("setenv"),
    ro("seteuid"),
    ro("setgid"),
    ro("setgrent"),
    ro("setgroups"),
    ro("setitimer"),
    ro("setjmp"),
    ro("setlinebuf"),
    ro("setlocale"),
    ro("setpgid"),
    ro("setpwent"),
    ro("setregid"),
    ro("setresgid"),
    ro("setresuid"),
    ro("setreuid"),
    ro("setrlimit"),
    ro("setservent"),
    ro("setsid"),
    ro("setsockopt"),
    ro("setuid"),
    // the stream uses the buffer until fclose
    f("setvbuf", Plain, &[(1, Keeps)]),
    ro("shutdown"),
    ro("sigaction"),
    ro("sigaddset"),
    ro("sigaltstack"),
    ro("sigdelset"),
    ro("sigemptyset"),
    ro("sigfillset"),
    ro("sigismember"),
    nr("siglongjmp"),
    ro("signal"),
    ro("sigprocmask"),
    ro("sigset"),
    ro("sigsetjmp"),
    ro("sin"),
    ro("sinh"),
    ro("sleep"),
    ro("snprintf"),
    ro("socket"),
    ro("socketpair"),
    ro("sprintf"),
    ro("sqrt"),
    ro("srand"),
    ro("srandom"),
    ro("sscanf"),
    ro("stat"),
    ro("stat64"),
    ro("statvfs"),
    alias0("stpcpy"),
    alias0("stpncpy"),
    ro("strcasecmp"),
    alias0("strcasestr"),
    alias0("strcat"),
    alias0("strchr"),
    alias0("strchrnul"),
    ro("strcmp"),
    ro("strcoll"),
    alias0("strcpy"),
    ro("strcspn"),
    f("strdup", Fresh(NonNull), &[]),
    // alloca-based (a glibc macro): not an allocator
    ro("strdupa"),
    ro("strerror"),
    ro("strerror_l"),
    // GNU form returns the buffer or a static string, XSI form an int: not aliased
    ro("strerror_r"),
    ro("strftime"),
    ro("strlcat"),
    ro("strlcpy"),
    ro("strlen"),
    ro("strncasecmp"),
    alias0("strncat"),
    ro("strncmp"),
    alias0("strncpy"),
    f("strndup", Fresh(NonNull), &[]),
    // alloca-based (a glibc macro): not an allocator
    ro("strndupa"),
    ro("strnlen"),
    alias0("strpbrk"),
    // where parsing stopped in argument 0
    alias0("strptime"),
    alias0("strrchr"),
    // returns the old *argument 0 (a char **): nothing aliases argument 0 itself
    ro("strsep"),
    ro("strsignal"),
    ro("strspn"),
    alias0("strstr"),
    ro("strtod"),
    ro("strtof"),
    ro("strtoimax"),
    // strtok(NULL, ..) continues in the earlier string: that token is not tracked
    alias0("strtok"),
    // as strtok
    alias0("strtok_r"),
    ro("strtol"),
    ro("strtold"),
    ro("strtoll"),
    ro("strtoul"),
    ro("strtoull"),
    ro("strtoumax"),
    ro("strverscmp"),
    ro("strxfrm"),
    ro("symlink"),
    ro("sync"),
    ro("sysconf"),
    ro("sysinfo"),
    ro("syslog"),
    ro("system"),
    ro("tan"),
    ro("tanh"),
    ro("tcflow"),
    ro("tcflush"),
    ro("tcgetattr"),
    ro("tcgetpgrp"),
    ro("tcsendbreak"),
    ro("tcsetattr"),
    ro("tcsetpgrp"),
    f("tempnam", Fresh(NonNull), &[]),
    ro("tgetent"),
    ro("tgetflag"),
    ro("tgetnum"),
    ro("tgetstr"),
    ro("tgoto"),
    // the new thread owns its argument
    f("thrd_create", Plain, &[(2, Keeps)]),
    nr("thrd_exit"),
    ro("time"),
    ro("timegm"),
    ro("timer_create"),
    ro("timer_delete"),
    ro("timer_gettime"),
    ro("timer_settime"),
    ro("tmpfile"),
    ro("tolower"),
    ro("toupper"),
    ro("towlower"),
    ro("towupper"),
    ro("truncate"),
    // the tree stores the key pointer
    f("tsearch", Plain, &[(0, Keeps)]),
    f("tss_set", Plain, &[(1, Keeps)]),
    ro("ttyname"),
    ro("tzset"),
    ro("umask"),
    ro("uname"),
    ro("ungetc"),
    ro("unlink"),
    ro("unlinkat"),
    ro("unlockpt"),
    ro("unsetenv"),
    ro("usleep"),
    ro("utime"),
    ro("utimensat"),
    ro("utimes"),
    f("valloc", Fresh(NonNull), &[]),
    f("vasprintf", Plain, &[(0, OutFresh(RetNonNegative))]),
    ro("vdprintf"),
    nr("verr"),
    nr("verrx"),
    ro("vfprintf"),
    ro("vfscanf"),
    ro("vprintf"),
    ro("vscanf"),
    ro("vsnprintf"),
    ro("vsprintf"),
    ro("vsscanf"),
    ro("vsyslog"),
    ro("vwarn"),
    ro("vwarnx"),
    ro("wait"),
    ro("waitpid"),
    ro("warn"),
    ro("warnx"),
    ro("wcrtomb"),
    alias0("wcscat"),
    alias0("wcschr"),
    ro("wcscmp"),
    ro("wcscoll"),
    alias0("wcscpy"),
    f("wcsdup", Fresh(NonNull), &[]),
    ro("wcslen"),
    alias0("wcsncat"),
    ro("wcsncmp"),
    alias0("wcsncpy"),
    alias0("wcsrchr"),
    ro("wcsrtombs"),
    alias0("wcsstr"),
    ro("wcstod"),
    ro("wcstol"),
    ro("wcstombs"),
    ro("wcstoul"),
    ro("wcswidth"),
    ro("wctob"),
    ro("wctomb"),
    ro("wctype"),
    ro("wcwidth"),
    ro("wmemcmp"),
    alias0("wmemcpy"),
    alias0("wmemmove"),
    alias0("wmemset"),
    ro("wprintf"),
    ro("write"),
    ro("writev"),
];

pub fn lookup(name: &str) -> Option<&'static LibFn> {
    TABLE.binary_search_by(|e| e.name.cmp(name)).ok().map(|i| &TABLE[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::CmpOp;

    #[test]
    fn table_is_sorted_and_unique() {
        for w in TABLE.windows(2) {
            assert!(w[0].name < w[1].name, "{} must come before {}", w[0].name, w[1].name);
        }
    }

    #[test]
    fn const_keepers_are_sorted_and_have_no_row() {
        assert!(KEEPS_CONST_ARGUMENT.windows(2).all(|w| w[0] < w[1]));
        assert!(KEEPS_CONST_ARGUMENT.iter().all(|n| lookup(n).is_none()), "a row already says what it keeps");
        assert!(keeps_const_argument("OPENSSL_sk_push") && !keeps_const_argument("strlen"));
    }

    #[test]
    fn lookups() {
        assert!(matches!(lookup("malloc").unwrap().ret, RetEffect::Fresh(Success::NonNull)));
        assert_eq!(lookup("free").unwrap().arg_effect(0), Some(ArgEffect::Frees));
        assert!(lookup("exit").unwrap().noreturn);
        assert_eq!(lookup("getline").unwrap().arg_effect(0), Some(ArgEffect::OutRealloc));
        assert!(lookup("no_such_function").is_none());
        assert!(matches!(lookup("operator new[]").unwrap().ret, RetEffect::Fresh(Success::NonNull)));
        assert_eq!(lookup("operator delete[]").unwrap().arg_effect(0), Some(ArgEffect::Frees));
        assert!(never_null("operator new") && !never_null("operator new(std::nothrow)") && !never_null("malloc"));
    }

    fn len() -> usize {
        TABLE.len()
    }

    #[test]
    fn table_covers_at_least_200_functions() {
        assert!(len() >= 200, "only {} rows", len());
    }

    /// Never-returning functions and non-allocators are the rows a mistake hurts most.
    #[test]
    fn spot_checks() {
        let l = |n: &str| lookup(n).unwrap_or_else(|| panic!("{n} is not modelled"));
        // Pointers into argument 0.
        let into_arg0 =
            ["strchr", "strrchr", "strstr", "memchr", "strtok", "stpcpy", "__memcpy_chk", "__builtin_strchr"];
        for n in into_arg0 {
            assert_eq!(l(n).ret, ArgAlias(0), "{n}");
            assert!(l(n).args.is_empty(), "{n}");
        }
        assert_eq!(l("realpath").ret, ArgAlias(1));
        // The copy functions return their destination itself; the others may not.
        for n in ["strcpy", "__strcpy_chk", "__builtin___memcpy_chk", "memset", "strncat"] {
            assert!(returns_argument_itself(n) && l(n).ret == ArgAlias(0), "{n}");
        }
        for n in ["fgets", "__fgets_chk", "strchr", "stpcpy", "realpath", "strtok"] {
            assert!(!returns_argument_itself(n), "{n}");
        }
        // The thread owns its argument; the stream its buffer.
        assert_eq!(l("pthread_create").arg_effect(3), Some(Keeps));
        assert_eq!(l("pthread_create").arg_effect(0), None);
        assert_eq!(l("setbuf").arg_effect(1), Some(Keeps));
        // Stack memory is not an allocation.
        for n in ["alloca", "__builtin_alloca", "strdupa", "strndupa"] {
            assert!(lookup(n).is_none_or(|f| f.ret == Plain && f.args.is_empty()), "{n}");
        }
        // Allocators, including the fortify and old-glibc spellings.
        let allocators = ["strndup", "__strdup", "get_current_dir_name", "canonicalize_file_name", "backtrace_symbols"];
        for n in allocators {
            assert_eq!(l(n).ret, Fresh(NonNull), "{n}");
        }
        assert_eq!(l("__asprintf_chk").arg_effect(0), Some(OutFresh(RetNonNegative)));
        assert_eq!(l("reallocf").arg_effect(0), Some(Frees));
        // exec* return on failure; error() returns when its status is 0; kill returns.
        for n in ["execv", "execvp", "execve", "error", "kill"] {
            assert!(lookup(n).is_none_or(|f| !f.noreturn), "{n}");
        }
        let never_return = ["exit", "_exit", "abort", "__assert_fail", "longjmp", "siglongjmp", "pthread_exit"];
        for n in never_return.iter().chain(&["__stack_chk_fail", "__chk_fail", "__fortify_fail", "errx"]) {
            assert!(l(n).noreturn, "{n}");
        }
        // Only free-family rows (and C++'s `delete`) free, and noreturn rows have no other effect.
        for e in TABLE {
            for (_, a) in e.args {
                if matches!(a, Frees | FreesWhen { .. } | FreesIfArg { .. }) {
                    let freer = ["free", "realloc", "recalloc", "operator delete"].iter().any(|w| e.name.contains(w));
                    assert!(freer, "{} frees", e.name);
                }
            }
            if e.noreturn {
                assert!(e.ret == Plain && e.args.is_empty(), "{}", e.name);
            }
        }
    }

    #[test]
    fn families_of_rows() {
        let fam = |n: &str| family(lookup(n).unwrap());
        for n in ["malloc", "calloc", "realloc", "strdup", "free", "getline", "asprintf", "realpath", "reallocf"] {
            assert_eq!(fam(n), Some(Family::Malloc), "{n}");
        }
        assert_eq!(fam("operator new"), Some(Family::New));
        assert_eq!(fam("operator new(std::nothrow)"), Some(Family::New));
        assert_eq!(fam("operator delete"), Some(Family::New));
        assert_eq!(fam("operator new[](std::nothrow)"), Some(Family::NewArray));
        assert_eq!(fam("operator delete[]"), Some(Family::NewArray));
        for n in ["strlen", "fopen", "fclose", "strcpy", "putenv"] {
            assert_eq!(fam(n), None, "{n}");
        }
        // A row made elsewhere (a `.drip.toml` declaration) with a table row's name has no family.
        let declared = LibFn { name: "malloc", ret: Fresh(NonNull), args: &[], noreturn: false };
        assert_eq!(family(&declared), None);
        assert_eq!(Family::meet([Some(Family::New), Some(Family::New)].into_iter()), Some(Family::New));
        assert_eq!(Family::meet([Some(Family::New), None].into_iter()), None);
        assert_eq!(Family::meet([Some(Family::New), Some(Family::Malloc)].into_iter()), None);
        assert_eq!(Family::meet(std::iter::empty()), None);
    }

    #[test]
    fn constant_ranges_decide_tests() {
        use crate::ir::CmpOp::*;
        // Returns 0 on one side, -1 or -2 on the other.
        let s = Success::Range { ok: (0, 0), fail: (-2, -1) };
        for (op, k) in [(Lt, 0), (Ne, 0), (Eq, 0), (Le, -1), (Ge, 0)] {
            let (a, b) = (s.eval_cmp_on_success(op, k), s.eval_cmp_on_failure(op, k));
            assert!(a.is_some() && b.is_some() && a != b, "{op:?} {k}");
        }
        // `r == -1` is not decided on the failure side (-2 is a failure too).
        assert_eq!(s.eval_cmp_on_failure(Eq, -1), None);
        assert_eq!(s.eval_cmp_on_success(Eq, -1), Some(false));
    }

    #[test]
    fn success_ranges_decide_tests() {
        assert_eq!(RetNonNegative.eval_cmp_on_success(CmpOp::Lt, 0), Some(false));
        assert_eq!(RetNonNegative.eval_cmp_on_failure(CmpOp::Lt, 0), Some(true));
        assert_eq!(RetNonNegative.eval_cmp_on_success(CmpOp::Eq, -1), Some(false));
        assert_eq!(RetNonNegative.eval_cmp_on_success(CmpOp::Gt, 0), None);
        assert_eq!(RetZero.eval_cmp_on_success(CmpOp::Ne, 0), Some(false));
        assert_eq!(RetZero.eval_cmp_on_failure(CmpOp::Ne, 0), Some(true));
        assert_eq!(NonNull.eval_cmp_on_success(CmpOp::Eq, 0), Some(false));
    }
}
