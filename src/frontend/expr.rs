//! Lowering of expressions, branch conditions and calls (initialisers are in `init.rs`).
//!
//! Input: expression cursors inside the function being lowered (`Lowerer`).
//! Output: statements appended to the current block, plus an `Rvalue`/`Operand` for the value.
//! Invariants:
//! - Side effects are emitted in evaluation order (left to right where C leaves it open).
//! - Returned operands are side-effect free: a call, assignment, `?:`, `&&`/`||`/`!` or statement
//!   expression used as a value has already been emitted, its value sits in a place.
//! - Parentheses, casts (explicit and implicit) and `__extension__` are transparent.
//! - An array used as a value is its address (`AddrOf`), as C's decay makes it.
//! - `sizeof`/`_Alignof` operands are never lowered (they are not evaluated).

#![allow(non_upper_case_globals)]

use clang_sys::*;

use super::clang::{self, Cursor, TypeClass};
use super::lower::{Builtin, Lowerer, TuCtx};
use super::tree::Tree;
use crate::ir::*;

/// What the caller does with an expression's value.
#[derive(Clone)]
pub(super) enum Want {
    /// Only side effects matter.
    Effect,
    /// The value is needed; an `Rvalue` is fine.
    Value,
    /// Store the value into this place. Calls, `?:` and friends store directly (so `p = malloc(n)`
    /// is one `Call` with `dst: p`); everything else returns an `Rvalue` for the caller to assign.
    Into(Place),
}

fn use_(op: Operand) -> Rvalue {
    Rvalue::Use(op)
}

/// Peel parentheses, casts (implicit ones are `UnexposedExpr`s with one child at the same
/// location) and `__extension__`.
pub(super) fn strip_plain(t: &Tree, mut e: Cursor) -> Cursor {
    while let Some(n) = strip_step(t, e) {
        e = n;
    }
    e
}

/// One step of `strip_plain`: the expression inside `e`, if `e` is one it peels.
fn strip_step(t: &Tree, e: Cursor) -> Option<Cursor> {
    match e.kind() {
        CXCursor_ParenExpr | CXCursor_CStyleCastExpr => t.kids(e).rev().find(|c| c.is_expression()),
        // C++'s named casts and `T(x)` of a scalar type: transparent, as C's casts are.
        CXCursor_CXXStaticCastExpr
        | CXCursor_CXXReinterpretCastExpr
        | CXCursor_CXXConstCastExpr
        | CXCursor_CXXDynamicCastExpr
        | CXCursor_CXXFunctionalCastExpr => t.kids(e).rev().find(|c| c.is_expression()),
        CXCursor_UnexposedExpr => {
            let mut kids = t.kids(e);
            match (kids.len(), kids.next()) {
                (1, Some(only)) if only.is_expression() && only.same_location(e) => Some(only),
                _ => None,
            }
        }
        CXCursor_UnaryOperator if e.unop() == CXUnaryOperator_Extension => t.kids(e).next(),
        _ => None,
    }
}

/// Arithmetic, bitwise and comparison nodes whose operands can be flattened into one `Opaque`.
/// A comparison or a logical operator: its value is 0 or 1.
fn is_truth_value(s: Cursor) -> bool {
    match s.kind() {
        CXCursor_BinaryOperator => {
            let op = s.binop();
            (CXBinaryOperator_LT..=CXBinaryOperator_NE).contains(&op)
                || matches!(op, CXBinaryOperator_LAnd | CXBinaryOperator_LOr)
        }
        CXCursor_UnaryOperator => s.unop() == CXUnaryOperator_LNot,
        _ => false,
    }
}

fn is_arith_node(s: Cursor) -> bool {
    match s.kind() {
        CXCursor_BinaryOperator => {
            let op = s.binop();
            if op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub {
                return s.type_class() != TypeClass::Pointer;
            }
            (CXBinaryOperator_Mul..=CXBinaryOperator_Or).contains(&op)
        }
        CXCursor_UnaryOperator => {
            matches!(s.unop(), CXUnaryOperator_Plus | CXUnaryOperator_Minus | CXUnaryOperator_Not)
        }
        _ => false,
    }
}

/// The bitwise operators whose effect on bits `Bits` follows.
#[derive(Clone, Copy)]
enum BitOp {
    Or,
    And,
    Not,
}

fn bit_op(e: Cursor) -> Option<BitOp> {
    match e.kind() {
        CXCursor_BinaryOperator if e.binop() == CXBinaryOperator_Or => Some(BitOp::Or),
        CXCursor_BinaryOperator if e.binop() == CXBinaryOperator_And => Some(BitOp::And),
        CXCursor_UnaryOperator if e.unop() == CXUnaryOperator_Not => Some(BitOp::Not),
        _ => None,
    }
}

