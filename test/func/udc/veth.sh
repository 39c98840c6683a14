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
veth_names pmrt-udc
logdir=$(mktemp -d /tmp/pmrt-udc-veth.XXXXXX)
ctl="$logdir/ctl.sock"
cleanup() {
	veth_del "$nsa" "$nsb"
	rm -rf "$logdir"
	rm -rf /var/run/dpdk/pmrt-udc-*-$$
}
trap cleanup EXIT

veth_up "$nsa" "$nsb" pmrt-ua pmrt-ub || exit

run_all "ip netns exec $nsa" "ip netns exec $nsb" \
	"$(eal_mem_args "$builddir" s) -l 1 --vdev net_af_packet0,iface=pmrt-ua,$AFP_ARGS" \
	"$(eal_mem_args "$builddir" c) -l 0 --vdev net_af_packet0,iface=pmrt-ub,$AFP_ARGS" \
	"" "" "$ctl"
fails=$?
echo "udc veth: $fails failed run(s)"
[ "$fails" = 0 ]
