//! Unit tests of the store: entry headers, atomic writes, rejection of anything not trusted, and
//! the digests keys are made of.

use super::*;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("drip-cache-unit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const NAME: Digest = Digest(0x0123_4567_89ab_cdef_0011_2233_4455_6677);

/// A cache holding one `Kind::Tu` entry `NAME` with meta `"manifest"` and a body of 1000 numbers.
fn with_entry(name: &str) -> (Cache, PathBuf) {
    let dir = scratch(name);
    let cache = Cache::open(&dir);
    assert!(cache.enabled(), "{:?}", cache.warning());
    let body: Vec<u64> = (0..1000).collect();
    assert!(cache.store(Kind::Tu, NAME, "manifest", &body));
    let path = cache.path(Kind::Tu, NAME);
    (cache, path)
}

fn read_back(cache: &Cache) -> Option<(String, Vec<u64>)> {
    let e = cache.open_entry(Kind::Tu, NAME)?;
    let meta: String = e.meta(cache)?;
    let body: Vec<u64> = e.body(cache)?;
    Some((meta, body))
}

#[test]
fn an_entry_reads_back_what_was_stored() {
    let (cache, path) = with_entry("roundtrip");
    let (meta, body) = read_back(&cache).expect("entry is trusted");
    assert_eq!(meta, "manifest");
    assert_eq!(body, (0..1000).collect::<Vec<u64>>());
    assert_eq!(cache.stats().rejected, 0);
    // Nothing else in the directory: the temporary file was renamed, not copied.
    let names: Vec<_> =
        std::fs::read_dir(path.parent().expect("parent")).expect("list").flatten().map(|e| e.file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // Another kind, or another name, is another entry.
    assert!(cache.open_entry(Kind::Scc, NAME).is_none());
    assert!(cache.open_entry(Kind::Tu, Digest(7)).is_none());
    assert_eq!(cache.stats().rejected, 0, "a missing entry is a miss, not a rejection");
}

/// Damage the entry with `damage`, and check that it is rejected, counted, and deleted.
fn rejected_after(name: &str, damage: impl FnOnce(&mut Vec<u8>)) {
    let (cache, path) = with_entry(name);
    let mut bytes = std::fs::read(&path).expect("read entry");
    damage(&mut bytes);
    std::fs::write(&path, &bytes).expect("write entry");
    assert_eq!(read_back(&cache), None, "{name}: a damaged entry must not be trusted");
    assert_eq!(cache.stats().rejected, 1, "{name}: counted once");
    assert!(!path.exists(), "{name}: deleted, so it is rebuilt");
    assert!(cache.notes().iter().any(|n| n.contains("rejected")), "{name}: explained for -v");
}

#[test]
fn truncated_entries_are_rejected() {
    for len in [0, 5, HEADER_LEN - 1, HEADER_LEN, HEADER_LEN + 3] {
        rejected_after(&format!("truncate-{len}"), |b| b.truncate(len));
    }
    rejected_after("truncate-half", |b| b.truncate(b.len() / 2));
    rejected_after("truncate-last", |b| b.truncate(b.len() - 1));
    rejected_after("extended", |b| b.push(0));
}

#[test]
fn a_flipped_byte_anywhere_is_rejected() {
    let (_, path) = with_entry("size");
    let len = std::fs::metadata(&path).expect("stat").len() as usize;
    // Every header byte, a byte of the meta section, and bytes spread over the body.
    let mut positions: Vec<usize> = (0..HEADER_LEN).collect();
    positions.extend([HEADER_LEN + 2, len / 2, len - 1]);
    for i in positions {
        rejected_after(&format!("flip-{i}"), |b| b[i] ^= 0x40);
    }
}

#[test]
fn another_format_version_is_rejected() {
    let (cache, path) = with_entry("version");
    let mut bytes = std::fs::read(&path).expect("read entry");
    bytes[8..16].copy_from_slice(&(format_version() ^ 1).to_le_bytes());
    std::fs::write(&path, &bytes).expect("write");
    assert_eq!(read_back(&cache), None);
    assert!(cache.notes().iter().any(|n| n.contains("another version")), "{:?}", cache.notes());
    // A drip of another version (another build id) writes entries this one does not trust.
    let (cache, _) = with_entry("version-2");
    let other = Cache { format: format_version() ^ 2, ..Cache::new(cache.dir.clone(), true) };
    assert_eq!(read_back(&other), None);
    assert_eq!(other.stats().rejected, 1);
}

#[test]
fn an_entry_copied_to_another_name_is_rejected() {
    let (cache, path) = with_entry("renamed");
    let other = Digest(NAME.0 + 1);
    std::fs::copy(&path, cache.path(Kind::Tu, other)).expect("copy");
    assert!(cache.open_entry(Kind::Tu, other).is_none());
    assert_eq!(cache.stats().rejected, 1);
}

#[test]
fn undecodable_sections_are_rejected_not_panicked_on() {
    let (cache, _) = with_entry("decode");
    // Well-formed entry, wrong type: the body is not a string.
    let e = cache.open_entry(Kind::Tu, NAME).expect("header ok");
    assert!(e.body::<Vec<String>>(&cache).is_none());
    assert_eq!(cache.stats().rejected, 1);
}

#[test]
fn an_unusable_directory_disables_the_cache_with_one_warning() {
    let dir = scratch("unusable");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let file = dir.join("plain-file");
    std::fs::write(&file, "x").expect("write");
    // Below a regular file: cannot be created, whoever runs the test (root included).
    let cache = Cache::open(&file.join("cache"));
    assert!(!cache.enabled());
    assert!(cache.warning().is_some_and(|w| w.contains("running without the cache")));
    assert!(!cache.store(Kind::Tu, NAME, "m", "b"));
    assert!(cache.open_entry(Kind::Tu, NAME).is_none());
    assert!(cache.stats().disabled);
    assert!(Cache::disabled().warning().is_none(), "--no-cache is not a problem");
}

#[test]
fn sweep_removes_only_old_entries_of_dead_slots() {
    let dir = scratch("sweep");
    let cache = Cache::open(&dir);
    let (live, dead_old, dead_new) = (Digest(1), Digest(2), Digest(3));
    for d in [live, dead_old, dead_new] {
        assert!(cache.store(Kind::Tu, d, &(), &()));
    }
    let old = SystemTime::now() - GRACE - Duration::from_secs(60);
    for d in [live, dead_old] {
        File::options()
            .write(true)
            .open(cache.path(Kind::Tu, d))
            .and_then(|f| f.set_modified(old))
            .expect("age the entry");
    }
    let tmp = cache.dir.join("tu").join(".tmp-1-2-abc");
    File::create(&tmp).and_then(|f| f.set_modified(old)).expect("stale temporary file");
    cache.sweep(Kind::Tu, &[live].into_iter().collect());
    assert!(cache.path(Kind::Tu, live).exists(), "used by this run");
    assert!(!cache.path(Kind::Tu, dead_old).exists(), "unused for longer than GRACE");
    assert!(cache.path(Kind::Tu, dead_new).exists(), "recently used by some run");
    assert!(!tmp.exists(), "left by a crashed writer");
}

#[test]
fn sweep_leaves_files_drip_did_not_write() {
    let dir = scratch("sweep-foreign");
    let cache = Cache::open(&dir);
    let old = SystemTime::now() - GRACE - Duration::from_secs(60);
    let tu = cache.dir.join("tu");
    // A digest-named file without drip's header, a file of another name, and a link.
    let foreign = tu.join(format!("{:032x}", 9u128));
    let other = tu.join("notes.txt");
    for f in [&foreign, &other] {
        std::fs::write(f, b"someone else's").expect("write");
        File::options().write(true).open(f).and_then(|h| h.set_modified(old)).expect("age");
    }
    let target = scratch("sweep-foreign-target");
    std::fs::write(&target, b"outside").expect("write target");
    let link = tu.join(format!("{:032x}", 10u128));
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    cache.sweep(Kind::Tu, &HashSet::new());
    assert!(foreign.exists() && other.exists(), "not drip's entries: left alone");
    assert!(link.symlink_metadata().is_ok() && target.exists(), "a link is neither followed nor removed");
}

#[test]
fn writes_never_follow_links_planted_in_the_folder() {
    let dir = scratch("links");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let target = scratch("links-target");
    std::os::unix::fs::symlink(&target, dir.join("CACHEDIR.TAG")).expect("symlink");
    let cache = Cache::open(&dir);
    assert!(cache.enabled(), "{:?}", cache.warning());
    assert!(cache.store(Kind::Tu, NAME, "manifest", &vec![1u64, 2, 3]));
    assert!(!target.exists(), "the tag is not written through a link");
    let names: Vec<String> = std::fs::read_dir(dir.join("tu"))
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec![NAME.hex()], "only the entry: temporary files are renamed or removed");
}

#[test]
fn a_folder_of_another_user_is_not_used() {
    // SAFETY: plain FFI.
    if unsafe { libc::geteuid() } != 0 {
        return; // only root can give a folder away; CI runs as root
    }
    let dir = scratch("foreign-owner");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).expect("chown");
    let cache = Cache::open(&dir);
    assert!(!cache.enabled());
    assert!(cache.warning().is_some_and(|w| w.contains("another user")), "{:?}", cache.warning());
    assert!(std::fs::read_dir(&dir).expect("list").next().is_none(), "nothing created in it");
}

