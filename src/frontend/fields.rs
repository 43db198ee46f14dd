//! What is stored into function-pointer fields and variables: the targets of calls through
//! `x.f` / `p->f` and through a global or local `hook`.
//!
//! Input: the top-level variable declarations whose type can hold a pointer and the function
//! definitions of a translation unit (`TuCtx::collect_field_stores`; `frontend/mod.rs` says why
//! the other globals are left out), and the field an indirect call goes through
//! (`TuCtx::field_key`).
//! Output: `TuCtx::field_targets` (field key, USR of a function stored into that field),
//! `TuCtx::open_fields` (fields that may hold a value no store names) and `TuCtx::field_groups`
//! (the stores one initializer list, or one body's assignments to one struct's fields, made
//! together: a table's configuration, `summary::idle_field_targets`), merged into
//! `ir::Program` by `frontend/mod.rs`; the key carried by `Callee::Indirect::field`. For
//! variables the same tables (keys starting with `ir::VAR_KEY`), plus `TuCtx::param_stores`
//! (a body storing its own parameter into a field or variable) and `TuCtx::defined_vars` (the variables
//! defined here: a global only ever declared `extern` is opened at the merge).
//! Invariants:
//! - A field key is the canonical spelling of the struct that declares the field plus the field
//!   name (`struct mem_methods::alloc`): typedef names, the TU and the access path do not matter.
//!   A struct with neither a tag nor a typedef name is named by where it is declared (file base
//!   name, line, column), which is the same from every TU that includes it.
//! - Union members get no key: a store to one member changes the others, so calls through them
//!   keep the signature-based targets.
//! - Only fields of function-pointer type are recorded, and only calls through such fields carry
//!   a key, so a function stored into a `void *` field can never be missed.
//! - Every store into a function-pointer field whose value is not a function name (possibly cast
//!   or behind `&`), a constant or a parameter of the function making the store opens the
//!   field: initializer elements and assignments of any other value (a local, a load from
//!   another field, a call result), and `&x.f` (the field may be written through that pointer).
//!   A stored parameter is recorded as such (`param_stores`): the field holds what the
//!   function's callers pass.
//! - A variable key names a `VarDecl` of function-pointer type (never a parameter); its stores
//!   are its initializer and the assignments to it, recorded as a field's are; `&hook` opens it.
//! - Whole-struct copies (`cfg.m = *methods;`, `*p = defaults;`, a struct passed or returned by
//!   value) and `memcpy` are not stores into the fields: the copied value was built by
//!   initializers and assignments that are recorded here. This is the usual assumption of
//!   field-based call-graph construction; type punning through other struct types breaks it.
//! - C++ `std::function` members (of a `struct` or `class`, not of a class template) and
//!   `std::function` variables of static storage (globals, `static`s, static members; a local
//!   one is `lambdas.rs`'s) are keyed the same way, and a call `h.on_done (p)` through one is
//!   `Callee::Indirect` with that key (`lambdas.rs`, `std_function_call`). Their stores:
//!   `operator=`, a constructor's member initializer, a default member initializer
//!   (`default_member_store`), an aggregate's initializer list, a variable's initializer. What
//!   is stored is a function's name (`destroy`, `&destroy`), nothing (`nullptr`, an empty
//!   `std::function`), a lambda that captures nothing (`[]`: lowered as a function of its own,
//!   `lower::lower_lambda`, USR `drip:c++:lambda:FILE@OFFSET`, the target) or a parameter of
//!   the storing function (`param_stores`: a caller passing a `std::function` object names no
//!   function, so the key opens); anything else opens the key: a capturing lambda, another
//!   `std::function` (a local, a field, `std::move (f)`), `std::bind`. Every use of such a
//!   field or variable below a walked root that is not a call through it, a store, a copy from
//!   it, `operator bool` or `==`/`!=` opens it too (`swap`, a non-`const` reference, `&h.f`),
//!   since it may change what it holds.

#![allow(non_upper_case_globals)]

use std::collections::HashSet;

use clang_sys::*;

use super::clang::{self, classify, Cursor, TypeClass};
use super::expr::strip_plain;
use super::lambdas::is_std_function;
use super::lower::{Holds, TuCtx};
use super::tree::Tree;
use crate::ir::VAR_KEY;