impl Lowerer<'_, '_, '_> {
    /// Lower `e` for its value, as an operand (complex values go through a temporary).
    pub fn expr(&mut self, e: Cursor) -> Operand {
        match self.lower(e, Want::Value) {
            Some(Rvalue::Use(op)) => op,
            Some(rv) => {
                let loc = self.loc(e);
                let class = if matches!(rv, Rvalue::AddrOf(_)) { TypeClass::Pointer } else { e.type_class() };
                let t = self.new_temp_of(class, e.ty(), loc);
                // `i + 2 > size`: the temporary is `i` plus a constant (`Function::offsets`).
                let offset = self.offset(e, &rv);
                let id = StmtId::from_usize(self.stmts.len());
                self.assign(Place::Local(t), rv, loc);
                if let Some(k) = offset {
                    self.offsets.push((id, k));
                }
                Operand::Place(Place::Local(t))
            }
            None => Operand::Unknown,
        }
    }

    /// `rv` as an operand: through a temporary unless it is one already.
    pub fn rvalue_operand(&mut self, rv: Rvalue, loc: Loc) -> Operand {
        match rv {
            Rvalue::Use(op) => op,
            other => {
                let class = if matches!(other, Rvalue::AddrOf(_)) { TypeClass::Pointer } else { TypeClass::Other };
                let t = self.new_temp(class, loc);
                self.assign(Place::Local(t), other, loc);
                Operand::Place(Place::Local(t))
            }
        }
    }

    pub fn rvalue(&mut self, e: Cursor) -> Rvalue {
        self.lower(e, Want::Value).unwrap_or(Rvalue::Use(Operand::Unknown))
    }

    /// Lower `e` for its side effects only.
    pub fn effect(&mut self, e: Cursor) {
        let _ = self.lower(e, Want::Effect);
    }

    /// `dst = e`, with calls (and `?:`, statement expressions…) storing straight into `dst`.
    pub fn assign_to(&mut self, dst: Place, e: Cursor, loc: Loc) {
        if let Some(rv) = self.lower(e, Want::Into(dst.clone())) {
            // `cnt = (cnt << 8) + (unsigned)c`: the operators are gone from `Opaque`, the sign
            // of the value is kept (`Function::nonneg`).
            let s = self.strip(e);
            if matches!(rv, Rvalue::Opaque(_)) && is_arith_node(s) && clang::is_unsigned(s.ty()) {
                let floor = self.unsigned_floor(s).unwrap_or(0);
                self.assign_nonneg(dst, rv, floor, loc);
            } else {
                self.assign(dst, rv, loc);
            }
        }
    }

    /// The constant `e` adds to one integer local, when `e` is `x + k`, `k + x` or `x - k` for a
    /// constant `k` and `rv` its lowering (`x` and `k` its only operands): `Function::offsets`.
    /// A sum of signed type, or of unsigned type that adds (`n - 1` of a `size_t` wraps at 0).
    fn offset(&self, e: Cursor, rv: &Rvalue) -> Option<i64> {
        let Rvalue::Opaque(ops) = rv else { return None };
        let s = self.strip(e);
        if s.kind() != CXCursor_BinaryOperator || s.type_class() != TypeClass::Other || clang::is_bool(s.ty()) {
            return None;
        }
        let sub = match s.binop() {
            CXBinaryOperator_Add => false,
            CXBinaryOperator_Sub => true,
            _ => return None,
        };
        let (signed, unsigned) = (clang::is_signed_integer(s.ty()), clang::is_unsigned(s.ty()));
        let kids = self.kids(s);
        let (Some(&l), Some(&r)) = (kids.first(), kids.get(1)) else { return None };
        // The constant as written (`i + -2` is flattened to the operands `i, 2`).
        let (kl, kr) = (self.strip(l).eval_int(), self.strip(r).eval_int());
        let k = match (kl, kr) {
            (None, Some(k)) if sub => k.checked_neg()?,
            (None, Some(k)) | (Some(k), None) if !sub => k,
            _ => return None,
        };
        let one_local = matches!(
            &ops[..],
            [Operand::Place(Place::Local(_)), Operand::Const(_)] | [Operand::Const(_), Operand::Place(Place::Local(_))]
        );
        // A cast around the sum (stripped with it) may narrow it: `(unsigned char)(c + 1)`.
        // Only one to a signed type at least as wide keeps its value.
        let inner = clang::canonical(s.ty());
        let mut kept = true;
        let mut c = Some(e);
        while let Some(at) = c {
            let outer = clang::canonical(at.ty());
            kept &= outer.kind == inner.kind
                || (clang::is_signed_integer(outer) && signed && clang::size_of(outer) >= clang::size_of(inner));
            c = strip_step(&self.cx.tree, at);
        }
        (one_local && kept && (signed || (unsigned && k >= 0))).then_some(k)
    }

    /// The least value of `e` (stripped), as a sum of unsigned type adds up its operands: each
    /// is converted to the sum's unsigned type, so it is at least 0, or the constant it is
    /// (`l1 + 1 + l2 + 1` is at least 2). `None` for a negative constant, which conversion
    /// wraps. Unsigned wrap-around of the sum itself is not modelled, as for counters.
    fn unsigned_floor(&self, e: Cursor) -> Option<i64> {
        if e.kind() == CXCursor_BinaryOperator && e.binop() == CXBinaryOperator_Add && clang::is_unsigned(e.ty()) {
            let mut floor: i64 = 0;
            for k in self.kids(e) {
                floor = floor.saturating_add(self.unsigned_floor(self.strip(k))?);
            }
            return Some(floor);
        }
        match e.eval_int() {
            Some(c) if c < 0 => None,
            Some(c) => Some(c),
            None => Some(0),
        }
    }

    /// The core: returns the value as an `Rvalue`, or `None` when it was already delivered into
    /// `Want::Into`'s place (or there is no value).
    fn lower(&mut self, e0: Cursor, want: Want) -> Option<Rvalue> {
        let r = self.lower_stripped(e0, want);
        if let Some(Rvalue::Use(Operand::Func { usr, .. })) = &r {
            // `(cmp_fn)compare_names`: an indirect call through the cast type may reach it.
            if e0.kind() == CXCursor_CStyleCastExpr {
                if let Some(f) = clang::pointee_function(e0.ty()) {
                    let sig = self.cx.type_spelling(f).to_string();
                    self.cx.cast_targets.push((usr.clone(), sig));
                }
            }
        }
        r
    }

    fn lower_stripped(&mut self, e0: Cursor, want: Want) -> Option<Rvalue> {
        let e = self.strip(e0);
        match e.kind() {
            CXCursor_IntegerLiteral | CXCursor_CharacterLiteral | CXCursor_CXXBoolLiteralExpr => {
                Some(use_(self.cx.literal_value(e).map_or(Operand::Unknown, Operand::Const)))
            }
            CXCursor_FloatingLiteral | CXCursor_ImaginaryLiteral | CXCursor_FixedPointLiteral => {
                Some(use_(Operand::Unknown))
            }
            CXCursor_StringLiteral | CXCursor_ObjCStringLiteral => Some(use_(Operand::Str)),
            CXCursor_GNUNullExpr | CXCursor_CXXNullPtrLiteralExpr => Some(use_(Operand::Const(0))),
            // sizeof / _Alignof / offsetof: the operand is not evaluated.
            CXCursor_UnaryExpr => Some(use_(e.eval_int().map_or(Operand::Unknown, Operand::Const))),
            CXCursor_DeclRefExpr | CXCursor_MemberRefExpr | CXCursor_ArraySubscriptExpr => Some(self.lvalue(e)),
            CXCursor_CallExpr => self.call(e, want),
            CXCursor_ConditionalOperator => self.ternary(e, want),
            CXCursor_StmtExpr => self.stmt_expr(e, want),
            CXCursor_UnexposedExpr => self.unexposed(e, want),
            CXCursor_CompoundLiteralExpr => {
                let t = self.compound_literal(e);
                Some(self.local_value(t))
            }
            CXCursor_InitListExpr => match want {
                Want::Into(dst) => {
                    self.init_list(dst, e, e.ty());
                    None
                }
                _ => {
                    let loc = self.loc(e);
                    self.note(loc, "initializer list outside an initialization lowered as an unknown value");
                    for k in self.kids(e) {
                        self.effect(k);
                    }
                    Some(use_(Operand::Unknown))
                }
            },
            CXCursor_AddrLabelExpr => {
                if let Some(l) = self.kids(e).into_iter().find_map(|c| c.referenced()) {
                    if l.kind() == CXCursor_LabelStmt {
                        self.addr_labels.push(l.stmt_key());
                        self.label_names.entry(l.stmt_key()).or_insert_with(|| l.spelling());
                    }
                }
                Some(use_(Operand::Unknown))
            }
            CXCursor_BinaryOperator => self.binary(e, want),
            CXCursor_CompoundAssignOperator => {
                let p = self.compound_assign(e);
                Some(use_(Operand::Place(p)))
            }
            CXCursor_UnaryOperator => self.unary(e, want),
            CXCursor_GenericSelectionExpr => self.generic_selection(e, want),
            CXCursor_CXXThisExpr => match self.this_local {
                Some(t) => Some(use_(Operand::Place(Place::Local(t)))),
                None => Some(use_(Operand::Unknown)),
            },
            CXCursor_CXXNewExpr => self.new_expr(e, want),
            CXCursor_CXXDeleteExpr => {
                self.delete_expr(e);
                None
            }
            CXCursor_CXXThrowExpr => {
                self.throw_expr(e);
                None
            }
            CXCursor_LambdaExpr => Some(self.lambda_expr(e)),
            _ if self.cx.cpp => Some(self.cpp_unsupported(e)),
            _ => {
                let loc = self.loc(e);
                let kind = e.kind_name();
                self.note(loc, format!("unsupported expression ({kind}) lowered as an unknown value"));
                Some(use_(Operand::Unknown))
            }
        }
    }

    fn binary(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let kids = self.kids(e);
        let (Some(&l), Some(&r)) = (kids.first(), kids.get(1)) else { return Some(use_(Operand::Unknown)) };
        match e.binop() {
            CXBinaryOperator_Assign => {
                let loc = self.loc(e);
                if let Some((other, op)) = self.self_update(l, r) {
                    let p = self.update(l, other, op, loc);
                    return Some(use_(Operand::Place(p)));
                }
                let p = self.place(l);
                self.assign_to(p.clone(), r, loc);
                Some(use_(Operand::Place(p)))
            }
            CXBinaryOperator_Comma => {
                self.effect(l);
                self.lower(r, want)
            }
            CXBinaryOperator_LAnd | CXBinaryOperator_LOr => self.logical(e, want),
            // `on_heap = n > 10`, `int failed = p == NULL`, `*existed = p != NULL`: a variable
            // or a place in memory that keeps a comparison's truth is set on the two sides of a
            // branch on it, as `&&` sets its value, so that its later tests and the comparison's
            // own go the same way (`Opaque` would lose the operator), and a caller learns the
            // constant a callee left in `*existed` where its result is fresh. Temporaries
            // (`f (a < b)`, `return a < b`) stay arithmetic.
            op if (CXBinaryOperator_LT..=CXBinaryOperator_NE).contains(&op)
                && matches!(&want, Want::Into(p) if self.keeps_truth(p)) =>
            {
                self.logical(e, want)
            }
            _ => self.arith(e, want),
        }
    }

    fn unary(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let Some(c) = self.kids(e).into_iter().next() else { return Some(use_(Operand::Unknown)) };
        let op = e.unop();
        match op {
            CXUnaryOperator_PostInc | CXUnaryOperator_PostDec | CXUnaryOperator_PreInc | CXUnaryOperator_PreDec => {
                let want_value = !matches!(want, Want::Effect);
                Some(use_(self.incdec(e, c, op, want_value)))
            }
            CXUnaryOperator_AddrOf => Some(self.addr_of(c)),
            CXUnaryOperator_Deref => Some(self.lvalue(e)),
            CXUnaryOperator_LNot => self.logical(e, want),
            CXUnaryOperator_Plus | CXUnaryOperator_Extension | CXUnaryOperator_Coawait => self.lower(c, want),
            _ => self.arith(e, want),
        }
    }

    /// The value of an lvalue expression (variable, `p->f`, `a[i]`, `*p`), or of a function or
    /// enumerator name.
    fn lvalue(&mut self, e: Cursor) -> Rvalue {
        if e.kind() == CXCursor_DeclRefExpr {
            let Some(d) = e.referenced() else { return use_(Operand::Unknown) };
            return match d.kind() {
                CXCursor_VarDecl | CXCursor_ParmDecl => {
                    let v = self.var(d);
                    if v.is_ref {
                        // A use of a reference is a use of the object it names.
                        let object = Place::Deref(Box::new(v.place));
                        return if e.type_class() == TypeClass::Array {
                            Rvalue::AddrOf(object)
                        } else {
                            use_(Operand::Place(object))
                        };
                    }
                    if v.is_array {
                        Rvalue::AddrOf(v.place)
                    } else {
                        use_(Operand::Place(v.place))
                    }
                }
                CXCursor_FunctionDecl => {
                    let info = self.cx.callee_info(d);
                    self.cx.note_library_value(d, &info.usr);
                    use_(Operand::Func { name: info.name.clone(), usr: info.usr.clone() })
                }
                CXCursor_EnumConstantDecl => use_(Operand::Const(d.enum_value())),
                _ => use_(Operand::Unknown),
            };
        }
        let class = e.type_class();
        if class == TypeClass::Function {
            // `*fp` used as a value designates the function `fp` points to: the value is `fp`.
            if let Some(c) = self.kids(e).into_iter().next() {
                return self.rvalue(c);
            }
        }
        let p = self.place(e);
        if class == TypeClass::Array {
            Rvalue::AddrOf(p)
        } else {
            use_(Operand::Place(p))
        }
    }

    /// Lower `e` as an lvalue. Non-lvalues (a call result, `p + 1`) are stored into a temporary
    /// first, so `f()->x` is `Field(Deref(tmp), x)`.
    pub fn place(&mut self, e0: Cursor) -> Place {
        let e = self.strip(e0);
        match e.kind() {
            CXCursor_DeclRefExpr => {
                if let Some(d) = e.referenced().filter(|d| matches!(d.kind(), CXCursor_VarDecl | CXCursor_ParmDecl)) {
                    let v = self.var(d);
                    return if v.is_ref { Place::Deref(Box::new(v.place)) } else { v.place };
                }
            }
            // A member of an object of a dependent type (`s->n` with `s` a `T *`): no member is
            // resolved, so no name tells two of them apart; what it names escapes.
            CXCursor_MemberRefExpr if self.in_template && e.referenced().is_none() => {
                self.not_analysed(e, "dependent member");
                // Somewhere in memory (through a pointer nothing is known of): what is stored
                // there escapes, what is read is unknown.
                let loc = self.loc(e);
                let t = self.new_temp(TypeClass::Pointer, loc);
                self.assign(Place::Local(t), use_(Operand::Unknown), loc);
                return Place::Deref(Box::new(Place::Local(t)));
            }
            CXCursor_MemberRefExpr => {
                let name = self.cx.member_name(e);
                let base = self.kids(e).into_iter().find(|c| c.is_expression());
                match (base, self.this_local) {
                    // A member named alone inside a method: `this->name`.
                    (None, Some(this)) => {
                        return Place::Field(Box::new(Place::Deref(Box::new(Place::Local(this)))), name)
                    }
                    // No object to name it in (a C++ construct drip does not lower).
                    (None, None) => {
                        let loc = self.loc(e);
                        return self.operand_place(Operand::Unknown, e.type_class(), loc);
                    }
                    _ => {}
                }
                if let Some(base) = base {
                    // The base's type asked for once, and made canonical once: this is every
                    // member access of the TU.
                    let base_ty = clang::canonical(base.ty());
                    let through = clang::classify(base_ty) == TypeClass::Pointer;
                    // The member of a union object (not of an anonymous union inside a struct,
                    // which libclang shows as a member of the struct). libclang leaves out an
                    // anonymous struct between a union and the member (`u.n` of `union { struct
                    // { int n; char *p; }; … } u`): such a member is a field of the struct, which
                    // is the union's one place, so `n` and `p` stay two places.
                    let object = if through { clang::pointee(base_ty) } else { base_ty };
                    let in_union = clang::is_canonical_union(object)
                        && e.referenced()
                            .and_then(|f| f.semantic_parent())
                            .is_none_or(|r| r.kind() != CXCursor_StructDecl);
                    let inner = if through { self.deref_place(base) } else { self.place(base) };
                    return union_member(inner, name, in_union);
                }
            }
            CXCursor_ArraySubscriptExpr => return self.subscript_place(e),
            CXCursor_UnaryOperator if e.unop() == CXUnaryOperator_Deref => {
                if let Some(c) = self.kids(e).into_iter().next() {
                    return self.deref_place(c);
                }
            }
            CXCursor_CompoundLiteralExpr => return Place::Local(self.compound_literal(e)),
            _ => {}
        }
        match self.expr(e) {
            Operand::Place(p) => p,
            // Only a value that is not a place needs the location and type (for a temporary).
            other => {
                let loc = self.loc(e);
                self.operand_place(other, e.type_class(), loc)
            }
        }
    }

    /// The object `*inner` designates (`inner` is a pointer, or an array that decays).
    fn deref_place(&mut self, inner: Cursor) -> Place {
        let s = self.strip(inner);
        if !self.iterators.is_empty() {
            if let Some(cell) = self.iterator_arrow(s) {
                return cell;
            }
        }
        if s.type_class() == TypeClass::Array {
            return Place::Index(Box::new(self.place(s)));
        }
        let p = match self.expr(s) {
            Operand::Place(p) => p,
            other => {
                let loc = self.loc(s);
                self.operand_place(other, TypeClass::Pointer, loc)
            }
        };
        Place::Deref(Box::new(p))
    }

    fn subscript_place(&mut self, e: Cursor) -> Place {
        let kids = self.kids(e);
        let (Some(&a), Some(&b)) = (kids.first(), kids.get(1)) else {
            let loc = self.loc(e);
            return self.operand_place(Operand::Unknown, TypeClass::Other, loc);
        };
        // `i[a]` is legal C: the base is whichever operand is a pointer or array.
        let base_first = matches!(a.type_class(), TypeClass::Pointer | TypeClass::Array);
        let (base, idx) = if base_first { (a, b) } else { (b, a) };
        if !base_first {
            self.effect(idx);
        }
        let sb = self.strip(base);
        let p = if sb.type_class() == TypeClass::Array {
            Place::Index(Box::new(self.place(sb)))
        } else {
            Place::Index(Box::new(self.deref_place(sb)))
        };
        if base_first {
            self.effect(idx);
        }
        p
    }

    fn operand_place(&mut self, op: Operand, class: TypeClass, loc: Loc) -> Place {
        match op {
            Operand::Place(p) => p,
            other => {
                let t = self.new_temp(class, loc);
                self.assign(Place::Local(t), use_(other), loc);
                Place::Local(t)
            }
        }
    }

    pub(super) fn local_value(&self, t: LocalId) -> Rvalue {
        if self.local_is_array.get(t.index()).copied().unwrap_or(false) {
            Rvalue::AddrOf(Place::Local(t))
        } else {
            use_(Operand::Place(Place::Local(t)))
        }
    }

    pub fn addr_of(&mut self, c: Cursor) -> Rvalue {
        let s = self.strip(c);
        match s.kind() {
            CXCursor_DeclRefExpr if s.referenced().is_some_and(|d| d.kind() == CXCursor_FunctionDecl) => self.lvalue(s),
            // `&*p` is `p`.
            CXCursor_UnaryOperator if s.unop() == CXUnaryOperator_Deref => match self.kids(s).into_iter().next() {
                Some(inner) => self.rvalue(inner),
                None => use_(Operand::Unknown),
            },
            _ if s.type_class() == TypeClass::Function => self.rvalue(s),
            _ => Rvalue::AddrOf(self.place(s)),
        }
    }

    /// `++`/`--`. On pointers the offset is abstracted (`p = p`); on integers the new value is
    /// opaque, and the statement a step by ±1 (`Function::steps`). Returns the expression's value.
    fn incdec(&mut self, e: Cursor, c: Cursor, op: CXUnaryOperatorKind, want_value: bool) -> Operand {
        let loc = self.loc(e);
        let p = self.place(c);
        let class = c.type_class();
        let post = matches!(op, CXUnaryOperator_PostInc | CXUnaryOperator_PostDec);
        if class == TypeClass::Pointer {
            // `*s++` reads through the old pointer: a temporary keeps it, so that what is read
            // (`flag = *s++`) is not taken for what the stepped pointer leads to (`*s`), which
            // facts would then equate with `flag`.
            let old = (post && want_value).then(|| {
                let t = self.new_temp(class, loc);
                self.assign(Place::Local(t), use_(Operand::Place(p.clone())), loc);
                Operand::Place(Place::Local(t))
            });
            self.assign(p.clone(), use_(Operand::Place(p.clone())), loc);
            return old.unwrap_or(Operand::Place(p));
        }
        let result = if post && want_value {
            let t = self.new_temp(class, loc);
            self.assign(Place::Local(t), use_(Operand::Place(p.clone())), loc);
            Operand::Place(Place::Local(t))
        } else {
            Operand::Place(p.clone())
        };
        let src = Rvalue::Opaque(vec![Operand::Place(p.clone()), Operand::Const(1)]);
        // A `_Bool` is 1 after `b++`, whatever it was: not a step; nor is a float's.
        if class != TypeClass::Other || clang::is_bool(c.ty()) {
            self.assign(p, src, loc);
        } else {
            let up = matches!(op, CXUnaryOperator_PostInc | CXUnaryOperator_PreInc);
            self.assign_step(p, src, if up { 1 } else { -1 }, clang::is_unsigned(c.ty()), loc);
        }
        result
    }

    fn compound_assign(&mut self, e: Cursor) -> Place {
        let loc = self.loc(e);
        let kids = self.kids(e);
        let (Some(&l), Some(&r)) = (kids.first(), kids.get(1)) else {
            return self.operand_place(Operand::Unknown, TypeClass::Other, loc);
        };
        self.update(l, r, e.binop(), loc)
    }

    /// `x = x + e`, `x = x - e`, `n = 1 + n`, `size = 2 * size` on a variable: the compound
    /// assignment it is (`x += e`, ...), so that a step or a growth is recorded as for `+=`
    /// (C evaluates and converts both the same way). `None` for any other assignment.
    fn self_update(&mut self, l: Cursor, r: Cursor) -> Option<(Cursor, CXBinaryOperatorKind)> {
        let var = self.strip(l);
        if var.kind() != CXCursor_DeclRefExpr {
            return None;
        }
        let d = var.referenced()?;
        if !matches!(d.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) {
            return None;
        }
        let rhs = self.strip(r);
        if rhs.kind() != CXCursor_BinaryOperator {
            return None;
        }
        let op = rhs.binop();
        let kids = self.kids(rhs);
        let (Some(&a), Some(&b)) = (kids.first(), kids.get(1)) else { return None };
        let names_var = |me: &mut Self, c: Cursor| {
            let c = me.strip(c);
            c.kind() == CXCursor_DeclRefExpr && c.referenced().is_some_and(|x| x.decl_key() == d.decl_key())
        };
        let commutes = matches!(op, CXBinaryOperator_Add | CXBinaryOperator_Mul);
        let other = if names_var(self, a) {
            b
        } else if commutes && names_var(self, b) {
            a
        } else {
            return None;
        };
        let compound = match op {
            CXBinaryOperator_Add => CXBinaryOperator_AddAssign,
            CXBinaryOperator_Sub => CXBinaryOperator_SubAssign,
            CXBinaryOperator_Mul => CXBinaryOperator_MulAssign,
            _ => return None,
        };
        Some((other, compound))
    }

    /// `l op= r` (a compound assignment's operator), lowered into `l`'s place.
    fn update(&mut self, l: Cursor, r: Cursor, op: CXBinaryOperatorKind, loc: Loc) -> Place {
        let p = self.place(l);
        // `lose |= p == NULL` on a variable: sets bit 0 on the side of a branch where the
        // condition holds, so that a later `if (lose)` goes with the test (`truth_variable`).
        let truth = op == CXBinaryOperator_OrAssign && is_truth_value(self.strip(r));
        if let Some(x) = self.truth_variable(&p).filter(|_| truth) {
            let set = self.new_block();
            let join = self.new_block();
            self.cond(r, set, join);
            self.enter(set, loc);
            let src = Rvalue::Opaque(vec![Operand::Place(p.clone()), Operand::Const(1)]);
            self.assign_bits(p.clone(), src, Bits::or(Bits::local(x), Bits::constant(1)), loc);
            self.goto(join, loc);
            self.enter(join, loc);
            return p;
        }
        let v = self.expr(r);
        let ptr_step = matches!(op, CXBinaryOperator_AddAssign | CXBinaryOperator_SubAssign)
            && l.type_class() == TypeClass::Pointer;
        // `flags |= F`, `flags &= ~F`: the bits it sets or clears, and keeps from the old value.
        let bits = match (&p, op) {
            (Place::Local(x), CXBinaryOperator_OrAssign) => Some(Bits::or(Bits::local(*x), self.leaf_bits(r, &v))),
            (Place::Local(x), CXBinaryOperator_AndAssign) => Some(Bits::and(Bits::local(*x), self.leaf_bits(r, &v))),
            _ => None,
        };
        // `n += 2`, `n -= 1` on an integer: a step by a constant.
        let step = match (op, &v) {
            (CXBinaryOperator_AddAssign, Operand::Const(k)) => Some(*k),
            (CXBinaryOperator_SubAssign, Operand::Const(k)) => k.checked_neg(),
            _ => None,
        }
        .filter(|_| !ptr_step && l.type_class() == TypeClass::Other && !clang::is_bool(l.ty()));
        // `n += len` with `len` of unsigned type, `size *= 2`: never smaller while at least 0.
        let grows = !ptr_step
            && step.is_none()
            && l.type_class() == TypeClass::Other
            && !clang::is_bool(l.ty())
            && match (op, &v) {
                (CXBinaryOperator_AddAssign, Operand::Const(_)) => false,
                (CXBinaryOperator_AddAssign, _) => clang::is_unsigned(self.strip(r).ty()),
                (CXBinaryOperator_MulAssign, Operand::Const(k)) => *k >= 1,
                _ => false,
            };
        let src =
            if ptr_step { use_(Operand::Place(p.clone())) } else { Rvalue::Opaque(vec![Operand::Place(p.clone()), v]) };
        match (bits.filter(|b| *b != Bits::UNKNOWN), step) {
            (Some(b), _) => self.assign_bits(p.clone(), src, b, loc),
            (None, Some(k)) => self.assign_step(p.clone(), src, k, clang::is_unsigned(l.ty()), loc),
            (None, None) if grows => self.assign_grow(p.clone(), src, loc),
            (None, None) => self.assign(p.clone(), src, loc),
        }
        p
    }

    /// Arithmetic, bitwise, comparison and pointer arithmetic. Pointer ± integer is the pointer
    /// (offset forgotten); everything else is `Opaque` of the flattened leaf operands, folded to a
    /// constant when all leaves are constants. A bitwise expression whose operators say something
    /// of its bits (`flags | F`) is stored here, into `want`'s place or a temporary, so that its
    /// statement carries the `Bits`.
    fn arith(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let sum =
            e.kind() == CXCursor_BinaryOperator && matches!(e.binop(), CXBinaryOperator_Add | CXBinaryOperator_Sub);
        // In a template, `a + 1` of a `T *a` has a dependent type, not a pointer's: it is still
        // the pointer moved (not `p - q`, an integer).
        let dependent = sum && self.in_template && clang::canonical(e.ty()).kind == CXType_Dependent;
        if sum && (dependent || e.type_class() == TypeClass::Pointer) {
            let kids = self.kids(e);
            if let (Some(&l), Some(&r)) = (kids.first(), kids.get(1)) {
                let is_ptr = |c: Cursor| matches!(c.type_class(), TypeClass::Pointer | TypeClass::Array);
                if dependent && is_ptr(l) == is_ptr(r) {
                    // Neither operand a pointer, or a difference of two: arithmetic.
                } else if is_ptr(l) {
                    let rv = self.rvalue(l);
                    self.effect(r);
                    return Some(rv);
                } else {
                    self.effect(l);
                    return Some(self.rvalue(r));
                }
            }
        }
        let mut ops = Vec::new();
        let bits = self.collect_operands(e, &mut ops);
        if !ops.is_empty() && ops.iter().all(|o| matches!(o, Operand::Const(_))) {
            if let Some(v) = e.eval_int() {
                return Some(use_(Operand::Const(v)));
            }
        }
        let rv = Rvalue::Opaque(ops);
        if bits == Bits::UNKNOWN || bit_op(e).is_none() {
            return Some(rv);
        }
        let loc = self.loc(e);
        match want {
            Want::Effect => Some(rv),
            Want::Into(dst) => {
                self.assign_bits(dst, rv, bits, loc);
                None
            }
            Want::Value => {
                let t = self.new_temp(e.type_class(), loc);
                self.assign_bits(Place::Local(t), rv, bits, loc);
                Some(use_(Operand::Place(Place::Local(t))))
            }
        }
    }

    /// Push the leaf operands of arithmetic node `e` onto `ops`, and return what its bitwise
    /// operators say of its value's bits.
    fn collect_operands(&mut self, e: Cursor, ops: &mut Vec<Operand>) -> Bits {
        let first = ops.len();
        let mut kids = Vec::with_capacity(2);
        for k in self.kids(e) {
            let s = self.strip(k);
            if is_arith_node(s) {
                kids.push(self.collect_operands(s, ops));
            } else {
                let mut op = self.expr(s);
                // `p->flags & F`: the word is read into a temporary, whose bits the result keeps,
                // so that the test is one of bits of a local copied from a place (the checker
                // ties two copies of an unchanged place: `FnCx::copied_place`). Without it
                // `p->flags & F` and `~p->flags & F` would both be "bits of F, unknown".
                if matches!(bit_op(e), Some(BitOp::And))
                    && matches!(op, Operand::Place(Place::Deref(_) | Place::Field(..)))
                    && matches!(s.type_class(), TypeClass::Other)
                {
                    let loc = self.loc(s);
                    let t = self.new_temp(TypeClass::Other, loc);
                    self.assign(Place::Local(t), use_(op), loc);
                    op = Operand::Place(Place::Local(t));
                }
                kids.push(self.leaf_bits(s, &op));
                ops.push(op);
            }
        }
        match (bit_op(e), &kids[..]) {
            (Some(BitOp::Or), &[a, b]) => Bits::or(a, b),
            (Some(BitOp::And), &[a, b]) => Bits::and(a, b),
            (Some(BitOp::Not), &[a]) => Bits::not(a),
            // `1 << 3` inside `flags | 1 << 3`.
            _ if ops[first..].iter().all(|o| matches!(o, Operand::Const(_))) => {
                e.eval_int().map_or(Bits::UNKNOWN, Bits::constant)
            }
            _ => Bits::UNKNOWN,
        }
    }

    /// The bits of a leaf operand `op` of a bitwise expression, lowered from `s`: a constant's,
    /// a local's own, or those both constant arms of a `?:` agree on (`c ? F : 0`).
    fn leaf_bits(&self, s: Cursor, op: &Operand) -> Bits {
        match op {
            Operand::Const(k) => Bits::constant(*k),
            Operand::Place(Place::Local(l)) => {
                let s = self.strip(s);
                if s.kind() == CXCursor_ConditionalOperator {
                    let arms: Vec<Option<i64>> =
                        self.kids(s).into_iter().filter(|c| c.is_expression()).skip(1).map(|c| c.eval_int()).collect();
                    if let [Some(a), Some(b)] = arms[..] {
                        return Bits { base: None, from_base: 0, ones: a & b, zeros: !a & !b };
                    }
                }
                Bits::local(*l)
            }
            _ => Bits::UNKNOWN,
        }
    }

    /// `&&`, `||`, `!` outside a condition: branches that store 1 or 0.
    fn logical(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let loc = self.loc(e);
        match want {
            Want::Effect => {
                let kids = self.kids(e);
                if e.kind() == CXCursor_UnaryOperator {
                    for k in kids {
                        self.effect(k);
                    }
                    return None;
                }
                let (Some(&l), Some(&r)) = (kids.first(), kids.get(1)) else { return None };
                let rhs_b = self.new_block();
                let join = self.new_block();
                if e.binop() == CXBinaryOperator_LAnd {
                    self.cond(l, rhs_b, join);
                } else {
                    self.cond(l, join, rhs_b);
                }
                self.enter(rhs_b, loc);
                self.effect(r);
                self.enter(join, loc);
                None
            }
            Want::Value => {
                let t = self.new_temp(TypeClass::Other, loc);
                self.bool_into(Place::Local(t), e, loc);
                Some(use_(Operand::Place(Place::Local(t))))
            }
            Want::Into(dst) => {
                self.bool_into(dst, e, loc);
                None
            }
        }
    }

    /// The variable or parameter of the function that `p` is (not a temporary, not memory): one
    /// that may keep a test's truth.
    fn truth_variable(&self, p: &Place) -> Option<LocalId> {
        match p {
            Place::Local(x) if self.locals[x.index()].kind != LocalKind::Temp => Some(*x),
            _ => None,
        }
    }

    /// `p` is a variable (`truth_variable`) or a place in memory: not a temporary, whose one
    /// use is the expression it was made for.
    fn keeps_truth(&self, p: &Place) -> bool {
        !matches!(p, Place::Local(x) if self.locals[x.index()].kind == LocalKind::Temp)
    }

    fn bool_into(&mut self, dst: Place, e: Cursor, loc: Loc) {
        let tb = self.new_block();
        let fb = self.new_block();
        let join = self.new_block();
        self.cond(e, tb, fb);
        self.enter(tb, loc);
        self.assign(dst.clone(), use_(Operand::Const(1)), loc);
        self.goto(join, loc);
        self.enter(fb, loc);
        self.assign(dst, use_(Operand::Const(0)), loc);
        self.enter(join, loc);
    }

    /// Where the arms of a `?:` put their value, and what the whole expression returns.
    fn join_target(&mut self, e: Cursor, want: Want) -> (Want, Option<Rvalue>) {
        match want {
            Want::Value => {
                let class = e.type_class();
                if class == TypeClass::Void {
                    return (Want::Effect, None);
                }
                let loc = self.loc(e);
                let t = self.new_temp_of(class, e.ty(), loc);
                (Want::Into(Place::Local(t)), Some(self.local_value(t)))
            }
            other => (other, None),
        }
    }

    fn deliver(&mut self, e: Cursor, want: &Want) {
        match want {
            Want::Into(d) => {
                let loc = self.loc(e);
                self.assign_to(d.clone(), e, loc);
            }
            _ => self.effect(e),
        }
    }

    fn ternary(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let kids: Vec<Cursor> = self.kids(e).into_iter().filter(|c| c.is_expression()).collect();
        let [c, a, b] = kids[..] else {
            let loc = self.loc(e);
            self.note(loc, "malformed `?:` lowered as an unknown value");
            return Some(use_(Operand::Unknown));
        };
        let loc = self.loc(e);
        let (arm, result) = self.join_target(e, want);
        let ba = self.new_block();
        let bb = self.new_block();
        let join = self.new_block();
        self.cond(c, ba, bb);
        self.enter(ba, loc);
        self.deliver(a, &arm);
        self.goto(join, loc);
        self.enter(bb, loc);
        self.deliver(b, &arm);
        self.enter(join, loc);
        result
    }

    /// GNU `x ?: y`: `x` is evaluated once and is the value when it is non-zero.
    fn elvis(&mut self, e: Cursor, common: Cursor, other: Cursor, want: Want) -> Option<Rvalue> {
        let loc = self.loc(e);
        let v = self.expr(common);
        let (arm, result) = self.join_target(e, want);
        let tb = self.new_block();
        let fb = self.new_block();
        let join = self.new_block();
        self.branch(CondKind::Truthy(v.clone()), tb, fb, common, false);
        self.enter(tb, loc);
        if let Want::Into(d) = &arm {
            self.assign(d.clone(), use_(v), loc);
        }
        self.goto(join, loc);
        self.enter(fb, loc);
        self.deliver(other, &arm);
        self.enter(join, loc);
        result
    }

    /// GNU statement expression `({ s1; s2; v; })`: the value is the last expression statement.
    fn stmt_expr(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let Some(body) = self.kids(e).into_iter().find(|c| c.kind() == CXCursor_CompoundStmt) else {
            return Some(use_(Operand::Unknown));
        };
        let items = self.kids(body);
        let Some((&last, init)) = items.split_last() else { return Some(use_(Operand::Unknown)) };
        for s in init {
            self.stmt(*s);
        }
        if !last.is_expression() {
            self.stmt(last);
            return Some(use_(Operand::Unknown));
        }
        match want {
            Want::Effect => {
                self.effect(last);
                None
            }
            Want::Into(d) => {
                let loc = self.loc(last);
                self.assign_to(d, last, loc);
                None
            }
            Want::Value => Some(self.rvalue(last)),
        }
    }

    /// Expressions libclang does not expose: implicit casts are stripped before we get here, so
    /// this is GNU `?:` with an omitted middle, `__builtin_choose_expr`, `offsetof`, `va_arg`, …
    fn unexposed(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let kids = self.kids(e);
        // BinaryConditionalOperator: [common, cond (opaque), true (opaque), false].
        if let [common, _, t, f] = kids[..] {
            if common.same_extent(t) {
                return self.elvis(e, common, f, want);
            }
        }
        if let [c, a, b] = kids[..] {
            if let Some(v) = c.eval_int() {
                return self.lower(if v != 0 { a } else { b }, want);
            }
        }
        if let Some(v) = e.eval_int() {
            return Some(use_(Operand::Const(v)));
        }
        if kids.is_empty() {
            return Some(use_(Operand::Unknown));
        }
        let loc = self.loc(e);
        let ident = self.cx.spelled_ident(e).unwrap_or_default();
        if ident.starts_with("__atomic_") || ident.starts_with("__c11_atomic_") || ident.starts_with("__opencl_atomic_")
        {
            // An AtomicExpr: lower it like a call of the builtin, so pointers passed to it escape
            // and its result is a call result.
            let mut args = Vec::new();
            for k in kids {
                if k.is_expression() {
                    args.push(self.expr(k));
                }
            }
            let callee = Callee::Direct { usr: format!("c:@F@{ident}"), name: ident, const_args: 0 };
            return self.emit_call(e, callee, args, want, loc);
        }
        if self.in_template {
            // A dependent construction (`T x (p)`, `std::unique_ptr<T> u (p)`) or operation.
            self.not_analysed(e, "dependent expression");
            return Some(use_(Operand::Unknown));
        }
        let text = self.cx.text_of(e).unwrap_or_else(|| ident.clone());
        self.note(loc, format!("unsupported expression `{text}` lowered as an unknown value"));
        for k in kids {
            if k.is_expression() {
                self.effect(k);
            }
        }
        Some(use_(Operand::Unknown))
    }

    /// C11 `_Generic(ctrl, T1: e1, …)`: libclang does not say which association was chosen, but
    /// the selection has the chosen expression's type; take the first association of that type.
    fn generic_selection(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let ty = e.ty();
        let kids: Vec<Cursor> = self.kids(e).into_iter().filter(|c| c.is_expression()).collect();
        if let Some(chosen) = kids.iter().skip(1).find(|k| clang::same_type(k.ty(), ty)) {
            return self.lower(*chosen, want);
        }
        if let Some(v) = e.eval_int() {
            return Some(use_(Operand::Const(v)));
        }
        let loc = self.loc(e);
        self.note(loc, "`_Generic` selection not resolved; lowered as an unknown value");
        Some(use_(Operand::Unknown))
    }

    /// If `e` is `__builtin_expect(x, c)`, return `x`.
    fn expect_arg(&mut self, e: Cursor) -> Option<Cursor> {
        let callee = self.strip(self.kids(e).into_iter().next()?);
        let d = callee.referenced().filter(|d| d.kind() == CXCursor_FunctionDecl)?;
        if self.cx.callee_info(d).builtin != Builtin::Expect {
            return None;
        }
        e.arg(0).map(|a| self.cx.tree.among_kids(e, a))
    }

    fn call(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        if self.cx.cpp {
            if let Some(r) = self.cpp_call(e, &want) {
                return r;
            }
            // A construction libclang names no constructor for, with the object as its one
            // operand: C++11/14's elidable copy of a returned or materialised temporary
            // (`return make ();`). The object is the operand's, built once.
            let kids = self.kids(e);
            if let ([inner], 1) = (kids.as_slice(), e.num_args()) {
                if clang::classify(clang::canonical(e.ty())) == TypeClass::Record {
                    return self.lower(*inner, want);
                }
            }
        }
        let kids = self.kids(e);
        let owned_args: Vec<Cursor>;
        let Some(&callee_c) = kids.first() else { return Some(use_(Operand::Unknown)) };
        let callee_s = strip_callee(&self.cx.tree, callee_c);
        let info = if callee_s.kind() == CXCursor_DeclRefExpr {
            callee_s.referenced().filter(|d| d.kind() == CXCursor_FunctionDecl).map(|d| self.cx.callee_info(d))
        } else {
            None
        };
        if info.is_none() && self.in_template {
            // A call of a dependent name (`c.clear ()`, `helper (p)` among overloads): what it
            // calls depends on the instantiation.
            self.not_analysed(e, "dependent call");
            return Some(use_(Operand::Unknown));
        }
        let n = e.num_args();
        let arg_cursors: &[Cursor] = if n >= 0 && kids.len() != n as usize + 1 {
            // As the tree holds them, so that lowering them asks it by slot.
            let t = &self.cx.tree;
            owned_args = (0..n as u32).filter_map(|i| e.arg(i)).map(|a| t.among_kids(e, a)).collect();
            &owned_args
        } else {
            // A C call's children are its callee and then its arguments, in order: when they
            // are all there, they are the arguments libclang would return one by one. (C++
            // must revisit this: an overloaded operator's call lists its callee between the
            // operands, and default arguments are not children.)
            &kids[1..]
        };
        if let Some(i) = &info {
            match i.builtin {
                Builtin::Expect => {
                    let Some((&first, rest)) = arg_cursors.split_first() else { return Some(use_(Operand::Unknown)) };
                    let r = self.lower(first, want);
                    for a in rest {
                        self.effect(*a);
                    }
                    return r;
                }
                Builtin::Unreachable => {
                    let loc = self.loc(e);
                    self.terminate(Terminator::NoReturn, loc);
                    return match want {
                        Want::Value => Some(use_(Operand::Unknown)),
                        _ => None,
                    };
                }
                Builtin::None => {}
            }
        }
        // Not before: `__builtin_expect` is no call and needs no location.
        let loc = self.loc(e);
        let callee = match &info {
            Some(i) => {
                // What the prototype the call sees promises, unless a function goes along with
                // the arguments (a callback may be the destructor of a block the callee keeps).
                // Behind casts too: `(void *) release` is still the destructor.
                let is_function = |c: Cursor| {
                    let t = clang::canonical(c.ty());
                    clang::is_function_pointer(t) || matches!(t.kind, CXType_FunctionProto | CXType_FunctionNoProto)
                };
                let passes_function = arg_cursors.iter().any(|&a| is_function(a) || is_function(self.strip(a)));
                let const_args =
                    if passes_function { 0 } else { clang::const_pointer_params(clang::function_type(callee_s.ty())) };
                Callee::Direct { name: i.name.clone(), usr: i.usr.clone(), const_args }
            }
            None => {
                let sig = self.cx.type_spelling(clang::function_type(callee_s.ty())).to_string();
                // `x.f(…)`, `p->f(…)`, `hook(…)`: the targets may be known from what is stored
                // into `f` or `hook`.
                let field = self.cx.member_field_key(callee_s).or_else(|| self.cx.var_ref_key(callee_s));
                Callee::Indirect { target: self.expr(callee_s), sig, field }
            }
        };
        let mut args = Vec::with_capacity(arg_cursors.len());
        for &a in arg_cursors {
            args.push(self.expr(a));
        }
        let noreturn = info.is_some_and(|i| i.noreturn);
        let result = self.emit_call(e, callee, args, want, loc);
        if noreturn {
            self.terminate(Terminator::NoReturn, loc);
        }
        result
    }

    /// Emit the call statement; its result goes where `want` says.
    pub fn emit_call(&mut self, e: Cursor, callee: Callee, args: Vec<Operand>, want: Want, loc: Loc) -> Option<Rvalue> {
        let (dst, result) = match want {
            Want::Effect => (None, None),
            Want::Into(d) => (Some(d), None),
            Want::Value => {
                let class = e.type_class();
                if class == TypeClass::Void {
                    (None, Some(use_(Operand::Unknown)))
                } else {
                    let t = self.new_temp_of(class, e.ty(), loc);
                    (Some(Place::Local(t)), Some(self.local_value(t)))
                }
            }
        };
        self.emit(Stmt::Call { dst, callee, args }, loc);
        result
    }

    // ---- conditions ----

    /// Lower `e` as a branch condition: jump to `t` when it holds, `f` otherwise. Ends the
    /// current block.
    pub fn cond(&mut self, e: Cursor, t: BlockId, f: BlockId) {
        self.cond_at(e, t, f, None);
    }

    /// `text` is the outermost cursor of the current atom (`!`, parentheses and
    /// `__builtin_expect` around it belong to its text: `!p`, `unlikely(!p)`) and whether the
    /// targets were swapped since it (an odd number of `!`), so that the text holds on `f`.
    fn cond_at(&mut self, e0: Cursor, t: BlockId, f: BlockId, text: Option<(Cursor, bool)>) {
        let (text_c, neg) = text.unwrap_or((e0, false));
        let e = self.strip(e0);
        match e.kind() {
            CXCursor_CallExpr => {
                if let Some(x) = self.expect_arg(e) {
                    return self.cond_at(x, t, f, Some((text_c, neg)));
                }
                if self.cx.cpp {
                    if let Some(count) = self.container_empty(e) {
                        return self.branch(CondKind::Truthy(count), f, t, text_c, !neg);
                    }
                    if !self.iterators.is_empty() {
                        if let Some((kind, eq)) = self.iterator_test(e) {
                            return if eq {
                                self.branch(kind, f, t, text_c, !neg)
                            } else {
                                self.branch(kind, t, f, text_c, neg)
                            };
                        }
                    }
                }
            }
            CXCursor_UnaryOperator if e.unop() == CXUnaryOperator_LNot => {
                if let Some(x) = self.kids(e).into_iter().next() {
                    return self.cond_at(x, f, t, Some((text_c, !neg)));
                }
            }
            CXCursor_BinaryOperator => {
                let kids = self.kids(e);
                if let (Some(&l), Some(&r)) = (kids.first(), kids.get(1)) {
                    let op = e.binop();
                    // `x != 0` tests `x`, `x == 0` tests `!x`, whatever `x` is: lowering `x` as a
                    // condition keeps `(a && b) != 0` a pair of branches.
                    if matches!(op, CXBinaryOperator_EQ | CXBinaryOperator_NE) {
                        let tested = if is_zero_literal(self.cx, r) {
                            Some(l)
                        } else if is_zero_literal(self.cx, l) {
                            Some(r)
                        } else {
                            None
                        };
                        if let Some(x) = tested {
                            let swap = op == CXBinaryOperator_EQ;
                            let (t, f) = if swap { (f, t) } else { (t, f) };
                            return self.cond_at(x, t, f, Some((text_c, neg ^ swap)));
                        }
                    }
                    match op {
                        CXBinaryOperator_LAnd | CXBinaryOperator_LOr => {
                            let loc = self.loc(e);
                            let mid = self.new_block();
                            if op == CXBinaryOperator_LAnd {
                                self.cond_at(l, mid, f, None);
                            } else {
                                self.cond_at(l, t, mid, None);
                            }
                            self.enter(mid, loc);
                            return self.cond_at(r, t, f, None);
                        }
                        CXBinaryOperator_Comma => {
                            self.effect(l);
                            return self.cond_at(r, t, f, None);
                        }
                        _ if (CXBinaryOperator_LT..=CXBinaryOperator_NE).contains(&op) => {
                            let lo = self.expr(l);
                            let ro = self.expr(r);
                            let elems = match (&lo, &ro) {
                                (Operand::Place(p), Operand::Const(_)) => self.elem_indices(l, p),
                                (Operand::Const(_), Operand::Place(p)) => self.elem_indices(r, p),
                                _ => None,
                            };
                            let (kind, swap) = cmp_cond(op, lo, ro);
                            let (t, f) = if swap { (f, t) } else { (t, f) };
                            self.note_elems(elems);
                            return self.branch(kind, t, f, text_c, neg ^ swap);
                        }
                        _ => {}
                    }
                }
            }
            CXCursor_ConditionalOperator => {
                let kids: Vec<Cursor> = self.kids(e).into_iter().filter(|c| c.is_expression()).collect();
                if let [c, a, b] = kids[..] {
                    let loc = self.loc(e);
                    let ba = self.new_block();
                    let bb = self.new_block();
                    self.cond_at(c, ba, bb, None);
                    self.enter(ba, loc);
                    self.cond_at(a, t, f, None);
                    self.enter(bb, loc);
                    return self.cond_at(b, t, f, None);
                }
            }
            _ => {}
        }
        let is_float = e.type_class() == TypeClass::Float;
        let v = self.expr(e);
        if let (Operand::Place(p), false) = (&v, is_float) {
            let elems = self.elem_indices(e, p);
            self.note_elems(elems);
        }
        let kind = if is_float || v == Operand::Unknown { CondKind::Opaque } else { CondKind::Truthy(v) };
        self.branch(kind, t, f, text_c, neg);
    }

    /// The constant index of each element step of `place`, the lowering of the lvalue `e`, root
    /// first, when some index is a literal (`s[2]`, `p->v[0][i]`, `*arr` for an array `arr`):
    /// what `Place::Index` forgets. `None` when no index is, or when the expression's steps and
    /// the place's do not line up (then nothing is claimed).
    fn elem_indices(&self, e: Cursor, place: &Place) -> Option<Vec<Option<i64>>> {
        fn steps(p: &Place) -> usize {
            match p {
                Place::Local(_) | Place::Global(_) => 0,
                Place::Deref(q) | Place::Field(q, _) => steps(q),
                Place::Index(q) => 1 + steps(q),
            }
        }
        let want = steps(place);
        if want == 0 {
            return None;
        }
        // Outermost step first, as the expression nests.
        let mut found: Vec<Option<i64>> = Vec::new();
        let mut c = self.strip(e);
        loop {
            match c.kind() {
                CXCursor_ArraySubscriptExpr => {
                    let kids = self.kids(c);
                    let (Some(&a), Some(&b)) = (kids.first(), kids.get(1)) else { return None };
                    let (base, idx) =
                        if matches!(a.type_class(), TypeClass::Pointer | TypeClass::Array) { (a, b) } else { (b, a) };
                    let idx = self.strip(idx);
                    let k = match idx.kind() {
                        CXCursor_IntegerLiteral | CXCursor_CharacterLiteral => self.cx.literal_value(idx),
                        _ => None,
                    };
                    found.push(k);
                    c = self.strip(base);
                }
                CXCursor_MemberRefExpr => match self.kids(c).into_iter().next() {
                    Some(base) => c = self.strip(base),
                    None => break,
                },
                CXCursor_UnaryOperator if c.unop() == CXUnaryOperator_Deref => {
                    let inner = self.kids(c).into_iter().next()?;
                    let inner = self.strip(inner);
                    if inner.type_class() == TypeClass::Array {
                        // `*arr` is `arr[0]`.
                        found.push(Some(0));
                    }
                    c = inner;
                }
                _ => break,
            }
        }
        if found.len() != want || found.iter().all(Option::is_none) {
            return None;
        }
        found.reverse();
        Some(found)
    }

    /// Record what `elem_indices` found for the branch that ends the current block.
    fn note_elems(&mut self, elems: Option<Vec<Option<i64>>>) {
        if let (Some(elems), Some(b)) = (elems, self.cur) {
            self.tested_elems.push((b, elems));
        }
    }

    /// End the block with a branch on `kind`, or a `Goto` when the condition is constant.
    /// `text_on_else`: the source text of `text_c` holds on the `f` edge.
    fn branch(&mut self, kind: CondKind, t: BlockId, f: BlockId, text_c: Cursor, text_on_else: bool) {
        let loc = self.loc(text_c);
        let folded = match &kind {
            CondKind::Truthy(Operand::Const(c)) => Some(*c != 0),
            CondKind::Truthy(Operand::Str) | CondKind::Truthy(Operand::Func { .. }) => Some(true),
            CondKind::Cmp(op, Operand::Const(a), Operand::Const(b)) => Some(op.eval(*a, *b)),
            _ => None,
        };
        if let Some(v) = folded {
            self.goto(if v { t } else { f }, loc);
            return;
        }
        let text = self.cx.text_of(text_c).unwrap_or_else(|| text_c.spelling());
        self.terminate(Terminator::Branch { cond: Cond { kind, text, text_on_else }, then_: t, else_: f }, loc);
    }
}

