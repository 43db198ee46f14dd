//! `drip capture` on a project with its own build system: OpenSSL from the `openssl-src` crate
//! (fetched through cargo), `./Configure` then `make -j2 build_libs` (libcrypto and libssl).
//!
//! It takes several minutes on two cores, so it only exists with the `test-openssl` feature:
//! `make test-openssl` (see the README's "Capture beside your build").
#![cfg(feature = "test-openssl")]

mod real;

use real::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// As the `openssl-src` crate configures it, minus what `build_libs` does not need.
const CONFIGURE: &str = "./Configure linux-x86_64 no-shared no-module no-tests no-apps no-docs no-comp no-zlib";

fn objects(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() && !p.ends_with(".drip") {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "o") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// OpenSSL names objects `<dir>/<lib>-<kind>-<stem>.o` (`crypto/aes/libcrypto-lib-aes_core.o`).
/// Is `o` assembled from a `.s`/`.S` of the same stem (perlasm output)?
fn from_assembler(o: &Path) -> bool {
    let name = o.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let stem = name.splitn(3, '-').nth(2).unwrap_or(name);
    let dir = o.parent().unwrap_or(Path::new("."));
    ["s", "S"].iter().any(|ext| dir.join(format!("{stem}.{ext}")).is_file())
}

#[test]
fn openssl_configure_and_make_are_captured_and_checked() {
    let crate_dir = crate_source(OPENSSL_CRATE);
    let dir = scratch("openssl");
    let copied = command("cp").arg("-a").arg(crate_dir.join("openssl")).arg(dir.join("src")).status().expect("cp");
    assert!(copied.success());
    let tree = dir.join("src");

    let build = format!("{CONFIGURE} && nice -n 10 make -j2 build_libs");
    let (secs, out) = timed(drip().current_dir(&tree).args(["capture", "--", "sh", "-c", &build]));
    assert_eq!(out.status.code(), Some(0), "{}", tail(&stderr(&out), 30));
    let err = stderr(&out);
    eprintln!("openssl: Configure + make -j2 build_libs under drip capture: {secs:.0} s\n{}", tail(&err, 6));
    assert!(tree.join("libcrypto.a").is_file() && tree.join("libssl.a").is_file());
    assert!(err.contains("assembler"), "perlasm's .s files are assembled, not recorded: {err}");

    // Every object is accounted for: compiled from C and in the database, or assembled.
    let entries = db(&tree);
    let outputs: BTreeSet<String> = entries.iter().map(|e| field(e, "output")).collect();
    assert_eq!(outputs.len(), entries.len(), "one entry per object");
    let objs = objects(&tree);
    let mut from_c = 0;
    for o in &objs {
        if outputs.contains(&o.display().to_string()) {
            from_c += 1;
        } else {
            assert!(from_assembler(o), "{} was built but not recorded", o.display());
        }
    }
    assert_eq!(from_c, entries.len(), "every entry's object exists");
    assert!(entries.len() > 500, "{} entries", entries.len());
    for e in &entries {
        assert_eq!(field(e, "directory"), tree.display().to_string());
        assert!(Path::new(&field(e, "file")).is_file(), "{e}");
    }

    // Configure wrote the compiler's name, not the wrapper's: make works without drip later.
    let makefile = std::fs::read_to_string(tree.join("Makefile")).expect("Makefile");
    assert!(makefile.lines().any(|l| l == "CC=$(CROSS_COMPILE)gcc"), "Configure kept CC=gcc");
    assert!(!makefile.contains(".drip"));
    let touched = tree.join("crypto/mem.c");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options().write(true).open(&touched).expect("open").set_modified(later).expect("touch");
    let plain = command("nice").args(["-n", "10", "make", "build_libs"]).current_dir(&tree).output().expect("make");
    assert!(plain.status.success(), "make without drip after a capture: {}", tail(&stderr(&plain), 20));

    let (code, stats, err) = check(&tree);
    assert!(matches!(code, Some(0) | Some(1)), "drip check on the captured database: {code:?}: {}", tail(&err, 20));
    assert_eq!(stats["tus_failed"], 0, "{stats}");
    assert_eq!(stats["tus_parsed"], entries.len(), "{stats}");
}