/// An aggregate being filled by the positional elements of an initializer list (C11 6.7.9:
/// the "current object", with brace elision descending into sub-aggregates).
struct Frame {
    /// The element type of an array (asked once: a table's elements are many); `None` for a
    /// record.
    elem: Option<CXType>,
    /// Record members (empty for arrays).
    fields: Vec<Cursor>,
    is_union: bool,
    /// Number of positions: members, or array elements (`usize::MAX` when the size is unknown).
    len: usize,
    /// The position the next element goes to.
    next: usize,
}

impl Frame {
    fn new(ty: CXType) -> Frame {
        if classify(ty) == TypeClass::Array {
            return Frame {
                elem: Some(clang::array_element(ty)),
                fields: Vec::new(),
                is_union: false,
                len: clang::array_len(ty).unwrap_or(usize::MAX),
                next: 0,
            };
        }
        let fields = clang::record_field_decls(ty);
        let is_union = clang::type_declaration(ty).is_some_and(|d| d.kind() == CXCursor_UnionDecl);
        Frame { elem: None, len: fields.len(), fields, is_union, next: 0 }
    }

    /// The member at `next` (`None` for array elements) and its type; `None` when full.
    fn slot(&self) -> Option<(Option<Cursor>, CXType)> {
        if self.next >= self.len {
            return None;
        }
        if let Some(elem) = self.elem {
            return Some((None, elem));
        }
        let f = self.fields.get(self.next)?;
        Some((Some(*f), f.ty()))
    }

    fn advance(&mut self) {
        // One member of a union is initialized: the elements after it belong to the enclosing
        // aggregate.
        self.next = if self.is_union { self.len } else { self.next.saturating_add(1) };
    }
}

fn is_aggregate(t: CXType) -> bool {
    matches!(classify(t), TypeClass::Record | TypeClass::Array)
}

/// An element that initializes a whole aggregate member by itself (a struct value, a string
/// for a `char` array) rather than its first scalar through brace elision.
fn initializes_whole(v: Cursor, member_ty: CXType) -> bool {
    match classify(member_ty) {
        TypeClass::Record => v.type_class() == TypeClass::Record,
        TypeClass::Array => v.kind() == CXCursor_StringLiteral || v.type_class() == TypeClass::Array,
        _ => true,
    }
}

/// Is `el` (an element of an initializer list) a designated initializer (`.f = v`, `[i] = v`)?
/// libclang shows `DesignatedInitExpr` as an unexposed expression of type `void` whose children
/// are the designators, then the value.
fn is_designated(t: &Tree, el: Cursor) -> bool {
    el.kind() == CXCursor_UnexposedExpr
        && (el.type_class() == TypeClass::Void || t.kids(el).next().is_some_and(|c| c.kind() == CXCursor_MemberRef))
}

/// The positions leading to the field a `.name` designator names among `fields`: one index, or
/// several when the field is inside anonymous struct/union members.
fn field_path(fields: &[Cursor], d: Cursor) -> Option<Vec<usize>> {
    let target = d.referenced().map(|t| t.decl_key());
    let name = d.spelling();
    let is_it = |f: &Cursor| match target {
        Some(k) => f.decl_key() == k,
        None => !name.is_empty() && f.spelling() == name,
    };
    if let Some(i) = fields.iter().position(is_it) {
        return Some(vec![i]);
    }
    for (i, f) in fields.iter().enumerate() {
        if f.spelling().is_empty() && f.type_class() == TypeClass::Record {
            if let Some(mut rest) = field_path(&clang::record_field_decls(f.ty()), d) {
                rest.insert(0, i);
                return Some(rest);
            }
        }
    }
    None
}

/// Peel what does not change which function a value names: parentheses, casts, `&f`.
fn strip_function_value(t: &Tree, v: Cursor) -> Cursor {
    let mut s = strip_plain(t, v);
    while s.kind() == CXCursor_UnaryOperator && s.unop() == CXUnaryOperator_AddrOf {
        match t.kids(s).next() {
            Some(k) if k.type_class() == TypeClass::Function => s = strip_plain(t, k),
            _ => break,
        }
    }
    s
}

impl TuCtx<'_, '_> {
    /// The key of a function-pointer field (see the module doc), or `None` for union members and
    /// unnamed fields. Cached per declaration.
    pub fn field_key(&mut self, field: Cursor) -> Option<String> {
        if field.kind() != CXCursor_FieldDecl {
            return None;
        }
        if let Some(k) = self.field_keys.get(&field.decl_key()) {
            return k.clone();
        }
        let key = self.compute_field_key(field);
        self.field_keys.insert(field.decl_key(), key.clone());
        key
    }

