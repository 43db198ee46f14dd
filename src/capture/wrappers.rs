//! The wrapper directory: `drip-cc` under every compiler name the build may call, and the
//! environment that sends the build's compiles through it.
//!
//! Input: the state directory (`<database dir>/.drip`), the wrapper binary (the built `drip-cc`, or
//! `drip` itself where it has none), the build's PATH, CC and CXX, and extra compiler names from
//! `--compiler`. Output: `<state>/wrap/` holding the wrapper as `drip-cc` (a hard link or a copy)
//! and one symbolic link to it per compiler name found on PATH (`cc`, `gcc-12`,
//! `clang-19`, `x86_64-linux-gnu-gcc`…), and the variables to set for the build: PATH with the
//! wrapper directory first, and CC/CXX only where they name a compiler by path.
//! Invariants:
//! - the directory is stable and only grows: builds that wrote a wrapper's path into their
//!   generated files (CMake's cache, a configure-generated Makefile) keep working after drip
//!   exits, because a wrapper run without a journal just `exec`s the real compiler;
//! - a wrapper is made only for a name that exists further on PATH (or was asked for), so a
//!   configure script probing for `clang` on a machine without it still finds none;
//! - CC/CXX that the user did not set stay unset, and a CC that names its compiler by bare name
//!   (`CC=clang-19`, `CC="gcc -m32"`) is left as it is: PATH already reaches the wrapper, and
//!   setting CC would change builds that choose their own default (`CC ?= clang`).

use super::argv::LAUNCHERS;
use super::record::{ABS_DIR, WRAPPER_NAME};
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The build's view of the variables that decide which compiler runs.
#[derive(Debug, Clone, Default)]
pub struct BuildEnv {
    pub path: Option<OsString>,
    pub cc: Option<String>,
    pub cxx: Option<String>,
}

impl BuildEnv {
    pub fn from_process() -> Self {
        BuildEnv { path: std::env::var_os("PATH"), cc: std::env::var("CC").ok(), cxx: std::env::var("CXX").ok() }
    }
}

#[derive(Debug)]
pub struct Installed {
    /// `<state>/wrap`, absolute.
    pub dir: PathBuf,
    /// The compiler names wrapped, sorted.
    pub names: Vec<String>,
    /// Variables to set in the build's environment.
    pub env: Vec<(String, OsString)>,
    /// What the user should know (a CC that cannot be wrapped).
    pub notes: Vec<String>,
}

