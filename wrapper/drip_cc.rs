//! drip-cc: the compiler wrapper that `drip capture` puts ahead of the real compilers, as a
//! binary of its own. Its code is `src/capture/cc.rs` (with the contract in `record.rs`), which
//! `drip` also runs when started under this name; this binary exists because it starts faster:
//! it links std, serde and libc only, while `drip` loads libclang and LLVM before `main`
//! (README, "Capture beside your build", has the numbers).

#[path = "../src/capture/record.rs"]
mod record;

#[path = "../src/capture/cc.rs"]
mod cc;

fn main() {
    std::process::exit(cc::run());
}