    fn compute_field_key(&mut self, field: Cursor) -> Option<String> {
        let name = field.spelling();
        if name.is_empty() {
            return None;
        }
        let rec = field.semantic_parent()?;
        // A C++ `class` holding a `std::function` is keyed as a struct is; a class template's
        // fields are dependent and get no key.
        let class_ok = rec.kind() == CXCursor_ClassDecl && is_std_function(self, field.ty());
        if rec.kind() != CXCursor_StructDecl && !class_ok {
            return None;
        }
        let rec_name = if rec.is_anonymous() {
            // libclang spells such a type with the file name as the TU included it (`../x.h` or
            // `x.h`), which differs between TUs. The base name is the same from every TU; two
            // anonymous structs at the same line and column of two files with the same base
            // name would share their targets and openness, which only adds targets.
            let (_, line, col) = clang::expansion(rec.location())?;
            let path = self.path_of(rec)?;
            let file =
                path.file_name().map_or_else(|| path.display().to_string(), |f| f.to_string_lossy().into_owned());
            format!("struct <anonymous at {file}:{line}:{col}>")
        } else {
            clang::type_spelling(clang::canonical(rec.ty()))
        };
        Some(format!("{rec_name}::{name}"))
    }

    /// Record every store into a function-pointer field below `root` (a top-level variable
    /// declaration or a function definition): initializer lists (of globals, statics, locals and
    /// compound literals), assignments `x.f = v` / `p->f = v`, and `&x.f`.
    pub fn collect_field_stores(&mut self, root: Cursor) {
        let cpp = self.cpp;
        let keep = |c: Cursor| match c.kind() {
            CXCursor_InitListExpr | CXCursor_VarDecl => true,
            CXCursor_BinaryOperator => c.binop() == CXBinaryOperator_Assign,
            CXCursor_UnaryOperator => c.unop() == CXUnaryOperator_AddrOf,
            // `std::function` fields and variables: the calls that use or store them, and
            // every use.
            CXCursor_CallExpr | CXCursor_MemberRefExpr | CXCursor_DeclRefExpr => cpp,
            _ => false,
        };
        let found: Vec<Cursor> = if self.tree.is_root(root) {
            self.tree.descendants().iter().copied().filter(|c| keep(*c)).collect()
        } else {
            let mut found = Vec::new();
            root.visit_descendants(&mut |c| {
                if keep(c) {
                    found.push(c);
                }
            });
            found
        };
        // The assignments of a body form one group; each initializer list starts its own
        // (`init_list_stores`).
        let outer = std::mem::take(&mut self.field_group);
        let outer_root = self.store_root.replace(root);
        if root.kind() == CXCursor_VarDecl {
            // A global: its initializer is no function's, and the walk below starts under it.
            self.store_root = None;
            self.note_var_decl(root);
        }
        if root.kind() == CXCursor_Constructor {
            self.member_initializer_stores(root);
        }
        // Lists inside lists are handled with their enclosing list, which knows the type of the
        // member they initialize; the walk is pre-order, so the enclosing list comes first.
        let mut nested: HashSet<usize> = HashSet::new();
        // C++: the uses of `std::function` fields and variables that neither call nor store
        // them, nor read them (`std_function_call`), open them: they may change what is held
        // (`swap`, `std::move`, a non-`const` reference).
        let mut allowed: HashSet<usize> = HashSet::new();
        let mut uses: Vec<Cursor> = Vec::new();
        for c in found {
            match c.kind() {
                CXCursor_CallExpr => self.std_function_call(c, &mut allowed),
                CXCursor_MemberRefExpr | CXCursor_DeclRefExpr => uses.push(c),
                CXCursor_InitListExpr => {
                    if !nested.contains(&c.stmt_key()) {
                        self.init_list_stores(c, c.ty(), &mut nested);
                    }
                }
                CXCursor_VarDecl => self.note_var_decl(c),
                CXCursor_BinaryOperator => {
                    let kids = self.kids(c);
                    if let (Some(&l), Some(&r)) = (kids.first(), kids.get(1)) {
                        if let Some(key) = self.member_field_key(l).or_else(|| self.var_ref_key(l)) {
                            self.note_stored(&key, r);
                        }
                    }
                }
                _ => {
                    if let Some(k) = self.kids(c).into_iter().next() {
                        if let Some(key) = self.member_field_key(k).or_else(|| self.var_ref_key(k)) {
                            self.open_fields.push(key);
                        }
                    }
                }
            }
        }
        for u in uses {
            if !allowed.contains(&u.stmt_key()) {
                if let Some(key) = self.std_function_key(u) {
                    self.open_fields.push(key);
                }
            }
        }
        self.end_field_group(outer);
        self.store_root = outer_root;
    }