/// Is `name` the name of a C or C++ compiler driver: `cc`, `gcc`, `clang`, `c++`, `g++`,
/// `clang++`, `c89`, `c99`, each with an optional target prefix (`x86_64-linux-gnu-`) and
/// version suffix (`-12`, `-19`)? `gcc-ar-12`, `clang-cpp-19` and `c++filt` are not.
pub fn is_compiler_name(name: &str) -> bool {
    const DRIVERS: [&str; 8] = ["gcc", "g++", "clang", "clang++", "cc", "c++", "c89", "c99"];
    let mut base = name;
    if let Some((head, version)) = name.rsplit_once('-') {
        if version.starts_with(|c: char| c.is_ascii_digit()) && version.chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            base = head;
        }
    }
    DRIVERS.iter().any(|d| base == *d || base.strip_suffix(d).is_some_and(|prefix| prefix.ends_with('-')))
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Create or refresh the wrapper directory and compute the build's environment.
pub fn install(state: &Path, wrapper_exe: &Path, extra_names: &[String], env: &BuildEnv) -> io::Result<Installed> {
    let dir = state.join("wrap");
    std::fs::create_dir_all(&dir)?;
    let dir = std::fs::canonicalize(&dir)?;
    install_binary(wrapper_exe, &dir.join(WRAPPER_NAME))?;

    let path_dirs: Vec<PathBuf> = env
        .path
        .as_deref()
        .map(|p| std::env::split_paths(p).filter(|d| !d.as_os_str().is_empty() && !same_dir(d, &dir)).collect())
        .unwrap_or_default();
    let on_path = |name: &str| path_dirs.iter().any(|d| is_executable(&d.join(name)));
    let mut names: Vec<String> = Vec::new();
    for d in &path_dirs {
        let Ok(entries) = std::fs::read_dir(d) else { continue };
        for e in entries.flatten() {
            let Some(name) = e.file_name().to_str().map(str::to_string) else { continue };
            // Archivers too: which objects make which library is what `drip check` links by.
            if (is_compiler_name(&name) || super::links::is_archiver_name(&name)) && is_executable(&e.path()) {
                names.push(name);
            }
        }
    }
    names.extend(extra_names.iter().cloned());

    let mut out_env = Vec::new();
    let mut notes = Vec::new();
    for (var, value) in [("CC", &env.cc), ("CXX", &env.cxx)] {
        let Some(value) = value.as_deref().filter(|v| !v.trim().is_empty()) else { continue };
        let Ok(mut words) = shell_words::split(value) else {
            notes.push(format!("{var}={value} is not a valid command line; left as it is"));
            continue;
        };
        let first_is_launcher = words
            .first()
            .is_some_and(|w| LAUNCHERS.contains(&Path::new(w).file_name().and_then(OsStr::to_str).unwrap_or("")));
        let at = if first_is_launcher && words.len() > 1 { 1 } else { 0 };
        let compiler = words[at].clone();
        if !compiler.contains('/') {
            if on_path(&compiler) {
                names.push(compiler);
            }
            continue;
        }
        if !compiler.starts_with('/') {
            notes.push(format!(
                "{var}={value} names its compiler by a relative path: not wrapped, its compiles are not recorded"
            ));
            continue;
        }
        let stand_in = dir.join(ABS_DIR).join(compiler.trim_start_matches('/'));
        if let Some(parent) = stand_in.parent() {
            std::fs::create_dir_all(parent)?;
        }
        link(&dir.join(WRAPPER_NAME), &stand_in)?;
        let stand_in = stand_in.to_string_lossy().into_owned();
        // Keep the rest of the user's text as written; re-quote only if the path was quoted.
        let new_value = match value.find(&compiler) {
            Some(i) => format!("{}{stand_in}{}", &value[..i], &value[i + compiler.len()..]),
            None => {
                words[at] = stand_in;
                shell_words::join(&words)
            }
        };
        out_env.push((var.to_string(), OsString::from(new_value)));
    }
    names.sort();
    names.dedup();
    names.retain(|n| n != WRAPPER_NAME && !n.contains('/'));
    for n in &names {
        link(Path::new(WRAPPER_NAME), &dir.join(n))?;
    }

    let mut path = OsString::from(&dir);
    if let Some(p) = env.path.as_deref().filter(|p| !p.is_empty()) {
        path.push(":");
        path.push(p);
    } else {
        // What the shell and execvp use when PATH is unset.
        path.push(":/usr/local/bin:/usr/bin:/bin");
    }
    out_env.push(("PATH".to_string(), path));
    Ok(Installed { dir, names, env: out_env, notes })
}

