//! Reading `compile_commands.json` (or a list of files plus flags) into compile commands.
//!
//! Input: a JSON compilation database (the `arguments` or `command` form, relative `directory`
//! and `file` allowed), or files named on the command line.
//! Output: a `CompDb` whose commands are C and C++ translation units, one per distinct (file,
//! argv), in the order of the input.
//! Invariants:
//! - `CompileCommand::file` and `directory` are absolute and lexically normalised (no `.`/`..`).
//! - `arguments` is the full argv, compiler first, with compiler wrappers (`ccache gcc …`) removed.
//! - Only C and C++ survive (`language` says which a command is, as the compiler driver decides
//!   it): assembler and other entries are counted in `skipped_non_c`, never returned.
//! - Problems with single entries do not fail the whole database: they are skipped and described
//!   in `problems`. Only an unreadable file, invalid JSON or an entry missing a required field is
//!   a `CompDbError`.

use std::collections::HashSet;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileCommand {
    /// The working directory of the compilation (absolute).
    pub directory: PathBuf,
    /// The main source file (absolute, normalised).
    pub file: PathBuf,
    /// Full argv including the compiler.
    pub arguments: Vec<String>,
}

#[derive(Debug, Default)]
pub struct CompDb {
    pub commands: Vec<CompileCommand>,
    /// Entries that are neither C nor C++ (assembler, Objective-C, Fortran, …), skipped.
    pub skipped_non_c: usize,
    /// Entries identical to an earlier one (same file, same argv), skipped.
    pub duplicates: usize,
    /// One line per skipped entry that could not be understood.
    pub problems: Vec<String>,
}

#[derive(Debug)]
pub enum CompDbError {
    Io { path: PathBuf, source: std::io::Error },
    Json { path: PathBuf, message: String },
    NotAnArray { path: PathBuf },
    BadEntry { path: PathBuf, index: usize, message: String },
}

impl fmt::Display for CompDbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompDbError::Io { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            CompDbError::Json { path, message } => {
                write!(f, "{} is not valid JSON: {message}", path.display())
            }
            CompDbError::NotAnArray { path } => {
                write!(f, "{} is not a compilation database: expected a JSON array of entries", path.display())
            }
            CompDbError::BadEntry { path, index, message } => {
                write!(f, "{}: entry {index}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for CompDbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CompDbError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Load `path`, which is either a `compile_commands.json` file or a directory containing one.
pub fn load(path: &Path) -> Result<CompDb, CompDbError> {
    let json_path = if path.is_dir() { path.join("compile_commands.json") } else { path.to_path_buf() };
    let text = crate::files::read_to_string(&json_path)
        .map_err(|source| CompDbError::Io { path: json_path.clone(), source })?;
    let json_abs = absolute(&json_path, &current_dir());
    // Relative `directory` fields are relative to the database's own directory.
    let base = json_abs.parent().map(Path::to_path_buf).unwrap_or_else(current_dir);
    parse(&text, &json_path, &base)
}

/// Build commands for files named on the command line (`drip check a.c b.c -- -I. -DX`), with
/// the current directory as the working directory.
pub fn from_files(files: &[PathBuf], flags: &[String]) -> CompDb {
    let cwd = current_dir();
    let mut db = CompDb::default();
    let mut seen = HashSet::new();
    for f in files {
        let file = absolute(f, &cwd);
        let mut arguments = Vec::with_capacity(flags.len() + 3);
        arguments.push("cc".to_string());
        arguments.extend(flags.iter().cloned());
        arguments.push("-c".to_string());
        arguments.push(file.to_string_lossy().into_owned());
        if language(&file, &arguments).is_none() {
            db.skipped_non_c += 1;
            continue;
        }
        if !seen.insert((file.clone(), arguments.clone())) {
            db.duplicates += 1;
            continue;
        }
        db.commands.push(CompileCommand { directory: cwd.clone(), file, arguments });
    }
    db
}

/// Parse the text of a database found at `json_path` (used in messages); relative directories
/// are resolved against `base`.
pub fn parse(text: &str, json_path: &Path, base: &Path) -> Result<CompDb, CompDbError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| CompDbError::Json { path: json_path.to_path_buf(), message: e.to_string() })?;
    let Value::Array(entries) = value else {
        return Err(CompDbError::NotAnArray { path: json_path.to_path_buf() });
    };
    let mut db = CompDb::default();
    let mut seen: HashSet<(PathBuf, Vec<String>)> = HashSet::new();
    for (index, entry) in entries.iter().enumerate() {
        let bad = |message: String| CompDbError::BadEntry { path: json_path.to_path_buf(), index, message };
        let Value::Object(obj) = entry else {
            return Err(bad("expected an object".into()));
        };
        let get_str = |key: &str| -> Result<Option<&str>, CompDbError> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.as_str())),
                Some(_) => Err(bad(format!("field `{key}` must be a string"))),
            }
        };
        let directory = get_str("directory")?.ok_or_else(|| bad("missing field `directory`".into()))?;
        let file = get_str("file")?.ok_or_else(|| bad("missing field `file`".into()))?;
        let arguments: Vec<String> = match (obj.get("arguments"), get_str("command")?) {
            (Some(Value::Array(args)), _) => {
                let mut v = Vec::with_capacity(args.len());
                for a in args {
                    match a {
                        Value::String(s) => v.push(s.clone()),
                        _ => return Err(bad("field `arguments` must be an array of strings".into())),
                    }
                }
                v
            }
            (Some(Value::Null) | None, Some(cmd)) => match shell_words::split(cmd) {
                Ok(v) => v,
                Err(e) => {
                    db.problems.push(format!(
                        "{}: entry {index} ({file}): cannot split `command`: {e}; entry skipped",
                        json_path.display()
                    ));
                    continue;
                }
            },
            (Some(_), _) => return Err(bad("field `arguments` must be an array of strings".into())),
            (None, None) => return Err(bad("missing field `arguments` or `command`".into())),
        };
        let directory = absolute(Path::new(directory), base);
        let file = absolute(Path::new(file), &directory);
        let arguments = strip_wrappers(arguments);
        if arguments.is_empty() {
            db.problems.push(format!(
                "{}: entry {index} ({}): empty command line; entry skipped",
                json_path.display(),
                file.display()
            ));
            continue;
        }
        if language(&file, &arguments).is_none() {
            db.skipped_non_c += 1;
            continue;
        }
        if !seen.insert((file.clone(), arguments.clone())) {
            db.duplicates += 1;
            continue;
        }
        db.commands.push(CompileCommand { directory, file, arguments });
    }
    Ok(db)
}

