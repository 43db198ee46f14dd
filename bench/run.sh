#!/usr/bin/env bash
# bench/run.sh: times drip against `clang-19 -fsyntax-only` on real C and C++ code bases, cold
# and warm (a second run served by the incremental cache), and checks issue 5's targets.
#
#   bash bench/run.sh [--runs N] [--quick] [--no-drip] [--rebuild] [--build-only] [CORPUS...]
#        corpora: sqlite lua openssl libgit2 curl, and the C++ one leveldb (default: all)
#        --runs N      clang and drip's cold -j1 run N times each, in pairs (default 3): the
#                      tables give medians, and the cold/parse verdict is the pairs' median ratio
#        --quick       drip cold and warm at -j1 only (no -j2 runs, no clang -j2): a smoke run
#        --no-drip     time clang only (drip is still built: captured corpora need `drip capture`)
#        --rebuild     build the captured corpora again even when their database exists
#        --build-only  fetch and build the corpora, measure nothing
#   BENCH_DRIP=/path/to/drip bash bench/run.sh   (time that binary, drip-cc beside it; no build)
#   Output: tables on stdout, the same as Markdown in bench/work/results.md; per corpus, every
#   run's report, stderr and times in bench/work/CORPUS/.

# The sources come from crates.io: a scratch cargo project in bench/work/fetch depends on
# crates that bundle them, and `cargo fetch` downloads them into the cargo registry. Nothing is
# downloaded any other way, and everything the script writes stays in bench/work/ (git-ignored).
# sqlite and lua get a compile database written here; openssl, libgit2, curl and leveldb (C++)
# are built by their own build systems under `drip capture`, once (the built tree is kept and
# reused). A C++ TU's clang baseline runs `clang++-19` (bench/tools.py).
# See bench/README.md for what the numbers mean.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK="$ROOT/bench/work"
TOOLS="$ROOT/bench/tools.py"
ALL_CORPORA=(sqlite lua openssl libgit2 curl leveldb)

# Pinned so that results stay comparable. Bump them on purpose, and say so in bench/README.md.
# (A cargo requirement carries no build metadata: `+4.0.3` is only matched in the folder name.)
SQLITE_CRATE=libsqlite3-sys
SQLITE_VERSION=0.39.1
LUA_CRATE=lua-src
LUA_VERSION=551.1.0
OPENSSL_CRATE=openssl-src
OPENSSL_VERSION=400.0.2+4.0.3
LIBGIT2_CRATE=libgit2-sys
LIBGIT2_VERSION=0.18.8+1.9.7
CURL_CRATE=curl-sys
CURL_VERSION=0.4.91+curl-8.22.0
LEVELDB_CRATE=leveldb-sys
LEVELDB_VERSION=2.0.9

# How each captured corpus is built, in its copy of the crate's sources (bench/work/NAME/src).
# Options are chosen to build on Debian 12 with no library beyond libc and libstdc++ (see
# bench/README.md).
OPENSSL_BUILD='./Configure linux-x86_64 no-shared no-module no-tests no-apps no-docs no-comp no-zlib && make -j2 build_libs'
LIBGIT2_BUILD='cmake -S . -B ../build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTS=OFF -DBUILD_CLI=ON -DUSE_HTTPS=OFF -DUSE_SSH=OFF -DUSE_GSSAPI=OFF -DUSE_NTLMCLIENT=OFF -DUSE_SHA1=CollisionDetection -DUSE_SHA256=Builtin -DREGEX_BACKEND=builtin -DUSE_HTTP_PARSER=builtin -DUSE_BUNDLED_ZLIB=ON -DUSE_ICONV=OFF && cmake --build ../build -j2'
CURL_BUILD='cmake -S . -B ../build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON -DBUILD_CURL_EXE=ON -DBUILD_TESTING=OFF -DBUILD_EXAMPLES=OFF -DCMAKE_DISABLE_FIND_PACKAGE_Perl=ON -DBUILD_LIBCURL_DOCS=OFF -DBUILD_MISC_DOCS=OFF -DENABLE_CURL_MANUAL=OFF -DCURL_ENABLE_SSL=OFF -DCURL_USE_LIBPSL=OFF -DCURL_USE_LIBSSH2=OFF -DCURL_USE_LIBSSH=OFF -DCURL_USE_GSSAPI=OFF -DUSE_NGHTTP2=OFF -DUSE_LIBIDN2=OFF -DCURL_ZLIB=OFF -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF -DCURL_DISABLE_LDAP=ON -DENABLE_ARES=OFF && cmake --build ../build -j2'
# leveldb-sys's own build without its `snappy` feature (its default): the library alone, no tests
# or benchmarks, Snappy off even where the system has libsnappy-dev.
LEVELDB_BUILD='cmake -S . -B ../build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF -DLEVELDB_INSTALL=OFF -DHAVE_SNAPPY=OFF && cmake --build ../build -j2'

say() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }

usage() {
  # The header comment, up to its first empty line.
  sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit "${1:-2}"
}

run_drip=1 quick=0 rebuild=0 build_only=0 runs=3
corpora=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  arg=${args[i]}
  case "$arg" in
    --runs) i=$((i + 1)); runs=${args[i]:-} ;;
    --runs=*) runs=${arg#--runs=} ;;
    --no-drip) run_drip=0 ;;
    --quick) quick=1 ;;
    --rebuild) rebuild=1 ;;
    --build-only) build_only=1 ;;
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
case "$runs" in ''|*[!0-9]*|0) die "--runs takes a number of runs, 1 or more" ;; esac

# The machine is shared: everything below runs at a lower priority (children inherit it).
[ "${BENCH_NICE:-10}" = 0 ] || renice -n "${BENCH_NICE:-10}" -p $$ >/dev/null 2>&1 || true

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

captured=0
cxx=0
for c in "${corpora[@]}"; do case "$c" in openssl|libgit2|curl|leveldb) captured=1 ;; esac; done
for c in "${corpora[@]}"; do case "$c" in leveldb) cxx=1 ;; esac; done
pkgs=(clang-19 time python3)
[ "$captured" = 0 ] || pkgs+=(make cmake perl gcc)
[ "$cxx" = 0 ] || pkgs+=(g++)
apt_need "${pkgs[@]}"
CLANG=$(command -v clang-19) || die "clang-19 is not on PATH after installing it"
GNU_TIME=/usr/bin/time
[ -x "$GNU_TIME" ] || die "$GNU_TIME is missing (Debian package 'time')"

DRIP="${BENCH_DRIP:-}"
if [ -n "$DRIP" ]; then
  [ -x "$DRIP" ] || die "BENCH_DRIP=$DRIP is not an executable"
  say "using BENCH_DRIP=$DRIP (no build)"