#[test]
fn reading_an_entry_body_marks_it_used() {
    let (cache, path) = with_entry("touch");
    let old = SystemTime::now() - GRACE - Duration::from_secs(60);
    File::options().write(true).open(&path).and_then(|f| f.set_modified(old)).expect("age");
    read_back(&cache).expect("trusted");
    let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).expect("mtime");
    assert!(mtime > old + GRACE, "a hit refreshes the entry, so sweep keeps it");
}

#[test]
fn digests_separate_items_and_domains() {
    let d = |domain: &str, items: &[&str]| {
        let mut h = Hasher::new(domain);
        for i in items {
            h.str(i);
        }
        h.finish().expect("strings always hash")
    };
    assert_eq!(d("k", &["ab", "c"]), d("k", &["ab", "c"]), "deterministic");
    assert_ne!(d("k", &["ab", "c"]), d("k", &["a", "bc"]), "length-prefixed items");
    assert_ne!(d("k", &["ab"]), d("other", &["ab"]), "domains differ");
    let mut a = Hasher::new("v");
    a.value(&(1u32, "x"));
    let mut b = Hasher::new("v");
    b.value(&(1u32, "y"));
    assert_ne!(a.finish(), b.finish());
    assert_ne!(Digest::of(b"a"), Digest::of(b"b"));
}

