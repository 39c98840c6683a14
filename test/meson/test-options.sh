#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The build options meson refuses for the compiler in use, each with its
# message and no build directory configured: -Dpgo (gcc's .gcda profile)
# with clang, -Dfuzz=true (libFuzzer) with gcc.  "clang" here is gcc
# behind a script that answers --version as clang does, which is all
# meson reads to tell the two apart, so no clang needs to be installed;
# the same compiler with the option left alone configures (the refusal
# is the option's, not the stand-in's).
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

# setup NAME WANT(ok|refused) MESSAGE CC MESON_OPTION...
setup() {
	local name=$1 want=$2 msg=$3 compiler=$4 rc
	shift 4
	rm -rf "$DIR/b"
	CC=$compiler meson setup "$DIR/b" -Dtests=false -Dexamples=false \
		"$@" >"$DIR/out" 2>&1
	rc=$?
	if [ "$want" = ok ] && [ $rc -ne 0 ]; then
		echo "FAIL: $name: meson setup failed:"
		tail -n 5 "$DIR/out"
		fail=1
	elif [ "$want" = refused ] && [ $rc -eq 0 ]; then
		echo "FAIL: $name: meson setup accepted it"
		fail=1
	elif [ "$want" = refused ] && [ -f "$DIR/b/build.ninja" ]; then
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
setup "gcc, -Dfuzz=true" refused "-Dfuzz=true needs clang" gcc -Dfuzz=true
setup "gcc, -Dpgo=generate" ok "C compiler for the host machine: gcc" gcc \
	-Dpgo=generate

[ $fail = 0 ] && echo PASS
exit $fail