elif [ "$run_drip" = 1 ] || [ "$captured" = 1 ]; then
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
$LUA_CRATE = \"=$LUA_VERSION\"
$OPENSSL_CRATE = \"=${OPENSSL_VERSION%%+*}\"
$LIBGIT2_CRATE = \"=${LIBGIT2_VERSION%%+*}\"
$CURL_CRATE = { version = \"=${CURL_VERSION%%+*}\", default-features = false }
$LEVELDB_CRATE = \"=$LEVELDB_VERSION\""
if [ ! -f "$FETCH/Cargo.toml" ] || [ "$(cat "$FETCH/Cargo.toml")" != "$manifest" ]; then
  printf '%s\n' "$manifest" > "$FETCH/Cargo.toml"
  rm -f "$FETCH/Cargo.lock"
fi
[ -f "$FETCH/src/lib.rs" ] || : > "$FETCH/src/lib.rs"

# crate_dir NAME VERSION: prints the unpacked source folder of a fetched crate.
metadata=""
crate_dir() {
  local m
  m=$(printf '%s' "$metadata" | grep -o '"manifest_path":"[^"]*/Cargo.toml"' | grep -F "/$1-$2/Cargo.toml\"" | head -n1) || true
  [ -n "$m" ] || return 1
  m=${m#\"manifest_path\":\"}
  dirname "${m%\"}"
}

CRATES=("$SQLITE_CRATE $SQLITE_VERSION" "$LUA_CRATE $LUA_VERSION" "$OPENSSL_CRATE $OPENSSL_VERSION"
        "$LIBGIT2_CRATE $LIBGIT2_VERSION" "$CURL_CRATE $CURL_VERSION"
        "$LEVELDB_CRATE $LEVELDB_VERSION")
all_fetched() {
  local nv d
  for nv in "${CRATES[@]}"; do
    # shellcheck disable=SC2086
    d=$(crate_dir $nv) && [ -d "$d" ] || return 1
  done
}

# Offline first: a re-run needs no network at all.
if metadata=$(cargo metadata --format-version 1 --offline --manifest-path "$FETCH/Cargo.toml" 2>/dev/null) \
   && all_fetched; then
  say "sources already fetched"
else
  say "cargo fetch (${CRATES[*]})"
  t0=$EPOCHREALTIME
  cargo fetch --manifest-path "$FETCH/Cargo.toml" >&2 || die "cargo fetch failed"
  say "fetch took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
  metadata=$(cargo metadata --format-version 1 --offline --manifest-path "$FETCH/Cargo.toml") \
    || die "cargo metadata failed after the fetch"
fi
src_of() { crate_dir "$1" "$2" || die "cannot find $1-$2 in the cargo registry"; }
SQLITE_SRC=$(src_of "$SQLITE_CRATE" "$SQLITE_VERSION")
LUA_SRC=$(src_of "$LUA_CRATE" "$LUA_VERSION")
OPENSSL_SRC=$(src_of "$OPENSSL_CRATE" "$OPENSSL_VERSION")
LIBGIT2_SRC=$(src_of "$LIBGIT2_CRATE" "$LIBGIT2_VERSION")
CURL_SRC=$(src_of "$CURL_CRATE" "$CURL_VERSION")
LEVELDB_SRC=$(src_of "$LEVELDB_CRATE" "$LEVELDB_VERSION")

# --- corpora -------------------------------------------------------------------------------
# corpus_setup NAME makes $WORK/NAME/compile_commands.json and sets ROOTS (the project's
# folders: sources and build tree, for KLOC) and VERSION (for the report).

json_str() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}

# write_db NAME DIR FLAGS... -- FILES...: a compile database (arguments form, absolute paths).
write_db() {
  local name=$1 dir=$2 out tmp sep="" f a args flags=() files=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  files=("$@")
  [ ${#files[@]} -gt 0 ] || die "$name: no C files in $dir"
  out="$WORK/$name/compile_commands.json"
  mkdir -p "$WORK/$name"
  tmp="$out.tmp"
  {
    printf '[\n'
    for f in "${files[@]}"; do
      [ -f "$dir/$f" ] || die "$name: missing $dir/$f"
      args=$(json_str cc)
      for a in "${flags[@]}" -c "$f" -o "${f%.c}.o"; do args+=", $(json_str "$a")"; done
      printf '%s  {"directory": %s, "file": %s,\n   "arguments": [%s]}' \
        "$sep" "$(json_str "$dir")" "$(json_str "$dir/$f")" "$args"
      sep=$',\n'
    done
    printf '\n]\n'
  } > "$tmp"
  mv "$tmp" "$out"
}

# build_captured NAME CRATE_SUBDIR BUILD: copies the crate's sources to $WORK/NAME/src and runs
# BUILD there under `drip capture`, which writes $WORK/NAME/compile_commands.json. Skipped when
# that database exists and was made by the same build of the same sources (build.stamp).
build_captured() {
  local name=$1 from=$2 build=$3 dir="$WORK/$1" stamp rc=0 t0
  stamp="$from | $build"
  if [ "$rebuild" = 0 ] && [ -s "$dir/compile_commands.json" ] && [ -f "$dir/build.stamp" ] \
     && [ "$(cat "$dir/build.stamp")" = "$stamp" ]; then
    say "$name: built tree reused ($dir; --rebuild to build it again)"
    return
  fi
  [ -d "$from" ] || die "$name: no sources at $from"
  say "$name: building under drip capture (log: $dir/build.log); this takes minutes"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -a "$from" "$dir/src"
  t0=$EPOCHREALTIME
  (cd "$dir/src" && "$GNU_TIME" -f '%e %U %S %M' -o "$dir/build.time" \
     "$DRIP" capture --cdb "$dir/compile_commands.json" -- sh -c "$build") > "$dir/build.log" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    tail -n 30 "$dir/build.log" >&2
    die "$name: the build under drip capture exited $rc (full log: $dir/build.log)"
  fi
  say "$name: built in $(secs "$t0" "$EPOCHREALTIME") s; $(grep -m1 -i 'recorded' "$dir/build.log" || true)"
  printf '%s\n' "$stamp" > "$dir/build.stamp"
}

corpus_setup() {
  local d
  case "$1" in
    sqlite)
      VERSION="$SQLITE_CRATE $SQLITE_VERSION"
      ROOTS=("$SQLITE_SRC/sqlite3")
      # The flags libsqlite3-sys's build.rs uses for its bundled build.
      write_db sqlite "$SQLITE_SRC/sqlite3" -O2 -DSQLITE_CORE -DSQLITE_DEFAULT_FOREIGN_KEYS=1 -DSQLITE_ENABLE_API_ARMOR \
        -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_FTS3 \
        -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_JSON1 \
        -DSQLITE_ENABLE_LOAD_EXTENSION=1 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_STAT4 \
        -DSQLITE_SOUNDEX -DSQLITE_THREADSAFE=1 -DSQLITE_USE_URI -DHAVE_USLEEP=1 -DHAVE_ISNAN \
        -- sqlite3.c
      ;;
    lua)
      VERSION="$LUA_CRATE $LUA_VERSION"
      d=$(find "$LUA_SRC" -maxdepth 1 -type d -name 'lua-5.4.*' | sort -V | tail -n1)
      [ -n "$d" ] || die "no lua-5.4.* folder in $LUA_SRC"
      ROOTS=("$d")
      # Every .c file, with the flags of Lua's own Makefile for `make linux`.
      local tus=()
      mapfile -t tus < <(cd "$d" && find . -maxdepth 1 -name '*.c' -printf '%f\n' | LC_ALL=C sort)
      write_db lua "$d" -std=gnu99 -O2 -Wall -Wextra -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -- "${tus[@]}"
      ;;
    openssl)
      VERSION="$OPENSSL_CRATE $OPENSSL_VERSION"
      build_captured openssl "$OPENSSL_SRC/openssl" "$OPENSSL_BUILD"
      ROOTS=("$WORK/openssl/src")
      ;;
    libgit2)
      VERSION="$LIBGIT2_CRATE $LIBGIT2_VERSION"
      build_captured libgit2 "$LIBGIT2_SRC/libgit2" "$LIBGIT2_BUILD"
      ROOTS=("$WORK/libgit2/src" "$WORK/libgit2/build")
      ;;
    curl)
      VERSION="$CURL_CRATE $CURL_VERSION"
      build_captured curl "$CURL_SRC/curl" "$CURL_BUILD"
      ROOTS=("$WORK/curl/src" "$WORK/curl/build")
      ;;
    leveldb)
      VERSION="$LEVELDB_CRATE $LEVELDB_VERSION"
      build_captured leveldb "$LEVELDB_SRC/deps/leveldb-1.22" "$LEVELDB_BUILD"
      ROOTS=("$WORK/leveldb/src" "$WORK/leveldb/build")
      ;;
    *) die "unknown corpus $1" ;;
  esac
}

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# div A B [FORMAT]: A / B, or "-" when either is missing or B is 0.
div() {
  awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" \
    'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b + 0 == 0) print "-"; else printf f "\n", a / b }'
}
# verdict VALUE LIMIT: "pass" when VALUE <= LIMIT, "FAIL" otherwise, "-" without a value.
verdict() {
  awk -v v="$1" -v l="$2" 'BEGIN { if (v == "-" || v == "") print "-"; else print (v + 0 <= l + 0 ? "pass" : "FAIL") }'
}

