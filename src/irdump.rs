//! A stable, human-readable text dump of lowered functions (`drip dump-ir`, golden tests).
//!
//! Input: a `Program` and one of its functions. Output: text, one line per local, statement and
//! terminator. Invariants: the output depends only on the IR (no addresses, no hash order), and
//! files are shown by base name, so dumps are stable across machines and directories.
//!
//! Format:
//! ```text
//! fn f(p, n) -> ptr [static] @ a.c:3
//!   local p: param ptr
//!   local tmp.1: temp ptr @ a.c:5
//!   note: line 7: inline assembly ignored
//!   bb0:
//!     4: q = call malloc(n)
//!     5: branch q ? bb2 : bb1  (`q == NULL` -> bb1)
//! ```
//! Statements and terminators are prefixed with their line (`file:line` when the file differs
//! from the function's). Places: `x` local, `@g` global, `*p`, `p->f`, `s.f`, `a[]` (element of
//! array `a`), `(*p)[]` (element of what `p` points to). Locals whose name is not unique in the
//! function are shown as `name#id`. Operands: integers, `"str"`, `&func`, `?` (unknown). A call
//! through a function-pointer field ends with the field's key: `call (o->release)(p)  via struct
//! ops::release`.

use std::fmt::Write as _;

use crate::ir::*;

/// Dump every function of the program, in program order, separated by blank lines.
pub fn dump_program(prog: &Program) -> String {
    let mut out = String::new();
    for (i, f) in prog.functions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&dump_function(prog, f));
    }
    out
}

pub fn dump_function(prog: &Program, f: &Function) -> String {
    let d = Dumper::new(prog, f);
    let mut out = String::new();
    let params: Vec<String> = f.params().map(|l| d.local(l)).collect();
    let _ = write!(out, "fn {}({})", f.name, params.join(", "));
    if f.returns_pointer {
        out.push_str(" -> ptr");
    }
    if f.is_static {
        out.push_str(" static");
    }
    let _ = writeln!(out, " @ {}", d.loc_full(f.loc));
    for (i, l) in f.locals.iter().enumerate() {
        let id = LocalId::from_usize(i);
        let kind = match l.kind {
            LocalKind::Param => "param",
            LocalKind::Var => "var",
            LocalKind::Temp => "temp",
        };
        let _ = write!(out, "  local {}: {kind}", d.local(id));
        if l.is_pointer {
            out.push_str(" ptr");
        }
        if l.is_aggregate {
            out.push_str(" aggregate");
        }
        if l.is_static {
            out.push_str(" static");
        }
        out.push('\n');
    }
    for n in &f.lowering_notes {
        let _ = writeln!(out, "  note: {n}");
    }
    for b in f.block_ids() {
        let block = f.block(b);
        let entry = if b == f.entry { " (entry)" } else { "" };
        let _ = writeln!(out, "  bb{}{entry}:", b.0);
        for &s in &block.stmts {
            let mut bits = f.bits_of(s).map_or_else(String::new, |b| format!("  bits: {}", d.bits(b)));
            if let Some((k, unsigned)) = f.step_of(s) {
                bits.push_str(&format!("  step: {k:+}{}", if unsigned { " unsigned" } else { "" }));
            }
            match f.nonneg_floor(s) {
                Some(0) => bits.push_str("  unsigned"),
                Some(k) => bits.push_str(&format!("  unsigned >= {k}")),
                None => {}
            }
            if f.grows_at(s) {
                bits.push_str("  grows");
            }
            if let Some(k) = f.offset_of(s) {
                bits.push_str(&format!("  offset: {k:+}"));
            }
            let _ = writeln!(out, "    {}: {}{bits}", d.loc_short(f.stmt_loc(s)), d.stmt(f.stmt(s)));
        }
        let elems = f.tested_elems(b).map_or_else(String::new, |e| {
            let e: Vec<String> = e.iter().map(|k| k.map_or_else(|| "?".to_string(), |k| k.to_string())).collect();
            format!("  elems: [{}]", e.join(", "))
        });
        // An exception leaving the function (`Function::throws`), unlike `exit`'s `noreturn`.
        let term = if f.throws_at(b) { "throw".to_string() } else { d.term(&block.term) };
        let _ = writeln!(out, "    {}: {term}{elems}", d.loc_short(block.term_loc));
    }
    for u in &f.unwinds {
        let to = u.handler.map_or_else(|| "out".to_string(), |h| format!("bb{}", h.0));
        let dtors: Vec<&str> = u.cleanups.iter().map(|c| c.1.as_str()).collect();
        let (at, call) = (d.loc_short(f.stmt_loc(u.call)), d.stmt(f.stmt(u.call)));
        let _ = writeln!(out, "  may throw: {at}: {call} -> {to}, destroying [{}]", dtors.join(", "));
    }
    for c in &f.owner_cycles {
        let links: Vec<String> =
            c.links.iter().map(|(holder, m, held)| format!("{holder}->{m} holds {held}")).collect();
        let others: Vec<String> = c.others.iter().map(|l| d.loc_short(*l)).collect();
        let _ = writeln!(
            out,
            "  owner cycle: {} ({}; also [{}]): {}; lost {}",
            d.loc_short(c.at),
            c.allocator,
            others.join(", "),
            links.join(", "),
            d.loc_short(c.lost)
        );
    }
    out
}

