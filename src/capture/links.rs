//! Link steps from the journal: which objects, archives and sources make which executable,
//! shared library or archive, written to `drip_links.json` beside the compile database.
//!
//! Input: journal `Record`s of compiler drivers that linked (`cc -o prog a.o libx.a -lm`,
//! `cc -shared -o libx.so ..`, `cc -o prog a.c b.c`, `cc -r -o all.o ..`) and of archivers
//! (`ar rcs libx.a a.o b.o`), and the link file already there.
//! Output: `link::LinkRecord`s with absolute paths, merged with the existing file and written
//! atomically.
//! Invariants:
//! - pure classification (`link_of` reads no file); the merge keeps one record per output: a
//!   later link replaces an earlier one, while archive members accumulate (`ar r` adds to an
//!   archive, and an incremental build re-archives only what changed);
//! - a record whose output no longer exists when the build is over (configure's `conftest`) is
//!   dropped; the written file is sorted, so it does not depend on the order links finished in.

use super::argv::{self, Invocation, SkipReason};
use super::record::Record;
use crate::compdb;
use crate::link::{LinkKind, LinkRecord};
use std::collections::BTreeMap;
use std::path::Path;

/// Is `name` an archiver: `ar`, `gcc-ar`, `llvm-ar`, with an optional target prefix
/// (`x86_64-linux-gnu-ar`) and version suffix (`llvm-ar-19`)?
pub fn is_archiver_name(name: &str) -> bool {
    let mut base = name;
    if let Some((head, version)) = name.rsplit_once('-') {
        if version.starts_with(|c: char| c.is_ascii_digit()) && version.chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            base = head;
        }
    }
    base == "ar" || base.ends_with("-ar")
}

fn absolute(p: &str, dir: &Path) -> String {
    compdb::absolute(Path::new(p), dir).display().to_string()
}

/// The link step one recorded run made, if it made one.
pub fn link_of(record: &Record) -> Option<LinkRecord> {
    let dir = compdb::normalize(Path::new(&record.directory));
    let program = Path::new(record.arguments.first()?).file_name()?.to_str()?;
    if is_archiver_name(program) {
        return archive_of(&record.arguments[1..], &dir);
    }
    match argv::classify(&record.arguments) {
        Invocation::Skip(SkipReason::Link) => {}
        // Compiled and linked in one command: every unit's object went to a temporary file.
        Invocation::Compile(units) if units.iter().all(|u| u.output.is_none()) => {}
        _ => return None,
    }
    let mut r = LinkRecord {
        output: absolute("a.out", &dir),
        kind: LinkKind::Executable,
        directory: dir.display().to_string(),
        inputs: Vec::new(),
        libraries: Vec::new(),
        search: Vec::new(),
    };
    let mut it = record.arguments.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" => r.output = absolute(it.next()?, &dir),
            "-shared" => r.kind = LinkKind::SharedLibrary,
            "-r" | "-Wl,-r" | "--relocatable" => r.kind = LinkKind::Archive,
            "-l" => r.libraries.push(it.next()?.clone()),
            "-L" => r.search.push(absolute(it.next()?, &dir)),
            _ if a.starts_with("-l") => r.libraries.push(a[2..].to_string()),
            _ if a.starts_with("-L") => r.search.push(absolute(&a[2..], &dir)),
            _ if a.starts_with("-o") && !a.starts_with("-objc") => r.output = absolute(&a[2..], &dir),
            _ if crate::frontend::args::takes_value(a) => {
                it.next();
            }
            _ if a.starts_with('-') && a.len() > 1 => {}
            _ => r.inputs.push(absolute(a, &dir)),
        }
    }
    Some(r)
}

/// `ar` with an operation that puts members in (`r`, `q`): the archive and its members.
fn archive_of(args: &[String], dir: &Path) -> Option<LinkRecord> {
    let mut it = args.iter().filter(|a| !a.starts_with("--"));
    let key = it.next()?.trim_start_matches('-');
    if !key.contains(['r', 'q']) {
        return None;
    }
    // `a`, `b`, `i` name a member to insert relative to; `N` a count: positional arguments
    // before the archive.
    for _ in key.chars().filter(|c| matches!(c, 'a' | 'b' | 'i' | 'N')) {
        it.next()?;
    }
    let archive = it.next()?;
    Some(LinkRecord {
        output: absolute(archive, dir),
        kind: LinkKind::Archive,
        directory: dir.display().to_string(),
        inputs: it.map(|m| absolute(m, dir)).collect(),
        libraries: Vec::new(),
        search: Vec::new(),
    })
}

