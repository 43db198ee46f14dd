//! drip: a whole-program static analyzer for memory leaks and double frees in C.
//!
//! Pipeline (see ARCHITECTURE.md): `compdb` → `frontend` (libclang → `ir`) → `cfg` → `fastcheck`
//! (guards in `guard`, solved by `sat`) → `checkers` → `report`, driven by `driver` and `cli`.
//! `capture` records a build's compile database (with the wrapper in `wrapper/drip_cc.rs`).

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
mod facts;
mod fastcheck;
mod files;
mod frontend;
mod global_writes;
mod globals;
mod guard;
mod interior;
mod ir;
mod irdump;
mod libmodel;
mod lines;
mod link;
mod progress;
mod reach;
mod report;
mod reuse;
mod rules;
mod sat;
mod settings;
mod summary;
mod terminal;

// The analysis allocates millions of small, short-lived vectors (guard children, flow states);
// glibc's allocator spent about 40% of the analysis's instructions on them (callgrind, SQLite).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(cli::main());
}
