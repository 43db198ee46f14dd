//! Reachability between the cells one function allocates: the held-by resolution.
//!
//! Input: for each allocation site of one function, after its value-flow pass (`fastcheck`),
//! the guard under which something other than another object keeps or frees its cell (`direct`:
//! frees, returns, hand-offs to the caller, escapes, exits) and the places where the cell was
//! left inside an object this function stops naming (`fastcheck::Holder`, with guards).
//! Output: per site, a `Held`: the guard under which those objects are themselves kept, the
//! guard under which the cell is reachable from another lost cell outside its own cycle (then
//! the report belongs to that cell), and the other members of its cycle.
//! Invariants:
//! - A holder counts only when it is surely one allocation of this function: a local whose
//!   every reaching definition comes, through copies, from the one call (`FnCx::alloc_origin`),
//!   or a slot every store of which stores such a local. Anything else stays what it was
//!   before this stage: an escape into the heap, which keeps the cell (no report).
//! - "Kept" is a least fixpoint: `fine(s) = direct(s) ∨ ⋁ held(s, T) ∧ (¬ok(T) ∨ fine(T))`,
//!   so a cycle of cells with no way in from outside is not kept (Scholz et al.'s
//!   reachability check, Figure 2), where a referencing check would see every cell referenced.
//!   A freed holder counts as kept: the cell may have been freed through a name this pass
//!   does not follow, and drip prefers a missed leak to a false one.
//! - Guards of different sites live in one arena and share atoms; each site's own success atom
//!   is folded to `true` in its guards, so another site's fate enters as `¬ok(T) ∨ fine(T)`
//!   and the querying site assumes its own `ok` (`Held::assume`).
//! - A budget hit turns every resolved holder back into an escape (no new report), never into
//!   a leak.

use crate::cfg::{DagNode, FnCx, Key};
use crate::fastcheck::Holder;
use crate::guard::{AtomId, GuardId, Guards};
use crate::ir::{Operand, Place, Rvalue, Stmt, StmtId};

/// One site, as the resolution sees it.
pub struct SiteFacts {
    pub stmt: StmtId,
    /// The site is the call's result (the cell other locals can hold).
    pub is_result: bool,
    /// The call's success atom, folded to `true` in this site's guards.
    pub ok: Option<AtomId>,
    pub direct: GuardId,
    pub inside: Vec<(Holder, GuardId)>,
}

/// What the resolution says about one site.
#[derive(Clone, Debug)]
pub struct Held {
    /// The guard under which the objects the cell was left inside keep it (escapes into
    /// objects that are not this function's own allocations count as keeping it).
    pub inside_fine: GuardId,
    /// The guard under which some cell of this site's cycle is inside a lost cell outside the
    /// cycle: the leak is reported there instead.
    pub held_out: GuardId,
    /// Other sites on a cycle with this one.
    pub cycle_with: Vec<StmtId>,
    /// The site's own success atom, to assume in its queries when other sites' guards appear.
    pub assume: Option<AtomId>,
}

impl Held {
    /// For a site with no `Inside` event.
    pub fn none() -> Held {
        Held::unresolved(GuardId::FALSE)
    }

    fn unresolved(inside_fine: GuardId) -> Held {
        Held { inside_fine, held_out: GuardId::FALSE, cycle_with: Vec::new(), assume: None }
    }
}

