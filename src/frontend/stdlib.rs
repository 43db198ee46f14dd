//! The C++ standard library's owners, by their contracts rather than by libstdc++'s template
//! bodies (which libclang shows uninstantiated).
//!
//! Input: calls (cursors) whose callee is a method of `std::unique_ptr`, or one of the function
//! templates `std::make_unique`, `std::move`, `std::forward`; the types of locals and members.
//! Output: IR statements made of what C already has: a `std::unique_ptr<T>` (with the default
//! deleter) is an object with one pointer field, `OWNED`, and a destructor drip writes
//! (`lower::lower_owner_dtor`) that deletes what the field holds, as `delete p` (or `delete[] p`
//! for `T[]`) does. Its constructors, `release`, `reset`, `get`, `swap`, moves and operators
//! are loads and stores of the field plus that delete, so leaks (`u.release();` dropped) and
//! double frees (`delete u.get();` before the scope ends) are found by the ordinary analysis.
//! Invariants:
//! - Only a class of a system header in namespace `std` (or an inline namespace inside it) is
//!   modelled, and `unique_ptr` only with `std::default_delete`: a custom deleter keeps the
//!   class opaque (what it is given escapes), since the deleter may do anything.
//! - A method not listed here (`get_deleter`, comparisons) is a call with no body: what it is
//!   given escapes; it never frees.
//! - `std::string` dies trivially for drip (its buffer is never the program's block), so a class
//!   holding one is followed; its methods are calls with no body (what they are given escapes).
//! - Not modelled, so escaping as before: `std::shared_ptr`/`make_shared` (reference counted;
//!   cycles of owners are not detected), the containers (a container of raw
//!   pointers does not free its elements, which drip misses), `std::function`.

#![allow(non_upper_case_globals)]

use clang_sys::*;

use super::clang::{self, Cursor, TypeClass};
use super::expr::Want;
use super::lower::Lowerer;
use crate::ir::*;

/// The field of an owner object that holds the pointer it owns. Not a C++ identifier, so no
/// field of the program shares it.
pub const OWNED: &str = "(owned)";

/// Whether `decl` is declared in namespace `std` (through inline namespaces such as libc++'s
/// `__1`) of a system header.
fn in_std(decl: Cursor) -> bool {
    if !decl.is_in_system_header() {
        return false;
    }
    let mut p = decl.semantic_parent();
    let mut std = false;
    while let Some(c) = p {
        match c.kind() {
            CXCursor_Namespace => std = c.spelling() == "std",
            CXCursor_TranslationUnit => return std,
            _ => return false,
        }
        p = c.semantic_parent();
    }
    false
}

/// What a `std::unique_ptr<T, std::default_delete<T>>` owns: `T`, and whether `T` is an array
/// (`T[]`, freed by `delete[]`, whose element type is returned).
pub fn unique_ptr(ty: CXType) -> Option<(CXType, bool)> {
    let c = clang::canonical(ty);
    if c.kind != CXType_Record {
        return None;
    }
    let decl = clang::type_declaration(c)?;
    if decl.spelling() != "unique_ptr" || !in_std(decl) {
        return None;
    }
    // SAFETY: plain FFI on a type value.
    let (n, t, d) = unsafe {
        (
            clang_Type_getNumTemplateArguments(c),
            clang_Type_getTemplateArgumentAsType(c, 0),
            clang_Type_getTemplateArgumentAsType(c, 1),
        )
    };
    if n != 2 {
        return None;
    }
    let deleter = clang::type_declaration(clang::canonical(d))?;
    if deleter.spelling() != "default_delete" || !in_std(deleter) {
        return None;
    }
    let t = clang::canonical(t);
    match t.kind {
        CXType_Invalid => None,
        CXType_IncompleteArray => Some((clang::array_element(t), true)),
        _ => Some((t, false)),
    }
}