#[test]
fn a_digest_is_that_of_its_items_concatenated_however_they_are_buffered() {
    // Items of every size, around and past the buffer's: the buffered digest must be the
    // one-shot digest of the same bytes.
    for sizes in [&[0usize, 3, 8][..], &[250, 7, 1], &[255, 1, 300], &[1000], &[8; 100], &[200, 200, 200, 9]] {
        let mut h = Hasher::new("d");
        let mut all = Vec::new();
        for (k, &n) in sizes.iter().enumerate() {
            let item: Vec<u8> = (0..n).map(|i| (i * 7 + k) as u8).collect();
            h.bytes(&item).u64(k as u64);
            for piece in [&(n as u64).to_le_bytes()[..], &item, &(k as u64).to_le_bytes()] {
                all.extend_from_slice(piece);
            }
        }
        let mut expected = (1u64).to_le_bytes().to_vec();
        expected.push(b'd');
        expected.extend_from_slice(&all);
        assert_eq!(h.finish(), Some(Digest::of(&expected)), "{sizes:?}");
    }
}

#[test]
fn content_digests_follow_the_file() {
    let dir = scratch("content");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let f = dir.join("a.h");
    std::fs::write(&f, "int x;").expect("write");
    let first = ContentDigests::default().get(&f).expect("readable");
    std::fs::write(&f, "int y;").expect("write");
    let memo = ContentDigests::default();
    let second = memo.get(&f).expect("readable");
    assert_ne!(first, second, "a new run sees the edit");
    assert_eq!(second, Digest::of(b"int y;"));
    assert_eq!(memo.get(&dir.join("missing.h")), None);
}

#[test]
fn one_cache_can_be_shared_by_worker_threads() {
    // A build's background extractor shares one `Cache` between its workers (`extract_tu`).
    fn shareable<T: Send + Sync>() {}
    shareable::<Cache>();
    let dir = scratch("threads");
    let cache = Cache::open(&dir);
    std::thread::scope(|s| {
        for t in 0..4u128 {
            let cache = &cache;
            s.spawn(move || {
                for i in 0..20u128 {
                    // Every thread writes every name: the last rename wins, whole.
                    assert!(cache.store(Kind::Tu, Digest(i), &t, &vec![t as u64; 100]));
                }
            });
        }
    });
    for i in 0..20u128 {
        let e = cache.open_entry(Kind::Tu, Digest(i)).expect("whole entry");
        let t: u128 = e.meta(&cache).expect("meta");
        assert_eq!(e.body::<Vec<u64>>(&cache).expect("body"), vec![t as u64; 100], "meta and body of one writer");
    }
    assert_eq!(cache.stats().rejected, 0);
}