    /// The key of a function-pointer variable (a global, a `static` or automatic local; not a
    /// parameter): `variable ` and libclang's USR, which names a `static` one by its file's base
    /// name and a local also by its offset and function (`c:x.c@hook`, `c:x.c@432@F@f@cleanup`).
    /// Two variables with one key (`static` hooks of one name in two files of one base name, or
    /// one header's `static` copied into each TU) share their stores and openness, which only
    /// adds targets. `None` for other declarations.
    pub fn var_key(&mut self, decl: Cursor) -> Option<String> {
        if decl.kind() != CXCursor_VarDecl {
            return None;
        }
        let decl = decl.canonical();
        if let Some(k) = self.field_keys.get(&decl.decl_key()) {
            return k.clone();
        }
        // A `std::function` only when it outlives every call (a global, a `static`): a local
        // one is `lambdas.rs`'s.
        let callable = clang::is_function_pointer(decl.ty())
            || (self.cpp && decl.has_global_storage() && is_std_function(self, decl.ty()));
        let usr = if callable { decl.usr() } else { String::new() };
        let key = (!usr.is_empty()).then(|| format!("{VAR_KEY}{usr}"));
        self.field_keys.insert(decl.decl_key(), key.clone());
        key
    }

    /// The key of `e` if it names a function-pointer variable (`hook`, `cleanup`).
    pub fn var_ref_key(&mut self, e: Cursor) -> Option<String> {
        let v = self.strip(e);
        if v.kind() != CXCursor_DeclRefExpr {
            return None;
        }
        self.var_key(v.referenced()?)
    }

    /// A declaration of a function-pointer variable: its initializer is a store, and a
    /// definition says the program holds all of the variable's stores (`defined_vars`).
    fn note_var_decl(&mut self, d: Cursor) {
        let Some(key) = self.var_key(d) else { return };
        let init = d.var_initializer();
        // Locals are always defined here; a global unless only declared `extern`.
        if init.is_some() || d.storage_class() != CX_SC_Extern || !d.has_global_storage() {
            self.defined_vars.push(key.clone());
        }
        if let Some(v) = init {
            self.note_stored(&key, v);
        }
    }

    /// Close the group being collected, split by the struct declaring each field (one table's
    /// configuration, not everything a function sets up), and go back to `outer`.
    fn end_field_group(&mut self, outer: Vec<(String, String)>) {
        let mut group = std::mem::replace(&mut self.field_group, outer);
        group.sort();
        group.dedup();
        let record = |k: &str| k.rsplit_once("::").map_or(String::new(), |(r, _)| r.to_string());
        while let Some(first) = group.first() {
            let r = record(&first.0);
            let (same, rest): (Vec<_>, Vec<_>) = group.into_iter().partition(|(k, _)| record(k) == r);
            self.field_groups.push(same);
            group = rest;
        }
    }

    /// The key of `e` if it is an access to a function-pointer field (`x.f`, `p->f`).
    pub fn member_field_key(&mut self, e: Cursor) -> Option<String> {
        let m = self.strip(e);
        if m.kind() != CXCursor_MemberRefExpr || !self.holds_callable(m.ty()) {
            return None;
        }
        let field = m.referenced()?;
        self.field_key(field)
    }