/// Drop compiler launchers in front of the real compiler (`ccache gcc -c x.c`).
fn strip_wrappers(mut args: Vec<String>) -> Vec<String> {
    const WRAPPERS: [&str; 4] = ["ccache", "sccache", "distcc", "icecc"];
    let n = args
        .iter()
        .take_while(|a| {
            let base = Path::new(a.as_str()).file_name().map(|s| s.to_string_lossy().into_owned());
            base.is_some_and(|b| WRAPPERS.contains(&b.as_str()))
        })
        .count();
    // Keep at least the compiler itself.
    if n > 0 && n < args.len() {
        args.drain(..n);
    }
    args
}

/// The language a compile command compiles its file as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    C,
    Cpp,
}

/// The language of this compilation, as a GCC/Clang driver decides it: an explicit `-x` wins
/// (the last one); otherwise a C++ driver (`g++`, `clang++`, `c++`) compiles everything as C++;
/// otherwise the extension decides (`.c`, `.h`: C; `.cc`, `.cpp`, `.cxx`, `.c++`, `.C`, `.hpp`,
/// …: C++). `None`: neither (assembler, Objective-C, an unknown extension). libclang is handed
/// the same driver name, `-x` and file (`frontend::args`), so it parses the file in the language
/// this says.
pub fn language(file: &Path, args: &[String]) -> Option<Lang> {
    let mut lang: Option<&str> = None;
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-x" {
            lang = args.get(i + 1).map(String::as_str);
            i += 2;
            continue;
        }
        if let Some(l) = a.strip_prefix("-x") {
            lang = Some(l);
        }
        i += 1;
    }
    if let Some(l) = lang {
        return match l {
            "c" | "c-header" | "cpp-output" => Some(Lang::C),
            "c++" | "c++-header" | "c++-cpp-output" => Some(Lang::Cpp),
            _ => None,
        };
    }
    let ext = file.extension().and_then(|e| e.to_str());
    let compiler = args.first().map(|c| Path::new(c).file_name().map(|s| s.to_string_lossy().into_owned()));
    if compiler.flatten().is_some_and(|c| c.contains("++")) {
        // A C++ driver compiles C and C++ sources as C++, and hands assembler to the assembler.
        return matches!(
            ext,
            Some(
                "c" | "h"
                    | "cc"
                    | "cp"
                    | "cpp"
                    | "cxx"
                    | "c++"
                    | "C"
                    | "CPP"
                    | "hh"
                    | "hpp"
                    | "hxx"
                    | "H"
                    | "ii"
                    | "tcc"
            )
        )
        .then_some(Lang::Cpp);
    }
    match ext {
        Some("c" | "h") => Some(Lang::C),
        Some("cc" | "cp" | "cpp" | "cxx" | "c++" | "C" | "CPP" | "hh" | "hpp" | "hxx" | "H" | "ii" | "tcc") => {
            Some(Lang::Cpp)
        }
        _ => None,
    }
}

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
}

