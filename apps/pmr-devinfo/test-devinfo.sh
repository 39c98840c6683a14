#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Check pmr-devinfo against the default configuration (the loopback device
# pmr_loop0):
#
#   test-devinfo.sh PATH/TO/pmr-devinfo
#
# Exit status: 0 if every check passed, 1 otherwise (each failure is
# printed).
set -u

bin=$1
fails=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# The default configuration: no file, no device list.
unset PMR_CONFIG PMR_DEVICES

fail() {
	echo "FAIL: $*"
	echo "--- stdout"; cat "$out"
	echo "--- stderr"; cat "$err"
	fails=$((fails + 1))
}

# run WANT_STATUS ARGS...: run pmr-devinfo, check its exit status.
run() {
	local want=$1 got
	shift
	"$bin" "$@" >"$out" 2>"$err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "pmr-devinfo $*: exit status $got, want $want"
		return 1
	fi
	return 0
}

# has LITERAL DESCRIPTION: stdout contains the literal text (tabs allowed).
has() {
	if ! grep -qF -- "$1" "$out"; then
		fail "$2: output lacks '$(printf '%q' "$1")'"
	fi
}

tab=$'\t'

if run 0; then
	has "hca_id:${tab}pmr_loop0" "pmr-devinfo"
	has "PORT_ACTIVE (4)" "pmr-devinfo"
	has "link_layer:${tab}${tab}Ethernet" "pmr-devinfo"
	has "max_mtu:${tab}${tab}4096 (5)" "pmr-devinfo"
	if grep -q 'GID\[' "$out"; then
		fail "pmr-devinfo: GIDs printed without -v"
	fi
fi

if run 0 -v -d pmr_loop0; then
	has "hca_id:${tab}pmr_loop0" "pmr-devinfo -v -d pmr_loop0"
	has "PORT_ACTIVE" "pmr-devinfo -v -d pmr_loop0"
	has "max_qp_wr:" "pmr-devinfo -v -d pmr_loop0"
	has "local_ca_ack_delay:" "pmr-devinfo -v -d pmr_loop0"
	has "GID[  0]:${tab}${tab}::ffff:127.0.0.1, RoCE v2" \
		"pmr-devinfo -v -d pmr_loop0"
fi

if run 0 -l; then
	has "1 HCA found:" "pmr-devinfo -l"
	has "${tab}pmr_loop0" "pmr-devinfo -l"
fi

if run 1 -d nosuch; then
	if ! grep -q "nosuch" "$err"; then
		fail "pmr-devinfo -d nosuch: no message on stderr"
	fi
	if [ -s "$out" ]; then
		fail "pmr-devinfo -d nosuch: printed a device"
	fi
fi

run 1 -i 2 || true
run 1 -i 0 || true
run 1 --no-such-option || true

if [ "$fails" -ne 0 ]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "pmr-devinfo: all checks passed"