/// `0`, `'\0'`, `NULL` (`((void *)0)`, `__null`, `nullptr`): a zero written as a literal, so
/// recognising it needs no lowering.
fn is_zero_literal(cx: &TuCtx, e: Cursor) -> bool {
    let s = cx.strip(e);
    match s.kind() {
        CXCursor_IntegerLiteral | CXCursor_CharacterLiteral => cx.literal_value(s) == Some(0),
        CXCursor_GNUNullExpr | CXCursor_CXXNullPtrLiteralExpr => true,
        _ => false,
    }
}

/// Peel what does not change which function is called: casts, `*fp`, `&f`.
fn strip_callee(t: &Tree, c: Cursor) -> Cursor {
    let mut s = strip_plain(t, c);
    loop {
        if s.kind() != CXCursor_UnaryOperator {
            return s;
        }
        let Some(k) = t.kids(s).next() else { return s };
        let through = match s.unop() {
            CXUnaryOperator_Deref => s.type_class() == TypeClass::Function,
            CXUnaryOperator_AddrOf => k.type_class() == TypeClass::Function,
            _ => false,
        };
        if !through {
            return s;
        }
        s = strip_plain(t, k);
    }
}

/// `x == 0`, `0 != x`, … become `Truthy(x)` (swapped for `==`); other comparisons stay `Cmp`.
/// Returns the condition and whether the branch targets must be swapped.
fn cmp_cond(op: CXBinaryOperatorKind, l: Operand, r: Operand) -> (CondKind, bool) {
    let eq = op == CXBinaryOperator_EQ;
    if eq || op == CXBinaryOperator_NE {
        if r.is_null_const() && !l.is_null_const() {
            return (truthy(l), eq);
        }
        if l.is_null_const() && !r.is_null_const() {
            return (truthy(r), eq);
        }
    }
    if l == Operand::Unknown || r == Operand::Unknown {
        return (CondKind::Opaque, false);
    }
    let cmp = match op {
        CXBinaryOperator_EQ => CmpOp::Eq,
        CXBinaryOperator_NE => CmpOp::Ne,
        CXBinaryOperator_LT => CmpOp::Lt,
        CXBinaryOperator_LE => CmpOp::Le,
        CXBinaryOperator_GT => CmpOp::Gt,
        _ => CmpOp::Ge,
    };
    (CondKind::Cmp(cmp, l, r), false)
}

fn truthy(v: Operand) -> CondKind {
    if v == Operand::Unknown {
        CondKind::Opaque
    } else {
        CondKind::Truthy(v)
    }
}

/// The place of member `name` of the object at `inner`. The members of a union are one place,
/// the union's (`rec->u.ref` and `rec->u.log` are both `rec->u`): they share their storage, so
/// a store to one overwrites the others, and a function handing out `&rec->u.ref` or
/// `&rec->u.log` by the record's type hands out one address. A union that is itself a variable
/// (`v.s` of `union { char *s; long n; } v`) keeps its member's name: the variable is
/// storage, not a slot.
pub fn union_member(inner: Place, name: String, in_union: bool) -> Place {
    if in_union && !matches!(inner, Place::Local(_) | Place::Global(_)) {
        return inner;
    }
    Place::Field(Box::new(inner), name)
}