# median VALUE...: the median of numbers ("-" values left out), or "-" without any.
median() {
  printf '%s\n' "$@" | grep -v '^-\?$' | sort -g | awk '{ v[NR] = $1 }
    END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# diags REPORT.json: the report's diagnostics, one JSON line (for comparing runs).
diags() {
  python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["diagnostics"]))' "$1" 2>/dev/null || true
}

# kv FILE KEY: the value of KEY in a file of key=value lines (from tools.py), or "-".
kv() { local v; v=$(grep -m1 "^$2=" "$1" 2>/dev/null | cut -d= -f2-) || true; printf '%s' "${v:--}"; }

# drip_run CORPUS LABEL JOBS CACHE: one `drip check` under /usr/bin/time. Writes
# $WORK/CORPUS/drip-LABEL.{json,stderr,time,kv}; sets RC, WALL, CPU, RSS_MIB.
drip_run() {
  local c=$1 label=$2 jobs=$3 cache=$4 out="$WORK/$1/drip-$2" u s k
  RC=0
  "$GNU_TIME" -f '%e %U %S %M' -o "$out.time" \
    "$DRIP" check -p "$WORK/$c" --cache-dir "$cache" --stats -j"$jobs" --format json -o "$out.json" \
    2> "$out.stderr" || RC=$?
  read -r WALL u s k < <(tail -n1 "$out.time")
  # A run killed by a signal: /usr/bin/time's last line says so instead of the numbers.
  case "$WALL" in ''|*[!0-9.]*) WALL="-" CPU="-" RSS_MIB="-" ;;
    *) CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
       RSS_MIB=$(awk -v k="$k" 'BEGIN { printf "%.0f", k / 1024 }') ;;
  esac
  python3 "$TOOLS" report "$out.json" > "$out.kv"
  # Internal errors: the report's internal-error notifications, "internal error" lines on
  # stderr, or at least one for exit 3 or a crash (a signal, or no report at all).
  local ie
  ie=$(grep -c 'internal error' "$out.stderr" || true)
  [ "$(kv "$out.kv" internal_errors)" = "-" ] || [ "$(kv "$out.kv" internal_errors)" -le "$ie" ] \
    || ie=$(kv "$out.kv" internal_errors)
  if { [ "$RC" -ge 3 ] || [ "$(kv "$out.kv" ok)" != 1 ]; } && [ "$ie" = 0 ]; then ie=1; fi
  INTERNAL=$ie
  say "$c: drip $label (-j$jobs): exit $RC, $WALL s, CPU $CPU s, peak RSS $RSS_MIB MiB, $(kv "$out.kv" leaks) leaks, $(kv "$out.kv" double_frees) double frees, internal errors $ie"
  if [ "$RC" -ge 2 ]; then tail -n 5 "$out.stderr" | sed 's/^/    /' >&2; fi
}

