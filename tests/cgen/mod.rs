//! A random C program generator for `tests/generated.rs`.
//!
//! Input: a seed. Output: a `Program`, a header `prog.h` and one to three translation units
//! `tu0.c`…, the same bytes for the same seed on every machine (its own SplitMix64, no library
//! randomness). The programs are valid C (the harness checks each with `clang -fsyntax-only`
//! and counts a rejection as a bug of this generator) but not correct programs: they leak,
//! double-free and use freed memory on purpose, since what is tested is that drip survives them,
//! not what it reports.
//!
//! Shapes: allocating and freeing wrappers, list constructors and destructors (iterative and
//! recursive), recursive functions, and general functions with out-parameters and `goto
//! cleanup`; `malloc`/`calloc`/`realloc`/`free`/`strdup`; pointers kept in locals, struct fields,
//! arrays and globals; `for`/`while`/`do`, `switch`, `if` chains; calls through static function
//! tables, local function pointers and a struct's function pointer field; now and then a long
//! `else if` chain or a deep nest of blocks.
//!
//! Invariants that keep the output valid C: every name is declared before use (all functions
//! are prototyped in `prog.h`); expressions are built from variables of a known type only;
//! `break`/`continue` appear only inside a loop or switch; declarations after a `case` are in a
//! block of their own; `goto cleanup` only in functions that have the label; local names are
//! unique within a function.

use std::fmt::Write;

/// SplitMix64: small, fast, and fixed forever, so a seed names the same program in every build.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    /// True `pct` times in a hundred.
    pub fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// The files of one program: (name, contents), the header first.
pub struct Program {
    pub files: Vec<(String, String)>,
}

impl Program {
    /// The translation units (every file but the header).
    pub fn units(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|(n, _)| n.as_str()).filter(|n| n.ends_with(".c"))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// `char *mk_N(int n)`: returns a new block (or NULL).
    Mk,
    /// `void rel_N(char *p)`: frees its argument.
    Rel,
    /// `struct node *node_new_N(const char *str, int n)`.
    NodeNew,
    /// `void node_free_N(struct node *nd)`: frees a list.
    NodeFree,
    /// `int rec_N(int depth, char *p)`: calls itself.
    Rec,
    /// `int work_N(int x, int *a, char **out)`: anything.
    Work,
}

struct Func {
    name: String,
    kind: Kind,
    tu: usize,
}

fn prototype(f: &Func) -> String {
    let n = &f.name;
    match f.kind {
        Kind::Mk => format!("char *{n}(int n)"),
        Kind::Rel => format!("void {n}(char *p)"),
        Kind::NodeNew => format!("struct node *{n}(const char *str, int n)"),
        Kind::NodeFree => format!("void {n}(struct node *nd)"),
        Kind::Rec => format!("int {n}(int depth, char *p)"),
        Kind::Work => format!("int {n}(int x, int *a, char **out)"),
    }
}

const HEADER: &str = "\
#ifndef PROG_H
#define PROG_H
#include <stdlib.h>
#include <string.h>

typedef char *(*alloc_fn)(int);
typedef void (*free_fn)(char *);
typedef int (*work_fn)(int, int *, char **);

struct node {
  char *name;
  int *data;
  struct node *next;
  char *items[4];
  free_fn release;
  int len;
};

extern char *g_str;
extern char *g_table[8];
extern struct node *g_list;
extern int g_count;

";

