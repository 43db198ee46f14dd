//! The incremental cache's store: content digests, and entries on disk.
//!
//! Input: a directory (`--cache-dir`, by default `.drip/` next to the compile database), entry
//! names and keys (`Digest`s computed by the stages that own the data: `frontend` for translation
//! units, `reuse` for the analysis of call-graph SCCs and whole runs), and serialisable values.
//! Output: values stored by an earlier run (or by a concurrent one, or by a background
//! `frontend::extract_tu`), returned only when every check passes; counts and times for `--stats`.
//! Invariants:
//! - An entry is trusted only if everything matches: magic, format version (the crate version,
//!   `FORMAT` and the build id, so a drip built from other sources rejects every entry), kind,
//!   name, section lengths, both checksums, and both sections deserialize. Anything else is
//!   counted in `CacheStats::rejected`, described for `-v`, deleted, and the caller rebuilds the
//!   value and stores it again. Nothing here panics on what it reads.
//! - Entries are written to a temporary file in the same directory and renamed into place, so a
//!   reader sees a whole old entry or a whole new one, never a torn one, whatever runs in parallel
//!   (two `drip check`s, a build's background extractor) or crashes.
//! - A cache directory that cannot be created turns into one warning and a run without caching
//!   (`CacheStats::disabled`); one that exists but cannot be written is read and never written
//!   (`writable`). The cache never makes a run fail.
//! - The store knows nothing about what it stores: keys are computed by the owners of the data,
//!   which decide what a value depends on.
//!
//! Garbage: an entry's name is a *slot* (a translation unit's argv and file; a compile
//! database's options), not its content key, so a slot holds one entry and a change overwrites
//! it. Entries of slots that no longer exist are removed by `sweep` once they have been neither
//! used nor written for `GRACE`.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// Bump whenever the layout of an entry or of a cached value changes in a way the build id would
/// not catch (it does catch every source change of a build from this repository).
pub const FORMAT: u32 = 7;

/// Entries neither used nor written for this long, and not used by the current run, are deleted.
pub const GRACE: Duration = Duration::from_secs(7 * 24 * 3600);

const MAGIC: &[u8; 8] = b"DRIPCACH";
const HEADER_LEN: usize = 88;

/// The format version every entry carries: crate version, `FORMAT`, and the build id (a hash of
/// the sources drip was built from, set by build.rs).
pub fn format_version() -> u64 {
    let tag = format!("drip {} format {FORMAT} build {}", env!("CARGO_PKG_VERSION"), env!("DRIP_BUILD_ID"));
    xxhash_rust::xxh3::xxh3_64(tag.as_bytes())
}

/// A 128-bit content digest (xxh3-128). Used as cache keys and entry names; accidental collisions
/// are negligible at this width, and the cache is not meant to resist someone who can write to it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Digest(pub u128);

impl Digest {
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(xxhash_rust::xxh3::xxh3_128(bytes))
    }
    fn hex(self) -> String {
        format!("{:032x}", self.0)
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.hex())
    }
}

/// A streaming digest of structured data. Every variable-length item is length-prefixed, so two
/// different sequences of items never hash the same bytes.
pub struct Hasher {
    state: xxhash_rust::xxh3::Xxh3,
    /// Small items are gathered here and handed to `state` in one piece: one `update` call costs
    /// as much as hashing dozens of bytes, and an SCC key is made of hundreds of 8-byte items.
    /// The digest is that of the concatenation either way.
    buf: [u8; HASHER_BUF],
    len: usize,
    /// Whether `state` has been given anything (else `finish` hashes `buf` in one shot).
    streamed: bool,
    /// A value that could not be serialised: the digest would not describe it.
    failed: bool,
}

const HASHER_BUF: usize = 256;