    /// `value` is stored into the field `key`.
    fn note_stored(&mut self, key: &str, value: Cursor) {
        // C++: the `std::function` built from the value, and the temporaries around it.
        let value = if self.cpp { self.peel_std_function(value) } else { value };
        let v = strip_function_value(&self.tree, value);
        match v.kind() {
            // A lambda written where it is stored: a function of its own when it captures
            // nothing (`lambda_function`); else the field holds state drip does not follow.
            CXCursor_LambdaExpr => {
                if let Some(usr) = self.lambda_function(v) {
                    self.field_group.push((key.to_string(), usr.clone()));
                    self.field_targets.push((key.to_string(), usr));
                } else {
                    self.open_fields.push(key.to_string());
                }
                return;
            }
            CXCursor_DeclRefExpr => {
                if let Some(d) = v.referenced().filter(|d| d.kind() == CXCursor_FunctionDecl) {
                    let usr = self.function_usr(d);
                    self.field_group.push((key.to_string(), usr.clone()));
                    self.field_targets.push((key.to_string(), usr));
                    return;
                }
            }
            CXCursor_ConditionalOperator => {
                let kids: Vec<Cursor> = self.kids(v).into_iter().filter(|c| c.is_expression()).collect();
                if let [_, a, b] = kids[..] {
                    self.note_stored(key, a);
                    self.note_stored(key, b);
                    return;
                }
            }
            // `(void)x, f` and `a.f = b.f = g` have the value of their right operand.
            CXCursor_BinaryOperator if matches!(v.binop(), CXBinaryOperator_Comma | CXBinaryOperator_Assign) => {
                if let Some(r) = self.kids(v).into_iter().nth(1) {
                    self.note_stored(key, r);
                    return;
                }
            }
            _ => {}
        }
        // An empty `std::function` (`std::function<void (char *)> g;`, `on_done ()`): nothing
        // to call.
        if self.cpp
            && v.kind() == CXCursor_CallExpr
            && v.num_args() == 0
            && v.referenced().is_some_and(|d| d.kind() == CXCursor_Constructor)
        {
            return;
        }
        // NULL, and constants such as `(destructor)-1` that name no function: nothing to call.
        if matches!(v.kind(), CXCursor_IntegerLiteral | CXCursor_GNUNullExpr | CXCursor_CXXNullPtrLiteralExpr)
            || v.eval_int().is_some()
        {
            return;
        }
        // A variable or field given the function's own parameter (`hook = m` in
        // `set_allocator (m)`, `g->frealloc = f` in `lua_newstate (f, ud)`) holds what the
        // function's callers pass (`summary::param_stores`).
        if let Some((usr, i)) = self.stored_param(v) {
            self.param_stores.push((key.to_string(), usr, i));
            return;
        }
        self.open_fields.push(key.to_string());
    }

    /// `e` without the nodes that only convert or materialise it (implicit casts, temporaries,
    /// parentheses), as `Lowerer::bare`.
    fn bare(&self, mut e: Cursor) -> Cursor {
        while matches!(e.kind(), CXCursor_UnexposedExpr | CXCursor_ParenExpr) {
            let mut it = self.kids(e).into_iter().filter(|c| c.is_expression());
            match (it.next(), it.next()) {
                (Some(only), None) => e = only,
                _ => break,
            }
        }
        e
    }

    /// The callable a `std::function` value is built from: through the temporaries and the
    /// converting constructor (`std::function<void (char *)> (destroy)`, a lambda's closure, or
    /// a copy of another `std::function`, which is then what is returned). `std::move (f)` and
    /// other calls are kept: what they give is not known here.
    fn peel_std_function(&self, mut e: Cursor) -> Cursor {
        loop {
            e = self.bare(e);
            if e.kind() != CXCursor_CallExpr || e.num_args() != 1 {
                return e;
            }
            if e.referenced().is_some_and(|d| d.kind() != CXCursor_Constructor) {
                return e;
            }
            let Some(a) = e.arg(0) else { return e };
            e = self.tree.among_kids(e, a);
        }
    }

    /// Whether a value of type `t` is something a field or variable key is given for: a
    /// function pointer, or in C++ a `std::function`.
    pub(super) fn holds_callable(&mut self, t: CXType) -> bool {
        clang::is_function_pointer(t) || (self.cpp && is_std_function(self, t))
    }

    /// The key of `e` if it names a `std::function` field or variable with a key.
    fn std_function_key(&mut self, e: Cursor) -> Option<String> {
        if !is_std_function(self, e.ty()) {
            return None;
        }
        match e.kind() {
            CXCursor_MemberRefExpr => self.member_field_key(e),
            CXCursor_DeclRefExpr => self.var_ref_key(e),
            _ => None,
        }
    }

