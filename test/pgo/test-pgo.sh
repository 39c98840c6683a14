#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/pgo.sh end to end, in a build directory of its own (library and
# pmr-perf only): two short training runs, then the library built with
# their profile, its objects compiled with it (and without splitting
# functions into hot and cold parts), and pmr-perf running on it
# between two processes; a training run that fails stops the script with
# its name and leaves the build instrumented, not optimised with a partial
# profile; training runs that load another build of the library (here
# the uninstrumented one of OTHER_BUILD, through LD_LIBRARY_PATH) leave no
# profile, which stops it too; no training run at all is refused, and so
# is --save into a build directory not directly inside the source tree,
# or into one at another -O level, with sanitizers or with coverage.
# --save in a copy of the source tree keeps the profile in the copy's
# pgo/, and a build of the copy with the default -Dpgo (auto) compiles
# every object of the library with it, matching (test-profile.py).
# pgo.sh --mode tells a build's -Dpgo (used throughout) and refuses a
# directory that is not a configured build.
#   test-pgo.sh SOURCE_ROOT OTHER_BUILD
set -uo pipefail
SRC=$1
OTHER=$2
DIR=$(mktemp -d /tmp/pmr-pgo-test.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
B=$DIR/b
OPTS=(-Dtests=false -Dexamples=false)
fail=0

# pgo_mode: the build's -Dpgo
pgo_mode() {
	"$SRC/scripts/pgo.sh" --mode "$B"
}

PMR_PGO_CASES="send_lat -s 64 -n 2000; send_bw -s 64 -D 0.3" \
	"$SRC/scripts/pgo.sh" "$B" "${OPTS[@]}" >"$DIR/out" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q "built with the profile of 2 training runs" "$DIR/out"; then
	echo "FAIL: pgo.sh with two training runs (status $rc)"
	tail -n 20 "$DIR/out"
	fail=1
else
	echo "ok: pgo.sh with two training runs"
fi
# the library's objects, and only they, compiled with the profile
python3 - "$B/compile_commands.json" <<'PY' || { echo "FAIL: the library not built with the profile"; fail=1; }
import json, sys
cmds = json.load(open(sys.argv[1]))
lib = [c for c in cmds if "libpmrdma.so" in c["output"]]
other = [c for c in cmds if "libpmrdma.so" not in c["output"]]
assert lib and all("-fprofile-use" in c["command"] and
                   "-fno-reorder-blocks-and-partition" in c["command"]
                   for c in lib)
assert not any("-fprofile" in c["command"] for c in other)
PY
[ "$(pgo_mode)" = use ] || { echo "FAIL: the build not left in -Dpgo=use"; fail=1; }
# --mode on a directory that is not a configured build: refused
if out=$("$SRC/scripts/pgo.sh" --mode "$DIR" 2>&1) ||
   [ "$out" != "pgo: --mode needs a configured build directory" ]; then
	echo "FAIL: pgo.sh --mode on a directory that is not a build: '$out'"
	fail=1
else
	echo "ok: pgo.sh --mode on a directory that is not a build: refused"
fi
# pmr-perf on the optimised library
if "$SRC/scripts/perf-pair.sh" "$B" "$DIR" $((24000 + $$ % 5000)) \
	send_lat -s 64 -n 2000 --json &&
	grep -q '"mode":"rdma".*"t_typical":[0-9]' "$DIR/client.log"; then
	echo "ok: pmr-perf send_lat on the optimised library"
else
	echo "FAIL: pmr-perf send_lat on the optimised library"
	tail -n 5 "$DIR/client.log" "$DIR/client.err" "$DIR/server.log"
	fail=1
fi

# refused WHAT MESSAGE CASES [VAR=VALUE...]: pgo.sh with PMR_PGO_CASES=CASES
# (and the variables) must stop with status 1 and MESSAGE, the build left
# instrumented, not optimised with a partial profile
refused() {
	local what=$1 msg=$2 cases=$3 rc=0
	shift 3
	env "$@" PMR_PGO_CASES="$cases" "$SRC/scripts/pgo.sh" "$B" \
		>"$DIR/out" 2>&1 || rc=$?
	if [ $rc -ne 1 ] || ! grep -qF "pgo: $msg" "$DIR/out" ||
	   [ "$(pgo_mode)" != generate ]; then
		echo "FAIL: $what (status $rc, mode $(pgo_mode))"
		tail -n 5 "$DIR/out"
		fail=1
	else
		echo "ok: $what: refused"
	fi
}
refused "a failed training run" \
	"training run 2 failed: pmr-perf send_lat -s 4x" \
	"send_lat -s 64 -n 1000; send_lat -s 4x"
# (the profile of the run above is deleted first, as at every start)
refused "training runs on another build of the library" \
	"the training left 0 profile files for the library's" \
	"send_lat -s 64 -n 1000" LD_LIBRARY_PATH="$OTHER"
refused "no training run" "no training runs" " ; "
# --save into a build directory outside the source tree: refused before
# any training run
rc=0
PMR_PGO_CASES="send_lat -s 64 -n 1000" "$SRC/scripts/pgo.sh" --save "$B" \
	>"$DIR/out" 2>&1 || rc=$?
if [ $rc -ne 1 ] || grep -q "training run" "$DIR/out" ||
   ! grep -qF "pgo: --save needs a build directory directly inside the source tree" "$DIR/out"; then
	echo "FAIL: --save outside the source tree (status $rc)"
	tail -n 5 "$DIR/out"
	fail=1
else
	echo "ok: --save outside the source tree: refused"
fi

# --save in a copy of the source tree: the profile kept in its pgo/, and a
# build of the copy with the default -Dpgo uses it, every object matching
# (test-profile.py, the fast suite's check of the real tree)
S=$DIR/src
mkdir "$S"
tar -C "$SRC" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$S" -xf -
rm -rf "$S/pgo"
# --save into a build that is not the one the profile is for: refused
# before anything is built
for bad in "-Doptimization=3|an -O2 build" \
	   "-Db_sanitize=address|a build without sanitizers" \
	   "-Db_coverage=true|a build without coverage"; do
	rc=0
	"$S/scripts/pgo.sh" --save "$S/build-bad" "${OPTS[@]}" "${bad%%|*}" \
		>"$DIR/out" 2>&1 || rc=$?
	if [ $rc -ne 1 ] || grep -q "training run" "$DIR/out" ||
	   ! grep -qF "pgo: --save needs ${bad#*|}" "$DIR/out" ||
	   [ -e "$S/pgo" ]; then
		echo "FAIL: --save with ${bad%%|*} (status $rc)"
		tail -n 5 "$DIR/out"
		fail=1
	else
		echo "ok: --save with ${bad%%|*}: refused"
	fi
	rm -rf "$S/build-bad"
done
if PMR_PGO_CASES="send_lat -s 64 -n 2000" "$S/scripts/pgo.sh" --save \
	"$S/build-pgo" "${OPTS[@]}" >"$DIR/out" 2>&1 &&
   grep -q "pgo: the profile saved in pgo/ (14 files)" "$DIR/out" &&
   grep -qx "gcc $(gcc -dumpfullversion)" "$S/pgo/PROFILE"; then
	echo "ok: pgo.sh --save: the profile in pgo/"
else
	echo "FAIL: pgo.sh --save"
	tail -n 20 "$DIR/out"
	fail=1
fi
meson setup "$S/build" "$S" "${OPTS[@]}" >"$DIR/out" 2>&1 &&
	python3 "$SRC/test/pgo/test-profile.py" "$S" "$S/build" >"$DIR/out" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ "$(grep -c "compiles with its profile, matching" "$DIR/out")" -ne 14 ]; then
	echo "FAIL: a build of the default -Dpgo with the saved profile (status $rc)"
	tail -n 20 "$DIR/out"
	fail=1
else
	echo "ok: a build of the default -Dpgo with the saved profile: all 14 objects"
fi
exit $fail
