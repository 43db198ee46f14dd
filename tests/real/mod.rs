//! Helpers for the tests that capture real builds: C sources fetched through cargo, the way
//! `bench/run.sh` does it (a scratch package depending on crates that bundle the sources, then
//! `cargo fetch` and `cargo metadata`), into git-ignored folders under `target/`.

#![allow(dead_code)] // each test binary uses part of this

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// Pinned, so that the builds stay comparable; the same Lua as the benchmark.
pub const LUA_CRATE: (&str, &str) = ("lua-src", "551.1.0");
pub const OPENSSL_CRATE: (&str, &str) = ("openssl-src", "400.0.2+4.0.3");

/// Tests of one binary fetch one at a time (cargo's own lock would serialise them anyway).
static FETCH: Mutex<()> = Mutex::new(());

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The unpacked source folder of a crate, fetched from crates.io if needed.
pub fn crate_source((name, version): (&str, &str)) -> PathBuf {
    let _guard = FETCH.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("capture-fetch");
    std::fs::create_dir_all(dir.join("src")).expect("fetch dir");
    let manifest = format!(
        "[package]\nname = \"drip-capture-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         # Not a member of any enclosing workspace.\n[workspace]\n\n[dependencies]\n\
         {} = \"={}\"\n{} = \"={}\"\n",
        LUA_CRATE.0,
        LUA_CRATE.1,
        OPENSSL_CRATE.0,
        // A requirement carries no build metadata (`+4.0.3`); metadata reports it.
        OPENSSL_CRATE.1.split('+').next().unwrap_or(OPENSSL_CRATE.1)
    );
    if std::fs::read_to_string(dir.join("Cargo.toml")).ok().as_deref() != Some(manifest.as_str()) {
        std::fs::write(dir.join("Cargo.toml"), &manifest).expect("write manifest");
        let _ = std::fs::remove_file(dir.join("Cargo.lock"));
    }
    if !dir.join("src/lib.rs").exists() {
        std::fs::write(dir.join("src/lib.rs"), "").expect("lib.rs");
    }
    let find = || -> Option<PathBuf> {
        let out = cargo()
            .args(["metadata", "--format-version", "1", "--offline", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .output()
            .ok()?;
        let meta: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        let pkg = meta["packages"].as_array()?.iter().find(|p| p["name"] == name && p["version"] == version)?;
        let src = Path::new(pkg["manifest_path"].as_str()?).parent()?.to_path_buf();
        src.is_dir().then_some(src)
    };
    if let Some(src) = find() {
        return src;
    }
    let fetched =
        cargo().args(["fetch", "--manifest-path"]).arg(dir.join("Cargo.toml")).output().expect("run cargo fetch");
    assert!(
        fetched.status.success(),
        "cargo fetch failed (crates.io must be reachable): {}",
        String::from_utf8_lossy(&fetched.stderr)
    );
    find().unwrap_or_else(|| panic!("{name} {version} not found after cargo fetch"))
}

/// A command without the variables of a `make` that runs the tests (`make test`): the builds
/// below must behave as when started from a shell.
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new(program);
    for v in ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"] {
        c.env_remove(v);
    }
    c
}

pub fn drip() -> Command {
    command(env!("CARGO_BIN_EXE_drip"))
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("capture-real").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    std::fs::canonicalize(&dir).expect("canonical scratch dir")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn tail(s: &str, lines: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// The database `dir/compile_commands.json`.
pub fn db(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("compile_commands.json")).expect("compile_commands.json written");
    serde_json::from_str(&text).expect("the database is a JSON array")
}

pub fn field(e: &serde_json::Value, k: &str) -> String {
    e[k].as_str().unwrap_or_else(|| panic!("entry without {k}: {e}")).to_string()
}

/// `drip check -p dir --format json`: the exit code and the stats.
pub fn check(dir: &Path) -> (Option<i32>, serde_json::Value, String) {
    let report = dir.join("drip-report.json");
    let out = drip()
        .current_dir(dir)
        .args(["check", "-p", "compile_commands.json", "--format", "json", "-o"])
        .arg(&report)
        .output()
        .expect("run drip check");
    let v: serde_json::Value = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (out.status.code(), v["stats"].clone(), stderr(&out))
}

/// The time a command took, in seconds, and its output.
pub fn timed(cmd: &mut Command) -> (f64, Output) {
    let t = std::time::Instant::now();
    let out = cmd.output().expect("run command");
    (t.elapsed().as_secs_f64(), out)
}
