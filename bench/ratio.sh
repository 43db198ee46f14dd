#!/usr/bin/env bash
# drip's cold CPU against clang's parse on any compile database: what bench/run.sh measures for
# its corpora, for one database it does not build (the precision corpora, a project of yours).
#
#   bash bench/ratio.sh DB [RUNS]
#
# DB is a compile_commands.json. Runs `clang-19 -fsyntax-only` over its C and C++ TUs (C++ ones
# through `clang++-19`) one at a time (bench/tools.py: the flags drip drops are dropped) and
# `drip check -p DB --no-cache -j1` under /usr/bin/time, in pairs, RUNS times (default 1), and
# prints each pair's CPU times (user + system, drip's parse workers included) and their ratio.
# Writes nothing next to DB: drip runs without a cache and its report goes to a temporary folder.
# BENCH_DRIP picks the drip binary (default target/release/drip); runs under nice +10 unless
# BENCH_NICE=0.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
db=${1:?usage: bash bench/ratio.sh DB [RUNS]}
runs=${2:-1}
DRIP=${BENCH_DRIP:-$ROOT/target/release/drip}
CLANG=${CLANG:-clang-19}
nice=()
[ "${BENCH_NICE:-10}" = 0 ] || nice=(nice -n "${BENCH_NICE:-10}")
out=$(mktemp -d /tmp/drip-ratio.XXXXXX)
trap 'rm -rf "$out"' EXIT
printf 'TUs %s\n' "$(python3 "$ROOT/bench/tools.py" tus "$db" | cut -d= -f2)"
for ((r = 1; r <= runs; r++)); do
  clang_cpu=$("${nice[@]}" python3 "$ROOT/bench/tools.py" clang "$db" "$CLANG" 1 "$out/clang.log" | sed -n 's/^cpu=//p')
  "${nice[@]}" /usr/bin/time -f '%U %S %M' -o "$out/time" "$DRIP" check -p "$db" --no-cache -j1 \
    --format json -o "$out/report.json" 2> "$out/drip.stderr" || true
  # The last line: a drip that found something exits 1, which time reports on a line before.
  read -r user sys rss < <(tail -n 1 "$out/time")
  python3 - "$clang_cpu" "$user" "$sys" "$rss" <<'PY'
import sys
clang, user, sys_, rss = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
drip = user + sys_
print(f"clang CPU {clang:.1f} s, drip cold -j1 CPU {drip:.1f} s, cold/parse {drip / clang:.2f}, drip peak RSS {rss // 1024} MiB")
PY
  # A budget hit cuts work short: such a run is cheaper than the full analysis, so it says so.
  grep '^drip: warning' "$out/drip.stderr" || true
  tail -n 1 "$out/drip.stderr"
done
