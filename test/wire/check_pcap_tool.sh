#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Decode the frames built by test_wire_build with an independent tool.
#
#   check_pcap_tool.sh tshark GEN
#       tshark must decode every frame (IPv4 and IPv6 pcaps) as InfiniBand
#       without "Malformed" or "Expert Info (Error".  A missing tshark is a
#       failure.
#   check_pcap_tool.sh scapy GEN PYTHON VERIFY_ICRC_PY
#       scapy.contrib.roce recomputes the ICRC of every IPv4 frame
#       (verify_icrc.py exits 0 only if all match; it does not do IPv6).
#
# GEN is the test_wire_build executable; it writes the pcaps with
# --pcap4 / --pcap6.
set -u

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

[ $# -ge 2 ] || fail "usage: $0 tshark|scapy GEN [PYTHON VERIFY_ICRC_PY]"
mode=$1
gen=$2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wire-pcap.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM

"$gen" --pcap4 "$tmp/v4.pcap" --pcap6 "$tmp/v6.pcap" >"$tmp/gen.log" 2>&1 || {
	cat "$tmp/gen.log" >&2
	fail "$gen did not build the frames"
}

case $mode in
tshark)
	command -v tshark >/dev/null 2>&1 ||
		fail "tshark not installed: run make deps"
	for f in v4 v6; do
		# Soft-RoCE (and this builder) send UDP checksum 0 over IPv6 too
		# (RFC 6935/6936 zero-checksum tunnel; rxe's socket accepts it);
		# tshark flags that as an error unless told to ignore it.
		opts=""
		[ "$f" = v6 ] && opts="-o udp.ignore_ipv6_zero_checksum:TRUE"
		# shellcheck disable=SC2086
		tshark -r "$tmp/$f.pcap" $opts -d udp.port==4791,infiniband -V \
			>"$tmp/$f.txt" 2>"$tmp/$f.err" || {
			cat "$tmp/$f.err" >&2
			fail "tshark could not read the $f pcap"
		}
		frames=$(grep -c '^Frame [0-9]' "$tmp/$f.txt")
		ib=$(grep -c '^InfiniBand$' "$tmp/$f.txt")
		[ "$frames" -ge 20 ] || fail "$f: only $frames frames decoded"
		[ "$ib" -eq "$frames" ] ||
			fail "$f: $ib of $frames frames decoded as InfiniBand"
		if grep -n -E 'Malformed|Expert Info \(Error' "$tmp/$f.txt" >&2; then
			fail "$f: tshark reports errors (see above; full output: tshark -r PCAP -d udp.port==4791,infiniband -V)"
		fi
		echo "$f: tshark decoded $frames frames as InfiniBand, no errors"
	done
	;;
scapy)
	[ $# -eq 4 ] || fail "usage: $0 scapy GEN PYTHON VERIFY_ICRC_PY"
	py=$3
	script=$4
	[ -x "$py" ] || fail "$py not found (python3-scapy: run make deps)"
	[ -f "$script" ] || fail "$script not found"
	"$py" -B "$script" "$tmp/v4.pcap" || fail "scapy ICRC check failed"
	;;
*)
	fail "unknown mode $mode"
	;;
esac
exit 0