impl Hasher {
    /// `domain` separates the digests of different kinds of things (a TU key, an SCC key).
    pub fn new(domain: &str) -> Hasher {
        let mut h = Hasher {
            state: xxhash_rust::xxh3::Xxh3::new(),
            buf: [0; HASHER_BUF],
            len: 0,
            streamed: false,
            failed: false,
        };
        h.str(domain);
        h
    }
    #[inline]
    fn feed(&mut self, b: &[u8]) {
        if self.len + b.len() > HASHER_BUF {
            self.state.update(&self.buf[..self.len]);
            self.len = 0;
            self.streamed = true;
            if b.len() > HASHER_BUF {
                self.state.update(b);
                return;
            }
        }
        self.buf[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.feed(&(b.len() as u64).to_le_bytes());
        self.feed(b);
        self
    }
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }
    pub fn path(&mut self, p: &Path) -> &mut Self {
        use std::os::unix::ffi::OsStrExt;
        self.bytes(p.as_os_str().as_bytes())
    }
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.feed(&v.to_le_bytes());
        self
    }
    pub fn digest(&mut self, d: Digest) -> &mut Self {
        self.feed(&d.0.to_le_bytes());
        self
    }
    /// A serialisable value, by its postcard encoding.
    pub fn value<T: Serialize + ?Sized>(&mut self, v: &T) -> &mut Self {
        match encode(v) {
            Some(bytes) => {
                self.bytes(&bytes);
            }
            None => self.failed = true,
        }
        self
    }
    /// The digest, or `None` if some value could not be serialised (then nothing may be cached
    /// under it).
    pub fn finish(&self) -> Option<Digest> {
        if self.failed {
            return None;
        }
        let pending = &self.buf[..self.len];
        if !self.streamed {
            return Some(Digest::of(pending));
        }
        let mut state = self.state.clone();
        state.update(pending);
        Some(Digest(state.digest128()))
    }
}

/// postcard's own `Vec` flavor copies every piece with a `memcpy` call, and most pieces are
/// one-byte varints.
struct VecSink(Vec<u8>);

impl postcard::ser_flavors::Flavor for VecSink {
    type Output = Vec<u8>;
    #[inline]
    fn try_push(&mut self, b: u8) -> postcard::Result<()> {
        self.0.push(b);
        Ok(())
    }
    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        if let [b] = data {
            self.0.push(*b);
        } else {
            self.0.extend_from_slice(data);
        }
        Ok(())
    }
    fn finalize(self) -> postcard::Result<Vec<u8>> {
        Ok(self.0)
    }
}

/// A `std::hash::Hasher` that keeps what it is fed, for `Hasher::bytes`: a value's `Hash` feed
/// is a few times cheaper to produce than its postcard encoding (fixed-width writes but for
/// lengths and tags, no `Result` at every field), which matters for what is hashed in bulk, a
/// program's IR. The feed is prefix-free (`Hash` implementations length-prefix sequences and tag
/// variants) and stable within one build of drip, which is all an entry needs: the build id is
/// part of its format version.
pub struct Feed(pub Vec<u8>);

impl std::hash::Hasher for Feed {
    fn finish(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.0)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.0.push(v);
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// Lengths of sequences and variant tags, nearly always small.
    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.small(v as u64);
    }
    #[inline]
    fn write_isize(&mut self, v: isize) {
        self.small(v as u64);
    }
}

impl Feed {
    /// One byte for a value below `0xFF`, else the marker `0xFF` and all eight bytes: still
    /// prefix-free, and an IR's feed is mostly tags and lengths, so it is much shorter to hash.
    #[inline]
    fn small(&mut self, v: u64) {
        match u8::try_from(v) {
            Ok(b) if b != 0xFF => self.0.push(b),
            _ => {
                self.0.push(0xFF);
                self.0.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
}

/// The postcard encoding of `v`.
pub fn encode<T: Serialize + ?Sized>(v: &T) -> Option<Vec<u8>> {
    postcard::serialize_with_flavor::<T, VecSink, Vec<u8>>(v, VecSink(Vec::new())).ok()
}

/// What an entry holds. Each kind has its own subdirectory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One translation unit: manifest (files read, content digests) and its lowered IR.
    Tu,
    /// The per-SCC results of the last analysis of one compile database with one set of options.
    Scc,
    /// The whole result of the last run of one compile database with one set of options.
    Run,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Tu, Kind::Scc, Kind::Run];
    fn dir(self) -> &'static str {
        match self {
            Kind::Tu => "tu",
            Kind::Scc => "scc",
            Kind::Run => "run",
        }
    }
    fn tag(self) -> u8 {
        match self {
            Kind::Tu => 1,
            Kind::Scc => 2,
            Kind::Run => 3,
        }
    }
}

