//! From the journal to `compile_commands.json`: classify every recorded compiler run, merge the
//! translation units with the database already there, and write it atomically.
//!
//! Input: the journal's JSON lines (`record::Record`), the existing database's text if any.
//! Output: the merged database (arguments form, absolute `directory`, `file` and `output`),
//! and counts of everything that was skipped, replaced or dropped.
//! Invariants:
//! - the output depends only on the set of entries, never on the order parallel compiles
//!   finished in: entries are sorted by file, output, directory and arguments;
//! - one entry per (file, output): a compile recorded later in the journal replaces an earlier
//!   one, and a captured compile replaces an existing entry for the same file whose output is
//!   the same or unknown; identical entries are counted once;
//! - an entry whose file is not a regular file when the build is over (configure's
//!   `conftest.c`, a generated temporary), or whose directory is gone (CMake compiles its ABI
//!   probe, a file that stays in `/usr/share`, in a scratch folder it deletes), is dropped and
//!   counted, captured or existing;
//! - an existing entry that cannot be read is kept as it is and counted; nothing is dropped
//!   without a count.

use super::argv::{self, Invocation, Lang, SkipReason};
use super::record::Record;
use crate::compdb;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One translation unit the build compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub directory: PathBuf,
    pub file: PathBuf,
    pub arguments: Vec<String>,
    pub output: Option<PathBuf>,
    pub lang: Lang,
}

impl Entry {
    fn to_json(&self) -> Value {
        let mut v = json!({
            "directory": self.directory.to_string_lossy(),
            "file": self.file.to_string_lossy(),
            "arguments": self.arguments,
        });
        if let Some(o) = &self.output {
            v["output"] = json!(o.to_string_lossy());
        }
        v
    }

    /// The entry as a compile command for `drip check`'s front end.
    pub fn command(&self) -> compdb::CompileCommand {
        compdb::CompileCommand {
            directory: self.directory.clone(),
            file: self.file.clone(),
            arguments: self.arguments.clone(),
        }
    }
}

/// What the journal held.
#[derive(Debug, Default)]
pub struct Captured {
    /// Translation units, one per (file, output), in the order of their last compile.
    pub entries: Vec<Entry>,
    /// Compiler runs recorded.
    pub runs: usize,
    /// Compiles of a file and output compiled again later in the same build.
    pub recompiled: usize,
    /// Runs that were not compiles, by reason.
    pub skipped: BTreeMap<&'static str, usize>,
    /// Journal lines that are not records (a torn write on a file system without atomic appends).
    pub unreadable: usize,
    /// Link steps (executables, shared libraries, archives), in journal order (`links.rs`).
    pub links: Vec<crate::link::LinkRecord>,
}

/// The translation units of one compiler run, with absolute paths.
pub fn entries_of(record: &Record) -> Result<Vec<Entry>, SkipReason> {
    let dir = compdb::normalize(Path::new(&record.directory));
    match argv::classify(&record.arguments) {
        Invocation::Skip(r) => Err(r),
        Invocation::Compile(units) => Ok(units
            .into_iter()
            .map(|u| Entry {
                file: compdb::absolute(Path::new(&u.file), &dir),
                output: u.output.map(|o| compdb::absolute(Path::new(&o), &dir)),
                arguments: u.arguments,
                lang: u.lang,
                directory: dir.clone(),
            })
            .collect()),
    }
}

/// Parse one journal line.
pub fn parse_line(line: &str) -> Option<Record> {
    serde_json::from_str(line).ok()
}

/// Classify every run in the journal's text.
pub fn read_journal(text: &str) -> Captured {
    let mut c = Captured::default();
    let mut index: BTreeMap<(PathBuf, Option<PathBuf>), usize> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Some(record) = parse_line(line) else {
            c.unreadable += 1;
            continue;
        };
        c.runs += 1;
        c.links.extend(super::links::link_of(&record));
        if record.arguments.first().and_then(|a| a.rsplit('/').next()).is_some_and(super::links::is_archiver_name) {
            *c.skipped.entry("archive").or_default() += 1;
            continue;
        }
        match entries_of(&record) {
            Err(reason) => *c.skipped.entry(reason.name()).or_default() += 1,
            Ok(entries) => {
                for e in entries {
                    let key = (e.file.clone(), e.output.clone());
                    match index.get(&key) {
                        Some(&i) => {
                            c.recompiled += 1;
                            c.entries[i] = e;
                        }
                        None => {
                            index.insert(key, c.entries.len());
                            c.entries.push(e);
                        }
                    }
                }
            }
        }
    }
    c
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Entries in the written database.
    pub total: usize,
    /// Captured units with no entry before.
    pub added: usize,
    /// Captured units that replaced a different entry.
    pub replaced: usize,
    /// Captured units identical to the entry they replaced.
    pub unchanged: usize,
    /// Existing entries kept as they were (files this build did not compile).
    pub kept: usize,
    /// Existing entries kept without being understood (no `file`, not an object…).
    pub kept_unreadable: usize,
    /// Captured units whose file or directory no longer exists (configure tests, CMake's
    /// try_compile scratch folders, temporaries): dropped.
    pub vanished: usize,
    /// Existing entries whose file or directory no longer exists: dropped.
    pub stale: usize,
}

