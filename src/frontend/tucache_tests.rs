//! Tests of translation units in the incremental cache: keys, manifests, invalidation, and
//! `extract_tu`, against real libclang parses.

use super::*;
use crate::compdb;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir =
        std::env::temp_dir().join(format!("drip-tucache-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

const MAIN: &str =
    "#include <stdlib.h>\n#include \"x.h\"\nint f(void) { return X; }\nvoid *g(void) { return malloc(Y); }\n";

/// A project: a.c includes x.h, which includes y.h.
fn project() -> (PathBuf, CompileCommand) {
    let dir = scratch();
    write(&dir, "x.h", "#include \"y.h\"\n#define X 1\n");
    write(&dir, "y.h", "#define Y 8\n");
    let a = write(&dir, "a.c", MAIN);
    let db = compdb::from_files(&[a], &["-I.".to_string()]);
    let cmd = db.commands.into_iter().next().expect("one command");
    (dir, cmd)
}

fn key(cmd: &CompileCommand) -> Digest {
    tucache::tu_key(&compile_argv(cmd).0, &cmd.file, &clang::clang_version()).expect("key")
}

fn build(cmd: &CompileCommand, cache: &Cache) -> (Program, FrontendReport) {
    build_program_cached(
        std::slice::from_ref(cmd),
        &FrontendOptions { jobs: 1, verbose: false, progress: None, links: None, isolation: None, run_deadline: None },
        cache,
        &ContentDigests::default(),
    )
}

#[test]
fn the_tu_key_covers_argv_file_and_libclang() {
    let argv: Vec<String> = ["cc", "-working-directory=/w", "-DA", "-c", "a.c"].iter().map(|s| s.to_string()).collect();
    let k = |argv: &[String], file: &str, v: &str| tucache::tu_key(argv, Path::new(file), v).expect("key");
    let base = k(&argv, "/w/a.c", "clang 19");
    assert_eq!(base, k(&argv, "/w/a.c", "clang 19"));
    let mut other = argv.clone();
    other[2] = "-DB".to_string();
    assert_ne!(base, k(&other, "/w/a.c", "clang 19"), "a flag");
    let mut other = argv.clone();
    other[1] = "-working-directory=/v".to_string();
    assert_ne!(base, k(&other, "/w/a.c", "clang 19"), "the working directory");
    assert_ne!(base, k(&argv, "/w/b.c", "clang 19"), "the main file");
    assert_ne!(base, k(&argv, "/w/a.c", "clang 20"), "libclang");
}

#[test]
fn the_manifest_lists_every_file_the_tu_read() {
    let (dir, cmd) = project();
    let cache = Cache::open(&dir.join(".drip"));
    assert_eq!(extract_tu(&cmd, &cache), Extracted::Stored);
    let files = tucache::manifest_files(&cache, key(&cmd)).expect("stored");
    for name in ["a.c", "x.h", "y.h"] {
        assert!(files.contains(&dir.join(name)), "{name} in {files:?}");
    }
    assert!(files.iter().any(|f| f.ends_with("stdlib.h")), "system headers too: {files:?}");
    assert!(files.iter().all(|f| f.is_absolute()), "{files:?}");
}

#[test]
fn an_extracted_tu_is_loaded_not_parsed_and_lowers_the_same() {
    let (dir, cmd) = project();
    let cache = Cache::open(&dir.join(".drip"));
    assert_eq!(extract_tu(&cmd, &cache), Extracted::Stored);
    assert_eq!(extract_tu(&cmd, &cache), Extracted::AlreadyCached);
    assert_eq!(cache.stats().tus_parsed, 1);

    let (cached, rep) = build(&cmd, &cache);
    assert_eq!((cache.stats().tus_loaded, cache.stats().tus_parsed), (1, 1), "loaded, not parsed again");
    assert!(rep.tu_digests[0].is_some());
    let (fresh, _) = build(&cmd, &Cache::disabled());
    assert_eq!(crate::irdump::dump_program(&cached), crate::irdump::dump_program(&fresh));
    assert_eq!(cached.files, fresh.files);
}

#[test]
fn editing_an_included_header_invalidates_the_entry() {
    let (dir, cmd) = project();
    let cache = Cache::open(&dir.join(".drip"));
    build(&cmd, &cache);
    let before = fingerprint(std::slice::from_ref(&cmd), &cache, &ContentDigests::default());
    assert!(before[0].is_some());
    // Two levels down, and the same length: only the contents tell.
    write(&dir, "y.h", "#define Y 9\n");
    assert_eq!(fingerprint(std::slice::from_ref(&cmd), &cache, &ContentDigests::default()), vec![None]);
    let (prog, rep) = build(&cmd, &cache);
    assert_eq!(cache.stats().tus_parsed, 2, "parsed again");
    let g = prog.functions.iter().find(|f| f.name == "g").expect("g");
    let dump = crate::irdump::dump_function(&prog, g);
    assert!(dump.contains("malloc(9)"), "the new header was read: {dump}");
    assert_ne!(rep.tu_digests[0], before[0]);
    assert!(fingerprint(std::slice::from_ref(&cmd), &cache, &ContentDigests::default())[0].is_some(), "stored again");
}

#[test]
fn a_tu_missing_a_header_is_not_cached() {
    let dir = scratch();
    let a = write(&dir, "a.c", "#include \"later.h\"\nint f(void) { return LATER; }\n");
    let cmd = compdb::from_files(&[a], &[]).commands.remove(0);
    let cache = Cache::open(&dir.join(".drip"));
    let e = extract_tu(&cmd, &cache);
    assert!(matches!(&e, Extracted::NotStored(m) if m.contains("later.h")), "{e:?}");
    build(&cmd, &cache);
    assert_eq!(cache.stats().tus_not_cacheable, 2);
    // Once the header exists, the TU must see it: nothing stale was kept.
    write(&dir, "later.h", "#define LATER 1\n");
    let (_, rep) = build(&cmd, &cache);
    assert_eq!(rep.parse_errors, 0, "{:?}", rep.messages);
    assert!(rep.tu_digests[0].is_some(), "cached now");
}

#[test]
fn messages_of_a_cached_tu_are_shown_like_fresh_ones() {
    let dir = scratch();
    let a = write(&dir, "a.c", "int f(void) { return undeclared_thing; }\n");
    let cmd = compdb::from_files(&[a], &[]).commands.remove(0);
    let cache = Cache::open(&dir.join(".drip"));
    let (_, fresh) = build(&cmd, &cache);
    let (_, cached) = build(&cmd, &cache);
    assert_eq!(cache.stats().tus_loaded, 1);
    assert_eq!(fresh.messages, cached.messages);
    assert_eq!((fresh.parse_errors, fresh.tus_with_errors), (cached.parse_errors, cached.tus_with_errors));
    assert!(cached.messages.iter().any(|m| m.contains("undeclared_thing")), "{:?}", cached.messages);
}

#[test]
fn extract_tu_reports_what_it_cannot_parse() {
    let dir = scratch();
    let cmd = CompileCommand {
        directory: dir.clone(),
        file: dir.join("gone.c"),
        arguments: vec!["cc".into(), "-c".into(), dir.join("gone.c").display().to_string()],
    };
    let cache = Cache::open(&dir.join(".drip"));
    assert!(matches!(extract_tu(&cmd, &cache), Extracted::Failed(m) if m.contains("no such file")));
    assert!(matches!(extract_tu(&cmd, &Cache::disabled()), Extracted::NotStored(_)));
}
