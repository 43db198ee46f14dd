//! drip: a whole-program static analyzer for memory leaks and double frees in C and C++.
//!
//! Pipeline (see ARCHITECTURE.md): `compdb` → `frontend` (libclang → `ir`) → `cfg` → `fastcheck`
//! (guards in `guard`, solved by `sat`) → `checkers` → `report`, driven by `driver` and `cli`.
//! `capture` records a build's compile database (with the wrapper `capture::cc`, which is also
//! the `drip-cc` binary's program: `wrapper/drip_cc.rs`).
//!
//! The library holds every module; its public surface is only `main` (the `drip` binary's
//! `src/main.rs` calls it) and `fuzz`, the input readers for the fuzz targets in `fuzz/`. The
//! modules stay private, so the compiler still finds what nothing uses.

/// `eprintln!` that never panics: a message that cannot be written (stderr closed, or a full disk
/// behind `2>file`) is dropped, and the run goes on to write its report and set its exit code.
/// Messages quote file names, compiler diagnostics and configuration entries: their control
/// characters other than line breaks and tabs are escaped (`terminal`), so none reaches the
/// terminal as a command. Defined before the modules, so it is the `eprintln!` they all see.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", crate::terminal::escape_lines(&line));
    }};
}

mod alias;
mod args;
mod budget;
mod cache;
mod callgraph;
mod capture;
mod cfg;
mod checkers;
mod cli;
mod compdb;
mod declare;
mod diag;
mod driver;
mod equal;
mod exceptions;
mod exits;
mod facts;
mod fastcheck;
mod files;
mod frontend;
mod global_leaks;
mod global_stores;
mod global_writes;
mod globals;
mod guard;
mod interior;
mod ir;
mod irdump;
mod libmodel;
mod lines;
mod link;
mod model;
mod nonnull;
mod precond;
mod progress;
mod reach;
mod report;
mod reuse;
mod rules;
mod sat;
mod settings;
mod summary;
mod terminal;
mod varargs;

/// The command line (`drip check`, `dump-ir`, `capture`, the parse worker): the exit code. Started
/// as `drip-cc`, drip is `drip capture`'s compiler wrapper instead (`capture::cc`), for an
/// installation that has no `drip-cc` binary beside `drip`.
pub fn main() -> i32 {
    if capture::runs_as_wrapper() {
        return capture::cc::run();
    }
    cli::main()
}

/// Entry points for the fuzz targets (`fuzz/`): each reads one kind of input from bytes as drip
/// reads it from a file, and must return an error for bad input, never panic or hang.
pub mod fuzz {
    use std::path::Path;

    /// A `compile_commands.json` whose text is `text`, found in `/fuzz` (relative `directory`
    /// fields resolve against it): the number of commands kept, or the message drip prints.
    pub fn compile_database(text: &str) -> Result<usize, String> {
        crate::compdb::parse(text, Path::new("/fuzz/compile_commands.json"), Path::new("/fuzz"))
            .map(|db| db.commands.len())
            .map_err(|e| e.to_string())
    }

    /// A `.drip.toml` whose text is `text`: the budgets it sets (as `--stats` shows them), or the
    /// message drip prints.
    pub fn config_file(text: &str) -> Result<String, String> {
        crate::settings::parse(text, "/fuzz/.drip.toml").map(|s| format!("{:?}", s.budgets))
    }
}