/// `p` made absolute against `base`, then lexically normalised.
pub fn absolute(p: &Path, base: &Path) -> PathBuf {
    if p.is_absolute() {
        normalize(p)
    } else {
        normalize(&base.join(p))
    }
}

/// Remove `.` components and fold `dir/..` without touching the file system. (Symlinks could make
/// `a/link/..` differ from `a`; compilation databases practically never rely on that, and a stable
/// spelling matters more for deduplication.)
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let popped = matches!(out.components().next_back(), Some(Component::Normal(_))) && out.pop();
                if !popped && !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> CompDb {
        match parse(text, Path::new("/proj/build/compile_commands.json"), Path::new("/proj/build")) {
            Ok(db) => db,
            Err(e) => panic!("unexpected error: {e}"),
        }
    }

    fn parse_err(text: &str) -> String {
        match parse(text, Path::new("/p/compile_commands.json"), Path::new("/p")) {
            Ok(db) => panic!("expected an error, got {db:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn arguments_and_command_forms() {
        let db = parse_ok(
            r#"[
              {"directory": "/proj", "file": "a.c", "arguments": ["gcc", "-c", "a.c", "-DX=1"]},
              {"directory": "/proj/sub", "file": "../b.c", "command": "cc -c '../b.c' -DMSG=\"hi there\""}
            ]"#,
        );
        assert_eq!(db.commands.len(), 2);
        assert_eq!(db.commands[0].file, PathBuf::from("/proj/a.c"));
        assert_eq!(db.commands[0].arguments, ["gcc", "-c", "a.c", "-DX=1"]);
        assert_eq!(db.commands[1].file, PathBuf::from("/proj/b.c"));
        assert_eq!(db.commands[1].directory, PathBuf::from("/proj/sub"));
        assert_eq!(db.commands[1].arguments, ["cc", "-c", "../b.c", "-DMSG=hi there"]);
    }

    #[test]
    fn relative_directory_is_relative_to_the_database() {
        let db = parse_ok(r#"[{"directory": "..", "file": "./src/./x.c", "arguments": ["cc", "x.c"]}]"#);
        assert_eq!(db.commands[0].directory, PathBuf::from("/proj"));
        assert_eq!(db.commands[0].file, PathBuf::from("/proj/src/x.c"));
    }

    #[test]
    fn languages_are_the_drivers() {
        let lang = |f: &str, a: &[&str]| language(Path::new(f), &a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(lang("a.c", &["cc", "-c", "a.c"]), Some(Lang::C));
        assert_eq!(lang("a.cpp", &["cc", "-c", "a.cpp"]), Some(Lang::Cpp));
        assert_eq!(lang("a.C", &["gcc", "-c", "a.C"]), Some(Lang::Cpp));
        assert_eq!(lang("a.c", &["/usr/bin/g++", "-c", "a.c"]), Some(Lang::Cpp));
        assert_eq!(lang("a.cc", &["cc", "-x", "c", "-c", "a.cc"]), Some(Lang::C));
        assert_eq!(lang("a.c", &["cc", "-xc++", "-c", "a.c"]), Some(Lang::Cpp));
        assert_eq!(lang("a.S", &["c++", "-c", "a.S"]), None);
        assert_eq!(lang("a.m", &["cc", "-c", "a.m"]), None);
        assert_eq!(lang("a.c", &["cc", "-x", "assembler", "-c", "a.c"]), None);
    }

    #[test]
    fn duplicates_and_non_c_are_counted() {
        let db = parse_ok(
            r#"[
              {"directory": "/p", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},
              {"directory": "/p", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},
              {"directory": "/p", "file": "a.c", "arguments": ["cc", "-O2", "-c", "a.c"]},
              {"directory": "/p", "file": "b.cpp", "arguments": ["c++", "-c", "b.cpp"]},
              {"directory": "/p", "file": "s.S", "arguments": ["cc", "-c", "s.S"]},
              {"directory": "/p", "file": "c.c", "arguments": ["g++", "-c", "c.c"]},
              {"directory": "/p", "file": "d.cc", "arguments": ["cc", "-x", "c", "-c", "d.cc"]},
              {"directory": "/p", "file": "e.c", "arguments": ["cc", "-xc++", "-c", "e.c"]}
            ]"#,
        );
        let files: Vec<_> = db.commands.iter().map(|c| c.file.display().to_string()).collect();
        assert_eq!(files, ["/p/a.c", "/p/a.c", "/p/b.cpp", "/p/c.c", "/p/d.cc", "/p/e.c"]);
        assert_eq!(db.duplicates, 1);
        assert_eq!(db.skipped_non_c, 1);
    }

    #[test]
    fn compiler_wrappers_are_dropped() {
        let db = parse_ok(r#"[{"directory": "/p", "file": "a.c", "command": "/usr/bin/ccache gcc -c a.c"}]"#);
        assert_eq!(db.commands[0].arguments, ["gcc", "-c", "a.c"]);
    }

    #[test]
    fn bad_command_is_a_problem_not_an_error() {
        let db = parse_ok(r#"[{"directory": "/p", "file": "a.c", "command": "cc 'unterminated"}]"#);
        assert!(db.commands.is_empty());
        assert_eq!(db.problems.len(), 1);
        assert!(db.problems[0].contains("cannot split"), "{:?}", db.problems);
    }

    #[test]
    fn malformed_databases_are_errors() {
        assert!(parse_err("{").contains("is not valid JSON"));
        assert!(parse_err(r#"{"a": 1}"#).contains("expected a JSON array"));
        assert!(parse_err(r#"[{"file": "a.c", "command": "cc a.c"}]"#).contains("entry 0: missing field `directory`"));
        assert!(parse_err(r#"[{"directory": "/", "command": "cc a.c"}]"#).contains("missing field `file`"));
        assert!(parse_err(r#"[{"directory": "/", "file": "a.c"}]"#).contains("`arguments` or `command`"));
        assert!(parse_err(r#"[{"directory": "/", "file": "a.c", "arguments": [1]}]"#).contains("array of strings"));
        assert!(parse_err("[3]").contains("expected an object"));
        let e = parse_err("[3]");
        assert!(!e.ends_with('.'), "{e}");
    }

    #[test]
    fn load_accepts_a_directory_and_reports_missing_files() {
        let dir = std::env::temp_dir().join(format!("drip-compdb-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let json = dir.join("compile_commands.json");
        let written = std::fs::write(&json, r#"[{"directory": ".", "file": "x.c", "arguments": ["cc", "-c", "x.c"]}]"#);
        assert!(written.is_ok());
        let db = load(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        match db {
            Ok(db) => assert_eq!(db.commands[0].file, normalize(&dir.join("x.c"))),
            Err(e) => panic!("{e}"),
        }
        let missing = load(Path::new("/nonexistent/compile_commands.json"));
        assert!(matches!(missing, Err(CompDbError::Io { .. })));
    }

    #[test]
    fn from_files_builds_commands() {
        let db = from_files(
            &[PathBuf::from("/x/a.c"), PathBuf::from("/x/a.c"), PathBuf::from("/x/b.cpp"), PathBuf::from("/x/s.s")],
            &["-I.".to_string()],
        );
        assert_eq!(db.commands.len(), 2);
        assert_eq!(db.duplicates, 1);
        assert_eq!(db.skipped_non_c, 1);
        assert_eq!(db.commands[0].arguments, ["cc", "-I.", "-c", "/x/a.c"]);
    }

    #[test]
    fn normalize_paths() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../a")), PathBuf::from("/a"));
        assert_eq!(normalize(Path::new("a/../../b")), PathBuf::from("../b"));
    }
}
