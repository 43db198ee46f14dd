//! C++ lambdas called where drip sees the call: the body is lowered in place of each call.
//!
//! Input: a `LambdaExpr` met while lowering a function (`Lowerer`), and the calls of the closure
//! it builds: called where it is written (`[&] { … } ()`), or held in a local (`auto f = [..]
//! { … };`, `std::function<…> f = [..] { … };`) whose every use is a call `f (…)` in the same
//! body. A local `std::function` built from a function's name (`std::function<void (T *)> d =
//! destroy;`) and used the same way is a call of that function. A call through a `std::function`
//! field or variable of static storage that `fields.rs` keys (`h.on_done (p)`, `g_release (p)`)
//! is an indirect call through that key (`std_function_call`), whose targets are what the
//! program stores there (a captureless lambda stored there is a function of its own,
//! `lower::lower_lambda`).
//! Output: no local for the closure; its by-value captures copied into temporaries where the
//! lambda is written; at each call, the lambda's parameters as locals given the arguments, then
//! its body, lowered with the statements of the enclosing function: a by-reference capture is
//! the enclosing function's variable itself, a by-value capture its copy, `this` the enclosing
//! function's, and a `return` (`inline_return`) stores the call's value and goes on after the
//! call. Lowering in place rather than as a function of its own keeps the captured variables
//! plain locals: a body function would take each by-reference capture's address, and the value
//! flow stops following an address-taken local (a cleanup lambda not called on one path would
//! then be no leak).
//! Invariants:
//! - A closure is resolved in place only when every use of it is a call lowered here: a
//!   closure handed to anything else (an algorithm, an unknown function, a field, another
//!   lambda) stays `cpp::NOT_ANALYSED` where it is written, an escape of every local it names,
//!   so no report can come from a call drip does not see. (One stored into a keyed
//!   `std::function` that captures nothing names no local, and its calls reach its own
//!   function.)
//! - A call through a `std::function` that `fields.rs` keys has no target when the key is open
//!   or nothing is stored: its `sig` (`ir::STD_FUNCTION_SIG`) is no function's type, so it is
//!   an unknown call, into which its arguments escape.
//! - Only captures the lowering copies faithfully: by reference (explicit, `&` default), by
//!   value of a pointer or scalar (explicit, `=` default, or a constant named without capture),
//!   `this`. Init captures, `*this`, packs, by-value copies of objects and arrays, generic
//!   lambdas, parameters or results of class type, labels, and lambdas written inside macros
//!   are not resolved. Checks come first: a closure not resolved emits nothing.
//! - Bodies nest at most `MAX_NESTING` deep; a call past it is not analysed.

use clang_sys::*;

use super::clang::{self, Cursor, TypeClass};
use super::expr::Want;
use super::lower::{CalleeInfo, Lowerer, TuCtx, VarInfo};
use crate::ir::*;
use std::rc::Rc;

/// What a local holding a callable is (`Lowerer::held`), by its declaration's key.
#[derive(Clone)]
pub(super) enum Held {
    Lambda(Rc<Closure>),
    /// A `std::function` built from a function's name.
    Function {
        info: Rc<CalleeInfo>,
        decl: Cursor,
    },
}

/// A closure built in the function being lowered: the lambda, and where its by-value
/// captures were copied.
pub(super) struct Closure {
    expr: Cursor,
    params: Vec<Cursor>,
    body: Cursor,
    /// Per variable captured by value (its declaration's key): the temporary holding the copy
    /// taken where the lambda is written. Variables captured by reference are the enclosing
    /// function's own.
    copies: Vec<(usize, LocalId)>,
}

/// A lambda body being lowered in place of a call (`Lowerer::inlines`): where its `return`
/// goes.
#[derive(Clone, Copy)]
pub(super) struct Inline {
    /// The block after the call.
    join: BlockId,
    /// The call's result, when it has one.
    result: Option<LocalId>,
    /// `Lowerer::scopes.len()` at the call: the scopes a `return` leaves.
    depth: usize,
    body: Cursor,
}

/// The capture list as written: the default (`Some(true)`: `&`, `Some(false)`: `=`), and the
/// variables named, each with whether it is by reference. `None` for what drip does not
/// resolve (init captures, `*this`, packs).
pub(super) struct Intro {
    pub(super) default: Option<bool>,
    pub(super) named: Vec<(String, bool)>,
}

