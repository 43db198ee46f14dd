//! Lowering of the C++ constructs that are ordinary code: calls of methods, constructors and
//! destructors (also those C++ runs implicitly), `new`/`delete`, `throw`, lambdas (as
//! escapes), member initializers.
//!
//! Input: cursors of a C++ translation unit (`TuCtx::cpp`) inside the function being lowered.
//! Output: IR statements, as `expr.rs` emits them for C, and the TU's class hierarchy
//! (`TuCtx::classes`, `ir::CppClass`).
//! Invariants:
//! - A method, constructor or destructor takes the object's address as argument 0 (`this`,
//!   parameter 0 of its lowered body: `lower::lower_function`).
//! - `new` is a call of `operator new` / `operator new[]` (never NULL) or of their `std::nothrow`
//!   forms (NULL on failure), with no arguments that matter; placement `new` allocates nothing
//!   and is the pointer it was given. `delete` is a call of `operator delete` /
//!   `operator delete[]`, after the class's destructor. Their callees carry reserved USRs
//!   (`drip:c++:…`), so a program's own global `operator new` never stands in for the library
//!   row. A class's own (or inherited) `operator new` / `operator delete` taking the size or the
//!   pointer (`class_allocation_function`) is called instead, but for `::new`, `::delete` and
//!   `nothrow`: its body decides what is allocated or released.
//! - Destructors run where C++ runs them, as explicit calls, for the classes whose death drip
//!   knows (`destruction`: a class of the program whose members and bases are such classes or
//!   have no destructor): a local at every exit of its scope (`lower.rs`: the cleanup scopes,
//!   last constructed first, only those whose declaration the path reached; not the local a
//!   `return` hands over, whose copy is elided), a temporary at the end of its full
//!   expression (of an expression statement, a declaration or a `return`; one bound to a
//!   reference with the reference), a destructor's members (reverse declaration order) then
//!   bases after its body, and `delete p`. A class without a destructor of its own gets the
//!   compiler's as a function drip writes (`IMPLICIT_DTOR`); the compiler's default
//!   constructor (and a written constructor's parts it does not initialize) default-construct
//!   the members and bases.
//! - A `std::unique_ptr` dies by the destructor its contract describes (`stdlib.rs`, which
//!   lowers its methods too: `cpp_call_on` asks `std_call` first). A local standard container
//!   of raw pointers dies with nothing run (its cells are lost with it); `stdlib.rs` lowers its
//!   methods, and `range_for` walks its cells.
//! - A virtual call dispatched on the object's class, and `delete` through a class with a virtual
//!   destructor, are `Callee::Indirect` calls keyed by the class and the method
//!   (`ir::VIRTUAL_KEY`, `virtual_callee`), whose targets the program's class hierarchy gives
//!   (`record_class` records this TU's classes; `virtuals.rs` resolves the keys when the program
//!   is assembled; one it cannot resolve has no target, an unknown callee).
//! - A method of a class template, or of an implicit instantiation of one, is a call of the
//!   pattern's body (`TuCtx::template_member`), lowered once; `delete` of a dependent `T *`
//!   hands the object to an opaque destructor before freeing it.
//! - Any other destructor (a system header's class, a template's instantiation, an array of
//!   objects with destructors) is not followed: what it could release escapes instead, so that
//!   its absence never makes a report. A call into a class that is not `self_contained`, a
//!   virtual call qualified by its class (`Base::f ()`), and a constructor of a temporary in a
//!   condition go to an opaque callee (every argument escapes); a local or temporary of such a
//!   class is handed to an opaque call (`SCOPE_EXIT_USR`) where it dies.
//! - What the lowering does not understand (lambda bodies, `catch` handlers, unknown
//!   expressions) becomes a lowering note starting with `C++ not analysed:`, which `--stats`
//!   counts, and every local it names escapes.

#![allow(non_upper_case_globals)]

use clang_sys::*;

use super::clang::{self, Cursor, TypeClass};
use super::expr::Want;
use super::lower::{Builtin, CalleeInfo, Lowerer, TuCtx};
use crate::ir::*;
use std::rc::Rc;

/// The callee of the escape a local with a destructor gets when its scope ends.
pub(super) const SCOPE_EXIT_USR: &str = "drip:c++:scope-exit";
/// The USR prefix of the implicit destructors drip writes, before the class's USR.
pub(super) const IMPLICIT_DTOR: &str = "drip:c++:implicit-destructor:";
/// The USR prefix of the destructors drip writes for the standard library's owners (`stdlib`).
pub(super) const OWNER_DTOR: &str = "drip:c++:owner-destructor:";
/// The USR prefix of an opaque callee: no function has it, so the call is an unknown call.
const OPAQUE: &str = crate::ir::OPAQUE_CPP_USR;
const OPAQUE_DISPATCHED: &str = crate::ir::OPAQUE_DISPATCHED_CPP_USR;
/// The prefix of the lowering notes of what is not analysed (`--stats` counts them by the text
/// up to the first `;`).
pub const NOT_ANALYSED: &str = "C++ not analysed: ";

/// The library rows of the allocation functions (`libmodel`).
pub const NEW: &str = "operator new";
pub const NEW_ARRAY: &str = "operator new[]";
pub const NEW_NOTHROW: &str = "operator new(std::nothrow)";
pub const NEW_ARRAY_NOTHROW: &str = "operator new[](std::nothrow)";
pub const DELETE: &str = "operator delete";
pub const DELETE_ARRAY: &str = "operator delete[]";

/// Whether the destructor of the record type `ty` is virtual: its own, or one of its bases'.
fn virtual_destructor(ty: CXType) -> bool {
    let Some(def) = clang::type_declaration(clang::canonical(ty)).and_then(|d| d.definition()) else { return false };
    def.children().into_iter().any(|k| match k.kind() {
        CXCursor_Destructor => k.is_virtual_method(),
        CXCursor_CXXBaseSpecifier => virtual_destructor(k.ty()),
        _ => false,
    })
}

/// Whether a call of `decl` (USR `usr`) may throw, for `--exceptions`: not a destructor, not
/// declared not to throw (`Cursor::is_nothrow`), and not a function with C linkage, whose USR
/// lists no parameter types (`c:@F@malloc` against C++'s `c:@F@f#I#`: `extern "C"`, the C library).
fn may_throw(decl: Cursor, usr: &str) -> bool {
    let c_linkage = decl.kind() == CXCursor_FunctionDecl && usr.starts_with("c:@F@") && !usr.contains('#');
    decl.kind() != CXCursor_Destructor && !c_linkage && !decl.is_nothrow()
}

/// The type an exception of type `ty` is, or a handler of a variable of type `ty` catches, as
/// text to compare: canonical, without its reference and its top-level `const`/`volatile`.
pub(super) fn caught_type(ty: CXType) -> String {
    let t = clang::type_spelling(clang::canonical(ty));
    let t = t.trim_end_matches('&').trim_end();
    let mut t = t;
    loop {
        match t.strip_prefix("const ").or_else(|| t.strip_prefix("volatile ")) {
            Some(rest) => t = rest,
            None => return t.to_string(),
        }
    }
}

fn is_function_kind(k: CXCursorKind) -> bool {
    matches!(
        k,
        CXCursor_FunctionDecl
            | CXCursor_CXXMethod
            | CXCursor_Constructor
            | CXCursor_Destructor
            | CXCursor_ConversionFunction
    )
}

/// What the text of a `new` expression says: byte ranges (file offsets) of its placement
/// arguments and of its array bound, and whether the placement names `nothrow`.
struct NewShape {
    placement: Option<(u32, u32)>,
    nothrow: bool,
    array: Option<(u32, u32)>,
    /// `::new`: the global `operator new`, whatever the class declares.
    global: bool,
}

/// Where an expression that starts `text` (a macro's definition, from a `new` on) ends: at the
/// first `;`, or `,` outside brackets and template arguments, or bracket closing one opened
/// before it, or line end without a continuation; `text.len()` when none comes.
fn expression_end(text: &[u8]) -> usize {
    let (mut depth, mut angle) = (0usize, 0usize);
    for (i, &b) in text.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return i,
            },
            b'<' if depth == 0 => angle += 1,
            b'>' if depth == 0 => angle = angle.saturating_sub(1),
            b';' => return i,
            b',' if depth == 0 && angle == 0 => return i,
            b'\n' if i == 0 || text[i - 1] != b'\\' => return i,
            _ => {}
        }
    }
    text.len()
}