rows=() cats=() verdicts=()
for c in "${corpora[@]}"; do
  corpus_setup "$c"
  [ "$build_only" = 0 ] || continue
  db="$WORK/$c/compile_commands.json"
  python3 "$TOOLS" kloc "$db" "$CLANG" "${ROOTS[@]}" > "$WORK/$c/kloc.kv"
  tus=$(python3 "$TOOLS" tus "$db" | cut -d= -f2)
  kloc=$(kv "$WORK/$c/kloc.kv" kloc)
  say "$c: $tus TUs (C and C++), $kloc KLOC ($(kv "$WORK/$c/kloc.kv" c_kloc) in source files, $(kv "$WORK/$c/kloc.kv" h_kloc) in headers, $(kv "$WORK/$c/kloc.kv" files) files)"

  # (1) clang-19 -fsyntax-only over every TU with the database's flags, one after the other,
  # outside drip, and (2) drip on one thread with an empty incremental cache (a cold run), in
  # pairs, $runs times: each pair runs under the same load, and the cold/parse verdict is the
  # median of the pairs' ratios (one pair moves by several percent on this shared machine).
  cache="$WORK/$c/drip-cache"
  p_walls=() p_cpus=() c_walls=() c_cpus=() ratios=() rss1="-" internal=0 same="-"
  for r in $(seq "$runs"); do
    python3 "$TOOLS" clang "$db" "$CLANG" 1 "$WORK/$c/clang.stderr" > "$WORK/$c/clang.kv"
    p_walls+=("$(kv "$WORK/$c/clang.kv" wall)") p_cpus+=("$(kv "$WORK/$c/clang.kv" cpu)")
    clang_failed=$(kv "$WORK/$c/clang.kv" failed)
    say "$c: clang-19 -fsyntax-only ($r/$runs): ${p_walls[-1]} s, CPU ${p_cpus[-1]} s, $clang_failed TUs with errors"
    [ "$run_drip" = 1 ] || continue
    rm -rf "$cache"
    drip_run "$c" cold 1 "$cache"
    c_walls+=("$WALL") c_cpus+=("$CPU") ratios+=("$(div "$CPU" "${p_cpus[-1]}")")
    rss1=$(awk -v a="$rss1" -v b="$RSS_MIB" 'BEGIN { print (a == "-" || b + 0 > a + 0 ? b : a) }')
    internal=$((internal + INTERNAL))
    # Every cold run must report the same diagnostics (the analysis is deterministic).
    diags "$WORK/$c/drip-cold.json" > "$WORK/$c/drip-cold-$r.diags"
    if [ "$r" -gt 1 ] && ! cmp -s "$WORK/$c/drip-cold-1.diags" "$WORK/$c/drip-cold-$r.diags"; then
      same=NO
      say "$c: cold run $r's diagnostics differ from cold run 1's"
    fi
  done
  parse_s=$(median "${p_walls[@]}") parse_cpu=$(median "${p_cpus[@]}")
  parse2_s="-"
  if [ "$quick" = 0 ]; then
    python3 "$TOOLS" clang "$db" "$CLANG" 2 "$WORK/$c/clang-j2.stderr" > "$WORK/$c/clang-j2.kv"
    parse2_s=$(kv "$WORK/$c/clang-j2.kv" wall)
    say "$c: clang-19 -fsyntax-only, two at a time: $parse2_s s"
  fi

  cold_s="-" cold_cpu="-" cold_ratio="-" ratio_range="-" rss2="-" cold2_s="-" warm_s="-" warm_cpu="-"
  cache_mib="-" failed_tus="-" err_tus="-" leaks="-" dfs="-" fe_cpu="-" an_cpu="-"
  if [ "$run_drip" = 1 ]; then
    cold_s=$(median "${c_walls[@]}") cold_cpu=$(median "${c_cpus[@]}") cold_ratio=$(median "${ratios[@]}")
    ratio_range=$(printf '%s\n' "${ratios[@]}" | sort -g | sed -n '1p;$p' | uniq | paste -sd'/' | sed 's#/#–#')
    # (3) the last cold run's command again with nothing changed (a warm run), then (4) cold on
    # two threads. Counts and categories are the last cold run's.
    r="$WORK/$c/drip-cold.kv"
    leaks=$(kv "$r" leaks) dfs=$(kv "$r" double_frees) failed_tus=$(kv "$r" tus_failed)
    err_tus=$(kv "$r" tus_with_errors)
    fe_cpu=$(div "$(kv "$r" ms_cpu_front_end)" 1000) an_cpu=$(div "$(kv "$r" ms_cpu_analysis)" 1000)
    row="$c"
    for k in cat_never_freed_local cat_freed_conditional cat_never_freed_main cat_never_freed_not_local \
             cat_unknown cat_over_budget cat_freed_always cat_returned sources functions functions_failed; do
      row+="|$(kv "$r" "$k")"
    done
    cats+=("$row|$leaks|$dfs")

    drip_run "$c" warm 1 "$cache"
    warm_s=$WALL warm_cpu=$CPU internal=$((internal + INTERNAL))
    cache_mib=$(du -sk "$cache" | awk '{ printf "%.1f", $1 / 1024 }')
    if [ "$(kv "$WORK/$c/drip-warm.kv" findings)" = "$(kv "$r" findings)" ] \
       && cmp -s <(diags "$WORK/$c/drip-cold.json") <(diags "$WORK/$c/drip-warm.json"); then
      [ "$same" = NO ] || same=yes
    else
      same=NO
      say "$c: the warm run's diagnostics differ from the cold run's"
    fi

    if [ "$quick" = 0 ]; then
      rm -rf "$cache-j2"
      drip_run "$c" cold-j2 2 "$cache-j2"
      cold2_s=$WALL rss2=$RSS_MIB internal=$((internal + INTERNAL))
      rm -rf "$cache-j2"
    fi
  fi

  cold_wall_ratio=$(div "$cold_s" "$parse_s")
  cold2_ratio=$(div "$cold2_s" "$parse2_s")
  warm_ratio=$(div "$warm_s" "$cold_s" '%.3f')
  warm_cpu_ratio=$(div "$warm_cpu" "$cold_cpu" '%.3f')
  rss=$(awk -v a="$rss1" -v b="$rss2" 'BEGIN { m = (a == "-" ? "" : a); if (b != "-" && b + 0 > m + 0) m = b; print (m == "" ? "-" : m) }')
  # The memory target, 1 GiB per 250 KLOC, as a budget of 1 GiB for each 250 KLOC begun
  # (a small corpus gets 1 GiB: drip's fixed cost, libclang and LLVM, is about 70 MiB).
  budget=$(awk -v k="$kloc" 'BEGIN { n = int((k + 249.999) / 250); if (n < 1) n = 1; print n * 1024 }')
  rss_ratio=$(div "$rss" "$budget")
  # The same without rounding up: MiB of peak RSS per 250 KLOC (small corpora look large here,
  # since the fixed cost is divided by few lines).
  rss_per_250=$(div "$(awk -v r="$rss" 'BEGIN { print (r == "-" ? "-" : r * 250) }')" "$kloc" '%.0f')
  rows+=("$c|$tus|$kloc|$parse_s|$parse_cpu|$parse2_s|$cold_s|$cold_cpu|$cold_ratio|$ratio_range|$cold_wall_ratio|$cold2_s|$cold2_ratio|$warm_s|$warm_ratio|$warm_cpu_ratio|$rss1|$rss2|$budget|$cache_mib|$leaks|$dfs|$internal|$failed_tus|$err_tus|$clang_failed")
  verdicts+=("$c|$cold_ratio|$(verdict "$cold_ratio" 1.3)|$warm_cpu_ratio|$(verdict "$warm_cpu_ratio" 0.05)|$rss_ratio|$(verdict "$rss_ratio" 1)|$rss_per_250|$internal|$(verdict "$internal" 0)|$same|$VERSION")