/// The link records of the journal merged into `existing`, one per output, sorted; records whose
/// output `exists` says is gone are dropped.
pub fn merge(existing: Vec<LinkRecord>, captured: Vec<LinkRecord>, exists: &dyn Fn(&Path) -> bool) -> Vec<LinkRecord> {
    let mut by_output: BTreeMap<String, LinkRecord> = BTreeMap::new();
    for r in existing.into_iter().chain(captured) {
        match by_output.get_mut(&r.output) {
            Some(old) if old.kind == LinkKind::Archive && r.kind == LinkKind::Archive => {
                for m in r.inputs {
                    if !old.inputs.contains(&m) {
                        old.inputs.push(m);
                    }
                }
            }
            _ => {
                by_output.insert(r.output.clone(), r);
            }
        }
    }
    by_output.into_values().filter(|r| exists(Path::new(&r.output))).collect()
}

/// Write the link steps of this build into `drip_links.json` beside `cdb`: merged with what is
/// there (an unreadable file is replaced). Returns how many link steps the file holds.
pub fn write(cdb: &Path, captured: Vec<LinkRecord>) -> Result<usize, String> {
    let path = cdb.parent().unwrap_or(Path::new(".")).join(crate::link::FILE_NAME);
    if captured.is_empty() && !path.exists() {
        return Ok(0);
    }
    let existing: Vec<LinkRecord> =
        crate::files::read(&path).ok().and_then(|t| serde_json::from_slice(&t).ok()).unwrap_or_default();
    let merged = merge(existing, captured, &|p| p.is_file());
    let text = serde_json::to_string_pretty(&merged).map_err(|e| e.to_string())? + "\n";
    super::merge::write_atomically(&path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(merged.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(dir: &str, args: &[&str]) -> Record {
        Record { directory: dir.to_string(), arguments: args.iter().map(|s| s.to_string()).collect() }
    }

    #[test]
    fn links_and_archives_are_read_from_their_argv() {
        let l =
            link_of(&rec("/b", &["/usr/bin/cc", "-O2", "-o", "prog", "main.o", "lib/libx.a", "-Llib", "-lm", "-lfoo"]))
                .expect("a link");
        assert_eq!(l.output, "/b/prog");
        assert_eq!(l.kind, LinkKind::Executable);
        assert_eq!(l.inputs, ["/b/main.o", "/b/lib/libx.a"]);
        assert_eq!(l.libraries, ["m", "foo"]);
        assert_eq!(l.search, ["/b/lib"]);
        let s = link_of(&rec("/b", &["gcc", "-shared", "-fPIC", "-o", "libx.so", "a.o", "b.o"])).expect("a library");
        assert_eq!((s.kind, s.inputs.len()), (LinkKind::SharedLibrary, 2));
        let both = link_of(&rec("/b", &["cc", "-o", "t", "a.c", "b.c"])).expect("compile and link");
        assert_eq!(both.inputs, ["/b/a.c", "/b/b.c"]);
        assert_eq!(link_of(&rec("/b", &["cc", "-c", "a.c"])), None, "a compile links nothing");
        assert_eq!(link_of(&rec("/b", &["cc", "--version"])), None);
        let a = link_of(&rec("/b", &["/usr/bin/ar", "rcs", "libx.a", "a.o", "sub/b.o"])).expect("an archive");
        assert_eq!((a.kind, a.output.as_str()), (LinkKind::Archive, "/b/libx.a"));
        assert_eq!(a.inputs, ["/b/a.o", "/b/sub/b.o"]);
        assert_eq!(link_of(&rec("/b", &["ar", "t", "libx.a"])), None, "listing writes nothing");
        let before = link_of(&rec("/b", &["ar", "-rb", "a.o", "libx.a", "c.o"])).expect("insert before");
        assert_eq!((before.output.as_str(), before.inputs.len()), ("/b/libx.a", 1));
        assert!(is_archiver_name("x86_64-linux-gnu-gcc-ar-12") && is_archiver_name("llvm-ar-19"));
        assert!(!is_archiver_name("arm") && !is_archiver_name("cc"));
    }

    #[test]
    fn archives_accumulate_links_replace_and_vanished_outputs_go() {
        let a1 = link_of(&rec("/b", &["ar", "rcs", "libx.a", "a.o"])).expect("ar");
        let a2 = link_of(&rec("/b", &["ar", "rcs", "libx.a", "b.o", "a.o"])).expect("ar");
        let p1 = link_of(&rec("/b", &["cc", "-o", "prog", "old.o"])).expect("link");
        let p2 = link_of(&rec("/b", &["cc", "-o", "prog", "new.o"])).expect("link");
        let gone = link_of(&rec("/b", &["cc", "-o", "conftest", "conftest.o"])).expect("link");
        let m = merge(vec![a1, p1], vec![a2, p2, gone], &|p| !p.ends_with("conftest"));
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].inputs, ["/b/a.o", "/b/b.o"]);
        assert_eq!(m[1].inputs, ["/b/new.o"]);
    }
}