/// Counts for `--stats` (and the JSON report). Times are summed over worker threads.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct CacheStats {
    /// The cache was not used: `--no-cache`, or the directory is not usable (with a warning).
    pub disabled: bool,
    /// Translation units loaded from the cache, and parsed by libclang in this run.
    pub tus_loaded: usize,
    pub tus_parsed: usize,
    /// Parsed TUs that cannot be cached: they failed, or a preprocessor error (a missing header)
    /// means their result may depend on files that do not exist yet.
    pub tus_not_cacheable: usize,
    /// Call-graph SCCs whose results were reused, and SCCs checked in this run.
    pub sccs_reused: usize,
    pub sccs_checked: usize,
    /// The whole result came from the previous run: nothing changed.
    pub run_reused: bool,
    /// Entries found but not trusted (corrupt, truncated, other format version): rebuilt.
    pub rejected: usize,
    /// Entries that could not be written.
    pub write_failures: usize,
    pub load_ms: u64,
    pub store_ms: u64,
}

/// An open cache directory, shared by every thread of a run.
pub struct Cache {
    dir: PathBuf,
    enabled: AtomicBool,
    /// Entries can be stored (and stale ones swept); a cache that is only readable (a CI job that
    /// restores it read-only) is still used for loading.
    writable: AtomicBool,
    format: u64,
    rejected: AtomicUsize,
    write_failures: AtomicUsize,
    load_ns: AtomicU64,
    store_ns: AtomicU64,
    pub(crate) tus_loaded: AtomicUsize,
    pub(crate) tus_parsed: AtomicUsize,
    pub(crate) tus_not_cacheable: AtomicUsize,
    pub(crate) sccs_reused: AtomicUsize,
    pub(crate) sccs_checked: AtomicUsize,
    pub(crate) run_reused: AtomicBool,
    /// Why entries were rejected or not written, for `-v`; and the one warning when the cache
    /// had to be turned off.
    notes: Mutex<Vec<String>>,
    warning: Mutex<Option<String>>,
}

/// Remove whatever stands at an entry's name inside the cache: a file, a link, or a directory or
/// FIFO something else put there.
fn remove_entry(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            let _ = std::fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}

impl Cache {
    /// Open (creating it if needed) a cache directory. If it cannot be created, the cache is
    /// disabled; if it exists but cannot be written, it is only read. `warning()` says which.
    pub fn open(dir: &Path) -> Cache {
        let cache = Cache::new(dir.to_path_buf(), true);
        // Another user's folder could hold links planted to make drip write or delete elsewhere
        // (git's `safe.directory` reasoning): not used, and said so.
        if let Some(owner) = foreign_owner(dir) {
            cache.disable(format!(
                "the cache directory {} belongs to another user (uid {owner}); running without the cache \
                 (choose one of your own with --cache-dir)",
                dir.display()
            ));
            return cache;
        }
        if let Err(e) = cache.prepare() {
            if Kind::ALL.iter().all(|k| dir.join(k.dir()).is_dir()) {
                // A cache that exists but cannot be written: read it, store nothing.
                cache.writable.store(false, Ordering::Relaxed);
                let mut w = cache.warning.lock().unwrap_or_else(|e| e.into_inner());
                w.get_or_insert(format!(
                    "the cache directory {} cannot be written ({e}): its entries are used, nothing new is stored",
                    dir.display()
                ));
            } else {
                cache.disable(format!(
                    "cannot use the cache directory {}: {e}; running without the cache",
                    dir.display()
                ));
            }
        }
        cache
    }

    /// Whether entries can be stored: enabled and not read-only.
    fn writable(&self) -> bool {
        self.enabled() && self.writable.load(Ordering::Relaxed)
    }

    /// A cache that stores and finds nothing (`--no-cache`).
    pub fn disabled() -> Cache {
        Cache::new(PathBuf::new(), false)
    }

    fn new(dir: PathBuf, enabled: bool) -> Cache {
        Cache {
            dir,
            enabled: AtomicBool::new(enabled),
            writable: AtomicBool::new(enabled),
            format: format_version(),
            rejected: AtomicUsize::new(0),
            write_failures: AtomicUsize::new(0),
            load_ns: AtomicU64::new(0),
            store_ns: AtomicU64::new(0),
            tus_loaded: AtomicUsize::new(0),
            tus_parsed: AtomicUsize::new(0),
            tus_not_cacheable: AtomicUsize::new(0),
            sccs_reused: AtomicUsize::new(0),
            sccs_checked: AtomicUsize::new(0),
            run_reused: AtomicBool::new(false),
            notes: Mutex::new(Vec::new()),
            warning: Mutex::new(None),
        }
    }

