//! Front-end tests: golden IR dumps of `tests/lowering/*.c` and `*.cpp`, plus targeted checks of the
//! contract the analysis relies on (single `Call` for `p = malloc(n)`, NULL-test normalisation,
//! merging across TUs, robustness against broken input).
//!
//! Re-record the golden files with `UPDATE_EXPECT=1 cargo test golden_lowering`. (The runner is a
//! unit test rather than `tests/lowering.rs` because drip is a binary crate: integration tests
//! cannot reach `frontend`.)

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::compdb::{self, CompileCommand};
use crate::ir::*;
use crate::irdump;

/// A scratch directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "drip-frontend-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create dir");
        }
        std::fs::write(&p, text).expect("write file");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn opts(jobs: usize) -> FrontendOptions {
    FrontendOptions { progress: None, jobs, verbose: false, links: None, isolation: None, run_deadline: None }
}

fn lower_src(src: &str) -> (Program, FrontendReport) {
    let dir = TempDir::new();
    let file = dir.write("t.c", src);
    let db = compdb::from_files(&[file], &[]);
    build_program(&db.commands, &opts(1))
}

fn func<'p>(prog: &'p Program, name: &str) -> &'p Function {
    prog.functions.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function {name}"))
}

fn local_named(f: &Function, name: &str) -> LocalId {
    let i = f.locals.iter().position(|l| l.name == name).unwrap_or_else(|| panic!("no local {name}"));
    LocalId::from_usize(i)
}

fn calls_to<'f>(f: &'f Function, callee: &str) -> Vec<&'f Stmt> {
    f.stmts
        .iter()
        .filter(|s| matches!(s, Stmt::Call { callee: Callee::Direct { name, .. }, .. } if name == callee))
        .collect()
}

fn branches(f: &Function) -> Vec<(&Cond, BlockId, BlockId)> {
    f.blocks
        .iter()
        .filter_map(|b| match &b.term {
            Terminator::Branch { cond, then_, else_ } => Some((cond, *then_, *else_)),
            _ => None,
        })
        .collect()
}

// ---- golden dumps ----

#[test]
fn golden_lowering() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lowering");
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/lowering exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "cpp"))
        .collect();
    sources.sort();
    assert!(!sources.is_empty(), "no golden sources in {}", dir.display());
    let mut failures = Vec::new();
    for src in &sources {
        let db = compdb::from_files(std::slice::from_ref(src), &[]);
        let (prog, rep) = build_program(&db.commands, &opts(1));
        assert_eq!(rep.parse_errors, 0, "{}: {:?}", src.display(), rep.messages);
        let text = irdump::dump_program(&prog);
        let golden = src.with_extension("ir");
        if update {
            std::fs::write(&golden, &text).expect("write golden file");
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(expected) if expected == text => {}
            Ok(expected) => {
                let (n, (e, a)) = expected
                    .lines()
                    .chain(std::iter::repeat(""))
                    .zip(text.lines().chain(std::iter::repeat("")))
                    .enumerate()
                    .find(|(_, (e, a))| e != a)
                    .unwrap_or((0, ("", "")));
                failures.push(format!("{}: line {}:\n  expected: {e}\n  actual:   {a}", golden.display(), n + 1));
            }
            Err(_) => failures.push(format!("{}: missing (run with UPDATE_EXPECT=1)", golden.display())),
        }
    }
    assert!(failures.is_empty(), "golden IR mismatches (UPDATE_EXPECT=1 re-records):\n{}", failures.join("\n"));
}

// ---- the analysis contract ----

#[test]
fn allocation_into_a_variable_is_one_call() {
    let (prog, _) = lower_src(
        "#include <stdlib.h>\n\
         void f(int n) {\n\
           char *p;\n\
           p = malloc(n);\n\
           char *q = malloc(n);\n\
           char *a, *b;\n\
           a = b = malloc(n);\n\
           struct s { char *f; } *s = malloc(sizeof *s);\n\
           s->f = malloc(n);\n\
         }\n",
    );
    let f = func(&prog, "f");
    let dsts: Vec<String> = calls_to(f, "malloc")
        .iter()
        .map(|s| match s {
            Stmt::Call { dst: Some(d), .. } => irdump_place(f, d),
            other => panic!("call without destination: {other:?}"),
        })
        .collect();
    assert_eq!(dsts, ["p", "q", "b", "s", "s->f"]);
    // No temporaries were needed for any of them.
    assert!(f.locals.iter().all(|l| l.kind != LocalKind::Temp), "{:?}", f.locals);
}

fn irdump_place(f: &Function, p: &Place) -> String {
    PlaceDisplay(f, p).to_string()
}

#[test]
fn null_tests_become_truthy_with_the_right_polarity() {
    // Each `if` calls `yes()` when the source condition holds. After normalisation the branch
    // must be `Truthy(p)`, and `yes()` must be on the edge the source text holds on.
    let cases = ["p", "!p", "p == NULL", "NULL == p", "p != 0", "0 != p", "p == 0", "!!p", "!(p != NULL)"];
    let mut src = String::from("#include <stddef.h>\nvoid yes(void);\nvoid f(char *p) {\n");
    for c in cases {
        src.push_str(&format!("  if ({c}) yes();\n"));
    }
    src.push_str("}\n");
    let (prog, _) = lower_src(&src);
    let f = func(&prog, "f");
    let p = local_named(f, "p");
    let br = branches(f);
    assert_eq!(br.len(), cases.len());
    for ((cond, then_, else_), c) in br.into_iter().zip(cases) {
        assert_eq!(cond.kind, CondKind::Truthy(Operand::Place(Place::Local(p))), "{c}");
        assert_eq!(cond.text, c);
        let holds = if cond.text_on_else { else_ } else { then_ };
        let yes_block = f.block(holds);
        assert!(
            yes_block
                .stmts
                .iter()
                .any(|s| matches!(f.stmt(*s), Stmt::Call { callee: Callee::Direct { name, .. }, .. } if name == "yes")),
            "`{c}`: the text's edge does not lead to yes()"
        );
        // `p` is non-NULL on then_: for `!p`-like spellings, yes() must be on else_.
        let negative = matches!(c, "!p" | "p == NULL" | "NULL == p" | "p == 0" | "!(p != NULL)");
        assert_eq!(cond.text_on_else, negative, "{c}");
    }
}