struct Dumper<'a> {
    prog: &'a Program,
    f: &'a Function,
    /// Display name of each local.
    names: Vec<String>,
}

impl<'a> Dumper<'a> {
    fn new(prog: &'a Program, f: &'a Function) -> Self {
        let mut count: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for l in &f.locals {
            *count.entry(l.name.as_str()).or_default() += 1;
        }
        let names = f
            .locals
            .iter()
            .enumerate()
            .map(|(i, l)| if count[l.name.as_str()] > 1 { format!("{}#{i}", l.name) } else { l.name.clone() })
            .collect();
        Dumper { prog, f, names }
    }

    fn local(&self, l: LocalId) -> String {
        self.names.get(l.index()).cloned().unwrap_or_else(|| format!("<bad local {}>", l.0))
    }

    fn file_name(&self, id: FileId) -> String {
        match self.prog.file(id) {
            Some(p) => p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()),
            None => "?".into(),
        }
    }

    fn loc_full(&self, l: Loc) -> String {
        if l == Loc::NONE {
            return "?".into();
        }
        format!("{}:{}", self.file_name(l.file), l.line)
    }

    fn loc_short(&self, l: Loc) -> String {
        if l == Loc::NONE {
            return "?".into();
        }
        if l.file == self.f.loc.file {
            l.line.to_string()
        } else {
            self.loc_full(l)
        }
    }

    fn place(&self, p: &Place) -> String {
        match p {
            Place::Local(l) => self.local(*l),
            Place::Global(g) => format!("@{g}"),
            Place::Deref(inner) => format!("*{}", self.atom(inner)),
            Place::Field(inner, name) => match &**inner {
                Place::Deref(ptr) => format!("{}->{name}", self.atom(ptr)),
                other => format!("{}.{name}", self.atom(other)),
            },
            Place::Index(inner) => format!("{}[]", self.atom(inner)),
        }
    }

    /// A place, parenthesised unless it is a plain name or an access path that binds tighter.
    fn atom(&self, p: &Place) -> String {
        match p {
            Place::Local(_) | Place::Global(_) | Place::Field(..) | Place::Index(_) => self.place(p),
            Place::Deref(_) => format!("({})", self.place(p)),
        }
    }

    fn operand(&self, o: &Operand) -> String {
        match o {
            Operand::Place(p) => self.place(p),
            Operand::Const(c) => c.to_string(),
            Operand::Str => "\"str\"".into(),
            Operand::Func { name, .. } => format!("&{name}"),
            Operand::Unknown => "?".into(),
        }
    }

    fn operands(&self, ops: &[Operand]) -> String {
        ops.iter().map(|o| self.operand(o)).collect::<Vec<_>>().join(", ")
    }

    /// `(flags & ~0x1) | 0x1`, then `?MASK` for the bits nothing says anything of.
    fn bits(&self, b: &Bits) -> String {
        let mask = |m: i64| if m < 0 { format!("~{:#x}", !m) } else { format!("{m:#x}") };
        let mut parts = Vec::new();
        match b.base {
            Some(l) if b.from_base == -1 => parts.push(self.local(l)),
            Some(l) if b.from_base != 0 && b.ones != 0 => {
                parts.push(format!("({} & {})", self.local(l), mask(b.from_base)))
            }
            Some(l) if b.from_base != 0 => parts.push(format!("{} & {}", self.local(l), mask(b.from_base))),
            _ => {}
        }
        if b.ones != 0 || parts.is_empty() {
            parts.push(mask(b.ones));
        }
        let unknown = !(b.from_base | b.ones | b.zeros);
        let unknown = if unknown != 0 { format!(" ?{}", mask(unknown)) } else { String::new() };
        format!("{}{unknown}", parts.join(" | "))
    }

    fn stmt(&self, s: &Stmt) -> String {
        match s {
            Stmt::Assign { dst, src } => {
                let src = match src {
                    Rvalue::Use(o) => self.operand(o),
                    Rvalue::AddrOf(p) => format!("&{}", self.atom(p)),
                    Rvalue::Opaque(ops) => format!("opaque({})", self.operands(ops)),
                };
                format!("{} = {src}", self.place(dst))
            }
            Stmt::Call { dst, callee, args } => {
                let (name, via) = match callee {
                    Callee::Direct { name, .. } => (name.clone(), String::new()),
                    Callee::Indirect { target, field, .. } => (
                        format!("({})", self.operand(target)),
                        field.as_ref().map_or(String::new(), |k| format!("  via {k}")),
                    ),
                };
                let call = format!("call {name}({}){via}", self.operands(args));
                match dst {
                    Some(d) => format!("{} = {call}", self.place(d)),
                    None => call,
                }
            }
        }
    }

    fn term(&self, t: &Terminator) -> String {
        match t {
            Terminator::Goto(b) => format!("goto bb{}", b.0),
            Terminator::Branch { cond, then_, else_ } => {
                let c = match &cond.kind {
                    CondKind::Truthy(o) => self.operand(o),
                    CondKind::Cmp(op, a, b) => {
                        let op = match op {
                            CmpOp::Eq => "==",
                            CmpOp::Ne => "!=",
                            CmpOp::Lt => "<",
                            CmpOp::Le => "<=",
                            CmpOp::Gt => ">",
                            CmpOp::Ge => ">=",
                        };
                        format!("{} {op} {}", self.operand(a), self.operand(b))
                    }
                    CondKind::Opaque => "opaque".into(),
                };
                let holds = if cond.text_on_else { else_ } else { then_ };
                format!("branch {c} ? bb{} : bb{}  (`{}` -> bb{})", then_.0, else_.0, cond.text, holds.0)
            }
            Terminator::Switch { on, cases, default } => {
                let mut parts: Vec<String> = cases.iter().map(|(v, b)| format!("{v}: bb{}", b.0)).collect();
                parts.push(format!("default: bb{}", default.0));
                format!("switch {} [{}]", self.operand(on), parts.join(", "))
            }
            Terminator::Return(Some(o)) => format!("return {}", self.operand(o)),
            Terminator::Return(None) => "return".into(),
            Terminator::NoReturn => "noreturn".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Program, Function) {
        let loc = |line| Loc { file: FileId(0), line, col: 1 };
        let mk = |name: &str, kind, ptr| LocalDecl {
            name: name.into(),
            kind,
            is_pointer: ptr,
            is_aggregate: false,
            may_run_code: false,
            is_static: false,
            pointee_pointer: None,
            loc: loc(1),
        };
        let f = Function {
            name: "f".into(),
            usr: "c:@F@f".into(),
            is_static: false,
            loc: loc(1),
            sig: "char *(char *)".into(),
            n_params: 1,
            locals: vec![
                mk("p", LocalKind::Param, true),
                mk("x", LocalKind::Var, false),
                mk("x", LocalKind::Var, true),
            ],
            returns_pointer: true,
            blocks: vec![
                Block {
                    stmts: vec![StmtId(0), StmtId(1)],
                    term: Terminator::Branch {
                        cond: Cond {
                            kind: CondKind::Truthy(Operand::Place(Place::Local(LocalId(2)))),
                            text: "x == NULL".into(),
                            text_on_else: true,
                        },
                        then_: BlockId(1),
                        else_: BlockId(1),
                    },
                    term_loc: loc(3),
                },
                Block { stmts: vec![], term: Terminator::Return(Some(Operand::Const(0))), term_loc: loc(4) },
            ],
            entry: BlockId(0),
            stmts: vec![
                Stmt::Call {
                    dst: Some(Place::Local(LocalId(2))),
                    callee: Callee::Direct { name: "malloc".into(), usr: "c:@F@malloc".into(), const_args: 0 },
                    args: vec![Operand::Const(8)],
                },
                Stmt::Assign {
                    dst: Place::Field(Box::new(Place::Deref(Box::new(Place::Local(LocalId(0))))), "next".into()),
                    src: Rvalue::AddrOf(Place::Index(Box::new(Place::Deref(Box::new(Place::Local(LocalId(2))))))),
                },
            ],
            stmt_locs: vec![loc(2), loc(3)],
            lowering_notes: vec![],
            bits: vec![],
            steps: vec![],
            nonneg: vec![],
            grows: vec![],
            offsets: vec![],
            case_labels: vec![],
            tested_elems: vec![],
            throws: Vec::new(),
            unwinds: Vec::new(),
            owner_cycles: Vec::new(),
        };
        (
            Program {
                files: vec!["/x/a.c".into()],
                functions: vec![],
                address_taken: vec![],
                cast_targets: vec![],
                library_taken: vec![],
                field_targets: vec![],
                open_fields: vec![],
                field_groups: vec![],
                param_stores: vec![],
                scalar_globals: vec![],
                global_addrs: vec![],
                seen_partly: false,
                attributes: vec![],
                classes: vec![],
            },
            f,
        )
    }

    #[test]
    fn dump_format() {
        let (prog, f) = sample();
        let text = dump_function(&prog, &f);
        let expected = "\
fn f(p) -> ptr @ a.c:1
  local p: param ptr
  local x#1: var
  local x#2: var ptr
  bb0 (entry):
    2: x#2 = call malloc(8)
    3: p->next = &(*x#2)[]
    3: branch x#2 ? bb1 : bb1  (`x == NULL` -> bb1)
  bb1:
    4: return 0
";
        assert_eq!(text, expected);
    }
}
