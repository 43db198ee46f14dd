//! The library model: what C library and POSIX functions do to the pointers they are given.
//!
//! Input: a callee name. Output: a `&'static LibFn` describing allocation, deallocation,
//! reallocation, retention and aliasing of its arguments and result, or `None` when the function is
//! not modelled.
//! Invariants: this is data, not code paths — adding a function is adding a row. Arguments not
//! listed in a row are only read (no escape, no free). A callee that is neither modelled nor
//! analysed gets the conservative default documented on `UNKNOWN_CALLEE_DEFAULT`.

/// When an allocator succeeded, seen from its return value. Used to fold NULL/error tests of
/// the tracked allocation (FastCheck 5.6.1) and to correlate tests of other allocations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

impl Success {
    /// A representative value of the return on failure, `None` when failure is not observable.
    pub fn failure_value(self) -> Option<i64> {
        match self {
            Success::NonNull => Some(0),
            Success::RetNonNegative => Some(-1),
            Success::RetZero => Some(12),
            Success::Always => None,
        }
    }
    /// Evaluate `ret OP k` for every successful return value: `Some(b)` when the answer is the
    /// same for all of them.
    pub fn eval_cmp_on_success(self, op: crate::ir::CmpOp, k: i64) -> Option<bool> {
        use crate::ir::CmpOp::*;
        // Success ranges: NonNull = {≠0}, RetNonNegative = [0, ∞), RetZero = {0}.
        match self {
            Success::Always => None,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgEffect {
    /// `free(p)`.
    Frees,
    /// `realloc(p, n)`: frees `p` when the call succeeds, leaves it alone when it fails.
    FreesOnSuccess,
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
    pub fn arg_effect(&self, i: usize) -> Option<ArgEffect> {
        self.args.iter().find(|a| a.0 == i).map(|a| a.1)
    }
}

/// Calls to functions neither modelled here nor analysed: every pointer argument escapes (the
/// callee may store or free it), the result is an untracked value, and the call returns.
pub const UNKNOWN_CALLEE_DEFAULT: &str =
    "pointer arguments escape; the result is not tracked; the call returns";

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

/// Sorted by name (checked by a test) for binary search.
static TABLE: &[LibFn] = &[
    nr("_Exit"),
    nr("__assert_fail"),
    nr("__assert_perror_fail"),
    nr("__assert_rtn"),
    alias0("__builtin_memcpy"),
    alias0("__builtin_memset"),
    nr("__builtin_trap"),
    nr("__builtin_unreachable"),
    nr("__longjmp_chk"),
    nr("__stack_chk_fail"),
    nr("_exit"),
    nr("_longjmp"),
    nr("abort"),
    ro("abs"),
    ro("access"),
    f("aligned_alloc", Fresh(NonNull), &[]),
    f("asprintf", Plain, &[(0, OutFresh(RetNonNegative))]),
    ro("atof"),
    ro("atoi"),
    ro("atol"),
    ro("atoll"),
    ro("bsearch"),
    f("calloc", Fresh(NonNull), &[]),
    ro("close"),
    ro("ctime"),
    nr("err"),
    nr("errx"),
    nr("exit"),
    ro("fclose"),
    ro("fcntl"),
    ro("feof"),
    ro("ferror"),
    ro("fflush"),
    ro("fgetc"),
    f("fgets", ArgAlias(0), &[]),
    ro("fileno"),
    ro("fopen"),
    ro("fprintf"),
    ro("fputc"),
    ro("fputs"),
    ro("fread"),
    f("free", Plain, &[(0, Frees)]),
    ro("fscanf"),
    ro("fseek"),
    ro("fstat"),
    ro("ftell"),
    ro("fwrite"),
    f("getdelim", Plain, &[(0, OutRealloc)]),
    ro("getenv"),
    f("getline", Plain, &[(0, OutRealloc)]),
    ro("isalnum"),
    ro("isalpha"),
    ro("isdigit"),
    ro("isspace"),
    ro("isupper"),
    ro("labs"),
    nr("longjmp"),
    ro("lseek"),
    f("malloc", Fresh(NonNull), &[]),
    ro("memchr"),
    ro("memcmp"),
    alias0("memcpy"),
    alias0("memmove"),
    alias0("memset"),
    ro("open"),
    ro("perror"),
    f("posix_memalign", Plain, &[(0, OutFresh(RetZero))]),
    ro("printf"),
    nr("pthread_exit"),
    ro("putchar"),
    f("putenv", Plain, &[(0, Keeps)]),
    ro("puts"),
    ro("qsort"),
    nr("quick_exit"),
    ro("read"),
    f("realloc", Fresh(NonNull), &[(0, FreesOnSuccess)]),
    f("reallocarray", Fresh(NonNull), &[(0, FreesOnSuccess)]),
    ro("remove"),
    ro("rename"),
    ro("setbuf"),
    f("setvbuf", Plain, &[(1, Keeps)]),
    nr("siglongjmp"),
    ro("snprintf"),
    ro("sprintf"),
    ro("sscanf"),
    ro("stat"),
    f("stpcpy", Plain, &[]),
    ro("strcasecmp"),
    alias0("strcat"),
    ro("strchr"),
    ro("strcmp"),
    alias0("strcpy"),
    ro("strcspn"),
    f("strdup", Fresh(NonNull), &[]),
    ro("strerror"),
    ro("strlen"),
    ro("strncasecmp"),
    alias0("strncat"),
    ro("strncmp"),
    alias0("strncpy"),
    f("strndup", Fresh(NonNull), &[]),
    ro("strnlen"),
    ro("strrchr"),
    ro("strspn"),
    ro("strstr"),
    ro("strtod"),
    ro("strtok"),
    ro("strtol"),
    ro("strtoll"),
    ro("strtoul"),
    ro("strtoull"),
    ro("time"),
    ro("tolower"),
    ro("toupper"),
    ro("unlink"),
    f("vasprintf", Plain, &[(0, OutFresh(RetNonNegative))]),
    nr("verr"),
    nr("verrx"),
    ro("vfprintf"),
    ro("vprintf"),
    ro("vsnprintf"),
    ro("vsprintf"),
    f("wcsdup", Fresh(NonNull), &[]),
    ro("write"),
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
    fn lookups() {
        assert!(matches!(lookup("malloc").unwrap().ret, RetEffect::Fresh(Success::NonNull)));
        assert_eq!(lookup("free").unwrap().arg_effect(0), Some(ArgEffect::Frees));
        assert!(lookup("exit").unwrap().noreturn);
        assert_eq!(lookup("getline").unwrap().arg_effect(0), Some(ArgEffect::OutRealloc));
        assert!(lookup("no_such_function").is_none());
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
