# drip: the two set-up commands are `make demo` and `make test` (see README.md).
# Both install the missing Debian packages first (target `deps`).

SHELL := /bin/bash

# System packages drip needs to build: libclang 19 (linked dynamically, and used by bindgen at
# build time), cmake and g++ (for the MiniSat build of rustsat-minisat); and for the tests, the
# clang 19 compiler, which checks that generated programs are valid C (tests/generated.rs).
SYS_PKGS := libclang-19-dev cmake g++ clang-19

# Run apt-get through sudo when we are not root.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# cargo from PATH, else the default rustup location.
CARGO ?= $(shell command -v cargo 2>/dev/null || echo $(HOME)/.cargo/bin/cargo)
TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
DRIP := $(TARGET_DIR)/release/drip

.PHONY: all deps build demo test test-budgets test-generated test-openssl lint bench clean

all: build

deps:
	@missing=""; \
	for p in $(SYS_PKGS); do \
	  dpkg -s "$$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  $(SUDO) apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	else \
	  echo "deps: $(SYS_PKGS) already installed"; \
	fi

build: deps
	$(CARGO) build --release

# drip exits 0 (nothing found) or 1 (findings): both are a successful demo.
demo: build
	@echo "== drip check -p compile_commands/demo"
	@rc=0; "$(DRIP)" check -p compile_commands/demo || rc=$$?; \
	case $$rc in \
	  0) echo "== drip exited 0: no findings" ;; \
	  1) echo "== drip exited 1: findings reported (expected: see compile_commands/demo/EXPECTED.md)" ;; \
	  *) echo "== drip failed with exit code $$rc" >&2; exit $$rc ;; \
	esac

test: deps
	$(CARGO) test --release

# Formatting and lints as .ci/run checks them (rustfmt.toml, clippy.toml).
lint: deps
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings

# Generated functions that are long in unusual ways (tests/budgets.rs): each must finish within
# its budget and say what it skipped; and TUs whose parse runs past tu-time-ms
# (tests/cli_isolation.rs) or past the run's run-time-ms (tests/budgets_time.rs). Run one at a
# time, since they time themselves: about 20 s on two cores, so not part of `make test`.
test-budgets: deps
	$(CARGO) test --release --test budgets --test budgets_time --test cli_isolation -- --ignored --test-threads=1

# Random C programs (tests/cgen) through drip (tests/generated.rs): no panic, signal, exit 2 or 3,
# or timeout, and the same report at -j1/-j2 and with/without the cache. About 3 minutes on two
# cores for the default 200; DRIP_GEN_COUNT and DRIP_GEN_SEED (first seed, default 1) change them,
# and a failing program is saved in target/generated-failures/SEED/.
test-generated: deps
	DRIP_GEN_COUNT="$${DRIP_GEN_COUNT:-200}" $(CARGO) test --release --test generated -- --ignored --nocapture

# drip capture on OpenSSL's own build system (Configure + make build_libs): several minutes on two
# cores, so not part of `make test`. See README.md, "Capture beside your build".
test-openssl: deps
	$(CARGO) test --release --features test-openssl --test capture_openssl -- --nocapture

# Not a set-up command: see bench/README.md.
bench: deps
	bash bench/run.sh

clean:
	$(CARGO) clean
	rm -rf bench/work compile_commands/demo/.drip
