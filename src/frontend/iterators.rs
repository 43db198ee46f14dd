//! Iterator loops over the standard containers of raw pointers `stdlib` models.
//!
//! Input: in C++ bodies, a local iterator variable initialized or assigned from `begin()` (or
//! `cbegin`, `rbegin`, `crbegin`) of a modelled container named by a variable, a member or a
//! dereference (`stdlib::Container`), and the calls made on that variable afterwards.
//! Output: IR statements of what `cpp::range_for` emits for `for (T *p : v)`: the iterator is a
//! hidden counter (`Iter::counter`, 0 at `begin()`), `it != v.end()` is `counter < v.(size)`,
//! `++it` and `it++` as statements step the counter, and `*it` and `it->m` name the container's
//! cell (`stdlib::cell`: a map's cell is the pair, so `it->second` is the pointer it holds). So
//! `for (it = v.begin(); it != v.end(); ++it) delete *it;` releases what `v` holds, and a loop
//! that forgets to leaves the container's leak reported when it dies.
//! Invariants:
//! - Any other use of the iterator variable (passed to `erase`, copied, compared with another
//!   container's `end()`, `it++` whose value is used, `--it`) lets the container escape at that
//!   point (`iterator_used`, an opaque call given the container's address), so what the model
//!   does not follow is never reported. The variable stays registered: uses on other paths are
//!   still followed.
//! - A variable is followed only when every assignment to it in the function's body is
//!   `begin()` of the same container (`assignments_agree`): one reused for two containers, or
//!   also given another iterator, is not followed at all (each `begin()` is then an opaque call
//!   the container escapes into), since which container it walks would depend on the path.
//! - Only locals: a member or global iterator, and `find()` / `lower_bound()` results, are not
//!   followed (the container escapes where they are made, as before).

#![allow(non_upper_case_globals)]

use clang_sys::*;

use super::clang::{self, Cursor, TypeClass};
use super::expr::Want;
use super::lower::Lowerer;
use super::stdlib::{self, container};
use crate::ir::*;

/// A local iterator variable being followed: the container it walks and the counter standing
/// for its position.
#[derive(Clone)]
pub(super) struct Iter {
    obj: Place,
    counter: LocalId,
}

/// The callee of the escape an iterator's unfollowed use gives its container.
const ITERATOR_USE: &str = "drip:c++:opaque:iterator-use";

