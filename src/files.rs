//! Reading input files that may not be regular files.
//!
//! Input: a path from the user, a compile database or the cache. Output: its bytes, or an error
//! that says why. Invariant: a FIFO, a device or a directory is never opened — opening a FIFO
//! without a writer blocks forever, and a device may never end.

use std::io;
use std::path::Path;

/// Why `path` cannot be read as a regular file (following symbolic links), if it cannot.
pub fn not_regular(path: &Path) -> Option<io::Error> {
    match std::fs::metadata(path) {
        Err(e) => Some(e),
        Ok(m) if m.is_file() => None,
        Ok(m) => {
            let what = if m.is_dir() { "a directory" } else { "not a regular file (a FIFO, socket or device)" };
            Some(io::Error::new(io::ErrorKind::InvalidInput, what))
        }
    }
}

/// The contents of `path`, which must be a regular file.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    match not_regular(path) {
        Some(e) => Err(e),
        None => std::fs::read(path),
    }
}

/// The contents of `path`, which must be a regular file of UTF-8 text.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    match not_regular(path) {
        Some(e) => Err(e),
        None => std::fs::read_to_string(path),
    }
}

/// `path` opened for reading, if it is a regular file.
pub fn open(path: &Path) -> io::Result<std::fs::File> {
    match not_regular(path) {
        Some(e) => Err(e),
        None => std::fs::File::open(path),
    }
}
