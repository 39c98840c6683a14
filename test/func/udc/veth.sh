#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# udc (UD, UC, RC over IPv6) between two pmrdma processes in two network
# namespaces joined by a veth pair (MTU 9000, kernel IPv6 off), over
# af_packet.  The stack owns the addresses: the kernel interfaces get none.
#   veth.sh UDC_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "SKIP: needs root and iproute2"
	exit 77
fi
nsa=pmrt-udc-a nsb=pmrt-udc-b
del_ns() {
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
}
del_ns
logdir=$(mktemp -d /tmp/pmrt-udc-veth.XXXXXX)
ctl="$logdir/ctl.sock"
cleanup() {
	del_ns
	rm -rf "$logdir"
	rm -rf /var/run/dpdk/pmrt-udc-*-$$
}
trap cleanup EXIT

set -e
ip netns add "$nsa"
ip netns add "$nsb"
ip link add pmrt-ua netns "$nsa" type veth peer name pmrt-ub netns "$nsb"
for x in "$nsa:pmrt-ua" "$nsb:pmrt-ub"; do
	ns=${x%%:*} ifc=${x#*:}
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=1"
	ip -n "$ns" link set "$ifc" mtu 9000
	ip -n "$ns" link set "$ifc" up
	ip -n "$ns" link set lo up
done
set +e

afp="qpairs=1,blocksz=65536,framesz=8192,framecnt=512,qdisc_bypass=1"
run_all "ip netns exec $nsa" "ip netns exec $nsb" \
	"$(eal_mem_args "$builddir" s) -l 1 --vdev net_af_packet0,iface=pmrt-ua,$afp" \
	"$(eal_mem_args "$builddir" c) -l 0 --vdev net_af_packet0,iface=pmrt-ub,$afp" \
	"" "" "$ctl"
fails=$?
echo "udc veth: $fails failed run(s)"
[ "$fails" = 0 ]
