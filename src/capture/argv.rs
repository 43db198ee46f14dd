//! What one compiler invocation did, read from its argv the way a GCC/Clang driver reads it.
//!
//! Input: one argv (compiler first, response files already expanded by the wrapper) and the
//! directory it ran in. Output: `Invocation::Compile` with one `Unit` per source file compiled
//! (its language, the argv that compiles only that file, and the object it wrote when that is
//! known), or `Invocation::Skip` with the reason it is not a translation unit: link-only,
//! preprocess-only, `-fsyntax-only`, a probe (`--version`, `-dumpmachine`, `-print-*`, a compile
//! of `/dev/null` or of standard input), assembler or header inputs only.
//! Invariants:
//! - pure: reads no file and no environment, so the same argv always classifies the same way;
//!   whether a file still exists is the merge's business (`merge.rs`);
//! - a `Unit`'s argv names exactly one source input and compiles it (`-c` or `-S` is in it), so
//!   libclang can parse it alone; everything else in it is the build's own argv, in order;
//! - paths stay as the build spelled them (relative to the directory); `merge.rs` makes them
//!   absolute.

/// The language a source input is compiled as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    C,
    Cxx,
    ObjC,
    ObjCxx,
}

/// One translation unit of a compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The source file, as spelled in the argv.
    pub file: String,
    pub lang: Lang,
    /// The argv that compiles this file alone.
    pub arguments: Vec<String>,
    /// The object (or assembly, for `-S`) file written, as spelled or implied (`a.c` → `a.o`);
    /// `None` when the object went to a temporary file (`cc -o prog a.c b.c`).
    pub output: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Only objects, archives, libraries: a link.
    Link,
    /// `-E`, `-M`, `-MM`: preprocessing or dependency generation only.
    Preprocess,
    /// `-fsyntax-only`: a check that writes nothing.
    SyntaxOnly,
    /// `--version`, `-v` alone, `-dumpmachine`, `-print-*`, `-###`, no input at all, input from
    /// `/dev/null` or standard input, output to `/dev/null` or standard output.
    Probe,
    /// Only assembler sources (`.s`, `.S`, `-x assembler`).
    Assembler,
    /// Only headers (a precompiled header is built) or inputs of other languages.
    Other,
}

impl SkipReason {
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::Link => "link-only",
            SkipReason::Preprocess => "preprocess-only",
            SkipReason::SyntaxOnly => "syntax-only",
            SkipReason::Probe => "probe",
            SkipReason::Assembler => "assembler",
            SkipReason::Other => "header or other language",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation {
    Compile(Vec<Unit>),
    Skip(SkipReason),
}

use crate::frontend::args::takes_value;

/// Options that make the driver print something and stop, or print what it would run.
fn is_probe_flag(a: &str) -> bool {
    matches!(
        a,
        "--version"
            | "-dumpversion"
            | "-dumpfullversion"
            | "-dumpmachine"
            | "-dumpspecs"
            | "-###"
            | "--help"
            | "--target-help"
            | "-print-search-dirs"
            | "-print-libgcc-file-name"
            | "-print-multiarch"
            | "-print-multi-directory"
            | "-print-multi-lib"
            | "-print-multi-os-directory"
            | "-print-sysroot"
            | "-print-sysroot-headers-suffix"
            | "-print-resource-dir"
            | "-print-target-triple"
            | "-print-effective-triple"
    ) || a.starts_with("--help=")
        || a.starts_with("-print-file-name=")
        || a.starts_with("-print-prog-name=")
        || a.starts_with("--print-")
}

/// Link-only options dropped from a `Unit`'s argv when the invocation also linked
/// (`cc -o prog a.c -lm`): with `-c` they would only draw "unused" warnings.
fn is_link_flag(a: &str) -> bool {
    a.starts_with("-l") || a.starts_with("-L") || a.starts_with("-Wl,") || a == "-shared" || a == "-rdynamic"
}

/// What an input is, from `-x` or its extension (the driver's own table, as far as it matters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    Source(Lang),
    Assembler,
    Header,
    /// Objects, archives, shared libraries, linker scripts, unknown extensions: the driver passes
    /// them to the linker.
    Linker,
    Other,
}

fn input_from_lang(x: &str) -> Option<Input> {
    Some(match x {
        "c" | "cpp-output" => Input::Source(Lang::C),
        "c++" | "c++-cpp-output" => Input::Source(Lang::Cxx),
        "objective-c" | "objc-cpp-output" | "objective-c-cpp-output" => Input::Source(Lang::ObjC),
        "objective-c++" | "objc++-cpp-output" | "objective-c++-cpp-output" => Input::Source(Lang::ObjCxx),
        "assembler" | "assembler-with-cpp" => Input::Assembler,
        "c-header" | "c++-header" | "objective-c-header" | "objective-c++-header" | "cpp-output-header" => {
            Input::Header
        }
        "none" => return None,
        _ => Input::Other,
    })
}

