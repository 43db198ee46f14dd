//! The argv handed to libclang, built from an allow-list of what affects parsing.
//!
//! Input: one compile command from the database (untrusted: it may come from a repository the
//! user did not write). Output: the argv for `clang_parseTranslationUnit2FullArgv` and the
//! arguments left out, for `-v`.
//! Invariants: nothing in the output can make the driver write a file (dependency files, `-MJ`,
//! module caches, traces, dumps, coverage or profile data, header-include logs), load code
//! (plugins) or read a configuration file (`--config`, `<argv0>.cfg`: `--no-default-config` is
//! always passed, and argv[0] loses its directory); what the source means (language, standard,
//! target, macros, include paths, `-f`/`-m` semantics) is kept. An option the lists below do not
//! know is left out, with its value when it takes one.

/// Options whose value is the next argument (`-o out`, `-I dir`, `-x c`…), and whether the pair
/// is handed to libclang (language, macros, include paths, target, sysroot). Their attached forms
/// (`-Idir`, `-DX=1`, `-xc`) are single arguments and need no entry here. `drip capture`'s
/// classifier reads the same table (`takes_value`).
const SEPARATE_VALUE: &[(&str, bool)] = &[
    ("-o", false),
    ("-x", true),
    ("-I", true),
    ("-D", true),
    ("-U", true),
    ("-include", true),
    ("-imacros", true),
    ("-isystem", true),
    ("-idirafter", true),
    ("-iprefix", true),
    ("-iwithprefix", true),
    ("-iwithprefixbefore", true),
    ("-isysroot", true),
    ("-iquote", true),
    ("-imultilib", true),
    ("-iframework", true),
    ("-iwithsysroot", true),
    ("-cxx-isystem", false),
    ("-ivfsoverlay", false),
    ("-MF", false),
    ("-MT", false),
    ("-MQ", false),
    ("-MJ", false),
    ("-L", false),
    ("-l", false),
    ("-T", false),
    ("-u", false),
    ("-z", false),
    ("-e", false),
    ("-A", true),
    ("-B", false),
    ("-F", true),
    ("-aux-info", false),
    ("--param", false),
    ("-Xlinker", false),
    ("-Xassembler", false),
    ("-Xpreprocessor", false),
    ("-Xclang", false),
    ("-Xanalyzer", false),
    ("-Xopenmp-target", false),
    ("-mllvm", false),
    ("-target", true),
    ("-arch", true),
    ("-gcc-toolchain", false),
    ("-resource-dir", false),
    ("-working-directory", false),
    ("-include-pch", false),
    ("-dumpbase", false),
    ("-dumpdir", false),
    ("-dumpbase-ext", false),
    ("-wrapper", false),
    ("--sysroot", true),
    ("--serialize-diagnostics", false),
    ("--output", false),
    ("--include-directory", true),
    ("--define-macro", true),
    ("--undefine-macro", true),
    ("--language", true),
    ("--config", false),
    ("-framework", false),
    ("-rpath", false),
    ("-G", false),
];

/// Whether option `a` takes the next argument as its value.
pub fn takes_value(a: &str) -> bool {
    SEPARATE_VALUE.iter().any(|(o, _)| *o == a)
}

/// Attached forms handed on (`-DX=1`, `-Iinc`, `-std=gnu11`, `--target=…`).
const KEEP_PREFIX: &[&str] = &[
    "-D",
    "-U",
    "-I",
    "-x",
    "-std=",
    "--std=",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-isysroot",
    "-iwithsysroot",
    "-iprefix",
    "-iwithprefix",
    "-iframework",
    "-include",
    "-imacros",
    "--sysroot=",
    "--target=",
    "-target=",
    "--include-directory=",
    "--define-macro=",
    "--undefine-macro=",
    "--language=",
    "-A",
    "-F",
    "-O",
];

