#!/usr/bin/env python3
"""bench/scale.py: drip's peak memory and time at the sizes issue 19 names, against clang.

    python3 bench/scale.py [--drip PATH] [--mb 50] [--tus 2000] [--jobs 2] [big|many ...]

    big   one generated TU of about --mb megabytes (default 50)
    many  a generated project of --tus TUs (default 2000), about 12 KB each
    (default: both)

For each input it runs `clang-19 -fsyntax-only` over the same TUs and `drip check --no-cache
-j JOBS` (`--budget tu-time-ms=0`: no parse limit, the point is to see the whole cost), each under
/usr/bin/time, and prints wall time, CPU time and peak RSS (for drip, the largest of drip and its
parse workers, as /usr/bin/time counts children: the maximum of one process, not their sum).
The programs are generated here, into bench/work/scale/ (git-ignored); nothing is committed.
The C is ordinary library code in shape: structs with owned fields, constructors that allocate
and free on error, lists, loops over arrays, switch dispatch, and some real leaks, so that every
phase (lowering, summaries, value flow, solving) has work. Output: a Markdown table on stdout.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "bench", "work", "scale")

HEADER = """#include <stdlib.h>
#include <string.h>
struct item { char *name; int *vals; int n; struct item *next; };
struct table { struct item **slots; int cap; int len; char *label; };
"""

# One unit of generated code: a handful of functions over the shared structs, numbered by `k`.
UNIT = """
static struct item *item_new_{k}(const char *s, int n) {{
  struct item *it = malloc(sizeof *it);
  if (!it) return NULL;
  it->name = strdup(s);
  if (!it->name) {{ free(it); return NULL; }}
  it->vals = calloc(n > 0 ? n : 1, sizeof(int));
  if (!it->vals) {{ free(it->name); free(it); return NULL; }}
  it->n = n; it->next = NULL;
  return it;
}}
static void item_free_{k}(struct item *it) {{
  while (it) {{ struct item *nx = it->next; free(it->name); free(it->vals); free(it); it = nx; }}
}}
int table_add_{k}(struct table *t, const char *s, int n) {{
  if (t->len == t->cap) {{
    int cap = t->cap ? t->cap * 2 : 8;
    struct item **p = realloc(t->slots, cap * sizeof *p);
    if (!p) return -1;
    t->slots = p; t->cap = cap;
  }}
  struct item *it = item_new_{k}(s, n);
  if (!it) return -1;
  t->slots[t->len++] = it;
  return 0;
}}
int scan_{k}(const char *text, int mode) {{
  char *buf = malloc(64);
  int total = 0;
  if (!buf) return -1;
  for (int i = 0; text[i]; i++) {{
    switch (text[i] % 5) {{
    case 0: total += i; break;
    case 1: if (mode & 2) total -= 1; break;
    case 2: buf[i % 64] = text[i]; break;
    default: if (total > 1000 + {k}) {{ free(buf); return total; }}
    }}
  }}
  if (mode == {k} % 7) return total; /* a real leak on this path */
  free(buf);
  return total;
}}
struct item *chain_{k}(int n) {{
  struct item *head = NULL;
  for (int i = 0; i < n; i++) {{
    struct item *it = item_new_{k}("x", i);
    if (!it) {{ item_free_{k}(head); return NULL; }}
    it->next = head; head = it;
  }}
  return head;
}}
void table_clear_{k}(struct table *t) {{
  for (int i = 0; i < t->len; i++) item_free_{k}(t->slots[i]);
  free(t->slots); free(t->label);
  t->slots = NULL; t->len = t->cap = 0; t->label = NULL;
}}
"""


def unit_source(first, count):
    parts = [HEADER]
    for k in range(first, first + count):
        parts.append(UNIT.format(k=k))
    return "".join(parts)


def write_db(folder, files):
    entries = [{"directory": folder, "file": f, "arguments": ["cc", "-c", f]} for f in files]
    with open(os.path.join(folder, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=1)


def make_big(mb):
    folder = os.path.join(WORK, f"big-{mb}mb")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    per_unit = len(UNIT.format(k=100000))
    count = max(1, int(mb * 1024 * 1024 / per_unit))
    with open(os.path.join(folder, "big.c"), "w") as f:
        f.write(unit_source(0, count))
    write_db(folder, ["big.c"])
    return folder, ["big.c"]


def make_many(tus):
    folder = os.path.join(WORK, f"many-{tus}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    files = []
    for i in range(tus):
        name = f"tu{i:05d}.c"
        with open(os.path.join(folder, name), "w") as f:
            f.write(unit_source(i * 4, 4))
        files.append(name)
    write_db(folder, files)
    return folder, files


def run_timed(cmd, cwd):
    out = os.path.join(WORK, "time.out")
    r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out] + cmd, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open(out) as f:
        wall, user, sys_, rss = f.read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(rss) / 1024, r.returncode, r.stderr.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--drip", default=os.path.join(ROOT, "target", "release", "drip"))
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("--tus", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("inputs", nargs="*", help="big, many (default: both)")
    a = ap.parse_args()
    inputs = a.inputs or ["big", "many"]
    if any(i not in ("big", "many") for i in inputs):
        sys.exit(f"inputs are big and many, not {inputs}")
    for tool in ["/usr/bin/time", shutil.which("clang-19")]:
        if not tool or not os.path.exists(tool):
            sys.exit("needs /usr/bin/time and clang-19 (apt-get install time clang-19)")
    os.makedirs(WORK, exist_ok=True)
    rows = []
    for what in inputs:
        folder, files = make_big(a.mb) if what == "big" else make_many(a.tus)
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in files) / (1024 * 1024)
        print(f"[scale] {what}: {len(files)} TUs, {size:.1f} MB of C in {folder}", file=sys.stderr)
        # clang one TU at a time, like drip -j1's parse; its peak is one TU's.
        cw = cc = crss = 0.0
        for i in range(0, len(files), 200):
            w, c, rss, code, err = run_timed(["clang-19", "-fsyntax-only", "-w"] + files[i:i + 200], folder)
            if code != 0:
                sys.exit(f"clang failed on the generated C: {err[-2000:]}")
            cw, cc, crss = cw + w, cc + c, max(crss, rss)
        w, c, rss, code, err = run_timed([a.drip, "check", "-p", folder, "--no-cache", "-j", str(a.jobs),
                                          "--budget", "tu-time-ms=0", "--format", "json", "-o",
                                          os.path.join(folder, "drip.json")], folder)
        if code not in (0, 1):
            sys.exit(f"drip exited {code}: {err[-2000:]}")
        with open(os.path.join(folder, "drip.json")) as f:
            stats = json.load(f)["stats"]
        rows.append((what, len(files), size, cw, cc, crss, w, c, rss, stats.get("findings_leak"),
                     stats.get("tus_failed"), stats.get("functions_failed")))
    print(f"| input | TUs | MB of C | clang wall s | clang CPU s | clang peak RSS MiB | drip -j{a.jobs} wall s "
          "| drip CPU s | drip peak RSS MiB | leaks | TUs failed | functions failed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.1f} | {r[4]:.1f} | {r[5]:.0f} | {r[6]:.1f} | {r[7]:.1f} "
              f"| {r[8]:.0f} | {r[9]} | {r[10]} | {r[11]} |")


if __name__ == "__main__":
    main()
