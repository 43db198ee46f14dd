//! `drip capture` on small projects whose Makefiles and scripts the tests write: what gets
//! recorded, that the build's products and exit status are untouched, merging, incremental
//! builds, configure-style probes, CC handling, launchers, and `--check`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A command without the variables of a `make` that runs the tests (`make test`): the builds
/// below must behave as when started from a shell.
fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new(program);
    for v in ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"] {
        c.env_remove(v);
    }
    c
}

fn drip() -> Command {
    command(env!("CARGO_BIN_EXE_drip"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("capture").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    std::fs::canonicalize(&dir).expect("canonical scratch dir")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(&p, text).expect("write file");
    p
}

fn executable(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = write(dir, name, text);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Run `drip capture [opts] -- build…` in `dir`.
fn capture(dir: &Path, opts: &[&str], build: &[&str]) -> Output {
    drip().current_dir(dir).arg("capture").args(opts).arg("--").args(build).output().expect("run drip capture")
}

fn make(dir: &Path, args: &[&str]) -> Output {
    command("make").current_dir(dir).args(args).output().expect("run make")
}

fn db(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("compile_commands.json")).expect("compile_commands.json written");
    serde_json::from_str(&text).expect("the database is a JSON array")
}

fn field(e: &serde_json::Value, k: &str) -> String {
    e[k].as_str().unwrap_or_else(|| panic!("entry without {k}: {e}")).to_string()
}

fn files(entries: &[serde_json::Value]) -> BTreeSet<String> {
    entries.iter().map(|e| field(e, "file")).collect()
}

fn set(dir: &Path, names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| dir.join(n).display().to_string()).collect()
}

/// A program in two directories, the second built by a sub-make, with a dependency step, a
/// preprocessor run and compiler probes along the way.
fn write_project(dir: &Path) {
    write(dir, "src/main.c", "#include <stdio.h>\n#include \"lib.h\"\nint util(int);\nint list(int);\nint str(int);\nint main(void) { printf(\"%d\\n\", util(1) + list(2) + str(3) + a(4) + b(5)); return 0; }\n");
    write(dir, "src/util.c", "int util(int x) { return x * 10; }\n");
    write(dir, "src/list.c", "#include <stdlib.h>\nint list(int x) { int *p = malloc(sizeof *p); if (!p) return 0; *p = x; int r = *p * 100; free(p); return r; }\n");
    write(dir, "src/str.c", "#include <string.h>\nint str(int x) { return (int)strlen(\"abc\") * x; }\n");
    write(dir, "lib/lib.h", "int a(int);\nint b(int);\n");
    write(dir, "lib/a.c", "#include \"lib.h\"\nint a(int x) { return x + 1000; }\n");
    write(dir, "lib/b.c", "#include \"lib.h\"\nint b(int x) { return x + 2000; }\n");
    write(
        dir,
        "Makefile",
        "CFLAGS = -O2 -Wall\nOBJS = src/main.o src/util.o src/list.o src/str.o\n\
         all: probe deps.mk prog\n\
         prog: $(OBJS) lib/liba.a\n\t$(CC) -o $@ $(OBJS) lib/liba.a\n\
         src/%.o: src/%.c\n\t$(CC) $(CFLAGS) -Ilib -c $< -o $@\n\
         lib/liba.a: FORCE\n\t$(MAKE) -C lib\n\
         deps.mk: $(wildcard src/*.c)\n\t$(CC) -MM -Ilib $^ > $@\n\
         probe:\n\t$(CC) --version > /dev/null\n\t$(CC) -dumpmachine > /dev/null\n\t$(CC) -E -Ilib src/main.c > /dev/null\n\
         FORCE:\n\
         clean:\n\trm -f prog deps.mk src/*.o lib/*.o lib/liba.a\n\
         .PHONY: all probe clean FORCE\n",
    );
    write(dir, "lib/Makefile", "liba.a: a.o b.o\n\t$(AR) rcs $@ a.o b.o\n%.o: %.c\n\t$(CC) -O2 -c $<\n");
}

const OBJECTS: [&str; 6] = ["src/main.o", "src/util.o", "src/list.o", "src/str.o", "lib/a.o", "lib/b.o"];

#[test]
fn parallel_make_records_every_c_file_and_changes_nothing() {
    let dir = scratch("parallel");
    write_project(&dir);
    let plain = make(&dir, &["-j4"]);
    assert!(plain.status.success(), "the project builds without drip: {}", stderr(&plain));
    let objects: Vec<Vec<u8>> = OBJECTS.iter().map(|o| std::fs::read(dir.join(o)).expect("object")).collect();
    let run = command(dir.join("prog")).output().expect("run prog");
    assert!(make(&dir, &["clean"]).status.success());
    // Left by a capture that was killed: its process is gone, so the next run removes it.
    std::fs::create_dir_all(dir.join(".drip/capture-2147483000")).expect("stale run dir");

    let out = capture(&dir, &[], &["make", "-j4"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let entries = db(&dir);
    assert_eq!(
        files(&entries),
        set(&dir, &["src/main.c", "src/util.c", "src/list.c", "src/str.c", "lib/a.c", "lib/b.c"])
    );
    for e in &entries {
        let file = PathBuf::from(field(e, "file"));
        let expected_dir = if file.starts_with(dir.join("lib")) { dir.join("lib") } else { dir.clone() };
        assert_eq!(field(e, "directory"), expected_dir.display().to_string(), "{e}");
        assert_eq!(field(e, "output"), file.with_extension("o").display().to_string(), "{e}");
        let args = e["arguments"].as_array().expect("arguments form");
        assert!(args.iter().any(|a| a == "-c"), "{e}");
        assert!(
            !args[0].as_str().unwrap_or_default().contains(".drip"),
            "the real compiler is recorded, not the wrapper: {e}"
        );
    }
    // Same objects, byte for byte, and the same program.
    for (o, before) in OBJECTS.iter().zip(&objects) {
        assert_eq!(&std::fs::read(dir.join(o)).expect("object"), before, "{o} differs when built under drip capture");
    }
    let again = command(dir.join("prog")).output().expect("run prog");
    assert_eq!(stdout(&again), stdout(&run));
    assert_eq!(stdout(&run), "3228\n");
    let err = stderr(&out);
    for skipped in ["probe", "preprocess-only", "link-only", "6 translation units (6 C)"] {
        assert!(err.contains(skipped), "the summary names {skipped}: {err}");
    }
    // The run's journal is gone, and the stale one; the wrappers stay for builds that remember
    // their path.
    let state: Vec<String> = std::fs::read_dir(dir.join(".drip"))
        .expect(".drip")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(state.iter().all(|n| !n.starts_with("capture-")), "{state:?}");
    assert!(dir.join(".drip/wrap/drip-cc").is_file());
}

#[test]
fn the_build_status_is_passed_through() {
    let dir = scratch("status");
    write(&dir, "good.c", "int good(void) { return 1; }\n");
    write(&dir, "bad.c", "int bad(void) { return }\n");
    write(&dir, "Makefile", "all: good.o bad.o\n%.o: %.c\n\t$(CC) -c $< -o $@\n");
    let out = capture(&dir, &["--check"], &["make", "-k"]);
    assert_eq!(out.status.code(), Some(2), "make's own status: {}", stderr(&out));
    assert!(stderr(&out).contains("the build failed (exit status 2)"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("drip: 1 TUs"), "no check after a failed build: {}", stderr(&out));
    assert_eq!(files(&db(&dir)), set(&dir, &["good.c"]), "the compiles that succeeded are recorded");

    assert_eq!(capture(&dir, &[], &["sh", "-c", "exit 7"]).status.code(), Some(7));
    assert_eq!(capture(&dir, &[], &["sh", "-c", "kill -TERM $$"]).status.code(), Some(128 + 15));
    let missing = capture(&dir, &[], &["no-such-build-tool-xyz"]);
    assert_eq!(missing.status.code(), Some(127));
    assert!(stderr(&missing).contains("no-such-build-tool-xyz"), "{}", stderr(&missing));
}

#[test]
fn sigterm_to_drip_reaches_the_build_and_what_was_compiled_is_kept() {
    let dir = scratch("sigterm");
    write(&dir, "a.c", "int a(void) { return 0; }\n");
    let script = "trap 'exit 42' TERM; cc -c a.c && touch compiled; while :; do sleep 0.1; done";
    let child = drip()
        .current_dir(&dir)
        .args(["capture", "--", "sh", "-c", script])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !dir.join("compiled").exists() {
        assert!(std::time::Instant::now() < deadline, "the build never compiled");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let killed = command("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(killed.success());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(42), "the build got SIGTERM and its status is drip's: {}", stderr(&out));
    assert_eq!(files(&db(&dir)), set(&dir, &["a.c"]), "drip outlived the signal and wrote the database");
}

#[test]
fn merge_with_an_existing_database_and_incremental_rebuilds() {
    let dir = scratch("merge");
    for f in ["a", "b", "c"] {
        write(&dir, &format!("{f}.c"), &format!("int {f}_fn(void) {{ return 1; }}\n"));
    }
    write(
        &dir,
        "main.c",
        "int a_fn(void), b_fn(void), c_fn(void);\nint main(void) { return a_fn() + b_fn() + c_fn() - 3; }\n",
    );
    write(&dir, "other/x.c", "int x;\n");
    write(
        &dir,
        "Makefile",
        "CFLAGS = -O2\nprog: main.o a.o b.o c.o\n\t$(CC) -o $@ $^\n%.o: %.c\n\t$(CC) $(CFLAGS) -c $< -o $@\n",
    );
    let existing = serde_json::json!([
        {"directory": "other", "file": "x.c", "command": "cc -c x.c -o x.o"},
        {"directory": dir.display().to_string(), "file": "gone.c", "arguments": ["cc", "-c", "gone.c"]},
        {"directory": dir.display().to_string(), "file": "a.c", "arguments": ["cc", "-O0", "-c", "a.c", "-o", "a.o"]},
    ]);
    write(&dir, "compile_commands.json", &existing.to_string());

    let out = capture(&dir, &[], &["make"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let entries = db(&dir);
    assert_eq!(
        files(&entries),
        [dir.join("a.c"), dir.join("b.c"), dir.join("c.c"), dir.join("main.c")]
            .iter()
            .map(|p| p.display().to_string())
            .chain(["x.c".to_string()])
            .collect()
    );
    let a = entries.iter().find(|e| field(e, "file").ends_with("/a.c")).expect("a.c");
    assert_eq!(a["arguments"][1], "-O2", "the new compile of a.c replaced the old entry");
    let err = stderr(&out);
    assert!(err.contains("5 entries (3 new, 1 updated, 1 kept from before)"), "{err}");
    assert!(err.contains("1 entry dropped from the old database"), "{err}");

    // Only b.c changes: make recompiles it alone, and the database keeps the others.
    write(&dir, "b.c", "int b_fn(void) { return 2 - 1; }\n");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options().write(true).open(dir.join("b.c")).expect("open").set_modified(later).expect("touch");
    let out = capture(&dir, &[], &["make"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("2 compiler runs recorded: 1 translation unit"), "b.c and the link: {err}");
    assert!(err.contains("5 entries (0 new, 1 unchanged, 4 kept from before)"), "{err}");
    assert_eq!(db(&dir), entries, "same compiles, same database");

    // Same file, other flags: the entry is updated in place, nothing is duplicated.
    let out = capture(&dir, &[], &["make", "-B", "b.o", "CFLAGS=-O1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let entries = db(&dir);
    assert_eq!(entries.len(), 5);
    let b = entries.iter().find(|e| field(e, "file").ends_with("/b.c")).expect("b.c");
    assert_eq!(b["arguments"][1], "-O1");
}

#[test]
fn a_database_that_is_not_one_is_left_alone() {
    let dir = scratch("not-a-db");
    write(&dir, "a.c", "int a(void) { return 0; }\n");
    write(&dir, "compile_commands.json", "{\"not\": \"a list\"}");
    let out = capture(&dir, &[], &["cc", "-c", "a.c"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("left untouched"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(dir.join("compile_commands.json")).expect("db"), "{\"not\": \"a list\"}");
    let aside: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("compile_commands.json.new")).expect("aside"))
            .expect("json");
    assert_eq!(files(&aside), set(&dir, &["a.c"]));
    assert!(dir.join("a.o").is_file(), "the build itself ran normally");
}

#[test]
fn a_linked_database_is_updated_where_it_lives() {
    let dir = scratch("symlink");
    write(&dir, "a.c", "int a(void) { return 0; }\n");
    std::fs::create_dir_all(dir.join("build")).expect("mkdir");
    write(&dir, "build/compile_commands.json", "[]");
    std::os::unix::fs::symlink("build/compile_commands.json", dir.join("compile_commands.json")).expect("symlink");
    let out = capture(&dir, &[], &["cc", "-c", "a.c"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(dir.join("compile_commands.json")).expect("link").file_type().is_symlink(),
        "still a link"
    );
    assert_eq!(files(&db(&dir.join("build"))), set(&dir, &["a.c"]));
}

#[test]
fn configure_probes_and_vanished_files_are_left_out_and_baked_wrappers_keep_working() {
    let dir = scratch("configure");
    write(&dir, "main.c", "int main(void) { return 0; }\n");
    // Like autoconf: throwaway conftest compiles, compiles of stdin and /dev/null, and a
    // compiler path written into the generated Makefile (as CMake does with its cache).
    write(
        &dir,
        "configure",
        "set -e\n\
         printf 'int main(void) { return 0; }\\n' > conftest.c\n\
         cc -c conftest.c -o conftest.o\n\
         cc conftest.o -o conftest\n\
         rm -f conftest.c conftest.o conftest\n\
         printf 'int x;\\n' | cc -x c -c - -o conftest.o && rm -f conftest.o\n\
         cc -Werror -c -x c /dev/null -o /dev/null\n\
         cc -E -x c /dev/null > /dev/null\n\
         printf 'CC = %s\\nprog: main.c\\n\\t$(CC) -o prog main.c\\n' \"$(command -v cc)\" > Makefile\n",
    );
    let out = capture(&dir, &[], &["sh", "-c", "sh configure && make"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let entries = db(&dir);
    assert_eq!(files(&entries), set(&dir, &["main.c"]), "conftest.c is gone, the rest were probes");
    let args: Vec<&str> =
        entries[0]["arguments"].as_array().expect("arguments").iter().filter_map(|a| a.as_str()).collect();
    assert_eq!(&args[1..], ["main.c", "-c"], "compile-and-link becomes a compile of the one file");
    assert!(entries[0].get("output").is_none(), "its object was a temporary");
    let err = stderr(&out);
    assert!(err.contains("1 compile left out: the file or its directory no longer exists"), "{err}");

    // The generated Makefile names the wrapper; make works without drip, and records nothing.
    let makefile = std::fs::read_to_string(dir.join("Makefile")).expect("Makefile");
    assert!(makefile.contains(&format!("CC = {}", dir.join(".drip/wrap/cc").display())), "{makefile}");
    std::fs::remove_file(dir.join("prog")).expect("rm prog");
    let db_before = std::fs::read_to_string(dir.join("compile_commands.json")).expect("db");
    let plain = make(&dir, &[]);
    assert!(plain.status.success(), "make without drip: {}", stderr(&plain));
    assert!(dir.join("prog").is_file());
    assert_eq!(std::fs::read_to_string(dir.join("compile_commands.json")).expect("db"), db_before);
}

#[test]
fn the_users_cc_is_respected_by_name_and_by_path() {
    let dir = scratch("user-cc");
    let tools = dir.join("tools");
    // A compiler of the user's own, which itself runs `gcc` from PATH (so it meets the gcc
    // wrapper again below it: that compile must not be recorded twice).
    let mycc = executable(&tools, "mycc", "#!/bin/sh\nexec gcc \"$@\"\n");
    write(&dir, "a.c", "int a(void) { return 0; }\n");
    write(&dir, "Makefile", "a.o: a.c\n\t$(CC) -c a.c -o a.o\n");
    let path = format!("{}:{}", tools.display(), std::env::var("PATH").unwrap_or_default());

    let out = drip()
        .current_dir(&dir)
        .env("PATH", &path)
        .env("CC", "mycc")
        .args(["capture", "--", "make"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).lines().any(|l| l == "mycc -c a.c -o a.o"), "CC is left as the user set it: {}", stdout(&out));
    let entries = db(&dir);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["arguments"][0], mycc.display().to_string());
    assert!(stderr(&out).contains("1 compiler run recorded"), "{}", stderr(&out));

    std::fs::remove_file(dir.join("a.o")).expect("rm");
    let out = drip().current_dir(&dir).env("CC", &mycc).args(["capture", "--", "make"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(".drip/wrap/abs/"),
        "a CC given as a path is replaced by its stand-in: {}",
        stdout(&out)
    );
    assert_eq!(db(&dir)[0]["arguments"][0], mycc.display().to_string());
}

#[test]
fn a_launcher_that_finds_the_wrapper_again_does_not_loop() {
    let dir = scratch("launcher");
    // Like ccache's masquerade directory: `cc` there runs the next `cc` on PATH, which is
    // drip's wrapper again.
    let launch = dir.join("launch");
    let launcher = executable(&launch, "cc", "#!/bin/sh\nexec cc \"$@\"\n");
    write(&dir, "a.c", "int a(void) { return 0; }\n");
    let path = format!("{}:{}", launch.display(), std::env::var("PATH").unwrap_or_default());
    let out =
        drip().current_dir(&dir).env("PATH", &path).args(["capture", "--", "cc", "-c", "a.c"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dir.join("a.o").is_file());
    assert!(stderr(&out).contains("1 compiler run recorded"), "recorded once: {}", stderr(&out));
    assert_eq!(db(&dir)[0]["arguments"][0], launcher.display().to_string());
}

#[test]
fn response_files_several_sources_and_recording_failures() {
    let dir = scratch("rsp");
    write(&dir, "a.c", "int a(void) { return FROM_RSP; }\n");
    write(&dir, "b.c", "int b(void) { return FROM_RSP; }\n");
    let out = capture(
        &dir,
        &[],
        &["sh", "-c", "printf '%s\\n' '-DFROM_RSP=1 -c' > args.rsp && cc @args.rsp a.c b.c && rm args.rsp"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let entries = db(&dir);
    assert_eq!(files(&entries), set(&dir, &["a.c", "b.c"]));
    for e in &entries {
        let args: Vec<&str> = e["arguments"].as_array().expect("arguments").iter().filter_map(|a| a.as_str()).collect();
        let file = field(e, "file");
        let own = Path::new(&file).file_name().and_then(|n| n.to_str()).expect("name");
        assert_eq!(&args[1..], ["-DFROM_RSP=1", "-c", own], "the response file is expanded, one source each");
    }

    // The journal disappears mid-build: the build still succeeds, and drip says what it lost.
    let out = capture(
        &dir,
        &[],
        &["sh", "-c", "cc -c a.c -DFROM_RSP=1 && rm -f \"$DRIP_CAPTURE_JOURNAL\" && cc -c b.c -DFROM_RSP=1"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("1 compile could not be recorded"), "{}", stderr(&out));
}

#[test]
fn capture_then_check_in_one_go() {
    let dir = scratch("check");
    write(&dir, "leak.c", "#include <stdlib.h>\nint leak(int n) {\n  char *p = malloc(n);\n  if (n > 10) return -1;\n  free(p);\n  return 0;\n}\n");
    write(&dir, "Makefile", "leak.o: leak.c\n\t$(CC) -c leak.c -o leak.o\n");
    let out = capture(&dir, &["--cdb", "build/db.json", "--check", "--format", "json", "-o", "report.json"], &["make"]);
    assert!(!dir.join("build/db.json").exists());
    assert_eq!(out.status.code(), Some(2), "the database's directory must exist: {}", stderr(&out));
    std::fs::create_dir_all(dir.join("build")).expect("mkdir");
    let out = capture(&dir, &["--cdb", "build/db.json", "--check", "--format", "json", "-o", "report.json"], &["make"]);
    assert_eq!(out.status.code(), Some(1), "check's exit status: findings: {}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report")).expect("json");
    assert_eq!(report["diagnostics"][0]["rule"], "leak", "{report}");
    assert_eq!(report["stats"]["tus_parsed"], 1);
    assert!(dir.join("build/.drip/wrap").is_dir(), "the state lives beside the database");

    // Bad check options are refused before the build runs.
    let out = capture(&dir, &["--check", "-p", "elsewhere"], &["touch", "built"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.join("built").exists(), "the build did not run");
    let out = capture(&dir, &["--check", "--format", "yaml"], &["touch", "built"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("invalid value 'yaml' for '--format <FORMAT>'"), "{}", stderr(&out));
}

#[test]
fn the_wrapper_does_not_load_libclang_and_is_not_a_command_of_its_own() {
    let exe = env!("CARGO_BIN_EXE_drip-cc");
    let out = command("readelf").args(["-d", exe]).output().expect("readelf (binutils)");
    assert!(out.status.success());
    let dynamic = stdout(&out);
    assert!(dynamic.contains("NEEDED"), "{dynamic}");
    assert!(!dynamic.contains("libclang"), "drip-cc must start fast: {dynamic}");
    let direct = command(exe).arg("--version").output().expect("run drip-cc");
    assert_eq!(direct.status.code(), Some(2));
    assert!(stderr(&direct).contains("compiler's name"), "{}", stderr(&direct));
}

/// An installation of `drip` alone (copied without `drip-cc`): capture uses drip itself as the
/// wrapper, started as `drip-cc`, and records the same database; with `drip-cc` beside it, the
/// faster `drip-cc` is installed instead.
#[test]
fn capture_works_with_only_drip_installed() {
    use std::os::unix::fs::MetadataExt;
    let dir = scratch("drip-alone");
    write_project(&dir);
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let alone = bin.join("drip");
    std::fs::copy(env!("CARGO_BIN_EXE_drip"), &alone).expect("copy drip");
    let out = command(&alone)
        .current_dir(&dir)
        .args(["capture", "-v", "--check", "--format", "json", "-o", "report.json", "--", "make", "-j2"])
        .output()
        .expect("run drip capture");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("no drip-cc beside"), "{}", stderr(&out));
    let entries = db(&dir);
    assert_eq!(
        files(&entries),
        set(&dir, &["src/main.c", "src/util.c", "src/list.c", "src/str.c", "lib/a.c", "lib/b.c"])
    );
    for e in &entries {
        let args = e["arguments"].as_array().expect("arguments form");
        assert!(args.iter().any(|a| a == "-c"), "{e}");
        assert!(!args[0].as_str().unwrap_or_default().contains(".drip"), "the real compiler is recorded: {e}");
    }
    assert!(dir.join("report.json").is_file(), "--check ran on the database");
    assert!(links_of(&dir).contains("prog"), "link steps are recorded too");
    // The wrapper is drip itself (a hard link here: the same file system), and run under its
    // own name it is not a command.
    let wrapper = dir.join(".drip/wrap/drip-cc");
    let (a, w) = (std::fs::metadata(&alone).expect("drip"), std::fs::metadata(&wrapper).expect("wrapper"));
    assert_eq!((a.dev(), a.ino()), (w.dev(), w.ino()), "drip is linked in, not copied");
    let direct = command(&wrapper).arg("--version").output().expect("run the wrapper");
    assert_eq!(direct.status.code(), Some(2));
    assert!(stderr(&direct).contains("compiler's name"), "{}", stderr(&direct));

    // With drip-cc beside drip, drip-cc replaces it, and the next capture records the same.
    std::fs::copy(env!("CARGO_BIN_EXE_drip-cc"), bin.join("drip-cc")).expect("copy drip-cc");
    assert!(make(&dir, &["clean"]).status.success());
    let before = std::fs::read_to_string(dir.join("compile_commands.json")).expect("db");
    let out = command(&alone).current_dir(&dir).args(["capture", "--", "make", "-j2"]).output().expect("capture");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(dir.join("compile_commands.json")).expect("db"), before);
    let cc = std::fs::metadata(bin.join("drip-cc")).expect("drip-cc");
    let w = std::fs::metadata(&wrapper).expect("wrapper");
    assert_eq!((cc.dev(), cc.ino()), (w.dev(), w.ino()), "drip-cc is the wrapper when it is there");
}

/// The output names in `drip_links.json`.
fn links_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("drip_links.json")).unwrap_or_default()
}

#[test]
fn tus_prepared_during_the_build_are_loaded_not_parsed_by_check() {
    let dir = scratch("background");
    for f in ["a", "b", "c"] {
        write(&dir, &format!("{f}.c"), &format!("#include <stdlib.h>\nint {f}_fn(int n) {{ char *p = malloc(n); if (!p) return 1; free(p); return 0; }}\n"));
    }
    // Each compile takes a while, as real ones do, so the background worker keeps up.
    write(&dir, "Makefile", "all: a.o b.o c.o\n%.o: %.c\n\t$(CC) -c $< -o $@ && sleep 1\n");
    let out = capture(&dir, &["--check", "--format", "json", "-o", "report.json"], &["make"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("background: 3 TUs seen during the build, 3 prepared"), "{}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report")).expect("json");
    assert_eq!(report["stats"]["cache"]["tus_parsed"], 0, "{}", report["stats"]);
    assert_eq!(report["stats"]["cache"]["tus_loaded"], 3, "{}", report["stats"]);
}

/// Two programs with their own `xmalloc` (one mallocs, one hands out a static buffer) and a
/// shared archive: the link steps (`ar`, `cc -o`, `-L`/`-l`) are recorded in drip_links.json,
/// and `drip check` links each program from its own objects: the shared function's leak, real
/// only with the shell's xmalloc, is reported once, and nothing is resolved by guesswork.
#[test]
fn link_steps_are_recorded_and_each_program_is_linked_from_its_own_objects() {
    let dir = scratch("links");
    let header = "#include <stdlib.h>\n#include <string.h>\nvoid *xmalloc(size_t n);\n";
    write(&dir, "common/words.c", &format!("{header}int word_len(const char *s) {{\n  char *w = xmalloc(strlen(s) + 1);\n  strcpy(w, s);\n  if (w[0] == 0) return 0;\n  int n = (int)strlen(w);\n  free(w);\n  return n;\n}}\n"));
    write(
        &dir,
        "shell/xmalloc.c",
        &format!("{header}void *xmalloc(size_t n) {{\n  void *p = malloc(n);\n  if (!p) abort();\n  return p;\n}}\n"),
    );
    write(&dir, "tool/xmalloc.c", &format!("{header}static char arena[64];\nvoid *xmalloc(size_t n) {{\n  if (n > sizeof arena) abort();\n  return arena;\n}}\n"));
    let main = format!("{header}int word_len(const char *s);\nint main(int argc, char **argv) {{\n  return argc > 1 ? word_len(argv[1]) : 0;\n}}\n");
    write(&dir, "shell/main.c", &main);
    write(&dir, "tool/main.c", &main);
    write(
        &dir,
        "Makefile",
        "all: shell/sh tool/mk\n\
         %.o: %.c\n\tcc -c -o $@ $<\n\
         common/libwords.a: common/words.o\n\tar rcs $@ $^\n\
         shell/sh: shell/main.o shell/xmalloc.o common/libwords.a\n\tcc -o $@ shell/main.o shell/xmalloc.o -Lcommon -lwords\n\
         tool/mk: tool/main.o tool/xmalloc.o common/libwords.a\n\tcc -o $@ $^\n",
    );
    let out = capture(&dir, &["--check", "--format", "json", "-o", "report.json"], &["make"]);
    assert_eq!(out.status.code(), Some(1), "one finding: {}", stderr(&out));
    let links: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("drip_links.json")).expect("drip_links.json written"))
            .expect("a JSON array");
    let out_of = |r: &serde_json::Value| field(r, "output");
    let outputs: Vec<String> = links.iter().map(out_of).collect();
    let p = |n: &str| dir.join(n).display().to_string();
    assert_eq!(outputs, [p("common/libwords.a"), p("shell/sh"), p("tool/mk")], "{links:?}");
    assert_eq!(links[0]["kind"], "archive");
    assert_eq!(links[0]["inputs"], serde_json::json!([p("common/words.o")]));
    assert_eq!(links[1]["kind"], "executable");
    assert_eq!(links[1]["libraries"], serde_json::json!(["words"]));
    assert_eq!(links[2]["inputs"][2], p("common/libwords.a"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report")).expect("json");
    let diags = report["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diags.len(), 1, "{report}");
    assert_eq!(diags[0]["function"], "word_len");
    assert_eq!(report["notifications"], serde_json::json!([]), "no duplicate resolved without link information");
    assert!(!stderr(&out).contains("defined more than once"), "{}", stderr(&out));
    // Clones and their deduplicated findings do not depend on the number of threads.
    let text = |j: &str| drip().current_dir(&dir).args(["check", "--no-cache", "-j", j]).output().expect("drip").stdout;
    assert_eq!(text("1"), text("2"));
    // Without the link file the same check says it had to choose.
    std::fs::remove_file(dir.join("drip_links.json")).expect("rm");
    let out = drip().current_dir(&dir).args(["check", "--no-cache", "--format", "json"]).output().expect("drip");
    assert!(stderr(&out).contains("2 function names are defined more than once"), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let ids: Vec<&str> =
        report["notifications"].as_array().expect("notifications").iter().filter_map(|n| n["id"].as_str()).collect();
    assert_eq!(ids, ["duplicate-definition", "duplicate-definition"], "{report}");
    let out = drip().current_dir(&dir).args(["check", "--format", "sarif"]).output().expect("drip");
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).expect("sarif");
    let notes = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes.as_array().map(Vec::len), Some(2), "{sarif}");
    assert_eq!(notes[0]["descriptor"]["id"], "duplicate-definition");
    assert!(notes[1]["message"]["text"].as_str().is_some_and(|t| t.contains("`xmalloc`")), "{notes}");
}
