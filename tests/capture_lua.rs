//! `drip capture` on a real build: Lua 5.4 from the `lua-src` crate (fetched through cargo),
//! built out of tree by a Makefile this test writes, under `make -j4`, then `drip check` on
//! the captured database.

mod real;

use real::*;
use std::collections::BTreeSet;
use std::path::Path;

const MAIN: &str = r#"#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
int main(void) {
    lua_State *L = luaL_newstate();
    if (L == NULL)
        return 1;
    luaL_openlibs(L);
    int rc = luaL_dostring(L, "local t = {} for i = 1, 6 do t[i] = i * 7 end print(t[6])");
    lua_close(L);
    return rc;
}
"#;

/// Lua's own flags for `make linux`; the library out of tree in obj/, a test program beside it.
fn makefile(src: &Path) -> String {
    format!(
        "SRC = {}\n\
         CFLAGS = -std=gnu99 -O2 -Wall -DLUA_COMPAT_5_3 -DLUA_USE_LINUX\n\
         OBJS = $(patsubst $(SRC)/%.c,obj/%.o,$(wildcard $(SRC)/*.c))\n\
         all: luatest\n\
         obj:\n\tmkdir -p obj\n\
         obj/%.o: $(SRC)/%.c | obj\n\t$(CC) $(CFLAGS) -c $< -o $@\n\
         liblua.a: $(OBJS)\n\t$(AR) rcs $@ $^\n\
         luatest: main.c liblua.a\n\t$(CC) $(CFLAGS) -I$(SRC) -o $@ main.c liblua.a -lm -ldl\n",
        src.display()
    )
}

fn project(name: &str, src: &Path) -> std::path::PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("Makefile"), makefile(src)).expect("Makefile");
    std::fs::write(dir.join("main.c"), MAIN).expect("main.c");
    dir
}

fn objects(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("obj"))
        .expect("obj/")
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).expect("object")))
        .collect();
    v.sort();
    v
}

#[test]
fn lua_built_by_make_j4_is_captured_and_checked() {
    let crate_dir = crate_source(LUA_CRATE);
    let src = crate_dir.join("lua-5.4.9");
    let c_files: BTreeSet<String> = std::fs::read_dir(&src)
        .expect("lua sources")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .map(|p| p.display().to_string())
        .collect();
    assert!(c_files.len() >= 30, "{} C files in {}", c_files.len(), src.display());

    // The same build without drip, for comparison.
    let plain = project("lua-plain", &src);
    let (plain_s, out) = timed(command("nice").args(["-n", "10", "make", "-j4"]).current_dir(&plain));
    assert!(out.status.success(), "Lua builds without drip: {}", tail(&stderr(&out), 20));

    let dir = project("lua", &src);
    let (capture_s, out) = timed(drip().current_dir(&dir).args(["capture", "--", "nice", "-n", "10", "make", "-j4"]));
    assert_eq!(out.status.code(), Some(0), "{}", tail(&stderr(&out), 20));
    eprintln!("lua: make -j4 {plain_s:.1} s without drip, {capture_s:.1} s under drip capture");

    let entries = db(&dir);
    let captured: BTreeSet<String> = entries.iter().map(|e| field(e, "file")).collect();
    let mut expected = c_files.clone();
    expected.insert(dir.join("main.c").display().to_string());
    assert_eq!(captured, expected, "every Lua .c file and the test program, once each");
    for e in &entries {
        assert_eq!(field(e, "directory"), dir.display().to_string());
        let file = field(e, "file");
        if file.ends_with("/main.c") {
            assert!(e.get("output").is_none(), "compiled and linked in one go: {e}");
            continue;
        }
        let stem = Path::new(&file).file_stem().and_then(|s| s.to_str()).expect("stem").to_string();
        assert_eq!(field(e, "output"), dir.join("obj").join(format!("{stem}.o")).display().to_string());
    }

    // The build's products are those of the plain build.
    assert_eq!(objects(&dir), objects(&plain), "objects are byte-identical with and without drip");
    for d in [&plain, &dir] {
        let run = command(d.join("luatest")).output().expect("run luatest");
        assert_eq!(stdout(&run), "42\n", "{}", d.display());
    }

    let (code, stats, err) = check(&dir);
    assert!(matches!(code, Some(0) | Some(1)), "drip check on the captured database: {code:?}: {}", tail(&err, 20));
    assert_eq!(stats["tus_total"], expected.len(), "{stats}");
    assert_eq!(stats["tus_failed"], 0, "{stats}");
    assert_eq!(stats["tus_parsed"], expected.len(), "{stats}");
}
