//! Lowering of the C++ constructs that are ordinary code: calls of methods, constructors and
//! destructors, `new`/`delete`, `throw`, lambdas (as escapes), member initializers.
//!
//! Input: cursors of a C++ translation unit (`TuCtx::cpp`) inside the function being lowered.
//! Output: IR statements, as `expr.rs` emits them for C; nothing here adds to the IR's types.
//! Invariants:
//! - A method, constructor or destructor takes the object's address as argument 0 (`this`,
//!   parameter 0 of its lowered body: `lower::lower_function`).
//! - `new` is a call of `operator new` / `operator new[]` (never NULL) or of their `std::nothrow`
//!   forms (NULL on failure), with no arguments that matter; placement `new` allocates nothing
//!   and is the pointer it was given. `delete` is a call of `operator delete` /
//!   `operator delete[]`, after the class's destructor. Their callees carry reserved USRs
//!   (`drip:c++:…`), so a program's own `operator new` never stands in for the library row.
//! - No destructor runs implicitly (at scope exit, for temporaries, members and bases): what such
//!   a destructor could release must escape instead, so that its absence never makes a report.
//!   A call into a class that is not `self_contained` (members or bases with destructors, a
//!   template instantiation, a system header's class), a virtual call, and a constructor of a
//!   temporary with a destructor go to an opaque callee (every argument escapes); a local with
//!   a destructor is handed to an opaque call at every exit from its scope (`lower.rs`).
//! - What the lowering does not understand (lambda bodies, `catch` handlers, unknown
//!   expressions) becomes a lowering note starting with `C++ not analysed:`, which `--stats`
//!   counts, and every local it names escapes.

#![allow(non_upper_case_globals)]

use clang_sys::*;

use super::clang::{self, Cursor, TypeClass};
use super::expr::Want;
use super::lower::{Builtin, Lowerer};
use crate::ir::*;

/// The callee of the escape a local with a destructor gets when its scope ends.
pub(super) const SCOPE_EXIT_USR: &str = "drip:c++:scope-exit";
/// The USR prefix of an opaque callee: no function has it, so the call is an unknown call.
const OPAQUE: &str = "drip:c++:opaque:";
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
    if text.get(i..i + 2) == Some(b"::".as_slice()) {
        i = skip_ws(i + 2);
    }
    if text.get(i..i + 3) != Some(b"new".as_slice()) {
        return None;
    }
    i = skip_ws(i + 3);
    let mut shape = NewShape { placement: None, nothrow: false, array: None };
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

