#!/usr/bin/env bash
# Run test suites in the developer build and, unless SANITIZE=0, in an
# AddressSanitizer + UndefinedBehaviorSanitizer build, then print one line
# summing both:  N passed, N failed[, N skipped]
#
#   scripts/test.sh [SUITE...]          (default suites: fast func)
#
# Environment:
#   SANITIZE=0        skip the sanitizer build (default 1)
#   BUILD_DIR         developer build (default build; must be built)
#   ASAN_BUILD_DIR    sanitizer build (default build-asan; set up here)
#   PMR_NO_HUGE=1     force EAL runs without hugepages; otherwise the
#                     decision of scripts/hugepages.sh is used
# Exit status: non-zero if any test or the sanitizer build failed.
set -euo pipefail
cd "$(dirname "$0")/.."

SANITIZE=${SANITIZE:-1}
BUILD_DIR=${BUILD_DIR:-build}
ASAN_BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}

suites=("$@")
[ ${#suites[@]} -ne 0 ] || suites=(fast func)
suite_args=()
for s in "${suites[@]}"; do
	suite_args+=(--suite "$s")
done

# Tests read PMR_NO_HUGE=1 to choose EAL arguments without hugepages.
if [ "$(scripts/eal-args.sh --mode "$BUILD_DIR")" = nohuge ]; then
	export PMR_NO_HUGE=1
fi

logs=()
status=0

# run_suites DIR [MESON_TEST_ARG...]
run_suites() {
	local dir=$1 log=$1/meson-logs/testlog.json rc=0
	shift
	rm -f "$log"
	echo "+ meson test -C $dir ${suite_args[*]} --print-errorlogs $*"
	meson test -C "$dir" "${suite_args[@]}" --print-errorlogs "$@" || rc=$?
	if [ ! -f "$log" ] && [ $rc -eq 0 ]; then
		: >"$log"    # "No suitable tests defined": nothing ran
	fi
	[ $rc -eq 0 ] || status=1
	logs+=("$log")
}

run_suites "$BUILD_DIR"

failed_builds=0
if [ "$SANITIZE" != 0 ]; then
	echo "+ sanitizer build in $ASAN_BUILD_DIR (address, undefined)"
	if scripts/setup-build.sh "$ASAN_BUILD_DIR" -Dbuildtype=debug \
		-Db_sanitize=address,undefined -Db_lundef=false &&
		ninja -C "$ASAN_BUILD_DIR"; then
		# UBSan reports abort the test; leaks fail it too.
		export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:print_stacktrace=1:strict_string_checks=1}
		export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:print_summary=1}
		run_suites "$ASAN_BUILD_DIR" --timeout-multiplier 3
	else
		echo "test: the sanitizer build failed"
		failed_builds=1
		status=1
	fi
fi

scripts/test-summary.sh --failed-builds "$failed_builds" "${logs[@]}" || status=1
exit $status