/// Whether `ty` is a `std::basic_string` (`std::string`, `std::wstring`): it owns only its own
/// buffer, which the program never sees, so its death releases nothing drip follows.
pub fn string(ty: CXType) -> bool {
    let c = clang::canonical(ty);
    c.kind == CXType_Record && clang::type_declaration(c).is_some_and(|d| d.spelling() == "basic_string" && in_std(d))
}

/// The std function template `decl` specializes, by name (`move`, `make_unique`).
fn std_function(decl: Cursor) -> Option<String> {
    if decl.kind() != CXCursor_FunctionDecl || !in_std(decl) {
        return None;
    }
    Some(decl.spelling())
}

impl Lowerer<'_, '_, '_> {
    /// The lowering of a call of the modelled standard library (`decl` its callee; `object` as
    /// in `cpp_call_on`), or `None` when `decl` is not modelled.
    pub(super) fn std_call(
        &mut self,
        e: Cursor,
        decl: Cursor,
        want: &Want,
        object: Option<&Operand>,
    ) -> Option<Option<Rvalue>> {
        if let Some(name) = std_function(decl) {
            return match name.as_str() {
                "move" | "forward" if e.num_args() == 1 => Some(self.std_move(e, want)),
                "make_unique" => {
                    let (pointee, array) = unique_ptr(e.ty())?;
                    Some(self.make_unique(e, pointee, array, want))
                }
                _ => None,
            };
        }
        let class = decl.semantic_parent()?;
        let (pointee, array) = unique_ptr(class.ty())?;
        self.unique_ptr_call(e, decl, class.ty(), pointee, array, want, object)
    }

    /// `std::move(x)`, `std::forward<T>(x)`: the object `x` itself (a reference to it).
    fn std_move(&mut self, e: Cursor, want: &Want) -> Option<Rvalue> {
        let loc = self.loc(e);
        let a = self.cx.tree.among_kids(e, e.arg(0)?);
        if !clang::is_reference(clang::result_of(clang::canonical(e.referenced()?.ty()))) {
            // Not the utility (`std::move(first, last, out)` has three arguments anyway).
            return None;
        }
        let rv = self.addr_of(a);
        let addr = self.rvalue_operand(rv, loc);
        let Operand::Place(p) = addr else { return Some(Rvalue::Use(Operand::Unknown)) };
        let obj = self.object_at(p);
        self.deliver_value(Rvalue::Use(Operand::Place(obj)), want, loc)
    }

    /// `rv` where `want` says.
    fn deliver_value(&mut self, rv: Rvalue, want: &Want, loc: Loc) -> Option<Rvalue> {
        match want {
            Want::Effect => None,
            Want::Into(d) => {
                self.assign(d.clone(), rv, loc);
                None
            }
            Want::Value => Some(rv),
        }
    }

    /// The owner object a call builds or returns: `want`'s place, or a temporary destroyed at the
    /// end of the full expression. Returns the object and the call's value.
    fn owner_result(&mut self, ty: CXType, want: &Want, loc: Loc) -> (Place, Option<Rvalue>) {
        match want {
            Want::Into(d) => (d.clone(), None),
            _ => {
                let t = self.new_temp(TypeClass::Record, loc);
                self.temporary_object(t, ty, loc);
                let v = matches!(want, Want::Value).then(|| self.local_value(t));
                (Place::Local(t), v)
            }
        }
    }

    /// `std::make_unique<T>(args)`: a new block owned by the result, built by `T`'s constructor.
    /// libclang does not show which constructor (the template body is not instantiated): with
    /// no arguments it is the default one; otherwise the program's only constructor of `T` with
    /// as many parameters (not a copy or move), called as `new T(args)` would call it. With
    /// none or several, the arguments escape.
    fn make_unique(&mut self, e: Cursor, pointee: CXType, array: bool, want: &Want) -> Option<Rvalue> {
        let loc = self.loc(e);
        let n = e.num_args().max(0) as u32;
        let ctor = if array || n == 0 { None } else { sole_constructor(pointee, n) };
        let mut args = Vec::new();
        if ctor.is_none() {
            for i in 0..n {
                if let Some(a) = e.arg(i) {
                    let a = self.cx.tree.among_kids(e, a);
                    args.push(self.expr(a));
                }
            }
        }
        let name = if array { super::cpp::NEW_ARRAY } else { super::cpp::NEW };
        let t = self.new_temp(TypeClass::Pointer, loc);
        let size = if array { args.first().cloned().unwrap_or(Operand::Unknown) } else { Operand::Unknown };
        let callee = Callee::Direct { name: name.to_string(), usr: format!("drip:c++:{name}"), const_args: 0 };
        self.emit(Stmt::Call { dst: Some(Place::Local(t)), callee, args: vec![size] }, loc);
        let block = Operand::Place(Place::Local(t));
        if let Some(ctor) = ctor {
            let _ = self.cpp_call_on(e, ctor, &Want::Effect, Some(block.clone()));
        } else if !array && n == 0 {
            self.construct_default(Place::Deref(Box::new(Place::Local(t))), pointee, loc);
        } else if !array {
            let callee = Callee::Direct {
                name: "(constructor called by std::make_unique)".to_string(),
                usr: format!("{}make_unique-constructor", OPAQUE_CPP_USR),
                const_args: 0,
            };
            self.emit(Stmt::Call { dst: None, callee, args }, loc);
        }
        let (obj, value) = self.owner_result(e.ty(), want, loc);
        self.assign(owned(obj), Rvalue::Use(block), loc);
        value
    }

    /// A call of a method of `std::unique_ptr<T>` (`class_ty`), by its contract. `None`: not
    /// modelled, lowered as a call with no body.
    #[allow(clippy::too_many_arguments)]
    fn unique_ptr_call(
        &mut self,
        e: Cursor,
        decl: Cursor,
        class_ty: CXType,
        pointee: CXType,
        array: bool,
        want: &Want,
        object: Option<&Operand>,
    ) -> Option<Option<Rvalue>> {
        let loc = self.loc(e);
        let name = decl.spelling();
        if decl.kind() == CXCursor_Constructor {
            // What the new owner takes: a pointer, nothing (NULL), or another owner's pointer.
            let value = match e.arg(0).map(|a| self.cx.tree.among_kids(e, a)) {
                None => Operand::Const(0),
                Some(a) => match self.owner_operand(a, loc) {
                    Some(src) => self.take_from(src, loc),
                    None if clang::classify(clang::canonical(a.ty())) == TypeClass::Pointer => self.expr(a),
                    None if clang::canonical(a.ty()).kind == CXType_NullPtr => Operand::Const(0),
                    None => return None,
                },
            };
            let obj = match object {
                Some(Operand::Place(p)) => Place::Deref(Box::new(p.clone())),
                Some(_) => return None,
                None => self.owner_result(class_ty, want, loc).0,
            };
            self.assign(owned(obj.clone()), Rvalue::Use(value), loc);
            return Some(match want {
                Want::Value if object.is_none() => Some(Rvalue::Use(Operand::Place(obj))),
                _ => None,
            });
        }
        if !matches!(decl.kind(), CXCursor_CXXMethod | CXCursor_ConversionFunction) {
            return None;
        }
        let (this, first) = self.method_object(e);
        let Operand::Place(this) = this else { return None };
        let obj = self.object_at(this);
        let field = owned(obj.clone());
        let arg = |lw: &mut Self, i: u32| e.arg(i + first).map(|a| lw.cx.tree.among_kids(e, a));
        let rv = match (name.as_str(), arg(self, 0)) {
            ("get" | "operator->", None) => Rvalue::Use(Operand::Place(field)),
            ("operator*", None) => Rvalue::Use(Operand::Place(Place::Deref(Box::new(field)))),
            ("operator[]", Some(i)) => {
                self.effect(i);
                Rvalue::Use(Operand::Place(Place::Index(Box::new(Place::Deref(Box::new(field))))))
            }
            ("operator bool", None) => Rvalue::Opaque(vec![Operand::Place(field)]),
            ("release", None) => {
                let t = self.new_temp(TypeClass::Pointer, loc);
                self.assign(Place::Local(t), Rvalue::Use(Operand::Place(field.clone())), loc);
                self.assign(field, Rvalue::Use(Operand::Const(0)), loc);
                Rvalue::Use(Operand::Place(Place::Local(t)))
            }
            ("reset", a) | ("operator=", a) => {
                let value = match a {
                    // `reset()`: the default argument, `pointer()`, which has no place in the source.
                    None => Operand::Const(0),
                    Some(a) if a.file_span().is_none() => Operand::Const(0),
                    Some(a) => match self.owner_operand(a, loc) {
                        Some(src) => self.take_from(src, loc),
                        None if clang::classify(clang::canonical(a.ty())) == TypeClass::Pointer => self.expr(a),
                        None if clang::canonical(a.ty()).kind == CXType_NullPtr => Operand::Const(0),
                        None => return None,
                    },
                };
                // The new pointer is stored before the old one is deleted, as the standard says.
                let old = self.new_temp(TypeClass::Pointer, loc);
                self.assign(Place::Local(old), Rvalue::Use(Operand::Place(field.clone())), loc);
                self.assign(field, Rvalue::Use(value), loc);
                self.delete_object(Operand::Place(Place::Local(old)), pointee, array, loc);
                if name == "reset" {
                    return Some(None);
                }
                Rvalue::Use(Operand::Place(obj))
            }
            ("swap", Some(a)) => {
                let other = self.owner_operand(a, loc)?;
                let t = self.new_temp(TypeClass::Pointer, loc);
                self.assign(Place::Local(t), Rvalue::Use(Operand::Place(field.clone())), loc);
                self.assign(field, Rvalue::Use(Operand::Place(owned(other.clone()))), loc);
                self.assign(owned(other), Rvalue::Use(Operand::Place(Place::Local(t))), loc);
                return Some(None);
            }
            _ => return None,
        };
        Some(self.deliver_value(rv, want, loc))
    }

    /// The owner object the expression `a` names, when it is a `std::unique_ptr` drip models.
    fn owner_operand(&mut self, a: Cursor, loc: Loc) -> Option<Place> {
        unique_ptr(a.ty())?;
        let rv = self.addr_of(a);
        match self.rvalue_operand(rv, loc) {
            Operand::Place(p) => Some(self.object_at(p)),
            _ => None,
        }
    }

    /// Move the pointer out of the owner `src`: its value, with `src` left NULL.
    fn take_from(&mut self, src: Place, loc: Loc) -> Operand {
        let t = self.new_temp(TypeClass::Pointer, loc);
        self.assign(Place::Local(t), Rvalue::Use(Operand::Place(owned(src.clone()))), loc);
        self.assign(owned(src), Rvalue::Use(Operand::Const(0)), loc);
        Operand::Place(Place::Local(t))
    }
}

/// The program's one constructor of the class `ty` taking `n` parameters, other than its copy
/// and move constructors; `None` for a class of a system header or a template's instantiation.
fn sole_constructor(ty: CXType, n: u32) -> Option<Cursor> {
    let def = clang::type_declaration(clang::canonical(ty))?.definition()?;
    if def.is_in_system_header() || def.specialized_template().is_some() {
        return None;
    }
    let mut found = def.children().into_iter().filter(|k| {
        k.kind() == CXCursor_Constructor
            && k.num_args() == n as i32
            && !k.is_copy_constructor()
            && !k.is_move_constructor()
    });
    let ctor = found.next()?;
    found.next().is_none().then_some(ctor)
}

/// The owned pointer of the owner object `obj`.
pub fn owned(obj: Place) -> Place {
    Place::Field(Box::new(obj), OWNED.to_string())
}
