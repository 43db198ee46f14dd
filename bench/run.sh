#!/usr/bin/env bash
# bench/run.sh: times drip against `clang-19 -fsyntax-only` on real C code, cold and warm
# (a second run served by the incremental cache).
#
#   bash bench/run.sh [--no-drip] [CORPUS...]       (corpora: sqlite lua; default: all)
#   BENCH_DRIP=/path/to/drip bash bench/run.sh      (time that binary instead of building one)
#
# The C sources come from crates.io: a scratch cargo project in bench/work/fetch depends on
# crates that bundle them, and `cargo fetch` downloads them into the cargo registry. Nothing is
# downloaded any other way, and everything the script writes stays in bench/work/ (git-ignored).
# Re-running reuses the fetched sources. See bench/README.md for what the numbers mean.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK="$ROOT/bench/work"
ALL_CORPORA=(sqlite lua)

# Pinned so that results stay comparable. Bump them on purpose, and say so in bench/README.md.
SQLITE_CRATE=libsqlite3-sys
SQLITE_VERSION=0.39.1
LUA_CRATE=lua-src
LUA_VERSION=551.1.0

say() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit "${1:-2}"
}

run_drip=1
corpora=()
for arg in "$@"; do
  case "$arg" in
    --no-drip) run_drip=0 ;;
    -h|--help) usage 0 ;;
    -*) say "unknown option: $arg"; usage ;;
    *)
      case " ${ALL_CORPORA[*]} " in
        *" $arg "*) corpora+=("$arg") ;;
        *) die "unknown corpus '$arg' (known: ${ALL_CORPORA[*]})" ;;
      esac ;;
  esac
