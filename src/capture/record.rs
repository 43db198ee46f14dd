//! The contract between `drip capture` and its compiler wrapper `drip-cc`: the environment
//! variables, the names in the wrapper directory, and the journal record.
//!
//! This file is compiled into both binaries (`wrapper/drip_cc.rs` includes it by path), so it
//! uses only `std` and serde.
//!
//! Input/output: one `Record` per successful compiler run, serialised as one JSON line and
//! appended to the journal named by `JOURNAL_ENV` with a single `write` on a file opened with
//! `O_APPEND` (so lines from parallel compilers never interleave on a local file system).
//! Invariants:
//! - a record is written only after the real compiler exited with status 0;
//! - `arguments[0]` is the path of the real compiler that ran (never a wrapper), the rest is the
//!   argv the build passed, with response files (`@file`) expanded;
//! - a wrapper that cannot record says why in `ERRORS_FILE` beside the journal, never on the
//!   build's stderr, and never changes the build's exit status.

use serde::{Deserialize, Serialize};

/// The journal to append records to. Unset: the wrapper only forwards (a build that kept a
/// wrapper path in its generated files, run without drip).
pub const JOURNAL_ENV: &str = "DRIP_CAPTURE_JOURNAL";

/// Real compilers an outer wrapper already chose, one canonical path per line: a wrapper started
/// below another one (through a launcher such as ccache's masquerade directory) skips them and
/// does not record, so the compile is recorded once and the lookup cannot loop.
pub const SEEN_ENV: &str = "DRIP_CC_SEEN";

/// The wrapper's file name, in the build tree (`target/release/drip-cc`) and in the wrapper
/// directory, where every compiler name is a symbolic link to it.
pub const WRAPPER_NAME: &str = "drip-cc";

/// Under the wrapper directory, `abs/usr/bin/clang-19` stands for the compiler `/usr/bin/clang-19`
/// (a CC or CXX given as a path, which PATH cannot intercept).
pub const ABS_DIR: &str = "abs";

/// Beside the journal: one line per compile the wrapper could not record.
pub const ERRORS_FILE: &str = "errors";

/// One compiler run, as the wrapper saw it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Record {
    /// The working directory of the compiler (absolute).
    pub directory: String,
    /// The real compiler's path, then the build's arguments with `@file`s expanded.
    pub arguments: Vec<String>,
}
