#!/usr/bin/env python3
"""Helpers of bench/run.sh that read a compile database or drip's JSON report.

  tools.py tus DB                          number of C and C++ TUs drip checks in DB
  tools.py clang DB CLANG JOBS LOG         time `CLANG -fsyntax-only` over DB's TUs (C++ ones
                                           with CLANG's C++ driver, `clang++-19`)
  tools.py kloc DB CLANG ROOT...           lines of the project files the TUs read
  tools.py report JSON                     counts from a drip --format json report

Each prints `key=value` lines for the shell to read. Standard library only.
"""

import concurrent.futures
import hashlib
import json
import os
import resource
import shlex
import subprocess
import sys
import time

# drip's frontend::compile_argv drops these before handing a command to libclang (GCC-only flags
# clang rejects, dependency output, -Werror); the clang baseline drops the same ones.
DROP_EXACT = {
    "-fconserve-stack", "-fno-allow-store-data-races", "-mno-fp-ret-in-387",
    "-fno-var-tracking-assignments", "-mindirect-branch-register", "-mskip-rax-setup",
    "-mrecord-mcount", "-fno-ipa-sra", "-fsched-pressure", "-fanalyzer", "-Werror",
    "-pedantic-errors", "-save-temps", "-M", "-MM", "-MD", "-MMD", "-MG", "-MP",
}
DROP_PREFIX = (
    "-mindirect-branch=", "-mfunction-return=", "-mpreferred-stack-boundary=", "-mharden-sls=",
    "-Werror=", "-fplugin=", "-fplugin-arg-", "-Wp,-MD", "-Wp,-MMD", "-save-temps=",
)
DROP_WITH_ARG = ("-MF", "-MT", "-MQ")
LAUNCHERS = {"ccache", "sccache", "distcc", "icecc"}


C_EXTS = (".c", ".h")
# Source files (the rest are headers) for the KLOC split.
SOURCE_EXTS = (".c", ".cc", ".cp", ".cpp", ".cxx", ".c++", ".C", ".CPP")
CXX_EXTS = (".cc", ".cp", ".cpp", ".cxx", ".c++", ".C", ".CPP", ".hh", ".hpp", ".hxx", ".H", ".ii", ".tcc")


def language(path, argv):
    """"c", "c++" or None, as drip's compdb::language decides: the last `-x` wins; else a C++
    driver (`g++`, `c++`, `clang++`) compiles C and C++ sources as C++; else the extension."""
    lang = None
    for i, a in enumerate(argv[1:], 1):
        if a == "-x" and i + 1 < len(argv):
            lang = argv[i + 1]
        elif a.startswith("-x") and a != "-x":
            lang = a[2:]
    if lang is not None:
        return {"c": "c", "c-header": "c", "cpp-output": "c",
                "c++": "c++", "c++-header": "c++", "c++-cpp-output": "c++"}.get(lang)
    if "++" in os.path.basename(argv[0]):
        return "c++" if path.endswith(C_EXTS + CXX_EXTS) else None
    if path.endswith(C_EXTS):
        return "c"
    return "c++" if path.endswith(CXX_EXTS) else None


def entries(db_path):
    """The C and C++ entries of a compile database as drip selects them (compdb.rs): (directory,
    file, argv, language), launchers stripped, duplicates (same file and argv) dropped, in
    database order."""
    base = os.path.dirname(os.path.abspath(db_path))
    out, seen = [], set()
    with open(db_path) as f:
        db = json.load(f)
    for e in db:
        d = os.path.normpath(os.path.join(base, e["directory"]))
        path = os.path.normpath(os.path.join(d, e["file"]))
        argv = e.get("arguments") or shlex.split(e["command"])
        while len(argv) > 1 and os.path.basename(argv[0]) in LAUNCHERS:
            argv = argv[1:]
        lang = language(path, argv)
        key = (path, tuple(argv))
        if lang is None or key in seen:
            continue
        seen.add(key)
        out.append((d, path, argv, lang))
    return out


def cxx_driver(clang):
    """The C++ driver beside CLANG (`clang-19` -> `clang++-19`), so that a C++ TU is parsed as
    `clang++` parses it, as drip's libclang does (it is handed the build's `g++`/`c++`); without
    one, CLANG in g++ driver mode."""
    d, b = os.path.split(clang)
    if "clang" in b and "clang++" not in b:
        cxx = os.path.join(d, b.replace("clang", "clang++", 1))
        if os.path.isfile(cxx) and os.access(cxx, os.X_OK):
            return [cxx]
    return [clang, "--driver-mode=g++"]


def clang_argv(clang, argv, mode, lang="c"):
    """argv for `clang MODE` (`-fsyntax-only`, or `-M` for dependencies): drip's drops, and no
    output file or compile-only mode; a C++ TU through the C++ driver."""
    out = cxx_driver(clang) if lang == "c++" else [clang]
    it = iter(argv[1:])
    for a in it:
        if a in DROP_WITH_ARG or a == "-o":
            next(it, None)
            continue
        if (a in DROP_EXACT or a.startswith(DROP_PREFIX) or a in ("-c", "-S", "-E")
                or (a.startswith(DROP_WITH_ARG) and len(a) > 3)
                or (a.startswith("-o") and len(a) > 2)):
            continue
        out.append(a)
    out.append(mode)
    return out


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_all(cmds, jobs, fn):
    if jobs <= 1:
        return [fn(c) for c in cmds]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, cmds))


def cmd_tus(db):
    print(f"tus={len(entries(db))}")


