#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# replay.c's file paths, on the engine target (its own EAL arguments,
# --no-huge, when the environment gives none): -w writes the seeds, a
# directory of them and single files replay, -k writes the input it runs
# and that file replays; a path that does not exist and an unknown option
# fail.  That inputs ran is read from the target's own count (FUZZ_STATS).
#   replay_files.sh fuzz_engine
set -u
target=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
check() {       # check WHAT EXPECTED ACTUAL
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: expected '$2', got '$3'"
		fail=1
	fi
}

mkdir "$dir/seeds"
"$target" -w "$dir/seeds"
check "-w exit" 0 $?
n=$(find "$dir/seeds" -type f | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: -w wrote no seed"; fail=1; }
# ran: the target's own count of the inputs it was given
ran() {
	FUZZ_STATS=1 "$target" "$@" 2>&1 >/dev/null |
		sed -n 's/^inputs \([0-9]*\)[ ,].*/\1/p'
}
check "directory" "$n" "$(ran "$dir/seeds")"
check "two files" 2 "$(ran "$dir/seeds/seed-000" "$dir/seeds/seed-001")"
out=$("$target" "$dir/seeds" 2>/dev/null)
check "directory exit and output" "$n inputs from files" "$out"

(cd "$dir" && "$target" -s 5 -k 17 >/dev/null 2>&1)
check "-k exit" 0 $?
k=$(find "$dir" -maxdepth 1 -name '*-17.bin' | head -1)
[ -n "$k" ] || { echo "FAIL: -k 17 wrote no input file"; fail=1; }
[ -n "$k" ] && check "-k file replay" 1 "$(ran "$k")"

"$target" "$dir/none" >/dev/null 2>&1
check "missing path exit" 1 $?
"$target" -x >/dev/null 2>&1
check "unknown option exit" 2 $?
echo "replay_files: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
