//! Build script.
//!
//! Input: the installed libclang (found like clang-sys does, but only to give a clear error),
//! `wrapper/clang_shim.h`, and the sources of the crate. Output: `$OUT_DIR/clang_shim.rs`, the
//! bindgen bindings for the few libclang declarations clang-sys gets wrong (see the header), and
//! the environment variable `DRIP_BUILD_ID`, a hash of every source file, `Cargo.toml` and
//! `Cargo.lock`: the incremental cache (`src/cache/`) puts it in the format version of every
//! entry, so a drip built from other sources never trusts what this one stored; and
//! `DRIP_GIT_COMMIT`, the commit the sources were checked out at (`unknown` outside a git
//! checkout or without git), which `drip --version` prints. Linking libclang
//! itself is done by clang-sys (dynamic linking); this script never emits link flags.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const INSTALL_HINT: &str = "install it with `apt-get install libclang-19-dev` \
     (or set LIBCLANG_PATH to the directory containing libclang.so)";

fn main() {
    println!("cargo:rerun-if-changed=wrapper/clang_shim.h");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=LIBCLANG_PATH");
    // Any change under src/ changes the build id, so the script reruns for it (cargo scans the
    // directory); bindgen is skipped then unless its own inputs changed (see the stamp below).
    for input in ["src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={input}");
    }
    println!("cargo:rustc-env=DRIP_BUILD_ID={:016x}", build_id());
    println!("cargo:rustc-env=DRIP_GIT_COMMIT={}", git_commit());

    let (libdir, include) = find_libclang();
    let header = Path::new("wrapper/clang_shim.h");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let out = out_dir.join("clang_shim.rs");
    // The bindings depend only on the header and the libclang headers used; this script also
    // reruns for every source change (the build id), and bindgen would cost seconds each time.
    let stamp_path = out_dir.join("clang_shim.stamp");
    let stamp =
        format!("{}\n{}\n{}", std::fs::read_to_string(header).unwrap_or_default(), libdir.display(), include.display());
    if out.is_file() && std::fs::read_to_string(&stamp_path).ok().as_deref() == Some(stamp.as_str()) {
        return;
    }
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
    bindings.write_to_file(&out).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
    // Best effort: without the stamp, the next run only regenerates the bindings.
    let _ = std::fs::write(&stamp_path, stamp);
}

/// A hash of the crate's sources (every file under `src/`, by relative path and contents, in
/// sorted order), `Cargo.toml` and `Cargo.lock`. Stable across checkouts of the same commit.
fn build_id() -> u64 {
    use std::hash::{Hash, Hasher};
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = vec![PathBuf::from("Cargo.toml"), PathBuf::from("Cargo.lock")];
    walk(Path::new("src"), &mut files);
    files.sort();
    // SipHash with fixed keys: deterministic, and collisions only matter between two builds of
    // drip that share a cache directory.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in files {
        f.to_string_lossy().hash(&mut h);
        std::fs::read(&f).unwrap_or_default().hash(&mut h);
    }
    h.finish()
}

/// The commit `HEAD` names, or `unknown`. The script reruns when `HEAD` or the branch it points
/// to moves (a commit, a checkout), found through git itself so that worktrees, whose `.git` is a
/// file, work too.
fn git_commit() -> String {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        let s = String::from_utf8(out.stdout).ok()?;
        (out.status.success() && !s.trim().is_empty()).then(|| s.trim().to_string())
    };
    let Some(commit) = git(&["rev-parse", "--verify", "HEAD"]) else {
        return "unknown".to_string();
    };
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    commit
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
        if let Some(inc) = includes.into_iter().find(|i| i.join("clang-c/Index.h").is_file()) {
            return (libdir, inc);
        }
        tried.push(format!("{} (library found but no clang-c/Index.h next to it)", libdir.display()));
    }
    panic!("drip needs libclang 19 and its C headers; {INSTALL_HINT}. Looked in: {}", tried.join("; "));
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
