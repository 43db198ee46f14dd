//! Lowering of initialisers: `T x = e;`, `{…}` lists (with designators) and compound literals.
//!
//! Input: a declaration's initializer cursor and the declared type. Output: assignments into the
//! new object.
//! Invariants: an aggregate initialised from a list first becomes `Opaque` as a whole (fields not
//! named are zero), then each element that is not a plain constant is stored into its field
//! (`Field(dst, f)`) or element (`Index(dst)`), so constant tables cost one statement.

#![allow(non_upper_case_globals)]

use clang_sys::*;

use super::clang::{self, classify, Cursor, TypeClass};
use super::expr::union_member;
use super::lower::Lowerer;
use crate::ir::*;

/// A constant an initialiser list element can leave to the zero/opaque fill of the aggregate.
fn is_const_leaf(s: Cursor) -> bool {
    match s.kind() {
        CXCursor_IntegerLiteral
        | CXCursor_CharacterLiteral
        | CXCursor_FloatingLiteral
        | CXCursor_ImaginaryLiteral
        | CXCursor_GNUNullExpr
        | CXCursor_CXXNullPtrLiteralExpr
        | CXCursor_CXXBoolLiteralExpr
        | CXCursor_UnaryExpr => true,
        CXCursor_BinaryOperator | CXCursor_UnaryOperator => s.eval_int().is_some(),
        _ => false,
    }
}

impl Lowerer<'_, '_, '_> {
    /// Initialise a freshly declared variable (or compound literal) `dst` of type `ty`.
    pub fn init_var(&mut self, dst: Place, init: Cursor, ty: CXType, loc: Loc) {
        let s = self.strip(init);
        match s.kind() {
            CXCursor_InitListExpr => self.init_list(dst, s, ty),
            CXCursor_StringLiteral if classify(ty) == TypeClass::Array => {
                self.assign(dst, Rvalue::Opaque(Vec::new()), loc);
            }
            _ => self.assign_to(dst, s, loc),
        }
    }

    /// `{…}` into an aggregate: the whole object first becomes `Opaque` (everything not named is
    /// zero), then every element that is not a plain constant is stored into its field
    /// (`Field(dst, f)`) or element (`Index(dst)`). Designators are followed.
    pub fn init_list(&mut self, dst: Place, e: Cursor, ty: CXType) {
        let loc = self.loc(e);
        let class = classify(ty);
        let elems: Vec<Cursor> = self.kids(e).into_iter().filter(|c| c.is_expression()).collect();
        if !matches!(class, TypeClass::Array | TypeClass::Record) {
            // A scalar in braces: `int x = {5};`.
            let mut it = elems.into_iter();
            if let Some(first) = it.next() {
                self.init_var(dst, first, ty, loc);
            }
            for rest in it {
                self.effect(rest);
            }
            return;
        }
        self.assign(dst.clone(), Rvalue::Opaque(Vec::new()), loc);
        let fields = if class == TypeClass::Record { clang::record_fields(ty) } else { Vec::new() };
        let elem_ty = if class == TypeClass::Array { clang::array_element(ty) } else { ty };
        let mut pos = 0usize;
        let mut elided = false;
        for el in elems {
            let designated = el.kind() == CXCursor_UnexposedExpr && el.type_class() == TypeClass::Void;
            let (place, pty, value) = if designated {
                let kids = self.kids(el);
                let Some((&value, desig)) = kids.split_last() else {
                    continue;
                };
                let mut place = dst.clone();
                let mut t = ty;
                for (i, d) in desig.iter().enumerate() {
                    if d.kind() == CXCursor_MemberRef {
                        let name = d.spelling();
                        let fs = clang::record_fields(t);
                        let idx = fs.iter().position(|f| f.0 == name);
                        if i == 0 {
                            pos = idx.map_or(pos, |k| k + 1);
                        }
                        let in_union = is_union(t);
                        t = idx.and_then(|k| fs.get(k)).map_or(t, |f| f.1);
                        place = union_member(place, name, in_union);
                    } else {
                        if i == 0 {
                            pos = d.eval_int().map_or(pos, |k| k.max(0) as usize + 1);
                        }
                        t = clang::array_element(t);
                        place = Place::Index(Box::new(place));
                    }
                }
                (place, t, value)
            } else if class == TypeClass::Record {
                let (name, fty) = match fields.get(pos) {
                    Some((n, ft)) => (n.clone(), *ft),
                    None => {
                        elided = true;
                        (fields.last().map(|f| f.0.clone()).unwrap_or_default(), ty)
                    }
                };
                pos += 1;
                (union_member(dst.clone(), name, is_union(ty)), fty, el)
            } else {
                pos += 1;
                (Place::Index(Box::new(dst.clone())), elem_ty, el)
            };
            self.init_elem(place, pty, value);
        }
        if elided {
            self.note(loc, "initializer with elided braces: some fields may be misattributed");
        }
    }

    fn init_elem(&mut self, place: Place, ty: CXType, value: Cursor) {
        let s = self.strip(value);
        if s.kind() == CXCursor_InitListExpr {
            return self.init_list(place, s, ty);
        }
        if is_const_leaf(s) || (s.kind() == CXCursor_StringLiteral && classify(ty) == TypeClass::Array) {
            return;
        }
        let loc = self.loc(s);
        self.assign_to(place, s, loc);
    }

    /// `(T){…}`: a temporary initialised from the list.
    pub fn compound_literal(&mut self, e: Cursor) -> LocalId {
        let loc = self.loc(e);
        let t = self.new_temp(e.type_class(), loc);
        if let Some(init) = self.kids(e).into_iter().rev().find(|c| c.kind() == CXCursor_InitListExpr) {
            self.init_list(Place::Local(t), init, e.ty());
        }
        t
    }
}

/// `t` is a union type (its members are one place: `expr::union_member`).
fn is_union(t: CXType) -> bool {
    clang::type_declaration(t).is_some_and(|d| d.kind() == CXCursor_UnionDecl)
}
