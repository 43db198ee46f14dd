//! Hand-built IR for the paper's examples, so the check is tested without libclang.
use super::*;
use crate::ir::{
    Block, Callee, Cond, CondKind, FileId, Function, LocalDecl, LocalKind, Operand, Place, Rvalue, Stmt, Terminator,
};

struct Build {
    f: Function,
}

impl Build {
    fn new() -> Build {
        Build {
            f: Function {
                name: "f".into(),
                usr: "c:@F@f".into(),
                is_static: false,
                loc: Loc { file: FileId(0), line: 1, col: 1 },
                sig: String::new(),
                n_params: 0,
                locals: Vec::new(),
                returns_pointer: false,
                blocks: Vec::new(),
                entry: BlockId(0),
                stmts: Vec::new(),
                stmt_locs: Vec::new(),
                lowering_notes: Vec::new(),
                bits: Vec::new(),
                steps: Vec::new(),
                nonneg: Vec::new(),
                grows: Vec::new(),
                offsets: Vec::new(),
                case_labels: Vec::new(),
                tested_elems: Vec::new(),
                throws: Vec::new(),
                unwinds: Vec::new(),
                owner_cycles: Vec::new(),
            },
        }
    }
    fn local(&mut self, name: &str) -> LocalId {
        self.f.locals.push(LocalDecl {
            name: name.into(),
            kind: LocalKind::Var,
            is_pointer: true,
            is_aggregate: false,
            may_run_code: false,
            is_static: false,
            pointee_pointer: None,
            loc: Loc::NONE,
        });
        LocalId::from_usize(self.f.locals.len() - 1)
    }
    fn block(&mut self) -> BlockId {
        self.f.blocks.push(Block { stmts: Vec::new(), term: Terminator::Return(None), term_loc: Loc::NONE });
        BlockId::from_usize(self.f.blocks.len() - 1)
    }
    fn stmt(&mut self, b: BlockId, line: u32, s: Stmt) -> StmtId {
        self.f.stmts.push(s);
        self.f.stmt_locs.push(Loc { file: FileId(0), line, col: 1 });
        let id = StmtId::from_usize(self.f.stmts.len() - 1);
        self.f.blocks[b.index()].stmts.push(id);
        id
    }
    fn call(&mut self, b: BlockId, line: u32, dst: Option<LocalId>, name: &str, args: &[LocalId]) -> StmtId {
        let args = args.iter().map(|a| Operand::Place(Place::Local(*a))).collect();
        let callee = Callee::Direct { name: name.into(), usr: format!("c:@F@{name}"), const_args: 0 };
        self.stmt(b, line, Stmt::Call { dst: dst.map(Place::Local), callee, args })
    }
    fn copy(&mut self, b: BlockId, line: u32, dst: LocalId, src: LocalId) {
        self.stmt(
            b,
            line,
            Stmt::Assign { dst: Place::Local(dst), src: Rvalue::Use(Operand::Place(Place::Local(src))) },
        );
    }
    fn term(&mut self, b: BlockId, line: u32, t: Terminator) {
        self.f.blocks[b.index()].term = t;
        self.f.blocks[b.index()].term_loc = Loc { file: FileId(0), line, col: 1 };
    }
    fn branch(&mut self, b: BlockId, line: u32, kind: CondKind, then_: BlockId, else_: BlockId) {
        let cond = Cond { kind, text: "c".into(), text_on_else: false };
        self.term(b, line, Terminator::Branch { cond, then_, else_ });
    }
}

fn truthy(l: LocalId) -> CondKind {
    CondKind::Truthy(Operand::Place(Place::Local(l)))
}

fn check(f: &Function) -> Vec<SiteVerdict> {
    let sums = crate::summary::Summaries::none();
    let cx = CheckCx::new(f, crate::summary::call_models(0, f, &sums, &Default::default()));
    check_function(&cx, &Config::standard(), false, &mut Timings::default())
}

/// FastCheck Figure 1: the second allocation fails and the first leaks.
#[test]
fn figure_1_conditional_leak() {
    let mut b = Build::new();
    let (p, q) = (b.local("p"), b.local("q"));
    let [b0, b1, b2, b3, b4] = [b.block(), b.block(), b.block(), b.block(), b.block()];
    b.call(b0, 2, Some(p), "malloc", &[]);
    b.branch(b0, 3, truthy(p), b2, b1);
    b.term(b1, 4, Terminator::Return(None));
    b.call(b2, 6, Some(q), "malloc", &[]);
    b.branch(b2, 7, truthy(q), b4, b3);
    b.term(b3, 8, Terminator::Return(None));
    b.call(b4, 12, None, "free", &[p]);
    b.call(b4, 13, None, "free", &[q]);
    b.term(b4, 14, Terminator::Return(None));
    let v = check(&b.f);
    assert_eq!(v[0].category, Category::FreedConditional);
    let path = v[0].leak.as_ref().expect("leak path");
    assert!(path.iter().any(|s| matches!(s, Step::Branch { taken: false, loc, .. } if loc.line == 7)), "{path:?}");
    assert!(matches!(path.last(), Some(Step::Lost { how: Lost::Return, loc }) if loc.line == 8), "{path:?}");
    assert_eq!(v[1].category, Category::FreedAlways);
    assert!(v.iter().all(|s| s.double_free.is_none()));
}

