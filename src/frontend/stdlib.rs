//! The C++ standard library's owners, by their contracts rather than by libstdc++'s template
//! bodies (which libclang shows uninstantiated).
//!
//! Input: calls (cursors) whose callee is a method of `std::unique_ptr` or of a standard
//! container of raw pointers, or one of the function templates `std::make_unique`, `std::move`,
//! `std::forward`; range-based `for` loops over such containers; the types of locals and members.
//! Output: IR statements made of what C already has: a `std::unique_ptr<T>` (with the default
//! deleter) is an object with one pointer field, `OWNED`, and a destructor drip writes
//! (`lower::lower_owner_dtor`) that deletes what the field holds, as `delete p` (or `delete[] p`
//! for `T[]`) does. Its constructors, `release`, `reset`, `get`, `swap`, moves and operators
//! are loads and stores of the field plus that delete, so leaks (`u.release();` dropped) and
//! double frees (`delete u.get();` before the scope ends) are found by the ordinary analysis.
//! A container of `T *` (`container`) is an object with an array field, `ELEMENTS`, whose one
//! cell holds what it stores (a map's cell is the pair, the pointer its `second`), and a count,
//! `SIZE`; it frees nothing when it dies, so a local one that dies holding blocks loses them, as
//! a C local array does.
//! Invariants:
//! - Only a class of a system header in namespace `std` (or an inline namespace inside it) is
//!   modelled, and `unique_ptr` only with `std::default_delete`: a custom deleter keeps the
//!   class opaque (what it is given escapes), since the deleter may do anything.
//! - A method not listed here (`get_deleter`, comparisons) is a call with no body: what it is
//!   given escapes; it never frees.
//! - `std::string` dies trivially for drip (its buffer is never the program's block), so a class
//!   holding one is followed; its methods are calls with no body (what they are given escapes).
//! - A container's method not listed in `container_call` (`begin`, `find`, `swap`, `resize`,
//!   a map's `insert` of a pair), its copies and assignments are calls with no body: the
//!   container and what they are given escape, so what the model cannot follow is never
//!   reported. Only a local container dies without an escape (`lower.rs`).
//! - Not modelled in the IR, so escaping as before: `std::shared_ptr`/`make_shared` (reference
//!   counted: a block they hold is lost only in a cycle of owners, which `owner_cycles` finds
//!   from the types `shared` names), iterators, containers of anything but raw pointers,
//!   `std::function`.

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
    in_namespace(decl, &["std"])
}