#[test]
fn assignment_inside_condition() {
    let (prog, _) = lower_src(
        "#include <stdlib.h>\nint f(int n) { char *q; if ((q = malloc(n)) == NULL) return 1; free(q); return 0; }\n",
    );
    let f = func(&prog, "f");
    let q = local_named(f, "q");
    let entry = f.block(f.entry);
    assert_eq!(entry.stmts.len(), 1);
    assert!(matches!(f.stmt(entry.stmts[0]), Stmt::Call { dst: Some(Place::Local(l)), .. } if *l == q));
    match &entry.term {
        Terminator::Branch { cond, .. } => {
            assert_eq!(cond.kind, CondKind::Truthy(Operand::Place(Place::Local(q))));
            assert!(cond.text_on_else);
            assert_eq!(cond.text, "(q = malloc(n)) == NULL");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_block_is_terminated_and_ids_are_in_range() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lowering");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/lowering exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "cpp"))
        .collect();
    let db = compdb::from_files(&files, &[]);
    let (prog, _) = build_program(&db.commands, &opts(2));
    for f in &prog.functions {
        assert_eq!(f.entry, BlockId(0));
        assert_eq!(f.stmts.len(), f.stmt_locs.len());
        assert!(f.n_params as usize <= f.locals.len());
        for b in &f.blocks {
            for s in &b.stmts {
                assert!(s.index() < f.stmts.len());
            }
            for succ in b.term.successors() {
                assert!(succ.index() < f.blocks.len(), "{}: bad successor", f.name);
            }
        }
        for l in f.stmt_locs.iter().chain(f.blocks.iter().map(|b| &b.term_loc)) {
            assert!(*l == Loc::NONE || prog.file(l.file).is_some(), "{}: bad file id", f.name);
        }
    }
}

// ---- merging translation units ----

#[test]
fn header_functions_are_kept_once_and_statics_stay_apart() {
    let dir = TempDir::new();
    dir.write(
        "inc/common.h",
        "static inline int twice(int x) { return 2 * x; }\n\
         int shared(int x);\n",
    );
    let a = dir.write(
        "a/util.c",
        "#include \"common.h\"\nstatic int helper(void) { return twice(1); }\nint shared(int x) { return helper() + x; }\n",
    );
    let b = dir.write(
        "b/util.c",
        "#include \"common.h\"\nstatic int helper(void) { return twice(2); }\nint main(void) { return helper() + shared(1); }\n",
    );
    let db = compdb::from_files(&[a, b], &[format!("-I{}", dir.0.join("inc").display())]);
    let (prog, rep) = build_program(&db.commands, &opts(2));
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    let names: Vec<&str> = prog.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["twice", "helper", "shared", "helper", "main"]);
    let helpers: Vec<&Function> = prog.functions.iter().filter(|f| f.name == "helper").collect();
    assert_ne!(helpers[0].usr, helpers[1].usr, "static functions of different files must not share a USR");
    assert!(helpers.iter().all(|h| h.is_static));
    // Calls to the static helper use the same USR as its definition.
    let main = func(&prog, "main");
    let called: Vec<&str> = main
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Call { callee: Callee::Direct { name, usr, .. }, .. } if name == "helper" => Some(usr.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(called, [helpers[1].usr.as_str()]);
    // The header appears once in the file table.
    let headers = prog.files.iter().filter(|p| p.ends_with("inc/common.h")).count();
    assert_eq!(headers, 1, "{:?}", prog.files);
}

#[test]
fn conflicting_definitions_are_all_kept_and_calls_go_to_the_nearest() {
    let dir = TempDir::new();
    let a = dir.write("a.c", "int main(void) { return 0; }\n");
    let b = dir.write("b.c", "int main(void) { return 1; }\n");
    // Without link information a caller gets the definition in its own directory tree, whatever
    // the order of the database.
    let top = dir.write("pick.c", "int pick(void) { return 2; }\n");
    let lib = dir.write("lib/pick.c", "int pick(void) { return 1; }\n");
    let user = dir.write("lib/use.c", "int pick(void);\nint use(void) { return pick(); }\n");
    let db = compdb::from_files(&[a, b, top, lib, user], &[]);
    let (prog, rep) = build_program(&db.commands, &opts(1));
    let mains: Vec<&str> = prog.functions.iter().filter(|f| f.name == "main").map(|f| f.usr.as_str()).collect();
    assert_eq!(mains.len(), 2, "every main is analysed");
    assert_ne!(mains[0], mains[1]);
    let called: Vec<&str> = prog
        .functions
        .iter()
        .filter(|f| f.name == "use")
        .flat_map(|f| f.stmts.iter())
        .filter_map(|s| match s {
            Stmt::Call { callee: Callee::Direct { usr, .. }, .. } => Some(usr.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(called.len(), 1);
    assert!(called[0].ends_with("lib/pick.c"), "{called:?}");
    let warned: Vec<&String> = rep.messages.iter().filter(|m| m.contains(crate::link::DUPLICATE)).collect();
    assert_eq!(warned.len(), 2, "{:?}", rep.messages);
    assert!(
        warned.iter().any(|m| m.contains("`pick`") && m.contains("0 to ") && m.contains("lib/pick.c)")),
        "{warned:?}"
    );
}

#[test]
fn result_does_not_depend_on_thread_count() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lowering");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/lowering exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "cpp"))
        .collect();
    files.sort();
    let db = compdb::from_files(&files, &[]);
    let (p1, r1) = build_program(&db.commands, &opts(1));
    let (p4, r4) = build_program(&db.commands, &opts(4));
    assert_eq!(irdump::dump_program(&p1), irdump::dump_program(&p4));
    assert_eq!(p1.files, p4.files);
    assert_eq!(r1.messages, r4.messages);
}

// ---- robustness ----

#[test]
fn failures_and_errors_are_reported_not_fatal() {
    let dir = TempDir::new();
    let good = dir.write("good.c", "int ok(void) { return 1; }\n");
    let broken = dir.write("broken.c", "int half(int x) { return x +; }\nint fine(void) { return 2; }\n");
    let missing = dir.0.join("missing.c");
    let db = compdb::from_files(&[good, broken, missing], &[]);
    let (prog, rep) = build_program(&db.commands, &opts(2));
    assert_eq!(rep.tus_total, 3);
    assert_eq!(rep.tus_failed, 1, "{:?}", rep.messages);
    assert_eq!(rep.tus_parsed, 2);
    assert_eq!(rep.tus_with_errors, 1);
    assert_eq!(rep.parse_errors, 1);
    // Both functions of the broken file are still lowered.
    let names: Vec<&str> = prog.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["ok", "half", "fine"]);
    assert!(rep.messages.iter().any(|m| m.contains("broken.c:1:") && m.contains(": error: ")), "{:?}", rep.messages);
    assert!(rep.messages.iter().any(|m| m.ends_with("missing.c: error: no such file")), "{:?}", rep.messages);
    let mut sorted = rep.messages.clone();
    sorted.sort();
    assert_eq!(sorted, rep.messages);
    assert_eq!(rep.functions, prog.functions.len());
}

#[test]
fn warnings_are_not_errors_but_clangs_default_errors_are() {
    // A warning the source itself turns into an error is still a warning to drip (it parses
    // with `-w`); a diagnostic clang makes an error by default stays one.
    let dir = TempDir::new();
    let promoted = dir.write(
        "promoted.c",
        "#pragma clang diagnostic error \"-Wunused-variable\"\nint f(void) { int unused; return 0; }\n",
    );
    let undeclared = dir.write("undeclared.c", "int g(void) { return h(); }\n");
    let db = compdb::from_files(&[promoted, undeclared], &["-std=c11".to_string()]);
    let (prog, rep) = build_program(&db.commands, &opts(1));
    assert_eq!(rep.tus_with_errors, 1, "{:?}", rep.messages);
    assert_eq!(rep.parse_errors, 1, "{:?}", rep.messages);
    assert!(
        rep.messages.iter().any(|m| m.contains("undeclared.c:1:") && m.contains("undeclared function")),
        "{:?}",
        rep.messages
    );
    assert!(!rep.messages.iter().any(|m| m.contains("promoted.c")), "{:?}", rep.messages);
    assert_eq!(prog.functions.len(), 2);
}

#[test]
fn unusable_command_line_fails_one_tu_only() {
    let dir = TempDir::new();
    let good = dir.write("good.c", "int ok(void) { return 1; }\n");
    let cmds = vec![
        CompileCommand {
            directory: dir.0.clone(),
            file: dir.0.join("x.c"),
            // Two inputs: the driver cannot make a single compile job of it.
            arguments: vec!["cc".into(), "-c".into(), "x.c".into(), "y.c".into()],
        },
        CompileCommand {
            directory: dir.0.clone(),
            file: good.clone(),
            arguments: vec!["cc".into(), "-c".into(), "good.c".into()],
        },
    ];
    let (prog, rep) = build_program(&cmds, &opts(1));
    assert_eq!(rep.tus_failed, 1, "{:?}", rep.messages);
    assert_eq!(rep.tus_parsed, 1);
    assert_eq!(prog.functions.len(), 1);
}

#[test]
fn relative_paths_and_gcc_only_flags() {
    let dir = TempDir::new();
    dir.write("include/h.h", "#define VALUE 3\n");
    dir.write("src/x.c", "#include \"h.h\"\nint v(void) { return VALUE; }\n");
    let cmd = CompileCommand {
        directory: dir.0.clone(),
        file: dir.0.join("src/x.c"),
        arguments: [
            "gcc",
            "-Iinclude",
            "-fconserve-stack",
            "-mindirect-branch=thunk-extern",
            "-fno-allow-store-data-races",
            "-Werror",
            "-Wall",
            "-MD",
            "-MF",
            "x.d",
            "-c",
            "src/x.c",
            "-o",
            "x.o",
        ]
        .map(String::from)
        .to_vec(),
    };
    let (argv, dropped) = compile_argv(&cmd);
    // The compiler's file name only (a directory would be searched for a `.cfg`), no
    // configuration file, the entry's directory, no warnings.
    assert_eq!(argv[..2], ["gcc", "--no-default-config"]);
    assert!(argv.get(2).is_some_and(|a| a.starts_with("-working-directory=")));
    assert_eq!(argv.get(3).map(String::as_str), Some("-w"));
    assert_eq!(argv[4..], ["-Iinclude", "-c", "src/x.c"], "{argv:?}");
    assert_eq!(
        dropped,
        [
            "-fconserve-stack",
            "-mindirect-branch=thunk-extern",
            "-fno-allow-store-data-races",
            "-Werror",
            "-Wall",
            "-MD",
            "-MF",
            "x.d"
        ]
    );
    let (prog, rep) = build_program(&[cmd], &opts(1));
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    let f = func(&prog, "v");
    assert!(matches!(f.blocks[0].term, Terminator::Return(Some(Operand::Const(3)))));
    assert!(!dir.0.join("x.d").exists(), "libclang must not write dependency files");
}

#[test]
fn system_header_functions_are_not_lowered() {
    let (prog, _) = lower_src("#include <stdio.h>\n#include <stdlib.h>\nint main(void) { return 0; }\n");
    let names: Vec<&str> = prog.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["main"]);
}

#[test]
fn locations_use_the_expansion_point() {
    let dir = TempDir::new();
    dir.write("m.h", "#include <stdlib.h>\n#define ALLOC(n) malloc(n)\n");
    let c = dir.write("t.c", "#include \"m.h\"\nvoid f(void) {\n  char *p = ALLOC(4);\n  free(p);\n}\n");
    let db = compdb::from_files(&[c], &[]);
    let (prog, _) = build_program(&db.commands, &opts(1));
    let f = func(&prog, "f");
    let locs: Vec<(String, u32)> = f
        .stmt_locs
        .iter()
        .map(|l| (prog.file(l.file).map(|p| p.display().to_string()).unwrap_or_default(), l.line))
        .collect();
    assert!(locs.iter().all(|(file, _)| file.ends_with("t.c")), "{locs:?}");
    assert_eq!(locs.iter().map(|l| l.1).collect::<Vec<_>>(), [3, 4]);
}

#[test]
fn noreturn_from_macro_keyword_in_a_header() {
    let dir = TempDir::new();
    dir.write("d.h", "#define NORETURN _Noreturn\nNORETURN void die(void);\n");
    let c = dir.write("t.c", "#include \"d.h\"\nint f(int x) { if (x) die(); return x; }\n");
    let db = compdb::from_files(&[c], &[]);
    let (prog, _) = build_program(&db.commands, &opts(1));
    let f = func(&prog, "f");
    assert!(f.blocks.iter().any(|b| matches!(b.term, Terminator::NoReturn)), "{}", irdump::dump_function(&prog, f));
}

#[test]
fn unsupported_constructs_leave_notes() {
    let (prog, _) = lower_src(
        "#include <stdarg.h>\n\
         int f(int n, ...) { va_list ap; va_start(ap, n); int x = va_arg(ap, int); va_end(ap);\n\
           __asm__(\"nop\"); void *t = &&l; goto *t; l: return x; }\n",
    );
    let f = func(&prog, "f");
    let notes = f.lowering_notes.join("\n");
    assert!(notes.contains("va_arg"), "{notes}");
    assert!(notes.contains("inline assembly"), "{notes}");
    assert!(notes.contains("computed `goto"), "{notes}");
}

/// Render a place with local names, for messages.
struct PlaceDisplay<'a>(pub &'a Function, pub &'a Place);

impl std::fmt::Display for PlaceDisplay<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let func = self.0;
        match self.1 {
            Place::Local(l) => write!(f, "{}", func.local(*l).name),
            Place::Global(g) => write!(f, "{g}"),
            Place::Deref(p) => write!(f, "*{}", PlaceDisplay(func, p)),
            Place::Field(p, name) => match &**p {
                Place::Deref(inner) => write!(f, "{}->{name}", PlaceDisplay(func, inner)),
                other => write!(f, "{}.{name}", PlaceDisplay(func, other)),
            },
            Place::Index(p) => match &**p {
                Place::Deref(inner) => write!(f, "{}[]", PlaceDisplay(func, inner)),
                other => write!(f, "{}[]", PlaceDisplay(func, other)),
            },
        }
    }
}