    /// A C++ call below a walked root that uses a `std::function` field or variable without
    /// changing what it holds, or stores into it: the uses go into `allowed` (by `stmt_key`),
    /// a store (`operator=`) is recorded. Every other use opens the key
    /// (`collect_field_stores`).
    fn std_function_call(&mut self, c: Cursor, allowed: &mut HashSet<usize>) {
        let Some(d) = c.referenced() else { return };
        let object = |cx: &Self, i: u32| c.arg(i).map(|a| cx.bare(cx.tree.among_kids(c, a)));
        let member = matches!(d.kind(), CXCursor_CXXMethod | CXCursor_Constructor | CXCursor_ConversionFunction);
        if member && !d.semantic_parent().is_some_and(|p| is_std_function(self, p.ty())) {
            return;
        }
        // Of the other functions, only the comparisons with `nullptr` (below): two operands.
        if !member && (d.kind() != CXCursor_FunctionDecl || c.num_args() != 2) {
            return;
        }
        let name = d.spelling();
        match d.kind() {
            // `h.on_done (p)`: a call through it.
            CXCursor_CXXMethod if name == "operator()" => {
                if let Some(o) = object(self, 0) {
                    allowed.insert(o.stmt_key());
                }
            }
            // `h.on_done = destroy;`
            CXCursor_CXXMethod if name == "operator=" => {
                let (Some(o), Some(v)) = (object(self, 0), c.arg(1)) else { return };
                if let Some(key) = self.std_function_key(o) {
                    allowed.insert(o.stmt_key());
                    let v = self.tree.among_kids(c, v);
                    self.note_stored(&key, v);
                }
            }
            // A copy (`auto f = h.on_done;`, a copy into another field): a read. A move is
            // `std::move (x)`, another call, not taken.
            CXCursor_Constructor if c.num_args() == 1 => {
                if let Some(o) = object(self, 0) {
                    allowed.insert(o.stmt_key());
                }
            }
            // `if (h.on_done)`: `operator bool`, on the object the member access names.
            CXCursor_ConversionFunction => {
                let m = self.kids(c).into_iter().find(|k| k.kind() == CXCursor_MemberRefExpr);
                if let Some(o) = m.and_then(|m| self.kids(m).into_iter().find(|k| k.is_expression())) {
                    allowed.insert(self.bare(o).stmt_key());
                }
            }
            // `h.on_done != nullptr`: the comparisons take their operands by `const &`.
            CXCursor_FunctionDecl if matches!(name.as_str(), "operator==" | "operator!=") => {
                for i in 0..c.num_args().max(0) as u32 {
                    if let Some(o) = object(self, i) {
                        allowed.insert(o.stmt_key());
                    }
                }
            }
            _ => {}
        }
    }

    /// The initializers of `std::function` members in a constructor's member initializer list
    /// (`Hooks () : on_done (destroy) {}`) are stores.
    fn member_initializer_stores(&mut self, ctor: Cursor) {
        let kids = self.kids(ctor);
        for pair in kids.windows(2) {
            let (k, init) = (pair[0], pair[1]);
            if k.kind() != CXCursor_MemberRef || !init.is_expression() {
                continue;
            }
            let Some(field) = k.referenced() else { continue };
            if !is_std_function(self, field.ty()) {
                continue;
            }
            if let Some(key) = self.field_key(field) {
                self.note_stored(&key, init);
            }
        }
    }

    /// The default member initializers of the `std::function` members of class `class`
    /// (`std::function<void (char *)> on_done = destroy;`): stores made by every constructor that
    /// does not name the member. The tree must be rooted at the field (`set_root`) while its
    /// store is recorded; the lambdas it names are lowered before the next root
    /// (`take_pending_lambdas`).
    pub fn default_member_stores(&mut self, class: Cursor) -> Vec<Cursor> {
        class
            .children()
            .into_iter()
            .filter(|f| f.kind() == CXCursor_FieldDecl && f.children().iter().any(|c| c.is_expression()))
            .filter(|f| is_std_function(self, f.ty()))
            .collect()
    }

    /// The store a field's default member initializer makes (`default_member_stores`); the
    /// tree is rooted at `field`.
    pub fn default_member_store(&mut self, field: Cursor) {
        let Some(key) = self.field_key(field) else { return };
        let Some(init) = self.kids(field).into_iter().rev().find(|c| c.is_expression()) else { return };
        let outer = std::mem::take(&mut self.field_group);
        let outer_root = self.store_root.take();
        self.note_stored(&key, init);
        self.end_field_group(outer);
        self.store_root = outer_root;
    }

