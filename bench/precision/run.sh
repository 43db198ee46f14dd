#!/usr/bin/env bash
# bench/precision/run.sh: runs drip on real programs and compares every report with the
# hand-made triage tables in bench/precision/triage/ (real or false, with a one-line reason).
#
#   bash bench/precision/run.sh [--rebuild] [--update] [PROGRAM...]
#        programs: tmux bash bash-malloc vim git openssh jq, GNU make (gmake), nano, htop, screen, less,
#                  and the C++ ones
#                  tinyxml2 snappy leveldb re2 fmtlib ninja cppcheck groff hunspell
#                  (Debian 12 source packages, built here under `drip capture`) and sqlite lua openssl libgit2 curl (bench/run.sh's
#                  corpora); default: all
#        --rebuild  build the Debian programs again (their tree is otherwise reused)
#        --update   append every untriaged report to its table with verdict `?`, to be triaged
#   DRIP=/path/to/drip bash bench/precision/run.sh   (use that binary, drip-cc beside it)
#   Output: per program, the reports in bench/work/precision/NAME/reports.json, and on stdout a
#   table of counts (reports, real, false, untriaged, % real, false double frees) followed by
#   every untriaged report and every triaged real report that is no longer reported.
#   Exit status: 0, or 1 when a report is untriaged or a real one went missing.

# Debian's sources come from `apt-get source` (a deb-src entry is added for the release the
# machine runs); nothing is committed, everything is written below bench/work/ (git-ignored).
# The tables in bench/precision/triage/ hold no source: file, function, rule, the line of the
# allocation counted from the function's first line, allocator, verdict and a reason.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/bench/precision"
WORK="$ROOT/bench/work/precision"
DEBIAN_PROGRAMS=(tmux bash bash-malloc vim git openssh tinyxml2 snappy leveldb re2 fmtlib ninja cppcheck groff hunspell jq gmake nano htop screen less)
BENCH_PROGRAMS=(sqlite lua openssl libgit2 curl)
ALL=("${DEBIAN_PROGRAMS[@]}" "${BENCH_PROGRAMS[@]}")

say() { printf '[precision] %s\n' "$*" >&2; }
die() { printf '[precision] error: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }

rebuild=0 update=0 programs=()
for arg in "$@"; do
  case "$arg" in
    --rebuild) rebuild=1 ;;
    --update) update=1 ;;
    -h|--help) usage 0 ;;
    -*) say "unknown option: $arg"; usage ;;
    *) case " ${ALL[*]} " in
         *" $arg "*) programs+=("$arg") ;;
         *) die "unknown program '$arg' (known: ${ALL[*]})" ;;
       esac ;;
  esac