// ---- stores into function-pointer fields ----

/// The field key of every indirect call in `f`, in statement order.
fn indirect_fields(f: &Function) -> Vec<Option<&str>> {
    f.stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Call { callee: Callee::Indirect { field, .. }, .. } => Some(field.as_deref()),
            _ => None,
        })
        .collect()
}

fn field_targets_of<'p>(prog: &'p Program, key: &str) -> Vec<&'p str> {
    prog.field_targets.iter().filter(|(k, _)| k == key).map(|(_, usr)| usr.trim_start_matches("c:@F@")).collect()
}

#[test]
fn calls_through_members_carry_the_field_key() {
    let (prog, rep) = lower_src(
        "struct mm { void *(*alloc)(unsigned long); void (*release)(void *); };\n\
         typedef struct mm mm_t;\n\
         typedef struct { void (*cb)(int); } tcb_t;\n\
         union u { void (*a)(void); void (*b)(void); };\n\
         struct arr { void (*fns[2])(void); void *raw; };\n\
         void use(mm_t *p, struct mm cfg, tcb_t t, union u un, struct arr *a, void (*fp)(void)) {\n\
           void *x = p->alloc(1);\n\
           (*cfg.release)(x);\n\
           ((void (*)(void *))p->release)(x);\n\
           t.cb(2);\n\
           un.a();\n\
           a->fns[0]();\n\
           ((void (*)(void))a->raw)();\n\
           fp();\n\
         }\n",
    );
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    assert_eq!(
        indirect_fields(func(&prog, "use")),
        [
            // Typedef names do not matter: the key names the struct that declares the field.
            Some("struct mm::alloc"),
            Some("struct mm::release"),
            Some("struct mm::release"),
            Some("tcb_t::cb"),
            // Union members, array elements, fields that are not function pointers, plain
            // pointers: no key.
            None,
            None,
            None,
            None,
        ]
    );
}

#[test]
fn stores_into_function_pointer_fields_are_recorded() {
    let (prog, rep) = lower_src(
        "#include <stddef.h>\n\
         struct mm { void *(*alloc)(size_t); void (*release)(void *); };\n\
         struct outer { int k; struct mm m; struct { void (*g)(void); int z; } anon; };\n\
         struct withanon { int n; union { int i; void (*h)(void); }; struct { int q; void (*w)(void); }; };\n\
         struct bits { int a : 3; int : 5; void (*after)(void); };\n\
         struct arr { char name[8]; void (*fn)(void); };\n\
         void *a1(size_t n);\n\
         void r1(void *p);\n\
         void g1(void); void g2(void); void g3(void); void g4(void); void g5(void); void g6(void);\n\
         void (*pick(int k))(void);\n\
         struct mm m1 = { a1, r1 };\n\
         struct mm m2 = { .release = &r1, .alloc = (void *(*)(size_t))a1 };\n\
         struct outer o1[] = { 1, a1, 0, g1, 3, { 2, { a1, 0 }, { .g = g2 } } };\n\
         struct withanon wa = { .h = g4, .w = g5 };\n\
         struct bits bb = { 1, g1 };\n\
         struct arr ar[] = { { \"abc\", g2 }, \"def\", g3, [5] = { \"x\", g4 }, [6 ... 7] = { \"y\", g5 } };\n\
         void setter(struct mm *p, void (*rel)(void *), struct outer *o, struct bits *b) {\n\
           p->release = rel;\n\
           o->anon.g = p ? g1 : g6;\n\
           b->after = 0;\n\
           static struct arr sa = { \"s\", g1 };\n\
           struct mm copy = *p;\n\
           *p = copy;\n\
           o->m = copy;\n\
           void (**pp)(void) = &((struct arr *)0)->fn;\n\
           (void)pp; (void)sa;\n\
           o[1].anon.g = pick(3);\n\
         }\n",
    );
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    assert_eq!(field_targets_of(&prog, "struct mm::alloc"), ["a1"]);
    assert_eq!(field_targets_of(&prog, "struct mm::release"), ["r1"]);
    // Brace elision, designators into nested and anonymous members, `?:`.
    let anon_g = "struct <anonymous at t.c:3:36>::g";
    assert_eq!(field_targets_of(&prog, anon_g), ["g1", "g2", "g6"]);
    assert_eq!(field_targets_of(&prog, "struct <anonymous at t.c:4:61>::w"), ["g5"]);
    // Unnamed bit-fields take no initializer; string literals fill whole arrays; ranges.
    assert_eq!(field_targets_of(&prog, "struct bits::after"), ["g1"]);
    assert_eq!(field_targets_of(&prog, "struct arr::fn"), ["g1", "g2", "g3", "g4", "g5"]);
    // Union members are never keys.
    assert!(prog.field_targets.iter().all(|(k, _)| !k.ends_with("::h")), "{:?}", prog.field_targets);
    // A call result and `&x.f` open the field; NULL and whole-struct copies do not, and a
    // parameter is recorded with its function: the field holds what the callers pass.
    assert_eq!(prog.open_fields, [anon_g, "struct arr::fn"]);
    assert_eq!(prog.param_stores, [("struct mm::release".to_string(), "c:@F@setter".to_string(), 1)]);
}

