#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rc_ops between two pmrdma processes over net_tap: each process makes its
# tap interface in a network namespace of the test's own, where a bridge
# takes each one in as soon as it appears.  The RoCE devices use MACs of
# their own (a bridge keeps frames to a port interface's own MAC for the
# host).  DPDK 22.11's tap keeps an MTU of 1500 (frames of a 2048-byte
# path MTU were lost), so the devices keep mtu=1024 and the two cases
# that need a path MTU of 4096 (sizes, peer_kill) are skipped: every
# other case of rc_ops runs, those added later too.
#   tap.sh RC_OPS_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || [ ! -c /dev/net/tun ]; then
	echo "SKIP: needs root, iproute2 and /dev/net/tun"
	exit 77
fi
ns=pmrt-tap-$$
logdir=$(mktemp -d /tmp/pmrt-tap.XXXXXX)
ctl=$logdir/ctl.sock
bpid=''
cleanup() {
	[ -n "$bpid" ] && kill "$bpid" 2>/dev/null && wait "$bpid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$logdir"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

ip netns add "$ns" && ip -n "$ns" link set lo up &&
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 &&
	ip -n "$ns" link add pmrt-br type bridge &&
	ip -n "$ns" link set pmrt-br up || exit
# each tap into the bridge, and up, once its process has made it
bridge_taps() {
	local t out
	for _ in $(seq 1 2400); do
		for t in pmrt-ta pmrt-tb; do
			out=$(ip -n "$ns" link show "$t" 2>/dev/null) || continue
			[[ $out == *master* ]] && continue
			ip -n "$ns" link set "$t" master pmrt-br &&
				ip -n "$ns" link set "$t" up
		done
		sleep 0.05
	done
}
bridge_taps &
bpid=$!

RC_OPS_SKIP=${RC_OPS_SKIP:-"sizes peer_kill"} run_pair "ip netns exec $ns" "ip netns exec $ns" \
	"$(eal_mem_args "$builddir" s) -l 1 --vdev net_tap0,iface=pmrt-ta" \
	"$(eal_mem_args "$builddir" c) -l 0 --vdev net_tap0,iface=pmrt-tb" \
	"roce:port=0,ipv4=10.95.0.1,mac=02:00:00:00:95:01" \
	"roce:port=0,ipv4=10.95.0.2,mac=02:00:00:00:95:02" \
	"$ctl"
