//! The argv handed to libclang, built from an allow-list of what affects parsing.
//!
//! Input: one compile command from the database (untrusted: it may come from a repository the
//! user did not write). Output: the argv for `clang_parseTranslationUnit2FullArgv` and the
//! arguments left out, for `-v`.
//! Invariants: nothing in the output can make the driver write a file (dependency files, `-MJ`,
//! module caches, traces, dumps, coverage or profile data, header-include logs), load code
//! (plugins) or read a configuration file (`--config`, `<argv0>.cfg`: `--no-default-config` is
//! always passed, and argv[0] loses its directory); the driver reads the arguments as GCC's
//! options (argv[0] never names clang-cl, cpp or flang mode, in which `/X` words are options:
//! `/showIncludes` prints on drip's stdout); the only input is the entry's file; what the source
//! means (language, standard, target, macros, include paths, `-f`/`-m` semantics) is kept. An
//! option the lists below do not know is left out, with its value when it takes one.

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
    ("-Xarch_host", false),
    ("-Xarch_device", false),
    ("-Xcuda-fatbinary", false),
    ("-Xcuda-ptxas", false),
    ("-Xoffload-linker", false),
    ("-Xflang", false),
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

/// Whether option `a` takes the next argument as its value (`-Xarch_<arch> ARG` for any arch).
pub fn takes_value(a: &str) -> bool {
    SEPARATE_VALUE.iter().any(|(o, _)| *o == a) || a.starts_with("-Xarch_")
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
    "-mllvm",
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
    out.push(driver_name(argv0).to_string());
    out.push("--no-default-config".to_string());
    out.push(format!("-working-directory={}", cmd.directory.display()));
    out.push("-w".to_string());
    let mut has_input = false;
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "-o" {
            // The object file: a parse writes none, and every entry has one, so not worth a note.
            i += 1;
            continue;
        }
        if !a.starts_with('-') && !a.starts_with('@') {
            // An input: only the entry's own file. Another (a second source, the value of an
            // option this table does not know) would make libclang fail or read it.
            if !has_input && crate::compdb::absolute(std::path::Path::new(a), &cmd.directory) == cmd.file {
                out.push(a.to_string());
                has_input = true;
            } else {
                dropped.push(a.to_string());
            }
            continue;
        }
        if takes_value(a) {
            let keep = SEPARATE_VALUE.iter().any(|&(o, keep)| o == a && keep);
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
    if !has_input {
        // An entry whose arguments name its file otherwise (a symbolic link) or not at all.
        out.push(cmd.file.to_string_lossy().into_owned());
    }
    (out, dropped)
}

/// argv[0] as handed to libclang: its file name, from which the driver reads a target prefix
/// (`x86_64-linux-gnu-gcc-12`), unless that name would put the driver in a mode other than
/// GCC's (clang's suffix rules: `…cl`, `…cpp`, `flang`, `clang-dxc`, tried on the name, then
/// without `.exe`, a version and a last `-part`) or is no name: then `cc`.
fn driver_name(argv0: &str) -> &str {
    let name = argv0.rsplit('/').next().unwrap_or("");
    if name.is_empty() || name.starts_with('-') || name.starts_with('@') {
        return "cc";
    }
    // In clang's order: the first suffix that matches decides.
    const SUFFIXES: &[(&str, bool)] = &[
        ("clang", true),
        ("clang++", true),
        ("clang-c++", true),
        ("clang-cc", true),
        ("clang-cpp", false),
        ("clang-g++", true),
        ("clang-gcc", true),
        ("clang-cl", false),
        ("cc", true),
        ("cpp", false),
        ("cl", false),
        ("++", true),
        ("flang", false),
        ("flang-new", false),
        ("clang-dxc", false),
    ];
    let lower = name.to_ascii_lowercase();
    let find = |n: &str| SUFFIXES.iter().find(|(s, _)| n.ends_with(s)).map(|&(_, gcc)| gcc);
    let mut n = lower.as_str();
    let mut mode = find(n);
    if mode.is_none() {
        n = n.strip_suffix(".exe").unwrap_or(n);
        mode = find(n);
    }
    if mode.is_none() {
        n = n.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        mode = find(n);
    }
    if mode.is_none() {
        n = n.rfind('-').map_or(n, |k| &n[..k]);
        mode = find(n);
    }
    // No suffix at all (`tcc`, `xlc`): the default mode, GCC's.
    if mode == Some(false) {
        "cc"
    } else {
        name
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compdb::CompileCommand;
    use std::path::PathBuf;

    fn argv(args: &[&str]) -> (Vec<String>, Vec<String>) {
        let cmd = CompileCommand {
            directory: PathBuf::from("/p"),
            file: PathBuf::from("/p/a.c"),
            arguments: args.iter().map(|a| a.to_string()).collect(),
        };
        let (out, dropped) = compile_argv(&cmd);
        (out[4..].to_vec(), dropped)
    }

    #[test]
    fn argv0_never_selects_a_driver_mode_other_than_gccs() {
        for gcc in ["gcc", "cc", "clang", "clang-19", "clang-19.1", "x86_64-linux-gnu-gcc-12", "g++", "tcc", "clang++"]
        {
            assert_eq!(driver_name(gcc), gcc);
        }
        assert_eq!(driver_name("/usr/bin/arm-none-eabi-gcc"), "arm-none-eabi-gcc");
        for other in [
            "clang-cl",
            "/opt/llvm/bin/clang-cl-19",
            "CL.EXE",
            "cl",
            "x86_64-w64-mingw32-clang-cl",
            "clang-cl-tot",
            "clang-cpp-19",
            "x86_64-linux-gnu-cpp",
            "flang-new",
            "clang-dxc",
            "@evil.rsp",
            "-MJout.json",
            "/usr/bin/",
        ] {
            assert_eq!(driver_name(other), "cc", "{other}");
        }
    }

    #[test]
    fn options_that_write_and_their_values_are_left_out_whole() {
        // The value of `-Xclang` is the next word, whatever it is: `-MT` here is not an option
        // of the compiler's, and `x` is not `-MT`'s value.
        let (out, dropped) = argv(&["cc", "-Xclang", "-MT", "-Xclang", "x", "-DA", "-c", "a.c"]);
        assert_eq!(out, ["-DA", "-c", "a.c"]);
        assert_eq!(dropped, ["-Xclang", "-MT", "-Xclang", "x"]);
        let (out, dropped) = argv(&["cc", "-Xarch_x86_64", "-MJ", "out.json", "-mllvm=-stats", "a.c", "-Wp,-MD,a.d"]);
        assert_eq!(out, ["a.c"]);
        assert_eq!(dropped, ["-Xarch_x86_64", "-MJ", "out.json", "-mllvm=-stats", "-Wp,-MD,a.d"]);
    }

    #[test]
    fn the_only_input_is_the_entrys_file() {
        // clang-cl's options are inputs to GCC's driver: left out, as is a second source.
        let (out, dropped) = argv(&["clang-cl", "/c", "./a.c", "/showIncludes", "b.c", "a.c"]);
        assert_eq!(out, ["./a.c"]);
        assert_eq!(dropped, ["/c", "/showIncludes", "b.c", "a.c"]);
        let (out, _) = argv(&["cc", "-c", "link-to-a.c"]);
        assert_eq!(out, ["-c", "/p/a.c"], "the entry's file when the arguments name it otherwise");
    }
}