/// The key of an existing entry: its absolute file and output (from `output`, else from `-o`).
fn existing_key(v: &Value, db_dir: &Path) -> Option<(PathBuf, Option<PathBuf>, PathBuf)> {
    let directory = compdb::absolute(Path::new(v.get("directory")?.as_str()?), db_dir);
    let file = compdb::absolute(Path::new(v.get("file")?.as_str()?), &directory);
    let output = match v.get("output").and_then(Value::as_str) {
        Some(o) => Some(o.to_string()),
        None => {
            let args: Vec<String> = match (v.get("arguments"), v.get("command").and_then(Value::as_str)) {
                (Some(Value::Array(a)), _) => a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
                (_, Some(cmd)) => shell_words::split(cmd).ok()?,
                _ => return None,
            };
            crate::link::explicit_output(&args)
        }
    };
    Some((file, output.map(|o| compdb::absolute(Path::new(&o), &directory)), directory))
}

/// Merge captured units into the existing database (`existing`: its parsed JSON array, if any).
/// `exists` says whether a path is still there: a file a regular file, a directory a directory
/// (a parameter, so tests need no files).
pub fn merge(
    existing: &[Value],
    db_dir: &Path,
    captured: &[Entry],
    exists: &dyn Fn(&Path) -> bool,
) -> (Vec<Value>, MergeReport) {
    let mut report = MergeReport::default();
    let mut fresh: Vec<&Entry> = Vec::new();
    for e in captured {
        if exists(&e.file) && exists(&e.directory) {
            fresh.push(e);
        } else {
            report.vanished += 1;
        }
    }
    // For each captured unit, the existing entries it supersedes.
    let mut superseded_by: Vec<Vec<Value>> = vec![Vec::new(); fresh.len()];
    let mut unreadable = Vec::new();
    let mut kept: Vec<(PathBuf, Option<PathBuf>, Value)> = Vec::new();
    for v in existing {
        let Some((file, output, dir)) = existing_key(v, db_dir) else {
            report.kept_unreadable += 1;
            unreadable.push(v.clone());
            continue;
        };
        let by = fresh.iter().position(|e| e.file == file && (output.is_none() || e.output == output));
        match by {
            Some(i) => superseded_by[i].push(v.clone()),
            None if !exists(&file) || !exists(&dir) => report.stale += 1,
            None => kept.push((file, output, v.clone())),
        }
    }
    report.kept = kept.len();
    let mut rows: Vec<(PathBuf, Option<PathBuf>, Value)> = kept;
    for (e, old) in fresh.iter().zip(&superseded_by) {
        let v = e.to_json();
        if old.is_empty() {
            report.added += 1;
        } else if old.contains(&v) {
            report.unchanged += 1;
        } else {
            report.replaced += 1;
        }
        rows.push((e.file.clone(), e.output.clone(), v));
    }
    rows.sort_by(|a, b| (&a.0, &a.1, a.2.to_string()).cmp(&(&b.0, &b.1, b.2.to_string())));
    let mut out = unreadable;
    out.extend(rows.into_iter().map(|(_, _, v)| v));
    report.total = out.len();
    (out, report)
}