/// Resolve every site's holders (one entry per site; `None` for sites decided without a flow).
pub fn resolve(cx: &FnCx, guards: &mut Guards, sites: &[Option<SiteFacts>]) -> Vec<Held> {
    let n = sites.len();
    // The Result site of each allocating statement.
    let site_of = |stmt: StmtId| sites.iter().position(|s| s.as_ref().is_some_and(|s| s.is_result && s.stmt == stmt));
    // Edges s -> T with their guards; holders that name nothing of this function escape.
    let mut edges: Vec<Vec<(usize, GuardId)>> = vec![Vec::new(); n];
    let mut escaped: Vec<GuardId> = vec![GuardId::FALSE; n];
    let mut any_edge = false;
    for (s, facts) in sites.iter().enumerate() {
        let Some(facts) = facts else { continue };
        for (h, g) in &facts.inside {
            let origin = match *h {
                Holder::Local(l, node, idx) => cx.alloc_origin(l, node, idx as usize).map(|o| o.0),
                Holder::Slot(k) => slot_origin(cx, k),
            };
            match origin.and_then(site_of) {
                // Held by another cell of the same site (a previous iteration's): the loop bound
                // cannot tell instances apart, so it keeps nothing.
                Some(t) if t == s => {}
                Some(t) => {
                    edges[s].push((t, *g));
                    any_edge = true;
                }
                // The object a field of a local struct points to, when that pointer is never
                // copied out of the field (`s.data[i]` with `s.data` only indexed and tested):
                // unreachable once the struct dies, with the cell inside it.
                None if matches!(*h, Holder::Slot(k) if cx.dies_with_frame(k) && !slot_copied(cx, k)) => {}
                None => escaped[s] = guards.or(escaped[s], *g),
            }
        }
    }
    let plain = |escaped: &[GuardId]| escaped.iter().map(|g| Held::unresolved(*g)).collect();
    if !any_edge {
        return plain(&escaped);
    }
    let ok_of = |t: usize, guards: &mut Guards| -> GuardId {
        match sites[t].as_ref().and_then(|f| f.ok) {
            Some(a) => guards.lit(a, true),
            None => GuardId::TRUE,
        }
    };
    // The least fixpoint, by rounds: a chain of holders is at most n long.
    let mut fine: Vec<GuardId> = sites.iter().map(|f| f.as_ref().map_or(GuardId::TRUE, |f| f.direct)).collect();
    for (s, e) in escaped.iter().enumerate() {
        fine[s] = guards.or(fine[s], *e);
    }
    let base = fine.clone();
    for _ in 0..n {
        let mut changed = false;
        let mut next = base.clone();
        for s in 0..n {
            for &(t, g) in &edges[s] {
                let ok = ok_of(t, guards);
                let not_ok = guards.not(ok);
                let kept = guards.or(not_ok, fine[t]);
                let via = guards.and(g, kept);
                next[s] = guards.or(next[s], via);
            }
            changed |= next[s] != fine[s];
        }
        fine = next;
        if guards.over_budget() {
            guards.reset_budget();
            // Back to what the value flow alone says: every holder keeps its cell.
            let all: Vec<GuardId> = sites
                .iter()
                .map(|f| f.as_ref().map_or(GuardId::FALSE, |f| or_all(guards, f.inside.iter().map(|i| i.1))))
                .collect();
            return plain(&all);
        }
        if !changed {
            break;
        }
    }
    let comp = components(&edges);
    let mut out = Vec::with_capacity(n);
    for s in 0..n {
        let mut inside_fine = escaped[s];
        for &(t, g) in &edges[s] {
            let ok = ok_of(t, guards);
            let not_ok = guards.not(ok);
            let kept = guards.or(not_ok, fine[t]);
            let via = guards.and(g, kept);
            inside_fine = guards.or(inside_fine, via);
        }
        // Some member of s's cycle (s itself included) inside a lost cell outside the cycle.
        let mut held_out = GuardId::FALSE;
        for u in (0..n).filter(|u| comp[*u] == comp[s]) {
            for &(t, g) in edges[u].iter().filter(|(t, _)| comp[*t] != comp[s]) {
                let ok_u = ok_of(u, guards);
                let ok_t = ok_of(t, guards);
                let lost_t = guards.not(fine[t]);
                let h = guards.and_all([ok_u, g, ok_t, lost_t]);
                held_out = guards.or(held_out, h);
            }
        }
        let mut cycle_with: Vec<StmtId> = (0..n)
            .filter(|u| *u != s && comp[*u] == comp[s])
            .filter_map(|u| sites[u].as_ref().map(|f| f.stmt))
            .collect();
        cycle_with.sort();
        cycle_with.dedup();
        let assume = sites[s].as_ref().and_then(|f| f.ok);
        out.push(Held { inside_fine, held_out, cycle_with, assume });
    }
    if guards.over_budget() {
        guards.reset_budget();
        let all: Vec<GuardId> = sites
            .iter()
            .map(|f| f.as_ref().map_or(GuardId::FALSE, |f| or_all(guards, f.inside.iter().map(|i| i.1))))
            .collect();
        return plain(&all);
    }
    out
}