def cmd_clang(db, clang, jobs, log):
    """Wall and CPU time (user+sys of the clang processes) of -fsyntax-only over every TU.
    A TU clang rejects is counted and logged, not fatal: drip's own count says whether it
    parsed."""
    es = entries(db)
    jobs = int(jobs)

    def one(e):
        d, path, argv, lang = e
        try:
            p = subprocess.run(clang_argv(clang, argv, "-fsyntax-only", lang), cwd=d,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except OSError as err:  # a directory that is gone (a build's deleted scratch folder)
            return path, -1, f"{err}\n"
        return path, p.returncode, p.stderr.decode("utf-8", "replace")

    cpu0, t0 = children_cpu(), time.monotonic()
    results = run_all(es, jobs, one)
    wall, cpu = time.monotonic() - t0, children_cpu() - cpu0
    failed = 0
    with open(log, "w") as f:
        for path, rc, err in results:
            if rc != 0:
                failed += 1
                f.write(f"== {path}: exit {rc}\n")
            if err:
                f.write(err)
    print(f"tus={len(es)}\nwall={wall:.2f}\ncpu={cpu:.2f}\nfailed={failed}")


def deps(clang, d, argv, lang):
    """Files a TU reads (`clang -M`), absolute and resolved."""
    try:
        p = subprocess.run(clang_argv(clang, argv, "-M", lang) + ["-MF", "-"], cwd=d,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return set(), 1
    text = p.stdout.decode("utf-8", "replace").replace("\\\n", " ")
    words = text.split()
    # "target.o: a.c b.h ...": everything after the first word ending in ':'.
    for i, w in enumerate(words):
        if w.endswith(":"):
            words = words[i + 1:]
            break
    return {os.path.realpath(os.path.join(d, w)) for w in words}, p.returncode


def cmd_kloc(db, clang, *roots):
    """KLOC: lines of the distinct files below the project's folders (ROOTs: its sources and
    build tree) that the TUs read, the source files (.c, .cc, ...) and the headers they include,
    each file counted once. System headers are outside the roots. The result is cached beside
    the database, keyed by the database's contents and the roots."""
    roots = [os.path.realpath(r) + os.sep for r in roots]
    with open(db, "rb") as f:
        key = hashlib.sha256(f.read() + "\0".join(roots).encode()).hexdigest()
    memo = os.path.join(os.path.dirname(os.path.abspath(db)), "kloc.json")
    try:
        with open(memo) as f:
            m = json.load(f)
        if m.get("key") == key:
            print("\n".join(f"{k}={v}" for k, v in m["out"].items()))
            return
    except (OSError, ValueError):
        pass
    es = entries(db)
    files, failed = set(), 0
    for fs, rc in run_all(es, 2, lambda e: deps(clang, e[0], e[2], e[3])):
        files |= fs
        failed += rc != 0
    files |= {os.path.realpath(p) for _, p, _, _ in es}
    mine = sorted(f for f in files if any(f.startswith(r) for r in roots))

    def lines(p):
        with open(p, "rb") as f:
            return f.read().count(b"\n")
    c_lines = sum(lines(p) for p in mine if p.endswith(SOURCE_EXTS))
    other = sum(lines(p) for p in mine if not p.endswith(SOURCE_EXTS))
    out = {"kloc": f"{(c_lines + other) / 1000:.1f}", "c_kloc": f"{c_lines / 1000:.1f}",
           "h_kloc": f"{other / 1000:.1f}", "files": len(mine), "dep_failures": failed}
    with open(memo, "w") as f:
        json.dump({"key": key, "out": out}, f)
    print("\n".join(f"{k}={v}" for k, v in out.items()))


# The default report's categories (checkers::Policy without --all-categories).
DEFAULT_LEAK = ("never-freed-local", "freed-conditional")
CATEGORIES = ("never-freed-local", "freed-conditional", "never-freed-main", "never-freed-not-local",
              "unknown", "over-budget", "freed-always", "returned")


def cmd_report(path):
    """Counts from a drip JSON report: findings by rule and category, site categories, failures,
    CPU split."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        print("ok=0")
        return
    diags, st = doc.get("diagnostics") or [], doc.get("stats") or {}
    leaks = sum(1 for d in diags if d.get("rule") in ("leak", "leak-on-realloc-failure") and d.get("category") in DEFAULT_LEAK)
    dfree = sum(1 for d in diags if d.get("rule") == "double-free")
    t, cats = st.get("time_ms", {}), st.get("categories", {})
    print("ok=1")
    print(f"findings={len(diags)}\nleaks={leaks}\ndouble_frees={dfree}")
    for c in CATEGORIES:
        print(f"cat_{c.replace('-', '_')}={cats.get(c, 0)}")
    for k in ("tus_total", "tus_parsed", "tus_failed", "tus_with_errors", "parse_errors",
              "functions", "functions_failed", "sources", "sites_over_budget", "scc_budget_hits"):
        print(f"{k}={st.get(k, '?')}")
    for k in ("cpu_front_end", "cpu_analysis", "parse", "ir", "analysis", "wall"):
        print(f"ms_{k}={t.get(k, '?')}")
    c = st.get("cache", {})
    print(f"run_reused={int(bool(c.get('run_reused')))}")
    # The run's own problems (functions whose check failed, TUs libclang could not parse).
    notes = doc.get("notifications") or []
    print(f"internal_errors={sum(1 for n in notes if n.get('id') == 'internal-error')}")


def main(argv):
    cmds = {"tus": (cmd_tus, 1), "clang": (cmd_clang, 4), "kloc": (cmd_kloc, 3), "report": (cmd_report, 1)}
    if len(argv) < 2 or argv[1] not in cmds or len(argv) - 2 < cmds[argv[1]][1]:
        sys.stderr.write(__doc__)
        return 2
    cmds[argv[1]][0](*argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