fn is_ident(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_') && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// The capture list at the start of a lambda's text (`[&, p]`).
pub(super) fn parse_intro(text: &[u8]) -> Option<Intro> {
    if text.first() != Some(&b'[') {
        return None;
    }
    let mut depth = 0usize;
    let mut end = None;
    for (i, &c) in text.iter().enumerate().skip(1) {
        match c {
            b'[' | b'(' | b'{' => depth += 1,
            b']' if depth == 0 => {
                end = Some(i);
                break;
            }
            b']' | b')' | b'}' => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    let list = std::str::from_utf8(&text[1..end?]).ok()?;
    let mut intro = Intro { default: None, named: Vec::new() };
    for item in list.split(',').map(str::trim) {
        match item {
            "" if list.trim().is_empty() => {}
            "&" => intro.default = Some(true),
            "=" => intro.default = Some(false),
            // The enclosing function's `this` goes to every body function that has one.
            "this" => {}
            _ => match item.strip_prefix('&').map(str::trim) {
                Some(name) if is_ident(name) => intro.named.push((name.to_string(), true)),
                None if is_ident(item) => intro.named.push((item.to_string(), false)),
                _ => return None,
            },
        }
    }
    Some(intro)
}

/// What a variable's initializer makes it hold: a lambda, or (a `std::function` only) a
/// function.
enum Init {
    Lambda(Cursor),
    Function(Cursor),
}

/// How many lambda bodies may be lowered one inside another (`Lowerer::inlines`).
const MAX_NESTING: usize = 6;

/// Whether `t` is a `std::function` (libstdc++'s or libc++'s spelling).
pub(super) fn is_std_function(cx: &mut TuCtx, t: CXType) -> bool {
    let c = clang::canonical(t);
    if c.kind != CXType_Record {
        return false;
    }
    let s = cx.type_spelling(c);
    s.starts_with("std::function<") || s.starts_with("std::__1::function<")
}

impl Lowerer<'_, '_, '_> {
    /// An argument of a call through a callable: its address for a reference parameter, its
    /// value otherwise.
    fn call_argument(&mut self, a: Cursor, by_ref: bool, loc: Loc) -> Operand {
        if by_ref {
            let rv = self.addr_of(a);
            self.rvalue_operand(rv, loc)
        } else {
            self.expr(a)
        }
    }

    /// `e` without the nodes that only convert or materialise it (implicit casts, temporaries,
    /// parentheses).
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

    fn callable_init(&mut self, mut e: Cursor, std_function: bool) -> Option<Init> {
        loop {
            e = self.bare(e);
            match e.kind() {
                CXCursor_LambdaExpr => return Some(Init::Lambda(e)),
                CXCursor_DeclRefExpr if std_function => {
                    return e.referenced().filter(|d| d.kind() == CXCursor_FunctionDecl).map(Init::Function)
                }
                CXCursor_UnaryOperator if std_function && e.unop() == CXUnaryOperator_AddrOf => {
                    e = self.kids(e).into_iter().next()?;
                }
                // The `std::function` constructor taking the callable, or (before C++17) the
                // closure's elidable move, for which libclang names no constructor.
                CXCursor_CallExpr
                    if e.num_args() == 1 && e.referenced().is_none_or(|d| d.kind() == CXCursor_Constructor) =>
                {
                    let a = self.cx.tree.among_kids(e, e.arg(0)?);
                    let moved_closure = {
                        let b = self.bare(a);
                        b.kind() == CXCursor_LambdaExpr
                            && clang::same_type(clang::canonical(b.ty()), clang::canonical(e.ty()))
                    };
                    if !(moved_closure || std_function && is_std_function(self.cx, e.ty())) {
                        return None;
                    }
                    e = a;
                }
                _ => return None,
            }
        }
    }

    /// Whether every use of local `v` is the object of a call `v (…)` made in the body being
    /// lowered (the function's, or that of the lambda lowered in place), not in a lambda inside it.
    fn only_called(&self, v: Cursor) -> bool {
        let Some(body) = self.inlines.last().map(|i| i.body).or(self.body) else { return false };
        let key = v.decl_key();
        let mut called: Vec<usize> = Vec::new();
        let mut uses: Vec<usize> = Vec::new();
        let mut stack = vec![(body, false)];
        while let Some((c, inside)) = stack.pop() {
            match c.kind() {
                CXCursor_DeclRefExpr => {
                    if c.referenced().is_some_and(|d| d.decl_key() == key) {
                        if inside {
                            return false;
                        }
                        uses.push(c.stmt_key());
                    }
                    continue;
                }
                CXCursor_CallExpr if !inside => {
                    let op = c.referenced().filter(|d| d.kind() == CXCursor_CXXMethod && d.spelling() == "operator()");
                    if let Some(a) = op.and_then(|_| c.arg(0)) {
                        let a = self.bare(self.cx.tree.among_kids(c, a));
                        if a.kind() == CXCursor_DeclRefExpr {
                            called.push(a.stmt_key());
                        }
                    }
                }
                _ => {}
            }
            let inside = inside || c.kind() == CXCursor_LambdaExpr;
            stack.extend(self.kids(c).into_iter().map(|k| (k, inside)));
        }
        uses.iter().all(|u| called.contains(u))
    }

    /// `v`, a local declared with a lambda (or, a `std::function`, a function) that it is only
    /// called through: nothing is declared; the by-value captures are copied here, and each
    /// call lowers the body in place (`held_call`). False when `v` is anything else, lowered as
    /// before.
    pub(super) fn held_var(&mut self, v: Cursor) -> bool {
        if clang::is_reference(v.ty()) {
            return false;
        }
        let Some(init) = v.var_initializer() else { return false };
        let init = self.cx.tree.among_kids(v, init);
        let std_function = is_std_function(self.cx, v.ty());
        let Some(target) = self.callable_init(init, std_function) else { return false };
        if !self.only_called(v) {
            return false;
        }
        let held = match target {
            Init::Lambda(l) => match self.closure(l) {
                Some(c) => Held::Lambda(c),
                None => return false,
            },
            Init::Function(d) => Held::Function { info: self.cx.callee_info(d), decl: d },
        };
        self.held.insert(v.decl_key(), held);
        true
    }

    /// A call of `operator()` (`decl`) on a closure drip resolved (a local `held_var` took, or a
    /// lambda written in place): the lambda's body lowered here, or the call of the function a
    /// `std::function` holds. `None` for any other call.
    pub(super) fn held_call(&mut self, e: Cursor, decl: Cursor, want: &Want) -> Option<Option<Rvalue>> {
        if decl.kind() != CXCursor_CXXMethod || decl.spelling() != "operator()" {
            return None;
        }
        let a0 = e.arg(0)?;
        let obj = self.bare(self.cx.tree.among_kids(e, a0));
        let held = match obj.kind() {
            CXCursor_DeclRefExpr => self.held.get(&obj.referenced()?.decl_key())?.clone(),
            CXCursor_LambdaExpr => Held::Lambda(self.closure(obj)?),
            _ => return None,
        };
        let loc = self.loc(e);
        let n = e.num_args().max(1) as u32;
        let arg_cursors: Vec<Cursor> = (1..n).filter_map(|i| e.arg(i).map(|a| self.cx.tree.among_kids(e, a))).collect();
        let by_ref: Vec<bool> = match &held {
            Held::Lambda(c) => c.params.iter().map(|p| clang::is_reference(p.ty())).collect(),
            Held::Function { decl, .. } => {
                let fn_ty = clang::canonical(decl.ty());
                (0..arg_cursors.len() as u32)
                    .map(|i| clang::param_type(fn_ty, i).is_some_and(clang::is_reference))
                    .collect()
            }
        };
        let mut args = Vec::with_capacity(arg_cursors.len());
        for (i, a) in arg_cursors.into_iter().enumerate() {
            let op = self.call_argument(a, by_ref.get(i).copied().unwrap_or(false), loc);
            args.push(op);
        }
        match held {
            Held::Function { info, decl } => {
                let const_args = clang::const_pointer_params(clang::function_type(decl.ty()));
                let callee = Callee::Direct { name: info.name.clone(), usr: info.usr.clone(), const_args };
                let result = self.emit_call(e, callee, args, want.clone(), loc);
                if info.noreturn {
                    self.terminate(Terminator::NoReturn, loc);
                }
                Some(result)
            }
            // Lambdas calling lambdas: each call lowers the callee's body again, so the nesting
            // is bounded. Past it the lambda is not analysed: what its body names escapes.
            Held::Lambda(c) if self.inlines.len() >= MAX_NESTING => {
                self.not_analysed(c.expr, "lambda called inside too many lambdas");
                let class = e.type_class();
                let result = (class != TypeClass::Void).then(|| self.new_temp(class, loc));
                if let Some(t) = result {
                    self.assign(Place::Local(t), Rvalue::Use(Operand::Unknown), loc);
                }
                Some(self.deliver_result(result, want, loc))
            }
            Held::Lambda(c) => Some(self.inline_body(e, &c, args, want, loc)),
        }
    }

    /// A call through a `std::function` field or variable that has a key (`fields.rs`:
    /// `h.on_done (p)`, `g_release (p)`, `this->cb (x)`): an indirect call through that key,
    /// given the call's arguments (not the `std::function`), a reference parameter the
    /// argument's address. Its targets are the functions stored there (and the lambdas, as
    /// functions of their own); an open key, or one with no store, has none, so the call is
    /// unknown: the `sig` is no function type. `None` for any other call.
    pub(super) fn std_function_call(&mut self, e: Cursor, decl: Cursor, want: &Want) -> Option<Option<Rvalue>> {
        if decl.kind() != CXCursor_CXXMethod || decl.spelling() != "operator()" {
            return None;
        }
        let class = decl.semantic_parent()?;
        if !is_std_function(self.cx, class.ty()) {
            return None;
        }
        let obj = self.bare(self.cx.tree.among_kids(e, e.arg(0)?));
        let key = match obj.kind() {
            CXCursor_MemberRefExpr => self.cx.member_field_key(obj),
            CXCursor_DeclRefExpr => self.cx.var_ref_key(obj),
            _ => None,
        }?;
        let loc = self.loc(e);
        // What is evaluated to name the object (`p->hooks[i].cb`): its effects.
        if obj.kind() == CXCursor_MemberRefExpr {
            let _ = self.addr_of(obj);
        }
        let fn_ty = clang::canonical(decl.ty());
        let n = e.num_args().max(1) as u32;
        let mut args = Vec::with_capacity(n as usize - 1);
        for i in 1..n {
            let Some(a) = e.arg(i) else {
                args.push(Operand::Unknown);
                continue;
            };
            let a = self.cx.tree.among_kids(e, a);
            let by_ref = clang::param_type(fn_ty, i - 1).is_some_and(clang::is_reference);
            let op = self.call_argument(a, by_ref, loc);
            args.push(op);
        }
        let sig = format!("{}{}", STD_FUNCTION_SIG, self.cx.type_spelling(clang::canonical(class.ty())));
        let callee = Callee::Indirect { target: Operand::Unknown, sig, field: Some(key) };
        Some(self.emit_call(e, callee, args, want.clone(), loc))
    }

    /// The body of closure `c` lowered in place of call `e`, its parameters locals initialised
    /// with `args`, its by-value captures read from their copies.
    fn inline_body(&mut self, e: Cursor, c: &Closure, args: Vec<Operand>, want: &Want, loc: Loc) -> Option<Rvalue> {
        for (&p, a) in c.params.iter().zip(args) {
            let ploc = self.loc(p);
            let id = self.declare_local(p, p.spelling(), LocalKind::Var, ploc);
            self.assign(Place::Local(id), Rvalue::Use(a), loc);
        }
        let mut shadowed = Vec::with_capacity(c.copies.len());
        for &(key, t) in &c.copies {
            let old = self.vars.insert(key, VarInfo { place: Place::Local(t), is_array: false, is_ref: false });
            shadowed.push((key, old));
        }
        let class = e.type_class();
        let result = (class != TypeClass::Void).then(|| self.new_temp(class, loc));
        let join = self.new_block();
        self.inlines.push(Inline { join, result, depth: self.scopes.len(), body: c.body });
        let outer_full = self.full_expr.take();
        self.stmt(c.body);
        self.full_expr = outer_full;
        self.inlines.pop();
        let end = self.cx.loc(c.body.extent_end());
        self.enter(join, end);
        for (key, old) in shadowed.into_iter().rev() {
            match old {
                Some(v) => self.vars.insert(key, v),
                None => self.vars.remove(&key),
            };
        }
        self.deliver_result(result, want, loc)
    }

    /// The call's result, from the temporary `result`, where `want` asks.
    fn deliver_result(&mut self, result: Option<LocalId>, want: &Want, loc: Loc) -> Option<Rvalue> {
        let r = result?;
        match want {
            Want::Effect => None,
            Want::Value => Some(self.local_value(r)),
            Want::Into(d) => {
                self.assign(d.clone(), Rvalue::Use(Operand::Place(Place::Local(r))), loc);
                None
            }
        }
    }

    /// `return` in a lambda's body lowered in place of a call: the value is the call's, and
    /// control goes on after the call, leaving the body's scopes.
    pub(super) fn inline_return(&mut self, s: Cursor) {
        let Some(ctx) = self.inlines.last().copied() else { return };
        let loc = self.loc(s);
        let ret_e = self.kids(s).into_iter().find(|c| c.is_expression());
        let full = self.begin_full();
        match (ret_e, ctx.result) {
            (Some(e), Some(r)) => {
                let v = self.expr(e);
                self.assign(Place::Local(r), Rvalue::Use(v), loc);
            }
            (Some(e), None) => self.effect(e),
            (None, _) => {}
        }
        self.end_full(full, None, loc);
        self.run_cleanups(ctx.depth, loc);
        self.goto(ctx.join, loc);
    }

    /// The closure lambda `l` builds here, its by-value captures copied. `None`, with nothing
    /// emitted, when drip does not resolve it (see the module doc).
    fn closure(&mut self, l: Cursor) -> Option<Rc<Closure>> {
        if l.in_macro() {
            return None;
        }
        let (file, start, end) = l.file_span()?;
        let text = self.cx.file_text(file)?.get(start as usize..end as usize)?;
        let intro = parse_intro(text)?;
        let kids = self.kids(l);
        let params: Vec<Cursor> = kids.iter().copied().filter(|c| c.kind() == CXCursor_ParmDecl).collect();
        for p in &params {
            let t = clang::canonical(p.ty());
            // A generic lambda's `auto` parameters are a template's; an object passed by value
            // would need its copy and its destruction.
            if t.kind == CXType_Unexposed || (!clang::is_reference(t) && clang::classify(t) == TypeClass::Record) {
                return None;
            }
        }
        let body = kids.iter().rev().copied().find(|c| c.kind() == CXCursor_CompoundStmt)?;
        // The enclosing function's locals the body names, in order of first use; a label
        // would be defined once per call lowered.
        let mut named: Vec<(Cursor, Cursor)> = Vec::new();
        let mut stack = vec![(body, false)];
        while let Some((c, nested)) = stack.pop() {
            match c.kind() {
                CXCursor_DeclRefExpr => {
                    let Some(d) = c.referenced().filter(|d| matches!(d.kind(), CXCursor_VarDecl | CXCursor_ParmDecl))
                    else {
                        continue;
                    };
                    let inside =
                        d.file_span().is_some_and(|(f, s, _)| clang::same_file(f, file) && (start..end).contains(&s));
                    let local = self.vars.get(&d.decl_key()).is_some_and(|v| matches!(v.place, Place::Local(_)));
                    if local && !inside && !named.iter().any(|(n, _)| n.decl_key() == d.decl_key()) {
                        named.push((d, c));
                    }
                    continue;
                }
                CXCursor_LabelStmt | CXCursor_GotoStmt | CXCursor_IndirectGotoStmt | CXCursor_AddrLabelExpr => {
                    return None
                }
                CXCursor_ReturnStmt if !nested => {
                    let record =
                        self.kids(c).into_iter().any(|r| r.is_expression() && r.type_class() == TypeClass::Record);
                    if record {
                        return None;
                    }
                }
                _ => {}
            }
            let nested = nested || c.kind() == CXCursor_LambdaExpr;
            let mut ks: Vec<Cursor> = self.kids(c).into_iter().collect();
            ks.reverse();
            stack.extend(ks.into_iter().map(|k| (k, nested)));
        }
        let mut copied = Vec::new();
        for &(d, use_) in &named {
            let name = d.spelling();
            let class = use_.type_class();
            let by_ref = match intro.named.iter().find(|(n, _)| *n == name) {
                Some(&(_, r)) => r,
                None => match intro.default {
                    Some(r) => r,
                    // A constant named without being captured: its value is read.
                    None if matches!(class, TypeClass::Other | TypeClass::Float) => true,
                    None => return None,
                },
            };
            if !by_ref {
                if !matches!(class, TypeClass::Pointer | TypeClass::Other | TypeClass::Float) {
                    return None;
                }
                copied.push((d, use_, class));
            }
        }
        // Checked: from here on the closure is resolved. Copy the by-value captures.
        let loc = self.loc(l);
        let mut copies = Vec::with_capacity(copied.len());
        for (d, use_, class) in copied {
            let v = self.expr(use_);
            let t = self.new_temp(class, loc);
            self.assign(Place::Local(t), Rvalue::Use(v), loc);
            copies.push((d.decl_key(), t));
        }
        Some(Rc::new(Closure { expr: l, params, body, copies }))
    }
}