impl Lowerer<'_, '_, '_> {
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
    fn not_analysed(&mut self, e: Cursor, what: &str) {
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

    /// `throw e`: the operand is evaluated, and the path ends (no handler is lowered).
    pub fn throw_expr(&mut self, e: Cursor) {
        let loc = self.loc(e);
        for k in self.kids(e) {
            if k.is_expression() {
                self.effect(k);
            }
        }
        self.terminate(Terminator::NoReturn, loc);
    }

    /// `try { … } catch …`: the body is lowered; the handlers are not.
    pub fn try_stmt(&mut self, s: Cursor) {
        let kids = self.kids(s);
        for k in kids.iter().copied() {
            if k.kind() == CXCursor_CXXCatchStmt {
                self.not_analysed(k, "catch handler");
            } else {
                self.stmt(k);
            }
        }
    }

    /// `for (decl : range) body`: a loop over the range whose condition is unknown; the loop
    /// variable gets no value (the element it names is not followed).
    pub fn range_for(&mut self, s: Cursor) {
        let kids = self.kids(s);
        let Some((&body, parts)) = kids.split_last() else { return };
        let loc = self.loc(s);
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
                }
                k if p.is_expression() || k == CXCursor_DeclStmt => self.stmt(*p),
                _ => {}
            }
        }
        let header = self.new_block();
        let body_b = self.new_block();
        let exit = self.new_block();
        self.enter(header, loc);
        let cond = Cond { kind: CondKind::Opaque, text: "(range not at its end)".to_string(), text_on_else: false };
        self.terminate(Terminator::Branch { cond, then_: body_b, else_: exit }, loc);
        self.jumps.push(super::lower::Jump::Loop { brk: exit, cont: header, scopes: self.scopes.len() });
        self.enter(body_b, loc);
        self.stmt(body);
        self.goto(header, loc);
        self.jumps.pop();
        self.enter(exit, loc);
    }

    /// A constructor's member and base initializers (`: buf(new char[n]), Base(x)`), in order.
    pub fn member_initializers(&mut self, f: Cursor) {
        let Some(this) = self.this_local else { return };
        let kids = self.kids(f);
        let object = Place::Deref(Box::new(Place::Local(this)));
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
                    self.assign_to(object.clone(), init, loc);
                    i += 1;
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
        Some(self.cpp_call_on(e, decl, want, None))
    }

    /// `cpp_call` with the callee `decl`; `object`: the address a constructor builds at (`new`),
    /// instead of `want`'s place or a temporary.
    fn cpp_call_on(&mut self, e: Cursor, decl: Cursor, want: &Want, object: Option<Operand>) -> Option<Rvalue> {
        let info = self.cx.callee_info(decl);
        let kind = decl.kind();
        let loc = self.loc(e);
        let fn_ty = clang::canonical(decl.ty());
        let kids = self.kids(e);
        let has_this = match kind {
            CXCursor_CXXMethod | CXCursor_ConversionFunction => !decl.is_static_method(),
            CXCursor_Constructor | CXCursor_Destructor => true,
            _ => false,
        };
        let mut args = Vec::new();
        let mut first_arg = 0u32;
        let mut built: Option<Place> = None;
        let mut temporary = false;
        if kind == CXCursor_Constructor {
            let this = match (object, want) {
                (Some(o), _) => o,
                (None, Want::Into(d)) => {
                    built = Some(d.clone());
                    self.rvalue_operand(Rvalue::AddrOf(d.clone()), loc)
                }
                (None, _) => {
                    temporary = true;
                    let t = self.new_temp(TypeClass::Record, loc);
                    built = Some(Place::Local(t));
                    self.rvalue_operand(Rvalue::AddrOf(Place::Local(t)), loc)
                }
            };
            args.push(this);
        } else if has_this {
            let callee_c = kids.first().map(|k| self.strip(*k));
            let obj = match callee_c.filter(|c| c.kind() == CXCursor_MemberRefExpr) {
                Some(m) => match self.kids(m).into_iter().find(|c| c.is_expression()) {
                    None => self.this_local.map_or(Operand::Unknown, |t| Operand::Place(Place::Local(t))),
                    Some(b) if clang::classify(clang::canonical(b.ty())) == TypeClass::Pointer => self.expr(b),
                    Some(b) => {
                        let rv = self.addr_of(b);
                        self.rvalue_operand(rv, loc)
                    }
                },
                None => {
                    // An overloaded operator's call: the object is its first operand.
                    first_arg = 1;
                    match e.arg(0) {
                        Some(a0) => {
                            let a0 = self.cx.tree.among_kids(e, a0);
                            let rv = self.addr_of(a0);
                            self.rvalue_operand(rv, loc)
                        }
                        None => Operand::Unknown,
                    }
                }
            };
            args.push(obj);
        }
        let n = e.num_args().max(0) as u32;
        for i in first_arg..n {
            let Some(a) = e.arg(i) else {
                args.push(Operand::Unknown);
                continue;
            };
            let a = self.cx.tree.among_kids(e, a);
            if clang::param_type(fn_ty, i - first_arg).is_some_and(clang::is_reference) {
                // A reference parameter receives the address of its argument.
                let rv = self.addr_of(a);
                let op = self.rvalue_operand(rv, loc);
                args.push(op);
            } else {
                args.push(self.expr(a));
            }
        }
        let class_ty = decl.semantic_parent().map(|p| p.ty());
        let opaque = has_this
            && (decl.is_virtual_method()
                || class_ty.is_some_and(|t| !self.self_contained(t))
                || (temporary && class_ty.is_some_and(|t| self.cx.owns_resources(t))));
        if !opaque && decl.is_defaulted() && matches!(kind, CXCursor_Constructor | CXCursor_CXXMethod) {
            // What the compiler writes for a class without destructors in its parts: nothing
            // (a default constructor), or a copy of the object (copy and move constructors and
            // assignments), which `*this` is then.
            if let (Some(Operand::Place(this)), rest) = (args.first().cloned(), &args[1..]) {
                let this_obj = self.object_at(this);
                if let [Operand::Place(src)] = rest {
                    let src = Rvalue::Use(Operand::Place(self.object_at(src.clone())));
                    self.assign(this_obj.clone(), src, loc);
                }
                if rest.len() <= 1 {
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
        let callee = if opaque {
            Callee::Direct { name: info.name.clone(), usr: format!("{OPAQUE}{}", info.usr), const_args: 0 }
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
        } else {
            self.emit_call(e, callee, args, want.clone(), loc)
        };
        if info.noreturn {
            self.terminate(Terminator::NoReturn, loc);
        }
        result
    }

    /// The object at the address `p` holds: the place whose address a lowering temporary was
    /// given (`&x` for `x`, so that a copy of `x` is a copy of a variable, as in C), else `*p`.
    fn object_at(&self, p: Place) -> Place {
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

    /// A class whose destructor, if it has one, is all that runs when an object of it dies: no
    /// base, no member with a destructor, its definition in the program. Calls into it are
    /// summarised; calls into any other class are opaque.
    fn self_contained(&mut self, class_ty: CXType) -> bool {
        let c = clang::canonical(class_ty);
        if c.kind != CXType_Record {
            return false;
        }
        let Some(def) = clang::type_declaration(c).and_then(|d| d.definition()) else { return false };
        if def.specialized_template().is_some() || def.is_in_system_header() {
            return false;
        }
        def.children().into_iter().all(|k| match k.kind() {
            CXCursor_CXXBaseSpecifier => false,
            CXCursor_FieldDecl => !self.cx.owns_resources(k.ty()),
            _ => true,
        })
    }

    /// `new T`, `new T[n]`, `new (std::nothrow) T`, `new (place) T(args)`.
    pub fn new_expr(&mut self, e: Cursor, want: Want) -> Option<Rvalue> {
        let loc = self.loc(e);
        let shape = self.written(e).and_then(|(start, text)| new_shape(text, start));
        let Some(shape) = shape else {
            self.not_analysed(e, "`new` written inside a macro");
            return Some(Rvalue::Use(Operand::Unknown));
        };
        let inside = |k: Cursor, r: Option<(u32, u32)>| match (k.file_span(), r) {
            (Some((_, off, _)), Some((a, b))) => a <= off && off < b,
            _ => false,
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
            let callee = Callee::Direct { name: name.to_string(), usr: format!("drip:c++:{name}"), const_args: 0 };
            self.emit(Stmt::Call { dst: Some(Place::Local(t)), callee, args: vec![size_op] }, loc);
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
        let array = self.written(e).is_some_and(|(_, text)| {
            let text = text.strip_prefix(b"::").unwrap_or(text);
            let rest = text.strip_prefix(b"delete").unwrap_or(text);
            rest.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
        });
        let Some(k) = self.kids(e).into_iter().find(|c| c.is_expression()) else { return };
        let ptr = self.expr(k);
        let pointee = clang::pointee(self.strip(k).ty());
        if pointee.kind == CXType_Record {
            let dtor = clang::type_declaration(pointee)
                .and_then(|d| d.definition())
                .and_then(|d| d.children().into_iter().find(|c| c.kind() == CXCursor_Destructor));
            let callee = match dtor {
                Some(d) => {
                    let info = self.cx.callee_info(d);
                    if d.is_virtual_method() || !self.self_contained(pointee) {
                        Some(Callee::Direct {
                            name: info.name.clone(),
                            usr: format!("{OPAQUE}{}", info.usr),
                            const_args: 0,
                        })
                    } else {
                        Some(Callee::Direct { name: info.name.clone(), usr: info.usr.clone(), const_args: 0 })
                    }
                }
                // The members' destructors, which drip does not run.
                None if self.cx.owns_resources(pointee) => Some(Callee::Direct {
                    name: "(member destructors, not analysed)".to_string(),
                    usr: format!("{OPAQUE}member-destructors"),
                    const_args: 0,
                }),
                None => None,
            };
            if let Some(callee) = callee {
                self.emit(Stmt::Call { dst: None, callee, args: vec![ptr.clone()] }, loc);
            }
        }
        let name = if array { DELETE_ARRAY } else { DELETE };
        let callee = Callee::Direct { name: name.to_string(), usr: format!("drip:c++:{name}"), const_args: 0 };
        self.emit(Stmt::Call { dst: None, callee, args: vec![ptr] }, loc);
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
        assert!(s.nothrow && s.placement.is_some() && s.array.is_none());
        let s = new_shape(b"new (buf) Foo{x}", 0).expect("shape");
        assert_eq!((s.placement, s.nothrow, s.array), (Some((4, 9)), false, None));
        let s = new_shape(b"new std::map<int, int[2]>[3]", 0).expect("shape");
        assert_eq!(s.array, Some((25, 28)));
        assert!(new_shape(b"make()", 0).is_none());
    }
}