/// Write `text` to `path` through a temporary file in the same directory and a rename, so a
/// reader never sees half a database.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(dir: &str, args: &str) -> String {
        let r = Record { directory: dir.to_string(), arguments: args.split_whitespace().map(str::to_string).collect() };
        serde_json::to_string(&r).expect("json")
    }

    fn files(entries: &[Entry]) -> Vec<String> {
        entries.iter().map(|e| e.file.display().to_string()).collect()
    }

    #[test]
    fn journal_runs_are_classified_and_made_absolute() {
        let text = [
            rec("/p", "/usr/bin/gcc --version"),
            rec("/p/src", "/usr/bin/gcc -c ../lib/a.c -o ../obj/a.o"),
            rec("/p", "/usr/bin/gcc -c b.c c.c"),
            "{\"directory\": \"/p\", \"argu".to_string(),
            rec("/p", "/usr/bin/gcc -o prog obj/a.o b.o c.o -lm"),
            rec("/p", "/usr/bin/gcc -E b.c"),
            rec("/p", "/usr/bin/g++ -c d.cpp"),
            // b.c again, with other flags: the later compile wins.
            rec("/p", "/usr/bin/gcc -O2 -c b.c"),
        ]
        .join("\n");
        let c = read_journal(&text);
        assert_eq!(c.runs, 7);
        assert_eq!(c.unreadable, 1);
        assert_eq!(c.recompiled, 1);
        assert_eq!(files(&c.entries), ["/p/lib/a.c", "/p/b.c", "/p/c.c", "/p/d.cpp"]);
        assert_eq!(c.entries[0].output, Some(PathBuf::from("/p/obj/a.o")));
        assert_eq!(c.entries[0].directory, PathBuf::from("/p/src"));
        assert_eq!(c.entries[1].arguments, ["/usr/bin/gcc", "-O2", "-c", "b.c"]);
        assert_eq!(c.entries[1].output, Some(PathBuf::from("/p/b.o")));
        assert_eq!(c.entries[3].lang, Lang::Cxx);
        assert_eq!(c.skipped.get("probe"), Some(&1));
        assert_eq!(c.skipped.get("link-only"), Some(&1));
        assert_eq!(c.skipped.get("preprocess-only"), Some(&1));
    }

    fn entry(file: &str, output: Option<&str>, args: &str) -> Entry {
        Entry {
            directory: PathBuf::from("/p"),
            file: PathBuf::from(file),
            arguments: args.split_whitespace().map(str::to_string).collect(),
            output: output.map(PathBuf::from),
            lang: Lang::C,
        }
    }

    #[test]
    fn merge_replaces_keeps_prunes_and_sorts() {
        let existing: Vec<Value> = serde_json::from_str(
            r#"[
              {"directory": "/p", "file": "z.c", "arguments": ["cc", "-c", "z.c", "-o", "z.o"]},
              {"directory": "/p", "file": "a.c", "command": "cc -O0 -c a.c -o a.o"},
              {"directory": "/p", "file": "/p/b.c", "arguments": ["cc", "-c", "b.c"], "output": "/p/b.o"},
              {"directory": "/p", "file": "gone.c", "arguments": ["cc", "-c", "gone.c"]},
              {"directory": "/tmp/old", "file": "/p/probe.c", "arguments": ["cc", "-c", "/p/probe.c"]},
              {"directory": "/p", "file": "u.c", "arguments": ["cc", "-c", "u.c"]},
              {"no": "file"}
            ]"#,
        )
        .expect("json");
        let captured = vec![
            entry("/p/a.c", Some("/p/a.o"), "cc -O2 -c a.c -o a.o"),
            entry("/p/b.c", Some("/p/b.o"), "cc -c b.c"),
            // u.c's existing entry has no known output: the captured one replaces it.
            entry("/p/u.c", Some("/p/u.o"), "cc -c u.c"),
            entry("/p/new.c", Some("/p/new.o"), "cc -c new.c"),
            entry("/tmp/conftest.c", Some("/tmp/conftest.o"), "cc -c conftest.c"),
            // CMake's ABI probe: the file stays, the scratch folder it was compiled in is gone.
            Entry {
                directory: PathBuf::from("/tmp/TryCompile-x"),
                ..entry("/p/abi.c", Some("/tmp/TryCompile-x/abi.o"), "cc -c /p/abi.c")
            },
        ];
        let exists = |p: &Path| !p.ends_with("gone.c") && !p.starts_with("/tmp");
        let (db, report) = merge(&existing, Path::new("/p"), &captured, &exists);
        assert_eq!(
            report,
            MergeReport {
                total: 6,
                added: 1,
                replaced: 2,
                unchanged: 1,
                kept: 1,
                kept_unreadable: 1,
                vanished: 2,
                stale: 2
            }
        );
        let order: Vec<String> =
            db.iter().map(|v| v.get("file").and_then(Value::as_str).unwrap_or("?").to_string()).collect();
        assert_eq!(order, ["?", "/p/a.c", "/p/b.c", "/p/new.c", "/p/u.c", "z.c"]);
        assert_eq!(db[1]["arguments"][1], "-O2");
        assert_eq!(db[1]["output"], "/p/a.o");
    }

    #[test]
    fn merge_order_does_not_depend_on_capture_order() {
        let a = entry("/p/a.c", Some("/p/a.o"), "cc -c a.c");
        let b = entry("/p/b.c", Some("/p/b.o"), "cc -c b.c");
        let yes = |_: &Path| true;
        let (one, _) = merge(&[], Path::new("/p"), &[a.clone(), b.clone()], &yes);
        let (two, _) = merge(&[], Path::new("/p"), &[b, a], &yes);
        assert_eq!(one, two);
    }

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = std::env::temp_dir().join(format!("drip-merge-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let p = dir.join("compile_commands.json");
        write_atomically(&p, "[1]").expect("write");
        write_atomically(&p, "[2]").expect("write again");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "[2]");
        let leftovers = std::fs::read_dir(&dir).expect("dir").count();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }
}
