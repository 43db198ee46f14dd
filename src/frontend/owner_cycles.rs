//! Cycles of `std::shared_ptr` owners: blocks a function creates, links into a ring through
//! their `shared_ptr` members and then loses, so that no reference count ever drops to zero.
//!
//! Input: one C++ function body (cursors of the TU's tree). Output: the function's
//! `ir::OwnerCycle`s, in source order of the block each is reported at. The IR does not count
//! references (`stdlib.rs`: a `shared_ptr` operation is an opaque call, what it is given
//! escapes), so the owners are followed here, where their operations are visible, and the
//! checkers only render what is found.
//!
//! The walk reads the body in source order as one path, over an abstract heap:
//! - a *block* for each `std::make_shared<T>(..)` and `std::shared_ptr<T>(new T(..))` whose
//!   result goes into a local `shared_ptr`, a `shared_ptr` member of a block, or a container of
//!   `shared_ptr`s that is a member of a block;
//! - what each local `shared_ptr` holds: a block, nothing, or something unknown;
//! - the owning links, (block, member) to the blocks a `shared_ptr` member or a container member
//!   holds, and the weak links of `weak_ptr` members;
//! - the escaped blocks, which something outside the function may own.
//!
//! When the function ends (or at a `return` outside every branch) its locals are gone; the
//! blocks reachable from an escaped one over owning and weak links (whoever holds a block can
//! lock its weak members) are alive; a cycle of owning links among the others is a leak.
//!
//! Invariants (no finding without a cycle built on the one path that reaches the end):
//! - A use of a block the walk does not recognise (passed to a call, stored into a parameter's
//!   object, a global or a local container, returned, captured, a method called on it, `get()`)
//!   escapes it with everything it reaches then and at the end. A read of a scalar, pointer or
//!   string member of a block is no use of the block.
//! - Inside a branch, loop, `switch`, `try` or label (a *conditional* part) nothing is linked:
//!   an owning store of a block there escapes the block, and a local assigned or reset there
//!   escapes what it held and holds something unknown after. What breaks a link (`reset()`,
//!   `= nullptr`, another value, `clear()`) breaks it there too, and a weak link made there
//!   counts. So a cycle built in a loop or on one branch is missed, never invented.
//! - A local holding something unknown holds only escaped blocks or blocks the walk did not
//!   create, so forgetting what it holds loses no owner.
//! - A function with a `goto` is not looked at (a jump may skip what the walk takes as done),
//!   nor one that calls a function that does not return outside every branch (the process
//!   ends with the blocks still owned). Templates' patterns and lambda bodies are not looked at
//!   (`lower.rs` calls this only for the other functions).
//! - Each cycle (a strongly connected set of blocks) is reported once, at its block created
//!   first in source order; links are kept in ordered maps, so the result depends on the body
//!   only.

#![allow(non_upper_case_globals)]

use std::collections::{BTreeMap, HashMap, VecDeque};

use clang_sys::*;

use super::clang::{self, Cursor, TypeClass};
use super::lower::TuCtx;
use super::stdlib::{self, Shared};
use crate::ir::{Loc, OwnerCycle};

/// What a local `shared_ptr` holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
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

struct Walk<'a, 't, 'i> {
    cx: &'a mut TuCtx<'t, 'i>,
    blocks: Vec<Block>,
    escaped: Vec<bool>,
    /// Local `shared_ptr`s by declaration key: what each holds, and its name.
    vars: HashMap<usize, (Val, String)>,
    /// Owning links; a slot absent holds something unknown (escaped or not created here).
    owns: BTreeMap<Slot, Vec<usize>>,
    weak: BTreeMap<Slot, Vec<usize>>,
    /// How many conditional parts are around the cursor being walked.
    cond: u32,
    /// The `return` outside every branch that ended the path.
    ended: Option<Loc>,
    /// A `goto`, or a call of a function that does not return outside every branch: no finding.
    given_up: bool,
}

