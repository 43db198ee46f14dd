//! Build script.
//!
//! Input: the installed libclang (found like clang-sys does, but only to give a clear error) and
//! `wrapper/clang_shim.h`. Output: `$OUT_DIR/clang_shim.rs`, the bindgen bindings for the few
//! libclang declarations clang-sys gets wrong (see the header). Linking libclang itself is done by
//! clang-sys (dynamic linking); this script never emits link flags.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const INSTALL_HINT: &str = "install it with `apt-get install libclang-19-dev` \
     (or set LIBCLANG_PATH to the directory containing libclang.so)";

fn main() {
    println!("cargo:rerun-if-changed=wrapper/clang_shim.h");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=LIBCLANG_PATH");

    let (libdir, include) = find_libclang();
    let header = Path::new("wrapper/clang_shim.h");
    let bindings = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .clang_arg(format!("-I{}", include.display()))
        .allowlist_function("clang_createIndexWithOptions")
        .allowlist_type("CXIndexOptions")
        // Index.h's doc comments would become failing doctests.
        .generate_comments(false)
        .generate()
        .unwrap_or_else(|e| {
            panic!(
                "bindgen failed on {} with libclang from {} (headers {}): {e}",
                header.display(),
                libdir.display(),
                include.display()
            )
        });
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let out = out_dir.join("clang_shim.rs");
    bindings
        .write_to_file(&out)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}

/// Find the libclang library directory and the directory holding `clang-c/Index.h`.
/// Order: LIBCLANG_PATH, `llvm-config-19 --libdir`, /usr/lib/llvm-19/lib.
fn find_libclang() -> (PathBuf, PathBuf) {
    let mut tried = Vec::new();
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = env::var_os("LIBCLANG_PATH") {
        let p = PathBuf::from(p);
        // LIBCLANG_PATH may name the library file itself.
        if p.is_file() {
            candidates.extend(p.parent().map(Path::to_path_buf));
        } else {
            candidates.push(p);
        }
    }
    if let Some(dir) = llvm_config("--libdir") {
        candidates.push(dir);
    }
    candidates.push(PathBuf::from("/usr/lib/llvm-19/lib"));

    for libdir in candidates {
        if !has_libclang(&libdir) {
            tried.push(format!("{} (no libclang.so*)", libdir.display()));
            continue;
        }
        let mut includes = Vec::new();
        if let Some(inc) = llvm_config("--includedir") {
            includes.push(inc);
        }
        if let Some(parent) = libdir.parent() {
            includes.push(parent.join("include"));
        }
        includes.push(PathBuf::from("/usr/lib/llvm-19/include"));
        if let Some(inc) = includes
            .into_iter()
            .find(|i| i.join("clang-c/Index.h").is_file())
        {
            return (libdir, inc);
        }
        tried.push(format!(
            "{} (library found but no clang-c/Index.h next to it)",
            libdir.display()
        ));
    }
    panic!(
        "drip needs libclang 19 and its C headers; {INSTALL_HINT}. Looked in: {}",
        tried.join("; ")
    );
}

fn has_libclang(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name.starts_with("libclang") && name.contains(".so") && !name.starts_with("libclang-cpp")
    })
}

fn llvm_config(arg: &str) -> Option<PathBuf> {
    let out = Command::new("llvm-config-19").arg(arg).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| PathBuf::from(s))
}