#[test]
fn stores_into_function_pointer_variables_are_recorded() {
    let (prog, rep) = lower_src(
        "typedef void (*rel_t)(void *);\n\
         void r1(void *p); void r2(void *p);\n\
         rel_t hook = r1;\n\
         static rel_t shook;\n\
         extern rel_t ext;\n\
         rel_t taken = (rel_t)r1;\n\
         rel_t *pt = &taken;\n\
         void set(int k, rel_t f) { hook = f; shook = k ? r2 : 0; ext = r2; f = r1; }\n\
         void use(void *p, rel_t cb) {\n\
           rel_t local = r2;\n\
           local(p); hook(p); (*shook)(p); ext(p); taken(p); cb(p);\n\
           rel_t other; other = cb; other(p);\n\
         }\n",
    );
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    let keys = indirect_fields(func(&prog, "use"));
    let var = |k: Option<&str>| k.and_then(|k| k.strip_prefix(crate::ir::VAR_KEY)).map(str::to_string);
    let names: Vec<Option<String>> = keys.iter().map(|k| var(*k)).collect();
    // Variables are named by their USR (a `static` one and locals with their file's base name);
    // a call through a parameter has no key.
    assert_eq!(names[1].as_deref(), Some("c:@hook"));
    assert_eq!(names[2].as_deref(), Some("c:t.c@shook"));
    assert_eq!(names[3].as_deref(), Some("c:@ext"));
    assert_eq!(names[4].as_deref(), Some("c:@taken"));
    assert_eq!(names[5], None);
    assert!(names[0].as_deref().is_some_and(|k| k.starts_with("c:t.c@") && k.ends_with("@F@use@local")), "{names:?}");
    assert!(names[6].as_deref().is_some_and(|k| k.contains("other")), "{names:?}");
    let key = |k: &Option<String>| format!("{}{}", crate::ir::VAR_KEY, k.as_deref().unwrap_or(""));
    // Initializers and assignments, casts and `?:` included; NULL stores nothing.
    assert_eq!(field_targets_of(&prog, &key(&names[1])), ["r1"]);
    assert_eq!(field_targets_of(&prog, &key(&names[2])), ["r2"]);
    assert_eq!(field_targets_of(&prog, &key(&names[0])), ["r2"]);
    // A parameter stored is recorded with its function, even one the function changes (`f = r1`:
    // `summary::param_stores` reads that in the function's IR).
    assert_eq!(
        prog.param_stores,
        [(key(&names[1]), "c:@F@set".to_string(), 1), (key(&names[6]), "c:@F@use".to_string(), 1),]
    );
    // Open: a variable no TU defines (`ext`), and one whose address is taken.
    assert_eq!(prog.open_fields, [key(&names[3]), key(&names[4])]);
}

#[test]
fn stores_made_together_form_groups() {
    let (prog, rep) = lower_src(
        "#include <stddef.h>\n\
         struct mm { void *(*alloc)(size_t); void (*release)(void *); };\n\
         struct hk { void (*cb)(void); };\n\
         void *a1(size_t n); void r1(void *p); void *a2(size_t n); void r2(void *p); void h1(void);\n\
         struct mm fail = { a1, r1 };\n\
         struct mm tabs[2] = { { a1, r1 }, { a2, r2 } };\n\
         void init(struct mm *m, struct hk *h) {\n\
           m->alloc = a2;\n\
           m->release = r2;\n\
           h->cb = h1;\n\
           struct mm local = { .release = r1 };\n\
           (void)local;\n\
         }\n",
    );
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    let groups: Vec<Vec<(&str, &str)>> = prog
        .field_groups
        .iter()
        .map(|g| g.iter().map(|(k, u)| (k.as_str(), u.trim_start_matches("c:@F@"))).collect())
        .collect();
    // One group per initializer list (each element of an array its own), and one per struct
    // whose fields a body assigns; equal groups are one.
    assert_eq!(
        groups,
        [
            vec![("struct hk::cb", "h1")],
            vec![("struct mm::alloc", "a1"), ("struct mm::release", "r1")],
            vec![("struct mm::alloc", "a2"), ("struct mm::release", "r2")],
            vec![("struct mm::release", "r1")],
        ]
    );
}

#[test]
fn field_stores_merge_across_translation_units() {
    let dir = TempDir::new();
    dir.write(
        "inc/mm.h",
        "struct mm { void *(*alloc)(unsigned long); void (*release)(void *); };\n\
         extern struct mm cfg;\n\
         typedef struct { void (*cb)(void); } hooks_t;\n\
         void *a1(unsigned long n); void r1(void *p); void h1(void);\n",
    );
    let a = dir.write("a.c", "#include \"mm.h\"\nstruct mm cfg = { a1, r1 };\nhooks_t hooks = { h1 };\n");
    let b = dir.write(
        "b.c",
        "#include \"mm.h\"\nvoid set_release(void (*f)(void *)) { cfg.release = f; }\n\
         void *get(unsigned long n) { return cfg.alloc(n); }\n",
    );
    let db = compdb::from_files(&[a, b], &[format!("-I{}", dir.0.join("inc").display())]);
    let (prog, rep) = build_program(&db.commands, &opts(2));
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    let keys: Vec<&str> = prog.field_targets.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["hooks_t::cb", "struct mm::alloc", "struct mm::release"]);
    assert!(prog.open_fields.is_empty(), "{:?}", prog.open_fields);
    assert_eq!(prog.param_stores, [("struct mm::release".to_string(), "c:@F@set_release".to_string(), 0)]);
    assert_eq!(indirect_fields(func(&prog, "get")), [Some("struct mm::alloc")]);
}

/// `TuCtx::loc` counts lines and columns itself (from file offsets); it must agree with
/// libclang's own answer for every cursor, with `\r\n`, lone `\r`, tabs and macros around.
#[test]
fn locations_agree_with_libclang_on_every_cursor() {
    let dir = TempDir::new();
    let src = "#include <stdlib.h>\r\n#define TAKE(x) \\\r\n  ((x) ? free(x) : (void)0)\r\n\
               struct s { char *buf; };\rvoid f(struct s *p) {\r\n\tchar *q = malloc(4);\r\n\
               \tif (!q) return;\n  TAKE(q); TAKE(p->buf);\r\n  p->buf = 0;\r\n}\r\n";
    let file = dir.write("crlf.c", src);
    let index = clang::Index::new().expect("libclang index");
    let argv = vec!["clang".to_string(), file.display().to_string()];
    let tu = clang::Tu::parse(&index, &argv, CXTranslationUnit_KeepGoing).expect("parse");
    let mut cx = lower::TuCtx::new(&tu, &dir.0);
    let mut seen = 0;
    for top in tu.cursor().children() {
        if top.is_in_system_header() {
            continue;
        }
        let mut all = vec![top];
        top.visit_descendants(&mut |c| all.push(c));
        for c in all {
            for l in [c.location(), c.extent_end()] {
                let ours = cx.loc(l);
                let theirs = clang::expansion(l).map(|(_, line, col)| (line, col));
                assert_eq!(Some((ours.line, ours.col)), theirs, "cursor {}", c.kind_name());
                seen += 1;
            }
        }
    }
    assert!(seen > 40, "only {seen} locations compared");
}

