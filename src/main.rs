//! drip: a whole-program static analyzer for memory leaks and double frees in C.
//!
//! Pipeline (see ARCHITECTURE.md): `compdb` → `frontend` (libclang → `ir`) → `cfg` → `fastcheck`
//! (guards in `guard`, solved by `sat`) → `checkers` → `report`, driven by `driver` and `cli`.

mod callgraph;
mod cfg;
mod checkers;
mod cli;
mod compdb;
mod diag;
mod driver;
mod fastcheck;
mod frontend;
mod guard;
mod ir;
mod irdump;
mod libmodel;
mod report;
mod sat;
mod summary;

fn main() {
    std::process::exit(cli::main());
}