/// Put the wrapper binary (`drip-cc`, or `drip` itself when it has none beside it) in place as
/// `to`, unless the same file or an identical copy is already there: a hard link where the file
/// system allows one (no copy of drip's tens of megabytes per project), else a copy. The new file
/// is renamed over the old one, so a build still running the old one is not disturbed.
fn install_binary(from: &Path, to: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(from)?;
    if let Ok(old) = std::fs::metadata(to) {
        if (old.dev(), old.ino()) == (meta.dev(), meta.ino()) {
            return Ok(());
        }
        if old.len() == meta.len() && std::fs::read(to)? == std::fs::read(from)? {
            return Ok(());
        }
    }
    let tmp = to.with_file_name(format!(".{WRAPPER_NAME}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    // Another file system (EXDEV) or a file of another user under `protected_hardlinks` (EPERM):
    // a copy, which is as good.
    if std::fs::hard_link(from, &tmp).is_err() {
        std::fs::copy(from, &tmp)?;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
    }
    std::fs::rename(&tmp, to)
}

/// Make `at` a symbolic link to `target`, replacing whatever is there (atomically, by rename).
fn link(target: &Path, at: &Path) -> io::Result<()> {
    if std::fs::read_link(at).is_ok_and(|t| t == target) {
        return Ok(());
    }
    let name = at.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = at.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)?;
    std::fs::rename(&tmp, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_names() {
        for n in [
            "cc",
            "gcc",
            "gcc-12",
            "clang",
            "clang-19",
            "clang++-19",
            "c++",
            "g++-12",
            "x86_64-linux-gnu-gcc",
            "x86_64-linux-gnu-gcc-12",
            "aarch64-linux-gnu-g++",
            "c89",
            "c99-gcc",
            "musl-gcc",
            "gcc-12.2",
        ] {
            assert!(is_compiler_name(n), "{n}");
        }
        for n in [
            "gcc-ar",
            "gcc-ar-12",
            "x86_64-linux-gnu-gcc-nm-12",
            "clang-cpp-19",
            "c++filt",
            "clang-tidy",
            "clang-format-19",
            "distcc",
            "ccache",
            "icc",
            "cpp",
            "ld",
        ] {
            assert!(!is_compiler_name(n), "{n}");
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("drip-wrappers-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch");
        std::fs::canonicalize(&d).expect("canonical")
    }

    fn executable(p: &Path) {
        std::fs::write(p, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn wrappers_follow_path_and_cc() {
        let d = scratch("install");
        let bin = d.join("bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        for n in ["gcc", "gcc-12", "gcc-ar-12", "mycc", "x86_64-linux-gnu-gcc"] {
            executable(&bin.join(n));
        }
        std::fs::write(bin.join("clang"), "not executable").expect("write");
        let exe = d.join("built-drip-cc");
        executable(&exe);
        let env = BuildEnv {
            path: Some(bin.clone().into_os_string()),
            cc: Some("ccache mycc -m32".to_string()),
            cxx: Some("/opt/x/bin/g++ -std=c++17".to_string()),
        };
        let state = d.join(".drip");
        let inst = install(&state, &exe, &["tcc".to_string()], &env).expect("install");
        // Archivers too: the link steps say which objects make which program.
        assert_eq!(inst.names, ["gcc", "gcc-12", "gcc-ar-12", "mycc", "tcc", "x86_64-linux-gnu-gcc"]);
        assert_eq!(std::fs::read_link(inst.dir.join("gcc")).expect("link"), PathBuf::from(WRAPPER_NAME));
        assert!(is_executable(&inst.dir.join(WRAPPER_NAME)));
        let get = |k: &str| inst.env.iter().find(|(n, _)| n == k).map(|(_, v)| v.to_string_lossy().into_owned());
        assert_eq!(get("CC"), None, "a bare-name CC is reached through PATH and left alone");
        let stand_in = inst.dir.join("abs/opt/x/bin/g++");
        assert_eq!(get("CXX"), Some(format!("{} -std=c++17", stand_in.display())));
        assert!(std::fs::symlink_metadata(&stand_in).is_ok_and(|m| m.file_type().is_symlink()));
        assert_eq!(get("PATH"), Some(format!("{}:{}", inst.dir.display(), bin.display())));
        // Installing again changes nothing and does not wrap the wrapper directory itself.
        let env2 = BuildEnv { path: Some(OsString::from(get("PATH").expect("PATH"))), ..env };
        let again = install(&state, &exe, &[], &env2).expect("install again");
        assert_eq!(again.names, ["gcc", "gcc-12", "gcc-ar-12", "mycc", "x86_64-linux-gnu-gcc"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn relative_cc_is_noted_not_wrapped() {
        let d = scratch("relative");
        let exe = d.join("built-drip-cc");
        executable(&exe);
        let env = BuildEnv { path: None, cc: Some("./tools/cc".to_string()), cxx: None };
        let inst = install(&d.join(".drip"), &exe, &[], &env).expect("install");
        assert_eq!(inst.notes.len(), 1, "{:?}", inst.notes);
        assert!(inst.env.iter().all(|(k, _)| k != "CC"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