/// Whole options handed on: they change what the preprocessor defines or searches.
/// `-c` is every entry's mode and harmless to a parse.
const KEEP_EXACT: &[&str] = &[
    "-c",
    "-O",
    "-ansi",
    "-pthread",
    "-nostdinc",
    "-nostdlibinc",
    "-nobuiltininc",
    "-undef",
    "-trigraphs",
    "-traditional-cpp",
];

/// `-f` and `-m` options change the language and the target: handed on, except those that write
/// files, load code, or that clang rejects (GCC-only spellings).
const DROP_F_M_PREFIX: &[&str] = &[
    "-fplugin",
    "-fpass-plugin",
    "-fdump-",
    "-fprofile-",
    "-fcoverage",
    "-ftest-coverage",
    "-fmodules",
    "-fmodule-",
    "-fimplicit-module",
    "-fprebuilt-module",
    "-fbuild-session",
    "-ftime-trace",
    "-fproc-stat-report",
    "-fsave-optimization-record",
    "-foptimization-record-file",
    "-fcrash-diagnostics",
    "-fstack-usage",
    "-fcallgraph-info",
    "-fdiagnostics-",
    "-fcolor-diagnostics",
    "-fno-color-diagnostics",
    "-fanalyzer",
    "-fxray",
    "-fcs-profile",
    "-fmemory-profile",
    "-fdebug-",
    "-ffile-prefix-map",
    "-fmacro-prefix-map",
    "-fconserve-stack",
    "-fno-allow-store-data-races",
    "-fno-var-tracking-assignments",
    "-fno-ipa-sra",
    "-fsched-pressure",
    "-mindirect-branch",
    "-mfunction-return=",
    "-mpreferred-stack-boundary=",
    "-mharden-sls=",
    "-mno-fp-ret-in-387",
    "-mskip-rax-setup",
    "-mrecord-mcount",
];

/// The argv handed to libclang and the arguments left out. argv[0] keeps only its file name
/// (the driver mode and a target prefix are read from it; a directory would be searched for a
/// `.cfg` file), then `--no-default-config`, `-working-directory` (relative paths resolve against
/// the entry's directory) and `-w` (drip reports no compiler warnings: on sqlite3.c it makes the
/// parse 8% cheaper, and it leaves errors and the AST as they are).
pub fn compile_argv(cmd: &crate::compdb::CompileCommand) -> (Vec<String>, Vec<String>) {
    let args = &cmd.arguments;
    let mut out = Vec::with_capacity(args.len() + 3);
    let mut dropped = Vec::new();
    let argv0 = args.first().map(String::as_str).unwrap_or("cc");
    out.push(argv0.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or("cc").to_string());
    out.push("--no-default-config".to_string());
    out.push(format!("-working-directory={}", cmd.directory.display()));
    out.push("-w".to_string());
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "-o" {
            // The object file: a parse writes none, and every entry has one, so not worth a note.
            i += 1;
            continue;
        }
        if let Some(&(_, keep)) = SEPARATE_VALUE.iter().find(|(o, _)| *o == a) {
            let value = args.get(i);
            i += 1;
            if keep {
                out.push(a.to_string());
                out.extend(value.cloned());
            } else {
                dropped.push(a.to_string());
                dropped.extend(value.cloned());
            }
            continue;
        }
        if keep(a) {
            out.push(a.to_string());
        } else {
            dropped.push(a.to_string());
        }
    }
    (out, dropped)
}

/// Whether a single argument (an input or an option without a separate value) is handed on.
fn keep(a: &str) -> bool {
    if !a.starts_with('-') {
        // An input file; `@file` response files are not expanded.
        return !a.starts_with('@');
    }
    if KEEP_EXACT.contains(&a) || KEEP_PREFIX.iter().any(|p| a.starts_with(p) && a.len() > p.len()) {
        // `-MJ…`, `-MF…` start with none of these; `-include-pch` does.
        return !a.starts_with("-include-pch");
    }
    if a.starts_with("-f") || a.starts_with("-m") {
        return !DROP_F_M_PREFIX.iter().any(|p| a.starts_with(p));
    }
    false
}
