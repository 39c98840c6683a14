# pmrdma: convenience targets around meson + ninja.  See README.md.
#
#   make demo     install what is missing, build, run the loopback demo
#   make test     the fast and func suites, in the developer build and in a
#                 sanitizer (ASan + UBSan) build; SANITIZE=0 skips the latter
#
#   make pgo      a build of the library optimised with the profile of a
#                 pmr-perf training run over memif (scripts/pgo.sh)
#   make pgo-profile  the same, and that profile kept in pgo/, where every
#                 build of the project finds it (after a change to the
#                 library's sources)
#
# Variables: BUILD_DIR (build), ASAN_BUILD_DIR (build-asan),
# PGO_BUILD_DIR (build-pgo), SANITIZE (1),
# MESON_OPTS (extra options for the first `meson setup`), DESTDIR (install).

BUILD_DIR ?= build
ASAN_BUILD_DIR ?= build-asan
PGO_BUILD_DIR ?= build-pgo
SANITIZE ?= 1
MESON_OPTS ?=
DESTDIR ?=

# The single-suite targets skip the sanitizer build unless SANITIZE is
# given on the command line.
QUICK_SANITIZE := $(if $(filter command line,$(origin SANITIZE)),$(SANITIZE),0)

TEST_ENV = BUILD_DIR=$(BUILD_DIR) ASAN_BUILD_DIR=$(ASAN_BUILD_DIR)

# Each target is a sequence of steps; ninja does the parallel work.
.NOTPARALLEL:

.PHONY: all help deps hugepages build test test-fast test-func perf \
	pgo pgo-profile install demo clean

all: build

help:
	@echo "make deps        install missing Debian packages (scripts/deps.sh)"
	@echo "make hugepages   reserve 2 MiB hugepages or choose --no-huge"
	@echo "make build       meson setup (once) + ninja in $(BUILD_DIR)/"
	@echo "make test        fast + func suites, developer and sanitizer builds"
	@echo "make test-fast   fast suite, developer build"
	@echo "make test-func   func suite, developer build"
	@echo "make perf        perf suite (benchmarks), developer build"
	@echo "make pgo         profile-guided build of the library in $(PGO_BUILD_DIR)/"
	@echo "make pgo-profile the same, its profile kept in pgo/ for every build"
	@echo "make install     meson install (DESTDIR=... to stage)"
	@echo "make demo        device list + verbs loopback example"
	@echo "make clean       remove $(BUILD_DIR)/, $(ASAN_BUILD_DIR)/ and $(PGO_BUILD_DIR)/"

deps:
	@scripts/deps.sh

hugepages:
	@scripts/hugepages.sh $(BUILD_DIR)

build: deps
	@scripts/setup-build.sh $(BUILD_DIR) $(MESON_OPTS)
	ninja -C $(BUILD_DIR)

test: deps build hugepages
	@$(TEST_ENV) SANITIZE=$(SANITIZE) scripts/test.sh fast func

test-fast: deps build hugepages
	@$(TEST_ENV) SANITIZE=$(QUICK_SANITIZE) scripts/test.sh fast

test-func: deps build hugepages
	@$(TEST_ENV) SANITIZE=$(QUICK_SANITIZE) scripts/test.sh func

perf: deps build hugepages
	@$(TEST_ENV) SANITIZE=0 scripts/test.sh perf

pgo: deps
	@scripts/pgo.sh $(PGO_BUILD_DIR)

pgo-profile: deps
	@scripts/pgo.sh --save $(PGO_BUILD_DIR)

# Installing into the system (no DESTDIR) as root refreshes the loader cache.
install: build
	meson install -C $(BUILD_DIR) --no-rebuild $(if $(DESTDIR),--destdir $(DESTDIR))
ifeq ($(DESTDIR),)
	@if [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi
endif

demo: deps build hugepages
	@scripts/demo.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(PGO_BUILD_DIR)