impl Lowerer<'_, '_, '_> {
    /// The container a call `e` of `begin()`-like (`true`) or `end()`-like (`false`) methods is
    /// made on, when it is a modelled container the call names without evaluating anything
    /// (nothing is lowered).
    fn container_bound(&mut self, e: Cursor) -> Option<(Place, bool)> {
        let mut e = self.strip(e);
        // `const_iterator it = v.begin()` converts the iterator by a constructor.
        if e.kind() == CXCursor_CallExpr
            && e.referenced().is_some_and(|d| d.kind() == CXCursor_Constructor)
            && e.num_args() == 1
        {
            e = self.strip(self.cx.tree.among_kids(e, e.arg(0)?));
        }
        if e.kind() != CXCursor_CallExpr || e.num_args() != 0 {
            return None;
        }
        let decl = e.referenced().filter(|d| d.kind() == CXCursor_CXXMethod)?;
        let begin = match decl.spelling().as_str() {
            "begin" | "cbegin" | "rbegin" | "crbegin" => true,
            "end" | "cend" | "rend" | "crend" => false,
            _ => return None,
        };
        container(decl.semantic_parent()?.ty())?;
        let callee = self.kids(e).first().map(|k| self.strip(*k))?;
        if callee.kind() != CXCursor_MemberRefExpr {
            return None;
        }
        let base = self.kids(callee).into_iter().find(|c| c.is_expression())?;
        let base = self.strip(base);
        if clang::classify(clang::canonical(base.ty())) == TypeClass::Pointer {
            // `vp->begin()`: only a pointer variable or `this`, whose value is read, not computed.
            if !matches!(base.kind(), CXCursor_DeclRefExpr | CXCursor_CXXThisExpr) {
                return None;
            }
            let p = self.place(base);
            return Some((Place::Deref(Box::new(p)), begin));
        }
        let (obj, _) = self.range_container(base)?;
        Some((obj, begin))
    }

    /// Whether every variable `e` names is one the lowering has declared already.
    fn names_declared(&self, e: Cursor) -> bool {
        let mut stack = vec![e];
        while let Some(c) = stack.pop() {
            if c.kind() == CXCursor_DeclRefExpr
                && c.referenced().is_some_and(|d| {
                    matches!(d.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) && !self.vars.contains_key(&d.decl_key())
                })
            {
                return false;
            }
            stack.extend(self.kids(c));
        }
        true
    }

    /// The iterator variable `e` names, if it is one being followed.
    fn iterator_named(&self, e: Cursor) -> Option<(usize, Iter)> {
        let e = self.strip(e);
        if e.kind() != CXCursor_DeclRefExpr {
            return None;
        }
        let key = e.referenced()?.decl_key();
        self.iterators.get(&key).map(|it| (key, it.clone()))
    }

    /// Follow the local declared by `key` from `init` when `init` is a modelled
    /// container's `begin()`; `false`: not such an initializer, nothing lowered.
    pub(super) fn iterator_decl(&mut self, key: usize, init: Cursor, loc: Loc) -> bool {
        if clang::classify(clang::canonical(init.ty())) != TypeClass::Record {
            return false;
        }
        let Some((obj, true)) = self.container_bound(init) else { return false };
        self.start_iterator(key, obj, loc)
    }

    /// Register (or restart) the iterator `key` at the first cell of `obj`; `false` (nothing
    /// lowered) when the body also assigns the variable something else.
    fn start_iterator(&mut self, key: usize, obj: Place, loc: Loc) -> bool {
        let counter = match self.iterators.get(&key) {
            Some(it) if it.obj == obj => it.counter,
            Some(_) => return false,
            None => {
                if !self.assignments_agree(key, &obj) {
                    return false;
                }
                self.new_temp(TypeClass::Other, loc)
            }
        };
        self.assign(Place::Local(counter), Rvalue::Use(Operand::Const(0)), loc);
        self.iterators.insert(key, Iter { obj, counter });
        true
    }

    /// Whether every assignment (`operator=`) to the variable declared by `key` in the body is
    /// `begin()` of the container `obj`.
    fn assignments_agree(&mut self, key: usize, obj: &Place) -> bool {
        let Some(body) = self.body else { return false };
        let mut stack = vec![body];
        while let Some(c) = stack.pop() {
            stack.extend(self.kids(c));
            if c.kind() != CXCursor_CallExpr || c.num_args() != 2 {
                continue;
            }
            let Some(lhs) = c.arg(0).map(|a| self.strip(self.cx.tree.among_kids(c, a))) else { continue };
            if lhs.kind() != CXCursor_DeclRefExpr || lhs.referenced().is_none_or(|d| d.decl_key() != key) {
                continue;
            }
            if c.referenced().is_none_or(|d| !d.spelling().starts_with("operator")) {
                continue;
            }
            // Only names already declared are lowered to compare (a later one would be declared
            // here first).
            let rhs = c.arg(1).map(|a| self.cx.tree.among_kids(c, a)).filter(|&r| self.names_declared(r));
            if c.referenced().is_some_and(|d| d.spelling() == "operator=")
                && rhs.and_then(|r| self.container_bound(r)).is_some_and(|(o, begin)| begin && &o == obj)
            {
                continue;
            }
            // `it = other`, `it += k`, `it = c.erase(it)`: assigned something else.
            if c.referenced().is_some_and(|d| {
                d.spelling().ends_with('=')
                    && !matches!(d.spelling().as_str(), "operator==" | "operator!=" | "operator<=" | "operator>=")
            }) {
                return false;
            }
        }
        true
    }

    /// The container `obj` escapes here: an opaque call is given its address.
    fn container_escapes(&mut self, obj: Place, loc: Loc) {
        let t = self.new_temp(TypeClass::Pointer, loc);
        self.assign(Place::Local(t), Rvalue::AddrOf(obj), loc);
        let callee = Callee::Direct {
            name: "(iterator use, not followed)".to_string(),
            usr: ITERATOR_USE.to_string(),
            const_args: 0,
        };
        self.emit(Stmt::Call { dst: None, callee, args: vec![Operand::Place(Place::Local(t))] }, loc);
    }

    /// A use of the variable `decl` the model does not follow: if it is an iterator being
    /// followed, its container escapes.
    pub(super) fn iterator_used(&mut self, decl: Cursor) {
        let Some(Iter { obj, .. }) = self.iterators.get(&decl.decl_key()).cloned() else { return };
        let loc = self.loc(decl);
        self.container_escapes(obj, loc);
    }

    /// The call `e` of an operator on a followed iterator (`decl` its callee): `*it`, `++it`,
    /// `it++`, `it != c.end()`, `it == c.end()`, `it = c.begin()`. `None`: not such a call,
    /// nothing lowered.
    pub(super) fn iterator_call(&mut self, e: Cursor, decl: Cursor, want: &Want) -> Option<Option<Rvalue>> {
        if !matches!(decl.kind(), CXCursor_CXXMethod | CXCursor_FunctionDecl) {
            return None;
        }
        let name = decl.spelling();
        if !name.starts_with("operator") {
            return None;
        }
        let n = e.num_args();
        let arg = |lw: &Self, i: u32| e.arg(i).map(|a| lw.cx.tree.among_kids(e, a));
        let loc = self.loc(e);
        match (name.as_str(), n) {
            ("operator=", 2) => {
                let lhs = self.strip(arg(self, 0)?);
                let var = lhs.referenced().filter(|d| d.kind() == CXCursor_VarDecl && !d.has_global_storage())?;
                if lhs.kind() != CXCursor_DeclRefExpr || !matches!(want, Want::Effect) || clang::is_reference(var.ty())
                {
                    return None;
                }
                let Some((obj, true)) = self.container_bound(arg(self, 1)?) else { return None };
                self.start_iterator(var.decl_key(), obj, loc).then_some(None)
            }
            ("operator*", 1) => {
                let (_, Iter { obj, .. }) = self.iterator_named(arg(self, 0)?)?;
                Some(self.deliver_value(Rvalue::Use(Operand::Place(stdlib::cell(obj))), want, loc))
            }
            ("operator++", 1 | 2) if matches!(want, Want::Effect) => {
                let (_, Iter { counter, .. }) = self.iterator_named(arg(self, 0)?)?;
                let c = Place::Local(counter);
                let src = Rvalue::Opaque(vec![Operand::Place(c.clone()), Operand::Const(1)]);
                self.assign_step(c, src, 1, true, loc);
                Some(None)
            }
            ("operator!=" | "operator==", 2) => {
                let kind = self.iterator_test(e)?;
                Some(self.deliver_value(Rvalue::Opaque(kind_operands(kind)), want, loc))
            }
            _ => None,
        }
    }

    /// `it != c.end()` (or `c.end() != it`) with `it` walking `c`: `counter < c.(size)`, and
    /// whether the call is `==` (the test's negation). `None`: not such a test, nothing lowered.
    pub(super) fn iterator_test(&mut self, e: Cursor) -> Option<(CondKind, bool)> {
        let decl = e.referenced()?;
        let eq = match decl.spelling().as_str() {
            "operator!=" => false,
            "operator==" => true,
            _ => return None,
        };
        if e.num_args() != 2 {
            return None;
        }
        let a = self.cx.tree.among_kids(e, e.arg(0)?);
        let b = self.cx.tree.among_kids(e, e.arg(1)?);
        let (it, end) = match (self.iterator_named(a), self.iterator_named(b)) {
            (Some((_, it)), None) => (it, b),
            (None, Some((_, it))) => (it, a),
            _ => return None,
        };
        let Iter { obj, counter } = it;
        let (bound, false) = self.container_bound(end)? else { return None };
        if bound != obj {
            return None;
        }
        let kind = CondKind::Cmp(CmpOp::Lt, Operand::Place(Place::Local(counter)), Operand::Place(stdlib::size(obj)));
        Some((kind, eq))
    }

    /// `it->m` with `it` a followed iterator (`e` the `operator->` call): the cell's place, the
    /// object `m` is a member of. `None`: not such a call.
    pub(super) fn iterator_arrow(&mut self, e: Cursor) -> Option<Place> {
        if e.kind() != CXCursor_CallExpr || e.num_args() != 1 {
            return None;
        }
        let decl = e.referenced().filter(|d| d.kind() == CXCursor_CXXMethod)?;
        if decl.spelling() != "operator->" {
            return None;
        }
        let a = self.cx.tree.among_kids(e, e.arg(0)?);
        let (_, Iter { obj, .. }) = self.iterator_named(a)?;
        Some(stdlib::cell(obj))
    }
}

/// The operands a test's value depends on, for an opaque value of it.
fn kind_operands((kind, _): (CondKind, bool)) -> Vec<Operand> {
    match kind {
        CondKind::Cmp(_, a, b) => vec![a, b],
        CondKind::Truthy(a) => vec![a],
        _ => Vec::new(),
    }
}