/// FastCheck 3.2: `q = p; if (c) free(p) else free(q)`: no leak, no double free.
#[test]
fn aliases_on_both_branches() {
    let mut b = Build::new();
    let (p, q, c) = (b.local("p"), b.local("q"), b.local("c"));
    let [b0, b1, b2, b3] = [b.block(), b.block(), b.block(), b.block()];
    b.call(b0, 1, Some(p), "malloc", &[]);
    b.copy(b0, 2, q, p);
    b.branch(b0, 3, truthy(c), b1, b2);
    b.call(b1, 4, None, "free", &[p]);
    b.term(b1, 4, Terminator::Goto(b3));
    b.call(b2, 5, None, "free", &[q]);
    b.term(b2, 5, Terminator::Goto(b3));
    let v = check(&b.f);
    assert_eq!(v[0].category, Category::FreedAlways);
    assert!(v[0].double_free.is_none());
}

#[test]
fn free_twice_through_an_alias() {
    let mut b = Build::new();
    let (p, q) = (b.local("p"), b.local("q"));
    let b0 = b.block();
    b.call(b0, 1, Some(p), "malloc", &[]);
    b.copy(b0, 2, q, p);
    b.call(b0, 3, None, "free", &[p]);
    b.call(b0, 4, None, "free", &[q]);
    let v = check(&b.f);
    let path = v[0].double_free.as_ref().expect("double free");
    let frees = path.iter().filter(|s| matches!(s, Step::Free { .. })).count();
    assert_eq!(frees, 2);
}

/// `while (c) { p = malloc(); }`: overwritten on the next iteration, never freed.
#[test]
fn loop_overwrites_and_loses() {
    let mut b = Build::new();
    let (p, c) = (b.local("p"), b.local("c"));
    let [b0, h, body, exit] = [b.block(), b.block(), b.block(), b.block()];
    b.term(b0, 1, Terminator::Goto(h));
    b.branch(h, 2, truthy(c), body, exit);
    b.call(body, 3, Some(p), "malloc", &[]);
    b.term(body, 3, Terminator::Goto(h));
    let v = check(&b.f);
    assert_eq!(v[0].category, Category::NeverFreedLocal);
}

/// `q = realloc(p, n); if (!q) { free(p); return; } free(q);`: correct idiom.
#[test]
fn realloc_idiom_is_clean() {
    let mut b = Build::new();
    let (p, q) = (b.local("p"), b.local("q"));
    let [b0, fail, ok] = [b.block(), b.block(), b.block()];
    b.call(b0, 1, Some(p), "malloc", &[]);
    b.call(b0, 2, Some(q), "realloc", &[p]);
    b.branch(b0, 3, truthy(q), ok, fail);
    b.call(fail, 4, None, "free", &[p]);
    b.call(ok, 6, None, "free", &[q]);
    let v = check(&b.f);
    assert_eq!(v[0].category, Category::FreedAlways, "{:?}", v[0]);
    assert!(v[0].double_free.is_none());
    assert_eq!(v[1].category, Category::FreedAlways);
}

/// `p = realloc(p, n)` loses the old block when realloc fails.
#[test]
fn realloc_into_same_pointer_leaks_on_failure() {
    let mut b = Build::new();
    let p = b.local("p");
    let [b0, fail, ok] = [b.block(), b.block(), b.block()];
    b.call(b0, 1, Some(p), "malloc", &[]);
    b.call(b0, 2, Some(p), "realloc", &[p]);
    b.branch(b0, 3, truthy(p), ok, fail);
    b.call(ok, 6, None, "free", &[p]);
    let v = check(&b.f);
    assert_eq!(v[0].category, Category::FreedConditional);
    let path = v[0].leak.as_ref().expect("path");
    assert!(path.iter().any(|s| matches!(s, Step::CallFails { .. })), "{path:?}");
}

#[test]
fn exit_ends_the_path() {
    let mut b = Build::new();
    let (p, c) = (b.local("p"), b.local("c"));
    let [b0, die, ok] = [b.block(), b.block(), b.block()];
    b.call(b0, 1, Some(p), "malloc", &[]);
    b.branch(b0, 2, truthy(c), die, ok);
    b.term(die, 3, Terminator::NoReturn);
    b.call(ok, 4, None, "free", &[p]);
    let v = check(&b.f);
    assert_eq!(v[0].category, Category::FreedAlways);
}

