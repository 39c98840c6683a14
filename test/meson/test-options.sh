#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The build options meson refuses for the compiler in use, each with its
# message and no build directory configured: -Dpgo (gcc's .gcda profile)
# with clang, -Dfuzz=true (libFuzzer) with gcc.  "clang" here is gcc
# behind a script that answers --version as clang does, which is all
# meson reads to tell the two apart, so no clang needs to be installed;
# the same compiler with the option left alone configures (the refusal
# is the option's, not the stand-in's).  Then the gate of the profile kept
# in the tree (pgo/, -Dpgo=auto and tree), in a copy of the source tree.
#   test-options.sh SOURCE_ROOT
set -uo pipefail
SRC=$1
DIR=$(mktemp -d /tmp/pmr-options-test.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
fail=0

mkdir "$DIR/bin"
cat >"$DIR/bin/clang" <<'EOF'
#!/bin/sh
[ "$*" = --version ] && { echo "Debian clang version 14.0.6"; exit 0; }
exec gcc "$@"
EOF
chmod +x "$DIR/bin/clang"

# setup NAME WANT(ok|refused) MESSAGE CC MESON_OPTION...: a build
# directory $B (default $DIR/b) of the project in the working directory
setup() {
	local name=$1 want=$2 msg=$3 compiler=$4 b=${B:-$DIR/b} rc
	shift 4
	rm -rf "$b"
	CC=$compiler meson setup "$b" -Dtests=false -Dexamples=false \
		"$@" >"$DIR/out" 2>&1
	rc=$?
	if [ "$want" = ok ] && [ $rc -ne 0 ]; then
		echo "FAIL: $name: meson setup failed:"
		tail -n 5 "$DIR/out"
		fail=1
	elif [ "$want" = refused ] && [ $rc -eq 0 ]; then
		echo "FAIL: $name: meson setup accepted it"
		fail=1
	elif [ "$want" = refused ] && [ -f "$b/build.ninja" ]; then
		echo "FAIL: $name: refused, but a build directory was configured"
		fail=1
	elif ! grep -q -- "$msg" "$DIR/out"; then
		echo "FAIL: $name: no \"$msg\" in meson's output:"
		tail -n 5 "$DIR/out"
		fail=1
	else
		echo "ok: $name"
	fi
}

cd "$SRC" || exit 1
setup "clang, -Dpgo=use" refused "-Dpgo needs gcc" "$DIR/bin/clang" -Dpgo=use
setup "clang, -Dpgo=generate" refused "-Dpgo needs gcc" "$DIR/bin/clang" \
	-Dpgo=generate
setup "clang, no -Dpgo" ok "C compiler for the host machine: .*clang" \
	"$DIR/bin/clang"
grep -q "libpmrdma without the tree's profile: the compiler is not gcc" \
	"$DIR/out" || { echo "FAIL: clang, no -Dpgo: no word of the profile"; fail=1; }
setup "gcc, -Dfuzz=true" refused "-Dfuzz=true needs clang" gcc -Dfuzz=true
setup "gcc, -Dpgo=generate" ok "C compiler for the host machine: gcc" gcc \
	-Dpgo=generate

# The profile kept in the tree (pgo/): -Dpgo=auto (the default) uses it
# where it fits, -Dpgo=tree refuses where it does not.  In a copy of the
# source tree, whose build directories may sit directly inside it and
# whose pgo/PROFILE may be changed.
S=$DIR/src
mkdir "$S"
tar -C "$SRC" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$S" -xf -
cd "$S" || exit 1
# uses: the library's objects compiled with the copy's profile
uses() {
	python3 - "$B/compile_commands.json" "$S/pgo/profile" <<'PY'
import json, shlex, sys
cmds = json.load(open(sys.argv[1]))
lib = [c for c in cmds if c["output"].startswith("libpmrdma.so.")]
sys.exit(not (lib and all("-fprofile-use=" + sys.argv[2] in
                          shlex.split(c["command"]) for c in lib)))
PY
}
B=$S/b setup "gcc, no -Dpgo, inside the tree" ok \
	"C compiler for the host machine: gcc" gcc
B=$S/b uses || { echo "FAIL: gcc, no -Dpgo, inside the tree: the profile not used"; fail=1; }
B=$S/b setup "-Dpgo=tree, inside the tree" ok "" gcc -Dpgo=tree
B=$S/b uses || { echo "FAIL: -Dpgo=tree: the profile not used"; fail=1; }
setup "-Dpgo=tree outside the tree" refused \
	"-Dpgo=tree: the build directory is not directly inside the source tree" \
	gcc -Dpgo=tree
setup "no -Dpgo outside the tree" ok \
	"libpmrdma without the tree's profile: the build directory is not directly inside" gcc
B=$DIR/b uses && { echo "FAIL: no -Dpgo outside the tree: the profile used"; fail=1; }
B=$S/b setup "-Dpgo=tree, a sanitizer build" refused \
	"-Dpgo=tree: a sanitizer build" gcc -Dpgo=tree -Db_sanitize=address
B=$S/b setup "-Dpgo=tree, a coverage build" refused \
	"-Dpgo=tree: a coverage build" gcc -Dpgo=tree -Db_coverage=true
B=$S/b setup "-Dpgo=tree, -O3" refused \
	"-Dpgo=tree: the profile is of -O2 builds, this one is -O3" gcc \
	-Dpgo=tree -Doptimization=3
B=$S/b setup "no -Dpgo, -O3" ok \
	"libpmrdma without the tree's profile: the profile is of -O2 builds" \
	gcc -Doptimization=3
B=$S/b uses && { echo "FAIL: no -Dpgo, -O3: the profile used"; fail=1; }
B=$S/b setup "-Dpgo=off, inside the tree" ok "" gcc -Dpgo=off
B=$S/b uses && { echo "FAIL: -Dpgo=off: the profile used"; fail=1; }
sed -i 's/^gcc .*/gcc 1.0.0/' pgo/PROFILE
B=$S/b setup "-Dpgo=tree, the profile of another gcc" refused \
	"-Dpgo=tree: the profile is of gcc 1.0.0, the compiler gcc" gcc -Dpgo=tree
sed -i '/^sha256 /d' pgo/PROFILE
B=$S/b setup "-Dpgo=tree, pgo/PROFILE incomplete" refused \
	"-Dpgo=tree: pgo/PROFILE is missing or incomplete" gcc -Dpgo=tree
rm pgo/PROFILE
B=$S/b setup "-Dpgo=tree, no pgo/PROFILE" refused \
	"-Dpgo=tree: pgo/PROFILE is missing or incomplete" gcc -Dpgo=tree
B=$S/b setup "no -Dpgo, no pgo/PROFILE" ok \
	"libpmrdma without the tree's profile: pgo/PROFILE is missing" gcc

[ $fail = 0 ] && echo PASS
exit $fail
