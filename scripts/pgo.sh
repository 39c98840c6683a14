#!/usr/bin/env bash
# Build libpmrdma with profile-guided optimisation (gcc):
#
#   scripts/pgo.sh [--save] [BUILD_DIR [MESON_OPTION...]]
#                                      (default: build-pgo)
#   scripts/pgo.sh --mode BUILD_DIR    print BUILD_DIR's -Dpgo (auto,
#                                      tree, off, generate or use);
#                                      status 1 if it is not a
#                                      configured build
#
# 1. configures BUILD_DIR with -Dpgo=generate (and the MESON_OPTIONs, when
#    it sets it up) and builds it: the library instrumented, pmr-perf and
#    the rest as usual;
# 2. trains it: pmr-perf runs between two processes over memif
#    (scripts/perf-pair.sh), each writing its counts into the library's
#    profile (.gcda files beside its objects), which starts empty;
# 3. with --save, keeps that profile in the source tree (pgo/profile/ and
#    pgo/PROFILE), where every build of the project finds it (-Dpgo=auto,
#    the default; meson.build): BUILD_DIR must then be directly inside
#    the source tree, at -O2 and without sanitizers or coverage, as the
#    builds that use it;
# 4. reconfigures BUILD_DIR with -Dpgo=use and builds the library again
#    with that profile.
#
# The training runs are the cases below, one per line, or those of
# PMR_PGO_CASES (same form: pmr-perf's client options, lines separated by
# ";").  EAL memory follows scripts/hugepages.sh's decision for BUILD_DIR
# (PMR_NO_HUGE=1 forces --no-huge).  Exit status 1, and BUILD_DIR left in
# generate mode, when there is no training run, a training run fails (its
# logs are printed) or the runs leave no profile for the library.
set -euo pipefail

# build_option NAME: the value of DIR's meson option NAME
build_option() {
	meson introspect --buildoptions "$DIR" | python3 -c 'import json, sys
print([o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]][0])' "$1"
}

if [ "${1:-}" = --mode ]; then
	if [ $# -ne 2 ] || [ ! -f "$2/meson-private/coredata.dat" ]; then
		echo "pgo: --mode needs a configured build directory" >&2
		exit 1
	fi
	DIR=$2
	build_option pgo
	exit
fi
cd "$(dirname "$0")/.."

SAVE=0
if [ "${1:-}" = --save ]; then
	SAVE=1
	shift
fi
DIR=${1:-build-pgo}
[ $# -eq 0 ] || shift
CASES=${PMR_PGO_CASES:-"send_lat -s 2 -n 20000
send_lat -s 64 -n 20000 --raw-compare
write_lat -s 64 -n 20000
read_lat -s 64 -n 20000
atomic_lat -n 20000
send_bw -s 64 -t 512 -Q 64 -D 1
send_bw -s 64 -t 512 -Q 64 -l 32 -D 1
write_bw -s 65536 -m 4096 -D 1
send_lat -s 64 -n 5000 -q 64"}

fail() {
	echo "pgo: $*" >&2
	exit 1
}

# lib_compiler: the compiler DIR builds the library with
lib_compiler() {
	python3 - "$DIR/compile_commands.json" <<'PY'
import json, shlex, sys
print(next(shlex.split(c["command"])[0] for c in json.load(open(sys.argv[1]))
           if c["output"].startswith("libpmrdma.so.")))
PY
}

# save_check: BUILD_DIR can make the profile kept in the tree (before
# the training): directly inside the source tree, -O2, no sanitizers or
# coverage
save_check() {
	[ "$(cd "$DIR/.." && pwd -P)" = "$(pwd -P)" ] ||
		fail "--save needs a build directory directly inside the source tree"
	[ "$(build_option optimization)" = 2 ] ||
		fail "--save needs an -O2 build (-Doptimization=2)"
	[ "$(build_option b_sanitize)" = none ] ||
		fail "--save needs a build without sanitizers"
	[ "$(build_option b_coverage)" = False ] ||
		fail "--save needs a build without coverage"
}

# save_profile RUNS: the profile of BUILD_DIR's training, named as gcc
# looks it up with -fprofile-use=pgo/profile and -fprofile-prefix-path=
# the build directory (the object's path below it, "/" as "#"), into the
# source tree, and pgo/PROFILE: the compiler, a checksum of the files
# (meson.build's gate and rebuild key; test/pgo checks it), the runs
save_profile() {
	local f sum
	rm -rf pgo/profile
	mkdir -p pgo/profile
	while IFS= read -r f; do
		cp "$DIR/$f" "pgo/profile/${f//\//#}"
	done < <(cd "$DIR" && find libpmrdma.so.*.p -name '*.gcda')
	sum=$(cd pgo/profile && LC_ALL=C sha256sum -- * | sha256sum)
	{
		echo "# The profile libpmrdma is built with (meson -Dpgo=auto, the"
		echo "# default): written by scripts/pgo.sh --save, from $1 training"
		echo "# runs of pmr-perf over memif (doc/guides/performance.rst, The"
		echo "# profile in the tree).  Lines \"KEY VALUE\"; do not edit."
		echo "gcc $("$(lib_compiler)" -dumpfullversion)"
		echo "sha256 ${sum%% *}"
	} >pgo/PROFILE
	echo "pgo: the profile saved in pgo/ ($(find pgo/profile -name '*.gcda' | wc -l) files)"
}

runs=()
while IFS= read -r c; do
	c=${c#"${c%%[![:space:]]*}"}        # leading blanks
	[ -z "$c" ] || runs+=("$c")
done < <(tr ';' '\n' <<<"$CASES")
[ ${#runs[@]} -gt 0 ] || fail "no training runs (PMR_PGO_CASES is empty)"

# the instrumented build, with an empty profile
scripts/setup-build.sh "$DIR" -Dpgo=generate "$@"
echo "+ meson configure $DIR -Dpgo=generate"
meson configure "$DIR" -Dpgo=generate >/dev/null
[ $SAVE -eq 0 ] || save_check
find "$DIR" -name '*.gcda' -delete
ninja -C "$DIR"
scripts/hugepages.sh "$DIR"

LOG=$(mktemp -d /tmp/pmr-pgo.XXXXXX)
trap 'rm -rf "$LOG"' EXIT
port=$((23000 + $$ % 5000))
n=0
for c in "${runs[@]}"; do
	n=$((n + 1))
	echo "pgo: training run $n: pmr-perf $c"
	# shellcheck disable=SC2086
	if ! scripts/perf-pair.sh "$DIR" "$LOG" $((port++)) $c; then
		tail -n 5 "$LOG/client.log" "$LOG/client.err" "$LOG/server.log" >&2
		fail "training run $n failed: pmr-perf $c"
	fi
done

# every object of the library has its counts (a run that did not reach
# the library, or a build elsewhere, would leave none)
objs=$(find "$DIR/libpmrdma.so."*.p -name '*.o' | wc -l)
prof=$(find "$DIR/libpmrdma.so."*.p -name '*.gcda' | wc -l)
if [ "$prof" -eq 0 ] || [ "$prof" -ne "$objs" ]; then
	fail "the training left $prof profile files for the library's $objs objects"
fi

[ $SAVE -eq 0 ] || save_profile "$n"

echo "+ meson configure $DIR -Dpgo=use"
meson configure "$DIR" -Dpgo=use >/dev/null
ninja -C "$DIR"
echo "pgo: $DIR/libpmrdma.so built with the profile of $n training runs"