/// The offset just past the parenthesis or bracket that closes the one at `open`.
fn closing(text: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in text.iter().enumerate().skip(open) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn new_shape(text: &[u8], start: u32) -> Option<NewShape> {
    let skip_ws = |mut i: usize| {
        while text.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(0);
    let global = text.get(i..i + 2) == Some(b"::".as_slice());
    if global {
        i = skip_ws(i + 2);
    }
    if text.get(i..i + 3) != Some(b"new".as_slice()) {
        return None;
    }
    i = skip_ws(i + 3);
    let mut shape = NewShape { placement: None, nothrow: false, array: None, global };
    if text.get(i) == Some(&b'(') {
        let end = closing(text, i)?;
        let inside = &text[i..end];
        shape.nothrow = inside.windows(7).any(|w| w == b"nothrow");
        shape.placement = Some((start + i as u32, start + end as u32));
        i = skip_ws(end);
    }
    // The type runs to an array bound, an initializer, or the end.
    let mut angle = 0usize;
    while let Some(&b) = text.get(i) {
        match b {
            b'<' => angle += 1,
            b'>' => angle = angle.saturating_sub(1),
            b'[' if angle == 0 => {
                let end = closing(text, i)?;
                shape.array = Some((start + i as u32, start + end as u32));
                break;
            }
            b'(' | b'{' if angle == 0 => break,
            _ => {}
        }
        i += 1;
    }
    Some(shape)
}

/// The class-specific allocation function `name` (`operator new`, `operator delete` or their
/// array forms) a `new` or `delete` of an object of type `ty` uses: the one the class declares
/// or inherits, taking one argument (the size, or the pointer; the sized `operator delete` two).
/// `None`: the global one runs (no such member, a class of a system header, a template's
/// instantiation, or only placement and `nothrow` overloads).
pub(super) fn class_allocation_function(ty: CXType, name: &str) -> Option<Cursor> {
    let c = clang::canonical(ty);
    if c.kind != CXType_Record {
        return None;
    }
    let def = clang::type_declaration(c)?.definition()?;
    if def.is_in_system_header() || def.specialized_template().is_some() {
        return None;
    }
    let deleting = name.starts_with("operator delete");
    // The class first, then its bases (a name in a base is found only when the class has none).
    let mut todo = std::collections::VecDeque::from([def]);
    let mut visited = 0;
    while let Some(d) = todo.pop_front() {
        visited += 1;
        if visited > 64 {
            break;
        }
        let mut found = false;
        for k in d.children() {
            match k.kind() {
                CXCursor_CXXMethod if k.spelling() == name => {
                    found = true;
                    let n = k.num_args();
                    if n == 1
                        || (deleting
                            && n == 2
                            && clang::classify(clang::canonical(k.arg(1)?.ty())) != TypeClass::Pointer)
                    {
                        return Some(k);
                    }
                }
                CXCursor_CXXBaseSpecifier => {
                    if let Some(b) = clang::type_declaration(clang::canonical(k.ty())).and_then(|b| b.definition()) {
                        todo.push_back(b);
                    }
                }
                _ => {}
            }
        }
        if found {
            // Only placement or `nothrow` forms: the class hides the global ones, which such a
            // `new` cannot then name; leave it to the global row.
            return None;
        }
    }
    None
}

/// How an object of a type dies (`TuCtx::destruction`).
#[derive(Clone)]
pub(super) enum Death {
    /// Nothing runs: no destructor in it or its parts.
    Trivial,
    /// This function runs, with the object's address: the class's destructor (whose lowered
    /// body is followed by its parts' destructors), or the implicit one drip writes.
    Runs(Rc<CalleeInfo>),
    /// What runs is not in the program (a class of a system header, a template's
    /// instantiation, an array of objects with destructors): the object escapes instead.
    Opaque,
}

impl TuCtx<'_, '_> {
    /// How an object of type `ty` dies. A class of the program whose members and bases die in
    /// ways drip knows runs its destructor, or, without one of its own (or with `= default`),
    /// the implicit destructor drip writes for it (`implicit_destructor`).
    pub fn destruction(&mut self, ty: CXType) -> Death {
        let c = clang::canonical(ty);
        match c.kind {
            CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray | CXType_DependentSizedArray => {
                match self.destruction(clang::array_element(c)) {
                    Death::Trivial => Death::Trivial,
                    _ => Death::Opaque,
                }
            }
            CXType_Record if !self.owns_resources(c) => Death::Trivial,
            CXType_Record if super::stdlib::string(c) || super::stdlib::owns_only_storage(c) => Death::Trivial,
            // A `std::function` holds a function, or a closure whose captures drip never follows
            // (a lambda handed to it is not analysed: what it names escapes where it is
            // written), so its death releases nothing drip follows and a class holding one is
            // followed (`fields.rs`: the calls through it).
            CXType_Record if super::lambdas::is_std_function(self, c) => Death::Trivial,
            CXType_Record if super::stdlib::unique_ptr(c).is_some() => {
                let key = c.data[0] as usize;
                if let Some(d) = self.deaths.get(&key) {
                    return d.clone();
                }
                let death = match clang::type_declaration(c).and_then(|d| d.definition()) {
                    Some(def) => Death::Runs(self.owner_destructor(def)),
                    None => Death::Opaque,
                };
                self.deaths.insert(key, death.clone());
                death
            }
            CXType_Record => {
                let key = c.data[0] as usize;
                if let Some(d) = self.deaths.get(&key) {
                    return d.clone();
                }
                // A class cannot hold itself; the entry stops a cycle through a broken AST.
                self.deaths.insert(key, Death::Opaque);
                let death = match clang::type_declaration(c).and_then(|d| d.definition()) {
                    Some(def) if def.specialized_template().is_none() && !def.is_in_system_header() => {
                        let kids = def.children();
                        let parts_known = kids.iter().all(|k| match k.kind() {
                            CXCursor_FieldDecl | CXCursor_CXXBaseSpecifier => {
                                !matches!(self.destruction(k.ty()), Death::Opaque)
                            }
                            _ => true,
                        });
                        let own = kids.iter().find(|k| k.kind() == CXCursor_Destructor);
                        match own {
                            _ if !parts_known => Death::Opaque,
                            Some(d) if !d.is_defaulted() => Death::Runs(self.callee_info(*d)),
                            // A union's members are not destroyed by the compiler's destructor.
                            _ if def.kind() == CXCursor_UnionDecl => Death::Opaque,
                            _ => Death::Runs(self.implicit_destructor(def)),
                        }
                    }
                    _ => Death::Opaque,
                };
                self.deaths.insert(key, death.clone());
                death
            }
            _ => Death::Trivial,
        }
    }

    /// The implicit destructor of the class definition `def`, lowered once per TU after its
    /// functions (`pending_dtors`). Its USR is drip's own (libclang shows no declaration of
    /// it), the same in every TU, and its location the class's, so the merge keeps one.
    fn implicit_destructor(&mut self, def: Cursor) -> Rc<CalleeInfo> {
        let info = Rc::new(CalleeInfo {
            name: format!("{}::~{}", self.qualified_name(def), def.spelling()),
            usr: format!("{IMPLICIT_DTOR}{}", def.usr()),
            noreturn: false,
            builtin: Builtin::None,
        });
        self.pending_dtors.push((def, Rc::clone(&info)));
        info
    }

    /// The destructor drip writes for the standard library owner `def` (`stdlib`), lowered with
    /// the implicit destructors (`pending_dtors`, `lower::lower_implicit_dtor`).
    fn owner_destructor(&mut self, def: Cursor) -> Rc<CalleeInfo> {
        let class = self.type_spelling(clang::canonical(def.ty())).to_string();
        let info = Rc::new(CalleeInfo {
            name: format!("{class}::~{}", def.spelling()),
            usr: format!("{OWNER_DTOR}{}", def.usr()),
            noreturn: false,
            builtin: Builtin::None,
        });
        self.pending_dtors.push((def, Rc::clone(&info)));
        info
    }

    /// Whether a copy of an object of type `ty` made by the compiler's copy (or move)
    /// constructor or assignment is a copy of its bytes: no part of it is copied by code the
    /// program wrote, or by a class drip cannot see.
    pub fn copies_plainly(&mut self, ty: CXType) -> bool {
        let c = clang::canonical(ty);
        match c.kind {
            CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray => {
                self.copies_plainly(clang::array_element(c))
            }
            CXType_Record => {
                let Some(def) = clang::type_declaration(c).and_then(|d| d.definition()) else { return false };
                if def.specialized_template().is_some() || def.is_in_system_header() {
                    return !self.owns_resources(c);
                }
                def.children().into_iter().all(|k| match k.kind() {
                    CXCursor_Constructor => k.is_defaulted() || !(k.is_copy_constructor() || k.is_move_constructor()),
                    CXCursor_CXXMethod => k.is_defaulted() || !(k.is_copy_assignment() || k.is_move_assignment()),
                    CXCursor_FieldDecl | CXCursor_CXXBaseSpecifier => self.copies_plainly(k.ty()),
                    _ => true,
                })
            }
            _ => true,
        }
    }

    /// What dies after the body of the destructor of the class definition `def`: its members
    /// with destructors, in reverse order of declaration (`Some(name)`), then its bases, in
    /// reverse order (`None`: at the object's own address). Parts whose death drip does not
    /// know are left out: a call into such a class is opaque anyway (`self_contained`).
    pub fn destroyed_parts(&mut self, def: Cursor) -> Vec<(Option<String>, Rc<CalleeInfo>)> {
        if def.kind() == CXCursor_UnionDecl {
            return Vec::new();
        }
        let mut members = Vec::new();
        let mut bases = Vec::new();
        for k in def.children() {
            let Death::Runs(f) = (match k.kind() {
                CXCursor_FieldDecl | CXCursor_CXXBaseSpecifier => self.destruction(k.ty()),
                _ => Death::Trivial,
            }) else {
                continue;
            };
            if k.kind() == CXCursor_FieldDecl {
                let name = k.spelling();
                if !name.is_empty() {
                    members.push((Some(name), f));
                }
            } else {
                bases.push((None, f));
            }
        }
        members.reverse();
        bases.reverse();
        members.extend(bases);
        members
    }
}

impl TuCtx<'_, '_> {
    /// The unknown call an object of type `ty` whose destruction drip does not follow escapes
    /// into where it dies (`what`: "destructor at scope exit"): named in `std::` when its death
    /// runs no code of the program (`stdlib::unfollowed_destructor`); an opaque call of its own
    /// destructor when that is the only code of the program it runs (`stdlib::own_destructor_only`:
    /// hunspell's `entries_container` deletes the `AffEntry *`s of its `std::vector`), which
    /// then writes the globals that destructor writes (`summary::Direct::Opaque`).
    pub fn unfollowed_death(&mut self, ty: CXType, what: &str) -> CalleeInfo {
        let usr = match super::stdlib::own_destructor_only(ty) {
            Some(d) => format!("{OPAQUE}{}", self.callee_info(d).usr),
            None => SCOPE_EXIT_USR.to_string(),
        };
        CalleeInfo {
            name: super::stdlib::unfollowed_destructor(ty, what),
            usr,
            noreturn: false,
            builtin: Builtin::None,
        }
    }

    /// Adds the class definition or class template `def` to the TU's hierarchy table
    /// (`ir::CppClass`, `virtuals.rs`): its bases, its virtual methods and what each overrides,
    /// and, for a class with a virtual destructor whose death drip knows, the function that
    /// destroys an object of exactly this class (the destructor drip writes for a class without
    /// one of its own is lowered for it, even when no code of the TU names it: `delete` through
    /// a base pointer in another TU may run it).
    pub fn record_class(&mut self, def: Cursor) {
        let template = matches!(def.kind(), CXCursor_ClassTemplate | CXCursor_ClassTemplatePartialSpecialization);
        let kids = def.children();
        let mut bases = Vec::new();
        let mut virtuals = Vec::new();
        for k in &kids {
            match k.kind() {
                CXCursor_CXXBaseSpecifier => {
                    if let Some(b) = clang::type_declaration(clang::canonical(k.ty())) {
                        bases.push(b.usr());
                    }
                }
                CXCursor_CXXMethod if !template && k.is_virtual_method() => {
                    let usr = self.callee_info(*k).usr.clone();
                    let over = k.overridden().into_iter().map(|o| self.callee_info(o).usr.clone()).collect();
                    virtuals.push((usr, over));
                }
                _ => {}
            }
        }
        let visible = !template && !def.is_in_system_header() && def.specialized_template().is_none();
        let known = visible && !matches!(self.destruction(def.ty()), Death::Opaque);
        let destructor = if known && virtual_destructor(def.ty()) {
            match self.destruction(def.ty()) {
                Death::Runs(f) => Some(f.usr.clone()),
                Death::Opaque => None,
                Death::Trivial => match kids.iter().find(|k| k.kind() == CXCursor_Destructor) {
                    Some(d) if !d.is_defaulted() => Some(self.callee_info(*d).usr.clone()),
                    // A class with nothing to destroy still needs a target: an override of
                    // another class may free what this one keeps.
                    _ => Some(self.implicit_destructor(def).usr.clone()),
                },
            }
        } else {
            None
        };
        let is_abstract = !template && def.is_abstract_class();
        self.classes.push(crate::ir::CppClass {
            usr: def.usr(),
            bases,
            known,
            visible,
            is_abstract,
            destructor,
            virtuals,
        });
    }
}

/// The key of a virtual call of `method` (a USR, `~` for the destructor) through an object of
/// static class `class` (`ir::VIRTUAL_KEY`), and its `sig`.
fn virtual_callee(class: Cursor, method: &str, name: &str) -> Callee {
    Callee::Indirect {
        target: Operand::Unknown,
        sig: format!("{}{name}", crate::ir::VIRTUAL_KEY),
        field: Some(format!("{}{} {method}", crate::ir::VIRTUAL_KEY, class.usr())),
    }
}

impl Lowerer<'_, '_, '_> {
    /// The default construction of the object at `place`, of type `ty`: its default
    /// constructor when the program wrote one, else its parts' (`construct_parts`). Nothing for
    /// a class drip cannot follow (a system header's, a template's instantiation, one that is
    /// not `self_contained`): its death is not followed either, so what it holds escapes.
    pub fn construct_default(&mut self, place: Place, ty: CXType, loc: Loc) {
        let c = clang::canonical(ty);
        if c.kind != CXType_Record {
            return;
        }
        if super::stdlib::unique_ptr(c).is_some() {
            self.assign(super::stdlib::owned(place), Rvalue::Use(Operand::Const(0)), loc);
            return;
        }
        let Some(def) = clang::type_declaration(c).and_then(|d| d.definition()) else { return };
        if def.specialized_template().is_some() || def.is_in_system_header() {
            return;
        }
        let ctors: Vec<Cursor> = def.children().into_iter().filter(|k| k.kind() == CXCursor_Constructor).collect();
        let Some(ctor) = ctors.iter().copied().find(|k| k.num_args() == 0 && !k.is_defaulted()) else {
            if ctors.iter().all(|k| k.num_args() != 0 || k.is_defaulted()) {
                self.construct_parts(place, def, loc);
            }
            return;
        };
        if !self.self_contained(c) {
            return;
        }
        let info = self.cx.callee_info(ctor);
        let usr = info.usr.clone();
        let t = self.new_temp(TypeClass::Pointer, loc);
        self.assign(Place::Local(t), Rvalue::AddrOf(place), loc);
        let callee = Callee::Direct { name: info.name.clone(), usr, const_args: 0 };
        self.emit(Stmt::Call { dst: None, callee, args: vec![Operand::Place(Place::Local(t))] }, loc);
    }

    /// What the compiler's default constructor of the class definition `def` does to the
    /// object at `place`: its bases' and members' default constructors, in order. Members with
    /// an initializer in the class are left alone.
    pub fn construct_parts(&mut self, place: Place, def: Cursor, loc: Loc) {
        if def.kind() == CXCursor_UnionDecl {
            return;
        }
        for k in def.children() {
            match k.kind() {
                CXCursor_CXXBaseSpecifier => self.construct_default(place.clone(), k.ty(), loc),
                CXCursor_FieldDecl if !k.spelling().is_empty() && k.children().iter().all(|c| !c.is_expression()) => {
                    let field = Place::Field(Box::new(place.clone()), k.spelling());
                    self.construct_default(field, k.ty(), loc)
                }
                _ => {}
            }
        }
    }

    /// Start a full expression (in C++): its temporaries with destructors are collected for
    /// `end_full`. Returns the enclosing one's, which `end_full` restores (a statement
    /// expression nests).
    pub fn begin_full(&mut self) -> Option<Vec<(LocalId, Rc<CalleeInfo>)>> {
        if !self.cx.cpp {
            return self.full_expr.take();
        }
        self.full_expr.replace(Vec::new())
    }

    /// End a full expression: destroy its temporaries, last built first, except `kept` (the
    /// object a `return` hands over); restore the enclosing full expression's list.
    pub fn end_full(&mut self, saved: Option<Vec<(LocalId, Rc<CalleeInfo>)>>, kept: Option<LocalId>, loc: Loc) {
        let temps = std::mem::replace(&mut self.full_expr, saved).unwrap_or_default();
        for (t, f) in temps.into_iter().rev() {
            if Some(t) == kept || self.cur.is_none() {
                continue;
            }
            self.destroy_at(Rvalue::AddrOf(Place::Local(t)), &f, loc);
        }
    }

    /// Call the destructor `f` on the object whose address `addr` is.
    fn destroy_at(&mut self, addr: Rvalue, f: &CalleeInfo, loc: Loc) {
        let t = self.new_temp(TypeClass::Pointer, loc);
        self.assign(Place::Local(t), addr, loc);
        let callee = Callee::Direct { name: f.name.clone(), usr: f.usr.clone(), const_args: 0 };
        self.emit(Stmt::Call { dst: None, callee, args: vec![Operand::Place(Place::Local(t))] }, loc);
    }

    /// A temporary object of type `ty` at local `t`, just built: destroyed at the end of the
    /// full expression when drip knows its destructor and is collecting; otherwise what it
    /// holds escapes now (`SCOPE_EXIT_USR`), as its destruction is not followed.
    pub(super) fn temporary_object(&mut self, t: LocalId, ty: CXType, loc: Loc) {
        match self.cx.destruction(ty) {
            Death::Trivial => {}
            Death::Runs(f) if self.full_expr.is_some() => {
                if let Some(v) = self.full_expr.as_mut() {
                    v.push((t, f));
                }
            }
            _ => {
                let f = self.cx.unfollowed_death(ty, "destructor of a temporary");
                self.destroy_at(Rvalue::AddrOf(Place::Local(t)), &f, loc);
            }
        }
    }

    /// A temporary object passed by value (`take(Buf())`, `take(b)` through a copy): the IR
    /// passes a copy of it, so what the callee does to its parameter (moves from it) is not
    /// seen here; destroying the temporary after the call could free what the callee kept.
    /// It escapes instead of being destroyed.
    fn hand_over(&mut self, op: &Operand, loc: Loc) {
        let Operand::Place(Place::Local(t)) = op else { return };
        let Some(temps) = self.full_expr.as_mut() else { return };
        let Some(i) = temps.iter().position(|(l, _)| l == t) else { return };
        let (_, dtor) = temps.remove(i);
        // Its destructor runs later, in the callee or after it: the globals it writes are its.
        let f = CalleeInfo {
            name: "(temporary passed by value, not analysed)".to_string(),
            usr: format!("{OPAQUE}{}", dtor.usr),
            noreturn: false,
            builtin: Builtin::None,
        };
        self.destroy_at(Rvalue::AddrOf(Place::Local(*t)), &f, loc);
    }

    /// Run the destructors `destroyed_parts` lists on `*this`.
    pub fn destroy_parts(&mut self, parts: &[(Option<String>, Rc<CalleeInfo>)], loc: Loc) {
        let Some(this) = self.this_local else { return };
        for (member, f) in parts {
            let arg = match member {
                Some(name) => {
                    let object = Place::Deref(Box::new(Place::Local(this)));
                    let t = self.new_temp(TypeClass::Pointer, loc);
                    self.assign(Place::Local(t), Rvalue::AddrOf(Place::Field(Box::new(object), name.clone())), loc);
                    Operand::Place(Place::Local(t))
                }
                None => Operand::Place(Place::Local(this)),
            };
            let callee = Callee::Direct { name: f.name.clone(), usr: f.usr.clone(), const_args: 0 };
            self.emit(Stmt::Call { dst: None, callee, args: vec![arg] }, loc);
        }
    }

    /// The local object `return e` names (`return x;`, through the copy or move constructor the
    /// compiler elides): the function's result is that object, which outlives the function.
    pub fn returned_local(&mut self, e: Cursor) -> Option<LocalId> {
        let mut s = self.strip(e);
        if s.kind() == CXCursor_CallExpr
            && s.referenced().is_some_and(|d| d.kind() == CXCursor_Constructor)
            && s.num_args() == 1
        {
            let a = s.arg(0)?;
            s = self.strip(self.cx.tree.among_kids(s, a));
        }
        if s.kind() != CXCursor_DeclRefExpr || s.type_class() != TypeClass::Record {
            return None;
        }
        let var = s.referenced().filter(|d| d.kind() == CXCursor_VarDecl)?;
        let same = clang::same_type(clang::canonical(var.ty()), clang::canonical(e.ty()));
        match self.vars.get(&var.decl_key()) {
            Some(v) if same && !v.is_ref => match v.place {
                Place::Local(l) if self.locals[l.index()].kind == LocalKind::Var => Some(l),
                _ => None,
            },
            _ => None,
        }
    }

    /// The source text of `c` and where it starts, when it is written outside macros.
    fn written(&self, c: Cursor) -> Option<(u32, &[u8])> {
        if c.in_macro() {
            return None;
        }
        let (f, start, end) = c.file_span()?;
        let text = self.cx.file_text(f)?;
        Some((start, text.get(start as usize..end as usize)?))
    }

    /// A note on a construct drip does not analyse; every local `e` names escapes through an
    /// opaque call, since the construct may free, keep or overwrite it.
    pub(super) fn not_analysed(&mut self, e: Cursor, what: &str) {
        let loc = self.loc(e);
        self.note(loc, format!("{NOT_ANALYSED}{what}; the locals it names escape"));
        let mut named: Vec<Place> = Vec::new();
        let mut stack = vec![e];
        while let Some(c) = stack.pop() {
            if c.kind() == CXCursor_DeclRefExpr {
                if let Some(v) = c.referenced().and_then(|d| self.vars.get(&d.decl_key())) {
                    if matches!(v.place, Place::Local(_)) && !named.contains(&v.place) {
                        named.push(v.place.clone());
                    }
                }
            }
            stack.extend(self.kids(c));
        }
        if let Some(this) = self.this_local {
            named.push(Place::Local(this));
        }
        if named.is_empty() {
            return;
        }
        let mut args = Vec::with_capacity(named.len());
        for p in named {
            let t = self.new_temp(TypeClass::Pointer, loc);
            self.assign(Place::Local(t), Rvalue::AddrOf(p), loc);
            args.push(Operand::Place(Place::Local(t)));
        }
        let callee = Callee::Direct {
            name: format!("({what})"),
            usr: format!("{OPAQUE}{}", what.replace(' ', "-")),
            const_args: 0,
        };
        self.emit(Stmt::Call { dst: None, callee, args }, loc);
    }

    /// An expression kind the C++ lowering does not know: an unknown value.
    pub fn cpp_unsupported(&mut self, e: Cursor) -> Rvalue {
        let kind = e.kind_name();
        self.not_analysed(e, &format!("expression {kind}"));
        Rvalue::Use(Operand::Unknown)
    }

    /// A lambda: its body is not lowered, and what it captures escapes.
    pub fn lambda_expr(&mut self, e: Cursor) -> Rvalue {
        self.not_analysed(e, "lambda");
        Rvalue::Use(Operand::Unknown)
    }

    /// `throw e`: the operand is evaluated, then the exception leaves (`leave_by_exception`).
    pub fn throw_expr(&mut self, e: Cursor) {
        let loc = self.loc(e);
        let mut thrown = None;
        for k in self.kids(e) {
            if k.is_expression() {
                thrown = Some(caught_type(k.ty()));
                self.effect(k);
            }
        }
        self.leave_by_exception(thrown, loc);
    }

    /// An exception (of type `thrown`, by `caught_type`, when known) thrown here: the scopes it
    /// leaves die (their destructors run, last built first, as at a `return`), then control goes
    /// to the handler of the innermost `try` that catches exactly that type, else to its
    /// dispatch (any handler, or on out), or leaves the function (`Function::throws`: what only
    /// locals hold is lost there).
    pub(super) fn leave_by_exception(&mut self, thrown: Option<String>, loc: Loc) {
        if self.cur.is_none() {
            return;
        }
        let target = self.tries.last().cloned();
        self.run_cleanups(target.as_ref().map_or(0, |t| t.scopes), loc);
        match target {
            Some(t) => {
                let exact =
                    thrown.and_then(|ty| t.handlers.iter().find(|h| h.1.as_deref() == Some(ty.as_str())).map(|h| h.0));
                self.goto(exact.unwrap_or(t.dispatch), loc)
            }
            None => {
                if let Some(b) = self.cur {
                    self.throws.push(b);
                }
                self.terminate(Terminator::NoReturn, loc);
            }
        }
    }

    /// `try { … } catch …`: the body, then its handlers, reached from the body's `throw`s (and,
    /// with `--exceptions`, its calls that may throw: `Function::unwinds`). A `throw` of a type
    /// a handler names exactly goes to it; any other exception goes to a dispatch block from
    /// which any handler may catch it (class hierarchies are not compared), and, without a
    /// `catch (...)`, it may also leave the `try` (`leave_by_exception`).
    pub fn try_stmt(&mut self, s: Cursor) {
        let loc = self.loc(s);
        let kids = self.kids(s);
        let (handlers, body): (Vec<Cursor>, Vec<Cursor>) =
            kids.iter().copied().partition(|k| k.kind() == CXCursor_CXXCatchStmt);
        let dispatch = self.new_block();
        let after = self.new_block();
        let mut entries = Vec::with_capacity(handlers.len());
        for h in &handlers {
            // `catch (...)` declares no variable.
            let var = self.kids(*h).into_iter().find(|k| k.kind() == CXCursor_VarDecl);
            entries.push((self.new_block(), var.map(|v| caught_type(v.ty()))));
        }
        self.tries.push(super::lower::TryCtx { dispatch, handlers: entries.clone(), scopes: self.scopes.len() });
        for k in body {
            self.stmt(k);
        }
        self.tries.pop();
        self.goto(after, loc);
        self.cur = Some(dispatch);
        let catch_all = entries.iter().any(|e| e.1.is_none());
        for &(block, ref ty) in &entries {
            if self.cur.is_none() {
                break;
            }
            if ty.is_none() {
                self.goto(block, loc);
                break;
            }
            let next = self.new_block();
            let cond = Cond { kind: CondKind::Opaque, text: "(the handler catches it)".into(), text_on_else: false };
            self.terminate(Terminator::Branch { cond, then_: block, else_: next }, loc);
            self.cur = Some(next);
        }
        if !catch_all {
            self.leave_by_exception(None, loc);
        }
        for (h, (block, _)) in handlers.into_iter().zip(entries) {
            self.cur = Some(block);
            self.catch_handler(h);
            let hloc = self.cx.loc(h.extent_end());
            self.goto(after, hloc);
        }
        self.cur = Some(after);
    }

    /// One `catch (decl) { … }`: its variable (holding nothing drip knows) lives in a scope of
    /// its own around the body.
    fn catch_handler(&mut self, h: Cursor) {
        let key = h.stmt_key();
        self.scopes.push(super::lower::CleanupScope { key, vars: Vec::new() });
        for k in self.kids(h) {
            match k.kind() {
                CXCursor_VarDecl => self.decl(k),
                _ => self.stmt(k),
            }
        }
        if self.cur.is_some() && self.scopes.last().is_some_and(|sc| !sc.vars.is_empty()) {
            let loc = self.cx.loc(h.extent_end());
            let depth = self.scopes.len() - 1;
            self.run_cleanups(depth, loc);
        }
        self.scopes.pop();
    }

    /// Record the call just emitted at statement `call` as one that may throw
    /// (`Function::unwinds`), with the destructors an exception from it runs and the handlers
    /// it reaches.
    fn may_throw_at(&mut self, call: StmtId) {
        let target = self.tries.last();
        let cleanups = self.cleanups_from(target.map_or(0, |t| t.scopes));
        let handler = target.map(|t| t.dispatch);
        self.unwinds.push(Unwind { call, cleanups, handler });
    }

    /// `for (decl : range) body`: a loop over the range whose condition is unknown; the loop
    /// variable gets no value (the element it names is not followed).
    pub fn range_for(&mut self, s: Cursor) {
        let kids = self.kids(s);
        let Some((&body, parts)) = kids.split_last() else { return };
        let loc = self.loc(s);
        // The loop variable, and the standard container of pointers the loop walks, if it is one
        // (`stdlib::Container`): each iteration binds the variable to the container's cell.
        let mut var = None;
        let mut walked: Option<Place> = None;
        for p in parts {
            match p.kind() {
                CXCursor_VarDecl => {
                    let id = self.new_temp(p.type_class(), loc);
                    let is_ref = p.type_class() == TypeClass::Pointer && clang::is_reference(p.ty());
                    let v = super::lower::VarInfo {
                        place: Place::Local(id),
                        is_array: p.type_class() == TypeClass::Array,
                        is_ref,
                    };
                    self.vars.insert(p.decl_key(), v);
                    // A copy of a map's pair is read, not changed, in the loops drip follows:
                    // it names the cell too, whose fields facts then see.
                    let alias = is_ref || p.type_class() == TypeClass::Record;
                    var = Some((Place::Local(id), alias, p.decl_key()));
                }
                _ if p.is_expression() && walked.is_none() => match self.range_container(*p) {
                    Some((obj, _)) => walked = Some(obj),
                    None if self.in_template => self.not_analysed(*p, "loop over a dependent range"),
                    None => self.stmt(*p),
                },
                k if p.is_expression() || k == CXCursor_DeclStmt => self.stmt(*p),
                _ => {}
            }
        }
        let header = self.new_block();
        let body_b = self.new_block();
        let exit = self.new_block();
        // Over a modelled container the loop counts its elements, as C's `for (i = 0; i < n;
        // i++)` over an array does, so that it runs when something was stored.
        let counter = walked.as_ref().map(|obj| {
            let i = self.new_temp(TypeClass::Other, loc);
            self.assign(Place::Local(i), Rvalue::Use(Operand::Const(0)), loc);
            (i, super::stdlib::size(obj.clone()))
        });
        let step = counter.as_ref().map(|_| self.new_block());
        self.enter(header, loc);
        let kind = match &counter {
            Some((i, size)) => CondKind::Cmp(CmpOp::Lt, Operand::Place(Place::Local(*i)), Operand::Place(size.clone())),
            None => CondKind::Opaque,
        };
        let cond = Cond { kind, text: "(range not at its end)".to_string(), text_on_else: false };
        self.terminate(Terminator::Branch { cond, then_: body_b, else_: exit }, loc);
        let cont = step.unwrap_or(header);
        self.jumps.push(super::lower::Jump::Loop { brk: exit, cont, scopes: self.scopes.len() });
        self.enter(body_b, loc);
        if let (Some((v, alias, key)), Some(obj)) = (var, walked) {
            if alias {
                // A reference to the element names the cell itself.
                let cell = super::stdlib::cell(obj);
                self.vars.insert(key, super::lower::VarInfo { place: cell, is_array: false, is_ref: false });
            } else {
                self.assign(v, Rvalue::Use(Operand::Place(super::stdlib::cell(obj))), loc);
            }
        }
        self.stmt(body);
        self.goto(cont, loc);
        if let (Some(step), Some((i, _))) = (step, counter) {
            self.enter(step, loc);
            let i = Place::Local(i);
            let src = Rvalue::Opaque(vec![Operand::Place(i.clone()), Operand::Const(1)]);
            self.assign_step(i, src, 1, true, loc);
            self.goto(header, loc);
        }
        self.jumps.pop();
        self.enter(exit, loc);
    }

    /// A constructor's member and base initializers (`: buf(new char[n]), Base(x)`), in order.
    pub fn member_initializers(&mut self, f: Cursor) {
        let Some(this) = self.this_local else { return };
        let kids = self.kids(f);
        let object = Place::Deref(Box::new(Place::Local(this)));
        let class = f.semantic_parent().and_then(|c| c.definition());
        // The parts the initializers name; the others are default-constructed.
        let mut named_fields: Vec<String> = Vec::new();
        let mut named_bases: Vec<CXType> = Vec::new();
        let mut i = 0;
        while i + 1 < kids.len() {
            let (k, init) = (kids[i], kids[i + 1]);
            i += 1;
            if !init.is_expression() {
                continue;
            }
            let loc = self.loc(init);
            match k.kind() {
                CXCursor_MemberRef => {
                    let Some(field) = k.referenced() else { continue };
                    named_fields.push(field.spelling());
                    let place = Place::Field(Box::new(object.clone()), field.spelling());
                    if clang::is_reference(field.ty()) {
                        let rv = self.addr_of(init);
                        self.assign(place, rv, loc);
                    } else {
                        self.init_var(place, init, field.ty(), loc);
                    }
                    i += 1;
                }
                CXCursor_TypeRef => {
                    // A base class: its constructor builds the object at `this`.
                    named_bases.push(clang::canonical(k.ty()));
                    self.assign_to(object.clone(), init, loc);
                    i += 1;
                }
                _ => {}
            }
        }
        let Some(def) = class.filter(|d| d.kind() != CXCursor_UnionDecl) else { return };
        let own = clang::canonical(def.ty());
        if named_bases.iter().any(|b| clang::same_type(*b, own)) {
            // A delegating constructor: the one it names builds every part.
            return;
        }
        let loc = self.loc(f);
        for k in def.children() {
            match k.kind() {
                CXCursor_CXXBaseSpecifier
                    if !named_bases.iter().any(|b| clang::same_type(*b, clang::canonical(k.ty()))) =>
                {
                    self.construct_default(object.clone(), k.ty(), loc)
                }
                CXCursor_FieldDecl
                    if !named_fields.contains(&k.spelling())
                        && !k.spelling().is_empty()
                        && k.children().iter().all(|c| !c.is_expression()) =>
                {
                    let field = Place::Field(Box::new(object.clone()), k.spelling());
                    self.construct_default(field, k.ty(), loc)
                }
                _ => {}
            }
        }
    }

    /// A call whose callee libclang names (a function, method, constructor, destructor or
    /// conversion), `None` for the C lowering (a call through a pointer, a builtin).
    pub fn cpp_call(&mut self, e: Cursor, want: &Want) -> Option<Option<Rvalue>> {
        let decl = e.referenced().filter(|d| is_function_kind(d.kind()))?;
        if decl.kind() == CXCursor_FunctionDecl && self.cx.callee_info(decl).builtin != Builtin::None {
            return None;
        }
        if let Some(r) = self.held_call(e, decl, want) {
            return Some(r);
        }
        if let Some(r) = self.std_function_call(e, decl, want) {
            return Some(r);
        }
        Some(self.cpp_call_on(e, decl, want, None))
    }

    /// `cpp_call` with the callee `decl`; `object`: the address a constructor builds at (`new`),
    /// instead of `want`'s place or a temporary.
    pub(super) fn cpp_call_on(
        &mut self,
        e: Cursor,
        decl: Cursor,
        want: &Want,
        object: Option<Operand>,
    ) -> Option<Rvalue> {
        if let Some(r) = self.std_call(e, decl, want, object.as_ref()) {
            return r;
        }
        if let Some(r) = self.iterator_call(e, decl, want) {
            return r;
        }
        // The constructor of a `new` expression: an exception from it frees the new object.
        let in_new = object.is_some();
        let info = self.cx.callee_info(decl);
        let kind = decl.kind();
        let loc = self.loc(e);
        let fn_ty = clang::canonical(decl.ty());
        let has_this = match kind {
            CXCursor_CXXMethod | CXCursor_ConversionFunction => !decl.is_static_method(),
            CXCursor_Constructor | CXCursor_Destructor => true,
            _ => false,
        };
        let mut args = Vec::new();
        let mut first_arg = 0u32;
        let mut built: Option<Place> = None;
        let mut temporary = false;
        // A temporary destroyed at the end of its full expression (`temporary_object`).
        let mut temp_known = false;
        if kind == CXCursor_Constructor {
            let this = match (object, want) {
                (Some(o), _) => o,
                (None, Want::Into(d)) => {
                    built = Some(d.clone());
                    self.rvalue_operand(Rvalue::AddrOf(d.clone()), loc)
                }
                (None, _) => {
                    temporary = true;
                    let t = self.new_temp_of(TypeClass::Record, e.ty(), loc);
                    if let Some(class) = decl.semantic_parent() {
                        if self.full_expr.is_some() && self.self_contained(class.ty()) {
                            temp_known = true;
                            self.temporary_object(t, class.ty(), loc);
                        }
                    }
                    built = Some(Place::Local(t));
                    self.rvalue_operand(Rvalue::AddrOf(Place::Local(t)), loc)
                }
            };
            args.push(this);
        } else if has_this {
            let (obj, first) = self.method_object(e);
            first_arg = first;
            args.push(obj);
        }
        let n = e.num_args().max(0) as u32;
        // The function objects of the program a library function is handed, with their call
        // operators: the calls it may make of them are written after it (`stdlib::functor_calls`).
        let library = crate::global_writes::is_std_library(&info.name);
        let mut functors: Vec<(Operand, Vec<Cursor>)> = Vec::new();
        for i in first_arg..n {
            let Some(a) = e.arg(i) else {
                args.push(Operand::Unknown);
                continue;
            };
            let a = self.cx.tree.among_kids(e, a);
            let calls = library.then(|| super::stdlib::functor_calls(a.ty())).flatten();
            let pty = clang::param_type(fn_ty, i - first_arg);
            if pty.is_some_and(|t| clang::is_reference(t) || super::stdlib::owner_by_value(t)) {
                // A reference parameter receives the address of its argument; so does a
                // `std::unique_ptr` by value, whose object is the caller's temporary (as the
                // C++ ABI passes it), destroyed by the caller after the call.
                let rv = self.addr_of(a);
                let op = self.rvalue_operand(rv, loc);
                if let Some(calls) = calls {
                    functors.push((op.clone(), calls));
                }
                args.push(op);
            } else {
                let op = self.expr(a);
                self.hand_over(&op, loc);
                if let (Some(calls), Operand::Place(p)) = (calls, &op) {
                    let addr = self.rvalue_operand(Rvalue::AddrOf(p.clone()), loc);
                    functors.push((addr, calls));
                }
                args.push(op);
            }
        }
        let class_ty = decl.semantic_parent().map(|p| p.ty());
        // A virtual call dispatched on the object's class goes to every override of the classes
        // the object may be of, when drip sees them all (`virtuals.rs`); one qualified by a
        // class name, or through a class whose death drip does not know, stays opaque.
        let dynamic = has_this && kind != CXCursor_Constructor && decl.is_virtual_method() && e.is_dynamic_call();
        let dispatch_class = dynamic.then(|| self.dispatch_class(e, decl)).flatten();
        let dispatched = dispatch_class.filter(|s| self.self_contained(s.ty())).map(|s| {
            let method = if kind == CXCursor_Destructor { "~".to_string() } else { info.usr.clone() };
            virtual_callee(s, &method, &info.name)
        });
        // A method of a class template of the program, or of an implicit instantiation of one,
        // is its pattern's body (`TuCtx::template_member`), whatever the object's death.
        let pattern = !decl.is_defaulted() && self.cx.template_member(decl).is_some_and(|t| !t.is_defaulted());
        let opaque = has_this
            && ((decl.is_virtual_method() && dispatched.is_none())
                || (!pattern && class_ty.is_some_and(|t| !self.self_contained(t)))
                || (temporary && !temp_known && class_ty.is_some_and(|t| self.cx.owns_resources(t))));
        let plain_copy = args.len() == 2 && class_ty.is_some_and(|t| self.cx.copies_plainly(t));
        if !opaque
            && dispatched.is_none()
            && decl.is_defaulted()
            && matches!(kind, CXCursor_Constructor | CXCursor_CXXMethod)
        {
            // What the compiler writes for a class whose death drip knows: its parts' default
            // constructors (a default constructor), or a copy of the object (copy and move
            // constructors and assignments, when no part has one the program wrote), which
            // `*this` is then.
            if let (Some(Operand::Place(this)), rest) = (args.first().cloned(), &args[1..]) {
                let this_obj = self.object_at(this);
                let def =
                    class_ty.and_then(|t| clang::type_declaration(clang::canonical(t))).and_then(|d| d.definition());
                if let ([], Some(def), CXCursor_Constructor) = (rest, def, kind) {
                    self.construct_parts(this_obj.clone(), def, loc);
                }
                if rest.len() == 1 && !plain_copy {
                    // Left to the call below: a part copies itself by the program's code.
                } else if let [Operand::Place(src)] = rest {
                    let src = Rvalue::Use(Operand::Place(self.object_at(src.clone())));
                    self.assign(this_obj.clone(), src, loc);
                }
                if rest.is_empty() || plain_copy {
                    return match (kind, want) {
                        (CXCursor_Constructor, Want::Value) => {
                            Some(Rvalue::Use(built.map_or(Operand::Unknown, Operand::Place)))
                        }
                        (CXCursor_Constructor, _) | (_, Want::Effect) => None,
                        (_, Want::Into(d)) => {
                            self.assign(d.clone(), Rvalue::Use(Operand::Place(this_obj)), loc);
                            None
                        }
                        (_, Want::Value) => Some(Rvalue::Use(Operand::Place(this_obj))),
                    };
                }
            }
        }
        let callee = if let Some(c) = dispatched {
            c
        } else if opaque {
            match dispatch_class {
                // Any override may run: the class hierarchy names them (`virtuals.rs`).
                Some(s) if kind != CXCursor_Destructor => Callee::Indirect {
                    target: Operand::Unknown,
                    sig: format!("{}{}", crate::ir::VIRTUAL_KEY, info.name),
                    field: Some(format!("{}{} {}", crate::ir::OPAQUE_VIRTUAL_KEY, s.usr(), info.usr)),
                },
                // What the compiler writes for a class whose parts run no code of the program
                // (`Entries() = default` over a `std::vector<int *>`) runs none either.
                _ if decl.is_defaulted() && class_ty.is_some_and(super::stdlib::parts_run_no_code) => {
                    let name = format!("std::({}, written by the compiler)", info.name);
                    Callee::Direct { name, usr: format!("{OPAQUE}{}", info.usr), const_args: 0 }
                }
                _ => {
                    let prefix = if dynamic { OPAQUE_DISPATCHED } else { OPAQUE };
                    Callee::Direct { name: info.name.clone(), usr: format!("{prefix}{}", info.usr), const_args: 0 }
                }
            }
        } else if kind == CXCursor_FunctionDecl {
            Callee::Direct {
                name: info.name.clone(),
                usr: info.usr.clone(),
                const_args: clang::const_pointer_params(fn_ty),
            }
        } else {
            // A method with no body in the program keeps what it is given, unless modelled.
            Callee::Direct { name: info.name.clone(), usr: info.usr.clone(), const_args: 0 }
        };
        let mark = self.stmts.len();
        let result = if kind == CXCursor_Constructor {
            self.emit(Stmt::Call { dst: None, callee, args }, loc);
            match (want, built) {
                (Want::Value, Some(p)) => Some(Rvalue::Use(Operand::Place(p))),
                (Want::Value, None) => Some(Rvalue::Use(Operand::Unknown)),
                _ => None,
            }
        } else if clang::is_reference(clang::result_of(fn_ty)) {
            // The call returns the address of the object its value is.
            let t = self.new_temp(TypeClass::Pointer, loc);
            self.emit(Stmt::Call { dst: Some(Place::Local(t)), callee, args }, loc);
            let obj = Place::Deref(Box::new(Place::Local(t)));
            match want {
                Want::Effect => None,
                Want::Into(d) => {
                    self.assign(d.clone(), Rvalue::Use(Operand::Place(obj)), loc);
                    None
                }
                Want::Value if e.type_class() == TypeClass::Array => Some(Rvalue::AddrOf(obj)),
                Want::Value => Some(Rvalue::Use(Operand::Place(obj))),
            }
        } else if e.type_class() == TypeClass::Record && !matches!(want, Want::Into(_)) {
            // An object returned by value and not stored: a temporary.
            let t = self.new_temp_of(TypeClass::Record, e.ty(), loc);
            self.emit(Stmt::Call { dst: Some(Place::Local(t)), callee, args }, loc);
            self.temporary_object(t, e.ty(), loc);
            match want {
                Want::Value => Some(self.local_value(t)),
                _ => None,
            }
        } else {
            self.emit_call(e, callee, args, want.clone(), loc)
        };
        if !in_new && may_throw(decl, &info.usr) {
            if let Some(call) = (mark..self.stmts.len()).find(|&i| matches!(self.stmts[i], Stmt::Call { .. })) {
                self.may_throw_at(StmtId::from_usize(call));
            }
        }
        // Unknown to the heap (the object escaped into the call), but the operator's body is
        // the code that runs (`summary::Direct::Opaque`).
        for (obj, calls) in functors {
            for op in calls {
                let op = self.cx.callee_info(op);
                let name = format!("{} (called by {})", op.name, info.name);
                let callee = Callee::Direct { name, usr: format!("{OPAQUE}{}", op.usr), const_args: 0 };
                self.emit(Stmt::Call { dst: None, callee, args: vec![obj.clone()] }, loc);
            }
        }
        if info.noreturn {
            self.terminate(Terminator::NoReturn, loc);
        }
        result
    }

    /// The object a method call `e` is made on (its `this`), and the index of the call's first
    /// argument that is not the object (1 for an overloaded operator, whose first operand it is).
    pub(super) fn method_object(&mut self, e: Cursor) -> (Operand, u32) {
        let loc = self.loc(e);
        let kids = self.kids(e);
        let callee_c = kids.first().map(|k| self.strip(*k));
        // `obj.method (..)` names the method in a member reference; an operator's call may
        // list its left operand first instead (`r->data = Slice (u, n)` with the compiler's
        // `operator=`), a member reference to a field, which is the object, not the callee.
        let names_method = |c: &Cursor| {
            c.kind() == CXCursor_MemberRefExpr && c.referenced().is_some_and(|r| is_function_kind(r.kind()))
        };
        match callee_c.filter(names_method) {
            Some(m) => match self.kids(m).into_iter().find(|c| c.is_expression()) {
                None => (self.this_local.map_or(Operand::Unknown, |t| Operand::Place(Place::Local(t))), 0),
                Some(b) if clang::classify(clang::canonical(b.ty())) == TypeClass::Pointer => (self.expr(b), 0),
                Some(b) => {
                    let rv = self.addr_of(b);
                    (self.rvalue_operand(rv, loc), 0)
                }
            },
            // An overloaded operator's call: the object is its first operand.
            None => match e.arg(0) {
                Some(a0) => {
                    let a0 = self.cx.tree.among_kids(e, a0);
                    let rv = self.addr_of(a0);
                    (self.rvalue_operand(rv, loc), 1)
                }
                None => (Operand::Unknown, 1),
            },
        }
    }

    /// The class a virtual call `e` of `decl` dispatches on: that of the object it names
    /// (`p->run ()`, `obj.run ()`), else (`run ()` inside a method) the class declaring `decl`,
    /// whose subclasses include the caller's.
    fn dispatch_class(&mut self, e: Cursor, decl: Cursor) -> Option<Cursor> {
        let callee_c = self.kids(e).first().map(|k| self.strip(*k));
        let base = callee_c
            .filter(|c| c.kind() == CXCursor_MemberRefExpr)
            .and_then(|m| self.kids(m).into_iter().find(|c| c.is_expression()));
        let class = match base {
            Some(b) => {
                let t = clang::canonical(b.ty());
                let t = if clang::classify(t) == TypeClass::Pointer { clang::canonical(clang::pointee(t)) } else { t };
                clang::type_declaration(t)
            }
            None => decl.semantic_parent(),
        };
        class.and_then(|c| c.definition())
    }

    /// The object at the address `p` holds: the place whose address a lowering temporary was
    /// given (`&x` for `x`, so that a copy of `x` is a copy of a variable, as in C), else `*p`.
    pub(super) fn object_at(&self, p: Place) -> Place {
        if let Place::Local(t) = p {
            if self.locals[t.index()].kind == LocalKind::Temp {
                let def = self.stmts.iter().rev().find_map(|s| match s {
                    Stmt::Assign { dst: Place::Local(d), src } if *d == t => Some(Some(src)),
                    Stmt::Call { dst: Some(Place::Local(d)), .. } if *d == t => Some(None),
                    _ => None,
                });
                if let Some(Some(Rvalue::AddrOf(x))) = def {
                    return x.clone();
                }
            }
        }
        Place::Deref(Box::new(p))
    }

    /// A class of the program whose death drip knows (`destruction`): its own destructor, its
    /// members' and its bases', all lowered. Calls into it are summarised; calls into any other
    /// class are opaque.
    fn self_contained(&mut self, class_ty: CXType) -> bool {
        let c = clang::canonical(class_ty);
        c.kind == CXType_Record && !matches!(self.cx.destruction(c), Death::Opaque)
    }

    /// `new T`, `new T[n]`, `new (std::nothrow) T`, `new (place) T(args)`.
    pub fn new_expr(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let loc = self.loc(e);
        // A `new` a macro wrote (groff's `v = new PASSOC(T)[size]` in `declare_ptable`) is read
        // where the macro spells it, and its operands are placed by their spelling too; one
        // passed in as a macro argument is spelled elsewhere and so counts as the initializer.
        let (shape, spelled_in) = match self.written(e) {
            Some((start, text)) => (new_shape(text, start), None),
            None => match e.spelling_offset() {
                Some((f, off)) => {
                    let text = self.cx.file_text(f).and_then(|t| t.get(off as usize..)).unwrap_or_default();
                    (new_shape(&text[..expression_end(text)], off), Some(f))
                }
                None => (None, None),
            },
        };
        let Some(shape) = shape else {
            self.not_analysed(e, "`new` written inside a macro");
            return Some(Rvalue::Use(Operand::Unknown));
        };
        let inside = |k: Cursor, r: Option<(u32, u32)>| {
            let off = match spelled_in {
                None => k.file_span().map(|(_, off, _)| off),
                Some(f) => k.spelling_offset().filter(|(kf, _)| clang::same_file(*kf, f)).map(|(_, off)| off),
            };
            match (off, r) {
                (Some(off), Some((a, b))) => a <= off && off < b,
                _ => false,
            }
        };
        let mut placement = Vec::new();
        let mut size = None;
        let mut init = None;
        for k in self.kids(e) {
            if !k.is_expression() {
                continue;
            }
            if inside(k, shape.placement) {
                placement.push(k);
            } else if inside(k, shape.array) {
                size = Some(k);
            } else {
                init = Some(k);
            }
        }
        // Placement arguments a macro was handed are not told from an initializer: rather than
        // take `new (ARG) T` for an allocation, the expression is left unanalysed.
        if spelled_in.is_some() && shape.placement.is_some() && !shape.nothrow && placement.is_empty() {
            self.not_analysed(e, "`new` written inside a macro");
            return Some(Rvalue::Use(Operand::Unknown));
        }
        // `new (T)` is a parenthesised type, not a placement.
        let placed = !shape.nothrow && !placement.is_empty();
        let mut place_ops = Vec::new();
        for p in placement {
            place_ops.push(self.expr(p));
        }
        let size_op = size.map_or(Operand::Unknown, |s| self.expr(s));
        let ptr = if placed {
            place_ops.into_iter().next().unwrap_or(Operand::Unknown)
        } else {
            let name = match (shape.array.is_some(), shape.nothrow) {
                (false, false) => NEW,
                (true, false) => NEW_ARRAY,
                (false, true) => NEW_NOTHROW,
                (true, true) => NEW_ARRAY_NOTHROW,
            };
            let t = self.new_temp(TypeClass::Pointer, loc);
            // A class's own `operator new` (not for `::new`, nor for `nothrow`, whose overload is
            // another): its body decides whether the object is a block of the heap (a pool's
            // `operator new` hands out its own storage).
            let own = (!shape.global && !shape.nothrow)
                .then(|| {
                    let member = if shape.array.is_some() { NEW_ARRAY } else { NEW };
                    class_allocation_function(clang::pointee(e.ty()), member)
                })
                .flatten();
            let callee = match own {
                Some(m) => {
                    let info = self.cx.callee_info(m);
                    Callee::Direct { name: info.name.clone(), usr: info.usr.clone(), const_args: 0 }
                }
                None => Callee::Direct { name: name.to_string(), usr: format!("drip:c++:{name}"), const_args: 0 },
            };
            let call = StmtId::from_usize(self.stmts.len());
            self.emit(Stmt::Call { dst: Some(Place::Local(t)), callee, args: vec![size_op] }, loc);
            if !shape.nothrow {
                // `std::bad_alloc`: what is held before it is lost (`p = new A; q = new B;`).
                self.may_throw_at(call);
            }
            Operand::Place(Place::Local(t))
        };
        if let Some(i) = init {
            let s = self.strip(i);
            let ctor = (s.kind() == CXCursor_CallExpr)
                .then(|| s.referenced())
                .flatten()
                .filter(|d| d.kind() == CXCursor_Constructor);
            match ctor {
                Some(d) => {
                    // A constructor that may fail on a NULL `nothrow` result is not followed there.
                    let _ = self.cpp_call_on(s, d, &Want::Effect, Some(ptr.clone()));
                }
                None if shape.array.is_none() => {
                    let object = match &ptr {
                        Operand::Place(p) => Place::Deref(Box::new(p.clone())),
                        _ => {
                            self.effect(i);
                            return Some(Rvalue::Use(ptr));
                        }
                    };
                    self.init_var(object, i, s.ty(), loc);
                }
                None => self.effect(i),
            }
        }
        let _ = want;
        Some(Rvalue::Use(ptr))
    }

    /// `delete p`, `delete[] p`: the class's destructor, then `operator delete`.
    pub fn delete_expr(&mut self, e: Cursor) {
        let loc = self.loc(e);
        // A macro's `delete` (groff's `#define a_delete delete []`) is read where it is spelled,
        // in the macro's definition: the invocation's text does not say which form it is.
        let spelled = match self.written(e) {
            Some((_, text)) => Some(text),
            None => e.spelling_offset().and_then(|(f, off)| self.cx.file_text(f)?.get(off as usize..)),
        };
        let (global, array) = spelled.map_or((false, false), |text| {
            let global = text.starts_with(b"::");
            let text = text.strip_prefix(b"::").unwrap_or(text);
            let rest = text.strip_prefix(b"delete").unwrap_or(text);
            (global, rest.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'['))
        });
        let Some(k) = self.kids(e).into_iter().find(|c| c.is_expression()) else { return };
        let ptr = self.expr(k);
        let pointee = clang::pointee(self.strip(k).ty());
        self.delete_object_as(ptr, pointee, array, global, loc);
    }

    /// What `delete ptr` (`delete[]` when `array`) does to a block of `pointee`s: the class's
    /// destructor, then `operator delete`. `std::unique_ptr`'s death and `reset` do the same.
    pub(super) fn delete_object(&mut self, ptr: Operand, pointee: CXType, array: bool, loc: Loc) {
        self.delete_object_as(ptr, pointee, array, false, loc)
    }

    /// `delete_object`; `global`: `::delete`, which calls the global `operator delete` whatever
    /// the class declares.
    fn delete_object_as(&mut self, ptr: Operand, pointee: CXType, array: bool, global: bool, loc: Loc) {
        let pointee = clang::canonical(pointee);
        if self.in_template && matches!(pointee.kind, CXType_Unexposed | CXType_Dependent) {
            // A dependent type's destructor (`delete p` of a `T *p`) is the instantiation's, which
            // may free what the object holds: what is below the object escapes, so that a `T`
            // owning blocks makes no false leak. The object itself it only reads (as an unknown
            // callee's `const` argument): a destructor does not free its own storage, the
            // `operator delete` after it does, so `delete p` twice is still freed twice.
            let callee = Callee::Direct {
                name: "(destructor of a dependent type, not analysed)".to_string(),
                usr: format!("{OPAQUE}dependent-destructor"),
                const_args: 1,
            };
            self.emit(Stmt::Call { dst: None, callee, args: vec![ptr.clone()] }, loc);
        }
        if pointee.kind == CXType_Record {
            let opaque =
                |name: String, usr: &str| Callee::Direct { name, usr: format!("{OPAQUE}{usr}"), const_args: 0 };
            let def = clang::type_declaration(pointee).and_then(|d| d.definition());
            let death = self.cx.destruction(pointee);
            let callee = match death.clone() {
                // Through a base pointer, the destructor of any class the object may be of runs
                // (`virtuals.rs`): that of the class itself is among them.
                Death::Trivial | Death::Runs(_) if virtual_destructor(pointee) && def.is_some() => def.map(|d| {
                    let name = match &death {
                        Death::Runs(f) => f.name.clone(),
                        _ => format!("{}::~{}", self.cx.qualified_name(d), d.spelling()),
                    };
                    virtual_callee(d, "~", &name)
                }),
                Death::Trivial => None,
                Death::Runs(f) => Some(Callee::Direct { name: f.name.clone(), usr: f.usr.clone(), const_args: 0 }),
                Death::Opaque => {
                    match def.and_then(|d| d.children().into_iter().find(|c| c.kind() == CXCursor_Destructor)) {
                        Some(d) => {
                            let info = self.cx.callee_info(d);
                            if virtual_destructor(pointee) {
                                let usr = format!("{OPAQUE_DISPATCHED}{}", info.usr);
                                Some(Callee::Direct { name: info.name.clone(), usr, const_args: 0 })
                            } else {
                                Some(opaque(info.name.clone(), &info.usr))
                            }
                        }
                        // The members' destructors, which drip does not know.
                        None => Some(opaque("(member destructors, not analysed)".to_string(), "member-destructors")),
                    }
                }
            };
            if let Some(callee) = callee {
                self.emit(Stmt::Call { dst: None, callee, args: vec![ptr.clone()] }, loc);
            }
        }
        let name = if array { DELETE_ARRAY } else { DELETE };
        let mut args = vec![ptr];
        let callee = match (!global).then(|| class_allocation_function(pointee, name)).flatten() {
            // The class's own `operator delete`: its body says what is released.
            Some(m) => {
                if m.num_args() == 2 {
                    // The sized form's size.
                    args.push(Operand::Unknown);
                }
                let info = self.cx.callee_info(m);
                Callee::Direct { name: info.name.clone(), usr: info.usr.clone(), const_args: 0 }
            }
            None => Callee::Direct { name: name.to_string(), usr: format!("drip:c++:{name}"), const_args: 0 },
        };
        self.emit(Stmt::Call { dst: None, callee, args }, loc);
    }
}

#[cfg(test)]
mod tests {
    use super::new_shape;

    #[test]
    fn new_expressions_are_read_from_their_text() {
        let s = new_shape(b"new int[n + 1]", 100).expect("shape");
        assert_eq!((s.placement, s.nothrow, s.array), (None, false, Some((107, 114))));
        let s = new_shape(b"::new (std::nothrow) Foo(1, 2)", 0).expect("shape");
        assert!(s.nothrow && s.placement.is_some() && s.array.is_none() && s.global);
        let s = new_shape(b"new (buf) Foo{x}", 0).expect("shape");
        assert_eq!((s.placement, s.nothrow, s.array, s.global), (Some((4, 9)), false, None, false));
        let s = new_shape(b"new std::map<int, int[2]>[3]", 0).expect("shape");
        assert_eq!(s.array, Some((25, 28)));
        assert!(new_shape(b"make()", 0).is_none());
    }
}