    /// Create the directory layout and check that it is writable (a probe file), so an unusable
    /// directory is found once, up front, instead of by every store.
    fn prepare(&self) -> std::io::Result<()> {
        for k in Kind::ALL {
            std::fs::create_dir_all(self.dir.join(k.dir()))?;
        }
        // The standard marker that tells backup tools to skip the directory. Created only if
        // nothing is there (`O_EXCL`): a link at that name is not followed.
        match std::fs::OpenOptions::new().write(true).create_new(true).open(self.dir.join("CACHEDIR.TAG")) {
            Ok(mut f) => f.write_all(
                b"Signature: 8a477f597d28d172789f06886806bc55\n# drip's incremental cache; see ARCHITECTURE.md\n",
            )?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        // A probe under an unpredictable name, created exclusively and removed on drop.
        tempfile::Builder::new().prefix(".probe-").tempfile_in(&self.dir).map(drop)
    }

    fn disable(&self, why: String) {
        self.enabled.store(false, Ordering::Relaxed);
        let mut w = self.warning.lock().unwrap_or_else(|e| e.into_inner());
        w.get_or_insert(why);
    }

    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// The one warning to show when the cache could not be used.
    pub fn warning(&self) -> Option<String> {
        self.warning.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Rejected and unwritable entries, for `-v`, sorted.
    pub fn notes(&self) -> Vec<String> {
        let mut v = self.notes.lock().unwrap_or_else(|e| e.into_inner()).clone();
        v.sort();
        v.dedup();
        v
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            disabled: !self.enabled(),
            tus_loaded: self.tus_loaded.load(Ordering::Relaxed),
            tus_parsed: self.tus_parsed.load(Ordering::Relaxed),
            tus_not_cacheable: self.tus_not_cacheable.load(Ordering::Relaxed),
            sccs_reused: self.sccs_reused.load(Ordering::Relaxed),
            sccs_checked: self.sccs_checked.load(Ordering::Relaxed),
            run_reused: self.run_reused.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            write_failures: self.write_failures.load(Ordering::Relaxed),
            load_ms: self.load_ns.load(Ordering::Relaxed) / 1_000_000,
            store_ms: self.store_ns.load(Ordering::Relaxed) / 1_000_000,
        }
    }

    fn path(&self, kind: Kind, name: Digest) -> PathBuf {
        self.dir.join(kind.dir()).join(name.hex())
    }

    fn note(&self, msg: String) {
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
    }

    fn reject(&self, path: &Path, why: &str) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
        self.note(format!("drip: cache: rejected {}: {why}; rebuilding it", path.display()));
        // Best effort: the rebuilt value overwrites it anyway when it can be stored.
        remove_entry(path);
    }

    fn timed<T>(counter: &AtomicU64, f: impl FnOnce() -> T) -> T {
        let t0 = Instant::now();
        let r = f();
        counter.fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        r
    }