#[test]
fn a_site_over_its_guard_budget_is_classified_not_dropped() {
    // p = malloc(); then 20 tests `c < i`, each returning early on one side.
    let mut b = Build::new();
    let (p, c) = (b.local("p"), b.local("c"));
    let mut head = b.block();
    b.call(head, 1, Some(p), "malloc", &[]);
    for i in 0..20 {
        let (early, next) = (b.block(), b.block());
        let cond = CondKind::Cmp(crate::ir::CmpOp::Lt, Operand::Place(Place::Local(c)), Operand::Const(i));
        b.branch(head, 2, cond, early, next);
        head = next;
    }
    let sums = crate::summary::Summaries::none();
    let cx = CheckCx::new(&b.f, crate::summary::call_models(0, &b.f, &sums, &Default::default()));
    let tight = Config { max_guard_nodes_per_site: 5, max_guard_nodes_entry: 5, ..Config::standard() };
    let v = check_function(&cx, &tight, false, &mut Timings::default());
    assert_eq!(v[0].category, Category::OverBudget);
    let v = check_function(&cx, &Config::standard(), false, &mut Timings::default());
    assert_eq!(v[0].category, Category::NeverFreedLocal);
}

fn field_store(b: &mut Build, blk: BlockId, line: u32, obj: LocalId, value: LocalId) {
    let dst = Place::Field(Box::new(Place::Deref(Box::new(Place::Local(obj)))), "other".into());
    b.stmt(blk, line, Stmt::Assign { dst, src: Rvalue::Use(Operand::Place(Place::Local(value))) });
}

/// `a->other = b; b->other = a; return;`: each cell is referenced by the other, and neither
/// is reachable; both are leaks, each naming the other as its cycle (Scholz et al., Fig. 2).
#[test]
fn an_unreachable_two_cycle_leaks_at_both_cells() {
    let mut b = Build::new();
    let (a, c) = (b.local("a"), b.local("c"));
    let b0 = b.block();
    let sa = b.call(b0, 1, Some(a), "malloc", &[]);
    let sc = b.call(b0, 2, Some(c), "malloc", &[]);
    field_store(&mut b, b0, 3, a, c);
    field_store(&mut b, b0, 4, c, a);
    let v = check(&b.f);
    assert_eq!(v[0].category, Category::NeverFreedLocal, "{:?}", v[0]);
    assert_eq!(v[1].category, Category::NeverFreedLocal, "{:?}", v[1]);
    assert_eq!(v[0].cycle_with, vec![sc]);
    assert_eq!(v[1].cycle_with, vec![sa]);
}

/// The same pair with the first cell returned: the second lives inside it, no leak.
#[test]
fn a_cycle_reachable_from_the_result_is_kept() {
    let mut b = Build::new();
    let (a, c) = (b.local("a"), b.local("c"));
    let b0 = b.block();
    b.call(b0, 1, Some(a), "malloc", &[]);
    b.call(b0, 2, Some(c), "malloc", &[]);
    field_store(&mut b, b0, 3, a, c);
    field_store(&mut b, b0, 4, c, a);
    b.term(b0, 5, Terminator::Return(Some(Operand::Place(Place::Local(a)))));
    let v = check(&b.f);
    assert!(v.iter().all(|s| s.leak.is_none()), "{v:?}");
}

/// A chain `a -> c` with both lost: only the root `a` is reported.
#[test]
fn a_cell_inside_a_lost_cell_is_reported_at_the_root() {
    let mut b = Build::new();
    let (a, c) = (b.local("a"), b.local("c"));
    let b0 = b.block();
    b.call(b0, 1, Some(a), "malloc", &[]);
    b.call(b0, 2, Some(c), "malloc", &[]);
    field_store(&mut b, b0, 3, a, c);
    let v = check(&b.f);
    assert_eq!(v[0].category, Category::NeverFreedLocal);
    assert!(v[1].leak.is_none() && v[1].category == Category::NeverFreedNotLocal, "{:?}", v[1]);
}

#[test]
fn correlated_tests_of_an_unchanged_flag() {
    // if (c) p = malloc(); ...; if (c) free(p);
    let mut b = Build::new();
    let (p, c) = (b.local("p"), b.local("c"));
    b.f.locals[c.index()].kind = LocalKind::Param;
    b.f.n_params = 0;
    let [b0, alloc, mid, fr, end] = [b.block(), b.block(), b.block(), b.block(), b.block()];
    b.branch(b0, 1, truthy(c), alloc, mid);
    b.call(alloc, 2, Some(p), "malloc", &[]);
    b.term(alloc, 2, Terminator::Goto(mid));
    b.branch(mid, 3, truthy(c), fr, end);
    b.call(fr, 4, None, "free", &[p]);
    b.term(fr, 4, Terminator::Goto(end));
    let v = check(&b.f);
    assert_eq!(v[0].category, Category::FreedAlways, "{:?}", v[0]);
}
