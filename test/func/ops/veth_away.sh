#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A RoCE device over af_packet on a veth pair whose other end, in another
# namespace, sends every frame back (port_echo on af_packet), so that two
# QPs of the device exchange frames.  The other end is taken down, so
# that the device's interface loses its carrier, and up again 1.5 s after
# the program says it is done with the link down (peer_away.c, as for
# memif); at the end the device's interface is deleted.  MODE nosock:
# the device has no socket to read its interface's flags with (the
# program fails libpmrdma's socket() calls): it warns, and works with the
# port's own report of its link.  MODE noargs: the same, the device not
# reading its interface's name (the program fails libpmrdma's
# rte_kvargs_parse() calls).  MODE downfirst: the other end is down
# before the device is made, and brought up once the program says so.
#   veth_away.sh PROGRAM ECHO_BINARY BUILD_DIR [nosock|noargs|downfirst]
set -uo pipefail
prog=$1
echo_bin=$2
builddir=${3:-build}
mode=${4:-}
. "$(dirname "$0")/common.sh"

epid=''
# shellcheck disable=SC2317
cleanup_more() {
	[ -n "$epid" ] && kill "$epid" 2>/dev/null && wait "$epid" 2>/dev/null
}
veth_dirs pmrt-away pmrt-wa pmrt-wb
# a signal (meson's timeout) ends the script through exit: the clean-up
trap 'exit 143' TERM
trap 'exit 130' INT
# shellcheck disable=SC2046
ip netns exec "$nsb" "$echo_bin" $(eal_mem_args "$builddir" echo) -l 1 \
	--vdev "net_af_packet0,iface=pmrt-wb,$AFP_ARGS" >"$logdir/echo.log" 2>&1 &
epid=$!
for _ in $(seq 1 100); do
	grep -qs serving "$logdir/echo.log" && break
	sleep 0.1
done
if ! grep -qs serving "$logdir/echo.log"; then
	echo "port_echo did not come up:"
	cat "$logdir/echo.log"
	exit 1
fi

mac=02:00:00:00:76:02
if [ "$mode" = downfirst ]; then
	ip -n "$nsb" link set pmrt-wb down && echo "the other end down first"
	# the kernel's operational state (IFF_RUNNING, what the device reads)
	# follows the carrier up to a second late after other link changes
	for _ in $(seq 1 50); do
		ip -n "$nsa" link show pmrt-wa | grep -q 'state DOWN' && break
		sleep 0.1
	done
fi
bg_run "$logdir/rc" "$logdir/prog.log" ip netns exec "$nsa" env \
	PMR_EAL_ARGS="$(eal_mem_args "$builddir" away) -l 0 --vdev net_af_packet0,iface=pmrt-wa,$AFP_ARGS" \
	PMR_DEVICES="roce:port=0,ipv4=10.76.0.2,mac=$mac,neigh=10.76.0.2/$mac" \
	timeout 60 "$prog" "$logdir" "${mode:-gone}"
cpid=$!
if [ "$mode" = downfirst ] || wait_mark "$logdir/ready" "$cpid"; then
	[ "$mode" = downfirst ] ||
		{ ip -n "$nsb" link set pmrt-wb down && echo "the other end down"; }
	if wait_mark "$logdir/down" "$cpid"; then
		sleep 1.5
		ip -n "$nsb" link set pmrt-wb up && echo "the other end up" &&
			touch "$logdir/up"
	fi
	if [ -z "$mode" ] && wait_mark "$logdir/last" "$cpid"; then
		ip -n "$nsa" link del pmrt-wa && echo "the interface deleted"
	fi
fi
wait "$cpid"
rc=$(cat "$logdir/rc" 2>/dev/null) || rc=none
echo "veth_away${mode:+ ($mode)}: program exit $rc"
if [ "$mode" = nosock ] && ! grep -q "no socket to watch pmrt-wa" "$logdir/prog.log"; then
	echo "veth_away (nosock): no warning of the missing socket"
	rc=1
fi
if [ "$mode" = noargs ] &&
   ! { grep -q 'arguments "iface=pmrt-wa.*" not parsed: no iface' "$logdir/prog.log" &&
       grep -q "af_packet's iface= not read" "$logdir/prog.log"; }; then
	echo "veth_away (noargs): no warning of the arguments not read"
	rc=1
fi
[ "$rc" = 0 ]