fn input_from_extension(file: &str, cxx_driver: bool) -> Input {
    let ext = match file.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.contains('/') => ext,
        _ => return Input::Linker,
    };
    match ext {
        // A C++ driver (g++, clang++) compiles `.c` files as C++.
        "c" | "i" if cxx_driver => Input::Source(Lang::Cxx),
        "c" | "i" => Input::Source(Lang::C),
        "cc" | "cp" | "cxx" | "cpp" | "CPP" | "c++" | "C" | "ii" | "cppm" | "ixx" => Input::Source(Lang::Cxx),
        "m" | "mi" => Input::Source(Lang::ObjC),
        "mm" | "M" | "mii" => Input::Source(Lang::ObjCxx),
        "s" | "S" | "sx" | "asm" => Input::Assembler,
        "h" | "hh" | "H" | "hp" | "hxx" | "hpp" | "HPP" | "h++" | "tcc" | "pch" => Input::Header,
        "f" | "for" | "ftn" | "F" | "FOR" | "fpp" | "FPP" | "FTN" | "f90" | "f95" | "f03" | "f08" | "F90" | "F95"
        | "F03" | "F08" | "go" | "d" | "di" | "dd" | "adb" | "ads" | "cu" | "cl" | "rs" => Input::Other,
        _ => Input::Linker,
    }
}

/// Is this driver a C++ driver (`g++`, `clang++-19`, `x86_64-linux-gnu-g++`)?
fn is_cxx_driver(argv0: &str) -> bool {
    let base = argv0.rsplit('/').next().unwrap_or(argv0);
    base.contains("++")
}

/// The object the driver writes for `file` when no `-o` is given: its base name, in the
/// working directory, with the extension replaced.
fn implied_output(file: &str, ext: &str) -> String {
    let base = file.rsplit('/').next().unwrap_or(file);
    let stem = match base.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => base,
    };
    format!("{stem}.{ext}")
}

/// Launchers that run the compiler named after them (`ccache gcc -c a.c`).
pub const LAUNCHERS: [&str; 4] = ["ccache", "sccache", "distcc", "icecc"];