    /// A lambda stored into a field or variable, as a function of its own: its USR, with the
    /// lambda queued for `lower::lower_lambda` (`pending_lambdas`). Only a lambda that
    /// captures nothing (`[]`: the function's parameters are the call's arguments, nothing else
    /// reaches it) and whose parameters are no template's and no object by value; not one in a
    /// template's body (its types are dependent). `None` for the others.
    fn lambda_function(&mut self, l: Cursor) -> Option<String> {
        if self.store_root.is_some_and(|r| r.kind() == CXCursor_FunctionTemplate || super::is_class_template_member(r))
        {
            return None;
        }
        let (file, start, end) = l.file_span()?;
        let text = self.file_text(file)?.get(start as usize..end as usize)?;
        let close = text.iter().position(|&b| b == b']')?;
        if text.first() != Some(&b'[') || !text[1..close].iter().all(|b| b.is_ascii_whitespace()) {
            return None;
        }
        let kids = self.kids(l);
        for p in kids.iter().filter(|c| c.kind() == CXCursor_ParmDecl) {
            let t = clang::canonical(p.ty());
            if t.kind == CXType_Unexposed || (!clang::is_reference(t) && classify(t) == TypeClass::Record) {
                return None;
            }
        }
        let body = kids.iter().rev().copied().find(|c| c.kind() == CXCursor_CompoundStmt)?;
        // An object returned by value would need its copy and its destruction.
        let mut stack = vec![body];
        while let Some(c) = stack.pop() {
            let record = |r: Cursor| r.is_expression() && r.type_class() == TypeClass::Record;
            match c.kind() {
                CXCursor_LambdaExpr => continue,
                CXCursor_ReturnStmt if self.kids(c).into_iter().any(record) => return None,
                _ => {}
            }
            stack.extend(self.kids(c));
        }
        let path = self.path_of(l)?;
        let usr = format!("drip:c++:lambda:{}@{start}", path.display());
        if !self.pending_lambdas.iter().any(|(_, u)| *u == usr) {
            self.pending_lambdas.push((l, usr.clone()));
        }
        Some(usr)
    }

    /// The function whose body is walked and the index of its parameter `v` names, if it names
    /// one of them.
    fn stored_param(&mut self, v: Cursor) -> Option<(String, u32)> {
        if v.kind() != CXCursor_DeclRefExpr {
            return None;
        }
        let p = v.referenced().filter(|d| d.kind() == CXCursor_ParmDecl)?;
        let root = self.store_root?;
        let n = u32::try_from(root.num_args()).ok()?;
        let i = (0..n).find(|&i| root.arg(i).is_some_and(|a| a.decl_key() == p.decl_key()))?;
        Some((self.function_usr(root), i))
    }

    /// The stores made by the initializer list `list` of an object of type `ty`.
    fn init_list_stores(&mut self, list: Cursor, ty: CXType, nested: &mut HashSet<usize>) {
        // Lists below this one are left out of `nested`, so the caller visits them too: they
        // initialize parts of `ty`, which hold no function-pointer field either.
        if !is_aggregate(ty) || !self.has_function_pointer_field(ty) {
            return;
        }
        let outer = std::mem::take(&mut self.field_group);
        self.init_list_elements(list, ty, nested);
        self.end_field_group(outer);
    }

    fn init_list_elements(&mut self, list: Cursor, ty: CXType, nested: &mut HashSet<usize>) {
        let mut stack = vec![Frame::new(ty)];
        for el in self.kids(list).into_iter().filter(|c| c.is_expression()) {
            let value = if is_designated(&self.tree, el) {
                let kids = self.kids(el);
                let Some((&value, desig)) = kids.split_last() else {
                    continue;
                };
                // libclang resolved every designator when it parsed the list, so this only fails
                // on code with errors; the element is then left out.
                if !designate(&mut stack, ty, desig) {
                    continue;
                }
                value
            } else {
                el
            };
            self.place_element(&mut stack, value, nested);
        }
    }