/// The program for `seed`.
pub fn generate(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let tus = rng.range(1, 3);
    let nfuncs = rng.range(3, 14);
    let mut funcs = Vec::new();
    for i in 0..nfuncs {
        // A wrapper of each kind first, so every program has something to call through tables.
        let kind = match i {
            0 => Kind::Mk,
            1 => Kind::Rel,
            _ => *rng.pick(&[
                Kind::Mk,
                Kind::Rel,
                Kind::NodeNew,
                Kind::NodeFree,
                Kind::Rec,
                Kind::Work,
                Kind::Work,
                Kind::Work,
            ]),
        };
        let stem = match kind {
            Kind::Mk => "mk",
            Kind::Rel => "rel",
            Kind::NodeNew => "node_new",
            Kind::NodeFree => "node_free",
            Kind::Rec => "rec",
            Kind::Work => "work",
        };
        let tu = if i < tus { i } else { rng.below(tus) };
        funcs.push(Func { name: format!("{stem}_{i}"), kind, tu });
    }
    let has_main = rng.chance(50);

    let mut header = String::from(HEADER);
    for f in &funcs {
        writeln!(header, "{};", prototype(f)).unwrap();
    }
    header.push_str("\n#endif\n");

    let mut files = vec![("prog.h".to_string(), header)];
    for tu in 0..tus {
        let mut g = Gen { rng: &mut rng, funcs: &funcs, tu, out: String::new() };
        let text = g.unit(tu == 0, has_main && tu == 0);
        files.push((format!("tu{tu}.c"), text));
    }
    Program { files }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    Int,
    /// `char *`
    Ptr,
    /// `struct node *`
    Node,
    /// `char *x[4]`
    Arr,
    /// `int *` (indexable)
    Ints,
    /// `char **`
    Out,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ret {
    Int,
    Ptr,
    Node,
    Void,
}

struct Gen<'a> {
    rng: &'a mut Rng,
    funcs: &'a [Func],
    tu: usize,
    out: String,
}

/// The state of one function body being written.
struct Body {
    ret: Ret,
    cleanup: bool,
    scopes: Vec<Vec<(String, Ty)>>,
    loops: usize,
    switches: usize,
    /// Statements left to write.
    budget: usize,
    depth: usize,
    max_depth: usize,
    names: usize,
    /// This TU's function tables: (name, length), by kind of table.
    alloc_tab: Option<(String, usize)>,
    free_tab: Option<(String, usize)>,
    work_tab: Option<(String, usize)>,
}

impl Body {
    fn vars(&self, ty: Ty) -> Vec<String> {
        self.scopes.iter().flatten().filter(|(_, t)| *t == ty).map(|(n, _)| n.clone()).collect()
    }
    fn declare(&mut self, name: &str, ty: Ty) {
        self.scopes.last_mut().expect("a scope").push((name.to_string(), ty));
    }
    fn fresh(&mut self, stem: &str) -> String {
        self.names += 1;
        format!("{stem}{}", self.names)
    }
}

