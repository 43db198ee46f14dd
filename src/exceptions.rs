//! `--exceptions`: the exceptional edges of the C++ calls that may throw.
//!
//! Input: the merged `Program`, whose C++ functions list their calls that may throw
//! (`Function::unwinds`: the lowering's `cpp::may_throw`, with the destructors an exception from
//! each runs and the `try` handlers it reaches). Output: the same program where each such call
//! is preceded by a branch (an opaque condition) to a block of its own that runs those
//! destructors, then goes to the handlers or leaves the function (`Function::throws`). Only
//! run with `--exceptions`; without it the IR is exactly what the lowering made.
//! Invariants:
//! - The edge leaves *before* the call: an exception from it means the call did nothing the
//!   analysis follows (no allocation returned, no argument freed), so what is lost there is what
//!   the frame held before it.
//! - Existing `BlockId`s, `StmtId`s and `LocalId`s keep their meaning: blocks, statements and
//!   temporaries are appended; a split block keeps the statements before the call, and the block
//!   after it takes over its terminator (with the side tables keyed by that terminator).
//! - C functions have no unwinds, so C is never changed.

use crate::ir::*;
use hashbrown::HashMap;

/// Add the exceptional edges of every function; returns how many calls got one.
pub fn add_edges(program: &mut Program) -> usize {
    program.functions.iter_mut().map(add_to_function).sum()
}

fn add_to_function(f: &mut Function) -> usize {
    if f.unwinds.is_empty() {
        return 0;
    }
    let mut home: HashMap<StmtId, (BlockId, usize)> = HashMap::new();
    for b in f.block_ids() {
        for (i, s) in f.block(b).stmts.iter().enumerate() {
            home.insert(*s, (b, i));
        }
    }
    // Within a block, the last call first: splitting there leaves the earlier ones in place.
    let mut todo: Vec<(BlockId, usize, Unwind)> =
        f.unwinds.iter().filter_map(|u| home.get(&u.call).map(|&(b, i)| (b, i, u.clone()))).collect();
    todo.sort_by_key(|t| (t.0, std::cmp::Reverse(t.1)));
    let mut n = 0;
    for (b, i, u) in todo {
        split_at(f, b, i, &u);
        n += 1;
    }
    f.throws.sort();
    f.throws.dedup();
    f.tested_elems.sort();
    f.case_labels.sort();
    n
}

/// Branch from block `b`, before its statement `i` (the call `u`), to a new unwinding block.
fn split_at(f: &mut Function, b: BlockId, i: usize, u: &Unwind) {
    let loc = f.stmt_loc(u.call);
    let after = BlockId::from_usize(f.blocks.len());
    let unwind = BlockId::from_usize(f.blocks.len() + 1);
    let block = &mut f.blocks[b.index()];
    let tail = block.stmts.split_off(i);
    let cond = Cond { kind: CondKind::Opaque, text: "(the call throws)".into(), text_on_else: false };
    let term = std::mem::replace(&mut block.term, Terminator::Branch { cond, then_: unwind, else_: after });
    let term_loc = std::mem::replace(&mut block.term_loc, loc);
    f.blocks.push(Block { stmts: tail, term, term_loc });
    for e in f.tested_elems.iter_mut().filter(|e| e.0 == b) {
        e.0 = after;
    }
    for c in f.case_labels.iter_mut().filter(|c| c.0 == b) {
        c.0 = after;
    }
    let mut stmts = Vec::with_capacity(2 * u.cleanups.len());
    for (k, (object, name, usr)) in u.cleanups.iter().enumerate() {
        let t = LocalId::from_usize(f.locals.len());
        f.locals.push(LocalDecl {
            name: format!("unwind.{}.{k}", u.call.index()),
            kind: LocalKind::Temp,
            is_pointer: true,
            is_aggregate: false,
            may_run_code: false,
            is_static: false,
            pointee_pointer: None,
            loc,
        });
        let mut push = |s: Stmt| {
            stmts.push(StmtId::from_usize(f.stmts.len()));
            f.stmts.push(s);
            f.stmt_locs.push(loc);
        };
        push(Stmt::Assign { dst: Place::Local(t), src: Rvalue::AddrOf(Place::Local(*object)) });
        let callee = Callee::Direct { name: name.clone(), usr: usr.clone(), const_args: 0 };
        push(Stmt::Call { dst: None, callee, args: vec![Operand::Place(Place::Local(t))] });
    }
    let term = match u.handler {
        Some(h) => Terminator::Goto(h),
        None => {
            f.throws.push(unwind);
            Terminator::NoReturn
        }
    };
    f.blocks.push(Block { stmts, term, term_loc: loc });
}