fn or_all(guards: &mut Guards, items: impl Iterator<Item = GuardId>) -> GuardId {
    let mut g = GuardId::FALSE;
    for i in items {
        g = guards.or(g, i);
    }
    g
}

/// Strongly connected components of the held-by graph (component id per node; nodes of one
/// cycle share it). The graphs are tiny (sites of one function that hold each other), so
/// reachability sets are computed directly.
fn components(edges: &[Vec<(usize, GuardId)>]) -> Vec<usize> {
    let n = edges.len();
    let reach: Vec<Vec<bool>> = (0..n)
        .map(|s| {
            let mut seen = vec![false; n];
            let mut work = vec![s];
            while let Some(u) = work.pop() {
                for &(t, _) in &edges[u] {
                    if !seen[t] {
                        seen[t] = true;
                        work.push(t);
                    }
                }
            }
            seen
        })
        .collect();
    (0..n).map(|s| (0..n).find(|&u| u == s || (reach[s][u] && reach[u][s])).unwrap_or(s)).collect()
}

/// Whether the pointer in slot `k` may be copied anywhere: assigned, passed to a call, returned,
/// or an address into its object taken. Tests and loads through it do not copy it.
fn slot_copied(cx: &FnCx, k: Key) -> bool {
    fn mentions(cx: &FnCx, p: &Place, k: Key) -> bool {
        if cx.key_of(p) == Some(k) {
            return true;
        }
        match p {
            Place::Deref(inner) | Place::Field(inner, _) | Place::Index(inner) => mentions(cx, inner, k),
            Place::Local(_) | Place::Global(_) => false,
        }
    }
    let is_k = |op: &Operand| matches!(op, Operand::Place(p) if cx.key_of(p) == Some(k));
    let in_stmts = cx.func.stmts.iter().any(|st| match st {
        Stmt::Assign { src: Rvalue::Use(op), .. } => is_k(op),
        Stmt::Assign { src: Rvalue::AddrOf(p), .. } => mentions(cx, p, k),
        Stmt::Assign { src: Rvalue::Opaque(_), .. } => false,
        Stmt::Call { args, .. } => args.iter().any(is_k),
    });
    in_stmts || cx.func.blocks.iter().any(|b| matches!(&b.term, crate::ir::Terminator::Return(Some(op)) if is_k(op)))
}

/// The allocation whose object slot `k` points to, when every store into the slot in this
/// function stores that one allocation's result (or NULL): a local that surely holds it, or
/// the call itself (`s.data = malloc(n)`; a call that is no allocation site names nothing).
fn slot_origin(cx: &FnCx, k: Key) -> Option<StmtId> {
    let mut found = None;
    for b in 0..cx.dag.n_blocks {
        let node = DagNode(b as u32);
        for (i, sid) in cx.stmts_of(node).iter().enumerate() {
            let this = match cx.func.stmt(*sid) {
                Stmt::Assign { dst, src } if cx.key_of(dst) == Some(k) => match src {
                    Rvalue::Use(Operand::Const(0)) => continue,
                    Rvalue::Use(Operand::Place(Place::Local(v))) => cx.alloc_origin(*v, node, i)?.0,
                    _ => return None,
                },
                Stmt::Call { dst: Some(d), .. } if cx.key_of(d) == Some(k) => *sid,
                _ => continue,
            };
            if found.is_some_and(|f| f != this) {
                return None;
            }
            found = Some(this);
        }
    }
    found
}
