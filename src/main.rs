//! The `drip` binary: the command line of the library (`src/lib.rs`, `cli`), with the allocator.

// The analysis allocates millions of small, short-lived vectors (guard children, flow states);
// glibc's allocator spent about 40% of the analysis's instructions on them (callgrind, SQLite).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(drip::main());
}
