//! Translation units in the incremental cache (the store itself is `crate::cache`).
//!
//! Input: a compile command's argv as handed to libclang (after `compile_argv`, so with
//! `-working-directory`), its main file, and, after a parse, the files libclang read
//! (`Tu::inclusions`). Output: the entry of one TU: a manifest (the TU key and every file the TU
//! read, with a digest of the contents libclang parsed) and the TU's `TuResult` with TU-local
//! `FileId`s, so `merge` stays the one place where program-wide ids are assigned.
//! Invariants:
//! - The entry's name is the TU key: libclang's version, the argv, the main file, and the
//!   environment variables that change header search (`CPATH`, `C_INCLUDE_PATH`). One entry per
//!   key: a new parse overwrites it. drip's own version is not in the name but in the entry
//!   header, so an upgrade rejects and rewrites the entry instead of leaving an orphan.
//! - A hit needs every file of the manifest to still have the recorded digest (ccache's direct
//!   mode): an edited header invalidates every TU that read it. The contents hashed at store time
//!   are those libclang parsed, so an edit during the parse is never missed.
//! - What the manifest cannot see is not cached: a TU with a preprocessor error (a missing
//!   header) could change when a file appears, so it is never stored. A header that would newly shadow another
//!   in the search path, or make `__has_include` true, is not detected (as in ccache).

use super::{clang, TuResult};
use crate::cache::{Cache, ContentDigests, Digest, Hasher, Kind};
use crate::compdb::CompileCommand;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Environment variables the clang driver reads to find headers.
const ENV_INPUTS: &[&str] = &["CPATH", "C_INCLUDE_PATH"];

#[derive(Serialize, Deserialize)]
struct Manifest {
    /// Every file the TU read, with the digest of its contents.
    inputs: Vec<(PathBuf, Digest)>,
}

/// The TU key (and entry name): what decides which files libclang reads and how it parses them.
pub(super) fn tu_key(argv: &[String], file: &Path, clang_version: &str) -> Option<Digest> {
    let mut h = Hasher::new("drip tu key");
    h.str(clang_version).path(file).u64(argv.len() as u64);
    for a in argv {
        h.str(a);
    }
    for var in ENV_INPUTS {
        match std::env::var_os(var) {
            Some(v) => h.u64(1).bytes(std::os::unix::ffi::OsStrExt::as_bytes(v.as_os_str())),
            None => h.u64(0),
        };
    }
    h.finish()
}

/// The digest of a valid entry's contents: its key and its manifest. Equal digests mean the TU
/// would lower to the same result.
fn content_digest(key: Digest, m: &Manifest) -> Option<Digest> {
    let mut h = Hasher::new("drip tu content");
    h.digest(key).value(&m.inputs);
    h.finish()
}

/// Whether every file of the manifest still has the recorded contents.
fn valid(m: &Manifest, digests: &ContentDigests) -> bool {
    m.inputs.iter().all(|(p, d)| digests.get(p) == Some(*d))
}

/// The content digest of the TU's entry if it is valid, without reading its IR; and the entry.
pub(super) fn probe(cache: &Cache, digests: &ContentDigests, key: Digest) -> Option<(Digest, crate::cache::Entry)> {
    let entry = cache.open_entry(Kind::Tu, key)?;
    let m: Manifest = entry.meta(cache)?;
    if !valid(&m, digests) {
        return None;
    }
    // Used, even when the caller needs only the digest (the whole-run shortcut).
    entry.touch();
    Some((content_digest(key, &m)?, entry))
}

/// The TU's result from a valid entry, with its content digest.
pub(super) fn load(cache: &Cache, digests: &ContentDigests, key: Digest) -> Option<(TuResult, Digest)> {
    let (digest, entry) = probe(cache, digests, key)?;
    let r: TuResult = entry.body(cache)?;
    Some((r, digest))
}

/// Store a parsed TU. Returns the entry's content digest if it was written.
pub(super) fn store(cache: &Cache, key: Digest, inputs: Vec<(PathBuf, Digest)>, r: &TuResult) -> Option<Digest> {
    let m = Manifest { inputs };
    let digest = content_digest(key, &m)?;
    cache.store(Kind::Tu, key, &m, r).then_some(digest)
}

/// Store a parsed TU given as its encoding (`cache::encode` of the `TuResult`, as a parse worker
/// sends it). Returns the entry's content digest if it was written.
pub(super) fn store_encoded(cache: &Cache, key: Digest, inputs: Vec<(PathBuf, Digest)>, body: &[u8]) -> Option<Digest> {
    let m = Manifest { inputs };
    let digest = content_digest(key, &m)?;
    cache.store_encoded(Kind::Tu, key, &m, body).then_some(digest)
}

/// The manifest of a parsed TU: every file it read (absolute paths), with the digest of the
/// contents libclang parsed, or of the file on disk when libclang does not hold them. `None` if a
/// file cannot be read at all: then the TU is not cached.
pub(super) fn manifest(tu: &clang::Tu, cmd: &CompileCommand) -> Option<Vec<(PathBuf, Digest)>> {
    let mut inputs: Vec<(PathBuf, Digest)> = Vec::new();
    for (name, text) in tu.inclusions() {
        let path = clang::absolute_path(&cmd.directory, &name);
        let digest = match text {
            Some(t) => Digest::of(t),
            None => Digest::of(&crate::files::read(&path).ok()?),
        };
        inputs.push((path, digest));
    }
    if !inputs.iter().any(|(p, _)| *p == cmd.file) {
        inputs.push((cmd.file.clone(), Digest::of(&crate::files::read(&cmd.file).ok()?)));
    }
    inputs.sort();
    inputs.dedup();
    Some(inputs)
}

/// The files in the manifest of the entry `key` (tests).
#[cfg(test)]
pub(super) fn manifest_files(cache: &Cache, key: Digest) -> Option<Vec<PathBuf>> {
    let m: Manifest = cache.open_entry(Kind::Tu, key)?.meta(cache)?;
    Some(m.inputs.into_iter().map(|(p, _)| p).collect())
}
