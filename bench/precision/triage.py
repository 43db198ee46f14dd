#!/usr/bin/env python3
"""bench/precision/triage.py: compares drip's reports on real programs with the triage tables.

  triage.py srcroot DB                      prints the folder that holds every source of DB
  triage.py compare [--update] --work W --tables T PROGRAM...

A table (T/PROGRAM.tsv) has one row per triaged report, tab-separated, with a header row:

  file  function  rule  line_in_function  allocator  verdict  reason  line

`file` is relative to the program's source root, `line_in_function` counts from the function's
first line (so a row survives edits elsewhere in the file), `line` is only a reading aid. A
verdict is `real`, `false`, `unclear`, `?` (not triaged yet), or `missed`: a real bug that drip
reported once, for a wrong reason (an impossible path), and no longer reports; the reason says why
it is missed. A report matches the row with the same file, function, rule, line_in_function and
allocator; rows no report matches stay as the record of what a change removed. A `real` row no
report matches fails the comparison: a change that removes a real report must explain it (and turn
the row into `missed`).
"""
import json
import os
import sys

COLUMNS = ["file", "function", "rule", "line_in_function", "allocator", "verdict", "reason", "line"]
VERDICTS = {"real", "false", "unclear", "?", "missed"}


def key_of(row):
    # leak-on-realloc-failure was reported as a leak before it became a rule of its own: one
    # site has one leak finding, so both are keyed as leaks and older rows still match.
    rule = "leak" if row["rule"] == "leak-on-realloc-failure" else row["rule"]
    return (row["file"], row["function"], rule, str(row["line_in_function"]), row["allocator"])


def srcroot(db_path):
    with open(db_path) as f:
        db = json.load(f)
    files = []
    for e in db:
        p = e["file"]
        if not os.path.isabs(p):
            p = os.path.join(e.get("directory", os.path.dirname(db_path)), p)
        files.append(os.path.dirname(os.path.normpath(p)))
    return os.path.commonpath(files) if files else os.path.dirname(os.path.abspath(db_path))


def read_table(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or lines[0].split("\t") != COLUMNS:
        sys.exit(f"{path}: the first line must be the header: {' '.join(COLUMNS)}")
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(COLUMNS):
            sys.exit(f"{path}:{n}: {len(cells)} cells, expected {len(COLUMNS)}")
        row = dict(zip(COLUMNS, cells))
        if row["verdict"] not in VERDICTS:
            sys.exit(f"{path}:{n}: verdict '{row['verdict']}' is not one of {sorted(VERDICTS)}")
        rows.append(row)
    return rows


def read_reports(work, program):
    d = os.path.join(work, program)
    with open(os.path.join(d, "srcroot")) as f:
        root = f.read().strip()
    with open(os.path.join(d, "reports.json")) as f:
        diags = json.load(f)["diagnostics"]
    out = []
    for g in diags:
        if g.get("suppression"):
            continue
        p = os.path.abspath(g["loc"]["file"])
        rel = os.path.relpath(p, root)
        out.append({
            "file": rel,
            "function": g.get("function") or "",
            "rule": g["rule"],
            "line_in_function": str(g.get("line_in_function", "")),
            "allocator": g.get("allocator") or "",
            "line": str(g["loc"]["line"]),
            "message": g["message"],
        })
    return out


def compare(work, tables, programs, update):
    header = ["program", "reports", "real", "false", "unclear", "untriaged", "% real", "false DF", "real gone"]
    totals = [0] * (len(header) - 1)
    rows_out, untriaged_out, gone_out = [], [], []
    for program in programs:
        path = os.path.join(tables, program + ".tsv")
        table = read_table(path)
        by_key = {key_of(r): r for r in table}
        reports = read_reports(work, program)
        seen = set()
        counts = {"real": 0, "false": 0, "unclear": 0, "?": 0}
        false_df = 0
        new_rows = []
        for r in reports:
            k = key_of(r)
            seen.add(k)
            row = by_key.get(k)
            verdict = row["verdict"] if row else "?"
            if verdict == "missed":
                verdict = "real"
            counts[verdict] += 1
            if verdict == "false" and r["rule"] == "double-free":
                false_df += 1
            if verdict == "?":
                untriaged_out.append(f"{program}: {r['file']}:{r['line']} {r['function']} [{r['rule']}] {r['message']}")
                if not row:
                    new_rows.append(dict(r, verdict="?", reason=""))
        gone = [r for k, r in by_key.items() if k not in seen and r["verdict"] == "real"]
        for r in gone:
            gone_out.append(f"{program}: {r['file']}:{r['line']} {r['function']} [{r['rule']}] {r['reason']}")
        judged = counts["real"] + counts["false"] + counts["unclear"]
        pct = f"{100 * counts['real'] / judged:.0f}%" if judged else "-"
        vals = [len(reports), counts["real"], counts["false"], counts["unclear"], counts["?"], false_df, len(gone)]
        rows_out.append([program, *map(str, vals[:5]), pct, *map(str, vals[5:])])
        for i, v in enumerate(vals[:5]):
            totals[i] += v
        totals[6] += false_df
        totals[7] += len(gone)
        if update and new_rows:
            os.makedirs(tables, exist_ok=True)
            fresh = not os.path.exists(path)
            with open(path, "a") as f:
                if fresh:
                    f.write("\t".join(COLUMNS) + "\n")
                for r in sorted(new_rows, key=lambda r: (r["file"], int(r["line"]), r["rule"])):
                    f.write("\t".join(r.get(c, "") for c in COLUMNS) + "\n")
    judged = totals[1] + totals[2] + totals[3]
    totals[5] = f"{100 * totals[1] / judged:.0f}%" if judged else "-"
    rows_out.append(["all", *map(str, totals)])
    widths = [max(len(r[i]) for r in rows_out + [header]) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows_out:
        print(line(r))
    if untriaged_out:
        print(f"\nuntriaged ({len(untriaged_out)}):")
        print("\n".join("  " + u for u in untriaged_out))
    if gone_out:
        print(f"\nreal reports no longer reported ({len(gone_out)}):")
        print("\n".join("  " + g for g in gone_out))
    return 1 if untriaged_out or gone_out else 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "srcroot":
        print(srcroot(argv[1]))
        return 0
    if argv and argv[0] == "compare":
        update, work, tables, programs = False, None, None, []
        it = iter(argv[1:])
        for a in it:
            if a == "--update":
                update = True
            elif a == "--work":
                work = next(it)
            elif a == "--tables":
                tables = next(it)
            else:
                programs.append(a)
        if not work or not tables or not programs:
            sys.exit(__doc__)
        return compare(work, tables, programs, update)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