/// The tree answers `children` exactly as libclang does, for every cursor below every top-level
/// declaration of the lowering corpus, and from itself (not by falling back).
#[test]
fn tree_children_are_libclangs() {
    let same = |a: &[clang::Cursor], b: &[clang::Cursor]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| tree::same_cursor(*x, *y))
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files: Vec<PathBuf> = ["lowering", "fixtures"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).expect("tests dir"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let index = clang::Index::new().expect("libclang index");
    let mut checked = 0;
    // One tree for every root, as lowering uses it: nothing of one root may show in the next.
    let mut tree = tree::Tree::default();
    for file in files {
        let argv = vec!["clang".to_string(), file.display().to_string()];
        let tu = clang::Tu::parse(&index, &argv, CXTranslationUnit_KeepGoing).expect("parse");
        for top in tu.cursor().children() {
            if top.is_in_system_header() {
                continue;
            }
            tree.rebuild(top);
            assert!(tree.is_root(top));
            assert!(same(&tree.children(top), &top.children()));
            for &c in tree.descendants() {
                assert!(tree.has(c), "{} not indexed in {}", c.kind_name(), file.display());
                // The same cursor as libclang returns it elsewhere, without its slot: found by
                // the index, with the same children.
                let bare = clang::Cursor::new(c.0);
                assert!(tree.has(bare), "{} not indexed in {}", c.kind_name(), file.display());
                assert!(same(&tree.children(bare), &tree.children(c)));
                assert!(
                    same(&tree.children(c), &c.children()),
                    "{} in {} at {:?}: {:?} vs {:?}",
                    c.kind_name(),
                    file.display(),
                    clang::expansion(c.location()).map(|x| (x.1, x.2)),
                    tree.children(c).iter().map(|k| k.kind_name()).collect::<Vec<_>>(),
                    c.children().iter().map(|k| k.kind_name()).collect::<Vec<_>>()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "only {checked} cursors checked");
}

/// `TuCtx::offsets` places every location as libclang does (its shortcut for locations outside
/// macros included), in files entered once or more, in macros and their arguments, asked about
/// in the order of a walk that goes in and out of headers.
#[test]
fn file_loc_shortcut_is_libclangs() {
    let dir = TempDir::new();
    dir.write("twice.h", "int twice_a(int x) { return x + 1; }\n");
    let src = "#include <stdlib.h>\n#include \"twice.h\"\n#define TEST(c) ((c) ? 1 : 0)\n\
               #define NULLP ((void *)0)\nint g(char *p) {\n  if (TEST(p == NULLP)) return 1;\n\
               char *q = malloc(4);\n  if (!q) return 0;\n  free(q);\n  return 2;\n}\n\
               #undef twice_a\n#define twice_a twice_b\n#include \"twice.h\"\n";
    let file = dir.write("locs.c", src);
    let index = clang::Index::new().expect("libclang index");
    let argv = vec!["clang".to_string(), file.display().to_string()];
    let tu = clang::Tu::parse(&index, &argv, CXTranslationUnit_KeepGoing).expect("parse");
    let cx = lower::TuCtx::new(&tu, &dir.0);
    let same = |a: Option<(CXFile, u32)>, b: Option<(CXFile, u32)>| match (a, b) {
        (Some((fa, oa)), Some((fb, ob))) => clang::same_file(fa, fb) && oa == ob,
        (None, None) => true,
        _ => false,
    };
    let mut seen = 0;
    let mut all = Vec::new();
    tu.cursor().visit_descendants(&mut |c| all.push(c));
    let mut last = tu.cursor().location();
    for c in all {
        for l in [c.location(), c.extent_start(), c.extent_end()] {
            let (file, exp) = cx.offsets(l);
            assert!(same(file, clang::file_offset(l)), "file location of {}", c.kind_name());
            assert!(same(exp, clang::expansion_offset(l)), "expansion location of {}", c.kind_name());
            // `clang::same_location` compares without a call.
            for other in [last, l] {
                // SAFETY: plain FFI on location values.
                let libclangs = unsafe { clang_sys::clang_equalLocations(l, other) != 0 };
                assert_eq!(clang::same_location(l, other), libclangs);
            }
            last = l;
            seen += 1;
        }
    }
    assert!(seen > 1000, "only {seen} locations compared");
}

/// `TuCtx::literal_value` gives libclang's value for every integer literal: those it reads from
/// the source (digits in four bases, suffixes, values at the edges of the integer types) and
/// those it must leave to libclang (macros, digit separators, line continuations and trigraphs
/// inside the token, other suffixes, character literals, values beyond 64 bits).
#[test]
fn literal_values_are_libclangs() {
    let dir = TempDir::new();
    let src = "#define K 42\n#define CAT(a, b) a##b\n#define ID(x) x\n\
               unsigned long long v[] = {\n\
               0, 7, 007, 010, 0x1F, 0Xff, 0b101, 0B11, 1u, 2U, 3l, 4L, 5ul, 6LU, 7ll, 8ULL, 9llu,\n\
               10uLL, 2147483647, 2147483648, 4294967295u, 4294967296, 9223372036854775807,\n\
               9223372036854775808u, 18446744073709551615ull, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000,\n\
               01777777777777777777777, K, CAT(1, 2), ID(77), 12\\\n34, 5??/\n6, 1'000, 0x1'0,\n\
               'a', '\\n', 'ab', (1), -1, 0x7fffffff+1, sizeof(int), 0u+1,\n\
               };\n\
               long long e1 = 99999999999999999999;\nint e2 = 08;\nint e3 = 0x1e+1;\n\
               int e4 = 123i64;\nint e5 = 1uu;\nint e6 = 1lL;\nint e7 = 0x;\nint e8 = 0b2;\n\
               _BitInt(8) e9 = 3wb;\n\
               int f(int x) { if (x == 0) return 100; return x ? 0x10 : 010; }\n";
    let file = dir.write("lits.c", src);
    let index = clang::Index::new().expect("libclang index");
    let argv = ["clang", "-std=c2x", "-trigraphs", &file.display().to_string()].map(String::from).to_vec();
    let tu = clang::Tu::parse(&index, &argv, CXTranslationUnit_KeepGoing).expect("parse");
    let cx = lower::TuCtx::new(&tu, &dir.0);
    let mut all = Vec::new();
    tu.cursor().visit_descendants(&mut |c| all.push(c));
    let (mut literals, mut read) = (0, 0);
    for c in all {
        if !matches!(c.kind(), CXCursor_IntegerLiteral | CXCursor_CharacterLiteral) {
            continue;
        }
        // Lowering places locations all along; the file's range is then known.
        let (at, _) = cx.offsets(c.location());
        assert_eq!(cx.literal_value(c), c.eval_int(), "literal at {at:?}");
        literals += 1;
        let text = at.and_then(|(f, off)| tu.file_text(f)?.get(off as usize..));
        if c.kind() == CXCursor_IntegerLiteral && text.and_then(lower::int_literal_value).is_some() {
            read += 1;
        }
    }
    assert!(literals > 45 && read > 35, "{literals} literals, {read} read from the source");
}

/// `TuCtx::function_usr` answers once per function: asked about any declaration of a function
/// (in a header or the file, before or after the definition, static or not, defined or not), it
/// gives what that declaration alone gives.
#[test]
fn function_usr_is_every_declarations() {
    let dir = TempDir::new();
    dir.write("decls.h", "static int s(int);\nint e(int);\nstatic int only_declared(void);\n");
    let src = "#include \"decls.h\"\nint e(int);\nstatic int s(int x) { return x + only_declared(); }\n\
               int e(int x) { return s(x); }\nstatic int s(int);\nint later(void);\n\
               int (*t[])(int) = { s, e };\nint later(void) { return e(1) + s(2); }\n";
    let file = dir.write("usrs.c", src);
    let index = clang::Index::new().expect("libclang index");
    let argv = vec!["clang".to_string(), file.display().to_string()];
    let tu = clang::Tu::parse(&index, &argv, CXTranslationUnit_KeepGoing).expect("parse");
    let mut shared = lower::TuCtx::new(&tu, &dir.0);
    let mut all = Vec::new();
    tu.cursor().visit_descendants(&mut |c| all.push(c));
    let mut seen = 0;
    for c in all {
        let decl = match c.kind() {
            CXCursor_FunctionDecl => c,
            CXCursor_DeclRefExpr => match c.referenced() {
                Some(d) if d.kind() == CXCursor_FunctionDecl => d,
                _ => continue,
            },
            _ => continue,
        };
        let alone = lower::TuCtx::new(&tu, &dir.0).function_usr(decl);
        assert_eq!(shared.function_usr(decl), alone, "declaration of {}", decl.spelling());
        seen += 1;
    }
    assert!(seen >= 14, "only {seen} declarations and references");
}

/// Globals of a type that holds no pointer are not walked (`parse_tu`): the test must answer
/// "may hold one" for every type a pointer can hide in — nested records, arrays of records,
/// unions, typedefs, function pointers — and "no" only for pointer-free scalars and aggregates.
#[test]
fn pointer_free_globals_are_told_apart() {
    let dir = TempDir::new();
    let src = "typedef void (*cb)(void);\n\
               struct plain { int a; char b[4]; enum { X, Y } e; double d; };\n\
               struct inner { int n; cb f; };\n\
               struct outer { int k; struct inner in[2]; };\n\
               union u { long l; char *p; };\n\
               typedef struct plain plain_t;\n\
               int no_int[3]; const char no_text[] = \"abc\"; struct plain no_rec[2]; plain_t no_td;\n\
               _Complex double no_cplx; unsigned char no_grid[2][3];\n\
               char *yes_ptr; cb yes_cb; struct outer yes_nested[1]; union u yes_union;\n\
               const char *yes_names[2]; struct { struct plain p; void *v; } yes_anon;\n";
    let file = dir.write("globals.c", src);
    let index = clang::Index::new().expect("libclang index");
    let argv = ["clang", &file.display().to_string()].map(String::from).to_vec();
    let tu = clang::Tu::parse(&index, &argv, CXTranslationUnit_KeepGoing).expect("parse");
    let mut cx = lower::TuCtx::new(&tu, &dir.0);
    let mut seen = 0;
    for c in tu.cursor().children() {
        if c.kind() != CXCursor_VarDecl {
            continue;
        }
        let name = c.spelling();
        let expected = name.starts_with("yes_");
        assert!(expected || name.starts_with("no_"), "{name}");
        assert_eq!(cx.may_hold_pointer(c.ty()), expected, "{name}");
        seen += 1;
    }
    assert_eq!(seen, 12);
}

/// A declaration without attributes by `Cursor::has_attrs` has no attribute among its children,
/// whatever the attribute's spelling and wherever it was written (this declaration or an earlier
/// one), so `has_noreturn_attr` need not look.
#[test]
fn declarations_without_attrs_have_no_attribute_children() {
    let dir = TempDir::new();
    let src = "#include <stdnoreturn.h>\n_Noreturn void a(void);\nnoreturn void b(void);\n\
               [[noreturn]] void c(void);\nvoid d(void) __attribute__((noreturn));\n\
               void d(void);\n__attribute__((unused)) static int e(int x) { return x; }\n\
               int f(int) __attribute__((deprecated));\nint f(int x) { return x; }\n\
               int g(int x) { return x; }\nvoid h(void);\nstatic inline int i(void) { return 0; }\n";
    let file = dir.write("attrs.c", src);
    let index = clang::Index::new().expect("libclang index");
    let argv = ["clang", "-std=c2x", &file.display().to_string()].map(String::from).to_vec();
    let tu = clang::Tu::parse(&index, &argv, CXTranslationUnit_KeepGoing).expect("parse");
    let (mut with, mut without) = (0, 0);
    for d in tu.cursor().children() {
        if d.kind() != CXCursor_FunctionDecl || d.is_in_system_header() {
            continue;
        }
        // SAFETY: plain FFI on a cursor kind.
        let is_attribute = |k: &clang::Cursor| unsafe { clang_isAttribute(k.kind()) } != 0;
        let attributes = d.children().iter().filter(|k| is_attribute(k)).count();
        if d.has_attrs() {
            with += 1;
        } else {
            assert_eq!(attributes, 0, "{} has attributes", d.spelling());
            without += 1;
        }
    }
    assert!(with >= 6 && without >= 3, "{with} declarations with attributes, {without} without");
}

/// `clang::is_expression_kind`, `clang::is_invalid_kind` and `clang::NULL_CURSOR` answer without
/// calling libclang: they must be what libclang answers, for every kind there is.
#[test]
fn cursor_kinds_are_libclangs() {
    for k in 0..1000 {
        // SAFETY: plain FFI on a cursor kind (any value is accepted).
        let (expr, invalid) = unsafe { (clang_sys::clang_isExpression(k) != 0, clang_sys::clang_isInvalid(k) != 0) };
        assert_eq!(clang::is_expression_kind(k), expr, "kind {k}");
        assert_eq!(clang::is_invalid_kind(k), invalid, "kind {k}");
    }
    // SAFETY: plain FFI returning a value.
    let null = unsafe { clang_sys::clang_getNullCursor() };
    let ours = clang::NULL_CURSOR;
    assert_eq!((null.kind, null.xdata, null.data), (ours.kind, ours.xdata, ours.data));
    assert!(clang::Cursor::new(null).is_null());
}

/// `lower::collapse_whitespace` splits ASCII text itself: it must give what `split_whitespace`
/// gives, for every ASCII character around words and for text that is not ASCII.
#[test]
fn collapsed_whitespace_is_split_whitespaces() {
    let expected = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut texts: Vec<String> = vec![
        String::new(),
        " ".into(),
        "a".into(),
        "  p  ==\tNULL \n".into(),
        "x\u{a0}y \u{2003} z".into(),
        "f(a,\r\n  b)\x0b\x0c;".into(),
    ];
    for b in 0u8..128 {
        let c = b as char;
        texts.push(format!("{c}a{c}{c}b{c}"));
    }
    for t in &texts {
        assert_eq!(lower::collapse_whitespace(t), expected(t), "{t:?}");
    }
}

#[test]
fn case_labels_keep_their_source_text() {
    let (prog, _) = lower_src(
        "enum color { RED, GREEN };\n\
         #define RBRACE '}'\n\
         int f(int c, enum color k) {\n\
           switch (c) { case '$': return 1; case RBRACE: return 2; case 7: return 3; case 10 ... 12: return 4; }\n\
           switch (k) { case GREEN: return 5; default: return 6; }\n\
         }\n",
    );
    let f = func(&prog, "f");
    let labels: Vec<(i64, &str)> = f.case_labels.iter().map(|(_, v, t)| (*v, t.as_str())).collect();
    // Plain numbers and ranges are shown as their values; the rest as written.
    assert_eq!(labels, [(36, "'$'"), (125, "RBRACE"), (1, "GREEN")]);
    let (b, v, t) = &f.case_labels[1];
    assert_eq!(f.case_label(*b, *v), Some(t.as_str()));
    assert_eq!(f.case_label(*b, 7), None);
}

#[test]
fn calls_record_which_arguments_the_prototype_declares_pointer_to_const() {
    let (prog, rep) = lower_src(
        "typedef const char *cstr;\n\
         int f(const char *a, char *b, const char *const c, char *const d, const char **e, const void *g, cstr h);\n\
         int v(const char *fmt, ...);\n\
         int cb(const char *a, void (*destroy)(void *));\n\
         int kr();\n\
         int r(const char *a);\n\
         void user(char *p, void (*fp)(void *)) {\n\
           f(p, p, p, p, 0, p, p);\n\
           v(p, p);\n\
           cb(p, 0);\n\
           kr(p);\n\
           r(p);\n\
           (void)fp;\n\
         }\n\
         int passes(int (*g)(const char *, void (*)(void *)), char *p, void (*fp)(void *)) { return g(p, fp); }\n\
         int q(const char *a, void *b);\n\
         int passes_fn(char *p, void (*fp)(void *)) { return q(p, (void *)fp) + q(p, p); }\n",
    );
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    let masks = |fname: &str, callee: &str| -> Vec<u64> {
        calls_to(func(&prog, fname), callee)
            .iter()
            .map(|s| match s {
                Stmt::Call { callee: Callee::Direct { const_args, .. }, .. } => *const_args,
                _ => panic!("not a direct call"),
            })
            .collect()
    };
    // a, c, g and h (a typedef of `const char *`); not b, d (`char *const`) or e (`const char **`).
    assert_eq!(masks("user", "f"), [0b1100101]);
    // The format is declared; the variadic part is not.
    assert_eq!(masks("user", "v"), [0b1]);
    // A callee that takes a function pointer promises nothing, nor does a K&R declaration.
    assert_eq!(masks("user", "cb"), [0]);
    assert_eq!(masks("user", "kr"), [0]);
    assert_eq!(masks("user", "r"), [0b1]);
    // A function pointer among the arguments, even cast to `void *`, promises nothing either.
    assert_eq!(masks("passes_fn", "q"), [0, 0b1]);
}

#[test]
fn tested_elements_keep_their_constant_indices() {
    let (prog, _) = lower_src(
        "struct s { char v[4][4]; char *p; };\n\
         #define TWO 2\n\
         int f(const char *s, struct s *x, int i, char a[8]) {\n\
           if (s[0] == '*') return 1;\n\
           if (s[TWO]) return 2;\n\
           if (x->v[1][i] == 3) return 3;\n\
           if (x->p[i] != 4) return 4;\n\
           if (*x->v[3] == 5) return 5;\n\
           if (s[i] == 6 || 7 == a[1]) return 6;\n\
           return 0;\n\
         }\n",
    );
    let f = func(&prog, "f");
    let elems: Vec<&[Option<i64>]> = f.tested_elems.iter().map(|(_, e)| e.as_slice()).collect();
    // Root first; an index that is not a literal is `None`, and a test with no literal index
    // (`x->p[i]`, `s[i]`) records nothing. `*x->v[3]` is `x->v[3][0]`.
    assert_eq!(
        elems,
        [&[Some(0)][..], &[Some(2)], &[Some(1), None], &[Some(3), Some(0)], &[Some(1)]],
        "{:?}",
        f.tested_elems
    );
    for (b, e) in &f.tested_elems {
        assert_eq!(f.tested_elems(*b), Some(e.as_slice()));
        assert!(matches!(f.block(*b).term, Terminator::Branch { .. }));
    }
}

/// The ownership attributes reach the IR in every spelling: plain, `__malloc__`, through object-
/// and function-like macros, GCC's `malloc(dealloc[, idx])` (which clang drops with an error that
/// is then no parse error), and clang's `ownership_*`; system headers' attributes do not.
#[test]
fn ownership_attributes_reach_the_ir() {
    let (prog, rep) = lower_src(
        "#include <stdio.h>\n\
         #define ATTR_MALLOC __attribute__((malloc))\n\
         #define RELEASED_BY(f, i) __attribute__((malloc(f, i)))\n\
         void pool_put(void *pool, void *p);\n\
         void *a(int) __attribute__((malloc));\n\
         void *b(int) __attribute__((__malloc__, __warn_unused_result__));\n\
         ATTR_MALLOC void *c(int);\n\
         void *d(int) __attribute__((malloc(pool_put, 2)));\n\
         void *e(void *pool) RELEASED_BY(pool_put, 2);\n\
         void *f(int) __attribute__((ownership_returns(mem, 1)));\n\
         void g(int, void *) __attribute__((ownership_takes(mem, 2)));\n\
         void h(void *) __attribute__((ownership_holds(mem, 1)));\n\
         void *i(int) __attribute__((malloc(fclose)));\n\
         void *a(int);\n\
         void *a(int x) { return 0; }\n\
         [[gnu::malloc]] void *j(int);\n",
    );
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    let got: Vec<(&str, &AttrKind, u32)> =
        prog.attributes.iter().map(|a| (a.function.as_str(), &a.kind, a.line)).collect();
    let released = |arg| AttrKind::ReleasedBy { dealloc: "pool_put".into(), arg };
    let want = [
        ("a", &AttrKind::Returns, 5),
        ("a", &AttrKind::Returns, 14),
        ("a", &AttrKind::Returns, 15),
        ("b", &AttrKind::Returns, 6),
        ("c", &AttrKind::Returns, 7),
        ("d", &released(1), 8),
        ("e", &released(1), 9),
        ("f", &AttrKind::Returns, 10),
        ("g", &AttrKind::Takes { arg: 1 }, 11),
        ("h", &AttrKind::Holds { arg: 0 }, 12),
        ("i", &AttrKind::ReleasedBy { dealloc: "fclose".into(), arg: 0 }, 13),
        ("j", &AttrKind::Returns, 16),
    ];
    assert_eq!(got, want);
    // stdio.h's own attributes (glibc marks `fopen` `malloc(fclose)` for GCC) are not there.
    assert!(prog.attributes.iter().all(|a| a.file.ends_with("t.c")));
}

fn lower_cpp(src: &str) -> (Program, FrontendReport) {
    let dir = TempDir::new();
    let file = dir.write("t.cpp", src);
    let db = compdb::from_files(&[file], &["-std=c++17".to_string()]);
    build_program(&db.commands, &opts(1))
}

/// The C++ lowering's contract (`cpp.rs`): qualified names, `this` as parameter 0 and the
/// object's address as a call's first argument, `new`/`delete` as library rows, placement `new`
/// as no allocation, reference parameters as pointers, `throw` as the end of a path.
#[test]
fn cpp_methods_new_and_delete_lower_to_calls() {
    let (prog, rep) = lower_cpp(
        r#"
namespace ns {
struct S {
    int *p;
    void set(int *q) { p = q; }
};
}
void fill(int *&out) { out = new int[2]; }
namespace lib {
extern "C" int lib_init(void) { return 0; }
}
void use(ns::S *s, ns::S &r, int c) {
    s->set(new int(1));
    r.set(nullptr);
    alignas(int) char buf[sizeof(int)];
    int *placed = new (buf) int(3);
    int *arr = nullptr;
    fill(arr);
    delete[] arr;
    if (c)
        throw 5;
    delete placed;
}
"#,
    );
    assert_eq!(rep.tus_failed, 0);
    let _ = func(&prog, "lib_init");
    let set = func(&prog, "ns::S::set");
    assert_eq!(set.n_params, 2);
    assert_eq!(set.locals[0].name, "this");
    let fill = func(&prog, "fill");
    assert!(fill.locals[0].is_pointer, "a reference parameter is a pointer");
    let u = func(&prog, "use");
    assert_eq!(calls_to(u, "operator new").len(), 1, "placement new allocates nothing");
    assert_eq!(calls_to(u, "operator delete[]").len(), 1);
    assert_eq!(calls_to(u, "operator delete").len(), 1);
    let sets = calls_to(u, "ns::S::set");
    assert_eq!(sets.len(), 2);
    for s in sets {
        let Stmt::Call { args, .. } = s else { unreachable!() };
        assert_eq!(args.len(), 2, "the object, then the argument");
    }
    // `fill(arr)` passes `&arr`.
    let Some(Stmt::Call { args, .. }) = calls_to(u, "fill").first().copied() else { panic!("no call of fill") };
    let arr = local_named(u, "arr");
    let Operand::Place(Place::Local(t)) = &args[0] else { panic!("{args:?}") };
    assert!(u.stmts.iter().any(|s| matches!(s, Stmt::Assign { dst: Place::Local(d), src: Rvalue::AddrOf(Place::Local(a)) } if d == t && *a == arr)));
    // `throw` leaves the function: a `NoReturn` listed in `throws`, unlike `exit`'s.
    assert_eq!(u.throws.len(), 1, "{:?}", u.throws);
    assert!(matches!(u.block(u.throws[0]).term, Terminator::NoReturn), "throw ends its path");
    // The calls that may throw: `operator new`, the C++ functions; not placement `new`, `delete`.
    let unwound: Vec<&str> = u
        .unwinds
        .iter()
        .map(|w| match u.stmt(w.call) {
            Stmt::Call { callee: Callee::Direct { name, .. }, .. } => name.as_str(),
            s => panic!("{s:?}"),
        })
        .collect();
    assert_eq!(unwound, ["operator new", "ns::S::set", "ns::S::set", "fill"]);
}

/// What may throw (`cpp::may_throw`) and where a `throw` goes: the destructors of the scopes it
/// leaves run first, a `try`'s handlers are lowered, a thrown type a handler names goes there.
#[test]
fn cpp_throws_unwind_scopes_and_reach_handlers() {
    let (prog, rep) = lower_cpp(
        r#"
struct Owner { int *p; Owner() : p(new int) {} ~Owner() { delete p; } };
int maybe(int);
int never(int) noexcept;
extern "C" int c_fn(int);
int f(int c) {
    Owner o;
    maybe(c);
    never(c);
    c_fn(c);
    try {
        Owner inner;
        if (c > 1)
            throw 3;
        maybe(c);
    } catch (int e) {
        return e;
    }
    if (c)
        throw 1.5;
    return 0;
}
"#,
    );
    assert_eq!(rep.tus_failed, 0);
    let f = func(&prog, "f");
    let names: Vec<(&str, usize, bool)> = f
        .unwinds
        .iter()
        .map(|w| match f.stmt(w.call) {
            Stmt::Call { callee: Callee::Direct { name, .. }, .. } => {
                (name.as_str(), w.cleanups.len(), w.handler.is_some())
            }
            s => panic!("{s:?}"),
        })
        .collect();
    // The constructors may throw too (before their object lives). The first `maybe` leaves
    // `o`; the second, in the `try`, `inner` on the way to the handlers.
    let expected = [("Owner::Owner", 0, false), ("maybe", 1, false), ("Owner::Owner", 0, true), ("maybe", 1, true)];
    assert_eq!(names, expected, "{names:?}");
    assert!(f.lowering_notes.iter().all(|n| !n.contains("catch")), "{:?}", f.lowering_notes);
    // `throw 1.5` leaves the function; `throw 3` goes to `catch (int)`, not out.
    assert_eq!(f.throws.len(), 2, "the outer throw, and the dispatch's way on: {:?}", f.throws);
    let dtor_calls = f
        .stmts
        .iter()
        .filter(|s| matches!(s, Stmt::Call { callee: Callee::Direct { name, .. }, .. } if name.contains("~Owner")))
        .count();
    // `inner`: at its scope's end and at `throw 3`; `o`: at two returns and at `throw 1.5`,
    // and at the dispatch's way on.
    assert_eq!(dtor_calls, 6, "{f:#?}");
}

/// The manifest of a C++ TU names the files libclang read, also the standard library's headers
/// that GCC's installation puts behind `..` after a symbolic link (`/lib` → `/usr/lib`): a
/// folded path would name no file, and the TU would never load from the cache.
#[test]
fn cpp_manifests_name_the_files_read() {
    let dir = TempDir::new();
    let file = dir.write("t.cpp", "#include <stdlib.h>\nvoid g() { char *p = (char *)malloc(3); }\n");
    let db = compdb::from_files(&[file], &[]);
    let cmd = &db.commands[0];
    let (argv, _) = compile_argv(cmd);
    let index = clang::Index::new().expect("index");
    let tu = clang::Tu::parse(&index, &argv, CXTranslationUnit_KeepGoing).expect("parse");
    let m = tucache::manifest(&tu, cmd).expect("manifest");
    let stale: Vec<String> = m
        .into_iter()
        .filter(|(p, d)| crate::files::read(p).ok().map(|b| crate::cache::Digest::of(&b)) != Some(*d))
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(stale.is_empty(), "{stale:?}");
}

/// A virtual call's targets are the overrides of every TU's classes below the static class
/// (`virtuals.rs`); one with an override defined nowhere gets none (an unknown callee).
#[test]
fn virtual_calls_are_resolved_over_every_tus_classes() {
    let dir = TempDir::new();
    dir.write(
        "inc/shape.h",
        "struct Shape { virtual ~Shape() {} virtual char *name() = 0; virtual void drop(char *p) = 0; };\n\
         struct Ext : Shape { char *name() override { return nullptr; } void drop(char *p) override; };\n",
    );
    let a = dir.write(
        "a.cpp",
        "#include \"shape.h\"\nstruct Sq : Shape { char *name() override { return nullptr; } void drop(char *) override {} };\n\
         Shape *make_sq() { return new Sq; }\n",
    );
    let b = dir.write(
        "b.cpp",
        "#include \"shape.h\"\nstruct Ci : Shape { char *name() override { return nullptr; } void drop(char *) override {} };\n\
         char *call(Shape *s) { s->drop(nullptr); return s->name(); }\nvoid kill(Shape *s) { delete s; }\n",
    );
    let db = compdb::from_files(&[a, b], &[format!("-I{}", dir.0.join("inc").display())]);
    let (prog, rep) = build_program(&db.commands, &opts(2));
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    let keys = indirect_fields(func(&prog, "call"));
    assert_eq!(keys.len(), 2);
    assert!(keys.iter().all(|k| k.is_some_and(|k| k.starts_with(crate::ir::VIRTUAL_KEY))), "{keys:?}");
    let names = |key: &str| -> Vec<String> {
        let mut v: Vec<String> = field_targets_of(&prog, key)
            .iter()
            .map(|u| prog.functions.iter().find(|f| f.usr.ends_with(u)).map_or(u.to_string(), |f| f.name.clone()))
            .collect();
        v.sort();
        v
    };
    // `drop`: `Ext::drop` has no body in the program.
    assert!(names(keys[0].unwrap()).is_empty());
    assert_eq!(names(keys[1].unwrap()), ["Ci::name", "Ext::name", "Sq::name"]);
    let dtor = indirect_fields(func(&prog, "kill"));
    assert_eq!(names(dtor[0].unwrap()), ["Ci::~Ci", "Ext::~Ext", "Sq::~Sq"]);
    let shape = prog.classes.iter().find(|c| c.usr.ends_with("@S@Shape")).expect("Shape recorded");
    // Its destructor is not among the methods: `delete` resolves by the classes' `destructor`.
    assert!(shape.is_abstract && shape.known && shape.virtuals.len() == 2);
}

/// Methods of a class template are lowered once from the pattern (`TuCtx::template_member`):
/// a call of a method of an implicit instantiation, in the class or defined outside it, a
/// constructor too, names the pattern member's USR, which one lowered body has; an explicit
/// specialization of a member has its own body and USR, and a member template stays unlowered.
#[test]
fn class_template_calls_name_the_pattern() {
    let (prog, rep) = lower_cpp(
        r#"
template <typename T> struct W {
    T *p;
    W(T *q) : p(q) {}
    T *get() { return p; }
    T *walk(int n);
    template <typename U> U conv() { return U(); }
};
template <typename T> T *W<T>::walk(int n) { return p + n; }
template <> int *W<int>::walk(int n) { return nullptr; }
int use(W<char> &a, W<long> &b, W<int> &c, int *q) {
    W<char> d(nullptr);
    return (a.get() != nullptr) + (b.get() != nullptr) + (a.walk(1) != nullptr) + (c.walk(2) != nullptr) + (d.get() != nullptr);
}
"#,
    );
    assert!(rep.messages.iter().any(|m| m.contains("1 member template of class templates")), "{:?}", rep.messages);
    let usr_of = |name: &str| -> Vec<&str> {
        prog.functions.iter().filter(|f| f.name == name).map(|f| f.usr.as_str()).collect::<Vec<_>>()
    };
    let (get, walks, ctor) = (usr_of("W::get"), usr_of("W::walk"), usr_of("W::W<T>"));
    assert_eq!(get.len(), 1, "one pattern body of get: {get:?}");
    assert_eq!(walks.len(), 2, "the pattern's walk and the specialization's: {walks:?}");
    assert_eq!(ctor.len(), 1, "{:?}", prog.functions.iter().map(|f| &f.name).collect::<Vec<_>>());
    let f = func(&prog, "use");
    let called: Vec<&str> = f
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Call { callee: Callee::Direct { usr, .. }, .. } => Some(usr.as_str()),
            _ => None,
        })
        .collect();
    // `a.get()` and `b.get()` (two instantiations) and `d.get()` call the one pattern body.
    assert_eq!(called.iter().filter(|u| **u == get[0]).count(), 3, "{called:?}");
    assert!(called.contains(&ctor[0]), "the constructor of W<char> is the pattern's: {called:?}");
    // `a.walk(1)` is the pattern's out-of-class walk; `c.walk(2)` the specialization (opaque).
    let pattern_walk = walks.iter().find(|u| called.contains(*u)).expect("the pattern's walk is called");
    let special = walks.iter().find(|u| *u != pattern_walk).expect("the specialization's walk");
    assert!(called.iter().any(|u| u.ends_with(*special) && u.starts_with(crate::ir::OPAQUE_CPP_USR)), "{called:?}");
}
