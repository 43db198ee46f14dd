//! Which variadic arguments a function only reads: the `...` of a `printf`-like wrapper
//! (`log_debug (fmt, ...)`, openssh's `fmprintf`, git's `die`) hands its `va_list` to the C
//! library's `v*printf`, which reads what it is given. Without this a block passed to a log
//! call escapes there, and a leak after it goes unreported.
//!
//! Input: a function's IR and its calls' models. Output: `VaReads`, which the summary keeps
//! (`Summary::va_reads`, `Summary::varargs_read`) and callers' models use: the variadic extras
//! of a call are only read when `varargs_read` (otherwise they escape, `Model::escape_from`).
//! Invariants, each on the side of saying "escapes":
//! - a function that takes an argument out with `va_arg` reads nothing this way (it may keep
//!   the pointer it takes; the front end notes `va_arg` as an unsupported expression, which is
//!   how it is seen here);
//! - the `va_list` started with `va_start`, or copied with `va_copy` into a local (and their
//!   addresses) may only be given to library
//!   calls that only read that argument (`vfprintf`, `vsnprintf`, `va_end`, ...) or to
//!   arguments of summarised callees that only read them this way (`va_reads`); any other use,
//!   a copy into another variable or memory included, is an escape;
//! - `va_reads` holds a parameter (below 64) only when every statement naming it passes it, as
//!   it is, to such an argument; its callers consult it only for a `va_list` they pass on.

use crate::ir::{Function, LocalId, Operand, Place, Rvalue, Stmt, StmtId};
use crate::model::Model;

/// What a function's variadic arguments and `va_list` parameters come to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VaReads {
    /// Parameters (a bit each, below 64) only handed on to readers.
    pub params: u64,
    /// The variadic extras are only read.
    pub extras: bool,
}

/// The `VaReads` of `func`.
pub fn va_reads<'m>(func: &Function, model_of: impl Fn(StmtId) -> Option<&'m Model<'m>>) -> VaReads {
    if func.lowering_notes.iter().any(|n| n.contains("va_arg")) {
        return VaReads::default();
    }
    // Temporaries holding the address of a local (`tmp = &ap`), by temporary.
    let mut addr_of: Vec<Option<LocalId>> = vec![None; func.locals.len()];
    // Temporaries holding the address of anything else (`&g`, `&s->ap`).
    let mut addr_elsewhere: Vec<bool> = vec![false; func.locals.len()];
    for s in &func.stmts {
        match s {
            Stmt::Assign { dst: Place::Local(t), src: Rvalue::AddrOf(Place::Local(v)) } => {
                addr_of[t.index()] = Some(*v)
            }
            Stmt::Assign { dst: Place::Local(t), src: Rvalue::AddrOf(_) } => addr_elsewhere[t.index()] = true,
            _ => {}
        }
    }
    // Whether argument `j` of call `si` is only read by its callee, as a `va_list` is by
    // `vfprintf`.
    let reader = |si: usize, j: usize| {
        model_of(StmtId::from_usize(si)).is_some_and(|m| {
            if m.lib {
                m.arg_effect(j).is_none()
            } else {
                m.known && j < 64 && m.va_reads & (1 << j) != 0
            }
        })
    };
    // Whether every statement naming local `x` (or, with `via_addr`, a temporary holding its
    // address) passes it as it is to a reader.
    let only_read = |x: LocalId, via_addr: bool| {
        func.stmts.iter().enumerate().all(|(si, s)| match s {
            Stmt::Assign { dst: Place::Local(t), src: Rvalue::AddrOf(Place::Local(v)) } if *v == x && via_addr => {
                addr_of[t.index()] == Some(x)
            }
            Stmt::Call { dst, args, .. } => {
                !dst.as_ref().is_some_and(|d| names(d, x, &addr_of, via_addr))
                    && args.iter().enumerate().all(|(j, a)| match a {
                        Operand::Place(Place::Local(l)) if *l == x || (via_addr && addr_of[l.index()] == Some(x)) => {
                            reader(si, j)
                        }
                        Operand::Place(p) => !names(p, x, &addr_of, via_addr),
                        _ => true,
                    })
            }
            Stmt::Assign { dst, src } => {
                !names(dst, x, &addr_of, via_addr)
                    && match src {
                        Rvalue::Use(Operand::Place(p)) | Rvalue::AddrOf(p) => !names(p, x, &addr_of, via_addr),
                        Rvalue::Opaque(ops) => ops.iter().all(|o| match o {
                            Operand::Place(p) => !names(p, x, &addr_of, via_addr),
                            _ => true,
                        }),
                        Rvalue::Use(_) => true,
                    }
            }
        })
    };
    let mut params = 0u64;
    for (i, p) in func.params().enumerate().take(64) {
        if only_read(p, false) {
            params |= 1 << i;
        }
    }
    // The lists `va_start` begins, and the copies `va_copy` makes of them (measuring with
    // `vsnprintf (NULL, 0, fmt, aq)` before formatting): the local whose address is their first
    // argument. A copy into anything but a local of the function (a global list another
    // function takes arguments from later) reads nothing this way.
    let mut started: Vec<LocalId> = Vec::new();
    let mut copied_away = false;
    for (si, s) in func.stmts.iter().enumerate() {
        if let Stmt::Call { args, .. } = s {
            let Some(m) = model_of(StmtId::from_usize(si)).filter(|m| m.lib) else { continue };
            if m.name != "__builtin_va_start" && m.name != "__builtin_va_copy" {
                continue;
            }
            match args.first() {
                Some(Operand::Place(Place::Local(t))) if !addr_elsewhere[t.index()] => {
                    started.extend(addr_of[t.index()].or(Some(*t)))
                }
                _ => copied_away = true,
            }
        }
    }
    let extras = !copied_away && !started.is_empty() && started.iter().all(|&v| only_read(v, true));
    VaReads { params, extras }
}

/// Whether place `p` names local `x`, or (with `via_addr`) a temporary holding its address.
fn names(p: &Place, x: LocalId, addr_of: &[Option<LocalId>], via_addr: bool) -> bool {
    p.root_local().is_some_and(|l| l == x || (via_addr && addr_of[l.index()] == Some(x)))
}