    /// Open the entry `name` of `kind` and check its header and meta section. `None` when there
    /// is none, or it is not trusted (counted, and deleted).
    pub fn open_entry(&self, kind: Kind, name: Digest) -> Option<Entry> {
        if !self.enabled() {
            return None;
        }
        Self::timed(&self.load_ns, || {
            let path = self.path(kind, name);
            let file = match crate::files::open(&path) {
                Ok(f) => f,
                // Something else at an entry's name (a directory, a FIFO): rejected, and removed
                // so that the rebuilt entry can take its place.
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    self.reject(&path, &e.to_string());
                    return None;
                }
                Err(_) => return None,
            };
            match self.read_head(file, kind, name) {
                Ok(e) => Some(e),
                Err(why) => {
                    self.reject(&path, &why);
                    None
                }
            }
        })
    }

    fn read_head(&self, mut file: File, kind: Kind, name: Digest) -> Result<Entry, String> {
        let size = file.metadata().map_err(|e| e.to_string())?.len();
        let mut h = [0u8; HEADER_LEN];
        file.read_exact(&mut h).map_err(|_| format!("truncated header ({size} bytes)"))?;
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().unwrap_or([0; 8]));
        let u128_at = |i: usize| u128::from_le_bytes(h[i..i + 16].try_into().unwrap_or([0; 16]));
        if &h[0..8] != MAGIC {
            return Err("not a drip cache entry (bad magic)".to_string());
        }
        if u64_at(8) != self.format {
            return Err("written by another version of drip".to_string());
        }
        if h[16] != kind.tag() || h[17..24].iter().any(|b| *b != 0) {
            return Err("wrong kind".to_string());
        }
        if u128_at(24) != name.0 {
            return Err("its name does not match its header".to_string());
        }
        let (meta_len, body_len) = (u64_at(40), u64_at(48));
        let expected = (HEADER_LEN as u64).checked_add(meta_len).and_then(|n| n.checked_add(body_len));
        if expected != Some(size) {
            return Err(format!("size {size} does not match its header (truncated or extended)"));
        }
        let meta_len = usize::try_from(meta_len).map_err(|_| "meta section too large".to_string())?;
        let mut meta = vec![0u8; meta_len];
        file.read_exact(&mut meta).map_err(|e| e.to_string())?;
        if Digest::of(&meta).0 != u128_at(56) {
            return Err("meta section checksum mismatch".to_string());
        }
        Ok(Entry {
            file,
            path: self.path(kind, name),
            body_len: usize::try_from(body_len).map_err(|_| "body too large".to_string())?,
            body_sum: u128_at(72),
            meta,
        })
    }

    /// Write an entry atomically (temporary file, then rename). Returns whether it was stored; a
    /// failure is counted and noted, and never fails the run.
    pub fn write_entry(&self, kind: Kind, name: Digest, meta: &[u8], body: &[u8]) -> bool {
        if !self.writable() {
            return false;
        }
        Self::timed(&self.store_ns, || {
            let path = self.path(kind, name);
            let mut h = Vec::with_capacity(HEADER_LEN);
            h.extend_from_slice(MAGIC);
            h.extend_from_slice(&self.format.to_le_bytes());
            h.push(kind.tag());
            h.extend_from_slice(&[0u8; 7]);
            h.extend_from_slice(&name.0.to_le_bytes());
            h.extend_from_slice(&(meta.len() as u64).to_le_bytes());
            h.extend_from_slice(&(body.len() as u64).to_le_bytes());
            h.extend_from_slice(&Digest::of(meta).0.to_le_bytes());
            h.extend_from_slice(&Digest::of(body).0.to_le_bytes());
            debug_assert_eq!(h.len(), HEADER_LEN);
            // A temporary file under an unpredictable name, created exclusively (`O_EXCL`, so
            // never through a planted link), renamed over the entry; removed if anything fails.
            let written = (|| -> std::io::Result<()> {
                let mut f = tempfile::Builder::new().prefix(".tmp-").tempfile_in(self.dir.join(kind.dir()))?;
                f.write_all(&h)?;
                f.write_all(meta)?;
                f.write_all(body)?;
                f.persist(&path).map(drop).map_err(|e| e.error)
            })();
            match written {
                Ok(()) => true,
                Err(e) => {
                    self.write_failures.fetch_add(1, Ordering::Relaxed);
                    self.note(format!("drip: cache: cannot write {}: {e}", path.display()));
                    false
                }
            }
        })
    }

    /// Serialise and store `meta` and `body` as one entry.
    pub fn store<M: Serialize + ?Sized, B: Serialize + ?Sized>(
        &self,
        kind: Kind,
        name: Digest,
        meta: &M,
        body: &B,
    ) -> bool {
        if !self.writable() {
            return false;
        }
        let encoded = Self::timed(&self.store_ns, || encode(body));
        match encoded {
            Some(b) => self.store_encoded(kind, name, meta, &b),
            None => {
                self.write_failures.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// Store `meta`, serialised, and `body`, already encoded, as one entry.
    pub fn store_encoded<M: Serialize + ?Sized>(&self, kind: Kind, name: Digest, meta: &M, body: &[u8]) -> bool {
        if !self.writable() {
            return false;
        }
        match Self::timed(&self.store_ns, || encode(meta)) {
            Some(m) => self.write_entry(kind, name, &m, body),
            None => {
                self.write_failures.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// Delete the entries of `kind` whose names are not in `live` and that were neither used nor
    /// written for `GRACE`, and temporary files left by crashed writers. Best effort.
    pub fn sweep(&self, kind: Kind, live: &HashSet<Digest>) {
        if !self.writable() {
            return;
        }
        let Ok(entries) = std::fs::read_dir(self.dir.join(kind.dir())) else { return };
        let now = SystemTime::now();
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let is_tmp = name.starts_with(".tmp-");
            let digest = (name.len() == 32).then(|| u128::from_str_radix(&name, 16).ok()).flatten();
            if !is_tmp && digest.is_none_or(|v| live.contains(&Digest(v))) {
                continue; // live, or not a name drip gives its entries
            }
            // Only plain files drip wrote: an entry starts with drip's magic.
            if !e.file_type().is_ok_and(|t| t.is_file()) || (!is_tmp && !starts_with_magic(&e.path())) {
                continue;
            }
            let grace = if is_tmp { Duration::from_secs(3600) } else { GRACE };
            let age = e.metadata().and_then(|m| m.modified()).ok().and_then(|t| now.duration_since(t).ok());
            if age.is_some_and(|a| a > grace) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// The uid owning `dir` when it exists and is not the effective user's.
fn foreign_owner(dir: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let owner = std::fs::metadata(dir).ok()?.uid();
    // SAFETY: plain FFI, no arguments.
    let me = unsafe { libc::geteuid() };
    (owner != me).then_some(owner)
}

/// The file begins with an entry header's magic (`MAGIC`).
fn starts_with_magic(path: &Path) -> bool {
    let mut head = [0u8; 8];
    File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && &head == MAGIC
}

/// An entry whose header and meta section passed every check; the body is read on demand.
pub struct Entry {
    file: File,
    path: PathBuf,
    body_len: usize,
    body_sum: u128,
    meta: Vec<u8>,
}

impl Entry {
    /// The meta section, deserialised. A value that does not deserialise rejects the entry.
    pub fn meta<T: DeserializeOwned>(&self, cache: &Cache) -> Option<T> {
        match postcard::from_bytes(&self.meta) {
            Ok(v) => Some(v),
            Err(e) => {
                cache.reject(&self.path, &format!("meta section does not decode ({e})"));
                None
            }
        }
    }

    /// Read, check and deserialise the body. Marks the entry as used (for `Cache::sweep`).
    pub fn body<T: DeserializeOwned>(mut self, cache: &Cache) -> Option<T> {
        Cache::timed(&cache.load_ns, || {
            let mut body = vec![0u8; self.body_len];
            if let Err(e) = self.file.read_exact(&mut body) {
                cache.reject(&self.path, &format!("cannot read its body ({e})"));
                return None;
            }
            if Digest::of(&body).0 != self.body_sum {
                cache.reject(&self.path, "body checksum mismatch");
                return None;
            }
            match postcard::from_bytes(&body) {
                Ok(v) => {
                    self.touch();
                    Some(v)
                }
                Err(e) => {
                    cache.reject(&self.path, &format!("body does not decode ({e})"));
                    None
                }
            }
        })
    }

    /// Mark the entry as used without reading its body.
    pub fn touch(&self) {
        let _ = self.file.set_modified(SystemTime::now());
    }
}

/// Content digests of files, each computed once however many TUs read the file. Meant for one
/// run of `drip check`: a long-lived process (a build's background extractor) must not keep one,
/// since files (generated headers) change under it.
#[derive(Default)]
pub struct ContentDigests {
    known: Mutex<hashbrown::HashMap<PathBuf, Option<Digest>>>,
}

impl ContentDigests {
    /// The digest of the file's current contents, or `None` if it cannot be read.
    pub fn get(&self, path: &Path) -> Option<Digest> {
        if let Some(d) = self.known.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
            return *d;
        }
        // Hashed outside the lock: two threads may hash the same file once each, which is cheaper
        // than serialising all reads.
        let d = crate::files::read(path).ok().map(|b| Digest::of(&b));
        self.known.lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf(), d);
        d
    }
}

#[cfg(test)]
mod tests;