done
[ ${#corpora[@]} -gt 0 ] || corpora=("${ALL_CORPORA[@]}")

# --- tools ---------------------------------------------------------------------------------

if ! command -v cargo >/dev/null 2>&1; then
  # shellcheck disable=SC1091
  [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
  command -v cargo >/dev/null 2>&1 || die "cargo not found (install Rust with rustup)"
fi

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

# apt_need PKG...: installs the packages that are not installed yet.
apt_need() {
  local missing=() p
  for p in "$@"; do
    dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

apt_need clang-19 time
CLANG=$(command -v clang-19) || die "clang-19 is not on PATH after installing it"
GNU_TIME=/usr/bin/time
[ -x "$GNU_TIME" ] || die "$GNU_TIME is missing (Debian package 'time')"

DRIP="${BENCH_DRIP:-}"
if [ "$run_drip" = 1 ] && [ -n "$DRIP" ]; then
  [ -x "$DRIP" ] || die "BENCH_DRIP=$DRIP is not an executable"
  say "using BENCH_DRIP=$DRIP (no build)"
elif [ "$run_drip" = 1 ]; then
  say "building drip (make build: system packages, then cargo build --release)"
  make -C "$ROOT" --no-print-directory build >&2
  DRIP="${CARGO_TARGET_DIR:-$ROOT/target}/release/drip"
  [ -x "$DRIP" ] || die "no drip binary at $DRIP after the build"
fi

# --- sources -------------------------------------------------------------------------------

FETCH="$WORK/fetch"
mkdir -p "$FETCH/src"
manifest="[package]
name = \"drip-bench-fetch\"
version = \"0.0.0\"
edition = \"2021\"
publish = false

# Not a member of any enclosing workspace.
[workspace]

[dependencies]
$SQLITE_CRATE = { version = \"=$SQLITE_VERSION\", features = [\"bundled\"] }
$LUA_CRATE = \"=$LUA_VERSION\""
if [ ! -f "$FETCH/Cargo.toml" ] || [ "$(cat "$FETCH/Cargo.toml")" != "$manifest" ]; then
  printf '%s\n' "$manifest" > "$FETCH/Cargo.toml"
  rm -f "$FETCH/Cargo.lock"
fi
[ -f "$FETCH/src/lib.rs" ] || : > "$FETCH/src/lib.rs"

# crate_dir NAME VERSION: prints the unpacked source folder of a fetched crate.
metadata=""
crate_dir() {
  local m
  m=$(printf '%s' "$metadata" | grep -o "\"manifest_path\":\"[^\"]*/$1-$2/Cargo.toml\"" | head -n1) || true
  [ -n "$m" ] || return 1
  m=${m#\"manifest_path\":\"}
  dirname "${m%\"}"
}

# Offline first: a re-run needs no network at all.
if metadata=$(cargo metadata --format-version 1 --offline --manifest-path "$FETCH/Cargo.toml" 2>/dev/null) \
   && crate_dir "$SQLITE_CRATE" "$SQLITE_VERSION" >/dev/null \
   && crate_dir "$LUA_CRATE" "$LUA_VERSION" >/dev/null \
   && [ -d "$(crate_dir "$SQLITE_CRATE" "$SQLITE_VERSION")" ] \
   && [ -d "$(crate_dir "$LUA_CRATE" "$LUA_VERSION")" ]; then
  say "sources already fetched"
else
  say "cargo fetch ($SQLITE_CRATE $SQLITE_VERSION, $LUA_CRATE $LUA_VERSION)"
  t0=$EPOCHREALTIME
  cargo fetch --manifest-path "$FETCH/Cargo.toml" >&2 || die "cargo fetch failed"
  say "fetch took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
  metadata=$(cargo metadata --format-version 1 --offline --manifest-path "$FETCH/Cargo.toml") \
    || die "cargo metadata failed after the fetch"
fi
SQLITE_SRC=$(crate_dir "$SQLITE_CRATE" "$SQLITE_VERSION") || die "cannot find $SQLITE_CRATE-$SQLITE_VERSION in the cargo registry"
LUA_SRC=$(crate_dir "$LUA_CRATE" "$LUA_VERSION") || die "cannot find $LUA_CRATE-$LUA_VERSION in the cargo registry"

# --- corpora -------------------------------------------------------------------------------
# corpus_setup NAME sets SRC_DIR (the TUs' directory), TUS (file names) and FLAGS (compiler
# flags without -c/-o), the same for clang-19 and for compile_commands.json.

corpus_setup() {
  case "$1" in
    sqlite)
      SRC_DIR="$SQLITE_SRC/sqlite3"
      TUS=(sqlite3.c)
      # The flags libsqlite3-sys's build.rs uses for its bundled build.
      FLAGS=(-O2 -DSQLITE_CORE -DSQLITE_DEFAULT_FOREIGN_KEYS=1 -DSQLITE_ENABLE_API_ARMOR
             -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_FTS3
             -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_JSON1
             -DSQLITE_ENABLE_LOAD_EXTENSION=1 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_STAT4
             -DSQLITE_SOUNDEX -DSQLITE_THREADSAFE=1 -DSQLITE_USE_URI -DHAVE_USLEEP=1 -DHAVE_ISNAN)
      ;;
    lua)
      local d
      d=$(find "$LUA_SRC" -maxdepth 1 -type d -name 'lua-5.4.*' | sort -V | tail -n1)
      [ -n "$d" ] || die "no lua-5.4.* folder in $LUA_SRC"
      SRC_DIR="$d"
      # Every .c file: the core, the standard libraries and, when present, lua.c and luac.c.
      mapfile -t TUS < <(cd "$SRC_DIR" && find . -maxdepth 1 -name '*.c' -printf '%f\n' | LC_ALL=C sort)
      # As in Lua's own Makefile for `make linux`.
      FLAGS=(-std=gnu99 -O2 -Wall -Wextra -DLUA_COMPAT_5_3 -DLUA_USE_LINUX)
      ;;
    *) die "unknown corpus $1" ;;
  esac
  [ ${#TUS[@]} -gt 0 ] || die "$1: no C files in $SRC_DIR"
  local f
  for f in "${TUS[@]}"; do [ -f "$SRC_DIR/$f" ] || die "$1: missing $SRC_DIR/$f"; done
}

json_str() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}

# write_db NAME: writes $WORK/NAME/compile_commands.json (arguments form, absolute paths).
write_db() {
  local out="$WORK/$1/compile_commands.json" tmp sep="" f a args
  mkdir -p "$WORK/$1"
  tmp="$out.tmp"
  {
    printf '[\n'
    for f in "${TUS[@]}"; do
      args=$(json_str cc)
      for a in "${FLAGS[@]}" -c "$f" -o "${f%.c}.o"; do args+=", $(json_str "$a")"; done
      printf '%s  {"directory": %s, "file": %s,\n   "arguments": [%s]}' \
        "$sep" "$(json_str "$SRC_DIR")" "$(json_str "$SRC_DIR/$f")" "$args"
      sep=$',\n'
    done
    printf '\n]\n'
  } > "$tmp"
  mv "$tmp" "$out"
}

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# count_findings FILE: number of findings in drip's JSON output, or "?".
count_findings() {
  command -v python3 >/dev/null 2>&1 || { echo "?"; return; }
  python3 - "$1" <<'PY' 2>/dev/null || echo "?"
import json, sys
data = json.load(open(sys.argv[1]))
if isinstance(data, dict):
    for key in ("diagnostics", "findings", "results"):
        if isinstance(data.get(key), list):
            data = data[key]
            break
print(len(data) if isinstance(data, list) else "?")
PY
}

rows=()
for c in "${corpora[@]}"; do
  corpus_setup "$c"
  write_db "$c"
  kloc=$(cd "$SRC_DIR" && cat "${TUS[@]}" | wc -l | awk '{ printf "%.1f", $1 / 1000 }')
  say "$c: ${#TUS[@]} TUs, $kloc KLOC in $SRC_DIR"

  # (1) clang-19 -fsyntax-only over every TU, one after the other.
  : > "$WORK/$c/clang.stderr"
  t0=$EPOCHREALTIME
  for f in "${TUS[@]}"; do
    (cd "$SRC_DIR" && "$CLANG" -fsyntax-only "${FLAGS[@]}" "$f" 2>>"$WORK/$c/clang.stderr") \
      || die "$c: clang-19 -fsyntax-only failed on $f (see $WORK/$c/clang.stderr)"
  done
  parse_s=$(secs "$t0" "$EPOCHREALTIME")
  say "$c: clang-19 -fsyntax-only: $parse_s s"

  drip_s="-" ratio="-" rss_mib="-" findings="-" warm_s="-" warm_ratio="-" cache_mib="-"
  if [ "$run_drip" = 1 ]; then
    # (2) drip on one thread, with an empty incremental cache (a cold run); exit 0 (clean) and
    # 1 (findings) are both a successful run.
    cache="$WORK/$c/drip-cache"
    rm -rf "$cache"
    rc=0
    "$GNU_TIME" -f '%e %M' -o "$WORK/$c/drip.time" \
      "$DRIP" check -p "$WORK/$c" --cache-dir "$cache" --stats -j1 --format json -o "$WORK/$c/drip.json" \
      2> "$WORK/$c/drip.stderr" || rc=$?
    if [ "$rc" -gt 1 ]; then
      tail -n 20 "$WORK/$c/drip.stderr" >&2
      die "$c: drip exited $rc (full output in $WORK/$c/drip.stderr)"
    fi
    read -r drip_s rss_kib < <(tail -n1 "$WORK/$c/drip.time")
    rss_mib=$(awk -v k="$rss_kib" 'BEGIN { printf "%.0f", k / 1024 }')
    ratio=$(awk -v d="$drip_s" -v p="$parse_s" 'BEGIN { printf "%.2f", (p > 0 ? d / p : 0) }')
    findings=$(count_findings "$WORK/$c/drip.json")
    say "$c: drip: $drip_s s, peak RSS $rss_mib MiB, $findings findings (stats in $WORK/$c/drip.stderr)"
    # (3) The same command again with nothing changed: a warm run, served by the cache.
    rc=0
    "$GNU_TIME" -f '%e %M' -o "$WORK/$c/drip-warm.time" \
      "$DRIP" check -p "$WORK/$c" --cache-dir "$cache" --stats -j1 --format json -o "$WORK/$c/drip-warm.json" \
      2> "$WORK/$c/drip-warm.stderr" || rc=$?
    [ "$rc" -le 1 ] || die "$c: the warm drip run exited $rc (see $WORK/$c/drip-warm.stderr)"
    [ "$(count_findings "$WORK/$c/drip-warm.json")" = "$findings" ] \
      || die "$c: the warm run reports other findings than the cold run"
    read -r warm_s _ < <(tail -n1 "$WORK/$c/drip-warm.time")
    warm_ratio=$(awk -v w="$warm_s" -v d="$drip_s" 'BEGIN { printf "%.3f", (d > 0 ? w / d : 0) }')
    cache_mib=$(du -sk "$cache" | awk '{ printf "%.1f", $1 / 1024 }')
    say "$c: drip warm: $warm_s s ($warm_ratio of cold), cache $cache_mib MiB (stats in $WORK/$c/drip-warm.stderr)"
  fi
  rows+=("$c|${#TUS[@]}|$kloc|$parse_s|$drip_s|$ratio|$rss_mib|$findings|$warm_s|$warm_ratio|$cache_mib")
done

# --- report --------------------------------------------------------------------------------

header="corpus|TUs|KLOC|clang -fsyntax-only s|drip s|drip/parse|peak RSS MiB|findings|warm s|warm/cold|cache MiB"
{
  printf '%s\n' "$header"
  printf '%s\n' "${rows[@]}"
} | awk -F'|' '
  { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NF }
  END { for (r = 1; r <= NR; r++) { line = ""
          for (i = 1; i <= n; i++) line = line sprintf(i == 1 ? "%-" w[i] "s" : "  %" w[i] "s", cell[r, i])
          print line } }'

# The same rows as a Markdown table, ready to paste into bench/README.md.
{
  printf '| %s |\n' "${header//|/ | }"
  printf '|%s\n' "$(printf -- '---|%.0s' $(seq 11))"
  for r in "${rows[@]}"; do printf '| %s |\n' "${r//|/ | }"; done
  printf '\nmachine: %s, %s cores; %s; %s; drip %s\n' \
    "$(uname -m)" "$(nproc)" "$("$CLANG" --version | head -n1)" "$(date -u +%Y-%m-%dT%H:%MZ)" \
    "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '(no commit)')"
} > "$WORK/results.md"
say "Markdown table written to $WORK/results.md"