    /// Store `value` at the current position of `stack`, descending by brace elision into
    /// aggregate members that a scalar cannot initialize whole, then move past it.
    fn place_element(&mut self, stack: &mut Vec<Frame>, value: Cursor, nested: &mut HashSet<usize>) {
        let v = self.strip(value);
        loop {
            // Leave the aggregates entered by brace elision once they are full.
            while stack.len() > 1 && stack.last().is_some_and(|f| f.next >= f.len) {
                stack.pop();
                if let Some(f) = stack.last_mut() {
                    f.advance();
                }
            }
            // Excess elements (a warning in C) initialize nothing.
            let Some((member, mty)) = stack.last().and_then(|f| f.slot()) else {
                return;
            };
            if v.kind() == CXCursor_InitListExpr {
                nested.insert(v.stmt_key());
                if is_aggregate(mty) {
                    self.init_list_stores(v, mty, nested);
                } else if let Some(first) = self.kids(v).into_iter().find(|c| c.is_expression()) {
                    // A scalar in braces: `{ { f } }`.
                    self.store_leaf(member, mty, first);
                }
            } else if is_aggregate(mty) && !initializes_whole(v, mty) && !(self.cpp && is_std_function(self, mty)) {
                // (A `std::function` member is built whole from what the element names.)
                stack.push(Frame::new(mty));
                continue;
            } else {
                self.store_leaf(member, mty, v);
            }
            if let Some(f) = stack.last_mut() {
                f.advance();
            }
            return;
        }
    }

    /// Does an object of type `ty` have a member of function-pointer type, directly or inside
    /// its record and array members? Only such members are recorded from initializer lists; the
    /// lists of other types (a TU's large tables: integers, strings) need no walk.
    fn has_function_pointer_field(&mut self, ty: CXType) -> bool {
        self.type_holds(ty, Holds::FunctionPointerMember, false) || (self.cpp && self.has_std_function_field(ty))
    }

    /// Does a record of type `ty` (or an array of them) have a `std::function` member of its
    /// own? (An aggregate's initializer list stores into it: `NamedDrop d {"text", destroy};`.)
    fn has_std_function_field(&mut self, ty: CXType) -> bool {
        let c = clang::canonical(ty);
        let c = if classify(c) == TypeClass::Array { clang::canonical(clang::array_element(c)) } else { c };
        if c.kind != CXType_Record {
            return false;
        }
        clang::record_field_decls(c).into_iter().any(|f| is_std_function(self, f.ty()))
    }

    fn store_leaf(&mut self, member: Option<Cursor>, mty: CXType, value: Cursor) {
        let Some(m) = member else { return };
        if !self.holds_callable(mty) {
            return;
        }
        if let Some(key) = self.field_key(m) {
            self.note_stored(&key, value);
        }
    }
}

/// Point `stack` at the subobject the designators `desig` name, from the list's own type `ty`.
/// Returns false if a designator names nothing there.
fn designate(stack: &mut Vec<Frame>, ty: CXType, desig: &[Cursor]) -> bool {
    stack.clear();
    stack.push(Frame::new(ty));
    let mut i = 0;
    while i < desig.len() {
        let d = desig[i];
        let Some(top) = stack.last_mut() else {
            return false;
        };
        if d.kind() == CXCursor_MemberRef {
            if top.elem.is_some() {
                return false;
            }
            let Some(path) = field_path(&top.fields, d) else {
                return false;
            };
            let Some((&last, through)) = path.split_last() else {
                return false;
            };
            for &k in through {
                let Some(top) = stack.last_mut() else {
                    return false;
                };
                top.next = k;
                let Some((_, t)) = top.slot() else {
                    return false;
                };
                stack.push(Frame::new(t));
            }
            let Some(top) = stack.last_mut() else {
                return false;
            };
            top.next = last;
        } else {
            let Some(elem) = top.elem else {
                return false;
            };
            top.next = d.eval_int().and_then(|v| usize::try_from(v).ok()).unwrap_or(0);
            // GNU `[lo ... hi]` shows as two index expressions, like `[i][j]`; when the element
            // is not itself an array the second one can only be the end of the range.
            let elem_is_array = classify(elem) == TypeClass::Array;
            if !elem_is_array && desig.get(i + 1).is_some_and(|n| n.kind() != CXCursor_MemberRef) {
                i += 1;
            }
        }
        i += 1;
        if i < desig.len() {
            let Some((_, t)) = stack.last().and_then(|f| f.slot()) else {
                return false;
            };
            if !is_aggregate(t) {
                return false;
            }
            stack.push(Frame::new(t));
        }
    }
    true
}