/// The cycles of `shared_ptr` owners `body` builds and loses; `end`: its closing brace.
pub(super) fn find(cx: &mut TuCtx, body: Cursor, end: Loc) -> Vec<OwnerCycle> {
    // A cycle is built through a local `shared_ptr`; most functions have none (the tree holds
    // the whole top-level declaration, which is enough to say no).
    let any = cx
        .tree
        .descendants()
        .iter()
        .any(|d| d.kind() == CXCursor_VarDecl && stdlib::shared(d.ty()) == Some(Shared::Owner));
    if !any {
        return Vec::new();
    }
    let mut w = Walk {
        cx,
        blocks: Vec::new(),
        escaped: Vec::new(),
        vars: HashMap::new(),
        owns: BTreeMap::new(),
        weak: BTreeMap::new(),
        cond: 0,
        ended: None,
        given_up: false,
    };
    w.stmt(body);
    if w.given_up {
        return Vec::new();
    }
    let lost = w.ended.unwrap_or(end);
    w.cycles(lost)
}

impl Walk<'_, '_, '_> {
    fn kids(&self, c: Cursor) -> Vec<Cursor> {
        self.cx.kids(c).into_iter().collect()
    }

    fn loc(&mut self, c: Cursor) -> Loc {
        self.cx.loc(c.location())
    }

    // ---- statements ----

    fn stmt(&mut self, s: Cursor) {
        if self.ended.is_some() || self.given_up {
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
            CXCursor_ReturnStmt => {
                for k in self.kids(s) {
                    self.scan(k);
                }
                if self.cond == 0 {
                    self.ended = Some(self.loc(s));
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
        if v.has_global_storage() || stdlib::shared(v.ty()) != Some(Shared::Owner) {
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
        self.vars.insert(v.decl_key(), (val, name));
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
        }
        self.scan(e);
    }

    /// `l = r`; false when `l` is nothing the walk follows.
    fn assign(&mut self, l: Cursor, r: Cursor) -> bool {
        let l = self.peel(l);
        if let Some(k) = self.var_key(l) {
            if self.cond == 0 {
                let val = self.value(r);
                let name = self.vars[&k].1.clone();
                self.name(val, || name);
                self.vars.entry(k).and_modify(|v| v.0 = val);
            } else {
                self.scan(r);
                self.forget(k);
            }
            return true;
        }
        let Some((a, m, ty)) = self.arrow_member(l) else { return false };
        match stdlib::shared(ty) {
            Some(Shared::Owner) if self.cond == 0 => {
                match self.value(r) {
                    Val::Block(b) => {
                        let holder = self.display(a);
                        self.name(Val::Block(b), || format!("{holder}->{m}"));
                        self.owns.insert((a, m), vec![b]);
                    }
                    Val::Empty => {
                        self.owns.insert((a, m), Vec::new());
                    }
                    Val::Unknown => {
                        self.owns.remove(&(a, m));
                    }
                }
                true
            }
            Some(Shared::Owner) => {
                self.scan(r);
                self.owns.remove(&(a, m));
                true
            }
            Some(Shared::Weak) => {
                let val = self.value(r);
                let links = self.weak.entry((a, m)).or_default();
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
        if let Some(k) = self.var_key(obj) {
            if name != "reset" || args != 0 {
                return false;
            }
            match self.cond {
                0 => {
                    self.vars.entry(k).and_modify(|v| v.0 = Val::Empty);
                }
                _ => self.forget(k),
            }
            return true;
        }
        let Some((a, m, ty)) = self.arrow_member(obj) else { return false };
        match (stdlib::shared(ty), name, args) {
            (Some(Shared::Owner), "reset", 0) => {
                self.owns.insert((a, m), Vec::new());
                true
            }
            (Some(Shared::Weak), "reset", 0) => {
                self.weak.insert((a, m), Vec::new());
                true
            }
            (Some(Shared::Owners), "clear", 0) => {
                self.owns.insert((a, m), Vec::new());
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
                if let Val::Block(b) = self.value(r) {
                    let holder = self.display(a);
                    self.name(Val::Block(b), || format!("an element of {holder}->{m}"));
                    // A slot holding something unknown keeps it: the new link is one more.
                    self.owns.entry((a, m)).or_default().push(b);
                }
                true
            }
            _ => false,
        }
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
                    return self.vars[&k].0;
                }
            }
            CXCursor_MemberRefExpr => {
                if let Some((a, m, ty)) = self.arrow_member(r) {
                    if stdlib::shared(ty) == Some(Shared::Owner) {
                        return match self.owns.get(&(a, m)).map(Vec::as_slice) {
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
                let obj = self.method_object(r)?;
                let obj = self.peel(obj);
                let b = self.arrow_base(obj).and_then(|x| self.resolve(x))?;
                Some(Val::Block(b))
            }
            _ => None,
        }
    }

    /// The block the `shared_ptr` expression `x` holds, when the walk knows it; `x` is only
    /// looked at, never used.
    fn resolve(&mut self, x: Cursor) -> Option<usize> {
        let x = self.peel(x);
        if let Some(k) = self.var_key(x) {
            return match self.vars[&k].0 {
                Val::Block(b) => Some(b),
                _ => None,
            };
        }
        let (a, m, ty) = self.arrow_member(x)?;
        if stdlib::shared(ty) != Some(Shared::Owner) {
            return None;
        }
        match self.owns.get(&(a, m)).map(Vec::as_slice) {
            Some(&[b]) => Some(b),
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
        let base = self.kids(e).into_iter().find(|c| c.is_expression())?;
        let x = self.arrow_base(self.cx.strip(base))?;
        let a = self.resolve(x)?;
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
        self.vars.contains_key(&k).then_some(k)
    }

    /// Any use of what `e` names that the walk does not follow: the blocks it names escape.
    fn scan(&mut self, e: Cursor) {
        match e.kind() {
            CXCursor_DeclRefExpr | CXCursor_VariableRef => {
                if let Some(k) = e.referenced().map(|d| d.decl_key()) {
                    if let Some(&(Val::Block(b), _)) = self.vars.get(&k) {
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
            }
            CXCursor_GotoStmt | CXCursor_IndirectGotoStmt => self.given_up = true,
            CXCursor_CallExpr if self.cond == 0 => {
                let noreturn = e
                    .referenced()
                    .filter(|d| d.kind() == CXCursor_FunctionDecl)
                    .is_some_and(|d| self.cx.callee_info(d).noreturn);
                if noreturn {
                    self.given_up = true;
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
        self.escaped.push(false);
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
        if let Val::Block(b) = self.vars[&k].0 {
            self.escape(b);
        }
        self.vars.entry(k).and_modify(|v| v.0 = Val::Unknown);
    }

    /// Something outside may own `b` now: so it may own everything `b` reaches now.
    fn escape(&mut self, b: usize) {
        let mut seen = std::mem::take(&mut self.escaped);
        self.reach(&mut seen, [b]);
        self.escaped = seen;
    }

    /// Mark in `seen` every block reachable from `from` over owning and weak links.
    fn reach(&self, seen: &mut [bool], from: impl IntoIterator<Item = usize>) {
        let mut work: Vec<usize> = from.into_iter().collect();
        for &b in &work {
            seen[b] = true;
        }
        while let Some(b) = work.pop() {
            for links in [&self.owns, &self.weak] {
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
        self.owns
            .range((b, String::new())..)
            .take_while(|((h, _), _)| *h == b)
            .flat_map(|((_, m), held)| held.iter().filter(|&&c| keep[c]).map(move |&c| (m.as_str(), c)))
            .collect()
    }

    /// The cycles of owning links among the blocks nothing alive reaches.
    fn cycles(&self, lost: Loc) -> Vec<OwnerCycle> {
        let n = self.blocks.len();
        let mut alive = vec![false; n];
        let escaped: Vec<usize> = (0..n).filter(|&b| self.escaped[b]).collect();
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