done

# --- report --------------------------------------------------------------------------------

H_TIME="corpus|TUs|KLOC|clang s|clang CPU s|clang -j2 s|drip cold s|cold CPU s|cold/parse CPU|cold/parse CPU, range|cold/parse wall|drip -j2 s|-j2/clang -j2|warm s|warm/cold|warm/cold CPU|RSS -j1 MiB|RSS -j2 MiB|RSS budget MiB|cache MiB|leaks|double frees|internal errors|TUs failed|TUs with errors|clang errors"
H_VERDICT="corpus|cold/parse (CPU)|≤ 1.3|warm/cold (CPU)|≤ 0.05|peak RSS / budget|≤ 1|MiB per 250 KLOC|internal errors|= 0|warm = cold|crate"
H_CATS="corpus|never-freed-local|freed-conditional|never-freed-main|never-freed-not-local|unknown|over-budget|freed-always|returned|sites|functions|functions failed|leaks reported|double frees reported"

table() { # HEADER ROW...: aligned columns on stdout
  printf '%s\n' "$@" | awk -F'|' '
    { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } if (NF > n) n = NF }
    END { for (r = 1; r <= NR; r++) { line = ""
            for (i = 1; i <= n; i++) line = line sprintf(i == 1 ? "%-" w[i] "s" : "  %" w[i] "s", cell[r, i])
            print line } }'
}
md() { # HEADER ROW...: a Markdown table
  local h=$1 n
  shift
  n=$(awk -F'|' '{ print NF }' <<<"$h")
  printf '| %s |\n' "${h//|/ | }"
  printf '|%s\n' "$(printf -- '---|%.0s' $(seq "$n"))"
  local r
  for r in "$@"; do printf '| %s |\n' "${r//|/ | }"; done
}

[ "$build_only" = 0 ] || exit 0
echo
table "$H_TIME" "${rows[@]}"
echo
table "$H_VERDICT" "${verdicts[@]}"
if [ ${#cats[@]} -gt 0 ]; then echo; table "$H_CATS" "${cats[@]}"; fi

{
  printf 'machine: %s, %s cores; %s; %s; drip %s%s\n\n' \
    "$(uname -m)" "$(nproc)" "$("$CLANG" --version | head -n1)" "$(date -u +%Y-%m-%dT%H:%MZ)" \
    "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '(no commit)')" \
    "$([ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no -- src 2>/dev/null)" ] || echo ' (with uncommitted changes in src/)')"
  printf 'load average at the end: %s; clang and drip cold -j1: median of %s runs in pairs\n\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$runs"
  md "$H_TIME" "${rows[@]}"
  echo
  md "$H_VERDICT" "${verdicts[@]}"
  if [ ${#cats[@]} -gt 0 ]; then echo; md "$H_CATS" "${cats[@]}"; fi
} > "$WORK/results.md"
say "Markdown tables written to $WORK/results.md"