/// Whether `decl` is a class of a system header directly inside namespaces only, the outermost
/// of which is one of `outer`.
fn in_namespace(decl: Cursor, outer: &[&str]) -> bool {
    if !decl.is_in_system_header() {
        return false;
    }
    let mut p = decl.semantic_parent();
    let mut top = false;
    while let Some(c) = p {
        match c.kind() {
            CXCursor_Namespace => top = outer.contains(&c.spelling().as_str()),
            CXCursor_TranslationUnit => return top,
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

/// Whether destroying an object of type `ty` runs no code of the program: a class of the
/// standard library (`std::string`, `std::vector<int>`, `std::map<std::string, T *>`, and
/// libstdc++'s own `__gnu_cxx::__normal_iterator`) whose template arguments each run none in
/// turn: no class (a scalar, a pointer: a container of pointers does not destroy what they
/// point to), such a class, or a class of the program that declares no destructor of its own
/// (or a defaulted one) and whose bases and fields run none (`std::vector<w_char>` of a
/// `struct w_char { unsigned char l, h; }`). Not a type-erased owner (`std::function` destroys
/// the program's callable, `std::shared_ptr` runs its deleter), nor a class over a class whose
/// destructor the program wrote (`std::vector<Node>` runs `~Node`). Its destructor, which drip
/// does not follow, then writes no global of the program (`summary::hands_code`, by its name
/// in `std::`).
pub fn runs_no_program_code(ty: CXType) -> bool {
    clang::canonical(ty).kind == CXType_Record && plain(ty, 0, false, false)
}

/// The destructor of a class of the program that its death runs and nothing else of the
/// program: its bases and members run none (`runs_no_program_code`: a `std::vector<T *>` of
/// which it deletes the elements by hand), and it wrote one. `None` otherwise.
pub fn own_destructor_only(ty: CXType) -> Option<Cursor> {
    let def = program_class(ty)?;
    let own = def.children().into_iter().find(|k| k.kind() == CXCursor_Destructor && !k.is_defaulted())?;
    parts_plain(def, false).then_some(own)
}

/// Whether the bases and members of class `ty` (of the program) run no code of the program
/// when constructed, copied, assigned or destroyed (`may_run_code`): the special members the
/// compiler writes for it then run none either.
pub fn parts_run_no_code(ty: CXType) -> bool {
    program_class(ty).is_some_and(|def| parts_plain(def, true))
}

/// The definition of `ty` when it is a class of the program: outside system headers, and not a
/// template's instantiation, whose members libclang does not list.
fn program_class(ty: CXType) -> Option<Cursor> {
    let c = clang::canonical(ty);
    if c.kind != CXType_Record {
        return None;
    }
    let decl = clang::type_declaration(c)?;
    if decl.is_in_system_header() || decl.specialized_template().is_some() {
        return None;
    }
    decl.definition()
}

/// Whether the bases and members of class definition `def` are `plain` (`any`: as there).
fn parts_plain(def: Cursor, any: bool) -> bool {
    def.children()
        .into_iter()
        .filter(|k| matches!(k.kind(), CXCursor_CXXBaseSpecifier | CXCursor_FieldDecl))
        .all(|k| plain(k.ty(), 1, any, false))
}

/// Whether a library function handed an object of type `ty` by value may run code of the
/// program through it (`ir::LocalDecl::may_run_code`): unless it is no class, or a class as
/// `runs_no_program_code` allows whose program classes also write no copy, move or default
/// constructor, assignment or call operator (`std::string::const_iterator`,
/// `std::vector<w_char>`). A lambda, `std::function`, a class of the program that copies
/// itself by its own code, a template's dependent type may. A function object of the program
/// whose only such code is its call operators (`functor_calls`) may not: the lowering writes
/// the calls of them a library function may make.
pub fn may_run_code(ty: CXType) -> bool {
    !plain(ty, 0, true, false) && functor_calls(ty).is_none()
}

/// The call operators of a function object of the program (`struct is_any_of { bool operator()
/// (char c) const; .. }`) whose other parts run no code of the program (`may_run_code`): a
/// library function handed it runs those and nothing else of the program. `None` for any other
/// type, a lambda's, and one whose call operator is a template.
pub fn functor_calls(ty: CXType) -> Option<Vec<Cursor>> {
    let calls: Vec<Cursor> = program_class(ty)?
        .children()
        .into_iter()
        .filter(|k| k.kind() == CXCursor_CXXMethod && !k.is_defaulted() && k.spelling() == "operator()")
        .collect();
    (!calls.is_empty() && plain(ty, 0, true, true)).then_some(calls)
}

/// `runs_no_program_code` (`any`: false) and `!may_run_code` (`any`: true) for a part of depth
/// `depth`; `call_ok`: the class's own call operators do not count (`functor_calls`).
fn plain(ty: CXType, depth: u32, any: bool, call_ok: bool) -> bool {
    let c = clang::canonical(ty);
    if matches!(c.kind, CXType_ConstantArray | CXType_IncompleteArray) {
        return plain(clang::array_element(c), depth, any, call_ok);
    }
    // A function a class is handed as a template argument (`std::unique_ptr<T, void (*)(T *)>`'s
    // deleter) is code it may run.
    let function_pointer = c.kind == CXType_Pointer
        && matches!(clang::canonical(clang::pointee(c)).kind, CXType_FunctionProto | CXType_FunctionNoProto);
    if function_pointer || matches!(c.kind, CXType_Unexposed | CXType_Dependent | CXType_MemberPointer) {
        return false;
    }
    if c.kind != CXType_Record {
        return true;
    }
    let Some(decl) = clang::type_declaration(c) else { return false };
    if depth > 8 {
        return false;
    }
    if !decl.is_in_system_header() {
        // A class of the program (named: a lambda's is not): only its parts' code runs, when it
        // writes none.
        let Some(def) = program_class(c) else { return false };
        let name = decl.spelling();
        if name.is_empty() || name.starts_with('(') || clang::type_spelling(c).starts_with("(lambda") {
            return false;
        }
        return def.children().into_iter().all(|k| match k.kind() {
            CXCursor_Destructor => k.is_defaulted(),
            // The library copies, moves and default-constructs; a converting constructor ran
            // where the program wrote it.
            CXCursor_Constructor if any => {
                k.is_defaulted() || !(k.is_copy_constructor() || k.is_move_constructor() || k.num_args() == 0)
            }
            CXCursor_CXXMethod if any => match k.spelling().as_str() {
                "operator()" => call_ok || k.is_defaulted(),
                "operator=" => k.is_defaulted(),
                _ => true,
            },
            CXCursor_FunctionTemplate if any => !k.spelling().starts_with("operator"),
            CXCursor_CXXBaseSpecifier | CXCursor_FieldDecl => plain(k.ty(), depth + 1, any, false),
            _ => true,
        });
    }
    // Type-erased owners run code their template arguments do not show: a callable's
    // destructor, a `shared_ptr`'s deleter.
    const ERASED: [&str; 6] = ["function", "move_only_function", "any", "shared_ptr", "packaged_task", "thread"];
    if !in_namespace(decl, &["std", "__gnu_cxx"]) || ERASED.contains(&decl.spelling().as_str()) {
        return false;
    }
    // SAFETY: plain FFI on a type value.
    let n = unsafe { clang_Type_getNumTemplateArguments(c) };
    (0..n.max(0) as u32).all(|i| {
        // SAFETY: as above; a non-type argument gives an invalid type, which is no class.
        let arg = unsafe { clang_Type_getTemplateArgumentAsType(c, i) };
        plain(arg, depth + 1, any, false)
    })
}

/// Whether `ty` is a class of the standard library over scalars and such classes only
/// (`std::vector<int>`, `std::map<std::string, long>`, `std::vector<bool>`): like a string
/// (`string`), it owns only storage the program never sees, so its death releases nothing drip
/// follows. Not over a pointer (a container of raw pointers is modelled apart, `container`), an
/// owner (`std::unique_ptr`), a type-erased callable, or any class of the program.
pub fn owns_only_storage(ty: CXType) -> bool {
    fn go(ty: CXType, depth: u32) -> bool {
        let c = clang::canonical(ty);
        match c.kind {
            CXType_ConstantArray | CXType_IncompleteArray => go(clang::array_element(c), depth),
            CXType_Pointer
            | CXType_MemberPointer
            | CXType_BlockPointer
            | CXType_LValueReference
            | CXType_RValueReference
            | CXType_Unexposed
            | CXType_Dependent => false,
            CXType_Record => {
                const OWNERS: [&str; 9] = [
                    "function",
                    "move_only_function",
                    "any",
                    "shared_ptr",
                    "weak_ptr",
                    "unique_ptr",
                    "auto_ptr",
                    "packaged_task",
                    "thread",
                ];
                let Some(decl) = clang::type_declaration(c) else { return false };
                if depth > 8 || !in_namespace(decl, &["std", "__gnu_cxx"]) || OWNERS.contains(&decl.spelling().as_str())
                {
                    return false;
                }
                // SAFETY: plain FFI on a type value.
                let n = unsafe { clang_Type_getNumTemplateArguments(c) };
                (0..n.max(0) as u32).all(|i| {
                    // SAFETY: as above; a non-type argument gives an invalid type, a scalar here.
                    let arg = unsafe { clang_Type_getTemplateArgumentAsType(c, i) };
                    go(arg, depth + 1)
                })
            }
            _ => true,
        }
    }
    clang::canonical(ty).kind == CXType_Record && go(ty, 0)
}

/// The name of the unknown call a destroyed object whose destruction drip does not follow
/// escapes into (`SCOPE_EXIT_USR`): in `std::` when it runs no code of the program
/// (`runs_no_program_code`), so that it writes no global; `what` otherwise.
pub fn unfollowed_destructor(ty: CXType, what: &str) -> String {
    if runs_no_program_code(ty) {
        format!("std::({what}, not analysed)")
    } else {
        format!("({what}, not analysed)")
    }
}

/// Whether `ty` (a parameter's type) is a modelled `std::unique_ptr` itself, not a reference to
/// one: the parameter is the caller's object, passed by address (`lower::declare_local`).
pub fn owner_by_value(ty: CXType) -> bool {
    !clang::is_reference(ty) && unique_ptr(ty).is_some()
}

/// Whether `ty` is a `std::basic_string` (`std::string`, `std::wstring`): it owns only its own
/// buffer, which the program never sees, so its death releases nothing drip follows.
pub fn string(ty: CXType) -> bool {
    let c = clang::canonical(ty);
    c.kind == CXType_Record && clang::type_declaration(c).is_some_and(|d| d.spelling() == "basic_string" && in_std(d))
}

/// The field of a modelled container object (`container`) whose elements are its cells: one
/// array, all indices collapsed, as C's arrays are. Not a C++ identifier.
pub const ELEMENTS: &str = crate::ir::CONTAINER_ELEMENTS;

/// The shape of a standard container of raw pointers (`container`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Container {
    /// `vector`, `list`, `deque`, `forward_list` of `T*`: a cell is the pointer.
    Sequence,
    /// `set`, `unordered_set` (and `multi` forms) of `T*`: a cell is the pointer.
    Set,
    /// `map`, `unordered_map` (and `multi` forms) of `K` to `T*`: a cell is a `std::pair`, the
    /// pointer its `second`.
    Map,
}

/// Whether `ty` is a standard container that holds raw pointers it never frees, and of which
/// shape. Containers of anything else (`unique_ptr`s, values) are not modelled.
pub fn container(ty: CXType) -> Option<Container> {
    let c = clang::canonical(ty);
    if c.kind != CXType_Record {
        return None;
    }
    let decl = clang::type_declaration(c)?;
    let (shape, arg) = match decl.spelling().as_str() {
        "vector" | "list" | "deque" | "forward_list" => (Container::Sequence, 0),
        "set" | "multiset" | "unordered_set" | "unordered_multiset" => (Container::Set, 0),
        "map" | "multimap" | "unordered_map" | "unordered_multimap" => (Container::Map, 1),
        _ => return None,
    };
    if !in_std(decl) {
        return None;
    }
    // SAFETY: plain FFI on a type value.
    let element = unsafe { clang_Type_getTemplateArgumentAsType(c, arg) };
    (clang::canonical(element).kind == CXType_Pointer).then_some(shape)
}

/// The field of a modelled container object that counts its elements: 0 when built empty,
/// stepped by each store and removal, so that a loop over the elements runs when something
/// was stored (as C's counted arrays, `facts`' steps).
pub const SIZE: &str = "(size)";

/// The element count of the container object `obj` (`SIZE`).
pub fn size(obj: Place) -> Place {
    Place::Field(Box::new(obj), SIZE.to_string())
}

/// The cell of the container object `obj` (`ELEMENTS`, all indices collapsed).
pub fn cell(obj: Place) -> Place {
    Place::Index(Box::new(Place::Field(Box::new(obj), ELEMENTS.to_string())))
}

/// The place of the pointer a cell of a container of shape `shape` holds.
fn held(shape: Container, obj: Place) -> Place {
    match shape {
        Container::Map => Place::Field(Box::new(cell(obj)), "second".to_string()),
        Container::Sequence | Container::Set => cell(obj),
    }
}

/// What a member or local of type `ty` is to shared ownership (`owner_cycles`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shared {
    /// `std::shared_ptr<T>`: one owner of the block it holds.
    Owner,
    /// `std::weak_ptr<T>`: refers to a block without owning it.
    Weak,
    /// A standard container of `std::shared_ptr<T>` (`vector`, `list`, `set`, ...): an owner
    /// of every block it holds.
    Owners,
}

/// Whether `ty` is a `std::shared_ptr`, a `std::weak_ptr` or a standard container of
/// `shared_ptr`s (not a reference to one), and which.
pub fn shared(ty: CXType) -> Option<Shared> {
    let c = clang::canonical(ty);
    if c.kind != CXType_Record {
        return None;
    }
    let decl = clang::type_declaration(c)?;
    let what = match decl.spelling().as_str() {
        "shared_ptr" => Shared::Owner,
        "weak_ptr" => Shared::Weak,
        "vector" | "list" | "deque" | "forward_list" | "set" | "multiset" | "unordered_set" | "unordered_multiset" => {
            // SAFETY: plain FFI on a type value.
            let element = unsafe { clang_Type_getTemplateArgumentAsType(c, 0) };
            if shared(element) != Some(Shared::Owner) {
                return None;
            }
            Shared::Owners
        }
        _ => return None,
    };
    in_std(decl).then_some(what)
}

/// The std function template `decl` specializes, by name (`move`, `make_unique`).
pub(super) fn std_function(decl: Cursor) -> Option<String> {
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
        if let Some(shape) = container(class.ty()) {
            return self.container_call(e, decl, shape, want, object);
        }
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
    pub(super) fn deliver_value(&mut self, rv: Rvalue, want: &Want, loc: Loc) -> Option<Rvalue> {
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

    /// A call of a method of a standard container of raw pointers (`container`), by its
    /// contract: what it stores goes into the container's cell (`held`), what it reads is that
    /// cell. `None`: not modelled, lowered as a call with no body (the container and what the
    /// call is given escape), which is what every method not listed here gets (`begin`, `swap`,
    /// copies, assignments).
    fn container_call(
        &mut self,
        e: Cursor,
        decl: Cursor,
        shape: Container,
        want: &Want,
        object: Option<&Operand>,
    ) -> Option<Option<Rvalue>> {
        let loc = self.loc(e);
        let name = decl.spelling();
        if decl.kind() == CXCursor_Constructor {
            // The empty container a declaration builds; any other (a copy, a fill from a range,
            // a temporary) is not followed.
            let Want::Into(d) = want else { return None };
            if e.num_args() != 0 || object.is_some() {
                return None;
            }
            self.assign(size(d.clone()), Rvalue::Use(Operand::Const(0)), loc);
            return Some(None);
        }
        if decl.kind() != CXCursor_CXXMethod || decl.is_static_method() {
            return None;
        }
        let first = if method_named(self, e) { 0 } else { 1 };
        let n = (e.num_args().max(0) as u32).saturating_sub(first);
        let arg = |lw: &mut Self, i: u32| e.arg(i + first).map(|a| lw.cx.tree.among_kids(e, a));
        let pointer = |a: Option<Cursor>| {
            a.is_some_and(|a| {
                let t = clang::canonical(a.ty());
                clang::classify(t) == TypeClass::Pointer || t.kind == CXType_NullPtr
            })
        };
        // What the call does, decided before anything is lowered, so that `None` lowers nothing.
        enum Op {
            Store(u32),
            StorePair(Cursor, Cursor),
            Insert,
            Read,
            Scalar,
            Size,
            Empty,
            Pop,
            Clear,
            Forget,
        }
        let op = match (shape, name.as_str(), n) {
            (Container::Sequence, "push_back" | "emplace_back" | "push_front" | "emplace_front", 1)
                if pointer(arg(self, 0)) =>
            {
                Op::Store(0)
            }
            (Container::Set, "insert" | "emplace", 1) if pointer(arg(self, 0)) => Op::Store(0),
            (Container::Map, "emplace" | "try_emplace" | "insert_or_assign", 2) if pointer(arg(self, 1)) => {
                Op::Store(1)
            }
            (Container::Map, "insert", 1) => match arg(self, 0).and_then(|a| pair_parts(self, a)) {
                Some((k, v)) if pointer(Some(v)) => Op::StorePair(k, v),
                _ => return None,
            },
            // A map's `operator[]` inserts the key when it is missing.
            (Container::Map, "operator[]", 1) => Op::Insert,
            (Container::Sequence, "operator[]" | "at", 1) | (Container::Map, "at", 1) => Op::Read,
            (Container::Sequence, "front" | "back", 0) => Op::Read,
            (_, "size", 0) => Op::Size,
            (_, "empty", 0) => Op::Empty,
            (_, "max_size" | "capacity" | "count" | "contains", _) => Op::Scalar,
            (_, "pop_back" | "pop_front", 0) => Op::Pop,
            (_, "clear", 0) => Op::Clear,
            (_, "reserve" | "shrink_to_fit", 1) => Op::Scalar,
            // Removes what a key or an iterator names: how many remain is not known.
            (Container::Set | Container::Map, "erase", 1) => Op::Forget,
            _ => return None,
        };
        let obj = self.container_object(e, first, loc)?;
        let count = size(obj.clone());
        let place = held(shape, obj);
        let step = |lw: &mut Self, k: i64| {
            let src = Rvalue::Opaque(vec![Operand::Place(count.clone()), Operand::Const(1)]);
            lw.assign_step(count.clone(), src, k, true, loc);
        };
        let rv = match op {
            Op::Insert => {
                if let Some(a) = arg(self, 0) {
                    self.effect(a);
                }
                step(self, 1);
                Rvalue::Use(Operand::Place(place))
            }
            Op::Store(k) => {
                for i in 0..k {
                    if let Some(a) = arg(self, i) {
                        self.effect(a);
                    }
                }
                let a = arg(self, k)?;
                let value =
                    if clang::canonical(a.ty()).kind == CXType_NullPtr { Operand::Const(0) } else { self.expr(a) };
                self.assign(place, Rvalue::Use(value), loc);
                step(self, 1);
                // An `insert`'s or `emplace`'s result (an iterator, a pair with a flag) is not
                // followed.
                Rvalue::Opaque(Vec::new())
            }
            Op::StorePair(k, v) => {
                self.effect(k);
                let value =
                    if clang::canonical(v.ty()).kind == CXType_NullPtr { Operand::Const(0) } else { self.expr(v) };
                self.assign(place, Rvalue::Use(value), loc);
                step(self, 1);
                Rvalue::Opaque(Vec::new())
            }
            Op::Read => {
                if let Some(a) = arg(self, 0) {
                    self.effect(a);
                }
                Rvalue::Use(Operand::Place(place))
            }
            Op::Size => Rvalue::Use(Operand::Place(count.clone())),
            Op::Empty => Rvalue::Opaque(vec![Operand::Place(count.clone())]),
            Op::Pop => {
                step(self, -1);
                return Some(None);
            }
            Op::Clear => {
                self.assign(count.clone(), Rvalue::Use(Operand::Const(0)), loc);
                return Some(None);
            }
            Op::Scalar | Op::Forget => {
                for i in 0..n {
                    if let Some(a) = arg(self, i) {
                        self.effect(a);
                    }
                }
                if matches!(op, Op::Forget) {
                    self.assign(count.clone(), Rvalue::Opaque(Vec::new()), loc);
                }
                Rvalue::Opaque(Vec::new())
            }
        };
        Some(self.deliver_value(rv, want, loc))
    }

    /// The container object a method call `e` is made on, as a place: not through its address,
    /// which the IR would then hold in a temporary as if the program had taken it. `first`: 1
    /// for an operator's call, whose object is its first argument. `None` (nothing lowered):
    /// no object to name.
    fn container_object(&mut self, e: Cursor, first: u32, loc: Loc) -> Option<Place> {
        let base = if first == 0 {
            let callee = self.kids(e).first().map(|k| self.strip(*k));
            callee.and_then(|m| self.kids(m).into_iter().find(|c| c.is_expression()))
        } else {
            e.arg(0).map(|a| self.cx.tree.among_kids(e, a))
        };
        let Some(b) = base else {
            // Called by name in a method of a class derived from the container: `*this`.
            return self.this_local.map(|t| Place::Deref(Box::new(Place::Local(t))));
        };
        if clang::classify(clang::canonical(b.ty())) != TypeClass::Pointer {
            return Some(self.place(b));
        }
        Some(match self.expr(b) {
            Operand::Place(p) => Place::Deref(Box::new(p)),
            other => {
                let t = self.new_temp(TypeClass::Pointer, loc);
                self.assign(Place::Local(t), Rvalue::Use(other), loc);
                Place::Deref(Box::new(Place::Local(t)))
            }
        })
    }

    /// The element count of the container whose `empty()` the call `e` is, for a condition to
    /// test (`!v.empty()` is `v.(size) != 0`). `None`: not such a call (nothing lowered).
    pub(super) fn container_empty(&mut self, e: Cursor) -> Option<Operand> {
        let decl = e.referenced().filter(|d| d.kind() == CXCursor_CXXMethod && d.spelling() == "empty")?;
        container(decl.semantic_parent()?.ty())?;
        if !method_named(self, e) || e.num_args() != 0 {
            return None;
        }
        let loc = self.loc(e);
        let obj = self.container_object(e, 0, loc)?;
        Some(Operand::Place(size(obj)))
    }

    /// The container object a range-based `for` walks, when `range` names a modelled container
    /// (a variable, a member, a dereference: nothing to evaluate, so nothing is lowered twice);
    /// `cpp::range_for` binds the loop variable to its cell at the top of each iteration.
    /// `None`: not such a loop, lowered as before.
    pub(super) fn range_container(&mut self, range: Cursor) -> Option<(Place, Container)> {
        let r = self.strip(range);
        let shape = container(r.ty())?;
        // Only names, members and dereferences of them (`v`, `this->items`, `o->items`, `*vp`).
        let mut base = r;
        loop {
            let inner = match base.kind() {
                CXCursor_DeclRefExpr | CXCursor_CXXThisExpr => break,
                CXCursor_MemberRefExpr => match self.kids(base).into_iter().find(|c| c.is_expression()) {
                    Some(b) => b,
                    None => break,
                },
                CXCursor_UnaryOperator if base.unop() == CXUnaryOperator_Deref => self.kids(base).into_iter().next()?,
                _ => return None,
            };
            base = self.strip(inner);
        }
        Some((self.place(r), shape))
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

/// Whether the call `e` names its method in a member reference (`v.push_back(x)`), rather than
/// being an operator's call (`v[i]`), whose object is its first argument.
fn method_named(lw: &Lowerer<'_, '_, '_>, e: Cursor) -> bool {
    let kids = lw.kids(e);
    kids.first().map(|k| lw.strip(*k)).is_some_and(|c| {
        c.kind() == CXCursor_MemberRefExpr && c.referenced().is_some_and(|r| r.kind() == CXCursor_CXXMethod)
    })
}

/// The key and value expressions of the pair a map's `insert` is given, when the source writes
/// them: `{k, p}`, `std::make_pair(k, p)`, `std::pair<K, T *>(k, p)` (through the conversions to
/// the map's `value_type`). `None`: a pair built elsewhere (the call is then not modelled).
fn pair_parts(lw: &Lowerer<'_, '_, '_>, a: Cursor) -> Option<(Cursor, Cursor)> {
    let mut e = lw.strip(a);
    for _ in 0..4 {
        let two = |c: Cursor| -> Option<(Cursor, Cursor)> {
            let (x, y) = (c.arg(0)?, c.arg(1)?);
            Some((lw.cx.tree.among_kids(c, x), lw.cx.tree.among_kids(c, y)))
        };
        match e.kind() {
            CXCursor_InitListExpr => {
                let kids: Vec<Cursor> = lw.kids(e).into_iter().filter(|k| k.is_expression()).collect();
                return match kids[..] {
                    [k, v] => Some((k, v)),
                    _ => None,
                };
            }
            CXCursor_CallExpr => {
                let decl = e.referenced()?;
                let pair_ctor = decl.kind() == CXCursor_Constructor
                    && decl.semantic_parent().is_some_and(|c| c.spelling() == "pair" && in_std(c));
                let make_pair = std_function(decl).is_some_and(|n| n == "make_pair");
                match e.num_args() {
                    2 if pair_ctor || make_pair => return two(e),
                    // A conversion of another pair (`make_pair`'s to the map's `value_type`).
                    1 if pair_ctor => e = lw.strip(lw.cx.tree.among_kids(e, e.arg(0)?)),
                    _ => return None,
                }
            }
            _ => {
                // A temporary's materialization or a functional cast around the pair.
                let kids: Vec<Cursor> = lw.kids(e).into_iter().filter(|k| k.is_expression()).collect();
                match kids[..] {
                    [inner] => e = lw.strip(inner),
                    _ => return None,
                }
            }
        }
    }
    None
}