impl Gen<'_> {
    fn names(&self, kind: Kind) -> Vec<String> {
        self.funcs.iter().filter(|f| f.kind == kind).map(|f| f.name.clone()).collect()
    }

    fn unit(&mut self, first: bool, main: bool) -> String {
        self.out.push_str("#include \"prog.h\"\n\n");
        if first {
            self.out.push_str("char *g_str;\nchar *g_table[8];\nstruct node *g_list;\nint g_count;\n\n");
        }
        let tu = self.tu;
        let mut tables = [None, None, None];
        for (slot, (kind, ty, stem)) in
            [(Kind::Mk, "alloc_fn", "allocs"), (Kind::Rel, "free_fn", "frees"), (Kind::Work, "work_fn", "works")]
                .into_iter()
                .enumerate()
        {
            let names = self.names(kind);
            if names.is_empty() || !self.rng.chance(60) {
                continue;
            }
            let len = self.rng.range(1, 4);
            let entries: Vec<String> = (0..len).map(|_| self.rng.pick(&names).clone()).collect();
            let name = format!("{stem}_{tu}");
            writeln!(self.out, "static {ty} {name}[] = {{{}}};", entries.join(", ")).unwrap();
            tables[slot] = Some((name, len));
        }
        self.out.push('\n');
        let funcs = self.funcs;
        for f in funcs.iter().filter(|f| f.tu == tu) {
            self.function(f, tables.clone());
        }
        if main {
            self.main();
        }
        std::mem::take(&mut self.out)
    }

    fn main(&mut self) {
        self.out.push_str("int main(int argc, char **argv) {\n  int a[8] = {0};\n  int s = 0;\n  (void)argv;\n");
        for w in self.names(Kind::Work) {
            writeln!(self.out, "  {{\n    char *o = NULL;\n    s += {w}(argc, a, &o);\n    free(o);\n  }}").unwrap();
        }
        for r in self.names(Kind::Rec) {
            writeln!(self.out, "  s += {r}(argc, malloc(8));").unwrap();
        }
        self.out.push_str("  return s & 1;\n}\n\n");
    }

    fn function(&mut self, f: &Func, tables: [Option<(String, usize)>; 3]) {
        let [alloc_tab, free_tab, work_tab] = tables;
        let (ret, params): (Ret, Vec<(&str, Ty)>) = match f.kind {
            Kind::Mk => (Ret::Ptr, vec![("n", Ty::Int)]),
            Kind::Rel => (Ret::Void, vec![("p", Ty::Ptr)]),
            Kind::NodeNew => (Ret::Node, vec![("n", Ty::Int)]),
            Kind::NodeFree => (Ret::Void, vec![("nd", Ty::Node)]),
            Kind::Rec => (Ret::Int, vec![("depth", Ty::Int), ("p", Ty::Ptr)]),
            Kind::Work => (Ret::Int, vec![("x", Ty::Int), ("a", Ty::Ints), ("out", Ty::Out)]),
        };
        let big = f.kind == Kind::Work || f.kind == Kind::Rec;
        let budget = if big { self.rng.range(4, 30) } else { self.rng.range(0, 5) };
        let mut b = Body {
            ret,
            cleanup: big || self.rng.chance(30),
            scopes: vec![params.iter().map(|(n, t)| (n.to_string(), *t)).collect()],
            loops: 0,
            switches: 0,
            budget,
            depth: 1,
            max_depth: if self.rng.chance(10) { 12 } else { 5 },
            names: 0,
            alloc_tab,
            free_tab,
            work_tab,
        };
        writeln!(self.out, "{} {{", prototype(f)).unwrap();
        // Locals every body has: the pointers `goto cleanup` frees, a counter, an array.
        self.out.push_str(
            "  int s = 0;\n  char *p0 = NULL;\n  char *p1 = NULL;\n  struct node *n0 = NULL;\n  char *arr0[4] = {0};\n",
        );
        b.declare("s", Ty::Int);
        b.declare("p0", Ty::Ptr);
        b.declare("p1", Ty::Ptr);
        b.declare("n0", Ty::Node);
        b.declare("arr0", Ty::Arr);
        b.scopes.push(Vec::new());
        // The prologue of each kind: what makes it the wrapper it is named for.
        match f.kind {
            Kind::Mk => {
                let e = self.alloc(&mut b, "n + 1");
                writeln!(self.out, "  p0 = {e};\n  if (!p0) return NULL;").unwrap();
            }
            Kind::NodeNew => {
                self.out
                    .push_str("  n0 = calloc(1, sizeof *n0);\n  if (!n0) return NULL;\n  n0->name = strdup(str);\n");
                if self.rng.chance(50) {
                    self.out.push_str("  if (!n0->name) {\n    free(n0);\n    return NULL;\n  }\n");
                }
                self.out.push_str("  n0->data = malloc(sizeof(int) * (n + 1));\n  n0->len = n;\n");
            }
            Kind::Rec => {
                self.out.push_str("  if (depth <= 0) {\n    free(p);\n    return 0;\n  }\n");
            }
            _ => {}
        }
        self.block(&mut b, 1);
        // The epilogue: the cleanup label, then what the kind returns.
        if b.cleanup {
            self.out.push_str("cleanup:\n");
            for p in ["p0", "p1"] {
                if self.rng.chance(70) {
                    writeln!(self.out, "  free({p});").unwrap();
                }
            }
            if self.rng.chance(40) {
                self.out.push_str("  for (int k = 0; k < 4; k++)\n    free(arr0[k]);\n");
            }
        }
        match f.kind {
            Kind::Mk => self.out.push_str("  return p0;\n"),
            Kind::Rel => self.out.push_str("  if (p)\n    free(p);\n  (void)s;\n"),
            Kind::NodeNew => self.out.push_str("  return n0;\n"),
            Kind::NodeFree => {
                if self.rng.chance(50) {
                    self.out.push_str(
                        "  while (nd) {\n    struct node *next = nd->next;\n    free(nd->name);\n    free(nd->data);\n    for (int k = 0; k < 4; k++)\n      free(nd->items[k]);\n    free(nd);\n    nd = next;\n  }\n",
                    );
                } else {
                    writeln!(
                        self.out,
                        "  if (!nd)\n    return;\n  {}(nd->next);\n  if (nd->release)\n    nd->release(nd->name);\n  else\n    free(nd->name);\n  free(nd->data);\n  free(nd);",
                        f.name
                    )
                    .unwrap();
                }
            }
            Kind::Rec => {
                writeln!(self.out, "  return s + {}(depth - 1, p);", f.name).unwrap();
            }
            Kind::Work => self.out.push_str("  return s;\n"),
        }
        self.out.push_str("}\n\n");
    }

    fn pad(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }

    /// Statements until the budget is spent (or a few, in a nested block).
    fn block(&mut self, b: &mut Body, level: usize) {
        let n = if level == 1 { b.budget } else { self.rng.range(1, 3).min(b.budget.max(1)) };
        // A nested block after the budget is spent still gets a statement, most of the time.
        if level > 1 && b.budget == 0 && self.rng.chance(70) {
            self.simple(b, level);
            return;
        }
        for _ in 0..n {
            if b.budget == 0 && level > 1 {
                break;
            }
            b.budget = b.budget.saturating_sub(1);
            self.stmt(b, level);
        }
    }

    /// A nested block `{ … }` with a scope of its own (the caller writes the opening text).
    fn nested(&mut self, b: &mut Body, level: usize) {
        b.scopes.push(Vec::new());
        b.depth += 1;
        self.block(b, level + 1);
        if self.rng.chance(25) {
            self.simple(b, level + 1);
        }
        b.depth -= 1;
        b.scopes.pop();
        self.pad(level);
        self.out.push('}');
    }

    fn int(&mut self, b: &Body) -> String {
        let ints = b.vars(Ty::Int);
        let arrs = b.vars(Ty::Ints);
        match self.rng.below(6) {
            0 | 1 => self.rng.pick(&ints).clone(),
            2 => format!("{}", self.rng.range(0, 16)),
            3 if !arrs.is_empty() => format!("{}[{}]", self.rng.pick(&arrs), self.rng.below(8)),
            4 => "g_count".to_string(),
            _ => format!("({} % 7 + 1)", self.rng.pick(&ints)),
        }
    }

    fn ptr(&mut self, b: &Body) -> String {
        let ptrs = b.vars(Ty::Ptr);
        match self.rng.below(8) {
            0 => format!("{}[{}]", self.rng.pick(&b.vars(Ty::Arr)), self.rng.below(4)),
            1 => "g_str".to_string(),
            2 => format!("g_table[{}]", self.rng.below(8)),
            3 => format!("({n} ? {n}->name : NULL)", n = self.rng.pick(&b.vars(Ty::Node))),
            _ => self.rng.pick(&ptrs).clone(),
        }
    }

    fn cond(&mut self, b: &Body) -> String {
        match self.rng.below(9) {
            0 => format!("{} > {}", self.int(b), self.int(b)),
            1 => format!("{} == {}", self.int(b), self.rng.below(6)),
            2 => format!("!{}", self.rng.pick(&b.vars(Ty::Ptr))),
            3 => format!("{} != NULL", self.ptr(b)),
            4 => format!("{n} && {n}->len > {}", self.rng.below(5), n = self.rng.pick(&b.vars(Ty::Node))),
            5 => format!("({} & {})", self.int(b), 1 << self.rng.below(4)),
            6 => format!("{p} && {p}[0] == 'a'", p = self.rng.pick(&b.vars(Ty::Ptr))),
            7 => format!("{} || {} < 3", self.cond_leaf(b), self.int(b)),
            _ => format!("{} && {}", self.cond_leaf(b), self.cond_leaf(b)),
        }
    }

    fn cond_leaf(&mut self, b: &Body) -> String {
        match self.rng.below(3) {
            0 => format!("!{}", self.rng.pick(&b.vars(Ty::Ptr))),
            1 => format!("{} < {}", self.int(b), self.int(b)),
            _ => format!("{} != NULL", self.ptr(b)),
        }
    }

    /// An expression that allocates (or may: a wrapper, a table entry) a `char *` of `size`.
    fn alloc(&mut self, b: &mut Body, size: &str) -> String {
        let mks = self.names(Kind::Mk);
        loop {
            match self.rng.below(8) {
                0 | 1 => return format!("malloc({size})"),
                2 => return format!("calloc({size}, 1)"),
                3 => return format!("strdup(\"{}\")", ["a", "key", "value", "x=1"][self.rng.below(4)]),
                4 => return format!("realloc(NULL, {size})"),
                5 | 6 if !mks.is_empty() => return format!("{}({size})", self.rng.pick(&mks)),
                7 => {
                    if let Some((t, len)) = b.alloc_tab.clone() {
                        return format!("{t}[(unsigned)({}) % {len}u]({size})", self.int(b));
                    }
                }
                _ => {}
            }
        }
    }

    /// A statement that frees `p` (directly, through a wrapper, a table or a pointer).
    fn release(&mut self, b: &mut Body, p: &str) -> String {
        let rels = self.names(Kind::Rel);
        match self.rng.below(6) {
            0 if !rels.is_empty() => format!("{}({p});", self.rng.pick(&rels)),
            1 => {
                if let Some((t, len)) = b.free_tab.clone() {
                    format!("{t}[{}]({p});", self.rng.below(len))
                } else {
                    format!("free({p});")
                }
            }
            2 if !rels.is_empty() => {
                let f = b.fresh("ff");
                format!("{{\n free_fn {f} = {};\n {f}({p});\n }}", self.rng.pick(&rels))
            }
            _ => format!("free({p});"),
        }
    }

    fn ret(&mut self, b: &Body) -> String {
        match b.ret {
            Ret::Int => format!("return {};", self.int(b)),
            Ret::Ptr => format!("return {};", if self.rng.chance(50) { "NULL".to_string() } else { self.ptr(b) }),
            Ret::Node => "return NULL;".to_string(),
            Ret::Void => "return;".to_string(),
        }
    }

    /// A statement without nested blocks.
    fn simple(&mut self, b: &mut Body, level: usize) {
        let p = self.rng.pick(&b.vars(Ty::Ptr)).clone();
        let arr = self.rng.pick(&b.vars(Ty::Arr)).clone();
        let node = self.rng.pick(&b.vars(Ty::Node)).clone();
        let k = self.rng.below(4);
        let text = match self.rng.below(25) {
            0..=3 => {
                let size = self.int(b);
                let e = self.alloc(b, &size);
                format!("{p} = {e};")
            }
            4 if b.cleanup => format!("if (!{p})\n goto cleanup;"),
            4 | 5 => format!("if ({p} == NULL)\n {}", self.ret(b)),
            6 | 7 => self.release(b, &p),
            8 => format!("free({p});\n{p} = NULL;"),
            9 => {
                let t = b.fresh("t");
                let fail = if b.cleanup { "goto cleanup;".to_string() } else { self.ret(b) };
                format!("{{\n char *{t} = realloc({p}, {});\n if (!{t})\n {fail}\n {p} = {t};\n }}", self.int(b))
            }
            10 => format!("{p} = realloc({p}, {});", self.int(b)),
            11 => match self.rng.below(5) {
                0 => format!("{arr}[{k}] = {p};"),
                1 => format!("g_str = {p};"),
                2 => format!("g_table[{}] = {p};", self.rng.below(8)),
                3 => format!("if ({node})\n {node}->items[{k}] = {p};"),
                _ => format!("if ({node})\n {node}->name = {p};"),
            },
            12 => {
                let outs = b.vars(Ty::Out);
                if outs.is_empty() {
                    format!("{p} = {arr}[{k}];\n{arr}[{k}] = NULL;")
                } else {
                    format!("if ({o})\n *{o} = {p};", o = self.rng.pick(&outs))
                }
            }
            13 => {
                let news = self.names(Kind::NodeNew);
                if news.is_empty() {
                    format!("{node} = g_list;")
                } else {
                    let s = if self.rng.chance(50) { "\"n\"".to_string() } else { p.clone() };
                    format!("{node} = {}({s}, {});", self.rng.pick(&news), self.int(b))
                }
            }
            14 => {
                let frees = self.names(Kind::NodeFree);
                if frees.is_empty() {
                    format!("g_list = {node};")
                } else {
                    format!("{}({node});\n{node} = NULL;", self.rng.pick(&frees))
                }
            }
            15 => match self.rng.below(3) {
                0 => format!("memset({p}, 0, 4);"),
                1 => format!("if ({p})\n {p}[0] = 'a';"),
                _ => format!("s += (int)strlen({p});"),
            },
            16 => {
                let works = self.names(Kind::Work);
                let ints = b.vars(Ty::Ints);
                let a = if ints.is_empty() { "NULL".to_string() } else { ints[0].clone() };
                if let (Some((t, len)), true) = (b.work_tab.clone(), self.rng.chance(40)) {
                    format!("s += {t}[{}]({}, {a}, &{p});", self.rng.below(len), self.int(b))
                } else if works.is_empty() {
                    format!("s += {};", self.int(b))
                } else if self.rng.chance(30) {
                    let w = b.fresh("wf");
                    format!(
                        "{{\n work_fn {w} = {};\n s += {w}({}, {a}, &{p});\n }}",
                        self.rng.pick(&works),
                        self.int(b)
                    )
                } else {
                    format!("s += {}({}, {a}, &{p});", self.rng.pick(&works), self.int(b))
                }
            }
            17 => {
                let recs = self.names(Kind::Rec);
                if recs.is_empty() {
                    format!("s -= {};", self.int(b))
                } else {
                    format!("s += {}({} - 1, {p});", self.rng.pick(&recs), self.int(b))
                }
            }
            18 => {
                let rels = self.names(Kind::Rel);
                if rels.is_empty() {
                    format!("g_list = {node};")
                } else {
                    format!(
                        "if ({node}) {{\n {node}->release = {};\n {node}->release({node}->name);\n }}",
                        self.rng.pick(&rels)
                    )
                }
            }
            19 => {
                let q = b.fresh("q");
                let size = self.int(b);
                let e = self.alloc(b, &size);
                b.declare(&q, Ty::Ptr);
                format!("char *{q} = {e};")
            }
            20 => {
                let ints = b.vars(Ty::Int);
                format!("{} = {} * 3 + 1;", self.rng.pick(&ints), self.int(b))
            }
            21 if b.loops > 0 || b.switches > 0 => {
                if b.loops > 0 && self.rng.chance(30) {
                    "continue;".to_string()
                } else {
                    "break;".to_string()
                }
            }
            22 => self.ret(b),
            23 => {
                // A local function pointer chosen at run time.
                let mks = self.names(Kind::Mk);
                let f = b.fresh("af");
                let (g, h) = (self.rng.pick(&mks).clone(), self.rng.pick(&mks).clone());
                let c = self.cond_leaf(b);
                let size = self.int(b);
                format!("{{\n alloc_fn {f} = ({c}) ? {g} : {h};\n {p} = {f}({size});\n}}")
            }
            _ => format!("g_count += {};", self.int(b)),
        };
        self.emit(&text, level);
    }

    /// Writes `text`, whose lines carry one leading space per level deeper than `level`.
    fn emit(&mut self, text: &str, level: usize) {
        for line in text.lines() {
            let extra = line.len() - line.trim_start().len();
            self.pad(level + extra);
            self.out.push_str(line.trim_start());
            self.out.push('\n');
        }
    }

    fn stmt(&mut self, b: &mut Body, level: usize) {
        if b.depth >= b.max_depth || self.rng.chance(45) {
            self.simple(b, level);
            return;
        }
        match self.rng.below(11) {
            0 | 1 => {
                let c = self.cond(b);
                self.pad(level);
                writeln!(self.out, "if ({c}) {{").unwrap();
                self.nested(b, level);
                if self.rng.chance(40) {
                    self.out.push_str(" else {\n");
                    self.nested(b, level);
                }
                self.out.push('\n');
            }
            2 => {
                let n = if self.rng.chance(4) { self.rng.range(30, 300) } else { self.rng.range(2, 6) };
                self.chain(b, level, n);
            }
            3 | 4 => {
                let i = b.fresh("i");
                let bound = self.int(b);
                self.pad(level);
                writeln!(self.out, "for (int {i} = 0; {i} < {bound}; {i}++) {{").unwrap();
                b.loops += 1;
                b.scopes.push(vec![(i, Ty::Int)]);
                self.nested(b, level);
                b.scopes.pop();
                b.loops -= 1;
                self.out.push('\n');
            }
            5 => {
                let c = self.cond(b);
                self.pad(level);
                writeln!(self.out, "while ({c}) {{").unwrap();
                b.loops += 1;
                self.nested(b, level);
                b.loops -= 1;
                self.out.push('\n');
            }
            6 => {
                self.pad(level);
                self.out.push_str("do {\n");
                b.loops += 1;
                self.nested(b, level);
                b.loops -= 1;
                let c = self.cond(b);
                writeln!(self.out, " while ({c});").unwrap();
            }
            7 => {
                let e = self.int(b);
                let cases = self.rng.range(1, 5);
                self.pad(level);
                writeln!(self.out, "switch ({e}) {{").unwrap();
                b.switches += 1;
                for c in 0..cases {
                    self.pad(level);
                    writeln!(self.out, "case {c}: {{").unwrap();
                    self.nested(b, level);
                    // Fall through now and then.
                    if self.rng.chance(70) {
                        self.out.push('\n');
                        self.pad(level + 1);
                        self.out.push_str("break;\n");
                    } else {
                        self.out.push('\n');
                    }
                }
                if self.rng.chance(60) {
                    self.pad(level);
                    self.out.push_str("default: {\n");
                    self.nested(b, level);
                    self.out.push('\n');
                }
                b.switches -= 1;
                self.pad(level);
                self.out.push_str("}\n");
            }
            8 => {
                // A block with its own allocation, freed (or not) before it ends.
                let q = b.fresh("q");
                let size = self.int(b);
                let e = self.alloc(b, &size);
                self.pad(level);
                self.out.push_str("{\n");
                self.pad(level + 1);
                writeln!(self.out, "char *{q} = {e};").unwrap();
                b.scopes.push(vec![(q.clone(), Ty::Ptr)]);
                b.depth += 1;
                self.block(b, level + 1);
                if self.rng.chance(60) {
                    let r = self.release(b, &q);
                    self.emit(&r, level + 1);
                }
                b.depth -= 1;
                b.scopes.pop();
                self.pad(level);
                self.out.push_str("}\n");
            }
            9 if self.rng.chance(25) => self.deep(b, level),
            _ => {
                // A loop over the array of pointers.
                let arr = self.rng.pick(&b.vars(Ty::Arr)).clone();
                let i = b.fresh("i");
                self.pad(level);
                if self.rng.chance(50) {
                    writeln!(self.out, "for (int {i} = 0; {i} < 4; {i}++) {{ free({arr}[{i}]); {arr}[{i}] = NULL; }}")
                        .unwrap();
                } else {
                    let size = self.int(b);
                    let e = self.alloc(b, &size);
                    writeln!(self.out, "for (int {i} = 0; {i} < 4; {i}++) {{ if (!{arr}[{i}]) {arr}[{i}] = {e}; }}")
                        .unwrap();
                }
            }
        }
    }

    /// `if (x == 0) … else if (x == 1) … else …` with `n` branches of one statement each.
    fn chain(&mut self, b: &mut Body, level: usize, n: usize) {
        let e = self.int(b);
        let p = self.rng.pick(&b.vars(Ty::Ptr)).clone();
        self.pad(level);
        for i in 0..n {
            if i > 0 {
                self.out.push_str(" else ");
            }
            writeln!(self.out, "if ({e} == {i}) {{").unwrap();
            let s = match self.rng.below(5) {
                0 => self.release(b, &p),
                1 => format!("{p} = malloc({i} + 1);"),
                2 => self.ret(b),
                3 => format!("s += {i};"),
                _ => format!("g_count = {i};"),
            };
            self.emit(&s, level + 1);
            self.pad(level);
            self.out.push('}');
        }
        if self.rng.chance(50) {
            self.out.push_str(" else {\n");
            let r = self.release(b, &p);
            self.emit(&r, level + 1);
            self.pad(level);
            self.out.push('}');
        }
        self.out.push('\n');
    }

    /// Blocks nested 10 to 40 deep, `if`s and loops mixed, a statement at each level.
    fn deep(&mut self, b: &mut Body, level: usize) {
        let n = self.rng.range(10, 40);
        let mut closers = Vec::new();
        for d in 0..n {
            let c = self.cond(b);
            self.pad(level + d);
            if self.rng.chance(70) {
                writeln!(self.out, "if ({c}) {{").unwrap();
                closers.push(false);
            } else {
                writeln!(self.out, "while ({c}) {{").unwrap();
                b.loops += 1;
                closers.push(true);
            }
            b.scopes.push(Vec::new());
            self.simple(b, level + d + 1);
        }
        for (d, was_loop) in closers.into_iter().enumerate().rev() {
            b.scopes.pop();
            if was_loop {
                b.loops -= 1;
            }
            self.pad(level + d);
            self.out.push_str("}\n");
        }
    }
}