done
[ ${#programs[@]} -gt 0 ] || programs=("${ALL[@]}")

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
apt_need() {
  local missing=() p
  for p in "$@"; do
    dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  $SUDO apt-get update -q >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

DRIP="${DRIP:-}"
if [ -z "$DRIP" ]; then
  make -C "$ROOT" --no-print-directory build >&2
  DRIP="${CARGO_TARGET_DIR:-$ROOT/target}/release/drip"
fi
[ -x "$DRIP" ] || die "no drip binary at $DRIP"
mkdir -p "$WORK"
# Reports name files relative to the current folder when they are below it.
cd "$ROOT"

# --- Debian programs -------------------------------------------------------------------------

# deb_src: makes sure apt knows the source packages of the release this machine runs.
deb_src() {
  local list=/etc/apt/sources.list.d/drip-deb-src.sources
  apt-cache showsrc tmux >/dev/null 2>&1 && apt-cache showsrc tmux | grep -q '^Package:' && return 0
  [ -f "$list" ] || {
    say "adding deb-src entries ($list)"
    # The machine's own deb entries, as deb-src.
    local f
    for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list; do
      [ -f "$f" ] || continue
      case "$f" in *drip-deb-src*) continue ;; esac
      if [[ "$f" == *.sources ]]; then
        grep -q 'debian.org' "$f" && sed -n 's/^Types: deb$/Types: deb-src/; p' "$f"
      else
        grep -E '^deb .*debian.org' "$f" | sed 's/^deb /deb-src /'
      fi
    done | $SUDO tee "$list" >/dev/null
    # A one-line list is a .list file, not a deb822 .sources file.
    if grep -q '^deb-src ' "$list"; then $SUDO mv "$list" "${list%.sources}.list"; fi
  }
  $SUDO apt-get update -q >&2
}

# fetch NAME PACKAGE: unpacks Debian's source package PACKAGE into $WORK/NAME/src (once).
fetch() {
  local name=$1 pkg=$2 dir="$WORK/$1" d
  if [ -d "$dir/src" ] && [ "$rebuild" = 0 ]; then return 0; fi
  deb_src
  rm -rf "$dir/src" "$dir/dl"
  mkdir -p "$dir/dl"
  say "apt-get source $pkg"
  # A mirror may lack the security archive's newest upload: then the release's own version.
  (cd "$dir/dl" && { apt-get source -q "$pkg" >&2 ||
    { rm -rf "$dir/dl"/*; apt-get source -q "$pkg/$(. /etc/os-release && echo "$VERSION_CODENAME")" >&2; }; }) ||
    die "apt-get source $pkg failed"
  d=$(find "$dir/dl" -mindepth 1 -maxdepth 1 -type d | head -n1)
  [ -n "$d" ] || die "apt-get source $pkg unpacked nothing"
  mv "$d" "$dir/src"
  basename "$(ls "$dir"/dl/*.dsc)" .dsc > "$dir/version"
  rm -rf "$dir/dl"
}

# build NAME CONFIGURE MAKE...: configures the program and builds it under drip capture.
build() {
  local name=$1 configure=$2; shift 2
  local dir="$WORK/$name"
  if [ -f "$dir/compile_commands.json" ] && [ -f "$dir/build.ok" ] && [ "$rebuild" = 0 ]; then return 0; fi
  rm -f "$dir/compile_commands.json" "$dir/build.ok"
  say "building $name (log: $dir/build.log)"
  (
    cd "$dir/src"
    [ -z "$configure" ] || sh -c "$configure"
    "$DRIP" capture --cdb "$dir/compile_commands.json" -- "$@"
  ) > "$dir/build.log" 2>&1 || die "building $name failed: see $dir/build.log"
  touch "$dir/build.ok"
}

debian_program() {
  local name=$1
  case "$name" in
    tmux)
      apt_need dpkg-dev gcc make libevent-dev libncurses-dev pkg-config bison
      fetch tmux tmux
      build tmux './configure -q' make -j2 ;;
    bash|bash-malloc)
      apt_need dpkg-dev gcc make bison
      fetch "$name" bash
      # Debian's own build uses the system malloc; bash's default build brings its own.
      if [ "$name" = bash ]; then
        build bash './configure -q --without-bash-malloc' make -j2
      else
        build bash-malloc './configure -q' make -j2
      fi ;;
    vim)
      apt_need dpkg-dev gcc make libncurses-dev
      fetch vim vim
      build vim './configure -q --with-features=huge --enable-gui=no --without-x --disable-gpm --disable-selinux --disable-nls' make -j2 ;;
    git)
      apt_need dpkg-dev gcc make zlib1g-dev libssl-dev libcurl4-openssl-dev libexpat1-dev
      fetch git git
      build git '' make -j2 NO_GETTEXT=1 NO_TCLTK=1 NO_PERL=1 NO_PYTHON=1 all ;;
    openssh)
      apt_need dpkg-dev gcc make zlib1g-dev libssl-dev autoconf automake
      fetch openssh openssh
      # Debian's patches touch configure.ac; its build regenerates configure the same way.
      build openssh 'autoreconf -fi >/dev/null 2>&1 && ./configure -q --without-pam --without-selinux --without-kerberos5' make -j2 ;;
    # C++. CMake is run under the capture too: it stores the compiler's full path, which must be
    # the wrapper's. Only the library is built (and tinyxml2's small test program, xmltest): the
    # packages' other tests and benchmarks need gtest/benchmark and are not measured here.
    tinyxml2)
      apt_need dpkg-dev g++ make cmake
      fetch tinyxml2 tinyxml2
      build tinyxml2 '' sh -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -Dtinyxml2_BUILD_TESTING=ON && make -C build -j2' ;;
    snappy)
      apt_need dpkg-dev g++ make cmake
      fetch snappy snappy
      build snappy '' sh -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSNAPPY_BUILD_TESTS=OFF -DSNAPPY_BUILD_BENCHMARKS=OFF && make -C build -j2 snappy' ;;
    leveldb)
      # With Snappy, as Debian builds it (port::Snappy_Uncompress is a constant false without).
      apt_need dpkg-dev g++ make cmake libsnappy-dev
      fetch leveldb leveldb
      build leveldb '' sh -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF && make -C build -j2 leveldb' ;;
    re2)
      # Debian's way: its Makefile, with the Unicode and Perl tables (dropped from the +dfsg
      # source) generated again from unicode-data; only the static library.
      apt_need dpkg-dev g++ make perl python3 python3-six unicode-data
      fetch re2 re2
      build re2 '' make -j2 REBUILD_TABLES=1 obj/libre2.a ;;
    fmtlib)
      # The compiled part of {fmt} (format.cc, os.cc); most of the library is header templates.
      apt_need dpkg-dev g++ make cmake
      fetch fmtlib fmtlib
      build fmtlib '' sh -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFMT_TEST=OFF -DFMT_DOC=OFF && make -C build -j2 fmt' ;;
    ninja)
      # The large program: ninja-build's own binary (Debian builds it the same way, with
      # re2c's generated lexers as shipped). Its build graph is raw new/delete (State's nodes,
      # edges and pools) beside owners (std::unique_ptr, containers), see README.
      apt_need dpkg-dev g++ make cmake
      fetch ninja ninja-build
      build ninja '' sh -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF && make -C build -j2 ninja' ;;
    cppcheck)
      # A larger program (lib/ and cli/, about 85,000 lines of C++): the command-line tool only,
      # without Qt, tests or PCRE rules, and without the match compiler (the sources as written
      # rather than their generated rewrite). A Debug build without -O2 keeps it to minutes;
      # libstdc++'s debug containers (CPPCHK_GLIBCXX_DEBUG) are left off, as in a release.
      apt_need dpkg-dev g++ make cmake python3
      fetch cppcheck cppcheck
      build cppcheck '' sh -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug -DCPPCHK_GLIBCXX_DEBUG=OFF -DUSE_MATCHCOMPILER=Off -DBUILD_GUI=OFF -DBUILD_TESTS=OFF -DHAVE_RULES=OFF && make -C build -j2 cppcheck' ;;
    groff)
      # Old-style C++ (1990s, raw new/delete, hand-written containers and owners): troff and
      # pic with their libgroff, without X or documents. Debian's patches touch Makefile.am,
      # so make is kept from rerunning automake (the shipped Makefile.in is used as is);
      # gnulib's generated headers are BUILT_SOURCES, which named targets do not build.
      apt_need dpkg-dev g++ make bison
      fetch groff groff
      build groff './configure -q --without-x --with-doc=no' \
        make -j2 ACLOCAL=true AUTOMAKE=true AUTOCONF=true AUTOHEADER=true lib/unitypes.h lib/uniwidth.h troff pic ;;
    hunspell)
      # Old-style C++ beside C idioms (raw new/delete next to malloc/free, hand-made hash
      # tables and affix lists): the library and the command-line tool, without its curses UI.
      apt_need dpkg-dev g++ make
      fetch hunspell hunspell
      build hunspell './configure -q --disable-nls --without-ui --without-readline' make -j2 ;;
    jq)
      # As Debian builds it: with Debian's libonig (its patch drops the bundled oniguruma),
      # autoreconf for the patched configure.ac and Makefile.am, the shipped lexer and parser
      # (dh's --disable-maintainer-mode). Only libjq and the jq binary; the generated headers
      # are BUILT_SOURCES, which named targets do not build.
      apt_need dpkg-dev gcc make autoconf automake libtool libonig-dev
      fetch jq jq
      build jq 'autoreconf -fi >/dev/null 2>&1 && ./configure -q --disable-static --disable-maintainer-mode --disable-docs --disable-valgrind' \
        sh -c 'make src/builtin.inc src/version.h && make -j2 jq' ;;
    gmake)
      # GNU make 4.3 (make-dfsg): the make program only (gnulib's lib/ first, for its generated
      # headers), without Guile, NLS, documents or tests. The Debian source ships no configure:
      # it is generated as Debian's build does (dh-autoreconf).
      apt_need dpkg-dev gcc make autoconf automake autopoint gettext pkg-config
      fetch gmake make-dfsg
      build gmake 'autoreconf -fi >/dev/null 2>&1 && ./configure -q --without-guile --disable-nls' \
        sh -c 'make -C lib -j2 && make -j2 make' ;;
    nano)
      # GNU nano 7.2 (ncursesw, as Debian builds it): the nano program only (gnulib's lib/
      # first, for its generated headers), without NLS, documents or libmagic.
      apt_need dpkg-dev gcc make libncurses-dev pkg-config
      fetch nano nano
      build nano './configure -q --disable-nls --disable-libmagic' \
        sh -c 'make -C lib -j2 && make -C src -j2 nano' ;;
    htop)
      # htop 3.2 on Linux (ncursesw, its own xMalloc/xStrdup wrappers that die on failure),
      # without the optional sensors, capabilities and delay accounting.
      apt_need dpkg-dev gcc make autoconf automake libncurses-dev pkg-config
      fetch htop htop
      build htop './autogen.sh >/dev/null 2>&1 && ./configure -q --disable-sensors --disable-capabilities --disable-delayacct --disable-unwind' make -j2 ;;
    screen)
      # GNU screen 4.9, an older C code base (hand-made lists and buffers, malloc beside its
      # own wrappers), without PAM or utempter.
      apt_need dpkg-dev gcc make autoconf automake libncurses-dev
      fetch screen screen
      build screen './autogen.sh >/dev/null 2>&1; ./configure -q --disable-pam --disable-socket-dir' make -j2 screen ;;
    less)
      # less 590 (ncurses, K&R-style definitions, its own ecalloc that quits on failure): less,
      # lesskey and lessecho, three programs in one database, each linked on its own.
      apt_need dpkg-dev gcc make libncurses-dev
      fetch less less
      build less './configure -q' make -j2 ;;
  esac
}

# --- the run ---------------------------------------------------------------------------------

for name in "${programs[@]}"; do
  case " ${BENCH_PROGRAMS[*]} " in
    *" $name "*)
      db="$ROOT/bench/work/$name/compile_commands.json"
      if [ ! -f "$db" ]; then
        BENCH_DRIP="$DRIP" bash "$ROOT/bench/run.sh" --build-only "$name" >&2 || die "bench/run.sh --build-only $name failed"
      fi
      srcroot=$(python3 "$HERE/triage.py" srcroot "$db") ;;
    *)
      debian_program "$name"
      db="$WORK/$name/compile_commands.json"
      srcroot="$WORK/$name/src" ;;
  esac
  mkdir -p "$WORK/$name"
  say "drip check $name"
  rc=0
  "$DRIP" check -p "$db" --cache-dir "$WORK/$name/drip-cache" -j2 --format json \
    -o "$WORK/$name/reports.json" 2> "$WORK/$name/check.stderr" || rc=$?
  [ "$rc" -le 1 ] || die "drip check on $name exited $rc: see $WORK/$name/check.stderr"
  printf '%s\n' "$srcroot" > "$WORK/$name/srcroot"
done

args=()
[ "$update" = 0 ] || args+=(--update)
python3 "$HERE/triage.py" compare "${args[@]}" --work "$WORK" --tables "$HERE/triage" "${programs[@]}"