/// Classify one compiler invocation. A launcher in front (`ccache gcc …`, recorded when
/// ccache itself is wrapped) is dropped: the unit's argv starts at the compiler.
pub fn classify(argv: &[String]) -> Invocation {
    let launchers = argv.iter().take_while(|a| LAUNCHERS.contains(&a.rsplit('/').next().unwrap_or(a))).count();
    let argv = if launchers < argv.len() { &argv[launchers..] } else { argv };
    let Some(argv0) = argv.first() else {
        return Invocation::Skip(SkipReason::Probe);
    };
    let cxx_driver = is_cxx_driver(argv0);
    let mut lang: Option<Input> = None;
    let mut compile_only = false; // -c or -S
    let mut assembly = false; // -S
    let mut output: Option<(usize, String)> = None; // (index of the -o argument(s), value)
    let mut output_len = 0; // 1 for -ofile, 2 for -o file
    let mut inputs: Vec<(usize, Input, String)> = Vec::new();
    let mut preprocess = false;
    let mut syntax_only = false;
    let mut probe = false;
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a.len() > 1 && a.starts_with('-') {
            if is_probe_flag(a) {
                probe = true;
            }
            match a {
                "-c" => compile_only = true,
                "-S" => {
                    compile_only = true;
                    assembly = true;
                }
                "-E" | "-M" | "-MM" => preprocess = true,
                "-fsyntax-only" => syntax_only = true,
                _ => {}
            }
            // The value of `-x`, attached or not; it applies to the inputs that follow.
            let x_value = if a == "-x" || a == "--language" {
                argv.get(i + 1).map(String::as_str)
            } else {
                a.strip_prefix("-x").or_else(|| a.strip_prefix("--language="))
            };
            if let Some(x) = x_value {
                lang = input_from_lang(x);
            }
            if a == "-o" || a == "--output" {
                if let Some(v) = argv.get(i + 1) {
                    output = Some((i, v.clone()));
                    output_len = 2;
                }
            } else if let Some(v) =
                a.strip_prefix("--output=").or_else(|| a.strip_prefix("-o").filter(|_| !a.starts_with("-objc")))
            {
                output = Some((i, v.to_string()));
                output_len = 1;
            }
            i += if takes_value(a) { 2 } else { 1 };
            continue;
        }
        // "-" is standard input; everything else that is not an option is an input file.
        let kind = match lang {
            Some(k) => k,
            None if a == "-" => Input::Source(Lang::C),
            None => input_from_extension(a, cxx_driver),
        };
        inputs.push((i, kind, a.to_string()));
        i += 1;
    }

    if probe {
        return Invocation::Skip(SkipReason::Probe);
    }
    if preprocess {
        return Invocation::Skip(SkipReason::Preprocess);
    }
    if syntax_only {
        return Invocation::Skip(SkipReason::SyntaxOnly);
    }
    let sources: Vec<&(usize, Input, String)> =
        inputs.iter().filter(|(_, k, _)| matches!(k, Input::Source(_))).collect();
    if sources.is_empty() {
        let reason = if inputs.iter().any(|(_, k, _)| *k == Input::Assembler) {
            SkipReason::Assembler
        } else if inputs.iter().any(|(_, k, _)| matches!(k, Input::Header | Input::Other)) {
            SkipReason::Other
        } else if inputs.is_empty() {
            SkipReason::Probe
        } else {
            SkipReason::Link
        };
        return Invocation::Skip(reason);
    }
    // Configure-style tests compile standard input or /dev/null, or throw the object away.
    let discards = |f: &str| f == "-" || f == "/dev/null" || f == "/dev/stdout";
    if sources.iter().any(|(_, _, f)| discards(f)) || output.as_ref().is_some_and(|(_, o)| discards(o)) {
        return Invocation::Skip(SkipReason::Probe);
    }

    let links = !compile_only;
    let other_inputs: Vec<usize> = inputs.iter().map(|(i, _, _)| *i).collect();
    let mut units = Vec::with_capacity(sources.len());
    for (idx, kind, file) in &sources {
        let Input::Source(lang) = kind else { continue };
        let mut arguments = Vec::with_capacity(argv.len());
        arguments.push(argv0.clone());
        let mut j = 1;
        while j < argv.len() {
            if j != *idx && other_inputs.contains(&j) {
                j += 1;
                continue;
            }
            if links {
                // The -o of a link names the program, not this file's object.
                if output.as_ref().is_some_and(|(o, _)| *o == j) {
                    j += output_len;
                    continue;
                }
                let a = argv[j].as_str();
                if a == "-Xlinker" {
                    j += 2;
                    continue;
                }
                if a == "-l" || a == "-L" {
                    j += 2;
                    continue;
                }
                if is_link_flag(a) {
                    j += 1;
                    continue;
                }
            }
            arguments.push(argv[j].clone());
            // Keep an option's value with it, so a value is never mistaken for an input above.
            if takes_value(&argv[j]) && j + 1 < argv.len() {
                arguments.push(argv[j + 1].clone());
                j += 2;
                continue;
            }
            j += 1;
        }
        let unit_output = if links {
            arguments.push("-c".to_string());
            None
        } else if sources.len() == 1 && output.is_some() {
            output.as_ref().map(|(_, o)| o.clone())
        } else {
            // `cc -c a.c b.c` (no -o allowed): each object is named after its source.
            Some(implied_output(file, if assembly { "s" } else { "o" }))
        };
        units.push(Unit { file: file.clone(), lang: *lang, arguments, output: unit_output });
    }
    Invocation::Compile(units)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn units(s: &str) -> Vec<Unit> {
        match classify(&argv(s)) {
            Invocation::Compile(u) => u,
            other => panic!("{s}: expected a compile, got {other:?}"),
        }
    }

    fn skip(s: &str) -> SkipReason {
        match classify(&argv(s)) {
            Invocation::Skip(r) => r,
            other => panic!("{s}: expected a skip, got {other:?}"),
        }
    }

    #[test]
    fn compile_to_object_with_o_forms() {
        let u = units("gcc -O2 -Iinc -c src/a.c -o obj/a.o");
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].file, "src/a.c");
        assert_eq!(u[0].lang, Lang::C);
        assert_eq!(u[0].output.as_deref(), Some("obj/a.o"));
        assert_eq!(u[0].arguments, argv("gcc -O2 -Iinc -c src/a.c -o obj/a.o"), "a single-file compile keeps its argv");
        assert_eq!(units("cc -c a.c -oout/a.o")[0].output.as_deref(), Some("out/a.o"));
        assert_eq!(units("cc -c a.c --output=x.o")[0].output.as_deref(), Some("x.o"));
        assert_eq!(units("cc -c a.c")[0].output.as_deref(), Some("a.o"), "implied: base name in the working directory");
        assert_eq!(units("cc -S sub/a.c")[0].output.as_deref(), Some("a.s"));
    }

    #[test]
    fn option_values_are_not_inputs() {
        let u = units("cc -I include -D X=1 -include config.h -MF a.d -MT a.o -x c -c a.c -o a.o");
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].file, "a.c");
        // -MD writes a .d file as a side effect of a real compile.
        assert_eq!(units("cc -MD -MP -MF dep/a.d -c a.c").len(), 1);
    }

    #[test]
    fn several_sources_give_one_unit_each() {
        let u = units("cc -DX -c a.c b.c sub/c.c");
        let files: Vec<&str> = u.iter().map(|u| u.file.as_str()).collect();
        assert_eq!(files, ["a.c", "b.c", "sub/c.c"]);
        assert_eq!(u[1].arguments, argv("cc -DX -c b.c"));
        assert_eq!(u[2].output.as_deref(), Some("c.o"));
    }

    #[test]
    fn compile_and_link_in_one_go() {
        let u = units("cc -O2 -o prog main.c util.c lib.a -L/opt/lib -lm -Wl,--as-needed -Xlinker -s");
        assert_eq!(u.len(), 2);
        assert_eq!(u[0].arguments, argv("cc -O2 main.c -c"), "program output, other inputs and link flags go");
        assert_eq!(u[1].arguments, argv("cc -O2 util.c -c"));
        assert_eq!(u[0].output, None);
    }

    #[test]
    fn link_only_is_skipped() {
        assert_eq!(skip("cc -o prog main.o util.o -lm"), SkipReason::Link);
        assert_eq!(skip("gcc -shared -o libx.so a.o b.o"), SkipReason::Link);
        assert_eq!(skip("cc main.o libfoo.a"), SkipReason::Link);
    }

    #[test]
    fn preprocess_and_dependency_only_are_skipped() {
        assert_eq!(skip("cc -E a.c"), SkipReason::Preprocess);
        assert_eq!(skip("cc -E -P a.c -o a.i"), SkipReason::Preprocess);
        assert_eq!(skip("cc -M a.c"), SkipReason::Preprocess);
        assert_eq!(skip("cc -MM -MF a.d a.c"), SkipReason::Preprocess);
        assert_eq!(skip("cc -fsyntax-only a.c"), SkipReason::SyntaxOnly);
    }

    #[test]
    fn probes_are_skipped() {
        for p in [
            "gcc --version",
            "gcc -v",
            "cc -dumpmachine",
            "cc -dumpversion",
            "cc -print-prog-name=ld",
            "cc -print-search-dirs",
            "clang --print-resource-dir",
            "cc -### -c a.c",
            "cc -Q --help=target",
            "cc -Werror -c -x c /dev/null -o /dev/null",
            "cc -c -x c - -o conftest.o",
            "cc -c a.c -o /dev/null",
            "cc",
        ] {
            assert_eq!(skip(p), SkipReason::Probe, "{p}");
        }
        // -v alongside a real compile is still a compile.
        assert_eq!(units("cc -v -c a.c").len(), 1);
    }

    #[test]
    fn languages() {
        assert_eq!(units("cc -c a.cpp")[0].lang, Lang::Cxx);
        assert_eq!(units("g++ -c a.c")[0].lang, Lang::Cxx, "a C++ driver compiles .c as C++");
        assert_eq!(units("/usr/bin/clang++-19 -c a.c")[0].lang, Lang::Cxx);
        assert_eq!(units("g++ -x c -c a.c")[0].lang, Lang::C, "-x wins over the driver");
        assert_eq!(units("cc -x c -c a.inc")[0].lang, Lang::C);
        assert_eq!(units("cc -xc -c a.inc")[0].lang, Lang::C);
        assert_eq!(units("cc -c a.m")[0].lang, Lang::ObjC);
        let mixed = units("cc -x c -c a.inc -x none b.cc");
        assert_eq!((mixed[0].lang, mixed[1].lang), (Lang::C, Lang::Cxx), "-x none restores extensions");
        assert_eq!(mixed[0].arguments, argv("cc -x c -c a.inc -x none"));
        assert_eq!(skip("cc -c start.S"), SkipReason::Assembler);
        assert_eq!(skip("cc -c -x assembler-with-cpp start.asm"), SkipReason::Assembler);
        assert_eq!(skip("cc -c config.h"), SkipReason::Other, "a precompiled header");
        assert_eq!(skip("gfortran -c a.f90"), SkipReason::Other);
    }

    #[test]
    fn launchers_are_dropped() {
        let u = units("/usr/bin/ccache gcc -c a.c -o a.o");
        assert_eq!(u[0].arguments, argv("gcc -c a.c -o a.o"));
        assert_eq!(skip("ccache --show-stats"), SkipReason::Probe, "ccache alone is no compile");
    }

    #[test]
    fn a_source_beside_assembler_is_still_recorded() {
        let u = units("cc -c a.c b.S");
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].arguments, argv("cc -c a.c"));
    }
}
